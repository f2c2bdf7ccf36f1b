"""Math ops of TF's math_ops and nn_ops without a family of their own: TopKV2, ApproxTopK and InTopKV2
(`tf.nn.top_k`, `tf.math.approx_max_k`, `tf.nn.in_top_k`), NthElement (a raw op only in TF 1's API), LinSpace (a raw op: `tf.linspace` is TF 2's
composition), CumulativeLogsumexp, Bincount and DenseBincount (`tf.math.bincount`), HistogramFixedWidth, and
the composites polyval and histogram_fixed_width_bins (confusion_matrix is in metrics_ops, beside the metrics
that use it).

TopKV2 orders equal values by index, as TF's; with `sorted=False`, or NaN in a row, the order is that of TF's
CPU kernel's own algorithms (topk_order replays them). ApproxTopK is exact off TPUs: TF's CPU kernel for it is TopK's, registered only for
`reduction_dimension=-1` and `is_max_k=True` (so approx_min_k fails to run on a CPU, as in TF), and it
returns k values even where `aggregate_to_topk=False` makes the static shape the whole reduced dimension.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, nest, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops, topk_order
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.clip_ops import clip_by_value
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.elementwise_ops import (
    Exp,
    Floor,
    Log,
    equal,
    greater,
    less,
    maximum,
    minimum,
    truediv,
    where_v2,
)
from tensorweave.ops.fill_ops import zeros, zeros_like
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.kernel_helpers import invalid_argument, no_kernel_registered
from tensorweave.ops.manipulation_ops import concat, stack
from tensorweave.ops.reduction_ops import reduce_max, reduce_prod
from tensorweave.ops.scatter_ops import scatter_nd
from tensorweave.ops.sequence_ops import range as sequence_range
from tensorweave.ops.shape_helpers import unary_shape, with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import expand_dims, reshape, shape, size
from tensorweave.platform.tf_export import tf_export

# -- TopKV2, InTopKV2 ----------------------------------------------------------------------------------

TopKV2 = Op("TopKV2", inputs=["input: T", "k: Tk"], outputs=["values: T", "indices: index_type"],
            attrs=["sorted: bool = true",
                   "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64}",
                   "Tk: {int16, int32, int64} = DT_INT32", "index_type: {int16, int32, int64} = DT_INT32"])


@TopKV2.shape
def _top_k_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = with_rank_at_least(ctx.input_shape(0), 1)
    k = ctx.input_dim(1)  # TF checks k's rank on its value only
    if shape.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    last = shape.dims[-1].value
    if k is not None and last is not None and last < int(k):
        raise ValueError(f"input must have last dimension >= k = {int(k)} but is {last}")
    out = shape[:-1].concatenate([None if k is None else int(k)])
    return [out, out]


def _largest_k(ctx: OpKernelContext, input: Any, k: int, index_type: Any, sort: bool = True) -> tuple[Any, Any]:  # noqa: A002
    """TF's TopK kernel: the k largest of each row, equal values in index order (a stable ascending sort of
    the reversed row, read backwards); for k == 1, the first column equal to the row's maximum over its
    non-NaN values (column 0 when none is); where that is not TF's order (`sort` off, or a row with NaN),
    TF's own algorithms replayed (topk_order)."""
    if k < 0:
        raise invalid_argument(ctx, f"Need k >= 0, got {k}")
    if input.ndim < 1:
        raise invalid_argument(ctx, f"input must be >= 1-D, got shape {list(input.shape)}")
    n = input.shape[-1]
    if n < k:
        raise invalid_argument(ctx, f"input must have at least k columns. Had {n}, needed {k}")
    nan_rows = np.isnan(input).any(axis=-1) if input.dtype.kind == "f" else np.zeros(input.shape[:-1], bool)
    sort = sort or input.size > _REPLAYED_ELEMENTS  # too large to replay TF's heap order: the sorted one
    if k == 1:
        masked = np.where(np.isnan(input), -np.inf, input) if nan_rows.any() else input
        indices = np.argmax(masked, axis=-1)[..., None]
        top = np.take_along_axis(input, indices, axis=-1)
        indices = np.where(np.isnan(top) | (top != np.take_along_axis(masked, indices, axis=-1)), 0, indices)
    elif 0 < k and 8 * k <= n and sort and input.dtype.kind == "f" and not nan_rows.any():
        indices = _largest_above_bound(input, k)
    elif 0 < k and 8 * k <= n and sort and input.dtype.kind in "iuf" and not nan_rows.any():
        indices = _selected_k(input, k)
        values = np.take_along_axis(input, indices, axis=-1)
        order = _descending_by_index(values)
        indices = np.take_along_axis(indices, order, axis=-1)
    else:
        indices = _descending_by_index(input)[..., :k]
    if 1 < k and (not sort and k < n or nan_rows.any()) and int(nan_rows.sum()) * n <= _REPLAYED_ELEMENTS:
        indices = _replayed_top_k(input, k, sort, nan_rows, indices)
    return np.take_along_axis(input, indices, axis=-1), indices.astype(index_type)


