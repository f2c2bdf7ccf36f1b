"""The session pipeline: place once, prune, fold, partition, one executor per partition; backends by target."""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.framework import dtypes
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.runtime.direct_session import DirectSession
from tensorweave.runtime.execution_state import ExecutionState
from tensorweave.runtime.partition import partition
from tensorweave.runtime.session_factory import PlanKey, new_session

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"
F32 = dtypes.float32


def _nodes(graph):
    return [op._node_def for op in graph.get_operations()]


def test_a_stateful_node_keeps_its_device_and_kernel_across_plans():
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 1.0)
    doubled = v * 2.0
    session = DirectSession()
    session.extend(_nodes(tf.get_default_graph()))
    session.run(PlanKey.for_step((), (), (v.initializer.name,)), [])
    assert session.run(PlanKey.for_step((), (inc.name,), ()), []) == [2.0]
    assert session.run(PlanKey.for_step((), (doubled.name,), ()), []) == [4.0]
    kernels = [next(n.kernel for n in ex._nodes if n.node_def.name == "v")
               for key, plan in session._plans.items() if key.fetches for ex in plan.executors]
    assert len(kernels) == 2 and kernels[0] is kernels[1]  # one kernel for the variable, as TF's OpSegment
    devices = {n.node_def.device for key, plan in session._plans.items() for ex in plan.executors
               for n in ex._nodes if n.node_def.name == "v"}
    assert devices == {CPU0}
    session.close()


def test_execution_state_places_each_node_once_and_rejects_duplicates():
    devices = [DeviceBase(CPU0, "CPU", np), DeviceBase(CPU1, "CPU", np)]
    state = ExecutionState(devices)
    placed = state.extend([NodeDef("a", "Const", [], "/device:CPU:1", {"value": np.float32(1), "dtype": F32}),
                           NodeDef("b", "Neg", ["a"], "", {"T": F32})])
    assert [n.device for n in placed] == [CPU1, CPU0]
    state.extend([NodeDef("c", "Neg", ["a"], "", {"T": F32})])
    assert [(n.name, n.device) for n in state.placed_graph().node] == [("a", CPU1), ("b", CPU0), ("c", CPU0)]
    assert state.output_dtype("a:0") == F32
    with pytest.raises(errors.InvalidArgumentError, match="^GraphDef argument to Extend includes node 'c', which was "
                       "created by a previous call to Create or Extend in this session.$"):
        state.extend([NodeDef("c", "Neg", ["a"], "", {"T": F32})])
    with pytest.raises(errors.InvalidArgumentError, match="^Duplicate node name in graph: 'e'$"):
        state.extend([NodeDef("e", "Neg", ["a"], "", {"T": F32}), NodeDef("e", "Neg", ["a"], "", {"T": F32})])
    with pytest.raises(errors.InvalidArgumentError, match="^Node 'e': Unknown input node 'nope'$"):
        state.extend([NodeDef("e", "Neg", ["nope"], "", {"T": F32})])
    with pytest.raises(errors.InvalidArgumentError, match="was explicitly assigned to /device:GPU:0"):
        state.extend([NodeDef("d", "Neg", ["a"], "/device:GPU:0", {"T": F32})])
    assert [n.name for n in state.placed_graph().node] == ["a", "b", "c"]  # a failed batch adds nothing


def test_ref_dtypes_come_from_the_graph_and_partial_runs_carry_refs():
    v = tf.Variable(3.0, name="v")
    state = ExecutionState([DeviceBase(CPU0, "CPU", np)])
    state.extend(_nodes(tf.get_default_graph()))
    assert state.output_dtype("v:0") == dtypes.float32
    assert state.output_dtype("v:0", as_ref=True) == dtypes.float32._as_ref
    assert v.dtype == dtypes.float32._as_ref


