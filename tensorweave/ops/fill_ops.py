"""Filled tensors: Fill, `tf.zeros` and `tf.ones` (a Const when small, else a Fill of the shape, as TF's),
ZerosLike and OnesLike, `tf.zeros_like` and `tf.ones_like`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_ops import reshape, shape_internal
from tensorweave.platform.tf_export import tf_export

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
        raise invalid_argument(ctx, f"dims must represent a vector, got shape {tensor_shape.shape_string(dims.shape)}")
    if value.ndim != 0 and value.shape != (1,):
        raise invalid_argument(ctx, f"value must represent a scalar, got shape {tensor_shape.shape_string(value.shape)}")
    dims = dims.reshape(-1)
    if (dims < 0).any():
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Dimension {int(dims[dims < 0][0])} must be >= 0")
    return ctx.xp.full(tuple(int(d) for d in dims), value.reshape(()), dtype=value.dtype)


@Fill.gradient
def _fill_grad(op: Any, grad: Tensor) -> list:
    """Every element is the value: its gradient is the sum of them all."""
    return [None, raw_ops.Sum(input=grad, reduction_indices=raw_ops.Range(
        start=0, limit=raw_ops.Rank(input=grad), delta=1))]


@tf_export("fill")
def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """A tensor of shape `dims` filled with the scalar `value`."""
    result = Fill(dims, value, name=name)
    tensor_util.maybe_set_static_shape(result, dims)
    return result


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


@tf_export("zeros")
def zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of zeros."""
    return _filled(shape, dtype, False if dtypes.as_dtype(dtype) == dtypes.bool else
                   (b"" if dtypes.as_dtype(dtype) == dtypes.string else 0), name, "zeros")


@tf_export("ones")
def ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Tensor:
    """A tensor of ones."""
    return _filled(shape, dtype, True if dtypes.as_dtype(dtype) == dtypes.bool else 1, name, "ones")


ZerosLike = Op("ZerosLike", inputs=["x: T"], outputs=["y: T"], attrs=["T: type"])
NotDifferentiable("ZerosLike")


@ZerosLike.shape
def _zeros_like_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@ZerosLike.kernel("CPU")
def _zeros_like(ctx: OpKernelContext, x: Any) -> Any:
    """Zeros of `x`'s type; empty strings for a string tensor (NumPy's would be int 0 objects); a variant
    value (a TensorList) makes its own."""
    if not hasattr(x, "dtype"):
        return x.zeros_like(ctx.xp)
    if x.dtype.kind == "O":
        return np.full(x.shape, b"", dtype=object)
    return ctx.xp.zeros_like(x)


OnesLike = Op("OnesLike", inputs=["x: T"], outputs=["y: T"],
              attrs=["T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
                     "complex64, complex128, bool}"])
NotDifferentiable("OnesLike")


@OnesLike.shape
def _ones_like_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


@OnesLike.kernel("CPU")
def _ones_like(ctx: OpKernelContext, x: Any) -> Any:
    return ctx.xp.ones_like(x)


@tf_export("zeros_like")
@add_dispatch_support
def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Tensor:
    """Zeros with the shape (and by default the dtype) of `tensor`: `zeros` of the static shape when it is
    fully known (but for a variant), `zeros` of the runtime shape for another dtype, else a ZerosLike op
    (TF's choices)."""
    with name_scope(name, "zeros_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        base = tensor.dtype.base_dtype
        if optimize and tensor.shape.is_fully_defined() and base != dtypes.variant:
            return zeros(tensor.shape.as_list(), dtype=dtype or base, name=scope)
        if dtype is not None and dtypes.as_dtype(dtype).base_dtype != base:
            return zeros(shape_internal(tensor, optimize=optimize), dtype=dtype, name=scope)
        return ZerosLike(tensor, name=scope)


@tf_export("ones_like")
@add_dispatch_support
def ones_like(tensor: Any, dtype: Any = None, name: str | None = None, optimize: bool = True) -> Tensor:
    """Ones with the shape (and by default the dtype) of `tensor`: always a Fill of its shape, as TF's
    (never the OnesLike op, which stays for imported graphs)."""
    with name_scope(name, "ones_like", [tensor]) as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        result = ones(shape_internal(tensor, optimize=optimize), dtype=dtype or tensor.dtype.base_dtype, name=scope)
        result.set_shape(tensor.shape)
        return result
