"""Array ops: constants, placeholders, identity, shapes and fills.

Each op is one block: its definition, shape function, kernel, and TF1's public wrapper. Importing this
module registers the conversion of Python values and numpy arrays to Const tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
    convert_to_tensor,
    name_scope,
    register_tensor_conversion_function,
)
from tensorweave.framework.op_registry import Op

# -- Const -------------------------------------------------------------------------------------------

Const = Op("Const", outputs=["output: dtype"], attrs=["value: tensor", "dtype: type"])


@Const.shape
def _const_shape(op: Any) -> list:
    return [op.node_def.attr["value"].shape]


@Const.kernel("CPU", "GPU", constant=True)
def _const(ctx: Any, value: np.ndarray) -> Any:
    return ctx.xp.asarray(value)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Tensor:
    """TF1's `tf.constant`: a scalar broadcasts to `shape`; a short list is padded with its last value."""
    array = tensor_util.make_ndarray_value(value, dtype=dtype, shape=shape, verify_shape=verify_shape)
    array.setflags(write=False)  # kernels and assigns must never write into a graph constant
    return Const(value=array, dtype=dtypes.as_dtype(array.dtype), name=name)


def _constant_conversion(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Tensor:
    return constant(value, dtype=dtype, name=name or "Const")


def _shape_conversion(value: Any, dtype: Any = None, name: str | None = None, as_ref: bool = False) -> Tensor:
    """A fully defined TensorShape converts to an int32 (or int64) vector, as in TF."""
    if not value.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {value} to a Tensor.")
    if dtype is not None and dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"Cannot convert a TensorShape to dtype: {dtype}")
    return constant(value.as_list(), dtype=dtype or dtypes.int32, name=name or "Const")


register_tensor_conversion_function(
    (list, tuple, int, float, complex, bool, str, bytes, np.ndarray, np.generic), _constant_conversion, 100)
register_tensor_conversion_function(tensor_shape.TensorShape, _shape_conversion, 100)

# -- Placeholder -------------------------------------------------------------------------------------

Placeholder = Op("Placeholder", outputs=["output: dtype"],
                 attrs=["dtype: type", "shape: shape = { unknown_rank: true }"])


@Placeholder.shape
def _placeholder_shape(op: Any) -> list:
    return [tensor_shape.as_shape(op.node_def.attr["shape"]) if op.node_def.attr["shape"] is not None
            else tensor_shape.unknown_shape()]


@Placeholder.kernel("CPU", "GPU")
def _placeholder(ctx: Any, dtype: dtypes.DType, shape: Any) -> Any:
    shape_part = f" and shape {tensor_util.shape_string(shape)}" if shape is not None else ""
    raise errors.InvalidArgumentError(
        ctx.node_def, None, f"You must feed a value for placeholder tensor '{ctx.name}' with dtype "
        f"{tensor_util.type_string(dtype)}{shape_part}")


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """A tensor that must be fed; `shape` may be partial (None dims) or None for any shape."""
    shape = None if shape is None else tensor_shape.as_shape(shape)
    shape_attr = None if shape is None or shape.ndims is None else shape.as_list()
    return Placeholder(dtype=dtype, shape=shape_attr, name=name)


PlaceholderWithDefault = Op("PlaceholderWithDefault", inputs=["input: dtype"], outputs=["output: dtype"],
                            attrs=["dtype: type", "shape: shape"])


@PlaceholderWithDefault.shape
def _placeholder_with_default_shape(op: Any) -> list:
    shape = op.node_def.attr["shape"]
    declared = tensor_shape.unknown_shape() if shape is None else tensor_shape.as_shape(shape)
    if not op.inputs[0].shape.is_compatible_with(declared):
        raise ValueError(f"Shapes {op.inputs[0].shape} and {declared} are incompatible")
    return [declared]


@PlaceholderWithDefault.kernel("CPU", "GPU")
def _placeholder_with_default(ctx: Any, input: Any) -> Any:  # noqa: A002 - TF's arg name
    return input


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The value of `input` unless this tensor is fed."""
    value = convert_to_tensor(input)
    shape = tensor_shape.as_shape(shape)
    return PlaceholderWithDefault(value, dtype=value.dtype, shape=None if shape.ndims is None else shape.as_list(),
                                  name=name)

# -- Identity ----------------------------------------------------------------------------------------

Identity = Op("Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"])


@Identity.shape
def _identity_shape(op: Any) -> list:
    return [op.inputs[0].shape]


@Identity.kernel("CPU", "GPU")
def _identity(ctx: Any, input: Any) -> Any:  # noqa: A002
    return input


def identity(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The same value as `input`, as a new tensor (reads a variable's current value)."""
    if hasattr(input, "_as_graph_element") and not isinstance(input, Tensor):
        input = input._as_graph_element()
    return Identity(input, name=name)

