"""Indexing: StridedSlice (`tf.strided_slice`, and `Tensor.__getitem__`, installed when this module is
imported), Slice, GatherV2, GatherNd, Where (the coordinates of true elements), `tf.boolean_mask` and OneHot.

`boolean_mask` calls the Prod reduction through `raw_ops`, because the reductions are a family above this one,
and a tensor index adds with the Tensor operator `+`, which `elementwise_ops` installs: both need the op
library imported, as any use of the ops does. `slice` is TF's public name here, so the builtin is spelled
`builtins.slice`.
"""

from __future__ import annotations

import builtins
import numbers
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import (
    Tensor,
    colocate_with,
    convert_to_tensor,
    name_scope,
    register_tensor_conversion_function,
)
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.fill_ops import ones, ones_like, zeros
from tensorweave.ops.kernel_helpers import invalid_argument, no_kernel_registered
from tensorweave.ops.manipulation_ops import concat, meshgrid, stack, tile, transpose, unstack
from tensorweave.ops.shape_helpers import merge_dim, shape_from_tensor, with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import expand_dims, rank, reshape, shape, size, squeeze
from tensorweave.platform.tf_export import export_value, tf_export

# -- StridedSlice, tf.strided_slice and Tensor.__getitem__ -------------------------------------------

StridedSlice = Op("StridedSlice", inputs=["input: T", "begin: Index", "end: Index", "strides: Index"],
                  outputs=["output: T"],
                  attrs=["T: type", "Index: {int16, int32, int64}", "begin_mask: int = 0", "end_mask: int = 0",
                         "ellipsis_mask: int = 0", "new_axis_mask: int = 0", "shrink_axis_mask: int = 0"])

_NEW_AXIS = -1
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _clamp_index(x: int, dim: int, lo: int, hi: int) -> int:
    x = x + dim if x < 0 else x
    return lo if x < lo else hi if x > hi else x


def _strided_slice_plan(dims: list, begin: list | None, end: list | None, strides: list, begin_mask: int,
                        end_mask: int, ellipsis_mask: int, new_axis_mask: int,
                        shrink_axis_mask: int) -> tuple[list, list]:
    """TF's ValidateStridedSliceOp on a partial shape: one Python slice per input dimension and the
    output dims. Serves the shape function (dims or begin/end may be unknown, giving None entries) and
    the kernel (all known); a bad spec raises ValueError with TF's message."""
    if ellipsis_mask & (ellipsis_mask - 1):
        raise ValueError("Multiple ellipses in slice spec not allowed")
    sparse_dims = len(strides)
    new_axes_after_ellipsis = 0
    seen_ellipsis = False
    for i in range(sparse_dims):
        if seen_ellipsis and new_axis_mask >> i & 1:
            new_axes_after_ellipsis += 1
        seen_ellipsis = seen_ellipsis or bool(ellipsis_mask >> i & 1)
    if not seen_ellipsis:
        ellipsis_mask |= 1 << sparse_dims
        sparse_dims += 1
    rank = len(dims)
    dense: list[tuple] = []  # per input dimension: begin, end, stride, begin masked, end masked, shrink
    gather: list[int] = []  # per output dimension: its input dimension, or _NEW_AXIS
    for i in range(sparse_dims):
        if ellipsis_mask >> i & 1:
            stop = min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank)
            for full_index in range(len(dense), stop):
                gather.append(full_index)
                dense.append((0, 0, 1, True, True, False))
        elif new_axis_mask >> i & 1:
            gather.append(_NEW_AXIS)
        else:
            if len(dense) == rank:
                if rank == 0:
                    raise ValueError("Attempting to slice scalar input.")
                raise ValueError(f"Index out of range using input dim {rank}; input has only {rank} dims")
            shrink = bool(shrink_axis_mask >> i & 1)
            if not shrink:
                gather.append(len(dense))
            dense.append((None if begin is None else begin[i], None if end is None else end[i], strides[i],
                          bool(begin_mask >> i & 1), bool(end_mask >> i & 1), shrink))
    bounds_known = begin is not None and end is not None
    slices: list = []
    sizes: list = []
    for i, (b, e, s, begin_masked, end_masked, shrink) in enumerate(dense):
        dim = dims[i]
        if s == 0:
            raise ValueError(f"strides[{i}] must be non-zero")
        if dim is None:
            sizes.append(1 if shrink else None)
            slices.append(None)
            continue
        if shrink and s <= 0:
            raise ValueError("only stride 1 allowed on non-range indexing.")
        if bounds_known:
            if shrink:
                b = b + dim if b < 0 else b
                if not 0 <= b < dim:
                    raise ValueError(f"slice index {b} of dimension {i} out of bounds.")
                e = b + 1
            else:
                lo, hi = (0, dim) if s > 0 else (-1, dim - 1)
                b = (lo if s > 0 else hi) if begin_masked else _clamp_index(b, dim, lo, hi)
                e = (hi if s > 0 else lo) if end_masked else _clamp_index(e, dim, lo, hi)
            length = e - b
        elif shrink:
            length = 1
        elif begin_masked and end_masked:
            length = dim if s > 0 else -dim
        else:
            length = None
        if length is None:
            size = None
        elif length == 0 or (length < 0) != (s < 0):
            size = 0
        else:
            size = -(-abs(length) // abs(s))
        sizes.append(size)
        if not bounds_known:
            slices.append(None)
        else:
            slices.append(builtins.slice(b, None if e < 0 else e, s) if size else builtins.slice(0, 0))
    return slices, [1 if g == _NEW_AXIS else sizes[g] for g in gather]


def _masks(ctx: InferenceContext) -> dict[str, int]:
    return {m: ctx.attr(m) for m in _MASKS}


@StridedSlice.shape
def _strided_slice_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    index_shape = with_rank(ctx.input_shape(1), 1)
    end_shape, strides_shape = with_rank(ctx.input_shape(2), 1), with_rank(ctx.input_shape(3), 1)
    index_shape = tensor_shape.merge_shapes(tensor_shape.merge_shapes(index_shape, end_shape), strides_shape)
    input_shape = ctx.input_shape(0)
    strides = ctx.input_value(3)
    if input_shape.ndims is None or index_shape.dims[0].value is None or strides is None:
        return [tensor_shape.unknown_shape()]
    # TF's shape refiner asks for begin and end only in a later pass, so a bad spec is reported before they
    # are read (its message lists only the strides as computed).
    _strided_slice_plan(input_shape.as_list(), None, None, strides.tolist(), **_masks(ctx))
    begin = ctx.input_value(1)
    end = ctx.input_value(2)
    _, dims = _strided_slice_plan(input_shape.as_list(), None if begin is None else begin.tolist(),
                                  None if end is None else end.tolist(), strides.tolist(), **_masks(ctx))
    return [tensor_shape.TensorShape(dims)]


@StridedSlice.kernel("CPU")
def _strided_slice(ctx: OpKernelContext, input: Any, begin: Any, end: Any, strides: Any, begin_mask: int,  # noqa: A002
                   end_mask: int, ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int) -> Any:
    if not (begin.ndim == end.ndim == strides.ndim == 1 and begin.shape == end.shape == strides.shape):
        raise invalid_argument(ctx, "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                       f"{tensor_shape.shape_string(begin.shape)}, {tensor_shape.shape_string(end.shape)}, and "
                       f"{tensor_shape.shape_string(strides.shape)} instead.")
    try:
        slices, dims = _strided_slice_plan(list(input.shape), begin.tolist(), end.tolist(), strides.tolist(),
                                           begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    except ValueError as e:
        raise invalid_argument(ctx, str(e)) from None
    return ctx.xp.reshape(_own_buffer(input, input[tuple(slices)]), dims)


def _own_buffer(input: Any, part: Any) -> Any:  # noqa: A002
    """A slice of `input` as TF's slicing kernels give it: a copy (a view would show a later in-place update
    of a variable it was cut from), but all of `input` in order is `input` itself (TF forwards it)."""
    if part.size == input.size and part.strides == input.strides:
        return part
    return part.copy()


@tf_export("strided_slice")
def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0, shrink_axis_mask: int = 0,
                  var: Any = None, name: str | None = None) -> Tensor:
    """`input_[begin:end:strides]` per dimension, with the masks of Python's slice syntax (strides 1)."""
    if strides is None:
        strides = ones_like(begin)
    masks = {"begin_mask": begin_mask, "end_mask": end_mask, "ellipsis_mask": ellipsis_mask,
             "new_axis_mask": new_axis_mask, "shrink_axis_mask": shrink_axis_mask}
    result = StridedSlice(input_, begin, end, strides, name=name, **masks)
    if var is not None:
        slice_name = name

        def assign(value: Any, name: str | None = None) -> Tensor:
            """`var[spec].assign(value)`: a StridedSliceAssign named after the slice, as TF's closure."""
            return var._strided_slice_assign(begin, end, strides, value,
                                             name=name or f"{slice_name}_assign", **masks)

        result.assign = assign
    return result


newaxis = None
export_value(newaxis, "newaxis")
_SLICE_INDEX_TYPES = (dtypes.int16, dtypes.int32, dtypes.int64)
_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
                     "tf.int32/tf.int64 tensors are valid indices")


