"""Clipping: the ClipByValue op, `tf.clip_by_value` and `tf.clip_by_norm` (composed as TF's), and
`tf.saturate_cast` (a ClipByValue named "clamp" before the Cast, so nothing wraps around). The global-norm
clipping (`tf.clip_by_global_norm`) is in `nn_ops`.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.ops import fill_ops, manipulation_ops, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import greater, less, logical_or, maximum, minimum, real, sqrt, where
from tensorweave.ops.kernel_helpers import C64, C128, F16, F32, F64, INTEGERS_LISTED
from tensorweave.ops.reduction_ops import reduce_sum
from tensorweave.ops.shape_helpers import unary_shape
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

# -- clip_by_value, clip_by_norm, ClipByValue, saturate_cast -----------------------------------------


@tf_export("clip_by_value")
def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Any:
    """`t` clipped to [min, max], composed as TF does (Minimum, then Maximum named after the scope); the
    bounds may broadcast but must not grow `t`'s shape; IndexedSlices are clipped by their values."""
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t")
        t_min = minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(t_max, t.indices, t.dense_shape)
        return t_max


@tf_export("clip_by_norm")
def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """`t` scaled down to an L2 norm (over `axes`, all by default) of at most `clip_norm` (negative bounds
    count as 0), composed as TF does; IndexedSlices are clipped by their values."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t")
        if np.isscalar(clip_norm):
            clip_norm = builtins.max(clip_norm, 0)
        else:
            clip_norm = cast(maximum(clip_norm, 0), dtype=values.dtype)
        l2sum = reduce_sum(values * values, axes, keepdims=True)
        positive = l2sum > 0
        l2sum_safe = where(positive, l2sum, fill_ops.ones_like(l2sum))  # no NaN gradient through sqrt(0)
        l2norm = where(positive, sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = manipulation_ops.identity(intermediate / maximum(l2norm, clip_norm), name=scope)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(clipped, t.indices, t.dense_shape)
        return clipped


ClipByValue = Op("ClipByValue", inputs=["t: T", "clip_value_min: T", "clip_value_max: T"], outputs=["output: T"],
                 attrs=["T: numbertype"])
ClipByValue.shape(unary_shape)


@ClipByValue.kernel("CPU", type_constraints={"T": (C128, C64, dtypes.uint16, dtypes.uint8)
                                                        + INTEGERS_LISTED[:4] + (dtypes.bfloat16, F64, F32, F16)})
def _clip(ctx: OpKernelContext, t: Any, clip_value_min: Any, clip_value_max: Any) -> Any:
    """min(t, max) then max(·, min), where a NaN bound leaves `t` alone and a NaN `t` stays NaN (as Eigen's
    cwiseMin/cwiseMax); the bounds are scalars or `t`'s exact shape, never broadcast."""
    shape = np.shape(t)
    if any(np.ndim(b) and np.shape(b) != shape for b in (clip_value_min, clip_value_max)):
        raise errors.InvalidArgumentError(
            ctx.node_def, None, "clip_value_min and clip_value_max must be either of the same shape as input, "
            f"or a scalar. input shape: {tensor_shape.shape_string(shape)}clip_value_min shape: "
            f"{tensor_shape.shape_string(np.shape(clip_value_min))}clip_value_max shape: "
            f"{tensor_shape.shape_string(np.shape(clip_value_max))}")
    xp = ctx.xp
    upper = xp.where(clip_value_max < t, clip_value_max, t)
    return xp.where(upper < clip_value_min, clip_value_min, upper)


@ClipByValue.gradient
def _clip_by_value_grad(op: Any, grad: Tensor) -> list:
    """The gradient goes to `t` where it was inside the bounds, else to the bound that clipped it (summed
    when the bound is a scalar)."""
    x, lo, hi = op.inputs
    zeros = fill_ops.zeros_like(grad)
    below, above = less(x, lo), greater(x, hi)
    _, lo_shape = shape_ops.broadcast_gradient_args(x, lo, grad)
    _, hi_shape = shape_ops.broadcast_gradient_args(x, hi, grad)
    return [where(logical_or(below, above), zeros, grad), shape_ops.unbroadcast(where(below, grad, zeros), lo_shape),
            shape_ops.unbroadcast(where(above, grad, zeros), hi_shape)]


def _saturation_limits(in_dtype: dtypes.DType, out_dtype: dtypes.DType) -> tuple[Any, Any]:
    """The overlap of both ranges in `in_dtype`, stepped one ulp toward 0 where rounding into `in_dtype`
    pushed a bound outside `out_dtype`'s range; compared in the two types' NumPy promotion, as TF does (so
    float32 -> int64 keeps 2**63 and overflows, as TF's)."""
    np_type = in_dtype.as_numpy_dtype
    try:
        promoted = np.promote_types(np_type, out_dtype.as_numpy_dtype)
    except TypeError:
        promoted = np.dtype(float)
    with np.errstate(over="ignore", invalid="ignore"):
        lo = np.asarray(builtins.max(in_dtype.min, out_dtype.min)).astype(np_type)[()]
        hi = np.asarray(builtins.min(float(in_dtype.max), float(out_dtype.max))).astype(np_type)[()]
        lo_pair, hi_pair = (np.array(pair, dtype=promoted) for pair in ((lo, out_dtype.min), (hi, out_dtype.max)))
    if lo_pair[0] < lo_pair[1]:
        lo = np.nextafter(lo, np_type(0), dtype=np_type)
    if hi_pair[0] > hi_pair[1]:
        hi = np.nextafter(hi, np_type(0), dtype=np_type)
    return lo, hi


@tf_export("dtypes.saturate_cast", "saturate_cast")
def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """`value` clamped to `dtype`'s range (ClipByValue "clamp") before the Cast, so nothing wraps around."""
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        in_dtype = value.dtype.base_dtype
        if in_dtype.is_complex and dtype.is_complex:
            real_in, real_out = in_dtype.real_dtype, dtype.real_dtype
            if real_in.min < real_out.min or real_in.max > real_out.max:
                value = ClipByValue(value, convert_to_tensor(builtins.complex(real_out.min, real_out.min), dtype=in_dtype),
                                    convert_to_tensor(builtins.complex(real_out.max, real_out.max), dtype=in_dtype),
                                    name="clamp")
            return cast(value, dtype, name=scope)
        if in_dtype.is_complex:
            value = real(value)
            tf_logging.warning("Casting complex to real discards imaginary part.")
            in_dtype = in_dtype.real_dtype
        lo, hi = _saturation_limits(in_dtype, dtype.real_dtype)
        value = ClipByValue(value, convert_to_tensor(lo, dtype=in_dtype), convert_to_tensor(hi, dtype=in_dtype),
                            name="clamp")
        return cast(value, dtype, name=scope)
