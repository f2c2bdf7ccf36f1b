"""ThreadPool: a ThreadPoolExecutor with all its threads from the start, each submission waking an idle one
(TF's platform thread pool).

The standard executor starts a thread for a task only when it counts no idle one, and counts a thread idle
for each task it finishes, so the count runs ahead of the threads really idle and a pool of two stayed at
one thread. Its work queue (queue.SimpleQueue) wakes waiting threads through one lock that `put` releases
only when the last `get` found the queue empty: a second task put before the first woken thread has taken
the GIL back wakes nobody. Either way two products a step can run at once, or the blocks of a split kernel,
ran one after the other on one thread while the others slept. queue.Queue notifies one waiting thread per
item.
"""

from __future__ import annotations

import queue
from concurrent.futures import ThreadPoolExecutor


class ThreadPool(ThreadPoolExecutor):
    """A ThreadPoolExecutor whose `max_workers` threads all start with it, over a queue that wakes one idle
    thread per submitted task."""

    def __init__(self, max_workers: int, thread_name_prefix: str = "") -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix=thread_name_prefix)
        self._work_queue = queue.Queue()  # before any thread starts: each reads it when it is made
        for _ in range(max_workers):
            self._adjust_thread_count()  # no task has finished, so each call starts a thread
