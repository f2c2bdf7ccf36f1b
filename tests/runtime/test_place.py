"""Placement: requested devices must exist unless soft placement is allowed; every node gets a device."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.client import device_lib
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.place import cost_model_place, place

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
DEVICES = [cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr())]


def _node(name, device):
    return NodeDef(name, "NoOp", [], device, {})


@pytest.mark.parametrize("request_", ["", "/cpu:0", "/device:CPU:*", "/job:localhost", "/job:localhost/task:0"])
def test_matching_requests_get_the_full_device_name(request_):
    (node,) = place(GraphDef(node=[_node("a", request_)]), DEVICES).node
    assert node.device == CPU0


@pytest.mark.parametrize("request_", ["/device:GPU:0", "/cpu:1", "/job:localhost/device:GPU:3"])
def test_impossible_requests_are_invalid_unless_soft(request_):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device for operation a"):
        place(GraphDef(node=[_node("a", request_)]), DEVICES)
    (node,) = place(GraphDef(node=[_node("a", request_)]), DEVICES, allow_soft_placement=True).node
    assert node.device == CPU0


@pytest.mark.parametrize("request_", ["/job:worker/task:1", "/job:localhost/replica:0/task:1/cpu:0", "/replica:1"])
def test_soft_placement_keeps_the_job_replica_and_task(request_):
    """As TF 2.21: soft placement lets go of the device type and index, not of where the device lives."""
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device for operation a"):
        place(GraphDef(node=[_node("a", request_)]), DEVICES, allow_soft_placement=True)


def test_session_rejects_any_run_of_an_unplaceable_graph():
    tf.reset_default_graph()
    a = tf.constant(1.0)
    with tf.device("/device:GPU:0"):
        b = a * 2.0
    with tf.Session() as sess:
        for _ in range(2):  # every run fails, whatever it fetches, as in TF
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"refers to a valid device.\n\t \[\[mul\]\]$"):  # TF's CUDA build: no CUDA hint
                sess.run(a)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(b) == 2.0
    assert dtypes.float32 == b.dtype


TWO_DEVICES = [cpu_device("/job:localhost/replica:0/task:0", i, ResourceMgr()) for i in range(2)]
CPU1 = "/job:localhost/replica:0/task:0/device:CPU:1"


def _variable_and_assign(assign_device):
    variable = NodeDef("v", "VariableV2", [], "/cpu:1", {"shape": tf.TensorShape([]), "dtype": dtypes.float32})
    value = NodeDef("c", "Const", [], "", {"value": np.float32(1), "dtype": dtypes.float32})
    assign = NodeDef("a", "Assign", ["v", "c"], assign_device, {"T": dtypes.float32})  # no _class: the ref edge binds
    return GraphDef(node=[variable, value, assign])


def test_a_ref_edge_puts_its_consumer_with_the_variable():
    placed = {n.name: n.device for n in place(_variable_and_assign(""), TWO_DEVICES).node}
    assert placed == {"v": CPU1, "c": CPU1, "a": CPU1}
    # A consumer's request that contradicts its variable's yields to it (TF 2.21 runs 'a' on CPU:1 too).
    placed = {n.name: n.device for n in place(_variable_and_assign("/cpu:0"), TWO_DEVICES).node}
    assert placed == {"v": CPU1, "c": CPU1, "a": CPU1}


def test_device_functions_choose_each_op_device_at_graph_build():
    tf.reset_default_graph()
    with tf.device(lambda op: "/cpu:1" if op.type == "MatMul" else "/cpu:0"):
        x = tf.constant([[1.0, 2.0]])
        y = tf.matmul(x, x, transpose_b=True)
        z = y + 1.0
    assert (x.device, y.device, z.device) == ("/cpu:0", "/cpu:1", "/cpu:0")
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        assert sess.run(z) == [[6.0]]


def test_list_local_devices_gives_tf_device_attributes():
    devices = device_lib.list_local_devices(tf.ConfigProto(device_count={"CPU": 2}))
    assert [(d.name, d.device_type, d.memory_limit) for d in devices] == [
        ("/device:CPU:0", "CPU", 268435456), ("/device:CPU:1", "CPU", 268435456)]
    assert all(d.incarnation != 0 and d.xla_global_id == -1 for d in devices)
    assert [d.name for d in device_lib.list_local_devices()] == ["/device:CPU:0"]


def _matmul(name, a, b, n):
    return NodeDef(name, "MatMul", [a, b], "", {"T": dtypes.float32, "_output_shapes": [tf.TensorShape([n, n])]})


def _input(name, n):
    return NodeDef(name, "Placeholder", [], "", {"dtype": dtypes.float32, "shape": tf.TensorShape([n, n]),
                                                 "_output_shapes": [tf.TensorShape([n, n])]})


def test_cost_model_spreads_independent_branches_and_keeps_a_chain_together():
    n = 2048
    branches = GraphDef(node=[_input("x", n), _input("y", n), _matmul("a1", "x", "x", n), _matmul("a2", "a1", "a1", n),
                              _matmul("b1", "y", "y", n), _matmul("b2", "b1", "b1", n)])
    placed = {node.name: node.device for node in cost_model_place(branches, TWO_DEVICES).node}
    assert placed["a1"] == placed["a2"] == placed["x"]
    assert placed["b1"] == placed["b2"] == placed["y"]
    assert placed["a1"] != placed["b1"]
    chain = GraphDef(node=[_input("x", n), _matmul("m1", "x", "x", n), _matmul("m2", "m1", "m1", n),
                           _matmul("m3", "m2", "m2", n)])
    assert {node.device for node in cost_model_place(chain, TWO_DEVICES).node} == {CPU0}
    # TF's rule, without the cost model: every unconstrained node on the first device
    assert {node.device for node in place(branches, TWO_DEVICES).node} == {CPU0}


def test_cost_model_sessions_run_branches_on_two_devices(monkeypatch):
    monkeypatch.setenv("TENSORWEAVE_PLACEMENT", "cost_model")
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [64, 64])
    a = tf.matmul(tf.matmul(x, x), x)
    b = tf.matmul(tf.matmul(x + 1.0, x), x)
    options, metadata = tf.RunOptions(output_partition_graphs=True), tf.RunMetadata()
    data = np.eye(64, dtype=np.float32)
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        got_a, got_b = sess.run([a, b], {x: data}, options=options, run_metadata=metadata)
    np.testing.assert_allclose(got_a, data)
    np.testing.assert_allclose(got_b, data + 1.0)
    assert len(metadata.partition_graphs) == 2
