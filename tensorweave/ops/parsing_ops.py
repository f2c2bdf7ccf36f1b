"""Parsing ops (`tf.io.parse_*`, TF1's `tf.parse_*`): tf.train.Example and SequenceExample protos into dense
tensors and SparseTensors, tensors to and from TensorProto bytes, and zlib/gzip decompression.

The feature configurations (`FixedLenFeature`, `VarLenFeature`, `FixedLenSequenceFeature`, `SparseFeature`) are
TF's namedtuples; the wrappers turn them into the key/type/shape/default lists of ParseExampleV2 and
ParseSequenceExampleV2, as TF 2's graph builders do for TF1's names too. Kernels decode each serialized proto
once with the protobuf library, gather each feature's values across the batch into one flat list with its
per-example counts, and assemble dense and sparse outputs from those with NumPy (no loop over batch rows).
A scalar `serialized` parses one proto: the outputs lose the batch dimension and the errors its name and index.
A `RaggedFeature` parses to a RaggedTensor with one row per example (its values alone in a scalar parse) from
ParseExampleV2's ragged outputs, split further by its RowLengths and UniformRowLength partitions.
"""

from __future__ import annotations

import base64
import collections
import itertools
import operator
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from google.protobuf import text_format
from google.protobuf.message import DecodeError

