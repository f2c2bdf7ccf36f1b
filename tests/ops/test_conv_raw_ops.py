"""TF 2's raw Conv (`tf.conv`) and Conv2DBackpropInputV2/FilterV2 (`tf.conv2d_backprop_input_v2`,
`tf.conv2d_backprop_filter_v2`) against values and messages recorded from real TensorFlow 2.21
(`tf.compat.v1`). TF 2.21 registers no CPU kernel for the V2 backprops; they must equal the V1 ops, whose
values are TF's."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_op, runtime_message

X = (np.arange(2 * 1 * 3 * 3 * 4, dtype=np.float32).reshape(2, 1, 3, 3, 4) % 7 - 3) / 2
F = (np.arange(2 * 2 * 4 * 2, dtype=np.float32).reshape(2, 2, 4, 2) % 5 - 2)
X3 = (np.arange(1 * 3 * 3 * 3 * 2, dtype=np.float32).reshape(1, 3, 3, 3, 2) % 5 - 2)
F3 = (np.arange(2 * 2 * 2 * 2 * 1, dtype=np.float32).reshape(2, 2, 2, 2, 1) % 3 - 1)
CASES = {
    "batch_dims": lambda x, f, x3, f3: tf.conv(x, f, [1, 1, 1, 1], "VALID", batch_dims=2),
    "explicit_strided": lambda x, f, x3, f3: tf.conv(x[:, 0], f, [1, 2, 1, 1], "EXPLICIT",
                                                     explicit_paddings=[0, 0, 1, 0, 0, 1, 0, 0]),
    "conv3d": lambda x, f, x3, f3: tf.conv(x3, f3, [1, 1, 2, 1, 1], "SAME"),
}
TF_CONV = {
    'batch_dims': [[[[[-1.5, 10.5], [8.5, -9.0]], [[-6.5, 4.5], [10.5, 6.0]]]], [[[[-6.0, -0.5], [-6.5, 4.5]], [[-7.5, -3.0], [2.5, -8.5]]]]],
    'explicit_strided': [[[[6.0, 2.0], [-5.0, 0.5], [0.5, -0.5]], [[-6.5, 4.5], [10.5, 6.0], [-7.0, -2.0]]], [[[1.5, -4.5], [1.0, 4.5], [-0.5, 0.5]], [[-7.5, -3.0], [2.5, -8.5], [5.5, 5.0]]]],
    'conv3d': [[[[[-5.0], [8.0], [-5.0]], [[4.0], [-6.0], [5.0]]], [[[2.0], [-5.0], [2.0]], [[-1.0], [4.0], [-3.0]]], [[[-1.0], [-3.0], [2.0]], [[-2.0], [1.0], [0.0]]]]],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_matches_tf(case):
    expected = np.array(TF_CONV[case], np.float32)
    check_op(lambda x, f, x3, f3: CASES[case](x, f, x3, f3), [X, F, X3, F3], expected)


def test_conv_agrees_with_conv2d_and_takes_int32():
    rng = np.random.RandomState(0)
    x, f = rng.randn(2, 5, 6, 4).astype(np.float32), rng.randn(3, 2, 4, 3).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        got, want = sess.run([tf.conv(x, f, [1, 2, 1, 1], "SAME", dilations=[1, 1, 2, 1]),
                              tf.nn.conv2d(x, f, [1, 2, 1, 1], "SAME", dilations=[1, 1, 2, 1])])
        np.testing.assert_allclose(got, want, rtol=1e-6)
        exact = sess.run(tf.nn.conv2d(np.round(x), np.round(f), [1, 1, 1, 1], "VALID"))
    check_op(lambda a, b: tf.conv(a, b, [1, 1, 1, 1], "VALID"), [np.round(x).astype(np.int32),
                                                               np.round(f).astype(np.int32)], exact.astype(np.int32))


def test_static_shapes_like_tf():
    with tf.Graph().as_default():
        assert tf.conv(X[:, 0], F, [1, 1, 1, 1], "SAME").shape.as_list() == [2, 3, 3, 2]
        assert tf.conv(np.zeros((2, 4, 5, 6), np.float32), F, [1, 1, 1, 1], "VALID",
                       data_format="CHANNELS_FIRST").shape.as_list() == [2, 2, 4, 5]
        assert tf.conv(tf.placeholder(tf.float32), F, [1, 1, 1, 1], "VALID").shape.ndims is None
        partial = tf.conv(tf.placeholder(tf.float32, [None, 5, None, 4]), F, [1, 1, 1, 1], "VALID")
        assert partial.shape.as_list() == [None, 4, None, 2]
        grouped = tf.conv(tf.placeholder(tf.float32, [1, 3, 3, 8]), F, [1, 1, 1, 1], "VALID", groups=2)
        assert grouped.shape.as_list() == [1, 2, 2, 2]
        p = tf.placeholder(tf.float32, [2, 5, 6, 4])
        assert tf.conv2d_backprop_filter_v2(p, tf.placeholder(tf.float32), p, [1, 1, 1, 1],
                                            "VALID").shape.as_list() == [None] * 4
        assert tf.conv2d_backprop_input_v2(p, F, p, [1, 1, 1, 1], "VALID").shape.as_list() == [2, 5, 6, 4]


CONV_STATIC_ERRORS = [
    (lambda: tf.conv(X[:, 0], F, [1, 1, 1, 1], "VALID", batch_dims=0), "Input tensor rank must be the same as filter rank."),
    (lambda: tf.conv(X[:, 0], F, [1, 1, 1, 1], "VALID", batch_dims=3),
     "Input tensor must be rank 4 or 5, excluding extra batch dimensions, but got: 2"),
    (lambda: tf.conv(X[:, 0], F[0], [1, 1, 1, 1], "VALID"), "Filter tensor must be rank 4 or 5, but got: 4"),
    (lambda: tf.conv(X, F, [1, 1, 1, 1, 1], "VALID", batch_dims=2), "Stride attribute should contain 4 values, but got: 5"),
    (lambda: tf.conv(X[:, 0], F[:, :, :3], [1, 1, 1, 1], "VALID"),
     r"Depth of input \(4\) is not a multiple of input depth of filter \(3\)"),
    (lambda: tf.conv(X[:, 0], F[:, :, :2], [1, 1, 1, 1], "VALID"),
     r"Input depth divided by filter input depth does not match with groups parameter \(1\)"),
    (lambda: tf.conv(X[:, 0], F[:, :, :2, :1], [1, 1, 1, 1], "VALID", groups=2), "Number of groups should divide output depth"),
    (lambda: tf.conv(X[:, 0], F, [1, 1, 1, 1], "VALID", dilations=[1, 1, 1]),
     "Conv requires the dilation attribute to contain 4 values, but got: 3"),
    (lambda: tf.conv(X[:, 0], F, [1, 1, 1, 1], "EXPLICIT", explicit_paddings=[0, 0, 1, 1]),
     "explicit_paddings attribute must contain 8 values, but got: 4"),
    (lambda: tf.conv(X[:, 0], F, [1, 1, 1, 1], "VALID", explicit_paddings=[0] * 8),
     "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"),
    (lambda: tf.conv(X3, F3, [1] * 5, "EXPLICIT", explicit_paddings=[0] * 10), "Explicit padding not supported for 3D"),
    (lambda: tf.conv(X[:, 0], F, [1, 0, 1, 1], "VALID"), "Stride must be > 0, but got 0"),
    (lambda: tf.conv(X[:, 0], np.zeros((7, 2, 4, 3), np.float32), [1, 1, 1, 1], "VALID"),
     "Negative dimension size caused by subtracting 7 from 3"),
    (lambda: tf.conv2d_backprop_filter_v2(X[:, 0], F[0], X[:, 0], [1, 1, 1, 1], "VALID"), "Shape must be rank 4 but is rank 3"),
    (lambda: tf.conv2d_backprop_input_v2(X[0, 0], F, X[:, 0], [1, 1, 1, 1], "VALID"), "Shape must be rank 4 but is rank 3"),
]


@pytest.mark.parametrize("case", range(len(CONV_STATIC_ERRORS)))
def test_static_errors_like_tf(case):
    build, message = CONV_STATIC_ERRORS[case]
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        build()


CONV_RUNTIME_ERRORS = [
    (lambda: tf.conv(X[:, 0], F, [2, 1, 1, 1], "VALID"), tf.errors.InvalidArgumentError,
     "Current implementation does not support strides in the batch and depth dimensions."),
    (lambda: tf.conv(X[:, 0], F, [1, 1, 1, 1], "VALID", dilations=[2, 1, 1, 1]), tf.errors.InvalidArgumentError,
     "Current implementation does not support dilation rates in the batch and depth dimensions."),
    (lambda: tf.conv(np.moveaxis(X[:, 0], -1, 1), F, [1, 1, 1, 1], "SAME", data_format="CHANNELS_FIRST"),
     tf.errors.UnimplementedError, "The Conv2D op currently only supports the NHWC tensor format on the CPU. The op "
                                   "was given the format: NCHW"),
    (lambda: tf.conv(np.ones((1, 2, 3, 3, 3), np.float32), F3, [1] * 5, "SAME", data_format="CHANNELS_FIRST"),
     tf.errors.InvalidArgumentError, "CPU implementation of Conv3D currently only supports the NHWC tensor format."),
    (lambda: tf.conv(np.ones((1, 3, 3, 8), np.float32), F, [1, 1, 1, 1], "VALID", groups=2),
     tf.errors.UnimplementedError, "Grouped/Depthwise Convolutions are not supported yet."),
]


@pytest.mark.parametrize("case", range(len(CONV_RUNTIME_ERRORS)))
def test_runtime_errors_like_tf(case):
    build, error, message = CONV_RUNTIME_ERRORS[case]
    with tf.Graph().as_default(), tf.Session() as sess:
        output = build()
        with pytest.raises(error, match=message) as raised:
            sess.run(output)
        assert f"node {output.op.name}" in str(raised.value)


@pytest.mark.parametrize("padding, strides", [("VALID", [1, 1, 1, 1]), ("SAME", [1, 2, 2, 1])])
def test_backprop_v2_equal_v1(padding, strides):
    rng = np.random.RandomState(1)
    x, f = rng.randn(2, 5, 6, 4).astype(np.float32), rng.randn(3, 2, 4, 3).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        dy = rng.randn(*tf.nn.conv2d(x, f, strides, padding).shape.as_list()).astype(np.float32)
        want_filter, want_input = sess.run([tf.nn.conv2d_backprop_filter(x, f.shape, dy, strides, padding),
                                            tf.nn.conv2d_backprop_input(x.shape, f, dy, strides, padding)])
    check_op(lambda a, b, c: tf.conv2d_backprop_filter_v2(a, b, c, strides, padding), [x, f, dy], want_filter)
    check_op(lambda a, b, c: tf.conv2d_backprop_input_v2(a, b, c, strides, padding), [x, f, dy], want_input)


def test_explicit_padding_runs_tfs_own_cpu_kernels_with_their_limits():
    """With EXPLICIT padding TF 2.21's CPU runs its own kernels (oneDNN takes SAME and VALID), whose limits
    are errors when run: the Conv2D backprops and MaxPool(Grad) take NHWC only, the Conv2D backprops no
    dilations, the depthwise backprops equal row and column strides and NHWC only, ignoring dilations."""
    raw = tf.raw_ops
    nchw = [0, 0, 0, 0, 1, 1, 1, 0]
    nhwc = [0, 0, 1, 1, 1, 0, 0, 0]
    x_c, x_n, f = tf.ones([1, 2, 6, 6]), tf.ones([1, 6, 6, 2]), tf.ones([3, 3, 2, 2])
    y_c = raw.Conv2D(input=x_c, filter=f, strides=[1] * 4, padding="EXPLICIT", explicit_paddings=nchw,
                     data_format="NCHW")
    y_n = raw.Conv2D(input=x_n, filter=f, strides=[1] * 4, padding="EXPLICIT", explicit_paddings=nhwc,
                     dilations=[1, 2, 1, 1])
    fd = tf.ones([3, 3, 2, 1])
    yd = raw.DepthwiseConv2dNative(input=x_n, filter=fd, strides=[1, 1, 2, 1], padding="EXPLICIT",
                                   explicit_paddings=nhwc)
    yd_c = raw.DepthwiseConv2dNative(input=x_c, filter=fd, strides=[1] * 4, padding="EXPLICIT",
                                     explicit_paddings=nchw, data_format="NCHW")
    cases = [
        (raw.Conv2DBackpropInput(input_sizes=[1, 2, 6, 6], filter=f, out_backprop=y_c, strides=[1] * 4,
                                 padding="EXPLICIT", explicit_paddings=nchw, data_format="NCHW"),
         tf.errors.InvalidArgumentError, "Conv2DCustomBackpropInputOp only supports NHWC."),
        (raw.Conv2DBackpropFilter(input=x_c, filter_sizes=[3, 3, 2, 2], out_backprop=y_c, strides=[1] * 4,
                                  padding="EXPLICIT", explicit_paddings=nchw, data_format="NCHW"),
         tf.errors.InvalidArgumentError, "Conv2DCustomBackpropFilterOp only supports NHWC."),
        (raw.Conv2DBackpropInput(input_sizes=[1, 6, 6, 2], filter=f, out_backprop=y_n, strides=[1] * 4,
                                 padding="EXPLICIT", explicit_paddings=nhwc, dilations=[1, 2, 1, 1]),
         tf.errors.InvalidArgumentError, "Current CPU implementations do not yet support dilation rates larger than 1."),
        (raw.MaxPool(input=x_c, ksize=[1, 1, 2, 2], strides=[1] * 4, padding="EXPLICIT", explicit_paddings=nchw,
                     data_format="NCHW"),
         tf.errors.InvalidArgumentError, "Default MaxPoolingOp only supports NHWC on device type CPU"),
        (raw.DepthwiseConv2dNativeBackpropFilter(input=x_n, filter_sizes=[3, 3, 2, 1], out_backprop=yd,
                                                 strides=[1, 1, 2, 1], padding="EXPLICIT", explicit_paddings=nhwc),
         tf.errors.InvalidArgumentError, "Current implementation only supports equal length strides in the row and "
                                         "column dimensions."),
        (raw.DepthwiseConv2dNativeBackpropInput(input_sizes=[1, 2, 6, 6], filter=fd, out_backprop=yd_c,
                                                strides=[1] * 4, padding="EXPLICIT", explicit_paddings=nchw,
                                                data_format="NCHW"),
         tf.errors.UnimplementedError, "Depthwise convolution on CPU is only supported for NHWC format"),
        (raw.DepthwiseConv2dNativeBackpropInput(input_sizes=[1, 6, 6, 2], filter=fd, out_backprop=tf.ones([1, 4, 5, 2]),
                                                strides=[1] * 4, padding="EXPLICIT", explicit_paddings=nhwc,
                                                dilations=[1, 2, 1, 1]),
         tf.errors.InvalidArgumentError, "DepthwiseConv2DBackpropInput: Number of rows of out_backprop doesn't match "
                                         "computed: actual = 4, computed = 6"),
    ]
    with tf.Session() as sess:
        for tensor, error, message in cases:
            with pytest.raises(error) as info:
                sess.run(tensor)
            assert runtime_message(info.value).startswith(message)
        # The same ops with SAME padding run (oneDNN's kernels in TF).
        sess.run(raw.MaxPool(input=x_c, ksize=[1, 1, 2, 2], strides=[1] * 4, padding="SAME", data_format="NCHW"))
