"""Switch, Merge and `tf.cond` (TF1 control flow v1): dead branches, TF's graph structure, names and errors.

Expected graph structures and messages are recorded from TensorFlow 2.21 (`tf.compat.v1`, v2 behaviour
disabled) running the same programs.
"""

import numpy as np
import pytest
from op_testing import check_gradient

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.devices.cpu import cpu_device
from tensorweave.framework import dtypes
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_kernel import StepContext
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.runtime.executor import Executor
from tensorweave.runtime.prune import prune

F32 = dtypes.float32


def _executor(nodes, feeds, fetches):
    types = {name: F32 for name in feeds}
    types.update({name: dtypes.int32 if name.endswith(":1") else F32 for name in fetches})
    types.update({name: dtypes.bool for name in feeds if name.startswith("p")})
    graph_def = prune(GraphDef(node=nodes), list(feeds), list(fetches), [], types)
    return Executor(graph_def, cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr()))


def _switch_merge_graph():
    return [NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}),
            NodeDef("p", "Placeholder", [], "", {"dtype": dtypes.bool, "shape": None}),
            NodeDef("s", "Switch", ["x", "p"], "", {"T": F32}),
            NodeDef("f", "Neg", ["s:0"], "", {"T": F32}),
            NodeDef("t", "Square", ["s:1"], "", {"T": F32}),
            NodeDef("m", "Merge", ["f", "t"], "", {"T": F32, "N": 2})]


@pytest.mark.parametrize("pred, value, index", [(True, 9.0, 1), (False, -3.0, 0)])
def test_switch_kills_the_untaken_branch_and_merge_forwards_the_live_one(pred, value, index):
    ex = _executor(_switch_merge_graph(), ["x:0", "p:0"], ["m:0", "m:1"])
    stats = []
    assert ex.run([np.float32(3.0), np.bool_(pred)], stats) == [value, index]
    ran = {s.node_name for s in stats}
    assert ("t" in ran, "f" in ran) == (pred, not pred)  # only the taken branch's kernel ran


def test_a_merge_of_dead_inputs_is_dead_and_waits_for_its_control_inputs():
    nodes = _switch_merge_graph()[:3] + [
        NodeDef("f", "Neg", ["s:0"], "", {"T": F32}),
        NodeDef("g", "Neg", ["s:0"], "", {"T": F32}),
        NodeDef("c", "Const", [], "", {"value": np.float32(1), "dtype": F32}),
        NodeDef("m", "Merge", ["f", "g", "^c"], "", {"T": F32, "N": 2}),
        NodeDef("out", "Identity", ["m"], "", {"T": F32})]
    ex = _executor(nodes, ["x:0", "p:0"], ["out:0"])
    assert ex.run([np.float32(2.0), np.bool_(False)]) == [-2.0]
    with pytest.raises(errors.InvalidArgumentError, match=r"Retval\[0\] does not have value"):
        ex.run([np.float32(2.0), np.bool_(True)])  # both inputs dead: the Merge and its consumer are dead


def test_switch_needs_a_scalar_predicate():
    ex = _executor(_switch_merge_graph(), ["x:0", "p:0"], ["m:0"])
    with pytest.raises(errors.InvalidArgumentError, match=r"The second input must be a scalar, but it has "
                                                          r"shape \[2\]"):
        ex.run([np.float32(1.0), np.array([True, False])], step=StepContext())


def _switch_n_executor():
    nodes = [NodeDef("x", "Placeholder", [], "", {"dtype": F32, "shape": None}),
             NodeDef("i", "Placeholder", [], "", {"dtype": dtypes.int32, "shape": None}),
             NodeDef("s", "_SwitchN", ["x", "i"], "", {"T": F32, "num_outs": 3}),
             NodeDef("a", "Neg", ["s:0"], "", {"T": F32}),
             NodeDef("b", "Square", ["s:1"], "", {"T": F32}),
             NodeDef("c", "Identity", ["s:2"], "", {"T": F32}),
             NodeDef("m", "Merge", ["a", "b", "c"], "", {"T": F32, "N": 3})]
    types = {"x:0": F32, "i:0": dtypes.int32, "m:0": F32, "m:1": dtypes.int32}
    graph_def = prune(GraphDef(node=nodes), ["x:0", "i:0"], ["m:0", "m:1"], [], types)
    return Executor(graph_def, cpu_device("/job:localhost/replica:0/task:0", 0, ResourceMgr()))


