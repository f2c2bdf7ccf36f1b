"""`tf.RaggedTensor`: a tensor whose rows have different lengths, as a composite of graph tensors — the flat
`values` and one int64 (or int32) `row_splits` vector per ragged dimension — plus `tf.ragged.RaggedTensorValue`,
the form a session fetches one as and accepts as its feed, the ragged ops (RaggedRange, RaggedTensorToTensor,
RaggedTensorToSparse) and the `tf.ragged` functions.

Invariant: a RaggedTensor owns no op of its own; row `i` of it is `values[row_splits[i]:row_splits[i + 1]]`, where
`values` is a Tensor or again a RaggedTensor, so `nested_row_splits` lists the splits from outermost to innermost.
Everything else (row lengths, value row ids, slices, conversions) is built from plain ops, as TF builds it.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, nest, tensor_shape
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    _run_using_default_session,
    convert_to_tensor,
    name_scope,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.framework.tensor_shape import dimension_value
from tensorweave.framework.tensor_util import constant_value
from tensorweave.framework.type_spec import TensorSpec, TypeSpec, register_type_spec_from_value_converter
from tensorweave.ops import check_ops, control_flow_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant, placeholder
from tensorweave.ops.elementwise_ops import equal, logical_not, maximum, minimum, not_equal
from tensorweave.ops.indexing_ops import boolean_mask, gather, unsorted_segment_sum
from tensorweave.ops.indexing_ops import where as where_
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.manipulation_ops import concat, sequence_mask, stack, transpose
from tensorweave.ops.misc_array_ops import argsort, repeat
from tensorweave.ops.reduction_ops import cumsum, reduce_all, reduce_max, reduce_prod, reduce_sum
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_ops import reshape, shape, size
from tensorweave.platform.tf_export import tf_export

_SPLITS_DTYPES = (dtypes.int32, dtypes.int64)


def _unnest(ragged: Any) -> tuple[Any, tuple]:
    """A ragged tensor's (or value's) innermost values and the row_splits of each ragged level, outermost
    first: the levels are nested objects of the same class."""
    cls, splits = type(ragged), []
    while isinstance(ragged, cls):
        splits.append(ragged.row_splits)
        ragged = ragged.values
    return ragged, tuple(splits)


# -- RaggedTensorValue ------------------------------------------------------------------------------------------

@tf_export("ragged.RaggedTensorValue")
class RaggedTensorValue:
    """The NumPy value of a RaggedTensor: `values` (an array or again a RaggedTensorValue) and `row_splits`."""

    def __init__(self, values: Any, row_splits: Any) -> None:
        if not (isinstance(row_splits, np.ndarray) and row_splits.dtype in (np.int32, np.int64)
                and row_splits.ndim == 1):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        self._values, self._row_splits = values, row_splits

    values = property(lambda self: self._values, doc="The concatenated rows.")
    row_splits = property(lambda self: self._row_splits, doc="Where each row starts and ends in `values`.")

    @property
    def flat_values(self) -> np.ndarray:
        return _unnest(self)[0]

    @property
    def nested_row_splits(self) -> tuple:
        return _unnest(self)[1]

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> np.dtype:
        return self._values.dtype

    @property
    def shape(self) -> tuple:
        """(nrows, None, ...) then the inner dimensions of the flat values."""
        return (self._row_splits.shape[0] - 1, None) + tuple(self._values.shape[1:])

    def to_list(self) -> list:
        """The rows as nested Python lists."""
        values = self._values.to_list() if isinstance(self._values, RaggedTensorValue) else self._values.tolist()
        return [values[lo:hi] for lo, hi in zip(self._row_splits[:-1].tolist(), self._row_splits[1:].tolist())]

    def __str__(self) -> str:
        return f"<tf.RaggedTensorValue {self.to_list()}>"

    def __repr__(self) -> str:
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"


# -- the ragged ops ---------------------------------------------------------------------------------------------

def _value_coords(nested_splits: Sequence[np.ndarray]) -> list[np.ndarray]:
    """For each flat value, its coordinate along every ragged dimension (row, then position in each level)."""
    rowids = [np.repeat(np.arange(len(s) - 1), np.diff(s)) for s in nested_splits]
    coords, parent = [], None
    for splits, ids in zip(reversed(nested_splits), reversed(rowids)):
        index = np.arange(len(ids)) if parent is None else parent
        coords.insert(0, index - splits[ids[index]])
        parent = ids[index]
    coords.insert(0, parent)
    return coords


def _check_splits(ctx: OpKernelContext, splits: Sequence[np.ndarray], nvals: int) -> None:
    for i, s in enumerate(splits):
        inner = len(splits[i + 1]) - 1 if i + 1 < len(splits) else nvals
        if len(s) == 0 or s[0] != 0 or np.any(np.diff(s) < 0) or s[-1] != inner:
            raise invalid_argument(ctx, "Invalid row_splits: row_splits must start at 0, be non-decreasing and end at "
                                   "the number of values")


RaggedRange = Op("RaggedRange", inputs=["starts: T", "limits: T", "deltas: T"],
                 outputs=["rt_nested_splits: Tsplits", "rt_dense_values: T"],
                 attrs=["T: {bfloat16, float, double, int32, int64} = DT_INT32",
                        "Tsplits: {int32, int64} = DT_INT64"])
NotDifferentiable("RaggedRange")


@RaggedRange.shape
def _ragged_range_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    rows = tensor_shape.Dimension(1 if all(ctx.input_shape(i).ndims == 0 for i in builtins.range(3)) else None)
    for i in builtins.range(3):
        s = ctx.input_shape(i)
        if s.ndims is not None and s.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {s.ndims}")
        if s.ndims == 1:
            rows = s.dims[0] if rows.value is None else rows
    splits = tensor_shape.TensorShape([None if rows.value is None else rows.value + 1])
    return [splits, tensor_shape.TensorShape([None])]


@RaggedRange.kernel("CPU")
def _ragged_range(ctx: OpKernelContext, starts: Any, limits: Any, deltas: Any, T: dtypes.DType,  # noqa: N803
                  Tsplits: dtypes.DType) -> list:  # noqa: N803
    """Row i is range(starts[i], limits[i], deltas[i]); scalar arguments broadcast over the rows."""
    ranks = [np.ndim(a) for a in (starts, limits, deltas)]
    if builtins.max(ranks) > 1:
        raise invalid_argument(ctx, "starts must be a scalar or vector")
    sizes = {np.size(a) for a, r in zip((starts, limits, deltas), ranks) if r == 1}
    if len(sizes) > 1:
        raise invalid_argument(ctx, "starts, limits, and deltas must have the same shape")
    nrows = sizes.pop() if sizes else 1
    starts, limits, deltas = (np.broadcast_to(a, (nrows,)) for a in (starts, limits, deltas))
    if np.any(deltas == 0):
        raise invalid_argument(ctx, "Requires delta != 0")
    span = (limits - starts).astype(np.float64) / deltas
    lengths = np.maximum(np.ceil(span), 0).astype(np.int64)
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(Tsplits.as_numpy_dtype)
    rowids = np.repeat(np.arange(nrows), lengths)
    positions = np.arange(splits[-1]) - splits[rowids]
    values = (starts[rowids] + positions * deltas[rowids]).astype(T.as_numpy_dtype)
    return [splits, values]


RaggedTensorToTensor = Op("RaggedTensorToTensor",
                          inputs=["shape: Tshape", "values: T", "default_value: T",
                                  "row_partition_tensors: num_row_partition_tensors * Tindex"],
                          outputs=["result: T"],
                          attrs=["T: type", "Tindex: {int64, int32}", "Tshape: {int64, int32}",
                                 "num_row_partition_tensors: int >= 1", "row_partition_types: list(string)"])


@RaggedTensorToTensor.shape
def _ragged_tensor_to_tensor_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    values = ctx.input_shape(1)
    rank = None if values.ndims is None else values.ndims + ctx.attr("num_row_partition_tensors")
    requested = ctx.input_shape(0)
    if requested.ndims == 0 or rank is None:
        return [tensor_shape.unknown_shape(rank)]
    out = ctx.input_as_shape(0)
    if out.ndims is None:
        out = tensor_shape.unknown_shape(rank)
    inner = tensor_shape.TensorShape([None] * (rank - values.ndims + 1)).concatenate(values[1:])
    return [out.merge_with(inner)]


@RaggedTensorToTensor.kernel("CPU")
def _ragged_tensor_to_tensor(ctx: OpKernelContext, shape: Any, values: Any, default_value: Any,  # noqa: A002
                             *row_partition_tensors: Any, T: dtypes.DType, Tindex: dtypes.DType,  # noqa: N803
                             Tshape: dtypes.DType, num_row_partition_tensors: int,  # noqa: N803
                             row_partition_types: list) -> Any:
    """The padded dense tensor: each value scattered to its coordinates, rows beyond `shape` dropped."""
    types = [t.decode() if isinstance(t, bytes) else t for t in row_partition_types]
    if types != ["ROW_SPLITS"] * num_row_partition_tensors:
        raise invalid_argument(ctx, f"Unsupported row_partition_types: {types}")
    splits = [np.asarray(s, np.int64) for s in row_partition_tensors]
    _check_splits(ctx, splits, values.shape[0])
    coords = _value_coords(splits)
    bounding = [len(splits[0]) - 1] + [int(np.diff(s).max(initial=0)) for s in splits] + list(values.shape[1:])
    requested = np.asarray(shape)
    if requested.ndim == 0:
        out_shape = bounding
    else:
        if requested.size != len(bounding):
            raise invalid_argument(ctx, f"rt_input.shape and shape={requested.tolist()} are incompatible: rt_input.rank = "
                                   f"{len(bounding)} but shape.rank = {requested.size}")
        out_shape = [b if r < 0 else int(r) for b, r in zip(bounding, requested.tolist())]
    inner_out = out_shape[len(splits) + 1:]
    default = np.broadcast_to(np.asarray(default_value, values.dtype), inner_out)
    result = np.empty(out_shape, values.dtype)
    result[...] = default
    keep = np.ones(values.shape[0], bool)
    for c, n in zip(coords, out_shape):
        keep &= c < n
    inner = tuple(builtins.slice(0, n) for n in inner_out)
    result[tuple(c[keep] for c in coords)] = values[keep][(builtins.slice(None),) + inner]
    return result


@RaggedTensorToTensor.gradient
def _ragged_tensor_to_tensor_grad(op: Operation, grad: Tensor) -> list:
    """Each value's gradient is the output gradient at its place (zero where `shape` cut it off); the default
    value's is what reaches the padding. The places come from the op itself, run on the values' positions."""
    shape_in, values, default_value = op.inputs[0], op.inputs[1], op.inputs[2]
    partitions = list(op.inputs[3:])
    nvals = shape(values, out_type=dtypes.int64)[0]
    outer = shape(op.outputs[0], out_type=shape_in.dtype)[:len(partitions) + 1]
    places = RaggedTensorToTensor(outer, tf_range(nvals), constant(-1, dtypes.int64), partitions,
                                  row_partition_types=op.get_attr("row_partition_types"))
    flat_grad = reshape(grad, concat([[-1], shape(values)[1:]], 0))
    values_grad = unsorted_segment_sum(flat_grad, reshape(places, [-1]), nvals)
    padding_grad = reduce_sum(flat_grad, 0) - reduce_sum(values_grad, 0)
    if default_value.shape.ndims == 0:
        padding_grad = reduce_sum(padding_grad)
    return [None, values_grad, padding_grad] + [None] * len(partitions)


RaggedTensorToSparse = Op("RaggedTensorToSparse", inputs=["rt_nested_splits: RAGGED_RANK * Tsplits",
                                                          "rt_dense_values: T"],
                          outputs=["sparse_indices: int64", "sparse_values: T", "sparse_dense_shape: int64"],
                          attrs=["RAGGED_RANK: int >= 1", "T: type", "Tsplits: {int32, int64} = DT_INT64"])
NotDifferentiable("RaggedTensorToSparse")


@RaggedTensorToSparse.shape
def _ragged_tensor_to_sparse_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    values = ctx.input_shape(ctx.num_inputs - 1)
    rank = None if values.ndims is None else values.ndims + ctx.num_inputs - 1
    return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]),
            tensor_shape.TensorShape([rank])]


@RaggedTensorToSparse.kernel("CPU")
def _ragged_tensor_to_sparse(ctx: OpKernelContext, *inputs: Any, RAGGED_RANK: int, T: dtypes.DType,  # noqa: N803
                             Tsplits: dtypes.DType) -> list:  # noqa: N803
    """The coordinates of every value, the inner dense dimensions enumerated in row-major order."""
    splits, values = [np.asarray(s, np.int64) for s in inputs[:-1]], inputs[-1]
    _check_splits(ctx, splits, values.shape[0])
    coords = np.stack(_value_coords(splits), axis=1) if values.shape[0] else np.zeros((0, len(splits) + 1), np.int64)
    inner = values.shape[1:]
    inner_idx = np.indices(inner).reshape(len(inner), int(np.prod(inner))).T
    per_value = inner_idx.shape[0]
    indices = np.concatenate([np.repeat(coords, per_value, axis=0), np.tile(inner_idx, (coords.shape[0], 1))], axis=1)
    dense_shape = [len(splits[0]) - 1] + [int(np.diff(s).max(initial=0)) for s in splits] + list(inner)
    return [indices.astype(np.int64), values.reshape(-1), np.asarray(dense_shape, np.int64)]


# -- RaggedTensorToVariant, RaggedTensorFromVariant ------------------------------------------------------------
# tf.data's form of a ragged value: one variant holding its flat values and row splits (a scalar), or, of a batch,
# a vector of one such variant per row. At run time a variant holds the list [flat values, *splits].

RaggedTensorToVariant = Op("RaggedTensorToVariant", inputs=["rt_nested_splits: RAGGED_RANK * Tsplits",
                                                            "rt_dense_values: Tvalues"],
                           outputs=["encoded_ragged: variant"],
                           attrs=["RAGGED_RANK: int >= 0", "Tvalues: type", "Tsplits: {int32, int64} = DT_INT64",
                                  "batched_input: bool"])
RaggedTensorFromVariant = Op("RaggedTensorFromVariant", inputs=["encoded_ragged: variant"],
                             outputs=["output_nested_splits: output_ragged_rank * Tsplits",
                                      "output_dense_values: Tvalues"],
                             attrs=["input_ragged_rank: int >= -1", "output_ragged_rank: int >= 0", "Tvalues: type",
                                    "Tsplits: {int32, int64} = DT_INT64"])
NotDifferentiable("RaggedTensorToVariant")
NotDifferentiable("RaggedTensorFromVariant")


@RaggedTensorToVariant.shape
def _ragged_tensor_to_variant_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    if not ctx.attr("batched_input"):
        return [tensor_shape.TensorShape([])]
    if ctx.attr("RAGGED_RANK") == 0:
        values = ctx.input_shape(ctx.num_inputs - 1)
        return [tensor_shape.TensorShape([values[0] if values.ndims else None])]
    splits = ctx.input_shape(0)
    rows = dimension_value(splits[0]) if splits.ndims else None
    return [tensor_shape.TensorShape([None if rows is None else rows - 1])]


@RaggedTensorFromVariant.shape
def _ragged_tensor_from_variant_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([None])] * ctx.attr("output_ragged_rank") + [tensor_shape.unknown_shape()]


def _ragged_variant(components: list[Any]) -> np.ndarray:
    variant = np.empty((), dtype=object)
    variant[()] = list(components)
    return variant


def ragged_rows(values: Any, splits: list[Any]) -> list[list[Any]]:
    """Each row of a ragged value as its own flat values and (rebased) row splits."""
    rows = []
    for i in builtins.range(len(splits[0]) - 1):
        start, stop = int(splits[0][i]), int(splits[0][i + 1])
        inner = []
        for level in splits[1:]:
            segment = np.asarray(level[start:stop + 1])
            inner.append(segment - segment[0])
            start, stop = int(segment[0]), int(segment[-1])
        rows.append([values[start:stop], *inner])
    return rows


@RaggedTensorToVariant.kernel("CPU")
def _ragged_tensor_to_variant(ctx: OpKernelContext, *inputs: Any, RAGGED_RANK: int,  # noqa: N803
                              batched_input: bool) -> np.ndarray:
    splits, values = [np.asarray(s) for s in inputs[:-1]], np.asarray(inputs[-1])
    if not batched_input:
        return _ragged_variant([values, *splits])
    rows = [[row] for row in values] if RAGGED_RANK == 0 else ragged_rows(values, splits)
    encoded = np.empty(len(rows), dtype=object)
    for i, row in enumerate(rows):
        encoded[i] = list(row)
    return encoded


@RaggedTensorFromVariant.kernel("CPU")
def _ragged_tensor_from_variant(ctx: OpKernelContext, encoded_ragged: Any, output_ragged_rank: int,
                                Tvalues: dtypes.DType) -> list:  # noqa: N803
    encoded = np.asarray(encoded_ragged, dtype=object)
    if encoded.ndim != 0:
        raise invalid_argument(ctx, f"Expected a scalar encoded ragged tensor (tensorweave decodes one), got shape "
                                    f"{tensor_shape.shape_string(encoded.shape)}")
    values, *splits = encoded[()]
    if len(splits) != output_ragged_rank:
        raise invalid_argument(ctx, f"Encoded input RaggedTensorVariant has ragged_rank={len(splits)}.  Expected "
                                    f"ragged_rank={output_ragged_rank}.")
    return [*splits, np.asarray(values).astype(Tvalues.as_numpy_dtype, copy=False)]


# -- RaggedTensor -----------------------------------------------------------------------------------------------

def _splits_tensor(value: Any, dtype: dtypes.DType, name: str, rank: int = 1) -> Tensor:
    """A 1-D (or `rank`-D) int32/int64 partition tensor; lists become `dtype`."""
    if isinstance(value, Tensor):
        if value.dtype not in _SPLITS_DTYPES:
            raise ValueError(f"{name} must have dtype int32 or int64")
    else:
        value = convert_to_tensor(value, dtype=dtype, name=name)
    value.shape.with_rank(rank)
    return value


def _values_tensor(values: Any) -> Any:
    return values if isinstance(values, RaggedTensor) else convert_to_tensor(values, name="values")


@tf_export("RaggedTensor")
class RaggedTensor:
    """Rows of different lengths: row `i` is `values[row_splits[i]:row_splits[i + 1]]`."""

    is_tensor_like = True  # tf.is_tensor says yes, as TF's does for its composite tensors

    def __init__(self, values: Any, row_splits: Tensor, internal: bool = False,
                 static_row_length: int | None = None) -> None:
        """`static_row_length`: the length every row is known to have while building (a dense dimension read
        as a ragged one keeps its size in `shape`)."""
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods instead "
                             "(e.g., RaggedTensor.from_row_lengths())")
        self._values, self._row_splits, self._static_row_length = values, row_splits, static_row_length
        self._uniform_row_length: Tensor | None = None

    # factories ---------------------------------------------------------------------------------------------

    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Rows delimited by `row_splits` (which starts at 0 and ends at the number of values)."""
        with name_scope(name, "RaggedFromRowSplits", [values, row_splits]):
            values = _values_tensor(values)
            row_splits = _splits_tensor(row_splits, dtypes.int64, "row_splits")
            if validate:
                nvals = values.nrows(out_type=row_splits.dtype) if isinstance(values, RaggedTensor) else \
                    shape(values, out_type=row_splits.dtype)[0]
                msg = "Arguments to from_row_splits do not form a valid RaggedTensor:"
                checks = [check_ops.assert_equal(row_splits[:1], cast(0, row_splits.dtype), message=msg + "zero"),
                          check_ops.assert_non_negative(row_splits[1:] - row_splits[:-1],
                                                        message=msg + "monotonic"),
                          check_ops.assert_equal(row_splits[-1:], nvals, message=msg + "nvals")]
                row_splits = control_flow_ops.with_dependencies(checks, row_splits)
            return cls(values, row_splits, internal=True)

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: str | None = None,
                         validate: bool = True) -> RaggedTensor:
        """Rows of the given lengths, taken from `values` in order."""
        with name_scope(name, "RaggedFromRowLengths", [values, row_lengths]):
            row_lengths = _splits_tensor(row_lengths, dtypes.int64, "row_lengths")
            splits = concat([constant([0], row_lengths.dtype), cumsum(row_lengths)], 0)
            return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: Any = None, name: str | None = None,
                          validate: bool = True) -> RaggedTensor:
        """Value `j` in row `value_rowids[j]` (sorted); `nrows` defaults to the last row id plus one."""
        with name_scope(name, "RaggedFromValueRowIds", [values, value_rowids, nrows]):
            value_rowids = _splits_tensor(value_rowids, dtypes.int64, "value_rowids")
            splits = segment_ids_to_row_splits(value_rowids, nrows, out_type=value_rowids.dtype)
            return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_row_starts(cls, values: Any, row_starts: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Rows starting at `row_starts`, the last one running to the end of `values`."""
        with name_scope(name, "RaggedFromRowStarts", [values, row_starts]):
            values = _values_tensor(values)
            row_starts = _splits_tensor(row_starts, dtypes.int64, "row_starts")
            nvals = _nrows(values, row_starts.dtype)
            return cls.from_row_splits(values, concat([row_starts, reshape(nvals, [1])], 0), validate=validate)

    @classmethod
    def from_row_limits(cls, values: Any, row_limits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Rows ending at `row_limits`, the first one starting at 0."""
        with name_scope(name, "RaggedFromRowLimits", [values, row_limits]):
            row_limits = _splits_tensor(row_limits, dtypes.int64, "row_limits")
            splits = concat([constant([0], row_limits.dtype), row_limits], 0)
            return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values: Any, nested_row_splits: Sequence[Any], name: str | None = None,
                               validate: bool = True) -> RaggedTensor:
        """One ragged dimension per splits vector, outermost first."""
        if isinstance(nested_row_splits, Tensor):
            raise TypeError("nested_row_splits must be a list of Tensors")
        with name_scope(name, "RaggedFromNestedRowSplits", [flat_values] + list(nested_row_splits)):
            result = flat_values
            for splits in reversed(nested_row_splits):
                result = cls.from_row_splits(result, splits, validate=validate)
            return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Sequence[Any], name: str | None = None,
                                validate: bool = True) -> RaggedTensor:
        """One ragged dimension per row-lengths vector, outermost first."""
        with name_scope(name, "RaggedFromNestedRowlengths", [flat_values] + list(nested_row_lengths)):
            result = flat_values
            for lengths in reversed(nested_row_lengths):
                result = cls.from_row_lengths(result, lengths, validate=validate)
            return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values: Any, nested_value_rowids: Sequence[Any],
                                 nested_nrows: Sequence[Any] | None = None, name: str | None = None,
                                 validate: bool = True) -> RaggedTensor:
        """One ragged dimension per value-rowids vector (with its row count, if given), outermost first."""
        if isinstance(nested_value_rowids, Tensor):
            raise TypeError("nested_value_rowids must be a list of Tensors")
        if nested_nrows is None:
            nested_nrows = [None] * len(nested_value_rowids)
        elif isinstance(nested_nrows, Tensor) or len(nested_nrows) != len(nested_value_rowids):
            raise ValueError("Argument `nested_nrows` must have the same length as argument `nested_value_rowids`")
        with name_scope(name, "RaggedFromNestedValueRowIds", [flat_values] + list(nested_value_rowids)):
            result = flat_values
            for rowids, nrows in reversed(list(zip(nested_value_rowids, nested_nrows))):
                result = cls.from_value_rowids(result, rowids, nrows, validate=validate)
            return result

    @classmethod
    def from_uniform_row_length(cls, values: Any, uniform_row_length: Any, nrows: Any = None,
                                validate: bool = True, name: str | None = None) -> RaggedTensor:
        """Rows of one length each, cut from `values` in order (a dense dimension seen as a ragged one)."""
        with name_scope(name, "RaggedFromUniformRowLength", [values, uniform_row_length, nrows]):
            values = _values_tensor(values)
            length = _splits_tensor(uniform_row_length, dtypes.int64, "UniformRowLength", rank=0)
            dtype = length.dtype
            nvals = _nrows(values, dtype)
            static_length, static_nvals = constant_value(length), dimension_value(values.shape[0])
            if nrows is None:
                static_nrows = None if static_length is None or static_nvals is None else \
                    (static_nvals // static_length if static_length else 0)
                nrows = control_flow_ops.cond(equal(length, 0), lambda: constant(0, dtype),
                                              lambda: nvals // maximum(length, 1))
            else:
                static_nrows = constant_value(convert_to_tensor(nrows))
            nrows = cast(nrows, dtype)
            splits = tf_range(nrows + 1, dtype=dtype) * length
            splits.set_shape([None if static_nrows is None else int(static_nrows) + 1])
            if validate:
                check = check_ops.assert_equal(nrows * length, nvals, message="uniform_row_length must divide "
                                               "nvals")
                splits = control_flow_ops.with_dependencies([check], splits)
            result = cls(values, splits, internal=True,
                         static_row_length=None if static_length is None else int(static_length))
            result._uniform_row_length = length
            return result

    @classmethod
    def from_tensor(cls, tensor: Any, lengths: Any = None, padding: Any = None, ragged_rank: int = 1,
                    name: str | None = None, row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:
        """The rows of a dense tensor, cut at `lengths` or before their trailing `padding` (not both)."""
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        if not isinstance(ragged_rank, int) or ragged_rank <= 0:
            raise ValueError(f"ragged_rank must be a positive int; got {ragged_rank!r}")
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        with name_scope(name, "RaggedFromTensor", [tensor, lengths, padding]):
            tensor = convert_to_tensor(tensor, name="tensor")
            if tensor.shape.ndims is not None and tensor.shape.ndims <= ragged_rank:
                raise ValueError(f"ragged_rank must be smaller than rank(tensor) ({tensor.shape.ndims})")
            dims = shape(tensor, out_type=row_splits_dtype)
            if ragged_rank > 1:
                # The outer dimensions are uniform: the lengths or padding cut the innermost ragged one.
                merged = reshape(tensor, concat([[-1], shape(tensor)[2:]], 0))
                inner = cls.from_tensor(merged, lengths, padding, ragged_rank - 1, row_splits_dtype=row_splits_dtype)
                return cls.from_uniform_row_length(inner, dims[1], nrows=dims[0], validate=False)
            if padding is not None:
                padding = convert_to_tensor(padding, dtype=tensor.dtype, name="padding")
                inner_axes = list(builtins.range(2, tensor.shape.ndims))
                is_padding = reduce_all(equal(tensor, padding), axis=inner_axes) if inner_axes else \
                    equal(tensor, padding)
                positions = tf_range(1, dims[1] + 1, dtype=row_splits_dtype)
                lengths = reduce_max(cast(logical_not(is_padding), row_splits_dtype) * positions, axis=1)
            if lengths is None:
                values = reshape(tensor, concat([[-1], shape(tensor)[2:]], 0))
                return cls.from_uniform_row_length(values, dims[1], nrows=dims[0], validate=False)
            lengths = cast(convert_to_tensor(lengths, name="lengths"), row_splits_dtype)
            values = boolean_mask(tensor, sequence_mask(lengths, dims[1]))
            return cls.from_row_lengths(values, lengths, validate=False)

    @classmethod
    def from_sparse(cls, st_input: SparseTensor, name: str | None = None,
                    row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:
        """The rows of a 2-D SparseTensor in canonical order, each holding its explicit values."""
        if not isinstance(st_input, SparseTensor):
            raise TypeError(f"Expected SparseTensor, got {type(st_input).__name__}")
        if st_input.shape.ndims is not None and st_input.shape.ndims != 2:
            raise ValueError(f"rank(st_input) must be 2. Received: {st_input.shape.ndims}")
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        with name_scope(name, "RaggedFromSparse", [st_input]):
            rowids = cast(st_input.indices[:, 0], row_splits_dtype)
            nrows = cast(st_input.dense_shape[0], row_splits_dtype)
            return cls.from_value_rowids(st_input.values, rowids, nrows, validate=False)

    # structure ---------------------------------------------------------------------------------------------

    @property
    def values(self) -> Any:
        """The concatenation of the rows (a Tensor, or a RaggedTensor when ragged_rank > 1)."""
        return self._values

    @property
    def row_splits(self) -> Tensor:
        """Where each row starts and ends in `values`."""
        return self._row_splits

    @property
    def flat_values(self) -> Tensor:
        """The innermost values, every ragged dimension removed."""
        return _unnest(self)[0]

    @property
    def nested_row_splits(self) -> tuple:
        """The row_splits of every ragged dimension, outermost first."""
        return _unnest(self)[1]

    @property
    def ragged_rank(self) -> int:
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> dtypes.DType:
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return self._row_splits.dtype

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """[nrows, None, ...] then the values' inner dimensions; nrows is known when the splits' size is."""
        nsplits = self._row_splits.shape.dims[0].value
        values = self._values.shape
        inner = values[1:] if values.ndims is not None else tensor_shape.unknown_shape()
        return tensor_shape.TensorShape([None if nsplits is None else nsplits - 1,
                                         self._static_row_length]).concatenate(inner)

    def get_shape(self) -> tensor_shape.TensorShape:
        return self.shape

    def _shape_invariant_to_type_spec(self, shape: tensor_shape.TensorShape) -> RaggedTensorSpec:
        """The spec of this tensor's values in a while loop whose shape invariant for it is `shape`."""
        return RaggedTensorSpec(shape, self.dtype, self.ragged_rank, self.row_splits_dtype)

    @property
    def op(self) -> Operation:
        return self.flat_values.op

    @property
    def graph(self) -> Graph:
        return self._row_splits.graph

    def consumers(self) -> list[Operation]:
        """The ops reading any component tensor, each once, in creation order."""
        parts = (self.flat_values,) + self.nested_row_splits
        return sorted({op for t in parts for op in t.consumers()}, key=lambda op: op._id)

    def nrows(self, out_type: Any = None, name: str | None = None) -> Tensor:
        """The number of rows, a scalar of `out_type` (default the splits' dtype)."""
        with name_scope(name, "RaggedNRows", [self]):
            return _nrows(self, dtypes.as_dtype(out_type) if out_type else self.row_splits_dtype)

    def row_starts(self, name: str | None = None) -> Tensor:
        with name_scope(name, "RaggedRowStarts", [self]):
            return self._row_splits[:-1]

    def row_limits(self, name: str | None = None) -> Tensor:
        with name_scope(name, "RaggedRowLimits", [self]):
            return self._row_splits[1:]

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        """The length of each row (axis 1), or of each row of the values (axis 2, ...), ragged as they are."""
        if axis == 0:
            return self.nrows()
        with name_scope(name, "RaggedRowLengths", [self]):
            if axis == 1:
                return self._row_splits[1:] - self._row_splits[:-1]
            if isinstance(self._values, RaggedTensor):
                return self.with_values(self._values.row_lengths(axis - 1))
            raise ValueError(f"axis={axis} out of bounds: expected 0 <= axis < rank")

    def nested_row_lengths(self, name: str | None = None) -> tuple:
        with name_scope(name, "RaggedNestedRowLengths", [self]):
            rt, lengths = self, []
            while isinstance(rt, RaggedTensor):
                lengths.append(rt.row_lengths())
                rt = rt.values
            return tuple(lengths)

    def value_rowids(self, name: str | None = None) -> Tensor:
        """The row of each value."""
        with name_scope(name, "RaggedValueRowIds", [self]):
            return row_splits_to_segment_ids(self._row_splits)

    def with_values(self, new_values: Any) -> RaggedTensor:
        """The same rows over other values (as many)."""
        return RaggedTensor(_values_tensor(new_values), self._row_splits, internal=True)

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        """The same ragged structure over other flat values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    def with_row_splits_dtype(self, dtype: Any) -> RaggedTensor:
        """The same ragged tensor with every row partition cast to `dtype` (int32 or int64)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype not in _SPLITS_DTYPES:
            raise ValueError(f"dtype must be int32 or int64, but got {dtype}")
        values = self._values.with_row_splits_dtype(dtype) if isinstance(self._values, RaggedTensor) \
            else self._values
        splits = self._row_splits if self._row_splits.dtype == dtype else cast(self._row_splits, dtype)
        return RaggedTensor(values, splits, internal=True, static_row_length=self._static_row_length)

    def nested_value_rowids(self, name: str | None = None) -> tuple:
        """The value_rowids of every ragged dimension, outermost first."""
        with name_scope(name, "RaggedNestedValueRowIds", [self]):
            rt, rowids = self, []
            while isinstance(rt, RaggedTensor):
                rowids.append(rt.value_rowids())
                rt = rt.values
            return tuple(rowids)

    @property
    def uniform_row_length(self) -> Tensor | None:
        """The length of every row when this tensor was built with one (from_uniform_row_length), else None."""
        return self._uniform_row_length

    def bounding_shape(self, axis: Any = None, name: str | None = None, out_type: Any = None) -> Tensor:
        """The smallest dense shape holding every row: nrows, the longest row of each ragged dimension, then
        the flat values' inner dimensions; `axis` picks some of them."""
        out_type = dtypes.as_dtype(out_type) if out_type else self.row_splits_dtype
        with name_scope(name, "RaggedBoundingBox", [self, axis]):
            splits = self.nested_row_splits
            longest = [reduce_max(concat([constant([0], s.dtype), s[1:] - s[:-1]], 0)) for s in splits]
            dims = [self.nrows()] + longest
            bounds = concat([cast(stack(dims), out_type), shape(self.flat_values, out_type=out_type)[1:]], 0)
            return bounds if axis is None else gather(bounds, axis)

    def merge_dims(self, outer_axis: int, inner_axis: int) -> Any:
        """Dimensions outer_axis..inner_axis merged into one: a Tensor once every ragged dimension is merged."""
        rank = self.shape.ndims
        if rank is None:
            raise ValueError("merge_dims requires a RaggedTensor with a known rank")
        outer_axis, inner_axis = (_positive_axis(a, rank, n) for a, n in ((outer_axis, "outer_axis"),
                                                                           (inner_axis, "inner_axis")))
        if outer_axis > inner_axis:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                             f"({inner_axis}).")
        with name_scope(None, "RaggedMergeDims", [self]):
            return _merge_dims(self, outer_axis, inner_axis)

    def to_list(self) -> list:
        raise ValueError("to_list can only be used in eager mode.")

    def numpy(self) -> Any:
        raise ValueError("RaggedTensor.numpy() is only supported in eager mode.")

    # conversions -------------------------------------------------------------------------------------------

    def to_tensor(self, default_value: Any = None, name: str | None = None, shape: Any = None) -> Tensor:
        """The padded dense tensor (bounding shape, or `shape` with rows cut or padded to it)."""
        with name_scope(name, "RaggedToTensor", [self, default_value]):
            if default_value is None:
                default_value = constant(0, self.dtype, name="zeros") if self.dtype != dtypes.string \
                    else constant("", name="zeros")
            else:
                default_value = convert_to_tensor(default_value, dtype=self.dtype, name="default_value")
            if shape is None:
                shape_tensor = constant(-1, self.row_splits_dtype)
            else:
                dims = tensor_shape.as_shape(shape).as_list() if not isinstance(shape, Tensor) else None
                shape_tensor = shape if dims is None else constant([-1 if d is None else d for d in dims],
                                                                   self.row_splits_dtype)
            splits = list(self.nested_row_splits)
            result = RaggedTensorToTensor(shape_tensor, self.flat_values, default_value, splits,
                                          row_partition_types=["ROW_SPLITS"] * len(splits))
            if shape is None:
                result.set_shape(self.shape)
            return result

    def to_sparse(self, name: str | None = None) -> SparseTensor:
        """The SparseTensor of the values at their coordinates, dense_shape the bounding shape."""
        with name_scope(name, "RaggedToSparse", [self]):
            indices, values, dense_shape = RaggedTensorToSparse(list(self.nested_row_splits), self.flat_values)
            return SparseTensor(indices, values, dense_shape)

    # indexing ----------------------------------------------------------------------------------------------

    def __getitem__(self, key: Any) -> Any:
        """NumPy-style indexing as TF's: ints, slices (any step > 0 on ragged dimensions), `...` and
        `tf.newaxis`; an int may index the rows and the uniform or dense dimensions, not a ragged one."""
        keys = list(key) if isinstance(key, tuple) else [key]
        with name_scope(None, "RaggedGetItem", [self]):
            return _ragged_getitem(self, keys)

    def eval(self, feed_dict: dict | None = None, session: Any = None) -> RaggedTensorValue:
        """The value of this ragged tensor in `session` (default: the default session)."""
        return _run_using_default_session(self, feed_dict, self.graph, session)

    def __str__(self) -> str:
        return f"tf.RaggedTensor(values={self._values}, row_splits={self._row_splits})"

    __repr__ = __str__


@tf_export("RaggedTensorSpec")
class RaggedTensorSpec(TypeSpec):
    """Describes a tf.RaggedTensor: its shape (ragged dimensions None), dtype, ragged rank and the dtype of
    its row partitions."""

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32, ragged_rank: int | None = None,
                 row_splits_dtype: Any = dtypes.int64, flat_values_spec: TypeSpec | None = None) -> None:
        self._shape = tensor_shape.as_shape(shape)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if flat_values_spec is not None:
            if dtype is None:
                dtype = flat_values_spec.dtype
            elif dtype != flat_values_spec.dtype:
                raise ValueError("dtype must be the same as flat_values_spec.dtype")
        elif dtype is None:
            raise ValueError("At least one of dtype or flat_values_spec must be provided")
        self._dtype = dtypes.as_dtype(dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"Argument `ragged_rank` must be an int. Received {ragged_rank}.")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"Argument `ragged_rank` ({ragged_rank}) must be less than rank ({rank}).")
        self._ragged_rank = ragged_rank

    @classmethod
    def from_value(cls, value: RaggedTensor) -> RaggedTensorSpec:
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)

    @property
    def shape(self) -> tensor_shape.TensorShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def ragged_rank(self) -> int:
        return self._ragged_rank

    @property
    def row_splits_dtype(self) -> dtypes.DType:
        return self._row_splits_dtype

    @property
    def flat_values_spec(self) -> TypeSpec | None:
        return self._flat_values_spec

    @property
    def value_type(self) -> type:
        return RaggedTensor if self._ragged_rank > 0 else Tensor

    def _serialize(self) -> tuple:
        fields = (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)
        return fields if self._flat_values_spec is None else fields + (self._flat_values_spec,)

    @property
    def _component_specs(self) -> list[TypeSpec]:
        """The flat values, then the row splits of each ragged dimension, outermost first."""
        if self._ragged_rank <= 0:
            return [TensorSpec(self._shape, self._dtype)]
        inner = self._shape[self._ragged_rank + 1:] if self._shape.ndims is not None else None
        flat_shape = tensor_shape.TensorShape([None]).concatenate(inner) if inner is not None else None
        flat = self._flat_values_spec or TensorSpec(flat_shape, self._dtype)
        nrows = tensor_shape.dimension_value(self._shape[0]) if self._shape.ndims else None
        outer = [None if nrows is None else nrows + 1]
        return [flat] + [TensorSpec(outer if i == 0 else [None], self._row_splits_dtype)
                         for i in builtins.range(self._ragged_rank)]

    def _to_components(self, value: Any) -> list[Any]:
        if not isinstance(value, RaggedTensor):
            return [value]
        return [value.flat_values, *value.nested_row_splits]

    def _from_components(self, components: Any) -> Any:
        """The RaggedTensor of flat values and row splits; a dimension this spec knows the size of keeps it in
        the value's static shape (TF sets the spec's shape on what a dataset rebuilds)."""
        result = components[0]
        dims = self._shape.as_list() if self._shape.ndims is not None else [None] * len(components)
        for level in builtins.range(len(components) - 1, 0, -1):
            result = RaggedTensor(result, components[level], internal=True,  # no ops, no name scope
                                  static_row_length=dims[level])
        return result

    def _to_legacy_output_types(self) -> dtypes.DType:
        return self._dtype

    def _to_legacy_output_shapes(self) -> tensor_shape.TensorShape:
        return self._shape

    def _to_legacy_output_classes(self) -> RaggedTensorSpec:
        return self

    def _batch(self, batch_size: int | None) -> RaggedTensorSpec:
        """A batch of values of this spec is ragged in one more (outer) dimension."""
        return RaggedTensorSpec(tensor_shape.TensorShape([batch_size]).concatenate(self._shape), self._dtype,
                                self._ragged_rank + 1, self._row_splits_dtype)

    def _unbatch(self) -> RaggedTensorSpec:
        return RaggedTensorSpec(self._shape[1:], self._dtype, self._ragged_rank - 1, self._row_splits_dtype)


