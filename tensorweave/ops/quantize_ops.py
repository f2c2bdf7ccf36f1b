"""Quantization: the FakeQuantWithMinMax{Args,Vars,VarsPerChannel} ops of quantization-aware training and
their gradient ops, QuantizeV2 and Dequantize (`tf.quantize`, `tf.dequantize`) between floats and the
quantized integer types, and QuantizeAndDequantizeV2/V3/V4 with V4's gradient op
(`tf.quantization.quantize_and_dequantize(_v2)`), which simulate a quantization in floats.

Fake quantization nudges [min, max] so that zero is exactly representable, clamps, rounds to the
2^num_bits (or one fewer with `narrow_range`) levels between, and returns floats; its gradient passes
through inside the nudged range and, for the Vars forms, goes to min (below) and max (above).
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
from tensorweave.ops.shape_helpers import merge_dim, unary_shape, with_rank, with_rank_at_least
from tensorweave.platform.tf_export import tf_export

_QUANT_ATTRS = ["num_bits: int = 8", "narrow_range: bool = false"]
_ARGS_ATTRS = ["min: float = -6", "max: float = 6", *_QUANT_ATTRS]

FakeQuantWithMinMaxArgs = Op("FakeQuantWithMinMaxArgs", inputs=["inputs: float"], outputs=["outputs: float"],
                             attrs=_ARGS_ATTRS)
FakeQuantWithMinMaxArgsGradient = Op("FakeQuantWithMinMaxArgsGradient", inputs=["gradients: float", "inputs: float"],
                                     outputs=["backprops: float"], attrs=_ARGS_ATTRS)
FakeQuantWithMinMaxVars = Op("FakeQuantWithMinMaxVars", inputs=["inputs: float", "min: float", "max: float"],
                             outputs=["outputs: float"], attrs=_QUANT_ATTRS)
FakeQuantWithMinMaxVarsGradient = Op(
    "FakeQuantWithMinMaxVarsGradient", inputs=["gradients: float", "inputs: float", "min: float", "max: float"],
    outputs=["backprops_wrt_input: float", "backprop_wrt_min: float", "backprop_wrt_max: float"], attrs=_QUANT_ATTRS)
FakeQuantWithMinMaxVarsPerChannel = Op("FakeQuantWithMinMaxVarsPerChannel",
                                       inputs=["inputs: float", "min: float", "max: float"],
                                       outputs=["outputs: float"], attrs=_QUANT_ATTRS)
FakeQuantWithMinMaxVarsPerChannelGradient = Op(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    inputs=["gradients: float", "inputs: float", "min: float", "max: float"],
    outputs=["backprops_wrt_input: float", "backprop_wrt_min: float", "backprop_wrt_max: float"], attrs=_QUANT_ATTRS)


def _nudge(low: Any, high: Any, num_bits: int, narrow_range: bool) -> tuple[Any, Any, Any]:
    """TF's Nudge, in float32 as its kernels: the range moved so that zero falls on a quantization level."""
    quant_min = np.float32(1 if narrow_range else 0)
    quant_max = np.float32((1 << num_bits) - 1)
    low, high = np.float32(low), np.float32(high)
    scale = (high - low) / (quant_max - quant_min)
    zero_point_from_min = quant_min - low / scale
    zero_point = np.clip(np.round(zero_point_from_min), quant_min, quant_max).astype(np.float32)
    return (quant_min - zero_point) * scale, (quant_max - zero_point) * scale, scale


def _fake_quant(x: Any, low: Any, high: Any, num_bits: int, narrow_range: bool) -> Any:
    nudged_min, nudged_max, scale = _nudge(low, high, num_bits, narrow_range)
    clamped = np.clip(x, nudged_min, nudged_max)
    return (np.floor((clamped - nudged_min) / scale + np.float32(0.5)) * scale + nudged_min).astype(np.float32)


def _fake_quant_grads(grad: Any, x: Any, low: Any, high: Any, num_bits: int, narrow_range: bool) -> tuple:
    nudged_min, nudged_max, _ = _nudge(low, high, num_bits, narrow_range)
    below, above = x < nudged_min, x > nudged_max
    return np.where(below | above, np.float32(0), grad), np.where(below, grad, 0), np.where(above, grad, 0)


def _check_bits(ctx: OpKernelContext, num_bits: int, low: Any = None, high: Any = None) -> None:
    if not 2 <= num_bits <= 16:
        raise invalid_argument(ctx, f"num_bits is out of range, expected between 2 and 16, was: {num_bits}")
    if low is not None and np.any(low > high):
        raise invalid_argument(ctx, f"min has to be smaller or equal than max, was: min={low} max={high}")


