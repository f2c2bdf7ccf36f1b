"""Queues (FIFO, padding, random-shuffle, priority) and py_func; names, shapes and messages recorded from TF 2.21."""

import threading
import time

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave import errors


def _run_error(sess, fetch, **kwargs):
    with pytest.raises(errors.OpError) as info:
        sess.run(fetch, **kwargs)
    return type(info.value), runtime_message(info.value).split("\n")[0]


def test_node_names_types_and_static_shapes():
    with tf.Graph().as_default():
        q = tf.FIFOQueue(3, tf.float32)
        assert (q.queue_ref.op.name, q.queue_ref.op.type, q.queue_ref.op.device) == ("fifo_queue", "FIFOQueueV2",
                                                                                     "/device:CPU:*")
        assert q.dtypes == [tf.float32] and q.shapes[0].ndims is None and q.names is None
        ops = [q.enqueue(1.0), q.enqueue_many([[1.0, 2.0]]), q.dequeue(), q.dequeue_many(2), q.dequeue_up_to(2),
               q.close(), q.close(cancel_pending_enqueues=True), q.is_closed(), q.size()]
        assert [o.name for o in ops] == [
            "fifo_queue_enqueue", "fifo_queue_EnqueueMany", "fifo_queue_Dequeue:0", "fifo_queue_DequeueMany:0",
            "fifo_queue_DequeueUpTo:0", "fifo_queue_Close", "fifo_queue_Close_1", "fifo_queue_Is_Closed:0",
            "fifo_queue_Size:0"]
        assert list(ops[0].inputs[1].op.name for _ in [0]) == ["fifo_queue_enqueue/component_0"]
        assert ops[3].op.get_attr("timeout_ms") == -1
        named = tf.FIFOQueue(3, [tf.float32, tf.int32], shapes=[[2], []], names=["a", "b"], shared_name="sh",
                             name="myq")
        assert {k: v.shape.as_list() for k, v in named.dequeue().items()} == {"a": [2], "b": []}
        assert {k: v.shape.as_list() for k, v in named.dequeue_many(4).items()} == {"a": [4, 2], "b": [4]}
        assert {k: v.shape.as_list() for k, v in named.dequeue_up_to(4).items()} == {"a": [None, 2], "b": [None]}
        with pytest.raises(ValueError, match=r"Keys in dictionary to enqueue do not match names of Queue.  "
                                             r"Dictionary: \['a'\],Queue: \['a', 'b'\]"):
            named.enqueue({"a": [1.0, 2.0]})
        with pytest.raises(ValueError, match="You must enqueue a dictionary in a Queue with names"):
            named.enqueue([1.0, 2.0])
        with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
            named.enqueue({"a": [1.0, 2.0, 3.0], "b": 1})
        with pytest.raises(ValueError, match=r"Shapes \(\) and \(2,\) are incompatible"):
            named.enqueue_many({"a": [1.0, 2.0], "b": 1})
        with pytest.raises(TypeError):
            tf.PaddingFIFOQueue(5, [tf.int32])
        shuffle = tf.RandomShuffleQueue(10, 2, tf.float32, seed=3)
        attrs = shuffle.queue_ref.op.node_def.attr
        assert (attrs["seed"].i, attrs["seed2"].i, attrs["min_after_dequeue"].i) == (87654321, 3, 2)
        priority = tf.PriorityQueue(10, [tf.string], shapes=[[]])
        assert priority.dtypes == [tf.int64, tf.string]
        assert [t.name for t in priority.dequeue()] == ["priority_queue_Dequeue:0", "priority_queue_Dequeue:1"]
        with pytest.raises(ValueError, match=r"Input 'n' must be >= 0, but is -1"):
            q.dequeue_many(-1)


