"""Variables, initializers and random ops matched to real TF 1.x (tf.compat.v1 in TF 2.21): the values a seeded
random op draws (TF's Philox stream), and the names, errors and properties found by a differential hunt.

Every expected value is a literal recorded from TF 2.21 on Linux x86-64.
"""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.ops.state_ops import ScatterNdUpdate


def _run(*fetches):
    with tf.Session() as sess:
        return sess.run(list(fetches))


# -- TF's Philox stream: seeded ops give TF's own numbers ------------------------------------------------

def test_uniform_floats_are_tfs_philox_values_and_move_on_every_run():
    u = tf.random_uniform([7], seed=1)
    with tf.Session() as sess:
        first, second = sess.run(u), sess.run(u)
    np.testing.assert_array_equal(first, np.array(
        [0.2390373945236206, 0.92039954662323, 0.05051243305206299, 0.4957444667816162, 0.8355222940444946,
         0.026470422744750977, 0.08811306953430176], np.float32))
    np.testing.assert_array_equal(second, np.array(
        [0.038484930992126465, 0.907341480255127, 0.9381697177886963, 0.49623215198516846, 0.8388330936431885,
         0.08477365970611572, 0.06334316730499268], np.float32))


def test_uniform_in_double_and_half_and_integers_are_tfs_values():
    double, half, int32, int64 = _run(
        tf.random_uniform([5], dtype=tf.float64, seed=1), tf.random_uniform([5], dtype=tf.float16, seed=1),
        tf.random_uniform([5], 0, 100, dtype=tf.int32, seed=1), tf.random_uniform([5], -7, 100, dtype=tf.int64, seed=1))
    np.testing.assert_array_equal(double, [0.9122999234504989, 0.4040997484619626, 0.6841790844248057,
                                           0.704905089841523, 0.15071409333057018])
    np.testing.assert_array_equal(half, np.array([0.1943359375, 0.9130859375, 0.7978515625, 0.138671875,
                                                  0.5986328125], np.float16))
    assert int32.tolist() == [27, 59, 93, 22, 77] and int64.tolist() == [54, 50, 72, 32, 50]


def test_bfloat16_uniform_has_tfs_bits():
    bits = _run(tf.random_uniform([5], dtype=tf.bfloat16, seed=1))[0].view(np.uint16)
    assert bits.tolist() == [16142, 16028, 16068, 15840, 16202]  # 0.5546875, 0.3046875, 0.3828125, ...


def test_normal_and_truncated_normal_follow_tfs_stream():
    """Box-Muller in float32 as TF's; TF takes log/sin/cos from glibc, so a value may differ in its last bit."""
    normal, truncated, normal64, truncated64 = _run(
        tf.random_normal([7], seed=1), tf.truncated_normal([9], seed=1),
        tf.random_normal([5], dtype=tf.float64, seed=1), tf.truncated_normal([5], dtype=tf.float64, seed=1))
    np.testing.assert_allclose(normal, [-0.8113182187080383, 1.4845987558364868, 0.06532937288284302,
                                        -2.442704200744629, 0.09924840182065964, 0.5912243127822876,
                                        0.5928229689598083], rtol=2e-7)
    # The -2.44 is more than two standard deviations out: the truncated normal skips it.
    np.testing.assert_allclose(truncated, [-0.8113182187080383, 1.4845987558364868, 0.06532937288284302,
                                           0.09924840182065964, 0.6396970748901367, 1.6108711957931519,
                                           0.16353562474250793, -1.5157055854797363, 1.358777403831482], rtol=2e-7)
    np.testing.assert_allclose(normal64, [0.24282754598505307, -0.35299821810996557, -0.8365077914900015,
                                          -0.24356901971324732, 1.9100682898663162], rtol=1e-15)
    np.testing.assert_allclose(truncated64, [0.24282754598505307, -0.35299821810996557, -0.16554790468414687,
                                             0.34224683233230957, -0.012115088506327797], rtol=1e-15)


def test_graph_seed_and_initializers_draw_tfs_values():
    tf.set_random_seed(42)
    v = tf.get_variable("v", [2, 3], initializer=tf.random_uniform_initializer(-1.0, 1.0))
    w = tf.get_variable("w", [3], initializer=tf.truncated_normal_initializer(stddev=0.1))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v_value, w_value = sess.run([v, w])
    np.testing.assert_array_equal(v_value, np.array([[0.6709182262420654, 0.832594633102417, -0.01070094108581543],
                                                     [0.042226552963256836, 0.42389845848083496, -0.0870978832244873]],
                                                    np.float32))
    np.testing.assert_allclose(w_value, [-0.14999470114707947, -0.12420494854450226, 0.0522831454873085], rtol=2e-7)


