"""`tf.cond` and `tf.while_loop` under control flow v2 (what a program calling only `disable_eager_execution()`
gets): the If and While ops, names, output structures and shapes real TF 2.21 builds, their gradients, and
the TensorLists the While gradient accumulates in."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework import graph as tf_graph
from tensorweave.ops import list_ops
from tests.op_testing import check_gradient, runtime_message


@pytest.fixture(autouse=True)
def control_flow_v2():
    tf.enable_control_flow_v2()


def _ops(graph=None):
    return [(op.name, op.type, [t.name for t in op.inputs]) for op in (graph or tf.get_default_graph()).get_operations()]


def test_cond_is_one_stateless_if_with_its_outputs_through_identities_as_tf():
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: x * 2.0, lambda: x + 1.0)
    single = tf.cond(p, lambda: [x], lambda: [x + 1.0])
    pair = tf.cond(p, lambda: (x, x * 2), lambda: (x, x + 1), name="mycond")
    assert repr(r) == "<tf.Tensor 'cond/Identity:0' shape=(3,) dtype=float32>"
    assert [t.name for t in single] == ["cond_1/Identity:0"]  # a singleton list stays one, as TF's
    assert isinstance(pair, tuple) and [t.name for t in pair] == ["mycond/Identity:0", "mycond/Identity_1:0"]
    assert _ops()[2:4] == [("cond", "StatelessIf", ["p:0", "x:0"]), ("cond/Identity", "Identity", ["cond:0"])]
    names = [f.signature.name for f in tf.get_default_graph().as_graph_def().library.function]
    assert {n.rsplit("_", 1)[0] for n in names} == {"cond_true", "cond_false", "cond_1_true", "cond_1_false",
                                                    "mycond_true", "mycond_false"}
    g = tf.gradients(r, x)[0]
    assert g.name == "gradients/cond_grad/Identity:0"
    with tf.Session() as s:
        assert s.run([r, g], {x: [1., 2., 3.], p: True})[1].tolist() == [2., 2., 2.]
        assert s.run([r, g], {x: [1., 2., 3.], p: False})[0].tolist() == [2., 3., 4.]


def test_cond_branches_must_match_with_tfs_message():
    x = tf.constant(1.0)
    with pytest.raises(AssertionError, match=r"^\[1, 2\]$"):  # TF 2.21's assert on the counts comes first
        tf.cond(tf.constant(True), lambda: x, lambda: (x, x))
    with pytest.raises(TypeError, match=r"^true_fn and false_fn arguments to tf\.cond must have the same number, "
                                        r"type, and overall structure of return values\.\n\ntrue_fn output: "):
        tf.cond(tf.constant(True), lambda: {"a": x}, lambda: {"b": x})
    with pytest.raises(TypeError, match="have different types$"):
        tf.cond(tf.constant(True), lambda: x, lambda: tf.constant(1))


def test_branch_results_are_checked_as_tf_records_them():
    p = tf.placeholder(tf.bool, [])
    i = tf.placeholder(tf.int32, [])
    # a None against a tensor: the same structure, a different number of outputs (TF's ValueError)
    with pytest.raises(ValueError, match=r"^Lengths of branch outputs of cond must match\.\n"
                                         r"len\(graphs\[0\]\.outputs\): 1\nlen\(graphs\[1\]\.outputs\): 0\n$"):
        tf.cond(p, lambda: tf.constant(1.0), lambda: None)
    with pytest.raises(ValueError, match=r"^Lengths of branch outputs of case must match"):
        tf.switch_case(i, [lambda: tf.constant(1), lambda: None])
    # Python values are named as the constants they become
    with pytest.raises(TypeError, match=r'\n\ntrue_fn output: Tensor\("Const:0", shape=\(\), dtype=int32\)\n'
                                        r'false_fn output: Tensor\("Const:0", shape=\(\), dtype=float32\)\n'):
        tf.cond(p, lambda: 1, lambda: 2.0)
    r = tf.cond(p, lambda: tf.constant(1), lambda: 2)
    with tf.Session() as s:
        assert s.run(r, {p: False}) == 2


def test_gradient_of_a_loop_with_conditionals_nested_in_conditionals_reading_a_variable():
    # the loop's body is inlined again to push the intermediates: the inner conditional's rewritten branches,
    # which only the outer one's call, come with it (was: "Function cond_false_N_rewritten is not defined")
    x = tf.placeholder(tf.float32, [3])
    w = tf.Variable(1.5, use_resource=True)

    def body(i, a):
        return i + 1, tf.cond(i > 1, lambda: tf.cond(a[0] > 2.0, lambda: a * 0.5, lambda: a * w), lambda: a)

    r = tf.while_loop(lambda i, a: i < 3, body, [0, x])
    g = tf.gradients(tf.reduce_sum(r[1]), [x, w])
    with tf.Session() as s:
        s.run(w.initializer)
        out, (gx, gw) = s.run([r[1], g], {x: [1., 2., 3.]})
    assert out.tolist() == [1.5, 3., 4.5] and gx.tolist() == [1.5, 1.5, 1.5] and gw == 6.0  # TF 2.21's


@pytest.mark.parametrize("taken", [True, False])
def test_cond_gradient_checks_numerically(taken):
    check_gradient(lambda x, w: tf.cond(tf.constant(taken), lambda: tf.sin(x) * w, lambda: tf.cos(x) + w),
                   [np.array([0.3, -0.4], np.float32), np.array([0.5, 0.8], np.float32)])


def test_while_loop_is_one_stateless_while_over_tfs_loop_variables():
    x = tf.placeholder(tf.float32, [3], name="x")
    i = tf.constant(0)
    c = tf.constant(1.5)
    w = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a) * c), [i, x])
    assert [repr(t) for t in w] == ["<tf.Tensor 'while/Identity_2:0' shape=() dtype=int32>",
                                    "<tf.Tensor 'while/Identity_3:0' shape=(3,) dtype=float32>"]
    op = w[0].op.inputs[0].op
    assert (op.name, op.type, [t.name for t in op.inputs]) == (
        "while", "StatelessWhile", ["while/loop_counter:0", "while/maximum_iterations:0", "Const:0", "x:0",
                                    "Const_1:0"])
    assert op.get_attr("_num_original_outputs") == 5 and op.get_attr("parallel_iterations") == 10
    assert [t.name for t in tf.while_loop(lambda i: i < 3, lambda i: i + 1, [i], return_same_structure=True)] == [
        "while_1/Identity_2:0"]
    assert tf.while_loop(lambda i: i < 3, lambda i: i + 1, (i,)).name == "while_2/Identity_2:0"
    bounded = tf.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * 2.0), (i, x), maximum_iterations=5)
    assert isinstance(bounded, tuple)
    with tf.Session() as s:
        assert s.run(bounded, {x: [1., 2., 3.]})[1].tolist() == [32., 64., 96.]
        assert s.run(w, {x: [1., 2., 3.]})[1] == pytest.approx([1.4944795, 1.4953558, 0.6725597])  # TF's


def test_while_loop_shape_must_stay_within_its_invariant():
    x = tf.zeros([2])
    with pytest.raises(ValueError, match=r"^Input tensor `zeros:0` enters the loop with shape \(2,\), but has shape "
                                         r"\(4,\) after one iteration\. To allow the shape to vary"):
        tf.while_loop(lambda v: True, lambda v: tf.concat([v, v], 0), [x])
    grown = tf.while_loop(lambda v: tf.size(v) < 8, lambda v: tf.concat([v, v], 0), [x],
                          shape_invariants=[tf.TensorShape([None])])
    assert grown.shape.as_list() == [None]
    with tf.Session() as s:
        assert s.run(grown).shape == (8,)


def test_while_gradient_is_tfs_and_checks_numerically():
    x = tf.placeholder(tf.float32, [3], name="x")
    c = tf.constant(1.5)
    w = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a) * c), [tf.constant(0), x])
    g = tf.gradients(w[1], x)[0]
    assert g.name == "gradients/while_grad/Identity_3:0"
    with tf.Session() as s:
        assert s.run(g, {x: [1., 2., 3.]}) == pytest.approx([1.0052977e-02, -3.4903132e-03, -4.1641078],
                                                            rel=1e-5)  # TF's

    def build(x, w):
        return tf.while_loop(lambda n, acc: n < 3, lambda n, acc: (n + 1, tf.sin(acc) * w + acc * acc),
                             [tf.constant(0), x])[1]

    check_gradient(build, [np.array([0.3, -0.4], np.float32), np.array([0.5, 0.8], np.float32)])


def test_while_gradient_pops_the_forward_values_instead_of_recomputing_them():
    """The forward op is rewritten to push what the backward body needs onto TensorLists (TF's while_v2), and
    the backward body pops them: it holds no forward op and no loop, so a 100-iteration loop's gradient runs
    O(100) ops."""
    x = tf.placeholder(tf.float64, [2])
    w = tf.while_loop(lambda i, a: i < 100, lambda i, a: (i + 1, a * 0.99 + tf.sin(a) * 0.01), [tf.constant(0), x])
    forward = w[1].op.inputs[0].op
    assert len(forward.inputs) == 4
    g = tf.gradients(w[1], x)[0]
    assert [t.dtype for t in forward.inputs[4:]] == [tf.variant] * (len(forward.inputs) - 4) != []
    assert len(forward.outputs) == len(forward.inputs)
    library = {f.signature.name: f for f in tf.get_default_graph().as_graph_def().library.function}
    pushing = library[forward.get_attr("body").name if hasattr(forward.get_attr("body"), "name")
                      else forward.get_attr("body")]
    assert any(n.op == "TensorListPushBack" for n in pushing.node_def)
    backward = [f for f in library.values() if any(n.op == "TensorListPopBack" for n in f.node_def)]
    assert len(backward) == 1 and not {"Sin", "While", "StatelessWhile"} & {n.op for n in backward[0].node_def}
    value = np.array([0.3, -0.4])
    expected = np.ones(2)
    for _ in range(100):
        expected = expected * (0.99 + np.cos(value) * 0.01)
        value = value * 0.99 + np.sin(value) * 0.01
    with tf.Session() as s:
        assert s.run(g, {x: [0.3, -0.4]}) == pytest.approx(expected)


def test_gradients_through_nested_and_mixed_control_flow_are_tfs():
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a) * 1.5), [tf.constant(0), x])
    twice = tf.gradients(w[1], x) + tf.gradients(w[1] * w[1], x)  # the second reuses the forward's lists

    def outer_body(i, a):
        inner = tf.while_loop(lambda j, b: j < 3, lambda j, b: (j + 1, tf.sin(b) + a), [tf.constant(0), a])[1]
        return i + 1, inner * 0.5

    nested = tf.while_loop(lambda i, a: i < 2, outer_body, [tf.constant(0), x])[1]
    mixed = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.cond(i < 2, lambda: a * 2.0, lambda: tf.sin(a))),
                          [tf.constant(0), x])[1]
    p = tf.placeholder(tf.bool, [])
    loop_in_cond = tf.cond(p, lambda: tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * a), [0, x])[1],
                           lambda: x)
    grads = twice + [tf.gradients(y, x)[0] for y in (nested, mixed, loop_in_cond)]
    with tf.Session() as s:
        got = s.run(grads, {x: [1., 0.5, 0.3], p: True})
    expected = [[0.010052977, 0.57566363, 2.1733325], [0.030047936, 1.6402315, 5.1065917],  # TF 2.21's
                [0.14691229, 0.29989722, 0.91604823], [-1.9008874, -1.0225565, 0.86414802], [8.0, 0.0625, 0.0017496002]]
    for value, want in zip(got, expected):
        assert value == pytest.approx(want, rel=1e-5)


def test_variables_read_or_made_in_branches_and_loops_get_gradients():
    """Variables made in a loop body (a cell's, in dynamic_rnn) are made outside it and collected in the
    graph's collections, as TF's init_scope does; the handles a body reads are loop variables, and
    gradients reach the variables through them."""
    v = tf.Variable([1., 2.], name="v")
    x = tf.placeholder(tf.float32, [2], name="x")
    r = tf.cond(tf.constant(True), lambda: x * v, lambda: x + 1.0)
    w = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v), [tf.constant(0), x])
    g = tf.gradients([r, w[1]], [x, v])
    inputs = tf.placeholder(tf.float32, [2, 4, 3])
    outputs, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(3), inputs, dtype=tf.float32)
    assert outputs.name == "rnn/transpose_1:0"
    cell_variables = [u for u in tf.trainable_variables() if u is not v]
    assert [u.name for u in cell_variables] == ["rnn/basic_rnn_cell/kernel:0", "rnn/basic_rnn_cell/bias:0"]
    assert cell_variables[0].op.graph is tf.get_default_graph()
    cell_grads = tf.gradients(tf.reduce_sum(outputs), cell_variables)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert [a.tolist() for a in s.run(g, {x: [1., 2.]})] == [[2., 10.], [4., 26.]]  # TF 2.21's
        assert [a.shape for a in s.run(cell_grads, {inputs: np.ones([2, 4, 3])})] == [(6, 3), (3,)]


def test_tensor_array_written_in_a_loop_differentiates_as_tfs():
    x = tf.placeholder(tf.float32, [5, 2], name="x")

    def body(i, h, ta):
        h = tf.tanh(h * 0.5 + x[i])
        return i + 1, h, ta.write(i, h)

    _, h, ta = tf.while_loop(lambda i, h, ta: i < 5, body, [tf.constant(0), tf.zeros([2]), tf.TensorArray(tf.float32, 5)])
    g = tf.gradients(tf.reduce_sum(ta.stack()) + tf.reduce_sum(h), x)[0]
    with tf.Session() as s:
        got = s.run(g, {x: np.arange(10.).reshape(5, 2) / 10})
    assert got[0] == pytest.approx([1.73754, 1.61284], abs=1e-5) and got[4] == pytest.approx([0.67304, 0.53371], abs=1e-5)


def test_tensor_lists_are_values_a_push_and_pop_leave_their_input_as_it_was():
    empty = list_ops.empty_tensor_list([2], tf.float32)
    one = list_ops.TensorListPushBack(empty, tf.constant([1., 2.]))
    two = list_ops.TensorListPushBack(one, tf.constant([3., 4.]))
    rest, last = list_ops.tensor_list_pop_back(two, tf.float32, tf.TensorShape([2]))
    _, first = list_ops.tensor_list_pop_back(rest, tf.float32, tf.TensorShape([2]))
    assert last.shape.as_list() == [2]
    with tf.Session() as s:
        got = s.run([last, first] + [list_ops.TensorListLength(t) for t in (empty, one, two, rest)])
        assert [v.tolist() for v in got] == [[3., 4.], [1., 2.], 0, 1, 2, 1]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Trying to pop from an empty list."):
            s.run(list_ops.tensor_list_pop_back(empty, tf.float32, tf.TensorShape([2]))[1])


def test_cond_returns_sparse_tensors_and_ops_as_tf():
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.constant([1.0, 2.0])
    done = tf.cond(p, tf.no_op, tf.no_op)
    assert repr(done) == "<tf.Tensor 'cond/Identity:0' shape=() dtype=bool>"  # the condition, once the op ran
    sp = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
    r = tf.cond(p, lambda: sp, lambda: tf.SparseTensor(sp.indices, sp.values * 2, sp.dense_shape))
    assert isinstance(r, tf.SparseTensor)
    assert [t.name for t in (r.indices, r.values, r.dense_shape)] == [
        "cond_1/Identity:0", "cond_1/Identity_1:0", "cond_1/Identity_2:0"]
    assert [t.name for t in tf.case([(tf.less(x[0], 0.), lambda: [x * 2.])], default=lambda: [x * 3.])] == [
        "case/cond/Identity:0"]
    with tf.Session() as s:
        assert s.run(r, {p: False}).values.tolist() == [2., 4.]


def test_while_loop_errors_as_tf():
    i = tf.constant(0)
    with pytest.raises(TypeError, match=r"^\('pred must not be a Python bool', True\)$"):
        tf.cond(True, lambda: i, lambda: i)
    with pytest.raises(ValueError, match="The two structures don't have the same nested structure"):
        tf.while_loop(lambda i: i < 3, lambda i: (i, i), [i])
    with pytest.raises(TypeError, match=r"^Loop var Const:0 enters the loop with type <dtype: 'int32'> but has type "
                                        r"<dtype: 'float32'> after 1 iteration\. Const:0 type should remain constant\.$"):
        tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [i])
    with pytest.raises(AssertionError, match=r"^cond_graph has 2 outputs; Expected: 1$"):  # not one stacked predicate
        tf.while_loop(lambda i: [i < 2, i < 3], lambda i: i + 1, [i])
    with pytest.raises(ValueError, match=r"First structure: type=list str=\[<tf\.Tensor 'Const_\d+:0' shape=\(\) "
                                         r"dtype=int32>\]\n\nSecond structure: type=list str=\[TensorShape\(\[\]\), "
                                         r"TensorShape\(\[\]\)\]"):
        tf.while_loop(lambda i: i < 2, lambda i: i + 1, [0], shape_invariants=[tf.TensorShape([])] * 2)


# TF 2.21 builds these and fails every run: its session lowers the If and While to Switch and LoopCond, whose
# NodeDefs take only a bool, and whose Switch takes only a scalar (recorded from real TF; TF numbers the
# lowered node `/_N` by its graph's new names)
_NOT_BOOL = (r"^Input '{arg}' passed {kind} expected bool while building NodeDef '{name}/_\d+' using "
             r"Op<name={op}; signature={signature}>$")
_SWITCH = "data:T, pred:bool -> output_false:T, output_true:T; attr=T:type"


@pytest.mark.parametrize("pred, kind", [(1.0, "float"), (1, "int32")])
def test_a_cond_predicate_that_is_not_a_bool_fails_the_run_as_tf(pred, kind):
    p = tf.placeholder_with_default(pred, [])
    r = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(r)
    assert re.match(_NOT_BOOL.format(arg="pred", kind=kind, name="cond/switch_pred", op="Switch",
                                     signature=re.escape(_SWITCH)), runtime_message(info.value))


def test_a_loop_condition_that_is_not_a_bool_fails_the_run_as_tf():
    r = tf.while_loop(lambda i: tf.cast(i < 3, tf.float32), lambda i: i + 1, [0])
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
        sess.run(r)
    assert re.match(_NOT_BOOL.format(arg="input", kind="float", name="while/LoopCond", op="LoopCond",
                                     signature=re.escape("input:bool -> output:bool")), runtime_message(info.value))


def test_a_predicate_must_squeeze_to_a_scalar_as_tfs_lowered_switch_reads_it():
    p = tf.placeholder(tf.bool)
    r = tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2))
    w = tf.while_loop(lambda i: tf.logical_and(p, i < 3), lambda i: i + 1, [0])
    with tf.Session() as sess:
        assert sess.run([r, w], {p: [True]}) == [1, 3]  # squeezed to a scalar, as TF's
        assert sess.run([r, w], {p: [[False]]}) == [2, 0]
        for fetch in (r, w):
            for value, shape in (([True, False], "[2]"), ([], "[0]")):
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=rf"The second input must be a scalar, but it has shape {re.escape(shape)}"):
                    sess.run(fetch, {p: value})


def test_function_names_take_tfs_uids():
    """Every graph and op output takes a number, so in a fresh process the cond after two placeholders is
    `cond_true_3`, as in TF 2.21."""
    x = tf.placeholder(tf.float32, [3], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    before = next(tf_graph.uids)
    tf.cond(p, lambda: x * 2.0, lambda: x + 1.0)
    names = sorted(f.signature.name for f in tf.get_default_graph().as_graph_def().library.function)
    assert names == [f"cond_false_{before + 2}", f"cond_true_{before + 1}"]


def test_a_gradient_built_after_the_session_ran_the_loop_fails_there_as_tf():
    """The gradient adds accumulators to the forward op; the session keeps the op it already ran."""
    x = tf.placeholder(tf.float32, [3], name="x")
    w = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, tf.sin(a)), [tf.constant(0), x])
    with tf.Session() as s:
        s.run(w, {x: [1., 2., 3.]})
        g = tf.gradients(w[1], x)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Connecting to invalid output 4 of source node while "
                                                                  r"which has 4 outputs\. Try using tf\.compat\.v1\."
                                                                  r"experimental\.output_all_intermediates\(True\)\."):
            s.run(g, {x: [1., 2., 3.]})


def test_side_effects_in_top_level_bodies_run_only_when_a_result_needs_them_as_tf():
    """At top level a branch or loop body gets no automatic control dependencies (TF's graph has none), so an
    assign no result reads does not run; inside a tf.function it does. Values are TF 2.21's."""
    v = tf.Variable(1.0, use_resource=True)
    p = tf.placeholder(tf.bool, [])

    def assigning():
        v.assign_add(5.0)
        return tf.constant(2.0)

    top = tf.cond(p, assigning, lambda: tf.constant(3.0))
    c = tf.constant(4.0)
    returned_capture = tf.cond(p, lambda: c, lambda: c * 2.0)  # a branch returning an outer tensor captures it

    @tf.function
    def f(x):
        def branch():
            v.assign_add(5.0)
            return x * 2
        return tf.cond(x > 0, branch, lambda: x - 1)

    inside = f(tf.constant(3.0))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(top, {p: True}) == 2.0 and s.run(v) == 1.0
        assert s.run(inside) == 6.0 and s.run(v) == 6.0
        assert s.run([returned_capture, tf.gradients(returned_capture, c)[0]], {p: False}) == [8.0, 2.0]


def _functions():
    """Each library function by name without its uid, first made first (a name made twice: [first, second]):
    (arguments, results, ret, nodes)."""
    found: dict = {}
    for f in sorted(tf.get_default_graph().as_graph_def().library.function,
                    key=lambda f: int(f.signature.name.rsplit("_", 1)[1])):
        found.setdefault(f.signature.name.rsplit("_", 1)[0], []).append((
            [a.name for a in f.signature.input_arg], [a.name for a in f.signature.output_arg], dict(f.ret),
            [(n.name, list(n.input)) for n in f.node_def]))
    return {name: fs[0] if len(fs) == 1 else fs for name, fs in found.items()}


def test_nested_cond_captures_in_tfs_order_and_names():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.cond(p, lambda: x * 2.0, lambda: x + 1.0), lambda: x - 1.0)
    assert _ops()[2] == ("cond", "StatelessIf", ["p:0", "p:0", "x:0"])  # the inner If's inputs captured first
    (outer_true, inner_true), (outer_false, _) = _functions()["cond_true"], _functions()["cond_false"]
    assert outer_true[0] == ["cond_p", "cond_x"]  # captured as the inner If was made, in its scope
    assert outer_false[0] == ["placeholder", "sub_x"]  # TF's dummy input for the capture it does not read
    assert inner_true == (["mul_x"], ["mul"], {"mul": "mul_0:z:0"}, [("mul/y", []), (
        "mul_0", ["mul_x", "mul/y:output:0"])])  # a node named as a result is renamed, as TF's C API does
    with tf.Session() as s:
        assert [s.run(r, {x: 3.0, p: v}) for v in (True, False)] == [6.0, 2.0]


def test_function_def_names_are_made_unique_as_tfs():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")

    def true_fn():
        m = x * 2.0
        return m, m, tf.identity(m, name="mul_0")

    tf.cond(p, true_fn, lambda: (x, x, x))
    functions = _functions()
    assert functions["cond_false"][:3] == (["x_2"], ["x", "x_0", "x_1"], {"x": "x_2", "x_0": "x_2", "x_1": "x_2"})
    assert functions["cond_true"][1:] == (
        ["mul", "mul_0", "mul_0_0"], {"mul": "mul_1:z:0", "mul_0": "mul_1:z:0", "mul_0_0": "mul_0_1:output:0"},
        [("mul/y", []), ("mul_1", ["mul_x", "mul/y:output:0"]), ("mul_0_1", ["mul_1:z:0"])])


def test_cond_in_a_while_body_captures_and_names_as_tf():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    w = tf.constant(2.0, name="w")
    r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, tf.cond(p, lambda: a * w, lambda: a + x)), [0, x])
    assert ("while", "StatelessWhile", ["while/loop_counter:0", "while/maximum_iterations:0", "Const:0", "x:0", "p:0",
                                        "w:0", "x:0"]) in _ops()
    functions = _functions()
    cond_args = functions["while_cond"][0]
    prefix = cond_args[4].removesuffix("0")
    assert cond_args == ["while_loop_counter", "while_maximum_iterations", "placeholder", "placeholder_1"] + [
        f"{prefix}{k}" for k in range(3)] and prefix.endswith("___redundant_placeholder")
    args, results, ret, nodes = functions["while_body"]
    assert args == ["while_loop_counter", "while_maximum_iterations_0", "placeholder", "placeholder_1", "cond_p_0",
                    "cond_w_0", "cond_x_0"]
    assert results == ["add_1", "while_maximum_iterations", "add", "cond_identity", "cond_p", "cond_w", "cond_x"]
    assert ret["cond_p"] == "cond_p_0" and ("cond", ["cond_p_0", "placeholder_1", "cond_w_0", "cond_x_0"]) in nodes
    assert functions["cond_false"][0] == ["add_placeholder_1", "placeholder", "add_x"]
    assert functions["cond_true"][0] == ["mul_placeholder_1", "mul_w", "placeholder"]
    with tf.Session() as s:
        assert s.run(r, {x: 3.0, p: True})[1] == 24.0 and s.run(r, {x: 3.0, p: False})[1] == 12.0


