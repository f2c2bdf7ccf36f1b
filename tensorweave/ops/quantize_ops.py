"""Quantization: the FakeQuantWithMinMax{Args,Vars,VarsPerChannel} ops of quantization-aware training and
their gradient ops.

Fake quantization nudges [min, max] so that zero is exactly representable, clamps, rounds to the
2^num_bits (or one fewer with `narrow_range`) levels between, and returns floats; its gradient passes
through inside the nudged range and, for the Vars forms, goes to min (below) and max (above).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import unary_shape, with_rank, with_rank_at_least
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
