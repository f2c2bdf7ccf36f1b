"""Convolutions and pooling, as TF1's `tf.nn` has them: Conv2D with its two backprops (Conv2DBackpropInput,
which is also `conv2d_transpose`, and Conv2DBackpropFilter, both real ops that the conv gradient uses),
_FusedConv2D (Conv2D, its bias and activation in one kernel, made by the runtime's remapping as Grappler's),
DepthwiseConv2dNative with its two backprops, MaxPool and AvgPool with their gradients MaxPoolGrad and
AvgPoolGrad, and the wrappers composed from them (conv1d, convolution, atrous_conv2d, separable_conv2d,
the 1-D pools, and the transposed convolutions conv1d_transpose and atrous_conv2d_transpose; the 3-D family
and the rank-dispatching wrappers, tf.nn.pool among them, are in nn_conv3d_ops), MaxPoolWithArgmax with its gradient, and with_space_to_batch
(an op run dilated through SpaceToBatchND). The depthwise backprops honour dilations as TF's oneDNN kernels do;
with EXPLICIT padding TF runs its own CPU kernels, and so their limits are kept (_check_explicit_cpu_kernel).

Every kernel works on an NHWC view (NCHW is transposed in and out, as TF's oneDNN kernels accept it on CPU);
the arithmetic (im2col and one BLAS matmul per chunk, col2im, separable pooling, the first-maximum routing of
MaxPoolGrad) is in conv_kernels.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import (
    fill_ops,
    manipulation_ops,
    misc_array_ops,
    nn_ops,
    raw_ops,
    shape_helpers,
    shape_ops,
    space_batch_ops,
)
from tensorweave.ops.conv_kernels import (
    ConvGeometry,
    PoolGeometry,
    avg_divisors,
    avg_pool_nhwc,
    compute_dtype,
    conv_backprop_filter,
    conv_backprop_input,
    conv_forward,
    first_max_taps,
    lowest,
    max_pool_grad_nhwc,
    max_pool_nhwc,
    runtime_window,
    static_window,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.reduction_ops import _deprecated_alias
from tensorweave.platform.tf_export import tf_export

_CONV_ATTRS = ["strides: list(int)", "use_cudnn_on_gpu: bool = true", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
               "explicit_paddings: list(int) = []", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
               "dilations: list(int) = [1, 1, 1, 1]"]
_POOL_ATTRS = ["ksize: list(int) >= 4", "strides: list(int) >= 4"]
_FLOAT = "{half, bfloat16, float, double}"


def attr_text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


class _Format(NamedTuple):
    """Where a 4-D tensor keeps its dimensions: NHWC, or NCHW (channels second)."""

    nchw: bool

    @classmethod
    def of(cls, data_format: Any) -> _Format:
        return cls(attr_text(data_format) == "NCHW")

    def spatial(self, values: Sequence[Any]) -> tuple[Any, Any]:
        return (values[2], values[3]) if self.nchw else (values[1], values[2])

    def depth(self, values: Sequence[Any]) -> Any:
        return values[1] if self.nchw else values[3]

    def batch_and_depth(self, values: Sequence[Any]) -> tuple[Any, Any]:
        return values[0], self.depth(values)

    def dims(self, n: Any, h: Any, w: Any, c: Any) -> list:
        return [n, c, h, w] if self.nchw else [n, h, w, c]

    def to_nhwc(self, x: Any) -> Any:
        return x.transpose(0, 2, 3, 1) if self.nchw else x

    def from_nhwc(self, x: Any) -> Any:
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2)) if self.nchw else x


def _explicit_pairs(fmt: _Format, explicit_paddings: Sequence[int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (before, after) paddings of the two spatial dimensions, from the flat 8-value attr."""
    pairs = [tuple(explicit_paddings[i:i + 2]) for i in range(0, 8, 2)]
    return fmt.spatial(pairs) if explicit_paddings else ((0, 0), (0, 0))


def _check_explicit_paddings(fmt: _Format, padding: str, explicit_paddings: Sequence[int]) -> None:
    """TF's checks of the explicit_paddings attr (shape functions raise them at graph build)."""
    if padding != "EXPLICIT":
        if explicit_paddings:
            raise ValueError("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT")
        return
    if len(explicit_paddings) != 8:
        raise ValueError(f"explicit_paddings attribute must contain 8 values, but got: {len(explicit_paddings)}")
    if any(p < 0 for p in explicit_paddings):
        raise ValueError("All elements of explicit_paddings must be nonnegative")
    batch, depth = fmt.batch_and_depth([explicit_paddings[i:i + 2] for i in range(0, 8, 2)])
    if any(batch) or any(depth):
        raise ValueError("Nonzero explicit padding in the batch or depth dimensions is not supported")


# -- Convolution geometry and the im2col kernels ------------------------------------------------------


def _conv_geometry(ctx: OpKernelContext, input_shape: Sequence[int], filter_shape: Sequence[int], strides: Sequence[int],
                   padding: Any, explicit_paddings: Sequence[int], data_format: Any, dilations: Sequence[int],
                   name: str) -> ConvGeometry:
    """The checks TF's conv kernels make at run time, then the geometry."""
    fmt = _Format.of(data_format)
    if len(input_shape) != 4:
        raise invalid_argument(ctx, f"{name} input must be 4-dimensional: {shape_text(input_shape)}")
    if len(filter_shape) != 4:
        raise invalid_argument(ctx, f"{name} filter must be 4-dimensional: {shape_text(filter_shape)}")
    if any(fmt.batch_and_depth(strides)[i] != 1 for i in range(2)):
        raise errors.UnimplementedError(ctx.node_def, None, "Current implementation does not yet support strides "
                                        "in the batch and depth dimensions.")
    if any(fmt.batch_and_depth(dilations)[i] != 1 for i in range(2)):
        raise invalid_argument(ctx, "Current implementation does not yet support dilations in the batch and "
                                    "depth dimensions.")
    n, c = fmt.batch_and_depth(input_shape)
    h, w = fmt.spatial(input_shape)
    kh, kw, filter_depth, out_depth = filter_shape
    if filter_depth == 0 or c % filter_depth:
        raise invalid_argument(ctx, f"input depth must be evenly divisible by filter depth: {c} vs {filter_depth}")
    (sh, sw), (dh, dw) = fmt.spatial(strides), fmt.spatial(dilations)
    padding = attr_text(padding)
    pad_h, pad_w = _explicit_pairs(fmt, explicit_paddings)
    rows = runtime_window(ctx, h, kh, sh, dh, padding, pad_h)
    cols = runtime_window(ctx, w, kw, sw, dw, padding, pad_w)
    return ConvGeometry(n, h, w, c, kh, kw, filter_depth, out_depth, rows, cols, sh, sw, dh, dw)


