"""Array ops: constants, placeholders, shapes and fills, slicing and indexing (`Tensor.__getitem__`),
stacking, concatenation, reshaping of dimensions, gathers and masks.

Each op is one block: its definition, shape function, kernel, and TF1's public wrapper. Importing this
module registers the conversion of Python values, numpy arrays and lists holding tensors to tensors, and
installs `Tensor.__getitem__`. Wrappers that need a math op (Cast, Prod, Range) import `math_ops` where
they use it, because `math_ops` imports this module. `slice` is TF's public name here, so the builtin is
spelled `builtins.slice`.
"""

from __future__ import annotations

import builtins
import math
import numbers
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
    register_tensor_conversion_function,
    register_tensor_conversion_function_internal,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op, create_op
from tensorweave.framework.shape_inference import InferenceContext

# -- Const -------------------------------------------------------------------------------------------

Const = Op("Const", outputs=["output: dtype"], attrs=["value: tensor", "dtype: type"])


@Const.shape
def _const_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.attr("value").shape]


@Const.kernel("CPU", constant=True)
def _const(ctx: OpKernelContext, value: np.ndarray) -> Any:
    return ctx.xp.asarray(value)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Tensor:
    """TF1's `tf.constant`: a scalar broadcasts to `shape`; a short list is padded with its last value."""
    array = tensor_util.make_ndarray_value(value, dtype=dtype, shape=shape, verify_shape=verify_shape)
    array.setflags(write=False)  # kernels and assigns must never write into a graph constant
    # No name scope of its own, as in TF: the node takes `name` directly (and TF's node-name errors).
    op = create_op(get_default_graph(), "Const", [], name=name,
                   attrs={"value": array, "dtype": dtypes.as_dtype(array.dtype)})
    listed = array.size if shape is None else np.size(value)
    if listed < array.size:  # TF's TensorProto keeps the values as given, a splat of the shape
        op._node_def.splats["value"] = listed
    return op.outputs[0]


def _constant_conversion(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Tensor:
    return constant(value, dtype=dtype, name=name or "Const")


def _shape_conversion(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Tensor:
    """A fully defined TensorShape converts to an int32 vector (int64 when a dimension needs it), as in TF."""
    if not value.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {value} to a Tensor.")
    dims = value.as_list()
    too_big = any(d >= 2**31 for d in dims)
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Cannot convert TensorShape {value} to dtype {dtype}. "
                            "Allowed dtypes are tf.int32 and tf.int64.")
        if dtype == dtypes.int32 and too_big:
            raise ValueError(f"Cannot convert TensorShape {value} to dtype int32; "
                             "a dimension is too large. Consider using tf.int64.")
    return constant(dims, dtype=dtype or (dtypes.int64 if too_big else dtypes.int32),
                    name=name or "shape_as_tensor")


def _dimension_conversion(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Tensor:
    """A known Dimension converts to an int32 (or int64) scalar, as in TF."""
    if value.value is None:
        raise ValueError(f"Cannot convert unknown Dimension {value} to a Tensor.")
    if dtype is not None and dtypes.as_dtype(dtype) not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Cannot convert Dimension {value} to dtype {dtypes.as_dtype(dtype)}. "
                        "Allowed dtypes are tf.int32 and tf.int64.")
    return constant(value.value, dtype=dtype or dtypes.int32, name=name or "shape_as_tensor")


register_tensor_conversion_function_internal(
    (list, tuple, int, float, complex, bool, str, bytes, np.ndarray, np.generic), _constant_conversion, 100)
register_tensor_conversion_function(tensor_shape.TensorShape, _shape_conversion, 100)
register_tensor_conversion_function(tensor_shape.Dimension, _dimension_conversion, 100)

# -- Placeholder -------------------------------------------------------------------------------------

Placeholder = Op("Placeholder", outputs=["output: dtype"],
                 attrs=["dtype: type", "shape: shape = { unknown_rank: true }"])


@Placeholder.shape
def _placeholder_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.as_shape(ctx.attr("shape")) if ctx.attr("shape") is not None
            else tensor_shape.unknown_shape()]


@Placeholder.kernel("CPU")
def _placeholder(ctx: OpKernelContext, dtype: dtypes.DType, shape: Any) -> Any:
    shape_part = f" and shape {tensor_util.shape_string(shape)}" if shape else ""  # not for a scalar, as TF
    raise errors.InvalidArgumentError(
        ctx.node_def, None, f"You must feed a value for placeholder tensor '{ctx.name}' with dtype "
        f"{tensor_util.type_string(dtype)}{shape_part}")


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """A tensor that must be fed; `shape` may be partial (None dims) or None for any shape (a bad shape fails
    as the attr's conversion does)."""
    return Placeholder(dtype=dtype, shape=shape, name=name)


PlaceholderWithDefault = Op("PlaceholderWithDefault", inputs=["input: dtype"], outputs=["output: dtype"],
                            attrs=["dtype: type", "shape: shape"])


@PlaceholderWithDefault.shape
def _placeholder_with_default_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.attr("shape")
    declared = tensor_shape.unknown_shape() if shape is None else tensor_shape.as_shape(shape)
    tensor_util.merge_shapes(ctx.input_shape(0), declared)  # only checks: the output keeps the declared shape
    return [declared]


@PlaceholderWithDefault.kernel("CPU")
def _placeholder_with_default(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002 - TF's arg name
    return input


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The value of `input` unless this tensor is fed (a Python `input` becomes `<name>/input`, as in TF)."""
    shape = tensor_shape.as_shape(shape)
    return PlaceholderWithDefault(input, shape=None if shape.ndims is None else shape.as_list(), name=name)

# -- Identity ----------------------------------------------------------------------------------------

Identity = Op("Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"])


@Identity.shape
def _identity_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@Identity.kernel("CPU")
def _identity(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input


def identity(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The same value as `input`, as a new tensor (a variable's value comes through its 'read' snapshot, as in TF)."""
    return Identity(input, name=name)


RefIdentity = Op("RefIdentity", inputs=["input: Ref(T)"], outputs=["output: Ref(T)"], attrs=["T: type"],
                 allows_uninitialized_input=True)
RefIdentity.shape(_identity_shape)


@RefIdentity.kernel("CPU")
def _ref_identity(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input

# -- Reshape -----------------------------------------------------------------------------------------

Reshape = Op("Reshape", inputs=["tensor: T", "shape: Tshape"], outputs=["output: T"],
             attrs=["T: type", "Tshape: {int32, int64} = DT_INT32"])


@Reshape.shape
def _reshape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    target = ctx.input_as_shape(1)
    source = ctx.input_shape(0)
    if target.ndims is None:
        return [target]
    dims = target.as_list()
    unknown = [i for i, d in enumerate(dims) if d is None]
    if source.is_fully_defined():
        size = source.num_elements()
        if len(unknown) == 1:  # the one unknown dim (a -1, or not known statically) is inferred, as TF does
            known = int(np.prod([d for d in dims if d is not None], dtype=np.int64))
            if known == 0:  # nothing to infer from: only an empty tensor fits, and the dim stays unknown
                if size:
                    raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                                     f"{tensor_util.shape_string(dims)} (0 elements)")
            elif size % known:
                raise ValueError(f"Dimension size must be evenly divisible by {known} but is {size}")
            else:
                dims[unknown[0]] = size // known
        elif not unknown and int(np.prod(dims, dtype=np.int64)) != size:
            raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                             f"{tensor_util.shape_string(dims)} ({int(np.prod(dims, dtype=np.int64))} elements)")
    return [tensor_shape.TensorShape(dims)]


@Reshape.kernel("CPU")
def _reshape(ctx: OpKernelContext, tensor: Any, shape: Any) -> Any:
    """TF's ReshapeOp: sizes are checked in order; a -1 is inferred from the input's size, where zero-sized
    dimensions on both sides are left out of the division (so an empty tensor can still infer it)."""
    if shape.ndim > 1:
        raise _invalid(ctx, f"sizes input must be 1-D, not {tensor_util.shape_string(shape.shape)}")
    dims = shape.reshape(-1).tolist()
    product, unknown, has_zero = 1, -1, False
    for index, size in enumerate(dims):
        if size > 0:
            product *= size
        elif size == 0:
            has_zero = True
        elif size == -1:
            if unknown != -1:
                raise _invalid(ctx, f"Only one input size may be -1, not both {unknown} and {index}")
            unknown = index
        else:
            raise _invalid(ctx, f"Size {index} must be non-negative, not {size}")
    if unknown != -1:
        counted = [d for d in tensor.shape if d > 0 or not has_zero]
        input_size = math.prod(counted)
        missing = input_size // product
        if len(counted) == tensor.ndim and product * missing != input_size:
            raise _invalid(ctx, f"Input to reshape is a tensor with {input_size} values, but the requested shape "
                           f"requires a multiple of {product}")
        dims[unknown] = missing
    requested = math.prod(dims)
    if requested != tensor.size:
        raise _invalid(ctx, f"Input to reshape is a tensor with {tensor.size} values, but the requested shape has "
                       f"{requested}")
    return ctx.xp.reshape(tensor, dims)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """`tensor` with a new shape of the same number of elements; one dim may be -1."""
    return Reshape(tensor, shape, name=name)

