"""Graph optimizations: constant folding, CSE, unread nodes to NoOps, dead-node removal, MatMul and Conv2D +
BiasAdd fusion, bfloat16 transfers, Recv scheduling."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.optimize import (
    constant_folding_enabled,
    convert_unread_to_noops,
    cse_enabled,
    dependency_optimization_enabled,
    eliminate_common_subexpressions,
    fold_constants,
    fuse_contraction_bias,
    mask_before_pool_gradient,
    remapping_enabled,
    remove_dead_nodes,
)

F32 = dtypes.float32
DEVICE = cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr())


def _const(name, value):
    return NodeDef(name, "Const", [], "", {"value": np.asarray(value, np.float32), "dtype": F32})


def test_constant_chain_is_folded_and_keeps_names():
    g = GraphDef(node=[_const("a", 2.0), _const("b", 3.0), NodeDef("c", "Mul", ["a", "b"], "", {"T": F32}),
                       NodeDef("d", "Neg", ["c"], "", {"T": F32}),
                       NodeDef("p", "Placeholder", [], "", {"dtype": F32, "shape": None}),
                       NodeDef("e", "AddV2", ["d", "p"], "", {"T": F32})])
    out = {n.name: n for n in fold_constants(g, DEVICE).node}
    assert out["c"].op == "Const" and out["c"].attr["value"] == 6.0
    assert out["d"].op == "Const" and out["d"].attr["value"] == -6.0
    assert out["e"].op == "AddV2" and out["p"].op == "Placeholder"
    assert not out["d"].attr["value"].flags.writeable


def test_stateful_and_failing_nodes_are_not_folded_and_gated_ones_keep_their_gates():
    shape = NodeDef("shape", "Const", [], "", {"value": np.array([2], np.int32), "dtype": dtypes.int32})
    g = GraphDef(node=[shape, _const("a", 1.0),
                       NodeDef("r", "RandomUniform", ["shape"], "", {"dtype": F32, "T": dtypes.int32, "seed": 0,
                                                                     "seed2": 0}),
                       NodeDef("gated", "Neg", ["a", "^r"], "", {"T": F32}),
                       NodeDef("bad", "Reshape", ["a", "shape"], "", {"T": F32, "Tshape": dtypes.int32})])
    out = {n.name: n for n in fold_constants(g, DEVICE).node}
    assert {name: n.op for name, n in out.items()} == {"shape": "Const", "a": "Const", "r": "RandomUniform",
                                                       "gated": "Const", "bad": "Reshape"}
    assert out["gated"].input == ["^r"] and out["gated"].attr["value"] == -1.0  # still waits for r


def test_constants_in_a_loop_body_fold_keeping_the_pivot_and_multi_output_nodes_fold_per_output():
    """Grappler folds inside loops: a Const of a loop body waits on the pivot, and what is folded from it
    keeps that gate (so it runs in the frame); a node of several outputs becomes a Const per output."""
    i32 = dtypes.int32
    shape_a = NodeDef("sa", "Const", ["^pivot"], "", {"value": np.array([2, 3], np.int32), "dtype": i32})
    shape_b = NodeDef("sb", "Const", ["^pivot"], "", {"value": np.array([2, 5], np.int32), "dtype": i32})
    axis = NodeDef("axis", "Const", ["^pivot"], "", {"value": np.array(-1, np.int32), "dtype": i32})
    rank = NodeDef("rank", "Const", [], "", {"value": np.array(2, np.int32), "dtype": i32})
    g = GraphDef(node=[_placeholder("pivot"), shape_a, shape_b, axis, rank,
                       NodeDef("mod", "FloorMod", ["axis", "rank"], "", {"T": i32}),
                       NodeDef("offsets", "ConcatOffset", ["mod", "sa", "sb"], "", {"N": 2, "shape_type": i32}),
                       NodeDef("first", "Identity", ["offsets"], "", {"T": i32}),
                       NodeDef("second", "Identity", ["offsets:1"], "", {"T": i32})])
    out = {n.name: n for n in fold_constants(g, DEVICE).node}
    assert out["mod"].op == "Const" and out["mod"].input == ["^pivot"] and out["mod"].attr["value"] == 1
    assert out["offsets"].op == "ConcatOffset"  # left for what waits on it (nothing here: dead-node removal)
    folded = ["ConstantFolding/offsets-folded-0", "ConstantFolding/offsets-folded-1"]
    assert out["first"].input == folded[:1] and out["second"].input == folded[1:]
    assert [out[name].attr["value"].tolist() for name in folded] == [[0, 0], [0, 3]]
    assert all(out[name].input == ["^pivot"] for name in folded)


def test_session_folds_but_random_ops_still_run_every_step():
    tf.reset_default_graph()
    ones = tf.ones([1 << 20])
    noise = tf.random_uniform([3])
    with tf.Session() as sess:
        first, second = sess.run(noise), sess.run(noise)
        assert not np.array_equal(first, second)
        assert sess.run(tf.reduce_sum(ones)) == float(1 << 20)


def test_opt_level_l0_disables_folding():
    class Options:
        opt_level = -1
        do_constant_folding = False

    class Graph:
        optimizer_options = Options()

    class Config:
        graph_options = Graph()

    assert constant_folding_enabled(None)
    assert not constant_folding_enabled(Config())


def _placeholder(name):
    return NodeDef(name, "Placeholder", [], "", {"dtype": F32, "shape": None})


def test_cse_merges_identical_stateless_nodes_only():
    shape = NodeDef("shape", "Const", [], "", {"value": np.array([2], np.int32), "dtype": dtypes.int32})
    random = {"dtype": F32, "T": dtypes.int32, "seed": 0, "seed2": 0}
    g = GraphDef(node=[_placeholder("p"), _placeholder("q"), _const("one", 1.0), _const("one_again", 1.0), shape,
                       NodeDef("a", "AddV2", ["p", "one", "^q"], "", {"T": F32}),
                       NodeDef("b", "AddV2", ["p", "one_again", "^q"], "", {"T": F32}),
                       NodeDef("swapped", "AddV2", ["one", "p"], "", {"T": F32}),
                       NodeDef("other_device", "AddV2", ["p", "one"], "/device:CPU:1", {"T": F32}),
                       NodeDef("r1", "RandomUniform", ["shape"], "", random),
                       NodeDef("r2", "RandomUniform", ["shape"], "", random),
                       NodeDef("c", "Mul", ["a", "b"], "", {"T": F32}),
                       NodeDef("d", "Mul", ["r1", "r2"], "", {"T": F32})])
    out = {n.name: n for n in eliminate_common_subexpressions(g).node}
    assert set(out) == {"p", "q", "one", "shape", "a", "swapped", "other_device", "r1", "r2", "c", "d"}
    assert out["c"].input == ["a", "a"] and out["d"].input == ["r1", "r2"]
    assert "b" in {n.name for n in eliminate_common_subexpressions(g, keep=["b"]).node}


def test_dead_nodes_go_but_stateful_targets_and_call_frame_stay():
    g = GraphDef(node=[_const("a", 1.0), _const("unused", 2.0), NodeDef("n", "Neg", ["a"], "", {"T": F32}),
                       NodeDef("target", "NoOp", [], "", {}), NodeDef("arg", "_Arg", [], "", {"T": F32, "index": 0}),
                       NodeDef("ret", "_Retval", ["n"], "", {"T": F32, "index": 0})])
    assert [n.name for n in remove_dead_nodes(g, keep=["target"]).node] == ["a", "n", "target", "arg", "ret"]


def test_unread_stateless_nodes_become_no_ops_waiting_for_their_inputs():
    p = NodeDef("p", "Placeholder", [], "", {"dtype": F32, "shape": None})
    g = GraphDef(node=[_const("a", 1.0), p, NodeDef("neg", "Neg", ["a", "^p"], "", {"T": F32}),
                       NodeDef("sq", "Square", ["neg"], "", {"T": F32}),
                       NodeDef("rand", "RandomUniform", ["a"], "", {"dtype": F32, "T": F32, "seed": 0, "seed2": 0}),
                       NodeDef("pred", "Placeholder", [], "", {"dtype": dtypes.bool, "shape": None}),
                       NodeDef("sw", "Switch", ["a", "pred"], "", {"T": F32}),
                       NodeDef("branch", "Neg", ["sw:1"], "", {"T": F32}),
                       NodeDef("kept", "Neg", ["a"], "", {"T": F32}),
                       NodeDef("read", "Exp", ["a"], "", {"T": F32}),
                       NodeDef("ret", "_Retval", ["read"], "", {"T": F32, "index": 0}),
                       NodeDef("gate", "NoOp", ["^sq", "^rand", "^branch", "^kept"], "", {})])
    out = {n.name: n for n in convert_unread_to_noops(g, keep=["kept"]).node}
    assert (out["sq"].op, out["sq"].input, out["sq"].attr) == ("NoOp", ["^neg"], {})
    assert (out["neg"].op, out["neg"].input) == ("NoOp", ["^a", "^p"])  # unread once its reader is a NoOp
    # stateful, reading a Switch output (its control edge would be live on both branches), kept, read, frames
    assert [out[n].op for n in ("rand", "branch", "kept", "read", "sw", "a")] == \
        ["RandomUniform", "Neg", "Neg", "Exp", "Switch", "Const"]


def test_session_turns_unread_nodes_off_unless_the_config_says_so():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2])
    gated = tf.tuple([tf.exp(x), tf.reshape(x, [1, 2])])[0]  # the reshape is only waited for
    off = tf.test.benchmark_config()  # the dependency optimizer off
    for config, reshapes in [(None, 0), (off, 1)]:
        assert dependency_optimization_enabled(config) == (reshapes == 0)
        metadata = tf.RunMetadata()
        with tf.Session(config=config) as sess:
            np.testing.assert_allclose(sess.run(gated, {x: [0.0, 1.0]}, options=tf.RunOptions(
                output_partition_graphs=True), run_metadata=metadata), np.exp([0.0, 1.0], dtype=np.float32))
        assert sum(n.op == "Reshape" for n in metadata.partition_graphs[0].node) == reshapes


def test_session_cse_under_optimizer_options():
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [2])
    y = tf.exp(x) + tf.exp(x)
    options = tf.RunOptions(output_partition_graphs=True)
    level_0 = tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
    for optimizer_options, exps in [(tf.OptimizerOptions(), 1), (level_0, 2)]:
        config = tf.ConfigProto(graph_options=tf.GraphOptions(optimizer_options=optimizer_options))
        assert cse_enabled(config) == (exps == 1)
        metadata = tf.RunMetadata()
        with tf.Session(config=config) as sess:
            np.testing.assert_allclose(sess.run(y, {x: [0.0, 1.0]}, options=options, run_metadata=metadata),
                                       2 * np.exp([0.0, 1.0], dtype=np.float32))
        assert sum(n.op == "Exp" for n in metadata.partition_graphs[0].node) == exps


def _two_device_session(**graph_options):
    return tf.Session(config=tf.ConfigProto(device_count={"CPU": 2}, graph_options=tf.GraphOptions(**graph_options)))


def test_bfloat16_sendrecv_casts_around_each_float32_transfer():
    tf.reset_default_graph()
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, [3])
        n = tf.placeholder(tf.int32, [])
    with tf.device("/cpu:1"):
        y = tf.identity(x) * 1.0
        m = n + 0
    data = np.array([1.2345678, -3.1e5, 7.0], np.float32)
    options, metadata = tf.RunOptions(output_partition_graphs=True), tf.RunMetadata()
    with _two_device_session(enable_bfloat16_sendrecv=True) as sess:
        got, count = sess.run([y, m], {x: data, n: 5}, options=options, run_metadata=metadata)
    assert count == 5
    np.testing.assert_array_equal(got.view(np.uint32) & 0xFFFF, 0)
    np.testing.assert_allclose(got, data, rtol=1e-2)
    nodes = [node for graph in metadata.partition_graphs for node in graph.node]
    sends = {node.attr["T"].type for node in nodes if node.op == "_Send"}
    assert sends == {tf.bfloat16.as_datatype_enum, tf.int32.as_datatype_enum}
    assert sum(node.op == "Cast" for node in nodes) == 4  # x there and y back to the client's device
    with _two_device_session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: data}), data)


def _held_bytes_peak(step_stats, recvs, graph_nodes, nbytes):
    """The most bytes received but not yet read at any moment: from each _Recv's end to its consumer's start."""
    stats = {n.node_name: n for dev in step_stats.dev_stats for n in dev.node_stats}
    events = []
    for recv in recvs:
        received = stats[recv].all_start_micros + stats[recv].all_end_rel_micros
        used = min(stats[n.name].all_start_micros for n in graph_nodes if recv in n.input)
        events += [(received, 1), (used, -1)]
    held = peak = 0
    for _, change in sorted(events):
        held += change
        peak = max(peak, held)
    return peak * nbytes


def test_recv_scheduling_lowers_the_peak_of_received_but_unused_bytes():
    tf.reset_default_graph()
    size = 1 << 16
    with tf.device("/cpu:0"):
        parts = [tf.random_uniform([size], name=f"big{k}") for k in range(4)]
    with tf.device("/cpu:1"):
        w = tf.random_normal([160, 160], seed=1)
        h, total = w, 0.0
        for part in parts:
            for _ in range(3):  # a slow local stretch before each received tensor is needed
                h = tf.tanh(tf.matmul(h, w))
            total = total + tf.reduce_sum(tf.identity(part) + tf.reduce_sum(h))
    options = tf.RunOptions(output_partition_graphs=True, trace_level=tf.RunOptions.FULL_TRACE)
    peaks = []
    for scheduling in (False, True):
        metadata = tf.RunMetadata()
        with _two_device_session(enable_recv_scheduling=scheduling) as sess:
            sess.run(total, options=options, run_metadata=metadata)
        nodes = [node for graph in metadata.partition_graphs for node in graph.node]
        recvs = [n for n in nodes if n.op == "_Recv" and n.attr["_src"].s.startswith(b"big")]
        peaks.append(_held_bytes_peak(metadata.step_stats, [n.name for n in recvs], nodes, 4 * size))
        assert len(recvs) == 4
        if scheduling:
            assert all(recv.input and recv.input[0].startswith("^") for recv in recvs)
    assert peaks[1] < peaks[0]


def test_values_only_control_edges_consume_become_noops_on_their_inputs():
    p = NodeDef("p", "Placeholder", [], "", {"dtype": F32, "shape": None})
    pred = NodeDef("pred", "Placeholder", [], "", {"dtype": dtypes.bool, "shape": None})
    g = GraphDef(node=[p, pred, _const("c", 2.0),
                       NodeDef("unread", "Mul", ["p", "c"], "", {"T": F32}),
                       NodeDef("feeds_unread", "Neg", ["p"], "", {"T": F32}),
                       NodeDef("unread_2", "Square", ["feeds_unread", "^c"], "", {"T": F32}),
                       NodeDef("checked", "CheckNumerics", ["p"], "", {"T": F32, "message": "m"}),
                       NodeDef("switch", "Switch", ["p", "pred"], "", {"T": F32}),
                       NodeDef("branch", "Neg", ["switch:1"], "", {"T": F32}),
                       NodeDef("target", "Neg", ["p"], "", {"T": F32}),
                       NodeDef("group", "NoOp", ["^unread", "^unread_2", "^checked", "^branch"], "", {}),
                       NodeDef("out", "Identity", ["p", "^group"], "", {"T": F32})])
    out = {n.name: n for n in convert_unread_to_noops(g, keep=["target", "out"]).node}
    assert (out["unread"].op, out["unread"].input, out["unread"].attr) == ("NoOp", ["^p", "^c"], {})
    # a NoOp's inputs may become unread in turn
    assert out["unread_2"].input == ["^feeds_unread", "^c"] and out["feeds_unread"].op == "NoOp"
    # kept: run for its error, fed by a Switch (its liveness is the branch's), a target, what is read
    assert [out[n].op for n in ("checked", "branch", "target", "out", "c")] == [
        "CheckNumerics", "Neg", "Neg", "Identity", "Const"]


def test_an_unread_failing_op_does_not_fail_the_step_unless_dependency_optimization_is_off():
    x = tf.placeholder(tf.float32, [None])
    bad = tf.reshape(x, [3])  # fails for 2 values, as real TF's Grappler leaves it unrun
    with tf.control_dependencies([bad]):
        y = tf.identity(x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1, 2]}), [1, 2])
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = 2  # RewriterConfig.OFF
    assert not dependency_optimization_enabled(config) and dependency_optimization_enabled(None)
    with tf.Session(config=config) as sess, pytest.raises(tf.errors.InvalidArgumentError, match="node Reshape"):
        sess.run(y, {x: [1, 2]})


def _matmul(name, a, b, dtype=F32):
    return NodeDef(name, "MatMul", [a, b], "", {"T": dtype, "transpose_a": False, "transpose_b": True})


def test_matmul_bias_add_and_activation_fuse_as_grapplers_remapper():
    f64 = NodeDef("w64", "Const", [], "", {"value": np.eye(2), "dtype": dtypes.float64})
    g = GraphDef(node=[NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}), _const("w", np.eye(2)),
                       _const("b", [1.0, 2.0]), f64,
                       _matmul("mm", "x", "w"), NodeDef("ba", "BiasAdd", ["mm", "b"], "", {"T": F32}),
                       NodeDef("act", "LeakyRelu", ["ba", "^x"], "", {"T": F32, "alpha": 0.5}),
                       _matmul("read_twice", "x", "w"), NodeDef("ba2", "BiasAdd", ["read_twice", "b"], "", {"T": F32}),
                       NodeDef("other", "Neg", ["read_twice"], "", {"T": F32}),
                       _matmul("double", "w64", "w64", dtypes.float64),
                       NodeDef("ba3", "BiasAdd", ["double", "w64"], "", {"T": dtypes.float64}),
                       _matmul("target", "x", "w"), NodeDef("ba4", "BiasAdd", ["target", "b"], "", {"T": F32}),
                       NodeDef("v", "VariableV2", [], "", {"shape": [2], "dtype": F32}),
                       NodeDef("v/read", "Identity", ["v"], "", {"T": F32}),
                       _matmul("mm5", "x", "w"), NodeDef("add5", "AddV2", ["v/read", "mm5:0"], "", {"T": F32}),
                       _matmul("mm6", "x", "w"), NodeDef("add6", "AddV2", ["mm6", "x"], "", {"T": F32})])
    out = {n.name: n for n in fuse_contraction_bias(g, keep=["target"]).node}
    # an Add of a vector the graph fixes to the product's width is a bias (the oneDNN remapper's rule)
    assert (out["add5"].op, out["add5"].input, "mm5" in out) == ("_FusedMatMul", ["x", "w", "v/read"], False)
    assert (out["mm6"].op, out["add6"].op) == ("MatMul", "AddV2")
    assert "mm" not in out and "ba" not in out
    fused = out["act"]
    assert (fused.op, fused.input) == ("_FusedMatMul", ["x", "w", "b", "^x"])
    assert fused.attr["fused_ops"] == [b"BiasAdd", b"LeakyRelu"] and fused.attr["leakyrelu_alpha"] == 0.5
    assert fused.attr["transpose_b"] and fused.attr["num_args"] == 1
    # a product read twice, a double one, a target's: as written
    assert [out[n].op for n in ("read_twice", "ba2", "double", "ba3", "target", "ba4")] == [
        "MatMul", "BiasAdd", "MatMul", "BiasAdd", "MatMul", "BiasAdd"]


def test_session_fuses_matmul_bias_add_with_the_same_values_unless_remapping_is_off():
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [4, 3])
    w = tf.constant(rng.standard_normal((3, 5)).astype(np.float32))
    b = tf.placeholder(tf.float32, [None])
    y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b, name="logits"), name="hidden")
    feeds = {x: rng.standard_normal((4, 3)).astype(np.float32), b: rng.standard_normal(5).astype(np.float32)}
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.remapping = 2  # RewriterConfig.OFF
    assert not remapping_enabled(config) and remapping_enabled(None)
    results = []
    for session_config in (None, config):
        with tf.Session(config=session_config) as sess:
            metadata = tf.RunMetadata()
            results.append(sess.run(y, feeds, tf.RunOptions(output_partition_graphs=True), metadata))
            ops = {n.name: n.op for graph in metadata.partition_graphs for n in graph.node}
            assert (ops["hidden"] == "_FusedMatMul") is (session_config is None)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Must provide as many biases as the last "
                               r"dimension of the input tensor: \[2\] vs. \[4,5\]") as info:
                sess.run(y, {**feeds, b: [1.0, 2.0]})
            assert info.value.node_def.name == ("hidden" if session_config is None else "logits")
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize("rows, depth, units", [(256, 784, 1024), (200, 400, 10000)])
def test_fused_matmul_split_across_threads_adds_each_blocks_bias_as_unfused(rows, depth, units):
    """Products large enough to split (by rows; by columns, wider than tall): the bias added to each block as it
    is made, then the activation, gives the unfused ops' values exactly."""
    rng = np.random.default_rng(1)
    x, w = tf.placeholder(tf.float32, [rows, depth]), tf.placeholder(tf.float32, [depth, units])
    b = tf.placeholder(tf.float32, [units])
    y = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b), name="hidden")
    feeds = {x: rng.standard_normal((rows, depth)).astype(np.float32),
             w: rng.standard_normal((depth, units)).astype(np.float32), b: rng.standard_normal(units).astype(np.float32)}
    unfused = tf.ConfigProto(intra_op_parallelism_threads=2)
    unfused.graph_options.rewrite_options.remapping = 2  # RewriterConfig.OFF
    results = []
    for config in (tf.ConfigProto(intra_op_parallelism_threads=2), unfused):
        with tf.Session(config=config) as sess:
            metadata = tf.RunMetadata()
            results.append(sess.run(y, feeds, tf.RunOptions(output_partition_graphs=True), metadata))
            ops = {n.name: n.op for graph in metadata.partition_graphs for n in graph.node}
            assert (ops["hidden"] == "_FusedMatMul") is (config is not unfused)
    np.testing.assert_array_equal(results[0], results[1])


