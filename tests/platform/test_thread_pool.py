"""ThreadPool (platform/thread_pool.py): tasks submitted together run at once, however many ran before."""

import threading

from tensorweave.platform.thread_pool import ThreadPool


def _pair_meets(pool) -> bool:
    """Whether two tasks submitted together, after a run of single tasks, both run at once (they meet at a
    barrier) rather than one after the other on one thread."""
    for _ in range(20):  # single tasks, each finished before the next: the standard pool counts idle threads
        pool.submit(int).result()
    barrier = threading.Barrier(2, timeout=2)
    futures = [pool.submit(barrier.wait) for _ in range(2)]
    try:
        for future in futures:
            future.result()
    except threading.BrokenBarrierError:
        return False
    return True


def test_tasks_submitted_together_run_at_once():
    with ThreadPool(2, "test-pool") as pool:
        assert len(pool._threads) == 2  # every thread from the start
        assert all(_pair_meets(pool) for _ in range(3))
        assert {t.name for t in pool._threads} == {"test-pool_0", "test-pool_1"}
