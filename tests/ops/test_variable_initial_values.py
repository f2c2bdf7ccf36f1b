"""Initial values that read other variables, as TF1 builds them: `initialized_value()` is a cond on
IsVariableInitialized (it never runs the initializer again), and an initial value that reads a variable is
rewritten through that variable's `initialized_value()` so initializers may run in any order. Graph names
recorded from TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _names(graph: tf.Graph) -> list[str]:
    return [op.name for op in graph.get_operations()]


def test_initialized_value_reads_the_current_value_once_initialized() -> None:
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable([1, 2, 3], name="v")
        sess.run(v.initializer)
        sess.run(tf.scatter_update(v, [0, 2], [10, 30]))
        assert sess.run(v.initialized_value()).tolist() == [10, 2, 30]
        assert sess.run(v).tolist() == [10, 2, 30]


def test_initial_values_reading_variables_go_through_initialized_value() -> None:
    with tf.Graph().as_default() as g:
        w = tf.Variable(tf.constant([1.0, 2.0]), name="w")
        w2 = tf.Variable(w.initialized_value() * 2, name="w2")
        w3 = tf.Variable(w * 3, name="w3")
        assert _names(g) == [
            "Const", "w", "w/Assign", "w/read", "IsVariableInitialized", "cond/Switch", "cond/switch_t",
            "cond/switch_f", "cond/pred_id", "cond/read", "cond/read/Switch", "cond/Switch_1", "cond/Merge",
            "mul/y", "mul", "w2", "w2/IsVariableInitialized", "w2/cond/Switch", "w2/cond/switch_t",
            "w2/cond/switch_f", "w2/cond/pred_id", "w2/cond/read", "w2/cond/read/Switch", "w2/cond/Switch_1",
            "w2/cond/Merge", "cond/read/Switch_w2", "cond/read_w2", "cond/Merge_w2", "mul_w2", "w2/Assign",
            "w2/read", "mul_1/y", "mul_1", "w3", "w3/IsVariableInitialized", "w3/cond/Switch", "w3/cond/switch_t",
            "w3/cond/switch_f", "w3/cond/pred_id", "w3/cond/read", "w3/cond/read/Switch", "w3/cond/Switch_1",
            "w3/cond/Merge", "w/read_w3", "mul_1_w3", "w3/Assign", "w3/read"]
        with tf.Session() as sess:
            for var in (w3, w2, w):  # any order: each reads w's initial value until w is initialized
                sess.run(var.initializer)
            np.testing.assert_array_equal(sess.run([w, w2, w3]), [[1, 2], [2, 4], [3, 6]])


def test_resource_variables_guard_under_their_assign_scope() -> None:
    with tf.Graph().as_default() as g:
        r = tf.Variable(tf.constant([1.0, 2.0]), name="r")
        w3 = tf.Variable(r + 1, name="w3", use_resource=True)
        names = _names(g)
        assert names[names.index("w3/IsInitialized/VarIsInitializedOp") + 1:names.index("w3/Assign") + 1] == [
            "w3/Assign/IsVariableInitialized", "w3/Assign/cond/Switch", "w3/Assign/cond/switch_t",
            "w3/Assign/cond/switch_f", "w3/Assign/cond/pred_id", "w3/Assign/cond/read",
            "w3/Assign/cond/read/Switch", "w3/Assign/cond/Switch_1", "w3/Assign/cond/Merge", "r/read_w3",
            "add_w3", "w3/Assign"]
        with tf.Session() as sess:
            sess.run(w3.initializer)
            assert sess.run(w3).tolist() == [2.0, 3.0]


def test_an_initial_value_from_inside_a_loop_is_refused() -> None:
    with tf.Graph().as_default():
        def body(i: tf.Tensor) -> tf.Tensor:
            tf.Variable(tf.zeros([2]) + tf.cast(i, tf.float32), name="inloop")
            return i + 1

        with pytest.raises(ValueError, match="Initializer for variable while/inloop/ is from inside a "
                                             "control-flow construct"):
            tf.while_loop(lambda i: i < 3, body, [0])

        def resource_body(i: tf.Tensor) -> tf.Tensor:
            tf.Variable(tf.zeros([2]), name="rl", use_resource=True)
            return i + 1

        with pytest.raises(ValueError, match="passed to `tf.Variable` while_1/rl/ is from inside a control-flow"):
            tf.while_loop(lambda i: i < 3, resource_body, [0])

        def lambda_body(i: tf.Tensor) -> tf.Tensor:  # a callable initial value escapes the loop, as TF
            v = tf.Variable(lambda: tf.ones([2]), name="lam")
            return i + tf.cast(v[0], tf.int32)

        with tf.Session() as sess:
            out = tf.while_loop(lambda i: i < 3, lambda_body, [0])
            sess.run(tf.global_variables_initializer())
            assert sess.run(out) == 3
