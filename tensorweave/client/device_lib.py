"""`device_lib.list_local_devices()`: the devices a session of this process would get, as TF's
DeviceAttributes protos (TF keeps it in tensorflow.python.client.device_lib, outside compat.v1; this is the
same function at tensorweave.client.device_lib)."""

from __future__ import annotations

import random
from typing import Any

from tensorweave.formats import protos
from tensorweave.framework import device_spec as pydev
from tensorweave.runtime import direct_session  # noqa: F401 - registers the in-process backend
from tensorweave.runtime.session_factory import new_session


def list_local_devices(session_config: Any = None) -> list[Any]:
    """One DeviceAttributes per local device under `session_config` (its `device_count`), named as TF
    lists them ('/device:CPU:0', without the job), each with a fresh random incarnation."""
    backend = new_session("", session_config)
    try:
        devices = backend.devices
    finally:
        backend.close()
    result = []
    for device in devices:
        spec = pydev.DeviceSpec.from_string(device.name)
        result.append(protos.DeviceAttributes(
            name=f"/device:{spec.device_type}:{spec.device_index}", device_type=device.device_type,
            memory_limit=getattr(device, "memory_limit_bytes", 0), locality=protos.DeviceLocality(),
            incarnation=random.randrange(1, 2**64), xla_global_id=-1))
    return result