# TF's orders (for sorted=False, and rows with NaN, which TF documents as undefined) are replayed row by row
# in Python up to this many elements; larger inputs keep the vectorized stable order (NaN first), so that no
# kernel loops over the rows of a large batch
_REPLAYED_ELEMENTS = 1 << 16


def _replayed_top_k(x: Any, k: int, sort: bool, nan_rows: Any, indices: Any) -> Any:
    """`indices` with the rows whose order is not the stable one replaced by TF's: every row when k < n and
    the heap's order is asked for, else the rows holding NaN."""
    n = x.shape[-1]
    flat, out, nan_rows = x.reshape(-1, n), indices.reshape(-1, k).copy(), nan_rows.reshape(-1)
    for r in range(flat.shape[0]):
        if k < n and (not sort or nan_rows[r]):
            out[r] = topk_order.top_n(flat[r], k, sort)
        elif nan_rows[r]:
            out[r] = topk_order.sorted_row(flat[r])
    return out.reshape(indices.shape)


def _descending_by_index(x: Any) -> Any:
    """The order of each row by value, largest (NaN) first, equal values in index order: a stable ascending
    sort of the reversed row, read backwards."""
    return x.shape[-1] - 1 - np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]


def _largest_above_bound(x: Any, k: int) -> Any:
    """The indices of each row's k largest (no NaN), in TF's order (falling values, equal ones by index):
    each row's columns fall into about 10k strided groups, and the k-th largest of the groups' maxima is at
    most the row's k-th largest (k groups hold a value at least as large), so only the values at or above it,
    a few times k a row, are sorted, instead of partitioning the whole row."""
    n = x.shape[-1]
    flat = x.reshape(-1, n)
    length = max(1, n // (10 * k))
    whole = n // length * length
    maxima = flat[:, :whole].reshape(flat.shape[0], length, whole // length).max(axis=1)
    if whole < n:
        maxima = np.concatenate([maxima, flat[:, whole:].max(axis=-1, keepdims=True)], axis=-1)
    groups = maxima.shape[-1]
    bound = np.partition(maxima, groups - k, axis=-1)[:, groups - k:groups - k + 1]
    found = np.flatnonzero(flat >= bound)
    rows, cols = np.divmod(found, n)
    order = np.lexsort((cols, -flat.reshape(-1)[found], rows))
    rows, cols = rows[order], cols[order]
    counts = np.bincount(rows, minlength=flat.shape[0])
    place = np.arange(rows.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return cols[place < k].reshape(x.shape[:-1] + (k,))


def _selected_k(x: Any, k: int) -> Any:
    """The indices, ascending, of each row's k largest (NaN largest; of equal values at the k-th place the
    first ones): one partition for the k-th largest value instead of a sort of the whole row."""
    n = x.shape[-1]
    kth = np.partition(x, n - k, axis=-1)[..., n - k:n - k + 1]
    nan, kth_nan = np.isnan(x), np.isnan(kth)
    greater = (x > kth) | (nan & ~kth_nan)
    equal = (x == kth) | (nan & kth_nan)
    greater, equal = greater.reshape(-1, n), equal.reshape(-1, n)
    needed = k - greater.sum(axis=-1)
    tied = np.flatnonzero(equal.sum(axis=-1) > needed)  # rows where only the first equal ones are taken
    equal[tied] &= np.cumsum(equal[tied], axis=-1) <= needed[tied, None]
    return np.nonzero(greater | equal)[1].reshape(x.shape[:-1] + (k,))


@TopKV2.kernel("CPU")
def _top_k(ctx: OpKernelContext, input: Any, k: Any, sorted: bool, index_type: dtypes.DType) -> tuple[Any, Any]:  # noqa: A002
    if np.ndim(k) != 0:
        raise invalid_argument(ctx, f"k must be scalar, got shape {tensor_shape.shape_string(np.shape(k))}")
    return _largest_k(ctx, input, int(k), index_type.as_numpy_dtype, sorted)


@TopKV2.gradient
def _top_k_grad(op: Any, grad: Tensor, _: Tensor) -> list:
    """Each value's gradient scattered back to the entry it came from (TF's _TopKGrad: the indices made
    linear over the flattened input, ScatterNd into zeros, reshaped to the input's shape); zero for k."""
    in_shape = shape(op.inputs[0])
    ind_shape = shape(op.outputs[1])
    ind_lastdim = gather(cast(ind_shape, dtypes.int64), size(ind_shape) - 1)
    ind_2d = reshape(op.outputs[1], stack([-1, ind_lastdim]))
    in_lastdim = gather(cast(in_shape, dtypes.int64), size(in_shape) - 1)
    outerdim = shape(ind_2d)[0]
    offsets = sequence_range(0, cast(outerdim, dtypes.int64) * in_lastdim, in_lastdim)
    ind = reshape(ind_2d + cast(expand_dims(offsets, -1), dtypes.int32), [-1])
    scattered = scatter_nd(expand_dims(ind, -1), reshape(grad, [-1]), [reduce_prod(in_shape)])
    return [reshape(scattered, in_shape), zeros([], dtype=dtypes.int32)]


@tf_export("math.top_k", "nn.top_k")
def top_k(input: Any, k: Any = 1, sorted: bool = True, index_type: Any = dtypes.int32,  # noqa: A002
          name: str | None = None) -> tuple[Tensor, Tensor]:
    """The k largest entries of each innermost row and their indices."""
    return TopKV2(input, k, sorted=sorted, index_type=index_type, name=name)


# -- NthElement -----------------------------------------------------------------------------------------

NthElement = Op("NthElement", inputs=["input: T", "n: int32"], outputs=["values: T"],
                attrs=["reverse: bool = false", "T: realnumbertype"])


@NthElement.shape
def _nth_element_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = with_rank_at_least(ctx.input_shape(0), 1)
    n = ctx.input_dim(1)  # TF checks n's rank on its value only
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    last = shape.dims[-1].value
    if n is not None and last is not None and last <= int(n):
        raise ValueError(f"Input must have last dimension > n = {int(n)} but is {last}")
    return [shape[:-1]]


@NthElement.kernel("CPU")
def _nth_element(ctx: OpKernelContext, input: Any, n: Any, reverse: bool) -> Any:  # noqa: A002
    if np.ndim(n) != 0:
        raise invalid_argument(ctx, f"N must be scalar but has rank {np.ndim(n)}")
    n = int(n)
    if n < 0:
        raise invalid_argument(ctx, f"n must be non-negative but is {n}")
    if input.ndim < 1:
        raise invalid_argument(ctx, f"Input must be at least rank 1 but is rank {input.ndim}")
    last = input.shape[-1]
    if last <= n:
        raise invalid_argument(ctx, f"Input must have last dimension > n = {n}")
    kth = last - n - 1 if reverse else n
    return np.partition(input, kth, axis=-1)[..., kth]


@NthElement.gradient
def _nth_element_grad(op: Any, grad: Tensor) -> list:
    """The gradient shared among the entries equal to the n-th value, as TF's."""
    x, y = op.inputs[0], op.outputs[0]
    indicators = cast(equal(expand_dims(y, -1), x), grad.dtype)
    selected = expand_dims(raw_ops.Sum(input=indicators, reduction_indices=-1), -1)
    return [truediv(indicators, selected) * expand_dims(grad, -1), None]


ApproxTopK = Op("ApproxTopK", inputs=["input: T"], outputs=["values: T", "indices: int32"],
                attrs=["k: int >= 0", "reduction_dimension: int = -1", "recall_target: float = 0.95",
                       "is_max_k: bool = true", "reduction_input_size_override: int = -1",
                       "aggregate_to_topk: bool = true", "T: {half, bfloat16, float}"])


@ApproxTopK.shape
def _approx_top_k_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The input's shape with the reduced dimension k (kept whole without `aggregate_to_topk`). As TF's, an
    unknown rank or reduced dimension is an error (TF compares k with the unknown size's -1)."""
    shape = with_rank_at_least(ctx.input_shape(0), 1)
    k, dim, recall = ctx.attr("k"), ctx.attr("reduction_dimension"), ctx.attr("recall_target")
    if not 0 < recall <= 1:
        raise ValueError(f"Invalid recall target: {np.format_float_positional(np.float32(recall), trim='-')}. "
                         "Valid value range in : [0, 1.0].")
    rank = -1 if shape.ndims is None else shape.ndims
    if not -rank <= dim < rank:
        raise ValueError(f"Invalid reduction dimension: {dim}. Must be within the range of [{-rank}, {rank - 1}]")
    size = shape.dims[dim].value
    if size is None or size < k:
        raise ValueError(f"input must have last dimension >= k = {k} but was {-1 if size is None else size}")
    dims = shape.as_list()
    if ctx.attr("aggregate_to_topk"):
        dims[dim] = k
    out = tensor_shape.TensorShape(dims)
    return [out, out]


@ApproxTopK.kernel("CPU")
def _approx_top_k(ctx: OpKernelContext, input: Any, k: int, reduction_dimension: int, is_max_k: bool) -> tuple[Any, Any]:  # noqa: A002
    if reduction_dimension != -1 or not is_max_k:
        raise no_kernel_registered(ctx)
    return _largest_k(ctx, input, k, np.int32)


@ApproxTopK.gradient
def _approx_top_k_grad(op: Any, grad: Tensor, _: Tensor) -> list:
    """TF's: the gradient scattered to the entries the values came from, by the full index of each (the
    static shapes give the index grid)."""
    indices = op.outputs[1]
    idx_shape = indices.shape.as_list()
    rank = len(idx_shape)
    reduced = op.get_attr("reduction_dimension") % rank
    count = int(np.prod(idx_shape))
    lifted = []
    for d in range(rank):
        if d == reduced:
            lifted.append(reshape(indices, idx_shape + [1]))
            continue
        iota_shape = [1] * (rank + 1)
        iota_shape[d] = idx_shape[d]
        iota = reshape(raw_ops.Range(start=0, limit=idx_shape[d], delta=1), iota_shape)
        lifted.append(raw_ops.BroadcastTo(input=iota, shape=idx_shape + [1]))
    flat_idx = reshape(raw_ops.ConcatV2(values=lifted, axis=rank), [count, rank])
    return [raw_ops.ScatterNd(indices=flat_idx, updates=reshape(grad, [count]), shape=op.inputs[0].shape.as_list())]


@tf_export("approx_top_k")
def approx_top_k(input: Any, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,  # noqa: A002
                 is_max_k: bool = True, reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: str | None = None) -> tuple[Tensor, Tensor]:
    """The ApproxTopK op: the k largest (or smallest) entries along `reduction_dimension` and their indices."""
    return ApproxTopK(input, k=k, reduction_dimension=reduction_dimension, recall_target=recall_target,
                      is_max_k=is_max_k, reduction_input_size_override=reduction_input_size_override,
                      aggregate_to_topk=aggregate_to_topk, name=name)


@tf_export("math.approx_max_k", "nn.approx_max_k")
def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: str | None = None) -> tuple[Tensor, Tensor]:
    """The k largest entries along `reduction_dimension` (exact off TPUs) and their indices."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, True, reduction_input_size_override,
                        aggregate_to_topk, name)


@tf_export("math.approx_min_k", "nn.approx_min_k")
def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: str | None = None) -> tuple[Tensor, Tensor]:
    """The k smallest entries along `reduction_dimension` and their indices (no CPU kernel, as in TF)."""
    return approx_top_k(operand, k, reduction_dimension, recall_target, False, reduction_input_size_override,
                        aggregate_to_topk, name)


InTopKV2 = Op("InTopKV2", inputs=["predictions: float", "targets: T", "k: T"], outputs=["precision: bool"],
              attrs=["T: {int32, int64} = DT_INT32"])
NotDifferentiable("InTopKV2")


@InTopKV2.shape
def _in_top_k_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    predictions = with_rank(ctx.input_shape(0), 2)
    targets = with_rank(ctx.input_shape(1), 1)
    with_rank(ctx.input_shape(2), 0)
    batch = predictions.dims[0]
    if not batch.is_compatible_with(targets.dims[0]):
        raise ValueError(f"Dimensions must be equal, but are {batch.value} and {targets.dims[0].value}")
    return [tensor_shape.TensorShape([batch.merge_with(targets.dims[0])])]


@InTopKV2.kernel("CPU")
def _in_top_k(ctx: OpKernelContext, predictions: Any, targets: Any, k: Any) -> Any:
    """Whether fewer than k predictions beat the target's strictly (ties count in); false for a target
    out of range or with a non-finite prediction, as TF's."""
    batch, classes = predictions.shape
    if targets.shape != (batch,):
        raise invalid_argument(ctx, "First dimension of predictions " + str(batch) + " must match length of "
                                    "targets " + str(targets.shape[0]))
    valid = (targets >= 0) & (targets < classes)
    target_values = predictions[np.arange(batch), np.where(valid, targets, 0)]
    better = (predictions > target_values[:, None]).sum(axis=1)
    return valid & np.isfinite(target_values) & (better < int(k))


@tf_export("math.in_top_k", "nn.in_top_k")
def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Tensor:
    """Whether each target is among the k highest predictions of its row."""
    with name_scope(name, "in_top_k"):
        return InTopKV2(predictions, targets, k)


@tf_export("math.polyval")
def polyval(coeffs: list, x: Any, name: str | None = None) -> Tensor:
    """coeffs[0] x^(n-1) + ... + coeffs[n-1], by Horner's rule as TF's (zeros like x for no coefficients)."""
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    with name_scope(name, "polyval", nest.flatten(coeffs) + [x]) as name:
        x = convert_to_tensor(x, name="x")
        if not coeffs:
            return zeros_like(x, name=name)
        coeffs = [convert_to_tensor(coeff, name=f"coeff_{index}") for index, coeff in enumerate(coeffs)]
        p = coeffs[0]
        for c in coeffs[1:]:
            p = c + p * x
        return p


# -- LinSpace, CumulativeLogsumexp ------------------------------------------------------------------

LinSpace = Op("LinSpace", inputs=["start: T", "stop: T", "num: Tidx"], outputs=["output: T"],
              attrs=["T: {bfloat16, half, float, double}", "Tidx: {int32, int64} = DT_INT32"])
NotDifferentiable("LinSpace")


@LinSpace.shape
def _lin_space_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    for i in range(3):
        with_rank(ctx.input_shape(i), 0)
    num = ctx.input_value(2)
    return [tensor_shape.TensorShape([None if num is None else int(num)])]


@LinSpace.kernel("CPU")
def _lin_space(ctx: OpKernelContext, start: Any, stop: Any, num: Any) -> Any:
    num = int(num)
    if num <= 0:
        raise invalid_argument(ctx, f"Requires num > 0: {num}")
    return np.linspace(start, stop, num).astype(start.dtype)


@tf_export("lin_space", "linspace")
def lin_space(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """`num` evenly spaced values from `start` to `stop`, both included, along `axis` of their broadcast shape:
    TF 2's linspace_nd, composed (start + delta * i between the two ends, so differentiable) rather than the
    LinSpace op; integer ends give float64."""
    with name_scope(name, "linspace", [start, stop]):
        start = convert_to_tensor(start, name="start")
        stop = convert_to_tensor(stop, name="stop", dtype=start.dtype)
        num_int = convert_to_tensor(num, name="num", preferred_dtype=dtypes.int32)
        if not num_int.dtype.is_integer:
            raise TypeError("Argument `tensor` (name: num) must be of type integer. Received `tensor` = "
                            f"{num_int} of dtype: {num_int.dtype}")
        num_int = raw_ops.Cast(x=num_int, DstT=dtypes.int32)
        cast(num_int, dtype=start.dtype)  # unused, as in TF: it keeps the graph's node names TF's
        common = raw_ops.BroadcastArgs(s0=shape(start), s1=shape(stop))
        start = raw_ops.BroadcastTo(input=start, shape=common)
        stop = raw_ops.BroadcastTo(input=stop, shape=common)
        expanded_start = expand_dims(start, axis=axis)
        expanded_stop = expand_dims(stop, axis=axis)
        full_shape = shape(expanded_start)
        ndims = shape(full_shape)[0]
        axis = where_v2(axis >= 0, axis, ndims + axis)
        num_fill = maximum(num_int - 2, 0)
        n_steps = maximum(num_int - 1, 1)
        delta = truediv(expanded_stop - expanded_start, cast(n_steps, expanded_stop.dtype))
        expanded_start = cast(expanded_start, delta.dtype)
        expanded_stop = cast(expanded_stop, delta.dtype)
        range_end = where_v2(num_int >= 0, n_steps, -1)
        desired_range = cast(sequence_range(1, range_end, dtype=dtypes.int64), delta.dtype)
        mask = equal(axis, sequence_range(ndims))
        desired_range = reshape(desired_range, where_v2(mask, num_fill, 1))
        res = expanded_start + delta * desired_range
        concatenated = concat((expanded_start, res, expanded_stop), axis=axis)
        size_ = concat((full_shape[0:axis], reshape(num_int, [1]), full_shape[axis + 1:]), axis=0)
        return raw_ops.Slice(input=concatenated, begin=zeros_like(full_shape), size=size_, name="Slice")


CumulativeLogsumexp = Op("CumulativeLogsumexp", inputs=["x: T", "axis: Tidx"], outputs=["out: T"],
                         attrs=["exclusive: bool = false", "reverse: bool = false", "T: {bfloat16, float16, float32, float64}",
                                "Tidx: {int32, int64} = DT_INT32"])


@CumulativeLogsumexp.shape
def _cumulative_logsumexp_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return unary_shape(ctx)


@CumulativeLogsumexp.kernel("CPU")
def _cumulative_logsumexp(ctx: OpKernelContext, x: Any, axis: Any, exclusive: bool, reverse: bool) -> Any:
    """log(cumsum(exp(x))) by `np.logaddexp.accumulate` (no overflow); exclusive scans start at -inf."""
    axis = int(axis) + x.ndim if int(axis) < 0 else int(axis)  # shifted before TF's check and message
    if not 0 <= axis < x.ndim:
        raise invalid_argument(ctx, f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), but got {axis}")
    values = np.flip(x, axis) if reverse else x
    out = np.logaddexp.accumulate(values, axis=axis)
    if exclusive:
        pad = np.full_like(np.take(out, [0], axis=axis), -np.inf)
        out = np.concatenate([pad, np.take(out, np.arange(out.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@CumulativeLogsumexp.gradient
def _cumulative_logsumexp_grad(op: Any, grad: Tensor) -> list:
    """TF's: the positive and negative parts of the gradient scanned back in log space."""
    x, axis = op.inputs
    out = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    lowest = constant(grad.dtype.min, dtype=grad.dtype)
    zero = constant(0, dtype=grad.dtype)
    log_pos = where_v2(greater(grad, zero), Log(maximum(grad, zero)), lowest)
    log_neg = where_v2(less(grad, zero), Log(maximum(-grad, zero)), lowest)
    pos = Exp(CumulativeLogsumexp(log_pos - out, axis, exclusive=exclusive, reverse=not reverse) + x)
    neg = Exp(CumulativeLogsumexp(log_neg - out, axis, exclusive=exclusive, reverse=not reverse) + x)
    return [pos - neg, None]


@tf_export("math.cumulative_logsumexp")
def cumulative_logsumexp(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
                         name: str | None = None) -> Tensor:
    """log(cumsum(exp(x))) along `axis`, computed without overflow."""
    return CumulativeLogsumexp(x, axis, exclusive=exclusive, reverse=reverse, name=name)


# -- Bincount, HistogramFixedWidth ----------------------------------------------------------------

Bincount = Op("Bincount", inputs=["arr: int32", "size: int32", "weights: T"], outputs=["bins: T"],
              attrs=["T: {int32, int64, float32, float64}"])


@Bincount.shape
def _bincount_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    size_value = ctx.input_value(1)
    return [tensor_shape.TensorShape([None if size_value is None else int(size_value)])]


@Bincount.kernel("CPU")
def _bincount(ctx: OpKernelContext, arr: Any, size: Any, weights: Any) -> Any:
    """Counts (or weight sums, when `weights` is not empty) of each value below `size`; larger values are
    dropped."""
    size = int(size)
    if size < 0:
        raise invalid_argument(ctx, f"size ({size}) must be non-negative")
    if arr.size and arr.min() < 0:
        raise invalid_argument(ctx, "Input arr must be non-negative!")
    flat = arr.reshape(-1)
    keep = flat < size
    if weights.size:
        if weights.shape != arr.shape:
            raise invalid_argument(ctx, "Input arr and weights must have the same shape")
        return np.bincount(flat[keep], weights.reshape(-1)[keep], minlength=size).astype(weights.dtype)
    return np.bincount(flat[keep], minlength=size).astype(weights.dtype)


DenseBincount = Op("DenseBincount", inputs=["input: Tidx", "size: Tidx", "weights: T"], outputs=["output: T"],
                   attrs=["Tidx: {int32, int64}", "T: {int32, int64, float32, float64}", "binary_output: bool = false"])


@DenseBincount.shape
def _dense_bincount_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """[size] for a scalar or vector input, [rows, size] for a matrix; an unknown size leaves the input's
    rank of unknown dims, as TF's."""
    input_shape = ctx.input_shape(0)
    if input_shape.ndims is not None and input_shape.ndims > 2:
        raise ValueError(f"Shape must be at most rank 2 but is rank {input_shape.ndims}")
    with_rank(ctx.input_shape(1), 0)
    size_value = ctx.input_value(1)
    if size_value is None:
        return [tensor_shape.unknown_shape(rank=input_shape.ndims)]
    size_value = int(size_value)
    if size_value < 0:
        raise ValueError(f"size ({size_value}) must be non-negative")
    if input_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    rows = input_shape.dims[:1] if input_shape.ndims == 2 else []
    return [tensor_shape.TensorShape([*rows, size_value])]


@DenseBincount.kernel("CPU")
def _dense_bincount(ctx: OpKernelContext, input: Any, size: Any, weights: Any,  # noqa: A002
                    binary_output: bool) -> Any:
    """Per row of a matrix input (else over the whole vector): counts, weight sums or (binary_output) 1s of
    each value below `size`; larger values are dropped."""
    size = int(size)
    if size < 0:
        raise invalid_argument(ctx, f"size ({size}) must be non-negative")
    matrix = input.ndim == 2
    if input.size and input.min() < 0:
        raise invalid_argument(ctx, f"Input 'in' must be non-negative! Negative input value found: {input.min()}"
                               if matrix else "Input arr must be non-negative!")
    if weights.size and weights.shape != input.shape:
        raise invalid_argument(ctx, "`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which "
                               "case it acts as all weights equal to 1. Received "
                               f"{tensor_shape.shape_string(weights.shape)}")
    rows = input.shape[0] if matrix else 1
    flat = input.reshape(-1).astype(np.int64)
    keep = flat < size
    bins = flat[keep] + (np.repeat(np.arange(rows), flat.size // max(rows, 1))[keep] * size if matrix else 0)
    if binary_output or not weights.size:
        counts = np.bincount(bins, minlength=rows * size)
        counts = np.minimum(counts, 1) if binary_output else counts
    else:
        counts = np.bincount(bins, weights.reshape(-1)[keep], minlength=rows * size)
    return counts.astype(weights.dtype).reshape((rows, size) if matrix else (size,))


SparseBincount = Op("SparseBincount", inputs=["indices: int64", "values: Tidx", "dense_shape: int64", "size: Tidx",
                                              "weights: T"], outputs=["output: T"],
                    attrs=["Tidx: {int32, int64}", "T: {int32, int64, float32, float64}", "binary_output: bool = false"])


@SparseBincount.shape
def _sparse_bincount_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """[size] for a 1-D sparse input, [rows, size] for a 2-D one; unknown while the size is."""
    with_rank(ctx.input_shape(1), 1)
    with_rank(ctx.input_shape(3), 0)
    size, dense_shape = ctx.input_value(3), ctx.input_value(2)
    rank = ctx.input_shape(2).dims[0].value if ctx.input_shape(2).ndims == 1 else None
    if size is None or rank not in (1, 2):
        return [tensor_shape.unknown_shape()]
    if rank == 1:
        return [tensor_shape.TensorShape([int(size)])]
    return [tensor_shape.TensorShape([None if dense_shape is None else int(dense_shape[0]), int(size)])]


@SparseBincount.kernel("CPU")
def _sparse_bincount(ctx: OpKernelContext, indices: Any, values: Any, dense_shape: Any, size: Any, weights: Any,
                     binary_output: bool) -> Any:
    """DenseBincount over a SparseTensor's values: over them all (1-D) or per row (2-D); unlike it, negative
    values are dropped rather than rejected."""
    size = int(size)
    if size < 0:
        raise invalid_argument(ctx, f"size ({size}) must be non-negative")
    if weights.size and weights.shape != values.shape:
        raise invalid_argument(ctx, "Weights and values must have the same shape. Weight shape: "
                               f"{tensor_shape.shape_string(weights.shape)}; values shape: "
                               f"{tensor_shape.shape_string(values.shape)}")
    rows = int(dense_shape[0]) if dense_shape.size == 2 else 1
    row = indices[:, 0].astype(np.int64) if dense_shape.size == 2 else np.zeros(values.size, np.int64)
    keep = (values >= 0) & (values.astype(np.int64) < size)  # values outside [0, size) are dropped
    bins = row[keep] * size + values[keep].astype(np.int64)
    counts = np.bincount(bins, None if binary_output or not weights.size else weights[keep],
                         minlength=rows * size)
    counts = np.minimum(counts, 1) if binary_output else counts
    return counts.astype(weights.dtype).reshape((rows, size) if dense_shape.size == 2 else (size,))


@tf_export("math.bincount", "bincount")
def bincount_v1(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
                dtype: Any = dtypes.int32) -> Tensor:
    """How often each value occurs in `arr` (cast to int32 unless it is an integer tensor; or the sum of its
    `weights`), over max(arr) + 1 bins bounded by `minlength` and `maxlength`: TF 2's DenseBincount of
    the flattened input."""
    with name_scope(None, "bincount"):
        arr = convert_to_tensor(arr, name="arr")
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
        if not arr.dtype.is_integer:
            arr = cast(arr, dtypes.int32)
        output_size = cast(greater(size(arr), 0), arr.dtype) * (reduce_max(arr) + 1)
        if minlength is not None:
            output_size = maximum(convert_to_tensor(minlength, name="minlength", dtype=arr.dtype), output_size)
        if maxlength is not None:
            output_size = minimum(convert_to_tensor(maxlength, name="maxlength", dtype=arr.dtype), output_size)
        if weights is not None:
            weights = reshape(weights, [-1])
        arr = reshape(arr, [-1])
        if weights is None:
            weights = constant([], dtype=dtype)
        return DenseBincount(arr, output_size, weights)


HistogramFixedWidth = Op("HistogramFixedWidth", inputs=["values: T", "value_range: T", "nbins: int32"],
                         outputs=["out: dtype"],
                         attrs=["T: {int32, int64, float32, float64}", "dtype: {int32, int64} = DT_INT32"])
NotDifferentiable("HistogramFixedWidth")


@HistogramFixedWidth.shape
def _histogram_fixed_width_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 1)
    with_rank(ctx.input_shape(2), 0)
    nbins = ctx.input_value(2)
    if nbins is not None and int(nbins) <= 0:
        raise ValueError(f"Requires nbins > 0: {int(nbins)}")
    return [tensor_shape.TensorShape([None if nbins is None else int(nbins)])]


@HistogramFixedWidth.kernel("CPU")
def _histogram_fixed_width(ctx: OpKernelContext, values: Any, value_range: Any, nbins: Any,
                           dtype: dtypes.DType) -> Any:
    """Counts in `nbins` equal bins over value_range; values outside go to the first or last bin."""
    nbins = int(nbins)
    if value_range.shape != (2,):
        raise invalid_argument(ctx, f"value_range should be a vector of 2 elements, but got {list(value_range.shape)}")
    if nbins <= 0:
        raise invalid_argument(ctx, f"nbins should be a positive number, but got '{nbins}'")
    low, high = value_range.astype(np.float64)
    if not low < high:
        raise invalid_argument(ctx, f"value_range should satisfy value_range[0] < value_range[1], but got "
                                    f"'[{value_range[0]:g}, {value_range[1]:g}]'")  # absl's StrCat of numbers
    if values.dtype.kind == "f" and np.isnan(values).any():
        raise invalid_argument(ctx, "Histogram values must not contain NaN")
    step = (high - low) / nbins
    index = np.clip(np.floor((values.reshape(-1).astype(np.float64) - low) / step), 0, nbins - 1).astype(np.int64)
    return np.bincount(index, minlength=nbins).astype(dtype.as_numpy_dtype)


@tf_export("histogram_fixed_width")
def histogram_fixed_width(values: Any, value_range: Any, nbins: Any = 100, dtype: Any = dtypes.int32,
                          name: str | None = None) -> Tensor:
    """Counts of `values` in `nbins` equal bins over `value_range` (outliers in the end bins)."""
    with name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) as scope:
        return HistogramFixedWidth(values, value_range, nbins, dtype=dtype, name=scope)


@tf_export("histogram_fixed_width_bins")
def histogram_fixed_width_bins(values: Any, value_range: Any, nbins: Any = 100, dtype: Any = dtypes.int32,
                               name: str | None = None) -> Tensor:
    """The bin of each value among `nbins` equal bins over `value_range` (outliers in the end bins)."""
    with name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        values_shape = shape(values)
        flat = reshape(values, [-1])
        value_range = convert_to_tensor(value_range, dtype=values.dtype, name="value_range")
        nbins_float = cast(nbins, values.dtype)
        scaled = (flat - value_range[0]) / (value_range[1] - value_range[0])
        indices = clip_by_value(Floor(nbins_float * scaled), 0, nbins_float - 1)
        return reshape(cast(indices, dtype), values_shape)


# -- Bucketize (math_ops._bucketize: feature columns' bucketized_column) --------------------------------

Bucketize = Op("Bucketize", inputs=["input: T"], outputs=["output: int32"],
               attrs=["T: {int32, int64, float, double}", "boundaries: list(float)"])
NotDifferentiable("Bucketize")
Bucketize.shape(unary_shape)


@Bucketize.kernel("CPU")
def _bucketize(ctx: OpKernelContext, input: Any, T: dtypes.DType, boundaries: list[float]) -> Any:
    """The index of the first boundary greater than each value. As TF's kernel, boundaries are float32 and a
    value is compared in float32 (a double value in double)."""
    edges = np.asarray(boundaries, dtype=np.float32)
    if np.any(edges[1:] < edges[:-1]):
        raise invalid_argument(ctx, "Expected sorted boundaries")
    compare_dtype = np.float64 if T == dtypes.float64 else np.float32
    return np.searchsorted(edges.astype(compare_dtype), input.astype(compare_dtype), side="right").astype(np.int32)


def bucketize(input: Any, boundaries: list[float], name: str | None = None) -> Tensor:
    """TF's `math_ops._bucketize`: which of the len(boundaries) + 1 buckets each value falls in."""
    return Bucketize(input, boundaries=[float(b) for b in boundaries], name=name)
