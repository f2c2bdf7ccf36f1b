"""Ops on quantized tensors, each value tensor travelling with the float range [min, max] its integer levels
span: QuantizedConcat (`tf.quantized_concat`), and `tf.nn`'s QuantizedAvgPool, QuantizedMaxPool,
QuantizedReluX and QuantizedConv2D.

The arithmetic is TF's reference kernels' (quantization_utils): integer pooling on the raw levels (the average
rounded half to even), ReluX's bounds found as levels of the input's range, a convolution of levels
less the level of 0.0, exact in int64 and returned as qint32 with the range of one level of the product, and a
concat that requantizes each input whose range differs into the overall one in float32 as TF's Eigen
expressions do. Kernels exist for the types TF 2.21's CPU build registers; other types fail as TF's do, with
no kernel registered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.conv_kernels import (
    ConvGeometry,
    avg_divisors,
    conv_forward,
    max_pool_nhwc,
    static_window,
    sum_pool_nhwc,
)
from tensorweave.ops.kernel_helpers import invalid_argument, no_kernel_registered
from tensorweave.ops.manipulation_ops import concat_shape
from tensorweave.ops.nn_conv_ops import _conv2d_shape, _conv_geometry, _Format, _pool_geometry, attr_text
from tensorweave.ops.quantize_ops import integer_type, round_half
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export

_QUANTIZED = "{qint8, quint8, qint32, qint16, quint16}"
_NHWC = _Format(nchw=False)


def _levels(quantized: dtypes.DType) -> tuple[int, int, int]:
    """The lowest and highest level of a quantized type, and how many steps its bits hold."""
    info = np.iinfo(integer_type(quantized))
    return int(info.min), int(info.max), 1 << info.bits


def _float_to_quantized(value: float, low: float, high: float, quantized: dtypes.DType, clamp: bool = True) -> int:
    """TF's FloatToQuantized(Unclamped): the level of `value` in [low, high], in doubles as TF's."""
    lowest, highest, steps = _levels(quantized)
    if low == high:
        return lowest
    scale = steps / (float(np.float32(high) - np.float32(low)) * (steps / (steps - 1.0)))
    level = int(round_half(value * scale, False) - round_half(low * scale, False)) + lowest
    return min(max(level, lowest), highest) if clamp else level


def _requantized(values: Any, low: np.float32, high: np.float32, new_low: np.float32, new_high: np.float32,
                 quantized: dtypes.DType) -> Any:
    """Levels of [low, high] as levels of [new_low, new_high]: TF's DEQUANTIZE_WITH_EIGEN then
    QUANTIZE_WITH_EIGEN, all in float32."""
    lowest, highest, steps = _levels(quantized)
    f32 = np.float32
    step = f32((high - low) / (steps - 1.0))
    low_rounded = low if high == low else f32(round_half(f32(low / step), False) * step)
    floats = (low_rounded - f32(lowest) * step) + values.astype(f32) * step
    scale = f32(0.0) if new_high == new_low else f32((steps - 1.0) / f32(new_high - new_low))
    low_scaled = f32(round_half(f32(new_low * scale), False))
    levels = round_half((floats * scale).astype(f32), False) - (low_scaled - f32(lowest))
    bounds = max(f32(lowest), f32(-2.147483648e09)), min(f32(highest), f32(2.147483520e09))
    return np.clip(levels, *bounds).astype(np.int64).astype(integer_type(quantized))


def _scalar_range(ctx: OpKernelContext, value: Any, name: str, message: str) -> np.float32:
    """A min or max input, which TF's kernels read as one float (`message` formats their rank error)."""
    if np.ndim(value) != 0:
        raise invalid_argument(ctx, message.format(name=name, rank=np.ndim(value),
                                                   shape=tensor_shape.shape_string(np.shape(value))))
    return np.float32(value)


def _scalar_ranges_shape(ctx: InferenceContext, first: int) -> None:
    for index in range(first, ctx.num_inputs):
        with_rank(ctx.input_shape(index), 0)


# -- QuantizedConcat ----------------------------------------------------------------------------------------

QuantizedConcat = Op("QuantizedConcat",
                     inputs=["concat_dim: int32", "values: N * T", "input_mins: N * float", "input_maxes: N * float"],
                     outputs=["output: T", "output_min: float", "output_max: float"], attrs=["N: int >= 2", "T: type"])


@QuantizedConcat.shape
def _quantized_concat_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    n = (ctx.num_inputs - 1) // 3
    output = concat_shape(ctx, ctx.input_shapes[1:n + 1], 0)
    _scalar_ranges_shape(ctx, n + 1)
    return [*output, tensor_shape.scalar(), tensor_shape.scalar()]