@pytest.mark.parametrize("index, value, branch", [(0, -3.0, 0), (1, 9.0, 1), (2, 3.0, 2), (7, 3.0, 2), (-1, 3.0, 2)])
def test_switch_n_feeds_the_selected_output_and_the_last_when_out_of_range(index, value, branch):
    """TF's lowered Case (what a TF master registers on a worker): only the selected branch runs."""
    stats = []
    assert _switch_n_executor().run([np.float32(3.0), np.int32(index)], stats) == [value, branch]
    assert {"a", "b", "c"} & {s.node_name for s in stats} == {"abc"[branch]}


def test_switch_n_needs_a_scalar_index():
    with pytest.raises(errors.InvalidArgumentError, match=r"The second input must be a scalar, but it has shape \[2\]"):
        _switch_n_executor().run([np.float32(1.0), np.array([0, 1], np.int32)], step=StepContext())


def test_cond_builds_tfs_graph_and_runs_only_the_taken_branch():
    x = tf.placeholder(tf.float32, [])
    y = tf.constant(10.)
    r = tf.cond(x > 0, lambda: x * y + 1, lambda: tf.constant(-1.0))
    assert r.name == "cond/Merge:0" and r.shape == tf.TensorShape([])
    structure = [(o.name, o.type, [i.name for i in o.inputs], [c.name for c in o.control_inputs])
                 for o in tf.get_default_graph().get_operations()]
    assert structure == [  # recorded from TF
        ("Placeholder", "Placeholder", [], []), ("Const", "Const", [], []), ("Greater/y", "Const", [], []),
        ("Greater", "Greater", ["Placeholder:0", "Greater/y:0"], []),
        ("cond/Switch", "Switch", ["Greater:0", "Greater:0"], []),
        ("cond/switch_t", "Identity", ["cond/Switch:1"], []), ("cond/switch_f", "Identity", ["cond/Switch:0"], []),
        ("cond/pred_id", "Identity", ["Greater:0"], []),
        ("cond/mul", "Mul", ["cond/mul/Switch:1", "cond/mul/Switch_1:1"], []),
        ("cond/mul/Switch", "Switch", ["Placeholder:0", "cond/pred_id:0"], []),
        ("cond/mul/Switch_1", "Switch", ["Const:0", "cond/pred_id:0"], []),
        ("cond/add/y", "Const", [], ["cond/switch_t"]), ("cond/add", "AddV2", ["cond/mul:0", "cond/add/y:0"], []),
        ("cond/Const", "Const", [], ["cond/switch_f"]), ("cond/Merge", "Merge", ["cond/Const:0", "cond/add:0"], [])]
    with tf.Session() as sess:
        assert sess.run(r, {x: 2.0}) == 21.0 and sess.run(r, {x: -2.0}) == -1.0
        with pytest.raises(errors.InaccessibleTensorError, match="Operation cond/add has been marked as not fetchable"):
            sess.run(tf.get_default_graph().get_tensor_by_name("cond/add:0"), {x: 1.0})


def test_side_effects_run_only_in_the_taken_branch():
    x = tf.placeholder(tf.float32, [])
    v = tf.Variable(1.0)
    r = tf.cond(x > 0, lambda: tf.assign_add(v, 1.0), lambda: tf.identity(v))
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run([r], {x: 1.0}) == [2.0] and sess.run(v) == 2.0
        assert sess.run(r, {x: -1.0}) == 2.0 and sess.run(v) == 2.0


