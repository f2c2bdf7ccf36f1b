"""tf.image ops over boxes and the image-quality composites, against values TF 2.21 computed from the same
inputs (tests/fixtures/image_box_ops_tf.json): crop_and_resize and its gradients, the non-max
suppressions, draw_bounding_boxes, extract_glimpse, YUV/YIQ, Sobel, SSIM, MS-SSIM, PSNR,
resize_image_with_pad, extract_patches, and the JPEG header ops."""

from __future__ import annotations

import io
import json
import pathlib

import numpy as np
import pytest
from PIL import Image

import tensorweave.compat.v1 as tf
from tests.op_testing import check_gradient

TF_VALUES = json.loads((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "image_box_ops_tf.json")
                       .read_text())


def _inputs() -> dict[str, np.ndarray]:
    """The inputs the TF values were computed from (the same generator calls, in the same order)."""
    rng = np.random.default_rng(7)
    image = rng.random((2, 5, 6, 3)).astype(np.float32)
    boxes = np.array([[0.1, 0.2, 0.8, 0.9], [-0.2, 0.3, 0.6, 1.3], [0.9, 0.9, 0.2, 0.1]], np.float32)
    nms_boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                          [0, 100, 1, 101], [1, 1, 0, 0]], np.float32)
    overlaps = rng.random((5, 5)).astype(np.float32)
    cboxes = rng.random((2, 6, 2, 4)).astype(np.float32)
    cboxes[..., 2:] += cboxes[..., :2]
    return dict(image=image, boxes=boxes, box_ind=np.array([0, 1, 1], np.int32), nms_boxes=nms_boxes,
                nms_scores=np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3, 0.85], np.float32),
                overlaps=(overlaps + overlaps.T) / 2, cboxes=cboxes, cscores=rng.random((2, 6, 2)).astype(np.float32),
                rgb=rng.random((2, 4, 4, 3)).astype(np.float32), big=rng.random((2, 32, 32, 3)).astype(np.float32),
                big2=rng.random((2, 32, 32, 3)).astype(np.float32), draw=rng.random((1, 6, 7, 3)).astype(np.float32),
                draw_boxes=np.array([[[0.1, 0.1, 0.6, 0.5], [0.4, 0.3, 1.2, 0.95]]], np.float32),
                glimpse=rng.random((2, 6, 6, 2)).astype(np.float32))


