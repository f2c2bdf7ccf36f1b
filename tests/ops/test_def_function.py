"""`tf.function` and `wrap_function` in graph mode: traces, call ops, captures, gradients, errors.

Names, shapes and values are those real TF 2.21 gives (`tf.compat.v1`, v2 behaviour disabled) for the same
programs; function names carry TF's uid, which differs, so only their form is checked.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave.ops.def_function import UnliftableError
from tests.op_testing import check_gradient


def _library(g: tf.Graph) -> dict:
    return {f.signature.name: f for f in g.as_graph_def().library.function}


def test_calls_retrace_per_signature_and_capture_outer_tensors_as_tf():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        x2 = tf.placeholder(tf.float32, [2, 3], name="x2")
        v = tf.Variable([1.0, 2.0, 3.0], name="v")

        @tf.function
        def f(a, k=2, scale=None):
            r = a
            for _ in range(k):  # Python control flow on Python values runs while tracing
                r = r * 2.0 + v
            return {"r": r, "k": k}

        o1, o2, o3, o4 = f(x), f(x, k=3), f(x2), f(x)
        assert (o1["r"].name, o1["k"].name, o2["r"].name, o3["r"].name, o4["r"].name) == (
            "PartitionedCall:1", "PartitionedCall:0", "PartitionedCall_1:1", "PartitionedCall_2:1",
            "PartitionedCall_3:1")
        assert o1["r"].shape.as_list() == [None, 3] and o3["r"].shape.as_list() == [2, 3]
        assert o1["k"].dtype == tf.int32 and o1["k"].shape.as_list() == []
        library = _library(g)
        assert len(library) == 2  # (x, k=2) serves x2 and the second x; k=3 retraces
        for name, fdef in library.items():
            assert re.fullmatch(r"__inference_f_\d+", name)
            assert [a.name for a in fdef.signature.input_arg] == ["a", "add_v_read"]
            assert dict(fdef.ret) == {"identity": "Identity:output:0", "identity_1": "Identity_1:output:0"}
        assert [(o.name, o.type, [i.name for i in o.inputs]) for o in g.get_operations() if "Call" in o.type] == [
            (f"PartitionedCall{s}", "PartitionedCall", [i, "v/read:0"]) for s, i in [("", "x:0"), ("_1", "x:0"), ("_2", "x2:0"), ("_3", "x:0")]]
        gx, gv = tf.gradients(o1["r"], [x, v])
        assert (gx.name, gv.name) == ("gradients/PartitionedCall_grad/PartitionedCall:0",
                                      "gradients/PartitionedCall_grad/PartitionedCall:1")
        assert gx.shape.as_list() == [None, 3] and gv.shape.as_list() == [3]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            r1, r2, dx, dv = sess.run([o1["r"], o2["r"], gx, gv], {x: [[1, 2, 3]]})
    np.testing.assert_array_equal(r1, [[7., 14., 21.]])
    np.testing.assert_array_equal(r2, [[15., 30., 45.]])
    np.testing.assert_array_equal(dx, [[4., 4., 4.]])
    np.testing.assert_array_equal(dv, [3., 3., 3.])


def test_input_signature_binding_errors_as_tf():
    with tf.Graph().as_default():
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def h(a):
            return tf.reduce_sum(a)

        assert h(tf.constant([1., 2.])).shape.as_list() == []
        with pytest.raises(TypeError) as info:
            h(tf.constant([[1.]]))
        assert str(info.value) == (
            "Binding inputs to tf.function failed due to `Can not cast TensorSpec(shape=(1, 1), dtype=tf.float32, "
            "name=None) to TensorSpec(shape=(?,), dtype=tf.float32, name=None)`. Received args: (<tf.Tensor "
            "'Const_1:0' shape=(1, 1) dtype=float32>,) and kwargs: {} for signature: (a: TensorSpec(shape=(?,), "
            "dtype=tf.float32, name=None)).")
        with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(1,\), dtype=tf.int32, name=None\)"):
            h(tf.constant([1], tf.int32))


def test_python_outputs_and_none():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])

        @tf.function
        def nothing(a):
            return None

        @tf.function
        def pair(a):
            return a, 3

        assert nothing(x) is None
        a, three = pair(x)
        assert (a.name, three.name, three.dtype) == ("PartitionedCall_1:0", "PartitionedCall_1:1", tf.int32)
        with tf.Session() as sess:
            assert sess.run(three, {x: np.zeros([1, 3])}) == 3  # a call needs all its inputs, as TF's


def test_stateful_body_calls_statefully_and_errors_name_the_inner_node():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])

        @tf.function
        def bad(a):
            return tf.debugging.check_numerics(a, "bad") * 2.0

        z = bad(x)
        assert (z.op.type, z.name) == ("StatefulPartitionedCall", "StatefulPartitionedCall:0")
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(z, {x: [[1, 2, 3]]}), [[2., 4., 6.]])
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(z, {x: [[1, float("nan"), 3]]})
    assert runtime_message(info.value) == ("bad : Tensor had NaN values\n\t [[{{node CheckNumerics}}]]\n\t "
                                  "[[StatefulPartitionedCall]]")


def test_nested_calls_and_their_gradient():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3])

        @tf.function
        def inner(a):
            return a * a * 3.0

        @tf.function
        def outer(a):
            return inner(a) + tf.sin(a)

        y = outer(x)
        (dx,) = tf.gradients(y, x)
        names = list(_library(g))
        assert sum(bool(re.fullmatch(r"__inference___backward_(inner|outer)_\d+_\d+", n)) for n in names) == 2
        with tf.Session() as sess:
            value, grad = sess.run([y, dx], {x: [[1., 2., 3.]]})
    a = np.array([[1., 2., 3.]], np.float32)
    np.testing.assert_allclose(value, 3 * a * a + np.sin(a), rtol=1e-6)
    np.testing.assert_allclose(grad, 6 * a + np.cos(a), rtol=1e-6)


def test_gradient_through_a_call_numerically():
    @tf.function
    def f(a, b):
        return tf.matmul(tf.tanh(a), b), tf.reduce_sum(a * b)

    check_gradient(lambda a, b: list(f(a, b)), [np.random.RandomState(0).randn(3, 3),
                                                np.random.RandomState(1).randn(3, 3)])


def test_wrap_function():
    with tf.Graph().as_default():
        one = tf.wrap_function(lambda: tf.constant(1.0) + 1, [])
        double = tf.wrap_function(lambda a: a * 2, [tf.TensorSpec([2], tf.float32)])
        r = double(tf.constant([1., 2.]))
        assert r.shape.as_list() == [2]
        with tf.Session() as sess:
            assert sess.run(one()) == 2.0
            np.testing.assert_array_equal(sess.run(r), [2., 4.])


def test_switch_case_builds_one_stateless_case_as_tf():
    """TF 2.21 under disable_v2_behavior: `switch_case/indexed_case` (StatelessCase) reading every branch's
    captures, its output through `switch_case/indexed_case/Identity`, branches named after the scope."""
    with tf.Graph().as_default() as g:
        i = tf.placeholder(tf.int32, [], name="i")
        x = tf.placeholder(tf.float32, [None], name="x")
        r = tf.switch_case(i, [lambda: x * 2.0, lambda: x + 1.0, lambda: tf.reduce_sum(x) + x])
        assert [(o.name, o.type, [t.name for t in o.inputs]) for o in g.get_operations()] == [
            ("i", "Placeholder", []), ("x", "Placeholder", []),
            ("switch_case/indexed_case", "StatelessCase", ["i:0", "x:0"]),
            ("switch_case/indexed_case/Identity", "Identity", ["switch_case/indexed_case:0"])]
        assert r.name == "switch_case/indexed_case/Identity:0" and r.shape.as_list() == [None]
        case = r.op.inputs[0].op
        assert [re.sub(r"_\d+$", "", b.name) for b in case.get_attr("branches")] == [
            f"switch_case_indexed_case_branch{k}" for k in range(3)]
        assert case.get_attr("_lower_using_switch_merge") is True
        (dx,) = tf.gradients(r, x)
        with tf.Session() as sess:
            values = [sess.run(r, {i: k, x: [1., 2.]}).tolist() for k in (0, 1, 2, 7, -1)]
            grad = sess.run(dx, {i: 2, x: [1., 2.]})
    assert values == [[2., 4.], [2., 3.], [4., 5.], [4., 5.], [4., 5.]]  # TF's
    np.testing.assert_array_equal(grad, [3., 3.])


def test_resource_variable_updates_run_in_program_order_as_tf():
    with tf.Graph().as_default() as g:
        v = tf.get_variable("v", initializer=1.0, use_resource=True)

        @tf.function
        def update(d):
            v.assign_add(d)
            return v.read_value() * 1.0

        r = update(tf.constant(2.0))
        assert (r.op.type, [i.name for i in r.op.inputs], r.shape.as_list()) == (
            "StatefulPartitionedCall", ["Const:0", "v:0"], [])
        fdef = next(iter(_library(g).values()))
        assert [a.name for a in fdef.signature.input_arg] == ["d", "assignaddvariableop_v"]  # TF's
        read = next(n for n in fdef.node_def if n.op == "ReadVariableOp")
        assert "^AssignAddVariableOp" in read.input
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert [sess.run(r), sess.run(r), sess.run(v)] == [3.0, 5.0, 5.0]  # TF's


def test_a_nested_function_captures_through_the_function_between_as_tf():
    with tf.Graph().as_default() as g:
        c = tf.constant(3.0, name="c")

        @tf.function
        def inner(a):
            return a * c

        @tf.function
        def outer(a):
            return inner(a) + c

        x = tf.placeholder(tf.float32, [2])
        y = outer(x)
        (dx,) = tf.gradients(y, x)
        args = {re.sub(r"_\d+$", "", name): [a.name for a in f.signature.input_arg]
                for name, f in _library(g).items() if "backward" not in name}
        assert args == {"__inference_inner": ["a", "mul_c"], "__inference_outer": ["a", "c"]}  # TF's
        assert [i.name for i in y.op.inputs] == ["Placeholder:0", "c:0"]
        with tf.Session() as sess:
            value, grad = sess.run([y, dx], {x: [1., 2.]})
    np.testing.assert_array_equal(value, [6., 9.])
    np.testing.assert_array_equal(grad, [3., 3.])


def test_outer_control_dependencies_and_calls_without_results():
    with tf.Graph().as_default() as g:
        v = tf.get_variable("v", initializer=1.0, use_resource=True)
        inc = v.assign_add(1.0)

        @tf.function
        def after(a):
            with tf.control_dependencies([inc]):
                return a + 1.0

        @tf.function
        def update():
            v.assign_add(10.0)

        y = after(tf.constant(1.0))
        assert y.op.control_inputs == [inc.op]  # TF's control capture
        assert update() is None
        call = g.get_operation_by_name("StatefulPartitionedCall")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y) == 2.0 and sess.run(v) == 2.0
            sess.run(call)
            assert sess.run(v) == 12.0


def _ordered(cf) -> tuple[list, list]:
    """The ops of a trace with control inputs (sorted), and its control outputs."""
    return ([(op.name, sorted(c.name for c in op.control_inputs))
             for op in cf.graph.get_operations() if op.control_inputs],
            sorted(op.name for op in cf.graph.control_outputs))


def test_automatic_control_dependencies_order_by_resource_and_gather_side_effects_as_tf():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v", use_resource=True)
        w = tf.Variable(2.0, name="w", use_resource=True)

        @tf.function
        def f(x):
            v.assign_add(x, read_value=False)
            r = w.read_value()
            w.assign(x * 3.0, read_value=False)
            c = v.read_value()
            tf.print("hi", x)
            tf.print("ho")
            return c + r

        @tf.function
        def g(x):
            v.assign(x, read_value=False)
            w.assign_add(x, read_value=False)

        y = f(tf.constant(2.0))
        assert g(tf.constant(5.0)) is None
        cf, cg = f.get_concrete_function(tf.constant(2.0)), g.get_concrete_function(tf.constant(5.0))
        run_g = tf.get_default_graph().get_operation_by_name("StatefulPartitionedCall_1")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y) == np.float32(5.0)
            sess.run(run_g)  # no result: the assigns are its control outputs, and run
            assert sess.run([v, w]) == [5.0, 11.0]
    must_run = ["AssignAddVariableOp", "AssignVariableOp", "PrintV2", "PrintV2_1", "Read/ReadVariableOp",
                "Read_1/ReadVariableOp"]
    # TF 2.21's: a write after the reads of its resource, a read after the last write, prints among
    # themselves, the result after a NoOp that gathers every side effect (reads that are consumed too)
    assert _ordered(cf) == ([("AssignVariableOp", ["Read/ReadVariableOp"]),
                             ("Read_1/ReadVariableOp", ["AssignAddVariableOp"]), ("PrintV2_1", ["PrintV2"]),
                             ("Identity_2", ["NoOp"]), ("NoOp", must_run)], must_run)
    assert [t.name for t in cf.graph.outputs] == ["Identity_2:0"]
    assert _ordered(cg) == ([], ["AssignAddVariableOp", "AssignVariableOp"])
    fdef = cg.function_def
    assert list(fdef.signature.control_output) == ["AssignAddVariableOp", "AssignVariableOp"]
    assert dict(fdef.control_ret) == {"AssignAddVariableOp": "AssignAddVariableOp",
                                      "AssignVariableOp": "AssignVariableOp"}
    assert fdef.signature.is_stateful and fdef.attr["_construction_context"].s == b"kEagerRuntime"


def test_variables_of_the_first_trace_are_lifted_out_and_read_through_captured_handles_as_tf():
    with tf.Graph().as_default() as g:
        class M:
            def __init__(self):
                self.v = None

            @tf.function
            def f(self, x):
                if self.v is None:
                    self.v = tf.Variable(2.0, name="w")
                return self.v * x

        m = M()
        y = m.f(tf.constant(3.0))
        y2 = m.f(tf.constant([1.0, 2.0]))
        cf = m.f.get_concrete_function(tf.constant(3.0))
        # TF 2.21's (its outer ops in another order: w, w/Read, w/Initializer, w/IsInitialized, w/Assign)
        assert sorted((op.name, op.type, [t.name for t in op.inputs]) for op in g.get_operations()[:7]) == [
            ("Const", "Const", []), ("StatefulPartitionedCall", "StatefulPartitionedCall", ["Const:0", "w:0"]),
            ("w", "VarHandleOp", []), ("w/Assign", "AssignVariableOp", ["w:0", "w/Initializer/initial_value:0"]),
            ("w/Initializer/initial_value", "Const", []),
            ("w/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp", ["w:0"]),
            ("w/Read/ReadVariableOp", "ReadVariableOp", ["w:0"])]
        assert (type(m.v).__name__, m.v.name, m.v.dtype, m.v.initializer.name) == (
            "UnliftedInitializerVariable", "w:0", tf.float32, "w/Assign")
        assert [v.name for v in tf.global_variables()] == ["w:0"] and tf.trainable_variables() == []
        assert [(op.name, op.type, [t.name for t in op.inputs], [c.name for c in op.control_inputs])
                for op in cf.graph.get_operations()] == [
            ("x", "Placeholder", [], []), ("ReadVariableOp/w", "Placeholder", [], []),
            ("ReadVariableOp", "ReadVariableOp", ["ReadVariableOp/w:0"], []),
            ("mul", "Mul", ["ReadVariableOp:0", "x:0"], []), ("Identity", "Identity", ["mul:0"], ["NoOp"]),
            ("NoOp", "NoOp", [], ["ReadVariableOp"])]
        assert [v.name for v in cf.graph.variables] == ["w:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out, out2 = sess.run([y, y2])
    assert out == np.float32(6.0)
    np.testing.assert_array_equal(out2, [2., 4.])


def test_lifted_initial_values_scopes_and_get_variable_per_instance_as_tf():
    with tf.Graph().as_default() as g:
        class M:
            def __init__(self):
                self.v = None

            @tf.function
            def f(self, x):
                if self.v is None:
                    with tf.name_scope("layer"):
                        self.v = tf.Variable(tf.zeros([2]) + 1.5, name="w")
                    self.u = tf.get_variable("u", shape=[2], initializer=tf.ones_initializer())
                self.u.assign_add(x, read_value=False)
                return self.v * x + self.u

        m1, m2 = M(), M()
        y = m1.f(tf.constant([1.0, 2.0]))
        # TF 2.21's: the initial value's ops lifted out of the function with their names
        assert sorted(op.name for op in g.get_operations()) == [
            "Const", "StatefulPartitionedCall", "layer/add", "layer/add/y", "layer/w", "layer/w/Assign",
            "layer/w/IsInitialized/VarIsInitializedOp", "layer/w/Read/ReadVariableOp", "layer/zeros", "u",
            "u/Assign", "u/Initializer/ones", "u/IsInitialized/VarIsInitializedOp", "u/Read/ReadVariableOp"]
        with pytest.raises(ValueError, match="Variable u already exists, disallowed"):
            m2.f(tf.constant([3.0, 4.0]))  # its own first trace: get_variable sees the store outside
        assert [v.name for v in tf.global_variables()] == ["layer/w:0", "u:0", "layer/w_1:0"]
        assert tf.trainable_variables() == []
        assert [v.name for v in m1.f.get_concrete_function(tf.constant([1.0, 2.0])).graph.variables] == [
            "layer/w:0", "u:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(y), [3.5, 6.])  # TF's values
            np.testing.assert_array_equal(sess.run(y), [4.5, 8.])


def test_a_variable_whose_initial_value_needs_an_argument_cannot_be_lifted_as_tf():
    with tf.Graph().as_default():
        class M:
            def __init__(self):
                self.v = None

            @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
            def f(self, x):
                if self.v is None:
                    self.v = tf.Variable(x * 2.0, name="w")
                return self.v + x

        with pytest.raises(UnliftableError, match=re.escape(
                "Unable to lift tensor <tf.Tensor 'mul:0' shape=(2,) dtype=float32> because it depends "
                "transitively on placeholder <tf.Operation 'x' type=Placeholder> via at least one path, e.g.: "
                "mul (Mul) <- x (Placeholder)")):
            M().f.get_concrete_function()  # the input signature's


def test_a_function_called_inside_another_makes_its_variables_outside_both_as_tf():
    with tf.Graph().as_default() as g:
        class M:
            def __init__(self):
                self.v = None

            @tf.function
            def inner(self, x):
                if self.v is None:
                    self.v = tf.Variable(tf.ones([2]), name="w")
                return self.v * x

        m = M()

        @tf.function
        def outer(x):
            return m.inner(x) + 1.0

        y = outer(tf.constant([1.0, 2.0]))
        assert sorted(op.name for op in g.get_operations()) == [  # TF 2.21's
            "Const", "StatefulPartitionedCall", "ones", "w", "w/Assign", "w/IsInitialized/VarIsInitializedOp",
            "w/Read/ReadVariableOp"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(y), [2., 3.])


def test_creating_variables_on_a_later_trace_fails_as_tf():
    with tf.Graph().as_default():
        @tf.function
        def always(x):
            return tf.Variable(1.0) * x

        @tf.function
        def late(x, make):
            if make:
                tf.Variable(1.0)
            return x * 2.

        with pytest.raises(ValueError, match="^tf.function only supports singleton tf.Variables created on the "
                                             "first call. Make sure the tf.Variable is only created once"):
            always(tf.constant(1.0))  # its second trace, which may not create one, does
        assert late(tf.constant(1.0), False).name == "PartitionedCall:0"
        with pytest.raises(ValueError, match="^Creating variables on a non-first call to a function decorated "
                                             "with tf.function.$"):
            late(tf.constant(1.0), True)


def test_wrap_function_variables_live_outside_and_its_graph_collects_them_as_tf():
    with tf.Graph().as_default() as g:
        def fn(x):
            v = tf.Variable(3.0, name="v")
            u = tf.get_variable("u", shape=[], initializer=tf.constant_initializer(2.0))
            return v * x + u

        f = tf.wrap_function(fn, [tf.TensorSpec([], tf.float32)])
        # TF 2.21's: resource variables made outside, read through captured handles, no result Identity
        assert f.graph.name == "wrapped_function"
        assert [(op.name, op.type) for op in f.graph.get_operations()] == [
            ("Placeholder", "Placeholder"), ("ReadVariableOp/v", "Placeholder"),
            ("ReadVariableOp", "ReadVariableOp"), ("mul", "Mul"), ("add/ReadVariableOp/u", "Placeholder"),
            ("add/ReadVariableOp", "ReadVariableOp"), ("add", "AddV2")]
        assert [v.name for v in f.variables] == ["v:0", "u:0"] == [v.name for v in f.trainable_variables]
        assert [type(v).__name__ for v in f.variables] == ["ResourceVariable"] * 2
        assert [t.name for t in f.inputs] == ["Placeholder:0", "ReadVariableOp/v:0", "add/ReadVariableOp/u:0"]
        assert [t.name for t in f.outputs] == ["add:0"]
        assert [v.name for v in tf.global_variables()] == ["v:0", "u:0"]
        assert [v.name for v in f.graph.get_collection("variables")] == ["v:0", "u:0"]
        assert {op.name for op in g.get_operations()} >= {"v", "v/Assign", "u", "u/Assign",
                                                          "u/Initializer/Const"}
        y = f(tf.constant(2.0))
        assert y.name == "StatefulPartitionedCall:0"
        assert [t.name for t in y.op.inputs] == ["Const:0", "v:0", "u:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(y) == np.float32(8.0)


def test_wrap_function_prune_extracts_a_subgraph_as_tf():
    with tf.Graph().as_default():
        def fn(x):
            v = tf.Variable(3.0, name="v")
            m = tf.multiply(v, x, name="m")
            return tf.add(m, 1.0, name="out"), tf.square(x, name="sq")

        f = tf.wrap_function(fn, [tf.TensorSpec([], tf.float32, name="inp")])
        g = f.graph
        assert [t.name for t in f.inputs] == ["inp:0", "m/ReadVariableOp/v:0"]
        p1 = f.prune(g.get_tensor_by_name("inp:0"), g.get_tensor_by_name("sq:0"))
        p2 = f.prune(g.get_tensor_by_name("m:0"), {"o": g.get_tensor_by_name("out:0")}, name="later")
        # TF 2.21's (its pruned graphs also hold unused copies: inp, m/ReadVariableOp)
        assert (p1.graph.name, [t.name for t in p1.inputs], [t.name for t in p1.outputs]) == (
            "pruned", ["inp:0", "m/ReadVariableOp/v:0"], ["sq:0"])
        assert (p2.graph.name, [t.name for t in p2.inputs], [t.name for t in p2.outputs]) == (
            "later", ["m:0", "m/ReadVariableOp/v:0"], ["out:0"])
        assert [v.name for v in p2.variables] == ["v:0"]
        a, b = f(tf.constant(2.0))
        c, d = p1(tf.constant(5.0)), p2(tf.constant(10.0))
        assert sorted(d) == ["o"]
        with pytest.raises(UnliftableError, match=re.escape(  # TF's: the feeds do not reach inp, which sq needs
                "Unable to lift tensor <tf.Tensor 'sq:0' shape=() dtype=float32> because it depends transitively "
                "on placeholder <tf.Operation 'inp' type=Placeholder> via at least one path, e.g.: sq (Square) <- "
                "inp (Placeholder)")):
            f.prune(g.get_tensor_by_name("m:0"), g.get_tensor_by_name("sq:0"))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([a, b, c, d]) == [7.0, 4.0, 25.0, {"o": 11.0}]  # TF's values


def test_a_tf1_cond_in_a_function_orders_its_resource_uses_with_an_artificial_merge():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v", use_resource=True)

        @tf.function
        def branchy(x, flag):
            def t():
                v.assign(x, read_value=False)
                return tf.constant(1.0)

            def f():
                v.assign_add(x, read_value=False)
                return tf.constant(0.0)

            r = tf.cond(flag, t, f)
            return r + tf.reduce_sum(v.read_value())  # after whichever branch ran

        flag = tf.placeholder(tf.bool, [])
        z = branchy(tf.constant([5.0, 6.0]), flag)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert [sess.run(z, {flag: f}) for f in (False, True, False)] == [14.0, 12.0, 22.0]  # TF's


def test_a_ref_variable_updated_inside_a_function_fails_as_tf():
    with tf.Graph().as_default():
        a = tf.Variable(1.0, name="a", use_resource=False)

        @tf.function
        def f(x):
            return tf.assign_add(a, x)

        with pytest.raises(TypeError, match=re.escape(
                "In op 'AssignAdd', input types ([tf.float32, tf.float32]) are not compatible with expected "
                "types ([tf.float32_ref, tf.float32])")):
            f(tf.constant(3.0))


def test_an_unused_update_result_reads_nothing_inside_a_function_as_tf():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v", use_resource=True)

        @tf.function
        def f(x):
            v.assign_add(x)
            return x

        cf = f.get_concrete_function(tf.constant(3.0))
        assert [op.type for op in cf.graph.get_operations()] == [  # TF 2.21's
            "Placeholder", "Placeholder", "AssignAddVariableOp", "Identity", "NoOp"]


def test_update_results_reads_queues_and_legacy_random_ops_are_ordered_as_tf():
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v", use_resource=True)
        q = tf.FIFOQueue(10, tf.float32)

        @tf.function
        def f(x):
            a = v.assign_add(x)
            b = v.read_value()
            c = v.assign(b * 2.0)
            q.enqueue(x)
            tf.random.uniform([])  # a legacy random op: not ordered, need not run
            return a, c, v.value()

        outs = f(tf.constant(2.0))
        cf = f.get_concrete_function(tf.constant(2.0))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(outs) == (6.0, 6.0, 6.0) and sess.run(q.size()) == 1  # TF's
    must_run = ["AssignAddVariableOp", "AssignVariableOp", "Read/ReadVariableOp", "ReadVariableOp",
                "ReadVariableOp_1", "ReadVariableOp_2", "fifo_queue_enqueue"]
    assert _ordered(cf) == ([  # TF 2.21's
        ("Read/ReadVariableOp", ["AssignAddVariableOp"]),
        ("AssignVariableOp", ["AssignAddVariableOp", "Read/ReadVariableOp"]),
        ("ReadVariableOp", ["AssignVariableOp"]), ("ReadVariableOp_1", ["AssignAddVariableOp", "AssignVariableOp"]),
        ("Identity_1", ["NoOp"]), ("ReadVariableOp_2", ["AssignVariableOp"]), ("Identity_2", ["NoOp"]),
        ("Identity_3", ["NoOp"]), ("NoOp", must_run)], must_run)


def test_a_wrapped_function_runs_only_the_side_effects_its_results_need_as_tf():
    with tf.Graph().as_default():
        def fn(x):
            v = tf.Variable(3.0, name="v")
            v.assign_add(x, name="up", read_value=False)  # no automatic control dependency makes it run
            return tf.identity(x, name="idx")

        f = tf.wrap_function(fn, [tf.TensorSpec([], tf.float32, name="inp")])
        r = f(tf.constant(4.0))
        pruned = f.prune(f.graph.get_tensor_by_name("inp:0"), [f.graph.get_operation_by_name("up")])
        pruned(tf.constant(4.0))
        run_pruned = tf.get_default_graph().get_operation_by_name("StatefulPartitionedCall_1")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(r)
            assert sess.run(tf.global_variables()[0]) == 3.0  # TF's: the update is pruned
            sess.run(run_pruned)  # a control output of the pruned function
            assert sess.run(tf.global_variables()[0]) == 7.0


def test_side_effects_in_a_tf1_while_loop_inside_a_function_run_every_iteration():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v", use_resource=True)

        @tf.function
        def loopy(n, flag):
            def body(i):
                v.assign_add([1.0, 1.0], read_value=False)
                return i + 1

            out = tf.while_loop(lambda i: i < n, body, [tf.constant(0)])
            return out, tf.cond(flag, lambda: tf.constant(1.0), lambda: tf.constant(2.0))

        out = loopy(tf.constant(3), tf.constant(False))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(out) == (3, 2.0)
            np.testing.assert_array_equal(sess.run(v), [4., 5.])  # TF's (its loop is a While op)