@QuantizedConcat.kernel("CPU", type_constraints={"T": [dtypes.quint8, dtypes.qint32]})
def _quantized_concat(ctx: OpKernelContext, concat_dim: Any, *args: Any, N: int, T: dtypes.DType) -> list:  # noqa: N803
    values, mins, maxes = args[:N], args[N:2 * N], args[2 * N:]
    if np.ndim(concat_dim) != 0:
        raise invalid_argument(ctx, "Concat dim tensor should be a scalar integer, but got shape "
                                    f"{tensor_shape.shape_string(np.shape(concat_dim))}")
    axis, first = int(concat_dim), values[0]
    if not (0 <= axis < first.ndim or axis == 0):
        raise invalid_argument(ctx, f"ConcatOp : Expected concatenating dimensions in the range [0, {first.ndim}), "
                                    f"but got {axis}")
    ranges = [(np.float32(np.reshape(low, -1)[0]), np.float32(np.reshape(high, -1)[0])) for low, high in
              zip(mins, maxes)]
    low, high = min(r[0] for r in ranges), max(r[1] for r in ranges)
    if np.dtype(integer_type(T)).kind == "i":
        high = max(abs(low), abs(high))
        low = -high
    for index, value in enumerate(values):
        shapes = (f"shape[0] = {tensor_shape.shape_string(first.shape)} vs. shape[{index}] = "
                  f"{tensor_shape.shape_string(value.shape)}")
        if value.ndim != first.ndim:
            raise invalid_argument(ctx, f"ConcatOp : Ranks of all input tensors should match: {shapes}")
        if any(value.shape[d] != first.shape[d] for d in range(first.ndim) if d != axis):
            raise invalid_argument(ctx, f"ConcatOp : Dimensions of inputs should match: {shapes}")
    parts = [value if (value_low, value_high) == (low, high) else
             _requantized(value.view(integer_type(T)), value_low, value_high, low, high, T).view(T.as_numpy_dtype)
             for value, (value_low, value_high) in zip(values, ranges)]
    return [np.concatenate(parts, axis=axis), np.float32(low), np.float32(high)]


# -- QuantizedAvgPool, QuantizedMaxPool -----------------------------------------------------------------------

_QUANTIZED_POOL_ATTRS = [f"T: {_QUANTIZED}", "ksize: list(int)", "strides: list(int)", "padding: {'SAME', 'VALID'}"]
QuantizedAvgPool = Op("QuantizedAvgPool", inputs=["input: T", "min_input: float", "max_input: float"],
                      outputs=["output: T", "min_output: float", "max_output: float"], attrs=_QUANTIZED_POOL_ATTRS)
QuantizedMaxPool = Op("QuantizedMaxPool", inputs=["input: T", "min_input: float", "max_input: float"],
                      outputs=["output: T", "min_output: float", "max_output: float"], attrs=_QUANTIZED_POOL_ATTRS)


