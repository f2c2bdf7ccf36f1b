"""Issue 9's memory guarantees, measured with tracemalloc (NumPy reports its allocations to it)."""

import gc
import tracemalloc

import numpy as np

import tensorweave.compat.v1 as tf
from benchmarks.memory import training_step_memory


def _peak_during(fn):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return result, peak - before


def test_chain_of_20_ops_on_100mb_peaks_below_three_tensors():
    x = tf.placeholder(tf.float32, shape=[25 * 1024 * 1024])
    y = x
    for i in range(20):
        y = y * 1.0001 if i % 2 else y + 0.5
    data = np.ones(25 * 1024 * 1024, np.float32)  # 100 MB
    with tf.Session() as sess:
        sess.run(y, {x: data})  # builds the plan
        result, peak = _peak_during(lambda: sess.run(y, {x: data}))
    assert result.shape == data.shape
    assert peak < 3 * data.nbytes, f"peak {peak / data.nbytes:.2f} tensors"


def test_ten_thousand_small_steps_leave_memory_flat():
    x = tf.placeholder(tf.float32, shape=[16])
    v = tf.Variable(tf.zeros([16]))
    step = tf.assign_add(v, x * 2.0 + 1.0)
    data = np.ones(16, np.float32)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for _ in range(1000):
            sess.run(step, {x: data})
        tracemalloc.start()
        try:
            for _ in range(1000):
                sess.run(step, {x: data})
            gc.collect()  # cyclic garbage left by earlier tests is not the steps' growth
            start = tracemalloc.get_traced_memory()[0]
            for _ in range(10000):
                sess.run(step, {x: data})
            gc.collect()
            growth = tracemalloc.get_traced_memory()[0] - start
        finally:
            tracemalloc.stop()
    assert growth < 16 * 1024, f"grew {growth} bytes over 10,000 steps"


def test_fetched_values_are_handed_over_not_kept():
    """After a step returns, the runtime holds no reference to what it fetched."""
    import weakref

    x = tf.placeholder(tf.float32, shape=[1000])
    y = x * 2.0
    with tf.Session() as sess:
        out = sess.run(y, {x: np.ones(1000, np.float32)})
        ref = weakref.ref(out)
        del out
        assert ref() is None


def test_no_shortcuts_every_run_executes_every_kernel():
    noise = tf.random_uniform([4])
    counter = tf.Variable(0)
    tick = tf.assign_add(counter, 1)
    x = tf.placeholder(tf.float32)
    doubled = x * 2.0
    with tf.Session() as sess:
        sess.run(counter.initializer)
        draws = [sess.run(noise) for _ in range(3)]
        assert not np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[1], draws[2])
        assert [sess.run(tick) for _ in range(3)] == [1, 2, 3]
        assert [sess.run(doubled, {x: v}) for v in (1.0, 2.0, 3.0)] == [2.0, 4.0, 6.0]
        later = doubled + 1.0  # the graph grows after the first run
        assert sess.run(later, {x: 5.0}) == 11.0


def test_an_mlp_training_step_holds_no_more_than_its_activations_gradients_and_parameters():
    step = training_step_memory(tf)  # the mlp_train workload: 784-1024-1024-10, batch 256, SGD
    assert step["peak"] <= step["activations"] + step["gradients"], {k: v / 2**20 for k, v in step.items()}
