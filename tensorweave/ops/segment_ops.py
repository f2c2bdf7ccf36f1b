"""Segment reductions: the sorted ones (SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd: output
row `i` reduces the data rows whose segment id is `i`, ids sorted), the unsorted ones beside TF's
UnsortedSegmentSum (UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd; `unsorted_segment_mean` and
`unsorted_segment_sqrt_n` are TF's composites over UnsortedSegmentSum), and the sparse ones
(SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN and their WithNumSegments forms: the rows picked by
`indices` reduced by sorted segment ids), each with TF's gradient.

Invariant: kernels never loop over segments in Python: sorted ids reduce with `ufunc.reduceat` over the
starts of their runs, unsorted ids with `ufunc.at`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import equal, maximum, sqrt, where_v2
from tensorweave.ops.fill_ops import ones, ones_like, zeros_like
from tensorweave.ops.indexing_ops import UnsortedSegmentSum, gather
from tensorweave.ops.kernel_helpers import c_division, invalid_argument
from tensorweave.ops.manipulation_ops import concat
from tensorweave.ops.shape_helpers import with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import rank, reshape, shape
from tensorweave.platform.tf_export import tf_export

_REAL = "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}"
_NUMBER = ("{float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, "
           "quint16, uint16, complex128, half, uint32, uint64}")


# -- Shared kernels -------------------------------------------------------------------------------------

def _runs(ctx: OpKernelContext, ids: Any, num_out: int, bounded: bool) -> tuple[Any, Any]:
    """The starts of the runs of equal ids and the id of each run, checked as TF's sorted kernels check them
    (in segment order: increasing before in range); `bounded` gives the WithNumSegments message."""
    if not ids.size:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
    run_ids = ids[starts].astype(np.int64)
    decreasing = np.concatenate([run_ids[1:] < run_ids[:-1], [False]])
    out_of_range = (run_ids < 0) | (run_ids >= num_out)
    bad = np.flatnonzero(decreasing | out_of_range)
    if bad.size:
        k = bad[0]
        if decreasing[k]:
            raise invalid_argument(ctx, "segment ids are not increasing")
        if bounded:
            raise invalid_argument(ctx, "segment ids must be < num_segments")
        raise invalid_argument(ctx, f"Segment id {run_ids[k]} out of range [0, {num_out}), possibly because "
                                    "'segment_ids' input is not sorted.")
    return starts, run_ids


def _runs_in_order(ufunc: Any, rows: Any, starts: Any) -> Any | None:
    """The sums (products) of the runs of rows, each taken in order, rounding at every step, as TF's dense
    segment kernels (NumPy's reduceat adds float16 in float32 and a vector's runs pairwise): the runs padded
    with the identity (which changes no result) to the longest and accumulated, where that padding stays
    within a few times the data; else None."""
    lengths = np.diff(np.append(starts, len(rows)))
    longest = int(lengths.max())
    if len(starts) * longest > 4 * len(rows) + 1024:
        return None
    inner = rows.reshape(len(rows), -1)
    padded = np.full((len(starts), longest, inner.shape[1]), ufunc.identity, rows.dtype)
    positions = np.arange(len(rows)) - np.repeat(starts, lengths)
    padded[np.repeat(np.arange(len(starts)), lengths), positions] = inner
    with np.errstate(over="ignore"):
        return ufunc.accumulate(padded, axis=1)[:, -1].reshape((len(starts),) + rows.shape[1:])


def _reduce_runs(rows: Any, starts: Any, run_ids: Any, num_out: int, kind: str, by_reciprocal: bool = False) -> Any:
    """Each run of rows reduced (`kind` one of sum, mean, sqrt_n, max, min, prod) into its output row; rows of
    empty segments are 0 (1 for prod), as TF's. The sparse kernels scale float means by the count's reciprocal
    (`by_reciprocal`) where the dense ones divide: the last bit differs."""
    out = np.full((num_out,) + rows.shape[1:], 1 if kind == "prod" else 0, dtype=rows.dtype)
    if not starts.size:
        return out
    ufunc = {"max": np.maximum, "min": np.minimum, "prod": np.multiply}.get(kind, np.add)
    reduced = None
    if ufunc in (np.add, np.multiply) and not by_reciprocal and (
            rows.dtype == np.float16 or (rows.ndim == 1 and rows.dtype in (np.float32, np.float64))):
        reduced = _runs_in_order(ufunc, rows, starts)
    if reduced is None:
        reduced = ufunc.reduceat(rows, starts, axis=0)
    if kind in ("mean", "sqrt_n"):
        counts = np.diff(np.append(starts, rows.shape[0])).reshape((-1,) + (1,) * (rows.ndim - 1))
        divisor = np.sqrt(counts.astype(rows.dtype)) if kind == "sqrt_n" else counts.astype(rows.dtype)
        if rows.dtype.kind in "iu":
            reduced = c_division(reduced, divisor)
        elif by_reciprocal:
            reduced = reduced * (np.ones((), rows.dtype) / divisor)
        else:
            reduced = reduced / divisor
    out[run_ids] = reduced
    return out


# -- SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd -----------------------------------------

def _segment_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data = with_rank_at_least(ctx.input_shape(0), 1)
    with_rank(ctx.input_shape(1), 1)
    if data.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [tensor_shape.TensorShape([None]).concatenate(data[1:])]


def _segment_op(name: str, types: str, kind: str) -> Op:
    op = Op(name, inputs=["data: T", "segment_ids: Tindices"], outputs=["output: T"],
            attrs=[f"T: {types}", "Tindices: {int32, int64}"])
    op.shape(_segment_shape)

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, data: Any, segment_ids: Any) -> Any:
        if segment_ids.ndim != 1:
            raise invalid_argument(ctx, "segment_ids should be a vector.")
        if segment_ids.size != (data.shape[0] if data.ndim else 1):
            raise invalid_argument(ctx, "segment_ids should be the same size as dimension 0 of input.")
        num_out = int(segment_ids[-1]) + 1 if segment_ids.size else 0
        starts, run_ids = _runs(ctx, segment_ids, num_out, bounded=False)
        return _reduce_runs(data, starts, run_ids, num_out, kind)

    return op


SegmentSum = _segment_op("SegmentSum", _NUMBER, "sum")
SegmentMean = _segment_op("SegmentMean", _NUMBER, "mean")
SegmentMax = _segment_op("SegmentMax", _REAL, "max")
SegmentMin = _segment_op("SegmentMin", _REAL, "min")
SegmentProd = _segment_op("SegmentProd", _NUMBER, "prod")


@tf_export("math.segment_sum", "segment_sum")
def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """The sum of the `data` rows of each sorted segment id."""
    return SegmentSum(data, segment_ids, name=name)


@tf_export("math.segment_mean", "segment_mean")
def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """The mean of the `data` rows of each sorted segment id (0 for an empty segment)."""
    return SegmentMean(data, segment_ids, name=name)


@tf_export("math.segment_max", "segment_max")
def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """The maximum of the `data` rows of each sorted segment id (0 for an empty segment)."""
    return SegmentMax(data, segment_ids, name=name)


@tf_export("math.segment_min", "segment_min")
def segment_min(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """The minimum of the `data` rows of each sorted segment id (0 for an empty segment)."""
    return SegmentMin(data, segment_ids, name=name)


@tf_export("math.segment_prod", "segment_prod")
def segment_prod(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """The product of the `data` rows of each sorted segment id (1 for an empty segment)."""
    return SegmentProd(data, segment_ids, name=name)


def _min_or_max_grad(op: Any, grad: Tensor, gather_rows: Any) -> Tensor:
    """TF's: the gradient shared evenly among the data entries equal to their segment's extreme."""
    data, ids = op.inputs[0], op.inputs[1]
    is_selected = equal(data, gather_rows(op.outputs[0], ids))
    num_selected = _sum_by_ids(cast(is_selected, grad.dtype), ids, op)
    return where_v2(is_selected, gather_rows(grad / num_selected, ids), zeros_like(data))


def _prod_grad(op: Any, grad: Tensor, gather_rows: Any) -> Tensor:
    """TF's: d prod / d x is the product of the other entries, computed without dividing by a zero entry."""
    data, ids = op.inputs[0], op.inputs[1]
    is_zero = equal(data, zeros_like(data))
    num_zeros = _sum_by_ids(cast(is_zero, dtypes.int32), ids, op)
    grad = where_v2(num_zeros > 1, zeros_like(grad), grad)
    non_zero_data = where_v2(is_zero, ones_like(data), data)
    non_zero_prod = (SegmentProd(non_zero_data, ids) if op.type == "SegmentProd"
                     else UnsortedSegmentProd(non_zero_data, ids, op.inputs[2]))
    partial = where_v2(is_zero, gather_rows(non_zero_prod, ids), gather_rows(op.outputs[0], ids) / non_zero_data)
    return partial * gather_rows(grad, ids)


