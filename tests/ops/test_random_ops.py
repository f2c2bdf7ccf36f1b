"""Random ops and TF1's seed rules: same seeds replay in new sessions, ops differ, no seed is fresh."""

import hashlib

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import runtime_message


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


def test_random_shuffle_gives_tfs_orders_of_vectors_and_rows():
    vector = tf.random_shuffle(tf.range(10), seed=41)
    matrix = tf.random_shuffle(tf.reshape(tf.range(12.0), [6, 2]), seed=31)
    cube = tf.random_shuffle(tf.reshape(tf.range(24), [4, 3, 2]), seed=37)
    with tf.Session() as sess:
        assert [sess.run(vector).tolist() for _ in range(2)] == [[1, 3, 5, 9, 6, 8, 0, 2, 7, 4],
                                                                 [2, 8, 3, 0, 4, 9, 7, 6, 5, 1]]
        assert [sess.run(matrix)[:, 0].tolist() for _ in range(2)] == [[0, 8, 4, 6, 2, 10], [4, 10, 6, 0, 2, 8]]
        cubes = [sess.run(cube) for _ in range(2)]
    assert [c[:, 0, 0].tolist() for c in cubes] == [[18, 6, 12, 0], [0, 6, 18, 12]]
    assert all((c == c[:, :1, :1] + np.arange(6).reshape(3, 2)).all() for c in cubes)  # whole rows move


def _fisher_yates_step_by_step(draws):
    order = list(range(len(draws) + 1))
    for i, draw in enumerate(draws.tolist()):
        j = i + draw % (len(order) - i)
        order[i], order[j] = order[j], order[i]
    return order


@pytest.mark.parametrize("rows", [2, 3, 5, 64, 4097, 65537, 100_003])
def test_vectorized_shuffle_order_matches_swapping_step_by_step(rows):
    """Random draws, and edge ones: every step swapping a row with itself, every step aiming at the last row,
    and the largest draws."""
    from tensorweave.ops import random_ops

    steps = rows - 1
    all_draws = [np.random.default_rng(rows).integers(0, 2**32, steps, dtype=np.uint32),
                 np.zeros(steps, dtype=np.uint32),
                 (rows - 1 - np.arange(steps)).astype(np.uint32),
                 np.full(steps, 2**32 - 1, dtype=np.uint32)]
    for draws in all_draws:
        assert random_ops._fisher_yates_order(draws).tolist() == _fisher_yates_step_by_step(draws)


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
            with pytest.raises(tf.errors.InvalidArgumentError, match="" + message):
                sess.run(samples, feed)


# -- Large outputs: a million values span many of the kernels' chunks (8192 Philox blocks each) and end in the
# middle of a block. Expected values are TF's, recorded as digests of its outputs' bytes (two runs each).

def _digest(values):
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


def test_large_uniform_and_integer_outputs_are_tfs_bit_for_bit():
    n = 1_000_003
    cases = [
        (tf.random_uniform([n], seed=11), ["a51350cc64d3f89c", "37a97278563e1516"]),
        (tf.random_uniform([n], dtype=tf.float64, seed=11), ["b386ee989048bdaf", "44ae16b122789ca6"]),
        (tf.random_uniform([n], dtype=tf.float16, seed=11), ["54e22129d5044ebe", "f92a72f845a39eb3"]),
        (tf.random_uniform([n], dtype=tf.bfloat16, seed=11), ["9f7dc6684a6d387c", "da80cbc5e6849129"]),
        (tf.random_uniform([n], -5, 1000, dtype=tf.int32, seed=14), ["3e86db837f8ba047", "c9fbff7233869852"]),
        (tf.random_uniform([n], -2**63, 2**63 - 1, dtype=tf.int64, seed=17), ["061f48ed469fa2c8", "1a5de9b81329bce7"]),
        (tf.random.stateless_uniform([n], seed=[1, 4], minval=None, maxval=None, dtype=tf.uint32),
         ["0150c759e1d1cc5e"] * 2),
        (tf.random.stateless_uniform([n], seed=[1, 5], minval=None, maxval=None, dtype=tf.int64),
         ["5e331f041c468015"] * 2),
        (tf.random.stateless_uniform([n], seed=[1, 3], minval=-3, maxval=77, dtype=tf.int64), ["b2f1e575037d6f34"] * 2),
        (tf.random.stateless_uniform([n], seed=[5, 8], dtype=tf.float64), ["c7165b8e4456943a"] * 2),
        (tf.random_shuffle(tf.reshape(tf.range(3 * 4097), [4097, 3]), seed=19), ["6303c8cf26a5ada7", "425fe58b4dac763e"]),
        (tf.random_shuffle(tf.range(70_001, dtype=tf.int64), seed=29), ["ffc543bcbbc025a6", "3c4319185595ffd1"]),
        (tf.random_shuffle(tf.range(n), seed=23), ["31683fefc17a0705", "597871fcb6ab94fa"]),
    ]
    with tf.Session() as sess:
        for tensor, digests in cases:
            assert [_digest(sess.run(tensor)) for _ in range(2)] == digests, tensor.name


