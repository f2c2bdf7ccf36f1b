"""`python -m tensorweave.distributed.launch --ps 2 --workers 3 PROGRAM.py [args]`: a local cluster of
processes, one per task, each running PROGRAM.py.

Every task gets a free port on the host (loopback by default) and learns the cluster and its own task two
ways, as TF1 programs expect: the flags of TF's distributed examples (`--job_name`, `--task_index`,
`--ps_hosts`, `--worker_hosts`, `--chief_hosts` with `--chief`), put before the program's own arguments,
and `TF_CONFIG` (the Kubeflow TFJob convention `TFConfigClusterResolver` reads). Each line a task prints
is streamed with a `[job:index]` prefix. The launcher ends when every worker (and the chief) has exited,
or at the first one that fails; then, and on Ctrl-C or SIGTERM, it stops every task it started (SIGTERM,
then SIGKILL after a grace period) and waits for each, so no process outlives it. Its exit status is the
first failing task's (130 after Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO

from tensorweave.distributed.rpc import free_ports

_GRACE_SECS = 5.0
_POLL_SECS = 0.05


def cluster_of(num_ps: int, num_workers: int, chief: bool = False, host: str = "127.0.0.1") -> dict[str, list[str]]:
    """Job -> addresses on free ports of `host` (jobs with no task left out)."""
    counts = {"chief": int(chief), "ps": num_ps, "worker": num_workers}
    ports = iter(free_ports(sum(counts.values()), host))
    return {job: [f"{host}:{next(ports)}" for _ in range(count)] for job, count in counts.items() if count}


def task_command(program: str, args: Sequence[str], cluster: dict[str, list[str]], job: str,
                 index: int) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of one task."""
    flags = [f"--job_name={job}", f"--task_index={index}"]
    flags += [f"--{name}_hosts={','.join(cluster[name])}" for name in ("chief", "ps", "worker") if name in cluster]
    env = {**os.environ, "PYTHONUNBUFFERED": "1",
           "TF_CONFIG": json.dumps({"cluster": cluster, "task": {"type": job, "index": index}})}
    return [sys.executable, program, *flags, *args], env


class _Task:
    """One started task, its output streamed with a prefix by a thread of its own."""

    def __init__(self, job: str, index: int, command: list[str], env: dict[str, str], out: IO[str],
                 lock: threading.Lock) -> None:
        self.job, self.index = job, index
        self.name = f"{job}:{index}"
        # a session of its own: a Ctrl-C reaches the launcher only, which stops the task
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, bufsize=1, start_new_session=True)
        self._thread = threading.Thread(target=self._stream, args=(out, lock), daemon=True,
                                        name=f"launch-{self.name}")
        self._thread.start()

    def _stream(self, out: IO[str], lock: threading.Lock) -> None:
        for line in self.process.stdout:
            text = line.rstrip("\n")
            with lock:
                out.write(f"[{self.name}] {text}\n")
                out.flush()

    def signal(self, signum: int) -> None:
        """Signal the task's process group (the task and what it started), if it still runs."""
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signum)
            except ProcessLookupError:
                pass

    def reap(self) -> None:
        self.process.wait()
        self._thread.join()
        self.process.stdout.close()


def _stop(tasks: list[_Task]) -> None:
    """SIGTERM every task still running, SIGKILL those left after the grace period, and wait for all."""
    for task in tasks:
        task.signal(signal.SIGTERM)
    deadline = time.monotonic() + _GRACE_SECS
    while any(task.process.poll() is None for task in tasks) and time.monotonic() < deadline:
        time.sleep(_POLL_SECS)
    for task in tasks:
        task.signal(signal.SIGKILL)
    for task in tasks:
        task.reap()


def launch(program: str, args: Sequence[str], num_ps: int, num_workers: int, chief: bool = False,
           host: str = "127.0.0.1", out: IO[str] | None = None) -> int:
    """Run the cluster until its workers are done; the exit status (see the module docstring)."""
    out = out or sys.stdout
    lock = threading.Lock()
    cluster = cluster_of(num_ps, num_workers, chief, host)
    tasks: list[_Task] = []
    status = 0
    try:
        for job, addresses in cluster.items():
            for index in range(len(addresses)):
                tasks.append(_Task(job, index, *task_command(program, args, cluster, job, index), out, lock))
        finishers = [task for task in tasks if task.job != "ps"] or tasks
        while True:
            codes = [task.process.poll() for task in finishers]
            failed = [code for code in codes if code]
            if failed:
                status = failed[0]
                break
            if all(code is not None for code in codes):
                break
            time.sleep(_POLL_SECS)
    except KeyboardInterrupt:
        status = 130
    finally:
        _stop(tasks)
    return status


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorweave.distributed.launch",
                                     description="Run PROGRAM once per task of a local cluster.")
    parser.add_argument("--ps", type=int, default=1, help="parameter-server tasks (default 1)")
    parser.add_argument("--workers", type=int, default=1, help="worker tasks (default 1)")
    parser.add_argument("--chief", action="store_true", help="add a 'chief' job of one task")
    parser.add_argument("--host", default="127.0.0.1", help="the address every task binds (default loopback)")
    parser.add_argument("program", help="the Python program each task runs")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the program's own arguments")
    options = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    return launch(options.program, options.args, options.ps, options.workers, options.chief, options.host)


if __name__ == "__main__":
    sys.exit(main())
