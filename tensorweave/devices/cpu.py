"""The CPU device: kernels compute with NumPy, whose BLAS and ufuncs release the GIL."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import numpy as np

from tensorweave.devices.device import Device
from tensorweave.framework.resource_mgr import ResourceMgr

CPU_MEMORY_LIMIT = 256 * 1024 * 1024  # what TF reports for a CPU device
# glibc's mallopt parameters, and the values glibc itself adapts to once a large block has been freed
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's largest on 64-bit
_TRIM_THRESHOLD = 2 * _MMAP_THRESHOLD


@functools.cache
def reuse_freed_memory() -> bool:
    """Keep freed kernel buffers in the process's heap for the next step, as TF's allocator keeps its pools:
    glibc otherwise maps every block over 128 KB afresh and returns it on free, so each step pays a page fault
    per 4 KB of every large tensor it makes (until glibc's own adaptive threshold grows, which it does only
    after freeing a large mapped block). Sets the thresholds glibc would adapt to; False where there is no
    glibc."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD))


def cpu_device(task_prefix: str, index: int, resource_mgr: ResourceMgr, intra_op_threads: int = 0,
               hold_blas: bool = False) -> Device:
    """CPU device `index` of the task named by `task_prefix` ('/job:localhost/replica:0/task:0'); a session's
    device holds BLAS to one thread and splits products itself (see devices/device.py)."""
    reuse_freed_memory()
    return Device(f"{task_prefix}/device:CPU:{index}", "CPU", np, resource_mgr, CPU_MEMORY_LIMIT, intra_op_threads,
                  hold_blas)