def shape_text(shape: Sequence[int]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


# -- Shape functions ----------------------------------------------------------------------------------


def _conv_attrs(ctx: InferenceContext, name: str) -> tuple[_Format, list[int], list[int], str, list[int]]:
    """The format, strides, dilations, padding and explicit paddings of a conv node, with TF's checks (a node
    without a data_format attr, as QuantizedConv2D, is NHWC)."""
    fmt = _Format.of(ctx.node_def.attr.get("data_format", "NHWC"))
    strides, dilations = list(ctx.attr("strides")), list(ctx.attr("dilations"))
    if len(strides) != 4:
        raise ValueError(f"{name} on data format {'NCHW' if fmt.nchw else 'NHWC'} requires the stride attribute "
                         f"to contain 4 values, but got: {len(strides)}")
    if len(dilations) != 4:
        raise ValueError(f"{name} requires the dilation attribute to contain 4 values, but got: {len(dilations)}")
    for s in strides:
        if s <= 0:
            raise ValueError(f"Stride must be > 0, but got {s}")
    for d in dilations:
        if d < 1:
            raise ValueError(f"Dilation rate must be >= 1, but got {d}")
    padding = attr_text(ctx.attr("padding"))
    explicit = list(ctx.attr("explicit_paddings")) if "explicit_paddings" in ctx.node_def.attr else []
    _check_explicit_paddings(fmt, padding, explicit)
    return fmt, strides, dilations, padding, explicit


def _dims(shape: tensor_shape.TensorShape, rank: int) -> list:
    return shape_helpers.with_rank(shape, rank).as_list()


def _conv_output_shape(fmt: _Format, input_dims: list, kh: Any, kw: Any, out_depth: Any, strides: list,
                       dilations: list, padding: str, explicit: list) -> tensor_shape.TensorShape:
    (h, w), (sh, sw), (dh, dw) = fmt.spatial(input_dims), fmt.spatial(strides), fmt.spatial(dilations)
    pad_h, pad_w = _explicit_pairs(fmt, explicit)
    return tensor_shape.TensorShape(fmt.dims(input_dims[0], static_window(h, kh, sh, dh, padding, pad_h),
                                             static_window(w, kw, sw, dw, padding, pad_w), out_depth))


def _check_groups(in_depth: int | None, filter_depth: int | None, out_depth: int | None) -> None:
    if in_depth is None or filter_depth is None:
        return
    if filter_depth == 0:
        raise ValueError("Depth of filter must not be 0")
    if in_depth % filter_depth:
        raise ValueError(f"Depth of input ({in_depth}) is not a multiple of input depth of filter ({filter_depth})")
    groups = in_depth // filter_depth
    if out_depth is not None and out_depth % groups:
        raise ValueError(f"Depth of output ({out_depth}) is not a multiple of the number of groups ({groups})")


def _depth_matches(a: int | None, b: int | None) -> None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")


# -- Conv2D, DepthwiseConv2dNative ----------------------------------------------------------------------

Conv2D = Op("Conv2D", inputs=["input: T", "filter: T"], outputs=["output: T"],
            attrs=["T: {half, bfloat16, float, double, int32}", *_CONV_ATTRS])


@Conv2D.shape
def _conv2d_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_dims, filter_dims = _dims(ctx.input_shape(0), 4), _dims(ctx.input_shape(1), 4)
    fmt, strides, dilations, padding, explicit = _conv_attrs(ctx, "Conv2D")
    kh, kw, filter_depth, out_depth = filter_dims
    _check_groups(fmt.depth(input_dims), filter_depth, out_depth)
    return [_conv_output_shape(fmt, input_dims, kh, kw, out_depth, strides, dilations, padding, explicit)]


@Conv2D.kernel("CPU", expensive=True)
def _conv2d(ctx: OpKernelContext, input: Any, filter: Any, strides: list, padding: Any,  # noqa: A002
            explicit_paddings: list, data_format: Any, dilations: list, use_cudnn_on_gpu: bool) -> Any:
    g = _conv_geometry(ctx, input.shape, filter.shape, strides, padding, explicit_paddings, data_format, dilations,
                       "convolution")
    fmt = _Format.of(data_format)
    return fmt.from_nhwc(conv_forward(fmt.to_nhwc(input), filter, g, ctx.device).astype(input.dtype, copy=False))


# -- _FusedConv2D: Conv2D + BiasAdd (+ an activation), as Grappler's remapper fuses them ---------------------

_FusedConv2D = Op("_FusedConv2D", inputs=["input: T", "filter: T", "args: TArgs", "host_args: num_host_args * float"],
                  outputs=["output: T"],
                  attrs=["T: {half, float, double, int8, qint8}", "TArgs: list(type) >= 1", "num_args: int >= 0",
                         "num_host_args: int >= 0 = 0", "strides: list(int)", "padding: {'SAME', 'VALID', 'EXPLICIT'}",
                         "explicit_paddings: list(int) = []", "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
                         "filter_format: {'HWIO', 'OIHW', 'OIHW_VECT_I'} = 'HWIO'",
                         "dilations: list(int) = [1, 1, 1, 1]", "use_cudnn_on_gpu: bool = true",
                         "fused_ops: list(string) = []", "epsilon: float = 0.0001", "leakyrelu_alpha: float = 0.2"])


@_FusedConv2D.shape
def _fused_conv2d_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return _conv2d_shape(ctx)


@_FusedConv2D.kernel("CPU", expensive=True, type_constraints={"T": (dtypes.float32, dtypes.float64)})
def _fused_conv2d(ctx: OpKernelContext, input: Any, filter: Any, *args: Any, strides: list,  # noqa: A002
                  padding: Any, explicit_paddings: list, data_format: Any, dilations: list, fused_ops: list,
                  leakyrelu_alpha: float) -> Any:
    """Conv2D's values, the bias and activation applied to each block of the output as it is made."""
    output_ops = nn_ops.FusedOutputOps(ctx, args, fused_ops, leakyrelu_alpha)
    g = _conv_geometry(ctx, input.shape, filter.shape, strides, padding, explicit_paddings, data_format, dilations,
                       "convolution")
    fmt = _Format.of(data_format)
    output_ops.check_bias(ctx, tuple(fmt.dims(*g.out_shape)), fmt.nchw)
    return fmt.from_nhwc(conv_forward(fmt.to_nhwc(input), filter, g, ctx.device, output_ops))


DepthwiseConv2dNative = Op("DepthwiseConv2dNative", inputs=["input: T", "filter: T"], outputs=["output: T"],
                           attrs=[f"T: {_FLOAT}", *[a for a in _CONV_ATTRS if not a.startswith("use_cudnn")]])


@DepthwiseConv2dNative.shape
def _depthwise_conv2d_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_dims, filter_dims = _dims(ctx.input_shape(0), 4), _dims(ctx.input_shape(1), 4)
    fmt, strides, dilations, padding, explicit = _conv_attrs(ctx, "DepthwiseConv2dNative")
    kh, kw, filter_depth, multiplier = filter_dims
    in_depth = fmt.depth(input_dims)
    _depth_matches(in_depth, filter_depth)
    depth = in_depth if in_depth is not None else filter_depth
    out_depth = None if depth is None or multiplier is None else depth * multiplier
    return [_conv_output_shape(fmt, input_dims, kh, kw, out_depth, strides, dilations, padding, explicit)]


@DepthwiseConv2dNative.kernel("CPU", expensive=True)
def _depthwise_conv2d(ctx: OpKernelContext, input: Any, filter: Any, strides: list, padding: Any,  # noqa: A002
                      explicit_paddings: list, data_format: Any, dilations: list) -> Any:
    """A grouped convolution with one input channel per group: the [KH, KW, C, M] filter is [KH, KW, 1, C*M]."""
    fmt = _Format.of(data_format)
    if input.ndim == 4 and filter.ndim == 4 and fmt.depth(input.shape) != filter.shape[2]:
        raise invalid_argument(ctx, f"input and filter must have the same depth: {fmt.depth(input.shape)} vs "
                                    f"{filter.shape[2]}")
    grouped = filter.reshape(filter.shape[0], filter.shape[1], 1, -1) if filter.ndim == 4 else filter
    g = _conv_geometry(ctx, input.shape, grouped.shape, strides, padding, explicit_paddings, data_format, dilations,
                       "convolution")
    return fmt.from_nhwc(conv_forward(fmt.to_nhwc(input), grouped, g, ctx.device).astype(input.dtype, copy=False))


# -- Conv2DBackpropInput, Conv2DBackpropFilter ----------------------------------------------------------

Conv2DBackpropInput = Op("Conv2DBackpropInput", inputs=["input_sizes: int32", "filter: T", "out_backprop: T"],
                         outputs=["output: T"], attrs=["T: {half, bfloat16, float, double, int32}", *_CONV_ATTRS])


@Conv2DBackpropInput.shape
def _conv2d_backprop_input_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    sizes = shape_helpers.with_rank(ctx.input_shape(0), 1)
    filter_dims, grad_dims = _dims(ctx.input_shape(1), 4), _dims(ctx.input_shape(2), 4)
    fmt, *_ = _conv_attrs(ctx, "Conv2DBackpropInput")
    _depth_matches(fmt.depth(grad_dims), filter_dims[3])
    count = sizes.dims[0].value
    if count is not None and count not in (2, 4):
        raise ValueError(f"Conv2DBackpropInput requires input_sizes to contain 4 values or 2 values, but got: {count}")
    given = ctx.input_as_shape(0)
    if count == 2:
        h, w = given.as_list() if given.ndims is not None else (None, None)
        return [tensor_shape.TensorShape(fmt.dims(grad_dims[0], h, w, filter_dims[2]))]
    given = shape_helpers.with_rank(given, 4).as_list()  # TF takes the batch from out_backprop, the rest from here
    given_batch, depth = fmt.batch_and_depth(given)
    shape_helpers.merge_dim(given_batch, grad_dims[0])
    return [tensor_shape.TensorShape(fmt.dims(grad_dims[0], *fmt.spatial(given), depth))]


def _backprop_sizes(ctx: OpKernelContext, sizes: Any, other: Sequence[int], fmt: _Format) -> list[int]:
    """input_sizes as 4 values (2 values are the spatial ones, the rest taken from `other`, as TF allows)."""
    sizes = [int(s) for s in np.asarray(sizes).reshape(-1)]
    if len(sizes) == 2 and len(other) == 4:
        n, c = fmt.batch_and_depth(other)
        return fmt.dims(n, sizes[0], sizes[1], c)
    if len(sizes) != 4:
        raise invalid_argument(ctx, f"{ctx.op}: input_sizes must be 4-dimensional, got: {len(sizes)}")
    return sizes


def _check_explicit_cpu_kernel(ctx: OpKernelContext, padding: Any, data_format: Any, strides: list,
                                nhwc_message: str | None = None, dilations: list | None = None) -> None:
    """The limits of TF's own CPU kernels, which run where padding is EXPLICIT (oneDNN takes the others): the
    Conv2D backprops and MaxPool are NHWC only (`nhwc_message`), the Conv2D backprops undilated, the
    depthwise backprops (no `nhwc_message`: their NHWC-only refusal comes after the shape checks) equally
    strided in rows and columns."""
    if attr_text(padding) != "EXPLICIT":
        return
    fmt = _Format.of(data_format)
    if nhwc_message is None:
        if fmt.spatial(strides)[0] != fmt.spatial(strides)[1]:
            raise invalid_argument(ctx, "Current implementation only supports equal length strides in the row and "
                                        "column dimensions.")
        return
    if attr_text(data_format) != "NHWC":
        raise invalid_argument(ctx, nhwc_message)
    if dilations is not None and any(d != 1 for d in fmt.spatial(dilations)):
        raise invalid_argument(ctx, "Current CPU implementations do not yet support dilation rates larger than 1.")


def _depthwise_nhwc_only(ctx: OpKernelContext, padding: Any, data_format: Any) -> None:
    if attr_text(padding) == "EXPLICIT" and attr_text(data_format) != "NHWC":
        raise errors.UnimplementedError(ctx.node_def, None,
                                        "Depthwise convolution on CPU is only supported for NHWC format")


def _check_backprop_sizes(ctx: OpKernelContext, name: str, g: ConvGeometry, grad_shape: Sequence[int],
                          fmt: _Format) -> None:
    """TF's error when out_backprop's spatial size is not what the forward conv would produce."""
    geometry = [(g.in_h, g.kh, g.rows.size, g.stride_h, g.dilation_h), (g.in_w, g.kw, g.cols.size, g.stride_w,
                                                                         g.dilation_w)]
    for dim, (actual, (size, k, computed, stride, dilation)) in enumerate(zip(fmt.spatial(grad_shape), geometry)):
        if actual != computed:
            raise invalid_argument(ctx, f"{name}: Size of out_backprop doesn't match computed: actual = {actual}, "
                                        f"computed = {computed} spatial_dim: {dim + 1} input: {size} filter: {k} "
                                        f"output: {actual} stride: {stride} dilation: {dilation}")
    if fmt.batch_and_depth(grad_shape) != (g.batch, g.out_depth):
        raise invalid_argument(ctx, f"{name}: out_backprop has shape {shape_text(grad_shape)}, the forward "
                                    f"convolution's is {shape_text(fmt.dims(*g.out_shape[:1], *g.out_shape[1:3], g.out_depth))}")


@Conv2DBackpropInput.kernel("CPU", expensive=True)
def _conv2d_backprop_input(ctx: OpKernelContext, input_sizes: Any, filter: Any, out_backprop: Any,  # noqa: A002
                           strides: list, padding: Any, explicit_paddings: list, data_format: Any, dilations: list,
                           use_cudnn_on_gpu: bool) -> Any:
    _check_explicit_cpu_kernel(ctx, padding, data_format, strides, "Conv2DCustomBackpropInputOp only supports NHWC.",
                               dilations)
    fmt = _Format.of(data_format)
    if out_backprop.ndim != 4:
        raise invalid_argument(ctx, f"out_backprop must be 4-dimensional: {shape_text(out_backprop.shape)}")
    sizes = _backprop_sizes(ctx, input_sizes, out_backprop.shape, fmt)
    g = _conv_geometry(ctx, sizes, filter.shape, strides, padding, explicit_paddings, data_format, dilations,
                       "Conv2DCustomBackpropInput:")
    _check_backprop_sizes(ctx, "Conv2DCustomBackpropInput", g, out_backprop.shape, fmt)
    grad = conv_backprop_input(filter, fmt.to_nhwc(out_backprop), g, ctx.device)
    return fmt.from_nhwc(grad.astype(out_backprop.dtype, copy=False))


Conv2DBackpropFilter = Op("Conv2DBackpropFilter", inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
                          outputs=["output: T"], attrs=[f"T: {_FLOAT}", *_CONV_ATTRS])


@Conv2DBackpropFilter.shape
def _conv2d_backprop_filter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _dims(ctx.input_shape(0), 4)
    _dims(ctx.input_shape(2), 4)
    _conv_attrs(ctx, "Conv2DBackpropFilter")
    shape = shape_helpers.shape_from_tensor(ctx, 1)
    return [shape_helpers.with_rank(shape, 4)]


@Conv2DBackpropFilter.kernel("CPU", expensive=True)
def _conv2d_backprop_filter(ctx: OpKernelContext, input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                            strides: list, padding: Any, explicit_paddings: list, data_format: Any, dilations: list,
                            use_cudnn_on_gpu: bool) -> Any:
    _check_explicit_cpu_kernel(ctx, padding, data_format, strides, "Conv2DCustomBackpropFilterOp only supports NHWC.",
                               dilations)
    fmt = _Format.of(data_format)
    if out_backprop.ndim != 4:
        raise invalid_argument(ctx, f"out_backprop must be 4-dimensional: {shape_text(out_backprop.shape)}")
    sizes = [int(s) for s in np.asarray(filter_sizes).reshape(-1)]
    g = _conv_geometry(ctx, input.shape, sizes, strides, padding, explicit_paddings, data_format, dilations,
                       "Conv2DCustomBackpropFilter: filter_sizes must be 4-dimensional; input")
    _check_backprop_sizes(ctx, "Conv2DCustomBackpropFilter", g, out_backprop.shape, fmt)
    grad = conv_backprop_filter(fmt.to_nhwc(input), fmt.to_nhwc(out_backprop), g, ctx.device)
    return grad.astype(input.dtype, copy=False)


# Conv2DBackpropInputV2 and Conv2DBackpropFilterV2 take the other operand itself rather than its shape (TF 2.21
# registers no CPU kernel for them; these run the kernels above on its shape).

Conv2DBackpropInputV2 = Op("Conv2DBackpropInputV2", inputs=["input: T", "filter: T", "out_backprop: T"],
                           outputs=["output: T"], attrs=["T: {half, bfloat16, float, double, int32}", *_CONV_ATTRS])
Conv2DBackpropFilterV2 = Op("Conv2DBackpropFilterV2", inputs=["input: T", "filter: T", "out_backprop: T"],
                            outputs=["output: T"], attrs=[f"T: {_FLOAT}", *_CONV_ATTRS])
Conv2DBackpropInputV2.shape(lambda ctx: [shape_helpers.with_rank(ctx.input_shape(0), 4)])
Conv2DBackpropFilterV2.shape(lambda ctx: [shape_helpers.with_rank(ctx.input_shape(1), 4)])


@Conv2DBackpropInputV2.kernel("CPU", expensive=True)
def _conv2d_backprop_input_v2(ctx: OpKernelContext, input: Any, filter: Any, out_backprop: Any,  # noqa: A002
                              strides: list, padding: Any, explicit_paddings: list, data_format: Any,
                              dilations: list, use_cudnn_on_gpu: bool) -> Any:
    return _conv2d_backprop_input(ctx, np.array(input.shape, np.int32), filter, out_backprop, strides, padding,
                                  explicit_paddings, data_format, dilations, use_cudnn_on_gpu)


@Conv2DBackpropFilterV2.kernel("CPU", expensive=True)
def _conv2d_backprop_filter_v2(ctx: OpKernelContext, input: Any, filter: Any, out_backprop: Any,  # noqa: A002
                               strides: list, padding: Any, explicit_paddings: list, data_format: Any,
                               dilations: list, use_cudnn_on_gpu: bool) -> Any:
    return _conv2d_backprop_filter(ctx, input, np.array(filter.shape, np.int32), out_backprop, strides, padding,
                                   explicit_paddings, data_format, dilations, use_cudnn_on_gpu)


# -- DepthwiseConv2dNativeBackpropInput, DepthwiseConv2dNativeBackpropFilter -------------------------------

_DEPTHWISE_ATTRS = [f"T: {_FLOAT}", *[a for a in _CONV_ATTRS if not a.startswith("use_cudnn")]]
DepthwiseConv2dNativeBackpropInput = Op("DepthwiseConv2dNativeBackpropInput",
                                        inputs=["input_sizes: int32", "filter: T", "out_backprop: T"],
                                        outputs=["output: T"], attrs=_DEPTHWISE_ATTRS)


@DepthwiseConv2dNativeBackpropInput.shape
def _depthwise_backprop_input_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 1)
    _dims(ctx.input_shape(1), 4)
    _dims(ctx.input_shape(2), 4)
    _conv_attrs(ctx, "DepthwiseConv2dNativeBackpropInput")
    return [shape_helpers.with_rank(ctx.input_as_shape(0), 4)]


