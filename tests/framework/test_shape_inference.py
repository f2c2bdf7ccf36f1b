"""Shape inference on an InferenceContext: shape functions run over a hand-written GraphDef, with no Python
graph, give the shapes (and the errors) graph construction gives."""

from __future__ import annotations

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework import dtypes, shape_inference
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.ops import raw_ops

F32, I32 = dtypes.float32, dtypes.int32


def _const(name: str, value: object, dtype: dtypes.DType = I32) -> NodeDef:
    return NodeDef(name, "Const", attr={"value": np.array(value, dtype.as_numpy_dtype), "dtype": dtype})


def _shapes(graph_def: GraphDef) -> dict[str, list[list[int | None] | None]]:
    return {name: [s.as_list() if s.ndims is not None else None for s in shapes]
            for name, shapes in shape_inference.infer_shapes(graph_def).items()}


def test_shapes_of_a_hand_written_graph_def():
    graph_def = GraphDef(node=[
        NodeDef("x", "Placeholder", attr={"dtype": F32, "shape": [None, 3]}),
        _const("w", np.ones((3, 4)), F32),
        NodeDef("mm", "MatMul", ["x", "w"], attr={"T": F32}),  # transpose_a/b from the OpDef's defaults
        _const("target", [2, -1]),
        NodeDef("reshaped", "Reshape", ["mm", "target"], attr={"T": F32, "Tshape": I32}),
        NodeDef("shape", "Shape", ["mm"], attr={"T": F32, "out_type": I32}),
        _const("begin", [1]), _const("end", [2]), _const("strides", [1]),
        NodeDef("cols", "StridedSlice", ["shape", "begin", "end", "strides"],
                attr={"T": I32, "Index": I32, "shrink_axis_mask": 1}),
        _const("minus_one", -1),
        NodeDef("target2", "Pack", ["cols", "minus_one"], attr={"N": 2, "T": I32}),
        NodeDef("reshaped2", "Reshape", ["mm", "target2"], attr={"T": F32, "Tshape": I32}),
        _const("a", [1, 5]), _const("b", [1, 1]),
        NodeDef("sum", "AddV2", ["a", "b"], attr={"T": I32}),  # a constant subgraph, run on its CPU kernel
        NodeDef("w_reshaped", "Reshape", ["w", "sum"], attr={"T": F32, "Tshape": I32}),
        NodeDef("mystery", "NoSuchOp", ["x"]),
        NodeDef("after_mystery", "Identity", ["mystery:1"], attr={"T": F32}),
    ])
    shapes = _shapes(graph_def)
    assert shapes["x"] == [[None, 3]]
    assert shapes["mm"] == [[None, 4]]
    assert shapes["reshaped"] == [[2, None]]
    assert shapes["shape"] == [[2]]
    assert shapes["cols"] == [[]]
    assert shapes["target2"] == [[2]]
    assert shapes["reshaped2"] == [[4, None]]
    assert shapes["w_reshaped"] == [[2, 6]]
    assert shapes["mystery"] == [None, None]
    assert shapes["after_mystery"] == [None]


def test_nodes_are_inferred_in_topological_order_whatever_the_graph_def_order():
    graph_def = GraphDef(node=[
        NodeDef("y", "Identity", ["x"], attr={"T": F32}),
        NodeDef("x", "Placeholder", attr={"dtype": F32, "shape": [5, 2]}),
    ])
    assert _shapes(graph_def) == {"y": [[5, 2]], "x": [[5, 2]]}


def test_a_shape_error_on_a_graph_def_has_graph_constructions_message():
    graph_def = GraphDef(node=[
        NodeDef("x", "Placeholder", attr={"dtype": F32, "shape": [2, 3]}),
        _const("target", [4, 2]),
        NodeDef("r", "Reshape", ["x", "target"], attr={"T": F32, "Tshape": I32}),
    ])
    with pytest.raises(ValueError) as error:
        shape_inference.infer_shapes(graph_def)
    assert str(error.value) == (
        "Cannot reshape a tensor with 6 elements to shape [4,2] (8 elements) for '{{node r}} = "
        "Reshape[T=DT_FLOAT, Tshape=DT_INT32](x, target)' with input shapes: [2,3], [2] and with input tensors "
        "computed as partial shapes: input[1] = [4,2].")
    with tf.Graph().as_default(), pytest.raises(ValueError) as built:
        tf.reshape(tf.placeholder(tf.float32, [2, 3], name="x"), tf.constant([4, 2], name="target"), name="r")
    assert str(built.value) == str(error.value)


def test_a_graph_def_error_lists_the_computed_input_values():
    graph_def = GraphDef(node=[
        NodeDef("x", "Placeholder", attr={"dtype": F32, "shape": [2, 3]}),
        _const("axis", 5),
        NodeDef("e", "ExpandDims", ["x", "axis"], attr={"T": F32, "Tdim": I32}),
    ])
    with pytest.raises(ValueError, match=r"^dim 5 not in the interval \[-3, 2\]\. for '\{\{node e\}\} = "
                                         r"ExpandDims\[T=DT_FLOAT, Tdim=DT_INT32\]\(x, axis\)' with input shapes: "
                                         r"\[2,3\], \[\] and with computed input tensors: input\[1\] = <5>\.$"):
        shape_inference.infer_shapes(graph_def)


