"""The CPU device: kernels compute with NumPy, whose BLAS and ufuncs release the GIL."""

from __future__ import annotations

import numpy as np

from tensorweave.devices.device import Device
from tensorweave.framework.resource_mgr import ResourceMgr

CPU_MEMORY_LIMIT = 256 * 1024 * 1024  # what TF reports for a CPU device


def cpu_device(task_prefix: str, index: int, resource_mgr: ResourceMgr, intra_op_threads: int = 0,
               hold_blas: bool = False) -> Device:
    """CPU device `index` of the task named by `task_prefix` ('/job:localhost/replica:0/task:0'); a session's
    device holds BLAS to one thread and splits products itself (see devices/device.py)."""
    return Device(f"{task_prefix}/device:CPU:{index}", "CPU", np, resource_mgr, CPU_MEMORY_LIMIT, intra_op_threads,
                  hold_blas)
