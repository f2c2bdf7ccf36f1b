"""Image ops against literals recorded from real TensorFlow 2.21 (`tf.compat.v1`): the resize kernels for
every method and corner mode (upsampling and downsampling), the geometry composites, colour conversions,
dtype conversion, codecs and seeded augmentations, with TF's static shapes, error classes and messages."""

import base64
import hashlib
import io

import numpy as np
import pytest
from op_testing import check_op, check_tensor, runtime_message
from PIL import Image

import tensorweave.compat.v1 as tf


def _run(*fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(list(fetches), feed)


_IMAGE = np.array([[1, 5, 2, 8], [3, 0, 7, 4], [6, 9, 1, 2]], np.float32).reshape(1, 3, 4, 1)

# resize_<method>(_IMAGE, size) from TF, by (method, corner mode, size): "align" is align_corners=True,
# "half" half_pixel_centers=True, "legacy" neither.
_RESIZED = {
    ("bilinear", "legacy", (2, 3)): [[1, 4, 6.0000005], [4.5, 4.333333, 3.3333335]],
    ("bilinear", "legacy", (4, 6)): [[1, 3.6666667, 4, 2, 6.0000005, 8], [2.5, 1.6666667, 2.75, 5.75, 5.25, 5], [4.5, 4.5, 4.333333, 4, 3.3333335, 3], [6, 8, 6.333333, 1, 1.6666667, 2]],
    ("bilinear", "align", (2, 3)): [[1, 3.5, 8], [6, 5, 2]],
    ("bilinear", "align", (4, 6)): [[1, 3.4000001, 4.3999996, 2.5999999, 4.4000006, 8], [2.3333335, 1.9333332, 2.4000001, 4.6000004, 5.3333335, 5.333333], [4, 3.4000001, 3.4000001, 4.5999999, 4.333333, 3.3333333], [6, 7.8000002, 7.3999996, 2.5999994, 1.4000001, 2]],
    ("bilinear", "half", (2, 3)): [[1.875, 3.5, 6.3750005], [5.5, 4.625, 2.5]],
    ("bilinear", "half", (4, 6)): [[1, 3, 4.5, 2.4999995, 5, 8], [2.25, 2.0625, 2.416667, 4.583334, 5.3125, 5.5], [4.125, 3.75, 3.6041667, 4.5208335, 4, 3.25], [6, 7.5, 7.666666, 2.3333321, 1.5, 2]],
    ("nearest_neighbor", "legacy", (2, 3)): [[1, 5, 2], [3, 0, 7]],
    ("nearest_neighbor", "legacy", (4, 6)): [[1, 1, 5, 2, 2, 8], [1, 1, 5, 2, 2, 8], [3, 3, 0, 7, 7, 4], [6, 6, 9, 1, 1, 2]],
    ("nearest_neighbor", "align", (2, 3)): [[1, 2, 8], [6, 1, 2]],
    ("nearest_neighbor", "align", (4, 6)): [[1, 5, 5, 2, 2, 8], [3, 0, 0, 7, 7, 4], [3, 0, 0, 7, 7, 4], [6, 9, 9, 1, 1, 2]],
    ("nearest_neighbor", "half", (2, 3)): [[1, 2, 8], [6, 1, 2]],
    ("nearest_neighbor", "half", (4, 6)): [[1, 5, 5, 2, 8, 8], [3, 0, 0, 7, 4, 4], [3, 0, 0, 7, 4, 4], [6, 9, 9, 1, 2, 2]],
    ("bicubic", "legacy", (2, 3)): [[1, 4.1682129, 5.9468045], [4.6875, 4.1981912, 3.2290597]],
    ("bicubic", "legacy", (4, 6)): [[1, 4.0754848, 4.1682129, 2, 5.9468045, 8.666667], [2.2304688, 0.12543625, 2.019145, 6.5, 5.9024277, 4.963542], [4.6875, 4.1890049, 4.1981912, 4.46875, 3.2290597, 2.4201391], [6.3164062, 9.8715067, 7.2608008, 0.3671875, 0.81038129, 1.9470487]],
    ("bicubic", "align", (2, 3)): [[1, 3.3125, 8], [6, 5.1875, 2]],
    ("bicubic", "align", (4, 6)): [[1, 3.7701597, 4.7113609, 2.0484631, 4.0067072, 8], [2.0377426, 0.54534817, 1.4192771, 5.1451774, 6.451932, 5.4800711], [4.1656089, 2.6426828, 2.7569356, 5.2886639, 4.9700899, 2.9266315], [6, 8.6984167, 7.8545523, 2.3856232, 0.52471554, 2]],
    ("bicubic", "half", (2, 3)): [[1.6120931, 3.3631384, 6.7966237], [5.723443, 4.8193431, 2.2328029]],
    ("bicubic", "half", (4, 6)): [[0.60787332, 3.1571555, 5.0139408, 1.8396868, 4.9569807, 8.6352663], [2.0962842, 1.4085732, 1.7083392, 5.0195036, 5.8504381, 5.6384792], [4.342525, 3.5473509, 3.214494, 4.9669247, 4.1029005, 2.8319716], [5.9383974, 8.2326603, 8.5881758, 1.7149123, 0.80992109, 1.975179]],
    ("area", "legacy", (2, 3)): [[2.0833335, 3.5, 5.916666], [5.25, 4.5, 2.75]],
    ("area", "legacy", (4, 6)): [[1, 3.0000005, 4.9999995, 2.0000002, 5.0000019, 7.9999981], [2.3333333, 2, 1.6666665, 5.333334, 5.333334, 5.3333321], [4, 3.5000002, 2.9999998, 5.0000005, 4.166667, 3.3333325], [6, 7.500001, 8.999999, 1.0000001, 1.5000004, 1.9999995]],
    ("area", "align", (2, 3)): [[2.1666667, 3.8333335, 6], [7, 3.6666667, 2]],
    ("area", "align", (4, 6)): [[1, 2.3333335, 4.9999995, 2.9999995, 1.9999995, 8.000001], [2, 2.1666667, 2.4999995, 3.8333335, 4.4999995, 6.000001], [2.9999995, 1.9999995, 0, 4.666667, 6.9999981, 4.0000005], [6.0000005, 7.0000005, 9, 3.6666656, 0.99999982, 2.0000005]],
}


@pytest.mark.parametrize("method, mode, size", list(_RESIZED))
def test_resize_kernels_match_tf(method, mode, size):
    kwargs = {"align_corners": mode == "align"}
    if method != "area":
        kwargs["half_pixel_centers"] = mode == "half"
    resize = getattr(tf.image, f"resize_{method}")
    check_op(lambda x: resize(x, size, **kwargs), [_IMAGE], np.reshape(_RESIZED[method, mode, size], (1, *size, 1)),
             dtype=np.float32)


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.float16, np.float64])
def test_resize_dtypes(dtype):
    image = _IMAGE.astype(dtype)
    check_op(lambda x: tf.image.resize_nearest_neighbor(x, [4, 6], half_pixel_centers=True), [image],
             np.reshape(_RESIZED["nearest_neighbor", "half", (4, 6)], (1, 4, 6, 1)), dtype=dtype)
    check_op(lambda x: tf.image.resize_bilinear(x, [2, 3]), [image],
             np.reshape(_RESIZED["bilinear", "legacy", (2, 3)], (1, 2, 3, 1)), dtype=np.float32)