def _check_index(idx: Any) -> None:
    """TF's optimistic check: ints, and anything with an integer dtype that is not a vector."""
    if isinstance(idx, (numbers.Integral, tensor_shape.Dimension)):
        return
    dtype = getattr(idx, "dtype", None)
    if (dtype is None or dtypes.as_dtype(dtype).base_dtype not in _SLICE_INDEX_TYPES
            or tensor_shape.as_shape(idx.shape).ndims == 1):
        raise TypeError(f"{_SLICE_TYPE_ERROR}, got {idx!r}")


def _slice_bound(value: Any, dtype: Any, default: int) -> tuple[Any, bool]:
    """A slice's start/stop/step for the packed index vectors; True when it is missing (masked)."""
    if value is None or (isinstance(value, tensor_shape.Dimension) and value.value is None):
        return (default if dtype is None else constant(default, dtype=dtype)), True
    _check_index(value)
    return tensor_shape.dimension_value(value), False


def _slice_helper(tensor: Any, slice_spec: Any, var: Any = None) -> Tensor:
    """`tensor[slice_spec]` as TF builds it: one StridedSlice whose begin/end/strides are stacked from the
    spec (ints, slices, `...`, `tf.newaxis`, scalar int tensors); a boolean spec is a `boolean_mask`.
    Slicing a variable passes it as `var`, so the result can `assign` into that slice."""
    tensor = convert_to_tensor(tensor)
    if (isinstance(slice_spec, bool) or (isinstance(slice_spec, Tensor) and slice_spec.dtype == dtypes.bool)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)):
        return boolean_mask(tensor, slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin: list = []
    end: list = []
    strides: list = []
    masks = dict.fromkeys(_MASKS, 0)
    for index, s in enumerate(slice_spec):
        if isinstance(s, builtins.slice):
            tensor_types = [t.dtype.base_dtype for t in (s.start, s.stop, s.step) if isinstance(t, Tensor)]
            dtype = next((t for t in (dtypes.int64, dtypes.int32, dtypes.int16) if t in tensor_types), None)
            for bounds, value, default, mask in ((begin, s.start, 0, "begin_mask"), (end, s.stop, 0, "end_mask"),
                                                 (strides, s.step, 1, None)):
                value, missing = _slice_bound(value, dtype, default)
                bounds.append(value)
                if missing and mask:
                    masks[mask] |= 1 << index
        elif s is Ellipsis or s is newaxis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis_mask" if s is Ellipsis else "new_axis_mask"] |= 1 << index
        else:
            _check_index(s)
            s = tensor_shape.dimension_value(s)
            begin.append(s)
            end.append(s + 1)
            int16_or_64 = isinstance(s, Tensor) and s.dtype.base_dtype in (dtypes.int16, dtypes.int64)
            strides.append(constant(1, dtype=s.dtype.base_dtype) if int16_or_64 else 1)
            masks["shrink_axis_mask"] |= 1 << index
    with name_scope(None, "strided_slice", [tensor] + begin + end + strides) as name:
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            if any(t.dtype.base_dtype == dtypes.int64 for t in packed):
                packed = [cast(t, dtypes.int64) for t in packed]
        else:
            packed = [constant([], dtype=dtypes.int32)] * 3
        return strided_slice(tensor, *packed, name=name, var=var, **masks)


Tensor._override_operator("__getitem__", _slice_helper)


# -- Where (coordinates of true elements) ------------------------------------------------------------

Where = Op("Where", inputs=["input: T"], outputs=["index: int64"], attrs=["T: {numbertype, bool} = DT_BOOL"])


@Where.shape
def _where_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([None, ctx.input_shape(0).ndims])]