# -- Shape, Size, Rank -------------------------------------------------------------------------------

Shape = Op("Shape", inputs=["input: T"], outputs=["output: out_type"],
           attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
           output_full_types={"output": "type_id: TFT_SHAPE_TENSOR args { type_id: TFT_VAR s: 'out_type' }"})


@Shape.shape
def _shape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([ctx.input_shape(0).ndims])]


@Shape.kernel("CPU")
def _shape(ctx: OpKernelContext, input: Any, out_type: dtypes.DType) -> Any:  # noqa: A002
    return np.array(input.shape, dtype=out_type.as_numpy_dtype)


def shape(input: Any, name: str | None = None, out_type: Any = None) -> Tensor:  # noqa: A002
    """The shape of `input` as a 1-D tensor: a Const when it is fully known while building, as in TF."""
    out_type = dtypes.int32 if out_type is None else out_type
    with name_scope(name, "Shape", [input]) as scope:
        input = convert_to_tensor(input)
        if input.shape.is_fully_defined():
            return constant(input.shape.as_list(), dtype=out_type, name=scope)
        return Shape(input, out_type=out_type, name=scope)


ShapeN = Op("ShapeN", inputs=["input: N * T"], outputs=["output: N * out_type"],
            attrs=["N: int >= 1", "T: type", "out_type: {int32, int64} = DT_INT32"])


@ShapeN.shape
def _shape_n_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([s.ndims]) for s in ctx.input_shapes]


@ShapeN.kernel("CPU")
def _shape_n(ctx: OpKernelContext, *inputs: Any, out_type: dtypes.DType) -> list:
    return [np.array(x.shape, dtype=out_type.as_numpy_dtype) for x in inputs]


def shape_n(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> list[Tensor]:  # noqa: A002
    """The shapes of several tensors in one op (always a ShapeN node, unlike `shape`'s folding), as in TF."""
    return ShapeN(input, out_type=out_type, name=name)


Size = Op("Size", inputs=["input: T"], outputs=["output: out_type"],
          attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])


@Size.shape
def _size_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@Size.kernel("CPU")
def _size(ctx: OpKernelContext, input: Any, out_type: dtypes.DType) -> Any:  # noqa: A002
    return np.array(input.size, dtype=out_type.as_numpy_dtype)


def size(input: Any, name: str | None = None, out_type: Any = None) -> Tensor:  # noqa: A002
    """The number of elements of `input`: a Const when known while building (or a dimension is 0)."""
    out_type = dtypes.int32 if out_type is None else out_type
    with name_scope(name, "Size", [input]) as scope:
        input = convert_to_tensor(input)
        static = input.shape
        if static.is_fully_defined():
            return constant(static.num_elements(), dtype=out_type, name=scope)
        if static.dims and any(d.value == 0 for d in static.dims):
            return constant(0, dtype=out_type, name=scope)
        return Size(input, out_type=out_type, name=scope)


Rank = Op("Rank", inputs=["input: T"], outputs=["output: int32"], attrs=["T: type"])


