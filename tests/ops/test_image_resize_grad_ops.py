"""The resize gradients (ResizeBilinearGrad, ResizeNearestNeighborGrad, ResizeBicubicGrad): TF's values,
numeric gradients over align_corners / half_pixel_centers, and the gradient functions that use them."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

X = np.arange(1 * 3 * 4 * 2, dtype=np.float32).reshape(1, 3, 4, 2)
G = ((np.arange(1 * 5 * 7 * 2) % 5) - 2).astype(np.float32).reshape(1, 5, 7, 2)
# TF 2.21's gradients of each resize of X to 5x7 (default corners), by G
TF_GRADS = {
    "resize_bilinear": [-1.3714, -1.3714, 1.3143, -0.5714, -0.4, 1.0, -1.1429, 0.1429, 1.2286, 0.0857, -0.5143,
                        0.5143, -0.0857, -0.6286, -0.4286, -0.5714, 0.1429, 1.2857, -0.8, 0.0571, 0.4857, -0.3714,
                        1.5714, 0.4286],
    "resize_nearest_neighbor": [-1, -2, 0, -1, 1, 0, -1, 1, 1, 0, 2, 1, -2, 2, 0, -3, 0, 2, -2, 0, 1, -2, 1, 2],
    "resize_bicubic": [-1.5241, -1.3981, 1.4215, -0.793, -0.5198, 1.1488, -0.9412, 0.1934, 1.4308, -0.1389, -0.5275,
                       0.524, 0.1137, -0.5613, -0.8169, -0.7592, 0.0934, 1.537, -0.894, 0.269, 0.406, -0.5875, 1.7581,
                       0.5658],
}
OP_TYPES = {"resize_bilinear": "ResizeBilinearGrad", "resize_nearest_neighbor": "ResizeNearestNeighborGrad",
            "resize_bicubic": "ResizeBicubicGrad"}


@pytest.mark.parametrize("name", sorted(TF_GRADS))
def test_tf_values(name):
    def build(x, g):
        (grad,) = tf.gradients(getattr(tf.image, name)(x, [5, 7]), x, grad_ys=g)
        assert grad.op.type == OP_TYPES[name]
        return grad

    check_op(build, [X, G], np.array(TF_GRADS[name], np.float32).reshape(X.shape), atol=1e-4)


@pytest.mark.parametrize("name", sorted(TF_GRADS))
@pytest.mark.parametrize("align_corners, half_pixel_centers", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("size", [[5, 7], [2, 3]])
def test_numeric_gradients(name, align_corners, half_pixel_centers, size):
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 2))
    check_gradient(lambda x: getattr(tf.image, name)(x, size, align_corners=align_corners,
                                                      half_pixel_centers=half_pixel_centers), [x])


def test_nearest_grad_of_integers_and_errors():
    g = np.arange(6, dtype=np.int32).reshape(1, 2, 3, 1)
    check_op(lambda g: tf.raw_ops.ResizeNearestNeighborGrad(grads=g, size=[1, 2]), [g],
             np.array([[[[0 + 1 + 3 + 4], [2 + 5]]]], np.int32))
    with tf.Graph().as_default(), tf.Session() as sess, pytest.raises(
            tf.errors.InvalidArgumentError, match="If half_pixel_centers is True, align_corners must be False."):
        sess.run(tf.raw_ops.ResizeBilinearGrad(grads=G, original_image=X, align_corners=True,
                                               half_pixel_centers=True))


def test_rgb_to_hsv_gradient_is_tfs_piecewise_derivative():
    """Values from TF 2.21, ties and zeros included; HSVToRGB and the box ops TF marks are not differentiable."""
    x = np.array([[[0.5, 0.5, 0.2], [0.3, 0.3, 0.3], [0., 0.4, 0.4]], [[0.9, 0.1, 0.9], [0., 0., 0.], [0.2, 0.7, 0.1]]],
                 np.float32)
    w = np.array([[[1., 2., 3.], [0.5, 0.1, 2.], [1., 1., 1.]], [[2., 0., 1.], [1., 1., 1.], [0.3, 0.2, 0.1]]],
                 np.float32)
    with tf.Graph().as_default():
        image = tf.constant(x)
        (grad,) = tf.gradients(tf.reduce_sum(tf.image.rgb_to_hsv(image) * w), image)
        assert tf.gradients(tf.reduce_sum(tf.image.hsv_to_rgb(image)), image) == [None]
        assert tf.gradients(tf.reduce_sum(tf.image.draw_bounding_boxes(image[None], tf.zeros([1, 1, 4]))), image) == [None]
        with tf.Session() as sess:
            got = sess.run(grad)
    np.testing.assert_allclose(got, [[[4.04444, 0.55556, -4.0], [2.33333, 0.0, -0.33333], [0.0, 0.58333, 0.41667]],
                                     [[1.41667, 0.0, -0.41667], [1.0, 0.0, 0.0], [-0.08333, 0.15471, -0.21627]]],
                               atol=1e-5)
