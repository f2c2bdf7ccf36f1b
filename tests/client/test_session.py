"""tf.Session: fetch structures, feeds, errors, default sessions, graph extension, plan caching, threads."""

import collections
import threading

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_fetch_structures_round_trip():
    a = tf.constant(1.0)
    b = tf.constant([2, 3])
    noop = tf.no_op()
    Pair = collections.namedtuple("Pair", "x y")
    with tf.Session() as sess:
        out = sess.run({"a": a, "nested": [b, (a, noop)], "pair": Pair(a, b),
                        "ordered": collections.OrderedDict([("z", a), ("y", b)])})
    assert out["a"] == 1.0 and isinstance(out["a"], np.float32)
    assert out["nested"][0].tolist() == [2, 3] and out["nested"][0].dtype == np.int32
    assert out["nested"][1] == (1.0, None)
    assert isinstance(out["pair"], Pair) and out["pair"].y.tolist() == [2, 3]
    assert list(out["ordered"]) == ["z", "y"] and isinstance(out["ordered"], collections.OrderedDict)


def test_fetch_by_name_and_duplicates():
    a = tf.constant(5, name="five")
    with tf.Session() as sess:
        assert sess.run("five:0") == 5
        assert sess.run(["five:0", a, a]) == [5, 5, 5]
        assert sess.run("five") is None  # an op name is a target
        assert sess.run([]) == []


def test_fetch_errors():
    a = tf.constant(1.0)
    other = tf.Graph()
    with other.as_default():
        b = tf.constant(2.0)
    with tf.Session() as sess:
        with pytest.raises(TypeError, match="Argument `fetch` = None has invalid type \"NoneType\". Cannot be None"):
            sess.run(None)
        with pytest.raises(ValueError, match="is not an element of this graph"):
            sess.run(b)
        with pytest.raises(TypeError):
            sess.run(3.5)
        with pytest.raises(ValueError):
            sess.run("nope:0")
        assert sess.run(a) == 1.0


def test_feed_any_tensor_and_keys_by_name():
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    y = x * 2.0
    z = y + 1.0
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(z, {x: [1, 2]}), [3, 5])
        np.testing.assert_allclose(sess.run(z, {"x:0": np.array([3, 4], np.float32)}), [7, 9])
        np.testing.assert_allclose(sess.run(z, {y: [10, 20]}), [11, 21])  # feed an intermediate tensor
        assert sess.run(y, {y: [7, 8]}).tolist() == [7, 8]


def test_feed_shape_and_dtype_checks():
    x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
    i = tf.placeholder(tf.int32, name="i")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor x:0, which has "
                                             r"shape \(\?, 3\)"):
            sess.run(x, {x: [1, 2, 3]})
        with pytest.raises(ValueError):
            sess.run(x, {x: [["a", "b", "c"]]})
        with pytest.raises(TypeError, match="is not compatible with Tensor type"):
            sess.run(i, {i: 2**40})
        with pytest.raises(TypeError, match="The value of a feed cannot be a tf.Tensor object"):
            sess.run(x, {x: tf.constant([[1.0, 2.0, 3.0]])})
        with pytest.raises(TypeError, match="Cannot interpret feed_dict key as Tensor"):
            sess.run(x, {"missing:0": 1.0})
        assert sess.run(x, {x: [[1, 2, 3]]}).dtype == np.float32


def test_feed_is_zero_copy_when_dtype_matches():
    x = tf.placeholder(tf.float32, shape=[4])
    y = tf.identity(x)
    value = np.arange(4, dtype=np.float32)
    with tf.Session() as sess:
        assert sess.run(y, {x: value}) is value


def test_fetching_a_fed_tensor_returns_the_fed_array():
    x = tf.placeholder(tf.float32)
    s = tf.placeholder(tf.string)
    y = x * 2.0
    with tf.Session() as sess:
        fed, doubled = sess.run([x, y], {x: 3})
        assert isinstance(fed, np.ndarray) and fed.shape == () and fed.dtype == np.float32
        assert doubled == 6.0 and isinstance(doubled, np.float32)
        strings = np.array(["a", "bc"], dtype=object)
        assert sess.run(s, {s: strings}).tolist() == ["a", "bc"]
        assert sess.run(tf.identity(s), {s: strings}).tolist() == [b"a", b"bc"]
        assert strings.tolist() == ["a", "bc"]  # the caller's array is left alone


def test_prevent_feeding_is_honoured_after_a_run():
    a = tf.constant(2.0)
    b = a * 3.0
    with tf.Session() as sess:
        assert sess.run(b, {b: 1.0}) == 1.0
        tf.get_default_graph().prevent_feeding(b)
        with pytest.raises(ValueError, match="Tensor mul:0 may not be fed."):
            sess.run(b, {b: 1.0})


def test_unfed_placeholder_error_names_node_and_site():
    """TF 2's Session error: 'Graph execution error:', where user code defined each node the message tags,
    then the runtime's message."""
    x = tf.placeholder(tf.float32, shape=[None, 784], name="images")  # the line the error points at
    line = test_unfed_placeholder_error_names_node_and_site.__code__.co_firstlineno + 3
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(x * 2.0)
    message = info.value.message
    assert message.startswith("Graph execution error:\n\nDetected at node 'images' defined at (most recent call "
                              "last):\n")
    assert message.endswith(f'    File "{__file__}", line {line}, in test_unfed_placeholder_error_names_node_and_site'
                            "\nNode: 'images'\nYou must feed a value for placeholder tensor 'images' with dtype "
                            "float and shape [?,784]\n\t [[{{node images}}]]")
    assert info.value.op.name == "images" and info.value.node_def.name == "images"
    assert str(info.value).startswith(message + "\n\nOriginal stack trace for 'images':\n")


