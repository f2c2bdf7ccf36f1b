"""tf.data.experimental.cardinality: TF 2.21's counts (recorded) for each transformation."""

import numpy as np
import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf


def test_cardinality_of_each_transformation():
    with tf.Graph().as_default():
        r = tf.data.Dataset.range(10)
        unknown = r.filter(lambda x: x > 2)
        cases = {
            r: 10, r.repeat(): -1, r.repeat(3): 30, r.repeat(0): 0, r.take(3): 3, r.repeat().take(4): 4,
            unknown: -2, unknown.take(2): -2, unknown.repeat(): -1, unknown.repeat(0): 0, r.repeat().take(-1): -1,
            r.skip(4): 6, r.skip(20): 0, r.skip(-1): 0, r.repeat().skip(3): -1,
            r.batch(3): 4, r.batch(3, drop_remainder=True): 3, r.padded_batch(4, []): 3,
            r.shuffle(5): 10, r.map(lambda x: x + 1): -2, r.cache(): 10, r.prefetch(2): 10,
            r.shard(3, 0): 4, r.shard(3, 2): 3,
            tf.data.Dataset.zip((r, r.take(4))): 4, tf.data.Dataset.zip((r, r.repeat())): 10,
            tf.data.Dataset.zip((unknown, r)): -2, r.concatenate(r.take(2)): 12, r.concatenate(r.repeat()): -1,
            r.enumerate(): 10, tf.data.Dataset.from_tensors(1): 1, tf.data.Dataset.from_tensor_slices([1, 2, 3]): 3,
            tf.data.Dataset.from_tensor_slices(tf.SparseTensor([[0, 0], [2, 1]], [1, 2], [4, 3])): 4,
            tf.data.Dataset.range(10, 0, -3): 4, tf.data.Dataset.range(5, 2): 0, r.scan(0, lambda s, x: (s, x)): 10,
            r.batch(2).unbatch(): -2, r.flat_map(tf.data.Dataset.from_tensors): -2, tf.data.experimental.Counter(): -1,
            r.take_while(lambda x: x < 3): -2, r.apply(tf.data.experimental.ignore_errors()): -2, r.unique(): -2,
        }
        counts = [tf.data.experimental.cardinality(d) for d in cases]
        assert counts[0].dtype == tf.int64 and counts[0].shape.as_list() == []
        with tf.Session() as sess:
            assert [int(n) for n in sess.run(counts)] == list(cases.values())
        assert (tf.data.experimental.INFINITE_CARDINALITY, tf.data.experimental.UNKNOWN_CARDINALITY) == (-1, -2)


def test_cardinality_of_a_fed_range():
    with tf.Graph().as_default():
        stop = tf.placeholder(tf.int64, [])
        count = tf.data.experimental.cardinality(tf.data.Dataset.range(stop).batch(4))
        with tf.Session() as sess:
            assert sess.run(count, {stop: np.int64(9)}) == 3


@pytest.mark.parametrize("expected,source,taken,message", [
    (5, lambda: tf.data.Dataset.range(3), [0, 1, 2],
     "Input dataset was expected to contain 5 elements but contained only 3 elements."),
    (2, lambda: tf.data.Dataset.range(3), [0, 1],
     "Input dataset was expected to contain 2 elements but contained at least 3 elements."),
    (1, lambda: tf.data.Dataset.range(3).filter(lambda x: x > 0), [1],
     "Input dataset was expected to contain 1 element but contained at least 2 elements."),
    (-1, lambda: tf.data.Dataset.range(2), [0, 1],
     "Input dataset was expected to contain an infinite number of elements but contained only 2 elements."),
])
def test_assert_cardinality_fails_where_the_count_proves_otherwise(expected, source, taken, message):
    """Messages and the elements before them recorded from TF 2.21."""
    with tf.Graph().as_default():
        checked = source().apply(tf.data.experimental.assert_cardinality(expected))
        nxt = tf.data.make_one_shot_iterator(checked).get_next()
        with tf.Session() as sess:
            assert sess.run(tf.data.experimental.cardinality(checked)) == expected
            assert [sess.run(nxt) for _ in taken] == taken
            with pytest.raises(tf.errors.FailedPreconditionError, match=f"{message}\n"):
                sess.run(nxt)


def test_experimental_wrappers_of_dataset_methods():
    with tf.Graph().as_default():
        enumerated = tf.data.Dataset.range(5, 8).apply(tf.data.experimental.enumerate_dataset(2))
        assert [tuple(int(v) for v in e) for e in dataset_elements(enumerated)] == [(2, 5), (3, 6), (4, 7)]
        scanned = tf.data.Dataset.range(4).apply(tf.data.experimental.scan(np.int64(0), lambda s, x: (s + x, s)))
        assert [int(v) for v in dataset_elements(scanned)] == [0, 0, 1, 3]
        taken = tf.data.Dataset.range(9).apply(tf.data.experimental.take_while(lambda x: x < 3))
        assert [int(v) for v in dataset_elements(taken)] == [0, 1, 2]
        on_device = tf.data.Dataset.range(3).apply(tf.data.experimental.prefetch_to_device("/cpu:0"))
        assert [int(v) for v in dataset_elements(on_device)] == [0, 1, 2]
        assert tf.data.Dataset.range(3).apply(tf.data.experimental.copy_to_device("/cpu:0")).output_shapes == ()
