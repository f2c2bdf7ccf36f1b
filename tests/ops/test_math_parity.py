"""Math and nn ops against values recorded from real TF 2.21 (`tf.compat.v1`): denormal flushing of the
exponential kernels, NthElement, and other op-library parity details."""

import numpy as np
import pytest
from op_testing import check_gradient

import tensorweave.compat.v1 as tf


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def test_exponential_kernels_flush_denormal_results_as_tf():
    """TF's CPU threads flush denormals to zero: exp(-100.) is 0 in float32 (NumPy: 3.8e-44); float64 keeps
    the same value, which is normal there."""
    with tf.Graph().as_default():
        x = tf.constant([-100., -88., 0.0])
        got = _run([tf.exp(x), tf.nn.softplus(x), tf.sigmoid(x), tf.math.log_sigmoid(-x), tf.expm1(x),
                    tf.nn.softmax([0., -100.]), tf.exp(tf.constant(-720., tf.float64)),
                    tf.nn.softplus(tf.constant(-100., tf.float64))])
    np.testing.assert_array_equal(got[0], [0, 0, 1])
    np.testing.assert_array_equal(got[1], np.float32([0, 0, 0.6931471824645996]))
    np.testing.assert_array_equal(got[2], [0, 0, 0.5])
    np.testing.assert_array_equal(got[3], np.float32([-0.0, -0.0, -0.6931471824645996]))
    assert np.signbit(got[3][0])
    np.testing.assert_array_equal(got[4], [-1, -1, 0])
    np.testing.assert_array_equal(got[5], [1, 0])
    assert got[6] == 0 and got[7] == 3.720075976020836e-44


def test_nth_element_values_shape_and_errors():
    x = np.array([[3., 1., 2., 2.], [5., 5., 4., -1.]], np.float32)
    with tf.Graph().as_default():
        y = tf.raw_ops.NthElement(input=x, n=1)
        top = tf.raw_ops.NthElement(input=x, n=1, reverse=True)
        assert y.shape.as_list() == [2]
        np.testing.assert_array_equal(_run([y, top]), [[2, 4], [2, 5]])
        with pytest.raises(ValueError, match="Input must have last dimension > n = 4 but is 4"):
            tf.raw_ops.NthElement(input=x, n=4)
        p = tf.placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="n must be non-negative but is -1"):
            _run(tf.raw_ops.NthElement(input=x, n=p), {p: -1})


def test_nth_element_gradient_shared_among_ties():
    x = np.array([[3., 1., 2., 2.], [5., 5., 4., -1.]])
    with tf.Graph().as_default():
        t = tf.constant(x)
        y = tf.raw_ops.NthElement(input=t, n=2)
        np.testing.assert_array_equal(_run(tf.gradients(y * [1., 2.], t)[0]), [[0, 0, 0.5, 0.5], [1, 1, 0, 0]])
    check_gradient(lambda t: tf.raw_ops.NthElement(input=t, n=1), [np.array([[0.3, 1.7, -2.0], [4.0, 0.5, 0.9]])])


def test_float16_sums_add_in_eigens_order():
    """TF's float16 Sum rounds every addition, in Eigen's order (packet lanes, four accumulators, halves of
    long rows): values recorded from TF 2.21 on uniform [0, 1) data, where float32 accumulation differs."""
    x = np.random.RandomState(0).uniform(0, 1, 100000).astype(np.float16)
    with tf.Graph().as_default():
        t = tf.constant(x)
        got = _run([tf.reduce_sum(t), tf.reduce_sum(tf.reshape(t, [100, 1000]), 1)[:4],
                    tf.reduce_sum(tf.reshape(t, [100, 1000]), 0)[:4], tf.reduce_mean(tf.reshape(t, [1000, 100]), 0)[:3],
                    tf.math.reduce_euclidean_norm(t), tf.nn.l2_loss(t), tf.cumsum(t)[-1],
                    tf.math.segment_sum(t, np.arange(100000) // 50000)])
    assert got[0] == 49920.0
    np.testing.assert_array_equal(got[1], [496.0, 511.5, 505.5, 483.75])
    np.testing.assert_array_equal(got[2], [50.53125, 43.375, 51.21875, 54.6875])
    np.testing.assert_array_equal(got[3], [0.50732421875, 0.5029296875, 0.50390625])
    assert (got[4], got[5], got[6]) == (182.375, 16640.0, 2048.0)
    np.testing.assert_array_equal(got[7], [2048.0, 2048.0])


def test_segment_sum_of_a_vector_adds_in_order():
    x = np.random.RandomState(0).uniform(0, 1, 100000).astype(np.float32)
    with tf.Graph().as_default():
        got = _run(tf.math.segment_sum(x, np.arange(100000) // 50000))
    np.testing.assert_array_equal(got, np.float32([24904.83984375, 25045.138671875]))


def test_float32_sums_add_in_eigens_order_as_tf():
    """A float32 innermost sum adds as Eigen's InnerMostDimReducer (four 8-lane packets, a tree over the
    lanes, the leftover scalars first): TF 2.21's values, where NumPy's pairwise sum differs in the last bit."""
    f = np.float32
    tp, fn = np.array([12, 12, 11, 10, 8, 8, 8, 8, 7, 6, 5, 5, 5, 4, 4, 3, 2, 1, 1, 0], f), np.array(
        [0, 0, 1, 2, 4, 4, 4, 4, 5, 6, 7, 7, 7, 8, 8, 9, 10, 11, 11, 12], f)
    tn, fp = np.array([0, 1, 2, 3, 5, 7, 7, 8, 9, 10, 10, 11, 11, 11, 13, 16, 16, 16, 17, 18], f), np.array(
        [18, 17, 16, 15, 13, 11, 11, 10, 9, 8, 8, 7, 7, 7, 5, 2, 2, 2, 1, 0], f)
    e = f(1e-6)
    rec, x = (tp + e) / ((tp + fn) + e), fp / ((fp + tn) + e)
    auc_terms = (x[:19] - x[1:]) * ((rec[:19] + rec[1:]) / f(2))  # tf.metrics.auc's trapezoids
    cases = [(auc_terms, f(0.5324074), None)]
    for n, total, mean in ((35, f(590.18677), f(16.862478)), (128, f(2928.4568), f(22.878569))):
        cases.append(((np.random.RandomState(n).rand(n).astype(f) - f(0.3)) * f(100), total, mean))
    with tf.Graph().as_default(), tf.Session() as sess:
        for values, total, mean in cases:
            p = tf.placeholder_with_default(values, values.shape)
            got_total, got_mean = sess.run([tf.reduce_sum(p), tf.reduce_mean(p)])
            assert got_total == total and (mean is None or got_mean == mean)
            assert sess.run(tf.reduce_sum(tf.stack([p, p]), 1)).tolist() == [total, total]
