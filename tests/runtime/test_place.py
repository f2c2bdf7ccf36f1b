"""Placement: requested devices must exist unless soft placement is allowed; every node gets a device."""

import pytest

import tensorweave.compat.v1 as tf
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.place import place

CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"
DEVICES = [cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr())]


def _node(name, device):
    return NodeDef(name, "NoOp", [], device, {})


@pytest.mark.parametrize("request_", ["", "/cpu:0", "/device:CPU:*", "/job:localhost", "/job:localhost/task:0"])
def test_matching_requests_get_the_full_device_name(request_):
    (node,) = place(GraphDef(node=[_node("a", request_)]), DEVICES).node
    assert node.device == CPU0


@pytest.mark.parametrize("request_", ["/device:GPU:0", "/job:worker/task:1", "/cpu:1"])
def test_impossible_requests_are_invalid_unless_soft(request_):
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device for operation a"):
        place(GraphDef(node=[_node("a", request_)]), DEVICES)
    (node,) = place(GraphDef(node=[_node("a", request_)]), DEVICES, allow_soft_placement=True).node
    assert node.device == CPU0


def test_session_rejects_any_run_of_an_unplaceable_graph():
    tf.reset_default_graph()
    a = tf.constant(1.0)
    with tf.device("/device:GPU:0"):
        b = a * 2.0
    with tf.Session() as sess:
        for _ in range(2):  # every run fails, whatever it fetches, as in TF
            with pytest.raises(tf.errors.InvalidArgumentError, match="CUDA is not enabled"):
                sess.run(a)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(b) == 2.0
    assert dtypes.float32 == b.dtype