def test_a_fused_matmul_tf_does_not_implement_fails_as_tfs():
    from tensorweave import errors
    from tensorweave.runtime.executor import Executor

    attrs = {"T": F32, "transpose_a": False, "transpose_b": False, "num_args": 1, "epsilon": 0.0001,
             "leakyrelu_alpha": 0.2}
    g = GraphDef(node=[_const("x", np.eye(2)), _const("b", [1.0, 2.0]),
                       NodeDef("ok", "_FusedMatMul", ["x", "x", "b"], "", {**attrs, "fused_ops": [b"BiasAdd", b"Relu"]}),
                       NodeDef("f", "_FusedMatMul", ["x", "x", "b"], "", {**attrs, "fused_ops": [b"BiasAdd", b"Tanh"]}),
                       NodeDef("r_ok", "_Retval", ["ok"], "", {"T": F32, "index": 0}),
                       NodeDef("r_f", "_Retval", ["f"], "", {"T": F32, "index": 0})])
    ex = Executor(GraphDef(node=g.node[:3] + g.node[4:5]), DEVICE)
    np.testing.assert_array_equal(ex.run([])[0], [[2.0, 2.0], [1.0, 3.0]])
    with pytest.raises(errors.UnimplementedError, match=r"Fusion is not implemented: \[BiasAdd,Tanh\]"):
        Executor(GraphDef(node=g.node[:2] + [g.node[3], g.node[5]]), DEVICE).run([])