def test_gradient_ops_are_named_as_tfs():
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    i = tf.placeholder(tf.int32, [], name="i")
    r = tf.switch_case(i, [lambda: x * 2.0, lambda: x + 1.0])
    tf.gradients(tf.reduce_sum(r), x)
    s = tf.placeholder(tf.float32, [], name="s")
    _, w = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * s), [0, 1.0], maximum_iterations=2,
                         name="bounded")
    (ds,) = tf.gradients(w, s)
    ops = {name: (kind, inputs) for name, kind, inputs in _ops()}
    assert ops["gradients/switch_case/indexed_case_grad/gradient"][0] == "StatelessCase"  # TF's name
    assert ops["gradients/switch_case/indexed_case_grad/Identity"][1] == [
        "gradients/switch_case/indexed_case_grad/gradient:0"]
    assert ops["gradients_1/bounded_grad/bounded_grad"][0] == "StatelessWhile"  # <forward op>_grad
    assert ops["gradients_1/bounded_grad/Placeholder_1_0/accumulator"] == ("EmptyTensorList", [
        "gradients_1/bounded_grad/Const:0", "bounded/maximum_iterations:0"])  # a scalar's shape made before it
    with tf.Session() as sess:
        assert sess.run(ds, {s: 3.0}) == 6.0