def test_an_unknown_input_node_is_an_error():
    with pytest.raises(ValueError, match="Node 'y': Unknown input node 'x'"):
        shape_inference.infer_shapes(GraphDef(node=[NodeDef("y", "Identity", ["x"], attr={"T": F32})]))


def test_shapes_of_a_python_graph_equal_those_inferred_on_its_graph_def():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 6], name="x")
        y = tf.reshape(x, tf.stack([tf.shape(x)[0], 2, -1]))
        z = tf.concat([y, y * 2.0], axis=tf.constant(1) + 1)
        tf.transpose(z, [2, 0, 1])
        tf.reduce_sum(z, axis=[1], keepdims=True)
        tf.split(z, 3, axis=2)
        tf.slice(x, [0, 1], [-1, 3])
        tf.one_hot(tf.cast(tf.reduce_max(x, axis=1), tf.int32), depth=tf.size(tf.zeros([2, 5])))
        tf.fill(tf.shape(tf.zeros([2, 3])) * 2, 1.0)
    graph_def = GraphDef(node=[op._node_def for op in graph.get_operations()])
    inferred = _shapes(graph_def)
    built = {op.name: [t.shape.as_list() if t.shape.ndims is not None else None for t in op.outputs]
             for op in graph.get_operations()}
    assert inferred == built  # the values below are real TensorFlow's
    assert {name: inferred[name] for name in ("Reshape", "concat", "transpose", "Sum", "split", "Slice",
                                              "one_hot", "Fill")} == {
        "Reshape": [[None, 2, None]], "concat": [[None, 2, None]], "transpose": [[None, None, 2]],
        "Sum": [[None, 1, None]], "split": [[None, 2, None]] * 3, "Slice": [[None, 3]], "one_hot": [[None, 10]],
        "Fill": [[4, 6]]}


def test_a_context_of_a_python_op_reads_attrs_dtypes_values_and_values_as_shapes():
    seen = {}

    def record(ctx: shape_inference.InferenceContext) -> list:
        seen.update(num_inputs=ctx.num_inputs, dtype=ctx.input_dtype(1), value=ctx.input_value(1),
                    as_shape=ctx.input_as_shape(1), attr=ctx.attr("T"), op=ctx.node_def.op)
        return [ctx.input_shape(0)]

    with tf.Graph().as_default():
        reshaped = tf.reshape(tf.placeholder(tf.float32, [2, 3]), tf.constant([3, -1]) * 1)
    context = shape_inference.InferenceContext.for_operation(reshaped.op)
    assert [s.as_list() for s in context.run(record)] == [[2, 3]]
    assert seen == {"num_inputs": 2, "dtype": tf.int32, "value": seen["value"], "as_shape": tf.TensorShape([3, None]),
                    "attr": tf.float32, "op": "Reshape"}
    assert seen["value"].tolist() == [3, -1]


def test_shape_n_outputs_are_known_from_their_inputs_static_shapes():
    """TF's shape refiner reads a ShapeN output off its input's shape, as a Shape's: the conv backprops of a
    gated gradient (ShapeN of the input and the filter) get their static shapes."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [8, 28, 28, 1])
        w = tf.identity(tf.zeros([3, 3, 1, 8]))
        with tf.control_dependencies([tf.no_op()]):
            sizes = raw_ops.ShapeN(input=[x, w])
        dy = tf.placeholder(tf.float32, [8, 28, 28, 8])
        dw = raw_ops.Conv2DBackpropFilter(input=x, filter_sizes=sizes[1], out_backprop=dy, strides=[1, 1, 1, 1],
                                          padding="SAME")
        dx = raw_ops.Conv2DBackpropInput(input_sizes=sizes[0], filter=w, out_backprop=dy, strides=[1, 1, 1, 1],
                                         padding="SAME")
        assert dw.shape.as_list() == [3, 3, 1, 8] and dx.shape.as_list() == [8, 28, 28, 1]
        assert tf.get_default_graph().get_tensor_by_name(sizes[1].name).shape.as_list() == [4]


def test_shape_error_names_the_control_inputs_the_op_was_created_with():
    """TF's C layer adds a control_dependencies block's inputs before shape inference, so its error shows
    them (an input already a data input is left out); TF's text, recorded."""
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.constant([1.0, 2.0, 3.0], name="b")
    c = tf.no_op(name="c")
    with tf.control_dependencies([a, c]):
        with pytest.raises(ValueError) as info:
            tf.add(a, b, name="bad")
    assert str(info.value) == ("Dimensions must be equal, but are 2 and 3 for '{{node bad}} = AddV2[T=DT_FLOAT]"
                               "(a, b, ^c)' with input shapes: [2], [3].")