def _conv(name, x, w, data_format=b"NHWC"):
    return NodeDef(name, "Conv2D", [x, w], "", {"T": F32, "strides": [1, 1, 1, 1], "use_cudnn_on_gpu": True,
                                                 "padding": b"SAME", "explicit_paddings": [],
                                                 "data_format": data_format, "dilations": [1, 2, 2, 1]})


def test_conv2d_bias_add_and_activation_fuse_as_grapplers_remapper():
    g = GraphDef(node=[NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}),
                       _const("w", np.ones((3, 3, 2, 4))), _const("b", np.ones(4)), _const("b2", np.ones(2)),
                       _conv("conv", "x", "w"), NodeDef("ba", "BiasAdd", ["conv", "b"], "", {"T": F32,
                                                                                        "data_format": b"NHWC"}),
                       NodeDef("act", "Relu6", ["ba"], "", {"T": F32}),
                       NodeDef("v", "VariableV2", [], "", {"shape": [4], "dtype": F32}),
                       NodeDef("v/read", "Identity", ["v"], "", {"T": F32}),
                       _conv("conv2", "x", "w"), NodeDef("add2", "AddV2", ["conv2", "v/read"], "", {"T": F32}),
                       _conv("conv3", "x", "w"), NodeDef("add3", "AddV2", ["conv3", "b2"], "", {"T": F32}),
                       _conv("nchw", "x", "w", b"NCHW"),
                       NodeDef("ba4", "BiasAdd", ["nchw", "b"], "", {"T": F32, "data_format": b"NCHW"}),
                       _conv("conv5", "x", "w"), NodeDef("ba5", "BiasAdd", ["conv5", "b"], "", {"T": F32}),
                       NodeDef("act5", "LeakyRelu", ["ba5"], "", {"T": F32, "alpha": 0.3}),
                       NodeDef("grad5", "LeakyReluGrad", ["act5", "ba5"], "", {"T": F32, "alpha": 0.3})])
    out = {n.name: n for n in fuse_contraction_bias(g).node}
    fused = out["act"]
    # the node TF 2.21's remapper makes (its oneDNN build renames the op _MklNativeFusedConv2D, same attrs)
    assert (fused.op, fused.input) == ("_FusedConv2D", ["x", "w", "b"]) and "conv" not in out and "ba" not in out
    assert fused.attr == {"T": F32, "strides": [1, 1, 1, 1], "padding": b"SAME", "explicit_paddings": [],
                          "data_format": b"NHWC", "dilations": [1, 2, 2, 1], "use_cudnn_on_gpu": True,
                          "TArgs": [F32], "num_args": 1, "num_host_args": 0, "filter_format": b"HWIO",
                          "fused_ops": [b"BiasAdd", b"Relu6"], "epsilon": 0.0, "leakyrelu_alpha": 0.2}
    # an Add of the variable vector as wide as the filter's output is a bias; one of another width is not
    assert (out["add2"].op, out["add2"].input, "conv2" in out) == ("_FusedConv2D", ["x", "w", "v/read"], False)
    assert (out["conv3"].op, out["add3"].op) == ("Conv2D", "AddV2")
    assert (out["nchw"].op, out["ba4"].op) == ("Conv2D", "BiasAdd")
    # a bias sum the activation's gradient also reads: only the bias fuses, named as the BiasAdd (as TF's)
    assert (out["ba5"].op, out["ba5"].attr["fused_ops"], out["act5"].op) == ("_FusedConv2D", [b"BiasAdd"],
                                                                           "LeakyRelu")