def test_sparse_tensors_through_cond_switch_case_and_while_as_tf():
    x = tf.placeholder(tf.float32, [2], name="x")
    sp = tf.SparseTensor([[0], [1]], x, [2])
    c = tf.cond(tf.placeholder_with_default(False, []), lambda: sp, lambda: tf.SparseTensor([[1]], [5.0], [2]))
    assert tf.SparseTensor([[0]], [1.0], [2]).indices.name == "SparseTensor_1/indices:0"  # cond packs in its scope
    s = tf.switch_case(tf.constant(1), [lambda: sp, lambda: tf.SparseTensor(sp.indices, sp.values * 3.0, [2])])
    w = tf.while_loop(lambda i, s: i < 2,
                      lambda i, s: (i + 1, tf.SparseTensor(s.indices, s.values * 2.0, s.dense_shape)), [0, sp])
    assert tf.SparseTensor([[0]], [1.0], [2]).indices.name == "SparseTensor_5/indices:0"  # the loop takes 3, as TF's
    assert [t.shape.as_list() for t in (w[1].indices, w[1].values, w[1].dense_shape)] == [[None, 1], [None], [1]]
    with tf.Session() as sess:
        values = sess.run([c.values, s.values, w[1].values, tf.sparse.to_dense(w[1])], {x: [1.0, 2.0]})
    assert [v.tolist() for v in values] == [[5.0], [3.0, 6.0], [4.0, 8.0], [4.0, 8.0]]