def _sum_by_ids(values: Tensor, ids: Tensor, op: Any) -> Tensor:
    """`values` summed by the segment ids of `op`, sorted or unsorted as `op` is."""
    if op.type.startswith("Unsorted"):
        return UnsortedSegmentSum(values, ids, op.inputs[2])
    return SegmentSum(values, ids)


def _gather_rows(params: Tensor, ids: Tensor) -> Tensor:
    return gather(params, ids)


def _gather_drop_negatives(params: Tensor, ids: Tensor) -> Tensor:
    """TF's _GatherDropNegatives: rows of `params` by id, zero rows where the id is negative."""
    gathered = gather(params, maximum(ids, zeros_like(ids)))
    keep = ids >= 0
    if gathered.shape.ndims is None or ids.shape.ndims is None:  # TF's dynamic form: ones for the rank gap
        gap = reshape(rank(gathered) - rank(ids), [1])
        keep = reshape(keep, concat([shape(ids), ones(gap, dtype=dtypes.int32)], 0))
    elif gathered.shape.ndims > ids.shape.ndims:
        keep = reshape(keep, raw_ops.ConcatV2(values=[shape(ids), ones_like(shape(gathered)[ids.shape.ndims:])],
                                              axis=0))
    return where_v2(keep, gathered, zeros_like(gathered))


