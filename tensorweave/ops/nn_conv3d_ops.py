"""3-D convolutions and pooling, as TF1's `tf.nn` has them: Conv3D with its backprops Conv3DBackpropInputV2
(also `conv3d_transpose`) and Conv3DBackpropFilterV2, MaxPool3D and AvgPool3D with their gradients
MaxPool3DGrad, AvgPool3DGrad and MaxPool3DGradGrad, the wrappers conv3d, conv3d_transpose,
conv3d_backprop_filter(_v2), max_pool3d, avg_pool3d, the N-D tf.nn.pool, and TF 2's rank-dispatching max_pool_v2, avg_pool_v2 and
conv_transpose (which reach every rank from here).

The kernels work on an NDHWC view (NCDHW is transposed in and out) with nn_conv_ops' window geometry: the
convolution is im2col (a strided view of the padded input, copied a chunk of images or output planes at a
time) then one BLAS matmul; its input gradient adds the matmul's columns back one filter tap at a time;
pooling visits the window's taps, each one vectorized maximum or sum over the output slice it falls in.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import fill_ops, shape_helpers, shape_ops
from tensorweave.ops.conv_kernels import (
    IM2COL_CHUNK_BYTES,
    Window,
    compute_dtype,
    conv_forward,
    lowest,
    runtime_window,
    static_window,
    tap_range,
    window_counts,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.nn_conv_ops import (
    AvgPool,
    attr_text,
    avg_pool,
    avg_pool1d,
    channel_index,
    conv1d_transpose,
    conv2d_transpose,
    get_sequence,
    max_pool,
    max_pool1d,
    max_pool2d,
    op_attrs,
    shape_text,
    with_space_to_batch,
)
from tensorweave.ops.nn_conv_ops import _conv_geometry as conv2d_geometry
from tensorweave.ops.reduction_ops import _deprecated_alias
from tensorweave.platform.tf_export import tf_export

_ATTRS_3D = ["strides: list(int) >= 5", "padding: {'SAME', 'VALID'}", "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'",
             "dilations: list(int) = [1, 1, 1, 1, 1]"]
_POOL_ATTRS_3D = ["ksize: list(int) >= 5", "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}",
                  "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"]
_FLOAT = "{half, bfloat16, float, double}"


class _Format3D(NamedTuple):
    """Where a 5-D tensor keeps its dimensions: NDHWC, or NCDHW (channels second)."""

    channels_first: bool

    @classmethod
    def of(cls, data_format: Any) -> _Format3D:
        return cls(attr_text(data_format) == "NCDHW")

    def spatial(self, values: Sequence[Any]) -> list:
        return list(values[2:5]) if self.channels_first else list(values[1:4])

    def batch_and_depth(self, values: Sequence[Any]) -> tuple[Any, Any]:
        return values[0], values[1] if self.channels_first else values[4]

    def dims(self, n: Any, spatial: Sequence[Any], c: Any) -> list:
        return [n, c, *spatial] if self.channels_first else [n, *spatial, c]

    def to_ndhwc(self, x: Any) -> Any:
        return x.transpose(0, 2, 3, 4, 1) if self.channels_first else x

    def from_ndhwc(self, x: Any) -> Any:
        return np.ascontiguousarray(x.transpose(0, 4, 1, 2, 3)) if self.channels_first else x


class _Geometry3D(NamedTuple):
    """A 3-D convolution or pool in NDHWC terms: the input, the window of each spatial dimension and depths."""

    batch: int
    in_sizes: tuple[int, ...]
    in_depth: int
    ksize: tuple[int, ...]
    out_depth: int
    windows: tuple[Window, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]

    @property
    def out_sizes(self) -> tuple[int, ...]:
        return tuple(w.size for w in self.windows)

    @property
    def out_shape(self) -> tuple[int, ...]:
        return (self.batch, *self.out_sizes, self.out_depth)

    @property
    def taps(self) -> int:
        return int(np.prod(self.ksize)) * self.in_depth


def _geometry(ctx: OpKernelContext, input_shape: Sequence[int], ksize: Sequence[int], out_depth: int,
              strides: Sequence[int], padding: Any, data_format: Any, dilations: Sequence[int]) -> _Geometry3D:
    """The geometry of a 3-D node, with TF's run-time checks of its strides and sizes."""
    fmt = _Format3D.of(data_format)
    if len(input_shape) != 5:
        raise invalid_argument(ctx, f"input must be 5-dimensional{shape_text(input_shape)}")
    if any(s <= 0 for s in strides):
        raise invalid_argument(ctx, "Sliding window stride must be positive. The specified or inferred stride is: "
                                    + ",".join(map(str, strides)))
    if any(fmt.batch_and_depth(strides)[i] != 1 for i in range(2)):
        raise errors.UnimplementedError(ctx.node_def, None, "Current implementation does not yet support strides "
                                        "in the batch and depth dimensions.")
    if any(fmt.batch_and_depth(dilations)[i] != 1 for i in range(2)):
        raise invalid_argument(ctx, "Current implementation does not yet support dilations rates in the batch "
                                    "and depth dimensions.")
    n, c = fmt.batch_and_depth(input_shape)
    sizes, steps, rates = fmt.spatial(input_shape), fmt.spatial(strides), fmt.spatial(dilations)
    windows = tuple(runtime_window(ctx, size, k, s, d, attr_text(padding))
                    for size, k, s, d in zip(sizes, ksize, steps, rates))
    return _Geometry3D(n, tuple(sizes), c, tuple(ksize), out_depth, windows, tuple(steps), tuple(rates))


def _conv_geometry(ctx: OpKernelContext, input_shape: Sequence[int], filter_shape: Sequence[int],
                   strides: Sequence[int], padding: Any, data_format: Any, dilations: Sequence[int]) -> _Geometry3D:
    if len(filter_shape) != 5:
        raise invalid_argument(ctx, f"filter must be 5-dimensional{shape_text(filter_shape)}")
    g = _geometry(ctx, input_shape, filter_shape[:3], filter_shape[4], strides, padding, data_format, dilations)
    if filter_shape[3] != g.in_depth:
        raise invalid_argument(ctx, f"input and filter must have the same depth: {g.in_depth} vs {filter_shape[3]}")
    return g


