"""Fused batch norm, LRN and the moment composites of tf.nn; expected values are NumPy math or literals
recorded from TF 2.21 (marked), errors TF's."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 2, 4)).astype(np.float32)
SCALE = np.array([1., 2, 3, 4], np.float32)
OFFSET = np.array([.1, .2, .3, .4], np.float32)
MEAN = np.array([0.5, -0.5, 0, 1], np.float32)
VAR = np.array([1., 2, 3, 4], np.float32)


def _normalized(x, mean, var, eps):
    return (x - mean) / np.sqrt(var + eps) * SCALE + OFFSET


def test_fused_batch_norm_training_and_inference():
    mean, var = X.mean(axis=(0, 1, 2)), X.var(axis=(0, 1, 2))
    check_op(lambda x, s, o: tf.nn.fused_batch_norm(x, s, o), [X, SCALE, OFFSET],
             [_normalized(X, mean, var, 1e-3), mean, var * 12 / 11], rtol=1e-5, atol=1e-5)
    check_op(lambda x, s, o, m, v: tf.nn.fused_batch_norm(x, s, o, m, v, epsilon=1e-4, is_training=False),
             [X, SCALE, OFFSET, MEAN, VAR], [_normalized(X, MEAN, VAR, 1e-4), MEAN, VAR], rtol=1e-5, atol=1e-5)
    nchw = X.transpose(0, 3, 1, 2)
    check_op(lambda x, s, o: tf.nn.fused_batch_norm(x, s, o, data_format="NCHW"), [nchw, SCALE, OFFSET],
             [_normalized(X, mean, var, 1e-3).transpose(0, 3, 1, 2), mean, var * 12 / 11], rtol=1e-5, atol=1e-5)
    x5 = X[:, None]
    check_op(lambda x, s, o: tf.nn.fused_batch_norm(x, s, o, data_format="NDHWC")[0], [x5, SCALE, OFFSET],
             _normalized(x5, mean, var, 1e-3), rtol=1e-5, atol=1e-5)
    half = X.astype(np.float16)
    check_op(lambda x, s, o: tf.nn.fused_batch_norm(x, s, o)[0], [half, SCALE, OFFSET],
             _normalized(half.astype(np.float32), half.astype(np.float32).mean(axis=(0, 1, 2)),
                         half.astype(np.float32).var(axis=(0, 1, 2)), 1e-3).astype(np.float16))


def test_fused_batch_norm_v3_outputs_recorded_from_tf():
    """exponential_avg_factor 0.3: running statistics blended; reserve spaces hold the batch mean and biased
    variance; reserve_space_3 is empty (TF 2.21's values)."""
    batch_mean = np.array([-0.4561182, 0.1434067, 0.15592386, 0.43454465], np.float32)
    batch_var = np.array([0.5961477, 0.5229164, 0.87846, 0.67444617], np.float32)
    check_op(lambda *a: tf.raw_ops.FusedBatchNormV3(x=a[0], scale=a[1], offset=a[2], mean=a[3], variance=a[4],
                                                    exponential_avg_factor=0.3)[1:5],
             [X, SCALE, OFFSET, MEAN, VAR],
             [np.array([0.21316452, -0.306978, 0.04677716, 0.8303634], np.float32),
              np.array([0.89510286, 1.5711362, 2.387496, 3.0207279], np.float32), batch_mean, batch_var],
             rtol=1e-5)
    with tf.Graph().as_default():
        outs = tf.raw_ops.FusedBatchNormV3(x=X, scale=SCALE, offset=OFFSET, mean=MEAN, variance=VAR,
                                           is_training=False)
        assert outs[5].shape.ndims is None
        with tf.Session() as sess:
            values = sess.run(outs)
        np.testing.assert_array_equal(values[3], MEAN)
        np.testing.assert_array_equal(values[4], VAR)
        assert values[5].shape == (0,)


@pytest.mark.parametrize("is_training", [True, False])
@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
def test_fused_batch_norm_gradients(is_training, data_format):
    x = RNG.standard_normal((2, 3, 3, 2)).astype(np.float32)
    if data_format == "NCHW":
        x = x.transpose(0, 3, 1, 2)
    weights = RNG.standard_normal(x.shape).astype(np.float32)
    stats = [np.array([0.2, -0.1], np.float32), np.array([1.5, 0.5], np.float32)]

    def build(x, s, o):
        mean, var = (stats if not is_training else (None, None))
        return tf.nn.fused_batch_norm(x, s, o, mean, var, is_training=is_training, data_format=data_format)[0] * weights

    check_gradient(build, [x, np.array([1.5, 0.7], np.float32), np.array([0.1, -0.2], np.float32)], max_error=2e-2)


def test_fused_batch_norm_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Both `mean` and `variance` must be a 1D tensor when `is_training` "
                           r"is False or `exponential_avg_factor` != 1\.0\. Received: `mean` None and `variance` None"):
            tf.nn.fused_batch_norm(X, SCALE, OFFSET, is_training=False)
        with pytest.raises(ValueError, match=r"Shape must be rank 4 but is rank 3"):
            tf.nn.fused_batch_norm(X[0], SCALE, OFFSET)
        with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 4 and 3"):
            tf.nn.fused_batch_norm(X, SCALE[:3], OFFSET)
        with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 4 and 3"):
            tf.nn.fused_batch_norm(X, SCALE, OFFSET, MEAN[:3], VAR, is_training=False)
        x, s = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        y = tf.nn.fused_batch_norm(x, s, OFFSET)[0]
        assert y.shape.as_list() == [None, None, None, 4]
        with tf.Session() as sess:
            for feed, message in (({x: X[0], s: SCALE}, r"input must be 4-dimensional\[3,2,4\]"),
                                  ({x: X, s: SCALE[:, None]}, r"scale must be 1-dimensional\[4,1\]"),
                                  ({x: X, s: SCALE[:3]}, r"scale must have the same number of elements as the "
                                   r"channels of x, got 3 and 4")):
                with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                    sess.run(y, feed)


