"""Failure and recovery across processes on loopback: a parameter server or worker SIGKILLed mid-training
makes the next step fail at once (UnavailableError/AbortedError, never a hang), and MonitoredTrainingSession
recreates its session when the task is back, restoring the latest checkpoint: the training goes on from
that step, with nothing lost before it. Every process started here is killed and reaped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import tensorweave.compat.v1 as tf
from tensorweave.distributed.rpc import free_ports

_SERVER_MAIN = textwrap.dedent("""
    import sys
    import tensorweave.compat.v1 as tf
    sys.stdin.readline()  # a standby process imports first and serves when told
    server = tf.train.Server(eval(sys.argv[1]), job_name=sys.argv[2], task_index=0)
    print("ready", flush=True)
    server.join()
""")


class _Tasks:
    """One server process per job of a cluster, each killable and restartable at its address; a restart
    takes a standby process that has imported already, so it serves at once."""

    def __init__(self) -> None:
        ps, worker = free_ports(2)
        self.cluster = {"ps": [f"127.0.0.1:{ps}"], "worker": [f"127.0.0.1:{worker}"]}
        self._env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        self.processes: dict[str, subprocess.Popen] = {}
        self._standby: dict[str, subprocess.Popen] = {}

    def prepare(self, job: str) -> None:
        """Start a standby process for `job` (it imports in the background)."""
        self._standby[job] = subprocess.Popen([sys.executable, "-c", _SERVER_MAIN, repr(self.cluster), job],
                                              env=self._env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def start(self, job: str) -> None:
        if job not in self._standby:
            self.prepare(job)
        process = self.processes[job] = self._standby.pop(job)
        process.stdin.write("serve\n")
        process.stdin.flush()
        assert process.stdout.readline().strip() == "ready"

    def kill(self, job: str) -> None:
        _reap(self.processes.pop(job))

    def close(self) -> None:
        for process in [*self.processes.values(), *self._standby.values()]:
            _reap(process)
        self.processes.clear()
        self._standby.clear()


def _reap(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stdin.close()
    process.stdout.close()


@pytest.fixture(scope="module")
def tasks():
    """A ps and a worker, shared by the tests here: each leaves both running."""
    cluster = _Tasks()
    try:
        cluster.prepare("ps")
        cluster.prepare("worker")
        cluster.start("ps")
        cluster.start("worker")
        yield cluster
    finally:
        cluster.close()


def _training_graph():
    with tf.device("/job:ps/task:0"):
        gs = tf.train.get_or_create_global_step()
        w = tf.Variable(0.0, name="w")
    with tf.device("/job:worker/task:0"):
        next_step = tf.assign_add(gs, 1)
        with tf.control_dependencies([next_step]):
            next_w = tf.assign_add(w, 1.0)
    return next_step, next_w


def test_a_dead_task_fails_the_step_at_once(tasks):
    next_step, next_w = _training_graph()
    with tf.Session("grpc://" + tasks.cluster["worker"][0]) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(next_w)
        tasks.prepare("ps")
        tasks.kill("ps")
        start = time.monotonic()
        with pytest.raises((tf.errors.UnavailableError, tf.errors.AbortedError)):
            sess.run(next_w)
        assert time.monotonic() - start < 5
    tasks.start("ps")


def test_a_silent_task_fails_the_step_within_seconds(tasks):
    """A task that hangs (SIGSTOP) misses its keep-alive pings: the step fails, and once the task resumes a new
    session works."""
    next_step, next_w = _training_graph()
    ps = tasks.processes["ps"]
    with tf.Session("grpc://" + tasks.cluster["worker"][0]) as sess:
        sess.run(tf.global_variables_initializer())
        ps.send_signal(signal.SIGSTOP)
        try:
            start = time.monotonic()
            with pytest.raises(tf.errors.UnavailableError, match="ping timeout"):
                sess.run(next_w)
            assert time.monotonic() - start < 8
        finally:
            ps.send_signal(signal.SIGCONT)
    with tf.Session("grpc://" + tasks.cluster["worker"][0]) as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(next_w) == 1.0


@pytest.mark.parametrize("victim", ["ps", "worker"])
def test_monitored_training_session_recovers_from_a_killed_task(tasks, tmp_path, victim):
    next_step, next_w = _training_graph()
    tasks.prepare(victim)
    seen = []
    with tf.train.MonitoredTrainingSession(master="grpc://" + tasks.cluster["worker"][0], checkpoint_dir=str(tmp_path),
                                           save_checkpoint_steps=3, save_summaries_steps=None, log_step_count_steps=0,
                                           hooks=[tf.train.StopAtStepHook(last_step=7)]) as sess:
        while not sess.should_stop():
            step, value = sess.run([next_step, next_w])
            seen.append((int(step), float(value)))
            if len(seen) == 4:
                tasks.kill(victim)
                tasks.start(victim)
    # the task died after step 4: training went on from the checkpoint of step 3, w always in step with it
    assert seen == [(1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0), (4, 4.0), (5, 5.0), (6, 6.0), (7, 7.0)]
    assert tf.train.load_variable(str(tmp_path), "w") == 7.0
    assert tf.train.load_variable(str(tmp_path), "global_step") == 7


def test_chief_initializes_and_a_worker_waits_for_its_model():
    workers, ps_servers = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    try:
        next_step, next_w = _training_graph()
        with pytest.raises(tf.errors.DeadlineExceededError, match="^Session was not ready after waiting 0 secs.$"):
            tf.train.MonitoredTrainingSession(master=workers[1].target, is_chief=False, max_wait_secs=0)
        with tf.train.MonitoredTrainingSession(master=workers[0].target, is_chief=True) as chief:
            assert chief.run([next_step, next_w]) == [1, 1.0]
            with tf.train.MonitoredTrainingSession(master=workers[1].target, is_chief=False) as worker:
                assert worker.run([next_step, next_w]) == [2, 2.0]  # the chief's model, not initialized again
            assert chief.run(next_step) == 3
    finally:
        for server in workers + ps_servers:
            server._stop()
