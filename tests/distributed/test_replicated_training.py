"""Between-graph replication on loopback: a PS server (in the test's process) and two worker processes,
each building its own graph under `replica_device_setter` (a dense variable, a partitioned embedding and
the global step on the PS) and training through its own server, first with asynchronous SGD, then with
SyncReplicasOptimizer. Both end at the values the arithmetic gives: every replica's gradient is the same
constant, so the order in which the replicas' updates land does not change the result."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import textwrap

import numpy as np

import tensorweave.compat.v1 as tf

_WORKER_MAIN = textwrap.dedent("""
    import json, sys, time, faulthandler; faulthandler.dump_traceback_later(45, exit=True)
    import numpy as np
    import tensorweave.compat.v1 as tf


    def train(cluster, server, task, mode, steps):
        is_chief = task == 0
        with tf.device(tf.train.replica_device_setter(cluster=cluster, worker_device=f"/job:worker/task:{task}")):
            global_step = tf.train.get_or_create_global_step()
            w = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
            emb = tf.get_variable("emb", initializer=tf.constant(np.arange(12.0, dtype=np.float32).reshape(6, 2)),
                                  partitioner=tf.fixed_size_partitioner(2))
            loss = tf.reduce_sum(w * [1.0, 1.0]) + tf.reduce_sum(tf.nn.embedding_lookup(emb, [1, 4]))
            opt = tf.train.GradientDescentOptimizer(0.1)
            if mode == "sync":
                opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=2, total_num_replicas=2)
            train = opt.minimize(loss, global_step=global_step)
            finished = tf.Variable(0, name="finished")  # workers done: none leaves while another needs it
            finish = finished.assign_add(1)
        placed = sorted({(op.type, op.device) for op in tf.get_default_graph().get_operations()
                         if op.type in ("ScatterSub", "ApplyGradientDescent", "ResourceConditionalAccumulator",
                                        "SparseConditionalAccumulator", "FIFOQueueV2")})
        ready = tf.report_uninitialized_variables(tf.global_variables())
        with tf.Session(server.target) as sess:
            if is_chief:
                sess.run(tf.global_variables_initializer())
            while sess.run(ready).size:
                time.sleep(0.02)
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            if mode == "sync":
                hook = opt.make_session_run_hook(is_chief)
                hook.begin()
                hook.after_create_session(sess, coord)
                token = 0
                while token < steps:
                    token = sess.run(train)
            else:
                for _ in range(steps):
                    sess.run(train)
            sess.run(finish)
            while sess.run(finished) < 2:
                time.sleep(0.02)
            result = {"w": sess.run(w).tolist(), "emb": sess.run(tf.convert_to_tensor(emb)).tolist(),
                      "step": int(sess.run(global_step)), "placed": placed}
            coord.request_stop()
        return result


    cluster, task, steps = eval(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    server = tf.train.Server(cluster, job_name="worker", task_index=task)
    results = {}
    for mode in ("async", "sync"):  # each in its own graph, its state in its own container on the PS
        with tf.Graph().as_default(), tf.container(mode):
            results[mode] = train(cluster, server, task, mode, steps)
    print(json.dumps(results), flush=True)
""")


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


@contextlib.contextmanager
def _processes():
    """Started processes, always reaped: terminated, then killed if they linger."""
    started: list[subprocess.Popen] = []
    try:
        yield started
    finally:
        for process in started:
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()


def _train(steps: int) -> list[dict]:
    ps, w0, w1 = _free_ports(3)
    cluster = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{w0}", f"127.0.0.1:{w1}"]}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    server = tf.train.Server(cluster, job_name="ps", task_index=0)  # the PS lives in this process
    try:
        with _processes() as workers:
            workers.extend(subprocess.Popen([sys.executable, "-c", _WORKER_MAIN, repr(cluster), str(task), str(steps)],
                                            env=env, stdout=subprocess.PIPE, text=True) for task in range(2))
            outputs = [worker.communicate(timeout=60)[0] for worker in workers]
            assert [worker.returncode for worker in workers] == [0, 0], outputs
    finally:
        server._stop()
    return [json.loads(out.strip().splitlines()[-1]) for out in outputs]


def _expected(updates: int) -> tuple[list, list]:
    emb = np.arange(12.0).reshape(6, 2)
    emb[[2, 3]] -= 0.1 * updates  # ids 1 and 4 under "mod": shard 1 row 0 and shard 0 row 2
    return [1.0 - 0.1 * updates, 2.0 - 0.1 * updates], emb.tolist()


def test_one_ps_two_workers_async_then_sync():
    steps = 4
    results = _train(steps)
    for mode, updates in [("async", 2 * steps), ("sync", steps)]:
        w, emb = _expected(updates)
        for result in (r[mode] for r in results):
            assert result["step"] == updates
            np.testing.assert_allclose(result["w"], w, rtol=1e-5)
            np.testing.assert_allclose(result["emb"], emb, rtol=1e-5)
    async_placed = {tuple(p) for p in results[1]["async"]["placed"]}
    sync_placed = {tuple(p) for p in results[1]["sync"]["placed"]}
    assert async_placed == {("ScatterSub", "/job:ps/task:0"), ("ApplyGradientDescent", "/job:ps/task:0")}
    assert sync_placed == async_placed | {
        ("ResourceConditionalAccumulator", "/job:ps/task:0"), ("SparseConditionalAccumulator", "/job:ps/task:0"),
        ("FIFOQueueV2", "/job:ps/task:0/device:CPU:*")}


def test_sharded_saver_writes_each_ps_its_slices(tmp_path):
    """A variable partitioned over two PS tasks: a sharded Saver saves each shard where it lives, and the
    checkpoint restores into another partitioning in a local session."""
    value = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    ports = _free_ports(3)
    cluster = {"ps": [f"127.0.0.1:{ports[0]}", f"127.0.0.1:{ports[1]}"], "worker": [f"127.0.0.1:{ports[2]}"]}
    servers = []
    try:
        servers.extend(tf.train.Server(cluster, job_name=job, task_index=index)
                       for job, index in [("ps", 0), ("ps", 1), ("worker", 0)])
        with tf.Graph().as_default():
            with tf.device(tf.train.replica_device_setter(cluster=cluster)):
                v = tf.get_variable("v", initializer=tf.constant(value), partitioner=tf.fixed_size_partitioner(2))
            assert [p.device for p in v] == ["/job:ps/task:0", "/job:ps/task:1"]
            saver = tf.train.Saver(sharded=True)
            saves = [op.device for op in tf.get_default_graph().get_operations() if op.type == "SaveV2"]
            assert saves == ["/job:ps/task:0/device:CPU:0", "/job:ps/task:1/device:CPU:0"]
            with tf.Session(servers[2].target) as sess:
                sess.run(tf.global_variables_initializer())
                path = saver.save(sess, os.path.join(tmp_path, "ckpt"))
    finally:
        for server in servers:
            server._stop()
    assert path.endswith("ckpt")
    assert tf.train.list_variables(path) == [("v", [5, 2])]
    with tf.Graph().as_default():
        v = tf.get_variable("v", [5, 2], partitioner=tf.fixed_size_partitioner(3))
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(v)), value)