def test_partition_sends_every_edge_that_crosses_devices_once_per_consumer_device():
    graph = GraphDef(node=[
        NodeDef("_arg_x_0", "_Arg", [], "", {"T": F32, "index": 0}),
        NodeDef("y", "Neg", ["_arg_x_0"], CPU1, {"T": F32}),
        NodeDef("z", "Neg", ["y"], CPU0, {"T": F32}),
        NodeDef("w", "Square", ["y", "^y"], CPU0, {"T": F32}),
        NodeDef("_retval_z_0", "_Retval", ["z"], "", {"T": F32, "index": 0})])
    parts = partition(graph, CPU0)
    cpu0 = [(n.name, n.op, n.input) for n in parts[CPU0].node]
    assert cpu0 == [("_arg_x_0", "_Arg", []), ("z", "Neg", ["y/_3"]), ("w", "Square", ["y/_3", "^y/_7"]),
                    ("_retval_z_0", "_Retval", ["z"]), ("_arg_x_0/_0", "_Send", ["_arg_x_0"]),
                    ("y/_3", "_Recv", []), ("y/_6", "_Recv", []), ("y/_7", "Identity", ["y/_6"])]
    cpu1 = [(n.name, n.op, n.input) for n in parts[CPU1].node]
    assert cpu1 == [("y", "Neg", ["_arg_x_0/_1"]), ("_arg_x_0/_1", "_Recv", []), ("y/_2", "_Send", ["y"]),
                    ("y/_4", "Const", ["^y"]), ("y/_5", "_Send", ["y/_4"])]
    recv = parts[CPU0].node[5]
    assert (recv.attr["tensor_name"], recv.attr["send_device"], recv.attr["recv_device"]) == (
        b"edge_1_y", CPU1.encode(), CPU0.encode())


def test_partition_gives_a_loop_across_devices_a_control_loop_on_the_other_device():
    frame = {"T": dtypes.int32, "frame_name": b"f", "parallel_iterations": 10}

    def node(name, op, inputs, device=CPU0, **attr):
        return NodeDef(name, op, inputs, device, attr)

    graph = GraphDef(node=[
        node("zero", "Const", [], value=np.int32(0), dtype=dtypes.int32),
        node("enter", "Enter", ["zero"], is_constant=False, **frame),
        node("merge", "Merge", ["enter", "next"], T=dtypes.int32, N=2),
        node("limit", "Const", ["^merge"], value=np.int32(3), dtype=dtypes.int32),
        node("less", "Less", ["merge", "limit"], T=dtypes.int32),
        node("cond", "LoopCond", ["less"]),
        node("switch", "Switch", ["merge", "cond"], T=dtypes.int32),
        node("body", "Neg", ["switch:1"], CPU1, T=dtypes.int32),  # the body's op on the other device
        node("next", "NextIteration", ["body"], **{"T": dtypes.int32}),
        node("exit", "Exit", ["switch"], T=dtypes.int32)])
    parts = partition(graph, CPU0)
    cpu1 = {n.name: (n.op, n.input) for n in parts[CPU1].node}
    # TF's control loop on CPU1: a dummy enters the frame, the leader's predicate drives its Switch, and the
    # _Recv inside the frame waits on its Merge
    assert cpu1["body/_0"] == ("Const", [])
    assert cpu1["_cloopbody/_1"] == ("Enter", ["body/_0"])
    assert cpu1["_cloopbody/_2"] == ("Merge", ["_cloopbody/_1", "_cloopbody/_4"])
    switch_op, (merged, predicate) = cpu1["_cloopbody/_3"]
    assert (switch_op, merged, cpu1["_cloopbody/_4"]) == ("Switch", "_cloopbody/_2",
                                                          ("NextIteration", ["_cloopbody/_3:1"]))
    received = cpu1["body"][1][0]
    assert cpu1[predicate] == cpu1[received] == ("_Recv", ["^_cloopbody/_2"])  # the predicate, the body's input
    assert [n.op for n in parts[CPU0].node if n.name.startswith("_cloop")] == [
        "Enter", "Merge", "Switch", "NextIteration"]  # the leader receives the body's value inside the frame


