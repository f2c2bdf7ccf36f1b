"""tf.layers' 3-D convolution and pooling layers: variable names and shapes, op names and values recorded
from TF 2.21 (tf.compat.v1.layers)."""

import numpy as np

import tensorweave.compat.v1 as tf

X = ((np.arange(1 * 3 * 4 * 4 * 2) % 7 - 3) / 4).astype(np.float32).reshape(1, 3, 4, 4, 2)


def test_conv3d_and_pool3d_layers_as_tf():
    with tf.Graph().as_default():
        y = tf.layers.conv3d(X, 2, (2, 2, 3), strides=(1, 2, 1), padding="same",
                             kernel_initializer=tf.constant_initializer(0.1),
                             bias_initializer=tf.constant_initializer(0.5))
        t = tf.layers.conv3d_transpose(X, 3, 2, strides=2, padding="valid",
                                       kernel_initializer=tf.constant_initializer(0.1))
        c = tf.layers.conv3d(np.transpose(X, (0, 4, 1, 2, 3)), 2, 2, data_format="channels_first",
                             kernel_initializer=tf.constant_initializer(0.1))
        m = tf.layers.max_pooling3d(X, 2, 2, padding="same")
        a = tf.layers.average_pooling3d(X, (1, 2, 2), (1, 2, 1))
        ph = tf.placeholder(tf.float32, [None, 3, None, 4, 2])
        d = tf.layers.Conv3DTranspose(2, (2, 3, 1), strides=(1, 2, 3), padding="same", name="tr")(ph)
        assert [(v.name, v.shape.as_list()) for v in (y, t, c, m, a, d)] == [
            ("conv3d/BiasAdd:0", [1, 3, 2, 4, 2]), ("conv3d_transpose/BiasAdd:0", [1, 6, 8, 8, 3]),
            ("conv3d_1/BiasAdd:0", [1, 2, 2, 3, 3]), ("max_pooling3d/MaxPool3D:0", [1, 2, 2, 2, 2]),
            ("average_pooling3d/AvgPool3D:0", [1, 3, 2, 3, 2]), ("tr/BiasAdd:0", [None, 3, None, 12, 2])]
        assert [(v.name, v.shape.as_list()) for v in tf.global_variables()] == [
            ("conv3d/kernel:0", [2, 2, 3, 2, 2]), ("conv3d/bias:0", [2]), ("conv3d_transpose/kernel:0", [2, 2, 2, 3, 2]),
            ("conv3d_transpose/bias:0", [3]), ("conv3d_1/kernel:0", [2, 2, 2, 2, 2]), ("conv3d_1/bias:0", [2]),
            ("tr/kernel:0", [2, 3, 1, 2, 2]), ("tr/bias:0", [2])]
        graph = tf.get_default_graph()
        assert graph.get_operation_by_name("conv3d/Conv3D").type == "Conv3D"
        assert graph.get_operation_by_name("conv3d_transpose/conv3d_transpose").type == "Conv3DBackpropInputV2"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([y, t, m, a, c])
            shaped = sess.run(d, {ph: np.ones((2, 3, 5, 4, 2), np.float32)})
    assert shaped.shape == (2, 3, 10, 12, 2)
    firsts = [[0.375, 0.375, 0.475, 0.475, 0.45, 0.45, 0.575, 0.575, 0.475, 0.475, 0.45, 0.45],
              [-0.125] * 6 + [-0.025] * 6,
              [0.75] * 8 + [0.25, 0.5, 0.75, 0.75],
              [-0.375, -0.125, 0.125, 0.375, 0.1875, 0.0, 0.125, 0.375, 0.1875, 0.0, -0.1875, -0.375],
              [-0.125, -0.025, 0.075, -0.075, 0.025, 0.125, -0.025, 0.075, 0.0, 0.075, 0.0, -0.075]]
    for value, first, total in zip(values, firsts, [23.85, -3.0, 10.0, 0.1875, -0.05]):
        np.testing.assert_allclose(value.reshape(-1)[:12], first, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(value.sum(), total, rtol=1e-4, atol=1e-5)
