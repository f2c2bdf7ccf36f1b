"""ClusterSpec, Server and grpc:// sessions: clusters of servers on loopback, in this process and in others."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.distributed import rpc
from tensorweave.distributed.master import local_master
from tensorweave.distributed.rpc import free_ports
from tensorweave.distributed.worker_cache import WorkerCache
from tensorweave.formats import protos
from tensorweave.framework.graph_def import GraphDef, NodeDef


def _cluster_dict() -> dict[str, list[str]]:
    ps, worker = free_ports(2)
    return {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{worker}"]}


@contextlib.contextmanager
def _in_process_cluster():
    cluster = _cluster_dict()
    servers = []
    try:
        servers.append(tf.train.Server(cluster, job_name="ps", task_index=0))
        servers.append(tf.train.Server(cluster, job_name="worker", task_index=0))
        yield servers
    finally:
        for server in servers:
            server._stop()


@pytest.fixture
def cluster():
    with _in_process_cluster() as servers:
        yield servers


def _ps_worker_graph():
    """Variables on the ps task, compute on the worker task."""
    with tf.device("/job:ps/task:0"):
        w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        b = tf.Variable([0.5, -0.5], name="b")
    with tf.device("/job:worker/task:0"):
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.matmul(x, w) + b
        step = tf.assign_add(b, [1.0, 1.0])
    return x, y, step, tf.global_variables_initializer()


# -- ClusterSpec and Server definitions -----------------------------------------------------------------


def test_cluster_spec_dense_sparse_and_cluster_def():
    spec = tf.train.ClusterSpec({"worker": ["w0:1", "w1:2"], "ps": {1: "p1:3", 3: "p3:4"}})
    assert spec.jobs == ["worker", "ps"]
    assert spec.job_tasks("ps") == [None, "p1:3", None, "p3:4"]
    assert spec.task_indices("ps") == [1, 3] and spec.num_tasks("ps") == 2
    assert spec.task_address("worker", 1) == "w1:2"
    assert spec.as_dict() == {"worker": ["w0:1", "w1:2"], "ps": {1: "p1:3", 3: "p3:4"}}
    assert repr(spec) == "ClusterSpec({'ps': {1: 'p1:3', 3: 'p3:4'}, 'worker': ['w0:1', 'w1:2']})"
    cluster_def = spec.as_cluster_def()
    assert [job.name for job in cluster_def.job] == ["ps", "worker"] and dict(cluster_def.job[0].tasks) == {1: "p1:3", 3: "p3:4"}
    assert tf.train.ClusterSpec(cluster_def) == spec and tf.train.ClusterSpec(spec) == spec
    assert not (spec != tf.train.ClusterSpec(cluster_def)) and spec != {"ps": []}
    assert spec and not tf.train.ClusterSpec({})
    with pytest.raises(ValueError, match="No such job in cluster: 'foo'"):
        spec.task_address("foo", 0)
    with pytest.raises(ValueError, match="No task with index 0 in job 'ps'"):
        spec.task_address("ps", 0)
    with pytest.raises(TypeError, match="must be a dictionary mapping one or more job names"):
        tf.train.ClusterSpec(3)
    with pytest.raises(TypeError, match="The tasks for job 'a' must be a list or a dictionary"):
        tf.train.ClusterSpec({"a": 3})


def test_server_def_rules():
    with pytest.raises(ValueError, match="Must specify an explicit `job_name`."):
        tf.train.Server({"a": ["x:1"], "b": ["y:2"]})
    with pytest.raises(ValueError, match="Must specify an explicit `task_index`."):
        tf.train.Server({"a": ["x:1", "x:2"]})
    with pytest.raises(tf.errors.InternalError, match='Task 4 was not defined in job "a"'):
        tf.train.Server({"a": ["x:1"]}, task_index=4, start=False)
    with pytest.raises(tf.errors.NotFoundError, match="No server factory registered"):
        tf.train.Server({"a": ["x:1"]}, protocol="foo")


def test_local_server_target_and_server_def():
    server = tf.train.Server.create_local_server()
    try:
        assert server.target.startswith("grpc://localhost:") and not server.target.endswith(":0")
        assert server.server_def.job_name == "localhost" and server.server_def.protocol == "grpc"
        with tf.Session(server.target) as sess:
            assert [d.name for d in sess.list_devices()] == ["/job:localhost/replica:0/task:0/device:CPU:0"]
            x = tf.placeholder(tf.string)
            assert sess.run(tf.strings.join([x, "!"]), {x: "hi"}) == b"hi!"
        assert local_master(server.target) is server._master  # this process's sessions skip gRPC, as TF's
    finally:
        server._stop()
    assert local_master(server.target) is None


# -- a cluster in this process --------------------------------------------------------------------------


def test_variables_on_ps_compute_on_worker(cluster):
    ps, worker = cluster
    x, y, step, init = _ps_worker_graph()
    feed = {x: [[1.0, 1.0]]}
    with tf.Session(worker.target) as sess:
        assert sorted(d.name for d in sess.list_devices()) == [
            "/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"]
        sess.run(init)
        np.testing.assert_allclose(sess.run(y, feed), [[4.5, 5.5]])
        sess.run(step)
        sess.run(step)
        np.testing.assert_allclose(sess.run(y, feed), [[6.5, 7.5]])
        z = y * 2  # the graph grows: ExtendSession
        np.testing.assert_allclose(sess.run([z, y], feed), [[[13.0, 15.0]], [[6.5, 7.5]]])
    with tf.Session(ps.target) as other:  # the variables live on the ps task, shared by every session
        np.testing.assert_allclose(other.run("b:0"), [2.5, 1.5])


def test_big_tensor_crosses_tasks(cluster):
    _, worker = cluster
    n = 1 << 21  # 8 MB of float32
    with tf.device("/job:ps/task:0"):
        big = tf.Variable(tf.zeros([n]), name="big")
        fill = tf.assign(big, tf.range(n, dtype=tf.float32))
    with tf.device("/job:worker/task:0"):
        doubled = big * 2.0
        total = tf.reduce_sum(tf.cast(doubled, tf.float64))
    with tf.Session(worker.target) as sess:
        sess.run(fill)
        value, s = sess.run([doubled, total])
    np.testing.assert_array_equal(value, np.arange(n, dtype=np.float32) * 2)
    assert s == float(n) * (n - 1)


def test_unknown_job_or_task_is_invalid_argument(cluster):
    _, worker = cluster
    with tf.Session(worker.target) as sess:
        for device in ("/job:nope/task:0", "/job:ps/task:3"):
            with tf.Graph().as_default() as graph:
                with tf.device(device):
                    v = tf.Variable(1.0)
                sess._graph = graph
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=f"Cannot assign a device for operation Variable: .* explicitly assigned to {device}"):
                    sess.run(v.initializer)


def test_dead_worker_is_unavailable(cluster):
    ps, worker = cluster
    x, y, _, init = _ps_worker_graph()
    with tf.Session(worker.target) as sess:
        sess.run(init)
        sess.run(y, {x: [[1.0, 1.0]]})
        ps._stop()
        with pytest.raises(tf.errors.UnavailableError):
            sess.run(y, {x: [[1.0, 1.0]]})


def test_worker_service_protocol(cluster):
    """A master's calls to a worker, as TF's master makes them: a partition with a client-terminated _Send,
    RunGraph, the fetch read by key, CleanupGraph; and errors as TF's status codes."""
    _, worker = cluster
    cache = WorkerCache(tf.train.ClusterSpec(worker.server_def.cluster), "/job:client/replica:0/task:0", None)
    try:
        stub = cache.stub("/job:worker/replica:0/task:0")
        (device,) = stub.call("GetStatus", protos.GetStatusRequest()).device_attributes
        assert device.name == "/job:worker/replica:0/task:0/device:CPU:0" and device.incarnation != 0
        stub.call("CreateWorkerSession", protos.CreateWorkerSessionRequest(session_handle="s"))
        client = "/job:client/replica:0/task:0/device:CPU:0"
        graph = GraphDef(node=[
            NodeDef("c", "Const", [], device.name, {"dtype": tf.float32, "value": np.array([1.0, 2.0, 3.0], np.float32)}),
            NodeDef("y", "Square", ["c"], device.name, {"T": tf.float32}),
            NodeDef("send", "_Send", ["y"], device.name, {
                "T": tf.float32, "tensor_name": b"y:0", "send_device": device.name.encode(),
                "send_device_incarnation": device.incarnation, "recv_device": client.encode(),
                "client_terminated": True})])
        handle = stub.call("RegisterGraph", protos.RegisterGraphRequest(
            session_handle="s", create_worker_session_called=True, graph_def=graph.to_proto())).graph_handle
        key = f"{device.name};{device.incarnation:016x};{client};y:0;0:0"
        response = stub.call("RunGraph", protos.RunGraphRequest(
            session_handle="s", create_worker_session_called=True, graph_handle=handle, step_id=7, recv_key=[key]))
        assert response.recv[0].name == key
        np.testing.assert_array_equal(rpc.tensor_from_proto(response.recv[0].tensor), [1.0, 4.0, 9.0])
        stub.call("CleanupGraph", protos.CleanupGraphRequest(step_id=7))
        with pytest.raises(tf.errors.AbortedError, match="Graph handle is not found: nope"):
            stub.call("RunGraph", protos.RunGraphRequest(session_handle="s", create_worker_session_called=True,
                                                         graph_handle="nope", step_id=8))
        stub.call("DeregisterGraph", protos.DeregisterGraphRequest(session_handle="s", create_worker_session_called=True,
                                                                   graph_handle=handle))
        stub.call("DeleteWorkerSession", protos.DeleteWorkerSessionRequest(session_handle="s"))
    finally:
        cache.close()