def test_resize_channels_and_batch_rows_are_independent():
    rng = np.random.RandomState(1)
    images = rng.uniform(0, 10, (3, 5, 6, 2)).astype(np.float32)
    for resize in (tf.image.resize_bilinear, tf.image.resize_bicubic, tf.image.resize_area):
        with tf.Graph().as_default():
            whole, single = _run(resize(images, [7, 4]), resize(images[1:2, :, :, 1:], [7, 4]))
        np.testing.assert_array_equal(whole[1:2, :, :, 1:], single)


def test_resize_shapes_and_errors():
    size = tf.placeholder(tf.int32, [None])
    assert tf.image.resize_area(tf.placeholder(tf.float32, [2, None, None, 3]), [5, 6]).shape.as_list() == [2, 5, 6, 3]
    assert tf.image.resize_bilinear(_IMAGE, size).shape.as_list() == [1, None, None, 1]
    with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
        tf.image.resize_bilinear(_IMAGE[0], [2, 2])
    with pytest.raises(ValueError, match="Dimension must be 2 but is 3"):
        tf.image.resize_bicubic(_IMAGE, [2, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="If half_pixel_centers is True, align_corners must be False."):
        _run(tf.image.resize_bilinear(_IMAGE, [2, 2], align_corners=True, half_pixel_centers=True))
    resized = tf.image.resize_nearest_neighbor(_IMAGE, size)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape_t must have two elements\[3\]"):
        _run(resized, feed={size: [2, 2, 3]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be positive") as error:
        _run(resized, feed={size: [0, 2]})
    assert error.value.node_def.name == resized.op.name
    negative = tf.image.resize_bilinear(_IMAGE, [-1, 2])  # TF: an unknown dimension, rejected at run time
    assert negative.shape.as_list() == [1, None, 2, 1]
    with pytest.raises(tf.errors.InvalidArgumentError, match="output dimensions must be positive"):
        _run(negative)
    with pytest.raises(tf.errors.InvalidArgumentError, match="input image must be of non-zero size"):
        _run(tf.image.resize_area(np.zeros((1, 0, 4, 1), np.float32), size), feed={size: [2, 2]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="image must have at least one channel"):
        _run(tf.image.resize_area(np.zeros((1, 2, 4, 0), np.float32), size), feed={size: [2, 2]})
    images = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input must be 4-dimensional\[3,4,1\]"):
        _run(tf.image.resize_bilinear(images, [2, 2]), feed={images: _IMAGE[0]})


def test_resize_images():
    image = _IMAGE[0]
    resized = tf.image.resize_images(image, [2, 3])
    assert resized.shape.as_list() == [2, 3, 1]
    check_tensor(resized, np.reshape(_RESIZED["bilinear", "legacy", (2, 3)], (2, 3, 1)), dtype=np.float32)
    check_tensor(tf.image.resize(_IMAGE, [4, 6], method=tf.image.ResizeMethod.AREA),
                 np.reshape(_RESIZED["area", "legacy", (4, 6)], (1, 4, 6, 1)), dtype=np.float32)
    check_tensor(tf.image.resize_images(image.astype(np.uint8), (2, 3), method=tf.image.ResizeMethod.NEAREST_NEIGHBOR,
                                        align_corners=True),
                 np.reshape(_RESIZED["nearest_neighbor", "align", (2, 3)], (2, 3, 1)), dtype=np.uint8)
    unchanged = tf.image.resize_images(image, [3, 4], method=tf.image.ResizeMethod.BICUBIC)
    assert unchanged.op.type == "Squeeze"
    assert "ResizeBicubic" not in [op.type for op in tf.get_default_graph().get_operations()]
    # the 3x4 image scaled by min(6 / 3, 6 / 4) = 1.5 to fit 6x6: 4.5 (rounded half to even) x 6
    check_tensor(tf.image.resize_images(image, [6, 6], preserve_aspect_ratio=True),
                 np.reshape(_RESIZED["bilinear", "legacy", (4, 6)], (4, 6, 1)), dtype=np.float32, fully_defined=False)
    with pytest.raises(ValueError, match="'images' must have either 3 or 4 dimensions."):
        tf.image.resize_images(np.zeros((3, 4), np.float32), [2, 2])
    with pytest.raises(ValueError, match="'size' must be a 1-D Tensor of 2 elements: new_height, new_width"):
        tf.image.resize_images(image, [2, 2, 2])
    with pytest.raises(ValueError, match="Resize method is not implemented: 7"):
        tf.image.resize_images(image, [2, 2], method=7)
    # TF 2's method names pick the same legacy ops; the ones TF1 lacks are refused as TF's are
    assert tf.image.resize_images(image, [2, 3], method="bilinear").op.inputs[0].op.type == "ResizeBilinear"
    assert tf.image.resize(_IMAGE, [2, 3], method="nearest").op.type == "ResizeNearestNeighbor"
    assert tf.image.resize(_IMAGE, [2, 3], method="area").op.type == "ResizeArea"
    with pytest.raises(ValueError, match="Resize method is not implemented: lanczos3"):
        tf.image.resize_images(image, [2, 2], method="lanczos3")
    assert int(tf.image.ResizeMethod.BICUBIC) == 2


_RNG = np.random.RandomState(0)
_RGB = _RNG.uniform(0, 1, (4, 5, 3)).astype(np.float32)
_BATCH = _RNG.uniform(0, 1, (2, 4, 5, 3)).astype(np.float32)


def test_flips_and_transpose():
    check_op(tf.image.flip_left_right, [_RGB], _RGB[:, ::-1])
    check_op(tf.image.flip_left_right, [_BATCH], _BATCH[:, :, ::-1])
    check_op(tf.image.flip_up_down, [_RGB], _RGB[::-1])
    check_op(tf.image.flip_up_down, [_BATCH], _BATCH[:, ::-1])
    check_op(tf.image.transpose, [_RGB], _RGB.transpose(1, 0, 2))
    check_op(tf.image.transpose_image, [_BATCH], _BATCH.transpose(0, 2, 1, 3))
    unknown = tf.placeholder(tf.float32)
    check_tensor(tf.image.flip_left_right(unknown), _BATCH[:, :, ::-1], {unknown: _BATCH}, fully_defined=False)
    with pytest.raises(ValueError, match=r"'image' \(shape \(3, 4\)\) must be at least three-dimensional."):
        tf.image.flip_left_right(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError, match=r"inner 3 dims of 'image.shape' must be > 0: \(3, 0, 4\)"):
        tf.image.flip_up_down(np.zeros((3, 0, 4), np.float32))
    with pytest.raises(ValueError, match=r"'image' \(shape \(1, 3, 2, 4, 5\)\)must have either 3 or 4 dimensions."):
        tf.image.transpose(np.zeros((1, 3, 2, 4, 5), np.float32))


@pytest.mark.parametrize("k", [-1, 0, 1, 2, 3, 6])
def test_rot90(k):
    image = tf.image.rot90(_RGB, k)
    assert image.shape.as_list() == [None, None, 3]  # TF's: the case over k leaves height and width unknown
    check_tensor(image, np.rot90(_RGB, k), fully_defined=False)
    check_tensor(tf.image.rot90(_BATCH, k), np.rot90(_BATCH, k, axes=(1, 2)), fully_defined=False)


def test_rot90_and_ssim_of_an_image_of_unknown_rank():
    """rot90 of unknown rank is TF's cond over the rank (its shape unknown); ssim asserts, when run, that each
    image is at least the filter's size (TF 2.21: `assertion failed: [2 4 6 1] [11]`)."""
    free = tf.placeholder(tf.float32)
    turned = tf.image.rot90(free)
    assert turned.name == "rot90/cond/Merge:0" and turned.shape.ndims is None
    (value,) = _run(turned, feed={free: _BATCH})
    np.testing.assert_array_equal(value, np.rot90(_BATCH, 1, axes=(1, 2)))
    small = np.random.RandomState(0).rand(2, 4, 6, 1).astype(np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.image.ssim(free, free, 1.0), feed={free: small})
    assert runtime_message(info.value).startswith("assertion failed: [2 4 6 1] [11]")


def test_crop_and_pad_to_bounding_box():
    check_op(lambda x: tf.image.crop_to_bounding_box(x, 1, 2, 2, 3), [_RGB], _RGB[1:3, 2:5])
    check_op(lambda x: tf.image.crop_to_bounding_box(x, 0, 1, 4, 2), [_BATCH], _BATCH[:, :, 1:3])
    padded = np.zeros((2, 6, 8, 3), np.float32)
    padded[:, 1:5, 2:7] = _BATCH
    check_op(lambda x: tf.image.pad_to_bounding_box(x, 1, 2, 6, 8), [_BATCH], padded)
    offset = tf.placeholder(tf.int32, [])
    cropped = tf.image.crop_to_bounding_box(_RGB, offset, 0, 2, 5)
    assert cropped.shape.as_list() == [2, 5, 3]
    check_tensor(cropped, _RGB[2:], {offset: 2})
    with pytest.raises(ValueError, match=r"height must be >= target \+ offset."):
        tf.image.crop_to_bounding_box(_RGB, 1, 1, 4, 1)
    with pytest.raises(ValueError, match="offset_width must be >= 0."):
        tf.image.crop_to_bounding_box(_RGB, 1, -1, 1, 1)
    with pytest.raises(ValueError, match="height must be <= target - offset"):
        tf.image.pad_to_bounding_box(_RGB, 1, 1, 4, 9)


def test_resize_image_with_crop_or_pad():
    expected = np.zeros((3, 8, 3), np.float32)
    expected[:, 1:6] = _RGB[0:3]
    check_op(lambda x: tf.image.resize_image_with_crop_or_pad(x, 3, 8), [_RGB], expected)
    expected = np.zeros((2, 7, 2, 3), np.float32)
    expected[:, 1:5] = _BATCH[:, :, 1:3]
    check_op(lambda x: tf.image.resize_with_crop_or_pad(x, 7, 2), [_BATCH], expected)
    with pytest.raises(ValueError, match="target_width must be > 0."):
        tf.image.resize_image_with_crop_or_pad(_RGB, 3, 0)


def test_central_crop():
    check_op(lambda x: tf.image.central_crop(x, 0.5), [_RGB], _RGB[1:3, 1:4])
    check_op(lambda x: tf.image.central_crop(x, 0.7), [_BATCH], _BATCH[:, 0:4, 0:5])
    fraction = tf.placeholder(tf.float32, [])
    check_tensor(tf.image.central_crop(_RGB, fraction), _RGB[1:3, 1:4], {fraction: 0.5}, fully_defined=False)
    image = tf.constant(_RGB)
    assert tf.image.central_crop(image, 1.0) is image
    with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
        tf.image.central_crop(_RGB, 1.5)


_COLOURS = np.array([[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]],
                     [[0.2, 0.7, 0.7], [0.3, 0.3, 0.9], [0.9, 0.6, 0.1]]], np.float32)
_COLOURS_UINT8 = np.array([[[128, 64, 255], [0, 0, 0], [10, 250, 30]], [[255, 255, 255], [90, 60, 30], [1, 2, 3]]],
                          np.uint8)

# From TF, on _COLOURS (float32) and _COLOURS_UINT8.
_COLOURED = {
    "rgb_to_hsv": [[[0, 0, 0.5], [0, 0, 0], [0, 1, 1]], [[0.5, 0.71428573, 0.69999999], [0.66666669, 0.66666663, 0.89999998], [0.10416668, 0.88888884, 0.89999998]]],
    "hsv_to_rgb": [[[0.25, 0.5, 0.5], [0, 0, 0], [0, 0, 0]], [[0.60199994, 0.69999999, 0.21000001], [0.68399996, 0.89999998, 0.63], [0.1, 0.039999999, 0.076000027]]],
    "adjust_hue": [[[0.5, 0.5, 0.5], [0, 0, 0], [0.19999981, 1, 0]], [[0.60000008, 0.2, 0.69999999], [0.89999998, 0.30000001, 0.4199999], [0.1, 0.89999998, 0.44000012]]],
    "adjust_hue_negative": [[[0.5, 0.5, 0.5], [0, 0, 0], [0.19999981, 1, 0]], [[0.60000008, 0.2, 0.69999999], [0.89999998, 0.30000001, 0.4199999], [0.1, 0.89999998, 0.44000012]]],
    "adjust_hue_uint8": [[[255, 64, 95], [0, 0, 0], [10, 110, 250]], [[255, 255, 255], [30, 90, 30], [3, 1, 3]]],
    "adjust_saturation": [[[0.5, 0.5, 0.5], [0, 0, 0], [1, 0.5, 0.5]], [[0.44999999, 0.69999999, 0.69999999], [0.60000002, 0.60000002, 0.89999998], [0.89999998, 0.75, 0.5]]],
    "adjust_saturation_uint8": [[[85, 0, 255], [0, 0, 0], [0, 250, 20]], [[255, 255, 255], [90, 45, 0], [0, 1, 3]]],
    "adjust_contrast": [[[0.51166666, 0.60500002, 0.59333336], [-0.33833334, -0.245, -0.25666666], [1.3616667, -0.245, -0.25666666]], [[0.0016666949, 0.94499999, 0.93333334], [0.17166668, 0.26499999, 1.2733333], [1.1916666, 0.77500004, -0.086666703]]],
    "adjust_contrast_uint8": [[[99, 88, 159], [48, 63, 57], [52, 163, 69]], [[150, 165, 159], [84, 87, 69], [48, 64, 58]]],
    "adjust_brightness_uint8": [[[204, 140, 255], [76, 76, 76], [86, 255, 106]], [[255, 255, 255], [166, 136, 106], [77, 78, 79]]],
    "adjust_gamma_uint8": [[[181, 128, 255], [0, 0, 0], [50, 252, 87]], [[255, 255, 255], [151, 123, 87], [16, 22, 27]]],
    "rgb_to_grayscale_uint8": [[[105], [0], [153]], [[255], [65], [1]]],
    "per_image_standardization_uint8": [[[0.32596937, -0.28363568, 1.5356544], [-0.89324075, -0.89324075, -0.89324075], [-0.79798996, 1.488029, -0.60748839]], [[1.5356544, 1.5356544, 1.5356544], [-0.035983641, -0.32173601, -0.60748839], [-0.88371563, -0.87419057, -0.86466551]]],
    "psnr_uint8": 11.156233,
}


@pytest.mark.parametrize("name, build", [
    ("rgb_to_hsv", tf.image.rgb_to_hsv),
    ("hsv_to_rgb", tf.image.hsv_to_rgb),
    ("adjust_hue", lambda x: tf.image.adjust_hue(x, 0.3)),
    ("adjust_hue_negative", lambda x: tf.image.adjust_hue(x, -0.7)),
    ("adjust_saturation", lambda x: tf.image.adjust_saturation(x, 0.5)),
    ("adjust_contrast", lambda x: tf.image.adjust_contrast(x, 1.7)),
])
def test_colour_kernels_match_tf(name, build):
    check_op(build, [_COLOURS], _COLOURED[name], dtype=np.float32)


@pytest.mark.parametrize("name, build", [
    ("adjust_hue_uint8", lambda x: tf.image.adjust_hue(x, 0.25)),
    ("adjust_saturation_uint8", lambda x: tf.image.adjust_saturation(x, 1.5)),
    ("adjust_contrast_uint8", lambda x: tf.image.adjust_contrast(x, 0.4)),
    ("adjust_brightness_uint8", lambda x: tf.image.adjust_brightness(x, 0.3)),
    ("adjust_gamma_uint8", lambda x: tf.image.adjust_gamma(x, 0.5)),
    ("rgb_to_grayscale_uint8", tf.image.rgb_to_grayscale),
])
def test_uint8_adjustments_match_tf(name, build):
    check_op(build, [_COLOURS_UINT8], _COLOURED[name], dtype=np.uint8)


def test_hsv_round_trip_in_every_float_type():
    for dtype in (np.float16, np.float64):
        check_op(lambda x: tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)), [_RGB.astype(dtype)], _RGB.astype(dtype),
                 atol=1e-2 if dtype == np.float16 else 1e-12)
    check_op(lambda x: tf.image.adjust_hue(x, 1.0), [_RGB.astype(np.float64)], _RGB.astype(np.float64), atol=1e-6)


def test_colour_errors():
    with pytest.raises(ValueError, match="Dimension must be 3 but is 4"):
        tf.image.rgb_to_hsv(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        tf.image.adjust_contrast(np.zeros((2, 3), np.float32), 2.0)
    images = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.FailedPreconditionError,
                       match="input must have 3 channels but input only has 4 channels."):
        _run(tf.image.hsv_to_rgb(images), feed={images: np.zeros((2, 4))})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"input must be at least 3-D, got shape\[2,4\]"):
        _run(tf.image.adjust_contrast(images, 2.0), feed={images: np.zeros((2, 4))})
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must have 3 channels but instead has 4 channels."):
        _run(tf.image.adjust_saturation(images, 0.2), feed={images: np.zeros((2, 2, 4))})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"delta must be scalar: \[2\]"):
        _run(tf.image.adjust_hue(_RGB, [0.2, 0.3]))
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number."):
        tf.image.adjust_gamma(_RGB, -1)


