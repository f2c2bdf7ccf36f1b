"""Image ops over boxes (`tf.image`): crop_and_resize and its gradients, the non-max suppressions (v1 to v5,
with overlaps, combined per class), generate_bounding_box_proposals (a region proposal network's boxes),
draw_bounding_boxes, extract_glimpse and sample_distorted_bounding_box.

Boxes are TF's normalized [y1, x1, y2, x2]. The crop kernels sample every output pixel at once from index
arrays, as TF's bilinear and nearest crop do in float; the gradients scatter-add with the same weights. A
non-max suppression is greedy by nature: its loop runs once per selected box, each step vectorized over the
remaining candidates (TF's soft-NMS re-scoring is done eagerly, which selects the same boxes).
sample_distorted_bounding_box draws from the node's Philox stream one number at a time, attempt after
attempt, as TF's SimplePhilox does, so a seeded op gives TF's crop.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import (
    elementwise_ops,
    fill_ops,
    manipulation_ops,
    random_ops,
    sequence_ops,
    shape_helpers,
    shape_ops,
)
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.platform.tf_export import tf_export

_Shape = tensor_shape.TensorShape
_REAL = "{uint8, uint16, int8, int16, int32, int64, half, float, double}"

# -- CropAndResize -----------------------------------------------------------------------------------

CropAndResize = Op("CropAndResize", inputs=["image: T", "boxes: float", "box_ind: int32", "crop_size: int32"],
                   outputs=["crops: float"],
                   attrs=[f"T: {_REAL}", "method: {'bilinear', 'nearest'} = 'bilinear'",
                          "extrapolation_value: float = 0"])
CropAndResizeGradImage = Op("CropAndResizeGradImage",
                            inputs=["grads: float", "boxes: float", "box_ind: int32", "image_size: int32"],
                            outputs=["output: T"],
                            attrs=["T: {float, half, double}", "method: {'bilinear', 'nearest'} = 'bilinear'"])
CropAndResizeGradBoxes = Op("CropAndResizeGradBoxes",
                            inputs=["grads: float", "image: T", "boxes: float", "box_ind: int32"],
                            outputs=["output: float"], attrs=[f"T: {_REAL}", "method: {'bilinear'} = 'bilinear'"])


def _boxes_shape(ctx: InferenceContext, boxes: int, box_ind: int) -> tensor_shape.Dimension:
    """TF's check of boxes [num_boxes, 4] and box_ind [num_boxes]; the number of boxes."""
    boxes_shape = shape_helpers.with_rank(ctx.input_shape(boxes), 2)
    box_ind_shape = shape_helpers.with_rank(ctx.input_shape(box_ind), 1)
    shape_helpers.with_value(boxes_shape.dims[1], 4)
    return shape_helpers.merge_dim(boxes_shape.dims[0], box_ind_shape.dims[0])


@CropAndResize.shape
def _crop_and_resize_shape(ctx: InferenceContext) -> list[_Shape]:
    image = shape_helpers.with_rank(ctx.input_shape(0), 4)
    num_boxes = _boxes_shape(ctx, 1, 2)
    shape_helpers.with_value(shape_helpers.with_rank(ctx.input_shape(3), 1).dims[0], 2)
    crop = ctx.input_value(3)
    crop_dims = [None, None] if crop is None else [int(d) if d >= 0 else None for d in crop]  # TF's MakeDim
    return [_Shape([num_boxes, *crop_dims, image.dims[3]])]


@CropAndResizeGradImage.shape
def _crop_and_resize_grad_image_shape(ctx: InferenceContext) -> list[_Shape]:
    shape_helpers.with_value(shape_helpers.with_rank(ctx.input_shape(3), 1).dims[0], 4)
    return [shape_helpers.shape_from_tensor(ctx, 3)]


@CropAndResizeGradBoxes.shape
def _crop_and_resize_grad_boxes_shape(ctx: InferenceContext) -> list[_Shape]:
    return [ctx.input_shape(2)]


def _check_boxes(ctx: OpKernelContext, boxes: np.ndarray, box_ind: np.ndarray, batch: int) -> None:
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise invalid_argument(ctx, f"boxes must be 2-D[num_boxes, 4]{tensor_shape.shape_string(boxes.shape)}")
    if box_ind.shape != (boxes.shape[0],):
        raise invalid_argument(ctx, "box_index has incompatible shape")
    if np.any((box_ind < 0) | (box_ind >= batch)):
        raise errors.OutOfRangeError(ctx.node_def, None, "box_index has values outside [0, batch_size)")


def _sample_points(boxes: np.ndarray, size: int, extent: int, lo: int, hi: int) -> tuple[np.ndarray, ...]:
    """Along one axis, for each box and output index: the float32 source coordinate, whether it lies in the
    image, and TF's scale of (extent - 1) per output step."""
    start, stop = boxes[:, lo:lo + 1], boxes[:, hi:hi + 1]
    last = np.float32(extent - 1)
    if size > 1:
        scale = (stop - start) * last / np.float32(size - 1)
        coords = start * last + np.arange(size, dtype=np.float32) * scale
    else:
        scale = np.zeros_like(start)
        coords = np.broadcast_to(np.float32(0.5) * (start + stop) * last, (len(boxes), size))
    return coords.astype(np.float32), (coords >= 0) & (coords <= last), scale


def _crop_geometry(boxes: np.ndarray, crop_h: int, crop_w: int, height: int, width: int) -> dict[str, np.ndarray]:
    """The sample coordinates of every crop pixel and their bilinear corners and weights."""
    in_y, y_ok, _ = _sample_points(boxes, crop_h, height, 0, 2)
    in_x, x_ok, _ = _sample_points(boxes, crop_w, width, 1, 3)
    top, left = np.floor(in_y), np.floor(in_x)
    return {"in_y": in_y, "in_x": in_x, "y_ok": y_ok, "x_ok": x_ok,
            "top": np.clip(top, 0, height - 1).astype(np.int64),
            "bottom": np.clip(np.ceil(in_y), 0, height - 1).astype(np.int64),
            "left": np.clip(left, 0, width - 1).astype(np.int64),
            "right": np.clip(np.ceil(in_x), 0, width - 1).astype(np.int64),
            "y_lerp": (in_y - top).astype(np.float32), "x_lerp": (in_x - left).astype(np.float32)}


def _check_crop(ctx: OpKernelContext, image: np.ndarray, boxes: np.ndarray, box_ind: np.ndarray) -> None:
    if image.ndim != 4:
        raise invalid_argument(ctx, f"input image must be 4-D{tensor_shape.shape_string(image.shape)}")
    if image.shape[1] <= 0 or image.shape[2] <= 0:
        raise invalid_argument(ctx, "image dimensions must be positive")
    _check_boxes(ctx, boxes, box_ind, image.shape[0])


@CropAndResize.kernel("CPU")
def _crop_and_resize(ctx: OpKernelContext, image: Any, boxes: Any, box_ind: Any, crop_size: Any, T: Any,  # noqa: N803
                     method: bytes, extrapolation_value: float) -> Any:
    _check_crop(ctx, image, boxes, box_ind)
    if np.shape(crop_size) != (2,):
        raise invalid_argument(ctx, f"crop_size must be 1-D{tensor_shape.shape_string(np.shape(crop_size))}")
    crop_h, crop_w = (int(v) for v in crop_size)
    if crop_h <= 0 or crop_w <= 0:
        raise invalid_argument(ctx, "crop dimensions must be positive")
    g = _crop_geometry(boxes, crop_h, crop_w, image.shape[1], image.shape[2])
    source = image[box_ind].astype(np.float32)
    rows = np.arange(len(boxes))[:, None, None]
    if method == b"nearest":  # std::round: halves away from zero (the coordinates in the image are >= 0)
        y = np.clip(np.floor(g["in_y"] + np.float32(0.5)), 0, image.shape[1] - 1).astype(np.int64)
        x = np.clip(np.floor(g["in_x"] + np.float32(0.5)), 0, image.shape[2] - 1).astype(np.int64)
        crops = source[rows, y[:, :, None], x[:, None, :]]
    else:
        def at(y: np.ndarray, x: np.ndarray) -> np.ndarray:
            return source[rows, y[:, :, None], x[:, None, :]]

        x_lerp = g["x_lerp"][:, None, :, None]
        top_left, top_right = at(g["top"], g["left"]), at(g["top"], g["right"])
        bottom_left, bottom_right = at(g["bottom"], g["left"]), at(g["bottom"], g["right"])
        top = top_left + (top_right - top_left) * x_lerp
        bottom = bottom_left + (bottom_right - bottom_left) * x_lerp
        crops = top + (bottom - top) * g["y_lerp"][:, :, None, None]
    inside = g["y_ok"][:, :, None, None] & g["x_ok"][:, None, :, None]
    return np.where(inside, crops, np.float32(extrapolation_value)).astype(np.float32)


