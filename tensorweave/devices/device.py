"""`Device`: where kernels run and state lives.

A device has TF's fully qualified name ('/job:localhost/replica:0/task:0/device:CPU:0'), a type used to
pick kernels, an array module `xp` that kernels compute with (NumPy on CPU, CuPy on GPU), and a resource
manager for its stateful objects (variables, queues). The runtime creates devices and their resource
managers; kernels only see them through their context.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import device_spec as pydev


class Device:
    """A compute device of one process."""

    def __init__(self, name: str, device_type: str, xp: Any, resource_mgr: Any,
                 memory_limit_bytes: int = 0) -> None:
        self.name = pydev.canonical_name(name)
        self.device_type = device_type
        self.xp = xp
        self.resource_mgr = resource_mgr
        self.memory_limit_bytes = memory_limit_bytes
        self.spec = pydev.DeviceSpec.from_string(self.name)

    def __repr__(self) -> str:
        return f"<Device {self.name}>"