def _padded(x: Any, g: _Geometry3D) -> Any:
    """The NDHWC input with its spatial padding (zeros), contiguous."""
    pads = ((0, 0), *[(w.before, w.after) for w in g.windows], (0, 0))
    return np.pad(x, pads) if any(sum(p) for p in pads) else np.ascontiguousarray(x)


def _patches(x_padded: Any, g: _Geometry3D) -> Any:
    """A read-only [N, OD, OH, OW, KD, KH, KW, C] view of every window of the padded input."""
    sn, *spatial, sc = x_padded.strides
    return as_strided(x_padded, (g.batch, *g.out_sizes, *g.ksize, g.in_depth),
                      (sn, *[s * k for s, k in zip(spatial, g.strides)],
                       *[s * d for s, d in zip(spatial, g.dilations)], sc), writeable=False)


def _chunks(g: _Geometry3D, itemsize: int) -> Iterator[tuple[slice, slice]]:
    """(images, output planes) blocks whose im2col matrix fits the chunk budget."""
    plane_bytes = max(1, g.out_sizes[1] * g.out_sizes[2] * g.taps * itemsize)
    image_bytes = plane_bytes * g.out_sizes[0]
    if image_bytes <= IM2COL_CHUNK_BYTES:
        images = IM2COL_CHUNK_BYTES // max(1, image_bytes)
        yield from ((slice(n, n + images), slice(None)) for n in range(0, g.batch, images))
        return
    planes = max(1, IM2COL_CHUNK_BYTES // plane_bytes)
    yield from ((slice(n, n + 1), slice(p, p + planes))
                for n in range(g.batch) for p in range(0, g.out_sizes[0], planes))


def _conv_forward(x: Any, filters: Any, g: _Geometry3D) -> Any:
    dtype = compute_dtype(x.dtype)
    out = np.zeros(g.out_shape, dtype)
    if out.size == 0 or g.taps == 0:
        return out
    patches = _patches(_padded(x.astype(dtype, copy=False), g), g)
    flat_filter = filters.astype(dtype, copy=False).reshape(-1, g.out_depth)
    for images, planes in _chunks(g, dtype.itemsize):
        np.matmul(patches[images, planes].reshape(-1, g.taps), flat_filter,
                  out=out[images, planes].reshape(-1, g.out_depth))
    return out


def _conv_backprop_input(filters: Any, dy: Any, g: _Geometry3D) -> Any:
    """Each output's [KD*KH*KW*C] column (one matmul per chunk) added back into the padded input, one
    strided slice per filter tap."""
    dtype = compute_dtype(dy.dtype)
    filters, dy = filters.astype(dtype, copy=False), dy.astype(dtype, copy=False)
    padded = np.zeros((g.batch, *[s + w.before + w.after for s, w in zip(g.in_sizes, g.windows)], g.in_depth), dtype)
    if dy.size and filters.size:
        flat_filter = filters.reshape(-1, g.out_depth)
        for images, planes in _chunks(g, dtype.itemsize):
            grad = dy[images, planes]
            cols = np.matmul(grad.reshape(-1, g.out_depth), flat_filter.T).reshape(*grad.shape[:4], *g.ksize,
                                                                                   g.in_depth)
            first = (0 if planes.start is None else planes.start, 0, 0)
            for tap in itertools.product(*[range(k) for k in g.ksize]):
                index = tuple(slice(f * s + t * d, f * s + t * d + (o - 1) * s + 1, s) for f, t, s, d, o in
                              zip(first, tap, g.strides, g.dilations, grad.shape[1:4]))
                padded[(images, *index)] += cols[(slice(None),) * 4 + tap]
    return padded[(slice(None), *[slice(w.before, w.before + s) for s, w in zip(g.in_sizes, g.windows)])]


def _conv_backprop_filter(x: Any, dy: Any, g: _Geometry3D) -> Any:
    dtype = compute_dtype(x.dtype)
    grad = np.zeros((g.taps, g.out_depth), dtype)
    if dy.size and x.size:
        patches = _patches(_padded(x.astype(dtype, copy=False), g), g)
        dy = dy.astype(dtype, copy=False)
        for images, planes in _chunks(g, dtype.itemsize):
            grad += patches[images, planes].reshape(-1, g.taps).T @ dy[images, planes].reshape(-1, g.out_depth)
    return grad.reshape(*g.ksize, g.in_depth, g.out_depth)


# -- Shape functions ----------------------------------------------------------------------------------


def _attrs_3d(ctx: InferenceContext, name: str, key: str = "strides") -> tuple[_Format3D, list[int], list[int], str]:
    fmt = _Format3D.of(ctx.attr("data_format") if "data_format" in ctx.node_def.attr else "NDHWC")
    strides = list(ctx.attr(key))
    dilations = list(ctx.attr("dilations")) if "dilations" in ctx.node_def.attr else [1] * 5
    if len(strides) != 5:
        raise ValueError(f"{name} requires the stride attribute to contain 5 values, but got: {len(strides)}")
    if len(dilations) != 5:
        raise ValueError(f"{name} requires the dilation attribute to contain 5 values, but got: {len(dilations)}")
    for s in strides:
        if s <= 0:
            raise ValueError(f"Stride must be > 0, but got {s}")
    return fmt, strides, dilations, attr_text(ctx.attr("padding"))


def _output_shape(fmt: _Format3D, input_dims: list, ksize: Sequence[Any], out_depth: Any, strides: list,
                  dilations: list, padding: str) -> tensor_shape.TensorShape:
    spatial = [static_window(size, k, s, d, padding) for size, k, s, d in
               zip(fmt.spatial(input_dims), ksize, fmt.spatial(strides), fmt.spatial(dilations))]
    return tensor_shape.TensorShape(fmt.dims(input_dims[0], spatial, out_depth))


# -- Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2 ---------------------------------------------

Conv3D = Op("Conv3D", inputs=["input: T", "filter: T"], outputs=["output: T"], attrs=[f"T: {_FLOAT}", *_ATTRS_3D])


@Conv3D.shape
def _conv3d_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_dims = shape_helpers.with_rank(ctx.input_shape(0), 5).as_list()
    filter_dims = shape_helpers.with_rank(ctx.input_shape(1), 5).as_list()
    fmt, strides, dilations, padding = _attrs_3d(ctx, "Conv3D")
    in_depth, filter_depth = fmt.batch_and_depth(input_dims)[1], filter_dims[3]
    if in_depth is not None and filter_depth == 0:
        raise ValueError("Depth of filter must not be 0")
    if in_depth is not None and filter_depth is not None and in_depth % filter_depth:
        raise ValueError(f"Depth of input ({in_depth}) is not a multiple of input depth of filter ({filter_depth})")
    if in_depth is not None and filter_depth and filter_dims[4] is not None and filter_dims[4] % (in_depth // filter_depth):
        raise ValueError(f"Depth of output ({filter_dims[4]}) is not a multiple of the number of groups "
                         f"({in_depth // filter_depth})")
    return [_output_shape(fmt, input_dims, filter_dims[:3], filter_dims[4], strides, dilations, padding)]


@Conv3D.kernel("CPU", expensive=True)
def _conv3d(ctx: OpKernelContext, input: Any, filter: Any, strides: list, padding: Any,  # noqa: A002
            data_format: Any, dilations: list) -> Any:
    fmt = _Format3D.of(data_format)
    g = _conv_geometry(ctx, input.shape, filter.shape, strides, padding, data_format, dilations)
    return fmt.from_ndhwc(_conv_forward(fmt.to_ndhwc(input), filter, g).astype(input.dtype, copy=False))


def _check_out_backprop(ctx: OpKernelContext, g: _Geometry3D, fmt: _Format3D, out_backprop: Any) -> None:
    want = fmt.dims(g.batch, g.out_sizes, g.out_depth)
    if list(out_backprop.shape) != want:
        raise invalid_argument(ctx, f"out_backprop has shape {shape_text(out_backprop.shape)}, the forward "
                                    f"convolution's is {shape_text(want)}")


Conv3DBackpropInputV2 = Op("Conv3DBackpropInputV2", inputs=["input_sizes: Tshape", "filter: T", "out_backprop: T"],
                           outputs=["output: T"],
                           attrs=[f"T: {_FLOAT}", *_ATTRS_3D, "Tshape: {int32, int64} = DT_INT32"])


@Conv3DBackpropInputV2.shape
def _conv3d_backprop_input_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _attrs_3d(ctx, "Conv3DBackpropInputV2")
    return [shape_helpers.with_rank(shape_helpers.shape_from_tensor(ctx, 0), 5)]


@Conv3DBackpropInputV2.kernel("CPU", expensive=True)
def _conv3d_backprop_input(ctx: OpKernelContext, input_sizes: Any, filter: Any, out_backprop: Any,  # noqa: A002
                           strides: list, padding: Any, data_format: Any, dilations: list) -> Any:
    fmt = _Format3D.of(data_format)
    sizes = [int(s) for s in np.asarray(input_sizes).reshape(-1)]
    if len(sizes) != 5:
        raise invalid_argument(ctx, f"input_sizes must have 5 elements, got {len(sizes)}")
    g = _conv_geometry(ctx, sizes, filter.shape, strides, padding, data_format, dilations)
    _check_out_backprop(ctx, g, fmt, out_backprop)
    grad = _conv_backprop_input(filter, fmt.to_ndhwc(out_backprop), g)
    return fmt.from_ndhwc(grad.astype(out_backprop.dtype, copy=False))


Conv3DBackpropFilterV2 = Op("Conv3DBackpropFilterV2", inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
                            outputs=["output: T"], attrs=[f"T: {_FLOAT}", *_ATTRS_3D])


@Conv3DBackpropFilterV2.shape
def _conv3d_backprop_filter_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 5)
    shape_helpers.with_rank(ctx.input_shape(2), 5)
    _attrs_3d(ctx, "Conv3DBackpropFilterV2")
    return [shape_helpers.with_rank(shape_helpers.shape_from_tensor(ctx, 1), 5)]


@Conv3DBackpropFilterV2.kernel("CPU", expensive=True)
def _conv3d_backprop_filter(ctx: OpKernelContext, input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                            strides: list, padding: Any, data_format: Any, dilations: list) -> Any:
    fmt = _Format3D.of(data_format)
    sizes = [int(s) for s in np.asarray(filter_sizes).reshape(-1)]
    g = _conv_geometry(ctx, input.shape, sizes, strides, padding, data_format, dilations)
    _check_out_backprop(ctx, g, fmt, out_backprop)
    grad = _conv_backprop_filter(fmt.to_ndhwc(input), fmt.to_ndhwc(out_backprop), g)
    return grad.astype(input.dtype, copy=False)


@Conv3D.gradient
def _conv3d_grad(op: Any, grad: Tensor) -> list:
    """TF's _Conv3DGrad: the two backprop ops."""
    attrs = op_attrs(op, ("strides", "padding", "data_format", "dilations"))
    input_shape, filter_shape = shape_ops.shape_n([op.inputs[0], op.inputs[1]])
    return [Conv3DBackpropInputV2(input_shape, op.inputs[1], grad, **attrs),
            Conv3DBackpropFilterV2(op.inputs[0], filter_shape, grad, **attrs)]


@Conv3DBackpropInputV2.gradient
def _conv3d_backprop_input_grad(op: Any, grad: Tensor) -> list:
    """Linear in the filter and in out_backprop (TF's _Conv3DBackpropInputGrad)."""
    attrs = op_attrs(op, ("strides", "padding", "data_format", "dilations"))
    return [None, Conv3DBackpropFilterV2(grad, shape_ops.shape(op.inputs[1]), op.inputs[2], **attrs),
            Conv3D(grad, op.inputs[1], **attrs)]


@Conv3DBackpropFilterV2.gradient
def _conv3d_backprop_filter_grad(op: Any, grad: Tensor) -> list:
    attrs = op_attrs(op, ("strides", "padding", "data_format", "dilations"))
    return [Conv3DBackpropInputV2(shape_ops.shape(op.inputs[0]), grad, op.inputs[2], **attrs), None,
            Conv3D(op.inputs[0], grad, **attrs)]


# -- Conv: the rank-generic convolution ------------------------------------------------------------------
# TF 2's raw Conv: a 2-D or 3-D convolution (the filter's rank says which) under any number of leading batch
# dimensions. Its shape function takes channels first or last and groups; TF's CPU kernel (as this one, which
# folds the batch dimensions into one and runs Conv2D's or Conv3D's arithmetic) takes channels last, one group.

Conv = Op("Conv", inputs=["input: T", "filter: T"], outputs=["output: T"],
          attrs=["T: {half, bfloat16, float, double, int32}", "strides: list(int)",
                 "padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []",
                 "data_format: {'CHANNELS_FIRST', 'CHANNELS_LAST'} = 'CHANNELS_LAST'", "dilations: list(int) = []",
                 "batch_dims: int = 1", "groups: int = 1"])


def _channels_last(values: Sequence[Any], channels_first: bool) -> list:
    """Per-dimension values of a standard-rank (one batch dimension) tensor, in [N, spatial..., C] order."""
    values = list(values)
    return [values[0], *values[2:], values[1]] if channels_first else values


@Conv.shape
def _conv_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    input_shape, filter_shape = ctx.input_shape(0), ctx.input_shape(1)
    batch_dims, groups = ctx.attr("batch_dims"), ctx.attr("groups")
    if input_shape.ndims is None or filter_shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    rank = input_shape.ndims - (batch_dims - 1)
    if rank not in (4, 5):
        raise ValueError(f"Input tensor must be rank 4 or 5, excluding extra batch dimensions, but got: {rank}")
    if filter_shape.ndims not in (4, 5):
        raise ValueError(f"Filter tensor must be rank 4 or 5, but got: {rank}")  # TF names the input's rank
    if filter_shape.ndims != rank:
        raise ValueError("Input tensor rank must be the same as filter rank.")
    strides, dilations = list(ctx.attr("strides")), list(ctx.attr("dilations")) or [1] * rank
    if len(strides) != rank:
        raise ValueError(f"Stride attribute should contain {rank} values, but got: {len(strides)}")
    if len(dilations) != rank:
        raise ValueError(f"Conv requires the dilation attribute to contain {rank} values, but got: {len(dilations)}")
    for s in strides:
        if s <= 0:
            raise ValueError(f"Stride must be > 0, but got {s}")
    padding, explicit = attr_text(ctx.attr("padding")), list(ctx.attr("explicit_paddings"))
    if padding != "EXPLICIT" and explicit:
        raise ValueError("explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT")
    if padding == "EXPLICIT" and rank == 5:
        raise ValueError("Explicit padding not supported for 3D Convolution")
    if padding == "EXPLICIT" and len(explicit) != 2 * rank:
        raise ValueError(f"explicit_paddings attribute must contain {2 * rank} values, but got: {len(explicit)}")
    channels_first = attr_text(ctx.attr("data_format")) == "CHANNELS_FIRST"
    dims, kernel = input_shape.as_list(), filter_shape.as_list()
    batch, standard = dims[:batch_dims], _channels_last([None, *dims[batch_dims:]], channels_first)
    depth, filter_depth, out_depth = standard[-1], kernel[-2], kernel[-1]
    if depth is not None and filter_depth is not None:
        if filter_depth == 0:
            raise ValueError("Depth of filter must not be 0")
        if depth % filter_depth:
            raise ValueError(f"Depth of input ({depth}) is not a multiple of input depth of filter ({filter_depth})")
        if depth // filter_depth != groups:
            raise ValueError(f"Input depth divided by filter input depth does not match with groups parameter "
                             f"({groups})")
    if out_depth is not None and out_depth % groups:
        raise ValueError("Number of groups should divide output depth")
    pairs = _channels_last([tuple(explicit[i:i + 2]) for i in range(0, len(explicit), 2)] or [(0, 0)] * rank,
                           channels_first)
    spatial = [static_window(size, k, s, d, padding, pair) for size, k, s, d, pair in
               zip(standard[1:-1], kernel[:-2], _channels_last(strides, channels_first)[1:-1],
                   _channels_last(dilations, channels_first)[1:-1], pairs[1:-1])]
    return [tensor_shape.TensorShape(batch + ([out_depth, *spatial] if channels_first else [*spatial, out_depth]))]


@Conv.kernel("CPU", expensive=True)
def _conv(ctx: OpKernelContext, input: Any, filter: Any, strides: list, padding: Any,  # noqa: A002
          explicit_paddings: list, data_format: Any, dilations: list, batch_dims: int, groups: int) -> Any:
    """TF's CPU kernel: channels last and one group only."""
    rank = filter.ndim
    if attr_text(data_format) == "CHANNELS_FIRST":
        if rank == 4:
            raise errors.UnimplementedError(ctx.node_def, None, "The Conv2D op currently only supports the NHWC "
                                            "tensor format on the CPU. The op was given the format: NCHW")
        raise invalid_argument(ctx, "CPU implementation of Conv3D currently only supports the NHWC tensor format.")
    if groups != 1:
        raise errors.UnimplementedError(ctx.node_def, None, "Grouped/Depthwise Convolutions are not supported yet.")
    dilations = list(dilations) or [1] * rank
    if strides[0] != 1 or strides[-1] != 1:
        raise invalid_argument(ctx, "Current implementation does not support strides in the batch and depth "
                                    "dimensions.")
    if dilations[0] != 1 or dilations[-1] != 1:
        raise invalid_argument(ctx, "Current implementation does not support dilation rates in the batch and depth "
                                    "dimensions.")
    lead = input.shape[:batch_dims]
    x = input.reshape((int(np.prod(lead)),) + input.shape[batch_dims:])
    if rank == 4:
        g = conv2d_geometry(ctx, x.shape, filter.shape, strides, padding, explicit_paddings, "NHWC", dilations,
                            "convolution")
        out = conv_forward(x, filter, g, ctx.device)
    else:
        out = _conv_forward(x, filter, _conv_geometry(ctx, x.shape, filter.shape, strides, padding, "NDHWC",
                                                      dilations))
    return out.reshape(lead + out.shape[1:]).astype(input.dtype, copy=False)


# -- MaxPool3D, AvgPool3D and their gradients ------------------------------------------------------------


def _pool_geometry(ctx: OpKernelContext, x_shape: Sequence[int], ksize: list, strides: list, padding: Any,
                   data_format: Any) -> _Geometry3D:
    fmt = _Format3D.of(data_format)
    for index, dimension in enumerate(("batch", "depth")):
        if fmt.batch_and_depth(ksize)[index] != 1 or fmt.batch_and_depth(strides)[index] != 1:
            raise errors.UnimplementedError(ctx.node_def, None, f"Pooling is not yet supported on the {dimension} "
                                            "dimension.")
    g = _geometry(ctx, x_shape, fmt.spatial(ksize), 0, strides, padding, data_format, [1] * 5)
    return g._replace(out_depth=g.in_depth)


def _taps(g: _Geometry3D) -> Iterator[tuple[tuple[slice, ...], tuple[slice, ...]]]:
    """Each window tap: the output slice it contributes to and the input slice it reads there."""
    for tap in itertools.product(*[range(k) for k in g.ksize]):
        ranges = [tap_range(w, size, t, s) for w, size, t, s in zip(g.windows, g.in_sizes, tap, g.strides)]
        yield (slice(None), *[r[0] for r in ranges]), (slice(None), *[r[1] for r in ranges])


def _avg_divisors(g: _Geometry3D, dtype: np.dtype) -> Any:
    counts = [window_counts(w, size, k, s) for w, size, k, s in zip(g.windows, g.in_sizes, g.ksize, g.strides)]
    return np.multiply.outer(np.multiply.outer(counts[0], counts[1]), counts[2]).astype(dtype)[None, ..., None]


def _pool3d_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    dims = shape_helpers.with_rank(ctx.input_shape(0), 5).as_list()
    fmt, strides, _, padding = _attrs_3d(ctx, ctx.node_def.op)
    ksize = list(ctx.attr("ksize"))
    if len(ksize) != 5:
        raise ValueError(f"{ctx.node_def.op} requires the ksize attribute to contain 5 values, but got: {len(ksize)}")
    return [_output_shape(fmt, dims, fmt.spatial(ksize), fmt.batch_and_depth(dims)[1], strides, [1] * 5, padding)]


# TF's 3-D pooling kernels (and their gradients) exist on CPU for bfloat16 and float only
_POOL3D_CPU_TYPES = {"T": (dtypes.bfloat16, dtypes.float32)}
MaxPool3D = Op("MaxPool3D", inputs=["input: T"], outputs=["output: T"],
               attrs=[*_POOL_ATTRS_3D, "T: {half, bfloat16, float}"])
MaxPool3D.shape(_pool3d_shape)


def _max_pool(x: Any, g: _Geometry3D) -> Any:
    out = np.full(g.out_shape, lowest(x.dtype), x.dtype)
    for out_index, in_index in _taps(g):
        np.maximum(out[out_index], x[in_index], out=out[out_index])
    return out


@MaxPool3D.kernel("CPU", type_constraints=_POOL3D_CPU_TYPES)
def _max_pool3d(ctx: OpKernelContext, input: Any, ksize: list, strides: list, padding: Any,  # noqa: A002
                data_format: Any) -> Any:
    fmt = _Format3D.of(data_format)
    g = _pool_geometry(ctx, input.shape, ksize, strides, padding, data_format)
    return fmt.from_ndhwc(_max_pool(fmt.to_ndhwc(input), g))


AvgPool3D = Op("AvgPool3D", inputs=["input: T"], outputs=["output: T"], attrs=[*_POOL_ATTRS_3D, f"T: {_FLOAT}"])
AvgPool3D.shape(_pool3d_shape)


@AvgPool3D.kernel("CPU", type_constraints=_POOL3D_CPU_TYPES)
def _avg_pool3d(ctx: OpKernelContext, input: Any, ksize: list, strides: list, padding: Any,  # noqa: A002
                data_format: Any) -> Any:
    """The mean over the input elements inside each window (padding not counted, as TF's)."""
    fmt = _Format3D.of(data_format)
    g = _pool_geometry(ctx, input.shape, ksize, strides, padding, data_format)
    x = fmt.to_ndhwc(input)
    dtype = compute_dtype(x.dtype)
    out = np.zeros(g.out_shape, dtype)
    for out_index, in_index in _taps(g):
        out[out_index] += x[in_index]
    return fmt.from_ndhwc((out / _avg_divisors(g, dtype)).astype(input.dtype, copy=False))


MaxPool3DGrad = Op("MaxPool3DGrad", inputs=["orig_input: TInput", "orig_output: TInput", "grad: T"],
                   outputs=["output: T"], attrs=[*_POOL_ATTRS_3D, "T: {half, bfloat16, float} = DT_FLOAT",
                                                 "TInput: {half, bfloat16, float} = DT_FLOAT"])


@MaxPool3DGrad.shape
def _max_pool3d_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_helpers.with_rank(ctx.input_shape(0), 5)]