def _bilinear_scatter(grads: np.ndarray, g: dict[str, np.ndarray], box_ind: np.ndarray, image_shape: tuple,
                      dtype: Any, nearest: bool) -> np.ndarray:
    """The image gradient: each crop pixel's gradient added to the pixels it was sampled from."""
    out = np.zeros(image_shape, np.float64 if dtype == np.float64 else np.float32)
    inside = (g["y_ok"][:, :, None] & g["x_ok"][:, None, :]).ravel()
    num, crop_h, crop_w = grads.shape[:3]
    b = np.broadcast_to(box_ind[:, None, None], (num, crop_h, crop_w)).ravel()[inside]
    flat = grads.reshape(-1, grads.shape[3])[inside]

    def add(y: np.ndarray, x: np.ndarray, weight: Any) -> None:
        yy = np.broadcast_to(y[:, :, None], (num, crop_h, crop_w)).ravel()[inside]
        xx = np.broadcast_to(x[:, None, :], (num, crop_h, crop_w)).ravel()[inside]
        np.add.at(out, (b, yy, xx), flat * weight)

    if nearest:  # std::round: halves away from zero (the coordinates in the image are >= 0)
        add(np.clip(np.floor(g["in_y"] + np.float32(0.5)), 0, image_shape[1] - 1).astype(np.int64),
            np.clip(np.floor(g["in_x"] + np.float32(0.5)), 0, image_shape[2] - 1).astype(np.int64), 1)
        return out.astype(dtype)
    y_lerp = np.broadcast_to(g["y_lerp"][:, :, None], (num, crop_h, crop_w)).ravel()[inside][:, None]
    x_lerp = np.broadcast_to(g["x_lerp"][:, None, :], (num, crop_h, crop_w)).ravel()[inside][:, None]
    add(g["top"], g["left"], (1 - y_lerp) * (1 - x_lerp))
    add(g["top"], g["right"], (1 - y_lerp) * x_lerp)
    add(g["bottom"], g["left"], y_lerp * (1 - x_lerp))
    add(g["bottom"], g["right"], y_lerp * x_lerp)
    return out.astype(dtype)


@CropAndResizeGradImage.kernel("CPU")
def _crop_and_resize_grad_image(ctx: OpKernelContext, grads: Any, boxes: Any, box_ind: Any, image_size: Any,
                                T: dtypes.DType, method: bytes) -> Any:  # noqa: N803
    if grads.ndim != 4:
        raise invalid_argument(ctx, f"grads image must be 4-D{tensor_shape.shape_string(grads.shape)}")
    if np.shape(image_size) != (4,):
        raise invalid_argument(ctx, f"image_size must be 1-D with 4 elements{tensor_shape.shape_string(np.shape(image_size))}")
    shape = tuple(int(v) for v in image_size)
    if shape[1] <= 0 or shape[2] <= 0:
        raise invalid_argument(ctx, "image dimensions must be positive")
    if shape[3] != grads.shape[3]:
        raise invalid_argument(ctx, "image_size and grads are incompatible")
    _check_boxes(ctx, boxes, box_ind, shape[0])
    g = _crop_geometry(boxes, grads.shape[1], grads.shape[2], shape[1], shape[2])
    return _bilinear_scatter(grads, g, box_ind, shape, T.as_numpy_dtype, method == b"nearest")


@CropAndResizeGradBoxes.kernel("CPU")
def _crop_and_resize_grad_boxes(ctx: OpKernelContext, grads: Any, image: Any, boxes: Any, box_ind: Any,
                                T: Any, method: bytes) -> Any:  # noqa: N803
    _check_crop(ctx, image, boxes, box_ind)
    height, width = image.shape[1:3]
    crop_h, crop_w = grads.shape[1:3]
    g = _crop_geometry(boxes, crop_h, crop_w, height, width)
    source = image[box_ind].astype(np.float32)
    rows = np.arange(len(boxes))[:, None, None]

    def at(y: np.ndarray, x: np.ndarray) -> np.ndarray:
        return source[rows, y[:, :, None], x[:, None, :]]

    x_lerp, y_lerp = g["x_lerp"][:, None, :, None], g["y_lerp"][:, :, None, None]
    top_left, top_right = at(g["top"], g["left"]), at(g["top"], g["right"])
    bottom_left, bottom_right = at(g["bottom"], g["left"]), at(g["bottom"], g["right"])
    image_grad_y = (1 - x_lerp) * (bottom_left - top_left) + x_lerp * (bottom_right - top_right)
    image_grad_x = (1 - y_lerp) * (top_right - top_left) + y_lerp * (bottom_right - bottom_left)
    inside = (g["y_ok"][:, :, None] & g["x_ok"][:, None, :]).astype(np.float32)
    ygrad = (grads * image_grad_y).sum(axis=3) * inside
    xgrad = (grads * image_grad_x).sum(axis=3) * inside
    y_index = np.arange(crop_h, dtype=np.float32)[None, :, None]
    x_index = np.arange(crop_w, dtype=np.float32)[None, None, :]
    if crop_h > 1:
        ratio = np.float32(height - 1) / np.float32(crop_h - 1)
        dy1 = (ygrad * (np.float32(height - 1) - y_index * ratio)).sum(axis=(1, 2))
        dy2 = (ygrad * (y_index * ratio)).sum(axis=(1, 2))
    else:
        dy1 = dy2 = (ygrad * np.float32(0.5 * (height - 1))).sum(axis=(1, 2))
    if crop_w > 1:
        ratio = np.float32(width - 1) / np.float32(crop_w - 1)
        dx1 = (xgrad * (np.float32(width - 1) - x_index * ratio)).sum(axis=(1, 2))
        dx2 = (xgrad * (x_index * ratio)).sum(axis=(1, 2))
    else:
        dx1 = dx2 = (xgrad * np.float32(0.5 * (width - 1))).sum(axis=(1, 2))
    return np.stack([dy1, dx1, dy2, dx2], axis=1).astype(np.float32)


@CropAndResize.gradient
def _crop_and_resize_grad(op: Any, grad: Tensor) -> list:
    image = op.inputs[0]
    grad_image = None
    if image.dtype in (dtypes.float16, dtypes.float32, dtypes.float64):
        grad_image = CropAndResizeGradImage(grad, op.inputs[1], op.inputs[2], shape_ops.shape(image),
                                            T=op.get_attr("T"), method=op.get_attr("method"))
    return [grad_image, CropAndResizeGradBoxes(grad, image, op.inputs[1], op.inputs[2]), None, None]


@tf_export("image.crop_and_resize")
def crop_and_resize(image: Any, boxes: Any, box_ind: Any = None, crop_size: Any = None, method: str = "bilinear",
                    extrapolation_value: float = 0, name: str | None = None, box_indices: Any = None) -> Tensor:
    """Crops of `image` at normalized `boxes`, each resized to `crop_size` (TF1's name; `box_ind` is
    `box_indices` in TF2)."""
    if box_ind is None:
        box_ind = box_indices
    return CropAndResize(image, boxes, box_ind, crop_size, method=method, extrapolation_value=extrapolation_value,
                         name=name)


# -- Non-max suppression -----------------------------------------------------------------------------

NonMaxSuppression = Op("NonMaxSuppression", inputs=["boxes: float", "scores: float", "max_output_size: int32"],
                       outputs=["selected_indices: int32"], attrs=["iou_threshold: float = 0.5"])
_NMS_TYPES = ["T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT"]
NonMaxSuppressionV2 = Op("NonMaxSuppressionV2", inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                                        "iou_threshold: T_threshold"],
                         outputs=["selected_indices: int32"], attrs=_NMS_TYPES)