def test_loops_whose_bodies_span_two_devices_give_one_devices_values_and_gradients():
    config = tf.ConfigProto(device_count={"CPU": 2})

    def run(device):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [3])
            w = tf.constant([0.5, -1.0, 2.0])

            def body(i, v):
                with tf.device(device):
                    u = tf.tanh(v * w)
                return i + 1, u + tf.cast(i, tf.float32)

            def outer(k, a):  # a nested loop with its inner body's op on `device`
                def inner(j, b):
                    with tf.device(device):
                        c = tf.sin(b) * tf.cast(k + 1, tf.float32)
                    return j + 1, b + c
                return k + 1, tf.while_loop(lambda j, b: j < k + 1, inner, [tf.constant(0), a])[1]

            out = tf.while_loop(lambda i, v: i < 4, body, [tf.constant(0), x])[1]
            nested = tf.while_loop(lambda k, a: k < 3, outer, [tf.constant(0), x])[1]
            fetches = [out, nested] + tf.gradients(tf.reduce_sum(out * out) + tf.reduce_sum(nested), [x, w])
            options, metadata = tf.RunOptions(output_partition_graphs=True), tf.RunMetadata()
            with tf.Session(config=config) as sess:
                values = [sess.run(fetches, {x: [0.1, -0.2, 0.3]}, options=options, run_metadata=metadata)
                          for _ in range(2)]
            return values, len(metadata.partition_graphs)

    (spread, again), parts = run("/cpu:1")
    (local, _), one = run("/cpu:0")
    assert (parts, one) == (2, 1)
    for a, b, c in zip(spread, again, local):
        np.testing.assert_allclose(a, c, rtol=1e-6)
        np.testing.assert_array_equal(a, b)


def _by_op_type(moved, device):
    """A device function: ops of the types in `moved` on `device`, the others on /cpu:0."""
    return lambda op: device if op.type in moved else "/cpu:0"


def _alternating(device):
    """A device function that puts every other op on `device`: a loop's nodes land on both devices."""
    count = iter(range(1 << 20))
    return lambda op: device if next(count) % 2 else "/cpu:0"


def _with_gradient(out, x):
    return [out] + tf.gradients(tf.reduce_sum(out * out), [x])


def _split_cond(x, p, device):
    with tf.device(device):
        predicate = tf.logical_not(p)

    def true_fn():
        with tf.device("/cpu:0"):
            return tf.sin(x) * 2.0

    def false_fn():
        with tf.device(device):
            return tf.cos(x) - 1.0

    return _with_gradient(tf.cond(predicate, true_fn, false_fn), x)


def _cond_in_loop(x, p, device):
    def body(i, v):
        with tf.device(device):
            even = tf.equal(i % 2, 0)
        return i + 1, tf.cond(even, lambda: v * 2.0, lambda: v - tf.cast(p, tf.float32))

    return _with_gradient(tf.while_loop(lambda i, v: i < 5, body, [0, x])[1], x)


def _loop_in_cond(x, p, device):
    def loop():
        with tf.device(device):
            return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * 2.0), [0, x])[1]

    return _with_gradient(tf.cond(p, loop, lambda: x + 100.0), x)


def _loop_under(device_fn, nested=False):
    def build(x, p, device):
        def inner(k, a):
            return tf.while_loop(lambda j, b: j < k + 1, lambda j, b: (j + 1, tf.sin(b) + 0.5), [0, a])[1]

        def body(i, v):
            v = tf.cond(i > 1, lambda: inner(i, v) * 0.5, lambda: inner(i, v) + 1.0) if nested else v
            return i + 1, tf.tanh(v) * 1.5 + tf.cast(i, tf.float32)

        with tf.device(device_fn(device)):  # the gradient's loop too
            return _with_gradient(tf.while_loop(lambda i, v: i < 4, body, [0, x])[1], x)

    return build


@pytest.mark.parametrize("build", [
    _split_cond, _cond_in_loop, _loop_in_cond, _loop_under(_alternating), _loop_under(_alternating, nested=True),
    _loop_under(lambda d: _by_op_type({"Merge"}, d)), _loop_under(lambda d: _by_op_type({"Enter"}, d)),
    _loop_under(lambda d: _by_op_type({"NextIteration", "LoopCond", "Less"}, d)),
    _loop_under(lambda d: _by_op_type({"Tanh"}, d))],
    ids=["cond_branches", "cond_in_loop", "loop_in_cond", "alternating_loop", "alternating_nested", "merge_moved",
         "enters_moved", "next_iteration_and_predicate_moved", "body_op_and_its_stack_moved"])
