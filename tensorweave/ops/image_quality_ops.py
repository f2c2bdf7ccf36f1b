"""`tf.image` composites built as TF builds them: the YUV and YIQ colour spaces (a 3x3 tensordot), Sobel
edges (a reflect-padded depthwise convolution), SSIM and multi-scale SSIM (Gaussian-weighted local
statistics by depthwise convolution, average-pooled scales), resize_image_with_pad and extract_patches; and
adjust_jpeg_quality / random_jpeg_quality, a JPEG round trip through the one op they add,
EncodeJpegVariableQuality (EncodeJpeg with the quality a tensor).

Being graphs of existing ops, they have TF's gradients and dtype rules for free. The JPEG codec is Pillow's
libjpeg, not TF's: a round trip keeps shape and dtype exactly and values to within a few levels of TF's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import (
    cast_ops,
    constant_ops,
    elementwise_ops,
    image_ops,
    linalg_ops,
    logging_ops,
    manipulation_ops,
    nn_conv_ops,
    nn_ops,
    random_ops,
    reduction_ops,
    sequence_ops,
    shape_ops,
    space_batch_ops,
)
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export

_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]
_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _colour_transform(images: Any, kernel: list) -> Tensor:
    """The last axis (3 channels) mapped by a 3x3 matrix; TF opens no name scope here."""
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(kernel, dtype=images.dtype, name="kernel")
    return linalg_ops.tensordot(images, kernel, axes=[[images.shape.ndims - 1], [0]])


@tf_export("image.rgb_to_yuv")
def rgb_to_yuv(images: Any) -> Tensor:
    """RGB in [0, 1] to YUV (Y in [0, 1], U and V around 0)."""
    return _colour_transform(images, _RGB_TO_YUV)


@tf_export("image.yuv_to_rgb")
def yuv_to_rgb(images: Any) -> Tensor:
    """YUV back to RGB."""
    return _colour_transform(images, _YUV_TO_RGB)


@tf_export("image.rgb_to_yiq")
def rgb_to_yiq(images: Any) -> Tensor:
    """RGB in [0, 1] to YIQ."""
    return _colour_transform(images, _RGB_TO_YIQ)


@tf_export("image.yiq_to_rgb")
def yiq_to_rgb(images: Any) -> Tensor:
    """YIQ back to RGB."""
    return _colour_transform(images, _YIQ_TO_RGB)


@tf_export("image.sobel_edges")
def sobel_edges(image: Any) -> Tensor:
    """The vertical and horizontal Sobel responses of each channel, stacked last: [..., channels, 2]."""
    image = convert_to_tensor(image)
    static_shape = image.shape
    image_shape = shape_ops.shape(image)
    kernels = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]], [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    kernels = np.expand_dims(np.transpose(kernels, (1, 2, 0)), -2)
    filters = manipulation_ops.tile(constant_ops.constant(kernels, dtype=image.dtype),
                                    [1, 1, image_shape[-1], 1], name="sobel_filters")
    padded = manipulation_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = nn_conv_ops.depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    output = shape_ops.reshape(output, manipulation_ops.concat([image_shape, [2]], 0))
    output.set_shape(static_shape.concatenate([2]))
    return output


def _gaussian_filter(size: Tensor, sigma: Tensor) -> Tensor:
    """MATLAB's fspecial('gaussian') as a [size, size, 1, 1] filter (a softmax of -d^2 / (2 sigma^2))."""
    coords = cast_ops.cast(sequence_ops.range(size), sigma.dtype)
    coords -= cast_ops.cast(size - 1, sigma.dtype) / 2.0
    g = elementwise_ops.square(coords)
    g *= -0.5 / elementwise_ops.square(sigma)
    g = shape_ops.reshape(g, [1, -1]) + shape_ops.reshape(g, [-1, 1])
    g = nn_ops.softmax(shape_ops.reshape(g, [1, -1]))
    return shape_ops.reshape(g, manipulation_ops.stack([size, size, 1, 1]))


