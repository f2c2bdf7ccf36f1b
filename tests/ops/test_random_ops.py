"""Random ops and TF1's seed rules: same seeds replay in new sessions, ops differ, no seed is fresh."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _two_sessions(fetch, runs=2):
    values = []
    for _ in range(2):
        with tf.Session() as sess:
            values.append([sess.run(fetch) for _ in range(runs)])
    return values


def test_graph_seed_replays_the_same_stream_in_every_new_session():
    tf.set_random_seed(1234)
    a = tf.random_uniform([5])
    b = tf.random_uniform([5])
    first, second = _two_sessions([a, b])
    for run_1, run_2 in zip(first, second):
        np.testing.assert_array_equal(run_1[0], run_2[0])
        np.testing.assert_array_equal(run_1[1], run_2[1])
    assert not np.array_equal(first[0][0], first[1][0])  # each run advances the stream
    assert not np.array_equal(first[0][0], first[0][1])  # different ops get different streams


def test_op_seed_without_graph_seed_is_deterministic():
    a = tf.random_normal([3], seed=7)
    first, second = _two_sessions(a)
    np.testing.assert_array_equal(first, second)
    rnd = a.graph.get_operation_by_name("random_normal/RandomStandardNormal")
    assert (rnd.get_attr("seed"), rnd.get_attr("seed2")) == (87654321, 7)


def test_no_seed_gives_fresh_randomness():
    a = tf.random_uniform([8])
    first, second = _two_sessions(a, runs=1)
    assert not np.array_equal(first[0], second[0])


def test_get_seed_rules():
    assert tf.get_seed(None) == (None, None)
    assert tf.get_seed(3) == (87654321, 3)
    tf.set_random_seed(5)
    assert [tf.get_seed(None), tf.get_seed(None), tf.get_seed(9)] == [(5, 0), (5, 1), (5, 9)]
    tf.set_random_seed(0)
    assert tf.get_seed(0) == (0, 2**31 - 1)


def test_ranges_shapes_and_dtypes():
    tf.set_random_seed(3)
    u = tf.random_uniform([1000], -2.0, 5.0)
    i = tf.random_uniform([1000], 3, 9, dtype=tf.int64)
    n = tf.random_normal([20000], mean=1.0, stddev=2.0, dtype=tf.float64)
    t = tf.truncated_normal([20000], stddev=0.5)
    h = tf.random_uniform([4], dtype=tf.float16)
    with tf.Session() as sess:
        u_v, i_v, n_v, t_v, h_v = sess.run([u, i, n, t, h])
    assert u_v.dtype == np.float32 and u_v.min() >= -2.0 and u_v.max() < 5.0
    assert i_v.dtype == np.int64 and set(np.unique(i_v)) <= set(range(3, 9)) and len(np.unique(i_v)) == 6
    assert n_v.dtype == np.float64 and abs(n_v.mean() - 1.0) < 0.1 and abs(n_v.std() - 2.0) < 0.1
    assert np.abs(t_v).max() <= 1.0 and abs(t_v.std() - 0.44) < 0.03
    assert h_v.dtype == np.float16
    assert u.shape.as_list() == [1000] and i.shape.as_list() == [1000]
    with pytest.raises(ValueError, match="Must specify maxval for integer dtype"):
        tf.random_uniform([2], dtype=tf.int32)


def test_invalid_integer_range_is_invalid_argument():
    lo = tf.placeholder(tf.int32, [])
    x = tf.random_uniform([2], lo, 5, dtype=tf.int32)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 5"):
            sess.run(x, {lo: 5})


def test_random_shuffle_permutes_the_first_dimension_anew_every_run():
    value = np.arange(20).reshape(10, 2)
    shuffled = tf.random_shuffle(value, seed=1)
    assert (shuffled.name, shuffled.op.type, shuffled.shape.as_list()) == ("RandomShuffle:0", "RandomShuffle", [10, 2])
    assert (shuffled.op.get_attr("seed"), shuffled.op.get_attr("seed2")) == (87654321, 1)
    with tf.Session() as sess:
        first, second = sess.run(shuffled), sess.run(shuffled)
        assert sorted(first.tolist()) == value.tolist() and first.tolist() != second.tolist()
        assert sess.run(tf.random_shuffle(5.0)) == 5.0
        assert sess.run(tf.random_shuffle(np.zeros((0, 2)))).shape == (0, 2)
    with tf.Session() as sess:  # a seeded op replays its stream in a new session
        assert sess.run(shuffled).tolist() == first.tolist()


def test_multinomial_draws_classes_with_softmax_probabilities():
    logits = tf.log([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]])
    samples = tf.multinomial(logits, 20000, seed=3)
    assert (samples.name, samples.op.type, samples.dtype) == ("multinomial/Multinomial:0", "Multinomial", tf.int64)
    assert samples.shape.as_list() == [2, 20000]
    assert samples.op.inputs[1].name == "multinomial/Multinomial/num_samples:0"
    with tf.Session() as sess:
        drawn = sess.run(samples)
    frequencies = [np.bincount(row, minlength=3) / row.size for row in drawn]
    np.testing.assert_allclose(frequencies, [[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]], atol=0.015)
    assert tf.multinomial([[1.0, 2.0]], tf.placeholder(tf.int32), output_dtype=tf.int32).shape.as_list() == [1, None]
    assert tf.multinomial(tf.placeholder(tf.float32), 3).shape.as_list() == [None, 3]
    with pytest.raises(ValueError, match="^Shape must be rank 2 but is rank 1 for "):
        tf.multinomial([1.0, 2.0], 2)
    with pytest.raises(ValueError, match="^Shape must be rank 0 but is rank 1 for "):
        tf.multinomial([[1.0, 2.0]], [2])


def test_multinomial_run_time_checks():
    logits, count = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
    samples = tf.multinomial(logits, count)
    with tf.Session() as sess:
        assert sess.run(samples, {logits: [[1.0, 2.0]], count: 0}).shape == (1, 0)
        assert sess.run(samples, {logits: np.zeros((0, 3)), count: 2}).shape == (0, 2)
        assert sess.run(samples, {logits: [[-np.inf, 0.0]], count: 3}).tolist() == [[1, 1, 1]]
        for feed, message in [({logits: [1.0, 2.0], count: 2}, r"logits should be a matrix, got shape \[2\]"),
                              ({logits: [[1.0, 2.0]], count: -1}, "num_samples should be non-negative, got -1"),
                              ({logits: np.zeros((2, 0)), count: 2}, "num_classes should be positive, got 0")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match="^" + message):
                sess.run(samples, feed)