@SegmentSum.gradient
def _segment_sum_grad(op: Any, grad: Tensor) -> list:
    return [gather(grad, op.inputs[1]), None]


@SegmentMean.gradient
def _segment_mean_grad(op: Any, grad: Tensor) -> list:
    data, ids = op.inputs
    rank_gap = [1] * (data.shape.ndims - 1) if data.shape.ndims is not None else None
    ones = ones_like(ids, dtype=grad.dtype)
    counts = SegmentSum(ones, ids)
    if rank_gap is not None:
        counts = reshape(counts, [-1] + rank_gap)
    return [gather(grad / counts, ids), None]


@SegmentMax.gradient
@SegmentMin.gradient
def _segment_min_or_max_grad(op: Any, grad: Tensor) -> list:
    return [_min_or_max_grad(op, grad, _gather_rows), None]


@SegmentProd.gradient
def _segment_prod_grad(op: Any, grad: Tensor) -> list:
    return [_prod_grad(op, grad, _gather_rows), None]


@UnsortedSegmentSum.gradient
def _unsorted_segment_sum_grad(op: Any, grad: Tensor) -> list:
    return [_gather_drop_negatives(grad, op.inputs[1]), None, None]


# -- UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd -----------------------------------------

def _unsorted_op(name: str, types: str, ufunc: Any, identity: Any) -> Op:
    op = Op(name, inputs=["data: T", "segment_ids: Tindices", "num_segments: Tnumsegments"], outputs=["output: T"],
            attrs=[f"T: {types}", "Tindices: {int32, int64}", "Tnumsegments: {int32, int64} = DT_INT32"])
    op.shape(UnsortedSegmentSum.shape_fn)

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, data: Any, segment_ids: Any, num_segments: Any) -> Any:
        num = int(num_segments)
        ids = segment_ids.reshape(-1)
        if ids.size and ids.max() >= num:
            raise invalid_argument(ctx, f"segment_ids[{int(np.argmax(ids >= num))}] = {int(ids.max())} is out of "
                                        f"range [0, {num})")
        out = np.full((num,) + data.shape[segment_ids.ndim:], identity(data.dtype), dtype=data.dtype)
        keep = ids >= 0  # negative ids are dropped, as TF's
        ufunc.at(out, ids[keep], data.reshape((ids.size,) + data.shape[segment_ids.ndim:])[keep])
        return out

    return op


def _lowest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).min if dtype.kind in "iu" else -np.finfo(dtype).max


def _highest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).max if dtype.kind in "iu" else np.finfo(dtype).max


