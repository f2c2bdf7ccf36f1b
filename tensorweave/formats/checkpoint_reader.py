"""Reading checkpoints without a graph: TF's CheckpointReader and `tf.train.load_checkpoint` family.

Names here are variable names as saved (`dense/kernel`); the slice keys of partitioned variables are
hidden, and their full tensors are assembled on read. DataType values are returned as enum ints unless
the caller passes `as_dtype` (the compat layer passes `tf.as_dtype`, which this layer cannot import).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats.bundle import BundleReader, encode_tensor_name_slice, slice_extents
from tensorweave.formats.checkpoint_state import latest_checkpoint
from tensorweave.formats.protos import DataType, TrackableObjectGraph
from tensorweave.formats.tensor_slice_file import TensorSliceReader, is_v1_checkpoint
from tensorweave.formats.unordered_map import unordered_map_order

# The key under which an object-based checkpoint (tf.train.Checkpoint) stores its TrackableObjectGraph.
OBJECT_GRAPH_PROTO_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


class CheckpointReader:
    """A checkpoint opened for reading (`tf.train.NewCheckpointReader`): a V2 bundle, or, where the prefix
    has no `.index`, the V1 files it matches (as TF's reader decides)."""

    def __init__(self, prefix: str | os.PathLike, as_dtype: Callable[[int], Any] | None = None) -> None:
        self._as_dtype = as_dtype or (lambda enum: enum)
        self._v1 = None
        if is_v1_checkpoint(prefix) and not os.path.isdir(prefix):
            self._v1 = TensorSliceReader(os.fspath(prefix))
            # TF keeps V1 tensors in one unordered_map and copies it into another for the name maps.
            self._v1_order = unordered_map_order(self._v1.names())
            self._names = unordered_map_order(self._v1_order)
            return
        self._reader = BundleReader(prefix)
        slice_keys = set()
        for key in self._reader.keys():
            entry = self._reader.entry(key)
            if entry.slices:
                name = key.decode("utf-8", "replace")
                shape = [d.size for d in entry.shape.dim]
                for proto in entry.slices:
                    try:
                        slice_keys.add(encode_tensor_name_slice(name, *slice_extents(proto, shape)))
                    except ValueError as e:
                        raise errors.DataLossError(None, None, f"{prefix}: bad slice of {name}: {e}") from None
        self._names = unordered_map_order([k.decode("utf-8", "replace") for k in self._reader.keys()
                                            if k not in slice_keys])

    def get_tensor(self, tensor_str: str | bytes) -> Any:
        """The saved value of a variable (a NumPy scalar for a 0-d one, as TF); NotFoundError when absent."""
        name = _tensor_name(tensor_str)
        value = self._v1.get_tensor(name) if self._v1 else self._reader.lookup(name)
        return value[()] if value.ndim == 0 else value

    def has_tensor(self, tensor_str: str | bytes) -> bool:
        """Whether the checkpoint holds this name."""
        name = _tensor_name(tensor_str)
        return self._v1.has_tensor(name) if self._v1 else self._reader.contains(name)

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """Every saved name with its full shape, in the order TF's C++ map hands them to Python."""
        return {name: self._shape_and_dtype(name)[0] for name in self._names}

    def get_variable_to_dtype_map(self) -> dict[str, Any]:
        """Every saved name with its dtype (an enum int, or what `as_dtype` makes of it)."""
        return {name: self._as_dtype(self._shape_and_dtype(name)[1]) for name in self._names}

    def _shape_and_dtype(self, name: str) -> tuple[list[int], int]:
        return (self._v1 or self._reader).shape_and_dtype(name)

    def debug_string(self) -> bytes:
        """TF's listing: one `key (DT_...) [d0,d1]` line per stored entry, slice keys raw, in key order.

        A partitioned variable's full entry (which only lists its slices) is left out, as TF leaves it; a
        V1 checkpoint lists each tensor once, with its slice count when it has several.
        """
        if self._v1:
            return "".join(self._v1_debug_line(name) for name in self._v1_order).encode("utf-8")
        lines = []
        for key in self._reader.keys():
            entry = self._reader.entry(key)
            if entry.slices:
                continue
            dims = ",".join(str(d.size) for d in entry.shape.dim)
            lines.append(key + f" ({DataType.Name(entry.dtype)}) [{dims}]\n".encode())
        return b"".join(lines)

    def _v1_debug_line(self, name: str) -> str:
        shape, enum = self._v1.shape_and_dtype(name)
        slices = self._v1.num_slices(name)
        return f"{name} ({DataType.Name(enum)}) [{','.join(map(str, shape))}]" + \
            (f", {slices} slices" if slices > 1 else "") + "\n"

    def close(self) -> None:
        """Release the open data files."""
        if self._v1 is None:
            self._reader.close()


def _tensor_name(name: str | bytes) -> str:
    """A tensor name as str; TF's readers take bytes too and reject anything else with this TypeError."""
    if isinstance(name, bytes):
        return name.decode("utf-8")
    if not isinstance(name, str):
        raise TypeError(f"Expected binary or unicode string, got {name!r}")
    return name


# TF's py_checkpoint_reader.error_translator: the class a reader's failure is raised as, picked by its message.
_TRANSLATED_ERRORS = (
    (("not found in checkpoint", "Failed to find any matching files for"), errors.NotFoundError),
    (("Sliced checkpoints are not supported", "Data type not supported"), errors.UnimplementedError),
    (("Failed to get matching files on",), errors.InvalidArgumentError),
    (("Unable to open table file",), errors.DataLossError),
    (("Failed to find the saved tensor slices", "not convertible to numpy dtype"), errors.InternalError),
)


def _translated(error: errors.OpError) -> errors.OpError:
    """The error TF raises for a reader that failed to open: a plain OpError (UNKNOWN) where no message
    pattern names a class."""
    for needles, error_class in _TRANSLATED_ERRORS:
        if any(needle in error.message for needle in needles):
            return error_class(None, None, error.message)
    return errors.OpError(None, None, error.message, errors.UNKNOWN)


def NewCheckpointReader(filepattern: str, as_dtype: Callable[[int], Any] | None = None) -> CheckpointReader:  # noqa: N802 - TF's name
    """Open a checkpoint prefix for reading."""
    try:
        return CheckpointReader(filepattern, as_dtype)
    except errors.OpError as e:
        raise _translated(e) from None


def _checkpoint_filename(ckpt_dir_or_file: str | os.PathLike) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file: str | os.PathLike,
                    as_dtype: Callable[[int], Any] | None = None) -> CheckpointReader:
    """A reader for a checkpoint prefix, or for the latest checkpoint of a directory."""
    return NewCheckpointReader(_checkpoint_filename(ckpt_dir_or_file), as_dtype)