def test_fifo_values_close_and_tf_messages():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.FIFOQueue(3, tf.float32, shapes=[[]], shared_name="q")
        enqueue, enqueue_many, dequeue = q.enqueue(1.0), q.enqueue_many([[1.0, 2.0]]), q.dequeue()
        sess.run(enqueue_many)
        sess.run(enqueue)
        assert sess.run(q.size()) == 3
        np.testing.assert_array_equal(sess.run(q.dequeue_many(2)), [1.0, 2.0])
        assert sess.run(dequeue) == 1.0
        assert not sess.run(q.is_closed())
        sess.run(q.close())
        assert sess.run(q.is_closed())
        assert _run_error(sess, enqueue) == (errors.CancelledError, "FIFOQueue 'q' is closed.")
        assert _run_error(sess, enqueue_many) == (errors.CancelledError, "FIFOQueue 'q' is closed.")
        closed = "FIFOQueue 'q' is closed and has insufficient elements (requested {}, current size 0)"
        assert _run_error(sess, dequeue) == (errors.OutOfRangeError, closed.format(1))
        assert _run_error(sess, q.dequeue_many(2)) == (errors.OutOfRangeError, closed.format(2))
        assert _run_error(sess, q.dequeue_up_to(2)) == (errors.OutOfRangeError, closed.format(2))
        unnamed = tf.FIFOQueue(1, tf.int32, shapes=[[]])
        sess.run(unnamed.close())
        kind, message = _run_error(sess, unnamed.dequeue())
        assert kind is errors.OutOfRangeError
        assert message.startswith("FIFOQueue '_") and "_fifo_queue_1' is closed" in message


def test_dequeue_up_to_returns_the_rest_once_closed_and_drained():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.FIFOQueue(10, [tf.int32, tf.string], shapes=[[2], []])
        sess.run(q.enqueue_many(([[1, 2], [3, 4], [5, 6]], ["a", "b", "c"])))
        sess.run(q.close())
        values, strings = sess.run(q.dequeue_up_to(5))
        np.testing.assert_array_equal(values, [[1, 2], [3, 4], [5, 6]])
        assert list(strings) == [b"a", b"b", b"c"]
        with pytest.raises(errors.OutOfRangeError):
            sess.run(q.dequeue_up_to(5))
        empty = tf.FIFOQueue(2, tf.float32, shapes=[[2]])
        assert sess.run(empty.dequeue_many(0)).shape == (0, 2)


def test_runtime_shape_and_count_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.FIFOQueue(3, [tf.float32], shapes=[[2]])
        cases = [
            (q.enqueue(tf.placeholder_with_default([1.0, 2.0, 3.0], [None])),
             "Shape mismatch in tuple component 0. Expected [2], got [3]"),
            (q.enqueue_many(tf.placeholder_with_default([[1.0, 2.0, 3.0]], [None, None])),
             "Shape mismatch in tuple component 0. Expected [1,2], got [1,3]"),
            (q.enqueue(tf.placeholder_with_default(np.float32(0), None)),
             "Shape mismatch in tuple component 0. Expected [2], got []"),
            (q.dequeue_up_to(tf.placeholder_with_default(-1, [])), "DequeueUpToOp requested -1 < 0 elements"),
        ]
        for fetch, message in cases:
            assert _run_error(sess, fetch) == (errors.InvalidArgumentError, message)
        unshaped = tf.FIFOQueue(3, tf.float32)
        sess.run(unshaped.enqueue([[1.0, 2.0]]))
        assert _run_error(sess, unshaped.dequeue_many(1)) == (
            errors.InvalidArgumentError,
            "FIFOQueue's DequeueMany and DequeueUpTo require the components to have specified shapes.")
        np.testing.assert_array_equal(sess.run(unshaped.dequeue()), [1.0, 2.0])  # elements of any shape