@pytest.mark.parametrize("activation", [tf.nn.relu, tf.nn.elu, tf.nn.relu6, None])
def test_session_fuses_conv2d_with_the_same_values_and_gradients_unless_remapping_is_off(monkeypatch, activation):
    from tensorweave.ops import conv_kernels

    monkeypatch.setattr(conv_kernels, "REGION_MIN_SKIPPED", 0)  # the bias and activation fused into each region
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [3, 7, 7, 2])
    w = tf.Variable(rng.standard_normal((3, 3, 2, 4)).astype(np.float32))
    b = tf.Variable(rng.standard_normal(4).astype(np.float32))
    conv = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME") + b
    y = conv if activation is None else activation(conv, name="act")
    grads = tf.gradients(tf.reduce_sum(y * y), [w, b, x])
    feeds = {x: rng.standard_normal((3, 7, 7, 2)).astype(np.float32)}
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.remapping = 2  # RewriterConfig.OFF
    results = []
    for session_config in (None, config):
        with tf.Session(config=session_config) as sess:
            sess.run(tf.global_variables_initializer())
            metadata = tf.RunMetadata()
            results.append(sess.run([y, *grads], feeds, tf.RunOptions(output_partition_graphs=True), metadata))
            ops = {n.name: n.op for graph in metadata.partition_graphs for n in graph.node}
            fused = {name for name, op in ops.items() if op == "_FusedConv2D"}
            # Relu6's gradient reads the bias sum: then only the bias fuses, into the Add's node
            expected = {"act"} if activation in (tf.nn.relu, tf.nn.elu) else {"add"}
            assert fused == (expected if session_config is None else set())
    for fused_value, plain_value in zip(*results):
        np.testing.assert_array_equal(fused_value, plain_value)


