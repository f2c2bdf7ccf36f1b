"""Device names: `DeviceSpec` (TF1's mutable DeviceSpecV1) and the device-merging helpers of `tf.device`.

A device name is `/job:<name>/replica:<int>/task:<int>/device:<TYPE>:<int or *>`; every field is optional
and an unset field means "any". Invariant: `to_string()` is the canonical form, so two specs are equal
exactly when their canonical strings are, and the runtime only ever compares canonical strings.
Parsing and merging are cached by string because `Graph.device` stacks re-merge the same few specs for
every op built.
"""

from __future__ import annotations

from typing import Any

from tensorweave.platform.tf_export import tf_export

_STRING_TO_COMPONENTS_CACHE: dict[Any, tuple[Any, ...]] = {}
_STRING_MERGE_CACHE: dict[tuple[str, str], str] = {}


def _as_str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _as_int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _as_device_type_or_none(device_type: Any) -> str | None:
    # Lower-case "cpu"/"gpu" are accepted for backwards compatibility and stored upper-case.
    if device_type in ("cpu", "gpu"):
        return device_type.upper()
    return _as_str_or_none(device_type)


def _string_to_components(spec: Any) -> tuple[Any, ...]:
    """Split a device string into raw (job, replica, task, device_type, device_index) fields."""
    cached = _STRING_TO_COMPONENTS_CACHE.get(spec)
    if cached is not None:
        return cached
    raw_spec = spec
    job = replica = task = device_type = device_index = None
    spec = spec or ""
    for part in spec.split("/"):
        fields = part.split(":")
        count = len(fields)
        if count == 2 and fields[0] == "job":
            job = fields[1]
        elif count == 2 and fields[0] == "replica":
            replica = fields[1]
        elif count == 2 and fields[0] == "task":
            task = fields[1]
        elif count in (1, 2) and fields[0].upper() in ("CPU", "GPU"):
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = fields[0].upper()
            if count == 2 and fields[1] != "*":
                device_index = int(fields[1])
        elif count == 3 and fields[0] == "device":
            if device_type is not None:
                raise ValueError(f"Multiple device types are not allowed while parsing the device spec: {spec}.")
            device_type = fields[1]
            if fields[2] != "*":
                device_index = int(fields[2])
        elif fields[0] != "":
            raise ValueError(f"Unknown attribute '{fields[0]}' is encountered while parsing the device spec: "
                             f"'{spec}'.")
    components = (job, replica, task, device_type, device_index)
    _STRING_TO_COMPONENTS_CACHE[raw_spec] = components
    return components


def _components_to_string(job: str | None, replica: int | None, task: int | None,
                          device_type: str | None, device_index: int | None) -> str:
    output = []
    if job is not None:
        output.append("/job:" + job)
    if replica is not None:
        output.append(f"/replica:{replica}")
    if task is not None:
        output.append(f"/task:{task}")
    if device_type is not None:
        output.append(f"/device:{device_type}:{'*' if device_index is None else device_index}")
    return "".join(output)