def test_second_derivatives_through_a_while_loop_and_hessians_are_tfs():
    """The gradient of a While gradient reaches the forward values through their accumulators (TF 2.21:
    d2(x**3)/dx2 at 2 is 12), and tf.hessians, whose loop differentiates outer tensors, works."""
    x = tf.constant(2.0)
    a = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), [0, tf.constant(1.0)])[1]
    g = tf.gradients(a, x)[0]
    z = tf.constant(1.5)
    out = tf.while_loop(lambda i, a, b: i < 4, lambda i, a, b: (i + 1, a * z + b, b * z),
                        [0, tf.constant(1.0), tf.constant(2.0)])
    g1 = tf.gradients(out[1], z)[0]
    y = tf.constant([1.0, 2.0])
    first = [a, g, tf.gradients(g, x)[0], tf.hessians(a, x)[0]]
    second = [g1, tf.gradients(g1, z)[0]]
    hessian = tf.hessians(tf.reduce_sum(y ** 3), y)[0]
    with tf.Session() as s:
        assert s.run(first) == [8.0, 12.0, 12.0, 12.0]
        np.testing.assert_allclose(s.run(second), [67.5, 99.0], rtol=1e-6)
        np.testing.assert_array_equal(s.run(hessian), [[6.0, 0.0], [0.0, 12.0]])


