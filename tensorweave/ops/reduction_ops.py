"""Reductions: Sum, Mean, Max, Min, Prod, EuclideanNorm, Any and All over axes (`tf.reduce_*`, with TF1's argument aliases),
the composites reduce_logsumexp, reduce_variance, reduce_std and count_nonzero, the arg-reductions ArgMax and
ArgMin, and the scans Cumsum and Cumprod.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Tensor, colocate_with, convert_to_tensor, device, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import constant_ops, fill_ops, raw_ops, sequence_ops, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import (
    Conj,
    Exp,
    IsFinite,
    Log,
    Mul,
    Real,
    SelectV2,
    Sqrt,
    Square,
    add,
    conj,
    not_equal,
    subtract,
)
from tensorweave.ops.kernel_helpers import BFLOAT16, c_division, in_float32
from tensorweave.ops.manipulation_ops import concat, invert_permutation, stop_gradient, transpose
from tensorweave.ops.shape_helpers import unary_shape, with_rank
from tensorweave.platform.tf_export import tf_export

# -- Reductions --------------------------------------------------------------------------------------


def _reduction_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    keep_dims = ctx.attr("keep_dims")
    axes = ctx.input_value(1)
    if ctx.input_shape(1).ndims is not None and ctx.input_shape(1).ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {ctx.input_shape(1).ndims}")
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if axes is None:
        return [tensor_shape.unknown_shape(rank=shape.ndims) if keep_dims else tensor_shape.unknown_shape()]
    rank = shape.ndims
    axes_set = set()
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        axes_set.add(a % rank)
    dims = shape.as_list()
    if keep_dims:
        return [tensor_shape.TensorShape([1 if i in axes_set else d for i, d in enumerate(dims)])]
    return [tensor_shape.TensorShape([d for i, d in enumerate(dims) if i not in axes_set])]


class _ReductionAxes:
    """A reduction kernel's persistent state: the last axes array it checked, for which rank, and the
    result (a graph constant arrives as the same array every step, so it is checked once)."""

    __slots__ = ("last",)

    def __init__(self, attrs: Any = None) -> None:
        self.last: tuple[Any, int, tuple[int, ...]] | None = None


def _reduction_axes(ctx: OpKernelContext, x: Any, axes: Any) -> tuple[int, ...]:
    """The checked, non-negative reduction axes, remembered per node for the same axes array and rank."""
    rank = np.ndim(x)
    cached = ctx.state.last
    if cached is not None and cached[0] is axes and cached[1] == rank:
        return cached[2]
    result = []
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < rank:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Invalid reduction dimension ({a} for input "
                                              f"with {rank} dimension(s)")
        a %= rank
        if a in result:
            raise errors.InvalidArgumentError(ctx.node_def, None, "Invalid reduction arguments: Axes contains "
                                              f"duplicate dimension: {a}")
        result.append(a)
    normalized = tuple(result)
    ctx.state.last = (axes, rank, normalized)
    return normalized


def _reduction_op(name: str, types: str) -> Op:
    op = Op(name, inputs=["input: T", "reduction_indices: Tidx"], outputs=["output: T"],
            attrs=["keep_dims: bool = false", f"T: {types}", "Tidx: {int32, int64} = DT_INT32"])
    op.shape(_reduction_shape)
    return op


Sum = _reduction_op("Sum", "numbertype")
Mean = _reduction_op("Mean", "numbertype")
Max = _reduction_op("Max", "{realnumbertype, quantizedtype}")
Min = _reduction_op("Min", "{realnumbertype, quantizedtype}")
Prod = _reduction_op("Prod", "numbertype")
EuclideanNorm = _reduction_op("EuclideanNorm", "numbertype")


# Eigen's float16 and float32 sums (TF's CPU Sum and Mean kernels), whose rounding at every step makes the
# order matter: an innermost reduction keeps four 8-lane packet accumulators (lane j % 32), adds them in order,
# then the remaining whole packets, adds the 8 lanes (float16: in float, in order; float32: as a tree, lane i
# with i + 4, then i + 2, then i + 1) and the leftover scalars in order, then the scalars' sum and the lanes';
# above 8 * leaf values (leaf: 200 for float16, 1024 for float32) it halves the range (at a packet boundary)
# and adds the halves' sums. A reduction over leading rows keeps four row accumulators (row j % 4), adds them
# in order, then the leftover rows (float16).
_HALF_PACKET, _HALF_UNROLL, _HALF_LEAF, _FLOAT_LEAF = 8, 4, 200, 1024
# float32 sums follow Eigen's order where it costs little beside NumPy's: rows of up to one leaf range (losses,
# metrics), up to 2^20 values in all; a longer row (where TF's own order also depends on its thread pool's
# blocks) takes NumPy's pairwise sum, ten times faster than the replay
_FLOAT_ORDERED_LENGTH, _FLOAT_ORDERED_ELEMENTS = _HALF_PACKET * _FLOAT_LEAF, 1 << 20


def _eigen_inner_sums(v: Any) -> Any:
    """The sums of the rows of a float16 or float32 [rows, n] array in Eigen's order."""
    n = v.shape[1]
    leaf = _HALF_LEAF if v.dtype == np.float16 else _FLOAT_LEAF
    if n > _HALF_PACKET * leaf:
        half = (n + 1) // 2
        split = (half + _HALF_PACKET - 1) // _HALF_PACKET * _HALF_PACKET
        return _eigen_inner_sums(v[:, :split]) + _eigen_inner_sums(v[:, split:])
    width = _HALF_PACKET * _HALF_UNROLL
    unrolled = n // width * width
    lanes = np.add.reduce(v[:, :unrolled].reshape(len(v), -1, _HALF_UNROLL, _HALF_PACKET), axis=1)
    packet = np.zeros((len(v), _HALF_PACKET), v.dtype)
    for u in range(_HALF_UNROLL):
        packet += lanes[:, u]
    packets_end = n // _HALF_PACKET * _HALF_PACKET
    for start in range(unrolled, packets_end, _HALF_PACKET):
        packet += v[:, start:start + _HALF_PACKET]
    if v.dtype == np.float16:
        total = packet.astype(np.float32).sum(axis=1).astype(np.float16)
    else:
        while packet.shape[1] > 1:
            packet = packet[:, :packet.shape[1] // 2] + packet[:, packet.shape[1] // 2:]
        total = packet[:, 0]
    if packets_end == n:
        return total
    scalars = v[:, packets_end].copy()
    for j in range(packets_end + 1, n):  # at most 7 columns, whole-array steps
        scalars += v[:, j]
    return scalars + total


def _eigen_outer_sums(v: Any) -> Any:
    """The sums over axis 1 of a float16 [outer, n, inner] array in Eigen's order: four row accumulators."""
    n = v.shape[1]
    whole = n // _HALF_UNROLL * _HALF_UNROLL
    lanes = np.add.reduce(v[:, :whole].reshape(len(v), -1, _HALF_UNROLL, v.shape[2]), axis=1)
    total = np.zeros((len(v), v.shape[2]), v.dtype)
    for u in range(_HALF_UNROLL):
        total += lanes[:, u]
    for j in range(whole, n):  # at most 3 rows
        total += v[:, j]
    return total


def eigen_order_sum(x: Any, axes: tuple[int, ...], keep_dims: bool) -> Any | None:
    """`x` (float16, or float32 reduced over its innermost axes) summed over `axes` as TF's kernel orders the
    additions, where the reduced and kept axes, once adjacent ones of a kind are merged, are [kept, reduced]
    or (float16) [kept, reduced, kept]; else None."""
    groups: list[list] = []
    for i, size in enumerate(x.shape):
        if size == 1:
            continue
        reduced = i in axes
        if groups and groups[-1][1] == reduced:
            groups[-1][0] *= size
        else:
            groups.append([size, reduced])
    kinds = tuple(reduced for _, reduced in groups)
    if x.size == 0 or True not in kinds or kinds.count(True) > 1:
        return None
    sizes = [size for size, _ in groups]
    if x.dtype == np.float32 and not (kinds[-1] and sizes[-1] <= _FLOAT_ORDERED_LENGTH
                                      and x.size <= _FLOAT_ORDERED_ELEMENTS):
        return None
    with np.errstate(over="ignore"):
        if kinds[-1]:
            total = _eigen_inner_sums(x.reshape(-1, sizes[-1]))
        else:
            at = kinds.index(True)
            total = _eigen_outer_sums(x.reshape(math.prod(sizes[:at]), sizes[at], math.prod(sizes[at + 1:])))
    out_shape = [1 if i in axes else d for i, d in enumerate(x.shape)] if keep_dims else [
        d for i, d in enumerate(x.shape) if i not in axes]
    return total.reshape(out_shape)


@Sum.kernel("CPU", state=_ReductionAxes)
def _sum(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    """In the input's type, except bfloat16, which TF sums in float32 and rounds once."""
    axes = _reduction_axes(ctx, input, reduction_indices)
    if input.dtype == BFLOAT16:
        return ctx.xp.sum(input, axis=axes, keepdims=keep_dims, dtype=np.float32).astype(BFLOAT16)
    if input.dtype in (np.float16, np.float32) and isinstance(input, np.ndarray):
        total = eigen_order_sum(input, axes, keep_dims)
        if total is not None:
            return total
    if leading_row_sum_applies(input, axes):
        return leading_row_sum(input, len(axes), keep_dims)
    return ctx.xp.sum(input, axis=axes, keepdims=keep_dims, dtype=input.dtype)


_MIN_BLAS_ROWS = 1024  # measured: the row sum of [50176, 32] float32 by a vector product, 0.08 ms against 0.8


def leading_row_sum_applies(x: Any, axes: tuple[int, ...]) -> bool:
    """Whether a sum adds many rows of a contiguous float32/64 array over its leading axes (a bias's gradient),
    which BLAS does as one vector-matrix product, ten times faster than NumPy's row by row reduction (and
    more accurately, by blocks)."""
    return (isinstance(x, np.ndarray) and x.dtype in (np.float32, np.float64) and 0 < len(axes) < x.ndim
            and sorted(axes) == list(range(len(axes))) and x.flags.c_contiguous
            and math.prod(x.shape[:len(axes)]) >= _MIN_BLAS_ROWS and math.prod(x.shape[len(axes):]) > 0)


def leading_row_sum(x: Any, count: int, keep_dims: bool = False) -> Any:
    """The sum of `x` over its first `count` axes, as ones times its [rows, rest] matrix (see
    leading_row_sum_applies)."""
    kept = x.shape[count:]
    total = np.matmul(np.ones(math.prod(x.shape[:count]), x.dtype), x.reshape(-1, math.prod(kept)))
    return total.reshape((1,) * count + kept if keep_dims else kept)


@Prod.kernel("CPU", state=_ReductionAxes)
def _prod(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    return ctx.xp.prod(input, axis=_reduction_axes(ctx, input, reduction_indices), keepdims=keep_dims,
                       dtype=input.dtype)


@Mean.kernel("CPU", state=_ReductionAxes)
def _mean(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    """Sum over count: an empty reduction is 0/0 = nan for floats (as TF), 0 for integers and complex
    numbers; floats sum and divide in their own type (float16 overflows to inf, as TF's, its sum in Eigen's
    order), except bfloat16,
    which TF sums and divides in float32 and rounds once."""
    axes = _reduction_axes(ctx, input, reduction_indices)
    xp = ctx.xp
    count = int(np.prod([input.shape[a] for a in axes], dtype=np.int64)) if axes else 1
    if input.dtype.kind in "iu":
        total = xp.sum(input, axis=axes, keepdims=keep_dims, dtype=np.int64)
        return c_division(total, np.int64(max(count, 1))).astype(input.dtype)
    if input.dtype == BFLOAT16:
        total = xp.sum(input, axis=axes, keepdims=keep_dims, dtype=np.float32)
        return xp.true_divide(total, np.float32(count)).astype(BFLOAT16)
    total = eigen_order_sum(input, axes, keep_dims) if input.dtype in (np.float16, np.float32) and isinstance(
        input, np.ndarray) else None
    if total is None:
        total = xp.sum(input, axis=axes, keepdims=keep_dims, dtype=input.dtype)
    if count == 0 and input.dtype.kind == "c":
        return total
    return xp.true_divide(total, input.dtype.type(count))


@EuclideanNorm.kernel("CPU", state=_ReductionAxes)
def _euclidean_norm(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    """sqrt(sum(x conj(x))), summed in the input's type as TF's: integers square and add with wraparound and
    take the truncated root (uint8 [200, 200] gives 11); float16 squares and sums in float16 in Eigen's order;
    bfloat16 sums in float32; complex stays complex."""
    axes = _reduction_axes(ctx, input, reduction_indices)
    xp = ctx.xp
    if input.dtype.kind in "iu":
        total = xp.sum(input * input, axis=axes, keepdims=keep_dims, dtype=input.dtype)
        return xp.sqrt(xp.maximum(total, 0).astype(np.float64)).astype(input.dtype)
    if input.dtype == np.float16 and isinstance(input, np.ndarray):
        total = eigen_order_sum(input * input, axes, keep_dims)
        if total is not None:
            return np.sqrt(total)
    wide = in_float32(input)
    return xp.sqrt(xp.sum(wide * xp.conj(wide), axis=axes, keepdims=keep_dims, dtype=wide.dtype)).astype(input.dtype)


def _lowest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).min if dtype.kind in "iu" else -np.inf


def _highest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).max if dtype.kind in "iu" else np.inf


def _extreme_kernel(fn: Callable, identity: Callable[[np.dtype], Any]) -> Callable:
    """Max or Min; reducing nothing gives the identity (-inf, or the integer type's lowest value, for
    Max), as TF's."""
    def kernel(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
        axes = _reduction_axes(ctx, input, reduction_indices)
        if input.size:
            return fn(input, axis=axes, keepdims=keep_dims)
        return fn(input, axis=axes, keepdims=keep_dims, initial=identity(input.dtype))
    return kernel


Max.kernel("CPU", state=_ReductionAxes)(_extreme_kernel(np.max, _lowest))
Min.kernel("CPU", state=_ReductionAxes)(_extreme_kernel(np.min, _highest))


def _deprecated_alias(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    """TF's deprecated_argument_lookup: the value given under either name of a renamed argument."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return old_value


def _reduction_dims(x: Any, axis: Any) -> Any:
    """The axes to reduce: every axis when `axis` is None, a Const only for a Tensor or variable of known
    non-zero rank (TF takes the Rank/Range path for everything else: scalars, lists, NumPy arrays)."""
    if axis is not None:
        return axis
    shape = getattr(x, "shape", None)
    rank = shape.ndims if isinstance(shape, tensor_shape.TensorShape) else None
    if rank:
        return constant_ops.constant(np.arange(rank, dtype=np.int32))
    return sequence_ops.range(0, shape_ops.rank(x))


def _reduce(op: Op, input_tensor: Any, axis: Any, keepdims: Any, name: str | None, reduction_indices: Any,
            keep_dims: Any) -> Tensor:
    """TF1's reduce_* wrappers: `axis`/`reduction_indices` and `keepdims`/`keep_dims` aliases."""
    axis = _deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    result = op(input_tensor, _reduction_dims(input_tensor, axis), keep_dims=keepdims, name=name)
    if axis is None and not keepdims:
        result.set_shape([])  # every axis is reduced, even when the rank is unknown
    return result


@tf_export("math.reduce_sum", "reduce_sum")
@add_dispatch_support
def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Sum over `axis` (all axes when None)."""
    return _reduce(Sum, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@tf_export("math.reduce_mean", "reduce_mean")
@add_dispatch_support
def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Mean over `axis` (integer inputs divide with truncation, as TF)."""
    return _reduce(Mean, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@tf_export("math.reduce_max", "reduce_max")
@add_dispatch_support
def reduce_max(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    return _reduce(Max, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@tf_export("math.reduce_min", "reduce_min")
@add_dispatch_support
def reduce_min(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    return _reduce(Min, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@tf_export("math.reduce_prod", "reduce_prod")
@add_dispatch_support
def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    return _reduce(Prod, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@tf_export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: str | None = None) -> Tensor:
    """The 2-norm over `axis` (all axes when None), in the input's type (integers truncate)."""
    return _reduce(EuclideanNorm, input_tensor, axis, bool(keepdims), name, None, None)


def _logical_reduction_op(name: str, fn: Callable) -> Op:
    """Any/All: a reduction of a bool tensor (no T attr); empty axes reduce to the identity, as NumPy."""
    op = Op(name, inputs=["input: bool", "reduction_indices: Tidx"], outputs=["output: bool"],
            attrs=["keep_dims: bool = false", "Tidx: {int32, int64} = DT_INT32"])
    op.shape(_reduction_shape)

    @op.kernel("CPU", state=_ReductionAxes)
    def kernel(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
        return fn(input, axis=_reduction_axes(ctx, input, reduction_indices), keepdims=keep_dims)

    return op


Any_ = _logical_reduction_op("Any", np.any)  # `Any` is typing.Any in this module
All = _logical_reduction_op("All", np.all)


@tf_export("math.reduce_any", "reduce_any")
@add_dispatch_support
def reduce_any(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Logical or over `axis` (all axes when None)."""
    return _reduce(Any_, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@tf_export("math.reduce_all", "reduce_all")
@add_dispatch_support
def reduce_all(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Logical and over `axis` (all axes when None)."""
    return _reduce(All, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


@tf_export("math.reduce_logsumexp", "reduce_logsumexp")
def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                     reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """log(sum(exp(x))) over `axis`, composed as TF does: the (finite) max is subtracted first and added back."""
    axis = _deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        my_max = stop_gradient(SelectV2(IsFinite(raw_max), raw_max, 0))
        result = Log(reduce_sum(Exp(subtract(input_tensor, my_max)), axis=axis, keepdims=keepdims))
        if not keepdims:
            my_max = shape_ops.reshape(my_max, shape_ops.Shape(result))
        result = add(result, my_max, name=scope)
        if axis is None and not keepdims:
            result.set_shape([])
        return result


@tf_export("math.reduce_variance")
def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """The mean squared deviation from the mean over `axis` (|deviation|^2 for complex input, real-valued);
    integer input is refused."""
    with name_scope(name or "reduce_variance"):
        input_tensor = convert_to_tensor(input_tensor)
        means = reduce_mean(input_tensor, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type {means.dtype}.")
        diff = input_tensor - means
        if diff.dtype.is_complex:
            squared_deviations = Real(Mul(Conj(diff), diff), Tout=diff.dtype.real_dtype)
        else:
            squared_deviations = Square(diff)
        return reduce_mean(squared_deviations, axis=axis, keepdims=keepdims)


@tf_export("math.reduce_std")
def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """The square root of `reduce_variance`."""
    with name_scope(name or "reduce_std"):
        return Sqrt(reduce_variance(convert_to_tensor(input_tensor), axis=axis, keepdims=keepdims))


@tf_export("math.count_nonzero", "count_nonzero")
def count_nonzero(input_tensor: Any = None, axis: Any = None, keepdims: Any = None, dtype: Any = dtypes.int64,
                  name: str | None = None, reduction_indices: Any = None, keep_dims: Any = None,
                  input: Any = None) -> Tensor:  # noqa: A002 - TF's name
    """The number of non-zero (non-empty for strings) elements over `axis`, counted in int64."""
    input_tensor = _deprecated_alias("input", input, "input_tensor", input_tensor)
    axis = _deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims)
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input")
        nonzero = x if x.dtype.base_dtype == dtypes.bool else not_equal(x, fill_ops.zeros([], dtype=x.dtype))
        return cast(reduce_sum(cast(nonzero, dtypes.int64), axis=axis, keepdims=keepdims), dtype)


# -- ArgMax, ArgMin, Cumsum, Cumprod ---------------------------------------------------------------


def _arg_reduce_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The input's shape without the reduced dimension; a scalar or vector gives a scalar whatever the
    dimension (TF checks it only when the kernel runs)."""
    shape = ctx.input_shape(0)
    with_rank(ctx.input_shape(1), 0)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if shape.ndims <= 1:
        return [tensor_shape.TensorShape([])]
    dimension = ctx.input_value(1)
    if dimension is None:
        return [tensor_shape.unknown_shape(rank=shape.ndims - 1)]
    rank, dimension = shape.ndims, int(dimension)
    if not -rank <= dimension < rank:
        raise ValueError(f"Dimension ({dimension}) must be in the range [{-rank}, {rank}), where {rank} is the "
                         "number of dimensions in the input.")
    dims = shape.as_list()
    del dims[dimension % rank]
    return [tensor_shape.TensorShape(dims)]


def _arg_reduce_op(name: str, index_types: str, output_types: str, fn: Callable, nan: float) -> Op:
    """ArgMax/ArgMin: the first index of the extreme value along a dimension; NaNs never win, as in TF."""
    op = Op(name, inputs=["input: T", "dimension: Tidx"], outputs=["output: output_type"],
            attrs=["T: {realnumbertype, quantizedtype, bool}", f"Tidx: {index_types} = DT_INT32",
                   f"output_type: {output_types} = DT_INT64"])
    op.shape(_arg_reduce_shape)

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, input: Any, dimension: Any, output_type: dtypes.DType) -> Any:  # noqa: A002
        if np.ndim(dimension) != 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, "dim must be a scalar, but received tensor of "
                                              f"shape: {tensor_shape.shape_string(np.shape(dimension))}")
        rank, axis = np.ndim(input), int(dimension)
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Expected dimension in the range [{-rank}, "
                                              f"{rank}), but got {axis}")
        axis %= rank
        if input.shape[axis] == 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Reduction axis {axis} is empty in shape "
                                              f"{tensor_shape.shape_string(input.shape)}")
        if input.dtype.kind == "f":
            input = ctx.xp.where(ctx.xp.isnan(input), nan, input)
        return fn(input, axis=axis).astype(output_type.as_numpy_dtype)

    return op


ArgMax = _arg_reduce_op("ArgMax", "{int16, int32, int64}", "{int16, uint16, int32, int64}", np.argmax, -np.inf)
ArgMin = _arg_reduce_op("ArgMin", "{int32, int64}", "{int32, int64}", np.argmin, np.inf)


def _arg_reduce(op: Op, input: Any, axis: Any, name: str | None, dimension: Any,  # noqa: A002
                output_type: Any) -> Tensor:
    """TF1's argmax/argmin: `dimension` aliases `axis` (0 when neither), which must be a Python int or an
    integer Tensor."""
    axis = _deprecated_alias("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    elif not isinstance(axis, int) and not (isinstance(axis, Tensor) and axis.dtype.is_integer):
        if hasattr(axis, "dtype"):
            raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
        raise TypeError("axis must be int or Tensor with integer datatype")
    return op(input, axis, output_type=output_type, name=name)


@tf_export("math.argmax", "argmax")
def argmax(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
           output_type: Any = dtypes.int64) -> Tensor:
    """The index of the largest value along `axis` (the first one on ties)."""
    return _arg_reduce(ArgMax, input, axis, name, dimension, output_type)


@tf_export("math.argmin", "argmin")
def argmin(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
           output_type: Any = dtypes.int64) -> Tensor:
    """The index of the smallest value along `axis` (the first one on ties)."""
    return _arg_reduce(ArgMin, input, axis, name, dimension, output_type)


@tf_export("arg_max")
def arg_max(input: Any, dimension: Any, output_type: Any = dtypes.int64,  # noqa: A002 - TF's name
            name: str | None = None) -> Tensor:
    """TF1's raw `tf.arg_max`: the ArgMax op, `dimension` required."""
    return ArgMax(input, dimension, output_type=output_type, name=name)


@tf_export("arg_min")
def arg_min(input: Any, dimension: Any, output_type: Any = dtypes.int64,  # noqa: A002 - TF's name
            name: str | None = None) -> Tensor:
    """TF1's raw `tf.arg_min`: the ArgMin op, `dimension` required."""
    return ArgMin(input, dimension, output_type=output_type, name=name)


def _scan_op(name: str, scan: str, identity: int) -> Op:
    """Cumsum or Cumprod: a running `scan` along one axis; `exclusive` starts from the identity,
    `reverse` runs from the end."""
    op = Op(name, inputs=["x: T", "axis: Tidx"], outputs=["out: T"],
            attrs=["exclusive: bool = false", "reverse: bool = false", "T: numbertype",
                   "Tidx: {int32, int64} = DT_INT32"])
    op.shape(unary_shape)

    @op.kernel("CPU")
    def _scan(ctx: OpKernelContext, x: Any, axis: Any, exclusive: bool, reverse: bool) -> Any:
        xp = ctx.xp
        if np.ndim(axis) != 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, "ScanOp: axis must be a scalar, not "
                                              f"{tensor_shape.shape_string(np.shape(axis))}")
        rank, axis = np.ndim(x), int(axis)
        axis = axis + rank if axis < 0 else axis  # TF's kernel shifts a negative axis before its check and message
        if not 0 <= axis < rank:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"ScanOp: Expected scan axis in the range "
                                              f"[{-rank}, {rank}), but got {axis}")
        if reverse:
            x = xp.flip(x, axis)
        out = getattr(xp, scan)(x, axis=axis, dtype=x.dtype)
        if exclusive:
            shifted = xp.full_like(out, identity)
            shifted[(slice(None),) * axis + (slice(1, None),)] = out[(slice(None),) * axis + (slice(None, -1),)]
            out = shifted
        return xp.flip(out, axis) if reverse else out

    return op


Cumsum = _scan_op("Cumsum", "cumsum", 0)
Cumprod = _scan_op("Cumprod", "cumprod", 1)


@tf_export("math.cumsum", "cumsum")
def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Tensor:
    """Running sums along `axis`; `exclusive` leaves each element out of its own sum, `reverse` runs
    from the end."""
    with name_scope(name, "Cumsum", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return Cumsum(x, axis, exclusive=exclusive, reverse=reverse, name=scope)


@tf_export("math.cumprod", "cumprod")
def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
            name: str | None = None) -> Tensor:
    """Running products along `axis` (exclusive starts from 1)."""
    with name_scope(name, "Cumprod", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return Cumprod(x, axis, exclusive=exclusive, reverse=reverse, name=scope)


# -- Gradients -----------------------------------------------------------------------------------------
# A reduction's gradient spreads the output's gradient over the reduced axes (TF's math_grad): reshaped to
# the kept-dims shape, then tiled or broadcast back to the input's shape.

def reduced_shape(input_shape: Any, axes: Any) -> Any:
    """TF's math_ops.reduced_shape: `input_shape` with the reduced axes set to 1 (the keepdims shape), a NumPy
    array when both are known while building, else a DynamicStitch of the shape and ones."""
    known_shape, known_axes = (value if not isinstance(value, Tensor) else tensor_util.constant_value(value)
                               for value in (input_shape, axes))
    if known_shape is not None and known_axes is not None:
        kept = np.array(known_shape, dtype=np.int32)
        kept[np.array(known_axes, dtype=np.int32)] = 1
        return kept
    axes = convert_to_tensor(axes)
    rank = shape_ops.size(input_shape, out_type=axes.dtype)
    axes = (axes + rank) % rank
    axes_shape = shape_ops.shape(axes)
    indices = [sequence_ops.range(rank), axes]
    return raw_ops.DynamicStitch(indices=indices, data=[input_shape, fill_ops.ones(axes_shape, dtype=input_shape.dtype)])


def _kept_dims_gradient(op: Any, grad: Tensor, input_shape: Tensor) -> Tensor:
    """The output's gradient reshaped to the kept-dims shape unless the op kept them (TF's reductions'
    gradients), the shape computed beside the input's shape."""
    if op.get_attr("keep_dims"):
        return grad
    with colocate_with(input_shape):
        kept = reduced_shape(input_shape, op.inputs[1])
    return shape_ops.reshape(grad, kept)


@Sum.gradient
def _sum_grad(op: Any, grad: Tensor) -> list:
    x = op.inputs[0]
    dims = x.shape
    axes = tensor_util.constant_value(op.inputs[1])
    if dims.ndims is not None and axes is not None:
        if np.array_equal(axes, np.arange(dims.ndims)):
            # A sum of every axis in order: Reshape and Tile, by the static shape where it is known (TF's fast path)
            grad = shape_ops.reshape(grad, [1] * dims.ndims)
            multiples = (constant_ops.constant(dims.as_list(), dtype=dtypes.int32) if dims.is_fully_defined()
                         else shape_ops.shape(x))
            return [raw_ops.Tile(input=grad, multiples=multiples), None]
        if dims.is_fully_defined():
            kept = reduced_shape(dims.as_list(), axes)
            grad = shape_ops.reshape(grad, kept.tolist())
            return [raw_ops.Tile(input=grad, multiples=[d // max(k, 1) for d, k in zip(dims.as_list(), kept)]), None]
    input_shape = shape_ops.shape(x)
    return [shape_ops.broadcast_to(_kept_dims_gradient(op, grad, input_shape), input_shape), None]


@EuclideanNorm.gradient
def _euclidean_norm_grad(op: Any, grad: Tensor) -> list:
    """x / (norm / grad), norm and grad in the kept-dims shape: nan where the norm is 0, as TF's."""
    output = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = reduced_shape(shape_ops.shape(op.inputs[0]), op.inputs[1])
        output, grad = shape_ops.reshape(output, kept), shape_ops.reshape(grad, kept)
    return [raw_ops.RealDiv(x=op.inputs[0], y=output / grad, name="truediv"), None]


@Mean.gradient
def _mean_grad(op: Any, grad: Tensor) -> list:
    sum_grad = _sum_grad(op, grad)[0]
    in_shape, out_shape = op.inputs[0].shape, op.outputs[0].shape
    if in_shape.is_fully_defined() and out_shape.is_fully_defined():
        factor = constant_ops.constant(in_shape.num_elements() // max(out_shape.num_elements(), 1),
                                       dtype=sum_grad.dtype)
    else:
        input_shape = shape_ops.shape(op.inputs[0])
        rank = shape_ops.size(input_shape)
        axes = (cast(op.inputs[1], rank.dtype) + rank) % rank
        factor = reduce_prod(raw_ops.GatherV2(params=input_shape, indices=axes, axis=0))
    if sum_grad.dtype.is_integer:
        return [raw_ops.FloorDiv(x=sum_grad, y=cast(factor, sum_grad.dtype)), None]
    return [raw_ops.RealDiv(x=sum_grad, y=cast(factor, sum_grad.dtype), name="truediv"), None]


def _min_or_max_grad(op: Any, grad: Tensor) -> list:
    """The gradient split evenly among the elements equal to the extremum."""
    input_shape = shape_ops.shape(op.inputs[0])
    y = op.outputs[0]
    if op.get_attr("keep_dims"):
        kept = shape_ops.shape(y)
    else:
        kept = reduced_shape(input_shape, op.inputs[1])
        y, grad = shape_ops.reshape(y, kept), shape_ops.reshape(grad, kept)
    indicators = cast(raw_ops.Equal(x=y, y=op.inputs[0]), grad.dtype)
    num_selected = shape_ops.reshape(Sum(indicators, op.inputs[1]), kept)
    return [raw_ops.RealDiv(x=indicators, y=num_selected, name="truediv") * grad, None]


Max.gradient(_min_or_max_grad)
Min.gradient(_min_or_max_grad)


@Prod.gradient
def _prod_grad(op: Any, grad: Tensor) -> list:
    """TF's: the product of every other reduced element, as exclusive cumulative products from both ends over
    the reduced axes moved first and flattened (no division, so zeros are handled)."""
    x = op.inputs[0]
    input_shape = shape_ops.shape(x)
    reduction_indices = shape_ops.reshape(op.inputs[1], [-1])
    if not op.get_attr("keep_dims"):
        grad = shape_ops.reshape(grad, reduced_shape(input_shape, op.inputs[1]))
    grad = shape_ops.broadcast_to(grad, input_shape)
    with device("/cpu:0"):  # shape arithmetic stays on the host, as TF's
        rank = shape_ops.rank(x)
        reduced = (cast(reduction_indices, rank.dtype) + rank) % rank
        other = raw_ops.ListDiff(x=sequence_ops.range(0, rank), y=reduced, out_idx=reduced.dtype)[0]
        perm = concat([reduced, other], 0)
        reduced_num = reduce_prod(raw_ops.GatherV2(params=input_shape, indices=reduced, axis=0))
        other_num = reduce_prod(raw_ops.GatherV2(params=input_shape, indices=other, axis=0))
    permuted = transpose(x, perm)
    permuted_shape = shape_ops.shape(permuted)
    reshaped = shape_ops.reshape(permuted, (reduced_num, other_num))
    left = Cumprod(reshaped, 0, exclusive=True)
    right = Cumprod(reshaped, 0, exclusive=True, reverse=True)
    y = shape_ops.reshape(conj(left) * conj(right), permuted_shape)
    out = grad * transpose(y, invert_permutation(perm))
    return [shape_ops.reshape(out, input_shape), None]


@Cumsum.gradient
def _cumsum_grad(op: Any, grad: Tensor) -> list:
    return [Cumsum(grad, op.inputs[1], exclusive=op.get_attr("exclusive"),
                   reverse=not op.get_attr("reverse")), None]


@Cumprod.gradient
def _cumprod_grad(op: Any, grad: Tensor) -> list:
    """TF's: the reversed cumulative sum of prod * grad, divided by x (0 where x is 0)."""
    x, axis = op.inputs
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = Cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    return [raw_ops.DivNoNan(x=Cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse), y=x), None]


for _op_type in ("ArgMax", "ArgMin", "Any", "All"):
    NotDifferentiable(_op_type)