def _check_args(min: float, max: float, num_bits: int) -> None:  # noqa: A002
    """TF's construction-time checks of the Args forms' attrs (raised as ValueError by shape inference)."""
    if not 2 <= num_bits <= 16:
        raise ValueError(f"num_bits is out of range, expected between 2 and 16, was: {num_bits}")
    if min >= max:
        raise ValueError(f"min has to be smaller than max, was: min={min}, max={max}")


@FakeQuantWithMinMaxArgs.shape
def _fake_quant_args_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_args(ctx.attr("min"), ctx.attr("max"), ctx.attr("num_bits"))
    return unary_shape(ctx)


@FakeQuantWithMinMaxArgsGradient.shape
def _fake_quant_args_gradient_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_args(ctx.attr("min"), ctx.attr("max"), ctx.attr("num_bits"))
    return [ctx.input_shape(0).merge_with(ctx.input_shape(1))]


@FakeQuantWithMinMaxVars.shape
def _fake_quant_vars_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    with_rank(ctx.input_shape(2), 0)
    return unary_shape(ctx)


@FakeQuantWithMinMaxVarsGradient.shape
def _fake_quant_vars_gradient_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(2), 0)
    with_rank(ctx.input_shape(3), 0)
    return [ctx.input_shape(0).merge_with(ctx.input_shape(1)), tensor_shape.scalar(), tensor_shape.scalar()]


def _channels(ctx: InferenceContext, first: int) -> tensor_shape.TensorShape:
    inputs = with_rank_at_least(ctx.input_shape(first), 1)
    channels = with_rank(ctx.input_shape(first + 1), 1).merge_with(with_rank(ctx.input_shape(first + 2), 1))
    if inputs.ndims is not None:
        channels = channels.merge_with(inputs[-1:])
    return channels


@FakeQuantWithMinMaxVarsPerChannel.shape
def _fake_quant_per_channel_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _channels(ctx, 0)
    return unary_shape(ctx)


@FakeQuantWithMinMaxVarsPerChannelGradient.shape
def _fake_quant_per_channel_gradient_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    channels = _channels(ctx, 1)
    return [ctx.input_shape(0).merge_with(ctx.input_shape(1)), channels, channels]


@FakeQuantWithMinMaxArgs.kernel("CPU")
def _fake_quant_args(ctx: OpKernelContext, inputs: Any, min: float, max: float, num_bits: int,  # noqa: A002
                     narrow_range: bool) -> Any:
    _check_bits(ctx, num_bits)
    return _fake_quant(inputs, min, max, num_bits, narrow_range)


@FakeQuantWithMinMaxArgsGradient.kernel("CPU")
def _fake_quant_args_gradient(ctx: OpKernelContext, gradients: Any, inputs: Any, min: float,  # noqa: A002
                              max: float, num_bits: int, narrow_range: bool) -> Any:  # noqa: A002
    _check_bits(ctx, num_bits)
    return _fake_quant_grads(gradients, inputs, min, max, num_bits, narrow_range)[0]


@FakeQuantWithMinMaxVars.kernel("CPU")
def _fake_quant_vars(ctx: OpKernelContext, inputs: Any, min: Any, max: Any, num_bits: int,  # noqa: A002
                     narrow_range: bool) -> Any:
    _check_bits(ctx, num_bits, min, max)
    return _fake_quant(inputs, min, max, num_bits, narrow_range)


@FakeQuantWithMinMaxVarsGradient.kernel("CPU")
def _fake_quant_vars_gradient(ctx: OpKernelContext, gradients: Any, inputs: Any, min: Any, max: Any,  # noqa: A002
                              num_bits: int, narrow_range: bool) -> list:
    _check_bits(ctx, num_bits, min, max)
    wrt_input, wrt_min, wrt_max = _fake_quant_grads(gradients, inputs, min, max, num_bits, narrow_range)
    return [wrt_input, np.float32(wrt_min.sum()), np.float32(wrt_max.sum())]


@FakeQuantWithMinMaxVarsPerChannel.kernel("CPU")
def _fake_quant_per_channel(ctx: OpKernelContext, inputs: Any, min: Any, max: Any, num_bits: int,  # noqa: A002
                            narrow_range: bool) -> Any:
    _check_bits(ctx, num_bits, min, max)
    return _fake_quant(inputs, min, max, num_bits, narrow_range)


