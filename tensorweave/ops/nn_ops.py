"""Neural-network ops: activations, softmax, BiasAdd, the cross-entropy losses, L2Loss, dropout, and the
composites l2_normalize, moments, batch_normalization, xw_plus_b, relu_layer, log_sigmoid and the global-norm
clipping (global_norm, clip_by_global_norm).

Kernels compute softmax and cross entropy from logits shifted by their row maximum, so no exponential
overflows; the public wrappers compose the same graphs as TF's (`tf.nn.softmax` on a non-last axis
transposes around the op, the losses flatten to the 2-D ops and reshape back).
"""

from __future__ import annotations

import collections.abc
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, random_seed, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, colocate_with, convert_to_tensor, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    linalg_ops,
    manipulation_ops,
    random_ops,
    reduction_ops,
    sequence_ops,
    shape_helpers,
    shape_ops,
)
from tensorweave.ops.elementwise_ops import eigen_extremum, unary_op
from tensorweave.ops.kernel_helpers import BFLOAT16, EIGEN_BFLOAT16_PACKET, flush_denormals, in_float32
from tensorweave.ops.reduction_ops import (
    _deprecated_alias,
    eigen_order_sum,
    leading_row_sum,
    leading_row_sum_applies,
)
from tensorweave.platform.tf_export import tf_export

_FLOAT = "{half, bfloat16, float, double}"
_SELU_SCALE_ALPHA = 1.7580993408473768599402175208123  # scale * alpha, as TF writes it
_SELU_SCALE = 1.0507009873554804934193349852946


def _activation(name: str, types: str, fn: Any) -> Op:
    """An elementwise activation: TF names its argument `features` and its result `activations`."""
    return unary_op(name, types, fn, arg="features", result="activations")


_max, _min = eigen_extremum(np.maximum), eigen_extremum(np.minimum)


def _relu(x: Any, out: Any = None) -> Any:
    """max(x, 0) tied as TF's kernel ties (relu(-0.0) is -0.0 in its scalar tail only)."""
    return _max(x, x.dtype.type(0), out=out)


def _relu6(x: Any) -> Any:
    return _min(_relu(x), x.dtype.type(6))


def _elu(x: Any) -> Any:
    """exp(x) - 1 below 0, as TF's kernel computes it (not expm1: tiny negative x give 0, as TF's)."""
    return np.where(x < 0, np.exp(x) - 1, x)


def _selu(x: Any) -> Any:
    """TF's kernel: scale * alpha * (exp(x) - 1) below 0, scale * x elsewhere, the constants in x's type."""
    scale, scale_alpha = x.dtype.type(_SELU_SCALE), x.dtype.type(_SELU_SCALE_ALPHA)
    return np.where(x < 0, scale_alpha * (np.exp(x) - 1), scale * x)


# Eigen's NumTraits<T>::epsilon(), which TF's softplus thresholds use (for half it is 2**-13, not 2**-10).
_EIGEN_EPSILON = {"float16": 2.0 ** -13, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23, "float64": 2.0 ** -52}


def _softplus(x: Any) -> Any:
    """TF's kernel: x above -threshold, exp(x) below threshold, else log1p(exp(x)), where threshold is
    log(epsilon) + 2 in x's type (so exp never overflows)."""
    threshold = x.dtype.type(np.log(_EIGEN_EPSILON[x.dtype.name])) + x.dtype.type(2)
    with np.errstate(over="ignore"):
        exp = np.exp(x)
    return np.where(x > -threshold, x, np.where(x < threshold, exp, np.log1p(exp)))


def _softsign(x: Any) -> Any:
    return x / (1 + np.abs(x))


Relu = _activation("Relu", "{realnumbertype, qint8}", _relu)
Relu6 = _activation("Relu6", "realnumbertype", _relu6)
Elu = _activation("Elu", _FLOAT, _elu)
Selu = _activation("Selu", _FLOAT, _selu)
Softplus = _activation("Softplus", _FLOAT, flush_denormals(_softplus))
Softsign = _activation("Softsign", _FLOAT, _softsign)
LeakyRelu = Op("LeakyRelu", inputs=["features: T"], outputs=["activations: T"],
               attrs=["alpha: float = 0.2", f"T: {_FLOAT} = DT_FLOAT"])
LeakyRelu.shape(shape_helpers.unary_shape)


@LeakyRelu.kernel("CPU")
def _leaky_relu(ctx: OpKernelContext, features: Any, alpha: float) -> Any:
    return _leaky(features, alpha)


def _leaky(x: Any, alpha: float) -> Any:
    return np.where(x < 0, x * x.dtype.type(alpha), x)


@tf_export("nn.relu")
def relu(features: Any, name: str | None = None) -> Tensor:
    """max(features, 0)."""
    return Relu(features, name=name)


@tf_export("nn.relu6")
def relu6(features: Any, name: str | None = None) -> Tensor:
    """min(max(features, 0), 6)."""
    return Relu6(features, name=name)


@tf_export("nn.elu")
def elu(features: Any, name: str | None = None) -> Tensor:
    """exp(features) - 1 where negative, features elsewhere."""
    return Elu(features, name=name)


@tf_export("nn.selu")
def selu(features: Any, name: str | None = None) -> Tensor:
    """The scaled ELU of Klambauer et al. (2017)."""
    return Selu(features, name=name)


@tf_export("math.softplus", "nn.softplus")
def softplus(features: Any, name: str | None = None) -> Tensor:
    """log(exp(features) + 1)."""
    return Softplus(features, name=name)


@tf_export("math.softsign", "nn.softsign")
def softsign(features: Any, name: str | None = None) -> Tensor:
    """features / (|features| + 1)."""
    return Softsign(features, name=name)


@tf_export("math.log_sigmoid", "log_sigmoid")
def log_sigmoid(x: Any, name: str | None = None) -> Tensor:
    """`tf.math.log_sigmoid`: log(sigmoid(x)), composed as TF does, -softplus(-x)."""
    with name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return elementwise_ops.Neg(Softplus(-x), name=scope)


@tf_export("nn.leaky_relu")
def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """alpha * features where negative, features elsewhere; integer inputs are cast to float32 first."""
    with name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = cast_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return LeakyRelu(features, alpha=alpha, name=scope)

# -- Softmax, LogSoftmax -----------------------------------------------------------------------------


def _pairwise_row_sums(xp: Any, values: Any) -> Any:
    """Sums along the last axis (kept) by adding neighbours level by level, each sum rounded to the
    values' type: how TF's kernel sums half-precision rows (NumPy would accumulate them in float32)."""
    while values.shape[-1] > 1:
        even = values.shape[-1] // 2 * 2
        values = xp.concatenate([values[..., :even:2] + values[..., 1:even:2], values[..., even:]], axis=-1)
    return values


