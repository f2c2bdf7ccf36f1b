"""The OSDI distributed experiments at loopback scale (issue 23 part 6; ../shared/PAPERS.md §3 E2-E4).

`python -m benchmarks.distributed [--quick | --full] [--only e2 e3 e4] [--plot PATH]` starts one local
cluster of processes on free loopback ports (PS tasks that only serve, worker tasks that each build their
own graph under `replica_device_setter`: between-graph replication) and drives the workers through JSON
lines on their stdin. Every child exits when its stdin closes, and the parent terminates, then kills, them
all on exit or error, so nothing outlives a run.

- E2 null step: each step a worker reads every PS shard, adds 1 and writes it back (scalar, dense 1 MB and
  10 MB), or looks up 32 rows of a sharded 10 MB / 160 MB embedding and applies the sparse gradient;
  median/p10/p90 step time vs workers (N1-N3), and the scalar step of 1 worker + 1 PS against its 2 ms target.
- E3 async vs sync (`SyncReplicasOptimizer`) throughput and step percentiles with emulated compute (a sleep)
  and injected stragglers (a worker-step sleeps 4x as long with probability 0.1), then backup workers
  b = 0..B with the normalized speedup t(0)/t(b) * m/(m+b) (I1-I3).
- E4 full softmax (each shard's matmul on its PS) vs sampled softmax over 1, 2, 4 PS shards (L1-L3).

A plot image is written when matplotlib (not a dependency of tensorweave) is importable.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

import tensorweave.compat.v1 as tf
from tensorweave.distributed.rpc import free_ports

NULL_STEP_TARGET_MS = 2.0
MB = 1 << 20
EMBED_WIDTH = 64
SPARSE_ROWS = 32
COMMAND_TIMEOUT_S = 60.0


# -- the cluster (parent side) ----------------------------------------------------------------------------


class Cluster:
    """PS and worker processes of one ClusterSpec; workers answer one JSON line per command."""

    def __init__(self, num_ps: int, num_workers: int) -> None:
        ports = free_ports(num_ps + num_workers)
        self.spec = {"ps": [f"127.0.0.1:{p}" for p in ports[:num_ps]],
                     "worker": [f"127.0.0.1:{p}" for p in ports[num_ps:]]}
        self.processes: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []

    def start(self) -> None:
        """Start every task and wait until each worker has its server up."""
        # one BLAS thread per task unless asked otherwise: OpenBLAS's threads spin while idle, and those of a
        # dozen processes on a few cores starve each other (E4's 4-PS full softmax took 4 s a step, not 0.14 s)
        env = {"GRPC_VERBOSITY": "ERROR", "OPENBLAS_NUM_THREADS": "1", **os.environ,
               "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        for job in ("ps", "worker"):
            for task in range(len(self.spec[job])):
                process = subprocess.Popen(
                    [sys.executable, "-m", "benchmarks.distributed", "--serve", job, str(task), json.dumps(self.spec)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
                self.processes.append(process)
                if job == "worker":
                    self.workers.append(process)
        for worker in self.workers:
            self._reply(worker)

    def stop(self) -> None:
        """Reap every process: close its stdin (it exits), terminate, then kill what lingers."""
        for process in self.processes:
            with contextlib.suppress(OSError):
                process.stdin.close()
        deadline = time.monotonic() + 5
        for process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            process.stdout.close()

    def pids(self) -> list[int]:
        """The children's process ids (tests check they are gone)."""
        return [p.pid for p in self.processes]

    @staticmethod
    def _reply(worker: subprocess.Popen, timeout: float = COMMAND_TIMEOUT_S) -> dict:
        """The worker's reply line; TimeoutError when none comes in time (a step that hangs fails the run)."""
        if not select.select([worker.stdout], [], [], timeout)[0]:
            raise TimeoutError(f"worker {worker.pid} did not answer within {timeout:.0f} s")
        line = worker.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {worker.pid} exited with {worker.wait()}")
        reply = json.loads(line)
        if "error" in reply:
            raise RuntimeError(f"worker {worker.pid}: {reply['error']}")
        return reply

    def command(self, count: int, **command: Any) -> list[dict]:
        """Send one command to workers 0..count-1 at once and collect their replies."""
        for task in range(count):
            self.workers[task].stdin.write(json.dumps({**command, "task": task, "num_workers": count}) + "\n")
            self.workers[task].stdin.flush()
        return [self._reply(self.workers[task]) for task in range(count)]

    def experiment(self, count: int, **build: Any) -> list[dict]:
        """Build a configuration on `count` workers (chief initializes, the rest wait), run it, drop it
        (a run that failed leaves it: its workers are past answering)."""
        self.command(count, op="build", **build)
        replies = self.command(count, op="run")
        self.command(count, op="close")
        return replies