def test_shared_queues_must_match():
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.FIFOQueue(3, [tf.float32], shared_name="sh6").queue_ref)
        cases = [
            (tf.FIFOQueue(3, [tf.int32], shared_name="sh6"),
             "Shared queue 'sh6' has component types float but requested component types were int32"),
            (tf.FIFOQueue(4, [tf.float32], shared_name="sh6"),
             "Shared queue 'sh6' has capacity 3 but requested capacity was 4"),
            (tf.FIFOQueue(3, [tf.float32], shapes=[[1]], shared_name="sh6"),
             "Shared queue 'sh6' has component shapes [] but requested component shapes were [[1]]"),
            (tf.PaddingFIFOQueue(3, [tf.float32], shapes=[[1]], shared_name="sh6"),
             "Expected FIFOQueue, found PaddingFIFOQueueV2"),
            (tf.FIFOQueue(3, [tf.float32, tf.float32], shared_name="sh6"),
             "Shared queue 'sh6' has component types float but requested component types were float, float"),
        ]
        for queue, message in cases:
            assert _run_error(sess, queue.queue_ref) == (errors.InvalidArgumentError, message)
        a = tf.FIFOQueue(3, tf.float32, shapes=[[]], shared_name="same")
        b = tf.FIFOQueue(3, tf.float32, shapes=[[]], shared_name="same")
        sess.run(a.enqueue(5.0))
        assert sess.run(b.dequeue()) == 5.0


def test_padding_priority_and_random_shuffle_queues():
    with tf.Graph().as_default(), tf.Session() as sess:
        padding = tf.PaddingFIFOQueue(5, [tf.int32, tf.string], shapes=[[None], [None]])
        for element in [([1, 2], ["a"]), ([3], ["b", "c"]), ([4, 5, 6], [])]:
            sess.run(padding.enqueue(element))
        numbers, strings = sess.run(padding.dequeue_many(3))
        np.testing.assert_array_equal(numbers, [[1, 2, 0], [3, 0, 0], [4, 5, 6]])
        assert strings.tolist() == [[b"a", b""], [b"b", b"c"], [b"", b""]]
        partial = tf.PaddingFIFOQueue(5, [tf.int32], shapes=[[None, 2]])
        assert _run_error(sess, partial.enqueue(tf.placeholder_with_default([[1, 2, 3]], None))) == (
            errors.InvalidArgumentError, "Shape mismatch in tuple component 0. Expected [?,2], got [1,3]")

        priority = tf.PriorityQueue(10, [tf.string], shapes=[[]], shared_name="pq")
        sess.run(priority.enqueue_many(([3, 1, 2], ["c", "a", "b"])))
        order, names = sess.run(priority.dequeue_many(3))
        np.testing.assert_array_equal(order, [1, 2, 3])
        assert list(names) == [b"a", b"b", b"c"]
        sess.run(priority.close())
        assert _run_error(sess, priority.dequeue()) == (
            errors.OutOfRangeError, "PriorityQueue 'pq' is closed and has insufficient elements (requested 1, "
                                    "current size 0)")

        shuffle = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=3)
        sess.run(shuffle.enqueue_many([list(range(6))]))
        first = sess.run(shuffle.dequeue_many(4))
        assert _run_error(sess, shuffle.dequeue(), options=tf.RunOptions(timeout_in_ms=50))[0] is \
            errors.DeadlineExceededError  # two left: min_after_dequeue holds them until the queue closes
        sess.run(shuffle.close())
        rest = sess.run(shuffle.dequeue_many(2))
        assert sorted(first.tolist() + rest.tolist()) == list(range(6))


def test_dequeue_many_larger_than_capacity_collects_as_elements_arrive():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
        value = tf.placeholder(tf.int32, [])
        enqueue = q.enqueue(value)
        producer = threading.Thread(target=lambda: [sess.run(enqueue, {value: i}) for i in range(5)])
        producer.start()
        np.testing.assert_array_equal(sess.run(q.dequeue_many(5)), [0, 1, 2, 3, 4])
        producer.join(timeout=5)
        assert not producer.is_alive()