def _ssim_per_channel(img1: Tensor, img2: Tensor, max_val: Tensor, filter_size: int, filter_sigma: float,
                      k1: float, k2: float, return_index_map: bool = False) -> tuple[Tensor, Tensor]:
    """SSIM and contrast-structure per channel, from Gaussian-weighted local means (VALID windows)."""
    filter_size = constant_ops.constant(filter_size, dtype=dtypes.int32)
    filter_sigma = constant_ops.constant(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = shape_ops.shape_n([img1, img2])
    # TF asserts, when run, that both images are at least the filter's size
    checks = [logging_ops.Assert_(reduction_ops.reduce_all(elementwise_ops.greater_equal(shape[-3:-1], filter_size)),
                                  [shape, filter_size], summarize=8) for shape in (shape1, shape2)]
    with control_dependencies(checks):
        img1 = manipulation_ops.identity(img1)
    kernel = _gaussian_filter(filter_size, filter_sigma)
    kernel = manipulation_ops.tile(kernel, multiples=manipulation_ops.stack([1, 1, shape1[-1], 1]))

    def reducer(x: Tensor) -> Tensor:
        shape = shape_ops.shape(x)
        x = shape_ops.reshape(x, manipulation_ops.concat([[-1], shape[-3:]], 0))
        y = nn_conv_ops.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")
        return shape_ops.reshape(y, manipulation_ops.concat([shape[:-3], shape_ops.shape(y)[1:]], 0))

    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mean0, mean1 = reducer(img1), reducer(img2)
    num0 = mean0 * mean1 * 2.0
    den0 = elementwise_ops.square(mean0) + elementwise_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(img1 * img2) * 2.0
    den1 = reducer(elementwise_ops.square(img1) + elementwise_ops.square(img2))
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    if return_index_map:
        return luminance * cs, cs
    axes = constant_ops.constant([-3, -2], dtype=dtypes.int32)
    return reduction_ops.reduce_mean(luminance * cs, axes), reduction_ops.reduce_mean(cs, axes)


def _float_images(img1: Any, img2: Any, max_val: Any) -> tuple[Tensor, Tensor, Tensor]:
    img1, img2 = convert_to_tensor(img1, name="img1"), convert_to_tensor(img2, name="img2")
    shape1, shape2 = img1.shape.with_rank_at_least(3), img2.shape.with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.ndims is not None and shape2.ndims is not None:
        for dim1, dim2 in zip(reversed(shape1.dims[:-3]), reversed(shape2.dims[:-3])):
            if not (dim1 == 1 or dim2 == 1 or dim1.is_compatible_with(dim2)):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    max_val = image_ops.convert_image_dtype(cast_ops.cast(max_val, img1.dtype), dtypes.float32)
    return (image_ops.convert_image_dtype(img1, dtypes.float32), image_ops.convert_image_dtype(img2, dtypes.float32),
            max_val)


@tf_export("image.ssim")
def ssim(img1: Any, img2: Any, max_val: Any, filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
         k2: float = 0.03, return_index_map: bool = False) -> Tensor:
    """Structural similarity of two image batches ([..., h, w, c] with values in [0, max_val]), averaged
    over space and channels (or, with `return_index_map`, per window)."""
    with name_scope(None, "SSIM", [img1, img2]):
        img1, img2, max_val = _float_images(img1, img2, max_val)
        per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2,
                                           return_index_map)
        return reduction_ops.reduce_mean(per_channel, [-1])


@tf_export("image.ssim_multiscale")
def ssim_multiscale(img1: Any, img2: Any, max_val: Any, power_factors: Any = _MSSSIM_WEIGHTS,
                    filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03) -> Tensor:
    """Multi-scale SSIM: contrast-structure at each halved scale and SSIM at the last, weighted by
    `power_factors` (one per scale); odd sizes are padded symmetrically before each 2x2 average."""
    with name_scope(None, "MS-SSIM", [img1, img2]):
        img1, img2, max_val = _float_images(img1, img2, max_val)
        images = [img1, img2]
        shapes = [shape_ops.shape(img1), shape_ops.shape(img2)]
        heads = [s[:-3] for s in shapes]
        tails = [s[-3:] for s in shapes]
        divisor = [1, 2, 2, 1]
        mcs = []
        per_channel = None
        for k in range(len(power_factors)):
            with name_scope(None, f"Scale{k}", images):
                if k > 0:
                    flat = [shape_ops.reshape(x, manipulation_ops.concat([[-1], t], 0)) for x, t in zip(images, tails)]
                    remainder = tails[0] % constant_ops.constant(divisor[1:], dtype=dtypes.int32)
                    padding = manipulation_ops.pad(shape_ops.expand_dims(remainder, -1), [[1, 0], [1, 0]])
                    padded = [manipulation_ops.pad(x, padding, mode="SYMMETRIC") for x in flat]
                    downscaled = [nn_conv_ops.avg_pool(x, ksize=divisor, strides=divisor, padding="VALID")
                                  for x in padded]
                    tails = [shape_ops.shape(x)[1:] for x in downscaled]
                    images = [shape_ops.reshape(x, manipulation_ops.concat([h, t], 0))
                              for x, h, t in zip(downscaled, heads, tails)]
                per_channel, cs = _ssim_per_channel(*images, max_val=max_val, filter_size=filter_size,
                                                    filter_sigma=filter_sigma, k1=k1, k2=k2)
                mcs.append(nn_ops.relu(cs))
        mcs.pop()
        values = manipulation_ops.stack(mcs + [nn_ops.relu(per_channel)], axis=-1)
        ms_ssim = reduction_ops.reduce_prod(elementwise_ops.pow(values, power_factors), [-1])
        return reduction_ops.reduce_mean(ms_ssim, [-1])


