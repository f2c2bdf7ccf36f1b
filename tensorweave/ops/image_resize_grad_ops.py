"""The gradients of the resize ops: ResizeBilinearGrad, ResizeNearestNeighborGrad and ResizeBicubicGrad, and
the gradient functions of ResizeBilinear, ResizeNearestNeighbor and ResizeBicubic that use them; and RGBToHSV's
gradient (all kept here, beside image_ops, which is at its size limit).

Each resize is separable and linear: per image and channel, out = Ah @ in @ Aw.T with Ah [out_h, in_h] and
Aw [out_w, in_w] the interpolation weights of the forward kernel's taps (image_ops' source coordinates, nearest
indices and cubic taps). Its gradient is Ah.T @ grads @ Aw, two batched matmuls.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave.framework import tensor_shape
from tensorweave.framework.graph import Tensor
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import image_ops, manipulation_ops, shape_helpers, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import add, div_no_nan, logical_and
from tensorweave.ops.image_ops import cubic_taps, nearest_index, source_coords
from tensorweave.ops.kernel_helpers import invalid_argument

_RESIZE_ATTRS = ["align_corners: bool = false", "half_pixel_centers: bool = false"]


def _matrix(in_size: int, out_size: int, indices: Sequence[np.ndarray], weights: Sequence[np.ndarray]) -> np.ndarray:
    """The [out_size, in_size] weights of taps `indices[k]` (one input index per output) weighing `weights[k]`."""
    matrix = np.zeros((out_size, in_size), np.float64)
    rows = np.arange(out_size)
    for index, weight in zip(indices, weights):
        np.add.at(matrix, (rows, index), weight)
    return matrix


def _bilinear_matrix(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    source = source_coords(in_size, out_size, align_corners, half_pixel_centers)
    floor = np.floor(source)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(source).astype(np.int64), in_size - 1)
    lerp = (source - floor).astype(np.float64)
    return _matrix(in_size, out_size, [lower, upper], [1 - lerp, lerp])


def _nearest_matrix(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    index = nearest_index(in_size, out_size, align_corners, half_pixel_centers)
    return _matrix(in_size, out_size, [index], [np.ones(out_size)])


def _cubic_matrix(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    indices, weights = cubic_taps(in_size, out_size, align_corners, half_pixel_centers)
    return _matrix(in_size, out_size, indices, weights)


def _adjoint(ctx: OpKernelContext, grads: Any, in_h: int, in_w: int, matrix: Any, align_corners: bool,
             half_pixel_centers: bool, dtype: np.dtype) -> Any:
    """Ah.T @ grads @ Aw for every image and channel, after TF's checks of the gradient's shape."""
    if half_pixel_centers and align_corners:
        raise invalid_argument(ctx, "If half_pixel_centers is True, align_corners must be False.")
    if grads.ndim != 4:
        raise invalid_argument(ctx, f"input_grad must be 4-dimensional{tensor_shape.shape_string(grads.shape)}")
    if in_h <= 0 or in_w <= 0:
        raise invalid_argument(ctx, "original image must be of non-zero size")
    compute = np.float64 if dtype == np.float64 else np.float32
    rows = matrix(in_h, grads.shape[1], align_corners, half_pixel_centers).astype(compute)
    cols = matrix(in_w, grads.shape[2], align_corners, half_pixel_centers).astype(compute)
    per_channel = grads.astype(compute).transpose(0, 3, 1, 2)  # [N, C, out_h, out_w]
    result = rows.T @ per_channel @ cols  # [N, C, in_h, in_w]
    return result.transpose(0, 2, 3, 1).astype(dtype)


def _like_original(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 4)
    return [shape_helpers.with_rank(ctx.input_shape(1), 4)]


ResizeBilinearGrad = Op("ResizeBilinearGrad", inputs=["grads: float", "original_image: T"], outputs=["output: T"],
                        attrs=["T: {float, bfloat16, half, double}", *_RESIZE_ATTRS])
ResizeBilinearGrad.shape(_like_original)


@ResizeBilinearGrad.kernel("CPU")
def _resize_bilinear_grad(ctx: OpKernelContext, grads: Any, original_image: Any, align_corners: bool,
                          half_pixel_centers: bool) -> Any:
    _, in_h, in_w, _ = original_image.shape
    return _adjoint(ctx, grads, in_h, in_w, _bilinear_matrix, align_corners, half_pixel_centers,
                    original_image.dtype)


ResizeBicubicGrad = Op("ResizeBicubicGrad", inputs=["grads: float", "original_image: T"], outputs=["output: T"],
                       attrs=["T: {float, double}", *_RESIZE_ATTRS])
ResizeBicubicGrad.shape(_like_original)


@ResizeBicubicGrad.kernel("CPU")
def _resize_bicubic_grad(ctx: OpKernelContext, grads: Any, original_image: Any, align_corners: bool,
                         half_pixel_centers: bool) -> Any:
    _, in_h, in_w, _ = original_image.shape
    return _adjoint(ctx, grads, in_h, in_w, _cubic_matrix, align_corners, half_pixel_centers, original_image.dtype)


ResizeNearestNeighborGrad = Op("ResizeNearestNeighborGrad", inputs=["grads: T", "size: int32"], outputs=["output: T"],
                               attrs=["T: {uint8, int8, int32, half, float, double, bfloat16}", *_RESIZE_ATTRS])


@ResizeNearestNeighborGrad.shape
def _resize_nearest_neighbor_grad_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    grads = shape_helpers.with_rank(ctx.input_shape(0), 4)
    shape_helpers.with_rank(ctx.input_shape(1), 1)
    value = ctx.input_value(1)
    height, width = (None, None) if value is None else (int(value[0]), int(value[1]))
    return [tensor_shape.TensorShape([grads.dims[0], height, width, grads.dims[3]])]


@ResizeNearestNeighborGrad.kernel("CPU")
def _resize_nearest_neighbor_grad(ctx: OpKernelContext, grads: Any, size: Any, align_corners: bool,
                                  half_pixel_centers: bool) -> Any:
    """Each output pixel's gradient added into the input pixel it copied."""
    if np.asarray(size).shape != (2,):
        raise invalid_argument(ctx, f"shape_t must be 1-dimensional and have two elements"
                                    f"{tensor_shape.shape_string(np.asarray(size).shape)}")
    in_h, in_w = (int(s) for s in size)
    if grads.dtype.kind in "iu":
        rows = nearest_index(in_h, grads.shape[1], align_corners, half_pixel_centers)
        cols = nearest_index(in_w, grads.shape[2], align_corners, half_pixel_centers)
        out = np.zeros((grads.shape[0], in_h, in_w, grads.shape[3]), grads.dtype)
        np.add.at(out, (slice(None), rows[:, None], cols[None, :]), grads)
        return out
    return _adjoint(ctx, grads, in_h, in_w, _nearest_matrix, align_corners, half_pixel_centers, grads.dtype)


