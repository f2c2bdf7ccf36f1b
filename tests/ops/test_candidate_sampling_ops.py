"""Candidate samplers and compute_accidental_hits: seeded candidates and expected counts recorded from TF 2.21
(uniform, log-uniform and learned unigram draw TF's own candidates), the distribution of the fixed unigram
sampler, TF's errors; and nce_loss / sampled_softmax_loss against TF's values, with their gradients."""

import numpy as np
import pytest
from op_testing import check_gradient, check_tensor

import tensorweave.compat.v1 as tf

TRUE_CLASSES = np.array([[0, 3], [5, 2], [7, 1]], dtype=np.int64)


def _run_twice(build):
    with tf.Graph().as_default():
        outputs = build()
        with tf.Session() as sess:
            return [[np.asarray(x) for x in sess.run(outputs)] for _ in range(2)]


@pytest.mark.parametrize("sampler, unique, want", [
    (tf.nn.uniform_candidate_sampler, False, [[9, 9, 8, 4, 6, 2], [1, 8, 0, 4, 1, 5]]),
    (tf.random.uniform_candidate_sampler, True, [[9, 8, 4, 6, 2, 5], [1, 8, 0, 4, 5, 3]]),
    (tf.nn.log_uniform_candidate_sampler, False, [[7, 0, 2, 6, 0, 2], [1, 7, 6, 0, 1, 0]]),
    (tf.random.log_uniform_candidate_sampler, True, [[7, 0, 2, 6, 3, 1], [1, 7, 6, 0, 2, 3]]),
    (tf.nn.learned_unigram_candidate_sampler, False, [[7, 7, 5, 4, 0, 3], [2, 2, 8, 2, 3, 1]]),
    (tf.random.learned_unigram_candidate_sampler, True, [[7, 5, 4, 0, 3, 9], [2, 8, 3, 1, 0, 6]]),
])
def test_seeded_candidates_are_tfs(sampler, unique, want):
    runs = _run_twice(lambda: sampler(TRUE_CLASSES, 2, 6, unique, 10, seed=7))
    for run, candidates in zip(runs, want):
        np.testing.assert_array_equal(run[0], np.array(candidates, np.int64), strict=True)
        assert run[1].dtype == run[2].dtype == np.float32
        assert run[1].shape == (3, 2) and run[2].shape == (6,)
    again = _run_twice(lambda: sampler(TRUE_CLASSES, 2, 6, unique, 10, seed=7))
    np.testing.assert_array_equal(again[0][0], runs[0][0])


def test_expected_counts():
    """Without `unique`, p * num_sampled; with it, 1 - (1 - p) ** tries (TF's values)."""
    with tf.Graph().as_default():
        log_uniform = tf.nn.log_uniform_candidate_sampler(TRUE_CLASSES, 2, 6, False, 10, seed=7)
        p = np.log((TRUE_CLASSES + 2.0) / (TRUE_CLASSES + 1.0)) / np.log(11.0)
        check_tensor(log_uniform.true_expected_count, (p * 6).astype(np.float32))
        check_tensor(log_uniform[1], np.array([[1.7343889, 0.5583485], [0.38571498, 0.7198365],
                                               [0.29471606, 1.0145526]], np.float32))
        unique = tf.nn.log_uniform_candidate_sampler(TRUE_CLASSES, 2, 6, True, 10, seed=7)
        check_tensor(unique[2], np.array([0.33164358, 0.9347411, 0.64027637, 0.3676929, 0.54224217, 0.7727922],
                                         np.float32))
        uniform = tf.nn.uniform_candidate_sampler(TRUE_CLASSES, 2, 6, True, 10, seed=7)
        check_tensor(uniform[2], np.full(6, 0.6513216, np.float32))
        every = tf.nn.all_candidate_sampler(TRUE_CLASSES % 5, 2, 5, True)
        check_tensor(every[0], np.arange(5, dtype=np.int64))
        check_tensor(every[1], np.ones((3, 2), np.float32))
        check_tensor(every[2], np.ones(5, np.float32))