@Where.kernel("CPU")
def _where(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    if input.dtype == np.float16:
        raise errors.UnimplementedError(ctx.node_def, None, "No WhereOp available for float16/half type on CPU; "
                                        "dying in CPU WhereOp to avoid silently creating costly copies from device.")
    if input.ndim == 0:
        raise invalid_argument(ctx, "WhereOp : Unhandled input dimensions: 0")
    return ctx.xp.argwhere(input).astype(np.int64, copy=False)


def where(condition: Any, name: str | None = None) -> Tensor:
    """The int64 coordinates [N, rank] of the true elements of `condition` (`tf.where` with one argument;
    `elementwise_ops.where` is the public wrapper)."""
    with name_scope(name, "Where", [condition]) as scope:
        condition = convert_to_tensor(condition, preferred_dtype=dtypes.bool, name="condition")
        return Where(condition, name=scope)


# -- GatherV2 ----------------------------------------------------------------------------------------

GatherV2 = Op("GatherV2", inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
              outputs=["output: Tparams"],
              attrs=["batch_dims: int = 0", "Tparams: type", "Tindices: {int16, int32, int64}",
                     "Taxis: {int32, int64}"])


@GatherV2.shape
def _gather_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    params = with_rank_at_least(ctx.input_shape(0), 1)
    indices = ctx.input_shape(1)
    with_rank(ctx.input_shape(2), 0)
    axis = ctx.input_value(2)
    batch_dims = ctx.attr("batch_dims")
    if axis is None:
        if params.ndims is not None and indices.ndims is not None:
            return [tensor_shape.unknown_shape(rank=params.ndims + indices.ndims - 1 - batch_dims)]
        return [tensor_shape.unknown_shape()]
    axis = int(axis)
    with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    with_rank_at_least(indices, abs(batch_dims))
    if params.ndims is None or indices.ndims is None:
        return [tensor_shape.unknown_shape()]
    batch_dims = batch_dims + indices.ndims if batch_dims < 0 else batch_dims
    with_rank_at_least(params, batch_dims + 1)
    axis = axis + params.ndims if axis < 0 else axis
    p, i = params.as_list(), indices.as_list()
    return [tensor_shape.TensorShape(p[:axis] + i[batch_dims:] + p[axis + 1:])]


@GatherV2.kernel("CPU")
def _gather(ctx: OpKernelContext, params: Any, indices: Any, axis: Any, batch_dims: int) -> Any:
    if params.ndim < 1:
        raise invalid_argument(ctx, "params must be at least 1 dimensional")
    if axis.ndim != 0:
        raise invalid_argument(ctx, "axis must be scalar")
    axis = int(axis)
    min_rank = -axis if axis < 0 else axis + 1
    if params.ndim < min_rank:
        raise invalid_argument(ctx, f"Shape must be at least rank {min_rank} but is rank {params.ndim}")
    axis = axis + params.ndim if axis < 0 else axis
    if batch_dims:
        if not -indices.ndim <= batch_dims <= indices.ndim:
            raise invalid_argument(ctx, f"Expected batch_dims in the range [{-indices.ndim}, {indices.ndim}], but got "
                           f"{batch_dims}")
        batch_dims = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
        if batch_dims >= params.ndim:
            raise invalid_argument(ctx, f"batch_dims ({batch_dims}) must be less than rank(params) ({params.ndim}).")
        if axis < batch_dims:
            raise invalid_argument(ctx, f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
        for i in range(batch_dims):
            if params.shape[i] != indices.shape[i]:
                raise invalid_argument(ctx, f"params.shape[{i}]: {params.shape[i]} should be equal to indices.shape[{i}]: "
                               f"{indices.shape[i]}")
    limit = params.shape[axis]
    bad = (indices < 0) | (indices >= limit)
    if bad.any():
        position = np.unravel_index(int(bad.argmax()), indices.shape)
        where_ = f"[{','.join(str(int(p)) for p in position)}]" if indices.ndim else ""
        raise invalid_argument(ctx, f"indices{where_} = {int(indices[position])} is not in [0, {limit})")
    xp = ctx.xp
    if not batch_dims:
        return xp.take(params, indices, axis=axis)
    batch_shape = params.shape[:batch_dims]
    out_shape = params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    n = int(np.prod(batch_shape, dtype=np.int64))
    flat_params = params.reshape((n,) + params.shape[batch_dims:])
    flat_indices = indices.reshape((n,) + indices.shape[batch_dims:])
    out = xp.empty((n,) + out_shape[batch_dims:], dtype=params.dtype)
    for b in range(n):
        out[b] = xp.take(flat_params[b], flat_indices[b], axis=axis - batch_dims)
    return out.reshape(out_shape)


@tf_export("gather")
@add_dispatch_support
def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None, axis: Any = None,
           batch_dims: int = 0) -> Tensor:
    """Slices of `params` along `axis` at `indices` (out-of-range indices fail when the graph runs). As TF's,
    `batch_dims` is dropped when `axis` is statically 0."""
    if axis is None:
        axis = batch_dims
    if (tensor_util.constant_value(axis) if isinstance(axis, Tensor) else axis) != 0:
        return GatherV2(params, indices, axis, batch_dims=batch_dims, name=name)
    sparse_read = getattr(params, "sparse_read", None)  # a resource variable gathers through its handle
    if sparse_read is not None:
        return sparse_read(indices, name=name)
    return GatherV2(params, indices, axis, name=name)


# -- boolean_mask (composed: Reshape, Where, Squeeze, GatherV2, Prod) --------------------------------


@tf_export("boolean_mask")
def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Tensor:
    """The entries of `tensor` where `mask` is true, flattening the masked dimensions into one."""
    with name_scope(name, values=[tensor, mask]):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some dimensions are None.  "
                             "E.g. shape=[None] is ok, but shape=None is not.")
        axis = 0 if axis is None else axis
        axis_value = tensor_util.get_static_value(axis) if isinstance(axis, Tensor) else axis
        if axis_value is not None:
            axis = int(axis_value)
            shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        leading_size = raw_ops.Prod(input=shape(tensor)[axis:axis + ndims_mask], reduction_indices=[0])
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size],
                                         shape(tensor)[axis + ndims_mask:]], 0))
        if axis_value is not None:
            first_dim = shape_tensor[axis:axis + ndims_mask].num_elements()
            tensor.set_shape(tensor_shape.as_shape(shape_tensor[:axis]).concatenate([first_dim])
                             .concatenate(shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        return gather(tensor, squeeze(where(mask), axis=[1]), axis=axis)


# -- Slice -------------------------------------------------------------------------------------------

Slice = Op("Slice", inputs=["input: T", "begin: Index", "size: Index"], outputs=["output: T"],
           attrs=["T: type", "Index: {int32, int64}"])


@Slice.shape
def _slice_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    begin_shape = tensor_shape.merge_shapes(with_rank(ctx.input_shape(1), 1), with_rank(ctx.input_shape(2), 1))
    ndims = begin_shape.dims[0].value
    input_shape = ctx.input_shape(0) if ndims is None else with_rank(ctx.input_shape(0), ndims)
    begin = shape_from_tensor(ctx, 1)
    sizes = shape_from_tensor(ctx, 2)
    size_value = ctx.input_value(2)
    if size_value is not None:
        size_value = size_value.reshape(-1).tolist()
        begin = with_rank(begin, len(size_value)).as_list()
        dims = input_shape.as_list() if input_shape.ndims is not None else [None] * len(size_value)
        return [tensor_shape.TensorShape([
            s if s != -1 else None if dims[i] is None or begin[i] is None else dims[i] - begin[i]
            for i, s in enumerate(size_value)])]
    if sizes.ndims is not None:
        with_rank(begin, sizes.ndims)
        return [sizes]
    return [tensor_shape.unknown_shape(rank=input_shape.ndims)]


@Slice.kernel("CPU")
def _slice(ctx: OpKernelContext, input: Any, begin: Any, size: Any) -> Any:  # noqa: A002
    rank = input.ndim
    if not (begin.ndim == size.ndim == 1 and begin.size == size.size == rank):
        raise invalid_argument(ctx, f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got shapes "
                       f"{tensor_shape.shape_string(begin.shape)} and {tensor_shape.shape_string(size.shape)} "
                       "instead.")
    index = []
    for i, (b, s) in enumerate(zip(begin.tolist(), size.tolist())):
        dim = input.shape[i]
        s = dim - b if s == -1 else s
        if dim == 0:
            if b != 0 or s != 0:
                raise invalid_argument(ctx, f"Expected begin[{i}] == 0 (got {b}) and size[{i}] == 0 (got {s}) when "
                               f"input.dim_size({i}) == 0")
        elif not 0 <= b <= dim:
            raise invalid_argument(ctx, f"Expected begin[{i}] in [0, {dim}], but got {b}")
        elif not 0 <= s <= dim - b:
            raise invalid_argument(ctx, f"Expected size[{i}] in [0, {dim - b}], but got {s}")
        index.append(builtins.slice(b, b + s))
    return _own_buffer(input, input[tuple(index)])


@tf_export("slice")
def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """The block of `input_` starting at `begin` with extent `size` (-1: the rest of that dimension)."""
    return Slice(input_, begin, size, name=name)


# -- OneHot ------------------------------------------------------------------------------------------

OneHot = Op("OneHot", inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
            outputs=["output: T"], attrs=["axis: int = -1", "T: type", "TI: {uint8, int8, int32, int64} = DT_INT64"])


@OneHot.shape
def _one_hot_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    axis = ctx.attr("axis")
    if axis < -1:
        raise ValueError("axis must be >= -1")
    depth = ctx.input_dim(1)  # TF checks depth's rank on its value only
    indices = ctx.input_shape(0)
    if indices.ndims is None:
        return [tensor_shape.unknown_shape()]
    dims = indices.as_list()
    dims.insert((axis + len(dims) + 1) % (len(dims) + 1), None if depth is None else int(depth))
    return [tensor_shape.TensorShape(dims)]


@OneHot.kernel("CPU")
def _one_hot(ctx: OpKernelContext, indices: Any, depth: Any, on_value: Any, off_value: Any, axis: int) -> Any:
    output_dims = indices.ndim + 1
    if not (axis == -1 or 0 <= axis < output_dims):
        raise invalid_argument(ctx, f"Expected axis to be -1 or between [0, {output_dims}).  But received: {axis}")
    for arg, value in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
        if value.ndim != 0:
            raise invalid_argument(ctx, f"{arg} must be a scalar, but got: {tensor_shape.shape_string(value.shape)}")
    if depth < 0:
        raise invalid_argument(ctx, f"depth must be non-negative, got: {int(depth)}")
    xp = ctx.xp
    hot = xp.expand_dims(indices, -1) == xp.arange(int(depth))
    return xp.moveaxis(xp.where(hot, on_value, off_value).astype(on_value.dtype, copy=False), -1, axis)


@tf_export("one_hot")
def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None, axis: Any = None,
            dtype: Any = None, name: str | None = None) -> Tensor:
    """`on_value` where the last (or `axis`) dimension equals `indices`, `off_value` elsewhere; the dtype
    comes from `dtype`, else from the given values, else float32."""
    with name_scope(name, "one_hot", [indices, depth, on_value, off_value, axis, dtype]) as scope:
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        on = None if on_value is None else convert_to_tensor(on_value, dtype_hint=dtype)
        off = None if off_value is None else convert_to_tensor(off_value, dtype_hint=dtype)
        given = [(arg, t.dtype.base_dtype) for arg, t in (("on_value", on), ("off_value", off)) if t is not None]
        if given and dtype is not None:
            for arg, t in given:
                if t != dtype:
                    raise TypeError(f"dtype {t} of {arg} does not match dtype parameter {dtype}")
        dtype = given[0][1] if given else dtype or dtypes.float32
        on = convert_to_tensor(1, dtype, name="on_value") if on is None else on
        off = convert_to_tensor(0, dtype, name="off_value") if off is None else off
        if on.dtype.base_dtype != off.dtype.base_dtype:
            raise TypeError(f"dtype {on.dtype.base_dtype} of on_value does not match dtype "
                            f"{off.dtype.base_dtype} of off_value")
        return OneHot(indices, depth, on, off, axis=-1 if axis is None else axis, name=scope)


# -- GatherNd ----------------------------------------------------------------------------------------

GatherNd = Op("GatherNd", inputs=["params: Tparams", "indices: Tindices"], outputs=["output: Tparams"],
              attrs=["Tparams: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"])


@GatherNd.shape
def _gather_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [gather_nd_shape(ctx.input_shape(0), ctx.input_shape(1))]


def gather_nd_shape(params: tensor_shape.TensorShape, indices: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """The shape GatherNd (and ResourceGatherNd) of these shapes gathers."""
    indices = with_rank_at_least(indices, 1)
    if indices.ndims is None or indices.dims[-1].value is None:
        return tensor_shape.unknown_shape()
    depth = indices.dims[-1].value
    if params.ndims is None:
        return tensor_shape.unknown_shape()
    if depth > params.ndims:
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{tensor_shape.shape_string(indices.as_list())} and params shape: "
                         f"{tensor_shape.shape_string(params.as_list())}")
    return indices[:-1].concatenate(params[depth:])


_GATHER_ND_POLICIES = (b"", b"DEFAULT", b"ERROR", b"IGNORE")


@GatherNd.kernel("CPU")
def _gather_nd(ctx: OpKernelContext, params: Any, indices: Any, bad_indices_policy: bytes) -> Any:
    """Slices of `params` at the rows of `indices`; an out-of-range row fails, or with the IGNORE policy
    gathers zeros."""
    if bad_indices_policy not in _GATHER_ND_POLICIES:
        raise no_kernel_registered(ctx)
    if indices.ndim < 1:
        raise invalid_argument(ctx, "indices must be at least a vector")
    depth = indices.shape[-1]
    if depth > params.ndim:
        raise invalid_argument(ctx, f"index innermost dimension length must be <= params rank; saw: {depth} vs. "
                       f"{params.ndim}")
    rows = indices.reshape(int(np.prod(indices.shape[:-1])), depth)  # -1 cannot be inferred at depth 0
    out_of_range = ((rows < 0) | (rows >= np.asarray(params.shape[:depth]))).any(axis=1)
    bad = np.flatnonzero(out_of_range)
    if bad.size and bad_indices_policy != b"IGNORE":
        position = ",".join(map(str, np.unravel_index(bad[0], indices.shape[:-1])))
        raise invalid_argument(ctx, f"indices[{position}] = [{', '.join(map(str, rows[bad[0]].tolist()))}] does not index "
                       f"into param shape {tensor_shape.shape_string(params.shape)}, node name: {ctx.name}")
    if bad.size:
        rows = np.where(out_of_range[:, None], 0, rows)
    gathered = params[tuple(rows.T)] if depth else ctx.xp.broadcast_to(params, (rows.shape[0],) + params.shape)
    if bad.size:
        gathered = gathered.copy()
        gathered[bad] = b"" if params.dtype == object else 0
    return gathered.reshape(indices.shape[:-1] + params.shape[depth:])


@tf_export("gather_nd", "manip.gather_nd")
def gather_nd(params: Any, indices: Any, name: str | None = None, batch_dims: int = 0,
              bad_indices_policy: str = "") -> Tensor:
    """The slices of `params` addressed by the innermost dimension of `indices` (zeros for out-of-range rows
    with `bad_indices_policy="IGNORE"`); the first `batch_dims` dimensions of both are batch dimensions. A
    resource variable gathers through its handle (TF asks `params.gather_nd` first)."""
    if isinstance(batch_dims, Tensor):  # TF reads a constant tensor's value
        static_batch_dims = tensor_util.constant_value(batch_dims)
        if static_batch_dims is not None:
            batch_dims = int(static_batch_dims)
    if batch_dims == 0 and bad_indices_policy in ("", "DEFAULT") and hasattr(params, "gather_nd"):
        return params.gather_nd(indices, name=name)
    if batch_dims != 0:
        return _batch_gather_nd(params, indices, batch_dims, name, bad_indices_policy)
    return GatherNd(params, indices, bad_indices_policy=bad_indices_policy, name=name)


def _batch_gather_nd(params: Any, indices: Any, batch_dims: Any, name: str | None, bad_indices_policy: str) -> Tensor:
    """TF's batch_gather_nd: one GatherNd of the unreshaped `params` whose index rows are prefixed with their
    batch coordinates (a meshgrid of the batch ranges, flattened, tiled over the inner index dims), the result
    reshaped back to the batch shape."""
    with name_scope(name, "BatchGatherND", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if not isinstance(batch_dims, int):
            raise TypeError(f"Argument `batch_dims` must be an int; got {batch_dims}")
        if batch_dims < 0:
            raise ValueError("tf.gather_nd does not allow negative batch_dims.")
        for what, ndims in (("indices", indices.shape.ndims), ("params", params.shape.ndims)):
            if ndims is not None and batch_dims >= ndims:
                raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`{what}`) = {ndims}")
        params_shape, indices_shape = shape(params), shape(indices)
        batch_shape = params_shape[:batch_dims]
        batch_size = raw_ops.Prod(input=batch_shape, reduction_indices=[0])
        index_internal_ndims = rank(indices) - batch_dims - 1
        indices_internal_shape = indices_shape[batch_dims:-1]
        dim_ranges = [raw_ops.Cast(x=raw_ops.Range(start=0, limit=raw_ops.Cast(x=x, DstT=dtypes.int32), delta=1),
                                   DstT=indices.dtype) for x in unstack(batch_shape, axis=0)]
        mesh_list = meshgrid(*dim_ranges, indexing="ij") if dim_ranges else []
        flat_list = [reshape(x, shape=(-1,)) for x in mesh_list]
        index_grid = transpose(stack(flat_list, axis=0))
        index_grid_shape = shape(index_grid)
        index_grid = reshape(index_grid, concat([index_grid_shape[:1],
                                                 ones(index_internal_ndims, dtype=index_grid_shape.dtype),
                                                 index_grid_shape[1:]], axis=0))
        index_grid = tile(index_grid, multiples=concat(((1,), indices_internal_shape, (1,)), axis=0))
        flat_indices = reshape(indices, shape=concat(([batch_size], indices_shape[batch_dims:]), axis=0))
        indices = concat((index_grid, flat_indices), axis=-1)
        out = GatherNd(params, indices, bad_indices_policy=bad_indices_policy)
        out_shape = shape(out)
        return reshape(out, shape=concat((batch_shape, out_shape[1:]), axis=0))


@tf_export("batch_gather")
def batch_gather(params: Any, indices: Any, name: str | None = None) -> Tensor:
    """`gather` per batch entry: the leading dims of `indices` but its last are batch dims of `params`."""
    with name_scope(name, "BatchGather", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if indices.shape.ndims is None:
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        return _batch_gather(params, indices, indices.shape.ndims - 1)


def _batch_gather(params: Tensor, indices: Tensor, batch_dims: int) -> Tensor:
    """TF's _batch_gather (without an axis): each batch entry's offset into the flattened leading dims of
    `params` added to its indices, one gather from the flattened params, the result reshaped back."""
    indices_ndims = indices.shape.ndims
    if params.shape.ndims is not None and batch_dims >= params.shape.ndims:
        raise ValueError(f"Argument `batch_dims` = {batch_dims} must be less than rank(`params`) = "
                         f"{params.shape.ndims}")
    indices_shape, params_shape = shape(indices), shape(params)
    batch_indices = indices
    indices_dtype = indices.dtype.base_dtype
    accum_dim_value = ones((), dtype=indices_dtype)
    casted_params_shape = raw_ops.Cast(x=params_shape, DstT=indices_dtype)
    for dim in builtins.range(batch_dims, 0, -1):
        dim_value = casted_params_shape[dim - 1]
        accum_dim_value *= casted_params_shape[dim]
        dim_indices = raw_ops.Range(start=zeros((), dtype=indices_dtype), limit=dim_value,
                                    delta=ones((), dtype=indices_dtype))
        dim_indices *= accum_dim_value
        dim_shape = stack([1] * (dim - 1) + [dim_value] + [1] * (indices_ndims - dim), axis=0)
        batch_indices += reshape(dim_indices, dim_shape)
    flat_indices = reshape(batch_indices, [-1])
    outer_shape = params_shape[batch_dims + 1:]
    flat_inner_shape = raw_ops.Prod(input=params_shape[:batch_dims + 1], reduction_indices=[0], keep_dims=False)
    flat_params = reshape(params, concat([[flat_inner_shape], outer_shape], axis=0))
    result = reshape(gather(flat_params, flat_indices), concat([indices_shape, outer_shape], axis=0))
    final_shape = indices.shape[:batch_dims].merge_with(params.shape[:batch_dims])
    final_shape = final_shape.concatenate(indices.shape.dims[batch_dims:])
    result.set_shape(final_shape.concatenate(params.shape[batch_dims + 1:]))
    return result


# -- UnravelIndex ------------------------------------------------------------------------------------

UnravelIndex = Op("UnravelIndex", inputs=["indices: Tidx", "dims: Tidx"], outputs=["output: Tidx"],
                  attrs=["Tidx: {int32, int64} = DT_INT32"])


@UnravelIndex.shape
def _unravel_index_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    indices = ctx.input_shape(0)
    dims = with_rank(ctx.input_shape(1), 1)
    if indices.ndims is None:
        return [tensor_shape.unknown_shape()]
    if indices.ndims == 0:
        return [dims]
    return [tensor_shape.TensorShape([dims.dims[0].value, indices.num_elements()])]


@UnravelIndex.kernel("CPU")
def _unravel_index(ctx: OpKernelContext, indices: Any, dims: Any) -> Any:
    if dims.ndim != 1:
        raise invalid_argument(ctx, f"The indices can only be 1-D, got {tensor_shape.shape_string(dims.shape)}")
    zero = np.flatnonzero(dims == 0)
    if zero.size:
        raise invalid_argument(ctx, "Input dims cannot contain a dim of zero, but dims contains zero at index "
                                    f"{int(zero[0])}")
    if ((indices < 0) | (indices >= np.prod(dims, dtype=np.int64))).any():
        raise invalid_argument(ctx, "index is out of bound as with dims")
    coords = np.stack(np.unravel_index(indices.reshape(-1), dims.tolist()))
    return coords.astype(indices.dtype).reshape((dims.size,) + ((indices.size,) if indices.ndim else ()))


@tf_export("unravel_index")
def unravel_index(indices: Any, dims: Any, name: str | None = None) -> Tensor:
    """The coordinates in an array of shape `dims` of each flat index."""
    return UnravelIndex(indices, dims, name=name)


NotDifferentiable("UnravelIndex")


# -- Gradients -----------------------------------------------------------------------------------------

UnsortedSegmentSum = Op("UnsortedSegmentSum", inputs=["data: T", "segment_ids: Tindices",
                                                      "num_segments: Tnumsegments"], outputs=["output: T"],
                        attrs=["T: numbertype", "Tindices: {int16, int32, int64}",
                               "Tnumsegments: {int32, int64} = DT_INT32"])


@UnsortedSegmentSum.shape
def _unsorted_segment_sum_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data, ids = ctx.input_shape(0), ctx.input_shape(1)
    with_rank(ctx.input_shape(2), 0)
    num = ctx.input_value(2)
    if ids.ndims is not None:
        with_rank_at_least(data, ids.ndims)
        if data.ndims is not None:
            for a, b in zip(data.dims, ids.dims):
                merge_dim(a, b)  # the ids' shape is a prefix of the data's
        num = ctx.input_dim(2)
    if data.ndims is None or ids.ndims is None:
        return [tensor_shape.unknown_shape()]
    head = tensor_shape.TensorShape([None if num is None else int(num)])
    return [head.concatenate(data[ids.ndims:])]


@UnsortedSegmentSum.kernel("CPU")
def _unsorted_segment_sum(ctx: OpKernelContext, data: Any, segment_ids: Any, num_segments: Any) -> Any:
    num = int(num_segments)
    if data.shape[:segment_ids.ndim] != segment_ids.shape:
        raise invalid_argument(ctx, f"data.shape = {tensor_shape.shape_string(data.shape)} does not start with "
                                    f"segment_ids.shape = {tensor_shape.shape_string(segment_ids.shape)}")
    ids = segment_ids.reshape(-1)
    if ids.size and (ids.max() >= num):
        raise invalid_argument(ctx, f"segment_ids[{int(np.argmax(ids >= num))}] = {int(ids.max())} is out of range "
                                    f"[0, {num})")
    out = ctx.xp.zeros((num,) + data.shape[segment_ids.ndim:], dtype=data.dtype)
    keep = ids >= 0  # negative ids are dropped, as TF's
    ctx.xp.add.at(out, ids[keep], data.reshape((ids.size,) + data.shape[segment_ids.ndim:])[keep])
    return out


@tf_export("math.unsorted_segment_sum", "unsorted_segment_sum")
def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any, name: str | None = None) -> Tensor:
    """The sum of the `data` rows sharing each segment id, for `num_segments` segments."""
    return UnsortedSegmentSum(data, segment_ids, num_segments, name=name)


def _indexed_slices_to_tensor(value: IndexedSlices, dtype: Any = None, name: str | None = None,
                              as_ref: bool = False) -> Tensor:
    """An IndexedSlices made dense: its rows summed into place (TF's conversion)."""
    if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
        raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for IndexedSlices "
                         f"with dtype {value.dtype.name}")
    if value.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices for argument {name} without "
                         f"dense_shape: {value!s}")
    return UnsortedSegmentSum(value.values, value.indices, value.dense_shape[0], name=name)