def _max_grad_parts(ctx: OpKernelContext, orig_input: Any, orig_output: Any, ksize: list, strides: list,
                    padding: Any, data_format: Any) -> tuple[_Format3D, _Geometry3D, Any, Any]:
    fmt = _Format3D.of(data_format)
    g = _pool_geometry(ctx, orig_input.shape, ksize, strides, padding, data_format)
    x, out = fmt.to_ndhwc(orig_input), fmt.to_ndhwc(orig_output)
    if out.shape != g.out_shape:
        raise invalid_argument(ctx, f"Expected orig_output shape to be {shape_text(g.out_shape)}, but got "
                                    f"{shape_text(out.shape)}")
    return fmt, g, x, out


@MaxPool3DGrad.kernel("CPU", type_constraints=_POOL3D_CPU_TYPES)
def _max_pool3d_grad(ctx: OpKernelContext, orig_input: Any, orig_output: Any, grad: Any, ksize: list,
                     strides: list, padding: Any, data_format: Any) -> Any:
    """Each window's gradient goes to every input position in it that equals its maximum (TF's CPU kernel
    masks by equality, so ties share it)."""
    fmt, g, x, out = _max_grad_parts(ctx, orig_input, orig_output, ksize, strides, padding, data_format)
    dy = fmt.to_ndhwc(grad)
    dtype = compute_dtype(grad.dtype)
    result = np.zeros(x.shape, dtype)
    for out_index, in_index in _taps(g):
        result[in_index] += np.where(x[in_index] == out[out_index], dy[out_index], 0).astype(dtype)
    return fmt.from_ndhwc(result.astype(grad.dtype, copy=False))