def test_worker_ends_a_step_that_succeeded_once_its_sends_are_received(cluster):
    """A tensorweave worker says so in GetStatus's metadata and drops a step itself once its RunGraph succeeded
    and another task received what it sent (its master sends no CleanupGraph then); later calls of the step
    find it ended."""
    _, worker = cluster
    cache = WorkerCache(tf.train.ClusterSpec(worker.server_def.cluster), "/job:ps/replica:0/task:0", None)
    try:
        stub = cache.stub("/job:worker/replica:0/task:0")
        response, metadata = stub.call_with_metadata("GetStatus", protos.GetStatusRequest())
        assert rpc.SELF_CLEANING in metadata
        (device,) = response.device_attributes
        other = "/job:ps/replica:0/task:0/device:CPU:0"
        graph = GraphDef(node=[
            NodeDef("c", "Const", [], device.name, {"dtype": tf.float32, "value": np.array(2.0, np.float32)}),
            NodeDef("send", "_Send", ["c"], device.name, {
                "T": tf.float32, "tensor_name": b"c:0", "send_device": device.name.encode(),
                "send_device_incarnation": device.incarnation, "recv_device": other.encode(),
                "client_terminated": False})])
        handle = stub.call("RegisterGraph", protos.RegisterGraphRequest(graph_def=graph.to_proto())).graph_handle
        stub.call("RunGraph", protos.RunGraphRequest(graph_handle=handle, step_id=11))
        key = f"{device.name};{device.incarnation:016x};{other};c:0;0:0"
        received = stub.call("RecvTensor", protos.RecvTensorRequest(step_id=11, rendezvous_key=key))
        assert rpc.tensor_from_proto(received.tensor) == 2.0
        with pytest.raises(tf.errors.AbortedError, match="Step 11 has been cleaned up"):
            stub.call("RecvTensor", protos.RecvTensorRequest(step_id=11, rendezvous_key=key), timeout=5)
        stub.call("CleanupGraph", protos.CleanupGraphRequest(step_id=11))  # as a TF master still sends it
    finally:
        cache.close()