register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor)


def _batch_gather_indices(params_shape: Tensor, indices: Tensor, batch_dims: int) -> Tensor:
    """`indices` offset by each batch position's row in params flattened over its first `batch_dims` dims."""
    dtype = indices.dtype.base_dtype
    sizes = cast(params_shape, dtype)
    stride = ones_like(sizes[0])
    for dim in builtins.range(batch_dims, 0, -1):
        dim_size = sizes[dim - 1]
        stride *= sizes[dim]
        offsets = raw_ops.Range(start=constant(0, dtype), limit=dim_size, delta=constant(1, dtype)) * stride
        offsets_shape = concat([raw_ops.Tile(input=[1], multiples=[dim - 1]), [dim_size],
                                raw_ops.Tile(input=[1], multiples=stack([raw_ops.Rank(input=indices) - dim]))], 0)
        indices += reshape(offsets, offsets_shape)
    return indices


def _batch_gather_grad(params_shape: Tensor, values: Tensor, indices: Tensor, batch_dims: int,
                       gather_dim_size: Tensor) -> Tensor:
    """The dense gradient of a gather along the first non-batch axis: rows summed into place per batch."""
    indices_size = expand_dims(size(indices), 0)
    if batch_dims:
        values_shape = shape(values)
        outer_shape, inner_shape = values_shape[:batch_dims], values_shape[batch_dims:][1:]
        flat_values_shape = concat([[-1], inner_shape], 0)
        gather_dim_size *= raw_ops.Prod(input=outer_shape, reduction_indices=[0], keep_dims=False)
        indices = _batch_gather_indices(params_shape, indices, batch_dims)
        values = reshape(values, flat_values_shape)
    params_grad = UnsortedSegmentSum(values, reshape(indices, indices_size), gather_dim_size)
    if batch_dims:
        params_grad = reshape(params_grad, concat([outer_shape, flat_values_shape], 0))
    return params_grad


