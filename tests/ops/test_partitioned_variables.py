"""Partitioned variables: the partitioners, get_variable/variable_scope with a partitioner, the shards'
save-slice info, saving and restoring slices, and embedding lookups over the shards with sparse updates.
Literals were recorded from real TF 2.21 (tf.compat.v1)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_partitioners():
    shape = tf.TensorShape([10, 4])
    assert tf.fixed_size_partitioner(3)(shape, dtype=tf.float32) == [3, 1]
    assert tf.fixed_size_partitioner(5, axis=1)(shape, dtype=tf.float32) == [1, 4]
    assert tf.min_max_variable_partitioner(8, min_slice_size=64)(shape, tf.float32) == [3, 1]
    assert tf.min_max_variable_partitioner(3, axis=1, min_slice_size=16)(shape, tf.string) == [1, 3]
    assert tf.variable_axis_size_partitioner(48)(shape, tf.float32) == [4, 1]
    assert tf.variable_axis_size_partitioner(48, max_shards=2)(shape, tf.float32) == [2, 1]
    assert tf.variable_axis_size_partitioner(3)(shape, tf.float64) == [10, 1]
    with pytest.raises(ValueError, match="max_shards must be positive"):
        tf.variable_axis_size_partitioner(3, max_shards=-1)
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2 when shape is only"):
        tf.min_max_variable_partitioner(2, axis=2)(shape, tf.float32)


def test_get_variable_with_partitioner():
    with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(3)):
        v = tf.get_variable("v", initializer=tf.constant(np.arange(14.0).reshape(7, 2), tf.float32))
    w = tf.get_variable("w", initializer=tf.constant(np.arange(10.0).reshape(5, 2), tf.float32),
                        partitioner=tf.fixed_size_partitioner(2, axis=0))
    u = tf.get_variable("u", [5, 3], partitioner=tf.fixed_size_partitioner(2, axis=1),
                        initializer=tf.ones_initializer())
    assert (type(v).__name__, v.name, v.get_shape().as_list(), v.dtype, len(v), v._get_partitions()) == (
        "PartitionedVariable", "s/v", [7, 2], tf.float32, 3, [3, 1])
    infos = [p._get_save_slice_info() for p in v]
    assert [p.name for p in v] == ["s/v/part_0:0", "s/v/part_1:0", "s/v/part_2:0"]
    assert [p.get_shape().as_list() for p in v] == [[3, 2], [2, 2], [2, 2]]
    assert {i.full_name for i in infos} == {"s/v"} and infos[0].full_shape == [7, 2]
    assert [i.var_offset for i in infos] == [[0, 0], [3, 0], [5, 0]]
    assert [i.spec for i in infos] == ["7 2 0,3:0,2", "7 2 3,2:0,2", "7 2 5,2:0,2"]
    assert [p._get_save_slice_info().spec for p in list(w) + list(u)] == [
        "5 2 0,3:0,2", "5 2 3,2:0,2", "5 3 0,5:0,2", "5 3 0,5:2,1"]
    t = tf.convert_to_tensor(v)
    assert (t.name, t.op.type, t.op.inputs[0].op.name) == ("s/v:0", "Identity", "s/v/ConcatPartitions/concat")
    with tf.variable_scope("s", reuse=True, partitioner=tf.fixed_size_partitioner(3)):
        assert tf.get_variable("v", [7, 2]) is v
    graph = tf.get_default_graph()
    assert sorted(op.name for op in graph.get_operations() if op.name.startswith("s/v/part_1")) == [
        "s/v/part_1", "s/v/part_1/Assign", "s/v/part_1/PartitionedInitializer/Slice",
        "s/v/part_1/PartitionedInitializer/Slice/begin", "s/v/part_1/PartitionedInitializer/Slice/size",
        "s/v/part_1/read"]
    assign = v.assign(np.full((7, 2), 5.0, np.float32))
    assert [a.name for a in assign] == ["Assign:0", "Assign_1:0", "Assign_2:0"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(t), np.arange(14.0).reshape(7, 2))
        np.testing.assert_array_equal(sess.run(w.as_tensor()), np.arange(10.0).reshape(5, 2))
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(u)), np.ones((5, 3)))
        sess.run(assign)
        np.testing.assert_array_equal(sess.run(t), np.full((7, 2), 5.0))


def test_partitioned_variable_errors():
    tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(2))
    tf.get_variable("plain", [4, 2])
    cases = [
        (lambda: tf.get_variable("w", [5, 2], partitioner=tf.fixed_size_partitioner(3)),
         "Partitioned variable with name w already exists. Did you mean to set reuse=True"),
        (lambda: tf.get_variable("x", [None, 2], partitioner=tf.fixed_size_partitioner(3)),
         r"Shape of a new partitioned variable must be fully defined, but instead was \(\?, 2\)."),
        (lambda: tf.get_variable("y", [4, 4], partitioner=lambda shape, dtype: [2, 2]),
         r"Can only slice a variable along one dimension: shape: \(4, 4\), partitioning: \[2, 2\]"),
        (lambda: tf.get_variable("z", [4, 4], partitioner=lambda shape, dtype: [2]),
         r"Partitioner returned a partition list that does not match the Variable's rank: \[2\] vs. \(4, 4\)"),
        (lambda: tf.get_variable("plain", [4, 2], partitioner=tf.fixed_size_partitioner(2)),
         "A partitioner was provided, but an unpartitioned version of the variable was found: plain."),
    ]
    for make, message in cases:
        with pytest.raises(ValueError, match=message):
            make()
    with tf.variable_scope("", reuse=True), pytest.raises(ValueError, match="PartitionedVariable q does not exist"):
        tf.get_variable("q", [4, 2], partitioner=tf.fixed_size_partitioner(2))


def test_reuse_finds_a_partitioned_variable_without_its_partitioner():
    v = tf.get_variable("v", [10, 4], partitioner=tf.fixed_size_partitioner(3))
    with tf.variable_scope("", reuse=True):
        assert tf.get_variable("v", [10, 4]) is v
        assert tf.get_variable("v") is v
        with pytest.raises(ValueError, match=r"Trying to reuse partitioned variable v, but specified shape "
                                             r"\(10, 5\) and found shape \(10, 4\)."):
            tf.get_variable("v", [10, 5])
    for reuse in (False, tf.AUTO_REUSE):
        with tf.variable_scope("", reuse=reuse), pytest.raises(
                ValueError, match=r"^No partitioner was provided, but a partitioned version of the variable was "
                                  r"found: v/part_0. Perhaps a variable of the same name was already created with "
                                  r"partitioning\?$"):
            tf.get_variable("v", [10, 4])


def test_create_partitioned_variables():
    cp = tf.create_partitioned_variables([5, 2], [2, 1], tf.zeros_initializer())
    cp2 = tf.create_partitioned_variables([4], [2], tf.constant([1.0, 2, 3, 4]), name="cp")
    assert [p.name for p in cp] == ["PartitionedVariable/part_0:0", "PartitionedVariable/part_1:0"]
    assert [p.name for p in cp2] == ["cp/part_0:0", "cp/part_1:0"]
    with pytest.raises(ValueError, match="must have the length"):
        tf.create_partitioned_variables([4], [2, 1], tf.zeros_initializer())
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert [sess.run(p).tolist() for p in cp2] == [[1.0, 2.0], [3.0, 4.0]]


def test_saver_writes_slices_and_restores_any_partitioning(tmp_path):
    value = np.arange(14.0, dtype=np.float32).reshape(7, 2)
    g = tf.Graph()
    with g.as_default():
        v = tf.get_variable("v", initializer=tf.constant(value), partitioner=tf.fixed_size_partitioner(3))
        saver = tf.train.Saver()
        assert saver.saver_def.save_tensor_name == "save/control_dependency:0"
        specs = g.get_operation_by_name("save/SaveV2").inputs[2]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(specs).tolist() == [b"7 2 0,3:0,2", b"7 2 3,2:0,2", b"7 2 5,2:0,2"]
            path = saver.save(sess, os.path.join(tmp_path, "ckpt"))
    assert tf.train.list_variables(path) == [("v", [7, 2])]
    np.testing.assert_array_equal(tf.train.load_variable(path, "v"), value)
    for partitioner in (tf.fixed_size_partitioner(2), None):
        g = tf.Graph()
        with g.as_default():
            v = tf.get_variable("v", [7, 2], partitioner=partitioner, initializer=tf.zeros_initializer())
            saver = tf.train.Saver([v] if partitioner else None)
            with tf.Session() as sess:
                saver.restore(sess, path)
                np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(v)), value)


def test_meta_graph_keeps_save_slice_info():
    v = tf.get_variable("v", [4, 2], partitioner=tf.fixed_size_partitioner(2))
    proto = list(v)[1].to_proto()
    assert (proto.save_slice_info_def.full_name, list(proto.save_slice_info_def.var_offset)) == ("v", [2, 0])
    restored = tf.Variable.from_proto(proto)
    assert restored._get_save_slice_info().spec == "4 2 2,2:0,2"


@pytest.mark.parametrize("strategy, looked, indices, updated", [
    ("mod", [[[8.0, 9.0], [6.0, 7.0]], [[10.0, 11.0], [10.0, 11.0]]], [[3], [0, 1, 1], []],
     {(0, 3): [5.5233, 6.5061], (1, 0): [7.5233, 8.5061], (1, 1): [9.5061, 10.5016]}),
    ("div", [[[2.0, 3.0], [18.0, 19.0]], [[8.0, 9.0], [8.0, 9.0]]], [[1], [0, 0], [1]],
     {(0, 1): [1.5233, 2.5061], (1, 0): [7.5061, 8.5016], (2, 1): [17.5233, 18.5061]}),
])
def test_embedding_lookup_over_shards_updates_touched_rows(strategy, looked, indices, updated):
    """Each shard gathers its rows where it lives; its gradient is IndexedSlices and Adagrad applies a
    SparseApplyAdagrad beside it, so untouched rows stay as they were."""
    initial = np.arange(22.0, dtype=np.float32).reshape(11, 2)

    def build():
        emb = tf.get_variable("emb", initializer=tf.constant(initial), partitioner=tf.fixed_size_partitioner(3))
        result = tf.nn.embedding_lookup(emb, tf.constant([[1, 9], [4, 4]]), partition_strategy=strategy)
        loss = tf.reduce_sum(result * [[1.0, 2.0]])
        return emb, result, tf.gradients(loss, list(emb)), tf.train.AdagradOptimizer(0.5).minimize(loss)

    with tf.Graph().as_default() as graph, tf.device(tf.train.replica_device_setter(ps_tasks=3)):
        _, _, grads, _ = build()
    assert [type(x).__name__ for x in grads] == ["IndexedSlices"] * 3
    placed = sorted((op.type, op.device) for op in graph.get_operations()
                    if op.type in ("GatherV2", "SparseApplyAdagrad") and op.device.startswith("/job:ps"))
    assert placed == [("GatherV2", f"/job:ps/task:{i}") for i in range(3)] + [
        ("SparseApplyAdagrad", f"/job:ps/task:{i}") for i in range(3)]
    # the values in a local session, where (as in TF) no /job:ps device exists to place on, even softly
    with tf.Graph().as_default(), tf.Session() as sess:
        emb, result, grads, train = build()
        sess.run(tf.global_variables_initializer())
        assert sess.run(result).tolist() == looked
        assert [sess.run(x.indices).tolist() for x in grads] == indices
        sess.run(train)
        shards = [sess.run(p) for p in emb]
    offsets = [0, 4, 8]
    for shard, values in enumerate(shards):
        for row in range(len(values)):
            expected = updated.get((shard, row), initial[offsets[shard] + row])
            np.testing.assert_allclose(values[row], expected, atol=1e-4)