def _resize_attrs(op: Any) -> dict[str, Any]:
    return {"align_corners": op.get_attr("align_corners"), "half_pixel_centers": op.get_attr("half_pixel_centers")}


@image_ops.ResizeBilinear.gradient
def _resize_bilinear_gradient(op: Any, grad: Tensor) -> list:
    return [ResizeBilinearGrad(grad, op.inputs[0], **_resize_attrs(op)), None]


@image_ops.ResizeNearestNeighbor.gradient
def _resize_nearest_neighbor_gradient(op: Any, grad: Tensor) -> list:
    """The input's spatial size, static when known (as TF's _ResizeNearestNeighborGrad)."""
    static = op.inputs[0].shape[1:3]
    size = static.as_list() if static.is_fully_defined() else shape_ops.shape(op.inputs[0])[1:3]
    return [ResizeNearestNeighborGrad(grad, size, **_resize_attrs(op)), None]


@image_ops.ResizeBicubic.gradient
def _resize_bicubic_gradient(op: Any, grad: Tensor) -> list:
    if op.inputs[0].dtype.base_dtype.name not in ("float32", "float64"):
        return [None, None]
    return [ResizeBicubicGrad(grad, op.inputs[0], **_resize_attrs(op)), None]


@image_ops.RGBToHSV.gradient
def _rgb_to_hsv_gradient(op: Any, grad: Tensor) -> list:
    """TF's piecewise partial derivatives of hue, saturation and value by each channel. The terms are the same
    for red, green and blue taken cyclically (x, then y after it and z after that); a reciprocal of zero is
    zero; the hue's are in turns, as the op's hue is."""
    image, hsv = op.inputs[0], op.outputs[0]
    dtype = image.dtype
    r, g, b = (image[..., i] for i in range(3))
    saturation, value = hsv[..., 1], hsv[..., 2]

    def mask(condition: Tensor) -> Tensor:
        return cast(condition, dtype)

    def inverse(x: Tensor) -> Tensor:
        return div_no_nan(cast(1.0, dtype), x)

    # which channel is largest and smallest, ties broken as TF breaks them
    biggest = {"r": mask(logical_and(r >= b, r >= g)), "g": mask(logical_and(g > r, g >= b)),
               "b": mask(logical_and(b > r, b > g))}
    smallest = {"r": mask(logical_and(r < b, r < g)), "g": mask(logical_and(g <= r, g < b)),
                "b": mask(logical_and(b <= r, b <= g))}
    channel = {"r": r, "g": g, "b": b}
    positive = {name: mask(t > 0) for name, t in channel.items()}
    parts = {"h": [], "s": [], "v": []}
    for xn, yn, zn in (("r", "g", "b"), ("g", "b", "r"), ("b", "r", "g")):
        x, y, z = channel[xn], channel[yn], channel[zn]
        xb, yb, zb, xs, ys, zs = biggest[xn], biggest[yn], biggest[zn], smallest[xn], smallest[yn], smallest[zn]
        parts["v"].append(xb)
        parts["s"].append(positive[xn] * ((xb * (ys * y + zs * z)) * inverse(x * x) + xs * -1 * inverse(yb * y + zb * z)))
        hue = (60 * (positive[xn] * xb * -1 * (y - z) * inverse(saturation * saturation) * inverse(value * value))
               + 60 * (positive[yn] * yb * xs * (z - y) * inverse((x - y) * (x - y)))
               + 60 * (positive[yn] * yb * zs * -1 * inverse(y - z))
               + 60 * (positive[zn] * zb * xs * (z - y) * inverse((z - x) * (z - x)))
               + 60 * (positive[zn] * zb * ys * inverse(z - y)))
        parts["h"].append(hue / 360)
    by = {key: manipulation_ops.stack([grad[..., i] * d for d in parts[key]], axis=-1)
          for key, i in (("h", 0), ("s", 1), ("v", 2))}
    return [add(add(by["v"], by["s"]), by["h"])]


NotDifferentiable("HSVToRGB")
