"""`tf.config` in TF1 graph mode: the process-wide settings that TF keeps on its eager context, which a
`Session` built without a `config` takes as its ConfigProto (as TF's does), and the device listings.

Only settings a caller has made go into that config: untouched, sessions get `config=None` and their
defaults. Invariant: the device listings come from the devices a fresh local session has.
"""

from __future__ import annotations

import collections
import threading
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from tensorweave.formats import protos
from tensorweave.platform.tf_export import tf_export
from tensorweave.runtime.session_factory import new_session

PhysicalDevice = tf_export("config.PhysicalDevice")(
    collections.namedtuple("PhysicalDevice", ["name", "device_type"]))
LogicalDevice = tf_export("config.LogicalDevice")(collections.namedtuple("LogicalDevice", ["name", "device_type"]))

_lock = threading.Lock()
_settings: dict[str, Any] = {}  # ConfigProto field -> value, for the fields a caller has set
_jit = ""
_optimizer_options: dict[str, bool] = {}
_visible: dict[str, list] = {}  # device type -> the visible PhysicalDevices, once set
_memory_growth: dict[Any, bool] = {}
_initialized = False  # TF's context initializes its devices on the first logical-device query


def session_config() -> Any:
    """The ConfigProto a Session built without `config` uses, or None when nothing was set."""
    with _lock:
        if not (_settings or _jit or _optimizer_options):
            return None
        config = protos.ConfigProto(**_settings)
        if _jit:
            config.graph_options.optimizer_options.global_jit_level = protos.OptimizerOptions.ON_1
        rewrite_options = config.graph_options.rewrite_options
        for name, value in _optimizer_options.items():
            if rewrite_options.DESCRIPTOR.fields_by_name[name].type == FieldDescriptor.TYPE_BOOL:
                setattr(rewrite_options, name, value)
            else:
                setattr(rewrite_options, name, protos.RewriterConfig.ON if value else protos.RewriterConfig.OFF)
        return config


def _local_device_names() -> list[tuple[str, str]]:
    """(type, index) of each device a local session has, in its order."""
    backend = new_session("", protos.ConfigProto())
    try:
        return [(d.device_type, d.name.rsplit(":", 1)[-1]) for d in backend.devices]
    finally:
        backend.close()


@tf_export("config.list_physical_devices", "config.experimental.list_physical_devices")
def list_physical_devices(device_type: str | None = None) -> list:
    """The local devices as PhysicalDevices (`/physical_device:CPU:0`), of `device_type` when given (exact
    case, as TF matches it)."""
    return [PhysicalDevice(f"/physical_device:{kind}:{index}", kind) for kind, index in _local_device_names()
            if device_type is None or kind == device_type]


@tf_export("config.list_logical_devices", "config.experimental.list_logical_devices")
def list_logical_devices(device_type: str | None = None) -> list:
    """The visible local devices as LogicalDevices (`/device:CPU:0`); after this, visibility is fixed."""
    global _initialized
    _initialized = True
    visible = get_visible_devices()
    return [LogicalDevice(device.name.replace("/physical_device:", "/device:"), device.device_type)
            for device in visible if device_type is None or device.device_type == device_type]


@tf_export("config.get_visible_devices", "config.experimental.get_visible_devices")
def get_visible_devices(device_type: str | None = None) -> list:
    """The physical devices sessions may use: all of them unless `set_visible_devices` narrowed a type."""
    return [device for device in list_physical_devices(device_type)
            if device.device_type not in _visible or device in _visible[device.device_type]]


@tf_export("config.set_visible_devices", "config.experimental.set_visible_devices")
def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Narrow the devices of `device_type` (every type when None) that sessions may use; fixed once a
    logical-device query has run, as TF's context is."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    types = {device_type} if device_type else {d.device_type for d in list_physical_devices()}
    chosen = [d for d in devices if d.device_type in types]
    if _initialized and [d for d in get_visible_devices() if d.device_type in types] != chosen:
        raise RuntimeError("Visible devices cannot be modified after being initialized")
    for kind in types:
        _visible[kind] = [d for d in chosen if d.device_type == kind]


@tf_export("config.experimental.set_memory_growth")
def set_memory_growth(device: Any, enable: bool) -> None:
    """Accepted for GPUs (tensorweave's allocator grows as needed anyway); TF refuses other devices."""
    if device.device_type != "GPU":
        raise ValueError("Cannot set memory growth on non-GPU and non-Pluggable devices")
    _memory_growth[device] = enable


@tf_export("config.experimental.get_memory_growth")
def get_memory_growth(device: Any) -> bool:
    """What `set_memory_growth` recorded for `device` (KeyError for a non-GPU one, as in TF)."""
    if device.device_type != "GPU":
        raise KeyError(device)
    return _memory_growth.get(device, False)


def _set(field: str, value: Any) -> None:
    with _lock:
        _settings[field] = value


@tf_export("config.threading.get_inter_op_parallelism_threads")
def get_inter_op_parallelism_threads() -> int:
    """Threads across independent ops of a step (0: the system picks); the default session config's."""
    return _settings.get("inter_op_parallelism_threads", 0)


@tf_export("config.threading.set_inter_op_parallelism_threads")
def set_inter_op_parallelism_threads(num_threads: int) -> None:
    _set("inter_op_parallelism_threads", num_threads)


@tf_export("config.threading.get_intra_op_parallelism_threads")
def get_intra_op_parallelism_threads() -> int:
    """Threads inside one op (0: the system picks); the default session config's."""
    return _settings.get("intra_op_parallelism_threads", 0)


@tf_export("config.threading.set_intra_op_parallelism_threads")
def set_intra_op_parallelism_threads(num_threads: int) -> None:
    _set("intra_op_parallelism_threads", num_threads)


@tf_export("config.get_soft_device_placement")
def get_soft_device_placement() -> bool:
    """Whether sessions built without a config place ops without a kernel for their device elsewhere."""
    return _settings.get("allow_soft_placement", False)


@tf_export("config.set_soft_device_placement")
def set_soft_device_placement(enabled: bool) -> None:
    _set("allow_soft_placement", bool(enabled))


@tf_export("debugging.get_log_device_placement")
def get_log_device_placement() -> bool:
    """Whether sessions built without a config print each node's device when they place it."""
    return _settings.get("log_device_placement", False)


@tf_export("debugging.set_log_device_placement")
def set_log_device_placement(enabled: bool) -> None:
    _set("log_device_placement", bool(enabled))


@tf_export("config.optimizer.get_jit")
def get_jit() -> str:
    """'autoclustering' once `set_jit` turned XLA clustering on, else '' (tensorweave compiles nothing; the
    level only travels in the session config)."""
    return _jit


@tf_export("config.optimizer.set_jit")
def set_jit(enabled: bool | str) -> None:
    global _jit
    with _lock:
        _jit = "autoclustering" if enabled in (True, "autoclustering") else ""


@tf_export("config.optimizer.get_experimental_options")
def get_experimental_options() -> dict:
    """The grappler switches set so far, with the two TF always reports."""
    return {**_optimizer_options, "disable_model_pruning": _optimizer_options.get("disable_model_pruning", False),
            "disable_meta_optimizer": _optimizer_options.get("disable_meta_optimizer", False)}


@tf_export("config.optimizer.set_experimental_options")
def set_experimental_options(options: dict) -> None:
    with _lock:
        _optimizer_options.update(options)
