"""CancellationManager: how a step tells its pending work to stop (TF's framework/cancellation.h).

An asynchronous kernel that waits (a Recv, a Dequeue) registers a callback under a token; when the step
fails or is cancelled, `start_cancel` runs every registered callback once, so each waiting kernel finishes
with an error instead of holding the step forever. A callback registered after cancellation started is
refused (`register_callback` returns False) and the kernel must fail at once. Thread-safe.

`cancel_after(manager, seconds)` starts a manager's cancellation at a deadline from one shared watcher
thread, so a step whose kernels keep its own thread busy (a long loop) still ends at its timeout.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable


class CancellationManager:
    """Callbacks to run when the step that owns this manager is cancelled."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._tokens = itertools.count()
        self._cancelled = False

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    def get_cancellation_token(self) -> int:
        return next(self._tokens)

    def register_callback(self, token: int, callback: Callable[[], None]) -> bool:
        """Run `callback` on cancellation; False (and nothing registered) if cancellation already started."""
        with self._lock:
            if self._cancelled:
                return False
            self._callbacks[token] = callback
            return True

    def deregister_callback(self, token: int) -> bool:
        """Forget the callback of `token`; False if cancellation already started (it runs or has run)."""
        with self._lock:
            if self._cancelled:
                return False
            self._callbacks.pop(token, None)
            return True

    def start_cancel(self) -> None:
        """Cancel: run every registered callback once, outside the lock (a callback may finish a kernel)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            callbacks = list(self._callbacks.values())
            self._callbacks.clear()
        for callback in callbacks:
            callback()


class Deadline:
    """A scheduled cancellation; `cancel()` withdraws it, `fired` says whether it went off."""

    __slots__ = ("when", "manager", "cancelled", "fired")

    def __init__(self, when: float, manager: CancellationManager) -> None:
        self.when = when
        self.manager = manager
        self.cancelled = False
        self.fired = False

    def cancel(self) -> None:
        _watcher.withdraw(self)


class _DeadlineWatcher:
    """One daemon thread that starts the cancellations whose deadline has passed, earliest first."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._withdrawn = 0
        self._thread: threading.Thread | None = None

    def schedule(self, seconds: float, manager: CancellationManager) -> Deadline:
        deadline = Deadline(time.monotonic() + seconds, manager)
        with self._condition:
            heapq.heappush(self._heap, (deadline.when, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="tensorweave-deadlines", daemon=True)
                self._thread.start()
            self._condition.notify()
        return deadline

    def withdraw(self, deadline: Deadline) -> None:
        with self._condition:
            if deadline.cancelled or deadline.fired:
                return
            deadline.cancelled = True
            self._withdrawn += 1
            if self._withdrawn > 64 and self._withdrawn > len(self._heap) // 2:  # keep the heap small
                self._heap = [entry for entry in self._heap if not entry[2].cancelled]
                heapq.heapify(self._heap)
                self._withdrawn = 0

    def _run(self) -> None:
        while True:
            with self._condition:
                while True:
                    while self._heap and self._heap[0][2].cancelled:
                        heapq.heappop(self._heap)
                        self._withdrawn = max(0, self._withdrawn - 1)
                    now = time.monotonic()
                    if self._heap and self._heap[0][0] <= now:
                        deadline = heapq.heappop(self._heap)[2]
                        deadline.fired = True
                        break
                    self._condition.wait(self._heap[0][0] - now if self._heap else None)
            deadline.manager.start_cancel()


_watcher = _DeadlineWatcher()


def cancel_after(manager: CancellationManager, seconds: float) -> Deadline:
    """Start `manager`'s cancellation `seconds` from now, unless the returned Deadline is cancelled first."""
    return _watcher.schedule(seconds, manager)
