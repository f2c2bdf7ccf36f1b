"""`Device`: where kernels run and state lives.

A device has TF's fully qualified name ('/job:localhost/replica:0/task:0/device:CPU:0'), a type used to
pick kernels, an array module `xp` that kernels compute with (NumPy on CPU, CuPy on GPU), a resource
manager for its stateful objects (variables, queues), and intra-op threads that large elementwise kernels
split their work across (as TF's Eigen thread pool does). The runtime creates devices and their resource
managers; kernels only see them through their context.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tensorweave.framework import device_spec as pydev
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.resource_mgr import ResourceMgr

_PARALLEL_MIN_ELEMENTS = 1 << 18  # below this, a thread hop costs more than it saves


class Device(DeviceBase):
    """A compute device of one process."""

    def __init__(self, name: str, device_type: str, xp: Any, resource_mgr: ResourceMgr, memory_limit_bytes: int = 0,
                 intra_op_threads: int = 0) -> None:
        super().__init__(pydev.canonical_name(name), device_type, xp, resource_mgr)
        self.memory_limit_bytes = memory_limit_bytes
        self.intra_op_threads = intra_op_threads or os.cpu_count() or 1
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def elementwise_inplace(self, ufunc: Any, target: Any, operand: Any) -> None:
        """target = ufunc(target, operand) in place, split across intra-op threads when large."""
        threads = self.intra_op_threads
        if (threads < 2 or target.size < _PARALLEL_MIN_ELEMENTS or target.shape != operand.shape
                or not (target.flags.c_contiguous and operand.flags.c_contiguous)):
            ufunc(target, operand, out=target)
            return
        flat_target, flat_operand = target.reshape(-1), operand.reshape(-1)
        bounds = [flat_target.size * i // threads for i in range(threads + 1)]
        pool = self._intra_op_pool()
        pending = [pool.submit(ufunc, flat_target[lo:hi], flat_operand[lo:hi], out=flat_target[lo:hi])
                   for lo, hi in zip(bounds[1:-1], bounds[2:])]
        ufunc(flat_target[:bounds[1]], flat_operand[:bounds[1]], out=flat_target[:bounds[1]])
        for future in pending:
            future.result()

    def _intra_op_pool(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.intra_op_threads - 1, thread_name_prefix="tensorweave-intra-op")
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None