@tf_export("image.resize_image_with_pad")
def resize_image_with_pad(image: Any, target_height: Any, target_width: Any,
                          method: int = image_ops.ResizeMethod.BILINEAR, align_corners: bool = False) -> Tensor:
    """`image` resized to fit the target keeping its aspect ratio, then zero-padded (centred) to it."""
    with name_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        is_batch = image.shape.ndims == 4
        if image.shape.ndims is not None and image.shape.ndims not in (3, 4):
            raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
        if not is_batch:
            image = shape_ops.expand_dims(image, 0)
        if isinstance(target_height, int) and target_height <= 0:
            raise ValueError("target_height must be > 0.")
        if isinstance(target_width, int) and target_width <= 0:
            raise ValueError("target_width must be > 0.")
        _, height, width, _ = image_ops._image_dimensions(image, rank=4)
        f_height, f_width = cast_ops.cast(height, dtypes.float32), cast_ops.cast(width, dtypes.float32)
        f_target_height = cast_ops.cast(target_height, dtypes.float32)
        f_target_width = cast_ops.cast(target_width, dtypes.float32)
        ratio = elementwise_ops.maximum(f_width / f_target_width, f_height / f_target_height)
        resized_height_float, resized_width_float = f_height / ratio, f_width / ratio
        resized_height = cast_ops.cast(elementwise_ops.floor(resized_height_float), dtypes.int32)
        resized_width = cast_ops.cast(elementwise_ops.floor(resized_width_float), dtypes.int32)
        p_height = elementwise_ops.maximum(0, cast_ops.cast(
            elementwise_ops.floor((f_target_height - resized_height_float) / 2), dtypes.int32))
        p_width = elementwise_ops.maximum(0, cast_ops.cast(
            elementwise_ops.floor((f_target_width - resized_width_float) / 2), dtypes.int32))
        resized = image_ops.resize_images(image, manipulation_ops.stack([resized_height, resized_width]), method,
                                          align_corners=align_corners)
        padded = image_ops.pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        return padded if is_batch else shape_ops.squeeze(padded, axis=[0])


@tf_export("image.extract_patches")
def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: str,
                    name: str | None = None) -> Tensor:
    """Each `sizes` patch of `images` flattened into the depth (TF2's name of extract_image_patches)."""
    return space_batch_ops.ExtractImagePatches(images, ksizes=list(sizes), strides=list(strides),
                                               rates=list(rates), padding=padding, name=name)


# -- JPEG quality ---------------------------------------------------------------------------------------

EncodeJpegVariableQuality = Op("EncodeJpegVariableQuality", inputs=["images: uint8", "quality: int32"],
                               outputs=["contents: string"])


@EncodeJpegVariableQuality.shape
def _encode_jpeg_variable_quality_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(0), 3)
    return [tensor_shape.scalar()]


@EncodeJpegVariableQuality.kernel("CPU")
def _encode_jpeg_variable_quality(ctx: OpKernelContext, images: Any, quality: Any) -> Any:
    if np.ndim(quality) != 0:
        raise invalid_argument(ctx, f"quality must be scalar: {tensor_shape.shape_string(np.shape(quality))}")
    if not 0 <= quality <= 100:
        raise invalid_argument(ctx, f"quality must be in [0,100], got {quality}")
    return image_ops._encode_jpeg(ctx, images, b"", int(quality), progressive=False, optimize_size=False,
                                  chroma_downsampling=True, density_unit=b"in", x_density=300, y_density=300,
                                  xmp_metadata=b"")


@tf_export("image.adjust_jpeg_quality")
def adjust_jpeg_quality(image: Any, jpeg_quality: Any, dct_method: str = "", name: str | None = None) -> Tensor:
    """`image` (1 or 3 channels) encoded as a JPEG of quality `jpeg_quality` (0-100) and decoded again, in its
    own dtype: the compression artefacts, as augmentation."""
    with name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1]
        original_dtype = image.dtype
        image = image_ops.convert_image_dtype(image, dtypes.uint8, saturate=True)
        if not isinstance(jpeg_quality, Tensor):
            jpeg_quality = convert_to_tensor(jpeg_quality, dtype=dtypes.int32)
        contents = EncodeJpegVariableQuality(image, jpeg_quality)
        image = image_ops.DecodeJpeg(contents, channels=channels or 0, dct_method=dct_method)
        return image_ops.convert_image_dtype(image, original_dtype, saturate=True)


@tf_export("image.random_jpeg_quality")
def random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int, seed: int | None = None) -> Tensor:
    """`adjust_jpeg_quality` with a quality drawn uniformly from [min_jpeg_quality, max_jpeg_quality)."""
    if not (0 <= min_jpeg_quality <= 100 and 0 <= max_jpeg_quality <= 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    jpeg_quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed, dtype=dtypes.int32)
    return adjust_jpeg_quality(image, jpeg_quality)
