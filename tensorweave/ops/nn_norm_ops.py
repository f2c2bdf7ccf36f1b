"""Normalization: FusedBatchNormV3 and FusedBatchNormGradV3 (`tf.nn.fused_batch_norm`), LRN and LRNGrad
(`tf.nn.local_response_normalization`), and the composites batch_norm_with_global_normalization,
sufficient_statistics, normalize_moments and weighted_moments.

The fused batch norm kernels compute in the float type U (half and bfloat16 inputs are widened, the output
rounded once), over every axis but the channel one, as TF's CPU kernels: training normalizes by the batch's
biased variance and reports the unbiased one (Bessel's correction), blended with the running statistics by
`exponential_avg_factor`; reserve spaces 1 and 2 keep the batch mean and biased variance for the gradient.
LRN sums squares over a window of channels with a cumulative sum, so no loop walks the channels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.tensor_shape import dimension_value
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    elementwise_ops,
    fill_ops,
    gradients,
    indexing_ops,
    manipulation_ops,
    reduction_ops,
    shape_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.nn_ops import batch_normalization
from tensorweave.ops.reduction_ops import _deprecated_alias
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export

# -- FusedBatchNormV3, FusedBatchNormGradV3 -------------------------------------------------------------

_FORMATS = "data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'"
FusedBatchNormV3 = Op(
    "FusedBatchNormV3", inputs=["x: T", "scale: U", "offset: U", "mean: U", "variance: U"],
    outputs=["y: T", "batch_mean: U", "batch_variance: U", "reserve_space_1: U", "reserve_space_2: U",
             "reserve_space_3: U"],
    attrs=["T: {half, bfloat16, float}", "U: {bfloat16, float}", "epsilon: float = 0.0001",
           "exponential_avg_factor: float = 1", _FORMATS, "is_training: bool = true"])
FusedBatchNormGradV3 = Op(
    "FusedBatchNormGradV3",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U", "reserve_space_2: U",
            "reserve_space_3: U"],
    outputs=["x_backprop: T", "scale_backprop: U", "offset_backprop: U", "reserve_space_4: U", "reserve_space_5: U"],
    attrs=["T: {half, bfloat16, float}", "U: {float}", "epsilon: float = 0.0001", _FORMATS,
           "is_training: bool = true"])


def _format(data_format: Any) -> str:
    return data_format.decode() if isinstance(data_format, bytes) else data_format


def _layout(data_format: Any) -> tuple[int, int]:
    """(rank, channel axis) of a data format."""
    data_format = _format(data_format)
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    return rank, 1 if data_format.startswith("NC") else rank - 1


def _merge_dim(a: int | None, b: int | None) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _channel_shapes(ctx: InferenceContext, x_index: int, vectors: range) -> tuple[list, int | None]:
    """x's dimensions and the channel count, merged with each 1-D input in `vectors`, as TF's shape fn."""
    rank, channel = _layout(ctx.attr("data_format"))
    x = with_rank(ctx.input_shape(x_index), rank)
    dims = x.as_list() if x.ndims is not None else [None] * rank
    depth = dims[channel]
    for i in vectors:
        depth = _merge_dim(depth, with_rank(ctx.input_shape(i), 1).dims[0].value)
    dims[channel] = depth
    return dims, depth


@FusedBatchNormV3.shape
def _fused_batch_norm_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """y as x with the channel merged with scale and offset (and mean and variance, which training with
    exponential_avg_factor 1 does not read); five channel vectors; reserve_space_3 unknown."""
    last = 3 if ctx.attr("is_training") and ctx.attr("exponential_avg_factor") == 1 else 5
    dims, depth = _channel_shapes(ctx, 0, range(1, last))
    return [tensor_shape.TensorShape(dims), *[tensor_shape.TensorShape([depth])] * 4, tensor_shape.unknown_shape()]


@FusedBatchNormGradV3.shape
def _fused_batch_norm_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    rank, _ = _layout(ctx.attr("data_format"))
    x = with_rank(ctx.input_shape(1), rank).merge_with(with_rank(ctx.input_shape(0), rank))
    ctx_dims, depth = _channel_shapes(ctx, 1, range(2, 5))
    dims = x.as_list() if x.ndims is not None else ctx_dims
    dims[_layout(ctx.attr("data_format"))[1]] = depth
    return [tensor_shape.TensorShape(dims), tensor_shape.TensorShape([depth]), tensor_shape.TensorShape([depth]),
            tensor_shape.TensorShape([0]), tensor_shape.TensorShape([0])]


def _check_batch_norm_inputs(ctx: OpKernelContext, x: Any, data_format: Any, vectors: dict[str, Any]) -> int:
    """TF's runtime checks of x's rank and the 1-D inputs; returns x's channel axis."""
    rank, channel = _layout(data_format)
    if x.ndim != rank:
        raise invalid_argument(ctx, f"input must be {rank}-dimensional[{','.join(map(str, x.shape))}]")
    for name, value in vectors.items():
        if value.ndim != 1:
            raise invalid_argument(ctx, f"{name} must be 1-dimensional[{','.join(map(str, value.shape))}]")
    for name, value in vectors.items():
        if name in ("scale", "offset") and value.size != x.shape[channel]:
            raise invalid_argument(ctx, f"{name} must have the same number of elements as the channels of x, got "
                                   f"{value.size} and {x.shape[channel]}")
    return channel


