"""tf.nn.experimental.stateless_dropout and general_dropout: masks and names recorded from TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_stateless_and_general_dropout() -> None:
    with tf.Graph().as_default():
        x = tf.ones([3, 4])
        a = tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2])
        b = tf.nn.experimental.stateless_dropout(x, tf.constant(0.25), seed=tf.constant([7, 3], tf.int64),
                                                 noise_shape=[3, 1])
        c = tf.nn.experimental.stateless_dropout(x, 0.0, seed=[1, 2])
        d = tf.nn.experimental.general_dropout(
            x, 0.5, lambda shape, dtype: tf.random.stateless_uniform(shape, [4, 4], dtype=dtype))
        assert [t.name for t in (a, b, c, d)] == ["stateless_dropout/SelectV2:0", "stateless_dropout_1/SelectV2:0",
                                                  "ones:0", "general_dropout/SelectV2:0"]
        with pytest.raises(ValueError, match=r"`rate` must be a scalar tensor or a float in the range \[0, 1\)\. "
                                             r"Received: rate=1.0"):
            tf.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 2])
        grad = tf.gradients(tf.reduce_sum(a * 3.), x)[0]
        with tf.Session() as s:
            got_a, got_b, got_d, got_grad = s.run([a, b, d, grad])
            again = s.run(a)
    mask = np.array([[1, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 0]], np.float32)
    np.testing.assert_array_equal(got_a, 2 * mask)
    np.testing.assert_array_equal(again, got_a)  # stateless: the same mask every run
    np.testing.assert_allclose(got_b, np.full([3, 4], 4 / 3), rtol=1e-6)
    np.testing.assert_array_equal(got_d, [[2, 2, 2, 2], [0, 2, 2, 2], [0, 2, 0, 0]])
    np.testing.assert_array_equal(got_grad, 6 * mask)