# -- Reshape -----------------------------------------------------------------------------------------

Reshape = Op("Reshape", inputs=["tensor: T", "shape: Tshape"], outputs=["output: T"],
             attrs=["T: type", "Tshape: {int32, int64} = DT_INT32"])


@Reshape.shape
def _reshape_shape(op: Any) -> list:
    target = tensor_util.constant_value_as_shape(op.inputs[1])
    source = op.inputs[0].shape
    if target.ndims is None:
        return [target]
    dims = target.as_list()
    unknown = [i for i, d in enumerate(dims) if d is None]
    if source.is_fully_defined():
        size = source.num_elements()
        if len(unknown) == 1 and op.inputs[1].op.type == "Const":
            known = int(np.prod([d for d in dims if d is not None], dtype=np.int64))
            if known == 0 or size % known:
                raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                                 f"{tensor_util.shape_string([-1 if d is None else d for d in dims])}")
            dims[unknown[0]] = size // known
        elif not unknown and int(np.prod(dims, dtype=np.int64)) != size:
            raise ValueError(f"Cannot reshape a tensor with {size} elements to shape "
                             f"{tensor_util.shape_string(dims)} ({int(np.prod(dims, dtype=np.int64))} elements)")
    return [tensor_shape.TensorShape(dims)]


@Reshape.kernel("CPU", "GPU")
def _reshape(ctx: Any, tensor: Any, shape: Any) -> Any:
    dims = [int(d) for d in shape.reshape(-1)]
    size = tensor.size
    if dims.count(-1) > 1:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Only one input size may be -1, not both "
                                          f"{dims.index(-1)} and {dims.index(-1, dims.index(-1) + 1)}")
    known = int(np.prod([d for d in dims if d != -1], dtype=np.int64))
    if (-1 in dims and (known == 0 or size % known)) or (-1 not in dims and known != size):
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Input to reshape is a tensor with {size} values, but the requested shape "
            f"{'requires a multiple of' if -1 in dims else 'has'} {known}")
    return ctx.xp.reshape(tensor, dims)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """`tensor` with a new shape of the same number of elements; one dim may be -1."""
    return Reshape(tensor, shape, name=name)

# -- Shape, Size, Rank -------------------------------------------------------------------------------

Shape = Op("Shape", inputs=["input: T"], outputs=["output: out_type"],
           attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])


@Shape.shape
def _shape_shape(op: Any) -> list:
    return [tensor_shape.TensorShape([op.inputs[0].shape.ndims])]


@Shape.kernel("CPU", "GPU")
def _shape(ctx: Any, input: Any, out_type: dtypes.DType) -> Any:  # noqa: A002
    return np.array(input.shape, dtype=out_type.as_numpy_dtype)


def shape(input: Any, name: str | None = None, out_type: Any = dtypes.int32) -> Tensor:  # noqa: A002
    """The shape of `input` as a 1-D tensor."""
    return Shape(input, out_type=out_type, name=name)


Size = Op("Size", inputs=["input: T"], outputs=["output: out_type"],
          attrs=["T: type", "out_type: {int32, int64} = DT_INT32"])


@Size.shape
def _size_shape(op: Any) -> list:
    return [tensor_shape.TensorShape([])]


@Size.kernel("CPU", "GPU")
def _size(ctx: Any, input: Any, out_type: dtypes.DType) -> Any:  # noqa: A002
    return np.array(input.size, dtype=out_type.as_numpy_dtype)


def size(input: Any, name: str | None = None, out_type: Any = dtypes.int32) -> Tensor:  # noqa: A002
    """The number of elements of `input`."""
    return Size(input, out_type=out_type, name=name)


Rank = Op("Rank", inputs=["input: T"], outputs=["output: int32"], attrs=["T: type"])


@Rank.shape
def _rank_shape(op: Any) -> list:
    return [tensor_shape.TensorShape([])]


