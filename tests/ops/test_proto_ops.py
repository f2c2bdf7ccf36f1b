"""DecodeJSONExample, DecodeProtoV2 and EncodeProto against what real TensorFlow 2.21 gives for the same input."""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos

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


FIELDS = ["dtype", "tensor_shape", "int_val", "float_val", "string_val", "bool_val", "version_number", "double_val"]
TYPES = [tf.int32, tf.string, tf.int32, tf.float32, tf.string, tf.bool, tf.int64, tf.float64]


def _messages():
    shape = protos.TensorShapeProto(dim=[protos.TensorShapeProto.Dim(size=2), protos.TensorShapeProto.Dim(size=3,
                                                                                                          name="x")])
    return [protos.TensorProto(dtype=3, tensor_shape=shape, int_val=[1, 2, 3], float_val=[0.5]),
            protos.TensorProto(dtype=1, string_val=[b"a", b"bc"], bool_val=[True]), protos.TensorProto()]


def test_decode_proto_and_encode_proto_as_tensorflow():
    messages = _messages()
    serialized = np.array([[m.SerializeToString() for m in messages]], object)
    with tf.Graph().as_default():
        sizes, values = tf.io.decode_proto(serialized, "tensorflow.TensorProto", FIELDS, TYPES)
        assert sizes.shape.as_list() == [1, 3, 8]
        assert [v.shape.as_list() for v in values] == [[1, 3, None]] * 8 and [v.dtype for v in values] == TYPES
        encoded = tf.io.encode_proto(sizes, values, FIELDS, "tensorflow.TensorProto")
        assert encoded.shape.as_list() == [1, 3]
        text_sizes, text_values = tf.io.decode_proto(["dtype: DT_INT32 int_val: 4 int_val: 5"],
                                                     "tensorflow.TensorProto", ["dtype", "int_val"],
                                                     [tf.int32, tf.int64], message_format="text")
        with tf.Session() as sess:
            got = sess.run([sizes, values, encoded, text_sizes, text_values])
    expected = [  # TF 2.21's
        [[[3], [1], [0]]], [[[b"\x12\x02\x08\x02\x12\x05\x08\x03\x12\x01x"], [b""], [b""]]],
        [[[1, 2, 3], [0, 0, 0], [0, 0, 0]]], [[[0.5], [0.0], [0.0]]], [[[b"", b""], [b"a", b"bc"], [b"", b""]]],
        [[[False], [True], [False]]], [[[0], [0], [0]]], [[[0.0], [0.0], [0.0]]]]
    assert got[0].tolist() == [[[1, 1, 3, 1, 0, 0, 0, 0], [1, 0, 0, 0, 2, 1, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]]
    assert [v.tolist() for v in got[1]] == expected
    assert got[2].tolist() == [[b"\x08\x03\x12\x0b\x12\x02\x08\x02\x12\x05\x08\x03\x12\x01x*\x04\x00\x00\x00?:\x03\x01"
                                b"\x02\x03", b"\x08\x01B\x01aB\x02bcZ\x01\x01", b""]]
    assert [protos.TensorProto.FromString(b) for b in got[2][0]] == messages
    assert got[3].tolist() == [[1, 2]] and [v.tolist() for v in got[4]] == [[[3]], [[4, 5]]]


def test_decode_proto_and_encode_proto_errors():
    serialized = np.array([m.SerializeToString() for m in _messages()], object)
    cases = [
        (tf.errors.InvalidArgumentError, "Unexpected output type for tensorflow.TensorProto.dtype: enum to DT_FLOAT",
         lambda: tf.io.decode_proto(serialized, "tensorflow.TensorProto", ["dtype"], [tf.float32])[0]),
        (tf.errors.InvalidArgumentError, "Unknown field: nope in message type tensorflow.TensorProto",
         lambda: tf.io.decode_proto(serialized, "tensorflow.TensorProto", ["nope"], [tf.int32])[0]),
        (tf.errors.InvalidArgumentError, "No descriptor found for message type tensorflow.Nope",
         lambda: tf.io.decode_proto(serialized, "tensorflow.Nope", ["dtype"], [tf.int32])[0]),
        (tf.errors.InvalidArgumentError, "field_names and output_types attributes must have the same length",
         lambda: tf.io.decode_proto(serialized, "tensorflow.TensorProto", ["dtype", "int_val"], [tf.int32])[0]),
        (tf.errors.DataLossError, "Failed to parse",
         lambda: tf.io.decode_proto([b"\xff\xff"], "tensorflow.TensorProto", ["dtype"], [tf.int32])[0]),
        (tf.errors.InvalidArgumentError, "Incompatible type for field dtype.  Saw dtype: float but field type is: "
         "enum", lambda: tf.io.encode_proto([[1]], [[[1.5]]], ["dtype"], "tensorflow.TensorProto")),
        (tf.errors.InvalidArgumentError, "Size to write must not be larger than value tensor; but saw: 2 > 1 at "
         "message 0 field 0", lambda: tf.io.encode_proto([[2]], [[[1]]], ["int_val"], "tensorflow.TensorProto")),
    ]
    for error, message, build in cases:
        with tf.Graph().as_default():
            with tf.Session() as sess, pytest.raises(error, match=re.escape(message)):
                sess.run(build())