register_type_spec_from_value_converter(RaggedTensor, RaggedTensorSpec.from_value, composite=True)


def _nrows(values: Any, dtype: dtypes.DType) -> Tensor:
    """The number of rows of a Tensor or RaggedTensor, as a scalar of `dtype`."""
    if isinstance(values, RaggedTensor):
        return size(values.row_splits, out_type=dtype) - 1
    return shape(values, out_type=dtype)[0]


def _positive_axis(axis: int, rank: int, name: str = "axis") -> int:
    """`axis` counted from the front, as TF's get_positive_axis checks it."""
    if not -rank <= axis < rank:
        raise ValueError(f"{name}={axis} out of bounds: expected {-rank}<={name}<{rank}")
    return axis + rank if axis < 0 else axis


def _merge_dims(value: Any, outer: int, inner: int) -> Any:
    """Dimensions outer..inner of a Tensor or RaggedTensor as one: merging a ragged dimension with the rows
    around it is taking its values, so the merge walks down to `outer` and then drops row partitions."""
    if outer == inner:
        return value
    if not isinstance(value, RaggedTensor):
        dims = shape(value)
        merged = reduce_prod(dims[outer:inner + 1], keepdims=True)
        return reshape(value, concat([dims[:outer], merged, dims[inner + 1:]], 0))
    if outer > 1:
        return value.with_values(_merge_dims(value.values, outer - 1, inner - 1))
    if outer == 0:
        return _merge_dims(value.values, 0, inner - 1)
    values = _merge_dims(value.values, 1, inner - 1)
    if isinstance(values, RaggedTensor):
        return RaggedTensor(values.values, gather(values.row_splits, value.row_splits), internal=True)
    width = shape(values, out_type=value.row_splits_dtype)[1]
    return RaggedTensor(reshape(values, concat([[-1], shape(values)[2:]], 0)), value.row_splits * width,
                        internal=True)