MaxPool3DGradGrad = Op("MaxPool3DGradGrad", inputs=["orig_input: T", "orig_output: T", "grad: T"],
                       outputs=["output: T"], attrs=[*_POOL_ATTRS_3D, "T: realnumbertype"])


@MaxPool3DGradGrad.shape
def _max_pool3d_grad_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return _pool3d_shape(ctx)


@MaxPool3DGradGrad.kernel("CPU", type_constraints=_POOL3D_CPU_TYPES)
def _max_pool3d_grad_grad(ctx: OpKernelContext, orig_input: Any, orig_output: Any, grad: Any, ksize: list,
                          strides: list, padding: Any, data_format: Any) -> Any:
    """Each window takes the input gradient at the first position (in window order) holding its maximum."""
    fmt, g, x, out = _max_grad_parts(ctx, orig_input, orig_output, ksize, strides, padding, data_format)
    dx = fmt.to_ndhwc(grad)
    result = np.zeros(out.shape, grad.dtype)
    unclaimed = np.ones(out.shape, bool)
    for out_index, in_index in _taps(g):
        hit = unclaimed[out_index] & (x[in_index] == out[out_index])
        unclaimed[out_index] &= ~hit
        result[out_index] = np.where(hit, dx[in_index], result[out_index])
    return fmt.from_ndhwc(result)


