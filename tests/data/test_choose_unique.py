"""choose_from_datasets, Counter and unique: values, specs and messages as TF 2.21's (recorded literals)."""

import numpy as np
import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf


def _choices(*indices):
    return tf.data.Dataset.from_tensor_slices(np.array(indices, np.int64))


def test_choose_from_datasets_skips_or_stops_at_an_ended_input():
    with tf.Graph().as_default():
        inputs = [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 15), tf.data.Dataset.from_tensors(np.int64(99))]
        choices = _choices(0, 1, 2, 2, 0, 0, 0, 1, 1)
        skipping = tf.data.experimental.choose_from_datasets(inputs, choices)
        assert repr(skipping) == ("<_DirectedInterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, "
                                  "name=None)>")
        assert [int(v) for v in dataset_elements(skipping)] == [0, 10, 99, 1, 2, 11, 12]
        stopping = tf.data.Dataset.choose_from_datasets(inputs, choices)
        assert [int(v) for v in dataset_elements(stopping)] == [0, 10, 99]
        mixed = tf.data.experimental.choose_from_datasets(
            [tf.data.Dataset.from_tensors([1, 2]), tf.data.Dataset.from_tensors([3])], tf.data.Dataset.range(2))
        assert mixed.output_shapes.as_list() == [None]
        assert [v.tolist() for v in dataset_elements(mixed)] == [[1, 2], [3]]
        bad = tf.data.experimental.choose_from_datasets(inputs[:2], _choices(0, 3))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Selector index out of range: 3 >= 2"):
            dataset_elements(bad)


def test_choose_from_datasets_errors():
    with tf.Graph().as_default():
        a = tf.data.Dataset.range(3)
        with pytest.raises(ValueError, match="Invalid `datasets`. `datasets` should not be empty."):
            tf.data.experimental.choose_from_datasets([], a)
        with pytest.raises(TypeError, match="should be a `tf.data.Dataset` but is <class 'list'>"):
            tf.data.experimental.choose_from_datasets([a], [0])
        with pytest.raises(TypeError) as e:
            tf.data.experimental.choose_from_datasets([a], a.map(lambda x: tf.cast(x, tf.int32)))
        assert str(e.value) == ("Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar `tf.int64` "
                                "tensors but are TensorSpec(shape=(), dtype=tf.int32, name=None).")
        with pytest.raises(TypeError) as e:
            tf.data.experimental.choose_from_datasets([a, tf.data.Dataset.from_tensors(1.0)], a)
        assert str(e.value) == (
            "Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 element_spec=TensorSpec("
            "shape=(), dtype=tf.int64, name=None).\nDataset 1 element_spec=TensorSpec(shape=(), dtype=tf.float32, "
            "name=None).")


def test_counter():
    with tf.Graph().as_default():
        counter = tf.data.experimental.Counter()
        assert repr(counter) == "<_ScanDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"
        assert [int(v) for v in dataset_elements(counter.take(3))] == [0, 1, 2]
        down = tf.data.experimental.Counter(5, -2, tf.int32).take(4)
        assert down.output_types == tf.int32
        assert [int(v) for v in dataset_elements(down)] == [5, 3, 1, -1]


def test_unique():
    with tf.Graph().as_default():
        ints = tf.data.Dataset.from_tensor_slices([1, 3, 1, 2, 3, 5, 2]).unique()
        assert repr(ints) == "<_UniqueDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>"
        assert [int(v) for v in dataset_elements(ints)] == [1, 3, 2, 5]
        strings = tf.data.Dataset.from_tensor_slices([b"a", b"b", b"a"]).apply(tf.data.experimental.unique())
        assert dataset_elements(strings) == [b"a", b"b"]
        rows = tf.data.Dataset.from_tensor_slices(np.array([[1, 2], [1, 2], [2, 1]])).unique()
        assert [v.tolist() for v in dataset_elements(rows)] == [[1, 2], [2, 1]]
        with pytest.raises(TypeError) as e:
            tf.data.Dataset.from_tensors(1.0).unique()
        assert str(e.value) == ("`tf.data.Dataset.unique` does not support type <dtype: 'float32'> -- only "
                                "`tf.int32`, `tf.int64`, and `tf.string` are supported.")
        with pytest.raises(tf.errors.InvalidArgumentError, match="only supports inputs with a single component"):
            dataset_elements(tf.data.Dataset.from_tensors((1, 2)).unique())