NonMaxSuppressionV3 = Op("NonMaxSuppressionV3", inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                                        "iou_threshold: T_threshold", "score_threshold: T_threshold"],
                         outputs=["selected_indices: int32"], attrs=_NMS_TYPES)
NonMaxSuppressionV4 = Op("NonMaxSuppressionV4", inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                                        "iou_threshold: T_threshold", "score_threshold: T_threshold"],
                         outputs=["selected_indices: int32", "valid_outputs: int32"],
                         attrs=[*_NMS_TYPES, "pad_to_max_output_size: bool = false"])
NonMaxSuppressionV5 = Op("NonMaxSuppressionV5", inputs=["boxes: T", "scores: T", "max_output_size: int32",
                                                        "iou_threshold: T", "score_threshold: T",
                                                        "soft_nms_sigma: T"],
                         outputs=["selected_indices: int32", "selected_scores: T", "valid_outputs: int32"],
                         attrs=["T: {half, float} = DT_FLOAT", "pad_to_max_output_size: bool = false"])
NonMaxSuppressionWithOverlaps = Op("NonMaxSuppressionWithOverlaps",
                                   inputs=["overlaps: float", "scores: float", "max_output_size: int32",
                                           "overlap_threshold: float", "score_threshold: float"],
                                   outputs=["selected_indices: int32"])


def _nms_input_shapes(ctx: InferenceContext, square: bool = False) -> None:
    boxes = shape_helpers.with_rank(ctx.input_shape(0), 2)
    scores = shape_helpers.with_rank(ctx.input_shape(1), 1)
    shape_helpers.with_rank(ctx.input_shape(2), 0)
    shape_helpers.merge_dim(boxes.dims[0], scores.dims[0])
    if square:
        shape_helpers.merge_dim(boxes.dims[0], boxes.dims[1])
    else:
        shape_helpers.with_value(boxes.dims[1], 4)
    for index in range(3, ctx.num_inputs):
        shape_helpers.with_rank(ctx.input_shape(index), 0)


def _selected_size(ctx: InferenceContext, pad: bool) -> tensor_shape.Dimension:
    limit = ctx.input_value(2)
    if pad and limit is not None:
        return tensor_shape.Dimension(int(limit))
    return tensor_shape.Dimension(None)


@NonMaxSuppression.shape
@NonMaxSuppressionV2.shape
@NonMaxSuppressionV3.shape
def _nms_shape(ctx: InferenceContext) -> list[_Shape]:
    _nms_input_shapes(ctx)
    return [_Shape([None])]


@NonMaxSuppressionV4.shape
def _nms_v4_shape(ctx: InferenceContext) -> list[_Shape]:
    _nms_input_shapes(ctx)
    return [_Shape([_selected_size(ctx, ctx.attr("pad_to_max_output_size"))]), _Shape([])]


@NonMaxSuppressionV5.shape
def _nms_v5_shape(ctx: InferenceContext) -> list[_Shape]:
    _nms_input_shapes(ctx)
    size = _selected_size(ctx, ctx.attr("pad_to_max_output_size"))
    return [_Shape([size]), _Shape([size]), _Shape([])]


@NonMaxSuppressionWithOverlaps.shape
def _nms_overlaps_shape(ctx: InferenceContext) -> list[_Shape]:
    _nms_input_shapes(ctx, square=True)
    return [_Shape([None])]


def _iou(boxes: np.ndarray, one: int, others: np.ndarray) -> np.ndarray:
    """TF's intersection over union of box `one` with each of `others`, 0 where either is empty."""
    lo, hi = np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])
    area = (hi[:, 0] - lo[:, 0]) * (hi[:, 1] - lo[:, 1])
    inter_lo, inter_hi = np.maximum(lo[one], lo[others]), np.minimum(hi[one], hi[others])
    inter = np.maximum(inter_hi[:, 0] - inter_lo[:, 0], 0) * np.maximum(inter_hi[:, 1] - inter_lo[:, 1], 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[one] + area[others] - inter)
    return np.where((area[one] <= 0) | (area[others] <= 0), np.float32(0), iou).astype(np.float32)


def _greedy_nms(similarity: Any, scores: np.ndarray, max_output_size: int, threshold: float,
                score_threshold: float, soft_nms_sigma: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """TF's greedy selection: the best remaining candidate each step; the others over `threshold` similar
    to it dropped (or, with soft-NMS, re-scored by exp(-sim^2 / (2 sigma)) and dropped at the score
    threshold). `similarity(i, others)` gives box i's similarity to each of `others`."""
    scores = scores.astype(np.float32)
    candidates = np.flatnonzero(scores > score_threshold)
    current = scores[candidates]
    order = np.argsort(-current, kind="stable")
    candidates, current = candidates[order], current[order]
    scale = np.float32(-0.5 / soft_nms_sigma) if soft_nms_sigma > 0 else np.float32(0)
    selected, selected_scores = [], []
    while candidates.size and len(selected) < max_output_size:
        best = int(np.argmax(current))
        chosen = candidates[best]
        selected.append(chosen)
        selected_scores.append(current[best])
        keep = np.ones(candidates.size, bool)
        keep[best] = False
        candidates, current = candidates[keep], current[keep]
        if not candidates.size:
            break
        sim = similarity(chosen, candidates)
        if soft_nms_sigma > 0:
            current = current * np.exp(scale * sim * sim).astype(np.float32)
            keep = current > score_threshold
        else:
            keep = sim <= threshold
        candidates, current = candidates[keep], current[keep]
    return np.array(selected, np.int32), np.array(selected_scores, np.float32)


def _check_nms(ctx: OpKernelContext, boxes: np.ndarray, scores: np.ndarray, max_output_size: Any,
               iou_threshold: float) -> int:
    if np.ndim(max_output_size) != 0:
        raise invalid_argument(ctx, f"max_output_size must be 0-D, got shape "
                                    f"{tensor_shape.shape_string(np.shape(max_output_size))}")
    if not 0 <= float(iou_threshold) <= 1:
        raise invalid_argument(ctx, "iou_threshold must be in [0, 1]")
    if boxes.ndim != 2:
        raise invalid_argument(ctx, f"boxes must be 2-D{tensor_shape.shape_string(boxes.shape)}")
    if boxes.shape[1] != 4:
        raise invalid_argument(ctx, f"boxes must have 4 columns{tensor_shape.shape_string(boxes.shape)}")
    if scores.ndim != 1:
        raise invalid_argument(ctx, f"scores must be 1-D{tensor_shape.shape_string(scores.shape)}")
    if scores.shape[0] != boxes.shape[0]:
        raise invalid_argument(ctx, f"scores has incompatible shape{tensor_shape.shape_string(scores.shape)}")
    if int(max_output_size) < 0:
        raise invalid_argument(ctx, "output size must be non-negative")
    return int(max_output_size)


def _box_nms(ctx: OpKernelContext, boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any,
             score_threshold: Any = -np.inf, soft_nms_sigma: Any = 0.0) -> tuple[np.ndarray, np.ndarray]:
    limit = _check_nms(ctx, boxes, scores, max_output_size, iou_threshold)
    if float(soft_nms_sigma) < 0:
        raise invalid_argument(ctx, "soft_nms_sigma_val must be >= 0")
    boxes = boxes.astype(np.float32)
    return _greedy_nms(lambda i, others: _iou(boxes, i, others), scores, limit, np.float32(iou_threshold),
                       np.float32(score_threshold), float(soft_nms_sigma))


def _padded(values: np.ndarray, size: int, pad: bool) -> np.ndarray:
    return np.concatenate([values, np.zeros(size - len(values), values.dtype)]) if pad else values


@NonMaxSuppression.kernel("CPU")
def _nms_v1(ctx: OpKernelContext, boxes: Any, scores: Any, max_output_size: Any, iou_threshold: float) -> Any:
    return _box_nms(ctx, boxes, scores, max_output_size, iou_threshold)[0]


@NonMaxSuppressionV2.kernel("CPU")
def _nms_v2(ctx: OpKernelContext, boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any, T: Any,  # noqa: N803
            T_threshold: Any) -> Any:  # noqa: N803
    return _box_nms(ctx, boxes, scores, max_output_size, iou_threshold)[0]


@NonMaxSuppressionV3.kernel("CPU")
def _nms_v3(ctx: OpKernelContext, boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any,
            score_threshold: Any, T: Any, T_threshold: Any) -> Any:  # noqa: N803
    return _box_nms(ctx, boxes, scores, max_output_size, iou_threshold, score_threshold)[0]


@NonMaxSuppressionV4.kernel("CPU")
def _nms_v4(ctx: OpKernelContext, boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any,
            score_threshold: Any, T: Any, T_threshold: Any, pad_to_max_output_size: bool) -> list:  # noqa: N803
    selected, _ = _box_nms(ctx, boxes, scores, max_output_size, iou_threshold, score_threshold)
    return [_padded(selected, int(max_output_size), pad_to_max_output_size), np.int32(len(selected))]


@NonMaxSuppressionV5.kernel("CPU")
def _nms_v5(ctx: OpKernelContext, boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any,
            score_threshold: Any, soft_nms_sigma: Any, T: dtypes.DType, pad_to_max_output_size: bool) -> list:  # noqa: N803
    selected, selected_scores = _box_nms(ctx, boxes, scores, max_output_size, iou_threshold, score_threshold,
                                         soft_nms_sigma)
    size = int(max_output_size)
    return [_padded(selected, size, pad_to_max_output_size),
            _padded(selected_scores.astype(T.as_numpy_dtype), size, pad_to_max_output_size),
            np.int32(len(selected))]


@NonMaxSuppressionWithOverlaps.kernel("CPU")
def _nms_overlaps(ctx: OpKernelContext, overlaps: Any, scores: Any, max_output_size: Any, overlap_threshold: Any,
                  score_threshold: Any) -> Any:
    if overlaps.ndim != 2 or overlaps.shape[0] != overlaps.shape[1]:
        raise invalid_argument(ctx, f"overlaps must be square{tensor_shape.shape_string(overlaps.shape)}")
    if scores.shape != (overlaps.shape[0],):
        raise invalid_argument(ctx, f"scores has incompatible shape{tensor_shape.shape_string(scores.shape)}")
    if int(max_output_size) < 0:
        raise invalid_argument(ctx, "output size must be non-negative")
    return _greedy_nms(lambda i, others: overlaps[i, others], scores, int(max_output_size),
                       np.float32(overlap_threshold), np.float32(score_threshold))[0]


def _thresholds(iou_threshold: Any, score_threshold: Any) -> tuple[Tensor, Tensor]:
    return (convert_to_tensor(iou_threshold, name="iou_threshold"),
            convert_to_tensor(score_threshold, name="score_threshold"))


@tf_export("image.non_max_suppression")
def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                        score_threshold: Any = float("-inf"), name: str | None = None) -> Tensor:
    """Indices of the boxes greedy non-max suppression keeps, best score first."""
    with name_scope(name, "non_max_suppression"):
        iou, score = _thresholds(iou_threshold, score_threshold)
        return NonMaxSuppressionV3(boxes, scores, max_output_size, iou, score)


