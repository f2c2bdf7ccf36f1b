"""dilation2d and erosion2d against their definition (a loop over every output, on small shapes), their
gradients numerically, ties routed as TF routes them (TF's values), static shapes and TF's errors."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

RNG = np.random.default_rng(5)


def _dilation_reference(x, f, strides, rates, padding):
    n, h, w, c = x.shape
    kh, kw, _ = f.shape
    eh, ew = (kh - 1) * rates[0] + 1, (kw - 1) * rates[1] + 1
    if padding == "SAME":
        oh, ow = -(-h // strides[0]), -(-w // strides[1])
        top = max(0, (oh - 1) * strides[0] + eh - h) // 2
        left = max(0, (ow - 1) * strides[1] + ew - w) // 2
    else:
        oh, ow, top, left = (h - eh) // strides[0] + 1, (w - ew) // strides[1] + 1, 0, 0
    out = np.full((n, oh, ow, c), -np.inf)
    for i, j, a, b in np.ndindex(oh, ow, kh, kw):
        y, z = i * strides[0] - top + a * rates[0], j * strides[1] - left + b * rates[1]
        if 0 <= y < h and 0 <= z < w:
            out[:, i, j] = np.maximum(out[:, i, j], x[:, y, z] + f[a, b])
    return out


@pytest.mark.parametrize("kernel, strides, rates, padding", [
    ((3, 2), (1, 1), (1, 1), "SAME"), ((2, 3), (2, 1), (1, 2), "VALID"), ((2, 2), (1, 1), (2, 2), "SAME"),
    ((3, 3), (2, 2), (1, 1), "SAME"),
])
def test_dilation2d_and_erosion2d(kernel, strides, rates, padding):
    # every x distinct by >= 0.1 and every filter value < 0.09 apart: the maxima win by >= 0.003, so the
    # central differences never cross a kink
    x = RNG.permutation(5 * 6 * 2).reshape(1, 5, 6, 2) * 0.1
    f = RNG.permutation(kernel[0] * kernel[1] * 2).reshape(*kernel, 2) * 0.003
    s, r = [1, *strides, 1], [1, *rates, 1]
    check_op(lambda x, f: tf.nn.dilation2d(x, f, s, r, padding), [x, f], _dilation_reference(x, f, strides, rates,
                                                                                             padding), grad=True)
    erosion = -_dilation_reference(-x, f[::-1, ::-1], strides, rates, padding)
    check_op(lambda x, f: tf.nn.erosion2d(x, f, s, r, padding), [x, f], erosion)
    check_gradient(lambda x, f: tf.nn.erosion2d(x, f, s, r, padding), [x, f])


def test_dilation2d_ties_go_to_the_first_tap():
    """TF's gradients where several taps tie: the first in row-major order takes the whole gradient."""
    x = np.array([[[[1.0], [1.0]], [[1.0], [0.0]]]], np.float32)
    f = np.zeros((2, 2, 1), np.float32)
    with tf.Graph().as_default():
        xt, ft = tf.constant(x), tf.constant(f)
        y = tf.nn.dilation2d(xt, ft, [1, 1, 1, 1], [1, 1, 1, 1], "SAME")
        grad_x, grad_f = tf.gradients(y, [xt, ft])
        with tf.Session() as sess:
            got_x, got_f = sess.run([grad_x, grad_f])
    np.testing.assert_array_equal(got_x, np.ones((1, 2, 2, 1)))
    np.testing.assert_array_equal(got_f, [[[4.0], [0.0]], [[0.0], [0.0]]])


def test_dilation2d_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="^Dimensions must be equal, but are 3 and 2 for '{{node Dilation2D}}"):
            tf.nn.dilation2d(np.zeros((1, 4, 4, 3), np.float32), np.zeros((2, 2, 2), np.float32), [1] * 4, [1] * 4,
                             "SAME")
        with pytest.raises(ValueError, match="^Shape must be rank 3 but is rank 4"):
            tf.nn.dilation2d(np.zeros((1, 4, 4, 3), np.float32), np.zeros((2, 2, 3, 1), np.float32), [1] * 4,
                             [1] * 4, "SAME")
        eroded = tf.nn.erosion2d(np.zeros((1, 4, 4, 3), np.float32), np.zeros((2, 2, 3), np.float32), [1] * 4,
                                 [1] * 4, "VALID")
        # TF names the Dilation2D op after the scope and negates it after.
        assert eroded.shape.as_list() == [1, 3, 3, 3] and eroded.name == "erosion2d/Neg_1:0"
        assert eroded.op.inputs[0].op.name == "erosion2d" and eroded.op.inputs[0].op.type == "Dilation2D"