@FakeQuantWithMinMaxVarsPerChannelGradient.kernel("CPU")
def _fake_quant_per_channel_gradient(ctx: OpKernelContext, gradients: Any, inputs: Any, min: Any,  # noqa: A002
                                     max: Any, num_bits: int, narrow_range: bool) -> list:  # noqa: A002
    _check_bits(ctx, num_bits, min, max)
    wrt_input, wrt_min, wrt_max = _fake_quant_grads(gradients, inputs, min, max, num_bits, narrow_range)
    axes = tuple(range(inputs.ndim - 1))
    return [wrt_input, wrt_min.sum(axis=axes).astype(np.float32), wrt_max.sum(axis=axes).astype(np.float32)]


@tf_export("quantization.fake_quant_with_min_max_args", "fake_quant_with_min_max_args")
def fake_quant_with_min_max_args(inputs: Any, min: float = -6, max: float = 6, num_bits: int = 8,  # noqa: A002
                                 narrow_range: bool = False, name: str | None = None) -> Tensor:
    """`inputs` rounded to the levels of a num_bits quantization of [min, max] (attrs), as floats."""
    return FakeQuantWithMinMaxArgs(inputs, min=min, max=max, num_bits=num_bits, narrow_range=narrow_range,
                                   name=name)


@tf_export("quantization.fake_quant_with_min_max_args_gradient", "fake_quant_with_min_max_args_gradient")
def fake_quant_with_min_max_args_gradient(gradients: Any, inputs: Any, min: float = -6,  # noqa: A002
                                          max: float = 6, num_bits: int = 8,  # noqa: A002
                                          narrow_range: bool = False, name: str | None = None) -> Tensor:
    """The gradient of `fake_quant_with_min_max_args`: passed through inside the nudged range."""
    return FakeQuantWithMinMaxArgsGradient(gradients, inputs, min=min, max=max, num_bits=num_bits,
                                           narrow_range=narrow_range, name=name)


@tf_export("quantization.fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars")
def fake_quant_with_min_max_vars(inputs: Any, min: Any, max: Any, num_bits: int = 8,  # noqa: A002
                                 narrow_range: bool = False, name: str | None = None) -> Tensor:
    """`fake_quant_with_min_max_args` with min and max as scalar tensors (trainable)."""
    return FakeQuantWithMinMaxVars(inputs, min, max, num_bits=num_bits, narrow_range=narrow_range, name=name)


@tf_export("quantization.fake_quant_with_min_max_vars_gradient", "fake_quant_with_min_max_vars_gradient")
def fake_quant_with_min_max_vars_gradient(gradients: Any, inputs: Any, min: Any, max: Any,  # noqa: A002
                                          num_bits: int = 8, narrow_range: bool = False,
                                          name: str | None = None) -> tuple:
    """The gradients of `fake_quant_with_min_max_vars` by its inputs, min and max."""
    return FakeQuantWithMinMaxVarsGradient(gradients, inputs, min, max, num_bits=num_bits,
                                           narrow_range=narrow_range, name=name)


@tf_export("quantization.fake_quant_with_min_max_vars_per_channel", "fake_quant_with_min_max_vars_per_channel")
def fake_quant_with_min_max_vars_per_channel(inputs: Any, min: Any, max: Any, num_bits: int = 8,  # noqa: A002
                                             narrow_range: bool = False, name: str | None = None) -> Tensor:
    """`fake_quant_with_min_max_vars` with one [min, max] per channel (the last dimension)."""
    return FakeQuantWithMinMaxVarsPerChannel(inputs, min, max, num_bits=num_bits, narrow_range=narrow_range,
                                             name=name)


@tf_export("quantization.fake_quant_with_min_max_vars_per_channel_gradient",
           "fake_quant_with_min_max_vars_per_channel_gradient")
def fake_quant_with_min_max_vars_per_channel_gradient(gradients: Any, inputs: Any, min: Any,  # noqa: A002
                                                      max: Any, num_bits: int = 8,  # noqa: A002
                                                      narrow_range: bool = False, name: str | None = None) -> tuple:
    """The gradients of `fake_quant_with_min_max_vars_per_channel` by its inputs, min and max."""
    return FakeQuantWithMinMaxVarsPerChannelGradient(gradients, inputs, min, max, num_bits=num_bits,
                                                     narrow_range=narrow_range, name=name)


@FakeQuantWithMinMaxArgs.gradient
def _fake_quant_args_grad(op: Any, grad: Tensor) -> list:
    attrs = {a: op.get_attr(a) for a in ("min", "max", "num_bits", "narrow_range")}
    return [FakeQuantWithMinMaxArgsGradient(grad, op.inputs[0], **attrs)]


def _fake_quant_vars_grad(gradient_op: Op) -> Any:
    def grad_fn(op: Any, grad: Tensor) -> list:
        attrs = {a: op.get_attr(a) for a in ("num_bits", "narrow_range")}
        return list(gradient_op(grad, op.inputs[0], op.inputs[1], op.inputs[2], **attrs))

    return grad_fn


