"""tf.train.ExponentialMovingAverage (apply, average, average_name, variables_to_restore, num_updates,
zero_debias) and the cosine-restart and linear-cosine schedules: names and values recorded from TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_exponential_moving_average_matches_tf() -> None:
    with tf.Graph().as_default() as graph:
        step = tf.Variable(0, name="step", trainable=False)
        v0 = tf.Variable([1.0, 2.0], name="v0")
        v1 = tf.Variable(3.0, name="v1")
        other = tf.Variable(7.0, name="other", trainable=False)
        t = tf.multiply(v1, 2.0, name="t")
        ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step, zero_debias=True)
        assert ema.average_name(v0) == "v0/ExponentialMovingAverage" and ema.name == "ExponentialMovingAverage"
        op = ema.apply([v0, v1, t])
        ema2 = tf.train.ExponentialMovingAverage(0.5, name="E2")
        op2 = ema2.apply()
        assert (op.name, op.type, op2.name) == ("ExponentialMovingAverage", "NoOp", "E2")
        assert [ema.average(v).name for v in (v0, v1, t)] == [
            "v0/ExponentialMovingAverage:0", "v1/ExponentialMovingAverage:0", "t/ExponentialMovingAverage:0"]
        assert ema.average(other) is None
        assert [ema.average_name(v) for v in (v0, t, other)] == [
            "v0/ExponentialMovingAverage", "t/ExponentialMovingAverage", "other/ExponentialMovingAverage"]
        assert sorted((k, v.name) for k, v in ema.variables_to_restore().items()) == [
            ("other", "other:0"), ("step", "step:0"), ("t/ExponentialMovingAverage", "t/ExponentialMovingAverage:0"),
            ("t/ExponentialMovingAverage/biased", "t/ExponentialMovingAverage/biased:0"),
            ("t/ExponentialMovingAverage/local_step", "t/ExponentialMovingAverage/local_step:0"),
            ("v0/E2", "v0/E2:0"), ("v0/ExponentialMovingAverage", "v0:0"), ("v1/E2", "v1/E2:0"),
            ("v1/ExponentialMovingAverage", "v1:0")]
        assert [v.name for v in tf.moving_average_variables()] == ["v0:0", "v1:0", "v0:0", "v1:0"]
        assert [o.name for o in graph.get_operations() if o.name.startswith("ExponentialMovingAverage/Assign")][
            -14:] == ["ExponentialMovingAverage/AssignMovingAvg_2/" + n for n in (
                "sub/x", "sub", "sub_1", "mul", "AssignSub", "AssignAdd/value", "AssignAdd", "sub_2/x", "sub_2", "Pow",
                "sub_3/x", "sub_3", "truediv")] + ["ExponentialMovingAverage/AssignMovingAvg_2"]
        updates = [v0.assign_add([1.0, -1.0]), v1.assign_add(0.5), step.assign_add(1)]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(updates)
                sess.run([op, op2])
            values = sess.run([ema.average(v0), ema.average(v1), ema.average(t), ema2.average(v0), ema2.average(v1)])
    expected = [[3.601399, -0.601399], 4.300699, 8.773047, [3.125, -0.125], 4.0625]
    for got, want in zip(values, expected):
        np.testing.assert_allclose(got, want, rtol=1e-5)
    with tf.Graph().as_default(), pytest.raises(TypeError, match="must be half, float, or double: i:0"):
        tf.train.ExponentialMovingAverage(0.9).apply([tf.Variable(1, name="i")])


def test_restart_and_linear_cosine_schedules_match_tf() -> None:
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        step = tf.placeholder(tf.int64, [])
        schedules = [tf.train.cosine_decay_restarts(0.5, step, 10),
                     tf.train.cosine_decay_restarts(0.5, step, 10, t_mul=1.0, m_mul=0.5, alpha=0.1),
                     tf.train.cosine_decay_restarts(1.0, step, 7, t_mul=3.0, m_mul=0.8),
                     tf.train.linear_cosine_decay(0.5, step, 20),
                     tf.train.linear_cosine_decay(0.5, step, 20, num_periods=2.0, alpha=0.1, beta=0.01),
                     tf.train.noisy_linear_cosine_decay(0.5, step, 20, initial_variance=0.0)]
        noisy = tf.train.noisy_linear_cosine_decay(0.5, step, 20)
        assert [s.name for s in schedules] == ["SGDRDecay:0", "SGDRDecay_1:0", "SGDRDecay_2:0", "LinearCosineDecay:0",
                                               "LinearCosineDecay_1:0", "NoisyLinearCosineDecay:0"]
        with tf.Session() as sess:
            got = [[sess.run(s, {step: i}) for i in (0, 3, 9, 10, 14, 25, 40)] for s in schedules]
            draws = [sess.run(noisy, {step: 3}) for _ in range(200)]
        with pytest.raises(ValueError, match="^None values not supported.$"):  # TF 2.21 casts the None step
            tf.train.cosine_decay_restarts(0.1, None, 10)
    expected = [[0.5, 0.396946, 0.012236, 0.5, 0.452254, 0.073223, 0.426777],
                [0.5, 0.407252, 0.061012, 0.275, 0.197264, 0.10625, 0.078125],
                [1.0, 0.61126, 0.782229, 0.760388, 0.6, 0.039612, 0.584396],
                [0.5005, 0.402339, 0.15951, 0.1255, 0.031416, 0.0005, 0.0005],
                [0.555, 0.169108, 0.298965, 0.305, 0.024098, 0.055, 0.055],
                [0.5005, 0.402339, 0.15951, 0.1255, 0.031416, 0.0005, 0.0005]]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # noise sd: lr * cosine part * sqrt(1 / (1 + step)^0.55) = 0.5 * 0.9455 * 0.683
    assert abs(np.mean(draws) - 0.402339) < 0.08 and 0.26 < np.std(draws) < 0.39


def test_averages_made_under_control_dependencies_initialize_without_them():
    """apply() under control_dependencies([train]) (the usual idiom): the averages' initializers wait on
    nothing, so initializing runs no training step (TF makes them in an init_scope)."""
    w = tf.get_variable("w", [2], initializer=tf.constant_initializer([1.0, 2.0]))
    step = tf.train.get_or_create_global_step()
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(tf.square(w)), global_step=step)
    ema = tf.train.ExponentialMovingAverage(0.9)
    with tf.control_dependencies([train]):
        maintain = ema.apply([w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(step) == 0
        sess.run(maintain)
        np.testing.assert_allclose(sess.run([w, ema.average(w)]), [[0.0, 0.0], [0.9, 1.8]])
        assert sess.run(step) == 1


def test_schedule_result_names_and_piecewise_case_match_tf() -> None:
    """TF 2.21 builds piecewise_constant as an exclusive tf.case and names the decays' results so; a float
    boundary against an integer step is refused rather than cast."""
    with tf.Graph().as_default() as graph:
        step = tf.Variable(9, dtype=tf.int64, name="gs")
        pc = tf.train.piecewise_constant(step, [5, 10], [1.0, 0.5, 0.1])
        assert pc.name == "PiecewiseConstant/case/cond/Merge:0"
        assert [o.name for o in graph.get_operations()][4:16] == [
            "Const", "Const_1", "Const_2", "Const_3", "Const_4", "Cast", "Cast_1", "PiecewiseConstant/LessEqual",
            "PiecewiseConstant/Greater", "PiecewiseConstant/Greater_1", "PiecewiseConstant/LessEqual_1",
            "PiecewiseConstant/and"]
        assert tf.train.cosine_decay(0.1, step, 20).name == "CosineDecay/Mul_3:0"
        poly = tf.train.polynomial_decay(0.1, step, 20, 0.01, cycle=True)
        assert poly.op.inputs[0].op.name == "PolynomialDecay/Mul_1"
        assert graph.get_operation_by_name("PolynomialDecay/SelectV2").type == "SelectV2"
        assert graph.get_operation_by_name("PolynomialDecay/initial_learning_rate").type == "Const"
        with tf.Session() as sess:
            sess.run(step.initializer)
            assert sess.run(pc) == 0.5
            sess.run(step.assign(10))
            assert sess.run(pc) == 0.5
            sess.run(step.assign(11))
            assert sess.run(pc) == np.float32(0.1)
        with pytest.raises(ValueError, match=r"^Boundaries \(<dtype: 'float32'>\) must have the same dtype as x "
                                             r"\(<dtype: 'int64'>\)\.$"):
            tf.train.piecewise_constant(step, [5.0], [1.0, 0.5])
        with pytest.raises(ValueError, match=r"^Values must have elements all with the same dtype "
                                             r"\(<dtype: 'float32'>\ vs <dtype: 'int32'>\)\.$"):
            tf.train.piecewise_constant(step, [5], [1.0, 2])


@pytest.mark.parametrize("scope_resource", [None, True])
def test_the_average_of_a_tensor_is_a_variable_of_the_scopes_default_kind(scope_resource) -> None:
    # TF's _create_slot_var: a variable's slot is of its kind, a tensor's the variable scope's default
    # (resource variables under v2 behavior or use_resource=True; TF 2.21 names and dtypes)
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        t = tf.constant(3.0) * w
        with tf.variable_scope("", use_resource=scope_resource):
            ema = tf.train.ExponentialMovingAverage(0.8, zero_debias=True)
            ema.apply([t, w])
        kinds = sorted((v.name, v.dtype.name) for v in tf.global_variables())
    t_dtype = "float32_ref" if scope_resource is None else "float32"
    assert kinds == [("mul/ExponentialMovingAverage/biased:0", t_dtype),
                     ("mul/ExponentialMovingAverage/local_step:0", t_dtype),
                     ("mul/ExponentialMovingAverage:0", t_dtype),
                     ("w/ExponentialMovingAverage:0", "float32_ref"), ("w:0", "float32_ref")]