def test_cond_of_nested_structures_nested_conds_and_constant_branches():
    x = tf.placeholder(tf.float32, [])
    pair = tf.cond(x > 0, lambda: (x, [x * 2]), lambda: (x, [x * 3]))
    assert [t.name for t in [pair[0], pair[1][0]]] == ["cond/Merge:0", "cond/Merge_1:0"]
    nested = tf.cond(x > 0, lambda: tf.cond(x > 5, lambda: x * 100, lambda: x * 10), lambda: -x)
    constants = tf.cond(x > 0, lambda: tf.constant(2.) * 3, lambda: tf.constant(5.) * 7)  # folding keeps them dead
    single = tf.cond(x > 0, lambda: [x], lambda: [x])
    strict = tf.cond(x > 0, lambda: [x], lambda: [x], strict=True)
    assert isinstance(single, tf.Tensor) and isinstance(strict, list) and len(strict) == 1
    with tf.Session() as sess:
        assert sess.run(pair, {x: 1.0}) == (1.0, [2.0]) and sess.run(pair, {x: -1.0}) == (-1.0, [-3.0])
        assert [sess.run(nested, {x: v}) for v in (7.0, 2.0, -3.0)] == [700.0, 20.0, 3.0]
        assert sess.run(constants, {x: 1.0}) == 6.0 and sess.run(constants, {x: -1.0}) == 35.0


def test_merge_shape_keeps_what_both_branches_agree_on():
    x = tf.placeholder(tf.float32, [])
    assert tf.cond(x > 0, lambda: tf.zeros([2, 3]), lambda: tf.zeros([2, 4])).shape.as_list() == [2, None]
    assert tf.cond(x > 0, lambda: tf.zeros([2, 3]), lambda: tf.zeros([2])).shape.ndims is None


def test_cond_errors_as_tf():
    x = tf.placeholder(tf.float32, [])
    with pytest.raises(ValueError, match=r"Outputs of 'true_fn' and 'false_fn' must have the same type\(s\). "
                                         r"Received float32 from 'true_fn' and int32 from 'false_fn'."):
        tf.cond(x > 0, lambda: x, lambda: tf.constant(1, tf.int32))
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure."):
        tf.cond(x > 0, lambda: (x, x), lambda: x)
    with pytest.raises(TypeError, match="'pred' must not be a Python bool."):
        tf.cond(True, lambda: x, lambda: x)
    with pytest.raises(TypeError, match="cond\\(\\): 'false_fn' argument required"):
        tf.cond(x > 0, lambda: x)
    with pytest.raises(TypeError, match="'true_fn' must be callable."):
        tf.cond(x > 0, x, lambda: x)
    with pytest.raises(ValueError, match="'true_fn' must have a return value."):
        tf.cond(x > 0, lambda: None, lambda: x)
    with pytest.raises(TypeError, match="cond\\(\\): 'true_fn' and 'fn1' may not be set simultaneously."):
        tf.cond(x > 0, lambda: x, lambda: x, fn1=lambda: x)


def test_gradients_flow_through_the_taken_branch_as_tf():
    x = tf.placeholder(tf.float32, [])
    w = tf.constant(3.0)
    p = tf.placeholder(tf.bool, [])
    r = tf.cond(p, lambda: x * w * x, lambda: tf.sin(x) + w)
    grads = tf.gradients(r, [x, w])
    nested = tf.gradients(tf.cond(p, lambda: tf.cond(x > 1.0, lambda: x * x, lambda: 3.0 * x), lambda: -x), x)
    names = [o.name for o in tf.get_default_graph().get_operations() if o.name.startswith("gradients/")][:14]
    assert names == [  # recorded from TF: the untaken branch's zeros are made behind a Switch
        "gradients/Shape", "gradients/grad_ys_0/Const", "gradients/grad_ys_0", "gradients/cond/Merge_grad/cond_grad",
        "gradients/cond/mul_1_grad/Mul", "gradients/cond/mul_1_grad/Mul_1", "gradients/cond/Sin_grad/Cos",
        "gradients/cond/Sin_grad/mul", "gradients/Switch", "gradients/Identity", "gradients/Shape_1",
        "gradients/zeros/Const", "gradients/zeros", "gradients/cond/add/Switch_grad/cond_grad"]
    with tf.Session() as sess:
        assert sess.run(grads, {x: 2.0, p: True}) == [12.0, 4.0]
        np.testing.assert_allclose(sess.run(grads, {x: 2.0, p: False}), [np.cos(2.0), 1.0], rtol=1e-6)
        assert [sess.run(nested, {x: v, p: q})[0] for v, q in ((2.0, True), (0.5, True), (2.0, False))] == [
            4.0, 3.0, -1.0]