def _depthwise_geometry(ctx: OpKernelContext, input_shape: Sequence[int], filter_shape: Sequence[int],
                        out_backprop: Any, strides: list, padding: Any, explicit_paddings: list, data_format: Any,
                        dilations: list, name: str) -> tuple[ConvGeometry, _Format]:
    """The grouped geometry of a depthwise conv ([KH, KW, C, M] as [KH, KW, 1, C*M]), checked as TF's
    backprop kernels check it."""
    fmt = _Format.of(data_format)
    for what, shape in (("input", input_shape), ("filter", filter_shape), ("out_backprop", out_backprop.shape)):
        if len(shape) != 4:
            raise invalid_argument(ctx, f"{name}: {what} must be 4-dimensional: {shape_text(shape)}")
    if fmt.depth(input_shape) != filter_shape[2]:
        raise invalid_argument(ctx, f"{name}: input and filter must have the same in_depth: "
                                    f"{fmt.depth(input_shape)} vs {filter_shape[2]}")
    grouped = [filter_shape[0], filter_shape[1], 1, filter_shape[2] * filter_shape[3]]
    if attr_text(padding) == "EXPLICIT":  # TF's own CPU kernel (oneDNN takes the others) ignores dilations
        dilations = [1, 1, 1, 1]
    g = _conv_geometry(ctx, input_shape, grouped, strides, padding, explicit_paddings, data_format, dilations, name)
    if attr_text(padding) == "EXPLICIT":
        for what, actual, computed in zip(("rows", "columns"), fmt.spatial(out_backprop.shape),
                                          (g.rows.size, g.cols.size)):
            if actual != computed:
                raise invalid_argument(ctx, f"{name}: Number of {what} of out_backprop doesn't match computed: "
                                            f"actual = {actual}, computed = {computed}")
    _check_backprop_sizes(ctx, name, g, out_backprop.shape, fmt)
    return g, fmt


@DepthwiseConv2dNativeBackpropInput.kernel("CPU", expensive=True)
def _depthwise_backprop_input(ctx: OpKernelContext, input_sizes: Any, filter: Any, out_backprop: Any,  # noqa: A002
                              strides: list, padding: Any, explicit_paddings: list, data_format: Any,
                              dilations: list) -> Any:
    _check_explicit_cpu_kernel(ctx, padding, data_format, strides)
    sizes = [int(s) for s in np.asarray(input_sizes).reshape(-1)]
    g, fmt = _depthwise_geometry(ctx, sizes, filter.shape, out_backprop, strides, padding, explicit_paddings,
                                 data_format, dilations, "DepthwiseConv2DBackpropInput")
    _depthwise_nhwc_only(ctx, padding, data_format)
    grouped = filter.reshape(filter.shape[0], filter.shape[1], 1, -1)
    grad = conv_backprop_input(grouped, fmt.to_nhwc(out_backprop), g, ctx.device)
    return fmt.from_nhwc(grad.astype(out_backprop.dtype, copy=False))


DepthwiseConv2dNativeBackpropFilter = Op("DepthwiseConv2dNativeBackpropFilter",
                                         inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
                                         outputs=["output: T"], attrs=_DEPTHWISE_ATTRS)


@DepthwiseConv2dNativeBackpropFilter.shape
def _depthwise_backprop_filter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _dims(ctx.input_shape(0), 4)
    _dims(ctx.input_shape(2), 4)
    _conv_attrs(ctx, "DepthwiseConv2dNativeBackpropFilter")
    return [shape_helpers.with_rank(shape_helpers.shape_from_tensor(ctx, 1), 4)]


@DepthwiseConv2dNativeBackpropFilter.kernel("CPU", expensive=True)
def _depthwise_backprop_filter(ctx: OpKernelContext, input: Any, filter_sizes: Any,  # noqa: A002
                               out_backprop: Any, strides: list, padding: Any, explicit_paddings: list,
                               data_format: Any, dilations: list) -> Any:
    _check_explicit_cpu_kernel(ctx, padding, data_format, strides)
    sizes = [int(s) for s in np.asarray(filter_sizes).reshape(-1)]
    g, fmt = _depthwise_geometry(ctx, input.shape, sizes, out_backprop, strides, padding, explicit_paddings,
                                 data_format, dilations, "DepthwiseConv2DBackpropFilter")
    _depthwise_nhwc_only(ctx, padding, data_format)
    grad = conv_backprop_filter(fmt.to_nhwc(input), fmt.to_nhwc(out_backprop), g, ctx.device)
    return grad.reshape(sizes).astype(input.dtype, copy=False)


# -- Pooling --------------------------------------------------------------------------------------------


def _pool_geometry(ctx: OpKernelContext, x_shape: Sequence[int], ksize: list, strides: list, padding: Any,
                   fmt: _Format, explicit: Sequence[int] = ()) -> PoolGeometry:
    """TF's run-time checks of a pooling node, then its geometry."""
    if len(x_shape) != 4:
        raise invalid_argument(ctx, "input must be 4-dimensional")
    if any(k <= 0 for k in ksize):
        raise invalid_argument(ctx, "Sliding window ksize must be positive. The specified or inferred ksize is: "
                                    + ",".join(map(str, ksize)))
    if any(s <= 0 for s in strides):
        raise invalid_argument(ctx, "Sliding window stride must be positive. The specified or inferred stride is: "
                                    + ",".join(map(str, strides)))
    if fmt.batch_and_depth(ksize)[0] != 1 or fmt.batch_and_depth(strides)[0] != 1:
        raise errors.UnimplementedError(ctx.node_def, None, "Pooling is not yet supported on the batch dimension.")
    if fmt.depth(ksize) != 1 or fmt.depth(strides) != 1:
        raise errors.UnimplementedError(ctx.node_def, None, "MaxPooling supports exactly one of pooling across depth "
                                        "or pooling across width/height.")
    (h, w), (kh, kw), (sh, sw) = fmt.spatial(x_shape), fmt.spatial(ksize), fmt.spatial(strides)
    pad_h, pad_w = _explicit_pairs(fmt, explicit)
    padding = attr_text(padding)
    return PoolGeometry(runtime_window(ctx, h, kh, sh, 1, padding, pad_h),
                         runtime_window(ctx, w, kw, sw, 1, padding, pad_w), kh, kw, sh, sw)


def _pool_shape(ctx: InferenceContext, pool_depth: bool) -> list[tensor_shape.TensorShape]:
    """TF's pooling shape function: the spatial windows, and with `pool_depth` (MaxPool) the depth window."""
    dims = _dims(ctx.input_shape(0), 4)
    fmt = _Format.of(ctx.attr("data_format"))
    ksize, strides = list(ctx.attr("ksize")), list(ctx.attr("strides"))
    padding = attr_text(ctx.attr("padding"))
    explicit = list(ctx.attr("explicit_paddings")) if "explicit_paddings" in ctx.node_def.attr else []
    _check_explicit_paddings(fmt, padding, explicit)
    pad_h, pad_w = _explicit_pairs(fmt, explicit)
    (h, w), (kh, kw), (sh, sw) = fmt.spatial(dims), fmt.spatial(ksize), fmt.spatial(strides)
    depth = fmt.depth(dims)
    if pool_depth and depth is not None and fmt.depth(ksize) != 1:
        depth = static_window(depth, fmt.depth(ksize), fmt.depth(strides), 1, padding)
    return [tensor_shape.TensorShape(fmt.dims(dims[0], static_window(h, kh, sh, 1, padding, pad_h),
                                              static_window(w, kw, sw, 1, padding, pad_w), depth))]


