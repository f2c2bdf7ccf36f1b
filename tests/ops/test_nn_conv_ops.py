"""Convolutions and pooling against a direct NumPy reference (a loop over every output pixel, on small shapes)
and against literals recorded from real TensorFlow 2.21 (`tf.compat.v1`) for the padding edge cases: SAME
with an even kernel and strides, dilations, NCHW, AvgPool's divisor at the borders, half precision; graph
names, static shapes, error classes and messages are TF's too."""

import re

import numpy as np
import pytest
from op_testing import check_gradient, check_op, check_tensor

import tensorweave.compat.v1 as tf

RNG = np.random.default_rng(0)


def _random(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def _pads(size, k, stride, dilation, padding):
    """TF's output size and (before, after) padding of one dimension."""
    effective = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        needed = max(0, (out - 1) * stride + effective - size)
        return out, needed // 2, needed - needed // 2
    return (size - effective + stride) // stride, 0, 0


def _conv_reference(x, f, strides, padding, dilations=(1, 1), depthwise=False):
    """NHWC convolution by definition: every output pixel a sum over its window (groups by input depth)."""
    n, h, w, c = x.shape
    kh, kw, fc, m = f.shape
    oh, top, _ = _pads(h, kh, strides[0], dilations[0], padding)
    ow, left, _ = _pads(w, kw, strides[1], dilations[1], padding)
    out_depth = c * m if depthwise else m
    out = np.zeros((n, oh, ow, out_depth), np.float64)
    groups = c if depthwise else c // fc
    per_group = out_depth // groups
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    y, z = i * strides[0] - top + a * dilations[0], j * strides[1] - left + b * dilations[1]
                    if 0 <= y < h and 0 <= z < w:
                        for o in range(out_depth):
                            g = o // per_group
                            if depthwise:
                                out[:, i, j, o] += x[:, y, z, g] * f[a, b, g, o % m]
                            else:
                                out[:, i, j, o] += x[:, y, z, g * fc:(g + 1) * fc] @ f[a, b, :, o]
    return out


def _pool_reference(x, k, s, padding, reduce):
    n, h, w, c = x.shape
    oh, top, _ = _pads(h, k[0], s[0], 1, padding)
    ow, left, _ = _pads(w, k[1], s[1], 1, padding)
    out = np.zeros((n, oh, ow, c), x.dtype)
    for i in range(oh):
        for j in range(ow):
            y0, z0 = max(0, i * s[0] - top), max(0, j * s[1] - left)
            out[:, i, j] = reduce(x[:, y0:i * s[0] - top + k[0], z0:j * s[1] - left + k[1]], axis=(1, 2))
    return out


CONV_CASES = [  # input, filter, strides, padding, dilations
    ((2, 6, 7, 3), (2, 2, 3, 4), (2, 2), "SAME", (1, 1)),
    ((1, 7, 7, 2), (4, 4, 2, 3), (3, 2), "SAME", (1, 1)),
    ((2, 8, 9, 3), (3, 2, 3, 5), (1, 1), "VALID", (2, 3)),
    ((1, 6, 6, 4), (3, 3, 2, 6), (1, 1), "SAME", (1, 1)),  # two groups
]


@pytest.mark.parametrize("input_shape,filter_shape,strides,padding,dilations", CONV_CASES)
def test_conv2d_matches_reference(input_shape, filter_shape, strides, padding, dilations):
    x, f = _random(*input_shape), _random(*filter_shape)
    want = _conv_reference(x, f, strides, padding, dilations).astype(np.float32)
    check_op(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x, f], want,
             rtol=1e-5, atol=1e-5)
    nchw = tf.nn.conv2d(x.transpose(0, 3, 1, 2), f, strides, padding, data_format="NCHW", dilations=dilations)
    check_tensor(nchw, want.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-5)
    check_op(lambda a, b: tf.nn.conv2d(a, b, strides, padding, dilations=dilations), [x.astype(np.float64),
             f.astype(np.float64)], want.astype(np.float64))


def test_conv2d_padding_edge_cases_match_tf():
    x = np.arange(1, 26, dtype=np.float32).reshape(1, 5, 5, 1)
    even = np.array([1, 2, 3, 4], np.float32).reshape(2, 2, 1, 1)
    taps = np.array([1, 0, -1, 2, 1, 0, 0, 1, 1], np.float32).reshape(3, 3, 1, 1)
    check_tensor(tf.nn.conv2d(x, even, [1, 2, 2, 1], "SAME"),  # the odd padding goes after
                 np.array([[51, 71, 35], [151, 171, 75], [65, 71, 25]], np.float32).reshape(1, 3, 3, 1))
    check_tensor(tf.nn.conv2d(x, taps, 1, "SAME", dilations=2), np.array(
        [[25, 28, 33, 22, 26], [40, 43, 58, 42, 46], [52, 54, 79, 64, 69], [8, 8, 46, 60, 64],
         [8, 8, 61, 80, 84]], np.float32).reshape(1, 5, 5, 1))
    nchw = np.arange(1, 19, dtype=np.float32).reshape(1, 2, 3, 3)
    check_tensor(tf.nn.conv2d(nchw, np.array([1, -1, 2, 0, 1, 1, -1, 0], np.float32).reshape(2, 2, 2, 1),
                              [1, 1, 2, 2], "SAME", data_format="NCHW"),
                 np.array([[7, 12], [7, -9]], np.float32).reshape(1, 1, 2, 2))
    half = tf.nn.conv2d(tf.constant(x, tf.float16) / 10, tf.constant(taps, tf.float16) / 3, [1, 1, 1, 1], "VALID")
    check_tensor(half, np.array([[1.3994140625, 1.56640625, 1.732421875], [2.232421875, 2.400390625, 2.56640625],
                                 [3.06640625, 3.232421875, 3.3984375]], np.float16).reshape(1, 3, 3, 1))
    explicit = tf.nn.conv2d(x, even, [1, 2, 1, 1], [[0, 0], [1, 2], [0, 3], [0, 0]])
    padded = np.pad(x, ((0, 0), (1, 2), (0, 3), (0, 0)))
    check_tensor(explicit, _conv_reference(padded, even, (2, 1), "VALID").astype(np.float32))