@GatherV2.gradient
def _gather_v2_grad(op: Any, grad: Tensor) -> list:
    """IndexedSlices of the params' rows for a gather along axis 0 (what optimizers update sparsely), else the
    dense sum of the gradient rows into place, the gathered axis moved next to the batch dims (TF's graph)."""
    params, indices, axis = op.inputs
    with colocate_with(params):  # params can be large: the shape is computed beside them, as TF
        params_shape = shape(params)
    batch_dims = op.get_attr("batch_dims")
    if batch_dims < 0:
        if indices.shape.ndims is None:
            raise ValueError("Currently, it is unsupported to take the gradient of tf.gather when batch_dims < 0 "
                             "and the rank of the indices is unknown. Please pass a positive batch_dims or use "
                             "tf.ensure_shape to update the shape of indices when calling tf.gather. Got "
                             f"batch_dims={batch_dims} and indices={indices}")
        batch_dims += indices.shape.ndims
    axis_static = tensor_util.constant_value(axis)
    if axis_static is not None and int(axis_static) == 0:
        indices_size = expand_dims(size(indices), 0)
        values = reshape(grad, concat([indices_size, params_shape[1:]], 0))
        return [IndexedSlices(values, reshape(indices, indices_size), params_shape), None, None]
    outer_shape, inner_shape = params_shape[:axis], params_shape[axis:][1:]
    values_shape = concat([outer_shape, [-1], inner_shape], 0)
    values_dims, axis_dims = size(values_shape), size(outer_shape)
    outer_batches = raw_ops.Range(start=0, limit=batch_dims, delta=1)
    batch_axes = raw_ops.Range(start=batch_dims, limit=axis_dims, delta=1)
    inner_axes = raw_ops.Range(start=axis_dims + 1, limit=values_dims, delta=1)
    values = reshape(grad, values_shape)
    transpose_dims = concat([outer_batches, stack([axis_dims]), batch_axes, inner_axes], 0)
    params_grad = _batch_gather_grad(gather(params_shape, transpose_dims),
                                     raw_ops.Transpose(x=values, perm=transpose_dims), indices, batch_dims,
                                     params_shape[axis])
    inverse_dims = concat([outer_batches, batch_axes + 1, [batch_dims], inner_axes], 0)
    params_grad = raw_ops.Transpose(x=params_grad, perm=inverse_dims)
    return [reshape(params_grad, shape(params)), None, None]


