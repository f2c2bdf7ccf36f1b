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
    with pytest.raises(errors.InvalidArgumentError, match="Duplicate node name in graph: 'c'"):
        state.extend([NodeDef("c", "Neg", ["a"], "", {"T": F32})])
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


def test_partition_by_device_puts_call_frame_nodes_with_their_neighbours():
    graph = GraphDef(node=[
        NodeDef("_arg_x_0", "_Arg", [], "", {"T": F32, "index": 0}),
        NodeDef("y", "Neg", ["_arg_x_0"], CPU1, {"T": F32}),
        NodeDef("_retval_y_0", "_Retval", ["y"], "", {"T": F32, "index": 0})])
    parts = partition(graph, CPU0)
    assert list(parts) == [CPU1]
    assert [n.device for n in parts[CPU1].node] == [CPU1] * 3


def test_partition_refuses_edges_across_devices_until_send_recv_partitioning():
    graph = GraphDef(node=[NodeDef("a", "Const", [], CPU1, {"value": np.float32(1), "dtype": F32}),
                           NodeDef("b", "Neg", ["a"], CPU0, {"T": F32})])
    with pytest.raises(errors.UnimplementedError, match="crosses devices"):
        partition(graph, CPU0)


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
