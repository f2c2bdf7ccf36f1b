"""QuantizeAndDequantizeV2/V3/V4 and V4's gradient (`tf.quantization.quantize_and_dequantize(_v2)`) against
values and messages recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.ops import quantize_ops
from tests.op_testing import check_op

X = [[-1.3, 0.25, 2.7, 0.5], [3.1, -0.6, 0.049, -2.2], [1.5, 2.5, -1.5, -2.5]]

TF_CASES = [
    ('quantize_and_dequantize', {'input_min': -1.0, 'input_max': 2.0, 'range_given': True}, 'QuantizeAndDequantizeV2',
     [[-1.3070865869522095, 0.25196850299835205, 2.0, 0.5039370059967041], [2.0, -0.5984252095222473, 0.04724409431219101, -2.0157480239868164], [1.496062994003296, 2.0, -1.496062994003296, -2.0157480239868164]]),
    ('quantize_and_dequantize', {'input_min': 0.0, 'input_max': 0.0}, 'QuantizeAndDequantizeV2',
     [[-1.2937008142471313, 0.24409449100494385, 2.70944881439209, 0.4881889820098877], [3.0999999046325684, -0.6102362275123596, 0.04881889745593071, -2.196850299835205], [1.4889763593673706, 2.4897637367248535, -1.4889763593673706, -2.4897637367248535]]),
    ('quantize_and_dequantize', {'input_min': 0.0, 'input_max': 0.0, 'round_mode': 'HALF_UP', 'num_bits': 3}, 'QuantizeAndDequantizeV2',
     [[-1.0333333015441895, 0.0, 3.0999999046325684, 0.0], [3.0999999046325684, -1.0333333015441895, 0.0, -2.066666603088379], [1.0333333015441895, 2.066666603088379, -1.0333333015441895, -2.066666603088379]]),
    ('quantize_and_dequantize', {'input_min': 0.0, 'input_max': 0.0, 'signed_input': False, 'num_bits': 4}, 'QuantizeAndDequantizeV2',
     [[-1.2400000095367432, 0.20666666328907013, 2.68666672706604, 0.41333332657814026], [3.0999999046325684, -0.6200000047683716, 0.0, -2.2733333110809326], [1.4466665983200073, 2.4800000190734863, -1.4466665983200073, -2.4800000190734863]]),
    ('quantize_and_dequantize', {'input_min': [0.0, 0.0, 0.0, 0.0], 'input_max': [0.0, 0.0, 0.0, 0.0], 'narrow_range': True, 'num_bits': 4, 'axis': 1}, 'QuantizeAndDequantizeV2',
     [[-1.3285713195800781, 0.3571428656578064, 2.700000047683716, 0.3571428656578064], [3.0999999046325684, -0.7142857313156128, 0.0, -2.142857074737549], [1.3285713195800781, 2.5, -1.5428571701049805, -2.5]]),
    ('quantize_and_dequantize_v2', {'input_min': -1.0, 'input_max': 2.0, 'range_given': True, 'num_bits': 3}, 'QuantizeAndDequantizeV4',
     [[-1.3333333730697632, 0.0, 2.0, 0.6666666865348816], [2.0, -0.6666666865348816, 0.0, -2.0], [1.3333333730697632, 2.0, -1.3333333730697632, -2.6666667461395264]]),
    ('quantize_and_dequantize_v2', {'input_min': -1.0, 'input_max': 1.0, 'range_given': True, 'num_bits': 2, 'round_mode': 'HALF_UP'}, 'QuantizeAndDequantizeV4',
     [[-1.0, 0.0, 1.0, 1.0], [1.0, -1.0, 0.0, -2.0], [1.0, 1.0, -1.0, -2.0]]),
    ('quantize_and_dequantize_v2', {'input_min': [0.0, 0.0, 0.0], 'input_max': [0.0, 0.0, 0.0], 'num_bits': 5, 'axis': -2}, 'QuantizeAndDequantizeV4',
     [[-1.2599999904632568, 0.18000000715255737, 2.700000047683716, 0.5400000214576721], [3.0999999046325684, -0.6200000047683716, 0.0, -2.2733333110809326], [1.5, 2.5, -1.5, -2.5]]),
    ('quantize_and_dequantize_v2', {'input_min': 0.0, 'input_max': 0.0, 'num_bits': 4, 'signed_input': False, 'range_given': True}, 'QuantizeAndDequantizeV4',
     [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),
    ('v3', {'input_min': -1.0, 'input_max': 2.0, 'num_bits': 3}, 'QuantizeAndDequantizeV3',
     [[-1.3333333730697632, 0.0, 2.0, 0.6666666865348816], [2.0, -0.6666666865348816, 0.0, -2.0], [1.3333333730697632, 2.0, -1.3333333730697632, -2.6666667461395264]]),
    ('v3', {'input_min': [-1.0, -2, -3, -4], 'input_max': [1.0, 2, 3, 4], 'num_bits': 4, 'axis': 1}, 'QuantizeAndDequantizeV3',
     [[-1.1428571939468384, 0.2857142984867096, 2.5714285373687744, 0.5714285969734192], [1.0, -0.5714285969734192, 0.0, -2.2857143878936768], [1.0, 2.0, -1.7142857313156128, -2.2857143878936768]]),
    ('v3', {'input_min': -1.0, 'input_max': 2.0, 'num_bits': 3, 'range_given': False, 'signed_input': False}, 'QuantizeAndDequantizeV3',
     [[-1.3285713195800781, 0.44285711646080017, 2.6571426391601562, 0.44285711646080017], [3.0999999046325684, -0.44285711646080017, 0.0, -2.2142856121063232], [1.3285713195800781, 2.6571426391601562, -1.3285713195800781, -2.6571426391601562]]),
]


def _build(fn, kwargs):
    kwargs = dict(kwargs)
    if fn == "v3":
        return lambda x: quantize_ops.QuantizeAndDequantizeV3(x, kwargs.pop("input_min"), kwargs.pop("input_max"),
                                                               kwargs.pop("num_bits"), **kwargs)
    return lambda x: getattr(tf.quantization, fn)(x, **kwargs)


@pytest.mark.parametrize("case", range(len(TF_CASES)))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_match_tf(case, dtype):
    fn, kwargs, op_type, expected = TF_CASES[case]
    with tf.Graph().as_default():
        assert _build(fn, kwargs)(tf.constant(X)).op.type == op_type
    check_op(_build(fn, kwargs), [np.array(X, dtype)], np.array(expected, dtype),
             rtol=1e-6 if dtype == np.float32 else 1e-5)


def test_rounding_modes_at_half_levels():
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5], np.float32)
    check_op(lambda t: tf.quantization.quantize_and_dequantize_v2(t, -7.0, 7.0, num_bits=4, range_given=True),
             [x], np.array([0, 2, 2, -0, -2, -2, 4], np.float32))
    check_op(lambda t: tf.quantization.quantize_and_dequantize_v2(t, -7.0, 7.0, num_bits=4, range_given=True,
                                                                  round_mode="HALF_UP"),
             [x], np.array([1, 2, 3, 0, -1, -2, 4], np.float32))


def test_gradients_like_tf():
    x = np.array(X, np.float32)
    in_range = np.array([[0, 3, 0, 3], [0, 3, 3, 0], [3, 0, 0, 0]], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        t, low, high = tf.constant(x), tf.constant(-1.0), tf.constant(2.0)
        v4 = tf.quantization.quantize_and_dequantize_v2(t, low, high, range_given=True, num_bits=3)
        grads = tf.gradients(v4 * 3.0, [t, low, high])
        assert grads[0].op.type == "QuantizeAndDequantizeV4Grad" and grads[1].shape.ndims == 0
        got, got_low, got_high = sess.run(grads)
        np.testing.assert_array_equal(got, in_range)
        assert got_low == 0 and got_high == 0
        v2 = tf.quantization.quantize_and_dequantize(t, low, high, range_given=True, num_bits=3)
        np.testing.assert_array_equal(sess.run(tf.gradients(v2 * 3.0, t)[0]), np.full_like(x, 3))
        v3 = quantize_ops.QuantizeAndDequantizeV3(t, low, high, 3)
        np.testing.assert_array_equal(sess.run(tf.gradients(v3 * 3.0, t)[0]), np.full_like(x, 3))


def test_v4_grad_op_per_axis():
    x = np.array(X, np.float32)
    check_op(lambda g, t: quantize_ops.QuantizeAndDequantizeV4Grad(g, t, [0.0, 0, 0, 0], [0.3, 0.3, 3, 3], axis=1),
             [x, x], [np.array([[0, 0.25, 2.7, 0.5], [0, 0, 0.049, 0], [0, 0, 0, 0]], np.float32),
                      np.zeros(4, np.float32), np.zeros(4, np.float32)])


SHAPE_ERRORS = [
    (lambda x: tf.quantization.quantize_and_dequantize(x, [-1.0, -2, -3], [1.0, 2, 3], range_given=True, axis=1),
     "Dimensions must be equal, but are 3 and 4"),
    (lambda x: tf.quantization.quantize_and_dequantize(x, [1.0], 2.0, range_given=True), "Shape must be rank 0 but is rank 1"),
    (lambda x: quantize_ops.QuantizeAndDequantizeV2(x, 1.0, 2.0, axis=2), "Shape must be rank 1 but is rank 0"),
    (lambda x: quantize_ops.QuantizeAndDequantizeV2(x, [1.0], [2.0], axis=2), "Shape must be at least rank 3 but is rank 2"),
    (lambda x: quantize_ops.QuantizeAndDequantizeV3(x, 1.0, 2.0, [3]), "Shape must be rank 0 but is rank 1"),
    (lambda x: quantize_ops.QuantizeAndDequantizeV4Grad(x, x, [0.0] * 4, [1.0] * 4, axis=-2),
     "axis should be at least -1, got -2"),
    (lambda x: quantize_ops.QuantizeAndDequantizeV4Grad(x[:2], x, 1.0, 2.0),
     r"Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are \[2,4\] and \[3,4\]."),
    (lambda x: tf.quantization.quantize_and_dequantize_v2(x, 1.0, 2.0, round_mode="FOO"), "HALF_TO_EVEN"),
]


@pytest.mark.parametrize("case", range(len(SHAPE_ERRORS)))
def test_static_errors_like_tf(case):
    build, message = SHAPE_ERRORS[case]
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        build(tf.constant(X))


RUNTIME_ERRORS = [
    (lambda x, p: tf.quantization.quantize_and_dequantize(x, 2.0, 1.0, range_given=True),
     "Invalid range: input_min 2 > input_max 1"),
    (lambda x, p: tf.quantization.quantize_and_dequantize(x, 1.0, 2.0, num_bits=0),
     "num_bits is out of range: 0 with signed_input_ 1"),
    (lambda x, p: tf.quantization.quantize_and_dequantize_v2(x, 1.0, 2.0, num_bits=63, signed_input=False),
     "num_bits is out of range: 63 with signed_input_ 0"),
    (lambda x, p: quantize_ops.QuantizeAndDequantizeV3(x, 1.0, 2.0, 0),
     "num_bits is out of range: 0 with `signed_input_` 1"),
    # TF 2.21's V2 and V4 kernels take only a scalar range when it is given, even per axis.
    (lambda x, p: tf.quantization.quantize_and_dequantize_v2(x, [-1.0] * 4, [1.0] * 4, range_given=True, axis=1),
     "input_min must be a scalar."),
    (lambda x, p: quantize_ops.QuantizeAndDequantizeV3(x, p, p, 4, axis=1),
     r"input_min_tensor has incorrect size, was 2 expected 4 to match dim 1 of the input \[2\]"),
    (lambda x, p: quantize_ops.QuantizeAndDequantizeV2(p, [1.0, 2], [1.0, 2], axis=1),
     "Shape must be at least rank 2 but is rank 1"),
    (lambda x, p: quantize_ops.QuantizeAndDequantizeV3(p, [1.0, 2], [1.0, 2], 3, axis=1),
     "Axis requested is larger than input dimensions. Axis: 1 Input Dimensions: 1"),
    (lambda x, p: quantize_ops.QuantizeAndDequantizeV4Grad(p, p, [1.0, 2], [1.0, 2], axis=1)[0],
     "Axis should be -1 or 0 or a positive value less than 1but given axis value was 1"),
    (lambda x, p: quantize_ops.QuantizeAndDequantizeV4Grad(x, x, p, [1.0] * 4, axis=1)[0],
     "min has incorrect size, expected 4 was 2"),
    (lambda x, p: quantize_ops.QuantizeAndDequantizeV4Grad(p, x, 1.0, 2.0)[0], "gradient and input must be the same size"),
    (lambda x, p: tf.quantization.quantize_and_dequantize(tf.cast(x, tf.float16), 0.0, 0.0),
     "No OpKernel was registered to support Op 'QuantizeAndDequantizeV2'"),
]


@pytest.mark.parametrize("case", range(len(RUNTIME_ERRORS)))
def test_runtime_errors_like_tf(case):
    build, message = RUNTIME_ERRORS[case]
    with tf.Graph().as_default(), tf.Session() as sess:
        p = tf.placeholder(tf.float32)
        output = build(tf.constant(X), p)
        with pytest.raises(tf.errors.InvalidArgumentError, match=message) as raised:
            sess.run(output, {p: [1.0, 2.0]})
        assert f"node {output.op.name}" in str(raised.value)