MaxPool = Op("MaxPool", inputs=["input: T"], outputs=["output: T"],
             attrs=["T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8} = DT_FLOAT",
                    *_POOL_ATTRS, "padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []",
                    "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"])
MaxPool.shape(lambda ctx: _pool_shape(ctx, pool_depth=True))


@MaxPool.kernel("CPU")
def _max_pool(ctx: OpKernelContext, input: Any, ksize: list, strides: list, padding: Any,  # noqa: A002
              explicit_paddings: list, data_format: Any) -> Any:
    _check_explicit_cpu_kernel(ctx, padding, data_format, strides,
                               "Default MaxPoolingOp only supports NHWC on device type CPU")
    fmt = _Format.of(data_format)
    if (input.ndim == 4 and fmt.depth(ksize) > 1 and all(k == 1 for k in fmt.spatial(ksize))
            and fmt.batch_and_depth(ksize)[0] == fmt.batch_and_depth(strides)[0] == 1):
        return _depthwise_max_pool(ctx, input, ksize, strides, padding, fmt)
    g = _pool_geometry(ctx, input.shape, ksize, strides, padding, fmt, explicit_paddings)
    return fmt.from_nhwc(max_pool_nhwc(fmt.to_nhwc(input), g, ctx.device))


def _depthwise_max_pool(ctx: OpKernelContext, x: Any, ksize: list, strides: list, padding: Any,
                        fmt: _Format) -> Any:
    """TF's depthwise max pool: a 1x1 spatial window over non-overlapping runs of channels (TF ignores the
    spatial strides here)."""
    depth, window = fmt.depth(x.shape), fmt.depth(ksize)
    if depth % window:
        raise errors.UnimplementedError(ctx.node_def, None, "Depthwise max pooling requires the depth window to "
                                                            "evenly divide the input depth")
    if fmt.depth(strides) != window:
        raise errors.UnimplementedError(ctx.node_def, None, "Depthwise max pooling requires the depth window to "
                                                            "equal the depth stride")
    if attr_text(padding) == "EXPLICIT":
        raise errors.UnimplementedError(ctx.node_def, None, "Depthwise max pooling does not support explicit "
                                                            "padding.")
    nhwc = fmt.to_nhwc(x)
    return fmt.from_nhwc(nhwc.reshape(nhwc.shape[:3] + (depth // window, window)).max(axis=-1))


AvgPool = Op("AvgPool", inputs=["value: T"], outputs=["output: T"],
             attrs=[*_POOL_ATTRS, "padding: {'SAME', 'VALID'}", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
                    f"T: {_FLOAT}"])
AvgPool.shape(lambda ctx: _pool_shape(ctx, pool_depth=False))


@AvgPool.kernel("CPU")
def _avg_pool(ctx: OpKernelContext, value: Any, ksize: list, strides: list, padding: Any, data_format: Any) -> Any:
    fmt = _Format.of(data_format)
    g = _pool_geometry(ctx, value.shape, ksize, strides, padding, fmt)
    return fmt.from_nhwc(avg_pool_nhwc(fmt.to_nhwc(value), g, ctx.device).astype(value.dtype, copy=False))


MaxPoolGrad = Op("MaxPoolGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"], outputs=["output: T"],
                 attrs=[*_POOL_ATTRS, "padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []",
                        "data_format: {'NHWC', 'NCHW'} = 'NHWC'", "T: realnumbertype = DT_FLOAT"])


@MaxPoolGrad.shape
def _max_pool_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_helpers.with_rank(ctx.input_shape(0), 4)]


@MaxPoolGrad.kernel("CPU")
def _max_pool_grad(ctx: OpKernelContext, orig_input: Any, orig_output: Any, grad: Any, ksize: list, strides: list,
                   padding: Any, explicit_paddings: list, data_format: Any) -> Any:
    """Each window's gradient goes to the first input position (in row-major window order) holding its
    maximum, as TF's CPU kernel routes it: taps are visited in that order and a window claims only once."""
    _check_explicit_cpu_kernel(ctx, padding, data_format, strides,
                               "Default MaxPoolingOp only supports NHWC on device type CPU")
    fmt = _Format.of(data_format)
    g = _pool_geometry(ctx, orig_input.shape, ksize, strides, padding, fmt, explicit_paddings)
    x, out, dy = fmt.to_nhwc(orig_input), fmt.to_nhwc(orig_output), fmt.to_nhwc(grad)
    if dy.shape != out.shape or out.shape != (x.shape[0], g.rows.size, g.cols.size, x.shape[3]):
        raise invalid_argument(ctx, f"Expected orig_output shape to be {shape_text(out.shape)}, but got "
                                    f"{shape_text(dy.shape)}")
    return fmt.from_nhwc(max_pool_grad_nhwc(x, out, dy, g, ctx.device).astype(x.dtype, copy=False))


MaxPoolGradGrad = Op("MaxPoolGradGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"], outputs=["output: T"],
                     attrs=[*_POOL_ATTRS, "padding: {'SAME', 'VALID'}", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
                            "T: realnumbertype"])
MaxPoolGradGrad.shape(lambda ctx: _pool_shape(ctx, pool_depth=False))


@MaxPoolGradGrad.kernel("CPU")
def _max_pool_grad_grad(ctx: OpKernelContext, orig_input: Any, orig_output: Any, grad: Any, ksize: list,
                        strides: list, padding: Any, data_format: Any) -> Any:
    """The gradient of MaxPoolGrad by its gradient input: each window takes `grad` (shaped as the input) at
    the first position (in row-major window order) holding its maximum."""
    fmt = _Format.of(data_format)
    g = _pool_geometry(ctx, orig_input.shape, ksize, strides, padding, fmt)
    x, out, dx = fmt.to_nhwc(orig_input), fmt.to_nhwc(orig_output), fmt.to_nhwc(grad)
    if out.shape != (x.shape[0], g.rows.size, g.cols.size, x.shape[3]) or dx.shape != x.shape:
        raise invalid_argument(ctx, f"Expected orig_output shape to be {shape_text(out.shape)} and grad shape "
                                    f"{shape_text(x.shape)}")
    result = np.zeros(out.shape, grad.dtype)
    for (out_rows, out_cols), (in_rows, in_cols), hit in first_max_taps(x, out, g):
        np.copyto(result[:, out_rows, out_cols], dx[:, in_rows, in_cols], where=hit)
    return fmt.from_nhwc(result)


AvgPoolGrad = Op("AvgPoolGrad", inputs=["orig_input_shape: int32", "grad: T"], outputs=["output: T"],
                 attrs=[*_POOL_ATTRS, "padding: {'SAME', 'VALID'}", "data_format: {'NHWC', 'NCHW'} = 'NHWC'",
                        f"T: {_FLOAT}"])


@AvgPoolGrad.shape
def _avg_pool_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_helpers.with_rank(shape_helpers.shape_from_tensor(ctx, 0), 4)]


@AvgPoolGrad.kernel("CPU")
def _avg_pool_grad(ctx: OpKernelContext, orig_input_shape: Any, grad: Any, ksize: list, strides: list,
                   padding: Any, data_format: Any) -> Any:
    """Each window's gradient divided by its count of input elements and spread over them."""
    fmt = _Format.of(data_format)
    sizes = [int(s) for s in np.asarray(orig_input_shape).reshape(-1)]
    if len(sizes) != 4:
        raise invalid_argument(ctx, "orig_input_shape must have 4 elements")
    g = _pool_geometry(ctx, sizes, ksize, strides, padding, fmt)
    n, c = fmt.batch_and_depth(sizes)
    h, w = fmt.spatial(sizes)
    dy = fmt.to_nhwc(grad)
    if dy.shape != (n, g.rows.size, g.cols.size, c):
        raise invalid_argument(ctx, f"grad has shape {shape_text(grad.shape)}, the pooled output's is "
                                    f"{shape_text(fmt.dims(n, g.rows.size, g.cols.size, c))}")
    dtype = compute_dtype(grad.dtype)
    shares = dy.astype(dtype) / avg_divisors((n, h, w, c), g, dtype)
    result = np.zeros((n, h, w, c), dtype)
    for (out_rows, out_cols), (in_rows, in_cols) in g.taps((n, h, w, c)):
        result[:, in_rows, in_cols] += shares[:, out_rows, out_cols]
    return fmt.from_nhwc(result.astype(grad.dtype, copy=False))


# -- MaxPoolWithArgmax, MaxPoolGradWithArgmax -------------------------------------------------------------

MaxPoolWithArgmax = Op("MaxPoolWithArgmax", inputs=["input: T"], outputs=["output: T", "argmax: Targmax"],
                       attrs=[*_POOL_ATTRS, "Targmax: {int32, int64} = DT_INT64", "padding: {'SAME', 'VALID'}",
                              "include_batch_in_index: bool = false", "T: realnumbertype"])


@MaxPoolWithArgmax.shape
def _max_pool_with_argmax_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    n, h, w, c = _dims(ctx.input_shape(0), 4)
    ksize, strides, padding = list(ctx.attr("ksize")), list(ctx.attr("strides")), attr_text(ctx.attr("padding"))
    out = tensor_shape.TensorShape([n, static_window(h, ksize[1], strides[1], 1, padding),
                                    static_window(w, ksize[2], strides[2], 1, padding), c])
    return [out, out]