def test_fused_conv2d_kernel_checks_as_tfs():
    from tensorweave import errors
    from tensorweave.runtime.executor import Executor

    attrs = {"T": F32, "strides": [1, 1, 1, 1], "padding": b"VALID", "explicit_paddings": [],
             "data_format": b"NHWC", "dilations": [1, 1, 1, 1], "use_cudnn_on_gpu": True, "TArgs": [F32],
             "num_args": 1, "num_host_args": 0, "filter_format": b"HWIO", "epsilon": 0.0, "leakyrelu_alpha": 0.2}
    x, w = np.arange(18, dtype=np.float32).reshape(1, 3, 3, 2), np.ones((2, 2, 2, 1), np.float32)

    def run(fused_ops, bias):
        nodes = [_const("x", x), _const("w", w), _const("b", bias),
                 NodeDef("f", "_FusedConv2D", ["x", "w", "b"], "", {**attrs, "fused_ops": fused_ops}),
                 NodeDef("r", "_Retval", ["f"], "", {"T": F32, "index": 0})]
        return Executor(GraphDef(node=nodes), DEVICE).run([])[0]

    windows = np.lib.stride_tricks.sliding_window_view(x[0], (2, 2), axis=(0, 1))  # [2, 2, C, KH, KW]
    expected = windows.sum(axis=(2, 3, 4)).reshape(1, 2, 2, 1) - 50.0
    np.testing.assert_array_equal(run([b"BiasAdd", b"Relu"], [-50.0]), np.maximum(expected, 0))
    np.testing.assert_array_equal(run([b"BiasAdd"], [-50.0]), expected)
    with pytest.raises(errors.UnimplementedError, match=r"Fusion is not implemented: \[BiasAdd,Tanh\]"):
        run([b"BiasAdd", b"Tanh"], [1.0])
    with pytest.raises(errors.InvalidArgumentError, match=r"Must provide as many biases as the last dimension of "
                                                          r"the input tensor: \[2\] vs. \[1,2,2,1\]"):
        run([b"BiasAdd"], [1.0, 2.0])