def _lrn(x, radius, bias, alpha, beta):
    squares = np.square(x)
    sums = np.stack([squares[..., max(0, d - radius):d + radius + 1].sum(-1) for d in range(x.shape[-1])], -1)
    return x / (bias + alpha * sums) ** beta


def test_lrn_values_and_gradient():
    x = RNG.standard_normal((2, 2, 3, 7)).astype(np.float32)
    check_op(lambda x: tf.nn.lrn(x, depth_radius=2, bias=0.5, alpha=0.3, beta=0.75), [x],
             _lrn(x, 2, 0.5, 0.3, 0.75), rtol=1e-5)
    check_op(lambda x: tf.nn.local_response_normalization(x), [x], _lrn(x, 5, 1, 1, 0.5), rtol=1e-5)
    check_op(lambda x: tf.nn.lrn(x, 1, alpha=0.5), [x.astype(np.float64).astype(np.float16)],
             _lrn(x.astype(np.float16).astype(np.float32), 1, 1, 0.5, 0.5).astype(np.float16), atol=2e-3)
    check_gradient(lambda x: tf.nn.lrn(x, depth_radius=2, bias=0.5, alpha=0.3, beta=0.75), [x])
    with tf.Graph().as_default(), pytest.raises(ValueError, match=r"Shape must be rank 4 but is rank 3"):
        tf.nn.lrn(x[0])


def test_lrn_refuses_a_negative_depth_radius_when_run():
    """TF's LRN kernel bounds depth_radius as a non-negative int: InvalidArgumentError at run time."""
    with tf.Graph().as_default(), tf.Session() as sess:
        y = tf.nn.lrn(tf.ones([1, 1, 1, 3]), depth_radius=-1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="depth_radius = -1 larger than int max"):
            sess.run(y)


def test_lrn_has_cpu_kernels_for_half_and_float_only():
    """TF registers LRN (and LRNGrad) on CPU for half and float: a bfloat16 LRN fails placement when run."""
    with tf.Graph().as_default(), tf.Session() as sess:
        half = tf.cast(np.ones((1, 1, 1, 2)), tf.float16)
        assert sess.run(tf.gradients(tf.nn.lrn(half, 1), half)[0]).dtype == np.float16
    with tf.Graph().as_default(), tf.Session() as sess:
        y = tf.nn.lrn(tf.cast(np.ones((1, 1, 1, 2)), tf.bfloat16))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"No OpKernel was registered to support Op 'LRN' used by \{\{node LRN\}\} with these "
                                 r"attrs: \[.*T=DT_BFLOAT16.*\]\nRegistered devices: \[CPU\]\nRegistered kernels:\n"
                                 r"(.*\n)*  device='CPU'; T in \[DT_HALF\]\n  device='CPU'; T in \[DT_FLOAT\]\n"):
            sess.run(y)