def test_control_flow_split_across_devices_gives_one_devices_values_and_gradients(build):
    """Conds and loops (their gradients too) whose nodes TF1 programs spread over two devices: placement keeps
    a loop variable's nodes with its Merge, the partitioner adds control loops where a frame's values cross,
    and the results are one device's."""
    def run(device):
        with tf.Graph().as_default():
            x, p = tf.placeholder(tf.float32, [3]), tf.placeholder(tf.bool, [])
            fetches = build(x, p, device)
            options, metadata = tf.RunOptions(output_partition_graphs=True), tf.RunMetadata()
            with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
                values = [sess.run(fetches, {x: [0.1, -0.2, 0.3], p: flag}, options=options, run_metadata=metadata)
                          for flag in (True, False)]
            return values, len(metadata.partition_graphs)

    spread, parts = run("/cpu:1")
    local, one = run("/cpu:0")
    assert (parts, one) == (2, 1)
    for values, expected in zip(spread, local):
        for value, want in zip(values, expected):
            np.testing.assert_allclose(value, want, rtol=1e-6)


def test_a_loop_variables_nodes_go_where_its_merge_goes_as_tf():
    """TF places a loop variable's Enter, Merge, Switch, NextIteration and Exit together, where the Merge asks
    to go; the other requests give way (recorded from TF 2.21)."""
    def devices(moved):
        with tf.Graph().as_default() as graph:
            with tf.device(_by_op_type(moved, "/cpu:1")):
                tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], name="loop")
            state = ExecutionState(DirectSession(tf.ConfigProto(device_count={"CPU": 2})).devices)
            placed = state.extend(_nodes(graph))
            return {n.op: n.device[-1] for n in placed if n.op in ("Enter", "Merge", "Switch", "NextIteration",
                                                                    "Exit", "LoopCond")}

    assert devices({"Merge"}) == {"Enter": "1", "Merge": "1", "Switch": "1", "NextIteration": "1", "Exit": "1",
                                  "LoopCond": "0"}
    for moved in ({"Enter"}, {"NextIteration"}, {"Exit"}, {"Switch"}):
        assert set(devices(moved).values()) == {"0"}
    assert devices({"LoopCond", "Less"})["LoopCond"] == "1"


def test_session_factories_are_chosen_by_target():
    assert isinstance(new_session(""), DirectSession)
    with pytest.raises(errors.NotFoundError, match='No session factory registered for the given session options: '
                                                   '{target: "foo://x"}'):
        new_session("foo://x")


def test_a_tensor_too_large_to_allocate_is_resource_exhausted_on_every_path():
    z = tf.zeros([2**40], name="zeros")
    message = re.escape("OOM when allocating tensor with shape[1099511627776] and type float on "
                        "/job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu")
    with tf.Session() as sess, pytest.raises(errors.ResourceExhaustedError, match=message) as info:
        sess.run(z)  # constant folding tries first, then the step reports it
    assert "zeros" in str(info.value)
    config = tf.ConfigProto()
    config.graph_options.optimizer_options.opt_level = -1  # no folding: the executor's path
    with tf.Session(config=config) as sess, pytest.raises(errors.ResourceExhaustedError, match=message):
        sess.run(z)


def test_config_device_count_and_thread_counts_as_tf():
    with pytest.raises(errors.NotFoundError, match="No CPU devices are available in this process"):
        tf.Session(config=tf.ConfigProto(device_count={"CPU": 0}))
    a = tf.constant(2.0)
    b = tf.matmul([[1.0, 2.0]], [[3.0], [4.0]]) + tf.matmul([[1.0]], [[a]])
    with tf.Session(config=tf.ConfigProto(inter_op_parallelism_threads=-1)) as sess:  # the caller's thread
        assert sess.run(b).tolist() == [[13.0]]


