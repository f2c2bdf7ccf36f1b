"""IR GraphDef <-> TF GraphDef protobuf, on our graphs and on graphs written by real TensorFlow."""

import pathlib

import numpy as np
import pytest
from google.protobuf import text_format

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos
from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.graph_io import graph_def_from_proto, graph_def_to_proto, node_def_to_proto

REFERENCE = pathlib.Path(__file__).resolve().parents[3] / "shared" / "reference" / "graphs"


def test_our_graph_exports_typed_attrs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
        v = tf.Variable(np.ones((3, 2), np.float32), name="v")
        tf.matmul(x, v, name="mm")
    proto = g.as_graph_def()
    nodes = {n.name: n for n in proto.node}
    assert nodes["x"].attr["dtype"].type == tf.float32.as_datatype_enum
    assert [d.size for d in nodes["x"].attr["shape"].shape.dim] == [-1, 3]
    assert nodes["v"].attr["shape"].shape.dim[1].size == 2
    assert nodes["v/read"].attr["_class"].list.s == [b"loc:@v"]
    assert nodes["mm"].attr["transpose_a"].b is False and list(nodes["mm"].input) == ["x", "v/read"]
    assert tf.make_ndarray(nodes["v/initial_value"].attr["value"].tensor).tolist() == [[1, 1], [1, 1], [1, 1]]
    assert protos.GraphDef.FromString(g.as_graph_def().SerializeToString()) == proto


def test_reference_graphs_round_trip():
    for name in ("mlp.pbtxt", "while.pbtxt", "cond.pbtxt"):
        original = text_format.Parse((REFERENCE / name).read_text(), protos.GraphDef())
        ir = graph_def_from_proto(original)
        assert [n.name for n in ir.node] == [n.name for n in original.node]
        again = graph_def_to_proto(ir)
        for a, b in zip(original.node, again.node):
            assert (a.name, a.op, list(a.input), a.device) == (b.name, b.op, list(b.input), b.device)
            assert set(a.attr) == set(b.attr), a.name
            for key in a.attr:
                if a.attr[key].WhichOneof("value") != "tensor":
                    assert a.attr[key] == b.attr[key], (a.name, key)


def test_reference_graph_attrs_become_python_values():
    original = text_format.Parse((REFERENCE / "mlp.pbtxt").read_text(), protos.GraphDef())
    ir = {n.name: n for n in graph_def_from_proto(original).node}
    placeholder = next(n for n in ir.values() if n.op == "Placeholder")
    assert placeholder.attr["dtype"] == tf.float32
    const = next(n for n in ir.values() if n.op == "Const")
    assert isinstance(const.attr["value"], np.ndarray) and not const.attr["value"].flags.writeable


def test_ir_splat_exports_only_its_listed_values():
    value = np.array([1, 2, 2, 2], np.int32)
    value.flags.writeable = False
    node = NodeDef("c", "Const", attr={"value": value, "dtype": tf.int32}, splats={"value": 2})
    tensor = node_def_to_proto(node).attr["value"].tensor
    assert (list(tensor.int_val), [d.size for d in tensor.tensor_shape.dim]) == ([1, 2], [4])
    assert tf.make_ndarray(tensor).tolist() == [1, 2, 2, 2]


def test_imported_splats_export_as_tf_wrote_them():
    """A TF GraphDef's `tf.zeros([3])` (one float_val) and `tf.constant([0., 0.])` (tensor_content) round-trip."""
    proto = text_format.Parse("""
        node { name: "z" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 0 } } } }
        node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                                    tensor_content: "\\000\\000\\000\\000\\000\\000\\000\\000" } } } }
        node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
               attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 2 } } string_val: "" } } } }
        """, protos.GraphDef())
    graph_def = graph_def_from_proto(proto)
    assert [node.splats for node in graph_def.node] == [{"value": 1}, {}, {"value": 1}]
    assert [node.attr["value"].tolist() for node in graph_def.node] == [[0.0] * 3, [0.0] * 2, [b"", b""]]
    assert graph_def_to_proto(graph_def).node == proto.node


def test_ir_shape_node_exports_its_experimental_type():
    node = NodeDef("s", "Shape", ["x"], attr={"T": tf.float32, "out_type": tf.int32})
    assert text_format.MessageToString(node_def_to_proto(node).experimental_type, as_one_line=True) == (
        "type_id: TFT_PRODUCT args { type_id: TFT_SHAPE_TENSOR args { type_id: TFT_INT32 } }")


# Recorded from TF 2.21: tf.import_graph_def of this node keeps all four private attrs, and as_graph_def gives
# each back unchanged (the placeholder, the func's own attrs, the AttrValue with no value, the empty list).
_KEPT_ATTRS = '''
  attr { key: "_foo" value { placeholder: "T" } }
  attr { key: "_bar" value { func { name: "f" attr { key: "k" value { i: 3 } } } } }
  attr { key: "_none" value { } }
  attr { key: "_emptylist" value { list { } } }
'''
_CONST = '''name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }'''


def test_unmapped_attr_kinds_round_trip_unchanged():
    original = text_format.Parse(f"node {{ {_CONST} {_KEPT_ATTRS} }}", protos.GraphDef())
    node = graph_def_from_proto(original).node[0]  # StopIteration here before
    again = graph_def_to_proto(graph_def_from_proto(original)).node[0]
    assert dict(again.attr) == dict(original.node[0].attr)
    node.attr["_foo"].placeholder = "U"  # the IR holds its own copy
    assert original.node[0].attr["_foo"].placeholder == "T"


def test_unmapped_attr_kinds_on_an_operation_as_tf():
    # TF 2.21: Operation._set_attr and Graph.create_op accept these AttrValues, as_graph_def keeps them, and
    # get_attr gives [] for no value, the NameAttrList for a func, and an AssertionError for a placeholder
    kept = text_format.Parse(f"node {{ {_KEPT_ATTRS} }}", protos.GraphDef()).node[0].attr
    with tf.Graph().as_default() as g:
        c = tf.constant(1.0, name="c")
        for key, value in kept.items():
            c.op._set_attr(key, value)
        idt = g.create_op("Identity", [c], attrs={"_foo": protos.AttrValue(placeholder="T")}, name="idt")
    nodes = {n.name: n for n in g.as_graph_def().node}
    assert {k: nodes["c"].attr[k] for k in kept} == dict(kept)
    assert nodes["idt"].attr["_foo"] == protos.AttrValue(placeholder="T")
    assert nodes["idt"].attr["T"].type == tf.float32.as_datatype_enum
    for op in (c.op, idt):
        with pytest.raises(AssertionError) as info:
            op.get_attr("_foo")
        assert str(info.value) == 'Unsupported field type in placeholder: "T"\n'
    assert c.op.get_attr("_none") == [] and c.op.get_attr("_emptylist") == []
    func = c.op.get_attr("_bar")
    assert func == kept["_bar"].func
    func.name = "g"  # a copy, as TF's get_attr returns
    assert c.op.get_attr("_bar").name == "f"