def test_callable_without_feed_list_raises_the_runtime_message():
    """TF's make_callable without a feed_list runs through TF_SessionRunCallable: no interpolation, no op."""
    x = tf.placeholder(tf.float32, name="x")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.make_callable(x * 2.0)()
        assert info.value.message == "You must feed a value for placeholder tensor 'x' with dtype float\n\t [[{{node x}}]]"
        assert info.value.op is None and info.value.node_def is None
        with pytest.raises(tf.errors.InvalidArgumentError, match="^Graph execution error:\n\nDetected at node 'x'"):
            sess.make_callable(x * 2.0, feed_list=[])()


def test_uninitialized_variable_is_failed_precondition():
    v = tf.Variable([1.0, 2.0], name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value weights"):
            sess.run(v)
        sess.run(v.initializer)
        assert sess.run(v).tolist() == [1.0, 2.0]


def test_closed_session_and_context_manager():
    a = tf.constant(1)
    sess = tf.Session()
    assert sess.run(a) == 1
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(a)


def test_default_session_eval_and_run():
    v = tf.Variable(3.0)
    with pytest.raises(ValueError, match="No default session is registered"):
        v.eval()
    with tf.Session() as sess:
        assert tf.get_default_session() is sess
        v.initializer.run()
        assert v.eval() == 3.0
        assert (v + 1.0).eval() == 4.0
    sess2 = tf.Session()
    with sess2.as_default():
        assert tf.get_default_session() is sess2
    assert tf.get_default_session() is None
    sess2.close()


def test_interactive_session_installs_itself():
    sess = tf.InteractiveSession()
    try:
        assert tf.get_default_session() is sess
        assert tf.constant(7).eval() == 7
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_graph_extension_after_first_run():
    a = tf.constant(2.0)
    with tf.Session() as sess:
        assert sess.run(a) == 2.0
        b = a * 3.0  # created after the first run
        assert sess.run(b) == 6.0


def test_second_identical_run_reuses_the_plan():
    x = tf.placeholder(tf.float32)
    y = x + 1.0
    with tf.Session() as sess:
        sess.run(y, {x: 1.0})
        plans = dict(sess._session._plans)
        assert sess.run(y, {x: 2.0}) == 3.0
        assert sess._session._plans == plans


def test_session_graph_argument_and_list_devices():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(4)
    with tf.Session(graph=g) as sess:
        assert sess.graph is g and sess.run(c) == 4
        devices = sess.list_devices()
    assert devices[0].name == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert devices[0].device_type == "CPU"


def test_concurrent_runs_from_many_threads():
    counter = tf.Variable(0, dtype=tf.int64)
    increment = tf.assign_add(counter, tf.constant(1, tf.int64), use_locking=True)
    x = tf.placeholder(tf.float32)
    y = x * 3.0
    failures = []
    with tf.Session() as sess:
        sess.run(counter.initializer)

        def worker(seed):
            for k in range(100):
                sess.run(increment.op)
                if sess.run(y, {x: seed + k}) != 3.0 * (seed + k):
                    failures.append(seed)

        threads = [threading.Thread(target=worker, args=(i * 1000,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sess.run(counter) == 400
    assert not failures


def test_errors_module_has_every_class_and_code():
    codes = {tf.errors.CancelledError: 1, tf.errors.UnknownError: 2, tf.errors.InvalidArgumentError: 3,
             tf.errors.DeadlineExceededError: 4, tf.errors.NotFoundError: 5, tf.errors.AlreadyExistsError: 6,
             tf.errors.PermissionDeniedError: 7, tf.errors.ResourceExhaustedError: 8,
             tf.errors.FailedPreconditionError: 9, tf.errors.AbortedError: 10, tf.errors.OutOfRangeError: 11,
             tf.errors.UnimplementedError: 12, tf.errors.InternalError: 13, tf.errors.UnavailableError: 14,
             tf.errors.DataLossError: 15, tf.errors.UnauthenticatedError: 16}
    for cls, code in codes.items():
        assert issubclass(cls, tf.errors.OpError)
        assert cls(None, None, "m").error_code == code


def test_full_trace_fills_step_stats_for_every_kernel():
    x = tf.placeholder(tf.float32, shape=[None, 3])
    y = tf.nn.relu(tf.matmul(x, tf.ones([3, 2])) - 1.0)
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        untraced = sess.run(y, {x: [[1, 2, 3]]})
        traced = sess.run(y, {x: [[1, 2, 3]]}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                          run_metadata=metadata)
    np.testing.assert_array_equal(untraced, traced)
    (device,) = metadata.step_stats.dev_stats
    assert device.device == "/job:localhost/replica:0/task:0/device:CPU:0"
    assert [n.node_name for n in device.node_stats] == [  # as TF lists them
        "_SOURCE", "ones", "sub/y", "_arg_Placeholder_0_0", "MatMul", "sub", "Relu", "_retval_Relu_0_0"]
    assert all(n.all_start_micros > 0 and n.op_end_rel_micros >= 0 for n in device.node_stats)


def test_fetched_strings_are_object_arrays_whatever_the_kernel_made():
    """A PriorityQueue's dequeue_many stacks bytes: TF's fetch still gives dtype=object (TF 2.21)."""
    with tf.Graph().as_default():
        q = tf.PriorityQueue(4, [tf.string], shapes=[[]])
        enqueue = q.enqueue_many(([3, 1, 2], ["c", "a", "b"]))
        with tf.Session() as sess:
            sess.run(enqueue)
            priorities, values = sess.run(q.dequeue_many(3))
    assert priorities.tolist() == [1, 2, 3]
    assert values.dtype == object and values.tolist() == [b"a", b"b", b"c"]
