"""Grayscale morphology: Dilation2D (`tf.nn.dilation2d`) with its two backprops, and erosion2d, its dual.

Dilation is max-plus convolution: each output is the maximum over a (dilated) window of input + filter, per
channel, positions outside the input never counting. The kernel takes a strided view of the input padded
with the dtype's lowest value ([N, OH, OW, KH, KW, C]), adds the filter and reduces; the gradients route
each output gradient to the window tap that won, the first in row-major order among equals, as TF's loops
(which keep a strictly greater value) pick it, and scatter-add it into the input or the filter.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import elementwise_ops, manipulation_ops, shape_helpers
from tensorweave.ops.conv_kernels import Window, lowest, runtime_window, static_window
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.reduction_ops import _deprecated_alias
from tensorweave.platform.tf_export import tf_export

_ATTRS = ["T: realnumbertype", "strides: list(int) >= 4", "rates: list(int) >= 4", "padding: {'SAME', 'VALID'}"]

Dilation2D = Op("Dilation2D", inputs=["input: T", "filter: T"], outputs=["output: T"], attrs=_ATTRS)


def _merge(a: Any, b: Any) -> Any:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


@Dilation2D.shape
def _dilation2d_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    n, h, w, c = shape_helpers.with_rank(ctx.input_shape(0), 4).as_list()
    kh, kw, depth = shape_helpers.with_rank(ctx.input_shape(1), 3).as_list()
    strides, rates, padding = list(ctx.attr("strides")), list(ctx.attr("rates")), ctx.attr("padding")
    for name, values in (("strides", strides), ("rates", rates)):
        if len(values) != 4:
            raise ValueError(f"Dilation2D requires the {name} attribute to contain 4 values, but got: {len(values)}")
    padding = padding.decode() if isinstance(padding, bytes) else padding
    rows = static_window(h, kh, strides[1], rates[1], padding)
    cols = static_window(w, kw, strides[2], rates[2], padding)
    return [tensor_shape.TensorShape([n, rows, cols, _merge(c, depth)])]


class _Geometry:
    """A dilation's windows: output sizes and padding, strides and rates of both spatial dimensions."""

    def __init__(self, ctx: OpKernelContext, input: Any, filter: Any, strides: list, rates: list,  # noqa: A002
                 padding: Any) -> None:
        if input.ndim != 4:
            raise invalid_argument(ctx, f"input must be 4-dimensional{list(input.shape)}")
        if filter.ndim != 3:
            raise invalid_argument(ctx, f"filter must be 3-dimensional: {list(filter.shape)}")
        if input.shape[3] != filter.shape[2]:
            raise invalid_argument(ctx, f"input and filter must have the same depth: {input.shape[3]} vs "
                                        f"{filter.shape[2]}")
        if strides[0] != 1 or strides[3] != 1 or rates[0] != 1 or rates[3] != 1:
            raise invalid_argument(ctx, "Current implementation does not yet support strides or rates in the "
                                        "batch and depth dimensions.")
        padding = padding.decode() if isinstance(padding, bytes) else padding
        self.kh, self.kw = filter.shape[:2]
        self.stride, self.rate = (strides[1], strides[2]), (rates[1], rates[2])
        self.rows: Window = runtime_window(ctx, input.shape[1], self.kh, strides[1], rates[1], padding)
        self.cols: Window = runtime_window(ctx, input.shape[2], self.kw, strides[2], rates[2], padding)

    def padded(self, x: Any) -> Any:
        pads = ((0, 0), (self.rows.before, self.rows.after), (self.cols.before, self.cols.after), (0, 0))
        return np.pad(x, pads, constant_values=lowest(x.dtype))

    def best_taps(self, x: Any, filter: Any) -> tuple[Any, Any, Any]:  # noqa: A002
        """The padded input, each output's maximum, and the flat [KH*KW] index of the tap that gave it."""
        padded = self.padded(x)
        n, _, _, c = x.shape
        sn, sh, sw, sc = padded.strides
        windows = as_strided(padded, (n, self.rows.size, self.cols.size, self.kh, self.kw, c),
                             (sn, sh * self.stride[0], sw * self.stride[1], sh * self.rate[0], sw * self.rate[1], sc),
                             writeable=False)
        sums = (windows + filter).reshape(n, self.rows.size, self.cols.size, self.kh * self.kw, c)
        tap = sums.argmax(axis=3)
        return padded, np.take_along_axis(sums, tap[:, :, :, None], axis=3)[:, :, :, 0], tap

    def input_positions(self, tap: Any) -> tuple[Any, Any]:
        """The padded-input row and column of each output's winning tap."""
        rows = np.arange(self.rows.size)[None, :, None, None] * self.stride[0] + (tap // self.kw) * self.rate[0]
        cols = np.arange(self.cols.size)[None, None, :, None] * self.stride[1] + (tap % self.kw) * self.rate[1]
        return rows, cols


@Dilation2D.kernel("CPU")
def _dilation2d(ctx: OpKernelContext, input: Any, filter: Any, strides: list, rates: list,  # noqa: A002
                padding: Any) -> Any:
    g = _Geometry(ctx, input, filter, strides, rates, padding)
    return g.best_taps(input, filter)[1].astype(input.dtype, copy=False)


def _check_out_backprop(ctx: OpKernelContext, g: _Geometry, input: Any, out_backprop: Any) -> None:  # noqa: A002
    want = (input.shape[0], g.rows.size, g.cols.size, input.shape[3])
    if tuple(out_backprop.shape) != want:
        raise invalid_argument(ctx, f"out_backprop has incompatible size: {list(out_backprop.shape)} vs {list(want)}")


Dilation2DBackpropInput = Op("Dilation2DBackpropInput", inputs=["input: T", "filter: T", "out_backprop: T"],
                             outputs=["in_backprop: T"], attrs=_ATTRS)
Dilation2DBackpropInput.shape(lambda ctx: [shape_helpers.with_rank(ctx.input_shape(0), 4)])


@Dilation2DBackpropInput.kernel("CPU")
def _dilation2d_backprop_input(ctx: OpKernelContext, input: Any, filter: Any, out_backprop: Any,  # noqa: A002
                               strides: list, rates: list, padding: Any) -> Any:
    """Each output gradient added to the input element its winning tap read."""
    g = _Geometry(ctx, input, filter, strides, rates, padding)
    _check_out_backprop(ctx, g, input, out_backprop)
    padded, _, tap = g.best_taps(input, filter)
    rows, cols = g.input_positions(tap)
    n, ph, pw, c = padded.shape
    flat = ((np.arange(n)[:, None, None, None] * ph + rows) * pw + cols) * c + np.arange(c)
    grad = np.zeros(padded.size, dtype=out_backprop.dtype)
    np.add.at(grad, flat.reshape(-1), out_backprop.reshape(-1))
    grad = grad.reshape(padded.shape)
    return grad[:, g.rows.before:g.rows.before + input.shape[1], g.cols.before:g.cols.before + input.shape[2]]


Dilation2DBackpropFilter = Op("Dilation2DBackpropFilter", inputs=["input: T", "filter: T", "out_backprop: T"],
                              outputs=["filter_backprop: T"], attrs=_ATTRS)
Dilation2DBackpropFilter.shape(lambda ctx: [shape_helpers.with_rank(ctx.input_shape(1), 3)])


@Dilation2DBackpropFilter.kernel("CPU")
def _dilation2d_backprop_filter(ctx: OpKernelContext, input: Any, filter: Any, out_backprop: Any,  # noqa: A002
                                strides: list, rates: list, padding: Any) -> Any:
    """Each output gradient added to the filter tap that won its window."""
    g = _Geometry(ctx, input, filter, strides, rates, padding)
    _check_out_backprop(ctx, g, input, out_backprop)
    tap = g.best_taps(input, filter)[2]
    c = input.shape[3]
    grad = np.zeros(g.kh * g.kw * c, dtype=out_backprop.dtype)
    np.add.at(grad, (tap * c + np.arange(c)).reshape(-1), out_backprop.reshape(-1))
    return grad.reshape(filter.shape)


@Dilation2D.gradient
def _dilation2d_grad(op: Any, grad: Tensor) -> list:
    attrs = {name: op.get_attr(name) for name in ("strides", "rates", "padding")}
    return [Dilation2DBackpropInput(op.inputs[0], op.inputs[1], grad, **attrs),
            Dilation2DBackpropFilter(op.inputs[0], op.inputs[1], grad, **attrs)]


@tf_export("nn.dilation2d")
def dilation2d(input: Any, filter: Any = None, strides: Any = None, rates: Any = None,  # noqa: A002
               padding: Any = None, name: str | None = None, filters: Any = None, dilations: Any = None) -> Tensor:
    """Grayscale dilation: the maximum of input + filter over each window ([KH, KW, C] filter, per channel)."""
    filter = _deprecated_alias("filters", filters, "filter", filter)
    rates = _deprecated_alias("dilations", dilations, "rates", rates)
    return Dilation2D(input, filter, strides=strides, rates=rates, padding=padding, name=name)


@tf_export("nn.erosion2d")
def erosion2d(value: Any, kernel: Any, strides: Any, rates: Any, padding: Any, name: str | None = None) -> Tensor:
    """Grayscale erosion: the minimum of value - kernel over each window, as the dilation of -value by the
    reversed kernel, negated."""
    with name_scope(name, "erosion2d", [value, kernel]) as scope:
        return elementwise_ops.negative(Dilation2D(elementwise_ops.negative(value),
                                                   manipulation_ops.reverse(kernel, [0, 1]), strides=strides,
                                                   rates=rates, padding=padding, name=scope))