def _per_channel(value: Any, x: Any, channel: int) -> Any:
    """A channel vector shaped to broadcast against x."""
    return value.reshape((-1,) + (1,) * (x.ndim - 1 - channel))


@FusedBatchNormV3.kernel("CPU")
def _fused_batch_norm(ctx: OpKernelContext, x: Any, scale: Any, offset: Any, mean: Any, variance: Any,
                      epsilon: float, exponential_avg_factor: float, data_format: Any, is_training: bool) -> tuple:
    xp = ctx.xp
    channel = _check_batch_norm_inputs(ctx, x, data_format, {"scale": scale, "offset": offset, "mean": mean,
                                                             "variance": variance})
    depth = x.shape[channel]
    if not is_training or exponential_avg_factor != 1:
        prefix = "When exponential_avg_factor != 1" if is_training else "When is_training=false"
        for name, value in (("mean", mean), ("variance", variance)):
            if value.size != depth:
                raise invalid_argument(ctx, f"{prefix}, {name} must have the same number of elements as the "
                                       f"channels of x, got {value.size} and {depth}")
    u = scale.dtype
    wide = x.astype(u)
    axes = tuple(i for i in range(x.ndim) if i != channel)
    if is_training:
        batch_mean = xp.mean(wide, axis=axes, dtype=u)
        centered = wide - _per_channel(batch_mean, x, channel)
        batch_var = xp.mean(xp.square(centered), axis=axes, dtype=u)
    else:
        batch_mean, batch_var = mean, variance
        centered = wide - _per_channel(mean, x, channel)
    factor = (1 / xp.sqrt(batch_var + u.type(epsilon)) * scale).astype(u)
    y = (centered * _per_channel(factor, x, channel) + _per_channel(offset, x, channel)).astype(x.dtype)
    empty = xp.zeros(0, u)
    if not is_training:
        return y, mean, variance, mean, variance, empty
    count = x.size // max(depth, 1)
    unbiased = batch_var * u.type(count / (count - 1) if count > 1 else 1)
    if exponential_avg_factor == 1:
        return y, batch_mean, unbiased, batch_mean, batch_var, empty
    keep, blend = u.type(1 - exponential_avg_factor), u.type(exponential_avg_factor)
    return (y, keep * mean + blend * batch_mean, keep * variance + blend * unbiased, batch_mean, batch_var, empty)


