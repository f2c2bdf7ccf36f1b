"""group_by_window and bucket_by_sequence_length: TF's window order, padding and messages (literals recorded from
TF 2.21)."""

import numpy as np
import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf

_SEQUENCES = [[0], [1, 2, 3, 4], [5, 6, 7], [7, 8, 9, 10, 11], [13, 14, 15, 16, 19, 20], [21, 22]]



def _sequences():
    return tf.data.Dataset.from_generator(lambda: _SEQUENCES, tf.int64, output_shapes=[None])


def test_group_by_window_order_and_spec():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).apply(
            tf.data.experimental.group_by_window(lambda x: x % 3, lambda k, w: w.batch(4), window_size=2))
        assert repr(ds) == "<_GroupByWindowDataset element_spec=TensorSpec(shape=(?,), dtype=tf.int64, name=None)>"
        assert [v.tolist() for v in dataset_elements(ds)] == [[0, 3], [1, 4], [2, 5], [6, 9], [7], [8]]


def test_group_by_window_size_func_per_key():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).group_by_window(
            lambda x: x % 4, lambda k, w: w.map(lambda v: (v, v * 2)).batch(10), window_size_func=lambda k: k + 1)
        out = dataset_elements(ds)
        assert [a.tolist() for a, _ in out] == [[0], [4], [1, 5], [8], [9], [2, 6], [3, 7]]
        assert all((b == 2 * a).all() for a, b in out)


def test_group_by_window_errors():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10)
        message = "Either the `window_size` argument or the `window_size_func` argument must be specified."
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            ds.group_by_window(lambda x: x, lambda k, w: w)
        with pytest.raises(ValueError, match="must be specified"):
            ds.group_by_window(lambda x: x, lambda k, w: w, 2, lambda k: k)
        with pytest.raises(ValueError) as e:
            ds.group_by_window(lambda x: tf.constant([1], tf.int64), lambda k, w: w, 2)
        assert str(e.value) == ("Invalid `key_func`. `key_func` must return a single `tf.int64` scalar tensor but its "
                                "return type is TensorSpec(shape=(1,), dtype=tf.int64, name=None).")
        with pytest.raises(ValueError, match="Invalid `window_size_func`"):
            ds.group_by_window(lambda x: x, lambda k, w: w, window_size_func=lambda k: tf.constant([1], tf.int64))
        bad = ds.group_by_window(lambda x: x, lambda k, w: w, window_size_func=lambda k: k - 3)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Window size must be greater than zero, but got -3"):
            dataset_elements(bad)


def test_bucket_by_sequence_length_pads_each_bucket():
    with tf.Graph().as_default():
        ds = _sequences().apply(tf.data.experimental.bucket_by_sequence_length(
            lambda e: tf.shape(e)[0], [3, 5], [2, 2, 2]))
        assert repr(ds) == "<_GroupByWindowDataset element_spec=TensorSpec(shape=(?, ?), dtype=tf.int64, name=None)>"
        assert [v.tolist() for v in dataset_elements(ds)] == [
            [[1, 2, 3, 4], [5, 6, 7, 0]], [[7, 8, 9, 10, 11, 0], [13, 14, 15, 16, 19, 20]], [[0, 0], [21, 22]]]


def test_bucket_by_sequence_length_to_boundary():
    with tf.Graph().as_default():
        ds = _sequences().bucket_by_sequence_length(lambda e: tf.shape(e)[0], [4, 7], [2, 2, 2],
                                                    pad_to_bucket_boundary=True, padding_values=np.int64(-1))
        assert [v.tolist() for v in dataset_elements(ds)] == [
            [[0, -1, -1], [5, 6, 7]], [[1, 2, 3, 4, -1, -1], [7, 8, 9, 10, 11, -1]], [[21, 22, -1]],
            [[13, 14, 15, 16, 19, 20]]]
        dropped = _sequences().apply(tf.data.experimental.bucket_by_sequence_length(
            lambda e: tf.shape(e)[0], [4, 7], [2, 2, 2], pad_to_bucket_boundary=True, drop_remainder=True))
        assert [v.tolist() for v in dataset_elements(dropped)] == [[[0, 0, 0], [5, 6, 7]],
                                                       [[1, 2, 3, 4, 0, 0], [7, 8, 9, 10, 11, 0]]]


def test_bucket_by_sequence_length_no_padding_and_errors():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(7).apply(tf.data.experimental.bucket_by_sequence_length(
            lambda e: tf.cast(e, tf.int32), [3], [2, 3], no_padding=True))
        assert repr(ds) == "<_GroupByWindowDataset element_spec=TensorSpec(shape=(?,), dtype=tf.int64, name=None)>"
        assert [v.tolist() for v in dataset_elements(ds)] == [[0, 1], [3, 4, 5], [2], [6]]
        with pytest.raises(ValueError) as e:
            ds.apply(tf.data.experimental.bucket_by_sequence_length(lambda e: e, [3], [2]))
        assert str(e.value) == ("`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                                "`len(bucket_batch_sizes)=1` and `len(bucket_boundaries)=1`.")


def test_a_function_inside_reduce_func_captures_the_key():
    """The map function inside reduce_func captures its key argument through reduce_func (TF 2.21's values)."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10).group_by_window(
            lambda x: x % 4, lambda k, w: w.map(lambda v: (k, v)).batch(10), window_size=2)
        assert [[p.tolist() for p in e] for e in dataset_elements(ds)] == [
            [[0, 0], [0, 4]], [[1, 1], [1, 5]], [[2, 2], [2, 6]], [[3, 3], [3, 7]], [[0], [8]], [[1], [9]]]


def test_group_by_reducer_folds_each_key_and_yields_in_key_order():
    """Values recorded from TF 2.21."""
    with tf.Graph().as_default():
        summed = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x,
                                              lambda s: s * 10)
        ds = tf.data.Dataset.from_tensor_slices(tf.constant([5, 3, 8, 1, 6, 2], tf.int64)).apply(
            tf.data.experimental.group_by_reducer(lambda x: x % 3, summed))
        assert repr(ds).startswith("<_GroupByReducerDataset element_spec=TensorSpec(shape=(), dtype=tf.int64")
        assert [int(v) for v in dataset_elements(ds)] == [90, 10, 150]
        keyed = tf.data.experimental.Reducer(lambda k: (k, tf.constant(0.0)),
                                             lambda s, x: (s[0], s[1] + tf.cast(x, tf.float32)),
                                             lambda a, b: {"k": a, "sum": b})
        ds2 = tf.data.Dataset.range(7).apply(tf.data.experimental.group_by_reducer(lambda x: 10 - x % 2, keyed))
        assert ds2.output_types == {"k": tf.int64, "sum": tf.float32}
        assert [(int(e["k"]), float(e["sum"])) for e in dataset_elements(ds2)] == [(9, 9.0), (10, 12.0)]