def test_convert_image_dtype():
    floats = np.array([0.0, 0.25, 0.5, 1.0], np.float32)
    check_op(lambda x: tf.image.convert_image_dtype(x, tf.uint8), [floats], [0, 63, 127, 255], dtype=np.uint8)
    check_op(lambda x: tf.image.convert_image_dtype(x, tf.int16), [floats], [0, 8191, 16383, 32767], dtype=np.int16)
    check_op(lambda x: tf.image.convert_image_dtype(x, tf.uint8, saturate=True), [np.float32([-0.5, 2.0])], [0, 255],
             dtype=np.uint8)
    check_op(lambda x: tf.image.convert_image_dtype(x, tf.float64), [np.uint8([0, 51, 255])], [0, 0.2, 1],
             dtype=np.float64)
    check_op(lambda x: tf.image.convert_image_dtype(x, tf.uint16), [np.uint8([0, 1, 255])], [0, 256, 65280],
             dtype=np.uint16)
    check_op(lambda x: tf.image.convert_image_dtype(x, tf.uint8), [np.int32([2**31 - 1, 2**24, 0])], [255, 2, 0],
             dtype=np.uint8)
    check_op(lambda x: tf.image.convert_image_dtype(x, tf.uint8, saturate=True), [np.int32([2**31 - 1, -5])],
             [255, 0], dtype=np.uint8)
    image = tf.constant(floats)
    assert tf.image.convert_image_dtype(image, tf.float32).op.type == "Identity"
    with pytest.raises(AttributeError, match="dtype must be either floating point or integer"):
        tf.image.convert_image_dtype(floats, tf.string)
    with pytest.raises(AttributeError, match="image dtype must be either floating point or integer"):
        tf.image.convert_image_dtype(np.zeros(3, np.bool_), tf.float32)