def _quantized_pool_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's AvgPool/MaxPool shape function on NHWC (whose ksize and strides these ops leave unchecked in their
    OpDef), and scalar ranges."""
    name = ctx.node_def.op[len("Quantized"):]
    n, h, w, c = with_rank(ctx.input_shape(0), 4).as_list()
    ksize, strides, padding = list(ctx.attr("ksize")), list(ctx.attr("strides")), attr_text(ctx.attr("padding"))
    for attr, values in (("ksize", ksize), ("stride", strides)):
        if len(values) != 4:
            raise ValueError(f"{name} requires the {attr} attribute to contain 4 values, but got: {len(values)}")
    _scalar_ranges_shape(ctx, 1)
    output = tensor_shape.TensorShape([n, static_window(h, ksize[1], strides[1], 1, padding),
                                       static_window(w, ksize[2], strides[2], 1, padding), c])
    return [output, tensor_shape.scalar(), tensor_shape.scalar()]


QuantizedAvgPool.shape(_quantized_pool_shape)
QuantizedMaxPool.shape(_quantized_pool_shape)
_POOL_KERNEL = {"T": [dtypes.quint8, dtypes.qint8]}
_RANK_MESSAGE = "{name} shape must be rank 0 but is rank {rank}, received shape: {shape}"


@QuantizedAvgPool.kernel("CPU", type_constraints=_POOL_KERNEL)
def _quantized_avg_pool(ctx: OpKernelContext, input: Any, min_input: Any, max_input: Any,  # noqa: A002
                        T: dtypes.DType, ksize: list, strides: list, padding: Any) -> list:  # noqa: N803
    low = _scalar_range(ctx, min_input, "min_input", _RANK_MESSAGE)
    high = _scalar_range(ctx, max_input, "max_input", _RANK_MESSAGE)
    g = _pool_geometry(ctx, input.shape, ksize, strides, padding, _NHWC)
    levels = input.view(integer_type(T))
    sums = sum_pool_nhwc(levels.astype(np.int64), g, ctx.device)
    counts = avg_divisors(levels.shape, g, np.int64)
    means = np.rint(sums / counts)  # TF 2.21 rounds the mean half to even (measured), not truncates
    lowest, highest, _ = _levels(T)
    return [np.clip(means, lowest, highest).astype(levels.dtype).view(T.as_numpy_dtype), low, high]


@QuantizedMaxPool.kernel("CPU", type_constraints=_POOL_KERNEL)
def _quantized_max_pool(ctx: OpKernelContext, input: Any, min_input: Any, max_input: Any,  # noqa: A002
                        T: dtypes.DType, ksize: list, strides: list, padding: Any) -> list:  # noqa: N803
    low = _scalar_range(ctx, min_input, "min_input", _RANK_MESSAGE)
    high = _scalar_range(ctx, max_input, "max_input", _RANK_MESSAGE)
    g = _pool_geometry(ctx, input.shape, ksize, strides, padding, _NHWC)
    return [max_pool_nhwc(input.view(integer_type(T)), g, ctx.device).view(T.as_numpy_dtype), low, high]


# -- QuantizedReluX -----------------------------------------------------------------------------------------

QuantizedReluX = Op("QuantizedReluX",
                    inputs=["features: Tinput", "max_value: float", "min_features: float", "max_features: float"],
                    outputs=["activations: out_type", "min_activations: float", "max_activations: float"],
                    attrs=[f"Tinput: {_QUANTIZED}", f"out_type: {_QUANTIZED} = DT_QUINT8"])


_RELU_TYPES = [dtypes.quint8, dtypes.qint32]


@QuantizedReluX.shape
def _quantized_relu_x_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _scalar_ranges_shape(ctx, 1)
    return [ctx.input_shape(0), tensor_shape.scalar(), tensor_shape.scalar()]


@QuantizedReluX.kernel("CPU", type_constraints={"Tinput": _RELU_TYPES, "out_type": _RELU_TYPES})
def _quantized_relu_x(ctx: OpKernelContext, features: Any, max_value: Any, min_features: Any, max_features: Any,
                      Tinput: dtypes.DType, out_type: dtypes.DType) -> list:  # noqa: N803
    """The features clamped to the levels of 0.0 and max_value in their own range (TF's reference kernel, which
    keeps the input's type: it exists where out_type is Tinput)."""
    if out_type != Tinput:
        raise no_kernel_registered(ctx)
    message = "{name} must be rank 0 but is rank {rank}"
    low = _scalar_range(ctx, min_features, "min_features", message)
    high = _scalar_range(ctx, max_features, "max_features", message)
    ceiling = _scalar_range(ctx, max_value, "max_value", message)
    levels = features.view(integer_type(Tinput))
    clamped = np.clip(levels, _float_to_quantized(0.0, low, high, Tinput),
                      _float_to_quantized(float(ceiling), low, high, Tinput))
    return [clamped.astype(levels.dtype).view(Tinput.as_numpy_dtype), low, high]


# -- QuantizedConv2D ----------------------------------------------------------------------------------------

QuantizedConv2D = Op("QuantizedConv2D",
                     inputs=["input: Tinput", "filter: Tfilter", "min_input: float", "max_input: float",
                             "min_filter: float", "max_filter: float"],
                     outputs=["output: out_type", "min_output: float", "max_output: float"],
                     attrs=[f"Tinput: {_QUANTIZED}", f"Tfilter: {_QUANTIZED}", f"out_type: {_QUANTIZED} = DT_QINT32",
                            "strides: list(int)", "padding: {'SAME', 'VALID'}", "dilations: list(int) = [1, 1, 1, 1]"])


@QuantizedConv2D.shape
def _quantized_conv2d_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    output = _conv2d_shape(ctx)
    _scalar_ranges_shape(ctx, 2)
    return [*output, tensor_shape.scalar(), tensor_shape.scalar()]


@QuantizedConv2D.kernel("CPU", expensive=True,
                        type_constraints={"Tinput": [dtypes.quint8], "Tfilter": [dtypes.quint8],
                                          "out_type": [dtypes.qint32]})
def _quantized_conv2d(ctx: OpKernelContext, input: Any, filter: Any, min_input: Any, max_input: Any,  # noqa: A002
                      min_filter: Any, max_filter: Any, Tinput: dtypes.DType, Tfilter: dtypes.DType,  # noqa: N803
                      out_type: dtypes.DType, strides: list, padding: Any, dilations: list) -> list:
    """Sum((input - input level of 0.0) * (filter - filter level of 0.0)) over each window, exactly; one output
    level is the product of one input level and one filter level."""
    message = "{name} must be rank 0 but is rank {rank}"
    ranges = [_scalar_range(ctx, value, name, message) for value, name in
              ((min_input, "min_input"), (max_input, "max_input"), (min_filter, "min_filter"),
               (max_filter, "max_filter"))]
    if len(strides) != 4 or strides[0] != 1 or strides[3] != 1:
        raise invalid_argument(ctx, "Current implementation does not yet support strides in the batch and depth "
                                    "dimensions.")
    if strides[1] != strides[2]:
        raise invalid_argument(ctx, "Current implementation only supports equal length strides in the row and "
                                    "column dimensions.")
    if list(dilations) != [1, 1, 1, 1]:
        raise invalid_argument(ctx, "Current implementation only supports dilated rate as 1 in the row and column "
                                    "dimensions.")
    if input.ndim == 4 and filter.ndim == 4 and input.shape[3] != filter.shape[2]:
        raise invalid_argument(ctx, f"input and filter must have the same depth: {input.shape[3]} vs "
                                    f"{filter.shape[2]}")
    g: ConvGeometry = _conv_geometry(ctx, input.shape, filter.shape, strides, padding, [], "NHWC", dilations,
                                     "QuantizedConv2D")
    input_zero = _float_to_quantized(0.0, ranges[0], ranges[1], Tinput, clamp=False)
    filter_zero = _float_to_quantized(0.0, ranges[2], ranges[3], Tfilter, clamp=False)
    x = input.view(integer_type(Tinput)).astype(np.float64) - input_zero
    f = filter.view(integer_type(Tfilter)).astype(np.float64) - filter_zero
    sums = np.rint(conv_forward(x, f, g, ctx.device))  # exact: every partial sum is an integer below 2**53
    lowest, highest, _ = _levels(out_type)
    output = np.clip(sums, lowest, highest).astype(integer_type(out_type)).view(out_type.as_numpy_dtype)
    level = np.float32(_level_width(ranges[0], ranges[1], Tinput) * _level_width(ranges[2], ranges[3], Tfilter))
    return [output, np.float32(level * np.float32(lowest)), np.float32(level * np.float32(highest))]


def _level_width(low: np.float32, high: np.float32, quantized: dtypes.DType) -> np.float32:
    """TF's FloatForOneQuantizedLevel: the float span of one level."""
    lowest, highest, _ = _levels(quantized)
    return np.float32((high - low) / np.float32(highest - lowest))


@tf_export("quantization.quantized_concat", "quantized_concat")
def quantized_concat(concat_dim: Any, values: Any, input_mins: Any, input_maxes: Any,
                     name: str | None = None) -> Any:
    """Quantized tensors joined along `concat_dim`, each requantized into the range that holds all of theirs."""
    return QuantizedConcat(concat_dim, values, input_mins, input_maxes, name=name)


@tf_export("nn.quantized_avg_pool")
def quantized_avg_pool(input: Any, min_input: Any, max_input: Any, ksize: Any, strides: Any,  # noqa: A002
                       padding: str, name: str | None = None) -> Any:
    """The average pool of quantized NHWC levels (the range passes through)."""
    return QuantizedAvgPool(input, min_input, max_input, ksize=ksize, strides=strides, padding=padding, name=name)


@tf_export("nn.quantized_max_pool")
def quantized_max_pool(input: Any, min_input: Any, max_input: Any, ksize: Any, strides: Any,  # noqa: A002
                       padding: str, name: str | None = None) -> Any:
    """The max pool of quantized NHWC levels (the range passes through)."""
    return QuantizedMaxPool(input, min_input, max_input, ksize=ksize, strides=strides, padding=padding, name=name)


@tf_export("nn.quantized_relu_x")
def quantized_relu_x(features: Any, max_value: Any, min_features: Any, max_features: Any,
                     out_type: Any = dtypes.quint8, name: str | None = None) -> Any:
    """Quantized features clamped to [0, max_value] (as levels of their range)."""
    return QuantizedReluX(features, max_value, min_features, max_features, out_type=out_type, name=name)


@tf_export("nn.quantized_conv2d")
def quantized_conv2d(input: Any, filter: Any, min_input: Any, max_input: Any, min_filter: Any,  # noqa: A002
                     max_filter: Any, strides: Any, padding: str, out_type: Any = dtypes.qint32,
                     dilations: Any = [1, 1, 1, 1], name: str | None = None) -> Any:  # noqa: B006
    """The 2-D convolution of quantized NHWC input with a quantized filter, as qint32 levels and their range."""
    return QuantizedConv2D(input, filter, min_input, max_input, min_filter, max_filter, strides=strides,
                           padding=padding, out_type=out_type, dilations=dilations, name=name)
