"""sample_from_datasets: a seeded selection is TF 2.21's (recorded), as are the messages."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _take(dataset, count):
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session() as sess:
        return [int(sess.run(nxt)) for _ in range(count)]


def test_seeded_sampling_is_tfs():
    with tf.Graph().as_default():
        a = tf.data.Dataset.from_tensors(np.int64(0)).repeat()
        b = tf.data.Dataset.from_tensors(np.int64(1)).repeat()
        c = tf.data.Dataset.range(100, 103)
        even = tf.data.experimental.sample_from_datasets([a, b], seed=7)
        assert repr(even) == ("<_DirectedInterleaveDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, "
                              "name=None)>")
        assert _take(even, 30) == [1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0,
                                   0, 1]
        weighted = tf.data.experimental.sample_from_datasets([a, b, c], [0.2, 0.3, 0.5], seed=3)
        assert _take(weighted, 20) == [100, 101, 102, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0]
        assert _take(tf.data.experimental.sample_from_datasets([a, b], [0.0, 1.0], seed=3), 3) == [1, 1, 1]


def test_sample_from_datasets_errors():
    with tf.Graph().as_default():
        a = tf.data.Dataset.range(3)
        with pytest.raises(ValueError, match="`datasets` should not be empty"):
            tf.data.experimental.sample_from_datasets([])
        with pytest.raises(ValueError) as e:
            tf.data.experimental.sample_from_datasets([a, a], [0.5])
        assert str(e.value) == ("Invalid `weights`. `weights` should have the same length as `datasets` but got "
                                "`len(weights)=1` vs. `len(datasets)=2`.")
        with pytest.raises(TypeError) as e:
            tf.data.experimental.sample_from_datasets([a, a], [1, 2])
        assert str(e.value) == ("Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` but "
                                "is <dtype: 'int32'>.")


def test_weights_as_a_tensor_or_a_dataset():
    """A weights tensor is captured by the drawing function; a dataset gives one weight vector per draw."""
    with tf.Graph().as_default():
        a = tf.data.Dataset.from_tensors(np.int64(0)).repeat()
        b = tf.data.Dataset.from_tensors(np.int64(1)).repeat()
        c = tf.data.Dataset.range(100, 103)
        constant = tf.data.experimental.sample_from_datasets([a, b, c], tf.constant([0.2, 0.3, 0.5]), seed=3)
        assert _take(constant, 20) == [100, 101, 102, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0]
        fed = tf.placeholder(tf.float32, [3])
        iterator = tf.data.make_initializable_iterator(tf.data.experimental.sample_from_datasets([a, b, c], fed))
        with tf.Session() as sess:
            sess.run(iterator.initializer, {fed: [0.0, 1.0, 0.0]})
            assert [sess.run(iterator.get_next()) for _ in range(5)] == [1] * 5
        per_draw = tf.data.Dataset.from_tensors(tf.constant([0.5, 0.5, 0.0])).repeat()
        assert _take(tf.data.experimental.sample_from_datasets([a, b, c], per_draw, seed=5), 12) == [
            0, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 1]
        with pytest.raises(ValueError) as e:
            tf.data.experimental.sample_from_datasets([a, b], tf.constant([0.2, 0.3, 0.5]))
        assert str(e.value) == ("Invalid `weights`. The shape of `weights` should be compatible with "
                                "`[len(datasets)]` but is (3,).")


def test_rejection_resample_draws_tfs_elements():
    """TF 2.21's seeded rejection_resample: estimated or given initial distribution, mixed with the original."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(100).map(lambda x: tf.cast(x % 3, tf.int32))
        resampled = ds.apply(tf.data.experimental.rejection_resample(lambda x: x, [0.6, 0.2, 0.2], seed=3))
        nxt = tf.data.make_one_shot_iterator(resampled).get_next()
        pairs = tf.data.Dataset.range(60).map(lambda x: (tf.cast(x % 2, tf.int32), x))
        given = pairs.rejection_resample(lambda c, x: c, [0.9, 0.1], initial_dist=[0.5, 0.5], seed=1)
        assert tf.data.get_output_types(given) == (tf.int32, (tf.int32, tf.int64))
        nxt2 = tf.data.make_one_shot_iterator(given).get_next()
        with tf.Session() as sess:
            assert [int(sess.run(nxt)[1]) for _ in range(12)] == [0, 0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 2]
            assert [int(sess.run(nxt2)[1][1]) for _ in range(12)] == [0, 2, 0, 1, 2, 3, 4, 6, 8, 4, 10, 5]


def test_random_dataset_draws_tfs_values():
    with tf.Graph().as_default() as g:
        seeded = tf.data.experimental.RandomDataset(seed=7)
        tf.set_random_seed(3)
        graph_seeded = tf.data.Dataset.random()
        assert [n.type for n in g.get_operations()].count("RandomDataset") == 2
        with tf.Session() as sess:
            for dataset, expected in ((seeded, [1992159687, 3200305987, 237021325]),
                                      (graph_seeded, [3507506551, 501761998, 2817715290])):
                nxt = tf.data.make_one_shot_iterator(dataset.take(3)).get_next()
                assert [int(sess.run(nxt)) for _ in range(3)] == expected