UnsortedSegmentMax = _unsorted_op("UnsortedSegmentMax", _REAL, np.maximum, _lowest)
UnsortedSegmentMin = _unsorted_op("UnsortedSegmentMin", _REAL, np.minimum, _highest)
UnsortedSegmentProd = _unsorted_op("UnsortedSegmentProd", _NUMBER, np.multiply, lambda dtype: 1)


@UnsortedSegmentMax.gradient
@UnsortedSegmentMin.gradient
def _unsorted_segment_min_or_max_grad(op: Any, grad: Tensor) -> list:
    return [_min_or_max_grad(op, grad, _gather_drop_negatives), None, None]


@UnsortedSegmentProd.gradient
def _unsorted_segment_prod_grad(op: Any, grad: Tensor) -> list:
    return [_prod_grad(op, grad, _gather_drop_negatives), None, None]


@tf_export("math.unsorted_segment_max", "unsorted_segment_max")
def unsorted_segment_max(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The maximum of the `data` rows of each segment id (the type's lowest value for an empty one)."""
    return UnsortedSegmentMax(data, segment_ids, num_segments, name=name)


@tf_export("math.unsorted_segment_min", "unsorted_segment_min")
def unsorted_segment_min(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The minimum of the `data` rows of each segment id (the type's highest value for an empty one)."""
    return UnsortedSegmentMin(data, segment_ids, num_segments, name=name)


@tf_export("math.unsorted_segment_prod", "unsorted_segment_prod")
def unsorted_segment_prod(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The product of the `data` rows of each segment id (1 for an empty one)."""
    return UnsortedSegmentProd(data, segment_ids, num_segments, name=name)


def _segment_counts(data: Tensor, segment_ids: Tensor, num_segments: Any) -> Tensor:
    """TF's _unsorted_segment_N: each segment's row count (at least 1), reshaped (by the ranks at run time when
    they are unknown while building) to broadcast against the sums."""
    num_segments = convert_to_tensor(num_segments)
    counts = UnsortedSegmentSum(ones(shape(segment_ids), dtype=data.dtype), segment_ids, num_segments)
    broadcastable_shape = concat([num_segments[np.newaxis],
                                  ones([rank(data) - rank(segment_ids)], dtype=num_segments.dtype)], axis=0)
    return maximum(reshape(counts, broadcastable_shape), 1)


@tf_export("math.unsorted_segment_mean", "unsorted_segment_mean")
def unsorted_segment_mean(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The mean of the `data` rows of each segment id (0 for an empty one)."""
    with name_scope(name, "UnsortedSegmentMean"):
        data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
        counts = _segment_counts(data, segment_ids, num_segments)
        return UnsortedSegmentSum(data, segment_ids, num_segments) / counts


@tf_export("math.unsorted_segment_sqrt_n", "unsorted_segment_sqrt_n")
def unsorted_segment_sqrt_n(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The sum of the `data` rows of each segment id over the square root of their count."""
    with name_scope(name, "UnsortedSegmentSqrtN"):
        data, segment_ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
        counts = _segment_counts(data, segment_ids, num_segments)
        return UnsortedSegmentSum(data, segment_ids, num_segments) / sqrt(counts)


# -- SparseSegmentSum, SparseSegmentMean, SparseSegmentSqrtN ----------------------------------------------

def _sparse_segment_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data = with_rank_at_least(ctx.input_shape(0), 1)
    indices = with_rank(ctx.input_shape(1), 1)
    ids = with_rank(ctx.input_shape(2), 1)
    if not indices.dims[0].is_compatible_with(ids.dims[0]):
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {indices.dims[0].value} and "
                         f"{ids.dims[0].value}. Shapes are [{indices.dims[0].value}] and [{ids.dims[0].value}].")
    head = [None]
    if ctx.num_inputs == 4:
        with_rank(ctx.input_shape(3), 0)
        num = ctx.input_value(3)
        head = [None if num is None else int(num)]
    if data.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [tensor_shape.TensorShape(head).concatenate(data[1:])]


def _sparse_segment_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    grad = with_rank_at_least(ctx.input_shape(0), 1)
    tensor_shape.merge_shapes(with_rank(ctx.input_shape(2), 1), with_rank(ctx.input_shape(1), 1))
    with_rank(ctx.input_shape(3), 0)
    sparse = ctx.node_def.op.endswith("V2")
    dim0 = None if sparse else ctx.input_value(3)
    head = tensor_shape.TensorShape([None if dim0 is None else int(dim0)])
    rows = tensor_shape.unknown_shape() if grad.ndims is None else head.concatenate(grad[1:])
    return [rows, tensor_shape.TensorShape([None])] if sparse else [rows]


def _sparse_segment_grad_rows(ctx: OpKernelContext, grad: Any, indices: Any, segment_ids: Any, dim0: Any,
                              kind: str) -> Any:
    """The dense gradient: each picked data row gets its segment's gradient row (scaled for mean and sqrt_n)."""
    if indices.size != segment_ids.size:
        raise invalid_argument(ctx, "segment_ids and indices should have same size.")
    num = grad.shape[0]
    if segment_ids.size and segment_ids[-1] + 1 > num:
        raise invalid_argument(ctx, "Invalid number of segments")
    bad = np.flatnonzero((segment_ids < 0) | (segment_ids >= num))
    if bad.size:
        raise invalid_argument(ctx, f"Segment id {segment_ids[bad[0]]} out of range [0, {num}).")
    dim0 = int(dim0)
    bad = np.flatnonzero((indices < 0) | (indices >= dim0))
    if bad.size:
        raise invalid_argument(ctx, f"Index {indices[bad[0]]} out of range [0, {dim0}).")
    rows = grad[segment_ids]
    if kind != "sum":
        counts = np.bincount(segment_ids, minlength=num).astype(np.float64)
        scale = 1.0 / (counts if kind == "mean" else np.sqrt(counts))
        rows = rows * scale[segment_ids].astype(grad.dtype).reshape((-1,) + (1,) * (grad.ndim - 1))
    out = np.zeros((dim0,) + grad.shape[1:], grad.dtype)
    np.add.at(out, indices, rows)
    return out


def _sparse_segment_grad_ops(name: str, kind: str) -> tuple[Op, Op]:
    """TF's `{name}Grad` (the dense data gradient) and `{name}GradV2` (only the rows the sorted unique indices
    pick, for an IndexedSlices gradient)."""
    attrs = ["T: {bfloat16, half, float, double}", "Tidx: {int32, int64} = DT_INT32",
             "Tsegmentids: {int32, int64} = DT_INT32"]
    inputs = ["grad: T", "indices: Tidx", "segment_ids: Tsegmentids"]
    dense = Op(f"{name}Grad", inputs=inputs + ["output_dim0: int32"], outputs=["output: T"], attrs=attrs)
    sparse = Op(f"{name}GradV2", inputs=inputs + ["dense_output_dim0: int32"],
                outputs=["output: T", "sorted_unique_indices: Tidx"], attrs=attrs)
    for op in (dense, sparse):
        op.shape(_sparse_segment_grad_shape)

    @dense.kernel("CPU")
    def _dense(ctx: OpKernelContext, grad: Any, indices: Any, segment_ids: Any, output_dim0: Any) -> Any:
        return _sparse_segment_grad_rows(ctx, grad, indices, segment_ids, output_dim0, kind)

    @sparse.kernel("CPU")
    def _sparse(ctx: OpKernelContext, grad: Any, indices: Any, segment_ids: Any, dense_output_dim0: Any) -> Any:
        rows = _sparse_segment_grad_rows(ctx, grad, indices, segment_ids, dense_output_dim0, kind)
        unique = np.unique(indices)
        return rows[unique], unique

    return dense, sparse


def _sparse_segment_ops(name: str, types: str, kind: str) -> tuple[Op, Op]:
    """The op and its WithNumSegments form, which sets the output's rows instead of the last id + 1."""
    grad_v1, grad_v2 = _sparse_segment_grad_ops(name, kind)
    attrs = [f"T: {types}", "Tidx: {int32, int64} = DT_INT32", "Tsegmentids: {int32, int64} = DT_INT32",
             "sparse_gradient: bool = false"]
    inputs = ["data: T", "indices: Tidx", "segment_ids: Tsegmentids"]
    plain = Op(name, inputs=inputs, outputs=["output: T"], attrs=attrs)
    counted = Op(f"{name}WithNumSegments", inputs=inputs + ["num_segments: Tnumsegments"], outputs=["output: T"],
                 attrs=attrs[:2] + ["Tnumsegments: {int32, int64} = DT_INT32"] + attrs[2:])

    def kernel(ctx: OpKernelContext, data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
               sparse_gradient: bool = False) -> Any:
        if indices.size != segment_ids.size:
            raise invalid_argument(ctx, "segment_ids and indices should have same size.")
        bad = np.flatnonzero((indices < 0) | (indices >= data.shape[0]))
        if bad.size:
            raise invalid_argument(ctx, f"Bad: indices[{bad[0]}] == {indices[bad[0]]} out of range "
                                        f"[0, {data.shape[0]})")
        bounded = num_segments is not None
        num_out = int(num_segments) if bounded else (int(segment_ids[-1]) + 1 if segment_ids.size else 0)
        starts, run_ids = _runs(ctx, segment_ids, num_out, bounded)
        return _reduce_runs(data[indices], starts, run_ids, num_out, kind, by_reciprocal=True)

    for op in (plain, counted):
        op.shape(_sparse_segment_shape)
        op.kernel("CPU")(kernel)

        @op.gradient
        def _grad(op: Any, grad: Tensor) -> list:
            """TF's: the IndexedSlices of the V2 grad op when `sparse_gradient` is set, else the dense grad op."""
            data, indices, ids = op.inputs[:3]
            nones = [None] * (len(op.inputs) - 1)
            if op.get_attr("sparse_gradient"):
                data_shape = shape(data)
                values, unique = grad_v2(grad, indices, ids, data_shape[0])
                return [IndexedSlices(values, unique, data_shape)] + nones
            return [grad_v1(grad, indices, ids, shape(data)[0])] + nones

    return plain, counted


SparseSegmentSum, SparseSegmentSumWithNumSegments = _sparse_segment_ops("SparseSegmentSum", _REAL, "sum")
SparseSegmentMean, SparseSegmentMeanWithNumSegments = _sparse_segment_ops(
    "SparseSegmentMean", "{bfloat16, half, float, double}", "mean")
SparseSegmentSqrtN, SparseSegmentSqrtNWithNumSegments = _sparse_segment_ops(
    "SparseSegmentSqrtN", "{bfloat16, half, float, double}", "sqrt_n")


def _sparse_segment(plain: Op, counted: Op, data: Any, indices: Any, segment_ids: Any, name: str | None,
                    num_segments: Any, sparse_gradient: bool) -> Tensor:
    if num_segments is not None:
        return counted(data, indices, segment_ids, num_segments, sparse_gradient=sparse_gradient, name=name)
    return plain(data, indices, segment_ids, sparse_gradient=sparse_gradient, name=name)


@tf_export("sparse.segment_sum", "sparse_segment_sum")
def sparse_segment_sum(data: Any, indices: Any, segment_ids: Any, name: str | None = None, num_segments: Any = None,
                       sparse_gradient: bool = False) -> Tensor:
    """The sum of the `data` rows picked by `indices`, by sorted segment id."""
    return _sparse_segment(SparseSegmentSum, SparseSegmentSumWithNumSegments, data, indices, segment_ids, name,
                           num_segments, sparse_gradient)


@tf_export("sparse.segment_mean", "sparse_segment_mean")
def sparse_segment_mean(data: Any, indices: Any, segment_ids: Any, name: str | None = None, num_segments: Any = None,
                        sparse_gradient: bool = False) -> Tensor:
    """The mean of the `data` rows picked by `indices`, by sorted segment id."""
    return _sparse_segment(SparseSegmentMean, SparseSegmentMeanWithNumSegments, data, indices, segment_ids, name,
                           num_segments, sparse_gradient)


@tf_export("sparse.segment_sqrt_n", "sparse_segment_sqrt_n")
def sparse_segment_sqrt_n(data: Any, indices: Any, segment_ids: Any, name: str | None = None,
                          num_segments: Any = None, sparse_gradient: bool = False) -> Tensor:
    """The sum of the `data` rows picked by `indices`, by sorted segment id, over the root of their count."""
    return _sparse_segment(SparseSegmentSqrtN, SparseSegmentSqrtNWithNumSegments, data, indices, segment_ids, name,
                           num_segments, sparse_gradient)