@tf_export("image.non_max_suppression_with_scores")
def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                                    score_threshold: Any = float("-inf"), soft_nms_sigma: Any = 0.0,
                                    name: str | None = None) -> tuple[Tensor, Tensor]:
    """The kept indices and their (with soft-NMS, decayed) scores."""
    with name_scope(name, "non_max_suppression_with_scores"):
        iou, score = _thresholds(iou_threshold, score_threshold)
        sigma = convert_to_tensor(soft_nms_sigma, name="soft_nms_sigma")
        indices, kept_scores, _ = NonMaxSuppressionV5(boxes, scores, max_output_size, iou, score, sigma,
                                                      pad_to_max_output_size=False)
        return indices, kept_scores


@tf_export("image.non_max_suppression_padded")
def non_max_suppression_padded(boxes: Any, scores: Any, max_output_size: Any, iou_threshold: Any = 0.5,
                               score_threshold: Any = float("-inf"), pad_to_max_output_size: bool = False,
                               name: str | None = None, sorted_input: bool = False,
                               canonicalized_coordinates: bool = False, tile_size: int = 512
                               ) -> tuple[Tensor, Tensor]:
    """The kept indices, padded with zeros to `max_output_size` when asked, and how many are valid. TF's tiled
    algorithm keeps what greedy suppression keeps: NonMaxSuppressionV4 here, per batch member of batched boxes,
    over the given order for `sorted_input` (canonicalized coordinates change nothing for canonical boxes)."""
    with name_scope(name, "non_max_suppression_padded"):
        boxes = convert_to_tensor(boxes, name="boxes")
        scores = convert_to_tensor(scores, name="scores")
        if not pad_to_max_output_size and boxes.shape.ndims is not None and boxes.shape.ndims > 2:
            raise ValueError(f"'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for batched "
                             "input")
        iou, score = _thresholds(iou_threshold, score_threshold)
        if boxes.shape.ndims == 2:
            return _padded_nms(boxes, scores, max_output_size, iou, score, pad_to_max_output_size, sorted_input)
        batch = boxes.shape[:-2]
        if boxes.shape.ndims is None or not batch.is_fully_defined():
            raise NotImplementedError("non_max_suppression_padded: batched boxes need a static batch shape in "
                                      "tensorweave")
        count = batch.num_elements()
        flat_boxes = manipulation_ops.unstack(shape_ops.reshape(boxes, [count, -1, 4]), num=count)
        flat_scores = manipulation_ops.unstack(shape_ops.reshape(scores, [count, -1]), num=count)
        kept = [_padded_nms(b, s, max_output_size, iou, score, True, sorted_input)
                for b, s in zip(flat_boxes, flat_scores)]
        size = convert_to_tensor(max_output_size, dtypes.int32)
        indices = shape_ops.reshape(manipulation_ops.stack([k[0] for k in kept]),
                                    manipulation_ops.concat([batch.as_list(), shape_ops.expand_dims(size, 0)], 0))
        return indices, shape_ops.reshape(manipulation_ops.stack([k[1] for k in kept]), batch.as_list())


def _padded_nms(boxes: Tensor, scores: Tensor, max_output_size: Any, iou: Tensor, score: Tensor, pad: bool,
                sorted_input: bool) -> tuple[Tensor, Tensor]:
    if sorted_input:  # keep the given order: descending stand-in scores, -1 where the real score is too low
        count = shape_ops.shape(scores)[0]
        rank = cast(count - sequence_ops.range(count), scores.dtype)
        scores = elementwise_ops.where_v2(elementwise_ops.greater(scores, cast(score, scores.dtype)),
                                          rank, -fill_ops.ones_like(scores))
        score = convert_to_tensor(0.0, score.dtype)
    return tuple(NonMaxSuppressionV4(boxes, scores, max_output_size, iou, score, pad_to_max_output_size=pad))


