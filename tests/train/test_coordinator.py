"""tf.train.Coordinator, LooperThread, QueueRunner and start_queue_runners, with queues fed and drained by
threads; every thread is joined with a timeout."""

import threading
import time

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors


def test_request_stop_join_and_exception_reraise():
    coord = tf.train.Coordinator()
    assert not coord.should_stop()
    stopped = threading.Event()

    def worker():
        coord.wait_for_stop()
        stopped.set()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=1)
    assert stopped.is_set() and coord.should_stop() and coord.joined

    coord.clear_stop()
    assert not coord.should_stop()
    with coord.stop_on_exception():
        raise ValueError("first")
    coord.request_stop(RuntimeError("second"))  # only the first error is kept
    with pytest.raises(ValueError, match="first"):
        coord.raise_requested_exception()
    with pytest.raises(ValueError, match="first"):
        coord.join([], stop_grace_period_secs=0.1)
    with pytest.raises(TypeError):
        coord.request_stop(TypeError("after join"))  # a new error after join is raised at once

    clean = tf.train.Coordinator()
    clean.request_stop(errors.OutOfRangeError(None, None, "done"))  # a clean stop: nothing to re-raise
    clean.join([], stop_grace_period_secs=0.1)


def test_join_reports_stragglers_and_registered_threads():
    coord = tf.train.Coordinator()
    release = threading.Event()
    straggler = threading.Thread(target=release.wait, name="slow")
    coord.register_thread(straggler)
    straggler.start()
    coord.request_stop()
    with pytest.raises(RuntimeError, match="Coordinator stopped with threads still running: slow"):
        coord.join(stop_grace_period_secs=0.05)
    release.set()
    straggler.join(timeout=1)
    assert coord.wait_for_stop(0)


def test_looper_thread():
    coord = tf.train.Coordinator()
    calls = []
    looper = tf.train.LooperThread.loop(coord, 0.001, target=calls.append, args=(1,))
    deadline = time.monotonic() + 1
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.001)
    coord.request_stop()
    coord.join([looper], stop_grace_period_secs=1)
    assert len(calls) >= 3
    with pytest.raises(ValueError, match="'args' and 'kwargs' argument require that you also pass 'target'"):
        tf.train.LooperThread(tf.train.Coordinator(), None, args=(1,))
    failing = tf.train.Coordinator()
    thread = tf.train.LooperThread.loop(failing, None, target=lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.join([thread], stop_grace_period_secs=1)


def test_queue_runner_pipeline_delivers_every_element_once():
    with tf.Graph().as_default(), tf.Session() as sess:
        source = tf.FIFOQueue(100, tf.int32, shapes=[[]])
        sess.run(source.enqueue_many([list(range(60))]))
        sess.run(source.close())
        work = tf.FIFOQueue(4, tf.int32, shapes=[[]])
        runner = tf.train.QueueRunner(work, [work.enqueue(source.dequeue())] * 3)
        assert runner.queue is work and runner.queue_closed_exception_types == (errors.OutOfRangeError,)
        assert (runner.close_op.type, runner.cancel_op.get_attr("cancel_pending_enqueues")) == ("QueueCloseV2",
                                                                                                 True)
        tf.train.add_queue_runner(runner)
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        assert len(threads) == 4  # three enqueue loops and the one that cancels on stop
        assert tf.train.start_queue_runners(sess, coord) == []  # already running in this session
        got = []
        batch = work.dequeue_up_to(7)
        while True:
            try:
                got.extend(sess.run(batch).tolist())
            except errors.OutOfRangeError:
                break
        assert sorted(got) == list(range(60))
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=1)


def test_request_stop_and_session_close_end_blocked_threads():
    with tf.Graph().as_default():
        sess = tf.Session()
        q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
        sess.run(q.enqueue(0.0))
        coord = tf.train.Coordinator()

        def loop(op):
            with coord.stop_on_exception():
                while not coord.should_stop():
                    sess.run(op)

        ops = [q.enqueue(1.0), q.enqueue(2.0), tf.FIFOQueue(1, tf.float32).dequeue(), q.enqueue_many([[3.0]])]
        threads = [threading.Thread(target=loop, args=(op,), daemon=True) for op in ops]
        for t in threads:
            coord.register_thread(t)
            t.start()
        time.sleep(0.05)
        start = time.monotonic()
        coord.request_stop()
        sess.close()
        coord.join(stop_grace_period_secs=1)  # the cancellations came after the stop request: not re-raised
        assert time.monotonic() - start < 1 and not any(t.is_alive() for t in threads)


def test_queue_runner_arguments():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, tf.float32)
        with pytest.raises(ValueError, match="Must provide queue and enqueue_ops."):
            tf.train.QueueRunner(q, [])
        with pytest.raises(TypeError, match="queue_closed_exception_types, when provided, must be a tuple"):
            tf.train.QueueRunner(q, [q.enqueue(1.0)], queue_closed_exception_types=(ValueError,))
        with pytest.raises(TypeError, match="^not enough arguments for format string$"):  # TF's %-formatting
            tf.train.QueueRunner(q, [q.enqueue(1.0)], queue_closed_exception_types=())
        with pytest.raises(ValueError, match="No default session is registered"):
            tf.train.start_queue_runners()
        runner = tf.train.QueueRunner(q, [q.enqueue(np.float32(1))])
        assert runner.name == "fifo_queue"


def test_request_stop_takes_the_exception_being_handled():
    """TF's request_stop(ex) records sys.exc_info(): outside a handler its own message formatting fails."""
    coord = tf.train.Coordinator()
    with pytest.raises(TypeError, match="^not all arguments converted during string formatting$"):
        coord.request_stop(ValueError("x"))
    assert not coord.should_stop()
    coord = tf.train.Coordinator()
    try:
        raise RuntimeError("handled")
    except RuntimeError:
        coord.request_stop(ValueError("given"))
    with pytest.raises(RuntimeError, match="handled"):
        coord.join([])


def test_queue_runner_threads_are_named_as_tfs():
    """QueueRunnerThread-<queue>-<op>, for each enqueue op and the coordinator's cancel thread (TF's names)."""
    queue = tf.FIFOQueue(10, tf.float32, name="q")
    enqueue = queue.enqueue([1.0], name="put")
    runner = tf.train.QueueRunner(queue, [enqueue])
    coord = tf.train.Coordinator()
    with tf.Session() as sess:
        threads = runner.create_threads(sess, coord=coord, start=True)
        assert [t.name for t in threads] == ["QueueRunnerThread-q-put", "QueueRunnerThread-q-close_on_stop"]
        coord.request_stop()
        coord.join(threads)


def test_a_queue_runner_error_is_the_callables_raw_error():
    """TF's QueueRunner runs its enqueue through `make_callable`: the error the Coordinator re-raises carries
    the runtime's message only, no op (recorded from TF 2.21)."""
    with tf.Graph().as_default():
        files = tf.placeholder(tf.string, [None])
        tf.train.string_input_producer(files, shuffle=False)
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            with pytest.raises(errors.InvalidArgumentError) as info:
                coord.join(threads, stop_grace_period_secs=2)
    assert str(info.value) == info.value.message == (
        "You must feed a value for placeholder tensor 'Placeholder' with dtype string and shape [?]\n"
        "\t [[{{node Placeholder}}]]")
    assert info.value.op is None and info.value.node_def is None
