"""Memory behaviour of Session.run, measured with tracemalloc (NumPy reports its buffers to it).

(a) a tensor is freed once its last consumer has run: a chain of elementwise ops peaks below 3 tensors' worth
of new memory; (b) repeated runs leave nothing behind: memory is flat from 1,000 to 10,000 runs; (c) a fetched
variable value is a copy that later updates do not change; (d) a training step of the MLP workload
(784-1024-1024-10, batch 256, SGD) holds no more than its activations, its gradients and one copy of the
parameters (the variables themselves): its peak new memory is at most the activations' and gradients' size.
The functions take the TF1 module, so tests can call them with small sizes. Real TensorFlow allocates
outside tracemalloc's view, so (a) and (d) read low there.
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc
from typing import Any

import numpy as np

from benchmarks.workloads import MLP_BATCH, MLP_SIZES, load_backend, make_session, mlp_graph

PEAK_TARGET_TENSORS = 3.0
FLAT_TARGET_BYTES = 16 * 1024
CHAIN_ELEMENTS = 100 * (1 << 20) // 4


def peak_chain_memory(tf: Any, n_ops: int = 20, n_elements: int = CHAIN_ELEMENTS) -> float:
    """Peak new memory during one run of n_ops alternating `* 1.0001` / `+ 0.5` ops, in units of the fed tensor."""
    data = np.ones(n_elements, np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[n_elements])
        y = x
        for i in range(n_ops):
            y = y * 1.0001 if i % 2 == 0 else y + 0.5
        with tf.Session() as sess:
            sess.run(y, feed_dict={x: data})
            gc.collect()
            tracemalloc.start()
            try:
                before, _ = tracemalloc.get_traced_memory()
                sess.run(y, feed_dict={x: data})
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    return (peak - before) / data.nbytes


def memory_growth(tf: Any, runs: int, warmup: int = 100) -> int:
    """Bytes still allocated after `runs` runs of a small feed/fetch/update step, relative to after the warmup."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[16])
        y = x * 2.0 + 1.0
        counter = tf.Variable(tf.zeros([16]))
        increment = tf.assign_add(counter, tf.ones([16]))
        data = np.arange(16, dtype=np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(warmup):
                sess.run([y, increment.op], feed_dict={x: data})
            gc.collect()
            tracemalloc.start()
            try:
                before, _ = tracemalloc.get_traced_memory()
                for _ in range(runs):
                    sess.run([y, increment.op], feed_dict={x: data})
                gc.collect()
                after, _ = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    return after - before


def fetched_value_is_copy(tf: Any) -> bool:
    """Whether a fetched variable value stays as it was after a later assign_add, as in TF."""
    with tf.Graph().as_default():
        v = tf.Variable(tf.zeros([4]))
        increment = tf.assign_add(v, tf.ones([4]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            fetched = sess.run(v)
            sess.run(increment.op)
            return bool(np.array_equal(fetched, np.zeros(4, np.float32))) and float(sess.run(v)[0]) == 1.0


def training_step_memory(tf: Any, sizes: tuple[int, ...] = MLP_SIZES, batch: int = MLP_BATCH) -> dict[str, int]:
    """Bytes of one MLP training step: `peak`, the peak new memory during the step (its variables already
    allocated), beside the analytic sizes: `parameters` (weights and biases), `gradients` (one per
    parameter) and `activations` (each layer's output, which its gradient reads: batch x units per layer)."""
    itemsize = np.dtype(np.float32).itemsize
    parameters = sum(n_in * n_out + n_out for n_in, n_out in zip(sizes, sizes[1:])) * itemsize
    with tf.Graph().as_default():
        train_op, feeds = mlp_graph(tf, sizes, batch)
        sess = make_session(tf)
        try:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op, feed_dict=feeds)  # builds the plan
            gc.collect()
            tracemalloc.start()
            try:
                before, _ = tracemalloc.get_traced_memory()
                sess.run(train_op, feed_dict=feeds)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
        finally:
            sess.close()
    return {"peak": peak - before, "parameters": parameters, "gradients": parameters,
            "activations": batch * sum(sizes[1:]) * itemsize}


def main(argv: list[str] | None = None) -> None:
    """Print the three memory checks for one backend and whether each holds."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.memory", description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("tensorweave", "tensorflow"), default="tensorweave")
    parser.add_argument(
        "--megabytes", type=int, default=100, help="size of the chain's fed tensor (default 100)"
    )
    args = parser.parse_args(argv)
    tf = load_backend(args.backend)

    peak = peak_chain_memory(tf, n_elements=args.megabytes * (1 << 20) // 4)
    print(
        f"(a) 20-op chain on {args.megabytes} MB: peak new memory {peak:.2f} tensors "
        f"(target < {PEAK_TARGET_TENSORS:g}): {'holds' if peak < PEAK_TARGET_TENSORS else 'FAILS'}"
    )
    short, long = memory_growth(tf, 1_000), memory_growth(tf, 10_000)
    growth = long - short
    print(
        f"(b) retained after 1,000 runs {short} B, after 10,000 runs {long} B: growth {growth} B "
        f"(target flat, < {FLAT_TARGET_BYTES} B): {'holds' if growth < FLAT_TARGET_BYTES else 'FAILS'}"
    )
    copied = fetched_value_is_copy(tf)
    print(f"(c) fetched variable value unchanged by a later assign_add: {'holds' if copied else 'FAILS'}")
    step = training_step_memory(tf)
    bound = step["activations"] + step["gradients"]
    mb = 1 << 20
    print(
        f"(d) MLP {'-'.join(map(str, MLP_SIZES))} training step, batch {MLP_BATCH}: peak new memory "
        f"{step['peak'] / mb:.2f} MB; activations {step['activations'] / mb:.2f} MB + gradients "
        f"{step['gradients'] / mb:.2f} MB = {bound / mb:.2f} MB, beside the parameters' one copy "
        f"({step['parameters'] / mb:.2f} MB): {'holds' if step['peak'] <= bound else 'FAILS'}"
    )
    if args.backend == "tensorflow":
        print(
            "note: TensorFlow's allocator is invisible to tracemalloc; (a), (b) and (d) see only Python-side memory."
        )


if __name__ == "__main__":
    main()