def test_relu_grad_of_a_max_pool_grad_masks_the_pooled_gradient_first():
    attrs = {"T": F32, "ksize": [1, 2, 2, 1], "strides": [1, 2, 2, 1], "padding": b"VALID", "data_format": b"NHWC"}
    nodes = [_placeholder("x"), _placeholder("y"), _placeholder("dy"), _placeholder("z"),
             NodeDef("pg", "MaxPoolGrad", ["x", "y", "dy"], "", attrs),
             NodeDef("rg", "ReluGrad", ["pg", "x"], "", {"T": F32}),
             # the features are not the pooling's input: left alone
             NodeDef("pg2", "MaxPoolGrad", ["x", "y", "dy"], "", attrs),
             NodeDef("rg2", "ReluGrad", ["pg2", "z"], "", {"T": F32}),
             # a second reader of the pooling's gradient: left alone
             NodeDef("pg3", "MaxPoolGrad", ["x", "y", "dy"], "", attrs),
             NodeDef("rg3", "ReluGrad", ["pg3", "x"], "", {"T": F32}), NodeDef("other", "Identity", ["pg3"], "")]
    out = {n.name: n for n in mask_before_pool_gradient(GraphDef(node=nodes)).node}
    assert (out["pg"].op, out["pg"].input) == ("ReluGrad", ["dy", "y"])
    assert (out["rg"].op, out["rg"].input, out["rg"].attr) == ("MaxPoolGrad", ["x", "y", "pg"], attrs)
    assert [out[n].op for n in ("pg2", "rg2", "pg3", "rg3")] == ["MaxPoolGrad", "ReluGrad"] * 2
    # a fetched MaxPoolGrad keeps its value
    assert mask_before_pool_gradient(GraphDef(node=nodes[:6]), keep={"pg"}).node[4].op == "MaxPoolGrad"