@tf_export("image.non_max_suppression_overlaps")
def non_max_suppression_overlaps(overlaps: Any, scores: Any, max_output_size: Any, overlap_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"), name: str | None = None) -> Tensor:
    """Greedy non-max suppression over a given [n, n] overlap matrix instead of box IoUs."""
    with name_scope(name, "non_max_suppression_overlaps"):
        threshold = convert_to_tensor(overlap_threshold, name="overlap_threshold")
        return NonMaxSuppressionWithOverlaps(overlaps, scores, max_output_size, threshold,
                                             convert_to_tensor(score_threshold, name="score_threshold"))


CombinedNonMaxSuppression = Op("CombinedNonMaxSuppression",
                               inputs=["boxes: float", "scores: float", "max_output_size_per_class: int32",
                                       "max_total_size: int32", "iou_threshold: float", "score_threshold: float"],
                               outputs=["nmsed_boxes: float", "nmsed_scores: float", "nmsed_classes: float",
                                        "valid_detections: int32"],
                               attrs=["pad_per_class: bool = false", "clip_boxes: bool = true"])


@CombinedNonMaxSuppression.shape
def _combined_nms_shape(ctx: InferenceContext) -> list[_Shape]:
    boxes = shape_helpers.with_rank(ctx.input_shape(0), 4)
    scores = shape_helpers.with_rank(ctx.input_shape(1), 3)
    for index in range(2, 6):
        shape_helpers.with_rank(ctx.input_shape(index), 0)
    batch = shape_helpers.merge_dim(boxes.dims[0], scores.dims[0])
    shape_helpers.merge_dim(boxes.dims[1], scores.dims[1])
    shape_helpers.with_value(boxes.dims[3], 4)
    per_class, total = ctx.input_value(2), ctx.input_value(3)
    size = None
    if total is not None:
        size = int(total)
        if ctx.attr("pad_per_class") and per_class is not None and scores.dims[2].value is not None:
            size = min(size, int(per_class) * scores.dims[2].value)
    return [_Shape([batch, size, 4]), _Shape([batch, size]), _Shape([batch, size]), _Shape([batch])]


@CombinedNonMaxSuppression.kernel("CPU")
def _combined_nms(ctx: OpKernelContext, boxes: Any, scores: Any, max_output_size_per_class: Any,
                  max_total_size: Any, iou_threshold: Any, score_threshold: Any, pad_per_class: bool,
                  clip_boxes: bool) -> list:
    if boxes.ndim != 4 or scores.ndim != 3:
        raise invalid_argument(ctx, f"boxes must be 4-D and scores 3-D{tensor_shape.shape_string(boxes.shape)}")
    batch, _, q, _ = boxes.shape
    num_classes = scores.shape[2]
    if q not in (1, num_classes):
        raise invalid_argument(ctx, "third dimension of boxes must be either 1 or num classes")
    per_class, total = int(max_output_size_per_class), int(max_total_size)
    if total <= 0:
        raise invalid_argument(ctx, "max_total_size must be > 0")
    if not 0 <= float(iou_threshold) <= 1:
        raise invalid_argument(ctx, "iou_threshold must be in [0, 1]")
    size = min(total, per_class * num_classes) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):  # the images of a batch are independent problems, as TF's per-image shards
        found_boxes, found_scores, found_classes = [], [], []
        for c in range(num_classes):
            class_boxes = boxes[b, :, c if q > 1 else 0].astype(np.float32)
            selected, kept = _greedy_nms(lambda i, others, bx=class_boxes: _iou(bx, i, others), scores[b, :, c],
                                         per_class, np.float32(iou_threshold), np.float32(score_threshold))
            found_boxes.append(class_boxes[selected])
            found_scores.append(kept)
            found_classes.append(np.full(len(selected), c, np.float32))
        all_scores = np.concatenate(found_scores)
        order = np.argsort(-all_scores, kind="stable")[:size]
        count = len(order)
        out_boxes[b, :count] = np.concatenate(found_boxes)[order]
        out_scores[b, :count] = all_scores[order]
        out_classes[b, :count] = np.concatenate(found_classes)[order]
        valid[b] = count
    if clip_boxes:
        out_boxes = np.clip(out_boxes, 0, 1)
    return [out_boxes, out_scores, out_classes, valid]


@tf_export("image.combined_non_max_suppression")
def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any, max_total_size: Any,
                                 iou_threshold: Any = 0.5, score_threshold: Any = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: str | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Per image, non-max suppression class by class, then the best `max_total_size` over all classes."""
    with name_scope(name, "combined_non_max_suppression"):
        iou, score = _thresholds(iou_threshold, score_threshold)
        # TF's generated wrapper's namedtuple: CombinedNonMaxSuppression(nmsed_boxes=..., valid_detections=...)
        return CombinedNonMaxSuppression(boxes, scores, max_output_size_per_class, max_total_size, iou, score,
                                         pad_per_class=pad_per_class, clip_boxes=clip_boxes)


# -- DrawBoundingBoxes -------------------------------------------------------------------------------

# -- GenerateBoundingBoxProposals ------------------------------------------------------------------------
# A region proposal network's boxes (TF registers only a GPU kernel; this follows it): per image, the pre_nms_topn
# best-scoring anchors of the [H, W, A] grid, each moved and scaled by its (dy, dx, dh, dw) delta (dh and dw
# clipped at log(1000/16)), clipped to the image, dropped when a side is under min_size times the image's scale,
# then greedy NMS to post_nms_topn boxes (y1, x1, y2, x2), zero-padded.

GenerateBoundingBoxProposals = Op(
    "GenerateBoundingBoxProposals",
    inputs=["scores: float", "bbox_deltas: float", "image_info: float", "anchors: float", "nms_threshold: float",
            "pre_nms_topn: int32", "min_size: float"],
    outputs=["rois: float", "roi_probabilities: float"], attrs=["post_nms_topn: int = 300"])


@GenerateBoundingBoxProposals.shape
def _generate_bounding_box_proposals_shape(ctx: InferenceContext) -> list[_Shape]:
    scores = shape_helpers.with_rank(ctx.input_shape(0), 4)
    shape_helpers.with_rank(ctx.input_shape(1), 4)
    shape_helpers.with_value(shape_helpers.with_rank(ctx.input_shape(2), 2)[1], 5)
    shape_helpers.with_rank(ctx.input_shape(3), 3)
    for index in (4, 5, 6):
        shape_helpers.with_rank(ctx.input_shape(index), 0)
    post_nms_topn = ctx.attr("post_nms_topn")
    return [_Shape([scores[0], post_nms_topn, 4]), _Shape([scores[0], post_nms_topn])]


_BBOX_XFORM_CLIP = np.float32(np.log(1000.0 / 16.0))


def _decoded_boxes(deltas: np.ndarray, anchors: np.ndarray, image_info: np.ndarray, min_size: np.float32
                   ) -> tuple[np.ndarray, np.ndarray]:
    """[N, K, 4] (y1, x1, y2, x2) anchors moved by their deltas and clipped to each image, and whether each is
    large enough to keep; float32 as TF's kernel."""
    y1, x1, y2, x2 = np.moveaxis(anchors, -1, 0)
    dy, dx, dh, dw = np.moveaxis(deltas, -1, 0)
    half = np.float32(0.5)
    corners = []
    for low, high, shift, scale, limit in ((x1, x2, dx, dw, image_info[:, 1:2]), (y1, y2, dy, dh, image_info[:, 0:1])):
        extent = high - low
        centre = low + half * extent + extent * shift
        size = extent * np.exp(np.minimum(scale, _BBOX_XFORM_CLIP))
        corners += [np.maximum(np.minimum(centre - half * size, limit), 0),
                    np.maximum(np.minimum(centre + half * size, limit), 0)]
    x1, x2, y1, y2 = corners
    keep = np.minimum(x2 - x1, y2 - y1) >= min_size * image_info[:, 2:3]
    return np.stack([y1, x1, y2, x2], -1).astype(np.float32), keep


@GenerateBoundingBoxProposals.kernel("CPU")
def _generate_bounding_box_proposals(ctx: OpKernelContext, scores: Any, bbox_deltas: Any, image_info: Any,
                                     anchors: Any, nms_threshold: Any, pre_nms_topn: Any, min_size: Any,
                                     post_nms_topn: int) -> list:
    if post_nms_topn <= 0:
        raise invalid_argument(ctx, "post_nms_topn can't be 0 or less")
    n, h, w, num_anchors = scores.shape
    if num_anchors == 0 or anchors.shape[2] // num_anchors != 4:
        raise errors.OutOfRangeError(ctx.node_def, None, "Box dimensions need to be 4")
    for index, value in ((4, nms_threshold), (5, pre_nms_topn), (6, min_size)):
        if np.ndim(value) != 0:
            raise invalid_argument(ctx, f"Expected a scalar in input {index}but got shape "
                                        f"{tensor_shape.shape_string(np.shape(value))}")
        if index == 4 and not 0 <= value <= 1:
            raise invalid_argument(ctx, f"nms_threshold should be between 0 and 1. Got {value:g}")
        if index == 5 and value <= 0:
            raise invalid_argument(ctx, f"pre_nms_topn should be greater than 0{value}")
    total = h * w * num_anchors
    if anchors.size < 4 * total or bbox_deltas.size != 4 * n * total:
        raise invalid_argument(ctx, f"anchors and bbox_deltas must hold 4 values per box of scores "
                                    f"{tensor_shape.shape_string(scores.shape)}")
    flat_scores = scores.reshape(n, total)
    order = np.argsort(-flat_scores, axis=1, kind="stable")[:, :min(total, int(pre_nms_topn))]
    top_scores = np.take_along_axis(flat_scores, order, 1)
    deltas = np.take_along_axis(bbox_deltas.reshape(n, total, 4), order[..., None], 1)
    boxes, keep = _decoded_boxes(deltas, anchors.reshape(-1, 4)[:total][order], image_info,
                                 np.float32(min_size))
    rois = np.zeros((n, post_nms_topn, 4), np.float32)
    probabilities = np.zeros((n, post_nms_topn), np.float32)
    for image in range(n):  # greedy NMS is sequential within an image; TF's kernel loops over images too
        kept_boxes, kept_scores = boxes[image][keep[image]], top_scores[image][keep[image]]
        selected, _ = _greedy_nms(functools.partial(_iou, kept_boxes), kept_scores, post_nms_topn,
                                  np.float32(nms_threshold), -np.inf)
        rois[image, :selected.size] = kept_boxes[selected]
        probabilities[image, :selected.size] = kept_scores[selected]
    return [rois, probabilities]