def test_timeouts_cancellation_and_close_end_every_waiting_step():
    with tf.Graph().as_default():
        sess = tf.Session()
        q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
        full = tf.FIFOQueue(1, tf.float32, shapes=[[]])
        assert _run_error(sess, q.dequeue(), options=tf.RunOptions(timeout_in_ms=50)) == (
            errors.DeadlineExceededError, "Timed out waiting for notification")
        sess.run(full.enqueue(0.0))
        outcomes = []

        def run(fetch):
            try:
                sess.run(fetch)
                outcomes.append(None)
            except errors.OpError as e:
                outcomes.append((type(e), runtime_message(e).split("\n")[0]))

        threads = [threading.Thread(target=run, args=(op,)) for op in
                   (q.dequeue(), q.dequeue_many(2), full.enqueue(1.0), full.enqueue_many([[1.0, 2.0]]))]
        for t in threads:
            t.start()
        time.sleep(0.05)
        start = time.monotonic()
        sess.close()
        for t in threads:
            t.join(timeout=1)
        assert time.monotonic() - start < 1 and not any(t.is_alive() for t in threads)
        assert sorted(outcomes) == sorted([(errors.CancelledError, "Dequeue operation was cancelled")] * 2
                                          + [(errors.CancelledError, "Enqueue operation was cancelled")] * 2)


def test_close_with_cancel_pending_enqueues():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.FIFOQueue(1, tf.float32, shapes=[[]])
        enqueue = q.enqueue(1.0)
        sess.run(enqueue)
        outcome = []

        def blocked():
            try:
                sess.run(enqueue)
            except errors.CancelledError as e:
                outcome.append(runtime_message(e).split("\n")[0])

        thread = threading.Thread(target=blocked)
        thread.start()
        time.sleep(0.05)
        sess.run(q.close(cancel_pending_enqueues=True))
        thread.join(timeout=1)
        assert outcome == ["Enqueue operation was cancelled"]
        assert sess.run(q.dequeue()) == 1.0  # what was enqueued before the close stays


def test_py_func_values_names_and_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant([1.0, 2.0])
        doubled = tf.py_func(lambda v: v * 2, [x], tf.float32)
        pair = tf.py_func(lambda v: (v, np.int32(3)), [x], [tf.float32, tf.int32], stateful=False, name="pf")
        strings = tf.py_func(lambda: np.array([b"a", b"bc"]), [], tf.string)
        plus = tf.numpy_function(lambda v: v + 1, [x], tf.float32)
        assert (doubled.op.type, pair[0].op.type, plus.op.type) == ("PyFunc", "PyFuncStateless", "PyFunc")
        assert (doubled.name, pair[0].name, pair[1].name) == ("PyFunc:0", "pf:0", "pf:1")
        assert doubled.op.get_attr("token").decode().startswith("pyfunc_")
        assert doubled.shape.ndims is None
        values = sess.run([doubled, pair, strings, plus])
        np.testing.assert_array_equal(values[0], [2.0, 4.0])
        assert values[1][1] == 3 and values[2].tolist() == [b"a", b"bc"]
        np.testing.assert_array_equal(values[3], [2.0, 3.0])
        assert sess.run(tf.py_func(lambda v: "str", [x], tf.string)) == b"str"
        seen = []  # as TF's kernel: 0-d inputs come as NumPy scalars, 0-d strings as bytes
        sess.run(tf.py_func(lambda *a: seen.extend(a) or np.float32(0),
                            [tf.constant(1.0), tf.constant("s"), tf.constant(True), tf.constant(["a"])], tf.float32))
        assert [type(v).__name__ for v in seen] == ["float32", "bytes", "bool", "ndarray"]

        def fail(error):
            def raise_it(v):
                raise error
            return raise_it

        for error, cls in [(ValueError("boom"), errors.InvalidArgumentError), (IndexError("ix"), errors.UnknownError),
                           (StopIteration(), errors.OutOfRangeError), (KeyError("k"), errors.UnknownError),
                           (NotImplementedError("ni"), errors.UnimplementedError)]:
            with pytest.raises(cls) as info:
                sess.run(tf.py_func(fail(error), [x], tf.float32))
            text = "".join(__import__("traceback").format_exception_only(type(error), error)).strip()
            assert runtime_message(info.value).startswith(text + "\nTraceback (most recent call last):")
            assert "in raise_it" in runtime_message(info.value)
        bad = tf.py_func(lambda v: v.astype(np.float64), [x], tf.float32)
        token = bad.op.get_attr("token").decode()
        assert _run_error(sess, bad) == (errors.InvalidArgumentError,
                                         f"0-th value returned by {token} is double, but expects float")
        two = tf.py_func(lambda v: (v, v), [x], tf.float32)
        token = two.op.get_attr("token").decode()
        assert _run_error(sess, two) == (errors.InvalidArgumentError,
                                         f"{token} returns 2 values, but expects to see 1 values.")
        assert sess.run(tf.py_func(lambda v: 3, [x], tf.int64)) == 3