@FusedBatchNormGradV3.kernel("CPU")
def _fused_batch_norm_grad(ctx: OpKernelContext, y_backprop: Any, x: Any, scale: Any, reserve_space_1: Any,
                           reserve_space_2: Any, reserve_space_3: Any, epsilon: float, data_format: Any,
                           is_training: bool) -> tuple:
    """The batch statistics' gradient in training; with frozen statistics (inference) the affine map's."""
    xp = ctx.xp
    channel = _check_batch_norm_inputs(ctx, x, data_format, {"scale": scale, "reserve_space_1": reserve_space_1,
                                                             "reserve_space_2": reserve_space_2})
    if y_backprop.ndim != x.ndim:
        raise invalid_argument(ctx, f"y_backprop must be {x.ndim}-dimensional"
                               f"[{','.join(map(str, y_backprop.shape))}]")
    u = scale.dtype
    axes = tuple(i for i in range(x.ndim) if i != channel)
    dy, wide = y_backprop.astype(u), x.astype(u)
    inv_std = (1 / xp.sqrt(reserve_space_2 + u.type(epsilon))).astype(u)
    centered = wide - _per_channel(reserve_space_1, x, channel)
    offset_backprop = xp.sum(dy, axis=axes, dtype=u)
    scale_backprop = xp.sum(dy * centered, axis=axes, dtype=u) * inv_std
    if is_training:
        count = u.type(x.size // max(x.shape[channel], 1))
        mean_dy = _per_channel(offset_backprop / count, x, channel)
        mean_dy_centered = _per_channel(scale_backprop / inv_std / count, x, channel)
        inner = dy - mean_dy - centered * mean_dy_centered * _per_channel(inv_std * inv_std, x, channel)
        x_backprop = inner * _per_channel(scale * inv_std, x, channel)
    else:
        x_backprop = dy * _per_channel(scale * inv_std, x, channel)
    placeholder = xp.zeros((), u)
    return x_backprop.astype(x.dtype), scale_backprop.astype(u), offset_backprop, placeholder, placeholder


@FusedBatchNormV3.gradient
def _fused_batch_norm_grad_fn(op: Any, grad_y: Tensor, *unused_grads: Any) -> list:
    """TF's: training reads the saved batch statistics; inference the population ones, in NHWC/NDHWC."""
    x, scale = op.inputs[0], op.inputs[1]
    data_format = _format(op.get_attr("data_format"))
    attrs = {"epsilon": op.get_attr("epsilon"), "is_training": op.get_attr("is_training")}
    if op.get_attr("is_training"):
        dx, dscale, doffset, _, _ = FusedBatchNormGradV3(grad_y, x, scale, op.outputs[3], op.outputs[4],
                                                         op.outputs[5], data_format=data_format, **attrs)
        return [dx, dscale, doffset, None, None]
    rank = 5 if data_format in ("NDHWC", "NCDHW") else 4
    channels_first = data_format.startswith("NC")
    if channels_first:
        to_last = [0, *range(2, rank), 1]
        x, grad_y = manipulation_ops.transpose(x, to_last), manipulation_ops.transpose(grad_y, to_last)
    dx, dscale, doffset, _, _ = FusedBatchNormGradV3(grad_y, x, scale, op.inputs[3], op.inputs[4], op.outputs[5],
                                                     data_format="NHWC" if rank == 4 else "NDHWC", **attrs)
    if channels_first:
        dx = manipulation_ops.transpose(dx, [0, rank - 1, *range(1, rank - 1)])
    return [dx, dscale, doffset, None, None]


def _batch_norm_grad(grad_y: Tensor, x: Tensor, scale: Tensor, pop_mean: Tensor, pop_var: Tensor, epsilon: float,
                     data_format: str, is_training: bool) -> tuple[Tensor, Tensor, Tensor]:
    """FusedBatchNormGradV3's outputs composed of differentiable ops (TF's _BatchNormGrad), so that its own
    gradient is theirs: the second derivative of a fused batch norm."""
    x_dtype = x.dtype.base_dtype
    if x_dtype in (dtypes.float16, dtypes.bfloat16):
        x, grad_y = cast_ops.cast(x, dtypes.float32), cast_ops.cast(grad_y, dtypes.float32)
    rank, channel = _layout(data_format)
    axes = [i for i in range(rank) if i != channel]
    channels_first = channel == 1
    shape = [1, -1] + [1] * (rank - 2)
    if is_training:
        if channels_first:
            scale = shape_ops.reshape(scale, [1, shape_ops.size(scale)] + [1] * (rank - 2))
        mean_grad_y = reduction_ops.reduce_mean(grad_y, axes, keepdims=channels_first)
        mean_x = reduction_ops.reduce_mean(x, axes, keepdims=channels_first)
        var_x = reduction_ops.reduce_mean(
            elementwise_ops.squared_difference(x, manipulation_ops.stop_gradient(mean_x)), axes,
            keepdims=channels_first)
        x_offset = x - mean_x
        mean = reduction_ops.reduce_mean(grad_y * x_offset, axis=axes, keepdims=channels_first)
        grad_x = scale * elementwise_ops.rsqrt(var_x + epsilon) * (
            (grad_y - mean_grad_y) - elementwise_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        grad_scale = elementwise_ops.rsqrt(var_x + epsilon) * reduction_ops.reduce_sum(
            grad_y * x_offset, axis=axes, keepdims=channels_first)
        if channels_first:
            grad_scale = shape_ops.squeeze(grad_scale)
    else:
        if channels_first:
            shape = [1, shape_ops.size(pop_mean)] + [1] * (rank - 2)
            pop_mean, pop_var = shape_ops.reshape(pop_mean, shape), shape_ops.reshape(pop_var, shape)
            scale = shape_ops.reshape(scale, shape)
        var_rsqrt = elementwise_ops.rsqrt(pop_var + epsilon)
        grad_scale = reduction_ops.reduce_sum(grad_y * (x - pop_mean) * var_rsqrt, axis=axes)
        grad_x = grad_y * scale * var_rsqrt
    grad_offset = reduction_ops.reduce_sum(grad_y, axis=axes)
    return cast_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


@FusedBatchNormGradV3.gradient
def _fused_batch_norm_grad_grad(op: Any, grad_grad_x: Tensor, grad_grad_scale: Tensor, grad_grad_offset: Tensor,
                                *unused_grads: Any) -> list:
    """TF's _FusedBatchNormGradGradV3: the gradients of the composed batch norm gradient, weighted by the
    incoming ones (to grad_y, x and scale; none to the saved statistics)."""
    # Sources cut from the graph before them, as TF's tape sees only the ops it records: grad_y itself
    # depends on x, and that path is the outer gradient's business.
    grad_y, x, scale = (manipulation_ops.stop_gradient(t) for t in op.inputs[:3])
    outputs = _batch_norm_grad(grad_y, x, scale, op.inputs[3], op.inputs[4], op.get_attr("epsilon"),
                               _format(op.get_attr("data_format")), op.get_attr("is_training"))
    pairs = [(out, g) for out, g in zip(outputs, (grad_grad_x, grad_grad_scale, grad_grad_offset), strict=True)
             if g is not None]
    grads = gradients.gradients([out for out, _ in pairs], [grad_y, x, scale], grad_ys=[g for _, g in pairs])
    return [*grads, None, None, None]


@tf_export("nn.fused_batch_norm")
def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC", is_training: bool = True,
                     name: str | None = None, exponential_avg_factor: float = 1.0) -> tuple[Tensor, Tensor, Tensor]:
    """Batch normalization of a 4-D or 5-D `x` in one op: (y, batch or running mean, variance). Training
    without running statistics passes empty `mean` and `variance`, as TF."""
    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
                         f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant_ops.constant([])
    if variance is None:
        variance = constant_ops.constant([])
    y, running_mean, running_var, _, _, _ = FusedBatchNormV3(
        x, scale, offset, mean, variance, epsilon=epsilon, exponential_avg_factor=exponential_avg_factor,
        data_format=data_format, is_training=is_training, name=name)
    return y, running_mean, running_var


@tf_export("nn.batch_norm_with_global_normalization")
def batch_norm_with_global_normalization(t: Any = None, m: Any = None, v: Any = None, beta: Any = None,
                                         gamma: Any = None, variance_epsilon: Any = None,
                                         scale_after_normalization: Any = None, name: str | None = None,
                                         input: Any = None, mean: Any = None,  # noqa: A002
                                         variance: Any = None) -> Tensor:
    """TF1's batch norm with given statistics: batch_normalization, `gamma` applied only when
    `scale_after_normalization` (`input`, `mean`, `variance` are the newer names of `t`, `m`, `v`)."""
    t = _deprecated_alias("input", input, "t", t)
    m = _deprecated_alias("mean", mean, "m", m)
    v = _deprecated_alias("variance", variance, "v", v)
    return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, variance_epsilon,
                               name)