NotDifferentiable("GenerateBoundingBoxProposals")
for _op_type in ("DrawBoundingBoxes", "SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2", "ExtractGlimpse",
                 "NonMaxSuppression", "NonMaxSuppressionV2", "NonMaxSuppressionWithOverlaps"):
    NotDifferentiable(_op_type)  # as TF declares them (its later versions of these ops have no gradient at all)


@tf_export("image.generate_bounding_box_proposals")
def generate_bounding_box_proposals(scores: Any, bbox_deltas: Any, image_info: Any, anchors: Any,
                                    nms_threshold: Any = 0.7, pre_nms_topn: Any = 6000, min_size: Any = 16,
                                    post_nms_topn: int = 300, name: str | None = None) -> tuple:
    """Region proposals from an RPN's [N, H, W, A] scores and [N, H, W, 4A] deltas over [H, W, 4A] anchors:
    `rois` [N, post_nms_topn, 4] (y1, x1, y2, x2) sorted by score, and their `roi_probabilities`."""
    return tuple(GenerateBoundingBoxProposals(scores, bbox_deltas, image_info, anchors, nms_threshold, pre_nms_topn,
                                              min_size, post_nms_topn=post_nms_topn, name=name))


DrawBoundingBoxes = Op("DrawBoundingBoxes", inputs=["images: T", "boxes: float"], outputs=["output: T"],
                       attrs=["T: {float, half} = DT_FLOAT"])
DrawBoundingBoxesV2 = Op("DrawBoundingBoxesV2", inputs=["images: T", "boxes: float", "colors: float"],
                         outputs=["output: T"], attrs=["T: {float, half} = DT_FLOAT"])