@Rank.shape
def _rank_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@Rank.kernel("CPU")
def _rank(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return np.array(input.ndim, dtype=np.int32)


def rank(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The number of dimensions of `input`: a Const when the rank is known while building, as in TF."""
    with name_scope(name, "Rank", [input]) as scope:
        input = convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtype=dtypes.int32, name=scope)
        return Rank(input, name=scope)

# -- Fill, zeros, ones -------------------------------------------------------------------------------

Fill = Op("Fill", inputs=["dims: index_type", "value: T"], outputs=["output: T"],
          attrs=["T: type", "index_type: {int32, int64} = DT_INT32"])


@Fill.shape
def _fill_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    if ctx.input_shape(1).ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {ctx.input_shape(1).ndims}")
    shape = ctx.input_as_shape(0)
    dims = ctx.input_value(0)
    if dims is not None and (dims < 0).any():  # a -1 reads as an unknown dimension, but Fill wants sizes
        raise ValueError("Fill dimensions must be >= 0")
    return [shape]


@Fill.kernel("CPU")
def _fill(ctx: OpKernelContext, dims: Any, value: Any) -> Any:
    """As TF's kernel, a scalar `dims` is read as a vector and a `value` of shape [1] as a scalar."""
    if dims.ndim > 1:
        raise _invalid(ctx, f"dims must represent a vector, got shape {tensor_util.shape_string(dims.shape)}")
    if value.ndim != 0 and value.shape != (1,):
        raise _invalid(ctx, f"value must represent a scalar, got shape {tensor_util.shape_string(value.shape)}")
    dims = dims.reshape(-1)
    if (dims < 0).any():
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Dimension {int(dims[dims < 0][0])} must be >= 0")
    return ctx.xp.full(tuple(int(d) for d in dims), value.reshape(()), dtype=value.dtype)


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape `dims` filled with the scalar `value`."""
    return Fill(dims, value, name=name)


def _filled(shape: Any, dtype: Any, value: Any, name: str | None, default_name: str) -> Tensor:
    """TF's zeros/ones: a Const when small (fewer than 1000 elements by `np.prod`, so float dims truncate as
    in `constant`), else a Fill of the shape as a tensor (int64 when a dimension needs it)."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, default_name, [shape]) as scope:
        if not isinstance(shape, Tensor):
            try:
                small = _constant_if_small(value, shape, dtype, scope)
                if small is not None:
                    return small
                shape = convert_to_tensor(tensor_shape.TensorShape(shape))
            except (TypeError, ValueError, errors.UnimplementedError):  # e.g. a list holding tensors
                shape = convert_to_tensor(shape, dtype=dtypes.int32)
        if not shape.shape.ndims:  # a scalar, or of unknown rank: made a vector, as TF does
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def _constant_if_small(value: Any, shape: Any, dtype: dtypes.DType, name: str) -> Tensor | None:
    try:
        if np.prod(shape) < 1000:
            return constant(value, shape=shape, dtype=dtype, name=name)
    except (NotImplementedError, TypeError):  # a shape holding tensors
        pass
    return None


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of zeros."""
    return _filled(shape, dtype, False if dtypes.as_dtype(dtype) == dtypes.bool else
                   (b"" if dtypes.as_dtype(dtype) == dtypes.string else 0), name, "zeros")


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ones."""
    return _filled(shape, dtype, True if dtypes.as_dtype(dtype) == dtypes.bool else 1, name, "ones")


ZerosLike = Op("ZerosLike", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"])


@ZerosLike.shape
def _zeros_like_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@ZerosLike.kernel("CPU")
def _zeros_like(ctx: OpKernelContext, x: Any) -> Any:
    """Zeros of `x`'s type; empty strings for a string tensor (NumPy's would be int 0 objects)."""
    if x.dtype.kind == "O":
        return np.full(x.shape, b"", dtype=object)
    return ctx.xp.zeros_like(x)


OnesLike = Op("OnesLike", inputs=["x: T"], outputs=["y: T"],
              attrs=["T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
                     "complex64, complex128, bool}"])


@OnesLike.shape
def _ones_like_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@OnesLike.kernel("CPU")
def _ones_like(ctx: OpKernelContext, x: Any) -> Any:
    return ctx.xp.ones_like(x)


def _shape_internal(tensor: Tensor, optimize: bool) -> Tensor:
    """TF's internal shape (out_type unset) that the *_like wrappers use: a Const `Shape/shape_as_tensor`
    (int64 only when a dimension needs it) when the shape is fully known, else a Shape op `Shape`."""
    with name_scope(None, "Shape", [tensor]) as scope:
        static = tensor.shape
        if optimize and static.is_fully_defined():
            dims = static.as_list()
            dtype = dtypes.int64 if any(d >= 2**31 for d in dims) else dtypes.int32
            return constant(dims, dtype=dtype, name="shape_as_tensor")
        return Shape(tensor, out_type=dtypes.int32, name=scope)


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Tensor:
    """Zeros with the shape (and by default the dtype) of `tensor`: `zeros` of the static shape when it is
    fully known, `zeros` of the runtime shape for another dtype, else a ZerosLike op (TF's choices)."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        base = tensor.dtype.base_dtype
        if optimize and tensor.shape.is_fully_defined():
            return zeros(tensor.shape.as_list(), dtype=dtype or base, name=scope)
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype != base:
            return zeros(_shape_internal(tensor, optimize), dtype=dtype, name=scope)
        return ZerosLike(tensor, name=scope)


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Tensor:
    """Ones with the shape (and by default the dtype) of `tensor`: always a Fill of its shape, as TF's
    (never the OnesLike op, which stays for imported graphs)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        result = ones(_shape_internal(tensor, optimize), dtype=dtype or tensor.dtype.base_dtype, name=scope)
        result.set_shape(tensor.shape)
        return result

# -- Shape-inference helpers -------------------------------------------------------------------------
# TF's C++ shape functions (InferenceContext::WithRank, Merge, ...) with their messages, which are what a
# bad graph reports; TensorShape's own methods carry the Python API's messages instead.


def _with_rank(shape: tensor_shape.TensorShape, rank: int) -> tensor_shape.TensorShape:
    if shape.ndims is None:
        return tensor_shape.unknown_shape(rank=rank)
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape


def _with_rank_at_least(shape: tensor_shape.TensorShape, rank: int) -> tensor_shape.TensorShape:
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.ndims}")
    return shape


def _shape_from_tensor(ctx: InferenceContext, index: int) -> tensor_shape.TensorShape:
    """A 1-D shape-like input (sizes, multiples) as a partial shape; -1 entries are unknown."""
    _with_rank(ctx.input_shape(index), 1)
    return ctx.input_as_shape(index)


def _invalid(ctx: OpKernelContext, message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.node_def, None, message)


def _no_kernel(ctx: OpKernelContext) -> errors.InvalidArgumentError:
    """TF's error for a node whose non-type attrs no CPU kernel is registered for. (TF fails every run of a
    graph holding such a node; here the runs that reach it.)"""
    attrs = op_registry.attrs_summary(op_registry.get(ctx.op).op_def, ctx.node_def)
    return _invalid(ctx, f"No OpKernel was registered to support Op '{ctx.op}' used by {{{{node {ctx.name}}}}} "
                    f"with these attrs: [{attrs}]")

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
    index_shape = _with_rank(ctx.input_shape(1), 1)
    end_shape, strides_shape = _with_rank(ctx.input_shape(2), 1), _with_rank(ctx.input_shape(3), 1)
    index_shape = tensor_util.merge_shapes(tensor_util.merge_shapes(index_shape, end_shape), strides_shape)
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
        raise _invalid(ctx, "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                       f"{tensor_util.shape_string(begin.shape)}, {tensor_util.shape_string(end.shape)}, and "
                       f"{tensor_util.shape_string(strides.shape)} instead.")
    try:
        slices, dims = _strided_slice_plan(list(input.shape), begin.tolist(), end.tolist(), strides.tolist(),
                                           begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
    except ValueError as e:
        raise _invalid(ctx, str(e)) from None
    return ctx.xp.reshape(input[tuple(slices)], dims)


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
                from tensorweave.ops import math_ops

                packed = [math_ops.cast(t, dtypes.int64) for t in packed]
        else:
            packed = [constant([], dtype=dtypes.int32)] * 3
        return strided_slice(tensor, *packed, name=name, var=var, **masks)


Tensor._override_operator("__getitem__", _slice_helper)

# -- Pack, Unpack, and lists of tensors as tensors -----------------------------------------------------

Pack = Op("Pack", inputs=["values: N * T"], outputs=["output: T"], attrs=["N: int >= 1", "T: type", "axis: int = 0"])


def _pack_axis(axis: int, rank: int) -> int:
    """An axis of a rank-`rank` shape, made non-negative (GetAxisForPackAndUnpack)."""
    if not -rank <= axis < rank:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    return axis + rank if axis < 0 else axis


@Pack.shape
def _pack_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shapes = ctx.input_shapes
    merged = shapes[-1]
    for i in range(len(shapes) - 2, -1, -1):
        try:
            merged = tensor_util.merge_shapes(shapes[i], merged)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    if merged.ndims is None:
        return [tensor_shape.unknown_shape()]
    dims = merged.as_list()
    dims.insert(_pack_axis(ctx.attr("axis"), len(dims) + 1), len(shapes))
    return [tensor_shape.TensorShape(dims)]


@Pack.kernel("CPU")
def _pack(ctx: OpKernelContext, *values: Any, axis: int) -> Any:
    first = values[0]
    rank = first.ndim
    if not -rank - 1 <= axis <= rank:
        raise _invalid(ctx, f"axis = {axis} not in [{-rank - 1}, {rank + 1})")
    for i, v in enumerate(values[1:], 1):
        if v.shape != first.shape:
            raise _invalid(ctx, f"Shapes of all inputs must match: values[0].shape = "
                           f"{tensor_util.shape_string(first.shape)} != values[{i}].shape = "
                           f"{tensor_util.shape_string(v.shape)}")
    return ctx.xp.stack(values, axis=axis)


def stack(values: Any, axis: int = 0, name: str = "stack") -> Tensor:
    """Stack rank-R tensors into one rank-(R+1) tensor; a list of constants becomes one Const, as in TF."""
    if axis == 0:
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError):
            pass  # the values hold tensors that cannot be packed as they are: Pack says why
    value_shape = convert_to_tensor(values[0], name=name).shape
    if value_shape.ndims is not None:
        expanded = value_shape.ndims + 1
        if not -expanded <= axis < expanded:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-expanded}, {expanded})")
    return Pack(values, axis=axis, name=name)


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, Tensor) or (hasattr(value, "_as_graph_element") and not isinstance(value, type))


def _nested_dtype(values: Any) -> dtypes.DType | None:
    """The dtype of the first tensor in nested lists, or None when they hold none."""
    for v in values:
        if _is_tensor_like(v):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            found = _nested_dtype(v)
            if found is not None:
                return found
    return None


def _cast_nested(values: Any, dtype: dtypes.DType) -> list:
    from tensorweave.ops import math_ops

    return [math_ops.cast(v, dtype) if isinstance(v, Tensor) else _cast_nested(v, dtype)
            if isinstance(v, (list, tuple)) else v for v in values]


def _autopack(values: Any, dtype: dtypes.DType, name: str) -> Any:
    """Pack nested lists that hold tensors (other entries become constants named by their index); lists
    without tensors come back as they are, for the caller to make one constant of."""
    must_pack = False
    converted = []
    with name_scope(name, None, [v for v in values if _is_tensor_like(v)]) as scope:
        for i, v in enumerate(values):
            if _is_tensor_like(v):
                v = convert_to_tensor(v)
                if v.dtype.base_dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype {v.dtype} to {dtype} "
                                    f"(Tensor is: {v!r})")
                must_pack = True
            elif isinstance(v, (list, tuple)):
                v = _autopack(v, dtype, str(i))
                must_pack = must_pack or isinstance(v, Tensor)
            converted.append(v)
        if not must_pack:
            return converted
        return Pack([v if isinstance(v, Tensor) else constant(v, dtype=dtype, name=str(i))
                     for i, v in enumerate(converted)], name=scope)


def _autopacking_conversion(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Any:
    """Lists and tuples holding tensors convert by packing them (TF's auto-packing)."""
    inferred = None if as_ref else _nested_dtype(value)
    if inferred is None:
        return NotImplemented
    dtype = inferred if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if dtype != inferred:
        value = _cast_nested(value, dtype)
    return _autopack(value, dtype, name or "packed")


register_tensor_conversion_function((list, tuple), _autopacking_conversion, 99)

Unpack = Op("Unpack", inputs=["value: T"], outputs=["output: num * T"],
            attrs=["num: int >= 0", "T: type", "axis: int = 0"])


@Unpack.shape
def _unpack_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    value = ctx.input_shape(0)
    num = ctx.attr("num")
    if value.ndims is None:
        return [tensor_shape.unknown_shape()] * num
    dims = value.as_list()
    axis = _pack_axis(ctx.attr("axis"), len(dims))
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[axis]}")
    return [tensor_shape.TensorShape(dims[:axis] + dims[axis + 1:])] * num


