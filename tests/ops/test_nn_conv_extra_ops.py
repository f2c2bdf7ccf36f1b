"""The depthwise backprop ops (and so the depthwise gradient), 1-D pooling, TF 2's rank-dispatching pools,
and the transposed convolutions conv1d_transpose, conv_transpose and atrous_conv2d_transpose: NumPy
references, adjoint identities against the forward convolutions, numeric gradients and TF's values."""

import re

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view
from op_testing import check_gradient, check_op, check_tensor

import tensorweave.compat.v1 as tf

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("strides, padding, dilations, data_format", [
    ([1, 1, 1, 1], "SAME", [1, 1, 1, 1], "NHWC"),
    ([1, 2, 2, 1], "VALID", [1, 1, 1, 1], "NHWC"),
    ([1, 1, 1, 1], "SAME", [1, 2, 2, 1], "NHWC"),
    ([1, 1, 2, 2], "SAME", [1, 1, 1, 1], "NCHW"),
    ([1, 1, 1, 1], [[0, 0], [1, 0], [0, 2], [0, 0]], [1, 1, 1, 1], "NHWC"),
])
def test_depthwise_conv2d_gradients(strides, padding, dilations, data_format):
    x = RNG.standard_normal((2, 5, 6, 3) if data_format == "NHWC" else (2, 3, 5, 6))
    w = RNG.standard_normal((3, 2, 3, 2))
    check_gradient(lambda x, w: tf.nn.depthwise_conv2d_native(x, w, strides, padding, data_format=data_format,
                                                              dilations=dilations), [x, w])


