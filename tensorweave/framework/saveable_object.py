"""What the Saver saves besides variables (TF's saveable_object): a SaveableObject is written as one or more
tensors, each a SaveSpec under its own checkpoint key, and restored from all of them at once — a lookup
table's keys and values, exported and imported together."""

from __future__ import annotations

from typing import Any


class SaveSpec:
    """One tensor of a SaveableObject: its value, its slice spec ("" for the whole) and its checkpoint key."""

    def __init__(self, tensor: Any, slice_spec: str, name: str, dtype: Any = None, device: str | None = None) -> None:
        self.tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        self.dtype = dtype if dtype is not None else tensor.dtype
        self.device = device if device is not None else tensor.device


class SaveableObject:
    """Something saved as the tensors of `specs` and restored by `restore` from them, in the same order."""

    def __init__(self, op: Any, specs: list[SaveSpec], name: str) -> None:
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self) -> str:
        return self.specs[0].device

    def restore(self, restored_tensors: list[Any], restored_shapes: list[Any] | None) -> Any:
        """The op that puts the restored tensors back."""
        raise NotImplementedError
