"""GenerateBoundingBoxProposals (`tf.image.generate_bounding_box_proposals`). TF 2.21 registers only a GPU
kernel (its CPU build answers "No OpKernel was registered"), so the expected values are worked by hand from
that kernel's arithmetic: sort by score, keep pre_nms_topn, apply the deltas, clip, drop small boxes, greedy
NMS, zero-pad to post_nms_topn. Shapes and messages are TF's."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_op

# One image, a 2x2 grid, two anchors per cell; anchors are [H, W, 4A] of (y1, x1, y2, x2).
SCORES = np.array([[[[0.9, 0.1], [0.8, 0.3]], [[0.2, 0.7], [0.6, 0.5]]]], np.float32)
ANCHORS = np.array([[[0, 0, 10, 10, 0, 0, 20, 20], [0, 10, 10, 20, 0, 0, 20, 40]],
                    [[10, 0, 20, 10, 0, 5, 10, 15], [10, 10, 20, 20, 12, 12, 14, 14]]], np.float32)
INFO = np.array([[30, 30, 1, 0, 0]], np.float32)


def test_sort_truncate_clip_filter_and_nms():
    """The two lowest scores fall to pre_nms_topn=6, the 2x2 box to min_size=3, the 20x40 box is clipped to the
    image's 30 columns; the rest overlap by IoU 1/3 at most, so NMS at 0.5 keeps them all, in score order."""
    rois = [[0, 0, 10, 10], [0, 10, 10, 20], [0, 5, 10, 15], [10, 10, 20, 20], [0, 0, 20, 30]]
    check_op(lambda s, d, i, a: tf.image.generate_bounding_box_proposals(s, d, i, a, nms_threshold=0.5,
                                                                         pre_nms_topn=6, min_size=3,
                                                                         post_nms_topn=5),
             [SCORES, np.zeros((1, 2, 2, 8), np.float32), INFO, ANCHORS],
             [np.array([rois], np.float32), np.array([[0.9, 0.8, 0.7, 0.6, 0.3]], np.float32)])


def test_nms_suppression_and_zero_padding():
    """At threshold 0.3 the two boxes overlapping the best by IoU 1/3 go; the rest is zeros."""
    check_op(lambda s, d, i, a: tf.image.generate_bounding_box_proposals(s, d, i, a, nms_threshold=0.3,
                                                                         pre_nms_topn=3, min_size=3,
                                                                         post_nms_topn=4),
             [SCORES, np.zeros((1, 2, 2, 8), np.float32), INFO, ANCHORS],
             [np.array([[[0, 0, 10, 10], [0, 10, 10, 20], [0, 0, 0, 0], [0, 0, 0, 0]]], np.float32),
              np.array([[0.9, 0.8, 0, 0]], np.float32)])


def test_deltas_move_scale_and_clip_per_image():
    """Deltas are (dy, dx, dh, dw): dx=0.5 moves the 10-wide box half a width right, dh=log 2 doubles its
    height about its centre (moved 0.1 of a height down), clipped at 0; dh=10 is clipped to log(1000/16) and
    the box to the second image's 30 rows; min_size scales by image_info[2]."""
    scores = np.ones((2, 1, 1, 1), np.float32)
    anchors = np.array([[[0, 0, 10, 10]]], np.float32)
    deltas = np.array([[[[0.1, 0.5, np.log(2), 0]]], [[[0, 0, 10, 0]]]], np.float32)
    info = np.array([[30, 30, 1, 0, 0], [30, 30, 0.5, 0, 0]], np.float32)
    check_op(lambda s, d, i, a: tf.image.generate_bounding_box_proposals(s, d, i, a, min_size=20, post_nms_topn=1),
             [scores, deltas, info, anchors],
             [np.array([[[0, 0, 0, 0]], [[0, 0, 30, 10]]], np.float32), np.array([[0], [1]], np.float32)])
    check_op(lambda s, d, i, a: tf.image.generate_bounding_box_proposals(s, d, i, a, min_size=1, post_nms_topn=1),
             [scores, deltas, info, anchors],
             [np.array([[[0, 5, 16, 15]], [[0, 0, 30, 10]]], np.float32), np.array([[1], [1]], np.float32)],
             rtol=1e-5, atol=1e-5)


def test_static_shapes_and_errors_like_tf():
    with tf.Graph().as_default():
        rois, probabilities = tf.image.generate_bounding_box_proposals(
            tf.placeholder(tf.float32, [None, 2, 2, 2]), tf.placeholder(tf.float32), tf.placeholder(tf.float32),
            tf.placeholder(tf.float32), post_nms_topn=7)
        assert rois.shape.as_list() == [None, 7, 4] and probabilities.shape.as_list() == [None, 7]
        assert rois.op.type == "GenerateBoundingBoxProposals"
        with pytest.raises(ValueError, match="Shape must be rank 3 but is rank 2"):
            tf.image.generate_bounding_box_proposals(SCORES, np.zeros((1, 2, 2, 8)), INFO, ANCHORS[0])
        with pytest.raises(ValueError, match="Dimension must be 5 but is 4"):
            tf.image.generate_bounding_box_proposals(SCORES, np.zeros((1, 2, 2, 8)), INFO[:, :4], ANCHORS)
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            tf.image.generate_bounding_box_proposals(SCORES, np.zeros((1, 2, 2, 8)), INFO, ANCHORS, min_size=[1.0])


@pytest.mark.parametrize("kwargs, error, message", [
    ({"post_nms_topn": 0}, tf.errors.InvalidArgumentError, "post_nms_topn can't be 0 or less"),
    ({"nms_threshold": 1.5}, tf.errors.InvalidArgumentError, "nms_threshold should be between 0 and 1. Got 1.5"),
    ({"pre_nms_topn": 0}, tf.errors.InvalidArgumentError, "pre_nms_topn should be greater than 00"),
    ({"anchors": ANCHORS[..., :6]}, tf.errors.OutOfRangeError, "Box dimensions need to be 4"),
])
def test_runtime_errors_like_tf_gpu_kernel(kwargs, error, message):
    anchors = kwargs.pop("anchors", ANCHORS)
    with tf.Graph().as_default(), tf.Session() as sess:
        rois, _ = tf.image.generate_bounding_box_proposals(SCORES, np.zeros((1, 2, 2, 8), np.float32), INFO,
                                                           anchors, **kwargs)
        with pytest.raises(error, match=message):
            sess.run(rois)