@tf_export("DeviceSpec")
class DeviceSpec:
    """A possibly partial device specification; TF1's version, whose fields can be set in place."""

    __slots__ = ("_job", "_replica", "_task", "_device_type", "_device_index", "_as_string")

    def __init__(self, job: str | None = None, replica: int | None = None, task: int | None = None,
                 device_type: str | None = None, device_index: int | None = None) -> None:
        self._job = _as_str_or_none(job)
        self._replica = _as_int_or_none(replica)
        self._task = _as_int_or_none(task)
        self._device_type = _as_device_type_or_none(device_type)
        self._device_index = _as_int_or_none(device_index)
        self._as_string: str | None = None

    @property
    def job(self) -> str | None:
        """The job name, or None for any job."""
        return self._job

    @job.setter
    def job(self, job: Any) -> None:
        self._job = _as_str_or_none(job)
        self._as_string = None

    @property
    def replica(self) -> int | None:
        """The replica index, or None for any replica."""
        return self._replica

    @replica.setter
    def replica(self, replica: Any) -> None:
        self._replica = _as_int_or_none(replica)
        self._as_string = None

    @property
    def task(self) -> int | None:
        """The task index, or None for any task."""
        return self._task

    @task.setter
    def task(self, task: Any) -> None:
        self._task = _as_int_or_none(task)
        self._as_string = None

    @property
    def device_type(self) -> str | None:
        """The device type ("CPU", "GPU", ...), or None for any type."""
        return self._device_type

    @device_type.setter
    def device_type(self, device_type: Any) -> None:
        self._device_type = _as_device_type_or_none(device_type)
        self._as_string = None

    @property
    def device_index(self) -> int | None:
        """The device index, or None for any device of the type (written "*")."""
        return self._device_index

    @device_index.setter
    def device_index(self, device_index: Any) -> None:
        self._device_index = _as_int_or_none(device_index)
        self._as_string = None

    def to_string(self) -> str:
        """The canonical `/job:j/replica:r/task:t/device:TYPE:i` form, with unset fields left out."""
        if self._as_string is None:
            self._as_string = _components_to_string(self._job, self._replica, self._task,
                                                    self._device_type, self._device_index)
        return self._as_string

    @classmethod
    def from_string(cls, spec: str | None) -> DeviceSpec:
        """Parse a full or partial device string (`/cpu:0`, `GPU:1`, `/job:ps/task:2`, ...)."""
        return cls(*_string_to_components(spec))

    def parse_from_string(self, spec: str | None) -> DeviceSpec:
        """Replace every field of this spec by those parsed from `spec` (TF1 mutates in place)."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = _string_to_components(spec)
        return self

    def _get_combined_properties(self, dev: DeviceSpec) -> tuple[Any, ...]:
        return (
            dev.job if dev.job is not None else self._job,
            dev.replica if dev.replica is not None else self._replica,
            dev.task if dev.task is not None else self._task,
            dev.device_type if dev.device_type is not None else self._device_type,
            dev.device_index if dev.device_index is not None else self._device_index,
        )

    def merge_from(self, dev: DeviceSpec) -> None:
        """Overwrite this spec's fields with the fields `dev` sets (in place, as TF1)."""
        (self.job, self.replica, self.task, self.device_type,
         self.device_index) = self._get_combined_properties(dev)

    def make_merged_spec(self, dev: DeviceSpec) -> DeviceSpec:
        """A new spec: this one with the fields `dev` sets taking precedence."""
        return self.__class__(*self._get_combined_properties(dev))

    def replace(self, **kwargs: Any) -> DeviceSpec:
        """A new spec with the given constructor fields overridden."""
        fields = dict(job=self._job, replica=self._replica, task=self._task,
                      device_type=self._device_type, device_index=self._device_index)
        fields.update(kwargs)
        return self.__class__(**fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, self.__class__) and self.to_string() == other.to_string()

    def __hash__(self) -> int:
        return hash(self.to_string())

    def __repr__(self) -> str:
        return (f"<DeviceSpec(job={self._job}, replica={self._replica}, task={self._task}, "
                f"device_type={self._device_type}, device_index={self._device_index})>")


def check_valid(spec: str | None) -> None:
    """Raise ValueError if `spec` is not a valid device string."""
    DeviceSpec.from_string(spec)


def is_device_spec(obj: Any) -> bool:
    """Whether `obj` is a DeviceSpec (rather than a string or a device function)."""
    return isinstance(obj, DeviceSpec)


def canonical_name(device: DeviceSpec | str | None) -> str:
    """The canonical string of a DeviceSpec or device string; None and "" give ""."""
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


class MergeDevice:
    """A device function for `tf.device(spec)`: fills the fields an op's device leaves unset from `spec`.

    `Graph` applies its device functions innermost first, so an inner scope's fields are already set on
    the op when an outer scope's function runs: inner fields win, unset ones come from the outer scope.
    """

    def __init__(self, spec: DeviceSpec | str | None) -> None:
        # A DeviceSpec is kept, not copied: TF reads it as each op is placed, so fields set on it inside
        # the scope apply to the ops built after. Whether the merge is a no-op is decided once, as TF does.
        self._spec = spec if isinstance(spec, DeviceSpec) else DeviceSpec.from_string(canonical_name(spec))
        self._is_null_merge = not self._spec.to_string()

    def __call__(self, node_def: Any) -> DeviceSpec:
        """Merge with `node_def.device` (an Operation or NodeDef); the node's own fields take precedence."""
        return self._spec.make_merged_spec(DeviceSpec.from_string(node_def.device or ""))

    def shortcut_string_merge(self, node_def: Any) -> str:
        """The merged device as a canonical string, cached by (spec, current device) for the hot path."""
        device = node_def.device or ""
        key = (self._spec.to_string(), device)
        result = _STRING_MERGE_CACHE.get(key)
        if result is None:
            result = self(node_def).to_string()
            _STRING_MERGE_CACHE[key] = result
        return result

    @property
    def is_null_merge(self) -> bool:
        """True when the spec was empty when the scope was entered, so merging is skipped."""
        return self._is_null_merge

    def __repr__(self) -> str:
        return f"{super().__repr__()} (spec: {self._spec.to_string()})"


def merge_device(spec: DeviceSpec | str | MergeDevice | None) -> MergeDevice:
    """The device function `tf.device(spec)` pushes on the graph's device stack."""
    if isinstance(spec, MergeDevice):
        return spec
    return MergeDevice(spec)
