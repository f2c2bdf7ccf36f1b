"""tf.losses: values, names and collections against literals recorded from TF 2.21 (tf.compat.v1)."""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

L = np.array([[0., 1., 1.], [1., 0., 0.]], np.float32)
P = np.array([[0.2, 0.7, 0.9], [0.6, 0.3, 0.1]], np.float32)
W = np.array([[1.0], [0.0]], np.float32)
W2 = np.array([[1., 2., 0.], [0.5, 0., 3.]], np.float32)
R = tf.losses.Reduction


def _run(tensor: tf.Tensor) -> np.ndarray:
    with tf.Session() as sess:
        return sess.run(tensor)


@pytest.mark.parametrize(("reduction", "expected"), [
    (R.SUM, [0.4, 0.14, 0.33]),
    (R.MEAN, [0.06666667, 0.04666667, 0.05076923]),
    (R.SUM_OVER_BATCH_SIZE, [0.06666667, 0.02333334, 0.055]),
    (R.SUM_BY_NONZERO_WEIGHTS, [0.06666667, 0.04666667, 0.0825]),
])
def test_mean_squared_error_reductions(reduction: str, expected: list) -> None:
    with tf.Graph().as_default():
        losses = [tf.losses.mean_squared_error(L, P, weights=w, reduction=reduction) for w in (1.0, W, W2)]
        assert all(loss.shape == () and loss.dtype == tf.float32 for loss in losses)
        np.testing.assert_allclose(_run(losses), expected, rtol=1e-5)


def test_reduction_none_and_names() -> None:
    with tf.Graph().as_default():
        none = tf.losses.mean_squared_error(L, P, weights=W2, reduction=R.NONE)
        total = tf.losses.mean_squared_error(L, P, reduction=R.SUM)
        default = tf.losses.mean_squared_error(L, P)
        assert [none.name, total.name, default.name] == [
            "mean_squared_error/Mul:0", "mean_squared_error_1/Sum:0", "mean_squared_error_2/value:0"]
        assert tf.losses.get_losses() == [none, total, default]
        np.testing.assert_allclose(_run(none), [[0.04, 0.18, 0.0], [0.08, 0.0, 0.03]], rtol=1e-5)


def test_losses_values() -> None:
    expected = {"absolute_difference/value:0": 0.325, "hinge_loss/value:0": 0.175, "huber_loss/value:0": 1.05,
                "log_loss/value:0": 0.3769968, "cosine_distance_loss/value:0": 0.06899637,
                "mean_pairwise_squared_error/value_2:0": 0.12666668,
                "mean_pairwise_squared_error_1/value_2:0": 0.38666666,
                "sigmoid_cross_entropy_loss/value:0": 0.55092347, "softmax_cross_entropy_loss/value:0": 1.6219630,
                "softmax_cross_entropy_loss_1/value:0": 0.9933167,
                "sparse_softmax_cross_entropy_loss/value:0": 0.5933168,
                "sparse_softmax_cross_entropy_loss_1/value:0": 0.38721591}
    with tf.Graph().as_default():
        losses = [
            tf.losses.absolute_difference(L, P, W2),
            tf.losses.hinge_loss(L, P * 4 - 2, W2),
            tf.losses.huber_loss(L, P * 4, W2, delta=1.5),
            tf.losses.log_loss(L, P, W2),
            tf.losses.cosine_distance(tf.nn.l2_normalize(L, 1), tf.nn.l2_normalize(P, 1), axis=1),
            tf.losses.mean_pairwise_squared_error(L, P, W),
            tf.losses.mean_pairwise_squared_error(L, P),
            tf.losses.sigmoid_cross_entropy(L, P * 4 - 2, W2, label_smoothing=0.1),
            tf.losses.softmax_cross_entropy(L, P * 4, [1., 0.], label_smoothing=0.2),
            tf.losses.softmax_cross_entropy(L, P * 4),
            tf.losses.sparse_softmax_cross_entropy([2, 0], P * 4, [[2.], [1.]]),
            tf.losses.sparse_softmax_cross_entropy([[2], [0]], P * 4),
        ]
        assert [loss.name for loss in losses] == list(expected)
        np.testing.assert_allclose(_run(losses), list(expected.values()), rtol=1e-5)


