"""Constants and placeholders: Const (`tf.constant`), Placeholder and PlaceholderWithDefault.

Importing this module registers the conversion of Python values, numpy arrays, TensorShapes and Dimensions to
Const tensors; lists holding tensors are packed by `manipulation_ops`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import context, dtypes, op_callbacks, tensor_shape, tensor_util
from tensorweave.framework.eager import EagerTensor
from tensorweave.framework.graph import (
    Tensor,
    get_default_graph,
    register_tensor_conversion_function,
    register_tensor_conversion_function_internal,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op, create_op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.platform.tf_export import tf_export

# -- Const -------------------------------------------------------------------------------------------

Const = Op("Const", outputs=["output: dtype"], attrs=["value: tensor", "dtype: type"])


@Const.shape
def _const_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.attr("value").shape]


@Const.kernel("CPU", constant=True)
def _const(ctx: OpKernelContext, value: np.ndarray) -> Any:
    return ctx.xp.asarray(value)


@tf_export("constant")
def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> Tensor:
    """TF1's `tf.constant`: a scalar broadcasts to `shape`; a short list is padded with its last value."""
    eager = context.executing_eagerly()
    key = _scalar_key(value, dtype) if eager and shape is None else None
    array = _eager_scalars.get(key) if key is not None else None
    if array is None:
        try:
            array = tensor_util.make_ndarray_value(value, dtype=dtype, shape=shape, verify_shape=verify_shape)
        except TypeError:
            if dtype is None or not eager:
                raise
            raise TypeError(f"Cannot convert {value} to EagerTensor of dtype {dtypes.as_dtype(dtype).name}") from None
        array.setflags(write=False)  # kernels and assigns must never write into a graph constant
        if key is not None and len(_eager_scalars) < _EAGER_SCALARS:
            _eager_scalars[key] = array
    if eager:  # a value, not a node, as TF's eager constant
        return EagerTensor(array, dtypes.as_dtype(array.dtype))
    # No name scope of its own, as in TF: the node takes `name` directly (and TF's node-name errors).
    op = create_op(get_default_graph(), "Const", [], name=name,
                   attrs={"value": array, "dtype": dtypes.as_dtype(array.dtype)})
    listed = array.size if shape is None else np.size(value)
    if listed < array.size:  # TF's TensorProto keeps the values as given, a splat of the shape
        op._node_def.splats["value"] = listed
    if op_callbacks.should_invoke_op_callbacks():
        replaced = op_callbacks.invoke_op_callbacks("Const", (), op._node_def.attr, op.outputs, op_name=op.name,
                                                    graph=op.graph)
        if replaced is not None:
            return replaced[0]
    return op.outputs[0]


_EAGER_SCALARS = 1024  # distinct scalars kept: a loop over many values must not grow the cache forever
_eager_scalars: dict[tuple, np.ndarray] = {}  # (type, value, dtype) -> its read-only array


def _scalar_key(value: Any, dtype: Any) -> tuple | None:
    """The cache key of a Python scalar converted eagerly (`x * 2.0` in a py_function converts the same 2.0
    each call), or None for any other value."""
    kind = type(value)
    if kind is float:
        value = value.hex()  # -0.0 is not 0.0
    elif kind is not int and kind is not bool:
        return None
    try:
        hash(dtype)
    except TypeError:
        return None
    return kind, value, dtype


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
    shape_part = f" and shape {tensor_shape.shape_string(shape)}" if shape else ""  # not for a scalar, as TF
    raise errors.InvalidArgumentError(
        ctx.node_def, None, f"You must feed a value for placeholder tensor '{ctx.name}' with dtype "
        f"{dtypes.type_string(dtype)}{shape_part}")


@tf_export("placeholder")
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
    tensor_shape.merge_shapes(ctx.input_shape(0), declared)  # only checks: the output keeps the declared shape
    return [declared]


@PlaceholderWithDefault.kernel("CPU")
def _placeholder_with_default(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002 - TF's arg name
    return input


@PlaceholderWithDefault.gradient
def _placeholder_with_default_grad(op: Any, grad: Tensor) -> list:
    return [grad]


@tf_export("placeholder_with_default")
def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The value of `input` unless this tensor is fed (a Python `input` becomes `<name>/input`, as in TF)."""
    shape = tensor_shape.as_shape(shape)
    return PlaceholderWithDefault(input, shape=None if shape.ndims is None else shape.as_list(), name=name)