def _consume(sess, fetch, got, outcomes):
    """Run `fetch` until the queue is closed and drained; every value it returned goes to `got`."""
    try:
        while True:
            got.extend(np.ravel(sess.run(fetch)).tolist())
    except errors.OutOfRangeError:
        outcomes.append("drained")


@pytest.mark.parametrize("make", [
    lambda: tf.FIFOQueue(4, tf.int32, shapes=[[]]),
    lambda: tf.RandomShuffleQueue(6, 2, tf.int32, shapes=[[]], seed=1),
    lambda: tf.PaddingFIFOQueue(4, tf.int32, shapes=[[]]),
], ids=["fifo", "random_shuffle", "padding"])
def test_many_producers_and_consumers_deliver_every_element_exactly_once(make):
    with tf.Graph().as_default(), tf.Session() as sess:
        q = make()
        value = tf.placeholder(tf.int32, [None])
        enqueue, enqueue_one = q.enqueue_many(value), q.enqueue(value[0])
        got: list = []
        outcomes: list = []
        fetches = [q.dequeue(), q.dequeue_many(3), q.dequeue_up_to(2), q.dequeue_up_to(5)]
        consumers = [threading.Thread(target=_consume, args=(sess, f, got, outcomes)) for f in fetches]
        producers = [threading.Thread(target=lambda k=k: [sess.run(enqueue if i % 2 else enqueue_one,
                                                                   {value: [100 * k + i, 1000 + 100 * k + i]})
                                                          for i in range(25)]) for k in range(4)]
        for t in consumers + producers:
            t.start()
        for t in producers:
            t.join(timeout=10)
        sess.run(q.close())
        for t in consumers:
            t.join(timeout=10)
        assert not any(t.is_alive() for t in consumers + producers)
        sent = [100 * k + i for k in range(4) for i in range(25)] + [
            1000 + 100 * k + i for k in range(4) for i in range(1, 25, 2)]
        # dequeue_many(3) fails at the end unless the rest divides by 3: what is left is still there
        assert outcomes == ["drained"] * 4
        left = sess.run(q.dequeue_up_to(10)).tolist() if sess.run(q.size()) else []
        assert sorted(got + left) == sorted(sent)


def test_close_with_cancel_pending_enqueues_under_load_loses_and_repeats_nothing():
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.RandomShuffleQueue(5, 1, tf.int32, shapes=[[]])
        value = tf.placeholder(tf.int32, [])
        enqueue = q.enqueue(value)
        sent: list = []
        got: list = []
        outcomes: list = []

        def produce(k):
            try:
                for i in range(1000):
                    sess.run(enqueue, {value: 1000 * k + i})
                    sent.append(1000 * k + i)
            except errors.CancelledError:
                outcomes.append("cancelled")

        producers = [threading.Thread(target=produce, args=(k,)) for k in range(4)]
        consumers = [threading.Thread(target=_consume, args=(sess, f, got, outcomes))
                     for f in (q.dequeue(), q.dequeue_up_to(3))]
        for t in producers + consumers:
            t.start()
        while len(got) < 40:
            time.sleep(0.005)
        sess.run(q.close(cancel_pending_enqueues=True))
        for t in producers + consumers:
            t.join(timeout=10)
        assert not any(t.is_alive() for t in producers + consumers)
        assert sorted(outcomes) == ["cancelled"] * 4 + ["drained"] * 2
        assert sorted(got) == sorted(sent)