def test_random_shuffle_is_tfs_permutation():
    vector, rows = _run(tf.random_shuffle(tf.range(10), seed=1), tf.random_shuffle(tf.reshape(tf.range(12), [6, 2]),
                                                                                    seed=2))
    assert vector.tolist() == [7, 9, 3, 6, 5, 1, 8, 4, 0, 2]
    assert rows.tolist() == [[6, 7], [4, 5], [8, 9], [10, 11], [0, 1], [2, 3]]


def test_multinomial_draws_tfs_classes_and_ignores_non_finite_logits():
    one_row, two_rows, non_finite = _run(
        tf.multinomial([[0.0, 1.0, 2.0]], 10, seed=1), tf.multinomial([[0.0, 1.0, 2.0], [3.0, 0.0, -1.0]], 7, seed=2),
        tf.multinomial([[-np.inf, -np.inf], [np.nan, 1.0], [np.inf, 0.0]], 3, seed=5))
    assert one_row.tolist() == [[2, 2, 2, 2, 1, 1, 1, 2, 2, 2]]
    assert two_rows.tolist() == [[2, 2, 2, 2, 2, 2, 2], [0, 0, 2, 0, 0, 0, 0]]
    assert non_finite.tolist() == [[2, 2, 2], [1, 1, 1], [1, 1, 1]]  # no finite logit: num_classes


# -- random op errors and names ----------------------------------------------------------------------------

def test_random_op_run_time_errors_are_tfs():
    shape = tf.placeholder(tf.int32, [2])
    logits, count = tf.placeholder(tf.float32, [None, None]), tf.placeholder(tf.int32, [])
    uniform, samples = tf.random_uniform(shape), tf.multinomial(logits, count)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Dimension -1 must be >= 0"):
            sess.run(uniform, {shape: [-1, 2]})
        for rows in (0, 2):  # no classes fails whatever the batch or sample count
            with pytest.raises(tf.errors.InvalidArgumentError, match="num_classes should be positive, got 0"):
                sess.run(samples, {logits: np.zeros((rows, 0)), count: 0})


def test_random_op_graph_errors_are_tfs():
    with pytest.raises(ValueError, match=r"^minval must be a scalar; got a tensor of shape \[2\] for "
                                         r"'\{\{node random_uniform\}\} = RandomUniformInt"):
        tf.random_uniform([2], tf.constant([1, 2]), 5, dtype=tf.int32)
    with pytest.raises(ValueError, match="^Dimension size, given by scalar input 1, must be non-negative but is -1 "
                                         "for '{{node multinomial/Multinomial}}"):
        tf.multinomial([[1.0, 2.0]], -1)
    with pytest.raises(ValueError, match=r"^Argument `dtype` got invalid value <dtype: 'float32'>. Accepted dtypes "
                                         r"are \(tf.int32, tf.int64\)."):
        tf.multinomial([[1.0]], 2, output_dtype=tf.float32)


def test_random_categorical_is_multinomial_under_its_own_name():
    samples = tf.random.categorical([[1.0, 2.0]], 3, dtype=tf.int32, seed=1)
    assert (samples.name, samples.dtype, samples.shape.as_list()) == ("categorical/Multinomial:0", tf.int32, [1, 3])
    assert samples.op.inputs[0].name == "categorical/logits:0"


# -- tf.Variable: VariableDef round trip, synchronization, resource variables ------------------------------

def test_to_proto_names_the_variable_nodes_relative_to_an_export_scope():
    with tf.name_scope("outer"):
        v = tf.Variable([1.0, 2.0], name="v", trainable=False)
        w = tf.Variable(lambda: tf.ones([2]), name="w")
    assert str(v.to_proto()) == ('variable_name: "outer/v:0"\ninitializer_name: "outer/v/Assign"\n'
                                 'snapshot_name: "outer/v/read:0"\ninitial_value_name: "outer/v/initial_value:0"\n')
    assert str(w.to_proto(export_scope="outer")) == (
        'variable_name: "w:0"\ninitializer_name: "w/Assign"\nsnapshot_name: "w/read:0"\n'
        'initial_value_name: "w/Initializer/ones:0"\ntrainable: true\n')
    assert w.to_proto(export_scope="elsewhere") is None


