"""Top-level TF1 names without a family of their own: sort and argsort (on top_k, as TF builds them), repeat,
EnsureShape, Timestamp, required_space_to_batch_paddings and clip_by_average_norm.

sort and argsort sort descending with TopKV2, which keeps equal values in index order, so both are stable; an
ascending sort is a descending one of -x (of -x - 1 for signed integers, which cannot overflow, and of
max - x for unsigned ones). repeat gathers each element as often as its count says: the element of output
position i is the first whose running count of repeats exceeds i, one SearchSorted for all positions.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.elementwise_ops import minimum, rsqrt
from tensorweave.ops.fill_ops import zeros
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.manipulation_ops import identity, stack, transpose
from tensorweave.ops.math_misc_ops import top_k
from tensorweave.ops.reduction_ops import cumsum, reduce_sum
from tensorweave.ops.scatter_ops import tensor_scatter_update
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.set_ops import searchsorted
from tensorweave.ops.shape_ops import broadcast_to, rank, reshape, shape, size
from tensorweave.platform.tf_export import tf_export

# -- sort, argsort ------------------------------------------------------------------------------------------

_DIRECTIONS = ("ASCENDING", "DESCENDING")


def _descending(values: Tensor, axis: int, return_argsort: bool) -> Tensor:
    """TF's _descending_sort: TopKV2 of all k (read from the shape first, so an axis out of range fails in its
    StridedSlice) along `axis`, swapped innermost by a `transposition` and back."""
    k = shape(values)[axis]
    dynamic_rank = rank(values)
    static_rank = values.shape.ndims
    if axis == -1 or axis + 1 == static_rank:
        top_k_input, transposition = values, None
    else:
        if axis < 0:
            axis += static_rank or dynamic_rank
        if static_rank is not None:
            transposition = constant(np.r_[np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1),
                                           [axis]], name="transposition")
        else:
            transposition = tensor_scatter_update(tf_range(dynamic_rank), [[axis], [dynamic_rank - 1]],
                                                  [dynamic_rank - 1, axis])
        top_k_input = transpose(values, transposition)
    sorted_values, indices = top_k(top_k_input, k)
    result = indices if return_argsort else sorted_values
    return result if transposition is None else transpose(result, transposition)


def _sort(values: Any, axis: Any, direction: str, return_argsort: bool) -> Tensor:
    if direction not in _DIRECTIONS:
        raise ValueError(f"Argument `direction` should be one of {', '.join(_DIRECTIONS)}. Received: "
                         f"direction={direction}")
    axis_tensor = convert_to_tensor(axis, name="axis")
    static_axis = tensor_util.constant_value(axis_tensor)
    if axis_tensor.shape.ndims not in (None, 0) or static_axis is None:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    axis = int(static_axis)
    values = convert_to_tensor(values, name="values")
    if direction == "DESCENDING":
        return _descending(values, axis, return_argsort)
    dtype = values.dtype
    if dtype.is_unsigned:
        flipped = dtype.max - values
    elif dtype.is_integer:
        flipped = -values - 1
    else:
        flipped = -values
    result = _descending(flipped, axis, return_argsort)
    if return_argsort:
        return result
    if dtype.is_unsigned:
        return dtype.max - result
    return -result - 1 if dtype.is_integer else -result


@tf_export("sort")
def sort(values: Any, axis: Any = -1, direction: str = "ASCENDING", name: str | None = None) -> Tensor:
    """`values` sorted along `axis` (a constant)."""
    with name_scope(name, "sort"):
        return _sort(values, axis, direction, return_argsort=False)


@tf_export("argsort")
def argsort(values: Any, axis: Any = -1, direction: str = "ASCENDING", stable: bool = False,
            name: str | None = None) -> Tensor:
    """The int32 indices that sort `values` along `axis` (always stable: ties keep their order)."""
    del stable  # TopKV2 orders ties by index, so every sort here is stable
    with name_scope(name, "argsort"):
        return _sort(values, axis, direction, return_argsort=True)


# -- repeat -------------------------------------------------------------------------------------------------


@tf_export("repeat")
def repeat(input: Any, repeats: Any, axis: int | None = None, name: str | None = None) -> Tensor:  # noqa: A002
    """Each element of `input` (flattened unless `axis`) `repeats` times, in place along `axis`."""
    with name_scope(name, "Repeat", [input, repeats]):
        values = convert_to_tensor(input, name="input")
        repeats = convert_to_tensor(repeats, name="repeats", dtype=dtypes.int32)
        if axis is None:
            values, axis = reshape(values, [-1]), 0
        if repeats.shape.ndims not in (None, 0, 1):
            raise ValueError(f"`repeats` must be a scalar or a vector, got shape {repeats.shape}")
        length = shape(values)[axis]
        static_length = values.shape.as_list()[axis] if values.shape.ndims is not None else None
        count = repeats.shape.as_list()[0] if repeats.shape.ndims == 1 else None
        if None not in (static_length, count) and count not in (1, static_length):
            raise ValueError(f"Dimensions {static_length} and {count} are not compatible")
        counts = broadcast_to(repeats, [length])
        ends = cumsum(counts)
        positions = tf_range(reduce_sum(counts))
        return gather(values, searchsorted(ends, positions, side="right"), axis=axis)


# -- EnsureShape --------------------------------------------------------------------------------------------

EnsureShape = Op("EnsureShape", inputs=["input: T"], outputs=["output: T"], attrs=["shape: shape", "T: type"])


@EnsureShape.shape
def _ensure_shape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.merge_shapes(tensor_shape.as_shape(ctx.attr("shape")), ctx.input_shape(0))]


@EnsureShape.kernel("CPU")
def _ensure_shape(ctx: OpKernelContext, input: Any, shape: Any) -> Any:  # noqa: A002
    expected = tensor_shape.as_shape(shape)
    if not expected.is_compatible_with(input.shape):
        source = ctx.node_def.input[0].split(":")[0] if ctx.node_def.input else ctx.name
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Shape of tensor {source} {tensor_shape.shape_string(input.shape)} is not "
            f"compatible with expected shape {tensor_shape.shape_string(expected)}.")
    return input


@EnsureShape.gradient
def _ensure_shape_grad(op: Any, grad: Tensor) -> list:
    return [grad]


@tf_export("ensure_shape")
def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Tensor:
    """`x`, checked at run time to have a shape compatible with `shape` (which its static shape takes)."""
    if not isinstance(shape, tensor_shape.TensorShape):
        shape = tensor_shape.TensorShape(shape)
    return EnsureShape(x, shape=shape, name=name)


# -- Timestamp ----------------------------------------------------------------------------------------------

Timestamp = Op("Timestamp", outputs=["ts: float64"], is_stateful=True)
Timestamp.shape(lambda ctx: [tensor_shape.scalar()])
NotDifferentiable("Timestamp")


@Timestamp.kernel("CPU")
def _timestamp(ctx: OpKernelContext) -> Any:
    return np.float64(time.time())


@tf_export("timestamp")
def timestamp(name: str | None = None) -> Tensor:
    """Seconds since the epoch when the op runs, as a float64 scalar."""
    return Timestamp(name=name)


# -- required_space_to_batch_paddings, clip_by_average_norm -------------------------------------------------


@tf_export("required_space_to_batch_paddings")
def required_space_to_batch_paddings(input_shape: Any, block_shape: Any, base_paddings: Any = None,
                                     name: str | None = None) -> tuple[Tensor, Tensor]:
    """The paddings (base_paddings, extended at the end to a multiple of block_shape) and the crops that undo
    the extension, for space_to_batch_nd and batch_to_space_nd."""
    with name_scope(name, "required_space_to_batch_paddings", [input_shape, block_shape]):
        input_shape = convert_to_tensor(input_shape, dtype=dtypes.int32, name="input_shape")
        block_shape = convert_to_tensor(block_shape, dtype=dtypes.int32, name="block_shape")
        block_shape.shape.assert_is_fully_defined()
        block_shape.shape.assert_has_rank(1)
        dims = block_shape.shape.as_list()[0]
        if dims == 0:
            return zeros([0, 2], dtypes.int32), zeros([0, 2], dtypes.int32)
        input_shape.shape.assert_is_compatible_with([dims])
        if base_paddings is None:
            base_paddings = zeros([dims, 2], dtypes.int32)
        else:
            base_paddings = convert_to_tensor(base_paddings, dtype=dtypes.int32, name="base_paddings")
            base_paddings.shape.assert_is_compatible_with([dims, 2])
        known = [tensor_util.constant_value(t) for t in (block_shape, input_shape, base_paddings)]
        if all(value is not None for value in known):
            block_shape, input_shape, base_paddings = known
        start, end = base_paddings[:, 0], base_paddings[:, 1]
        extra = (block_shape - (input_shape + start + end) % block_shape) % block_shape
        end = end + extra
        paddings = stack([[start[i], end[i]] for i in range(dims)], name="paddings")
        crops = stack([[0, extra[i]] for i in range(dims)], name="crops")
        return paddings, crops


@tf_export("clip_by_average_norm")
def clip_by_average_norm(t: Any, clip_norm: Any, name: str | None = None) -> Tensor:
    """`t` scaled down so that its L2 norm divided by its size is at most `clip_norm` (TF1, deprecated)."""
    with name_scope(name, "clip_by_average_norm", [t, clip_norm]) as scope:
        t = convert_to_tensor(t, name="t")
        elements = cast(size(t), dtypes.float32)
        inverse_norm = rsqrt(reduce_sum(t * t, tf_range(rank(t))))
        return identity(t * clip_norm * minimum(inverse_norm * elements, constant(1.0) / clip_norm), name=scope)
