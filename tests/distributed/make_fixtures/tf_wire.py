"""Record the gRPC calls real TensorFlow makes between a TF1 client, a master and a worker
(tests/distributed/test_tf_wire.py replays them against tensorweave's master and worker).

Run with a TensorFlow virtualenv, from the repository root:
    /tmp/tfvenv/bin/python tests/distributed/make_fixtures/tf_wire.py
A byte-forwarding gRPC proxy stands where the client reaches the master and where the master reaches
the worker task, so every request and response is TF's own, unparsed. It writes
fixtures/tf_wire.json: for each conversation, the calls in order as (method path, request hex, response hex).
"""

import json
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import tensorflow.compat.v1 as tf

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
            response = forward(request)
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


def main() -> None:
    out = {"master_to_worker": master_to_worker(), "client_to_master": client_to_master()}
    (FIXTURES / "tf_wire.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