def test_learned_unigram_learns_the_true_classes():
    runs = _run_twice(lambda: tf.nn.learned_unigram_candidate_sampler(TRUE_CLASSES, 2, 6, False, 10, seed=7))
    np.testing.assert_allclose(runs[0][1], np.full((3, 2), 0.6, np.float32))
    np.testing.assert_allclose(runs[1][1], np.full((3, 2), 0.75, np.float32))  # counts 2 of 16 after one run


def test_fixed_unigram(tmp_path):
    weights = np.array([1., 2, 3, 4, 5, 6, 7, 8, 9, 10])
    with tf.Graph().as_default():
        sampler = tf.nn.fixed_unigram_candidate_sampler(TRUE_CLASSES, 2, 4, True, 10, unigrams=weights,
                                                        distortion=0.5, seed=3)
        check_tensor(sampler[1], np.array([[0.17802878, 0.35605755], [0.43607968, 0.30835488],
                                           [0.5035414, 0.2517707]], np.float32))  # TF's values
        sharded = tf.nn.fixed_unigram_candidate_sampler(TRUE_CLASSES % 6, 2, 4, False, 6, unigrams=weights,
                                                        num_reserved_ids=2, num_shards=2, shard=0, seed=3)
        check_tensor(sharded[1], np.array([[0., 0.8], [1.3333334, 0.53333336], [0.26666668, 0.26666668]],
                                          np.float32))
        many = tf.nn.fixed_unigram_candidate_sampler([[0]], 1, 20000, False, 4, unigrams=[1., 0, 3, 4], seed=5)
        vocab = tmp_path / "vocab.txt"
        vocab.write_text("a,1\nb,3\nc,2\nd,4\n")
        from_file = tf.nn.fixed_unigram_candidate_sampler([[1], [3]], 1, 2, False, 4, vocab_file=str(vocab),
                                                          distortion=2.0, seed=1)
        with tf.Session() as sess:
            candidates = sess.run(many[0])
            np.testing.assert_allclose(sess.run(from_file[1]), [[0.6], [1.0666667]], rtol=1e-6)
    frequencies = np.bincount(candidates, minlength=4) / candidates.size
    np.testing.assert_allclose(frequencies, [0.125, 0, 0.375, 0.5], atol=0.015)


def test_fixed_unigram_draws_are_tfs():
    """The candidates themselves are TF's: its alias-table DistributionSampler over the op's Philox stream."""
    true_classes = np.array([[1], [3]], np.int64)
    with tf.Graph().as_default():
        samplers = [
            tf.nn.fixed_unigram_candidate_sampler(true_classes, 1, 3, True, 4, unigrams=[1., 2., 3., 4.], seed=2),
            tf.nn.fixed_unigram_candidate_sampler(true_classes, 1, 6, True, 7, unigrams=[5., 1., 0.5, 2., 2., 3., 0.1],
                                                  distortion=0.75, seed=4),
            tf.nn.fixed_unigram_candidate_sampler(true_classes, 1, 20, False, 10, unigrams=[1.] * 8, num_reserved_ids=2,
                                                  seed=5)]
        with tf.Session() as sess:
            drawn = [sess.run(sampler.sampled_candidates).tolist() for sampler in samplers]
    assert drawn == [[3, 1, 2], [0, 4, 2, 5, 1, 6],
                     [8, 9, 3, 7, 9, 5, 9, 2, 9, 9, 8, 5, 5, 6, 6, 3, 2, 2, 9, 5]]


def test_log_uniform_distribution():
    with tf.Graph().as_default():
        sampled = tf.nn.log_uniform_candidate_sampler([[0]], 1, 20000, False, 5, seed=11)[0]
        with tf.Session() as sess:
            candidates = sess.run(sampled)
    p = np.log((np.arange(5) + 2.0) / (np.arange(5) + 1.0)) / np.log(6.0)
    np.testing.assert_allclose(np.bincount(candidates, minlength=5) / candidates.size, p, atol=0.015)


