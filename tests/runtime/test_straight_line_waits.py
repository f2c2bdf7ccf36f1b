"""Straight-line steps that wait in asynchronous kernels (executor.py `_chained`): a chain of them runs on the
calling thread; independent ones keep the dataflow path, where one can wake the other within the step."""

import threading

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.runtime.direct_session import DirectSession


def _plan_of(sess, fetches):
    sess.run(fetches)
    backend: DirectSession = sess._session
    return next(iter(backend._plans.values()))


def test_dequeue_then_enqueue_is_one_straight_line_step():
    with tf.Graph().as_default(), tf.Session() as sess:
        source, sink = tf.FIFOQueue(10, tf.float32, shapes=[]), tf.FIFOQueue(10, tf.float32, shapes=[])
        sess.run(source.enqueue_many([[1., 2.]]))
        sess._session._plans.clear()
        plan = _plan_of(sess, sink.enqueue(source.dequeue() * 10.))
        assert plan.executors[0].ordered and plan.executors[0].waits
        sess.run(sink.enqueue(source.dequeue() * 10.))
        assert sess.run(sink.dequeue_many(2)).tolist() == [10., 20.]


def test_an_enqueue_beside_a_waiting_dequeue_of_its_queue_still_wakes_it():
    with tf.Graph().as_default(), tf.Session() as sess:
        queue = tf.FIFOQueue(10, tf.float32, shapes=[])
        dequeued, enqueue = queue.dequeue(), queue.enqueue(5.)
        result = []
        thread = threading.Thread(target=lambda: result.append(sess.run([dequeued, enqueue])[0]))
        thread.start()
        thread.join(5)
        assert not thread.is_alive() and result == [5.]
        assert not next(iter(sess._session._plans.values())).executors[0].ordered


def test_a_waiting_straight_line_step_ends_on_close_and_on_timeout():
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(10, tf.float32, shapes=[])
        step = queue.dequeue() + 1.
        sess = tf.Session()
        with pytest.raises(tf.errors.DeadlineExceededError):
            sess.run(step, options=tf.RunOptions(timeout_in_ms=50))
        errors = []

        def blocked():
            try:
                sess.run(step)
            except tf.errors.CancelledError as e:
                errors.append(e)

        thread = threading.Thread(target=blocked)
        thread.start()
        thread.join(0.1)
        sess.close()
        thread.join(1)
        assert not thread.is_alive() and len(errors) == 1


def test_a_failure_after_a_wait_names_its_node():
    with tf.Graph().as_default(), tf.Session() as sess:
        queue = tf.FIFOQueue(10, tf.float32)
        sess.run(queue.enqueue([np.ones(4, np.float32)]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="node bad"):
            sess.run(tf.reshape(queue.dequeue(), [5], name="bad"))