@pytest.mark.parametrize("padding,rows", [("SAME", 7), ("VALID", 7), ("SAME", 6)])
def test_session_masks_before_the_pool_gradient_with_the_same_values_unless_remapping_is_off(padding, rows):
    rng = np.random.default_rng(0)
    x = tf.placeholder(tf.float32, [2, rows, 6, 3])
    relu = tf.nn.relu(x, name="relu")
    pooled = tf.nn.max_pool(relu, [1, 2, 2, 1], [1, 2, 2, 1], padding)
    dy = tf.placeholder(tf.float32, pooled.shape)
    (grad,) = tf.gradients(pooled, [x], grad_ys=[dy])
    # ties (whole windows of zeros from the relu, repeated maxima) and negative, zero and signed-zero gradients
    values = np.round(rng.standard_normal((2, rows, 6, 3)), 0).astype(np.float32)
    feeds = {x: values, dy: np.where(rng.random(pooled.shape) < 0.2, -0.0,
                                     rng.standard_normal(pooled.shape)).astype(np.float32)}
    config = tf.ConfigProto()
    config.graph_options.rewrite_options.remapping = 2  # RewriterConfig.OFF
    results = []
    for session_config in (None, config):
        with tf.Session(config=session_config) as sess:
            metadata = tf.RunMetadata()
            results.append(sess.run(grad, feeds, tf.RunOptions(output_partition_graphs=True), metadata))
            ops = {n.name: n.op for graph in metadata.partition_graphs for n in graph.node}
            assert ops[grad.op.name] == ("MaxPoolGrad" if session_config is None else "ReluGrad")
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(np.signbit(results[0]), np.signbit(results[1]))