def _window_argmax(x: Any, g: PoolGeometry) -> tuple[Any, Any, Any]:
    """Each NHWC window's maximum and the input row and column it sits at: the first in row-major order
    among equals, padding never (TF's kernel walks the input in that order and keeps a strictly greater)."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (g.rows.before, g.rows.after), (g.cols.before, g.cols.after), (0, 0)),
                    constant_values=lowest(x.dtype))
    sn, sh, sw, sc = padded.strides
    windows = as_strided(padded, (n, g.rows.size, g.cols.size, g.kh, g.kw, c),
                         (sn, sh * g.stride_h, sw * g.stride_w, sh, sw, sc), writeable=False)
    flat = windows.transpose(0, 1, 2, 5, 3, 4).reshape(n, g.rows.size, g.cols.size, c, g.kh * g.kw)
    best = flat.argmax(axis=-1)
    values = np.take_along_axis(flat, best[..., None], axis=-1)[..., 0]
    rows = np.arange(g.rows.size)[None, :, None, None] * g.stride_h - g.rows.before + best // g.kw
    cols = np.arange(g.cols.size)[None, None, :, None] * g.stride_w - g.cols.before + best % g.kw
    return values, rows, cols


@MaxPoolWithArgmax.kernel("CPU")
def _max_pool_with_argmax(ctx: OpKernelContext, input: Any, ksize: list, strides: list, padding: Any,  # noqa: A002
                          Targmax: Any, include_batch_in_index: bool) -> tuple[Any, Any]:  # noqa: N803
    """The maximum of each window and where it is in the input, flattened as ((b * H + y) * W + x) * C + c
    (the batch term only with `include_batch_in_index`)."""
    g = _pool_geometry(ctx, input.shape, ksize, strides, padding, _Format.of("NHWC"))
    n, h, w, c = input.shape
    values, rows, cols = _window_argmax(input, g)
    index = (rows * w + cols) * c + np.arange(c)
    if include_batch_in_index:
        index = index + np.arange(n)[:, None, None, None] * (h * w * c)
    return values, index.astype(Targmax.as_numpy_dtype)


MaxPoolGradWithArgmax = Op("MaxPoolGradWithArgmax", inputs=["input: T", "grad: T", "argmax: Targmax"],
                           outputs=["output: T"],
                           attrs=[*_POOL_ATTRS, "padding: {'SAME', 'VALID'}", "include_batch_in_index: bool = false",
                                  "Targmax: {int32, int64}", "T: realnumbertype"])


@MaxPoolGradWithArgmax.shape
def _max_pool_grad_with_argmax_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_helpers.with_rank(ctx.input_shape(0), 4)]


@MaxPoolGradWithArgmax.kernel("CPU", type_constraints={"Targmax": [dtypes.int64]})
def _max_pool_grad_with_argmax(ctx: OpKernelContext, input: Any, grad: Any, argmax: Any,  # noqa: A002
                               include_batch_in_index: bool) -> Any:
    """Each output gradient added into the input element its argmax names."""
    if grad.shape != argmax.shape:
        raise invalid_argument(ctx, f"Expected grad shape to be {shape_text(argmax.shape)}, but got "
                                    f"{shape_text(grad.shape)}")
    n = input.shape[0]
    per_image = int(np.prod(input.shape[1:]))
    index = argmax.reshape(n, -1).astype(np.int64)
    if not include_batch_in_index:
        index = index + np.arange(n)[:, None] * per_image
    out = np.zeros(input.size, dtype=grad.dtype)
    np.add.at(out, index.reshape(-1), grad.reshape(-1))
    return out.reshape(input.shape)


@MaxPoolWithArgmax.gradient
def _max_pool_with_argmax_grad(op: Any, grad: Tensor, _: Tensor) -> list:
    return [MaxPoolGradWithArgmax(op.inputs[0], grad, op.outputs[1], ksize=op.get_attr("ksize"),
                                  strides=op.get_attr("strides"), padding=op.get_attr("padding"),
                                  include_batch_in_index=op.get_attr("include_batch_in_index"))]


# -- Public wrappers ------------------------------------------------------------------------------------


def get_sequence(value: Any, n: int, channel: int, name: str) -> list[int]:
    """A stride, dilation or window argument as TF's wrappers expand it: one value or n values for the spatial
    dimensions (1 for batch and channels), or all n + 2."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, int):
        value = [value]
    value = list(value)
    if len(value) == n + 2:
        return value
    if len(value) == 1:
        value = value * n
    elif len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: {name}={value} of length "
                         f"{len(value)}")
    return [1, 1, *value] if channel == 1 else [1, *value, 1]


def convert_padding(padding: Any) -> tuple[str, list[int]]:
    """A padding string, or explicit [[before, after]] * 4 pairs as the flat explicit_paddings attr."""
    if isinstance(padding, (list, tuple)):
        if len(padding) != 4:
            raise ValueError(f"When padding is a list, it must be of size 4. Received: padding={padding} of size "
                             f"{len(padding)}")
        flat = []
        for pair in padding:
            if len(pair) != 2:
                raise ValueError(f"When padding is a list, each element of padding must be a list/tuple of size 2. "
                                 f"Received: padding={padding}")
            flat.extend(int(p) for p in pair)
        return "EXPLICIT", flat
    return padding, []


def channel_index(data_format: str | None) -> int:
    return 1 if data_format is not None and data_format.startswith("NC") else -1


def _static_rank(value: Any) -> int | None:
    """The rank TF's wrappers read off `value.shape` (a NumPy array's or a list's too) before converting."""
    shape = getattr(value, "shape", None)
    if shape is None:
        return np.ndim(value)
    ndims = getattr(shape, "ndims", -1)
    return len(shape) if ndims == -1 else ndims


def squeeze_batch_dims(inp: Any, op: Any, inner_rank: int, name: str | None = None) -> Tensor:
    """`op` over `inp` with its batch dimensions (all but the last `inner_rank`) merged into one, as TF runs
    a convolution over more than one batch dimension: Reshape to [-1] + inner shape, op, Reshape back."""
    with name_scope(name, "squeeze_batch_dims", [inp]):
        inp = convert_to_tensor(inp, name="input")
        shape = inp.shape
        inner_shape: Any = shape[-inner_rank:]
        if not inner_shape.is_fully_defined():
            inner_shape = shape_ops.shape(inp)[-inner_rank:]
        batch_shape: Any = shape[:-inner_rank]
        if not batch_shape.is_fully_defined():
            batch_shape = shape_ops.shape(inp)[:-inner_rank]
        if isinstance(inner_shape, tensor_shape.TensorShape):
            inp_reshaped = shape_ops.reshape(inp, [-1, *inner_shape.as_list()])
        else:
            inp_reshaped = shape_ops.reshape(inp, manipulation_ops.concat(([-1], inner_shape), axis=-1))
        out_reshaped = op(inp_reshaped)
        out_inner_shape: Any = out_reshaped.shape[-inner_rank:]
        if not out_inner_shape.is_fully_defined():
            out_inner_shape = shape_ops.shape(out_reshaped)[-inner_rank:]
        out = shape_ops.reshape(out_reshaped, manipulation_ops.concat((batch_shape, out_inner_shape), axis=-1))
        out.set_shape(inp.shape[:-inner_rank].concatenate(out.shape[-inner_rank:]))
        return out


@tf_export("nn.conv2d")
def conv2d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,  # noqa: A002
           use_cudnn_on_gpu: bool = True, data_format: str = "NHWC", dilations: Any = [1, 1, 1, 1],  # noqa: B006
           name: str | None = None, filters: Any = None) -> Tensor:
    """The 2-D convolution of `input` with `filter` (`filters` is the v2 name); strides and dilations are
    1, 2 or 4 values, padding 'SAME', 'VALID' or explicit [before, after] pairs per dimension."""
    filter = _deprecated_alias("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    channel = channel_index(data_format)
    attrs = {"strides": get_sequence(strides, 2, channel, "strides"), "padding": padding,
             "use_cudnn_on_gpu": use_cudnn_on_gpu, "explicit_paddings": explicit, "data_format": data_format,
             "dilations": get_sequence(dilations, 2, channel, "dilations")}
    if _static_rank(input) in (4, 3, 2, 1, 0, None):
        return Conv2D(input, filter, name=name, **attrs)
    return squeeze_batch_dims(input, lambda x: Conv2D(x, filter, **attrs), inner_rank=3, name=name)


@tf_export("nn.conv2d_backprop_input")
def conv2d_backprop_input(input_sizes: Any, filter: Any = None, out_backprop: Any = None,  # noqa: A002
                          strides: Any = None, padding: Any = None, use_cudnn_on_gpu: bool = True,
                          data_format: str = "NHWC", dilations: Any = [1, 1, 1, 1],  # noqa: B006
                          name: str | None = None, filters: Any = None) -> Tensor:
    """The gradient of conv2d with respect to its input, of shape `input_sizes`."""
    filter = _deprecated_alias("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    return Conv2DBackpropInput(input_sizes, filter, out_backprop, strides=strides, padding=padding,
                               use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit,
                               data_format=data_format, dilations=dilations, name=name)


@tf_export("nn.conv2d_backprop_filter")
def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any, strides: Any,  # noqa: A002
                           padding: Any, use_cudnn_on_gpu: bool = True, data_format: str = "NHWC",
                           dilations: Any = [1, 1, 1, 1], name: str | None = None) -> Tensor:  # noqa: B006
    """The gradient of conv2d with respect to its filter, of shape `filter_sizes`."""
    padding, explicit = convert_padding(padding)
    return Conv2DBackpropFilter(input, filter_sizes, out_backprop, strides=strides, padding=padding,
                                use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit,
                                data_format=data_format, dilations=dilations, name=name)


@tf_export("conv2d_backprop_input_v2")
def conv2d_backprop_input_v2(input: Any, filter: Any, out_backprop: Any, strides: Any, padding: str,  # noqa: A002
                             use_cudnn_on_gpu: bool = True, explicit_paddings: Any = [],  # noqa: B006
                             data_format: str = "NHWC", dilations: Any = [1, 1, 1, 1],  # noqa: B006
                             name: str | None = None) -> Tensor:
    """The gradient of conv2d with respect to its input, shaped as `input`."""
    return Conv2DBackpropInputV2(input, filter, out_backprop, strides=strides, padding=padding,
                                 use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit_paddings,
                                 data_format=data_format, dilations=dilations, name=name)


@tf_export("conv2d_backprop_filter_v2")
def conv2d_backprop_filter_v2(input: Any, filter: Any, out_backprop: Any, strides: Any, padding: str,  # noqa: A002
                              use_cudnn_on_gpu: bool = True, explicit_paddings: Any = [],  # noqa: B006
                              data_format: str = "NHWC", dilations: Any = [1, 1, 1, 1],  # noqa: B006
                              name: str | None = None) -> Tensor:
    """The gradient of conv2d with respect to its filter, shaped as `filter`."""
    return Conv2DBackpropFilterV2(input, filter, out_backprop, strides=strides, padding=padding,
                                  use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit_paddings,
                                  data_format=data_format, dilations=dilations, name=name)


@tf_export("nn.conv2d_transpose")
def conv2d_transpose(value: Any = None, filter: Any = None, output_shape: Any = None,  # noqa: A002
                     strides: Any = None, padding: str = "SAME", data_format: str = "NHWC",
                     name: str | None = None, input: Any = None, filters: Any = None,  # noqa: A002
                     dilations: Any = None) -> Tensor:
    """The transpose of conv2d (its input gradient): `value` [N, H, W, out channels] to `output_shape`."""
    value = _deprecated_alias("input", input, "value", value)
    filter = _deprecated_alias("filters", filters, "filter", filter)
    with name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        channel = channel_index(data_format)
        padding, explicit = convert_padding(padding)
        return Conv2DBackpropInput(output_shape, filter, value, strides=get_sequence(strides, 2, channel, "strides"),
                                   padding=padding, explicit_paddings=explicit, data_format=data_format,
                                   dilations=get_sequence(dilations, 2, channel, "dilations"), name=scope)


@tf_export("nn.conv1d_transpose")
def conv1d_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                     padding: str = "SAME", data_format: str = "NWC", dilations: Any = None,
                     name: str | None = None) -> Tensor:
    """The transpose of conv1d, as TF composes it: ExpandDims, Conv2DBackpropInput, Squeeze."""
    with name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as scope:
        if data_format in (None, "NWC"):
            data_format, spatial_start, channel = "NHWC", 1, -1
        elif data_format == "NCW":
            data_format, spatial_start, channel = "NCHW", 2, 1
        else:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
        strides = [1, *get_sequence(strides, 1, channel, "stride")]
        dilations = [1, *get_sequence(dilations, 1, channel, "dilations")]
        input = shape_ops.expand_dims(input, spatial_start)
        filters = shape_ops.expand_dims(filters, 0)
        if not isinstance(output_shape, Tensor):
            output_shape = list(output_shape)
        sizes = manipulation_ops.concat([output_shape[:spatial_start], [1], output_shape[spatial_start:]], 0)
        result = Conv2DBackpropInput(sizes, filters, input, strides=strides, padding=padding,
                                     data_format=data_format, dilations=dilations, name=scope)
        return shape_ops.squeeze(result, [spatial_start])