def _bfloat16_row_sums(values: Any) -> Any:
    """Sums along the last axis (kept) as Eigen reduces a bfloat16 row on x86: 8-wide packets added lane by
    lane in bfloat16, the leftover tail one by one, then the lanes summed in float32 and added to the tail
    (ml_dtypes' reductions round every step, in that order)."""
    packed = values.shape[-1] // EIGEN_BFLOAT16_PACKET * EIGEN_BFLOAT16_PACKET
    lanes = values[..., :packed].reshape(values.shape[:-1] + (-1, EIGEN_BFLOAT16_PACKET))
    lane_sums = np.add.reduce(lanes, axis=-2).sum(axis=-1, keepdims=True, dtype=np.float32)
    tail = np.add.reduce(values[..., packed:], axis=-1, keepdims=True)
    return tail + lane_sums.astype(values.dtype)


def _shifted_rows(ctx: OpKernelContext, logits: Any) -> tuple[Any, Any, Any]:
    """The logits less their row maximum (the last axis), their exponentials (a new array the caller may
    overwrite) and the rows' sums of those, which cannot overflow; half precision and bfloat16 round every
    step, as TF's kernel does."""
    xp = ctx.xp
    shifted = logits - xp.max(logits, axis=-1, keepdims=True)
    exp = xp.exp(shifted)
    if logits.dtype == np.float16:
        return shifted, exp, _pairwise_row_sums(xp, exp)
    if logits.dtype == BFLOAT16:
        return shifted, exp, _bfloat16_row_sums(exp)
    return shifted, exp, xp.sum(exp, axis=-1, keepdims=True)


_ONEDNN_SIMD = 16  # float32 lanes of the AVX-512 vectors oneDNN's softmax kernel works in
_ONEDNN_MAX_ACCUMULATORS = 4  # vector registers its maximum pass spreads a row's vectors over


def _onednn_softmax_nonfinite_rows(rows: Any) -> Any:
    """Softmax of float32 rows (a matrix) whose maximum is NaN, +inf or -inf, as TF's x86 kernel (oneDNN's
    jit softmax) leaves them: the row's vectors are folded into up to four per-lane maxima (vector c into
    register c % 4, the last, partial vector only in its lanes), the registers combined in order and then
    across lanes by halving shuffles, every step with x86's `maxps` (a > b ? a : b, so a NaN on either side
    gives b); each element less its lane's maximum is exponentiated, NaN giving +inf, and the exponentials
    scaled by 1 / their sum. So [inf, 1, 2] -> [nan, 0, 0] and [nan, 1, 0] -> [nan, 0, 0] where the
    finite formula gives NaNs throughout; a row of -inf is all NaN."""
    batch, width = rows.shape
    full, vectors = width // _ONEDNN_SIMD, -(-width // _ONEDNN_SIMD)
    accumulators = np.full((min(_ONEDNN_MAX_ACCUMULATORS, max(full, 1)), batch, _ONEDNN_SIMD),
                           np.finfo(np.float32).min, np.float32)
    for c in range(vectors):
        vector = rows[:, c * _ONEDNN_SIMD:(c + 1) * _ONEDNN_SIMD]
        lanes = accumulators[c % len(accumulators), :, :vector.shape[1]]
        np.copyto(lanes, vector, where=~(lanes > vector))
    maxima = accumulators[0]
    for accumulator in accumulators[1:]:
        maxima = np.where(maxima > accumulator, maxima, accumulator)
    lane = np.arange(_ONEDNN_SIMD)
    for step in (8, 4, 2, 1):
        maxima = np.where(maxima > maxima[:, lane ^ step], maxima, maxima[:, lane ^ step])
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        shifted = rows - np.tile(maxima, vectors)[:, :width]
        exp = np.exp(shifted)
        exp[np.isnan(shifted)] = np.inf
        return exp * (1 / exp.sum(axis=1, keepdims=True))


def _softmax_op(name: str, output: str, from_shifted: Any, bfloat16_in_float32: bool = False,
                onednn_nonfinite_rows: bool = False) -> Op:
    """Softmax or LogSoftmax over the last axis; `bfloat16_in_float32` where TF's x86 kernel (oneDNN's)
    computes bfloat16 in float32 and rounds once, `onednn_nonfinite_rows` where float32 rows holding a NaN,
    +inf or only -inf come out as oneDNN's kernel leaves them (`_onednn_softmax_nonfinite_rows`), except
    in constant folding, which runs TF's Eigen kernel."""
    op = Op(name, inputs=["logits: T"], outputs=[f"{output}: T"], attrs=[f"T: {_FLOAT}"])

    @op.shape
    def shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        return [shape_helpers.with_rank_at_least(ctx.input_shape(0), 1)]

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, logits: Any) -> Any:
        if np.ndim(logits) == 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, "logits must have >= 1 dimension, got []")
        if logits.size == 0:
            return ctx.xp.zeros_like(logits)
        computed = in_float32(logits) if bfloat16_in_float32 else logits
        shifted, exp, sum_exp = _shifted_rows(ctx, computed)
        result = from_shifted(ctx.xp, shifted, exp, sum_exp)
        if onednn_nonfinite_rows and logits.dtype == np.float32 and ctx.xp is np and not ctx.kernel.folding:
            bad = ~np.isfinite(sum_exp[..., 0])  # a row's sum is finite (>= 1) exactly when its maximum is
            if bad.any():
                result[bad] = _onednn_softmax_nonfinite_rows(logits[bad])
        return _flushed_astype(result, logits.dtype)

    return op


_flushed_astype = flush_denormals(lambda y, dtype: y.astype(dtype))


Softmax = _softmax_op("Softmax", "softmax", lambda xp, shifted, exp, sum_exp: xp.multiply(exp, 1 / sum_exp, out=exp),
                      bfloat16_in_float32=True, onednn_nonfinite_rows=True)
LogSoftmax = _softmax_op("LogSoftmax", "logsoftmax", lambda xp, shifted, exp, sum_exp: shifted - xp.log(sum_exp))


def _swap_axis(tensor: Tensor, dim_index: Any, last_index: Tensor, name: str = "transpose") -> Tensor:
    """`tensor` with dimensions `dim_index` and `last_index` exchanged (a Transpose)."""
    perm = manipulation_ops.concat([sequence_ops.range(dim_index), [last_index], sequence_ops.range(dim_index + 1, last_index),
                             [dim_index]], 0)
    return manipulation_ops.transpose(tensor, perm, name=name)


def _softmax_on_axis(op: Op, logits: Any, axis: Any, name: str | None) -> Tensor:
    """`op` on the last axis, or transposed there and back for another axis, as TF composes it."""
    logits = convert_to_tensor(logits)
    shape = logits.shape
    if axis == -1 or axis == shape.ndims - 1:
        return op(logits, name=name)
    value = tensor_util.constant_value(axis) if isinstance(axis, Tensor) else axis
    if value is not None and not -shape.ndims <= value < shape.ndims:
        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-shape.ndims}, {shape.ndims}) where {shape.ndims} is the "
            f"number of dimensions in the input. Received: dim={value}")
    ndims = shape_ops.rank(logits)
    if not isinstance(axis, Tensor):
        if axis < 0:
            axis += ndims
    else:
        axis = elementwise_ops.where(elementwise_ops.less(axis, 0), axis + ndims, axis)
    input_rank = shape_ops.rank(logits)
    dim_axis = axis % shape.ndims
    output = op(_swap_axis(logits, dim_axis, elementwise_ops.subtract(input_rank, 1)))
    output = _swap_axis(output, dim_axis, elementwise_ops.subtract(input_rank, 1), name=name or "transpose")
    output.set_shape(shape)
    return output