def test_grayscale():
    weights = np.float32([0.2989, 0.5870, 0.1140])
    gray = (_BATCH * weights).sum(axis=-1, keepdims=True)
    check_op(tf.image.rgb_to_grayscale, [_BATCH], gray)
    with tf.Graph().as_default():  # TF's tensordot: a MatMul, whose message names a bad last dimension
        assert "MatMul" in [op.type for op in tf.image.rgb_to_grayscale(tf.constant(_BATCH)).graph.get_operations()]
        with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 2 and 3 for .\{\{node rgb_to_grayscale_1/"
                                             r"Tensordot/MatMul\}\}"):
            tf.image.rgb_to_grayscale(np.zeros((2, 2), np.float32))
        unknown = tf.placeholder(tf.float32)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(tf.image.rgb_to_grayscale(unknown), {unknown: _BATCH}), gray,
                                       rtol=1e-6)
    check_op(tf.image.grayscale_to_rgb, [gray], np.repeat(gray, 3, axis=-1))
    with pytest.raises(ValueError, match="Last dimension of a grayscale image should be size 1."):
        tf.image.grayscale_to_rgb(_RGB)


def test_per_image_standardization():
    mean = _BATCH.mean(axis=(1, 2, 3), keepdims=True)
    std = _BATCH.std(axis=(1, 2, 3), keepdims=True)
    check_op(tf.image.per_image_standardization, [_BATCH], (_BATCH - mean) / std)
    check_op(tf.image.per_image_standardization, [_COLOURS_UINT8], _COLOURED["per_image_standardization_uint8"],
             dtype=np.float32)
    # a uniform image is divided by 1 / sqrt(pixels), not by its zero deviation
    check_op(tf.image.per_image_standardization, [np.ones((2, 2, 1), np.float32)], np.zeros((2, 2, 1), np.float32))