def _build(d: dict[str, np.ndarray]) -> dict[str, tf.Tensor]:
    r = {}
    image, boxes = tf.constant(d["image"]), tf.constant(d["boxes"])
    for method in ["bilinear", "nearest"]:
        crops = tf.image.crop_and_resize(image, boxes, d["box_ind"], [3, 4], method=method, extrapolation_value=0.5)
        r[f"crop_{method}"] = crops
        d_image, d_boxes = tf.gradients(tf.reduce_sum(crops * crops), [image, boxes])
        r[f"crop_{method}_dimage"] = d_image
        if method == "bilinear":
            r[f"crop_{method}_dboxes"] = d_boxes
    b, s = tf.constant(d["nms_boxes"]), tf.constant(d["nms_scores"])
    r["nms"] = tf.image.non_max_suppression(b, s, 5, iou_threshold=0.5)
    r["nms_thr"] = tf.image.non_max_suppression(b, s, 5, iou_threshold=0.5, score_threshold=0.7)
    r["nms_ws_idx"], r["nms_ws_sc"] = tf.image.non_max_suppression_with_scores(b, s, 6, iou_threshold=0.5,
                                                                               soft_nms_sigma=0.5)
    r["nms_ws0_idx"], r["nms_ws0_sc"] = tf.image.non_max_suppression_with_scores(b, s, 6, iou_threshold=0.5,
                                                                                 score_threshold=0.1)
    r["nms_ov"] = tf.image.non_max_suppression_overlaps(d["overlaps"], d["nms_scores"][:5], 4, overlap_threshold=0.5,
                                                        score_threshold=0.2)
    for pad, clip in [(False, True), (True, False)]:
        found = tf.image.combined_non_max_suppression(d["cboxes"], d["cscores"], 3, 5, iou_threshold=0.5,
                                                      score_threshold=0.2, pad_per_class=pad, clip_boxes=clip)
        for key, value in zip(["boxes", "scores", "classes", "valid"], found):
            r[f"cnms_{pad}_{clip}_{key}"] = value
    rgb = tf.constant(d["rgb"])
    r["yuv"], r["yuv_back"] = tf.image.rgb_to_yuv(rgb), tf.image.yuv_to_rgb(rgb)
    r["yiq"], r["yiq_back"] = tf.image.rgb_to_yiq(rgb), tf.image.yiq_to_rgb(rgb)
    r["sobel"] = tf.image.sobel_edges(rgb)
    big, big2 = tf.constant(d["big"]), tf.constant(d["big2"])
    r["ssim"] = tf.image.ssim(big, big2, 1.0, filter_size=5)
    r["ssim11"] = tf.image.ssim(big, big2, 1.0)
    r["ssim_ms"] = tf.image.ssim_multiscale(big, big2, 1.0, filter_size=3, power_factors=(0.3, 0.3, 0.4))
    r["psnr"] = tf.image.psnr(big, big2, 1.0)
    r["pad"] = tf.image.resize_image_with_pad(rgb, 3, 8)
    r["pad_nn"] = tf.image.resize_image_with_pad(rgb[0], 6, 5, method=tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    r["patches"] = tf.image.extract_patches(rgb, [1, 2, 2, 1], [1, 2, 1, 1], [1, 1, 1, 1], "VALID")
    r["draw"] = tf.image.draw_bounding_boxes(d["draw"], d["draw_boxes"])
    r["draw_c"] = tf.image.draw_bounding_boxes(d["draw"], d["draw_boxes"],
                                               colors=np.array([[1, 0, 0, 1], [0, 0.5, 1, 1]], np.float32))
    offsets = np.array([[0.1, -0.2], [-0.5, 0.4]], np.float32)
    r["glimpse"] = tf.raw_ops.ExtractGlimpseV2(input=d["glimpse"], size=[3, 4], offsets=offsets, centered=True,
                                               normalized=True, noise="zero", uniform_noise=False)
    r["glimpse_in"] = tf.image.extract_glimpse(d["glimpse"], [3, 3], np.array([[0.1, -0.2], [0.0, 0.1]], np.float32))
    r["glimpse_u"] = tf.raw_ops.ExtractGlimpseV2(input=d["glimpse"], size=[3, 3],
                                                 offsets=np.array([[1.0, 2.0], [4.0, 5.0]], np.float32),
                                                 centered=False, normalized=False, noise="zero", uniform_noise=False)
    return r


@pytest.fixture(scope="module")
def results() -> tuple[dict, dict]:
    with tf.Graph().as_default():
        built = _build(_inputs())
        with tf.Session() as sess:
            values = sess.run(built)
    return built, values


@pytest.mark.parametrize("key", sorted(TF_VALUES))
def test_values_as_tf(results: tuple[dict, dict], key: str) -> None:
    built, values = results
    want = np.asarray(TF_VALUES[key])
    np.testing.assert_allclose(values[key], want, rtol=2e-5, atol=2e-6)
    assert built[key].shape.is_compatible_with(want.shape)


def test_static_shapes() -> None:
    with tf.Graph().as_default():
        crops = tf.image.crop_and_resize(tf.zeros([2, 5, 6, 3]), tf.zeros([7, 4]), tf.zeros([7], tf.int32), [3, 4])
        assert crops.shape.as_list() == [7, 3, 4, 3] and crops.dtype == tf.float32
        indices, count = tf.image.non_max_suppression_padded(tf.zeros([5, 4]), tf.zeros([5]), 3,
                                                             pad_to_max_output_size=True)
        assert indices.shape.as_list() == [3] and count.shape.as_list() == []
        found = tf.image.combined_non_max_suppression(tf.zeros([2, 6, 1, 4]), tf.zeros([2, 6, 3]), 2, 10,
                                                      pad_per_class=True)
        assert [t.shape.as_list() for t in found] == [[2, 6, 4], [2, 6], [2, 6], [2]]
        # TF's generated wrapper's namedtuple, which a session fetches as one of values
        assert type(found).__name__ == "CombinedNonMaxSuppression"
        assert found.nmsed_boxes is found[0] and found.valid_detections is found[3]
        assert found._fields == ("nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections")
        with tf.Session() as sess:
            assert sess.run(found).valid_detections.tolist() == [6, 6]
        assert tf.image.sobel_edges(tf.zeros([1, 4, 5, 3])).shape.as_list() == [1, 4, 5, 3, 2]
        with pytest.raises(ValueError, match="Dimension must be 4 but is 3"):
            tf.image.crop_and_resize(tf.zeros([2, 5, 6, 3]), tf.zeros([7, 3]), tf.zeros([7], tf.int32), [3, 4])
        with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 3"):
            tf.image.crop_and_resize(tf.zeros([5, 6, 3]), tf.zeros([7, 4]), tf.zeros([7], tf.int32), [3, 4])


def test_padded_nms_and_runtime_errors() -> None:
    d = _inputs()
    with tf.Graph().as_default():
        indices, count = tf.image.non_max_suppression_padded(d["nms_boxes"][:6], d["nms_scores"][:6], 6,
                                                             pad_to_max_output_size=True)
        bad_index = tf.image.crop_and_resize(d["image"], d["boxes"], [0, 2, 1], [3, 4])
        bad_iou = tf.image.non_max_suppression(d["nms_boxes"], d["nms_scores"], 3, iou_threshold=1.5)
        with tf.Session() as sess:
            assert sess.run([indices, count])[0].tolist() == [3, 0, 5, 0, 0, 0]
            with pytest.raises(tf.errors.OutOfRangeError, match=r"box_index has values outside \[0, batch_size\)"):
                sess.run(bad_index)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"iou_threshold must be in \[0, 1\]"):
                sess.run(bad_iou)


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize_gradients(method: str) -> None:
    image = np.random.default_rng(3).random((2, 5, 6, 2))
    boxes = np.array([[0.1, 0.15, 0.8, 0.75], [0.3, 0.05, 0.65, 0.9]])
    check_gradient(lambda im: tf.image.crop_and_resize(im, boxes.astype(np.float32), [1, 0], [3, 4],
                                                       method=method), [image.astype(np.float32)])
    if method == "bilinear":
        check_gradient(lambda b: tf.image.crop_and_resize(image.astype(np.float32), b, [1, 0], [3, 4]),
                       [boxes.astype(np.float32)], max_error=5e-2)