def test_conv2d_graph_and_shapes():
    x = tf.placeholder(tf.float32, [None, 28, 28, 1])
    y = tf.nn.conv2d(x, tf.zeros([5, 5, 1, 32]), strides=[1, 1, 1, 1], padding="SAME")
    assert (y.name, y.op.type, y.shape.as_list()) == ("Conv2D:0", "Conv2D", [None, 28, 28, 32])
    assert y.op.get_attr("strides") == [1, 1, 1, 1] and y.op.get_attr("use_cudnn_on_gpu") is True
    assert tf.nn.conv2d(x, tf.zeros([2, 2, 1, 4]), 2, "VALID").shape.as_list() == [None, 14, 14, 4]
    assert tf.nn.conv2d(x, tf.zeros([3, 3, 1, 4]), [2, 3], "VALID").shape.as_list() == [None, 13, 9, 4]
    assert tf.nn.conv2d(tf.placeholder(tf.float32, [1, 3, 8, 8]), tf.zeros([3, 3, 3, 4]), [1, 1, 2, 2], "SAME",
                        data_format="NCHW").shape.as_list() == [1, 4, 4, 4]


@pytest.mark.parametrize("build,message", [
    (lambda x, f: tf.nn.conv2d(x[0], f, [1, 1, 1, 1], "SAME"), "Shape must be rank 4 but is rank 3"),
    (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1], "SAME"),
     r"strides should be of length 1, 2 or 4. Received: strides=\[1, 1, 1\] of length 3"),
    (lambda x, f: tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1], padding="SAME"),
     "Conv2D on data format NHWC requires the stride attribute to contain 4 values, but got: 3"),
    (lambda x, f: tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding="SAME", dilations=[1, 1, 1]),
     "Conv2D requires the dilation attribute to contain 4 values, but got: 3"),
    (lambda x, f: tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 0, 1, 1], padding="SAME"),
     "Stride must be > 0, but got 0"),
    (lambda x, f: tf.nn.conv2d(x, f[:, :, :2], [1, 1, 1, 1], "SAME"),
     r"Depth of input \(3\) is not a multiple of input depth of filter \(2\)"),
    (lambda x, f: tf.nn.conv2d(x, tf.zeros([3, 3, 3, 4]), [1, 1, 1, 1], "VALID", dilations=3),
     "Negative dimension size caused by subtracting 7 from 5"),
    (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], [[0, 0], [1, 1], [1, 1]]),
     "When padding is a list, it must be of size 4"),
    (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], [[1, 0], [1, 1], [1, 1], [0, 0]]),
     "Nonzero explicit padding in the batch or depth dimensions is not supported"),
    (lambda x, f: tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding="SAME",
                                    explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0]),
     "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT"),
    (lambda x, f: tf.nn.max_pool(x, [1, 6, 6, 1], [1, 1, 1, 1], "VALID"),
     "Negative dimension size caused by subtracting 6 from 5"),
    (lambda x, f: tf.nn.conv2d_transpose(tf.zeros([1, 3, 3, 5]), f, [1, 5, 5, 3], [1, 2, 2, 1], "SAME"),
     "Dimensions must be equal, but are 5 and 4"),
])
def test_static_errors(build, message):
    x, f = tf.zeros([1, 5, 5, 3]), tf.zeros([2, 2, 3, 4])
    with pytest.raises(ValueError, match=message):
        build(x, f)