@tf_export("math.softmax", "nn.softmax")
def softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    """exp(logits) normalized along `axis` (the last by default; `dim` is TF1's old name)."""
    axis = _deprecated_alias("axis", axis, "dim", dim)
    return _softmax_on_axis(Softmax, logits, -1 if axis is None else axis, name)


@tf_export("math.log_softmax", "nn.log_softmax")
def log_softmax(logits: Any, axis: Any = None, name: str | None = None, dim: Any = None) -> Tensor:
    """logits - log(sum(exp(logits))) along `axis` (the last by default)."""
    axis = _deprecated_alias("axis", axis, "dim", dim)
    return _softmax_on_axis(LogSoftmax, logits, -1 if axis is None else axis, name)

# -- BiasAdd, L2Loss ---------------------------------------------------------------------------------

BiasAdd = Op("BiasAdd", inputs=["value: T", "bias: T"], outputs=["output: T"],
             attrs=["T: numbertype", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"])


def _is_nchw(data_format: Any) -> bool:
    return (data_format.decode() if isinstance(data_format, bytes) else data_format) == "NCHW"


@BiasAdd.shape
def _bias_add_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """`value`'s shape; its channel dimension (the last, or the second for NCHW) matches the bias."""
    nchw = _is_nchw(ctx.attr("data_format"))
    value = shape_helpers.with_rank_at_least(ctx.input_shape(0), 3 if nchw else 2)
    bias = shape_helpers.with_rank(ctx.input_shape(1), 1)
    if value.ndims is None:
        return [value]
    dims = value.as_list()
    channel = 1 if nchw else -1
    depth = bias.dims[0].value
    if dims[channel] is not None and depth is not None and dims[channel] != depth:
        raise ValueError(f"Dimensions must be equal, but are {dims[channel]} and {depth}")
    if dims[channel] is None:
        dims[channel] = depth
    return [tensor_shape.TensorShape(dims)]


@BiasAdd.kernel("CPU")
def _bias_add(ctx: OpKernelContext, value: Any, bias: Any, data_format: Any) -> Any:
    return value + _channel_bias(ctx, value.shape, bias, _is_nchw(data_format))


def _channel_bias(ctx: OpKernelContext, shape: tuple[int, ...], bias: Any, nchw: bool) -> Any:
    """The bias shaped to broadcast along the channel dimension of a value of `shape`, checked as TF's BiasAdd
    kernel checks it."""
    if len(shape) < 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Input tensor must be at least 2D: "
                                          f"{tensor_shape.shape_string(shape)}")
    if bias.ndim != 1:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Biases must be 1D: "
                                          f"{tensor_shape.shape_string(bias.shape)}")
    channel = 1 if nchw else len(shape) - 1
    if shape[channel] != bias.shape[0]:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, "Must provide as many biases as the last dimension of the input tensor: "
            f"{tensor_shape.shape_string(bias.shape)} vs. {tensor_shape.shape_string(shape)}")
    return bias if channel == len(shape) - 1 else bias.reshape(bias.shape + (1,) * (len(shape) - 1 - channel))


@tf_export("nn.bias_add")
def bias_add(value: Any, bias: Any, data_format: str | None = None, name: str | None = None) -> Tensor:
    """`value` plus the 1-D `bias` along its channel dimension (`N...C` formats: last; `NC...`: second)."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError("`data_format` must be of the form `N...C` or `NC...`. Received: "
                                 f"data_format={data_format}")
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype, name="bias")
        if data_format is None:
            return BiasAdd(value, bias, name=scope)
        return BiasAdd(value, bias, data_format=data_format, name=scope)


# -- _FusedMatMul: MatMul + BiasAdd (+ an activation), as Grappler's remapper fuses them ----------------------

_FusedMatMul = Op("_FusedMatMul", inputs=["a: T", "b: T", "args: num_args * T"], outputs=["product: T"],
                  attrs=["transpose_a: bool = false", "transpose_b: bool = false", "T: {bfloat16, half, float}",
                         "num_args: int >= 0", "fused_ops: list(string) = []", "epsilon: float = 0.0001",
                         "leakyrelu_alpha: float = 0.2"])
# The activations a fused contraction may end with, each computed by its own op's function
_FUSED_ACTIVATIONS = {b"Relu": lambda x, alpha: _relu(x, out=x), b"Relu6": lambda x, alpha: _relu6(x),
                      b"Elu": lambda x, alpha: _elu(x),
                      b"LeakyRelu": _leaky}


class FusedOutputOps:
    """What a fused contraction (_FusedMatMul, _FusedConv2D) does to its new output once computed, applied to a
    channels-last block of it (in cache, just made): the bias added, then the activation, the values BiasAdd
    and the activation's op compute one after the other. Made with TF's check of the fused ops (which TF makes
    when it builds the kernel); `check_bias` makes BiasAdd's checks of the bias against the output's shape."""

    def __init__(self, ctx: OpKernelContext, args: tuple, fused_ops: list, leakyrelu_alpha: float) -> None:
        if not fused_ops or fused_ops[0] != b"BiasAdd" or len(args) != 1 or len(fused_ops) > 2 or \
                (len(fused_ops) == 2 and fused_ops[1] not in _FUSED_ACTIVATIONS):
            raise errors.UnimplementedError(ctx.node_def, None, "Fusion is not implemented: "
                                            f"[{','.join(op.decode() for op in fused_ops)}]")
        self.bias = args[0]
        self.activation = _FUSED_ACTIVATIONS[fused_ops[1]] if len(fused_ops) == 2 else None
        self.alpha = leakyrelu_alpha

    def check_bias(self, ctx: OpKernelContext, shape: tuple[int, ...], nchw: bool = False) -> None:
        _channel_bias(ctx, shape, self.bias, nchw)

    def __call__(self, block: Any) -> None:
        self.add_bias(block)
        self.activate(block)

    def add_bias(self, block: Any, columns: slice = slice(None)) -> None:
        """The bias of the output's `columns` (all of them, by default) added to `block`, those columns' values."""
        block += self.bias[columns]

    def activate(self, block: Any) -> None:
        """The activation of `block`, in place (TF's CPU kernels tie max(-0.0, 0.0) by an element's place in
        the array it is given: see eigen_extremum)."""
        if self.activation is not None:
            result = self.activation(block, self.alpha)
            if result is not block:
                np.copyto(block, result)


@_FusedMatMul.shape
def _fused_matmul_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return linalg_ops.MatMul.shape_fn(ctx)


@_FusedMatMul.kernel("CPU", expensive=True, type_constraints={"T": (dtypes.float32,)})
def _fused_matmul(ctx: OpKernelContext, a: Any, b: Any, *args: Any, transpose_a: bool, transpose_b: bool,
                  fused_ops: list, leakyrelu_alpha: float) -> Any:
    """The product (a new array), its bias added in place to each block of it as it is made, then its activation
    over the whole; MatMul's errors first, then BiasAdd's."""
    output_ops = FusedOutputOps(ctx, args, fused_ops, leakyrelu_alpha)
    if a.ndim == 2 and b.ndim == 2 and a.shape[0 if transpose_a else 1] == b.shape[1 if transpose_b else 0]:
        output_ops.check_bias(ctx, (a.shape[1 if transpose_a else 0], b.shape[0 if transpose_b else 1]))
    product = linalg_ops.matmul_kernel(ctx, a, b, transpose_a, transpose_b, output_ops.add_bias)
    output_ops.activate(product)
    return product


L2Loss = Op("L2Loss", inputs=["t: T"], outputs=["output: T"], attrs=[f"T: {_FLOAT}"])


@L2Loss.shape
def _l2_loss_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@L2Loss.kernel("CPU")
def _l2_loss(ctx: OpKernelContext, t: Any) -> Any:
    """sum(t ** 2) / 2, bfloat16 in float32 (rounded once), float16 as TF's sum of t * t * 0.5 in float16."""
    xp = ctx.xp
    if xp is np and t.dtype in (np.float32, np.float64):
        return np.asarray(_sum_of_squares(t.reshape(-1)) / 2, dtype=t.dtype)
    total = eigen_order_sum(t * t * np.float16(0.5), tuple(range(t.ndim)), False) if t.dtype == np.float16 and xp is np else None
    if total is not None:
        return total
    wide = in_float32(t)
    return xp.asarray(xp.sum(xp.square(wide)) / 2, dtype=t.dtype)