def test_several_cpu_devices_exchange_tensors_as_tf():
    """ConfigProto(device_count={'CPU': 2}): placement by tf.device and colocation, Send/Recv between the
    partitions; values and partition graphs as TF's (recorded)."""
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.device("/cpu:1"):
        x = tf.placeholder(tf.float32, [2], name="x")
        v = tf.Variable(3.0, name="v")
    y = x * 2.0
    z = tf.assign_add(v, 1.0)  # colocated with v: on CPU:1
    w = v * 10.0
    with tf.control_dependencies([z]):
        q = tf.identity(y)
    p = tf.placeholder(tf.bool, [])
    with tf.device("/cpu:1"):
        c = tf.cond(p, lambda: x + 1, lambda: x - 1)
    options, metadata = tf.RunOptions(output_partition_graphs=True, trace_level=3), tf.RunMetadata()
    with tf.Session(config=config) as sess:
        assert [d.name for d in sess.list_devices()] == [CPU0, CPU1]
        sess.run(v.initializer)
        values = sess.run([y, z, w, q], {x: [1, 2]}, options=options, run_metadata=metadata)
        assert [np.asarray(value).tolist() for value in values] == [[2.0, 4.0], 4.0, 40.0, [2.0, 4.0]]
        graphs = sorted(sorted((n.op, n.device[-5:]) for n in g.node) for g in metadata.partition_graphs)
        assert graphs == [
            [("AssignAdd", "CPU:1"), ("Const", "CPU:1"), ("Const", "CPU:1"), ("Identity", "CPU:1"),
             ("VariableV2", "CPU:1"), ("_Send", "CPU:1"), ("_Send", "CPU:1"), ("_Send", "CPU:1")],
            [("Const", "CPU:0"), ("Const", "CPU:0"), ("Identity", "CPU:0"), ("Identity", "CPU:0"), ("Mul", "CPU:0"),
             ("Mul", "CPU:0"), ("_Arg", "CPU:0"), ("_Recv", "CPU:0"), ("_Recv", "CPU:0"), ("_Recv", "CPU:0"),
             ("_Retval", "CPU:0"), ("_Retval", "CPU:0"), ("_Retval", "CPU:0"), ("_Retval", "CPU:0")]]
        assert sorted(d.device for d in metadata.step_stats.dev_stats) == [CPU0, CPU1]
        assert sess.run(v) == 4.0
        assert sess.run(c * 3, {x: [1, 2], p: True}).tolist() == [6.0, 9.0]  # dead tensors cross devices too
        assert sess.run(c * 3, {x: [1, 2], p: False}).tolist() == [0.0, 3.0]


def test_colocated_nodes_with_incompatible_devices_fail_as_tf():
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.colocate_with(a):
        b = tf.identity(a, name="b")
    b.op._set_device("/cpu:1")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess, pytest.raises(
            errors.InvalidArgumentError, match=re.escape(
                "Cannot colocate nodes {{colocation_node b}} and {{colocation_node a}}: Cannot merge devices with "
                "incompatible ids: '/device:CPU:1' and '/device:CPU:0'")):
        sess.run(b)


def _never_arriving_recv():
    """A _Recv whose value never comes: a step that fetches it waits until cancelled."""
    op = tf.get_default_graph().create_op("_Recv", [], [tf.float32], name="never", attrs={
        "tensor_type": tf.float32, "tensor_name": "nothing", "send_device": CPU1, "send_device_incarnation": 1,
        "recv_device": CPU0, "client_terminated": False})
    return op.outputs[0] * 2.0


def test_a_waiting_step_times_out_as_tf():
    waiting = _never_arriving_recv()
    with tf.Session() as sess:
        with pytest.raises(errors.DeadlineExceededError, match="Timed out waiting for notification"):
            sess.run(waiting, options=tf.RunOptions(timeout_in_ms=50))
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=50)) as sess:
        with pytest.raises(errors.DeadlineExceededError, match="Timed out waiting for notification"):
            sess.run(waiting)


@pytest.mark.parametrize("compiled", [True, False])
def test_a_timeout_ends_a_loop_that_never_would(compiled):
    # the loop keeps the caller's thread busy: the deadline's watcher thread cancels the step, and the loop
    # (compiled, or node by node when a cond in its body keeps it on the dataflow path) stops at it
    def body(k):
        return k + 1 if compiled else tf.cond(k > 5, lambda: k + 1, lambda: k + 2)

    endless = tf.while_loop(lambda k: k > -1, body, [0])
    with tf.Session() as sess:
        with pytest.raises(errors.DeadlineExceededError, match="Timed out waiting for notification"):
            sess.run(endless, options=tf.RunOptions(timeout_in_ms=100))
        assert sess.run(tf.while_loop(lambda k: k < 10, body, [0]), options=tf.RunOptions(timeout_in_ms=5000)) >= 10


def test_closing_the_session_cancels_its_waiting_steps():
    import threading
    import time

    waiting = _never_arriving_recv()
    sess = tf.Session()
    outcome = []

    def run():
        try:
            sess.run(waiting)
        except errors.OpError as e:
            outcome.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.1)
    sess.close()
    thread.join(5)
    assert not thread.is_alive() and isinstance(outcome[0], errors.CancelledError)