# TF's colours when none are given, RGBA, box i drawn in colour i mod 10
_DEFAULT_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                            [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


@DrawBoundingBoxes.shape
@DrawBoundingBoxesV2.shape
def _draw_bounding_boxes_shape(ctx: InferenceContext) -> list[_Shape]:
    images = shape_helpers.with_rank(ctx.input_shape(0), 4)
    if images.dims[3].value not in (None, 1, 3, 4):
        raise ValueError("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    return [ctx.input_shape(0)]


def _line_pixels(first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For runs first[i]..last[i] (inclusive): each pixel's run and position."""
    lengths = np.maximum(last - first + 1, 0)
    run = np.repeat(np.arange(len(first)), lengths)
    return run, first[run] + np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def _draw(ctx: OpKernelContext, images: np.ndarray, boxes: np.ndarray, colors: np.ndarray) -> np.ndarray:
    if images.ndim != 4:
        raise invalid_argument(ctx, f"The rank of the images should be 4{tensor_shape.shape_string(images.shape)}")
    batch, height, width, depth = images.shape
    if depth not in (1, 3, 4):
        raise invalid_argument(ctx, "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if boxes.ndim != 3:
        raise invalid_argument(ctx, f"boxes must be 3-D[batch, num_boxes, 4]{tensor_shape.shape_string(boxes.shape)}")
    if boxes.shape[2] != 4:
        raise invalid_argument(ctx, f"The size of the third dimension of the box must be 4. Received: {boxes.shape[2]}")
    if boxes.shape[0] != batch:
        raise invalid_argument(ctx, "The batch sizes should be the same")
    if colors.size == 0:
        colors = _DEFAULT_COLORS.copy()
        if depth == 1:  # grey images: every box white
            colors[:, 0] = 1
    elif colors.ndim != 2 or colors.shape[1] < depth:
        raise invalid_argument(ctx, "colors must have equal or more channels than the image provided: "
                                    f"{tensor_shape.shape_string(colors.shape)}")
    out = images.copy()
    num_boxes = boxes.shape[1]
    b = np.repeat(np.arange(batch), num_boxes)
    color = colors[np.tile(np.arange(num_boxes), batch) % len(colors), :depth].astype(images.dtype)
    flat = boxes.reshape(-1, 4)
    top = (flat[:, 0] * np.float32(height - 1)).astype(np.int64)
    left = (flat[:, 1] * np.float32(width - 1)).astype(np.int64)
    bottom = (flat[:, 2] * np.float32(height - 1)).astype(np.int64)
    right = (flat[:, 3] * np.float32(width - 1)).astype(np.int64)
    drawn = (top <= bottom) & (left <= right) & (top <= height - 1) & (bottom >= 0) & (left <= width - 1) & \
        (right >= 0)
    top_c, bottom_c = np.maximum(top, 0), np.minimum(bottom, height - 1)
    left_c, right_c = np.maximum(left, 0), np.minimum(right, width - 1)
    # the four lines of each box, box after box (a later box paints over an earlier one, as in TF)
    pieces = []
    for line, (row_first, row_last, col_first, col_last, visible) in enumerate((
            (top, top, left_c, right_c, top >= 0), (bottom, bottom, left_c, right_c, bottom < height),
            (top_c, bottom_c, left, left, left >= 0), (top_c, bottom_c, right, right, right < width))):
        boxes_drawn = np.flatnonzero(drawn & visible)
        if line < 2:
            run, cols = _line_pixels(col_first[boxes_drawn], col_last[boxes_drawn])
            rows = row_first[boxes_drawn][run]
        else:
            run, rows = _line_pixels(row_first[boxes_drawn], row_last[boxes_drawn])
            cols = col_first[boxes_drawn][run]
        pieces.append((boxes_drawn[run] * 4 + line, rows, cols))
    order_key, rows, cols = (np.concatenate(part) for part in zip(*pieces))
    order = np.argsort(order_key, kind="stable")
    box, rows, cols = order_key[order] // 4, rows[order], cols[order]
    out[b[box], rows, cols] = color[box]
    return out


@DrawBoundingBoxes.kernel("CPU")
def _draw_bounding_boxes(ctx: OpKernelContext, images: Any, boxes: Any, T: Any) -> Any:  # noqa: N803
    return _draw(ctx, images, boxes, np.zeros((0, 4), np.float32))


@DrawBoundingBoxesV2.kernel("CPU")
def _draw_bounding_boxes_v2(ctx: OpKernelContext, images: Any, boxes: Any, colors: Any, T: Any) -> Any:  # noqa: N803
    return _draw(ctx, images, boxes, colors)


@tf_export("image.draw_bounding_boxes")
def draw_bounding_boxes(images: Any, boxes: Any, name: str | None = None, colors: Any = None) -> Tensor:
    """`images` with the outline of each box drawn one pixel wide, in `colors` (RGBA rows) or TF's ten."""
    if colors is None:
        return DrawBoundingBoxes(images, boxes, name=name)
    return DrawBoundingBoxesV2(images, boxes, colors, name=name)


# -- ExtractGlimpse ----------------------------------------------------------------------------------

_GLIMPSE_ATTRS = ["centered: bool = true", "normalized: bool = true", "uniform_noise: bool = true"]
ExtractGlimpse = Op("ExtractGlimpse", inputs=["input: float", "size: int32", "offsets: float"],
                    outputs=["glimpse: float"], attrs=[*_GLIMPSE_ATTRS, "noise: string = 'uniform'"])
ExtractGlimpseV2 = Op("ExtractGlimpseV2", inputs=["input: float", "size: int32", "offsets: float"],
                      outputs=["glimpse: float"], attrs=[*_GLIMPSE_ATTRS, "noise: string = 'uniform'"])


@ExtractGlimpse.shape
@ExtractGlimpseV2.shape
def _extract_glimpse_shape(ctx: InferenceContext) -> list[_Shape]:
    images = shape_helpers.with_rank(ctx.input_shape(0), 4)
    shape_helpers.with_value(shape_helpers.with_rank(ctx.input_shape(1), 1).dims[0], 2)
    offsets = shape_helpers.with_rank(ctx.input_shape(2), 2)
    batch = shape_helpers.merge_dim(images.dims[0], offsets.dims[0])
    shape_helpers.with_value(offsets.dims[1], 2)
    if ctx.attr("uniform_noise") and ctx.attr("noise") not in (b"", b"uniform", "", "uniform"):
        raise ValueError("The uniform_noise should not be True when noise is not uniform")
    size = ctx.input_value(1)
    height, width = (None, None) if size is None else (int(size[0]), int(size[1]))
    return [_Shape([batch, height, width, images.dims[3]])]


def _glimpse(ctx: OpKernelContext, images: np.ndarray, size: Any, offsets: np.ndarray, centered: bool,
             normalized: bool, uniform_noise: bool, noise: bytes, version: int) -> np.ndarray:
    """Each image's window of `size` at its offset, truncated to whole pixels; outside the image, noise. The
    offset names the window's centre in version 1 (where a centered offset is halved even in pixels); in version 2
    only when centered and normalized, else its top-left corner (TF's two kernels)."""
    if np.shape(size) != (2,):
        raise invalid_argument(ctx, f"input must be a vector of size 2 (height, width){np.shape(size)}")
    if offsets.shape != (images.shape[0], 2):
        raise invalid_argument(ctx, "offsets must be a matrix with two columns and batch rows")
    batch, in_h, in_w, depth = images.shape
    glimpse_h, glimpse_w = int(size[0]), int(size[1])
    y, x = offsets[:, 0].astype(np.float32), offsets[:, 1].astype(np.float32)
    if normalized:
        y, x = y * np.float32(in_h), x * np.float32(in_w)
    if centered and (normalized or version == 1):  # version 1 halves pixel offsets too
        y, x = y / np.float32(2) + np.float32(in_h / 2), x / np.float32(2) + np.float32(in_w / 2)
    elif centered:
        y, x = y + np.float32(in_h / 2), x + np.float32(in_w / 2)
    if version == 1 or (centered and normalized):
        y, x = y - np.float32(glimpse_h / 2), x - np.float32(glimpse_w / 2)
    top, left = y.astype(np.int64), x.astype(np.int64)
    rows = top[:, None] + np.arange(glimpse_h)
    cols = left[:, None] + np.arange(glimpse_w)
    inside = ((rows >= 0) & (rows < in_h))[:, :, None] & ((cols >= 0) & (cols < in_w))[:, None, :]
    out = images[np.arange(batch)[:, None, None], np.clip(rows, 0, in_h - 1)[:, :, None],
                 np.clip(cols, 0, in_w - 1)[:, None, :]]
    kind = "uniform" if uniform_noise else (noise.decode() if isinstance(noise, bytes) else noise)
    if kind == "zero" or inside.all():
        fill = np.zeros((batch, 1, 1, depth), np.float32)
    else:
        rng = np.random.default_rng()
        if kind == "gaussian":
            fill = rng.normal(images.mean(axis=(1, 2))[:, None, None], images.std(axis=(1, 2))[:, None, None],
                              out.shape)
        else:
            fill = rng.uniform(images.min(axis=(1, 2))[:, None, None], images.max(axis=(1, 2))[:, None, None],
                               out.shape)
    return np.where(inside[..., None], out, fill).astype(np.float32)


@ExtractGlimpse.kernel("CPU")
def _extract_glimpse(ctx: OpKernelContext, input: Any, size: Any, offsets: Any, centered: bool,  # noqa: A002
                     normalized: bool, uniform_noise: bool, noise: bytes) -> Any:
    return _glimpse(ctx, input, size, offsets, centered, normalized, uniform_noise, noise, version=1)


@ExtractGlimpseV2.kernel("CPU")
def _extract_glimpse_v2(ctx: OpKernelContext, input: Any, size: Any, offsets: Any, centered: bool,  # noqa: A002
                        normalized: bool, uniform_noise: bool, noise: bytes) -> Any:
    return _glimpse(ctx, input, size, offsets, centered, normalized, uniform_noise, noise, version=2)


@tf_export("image.extract_glimpse")
def extract_glimpse(input: Any, size: Any, offsets: Any, centered: bool = True, normalized: bool = True,  # noqa: A002
                    uniform_noise: bool = True, name: str | None = None) -> Tensor:
    """A window of `size` from each image at its offset (TF1's form: outside the image, uniform noise
    unless `uniform_noise` is False, then Gaussian)."""
    return ExtractGlimpse(input, size, offsets, centered=centered, normalized=normalized,
                          uniform_noise=uniform_noise, name=name)


# -- SampleDistortedBoundingBox ----------------------------------------------------------------------

_SAMPLE_ATTRS = ["T: {uint8, int8, int16, int32, int64}", "seed: int = 0", "seed2: int = 0",
                 "aspect_ratio_range: list(float) = [0.75, 1.33]", "area_range: list(float) = [0.05, 1]",
                 "max_attempts: int = 100", "use_image_if_no_bounding_boxes: bool = false"]
SampleDistortedBoundingBox = Op("SampleDistortedBoundingBox", inputs=["image_size: T", "bounding_boxes: float"],
                                outputs=["begin: T", "size: T", "bboxes: float"],
                                attrs=[*_SAMPLE_ATTRS[:3], "min_object_covered: float = 0.1", *_SAMPLE_ATTRS[3:]],
                                is_stateful=True)
SampleDistortedBoundingBoxV2 = Op("SampleDistortedBoundingBoxV2",
                                  inputs=["image_size: T", "bounding_boxes: float", "min_object_covered: float"],
                                  outputs=["begin: T", "size: T", "bboxes: float"], attrs=_SAMPLE_ATTRS,
                                  is_stateful=True)


@SampleDistortedBoundingBox.shape
@SampleDistortedBoundingBoxV2.shape
def _sample_distorted_bounding_box_shape(ctx: InferenceContext) -> list[_Shape]:
    shape_helpers.with_value(shape_helpers.with_rank(ctx.input_shape(0), 1).dims[0], 3)
    shape_helpers.with_value(shape_helpers.with_rank(ctx.input_shape(1), 3).dims[2], 4)
    return [_Shape([3]), _Shape([3]), _Shape([1, 1, 4])]


class _Draws:
    """TF's SimplePhilox over a reserved stretch of the stream: 32-bit numbers one at a time."""

    def __init__(self, words: np.ndarray) -> None:
        self._words, self._next = words.tolist(), 0

    def rand32(self) -> int:
        word = self._words[self._next]
        self._next += 1
        return word

    def rand_float(self) -> np.float32:
        return random_ops._uint32_to_float(np.array([self.rand32()], np.uint32))[0]

    def uniform(self, n: int) -> int:
        """[0, n) without modulo bias: draws below 2**32 mod n are redrawn (TF's ExactUniformInt)."""
        reject_below = (2**32) % n
        while True:
            bits = self.rand32()
            if bits >= reject_below:
                return bits % n


def _lrint(x: Any) -> int:
    return int(np.rint(np.float32(x)))


def _random_crop(width: int, height: int, min_relative: float, max_relative: float, aspect_ratio: np.float32,
                 draws: _Draws) -> tuple[int, int, int, int] | None:
    """TF's GenerateRandomCrop in float32: a crop of area within the range and width = round(aspect *
    height), uniformly placed; None when the constraints cannot be met."""
    f32 = np.float32
    if max_relative <= 0 or aspect_ratio <= 0 or width <= 0 or height <= 0 or min_relative > max_relative:
        return None
    min_area, max_area = f32(min_relative) * f32(width) * f32(height), f32(max_relative) * f32(width) * f32(height)
    crop_h = _lrint(np.sqrt(min_area / aspect_ratio))
    max_h = _lrint(np.sqrt(max_area / aspect_ratio))
    if _lrint(f32(max_h) * aspect_ratio) > width:
        max_h = int((width + 0.5 - float(f32(1e-7))) / float(aspect_ratio))
        if _lrint(f32(max_h) * aspect_ratio) > width:
            max_h -= 1
    max_h = min(max_h, height)
    crop_h = min(crop_h, max_h)
    if crop_h < max_h:
        crop_h += draws.uniform(max_h - crop_h + 1)
    crop_w = _lrint(f32(crop_h) * aspect_ratio)
    area = f32(crop_w * crop_h)
    if area < min_area:
        crop_h += 1
        crop_w = _lrint(f32(crop_h) * aspect_ratio)
        area = f32(crop_w * crop_h)
    if area > max_area:
        crop_h -= 1
        crop_w = _lrint(f32(crop_h) * aspect_ratio)
        area = f32(crop_w * crop_h)
    if area < min_area or area > max_area or crop_w > width or crop_h > height or crop_w <= 0 or crop_h <= 0:
        return None
    y = draws.uniform(height - crop_h) if crop_h < height else 0
    x = draws.uniform(width - crop_w) if crop_w < width else 0
    return x, y, x + crop_w, y + crop_h


def _covers(crop: tuple[int, int, int, int], min_covered: float, boxes: np.ndarray) -> bool:
    """Whether the crop (x0, y0, x1, y1) has area and covers `min_covered` of one box with area."""
    f32 = np.float32
    if f32((crop[2] - crop[0]) * (crop[3] - crop[1])) < 1:
        return False
    areas = ((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])).astype(np.float32)
    lo = np.maximum(boxes[:, :2], crop[:2])
    hi = np.minimum(boxes[:, 2:], crop[2:])
    inter = np.where(np.all(lo <= hi, axis=1), (hi[:, 0] - lo[:, 0]) * (hi[:, 1] - lo[:, 1]), 0).astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        return bool(np.any((areas >= 1) & (inter / areas >= f32(min_covered))))


def _sample_distorted(ctx: OpKernelContext, image_size: Any, bounding_boxes: Any, min_object_covered: Any,
                      seed: int, seed2: int, aspect_ratio_range: list, area_range: list, max_attempts: int,
                      use_image_if_no_bounding_boxes: bool) -> list:
    if float(min_object_covered) < 0:
        raise invalid_argument(ctx, f"Min object covered must be non-negative: {float(min_object_covered):g}")
    if len(aspect_ratio_range) != 2 or min(aspect_ratio_range) <= 0:
        raise invalid_argument(ctx, "Aspect ratio range must be non-negative: "
                                    f"[{aspect_ratio_range[0]:g}, {aspect_ratio_range[-1]:g}]")
    if len(area_range) != 2 or min(area_range) <= 0:
        raise invalid_argument(ctx, f"Area range must be non-negative: [{area_range[0]:g}, {area_range[-1]:g}]")
    if max(area_range) > 1:
        raise invalid_argument(ctx, f"Area range must be less then or equal to 1.0: [{area_range[0]:g}, "
                                    f"{area_range[1]:g}]")
    if max_attempts <= 0:
        raise invalid_argument(ctx, f"Max attempts must be non-negative: {max_attempts}")
    if np.shape(image_size) != (3,):
        raise invalid_argument(ctx, f"image_size must contain 3 elements{tensor_shape.shape_string(np.shape(image_size))}")
    if bounding_boxes.ndim != 3 or bounding_boxes.shape[-1] != 4:
        raise invalid_argument(ctx, "input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                                    f"{tensor_shape.shape_string(bounding_boxes.shape)}")
    height, width = int(image_size[0]), int(image_size[1])
    flat = bounding_boxes.reshape(-1, 4)
    outside = flat[(flat < 0) | (flat > 1)]
    if outside.size:
        raise invalid_argument(ctx, f"All bounding box coordinates must be in [0.0, 1.0]: {float(outside[0]):g}")
    # as (x0, y0, x1, y1) in whole pixels, truncated
    boxes = np.stack([flat[:, 1] * np.float32(width), flat[:, 0] * np.float32(height),
                      flat[:, 3] * np.float32(width), flat[:, 2] * np.float32(height)], axis=1).astype(np.int64)
    image_rect = (0, 0, width, height)
    if not len(boxes):
        if not use_image_if_no_bounding_boxes:
            raise invalid_argument(ctx, "No bounding boxes provided as input. One must enable "
                                        "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.")
        boxes = np.array([image_rect], np.int64)
    generator = ctx.state
    counter = generator.reserve_samples128((4 * max_attempts + 3) // 4)
    # the reservation bounds what TF's op draws; rejections (chance n / 2**32 each) may read past it, as TF's
    draws = _Draws(generator.uint32s(counter, 8 * max_attempts + 64))
    low, high = np.float32(aspect_ratio_range[0]), np.float32(aspect_ratio_range[1])
    crop = image_rect
    for _ in range(max_attempts):  # attempts draw in sequence from one stream, as TF's loop
        aspect = draws.rand_float() * (high - low) + low
        found = _random_crop(width, height, area_range[0], area_range[1], aspect, draws)
        if found is not None and _covers(found, float(min_object_covered), boxes):
            crop = found
            break
    dtype = image_size.dtype
    begin = np.array([crop[1], crop[0], 0], dtype)
    size = np.array([crop[3] - crop[1], crop[2] - crop[0], -1], dtype)
    bboxes = np.array([[[crop[1] / np.float32(height), crop[0] / np.float32(width), crop[3] / np.float32(height),
                         crop[2] / np.float32(width)]]], np.float32)
    return [begin, size, bboxes]


@SampleDistortedBoundingBox.kernel("CPU", state=random_ops.philox_state)
def _sample_distorted_bounding_box(ctx: OpKernelContext, image_size: Any, bounding_boxes: Any, T: Any,  # noqa: N803
                                   seed: int, seed2: int, min_object_covered: float, aspect_ratio_range: list,
                                   area_range: list, max_attempts: int, use_image_if_no_bounding_boxes: bool) -> list:
    return _sample_distorted(ctx, image_size, bounding_boxes, min_object_covered, seed, seed2, aspect_ratio_range,
                             area_range, max_attempts, use_image_if_no_bounding_boxes)


@SampleDistortedBoundingBoxV2.kernel("CPU", state=random_ops.philox_state)
def _sample_distorted_bounding_box_v2(ctx: OpKernelContext, image_size: Any, bounding_boxes: Any,
                                      min_object_covered: Any, T: Any, seed: int, seed2: int,  # noqa: N803
                                      aspect_ratio_range: list, area_range: list, max_attempts: int,
                                      use_image_if_no_bounding_boxes: bool) -> list:
    return _sample_distorted(ctx, image_size, bounding_boxes, min_object_covered, seed, seed2, aspect_ratio_range,
                             area_range, max_attempts, use_image_if_no_bounding_boxes)


@tf_export("image.sample_distorted_bounding_box")
def sample_distorted_bounding_box(image_size: Any, bounding_boxes: Any, seed: int | None = None,
                                  seed2: int | None = None, min_object_covered: Any = 0.1,
                                  aspect_ratio_range: Any = None, area_range: Any = None, max_attempts: int | None = None,
                                  use_image_if_no_bounding_boxes: bool | None = None,
                                  name: str | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """A random crop (begin, size for tf.slice, and the box) covering enough of one of `bounding_boxes`,
    drawn as TF draws it for the same `seed` and `seed2` (TF1 passes them to the op as given)."""
    attrs = {"seed": seed or 0, "seed2": seed2 or 0}
    for key, value in (("aspect_ratio_range", aspect_ratio_range), ("area_range", area_range),
                       ("max_attempts", max_attempts),
                       ("use_image_if_no_bounding_boxes", use_image_if_no_bounding_boxes)):
        if value is not None:
            attrs[key] = list(value) if isinstance(value, (list, tuple)) else value
    with name_scope(name, "sample_distorted_bounding_box"):
        # TF's generated wrapper's namedtuple: SampleDistortedBoundingBoxV2(begin=..., size=..., bboxes=...)
        return SampleDistortedBoundingBoxV2(image_size, bounding_boxes, min_object_covered, name=name, **attrs)