@Unpack.kernel("CPU")
def _unpack(ctx: OpKernelContext, value: Any, num: int, axis: int) -> list:
    rank = value.ndim
    if not -rank <= axis < rank:
        raise _invalid(ctx, f"axis = {axis} not in [{-rank}, {rank})")
    axis = axis + rank if axis < 0 else axis
    if value.shape[axis] != num:
        raise _invalid(ctx, f"Input shape axis {axis} must equal {num}, got shape "
                       f"{tensor_util.shape_string(value.shape)}")
    return [value[(builtins.slice(None),) * axis + (i,)] for i in range(num)]


def unstack(value: Any, num: int | None = None, axis: int = 0, name: str = "unstack") -> list[Tensor]:
    """The slices of `value` along `axis`; `num` is inferred from the static shape when not given."""
    if num is None:
        value = convert_to_tensor(value)
        value_shape = value.shape
        if value_shape.ndims is not None:
            if not -value_shape.ndims <= axis < value_shape.ndims:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-value_shape.ndims}, "
                                 f"{value_shape.ndims})")
            num = value_shape.dims[axis].value
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value_shape}")
    return Unpack(value, num=num, axis=axis, name=name)

# -- Split, SplitV -----------------------------------------------------------------------------------

Split = Op("Split", inputs=["split_dim: int32", "value: T"], outputs=["output: num_split * T"],
           attrs=["num_split: int >= 1", "T: type"])
SplitV = Op("SplitV", inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
            outputs=["output: num_split * T"],
            attrs=["num_split: int >= 1", "T: type", "Tlen: {int8, int32, int64} = DT_INT64"])


def _split_axis(ctx: InferenceContext, split_dim: int, value_shape: tensor_shape.TensorShape) -> int | None:
    """The constant split axis (input `split_dim`) made non-negative, or None when it is not known while
    building the graph."""
    _with_rank(ctx.input_shape(split_dim), 0)
    axis = ctx.input_value(split_dim)
    if axis is None or value_shape.ndims is None:
        return None
    axis, rank = int(axis), value_shape.ndims
    if not -rank <= axis < rank:
        raise ValueError(f"Dimension size, given by scalar input {axis} must be in range [-{rank}, {rank})")
    return axis + rank if axis < 0 else axis


@Split.shape
def _split_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    value = ctx.input_shape(1)
    num = ctx.attr("num_split")
    axis = _split_axis(ctx, 0, value)
    if axis is None:
        return [tensor_shape.unknown_shape(rank=value.ndims)] * num
    dims = value.as_list()
    if dims[axis] is not None:
        if dims[axis] % num:
            raise ValueError(f"Dimension size must be evenly divisible by {num} but is {dims[axis]}\n\tNumber of "
                             "ways to split should evenly divide the split dimension")
        dims[axis] //= num
    return [tensor_shape.TensorShape(dims)] * num


@SplitV.shape
def _split_v_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    value = ctx.input_shape(0)
    num = ctx.attr("num_split")
    _with_rank(ctx.input_shape(1), 1)
    axis = _split_axis(ctx, 2, value)
    if axis is None:
        return [tensor_shape.unknown_shape(rank=value.ndims)] * num
    sizes = ctx.input_value(1)
    dims = value.as_list()
    if sizes is None:
        return [tensor_shape.TensorShape(dims[:axis] + [None] + dims[axis + 1:])] * num
    sizes = [int(s) for s in sizes.reshape(-1)]
    if sizes.count(-1) > 1:
        raise ValueError("size_splits can only have one -1")
    known = sum(s for s in sizes if s != -1)
    if dims[axis] is not None and (known > dims[axis] or (-1 not in sizes and known != dims[axis])):
        raise ValueError(f"can't split axis of size {dims[axis]} into pieces of size "
                         f"[{','.join(map(str, sizes))}]")
    rest = None if dims[axis] is None else dims[axis] - known
    return [tensor_shape.TensorShape(dims[:axis] + [rest if s == -1 else s] + dims[axis + 1:]) for s in sizes]


def _split_kernel_axis(ctx: OpKernelContext, split_dim: Any, value: Any) -> int:
    axis, rank = int(split_dim), value.ndim
    if not -rank <= axis < rank:
        raise _invalid(ctx, f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis}")
    return axis + rank if axis < 0 else axis


@Split.kernel("CPU")
def _split(ctx: OpKernelContext, split_dim: Any, value: Any, num_split: int) -> list:
    axis = _split_kernel_axis(ctx, split_dim, value)
    if value.shape[axis] % num_split:
        raise _invalid(ctx, f"Number of ways to split should evenly divide the split dimension, but got split_dim "
                       f"{axis} (size = {value.shape[axis]}) and num_split {num_split}")
    return ctx.xp.split(value, num_split, axis=axis)


@SplitV.kernel("CPU")
def _split_v(ctx: OpKernelContext, value: Any, size_splits: Any, split_dim: Any, num_split: int) -> list:
    axis = _split_kernel_axis(ctx, split_dim, value)
    if size_splits.ndim != 1 or size_splits.size != num_split:
        raise _invalid(ctx, f"size of the split_tensor must be 1-D and have the same elements as outputs got "
                       f"{size_splits.ndim} -D and {size_splits.size} elements")
    sizes = [int(s) for s in size_splits.tolist()]
    if sizes.count(-1) > 1:
        raise _invalid(ctx, "There can only be one -1 in the input.")
    for index, size in enumerate(sizes):
        if size < -1:
            raise _invalid(ctx, f"Split size at index {index} must be >= 0. Got: {size}")
    known, dim = sum(s for s in sizes if s != -1), value.shape[axis]
    if known > dim or (-1 not in sizes and known != dim):
        raise _invalid(ctx, "Determined shape must either match input shape along split_dim exactly if fully "
                       "specified, or be less than the size of the input along split_dim if not fully "
                       f"specified.  Got: {known}")
    sizes = [dim - known if s == -1 else s for s in sizes]
    return ctx.xp.split(value, np.cumsum(sizes[:-1]).tolist(), axis=axis)


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None,
          name: str = "split") -> list[Tensor]:
    """`value` cut along `axis` into `num_or_size_splits` equal pieces (an int) or pieces of the given sizes
    (a 1-D list or tensor, one entry may be -1)."""
    if isinstance(num_or_size_splits, (numbers.Integral, tensor_shape.Dimension)):
        return Split(axis, value, num_split=int(num_or_size_splits), name=name)
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
                         f"Argument provided: {num_or_size_splits}")
    if num is None:
        if size_splits.shape.ndims is not None:
            num = size_splits.shape.dims[0].value
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return SplitV(value, size_splits, axis, num_split=num, name=name)

# -- IdentityN ---------------------------------------------------------------------------------------

IdentityN = Op("IdentityN", inputs=["input: T"], outputs=["output: T"], attrs=["T: list(type)"])


@IdentityN.shape
def _identity_n_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return ctx.input_shapes


@IdentityN.kernel("CPU")
def _identity_n(ctx: OpKernelContext, *values: Any) -> list:
    return list(values)


def identity_n(input: Any, name: str | None = None) -> list[Tensor]:  # noqa: A002 - TF's argument name
    """Each of a list of tensors passed through unchanged, in one op (so one control edge orders them all)."""
    return IdentityN(input, name=name)

# -- ConcatV2 ----------------------------------------------------------------------------------------

