"""tf.random.Generator, the Stateful*/Rng* ops, binomial and parameterized truncated normal sampling: values
recorded from real TensorFlow 2.21 (`tf.compat.v1` graph mode) for the same seeds and call sequences, the
state's moves, and messages."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_generator_from_seed_replays_tfs_call_sequence():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_seed(1234)
        assert g.algorithm == 1 and g.state.dtype == tf.int64 and g.state.shape.as_list() == [3]
        draws = [g.normal([3]), g.uniform([2], maxval=10, dtype=tf.int32), g.uniform_full_int([2], dtype=tf.int64),
                 g.truncated_normal([3]), g.binomial([3], counts=[10., 20, 30], probs=0.5), g.make_seeds(2)]
        assert draws[0].shape.as_list() == [3] and draws[5].shape.as_list() == [2, 2]
        state = g.state.read_value()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(state).tolist() == [1234, 0, 0]
            values, states = [], []
            for draw in draws:
                values.append(sess.run(draw))
                states.append(sess.run(state)[0])
    np.testing.assert_allclose(values[0], np.array([0.9356609, 1.0854305, -0.93788373], np.float32), rtol=1e-6)
    assert values[1].tolist() == [9, 5] and values[1].dtype == np.int32
    assert values[2].tolist() == [-9046334815278718676, -2234896509995564170]
    np.testing.assert_allclose(values[3], np.array([0.06561495, 0.53633636, 1.6587491], np.float32), rtol=1e-6)
    assert values[4].tolist() == [3, 11, 18] and values[4].dtype == np.int32
    assert values[5].tolist() == [[-3340730638966129334, 6036555007439313448], [0, 0]]
    assert states == [2002, 2514, 3026, 3794, 157394, 157906]


def test_generator_from_key_counter_skip_and_reset():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_key_counter(key=7, counter=[5, 1], alg="philox")
        u = g.uniform([2, 2], minval=-1., maxval=1., dtype=tf.float64)
        skipped = g.skip(10)
        n = g.normal([2])
        reset = g.reset_from_seed(99)
        full = g.uniform_full_int([3])
        state = g.state.read_value()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(u), [[-0.92387342, 0.28960357], [0.476614, 0.11957528]], rtol=1e-7)
            assert sess.run(skipped).tolist() == [1029, 1, 7]
            assert sess.run(state).tolist() == [3589, 1, 7]
            np.testing.assert_allclose(sess.run(n), np.array([1.0016353, 0.4030043], np.float32), rtol=1e-6)
            sess.run(reset)
            assert sess.run(full).tolist() == [8571385114907104372, 14885434285668582857, 16564127951534507502]
            assert sess.run(state).tolist() == [867, 0, 0]


def test_stateful_ops_draw_as_the_generator_and_split_makes_new_streams():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_seed(1234)
        raw = tf.raw_ops.StatefulStandardNormalV2(resource=g.state.handle, algorithm=tf.constant(1, tf.int64),
                                                  shape=tf.constant([3], tf.int64))
        uniform_int = tf.raw_ops.StatefulUniformInt(resource=g.state.handle, algorithm=tf.constant(1, tf.int64),
                                                    shape=tf.constant([2], tf.int64), minval=tf.constant(0),
                                                    maxval=tf.constant(10))
        skip = tf.raw_ops.RngSkip(resource=g.state.handle, algorithm=tf.constant(1, tf.int64),
                                  delta=tf.constant(2, tf.int64))
        children = g.split(2)
        seeds = g.make_seeds(3)
        with tf.Session() as sess:
            sess.run(g.state.initializer)
            np.testing.assert_allclose(sess.run(raw), np.array([0.9356609, 1.0854305, -0.93788373], np.float32), rtol=1e-6)
            assert sess.run(uniform_int).tolist() == [9, 5]
            sess.run(skip)
            assert sess.run(g.state.read_value()).tolist() == [2514 + 512, 0, 0]
            sess.run([c.state.initializer for c in children])
            first, second = sess.run([c.state.read_value() for c in children])
            assert first[:2].tolist() == [0, 0] and first[2] != second[2]
            assert sess.run(seeds).shape == (2, 3)


def test_global_generator_and_non_deterministic_state():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_non_deterministic_state()
        tf.random.set_global_generator(g)
        assert tf.random.get_global_generator() is g
        draw = tf.random.get_global_generator().uniform([4], dtype=tf.float64)
        with tf.Session() as sess:
            sess.run(g.state.initializer)
            values = sess.run(draw)
        assert values.shape == (4,) and ((values >= 0) & (values < 1)).all()
        tf.random.set_global_generator(None)


def test_generator_errors():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_seed(1)
        with pytest.raises(ValueError, match="minval and maxval must be both"):
            g.uniform([2], maxval=3, minval=None, dtype=tf.int32)
        with pytest.raises(ValueError):
            tf.random.Generator.from_state([1, 2], alg="philox")
        bad = g.binomial([3], counts=[1., 2.], probs=0.5)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError, match="Shape passed in must end with broadcasted shape"):
                sess.run(bad)


def test_stateless_binomial_draws_tfs_values():
    with tf.Graph().as_default():
        counts = tf.constant([5., 20, 50, 100, 3, 1000, 40, 40])
        probs = tf.constant([0.3, 0.3, 0.3, 0.3, 0.9, 0.7, 0.5, 0.2])
        mixed = tf.random.stateless_binomial([8], [1, 2], counts, probs)
        broadcast = tf.random.stateless_binomial([3, 2, 2], [3, 4], [[30.], [40.]], [0.5, 0.6],
                                                 output_dtype=tf.float64)
        scalars = tf.random.stateless_binomial([4], [5, 6], 100., 0.4)
        large = tf.random.stateless_binomial([2000], [7, 7], 50., 0.5)
        assert broadcast.shape.as_list() == [3, 2, 2] and broadcast.dtype == tf.float64
        bad = tf.random.stateless_binomial([3], [1, 2], [1., 2.], 0.5)
        with tf.Session() as sess:
            values = sess.run([mixed, broadcast, scalars, large])
            with pytest.raises(tf.errors.InvalidArgumentError, match="must end with broadcasted shape"):
                sess.run(bad)
    assert values[0].tolist() == [3, 9, 20, 42, 2, 688, 20, 3] and values[0].dtype == np.int32
    assert values[1].tolist() == [[[18., 18.], [24., 21.]], [[16., 22.], [22., 27.]], [[19., 17.], [19., 23.]]]
    assert values[2].tolist() == [37, 41, 41, 44]
    assert abs(values[3].mean() - 25) < 0.5 and abs(values[3].var() - 12.5) < 2


def test_stateless_parameterized_truncated_normal_draws_tfs_values():
    with tf.Graph().as_default():
        default = tf.random.stateless_parameterized_truncated_normal([5], [1, 2])
        per_column = tf.random.stateless_parameterized_truncated_normal(
            [3, 4], [3, 4], means=[0., 1, 2, 3], stddevs=[1., 2, 0.5, 1], minvals=[-1., 0.5, 2.5, -np.inf],
            maxvals=[1., 4, 3, 2.9])
        doubles = tf.random.stateless_parameterized_truncated_normal(
            [2, 3], [5, 6], means=tf.constant(0., tf.float64), stddevs=tf.constant(1., tf.float64),
            minvals=tf.constant([-0.5, 3., 5.], tf.float64), maxvals=tf.constant([0.5, np.inf, 5.2], tf.float64))
        far_tail = tf.random.stateless_parameterized_truncated_normal([4], [7, 8], minvals=-10., maxvals=-9.)
        halves = tf.random.stateless_parameterized_truncated_normal(
            [2, 2], [9, 9], means=tf.constant(1., tf.float16), stddevs=tf.constant(2., tf.float16),
            minvals=tf.constant(0., tf.float16), maxvals=tf.constant(3., tf.float16))
        many = tf.random.stateless_parameterized_truncated_normal([30, 20], [1, 2], means=tf.range(20.) / 10,
                                                                  minvals=0.5, maxvals=1.)
        assert per_column.shape.as_list() == [3, 4] and doubles.dtype == tf.float64
        bad = tf.random.stateless_parameterized_truncated_normal([3], [1, 2], minvals=2., maxvals=1.)
        with tf.Session() as sess:
            values = sess.run([default, per_column, doubles, far_tail, halves, many])
            with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid parameters"):
                sess.run(bad)
    np.testing.assert_allclose(values[0], [0.5441101, 0.20738031, 0.07356432, 0.04643455, -1.3015898], rtol=1e-6)
    np.testing.assert_allclose(values[1], [[-0.5134251, 1.6374245, 2.6371958, 2.5237544],
                                           [-0.06415963, 3.419642, 2.5153265, 1.9063883],
                                           [-0.015893936, 2.7032266, 2.600504, 1.9096267]], rtol=1e-6)
    np.testing.assert_allclose(values[2], [[-0.4039501598, 3.4538347835, 5.1466032257],
                                           [-0.1721795497, 3.2111969225, 5.0247942945]], rtol=1e-9)
    np.testing.assert_allclose(values[3], [-9.349242, -9.096012, -9.000422, -9.046365], rtol=1e-6)
    assert values[4].dtype == np.float16
    np.testing.assert_array_equal(values[4], np.array([[1.708, 1.989], [0.8643, 1.937]], np.float16))
    many = values[5]
    assert ((many >= 0.5) & (many <= 1.0)).all()
    np.testing.assert_allclose(many[:2, :3], [[0.9220302, 0.825434, 0.8643672], [0.59602267, 0.78588325, 0.8711979]],
                               rtol=1e-6)


def test_generator_counter_carries_into_its_high_word():
    with tf.Graph().as_default():
        g = tf.random.Generator.from_key_counter(key=3, counter=[-1, 5], alg="philox")
        old = g.skip(1)
        u = g.uniform([3], dtype=tf.float64)
        state = g.state.read_value()
        with tf.Session() as sess:
            sess.run(g.state.initializer)
            assert sess.run(old).tolist() == [-1, 5, 3]
            assert sess.run(state).tolist() == [255, 6, 3]
            assert sess.run(u).tolist() == [0.37090584017825456, 0.5538557576490202, 0.9678090276263476]
            assert sess.run(state).tolist() == [1023, 6, 3]
