"""tf.Session against real TensorFlow: partial runs, feed-dict flattening, make_callable, reset, closed
sessions, InteractiveSession defaults, placement logging and partition graphs. Expected values and
messages were recorded from TensorFlow 2.21 (`tf.compat.v1`, v2 behaviour disabled)."""

import collections
import logging

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf


def _abc_graph():
    a = tf.placeholder(tf.float32, shape=[], name="a")
    b = tf.placeholder(tf.float32, shape=[], name="b")
    c = tf.placeholder(tf.float32, shape=[], name="c")
    r1 = tf.add(a, b, name="r1")
    r2 = tf.multiply(r1, c, name="r2")
    return a, b, c, r1, r2


def test_partial_run_feeds_and_fetches_in_pieces_then_forgets_the_handle():
    a, b, c, r1, r2 = _abc_graph()
    with tf.Session() as sess:
        handle = sess.partial_run_setup([r1, r2], [a, b, c])
        assert isinstance(handle, str)
        res = sess.partial_run(handle, r1, feed_dict={a: 1, b: 2})
        assert res == 3.0 and isinstance(res, np.float32)
        assert sess.partial_run(handle, r2, feed_dict={c: res}) == 9.0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Graph execution error:\n\nMust run 'setup' before performing partial runs!"):
            sess.partial_run(handle, r2)


def test_partial_run_structures_names_and_interleaved_handles():
    a, b, c, r1, r2 = _abc_graph()
    with tf.Session() as sess:
        handle = sess.partial_run_setup({"x": r1, "y": [r2]}, [a, b, c])
        assert sess.partial_run(handle, {"x": r1}, feed_dict={"a:0": 1, b: 2}) == {"x": 3.0}
        assert sess.partial_run(handle, ["r2:0"], feed_dict={"c:0": 5}) == [15.0]
        h1 = sess.partial_run_setup([r1, r2], [a, b, c])
        h2 = sess.partial_run_setup([r1, r2], [a, b, c])
        assert h1 != h2
        assert sess.partial_run(h2, r1, feed_dict={a: 10, b: 10}) == 20.0
        assert sess.partial_run(h1, r1, feed_dict={a: 1, b: 1}) == 2.0
        assert (sess.partial_run(h1, r2, feed_dict={c: 3}), sess.partial_run(h2, r2, feed_dict={c: 3})) == (6.0, 60.0)
        handle = sess.partial_run_setup([r1, r2], [a, b, c])
        assert sess.partial_run(handle, [r1, r1], feed_dict={a: 1, b: 2}) == [3.0, 3.0]
        assert sess.partial_run(handle, (r2, r2), feed_dict={c: 2}) == (6.0, 6.0)
        handle = sess.partial_run_setup([r2], [r1, c])  # any tensor may be fed, not only placeholders
        assert sess.partial_run(handle, [r2], feed_dict={r1: 5, c: 2}) == [10.0]
        handle = sess.partial_run_setup([r2], [a, b, c])
        assert sess.partial_run(handle, [], feed_dict={a: 1}) == []
        assert sess.run(r1, {a: 5, b: 6}) == 11.0  # an ordinary run in between
        assert sess.partial_run(handle, r2, feed_dict={b: 1, c: 2}) == 4.0
        assert sess.partial_run(None, r1, feed_dict={a: 1, b: 2}) == 3.0  # no handle: an ordinary run