_DOT_BLOCK = 1 << 15  # BLAS dots of this many elements, their sums added in float64


def _sum_of_squares(flat: Any) -> float:
    """sum(flat ** 2) by BLAS dot products over blocks (no squared temporary, a quarter of the time), their
    partial sums added in float64: as accurate as NumPy's pairwise sum of the squares, or more."""
    parts = [np.dot(flat[lo:lo + _DOT_BLOCK], flat[lo:lo + _DOT_BLOCK]) for lo in range(0, flat.size, _DOT_BLOCK)]
    return float(np.sum(parts, dtype=np.float64))


@tf_export("nn.l2_loss")
def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """sum(t ** 2) / 2."""
    return L2Loss(t, name=name)


@tf_export("linalg.l2_normalize", "math.l2_normalize", "nn.l2_normalize")
def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None,
                 dim: Any = None) -> Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon)), composed as TF's (complex: each part by the norm)."""
    axis = _deprecated_alias("axis", axis, "dim", dim)
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            square_sum = elementwise_ops.real(reduction_ops.reduce_sum(
                elementwise_ops.square(elementwise_ops.real(x)) + elementwise_ops.square(elementwise_ops.imag(x)), axis, keepdims=True))
            inverse_norm = elementwise_ops.rsqrt(elementwise_ops.maximum(square_sum, epsilon))
            return elementwise_ops.complex(elementwise_ops.multiply(elementwise_ops.real(x), inverse_norm),
                                    elementwise_ops.multiply(elementwise_ops.imag(x), inverse_norm), name=scope)
        square_sum = reduction_ops.reduce_sum(elementwise_ops.square(x), axis, keepdims=True)
        inverse_norm = elementwise_ops.rsqrt(elementwise_ops.maximum(square_sum, epsilon))
        return elementwise_ops.multiply(x, inverse_norm, name=scope)


@tf_export("nn.moments")
def moments(x: Any, axes: Any, shift: Any = None, name: str | None = None, keep_dims: Any = None,
            keepdims: Any = None) -> tuple[Tensor, Tensor]:
    """Mean and variance over `axes` (`shift` is ignored, as in TF); float16 is computed in float32. `x`
    must be a Tensor (TF reads its dtype before any conversion)."""
    keep = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "moments", [x, axes]):
        half = x.dtype == dtypes.float16
        y = cast_ops.cast(x, dtypes.float32) if half else x
        mean = reduction_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = reduction_ops.reduce_mean(elementwise_ops.squared_difference(y, manipulation_ops.stop_gradient(mean)), axes,
                                        keepdims=True, name="variance")
        if not keep:
            mean = shape_ops.squeeze(mean, axes)
            variance = shape_ops.squeeze(variance, axes)
        if half:
            return cast_ops.cast(mean, dtypes.float16), cast_ops.cast(variance, dtypes.float16)
        return mean, variance

# -- Cross-entropy losses ----------------------------------------------------------------------------

SoftmaxCrossEntropyWithLogits = Op("SoftmaxCrossEntropyWithLogits", inputs=["features: T", "labels: T"],
                                   outputs=["loss: T", "backprop: T"], attrs=[f"T: {_FLOAT}"])


@SoftmaxCrossEntropyWithLogits.shape
def _softmax_xent_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """[batch] and [batch, classes]: the features are a matrix the labels match, or both broadcast to one."""
    features, labels = ctx.input_shape(0), ctx.input_shape(1)
    try:
        shape = tensor_shape.merge_shapes(shape_helpers.with_rank(features, 2), labels)
    except ValueError:
        shape = shape_helpers.broadcast_shapes(features, labels)
    if shape.ndims is None:
        shape = tensor_shape.unknown_shape(rank=2)
    if shape.ndims != 2:
        raise ValueError(f"Shape must be broadcasted with rank 2, but is rank {shape.ndims}")
    return [tensor_shape.TensorShape([shape[0]]), shape]


@SoftmaxCrossEntropyWithLogits.kernel("CPU")
def _softmax_xent(ctx: OpKernelContext, features: Any, labels: Any) -> Any:
    xp = ctx.xp
    try:
        shape = np.broadcast_shapes(features.shape, labels.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, "logits and labels must be broadcastable: logits_size="
            f"{tensor_shape.shape_string(features.shape)} labels_size={tensor_shape.shape_string(labels.shape)}"
        ) from None
    if len(shape) != 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, "logits and labels must be either 2-dimensional, or "
                                          "broadcasted to be 2-dimensional")
    features, labels = xp.broadcast_to(features, shape), xp.broadcast_to(labels, shape)
    if shape[1] == 0:
        return xp.zeros(shape[0], features.dtype), xp.zeros(shape, features.dtype)
    dtype = features.dtype
    features, labels = in_float32(features), in_float32(labels)  # TF's bfloat16 kernel computes in float32
    shifted, exp, sum_exp = _shifted_rows(ctx, features)
    loss = xp.sum(labels * (xp.log(sum_exp) - shifted), axis=1)
    exp /= sum_exp
    exp -= labels
    return loss.astype(dtype), exp.astype(dtype, copy=False)


SparseSoftmaxCrossEntropyWithLogits = Op(
    "SparseSoftmaxCrossEntropyWithLogits", inputs=["features: T", "labels: Tlabels"],
    outputs=["loss: T", "backprop: T"], attrs=[f"T: {_FLOAT}", "Tlabels: {int32, int64} = DT_INT64"])


