"""The 3-D convolutions and pools: TF's values, a NumPy reference over formats, strides, dilations and
paddings, numeric gradients of every op (second order included), chunked im2col, names and errors."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op, check_tensor

import tensorweave.compat.v1 as tf
from tensorweave.ops import nn_conv3d_ops

RNG = np.random.default_rng(17)
X = ((np.arange(1 * 3 * 4 * 4 * 2) % 7 - 3) / 4).astype(np.float32).reshape(1, 3, 4, 4, 2)
W = ((np.arange(2 * 2 * 3 * 2 * 3) % 5 - 2) / 3).astype(np.float32).reshape(2, 2, 3, 2, 3)
DY = (np.arange(1 * 2 * 2 * 2 * 3) % 3 - 1).astype(np.float32).reshape(1, 2, 2, 2, 3)
XP = np.array([1, 3, 3, 2, 0, 3, 1, 2, 5, 5, 4, 1, 0, 2, 5, 5, 1, 1], np.float32).reshape(1, 2, 3, 3, 1)


def _conv3d_reference(x, w, strides, padding, dilations):
    """NDHWC convolution by definition: pad as TF's SAME, then sum over every filter tap."""
    ks = w.shape[:3]
    pads, outs = [], []
    for size, k, s, d in zip(x.shape[1:4], ks, strides, dilations):
        eff = (k - 1) * d + 1
        out = -(-size // s) if padding == "SAME" else (size - eff) // s + 1
        total = max(0, (out - 1) * s + eff - size) if padding == "SAME" else 0
        pads.append((total // 2, total - total // 2))
        outs.append(out)
    xp = np.pad(x, ((0, 0), *pads, (0, 0)))
    y = np.zeros((x.shape[0], *outs, w.shape[4]))
    for i in range(ks[0]):
        for j in range(ks[1]):
            for k in range(ks[2]):
                part = xp[:, i * dilations[0]::strides[0], j * dilations[1]::strides[1], k * dilations[2]::strides[2]]
                y += part[:, :outs[0], :outs[1], :outs[2]] @ w[i, j, k]
    return y


def test_tf_values():
    """Values recorded from TF 2.21."""
    check_op(lambda x, w: tf.nn.conv3d(x, w, [1, 2, 2, 2, 1], "SAME"), [X, W], np.array(
        [1.33333, -0.41667, 1.58333, -1.66667, 1.91667, -0.33333, 0.75, 0.58333, 1.25, -1.91667, -1.91667, 1.83333,
         -0.75, -1.16667, 1.33333, 0.0, 1.41667, -1.33333, 1.41667, -1.0, -1.33333, 0.33333, -0.33333, 0.66667],
        np.float32).reshape(1, 2, 2, 2, 3), rtol=1e-4, atol=1e-4)
    check_op(lambda x, w: tf.nn.conv3d(x, w, [1] * 5, "VALID", dilations=[1, 2, 1, 1, 1]), [X, W], np.array(
        [-1.25, 1.25, 0.41667, 0.5, -1.25, 2.41667, -0.66667, 0.0, 0.25, 2.83333, -1.33333, -0.08333, 0.5, -1.25,
         2.41667, 0.5, -0.25, -1.41667], np.float32).reshape(1, 1, 3, 2, 3), rtol=1e-4, atol=1e-4)
    a, b, c = 0.66667, -1.0, -0.33333
    plane = [a, b, a, b, 1.33333, c, a, b, b, a, b, a, c, c, b, a]
    middle = [a, b, a, a, c, c, a, a, b, a, a, b, c, c, a, b]
    check_op(lambda dy, w: tf.nn.conv3d_transpose(dy, w, [1, 3, 4, 4, 2], [1, 2, 2, 2, 1], "SAME"), [DY, W],
             np.array(plane * 2 + middle * 2 + plane * 2, np.float32).reshape(1, 3, 4, 4, 2), rtol=1e-4, atol=1e-4)
    filter_grad = np.array(
        [0.75, 0.0, -0.75, 0.5, 0.0, -0.5, 0.25, 0.0, -0.25, 0.0, 0.0, 0.0, -0.75, 0.0, 0.75, 0.0, 0.0, 0.0, 0.5, 0.0,
         -0.5, 0.25, 0.0, -0.25, 0.0, 0.0, 0.0, -0.25, 0.0, 0.25, 0.0, 0.0, 0.0, 0.75, 0.0, -0.75, -0.5, 0.0, 0.5,
         0.25, 0.0, -0.25, -0.75, 0.0, 0.75, 0.0, 0.0, 0.0, 0.5, 0.0, -0.5, 0.0, 0.0, 0.0, 0.25, 0.0, -0.25, -0.75,
         0.0, 0.75, 0.0, 0.0, 0.0, 0.75, 0.0, -0.75, 0.0, 0.0, 0.0, -0.5, 0.0, 0.5], np.float32).reshape(W.shape)
    check_op(lambda x, dy: tf.nn.conv3d_backprop_filter(x, [2, 2, 3, 2, 3], dy, [1, 2, 2, 2, 1], "SAME"), [X, DY],
             filter_grad, rtol=1e-5, atol=1e-6)
    check_op(lambda x: tf.nn.max_pool3d(x, 2, 1, "SAME"), [XP], np.array([5.0] * 16 + [1.0, 1.0], np.float32)
             .reshape(XP.shape))
    check_op(lambda x: tf.nn.avg_pool3d(x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"), [XP], np.array(
        [2.125, 2.625, 3.0, 2.25, 2.25, 3.0, 2.75, 3.0, 3.0, 3.0, 1.0, 1.0], np.float32).reshape(1, 2, 2, 3, 1))
    grad = np.arange(18, dtype=np.float32).reshape(XP.shape) + 1
    pool = dict(ksize=[1, 2, 2, 2, 1], strides=[1] * 5, padding="SAME")
    out = np.array([5.0] * 16 + [1.0, 1.0], np.float32).reshape(XP.shape)
    check_op(lambda x, y, g: tf.raw_ops.MaxPool3DGrad(orig_input=x, orig_output=y, grad=g, **pool), [XP, out, grad],
             np.array([0] * 8 + [28, 11, 0, 0, 0, 0, 68, 40, 17, 35], np.float32).reshape(XP.shape))
    check_op(lambda x, y, g: tf.raw_ops.MaxPool3DGradGrad(orig_input=x, orig_output=y, grad=g, **pool),
             [XP, out, grad], np.array([10, 15, 15, 16, 9, 9, 16, 9, 9, 10, 15, 15, 16, 15, 15, 16, 17, 18],
                                       np.float32).reshape(XP.shape))


@pytest.mark.parametrize("strides, padding, dilations", [
    ([1, 1, 1], "SAME", [1, 1, 1]), ([2, 1, 3], "VALID", [1, 1, 1]), ([1, 2, 1], "SAME", [2, 1, 2]),
    ([2, 2, 2], "SAME", [1, 1, 1]),
])
def test_conv3d_against_reference(strides, padding, dilations):
    x = RNG.standard_normal((2, 5, 6, 7, 3))
    w = RNG.standard_normal((2, 3, 2, 3, 4))
    want = _conv3d_reference(x, w, strides, padding, dilations)
    check_op(lambda x, w: tf.nn.conv3d(x, w, [1, *strides, 1], padding, dilations=[1, *dilations, 1]), [x, w], want)
    check_op(lambda x, w: tf.nn.conv3d(x, w, [1, 1, *strides], padding, data_format="NCDHW",
                                       dilations=[1, 1, *dilations]),
             [x.transpose(0, 4, 1, 2, 3), w], want.transpose(0, 4, 1, 2, 3))


def test_conv3d_chunked_im2col_matches(monkeypatch):
    x = RNG.standard_normal((2, 6, 5, 4, 3))
    w = RNG.standard_normal((3, 2, 2, 3, 2))
    want = _conv3d_reference(x, w, [1, 1, 1], "SAME", [1, 1, 1])
    dy = RNG.standard_normal(want.shape)
    with tf.Graph().as_default(), tf.Session() as sess:
        tensors = [tf.nn.conv3d(x, w, [1] * 5, "SAME"),
                   tf.nn.conv3d_transpose(dy, w, list(x.shape), [1] * 5, "SAME"),
                   tf.nn.conv3d_backprop_filter(x, list(w.shape), dy, [1] * 5, "SAME")]
        whole = sess.run(tensors)
        monkeypatch.setattr(nn_conv3d_ops, "IM2COL_CHUNK_BYTES", 2000)  # a few output planes of one image a chunk
        chunked = sess.run(tensors)
    np.testing.assert_allclose(whole[0], want, rtol=1e-10)
    for a, b in zip(whole, chunked):
        np.testing.assert_allclose(a, b, rtol=1e-10)


@pytest.mark.parametrize("strides, padding, dilations, data_format", [
    ([1, 2, 1, 2, 1], "SAME", [1, 1, 1, 1, 1], "NDHWC"),
    ([1, 1, 1, 1, 1], "VALID", [1, 1, 2, 1, 1], "NDHWC"),
    ([1, 1, 2, 1, 1], "SAME", [1, 1, 1, 1, 1], "NCDHW"),
])
def test_conv3d_gradients(strides, padding, dilations, data_format):
    x = RNG.standard_normal((1, 3, 4, 4, 2) if data_format == "NDHWC" else (1, 2, 3, 4, 4))
    w = RNG.standard_normal((2, 2, 3, 2, 3))
    check_gradient(lambda x, w: tf.nn.conv3d(x, w, strides, padding, data_format, dilations), [x, w])
    with tf.Graph().as_default():
        y = tf.nn.conv3d(x, w, strides, padding, data_format, dilations)
    dy = RNG.standard_normal(y.shape.as_list())
    x_shape, w_shape = list(x.shape), list(w.shape)
    check_gradient(lambda dy, w: tf.nn.conv3d_transpose(dy, w, x_shape, strides, padding, data_format,
                                                        dilations=dilations), [dy, w])
    check_gradient(lambda x, dy: tf.nn.conv3d_backprop_filter_v2(x, w_shape, dy, strides, padding, data_format,
                                                                 dilations), [x, dy])


@pytest.mark.parametrize("ksize, strides, padding, data_format", [
    ([1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "SAME", "NDHWC"),
    ([1, 2, 3, 2, 1], [1, 2, 2, 1, 1], "VALID", "NDHWC"),
    ([1, 1, 3, 2, 2], [1, 1, 2, 2, 1], "SAME", "NCDHW"),
])
def test_pool3d_values_and_gradients(ksize, strides, padding, data_format):
    x = RNG.permutation(3 * 4 * 4 * 3).reshape(1, 3, 4, 4, 3).astype(np.float64) / 10  # distinct: no ties
    x32 = x.astype(np.float32)
    fmt = (lambda t: t) if data_format == "NDHWC" else (lambda t: t.transpose(0, 4, 1, 2, 3))
    k = ksize[1:4] if data_format == "NDHWC" else ksize[2:5]
    s = strides[1:4] if data_format == "NDHWC" else strides[2:5]
    ones = np.ones((*k, 3, 3)) * np.eye(3)
    count = _conv3d_reference(np.ones_like(x[..., :3]), ones, s, padding, [1, 1, 1])
    mean = _conv3d_reference(x, ones, s, padding, [1, 1, 1]) / count
    # float: TF has no double 3-D pooling kernel on CPU
    check_op(lambda x: tf.nn.avg_pool3d(x, ksize, strides, padding, data_format), [fmt(x32)],
             fmt(mean).astype(np.float32))
    pooled = [tf.nn.max_pool3d, tf.nn.avg_pool3d]
    for fn in pooled:
        check_gradient(lambda x, fn=fn: fn(x, ksize, strides, padding, data_format), [fmt(x32)])
        with tf.Graph().as_default(), tf.Session() as sess:
            v2 = (tf.nn.max_pool_v2 if fn is tf.nn.max_pool3d else tf.nn.avg_pool_v2)(
                fmt(x32), ksize, strides, padding, data_format)
            np.testing.assert_array_equal(sess.run(v2), sess.run(fn(fmt(x32), ksize, strides, padding, data_format)))
    # the gradients are linear in their gradient input: check them (and so MaxPool3DGradGrad) numerically
    with tf.Graph().as_default():
        out_shape = tf.nn.max_pool3d(fmt(x32), ksize, strides, padding, data_format).shape.as_list()
    dy = RNG.standard_normal(out_shape).astype(np.float32)
    attrs = dict(ksize=ksize, strides=strides, padding=padding, data_format=data_format)
    check_gradient(lambda g: tf.raw_ops.MaxPool3DGrad(
        orig_input=fmt(x32), orig_output=tf.nn.max_pool3d(fmt(x32), **attrs), grad=g, **attrs), [dy])
    check_gradient(lambda g: tf.raw_ops.MaxPool3DGradGrad(
        orig_input=fmt(x32), orig_output=tf.nn.max_pool3d(fmt(x32), **attrs), grad=g, **attrs), [fmt(x32)])
    check_gradient(lambda g: tf.raw_ops.AvgPool3DGrad(orig_input_shape=list(fmt(x).shape), grad=g, **attrs), [dy])


def test_second_order_max_pool3d():
    """The gradient of max_pool3d's gradient by its output gradient routes through MaxPool3DGradGrad."""
    x = RNG.permutation(60).reshape(1, 3, 4, 5, 1).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        xt = tf.constant(x)
        y = tf.nn.max_pool3d(xt, 2, 2, "SAME")
        dy = tf.placeholder(tf.float32, y.shape)
        (gx,) = tf.gradients(y, xt, grad_ys=dy)
        (ggy,) = tf.gradients(gx, dy, grad_ys=tf.ones_like(gx))
        assert "MaxPool3DGradGrad" in {op.type for op in tf.get_default_graph().get_operations()}
        value = sess.run(ggy, {dy: np.zeros(y.shape.as_list(), np.float32)})
    np.testing.assert_array_equal(value, np.ones(y.shape.as_list()))


def test_names_dispatch_and_errors():
    x, w = X, W
    with tf.Graph().as_default():
        assert tf.nn.conv3d(x, w, [1] * 5, "SAME", name="c3").name == "c3:0"
        assert tf.nn.max_pool3d(x, 2, 2, "VALID").name == "MaxPool3D:0"
        assert tf.nn.avg_pool3d(x, 2, 2, "VALID").name == "AvgPool3D:0"
        assert tf.nn.conv3d_transpose(DY, w, [1, 3, 4, 4, 2], 2).name == "conv3d_transpose:0"
        assert tf.nn.max_pool_v2(x, 2, 2, "SAME").name == "MaxPool3D_1:0"
        assert tf.nn.avg_pool_v2(x, 2, 2, "SAME").name == "AvgPool3D_1:0"
        transposed = tf.nn.conv_transpose(DY, w, [1, 3, 4, 4, 2], 2)
        assert transposed.name == "conv_transpose:0" and transposed.op.type == "Conv3DBackpropInputV2"
        assert tf.nn.conv3d_backprop_filter is tf.nn.conv3d_backprop_filter_v2
        conv = tf.nn.convolution(x, w, "SAME", strides=[2, 1, 1], dilation_rate=[1, 1, 1])
        assert conv.name == "convolution:0" and conv.op.type == "Conv3D"
        assert conv.op.get_attr("strides") == [1, 2, 1, 1, 1]
        check_tensor(transposed, tf.Session().run(tf.nn.conv3d_transpose(DY, w, [1, 3, 4, 4, 2], 2)))
        with pytest.raises(ValueError, match=r"Depth of output \(3\) is not a multiple of the number of groups \(2\)"):
            tf.nn.conv3d(x, w[:, :, :, :1], [1] * 5, "SAME")
        with pytest.raises(ValueError, match="Shape must be rank 5 but is rank 4"):
            tf.nn.conv3d(x[0], w, [1] * 5, "SAME")
        with pytest.raises(ValueError, match="Conv3D requires the dilation attribute to contain 5 values, but got: 4"):
            tf.nn.conv3d(x, w, [1] * 5, "VALID", dilations=[1, 1, 1, 1])
        with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 2 from 1"):
            tf.nn.conv3d(np.zeros((1, 1, 4, 4, 2), np.float32), w, [1] * 5, "VALID")
        with pytest.raises(ValueError, match=r"ksize should be of length 1, 3 or 5. Received: ksize=\[1, 2, 2, 2\]"):
            tf.nn.max_pool3d(x, [1, 2, 2, 2], 1, "SAME")
        p = tf.placeholder(tf.float32)
        bad = tf.nn.conv3d(p, w, [1] * 5, "VALID", name="bad")
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="input and filter must have the same depth: 3 vs 2") as info:
            sess.run(bad, {p: np.zeros((1, 3, 4, 4, 3))})
        assert "bad" in str(info.value)


def test_pool3d_has_cpu_kernels_for_bfloat16_and_float_only():
    """TF registers the 3-D pools and their gradients on CPU for bfloat16 and float: half (and a double
    AvgPool3D) fail placement with TF's No OpKernel message."""
    for pool, dtype in [(tf.nn.max_pool3d, tf.float16), (tf.nn.avg_pool3d, tf.float16), (tf.nn.avg_pool3d, tf.float64)]:
        with tf.Graph().as_default(), tf.Session() as sess:
            y = pool(tf.cast(np.ones((1, 2, 2, 2, 1)), dtype), 2, 2, "SAME")
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=rf"No OpKernel was registered to support Op '{y.op.type}' used by "
                                     r"\{\{node \w+\}\} with these attrs: .*\nRegistered devices: \[CPU\]\n"
                                     r"Registered kernels:\n(.*\n)*  device='CPU'; T in \[DT_BFLOAT16\]\n"
                                     r"  device='CPU'; T in \[DT_FLOAT\]\n"):
                sess.run(y)
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.cast(np.ones((1, 2, 2, 2, 1)), tf.bfloat16)
        grads = tf.gradients(tf.nn.max_pool3d(x, 2, 2, "SAME") + tf.nn.avg_pool3d(x, 2, 2, "SAME"), x)[0]
        assert sess.run(grads).dtype == tf.bfloat16.as_numpy_dtype
