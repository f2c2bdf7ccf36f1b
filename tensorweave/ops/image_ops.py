"""Image ops (`tf.image`): the resize ops, geometry and colour transforms, dtype conversion, the codecs and the
random augmentations, on NHWC images (a 3-D image is one HWC image).

The resize kernels compute as TF's do, in float32 and in TF's order of operations, so they agree with TF
bit for bit: the source coordinate of each output pixel from the scale (in_size / out_size, or
(in_size - 1) / (out_size - 1) with `align_corners`), shifted by half a pixel with `half_pixel_centers`;
bilinear lerps along x then y, bicubic takes TF's 1025-entry coefficient table (Keys' a = -0.5 with
half-pixel centers, else -0.75) along y then x, area sums the input cells each output cell covers, weighted
by the covered fraction, along x then y. Every kernel gathers rows and columns by index arrays (a loop runs
over a filter's taps at most), never over pixels. The colour kernels follow TF's per-pixel arithmetic
vectorized; the codecs decode and encode through Pillow; the composites build TF's graphs, so seeded
augmentations draw what TF's draw.
"""

from __future__ import annotations

import enum
import io
from typing import Any

import numpy as np
from PIL import Image, ImageSequence

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import (
    bmp_codec,
    cast_ops,
    clip_ops,
    control_flow_case,
    control_flow_ops,
    elementwise_ops,
    fill_ops,
    indexing_ops,
    linalg_ops,
    logging_ops,
    manipulation_ops,
    png16_codec,
    random_ops,
    reduction_ops,
    shape_helpers,
    shape_ops,
    string_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.platform.tf_export import tf_export

_RESIZE_TYPES = "{int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}"
# ResizeBilinear's list, as TF's registry has it (bfloat16 listed twice)
_BILINEAR_TYPES = "{int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double, bfloat16}"
_CUBIC_TABLE_SIZE = 1024


def _resize_op(name: str, output: str, half_pixel: bool = True, types: str = _RESIZE_TYPES) -> Op:
    attrs = [f"T: {types}", "align_corners: bool = false"]
    if half_pixel:
        attrs.append("half_pixel_centers: bool = false")
    op = Op(name, inputs=["images: T", "size: int32"], outputs=[f"resized_images: {output}"], attrs=attrs)
    op.shape(_resize_shape)
    return op


def _resize_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    images = shape_helpers.with_rank(ctx.input_shape(0), 4)
    size = shape_helpers.with_rank(ctx.input_shape(1), 1)
    if size.dims[0].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {size.dims[0].value}")
    value = ctx.input_value(1)
    # a negative size is an unknown dimension here (TF's MakeDim), rejected by the kernel at run time
    height, width = (None, None) if value is None else (int(v) if v >= 0 else None for v in value[:2])
    return [tensor_shape.TensorShape([images.dims[0], height, width, images.dims[3]])]


ResizeBilinear = _resize_op("ResizeBilinear", "float", types=_BILINEAR_TYPES)
ResizeNearestNeighbor = _resize_op("ResizeNearestNeighbor", "T")
ResizeBicubic = _resize_op("ResizeBicubic", "float")
ResizeArea = _resize_op("ResizeArea", "float", half_pixel=False)


def _checked_resize(ctx: OpKernelContext, images: Any, size: Any, align_corners: bool,
                    half_pixel_centers: bool = False) -> tuple[int, int]:
    """The output (height, width), after TF's ImageResizerState checks."""
    if half_pixel_centers and align_corners:
        raise invalid_argument(ctx, "If half_pixel_centers is True, align_corners must be False.")
    if images.ndim != 4:
        raise invalid_argument(ctx, f"input must be 4-dimensional{tensor_shape.shape_string(images.shape)}")
    if size.ndim != 1:
        raise invalid_argument(ctx, f"shape_t must be 1-dimensional{tensor_shape.shape_string(size.shape)}")
    if size.size != 2:
        raise invalid_argument(ctx, f"shape_t must have two elements{tensor_shape.shape_string(size.shape)}")
    height, width = int(size[0]), int(size[1])
    if height <= 0 or width <= 0:
        raise invalid_argument(ctx, "output dimensions must be positive")
    if images.shape[3] <= 0:
        raise invalid_argument(ctx, "image must have at least one channel")
    if images.shape[1] <= 0 or images.shape[2] <= 0:
        raise invalid_argument(ctx, "input image must be of non-zero size")
    return height, width


def _resize_scale(in_size: int, out_size: int, align_corners: bool) -> np.float32:
    if align_corners and out_size > 1:
        return np.float32(in_size - 1) / np.float32(out_size - 1)
    return np.float32(in_size) / np.float32(out_size)


def source_coords(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool,
                   shift: float = 0.5) -> np.ndarray:
    """Where each output pixel samples the input, in float32: (x + 0.5) * scale - shift with half-pixel
    centers (nearest neighbour shifts by 0), x * scale otherwise."""
    scale = _resize_scale(in_size, out_size, align_corners)
    x = np.arange(out_size, dtype=np.float32)
    if half_pixel_centers:
        return (x + np.float32(0.5)) * scale - np.float32(shift)
    return x * scale


def _take(xp: Any, images: Any, index: Any, axis: int) -> Any:
    """The slices of `images` at `index` (a NumPy index array, one entry per output pixel) along `axis`."""
    return xp.take(images, xp.asarray(index), axis=axis)


@ResizeBilinear.kernel("CPU")
def _resize_bilinear(ctx: OpKernelContext, images: Any, size: Any, align_corners: bool,
                     half_pixel_centers: bool) -> Any:
    height, width = _checked_resize(ctx, images, size, align_corners, half_pixel_centers)
    xp = ctx.xp
    images = images.astype(np.float32)

    def taps(in_size: int, out_size: int) -> tuple[Any, Any, Any]:
        source = source_coords(in_size, out_size, align_corners, half_pixel_centers)
        floor = np.floor(source)
        lower = np.maximum(floor.astype(np.int64), 0)
        upper = np.minimum(np.ceil(source).astype(np.int64), in_size - 1)
        return lower, upper, source - floor

    y_lower, y_upper, y_lerp = taps(images.shape[1], height)
    x_lower, x_upper, x_lerp = taps(images.shape[2], width)
    x_lerp = xp.asarray(x_lerp)[:, None]
    top, bottom = _take(xp, images, y_lower, 1), _take(xp, images, y_upper, 1)
    top_left, top_right = _take(xp, top, x_lower, 2), _take(xp, top, x_upper, 2)
    bottom_left, bottom_right = _take(xp, bottom, x_lower, 2), _take(xp, bottom, x_upper, 2)
    top = top_left + (top_right - top_left) * x_lerp
    bottom = bottom_left + (bottom_right - bottom_left) * x_lerp
    return top + (bottom - top) * xp.asarray(y_lerp)[:, None, None]


def nearest_index(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    source = source_coords(in_size, out_size, align_corners, half_pixel_centers, shift=0.0)
    floor = np.floor(source)
    # roundf: halves away from zero (the coordinates are never negative here)
    index = np.where(source - floor >= 0.5, floor + 1, floor) if align_corners else floor
    index = np.minimum(index.astype(np.int64), in_size - 1)
    return np.maximum(index, 0) if half_pixel_centers else index


@ResizeNearestNeighbor.kernel("CPU")
def _resize_nearest_neighbor(ctx: OpKernelContext, images: Any, size: Any, align_corners: bool,
                             half_pixel_centers: bool) -> Any:
    height, width = _checked_resize(ctx, images, size, align_corners, half_pixel_centers)
    xp = ctx.xp
    rows = _take(xp, images, nearest_index(images.shape[1], height, align_corners, half_pixel_centers), 1)
    return _take(xp, rows, nearest_index(images.shape[2], width, align_corners, half_pixel_centers), 2)


def _cubic_coefficients(a: float) -> np.ndarray:
    """TF's table: for x = i / 1024 (i = 0..1024), the Keys kernel at x and at x + 1, computed in double and
    stored as float."""
    x = np.arange(_CUBIC_TABLE_SIZE + 1, dtype=np.float64) / _CUBIC_TABLE_SIZE
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x = x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.stack([near, far], axis=-1).astype(np.float32)


_CUBIC_TABLES = {False: _cubic_coefficients(-0.75), True: _cubic_coefficients(-0.5)}


def cubic_taps(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool
                ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The four input indices and float32 weights of each output pixel. With half-pixel centers (Keys'
    cubic) taps outside the image weigh 0 and the rest are renormalized; the legacy kernel repeats the
    edge pixel with its weight."""
    source = source_coords(in_size, out_size, align_corners, half_pixel_centers)
    base = np.floor(source).astype(np.int64)
    offset = np.rint((source - base.astype(np.float32)) * np.float32(_CUBIC_TABLE_SIZE)).astype(np.int64)
    table = _CUBIC_TABLES[half_pixel_centers]
    weights = [table[offset, 1], table[offset, 0], table[_CUBIC_TABLE_SIZE - offset, 0],
               table[_CUBIC_TABLE_SIZE - offset, 1]]
    unbounded = [base - 1, base, base + 1, base + 2]
    indices = [np.clip(index, 0, in_size - 1) for index in unbounded]
    if half_pixel_centers:
        zero = np.float32(0)
        weights = [np.where(index == raw, weight, zero) for index, raw, weight in zip(indices, unbounded, weights)]
        total = weights[0] + weights[1] + weights[2] + weights[3]
        renormalize = np.abs(total) >= np.float32(1000) * np.finfo(np.float32).tiny
        inverse = np.where(renormalize, np.float32(1) / np.where(renormalize, total, np.float32(1)), np.float32(1))
        weights = [np.where(renormalize, weight * inverse, weight) for weight in weights]
    return indices, weights


def _weighted_taps(xp: Any, images: Any, indices: Any, weights: Any, axis: int) -> Any:
    """v0 * w0 + v1 * w1 + ... along `axis`, where tap k reads `indices[k]` (one index per output pixel)
    with weight `weights[k]`, summed in float32 in tap order, as TF's kernels sum."""
    shape = [1] * images.ndim
    shape[axis] = -1
    total = None
    for index, weight in zip(indices, weights):
        term = _take(xp, images, index, axis) * xp.asarray(weight).reshape(shape)
        total = term if total is None else total + term
    return total


@ResizeBicubic.kernel("CPU")
def _resize_bicubic(ctx: OpKernelContext, images: Any, size: Any, align_corners: bool,
                    half_pixel_centers: bool) -> Any:
    height, width = _checked_resize(ctx, images, size, align_corners, half_pixel_centers)
    xp = ctx.xp
    images = images.astype(np.float32)
    y_indices, y_weights = cubic_taps(images.shape[1], height, align_corners, half_pixel_centers)
    x_indices, x_weights = cubic_taps(images.shape[2], width, align_corners, half_pixel_centers)
    # TF interpolates each of the four source columns along y, then those along x.
    columns = _weighted_taps(xp, images, y_indices, y_weights, 1)
    return _weighted_taps(xp, columns, x_indices, x_weights, 2)


def _area_taps(in_size: int, out_size: int, scale: np.float32) -> tuple[np.ndarray, np.ndarray]:
    """(out_size, K) input indices and float32 weights: the input cells output cell o covers, in order, each
    weighted by the fraction covered; cells past the edge read the last one, as TF's bounded reads do, and
    rows with fewer cells are padded with weight 0."""
    start = np.arange(out_size, dtype=np.float32) * scale
    end = np.arange(1, out_size + 1, dtype=np.float32) * scale
    first, stop = np.floor(start).astype(np.int64), np.ceil(end).astype(np.int64)
    cell = first[:, None] + np.arange(int((stop - first).max()))[None, :]
    cell_f, start, end = cell.astype(np.float32), start[:, None], end[:, None]
    covered = np.where(cell_f < start, np.where(cell_f + 1 > end, scale, cell_f + 1 - start),
                       np.where(cell_f + 1 > end, end - cell_f, np.float32(1)))
    inside = cell < stop[:, None]
    return np.where(inside, np.minimum(cell, in_size - 1), 0), np.where(inside, covered, np.float32(0))


@ResizeArea.kernel("CPU")
def _resize_area(ctx: OpKernelContext, images: Any, size: Any, align_corners: bool) -> Any:
    height, width = _checked_resize(ctx, images, size, align_corners)
    xp = ctx.xp
    y_scale = _resize_scale(images.shape[1], height, align_corners)
    x_scale = _resize_scale(images.shape[2], width, align_corners)
    images = images.astype(np.float32)
    # TF sums each row's covered cells (x) first, in float32 and in order, then the rows (y).
    x_index, x_weight = _area_taps(images.shape[2], width, x_scale)
    row_sums = _weighted_taps(xp, images, x_index.T, x_weight.T, 2)
    y_index, y_weight = _area_taps(images.shape[1], height, y_scale)
    total = _weighted_taps(xp, row_sums, y_index.T, y_weight.T, 1)
    return total * np.float32(1.0 / np.float64(y_scale * x_scale))


@tf_export("image.ResizeMethod")
class ResizeMethod(enum.IntEnum):
    """TF1's resize methods (`ResizeMethodV1`), the values `resize_images` takes."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


@tf_export("image.resize_bilinear")
def resize_bilinear(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                    half_pixel_centers: bool = False) -> Tensor:
    """4-D `images` resized to `size` by bilinear interpolation, as float32."""
    return ResizeBilinear(images, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers,
                          name=name)


@tf_export("image.resize_nearest_neighbor")
def resize_nearest_neighbor(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                            half_pixel_centers: bool = False) -> Tensor:
    """4-D `images` resized to `size` by taking the nearest pixel, in their own dtype."""
    return ResizeNearestNeighbor(images, size, align_corners=align_corners,
                                 half_pixel_centers=half_pixel_centers, name=name)


@tf_export("image.resize_bicubic")
def resize_bicubic(images: Any, size: Any, align_corners: bool = False, name: str | None = None,
                   half_pixel_centers: bool = False) -> Tensor:
    """4-D `images` resized to `size` by bicubic interpolation, as float32."""
    return ResizeBicubic(images, size, align_corners=align_corners, half_pixel_centers=half_pixel_centers,
                         name=name)


@tf_export("image.resize_area")
def resize_area(images: Any, size: Any, align_corners: bool = False, name: str | None = None) -> Tensor:
    """4-D `images` resized to `size` by averaging the area each output pixel covers, as float32."""
    return ResizeArea(images, size, align_corners=align_corners, name=name)


# TF1's resize_images also takes TF 2's method names (its ResizeMethod strings) for the same four ops.
_RESIZERS = {ResizeMethod.BILINEAR: resize_bilinear, ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
             ResizeMethod.BICUBIC: resize_bicubic, ResizeMethod.AREA: resize_area, "bilinear": resize_bilinear,
             "nearest": resize_nearest_neighbor, "bicubic": resize_bicubic, "area": resize_area}


def _as_batch(images: Tensor) -> tuple[Tensor, bool]:
    """A 3-D image as a batch of one (and False: squeeze it back), a 4-D batch as it is; TF's message for
    other ranks."""
    ndims = images.shape.ndims
    if ndims == 3:
        return shape_ops.expand_dims(images, 0), False
    if ndims is None:
        batched = shape_ops.expand_dims(images, 0)
        batched.set_shape([None] * 4)
        return batched, False
    if ndims != 4:
        raise ValueError(f"'image' (shape {images.shape}) must have either 3 or 4 dimensions.")
    return images, True


def _unbatch(images: Tensor, is_batch: bool) -> Tensor:
    return images if is_batch else shape_ops.squeeze(images, axis=[0])


@tf_export("image.resize_images", "image.resize")
def resize_images(images: Any, size: Any, method: int = ResizeMethod.BILINEAR, align_corners: bool = False,
                  preserve_aspect_ratio: bool = False, name: str | None = None) -> Tensor:
    """`images` (3-D or 4-D) resized to `size` = [new_height, new_width] by `method`; returned as they are
    when their static size already is `size`. With `preserve_aspect_ratio` the image is scaled to fit
    inside `size`."""
    with name_scope(name, "resize", [images, size]):
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = True
        if images.shape.ndims == 3:
            is_batch = False
            images = shape_ops.expand_dims(images, 0)
        elif images.shape.ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.shape.as_list()
        try:
            size = convert_to_tensor(size, dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            _, current_height, current_width, _ = _image_dimensions(images, rank=4)
            current_height = cast_ops.cast(current_height, dtypes.float32)
            current_width = cast_ops.cast(current_width, dtypes.float32)
            scale_factor = elementwise_ops.minimum(cast_ops.cast(size[0], dtypes.float32) / current_height,
                                                   cast_ops.cast(size[1], dtypes.float32) / current_width)
            scaled_height = cast_ops.cast(elementwise_ops.round(scale_factor * current_height), dtypes.int32)
            scaled_width = cast_ops.cast(elementwise_ops.round(scale_factor * current_width), dtypes.int32)
            size = convert_to_tensor([scaled_height, scaled_width], dtypes.int32, name="size")
        new_size = tensor_util.constant_value_as_shape(size)
        new_height = new_size.dims[0].value if new_size.ndims else None
        new_width = new_size.dims[1].value if new_size.ndims else None
        if None not in (new_height, new_width, height, width) and (height, width) == (new_height, new_width):
            return _unbatch(images, is_batch)
        try:
            resizer = _RESIZERS[method]
        except KeyError:
            raise ValueError(f"Resize method is not implemented: {method}") from None
        resized = resizer(images, size, align_corners=align_corners)
        resized.set_shape([None, new_height, new_width, None])
        return _unbatch(resized, is_batch)


def _image_dimensions(image: Tensor, rank: int) -> list:
    """Each dimension of `image`: the static size where known, else a scalar tensor of the dynamic one."""
    if image.shape.is_fully_defined():
        return image.shape.as_list()
    static = image.shape.with_rank(rank).as_list()
    dynamic = manipulation_ops.unstack(shape_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def _check_at_least_3d(image: Tensor) -> None:
    """TF's static checks of an image argument (dynamic sizes are not asserted at run time here)."""
    shape = image.shape
    try:
        shape = shape.with_rank(3) if shape.ndims is None else shape.with_rank_at_least(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be at least three-dimensional.") from None
    if any(dim.value == 0 for dim in shape.dims[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {shape}")


def _assert(condition: Any, message: str) -> list:
    """TF's `_assert`: a condition known now raises ValueError when false; one that is a tensor becomes an
    Assert op, for the caller to make the image depend on."""
    if isinstance(condition, Tensor):
        return [logging_ops.Assert_(condition, [message])]
    if not condition:
        raise ValueError(message)
    return []


def _by_rank(image: Tensor, rank3: Any, rank4: Any) -> Tensor:
    """`rank3(image)` or `rank4(image)` by the image's rank, chosen at run time when it is unknown."""
    ndims = image.shape.ndims
    if ndims is None:
        return control_flow_ops.cond(elementwise_ops.equal(shape_ops.rank(image), 3), lambda: rank3(image),
                                     lambda: rank4(image))
    if ndims == 3:
        return rank3(image)
    if ndims == 4:
        return rank4(image)
    raise ValueError(f"'image' (shape {image.shape})must have either 3 or 4 dimensions.")


def _flip(image: Any, flip_index: int, scope_name: str) -> Tensor:
    with name_scope(None, scope_name, [image]):
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        image = control_flow_ops.with_dependencies([], image)
        return _by_rank(image, lambda x: manipulation_ops.reverse(x, [flip_index]),
                        lambda x: manipulation_ops.reverse(x, [flip_index + 1]))


@tf_export("image.flip_left_right")
def flip_left_right(image: Any) -> Tensor:
    """`image` (3-D or a 4-D batch) mirrored horizontally."""
    return _flip(image, 1, "flip_left_right")


@tf_export("image.flip_up_down")
def flip_up_down(image: Any) -> Tensor:
    """`image` (3-D or a 4-D batch) mirrored vertically."""
    return _flip(image, 0, "flip_up_down")


@tf_export("image.transpose", "image.transpose_image")
def transpose(image: Any, name: str | None = None) -> Tensor:
    """`image` with height and width swapped."""
    with name_scope(name, "transpose", [image]):
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        image = control_flow_ops.with_dependencies([], image)
        return _by_rank(image, lambda x: manipulation_ops.transpose(x, [1, 0, 2], name=name),
                        lambda x: manipulation_ops.transpose(x, [0, 2, 1, 3], name=name))


def _rot90(image: Tensor, k: Tensor, scope: str, batched: bool) -> Tensor:
    """TF's exclusive case over k in {1, 2, 3}, the image itself by default."""
    h, w = (1, 2) if batched else (0, 1)
    swap = [0, 2, 1, 3] if batched else [1, 0, 2]
    rotations = [
        lambda: manipulation_ops.transpose(manipulation_ops.reverse(image, [w]), swap),
        lambda: manipulation_ops.reverse(image, [h, w]),
        lambda: manipulation_ops.reverse(manipulation_ops.transpose(image, swap), [w]),
    ]
    cases = [(elementwise_ops.equal(k, turns), rotation) for turns, rotation in enumerate(rotations, 1)]
    result = control_flow_case.case(cases, default=lambda: image, exclusive=True, name=scope)
    dims = image.shape.dims or [None] * (4 if batched else 3)  # of unknown rank under rot90's cond
    result.set_shape(([dims[0]] if batched else []) + [None, None, dims[-1]])
    return result


@tf_export("image.rot90")
def rot90(image: Any, k: Any = 1, name: str | None = None) -> Tensor:
    """`image` rotated counter-clockwise by `k` quarter turns."""
    with name_scope(name, "rot90", [image, k]) as scope:
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        image = control_flow_ops.with_dependencies([], image)
        k = convert_to_tensor(k, dtype=dtypes.int32, name="k")
        k.shape.assert_has_rank(0)
        k = elementwise_ops.floormod(k, 4)
        return _by_rank(image, lambda x: _rot90(x, k, scope, False), lambda x: _rot90(x, k, scope, True))


def _static_or_none(value: Any) -> Any:
    return None if isinstance(value, Tensor) else value


@tf_export("image.crop_to_bounding_box")
def crop_to_bounding_box(image: Any, offset_height: Any, offset_width: Any, target_height: Any,
                         target_width: Any) -> Tensor:
    """The `target_height` x `target_width` window of `image` whose top-left corner is at the offsets."""
    with name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        _check_at_least_3d(image)
        batch, height, width, depth = _image_dimensions(image, rank=4)
        checks = (_assert(offset_width >= 0, "offset_width must be >= 0.")
                  + _assert(offset_height >= 0, "offset_height must be >= 0.")
                  + _assert(target_width > 0, "target_width must be > 0.")
                  + _assert(target_height > 0, "target_height must be > 0.")
                  + _assert(width >= target_width + offset_width, "width must be >= target + offset.")
                  + _assert(height >= target_height + offset_height, "height must be >= target + offset."))
        image = control_flow_ops.with_dependencies(checks, image)
        cropped = indexing_ops.slice(image, manipulation_ops.stack([0, offset_height, offset_width, 0]),
                                     manipulation_ops.stack([-1, target_height, target_width, -1]))
        cropped.set_shape([_static_or_none(d) for d in (batch, target_height, target_width, depth)])
        return _unbatch(cropped, is_batch)


@tf_export("image.pad_to_bounding_box")
def pad_to_bounding_box(image: Any, offset_height: Any, offset_width: Any, target_height: Any,
                        target_width: Any) -> Tensor:
    """`image` padded with zeros to `target_height` x `target_width`, placed at the offsets."""
    with name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        _check_at_least_3d(image)
        batch, height, width, depth = _image_dimensions(image, rank=4)
        after_padding_width = target_width - offset_width - width
        after_padding_height = target_height - offset_height - height
        checks = (_assert(offset_height >= 0, "offset_height must be >= 0")
                  + _assert(offset_width >= 0, "offset_width must be >= 0")
                  + _assert(after_padding_width >= 0, "width must be <= target - offset")
                  + _assert(after_padding_height >= 0, "height must be <= target - offset"))
        image = control_flow_ops.with_dependencies(checks, image)
        paddings = shape_ops.reshape(manipulation_ops.stack([0, 0, offset_height, after_padding_height, offset_width,
                                                             after_padding_width, 0, 0]), [4, 2])
        padded = manipulation_ops.pad(image, paddings)
        padded.set_shape([_static_or_none(d) for d in (batch, target_height, target_width, depth)])
        return _unbatch(padded, is_batch)


def _max(x: Any, y: Any) -> Any:
    return elementwise_ops.maximum(x, y) if isinstance(x, Tensor) or isinstance(y, Tensor) else max(x, y)


def _min(x: Any, y: Any) -> Any:
    return elementwise_ops.minimum(x, y) if isinstance(x, Tensor) or isinstance(y, Tensor) else min(x, y)


@tf_export("image.resize_image_with_crop_or_pad", "image.resize_with_crop_or_pad")
def resize_image_with_crop_or_pad(image: Any, target_height: Any, target_width: Any) -> Tensor:
    """`image` centrally cropped or zero-padded (per dimension) to `target_height` x `target_width`."""
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        _check_at_least_3d(image)
        checks = _assert(target_width > 0, "target_width must be > 0.") + _assert(target_height > 0,
                                                                                   "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(checks, image)
        _, height, width, _ = _image_dimensions(image, rank=4)
        width_diff = target_width - width
        height_diff = target_height - height
        cropped = crop_to_bounding_box(image, _max(-height_diff // 2, 0), _max(-width_diff // 2, 0),
                                       _min(target_height, height), _min(target_width, width))
        resized = pad_to_bounding_box(cropped, _max(height_diff // 2, 0), _max(width_diff // 2, 0),
                                      target_height, target_width)
        if resized.shape.ndims is None:
            raise ValueError("resized contains no shape.")
        return _unbatch(control_flow_ops.with_dependencies([], resized), is_batch)


@tf_export("image.central_crop")
def central_crop(image: Any, central_fraction: Any) -> Tensor:
    """The central `central_fraction` (in (0, 1]) of each image's height and width."""
    with name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        fraction = tensor_util.get_static_value(central_fraction)
        if fraction is not None:
            if fraction <= 0.0 or fraction > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction == 1.0:
                return image
        _check_at_least_3d(image)
        rank = image.shape.ndims
        if rank not in (3, 4):
            raise ValueError(f"`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = {rank}.")
        first = rank - 3

        def start_and_size(idx: int) -> tuple[Any, Any, bool]:
            size = image.shape.dims[idx].value
            dynamic = size is None or fraction is None
            if size is None:
                size = shape_ops.shape(image)[idx]
            if dynamic:
                size_d = cast_ops.cast(size, dtypes.float64)
                start = cast_ops.cast((size_d - size_d * cast_ops.cast(central_fraction, dtypes.float64)) / 2,
                                      dtypes.int32)
            else:
                start = int((float(size) - float(size) * fraction) / 2)
            return start, size - start * 2, dynamic

        h_start, h_size, h_dynamic = start_and_size(first)
        w_start, w_size, w_dynamic = start_and_size(first + 1)
        begin = [0] * first + [h_start, w_start, 0]
        size = [-1] * first + [h_size, w_size, -1]
        cropped = indexing_ops.slice(image, manipulation_ops.stack(begin), manipulation_ops.stack(size))
        cropped.set_shape(image.shape.dims[:first] + [None if h_dynamic else h_size, None if w_dynamic else w_size,
                                                      image.shape.dims[-1]])
        return cropped


# -- Colour spaces and adjustments -------------------------------------------------------------------

RGBToHSV = Op("RGBToHSV", inputs=["images: T"], outputs=["output: T"],
              attrs=["T: {half, bfloat16, float, double} = DT_FLOAT"])
HSVToRGB = Op("HSVToRGB", inputs=["images: T"], outputs=["output: T"],
              attrs=["T: {half, bfloat16, float, double} = DT_FLOAT"])


@RGBToHSV.shape
@HSVToRGB.shape
def _colorspace_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    images = shape_helpers.with_rank_at_least(ctx.input_shape(0), 1)
    if images.ndims is not None and images.dims[-1].value not in (None, 3):
        raise ValueError(f"Dimension must be 3 but is {images.dims[-1].value}")
    return [images if images.ndims is None else images[:-1].concatenate([3])]


def _check_colorspace_input(ctx: OpKernelContext, images: Any) -> None:
    if images.ndim < 1:
        raise invalid_argument(ctx, f"input must be at least 1D{tensor_shape.shape_string(images.shape)}")
    if images.shape[-1] != 3:
        raise errors.FailedPreconditionError(
            ctx.node_def, None, f"input must have 3 channels but input only has {images.shape[-1]} channels.")


def _rgb_to_hsv(xp: Any, rgb: Any) -> Any:
    """TF's RGBToHSV arithmetic, in the images' type: hue in [0, 1) from the sextant of the largest channel."""
    one = rgb.dtype.type(1)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    value = xp.maximum(xp.maximum(r, g), b)
    chroma = value - xp.minimum(xp.minimum(r, g), b)
    with np.errstate(divide="ignore", invalid="ignore"):
        saturation = xp.where(value > 0, chroma / value, rgb.dtype.type(0))
        norm = (one / chroma) * (one / rgb.dtype.type(6))
        hue = xp.where(r == value, norm * (g - b),
                       xp.where(g == value, norm * (b - r) + one * 2 / 6, norm * (r - g) + one * 4 / 6))
    hue = xp.where(chroma > 0, hue, rgb.dtype.type(0))
    hue = xp.where(hue < 0, hue + one, hue)
    return xp.stack([hue, saturation, value], axis=-1)


def _hsv_to_rgb(xp: Any, hsv: Any) -> Any:
    """TF's HSVToRGB arithmetic, in the images' type: each channel a clamped tent of 6 * hue."""
    t = hsv.dtype.type
    hue, saturation, value = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    dh = hue * t(6)
    tents = [xp.abs(dh - t(3)) - t(1), -xp.abs(dh - t(2)) + t(2), -xp.abs(dh - t(4)) + t(2)]
    one_s = -saturation + t(1)
    return xp.stack([(one_s + saturation * xp.clip(tent, t(0), t(1))) * value for tent in tents], axis=-1)


@RGBToHSV.kernel("CPU")
def _rgb_to_hsv_kernel(ctx: OpKernelContext, images: Any) -> Any:
    _check_colorspace_input(ctx, images)
    return _rgb_to_hsv(ctx.xp, images)


@HSVToRGB.kernel("CPU")
def _hsv_to_rgb_kernel(ctx: OpKernelContext, images: Any) -> Any:
    _check_colorspace_input(ctx, images)
    return _hsv_to_rgb(ctx.xp, images)


def _adjust_op(name: str, factor: str) -> Op:
    op = Op(name, inputs=["images: T", f"{factor}: float"], outputs=["output: T"],
            attrs=["T: {half, float} = DT_FLOAT"])

    @op.shape
    def shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        return [shape_helpers.with_rank_at_least(ctx.input_shape(0), 3)]

    return op


_ADJUST_KERNEL_TYPES = {"T": (dtypes.float32,)}  # TF's CPU kernels: half runs on GPUs only
AdjustContrastv2 = _adjust_op("AdjustContrastv2", "contrast_factor")
AdjustHue = _adjust_op("AdjustHue", "delta")
AdjustSaturation = _adjust_op("AdjustSaturation", "scale")


def _check_adjust_input(ctx: OpKernelContext, images: Any, factor: Any, factor_name: str, rgb: bool) -> None:
    if images.ndim < 3:
        raise invalid_argument(ctx, f"input must be at least 3-D, got shape{tensor_shape.shape_string(images.shape)}")
    if factor.ndim:
        raise invalid_argument(ctx, f"{factor_name} must be scalar: {tensor_shape.shape_string(factor.shape)}")
    if rgb and images.shape[-1] != 3:
        raise invalid_argument(ctx, f"input must have 3 channels but instead has {images.shape[-1]} channels.")


@AdjustContrastv2.kernel("CPU", type_constraints=_ADJUST_KERNEL_TYPES)
def _adjust_contrastv2(ctx: OpKernelContext, images: Any, contrast_factor: Any) -> Any:
    _check_adjust_input(ctx, images, contrast_factor, "contrast_factor", rgb=False)
    x = images.astype(np.float32)
    height, width = x.shape[-3], x.shape[-2]
    mean = x.sum(axis=-2, keepdims=True).sum(axis=-3, keepdims=True) / np.float32(height * width)
    return ((x - mean) * contrast_factor.astype(np.float32) + mean).astype(images.dtype)


def _rgb_to_hue_range(xp: Any, rgb: Any) -> tuple[Any, Any, Any]:
    """TF's AdjustHue split of each pixel: hue in [0, 6) and the smallest and largest channel."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    # TF's sextants: (max, mid, min, category) by the order of r, g, b
    r_lt_g = r < g
    cases = [
        (r_lt_g & (b < r), g, r, b, 1), (r_lt_g & ~(b < r) & (b > g), b, g, r, 3), (r_lt_g & ~(b < r) & ~(b > g), g, b, r, 2),
        (~r_lt_g & (b < g), r, g, b, 0), (~r_lt_g & ~(b < g) & (b > r), b, r, g, 4),
        (~r_lt_g & ~(b < g) & ~(b > r), r, b, g, 5),
    ]
    v_max = xp.select([c for c, *_ in cases], [hi for _, hi, _, _, _ in cases])
    v_mid = xp.select([c for c, *_ in cases], [mid for _, _, mid, _, _ in cases])
    v_min = xp.select([c for c, *_ in cases], [lo for _, _, _, lo, _ in cases])
    category = xp.select([c for c, *_ in cases], [k for *_, k in cases])
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (v_mid - v_min) / (v_max - v_min)
    hue = category.astype(np.float32) + xp.where(category % 2 == 0, ratio, np.float32(1) - ratio)
    return xp.where(v_max == v_min, np.float32(0), hue), v_min, v_max


def _hue_range_to_rgb(xp: Any, hue: Any, v_min: Any, v_max: Any) -> Any:
    category = hue.astype(np.int32)
    ratio = hue - category.astype(np.float32)
    ratio = xp.where(category % 2 == 0, ratio, np.float32(1) - ratio)
    v_mid = v_min + ratio * (v_max - v_min)
    channels = {0: (v_max, v_mid, v_min), 1: (v_mid, v_max, v_min), 2: (v_min, v_max, v_mid),
                3: (v_min, v_mid, v_max), 4: (v_mid, v_min, v_max)}
    default = (v_max, v_min, v_mid)
    return xp.stack([xp.select([category == k for k in channels], [c[i] for c in channels.values()], default[i])
                     for i in range(3)], axis=-1)


@AdjustHue.kernel("CPU", type_constraints=_ADJUST_KERNEL_TYPES)
def _adjust_hue(ctx: OpKernelContext, images: Any, delta: Any) -> Any:
    _check_adjust_input(ctx, images, delta, "delta", rgb=True)
    xp = ctx.xp
    hue, v_min, v_max = _rgb_to_hue_range(xp, images.astype(np.float32))
    hue = hue + delta.astype(np.float32) * np.float32(6)
    six = np.float32(6)
    hue = hue - xp.floor(hue / six) * six  # into [0, 6), as TF's loops adding or subtracting 6 bring it
    hue = xp.where(hue < 0, hue + six, hue)
    hue = xp.where(hue >= six, hue - six, hue)
    return _hue_range_to_rgb(xp, hue, v_min, v_max).astype(images.dtype)


def _rgb_to_hsv_scalar_style(xp: Any, rgb: Any) -> tuple[Any, Any, Any]:
    """TF's AdjustSaturation conversion (its own, not RGBToHSV's): hue from 1 / (6 * chroma)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    value = xp.maximum(r, xp.maximum(g, b))
    chroma = value - xp.minimum(r, xp.minimum(g, b))
    with np.errstate(divide="ignore", invalid="ignore"):
        saturation = xp.where(value > 0, chroma / value, np.float32(0))
        norm = np.float32(1) / (np.float32(6) * chroma)
        hue = xp.where(r == value, norm * (g - b),
                       xp.where(g == value, norm * (b - r) + np.float32(2.0 / 6.0), norm * (r - g) + np.float32(4.0 / 6.0)))
    hue = xp.where(chroma <= 0, np.float32(0), hue)
    return xp.where(hue < 0, hue + np.float32(1), hue), saturation, value


@AdjustSaturation.kernel("CPU", type_constraints=_ADJUST_KERNEL_TYPES)
def _adjust_saturation(ctx: OpKernelContext, images: Any, scale: Any) -> Any:
    _check_adjust_input(ctx, images, scale, "scale", rgb=True)
    xp = ctx.xp
    hue, saturation, value = _rgb_to_hsv_scalar_style(xp, images.astype(np.float32))
    saturation = xp.minimum(np.float32(1), xp.maximum(np.float32(0), saturation * scale.astype(np.float32)))
    chroma = saturation * value
    m = value - chroma
    dh = hue * np.float32(6)
    category = dh.astype(np.int32)
    fmodu = dh - xp.floor(dh / np.float32(2)) * np.float32(2)  # dh in [0, 6) brought into [0, 2), exactly
    x = chroma * (np.float32(1) - xp.abs(fmodu - np.float32(1)))
    zero = xp.zeros_like(chroma)
    table = [(chroma, x, zero), (x, chroma, zero), (zero, chroma, x), (zero, x, chroma), (x, zero, chroma),
             (chroma, zero, x)]
    rgb = [xp.select([category == k for k in range(6)], [row[i] for row in table], zero) + m for i in range(3)]
    return xp.stack(rgb, axis=-1).astype(images.dtype)


@tf_export("image.rgb_to_hsv")
def rgb_to_hsv(images: Any, name: str | None = None) -> Tensor:
    """RGB images (last dimension 3, values in [0, 1]) as hue, saturation and value, each in [0, 1]."""
    return RGBToHSV(images, name=name)


@tf_export("image.hsv_to_rgb")
def hsv_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """HSV images (last dimension 3) as RGB."""
    return HSVToRGB(images, name=name)


@tf_export("image.convert_image_dtype")
def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False, name: str | None = None) -> Tensor:
    """`image` in another dtype with TF's value ranges: floats span [0, 1], integers [0, dtype.max]; integer
    to integer scales by the ratio of the ranges (down: divide then cast, up: cast then multiply), float to
    integer multiplies by max + 0.5 before the cast (clamped first with `saturate`)."""
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return manipulation_ops.identity(image, name=name)
    cast = clip_ops.saturate_cast if saturate else cast_ops.cast
    with name_scope(name, "convert_image", [image]) as scope:
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = image.dtype.max, dtype.max
            if scale_in > scale_out:
                scaled = elementwise_ops.floordiv(image, (scale_in + 1) // (scale_out + 1))
                return cast(scaled, dtype, name=scope)
            return elementwise_ops.multiply(cast(image, dtype), (scale_out + 1) // (scale_in + 1), name=scope)
        if image.dtype.is_floating and dtype.is_floating:
            return cast_ops.cast(image, dtype, name=scope)
        if image.dtype.is_integer:
            return elementwise_ops.multiply(cast_ops.cast(image, dtype), 1.0 / image.dtype.max, name=scope)
        return cast(elementwise_ops.multiply(image, dtype.max + 0.5), dtype, name=scope)


@tf_export("image.rgb_to_grayscale")
def rgb_to_grayscale(images: Any, name: str | None = None) -> Tensor:
    """RGB images as one luma channel (ITU-R 601: 0.2989 R + 0.587 G + 0.114 B), in their own dtype."""
    with name_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        float_images = convert_image_dtype(images, dtypes.float32)
        gray = linalg_ops.tensordot(float_images, [0.2989, 0.5870, 0.1140], [-1, -1])  # TF's MatMul of the pixels
        return convert_image_dtype(shape_ops.expand_dims(gray, -1), images.dtype, name=scope)


@tf_export("image.grayscale_to_rgb")
def grayscale_to_rgb(images: Any, name: str | None = None) -> Tensor:
    """Grayscale images (last dimension 1) with the channel repeated three times."""
    with name_scope(name, "grayscale_to_rgb", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        shape = images.shape
        if shape.ndims is not None:
            if shape.ndims < 2:
                raise ValueError(f"A grayscale image (shape {shape}) must be at least two-dimensional.")
            if shape.dims[-1].value not in (None, 1):
                raise ValueError("Last dimension of a grayscale image should be size 1.")
        rank_1 = shape_ops.expand_dims(shape_ops.rank(images) - 1, 0)
        multiples = manipulation_ops.concat([fill_ops.ones(rank_1, dtype=dtypes.int32), [3]], 0)
        rgb = manipulation_ops.tile(images, multiples, name=scope)
        if shape.ndims is not None:
            rgb.set_shape(shape[:-1].concatenate([3]))
        return rgb


def _in_float(image: Tensor) -> Tensor:
    """half and float32 images as they are, others converted to float32 (TF's adjust_* computes so)."""
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


@tf_export("image.adjust_brightness")
def adjust_brightness(image: Any, delta: Any) -> Tensor:
    """`image` + `delta` in the float range, converted back (saturating) to its dtype."""
    with name_scope(None, "adjust_brightness", [image, delta]) as scope:
        image = convert_to_tensor(image, name="image")
        float_image = _in_float(image)
        adjusted = elementwise_ops.add(float_image, cast_ops.cast(delta, float_image.dtype), name=scope)
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


@tf_export("image.adjust_contrast")
def adjust_contrast(images: Any, contrast_factor: Any) -> Tensor:
    """Each channel of each image moved away from (or toward) its mean by `contrast_factor`."""
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as scope:
        images = convert_to_tensor(images, name="images")
        adjusted = AdjustContrastv2(_in_float(images), contrast_factor=contrast_factor, name=scope)
        return convert_image_dtype(adjusted, images.dtype, saturate=True)


@tf_export("image.adjust_gamma")
def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> Tensor:
    """gain * image ** gamma in the float range (gamma >= 0), converted back to the image's dtype."""
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        float_image = _in_float(image)
        checks = _assert(gamma >= 0, "Gamma should be a non-negative real number.")
        if checks:
            gamma = control_flow_ops.with_dependencies(checks, gamma)
        return convert_image_dtype(gain * float_image ** gamma, image.dtype, saturate=True)


@tf_export("image.adjust_hue")
def adjust_hue(image: Any, delta: Any, name: str | None = None) -> Tensor:
    """RGB `image` with its hue rotated by `delta` (a fraction of the colour circle, in [-1, 1])."""
    with name_scope(name, "adjust_hue", [image]):
        image = convert_to_tensor(image, name="image")
        return convert_image_dtype(AdjustHue(_in_float(image), delta), image.dtype)


@tf_export("image.adjust_saturation")
def adjust_saturation(image: Any, saturation_factor: Any, name: str | None = None) -> Tensor:
    """RGB `image` with its saturation multiplied by `saturation_factor` (clamped to [0, 1])."""
    with name_scope(name, "adjust_saturation", [image]):
        image = convert_to_tensor(image, name="image")
        return convert_image_dtype(AdjustSaturation(_in_float(image), saturation_factor), image.dtype)


@tf_export("image.per_image_standardization")
def per_image_standardization(image: Any) -> Tensor:
    """Each image (the last three dimensions) less its mean, divided by max(stddev, 1 / sqrt(pixels)); any
    input dtype is cast (not rescaled) to float32 first, as TF does."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        image = control_flow_ops.with_dependencies([], image)
        image = cast_ops.cast(image, dtypes.float32)
        num_pixels = reduction_ops.reduce_prod(shape_ops.shape(image)[-3:])
        mean = reduction_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = reduction_ops.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = elementwise_ops.rsqrt(cast_ops.cast(num_pixels, dtypes.float32))
        adjusted_stddev = elementwise_ops.maximum(stddev, min_stddev)
        return elementwise_ops.divide(image - mean, adjusted_stddev, name=scope)


@tf_export("image.total_variation")
def total_variation(images: Any, name: str | None = None) -> Tensor:
    """The sum of absolute differences between neighbouring pixels, per image of a batch."""
    with name_scope(name, "total_variation"):
        images = convert_to_tensor(images)
        ndims = images.shape.ndims
        if ndims == 3:
            down = images[1:, :, :] - images[:-1, :, :]
            right = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif ndims == 4:
            down = images[:, 1:, :, :] - images[:, :-1, :, :]
            right = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (reduction_ops.reduce_sum(elementwise_ops.abs(down), axis=axis)
                + reduction_ops.reduce_sum(elementwise_ops.abs(right), axis=axis))


@tf_export("image.image_gradients")
def image_gradients(image: Any) -> tuple[Tensor, Tensor]:
    """(dy, dx): each pixel's forward difference to the pixel below and to the right (0 on the last row and
    column), for a 4-D batch."""
    image = convert_to_tensor(image)
    if image.shape.ndims != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {image.shape}.")
    image_shape = shape_ops.shape(image)
    batch_size, height, width, depth = manipulation_ops.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = manipulation_ops.concat([dy, fill_ops.zeros(manipulation_ops.stack([batch_size, 1, width, depth]),
                                                     image.dtype)], 1)
    dx = manipulation_ops.concat([dx, fill_ops.zeros(manipulation_ops.stack([batch_size, height, 1, depth]),
                                                     image.dtype)], 2)
    return shape_ops.reshape(dy, image_shape), shape_ops.reshape(dx, image_shape)


@tf_export("image.psnr")
def psnr(a: Any, b: Any, max_val: Any, name: str | None = None) -> Tensor:
    """Peak signal-to-noise ratio in dB between image batches `a` and `b` whose values span [0, max_val]."""
    with name_scope(name, "PSNR", [a, b]):
        a, b = convert_to_tensor(a), convert_to_tensor(b)
        max_val = convert_image_dtype(cast_ops.cast(max_val, a.dtype), dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        _check_compatible_images(a, b)
        mse = reduction_ops.reduce_mean(elementwise_ops.squared_difference(a, b), [-3, -2, -1])
        value = elementwise_ops.subtract(20 * elementwise_ops.log(max_val) / elementwise_ops.log(10.0),
                                         np.float32(10 / np.log(10)) * elementwise_ops.log(mse), name="psnr")
        return manipulation_ops.identity(value)


def _check_compatible_images(a: Tensor, b: Tensor) -> None:
    """TF's static check that two image batches can be compared (dynamic shapes are not asserted)."""
    shape_a, shape_b = a.shape.with_rank_at_least(3), b.shape.with_rank_at_least(3)
    shape_a[-3:].assert_is_compatible_with(shape_b[-3:])


# -- Random augmentations (TF's graphs over the seeded random ops, so seeded draws match TF's) ----------


def _random_flip(image: Any, flip_index: int, seed: int | None, scope_name: str) -> Tensor:
    """A 3-D image flipped when one uniform draw is below 0.5; each image of a 4-D batch by its own draw."""
    with name_scope(None, scope_name, [image]) as scope:
        image = convert_to_tensor(image, name="image")
        _check_at_least_3d(image)
        image = control_flow_ops.with_dependencies([], image)

        def rank3(x: Tensor) -> Tensor:
            draw = random_ops.random_uniform([], 0, 1.0, seed=seed)
            result = control_flow_ops.cond(elementwise_ops.less(draw, 0.5),
                                           lambda: manipulation_ops.reverse(x, [flip_index]), lambda: x, name=scope)
            result.set_shape(x.shape)
            return result

        def rank4(x: Tensor) -> Tensor:
            batch_size = shape_ops.shape(x)[0]
            draws = random_ops.random_uniform(manipulation_ops.stack([batch_size]), 0, 1.0, seed=seed)
            flips = cast_ops.cast(elementwise_ops.round(shape_ops.reshape(draws, manipulation_ops.stack(
                [batch_size, 1, 1, 1]))), x.dtype)
            return flips * manipulation_ops.reverse(x, [flip_index + 1]) + (1 - flips) * x

        return _by_rank(image, rank3, rank4)


@tf_export("image.random_flip_left_right")
def random_flip_left_right(image: Any, seed: int | None = None) -> Tensor:
    """`image` mirrored horizontally with probability 1/2 (each image of a batch independently)."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


@tf_export("image.random_flip_up_down")
def random_flip_up_down(image: Any, seed: int | None = None) -> Tensor:
    """`image` mirrored vertically with probability 1/2 (each image of a batch independently)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


@tf_export("image.random_brightness")
def random_brightness(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """`adjust_brightness` by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def _check_factor_range(lower: float, upper: float) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


@tf_export("image.random_contrast")
def random_contrast(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """`adjust_contrast` by a factor drawn uniformly from [lower, upper)."""
    _check_factor_range(lower, upper)
    return adjust_contrast(image, random_ops.random_uniform([], lower, upper, seed=seed))


@tf_export("image.random_hue")
def random_hue(image: Any, max_delta: float, seed: int | None = None) -> Tensor:
    """`adjust_hue` by a delta drawn uniformly from [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, random_ops.random_uniform([], -max_delta, max_delta, seed=seed))


@tf_export("image.random_saturation")
def random_saturation(image: Any, lower: float, upper: float, seed: int | None = None) -> Tensor:
    """`adjust_saturation` by a factor drawn uniformly from [lower, upper)."""
    _check_factor_range(lower, upper)
    return adjust_saturation(image, random_ops.random_uniform([], lower, upper, seed=seed))


@tf_export("image.random_crop", "random_crop")
def random_crop(value: Any, size: Any, seed: int | None = None, name: str | None = None) -> Tensor:
    """A `size` window of `value` at a uniformly drawn offset; an Assert checks value.shape >= size."""
    with name_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = shape_ops.shape(value)
        check = logging_ops.Assert_(reduction_ops.reduce_all(elementwise_ops.greater_equal(shape, size)),
                                    ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = control_flow_ops.with_dependencies([check], shape)
        limit = shape - size + 1
        offset = random_ops.random_uniform(shape_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max,
                                           seed=seed) % limit
        return indexing_ops.slice(value, offset, size, name=scope)


# -- Codecs (through Pillow) -------------------------------------------------------------------------
# TF's decoders (one kernel, DecodeImageV2) sniff the format from the leading bytes; each op accepts the
# formats TF's does. BMP is read as TF's own reader reads it (no Pillow). Values: PNG, BMP and GIF decode
# exactly as TF's; JPEG exactly where libjpeg is asked
# what TF asks of it (grayscale output, or dct_method="INTEGER_ACCURATE"), otherwise within a few levels
# (Pillow always decodes colour JPEGs with the accurate integer DCT and fancy upsampling, TF by default with
# the fast one).

_MAGIC = ((b"\xff\xd8\xff", "JPEG"), (b"\x89PNG\r\n\x1a\n", "PNG"), (b"GIF8", "GIF"), (b"BM", "BMP"))
_UNKNOWN_FORMAT = "Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."
_CODEC_OP = {"JPEG": "decode_jpeg", "PNG": "decode_png", "GIF": "decode_gif", "BMP": "decode_bmp"}
# How TF's PNG decoder turns colour into one channel: libpng's png_set_rgb_to_gray(0.299, 0.587), i.e.
# red and green weights truncated to 15-bit fixed point (29900 << 15 // 100000) and blue the rest of 32768.
_GRAY_WEIGHTS = (9797, 19234, 3737)


def _sniff(contents: bytes) -> str | None:
    return next((name for magic, name in _MAGIC if contents.startswith(magic)), None)


_GIF_READ_FAILED = "Failed to read from given file"  # giflib's D_GIF_ERR_READ_FAILED


def _giflib_failure(contents: bytes) -> str:
    """Why giflib (TF's GIF reader) gives up on a file the imaging library could not read, in TF's words: its
    open (signature, screen descriptor and global colour map) and its records walked as DGifSlurp walks them,
    image data by its sub-blocks (a file cut inside an image is a failed read)."""
    if len(contents) < 6:
        return f"failed to open gif file: {_GIF_READ_FAILED}"
    if contents[:3] != b"GIF":
        return "failed to open gif file: Data is not in GIF format"
    pos = 13 + (3 << ((contents[10] & 7) + 1) if len(contents) > 10 and contents[10] & 0x80 else 0)
    if len(contents) < pos:
        return "failed to open gif file: No screen descriptor detected"
    images = 0

    def blocks(start: int) -> int | None:  # the end of a run of data sub-blocks, None when cut short
        while start < len(contents) and contents[start]:
            start += 1 + contents[start]
        return start + 1 if start < len(contents) else None

    while True:
        if pos >= len(contents):
            return f"failed to slurp gif file: {_GIF_READ_FAILED}"
        record, pos = contents[pos], pos + 1
        if record == 0x3B:  # ';'
            detail = "No Image Descriptor detected" if not images else _GIF_READ_FAILED  # else its LZW data failed
            return f"failed to slurp gif file: {detail}"
        if record == 0x2C:  # ',': descriptor, local colour map, LZW code size, then the data
            if pos + 9 <= len(contents) and contents[pos + 8] & 0x80:
                pos += 3 << ((contents[pos + 8] & 7) + 1)
            pos += 10
            images += 1
        elif record == 0x21:  # '!': its label, then the data
            pos += 1
        else:
            return "failed to slurp gif file: Wrong record type detected"
        end = blocks(pos) if pos <= len(contents) else None
        if end is None:
            return f"failed to slurp gif file: {_GIF_READ_FAILED}"
        pos = end


def _corrupt(ctx: OpKernelContext, kind: str, contents: bytes) -> errors.InvalidArgumentError:
    messages = {"JPEG": "jpeg::Uncompress failed. Invalid JPEG data or crop window.",
                "PNG": f"Invalid PNG data, size {len(contents)}",
                "GIF": f"Invalid GIF data (size {len(contents)}), {_giflib_failure(contents)}",
                "BMP": f"Invalid BMP data, size {len(contents)}"}
    return invalid_argument(ctx, messages[kind])


def _check_format(ctx: OpKernelContext, kind: str | None) -> str:
    """The sniffed format, or TF's error for an unknown one or one this op does not decode."""
    if kind is None:
        raise invalid_argument(ctx, _UNKNOWN_FORMAT)
    if ctx.op == "DecodeBmp" and kind != "BMP":
        raise invalid_argument(ctx, f"Trying to decode {kind} format using DecodeBmp op. Use `{_CODEC_OP[kind]}` or "
                               "`decode_image` instead.")
    if ctx.op in ("DecodePng", "DecodeJpeg", "DecodeGif") and kind == "BMP":
        raise invalid_argument(ctx, "Trying to decode BMP format using a wrong op. Use `decode_bmp` or `decode_image` "
                               f"instead. Op used: {ctx.op}")
    return kind


def _pixels(image: Image.Image) -> np.ndarray:
    """A decoded frame as HxWxC: gray, gray + alpha, RGB or RGBA as the file holds it (palettes expanded),
    16-bit gray as uint16."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I"):
        return np.asarray(image, dtype=np.uint16)[..., None]
    if image.mode == "1":
        image = image.convert("L")
    elif image.mode in ("P", "PA"):
        image = image.convert("RGBA" if "transparency" in image.info or image.mode == "PA" else "RGB")
    elif image.mode not in ("L", "LA", "RGB", "RGBA"):
        image = image.convert("RGB")
    array = np.asarray(image)
    return array if array.ndim == 3 else array[..., None]


def _with_channels(pixels: np.ndarray, channels: int) -> np.ndarray:
    """Pixels (..., C) with `channels` channels (0: as they are), as TF's decoders convert: colour to gray by
    fixed-point luma, gray repeated to colour, alpha dropped or made opaque."""
    have = pixels.shape[-1]
    if channels == 0 or channels == have:
        return pixels
    color = pixels[..., :3] if have >= 3 else np.repeat(pixels[..., :1], 3, axis=-1)
    if channels == 1:
        if have <= 2:
            return pixels[..., :1]
        wide = color.astype(np.int64)
        # libpng rounds 16-bit luma (which it also takes through gamma tables, not modelled here), truncates 8-bit
        rounding = 16384 if pixels.dtype == np.uint16 else 0
        gray = (wide[..., 0] * _GRAY_WEIGHTS[0] + wide[..., 1] * _GRAY_WEIGHTS[1] + wide[..., 2] * _GRAY_WEIGHTS[2]
                + rounding) >> 15
        return gray.astype(pixels.dtype)[..., None]
    if channels == 3:
        return color
    alpha = pixels[..., -1:] if have in (2, 4) else np.full(pixels.shape[:-1] + (1,), np.iinfo(pixels.dtype).max,
                                                             pixels.dtype)
    return np.concatenate([color, alpha], axis=-1)


def _open(ctx: OpKernelContext, contents: bytes, kind: str) -> Image.Image:
    try:
        image = Image.open(io.BytesIO(contents), formats=[kind])
        image.load()
    except (OSError, SyntaxError, ValueError, EOFError, Image.DecompressionBombError):
        raise _corrupt(ctx, kind, contents) from None
    return image


def _frames(ctx: OpKernelContext, image: Image.Image, kind: str, contents: bytes) -> np.ndarray:
    """Every frame of a GIF composited onto its canvas, as RGB (FxHxWx3)."""
    frames = []
    try:
        for frame in ImageSequence.Iterator(image):
            frames.append(np.asarray(frame.convert("RGB")))
    except (OSError, SyntaxError, ValueError, EOFError):
        raise _corrupt(ctx, kind, contents) from None
    return np.stack(frames)


def _in_dtype(pixels: np.ndarray, dtype: dtypes.DType) -> np.ndarray:
    """8- or 16-bit pixels in the requested output type: uint8 <-> uint16 by 257, float32 over [0, 1] (as
    TF computes it: through 16 bits, times the float 1 / 65535)."""
    if dtype == dtypes.float32:
        return _in_dtype(pixels, dtypes.uint16).astype(np.float32) * np.float32(1 / 65535)
    target = np.dtype(dtype.as_numpy_dtype)
    if pixels.dtype == target:
        return pixels
    if target == np.uint16:
        return pixels.astype(np.uint16) * np.uint16(257)
    return (pixels >> 8).astype(np.uint8)


def _widen_uint8(pixels: np.ndarray, dtype: dtypes.DType) -> np.ndarray:
    """BMP, GIF and JPEG pixels in the requested type as TF's decoder casts its uint8 buffer: times 256 for
    uint16, times the float 1 / 255 for float32."""
    if dtype == dtypes.float32:
        return pixels.astype(np.float32) * np.float32(1 / 255)
    return pixels.astype(np.uint16) * np.uint16(256) if dtype == dtypes.uint16 else pixels


def _decode(ctx: OpKernelContext, contents: Any, channels: int, dtype: dtypes.DType, animated: bool,
            jpeg_options: dict | None = None) -> np.ndarray:
    """The decoded image (HxWxC, or FxHxWx3 for `animated` GIFs), as TF's DecodeImageV2 gives it."""
    if np.ndim(contents):
        raise invalid_argument(ctx, f"contents must be scalar, got shape {tensor_shape.shape_string(np.shape(contents))}")
    if channels not in (0, 1, 3, 4):
        raise invalid_argument(ctx, f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    contents = contents.item() if isinstance(contents, np.ndarray) else contents
    kind = _sniff(contents)
    if kind == "BMP" and channels == 1:  # TF checks this before the op
        raise invalid_argument(ctx, "`channels` must be 0, 3 or 4 for BMP, but got 1")
    kind = _check_format(ctx, kind)
    if kind == "PNG" and png16_codec.is_png16_color(contents):
        try:
            pixels = _with_channels(png16_codec.decode_png16(contents), channels)
        except ValueError:
            raise _corrupt(ctx, kind, contents) from None
        return _in_dtype(pixels[None] if animated else pixels, dtype)
    if kind == "BMP":
        try:
            pixels = bmp_codec.decode_bmp(contents, channels)
        except ValueError as e:
            raise invalid_argument(ctx, str(e)) from None
        return _widen_uint8(pixels[None] if animated else pixels, dtype)
    image = _open(ctx, contents, kind)
    if kind == "GIF":
        frames = _frames(ctx, image, kind, contents)
        if not animated and len(frames) > 1 and ctx.op != "DecodeImage":
            raise invalid_argument(ctx, f"Got {len(frames)} frames, but animated gifs can only be decoded by "
                                   "tf.io.decode_gif or tf.io.decode_image")
        return _widen_uint8(_with_channels(frames if animated else frames[0], channels), dtype)
    else:
        if kind == "JPEG":
            image = _jpeg_draft(contents, image, channels, jpeg_options or {})
        pixels = _with_channels(_pixels(image), channels)
        if animated:
            pixels = pixels[None]
        if kind == "JPEG":
            return _widen_uint8(pixels, dtype)
    return _in_dtype(pixels, dtype)


def _jpeg_draft(contents: bytes, image: Image.Image, channels: int, options: dict) -> Image.Image:
    """Reopen a JPEG to let libjpeg do what TF asks of it: scale by `ratio`, output gray for one channel
    (with the fast integer DCT, TF's default)."""
    ratio = options.get("ratio", 1)
    fast = options.get("dct_method", b"") != b"INTEGER_ACCURATE"
    if ratio == 1 and not (channels == 1 and fast):
        return image
    image = Image.open(io.BytesIO(contents), formats=["JPEG"])
    width, height = image.size
    # Pillow picks the largest power-of-two scale that keeps the image at least the size asked for
    image.draft("L" if channels == 1 else image.mode, (max(1, width // ratio), max(1, height // ratio)))
    if channels == 1 and fast:
        image.decoderconfig = (image.decoderconfig[0] if image.decoderconfig else 1, 1)
    image.load()
    return image


def _decode_shape(rank: int, channels_known: bool = True) -> Any:
    def shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        shape_helpers.with_rank(ctx.input_shape(0), 0)
        channels = ctx.attr("channels") if channels_known else 0
        last = channels or None
        return [tensor_shape.TensorShape([None] * (rank - 1) + [last])]
    return shape


DecodePng = Op("DecodePng", inputs=["contents: string"], outputs=["image: dtype"],
               attrs=["channels: int = 0", "dtype: {uint8, uint16} = DT_UINT8"])
DecodePng.shape(_decode_shape(3))
DecodeJpeg = Op("DecodeJpeg", inputs=["contents: string"], outputs=["image: uint8"],
                attrs=["channels: int = 0", "ratio: int = 1", "fancy_upscaling: bool = true",
                       "try_recover_truncated: bool = false", "acceptable_fraction: float = 1",
                       "dct_method: string = ''"])
DecodeJpeg.shape(_decode_shape(3))
DecodeBmp = Op("DecodeBmp", inputs=["contents: string"], outputs=["image: uint8"], attrs=["channels: int = 0"])
DecodeBmp.shape(_decode_shape(3))
DecodeGif = Op("DecodeGif", inputs=["contents: string"], outputs=["image: uint8"])
DecodeImage = Op("DecodeImage", inputs=["contents: string"], outputs=["image: dtype"],
                 attrs=["channels: int = 0", "dtype: {uint8, uint16, float} = DT_UINT8",
                        "expand_animations: bool = true"])


@DecodeGif.shape
def _decode_gif_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 0)
    return [tensor_shape.TensorShape([None, None, None, 3])]


DecodeWebP = Op("DecodeWebP", inputs=["contents: string"], outputs=["image: dtype"],
                attrs=["channels: int = 0", "dtype: {uint8} = DT_UINT8"])


@DecodeWebP.shape
def _decode_webp_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 0)
    return [tensor_shape.TensorShape([None, None, None, ctx.attr("channels") or None])]


@DecodeImage.shape
def _decode_image_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 0)
    if ctx.attr("expand_animations"):
        return [tensor_shape.unknown_shape()]
    return [tensor_shape.TensorShape([None, None, ctx.attr("channels") or None])]


@DecodePng.kernel("CPU")
def _decode_png(ctx: OpKernelContext, contents: Any, channels: int, dtype: dtypes.DType) -> Any:
    return _decode(ctx, contents, channels, dtype, animated=False)


@DecodeJpeg.kernel("CPU")
def _decode_jpeg(ctx: OpKernelContext, contents: Any, channels: int, ratio: int, fancy_upscaling: bool,
                 try_recover_truncated: bool, acceptable_fraction: float, dct_method: bytes) -> Any:
    if ratio not in (1, 2, 4, 8):
        raise invalid_argument(ctx, f"ratio must be 1, 2, 4, or 8, got {ratio}")
    return _decode(ctx, contents, channels, dtypes.uint8, animated=False,
                   jpeg_options={"ratio": ratio, "dct_method": dct_method})


@DecodeBmp.kernel("CPU")
def _decode_bmp(ctx: OpKernelContext, contents: Any, channels: int) -> Any:
    return _decode(ctx, contents, channels, dtypes.uint8, animated=False)


@DecodeGif.kernel("CPU")
def _decode_gif(ctx: OpKernelContext, contents: Any) -> Any:
    return _decode(ctx, contents, 3, dtypes.uint8, animated=True)


@DecodeWebP.kernel("CPU")
def _decode_webp(ctx: OpKernelContext, contents: Any, channels: int, dtype: dtypes.DType) -> Any:
    """Every frame of a WebP as FxHxWxC: RGB, or RGBA where the file has alpha (an animation always has);
    `channels` must be 0 or the file's, as TF's decoder converts nothing."""
    data = contents.item() if isinstance(contents, np.ndarray) else contents
    if not (data[:4] == b"RIFF" and data[8:12] == b"WEBP"):
        raise invalid_argument(ctx, _UNKNOWN_FORMAT)
    try:
        image = Image.open(io.BytesIO(data))
        animated = getattr(image, "n_frames", 1) > 1
        mode = "RGBA" if animated or image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info else "RGB"
        frames = np.stack([np.asarray(frame.convert(mode)) for frame in ImageSequence.Iterator(image)])
    except (OSError, ValueError, SyntaxError):
        raise invalid_argument(ctx, "Failed to decode WebP header.") from None
    if channels not in (0, frames.shape[-1]):
        raise invalid_argument(ctx, "Number of channels requested does not match input")
    return frames


@DecodeImage.kernel("CPU")
def _decode_image(ctx: OpKernelContext, contents: Any, channels: int, dtype: dtypes.DType,
                  expand_animations: bool) -> Any:
    animated = expand_animations and _sniff(contents.item() if isinstance(contents, np.ndarray) else contents) == "GIF"
    return _decode(ctx, contents, channels, dtype, animated=animated)


ExtractJpegShape = Op("ExtractJpegShape", inputs=["contents: string"], outputs=["image_shape: output_type"],
                      attrs=["output_type: {int32, int64} = DT_INT32"])
DecodeAndCropJpeg = Op("DecodeAndCropJpeg", inputs=["contents: string", "crop_window: int32"],
                       outputs=["image: uint8"],
                       attrs=["channels: int = 0", "ratio: int = 1", "fancy_upscaling: bool = true",
                              "try_recover_truncated: bool = false", "acceptable_fraction: float = 1",
                              "dct_method: string = ''"])


@ExtractJpegShape.shape
def _extract_jpeg_shape_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 0)
    return [tensor_shape.TensorShape([3])]


@ExtractJpegShape.kernel("CPU")
def _extract_jpeg_shape(ctx: OpKernelContext, contents: Any, output_type: dtypes.DType) -> Any:
    """[height, width, components] from the JPEG header alone (the pixels are not decoded)."""
    contents = contents.item() if isinstance(contents, np.ndarray) else contents
    try:
        if _sniff(contents) != "JPEG":
            raise ValueError
        image = Image.open(io.BytesIO(contents), formats=["JPEG"])
        shape = [image.height, image.width, len(image.getbands())]
    except (OSError, SyntaxError, ValueError):
        raise invalid_argument(ctx, f"Invalid JPEG data, size {len(contents)}") from None
    return np.array(shape, output_type.as_numpy_dtype)


@DecodeAndCropJpeg.shape
def _decode_and_crop_jpeg_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 0)
    shape_helpers.with_value(shape_helpers.with_rank(ctx.input_shape(1), 1).dims[0], 4)
    window = ctx.input_value(1)
    height, width = (None, None) if window is None else (int(window[2]), int(window[3]))
    return [tensor_shape.TensorShape([height, width, ctx.attr("channels") or None])]


@DecodeAndCropJpeg.kernel("CPU")
def _decode_and_crop_jpeg(ctx: OpKernelContext, contents: Any, crop_window: Any, channels: int, ratio: int,
                          fancy_upscaling: bool, try_recover_truncated: bool, acceptable_fraction: float,
                          dct_method: bytes) -> Any:
    """The window [y, x, height, width] of the decoded image (decoded whole, then cut: libjpeg's partial
    decode can differ by a few levels at the window's edges)."""
    if np.shape(crop_window) != (4,):
        raise invalid_argument(ctx, f"crop_window must be shape [4]{tensor_shape.shape_string(np.shape(crop_window))}")
    pixels = _decode_jpeg(ctx, contents, channels, ratio, fancy_upscaling, try_recover_truncated,
                          acceptable_fraction, dct_method)
    y, x, height, width = (int(v) for v in crop_window)
    if y < 0 or x < 0 or height <= 0 or width <= 0 or y + height > pixels.shape[0] or x + width > pixels.shape[1]:
        raise _corrupt(ctx, "JPEG", np.asarray(contents).item())
    return pixels[y:y + height, x:x + width]


@tf_export("image.is_jpeg", "io.is_jpeg")
def is_jpeg(contents: Any, name: str | None = None) -> Tensor:
    """Whether `contents` starts with JPEG's magic bytes."""
    with name_scope(name, "is_jpeg"):
        return elementwise_ops.equal(string_ops.substr(contents, 0, 3), b"\xff\xd8\xff", name=name)


@tf_export("image.extract_jpeg_shape", "io.extract_jpeg_shape")
def extract_jpeg_shape(contents: Any, output_type: Any = dtypes.int32, name: str | None = None) -> Tensor:
    """The [height, width, channels] a JPEG decodes to, read from its header."""
    return ExtractJpegShape(contents, output_type=output_type, name=name)


@tf_export("image.decode_and_crop_jpeg", "io.decode_and_crop_jpeg")
def decode_and_crop_jpeg(contents: Any, crop_window: Any, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "", name: str | None = None) -> Tensor:
    """The window [y, x, height, width] of a decoded JPEG."""
    return DecodeAndCropJpeg(contents, crop_window, channels=channels, ratio=ratio,
                             fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
                             acceptable_fraction=acceptable_fraction, dct_method=dct_method, name=name)


EncodePng = Op("EncodePng", inputs=["image: T"], outputs=["contents: string"],
               attrs=["compression: int = -1", "T: {uint8, uint16} = DT_UINT8"])
EncodeJpeg = Op("EncodeJpeg", inputs=["image: uint8"], outputs=["contents: string"],
                attrs=["format: {'', 'grayscale', 'rgb'} = ''", "quality: int = 95", "progressive: bool = false",
                       "optimize_size: bool = false", "chroma_downsampling: bool = true",
                       "density_unit: {'in', 'cm'} = 'in'", "x_density: int = 300", "y_density: int = 300",
                       "xmp_metadata: string = ''"])


@EncodePng.shape
def _encode_png_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """One PNG per image: TF 2.21's EncodePng takes [..., height, width, channels] to the leading dims."""
    shape = shape_helpers.with_rank_at_least(ctx.input_shape(0), 3)
    return [tensor_shape.unknown_shape() if shape.ndims is None else shape[:-3]]


@EncodeJpeg.shape
def _encode_jpeg_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape_helpers.with_rank(ctx.input_shape(0), 3)
    return [tensor_shape.TensorShape([])]




def _picture(image: np.ndarray, mode: str) -> Image.Image:
    """HxWxC pixels as a Pillow image of `mode`."""
    return Image.frombytes(mode, (image.shape[1], image.shape[0]), np.ascontiguousarray(image).tobytes())


@EncodePng.kernel("CPU")
def _encode_png(ctx: OpKernelContext, image: Any, compression: int) -> Any:
    if image.ndim < 3:
        raise invalid_argument(ctx, f"images must be at least rank 3{tensor_shape.shape_string(image.shape)}")
    channels = image.shape[-1]
    if channels not in (1, 2, 3, 4):
        raise invalid_argument(ctx, f"image must have 1, 2, 3, or 4 channels, got {channels}")
    if image.ndim == 3:
        return np.array(png16_codec.encode_png(image, compression), dtype=object)
    flat = image.reshape(int(np.prod(image.shape[:-3])), *image.shape[-3:])
    if 0 in flat.shape[1:3] and len(flat):  # libpng refuses an empty image: TF names every one of the batch
        raise errors.InternalError(ctx.node_def, None, "PNG encoding failed at the following flattened batch "
                                   f"indices: {', '.join(str(i) for i in range(len(flat)))}")
    files = np.empty(len(flat), dtype=object)
    for i, one in enumerate(flat):
        files[i] = png16_codec.encode_png(one, compression)
    return files.reshape(image.shape[:-3])


@EncodeJpeg.kernel("CPU")
def _encode_jpeg(ctx: OpKernelContext, image: Any, format: bytes, quality: int, progressive: bool,  # noqa: A002
                 optimize_size: bool, chroma_downsampling: bool, density_unit: bytes, x_density: int,
                 y_density: int, xmp_metadata: bytes) -> Any:
    if image.ndim != 3:
        raise invalid_argument(ctx, f"image must be 3-dimensional{tensor_shape.shape_string(image.shape)}")
    channels = {b"grayscale": 1, b"rgb": 3}.get(format, image.shape[2])
    if format and image.shape[2] != channels:  # a format names its channels; else the image's must be 1 or 3
        raise invalid_argument(ctx, f"format {format.decode()} expects {channels} channels, got "
                                    f"{tensor_shape.shape_string(image.shape)}")
    if channels not in (1, 3):
        raise invalid_argument(ctx, f"image must have 1 or 3 channels, got {tensor_shape.shape_string(image.shape)}")
    picture = _picture(image, "RGB" if channels == 3 else "L")
    buffer = io.BytesIO()
    dpi = (x_density, y_density) if density_unit == b"in" else (x_density * 2.54, y_density * 2.54)
    picture.save(buffer, "JPEG", quality=quality, progressive=progressive, optimize=optimize_size,
                 subsampling=2 if chroma_downsampling else 0, dpi=dpi)
    return np.array(buffer.getvalue(), dtype=object)


@tf_export("image.decode_png", "io.decode_png")
def decode_png(contents: Any, channels: int = 0, dtype: Any = dtypes.uint8, name: str | None = None) -> Tensor:
    """A PNG (or single-frame GIF, or JPEG) as HxWxC `dtype` pixels; `channels` 0 keeps the file's."""
    return DecodePng(contents, channels=channels, dtype=dtype, name=name)


@tf_export("image.decode_jpeg", "io.decode_jpeg")
def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1, dct_method: str = "",
                name: str | None = None) -> Tensor:
    """A JPEG (or PNG, or single-frame GIF) as HxWxC uint8 pixels, downscaled by `ratio`."""
    return DecodeJpeg(contents, channels=channels, ratio=ratio, fancy_upscaling=fancy_upscaling,
                      try_recover_truncated=try_recover_truncated, acceptable_fraction=acceptable_fraction,
                      dct_method=dct_method, name=name)


@tf_export("image.decode_bmp", "io.decode_bmp")
def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> Tensor:
    """A BMP as HxWxC uint8 pixels."""
    return DecodeBmp(contents, channels=channels, name=name)


@tf_export("image.decode_gif", "io.decode_gif")
def decode_gif(contents: Any, name: str | None = None) -> Tensor:
    """Every frame of a GIF (or one of a PNG or JPEG) as FxHxWx3 uint8 pixels."""
    return DecodeGif(contents, name=name)


@tf_export("image.decode_webp", "io.decode_webp")
def decode_webp(contents: Any, channels: int = 0, dtype: Any = dtypes.uint8, name: str | None = None) -> Tensor:
    """A WebP (each frame of an animation) as FxHxWxC uint8 pixels."""
    return DecodeWebP(contents, channels=channels, dtype=dtype, name=name)


@tf_export("image.decode_image", "io.decode_image")
def decode_image(contents: Any, channels: int | None = None, dtype: Any = dtypes.uint8, name: str | None = None,
                 expand_animations: bool = True) -> Tensor:
    """Any of BMP, GIF, JPEG or PNG, by its leading bytes: HxWxC (FxHxWx3 for a GIF unless not
    `expand_animations`), in `dtype` (other than uint8, uint16 and float32 by convert_image_dtype)."""
    with name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        dtype = dtypes.as_dtype(dtype)
        decode_dtype = dtype if dtype in (dtypes.float32, dtypes.uint8, dtypes.uint16) else dtypes.uint16
        image = DecodeImage(contents, channels=channels, expand_animations=expand_animations, dtype=decode_dtype)
        if decode_dtype != dtype:
            image = convert_image_dtype(image, dtype)
        if not expand_animations:
            image.set_shape([None, None, channels or None])
        return image


@tf_export("image.encode_png", "io.encode_png")
def encode_png(image: Any, compression: int = -1, name: str | None = None) -> Tensor:
    """HxWxC uint8 or uint16 pixels (1 to 4 channels) as PNG bytes; `compression` 0-9, -1 the default."""
    return EncodePng(convert_to_tensor(image), compression=compression, name=name)


@tf_export("image.encode_jpeg", "io.encode_jpeg")
def encode_jpeg(image: Any, format: str = "", quality: int = 95, progressive: bool = False,  # noqa: A002
                optimize_size: bool = False, chroma_downsampling: bool = True, density_unit: str = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: str = "", name: str | None = None) -> Tensor:
    """HxWxC uint8 pixels (1 or 3 channels) as JPEG bytes of `quality` 0-100."""
    return EncodeJpeg(image, format=format, quality=quality, progressive=progressive, optimize_size=optimize_size,
                      chroma_downsampling=chroma_downsampling, density_unit=density_unit, x_density=x_density,
                      y_density=y_density, xmp_metadata=xmp_metadata, name=name)
