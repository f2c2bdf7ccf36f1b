"""`Device`: where kernels run and state lives.

A device has TF's fully qualified name ('/job:localhost/replica:0/task:0/device:CPU:0'), a type used to
pick kernels, an array module `xp` that kernels compute with (NumPy on CPU, CuPy on GPU), a resource
manager for its stateful objects (variables, queues), and intra-op threads that large kernels split their
work across (as TF's Eigen thread pool does): in-place elementwise updates and matrix products.

BLAS threads: while a session's device (`hold_blas`) is alive, the process's BLAS library runs each call on
one thread, and the device splits a large product into one-thread BLAS calls on its intra-op threads. So
the session's `intra_op_parallelism_threads` bounds the threads its kernels compute on, whichever ops run
at once, as TF's shared intra-op pool does; OpenBLAS's own threads, which spin while they wait, would
otherwise contend with the executor's inter-op threads and with other processes (a step became many times
slower on a loaded machine). The BLAS thread count is process-global: the first such device sets it to one
and the last one closed (or collected) restores what it was, so NumPy code outside sessions gets its
threads back. A device that does not hold BLAS leaves products to BLAS's own threads.
"""

from __future__ import annotations

import itertools
import os
import threading
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from tensorweave.framework import device_spec as pydev
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.platform import onednn
from tensorweave.platform.thread_pool import ThreadPool

_PARALLEL_MIN_ELEMENTS = 1 << 18  # below this, a thread hop costs more than it saves; larger ones go by such blocks
_PARALLEL_MIN_MULTIPLY_ADDS = 1 << 24  # a product smaller than this (about 0.4 ms on one core) is not split
_FEW_ROWS = 32  # a product with fewer rows than this by a transposed matrix is computed transposed
_BLOCK_ALIGNMENT = 16  # split products at multiples of this many rows or columns (BLAS kernels' block sizes)