AvgPool3DGrad = Op("AvgPool3DGrad", inputs=["orig_input_shape: int32", "grad: T"], outputs=["output: T"],
                   attrs=[*_POOL_ATTRS_3D, f"T: {_FLOAT}"])


@AvgPool3DGrad.shape
def _avg_pool3d_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [shape_helpers.with_rank(shape_helpers.shape_from_tensor(ctx, 0), 5)]


@AvgPool3DGrad.kernel("CPU", type_constraints=_POOL3D_CPU_TYPES)
def _avg_pool3d_grad(ctx: OpKernelContext, orig_input_shape: Any, grad: Any, ksize: list, strides: list,
                     padding: Any, data_format: Any) -> Any:
    """Each window's gradient divided by its count of input elements and spread over them."""
    fmt = _Format3D.of(data_format)
    sizes = [int(s) for s in np.asarray(orig_input_shape).reshape(-1)]
    if len(sizes) != 5:
        raise invalid_argument(ctx, "orig_input_shape must have 5 elements")
    g = _pool_geometry(ctx, sizes, ksize, strides, padding, data_format)
    dy = fmt.to_ndhwc(grad)
    if dy.shape != g.out_shape:
        raise invalid_argument(ctx, f"grad has shape {shape_text(grad.shape)}, the pooled output's is "
                                    f"{shape_text(fmt.dims(g.batch, g.out_sizes, g.in_depth))}")
    dtype = compute_dtype(grad.dtype)
    shares = dy.astype(dtype) / _avg_divisors(g, dtype)
    result = np.zeros((g.batch, *g.in_sizes, g.in_depth), dtype)
    for out_index, in_index in _taps(g):
        result[in_index] += shares[out_index]
    return fmt.from_ndhwc(result.astype(grad.dtype, copy=False))