FakeQuantWithMinMaxVars.gradient(_fake_quant_vars_grad(FakeQuantWithMinMaxVarsGradient))
FakeQuantWithMinMaxVarsPerChannel.gradient(_fake_quant_vars_grad(FakeQuantWithMinMaxVarsPerChannelGradient))


# -- QuantizeV2, Dequantize ---------------------------------------------------------------------------------
# Floats to 8/16-bit quantized integers and back, in TF's three modes: MIN_COMBINED (the range spread over all
# levels, signed types shifted by half the levels), MIN_FIRST (levels counted from the rounded minimum) and
# SCALED (symmetric: one scale from whichever side of the range binds). A range is per tensor, or per slice
# along `axis`.

_QUANTIZED = "T: {qint8, quint8, qint32, qint16, quint16}"
_MODES = "mode: {'MIN_COMBINED', 'MIN_FIRST', 'SCALED'} = 'MIN_COMBINED'"

QuantizeV2 = Op("QuantizeV2", inputs=["input: float", "min_range: float", "max_range: float"],
                outputs=["output: T", "output_min: float", "output_max: float"],
                attrs=[_QUANTIZED, _MODES, "round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = 'HALF_AWAY_FROM_ZERO'",
                       "narrow_range: bool = false", "axis: int = -1", "ensure_minimum_range: float = 0.01"])
Dequantize = Op("Dequantize", inputs=["input: T", "min_range: float", "max_range: float"], outputs=["output: dtype"],
                attrs=[_QUANTIZED, _MODES, "narrow_range: bool = false", "axis: int = -1",
                       "dtype: {bfloat16, float} = DT_FLOAT"])


def _range_shape(ctx: InferenceContext, axis: int) -> tensor_shape.TensorShape:
    """The ranges' shape: scalars, or one per slice along `axis`."""
    data = ctx.input_shape(0)
    if axis < 0:
        with_rank(ctx.input_shape(1), 0)
        with_rank(ctx.input_shape(2), 0)
        return tensor_shape.scalar()
    with_rank_at_least(data, axis + 1)
    depth = data[axis] if data.ndims is not None else None
    for index in (1, 2):
        tensor_shape.merge_shapes(with_rank(ctx.input_shape(index), 1), tensor_shape.TensorShape([depth]))
    return tensor_shape.TensorShape([depth])


@QuantizeV2.shape
def _quantize_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    ranges = _range_shape(ctx, ctx.attr("axis"))
    return [ctx.input_shape(0), ranges, ranges]


@Dequantize.shape
def _dequantize_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _range_shape(ctx, ctx.attr("axis"))
    return [ctx.input_shape(0)]


def integer_type(quantized: dtypes.DType) -> Any:
    """The plain NumPy integer type a quantized type's values are held in."""
    return np.dtype(quantized.as_numpy_dtype)[0]


def _along_axis(ctx: OpKernelContext, x: Any, low: Any, high: Any, axis: int) -> tuple[Any, Any]:
    """The ranges as float32 arrays that broadcast against `x`'s slices along `axis`."""
    low, high = np.asarray(low, np.float32), np.asarray(high, np.float32)
    if axis < 0:
        return low, high
    if low.shape != (x.shape[axis],) or high.shape != (x.shape[axis],):
        raise invalid_argument(ctx, f"min_range and max_range must have {x.shape[axis]} elements, got "
                                    f"{low.size} and {high.size}")
    shape = [1] * x.ndim
    shape[axis] = -1
    return low.reshape(shape), high.reshape(shape)


def round_half(x: Any, half_to_even: bool) -> Any:
    """Rounding to the nearest level, ties to even or (C's round) away from zero."""
    return np.round(x) if half_to_even else np.sign(x) * np.floor(np.abs(x) + 0.5)