def test_gradients_built_in_a_loop_body_or_branch_reach_outer_tensors_through_captures():
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.reduce_sum(tf.sin(x) * [0.5, -1.0, 2.0])
    r = tf.while_loop(lambda i, a: i < 3,
                      lambda i, a: (i + 1, a + tf.gradients(y * tf.cast(i, tf.float32), x)[0]), [0, tf.zeros([3])])[1]
    c = tf.cond(tf.constant(True), lambda: tf.gradients(y, x)[0], lambda: tf.zeros([3]))
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(r), 3 * np.cos([1.0, 2.0, 3.0]) * [0.5, -1.0, 2.0], rtol=1e-5)
        np.testing.assert_allclose(s.run(c), np.cos([1.0, 2.0, 3.0]) * [0.5, -1.0, 2.0], rtol=1e-6)


def _function_nodes():
    return {re.sub(r"_\d+", "", f.signature.name): sorted((n.name, n.op) for n in f.node_def)
            for f in tf.get_default_graph().as_graph_def().library.function}


def test_cond_gradient_reads_the_forward_intermediates_as_optionals_as_tf():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    w = tf.constant([[0.5, -1.0], [2.0, 0.1]])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.nn.relu(tf.matmul(x, w)), lambda: tf.exp(x) * w)
    dx, dw = tf.gradients(y, [x, w])
    op = tf.get_default_graph().get_operation_by_name("cond")
    then, other = (op.get_attr(a).name for a in ("then_branch", "else_branch"))
    assert then.endswith("_rewritten") and other.endswith("_rewritten") and len(op.outputs) == 2
    assert [t.dtype for t in op.outputs] == [tf.float32, tf.variant]
    functions = _function_nodes()
    # TF 2.21's nodes: the false branch wraps Exp, the true branch returns an empty optional in its place
    assert functions["cond_false_rewritten"] == [("Exp", "Exp"), ("OptionalFromValue", "OptionalFromValue"),
                                                 ("mul_0", "Mul")]
    assert ("OptionalNone", "OptionalNone") in functions["cond_true_rewritten"]
    assert ("gradients/mul_grad/Mul_1/OptionalGetValue", "OptionalGetValue") in functions["cond_false_grad"]
    assert "Exp" not in dict(functions["cond_false_grad"]).values()  # not recomputed
    grad_if = dx.op.inputs[0].op
    assert (grad_if.name, grad_if.type, len(grad_if.outputs)) == ("gradients/cond_grad/StatelessIf", "StatelessIf", 2)
    xv, wv = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.5, -1.0], [2.0, 0.1]])
    with tf.Session() as s:
        np.testing.assert_allclose(s.run([dx, dw], {p: False}), [np.exp(xv) * wv, np.exp(xv)], rtol=1e-5)
        relu_grad = (xv @ wv > 0).astype(np.float32)
        np.testing.assert_allclose(s.run([dx, dw], {p: True}), [relu_grad @ wv.T, xv.T @ relu_grad], rtol=1e-5)


