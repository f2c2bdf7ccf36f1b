"""Values as sets and sorted sequences: Unique and UniqueWithCounts (distinct values in order of first
occurrence), ListDiff (`tf.setdiff1d`), LowerBound and UpperBound (`tf.searchsorted`).

The bounds are found for a whole batch at once by one stable sort per row of the values merged with the
sorted sequence: a value's position in the merged order, less its rank among the values, is how many
sequence entries precede it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import reshape, shape
from tensorweave.platform.tf_export import tf_export

# -- Unique and UniqueWithCounts --------------------------------------------------------------------------

Unique = Op("Unique", inputs=["x: T"], outputs=["y: T", "idx: out_idx"],
            attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"])
UniqueWithCounts = Op("UniqueWithCounts", inputs=["x: T"], outputs=["y: T", "idx: out_idx", "count: out_idx"],
                      attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"])


@Unique.shape
def _unique_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.vector(None), with_rank(ctx.input_shape(0), 1)]


@UniqueWithCounts.shape
def _unique_with_counts_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.vector(None), with_rank(ctx.input_shape(0), 1), tensor_shape.vector(None)]


def _unique_first_occurrence(ctx: OpKernelContext, x: Any, out_idx: dtypes.DType) -> tuple[Any, Any, Any]:
    """The distinct values in order of first occurrence, each element's position among them, and counts."""
    if x.ndim != 1:
        raise invalid_argument(ctx, "unique expects a 1D vector.")
    values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    index_type = out_idx.as_numpy_dtype
    return values[order], rank[inverse.reshape(-1)].astype(index_type), counts[order].astype(index_type)


@Unique.kernel("CPU")
def _unique(ctx: OpKernelContext, x: Any, out_idx: dtypes.DType) -> list:
    return list(_unique_first_occurrence(ctx, x, out_idx)[:2])


@UniqueWithCounts.kernel("CPU")
def _unique_with_counts(ctx: OpKernelContext, x: Any, out_idx: dtypes.DType) -> list:
    return list(_unique_first_occurrence(ctx, x, out_idx))


@tf_export("unique")
def unique(x: Any, out_idx: Any = dtypes.int32, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The distinct values of the vector `x` in order of first occurrence, and each element's index among them."""
    return Unique(x, out_idx=out_idx, name=name)


@tf_export("unique_with_counts")
def unique_with_counts(x: Any, out_idx: Any = dtypes.int32,
                       name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """`unique`, and how often each distinct value occurs."""
    return UniqueWithCounts(x, out_idx=out_idx, name=name)


# -- ListDiff ---------------------------------------------------------------------------------------------

ListDiff = Op("ListDiff", inputs=["x: T", "y: T"], outputs=["out: T", "idx: out_idx"],
              attrs=["T: type", "out_idx: {int32, int64} = DT_INT32"])


@ListDiff.shape
def _list_diff_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 1)
    with_rank(ctx.input_shape(1), 1)
    return [tensor_shape.vector(None), tensor_shape.vector(None)]


@ListDiff.kernel("CPU")
def _list_diff(ctx: OpKernelContext, x: Any, y: Any, out_idx: dtypes.DType) -> list:
    for arg, value in (("x", x), ("y", y)):
        if value.ndim != 1:
            raise invalid_argument(ctx, f"{arg} should be a 1D vector.")
    keep = np.flatnonzero(~np.isin(x, y))
    return [x[keep], keep.astype(out_idx.as_numpy_dtype)]


@tf_export("setdiff1d")
def setdiff1d(x: Any, y: Any, index_dtype: Any = dtypes.int32, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The values of `x` not in `y`, in their order in `x`, and their positions there."""
    return ListDiff(x, y, out_idx=index_dtype, name=name)


NotDifferentiable("Unique")
NotDifferentiable("UniqueWithCounts")
NotDifferentiable("ListDiff")

# -- LowerBound and UpperBound ------------------------------------------------------------------------------

LowerBound = Op("LowerBound", inputs=["sorted_inputs: T", "values: T"], outputs=["output: out_type"],
                attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])
UpperBound = Op("UpperBound", inputs=["sorted_inputs: T", "values: T"], outputs=["output: out_type"],
                attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])


def _bound_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank_at_least(ctx.input_shape(0), 1)
    with_rank_at_least(ctx.input_shape(1), 1)
    return [ctx.input_shape(1)]


def _bounds(ctx: OpKernelContext, sorted_inputs: Any, values: Any, out_type: dtypes.DType, right: bool) -> Any:
    if sorted_inputs.shape[0] != values.shape[0]:
        raise invalid_argument(ctx, "Leading dim_size of both tensors must match.")
    xp = ctx.xp
    count = values.shape[1]
    # Ties: a lower bound sorts the value before equal entries, an upper bound after them.
    merged = xp.concatenate([sorted_inputs, values] if right else [values, sorted_inputs], axis=1)
    order = xp.argsort(merged, axis=1, kind="stable")
    position = xp.empty_like(order)
    xp.put_along_axis(position, order, xp.broadcast_to(xp.arange(merged.shape[1]), order.shape), axis=1)
    value_columns = position[:, sorted_inputs.shape[1]:] if right else position[:, :count]
    value_rank = xp.empty_like(value_columns)
    xp.put_along_axis(value_rank, xp.argsort(values, axis=1, kind="stable"),
                      xp.broadcast_to(xp.arange(count), values.shape), axis=1)
    return (value_columns - value_rank).astype(out_type.as_numpy_dtype)


@LowerBound.kernel("CPU")
def _lower_bound(ctx: OpKernelContext, sorted_inputs: Any, values: Any, out_type: dtypes.DType) -> Any:
    return _bounds(ctx, sorted_inputs, values, out_type, right=False)


@UpperBound.kernel("CPU")
def _upper_bound(ctx: OpKernelContext, sorted_inputs: Any, values: Any, out_type: dtypes.DType) -> Any:
    return _bounds(ctx, sorted_inputs, values, out_type, right=True)


LowerBound.shape(_bound_shape)
UpperBound.shape(_bound_shape)
NotDifferentiable("LowerBound")
NotDifferentiable("UpperBound")


@tf_export("searchsorted")
def searchsorted(sorted_sequence: Any, values: Any, side: str = "left", out_type: Any = dtypes.int32,
                 name: str | None = None) -> Tensor:
    """Where each of `values` would go in the innermost rows of `sorted_sequence` to keep them sorted."""
    sequence_size = shape(sorted_sequence)[-1]
    values_size = shape(values)[-1]
    sorted_2d = reshape(sorted_sequence, [-1, sequence_size])
    values_2d = reshape(values, [-1, values_size])
    if side == "right":
        output = UpperBound(sorted_2d, values_2d, out_type=out_type, name=name)
    elif side == "left":
        output = LowerBound(sorted_2d, values_2d, out_type=out_type, name=name)
    else:
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    return reshape(output, shape(values))