# -- Moments from sufficient statistics -----------------------------------------------------------------


@tf_export("nn.sufficient_statistics")
def sufficient_statistics(x: Any, axes: Any, shift: Any = None, keep_dims: Any = None, name: str | None = None,
                          keepdims: Any = None) -> tuple:
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over `axes`: the count is a constant when the
    reduced dimensions are known."""
    axes = list(set(axes))
    keep = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        x_shape = x.shape
        if x_shape.ndims is not None and all(dimension_value(x_shape[d]) is not None for d in axes):
            counts: Any = 1
            for d in axes:
                counts *= dimension_value(x_shape[d])
            counts = constant_ops.constant(counts, dtype=x.dtype)
        else:
            rank = shape_ops.rank(x)
            positive_axes = [axis + rank if axis < 0 else axis for axis in axes]
            x_dims = indexing_ops.gather(cast_ops.cast(shape_ops.shape(x), x.dtype), positive_axes)
            counts = reduction_ops.reduce_prod(x_dims, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, name="shift")
            m_ss, v_ss = elementwise_ops.subtract(x, shift), elementwise_ops.squared_difference(x, shift)
        else:
            m_ss, v_ss = x, elementwise_ops.square(x)
        m_ss = reduction_ops.reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss")
        v_ss = reduction_ops.reduce_sum(v_ss, axes, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


@tf_export("nn.normalize_moments")
def normalize_moments(counts: Any, mean_ss: Any, variance_ss: Any, shift: Any, name: str | None = None) -> tuple:
    """Mean and variance from sufficient statistics (the inverse of `sufficient_statistics`)."""
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = elementwise_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = elementwise_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = elementwise_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = elementwise_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = elementwise_ops.subtract(elementwise_ops.multiply(variance_ss, divisor),
                                            elementwise_ops.square(shifted_mean), name="variance")
    return mean, variance


@tf_export("nn.weighted_moments")
def weighted_moments(x: Any, axes: Any, frequency_weights: Any, name: str | None = None, keep_dims: Any = None,
                     keepdims: Any = None) -> tuple[Tensor, Tensor]:
    """Frequency-weighted mean and variance over `axes` (0 where the weights sum to 0); float16 in float32."""
    keep = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        frequency_weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        half = x.dtype == dtypes.float16
        if half:
            x = cast_ops.cast(x, dtypes.float32)
        if frequency_weights.dtype != x.dtype:
            frequency_weights = cast_ops.cast(frequency_weights, x.dtype)
        weighted_input_sum = reduction_ops.reduce_sum(frequency_weights * x, axes, name="weighted_input_sum",
                                                      keepdims=True)
        broadcasted_weights = frequency_weights + fill_ops.zeros_like(x)
        sum_of_weights = reduction_ops.reduce_sum(broadcasted_weights, axes, name="sum_of_weights", keepdims=True)
        weighted_mean = elementwise_ops.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = reduction_ops.reduce_sum(
            frequency_weights * elementwise_ops.squared_difference(x, weighted_mean), axes, name="weighted_distsq",
            keepdims=True)
        weighted_variance = elementwise_ops.div_no_nan(weighted_distsq, sum_of_weights)
        if not keep:
            weighted_mean = shape_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = shape_ops.squeeze(weighted_variance, axis=axes)
        if half:
            weighted_mean = cast_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = cast_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance

# -- LRN, LRNGrad ---------------------------------------------------------------------------------------

_LRN_ATTRS = ["depth_radius: int = 5", "bias: float = 1", "alpha: float = 1", "beta: float = 0.5",
              "T: {half, bfloat16, float} = DT_FLOAT"]
LRN = Op("LRN", inputs=["input: T"], outputs=["output: T"], attrs=_LRN_ATTRS)
LRNGrad = Op("LRNGrad", inputs=["input_grads: T", "input_image: T", "output_image: T"], outputs=["output: T"],
             attrs=_LRN_ATTRS)


@LRN.shape
def _lrn_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [with_rank(ctx.input_shape(0), 4)]


@LRNGrad.shape
def _lrn_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = with_rank(ctx.input_shape(0), 4)
    for i in (1, 2):
        shape = shape.merge_with(with_rank(ctx.input_shape(i), 4))
    return [shape]


def _window_sums(xp: Any, values: Any, radius: int) -> Any:
    """Sums over the channels d - radius .. d + radius (clipped at the ends) of the last axis."""
    depth = values.shape[-1]
    padded = xp.concatenate([xp.zeros(values.shape[:-1] + (1,), values.dtype), xp.cumsum(values, axis=-1)], axis=-1)
    upper = xp.minimum(xp.arange(depth) + radius + 1, depth)
    lower = xp.maximum(xp.arange(depth) - radius, 0)
    return padded[..., upper] - padded[..., lower]


def _lrn_norm(ctx: OpKernelContext, image: Any, depth_radius: int, bias: float, alpha: float) -> Any:
    if not 0 <= depth_radius < 2 ** 31 - 1:  # TF's kernel constructors bound the attr as an int
        raise invalid_argument(ctx, f"depth_radius = {depth_radius} larger than int max")
    if image.ndim != 4:
        raise invalid_argument(ctx, "in must be 4-dimensional")
    wide = image.astype(np.float32)
    return np.float32(bias) + np.float32(alpha) * _window_sums(ctx.xp, wide * wide, depth_radius)


# TF registers LRN and LRNGrad on CPU for half and float only (no bfloat16 or double kernel)
_LRN_CPU_TYPES = {"T": (dtypes.float16, dtypes.float32)}


@LRN.kernel("CPU", type_constraints=_LRN_CPU_TYPES)
def _lrn(ctx: OpKernelContext, input: Any, depth_radius: int, bias: float, alpha: float,  # noqa: A002
         beta: float) -> Any:
    norm = _lrn_norm(ctx, input, depth_radius, bias, alpha)
    return (input.astype(np.float32) * norm ** np.float32(-beta)).astype(input.dtype)


@LRNGrad.kernel("CPU", type_constraints=_LRN_CPU_TYPES)
def _lrn_grad(ctx: OpKernelContext, input_grads: Any, input_image: Any, output_image: Any, depth_radius: int,
              bias: float, alpha: float, beta: float) -> Any:
    """d in_j = g_j norm_j^-beta - 2 alpha beta in_j * sum over the windows i holding j of g_i out_i / norm_i."""
    if input_grads.shape != input_image.shape or input_grads.shape != output_image.shape:
        raise invalid_argument(ctx, "All input shapes must be the same")
    norm = _lrn_norm(ctx, input_image, depth_radius, bias, alpha)
    grads, image, out = (a.astype(np.float32) for a in (input_grads, input_image, output_image))
    cross = _window_sums(ctx.xp, grads * out / norm, depth_radius)
    result = grads * norm ** np.float32(-beta) - np.float32(2 * alpha * beta) * image * cross
    return result.astype(input_image.dtype)


@LRN.gradient
def _lrn_grad_fn(op: Any, grad: Tensor) -> list:
    attrs = {name: op.get_attr(name) for name in ("depth_radius", "bias", "alpha", "beta")}
    return [LRNGrad(grad, op.inputs[0], op.outputs[0], **attrs)]


@tf_export("nn.local_response_normalization", "nn.lrn")
def local_response_normalization(input: Any, depth_radius: int = 5, bias: float = 1, alpha: float = 1,  # noqa: A002
                                 beta: float = 0.5, name: str | None = None) -> Tensor:
    """input / (bias + alpha * sum of squares over 2 * depth_radius + 1 channels) ** beta, on a 4-D input."""
    return LRN(input, depth_radius=depth_radius, bias=bias, alpha=alpha, beta=beta, name=name)