def test_sampler_errors(tmp_path):
    def fails(build, feed=None):
        with tf.Graph().as_default():
            outputs = build()
            with tf.Session() as sess:
                sess.run(outputs, feed)

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Sampler's range is too small\."):
        fails(lambda: tf.nn.uniform_candidate_sampler([[1, 0]], 2, 3, True, 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`true_candidate` out of range \[0, 10\), received 12"):
        fails(lambda: tf.nn.uniform_candidate_sampler([[1, 12]], 2, 3, False, 10))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Must provide either vocab_file or unigrams."):
        fails(lambda: tf.nn.fixed_unigram_candidate_sampler([[1]], 1, 3, False, 10))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Must only provide one of vocab_file and unigrams."):
        fails(lambda: tf.nn.fixed_unigram_candidate_sampler([[1]], 1, 3, False, 10, unigrams=[1.], vocab_file="v"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="range is 10 must be equal to weights size  2"):
        fails(lambda: tf.nn.fixed_unigram_candidate_sampler([[1]], 1, 3, False, 10, unigrams=[1., 2.]))
    with tf.Graph().as_default():
        classes = tf.placeholder(tf.int64)
        sampled = tf.nn.uniform_candidate_sampler(classes, 2, 3, False, 10)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="true_classes must have num_true columns, expected: 3 was: 2"):
            sess.run(sampled, {classes: [[1, 2, 3]]})
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1 for '{{node UniformCandidate"):
            tf.nn.uniform_candidate_sampler([1, 2], 2, 3, False, 10)
        with pytest.raises(ValueError, match="Dimension must be 3 but is 2 for '{{node ComputeAccidentalHits"):
            tf.nn.compute_accidental_hits([[1, 2]], [1, 2], 3)
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2 for '{{node ComputeAccidental"):
            tf.nn.compute_accidental_hits([[1, 2]], [[1, 2]], 2)


def test_compute_accidental_hits():
    with tf.Graph().as_default():
        indices, ids, weights = tf.nn.compute_accidental_hits(TRUE_CLASSES, np.array([3, 4, 5, 3, 1], np.int64), 2)
        check_tensor(indices, np.array([0, 1, 2], np.int32), fully_defined=False)
        check_tensor(ids, np.array([3, 2, 4], np.int64), fully_defined=False)  # a class sampled twice: its last
        check_tensor(weights, np.full(3, -np.finfo(np.float32).max, np.float32), fully_defined=False)
        none = tf.nn.compute_accidental_hits(TRUE_CLASSES, np.zeros(0, np.int64), 2)
        check_tensor(none[0], np.zeros(0, np.int32), fully_defined=False)


RNG = np.random.RandomState(0)
WEIGHTS = RNG.randn(10, 4).astype(np.float32)
BIASES = RNG.randn(10).astype(np.float32)
INPUTS = RNG.randn(3, 4).astype(np.float32)


def _sampled_values():
    return (tf.constant([3, 4, 5, 3, 9], tf.int64), tf.constant([[0.5, 0.25]] * 3),
            tf.constant([0.1, 0.2, 0.3, 0.4, 0.5]))


def _shards(weights):
    return [weights[0::3], weights[1::3], weights[2::3]]


def test_nce_and_sampled_softmax_losses():
    """TF's values, with given samples and with the seeded log-uniform sampler, over one weight tensor and
    over three shards ("mod"), with and without accidental hits removed."""
    with tf.Graph().as_default():
        w, b, x = tf.constant(WEIGHTS), tf.constant(BIASES), tf.constant(INPUTS)
        shards = [tf.constant(s) for s in _shards(WEIGHTS)]
        check_tensor(tf.nn.nce_loss(w, b, TRUE_CLASSES, x, 5, 10, num_true=2, sampled_values=_sampled_values()),
                     np.array([14.138226, 12.52788, 10.416122], np.float32), rtol=1e-6)
        check_tensor(tf.nn.nce_loss(shards, b, TRUE_CLASSES, x, 5, 10, num_true=2, sampled_values=_sampled_values(),
                                    remove_accidental_hits=True),
                     np.array([12.344344, 11.250326, 10.416122], np.float32), rtol=1e-6)
        check_tensor(tf.nn.sampled_softmax_loss(w, b, TRUE_CLASSES, x, 5, 10, num_true=2,
                                                sampled_values=_sampled_values()),
                     np.array([5.7171578, 4.3319397, 4.6341028], np.float32), rtol=1e-6)
        check_tensor(tf.nn.sampled_softmax_loss(shards, b, TRUE_CLASSES[:, :1], x, 4, 10, seed=3),
                     np.array([5.590889, 0.7540575, 0.61474645], np.float32), rtol=1e-6)
        tf.set_random_seed(1)
        loss = tf.nn.nce_loss(w, b, TRUE_CLASSES[:, :1], x, 4, 10)
        check_tensor(loss, np.array([7.085424, 3.5749447, 1.744656], np.float32), rtol=1e-6)
        grads = tf.gradients(tf.nn.sampled_softmax_loss(shards, b, TRUE_CLASSES[:, :1], x, 4, 10, seed=3),
                             shards + [b, x])
        with tf.Session() as sess:
            grad_b = sess.run(tf.convert_to_tensor(grads[3]))
    assert grad_b.shape == (10,) and grad_b[[0, 2, 3, 4, 5, 6, 7, 8, 9]].any()


@pytest.mark.parametrize("loss", [tf.nn.nce_loss, tf.nn.sampled_softmax_loss])
def test_sampled_loss_gradients(loss):
    weights, biases, inputs = WEIGHTS.astype(np.float64), BIASES.astype(np.float64), INPUTS.astype(np.float64)

    def build(w0, w1, w2, b, x):
        sampled = [tf.constant([3, 4, 5, 3, 9], tf.int64), tf.constant([[0.5, 0.25]] * 3, tf.float64),
                   tf.constant([0.1, 0.2, 0.3, 0.4, 0.5], tf.float64)]
        return loss([w0, w1, w2], b, TRUE_CLASSES, x, 5, 10, num_true=2, sampled_values=sampled,
                    remove_accidental_hits=True)

    check_gradient(build, [*_shards(weights), biases, inputs])


def test_sampled_softmax_over_a_partitioned_variable_looks_up_its_shards():
    """A PartitionedVariable is its list of shards, as in TF: each shard's gradient is IndexedSlices of the
    looked-up rows (never the concatenated table), and with "div" (its contiguous shards) the loss is the one
    over the whole table."""
    with tf.Graph().as_default():
        w = tf.get_variable("w", initializer=tf.constant(WEIGHTS), partitioner=tf.fixed_size_partitioner(3))
        b, x = tf.constant(BIASES), tf.constant(INPUTS)
        loss = tf.nn.sampled_softmax_loss(w, b, TRUE_CLASSES[:, :1], x, 4, 10, seed=3, partition_strategy="div")
        whole = tf.nn.sampled_softmax_loss(tf.constant(WEIGHTS), b, TRUE_CLASSES[:, :1], x, 4, 10, seed=3)
        grads = tf.gradients(loss, list(w))
        assert [type(g).__name__ for g in grads] == ["IndexedSlices"] * 3
        assert not [op for op in tf.get_default_graph().get_operations() if "ConcatPartitions" in op.name]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            rows, loss_value, whole_value = sess.run([[tf.size(g.indices) for g in grads], loss, whole])
    np.testing.assert_allclose(loss_value, whole_value, rtol=1e-6)
    assert sum(rows) == 3 * 1 + 4  # the batch's true classes and the 4 samples
