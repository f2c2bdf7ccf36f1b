"""Whole TF1 programs that cross areas (variables, sessions, placement, partial runs, GraphDef export).

Each test is a small program a user keeps; the expected literals were recorded from real TensorFlow.
"""

import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf


def test_get_variable_initializer_ops_and_variable_are_colocated_in_the_graph_def():
    with tf.Graph().as_default() as graph:
        with tf.variable_scope("dense"):
            tf.get_variable("kernel", [4, 3], initializer=tf.random_uniform_initializer(-1.0, 1.0))
        v = tf.Variable(tf.zeros([2]), name="v")
        graph_def = graph.as_graph_def()
    colocation = {node.name: list(node.attr["_class"].list.s) for node in graph_def.node}
    kernel_group = [b"loc:@dense/kernel"]
    assert colocation == {
        "dense/kernel/Initializer/random_uniform/shape": kernel_group,
        "dense/kernel/Initializer/random_uniform/min": kernel_group,
        "dense/kernel/Initializer/random_uniform/max": kernel_group,
        "dense/kernel/Initializer/random_uniform/RandomUniform": kernel_group,
        "dense/kernel/Initializer/random_uniform/sub": kernel_group,
        "dense/kernel/Initializer/random_uniform/mul": kernel_group,
        "dense/kernel/Initializer/random_uniform": kernel_group,
        "dense/kernel": kernel_group,
        "dense/kernel/Assign": kernel_group,
        "dense/kernel/read": kernel_group,
        "zeros": [],  # a tensor initial value is not colocated, and neither is its variable
        "v": [],
        "v/Assign": [b"loc:@v"],
        "v/read": [b"loc:@v"],
    }
    assert v.initial_value.op.colocation_groups() == [b"loc:@zeros"]


def test_placement_error_names_the_consumer_not_the_constant_it_feeds():
    with tf.Graph().as_default():
        with tf.device("/gpu:0"):
            total = tf.constant(1.0, name="g") + 1
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(total)
    assert runtime_message(info.value).splitlines()[0] == (
        "Cannot assign a device for operation add: {{node add}} was explicitly assigned to /device:GPU:0 but "
        "available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]. Make sure the device "
        "specification refers to a valid device.")  # TF 2.21's pip wheel is a CUDA build: no CUDA hint


def test_partial_run_updates_a_variable_in_a_later_round():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        c = tf.placeholder(tf.float32, [], name="c")
        v = tf.Variable(0.0, name="v")
        r1 = tf.add(a, b, name="r1")
        r2 = tf.multiply(r1, c, name="r2")
        update = tf.assign_add(v, r2, name="upd")
        with tf.Session() as sess:
            sess.run(v.initializer)
            handle = sess.partial_run_setup([r1, r2, update], [a, b, c])
            assert sess.partial_run(handle, r1, {a: 1.0, b: 2.0}) == 3.0
            assert sess.partial_run(handle, [r2, update], {c: 3.0}) == [9.0, 9.0]
            assert sess.run(v) == 9.0


def test_partial_run_reads_and_scatters_into_a_variable_across_rounds():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2], name="a")
        c = tf.placeholder(tf.float32, [], name="c")
        v = tf.Variable([1.0, 2.0], name="v")
        early_read = v.read_value()
        first = tf.assign(v, a, name="first")
        with tf.control_dependencies([first]):
            after = tf.identity(v, name="after")
        scatter = tf.scatter_add(v, [0], tf.reshape(c, [1]), name="sc")
        total = tf.reduce_sum(v) * c
        with tf.Session() as sess:
            sess.run(v.initializer)
            handle = sess.partial_run_setup([early_read, after, scatter, total], [a, c])
            assert sess.partial_run(handle, early_read).tolist() == [1.0, 2.0]
            assert sess.partial_run(handle, after, {a: [5.0, 6.0]}).tolist() == [5.0, 6.0]
            scattered, total_value = sess.partial_run(handle, [scatter, total], {c: 10.0})
            assert (scattered.tolist(), total_value) == ([15.0, 6.0], 30.0)
            handle = sess.partial_run_setup([total, scatter], [c])
            total_value, scattered = sess.partial_run(handle, [total, scatter], {c: 2.0})
            assert (total_value, scattered.tolist()) == (42.0, [17.0, 6.0])


def test_feeding_a_variable_reads_it_but_cannot_update_it():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        increment = tf.assign_add(v, 1.0)
        x = tf.placeholder(tf.float32, [], name="x")
        scaled = v * x
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(increment, {v: 5.0})
            assert runtime_message(info.value).splitlines()[0] == (
                "Input 0 of node AssignAdd was passed float from _arg_v_0_0:0 incompatible with expected float_ref.")
            assert sess.run(scaled, {v: 5.0, x: 2.0}) == 10.0
            assert sess.run(v) == 1.0