def test_partial_run_errors_leave_the_handle_usable():
    a, b, c, r1, r2 = _abc_graph()
    with tf.Session() as sess:
        handle = sess.partial_run_setup([r1, r2], [a, b, c])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Graph execution error:\n\nFetch c:0 can't be computed from the feeds that have been fed so far\.$"):
            sess.partial_run(handle, r2, feed_dict={a: 1})
        assert sess.partial_run(handle, r1, feed_dict={a: 1, b: 2}) == 3.0  # `a` was not taken as fed
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Graph execution error:\n\nThe fetch r1:0 has already been fetched\.$"):
            sess.partial_run(handle, r1, feed_dict={c: 3})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Graph execution error:\n\nThe feed a:0 has already been fed\.$"):
            sess.partial_run(handle, r2, feed_dict={a: 1, c: 3})
        handle = sess.partial_run_setup([r1], [a, b])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Graph execution error:\n\nThe feed c:0 was not specified in partial_run_setup\.$"):
            sess.partial_run(handle, r2, feed_dict={a: 1, b: 2, c: 3})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Graph execution error:\n\nThe fetch r2:0 was not specified in partial_run_setup\.$"):
            sess.partial_run(handle, "r2:0", feed_dict={a: 1, b: 2})
        with pytest.raises(ValueError, match=r"^Cannot feed value of shape \(2,\) for Tensor a:0, which has shape \(\)$"):
            sess.partial_run(handle, r1, feed_dict={a: [1, 2], b: 2})
        with pytest.raises(RuntimeError, match=r"^partial_run\(\) requires empty `target_list`\. Received: "
                                               r"target_list=\[<tf\.Operation 'r1' type=AddV2>\] \(non-empty\)$"):
            sess.partial_run(handle, r1.op, feed_dict={a: 1, b: 2})
        assert sess.partial_run(handle, r1, feed_dict={a: 1, b: 2}) == 3.0
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Graph execution error:\n\nMust run 'setup' before performing partial runs!"):
            sess.partial_run("a:0->r1:0//1/;0", r1, feed_dict={a: 1, b: 1})


def test_partial_run_setup_errors():
    a, b, c, r1, r2 = _abc_graph()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Graph execution error:\n\na:0 is both fed and fetched\.$"):
            sess.partial_run_setup([a, r1], [a, b])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r'^Graph execution error:\n\nEndpoint "a:0" fed more than once\.$'):
            sess.partial_run_setup(r1, [a, a, b])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Graph execution error:\n\nMust specify at least one target to fetch or execute\.$"):
            sess.partial_run_setup([], [a])
        with pytest.raises(TypeError, match=r"^Argument `fetch` = None has invalid type \"NoneType\"\. Cannot be None"):
            sess.partial_run_setup(None, [a])
        with pytest.raises(TypeError, match=r"^Cannot interpret argument `feed` key as Tensor: "):
            sess.partial_run_setup([r1], [1.5])
        with pytest.raises(ValueError, match=r"^Cannot interpret argument `feed` key as Tensor: The name 'a' refers "
                                             r"to an Operation, not a Tensor\."):
            sess.partial_run_setup([r1], ["a"])
        handle = sess.partial_run_setup([r1])  # no feeds declared
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Graph execution error:\n\nThe feed a:0 was not specified in partial_run_setup\.$"):
            sess.partial_run(handle, r1, feed_dict={a: 1, b: 2})
        assert isinstance(sess.partial_run_setup(r1, a), str) and isinstance(sess.partial_run_setup(r1, (a, b)), str)
    with pytest.raises(RuntimeError, match=r"^Attempted to use a closed Session\.$"):
        sess.partial_run_setup([r1], [a, b])
    with pytest.raises(RuntimeError, match=r"^Attempted to use a closed Session\.$"):
        sess.partial_run(handle, [r1], feed_dict={a: 1, b: 2})
    with pytest.raises(RuntimeError, match=r"^The Session graph is empty\."):
        tf.Session(graph=tf.Graph()).partial_run_setup([])


def test_partial_run_runs_each_node_once_as_soon_as_it_can():
    a, b, _, r1, _ = _abc_graph()
    v = tf.Variable(0.0, name="v")
    inc = tf.assign_add(v, 1.0, name="inc")
    with tf.control_dependencies([inc]):
        r3 = tf.identity(r1, name="r3")
    with tf.Session() as sess:
        sess.run(v.initializer)
        handle = sess.partial_run_setup([r1, inc], [a, b])
        assert sess.run(v) == 1.0  # nothing blocks `inc`: it ran at setup
        assert sess.partial_run(handle, r1, feed_dict={a: 1, b: 2}) == 3.0
        assert sess.run(v) == 1.0
        handle = sess.partial_run_setup([r3, inc], [a, b])
        assert sess.run(v) == 2.0
        assert sess.partial_run(handle, inc) == 2.0
        assert sess.partial_run(handle, r3, feed_dict={a: 1, b: 2}) == 3.0  # its control input already ran
        assert sess.run(v) == 2.0


