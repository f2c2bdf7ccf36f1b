"""The Keras initializers of tf.layers: under TF2 behaviour a floating weight's default (glorot_uniform) and the
variance-scaling family named by string draw statelessly with a seed from Python's `random` (so they do not
take the graph seed, and a later variable's graph-seeded values are as in TF); under TF1 behaviour the names
give Keras's TF1 classes. Values recorded from TF 2.21 with the same `random.seed`. The conftest fixture puts
TF1 behaviour back after each test."""

import random

import numpy as np

import tensorweave.compat.v1 as tf


def _build() -> tuple:
    random.seed(7)
    tf.set_random_seed(3)
    dense = tf.layers.Dense(2)
    dense(tf.ones([2, 3]))
    conv = tf.layers.Conv1D(2, 2, kernel_initializer="he_normal", name="c")
    conv(tf.ones([1, 4, 2]))
    return dense, conv, tf.get_variable("v", [2])


def test_tf2_layers_draw_their_keras_initializers_statelessly() -> None:
    tf.enable_v2_behavior()
    tf.disable_eager_execution()
    dense, conv, v = _build()
    assert dense.kernel.initial_value.op.type == "AddV2"
    assert dense.kernel.initial_value.op.name == "dense/kernel/Initializer/stateless_random_uniform"
    assert conv.get_config()["kernel_initializer"] == {"module": "keras.initializers", "class_name": "HeNormal",
                                                       "config": {"seed": None}, "registered_name": None}
    rebuilt = tf.layers.Conv1D.from_config(conv.get_config()).kernel_initializer
    assert type(rebuilt).__name__ == "HeNormal" and rebuilt.get_config() == {"seed": None}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([dense.kernel, conv.kernel, v])
        # an instance keeps its seed: drawing again gives the same values
        np.testing.assert_array_equal(sess.run(dense.kernel.initial_value), got[0])
    np.testing.assert_allclose(got[0].ravel(), [-0.400015, 0.503621, 0.994479, -0.373472, -0.245979, 0.03682],
                               atol=1e-6)
    np.testing.assert_allclose(got[1].ravel(), [-0.213117, 0.224703, -0.496555, -1.402858, -1.308034, 0.526545,
                                                0.509946, -0.352639], atol=1e-6)
    np.testing.assert_allclose(got[2], [-0.912768, 0.770833], atol=1e-6)


def test_tf1_layers_keep_the_graph_seed_and_name_keras_tf1_classes() -> None:
    dense, conv, v = _build()
    assert conv.get_config()["kernel_initializer"] == {"class_name": "HeNormal", "config": {"seed": None}}
    assert isinstance(conv.kernel_initializer, tf.initializers.variance_scaling)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([dense.kernel, conv.kernel])
    np.testing.assert_allclose(got[0].ravel(), [-0.816405, 0.689454, 0.871619, 0.653093, -0.370901, -0.251982],
                               atol=1e-6)
    np.testing.assert_allclose(got[1].ravel()[:4], [-0.01892, -0.569177, 0.635598, 0.450979], atol=1e-6)
