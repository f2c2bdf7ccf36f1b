"""The whitepaper's Figure 1 program and a hand-written linear regression, against NumPy."""

import numpy as np

import tensorweave.compat.v1 as tf


def test_figure1_relu_layer_ten_runs():
    b = tf.Variable(tf.zeros([100]))                       # 100-d vector, init to zeroes
    W = tf.Variable(tf.random_uniform([784, 100], -1, 1))  # 784x100 matrix w/rnd vals
    x = tf.placeholder(tf.float32, name="x")               # placeholder for input
    relu = tf.nn.relu(tf.matmul(x, W) + b)                 # Relu(Wx+b)
    C = tf.reduce_sum(relu)                                # cost computed as a function of Relu
    rng = np.random.default_rng(0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        W_value, b_value = s.run([W, b])
        assert W_value.shape == (784, 100) and np.all(np.abs(W_value) <= 1) and W_value.std() > 0.5
        assert not b_value.any()
        for _ in range(10):
            inputs = rng.random((100, 784), dtype=np.float32)
            result, relu_value = s.run([C, relu], feed_dict={x: inputs})
            expected = np.maximum(inputs @ W_value + b_value, 0)
            np.testing.assert_allclose(relu_value, expected, rtol=1e-5)
            np.testing.assert_allclose(result, expected.sum(), rtol=1e-4)


def test_linear_regression_with_hand_written_updates():
    """y = 3x + 2 fitted by gradient descent whose gradients and updates are written by hand."""
    rng = np.random.default_rng(1)
    xs = rng.random(64, dtype=np.float32)
    ys = (3 * xs + 2).astype(np.float32)
    x = tf.placeholder(tf.float32, shape=[None])
    y = tf.placeholder(tf.float32, shape=[None])
    w = tf.Variable(0.0)
    b = tf.Variable(0.0)
    error = w * x + b - y
    loss = tf.reduce_mean(error * error)
    learning_rate = 0.5
    grad_w = tf.reduce_mean(2.0 * error * x)
    grad_b = tf.reduce_mean(2.0 * error)
    train = tf.group(tf.assign_sub(w, learning_rate * grad_w), tf.assign_sub(b, learning_rate * grad_b))

    w_np = b_np = np.float32(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(200):
            err = w_np * xs + b_np - ys
            gw, gb = np.mean(2 * err * xs, dtype=np.float32), np.mean(2 * err, dtype=np.float32)
            _, loss_value = sess.run([train, loss], {x: xs, y: ys})
            w_np, b_np = np.float32(w_np - 0.5 * gw), np.float32(b_np - 0.5 * gb)
        w_value, b_value = sess.run([w, b])
    np.testing.assert_allclose([w_value, b_value], [w_np, b_np], rtol=1e-4)
    np.testing.assert_allclose([w_value, b_value], [3.0, 2.0], atol=0.05)
