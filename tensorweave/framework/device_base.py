"""DeviceBase: what a kernel may use of the device it runs on (TF's framework/device_base.h).

A kernel computes with `xp` (NumPy on CPU, CuPy on GPU), keeps state in `resource_mgr`, and splits large
in-place updates and matrix products across the device's intra-op threads through `elementwise_inplace` and
`matmul`, and independent blocks of its own work through `parallel` (`parallel_products` for blocks that call
BLAS). The concrete devices (devices/) add names, memory limits and thread pools; this base also serves the
host-side evaluation that shape inference and constant folding do, which has no session and no device of its
own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave.framework.device_spec import DeviceSpec
from tensorweave.framework.resource_mgr import ResourceMgr


class DeviceBase:
    """The device seen from a kernel: its name and type, its array module, its resources."""

    # Whether BLAS computes each call on one thread and the device splits products across its own threads
    # (otherwise BLAS's threads split each product, and a kernel's independent products run one at a time)
    splits_products = False

    def __init__(self, name: str, device_type: str, xp: Any, resource_mgr: ResourceMgr | None = None) -> None:
        self.name = name
        self.spec = DeviceSpec.from_string(name)  # what placement matches requests against
        self.device_type = device_type
        self.xp = xp
        self.resource_mgr = resource_mgr if resource_mgr is not None else ResourceMgr()

    def elementwise_inplace(self, ufunc: Any, target: Any, operand: Any, scale: Any = None) -> None:
        """target = ufunc(target, operand * scale) (operand alone without a scale), in place."""
        ufunc(target, operand if scale is None else operand * scale, out=target)

    def matmul(self, a: Any, b: Any, out: Any = None, epilogue: Callable[[Any, slice], None] | None = None) -> Any:
        """The product of two matrices (written into `out` when given); `epilogue(block, columns)` is applied
        in place to the product (one block of it, and which of its columns, where the product is split)."""
        product = self.xp.matmul(a, b, out=out)
        if epilogue is not None:
            epilogue(product, slice(None))
        return product

    def parallel(self, count: int, task: Callable[[int], None]) -> None:
        """task(0), ..., task(count - 1), independent of each other; here one after another."""
        for index in range(count):
            task(index)

    def parallel_products(self, count: int, task: Callable[[int], None]) -> None:
        """`parallel` for tasks that compute BLAS products: split across threads only where each BLAS call
        runs on one thread (otherwise BLAS's own threads split each product, and tasks run one at a time)."""
        DeviceBase.parallel(self, count, task)

    def __repr__(self) -> str:
        return f"<Device {self.name}>"


def host_device() -> DeviceBase:
    """A fresh NumPy device for evaluating kernels outside any session (its resources are thrown away)."""
    return DeviceBase("/job:localhost/replica:0/task:0/device:CPU:0", "CPU", np)