_POOL_ATTR_NAMES = ("ksize", "strides", "padding", "data_format")


@MaxPool3D.gradient
def _max_pool3d_gradient(op: Any, grad: Tensor) -> list:
    return [MaxPool3DGrad(op.inputs[0], op.outputs[0], grad, **op_attrs(op, _POOL_ATTR_NAMES))]


@MaxPool3DGrad.gradient
def _max_pool3d_grad_gradient(op: Any, grad: Tensor) -> list:
    """TF's _MaxPool3DGradGrad: no gradient to the forward values, MaxPool3DGradGrad to the gradient."""
    return [fill_ops.zeros_like(op.inputs[0]), fill_ops.zeros_like(op.inputs[1]),
            MaxPool3DGradGrad(op.inputs[0], op.inputs[1], grad, **op_attrs(op, _POOL_ATTR_NAMES))]


@MaxPool3DGradGrad.gradient
def _max_pool3d_grad_grad_gradient(op: Any, grad: Tensor) -> list:
    return [fill_ops.zeros_like(op.inputs[0]), fill_ops.zeros_like(op.inputs[1]),
            MaxPool3DGrad(op.inputs[0], op.inputs[1], grad, **op_attrs(op, _POOL_ATTR_NAMES))]


@AvgPool3D.gradient
def _avg_pool3d_gradient(op: Any, grad: Tensor) -> list:
    return [AvgPool3DGrad(shape_ops.shape(op.inputs[0]), grad, **op_attrs(op, _POOL_ATTR_NAMES))]