ConcatV2 = Op("ConcatV2", inputs=["values: N * T", "axis: Tidx"], outputs=["output: T"],
              attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = DT_INT32"])


@ConcatV2.shape
def _concat_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    values, axis_index = ctx.input_shapes[:-1], ctx.num_inputs - 1
    _with_rank(ctx.input_shape(axis_index), 0)
    rank = next((v.ndims for v in values if v.ndims is not None), None)
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    shapes = [v if rank is None else _with_rank(v, rank) for v in values]
    axis = ctx.input_value(axis_index)
    if axis is None:
        return [tensor_shape.unknown_shape(rank=rank)]
    axis = int(axis)
    for s in shapes:
        _with_rank_at_least(s, -axis if axis < 0 else axis + 1)
    if rank is None:
        return [tensor_shape.unknown_shape()]
    axis = axis + rank if axis < 0 else axis
    dims = shapes[-1].as_list()
    before, middle, after = (tensor_shape.TensorShape(dims[:axis]), dims[axis],
                             tensor_shape.TensorShape(dims[axis + 1:]))
    for s in reversed(shapes[:-1]):
        d = s.as_list()
        before = tensor_util.merge_shapes(tensor_shape.TensorShape(d[:axis]), before)
        middle = None if middle is None or d[axis] is None else middle + d[axis]
        after = tensor_util.merge_shapes(tensor_shape.TensorShape(d[axis + 1:]), after)
    return [before.concatenate([middle]).concatenate(after)]


@ConcatV2.kernel("CPU")
def _concat(ctx: OpKernelContext, *args: Any) -> Any:
    values, axis = args[:-1], args[-1]
    if not (axis.ndim == 0 or axis.shape == (1,)):
        raise _invalid(ctx, f"axis tensor should be a scalar integer, but got shape "
                       f"{tensor_util.shape_string(axis.shape)}")
    concat_dim = int(axis.reshape(-1)[0])
    first = values[0]
    rank = first.ndim
    axis = concat_dim + rank if concat_dim < 0 else concat_dim
    if not (0 <= axis < rank or concat_dim == 0):
        raise _invalid(ctx, f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but "
                       f"got {concat_dim}")
    if rank == 0:
        raise _invalid(ctx, "ConcatOp : Can't concatenate scalars (use tf.stack instead)")
    for i, v in enumerate(values):
        shapes = (f"shape[0] = {tensor_util.shape_string(first.shape)} vs. shape[{i}] = "
                  f"{tensor_util.shape_string(v.shape)}")
        if v.ndim != rank:
            raise _invalid(ctx, f"ConcatOp : Ranks of all input tensors should match: {shapes}")
        for j in range(rank):
            if j != axis and v.shape[j] != first.shape[j]:
                raise _invalid(ctx, f"ConcatOp : Dimension {j} in both shapes must be equal: {shapes}")
    return ctx.xp.concatenate(values, axis=axis)


def concat(values: Any, axis: Any, name: str = "concat") -> Tensor:
    """Join tensors along `axis`; a single value comes back through an Identity, as in TF."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with name_scope(name):
            convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32).shape.assert_has_rank(0)
            return identity(values[0], name=name)
    return ConcatV2(values, axis, name=name)

# -- ExpandDims, Squeeze -----------------------------------------------------------------------------

ExpandDims = Op("ExpandDims", inputs=["input: T", "dim: Tdim"], outputs=["output: T"],
                attrs=["T: type", "Tdim: {int32, int64} = DT_INT32"])


@ExpandDims.shape
def _expand_dims_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    dim = ctx.input_value(1)
    if dim is not None and dim.size != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    input_shape = ctx.input_shape(0)
    if dim is None or input_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    dim = int(dim.reshape(-1)[0])
    rank = input_shape.ndims
    if not -rank - 1 <= dim <= rank:
        raise ValueError(f"dim {dim} not in the interval [{-rank - 1}, {rank}].")
    dims = input_shape.as_list()
    dims.insert(dim + rank + 1 if dim < 0 else dim, 1)
    return [tensor_shape.TensorShape(dims)]


@ExpandDims.kernel("CPU")
def _expand_dims(ctx: OpKernelContext, input: Any, dim: Any) -> Any:  # noqa: A002
    if dim.size != 1:
        raise _invalid(ctx, "'dim' must be a tensor with a single value")
    dim = int(dim.reshape(-1)[0])
    if not -1 - input.ndim <= dim <= input.ndim:
        raise _invalid(ctx, f"Tried to expand dim index {dim} for tensor with {input.ndim} dimensions.")
    return ctx.xp.expand_dims(input, dim)


def expand_dims(input: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:  # noqa: A002
    """`input` with a new dimension of size 1 inserted at `axis` (`dim` is TF1's deprecated alias)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return ExpandDims(input, axis, name=name)


Squeeze = Op("Squeeze", inputs=["input: T"], outputs=["output: T"],
             attrs=["T: type", "squeeze_dims: list(int) >= 0 = []"])


@Squeeze.shape
def _squeeze_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    if input_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    rank = input_shape.ndims
    wanted = set()
    for i, d in enumerate(ctx.attr("squeeze_dims")):
        if not -rank <= d < rank:
            raise ValueError(f"squeeze_dims[{i}] not in [{-rank},{rank}).")
        wanted.add(d + rank if d < 0 else d)
    dims = []
    for i, d in enumerate(input_shape.as_list()):
        if d is None:
            if i in wanted:
                continue  # assumed to be 1 when the graph runs
            if not wanted:
                return [tensor_shape.unknown_shape()]
        elif d == 1:
            if i in wanted or not wanted:
                continue
        elif i in wanted:
            raise ValueError(f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}")
        dims.append(d)
    return [tensor_shape.TensorShape(dims)]


@Squeeze.kernel("CPU")
def _squeeze(ctx: OpKernelContext, input: Any, squeeze_dims: list) -> Any:  # noqa: A002
    rank = input.ndim
    wanted = set()
    for d in squeeze_dims:
        if not -rank <= d < rank:
            raise _invalid(ctx, f"Tried to squeeze dim index {d} for tensor with {rank} dimensions.")
        wanted.add(d + rank if d < 0 else d)
    for d in sorted(wanted):
        if input.shape[d] != 1:
            raise _invalid(ctx, f"Can not squeeze dim[{d}], expected a dimension of 1, got {input.shape[d]}")
    return ctx.xp.reshape(input, [n for i, n in enumerate(input.shape)
                                  if not (i in wanted or (not wanted and n == 1))])


def squeeze(input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None) -> Tensor:  # noqa: A002
    """`input` without its size-1 dimensions (only those in `axis` when given)."""
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'.")
    axis = squeeze_dims if axis is None else axis
    if np.isscalar(axis):
        axis = [axis]
    if axis is None:
        axis = []
    if not isinstance(axis, (list, tuple)):  # TF's generated wrapper names its Python argument, `axis`
        raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axis!r}.")
    return Squeeze(input, squeeze_dims=list(axis), name=name)

# -- Transpose, ConjugateTranspose -------------------------------------------------------------------


def _transpose_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    x, perm_shape = ctx.input_shapes
    perm = ctx.input_value(1)
    perm_size = perm_shape.num_elements()
    if x.ndims is None and perm_size is None and perm is None:
        return [tensor_shape.unknown_shape()]
    rank = x.ndims if x.ndims is not None else perm_size if perm_size is not None else perm.size
    if x.ndims is None and rank < 2:
        return [x]  # one entry could mean a scalar or a vector: either comes back unchanged
    dims = _with_rank(x, rank).as_list()
    _with_rank(perm_shape, 1)
    if perm_size is not None and perm_size != rank:
        raise ValueError(f"Dimension must be {rank} but is {perm_size}")
    if perm is None:
        return [tensor_shape.unknown_shape(rank=rank)]
    out = []
    for p in perm.reshape(-1).tolist()[:rank]:
        if not -rank <= p < rank:
            raise ValueError(f"perm dim {p} is out of range of input rank {rank}")
        out.append(dims[p])
    return [tensor_shape.TensorShape(out)]


def _transpose_axes(ctx: OpKernelContext, x: Any, perm: Any) -> list[int]:
    """The permutation as numpy axes, checked as TF's TransposeOp does."""
    if perm.ndim != 1:
        raise _invalid(ctx, f"perm must be rank 1, got shape {tensor_util.shape_string(perm.shape)}")
    rank = x.ndim
    if perm.size != rank:
        raise _invalid(ctx, f"transpose expects a vector of size {rank}. But input(1) is a vector of size "
                       f"{perm.size}")
    axes = []
    for d in perm.tolist():
        d = d + rank if d < 0 else d
        if not 0 <= d < rank:
            raise _invalid(ctx, f"{d} is out of range [0 .. {rank})")
        axes.append(d)
    for i in range(rank):
        if i not in axes:
            raise _invalid(ctx, f"{i} is missing from {{{','.join(str(p) for p in perm.tolist())}}}.")
    return axes


Transpose = Op("Transpose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
               attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"])
Transpose.shape(_transpose_shape)


@Transpose.kernel("CPU")
def _transpose(ctx: OpKernelContext, x: Any, perm: Any) -> Any:
    return ctx.xp.transpose(x, _transpose_axes(ctx, x, perm))


ConjugateTranspose = Op("ConjugateTranspose", inputs=["x: T", "perm: Tperm"], outputs=["y: T"],
                        attrs=["T: type", "Tperm: {int32, int64} = DT_INT32"])
ConjugateTranspose.shape(_transpose_shape)


@ConjugateTranspose.kernel("CPU")
def _conjugate_transpose(ctx: OpKernelContext, x: Any, perm: Any) -> Any:
    return ctx.xp.conj(ctx.xp.transpose(x, _transpose_axes(ctx, x, perm)))


def transpose(a: Any, perm: Any = None, name: str = "transpose", conjugate: bool = False) -> Tensor:
    """`a` with its dimensions permuted (reversed by default); `conjugate` also conjugates complex values."""
    with name_scope(name, "transpose", [a]) as name:
        if not isinstance(a, Tensor):
            a = convert_to_tensor(a, name="a")
        op = ConjugateTranspose if conjugate and a.dtype.is_complex else Transpose
        if perm is None:
            if a.shape.ndims is None:
                from tensorweave.ops import math_ops

                perm = math_ops.Range(Rank(a) - 1, -1, -1)
            else:
                perm = np.arange(a.shape.ndims - 1, -1, -1, dtype=np.int32)
        return op(a, perm, name=name)


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> Tensor:
    """`a` with its last two dimensions swapped (`tf.linalg.transpose`); `conjugate` also conjugates."""
    with name_scope(name, values=[a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.ndims
        if ndims is not None:
            if ndims < 2:
                raise ValueError("Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = "
                                 f"{a} with shape: {a.shape}")
            perm = list(builtins.range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            from tensorweave.ops import math_ops

            a_rank = rank(a)
            perm = concat((math_ops.Range(0, a_rank - 2, 1), [a_rank - 1, a_rank - 2]), 0)
        return transpose(a, perm=perm, conjugate=conjugate)

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
        raise _invalid(ctx, "WhereOp : Unhandled input dimensions: 0")
    return ctx.xp.argwhere(input).astype(np.int64, copy=False)


def where(condition: Any, name: str | None = None) -> Tensor:
    """The int64 coordinates [N, rank] of the true elements of `condition` (`tf.where` with one argument;
    `math_ops.where` is the public wrapper)."""
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
    params = _with_rank_at_least(ctx.input_shape(0), 1)
    indices = ctx.input_shape(1)
    _with_rank(ctx.input_shape(2), 0)
    axis = ctx.input_value(2)
    batch_dims = ctx.attr("batch_dims")
    if axis is None:
        if params.ndims is not None and indices.ndims is not None:
            return [tensor_shape.unknown_shape(rank=params.ndims + indices.ndims - 1 - batch_dims)]
        return [tensor_shape.unknown_shape()]
    axis = int(axis)
    _with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    _with_rank_at_least(indices, abs(batch_dims))
    if params.ndims is None or indices.ndims is None:
        return [tensor_shape.unknown_shape()]
    batch_dims = batch_dims + indices.ndims if batch_dims < 0 else batch_dims
    _with_rank_at_least(params, batch_dims + 1)
    axis = axis + params.ndims if axis < 0 else axis
    p, i = params.as_list(), indices.as_list()
    return [tensor_shape.TensorShape(p[:axis] + i[batch_dims:] + p[axis + 1:])]


@GatherV2.kernel("CPU")
def _gather(ctx: OpKernelContext, params: Any, indices: Any, axis: Any, batch_dims: int) -> Any:
    if params.ndim < 1:
        raise _invalid(ctx, "params must be at least 1 dimensional")
    if axis.ndim != 0:
        raise _invalid(ctx, "axis must be scalar")
    axis = int(axis)
    min_rank = -axis if axis < 0 else axis + 1
    if params.ndim < min_rank:
        raise _invalid(ctx, f"Shape must be at least rank {min_rank} but is rank {params.ndim}")
    axis = axis + params.ndim if axis < 0 else axis
    if batch_dims:
        if not -indices.ndim <= batch_dims <= indices.ndim:
            raise _invalid(ctx, f"Expected batch_dims in the range [{-indices.ndim}, {indices.ndim}], but got "
                           f"{batch_dims}")
        batch_dims = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
        if batch_dims >= params.ndim:
            raise _invalid(ctx, f"batch_dims ({batch_dims}) must be less than rank(params) ({params.ndim}).")
        if axis < batch_dims:
            raise _invalid(ctx, f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
        for i in range(batch_dims):
            if params.shape[i] != indices.shape[i]:
                raise _invalid(ctx, f"params.shape[{i}]: {params.shape[i]} should be equal to indices.shape[{i}]: "
                               f"{indices.shape[i]}")
    limit = params.shape[axis]
    bad = (indices < 0) | (indices >= limit)
    if bad.any():
        position = np.unravel_index(int(bad.argmax()), indices.shape)
        where_ = f"[{','.join(str(int(p)) for p in position)}]" if indices.ndim else ""
        raise _invalid(ctx, f"indices{where_} = {int(indices[position])} is not in [0, {limit})")
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


def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None, axis: Any = None,
           batch_dims: int = 0) -> Tensor:
    """Slices of `params` along `axis` at `indices` (out-of-range indices fail when the graph runs). As TF's,
    `batch_dims` is dropped when `axis` is statically 0."""
    if axis is None:
        axis = batch_dims
    if (tensor_util.constant_value(axis) if isinstance(axis, Tensor) else axis) != 0:
        return GatherV2(params, indices, axis, batch_dims=batch_dims, name=name)
    return GatherV2(params, indices, axis, name=name)

# -- boolean_mask (composed: Reshape, Where, Squeeze, GatherV2) --------------------------------------


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask", axis: Any = None) -> Tensor:
    """The entries of `tensor` where `mask` is true, flattening the masked dimensions into one."""
    from tensorweave.ops import math_ops

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
        leading_size = math_ops.Prod(shape(tensor)[axis:axis + ndims_mask], [0])
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size],
                                         shape(tensor)[axis + ndims_mask:]], 0))
        if axis_value is not None:
            first_dim = shape_tensor[axis:axis + ndims_mask].num_elements()
            tensor.set_shape(tensor_shape.as_shape(shape_tensor[:axis]).concatenate([first_dim])
                             .concatenate(shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        return gather(tensor, squeeze(where(mask), axis=[1]), axis=axis)

# -- Slice, Tile -------------------------------------------------------------------------------------

Slice = Op("Slice", inputs=["input: T", "begin: Index", "size: Index"], outputs=["output: T"],
           attrs=["T: type", "Index: {int32, int64}"])


@Slice.shape
def _slice_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    begin_shape = tensor_util.merge_shapes(_with_rank(ctx.input_shape(1), 1), _with_rank(ctx.input_shape(2), 1))
    ndims = begin_shape.dims[0].value
    input_shape = ctx.input_shape(0) if ndims is None else _with_rank(ctx.input_shape(0), ndims)
    begin = _shape_from_tensor(ctx, 1)
    sizes = _shape_from_tensor(ctx, 2)
    size_value = ctx.input_value(2)
    if size_value is not None:
        size_value = size_value.reshape(-1).tolist()
        begin = _with_rank(begin, len(size_value)).as_list()
        dims = input_shape.as_list() if input_shape.ndims is not None else [None] * len(size_value)
        return [tensor_shape.TensorShape([
            s if s != -1 else None if dims[i] is None or begin[i] is None else dims[i] - begin[i]
            for i, s in enumerate(size_value)])]
    if sizes.ndims is not None:
        _with_rank(begin, sizes.ndims)
        return [sizes]
    return [tensor_shape.unknown_shape(rank=input_shape.ndims)]


@Slice.kernel("CPU")
def _slice(ctx: OpKernelContext, input: Any, begin: Any, size: Any) -> Any:  # noqa: A002
    rank = input.ndim
    if not (begin.ndim == size.ndim == 1 and begin.size == size.size == rank):
        raise _invalid(ctx, f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got shapes "
                       f"{tensor_util.shape_string(begin.shape)} and {tensor_util.shape_string(size.shape)} "
                       "instead.")
    index = []
    for i, (b, s) in enumerate(zip(begin.tolist(), size.tolist())):
        dim = input.shape[i]
        s = dim - b if s == -1 else s
        if dim == 0:
            if b != 0 or s != 0:
                raise _invalid(ctx, f"Expected begin[{i}] == 0 (got {b}) and size[{i}] == 0 (got {s}) when "
                               f"input.dim_size({i}) == 0")
        elif not 0 <= b <= dim:
            raise _invalid(ctx, f"Expected begin[{i}] in [0, {dim}], but got {b}")
        elif not 0 <= s <= dim - b:
            raise _invalid(ctx, f"Expected size[{i}] in [0, {dim - b}], but got {s}")
        index.append(builtins.slice(b, b + s))
    return input[tuple(index)]


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """The block of `input_` starting at `begin` with extent `size` (-1: the rest of that dimension)."""
    return Slice(input_, begin, size, name=name)


Tile = Op("Tile", inputs=["input: T", "multiples: Tmultiples"], outputs=["output: T"],
          attrs=["T: type", "Tmultiples: {int32, int64} = DT_INT32"])


def _multiply_dims(a: int | None, b: int | None) -> int | None:
    """InferenceContext::Multiply: 0 and 1 decide the product even when the other factor is unknown."""
    if a == 0 or b == 0:
        return 0
    if a == 1 or b == 1:
        return b if a == 1 else a
    return None if a is None or b is None else a * b


@Tile.shape
def _tile_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    multiples = _shape_from_tensor(ctx, 1)
    if input_shape.ndims is not None:
        multiples = _with_rank(multiples, input_shape.ndims)
        tensor_util.merge_shapes(ctx.input_shape(1), tensor_shape.TensorShape([input_shape.ndims]))
    if multiples.ndims is None:
        return [tensor_shape.unknown_shape()]
    input_shape = _with_rank(input_shape, multiples.ndims)
    return [tensor_shape.TensorShape([_multiply_dims(a, b)
                                      for a, b in zip(input_shape.as_list(), multiples.as_list())])]


@Tile.kernel("CPU")
def _tile(ctx: OpKernelContext, input: Any, multiples: Any) -> Any:  # noqa: A002
    if multiples.ndim != 1:
        raise _invalid(ctx, f"Expected multiples to be 1-D, but got shape {tensor_util.shape_string(multiples.shape)}")
    if multiples.size != input.ndim:
        raise _invalid(ctx, f"Expected multiples argument to be a vector of length {input.ndim} but got length "
                       f"{multiples.size}")
    for i, m in enumerate(multiples.tolist()):
        if m < 0:
            raise _invalid(ctx, f"Expected multiples[{i}] >= 0, but got {m}")
    if input.dtype == np.uint16 and input.ndim:
        raise errors.UnimplementedError(ctx.node_def, None, "TileOp : The input data type is not supported, "
                                        f"DataType : uint16, Dimension : {input.ndim}")
    return ctx.xp.tile(input, multiples.tolist())


def tile(input: Any, multiples: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """`input` repeated `multiples[i]` times along each dimension i."""
    return Tile(input, multiples, name=name)

# -- OneHot ------------------------------------------------------------------------------------------

OneHot = Op("OneHot", inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
            outputs=["output: T"], attrs=["axis: int = -1", "T: type", "TI: {uint8, int8, int32, int64} = DT_INT64"])


@OneHot.shape
def _one_hot_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    axis = ctx.attr("axis")
    if axis < -1:
        raise ValueError("axis must be >= -1")
    _with_rank(ctx.input_shape(1), 0)
    depth = ctx.input_value(1)
    if depth is not None and depth < 0:
        raise ValueError(f"Dimension size, given by scalar input 1, must be non-negative but is {int(depth)}")
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
        raise _invalid(ctx, f"Expected axis to be -1 or between [0, {output_dims}).  But received: {axis}")
    for arg, value in (("depth", depth), ("on_value", on_value), ("off_value", off_value)):
        if value.ndim != 0:
            raise _invalid(ctx, f"{arg} must be a scalar, but got: {tensor_util.shape_string(value.shape)}")
    if depth < 0:
        raise _invalid(ctx, f"depth must be non-negative, got: {int(depth)}")
    xp = ctx.xp
    hot = xp.expand_dims(indices, -1) == xp.arange(int(depth))
    return xp.moveaxis(xp.where(hot, on_value, off_value).astype(on_value.dtype, copy=False), -1, axis)


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

# -- Pad, PadV2, MirrorPad ---------------------------------------------------------------------------

Pad = Op("Pad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
         attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"])
PadV2 = Op("PadV2", inputs=["input: T", "paddings: Tpaddings", "constant_values: T"], outputs=["output: T"],
           attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32"])
MirrorPad = Op("MirrorPad", inputs=["input: T", "paddings: Tpaddings"], outputs=["output: T"],
               attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32", "mode: {'REFLECT', 'SYMMETRIC'}"])


@Pad.shape
@PadV2.shape
@MirrorPad.shape
def _pad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    paddings_shape = _with_rank(ctx.input_shape(1), 2)
    rank = paddings_shape.dims[0].value
    if rank is not None:
        input_shape = _with_rank(input_shape, rank)
    if paddings_shape.dims[1].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {paddings_shape.dims[1].value}")
    value = ctx.input_value(1)
    if value is None:
        return [tensor_shape.unknown_shape(rank=input_shape.ndims)]
    if (value < 0).any():
        raise ValueError("Paddings must be non-negative")
    return [tensor_shape.TensorShape([None if d is None else d + int(before) + int(after)
                                      for d, (before, after) in zip(input_shape.as_list(), value.tolist())])]


def _checked_paddings(ctx: OpKernelContext, input: Any, paddings: Any, negative: str = "Paddings") -> list:  # noqa: A002
    """The paddings as (before, after) pairs; `negative` is how the op's message starts (MirrorPad: lower case)."""
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise _invalid(ctx, f"paddings must be a matrix with 2 columns: {tensor_util.shape_string(paddings.shape)}")
    if paddings.shape[0] != input.ndim:
        raise _invalid(ctx, "The first dimension of paddings must be the rank of inputs"
                       f"{tensor_util.shape_string(paddings.shape)} {tensor_util.shape_string(input.shape)}")
    pairs = [(int(before), int(after)) for before, after in paddings.tolist()]
    for before, after in pairs:
        if before < 0 or after < 0:
            raise _invalid(ctx, f"{negative} must be non-negative: {before} {after}")
    return pairs


def _constant_pad(xp: Any, input: Any, pairs: list, value: Any) -> Any:  # noqa: A002
    """np.pad with a constant, also for strings (object arrays, which np.pad fills with the wrong type)."""
    if input.dtype != object:
        return xp.pad(input, pairs, constant_values=value)
    out = np.full([d + before + after for d, (before, after) in zip(input.shape, pairs)], value, dtype=object)
    out[tuple(builtins.slice(before, before + d) for d, (before, _) in zip(input.shape, pairs))] = input
    return out


@Pad.kernel("CPU")
def _pad(ctx: OpKernelContext, input: Any, paddings: Any) -> Any:  # noqa: A002
    pairs = _checked_paddings(ctx, input, paddings)
    return _constant_pad(ctx.xp, input, pairs, b"" if input.dtype == object else 0)


@PadV2.kernel("CPU")
def _pad_v2(ctx: OpKernelContext, input: Any, paddings: Any, constant_values: Any) -> Any:  # noqa: A002
    pairs = _checked_paddings(ctx, input, paddings)
    if constant_values.ndim:
        raise _invalid(ctx, f"constant_values must be a scalar. Found: "
                       f"{tensor_util.shape_string(constant_values.shape)}")
    return _constant_pad(ctx.xp, input, pairs, constant_values.item())


@MirrorPad.kernel("CPU")
def _mirror_pad(ctx: OpKernelContext, input: Any, paddings: Any, mode: bytes) -> Any:  # noqa: A002
    reflect = mode == b"REFLECT"
    pairs = _checked_paddings(ctx, input, paddings, "paddings")
    for (before, after), size in zip(pairs, input.shape):
        if reflect and (before >= size or after >= size):
            raise _invalid(ctx, f"paddings must be less than the dimension size: {before}, {after} not less than "
                           f"{size}")
        if not reflect and (before > size or after > size):
            raise _invalid(ctx, f"paddings must be no greater than the dimension size: {before}, {after} greater "
                           f"than {size}")
    return ctx.xp.pad(input, pairs, mode="reflect" if reflect else "symmetric")


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: str | None = None,
        constant_values: Any = 0) -> Tensor:
    """`tensor` padded by `paddings[i] = [before, after]` along each dimension: with `constant_values`
    (CONSTANT), or mirrored without (REFLECT) or with (SYMMETRIC) the edge."""
    mode = mode.upper()
    if mode == "CONSTANT":
        if not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and \
                constant_values == np.zeros_like(constant_values):
            result = Pad(tensor, paddings, name=name)
        else:
            result = PadV2(tensor, paddings, constant_values, name=name)
    elif mode in ("REFLECT", "SYMMETRIC"):
        result = MirrorPad(tensor, paddings, mode=mode, name=name)
    else:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    _restore_pad_shape(result, paddings)
    return result


def _restore_pad_shape(result: Tensor, paddings: Any) -> None:
    """Sharpen the output shape from the paddings known in part, as TF's Python `pad` does after the op's own
    shape function (which needs all of them): a dimension whose pair is known gets its padded size."""
    input_shape = result.op.inputs[0].shape
    known_paddings = _static_paddings(paddings)
    if input_shape.ndims is None or result.shape.is_fully_defined() or known_paddings is None:
        return
    result.set_shape([None if padding is None or dim is None or any(x is None for x in padding)
                      else sum(padding) + dim for padding, dim in zip(known_paddings, input_shape.as_list())])


def _static_paddings(paddings: Any) -> Any:
    """The paddings with each tensor (even nested in lists) replaced by its static value, None if unknown."""
    if isinstance(paddings, Tensor):
        return tensor_util.get_static_value(paddings, partial=True)
    if isinstance(paddings, (list, tuple)):
        return [_static_paddings(p) for p in paddings]
    return paddings

# -- ReverseV2 ---------------------------------------------------------------------------------------

ReverseV2 = Op("ReverseV2", inputs=["tensor: T", "axis: Tidx"], outputs=["output: T"],
               attrs=["Tidx: {int32, int64} = DT_INT32",
                      "T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, "
                      "double, complex64, complex128, string}"])


def _reverse_axes(axes: list, rank: int) -> list:
    """The axes made non-negative, with TF's messages for one out of range (sic: no closing bracket) or repeated."""
    seen = []
    for i, axis in enumerate(axes):
        canonical = axis + rank if axis < 0 else axis
        if not 0 <= canonical < rank:
            raise ValueError(f"'axis'[{i}] = {axis} is out of valid range [0, {rank - 1}")
        if canonical in seen:
            raise ValueError(f"axis {canonical} specified more than once.")
        seen.append(canonical)
    return seen


@ReverseV2.shape
def _reverse_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape = ctx.input_shape(0)
    _with_rank(ctx.input_shape(1), 1)
    value = ctx.input_value(1)
    if value is not None and input_shape.ndims is not None:
        _reverse_axes(value.tolist(), input_shape.ndims)
    return [input_shape]


@ReverseV2.kernel("CPU")
def _reverse(ctx: OpKernelContext, tensor: Any, axis: Any) -> Any:
    if tensor.ndim == 0:  # a scalar reverses to itself, whatever the axes
        return tensor
    if axis.ndim != 1:
        raise _invalid(ctx, f"'dims' must be 1-dimension, not {axis.ndim}")
    try:
        axes = _reverse_axes(axis.tolist(), tensor.ndim)
    except ValueError as e:
        raise _invalid(ctx, str(e)) from None
    return ctx.xp.flip(tensor, axes) if axes else tensor


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    """`tensor` with the order of its elements reversed along each of `axis`."""
    return ReverseV2(tensor, axis, name=name)

# -- BroadcastTo -------------------------------------------------------------------------------------

BroadcastTo = Op("BroadcastTo", inputs=["input: T", "shape: Tidx"], outputs=["output: T"],
                 attrs=["T: type", "Tidx: {int32, int64} = DT_INT32"])


@BroadcastTo.shape
def _broadcast_to_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape, target = ctx.input_shape(0), _shape_from_tensor(ctx, 1)
    if target.ndims is None or input_shape.ndims is None:
        return [target]
    if input_shape.ndims > target.ndims:
        raise ValueError(f"Shape must be at most rank {target.ndims} but is rank {input_shape.ndims}")
    dims = target.as_list()
    offset = target.ndims - input_shape.ndims
    for i, in_dim in enumerate(input_shape.as_list()):
        out_dim = dims[offset + i]
        if out_dim is None:
            dims[offset + i] = in_dim if in_dim not in (None, 1) else None
        elif in_dim not in (None, 1, out_dim):
            raise ValueError(f"Dimensions must be equal, but are {in_dim} and {out_dim}")
    return [tensor_shape.TensorShape(dims)]


@BroadcastTo.kernel("CPU")
def _broadcast_to(ctx: OpKernelContext, input: Any, shape: Any) -> Any:  # noqa: A002
    target = tuple(shape.tolist())
    if input.ndim > len(target):
        raise _invalid(ctx, f"Rank of input ({input.ndim}) must be no greater than rank of output shape "
                       f"({len(target)}).")
    try:
        broadcast = np.broadcast_shapes(input.shape, target)
    except ValueError:
        raise _invalid(ctx, f"Incompatible shapes: {tensor_util.shape_string(input.shape)} vs. "
                       f"{tensor_util.shape_string(target)}") from None
    if broadcast != target:
        raise _invalid(ctx, f"Unable to broadcast tensor of shape {tensor_util.shape_string(input.shape)} to "
                       f"tensor of shape {tensor_util.shape_string(target)}")
    return ctx.xp.broadcast_to(input, target)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """`input` repeated along its size-1 (and new leading) dimensions to `shape`."""
    return BroadcastTo(input, shape, name=name)

# -- GatherNd ----------------------------------------------------------------------------------------

GatherNd = Op("GatherNd", inputs=["params: Tparams", "indices: Tindices"], outputs=["output: Tparams"],
              attrs=["Tparams: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"])


@GatherNd.shape
def _gather_nd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    params, indices = ctx.input_shape(0), _with_rank_at_least(ctx.input_shape(1), 1)
    if indices.ndims is None or indices.dims[-1].value is None:
        return [tensor_shape.unknown_shape()]
    depth = indices.dims[-1].value
    if params.ndims is None:
        return [tensor_shape.unknown_shape()]
    if depth > params.ndims:
        raise ValueError(f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
                         f"{tensor_util.shape_string(indices.as_list())} and params shape: "
                         f"{tensor_util.shape_string(params.as_list())}")
    return [indices[:-1].concatenate(params[depth:])]


_GATHER_ND_POLICIES = (b"", b"DEFAULT", b"ERROR", b"IGNORE")


@GatherNd.kernel("CPU")
def _gather_nd(ctx: OpKernelContext, params: Any, indices: Any, bad_indices_policy: bytes) -> Any:
    """Slices of `params` at the rows of `indices`; an out-of-range row fails, or with the IGNORE policy
    gathers zeros."""
    if bad_indices_policy not in _GATHER_ND_POLICIES:
        raise _no_kernel(ctx)
    if indices.ndim < 1:
        raise _invalid(ctx, "indices must be at least a vector")
    depth = indices.shape[-1]
    if depth > params.ndim:
        raise _invalid(ctx, f"index innermost dimension length must be <= params rank; saw: {depth} vs. "
                       f"{params.ndim}")
    rows = indices.reshape(-1, depth)
    out_of_range = ((rows < 0) | (rows >= np.asarray(params.shape[:depth]))).any(axis=1)
    bad = np.flatnonzero(out_of_range)
    if bad.size and bad_indices_policy != b"IGNORE":
        position = ",".join(map(str, np.unravel_index(bad[0], indices.shape[:-1])))
        raise _invalid(ctx, f"indices[{position}] = [{', '.join(map(str, rows[bad[0]].tolist()))}] does not index "
                       f"into param shape {tensor_util.shape_string(params.shape)}, node name: {ctx.name}")
    if bad.size:
        rows = np.where(out_of_range[:, None], 0, rows)
    gathered = params[tuple(rows.T)] if depth else ctx.xp.broadcast_to(params, (rows.shape[0],) + params.shape)
    if bad.size:
        gathered = gathered.copy()
        gathered[bad] = b"" if params.dtype == object else 0
    return gathered.reshape(indices.shape[:-1] + params.shape[depth:])


def gather_nd(params: Any, indices: Any, name: str | None = None, batch_dims: int = 0,
              bad_indices_policy: str = "") -> Tensor:
    """The slices of `params` addressed by the innermost dimension of `indices` (zeros for out-of-range rows
    with `bad_indices_policy="IGNORE"`)."""
    if batch_dims != 0:
        raise NotImplementedError("tf.gather_nd with batch_dims != 0 is not built yet; only batch_dims=0 is")
    return GatherNd(params, indices, bad_indices_policy=bad_indices_policy, name=name)