def test_runtime_errors_name_the_node():
    x = tf.placeholder_with_default(np.zeros((1, 5, 5, 3), np.float32), None)
    f = tf.placeholder_with_default(np.zeros((2, 2, 2, 4), np.float32), None)
    cases = [
        (tf.raw_ops.Conv2D(input=x, filter=f, strides=[1, 1, 1, 1], padding="SAME"), tf.errors.InvalidArgumentError,
         "input depth must be evenly divisible by filter depth: 3 vs 2"),
        (tf.raw_ops.Conv2D(input=x[0], filter=f, strides=[1, 1, 1, 1], padding="SAME"),
         tf.errors.InvalidArgumentError, r"convolution input must be 4-dimensional: \[5,5,3\]"),
        (tf.raw_ops.Conv2D(input=x, filter=f, strides=[2, 1, 1, 1], padding="SAME"), tf.errors.UnimplementedError,
         "Current implementation does not yet support strides in the batch and depth dimensions."),
        (tf.raw_ops.MaxPool(input=x, ksize=[2, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME"),
         tf.errors.UnimplementedError, "Pooling is not yet supported on the batch dimension."),
        (tf.raw_ops.MaxPool(input=x, ksize=[1, 0, 2, 1], strides=[1, 2, 2, 1], padding="SAME"),
         tf.errors.InvalidArgumentError, "Sliding window ksize must be positive. The specified or inferred ksize is: "
                                         "1,0,2,1"),
        (tf.nn.conv2d_transpose(tf.zeros([1, 3, 3, 4]), tf.zeros([2, 2, 3, 4]), [1, 5, 5, 3], [1, 1, 1, 1], "SAME",
                                name="up"), tf.errors.InvalidArgumentError,
         "Conv2DCustomBackpropInput: Size of out_backprop doesn't match computed: actual = 3, computed = 5 "
         "spatial_dim: 1 input: 5 filter: 2 output: 3 stride: 1 dilation: 1"),
    ]
    with tf.Session() as sess:
        for tensor, error, message in cases:
            with pytest.raises(error, match=message) as info:
                sess.run(tensor)
            assert info.value.node_def.name == tensor.op.name


def test_conv1d_and_convolution_compose_as_tf():
    x, f = _random(2, 9, 3), _random(3, 3, 4)
    y = tf.nn.conv1d(tf.constant(x), tf.constant(f), 2, "SAME")
    ops = [(op.name, op.type) for op in tf.get_default_graph().get_operations()]
    assert ops[2:] == [("conv1d/ExpandDims/dim", "Const"), ("conv1d/ExpandDims", "ExpandDims"),
                       ("conv1d/ExpandDims_1/dim", "Const"), ("conv1d/ExpandDims_1", "ExpandDims"),
                       ("conv1d", "Conv2D"), ("conv1d/Squeeze", "Squeeze")]
    check_tensor(y, _conv_reference(x[:, None], f[None], (1, 2), "SAME")[:, 0].astype(np.float32), rtol=1e-5,
                 atol=1e-5)
    x2, f2 = _random(1, 7, 7, 2), _random(3, 3, 2, 3)
    conv = tf.nn.convolution(x2, f2, "SAME", dilation_rate=[2, 2])
    atrous = tf.nn.atrous_conv2d(x2, f2, 2, "SAME")
    assert (conv.op.type, conv.op.name) == ("BatchToSpaceND", "convolution/BatchToSpaceND")
    assert tf.get_default_graph().get_operation_by_name("convolution").type == "Conv2D"
    want = _conv_reference(x2, f2, (1, 1), "SAME", (2, 2)).astype(np.float32)
    check_tensor(conv, want, rtol=1e-5, atol=1e-5)
    check_tensor(atrous, want, rtol=1e-5, atol=1e-5)


def test_dilated_convolution_rejects_strides_as_tf():
    x, f = tf.zeros([1, 7, 7, 2]), tf.zeros([3, 3, 2, 3])
    with pytest.raises(ValueError, match=r"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
                                         r"Received: strides=\[2 2\] and dilation_rate=\[2 2\]"):
        tf.nn.convolution(x, f, "VALID", strides=[2, 2], dilation_rate=[2, 2])
    with pytest.raises(ValueError, match=r"all values of `dilation_rate` must be positive. Received: "
                                         r"dilation_rate=\[0 0\]"):
        tf.nn.atrous_conv2d(x, f, 0, "SAME")


def test_depthwise_rate_with_strides_strides_the_space_to_batch_blocks():
    # TF runs a dilated depthwise conv undilated inside SpaceToBatchND, so strides step over the blocks
    # (values recorded from TF 2.21).
    x = np.transpose(np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5) % 7, [0, 2, 3, 1])
    w = np.arange(36, dtype=np.float32).reshape(3, 3, 2, 2) % 4 - 1.5
    y = tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME", rate=[2, 2])
    assert y.op.type == "BatchToSpaceND"
    check_tensor(y, np.array([[[[-15.0, -5.0, 6.0, 18.0], [-21.0, -7.0, 4.5, 13.5], [-16.5, -5.5, 6.5, 19.5]],
                               [[-13.5, -4.5, 5.5, 16.5], [-19.5, -6.5, 7.5, 22.5], [-15.0, -5.0, 6.0, 18.0]],
                               [[-22.5, -7.5, 5.0, 15.0], [-18.0, -6.0, 7.0, 21.0], [-13.5, -4.5, 5.5, 16.5]]]],
                             np.float32))


def test_depthwise_and_separable():
    x, f, p = _random(2, 6, 5, 3), _random(3, 3, 3, 2), _random(1, 1, 6, 4)
    want = _conv_reference(x, f, (2, 2), "SAME", depthwise=True).astype(np.float32)
    check_op(lambda a, b: tf.nn.depthwise_conv2d_native(a, b, [1, 2, 2, 1], "SAME"), [x, f], want, rtol=1e-5,
             atol=1e-5)
    dw = tf.nn.depthwise_conv2d(x, f, [1, 1, 1, 1], "VALID", rate=[2, 1])
    assert (dw.op.name, dw.op.type) == ("depthwise/BatchToSpaceND", "BatchToSpaceND")
    check_tensor(dw, _conv_reference(x, f, (1, 1), "VALID", (2, 1), depthwise=True).astype(np.float32),
                 rtol=1e-5, atol=1e-5)
    sep = tf.nn.separable_conv2d(x, f, p, [1, 1, 1, 1], "SAME")
    assert [op.name for op in (sep.op, sep.op.inputs[0].op)] == ["separable_conv2d", "separable_conv2d/depthwise"]
    depthwise = _conv_reference(x, f, (1, 1), "SAME", depthwise=True)
    check_tensor(sep, (depthwise @ p[0, 0]).astype(np.float32), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
        tf.nn.depthwise_conv2d_native(x, f[:, :, :2], [1, 1, 1, 1], "SAME")


@pytest.mark.parametrize("strides,padding,dilations,data_format", [
    ((2, 2), "SAME", (1, 1), "NHWC"), ((1, 2), "VALID", (2, 1), "NHWC"), ((2, 1), "SAME", (1, 1), "NCHW")])
def test_conv_backprops_are_the_adjoints_of_conv2d(strides, padding, dilations, data_format):
    """<conv(x, f), dy> = <x, backprop_input(dy)> = <f, backprop_filter(dy)>, and the filter gradient is the
    reference's: sum over pixels of dy times the window."""
    x, f = _random(2, 7, 6, 4), _random(3, 2, 2, 6)  # two groups
    to_format = (lambda a: a.transpose(0, 3, 1, 2)) if data_format == "NCHW" else (lambda a: a)
    s4 = [1, 1, *strides] if data_format == "NCHW" else [1, *strides, 1]
    d4 = [1, 1, *dilations] if data_format == "NCHW" else [1, *dilations, 1]
    y = _conv_reference(x, f, strides, padding, dilations)
    dy = _random(*y.shape)
    f_full = _random(3, 2, 4, 6)
    dx = tf.nn.conv2d_backprop_input(list(to_format(x).shape), f, to_format(dy), s4, padding,
                                     data_format=data_format, dilations=d4)
    df = tf.nn.conv2d_backprop_filter(to_format(x), [3, 2, 4, 6], to_format(dy), s4, padding,
                                      data_format=data_format, dilations=d4)
    with tf.Session() as sess:
        dx_value, df_value = sess.run([dx, df])
    assert dx.shape.as_list() == list(dx_value.shape) and df.shape.as_list() == [3, 2, 4, 6]
    np.testing.assert_allclose(np.sum(to_format(x) * dx_value), np.sum(y * dy), rtol=1e-4)
    y_full = _conv_reference(x, f_full, strides, padding, dilations)
    np.testing.assert_allclose(np.sum(f_full * df_value), np.sum(y_full * dy), rtol=1e-4)


def test_conv2d_transpose_matches_tf():
    up = tf.nn.conv2d_transpose(tf.ones([1, 2, 2, 1]), tf.constant([1.0, 2, 3, 4], shape=[2, 2, 1, 1]),
                                [1, 4, 4, 1], [1, 2, 2, 1], "SAME")
    assert [(op.name, op.type) for op in tf.get_default_graph().get_operations()][-2:] == [
        ("conv2d_transpose/input_sizes", "Const"), ("conv2d_transpose", "Conv2DBackpropInput")]
    check_tensor(up, np.array([[1, 2, 1, 2], [3, 4, 3, 4], [1, 2, 1, 2], [3, 4, 3, 4]], np.float32).reshape(
        1, 4, 4, 1))


@pytest.mark.parametrize("k,s,padding", [((2, 2), (2, 2), "SAME"), ((3, 2), (2, 1), "VALID"),
                                         ((3, 3), (2, 2), "SAME"), ((4, 2), (3, 1), "SAME")])
def test_pooling_matches_reference(k, s, padding):
    x = _random(2, 7, 6, 3)
    check_op(lambda a: tf.nn.max_pool(a, k, s, padding), [x], _pool_reference(x, k, s, padding, np.max))
    check_op(lambda a: tf.nn.avg_pool(a, k, s, padding), [x], _pool_reference(x, k, s, padding, np.mean),
             rtol=1e-6, atol=1e-6)
    nchw = tf.nn.max_pool(x.transpose(0, 3, 1, 2), k, s, padding, data_format="NCHW")
    check_tensor(nchw, _pool_reference(x, k, s, padding, np.max).transpose(0, 3, 1, 2))
    ints = (x * 10).astype(np.int32)
    check_op(lambda a: tf.nn.max_pool2d(a, k, s, padding), [ints], _pool_reference(ints, k, s, padding, np.max))


def test_pooling_literals_and_names_match_tf():
    x = np.arange(1, 26, dtype=np.float32).reshape(1, 5, 5, 1)
    avg = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")  # border windows divide by their valid count
    check_tensor(avg, np.array([[4, 6, 7.5], [14, 16, 17.5], [21.5, 23.5, 25]], np.float32).reshape(1, 3, 3, 1))
    mx = tf.nn.max_pool(x[:, ::-1], [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    check_tensor(mx, np.array([[22, 24, 25], [17, 19, 20], [7, 9, 10]], np.float32).reshape(1, 3, 3, 1))
    pooled = tf.nn.pool(x, [2, 2], "MAX", "SAME")
    assert [(t.op.name, t.op.type) for t in (avg, mx, pooled)] == [
        ("AvgPool", "AvgPool"), ("MaxPool", "MaxPool"), ("max_pool", "MaxPool")]
    assert tf.nn.avg_pool2d(x, 2, 2, "VALID").shape.as_list() == [1, 2, 2, 1]


def test_nn_pool_ranks_dilation_and_errors():
    """tf.nn.pool of 1-D (ExpandDims, 2-D pool, Squeeze), 3-D and dilated windows, and TF's argument errors."""
    one = tf.nn.pool(tf.ones([1, 5, 1]), [2], "AVG", "SAME", strides=[2])
    assert (one.name, one.shape.as_list()) == ("avg_pool/Squeeze:0", [1, 3, 1])
    three = tf.nn.pool(tf.ones([1, 5, 4, 3, 1]), [2, 2, 2], "MAX", "VALID", strides=[1, 2, 1])
    assert (three.name, three.op.type, three.shape.as_list()) == ("max_pool:0", "MaxPool3D", [1, 4, 2, 2, 1])
    ncw = tf.nn.pool(tf.ones([1, 1, 5]), [2], "MAX", "VALID", data_format="NCW")
    assert ncw.shape.as_list() == [1, 1, 4]
    dilated = tf.nn.pool(tf.reshape(tf.range(12.0), [1, 12, 1]), [2], "AVG", "VALID", dilation_rate=[3])
    check_tensor(dilated, np.arange(1.5, 10, dtype=np.float32).reshape(1, 9, 1))
    x = tf.ones([1, 6, 6, 1])
    for kwargs, message in [
        ({"window_shape": [2, 2, 2, 2]}, "`len(window_shape)` must be 1, 2, or 3. Received: window_shape=[2, 2, 2, 2] "
                                         "of length 4"),
        ({"strides": [3, 3]}, "`strides` > `window_shape` not supported due to inconsistency between CPU and GPU "
                              "implementations. Received: strides=[3 3] and window_shape=[2, 2]"),
        ({"strides": [1]}, "`len(strides)` should be 2. Received: strides=[1] of length 1"),
        ({"dilation_rate": [0, 1]}, "all values of `dilation_rate` must be positive. Received: dilation_rate=[0 1]"),
        ({"pooling_type": "L2"}, "2-D L2 pooling is not supported."),
        ({"padding": "SAME", "dilation_rate": [2, 2]},
         "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. Received: padding=SAME and "
         "dilation_rate=[2 2]"),
    ]:
        args = {"window_shape": [2, 2], "pooling_type": "MAX", "padding": "VALID", **kwargs}
        with pytest.raises(ValueError) as err:
            tf.nn.pool(x, **args)
        assert str(err.value) == message
    with pytest.raises(ValueError, match="^data_format must be either 'NWC' or 'NCW'. Received: data_format=NCHW$"):
        tf.nn.pool(tf.ones([1, 4, 1]), [2], "MAX", "VALID", data_format="NCHW")


def test_pool_gradients():
    x = _random(2, 7, 6, 3)
    x[0, :2, :2, 0] = 5.0  # a tie: the first position in the window gets the gradient, as TF's
    k, s = [1, 3, 3, 1], [1, 2, 2, 1]
    out = _pool_reference(x, k[1:3], s[1:3], "SAME", np.max)
    dy = np.arange(out.size, dtype=np.float32).reshape(out.shape)
    top, left = _pads(7, 3, 2, 1, "SAME")[1], _pads(6, 3, 2, 1, "SAME")[1]
    want = np.zeros_like(x)
    for n, i, j, c in np.ndindex(out.shape):
        y0, z0 = max(0, i * 2 - top), max(0, j * 2 - left)
        window = x[n, y0:i * 2 - top + 3, z0:j * 2 - left + 3, c]
        a, b = np.unravel_index(np.argmax(window), window.shape)
        want[n, y0 + a, z0 + b, c] += dy[n, i, j, c]
    grad = tf.raw_ops.MaxPoolGrad(orig_input=x, orig_output=out, grad=dy, ksize=k, strides=s, padding="SAME")
    check_tensor(grad, want)
    avg_grad = tf.raw_ops.AvgPoolGrad(orig_input_shape=[2, 7, 6, 3], grad=dy, ksize=k, strides=s, padding="SAME")
    counts = _pool_reference(np.ones((1, 7, 6, 1)), (3, 3), (2, 2), "SAME", np.sum)
    want = np.zeros_like(x)
    for n, i, j, c in np.ndindex(out.shape):
        y0, z0 = max(0, i * 2 - top), max(0, j * 2 - left)
        want[n, y0:i * 2 - top + 3, z0:j * 2 - left + 3, c] += dy[n, i, j, c] / counts[0, i, j, 0]
    check_tensor(avg_grad, want, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("padding, strides", [("SAME", 1), ("VALID", 2)])
def test_conv2d_and_pooling_gradients_match_numeric_differentiation(padding, strides):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 5, 6, 3))
    w = rng.standard_normal((3, 2, 3, 4))
    check_gradient(lambda a, b: tf.nn.conv2d(a, b, [1, strides, strides, 1], padding), [x, w])
    check_gradient(lambda a: tf.nn.max_pool(a, [1, 2, 2, 1], [1, strides, strides, 1], padding), [x])
    check_gradient(lambda a: tf.nn.avg_pool(a, [1, 2, 2, 1], [1, strides, strides, 1], padding), [x])


def test_a_filter_of_depth_zero_is_its_own_shape_error() -> None:
    """TF's conv shape functions check an empty filter depth before divisibility (TF 2.21 message)."""
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="^Depth of filter must not be 0"):
            tf.nn.conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 0, 2]), 1, "SAME")
        with pytest.raises(ValueError, match="^Depth of filter must not be 0"):
            tf.nn.conv3d(tf.ones([1, 4, 4, 4, 3]), tf.ones([2, 2, 2, 0, 2]), [1] * 5, "SAME")
        with pytest.raises(ValueError, match="^Depth of filter must not be 0"):
            tf.raw_ops.Conv(input=tf.ones([1, 4, 4, 3]), filter=tf.ones([2, 2, 0, 2]), strides=[1] * 4,
                            padding="SAME")
        with pytest.raises(ValueError, match=r"^Depth of input \(3\) is not a multiple of input depth of filter"):
            tf.nn.conv2d(tf.ones([1, 4, 4, 3]), tf.ones([2, 2, 2, 2]), 1, "SAME")