def test_total_variation_gradients_and_psnr():
    tv = np.abs(np.diff(_BATCH, axis=1)).sum(axis=(1, 2, 3)) + np.abs(np.diff(_BATCH, axis=2)).sum(axis=(1, 2, 3))
    check_op(tf.image.total_variation, [_BATCH], tv, rtol=1e-5)
    check_op(tf.image.total_variation, [_RGB], np.abs(np.diff(_RGB, axis=0)).sum() + np.abs(np.diff(_RGB, axis=1)).sum(),
             rtol=1e-5)
    dy = np.concatenate([np.diff(_BATCH, axis=1), np.zeros((2, 1, 5, 3), np.float32)], axis=1)
    dx = np.concatenate([np.diff(_BATCH, axis=2), np.zeros((2, 4, 1, 3), np.float32)], axis=2)
    check_op(tf.image.image_gradients, [_BATCH], [dy, dx], fully_defined=False)
    mse = ((_BATCH - _BATCH * np.float32(0.9)) ** 2).mean(axis=(1, 2, 3))
    check_op(lambda a: tf.image.psnr(a, a * 0.9, 1.0), [_BATCH], -10 * np.log10(mse), rtol=1e-5)
    check_op(lambda a: tf.image.psnr(a, a // 2, 255), [_COLOURS_UINT8], _COLOURED["psnr_uint8"], dtype=np.float32,
             rtol=1e-5)
    with pytest.raises(ValueError, match="'images' must be either 3 or 4-dimensional."):
        tf.image.total_variation(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"image_gradients expects a 4D tensor \[batch_size, h, w, d\], not "):
        tf.image.image_gradients(np.zeros((2, 3, 1), np.float32))


def test_seeded_random_augmentations_match_tf():
    batch = np.random.RandomState(1).uniform(0, 1, (6, 4, 5, 3)).astype(np.float32)
    tf.set_random_seed(7)
    flips = [tf.image.random_flip_left_right(_RGB, seed=seed) for seed in range(6)]
    batch_flips = tf.image.random_flip_up_down(batch, seed=3)
    assert flips[0].shape.as_list() == [4, 5, 3] and batch_flips.shape.as_list() == [6, 4, 5, 3]
    brightness = tf.image.random_brightness(_RGB, 0.3, seed=1)
    contrast = tf.image.random_contrast(_RGB, 0.2, 1.8, seed=2)
    hue = tf.image.random_hue(_RGB, 0.4, seed=4)
    saturation = tf.image.random_saturation(_RGB, 0.2, 1.8, seed=5)
    crop = tf.image.random_crop(batch, [3, 2, 3, 2], seed=6)
    got = _run(flips, batch_flips, brightness, contrast, hue, saturation, crop)
    flipped, flipped_batch, brightened, contrasted, hued, saturated, cropped = got
    # TF's draws with graph seed 7: which seeds flip, which images of the batch flip, and the factors drawn
    for image, expected in zip(flipped, [False, True, True, True, True, False]):
        np.testing.assert_array_equal(image, _RGB[:, ::-1] if expected else _RGB)
    for i, expected in enumerate([False, False, False, False, True, False]):
        np.testing.assert_array_equal(flipped_batch[i], batch[i, ::-1] if expected else batch[i])
    np.testing.assert_allclose(brightened, _RGB - 0.0237751, atol=1e-6)
    with tf.Graph().as_default():
        np.testing.assert_allclose(got[3:6], _run(tf.image.adjust_contrast(_RGB, 0.648015),
                                                  tf.image.adjust_hue(_RGB, -0.24375372),
                                                  tf.image.adjust_saturation(_RGB, 1.5870897)), atol=1e-6)
    np.testing.assert_array_equal(cropped, batch[1:4, 1:3, 2:5, 1:3])


def test_random_augmentation_errors():
    with pytest.raises(ValueError, match="max_delta must be non-negative."):
        tf.image.random_brightness(_RGB, -0.1)
    with pytest.raises(ValueError, match="upper must be > lower."):
        tf.image.random_contrast(_RGB, 0.5, 0.5)
    with pytest.raises(ValueError, match="lower must be non-negative."):
        tf.image.random_saturation(_RGB, -0.5, 0.5)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5."):
        tf.image.random_hue(_RGB, 0.6)
    assert tf.random_crop is tf.image.random_crop


_PIXELS = np.array([[[172, 47, 117], [192, 67, 251], [195, 103, 9], [211, 21, 242]], [[36, 87, 70], [216, 88, 140], [58, 193, 230], [39, 87, 174]], [[88, 81, 165], [25, 77, 72], [9, 148, 115], [208, 243, 197]]], np.uint8)
# encode_jpeg(_PIXELS, quality=90) from TF, and TF's decodings of it
_JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQEBLAEsAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMU"
    "FRUVDA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU"
    "FBQUFBQUFBT/wAARCAADAAQDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUF"
    "BAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVW"
    "V1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi"
    "4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAEC"
    "AxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVm"
    "Z2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq"
    "8vP09fb3+Pn6/9oADAMBAAIRAxEAPwD0r9lP4R+FPit8MrjU/FGmNqV9Z6nPp8Mq3c0GIIwhRSInUMRuPzEFj3JwKKKKxxmb5jh8"
    "RUpUcTOMU3ZKckl6JM+eoY7FODbqy3l9p/zPzP/Z")
