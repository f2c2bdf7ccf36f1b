"""Whether a training loop fed by an input pipeline waits on it (issue 22): time blocked in dequeue per step.

A training-like step (a 32 -> 1024 -> 1024 -> 10 MLP, softmax cross-entropy, SGD, on a batch of 32) slower than
reading is fed by the queue pipeline (`workloads.queue_pipeline_batch`, four reader threads) or the tf.data one
(`workloads.data_pipeline_batch`, with prefetch). Each step fetches a batch (`sess.run(batch)`, timed: the time
blocked in dequeue / get_next, which includes the fetch's own cost of a run) and then runs the model step on it
(fed, timed apart). While the pipeline keeps up, the blocked time stays at that fixed cost, far below a step.

    python -m benchmarks.input_wait [--steps N] [--tf-python PATH]

runs tensorweave here and real TensorFlow in a child of `--tf-python` (as benchmarks.workloads does) and
prints, per pipeline and backend, the model step's median and the blocked time's median, mean and 90th
percentile per step.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.workloads import (
    data_pipeline_batch,
    find_tf_python,
    load_backend,
    make_session,
    queue_pipeline_batch,
)

PIPELINES: dict[str, Callable[[Any], Any]] = {"queue": queue_pipeline_batch, "data": data_pipeline_batch}
HIDDEN = 1024
WARMUP_STEPS = 10


def _train_op(tf: Any) -> tuple[Any, Any, Any]:
    """Placeholders for a batch (features [n, 32] float32, labels [n] int64) and an SGD step of the MLP on it."""
    x, y = tf.placeholder(tf.float32, [None, 32]), tf.placeholder(tf.int64, [None])
    h = x
    for i, width in enumerate((HIDDEN, HIDDEN, 10)):
        w = tf.Variable(tf.random_normal([int(h.shape[1]), width], stddev=0.02, seed=i + 1))
        h = tf.matmul(h, w) + tf.Variable(tf.zeros([width]))
        if width != 10:
            h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y % 10, logits=h))
    return x, y, tf.train.GradientDescentOptimizer(0.01).minimize(loss)


def measure(tf: Any, pipeline: str, steps: int) -> dict[str, float]:
    """Seconds: the model step's median and the blocked fetch's median, mean and 90th percentile per step."""
    with tf.Graph().as_default():
        batch = PIPELINES[pipeline](tf)
        features, labels = (batch["x"], batch["y"]) if isinstance(batch, dict) else batch
        x, y, train = _train_op(tf)
        sess = make_session(tf)
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        tf.train.start_queue_runners(sess, coord, daemon=True)
        blocked, step = [], []
        try:
            for i in range(WARMUP_STEPS + steps):
                start = time.perf_counter()
                xb, yb = sess.run([features, labels])
                fetched = time.perf_counter()
                sess.run(train, {x: xb, y: yb})
                if i >= WARMUP_STEPS:
                    blocked.append(fetched - start)
                    step.append(time.perf_counter() - fetched)
        finally:
            coord.request_stop()
            sess.close()
    blocked.sort()
    return {"step": statistics.median(step), "blocked_median": statistics.median(blocked),
            "blocked_mean": statistics.fmean(blocked), "blocked_p90": blocked[int(0.9 * (len(blocked) - 1))]}


def run_backend(backend: str, steps: int) -> dict[str, dict[str, float]]:
    tf = load_backend(backend)
    return {name: measure(tf, name, steps) for name in PIPELINES}


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.input_wait", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100, help="timed steps per pipeline (after a warmup)")
    parser.add_argument("--tf-python", help="python that can import tensorflow")
    parser.add_argument("--backend", choices=("tensorweave", "tensorflow"), help="run one backend only")
    parser.add_argument("--json", action="store_true", help="with --backend: print the results as JSON")
    args = parser.parse_args(argv)
    if args.backend and args.json:
        print(json.dumps(run_backend(args.backend, args.steps)))
        return
    results = {"tensorweave": run_backend("tensorweave", args.steps)}
    python = None if args.backend == "tensorweave" else find_tf_python(args.tf_python)
    if python is not None:
        done = subprocess.run([python, "-m", "benchmarks.input_wait", "--backend", "tensorflow", "--json",
                               "--steps", str(args.steps)], cwd=Path(__file__).resolve().parent.parent,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"TensorFlow child failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
        results["tensorflow"] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{'pipeline':<9}{'backend':<13}{'model step':>12}{'blocked median':>16}{'mean':>11}{'p90':>11}")
    for name in PIPELINES:
        for backend, column in results.items():
            r = column[name]
            print(f"{name:<9}{backend:<13}{_us(r['step']):>12}{_us(r['blocked_median']):>16}"
                  f"{_us(r['blocked_mean']):>11}{_us(r['blocked_p90']):>11}")


if __name__ == "__main__":
    main()
