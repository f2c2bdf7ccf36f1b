"""QuantizeV2 and Dequantize (`tf.quantize`, `tf.quantize_v2`, `tf.dequantize`) in their three modes against
values recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

X = [-1.0, -0.3, 0.0, 0.5, 1.0, 2.5]

# mode, type: quantized values, output range, dequantized values (from TF).
TF_VALUES = {
    ("MIN_COMBINED", "quint8"): ([0, 60, 85, 128, 170, 255], (-1.0, 2.0),
                                 [-1.0, -0.29411763, 0.0, 0.50588238, 1.0, 2.0]),
    ("MIN_COMBINED", "qint8"): ([-128, -69, -43, -1, 42, 127], (-1.0, 2.0),
                                [-1.0, -0.30588233, 0.0, 0.49411762, 1.0, 2.0]),
    ("MIN_FIRST", "quint8"): ([0, 59, 85, 128, 170, 255], (-1.0, 2.0),
                              [-1.0, -0.30588233, 0.0, 0.50588238, 1.0, 2.0]),
    ("MIN_FIRST", "qint16"): ([-32768, -17477, -10923, 0, 10922, 32767], (-1.0, 2.0),
                              [-1.0, -0.3000229, 0.0, 0.50002289, 1.0, 2.0]),
    ("SCALED", "quint8"): ([0, 0, 0, 64, 128, 255], (0.0, 2.0), [0.0, 0.0, 0.0, 0.50196081, 1.00392163, 2.0]),
    ("SCALED", "qint8"): ([-64, -19, 0, 32, 64, 127], (-2.015748, 2.0),
                          [-1.00787401, -0.2992126, 0.0, 0.50393701, 1.00787401, 2.0]),
}


@pytest.mark.parametrize("mode, type_name", sorted(TF_VALUES))
def test_quantize_and_dequantize_match_tf(mode, type_name):
    quantized_type = getattr(tf, type_name)
    values, (low, high), restored = TF_VALUES[(mode, type_name)]
    with tf.Graph().as_default(), tf.Session() as sess:
        output, out_min, out_max = tf.quantize(tf.constant(X), -1.0, 2.0, quantized_type, mode=mode)
        assert output.dtype == quantized_type and output.shape.as_list() == [6] and out_min.shape.ndims == 0
        back = tf.dequantize(output, out_min, out_max, mode=mode)
        got, got_min, got_max, got_back = sess.run([output, out_min, out_max, back])
    assert got.dtype == np.dtype(quantized_type.as_numpy_dtype)[0]  # TF's fetch gives the plain integer type
    np.testing.assert_array_equal(got, values)
    np.testing.assert_allclose([got_min, got_max], [low, high], rtol=1e-6)
    np.testing.assert_allclose(got_back, restored, rtol=1e-6, atol=1e-7)


def test_quantize_options():
    with tf.Graph().as_default(), tf.Session() as sess:
        narrow = tf.quantize(X, -1.0, 2.0, tf.qint8, mode="SCALED", round_mode="HALF_TO_EVEN", narrow_range=True)
        values, low, high = sess.run(narrow)
        np.testing.assert_array_equal(values, [-64, -19, 0, 32, 64, 127])
        assert (low, high) == (-2.0, 2.0)
        tiny = sess.run(tf.quantize_v2(X, 0.0, 0.001, tf.quint8))
        np.testing.assert_array_equal(tiny[0], [0, 0, 0, 255, 255, 255])
        np.testing.assert_allclose(tiny[2], 0.01)
        per_axis = tf.quantize([[-1.0, 0.5], [2.0, 3.0]], [-1.0, 0.0], [1.0, 3.0], tf.qint8, axis=1, mode="SCALED")
        assert per_axis[1].shape.as_list() == [2]
        values, low, high = sess.run(per_axis)
        np.testing.assert_array_equal(values, [[-127, 21], [127, 127]])
        np.testing.assert_allclose(low, [-1.007874, -3.023622], rtol=1e-6)
        np.testing.assert_allclose(high, [1.0, 3.0])
        with pytest.raises(tf.errors.InvalidArgumentError, match="input_max_range must be larger than"):
            sess.run(tf.quantize(X, 2.0, 1.0, tf.quint8)[0])


def test_fetch_of_quantized_values_is_plain_like_tf():
    """Recorded from TF: a fetched qint/quint tensor is a plain integer array (a 0-d one a NumPy scalar),
    while a fetch of a fed quantized placeholder returns the fed structured array untouched."""
    with tf.Graph().as_default(), tf.Session() as sess:
        scalar = sess.run(tf.quantize(tf.constant(1.0), -3.0, 3.0, tf.quint16).output)
        assert type(scalar) is np.uint16 and scalar == 43690
        wide = sess.run(tf.quantize(tf.constant([1.0, 2.0, 3.0]), -3.0, 3.0, tf.qint32).output)
        assert wide.dtype == np.int32
        np.testing.assert_array_equal(wide, [715827968, 1431655936, -2147483648])
        p = tf.placeholder(tf.qint8)
        fed = np.array([1, 2], np.int8)
        assert sess.run(p, {p: fed}).dtype == np.dtype([("qint8", np.int8)])
        assert sess.run(tf.identity(p), {p: fed}).dtype == np.int8


def test_quantized_dtypes_set_like_tf():
    assert tf.dtypes.QUANTIZED_DTYPES is tf.QUANTIZED_DTYPES
    assert {d.name for d in tf.QUANTIZED_DTYPES} == {
        "qint8", "quint8", "qint16", "quint16", "qint32", "qint8_ref", "quint8_ref", "qint16_ref", "quint16_ref",
        "qint32_ref"}