_JPEG_GRAY = [[[92], [123], [120], [104]], [[66], [144], [154], [74]], [[95], [51], [105], [231]]]
_JPEG_ACCURATE = [[[133, 63, 126], [165, 95, 158], [123, 108, 173], [108, 93, 158]], [[108, 38, 101], [187, 117, 180], [158, 143, 208], [79, 64, 129]], [[76, 97, 128], [33, 54, 85], [49, 137, 97], [176, 255, 224]]]
_JPEG_FAST = [[[134, 64, 126], [165, 95, 157], [121, 109, 171], [105, 93, 155]], [[108, 38, 100], [186, 116, 178], [155, 143, 205], [75, 63, 125]], [[75, 99, 127], [31, 55, 83], [46, 137, 94], [172, 255, 220]]]
# a two-frame GIF (the first with _PIXELS[:2, :2] at (1, 1) on gray 10, the second all 200), and TF's frames
_GIF = base64.b64decode("R0lGODdhBAADAIIAAMBD+9hYjKwvdSRXRgoKCgAAAAAAAAAAACwAAAAABAADAAAIDQAJCBQoAIDAAQEIBAQAIfkEAQAAAQAsAAAAAAQAAwCByMjIAAAAAAAAAAAACAgAAQgcSFBgQAA7")
_GIF_FRAMES = [[[[10, 10, 10], [10, 10, 10], [10, 10, 10], [10, 10, 10]], [[10, 10, 10], [172, 47, 117], [192, 67, 251], [10, 10, 10]], [[10, 10, 10], [36, 87, 70], [216, 88, 140], [10, 10, 10]]], [[[200, 200, 200], [200, 200, 200], [200, 200, 200], [200, 200, 200]], [[200, 200, 200], [200, 200, 200], [200, 200, 200], [200, 200, 200]], [[200, 200, 200], [200, 200, 200], [200, 200, 200], [200, 200, 200]]]]


def _encoded(array, fmt, mode):
    buffer = io.BytesIO()
    Image.frombytes(mode, (array.shape[1], array.shape[0]), array.tobytes()).save(buffer, fmt)
    return buffer.getvalue()


def test_encode_png_of_a_batch_gives_one_file_per_image():
    """TF 2.21's EncodePng takes [..., height, width, channels]: its output has the leading dims."""
    batch = np.arange(2 * 3 * 2 * 3 * 1, dtype=np.uint8).reshape(2, 3, 2, 3, 1)
    files = tf.image.encode_png(batch)
    assert files.shape.as_list() == [2, 3]
    assert tf.image.encode_png(tf.placeholder(tf.uint8)).shape.ndims is None
    assert tf.image.encode_png(tf.placeholder(tf.uint8, [None, 4, 5, 3])).shape.as_list() == [None]
    (value,) = _run(files)
    assert value.shape == (2, 3) and value[1, 2] == _run(tf.image.encode_png(batch[1, 2]))[0]
    free = tf.placeholder(tf.uint8)
    encoded = tf.image.encode_png(free)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(encoded, feed={free: np.zeros((4, 5), np.uint8)})
    assert runtime_message(info.value).startswith("images must be at least rank 3[4,5]")
    with pytest.raises(tf.errors.InternalError) as info:
        _run(encoded, feed={free: np.zeros((2, 0, 5, 3), np.uint8)})
    assert runtime_message(info.value).startswith("PNG encoding failed at the following flattened batch indices: 0, 1")
    assert _run(encoded, feed={free: np.zeros((0, 4, 5, 3), np.uint8)})[0].shape == (0,)