@contextlib.contextmanager
def local_cluster(num_ps: int, num_workers: int) -> Iterator[Cluster]:
    """A started `Cluster`, always reaped."""
    cluster = Cluster(num_ps, num_workers)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


# -- the worker (child side) ------------------------------------------------------------------------------


class _Worker:
    """One worker task: builds each configuration's graph in its own container and times its steps."""

    def __init__(self, spec: dict, task: int) -> None:
        self.task = task
        self.server = tf.train.Server(spec, job_name="worker", task_index=task)
        self.state: dict[str, Any] = {}

    def handle(self, command: dict) -> dict:
        op = command["op"]
        if op == "build":
            return self.build(command)
        if op == "run":
            return self.state["run"]()
        self.state["coord"].request_stop()
        self.state["sess"].close()
        self.state = {}
        return {}

    def _setter(self, num_ps: int) -> Any:
        return tf.train.replica_device_setter(ps_tasks=num_ps, worker_device=f"/job:worker/task:{self.task}")

    def build(self, c: dict) -> dict:
        graph = tf.Graph()
        with graph.as_default(), tf.container(c["key"]), tf.device(self._setter(c["num_ps"])):
            builder = {"null": self._null, "train": self._train, "softmax": self._softmax}[c["exp"]]
            step, feed, hook, finish = builder(c)
            init = tf.global_variables_initializer()
            ready = tf.report_uninitialized_variables(tf.global_variables())
        sess = tf.Session(self.server.target, graph=graph)
        coord = tf.train.Coordinator()
        if c["task"] == 0:
            sess.run(init)
        while sess.run(ready).size:
            time.sleep(0.01)
        if hook is not None:
            hook.after_create_session(sess, coord)
        self.state = {"sess": sess, "coord": coord,
                      "run": lambda: self._loop(sess, step, feed, c, finish)}
        return {}

    def _loop(self, sess: Any, step: Any, feed: Any, c: dict, finish: Any) -> dict:
        """Warm up, then time steps (sync training until its global step reaches the target); `finish` is
        run once afterwards and its value reported as "after"."""
        rng = np.random.default_rng(1000 + self.task)
        for _ in range(c.get("warmup", 2)):
            sess.run(step, feed_dict=feed(rng))
        times, token, start = [], 0, time.time()
        sleep, straggle = c.get("compute_s", 0.0), c.get("straggle_p", 0.0)
        while (token < c["steps"]) if c.get("sync") else (len(times) < c["steps"]):
            t0 = time.perf_counter()
            if sleep:
                time.sleep(sleep * (4 if rng.random() < straggle else 1))
            token = sess.run(step, feed_dict=feed(rng))
            times.append(time.perf_counter() - t0)
        end = time.time()
        after = None if finish is None else sess.run(finish, feed_dict=feed(rng))
        return {"times": times, "start": start, "end": end, "after": None if after is None else int(after)}

    def _null(self, c: dict) -> tuple:
        """N1-N3: read each shard, +1, write back; or a sparse lookup and its IndexedSlices update."""
        kind, num_ps = c["kind"], c["num_ps"]
        if kind == "sparse":
            rows = c["bytes"] // (4 * EMBED_WIDTH)
            table = tf.get_variable("table", [rows, EMBED_WIDTH], initializer=tf.zeros_initializer(),
                                    partitioner=tf.fixed_size_partitioner(num_ps))
            ids = tf.placeholder(tf.int64, [SPARSE_ROWS])
            loss = tf.reduce_sum(tf.nn.embedding_lookup(table, ids))
            step = tf.train.GradientDescentOptimizer(0.0).minimize(loss)
            return step, lambda rng: {ids: rng.integers(0, rows, SPARSE_ROWS)}, None, None
        if kind == "scalar":
            shards = [tf.get_variable(f"s{i}", [], initializer=tf.zeros_initializer()) for i in range(num_ps)]
        else:
            shards = list(tf.get_variable("dense", [c["bytes"] // 4], initializer=tf.zeros_initializer(),
                                          partitioner=tf.fixed_size_partitioner(num_ps)))
        step = tf.group(*[tf.assign(v, tf.identity(v) + 1.0) for v in shards])
        return step, lambda rng: None, None, None

    def _train(self, c: dict) -> tuple:
        """E3's model: a small dense layer (its compute emulated by the loop's sleep), async or sync SGD."""
        global_step = tf.train.get_or_create_global_step()
        w = tf.get_variable("w", [256, 16], initializer=tf.zeros_initializer())
        x = tf.constant(np.random.default_rng(0).standard_normal((32, 256)).astype(np.float32))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
        opt = tf.train.GradientDescentOptimizer(0.01)
        hook = finish = None
        if c.get("sync"):
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=c["aggregate"],
                                                 total_num_replicas=c["num_workers"])
        step = opt.minimize(loss, global_step=global_step)
        if c.get("sync"):
            hook = opt.make_session_run_hook(c["task"] == 0)
            hook.begin()
            queue = opt._sync_token_queue  # enough tokens that no replica waits for a step that will not come
            with tf.device(queue.queue_ref.device):
                finish = queue.enqueue_many(
                    [tf.fill([2 * c["num_workers"]], tf.constant(c["steps"], global_step.dtype.base_dtype))])
        return step, lambda rng: None, hook, finish

    def _softmax(self, c: dict) -> tuple:
        """E4: hidden states times [H, V] softmax weights sharded over the PS tasks: full (each shard's
        matmul on its PS, then concat) or sampled (512 classes); "after" counts the rows the sampled
        gradient of the weights touches (L3)."""
        batch, hidden, vocab = c["batch"], c["hidden"], c["vocab"]
        weights = tf.get_variable("softmax_w", [vocab, hidden], initializer=tf.zeros_initializer(),
                                  partitioner=tf.fixed_size_partitioner(c["num_ps"]))
        biases = tf.get_variable("softmax_b", [vocab], initializer=tf.zeros_initializer())
        inputs = tf.get_variable("h", [batch, hidden], initializer=tf.ones_initializer())
        h = tf.tanh(inputs)
        labels = tf.placeholder(tf.int64, [batch, 1])
        if c["sampled"]:
            loss = tf.reduce_mean(tf.nn.sampled_softmax_loss(weights, biases, labels, h, num_sampled=512,
                                                             num_classes=vocab))
        else:
            logits = []
            for shard in weights:
                with tf.device(shard.device):
                    logits.append(tf.matmul(h, shard, transpose_b=True))
            logits = tf.concat(logits, 1) + biases
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels[:, 0], logits=logits))
        opt = tf.train.GradientDescentOptimizer(0.1)
        grads = opt.compute_gradients(loss, colocate_gradients_with_ops=True)
        step = opt.apply_gradients(grads)
        shards = {id(shard) for shard in weights}
        rows = [tf.size(g.indices) for g, v in grads if isinstance(g, tf.IndexedSlices) and id(v) in shards]
        return step, lambda rng: {labels: rng.integers(0, vocab, (batch, 1))}, None, tf.add_n(rows) if rows else None


