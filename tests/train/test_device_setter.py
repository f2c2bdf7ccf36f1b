"""tf.train.replica_device_setter and the greedy load-balancing strategy: devices as real TF 2.21 assigns
them (the literals were recorded from it)."""

from __future__ import annotations

import pytest

import tensorweave.compat.v1 as tf
from tensorweave.train.device_setter import GreedyLoadBalancingStrategy, byte_size_load_fn


def _devices(graph):
    return {op.name: op.device for op in graph.get_operations()}


def test_round_robin_merges_inner_devices():
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(ps_tasks=2)):
        v1 = tf.Variable([1.0], name="v1")
        v2 = tf.Variable([2.0], name="v2")
        tf.Variable([3.0], name="v3")
        v1 + v2
        with tf.device("/job:foo"):
            tf.Variable(1.0, name="v4")
            v1 * v2
        with tf.device("/task:7"):
            tf.Variable(1.0, name="v5")
        with tf.device("/cpu:0"):
            tf.Variable(1.0, name="v6")
        with tf.device("/job:ps/task:9/gpu:1"):
            tf.Variable(1.0, name="v7")
    devices = _devices(g)
    assert devices["v1/initial_value"] == "/job:worker"
    assert [devices[f"v{i}"] for i in range(1, 8)] == [
        "/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:foo", "/job:ps/task:7",
        "/job:ps/task:0/device:CPU:0", "/job:ps/task:9/device:GPU:1"]
    assert devices["v2/Assign"] == devices["v2/read"] == "/job:ps/task:1"
    assert devices["add"] == "/job:worker"
    assert devices["mul"] == "/job:foo"
    assert devices["v6/initial_value"] == "/job:worker/device:CPU:0"


def test_cluster_counts_the_ps_tasks():
    cluster = {"ps": ["ps0:2222", "ps1:2222", "ps2:2222"], "worker": ["w0:2222"]}
    g = tf.Graph()
    with g.as_default(), tf.device(tf.train.replica_device_setter(
            cluster=tf.train.ClusterSpec(cluster), worker_device="/job:worker/task:1/cpu:0")):
        w = [tf.Variable(1.0, name=f"w{i}") for i in range(4)]
        w[0] + w[1]
    devices = _devices(g)
    assert [devices[f"w{i}"] for i in range(4)] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:2",
                                                    "/job:ps/task:0"]
    assert devices["add"] == "/job:worker/task:1/device:CPU:0"
    assert tf.train.replica_device_setter(cluster={"worker": ["a:1"]}) is None
    assert tf.train.replica_device_setter() is None


def test_no_merge_keeps_explicit_devices_and_empty_devices():
    g = tf.Graph()
    with g.as_default():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, merge_devices=False,
                                                      worker_device="/job:worker/task:0")):
            with tf.device("/job:foo"):
                tf.Variable(1.0, name="m1") + 1
            tf.Variable(1.0, name="m2")
        with tf.device(tf.train.replica_device_setter(ps_tasks=1, ps_device="", worker_device="")):
            tf.Variable(1.0, name="n1")
    devices = _devices(g)
    assert devices["m1"] == devices["add"] == "/job:foo"
    assert devices["m2"] == "/job:ps/task:0"
    assert devices["m2/initial_value"] == "/job:worker/task:0"
    assert devices["n1"] == devices["n1/read"] == ""
    with pytest.raises(TypeError, match="ps_strategy must be callable"):
        tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_greedy_load_balancing_by_byte_size():
    g = tf.Graph()
    strategy = GreedyLoadBalancingStrategy(2, byte_size_load_fn)
    with g.as_default(), tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        big = tf.Variable(tf.zeros([100]), name="big")
        small = [tf.Variable(tf.zeros([10]), name=f"s{i}") for i in range(3)]
        scalar = tf.get_variable("scalar", [], tf.float64)
        last = tf.Variable(tf.zeros([80]), name="last")
    assert big.device == "/job:ps/task:0"
    assert [v.device for v in small] == ["/job:ps/task:1"] * 3
    assert scalar.device == "/job:ps/task:1"
    assert last.device == "/job:ps/task:1"
    assert byte_size_load_fn(scalar.op) == 8
    assert byte_size_load_fn(big.op) == 400
    with pytest.raises(ValueError, match="must have a single output"):
        byte_size_load_fn(tf.no_op())