def test_a_variable_rebuilt_from_its_proto_shares_the_nodes_and_joins_no_collection():
    v = tf.Variable([1.0, 2.0], name="v", trainable=False)
    copy = tf.Variable.from_proto(v.to_proto())
    assert (copy.name, copy.initializer.name, copy.initial_value.name, copy.value().name) == (
        "v:0", "v/Assign", "v/initial_value:0", "v/read:0")
    assert copy.trainable is False and tf.global_variables() == [v]
    with pytest.raises(ValueError, match="^variable_def and initial_value are mutually exclusive.$"):
        tf.Variable(1.0, variable_def=v.to_proto())
    with tf.Session() as sess:
        sess.run(copy.initializer)
        assert sess.run(v).tolist() == [1.0, 2.0]


def test_synchronization_and_aggregation_are_validated_and_kept():
    on_read = tf.Variable(1.0, synchronization=tf.VariableSynchronization.ON_READ)
    summed = tf.Variable(1.0, aggregation=tf.VariableAggregation.SUM)
    assert on_read.trainable is False and tf.trainable_variables() == [summed]
    assert (summed.synchronization, summed.aggregation) == (tf.VariableSynchronization.AUTO,
                                                           tf.VariableAggregation.SUM)
    assert tf.get_variable("m", [1], aggregation=tf.VariableAggregation.MEAN).aggregation == tf.VariableAggregation.MEAN
    q = tf.get_variable("q", [1], aggregation=tf.VariableAggregation.MEAN,
                        synchronization=tf.VariableSynchronization.ON_WRITE)
    assert "synchronization: VARIABLE_SYNCHRONIZATION_ON_WRITE\naggregation: VARIABLE_AGGREGATION_MEAN" in str(
        q.to_proto())
    with pytest.raises(ValueError, match="^Invalid variable aggregation mode: x for variable: None$"):
        tf.Variable(1.0, aggregation="x")
    with pytest.raises(ValueError, match="^Invalid variable synchronization mode: 7 for variable: None$"):
        tf.Variable(1.0, synchronization=7)


def test_is_variable_initialized_asks_a_non_ref_itself_and_leaves_no_node():
    v = tf.Variable(1.0)
    with pytest.raises(AttributeError, match="object has no attribute 'is_initialized'"):
        tf.is_variable_initialized(tf.constant(1.0))
    assert tf.is_variable_initialized(v).name == "IsVariableInitialized:0"


