"""Image ops (`tf.image`): the resize ops, geometry and colour transforms, dtype conversion and the random
augmentations, on NHWC images (a 3-D image is one HWC image).

The resize kernels compute as TF's do, in float32 and in TF's order of operations: the source coordinate of
each output pixel from the scale (in_size / out_size, or (in_size - 1) / (out_size - 1) with
`align_corners`), shifted by half a pixel with `half_pixel_centers`; bilinear lerps along x then y, bicubic
takes TF's 1025-entry coefficient table (Keys' a = -0.5 with half-pixel centers, else -0.75), area sums the
input cells each output cell covers, weighted by the covered fraction. Every kernel gathers rows and columns
by index arrays, never loops over pixels.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import (
    cast_ops,
    control_flow_ops,
    elementwise_ops,
    indexing_ops,
    manipulation_ops,
    shape_helpers,
    shape_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.platform.tf_export import tf_export

_RESIZE_TYPES = "{int8, uint8, int16, uint16, int32, int64, bfloat16, half, float, double}"
_CUBIC_TABLE_SIZE = 1024


def _resize_op(name: str, output: str, half_pixel: bool = True) -> Op:
    attrs = [f"T: {_RESIZE_TYPES}", "align_corners: bool = false"]
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
    height, width = (None, None) if value is None else (int(value[0]), int(value[1]))
    return [tensor_shape.TensorShape([images.dims[0], height, width, images.dims[3]])]


ResizeBilinear = _resize_op("ResizeBilinear", "float")
ResizeNearestNeighbor = _resize_op("ResizeNearestNeighbor", "T")
ResizeBicubic = _resize_op("ResizeBicubic", "float")
ResizeArea = _resize_op("ResizeArea", "float", half_pixel=False)


def _checked_resize(ctx: OpKernelContext, images: Any, size: Any, align_corners: bool,
                    half_pixel_centers: bool = False) -> tuple[int, int]:
    """The output (height, width), after TF's ImageResizerState checks."""
    if half_pixel_centers and align_corners:
        raise invalid_argument(ctx, "If half_pixel_centers is True, align_corners must be False.")
    if images.ndim != 4:
        raise invalid_argument(ctx, f"input must be 4-dimensional{tensor_util.shape_string(images.shape)}")
    if size.ndim != 1:
        raise invalid_argument(ctx, f"shape_t must be 1-dimensional{tensor_util.shape_string(size.shape)}")
    if size.size != 2:
        raise invalid_argument(ctx, f"shape_t must have two elements{tensor_util.shape_string(size.shape)}")
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


def _source_coords(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool,
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
        source = _source_coords(in_size, out_size, align_corners, half_pixel_centers)
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


def _nearest_index(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool) -> np.ndarray:
    source = _source_coords(in_size, out_size, align_corners, half_pixel_centers, shift=0.0)
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
    rows = _take(xp, images, _nearest_index(images.shape[1], height, align_corners, half_pixel_centers), 1)
    return _take(xp, rows, _nearest_index(images.shape[2], width, align_corners, half_pixel_centers), 2)


def _cubic_coefficients(a: float) -> np.ndarray:
    """TF's table: for x = i / 1024 (i = 0..1024), the Keys kernel at x and at x + 1, computed in double and
    stored as float."""
    x = np.arange(_CUBIC_TABLE_SIZE + 1, dtype=np.float64) / _CUBIC_TABLE_SIZE
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    x = x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.stack([near, far], axis=-1).astype(np.float32)


_CUBIC_TABLES = {False: _cubic_coefficients(-0.75), True: _cubic_coefficients(-0.5)}


def _cubic_taps(in_size: int, out_size: int, align_corners: bool, half_pixel_centers: bool
                ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The four input indices and float32 weights of each output pixel. With half-pixel centers (Keys'
    cubic) taps outside the image weigh 0 and the rest are renormalized; the legacy kernel repeats the
    edge pixel with its weight."""
    source = _source_coords(in_size, out_size, align_corners, half_pixel_centers)
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
    y_indices, y_weights = _cubic_taps(images.shape[1], height, align_corners, half_pixel_centers)
    x_indices, x_weights = _cubic_taps(images.shape[2], width, align_corners, half_pixel_centers)
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


_RESIZERS = {ResizeMethod.BILINEAR: resize_bilinear, ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor,
             ResizeMethod.BICUBIC: resize_bicubic, ResizeMethod.AREA: resize_area}


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


def _static_check(condition: Any, message: str) -> None:
    """TF's `_assert`: a condition known now raises ValueError when false; one that is a tensor is not
    asserted (the slice or pad that follows fails on bad values)."""
    if not isinstance(condition, Tensor) and not condition:
        raise ValueError(message)


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
    """TF's case over k in {1, 2, 3} (else the image), as nested conds."""
    h, w = (1, 2) if batched else (0, 1)
    swap = [0, 2, 1, 3] if batched else [1, 0, 2]
    rotations = [
        lambda: manipulation_ops.transpose(manipulation_ops.reverse(image, [w]), swap),
        lambda: manipulation_ops.reverse(image, [h, w]),
        lambda: manipulation_ops.reverse(manipulation_ops.transpose(image, swap), [w]),
    ]

    def from_k(turns: int) -> Tensor:
        if turns == 4:
            return manipulation_ops.identity(image)
        return control_flow_ops.cond(elementwise_ops.equal(k, turns), rotations[turns - 1],
                                     lambda: from_k(turns + 1), name=scope if turns == 1 else None)

    result = from_k(1)
    result.set_shape(([image.shape.dims[0]] if batched else []) + [None, None, image.shape.dims[-1]])
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
        _static_check(offset_width >= 0, "offset_width must be >= 0.")
        _static_check(offset_height >= 0, "offset_height must be >= 0.")
        _static_check(target_width > 0, "target_width must be > 0.")
        _static_check(target_height > 0, "target_height must be > 0.")
        _static_check(width >= target_width + offset_width, "width must be >= target + offset.")
        _static_check(height >= target_height + offset_height, "height must be >= target + offset.")
        image = control_flow_ops.with_dependencies([], image)
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
        _static_check(offset_height >= 0, "offset_height must be >= 0")
        _static_check(offset_width >= 0, "offset_width must be >= 0")
        _static_check(after_padding_width >= 0, "width must be <= target - offset")
        _static_check(after_padding_height >= 0, "height must be <= target - offset")
        image = control_flow_ops.with_dependencies([], image)
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
        _static_check(target_width > 0, "target_width must be > 0.")
        _static_check(target_height > 0, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies([], image)
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