# -- servers in other processes -------------------------------------------------------------------------

_SERVER_MAIN = textwrap.dedent("""
    import sys
    import tensorweave.compat.v1 as tf
    server = tf.train.Server(eval(sys.argv[1]), job_name=sys.argv[2], task_index=0)
    print("ready", flush=True)
    server.join()
""")


@pytest.fixture
def process_cluster():
    cluster = _cluster_dict()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    processes = []
    try:
        for job in ("ps", "worker"):
            processes.append(subprocess.Popen([sys.executable, "-c", _SERVER_MAIN, repr(cluster), job], env=env,
                                              stdout=subprocess.PIPE, text=True))
        for process in processes:
            assert process.stdout.readline().strip() == "ready"
        yield cluster
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()


def test_cluster_of_processes(process_cluster):
    x, y, step, init = _ps_worker_graph()
    with tf.Session("grpc://" + process_cluster["worker"][0]) as sess:
        sess.run(init)
        sess.run(step)
        np.testing.assert_allclose(sess.run(y, {x: [[1.0, 0.0], [0.0, 1.0]]}), [[2.5, 2.5], [4.5, 4.5]])


def test_reset_clears_the_cluster_containers(cluster):
    _, worker = cluster
    with tf.device("/job:ps/task:0"):
        v = tf.Variable(3.0, name="v")
    with tf.Session(worker.target) as sess:
        sess.run(v.initializer)
        assert sess.run(v) == 3.0
    tf.Session.reset(worker.target)
    with tf.Session(worker.target) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
            sess.run(v)