def test_division_by_a_constant_multiplies_by_its_reciprocal_as_grapplers_constant_folding():
    # TF 2.21: x / 3.0 gives x * float32(1 / 3) (a third of all x differ from the quotient in the last bit);
    # with Grappler's constant folding off, the quotient
    xs = np.arange(1, 200, dtype=np.float32) * np.float32(0.37)
    recip = xs * (np.float32(1) / np.float32(3))
    assert (recip != xs / np.float32(3)).any()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        quotients = [x / 3.0, tf.div(x, 3.0), tf.math.xdivy(x, 3.0)]
        off = tf.ConfigProto()
        off.graph_options.rewrite_options.constant_folding = 2  # RewriterConfig.OFF
        with tf.Session() as sess:
            metadata = tf.RunMetadata()
            got = sess.run(quotients, {x: xs}, tf.RunOptions(output_partition_graphs=True), metadata)
            ops = {n.name: (n.op, list(n.input)) for graph in metadata.partition_graphs for n in graph.node}
            np.testing.assert_array_equal(sess.run(tf.math.xdivy(x, 0.0), {x: [0.0, 1.0]}), [0.0, np.inf])
            np.testing.assert_array_equal(sess.run(x / 0.0, {x: [0.0, 1.0]}), [np.nan, np.inf])
        with tf.Session(config=off) as sess:
            np.testing.assert_array_equal(sess.run(x / 3.0, {x: xs}), xs / np.float32(3))
    for value in got:
        np.testing.assert_array_equal(value, recip)
    assert ops["truediv"][0] == "Mul" and ops["ConstantFolding/truediv_recip"][0] == "Const"
    assert ops["xdivy/Xdivy"][0] == "MulNoNan" and ops["xdivy/Xdivy"][1][1] == "_arg_Placeholder_0_0"  # (1 / c, x)


def test_a_folded_reciprocal_below_the_normal_range_is_zero_as_tfs():
    """TF folds 1 / 1e38 with flush-to-zero: x / 1e38 is x * 0 (TF 2.21: zeros, where the quotient is 4e-38)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [3])
        got = sess.run([x / 1e38, x / -1e38, x / 3.0], {x: [1.0, -4.0, 2.5]})
    np.testing.assert_array_equal(got[0], [0.0, -0.0, 0.0])
    np.testing.assert_array_equal(np.signbit(got[1]), [True, False, True])
    np.testing.assert_array_equal(got[2], np.float32([1.0, -4.0, 2.5]) * (np.float32(1) / np.float32(3)))