def test_jpeg_header_ops() -> None:
    picture = Image.fromarray((np.arange(6 * 7 * 3).reshape(6, 7, 3) * 5 % 256).astype(np.uint8))
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG")
    jpeg = buffer.getvalue()
    with tf.Graph().as_default():
        shape = tf.image.extract_jpeg_shape(jpeg)
        crop = tf.image.decode_and_crop_jpeg(jpeg, [1, 2, 3, 4])
        assert crop.shape.as_list() == [3, 4, None] and shape.shape.as_list() == [3]
        with tf.Session() as sess:
            assert sess.run(shape).tolist() == [6, 7, 3]
            assert sess.run(tf.image.extract_jpeg_shape(jpeg, output_type=tf.int64)).dtype == np.int64
            assert sess.run([tf.image.is_jpeg(jpeg), tf.image.is_jpeg(b"abc")]) == [True, False]
            np.testing.assert_array_equal(sess.run(crop), sess.run(tf.image.decode_jpeg(jpeg))[1:4, 2:6])
            with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid JPEG data, size 7"):
                sess.run(tf.image.extract_jpeg_shape(b"notjpeg"))
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="jpeg::Uncompress failed. Invalid JPEG data or crop window."):
                sess.run(tf.image.decode_and_crop_jpeg(jpeg, [4, 2, 3, 4]))


def test_sample_distorted_bounding_box_draws_tfs_crops() -> None:
    """Three runs of three seeded ops; the crops TF 2.21 gives (the last falls back to the whole image)."""
    boxes = np.array([[[0.1, 0.2, 0.5, 0.6], [0.3, 0.3, 0.9, 0.8]]], np.float32)
    with tf.Graph().as_default():
        a = tf.image.sample_distorted_bounding_box([480, 640, 3], boxes, seed=3, seed2=7, min_object_covered=0.3)
        b = tf.image.sample_distorted_bounding_box(tf.constant([50, 40, 1], tf.int64), np.zeros((1, 0, 4), np.float32),
                                                   seed=11, seed2=0, aspect_ratio_range=[0.5, 2.0],
                                                   area_range=[0.1, 0.6], max_attempts=20,
                                                   use_image_if_no_bounding_boxes=True)
        c = tf.image.sample_distorted_bounding_box([7, 9, 3], boxes, seed=5, seed2=1, min_object_covered=0.9,
                                                   area_range=[0.05, 0.2], max_attempts=5)
        no_boxes = tf.image.sample_distorted_bounding_box([7, 9, 3], np.zeros((1, 0, 4), np.float32), seed=1)
        assert [t.shape.as_list() for t in a] == [[3], [3], [1, 1, 4]] and b[0].dtype == tf.int64
        # TF's generated wrapper's namedtuple
        assert type(a).__name__ == "SampleDistortedBoundingBoxV2" and a._fields == ("begin", "size", "bboxes")
        with tf.Session() as sess:
            runs = [[[t.tolist() for t in found[:2]] for found in sess.run([a, b, c])] for _ in range(3)]
            with pytest.raises(tf.errors.InvalidArgumentError, match="No bounding boxes provided as input"):
                sess.run(no_boxes)
    assert runs == [
        [[[25, 240, 0], [338, 396, -1]], [[20, 1, 0], [12, 20, -1]], [[0, 0, 0], [7, 9, -1]]],
        [[[26, 247, 0], [178, 229, -1]], [[1, 13, 0], [16, 18, -1]], [[0, 0, 0], [7, 9, -1]]],
        [[[52, 76, 0], [379, 300, -1]], [[10, 11, 0], [11, 21, -1]], [[0, 0, 0], [7, 9, -1]]]]


