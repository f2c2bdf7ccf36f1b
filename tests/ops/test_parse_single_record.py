"""parse_single_example's one-record path (parsing_ops `_single_example_dense`): the same values as the batch
path, and TF's errors through the batch path whenever a feature is missing or mistyped."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _example(**features):
    example = tf.train.Example()
    for key, (kind, values) in features.items():
        getattr(example.features.feature[key], kind).value.extend(values)
    return example.SerializeToString()


FEATURES = {"x": tf.FixedLenFeature([2, 2], tf.float32), "n": tf.FixedLenFeature([], tf.int64, default_value=7),
            "s": tf.FixedLenFeature([2], tf.string), "d": tf.FixedLenFeature([2], tf.float32, default_value=[0.5, 1.5])}


def test_one_record_gives_the_batch_paths_values():
    record = _example(x=("float_list", [1., 2., 3., 4.]), s=("bytes_list", [b"a", b"b\x00"]), n=("int64_list", [3]))
    with tf.Graph().as_default(), tf.Session() as sess:
        serialized = tf.placeholder(tf.string, [])
        single = sess.run(tf.parse_single_example(serialized, FEATURES), {serialized: record})
        batch = sess.run(tf.parse_example(tf.expand_dims(serialized, 0), FEATURES), {serialized: record})
    np.testing.assert_array_equal(single["x"], np.array([[1., 2.], [3., 4.]], np.float32))
    assert single["x"].dtype == np.float32 and single["n"].dtype == np.int64 and single["n"] == 3
    assert single["s"].tolist() == [b"a", b"b\x00"]
    np.testing.assert_array_equal(single["d"], np.array([0.5, 1.5], np.float32))
    for key in FEATURES:
        np.testing.assert_array_equal(single[key], batch[key][0])
    with tf.Graph().as_default(), tf.Session() as sess:
        missing = sess.run(tf.parse_single_example(_example(x=("float_list", [0.] * 4), s=("bytes_list", [b"", b""])),
                                                   FEATURES))
    assert missing["n"] == 7


@pytest.mark.parametrize("record, message", [
    (_example(x=("int64_list", [1, 2, 3, 4]), s=("bytes_list", [b"", b""])),
     "Key: x.  Data types don't match. Data type: int64 but expected type: float"),
    (_example(x=("float_list", [1., 2., 3., 4.])), "Feature: s (data type: string) is required but could not be found."),
])
def test_what_it_cannot_take_gets_tfs_errors(record, message):
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as raised:
            sess.run(tf.parse_single_example(record, FEATURES))
    assert message in raised.value.message