def test_seeded_random_shuffle_queue_dequeues_in_tf_order():
    """Literals recorded from TF 2.21: TF's Philox draws, one uint32 per element taken, swap-with-last picks,
    and a batch that fails on close put back last first."""
    with tf.Graph().as_default(), tf.Session() as sess:
        q = tf.RandomShuffleQueue(20, 4, [tf.int32, tf.string], shapes=[[], [2]], seed=5)
        sess.run(q.enqueue_many([list(range(12)), [[str(i), "x"] for i in range(12)]]))
        numbers, strings = sess.run(q.dequeue_many(5))
        assert (numbers.tolist(), strings[:, 0].tolist()) == ([7, 2, 4, 8, 0], [b"7", b"2", b"4", b"8", b"0"])
        sess.run(q.enqueue_many([list(range(100, 105)), [["y", "z"]] * 5]))
        sess.run(q.close())
        assert sess.run(q.dequeue_up_to(20))[0].tolist() == [103, 11, 100, 5, 102, 1, 104, 3, 6, 9, 101, 10]

        restored = tf.RandomShuffleQueue(10, 0, tf.int32, shapes=[[]], seed=11)
        sess.run(restored.enqueue_many([[10, 11, 12, 13]]))
        outcome = []
        waiting = threading.Thread(target=lambda: outcome.append(_run_error(sess, restored.dequeue_many(6))))
        waiting.start()
        time.sleep(0.05)
        sess.run(restored.close())
        waiting.join(timeout=5)
        assert outcome[0][1].endswith("_random_shuffle_queue_1' is closed and has insufficient elements (requested 2, "
                                      "current size 0)")
        assert sess.run(restored.dequeue_up_to(5)).tolist() == [13, 10, 12, 11]

        tf.set_random_seed(7)
        by_graph_seed = tf.RandomShuffleQueue(20, 0, tf.int64)
        sess.run(by_graph_seed.enqueue_many([list(range(8))]))
        assert [int(sess.run(by_graph_seed.dequeue())) for _ in range(8)] == [5, 7, 0, 6, 3, 4, 1, 2]


def test_queue_from_list_picks_a_queue_at_run_time():
    with tf.Graph().as_default(), tf.Session() as sess:
        queues = [tf.FIFOQueue(5, [tf.int32], shapes=[[2]]), tf.FIFOQueue(5, [tf.int32], shapes=[[3]])]
        index = tf.placeholder(tf.int32, [])
        chosen = tf.QueueBase.from_list(index, queues)
        assert (chosen.name, chosen.queue_ref.op.inputs[0].op.name) == ("GatherV2", "stack")
        assert [s.as_list() for s in chosen.shapes] == [[None]]
        sess.run(queues[1].enqueue([[7, 8, 9]]))
        assert sess.run(chosen.dequeue(), {index: 1}).tolist() == [7, 8, 9]
        sess.run(chosen.enqueue_many([[[1, 2], [3, 4]]]), {index: 0})
        assert sess.run(queues[0].dequeue_many(2)).tolist() == [[1, 2], [3, 4]]
        for bad, message in (([queues[0], tf.FIFOQueue(5, [tf.float32])], "Queues do not have matching component dtypes."),
                             ([queues[0], tf.FIFOQueue(5, [tf.int32], names=["a"])],
                              "Queues do not have matching component names."),
                             (queues[0], "A list of queues expected")):
            with pytest.raises(TypeError, match=message):
                tf.QueueBase.from_list(0, bad)


