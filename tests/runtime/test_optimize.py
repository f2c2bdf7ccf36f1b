"""Constant folding: constant subgraphs become Consts; stateful ops and failing kernels stay."""

import numpy as np

import tensorweave.compat.v1 as tf
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.optimize import constant_folding_enabled, fold_constants

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


def test_stateful_control_dependent_and_failing_nodes_are_not_folded():
    shape = NodeDef("shape", "Const", [], "", {"value": np.array([2], np.int32), "dtype": dtypes.int32})
    g = GraphDef(node=[shape, _const("a", 1.0),
                       NodeDef("r", "RandomUniform", ["shape"], "", {"dtype": F32, "T": dtypes.int32, "seed": 0,
                                                                     "seed2": 0}),
                       NodeDef("gated", "Neg", ["a", "^r"], "", {"T": F32}),
                       NodeDef("bad", "Reshape", ["a", "shape"], "", {"T": F32, "Tshape": dtypes.int32})])
    out = {n.name: n.op for n in fold_constants(g, DEVICE).node}
    assert out == {"shape": "Const", "a": "Const", "r": "RandomUniform", "gated": "Neg", "bad": "Reshape"}


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