from tensorweave import errors
from tensorweave.formats import example_wire, protos, tensor_proto
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops import (
    constant_ops,
    control_flow_ops,
    elementwise_ops,
    logging_ops,
    shape_ops,
    sparse_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.ragged_tensor import RaggedTensor
from tensorweave.ops.shape_helpers import unary_shape
from tensorweave.platform.tf_export import tf_export

_Shape = tensor_shape.TensorShape

# -- Feature configurations --------------------------------------------------------------------------

VarLenFeature = collections.namedtuple("VarLenFeature", ["dtype"])
tf_export("io.VarLenFeature", "VarLenFeature")(VarLenFeature)


@tf_export("io.SparseFeature", "SparseFeature")
class SparseFeature(collections.namedtuple("SparseFeature",
                                           ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A SparseTensor assembled from an index feature (or several) and a value feature of the same example."""

    def __new__(cls, index_key: Any, value_key: str, dtype: Any, size: Any, already_sorted: bool = False) -> Any:
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


@tf_export("io.FixedLenFeature", "FixedLenFeature")
class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A dense feature of a fixed shape; without a default, every example must have it."""

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> Any:
        return super().__new__(cls, shape, dtype, default_value)


@tf_export("io.FixedLenSequenceFeature", "FixedLenSequenceFeature")
class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """A dense feature of a variable number of `shape`-blocks, padded to the longest in the batch."""

    def __new__(cls, shape: Any, dtype: Any, allow_missing: bool = False, default_value: Any = None) -> Any:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


def _partition(name: str, fields: str, doc: str) -> type:
    return type(name, (collections.namedtuple(name, fields),), {"__doc__": doc, "__slots__": ()})


@tf_export("io.RaggedFeature")
class RaggedFeature(collections.namedtuple("RaggedFeature",
                                           ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """A feature of any number of values per example, parsed to a RaggedTensor (rows: examples) and split
    further by its partitions (RowLengths and UniformRowLength; the other kinds are not supported)."""

    RowSplits = _partition("RowSplits", ["key"], "Row partition by the row splits in feature `key`.")
    RowLengths = _partition("RowLengths", ["key"], "Row partition by the row lengths in feature `key`.")
    RowStarts = _partition("RowStarts", ["key"], "Row partition by the row starts in feature `key`.")
    RowLimits = _partition("RowLimits", ["key"], "Row partition by the row limits in feature `key`.")
    ValueRowIds = _partition("ValueRowIds", ["key"], "Row partition by the value row ids in feature `key`.")
    UniformRowLength = _partition("UniformRowLength", ["length"], "Row partition into rows of `length` values.")

    def __new__(cls, dtype: Any, value_key: str | None = None, partitions: Sequence[Any] = (),
                row_splits_dtype: Any = dtypes.int32, validate: bool = False) -> Any:
        if value_key is not None and (not isinstance(value_key, str) or not value_key):
            raise ValueError(f"Argument `value_key` must be a string; got {value_key}")
        dtype, row_splits_dtype = dtypes.as_dtype(dtype), dtypes.as_dtype(row_splits_dtype)
        if dtype not in (dtypes.int64, dtypes.float32, dtypes.string):
            raise ValueError(f"dtype must be one of tf.string, tf.int64, tf.float32; got {dtype}")
        if row_splits_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got {row_splits_dtype}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError("Argument `partitions` must be a list or tuple")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


class _ParseParams:
    """The keys, types, shapes and defaults of the parse op's inputs and attrs, from a features dict."""

    def __init__(self) -> None:
        self.sparse_keys: list[str] = []
        self.sparse_types: list[dtypes.DType] = []
        self.dense_keys: list[str] = []
        self.dense_types: list[dtypes.DType] = []
        self.dense_shapes: list[_Shape] = []
        self.dense_defaults: dict[str, Any] = {}
        self.ragged_keys: list[str] = []
        self.ragged_value_types: list[dtypes.DType] = []
        self.ragged_split_types: list[dtypes.DType] = []

    @classmethod
    def from_features(cls, features: Mapping[str, Any] | None, types: tuple) -> _ParseParams:
        params = cls()
        for key in sorted(features or {}):
            feature = features[key]
            if not isinstance(feature, types):
                raise ValueError(f"Unsupported {type(feature).__name__} {feature} for key '{key}'")
            params._add(key, feature)
        overlap = set(params.dense_keys) & set(params.sparse_keys)
        if overlap:
            raise ValueError(f"Dense and sparse keys must not intersect; dense_keys: {params.dense_keys}, "
                             f"sparse_keys: {params.sparse_keys}, intersection: {overlap}")
        return params

    @property
    def num_features(self) -> int:
        return len(self.sparse_keys) + len(self.dense_keys) + len(self.ragged_keys)

    def _add(self, key: str, feature: Any) -> None:
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        if isinstance(feature, VarLenFeature):
            self._add_sparse_key(key, feature.dtype)
        elif isinstance(feature, RaggedFeature):
            self._add_ragged_key(feature.value_key or key, feature.dtype, feature.row_splits_dtype)
            for partition in feature.partitions:
                if isinstance(partition, RaggedFeature.RowLengths):
                    self._add_ragged_key(partition.key, dtypes.int64, feature.row_splits_dtype)
                elif not isinstance(partition, RaggedFeature.UniformRowLength):
                    raise NotImplementedError(f"RaggedFeature partition {type(partition).__name__} is not "
                                              "supported (RowLengths and UniformRowLength are)")
        elif isinstance(feature, SparseFeature):
            if not feature.index_key:
                raise ValueError(f"Missing index_key for SparseFeature {feature}.")
            if not feature.value_key:
                raise ValueError(f"Missing value_key for SparseFeature {feature}.")
            index_keys = [feature.index_key] if isinstance(feature.index_key, str) else feature.index_key
            for index_key in sorted(index_keys):
                self._add_sparse_key(index_key, dtypes.int64)
            self._add_sparse_key(feature.value_key, feature.dtype)
        else:
            self._add_dense(key, feature)

    def _add_ragged_key(self, key: str, dtype: dtypes.DType, split_type: dtypes.DType) -> None:
        if key not in self.ragged_keys:
            self.ragged_keys.append(key)
            self.ragged_value_types.append(dtype)
            self.ragged_split_types.append(split_type)

    def _add_sparse_key(self, key: str, dtype: Any) -> None:
        dtype = dtypes.as_dtype(dtype)
        if key in self.sparse_keys:
            original = self.sparse_types[self.sparse_keys.index(key)]
            if original != dtype:
                raise ValueError(f"Conflicting type {original} vs {dtype} for feature {key}.")
            return
        self.sparse_keys.append(key)
        self.sparse_types.append(dtype)

    def _add_dense(self, key: str, feature: Any) -> None:
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
        shape = tensor_shape.as_shape(feature.shape)
        if isinstance(feature, FixedLenFeature):
            if feature.shape and shape.ndims and shape.dims[0].value is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. Consider using "
                                 f"FixedLenSequenceFeature. Received feature={feature}.")
            if not shape.is_fully_defined():
                raise ValueError(f"All dimensions of shape for feature {key} need to be known but received "
                                 f"{feature.shape!s}.")
        elif feature.allow_missing:
            self.dense_defaults[key] = None
        self.dense_keys.append(key)
        self.dense_shapes.append(shape)
        self.dense_types.append(dtypes.as_dtype(feature.dtype))
        if feature.default_value is not None:
            self.dense_defaults[key] = feature.default_value

    def dense_defaults_vec(self) -> list[Tensor]:
        """One default tensor per dense key: the padding scalar for a variable-length one, else the default
        reshaped to the feature's shape (empty: the feature is required)."""
        out = []
        for key, shape, dtype in zip(self.dense_keys, self.dense_shapes, self.dense_types):
            default = self.dense_defaults.get(key)
            safe = re.sub(r"[^A-Za-z0-9_.\-/]", "_", key)
            if shape.ndims and shape.dims[0].value is None:
                if default is None:
                    out.append(convert_to_tensor("" if dtype == dtypes.string else 0, dtype=dtype))
                else:
                    out.append(shape_ops.reshape(convert_to_tensor(default, dtype=dtype, name="padding_" + safe),
                                                 []))
            elif default is None:
                out.append(constant_ops.constant([], dtype=dtype))
            elif isinstance(default, Tensor):
                out.append(default)
            else:
                out.append(shape_ops.reshape(convert_to_tensor(default, dtype=dtype, name="key_" + safe), shape))
        return out


def _partitioned(parsed: Any, partitions: Sequence[Any], outputs: dict) -> Any:
    """A RaggedFeature's values split by its partitions, innermost first, as TF's: the partitions work on the
    values of the whole batch at once (a RowLengths feature's lengths, flattened across the examples), and
    the last one's row splits give each example its rows."""
    if not partitions:
        return parsed
    batched = isinstance(parsed, RaggedTensor)
    inner, batch_splits = (parsed.values, parsed.row_splits) if batched else (parsed, None)
    for partition in reversed(partitions):
        if isinstance(partition, RaggedFeature.RowLengths):
            lengths = outputs[partition.key]
            lengths, batch_splits = (lengths.values, lengths.row_splits) if batched else (lengths, None)
            inner = RaggedTensor.from_row_lengths(inner, lengths, validate=False)
        else:
            if isinstance(inner, RaggedTensor):
                inner = RaggedTensor.from_uniform_row_length(inner, partition.length, validate=False)
            else:
                inner = shape_ops.reshape(inner, [-1, partition.length])
            if batched:
                batch_splits = batch_splits // partition.length
    return RaggedTensor.from_row_splits(inner, batch_splits, validate=False) if batched else inner


def _sparse_features_merged(features: Mapping[str, Any], outputs: dict) -> dict:
    """Each SparseFeature's SparseTensor from its index and value features, each RaggedFeature's
    RaggedTensor from its value and partition features; the other keys as parsed."""
    merged = dict(outputs)
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            ids = (outputs[feature.index_key] if isinstance(feature.index_key, str)
                   else [outputs[k] for k in feature.index_key])
            merged[key] = sparse_ops.sparse_merge(ids, outputs[feature.value_key], feature.size,
                                                  already_sorted=feature.already_sorted)
        elif isinstance(feature, RaggedFeature):
            merged[key] = _partitioned(outputs[feature.value_key or key], feature.partitions, outputs)
    return {key: value for key, value in merged.items() if key in features}


# -- Kernels' shared assembly ------------------------------------------------------------------------

_LIST_FIELD = {dtypes.float32: "float_list", dtypes.int64: "int64_list", dtypes.string: "bytes_list"}
_TYPE_NAME = {dtypes.float32: "float", dtypes.int64: "int64", dtypes.string: "string"}


def _decode_all(ctx: OpKernelContext, cls: Any, flat: np.ndarray) -> list:
    """Every serialized proto decoded once."""
    out = []
    for data in flat:
        try:
            out.append(cls.FromString(data))
        except DecodeError:
            raise invalid_argument(ctx, f"Could not parse example input, value: "
                                        f"'{data.decode(errors='replace')}'") from None
    return out


def _np_dtype(dtype: dtypes.DType) -> np.dtype:
    return np.dtype(object) if dtype == dtypes.string else np.dtype(dtype.as_numpy_dtype)


def _gather(ctx: OpKernelContext, features: Any, dtype: dtypes.DType, where: Any) -> tuple:
    """The values of each of `features` (None: missing; or an example_wire.Column of them) of type `dtype`,
    as one flat array, the per-feature counts and the mask of those with a kind of list (an empty Feature is
    missing, as TF's). `where(i, kind)` names feature i in TF's type-mismatch message."""
    field = _LIST_FIELD[dtype]
    if isinstance(features, example_wire.Column):
        wrong = np.flatnonzero((features.kind > 0) & (features.kind != _WIRE_KIND[dtype]))
        if wrong.size:
            raise _at_example(invalid_argument(ctx, where(wrong[0], _WIRE_FIELD[features.kind[wrong[0]]])), wrong[0])
        counts = np.zeros(len(features), np.int64)
        counts[features.kind == _WIRE_KIND[dtype]] = features.counts
        return features.values, counts, features.kind > 0
    present = np.fromiter((f is not None for f in features), bool, len(features))
    found = list(itertools.compress(features, present))
    kinds = list(map(_which_kind, found))
    for kind in set(kinds) - {field, None}:
        i = np.flatnonzero(present)[kinds.index(kind)]
        raise _at_example(invalid_argument(ctx, where(i, kind)), i)
    counts = np.zeros(len(features), np.int64)
    lists = list(map(operator.attrgetter(field + ".value"), found))
    counts[present] = np.fromiter(map(len, lists), np.int64, len(lists))
    values = np.array(list(itertools.chain.from_iterable(lists)), dtype=_np_dtype(dtype))
    present[present] = np.fromiter((kind is not None for kind in kinds), bool, len(kinds))
    return values, counts, present


def _at_example(error: errors.InvalidArgumentError, index: int) -> errors.InvalidArgumentError:
    """`error`, marked with the example it is about: a batch reports its first failing example, as TF's."""
    error.example_index = int(index)
    return error


_which_kind = operator.methodcaller("WhichOneof", "kind")
# From how much work the vectorized wire reader beats protobuf's parse, in records x (requested keys + 2): its
# fixed cost (~0.45 ms of NumPy calls) outweighs protobuf's (~2.4 us a record and ~1 us a key) below it, as in
# a tf.data map of parse_single_example (measured crossovers: ~100 records of 2 keys, ~20 of 20 keys)
_WIRE_MIN_WORK = 400
_WIRE_KIND = {dtypes.string: example_wire.BYTES_LIST, dtypes.float32: example_wire.FLOAT_LIST,
              dtypes.int64: example_wire.INT64_LIST}
_WIRE_FIELD = {example_wire.BYTES_LIST: "bytes_list", example_wire.FLOAT_LIST: "float_list",
               example_wire.INT64_LIST: "int64_list"}


def _positions(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a flat list made of runs of `counts`: each value's run and its position in the run."""
    rows = np.repeat(np.arange(len(counts)), counts)
    starts = np.cumsum(counts) - counts
    return rows, np.arange(counts.sum()) - np.repeat(starts, counts)


def _sparse_output(values: np.ndarray, counts: np.ndarray, batch: bool) -> list:
    rows, pos = _positions(counts)
    width = int(counts.max()) if counts.size else 0
    if batch:
        return [np.stack([rows, pos], axis=1).astype(np.int64), values, np.array([len(counts), width], np.int64)]
    return [pos.reshape(-1, 1).astype(np.int64), values, np.array([width], np.int64)]


def _padded(values: np.ndarray, counts: np.ndarray, stride: int, pad: Any, dtype: np.dtype) -> np.ndarray:
    """Runs of `counts` values (multiples of `stride`) as rows padded with `pad` to the longest: [n, rows*stride]."""
    rows, pos = _positions(counts)
    width = int(counts.max()) if counts.size else 0
    out = np.full((len(counts), width), pad, dtype=dtype)
    out[rows, pos] = values
    return out


def _shape_text(shape: _Shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _example_features(ctx: OpKernelContext, messages: list | None, names: np.ndarray, batch: bool,
                      sparse_keys: Any, sparse_types: Sequence[dtypes.DType], dense_keys: Any,
                      dense_types: Sequence[dtypes.DType], dense_shapes: Sequence[Any],
                      dense_defaults: Sequence[np.ndarray], context: bool, wire_columns: list | None = None) -> list:
    """Sparse indices, values, shapes then dense values of the Features `messages` (Example features or a
    SequenceExample's context), or of the sparse then dense `wire_columns` read from the wire, with TF's
    messages for a missing, mistyped or wrongly sized feature."""
    maps = [m.feature for m in messages] if wire_columns is None else None
    columns = iter(wire_columns or ())

    def name(i: int) -> str:
        return names[i].decode(errors="replace") if names.size else "<unknown>"

    def prefix(key: str, i: int) -> str:
        if context:
            return f"Name: {name(i)}, Context feature: {key}."
        return f"Name: {name(i)}, Key: {key}, Index: {i}." if batch else f"Key: {key}."

    def mismatch(key: str, dtype: dtypes.DType, sparse: bool = False) -> Any:
        if context:
            return lambda i, kind: f"{prefix(key, i)}  Data types don't match. Expected type: {_TYPE_NAME[dtype]}"
        if sparse:
            return lambda i, kind: (f"{prefix(key, i)}  Data types don't match. Expected type: {_TYPE_NAME[dtype]}, "
                                    f"Actual type: {_TYPE_NAME[_KIND_TYPE[kind]]}")
        return lambda i, kind: (f"{prefix(key, i)}  Data types don't match. Data type: "
                                f"{_TYPE_NAME[_KIND_TYPE[kind]]} but expected type: {_TYPE_NAME[dtype]}")

    def column(key: Any) -> tuple[str, Any]:
        key = key.decode() if isinstance(key, bytes) else key
        return key, [m.get(key) for m in maps] if maps is not None else next(columns)

    # An Example batch is parsed example by example and reports the first failing one; within it a wrong list
    # before a missing feature: each feature's first failure is kept as ((example, missing?), message), the least
    # raised. A SequenceExample's context is checked for types first, then dense feature by dense feature.
    failures: list[tuple[tuple[int, int], str]] = []

    def gathered(col: Any, dtype: dtypes.DType, where: Any) -> tuple | None:
        try:
            return _gather(ctx, col, dtype, where)
        except errors.InvalidArgumentError as error:
            failures.append(((-1, error.example_index) if context else (error.example_index, False), error.message))
            return None

    parts = []
    for key, dtype in zip(np.ravel(sparse_keys), sparse_types):
        key, col = column(key)
        found = gathered(col, dtype, mismatch(key, dtype, sparse=True))
        if found is not None:
            parts.append(_sparse_output(*found[:2], batch))
    dense_out = []
    for t, (raw_key, dtype, shape, default) in enumerate(zip(np.ravel(dense_keys), dense_types, dense_shapes,
                                                             dense_defaults)):
        key, col = column(raw_key)
        shape = tensor_shape.as_shape(shape)
        found = gathered(col, dtype, mismatch(key, dtype))
        if found is None:
            continue
        values, counts, present = found
        np_dtype = _np_dtype(dtype)
        if shape.ndims and shape.dims[0].value is None:
            stride = int(np.prod(shape.as_list()[1:], dtype=np.int64))
            bad = np.flatnonzero(counts % stride) if stride else np.flatnonzero(counts)
            if bad.size:
                i = bad[0]
                failures.append(((i, False), f"{prefix(key, i)}  Number of {_TYPE_NAME[dtype]} values is not a "
                                             f"multiple of stride length. Saw {counts[i]} values but output shape "
                                             f"is: {_shape_text(shape)}"))
                continue
            out = _padded(values, counts, stride, np.asarray(default).reshape(()), np_dtype)
            out = out.reshape([len(col), out.shape[1] // stride] + shape.as_list()[1:]) if stride else \
                np.zeros([len(col), 0] + shape.as_list()[1:], np_dtype)
        else:
            size = shape.num_elements()
            required = f"Feature: {key} (data type: {_TYPE_NAME[dtype]}) is required but could not be found."
            if context:
                # TF's SequenceExample context parser sizes each dense feature by the most values an example (or
                # the default) has, then reads the examples in order
                longest = max(np.size(default), int(counts[present].max(initial=0)))
                bad = np.flatnonzero((present & (counts != longest)) | (~present & (np.size(default) == 0)))
                if longest != size:
                    failures.append(((0, t), f"Inconsistent max number of elements for feature {key}: expected "
                                             f"{size}, but found {longest}"))
                elif bad.size:
                    i = bad[0]
                    failures.append(((0, t), f"Unexpected number of elements in example {name(i)}"
                                     if present[i] else required))
                if longest != size or bad.size:
                    continue
            missing = np.flatnonzero(~present)
            bad = np.flatnonzero(present & (counts != size))
            if bad.size:
                i = bad[0]
                failures.append(((i, False), f"{prefix(key, i)}  {_wrong_count(dtype, counts[i], shape, batch)}"))
            if missing.size and np.size(default) == 0:
                where = "" if not batch else f"Name: {name(missing[0])}, "
                failures.append(((missing[0], True), where + required))
            if bad.size or (missing.size and np.size(default) == 0):
                continue
            if missing.size:
                out = np.empty((len(col), size), np_dtype)
                out[present] = values.reshape(-1, size)
                out[~present] = np.asarray(default, np_dtype).reshape(-1)
            else:
                out = values.astype(np_dtype, copy=False).reshape(len(col), size)
            out = out.reshape([len(col)] + shape.as_list())
        dense_out.append(out if batch else out[0])
    if failures:
        raise invalid_argument(ctx, min(failures, key=lambda failure: failure[0])[1])
    return [p[0] for p in parts] + [p[1] for p in parts] + [p[2] for p in parts] + dense_out


_KIND_TYPE = {field: dtype for dtype, field in _LIST_FIELD.items()}


def _wrong_count(dtype: dtypes.DType, count: int, shape: _Shape, batch: bool) -> str:
    """TF's message for an Example's dense feature with the wrong number of values: its single-example parser
    says the list was not parsed; its batch parser counts values, except for a string list too long to fit."""
    if not batch:
        if dtype == dtypes.string and count > shape.num_elements():
            return "Can't parse serialized Example: Parsing bytes_list failed."
        return f"Can't parse serialized Example: Some {_LIST_FIELD[dtype]} slice was not parsed."
    if dtype == dtypes.string and count > shape.num_elements():
        return "Can't parse serialized Example."
    name = "bytes" if dtype == dtypes.string else _TYPE_NAME[dtype]
    return f"Number of {name} values != expected.  Values size: {count} but output shape: {_shape_text(shape)}"


def _check_serialized(ctx: OpKernelContext, serialized: np.ndarray) -> None:
    if serialized.ndim > 1:
        raise invalid_argument(ctx, "Expected serialized to be a scalar or vector, got shape: "
                                    f"{tensor_shape.shape_string(serialized.shape)}")


def _parse_shapes(batch: _Shape, num_sparse: int, dense_shapes: Sequence[Any]) -> tuple[list, list]:
    """The sparse (indices, values, shapes) and dense output shapes over a batch shape (`[]`, `[n]` or unknown)."""
    if batch.ndims is None:
        sparse = [_Shape([None, None])] * num_sparse + [_Shape([None])] * num_sparse + [_Shape([None])] * num_sparse
        return sparse, [tensor_shape.unknown_shape()] * len(dense_shapes)
    rank = batch.ndims + 1
    sparse = [_Shape([None, rank])] * num_sparse + [_Shape([None])] * num_sparse + [_Shape([rank])] * num_sparse
    return sparse, [batch.concatenate(tensor_shape.as_shape(s)) for s in dense_shapes]


def _check_dense_shapes(dense_shapes: Sequence[Any]) -> None:
    """TF's ParseExampleAttrs check: only a dense shape's first dimension (a sequence's length) may be unknown."""
    for i, shape in enumerate(dense_shapes):
        shape = tensor_shape.as_shape(shape)
        if shape.ndims is None or any(d is None for d in shape.as_list()[1:]):
            raise ValueError(f"dense_shapes[{i}] has unknown rank or unknown inner dimensions: {_shape_text(shape)}")


def _dense_layout(attrs: Mapping[str, Any]) -> list[tuple[list[int], int, np.dtype, str]] | None:
    """Each dense feature's output dims, value count, NumPy type and list field, made once per node from its
    attrs (a kernel state): None when a shape is not fully known (the one-record path then never applies)."""
    shapes = [tensor_shape.as_shape(s) for s in attrs["dense_shapes"]]
    if not all(s.is_fully_defined() for s in shapes):
        return None
    return [(s.as_list(), s.num_elements(), _np_dtype(t), _LIST_FIELD[t]) for s, t in zip(shapes, attrs["Tdense"])]


_LITTLE_FLOAT = np.dtype("<f4")  # a packed float_list's wire values


def _single_example_dense(data: bytes, dense_keys: Sequence[Any], layout: list | None,
                          dense_defaults: Sequence[np.ndarray]) -> list | None:
    """The dense features of one serialized Example (parse_single_example, as a tf.data map or a queue reader
    runs it), or None unless each is present with its type and size or missing with a default: the general
    path then parses it and raises TF's error. Per record, the batch path's NumPy calls on one-row arrays cost
    ten times the parse itself."""
    if layout is None:
        return None
    try:
        features = protos.Example.FromString(data).features.feature
    except DecodeError:
        return None
    out = []
    for key, (dims, size, np_dtype, field), default in zip(dense_keys, layout, dense_defaults):
        feature = features.get(key.decode() if isinstance(key, bytes) else key)
        if feature is None:
            if np.size(default) == 0:
                return None
            value = np.empty(size, np_dtype)
            value[:] = np.asarray(default, np_dtype).reshape(-1)
        elif feature.WhichOneof("kind") != field or len((values := getattr(feature, field)).value) != size:
            return None
        elif field == "float_list" and size:
            # proto3 writes the list packed, the values last: copied as bytes, five times quicker than by value
            packed = values.SerializeToString()
            value = np.frombuffer(bytearray(packed), _LITTLE_FLOAT, size, len(packed) - 4 * size)
        else:
            value = (np.array(list(values.value), object) if field == "bytes_list"
                     else np.fromiter(values.value, np_dtype, size))
        out.append(value.reshape(dims))
    return out


# -- ParseExampleV2 ----------------------------------------------------------------------------------

_PARSE_TYPES = "{float, int64, string}"

ParseExampleV2 = Op("ParseExampleV2",
                    inputs=["serialized: string", "names: string", "sparse_keys: string", "dense_keys: string",
                            "ragged_keys: string", "dense_defaults: Tdense"],
                    outputs=["sparse_indices: num_sparse * int64", "sparse_values: sparse_types",
                             "sparse_shapes: num_sparse * int64", "dense_values: Tdense",
                             "ragged_values: ragged_value_types", "ragged_row_splits: ragged_split_types"],
                    attrs=[f"Tdense: list({_PARSE_TYPES}) >= 0", "num_sparse: int >= 0",
                           f"sparse_types: list({_PARSE_TYPES}) >= 0",
                           f"ragged_value_types: list({_PARSE_TYPES}) >= 0",
                           "ragged_split_types: list({int32, int64}) >= 0", "dense_shapes: list(shape) >= 0"])


@ParseExampleV2.shape
def _parse_example_v2_shape(ctx: InferenceContext) -> list[_Shape]:
    _check_dense_shapes(ctx.attr("dense_shapes"))
    serialized = ctx.input_shape(0)
    for shape in (serialized, ctx.input_shape(1)):  # the serialized examples and their names
        if shape.ndims is not None and shape.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {shape.ndims}")
    sparse, dense = _parse_shapes(serialized, ctx.attr("num_sparse"), ctx.attr("dense_shapes"))
    nragged = len(ctx.attr("ragged_value_types"))
    batch = serialized.dims[0].value if serialized.ndims == 1 else None
    splits = _Shape([None if batch is None else batch + 1] if serialized.ndims != 0 else [2])
    return sparse + dense + [_Shape([None])] * nragged + [splits] * nragged


def _ragged_features(ctx: OpKernelContext, messages: list, ragged_keys: Any, value_types: Sequence[dtypes.DType],
                     split_types: Sequence[dtypes.DType]) -> list:
    """Each ragged feature's values across the examples, then each one's row splits (one row per example)."""
    values, splits = [], []
    for raw_key, dtype, split_type in zip(np.ravel(ragged_keys), value_types, split_types):
        key = raw_key.decode() if isinstance(raw_key, bytes) else raw_key

        def mismatch(i: int, kind: str, key: str = key, dtype: dtypes.DType = dtype) -> str:
            return (f"Name: <unknown>, Key: {key}, Index: {i}.  Data types don't match. Expected type: "
                    f"{_TYPE_NAME[dtype]}, Actual type: {_TYPE_NAME[_KIND_TYPE[kind]]}")

        flat, counts, _ = _gather(ctx, [m.feature.get(key) for m in messages], dtype, mismatch)
        values.append(flat.astype(_np_dtype(dtype), copy=False))
        splits.append(np.concatenate([[0], np.cumsum(counts)]).astype(split_type.as_numpy_dtype))
    return values + splits


@ParseExampleV2.kernel("CPU", state=_dense_layout)
def _parse_example_v2(ctx: OpKernelContext, serialized: Any, names: Any, sparse_keys: Any, dense_keys: Any,
                      ragged_keys: Any, *dense_defaults: Any, Tdense: Any, num_sparse: int,  # noqa: N803
                      sparse_types: Any, ragged_value_types: Any, ragged_split_types: Any, dense_shapes: Any) -> list:
    _check_serialized(ctx, serialized)
    if np.size(names) and np.shape(names) != serialized.shape:
        raise invalid_argument(ctx, "Expected names have the same shape as serialized: name.shape="
                                    f"{tensor_shape.shape_string(np.shape(names))}, serialized.shape="
                                    f"{tensor_shape.shape_string(serialized.shape)}")
    if np.size(ragged_keys):
        flat = serialized.reshape(-1)
        messages = [m.features for m in _decode_all(ctx, protos.Example, flat)]
        return _example_features(ctx, messages, np.ravel(names), serialized.ndim == 1, sparse_keys, sparse_types,
                                 dense_keys, Tdense, dense_shapes, dense_defaults, context=False) + \
            _ragged_features(ctx, messages, ragged_keys, ragged_value_types, ragged_split_types)
    if serialized.ndim == 0 and not num_sparse:
        single = _single_example_dense(serialized.item(), np.ravel(dense_keys), ctx.state, dense_defaults)
        if single is not None:
            return single
    flat = serialized.reshape(-1)
    keys = [key.decode() for key in np.ravel(sparse_keys)] + [key.decode() for key in np.ravel(dense_keys)]
    wire_columns = (example_wire.read_features(flat, keys, [_WIRE_KIND[t] for t in [*sparse_types, *Tdense]])
                    if len(flat) * (len(keys) + 2) >= _WIRE_MIN_WORK else None)
    messages = None if wire_columns is not None else [m.features for m in _decode_all(ctx, protos.Example, flat)]
    return _example_features(ctx, messages, np.ravel(names), serialized.ndim == 1, sparse_keys, sparse_types,
                             dense_keys, Tdense, dense_shapes, dense_defaults, context=False,
                             wire_columns=wire_columns)


# -- ParseSingleExample (TF's older scalar op: the keys are attrs) -------------------------------------

ParseSingleExample = Op("ParseSingleExample", inputs=["serialized: string", "dense_defaults: Tdense"],
                        outputs=["sparse_indices: num_sparse * int64", "sparse_values: sparse_types",
                                 "sparse_shapes: num_sparse * int64", "dense_values: Tdense"],
                        attrs=["num_sparse: int >= 0", "sparse_keys: list(string) >= 0",
                               "dense_keys: list(string) >= 0", f"sparse_types: list({_PARSE_TYPES}) >= 0",
                               f"Tdense: list({_PARSE_TYPES}) >= 0", "dense_shapes: list(shape) >= 0"])


@ParseSingleExample.shape
def _parse_single_example_shape(ctx: InferenceContext) -> list[_Shape]:
    ctx.input_shape(0).with_rank(0)
    sparse, dense = _parse_shapes(_Shape([]), ctx.attr("num_sparse"), ctx.attr("dense_shapes"))
    return sparse + dense


@ParseSingleExample.kernel("CPU", state=_dense_layout)
def _parse_single_example(ctx: OpKernelContext, serialized: Any, *dense_defaults: Any, num_sparse: int,
                          sparse_keys: Any, dense_keys: Any, sparse_types: Any, Tdense: Any,  # noqa: N803
                          dense_shapes: Any) -> list:
    if not num_sparse and serialized.ndim == 0:
        single = _single_example_dense(serialized.item(), dense_keys, ctx.state, dense_defaults)
        if single is not None:
            return single
    messages = [m.features for m in _decode_all(ctx, protos.Example, serialized.reshape(-1))]
    return _example_features(ctx, messages, np.array([]), False, sparse_keys, sparse_types, dense_keys, Tdense,
                             dense_shapes, dense_defaults, context=False)


def _parse_example_raw(serialized: Any, names: Any, params: _ParseParams, name: str | None) -> dict:
    if params.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    with name_scope(name, "ParseExample", [serialized, names]):
        serialized = convert_to_tensor(serialized, name="serialized")
        num_sparse = len(params.sparse_keys)
        outputs = ParseExampleV2(
            serialized, [] if names is None else names, params.sparse_keys, params.dense_keys, params.ragged_keys,
            params.dense_defaults_vec(),
            num_sparse=num_sparse, sparse_types=params.sparse_types, ragged_value_types=params.ragged_value_types,
            ragged_split_types=params.ragged_split_types, dense_shapes=params.dense_shapes, name=name)
        sparse = [SparseTensor(outputs[i], outputs[num_sparse + i], outputs[2 * num_sparse + i])
                  for i in range(num_sparse)]
        ndense, nragged = len(params.dense_keys), len(params.ragged_keys)
        dense = list(outputs[3 * num_sparse:3 * num_sparse + ndense])
        ragged_values = outputs[3 * num_sparse + ndense:3 * num_sparse + ndense + nragged]
        ragged_splits = outputs[3 * num_sparse + ndense + nragged:]
        ragged = [values if serialized.shape.ndims == 0 else RaggedTensor.from_row_splits(values, splits,
                                                                                           validate=False)
                  for values, splits in zip(ragged_values, ragged_splits)]
        return dict(zip(params.sparse_keys + params.dense_keys + params.ragged_keys, sparse + dense + ragged))


_EXAMPLE_FEATURES = (VarLenFeature, SparseFeature, FixedLenFeature, FixedLenSequenceFeature, RaggedFeature)


def _prepend_none_dimension(features: Mapping[str, Any]) -> dict:
    """Each FixedLenSequenceFeature as the dense feature of unknown first dimension it parses to."""
    out = dict(features)
    for key, feature in features.items():
        if isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            out[key] = FixedLenSequenceFeature([None] + list(feature.shape), feature.dtype, feature.allow_missing,
                                               feature.default_value)
    return out


@tf_export("io.parse_example", "parse_example")
def parse_example(serialized: Any, features: Mapping[str, Any], name: str | None = None,
                  example_names: Any = None) -> dict:
    """A batch of serialized Examples parsed into one tensor (or SparseTensor) per feature key."""
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    features = _prepend_none_dimension(features)
    params = _ParseParams.from_features(features, _EXAMPLE_FEATURES)
    return _sparse_features_merged(features, _parse_example_raw(serialized, example_names, params, name))


def _assert_scalar(value: Tensor, name: str) -> Tensor:
    """`value`, checked to be a scalar: statically when its rank is known, else by an Assert it depends on."""
    rank = value.shape.ndims
    if rank == 0:
        return value
    if rank is not None:
        raise ValueError(f"Input {name} must be a scalar")
    check = logging_ops.Assert_(elementwise_ops.equal(shape_ops.rank(value), 0), [f"Input {name} must be a scalar"],
                                name=f"{name.capitalize()}IsScalar")
    result = control_flow_ops.with_dependencies([check], value, name=f"{name}Dependencies")
    result.set_shape([])
    return result


@tf_export("io.parse_single_example", "parse_single_example")
def parse_single_example(serialized: Any, features: Mapping[str, Any], name: str | None = None,
                         example_names: Any = None) -> dict:
    """One serialized Example parsed: as parse_example's outputs without the batch dimension."""
    if features is None:
        raise ValueError("Invalid argument: features cannot be None.")
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    with name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = _assert_scalar(convert_to_tensor(serialized, name="serialized"), "serialized")
        return parse_example(serialized, features, name, example_names)


# -- ParseSequenceExampleV2 --------------------------------------------------------------------------

ParseSequenceExampleV2 = Op(
    "ParseSequenceExampleV2",
    inputs=["serialized: string", "debug_name: string", "context_sparse_keys: string", "context_dense_keys: string",
            "context_ragged_keys: string", "feature_list_sparse_keys: string", "feature_list_dense_keys: string",
            "feature_list_ragged_keys: string", "feature_list_dense_missing_assumed_empty: bool",
            "context_dense_defaults: Tcontext_dense"],
    outputs=["context_sparse_indices: Ncontext_sparse * int64", "context_sparse_values: context_sparse_types",
             "context_sparse_shapes: Ncontext_sparse * int64", "context_dense_values: Tcontext_dense",
             "context_ragged_values: context_ragged_value_types",
             "context_ragged_row_splits: context_ragged_split_types",
             "feature_list_sparse_indices: Nfeature_list_sparse * int64",
             "feature_list_sparse_values: feature_list_sparse_types",
             "feature_list_sparse_shapes: Nfeature_list_sparse * int64",
             "feature_list_dense_values: feature_list_dense_types",
             "feature_list_dense_lengths: Nfeature_list_dense * int64",
             "feature_list_ragged_values: feature_list_ragged_value_types",
             "feature_list_ragged_outer_splits: feature_list_ragged_split_types",
             "feature_list_ragged_inner_splits: feature_list_ragged_split_types"],
    attrs=["Ncontext_sparse: int >= 0 = 0", f"Tcontext_dense: list({_PARSE_TYPES}) >= 0 = []",
           f"context_sparse_types: list({_PARSE_TYPES}) >= 0 = []",
           f"context_ragged_value_types: list({_PARSE_TYPES}) >= 0 = []",
           "context_ragged_split_types: list({int32, int64}) >= 0 = []",
           "context_dense_shapes: list(shape) >= 0 = []", "Nfeature_list_sparse: int >= 0 = 0",
           "Nfeature_list_dense: int >= 0 = 0", f"feature_list_dense_types: list({_PARSE_TYPES}) >= 0 = []",
           f"feature_list_sparse_types: list({_PARSE_TYPES}) >= 0 = []",
           f"feature_list_ragged_value_types: list({_PARSE_TYPES}) >= 0 = []",
           "feature_list_ragged_split_types: list({int32, int64}) >= 0 = []",
           "feature_list_dense_shapes: list(shape) >= 0 = []"])


@ParseSequenceExampleV2.shape
def _parse_sequence_example_v2_shape(ctx: InferenceContext) -> list[_Shape]:
    serialized = ctx.input_shape(0)
    if serialized.ndims is not None and serialized.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {serialized.ndims}")
    sparse, dense = _parse_shapes(serialized, ctx.attr("Ncontext_sparse"), ctx.attr("context_dense_shapes"))
    steps = serialized.concatenate([None]) if serialized.ndims is not None else serialized
    list_sparse, list_dense = _parse_shapes(steps, ctx.attr("Nfeature_list_sparse"),
                                            ctx.attr("feature_list_dense_shapes"))
    lengths = [serialized] * ctx.attr("Nfeature_list_dense")
    return sparse + dense + list_sparse + list_dense + lengths


def _feature_lists(ctx: OpKernelContext, messages: list, names: np.ndarray, batch: bool, sparse_keys: Any,
                   sparse_types: Sequence[dtypes.DType], dense_keys: Any, dense_types: Sequence[dtypes.DType],
                   dense_shapes: Sequence[Any], missing_assumed_empty: np.ndarray) -> list:
    """Sparse indices, values, shapes, then dense values and lengths of the FeatureLists `messages`."""
    lists = [m.feature_list for m in messages]

    def name(i: int) -> str:
        return names[i].decode(errors="replace") if names.size else "<unknown>"

    def steps(key: str) -> tuple[list, np.ndarray, np.ndarray]:
        """Every example's steps flattened, the steps per example, and whether each example has the list."""
        per_example = [lists_[key].feature if key in lists_ else () for lists_ in lists]
        present = np.fromiter((key in lists_ for lists_ in lists), bool, len(lists))
        return list(itertools.chain.from_iterable(per_example)), np.fromiter(map(len, per_example), np.int64,
                                                                             len(lists)), present

    def mismatch(key: str, dtype: dtypes.DType, example_of: np.ndarray) -> Any:
        return lambda i, kind: (f"Name: {name(example_of[i])}, Feature list: {key}, Index: {i}.  Data types don't "
                                f"match. Expected type: {_TYPE_NAME[dtype]}")

    sparse_parts = []
    for raw_key, dtype in zip(np.ravel(sparse_keys), sparse_types):
        key = raw_key.decode()
        flat, nsteps, _ = steps(key)
        example_of = np.repeat(np.arange(len(lists)), nsteps)
        values, counts, _ = _gather(ctx, flat, dtype, mismatch(key, dtype, example_of))
        step_rows, step_pos = _positions(nsteps)
        value_step, value_pos = _positions(counts)
        width = int(counts.max()) if counts.size else 0
        max_steps = int(nsteps.max()) if nsteps.size else 0
        columns = [step_pos[value_step], value_pos]
        shape = [max_steps, width]
        if batch:
            columns.insert(0, step_rows[value_step])
            shape.insert(0, len(lists))
        sparse_parts.append([np.stack(columns, axis=1).astype(np.int64).reshape(-1, len(columns)), values,
                             np.array(shape, np.int64)])
    dense_values, lengths = [], []
    for raw_key, dtype, shape, assumed_empty in zip(np.ravel(dense_keys), dense_types, dense_shapes,
                                                    np.ravel(missing_assumed_empty)):
        key, shape = raw_key.decode(), tensor_shape.as_shape(shape)
        flat, nsteps, present = steps(key)
        example_of = np.repeat(np.arange(len(lists)), nsteps)
        values, counts, _ = _gather(ctx, flat, dtype, mismatch(key, dtype, example_of))
        size = shape.num_elements()
        # TF sizes the output by the most values one example has, then checks each example's steps in order.
        longest = int(np.bincount(example_of, counts, len(lists)).max(initial=0))
        if (size and longest % size) or (not size and longest):
            raise invalid_argument(ctx, f"Feature list '{key}' has an unexpected number of values.  Total values "
                                        f"size: {longest} is not consistent with output shape: "
                                        f"{_shape_text(_Shape([None]).concatenate(shape))}")
        missing = np.flatnonzero(~present) if not assumed_empty else np.zeros(0, np.int64)
        wrong = np.flatnonzero(counts != size)
        if missing.size and (not wrong.size or missing[0] < example_of[wrong[0]]):
            raise invalid_argument(ctx, f"Name: {name(missing[0])}, Feature list '{key}' is "
                                        "required but could not be found.  Did you mean to include it in "
                                        "feature_list_dense_missing_assumed_empty or feature_list_dense_defaults?")
        if wrong.size:
            step = wrong[0]
            raise invalid_argument(ctx, f"Name: {name(example_of[step])}, Key: {key}, Index: "
                                        f"{_positions(nsteps)[1][step]}.  Number of values != expected.  values "
                                        f"size: {counts[step]} but output shape: {_shape_text(shape)}")
        np_dtype = _np_dtype(dtype)
        pad = np.zeros((), np_dtype) if dtype != dtypes.string else b""
        out = _padded(values, nsteps * size, max(size, 1), pad, np_dtype) if size else \
            np.zeros((len(lists), int(nsteps.max(initial=0)) * 0), np_dtype)
        rows = out.shape[1] // size if size else int(nsteps.max(initial=0))
        out = out.reshape([len(lists), rows] + shape.as_list())
        dense_values.append(out if batch else out[0])
        lengths.append(nsteps if batch else nsteps[0])
    return ([p[0] for p in sparse_parts] + [p[1] for p in sparse_parts] + [p[2] for p in sparse_parts]
            + dense_values + lengths)


@ParseSequenceExampleV2.kernel("CPU")
def _parse_sequence_example_v2(ctx: OpKernelContext, serialized: Any, debug_name: Any, context_sparse_keys: Any,
                               context_dense_keys: Any, context_ragged_keys: Any, feature_list_sparse_keys: Any,
                               feature_list_dense_keys: Any, feature_list_ragged_keys: Any,
                               feature_list_dense_missing_assumed_empty: Any, *context_dense_defaults: Any,
                               context_sparse_types: Any, Tcontext_dense: Any, context_dense_shapes: Any,  # noqa: N803
                               feature_list_sparse_types: Any, feature_list_dense_types: Any,
                               feature_list_dense_shapes: Any) -> list:
    _check_serialized(ctx, serialized)
    if np.size(context_ragged_keys) or np.size(feature_list_ragged_keys):
        raise errors.UnimplementedError(ctx.node_def, None, "Ragged features are not supported")
    batch, names = serialized.ndim == 1, np.ravel(debug_name)
    if names.size and names.size != serialized.size:
        raise invalid_argument(ctx, "example_names must be empty or have the correct number of elements")
    messages = _decode_all(ctx, protos.SequenceExample, serialized.reshape(-1))
    context = _example_features(ctx, [m.context for m in messages], names, batch, context_sparse_keys,
                                context_sparse_types, context_dense_keys, Tcontext_dense,
                                context_dense_shapes, context_dense_defaults, context=True)
    feature_lists = _feature_lists(ctx, [m.feature_lists for m in messages], names, batch, feature_list_sparse_keys,
                                   feature_list_sparse_types, feature_list_dense_keys,
                                   feature_list_dense_types, feature_list_dense_shapes,
                                   feature_list_dense_missing_assumed_empty)
    return context + feature_lists


def _parse_sequence_example_raw(serialized: Any, debug_name: Any, context: _ParseParams, feature_list: _ParseParams,
                                name: str | None) -> tuple[dict, dict, dict]:
    if context.num_features + feature_list.num_features == 0:
        raise ValueError("Must provide at least one feature key.")
    with name_scope(name, "ParseSequenceExample", [serialized]):
        for key, value in feature_list.dense_defaults.items():
            if value is not None:
                raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
        serialized = convert_to_tensor(serialized, name="serialized")
        assumed_empty = [key in feature_list.dense_defaults for key in feature_list.dense_keys]
        n_cs, n_fs, n_fd = len(context.sparse_keys), len(feature_list.sparse_keys), len(feature_list.dense_keys)
        outputs = ParseSequenceExampleV2(
            serialized, [] if debug_name is None else debug_name, context.sparse_keys, context.dense_keys, [],
            feature_list.sparse_keys, feature_list.dense_keys, [], assumed_empty, context.dense_defaults_vec(),
            Ncontext_sparse=n_cs, Nfeature_list_sparse=n_fs, Nfeature_list_dense=n_fd,
            context_sparse_types=context.sparse_types, feature_list_dense_types=feature_list.dense_types,
            feature_list_sparse_types=feature_list.sparse_types, context_dense_shapes=context.dense_shapes,
            feature_list_dense_shapes=feature_list.dense_shapes, name=name)
        outputs = list(outputs)
        context_sparse = [SparseTensor(*outputs[i:3 * n_cs:n_cs]) for i in range(n_cs)]
        rest = outputs[3 * n_cs:]
        context_dense, rest = rest[:len(context.dense_keys)], rest[len(context.dense_keys):]
        list_sparse = [SparseTensor(*rest[i:3 * n_fs:n_fs]) for i in range(n_fs)]
        list_dense, lengths = rest[3 * n_fs:3 * n_fs + n_fd], rest[3 * n_fs + n_fd:]
        return (dict(zip(context.sparse_keys + context.dense_keys, context_sparse + context_dense)),
                dict(zip(feature_list.sparse_keys + feature_list.dense_keys, list_sparse + list_dense)),
                dict(zip(feature_list.dense_keys, lengths)))


_CONTEXT_FEATURES = (VarLenFeature, FixedLenFeature)
_SEQUENCE_FEATURES = (VarLenFeature, FixedLenSequenceFeature)


@tf_export("io.parse_sequence_example")
def parse_sequence_example(serialized: Any, context_features: Mapping[str, Any] | None = None,
                           sequence_features: Mapping[str, Any] | None = None, example_names: Any = None,
                           name: str | None = None) -> tuple[dict, dict, dict]:
    """A batch of SequenceExamples: context features, feature lists padded to the longest, and each dense
    feature list's lengths."""
    if not (context_features or sequence_features):
        raise ValueError("Both `context_features` and `sequence_features` argument are None, but at least one "
                         "should have values.")
    context = _ParseParams.from_features(context_features, _CONTEXT_FEATURES)
    feature_list = _ParseParams.from_features(sequence_features, _SEQUENCE_FEATURES)
    with name_scope(name, "ParseSequenceExample", [serialized, example_names]):
        return _parse_sequence_example_raw(serialized, example_names, context, feature_list, name)


@tf_export("io.parse_single_sequence_example", "parse_single_sequence_example")
def parse_single_sequence_example(serialized: Any, context_features: Mapping[str, Any] | None = None,
                                  sequence_features: Mapping[str, Any] | None = None, example_name: Any = None,
                                  name: str | None = None) -> tuple[dict, dict]:
    """One SequenceExample: its context features and its feature lists (steps first)."""
    if not (context_features or sequence_features):
        raise ValueError("Both context_features and sequence_features are None, but at least one should have "
                         "values.")
    context = _ParseParams.from_features(context_features, _CONTEXT_FEATURES)
    feature_list = _ParseParams.from_features(sequence_features, _SEQUENCE_FEATURES)
    with name_scope(name, "ParseSingleSequenceExample", [serialized, example_name]):
        with name_scope(name, "ParseSingleExample", [serialized, example_name]):
            serialized = _assert_scalar(convert_to_tensor(serialized, name="serialized"), "serialized")
        return _parse_sequence_example_raw(serialized, example_name, context, feature_list, name)[:2]


# -- SerializeTensor and ParseTensor -----------------------------------------------------------------

SerializeTensor = Op("SerializeTensor", inputs=["tensor: T"], outputs=["serialized: string"], attrs=["T: type"])


@SerializeTensor.shape
def _serialize_tensor_shape(ctx: InferenceContext) -> list[_Shape]:
    return [_Shape([])]


@SerializeTensor.kernel("CPU")
def _serialize_tensor(ctx: OpKernelContext, tensor: Any, T: dtypes.DType) -> Any:  # noqa: N803
    proto = tensor_proto.make_tensor_proto(tensor, dtype=T)
    return np.asarray(proto.SerializeToString(), dtype=object)


@tf_export("io.serialize_tensor", "serialize_tensor")
def serialize_tensor(tensor: Any, name: str | None = None) -> Tensor:
    """A tensor as the bytes of its TensorProto."""
    return SerializeTensor(tensor, name=name)


ParseTensor = Op("ParseTensor", inputs=["serialized: string"], outputs=["output: out_type"],
                 attrs=["out_type: type"])


@ParseTensor.shape
def _parse_tensor_shape(ctx: InferenceContext) -> list[_Shape]:
    return [tensor_shape.unknown_shape()]


@ParseTensor.kernel("CPU")
def _parse_tensor(ctx: OpKernelContext, serialized: Any, out_type: dtypes.DType) -> Any:
    if serialized.ndim != 0:
        raise invalid_argument(ctx, "Expected `serialized` to be a scalar, got shape: "
                                    f"{tensor_shape.shape_string(serialized.shape)}")
    data = serialized.item()
    try:
        proto = protos.TensorProto.FromString(data)
    except DecodeError:
        raise invalid_argument(ctx, "Could not parse `serialized` as TensorProto, base64: "
                                    f"{base64.b64encode(data).decode()}") from None
    try:  # TF's Tensor::FromProto: a known type, and content that fills the shape exactly
        parsed = dtypes.as_dtype(proto.dtype)
        value = tensor_proto.make_ndarray(proto)
    except (TypeError, ValueError):
        raise invalid_argument(ctx, "Cannot parse tensor from proto: "
                                    f"{text_format.MessageToString(proto)}") from None
    if parsed != out_type:
        raise invalid_argument(ctx, f"Type mismatch between parsed tensor ({_dtype_text(parsed)}) and dtype "
                                    f"({_dtype_text(out_type)})")
    return value


def _dtype_text(dtype: dtypes.DType) -> str:
    return {"float32": "float", "float64": "double"}.get(dtype.name, dtype.name)


@tf_export("io.parse_tensor", "parse_tensor")
def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> Tensor:
    """The tensor whose TensorProto bytes `serialized` holds; `out_type` must be its dtype."""
    return ParseTensor(serialized, out_type=out_type, name=name)


# -- DecodeCompressed --------------------------------------------------------------------------------

DecodeCompressed = Op("DecodeCompressed", inputs=["bytes: string"], outputs=["output: string"],
                      attrs=["compression_type: string = ''"])
DecodeCompressed.shape(unary_shape)

_WBITS = {"ZLIB": zlib.MAX_WBITS, "GZIP": 16 + zlib.MAX_WBITS}


@DecodeCompressed.kernel("CPU")
def _decode_compressed(ctx: OpKernelContext, bytes: Any, compression_type: Any) -> Any:  # noqa: A002 - TF's name
    kind = compression_type if isinstance(compression_type, str) else compression_type.decode()
    if kind == "":
        return bytes.copy()
    if kind == "ZSTD":  # TF 2.21 reads ZSTD; no Zstandard codec is among this project's dependencies
        raise errors.UnimplementedError(ctx.node_def, None, "ZSTD decompression is not available in tensorweave")
    if kind not in _WBITS:
        raise invalid_argument(ctx, "Only ZLIB, ZSTD, GZIP or NONE are supported compressions")

    def inflate(data: Any) -> Any:
        try:
            return zlib.decompress(data, _WBITS[kind])
        except zlib.error as e:
            code = re.search(r"Error (-?\d+)", str(e))
            raise errors.DataLossError(ctx.node_def, None, f"inflate() failed with error "
                                                           f"{code.group(1) if code else -3}: "
                                                           f"{str(e).split(': ', 1)[-1]}") from None

    return np.asarray(np.frompyfunc(inflate, 1, 1)(bytes), dtype=object).reshape(np.shape(bytes))


@tf_export("io.decode_compressed", "decode_compressed")
def decode_compressed(bytes: Any, compression_type: str = "", name: str | None = None) -> Tensor:  # noqa: A002
    """Each string decompressed (ZLIB or GZIP; "" leaves it as it is)."""
    return DecodeCompressed(bytes, compression_type=compression_type, name=name)