class Device(DeviceBase):
    """A compute device of one process."""

    def __init__(self, name: str, device_type: str, xp: Any, resource_mgr: ResourceMgr, memory_limit_bytes: int = 0,
                 intra_op_threads: int = 0, hold_blas: bool = False) -> None:
        super().__init__(pydev.canonical_name(name), device_type, xp, resource_mgr)
        self.memory_limit_bytes = memory_limit_bytes
        self.intra_op_threads = intra_op_threads or os.cpu_count() or 1
        self._pool: ThreadPool | None = None
        self._pool_lock = threading.Lock()
        self.splits_products = hold_blas and xp is np
        if hold_blas:
            _BLAS.hold()
        self._release_blas = weakref.finalize(self, _BLAS.release) if hold_blas else None

    def parallel(self, count: int, task: Callable[[int], None]) -> None:
        """task(0), ..., task(count - 1) across the intra-op threads, the caller taking part.

        Whoever is free claims the next task, so when the pool is busy with other kernels' work the caller
        runs every task itself: a kernel then takes one thread's time, never a wait for a queued helper."""
        helpers = min(count, self.intra_op_threads) - 1
        if helpers < 1:
            for index in range(count):
                task(index)
            return
        work = _SharedTasks(count, task)
        pool = self._intra_op_pool()
        for _ in range(helpers):
            pool.submit(work.help)
        work.run()
        work.wait()

    def parallel_products(self, count: int, task: Callable[[int], None]) -> None:
        if self.splits_products:
            self.parallel(count, task)
        else:
            super().parallel_products(count, task)

    def elementwise_inplace(self, ufunc: Any, target: Any, operand: Any, scale: Any = None) -> None:
        """target = ufunc(target, operand * scale) in place (operand alone without a scale). A large one goes
        by blocks, claimed by the intra-op threads, and a scaled operand is made a block at a time, so no
        temporary as large as the target is made."""
        if (target.size < _PARALLEL_MIN_ELEMENTS or target.shape != operand.shape
                or not (target.flags.c_contiguous and operand.flags.c_contiguous)):
            super().elementwise_inplace(ufunc, target, operand, scale)
            return
        flat_target, flat_operand = target.reshape(-1), operand.reshape(-1)

        def block(i: int) -> None:
            lo, hi = i * _PARALLEL_MIN_ELEMENTS, (i + 1) * _PARALLEL_MIN_ELEMENTS
            part = flat_operand[lo:hi] if scale is None else flat_operand[lo:hi] * scale
            ufunc(flat_target[lo:hi], part, out=flat_target[lo:hi])

        self.parallel(-(-target.size // _PARALLEL_MIN_ELEMENTS), block)

    def matmul(self, a: Any, b: Any, out: Any = None, epilogue: Callable[[Any, slice], None] | None = None) -> Any:
        """The product of two matrices (transposed views included: BLAS reads them in place), a large one
        split across the intra-op threads into blocks of the output's rows (or of its columns, when it is
        wider than tall), each one BLAS call writing its block (of `out` when given) and `epilogue`, when
        given, then applied to that block while it is in cache."""
        if not self.splits_products:
            return super().matmul(a, b, out, epilogue)
        (m, k), n = a.shape, b.shape[1]
        # OpenBLAS multiplies a few rows by a transposed matrix a third slower than it computes the transposed
        # product (b.T a.T), whose few columns are cheap to make contiguous (oneDNN, which takes the larger
        # products, has no such gap)
        transposed = (out is None and m < _FEW_ROWS < n and b.T.flags.c_contiguous and not b.flags.c_contiguous
                      and (m * n * k < onednn.MIN_MULTIPLY_ADDS or not onednn.available))
        if (transposed or self.intra_op_threads < 2 or m * n * k < _PARALLEL_MIN_MULTIPLY_ADDS
                or a.dtype != b.dtype or a.dtype.kind not in "fc"):
            out = np.ascontiguousarray(np.matmul(b.T, a.T).T) if transposed else onednn.matmul(a, b, out)
            if epilogue is not None:
                epilogue(out, slice(None))
            return out
        threads = self.intra_op_threads
        by_rows = m >= n
        extent = m if by_rows else n
        blocks = min(threads, max(1, extent // _BLOCK_ALIGNMENT))
        bounds = [extent * i // blocks // _BLOCK_ALIGNMENT * _BLOCK_ALIGNMENT for i in range(blocks)] + [extent]
        if out is None:
            out = np.empty((m, n), a.dtype)

        def block(i: int) -> None:
            lo, hi = bounds[i], bounds[i + 1]
            if by_rows:
                onednn.matmul(a[lo:hi], b, out=out[lo:hi])
                if epilogue is not None:
                    epilogue(out[lo:hi], slice(None))
            else:
                onednn.matmul(a, b[:, lo:hi], out=out[:, lo:hi])
                if epilogue is not None:
                    epilogue(out[:, lo:hi], slice(lo, hi))

        self.parallel(blocks, block)
        return out

    def _intra_op_pool(self) -> ThreadPool:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPool(self.intra_op_threads - 1, "tensorweave-intra-op")
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None
        if self._release_blas is not None:
            self._release_blas()


class _SharedTasks:
    """Tasks 0..count-1 that any thread may claim (itertools.count hands each index out once, atomically);
    `wait` returns once every claimed task is done, and re-raises the first error. Helpers run them with the
    creating thread's floating-point error handling (a step's kernels make inf and nan silently: NumPy's
    setting is per thread)."""

    def __init__(self, count: int, task: Callable[[int], None]) -> None:
        self._count = count
        self._task = task
        self._numerics = np.geterr()
        self._claims = itertools.count()
        self._lock = threading.Lock()
        self._unfinished = count
        self._finished = threading.Event()
        self._error: BaseException | None = None

    def run(self) -> None:
        while (index := next(self._claims)) < self._count:
            try:
                self._task(index)
            except BaseException as e:  # handed to the caller by wait
                self._error = self._error or e
            with self._lock:
                self._unfinished -= 1
                if not self._unfinished:
                    self._finished.set()

    def help(self) -> None:
        """`run` on a helper thread."""
        with np.errstate(**self._numerics):
            self.run()

    def wait(self) -> None:
        self._finished.wait()
        if self._error is not None:
            raise self._error


class _BlasThreads:
    """Holds the process's BLAS to one thread while any device is alive; restores the original count after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._holders = 0
        self._controller: ThreadpoolController | None = None
        self._limit: Any = None

    def hold(self) -> None:
        with self._lock:
            self._holders += 1
            if self._holders == 1:
                if self._controller is None:  # scans the loaded libraries once (about a millisecond)
                    self._controller = ThreadpoolController()
                self._limit = self._controller.limit(limits=1, user_api="blas")

    def release(self) -> None:
        with self._lock:
            self._holders -= 1
            if self._holders == 0:
                self._limit.restore_original_limits()
                self._limit = None


_BLAS = _BlasThreads()
