"""adjust_jpeg_quality / random_jpeg_quality and their EncodeJpegVariableQuality op against real TensorFlow
2.21 (`tf.compat.v1`). TF encodes and decodes with its own libjpeg (decoding with the fast integer DCT);
tensorweave with Pillow's. Measured against TF on a 32x40 RGB gradient at qualities 10, 50 and 90 and on the
image below: at most 3 levels apart per value (mean about 1), grayscale equal; shape and dtype always TF's."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

yy, xx = np.mgrid[0:8, 0:16]
IMAGE = np.stack([(xx * 13) % 256, (yy * 29) % 256, ((xx + yy) * 7) % 256], -1).astype(np.uint8)
CODEC_LEVELS = 3  # the largest difference from TF's values measured (see above)

TF_RGB_Q50 = [0, 7, 0, 0, 9, 0, 18, 9, 0, 32, 8, 4, 47, 4, 11, 61, 5, 18, 75, 6, 27, 84, 8, 36, 93, 7, 42, 102, 10, 51, 118, 12, 60, 130, 11, 67, 146, 7, 72, 161, 7, 79, 178, 7, 86, 187, 10, 91, 0, 25, 0, 5, 28, 2, 22, 29, 11, 37, 27, 17, 53, 23, 21, 65, 23, 27, 79, 25, 38, 90, 27, 46, 97, 27, 53, 108, 29, 61, 122, 31, 72, 136, 30, 78, 151, 26, 84, 165, 25, 88, 182, 26, 97, 193, 29, 102, 0, 55, 10, 9, 57, 15, 24, 58, 23, 39, 58, 30, 55, 54, 34, 69, 52, 42, 83, 55, 52, 93, 57, 61, 100, 57, 67, 111, 58, 74, 124, 60, 84, 137, 61, 91, 153, 56, 97, 168, 54, 103, 185, 56, 112, 196, 58, 117, 0, 85, 21, 8, 88, 27, 24, 89, 35, 39, 88, 41, 53, 83, 45, 68, 83, 52, 81, 85, 62, 93, 87, 71, 99, 86, 77, 110, 89, 86, 123, 91, 96, 137, 91, 102, 151, 86, 108, 168, 85, 113, 183, 86, 121, 195, 89, 127, 0, 115, 29, 2, 118, 35, 18, 119, 41, 35, 118, 48, 49, 113, 53, 63, 113, 60, 76, 115, 70, 87, 117, 79, 93, 117, 85, 105, 119, 93, 118, 121, 102, 133, 121, 109, 147, 116, 114, 162, 115, 121, 178, 116, 129, 190, 119, 135, 0, 145, 37, 2, 147, 44, 19, 149, 51, 34, 147, 57, 50, 143, 63, 65, 142, 70, 78, 144, 80, 88, 146, 87, 96, 146, 93, 106, 148, 102, 120, 150, 112, 133, 150, 118, 148, 146, 125, 164, 145, 131, 180, 146, 137, 189, 148, 142, 0, 173, 49, 8, 176, 54, 25, 178, 62, 40, 176, 68, 56, 172, 73, 70, 170, 80, 84, 173, 91, 94, 175, 98, 102, 175, 104, 112, 177, 113, 126, 179, 123, 140, 178, 129, 156, 174, 134, 169, 173, 140, 186, 174, 148, 197, 177, 153, 6, 192, 57, 15, 195, 62, 32, 194, 72, 47, 194, 77, 63, 190, 83, 77, 189, 89, 91, 192, 100, 101, 193, 108, 109, 194, 113, 119, 195, 121, 132, 197, 131, 147, 197, 138, 163, 192, 144, 176, 191, 148, 195, 192, 159, 204, 195, 164]
TF_GRAY_Q30 = [2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192, 2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192, 2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192, 2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192, 2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192, 2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192, 2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192, 2, 13, 28, 41, 52, 65, 80, 91, 103, 114, 129, 142, 153, 166, 181, 192]


def test_round_trip_matches_tf_within_the_codec_difference():
    with tf.Graph().as_default(), tf.Session() as sess:
        rgb = tf.image.adjust_jpeg_quality(IMAGE, 50)
        gray = tf.image.adjust_jpeg_quality(IMAGE[..., :1], tf.constant(30))
        assert rgb.dtype == tf.uint8 and rgb.shape.as_list() == [None, None, 3]
        assert gray.shape.as_list() == [None, None, 1]
        got_rgb, got_gray = sess.run([rgb, gray])
    assert got_rgb.shape == IMAGE.shape and got_gray.shape == (8, 16, 1)
    np.testing.assert_allclose(got_rgb.reshape(-1), TF_RGB_Q50, atol=CODEC_LEVELS, rtol=0)
    np.testing.assert_array_equal(got_gray.reshape(-1), TF_GRAY_Q30)


def test_round_trip_properties():
    """Quality orders the loss, and float images come back as floats in [0, 1]."""
    with tf.Graph().as_default(), tf.Session() as sess:
        errors = [np.abs(sess.run(tf.image.adjust_jpeg_quality(IMAGE, q)).astype(int) - IMAGE).mean()
                  for q in (10, 50, 100)]
        floats = tf.image.adjust_jpeg_quality(IMAGE.astype(np.float32) / 255, 75)
        assert floats.dtype == tf.float32
        got = sess.run(floats)
    assert errors[0] > errors[1] > errors[2]
    assert got.dtype == np.float32 and 0 <= got.min() and got.max() <= 1
    np.testing.assert_allclose(got, IMAGE / 255, atol=0.1)


def test_random_jpeg_quality_is_seeded_and_in_range():
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.set_random_seed(3)
        image = tf.placeholder(tf.float32, [8, 16, 3])
        out = tf.image.random_jpeg_quality(image, 10, 20, seed=5)
        assert out.shape.as_list() == [None, None, 3]
        feed = {image: IMAGE / 255}
        got = [sess.run(out, feed) for _ in range(3)]
        candidates = sess.run([tf.image.adjust_jpeg_quality(image, q) for q in range(10, 20)], feed)
    for value in got:
        assert any(np.array_equal(value, candidate) for candidate in candidates)


@pytest.mark.parametrize("low, high, message", [(20, 10, "`min_jpeg_quality` must be less than `max_jpeg_quality`."),
                                                (20, 20, "`min_jpeg_quality` must be less than `max_jpeg_quality`."),
                                                (20, 101, "jpeg encoding range must be between 0 and 100.")])
def test_random_jpeg_quality_range_errors(low, high, message):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        tf.image.random_jpeg_quality(IMAGE, low, high)


@pytest.mark.parametrize("build, message", [
    (lambda: tf.image.adjust_jpeg_quality(IMAGE, 101), r"quality must be in \[0,100\], got 101"),
    (lambda: tf.image.adjust_jpeg_quality(IMAGE, -1), r"quality must be in \[0,100\], got -1"),
    (lambda: tf.image.adjust_jpeg_quality(IMAGE, [50]), r"quality must be scalar: \[1\]"),
])
def test_runtime_errors_like_tf(build, message):
    with tf.Graph().as_default(), tf.Session() as sess:
        output = build()
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            sess.run(output)


def test_static_rank_error_like_tf():
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Shape must be rank 3 but is rank 4"):
        tf.image.adjust_jpeg_quality(IMAGE[None], 50)