def test_lrn_gradient_recorded_from_tf():
    """tf.gradients(lrn(x) * w) at TF 2.21's x and w (first seven values)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 2, 7)).astype(np.float32)
    w = rng.standard_normal((1, 2, 2, 7)).astype(np.float32)
    with tf.Graph().as_default():
        xt = tf.constant(x)
        grad = tf.gradients(tf.nn.lrn(xt, depth_radius=2, bias=0.5, alpha=0.3, beta=0.75) * w, xt)[0]
        with tf.Session() as sess:
            value = sess.run(grad)
    np.testing.assert_allclose(value.reshape(-1)[:7], [0.17160659, -0.27746105, 1.3849959, 0.04735446, -0.6570977,
                                                       1.4709051, 0.6801208], rtol=1e-5)


def test_batch_norm_with_global_normalization():
    want = (X - MEAN) / np.sqrt(VAR + 1e-3)
    check_op(lambda t, m, v, b, g: tf.nn.batch_norm_with_global_normalization(t, m, v, b, g, 1e-3, False),
             [X, MEAN, VAR, OFFSET, SCALE], want + OFFSET, rtol=1e-5, atol=1e-6)
    check_op(lambda t, m, v, b, g: tf.nn.batch_norm_with_global_normalization(
        input=t, mean=m, variance=v, beta=b, gamma=g, variance_epsilon=1e-3, scale_after_normalization=True),
             [X, MEAN, VAR, OFFSET, SCALE], want * SCALE + OFFSET, rtol=1e-5, atol=1e-6)


def test_sufficient_statistics_and_normalize_moments():
    x = RNG.standard_normal((3, 4, 5))
    shift = np.full((4,), 0.5)
    check_op(lambda x: tf.nn.sufficient_statistics(x, [0, 2])[:3], [x],
             [np.float64(15), x.sum((0, 2)), np.square(x).sum((0, 2))])
    check_op(lambda x, s: tf.nn.sufficient_statistics(x, [0, -1], shift=s[:, None], keepdims=True)[:3],
             [x, shift], [np.float64(15), (x - 0.5).sum((0, 2), keepdims=True),
                          np.square(x - 0.5).sum((0, 2), keepdims=True)], rtol=1e-12)
    check_op(lambda x: tf.nn.normalize_moments(*tf.nn.sufficient_statistics(x, [0, 2])), [x],
             [x.mean((0, 2)), x.var((0, 2))], rtol=1e-10)
    check_op(lambda x, s: tf.nn.normalize_moments(*tf.nn.sufficient_statistics(x, [0, 2], shift=s[:, None])[:3],
                                                  shift=s),
             [x, shift], [x.mean((0, 2)), x.var((0, 2))], rtol=1e-10)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 4])
        counts, _, _, _ = tf.nn.sufficient_statistics(p, [0])
        assert counts.op.name == "sufficient_statistics/count"
        with tf.Session() as sess:
            assert sess.run(counts, {p: np.zeros((6, 4))}) == 6


def test_weighted_moments():
    x = RNG.standard_normal((4, 3))
    w = np.array([[1.], [0], [2], [3]])
    mean = (w * x).sum(0) / w.sum()
    check_op(lambda x, w: tf.nn.weighted_moments(x, [0], w), [x, w], [mean, (w * (x - mean) ** 2).sum(0) / 6],
             rtol=1e-10)
    check_op(lambda x, w: tf.nn.weighted_moments(x, [0], w, keep_dims=True)[0], [x, np.zeros((4, 1))],
             np.zeros((1, 3)))
    check_op(lambda x: tf.nn.weighted_moments(x, [0, 1], 2.0)[1], [x.astype(np.float16)],
             np.float16(x.astype(np.float16).astype(np.float32).var()), rtol=1e-3)