# -- More than one batch dimension (TF's squeeze_batch_dims) -------------------------------------------------


def _ops_since(graph, count):
    return [(op.name, op.type) for op in graph.get_operations()[count:]]


def _batched_reference(x, f, strides, padding, dilations=(1, 1)):
    """_conv_reference over every batch dimension but the last three, merged and split back."""
    out = _conv_reference(x.reshape(-1, *x.shape[-3:]), f, strides, padding, dilations)
    return out.reshape(*x.shape[:-3], *out.shape[1:]).astype(x.dtype)


def test_conv2d_and_convolution_reshape_extra_batch_dimensions_as_tf():
    """TF merges the batch dimensions into one around the Conv2D (Reshape, Conv2D, Reshape back), under
    `squeeze_batch_dims` for conv2d and under the wrapper's own scope for conv1d and convolution."""
    x = _random(2, 2, 5, 5, 3)
    f = _random(3, 3, 3, 2)
    with tf.Graph().as_default() as g:
        count = len(g.get_operations())
        xt, ft = tf.constant(x), tf.constant(f)
        y = tf.nn.conv2d(xt, ft, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])
        assert y.name == "squeeze_batch_dims/Reshape_1:0" and y.shape.as_list() == [2, 2, 3, 3, 2]
        assert _ops_since(g, count + 2) == [
            ("squeeze_batch_dims/Reshape/shape", "Const"), ("squeeze_batch_dims/Reshape", "Reshape"),
            ("squeeze_batch_dims/Conv2D", "Conv2D"), ("squeeze_batch_dims/concat/values_0", "Const"),
            ("squeeze_batch_dims/concat/values_1", "Const"), ("squeeze_batch_dims/concat/axis", "Const"),
            ("squeeze_batch_dims/concat", "ConcatV2"), ("squeeze_batch_dims/Reshape_1", "Reshape")]
        check_tensor(y, _batched_reference(np.pad(x, [(0, 0)] * 2 + [(1, 1)] * 2 + [(0, 0)]), f, (2, 2), "VALID"),
                     atol=1e-4)
        y6 = tf.nn.conv2d(tf.ones([2, 1, 2, 5, 5, 3]), ft, 1, "VALID")
        assert y6.shape.as_list() == [2, 1, 2, 3, 3, 2]
        z = tf.nn.convolution(xt, ft, "VALID")
        assert z.name == "convolution/Reshape_1:0" and g.get_operation_by_name("convolution/Conv2D").type == "Conv2D"
        check_tensor(z, _batched_reference(x, f, (1, 1), "VALID"), atol=1e-4)
        nchw = tf.nn.convolution(tf.ones([2, 2, 3, 5, 5]), ft, "VALID", strides=2, data_format="NCHW")
        assert nchw.shape.as_list() == [2, 2, 2, 2, 3]
        # conv1d: ExpandDims, then Reshape/Conv2D/Reshape_1 in conv1d's scope, Squeeze.
        c1 = tf.nn.conv1d(tf.constant(x[:, :, 0]), tf.constant(f[0]), 1, "SAME")
        assert c1.name == "conv1d/Squeeze:0" and c1.shape.as_list() == [2, 2, 5, 2]
        assert g.get_operation_by_name("conv1d/Conv2D").inputs[0].name == "conv1d/Reshape:0"
        check_tensor(c1, _batched_reference(x[:, :, :1], f[:1], (1, 1), "SAME")[:, :, 0], atol=1e-4)
        assert tf.nn.convolution(tf.ones([2, 2, 5, 3]), f[0], "SAME").name == "convolution_2/Squeeze:0"