@tf_export("nn.atrous_conv2d_transpose")
def atrous_conv2d_transpose(value: Any, filters: Any, output_shape: Any, rate: int, padding: str,
                            name: str | None = None) -> Tensor:
    """The transpose of atrous_conv2d, as TF composes it: the input padded to a multiple of `rate` and moved
    into the batch (SpaceToBatch), an undilated VALID Conv2DBackpropInput, and BatchToSpace cropping the
    SAME padding and the extension back off."""
    with name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]):
        value = convert_to_tensor(value, name="value")
        filters = convert_to_tensor(filters, name="filters")
        if not value.shape.dims[3].is_compatible_with(filters.shape[3]):
            raise ValueError("`value` channel count must be compatible with `filters` input channel count. Received: "
                             f"value.shape={value.shape} with channel count {value.shape[3]} and "
                             f"filters.shape={filters.shape} with input channel count {filters.shape[3]}.")
        if rate < 1:
            raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
        if rate == 1:
            return conv2d_transpose(value, filters, output_shape, strides=[1, 1, 1, 1], padding=padding,
                                    data_format="NHWC")
        output_shape_ = convert_to_tensor(output_shape, name="output_shape")
        if not output_shape_.shape.is_compatible_with(tensor_shape.TensorShape([4])):
            raise ValueError(f"`output_shape` must have shape (4,). Received: output_shape={output_shape_.shape}")
        if isinstance(output_shape, tuple):
            output_shape = list(output_shape)
        if isinstance(output_shape, (list, np.ndarray)) and \
                not filters.shape.dims[2].is_compatible_with(output_shape[3]):
            raise ValueError("`output_shape` channel count must be compatible with `filters` output channel count. "
                             f"Received: output_shape={output_shape} with channel count {output_shape[3]} and "
                             f"filters.shape={filters.shape} with output channel count {filters.shape[3]}.")
        if padding == "SAME":
            filter_shape: Any = filters.shape.as_list() if filters.shape.is_fully_defined() \
                else shape_ops.shape(filters)
            pad_height = (filter_shape[0] + (filter_shape[0] - 1) * (rate - 1)) - 1
            pad_width = (filter_shape[1] + (filter_shape[1] - 1) * (rate - 1)) - 1
            pad_top, pad_left = pad_height // 2, pad_width // 2
            pad_bottom, pad_right = pad_height - pad_top, pad_width - pad_left
        elif padding == "VALID":
            pad_top = pad_bottom = pad_left = pad_right = 0
        else:
            raise ValueError(f"`padding` must be either 'VALID' or 'SAME'. Received: padding={padding}")
        in_height = output_shape[1] + pad_top + pad_bottom
        in_width = output_shape[2] + pad_left + pad_right
        pad_bottom_extra = (rate - in_height % rate) % rate
        pad_right_extra = (rate - in_width % rate) % rate
        value = space_batch_ops.space_to_batch(value, [[0, pad_bottom_extra], [0, pad_right_extra]], block_size=rate)
        input_sizes = [rate * rate * output_shape[0], (in_height + pad_bottom_extra) // rate,
                       (in_width + pad_right_extra) // rate, output_shape[3]]
        value = Conv2DBackpropInput(input_sizes, filters, value, strides=[1, 1, 1, 1], padding="VALID",
                                    data_format="NHWC")
        crops = [[pad_top, pad_bottom + pad_bottom_extra], [pad_left, pad_right + pad_right_extra]]
        return space_batch_ops.batch_to_space(value, crops, block_size=rate)


@tf_export("nn.conv1d")
def conv1d(value: Any = None, filters: Any = None, stride: Any = None, padding: Any = None,
           use_cudnn_on_gpu: Any = None, data_format: str | None = None, name: str | None = None,
           input: Any = None, dilations: Any = None) -> Tensor:  # noqa: A002
    """A 1-D convolution as TF composes it: ExpandDims of input and filter, Conv2D, Squeeze."""
    value = _deprecated_alias("input", input, "value", value)
    with name_scope(name, "conv1d", [value, filters]) as scope:
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, spatial_start, channel = "NHWC", -3, 2
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start, channel = "NCHW", -2, 1
        else:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
        strides = [1, *get_sequence(stride, 1, channel, "stride")]
        dilations = [1, *get_sequence(dilations, 1, channel, "dilations")]
        value = shape_ops.expand_dims(value, spatial_start)
        filters = shape_ops.expand_dims(filters, 0)
        # TF hands `padding` to Conv2D as given: a string (explicit paddings are the attr's type error).
        attrs = {"strides": strides, "padding": padding,
                 "use_cudnn_on_gpu": True if use_cudnn_on_gpu is None else use_cudnn_on_gpu,
                 "data_format": data_format, "dilations": dilations}
        if value.shape.ndims in (4, 3, 2, 1, 0, None):
            result = Conv2D(value, filters, name=scope, **attrs)
        else:
            result = squeeze_batch_dims(value, lambda x: Conv2D(x, filters, **attrs), inner_rank=3, name=scope)
        return shape_ops.squeeze(result, [spatial_start])


# The data formats whose channels come last (TF's _CHANNELS_LAST_FORMATS): strides and dilations given as N
# values are padded with 1 at both ends for these, with two leading 1s for the others.
_CHANNELS_LAST_FORMATS = frozenset({"NWC", "NHC", "NHWC", "NWHC", "NDHWC", "NDWHC", "NHDWC", "NHWDC", "NWDHC",
                                    "NWHDC"})


def _conv2d_expanded_batch(input: Any, filters: Any, strides: list, padding: Any, data_format: Any,  # noqa: A002
                           dilations: list, name: str) -> Tensor:
    """Conv2D named `name`, over an input of any number of batch dimensions (squeeze_batch_dims past one)."""
    attrs = {"strides": strides, "padding": padding, "data_format": data_format, "dilations": dilations}
    rank = input.shape.ndims
    if rank is None or rank < 5:
        return Conv2D(input, filters, name=name, **attrs)
    return squeeze_batch_dims(input, lambda x: Conv2D(x, filters, **attrs), inner_rank=3, name=name)


def _conv3d_expanded_batch(input: Any, filters: Any, strides: list, padding: Any, data_format: Any,  # noqa: A002
                           dilations: list, name: str) -> Tensor:
    """Conv3D named `name`, over an input of any number of batch dimensions (squeeze_batch_dims past one)."""
    attrs = {"strides": strides, "padding": padding, "data_format": data_format, "dilations": dilations}
    if _static_rank(input) in (5, 4, 3, 2, 1, 0, None):
        return raw_ops.Conv3D(input=input, filter=filters, name=name, **attrs)
    return squeeze_batch_dims(input, lambda x: raw_ops.Conv3D(input=x, filter=filters, **attrs), inner_rank=4,
                              name=name)


def _non_atrous_convolution(input: Tensor, filter: Tensor, padding: Any, data_format: Any,  # noqa: A002
                            num_spatial_dims: int, name: str) -> Tensor:
    """The undilated, unit-stride convolution the dilated one runs between SpaceToBatchND and BatchToSpaceND
    (TF's _NonAtrousConvolution): conv1d, conv2d or Conv3D by the number of spatial dimensions."""
    if num_spatial_dims == 1:
        if data_format is None:
            data_format = "NWC"
        elif data_format not in {"NCW", "NWC", "NCHW", "NHWC"}:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
        return conv1d(input, filter, 1, padding, data_format=data_format, name=name)
    if num_spatial_dims == 2:
        if data_format is None or data_format == "NHWC":
            data_format, strides = "NHWC", [1, 1, 1, 1]
        elif data_format == "NCHW":
            strides = [1, 1, 1, 1]
        else:
            raise ValueError(f"`data_format` must be 'NHWC' or 'NCHW'. Received: data_format={data_format}")
        return conv2d(input, filter, strides, padding, data_format=data_format, name=name)
    if data_format not in (None, "NDHWC", "NCDHW"):
        raise ValueError(f"`data_format` must be 'NDHWC' or 'NCDHW'. Received: data_format={data_format}")
    return _conv3d_expanded_batch(input, filter, [1] * 5, padding, data_format, [1] * 5, name)


@tf_export("nn.convolution")
def convolution(input: Any, filter: Any, padding: Any, strides: Any = None,  # noqa: A002
                dilation_rate: Any = None, name: str | None = None, data_format: str | None = None,
                filters: Any = None, dilations: Any = None) -> Tensor:
    """An N-D convolution (N = 1, 2 or 3, by the filter's rank) over an input of one or more batch dimensions
    (TF's convolution_internal): Conv2D or Conv3D named `convolution`, or conv1d's composition, with the batch
    dimensions past one merged by squeeze_batch_dims. A dilated one runs as TF1's does, undilated inside
    SpaceToBatchND/BatchToSpaceND (with_space_to_batch)."""
    filter = _deprecated_alias("filters", filters, "filter", filter)
    dilation_rate = _deprecated_alias("dilations", dilations, "dilation_rate", dilation_rate)
    if not tensor_util.is_tensor(filter):
        with name_scope("convolution_internal", None, [filter, input]):
            filter = convert_to_tensor(filter, name="filters")
    if not tensor_util.is_tensor(input):
        with name_scope("convolution_internal", None, [filter, input]):
            input = convert_to_tensor(input, name="input")
    filters_rank, inputs_rank = filter.shape.ndims, input.shape.ndims
    if filters_rank:
        n = filters_rank - 2
    elif inputs_rank:
        n = inputs_rank - 2
    else:
        raise ValueError("When `num_spatial_dims` is not set, one of `input.shape.rank` or `filters.shape.rank` "
                         f"must be known. Received: input.shape={input.shape} of rank {inputs_rank} and "
                         f"filters.shape={filter.shape} of rank {filters_rank}")
    num_batch_dims = inputs_rank - n - 1 if inputs_rank else 1
    if n not in (1, 2, 3):
        raise ValueError(f"`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={n}.")
    channels_last = data_format is None or data_format in _CHANNELS_LAST_FORMATS
    channel = num_batch_dims + n if channels_last else num_batch_dims
    dilations = get_sequence(dilation_rate, n, channel, "dilations")
    is_dilated = dilation_rate is not None and any(d != 1 for d in dilations)
    strides = get_sequence(strides, n, channel, "strides")
    with name_scope(name, "convolution", [input, filter]) as scope:
        if not is_dilated:
            if n == 2:
                return _conv2d_expanded_batch(input, filter, strides, padding, data_format, dilations, scope)
            if n == 3:
                return _conv3d_expanded_batch(input, filter, strides, padding, data_format, dilations, scope)
            return conv1d(input, filter, strides, padding, data_format=data_format, dilations=dilations, name=scope)
        spatial = slice(2, None) if channel == 1 else slice(1, -1)
        rate, stride = np.array(dilations[spatial], np.int32), np.array(strides[spatial], np.int32)
        if inputs_rank is not None and inputs_rank < n + 2:
            raise ValueError(f"`input.shape.rank` must be >= than `num_spatial_dims + 2`. Received: "
                             f"input.shape={input.shape} of rank {inputs_rank} and num_spatial_dims={n}")
        first = num_batch_dims if channels_last else num_batch_dims + 1
        channels = tensor_shape.dimension_at_index(input.shape, num_batch_dims + n if channels_last
                                                   else num_batch_dims)
        filter_dim = tensor_shape.dimension_at_index(filter.shape, n)
        if not (channels % filter_dim).is_compatible_with(0):
            raise ValueError("The number of input channels is not divisible by the corresponding number of output "
                             f"filters. Received: input.shape={input.shape} with {channels} channels and "
                             f"filters.shape={filter.shape} with {filter_dim} output filters.")
        if np.any(rate < 1):
            raise ValueError(f"all values of `dilation_rate` must be positive. Received: dilation_rate={rate}")
        if np.any(stride < 1):
            raise ValueError(f"all values of `strides` must be positive. Received: strides={stride}")
        if np.any(stride > 1):
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={stride} and dilation_rate={rate}")
        call = _with_space_to_batch(
            input, rate, padding,
            lambda _, pad: lambda value, filt: _non_atrous_convolution(value, filt, pad, data_format, n, scope),
            filter_shape=filter.shape, spatial_dims=range(first, first + n), data_format=data_format,
            num_batch_dims=num_batch_dims)
        return call(input, filter)


def _with_space_to_batch_adjust(orig: Tensor, fill_value: int, spatial_dims: list[int]) -> Any:
    """`orig` (one row per spatial dimension) spread over every dimension after the batch up to the last
    spatial one, `fill_value` rows in the gaps: SpaceToBatchND's block shape, paddings or crops. A NumPy array
    where `orig` is constant, as TF folds it."""
    fill_dims = orig.shape.as_list()[1:]
    dtype = orig.dtype.as_numpy_dtype
    const_orig = tensor_util.constant_value(orig)
    const_or_orig = const_orig if const_orig is not None else orig
    parts: list = []
    previous, i = 0, 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - previous, *fill_dims], fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(const_or_orig[start_i:i + 1])
        previous = spatial_dims[i]
        i += 1
    if const_orig is not None:
        return np.concatenate(parts)
    return manipulation_ops.concat(parts, 0)


