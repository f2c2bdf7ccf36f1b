"""Partial runs and callables of grpc:// sessions: the master keeps the step of a partial run and its
RunGraphs feed and fetch it in pieces on every task; a callable is registered once and run by handle."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.distributed.rpc import free_ports
from tensorweave.formats import protos


@pytest.fixture
def target():
    """A ps and a worker task in this process; the session reaches the worker's master through gRPC (by a
    name of its address that no local server registered)."""
    ps_port, worker_port = free_ports(2)
    cluster = {"ps": [f"127.0.0.1:{ps_port}"], "worker": [f"127.0.0.1:{worker_port}"]}
    servers = []
    try:
        servers.append(tf.train.Server(cluster, job_name="ps", task_index=0))
        servers.append(tf.train.Server(cluster, job_name="worker", task_index=0))
        yield f"grpc://localhost:{worker_port}"
    finally:
        for server in servers:
            server._stop()


def _graph() -> tuple:
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:worker/task:0"):
            a, b, c = (tf.placeholder(tf.float32, name=name) for name in "abc")
            r1 = tf.add(a, b, name="r1")
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
            r2 = tf.multiply(r1, c + v, name="r2")
            inc = tf.assign_add(v, 1.0, name="inc")
    return graph, (a, b, c, r1, r2, v, inc)


def test_partial_runs_over_two_tasks(target):
    graph, (a, b, c, r1, r2, v, inc) = _graph()
    with tf.Session(target, graph=graph) as sess:
        sess.run(v.initializer)
        handle = sess.partial_run_setup([r1, r2], [a, b, c])
        assert handle == "0"  # TF's master numbers a session's partial runs
        assert sess.partial_run(handle, r1, {a: 1, b: 2}) == 3.0
        assert sess.partial_run(handle, r2, {c: 3}) == 12.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="Must run PartialRunSetup before performing"):
            sess.partial_run(handle, r2, {c: 3})  # the handle ended with its last feed and fetch
        handle = sess.partial_run_setup([r1, r2], [a, b, c])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Fetch c:0 can't be computed from the feeds that have been fed so far."):
            sess.partial_run(handle, r2, {a: 1, b: 2})
        assert sess.partial_run(handle, r1, {a: 1, b: 2}) == 3.0
        for feeds, fetch, message in (({a: 1, c: 2}, r2, "The feed a:0 has already been fed."),
                                      ({c: 2}, r1, "The fetch r1:0 has already been fetched."),
                                      ({v: 2}, r2, "The feed v:0 was not specified in partial_run_setup.")):
            with pytest.raises(tf.errors.InvalidArgumentError, match=f"{message}$"):
                sess.partial_run(handle, fetch, feeds)
        assert sess.partial_run(handle, r2, {c: 1}) == 6.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="a:0 is both fed and fetched.$"):
            sess.partial_run_setup([a], [a])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Must specify at least one target"):
            sess.partial_run_setup([], [a])
        # a target runs once in the partial run's one step, whatever the number of calls
        handle = sess.partial_run_setup([r1, inc], [a, b])
        assert sess.partial_run(handle, r1, {a: 1, b: 1}) == 2.0
        assert sess.run(v) == 2.0


def test_partial_run_failure_ends_it(target):
    graph = tf.Graph()
    with graph.as_default(), tf.device("/job:ps/task:0"):
        x = tf.placeholder(tf.float32, name="x")
        y = tf.placeholder(tf.float32, name="y")
        bad = tf.reshape(y, [3], name="bad")
        z = tf.identity(x, name="z")
    with tf.Session(target, graph=graph) as sess:
        handle = sess.partial_run_setup([z, bad], [x, y])
        assert sess.partial_run(handle, z, {x: 5}) == 5.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input to reshape is a tensor with 2 values"):
            sess.partial_run(handle, bad, {y: [1.0, 2.0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="Must run PartialRunSetup"):
            sess.partial_run(handle, bad, {y: [1.0, 2.0, 3.0]})


def test_callables_over_grpc(target):
    graph, (a, b, c, r1, r2, v, inc) = _graph()
    with tf.Session(target, graph=graph) as sess:
        sess.run(v.initializer)
        add = sess._make_callable_from_options(protos.CallableOptions(feed=["a:0", "b:0"], fetch=["r1:0"]))
        assert add(np.float32(3), np.float32(4)) == [7.0]
        # (the variable fetched beside its update, from the ps task, would be the value at its send: which
        # one TF's gives depends on its ready queue's order)
        step = sess._make_callable_from_options(protos.CallableOptions(fetch=["inc:0"], target=["inc"]))
        read = sess._make_callable_from_options(protos.CallableOptions(fetch=["v:0"]))
        assert step() == [2.0] and step() == [3.0] and read() == [3.0]
        with pytest.raises(tf.errors.InternalError,
                           match="Output 0 of type double does not match declared output type float"):
            add(3.0, 4.0)  # fed as NumPy makes them, as TF's callables do
        with pytest.raises(tf.errors.NotFoundError, match="nope"):
            sess._make_callable_from_options(protos.CallableOptions(fetch=["nope:0"]))
        del add, step, read


def test_callables_in_process():
    with tf.Graph().as_default() as graph:
        a = tf.placeholder(tf.float32, name="a")
        v = tf.Variable(1.0, name="v")
        tf.assign_add(v, a, name="inc")
    with tf.Session(graph=graph) as sess:
        sess.run(v.initializer)
        step = sess._make_callable_from_options(protos.CallableOptions(feed=["a:0"], fetch=["v:0"], target=["inc"]))
        assert step(np.float32(2)) == [3.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Invalid number of feed tensors. Expected: 1. Got: 0"):
            step()
