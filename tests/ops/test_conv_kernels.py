"""The arithmetic of ops/conv_kernels.py: im2col in either layout and in chunks of any size (down to one output
row) gives the same convolution and gradients as a float64 reference computed one filter tap at a time, and
MaxPoolGrad routes to the first maximum of disjoint windows without letting other gradients leak in."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.ops import conv_kernels, fourier_conv

RNG = np.random.default_rng(7)


def _window(size, k, stride, dilation, padding):
    effective = (k - 1) * dilation + 1
    if isinstance(padding, tuple):
        return (size + sum(padding) - effective) // stride + 1, padding[0]
    if padding == "SAME":
        out = -(-size // stride)
        return out, max(0, (out - 1) * stride + effective - size) // 2
    return (size - effective) // stride + 1, 0


def _reference(x, f, strides, padding, dilations, dy):
    """Forward output, input gradient and filter gradient in float64, one (i, j) filter tap at a time."""
    n, h, w, c = x.shape
    kh, kw, _, o = f.shape
    (oh, top), (ow, left) = (_window(h, kh, strides[0], dilations[0], padding[0]),
                             _window(w, kw, strides[1], dilations[1], padding[1]))
    size_h, size_w = (oh - 1) * strides[0] + (kh - 1) * dilations[0] + 1, (ow - 1) * strides[1] + (kw - 1) * dilations[1] + 1
    padded = np.zeros((n, max(h + top, size_h), max(w + left, size_w), c))
    padded[:, top:top + h, left:left + w] = x
    y, dpadded, df = np.zeros((n, oh, ow, o)), np.zeros_like(padded), np.zeros(f.shape)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dilations[0], i * dilations[0] + (oh - 1) * strides[0] + 1, strides[0])
            cols = slice(j * dilations[1], j * dilations[1] + (ow - 1) * strides[1] + 1, strides[1])
            y += padded[:, rows, cols] @ f[i, j]
            dpadded[:, rows, cols] += dy @ f[i, j].T
            df[i, j] = np.einsum("nhwc,nhwo->co", padded[:, rows, cols], dy)
    return y, dpadded[:, top:top + h, left:left + w], df


CASES = [  # input, filter, strides, padding per dimension, dilations
    ((2, 9, 8, 1), (3, 4, 1, 5), (1, 1), ("SAME", "SAME"), (1, 1)),  # one channel: im2col tap by tap
    ((2, 9, 8, 1), (3, 2, 1, 3), (2, 1), ("VALID", "VALID"), (1, 2)),
    ((1, 7, 9, 1), (2, 3, 1, 2), (1, 2), ((1, 2), (0, 3)), (1, 1)),
    ((2, 6, 7, 3), (3, 3, 3, 4), (1, 1), ("SAME", "SAME"), (1, 1)),  # row by row
    ((2, 8, 7, 2), (2, 3, 2, 3), (2, 3), ((2, 0), (1, 1)), (2, 1)),
    # stride 1, the output as large as the input: the input's gradient as a forward convolution
    ((1, 5, 6, 4), (4, 2, 4, 6), (1, 1), ("SAME", "SAME"), (1, 1)),
    ((1, 5, 5, 3), (3, 3, 3, 3), (1, 1), ((2, 0), (0, 2)), (1, 1)),
    ((1, 3, 4, 2), (2, 2, 2, 3), (1, 1), ((3, 3), (1, 0)), (1, 1)),  # windows with no tap inside the input
]


@pytest.mark.parametrize("regions", [False, True])  # the padded input whole, or split by the taps inside it
@pytest.mark.parametrize("chunk_bytes", [1, 200, 4 << 20])
@pytest.mark.parametrize("input_shape,filter_shape,strides,padding,dilations", CASES)
def test_convolution_and_gradients_in_any_chunking(monkeypatch, regions, chunk_bytes, input_shape, filter_shape,
                                                   strides, padding, dilations):
    monkeypatch.setattr(conv_kernels, "IM2COL_CHUNK_BYTES", chunk_bytes)
    monkeypatch.setattr(conv_kernels, "REGION_MIN_SKIPPED", 0 if regions else 1 << 62)
    monkeypatch.setattr(conv_kernels, "FILTER_REPACKS", 0)
    x, f = RNG.standard_normal(input_shape), RNG.standard_normal(filter_shape)
    explicit = isinstance(padding[0], tuple)
    tf_padding = [[0, 0], list(padding[0]), list(padding[1]), [0, 0]] if explicit else padding[0]
    s4, d4 = [1, *strides, 1], [1, *dilations, 1]
    y = tf.nn.conv2d(x.astype(np.float32), f.astype(np.float32), s4, tf_padding, dilations=d4)
    dy = RNG.standard_normal(y.shape.as_list())
    want_y, want_dx, want_df = _reference(x, f, strides, padding, dilations, dy)
    dx = tf.nn.conv2d_backprop_input(list(input_shape), f.astype(np.float32), dy.astype(np.float32), s4,
                                     tf_padding, dilations=d4)
    df = tf.nn.conv2d_backprop_filter(x.astype(np.float32), list(filter_shape), dy.astype(np.float32), s4,
                                      tf_padding, dilations=d4)
    with tf.Session() as sess:
        if explicit and dilations != (1, 1):  # TF's own CPU backprop kernels (explicit padding) refuse dilations
            for grad in (dx, df):
                with pytest.raises(tf.errors.InvalidArgumentError, match="do not yet support dilation rates"):
                    sess.run(grad)
            dx, df, want_dx, want_df = y, y, want_y, want_y
        values = sess.run([y, dx, df])
    for got, want in zip(values, (want_y, want_dx, want_df)):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_im2col_layout_follows_the_longer_contiguous_runs():
    def geometry(c, stride, dilation):
        window = conv_kernels.Window(8, 1, 1)
        return conv_kernels.ConvGeometry(1, 8, 8, c, 3, 3, c, 4, window, window, stride, stride, dilation, dilation)

    assert geometry(1, 1, 1).tap_major and geometry(1, 1, 2).tap_major
    assert not geometry(1, 2, 1).tap_major and not geometry(3, 1, 1).tap_major


@pytest.mark.parametrize("block_bytes", [1, 1 << 20])
@pytest.mark.parametrize("rows", [7, 6])  # a row no window reads; windows tiling the input (written unzeroed)
def test_max_pool_grad_of_disjoint_windows_goes_to_the_first_maximum_only(monkeypatch, block_bytes, rows):
    monkeypatch.setattr(conv_kernels, "POOL_BLOCK_BYTES", block_bytes)
    x = np.maximum(RNG.standard_normal((2, rows, 6, 3)), 0).astype(np.float32)  # ReLU's zeros: ties everywhere
    x[0, :2, :2, 0] = 0.0
    out = x[:, :6, :6].reshape(2, 3, 2, 3, 2, 3).max(axis=(2, 4))
    dy = RNG.standard_normal(out.shape).astype(np.float32)
    dy[1, 0, 0, 1] = np.inf  # its window's other positions get zero, not inf * 0
    want = np.zeros_like(x)
    for n, i, j, c in np.ndindex(out.shape):
        window = x[n, 2 * i:2 * i + 2, 2 * j:2 * j + 2, c]
        a, b = np.unravel_index(np.argmax(window), window.shape)
        want[n, 2 * i + a, 2 * j + b, c] = dy[n, i, j, c]
    pooled = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    grad = tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=out, grad=dy, ksize=[1, 2, 2, 1],
                                  strides=[1, 2, 2, 1], padding="VALID")
    with tf.Session() as sess:
        pooled_value, grad_value = sess.run([pooled, grad])
    np.testing.assert_array_equal(pooled_value, out)
    np.testing.assert_array_equal(grad_value, want)


def test_pooling_in_blocks_of_one_image_matches_one_block(monkeypatch):
    """Overlapping SAME windows with padding on both sides, pooled one image at a time and all at once."""
    data = RNG.standard_normal((3, 8, 7, 2)).astype(np.float32)
    x = tf.placeholder(tf.float32, data.shape)
    ksize, strides = [1, 3, 4, 1], [1, 2, 1, 1]
    pooled = tf.nn.max_pool(x, ksize, strides, "SAME")
    pools = [pooled, tf.nn.avg_pool(x, ksize, strides, "SAME"),
             tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=pooled, grad=tf.ones_like(pooled), ksize=ksize,
                                    strides=strides, padding="SAME")]
    with tf.Session() as sess:
        whole = sess.run(pools, {x: data})
        monkeypatch.setattr(conv_kernels, "POOL_BLOCK_BYTES", 1)
        blocks = sess.run(pools, {x: data})
    for a, b in zip(whole, blocks):
        np.testing.assert_array_equal(a, b)


def _assert_kernels_equal_on_two_threads_and_one(x, f, g):
    dy = RNG.standard_normal(g.out_shape).astype(np.float32)
    serial = cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr(), intra_op_threads=1, hold_blas=True)
    threaded = cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr(), intra_op_threads=2, hold_blas=True)
    try:
        for kernel, args in ((conv_kernels.conv_forward, (x, f, g)), (conv_kernels.conv_backprop_input, (f, dy, g)),
                             (conv_kernels.conv_backprop_filter, (x, dy, g))):
            np.testing.assert_array_equal(kernel(*args, threaded), kernel(*args, serial))
    finally:
        threaded.close()
        serial.close()


@pytest.mark.parametrize("groups", [1, 2])
def test_kernels_on_two_threads_equal_one_thread(monkeypatch, groups):
    """Tasks of images on a device's two intra-op threads give the values of one thread, the filter gradient's
    partial sums included (a fixed number of them, added in order)."""
    monkeypatch.setattr(conv_kernels, "IM2COL_CHUNK_BYTES", 4000)  # several tasks, some by blocks of rows
    monkeypatch.setattr(conv_kernels, "FILTER_REPACKS", 0)
    monkeypatch.setattr(conv_kernels, "REGION_MIN_SKIPPED", 0)  # and several regions
    x = RNG.standard_normal((9, 7, 6, 4)).astype(np.float32)
    f = RNG.standard_normal((3, 2, 4 // groups, 6)).astype(np.float32)
    window = conv_kernels.Window
    g = conv_kernels.ConvGeometry(9, 7, 6, 4, 3, 2, 4 // groups, 6, window(7, 1, 1), window(6, 0, 1), 1, 1, 1, 1)
    _assert_kernels_equal_on_two_threads_and_one(x, f, g)


# -- The Fourier path (ops/fourier_conv.py) ------------------------------------------------------------------

FOURIER_CASES = [  # stride 1, no dilation: input, filter, padding per dimension
    ((2, 9, 8, 3), (3, 4, 3, 5), ("SAME", "SAME")),  # periods 11 and 11: odd, so no Nyquist column
    ((2, 6, 7, 4), (3, 3, 4, 2), ("VALID", "VALID")),  # periods 6 and 7: the input's own size
    ((1, 7, 9, 2), (2, 3, 2, 3), ((1, 2), (0, 3))),  # explicit, uneven
    ((3, 5, 5, 3), (3, 3, 3, 3), ((2, 0), (0, 2))),
    ((1, 3, 4, 2), (2, 2, 2, 3), ((3, 3), (1, 0))),  # windows with no tap inside the input
    ((2, 14, 14, 4), (5, 5, 4, 6), ("SAME", "SAME")),  # period 16: a Nyquist column
]


def _force_fourier(monkeypatch, chunk_bytes=64 << 20):
    monkeypatch.setattr(fourier_conv, "FOURIER_MIN_PRODUCTS", 0)
    monkeypatch.setattr(fourier_conv, "FOURIER_MIN_SAVING", 0)
    monkeypatch.setattr(fourier_conv, "CHUNK_BYTES", chunk_bytes)


@pytest.mark.parametrize("chunk_bytes", [1, 64 << 20])  # one image per chunk, or the batch at once
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("input_shape,filter_shape,padding", FOURIER_CASES)
def test_fourier_convolution_and_gradients_match_the_reference(monkeypatch, chunk_bytes, dtype, input_shape,
                                                               filter_shape, padding):
    _force_fourier(monkeypatch, chunk_bytes)
    x, f = RNG.standard_normal(input_shape), RNG.standard_normal(filter_shape)
    explicit = isinstance(padding[0], tuple)
    tf_padding = [[0, 0], list(padding[0]), list(padding[1]), [0, 0]] if explicit else padding[0]
    y = tf.nn.conv2d(x.astype(dtype), f.astype(dtype), [1, 1, 1, 1], tf_padding)
    dy = RNG.standard_normal(y.shape.as_list())
    want = _reference(x, f, (1, 1), padding, (1, 1), dy)
    dx = tf.nn.conv2d_backprop_input(list(input_shape), f.astype(dtype), dy.astype(dtype), [1, 1, 1, 1], tf_padding)
    df = tf.nn.conv2d_backprop_filter(x.astype(dtype), list(filter_shape), dy.astype(dtype), [1, 1, 1, 1],
                                      tf_padding)
    with tf.Session() as sess:
        values = sess.run([y, dx, df])
    tolerance = 1e-5 if dtype == np.float32 else 1e-12  # of the largest value: the transforms' rounding
    for got, expected in zip(values, want):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, expected, atol=tolerance * np.abs(expected).max(), rtol=0)


def test_fourier_path_is_taken_where_it_saves_most_products():
    def geometry(n, size, c, k, o, stride=1, dilation=1, filter_depth=None):
        window = conv_kernels.Window(size, (k - 1) // 2, k // 2)
        return conv_kernels.ConvGeometry(n, size, size, c, k, k, filter_depth or c, o, window, window, stride,
                                         stride, dilation, dilation)

    f32 = np.dtype(np.float32)
    assert fourier_conv.applies(geometry(64, 14, 32, 5, 64), f32)  # deep MNIST's second layer
    assert fourier_conv.applies(geometry(64, 27, 96, 5, 256), f32)  # AlexNet's
    assert fourier_conv.applies(geometry(64, 27, 96, 5, 256), np.dtype(np.float64))
    assert not fourier_conv.applies(geometry(64, 28, 1, 5, 32), f32)  # one input channel: im2col is cheap
    assert not fourier_conv.applies(geometry(16, 56, 64, 3, 64), f32)  # 3x3: too few taps to save enough
    assert not fourier_conv.applies(geometry(2, 14, 32, 5, 64), f32)  # too small to matter
    assert not fourier_conv.applies(geometry(64, 27, 96, 5, 256, stride=2), f32)
    assert not fourier_conv.applies(geometry(64, 27, 96, 5, 256, dilation=2), f32)
    assert not fourier_conv.applies(geometry(64, 27, 96, 5, 256, filter_depth=48), f32)  # two groups
    assert not fourier_conv.applies(geometry(64, 27, 96, 5, 256), np.dtype(np.int32))


def test_fourier_kernels_on_two_threads_equal_one_thread(monkeypatch):
    _force_fourier(monkeypatch)
    x = RNG.standard_normal((5, 9, 8, 6)).astype(np.float32)
    f = RNG.standard_normal((3, 4, 6, 7)).astype(np.float32)
    window = conv_kernels.Window
    g = conv_kernels.ConvGeometry(5, 9, 8, 6, 3, 4, 6, 7, window(9, 1, 1), window(8, 1, 2), 1, 1, 1, 1)
    _assert_kernels_equal_on_two_threads_and_one(x, f, g)


def test_fused_convolution_applies_its_bias_and_relu_to_the_fourier_output(monkeypatch):
    _force_fourier(monkeypatch)
    x, f = RNG.standard_normal((2, 9, 8, 3)), RNG.standard_normal((3, 4, 3, 5))
    bias = RNG.standard_normal(5)
    y = tf.nn.relu(tf.nn.conv2d(x.astype(np.float32), f.astype(np.float32), [1, 1, 1, 1], "SAME")
                   + bias.astype(np.float32))
    with tf.Session() as sess:
        got = sess.run(y)
    want = np.maximum(_reference(x, f, (1, 1), ("SAME", "SAME"), (1, 1), np.zeros((2, 9, 8, 5)))[0] + bias, 0)
    np.testing.assert_allclose(got, want, atol=1e-5 * np.abs(want).max(), rtol=0)