def _with_space_to_batch_base_paddings(filter_shape: Any, num_spatial_dims: int, rate: Any) -> Tensor:
    """The [before, after] padding per spatial dimension that makes a SAME convolution with the dilated
    filter VALID (the odd one more at the end, as conv2d pads)."""
    extra = (filter_shape[:num_spatial_dims] - 1) * rate
    start = extra // 2
    end = extra - start
    return manipulation_ops.stack([[start[i], end[i]] for i in range(num_spatial_dims)])


def _with_space_to_batch(input: Tensor, dilation_rate: Any, padding: Any, build_op: Any,  # noqa: A002
                         filter_shape: Any = None, spatial_dims: Any = None, data_format: str | None = None,
                         num_batch_dims: int = 1) -> Any:
    """TF's _WithSpaceToBatch: checks the arguments and returns the call `(input, filter) -> output`,
    `build_op(num_spatial_dims, padding)` itself where every rate is 1, else that op (VALID) run between
    SpaceToBatchND and BatchToSpaceND with the paddings and crops of required_space_to_batch_paddings."""
    input_shape = input.shape
    dilation_rate = convert_to_tensor(dilation_rate, dtypes.int32, name="dilation_rate")
    if dilation_rate.shape.ndims not in (None, 1):
        raise ValueError(f"`dilation_rate.shape.rank` must be 1. Received: dilation_rate={dilation_rate} of rank "
                         f"{dilation_rate.shape.ndims}")
    if not dilation_rate.shape.is_fully_defined():
        raise ValueError(f"`dilation_rate.shape` must be fully defined. Received: dilation_rate={dilation_rate} with "
                         f"shape {dilation_rate.shape}")
    num_spatial_dims = dilation_rate.shape.dims[0].value
    channels_first = data_format is not None and data_format.startswith("NC")
    starting = num_batch_dims + 1 if channels_first else num_batch_dims
    if spatial_dims is None:
        spatial_dims = range(starting, num_spatial_dims + starting)
    requested = list(spatial_dims)
    spatial_dims = sorted({int(d) for d in requested})
    if spatial_dims != requested or any(d < 1 for d in spatial_dims):
        raise ValueError("`spatial_dims` must be a monotonically increasing sequence of positive integers. Received: "
                         f"spatial_dims={requested}")
    expected_rank = spatial_dims[-1] if channels_first else spatial_dims[-1] + 1
    if input_shape.ndims is not None and input_shape.ndims < expected_rank:
        raise ValueError(f"`input.shape.rank` must be at least {expected_rank}. Received: input.shape={input_shape} "
                         f"with rank {input_shape.ndims}")
    const_rate = tensor_util.constant_value(dilation_rate)
    rate_or_const_rate: Any = dilation_rate
    if const_rate is not None:
        rate_or_const_rate = const_rate
        if np.any(const_rate < 1):
            raise ValueError(f"`dilation_rate` must be positive. Received: dilation_rate={const_rate}")
        if np.all(const_rate == 1):
            return build_op(num_spatial_dims, padding)
    padding, explicit = convert_padding(padding)
    base_paddings: Any
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError(f"`filter_shape` must be specified for `padding='SAME'`. Received: "
                             f"filter_shape={filter_shape} and padding={padding}")
        filter_shape = convert_to_tensor(filter_shape, name="filter_shape")
        const_filter_shape = tensor_util.constant_value(filter_shape)
        base_paddings = None if const_filter_shape is None else \
            _with_space_to_batch_base_paddings(const_filter_shape, num_spatial_dims, rate_or_const_rate)
    elif padding == "VALID":
        base_paddings = np.zeros([num_spatial_dims, 2], np.int32)
    elif padding == "EXPLICIT":
        pairs = np.array(explicit).reshape([num_spatial_dims + 2, 2])
        base_paddings = pairs[2:] if channels_first else pairs[1:-1]
    else:
        raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: padding={padding}")
    op = build_op(num_spatial_dims, "VALID")

    def call(inp: Tensor, filter: Any) -> Tensor:  # noqa: A002
        input_spatial_shape: Any = None
        if input_shape.ndims is not None:
            dims = input_shape.as_list()
            input_spatial_shape = [dims[i] for i in spatial_dims]
        if input_spatial_shape is None or None in input_spatial_shape:
            whole = shape_ops.shape(inp)
            input_spatial_shape = manipulation_ops.stack([whole[i] for i in spatial_dims])
        paddings_base = base_paddings
        if paddings_base is None:  # the filter's shape is known only when the graph runs
            paddings_base = _with_space_to_batch_base_paddings(shape_ops.shape(filter), num_spatial_dims,
                                                               rate_or_const_rate)
        paddings, crops = misc_array_ops.required_space_to_batch_paddings(
            input_shape=input_spatial_shape, base_paddings=paddings_base, block_shape=dilation_rate)
        block = _with_space_to_batch_adjust(dilation_rate, 1, spatial_dims)
        paddings = _with_space_to_batch_adjust(paddings, 0, spatial_dims)
        crops = _with_space_to_batch_adjust(crops, 0, spatial_dims)
        converted = space_batch_ops.space_to_batch_nd(inp, block, paddings)
        result = space_batch_ops.batch_to_space_nd(op(converted, filter), block, crops)
        if channels_first and not result.shape.dims[1].value and filter is not None:
            # Recover the channels lost through the space-to-batch shapes.
            dims = result.shape.as_list()
            dims[1] = filter.shape[-1]
            result.set_shape(dims)
        return result

    return call


@tf_export("nn.with_space_to_batch")
def with_space_to_batch(input: Any, dilation_rate: Any, padding: Any, op: Any, filter_shape: Any = None,  # noqa: A002
                        spatial_dims: Any = None, data_format: str | None = None) -> Tensor:
    """`op(input, num_spatial_dims, padding)` run as if dilated by `dilation_rate`: the spatial dims are
    moved into the batch by SpaceToBatchND (padded so each is a multiple of the rate, and for SAME by the
    dilated filter's padding), `op` runs with VALID padding, and BatchToSpaceND moves them back."""
    input = convert_to_tensor(input, name="input")

    def build_op(num_spatial_dims: int, padding: Any) -> Any:
        return lambda inp, _: op(inp, num_spatial_dims, padding)

    return _with_space_to_batch(input, dilation_rate, padding, build_op, filter_shape=filter_shape,
                                spatial_dims=spatial_dims, data_format=data_format)(input, None)


@tf_export("nn.atrous_conv2d")
def atrous_conv2d(value: Any, filters: Any, rate: int, padding: str, name: str | None = None) -> Tensor:
    """A 2-D convolution with the filter dilated by `rate` (holes between its taps)."""
    return convolution(value, filters, padding, dilation_rate=[rate, rate], name=name)


@tf_export("nn.depthwise_conv2d_native")
def depthwise_conv2d_native(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                            data_format: str = "NHWC", dilations: Any = [1, 1, 1, 1],  # noqa: B006
                            name: str | None = None) -> Tensor:
    """Each input channel convolved with its own [KH, KW] filters (channel_multiplier of them)."""
    padding, explicit = convert_padding(padding)
    return DepthwiseConv2dNative(input, filter, strides=strides, padding=padding, explicit_paddings=explicit,
                                 data_format=data_format, dilations=dilations, name=name)


@tf_export("nn.depthwise_conv2d_native_backprop_input", "nn.depthwise_conv2d_backprop_input")
def depthwise_conv2d_native_backprop_input(input_sizes: Any, filter: Any, out_backprop: Any,  # noqa: A002
                                           strides: Any, padding: Any, data_format: str = "NHWC",
                                           dilations: Any = [1, 1, 1, 1],  # noqa: B006
                                           name: str | None = None) -> Tensor:
    """The gradient of depthwise_conv2d_native with respect to its input, of shape `input_sizes`."""
    padding, explicit = convert_padding(padding)
    return DepthwiseConv2dNativeBackpropInput(input_sizes, filter, out_backprop, strides=strides, padding=padding,
                                              explicit_paddings=explicit, data_format=data_format,
                                              dilations=dilations, name=name)


@tf_export("nn.depthwise_conv2d_native_backprop_filter", "nn.depthwise_conv2d_backprop_filter")
def depthwise_conv2d_native_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                                            strides: Any, padding: Any, data_format: str = "NHWC",
                                            dilations: Any = [1, 1, 1, 1],  # noqa: B006
                                            name: str | None = None) -> Tensor:
    """The gradient of depthwise_conv2d_native with respect to its filter, of shape `filter_sizes`."""
    padding, explicit = convert_padding(padding)
    return DepthwiseConv2dNativeBackpropFilter(input, filter_sizes, out_backprop, strides=strides, padding=padding,
                                               explicit_paddings=explicit, data_format=data_format,
                                               dilations=dilations, name=name)