@QuantizeV2.kernel("CPU")
def _quantize_v2(ctx: OpKernelContext, input: Any, min_range: Any, max_range: Any, T: dtypes.DType,  # noqa: A002, N803
                 mode: bytes, round_mode: bytes, narrow_range: bool, axis: int,
                 ensure_minimum_range: float) -> list:
    mode, round_mode = (v.decode() if isinstance(v, bytes) else v for v in (mode, round_mode))
    if axis >= 0 and axis >= input.ndim:
        raise invalid_argument(ctx, f"Axis must be less than input dimension({input.ndim}), got {axis}")
    given_low, given_high = _along_axis(ctx, input, min_range, max_range, axis)
    if np.any(given_low > given_high):
        raise invalid_argument(ctx, "input_max_range must be larger than input_min_range.")
    integer = integer_type(T)
    lowest, highest = float(np.iinfo(integer).min), float(np.iinfo(integer).max)
    low = np.minimum(np.float32(0), given_low)
    epsilon = np.maximum(np.float32(1), np.maximum(np.abs(given_low), np.abs(given_high))) * np.float32(
        ensure_minimum_range)
    high = np.maximum(np.float32(0), np.maximum(given_high, low + epsilon))
    x = np.asarray(input, np.float32)
    if mode == "MIN_COMBINED":
        scale = ((highest - lowest) / (high - low)).astype(np.float32)
        shifted = (np.clip(x, low, high) - low) * scale
        if lowest < 0:
            values = round_half(shifted - np.float32((highest - lowest + 1) / 2), False)
        else:
            values = np.floor(shifted + np.float32(0.5))
    elif mode == "MIN_FIRST":
        steps = float(1 << (8 * np.dtype(integer).itemsize))
        range_scale = steps / ((high.astype(np.float64) - low) * (steps / (steps - 1.0)))
        values = round_half(x * range_scale, False) - round_half(low * range_scale, False) + lowest
        values = np.where(low == high, lowest, values)
    else:
        bottom = lowest + (1 if narrow_range else 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            from_low = np.where(bottom * low > 0, np.float32(bottom) / low, np.finfo(np.float32).max)
            from_high = np.where(highest * high > 0, np.float32(highest) / high, np.finfo(np.float32).max)
        scale = np.minimum(from_low, from_high).astype(np.float32)
        low, high = (np.float32(bottom) / scale).astype(np.float32), (np.float32(highest) / scale).astype(np.float32)
        values = round_half(x * scale, round_mode == "HALF_TO_EVEN")
        lowest = bottom
    quantized = np.clip(values, lowest, highest).astype(integer).view(T.as_numpy_dtype)
    ranges_shape = np.shape(min_range)
    return [quantized, np.broadcast_to(low, np.shape(given_low)).reshape(ranges_shape).astype(np.float32),
            np.broadcast_to(high, np.shape(given_high)).reshape(ranges_shape).astype(np.float32)]


@Dequantize.kernel("CPU")
def _dequantize(ctx: OpKernelContext, input: Any, min_range: Any, max_range: Any, T: dtypes.DType,  # noqa: A002, N803
                mode: bytes, narrow_range: bool, axis: int, dtype: dtypes.DType) -> Any:
    mode = mode.decode() if isinstance(mode, bytes) else mode
    integer = integer_type(T)
    values = input.view(integer).astype(np.float64)
    low, high = _along_axis(ctx, values, min_range, max_range, axis)
    lowest, highest = float(np.iinfo(integer).min), float(np.iinfo(integer).max)
    if mode == "MIN_COMBINED":
        half = np.float32((highest - lowest + 1) / 2 if lowest < 0 else 0)
        scale = ((high - low) / np.float32(highest - lowest)).astype(np.float32)
        out = (values.astype(np.float32) + half) * scale + low
    elif mode == "MIN_FIRST":
        steps = float(1 << (8 * np.dtype(integer).itemsize))
        step = ((high.astype(np.float64) - low) * (steps / (steps - 1.0)) / steps).astype(np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            rounded_low = (np.round(low / step) * step.astype(np.float64)).astype(np.float32)
        out = np.where(low == high, low, (values - lowest).astype(np.float32) * step + rounded_low)
    else:
        bottom = lowest + (1 if narrow_range else 0)
        scale = high / np.float32(highest) if lowest == 0 else np.maximum(low / np.float32(bottom),
                                                                         high / np.float32(highest))
        out = values.astype(np.float32) * scale
    return np.asarray(out, np.float32).astype(dtype.as_numpy_dtype)


NotDifferentiable("QuantizeV2")
NotDifferentiable("Dequantize")


def _resolved_axis(input: Any, axis: int | None) -> int:  # noqa: A002
    if axis is None:
        return -1
    if axis < 0:
        shape = getattr(input, "shape", None)
        ndims = shape.ndims if isinstance(shape, tensor_shape.TensorShape) else np.ndim(input)
        if ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= ndims
    return axis


@tf_export("quantize_v2")
def quantize_v2(input: Any, min_range: Any, max_range: Any, T: Any, mode: str = "MIN_COMBINED",  # noqa: A002, N803
                name: str | None = None, round_mode: str = "HALF_AWAY_FROM_ZERO", narrow_range: bool = False,
                axis: int | None = None, ensure_minimum_range: float = 0.01) -> Any:
    """Float `input` quantized to the type `T` over [min_range, max_range] (per slice along `axis`): the values
    and the range actually used."""
    return QuantizeV2(input, min_range, max_range, T=T, mode=mode, round_mode=round_mode,
                      narrow_range=narrow_range, axis=_resolved_axis(input, axis),
                      ensure_minimum_range=ensure_minimum_range, name=name)


@tf_export("quantization.quantize", "quantize")
def quantize(input: Any, min_range: Any, max_range: Any, T: Any, mode: str = "MIN_COMBINED",  # noqa: A002, N803
             round_mode: str = "HALF_AWAY_FROM_ZERO", name: str | None = None, narrow_range: bool = False,
             axis: int | None = None, ensure_minimum_range: float = 0.01) -> Any:
    """`quantize_v2` with TF2's argument order."""
    return quantize_v2(input, min_range, max_range, T, mode=mode, name=name, round_mode=round_mode,
                       narrow_range=narrow_range, axis=axis, ensure_minimum_range=ensure_minimum_range)


@tf_export("quantization.dequantize", "dequantize")
def dequantize(input: Any, min_range: Any, max_range: Any, mode: str = "MIN_COMBINED",  # noqa: A002
               name: str | None = None, axis: int | None = None, narrow_range: bool = False,
               dtype: Any = dtypes.float32) -> Tensor:
    """Quantized `input` back to floats over [min_range, max_range] in `mode`."""
    return Dequantize(input, min_range, max_range, mode=mode, narrow_range=narrow_range,
                      axis=_resolved_axis(input, axis), dtype=dtype, name=name)


# -- QuantizeAndDequantizeV2, V3, V4 and V4's gradient --------------------------------------------------------
# Quantization simulated in floats: [input_min, input_max] (given, or the data's own range) is scaled by the
# largest factor that keeps both ends inside the signed or unsigned num_bits integer range with zero fixed;
# the side that did not bind is moved to the last level it reaches, the values (clamped when the range was
# given) are rounded to levels and scaled back. `axis` gives each slice along it its own range. TF's CPU
# kernels exist for float and double only.

_QDQ_TYPES = "T: {bfloat16, half, float, double}"
_QDQ_COMMON = ["signed_input: bool = true", "range_given: bool = false", _QDQ_TYPES,
               "round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'", "narrow_range: bool = false",
               "axis: int = -1"]
_QDQ_KERNEL = {"T": [dtypes.float32, dtypes.float64]}

QuantizeAndDequantizeV2 = Op("QuantizeAndDequantizeV2", inputs=["input: T", "input_min: T", "input_max: T"],
                             outputs=["output: T"], attrs=[*_QDQ_COMMON[:1], "num_bits: int = 8", *_QDQ_COMMON[1:]])
QuantizeAndDequantizeV3 = Op("QuantizeAndDequantizeV3",
                             inputs=["input: T", "input_min: T", "input_max: T", "num_bits: int32"],
                             outputs=["output: T"],
                             attrs=["signed_input: bool = true", "range_given: bool = true", _QDQ_TYPES,
                                    "narrow_range: bool = false", "axis: int = -1"])
QuantizeAndDequantizeV4 = Op("QuantizeAndDequantizeV4", inputs=["input: T", "input_min: T", "input_max: T"],
                             outputs=["output: T"], attrs=[*_QDQ_COMMON[:1], "num_bits: int = 8", *_QDQ_COMMON[1:]])
QuantizeAndDequantizeV4Grad = Op("QuantizeAndDequantizeV4Grad",
                                 inputs=["gradients: T", "input: T", "input_min: T", "input_max: T"],
                                 outputs=["input_backprop: T", "input_min_backprop: T", "input_max_backprop: T"],
                                 attrs=[_QDQ_TYPES, "axis: int = -1"])


def _qdq_range_shape(ctx: InferenceContext, first: int, data: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """TF's shape checks of the two range inputs from `first` on: scalars, or one value per slice along `axis`."""
    axis = ctx.attr("axis")
    ranges = with_rank(ctx.input_shape(first), 0 if axis == -1 else 1)
    ranges = tensor_shape.merge_shapes(ranges, with_rank(ctx.input_shape(first + 1), 0 if axis == -1 else 1))
    if axis < -1:
        raise ValueError(f"axis should be at least -1, got {axis}")
    if axis != -1:
        data = with_rank_at_least(data, axis + 1)
        if data.ndims is not None:
            depth = merge_dim(ranges[0], data[axis])
            ranges = tensor_shape.TensorShape([depth])
    return ranges


def _qdq_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _qdq_range_shape(ctx, 1, ctx.input_shape(0))
    if ctx.node_def.op == "QuantizeAndDequantizeV3":
        with_rank(ctx.input_shape(3), 0)
    return [ctx.input_shape(0)]


for _op in (QuantizeAndDequantizeV2, QuantizeAndDequantizeV3, QuantizeAndDequantizeV4):
    _op.shape(_qdq_shape)


@QuantizeAndDequantizeV4Grad.shape
def _qdq_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    data = tensor_shape.merge_shapes(ctx.input_shape(0), ctx.input_shape(1))
    ranges = _qdq_range_shape(ctx, 2, data)
    return [data, ranges, ranges]


def _per_slice(x: Any, values: Any, axis: int) -> Any:
    """Per-slice range values shaped to broadcast against `x` along `axis` (scalars as they are)."""
    if axis == -1:
        return values
    shape = [1] * x.ndim
    shape[axis] = -1
    return values.reshape(shape)


def _quantize_and_dequantize(x: Any, low: Any, high: Any, signed_input: bool, num_bits: int, range_given: bool,
                             round_mode: str, narrow_range: bool, axis: int) -> Any:
    """TF's quantize-and-dequantize arithmetic, in the input's own float type."""
    dtype = x.dtype.type
    if range_given:
        low, high = _per_slice(x, np.asarray(low, dtype), axis), _per_slice(x, np.asarray(high, dtype), axis)
    else:
        axes = None if axis == -1 else tuple(a for a in range(x.ndim) if a != axis)
        low = np.min(x, axis=axes, keepdims=axis != -1, initial=np.inf).astype(dtype)
        high = np.max(x, axis=axes, keepdims=axis != -1, initial=-np.inf).astype(dtype)
    half = 1 << (num_bits - 1)
    min_quantized = (-half + (1 if narrow_range else 0)) if signed_input else 0
    max_quantized = half - 1 if signed_input else (1 << num_bits) - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        largest = np.finfo(dtype).max
        from_min = np.where(min_quantized * low > 0, dtype(min_quantized) / low, largest).astype(dtype)
        from_max = np.where(max_quantized * high > 0, dtype(max_quantized) / high, largest).astype(dtype)
        min_binds = from_min < from_max
        scale = np.where(min_binds, from_min, from_max)
        inverse = np.where(min_binds, low / dtype(min_quantized), high / dtype(max_quantized)).astype(dtype)
    low = np.where(min_binds, low, dtype(min_quantized) * inverse)
    high = np.where(min_binds, dtype(max_quantized) * inverse, high)
    if range_given:
        x = np.minimum(np.maximum(x, low), high) if x.size else x
    scaled = (x * scale).astype(dtype)
    levels = np.rint(scaled) if round_mode == "HALF_TO_EVEN" else np.floor(scaled + dtype(0.5))
    return (levels * inverse).astype(dtype)


def _check_qdq(ctx: OpKernelContext, x: Any, low: Any, high: Any, num_bits: int, signed_input: bool,
               range_given: bool, axis: int, v3: bool) -> None:
    """TF's run-time checks of the V2/V3/V4 kernels (V3 words two of them differently)."""
    if not 0 < num_bits < (62 if signed_input else 63):
        name = "`signed_input_`" if v3 else "signed_input_"
        raise invalid_argument(ctx, f"num_bits is out of range: {num_bits} with {name} {int(signed_input)}")
    if axis != -1 and axis >= x.ndim:
        raise invalid_argument(ctx, f"Axis requested is larger than input dimensions. Axis: {axis} Input "
                                    f"Dimensions: {x.ndim}" if v3 else
                                    f"Shape must be at least rank {axis + 1} but is rank {x.ndim}")
    if not range_given:
        return
    if axis == -1 or not v3:
        if np.ndim(low) or np.ndim(high):
            raise invalid_argument(ctx, "input_min must be a scalar.")
        if low > high:
            raise invalid_argument(ctx, f"Invalid range: input_min {low:g} > input_max {high:g}")
        return
    for name, values in (("input_min_tensor", low), ("input_max_tensor", high)):
        if np.shape(values)[0] != x.shape[axis]:
            raise invalid_argument(ctx, f"{name} has incorrect size, was {np.shape(values)[0]} expected "
                                        f"{x.shape[axis]} to match dim {axis} of the input "
                                        f"{tensor_shape.shape_string(np.shape(values))}")


@QuantizeAndDequantizeV2.kernel("CPU", type_constraints=_QDQ_KERNEL)
@QuantizeAndDequantizeV4.kernel("CPU", type_constraints=_QDQ_KERNEL)
def _quantize_and_dequantize_v2(ctx: OpKernelContext, input: Any, input_min: Any, input_max: Any,  # noqa: A002
                                signed_input: bool, num_bits: int, range_given: bool, T: dtypes.DType,  # noqa: N803
                                round_mode: Any, narrow_range: bool, axis: int) -> Any:
    _check_qdq(ctx, input, input_min, input_max, num_bits, signed_input, range_given, axis, v3=False)
    round_mode = round_mode.decode() if isinstance(round_mode, bytes) else round_mode
    return _quantize_and_dequantize(input, input_min, input_max, signed_input, num_bits, range_given, round_mode,
                                    narrow_range, axis)


@QuantizeAndDequantizeV3.kernel("CPU", type_constraints=_QDQ_KERNEL)
def _quantize_and_dequantize_v3(ctx: OpKernelContext, input: Any, input_min: Any, input_max: Any,  # noqa: A002
                                num_bits: Any, signed_input: bool, range_given: bool, T: dtypes.DType,  # noqa: N803
                                narrow_range: bool, axis: int) -> Any:
    num_bits = int(num_bits)
    _check_qdq(ctx, input, input_min, input_max, num_bits, signed_input, range_given, axis, v3=True)
    return _quantize_and_dequantize(input, input_min, input_max, signed_input, num_bits, range_given,
                                    "HALF_TO_EVEN", narrow_range, axis)


@QuantizeAndDequantizeV4Grad.kernel("CPU", type_constraints=_QDQ_KERNEL)
def _quantize_and_dequantize_v4_grad(ctx: OpKernelContext, gradients: Any, input: Any,  # noqa: A002
                                     input_min: Any, input_max: Any, T: dtypes.DType, axis: int) -> list:  # noqa: N803
    if gradients.shape != input.shape:
        raise invalid_argument(ctx, "gradient and input must be the same size")
    if axis != -1 and not 0 <= axis < input.ndim:
        raise invalid_argument(ctx, f"Axis should be -1 or 0 or a positive value less than {input.ndim}but given "
                                    f"axis value was {axis}")
    if axis != -1:
        for name, values in (("min", input_min), ("max", input_max)):
            if np.shape(values)[0] != input.shape[axis]:
                raise invalid_argument(ctx, f"{name} has incorrect size, expected {input.shape[axis]} was "
                                            f"{np.shape(values)[0]}")
    low, high = _per_slice(input, np.asarray(input_min), axis), _per_slice(input, np.asarray(input_max), axis)
    backprop = np.where((input >= low) & (input <= high), gradients, input.dtype.type(0))
    zeros = np.zeros(np.shape(input_min), input.dtype)
    return [backprop, zeros, zeros.copy()]


@QuantizeAndDequantizeV2.gradient
def _quantize_and_dequantize_v2_grad(op: Any, grad: Tensor) -> list:
    return [grad, None, None]


@QuantizeAndDequantizeV3.gradient
def _quantize_and_dequantize_v3_grad(op: Any, grad: Tensor) -> list:
    return [grad, None, None, None]


@QuantizeAndDequantizeV4.gradient
def _quantize_and_dequantize_v4_grad_fn(op: Any, grad: Tensor) -> list:
    return list(QuantizeAndDequantizeV4Grad(grad, op.inputs[0], op.inputs[1], op.inputs[2],
                                            axis=op.get_attr("axis")))


# TF registers V4's gradient function for V4Grad too (reading V4Grad's first three inputs as V4's).
QuantizeAndDequantizeV4Grad.gradient(_quantize_and_dequantize_v4_grad_fn)


@tf_export("quantization.quantize_and_dequantize")
def quantize_and_dequantize(input: Any, input_min: Any, input_max: Any, signed_input: bool = True,  # noqa: A002
                            num_bits: int = 8, range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                            name: str | None = None, narrow_range: bool = False, axis: int | None = None) -> Tensor:
    """`input` rounded to the levels of a num_bits quantization of its range, as floats (QuantizeAndDequantizeV2,
    whose gradient passes straight through)."""
    return QuantizeAndDequantizeV2(input, input_min, input_max, signed_input=signed_input, num_bits=num_bits,
                                   range_given=range_given, round_mode=round_mode, narrow_range=narrow_range,
                                   axis=_resolved_axis(input, axis), name=name)


@tf_export("quantization.quantize_and_dequantize_v2")
def quantize_and_dequantize_v2(input: Any, input_min: Any, input_max: Any, signed_input: bool = True,  # noqa: A002
                               num_bits: int = 8, range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                               name: str | None = None, narrow_range: bool = False,
                               axis: int | None = None) -> Tensor:
    """`quantize_and_dequantize` as QuantizeAndDequantizeV4, whose gradient is zero outside [input_min,
    input_max]."""
    return QuantizeAndDequantizeV4(input, input_min, input_max, signed_input=signed_input, num_bits=num_bits,
                                   range_given=range_given, round_mode=round_mode, narrow_range=narrow_range,
                                   axis=_resolved_axis(input, axis), name=name)