def test_extra_batch_dimensions_of_unknown_size_and_dilation():
    """An unknown batch dimension reshapes through Shape/strided_slice and keeps the static shape TF sets; a
    dilated convolution runs the merged Conv2D between SpaceToBatchND and BatchToSpaceND."""
    x = _random(2, 2, 7, 6, 3)
    f = _random(3, 3, 3, 2)
    with tf.Graph().as_default() as g:
        ph = tf.placeholder(tf.float32, [None, 2, 7, 6, 3])
        y = tf.nn.conv2d(ph, tf.constant(f), 1, "VALID")
        assert y.shape.as_list() == [None, 2, 5, 4, 2]
        assert g.get_operation_by_name("squeeze_batch_dims/strided_slice").type == "StridedSlice"
        check_tensor(y, _batched_reference(x, f, (1, 1), "VALID"), {ph: x}, fully_defined=False, atol=1e-4)
        d = tf.nn.convolution(tf.constant(x), tf.constant(f), "SAME", dilation_rate=[2, 3])
        assert d.name == "convolution/BatchToSpaceND:0" and d.shape.as_list() == [2, 2, 7, 6, 2]
        assert g.get_operation_by_name("convolution/SpaceToBatchND/block_shape").get_attr("value") is not None
        assert [g.get_operation_by_name(f"convolution/{n}").type for n in ("Reshape", "Conv2D", "Reshape_1")] == [
            "Reshape", "Conv2D", "Reshape"]
        check_tensor(d, _batched_reference(x, f, (1, 1), "SAME", (2, 3)), atol=1e-4)