@SparseSoftmaxCrossEntropyWithLogits.shape
def _sparse_softmax_xent_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    features = shape_helpers.with_rank(ctx.input_shape(0), 2)
    labels = shape_helpers.with_rank(ctx.input_shape(1), 1)
    batch, classes = features.as_list()
    labels_batch = labels.dims[0].value
    if batch is not None and labels_batch is not None and batch != labels_batch:
        raise ValueError(f"Dimensions must be equal, but are {batch} and {labels_batch}")
    batch = labels_batch if batch is None else batch
    return [tensor_shape.TensorShape([batch]), tensor_shape.TensorShape([batch, classes])]


@SparseSoftmaxCrossEntropyWithLogits.kernel("CPU")
def _sparse_softmax_xent(ctx: OpKernelContext, features: Any, labels: Any) -> Any:
    xp = ctx.xp
    if np.ndim(features) != 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, "logits must be 2-D, but got shape "
                                          f"{tensor_shape.shape_string(np.shape(features))}")
    if np.ndim(labels) != 1:
        raise errors.InvalidArgumentError(ctx.node_def, None, "labels must be 1-D, but got shape "
                                          f"{tensor_shape.shape_string(np.shape(labels))}")
    if features.shape[0] != labels.shape[0]:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, "logits and labels must have the same first dimension, got logits shape "
            f"{tensor_shape.shape_string(features.shape)} and labels shape {tensor_shape.shape_string(labels.shape)}")
    classes = features.shape[1]
    if classes == 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, "Must have at least one class, but got logits shape "
                                          f"{tensor_shape.shape_string(features.shape)}")
    if labels.size and (labels.min() < 0 or labels.max() >= classes):  # TF names the minimum if negative, else the maximum
        bad = labels.min() if labels.min() < 0 else labels.max()
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Received a label value of {bad} which is outside the valid range of "
            f"[0, {classes}).  Label values: {' '.join(str(v) for v in labels.tolist())}")
    if xp is np and features.dtype in (np.float32, np.float64):
        return _sparse_xent_by_blocks(ctx, features, labels)
    shifted, backprop, sum_exp = _shifted_rows(ctx, features)
    rows = xp.arange(labels.shape[0])
    backprop /= sum_exp
    backprop[rows, labels] -= 1
    loss = xp.log(sum_exp[:, 0]) - shifted[rows, labels]
    return loss.astype(features.dtype), backprop.astype(features.dtype, copy=False)


_XENT_BLOCK_ELEMENTS = 1 << 17  # a block of rows this large stays in a core's cache through its five passes


