"""Record the gRPC calls real TensorFlow makes between a TF1 client, a master and a worker
(tests/distributed/test_tf_wire.py replays them against tensorweave's master and worker).

Run with a TensorFlow virtualenv, from the repository root (naming conversations records only those):
    /tmp/tfvenv/bin/python tests/distributed/make_fixtures/tf_wire.py [partial_runs_and_callables ...]
A byte-forwarding gRPC proxy stands where the client reaches the master and where the master reaches
the worker task, so every request and response is TF's own, unparsed. It writes
fixtures/tf_wire.json: for each conversation, the calls in order as (method path, request hex, response hex).
"""

import json
import socket
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.core.protobuf import config_pb2

FIXTURES = Path(__file__).parent.parent / "fixtures"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Proxy(grpc.GenericRpcHandler):
    """Forwards every unary call's bytes to `target` and records them."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.insecure_channel(target)
        self.calls: list[tuple[str, str, str]] = []
        self.lock = threading.Lock()

    def service(self, details):
        method = details.method
        forward = self.channel.unary_unary(method)

        def call(request: bytes, context) -> bytes:
            try:
                response = forward(request)
            except grpc.RpcError as e:  # recorded with its status code and message, and passed on
                with self.lock:
                    self.calls.append((method, request.hex(), "", e.code().value[0], e.details()))
                context.abort(e.code(), e.details())
            with self.lock:
                self.calls.append((method, request.hex(), response.hex()))
            return response

        return grpc.unary_unary_rpc_method_handler(call)


def _serve_proxy(port: int, target: str) -> tuple[grpc.Server, _Proxy]:
    proxy = _Proxy(target)
    server = grpc.server(ThreadPoolExecutor(8))
    server.add_generic_rpc_handlers((proxy,))
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    return server, proxy


def _worker_graph() -> tuple:
    """State and compute on the worker task only, so its partitions need nothing from the master's task."""
    with tf.device("/job:worker/task:0"):
        v = tf.Variable([1.0, 2.0, 3.0], name="v")
        y = tf.multiply(v, 2.0, name="y")
        step = tf.assign_add(v, [1.0, 1.0, 1.0], name="step")
    return v, y, step


def master_to_worker() -> list:
    """A TF master (job master) driving the worker task through the proxy: init, fetch, update, fetch."""
    master_port, worker_port, proxy_port = _free_port(), _free_port(), _free_port()
    cluster = tf.train.ClusterSpec({"master": [f"127.0.0.1:{master_port}"], "worker": [f"127.0.0.1:{proxy_port}"]})
    worker_def = tf.train.ServerDef(cluster=cluster.as_cluster_def(), job_name="worker", task_index=0,
                                    protocol="grpc", port=worker_port)
    worker = tf.train.Server(worker_def)
    proxy_server, proxy = _serve_proxy(proxy_port, f"127.0.0.1:{worker_port}")
    master = tf.train.Server(cluster, job_name="master", task_index=0)
    graph = tf.Graph()
    with graph.as_default():
        v, y, step = _worker_graph()
    with tf.Session(master.target, graph=graph) as sess:
        sess.run(v.initializer)
        assert sess.run(y).tolist() == [2.0, 4.0, 6.0]
        sess.run(step)
        assert sess.run(y).tolist() == [4.0, 6.0, 8.0]
    proxy_server.stop(None)
    del worker
    return proxy.calls


def _functions_graph() -> tuple:
    """A function call TF's master keeps (`_noinline`: a PartitionedCall whose FunctionDef goes in the
    partition's library) and a switch_case it lowers (`_SwitchN`/`Merge`), on variables so nothing is folded."""
    @tf.function(experimental_attributes={"_noinline": True})
    def square_plus(x):
        return x * x + 1.0

    with tf.device("/job:worker/task:0"):
        v = tf.Variable([1.0, 2.0, 3.0], name="v")
        i = tf.Variable(0, name="i")
        y = tf.identity(square_plus(v), name="y")
        z = tf.identity(tf.switch_case(i.read_value(), [lambda: y * 2.0, lambda: y - 1.0]), name="z")
        step = tf.assign_add(i, 1, name="step")
    return tf.group(v.initializer, i.initializer), y, z, step


def functions_master_to_worker() -> list:
    """A TF master driving the worker task through the proxy with function calls: init, fetch, switch, fetch."""
    master_port, worker_port, proxy_port = _free_port(), _free_port(), _free_port()
    cluster = tf.train.ClusterSpec({"master": [f"127.0.0.1:{master_port}"], "worker": [f"127.0.0.1:{proxy_port}"]})
    worker_def = tf.train.ServerDef(cluster=cluster.as_cluster_def(), job_name="worker", task_index=0,
                                    protocol="grpc", port=worker_port)
    worker = tf.train.Server(worker_def)
    proxy_server, proxy = _serve_proxy(proxy_port, f"127.0.0.1:{worker_port}")
    master = tf.train.Server(cluster, job_name="master", task_index=0)
    graph = tf.Graph()
    with graph.as_default():
        init, y, z, step = _functions_graph()
    with tf.Session(master.target, graph=graph) as sess:
        sess.run(init)
        assert [r.tolist() for r in sess.run([y, z])] == [[2.0, 5.0, 10.0], [4.0, 10.0, 20.0]]
        sess.run(step)
        assert sess.run(z).tolist() == [1.0, 4.0, 9.0]
    proxy_server.stop(None)
    del worker
    return proxy.calls


