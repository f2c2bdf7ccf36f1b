"""Gamma and Poisson sampling (stateful and stateless), the gamma gradient by alpha, fold_in and split: seeded
values recorded from real TensorFlow 2.21 (`tf.compat.v1`), moments of larger samples, and messages."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _run(tensors):
    with tf.Session() as sess:
        return sess.run(tensors)


def test_random_gamma_draws_tfs_values_and_gradient():
    with tf.Graph().as_default():
        alpha = tf.constant([0.5, 2.0])
        samples = tf.random.gamma([3], alpha, beta=[1.0, 2.0], seed=4)
        assert samples.shape.as_list() == [3, 2] and samples.dtype == tf.float32
        value, grad = _run([samples, tf.gradients(samples, alpha)[0]])
    np.testing.assert_allclose(value, [[0.14378183, 0.770942], [0.00293626, 2.079335], [0.11629976, 0.0858629]],
                               rtol=1e-6)
    np.testing.assert_allclose(grad, [1.2438903, 1.3641499], rtol=1e-5)
    with tf.Graph().as_default():
        raw = tf.raw_ops.RandomGamma(shape=[3], alpha=tf.constant([0.5, 1.0, 2.5, 0.1]), seed=7, seed2=3)
        exact = tf.raw_ops.RandomGamma(shape=[2, 2], alpha=tf.constant([[0.7], [30.0]], tf.float64), seed=1, seed2=2)
        floats, doubles = _run([raw, exact])
    np.testing.assert_array_equal(floats, np.array(
        [[0.10705150663852692, 0.16779643297195435, 2.7742919921875, 0.022047121077775955],
         [1.1853370666503906, 1.4979090690612793, 5.902958869934082, 7.870011933808208e-12],
         [0.00560532882809639, 0.13885359466075897, 1.4103115797042847, 2.1503868022181016e-13]], np.float32))
    np.testing.assert_allclose(doubles, [[[[0.041494168014635666], [30.728389954327294]],
                                          [[0.3345126775084982], [23.731517753483494]]],
                                         [[[0.38381864628047485], [29.45192396824584]],
                                          [[0.0716044979448356], [34.44330532459991]]]], rtol=1e-14)


def test_random_gamma_retries_a_non_positive_draw_and_gives_nan_for_negative_alpha():
    # Marsaglia-Tsang draws a new normal when 1 + c * x <= 0 (frequent for tiny alpha): those samples are
    # TF's values, not the floor; a negative alpha gives NaN, alpha 0 the floor (TF's values).
    with tf.Graph().as_default():
        small, edge = _run([tf.random_gamma([200], alpha=[0.05, 0.5], seed=7),
                            tf.random_gamma([2], alpha=[-1.0, 0.0], seed=7)])
    np.testing.assert_array_equal(small[[3, 21, 110], 0], np.array(
        [1.3447976656131253e-21, 9.049487204038087e-08, 1.5557427568424487e-10], np.float32))
    np.testing.assert_array_equal(edge, np.array([[np.nan, 1.1754943508222875e-38]] * 2, np.float32))


def test_random_gamma_moments_and_gamma_grad():
    with tf.Graph().as_default():
        alpha = np.array([0.3, 1.0, 4.0, 50.0])
        samples = _run(tf.random.gamma([4000], alpha, dtype=tf.float64, seed=11))
    np.testing.assert_allclose(samples.mean(axis=0), alpha, rtol=0.06)
    np.testing.assert_allclose(samples.var(axis=0), alpha, rtol=0.25)
    with tf.Graph().as_default():
        partial = tf.raw_ops.RandomGammaGrad(alpha=tf.constant([0.5, 1.0, 2.5, 10.0], tf.float64),
                                             sample=tf.constant([0.3, 1.2, 2.0, 9.0], tf.float64))
        np.testing.assert_allclose(_run(partial), [1.0098019459488548, 1.2854717535902629, 0.9534627029186169,
                                                   0.9641827242847961], rtol=1e-8)
    # d sample / d alpha keeps the sample's quantile: P(alpha + h, x + h * partial) = P(alpha, x).
    a, x, h = np.array([0.5, 2.5]), np.array([0.3, 2.0]), 1e-6
    with tf.Graph().as_default():
        partial = _run(tf.raw_ops.RandomGammaGrad(alpha=tf.constant(a), sample=tf.constant(x)))
        before, after = _run([tf.math.igamma(a, x), tf.math.igamma(a + h, x + h * partial)])
    np.testing.assert_allclose(after, before, atol=1e-11)


def test_random_poisson_draws_tfs_values():
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        samples = tf.random.poisson([1.5, 40.0], [2, 2], seed=9)
        assert samples.shape.as_list() == [2, 2, 2] and samples.dtype == tf.float32
        np.testing.assert_array_equal(_run(samples), np.array([[[2, 62], [0, 36]], [[2, 37], [3, 43]]], np.float32))
    with tf.Graph().as_default():
        ints = tf.raw_ops.RandomPoissonV2(shape=[4], rate=tf.constant([0.5, 3.0, 12.0, 100.0]), seed=5, seed2=6,
                                          dtype=tf.int64)
        value = _run(ints)
    assert value.dtype == np.int64
    np.testing.assert_array_equal(value, [[0, 5, 14, 94], [1, 3, 11, 108], [1, 1, 18, 82], [0, 6, 18, 105]])
    with tf.Graph().as_default():
        rates = np.array([0.2, 4.0, 25.0, 400.0])
        samples = _run(tf.random_poisson(rates, [4000], dtype=tf.float64, seed=2))
    np.testing.assert_allclose(samples.mean(axis=0), rates, rtol=0.06)
    np.testing.assert_allclose(samples.var(axis=0), rates, rtol=0.15)


def test_stateless_gamma_and_poisson_draw_tfs_values():
    with tf.Graph().as_default():
        gamma = tf.random.stateless_gamma([3, 2], [4, 5], [0.5, 2.0])
        poisson = tf.random.stateless_poisson([3, 2], [4, 5], [2.0, 15.0])
        assert gamma.shape.as_list() == [3, 2] and poisson.dtype == tf.int32
        gamma_value, poisson_value = _run([gamma, poisson])
        again = _run(tf.random.stateless_gamma([3, 2], [4, 5], [0.5, 2.0]))
    np.testing.assert_array_equal(gamma_value, again)
    np.testing.assert_allclose(gamma_value, [[0.6339247226715088, 3.4455947875976562],
                                             [0.014820503070950508, 0.9504838585853577],
                                             [0.08916834741830826, 5.490520000457764]], rtol=1e-6)
    np.testing.assert_array_equal(poisson_value, [[1, 13], [1, 17], [3, 17]])
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Shape passed in must end with broadcasted shape."):
            sess.run(tf.random.stateless_gamma([3], [1, 2], [1.0, 2.0]))


def test_split_and_fold_in():
    with tf.Graph().as_default():
        seeds, folded = _run([tf.random.split([1, 2], 3), tf.random.fold_in([1, 2], 7)])
        assert tf.random.experimental.stateless_split is tf.random.split
    np.testing.assert_array_equal(seeds, [[1105988140, 1738052849], [-335576002, 370444179],
                                          [10670227, -246211131]])
    np.testing.assert_array_equal(folded, [1105988140, 7])


def test_stateless_categorical_draws_tfs_values():
    with tf.Graph().as_default():
        logits = tf.constant([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]])
        categorical = tf.random.stateless_categorical(logits, 5, [3, 4])
        multinomial = tf.random.stateless_multinomial(logits, 4, [3, 4], output_dtype=tf.int32)
        assert categorical.shape.as_list() == [2, 5] and categorical.op.type == "StatelessMultinomial"
        first, second = _run([categorical, multinomial])
    assert first.dtype == np.int64 and second.dtype == np.int32
    np.testing.assert_array_equal(first, [[2, 2, 1, 2, 2], [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(second, [[2, 2, 1, 2], [1, 0, 0, 0]])
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Argument `dtype` got invalid value"):
        tf.random.stateless_categorical([[1.0]], 2, [1, 2], dtype=tf.float32)


def test_algorithm_and_create_rng_state():
    assert [a.value for a in tf.random.Algorithm] == [1, 2, 3]
    assert tf.random.experimental.Algorithm is tf.random.Algorithm
    with tf.Graph().as_default():
        states = _run([tf.random.create_rng_state(5, "philox"),
                       tf.random.create_rng_state(2**70 + 3, tf.random.Algorithm.PHILOX),
                       tf.random.create_rng_state([1, 2], 1), tf.random.experimental.create_rng_state(5, "threefry")])
    for state, expected in zip(states, [[5, 0, 0], [3, 64, 0], [0, 1, 2], [5, 0]]):
        assert state.dtype == np.int64
        np.testing.assert_array_equal(state, expected)
    with pytest.raises(ValueError, match="Argument `alg` got unsupported value foo."):
        tf.random.create_rng_state(5, "foo")