def test_total_and_regularization_loss() -> None:
    with tf.Graph().as_default():
        tf.losses.absolute_difference(L, P)
        tf.losses.add_loss(tf.constant(2.0))
        v = tf.Variable(1.0)
        tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, v * 3.0)
        total, regularization = tf.losses.get_total_loss(), tf.losses.get_regularization_loss()
        assert (total.name, regularization.name) == ("total_loss:0", "total_regularization_loss:0")
        assert tf.losses.get_regularization_loss(scope="zz").name == "Const_1:0"
        unlisted = tf.losses.compute_weighted_loss([1., 2., 0.], [0., 1., 1.], loss_collection=None)
        assert unlisted.name == "weighted_loss/value:0" and len(tf.losses.get_losses()) == 2
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run([total, regularization, unlisted]), [5.2333336, 3.0, 1.0], rtol=1e-6)


def test_errors() -> None:
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"weights can not be broadcast to values. values.rank=2. "
                                             r"weights.rank=1. values.shape=\(2, 3\). weights.shape=\(3,\)."):
            tf.losses.mean_squared_error(L, P, weights=np.ones([3], np.float32))
        with pytest.raises(ValueError, match=r"Shapes \(2, 2\) and \(2, 3\) are incompatible"):
            tf.losses.mean_squared_error(L, P[:, :2])
        with pytest.raises(ValueError, match="Invalid Reduction Key bad. Key should be one of"):
            tf.losses.compute_weighted_loss(L, reduction="bad")
        with pytest.raises(ValueError, match="You must specify argument `axis`."):
            tf.losses.cosine_distance(L, P)
        with pytest.raises(ValueError, match=r"^Cannot specify both 'dim' and 'axis'\.$"):
            tf.losses.cosine_distance(L, P, axis=1, dim=1)
        with pytest.raises(ValueError, match="Argument `labels` must not be None."):
            tf.losses.absolute_difference(None, P)


def test_weights_of_a_shape_known_only_at_run_time_are_checked_by_an_assert():
    """Values recorded from TF 2.21: a fed weight is a scalar or has the losses' rank with each dim 1 or
    theirs; anything else fails the step (InvalidArgumentError) instead of broadcasting silently."""
    w = tf.placeholder(tf.float32, None, name="w")
    labels = tf.constant([[0., 1., 0.], [1., 0., 0.]])
    preds = tf.constant([[0.2, 0.7, 0.1], [0.5, 0.2, 0.3]])
    loss = tf.losses.mean_squared_error(labels, preds, weights=w)
    mean, update = tf.metrics.mean(preds, weights=w)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        assert sess.run(loss, {w: 2.0}) == pytest.approx(0.17333333)
        assert sess.run(loss, {w: [[1.], [0.]]}) == pytest.approx(0.04666667)
        assert sess.run([loss, update], {w: [[1., 0., 1.]]})[0] == pytest.approx(0.0975)
        for bad in ([[1., 2.], [3., 4.]], [1., 2., 3.]):
            with pytest.raises(tf.errors.InvalidArgumentError, match="weights can not be broadcast to values"):
                sess.run(loss, {w: bad})
    with pytest.raises(ValueError, match="Mismatch at dim 1"):
        tf.losses.mean_squared_error(labels, preds, weights=tf.ones([2, 2]))


def test_mean_pairwise_squared_error_checks_the_weights_against_the_labels_first():
    lab = tf.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    preds = lab * 0.5
    # TF's message names the labels and the weights as given (no op of the loss is built before the check)
    message = ('weights can not be broadcast to values. values.rank=2. weights.rank=1. values.shape=(3, 2). '
               'weights.shape=(2,). Received weights=Tensor("Const_1:0", shape=(2,), dtype=float32), '
               'values=Tensor("Const:0", shape=(3, 2), dtype=float32)')
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        tf.losses.mean_pairwise_squared_error(lab, preds, weights=tf.constant([1.0, 2.0]))
    wp = tf.placeholder(tf.float32)
    loss = tf.losses.mean_pairwise_squared_error(lab, preds, weights=wp)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="weights can not be broadcast to values"):
            sess.run(loss, {wp: [1.0, 2.0]})