def test_large_normal_outputs_follow_tfs_stream_across_chunks():
    n = 1_000_003
    normal = tf.random_normal([n], seed=12)
    truncated = tf.truncated_normal([n], seed=13)
    truncated64 = tf.random.stateless_truncated_normal([n], seed=[5, 7], dtype=tf.float64)
    with tf.Session() as sess:
        normal_v, truncated_v, truncated64_v = sess.run([normal, truncated, truncated64])
    np.testing.assert_allclose(normal_v[[32768, 32770, n - 1]], [-0.26226821541786194, 1.3098174333572388,
                                                               0.5675283074378967], rtol=1e-6)
    np.testing.assert_allclose(truncated_v[[0, 32768, 32769, n - 1]], [0.17451664805412292, 0.16757220029830933,
                                                                       0.8832388520240784, 1.649507761001587],
                               rtol=1e-6)
    assert np.abs(truncated_v).max() == np.float32(1.9999881982803345)
    np.testing.assert_allclose(truncated64_v[[0, 16384, n - 1]], [0.2737689844370885, -1.4806097113366317,
                                                                  1.7116592615703032], rtol=1e-14)


def test_sin_cos_table_rounds_like_numpy_for_every_box_muller_angle():
    """Box-Muller's float32 angles are 2*pi*m/2**23 rounded; the table sin/cos must round to float32 as np.sin and
    np.cos do for each of them."""
    from tensorweave.ops import random_ops

    mantissas = np.arange(1 << 23, dtype=np.uint32)
    angles = (random_ops._uint32_to_float(mantissas).astype(np.float64) * (2.0 * np.pi)).astype(np.float32)
    for chunk in np.array_split(angles.astype(np.float64), 64):
        sines, cosines = random_ops._sin_cos(chunk)
        np.testing.assert_array_equal(sines.astype(np.float32), np.sin(chunk).astype(np.float32))
        np.testing.assert_array_equal(cosines.astype(np.float32), np.cos(chunk).astype(np.float32))


def test_stateless_algorithms_as_tf():
    # recorded from TF: "philox" scrambles the seed in the graph, as the kernel does for auto_select on CPU
    with tf.Graph().as_default() as g, tf.Session() as sess:
        uniform, ints, normal = sess.run([
            tf.random.stateless_uniform([3], [3, 4], alg="philox"),
            tf.random.stateless_uniform([3], [3, 4], minval=0, maxval=100, dtype=tf.int32, alg="Phil-ox"),
            tf.random.stateless_normal([2], [3, 4], alg=tf.random.Algorithm.PHILOX)])
        assert uniform.tolist() == [0.24328744411468506, 0.9835063219070435, 0.22041726112365723]
        assert ints.tolist() == [63, 97, 62]
        assert normal.tolist() == [-0.17393383383750916, 1.6723546981811523]
        names = [op.name for op in g.get_operations() if op.name.startswith("stateless_random_uniform/")]
        assert names[3:9] == ["stateless_random_uniform/" + n for n in [
            "Const", "Cast/x", "Cast", "StatelessRandomUniformFullIntV2/shape", "StatelessRandomUniformFullIntV2/alg",
            "StatelessRandomUniformFullIntV2"]]
        assert names[-6:] == ["stateless_random_uniform/" + n for n in [
            "stack/0", "stack", "StatelessRandomUniformV2/alg", "StatelessRandomUniformV2", "sub", "mul"]]
        # TF's CPU kernels have no ThreeFry: its one-word counter fails the check that takes the id for a size
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(tf.random.stateless_uniform([3], [1, 2], alg="threefry"))
        assert runtime_message(info.value).startswith(
            "counter must be a vector with length at least 2; got shape: [1]. (Note that batched counters are not "
            "supported yet.)")
        key, counter = tf.constant([5], tf.uint64), tf.constant([1, 2], tf.uint64)
        for alg, message in [(2, "Unsupported algorithm id: 2"), (0, "Unsupported algorithm id: 0"),
                             (4, "counter must be a vector with length at least 4; got shape: [2]. (Note that "
                                 "batched counters are not supported yet.)")]:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(tf.raw_ops.StatelessRandomUniformV2(shape=[3], key=key, counter=counter, alg=alg))
            assert runtime_message(info.value).split("\n")[0] == message
        fed = tf.placeholder(tf.uint64)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(tf.raw_ops.StatelessRandomUniformV2(shape=[3], key=fed, counter=counter, alg=1), {fed: [1, 2]})
        assert runtime_message(info.value).split("\n")[0] == (
            "key must have shape [1], not [2]. (Note that batched keys are not supported yet.)")
    with pytest.raises(ValueError, match="^Argument `alg` got unsupported value bad. Supported values are philox for "
                                         "the Philox algorithm, threefry for the ThreeFry algorithm, and auto_select"):
        tf.random.stateless_uniform([4], [1, 2], alg="bad")
    with pytest.raises(ValueError, match="^Argument `alg` got unsupported value 7. Supported values are 1 for the "
                                         "Philox algorithm, 2 for the ThreeFry algorithm, and 3 for auto-selection."):
        tf.random.stateless_uniform([4], [1, 2], alg=7)