def test_partial_run_shares_one_value_of_a_stateful_node_between_calls():
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.placeholder(tf.float32, [], name="y")
    r = tf.random_uniform([], name="r")
    s1 = r + x
    s2 = s1 * y + r
    with tf.Session() as sess:
        handle = sess.partial_run_setup([r, s1, s2], [x, y])
        drawn = sess.partial_run(handle, r)
        assert sess.partial_run(handle, s1, {x: 1.0}) == pytest.approx(drawn + 1.0)
        assert sess.partial_run(handle, s2, {y: 2.0}) == pytest.approx((drawn + 1.0) * 2.0 + drawn)


def test_partial_run_kernel_error_ends_the_step():
    x = tf.placeholder(tf.int32, shape=[None], name="x")
    g = tf.gather(tf.constant([1, 2, 3]), x, name="g")
    gg = tf.identity(g, name="gg")
    with tf.Session() as sess:
        handle = sess.partial_run_setup([g, gg], [x])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 7 is not in \[0, 3\)"):
            sess.partial_run(handle, g, feed_dict={x: [7]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Graph execution error:\n\nMust run 'setup' before performing partial runs!"):
            sess.partial_run(handle, gg)


def test_partial_run_failure_at_setup_surfaces_on_the_next_call():
    a = tf.placeholder(tf.float32, [], name="a")
    bad = tf.gather(tf.constant([1, 2]), tf.constant([7]), name="bad")
    ok = a + 1
    with tf.Session() as sess:
        handle = sess.partial_run_setup([bad, ok], [a])  # `bad` needs no feed: it runs, and fails, now
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[0\] = 7 is not in \[0, 2\)"):
            sess.partial_run(handle, ok, {a: 1.0})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Graph execution error:\n\nMust run 'setup' before performing partial runs!"):
            sess.partial_run(handle, bad)


def test_tuple_feed_keys_flatten_key_and_value_as_tf_nest():
    p = tf.placeholder(tf.float32, shape=[2], name="p")
    i = tf.placeholder(tf.int32, name="i")
    s = tf.placeholder(tf.string, name="s")
    with tf.Session() as sess:
        fed = sess.run([p, i, s], {((p, i), s): ((np.array([1, 2]), 3), "x")})
        assert fed[0].tolist() == [1.0, 2.0] and fed[1] == 3 and fed[2] == "x"
        assert sess.run(i, {("i:0",): 4}) == 4
        assert sess.run([p, i], {(p, i): {"b": 3, "a": np.array([1, 2])}})[1] == 3  # dict values in key order
        with pytest.raises(ValueError, match=r"^Could not flatten dictionary\. Key had 2 elements, but value had 3 "
                                             r"elements\. Key: \[<tf\.Tensor 'p:0' shape=\(2,\) dtype=float32>, "
                                             r"<tf\.Tensor 'i:0' shape=<unknown> dtype=int32>\], value: \[1, 2, 3\]\.$"):
            sess.run([p, i], {(p, i): ([1, 2], 3)})
        with pytest.raises(ValueError, match=r'^Cannot flatten dict because this key is not unique: '
                                             r'Tensor\("i:0", dtype=int32\)$'):
            sess.run([i, i], {(i, i): [1, 2]})
        assert sess.run(p, {p: [1, 2], "p:0": [3, 4]}).tolist() == [3.0, 4.0]  # one tensor, two keys: last wins
        assert sess.run(p, {"p:0": [3, 4], p: [1, 2]}).tolist() == [1.0, 2.0]


def test_make_callable_with_and_without_feed_list():
    p = tf.placeholder(tf.float32, shape=[None], name="p")
    q = tf.reduce_sum(p * 2, name="q")
    a = tf.constant(1.0, name="a")
    with tf.Session() as sess:
        with_feeds = sess.make_callable(q, feed_list=[p])
        assert with_feeds([1, 2], [3]) == 6.0  # extra values are ignored
        assert with_feeds([1, 2], options=None) == 6.0  # keywords go to run()
        plain = sess.make_callable(a)
        with pytest.raises(TypeError, match="got an unexpected keyword argument 'options'"):
            plain(options=None)
        with pytest.raises(TypeError, match="takes 0 positional arguments but 1 was given"):
            plain(1)
        with_options = sess.make_callable(a, accept_options=True)
        metadata = tf.RunMetadata()
        assert with_options(tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), metadata) == 1.0
        assert len(metadata.step_stats.dev_stats) == 1
        nothing = sess.make_callable([])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^Must specify at least one target to fetch or execute\.$"):
            nothing()
        assert sess.make_callable([], feed_list=[])() == []
        assert sess.make_callable((a, [a.op]))() == (1.0, [None])
    with pytest.raises(tf.errors.CancelledError, match=r"^Session has been closed\.$"):
        plain()
    with pytest.raises(RuntimeError, match=r"^Attempted to use a closed Session\.$"):
        with_feeds([1.0])
    with pytest.raises(tf.errors.CancelledError, match=r"^Session has been closed\.$"):
        sess.make_callable(a)()
    with pytest.raises(tf.errors.CancelledError, match=r"^Session has been closed\.$"):
        sess.list_devices()


def test_reset_clears_containers_and_closes_the_sessions():
    v = tf.Variable(3.0, name="rv")
    a = tf.constant(2.0)
    sess = tf.Session()
    sess.run(v.initializer)
    tf.Session.reset("")
    with pytest.raises(tf.errors.CancelledError, match=r"^Graph execution error:\n\nSession has been closed\.$"):
        sess.run(v)
    with tf.Session() as fresh:
        assert fresh.run(a) == 2.0
        with pytest.raises(tf.errors.FailedPreconditionError, match="Attempting to use uninitialized value rv"):
            fresh.run(v)
    sess.close()


def test_interactive_session_makes_only_an_explicit_graph_default(caplog):
    tf.constant(1.0)
    first = tf.InteractiveSession()
    tf.reset_default_graph()  # the session is default, its graph is not pushed: no nesting to violate
    assert tf.get_default_session() is first
    assert tf.get_default_graph() is not first.graph
    g = tf.Graph()
    with g.as_default():
        b = tf.constant(2.0)
    with caplog.at_level(logging.ERROR):
        second = tf.InteractiveSession(graph=g)
    assert "An interactive session is already active." in caplog.text
    assert tf.get_default_graph() is g and b.eval() == 2.0
    with pytest.raises(AssertionError, match="^Nesting violated for default stack of <class "):
        first.close()  # out of order: the later default is still in place
    second.close()
    second.close()
    assert tf.get_default_session() is first and tf.get_default_graph() is not g
    first.as_default().__exit__(None, None, None)  # leave no default behind for later tests
    assert tf.get_default_session() is None


def test_log_device_placement_prints_the_whole_graph_at_each_extension(capfd):
    config = tf.ConfigProto(log_device_placement=True)
    a = tf.constant(1.0, name="a")
    b = tf.add(a, a, name="b")
    with tf.Session(config=config) as sess:
        sess.run(b)
        c = tf.multiply(b, 2.0, name="c")
        sess.run(c)
        sess.run(c)
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    assert capfd.readouterr().out.splitlines() == [
        f"b: (AddV2): {cpu}", f"a: (Const): {cpu}",
        f"b: (AddV2): {cpu}", f"c: (Mul): {cpu}", f"a: (Const): {cpu}", f"c/y: (Const): {cpu}"]


def test_run_metadata_is_replaced_and_gets_partition_graphs_on_request():
    p = tf.placeholder(tf.float32, name="p")
    y = tf.identity(p * 2.0, name="y")
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(y, {p: 1.0}, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=metadata)
        assert len(metadata.step_stats.dev_stats) == 1 and not metadata.partition_graphs
        sess.run(y, {p: 1.0}, run_metadata=metadata)
        assert not metadata.step_stats.dev_stats
        sess.run(y, {p: 1.0}, options=tf.RunOptions(output_partition_graphs=True), run_metadata=metadata)
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(y, run_metadata=metadata)  # a failed step leaves the metadata alone
    (graph,) = metadata.partition_graphs
    ops = collections.Counter(node.op for node in graph.node)
    assert ops["_Arg"] == 1 and ops["_Retval"] == 1 and ops["Mul"] == 1


def test_string_feed_must_hold_str_or_bytes():
    strings = tf.placeholder(tf.string, shape=[None], name="st")
    scalar = tf.placeholder(tf.string, shape=[], name="s0")
    with tf.Session() as sess:
        assert sess.run(tf.identity(strings), {strings: ["a", b"b"]}).tolist() == [b"a", b"b"]
        for value, kind in (([1, 2], "int"), ([None], "NoneType"), (np.array([1, 2]), "int"), ([True], "bool"),
                            (["a", 1], "int")):
            with pytest.raises(tf.errors.InternalError, match=rf"^Unsupported object type {kind}$"):
                sess.run(tf.identity(strings), {strings: value})
        with pytest.raises(TypeError, match=r"^Type of feed value 5 with type <class 'int'> is not compatible with "
                                            r"Tensor type <class 'object'>\."):
            sess.run(tf.identity(scalar), {scalar: 5})


def test_list_devices_gives_tfs_device_attributes():
    tf.constant(1.0)
    with tf.Session() as sess:
        (device,) = sess.list_devices()
        assert (device.name, device.device_type, device.memory_limit_bytes) == (
            "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 268435456)
        assert isinstance(device.incarnation, int) and device.incarnation != 0
        assert sess.list_devices()[0].incarnation == device.incarnation
        assert repr(device) == (f"_DeviceAttributes(/job:localhost/replica:0/task:0/device:CPU:0, CPU, 268435456, "
                                f"{device.incarnation})")
        with pytest.raises(AttributeError):
            device.name = "other"


def test_a_step_whose_fetches_are_all_fed_never_reaches_the_runtime():
    p = tf.placeholder(tf.float32, name="p")
    with tf.device("/device:GPU:3"):
        tf.identity(p, name="unplaceable")
    metadata = tf.RunMetadata()
    metadata.partition_graphs.add()
    with tf.Session() as sess:
        assert sess.run([]) == []
        assert sess.run([p, {"a": p}], {p: 1.0}, run_metadata=metadata) == [1.0, {"a": 1.0}]
        assert not metadata.partition_graphs  # replaced by the (empty) metadata of no step
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(p * 2.0, {p: 1.0})
        # TF's Session interpolates the placer's error (where the node was defined), no op (its tag is bare)
        assert info.value.message.startswith("Graph execution error:\n\nDetected at node 'unplaceable' defined at")
        assert runtime_message(info.value).startswith("Cannot assign a device for operation unplaceable: ")
        assert runtime_message(info.value).endswith("\n\t [[unplaceable]]") and info.value.op is None


# TF 2.21's Session.run reads `options` as `options.SerializeToString()` when it is true (before anything else,
# so the step does not run), and hands the step's metadata to `run_metadata.ParseFromString` when that is
# true (after the step ran). A false value of any kind counts as none.
@pytest.mark.parametrize("options, kind", [({"trace_level": 3}, "dict"), ("abc", "str"), (b"x", "bytes"), (5, "int"),
                                           (True, "bool"), ([1], "list"), (object(), "object")])
def test_run_options_of_a_wrong_kind_fail_before_the_step_as_tf(options, kind):
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    p = tf.placeholder(tf.float32, name="p")
    with tf.Session() as sess:
        sess.run(v.initializer)
        message = f"^'{kind}' object has no attribute 'SerializeToString'$"
        with pytest.raises(AttributeError, match=message):
            sess.run(inc, options=options)
        with pytest.raises(AttributeError, match=message):  # also when every fetch is fed
            sess.run(p, {p: 1.0}, options=options)
        with pytest.raises(AttributeError, match=message):
            sess.make_callable(inc, accept_options=True)(options=options)
        assert sess.run(v) == 0
    with pytest.raises(AttributeError, match=message):  # checked before the session is
        sess.run(inc, options=options)


@pytest.mark.parametrize("metadata, kind", [({"a": 1}, "dict"), ("abc", "str"), (5, "int"), ([1], "list"),
                                            (object(), "object")])
def test_run_metadata_of_a_wrong_kind_fails_after_the_step_as_tf(metadata, kind):
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    p = tf.placeholder(tf.float32, name="p")
    with tf.Session() as sess:
        sess.run(v.initializer)
        message = f"^'{kind}' object has no attribute 'ParseFromString'$"
        with pytest.raises(AttributeError, match=message):
            sess.run(inc, run_metadata=metadata)
        with pytest.raises(AttributeError, match=message):
            sess.run(p, {p: 1.0}, run_metadata=metadata)
        with pytest.raises(AttributeError, match=message):
            sess.make_callable(inc, accept_options=True)(run_metadata=metadata)
        assert sess.run(v) == 2  # both steps ran


def test_false_or_other_protobuf_options_and_metadata_as_tf():
    v = tf.Variable(0, name="v")
    inc = tf.assign_add(v, 1)
    with tf.Session() as sess:
        sess.run(v.initializer)
        for falsy in ({}, "", 0, [], None):
            sess.run(inc, options=falsy, run_metadata=falsy)
        # another message's bytes are parsed as a RunOptions (ConfigProto's field 8 has the wrong wire type
        # for RunOptions' field 8, and is kept as an unknown field), and a RunOptions takes the metadata's bytes
        sess.run(inc, options=tf.ConfigProto(log_device_placement=True))
        sess.run(inc, options=tf.GraphOptions())
        options_as_metadata = tf.RunOptions(timeout_in_ms=7)
        sess.run(inc, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=options_as_metadata)
        assert options_as_metadata.ListFields() == []
        assert sess.run(v) == 8


class _Serializes:
    def __init__(self, data):
        self.data = data

    def SerializeToString(self):  # noqa: N802 - the protobuf method TF calls
        return self.data


def test_run_options_are_read_through_serialize_to_string_as_tf():
    c = tf.constant(2.0, name="c")
    with tf.Session() as sess:
        metadata = tf.RunMetadata()
        traced = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE).SerializeToString()
        assert sess.run(c, options=_Serializes(traced), run_metadata=metadata) == 2.0
        assert len(metadata.step_stats.dev_stats) > 0
        assert sess.run(c, options=_Serializes(traced.decode("latin-1"))) == 2.0  # a str goes through as_bytes
        # TF 2.21's message has its "Graph execution error:\n\n" prefix before this
        for data in (b"\xff", b"\x08"):
            with pytest.raises(tf.errors.InvalidArgumentError, match="^Unparseable RunOptions proto$"):
                sess.run(c, options=_Serializes(data))
        with pytest.raises(TypeError, match="^Expected binary or unicode string, got 5$"):
            sess.run(c, options=_Serializes(5))


def test_a_fetched_uninitialized_ref_fails_at_its_retval_and_fed_fetches_stay_out_of_the_step():
    # TF 2.21: the read of the fetched ref fails in its _Retval (named as TF's call frame names it); a fetch
    # that is fed comes from the feed, so the step's call frame holds only the other fetches
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="sc/v")
        x = tf.placeholder(tf.float32, [], name="in/x")
        loop = tf.while_loop(lambda i: i < 3.0, lambda i: i + 1.0, [x])
        with tf.Session() as sess:
            for fetches in ([v], [loop, v], [v, x]):  # straight-line steps and a dataflow one
                with pytest.raises(tf.errors.FailedPreconditionError) as info:
                    sess.run(fetches, {x: 0.0})
                assert info.value.message.endswith(
                    "\nAttempting to use uninitialized value sc/v\n\t [[{{node _retval_sc/v_0_0}}]]")
                assert info.value.op is None
            metadata = tf.RunMetadata()
            got = sess.run([loop, x * 2.0, x], {x: 1.0}, tf.RunOptions(output_partition_graphs=True), metadata)
    assert got == [3.0, 2.0, 1.0]
    assert sorted(n.name for g in metadata.partition_graphs for n in g.node if n.op in ("_Retval", "_Arg")) == [
        "_arg_in/x_0_0", "_retval_mul_0_0", "_retval_while/Exit_0_1"]


def test_partial_run_setup_reports_a_placement_error_as_a_run_does():
    """TF's partial_run_setup extends the graph inside its call: the error has the run's header (TF 2.21)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, name="x")
        with tf.device("/gpu:0"):
            y = tf.identity(x * 2, name="y")
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.partial_run_setup([y], [x])
    message = str(info.value)
    assert message.startswith("Graph execution error:\n\nDetected at node 'mul' defined at")
    assert message.endswith("refers to a valid device.\n\t [[mul]]") and info.value.op is None