def test_extract_glimpse_v1_halves_centered_pixel_offsets() -> None:
    """TF's version-1 kernel halves a centered offset even when it is in pixels (values from TF 2.21)."""
    image = np.tile(np.arange(42, dtype=np.float32).reshape(1, 6, 7, 1), [2, 1, 1, 1])
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.image.extract_glimpse(image, [3, 4], [[1.5, -1.5], [-3.0, 3.0]], centered=True,
                                                normalized=False, uniform_noise=False))
    np.testing.assert_array_equal(got[..., 0], [[[14, 15, 16, 17], [21, 22, 23, 24], [28, 29, 30, 31]],
                                                [[3, 4, 5, 6], [10, 11, 12, 13], [17, 18, 19, 20]]])


def test_box_op_errors_are_tfs() -> None:
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1]], np.float32)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 1"):
            tf.image.non_max_suppression(boxes, [0.5], 3)
        with pytest.raises(ValueError, match=r"Channel depth should be either 1 \(GRY\), 3 \(RGB\), or 4 \(RGBA\)"):
            tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 2]), tf.zeros([1, 1, 4]))
        assert tf.image.draw_bounding_boxes(tf.placeholder(tf.float32), tf.zeros([1, 1, 4])).shape.ndims is None
        crop = tf.image.crop_and_resize(tf.zeros([1, 3, 3, 1]), tf.zeros([1, 4]), [0], [-1, 2])
        assert crop.shape.as_list() == [1, None, 2, 1]
        cases = [
            (tf.image.non_max_suppression(boxes, [0.9, 0.8], -1), tf.errors.InvalidArgumentError,
             "output size must be non-negative"),
            (tf.raw_ops.NonMaxSuppressionV5(boxes=boxes, scores=[0.9, 0.8], max_output_size=1, iou_threshold=0.5,
                                            score_threshold=0.0, soft_nms_sigma=-1.0)[0],
             tf.errors.InvalidArgumentError, "soft_nms_sigma_val must be >= 0"),
            (tf.image.crop_and_resize(tf.zeros([1, 3, 3, 1]), tf.zeros([1, 4]), [3], [2, 2]), tf.errors.OutOfRangeError,
             r"box_index has values outside \[0, batch_size\)"),
            (crop, tf.errors.InvalidArgumentError, "crop dimensions must be positive"),
            (tf.image.draw_bounding_boxes(tf.zeros([2, 4, 4, 3]), tf.zeros([1, 1, 4])), tf.errors.InvalidArgumentError,
             "The batch sizes should be the same"),
            (tf.raw_ops.DrawBoundingBoxes(images=tf.zeros([1, 4, 4, 3]),
                                          boxes=tf.placeholder_with_default(tf.zeros([1, 1, 3]), None)),
             tf.errors.InvalidArgumentError, "The size of the third dimension of the box must be 4. Received: 3"),
            (tf.image.draw_bounding_boxes(tf.zeros([1, 4, 4, 3]), tf.zeros([1, 1, 4]), colors=[[1.0, 0.0]]),
             tf.errors.InvalidArgumentError, r"colors must have equal or more channels than the image provided: \[1,2\]"),
        ]
        with tf.Session() as sess:
            for tensor, error, message in cases:
                with pytest.raises(error, match=message):
                    sess.run(tensor)


def test_padded_nms_sorted_input_and_batches_as_tf() -> None:
    """sorted_input keeps greedy order as given; batched boxes run per member (values from TF 2.21)."""
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                      [0, 100, 1, 101]], np.float32)
    scores = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)
    with tf.Graph().as_default():
        given_order = tf.image.non_max_suppression_padded(boxes, scores, 5, pad_to_max_output_size=True,
                                                          sorted_input=True, score_threshold=0.55)
        batched = tf.image.non_max_suppression_padded(np.stack([boxes, boxes[::-1]]), np.stack([scores, scores[::-1]]),
                                                      4, pad_to_max_output_size=True)
        assert batched[0].shape.as_list() == [2, 4] and batched[1].shape.as_list() == [2]
        with pytest.raises(ValueError, match="'pad_to_max_output_size' \\(value False\\) must be True for batched"):
            tf.image.non_max_suppression_padded(np.stack([boxes]), np.stack([scores]), 4)
        with tf.Session() as sess:
            (order, order_count), (batch, batch_count) = sess.run([given_order, batched])
    assert order.tolist() == [0, 3, 0, 0, 0] and order_count == 2
    assert batch.tolist() == [[3, 0, 5, 0], [2, 5, 0, 0]] and batch_count.tolist() == [3, 3]