def test_cond_gradient_uses_the_random_value_the_forward_branch_drew():
    x = tf.constant([1.0, 2.0, 3.0])
    p = tf.placeholder(tf.bool, [])

    y = tf.cond(p, lambda: tf.sin(x) * tf.random.uniform([3]), lambda: x * 2.0)
    g = tf.gradients(y, x)[0]
    functions = _function_nodes()  # the gradient reads the optional, as TF's: no random op of its own
    assert ("random_uniform/RandomUniform", "RandomUniform") in functions["cond_true_rewritten"]
    assert all(op != "RandomUniform" for _, op in functions["cond_true_grad"])
    assert g.op.inputs[0].op.type == "StatelessIf"
    xv = np.array([1.0, 2.0, 3.0])
    with tf.Session() as s:
        yv, gv = s.run([y, g], {p: True})
        np.testing.assert_allclose(gv, np.cos(xv) * yv / np.sin(xv), rtol=1e-5)
        np.testing.assert_array_equal(s.run(g, {p: False}), [2.0, 2.0, 2.0])


def test_nested_cond_second_derivatives_and_cond_in_a_while_loop_as_tf():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    p, q = tf.placeholder(tf.bool, []), tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.cond(q, lambda: tf.sin(x) * x, lambda: tf.exp(x)), lambda: tf.square(x))
    g = tf.gradients(y, x)[0]
    g2 = tf.gradients(g, x)[0]
    outer = tf.get_default_graph().get_operation_by_name("gradients/cond_grad/StatelessIf")
    assert len(outer.outputs) == 7  # TF's: the gradient If returns its own intermediates for the second derivative
    xv = np.array([[1.0, 2.0], [3.0, 4.0]])
    expected = {(True, True): (np.sin(xv) + xv * np.cos(xv), 2 * np.cos(xv) - xv * np.sin(xv)),
                (True, False): (np.exp(xv), np.exp(xv)), (False, True): (2 * xv, 2 + 0 * xv),
                (False, False): (2 * xv, 2 + 0 * xv)}
    with tf.Session() as s:
        for (a, b), values in expected.items():
            np.testing.assert_allclose(s.run([g, g2], {p: a, q: b}), values, rtol=1e-5)

    def body(i, v):
        return i + 1, tf.cond(i % 2 > 0, lambda: tf.sin(v) * 2.0, lambda: tf.exp(v) * 0.5)
    z0 = tf.constant([1.0, 2.0])
    _, z = tf.while_loop(lambda i, v: i < 3, body, [tf.constant(0), z0])
    dz = tf.gradients(z, z0)[0]
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(dz), [2.0177, -1.0998], atol=1e-4)  # real TF's


