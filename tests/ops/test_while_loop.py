"""`tf.while_loop` (TF1 control flow v1) and the executor's loop frames.

Graph structures, values and messages are recorded from TensorFlow 2.21 (`tf.compat.v1`, v2 behaviour
disabled) running the same programs; the reference while-loop GraphDef is one real TF wrote.
"""

import pathlib
import tracemalloc

import numpy as np
import pytest
from google.protobuf import text_format

import tensorweave.compat.v1 as tf
from tensorweave.devices.cpu import cpu_device
from tensorweave.formats import protos
from tensorweave.framework import dtypes, graph_io
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.executor import Executor
from tensorweave.runtime.prune import prune

REFERENCE = pathlib.Path(__file__).resolve().parents[3] / "shared" / "reference" / "graphs" / "while.pbtxt"


def _reference_executor(parallel_iterations=None):
    graph_def = graph_io.graph_def_from_proto(text_format.Parse(REFERENCE.read_text(), protos.GraphDef()))
    if parallel_iterations is not None:
        for node in graph_def.node:
            if node.op == "Enter":
                node.attr["parallel_iterations"] = parallel_iterations
    types = {"n:0": dtypes.int32, "out:0": dtypes.float32, "loop/Exit:0": dtypes.int32}
    pruned = prune(graph_def, ["n:0"], ["out:0", "loop/Exit:0"], [], types)
    return Executor(pruned, cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr()))


@pytest.mark.parametrize("parallel_iterations", [None, 1, 2])
def test_a_while_loop_graph_written_by_tf_runs(parallel_iterations):
    ex = _reference_executor(parallel_iterations)
    # recorded from TF: (out, loop/Exit) for n = 0, 1, 5, 12
    for n, expected in [(0, (1.0, 0)), (1, (2.0, 1)), (5, (32.0, 5)), (12, (4096.0, 12))]:
        out, count = ex.run([np.int32(n)])
        assert (float(out), int(count)) == expected


def test_loop_memory_stays_flat_as_iterations_grow():
    ex = _reference_executor()
    ex.run([np.int32(10)])
    tracemalloc.start()
    ex.run([np.int32(200)])
    _, short = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    ex.run([np.int32(4000)])
    _, long = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert long < short * 1.5 + 4096  # iterations and their values are freed as they finish


def test_while_loop_builds_tfs_graph():
    n = tf.placeholder(tf.int32, [], name="n")
    i, x = tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, x * 2.0), [tf.constant(0), tf.constant(1.0)],
                         name="loop")
    assert (i.name, x.name) == ("loop/Exit:0", "loop/Exit_1:0")
    structure = [(o.name, o.type, [t.name for t in o.inputs], [c.name for c in o.control_inputs])
                 for o in tf.get_default_graph().get_operations()]
    assert structure == [  # recorded from TF
        ("n", "Placeholder", [], []), ("Const", "Const", [], []), ("Const_1", "Const", [], []),
        ("loop/Enter", "Enter", ["Const:0"], []), ("loop/Enter_1", "Enter", ["Const_1:0"], []),
        ("loop/Merge", "Merge", ["loop/Enter:0", "loop/NextIteration:0"], []),
        ("loop/Merge_1", "Merge", ["loop/Enter_1:0", "loop/NextIteration_1:0"], []),
        ("loop/Less", "Less", ["loop/Merge:0", "loop/Less/Enter:0"], []),
        ("loop/Less/Enter", "Enter", ["n:0"], []), ("loop/LoopCond", "LoopCond", ["loop/Less:0"], []),
        ("loop/Switch", "Switch", ["loop/Merge:0", "loop/LoopCond:0"], []),
        ("loop/Switch_1", "Switch", ["loop/Merge_1:0", "loop/LoopCond:0"], []),
        ("loop/Identity", "Identity", ["loop/Switch:1"], []), ("loop/Identity_1", "Identity", ["loop/Switch_1:1"], []),
        ("loop/add/y", "Const", [], ["loop/Identity"]), ("loop/add", "AddV2", ["loop/Identity:0", "loop/add/y:0"], []),
        ("loop/mul/y", "Const", [], ["loop/Identity"]), ("loop/mul", "Mul", ["loop/Identity_1:0", "loop/mul/y:0"], []),
        ("loop/NextIteration", "NextIteration", ["loop/add:0"], []),
        ("loop/NextIteration_1", "NextIteration", ["loop/mul:0"], []),
        ("loop/Exit", "Exit", ["loop/Switch:0"], []), ("loop/Exit_1", "Exit", ["loop/Switch_1:0"], [])]
    enter = tf.get_default_graph().get_operation_by_name("loop/Less/Enter")
    assert enter.get_attr("is_constant") and enter.get_attr("frame_name") == b"loop/while_context"
    with tf.Session() as sess:
        assert [sess.run([i, x], {n: v}) for v in (0, 1, 5)] == [[0, 1.0], [1, 2.0], [5, 32.0]]


