"""Fractional max and average pooling: TF 2.21's pooling sequences for seeded deterministic nodes (random and
pseudo-random, overlapping or not), pooled values and gradients recorded from real TF, the values against a
direct loop over the returned sequences, and TF's messages."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_gradient

_X = np.sin(np.arange(1 * 7 * 9 * 2) * 1.7).reshape(1, 7, 9, 2).astype(np.float32)
_RATIO = [1, 1.44, 1.73, 1]
# TF's sequences for seed=7, seed2=3 (random: pseudo_random False; pseudo-random: True).
_RANDOM_SEQ = ([0, 2, 4, 6, 7], [0, 2, 4, 6, 8, 9])
_PSEUDO_SEQ = ([0, 2, 3, 5, 7], [0, 2, 4, 6, 8, 9])
_MAX_VALUES = [
    0.5290827, 0.9916648, 0.49411336, 0.9856003, 0.8591618, 0.940429,
    0.9997929, 0.64961284, 0.9494039, 0.18911462, 0.9805895, 0.4700719,
    0.9948268, 0.55216736, 0.9150948, 0.8920117, 0.5963354, 0.99885803,
    0.4217783, 0.9685857, 0.8064006, 0.96496207, 0.60765815, 0.99943507,
    0.92072064, 0.88551253, 0.9932863, 0.54028964, -0.9040786, 0.48254022,
    0.9832712, 0.20301962, 0.9448551, 0.66032803, 0.6596381, 0.94515544,
    0.20212036, 0.9831035, -0.30819225, -0.90368575,
]
_AVG_VALUES = [
    -0.11370479, -0.01762216, -0.11493493, 0.04246596, -0.08614346, 0.09146175,
    -0.0348509, 0.11656727, 0.91433847, -0.19826135, 0.03942116, -0.11565691,
    -0.02082455, -0.11276904, -0.07563071, -0.08042528, -0.1106818, -0.02707408,
    0.02518709, 0.9066917, 0.10889393, 0.03173667, 0.11747629, -0.0287039,
    0.09537326, -0.08164681, 0.04835825, -0.11326322, -0.9174123, 0.08761084,
    -0.00694993, 0.12847999, 0.05752885, 0.10691483, 0.1069808, 0.05742297,
    0.12848884, -0.00706807, -0.30819225, -0.90368575,
]
_MAX_GRAD = [
    0.0, 1.9833297, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 1.7183236, 0.0, 0.0, 0.0,
    3.9991715, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 1.9712006,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 1.8988078, 0.0,
    0.0, 0.0, 3.922358, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 1.7840234, 0.0, 0.0,
    0.0, 7.9908643, 0.0, 0.0, 0.8435566, 1.6895953,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    1.9896536, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 1.9371715,
    0.0, 0.0, 0.0, 3.8598483, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 3.6828825, 0.0,
    0.0, 0.0, 3.9731452, 0.0, 0.0, 0.96508044,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 1.9988701, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    3.9330847, 0.0, 0.0, 0.40603924, 3.7794204, 0.0,
    0.0, 1.3206561, 1.3192762, 0.0, 0.0, 3.7806218,
    0.40424073, 0.0, 0.0, 3.932414, -1.232769, -1.8073715,
]
_AVG_GRAD = [
    -0.028909931, 0.0497056507, -0.028909931, 0.0497056507, -0.0311334785, 0.104133427,
    -0.00222354615, 0.0544277765, 0.0228201002, 0.0993608609, 0.0250436459, 0.0449330844,
    0.0708129555, 0.0686347336, 0.0457693078, 0.0237016473, 0.545870423, 0.123318307,
    -0.028909931, 0.0497056507, -0.028909931, 0.0497056507, -0.0311334785, 0.104133427,
    -0.00222354615, 0.0544277765, 0.0228201002, 0.0993608609, 0.0250436459, 0.0449330844,
    0.0708129555, 0.0686347336, 0.0457693078, 0.0237016473, 0.545870423, 0.123318307,
    -0.0734267309, 0.0240201615, -0.0734267309, 0.0240201615, -0.130009219, 0.0799472481,
    -0.0565824881, 0.0559270829, -0.0815410987, 0.129152656, -0.0249586105, 0.0732255653,
    -0.0117740333, 0.144622728, 0.0131845772, 0.071397163, 0.317647547, 0.681219041,
    -0.0445167981, -0.0256854892, -0.0445167981, -0.0256854892, -0.0988757387, -0.0241861809,
    -0.0543589443, 0.00149930851, -0.104361199, 0.0297917929, -0.0500022583, 0.0282924846,
    -0.0825869888, 0.0759879947, -0.0325847305, 0.0476955138, -0.228222892, 0.557900727,
    -0.010174145, -0.0722565427, -0.010174145, -0.0722565427, -0.0556757078, -0.125367984,
    -0.04550156, -0.0531114377, -0.114445306, -0.0732047856, -0.0689437464, -0.0200933516,
    -0.143321216, -0.00192013383, -0.0743774772, 0.0181732178, -0.746241629, 0.366497546,
    0.034342654, -0.0465710573, 0.034342654, -0.0465710573, 0.0432000346, -0.101181805,
    0.0088573806, -0.0546107441, -0.0100841057, -0.10299658, -0.0189414863, -0.0483858362,
    -0.0607342348, -0.0779081285, -0.0417927466, -0.029522296, -0.518018723, -0.191403195,
    0.241221592, -0.0886906981, 0.241221592, -0.0886906981, 0.422233611, -0.280296981,
    0.181012005, -0.191606268, 0.254533172, -0.436079592, 0.0735211745, -0.244473338,
    0.020347409, -0.477956057, -0.0531737618, -0.233482718, -1.14578426, -2.20273519,
]


def _regions(seq, size, overlapping):
    return [(seq[i], min(seq[i + 1] if overlapping else seq[i + 1] - 1, size - 1)) for i in range(len(seq) - 1)]


def _reference(x, rows, cols, overlapping, reduce):
    out = np.zeros((x.shape[0], len(rows) - 1, len(cols) - 1, x.shape[3]), x.dtype)
    for i, (r0, r1) in enumerate(_regions(rows, x.shape[1], overlapping)):
        for j, (c0, c1) in enumerate(_regions(cols, x.shape[2], overlapping)):
            out[:, i, j] = reduce(x[:, r0:r1 + 1, c0:c1 + 1].reshape(x.shape[0], -1, x.shape[3]), axis=1)
    return out


@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_pools_draw_tfs_sequences(pseudo_random, overlapping):
    with tf.Graph().as_default():
        x = tf.constant(_X)
        pooled_max = tf.nn.fractional_max_pool(x, _RATIO, pseudo_random=pseudo_random, overlapping=overlapping,
                                               deterministic=True, seed=7, seed2=3)
        pooled_avg = tf.nn.fractional_avg_pool(x, _RATIO, pseudo_random=pseudo_random, overlapping=overlapping,
                                               deterministic=True, seed=7, seed2=3)
        assert pooled_max.output.shape.as_list() == [1, 4, 5, 2] and pooled_max.row_pooling_sequence.dtype == tf.int64
        with tf.Session() as sess:
            (out_max, rows, cols), (out_avg, rows_avg, cols_avg) = sess.run([pooled_max, pooled_avg])
            again = sess.run(pooled_max)
    assert (rows.tolist(), cols.tolist()) == (_PSEUDO_SEQ if pseudo_random else _RANDOM_SEQ)
    assert rows_avg.tolist() == rows.tolist() and cols_avg.tolist() == cols.tolist()
    np.testing.assert_array_equal(again[0], out_max)
    np.testing.assert_array_equal(out_max, _reference(_X, rows, cols, overlapping, np.max))
    np.testing.assert_allclose(out_avg, _reference(_X, rows, cols, overlapping, np.mean), rtol=1e-6, atol=1e-7)
    if not pseudo_random and not overlapping:
        np.testing.assert_array_equal(out_max.ravel(), np.array(_MAX_VALUES, np.float32))
        np.testing.assert_allclose(out_avg.ravel(), _AVG_VALUES, rtol=1e-6)


def test_fractional_pool_sequences_on_larger_inputs():
    with tf.Graph().as_default():
        zeros = tf.zeros([2, 40, 33, 1])
        random = tf.nn.fractional_max_pool(zeros, [1, 2.5, 1.5, 1], deterministic=True, seed=1, seed2=2)
        pseudo = tf.nn.fractional_max_pool(zeros, [1, 2.5, 1.5, 1], pseudo_random=True, deterministic=True, seed=1,
                                           seed2=2)
        unseeded = tf.nn.fractional_avg_pool(zeros, [1, 2.5, 1.5, 1])
        with tf.Session() as sess:
            seqs = sess.run([random[1:], pseudo[1:]])
            first, second = sess.run(unseeded[1:]), sess.run(unseeded[1:])
    assert [s.tolist() for s in seqs[0]] == [
        [0, 2, 5, 7, 10, 13, 16, 18, 20, 22, 24, 26, 29, 32, 35, 37, 40],
        [0, 1, 3, 4, 6, 7, 9, 11, 12, 14, 16, 18, 20, 21, 23, 25, 26, 27, 28, 29, 30, 31, 33]]
    assert [s.tolist() for s in seqs[1]] == [
        [0, 2, 5, 7, 10, 12, 15, 17, 20, 22, 25, 27, 30, 32, 35, 37, 40],
        [0, 1, 3, 4, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 21, 22, 24, 25, 27, 28, 30, 31, 33]]
    for rows, cols in (first, second):
        assert rows[0] == 0 and rows[-1] == 40 and set(np.diff(rows)) <= {2, 3} and len(rows) == 17
        assert cols[0] == 0 and cols[-1] == 33 and set(np.diff(cols)) <= {1, 2} and len(cols) == 23


def test_fractional_pool_gradients_match_tf():
    with tf.Graph().as_default():
        x = tf.constant(_X)
        overlapped_max = tf.nn.fractional_max_pool(x, _RATIO, overlapping=True, deterministic=True, seed=7,
                                                   seed2=3)[0]
        overlapped_avg = tf.nn.fractional_avg_pool(x, _RATIO, overlapping=True, deterministic=True, seed=7,
                                                   seed2=3)[0]
        grads = tf.gradients(tf.reduce_sum(overlapped_max ** 2), x) + tf.gradients(tf.reduce_sum(overlapped_avg ** 2), x)
        with tf.Session() as sess:
            grad_max, grad_avg = sess.run(grads)
    np.testing.assert_allclose(grad_max.ravel(), _MAX_GRAD, rtol=1e-6)
    np.testing.assert_allclose(grad_avg.ravel(), _AVG_GRAD, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_pool_numeric_gradients(overlapping):
    x = np.random.RandomState(0).permutation(6 * 7).reshape(1, 6, 7, 1).astype(np.float64)
    for pool in (tf.nn.fractional_max_pool, tf.nn.fractional_avg_pool):
        check_gradient(lambda v, pool=pool: pool(v, [1, 1.4, 1.6, 1], overlapping=overlapping, deterministic=True,
                                                 seed=2, seed2=5)[0], [x])


def test_fractional_avg_pool_of_integers_truncates():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(25).reshape(1, 5, 5, 1) - 7)
        out = tf.nn.fractional_avg_pool(x, [1, 1.6, 1.6, 1], deterministic=True, seed=1, seed2=1)
        with tf.Session() as sess:
            values, rows, cols = sess.run(out)
    assert values.ravel().tolist() == [-4, -2, 0, 6, 8, 9, 13, 15, 17]
    assert rows.tolist() == [0, 2, 4, 5] and cols.tolist() == [0, 2, 4, 5]


def test_fractional_pool_errors():
    with tf.Graph().as_default():
        x = tf.zeros([1, 7, 9, 2])
        with pytest.raises(ValueError, match="pooling_ratio cannot be smaller than 1, got: 0.5"):
            tf.nn.fractional_max_pool(x, [1, 0.5, 1.5, 1])
        with pytest.raises(ValueError, match="Shape must be rank 4 but is rank 2"):
            tf.nn.fractional_avg_pool(tf.zeros([2, 3]), [1, 1.5, 1.5, 1])
        seeded = tf.nn.fractional_max_pool(x, [1, 1.5, 1.5, 1], seed=3, seed2=4)[0]
        batch = tf.nn.fractional_max_pool(x, [2, 1.5, 1.5, 1], seed=1, seed2=1)[0]  # TF checks the ratio first
        too_far = tf.nn.fractional_avg_pool(x, [1, 8, 1, 1])[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Both seed and seed2 should be 0 if deterministic"):
                sess.run(seeded)
            with pytest.raises(tf.errors.UnimplementedError, match="not yet supported on the batch nor channel"):
                sess.run(batch)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Pooling ratio is higher than input dimension size "
                               "for dimension 1. Input dim size: 7 pooling ratio: 8"):
                sess.run(too_far)