def test_while_gradient_moves_shape_ops_into_the_forward_loop_as_tf():
    x, w = tf.placeholder(tf.float32, None), tf.placeholder(tf.float32, None)
    _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * w), [tf.constant(0), x])
    dx, dw = tf.gradients(y, [x, w])
    accumulators = sorted(op.name for op in tf.get_default_graph().get_operations() if op.type == "EmptyTensorList")
    # TF's two: the loop variable, and the shape of the captured w that Mul's gradient reads (not w itself)
    assert [name.split("/")[-2] for name in accumulators] == ["Placeholder_1_0", "Shape_1_0"]
    body = tf.get_default_graph().get_operation_by_name("while").get_attr("body").name
    nodes = {n.op for f in tf.get_default_graph().as_graph_def().library.function if f.signature.name == body
             for n in f.node_def}
    assert {"Shape", "TensorListPushBack"} <= nodes
    with tf.Session() as s:
        values = s.run([y, dx, dw], {x: [1.0, 2.0], w: [0.5, 1.5]})
    np.testing.assert_allclose(values, [[0.125, 6.75], [0.125, 3.375], [0.75, 13.5]])  # real TF's


def test_case_gradient_keeps_indexed_slices_as_tf():
    x = tf.constant([1.0, 2.0, 3.0])
    v = tf.get_variable("v", initializer=[0.5, 1.0, 2.0], use_resource=True)
    i = tf.placeholder(tf.int32, [])
    y = tf.switch_case(i, [lambda: tf.sin(x) * v, lambda: tf.exp(x), lambda: tf.gather(v, [0, 2, 1]) * x])
    dx, dv = tf.gradients(y, [x, v])
    case = dx.op.inputs[0].op
    # TF's: x's gradient and the three parts of v's IndexedSlices, the dense branches' made IndexedSlices too
    assert (case.type, len(case.outputs)) == ("StatelessCase", 4) and isinstance(dv, tf.IndexedSlices)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        expected = {0: np.sin([1.0, 2.0, 3.0]), 1: [0.0, 0.0, 0.0], 2: [1.0, 3.0, 2.0]}
        for k, want in expected.items():
            np.testing.assert_allclose(s.run(tf.convert_to_tensor(dv), {i: k}), want, atol=1e-6)


def test_indexed_slices_through_cond_and_while_as_tf():
    """An IndexedSlices' values, indices and dense_shape travel as three outputs; one against a tensor is TF's
    "Cannot reconcile" (TF 2.21)."""
    ix = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([1]), tf.constant([3, 2]))
    p = tf.placeholder(tf.bool, [])
    c = tf.cond(p, lambda: ix, lambda: tf.IndexedSlices(ix.values * -1.0, ix.indices, ix.dense_shape))
    assert isinstance(c, tf.IndexedSlices) and [c.values.name, c.indices.name] == ["cond/Identity:0",
                                                                                   "cond/Identity_1:0"]
    w = tf.while_loop(lambda i, x: i < 2, lambda i, x: (i + 1, tf.IndexedSlices(
        tf.concat([x.values, x.values * 2.0], 0), tf.concat([x.indices, x.indices + 1], 0), x.dense_shape)),
        [0, ix], shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])])
    assert [t.shape.as_list() for t in (w[1].values, w[1].indices, w[1].dense_shape)] == [[None, 2], [None], [2]]
    with pytest.raises(TypeError, match=r"^Cannot reconcile tf.cond 0-th outputs:\n  branches returned: \(<"):
        tf.cond(p, lambda: ix, lambda: ix.values)
    with tf.Session() as sess:
        assert sess.run(w)[1].indices.tolist() == [1, 2, 2, 3]
        assert sess.run(c, {p: False}).values.tolist() == [[-1.0, -2.0]]


