"""tf.layers Dense/Flatten/Dropout: variable and op names, reuse, regularization losses as TF 2.21's
legacy tf.layers (tf_keras) names them; values against NumPy."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _reg(w: tf.Tensor) -> tf.Tensor:
    return tf.reduce_sum(tf.square(w)) * 0.1


def test_dense_names_scopes_reuse_and_losses() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 3])
        y = tf.layers.dense(x, 4, kernel_regularizer=_reg, activation=tf.nn.relu)
        y2 = tf.layers.dense(x, 4)
        with tf.variable_scope("s"):
            z = tf.layers.dense(x, 4, name="d", activity_regularizer=_reg)
        layer = tf.layers.Dense(4)
        a, b = layer(x), layer(x)
        assert [v.name for v in tf.global_variables()] == [
            "dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0", "s/d/kernel:0", "s/d/bias:0",
            "dense_2/kernel:0", "dense_2/bias:0"]
        assert [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == [
            "dense/kernel/Regularizer/mul:0", "s/d/ActivityRegularizer/truediv:0"]
        assert [y.name, y2.name, z.name, a.name, b.name] == [
            "dense/Relu:0", "dense_1/BiasAdd:0", "s/d/BiasAdd:0", "dense_2/BiasAdd:0", "dense_2/BiasAdd_1:0"]
        assert layer.trainable_weights == [layer.kernel, layer.bias] and layer.non_trainable_weights == []
        with tf.variable_scope("s", reuse=True):
            shared = tf.layers.dense(x, 4, name="d", reuse=True)
        assert len(tf.global_variables()) == 8 and shared.name == "s_1/d/BiasAdd:0"


def test_dense_values_rank3_flatten_dropout() -> None:
    rs = np.random.RandomState(0)
    x = rs.randn(2, 5, 3).astype(np.float32)
    kernel = rs.randn(3, 2).astype(np.float32)
    with tf.Graph().as_default():
        y = tf.layers.dense(tf.constant(x), 2, kernel_initializer=tf.constant_initializer(kernel),
                            bias_initializer=tf.constant_initializer(0.5))
        flat = tf.layers.flatten(tf.constant(x))
        training = tf.placeholder(tf.bool, [])
        dropped = tf.layers.dropout(tf.ones([100, 10]), rate=0.5, training=training, seed=1)
        assert y.shape.as_list() == [2, 5, 2] and flat.name == "flatten/Reshape:0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y), x @ kernel + 0.5, rtol=1e-5)
            np.testing.assert_array_equal(sess.run(flat), x.reshape(2, 15))
            np.testing.assert_array_equal(sess.run(dropped, {training: False}), np.ones([100, 10]))
            on = sess.run(dropped, {training: True})
            assert set(np.unique(on)) <= {0.0, 2.0} and 0.3 < (on == 0).mean() < 0.7


def test_dense_on_rank3_input_is_keras_tensordot() -> None:
    """Keras' Dense contracts a rank > 2 input with tensordot: TF 2.21 names the output dense/Tensordot."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3, 4])
        y = tf.layers.dense(x, 6, use_bias=False, kernel_initializer=tf.ones_initializer())
        assert y.name == "dense/Tensordot:0" and y.shape.as_list() == [None, 3, 6]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
            np.testing.assert_allclose(sess.run(y, {x: value}), value @ np.ones([4, 6]))


def test_a_layer_call_makes_the_update_ops_collection_as_tf():
    """TF 2.21's layers take UPDATE_OPS by reference on every call: the key exists even when empty."""
    with tf.Graph().as_default() as g:
        tf.layers.dense(tf.ones([1, 2]), 3)
        assert "update_ops" in g.get_all_collection_keys() and tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []


def test_layer_dtype_comes_from_integer_inputs_and_dense_refuses_it() -> None:
    with tf.Graph().as_default():
        ints = tf.placeholder(tf.int32, [None, 4, 4, 2])
        with pytest.raises(TypeError, match=r"^A Dense layer can only be built with a floating-point dtype\. "
                                            r"Received: dtype=<dtype: 'int64'>$"):
            tf.layers.dense(tf.placeholder(tf.int64, [None, 2]), 3)
        conv = tf.layers.conv2d(ints, 2, 3)
        assert conv.dtype == tf.int32 and tf.layers.flatten(ints).dtype == tf.int32
        assert tf.layers.Dense(3, dtype=tf.float32)(tf.placeholder(tf.int32, [None, 2])).dtype == tf.float32
        for rate in [-0.1, 1.5]:
            with pytest.raises(ValueError, match=rf"^Invalid value {rate} received for `rate`, expected a value "
                                                 r"between 0 and 1\.$"):
                tf.layers.Dropout(rate=rate)