def test_initialize_local_variables_is_the_local_initializer():
    local = tf.Variable(3, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    init = tf.initialize_local_variables()
    assert (init.name, init.type) == ("init", "NoOp")
    with tf.Session() as sess:
        sess.run(init)
        assert sess.run(local) == 3


# -- ScatterNd updates (tf.scatter_nd_*, Variable.scatter_nd_*, tf.batch_scatter_update) --------------------

def _grid():
    return tf.Variable(np.arange(12.0).reshape(4, 3), name="v")


def test_scatter_nd_updates_nodes_and_values():
    v = _grid()
    update = tf.scatter_nd_update(v, [[1], [3]], [[9.0, 9.0, 9.0], [8.0, 8.0, 8.0]])
    add = tf.scatter_nd_add(v, [[1, 1], [1, 1]], [1.0, 2.0])
    sub = tf.scatter_nd_sub(v, [[0], [2]], [[5.0] * 3, [5.0] * 3])
    assert (update.name, update.dtype, update.shape.as_list()) == ("ScatterNdUpdate:0", tf.float64._as_ref, [4, 3])
    assert [t.op.get_attr("use_locking") for t in (update, add, sub)] == [True, False, False]
    assert update.op.get_attr("bad_indices_policy") == b"" and update.op.colocation_groups() == [b"loc:@v"]
    assert [t.op.inputs[1].name for t in (update, add)] == ["ScatterNdUpdate/indices:0", "ScatterNdAdd/indices:0"]
    with tf.Session() as sess:
        for op, expected in [(update, [[0, 1, 2], [9, 9, 9], [6, 7, 8], [8, 8, 8]]),
                             (add, [[0, 1, 2], [3, 7, 5], [6, 7, 8], [9, 10, 11]]),
                             (sub, [[-5, -4, -3], [3, 4, 5], [1, 2, 3], [9, 10, 11]])]:
            sess.run(v.initializer)
            assert sess.run(op).tolist() == expected


def test_variable_scatter_nd_methods_lock_and_combine():
    v = _grid()
    ops = [v.scatter_nd_update([[1]], [[1.0, 1.0, 1.0]]), v.scatter_nd_add([[1]], [[1.0, 1.0, 1.0]]),
           v.scatter_nd_sub([[1]], [[1.0, 1.0, 1.0]], name="x"), v.scatter_nd_max([[0, 0], [1, 1], [1, 1]], [5.0, -2, 7]),
           v.scatter_nd_min([[0, 1], [0, 1]], [-5.0, -2.0])]
    assert [t.name for t in ops] == ["ScatterNdUpdate:0", "ScatterNdAdd:0", "x:0", "ScatterNdMax:0", "ScatterNdMin:0"]
    assert all(t.op.get_attr("use_locking") for t in ops)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(ops[3]).tolist() == [[5, 1, 2], [3, 7, 5], [6, 7, 8], [9, 10, 11]]
        assert sess.run(ops[4]).tolist() == [[5, -5, 2], [3, 7, 5], [6, 7, 8], [9, 10, 11]]


def test_scatter_nd_graph_errors_are_tfs():
    v = _grid()
    node = "'{{node ScatterNdUpdate}} = ScatterNdUpdate"
    with pytest.raises(ValueError, match=r"^Shape must be at least rank 1 but is rank 0 for " + node):
        tf.scatter_nd_update(v, 1, [1.0])
    with pytest.raises(ValueError, match=(
            r"^Dimensions \[0,1\) of indices\[shape=\[2,1\]\] = \[2\] must match dimensions \[0,1\) of updates"
            r"\[shape=\[1,3\]\] = \[1\]: Dimension 0 in both shapes must be equal, but are 2 and 1. Shapes are \[2\] "
            r"and \[1\]. for ")):
        tf.scatter_nd_update(v, [[1], [2]], [[1.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match=(
            r"^Dimensions \[1,2\) of input\[shape=\[4,3\]\] = \[3\] must match dimensions \[0,2\) of updates"
            r"\[shape=\[1,3\]\] = \[1,3\]: Shapes must be equal rank, but are 1 and 2 for ")):
        tf.scatter_nd_update(v, [1], [[1.0, 1.0, 1.0]])
    with pytest.raises(ValueError, match="^Indices and updates specified for empty input for "):
        tf.scatter_nd_update(tf.Variable(np.zeros((0, 3))), [[1]], [[1.0, 1.0, 1.0]])
    assert tf.scatter_nd_update(v, [[1, 2, 3]], [1.0]).shape.as_list() == [4, 3]  # an index past the rank: no check


def test_scatter_nd_run_time_errors_are_tfs():
    v = _grid()

    def fed(value, shape):
        return tf.placeholder_with_default(value, shape)

    cases = [
        (tf.scatter_nd_update(v, [[7]], [[1.0, 1.0, 1.0]]), r"indices\[0\] = \[7\] does not index into shape \[4,3\]"),
        (tf.scatter_nd_update(v, [[[1], [-3]]], [[[1.0] * 3, [2.0] * 3]]),
         r"indices\[0,1\] = \[-3\] does not index into shape \[4,3\]"),
        (tf.scatter_nd_add(v, [[[1, 0], [1, 3]]], [[1.0, 1.0]]),
         r"indices\[0,1\] = \[1, 3\] does not index into shape \[4,3\]"),
        (tf.scatter_nd_update(v, [[1, 2, 3]], [1.0]),
         r"Dimensions \[3,2\) of input\[shape=\[4,3\]\] must match dimensions \[3,1\) of updates\[shape=\[1\]\]"),
        (tf.scatter_nd_update(v, np.zeros((0,), np.int32), np.ones((4, 3))),
         r"Indices and updates specified for empty output.  indices shape: \[0\]"),
        (tf.scatter_nd_update(v, fed([[1], [2]], [None, 1]), fed(np.ones((1, 3)), [None, 3])),
         r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] = 2 must match dimensions \[0,1\) of updates\[shape=\[1,3\]\] "
         r"= 1"),
        (tf.scatter_nd_update(v, [[1]], fed(np.ones((1, 2)), [1, None])),
         r"Dimensions \[1,2\) of input\[shape=\[4,3\]\] must match dimensions \[1,2\) of updates\[shape=\[1,2\]\]"),
        (tf.scatter_nd_update(v, fed([[[1]]], [1, 1, None]), fed(np.ones(1), [None])),
         r"Dimensions \[0,2\) of indices\[shape=\[1,1,1\]\] must match dimensions \[0,2\) of updates\[shape=\[1\]\]"),
    ]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value v"):
            sess.run(cases[0][0])
        sess.run(v.initializer)
        for op, message in cases:
            with pytest.raises(tf.errors.InvalidArgumentError, match="" + message):
                sess.run(op)
        empty = tf.scatter_nd_update(v, np.zeros((0, 1), np.int32), np.zeros((0, 3)))
        assert sess.run(empty).tolist() == np.arange(12.0).reshape(4, 3).tolist()


def test_batch_scatter_update_builds_index_tuples_from_the_batch_positions():
    v = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    update = tf.batch_scatter_update(v, [[2], [0]], [[30.0], [40.0]])
    assert update.name == "ScatterNdUpdate:0" and update.op.inputs[1].name == "concat:0"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(update).tolist() == [[1.0, 2.0, 30.0], [40.0, 5.0, 6.0]]
    with pytest.raises(ValueError, match="^batch_gather does not allow indices with unknown shape.$"):
        tf.batch_scatter_update(v, tf.placeholder(tf.int32), [1.0])


# -- Stateless random ops: values from the seed alone, with TF's key scrambling ----------------------------

def test_stateless_uniform_builds_tfs_graph():
    u = tf.random.stateless_uniform([2], seed=[1, 2])
    graph = u.graph
    assert [(op.name, op.type) for op in graph.get_operations()] == [
        ("stateless_random_uniform/shape", "Const"), ("stateless_random_uniform/min", "Const"),
        ("stateless_random_uniform/max", "Const"), ("stateless_random_uniform/StatelessRandomGetKeyCounter/seed", "Const"),
        ("stateless_random_uniform/StatelessRandomGetKeyCounter", "StatelessRandomGetKeyCounter"),
        ("stateless_random_uniform/StatelessRandomUniformV2/alg", "Const"),
        ("stateless_random_uniform/StatelessRandomUniformV2", "StatelessRandomUniformV2"),
        ("stateless_random_uniform/sub", "Sub"), ("stateless_random_uniform/mul", "Mul"),
        ("stateless_random_uniform", "AddV2")]
    key_counter = graph.get_operation_by_name("stateless_random_uniform/StatelessRandomGetKeyCounter")
    assert [(t.dtype, t.shape.as_list()) for t in key_counter.outputs] == [(tf.uint64, [1]), (tf.uint64, [2])]
    full = tf.random.stateless_uniform([3], seed=[3, 4], minval=None, maxval=None, dtype=tf.uint32)
    bounded = tf.random.stateless_uniform([3], seed=[3, 4], minval=-5, maxval=5, dtype=tf.int64)
    assert (full.op.type, full.name, full.dtype) == ("StatelessRandomUniformFullIntV2", "stateless_random_uniform_1:0",
                                                     tf.uint32)
    assert (bounded.op.type, bounded.op.inputs[3].name) == ("StatelessRandomUniformIntV2",
                                                            "stateless_random_uniform_2/alg:0")


def test_stateless_ops_draw_tfs_values():
    values = _run(
        tf.random.stateless_uniform([5], seed=[1, 2]), tf.random.stateless_uniform([5], seed=[-1, 2**40], dtype=tf.float64),
        tf.random.stateless_uniform([3], seed=[3, 4], minval=-5, maxval=5, dtype=tf.int64),
        tf.random.stateless_uniform([3], seed=[3, 4], minval=-5, maxval=5, dtype=tf.int32),
        tf.random.stateless_uniform([3], seed=[3, 4], minval=None, maxval=None, dtype=tf.uint32),
        tf.random.stateless_uniform([3], seed=[3, 4], minval=None, maxval=None, dtype=tf.int64),
        tf.random.stateless_normal([5], seed=[7, 8]), tf.random.stateless_truncated_normal([9], seed=[7, 8], stddev=3.0),
        tf.random.stateless_normal([3], seed=[7, 8], dtype=tf.float16))
    np.testing.assert_array_equal(values[0], np.array([0.8440604209899902, 0.19204533100128174, 0.9962232112884521,
                                                       0.16038739681243896, 0.27199018001556396], np.float32))
    np.testing.assert_array_equal(values[1], [0.9476199265857368, 0.5791085060476238, 0.1302631204693745,
                                              0.1465454440701104, 0.7725708714585828])
    assert values[2].tolist() == [0, 1, -4] and values[3].tolist() == [-2, 2, -3]
    assert values[4].tolist() == [2434737163, 3623740297, 2904307362]
    assert values[5].tolist() == [-2882898006462487541, 4520458231610095266, -3428664559879909945]
    np.testing.assert_allclose(values[6], [2.469376802444458, -0.5149879455566406, 1.240895390510559,
                                           -0.45769309997558594, -0.05810646340250969], rtol=2e-7)
    np.testing.assert_allclose(values[7], [-1.5449638366699219, 3.722686290740967, -1.3730792999267578,
                                           -0.17431938648223877, -2.2358193397521973, 2.1280641555786133,
                                           3.6359434127807617, 3.100501537322998, 2.9537405967712402], rtol=2e-7)
    assert values[8].tolist() == [2.46875, -0.51513671875, 1.2412109375]


def test_stateless_argument_and_seed_errors_are_tfs():
    with pytest.raises(ValueError, match=r"For integer `dtype` argument <dtype: 'int32'>, argument `minval` and "
                                         r"`maxval` must be both None or not None. Got `minval`=0 and `maxval`=None."):
        tf.random.stateless_uniform([3], seed=[3, 4], dtype=tf.int32)
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value <dtype: 'uint32'> when argument "
                                         "`minval` is not None."):
        tf.random.stateless_uniform([3], seed=[3, 4], minval=1, maxval=4, dtype=tf.uint32)
    with pytest.raises(ValueError, match=r"Dimension must be 2 but is 3 for '\{\{node stateless_random_uniform/"
                                         r"StatelessRandomGetKeyCounter\}\}"):
        tf.random.stateless_uniform([3], seed=[3, 4, 5])
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0 for "):
        tf.random.stateless_uniform([3], seed=3)
    seed = tf.placeholder_with_default([1, 2, 3], [None])
    bound = tf.placeholder_with_default([1, 2], None)
    with tf.Session() as sess:
        for op, message in [(tf.random.stateless_uniform([2], seed=seed), r"seed must have shape \[2\], not \[3\]"),
                            (tf.random.stateless_uniform([3], seed=[3, 4], minval=bound, maxval=5, dtype=tf.int32),
                             r"minval must be 0-D, got shape \[2\]"),
                            (tf.random.stateless_uniform([3], seed=[3, 4], minval=5, maxval=5, dtype=tf.int32),
                             "Need minval < maxval, got 5 >= 5")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match="" + message):
                sess.run(op)


def test_scatter_nd_bad_indices_policy():
    """The raw op's attr (tf.scatter_nd_update has no argument for it)."""
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(ScatterNdUpdate(v, [[1], [7]], [5.0, 6.0], bad_indices_policy="IGNORE")).tolist() == [1, 5, 3]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown bad indices handling attribute: ignore"):
            sess.run(ScatterNdUpdate(v, [[1]], [5.0], bad_indices_policy="ignore"))


def test_variable_scatter_methods_take_indexed_slices():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="v")
    delta = tf.IndexedSlices(tf.constant([[10.0, 20.0]]), tf.constant([1]))
    methods = ["scatter_add", "scatter_sub", "scatter_mul", "scatter_div", "scatter_max", "scatter_min",
               "scatter_update", "batch_scatter_update"]
    ops = [getattr(v, method)(delta) for method in methods]
    assert [(t.name, t.op.get_attr("use_locking")) for t in ops] == [
        ("ScatterAdd:0", False), ("ScatterSub:0", False), ("ScatterMul:0", False), ("ScatterDiv:0", False),
        ("ScatterMax:0", False), ("ScatterMin:0", False), ("ScatterUpdate:0", False), ("ScatterNdUpdate:0", False)]
    assert [i.name for i in ops[0].op.inputs] == ["v:0", "Const_1:0", "Const:0"]
    named = v.scatter_add(delta, use_locking=True, name="named")
    assert (named.name, named.op.get_attr("use_locking")) == ("named:0", True)
    with pytest.raises(TypeError, match=r"^sparse_delta is not IndexedSlices: \[1.0\]$"):
        v.scatter_update([1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(ops[6]).tolist() == [[1, 2], [10, 20], [5, 6]]
        assert sess.run(ops[2]).tolist() == [[1, 2], [100, 400], [5, 6]]


def test_tf_variable_ignores_keyword_arguments_it_does_not_know_as_tf1():
    """TF1's `tf.Variable(...)` swallows unknown keyword arguments (its `_variable_call` takes **kwargs);
    get_variable does not."""
    v = tf.Variable(1.0, bogus=1)
    assert v.name == "Variable:0" and v.dtype == tf.float32._as_ref
    assert tf.Variable(2.0, use_resource=True, foo=3).dtype == tf.float32
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'bogus'"):
        tf.get_variable("x", [1], bogus=2)