def test_encode_png_writes_tfs_bytes():
    # sizes and SHA-256 prefixes of TF's files (libpng's filters, zlib at the level with memLevel 9, its window
    # shrunk for small images): 8- and 16-bit, 1 to 4 channels, several levels
    rs = np.random.RandomState(0)
    cases = [(rs.randint(0, 256, size=(5, 6, 3)).astype(np.uint8), -1, 163, "0992895ca506c3ab"),
             (rs.randint(0, 256, size=(40, 50, 4)).astype(np.uint8), 9, 8108, "4ee80bfcf7801ad8"),
             (rs.randint(0, 65536, size=(4, 5, 1)).astype(np.uint16), -1, 112, "821029c0f947d730"),
             (rs.randint(0, 65536, size=(7, 3, 3)).astype(np.uint16), 1, 201, "87cb6813e3473125"),
             (np.tile(np.arange(256, dtype=np.uint8), (64, 3)).reshape(64, 256, 3), -1, 242, "9c1f5d05ec553334"),
             (rs.randint(0, 256, size=(30, 40, 2)).astype(np.uint8), 3, 2498, "2b197177b68b7d79")]
    files = _run(*[tf.image.encode_png(image, compression=level) for image, level, _, _ in cases])
    assert [(len(f), hashlib.sha256(f).hexdigest()[:16]) for f in files] == [(n, h) for _, _, n, h in cases]


def test_png_colour_to_gray_uses_libpng_weights_as_tf():
    """libpng's rgb-to-gray weights (9797, 19234, 3737)/32768: TF 2.21 decodes these pixels to these grays."""
    pixels = np.array([[[185, 209, 193], [10, 200, 30], [255, 0, 0], [7, 7, 7]]], np.uint8)
    check_tensor(tf.image.decode_png(tf.image.encode_png(pixels), channels=1),
                 np.array([[[199], [123], [76], [7]]], np.uint8), fully_defined=False)
    wide = np.array([[[40000, 1234, 65535], [65535, 65535, 65535], [1, 2, 3]]], np.uint16)
    check_tensor(tf.image.decode_png(tf.image.encode_png(wide), channels=1, dtype=tf.uint16),
                 np.array([[[20157], [65535], [2]]], np.uint16), fully_defined=False)


def test_png_round_trip_and_channels():
    encoded = tf.image.encode_png(_PIXELS)
    assert encoded.shape.as_list() == [] and encoded.dtype == tf.string
    decoded = tf.image.decode_png(encoded)
    assert decoded.shape.as_list() == [None, None, None]
    check_tensor(decoded, _PIXELS, fully_defined=False)
    gray = (_PIXELS.astype(np.int64) @ np.array([9797, 19234, 3737])) >> 15  # libpng's fixed-point luma, truncated
    check_tensor(tf.image.decode_png(encoded, channels=1), gray[..., None].astype(np.uint8), fully_defined=False)
    opaque = np.concatenate([_PIXELS, np.full((3, 4, 1), 255, np.uint8)], axis=-1)
    check_tensor(tf.image.decode_png(encoded, channels=4), opaque, fully_defined=False)
    check_tensor(tf.io.decode_png(encoded, dtype=tf.uint16), _PIXELS.astype(np.uint16) * 257, fully_defined=False)
    check_tensor(tf.image.decode_image(encoded, dtype=tf.float32),
                 (_PIXELS.astype(np.uint16) * 257).astype(np.float32) * np.float32(1 / 65535), fully_defined=False)
    check_tensor(tf.image.decode_image(tf.image.encode_png(opaque[..., 3:] * 0 + _PIXELS[..., :1]), channels=3),
                 np.repeat(_PIXELS[..., :1], 3, axis=-1), fully_defined=False)
    wide = (_PIXELS[..., :1].astype(np.uint16) * 250)
    check_tensor(tf.image.decode_png(tf.image.encode_png(wide), dtype=tf.uint16), wide, fully_defined=False)
    check_tensor(tf.image.decode_png(tf.image.encode_png(wide, compression=9)), (wide >> 8).astype(np.uint8),
                 fully_defined=False)
    with_alpha = _encoded(np.stack([_PIXELS[..., 0], _PIXELS[..., 1]], axis=-1), "PNG", "LA")
    check_tensor(tf.image.decode_png(with_alpha, channels=3), np.repeat(_PIXELS[..., :1], 3, axis=-1),
                 fully_defined=False)


def test_jpeg_decodes_as_tf_where_libjpeg_is_asked_the_same():
    check_tensor(tf.image.decode_jpeg(_JPEG, channels=1), _JPEG_GRAY, dtype=np.uint8, fully_defined=False)
    check_tensor(tf.image.decode_jpeg(_JPEG, dct_method="INTEGER_ACCURATE"), _JPEG_ACCURATE, dtype=np.uint8,
                 fully_defined=False)
    fast = _run(tf.io.decode_jpeg(_JPEG))[0]
    assert np.abs(fast.astype(int) - np.array(_JPEG_FAST)).max() <= 4
    round_trip = _run(tf.image.decode_jpeg(tf.image.encode_jpeg(_PIXELS, quality=100, chroma_downsampling=False)))[0]
    assert round_trip.shape == (3, 4, 3) and np.abs(round_trip.astype(int) - _PIXELS).max() <= 8
    assert _run(tf.image.decode_jpeg(_JPEG, ratio=2))[0].shape == (2, 2, 3)