def test_invariants_maximum_iterations_nesting_and_shape_invariants():
    w = tf.constant([1.0, 2.0])
    scaled = tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * w + 1.0, [tf.constant([1.0, 1.0])])
    capped = tf.while_loop(lambda v: v < 1000, lambda v: v + 1, [tf.constant(0)], maximum_iterations=7)

    def outer_body(k, acc):
        _, inner = tf.while_loop(lambda j, a: j < k, lambda j, a: (j + 1, a + 1), [tf.constant(0), acc])
        return k + 1, inner

    count, total = tf.while_loop(lambda k, a: k < 4, outer_body, [tf.constant(0), tf.constant(0)])
    grown = tf.while_loop(lambda v: tf.shape(v)[0] < 5, lambda v: tf.concat([v, v[:1]], 0), [tf.constant([1])],
                          shape_invariants=[tf.TensorShape([None])])
    assert grown.shape.as_list() == [None]
    with tf.Session() as sess:
        values = sess.run([scaled, capped, count, total, grown])
    np.testing.assert_array_equal(values[0], [7.0, 127.0])
    assert values[1:4] == [7, 4, 6]
    np.testing.assert_array_equal(values[4], [1, 1, 1, 1, 1])


def test_loops_inside_conds_and_conds_inside_loops():
    p = tf.placeholder(tf.bool, [])
    in_cond = tf.cond(p, lambda: tf.while_loop(lambda v: v < 10, lambda v: v + 3, [tf.constant(0)]),
                      lambda: tf.constant(-1))
    with_cond = tf.while_loop(lambda v: v < 20, lambda v: tf.cond(v < 5, lambda: v + 1, lambda: v * 2),
                              [tf.constant(0)])
    with tf.Session() as sess:
        assert sess.run([in_cond, with_cond], {p: True}) == [12, 20]
        assert sess.run([in_cond, with_cond], {p: False}) == [-1, 20]


def test_variables_updated_in_a_loop_body():
    v = tf.Variable(0.0)
    count = tf.while_loop(lambda i: i < 5, lambda i: tf.tuple([i + 1], control_inputs=[tf.assign_add(v, 2.0)])[0],
                          [tf.constant(0)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(count) == 5 and sess.run(v) == 10.0


def test_while_loop_errors_as_tf():
    with pytest.raises(ValueError, match=r"Input tensor 'Const:0' enters the loop with shape \(1,\), but has shape "
                                         r"\(2,\) after one iteration. To allow the shape to vary across iterations, "
                                         r"use the `shape_invariants` argument of tf.while_loop to specify a "
                                         r"less-specific shape."):
        tf.while_loop(lambda v: tf.shape(v)[0] < 5, lambda v: tf.concat([v, v[:1]], 0), [tf.constant([1])])
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure."):
        tf.while_loop(lambda a: a < 3, lambda a: (a, a), [tf.constant(0)])
    with pytest.raises(TypeError, match="'body' must be callable."):
        tf.while_loop(lambda a: a < 3, 3, [tf.constant(0)])
    with pytest.raises(ValueError, match="'loop_vars' must be provided."):
        tf.while_loop(lambda a: a < 3, lambda a: a, [])
    with pytest.raises(TypeError, match="'parallel_iterations' must be a positive integer."):
        tf.while_loop(lambda a: a < 3, lambda a: a, [tf.constant(0)], parallel_iterations=0)
    with pytest.raises(ValueError, match=r"The shape invariant specified for Const_4:0 is not compatible with the initial shape of the loop "
                                         r"variable. It enters the loop with shape \(2,\), but the specified shape "
                                         r"invariant is \(3,\)."):
        tf.while_loop(lambda a: a < 3, lambda a: a, [tf.constant([1, 2])], shape_invariants=[tf.TensorShape([3])])


def test_a_body_changing_a_loop_variables_dtype_builds_and_fails_every_run_as_tf():
    r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.cast(a, tf.int32)), [0, tf.ones([2])])
    assert r[1].dtype == tf.float32  # TF builds it: the NextIteration's edge into the Merge is not checked
    other = tf.constant(1.0)
    message = ("^Graph execution error:\n\nInput 1 of node while/Merge_1 was passed int32 from "
               "while/NextIteration_1:0 incompatible with expected float.$")
    with tf.Session() as s:
        for fetch in (r, other, other):  # the session's graph has the bad edge, whatever is fetched
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                s.run(fetch)


