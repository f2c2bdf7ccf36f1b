"""Gradients through TensorArrays (TensorArrayGradV3 and the v3 ops' gradients): checked numerically, against
values recorded from TensorFlow 2.21 (`tf.compat.v1`), and the gradient arrays' summing of repeated writes."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tests.op_testing import check_gradient

X = np.linspace(-1.0, 1.0, 12).reshape(3, 4)


def test_unstack_read_write_stack_gradient_in_a_loop():
    def build(x, w):
        inputs = tf.TensorArray(tf.float64, size=3).unstack(x)

        def body(i, h, out):
            h = tf.tanh(tf.matmul(tf.reshape(inputs.read(i), [1, 4]), w) + h)
            return i + 1, h, out.write(i, h)

        _, h, out = tf.while_loop(lambda i, *_: i < 3, body,
                                  [0, tf.zeros([1, 4], tf.float64), tf.TensorArray(tf.float64, size=3)])
        return tf.reduce_sum(out.stack() * 2.0) + tf.reduce_sum(h)

    check_gradient(build, [X, np.linspace(-1.0, 1.0, 16).reshape(4, 4)])


def test_loop_gradient_matches_tf():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
        w = tf.constant(np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4))
        inputs = tf.TensorArray(tf.float32, size=3).unstack(x)

        def body(i, h, out):
            h = tf.tanh(tf.matmul(tf.reshape(inputs.read(i), [1, 4]), w) + h)
            return i + 1, h, out.write(i, h)

        _, h, out = tf.while_loop(lambda i, *_: i < 3, body, [0, tf.zeros([1, 4]), tf.TensorArray(tf.float32, size=3)])
        gx, gw = sess.run(tf.gradients(tf.reduce_sum(out.stack() * 2.0) + tf.reduce_sum(h), [x, w]))
    np.testing.assert_allclose(gx, [[-0.68197, -0.30861, 0.06476, 0.43812], [-1.20043, -0.54928, 0.10188, 0.75303],
                                    [-0.92216, -0.35468, 0.21279, 0.78026]], atol=2e-5)
    np.testing.assert_allclose(gw[:, :2], [[4.27157, 9.12263], [5.92799, 10.43007], [7.58442, 11.7375],
                                           [9.24084, 13.04494]], atol=2e-4)


@pytest.mark.parametrize("how", ["split_concat", "scatter_gather"])
def test_split_concat_and_scatter_gather_gradients(how):
    def build(x):
        ta = tf.TensorArray(tf.float64, size=3, clear_after_read=False)
        if how == "split_concat":
            return tf.reshape(ta.split(x, [1, 1, 1]).concat(), [3, 4]) * x
        return tf.reshape(ta.scatter([2, 0, 1], x).gather([1, 1, 2]), [3, 4]) * 3.0

    check_gradient(build, [X])


def test_repeated_reads_sum_their_gradients():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        ta = tf.TensorArray(tf.float32, size=2, clear_after_read=False).unstack(x)
        y = ta.read(0) * 2.0 + ta.read(0) * 5.0 + ta.read(1)
        grad = tf.gradients(y, x)[0]
        assert [op.type for op in grad.graph.get_operations()].count("TensorArrayGradV3") == 4
        np.testing.assert_array_equal(sess.run(grad), [[7.0, 7.0], [1.0, 1.0]])


def test_gradient_source_must_be_a_gradients_scope():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=1).write(0, tf.constant([1.0]))
        with pytest.raises(ValueError, match="Expected op/tensor name to start with gradients"):
            tf.gradients(ta.read(0), ta.flow, name="grads")


def test_gradient_array_refuses_an_aggregate_of_another_shape():
    with tf.Graph().as_default(), tf.Session() as sess:
        ta = tf.TensorArray(tf.float32, size=1, infer_shape=False)
        g = ta.grad("gradients", flow=ta.flow)
        g = g.write(0, tf.constant([1.0, 2.0])).write(0, tf.constant([1.0]))
        with pytest.raises(errors.InvalidArgumentError, match="Could not aggregate to TensorArray index 0 because "
                                                             r"the existing shape is \[2\] but the new input shape "
                                                             r"is \[1\]"):
            sess.run(g.flow)