def test_an_error_inside_cond_or_while_names_only_its_node_as_tf():
    """TF's session lowers If, Case and While (`_lower_using_switch_merge`) to Switch and Merge, so a node of
    their bodies fails as the graph's own: no call frames after it (messages from TF 2.21)."""
    x = tf.placeholder(tf.int32, [])

    def inner():
        with tf.control_dependencies([tf.debugging.assert_less(x, 3, message="inner")]):
            return tf.constant(1)

    c = tf.cond(x > 0, lambda: tf.cond(x > 5, inner, lambda: tf.constant(2)), lambda: tf.constant(3))
    m = tf.map_fn(lambda e: tf.debugging.check_numerics(e, "bad"), tf.constant([1.0, np.nan]))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(c, {x: 7})
        assert runtime_message(info.value) == ("assertion failed: [inner] [Condition x < y did not hold "
                                               "element-wise:] [x (Placeholder:0) = ] [7] [y (assert_less/y:0) = ] "
                                               "[3]\n\t [[{{node assert_less/Assert/Assert}}]]")
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(m)
        assert runtime_message(info.value) == "bad : Tensor had NaN values\n\t [[{{node CheckNumerics}}]]"


def test_gradient_of_a_variable_read_in_a_cond_inside_a_while_as_tf():
    """The cond's gradient inlines its branches again: a handle there still leads to its variable, so the
    branch that does not read it gives zeros of its shape (values from TF 2.21)."""
    x = tf.Variable(1.5, name="x")
    r = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, tf.cond(a > 3.0, lambda: a * 0.5, lambda: a * x)),
                      [0, tf.constant(1.0)])
    g = tf.gradients(r[1], x)
    with tf.Session() as sess:
        sess.run(x.initializer)
        assert sess.run([r[1], g]) == [2.53125, [6.75]]


def test_a_second_gradient_of_a_loop_ignores_the_accumulators_the_first_added():
    """The first gradient made the loop output its accumulators; `tf.gradients` gives those outputs zeros in
    the second, which are no gradient to pop (TF passes the intermediates None; values from TF 2.21)."""
    x = tf.placeholder(tf.float32, [3])

    def body(i, acc):
        return i + 1, acc + tf.cond(x[i] > 0, lambda: x[i] * 2.0, lambda: -x[i])

    r = tf.while_loop(lambda i, a: i < 3, body, [0, 0.0])
    first = tf.gradients(r[1], x)
    second = tf.gradients(r[1], [x, tf.constant(1.0)], unconnected_gradients="zero")
    with tf.Session() as sess:
        values = sess.run([r[1], first, second], {x: [1.0, -2.0, 3.0]})
    assert values[0] == 10.0 and [v.tolist() for v in values[1] + values[2]] == [[2.0, -1.0, 2.0]] * 2 + [0.0]


def test_shape_vectors_captured_into_a_loop_or_branch_fix_shapes_as_tf():
    """TF's maybe_set_static_shape: reshape, fill (zeros, ones) and the random ops read a captured shape
    constant's value across the function boundary; a value computed inside stays unknown (TF 2.21)."""
    shape = tf.constant([2, 3])
    seen = []

    def body(i, a):
        seen.append([t.shape.as_list() for t in (
            tf.reshape(tf.range(6.0), shape), tf.zeros(shape), tf.fill(shape, 1.0), tf.random_uniform(shape),
            tf.random_normal(shape), tf.truncated_normal(shape), tf.reshape(tf.range(6.0), shape + 0))])
        return i + 1, a

    tf.while_loop(lambda i, a: i < 2, body, [0, 0.0])
    c = tf.cond(tf.constant(True), lambda: tf.fill(shape, 1.0), lambda: tf.ones([2, 3]))
    assert seen == [[[2, 3]] * 6 + [[None, None]]] and c.shape.as_list() == [2, 3]


def test_a_lone_tensor_as_loop_vars_fails_on_its_length_as_tf():
    with pytest.raises(TypeError, match=r"^len is not well defined for a symbolic Tensor \(Const:0\)\. Please call "
                                        r"`x.shape` rather than `len\(x\)` for shape information\.$"):
        tf.while_loop(lambda i: i < 3, lambda i: i + 1, tf.constant(0))
    assert tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0]).name == "while/Identity_2:0"


def test_while_gradient_zeros_for_a_resource_handle_read_its_shape_with_a_variable_shape_op_as_tf():
    """An unused handle output of a While gets zeros from a VariableShape op even where the shape is known
    (TF's control_flow_state.ZerosLike; names, shapes and values from TF 2.21)."""
    v = tf.get_variable("v", [3], initializer=tf.constant_initializer([1., 2., 3.]), use_resource=True)
    _, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * v), [0, tf.ones([3])])
    grad = tf.gradients(tf.reduce_sum(acc), [v])
    zeros = tf.get_default_graph().get_tensor_by_name("gradients/zeros:0")
    assert zeros.shape.as_list() == [3]
    assert (zeros.op.type, zeros.op.inputs[0].name) == ("Fill", "gradients/VariableShape:0")
    assert zeros.op.inputs[0].op.inputs[0].name == "while:4"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(grad)[0].tolist() == [3.0, 12.0, 27.0]