@Slice.gradient
def _slice_grad(op: Any, grad: Tensor) -> list:
    x, begin = op.inputs[0], op.inputs[1]
    pad_shape = stack([raw_ops.Rank(input=x), 1])
    before = reshape(begin, pad_shape)
    after = reshape(shape(x, out_type=begin.dtype) - shape(op.outputs[0], out_type=begin.dtype) - begin, pad_shape)
    return [raw_ops.Pad(input=grad, paddings=concat([before, after], 1)), None, None]


StridedSliceGrad = Op("StridedSliceGrad", inputs=["shape: Index", "begin: Index", "end: Index", "strides: Index",
                                                  "dy: T"], outputs=["output: T"],
                      attrs=["T: type", "Index: {int32, int64}", "begin_mask: int = 0", "end_mask: int = 0",
                             "ellipsis_mask: int = 0", "new_axis_mask: int = 0", "shrink_axis_mask: int = 0"])


@StridedSliceGrad.shape
def _strided_slice_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_from_tensor(ctx, 0)]


@StridedSliceGrad.kernel("CPU")
def _strided_slice_grad(ctx: OpKernelContext, shape: Any, begin: Any, end: Any, strides: Any, dy: Any,
                        begin_mask: int, end_mask: int, ellipsis_mask: int, new_axis_mask: int,
                        shrink_axis_mask: int) -> Any:
    dims = [int(d) for d in shape]
    try:
        slices, out_dims = _strided_slice_plan(dims, begin.tolist(), end.tolist(), strides.tolist(), begin_mask,
                                               end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    except ValueError as e:
        raise invalid_argument(ctx, str(e)) from None
    out = ctx.xp.zeros(dims, dtype=dy.dtype)
    target = out[tuple(slices)]
    out[tuple(slices)] = ctx.xp.reshape(dy, target.shape)
    return out


@StridedSlice.gradient
def _strided_slice_grad_fn(op: Any, grad: Tensor) -> list:
    index = op.inputs[1].dtype
    masks = {m: op.get_attr(m) for m in _MASKS}
    return [StridedSliceGrad(shape(op.inputs[0], out_type=index), op.inputs[1], op.inputs[2], op.inputs[3], grad,
                             **masks), None, None, None]


@StridedSliceGrad.gradient
def _strided_slice_grad_grad(op: Any, grad: Tensor) -> list:
    """StridedSliceGrad scatters `dy` into zeros: its gradient slices the same window back out."""
    masks = {m: op.get_attr(m) for m in _MASKS}
    return [None, None, None, None, StridedSlice(grad, op.inputs[1], op.inputs[2], op.inputs[3], **masks)]


@GatherNd.gradient
def _gather_nd_grad(op: Any, grad: Tensor) -> list:
    """IndexedSlices when each index names one row ([N, 1] indices), else ScatterNd into the params' shape."""
    params, indices = op.inputs
    params_shape = shape(params, out_type=indices.dtype)
    if indices.shape.ndims == 2 and indices.shape.as_list()[-1] == 1:
        return [IndexedSlices(grad, squeeze(indices, axis=[-1]), params_shape), None]
    return [raw_ops.ScatterNd(indices=indices, updates=grad, shape=params_shape), None]


NotDifferentiable("OneHot")
NotDifferentiable("Where")