def _sparse_xent_by_blocks(ctx: OpKernelContext, features: Any, labels: Any) -> tuple[Any, Any]:
    """The loss and backprop of float32/float64 logits block of rows by block, each block's passes (max,
    shift, exp, sum, scale) made while it is in cache and written straight into the outputs, the blocks
    claimed by the intra-op threads: the same arithmetic as `_shifted_rows`, row by row, so the same values."""
    batch, classes = features.shape
    loss, backprop = np.empty(batch, features.dtype), np.empty_like(features)
    rows = max(1, _XENT_BLOCK_ELEMENTS // classes)

    def block(i: int) -> None:
        lo, hi = i * rows, min(batch, (i + 1) * rows)
        values, label = backprop[lo:hi], labels[lo:hi]
        index = np.arange(hi - lo)
        np.subtract(features[lo:hi], features[lo:hi].max(axis=1, keepdims=True), out=values)
        picked = values[index, label]
        np.exp(values, out=values)
        sum_exp = values.sum(axis=1, keepdims=True)
        values /= sum_exp
        values[index, label] -= 1
        np.subtract(np.log(sum_exp[:, 0]), picked, out=loss[lo:hi])

    ctx.device.parallel(-(-batch // rows), block)
    return loss, backprop


def _flatten_outer_dims(logits: Tensor) -> Tensor:
    """`logits` reshaped to [-1, last dimension], with the static shape where it is known."""
    rank = shape_ops.rank(logits)
    last_dim_size = indexing_ops.slice(shape_ops.shape(logits), [elementwise_ops.subtract(rank, 1)], [1])
    output = shape_ops.reshape(logits, manipulation_ops.concat([[-1], last_dim_size], 0))
    shape = logits.shape
    if shape.ndims is not None and all(d is not None for d in shape.as_list()[:-1]):
        output.set_shape([int(np.prod(shape.as_list()[:-1], dtype=np.int64)), shape.as_list()[-1]])
    return output


def _move_dim_to_end(tensor: Tensor, dim_index: int, rank: Tensor) -> Tensor:
    perm = manipulation_ops.concat([sequence_ops.range(dim_index), sequence_ops.range(dim_index + 1, rank), [dim_index]], 0)
    return manipulation_ops.transpose(tensor, perm)


@tf_export("nn.softmax_cross_entropy_with_logits_v2")
def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: Any = None, name: str | None = None,
                                         dim: Any = None) -> Tensor:
    """Cross entropy between `labels` (each a probability distribution) and softmax(`logits`) along `axis`;
    gradients flow into both."""
    axis = _deprecated_alias("axis", axis, "dim", dim)
    axis = -1 if axis is None else axis
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        half = logits.dtype.base_dtype in (dtypes.float16, dtypes.bfloat16)
        precise_logits = cast_ops.cast(logits, dtypes.float32) if half else logits
        labels = cast_ops.cast(labels, precise_logits.dtype)
        input_rank = shape_ops.rank(precise_logits)
        shape = logits.shape
        if axis != -1:
            precise_logits = _move_dim_to_end(precise_logits, axis, input_rank)
            labels = _move_dim_to_end(labels, axis, input_rank)
        input_shape = shape_ops.shape(precise_logits)
        precise_logits = _flatten_outer_dims(precise_logits)
        labels = _flatten_outer_dims(labels)
        cost, _ = SoftmaxCrossEntropyWithLogits(precise_logits, labels, name=scope)
        output_shape = indexing_ops.slice(input_shape, [0], [elementwise_ops.subtract(input_rank, 1)])
        cost = shape_ops.reshape(cost, output_shape)
        if shape.ndims is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return cast_ops.cast(cost, logits.dtype) if half else cost


def _ensure_xent_args(name: str, labels: Any, logits: Any) -> None:
    """The keyword-only losses need both arguments (TF's message, missing space included)."""
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for {name}"
                         f"Received: labels={labels} and logits={logits}")


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None, dim: Any = -1,
                                      name: str | None = None, axis: Any = None) -> Tensor:
    """TF1's softmax cross entropy: as the v2 form, with no gradient into `labels`."""
    axis = _deprecated_alias("axis", axis, "dim", dim)
    _ensure_xent_args("softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = manipulation_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis, name=scope)


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels: Any = None, logits: Any = None,
                                             name: str | None = None) -> Tensor:
    """Cross entropy between softmax(`logits`) and the class indices `labels` (one rank lower); a label
    outside [0, classes) fails at run time."""
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        half = logits.dtype.base_dtype == dtypes.float16
        precise_logits = cast_ops.cast(logits, dtypes.float32) if half else logits
        labels_static_shape = labels.shape
        labels_shape = shape_ops.shape(labels)
        logits_shape = logits.shape
        if logits_shape.ndims == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
        if (logits_shape.ndims is not None and labels_static_shape.ndims is not None
                and labels_static_shape.ndims != logits_shape.ndims - 1):
            raise ValueError("`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                             f"labels.shape={labels_static_shape} of rank {labels_static_shape.ndims} and "
                             f"logits.shape={logits_shape} of rank {logits_shape.ndims}")
        if (labels_static_shape.is_fully_defined() and logits_shape[:-1].is_fully_defined()
                and labels_static_shape != logits_shape[:-1]):
            raise ValueError("`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                             f"labels.shape={labels_static_shape} and logits.shape={logits_shape}")
        if logits_shape.ndims == 2:
            cost, _ = SparseSoftmaxCrossEntropyWithLogits(precise_logits, labels, name=name)
        else:
            num_classes = shape_ops.shape(logits)[shape_ops.rank(logits) - 1]
            precise_logits = shape_ops.reshape(precise_logits, [-1, num_classes])
            flat_labels = shape_ops.reshape(labels, [-1])
            cost, _ = SparseSoftmaxCrossEntropyWithLogits(precise_logits, flat_labels, name=name)
            cost = shape_ops.reshape(cost, labels_shape)
            cost.set_shape(labels_static_shape)
        return cast_ops.cast(cost, dtypes.float16) if half else cost


def _logistic_loss_inputs(logits: Any, labels: Any) -> tuple[Tensor, Tensor]:
    """Logits and labels as tensors of compatible shapes, with TF's error for the logistic losses."""
    logits = convert_to_tensor(logits, name="logits")
    labels = convert_to_tensor(labels, name="labels")
    try:
        labels.shape.assert_is_compatible_with(logits.shape)
    except ValueError:
        raise ValueError(f"`logits` and `labels` must have the same shape, received ({logits.shape} vs "
                         f"{labels.shape}).") from None
    return logits, labels


@tf_export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels: Any = None, logits: Any = None, name: str | None = None) -> Tensor:
    """Elementwise logistic loss, composed as TF does so that exp never overflows:
    max(x, 0) - x * z + log(1 + exp(-|x|))."""
    _ensure_xent_args("sigmoid_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits, labels = _logistic_loss_inputs(logits, labels)
        zeros = fill_ops.zeros_like(logits, dtype=logits.dtype)
        cond = logits >= zeros
        relu_logits = elementwise_ops.where(cond, logits, zeros)
        neg_abs_logits = elementwise_ops.where(cond, -logits, logits)
        return elementwise_ops.add(relu_logits - logits * labels, elementwise_ops.log1p(elementwise_ops.exp(neg_abs_logits)),
                            name=scope)


@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(labels: Any = None, logits: Any = None, pos_weight: Any = None,
                                       name: str | None = None, targets: Any = None) -> Tensor:
    """The logistic loss with positive labels weighted by `pos_weight` (`targets` is TF1's old name for
    `labels`), composed as TF does: (1 - z) * x + (1 + (w - 1) * z) * (log1p(exp(-|x|)) + relu(-x))."""
    labels = _deprecated_alias("labels", labels, "targets", targets)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits, labels = _logistic_loss_inputs(logits, labels)
        log_weight = 1 + (pos_weight - 1) * labels
        return elementwise_ops.add((1 - labels) * logits,
                            log_weight * (elementwise_ops.log1p(elementwise_ops.exp(-elementwise_ops.abs(logits))) + relu(-logits)),
                            name=scope)


@tf_export("nn.xw_plus_b")
def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Tensor:
    """matmul(x, weights) + biases, the bias added by BiasAdd named after the scope."""
    with name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return bias_add(linalg_ops.matmul(x, weights), biases, name=scope)


@tf_export("nn.relu_layer")
def relu_layer(x: Any, weights: Any, biases: Any, name: str | None = None) -> Tensor:
    """relu(matmul(x, weights) + biases), the Relu named after the scope."""
    with name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return relu(bias_add(linalg_ops.matmul(x, weights), biases), name=scope)


@tf_export("nn.batch_normalization")
def batch_normalization(x: Any, mean: Any, variance: Any, offset: Any, scale: Any, variance_epsilon: Any,
                        name: str | None = None) -> Tensor:
    """(x - mean) / sqrt(variance + epsilon) * scale + offset, composed as TF does (`offset` and `scale`
    may be None): x * inv + (offset - mean * inv), with inv = rsqrt(variance + epsilon) * scale."""
    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = elementwise_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        return x * cast_ops.cast(inv, x.dtype) + cast_ops.cast(
            offset - mean * inv if offset is not None else -mean * inv, x.dtype)

def _sequence_of_tensors(t_list: Any) -> list:
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def _dense_values(t_list: list) -> list:
    """Each tensor (an IndexedSlices by its values) converted as `t_<i>`; None entries stay None."""
    return [None if t is None else convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name=f"t_{i}")
            for i, t in enumerate(t_list)]


@tf_export("linalg.global_norm", "global_norm")
def global_norm(t_list: Any, name: str | None = None) -> Tensor:
    """sqrt(sum of squares of every element of every tensor), from one L2Loss per tensor (with it)."""
    t_list = _sequence_of_tensors(t_list)
    with name_scope(name, "global_norm", t_list):
        half_squared_norms = []
        for value in _dense_values(t_list):
            if value is not None:
                with colocate_with(value):
                    half_squared_norms.append(L2Loss(value))
        half_squared_norm = reduction_ops.reduce_sum(manipulation_ops.stack(half_squared_norms))
        return elementwise_ops.sqrt(half_squared_norm * constant_ops.constant(2.0, dtype=half_squared_norm.dtype),
                             name="global_norm")


