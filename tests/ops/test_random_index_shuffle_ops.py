"""tf.random_index_shuffle (RandomIndexShuffle): TF 2.21's values for its seeds (recorded from real TF), that a
range maps onto a permutation, the per-element seed and bound forms, and TF's messages."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_random_index_shuffle_matches_tf():
    with tf.Graph().as_default():
        small = tf.random_index_shuffle(tf.range(10), tf.constant([1, 2, 3]), tf.constant(9))
        scalar = tf.random_index_shuffle(tf.constant(5, tf.int64), tf.constant([4, 5, 6], tf.int64),
                                         tf.constant(100000, tf.int64))
        per_element = tf.random_index_shuffle(tf.constant([3, 7], tf.uint32),
                                              tf.constant([[1, 2, 3], [7, 8, 9]], tf.uint32),
                                              tf.constant([2**20, 9], tf.uint32), rounds=6)
        wide = tf.random_index_shuffle(tf.constant(123456789012, tf.int64), tf.constant([11, 12, 13], tf.int64),
                                       tf.constant(2**40, tf.int64))
        negative_seed = tf.random_index_shuffle(tf.range(5), tf.constant([-1, 2, 3]), 4)
        whole = tf.random_index_shuffle(tf.range(70000), tf.constant([9, 9, 9]), 69999)
        assert small.shape.as_list() == [10] and scalar.shape.as_list() == [] and per_element.shape.as_list() == [2]
        with tf.Session() as sess:
            values = sess.run([small, scalar, per_element, wide, negative_seed, whole])
    assert values[0].tolist() == [2, 0, 6, 4, 8, 1, 7, 9, 5, 3] and values[0].dtype == np.int32
    assert values[1] == 68454 and values[1].shape == ()
    assert values[2].tolist() == [591431, 1] and values[2].dtype == np.uint32
    assert values[3] == 389313525609
    assert values[4].tolist() == [4, 0, 3, 1, 2]
    assert values[5][:10].tolist() == [69910, 42774, 25682, 59761, 21817, 11883, 3358, 32384, 10006, 24018]
    assert np.array_equal(np.sort(values[5]), np.arange(70000))


def test_random_index_shuffle_per_element_seeds_with_small_bound():
    with tf.Graph().as_default():
        seeds = tf.reshape(tf.range(30), [10, 3])
        shuffled = tf.random_index_shuffle(tf.zeros([10], tf.int32) + 4, seeds, 9)
        bounds = tf.random_index_shuffle(tf.range(6), tf.constant([5, 6, 7]), tf.constant([5, 9, 300, 70000, 5, 6]))
        with tf.Session() as sess:
            first, second = sess.run([shuffled, bounds])
    assert ((first >= 0) & (first <= 9)).all() and len(set(first.tolist())) > 1
    assert (second <= [5, 9, 300, 70000, 5, 6]).all()


def test_random_index_shuffle_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Seed must have shape \[3\] or \[n, 3\] but got \[2\]"):
            tf.random_index_shuffle(tf.range(3), tf.constant([1, 2]), 4)
        with pytest.raises(ValueError, match=r"Max index has shape \[2\] but must have shape \[3\]"):
            tf.random_index_shuffle(tf.range(3), tf.constant([1, 2, 3]), tf.constant([4, 5]))
        above = tf.random_index_shuffle(tf.constant([3, 7]), tf.constant([1, 2, 3]), tf.constant([9, 3]))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="max_index must be >= index, but 3 < 7"):
                sess.run(above)