@Rank.kernel("CPU", "GPU")
def _rank(ctx: Any, input: Any) -> Any:  # noqa: A002
    return np.array(input.ndim, dtype=np.int32)


def rank(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The number of dimensions of `input`."""
    return Rank(input, name=name)

# -- Fill, zeros, ones -------------------------------------------------------------------------------

Fill = Op("Fill", inputs=["dims: index_type", "value: T"], outputs=["output: T"],
          attrs=["T: type", "index_type: {int32, int64} = DT_INT32"])


@Fill.shape
def _fill_shape(op: Any) -> list:
    if op.inputs[1].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op.inputs[1].shape.ndims}")
    return [tensor_util.constant_value_as_shape(op.inputs[0])]


@Fill.kernel("CPU", "GPU")
def _fill(ctx: Any, dims: Any, value: Any) -> Any:
    if dims.ndim != 1:
        raise errors.InvalidArgumentError(ctx.node_def, None,
                                          f"dims must be a vector, got shape {tensor_util.shape_string(dims.shape)}")
    if value.ndim != 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"value must be a scalar, got shape "
                                          f"{tensor_util.shape_string(value.shape)}")
    if (dims < 0).any():
        raise errors.InvalidArgumentError(ctx.node_def, None, f"dims must be non-negative, got {dims.tolist()}")
    return ctx.xp.full(tuple(int(d) for d in dims), value, dtype=value.dtype)


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape `dims` filled with the scalar `value`."""
    return Fill(dims, value, name=name)


def _filled(shape: Any, dtype: Any, value: Any, name: str | None, default_name: str) -> Tensor:
    """TF's zeros/ones: a Const when small (< 1000 elements) and static, else a Fill."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, default_name, [shape]) as scope:
        if not isinstance(shape, Tensor):
            try:
                static = tensor_shape.as_shape(shape)
            except (TypeError, ValueError):
                static = None
            if static is not None and static.is_fully_defined() and static.num_elements() < 1000:
                return constant(value, dtype=dtype, shape=static.as_list(), name=scope)
            if static is not None and static.is_fully_defined():
                shape = constant(static.as_list(), dtype=dtypes.int32, name="shape_as_tensor")
        shape = convert_to_tensor(shape, dtype=dtypes.int32 if not isinstance(shape, Tensor) else None)
        if shape.shape.ndims == 0:
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of zeros."""
    return _filled(shape, dtype, False if dtypes.as_dtype(dtype) == dtypes.bool else
                   (b"" if dtypes.as_dtype(dtype) == dtypes.string else 0), name, "zeros")


def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ones."""
    return _filled(shape, dtype, True if dtypes.as_dtype(dtype) == dtypes.bool else 1, name, "ones")


ZerosLike = Op("ZerosLike", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"])


@ZerosLike.shape
def _zeros_like_shape(op: Any) -> list:
    return [op.inputs[0].shape]


@ZerosLike.kernel("CPU", "GPU")
def _zeros_like(ctx: Any, x: Any) -> Any:
    return ctx.xp.zeros_like(x)


OnesLike = Op("OnesLike", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"])


@OnesLike.shape
def _ones_like_shape(op: Any) -> list:
    return [op.inputs[0].shape]


@OnesLike.kernel("CPU", "GPU")
def _ones_like(ctx: Any, x: Any) -> Any:
    return ctx.xp.ones_like(x)


def _like(op: Op, fill_fn: Any, tensor: Any, dtype: Any, name: str | None, optimize: bool, default: str) -> Tensor:
    with name_scope(name, default, [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        if dtype is not None and dtypes.as_dtype(dtype) != tensor.dtype.base_dtype:
            return fill_fn(shape(tensor), dtype=dtype, name=scope)
        if optimize and tensor.shape.is_fully_defined():
            return fill_fn(tensor.shape.as_list(), dtype=tensor.dtype.base_dtype, name=scope)
        return op(tensor, name=scope)


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Tensor:
    """Zeros with the shape (and by default the dtype) of `tensor`."""
    return _like(ZerosLike, zeros, tensor, dtype, name, optimize, "zeros_like")


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Tensor:
    """Ones with the shape (and by default the dtype) of `tensor`."""
    return _like(OnesLike, ones, tensor, dtype, name, optimize, "ones_like")
