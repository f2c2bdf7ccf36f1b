"""DecodeJSONExample against the Example real TensorFlow 2.21 writes for the same JSON."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

JSON = ('{"features": {"feature": {"a": {"int64List": {"value": [1, "2"]}}, '
        '"b": {"bytesList": {"value": ["aGk="]}}}}}')


def test_decode_json_example_writes_tf_bytes():
    with tf.Graph().as_default():
        decoded = tf.io.decode_json_example(tf.constant([[JSON, "{}"]]))
        assert (decoded.op.type, decoded.shape.as_list(), decoded.dtype) == ("DecodeJSONExample", [1, 2], tf.string)
        parsed = tf.io.parse_example(tf.reshape(decoded, [-1]), {"a": tf.VarLenFeature(tf.int64)})
        with tf.Session() as sess:
            value, ints = sess.run([decoded, parsed["a"].values])
    tf_bytes = b"\n\x1a\n\x0b\n\x01a\x12\x06\x1a\x04\x08\x01\x08\x02\n\x0b\n\x01b\x12\x06\n\x04\n\x02hi"
    assert tf.train.Example.FromString(value[0, 0]) == tf.train.Example.FromString(tf_bytes)
    assert value[0, 0] == (b"\n\x1a\n\x0b\n\x01a\x12\x06\x1a\x04\n\x02\x01\x02\n\x0b\n\x01b\x12\x06\n\x04\n"
                           b"\x02hi")  # TF's message, its int64 list packed
    assert value[0, 1] == b""
    np.testing.assert_array_equal(ints, [1, 2])
    assert tf.decode_json_example is tf.io.decode_json_example


def test_decode_json_example_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Input 'json_examples' of 'DecodeJSONExample' Op has type int32 that "
                                            "does not match expected type of string."):
            tf.io.decode_json_example(tf.constant(1))
        bad = tf.io.decode_json_example(tf.constant('{"foo": 1}'), name="bad")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Error while parsing JSON: .*foo") as info:
                sess.run(bad)
    assert "bad" in str(info.value)
