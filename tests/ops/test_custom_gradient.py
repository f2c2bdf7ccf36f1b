"""tf.custom_gradient (with and without variables), tf.grad_pass_through, tf.recompute_grad and
tf.no_gradient: values as TF 2.21 gives them for the same programs."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_custom_gradient_replaces_the_gradient_and_nests() -> None:
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.log(1 + e), grad

    @tf.custom_gradient
    def two(x, y):
        def grad(da, db):
            return da * 2 + db, da * 3

        return [x * 2 + y, x * y], grad

    with tf.Graph().as_default():
        x = tf.constant([0.0, 1.0, 100.0])
        y = log1pexp(x)
        (g,) = tf.gradients(y, x)
        (gg,) = tf.gradients(g, x)
        a, b = tf.constant(2.0), tf.constant(5.0)
        p, q = two(a, b)
        gab = tf.gradients([p, q], [a, b])
        assert (y.name, y.op.type, g.name) == ("IdentityN:0", "IdentityN", "gradients/IdentityN_grad/mul:0")
        with tf.Session() as sess:
            y_v, g_v, gg_v, gab_v = sess.run([y, g, gg, gab])
    np.testing.assert_allclose(y_v, [0.6931472, 1.3132616, np.inf], rtol=1e-6)
    np.testing.assert_allclose(g_v, [0.5, 0.7310586, 1.0], rtol=1e-6)
    np.testing.assert_allclose(gg_v[:2], [0.25, 0.19661194], rtol=1e-5)
    assert gab_v == [3.0, 3.0]


def test_custom_gradient_with_variables_pass_through_and_recompute() -> None:
    with tf.Graph().as_default():
        v = tf.Variable(3.0, name="v")

        @tf.custom_gradient
        def scaled(x):
            def grad(dy, variables=None):
                assert variables == [v]
                return dy * v, [dy * x * 10]

            return x * v, grad

        @tf.custom_gradient
        def no_variables_arg(x):
            return x * v, lambda dy: dy

        gs = tf.gradients(scaled(tf.constant(2.0)), [v])
        with pytest.raises(TypeError, match="grad_fn must accept keyword argument 'variables'"):
            no_variables_arg(tf.constant(1.0))
        sign = tf.grad_pass_through(tf.sign)
        z = tf.constant([-2.0, 3.0])
        gp = tf.gradients(sign(z) * tf.constant([5.0, 7.0]), z)

        @tf.recompute_grad
        def block(x):
            return tf.sin(x) * x

        xx = tf.constant([0.5, 1.5])
        grr = tf.gradients(block(xx), xx)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            gs_v, gp_v, grr_v = sess.run([gs, gp, grr])
    assert gs_v == [20.0]
    np.testing.assert_array_equal(gp_v[0], [5.0, 7.0])
    np.testing.assert_allclose(grr_v[0], [0.9182168, 1.1036007], rtol=1e-6)


def test_no_gradient_names() -> None:
    assert tf.no_gradient is tf.NotDifferentiable and tf.NoGradient is tf.NotDifferentiable
    tf.no_gradient("TwTestNoGradientOp")
    with pytest.raises(TypeError, match="op_type must be a string"):
        tf.NoGradient(3)
