"""V1 checkpoints (`SaverDef.V1`): TF's TensorSliceWriter files, each one LevelDB table (`table.py`).

Key `""` holds a SavedTensorSlices whose `meta` lists every tensor (name, full shape, dtype, the slices
stored); each slice is stored under the OrderedCode key of (name, slice) that V2 bundles use too, as a
SavedTensorSlices whose `data` is a SavedSlice with the values in the TensorProto's typed fields (no dtype,
no shape: the meta entry gives them). A checkpoint may span several files (a sharded V1 save); readers
take a file pattern. Writes are atomic (temporary file, renamed), as TF's.
"""

from __future__ import annotations

import glob
import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats import datatypes as dt
from tensorweave.formats.bundle import encode_tensor_name_slice, slice_extents, write_file_atomically
from tensorweave.formats.protos import SavedTensorSlices, TensorProto, TensorSliceProto
from tensorweave.formats.table import build_table, read_table
from tensorweave.formats.tensor_proto import append_values, make_ndarray

_META_KEY = b""
_CHECKPOINT_VERSION = 1  # TF_CHECKPOINT_VERSION, the producer TF stamps on the meta entry
# The dtypes TF's CheckpointReader copies out of a V1 file; anything else is "Data type not supported".
_READER_TYPES = (dt.DT_FLOAT, dt.DT_DOUBLE, dt.DT_INT32, dt.DT_UINT8, dt.DT_INT16, dt.DT_INT8, dt.DT_INT64,
                 dt.DT_STRING, dt.DT_BOOL)


def full_slice(rank: int) -> Any:
    """The TensorSliceProto of a whole tensor: one empty extent per dimension."""
    return TensorSliceProto(extent=[TensorSliceProto.Extent() for _ in range(rank)])


def write_tensor_slices(path: str, entries: Sequence[tuple[str, Sequence[int], int, Any, np.ndarray]]) -> None:
    """Write one V1 file of (name, full shape, dtype enum, TensorSliceProto, slice value) entries.

    The meta lists tensors in the order given (TF's SaveSlices sorts by name first) and the data entries
    follow in key order, as TF's writer keeps them in a sorted map.
    """
    meta = SavedTensorSlices()
    meta.meta.versions.producer = _CHECKPOINT_VERSION
    by_name: dict[str, Any] = {}
    data: dict[bytes, bytes] = {}
    for name, shape, enum, slice_proto, value in entries:
        tensor = by_name.get(name)
        if tensor is None:
            tensor = by_name[name] = meta.meta.tensor.add(name=name, type=enum)
            tensor.shape.dim.extend(tensor.shape.Dim(size=d) for d in shape)
        tensor.slice.add().CopyFrom(slice_proto)
        record = SavedTensorSlices()
        record.data.name = name
        record.data.slice.CopyFrom(slice_proto)
        append_values(record.data.data, enum, np.asarray(value))
        data[encode_tensor_name_slice(name, *slice_extents(slice_proto, shape))] = record.SerializeToString()
    rows = [(_META_KEY, meta.SerializeToString())] + sorted(data.items())
    write_file_atomically(path, build_table(rows))


class TensorSliceReader:
    """The tensors of the V1 files matching a pattern (TF's TensorSliceReader)."""

    def __init__(self, filepattern: str) -> None:
        self.filepattern = filepattern
        files = glob.glob(filepattern)  # in directory order, as TF lists them (unsorted)
        if not files:
            raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
                                       f"matching files for {filepattern}")
        # name -> (full shape, dtype enum, [(starts, lengths, serialized record)]), in the files' meta order
        self._tensors: dict[str, tuple[list[int], int, list[tuple[list[int], list[int], bytes]]]] = {}
        for path in files:
            self._load(path)

    def _load(self, path: str) -> None:
        try:
            with open(path, "rb") as f:
                rows = dict(read_table(f.read(), path))
        except (errors.DataLossError, IsADirectoryError) as e:
            reason = e.message if isinstance(e, errors.DataLossError) else \
                f"FAILED_PRECONDITION: {path}; Is a directory"
            kind = "DATA_LOSS: " if isinstance(e, errors.DataLossError) else ""
            raise errors.DataLossError(None, None, f"Unable to open table file {path}: {kind}{reason}: perhaps your "
                                       "file is in a different file format and you need to use a different restore "
                                       "operator?") from None
        meta = SavedTensorSlices.FromString(rows.get(_META_KEY, b"")).meta
        for tensor in meta.tensor:
            shape = [d.size for d in tensor.shape.dim]
            known = self._tensors.setdefault(tensor.name, (shape, tensor.type, []))
            if known[0] != shape or known[1] != tensor.type:
                raise errors.InvalidArgumentError(None, None, f"Mismatching shapes or types for {tensor.name} in "
                                                  f"{path}")
            for proto in tensor.slice:
                starts, lengths = slice_extents(proto, shape)
                key = encode_tensor_name_slice(tensor.name, starts, lengths)
                if key not in rows:
                    raise errors.DataLossError(None, None, f"{path}: no data for a slice of {tensor.name}")
                known[2].append((starts, lengths, rows[key]))

    def names(self) -> list[str]:
        """Every tensor name, in the order the files list them."""
        return list(self._tensors)

    def has_tensor(self, name: str) -> bool:
        return name in self._tensors

    def num_slices(self, name: str) -> int:
        return len(self._tensors[name][2])

    def shape_and_dtype(self, name: str) -> tuple[list[int], int]:
        shape, enum, _ = self._tensors[name]
        return list(shape), enum

    def get_tensor(self, name: str) -> np.ndarray:
        """CheckpointReader.get_tensor of a V1 file: one-slice tensors of the types TF copies out only."""
        if name not in self._tensors:
            raise errors.NotFoundError(None, None, f"{name} not found in checkpoint file")
        shape, enum, slices = self._tensors[name]
        if len(slices) > 1:
            raise errors.UnimplementedError(None, None, "Sliced checkpoints are not supported")
        if enum not in _READER_TYPES:
            raise errors.UnimplementedError(None, None, "Data type not supported")
        return self.read(name)

    def read(self, name: str) -> np.ndarray:
        """The full tensor, assembled from its slices (a part no slice covers is an error)."""
        shape, enum, slices = self._tensors[name]
        out = np.full(shape, b"", dtype=object) if enum == dt.DT_STRING else np.zeros(shape, dt.numpy_dtype(enum))
        covered = 0
        for starts, lengths, record in slices:
            index = tuple(slice(s, None if n < 0 else s + n) for s, n in zip(starts, lengths))
            target = out[index]
            stored = SavedTensorSlices.FromString(record).data.data
            proto = TensorProto(dtype=enum)
            proto.MergeFrom(stored)
            proto.tensor_shape.dim.extend(proto.tensor_shape.Dim(size=d) for d in target.shape)
            out[index] = make_ndarray(proto)
            covered += target.size
        if covered < math.prod(shape):
            raise errors.NotFoundError(None, None, f"The slices of {name} saved in {self.filepattern} do not cover "
                                       "its shape")
        return out


def is_v1_checkpoint(prefix: str | os.PathLike) -> bool:
    """Whether a prefix names V1 files rather than a V2 bundle (TF's test: no `<prefix>.index`)."""
    return not os.path.exists(f"{os.fspath(prefix)}.index")