@pytest.mark.parametrize("positive", [True, False])
def test_cond_gradient_matches_numeric_differentiation(positive):
    value = np.array([0.3, 0.7]) * (1 if positive else -1)
    check_gradient(lambda a: tf.cond(tf.reduce_sum(a) > 0, lambda: a * a * 2.0, lambda: tf.sin(a)), [value])


def test_cond_merges_a_sparse_tensor_component_by_component():
    """TF's expand_composites: each of indices, values, dense_shape gets its own Merge (names from TF 2.21)."""
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [])
        sp = tf.SparseTensor([[0, 1], [2, 0]], [1.5, 2.5], [3, 4])
        r = tf.cond(p, lambda: sp, lambda: tf.SparseTensor(sp.indices, sp.values * 2, sp.dense_shape))
        assert isinstance(r, tf.SparseTensor)
        assert [r.indices.name, r.values.name, r.dense_shape.name] == ["cond/Merge:0", "cond/Merge_1:0",
                                                                       "cond/Merge_2:0"]
        other = tf.cond(p, lambda: sp, lambda: tf.SparseTensor([[1, 1]], [5.0], [3, 4]), name="other")
        assert other.indices.op.inputs[0].name == "other/SparseTensor_1/indices:0"  # the true branch packed one
        with tf.Session() as sess:
            assert sess.run(r, {p: False}).values.tolist() == [3.0, 5.0]
            assert sess.run(r, {p: True}).dense_shape.tolist() == [3, 4]
        with pytest.raises(ValueError, match="^Incompatible return values of 'true_fn' and 'false_fn': The two "
                                             "structures don't have the same nested structure."):
            tf.cond(p, lambda: sp, lambda: tf.constant(1.0))


def test_indexed_slices_through_cond_and_while_loop_as_tf():
    """TF's expand_composites: values, indices (and dense_shape) each travel on their own; the loop's invariants
    are IndexedSlicesSpec's ([n, ...], [n], [rank]); a composite against a tensor fails on TF's second
    structure check, which names the branches (values and messages from TF 2.21)."""
    with tf.Graph().as_default():
        ix = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
        p = tf.placeholder(tf.bool, [])
        c = tf.cond(p, lambda: ix, lambda: tf.IndexedSlices(ix.values * -1.0, ix.indices, ix.dense_shape))
        assert isinstance(c, tf.IndexedSlices)
        assert [c.values.name, c.indices.name, c.dense_shape.name] == ["cond/Merge:0", "cond/Merge_1:0",
                                                                       "cond/Merge_2:0"]

        def grow(i, x):
            return i + 1, tf.IndexedSlices(tf.concat([x.values, x.values * 2.0], 0),
                                           tf.concat([x.indices, x.indices + 1], 0), x.dense_shape)

        w = tf.while_loop(lambda i, x: i < 2, grow, [0, ix],
                          shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])])
        assert [t.shape.as_list() for t in (w[1].values, w[1].indices, w[1].dense_shape)] == [[None, 2], [None], [2]]
        no_shape = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]))
        w2 = tf.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, tf.IndexedSlices(x.values * 3.0, x.indices)),
                           [0, no_shape])
        assert w2[1].dense_shape is None and w2[1].values.shape.as_list() == [1, 2]
        with pytest.raises(ValueError, match=r"^Input tensor 'Const:0' enters the loop with shape \(1, 2\), but has "
                                             r"shape \(2, 2\) after one iteration"):
            tf.while_loop(lambda i, x: i < 2, grow, [0, ix])
        with pytest.raises(ValueError, match="^Incompatible return values of 'true_fn' and 'false_fn': The two "
                                             "structures don't have the same nested structure.\n\nFirst structure: "
                                             "type=IndexedSlices"):
            tf.cond(p, lambda: ix, lambda: ix.values)
        with pytest.raises(ValueError, match=r"More specifically: Incompatible CompositeTensor TypeSpecs: "
                                             r"type=IndexedSlicesSpec str=IndexedSlicesSpec\(TensorShape\(\[Dimension"
                                             r"\(3\), Dimension\(2\)\]\), tf.float32, tf.int32, tf.int32, TensorShape"
                                             r"\(\[Dimension\(1\)\]\)\) vs. type=SparseTensorSpec str=SparseTensorSpec"):
            tf.cond(p, lambda: ix, lambda: tf.SparseTensor([[0]], [1.0], [3]))
        with tf.Session() as sess:
            value = sess.run(w)[1]
            assert value.values.tolist() == [[1, 2], [2, 4], [2, 4], [4, 8]] and value.indices.tolist() == [1, 2, 2, 3]
            assert sess.run(w2)[1].values.tolist() == [[9.0, 18.0]]
            negated = sess.run(c, {p: False})
            assert negated.values.tolist() == [[-1.0, -2.0]] and negated.dense_shape.tolist() == [3, 2]