def _expand_ellipsis(keys: list, rank: int | None) -> list:
    if Ellipsis not in keys:
        return keys
    if keys.count(Ellipsis) > 1:
        raise ValueError("Cannot use multiple ellipses")
    if rank is None:
        raise ValueError("Cannot use ellipsis when the rank is unknown")
    i = keys.index(Ellipsis)
    used = builtins.sum(1 for k in keys if k is not None and k is not Ellipsis)
    return keys[:i] + [builtins.slice(None)] * (rank - used) + keys[i + 1:]


def _ragged_getitem(rt: Any, keys: list) -> Any:
    """`rt[keys]`, the first key on the rows: a row index takes the row, a slice the rows, and the other keys
    go to the dimensions inside (`_getitem_inner`)."""
    if not isinstance(rt, RaggedTensor):
        return rt[tuple(keys)] if keys else rt
    keys = _expand_ellipsis(keys, rt.shape.ndims)
    if not keys:
        return rt
    row, inner = keys[0], keys[1:]
    if row is None:
        result = _ragged_getitem(rt, inner)
        splits = stack([constant(0, dtypes.int64), _nrows(result, dtypes.int64)])
        return RaggedTensor(result, splits, internal=True)
    if isinstance(row, builtins.slice):
        if row != builtins.slice(None):
            rt = _gather_rows(rt, tf_range(rt.nrows())[row])
        return _getitem_inner(rt, inner)
    if isinstance(row, (int, np.integer, Tensor)):
        index = cast(row, rt.row_splits_dtype)
        index = index + cast(index < 0, rt.row_splits_dtype) * rt.nrows()
        return _ragged_getitem(_gather_rows(rt, reshape(index, [1])).values, inner)
    raise TypeError(f"Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                    f"tf.int32/tf.int64 tensors are valid indices, got {row!r}")


def _slice_bound(bound: Any, lengths: Tensor, default: Any) -> Tensor:
    """A per-row slice bound as Python counts it: negative from the end, clipped to [0, length]."""
    if bound is None:
        return default
    bound = cast(bound, lengths.dtype)
    return minimum(maximum(bound + lengths * cast(bound < 0, lengths.dtype), 0), lengths)


def _getitem_inner(rt: Any, keys: list) -> Any:
    """`rt[:, keys...]`: the keys on dimensions 1.. of a Tensor or RaggedTensor."""
    if not keys:
        return rt
    if not isinstance(rt, RaggedTensor):
        return rt[(builtins.slice(None),) + tuple(keys)]
    column, rest = keys[0], keys[1:]
    if column is None:
        return RaggedTensor.from_uniform_row_length(_getitem_inner(rt, rest), 1, validate=False)
    if isinstance(column, builtins.slice):
        if column == builtins.slice(None):
            return rt.with_values(_getitem_inner(rt.values, rest))
        step = 1 if column.step is None else column.step
        if not isinstance(step, (int, np.integer)) or step <= 0:
            raise NotImplementedError("RaggedTensor slices of a ragged dimension need a positive int step")
        lengths = rt.row_lengths()
        start = _slice_bound(column.start, lengths, 0 * lengths)
        stop = maximum(_slice_bound(column.stop, lengths, lengths), start)
        dtype = rt.row_splits_dtype
        splits, positions = RaggedRange(rt.row_starts() + start, rt.row_starts() + stop, cast(step, dtype),
                                        Tsplits=dtype)
        values = _gather_rows(rt.values, positions) if isinstance(rt.values, RaggedTensor) else \
            gather(rt.values, positions)
        return RaggedTensor(_getitem_inner(values, rest), splits, internal=True)
    if rt._static_row_length is None:
        raise ValueError("Cannot index into an inner ragged dimension.")
    index = cast(column, rt.row_splits_dtype)
    index = index + cast(index < 0, rt.row_splits_dtype) * rt._static_row_length
    positions = rt.row_starts() + index
    values = _gather_rows(rt.values, positions) if isinstance(rt.values, RaggedTensor) else \
        gather(rt.values, positions)
    return _getitem_inner(values, rest)


def _gather_rows(rt: RaggedTensor, rows: Tensor) -> RaggedTensor:
    """The RaggedTensor of the rows `rows` of `rt`, in that order: each level gathers its values through a
    RaggedRange over the selected rows' [start, limit) spans."""
    rows = cast(rows, rt.row_splits_dtype)
    starts, limits = gather(rt.row_splits, rows), gather(rt.row_splits, rows + 1)
    splits, positions = RaggedRange(starts, limits, cast(1, rt.row_splits_dtype), Tsplits=rt.row_splits_dtype)
    values = _gather_rows(rt.values, positions) if isinstance(rt.values, RaggedTensor) else \
        gather(rt.values, positions)
    return RaggedTensor(values, splits, internal=True)


# -- tf.ragged --------------------------------------------------------------------------------------------------

@tf_export("ragged.row_splits_to_segment_ids")
def row_splits_to_segment_ids(splits: Any, name: str | None = None, out_type: Any = None) -> Tensor:
    """The row id of each value: row i repeated row_lengths[i] times."""
    with name_scope(name, "RaggedSplitsToSegmentIds", [splits]):
        splits = _splits_tensor(splits, dtypes.int64, "splits")
        out_type = dtypes.as_dtype(out_type) if out_type else splits.dtype
        lengths = splits[1:] - splits[:-1]
        return repeat(tf_range(size(splits, out_type=out_type) - 1), cast(lengths, dtypes.int32))


@tf_export("ragged.segment_ids_to_row_splits")
def segment_ids_to_row_splits(segment_ids: Any, num_segments: Any = None, out_type: Any = None,
                              name: str | None = None) -> Tensor:
    """The row_splits of sorted segment ids; `num_segments` defaults to the largest id plus one."""
    with name_scope(name, "SegmentIdsToRaggedSplits", [segment_ids]):
        segment_ids = _splits_tensor(segment_ids, dtypes.int64, "segment_ids")
        out_type = dtypes.as_dtype(out_type) if out_type else segment_ids.dtype
        if num_segments is None:
            num_segments = reduce_max(concat([constant([-1], segment_ids.dtype), segment_ids], 0)) + 1
        num_segments = cast(num_segments, segment_ids.dtype)
        lengths = unsorted_segment_sum(cast(not_equal(segment_ids, -1), out_type), segment_ids, num_segments)
        return concat([constant([0], out_type), cumsum(lengths)], 0)


@tf_export("ragged.range")
def ragged_range(starts: Any, limits: Any = None, deltas: Any = 1, dtype: Any = None, name: str | None = None,
                 row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:
    """Row i is range(starts[i], limits[i], deltas[i]); with one argument the rows are range(limits[i])."""
    if limits is None:
        starts, limits = 0, starts
    with name_scope(name, "RaggedRange", [starts, limits, deltas]):
        if dtype is None:  # TF's: a tensor argument's dtype, so that range(limits) of an int64 limit is int64
            dtype = next((t.dtype for t in (starts, limits, deltas) if isinstance(t, Tensor)), None)
        starts = convert_to_tensor(starts, dtype=dtype, name="starts")
        limits = convert_to_tensor(limits, dtype=dtype or starts.dtype, name="limits")
        deltas = convert_to_tensor(deltas, dtype=dtype or starts.dtype, name="deltas")
        splits, values = RaggedRange(starts, limits, deltas, Tsplits=dtypes.as_dtype(row_splits_dtype))
        return RaggedTensor(values, splits, internal=True)


def _nested_depth(pylist: Any) -> int:
    if isinstance(pylist, (list, tuple)):
        return 1 + builtins.max((_nested_depth(x) for x in pylist), default=0)
    return 0


def _ragged_parts(pylist: Any, ragged_rank: int | None, inner_shape: Any) -> tuple[list, list[list[int]]]:
    """The flat values (a list) and the splits of each ragged level of a nested Python list."""
    depth = _nested_depth(pylist)
    if ragged_rank is None:
        inner_rank = 0 if inner_shape is None else len(inner_shape)
        ragged_rank = builtins.max(1, depth - 1 - inner_rank)
    if depth and ragged_rank >= depth:
        raise ValueError(f"Invalid pylist={pylist!r}: incompatible with ragged_rank={ragged_rank}")
    splits, level = [], list(pylist)
    for _ in builtins.range(ragged_rank):
        splits.append(np.concatenate([[0], np.cumsum([len(row) for row in level])]).tolist())
        level = [x for row in level for x in row]
    return level, splits


@tf_export("ragged.constant")
def ragged_constant(pylist: Any, dtype: Any = None, ragged_rank: int | None = None, inner_shape: Any = None,
                    name: str | None = None, row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:
    """A RaggedTensor of constants from a nested Python list (rows of any length)."""
    with name_scope(name, "RaggedConstant"):
        values, splits = _ragged_parts(pylist, ragged_rank, inner_shape)
        if not values and dtype is None:
            dtype = dtypes.float32
        flat = constant(values, dtype=dtype, name="values")
        if inner_shape is not None:
            flat = reshape(flat, [-1] + list(inner_shape))
        result = flat
        for row_splits in reversed(splits):
            result = RaggedTensor(result, constant(row_splits, row_splits_dtype), internal=True)
        return result


@tf_export("ragged.constant_value")
def ragged_constant_value(pylist: Any, dtype: Any = None, ragged_rank: int | None = None, inner_shape: Any = None,
                          row_splits_dtype: Any = "int64") -> RaggedTensorValue:
    """A RaggedTensorValue of NumPy arrays from a nested Python list."""
    values, splits = _ragged_parts(pylist, ragged_rank, inner_shape)
    result = np.asarray(values, dtype=None if dtype is None else dtypes.as_dtype(dtype).as_numpy_dtype)
    if inner_shape is not None:
        result = result.reshape([-1] + list(inner_shape))
    for row_splits in reversed(splits):
        result = RaggedTensorValue(result, np.asarray(row_splits, dtypes.as_dtype(row_splits_dtype).as_numpy_dtype))
    return result


@tf_export("ragged.placeholder")
def ragged_placeholder(dtype: Any, ragged_rank: int, value_shape: Any = None, name: str | None = None) -> RaggedTensor:
    """A RaggedTensor fed as a whole: placeholders for its flat values and each level's row_splits."""
    if ragged_rank == 0:
        return placeholder(dtype, value_shape, name)
    with name_scope(name, "RaggedPlaceholder"):
        value_shape = tensor_shape.as_shape([] if value_shape is None else value_shape)
        result = placeholder(dtype, tensor_shape.TensorShape([None]).concatenate(value_shape), "flat_values")
        for i in reversed(builtins.range(ragged_rank)):
            result = RaggedTensor(result, placeholder(dtypes.int64, [None], f"row_splits_{i}"), internal=True)
        return result


@tf_export("ragged.map_flat_values")
def map_flat_values(op: Callable, *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the flat values of the RaggedTensor arguments; the result keeps their ragged structure."""
    ragged = [x for x in nest.flatten((args, kwargs)) if isinstance(x, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    flat = nest.map_structure(lambda x: x.flat_values if isinstance(x, RaggedTensor) else x, (args, kwargs))
    return ragged[0].with_flat_values(op(*flat[0], **flat[1]))


def _rank(value: Any) -> int | None:
    return value.shape.ndims


def _masked(data: Any, mask: Any) -> Any:
    """`data` with the last dimension of `mask` filtered: a vector mask picks rows, a deeper one recurses
    into the rows (both as RaggedTensors) and recounts the rows of the level it filters."""
    if _rank(mask) == 1:
        if isinstance(data, RaggedTensor):
            return _gather_rows(data, reshape(where_(mask), [-1]))
        return boolean_mask(data, mask)
    if not isinstance(mask, RaggedTensor):
        mask = RaggedTensor.from_tensor(mask)
    if not isinstance(data, RaggedTensor):
        data = RaggedTensor.from_tensor(data, row_splits_dtype=mask.row_splits_dtype)
    inner = _masked(data.values, mask.values)
    if _rank(mask.values) > 1:
        return RaggedTensor(inner, data.row_splits, internal=True)
    lengths = unsorted_segment_sum(cast(mask.values, mask.row_splits_dtype), mask.value_rowids(), mask.nrows())
    return RaggedTensor.from_row_lengths(inner, lengths, validate=False)


@tf_export("ragged.boolean_mask")
def ragged_boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """The items of `data` where `mask` holds, filtering mask's last dimension and keeping the ones outside
    it: `output[a..., i, b...] = data[a..., j, b...]` for the i-th true `mask[a..., j]`."""
    with name_scope(name, "RaggedMask", [x for x in (data, mask) if isinstance(x, Tensor)]):
        data = _values_tensor(data)
        if not isinstance(mask, RaggedTensor):
            mask = convert_to_tensor(mask, dtype=dtypes.bool, name="mask")
        elif mask.dtype != dtypes.bool:
            raise TypeError(f"mask must have dtype bool, got {mask.dtype}")
        if _rank(mask) is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if _rank(mask) == 0:
            raise ValueError("mask cannot be scalar.")
        if _rank(data) is not None and _rank(mask) > _rank(data):
            raise ValueError("mask.shape.ndims must be less than or equal to data.shape.ndims.")
        return _masked(data, mask)


def _concat_rows(values: list) -> Any:
    """The rows of every value, one after the other: flat values concatenated, each level's splits shifted."""
    if not isinstance(values[0], RaggedTensor):
        return concat(values, 0)
    offsets = cumsum(stack([rt.row_splits[-1] for rt in values]), exclusive=True)
    splits = [values[0].row_splits[:1]] + [rt.row_splits[1:] + offsets[i] for i, rt in enumerate(values)]
    return RaggedTensor(_concat_rows([rt.values for rt in values]), concat(splits, 0), internal=True)


def _increase_ragged_rank(value: Any, ragged_rank: int, splits_dtype: dtypes.DType) -> RaggedTensor:
    """`value` (Tensor or RaggedTensor) with `ragged_rank` ragged dimensions, dense ones read as uniform."""
    if not isinstance(value, RaggedTensor):
        return RaggedTensor.from_tensor(value, ragged_rank=ragged_rank, row_splits_dtype=splits_dtype)
    if value.ragged_rank < ragged_rank:
        return value.with_values(_increase_ragged_rank(value.values, ragged_rank - 1, splits_dtype))
    return value


def _stack_concat(values: list, axis: int, stack_values: bool) -> Any:
    """TF's ragged stack/concat: axis 0 joins the rows, axis 1 interleaves them (row i of every input, in
    turn, then regrouped), a deeper axis recurses into the values of inputs that share their row_splits."""
    if axis == 0:
        if not stack_values:
            return _concat_rows(values)
        lengths = stack([_nrows(v, values[0].row_splits_dtype) for v in values])
        return RaggedTensor.from_row_lengths(_concat_rows(values), lengths, validate=False)
    if axis == 1:
        count = len(values)
        nrows = values[0].nrows()
        checks = [check_ops.assert_equal(nrows, v.nrows(), message="Input tensors have incompatible shapes.")
                  for v in values[1:]]
        nrows = control_flow_ops.with_dependencies(checks, nrows)
        order = reshape(transpose(reshape(tf_range(nrows * count), [count, -1])), [-1])
        permuted = _gather_rows(_concat_rows(values), order)
        splits = tf_range(0, nrows * count + 1, count, dtype=nrows.dtype)
        if stack_values:
            return RaggedTensor(permuted, splits, internal=True)
        return RaggedTensor(permuted.values, gather(permuted.row_splits, splits), internal=True)
    checks = [check_ops.assert_equal(values[0].row_splits, v.row_splits,
                                     message="Inputs must have identical row splits.") for v in values[1:]]
    splits = control_flow_ops.with_dependencies(checks, values[0].row_splits)
    inner = ragged_stack_concat([v.values for v in values], axis - 1, stack_values)
    return RaggedTensor(inner, splits, internal=True)


def ragged_stack_concat(values: Sequence[Any], axis: int, stack_values: bool) -> Any:
    """Stack or concat Tensors and RaggedTensors along `axis`: dense inputs become ragged ones, every input
    gets the largest ragged_rank."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if not values:
        raise ValueError("rt_inputs may not be empty.")
    values = [_values_tensor(v) for v in values]
    if len(values) == 1 and not stack_values:
        return values[0]
    ndims = values[0].shape.ndims
    for v in values[1:]:
        if ndims is None:
            ndims = v.shape.ndims
        elif v.shape.ndims is not None and v.shape.ndims != ndims:
            raise ValueError(f"Shape {v.shape} must have rank {ndims}")
    out_ndims = ndims + 1 if stack_values and ndims is not None else ndims
    if out_ndims is not None:
        axis = _positive_axis(axis, out_ndims)
    if stack_values and ndims == 1 and axis == 0:
        dtype = dtypes.int64
        return RaggedTensor.from_row_lengths(concat(values, 0), stack([_nrows(v, dtype) for v in values]),
                                             validate=False)
    if not any(isinstance(v, RaggedTensor) for v in values) and ndims is not None and axis >= ndims - 1:
        return stack(values, axis) if stack_values else concat(values, axis)
    splits_dtypes = {v.row_splits_dtype for v in values if isinstance(v, RaggedTensor)}
    splits_dtype = splits_dtypes.pop() if len(splits_dtypes) == 1 else dtypes.int64
    ragged_rank = builtins.max([1] + [v.ragged_rank for v in values if isinstance(v, RaggedTensor)])
    values = [_increase_ragged_rank(v, ragged_rank, splits_dtype).with_row_splits_dtype(splits_dtype)
              for v in values]
    return _stack_concat(values, axis, stack_values)


@tf_export("ragged.stack")
def ragged_stack(values: Sequence[Any], axis: int = 0, name: str | None = None) -> RaggedTensor:
    """The inputs stacked along a new dimension `axis`: Tensors and RaggedTensors of one rank."""
    with name_scope(name, "RaggedConcat", [v for v in values if isinstance(v, Tensor)]
                    if isinstance(values, (list, tuple)) else []):
        return ragged_stack_concat(values, axis, stack_values=True)


@tf_export("ragged.stack_dynamic_partitions")
def stack_dynamic_partitions(data: Any, partitions: Any, num_partitions: int, name: str | None = None) -> RaggedTensor:
    """Row i holds the rows of `data` whose partition is i, in their order (dynamic_partition, stacked)."""
    with name_scope(name, "SegmentStack", [data, partitions]):
        data = _values_tensor(data)
        partitions = convert_to_tensor(partitions, name="partitions")
        if partitions.dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError("partitions must be int32 or int64")
        if partitions.shape.ndims != 1:
            raise ValueError("partitions must be a vector")
        if not isinstance(num_partitions, int) or num_partitions < 0:
            raise TypeError("num_partitions must be a non-negative integer")
        checks = [check_ops.assert_non_negative(partitions, message="partitions must be non-negative."),
                  check_ops.assert_less(partitions, cast(num_partitions, partitions.dtype),
                                        message="partitions must be less than num_partitions")]
        partitions = control_flow_ops.with_dependencies(checks, partitions)
        order = argsort(partitions, stable=True)
        counts = unsorted_segment_sum(cast(not_equal(partitions, -1), dtypes.int64), partitions, num_partitions)
        splits = concat([constant([0], dtypes.int64), cumsum(counts)], 0)
        rows = _gather_rows(data, order) if isinstance(data, RaggedTensor) else gather(data, order)
        return RaggedTensor.from_row_splits(rows, splits, validate=False)
