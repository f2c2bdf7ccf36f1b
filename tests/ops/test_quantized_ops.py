"""QuantizedConcat and tf.nn's QuantizedAvgPool, QuantizedMaxPool, QuantizedReluX and QuantizedConv2D against
values and messages recorded from real TensorFlow 2.21 (`tf.compat.v1`). TF 2.21's CPU build registers no
QuantizedReluX kernel, so its values follow the reference kernel's arithmetic (levels of 0.0 and max_value)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_op

rng = np.random.RandomState(0)
X = rng.randint(0, 256, size=(2, 4, 5, 2)).astype(np.uint8)
F = rng.randint(0, 256, size=(2, 3, 2, 3)).astype(np.uint8)
A = rng.randint(0, 256, size=(2, 3)).astype(np.uint8)
B = rng.randint(0, 256, size=(2, 2)).astype(np.uint8)
AI = rng.randint(-2**31, 2**31, size=(2, 3)).astype(np.int32)
BI = rng.randint(-2**31, 2**31, size=(2, 2)).astype(np.int32)


def q(a, dtype=tf.quint8):
    return tf.constant(a, dtype)


CASES = {
    "avg_same": lambda: tf.nn.quantized_avg_pool(q(X), -1.0, 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    "avg_valid": lambda: tf.nn.quantized_avg_pool(q(X), -1.0, 2.0, [1, 3, 2, 1], [1, 2, 2, 1], "VALID"),
    "avg_qint8": lambda: tf.nn.quantized_avg_pool(q(X.astype(np.int8), tf.qint8), 0.0, 1.0, [1, 3, 3, 1],
                                                  [1, 1, 1, 1], "SAME"),
    "max_same": lambda: tf.nn.quantized_max_pool(q(X), -1.0, 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    "max_qint8": lambda: tf.nn.quantized_max_pool(q(X.astype(np.int8), tf.qint8), 0.0, 1.0, [1, 3, 2, 1],
                                                  [1, 2, 2, 1], "VALID"),
    "conv_same": lambda: tf.nn.quantized_conv2d(q(X), q(F), -1.0, 2.0, -0.5, 0.7, [1, 1, 1, 1], "SAME"),
    "conv_strided": lambda: tf.nn.quantized_conv2d(q(X), q(F), 0.0, 2.0, -0.5, 0.7, [1, 2, 2, 1], "SAME"),
    "conv_valid": lambda: tf.nn.quantized_conv2d(q(X), q(F), 0.25, 3.0, -10.0, 0.0, [1, 2, 2, 1], "VALID"),
    "concat_u8": lambda: tf.quantized_concat(1, [q(A), q(B)], [-1.0, 0.5], [2.0, 3.0]),
    "concat_same_range": lambda: tf.quantization.quantized_concat(0, [q(A.T), q(B)], [-1.0, -1.0], [2.0, 2.0]),
    "concat_qint32": lambda: tf.quantized_concat(1, [q(AI, tf.qint32), q(BI, tf.qint32)], [-100.0, -3.0],
                                                 [20.0, 300.0]),
    "concat_empty_range": lambda: tf.quantized_concat(1, [q(A), q(B), q(A)], [1.0, 0.5, 0.0], [1.0, 3.0, 0.0]),
}

TF_VALUES = {
    'avg_same': ([[[[86, 142], [105, 178], [34, 202]], [[110, 142], [188, 96], [126, 132]]], [[[85, 164], [137, 102], [193, 159]], [[114, 183], [135, 76], [116, 103]]]],
        -1.0, 2.0),
    'avg_valid': ([[[[110, 130], [112, 136]]], [[[118, 170], [128, 94]]]],
        -1.0, 2.0),
    'avg_qint8': ([[[[22, 14], [38, 2], [53, -6], [38, -28], [24, -30]], [[25, 2], [42, 5], [45, -1], [34, 1], [13, -4]], [[40, -21], [43, -16], [42, -8], [22, -9], [8, -11]], [[46, -50], [43, -30], [31, -1], [-4, 22], [-24, 28]]], [[[21, -28], [33, -9], [1, -42], [-15, -49], [-51, -89]], [[-10, 0], [-2, 10], [-10, -26], [-29, -54], [-50, -96]], [[-2, -28], [3, -10], [20, -23], [17, -43], [18, -77]], [[-14, -9], [-23, 2], [2, -20], [1, -43], [22, -76]]]],
        0.0, 1.0),
    'max_same': ([[[[172, 242], [195, 251], [58, 211]], [[230, 208], [254, 197], [175, 192]]], [[[216, 193], [243, 202], [244, 167]], [[203, 254], [244, 132], [128, 164]]]],
        -1.0, 2.0),
    'max_qint8': ([[[[117, 87], [88, 103]]], [[[82, 114], [127, 32]]]],
        0.0, 1.0),
    'conv_same': ([[[[2255, 3474, 12348], [39469, 15612, -10304], [-2886, 4026, 12184], [-1271, 4173, 28716], [-367, 234, 15070]], [[-4108, 2369, -5452], [-39015, 13267, 31595], [-913, 5945, -2665], [-15523, -10634, 9365], [-14677, 4814, -8560]], [[20436, 22814, -8348], [28217, 17063, 8227], [-7409, -7406, 51751], [8004, 3147, 23853], [-6826, -4192, 20242]], [[-294, 8251, -1900], [1911, 3486, -10158], [10351, -17851, -8556], [20025, -23109, 2684], [19392, -15448, -14939]]], [[[11829, 13217, 4064], [19524, -8420, -438], [35845, -21970, 8146], [26248, 24147, -12536], [2127, -27843, 30738]], [[-14578, 20392, 22765], [-20359, -8180, 41588], [-17672, -2842, 18119], [14799, 26507, -21350], [-7692, -13001, 14488]], [[20987, 14711, -23656], [-1953, -9931, 31195], [23472, -29636, 21398], [-2904, 4888, -4596], [-1099, -3159, -5562]], [[-2170, 8612, -2612], [-1833, -1618, -6985], [-8280, -9341, 12649], [19708, -10260, -10312], [-3983, -3016, 8456]]]],
        -118891.8359375, 118891.8359375),
    'conv_strided': ([[[[15090, 13759, 12858], [8759, 5471, 34029], [-4787, -18381, 41675]], [[33271, 33099, -7838], [4236, -5961, 73596], [-11246, -22807, 46847]]], [[[24664, 23502, 4574], [47490, -20525, 29991], [-2293, -46458, 57343]], [[33822, 24996, -23146], [35117, -28191, 43243], [-5519, -21774, 21043]]]],
        -79261.2265625, 79261.2265625),
    'conv_valid': ([[[[-213041, -249858, -249854], [-266148, -273664, -223201]], [[-239342, -263456, -246372], [-263876, -281693, -235067]]], [[[-218980, -259884, -225982], [-247718, -262779, -273542]], [[-275919, -296857, -229811], [-220548, -225716, -209280]]]],
        -908201.5, 908201.5),
    'concat_u8': ([[108, 111, 171, 184, 169], [140, 18, 156, 149, 126]],
        -1.0, 3.0),
    'concat_same_range': ([[143, 186], [148, 23], [227, 207], [141, 117], [85, 48]],
        -1.0, 2.0),
    'concat_qint32': ([[-597129664, -47234200, -546964928, 1759225472, 7961532], [99847432, -399095392, -146721648, 189133792, 1329452544]],
        -300.0, 300.0),
    'concat_empty_range': ([[85, 85, 85, 160, 140, 0, 0, 0], [85, 85, 85, 113, 83, 0, 0, 0]],
        0.0, 3.0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_tf(case):
    values, low, high = TF_VALUES[case]
    with tf.Graph().as_default(), tf.Session() as sess:
        output, out_min, out_max = CASES[case]()
        assert output.shape.as_list() == list(np.shape(values)) and out_min.shape.ndims == out_max.shape.ndims == 0
        got, got_min, got_max = sess.run([output, out_min, out_max])
    assert got.dtype == np.dtype(output.dtype.as_numpy_dtype)[0]
    np.testing.assert_array_equal(got, values)
    assert (got_min, got_max) == (np.float32(low), np.float32(high))


def test_relu_x_clamps_to_levels_of_zero_and_max_value():
    v = np.array([0, 10, 100, 128, 200, 255], np.uint8)
    cases = [((1.0, -1.0, 2.0), [85, 85, 100, 128, 170, 170]), ((0.33, -1.0, 2.0), [85, 85, 100, 113, 113, 113]),
             ((5.0, -1.0, 2.0), [85, 85, 100, 128, 200, 255]), ((1.0, 0.5, 2.0), [0, 10, 85, 85, 85, 85]),
             ((1.0, 1.0, 1.0), [0, 0, 0, 0, 0, 0])]
    with tf.Graph().as_default(), tf.Session() as sess:
        for (max_value, low, high), expected in cases:
            output, out_min, out_max = tf.nn.quantized_relu_x(q(v), max_value, low, high)
            assert output.dtype == tf.quint8 and output.shape.as_list() == [6]
            got = sess.run([output, out_min, out_max])
            np.testing.assert_array_equal(got[0], expected)
            assert got[1:] == [low, high]
        wide = tf.nn.quantized_relu_x(q(np.array([-5, 0, 100, 2**30], np.int32), tf.qint32), 1.0, -1.0, 2.0,
                                      out_type=tf.qint32)
        np.testing.assert_array_equal(sess.run(wide.activations), [-5, 0, 100, 715827925])


def test_max_pool_with_check_op():
    check_op(lambda x: tf.bitcast(tf.nn.quantized_max_pool(tf.bitcast(x, tf.quint8), -1.0, 2.0, [1, 2, 2, 1],
                                                           [1, 2, 2, 1], "VALID")[0], tf.uint8),
             [X], np.array(TF_VALUES["max_same"][0], np.uint8)[:, :, :2])


STATIC_ERRORS = [
    (lambda: tf.nn.quantized_avg_pool(q(X), -1.0, 2.0, [1, 2, 2], [1, 2, 2, 1], "SAME"),
     "AvgPool requires the ksize attribute to contain 4 values, but got: 3"),
    (lambda: tf.nn.quantized_max_pool(q(X), -1.0, 2.0, [1, 2, 2, 1], [1, 2, 1], "SAME"),
     "MaxPool requires the stride attribute to contain 4 values, but got: 3"),
    (lambda: tf.nn.quantized_max_pool(q(X[0]), -1.0, 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
     "Shape must be rank 4 but is rank 3"),
    (lambda: tf.nn.quantized_max_pool(q(X), [-1.0], 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
     "Shape must be rank 0 but is rank 1"),
    (lambda: tf.nn.quantized_max_pool(q(X), -1.0, 2.0, [1, 7, 2, 1], [1, 2, 2, 1], "VALID"),
     "Negative dimension size caused by subtracting 7 from 4"),
    (lambda: tf.nn.quantized_max_pool(q(X), -1.0, 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "FOO"), "SAME"),
    (lambda: tf.nn.quantized_relu_x(q(A), [1.0], -1.0, 2.0), "Shape must be rank 0 but is rank 1"),
    (lambda: tf.nn.quantized_conv2d(q(X), q(F), 0.0, 2.0, -0.5, 0.7, [1, 1, 1], "SAME"),
     "Conv2D on data format NHWC requires the stride attribute to contain 4 values, but got: 3"),
    (lambda: tf.nn.quantized_conv2d(q(X), q(F[:, :, :1]), 0.0, 2.0, -0.5, 0.7, [1, 1, 1, 1], "SAME"),
     r"Depth of output \(3\) is not a multiple of the number of groups \(2\)"),
    (lambda: tf.nn.quantized_conv2d(q(X), q(F), 0.0, [2.0], -0.5, 0.7, [1, 1, 1, 1], "SAME"),
     "Shape must be rank 0 but is rank 1"),
    (lambda: tf.quantized_concat(1, [q(A), q(B[:1])], [-1.0, 0.5], [2.0, 3.0]),
     "Dimension 0 in both shapes must be equal, but are 2 and 1"),
    (lambda: tf.quantized_concat(2, [q(A), q(B)], [-1.0, 0.5], [2.0, 3.0]), "Shape must be at least rank 3 but is rank 2"),
    (lambda: tf.quantized_concat(1, [q(A), q(B[0])], [-1.0, 0.5], [2.0, 3.0]), "Shape must be rank 2 but is rank 1"),
    (lambda: tf.quantized_concat(1, [q(A), q(B)], [[-1.0], [0.5]], [2.0, 3.0]), "Shape must be rank 0 but is rank 1"),
    (lambda: tf.quantized_concat(1, [q(A)], [-1.0], [2.0]), "shorter than minimum length 2"),
]


@pytest.mark.parametrize("case", range(len(STATIC_ERRORS)))
def test_static_errors_like_tf(case):
    build, message = STATIC_ERRORS[case]
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        build()


RUNTIME_ERRORS = [
    (lambda p: tf.nn.quantized_avg_pool(q(X), -1.0, 2.0, [1, 2, 2, 2], [1, 2, 2, 1], "SAME"),
     tf.errors.UnimplementedError, "MaxPooling supports exactly one of pooling across depth or pooling across"),
    (lambda p: tf.nn.quantized_max_pool(q(X), -1.0, 2.0, [2, 2, 2, 1], [1, 2, 2, 1], "SAME"),
     tf.errors.UnimplementedError, "Pooling is not yet supported on the batch dimension."),
    (lambda p: tf.nn.quantized_avg_pool(q(X), p, 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
     tf.errors.InvalidArgumentError, r"min_input shape must be rank 0 but is rank 1, received shape: \[0\]"),
    (lambda p: tf.nn.quantized_conv2d(q(X), q(F), p, 2.0, -0.5, 0.7, [1, 1, 1, 1], "SAME"),
     tf.errors.InvalidArgumentError, "min_input must be rank 0 but is rank 1"),
    (lambda p: tf.nn.quantized_conv2d(q(X), q(F), 0.0, 2.0, -0.5, 0.7, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1]),
     tf.errors.InvalidArgumentError, "Current implementation only supports dilated rate as 1 in the row and column"),
    (lambda p: tf.nn.quantized_conv2d(q(X), q(F), 0.0, 2.0, -0.5, 0.7, [2, 1, 1, 1], "SAME"),
     tf.errors.InvalidArgumentError, "Current implementation does not yet support strides in the batch and depth"),
    (lambda p: tf.nn.quantized_conv2d(q(X), q(F), 0.0, 2.0, -0.5, 0.7, [1, 1, 2, 1], "SAME"),
     tf.errors.InvalidArgumentError, "Current implementation only supports equal length strides in the row and"),
    (lambda p: tf.nn.quantized_conv2d(q(X), q(F), 0.0, 2.0, -0.5, 0.7, [1, 1, 1, 1], "SAME", out_type=tf.quint8),
     tf.errors.InvalidArgumentError, "No OpKernel was registered to support Op 'QuantizedConv2D'"),
    (lambda p: tf.nn.quantized_relu_x(q(A, tf.qint32), 1.0, -1.0, 2.0),
     tf.errors.InvalidArgumentError, "No OpKernel was registered to support Op 'QuantizedReluX'"),
    (lambda p: tf.quantized_concat(-1, [q(A), q(B)], [-1.0, 0.5], [2.0, 3.0]),
     tf.errors.InvalidArgumentError, r"ConcatOp : Expected concatenating dimensions in the range \[0, 2\), but got -1"),
    (lambda p: tf.quantized_concat(tf.cast(p, tf.int32), [q(A), q(B)], [-1.0, 0.5], [2.0, 3.0]),
     tf.errors.InvalidArgumentError, r"Concat dim tensor should be a scalar integer, but got shape \[0\]"),
    (lambda p: tf.quantized_concat(1, [q(A, tf.qint8), q(B, tf.qint8)], [-1.0, 0.5], [2.0, 3.0]),
     tf.errors.InvalidArgumentError, "No OpKernel was registered to support Op 'QuantizedConcat'"),
]


@pytest.mark.parametrize("case", range(len(RUNTIME_ERRORS)))
def test_runtime_errors_like_tf(case):
    build, error, message = RUNTIME_ERRORS[case]
    with tf.Graph().as_default(), tf.Session() as sess:
        p = tf.placeholder(tf.float32)
        output = build(p)[0]
        with pytest.raises(error, match=message) as raised:
            sess.run(output, {p: np.zeros([0], np.float32)})
        assert f"node {output.op.name}" in str(raised.value)
