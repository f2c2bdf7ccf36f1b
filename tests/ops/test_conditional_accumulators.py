"""ConditionalAccumulator and SparseConditionalAccumulator: averaging, stale gradients dropped, the global
step, takes that wait for enough gradients, and TF's errors (messages recorded from real TF 2.21)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_dense_accumulator_averages_and_drops_stale_gradients():
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    assert (acc.name, acc.accumulator_ref.op.type, acc.accumulator_ref.shape.as_list()) == (
        "conditional_accumulator", "ResourceConditionalAccumulator", [2])
    take = acc.take_grad(2)
    assert take.shape.as_list() == [2]
    assert acc.num_accumulated().name == "conditional_accumulator_NumAccumulated:0"
    with pytest.raises(ValueError, match=r"Shapes \(1, 2\) and \(2,\) are incompatible"):
        acc.apply_grad([[1.0, 2.0]])
    with tf.Session() as sess:
        sess.run([acc.apply_grad([1.0, 2.0]), acc.apply_grad([2.0, 5.0])])
        sess.run(acc.apply_grad([2.0, 5.0], local_step=-1))
        assert sess.run(acc.num_accumulated()) == 2
        np.testing.assert_array_equal(sess.run(take), [1.5, 3.5])
        sess.run(acc.apply_grad([2.0, 5.0], local_step=0))  # global step is 1 now: stale
        assert sess.run(acc.num_accumulated()) == 0
        sess.run(acc.set_global_step(10))
        sess.run(acc.apply_grad([1.0, 1.0], local_step=9))
        assert sess.run(acc.num_accumulated()) == 0
        sess.run(acc.set_global_step(0))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape mismatch: expected \[2\], got \[3\]"):
            sess.run(acc.apply_grad(tf.placeholder_with_default([1.0, 2.0, 3.0], [None])))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Argument num_required must be positive, but was 0"):
            sess.run(acc.take_grad(0))


def test_sum_reduction_and_unknown_shape():
    acc = tf.ConditionalAccumulator(tf.float64, reduction_type="SUM")
    with tf.Session() as sess:
        sess.run([acc.apply_grad([3.0, 4]), acc.apply_grad([4.0, 4])])
        np.testing.assert_array_equal(sess.run(acc.take_grad(2)), [7.0, 8.0])
        sess.run(acc.apply_grad([3.0], local_step=1))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape mismatch: expected \[1\], got \[1,1\]"):
            sess.run(acc.apply_grad([[1.0]], local_step=1))


def test_sparse_accumulator_averages_rows_by_their_counts():
    acc = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
    assert acc.accumulator_ref.dtype == tf.string._as_ref
    with tf.Session() as sess:
        sess.run(acc.apply_grad([0, 3], [[1.0, 2.0], [3.0, 4.0]], grad_shape=[5, 2]))
        sess.run(acc.apply_grad([0, 1], [[10.0, 20.0], [30.0, 40.0]]))
        taken = sess.run(acc.take_grad(2))
        assert type(taken).__name__ == "SparseAccumulatorTakeGradient"
        assert taken.indices.tolist() == [0, 1, 3]
        assert taken.values.tolist() == [[5.5, 11.0], [30.0, 40.0], [3.0, 4.0]]
        assert taken.shape.tolist() == [5, 2]
        sess.run(acc.apply_indexed_slices_grad(tf.IndexedSlices(tf.constant([[1.0, 1.0]]), tf.constant([4])),
                                               local_step=1))
        sess.run(acc.apply_grad([3], [[3.0, 1.0]], local_step=1))
        sess.run(acc.apply_grad([4], [[1.0, 3.0]], local_step=1))
        slices = sess.run(acc.take_indexed_slices_grad(1))
        assert (slices.indices.tolist(), slices.values.tolist()) == ([3, 4], [[3.0, 1.0], [1.0, 2.0]])
        assert sess.run(acc.num_accumulated()) == 0
        sess.run(acc.set_global_step(0))
        for bad, message in [
                (acc.apply_grad([7], [[1.0, 1.0]]), "index of slice 0 exceeded limits of shape; index is 7 exceeded 5"),
                (acc.apply_grad([1], [[1.0, 1.0, 1.0]]), "expected values dim 1 to be 2, got 3"),
                (acc.apply_grad([1], [[1.0, 1.0]], grad_shape=[6, 2]), "expected shape dim 0 to be 5, got 6"),
                (acc.apply_grad([1, 2], [[1.0, 1.0]]), "Expected 2 non-empty input values, got 1")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(bad)


def test_take_waits_for_gradients_from_other_threads():
    """Three "replicas" apply from threads; the take waits until two are in, then the step moves on and
    the third (stale) gradient is dropped."""
    acc = tf.ConditionalAccumulator(tf.float32, shape=[])
    grad = tf.placeholder(tf.float32, [])
    step = tf.placeholder(tf.int64, [])
    apply = acc.apply_grad(grad, local_step=step)
    take = acc.take_grad(2)
    with tf.Session() as sess:
        result = []
        taker = threading.Thread(target=lambda: result.append(sess.run(take)))
        taker.start()
        sess.run(apply, {grad: 1.0, step: 0})
        taker.join(0.2)
        assert taker.is_alive()
        sess.run(apply, {grad: 3.0, step: 0})
        taker.join(10)
        assert result == [2.0]
        sess.run(apply, {grad: 100.0, step: 0})
        assert sess.run(acc.num_accumulated()) == 0
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(take, options=tf.RunOptions(timeout_in_ms=100))