def test_depthwise_backprop_ops_are_the_gradient():
    x = RNG.standard_normal((2, 5, 6, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 2, 3, 2)).astype(np.float32)
    dy = RNG.standard_normal((2, 3, 3, 6)).astype(np.float32)
    with tf.Graph().as_default():
        x, w = tf.constant(x), tf.constant(w)
        y = tf.nn.depthwise_conv2d_native(x, w, [1, 2, 2, 1], "SAME")
        grad_x, grad_w = tf.gradients(y, [x, w], grad_ys=dy)
        by_input = tf.nn.depthwise_conv2d_native_backprop_input([2, 5, 6, 3], w, dy, [1, 2, 2, 1], "SAME")
        by_filter = tf.nn.depthwise_conv2d_backprop_filter(x, [3, 2, 3, 2], dy, [1, 2, 2, 1], "SAME")
        assert by_input.op.type == "DepthwiseConv2dNativeBackpropInput"
        assert by_filter.op.type == "DepthwiseConv2dNativeBackpropFilter"
        assert by_input.shape.as_list() == [2, 5, 6, 3] and by_filter.shape.as_list() == [3, 2, 3, 2]
        assert tf.nn.depthwise_conv2d_backprop_input is tf.nn.depthwise_conv2d_native_backprop_input
        with tf.Session() as sess:
            values = sess.run([grad_x, grad_w, by_input, by_filter])
    np.testing.assert_allclose(values[2], values[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(values[3], values[1], rtol=1e-5, atol=1e-5)
    # TF's values for one filter tap
    x = np.arange(2 * 3 * 3 * 2, dtype=np.float32).reshape(2, 3, 3, 2) / 10
    dy = np.ones((2, 3, 3, 2), np.float32)
    check_op(lambda x, dy: tf.nn.depthwise_conv2d_native_backprop_filter(x, [2, 2, 2, 1], dy, [1, 1, 1, 1], "SAME"),
             [x, dy], np.array([[[[30.6], [32.4]], [[21.6], [22.8]]], [[[24.0], [25.2]], [[16.8], [17.6]]]],
                               np.float32), rtol=1e-5)
    with tf.Graph().as_default(), tf.Session() as sess, pytest.raises(
            tf.errors.InvalidArgumentError, match="input and filter must have the same in_depth: 3 vs 2"):
        sess.run(tf.nn.depthwise_conv2d_native_backprop_input([2, 5, 6, 3], np.zeros((3, 2, 2, 2), np.float32),
                                                              np.zeros((2, 5, 6, 4), np.float32), [1] * 4, "SAME"))


def _pool1d_reference(x, k, stride, padding, reduce):
    """NWC pooling by definition: SAME pads with values the reduction ignores."""
    n, w, c = x.shape
    if padding == "SAME":
        out = -(-w // stride)
        total = max(0, (out - 1) * stride + k - w)
        x = np.pad(x, ((0, 0), (total // 2, total - total // 2), (0, 0)), constant_values=np.nan)
    windows = sliding_window_view(x, k, axis=1)[:, ::stride]
    return reduce(windows, axis=-1)


@pytest.mark.parametrize("k, stride, padding", [(3, 2, "SAME"), (2, 1, "VALID"), (4, 3, "SAME")])
def test_pool1d(k, stride, padding):
    x = RNG.standard_normal((2, 9, 3)).astype(np.float32)
    check_op(lambda x: tf.nn.max_pool1d(x, k, stride, padding), [x], _pool1d_reference(x, k, stride, padding, np.nanmax),
             grad=True)
    check_op(lambda x: tf.nn.avg_pool1d(x, [k], [stride], padding), [x],
             _pool1d_reference(x, k, stride, padding, np.nanmean).astype(np.float32), rtol=1e-5, grad=True)
    check_op(lambda x: tf.nn.max_pool1d(x, k, stride, padding, data_format="NCW"), [x.transpose(0, 2, 1)],
             _pool1d_reference(x, k, stride, padding, np.nanmax).transpose(0, 2, 1))
    check_op(lambda x: tf.nn.max_pool_v2(x, k, stride, padding), [x], _pool1d_reference(x, k, stride, padding,
                                                                                       np.nanmax))
    with tf.Graph().as_default():
        assert tf.nn.max_pool1d(x, k, stride, padding).name == "MaxPool1d/Squeeze:0"
        with pytest.raises(ValueError, match="`data_format` must be 'NWC' or 'NCW'. Received: data_format=NHWC"):
            tf.nn.avg_pool1d(x, k, stride, padding, data_format="NHWC")


def test_pool_v2_dispatches_on_rank():
    x = RNG.standard_normal((2, 6, 7, 3)).astype(np.float32)
    with tf.Graph().as_default():
        by_rank = [tf.nn.max_pool_v2(x, 2, 2, "SAME"), tf.nn.avg_pool_v2(x, [2, 3], [1, 2], "VALID")]
        direct = [tf.nn.max_pool(x, 2, 2, "SAME"), tf.nn.avg_pool(x, [2, 3], [1, 2], "VALID")]
        assert [t.op.type for t in by_rank] == ["MaxPool", "AvgPool"]
        with tf.Session() as sess:
            values = sess.run(by_rank + direct)
        for got, want in zip(values[:2], values[2:]):
            np.testing.assert_array_equal(got, want)
        with pytest.raises(ValueError, match=r"`input.shape.rank` must be 3, 4 or 5. Received: input.shape=\(2, 3\) "
                                             "of rank 2."):
            tf.nn.max_pool_v2(np.zeros((2, 3), np.float32), 2, 2, "SAME")
        # TF reads the rank off the static shape: an unknown one is TensorShape's error; explicit paddings
        # are 2-D only.
        with pytest.raises(ValueError, match="^Cannot take the length of shape with unknown rank.$"):
            tf.nn.avg_pool_v2(tf.placeholder(tf.float32), 2, 2, "SAME", data_format="NHWC")
        with pytest.raises(ValueError, match=re.escape("Explicit padding is not supported with an input tensor of "
                                                       "rank 5. Received: padding=[[0, 0], [1, 1], [1, 1], [0, 0], "
                                                       "[0, 0]]")):
            tf.nn.max_pool_v2(tf.ones([2, 6, 6, 2, 2]), 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0], [0, 0]])


def _adjoint_gap(forward, transpose, x_shape, y_shape):
    """<forward(x), y> - <x, transpose(y)>: zero when `transpose` is the adjoint of the linear `forward`."""
    x = RNG.standard_normal(x_shape)
    y = RNG.standard_normal(y_shape)
    with tf.Graph().as_default(), tf.Session() as sess:
        fx, ty = sess.run([forward(tf.constant(x)), transpose(tf.constant(y))])
    assert fx.shape == y.shape and ty.shape == x.shape
    return float(np.sum(fx * y) - np.sum(x * ty))


@pytest.mark.parametrize("stride, padding, data_format", [(2, "SAME", "NWC"), (1, "VALID", "NCW"),
                                                          (3, "SAME", "NWC")])
def test_conv1d_transpose_is_the_adjoint_of_conv1d(stride, padding, data_format):
    w = RNG.standard_normal((3, 2, 4))
    width = 10
    out = -(-width // stride) if padding == "SAME" else (width - 3) // stride + 1
    x_shape = (2, width, 2) if data_format == "NWC" else (2, 2, width)
    y_shape = (2, out, 4) if data_format == "NWC" else (2, 4, out)
    gap = _adjoint_gap(lambda x: tf.nn.conv1d(x, w, stride, padding, data_format=data_format),
                       lambda y: tf.nn.conv1d_transpose(y, w, list(x_shape), stride, padding, data_format=data_format),
                       x_shape, y_shape)
    assert abs(gap) < 1e-9
    gap = _adjoint_gap(lambda x: tf.nn.conv1d(x, w, stride, padding, data_format=data_format),
                       lambda y: tf.nn.conv_transpose(y, w, tf.constant(list(x_shape)), stride, padding,
                                                      data_format=data_format),
                       x_shape, y_shape)
    assert abs(gap) < 1e-9


@pytest.mark.parametrize("rate, padding, size", [(2, "SAME", (6, 7)), (2, "VALID", (7, 7)), (3, "SAME", (5, 8))])
def test_atrous_conv2d_transpose_is_the_adjoint_of_atrous_conv2d(rate, padding, size):
    w = RNG.standard_normal((3, 3, 2, 3))
    effective = 2 * rate + 1
    out = size if padding == "SAME" else (size[0] - effective + 1, size[1] - effective + 1)
    gap = _adjoint_gap(lambda x: tf.nn.atrous_conv2d(x, w, rate, padding),
                       lambda y: tf.nn.atrous_conv2d_transpose(y, w, [2, *size, 2], rate, padding),
                       (2, *size, 2), (2, *out, 3))
    assert abs(gap) < 1e-9


def test_transposed_conv_values_and_errors():
    """TF's values for a small case of each, and TF's errors."""
    y = np.arange(2 * 3 * 2, dtype=np.float32).reshape(1, 2, 3, 2) / 4
    w = np.arange(2 * 2 * 1 * 2, dtype=np.float32).reshape(2, 2, 1, 2) / 8
    with tf.Graph().as_default():
        check_tensor(tf.nn.conv_transpose(y, w, [1, 4, 6, 1], 2),
                     np.array([[[[0.03125], [0.09375], [0.09375], [0.40625], [0.15625], [0.71875]],
                                [[0.15625], [0.21875], [0.71875], [1.03125], [1.28125], [1.84375]],
                                [[0.21875], [1.03125], [0.28125], [1.34375], [0.34375], [1.65625]],
                                [[1.84375], [2.65625], [2.40625], [3.46875], [2.96875], [4.28125]]]], np.float32))
        check_tensor(tf.nn.atrous_conv2d_transpose(y, w, [1, 2, 3, 1], 2, "SAME"),
                     np.array([[[[0.28125], [1.375], [1.34375]], [[0.71875], [1.5], [1.03125]]]], np.float32))
        with pytest.raises(ValueError, match=r"`output_shape` must be of length 3, 4 or 5. Received: output_shape=\[1, 2\] "
                                             "of length 2."):
            tf.nn.conv_transpose(y, w, [1, 2], 2)
        with pytest.raises(ValueError, match="`padding` must be either 'VALID' or 'SAME'. Received: padding=FULL"):
            tf.nn.atrous_conv2d_transpose(y, w, [1, 2, 3, 1], 2, "FULL")
        with pytest.raises(ValueError, match="`rate` cannot be less than one. Received: rate=0"):
            tf.nn.atrous_conv2d_transpose(y, w, [1, 2, 3, 1], 0, "SAME")


def _argmax_pool_reference(x, k, s, padding, include_batch):
    """Every window's maximum and flat input index by definition (first in row-major order among ties)."""
    n, h, w, c = x.shape
    out_h = -(-h // s[0]) if padding == "SAME" else (h - k[0]) // s[0] + 1
    out_w = -(-w // s[1]) if padding == "SAME" else (w - k[1]) // s[1] + 1
    top = max(0, (out_h - 1) * s[0] + k[0] - h) // 2 if padding == "SAME" else 0
    left = max(0, (out_w - 1) * s[1] + k[1] - w) // 2 if padding == "SAME" else 0
    values = np.zeros((n, out_h, out_w, c), x.dtype)
    index = np.zeros((n, out_h, out_w, c), np.int64)
    for b, i, j, d in np.ndindex(n, out_h, out_w, c):
        best = None
        for y in range(i * s[0] - top, i * s[0] - top + k[0]):
            for z in range(j * s[1] - left, j * s[1] - left + k[1]):
                if 0 <= y < h and 0 <= z < w and (best is None or x[b, y, z, d] > values[b, i, j, d]):
                    best, values[b, i, j, d] = (y, z), x[b, y, z, d]
        index[b, i, j, d] = ((b * h if include_batch else 0) + best[0]) * w * c + best[1] * c + d
    return values, index


@pytest.mark.parametrize("k, s, padding, include_batch", [((2, 2), (2, 2), "SAME", False),
                                                          ((3, 2), (1, 2), "VALID", True),
                                                          ((2, 3), (1, 1), "SAME", False)])
def test_max_pool_with_argmax(k, s, padding, include_batch):
    x = RNG.integers(0, 3, (2, 5, 6, 2)).astype(np.float64)  # many ties
    values, index = _argmax_pool_reference(x, k, s, padding, include_batch)
    check_op(lambda x: tf.nn.max_pool_with_argmax(x, [1, *k, 1], [1, *s, 1], padding,
                                                  include_batch_in_index=include_batch), [x], [values, index])
    check_op(lambda x: tf.nn.max_pool_with_argmax(x, [1, *k, 1], [1, *s, 1], padding, Targmax=tf.int32).argmax,
             [x], _argmax_pool_reference(x, k, s, padding, False)[1].astype(np.int32))
    check_gradient(lambda x: tf.nn.max_pool_with_argmax(x, [1, *k, 1], [1, *s, 1], padding,
                                                        include_batch_in_index=include_batch).output,
                   [RNG.standard_normal((2, 5, 6, 2))])
    with tf.Graph().as_default(), pytest.raises(ValueError, match="`data_format` values other  than 'NHWC' are not "
                                                                  "supported. Received: data_format=NCHW"):
        tf.nn.max_pool_with_argmax(x, [1, *k, 1], [1, *s, 1], padding, data_format="NCHW")


@pytest.mark.parametrize("rate, padding", [([2, 2], "SAME"), ([2, 3], "VALID"), ([1, 1], "SAME"), ([3, 2], "SAME")])
def test_with_space_to_batch_is_a_dilated_op(rate, padding):
    """A VALID conv2d run through with_space_to_batch equals conv2d with those dilations (and its shape)."""
    x = RNG.standard_normal((2, 7, 9, 3))
    w = RNG.standard_normal((3, 2, 3, 4))

    def conv(inp, num_spatial_dims, inner_padding):
        assert num_spatial_dims == 2
        return tf.nn.conv2d(inp, w, [1, 1, 1, 1], inner_padding)

    with tf.Graph().as_default():
        dilated = tf.nn.conv2d(x, w, [1, 1, 1, 1], padding, dilations=[1, *rate, 1])
        via_batch = tf.nn.with_space_to_batch(x, rate, padding, conv, filter_shape=w.shape)
        assert via_batch.shape.as_list() == dilated.shape.as_list()
        if rate != [1, 1]:
            assert via_batch.op.type == "BatchToSpaceND"
        with tf.Session() as sess:
            want, got = sess.run([dilated, via_batch])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_with_space_to_batch_shapes_and_errors():
    """Unknown input shapes, channels-first spatial dims (TF's values and shapes), and TF's errors."""
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    with tf.Graph().as_default():
        unknown = tf.placeholder(tf.float32, [None, None, None, 5])
        pooled = tf.nn.with_space_to_batch(unknown, [2, 2], "SAME",
                                           lambda inp, n, p: tf.nn.max_pool(inp, [1, 2, 2, 1], [1, 1, 1, 1], p),
                                           filter_shape=[2, 2])
        doubled = tf.nn.with_space_to_batch(x, [2], "VALID", lambda inp, n, p: inp * 2.0, spatial_dims=[3],
                                            data_format="NCHW")
        assert doubled.shape.as_list() == [2, 3, 4, 5]
        with tf.Session() as sess:
            got = sess.run(pooled, {unknown: x})
            np.testing.assert_array_equal(sess.run(doubled), 2 * x)
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=-np.inf)  # dilated 2x2 window
        want = np.max([padded[:, i:i + 3, j:j + 4] for i in (0, 2) for j in (0, 2)], axis=0)
        np.testing.assert_array_equal(got, want)
        with pytest.raises(ValueError, match="`filter_shape` must be specified for `padding='SAME'`"):
            tf.nn.with_space_to_batch(x, [2, 2], "SAME", lambda inp, n, p: inp)
        with pytest.raises(ValueError, match=r"`dilation_rate` must be positive. Received: dilation_rate=\[0 1\]"):
            tf.nn.with_space_to_batch(x, [0, 1], "VALID", lambda inp, n, p: inp)
        with pytest.raises(ValueError, match="`spatial_dims` must be a monotonically increasing sequence"):
            tf.nn.with_space_to_batch(x, [2, 2], "VALID", lambda inp, n, p: inp, spatial_dims=[2, 1])


def test_max_pool_grad_grad():
    """MaxPoolGradGrad (the gradient of MaxPoolGrad by its gradient input): TF's values with ties (the first
    maximum of each window wins), second-order tf.gradients through it, and numeric gradients of both."""
    x = np.array([1, 3, 3, 2, 0, 3, 1, 2, 5, 5, 4, 1, 0, 2, 5, 5, 1, 1, 4, 4], np.float32).reshape(1, 4, 5, 1)
    g = np.arange(20, dtype=np.float32).reshape(1, 4, 5, 1) + 1
    same = [2, 2, 9, 9, 10, 11, 8, 9, 9, 10, 16, 12, 19, 15, 15, 16, 17, 19, 19, 20]
    check_op(lambda x, g: tf.raw_ops.MaxPoolGradGrad(orig_input=x, orig_output=tf.nn.max_pool(x, 2, 1, "SAME"),
                                                     grad=g, ksize=[1, 2, 2, 1], strides=[1] * 4, padding="SAME"),
             [x, g], np.array(same, np.float32).reshape(x.shape))
    check_op(lambda x, g: tf.raw_ops.MaxPoolGradGrad(
        orig_input=x, orig_output=tf.nn.max_pool(x, [1, 3, 2, 1], [1, 2, 1, 1], "VALID"), grad=g,
        ksize=[1, 3, 2, 1], strides=[1, 2, 1, 1], padding="VALID"), [x, g], np.array([[[[11], [2], [9], [9]]]],
                                                                                    np.float32))
    with tf.Graph().as_default(), tf.Session() as sess:
        xt = tf.constant(x)
        dy = tf.placeholder(tf.float32, [1, 4, 5, 1])
        (gx,) = tf.gradients(tf.nn.max_pool(xt, 2, 1, "SAME"), xt, grad_ys=dy)
        (ggy,) = tf.gradients(gx, dy, grad_ys=tf.constant(g))
        assert ggy.op.type == "MaxPoolGradGrad"
        np.testing.assert_array_equal(sess.run(ggy, {dy: np.zeros(x.shape)}).reshape(-1), same)
    distinct = RNG.permutation(2 * 5 * 6 * 2).reshape(2, 5, 6, 2).astype(np.float32)
    attrs = dict(ksize=[1, 2, 3, 1], strides=[1, 2, 1, 1], padding="SAME")

    def pooled():
        return dict(orig_input=distinct, orig_output=tf.nn.max_pool(distinct, **attrs))

    with tf.Graph().as_default():
        out_shape = tf.nn.max_pool(distinct, **attrs).shape.as_list()
    check_gradient(lambda g: tf.raw_ops.MaxPoolGrad(grad=g, **pooled(), **attrs),
                   [RNG.standard_normal(out_shape).astype(np.float32)])
    check_gradient(lambda g: tf.raw_ops.MaxPoolGradGrad(grad=g, **pooled(), **attrs),
                   [RNG.standard_normal(distinct.shape).astype(np.float32)])