@tf_export("clip_by_global_norm")
def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> tuple[list, Tensor]:
    """Every tensor scaled by clip_norm / max(global norm, clip_norm), and the global norm; a non-finite
    norm makes every value NaN, as TF's."""
    t_list = _sequence_of_tensors(t_list)
    if use_norm is None:
        use_norm = global_norm(t_list, name)
    with name_scope(name, "clip_by_global_norm", t_list + [clip_norm]) as scope:
        scale_for_finite = clip_norm * elementwise_ops.minimum(
            1.0 / use_norm, constant_ops.constant(1.0, dtype=use_norm.dtype) / clip_norm)
        scale = scale_for_finite + (use_norm - use_norm)
        clipped = []
        for i, value in enumerate(_dense_values(t_list)):
            if value is None:
                clipped.append(None)
                continue
            with colocate_with(value):
                clipped.append(manipulation_ops.identity(value * cast_ops.cast(scale, value.dtype), name=f"{scope}_{i}"))
        return [IndexedSlices(c, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else c
                for c, t in zip(clipped, t_list)], use_norm

# -- Dropout -----------------------------------------------------------------------------------------


def _noise_shape(x: Tensor, noise_shape: Any) -> Any:
    """`x`'s shape when `noise_shape` is None; else `noise_shape` with unknown dims taken from `x`."""
    if noise_shape is None:
        return shape_ops.shape(x)
    try:
        given = tensor_shape.as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.ndims is not None and x.shape.ndims == given.ndims:
        return tensor_shape.TensorShape([d if n is None else n for d, n in zip(x.shape.as_list(), given.as_list())])
    return noise_shape


def _uniform(shape: Any, seed: int | None, dtype: dtypes.DType) -> Tensor:
    """Uniform values in [0, 1) as TF's random_uniform draws them: the RandomUniform op alone."""
    with name_scope(None, "random_uniform", [shape]):
        if not isinstance(shape, Tensor):
            shape = convert_to_tensor(shape, dtype=dtypes.int32, name="shape")
        seed1, seed2 = random_seed.get_seed(seed)
        return random_ops.RandomUniform(shape, dtype=dtype, seed=seed1 or 0, seed2=seed2 or 0)


def _dropout(x: Any, rate: Any, noise_shape: Any, uniform_sampler: Callable[..., Tensor], name: str | None,
             default_name: str = "dropout") -> Tensor:
    """TF's _dropout: `uniform_sampler(shape=, dtype=)` draws the Uniform[0, 1) noise that picks the kept
    elements (the stateful RandomUniform for tf.nn.dropout, a stateless or custom sampler for the others)."""
    with name_scope(name, default_name, [x]):
        is_rate_number = isinstance(rate, numbers.Real)
        if is_rate_number and not 0 <= rate < 1:
            raise ValueError(f"`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        x_dtype = x.dtype.base_dtype
        if not x_dtype.is_floating:
            raise ValueError("`x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                             f"x_dtype={x.dtype}")
        if is_rate_number and rate == 0:
            return x
        if is_rate_number:
            scale = constant_ops.constant(1 / (1 - rate), dtype=x_dtype)
            ret = elementwise_ops.Mul(x, scale)
        else:
            rate = convert_to_tensor(rate, dtype=x_dtype, name="rate")
            rate.shape.assert_has_rank(0)
            one = constant_ops.constant(1, dtype=x_dtype)
            ret = elementwise_ops.RealDiv(x, elementwise_ops.Sub(one, rate))
        keep_mask = uniform_sampler(shape=_noise_shape(x, noise_shape), dtype=x_dtype) >= rate
        ret = elementwise_ops.SelectV2(keep_mask, ret, constant_ops.constant(0, dtype=x_dtype))
        ret.set_shape(x.shape)
        return ret


@tf_export("nn.dropout")
def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: int | None = None,
            name: str | None = None, rate: Any = None) -> Tensor:
    """TF1's dropout: elements of `x` kept with probability 1 - rate (`keep_prob` is the old spelling) and
    scaled by 1 / (1 - rate), the rest zeroed; `noise_shape` shares the decision along broadcast dims."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'keep_prob' and 'rate'.")
        rate = 1 - keep_prob
    if rate is None:
        raise ValueError(f"`rate` must be provided. Received: rate={rate}")
    return _dropout(x, rate, noise_shape, lambda shape, dtype: _uniform(shape, seed, dtype), name)


@tf_export("nn.experimental.stateless_dropout")
def stateless_dropout(x: Any, rate: Any, seed: Any, rng_alg: Any = None, noise_shape: Any = None,
                      name: str | None = None) -> Tensor:
    """Dropout whose mask depends only on `seed` (a shape-[2] integer tensor), through stateless_uniform."""
    def sampler(shape: Any, dtype: dtypes.DType) -> Tensor:
        return random_ops.stateless_random_uniform(shape=shape, seed=seed, dtype=dtype,
                                                   alg="auto_select" if rng_alg is None else rng_alg)

    return _dropout(x, rate, noise_shape, sampler, name, default_name="stateless_dropout")


@tf_export("nn.experimental.general_dropout")
def general_dropout(x: Any, rate: Any, uniform_sampler: Callable[..., Tensor], noise_shape: Any = None,
                    name: str | None = None) -> Tensor:
    """Dropout with the caller's `uniform_sampler(shape=, dtype=)` drawing the noise."""
    return _dropout(x, rate, noise_shape, uniform_sampler, name, default_name="general_dropout")


# -- Gradients -----------------------------------------------------------------------------------------
# TF's nn_grad: activations through their dedicated grad ops (ReluGrad ... LeakyReluGrad, with TF's OpDefs
# and kernels), softmaxes and cross entropies from their outputs, BiasAdd through BiasAddGrad.

def _merge_both_shapes(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.merge_shapes(ctx.input_shape(0), ctx.input_shape(1))]


def _activation_grad_op(name: str, types: str, second: str, fn: Any = None, attrs: tuple[str, ...] = ()) -> Op:
    """`name`(gradients, `second`) -> backprops: the gradient of an activation, elementwise (`fn(g, x)` its
    kernel, when it reads no attr)."""
    op = Op(name, inputs=["gradients: T", f"{second}: T"], outputs=["backprops: T"], attrs=[*attrs, f"T: {types}"])
    op.shape(_merge_both_shapes)
    if fn is not None:
        @op.kernel("CPU")
        def kernel(ctx: OpKernelContext, gradients: Any, other: Any) -> Any:
            return fn(gradients, other)

    return op


def _times_mask(g: Any, mask: Any) -> Any:
    """g * mask, the same values, with the boolean mask made g's dtype first: NumPy's multiply by a bool
    array casts in its inner loop (1.7x the time)."""
    factor = mask.astype(g.dtype)
    return np.multiply(g, factor, out=factor) if factor.shape == np.shape(g) else g * factor


_REAL = "realnumbertype"
ReluGrad = _activation_grad_op("ReluGrad", _REAL, "features", lambda g, x: _times_mask(g, x > 0))
Relu6Grad = _activation_grad_op("Relu6Grad", _REAL, "features", lambda g, x: _times_mask(g, (x > 0) & (x < 6)))
EluGrad = _activation_grad_op("EluGrad", _FLOAT, "outputs", lambda g, y: np.where(y < 0, g * (y + 1), g))
SeluGrad = _activation_grad_op(
    "SeluGrad", _FLOAT, "outputs",
    lambda g, y: np.where(y < 0, g * (y + y.dtype.type(_SELU_SCALE_ALPHA)), g * y.dtype.type(_SELU_SCALE)))
SoftplusGrad = _activation_grad_op("SoftplusGrad", _FLOAT, "features", lambda g, x: g / (1 + np.exp(-x)))
SoftsignGrad = _activation_grad_op("SoftsignGrad", _FLOAT, "features", lambda g, x: g / np.square(1 + np.abs(x)))
LeakyReluGrad = _activation_grad_op("LeakyReluGrad", f"{_FLOAT} = DT_FLOAT", "features",
                                    attrs=("alpha: float = 0.2",))


@LeakyReluGrad.kernel("CPU")
def _leaky_relu_grad(ctx: OpKernelContext, gradients: Any, features: Any, alpha: float) -> Any:
    return np.where(features > 0, gradients, gradients * features.dtype.type(alpha))


@Relu.gradient
def _relu_grad(op: Any, grad: Tensor) -> list:
    return [ReluGrad(grad, op.outputs[0])]


@Relu6.gradient
def _relu6_grad(op: Any, grad: Tensor) -> list:
    return [Relu6Grad(grad, op.inputs[0])]


@Elu.gradient
def _elu_grad(op: Any, grad: Tensor) -> list:
    return [EluGrad(grad, op.outputs[0])]


@Selu.gradient
def _selu_grad(op: Any, grad: Tensor) -> list:
    return [SeluGrad(grad, op.outputs[0])]


@Softplus.gradient
def _softplus_grad(op: Any, grad: Tensor) -> list:
    return [SoftplusGrad(grad, op.inputs[0])]


@Softsign.gradient
def _softsign_grad(op: Any, grad: Tensor) -> list:
    return [SoftsignGrad(grad, op.inputs[0])]


@EluGrad.gradient
def _elu_grad_grad(op: Any, grad: Tensor) -> list:
    """EluGrad is g * (y + 1) where y < 0, else g: linear in g, and its slope in y is g where y < 0."""
    y = op.inputs[1]
    return [EluGrad(grad, y), elementwise_ops.where(y < 0, grad * op.inputs[0], fill_ops.zeros_like(y))]


@SeluGrad.gradient
def _selu_grad_grad(op: Any, grad: Tensor) -> list:
    y = op.inputs[1]
    return [SeluGrad(grad, y), elementwise_ops.where(y < 0.0, grad * op.inputs[0], fill_ops.zeros_like(y))]


@SoftplusGrad.gradient
def _softplus_grad_grad(op: Any, grad: Tensor) -> list:
    """d/dx of dy * sigmoid(x) is dy * sigmoid'(x) = dy / (e^-x + 2 + e^x)."""
    dy, x = op.inputs
    return [SoftplusGrad(grad, x),
            grad * dy / (elementwise_ops.exp(-x) + 2.0 + elementwise_ops.exp(x))]


@LeakyReluGrad.gradient
def _leaky_relu_grad_grad(op: Any, grad: Tensor) -> list:
    x = op.inputs[1]
    return [LeakyReluGrad(grad, x, alpha=op.get_attr("alpha")), fill_ops.zeros_like(x)]


@LeakyRelu.gradient
def _leaky_relu_grad_fn(op: Any, grad: Tensor) -> list:
    return [LeakyReluGrad(grad, op.inputs[0], alpha=op.get_attr("alpha"))]


@ReluGrad.gradient
def _relu_grad_grad(op: Any, grad: Tensor) -> list:
    return [ReluGrad(grad, op.inputs[1]), fill_ops.zeros_like(op.inputs[1])]


@Relu6Grad.gradient
def _relu6_grad_grad(op: Any, grad: Tensor) -> list:
    return [Relu6Grad(grad, op.inputs[1]), fill_ops.zeros_like(op.inputs[1])]


@Softmax.gradient
def _softmax_grad(op: Any, grad: Tensor) -> list:
    softmax = op.outputs[0]
    sum_channels = reduction_ops.reduce_sum(grad * softmax, -1, keepdims=True)
    return [(grad - sum_channels) * softmax]


@LogSoftmax.gradient
def _log_softmax_grad(op: Any, grad: Tensor) -> list:
    softmax = elementwise_ops.exp(op.outputs[0])
    return [grad - reduction_ops.reduce_sum(grad, -1, keepdims=True) * softmax]


BiasAddGrad = Op("BiasAddGrad", inputs=["out_backprop: T"], outputs=["output: T"],
                 attrs=["T: numbertype", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"])


@BiasAddGrad.shape
def _bias_add_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = shape_helpers.with_rank_at_least(ctx.input_shape(0), 2)
    if shape.ndims is None:
        return [tensor_shape.vector(None)]
    channel = 1 if _is_nchw(ctx.attr("data_format")) and shape.ndims >= 3 else -1
    return [tensor_shape.TensorShape([shape.dims[channel]])]


@BiasAddGrad.kernel("CPU")
def _bias_add_grad(ctx: OpKernelContext, out_backprop: Any, data_format: Any) -> Any:
    channel = 1 if _is_nchw(data_format) and out_backprop.ndim >= 3 else out_backprop.ndim - 1
    axes = tuple(i for i in range(out_backprop.ndim) if i != channel)
    if leading_row_sum_applies(out_backprop, axes):
        return leading_row_sum(out_backprop, len(axes))
    return ctx.xp.sum(out_backprop, axis=axes, dtype=out_backprop.dtype)


@BiasAdd.gradient
def _bias_add_grad_fn(op: Any, grad: Tensor) -> list:
    return [grad, BiasAddGrad(grad, data_format=op.get_attr("data_format"))]


@BiasAddGrad.gradient
def _bias_add_grad_grad(op: Any, grad: Tensor) -> list:
    backprop_shape = shape_ops.shape(op.inputs[0])
    rank = op.inputs[0].shape.ndims
    nchw = _is_nchw(op.get_attr("data_format")) and rank is not None and rank >= 3
    kept = [1] * rank
    kept[1 if nchw else -1] = -1
    return [shape_ops.broadcast_to(shape_ops.reshape(grad, kept), backprop_shape)]


@L2Loss.gradient
def _l2_loss_grad(op: Any, grad: Tensor) -> list:
    return [op.inputs[0] * grad]


def _is_zero(t: Tensor) -> bool:
    """TF's IsZero: a gradient known to be zeros while building (a ZerosLike, or a constant of zeros)."""
    if t.op.type in ("ZerosLike", "Zeros"):
        return True
    value = tensor_util.constant_value(t)
    return value is not None and not np.any(value)


def _softmax_xent_hessian_term(logits: Tensor, grad_grad: Tensor) -> Tensor:
    """The logits' gradient from the gradient of the `backprop` output (for second derivatives)."""
    probabilities = softmax(logits)
    inner = linalg_ops.matmul(shape_ops.expand_dims(grad_grad, 1), shape_ops.expand_dims(probabilities, 2))
    return (grad_grad - shape_ops.squeeze(inner, axis=1)) * probabilities


@SoftmaxCrossEntropyWithLogits.gradient
def _softmax_xent_grad(op: Any, grad_loss: Tensor, grad_grad: Tensor) -> list:
    logits = op.inputs[0]
    grad = shape_ops.expand_dims(grad_loss, -1) * op.outputs[1]
    if grad_grad is not None and not _is_zero(grad_grad):
        grad = grad + _softmax_xent_hessian_term(logits, grad_grad)
    return [grad, shape_ops.expand_dims(grad_loss, -1) * -log_softmax(logits)]


@SparseSoftmaxCrossEntropyWithLogits.gradient
def _sparse_softmax_xent_grad(op: Any, grad_loss: Tensor, grad_grad: Tensor) -> list:
    grad = shape_ops.expand_dims(grad_loss, -1) * op.outputs[1]
    if grad_grad is not None and not _is_zero(grad_grad):
        grad = grad + _softmax_xent_hessian_term(op.inputs[0], grad_grad)
    return [grad, None]