def test_gradients_through_extra_batch_dimensions():
    check_gradient(lambda x, f: tf.nn.conv2d(x, f, 1, "SAME"), [_random(2, 2, 4, 4, 2), _random(3, 3, 2, 2)])
    check_gradient(lambda x, f: tf.nn.convolution(x, f, "SAME", dilation_rate=[2, 2]),
                   [_random(2, 2, 4, 4, 2), _random(3, 3, 2, 2)])
    check_gradient(lambda x, f: tf.nn.conv1d(x, f, 2, "VALID"), [_random(2, 2, 5, 2), _random(3, 2, 2)])


def test_extra_batch_dimensions_where_tf_refuses_them():
    """Depthwise, transposed and v1 conv3d convolutions and pooling keep their op's rank check; convolution's
    own checks are TF's messages."""
    x5, w = tf.ones([2, 2, 5, 5, 3]), tf.ones([3, 3, 3, 2])
    with pytest.raises(ValueError, match=r"Shape must be rank 4 but is rank 5 for '\{\{node depthwise\}\} = "
                                         r"DepthwiseConv2dNative"):
        tf.nn.depthwise_conv2d(x5, w, [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"Shape must be rank 4 but is rank 5 for '\{\{node conv2d_transpose\}\}"):
        tf.nn.conv2d_transpose(x5, tf.ones([3, 3, 2, 3]), [2, 2, 5, 5, 2], [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match=r"Shape must be rank 5 but is rank 6 for '\{\{node Conv3D\}\}"):
        tf.nn.conv3d(tf.ones([2, 2, 4, 4, 4, 3]), tf.ones([2, 2, 2, 3, 2]), [1] * 5, "SAME")
    with pytest.raises(ValueError, match=r"Shape must be rank 4 but is rank 5 for '\{\{node MaxPool2d\}\}"):
        tf.nn.max_pool2d(x5, 2, 2, "SAME")
    messages = [
        (lambda: tf.nn.convolution(tf.ones([2, 5, 5, 3]), tf.ones([3, 3, 3, 3, 3, 2]), "VALID"),
         "`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims=4."),
        (lambda: tf.nn.convolution(tf.placeholder(tf.float32), tf.placeholder(tf.float32), "VALID"),
         "When `num_spatial_dims` is not set, one of `input.shape.rank` or `filters.shape.rank` must be known. "
         "Received: input.shape=<unknown> of rank None and filters.shape=<unknown> of rank None"),
        (lambda: tf.nn.convolution(tf.ones([5, 3]), w, "VALID", dilation_rate=2),
         "`input.shape.rank` must be >= than `num_spatial_dims + 2`. Received: input.shape=(5, 3) of rank 2 and "
         "num_spatial_dims=2"),
        (lambda: tf.nn.convolution(x5, tf.ones([3, 3, 2, 2]), "VALID", dilation_rate=2),
         "The number of input channels is not divisible by the corresponding number of output filters. Received: "
         "input.shape=(2, 2, 5, 5, 3) with 3 channels and filters.shape=(3, 3, 2, 2) with 2 output filters."),
    ]
    for build, message in messages:
        with pytest.raises(ValueError) as info:
            build()
        assert str(info.value) == message


def test_with_space_to_batch_folds_constant_paddings_under_tf_names():
    """A static dilated convolution's paddings and crops are constants named as TF's _WithSpaceToBatch and
    required_space_to_batch_paddings make them; a dynamic one packs them per dimension."""
    with tf.Graph().as_default() as g:
        count = len(g.get_operations())
        tf.nn.convolution(tf.ones([2, 7, 6, 3]), tf.ones([3, 3, 3, 2]), "SAME", dilation_rate=[2, 3])
        assert _ops_since(g, count + 2)[:8] == [
            ("convolution/dilation_rate", "Const"), ("convolution/filter_shape", "Const"),
            ("convolution/stack", "Const"), ("convolution/required_space_to_batch_paddings/input_shape", "Const"),
            ("convolution/required_space_to_batch_paddings/paddings", "Const"),
            ("convolution/required_space_to_batch_paddings/crops", "Const"),
            ("convolution/SpaceToBatchND/block_shape", "Const"), ("convolution/SpaceToBatchND/paddings", "Const")]
        tf.nn.convolution(tf.placeholder(tf.float32, [None, None, None, 3]), tf.ones([3, 3, 3, 2]), "VALID",
                          dilation_rate=[2, 2], name="dyn")
        names = {op.name: op.type for op in g.get_operations()}
        assert names["dyn/required_space_to_batch_paddings/paddings/0"] == "Pack"
        assert names["dyn/required_space_to_batch_paddings/crops/1/0"] == "Const"
        assert names["dyn/concat/concat"] == "Identity"
        tf.nn.depthwise_conv2d(tf.ones([1, 5, 5, 3]), tf.ones([3, 3, 3, 1]), [1, 1, 1, 1], "SAME", rate=[2, 2])
        assert names.get("depthwise/Shape") is None and g.get_operation_by_name("depthwise/Shape").type == "Const"


def test_atrous_conv2d_transpose_is_composed_as_tf():
    """TF pads the input to a multiple of the rate and moves it into the batch (SpaceToBatchND), runs an
    undilated VALID Conv2DBackpropInput and crops back with BatchToSpaceND (values recorded from TF)."""
    x = np.arange(1, 2 * 4 * 4 * 2 + 1, dtype=np.float32).reshape(2, 4, 4, 2)
    w = np.linspace(-1, 1, 3 * 3 * 1 * 2, dtype=np.float32).reshape(3, 3, 1, 2)
    with tf.Graph().as_default():
        y = tf.nn.atrous_conv2d_transpose(tf.constant(x), tf.constant(w), [2, 4, 4, 1], 2, "SAME")
        z = tf.nn.atrous_conv2d_transpose(tf.constant(x), tf.constant(w), tf.constant([2, 8, 8, 1]), 2, "VALID")
        assert (y.name, z.name) == ("atrous_conv2d_transpose/BatchToSpaceND:0",
                                    "atrous_conv2d_transpose_1/BatchToSpaceND:0")
        assert [t.name for t in y.op.inputs[0].op.inputs] == [
            "atrous_conv2d_transpose/Conv2DBackpropInput/input_sizes:0", "Const_1:0",
            "atrous_conv2d_transpose/SpaceToBatchND:0"]
        check_tensor(y[..., 0], [[[-67.5294, -75.0588, -45.8824, -49.6471], [-97.6471, -105.1765, -60.9412, -64.7059],
                                  [-2.5882, 1.1765, 19.0588, 26.5882], [12.4706, 16.2353, 49.1765, 56.7059]],
                                 [[-188.0, -195.5294, -106.1176, -109.8824], [-218.1176, -225.6471, -121.1765, -124.9412],
                                  [57.6471, 61.4118, 139.5294, 147.0588], [72.7059, 76.4706, 169.647, 177.1765]]],
                     dtype=np.float32, atol=1e-3)
        check_tensor(tf.reduce_sum(z, [1, 2, 3]), [8.4706, 8.4705], dtype=np.float32, atol=1e-3)


def test_v1_avg_pool2d_is_avg_pool():
    """tf.compat.v1.nn.avg_pool2d is avg_pool (value, ..., name, input), named AvgPool; avg_pool_v2 on a 4-D
    input is the AvgPool op itself."""
    with tf.Graph().as_default():
        x = tf.ones([1, 4, 4, 1])
        assert tf.nn.avg_pool2d(x, 2, 2, "SAME").name == "AvgPool:0"
        assert tf.nn.avg_pool_v2(x, 2, 2, "SAME").name == "AvgPool_1:0"
        assert tf.nn.avg_pool2d(value=x, ksize=2, strides=2, padding="SAME", name="ap").name == "ap:0"


def test_max_pool_refuses_a_zero_window_inside_its_scope():
    """TF checks max_pool's ksize for zeros inside its name scope, so the refused call uses up `MaxPool`."""
    with tf.Graph().as_default():
        x = tf.ones([1, 4, 4, 1])
        with pytest.raises(ValueError, match=re.escape("`ksize` cannot be zero. Received: ksize=[1, 0, 2, 1]")):
            tf.nn.max_pool(x, [1, 0, 2, 1], 1, "SAME")
        assert tf.nn.max_pool(x, 2, 2, "SAME").name == "MaxPool_1:0"


def test_conv1d_takes_no_explicit_paddings():
    """TF's conv1d hands `padding` to Conv2D as given, so explicit pairs are the attr's type error."""
    with tf.Graph().as_default(), pytest.raises(
            TypeError, match=re.escape("Expected string for argument 'padding' not [[0, 0], [1, 1], [0, 0]].")):
        tf.nn.conv1d(tf.ones([2, 5, 3]), tf.ones([3, 3, 2]), 1, [[0, 0], [1, 1], [0, 0]])
