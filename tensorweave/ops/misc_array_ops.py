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
from tensorweave.ops import raw_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.elementwise_ops import maximum, minimum, rsqrt
from tensorweave.ops.fill_ops import ones, zeros
from tensorweave.ops.indexing_ops import boolean_mask
from tensorweave.ops.manipulation_ops import concat, identity, sequence_mask, stack, tile, transpose
from tensorweave.ops.math_misc_ops import top_k
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.scatter_ops import tensor_scatter_update
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_ops import broadcast_to, expand_dims, rank, reshape, shape, size
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
    """Each element of `input` (flattened unless `axis`) `repeats` times, in place along `axis`: TF's graph (a
    scalar count tiles and reshapes; counts per element tile to the largest and keep a sequence_mask's entries,
    so the repeated dimension is statically unknown, as TF's)."""
    if axis is None:
        input, axis = reshape(input, [-1]), 0  # noqa: A001
    return _repeat_with_axis(input, repeats, axis, name)


def _repeat_with_axis(data: Any, repeats: Any, axis: int, name: str | None) -> Tensor:
    with name_scope(name, "Repeat", [data, repeats]):
        data = convert_to_tensor(data, name="data")
        repeats = convert_to_tensor(repeats, name="repeats", preferred_dtype=dtypes.int32)
        if not repeats.dtype.is_integer:
            raise TypeError("Argument `tensor` (name: repeats) must be of type integer. Received `tensor` = "
                            f"{repeats} of dtype: {repeats.dtype}")
        repeats = raw_ops.Cast(x=repeats, DstT=dtypes.int32)
        repeats.shape.with_rank_at_most(1)
        if data.shape.ndims == 0:
            data = stack([data])
        elif data.shape.ndims is None:
            data_shape, data_ndims = shape(data), rank(data)
            data = reshape(data, concat([[1], data_shape], axis=0)[-data_ndims:])
        data_shape = shape(data, out_type=repeats.dtype)
        ndims = data.shape.ndims
        if not isinstance(axis, int):
            raise TypeError(f"axis must be an int; got {type(axis).__name__}")
        if ndims is not None:
            if not -ndims <= axis < ndims:
                raise ValueError(f"axis={axis} out of bounds: expected {-ndims}<=axis<{ndims}")
            axis = axis + ndims if axis < 0 else axis
        elif axis < 0:
            raise ValueError(f"axis={axis} may only be negative if rank(data) is statically known.")

        if repeats.shape.num_elements() == 1:  # one count: tile and reshape
            repeats = reshape(repeats, [])
            tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, repeats)
            result_shape = concat([data_shape[:axis], [repeats * data_shape[axis]], data_shape[axis + 1:]], axis=0)
            return reshape(tiled, result_shape)

        if repeats.shape.ndims == 1:
            data.shape.dims[axis].assert_is_compatible_with(repeats.shape[0])
        repeats = broadcast_to(repeats, [data_shape[axis]])
        repeats_original = repeats
        if repeats.shape.ndims != axis + 1:  # counts broadcast over the dimensions before `axis`
            repeats_shape = shape(repeats)
            repeats_ndims = rank(repeats)
            broadcast_shape = concat([data_shape[:axis + 1 - repeats_ndims], repeats_shape], axis=0)
            repeats = broadcast_to(repeats, broadcast_shape)
            repeats.set_shape([None] * (axis + 1))
        dims = (constant(np.arange(repeats.shape.ndims), dtypes.int32) if repeats.shape.ndims is not None
                else raw_ops.Range(start=0, limit=rank(repeats), delta=1))
        max_repeat = raw_ops.Max(input=repeats, reduction_indices=dims)
        max_repeat = maximum(convert_to_tensor(0, name="zero", dtype=max_repeat.dtype), max_repeat)
        mask = sequence_mask(repeats, max_repeat)
        tiled = _tile_one_dimension(expand_dims(data, axis + 1), axis + 1, max_repeat)
        result = boolean_mask(tiled, mask)  # the kept copies, the dimensions up to `axis` flattened
        if axis != 0:
            repeated = raw_ops.Sum(input=repeats_original, reduction_indices=raw_ops.Range(start=0, limit=rank(repeats_original),
                                                                               delta=1))
            result = reshape(result, concat([data_shape[:axis], [repeated], data_shape[axis + 1:]], axis=0))
        if data.shape.ndims is not None:
            new_axis_size = 0 if repeats.shape[0] == 0 else None
            result.set_shape(data.shape[:axis].concatenate([new_axis_size]).concatenate(data.shape[axis + 1:]))
        return result


def _tile_one_dimension(data: Tensor, axis: int, multiple: Any) -> Tensor:
    """`data` tiled `multiple` times along `axis` (TF's tile_one_dimension)."""
    if data.shape.ndims is not None:
        multiples: Any = [1] * data.shape.ndims
        multiples[axis] = multiple
    else:
        ones_value = ones(rank(data), dtypes.int32)
        multiples = concat([ones_value[:axis], [multiple], ones_value[axis + 1:]], axis=0)
    return tile(data, multiples)


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
