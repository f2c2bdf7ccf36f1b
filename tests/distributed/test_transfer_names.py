"""Two plans of one session that send the same tensor to different devices in a different order: the
`_Send`/`_Recv` nodes partitioning adds are named uniquely over the session (TF's `new_name`), since
stateful kernels are kept per session by node name. With per-plan names the second plan reused the first
plan's `_Send` kernel, which sent to the other device, and the step waited forever (E4's sampled softmax
over 2 PS processes hung so)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.distributed.rpc import free_ports

_STEP_TIMEOUT_MS = 20000  # a regression fails with DeadlineExceededError instead of hanging


def _two_plans(devices: list[str], target: str = "", **config) -> None:
    """`a` on devices[0] goes to devices[2] alone, then to devices[1] and devices[2]."""
    with tf.Graph().as_default():
        with tf.device(devices[0]):
            a = tf.Variable(3.0, name="a")
        with tf.device(devices[1]):
            b = a + 1.0
        with tf.device(devices[2]):
            c = a * 2.0
        config = tf.ConfigProto(operation_timeout_in_ms=_STEP_TIMEOUT_MS, **config)
        with tf.Session(target, config=config) as sess:
            sess.run(a.initializer)
            assert sess.run(c) == 6.0
            np.testing.assert_allclose(sess.run([b, c]), [4.0, 6.0])
            np.testing.assert_allclose(sess.run([c, b]), [6.0, 4.0])


def test_plans_of_a_local_session_with_three_devices():
    _two_plans(["/cpu:0", "/cpu:1", "/cpu:2"], device_count={"CPU": 3})


_PS_MAIN = textwrap.dedent("""
    import sys
    import tensorweave.compat.v1 as tf
    server = tf.train.Server(eval(sys.argv[1]), job_name="ps", task_index=int(sys.argv[2]))
    print("ready", flush=True)
    sys.stdin.read()
""")


@pytest.fixture
def two_ps_processes():
    """A cluster of 2 PS processes and a worker (this process's server); every process is reaped."""
    ports = free_ports(3)
    cluster = {"ps": [f"127.0.0.1:{p}" for p in ports[:2]], "worker": [f"127.0.0.1:{ports[2]}"]}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    processes, server = [], None
    try:
        for task in range(2):
            processes.append(subprocess.Popen([sys.executable, "-c", _PS_MAIN, repr(cluster), str(task)], env=env,
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for process in processes:
            assert process.stdout.readline().strip() == "ready"
        server = tf.train.Server(cluster, job_name="worker", task_index=0)
        yield server
    finally:
        if server is not None:
            server._stop()
        for process in processes:
            process.kill()
            process.wait()
            process.stdin.close()
            process.stdout.close()


def test_plans_across_two_ps_processes(two_ps_processes):
    _two_plans(["/job:worker/task:0", "/job:ps/task:0", "/job:ps/task:1"], two_ps_processes.target)