def test_session_inter_op_thread_pools_and_run_options_choose_one():
    """ConfigProto.session_inter_op_thread_pool and RunOptions.inter_op_thread_pool, with TF 2.21's errors."""
    config = tf.ConfigProto()
    config.session_inter_op_thread_pool.add(num_threads=2)
    config.session_inter_op_thread_pool.add(num_threads=1, global_name="tw_test_named_pool")
    with tf.Graph().as_default():
        x = tf.constant(3.0) * 2
        with tf.Session(config=config) as first:
            for index in (0, 1, -1):
                assert first.run(x, options=tf.RunOptions(inter_op_thread_pool=index)) == 6.0
            for index in (2, -2):
                with pytest.raises(tf.errors.InvalidArgumentError, match=f"^Graph execution error:\n\nInvalid inter_op_thread_pool: {index}$"):
                    first.run(x, options=tf.RunOptions(inter_op_thread_pool=index))
            backend = first._session
            pools = [plan.executors[0]._pool for plan in backend._pool_plans.values()]
            assert pools.count(None) == 1 and backend._pools[1] in pools
            with tf.Session(config=config) as second:  # a named pool is the process's: both sessions share it
                assert second._session._pools[1] is backend._pools[1]
                assert second._session._pools[0] is not backend._pools[0]
        with tf.Session(config=config) as third:  # closing sessions left the named pool running
            assert third.run(x, options=tf.RunOptions(inter_op_thread_pool=1)) == 6.0
        with tf.Session() as default:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid inter_op_thread_pool: 1"):
                default.run(x, options=tf.RunOptions(inter_op_thread_pool=1))


@pytest.mark.parametrize("dataflow", [False, True])
def test_readers_of_a_variable_run_before_its_updates_in_one_step_as_tf(dataflow):
    """A step fetching a variable's readers beside its updates reads the old value, in both schedules, what
    ever the construction order (TF's values, recorded)."""
    v = tf.Variable(0, name="v")
    w = tf.Variable(10.0, name="w")
    a1 = tf.assign_add(v, 1)
    r1 = (v + 0) * 2 + 1
    a2 = tf.assign(w, tf.cast(v, tf.float32) + 100.0)
    r5 = w * 1.0
    fetches = [a1, a2, r5, r1]
    if dataflow:
        fetches.append(tf.cond(tf.constant(True), lambda: v + 0, lambda: v - 1))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first, second = sess.run(fetches), sess.run(fetches)
    assert [float(x) for x in first] == [1, 100, 10, 1] + [0] * dataflow
    assert [float(x) for x in second] == [2, 101, 100, 3] + [1] * dataflow


@pytest.mark.parametrize("resource", [False, True])
def test_readers_built_after_minimize_read_the_variable_before_the_training_op_as_tf(resource):
    """Readers ready at the step's start run before a training op that waits for the whole backward pass (TF's
    first-in first-out ready queue), however late they were built; slices and transposes are copies, so an
    in-place update after them does not show through (TF's values, recorded); an Identity of a ref variable
    aliases it, as TF's."""
    m = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), use_resource=resource)
    train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(m * m))
    before = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        transposed, column, row, identity, plus, _ = sess.run(
            [tf.transpose(m), m[:, 0], m[0], tf.identity(m), m + 0, train])
        np.testing.assert_array_equal(transposed, before.T)
        np.testing.assert_array_equal(column, before[:, 0])
        np.testing.assert_array_equal(row, before[0])
        np.testing.assert_array_equal(plus, before)
        np.testing.assert_allclose(identity, before if resource else 0.8 * before)
        _, total, doubled = sess.run([train, tf.reduce_sum(m), m * 2])
        assert total == pytest.approx(12.0)
        np.testing.assert_allclose(doubled, 1.6 * before)
        update = tf.assign_add(m, tf.ones([2, 3])) if not resource else m.assign_add(tf.ones([2, 3]))
        updated, transposed, row, split = sess.run([update, tf.transpose(m), m[1], tf.split(m, 3, axis=1)[1]])
        np.testing.assert_allclose(updated, 0.64 * before + 1)
        np.testing.assert_allclose(transposed, 0.64 * before.T)
        np.testing.assert_allclose(row, 0.64 * before[1])
        np.testing.assert_allclose(split, 0.64 * before[:, 1:2])