def test_a_ref_loop_variable_enters_and_leaves_through_ref_ops_named_as_tf():
    v = tf.Variable(1.0, name="v")
    w = tf.while_loop(lambda a: a < 10, lambda a: tf.assign_add(a, 3.0), [v._ref()])
    ops = {op.name: op.type for op in tf.get_default_graph().get_operations() if op.name.startswith("while/")}
    assert {k: ops[k] for k in ("while/RefEnter", "while/Merge", "while/RefIdentity", "while/RefExit")} == {
        "while/RefEnter": "RefEnter", "while/Merge": "RefMerge", "while/RefIdentity": "RefIdentity",
        "while/RefExit": "RefExit"}
    assert w.dtype == tf.float32._as_ref
    with tf.Session() as s:
        s.run(v.initializer)
        assert s.run(w) == 10.0 and s.run(v) == 10.0
    # a body returning the ref's value: TF's message spells the Merge's ref type
    tf.while_loop(lambda a: tf.reduce_sum(a) < 10, lambda a: a * 2, [v._ref()], name="twice")
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                          match="Input 1 of node twice/Merge was passed float from "
                                                "twice/NextIteration:0 incompatible with expected float_ref.$"):
        s.run(v.initializer)


def test_sparse_tensor_loop_variables():
    """A SparseTensor loop variable travels as its three tensors, its nonzero count free to change; its shape
    invariant is the shape of its dense_shape (values recorded from TF 2.21)."""
    with tf.Graph().as_default():
        def grow(i, s):
            return i + 1, tf.sparse.concat(0, [s, tf.SparseTensor([[0, 1]], [5.0], [1, 3])])
        start = tf.SparseTensor([[0, 0]], [1.0], [1, 3])
        _, grown = tf.while_loop(lambda i, s: i < 2, grow, [0, start],
                                 shape_invariants=[tf.TensorShape([]), tf.TensorShape([2])])
        assert isinstance(grown, tf.SparseTensor)
        assert (grown.indices.shape.as_list(), grown.values.shape.as_list(), grown.dense_shape.shape.as_list()) == \
            ([None, 2], [None], [2])
        with pytest.raises(ValueError, match=r"Expected a shape with 1 dimension. Obtained: \(2, 3\) which has 2 "):
            tf.while_loop(lambda i, s: i < 2, grow, [0, start], shape_invariants=[tf.TensorShape([]),
                                                                                 tf.TensorShape([2, 3])])
        doubled = tf.while_loop(lambda s: tf.reduce_sum(s.values) < 10,
                                lambda s: tf.SparseTensor(s.indices, s.values * 2, s.dense_shape),
                                [tf.SparseTensor([[0, 0]], [1.0], [2, 3])])
        assert isinstance(doubled, list) and len(doubled) == 1  # three exits: not unpacked, as TF
        x = tf.constant([1.0, 2.0])
        _, scaled = tf.while_loop(lambda i, s: i < 3,
                                  lambda i, s: (i + 1, tf.SparseTensor(s.indices, s.values * x, s.dense_shape)),
                                  [0, tf.SparseTensor([[0], [1]], x, [2])])
        grad = tf.gradients(tf.reduce_sum(scaled.values), x)[0]
        with tf.Session() as sess:
            value = sess.run(grown)
            assert value.indices.tolist() == [[0, 0], [1, 1], [2, 1]] and value.dense_shape.tolist() == [3, 3]
            assert sess.run(doubled[0]).values.tolist() == [16.0]
            np.testing.assert_allclose(sess.run(grad), [4.0, 32.0])