@AvgPool3DGrad.gradient
def _avg_pool3d_grad_gradient(op: Any, grad: Tensor) -> list:
    return [None, AvgPool3D(grad, **op_attrs(op, _POOL_ATTR_NAMES))]


# -- Public wrappers ------------------------------------------------------------------------------------


@tf_export("nn.conv3d")
def conv3d(input: Any, filter: Any = None, strides: Any = None, padding: Any = None,  # noqa: A002
           data_format: str = "NDHWC", dilations: Any = [1, 1, 1, 1, 1],  # noqa: B006
           name: str | None = None, filters: Any = None) -> Tensor:
    """The 3-D convolution of a 5-D `input` with a [KD, KH, KW, in, out] `filter` (`filters`, the v2 name)."""
    filter = _deprecated_alias("filters", filters, "filter", filter)
    return Conv3D(input, filter, strides=strides, padding=padding, data_format=data_format, dilations=dilations,
                  name=name)


@tf_export("nn.conv3d_backprop_filter", "nn.conv3d_backprop_filter_v2")
def conv3d_backprop_filter_v2(input: Any, filter_sizes: Any, out_backprop: Any, strides: Any,  # noqa: A002
                              padding: str, data_format: str = "NDHWC",
                              dilations: Any = [1, 1, 1, 1, 1], name: str | None = None) -> Tensor:  # noqa: B006
    """The gradient of conv3d with respect to its filter, of shape `filter_sizes`."""
    return Conv3DBackpropFilterV2(input, filter_sizes, out_backprop, strides=strides, padding=padding,
                                  data_format=data_format, dilations=dilations, name=name)


@tf_export("nn.conv3d_transpose")
def conv3d_transpose(value: Any, filter: Any = None, output_shape: Any = None,  # noqa: A002
                     strides: Any = None, padding: str = "SAME", data_format: str = "NDHWC",
                     name: str | None = None, input: Any = None, filters: Any = None,  # noqa: A002
                     dilations: Any = None) -> Tensor:
    """The transpose of conv3d (its input gradient): `value` [N, D, H, W, out channels] to `output_shape`."""
    value = _deprecated_alias("input", input, "value", value)
    filter = _deprecated_alias("filters", filters, "filter", filter)
    with name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        channel = channel_index(data_format)
        return Conv3DBackpropInputV2(output_shape, filter, value, strides=get_sequence(strides, 3, channel, "strides"),
                                     padding=padding, data_format=data_format,
                                     dilations=get_sequence(dilations, 3, channel, "dilations"), name=scope)


def _pool3d(op: Op, default_name: str, input: Any, ksize: Any, strides: Any, padding: str,  # noqa: A002
            data_format: str, name: str | None) -> Tensor:
    with name_scope(name, default_name, [input]) as scope:
        channel = channel_index(data_format)
        return op(input, ksize=get_sequence(ksize, 3, channel, "ksize"),
                  strides=get_sequence(strides, 3, channel, "strides"), padding=padding, data_format=data_format,
                  name=scope)


@tf_export("conv")
def conv(input: Any, filter: Any, strides: Any, padding: str, explicit_paddings: Any = [],  # noqa: A002, B006
         data_format: str = "CHANNELS_LAST", dilations: Any = [], batch_dims: int = 1,  # noqa: B006
         groups: int = 1, name: str | None = None) -> Tensor:
    """The raw Conv op: a 2-D or 3-D convolution (by the filter's rank) under `batch_dims` batch dimensions."""
    return Conv(input, filter, strides=strides, padding=padding, explicit_paddings=explicit_paddings,
                data_format=data_format, dilations=dilations, batch_dims=batch_dims, groups=groups, name=name)


@tf_export("nn.max_pool3d")
def max_pool3d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC",  # noqa: A002
               name: str | None = None) -> Tensor:
    """The maximum of each 3-D window of a 5-D input."""
    return _pool3d(MaxPool3D, "MaxPool3D", input, ksize, strides, padding, data_format, name)


@tf_export("nn.avg_pool3d")
def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: str, data_format: str = "NDHWC",  # noqa: A002
               name: str | None = None) -> Tensor:
    """The mean of each 3-D window of a 5-D input over the input elements inside it."""
    return _pool3d(AvgPool3D, "AvgPool3D", input, ksize, strides, padding, data_format, name)


def _pool_by_rank(pools: tuple[Any, Any, Any], input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
                  data_format: str | None, name: str | None, explicit_2d_only: bool = False) -> Tensor:
    """TF 2's pooling entry: the 1-D, 2-D or 3-D pool the input's rank calls for (the length of its static
    shape, an unknown rank being TensorShape's error); `explicit_2d_only` refuses explicit paddings for a
    3-D pool as max_pool_v2 does."""
    shape = input.shape  # as TF reads it: a Python list has none (AttributeError)
    if shape is not None:
        n = len(shape) - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError("`input` must have a static shape or a data format. Received: "
                         f"input.shape={shape} and data_format={data_format}")
    if not 1 <= n <= 3:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: input.shape={shape} of rank {n + 2}.")
    channel = 1 if data_format is not None and data_format.startswith("NC") else -1
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError(f"`data_format='NCHW_VECT_C'` is not supported with explicit padding. Received: "
                         f"padding={padding}")
    ksize, strides = get_sequence(ksize, n, channel, "ksize"), get_sequence(strides, n, channel, "strides")
    if explicit_2d_only and isinstance(padding, (list, tuple)) and n == 3:
        raise ValueError(f"Explicit padding is not supported with an input tensor of rank 5. Received: "
                         f"padding={padding}")
    default_format = ("NWC", "NHWC", "NDHWC")[n - 1]
    return pools[n - 1](input, ksize, strides, padding, data_format=data_format or default_format, name=name)


