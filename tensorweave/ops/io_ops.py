"""Checkpoint ops (SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename, ShardedFilespec, and the V1
format's SaveSlices) and the whole-file ops (ReadFile, WriteFile, MatchingFiles).

The kernels are thin: the V2 bundle format (index table, data shards, CRCs, atomic renames) lives in
`formats/bundle.py`, the V1 one in `formats/tensor_slice_file.py`; RestoreV2 reads either, as TF's. A `shape_and_slices` entry is TF's spec string: "" for a whole tensor, or the full
shape then one `start,length` (or `-`) per dimension, e.g. `"4 6 0,2:-"`, for a slice of a partitioned
variable. Every file a save writes goes to a temporary name and is renamed into place after an fsync, so a
crash leaves either the old checkpoint or the new one, never a half-written one under its final name.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.formats import bundle, tensor_slice_file, tfrecord
from tensorweave.framework import dtypes as tf_dtypes
from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Operation, Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export


def _string(value: Any) -> Any:
    return np.asarray(value, dtype=object)


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _check_names_and_slices(ctx: InferenceContext, count: int) -> None:
    """SaveV2's and RestoreV2's static checks: a scalar prefix, and one name and one spec per tensor."""
    with_rank(ctx.input_shape(0), 0)
    for i in (1, 2):
        shape = with_rank(ctx.input_shape(i), 1)
        size = shape.dims[0] if shape.dims else None
        if size is not None and size != count:
            raise ValueError(f"Dimension must be {count} but is {size}")


def _validate_inputs(ctx: OpKernelContext, prefix: Any, tensor_names: Any, shape_and_slices: Any,
                     count: int) -> None:
    """The runtime checks TF's SaveV2 and RestoreV2 kernels make, with their messages."""
    if np.size(prefix) != 1:
        raise invalid_argument(ctx, f"Input prefix should have a single element, got {np.size(prefix)} instead.")
    if np.ndim(tensor_names) != 1 or np.ndim(shape_and_slices) != 1:
        raise invalid_argument(ctx, "Input tensor_names and shape_and_slices should be an 1-D tensors, got "
                                    f"{tensor_shape.shape_string(np.shape(tensor_names))} and "
                                    f"{tensor_shape.shape_string(np.shape(shape_and_slices))} instead.")
    if np.size(tensor_names) != np.size(shape_and_slices):
        raise invalid_argument(ctx, "tensor_names and shape_and_slices have different number of elements: "
                                    f"{np.size(tensor_names)} vs. {np.size(shape_and_slices)}")
    if np.size(tensor_names) != count:
        raise invalid_argument(ctx, f"Got {count} tensors but {np.size(tensor_names)} names")


# -- SaveV2 ------------------------------------------------------------------------------------------

SaveV2 = Op("SaveV2", inputs=["prefix: string", "tensor_names: string", "shape_and_slices: string",
                              "tensors: dtypes"],
            attrs=["dtypes: list(type) >= 1"], is_stateful=True)


@SaveV2.shape
def _save_v2_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_names_and_slices(ctx, ctx.num_inputs - 3)
    return []


@SaveV2.kernel("CPU", expensive=True)
def _save_v2(ctx: OpKernelContext, prefix: Any, tensor_names: Any, shape_and_slices: Any, *tensors: Any) -> None:
    """One single-shard bundle at `prefix`: whole tensors, or slices of partitioned ones."""
    _validate_inputs(ctx, prefix, tensor_names, shape_and_slices, len(tensors))
    with bundle.BundleWriter(_text(np.ravel(prefix)[0])) as writer:
        for name, spec, value in zip(tensor_names.tolist(), shape_and_slices.tolist(), tensors):
            name, spec = _text(name), _text(spec)
            if not spec:
                writer.add(name, value)
                continue
            full_shape, slice_proto = bundle.parse_shape_and_slice(spec)
            starts, lengths = bundle.slice_extents(slice_proto, full_shape)
            expected = [full if n < 0 else n for full, n in zip(full_shape, lengths)]
            if list(np.shape(value)) != expected:
                raise invalid_argument(ctx, f"Slice in shape_and_slice specification does not match the shape of "
                                            f"the tensor to  save: {spec}, tensor: "
                                            f"{tensor_shape.shape_string(np.shape(value))}")
            writer.add_slice(name, full_shape, slice_proto, value)


# -- SaveSlices (V1 checkpoints) --------------------------------------------------------------------

SaveSlices = Op("SaveSlices", inputs=["filename: string", "tensor_names: string", "shapes_and_slices: string",
                                      "data: T"],
                attrs=["T: list(type)"], is_stateful=True)


@SaveSlices.shape
def _save_slices_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_names_and_slices(ctx, ctx.num_inputs - 3)
    return []


