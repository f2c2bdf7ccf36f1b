"""The function library: FunctionDefs in GraphDefs and MetaGraphDefs, their bodies, and calls of them run.

tests/fixtures/functions/calls.pbtxt was written by real TF 2.21 (`tf.compat.v1`, v2 behaviour disabled):
`f(x) = (inner(x) * c + 1, reduce_sum(x))` with `inner` swapping columns by split and concat (a nested
PartitionedCall), and `bad(x) = check_numerics(x) * 2` (a StatefulPartitionedCall), read by `z`.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from google.protobuf import text_format
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos
from tensorweave.framework import function_def

_FIXTURE = os.path.join(os.path.dirname(__file__), os.pardir, "fixtures", "functions", "calls.pbtxt")


def _tf_graph_def() -> protos.GraphDef:
    with open(_FIXTURE) as f:
        return text_format.Parse(f.read(), protos.GraphDef())


def _imported() -> tf.Graph:
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(_tf_graph_def(), name="")
    return g


def test_import_keeps_tf_library_and_infers_call_shapes_through_bodies():
    g = _imported()
    # TF 2.21 after the same import
    assert [(t.name, t.shape.as_list() if t.shape.ndims is not None else None)
            for op in g.get_operations() for t in op.outputs] == [
        ("x:0", [None, 3]), ("c:0", []), ("PartitionedCall:0", [None, 3]), ("PartitionedCall:1", []),
        ("StatefulPartitionedCall:0", [None, 3]), ("z:0", [None, 3])]
    exported = g.as_graph_def()
    assert list(exported.library.function) == list(_tf_graph_def().library.function)
    assert sorted(f.signature.name for f in exported.library.function) == sorted(g._functions)


def test_calls_run_nested_bodies_with_tf_values():
    g = _imported()
    with tf.Session(graph=g) as sess:
        y, s, z = sess.run(["PartitionedCall:0", "PartitionedCall:1", "z:0"], {"x:0": [[1, 2, 3]]})
        assert s == np.float32(6.0)
    np.testing.assert_array_equal(y, np.array([[5., 7., 3.]], np.float32))  # TF's values
    np.testing.assert_array_equal(z, np.array([[2., 4., 6.]], np.float32))


def test_an_error_inside_names_the_inner_node_and_the_call_as_tf():
    g = _imported()
    with tf.Session(graph=g) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run("z:0", {"x:0": [[1, float("nan"), 3]]})
    assert runtime_message(info.value) == ("bad : Tensor had NaN values\n\t [[{{node CheckNumerics}}]]\n\t "
                                  "[[StatefulPartitionedCall]]")


def test_meta_graph_round_trip_keeps_the_library(tmp_path):
    g = _imported()
    path = str(tmp_path / "m.meta")
    with g.as_default():
        tf.train.export_meta_graph(path)
    with tf.Graph().as_default() as g2:
        tf.train.import_meta_graph(path)
        assert sorted(g2._functions) == sorted(g._functions)
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run("PartitionedCall:0", {"x:0": [[1, 2, 3]]}), [[5., 7., 3.]])


def test_body_has_a_call_frame_and_flat_inputs():
    fdef = next(f for f in _tf_graph_def().library.function if f.signature.name.startswith("__inference_inner"))
    body = function_def.function_def_to_body(fdef)
    ops = {n.name: n for n in body.node}
    assert ops["a"].op == "_Arg" and ops["a"].attr["index"] == 0
    retval = next(n for n in body.node if n.op == "_Retval")
    assert retval.name == "identity_RetVal" and retval.input == ["Identity"]
    concat = next(n for n in body.node if n.op == "ConcatV2")
    assert concat.input[:2] == ["split:1", "split"]  # split:output:1 and split:output:0, flat


def test_adding_a_different_function_of_the_same_name_fails():
    g = _imported()
    fdef = protos.FunctionDef()
    fdef.CopyFrom(next(iter(g._functions.values())).definition)
    g._add_function(function_def.LibraryFunction(fdef))  # the same one again: no-op
    fdef.attr["x"].b = True
    with pytest.raises(ValueError, match="because a different function with the same name already exists"):
        g._add_function(function_def.LibraryFunction(fdef))


def test_defun_calls_by_function_name_import_and_run_with_tf_values_and_gradients():
    # defun.pbtxt, by real TF 2.21: `@function.Defun(tf.float32, tf.float32) def poly(x, y): return
    # x * x * y + sin(x), reduce_sum(y)`, called as node `call` (op: the function's name), out = call:0 + 1,
    # and TF's tf.gradients(out, [x, y]): a SymbolicGradient of the function
    with open(os.path.join(os.path.dirname(_FIXTURE), "defun.pbtxt")) as f:
        graph_def = text_format.Parse(f.read(), protos.GraphDef())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        call = g.get_operation_by_name("call")
        assert [t.shape.ndims for t in call.outputs] == [None, None]  # _disable_call_shape_inference, as TF's
        x, y = g.get_tensor_by_name("x:0"), g.get_tensor_by_name("y:0")
        gx, gy = tf.gradients(g.get_tensor_by_name("out:0"), [x, y])  # TF: SymbolicGradient of the call
        with tf.Session() as sess:
            out, s, dx, dy, tf_dx, tf_dy = sess.run(
                ["out:0", "call:1", gx, gy, "gradients/call_grad/SymbolicGradient:0",
                 "gradients/call_grad/SymbolicGradient:1"], {x: [[0.5, -1.], [2., 3.]]})
        assert g.get_tensor_by_name("gradients/call_grad/SymbolicGradient:1").shape.as_list() == [2, 2]
    # TF's values
    np.testing.assert_allclose(out, [[1.7294255, 2.158529], [13.909297, 37.14112]], rtol=1e-6)
    assert s == np.float32(10.0)
    np.testing.assert_allclose(dx, [[1.8775826, -3.4596977], [11.583853, 23.010008]], rtol=1e-6)
    np.testing.assert_allclose(dy, [[0.25, 1.], [4., 9.]], rtol=1e-6)
    np.testing.assert_allclose(tf_dx, dx, rtol=1e-6)
    np.testing.assert_allclose(tf_dy, dy, rtol=1e-6)


_NESTED_DEFUN_FIXTURE = os.path.join(os.path.dirname(_FIXTURE), "defun_nested.pbtxt")


def _imported_defun() -> tf.Graph:
    """defun_nested.pbtxt, written by real TF 2.21 (v2 behaviour disabled): `Outer(x) = Inner(x, x) * 2` with
    `Inner(x, y) = x * y + 1`, both `function.Defun`s, called by name as `call`, `z = identity(call)`, and
    `tf.gradients(z, x)` (a SymbolicGradient of Outer, which calls Inner)."""
    with open(_NESTED_DEFUN_FIXTURE) as f:
        graph_def = text_format.Parse(f.read(), protos.GraphDef())
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
    return g


def test_a_call_by_name_keeps_the_function_name_as_its_type_as_tf():
    g = _imported_defun()
    call = g.get_operation_by_name("call")
    # TF 2.21 after the same import
    assert (call.type, call.op_def.name, sorted(call.node_def.attr)) == (
        "Outer_Ad9Ah5gIGCA", "Outer_Ad9Ah5gIGCA", ["_disable_call_shape_inference"])
    assert call.outputs[0].shape.ndims is None
    assert [n.op for n in g.as_graph_def().node] == [
        "Placeholder", "Outer_Ad9Ah5gIGCA", "Identity", "Shape", "Const", "Fill", "SymbolicGradient"]


def test_symbolic_gradient_of_a_function_that_calls_a_function_runs_with_tf_values():
    g = _imported_defun()
    with g.as_default():
        x = g.get_tensor_by_name("x:0")
        y = g.get_tensor_by_name("call:0")
        (dx,) = tf.gradients(y * y, x)
    assert dx.name == "gradients/call_grad/SymbolicGradient_1:0"  # TF's: the by-name call's gradient
    with tf.Session(graph=g) as sess:
        z, sym, d = sess.run(["z:0", "gradients/call_grad/SymbolicGradient:0", dx], {x: [1., 2.]})
    np.testing.assert_array_equal(z, [4., 10.])  # TF's values
    np.testing.assert_array_equal(sym, [4., 8.])
    np.testing.assert_allclose(d, [32., 160.])  # d(y^2)/dx = 2y * 4x


def test_symbolic_gradient_of_a_two_output_call_takes_zeros_for_an_output_without_gradient():
    # defun_two_outputs.pbtxt, by real TF 2.21 (v2 behaviour disabled): `Sq(x) = x * x` and
    # `Two(x, y) = (Sq(x) + Sq(y) * x, sin(Sq(y)))`, Defuns, called by name as `call` on placeholders x, y
    with open(os.path.join(os.path.dirname(_FIXTURE), "defun_two_outputs.pbtxt")) as f:
        graph_def = text_format.Parse(f.read(), protos.GraphDef())
    with tf.Graph().as_default() as g:
        tf.import_graph_def(graph_def, name="")
        x, y = g.get_tensor_by_name("x:0"), g.get_tensor_by_name("y:0")
        a, b = g.get_tensor_by_name("call:0"), g.get_tensor_by_name("call:1")
        ga, gb = tf.gradients(a, [x, y]), tf.gradients(b * 2.0, [x, y])
        # TF's: the output without a gradient gets zeros_like
        assert [[t.name for t in op.inputs] for op in g.get_operations() if op.type == "SymbolicGradient"] == [
            ["x:0", "y:0", "gradients/grad_ys_0:0", "gradients/zeros_like:0"],
            ["x:0", "y:0", "gradients_1/zeros_like:0", "gradients_1/mul_grad/Reshape:0"]]
        assert [t.shape.as_list() for t in ga] == [[2], [2]]
        with tf.Session() as sess:
            values = sess.run(ga + gb, {x: [1., 2.], y: [0.5, -1.]})
    for value, expected in zip(values, [[2.25, 5.], [1., -4.], [0., 0.], [1.93782, -2.16121]]):  # TF's
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
