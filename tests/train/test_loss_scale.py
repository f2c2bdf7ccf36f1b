"""tf.train.experimental loss scaling, against literals recorded from TF 2.21's tf.compat.v1."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_dynamic_loss_scale_skips_non_finite_steps_and_halves() -> None:
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0])
        x = tf.placeholder(tf.float32, [2])
        opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                                                     loss_scale="dynamic")
        train = opt.minimize(tf.reduce_sum(w * x))
        scale = opt._loss_scale
        assert type(scale).__name__ == "DynamicLossScale"
        assert [v.name for v in tf.global_variables()] == ["Variable:0", "current_loss_scale:0", "good_steps:0"]
        assert [v.name for v in tf.trainable_variables()] == ["Variable:0"]
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            assert session.run(scale()) == 32768.0
            seen = []
            for feed in [[1.0, 1.0], [np.inf, 1.0], [1.0, 2.0], [np.nan, 0.0]]:
                session.run(train, {x: feed})
                seen.append((session.run(w), float(session.run(scale()))))
        expected = [([0.9, 1.9], 32768.0), ([0.9, 1.9], 16384.0), ([0.8, 1.7], 16384.0), ([0.8, 1.7], 8192.0)]
        for (weights, value), (want_weights, want_value) in zip(seen, expected):  # TF 2.21, float32 updates
            np.testing.assert_allclose(weights, want_weights, rtol=1e-6)
            assert value == want_value


def test_dynamic_loss_scale_grows_after_increment_period() -> None:
    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        scale = tf.train.experimental.DynamicLossScale(initial_loss_scale=4, increment_period=2, multiplier=2.0)
        assert scale.get_config() == {"initial_loss_scale": 4.0, "increment_period": 2, "multiplier": 2.0}
        opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(tf.train.GradientDescentOptimizer(0.5), scale)
        train = opt.minimize(w * 3.0)
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            scales = []
            for _ in range(5):
                session.run(train)
                scales.append(float(session.run(scale())))
            assert scales == [4.0, 8.0, 8.0, 16.0, 16.0]
            assert session.run(w) == pytest.approx(1.0 - 5 * 1.5)


def test_fixed_loss_scale_and_graph_rewrite_wrapper() -> None:
    with tf.Graph().as_default():
        fixed = tf.train.experimental.FixedLossScale(128.0)
        assert fixed.get_config() == {"loss_scale_value": 128.0} and repr(fixed) == "FixedLossScale(128.0)"
        with pytest.raises(ValueError, match="loss_scale_value must be at least 1."):
            tf.train.experimental.FixedLossScale(0.5)
        w = tf.Variable([1.0, 2.0])
        opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(tf.train.GradientDescentOptimizer(0.1),
                                                                         loss_scale=64)
        assert isinstance(opt, tf.train.experimental.MixedPrecisionLossScaleOptimizer)
        assert tf.mixed_precision.MixedPrecisionLossScaleOptimizer is type(opt)
        with pytest.raises(ValueError, match="must not already be an instance"):
            tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)
        grads = opt.compute_gradients(tf.reduce_sum(w * w))
        train = opt.apply_gradients(grads)
        with tf.Session() as session:
            session.run(tf.global_variables_initializer())
            np.testing.assert_allclose(session.run(grads[0][0]), [2.0, 4.0])
            session.run(train)
            np.testing.assert_allclose(session.run(w), [0.8, 1.6])
        tf.train.experimental.disable_mixed_precision_graph_rewrite()
        assert not tf.config.optimizer.get_experimental_options()["auto_mixed_precision"]
