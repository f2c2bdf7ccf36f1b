"""`check_op` itself: it passes an op that is right and fails one whose value, dtype or static shape is wrong."""

import numpy as np
import pytest
from op_testing import check_op, check_tensor, devices, tolerance

import tensorweave.compat.v1 as tf

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_devices_are_the_sessions():
    assert devices() == ("/job:localhost/replica:0/task:0/device:CPU:0",)


@pytest.mark.parametrize("inputs_as", ["constant", "placeholder"])
def test_a_right_op_passes_on_every_device(inputs_as):
    results = check_op(lambda x, y: x * y, [X, X], X * X, inputs_as=inputs_as)
    assert len(results) == len(devices())
    np.testing.assert_array_equal(results[0][0], X * X)


def test_several_outputs_and_literals():
    check_op(lambda x: tf.unstack(x), [X], [[0, 1, 2], [3, 4, 5]], dtype=np.float32)
    check_op(lambda s: s[1], [np.array([b"a", b"bc"], object)], np.array(b"bc", object))


def test_the_op_is_placed_on_the_device():
    def build(x):
        y = tf.identity(x)
        assert y.device == devices()[0]
        return y
    check_op(build, [X], X)


def test_tolerance_is_by_dtype():
    assert tolerance(np.float32) == (1e-6, 1e-6) and tolerance(np.int32) is None
    check_op(lambda x: x + 1e-7, [X], X)
    with pytest.raises(AssertionError):
        check_op(lambda x: x + 1e-3, [X], X)
    with pytest.raises(AssertionError):
        check_op(lambda x: x + 1, [X.astype(np.int32)], X.astype(np.int32))


def _claiming_shape(x, shape):
    """`x` under a static shape that its value does not have, as a wrong shape function would give."""
    y = tf.placeholder_with_default(x, None)
    y.set_shape(shape)
    return y


@pytest.mark.parametrize("build, expected, message", [
    (lambda x: tf.cast(x, tf.float64), X, "static dtype float64, expected float32"),
    (lambda x: tf.reshape(x, [3, 2]), X, r"fetched shape \(3, 2\), expected \(2, 3\)"),
    (lambda x: tf.placeholder_with_default(x, [None, 3]), X, r"static shape \(\?, 3\) is not fully defined"),
    (lambda x: _claiming_shape(x, [3, 2]), X, r"static shape \(3, 2\) does not admit the runtime shape \(2, 3\)"),
])
def test_a_wrong_op_fails(build, expected, message):
    with pytest.raises(AssertionError, match=message):
        check_op(build, [X], expected)


def test_a_literal_needs_a_dtype():
    with pytest.raises(TypeError, match="pass dtype="):
        check_op(lambda x: x, [X], [[0.0, 1, 2], [3, 4, 5]])


def test_partial_static_shapes_when_asked():
    check_op(lambda x: tf.placeholder_with_default(x, [None, 3]), [X], X, fully_defined=False)
    check_tensor(tf.placeholder_with_default(X, [None, None]), X, fully_defined=False)


def test_the_gradient_hook_checks_the_numeric_gradient():
    check_op(lambda x: tf.square(x), [X], np.square(X), grad=True)

    def wrong_gradient(x: tf.Tensor) -> tf.Tensor:
        with tf.get_default_graph().gradient_override_map({"Square": "Neg"}):
            return tf.square(x)

    with pytest.raises(AssertionError, match="gradient of Square:0 by input 0"):
        check_op(wrong_gradient, [X], np.square(X), grad=True)