@SaveSlices.kernel("CPU", expensive=True)
def _save_slices(ctx: OpKernelContext, filename: Any, tensor_names: Any, shapes_and_slices: Any,
                 *tensors: Any, T: Sequence[Any]) -> None:  # noqa: N803 - TF's attr name
    """One V1 file at `filename`, its tensors in name order as TF's SaveTensors writes them."""
    _validate_inputs(ctx, filename, tensor_names, shapes_and_slices, len(tensors))
    entries = []
    for i in sorted(range(len(tensors)), key=lambda i: _text(tensor_names[i]).encode()):
        name, spec, value = _text(tensor_names[i]), _text(shapes_and_slices[i]), np.asarray(tensors[i])
        enum = tf_dtypes.as_dtype(T[i]).as_datatype_enum
        if not spec:
            entries.append((name, list(value.shape), enum, tensor_slice_file.full_slice(value.ndim), value))
            continue
        full_shape, slice_proto = bundle.parse_shape_and_slice(spec)
        _, lengths = bundle.slice_extents(slice_proto, full_shape)
        if list(value.shape) != [full if n < 0 else n for full, n in zip(full_shape, lengths)]:
            raise invalid_argument(ctx, f"Slice in shape_and_slice specification does not match the shape of the "
                                        f"tensor to  save: {spec}, tensor: {tensor_shape.shape_string(value.shape)}")
        entries.append((name, full_shape, enum, slice_proto, value))
    tensor_slice_file.write_tensor_slices(_text(np.ravel(filename)[0]), entries)


# -- RestoreV2 ---------------------------------------------------------------------------------------

RestoreV2 = Op("RestoreV2", inputs=["prefix: string", "tensor_names: string", "shape_and_slices: string"],
               outputs=["tensors: dtypes"], attrs=["dtypes: list(type) >= 1"], is_stateful=True)


@RestoreV2.shape
def _restore_v2_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Unknown shapes for whole tensors; a slice spec known statically gives its slice's shape, as in TF."""
    count = len(ctx.attr("dtypes"))
    _check_names_and_slices(ctx, count)
    specs = ctx.input_value(2)
    if specs is None:
        return [tensor_shape.unknown_shape()] * count
    shapes = []
    for spec in np.ravel(specs).tolist():
        spec = _text(spec)
        if not spec:
            shapes.append(tensor_shape.unknown_shape())
            continue
        try:
            full_shape, slice_proto = bundle.parse_shape_and_slice(spec)
        except errors.InvalidArgumentError as e:
            raise ValueError(e.message) from None
        _, lengths = bundle.slice_extents(slice_proto, full_shape)
        shapes.append(tensor_shape.TensorShape([full if n < 0 else n for full, n in zip(full_shape, lengths)]))
    return shapes


@RestoreV2.kernel("CPU", expensive=True)
def _restore_v2(ctx: OpKernelContext, prefix: Any, tensor_names: Any, shape_and_slices: Any,
                dtypes: Sequence[Any]) -> list:
    """Each named tensor (or the slice asked for) read from the bundle at `prefix`, checked against `dtypes`."""
    _validate_inputs(ctx, prefix, tensor_names, shape_and_slices, len(dtypes))
    path = _text(np.ravel(prefix)[0])
    if tensor_slice_file.is_v1_checkpoint(path) and not os.path.isdir(path):
        reader = tensor_slice_file.TensorSliceReader(path)
        return [_restore_one_v1(ctx, reader, _text(name), _text(spec), dtype)
                for name, spec, dtype in zip(tensor_names.tolist(), shape_and_slices.tolist(), dtypes)]
    with bundle.BundleReader(path) as reader:
        return [_restore_one(ctx, reader, _text(name), _text(spec), dtype)
                for name, spec, dtype in zip(tensor_names.tolist(), shape_and_slices.tolist(), dtypes)]


def _restore_one(ctx: OpKernelContext, reader: bundle.BundleReader, name: str, spec: str, dtype: Any) -> Any:
    shape, stored = reader.shape_and_dtype(name)
    expected = tf_dtypes.as_dtype(dtype)
    if stored != expected.as_datatype_enum:
        raise invalid_argument(ctx, f"tensor_name = {name}; expected dtype {tf_dtypes.type_string(expected)} does not "
                                    f"equal original dtype {tf_dtypes.type_string(tf_dtypes.as_dtype(stored))}")
    if not spec:
        return reader.lookup(name)
    full_shape, slice_proto = bundle.parse_shape_and_slice(spec)
    if full_shape != shape:
        raise invalid_argument(ctx, f"tensor_name = {name}; shape in shape_and_slice spec "
                                    f"{tensor_shape.shape_string(full_shape)} does not match the shape stored in "
                                    f"checkpoint: {tensor_shape.shape_string(shape)}")
    starts, lengths = bundle.slice_extents(slice_proto, full_shape)
    index = tuple(slice(s, None if n < 0 else s + n) for s, n in zip(starts, lengths))
    return reader.lookup(name)[index]