@tf_export("nn.max_pool_v2")
def max_pool_v2(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None = None,  # noqa: A002
                name: str | None = None) -> Tensor:
    """TF 2's max_pool: max_pool1d, max_pool2d or max_pool3d by the input's rank."""
    return _pool_by_rank((max_pool1d, max_pool2d, max_pool3d), input, ksize, strides, padding, data_format, name,
                         explicit_2d_only=True)


@tf_export("nn.avg_pool_v2")
def avg_pool_v2(input: Any, ksize: Any, strides: Any, padding: Any, data_format: str | None = None,  # noqa: A002
                name: str | None = None) -> Tensor:
    """TF 2's avg_pool: avg_pool1d, the AvgPool op itself (named `AvgPool`) or avg_pool3d by the input's rank."""
    return _pool_by_rank((avg_pool1d, _avg_pool_op, avg_pool3d), input, ksize, strides, padding, data_format, name)


def _avg_pool_op(input: Any, ksize: list, strides: list, padding: Any, data_format: str,  # noqa: A002
                 name: str | None) -> Tensor:
    return AvgPool(input, ksize=ksize, strides=strides, padding=padding, data_format=data_format, name=name)


def _pool_steps(n: int, values: Any, what: str) -> np.ndarray:
    """`strides` or `dilation_rate` of tf.nn.pool as an int32 array of n positive steps (all 1 when None)."""
    if values is None:
        return np.ones(n, np.int32)
    if len(values) != n:
        raise ValueError(f"`len({what})` should be {n}. Received: {what}={values} of length {len(values)}")
    steps = np.array(values, np.int32)
    if np.any(steps < 1):
        raise ValueError(f"all values of `{what}` must be positive. Received: {what}={steps}")
    return steps


@tf_export("nn.pool")
def pool(input: Any, window_shape: Any, pooling_type: str, padding: str, dilation_rate: Any = None,  # noqa: A002
         strides: Any = None, name: str | None = None, data_format: str | None = None,
         dilations: Any = None) -> Tensor:
    """N-D (1 to 3) max or average pooling named `max_pool`/`avg_pool`, dilated windows through
    with_space_to_batch, as TF composes it."""
    dilation_rate = _deprecated_alias("dilations", dilations, "dilation_rate", dilation_rate)
    with name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        n = len(window_shape)
        if not 1 <= n <= 3:
            raise ValueError(f"`len(window_shape)` must be 1, 2, or 3. Received: window_shape={window_shape} of "
                             f"length {n}")
        input.shape.with_rank(n + 2)
        rate = _pool_steps(n, dilation_rate, "dilation_rate")
        steps = _pool_steps(n, strides, "strides")
        if np.any(steps > 1) and np.any(rate > 1):
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={steps} and dilation_rate={rate}")
        if padding == "SAME" and np.any(rate > 1):
            raise ValueError("pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: "
                             f"padding={padding} and dilation_rate={rate}")
        if np.any(steps > window_shape):
            raise ValueError("`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
                             f"implementations. Received: strides={steps} and window_shape={window_shape}")
        pools = {"MAX": (max_pool, max_pool3d), "AVG": (avg_pool, avg_pool3d)}
        if pooling_type not in pools:
            raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
        channels_first = data_format is not None and data_format.startswith("NC")
        ksize, stride_list = list(window_shape), [int(s) for s in steps]
        if channels_first:
            ksize, stride_list, start = [1, 1, *ksize], [1, 1, *stride_list], 2
        else:
            ksize, stride_list, start = [1, *ksize, 1], [1, *stride_list, 1], 1
        fmt = {"data_format": data_format} if data_format is not None else {}
        if n == 1:
            if data_format not in (None, "NWC", "NCW"):
                raise ValueError(f"data_format must be either 'NWC' or 'NCW'. Received: data_format={data_format}")
            fmt = {"data_format": "NCHW" if channels_first else "NHWC"}
            ksize, stride_list = [1, *ksize], [1, *stride_list]
        pooling = pools[pooling_type][n == 3]

        def op(converted: Tensor, _: int, converted_padding: Any) -> Tensor:
            if n == 1:
                converted = shape_ops.expand_dims(converted, start)
            result = pooling(converted, ksize, stride_list, converted_padding, name=scope, **fmt)
            return shape_ops.squeeze(result, [start]) if n == 1 else result

        return with_space_to_batch(input, rate, padding, op, filter_shape=window_shape,
                                   spatial_dims=range(start, n + start))


@tf_export("nn.conv_transpose")
def conv_transpose(input: Any, filters: Any, output_shape: Any, strides: Any, padding: str = "SAME",  # noqa: A002
                   data_format: str | None = None, dilations: Any = None, name: str | None = None) -> Tensor:
    """The transpose of an N-D convolution, N (1, 2 or 3) from the length of `output_shape`."""
    with name_scope(name, "conv_transpose", [input, filters, output_shape]) as scope:
        if isinstance(output_shape, Tensor):
            n = output_shape.shape.dims[0].value - 2
        elif hasattr(output_shape, "__len__"):
            n = len(output_shape) - 2
        else:
            raise ValueError("`output_shape` must be a tensor or sized collection")
        if not 1 <= n <= 3:
            raise ValueError(f"`output_shape` must be of length 3, 4 or 5. Received: output_shape={output_shape} of "
                             f"length {n + 2}.")
        transpose = (conv1d_transpose, conv2d_transpose, conv3d_transpose)[n - 1]
        default_format = ("NWC", "NHWC", "NDHWC")[n - 1]
        return transpose(input, filters, output_shape, strides, padding=padding,
                         data_format=data_format or default_format, dilations=dilations, name=scope)