def client_to_master() -> list:
    """A TF1 client's session on a one-task server, through the proxy: create, run with a feed, extend, run,
    a step that fails, close."""
    server_port, proxy_port = _free_port(), _free_port()
    server = tf.train.Server({"worker": [f"127.0.0.1:{server_port}"]}, job_name="worker", task_index=0)
    proxy_server, proxy = _serve_proxy(proxy_port, f"127.0.0.1:{server_port}")
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        y = tf.matmul(x, w, name="y")
    with tf.Session(f"grpc://127.0.0.1:{proxy_port}", graph=graph) as sess:
        sess.run(w.initializer)
        assert sess.run(y, {x: [[1.0, 1.0]]}).tolist() == [[4.0, 6.0]]
        with graph.as_default():
            z = tf.reduce_sum(y, name="z")
            u = tf.placeholder(tf.float32, name="u")
            bad = tf.reshape(u, [3], name="bad")
        assert sess.run(z, {x: [[1.0, 0.0]]}) == 3.0
        try:
            sess.run(bad, {u: [1.0, 0.0]})
        except tf.errors.InvalidArgumentError:
            pass
    proxy_server.stop(None)
    del server
    return proxy.calls


def partial_runs_and_callables() -> list:
    """A TF1 client's partial runs (and the errors of bad ones), callables from CallableOptions, ListDevices and
    Reset on a one-task server, through the proxy (a failed call is recorded with its status code and message)."""
    server_port, proxy_port = _free_port(), _free_port()
    server = tf.train.Server({"worker": [f"127.0.0.1:{server_port}"]}, job_name="worker", task_index=0)
    proxy_server, proxy = _serve_proxy(proxy_port, f"127.0.0.1:{server_port}")
    target = f"grpc://127.0.0.1:{proxy_port}"
    graph = tf.Graph()
    with graph.as_default():
        a, b, c = (tf.placeholder(tf.float32, name=name) for name in "abc")
        r1 = tf.add(a, b, name="r1")
        r2 = tf.multiply(r1, c, name="r2")
        v = tf.Variable(1.0, name="v", use_resource=False)
        inc = tf.assign_add(v, 1.0, name="inc")

    def fails(run, *args) -> None:
        try:
            run(*args)
        except tf.errors.OpError:
            return
        raise AssertionError("expected an error")

    with tf.Session(target, graph=graph) as sess:
        handle = sess.partial_run_setup([r1, r2], [a, b, c])
        assert sess.partial_run(handle, r1, {a: 1, b: 2}) == 3.0
        assert sess.partial_run(handle, r2, {c: 3}) == 9.0
        fails(sess.partial_run, handle, r2, {c: 3})  # the handle ended with its last feed and fetch
        handle = sess.partial_run_setup([r1, r2], [a, b, c])
        fails(sess.partial_run, handle, r2, {a: 1, b: 2})  # c is not fed yet
        assert sess.partial_run(handle, r1, {a: 1, b: 2}) == 3.0
        fails(sess.partial_run, handle, r2, {a: 1, c: 2})
        fails(sess.partial_run, handle, r1, {c: 2})
        fails(sess.partial_run, handle, r2, {v: 2})
        fails(sess.partial_run_setup, [a], [a])
        fails(sess.partial_run_setup, [], [a])
        add = sess._make_callable_from_options(config_pb2.CallableOptions(feed=["a:0", "b:0"], fetch=["r1:0"]))
        assert add(np.float32(3), np.float32(4)) == [7.0]
        del add
        sess.run(v.initializer)
        step = sess._make_callable_from_options(config_pb2.CallableOptions(fetch=["v:0"], target=[inc.op.name]))
        assert step() == [2.0]
        fails(sess._make_callable_from_options, config_pb2.CallableOptions(fetch=["nope:0"]))
    tf.Session.reset(target)
    proxy_server.stop(None)
    del server
    return proxy.calls


def main() -> None:
    """Record the conversations named on the command line (all without names) into tf_wire.json."""
    recorders = {"master_to_worker": master_to_worker, "functions_master_to_worker": functions_master_to_worker,
                 "client_to_master": client_to_master,
                 "partial_runs_and_callables": partial_runs_and_callables}
    path = FIXTURES / "tf_wire.json"
    out = json.loads(path.read_text()) if path.exists() else {}
    for name in sys.argv[1:] or recorders:
        out[name] = recorders[name]()
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