def _restore_one_v1(ctx: OpKernelContext, reader: tensor_slice_file.TensorSliceReader, name: str, spec: str,
                    dtype: Any) -> Any:
    """RestoreV2's fallback for a V1 checkpoint (TF's RestoreTensor), with its messages."""
    if not reader.has_tensor(name):
        raise errors.NotFoundError(ctx.node_def, None, f'Tensor name "{name}" not found in checkpoint files '
                                                         f"{reader.filepattern}")
    shape, stored = reader.shape_and_dtype(name)
    expected = tf_dtypes.as_dtype(dtype)
    if stored != expected.as_datatype_enum:
        raise invalid_argument(ctx, f"Expected to restore a tensor of type {tf_dtypes.type_string(expected)}, got a "
                                    f"tensor of type {tf_dtypes.type_string(tf_dtypes.as_dtype(stored))} instead: "
                                    f"tensor_name = {name}")
    value = reader.read(name)
    if not spec:
        return value
    full_shape, slice_proto = bundle.parse_shape_and_slice(spec)
    if full_shape != shape:
        raise invalid_argument(ctx, f"Shape in shape_and_slice spec {tensor_shape.shape_string(full_shape)} does not "
                                    f"match the shape stored in checkpoint: {tensor_shape.shape_string(shape)}")
    starts, lengths = bundle.slice_extents(slice_proto, full_shape)
    return value[tuple(slice(s, None if n < 0 else s + n) for s, n in zip(starts, lengths))]


# -- MergeV2Checkpoints ------------------------------------------------------------------------------

MergeV2Checkpoints = Op("MergeV2Checkpoints", inputs=["checkpoint_prefixes: string", "destination_prefix: string"],
                        attrs=["delete_old_dirs: bool = true", "allow_missing_files: bool = false"],
                        is_stateful=True)


@MergeV2Checkpoints.shape
def _merge_v2_checkpoints_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 1)
    with_rank(ctx.input_shape(1), 0)
    return []


@MergeV2Checkpoints.kernel("CPU")
def _merge_v2_checkpoints(ctx: OpKernelContext, checkpoint_prefixes: Any, destination_prefix: Any,
                          delete_old_dirs: bool, allow_missing_files: bool) -> None:
    """The per-device bundles of a sharded save joined into one bundle at the destination, index last."""
    if np.ndim(destination_prefix) != 0:
        raise invalid_argument(ctx, "Input destination_prefix should be a scalar tensor, got "
                                    f"{tensor_shape.shape_string(np.shape(destination_prefix))} instead.")
    prefixes = [_text(p) for p in np.ravel(checkpoint_prefixes).tolist()]
    if allow_missing_files:
        prefixes = [p for p in prefixes if os.path.exists(bundle.index_filename(p))]
    bundle.merge_bundles(prefixes, _text(destination_prefix[()]), delete_old_dirs=delete_old_dirs)


# -- ShardedFilename, ShardedFilespec ----------------------------------------------------------------

ShardedFilename = Op("ShardedFilename", inputs=["basename: string", "shard: int32", "num_shards: int32"],
                     outputs=["filename: string"])


@ShardedFilename.shape
def _scalar_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@ShardedFilename.kernel("CPU")
def _sharded_filename(ctx: OpKernelContext, basename: Any, shard: Any, num_shards: Any) -> Any:
    return np.asarray(f"{_text(basename[()])}-{int(shard):05d}-of-{int(num_shards):05d}".encode(), dtype=object)


ShardedFilespec = Op("ShardedFilespec", inputs=["basename: string", "num_shards: int32"],
                     outputs=["filename: string"])
ShardedFilespec.shape(_scalar_shape)


@ShardedFilespec.kernel("CPU")
def _sharded_filespec(ctx: OpKernelContext, basename: Any, num_shards: Any) -> Any:
    return np.asarray(f"{_text(basename[()])}-?????-of-{int(num_shards):05d}".encode(), dtype=object)


# -- Python wrappers (the Saver's builder uses them) --------------------------------------

def save_v2(prefix: Any, tensor_names: Any, shape_and_slices: Any, tensors: Sequence[Any],
            name: str | None = None) -> Operation:
    """A SaveV2 node writing `tensors` under `tensor_names` to the bundle at `prefix`."""
    return SaveV2(prefix, tensor_names, shape_and_slices, list(tensors), name=name)


