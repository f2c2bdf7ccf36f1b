"""The local-cluster launcher, TF_CONFIG and TFConfigClusterResolver, and tf.test.create_local_cluster."""

import io
import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.distributed import launch

_ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}

_PROGRAM = textwrap.dedent("""
    import argparse
    import tensorweave.compat.v1 as tf
    parser = argparse.ArgumentParser()
    for name in ("job_name", "ps_hosts", "worker_hosts"):
        parser.add_argument("--" + name)
    parser.add_argument("--task_index", type=int)
    parser.add_argument("--scale", type=float)
    flags = parser.parse_args()
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (resolver.task_type, resolver.task_id) == (flags.job_name, flags.task_index)
    cluster = resolver.cluster_spec()
    assert cluster.as_dict() == {"ps": flags.ps_hosts.split(","), "worker": flags.worker_hosts.split(",")}
    server = tf.train.Server(cluster, job_name=flags.job_name, task_index=flags.task_index)
    if flags.job_name == "ps":
        server.join()
    with tf.device("/job:ps/task:0"):
        x = tf.constant(flags.task_index + 1.0) * flags.scale
    # a worker's session uses the PS and itself only, so it never waits for a worker that has finished
    config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{flags.task_index}"])
    with tf.Session(server.target, config=config) as sess:
        print("worker", flags.task_index, "computed", sess.run(x))
        print("second line")
""")

_SLEEPER = textwrap.dedent("""
    import os, sys, time
    task = [a for a in sys.argv if a.startswith("--job_name") or a.startswith("--task_index")]
    if "--fail" in sys.argv and "--task_index=1" in task and "--job_name=worker" in task:
        sys.exit(3)
    print("pid", os.getpid(), flush=True)
    time.sleep(60)
""")


def test_launcher_runs_a_cluster_program(tmp_path):
    program = tmp_path / "program.py"
    program.write_text(_PROGRAM)
    result = subprocess.run([sys.executable, "-m", "tensorweave.distributed.launch", "--ps", "1", "--workers", "2",
                             str(program), "--scale", "10"], env=_ENV, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert sorted(line for line in lines if "computed" in line) == [
        "[worker:0] worker 0 computed 10.0", "[worker:1] worker 1 computed 20.0"]
    assert lines.index("[worker:0] second line") > lines.index("[worker:0] worker 0 computed 10.0")


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_launcher_reaps_every_task_on_ctrl_c_and_on_failure(tmp_path):
    program = tmp_path / "sleeper.py"
    program.write_text(_SLEEPER)
    launcher = subprocess.Popen([sys.executable, "-m", "tensorweave.distributed.launch", "--ps", "1", "--workers",
                                 "2", "--chief", str(program)], env=_ENV, stdout=subprocess.PIPE, text=True)
    try:
        lines = [launcher.stdout.readline() for _ in range(4)]
        assert sorted(line.split()[0] for line in lines) == ["[chief:0]", "[ps:0]", "[worker:0]", "[worker:1]"]
        pids = [int(line.split()[2]) for line in lines]
        launcher.send_signal(signal.SIGINT)
        assert launcher.wait(timeout=30) == 130
        assert all(_gone(pid) for pid in pids)
    finally:
        launcher.kill()
        launcher.wait()
        launcher.stdout.close()

    out = io.StringIO()
    assert launch.launch(str(program), ["--fail"], num_ps=1, num_workers=2, out=out) == 3
    pids = [int(line.split()[2]) for line in out.getvalue().splitlines() if " pid " in line]
    assert all(_gone(pid) for pid in pids)


def test_task_command_flags_and_tf_config():
    cluster = {"ps": ["127.0.0.1:1"], "worker": ["127.0.0.1:2", "127.0.0.1:3"]}
    command, env = launch.task_command("p.py", ["--x", "1"], cluster, "worker", 1)
    assert command[1:] == ["p.py", "--job_name=worker", "--task_index=1", "--ps_hosts=127.0.0.1:1",
                           "--worker_hosts=127.0.0.1:2,127.0.0.1:3", "--x", "1"]
    assert json.loads(env["TF_CONFIG"]) == {"cluster": cluster, "task": {"type": "worker", "index": 1}}
    assert list(launch.cluster_of(2, 3)) == ["ps", "worker"]
    assert list(launch.cluster_of(0, 1, chief=True)) == ["chief", "worker"]


def test_tf_config_cluster_resolver(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": {"ps": ["a:1"], "worker": ["b:2", "c:3"]},
                                                "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"}))
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert (resolver.task_type, resolver.task_id, resolver.rpc_layer, resolver.environment) == ("worker", 1, "grpc",
                                                                                                None)
    assert resolver.master() == "grpc://c:3" and resolver.master("ps", 0) == "grpc://a:1"
    assert repr(resolver.cluster_spec()) == "ClusterSpec({'ps': ['a:1'], 'worker': ['b:2', 'c:3']})"
    assert resolver.num_accelerators() == {}
    explicit = tf.distribute.cluster_resolver.TFConfigClusterResolver(task_type="ps", task_id=0, rpc_layer="")
    assert explicit.master() == "a:1"
    monkeypatch.setenv("TF_CONFIG", "{}")
    assert (resolver.master(), resolver.task_type, resolver.task_id) == ("", None, None)
    assert resolver.cluster_spec().as_dict() == {}
    monkeypatch.delenv("TF_CONFIG")
    assert resolver.rpc_layer is None


def test_create_local_cluster():
    workers, ps_servers = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        assert len(workers) == 2 and len(ps_servers) == 1
        assert ps_servers[0].server_def.job_name == "ps" and workers[1].server_def.task_index == 1
        with tf.device("/job:ps/task:0"):
            v = tf.Variable([1.0, 2.0])
        with tf.device("/job:worker/task:1"):
            y = v * 3.0
        with tf.Session(workers[0].target) as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(y), [3.0, 6.0])
        workers[1]._stop()  # gone: a session filtered to the PS tasks does not wait for it
        tf.reset_default_graph()
        with tf.device("/job:ps/task:0"):
            z = tf.constant(2.0) * 4.0
        with tf.Session(workers[0].target, config=tf.ConfigProto(device_filters=["/job:ps"])) as sess:
            assert sess.run(z) == 8.0
            assert sorted(d.name for d in sess.list_devices())[0].startswith("/job:ps/replica:0/task:0")
    finally:
        for server in workers + ps_servers:
            server._stop()


@pytest.mark.parametrize("num_ps", [0])
def test_create_local_cluster_without_ps(num_ps):
    workers, ps_servers = tf.test.create_local_cluster(1, num_ps)
    try:
        assert ps_servers == [] and workers[0].server_def.cluster.job[0].name == "worker"
    finally:
        workers[0]._stop()