def test_gif_bmp_and_decode_image():
    frames = tf.image.decode_gif(_GIF)
    assert frames.shape.as_list() == [None, None, None, 3]
    check_tensor(frames, _GIF_FRAMES, dtype=np.uint8, fully_defined=False)
    check_tensor(tf.image.decode_image(_GIF), _GIF_FRAMES, dtype=np.uint8, fully_defined=False)
    first = tf.image.decode_image(_GIF, expand_animations=False)
    assert first.shape.as_list() == [None, None, None]
    check_tensor(first, _GIF_FRAMES[0], dtype=np.uint8, fully_defined=False)
    bmp = _encoded(_PIXELS, "BMP", "RGB")
    check_tensor(tf.image.decode_bmp(bmp), _PIXELS, fully_defined=False)
    check_tensor(tf.image.decode_image(bmp, channels=3, expand_animations=False), _PIXELS, fully_defined=False)
    check_tensor(tf.image.decode_gif(tf.image.encode_png(_PIXELS)), _PIXELS[None], fully_defined=False)
    check_tensor(tf.image.decode_image(tf.image.encode_png(_PIXELS), dtype=tf.int32),
                 (_PIXELS.astype(np.int32) * 257) * 32768, fully_defined=False)


def test_codec_errors():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required."):
        _run(tf.image.decode_png(b"garbage data here"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
        _run(tf.image.decode_image(b"garbage data here"))
    png = _run(tf.image.encode_png(_PIXELS))[0]
    with pytest.raises(tf.errors.InvalidArgumentError, match=f"Invalid PNG data, size {len(png) // 2}"):
        _run(tf.image.decode_image(png[:len(png) // 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="jpeg::Uncompress failed. Invalid JPEG data or crop window."):
        _run(tf.image.decode_jpeg(_JPEG[:100]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`channels` must be 0, 1, 3 or 4 but got 2"):
        _run(tf.image.decode_png(png, channels=2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Got 2 frames, but animated gifs can only be decoded by "
                       "tf.io.decode_gif or tf.io.decode_image"):
        _run(tf.image.decode_png(_GIF))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to decode PNG format using DecodeBmp op. Use "
                       "`decode_png` or `decode_image` instead."):
        _run(tf.image.decode_bmp(png))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to decode BMP format using a wrong op. Use "
                       "`decode_bmp` or `decode_image` instead. Op used: DecodePng"):
        _run(tf.image.decode_png(_encoded(_PIXELS, "BMP", "RGB")))
    with pytest.raises(tf.errors.InvalidArgumentError, match="image must have 1, 2, 3, or 4 channels, got 5"):
        _run(tf.image.encode_png(np.zeros((2, 2, 5), np.uint8)))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"image must have 1 or 3 channels, got \[2,2,4\]"):
        _run(tf.image.encode_jpeg(np.zeros((2, 2, 4), np.uint8)))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"format grayscale expects 1 channels, got \[2,2,3\]"):
        _run(tf.image.encode_jpeg(np.zeros((2, 2, 3), np.uint8), format="grayscale"))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"format rgb expects 3 channels, got \[2,2,4\]"):
        _run(tf.image.encode_jpeg(np.zeros((2, 2, 4), np.uint8), format="rgb"))
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.image.decode_png([b"a"])
    with pytest.raises(ValueError, match="Shape must be at least rank 3 but is rank 2"):
        tf.image.encode_png(_PIXELS[0])


def test_bounding_box_checks_on_dynamic_shapes_are_run_time_asserts():
    """TF's `_assert` turns a condition on unknown sizes into an Assert the image depends on."""
    image = tf.placeholder(tf.float32, [None, None, 2])
    crop = tf.image.crop_to_bounding_box(image, 3, 2, 3, 4)
    padded = tf.image.pad_to_bounding_box(image, 1, 2, 5, 10)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[height must be >= target \+ offset.\]"):
            sess.run(crop, {image: np.zeros((5, 7, 2))})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"assertion failed: \[height must be <= target - offset\]"):
            sess.run(padded, {image: np.zeros((5, 7, 2))})
        assert sess.run(crop, {image: np.zeros((6, 7, 2))}).shape == (3, 4, 2)


# A 4x4 GIF (Pillow's), and TF's messages for it corrupted: giflib's open and slurp errors
_SMALL_GIF = (b'GIF87a\x04\x00\x04\x00\x83\x00\x00-./*+,\'()$%&!"#\x1e\x1f \x1b\x1c\x1d\x18\x19\x1a\x15\x16\x17\x12\x13\x14'
        b'\x0f\x10\x11\x0c\r\x0e\t\n\x0b\x06\x07\x08\x03\x04\x05\x00\x01\x02,\x00\x00\x00\x00\x04\x00\x04\x00\x00'
        b'\x08\x15\x00\x1f8h\xc0`\x81\x82\x04\x08\x0e\x18(@`\x80\x80\x00\x00\x02\x02\x00;')


@pytest.mark.parametrize("contents, reason", [
    (_SMALL_GIF[:4], "failed to open gif file: Failed to read from given file"),
    (_SMALL_GIF[:12], "failed to open gif file: No screen descriptor detected"),
    (_SMALL_GIF[:60], "failed to open gif file: No screen descriptor detected"),  # in the global colour map
    (_SMALL_GIF[:62], "failed to slurp gif file: Failed to read from given file"),
    (_SMALL_GIF[:93], "failed to slurp gif file: Failed to read from given file"),
    (b"GIF89a\x04\x00\x04\x00\x00\x00\x00!\xf9\x04abc", "failed to slurp gif file: Failed to read from given file"),
    (b"GIF89a\x04\x00\x04\x00\x00\x00\x00!\xf9\x04abcd\x00,\x00\x00",
     "failed to slurp gif file: Failed to read from given file"),
    (b"GIF89a\x04\x00\x04\x00\x00\x00\x00;", "failed to slurp gif file: No Image Descriptor detected"),
    (b"GIF89a\x04\x00\x04\x00\x00\x00\x00Q", "failed to slurp gif file: Wrong record type detected"),
])
def test_corrupt_gif_messages_are_giflibs(contents, reason):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(tf.image.decode_gif(tf.constant(contents)))
    assert runtime_message(info.value).split("\n")[0] == f"Invalid GIF data (size {len(contents)}), {reason}"