def save_slices(filename: Any, tensor_names: Any, shapes_and_slices: Any, tensors: Sequence[Any],
                name: str | None = None) -> Operation:
    """A SaveSlices node writing `tensors` to the V1 checkpoint file `filename`."""
    return SaveSlices(filename, tensor_names, shapes_and_slices, list(tensors), name=name)


def restore_v2(prefix: Any, tensor_names: Any, shape_and_slices: Any, dtypes: Sequence[Any],  # noqa: A002
               name: str | None = None) -> list[Tensor]:
    """A RestoreV2 node reading the named tensors (of these dtypes) from the bundle at `prefix`."""
    return RestoreV2(prefix, tensor_names, shape_and_slices, dtypes=list(dtypes), name=name)


def merge_v2_checkpoints(checkpoint_prefixes: Any, destination_prefix: Any, delete_old_dirs: bool = True,
                         allow_missing_files: bool = False, name: str | None = None) -> Operation:
    """A MergeV2Checkpoints node joining per-device bundles into one."""
    return MergeV2Checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=delete_old_dirs,
                              allow_missing_files=allow_missing_files, name=name)


def sharded_filename(basename: Any, shard: Any, num_shards: Any, name: str | None = None) -> Tensor:
    """`basename-SSSSS-of-NNNNN`, the name of one shard of a sharded file."""
    return ShardedFilename(basename, shard, num_shards, name=name)


def sharded_filespec(basename: Any, num_shards: Any, name: str | None = None) -> Tensor:
    """`basename-?????-of-NNNNN`, the pattern naming every shard of a sharded file."""
    return ShardedFilespec(basename, num_shards, name=name)


# -- ReadFile, WriteFile, MatchingFiles --------------------------------------------------------------

ReadFile = Op("ReadFile", inputs=["filename: string"], outputs=["contents: string"])
WriteFile = Op("WriteFile", inputs=["filename: string", "contents: string"], is_stateful=True)
MatchingFiles = Op("MatchingFiles", inputs=["pattern: string"], outputs=["filenames: string"])


@ReadFile.shape
def _read_file_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 0)
    return [tensor_shape.TensorShape([])]


@WriteFile.shape
def _write_file_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 0)
    with_rank(ctx.input_shape(1), 0)
    return []


@MatchingFiles.shape
def _matching_files_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    ctx.input_shape(0).with_rank_at_most(1)
    return [tensor_shape.TensorShape([None])]


def read_entire_file(path: str) -> bytes:
    """A file's contents; a missing file or a directory is TF's error."""
    with tfrecord.open_or_raise(path, "rb") as f:
        try:
            return f.read()
        except OSError as e:
            raise tfrecord.os_error(path, e) from None


def _scalar_input(ctx: OpKernelContext, name: str, value: Any) -> str:
    if np.ndim(value) != 0:
        raise invalid_argument(ctx, f"Input {name} should be a scalar but has shape "
                                    f"{tensor_shape.shape_string(np.shape(value))}")
    return _text(value[()])


@ReadFile.kernel("CPU")
def _read_file(ctx: OpKernelContext, filename: Any) -> Any:
    return _string(read_entire_file(_scalar_input(ctx, "filename", filename)))


@WriteFile.kernel("CPU")
def _write_file(ctx: OpKernelContext, filename: Any, contents: Any) -> None:
    """Write `contents` to `filename`, making its directory first as TF does."""
    path = _scalar_input(ctx, "filename", filename)
    if np.ndim(contents) != 0:
        raise invalid_argument(ctx, "Contents tensor must be scalar, but had shape: "
                                    f"{tensor_shape.shape_string(np.shape(contents))}")
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        gfile.recursive_create_dir_v2(directory)
    with tfrecord.open_or_raise(path, "wb") as f:
        f.write(contents[()])


@MatchingFiles.kernel("CPU")
def _matching_files(ctx: OpKernelContext, pattern: Any) -> Any:
    """The files matching each pattern, sorted per pattern."""
    names = [name for p in np.ravel(pattern).tolist() for name in sorted(gfile.get_matching_files_v2(_text(p)))]
    return np.array([n.encode() for n in names], dtype=object)


@tf_export("io.read_file", "read_file")
def read_file(filename: Any, name: str | None = None) -> Tensor:
    """The contents of the file `filename`, as one string."""
    return ReadFile(filename, name=name)


@tf_export("io.write_file", "write_file")
def write_file(filename: Any, contents: Any, name: str | None = None) -> Operation:
    """An op that writes `contents` to `filename`, creating its directory if missing."""
    return WriteFile(filename, contents, name=name)


@tf_export("io.matching_files", "matching_files")
def matching_files(pattern: Any, name: str | None = None) -> Tensor:
    """The sorted names of the files matching a glob pattern (or each of a vector of patterns)."""
    return MatchingFiles(pattern, name=name)
