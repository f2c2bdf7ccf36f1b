"""Keras names for a layer's activation and initializers, as TF's tf.layers accept them (TF 2.21 literals)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_activation_names() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5])
        names = {}
        for act in ["relu", "sigmoid", "softmax", "linear", "swish", "exponential", "hard_sigmoid", "leaky_relu"]:
            layer = tf.layers.Dense(3, activation=act)
            names[act] = (layer(x).name, layer.get_config()["activation"])
        assert names == {"relu": ("dense/Relu:0", "relu"), "sigmoid": ("dense_1/Sigmoid:0", "sigmoid"),
                         "softmax": ("dense_2/Softmax:0", "softmax"), "linear": ("dense_3/BiasAdd:0", "linear"),
                         "swish": ("dense_4/IdentityN:0", "swish"), "exponential": ("dense_5/Exp:0", "exponential"),
                         "hard_sigmoid": ("dense_6/clip_by_value:0", "hard_sigmoid"),
                         "leaky_relu": ("dense_7/LeakyRelu:0", "leaky_relu")}
        assert tf.layers.Conv2D(2, 2, activation="relu")(tf.ones([1, 3, 3, 1])).name == "conv2d/Relu:0"
        with pytest.raises(ValueError, match="Unknown activation function: 'foo'. Please ensure you are using a "):
            tf.layers.Dense(3, activation="foo")


def test_initializer_names() -> None:
    with tf.Graph().as_default():
        x = tf.ones([2, 2])
        y = tf.layers.dense(x, 3, activation="relu", kernel_initializer="ones", bias_initializer="zeros")
        bn = tf.layers.batch_normalization(x, gamma_initializer="zeros", training=True)
        assert isinstance(tf.layers.Dense(3, kernel_initializer="glorot_uniform").kernel_initializer,
                          tf.glorot_uniform_initializer)
        with pytest.raises(ValueError, match="Unknown initializer: 'foo'. Please ensure"):
            tf.layers.Dense(3, kernel_initializer="foo")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(s.run(y), [[2., 2., 2.], [2., 2., 2.]])
            np.testing.assert_array_equal(s.run(bn), np.zeros([2, 2]))


def test_negative_units() -> None:
    with pytest.raises(ValueError, match="^Received an invalid value for `units`, expected a positive integer. "
                                         "Received: units=-1$"):
        tf.layers.Dense(-1)