def test_ops_in_a_loop_or_cond_infer_shapes_on_their_outside_inputs_as_tf():
    """TF infers an op's shapes on its inputs as given, before the loop gives it an Enter (the cond a Switch):
    an outside constant fixes a shape inside, and an op whose shapes fail leaves no Enter behind and names
    its outside input (shapes and message from TF 2.21)."""
    with tf.Graph().as_default() as g:
        shape = tf.constant([2, 3])
        depth = tf.constant(4)
        w = tf.ones([5, 6], name="w")
        seen = {}

        def body(i):
            seen["shapes"] = [tf.reshape(tf.range(6.0), shape).shape.as_list(), tf.zeros(shape).shape.as_list(),
                              tf.one_hot([0, 1], depth).shape.as_list()]
            before = len(g.get_operations())
            with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 6 and 5 for '\{\{node "
                                                 r"while/MatMul\}\} = MatMul\[.*\]\(while/ones, w\)' with input "
                                                 r"shapes: \[2,6\], \[5,6\]\.$"):
                tf.matmul(tf.ones([2, 6]), w)
            seen["left"] = [op.type for op in g.get_operations()[before:]]
            return i + 1

        tf.while_loop(lambda i: i < 2, body, [0])
        assert seen == {"shapes": [[2, 3], [2, 3], [2, 4]], "left": ["Const"]}
        c = tf.cond(tf.placeholder(tf.bool, []), lambda: tf.reshape(tf.range(6.0), shape), lambda: tf.ones([2, 3]))
        assert c.shape.as_list() == [2, 3]


def test_a_lone_tensor_as_loop_vars_fails_before_the_loop_takes_a_name_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(errors.OperatorNotAllowedInGraphError, match="^Using a symbolic `tf.Tensor` as a Python "
                                                                        "`bool` is not allowed"):
            tf.while_loop(lambda i: i < 3, lambda i: i + 1, tf.constant(0))
        assert tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0]).name == "while/Exit:0"


def test_shapes_built_in_a_loop_body_read_loop_invariant_constants_as_tf():
    """TF's shape refiner sees through a loop body's constant Enter of a value from outside every loop
    (computed constants and static shapes included), not through a nested loop's or a cond's (TF's shapes)."""
    n, k = tf.constant(2) * 2, tf.shape(tf.zeros([6, 1]))[0]
    m = tf.placeholder_with_default(3, [])
    seen = []

    def body(i, acc):
        seen.append([tf.fill([n, 2], 1.0).shape, tf.zeros([n * 2]).shape, tf.reshape(tf.range(8.0), [n, -1]).shape,
                     tf.fill([m, 2], 1.0).shape, tf.zeros([k]).shape, tf.zeros([i]).shape])

        def inner(j, b):
            seen.append([tf.fill([n, 2], 1.0).shape])
            return j + 1, b

        tf.while_loop(lambda j, b: j < 2, inner, [tf.constant(0), acc])
        return i + 1, acc

    tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), tf.constant(0.0)])
    tf.cond(tf.placeholder(tf.bool), lambda: seen.append([tf.fill([n, 2], 1.0).shape]) or tf.constant(1),
            lambda: tf.constant(2))
    assert [[s.as_list() for s in shapes] for shapes in seen] == [
        [[4, 2], [8], [4, 2], [None, 2], [6], [None]], [[None, 2]], [[None, 2]]]