def load_variable(ckpt_dir_or_file: str | os.PathLike, name: str) -> np.ndarray:
    """One variable's saved value (a trailing `:0` on the name is ignored, as in TF)."""
    if name.endswith(":0"):
        name = name[:-2]
    reader = load_checkpoint(ckpt_dir_or_file)
    try:
        return reader.get_tensor(name)
    finally:
        reader.close()


def list_variables(ckpt_dir_or_file: str | os.PathLike) -> list[tuple[str, list[int]]]:
    """(name, shape) of every variable in a checkpoint, sorted by name."""
    reader = load_checkpoint(ckpt_dir_or_file)
    try:
        return sorted(reader.get_variable_to_shape_map().items())
    finally:
        reader.close()


def object_graph_key_mapping(prefix: str) -> dict[str, str] | None:
    """{variable name when saved: its key} of an object-based checkpoint (None for a name-based one), which
    lets a name-based Saver read it, as TF's does."""
    reader = CheckpointReader(prefix)
    if not reader.has_tensor(OBJECT_GRAPH_PROTO_KEY):
        return None
    graph = TrackableObjectGraph.FromString(reader.get_tensor(OBJECT_GRAPH_PROTO_KEY))
    return {attribute.full_name: attribute.checkpoint_key for node in graph.nodes for attribute in node.attributes}