def test_traced_step_gathers_every_task_and_profiler_hook_writes_it(cluster, tmp_path):
    _, worker = cluster
    x, y, step, init = _ps_worker_graph()
    with tf.Session(worker.target) as sess:
        sess.run(init)
        metadata = tf.RunMetadata()
        sess.run([y, step], {x: [[1.0, 0.0]]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
        devices = {d.device: {n.node_name for n in d.node_stats} for d in metadata.step_stats.dev_stats}
        assert {"b", "AssignAdd"} <= devices["/job:ps/replica:0/task:0/device:CPU:0"]
        assert "add" in devices["/job:worker/replica:0/task:0/device:CPU:0"]  # a _FusedMatMul, with the MatMul
        sess.run(y, {x: [[1.0, 0.0]]}, run_metadata=metadata)  # untraced: nothing recorded
        assert not metadata.step_stats.dev_stats
    global_step = tf.train.get_or_create_global_step()
    with tf.device("/job:ps/task:0"):
        train = tf.assign_add(global_step, 1)
    hook = tf.train.ProfilerHook(save_steps=1, output_dir=str(tmp_path))
    with tf.train.MonitoredSession(tf.train.ChiefSessionCreator(master=worker.target), hooks=[hook]) as sess:
        for _ in range(3):  # TF's hook traces from the second step on
            sess.run(train)
    timelines = list(tmp_path.glob("timeline-*.json"))
    assert timelines and "/job:ps/replica:0/task:0/device:CPU:0" in timelines[0].read_text()


def test_partition_graphs_and_cost_graph_come_from_every_task(cluster):
    """As TF's master fills RunMetadata: output_partition_graphs gives each task's partitions (with their
    _Send/_Recv) from RunGraph; a cost graph comes with the steps GraphOptions.build_cost_model picks,
    each partition's nodes with their own ids, and not from tracing alone."""
    _, worker = cluster
    x, y, _, init = _ps_worker_graph()
    ps_device, worker_device = "/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0"
    with tf.Session(worker.target) as sess:
        sess.run(init)
        metadata = tf.RunMetadata()
        sess.run(y, {x: [[1.0, 0.0]]}, options=tf.RunOptions(output_partition_graphs=True), run_metadata=metadata)
        graphs = {graph.node[0].device: {n.op for n in graph.node} for graph in metadata.partition_graphs}
        assert set(graphs) == {ps_device, worker_device}
        assert {"VariableV2", "_Send"} <= graphs[ps_device] and {"_Recv", "_FusedMatMul", "_Send"} <= graphs[worker_device]
        assert not metadata.cost_graph.node and not metadata.step_stats.dev_stats
        sess.run(y, {x: [[1.0, 0.0]]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=metadata)
        assert metadata.step_stats.dev_stats and not metadata.cost_graph.node and not metadata.partition_graphs
    config = tf.ConfigProto(graph_options=tf.GraphOptions(build_cost_model=2))
    with tf.Session(worker.target, config=config) as sess:
        costs = []
        for _ in range(4):
            sess.run(y, {x: [[1.0, 0.0]]}, run_metadata=metadata)
            costs.append(len(metadata.cost_graph.node))
        assert costs[0] == costs[2] == 0 and costs[1] == costs[3] > 0
        by_device = {}
        for node in metadata.cost_graph.node:
            by_device.setdefault(node.device, []).append(node)
        assert set(by_device) == {ps_device, worker_device}
        for nodes in by_device.values():
            assert sorted(n.id for n in nodes) == list(range(len(nodes)))
        (fused,) = [n for n in by_device[worker_device] if n.name == "add"]  # MatMul + b, one _FusedMatMul
        assert len(fused.input_info) == 3 and fused.output_info[0].size == 8


def test_master_optimizes_a_step_as_the_local_session_does():
    """An op only control edges wait for is not run through a master either (Grappler's dependency
    optimizer), unless the session's config turns that off."""
    server = tf.train.Server.create_local_server()
    try:
        x = tf.placeholder(tf.float32, [None])
        bad = tf.reshape(x, [3])  # fails for 2 values
        with tf.control_dependencies([bad]):
            y = tf.identity(x)
        with tf.Session(server.target) as sess:
            np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [1, 2])
        config = tf.ConfigProto()
        config.graph_options.rewrite_options.dependency_optimization = 2  # RewriterConfig.OFF
        with tf.Session(server.target, config=config) as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y, {x: [1, 2]})
    finally:
        server._stop()


def test_cluster_spec_rejects_non_string_job_name():
    """TF: TypeError 'Job name 1 must be bytes or unicode'."""
    import pytest

    from tensorweave.distributed.cluster_spec import ClusterSpec
    with pytest.raises(TypeError, match="Job name 1 must be bytes or unicode"):
        ClusterSpec({1: ["a"]})


def test_a_global_step_fetched_beside_the_train_op_is_the_steps_old_one_as_tfs(cluster):
    """A fetch from another task is the value at its send, not after a later in-place update of the variable
    it reads: a replicated training loop printing `sess.run([loss, train, global_step])` shows 0, 1, 2 (TF's
    values, recorded; a local session shows the updated step, as TF's does)."""
    _, worker = cluster
    spec = tf.train.ClusterSpec(worker.server_def.cluster)
    with tf.device(tf.train.replica_device_setter(cluster=spec)):
        step = tf.train.get_or_create_global_step()
        w, b = tf.Variable([1.0, 2.0], name="w"), tf.Variable(0.5, name="b")
        loss = tf.reduce_sum(tf.square(w * tf.constant([3.0, 4.0]) + b))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step=step)
    with tf.Session(worker.target) as sess:
        sess.run(tf.global_variables_initializer())
        seen = [sess.run([loss, train, step]) for _ in range(3)]
    assert [int(s) for _, _, s in seen] == [0, 1, 2]
    np.testing.assert_allclose([loss for loss, _, _ in seen], [84.5, 37.608498, 16.96022], rtol=1e-6)