@tf_export("nn.depthwise_conv2d")
def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any, rate: Any = None,  # noqa: A002
                     name: str | None = None, data_format: str | None = None, dilations: Any = None) -> Tensor:
    """DepthwiseConv2dNative named `depthwise`; a `rate` above 1 runs it undilated inside with_space_to_batch,
    as TF does (so `strides` then apply to the space-to-batch blocks)."""
    rate = _deprecated_alias("dilations", dilations, "rate", rate)
    with name_scope(name, "depthwise", [input, filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        filter = convert_to_tensor(filter, name="filter_in")
        return _depthwise_with_rate(input, filter, strides, padding, rate, data_format, scope)


def _depthwise_with_rate(input: Tensor, filter: Tensor, strides: Any, padding: Any, rate: Any,  # noqa: A002
                         data_format: str | None, name: str) -> Tensor:
    return with_space_to_batch(
        input, [1, 1] if rate is None else rate, padding,
        lambda value, _, pad: depthwise_conv2d_native(value, filter, strides, pad, data_format=data_format or "NHWC",
                                                      name=name),
        filter_shape=shape_ops.shape(filter), data_format=data_format)


@tf_export("nn.separable_conv2d")
def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any, strides: Any,  # noqa: A002
                     padding: Any, rate: Any = None, name: str | None = None, data_format: str | None = None,
                     dilations: Any = None) -> Tensor:
    """A depthwise convolution then a 1x1 (pointwise) Conv2D that mixes its channels."""
    rate = _deprecated_alias("dilations", dilations, "rate", rate)
    with name_scope(name, "separable_conv2d", [input, depthwise_filter, pointwise_filter]) as scope:
        input = convert_to_tensor(input, name="tensor_in")
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pointwise_filter.shape.with_rank(4)
        pointwise_filter.shape.dims[0].assert_is_compatible_with(1)
        pointwise_filter.shape.dims[1].assert_is_compatible_with(1)
        depthwise = _depthwise_with_rate(input, depthwise_filter, strides, padding, rate, data_format, "depthwise")
        return conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], "VALID", data_format=data_format or "NHWC",
                      name=scope)


def _pool(op: Op, default_name: str, value: Any, ksize: Any, strides: Any, padding: Any, data_format: str,
          name: str | None, nonzero_ksize: bool = False) -> Tensor:
    """`op` named `name` (else the scope `default_name`), ksize and strides expanded to 4; `nonzero_ksize`
    refuses a zero window size as TF's max_pool does, inside its scope."""
    with name_scope(name, default_name, [value]) as scope:
        channel = channel_index(data_format or "NHWC")
        ksize = get_sequence(ksize, 2, channel, "ksize")
        strides = get_sequence(strides, 2, channel, "strides")
        attrs = {}
        if op is not AvgPool:  # TF's avg_pool hands `padding` to the op as given (no explicit paddings)
            padding, explicit = convert_padding(padding)
            attrs = {"explicit_paddings": explicit} if explicit else {}
        if nonzero_ksize and any(v == 0 for v in ksize):
            raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
        return op(value, ksize=ksize, strides=strides, padding=padding, data_format=data_format, name=scope, **attrs)


@tf_export("nn.max_pool")
def max_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Tensor:  # noqa: A002
    """The maximum of each window."""
    value = _deprecated_alias("input", input, "value", value)
    return _pool(MaxPool, "MaxPool", value, ksize, strides, padding, data_format, name, nonzero_ksize=True)


@tf_export("nn.max_pool2d")
def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",  # noqa: A002
               name: str | None = None) -> Tensor:
    """max_pool on a 4-D input."""
    return _pool(MaxPool, "MaxPool2d", input, ksize, strides, padding, data_format, name)


@tf_export("nn.avg_pool", "nn.avg_pool2d")
def avg_pool(value: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> Tensor:  # noqa: A002
    """The mean of each window over the input elements inside it (padding is not counted)."""
    value = _deprecated_alias("input", input, "value", value)
    return _pool(AvgPool, "AvgPool", value, ksize, strides, padding, data_format, name)


def _pool1d(op: Op, default_name: str, input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
            data_format: str | None, name: str | None) -> Tensor:
    """A 1-D pool as TF composes it: ExpandDims of the input at its width's place, the 2-D pool, Squeeze."""
    with name_scope(name, default_name, [input]) as scope:
        if data_format in (None, "NWC"):
            data_format, expanding_dim, channel = "NHWC", 1, -1
        elif data_format == "NCW":
            data_format, expanding_dim, channel = "NCHW", 2, 1
        else:
            raise ValueError(f"`data_format` must be 'NWC' or 'NCW'. Received: data_format={data_format}")
        ksize = [1, *get_sequence(ksize, 1, channel, "ksize")]
        strides = [1, *get_sequence(strides, 1, channel, "strides")]
        if isinstance(padding, (list, tuple)):
            padding = [(0, 0), *padding]
        padding, explicit = convert_padding(padding)
        attrs = {"explicit_paddings": explicit} if explicit else {}
        expanded = shape_ops.expand_dims(input, expanding_dim)
        result = op(expanded, ksize=ksize, strides=strides, padding=padding, data_format=data_format, name=scope,
                    **attrs)
        return shape_ops.squeeze(result, [expanding_dim])


@tf_export("nn.max_pool1d")
def max_pool1d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> Tensor:
    """The maximum of each window of a [batch, width, channels] (NWC) or NCW input."""
    return _pool1d(MaxPool, "MaxPool1d", input, ksize, strides, padding, data_format, name)


@tf_export("nn.avg_pool1d")
def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NWC",  # noqa: A002
               name: str | None = None) -> Tensor:
    """The mean of each window of a [batch, width, channels] (NWC) or NCW input."""
    return _pool1d(AvgPool, "AvgPool1D", input, ksize, strides, padding, data_format, name)


_MaxPoolWithArgmaxResult = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


@tf_export("nn.max_pool_with_argmax")
def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
                         data_format: str = "NHWC", Targmax: Any = None, name: str | None = None,  # noqa: N803
                         output_dtype: Any = None, include_batch_in_index: bool = False) -> Any:
    """(the max pool of an NHWC input, the flattened input index of each maximum), as a namedtuple."""
    if data_format != "NHWC":
        raise ValueError(f"`data_format` values other  than 'NHWC' are not supported. Received: data_format={data_format}")
    Targmax = _deprecated_alias("output_dtype", output_dtype, "Targmax", Targmax)  # noqa: N806
    outputs = MaxPoolWithArgmax(input, ksize=ksize, strides=strides, padding=padding,
                                Targmax=dtypes.int64 if Targmax is None else Targmax,
                                include_batch_in_index=include_batch_in_index, name=name)
    return _MaxPoolWithArgmaxResult(*outputs)


# -- Gradients ------------------------------------------------------------------------------------------


def op_attrs(op: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: op.get_attr(name) for name in names}


@Conv2D.gradient
def _conv2d_grad(op: Any, grad: Tensor) -> list:
    """The input's gradient is Conv2DBackpropInput, the filter's Conv2DBackpropFilter (TF's _Conv2DGrad)."""
    attrs = op_attrs(op, ("strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"))
    input_shape, filter_shape = shape_ops.shape_n([op.inputs[0], op.inputs[1]])
    return [Conv2DBackpropInput(input_shape, op.inputs[1], grad, **attrs),
            Conv2DBackpropFilter(op.inputs[0], filter_shape, grad, **attrs)]


@Conv2DBackpropInput.gradient
def _conv2d_backprop_input_grad(op: Any, grad: Tensor) -> list:
    """Linear in the filter and in out_backprop: their gradients are the filter gradient of a convolution
    of `grad` and the convolution of `grad` itself (TF's _Conv2DBackpropInputGrad)."""
    attrs = op_attrs(op, ("strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"))
    return [None, Conv2DBackpropFilter(grad, shape_ops.shape(op.inputs[1]), op.inputs[2], **attrs),
            Conv2D(grad, op.inputs[1], **attrs)]


@Conv2DBackpropFilter.gradient
def _conv2d_backprop_filter_grad(op: Any, grad: Tensor) -> list:
    attrs = op_attrs(op, ("strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu"))
    return [Conv2DBackpropInput(shape_ops.shape(op.inputs[0]), grad, op.inputs[2], **attrs), None,
            Conv2D(op.inputs[0], grad, **attrs)]


@AvgPoolGrad.gradient
def _avg_pool_grad_grad(op: Any, grad: Tensor) -> list:
    """AvgPoolGrad is linear in its gradient input: the gradient of that is AvgPool of `grad`."""
    return [None, AvgPool(grad, **op_attrs(op, ("ksize", "strides", "padding", "data_format")))]


@DepthwiseConv2dNative.gradient
def _depthwise_conv2d_grad(op: Any, grad: Tensor) -> list:
    """The input's and the filter's gradients, by the two depthwise backprop ops (TF's _DepthwiseConv2dNativeGrad)."""
    attrs = op_attrs(op, ("strides", "padding", "explicit_paddings", "data_format", "dilations"))
    return [DepthwiseConv2dNativeBackpropInput(shape_ops.shape(op.inputs[0]), op.inputs[1], grad, **attrs),
            DepthwiseConv2dNativeBackpropFilter(op.inputs[0], shape_ops.shape(op.inputs[1]), grad, **attrs)]


@DepthwiseConv2dNativeBackpropInput.gradient
def _depthwise_backprop_input_grad(op: Any, grad: Tensor) -> list:
    """Linear in the filter and in out_backprop, as the Conv2D backprops (TF's
    _DepthwiseConv2dNativeBackpropInputGrad): second derivatives of depthwise convolutions."""
    attrs = op_attrs(op, ("strides", "padding", "explicit_paddings", "data_format", "dilations"))
    return [None, DepthwiseConv2dNativeBackpropFilter(grad, shape_ops.shape(op.inputs[1]), op.inputs[2], **attrs),
            DepthwiseConv2dNative(grad, op.inputs[1], **attrs)]


@DepthwiseConv2dNativeBackpropFilter.gradient
def _depthwise_backprop_filter_grad(op: Any, grad: Tensor) -> list:
    attrs = op_attrs(op, ("strides", "padding", "explicit_paddings", "data_format", "dilations"))
    return [DepthwiseConv2dNativeBackpropInput(shape_ops.shape(op.inputs[0]), grad, op.inputs[2], **attrs), None,
            DepthwiseConv2dNative(op.inputs[0], grad, **attrs)]


@MaxPool.gradient
def _max_pool_grad(op: Any, grad: Tensor) -> list:
    attrs = op_attrs(op, ("ksize", "strides", "padding", "explicit_paddings", "data_format"))
    return [MaxPoolGrad(op.inputs[0], op.outputs[0], grad, **attrs)]


@AvgPool.gradient
def _avg_pool_grad(op: Any, grad: Tensor) -> list:
    attrs = op_attrs(op, ("ksize", "strides", "padding", "data_format"))
    return [AvgPoolGrad(shape_ops.shape(op.inputs[0]), grad, **attrs)]


@MaxPoolGrad.gradient
def _max_pool_grad_grad_fn(op: Any, grad: Tensor) -> list:
    """TF's _MaxPoolGradGrad: nothing to the forward values, MaxPoolGradGrad to the gradient input."""
    return [fill_ops.zeros_like(op.inputs[0]), fill_ops.zeros_like(op.inputs[1]),
            MaxPoolGradGrad(op.inputs[0], op.inputs[1], grad, **op_attrs(op, ("ksize", "strides", "padding",
                                                                               "data_format")))]


@MaxPoolGradGrad.gradient
def _max_pool_grad_grad_grad(op: Any, grad: Tensor) -> list:
    return [fill_ops.zeros_like(op.inputs[0]), fill_ops.zeros_like(op.inputs[1]),
            MaxPoolGrad(op.inputs[0], op.inputs[1], grad, **op_attrs(op, ("ksize", "strides", "padding",
                                                                           "data_format")))]
