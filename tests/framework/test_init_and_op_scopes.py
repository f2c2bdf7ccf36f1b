"""tf.init_scope, op_scope, variable_op_scope, is_symbolic_tensor, executing_eagerly_outside_functions:
names and behaviour recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import numpy as np

import tensorweave.compat.v1 as tf


def test_init_scope_keeps_the_name_scope_and_drops_control_dependencies():
    with tf.name_scope("a"):
        c = tf.constant(1.0, name="c")
        with tf.control_dependencies([c]):
            with tf.init_scope():
                d = tf.constant(2.0, name="d")
            e = tf.constant(3.0, name="e")
    assert (d.name, d.op.control_inputs, [op.name for op in e.op.control_inputs]) == ("a/d:0", [], ["a/c"])


def test_init_scope_leaves_a_loop_body():
    def body(i):
        with tf.init_scope():
            k = tf.constant(5, name="k")
        return i + k

    result = tf.while_loop(lambda i: i < 10, body, [0])
    assert tf.get_default_graph().get_operation_by_name("while/k")._control_flow_context is None
    with tf.Session() as sess:
        assert sess.run(result) == 10


def test_deprecated_scopes_and_predicates():
    c = tf.constant(1.0)
    with tf.op_scope([c], "opsc") as scope:
        assert scope == "opsc/"
    with tf.op_scope([c], None, "dflt") as scope:
        assert scope == "dflt/"
    with tf.variable_op_scope([c], None, "vdef") as vs:
        assert (vs.name, tf.get_variable("w", [1]).name) == ("vdef", "vdef/w:0")
    v = tf.Variable(1.0)
    assert [tf.is_symbolic_tensor(x) for x in (c, v, np.ones(2))] == [True, False, False]
    assert tf.executing_eagerly_outside_functions() is False