def test_batched_string_components_are_flat_string_arrays():
    """Strings enqueued one at a time and many at a time batch into one object array of bytes (TF 2.21)."""
    padding = tf.PaddingFIFOQueue(10, [tf.int32, tf.string], shapes=[[None], []])
    priority = tf.PriorityQueue(10, [tf.string], shapes=[[]])
    fifo = tf.FIFOQueue(10, [tf.string], shapes=[[]])
    with tf.Session() as sess:
        sess.run(padding.enqueue(([1, 2], "a")))
        sess.run(padding.enqueue(([3], "bb")))
        sess.run(priority.enqueue_many(([5, 1], ["five", "one"])))
        sess.run(priority.enqueue((tf.constant(2, tf.int64), "two")))
        sess.run(fifo.enqueue_many([["x", "y"]]))
        sess.run(fifo.enqueue("z"))
        (ints, strings), (priorities, names), letters = sess.run(
            [padding.dequeue_many(2), priority.dequeue_many(2), fifo.dequeue_up_to(3)])
    assert ints.tolist() == [[1, 2], [3, 0]] and strings.dtype == object and strings.tolist() == [b"a", b"bb"]
    assert priorities.tolist() == [1, 2] and names.tolist() == [b"one", b"two"]
    assert letters.dtype == object and letters.tolist() == [b"x", b"y", b"z"]


def test_priority_queue_needs_shapes():
    with pytest.raises(TypeError, match="Expected list for 'shapes' argument to 'priority_queue_v2' Op, not None."):
        tf.PriorityQueue(3, [tf.int32])


def test_priority_queue_batches_as_tf():
    """TF's PriorityQueue takes a batch whole while open, and a dequeue_up_to on a closed queue with too few
    elements takes them and fails on the empty queue (they are lost); literals from TF 2.21."""
    q = tf.PriorityQueue(10, [tf.int32], shapes=[[]])
    with tf.Session() as s:
        s.run(q.enqueue_many([[3, 1], [30, 10]]))
        assert s.run(q.dequeue_up_to(1))[1].tolist() == [10]
        with pytest.raises(errors.DeadlineExceededError):
            s.run(q.dequeue_up_to(3), options=tf.RunOptions(timeout_in_ms=50))
        assert s.run(q.size()) == 1  # nothing was taken while it waited
        s.run(q.enqueue_many([[2, 5], [20, 50]]))
        s.run(q.close())
        with pytest.raises(errors.OutOfRangeError, match=r"PriorityQueue '\w+' is closed and has "
                                                         r"insufficient elements \(requested 5, current size 3\)"):
            s.run(q.dequeue_many(5))
        assert s.run(q.size()) == 3
        with pytest.raises(errors.OutOfRangeError, match=r"\(requested 2, current size 0\)"):
            s.run(q.dequeue_up_to(5))
        assert s.run(q.size()) == 0
        assert s.run(q.dequeue_up_to(0))[0].shape == (0,)


@pytest.mark.parametrize("capacity, min_after_dequeue, message", [
    (3, 5, "min_after_dequeue 5 must be < capacity 3"),
    (3, 3, "min_after_dequeue 3 must be < capacity 3"),
    (5, -1, "min_after_dequeue -1 must be >= 0"),
])
def test_random_shuffle_queue_attr_checks(capacity, min_after_dequeue, message):
    queue = tf.RandomShuffleQueue(capacity, min_after_dequeue, tf.int32, shapes=[[]])
    with tf.Session() as sess:
        with pytest.raises(errors.InvalidArgumentError, match=message) as info:
            sess.run(queue.size())
        assert info.value.op.type == "RandomShuffleQueueV2"
    with tf.Session() as sess:
        assert sess.run(tf.RandomShuffleQueue(-1, 5, tf.int32).size()) == 0


def test_empty_enqueue_many_is_done_even_when_closed():
    """TF's TryEnqueueMany finishes a batch of 0 before looking at the queue: no error once closed."""
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    with tf.Session() as s:
        s.run(q.close())
        s.run(q.enqueue_many([np.zeros([0], np.int32)]))
        with pytest.raises(errors.CancelledError, match="is closed"):
            s.run(q.enqueue_many([[1]]))
        assert s.run(q.size()) == 0
