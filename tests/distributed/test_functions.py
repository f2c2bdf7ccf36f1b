"""Function calls (tf.function, tf.switch_case) in grpc:// sessions: the client sends the library with its
graph, the master sends each task the functions its partition calls, and the workers run them."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework.function_def import reachable_definitions
from tests.distributed.test_cluster import cluster  # noqa: F401 - the fixture


def test_function_calls_run_on_each_task(cluster):  # noqa: F811
    @tf.function
    def square_plus(x):
        return x * x + 1.0

    with tf.device("/job:ps/task:0"):
        x = tf.placeholder(tf.float32, [3], name="x")
        y = square_plus(x)
    with tf.device("/job:worker/task:0"):
        i = tf.placeholder(tf.int32, [], name="i")
        z = tf.switch_case(i, [lambda: y * 2.0, lambda: y - 1.0])
    with tf.Session(cluster[1].target) as sess:
        y_value, z_value = sess.run([y, z], {x: [1.0, 2.0, 3.0], i: 0})
        np.testing.assert_allclose(y_value, [2.0, 5.0, 10.0])
        np.testing.assert_allclose(z_value, [4.0, 10.0, 20.0])
        np.testing.assert_allclose(sess.run(z, {x: [1.0, 2.0, 3.0], i: 1}), [1.0, 4.0, 9.0])
        # functions defined after the session's first step come with the ExtendSession that calls them
        with tf.device("/job:ps/task:0"):
            w = tf.function(lambda v: v * 3.0)(y)
        np.testing.assert_allclose(sess.run(w, {x: [1.0, 0.0, 2.0]}), [6.0, 3.0, 15.0])


def test_function_errors_name_the_body_node(cluster):  # noqa: F811
    @tf.function
    def checked(x):
        return tf.debugging.check_numerics(x, "bad value")

    with tf.device("/job:ps/task:0"):
        x = tf.placeholder(tf.float32, [], name="x")
        y = checked(x)
    with tf.Session(cluster[1].target) as sess:
        assert sess.run(y, {x: 2.0}) == 2.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad value"):
            sess.run(y, {x: np.inf})


def test_reachable_definitions_follow_calls_and_branches():
    @tf.function
    def inner(x):
        return x + 1.0

    @tf.function
    def outer(x):
        return inner(x) * 2.0

    @tf.function
    def unused(x):
        return x - 1.0

    x = tf.placeholder(tf.float32, [])
    y = outer(x)
    unused(x)
    i = tf.placeholder(tf.int32, [])
    tf.switch_case(i, [lambda: x * 2.0, lambda: x])
    graph_def = tf.get_default_graph().as_graph_def()
    library = {f.signature.name: f for f in graph_def.library.function}
    nodes = {node.name: node for node in graph_def.node}
    called = {f.signature.name for f in reachable_definitions([nodes[y.op.name]], library)}
    assert len(called) == 2 and all(name in library for name in called)
    assert not any("unused" in name for name in called)
    case = [node for node in graph_def.node if node.op in ("Case", "StatelessCase")]
    branches = {f.signature.name for f in reachable_definitions(case, library)}
    assert len(branches) == 2 and not branches & called
    assert reachable_definitions([nodes[x.op.name]], library) == []