def serve(job: str, task: int, spec: dict) -> None:
    """A child's main: a PS serves until stdin closes; a worker also answers commands line by line."""
    if job == "ps":
        server = tf.train.Server(spec, job_name="ps", task_index=task)
        sys.stdin.read()
        server._stop()
        return
    worker = _Worker(spec, task)
    print(json.dumps({}), flush=True)
    for line in sys.stdin:
        try:
            reply = worker.handle(json.loads(line))
        except Exception as error:  # reported to the parent, which raises it
            reply = {"error": f"{type(error).__name__}: {error}"}
        print(json.dumps(reply), flush=True)
    worker.server._stop()


# -- the experiments --------------------------------------------------------------------------------------


def _percentiles(times: list[float]) -> tuple[float, float, float]:
    p10, p50, p90 = np.percentile(np.asarray(times) * 1e3, [10, 50, 90])
    return float(p10), float(p50), float(p90)


def _table(title: str, header: list[str], rows: list[list[Any]]) -> str:
    cells = [header] + [[f"{v:.2f}" if isinstance(v, float) else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [title] + ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
    return "\n".join(lines)


E2_KINDS = [("scalar", "scalar", 0, 40), ("dense 1MB", "dense", MB, 15), ("dense 10MB", "dense", 10 * MB, 6),
            ("sparse 10MB", "sparse", 10 * MB, 30), ("sparse 160MB", "sparse", 160 * MB, 30)]


def run_e2(cluster: Cluster, workers: list[int], num_ps: int, kinds: list = E2_KINDS, scale: float = 1.0) -> dict:
    """E2 rows: (kind, W) -> p10/p50/p90 ms and aggregate steps/s; plus the 1 worker + 1 PS scalar step."""
    results: dict = {}
    key = 0
    for name, kind, size, steps in kinds:
        for count in workers:
            key += 1
            replies = cluster.experiment(count, key=f"e2_{key}", exp="null", kind=kind, bytes=size,
                                         num_ps=num_ps, steps=max(3, int(steps * scale)))
            times = [t for r in replies for t in r["times"]]
            wall = max(r["end"] for r in replies) - min(r["start"] for r in replies)
            results[(name, count)] = (*_percentiles(times), len(times) / wall)
    replies = cluster.experiment(1, key="e2_null", exp="null", kind="scalar", bytes=0, num_ps=1,
                                 steps=max(20, int(200 * scale)), warmup=10)
    results[("null 1w+1ps", 1)] = (*_percentiles(replies[0]["times"]), 0.0)
    return results


def print_e2(results: dict, num_ps: int) -> None:
    rows = [[name, count, *values[:3], values[3]] for (name, count), values in results.items()
            if not name.startswith("null")]
    print(_table(f"E2 null step, {num_ps} PS (ms; steps/s over all workers)",
                 ["model", "W", "p10", "median", "p90", "steps/s"], rows))
    p10, p50, p90, _ = results[("null 1w+1ps", 1)]
    verdict = "met" if p50 <= NULL_STEP_TARGET_MS else "missed"
    print(f"scalar null step, 1 worker + 1 PS: median {p50:.2f} ms (p10 {p10:.2f}, p90 {p90:.2f}); "
          f"target <= {NULL_STEP_TARGET_MS:.0f} ms: {verdict}\n")


def _train_stats(replies: list[dict], sync: bool, steps: int, aggregate: int) -> dict:
    """Step percentiles over every worker-step; gradients applied per second (sync: m per global step) and
    the time per global step, t, that the backup-worker speedup compares."""
    times = [t for r in replies for t in r["times"]]
    wall = max(r["end"] for r in replies) - min(r["start"] for r in replies)
    updates = steps if sync else len(times)
    p10, p50, p90 = _percentiles(times)
    return {"p10": p10, "p50": p50, "p90": p90, "grads/s": updates * (aggregate if sync else 1) / wall,
            "t": wall / updates * 1e3, "sent": len(times), "updates": updates}


def run_e3(cluster: Cluster, workers: int, aggregate: int, backups: list[int], steps: int,
           compute_s: float, straggle_p: float) -> dict:
    """E3: async vs sync with W workers, then sync m=aggregate with b backups (n = m + b workers)."""
    common = dict(exp="train", num_ps=1, compute_s=compute_s, straggle_p=straggle_p, warmup=1)
    out: dict = {"modes": {}, "backups": {}}
    for mode in ("async", "sync"):
        sync = mode == "sync"
        replies = cluster.experiment(workers, key=f"e3_{mode}", sync=sync, aggregate=workers, steps=steps, **common)
        out["modes"][mode] = _train_stats(replies, sync, steps, workers)
    for b in backups:
        replies = cluster.experiment(aggregate + b, key=f"e3_b{b}", sync=True, aggregate=aggregate, steps=steps,
                                     **common)
        out["backups"][b] = _train_stats(replies, True, steps, aggregate)
    return out


def print_e3(out: dict, workers: int, aggregate: int) -> None:
    rows = [[mode, s["grads/s"], s["p10"], s["p50"], s["p90"]] for mode, s in out["modes"].items()]
    print(_table(f"E3 sync vs async, W={workers}, 1 PS, stragglers (gradients applied/s; worker-step ms)",
                 ["mode", "grads/s", "p10", "median", "p90"], rows))
    t0 = out["backups"][min(out["backups"])]["t"]
    rows = []
    for b, s in out["backups"].items():
        speedup = t0 / s["t"] * aggregate / (aggregate + b)
        dropped = s["sent"] - aggregate * s["updates"]
        rows.append([b, aggregate + b, s["t"], s["p50"], s["p90"], speedup, s["sent"], dropped])
    print(_table(f"E3 backup workers, m={aggregate} (t(b) = ms per global step; normalized speedup "
                 "t(0)/t(b)*m/(m+b); worker-step median/p90 ms; gradients not applied = sent - m*steps)",
                 ["b", "n", "t(b)", "median", "p90", "norm.speedup", "grads sent", "not applied"], rows))
    print()


def run_e4(cluster: Cluster, shards: list[int], steps: int, vocab: int) -> dict:
    """E4: words/s of the full and the sampled softmax, 1 worker, over P PS shards."""
    out: dict = {}
    for sampled in (False, True):
        for num_ps in shards:
            replies = cluster.experiment(1, key=f"e4_{sampled}_{num_ps}", exp="softmax", sampled=sampled,
                                         num_ps=num_ps, batch=32, hidden=64, vocab=vocab, steps=steps)
            p10, p50, p90 = _percentiles(replies[0]["times"])
            out[("sampled" if sampled else "full", num_ps)] = (p50, 32 / (p50 / 1e3), replies[0]["after"])
    return out


def print_e4(out: dict, vocab: int) -> None:
    rows = [[kind, p, p50, wps, "dense" if touched is None else touched] for (kind, p), (p50, wps, touched) in out.items()]
    print(_table(f"E4 softmax over V={vocab}, H=64, batch 32, 1 worker (median step ms; words/s; rows of the "
                 "weights' gradient: IndexedSlices rows, or dense)",
                 ["softmax", "PS", "median", "words/s", "grad rows"], rows))
    print()


def plot(path: str, e2: dict | None, e3: dict | None, e4: dict | None) -> bool:
    """Write the figures when matplotlib is importable (it is not a dependency); False otherwise."""
    try:
        import matplotlib  # optional: only the plot needs it
    except ImportError:
        return False
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(1, 3, figsize=(15, 4))
    if e2:
        for name in dict.fromkeys(n for n, _ in e2 if not n.startswith("null")):
            points = sorted((w, v[1]) for (n, w), v in e2.items() if n == name)
            axes[0].plot(*zip(*points), marker="o", label=name)
        axes[0].set(xlabel="workers", ylabel="median step (ms)", yscale="log", title="E2 null step")
        axes[0].legend()
    if e3:
        points = sorted((b, s["t"]) for b, s in e3["backups"].items())
        axes[1].plot(*zip(*points), marker="o")
        axes[1].set(xlabel="backup workers b", ylabel="ms per global step", title="E3 backup workers")
    if e4:
        for kind in ("full", "sampled"):
            points = sorted((p, v[1]) for (k, p), v in e4.items() if k == kind)
            axes[2].plot(*zip(*points), marker="o", label=kind)
        axes[2].set(xlabel="PS shards", ylabel="words/s", title="E4 softmax")
        axes[2].legend()
    figure.tight_layout()
    figure.savefig(path)
    return True


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", nargs=3, metavar=("JOB", "TASK", "SPEC"), help=argparse.SUPPRESS)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="W up to 4, few steps (about 2 minutes)")
    size.add_argument("--full", action="store_true", help="W up to 8, more steps")
    parser.add_argument("--only", nargs="+", choices=["e2", "e3", "e4"], default=["e2", "e3", "e4"])
    parser.add_argument("--plot", default="distributed.png", help="image path (needs matplotlib)")
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve[0], int(args.serve[1]), json.loads(args.serve[2]))
        return
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))  # reap the cluster on kill too
    max_workers = 8 if args.full else 4
    scale = 0.5 if args.quick else (2.0 if args.full else 1.0)
    e2 = e3 = e4 = None
    aggregate = 4 if args.full else 2
    with local_cluster(num_ps=4, num_workers=max_workers) as cluster:
        if "e2" in args.only:
            workers = [1, 2, 4, 8] if args.full else [1, 2, 4]
            e2 = run_e2(cluster, workers, num_ps=4, scale=scale)
            print_e2(e2, 4)
        if "e3" in args.only:
            e3 = run_e3(cluster, workers=4, aggregate=aggregate, backups=list(range(4 if args.full else 3)),
                        steps=int(40 * scale), compute_s=0.03, straggle_p=0.1)
            print_e3(e3, 4, aggregate)
        if "e4" in args.only:
            e4 = run_e4(cluster, [1, 2, 4], steps=max(5, int(10 * scale)), vocab=40000)
            print_e4(e4, 40000)
    if plot(args.plot, e2, e3, e4):
        print(f"plot written to {args.plot}")
    else:
        print("matplotlib is not importable (it is no dependency of tensorweave): no plot written")


if __name__ == "__main__":
    main()
