"""crelu, swish/silu, zero_fraction and log_poisson_loss: NumPy math and TF 2.21's values and node names."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

RNG = np.random.default_rng(0)


def test_crelu():
    x = RNG.standard_normal((2, 3))
    check_op(tf.nn.crelu, [x], np.maximum(np.concatenate([x, -x], -1), 0), grad=True)
    check_op(lambda x: tf.nn.crelu(x, axis=0), [x], np.maximum(np.concatenate([x, -x], 0), 0))
    with tf.Graph().as_default():
        assert tf.nn.crelu([[1., -2]]).name == "CRelu/Relu:0"


def test_swish_and_silu():
    x = RNG.standard_normal((2, 3))
    check_op(tf.nn.swish, [x], x / (1 + np.exp(-x)), grad=True)
    check_op(lambda x, b: tf.nn.silu(x, b), [x, np.float64(0.7)], x / (1 + np.exp(-0.7 * x)), rtol=1e-12)
    check_gradient(lambda x, b: tf.nn.swish(x, b), [x, np.float64(0.7)])
    check_op(lambda x: tf.nn.swish(x), [np.array([1., -2], np.float32)],
             np.array([0.7310586, -0.23840584], np.float32), rtol=1e-6)  # TF's values
    with tf.Graph().as_default() as g:  # TF 2.21 builds it under a custom gradient
        y = tf.nn.swish(tf.constant([1.0, 2.0]))
        assert y.name == "IdentityN:0" and [op.type for op in g.get_operations()][-2:] == ["Identity", "IdentityN"]
        assert tf.gradients(y, y.op.inputs[1])[0].name == "gradients/IdentityN_grad/mul_7:0"


def test_zero_fraction():
    check_op(tf.nn.zero_fraction, [np.array([[0., 1], [2, 0]])], np.float32(0.5))
    check_op(tf.math.zero_fraction, [np.array([0, 3, 0, 0], np.int32)], np.float32(0.75))
    with tf.Graph().as_default():
        fraction = tf.nn.zero_fraction(np.zeros(3))
        assert fraction.name == "zero_fraction/fraction:0"
        assert fraction.graph.get_operation_by_name("zero_fraction/cond/count_nonzero/nonzero_count").type == "Sum"


def test_log_poisson_loss():
    targets, log_input = np.array([0.5, 2., 3.]), np.array([0.3, 1., -1.])
    plain = np.exp(log_input) - log_input * targets
    stirling = targets * np.log(targets) - targets + 0.5 * np.log(2 * np.pi * targets)
    check_op(tf.nn.log_poisson_loss, [targets, log_input], plain, grad=True)
    check_op(lambda t, x: tf.nn.log_poisson_loss(t, x, compute_full_loss=True), [targets, log_input],
             plain + np.where(targets <= 1, 0, stirling), rtol=1e-12)
    check_op(lambda t, x: tf.nn.log_poisson_loss(t, x, compute_full_loss=True),
             [np.array([0.5, 2.], np.float32), np.array([0.3, 1.], np.float32)],
             np.array([1.1998589, 1.3700882], np.float32), rtol=1e-6)  # TF's values
    with tf.Graph().as_default(), pytest.raises(ValueError, match=r"^`log_input` and `targets` must have the same "
                                                r"shape, received \(\(2,\) vs \(3,\)\)\.$"):
        tf.nn.log_poisson_loss([1., 2, 3], [1., 2])


def test_compute_average_loss_and_scale_regularization_loss():
    """TF's values (one replica): the sum over the batch size, or over `global_batch_size`."""
    check_op(tf.nn.compute_average_loss, [np.array([1., 2., 3., 4.], np.float32)], np.float32(2.5))
    check_op(lambda x, w: tf.nn.compute_average_loss(x, sample_weight=w),
             [np.array([1., 2., 3., 4.], np.float32), np.array([1., 0., 2., 1.], np.float32)], np.float32(2.75),
             grad=True)
    check_op(lambda x: tf.nn.compute_average_loss(x, sample_weight=0.5, global_batch_size=8),
             [np.array([[1., 2.], [3., 4.]], np.float32)], np.float32(0.625))
    check_op(lambda x: tf.nn.compute_average_loss(x, global_batch_size=0), [np.array([1.], np.float32)],
             np.float32(0.0))
    check_op(tf.nn.scale_regularization_loss, [np.array([1., 2.5], np.float32)], np.float32(3.5))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Expected a tensor with at least rank 1"):
            tf.nn.compute_average_loss(3.0)
        with pytest.raises(TypeError, match="global_batch_size must be an integer."):
            tf.nn.compute_average_loss([1.], global_batch_size=1.5)


def test_compute_average_loss_graph_is_tfs():
    """TF converts global_batch_size in assert_scalar's scope, multiplies the batch by the replicas, weights
    with Mul and checks that the size is non-negative."""
    with tf.Graph().as_default() as g, tf.Session() as sess:
        count = len(g.get_operations())
        tf.nn.compute_average_loss(tf.ones([4]), global_batch_size=8)
        assert [op.name for op in g.get_operations()[count + 1:count + 3]] == ["assert_scalar", "assert_integer/x"]
        tf.nn.compute_average_loss(tf.ones([4]))
        assert g.get_operation_by_name("mul").type == "Mul"
        weighted = tf.nn.compute_average_loss(tf.ones([4]), sample_weight=[1., 2., 3., 4.])
        assert weighted.op.inputs[0].op.inputs[0].op.type == "Mul" and sess.run(weighted) == 2.5
        with pytest.raises(tf.errors.InvalidArgumentError, match="global_batch_size must be non-negative."):
            tf.nn.compute_average_loss(tf.ones([4]), global_batch_size=-2)  # a static size fails when built
