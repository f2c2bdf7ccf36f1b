"""`tf.import_graph_def` and `tf.graph_util`, against graphs, values, names and messages of TF 2.21.

The shapes in fixtures/reference_import_shapes.json are what TF 2.21 infers when it imports the reference
graphs (`name=""`); the other literals were recorded from TF 2.21 running the same calls.
"""

import json
import pathlib
import re
import tracemalloc

import numpy as np
import pytest
from google.protobuf import text_format

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos
from tensorweave.framework import op_registry

REFERENCE = pathlib.Path(__file__).resolve().parents[3] / "shared" / "reference" / "graphs"
TF_SHAPES = json.loads((pathlib.Path(__file__).parents[1] / "fixtures" / "reference_import_shapes.json").read_text())


def _reference(name):
    return text_format.Parse((REFERENCE / f"{name}.pbtxt").read_text(), protos.GraphDef())


def _shapes(g):
    return {o.name: [str(t.shape) for t in o.outputs] for o in g.get_operations()}


def _mlp_forward():
    return tf.graph_util.extract_sub_graph(_reference("mlp"), ["loss", "add_1"])


@pytest.mark.parametrize("name", ["while", "cond", "mlp"])
def test_reference_graphs_import_with_tfs_shapes(name):
    graph_def = _mlp_forward() if name == "mlp" else _reference(name)
    with tf.Graph().as_default() as g:
        assert tf.import_graph_def(graph_def, name="") is None
    expected = {k: v for k, v in TF_SHAPES[name].items() if k in {n.name for n in graph_def.node}}
    assert _shapes(g) == expected


def test_imported_while_loop_runs_as_in_tf():
    with tf.Graph().as_default():
        out = tf.import_graph_def(_reference("while"), return_elements=["out:0"])[0]
        with tf.Session() as sess:
            assert [float(sess.run(out, {"import/n:0": n})) for n in (0, 1, 5)] == [1.0, 2.0, 32.0]


def test_imported_cond_and_mlp_give_tfs_values():
    with tf.Graph().as_default():
        tf.import_graph_def(_reference("cond"), name="")
        tf.import_graph_def(_mlp_forward(), name="mlp")
        feeds = {"mlp/x:0": np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4), "mlp/y:0": [0, 2],
                 "mlp/W1/read:0": np.linspace(-0.5, 0.5, 32, dtype=np.float32).reshape(4, 8),
                 "mlp/b1/read:0": np.full(8, 0.1, np.float32),
                 "mlp/W2/read:0": np.linspace(0.3, -0.2, 24, dtype=np.float32).reshape(8, 3),
                 "mlp/b2/read:0": [0.1, 0.0, -0.1]}
        with tf.Session() as sess:
            assert [sess.run("out:0", {"p:0": p, "a:0": [1.5, -2.0]}).tolist() for p in (True, False)] == [
                [3.0, -4.0], [0.5, -3.0]]
            loss, logits = sess.run(["mlp/loss:0", "mlp/add_1:0"], feeds)
    np.testing.assert_allclose(loss, 1.1095638, rtol=1e-6)
    np.testing.assert_allclose(logits, [[0.57093567, 0.38942897, 0.20792225],
                                        [0.16700862, -0.0144981, -0.19600481]], rtol=1e-5, atol=1e-7)


def test_full_mlp_training_graph_imports_when_its_ops_exist():
    missing = {n.op for n in _reference("mlp").node} - set(op_registry.registered_ops())
    if missing:
        pytest.skip(f"ops not built yet: {sorted(missing)}")
    with tf.Graph().as_default() as g:
        tf.import_graph_def(_reference("mlp"), name="")
    assert _shapes(g) == TF_SHAPES["mlp"]


def _small_graph():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2], name="x")
        y = tf.identity(x, name="y")
        with tf.colocate_with(x.op):
            tf.add(y, 1.0, name="z")
    return g.as_graph_def()


def _summary(g):
    return [(o.name, [i.name for i in o.inputs], [c.name for c in o.control_inputs], o.colocation_groups(),
             o.device) for o in g.get_operations()]


def test_names_colocation_and_input_map_as_tf():
    graph_def = _small_graph()
    with tf.Graph().as_default() as g:
        tf.constant(1.0, name="x")
        tf.constant(1.0, name="y")
        tf.import_graph_def(graph_def, name="")
        p = tf.placeholder(tf.float32, [2], name="p")
        returned = tf.import_graph_def(graph_def, input_map={"x:0": p}, return_elements=["z:0", "y", "z"])
        tf.import_graph_def(graph_def, input_map={"x": p}, name="im")
    assert [str(r) if isinstance(r, tf.Tensor) else repr(r) for r in returned] == [
        'Tensor("import/z:0", shape=(2,), dtype=float32)', "<tf.Operation 'import/y' type=Identity>",
        "<tf.Operation 'import/z' type=AddV2>"]
    assert _summary(g)[2:] == [  # TF 2.21
        ("x_1", [], [], [b"loc:@x_1"], ""), ("y_1", ["x_1:0"], [], [b"loc:@y_1"], ""),
        ("z/y", [], [], [b"loc:@x_1"], ""), ("z", ["y_1:0", "z/y:0"], [], [b"loc:@x_1"], ""),
        ("p", [], [], [b"loc:@p"], ""), ("import/x", [], [], [b"loc:@import/x"], ""),
        ("import/y", ["p:0"], [], [b"loc:@import/y"], ""), ("import/z/y", [], [], [b"loc:@import/x"], ""),
        ("import/z", ["import/y:0", "import/z/y:0"], [], [b"loc:@import/x"], ""),
        ("im/x", [], [], [b"loc:@im/x"], ""), ("im/y", ["p:0"], [], [b"loc:@im/y"], ""),
        ("im/z/y", [], [], [b"loc:@im/x"], ""), ("im/z", ["im/y:0", "im/z/y:0"], [], [b"loc:@im/x"], "")]


def test_device_and_control_dependency_scopes_apply_to_imported_nodes():
    graph_def = _small_graph()
    with tf.Graph().as_default() as g:
        with tf.device("/cpu:0"):
            tf.import_graph_def(graph_def, name="dev")
        c = tf.constant(2.0, name="c")
        with tf.control_dependencies([c]):
            tf.import_graph_def(graph_def, name="cd")
    ops = {o.name: o for o in g.get_operations()}
    assert {ops[f"dev/{n}"].device for n in ("x", "y", "z/y", "z")} == {"/device:CPU:0"}
    assert [[i.name for i in ops[f"cd/{n}"].control_inputs] for n in ("x", "y", "z/y", "z")] == [["c"]] * 4


def test_control_input_map_and_default_attrs():
    graph_def = _small_graph()
    graph_def.node[1].input.append("^x")
    del graph_def.node[3].attr["T"]  # an attr without default: import refuses it
    for node in graph_def.node:
        node.attr.pop("_class", None)
    with tf.Graph().as_default():
        q = tf.constant([1.0, 2.0], name="q")
        with pytest.raises(ValueError, match="NodeDef missing attr 'T'"):
            tf.import_graph_def(graph_def)
        del graph_def.node[3:]
        y = tf.import_graph_def(graph_def, input_map={"^x": q}, return_elements=["y"])[0]
        assert [c.name for c in y.control_inputs] == ["q"]
        assert y.get_attr("T") == tf.float32
    placeholder = protos.GraphDef()
    placeholder.node.add(name="p", op="Placeholder").attr["dtype"].type = tf.float32.as_datatype_enum
    with tf.Graph().as_default():
        p = tf.import_graph_def(placeholder, return_elements=["p"])[0]
        assert p.get_attr("shape") == tf.TensorShape(None).as_proto()  # the OpDef's default, filled in


@pytest.mark.parametrize("kwargs, error, message", [
    ({"return_elements": ["q:0"]}, ValueError, "Requested return tensor 'q:0' not found in graph def"),
    ({"return_elements": ["q"]}, ValueError, "Requested return node 'q' not found in graph def"),
    ({"return_elements": ["z:3"]}, ValueError, "Invalid return output 3 of node 'z', which has 1 output(s)"),
    ({"input_map": {1: 1.0}}, TypeError, "All keys for argument `input_map` must be strings. Obtained keys: [1]"),
    ({"input_map": {"x:0": [1, 2]}}, ValueError,
     "Input 0 of node import/y was passed int32 from import/_inputs/Const:0 incompatible with expected float."),
    ({"input_map": {"x:0": 1.0}, "name": ""}, ValueError, "requires a non-empty `name` if `input_map` contains"),
])
def test_errors_as_tf(kwargs, error, message):
    with tf.Graph().as_default() as g:
        with pytest.raises(error) as info:
            tf.import_graph_def(_small_graph(), **kwargs)
        assert message in str(info.value)
        assert not [o for o in g.get_operations() if not o.name.startswith("import/_inputs")]  # all or nothing


def test_an_input_map_key_not_in_the_graph_def_raises_after_the_import_as_tf():
    """TF imports first, then refuses the unused keys: the imported nodes stay (recorded from TF 2.21)."""
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match=re.escape("Attempted to map inputs that were not found in graph_def: "
                                                       "[q:0]")):
            tf.import_graph_def(_small_graph(), input_map={"q:0": tf.constant(1.0, name="one")})
        assert [o.name for o in g.get_operations()] == ["one", "import/x", "import/y", "import/z/y", "import/z"]


def test_bad_graph_def_and_unknown_op_as_tf():
    with pytest.raises(TypeError, match="Argument `graph_def` must be a GraphDef proto."):
        tf.import_graph_def("x")
    graph_def = protos.GraphDef()
    graph_def.node.add(name="a", op="Foo")
    with tf.Graph().as_default(), pytest.raises(tf.errors.NotFoundError, match="Op type not registered 'Foo'"):
        tf.import_graph_def(graph_def)


def _huge_splat(dims):
    return text_format.Parse(f'''node {{ name: "c" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }}
        attr {{ key: "value" value {{ tensor {{ dtype: DT_FLOAT tensor_shape {{ {dims} }} float_val: 1 }} }} }} }}''',
                             protos.GraphDef())


def test_a_huge_splat_imports_without_allocating_it():
    # TF 2.21 imports a Const of 2**40 floats that lists one value (shape (1099511627776,)), and refuses one
    # of more than 2**63 - 1 elements with this shape-inference error
    tracemalloc.start()
    with tf.Graph().as_default() as g:
        c = tf.import_graph_def(_huge_splat("dim { size: 1099511627776 }"), return_elements=["c:0"])[0]
        exported = g.as_graph_def()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 10_000_000 and c.shape.as_list() == [2**40]
    assert list(exported.node[0].attr["value"].tensor.float_val) == [1.0]
    with tf.Graph().as_default(), pytest.raises(ValueError, match=(
            r"Shape \[1099511627776,1099511627776\] is too large \(more than 2\*\*63 - 1 entries\) for "
            r"'\{\{node c\}\} = Const")):
        tf.import_graph_def(_huge_splat("dim { size: 1099511627776 } dim { size: 1099511627776 }"))


def _variables_graph():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        v = tf.Variable([[1., 2.], [3., 4.]], name="v")
        w = tf.Variable(3, name="w")
        y = tf.matmul(x, v, name="y")
        tf.identity(tf.cast(w, tf.float32) * y, name="z")
        tf.global_variables_initializer()
    return g


def test_convert_variables_to_constants_freezes_as_tf():
    g = _variables_graph()
    with g.as_default(), tf.Session() as sess:
        sess.run("init")
        frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["z"],
                                                              variable_names_blacklist=["w"])
        all_frozen = tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["z"])
    # TF 2.21: the subgraph in graph order, v a Const of its value with only dtype and value attrs
    assert [(n.name, n.op) for n in frozen.node] == [
        ("x", "Placeholder"), ("v", "Const"), ("v/read", "Identity"), ("w", "VariableV2"), ("w/read", "Identity"),
        ("y", "MatMul"), ("Cast", "Cast"), ("mul", "Mul"), ("z", "Identity")]
    assert sorted(frozen.node[1].attr) == ["dtype", "value"]
    assert tf.make_ndarray(frozen.node[1].attr["value"].tensor).tolist() == [[1, 2], [3, 4]]
    assert [n.op for n in all_frozen.node if n.name in ("v", "w")] == ["Const", "Const"]
    with tf.Graph().as_default(), tf.Session() as sess:
        z = tf.import_graph_def(all_frozen, return_elements=["z:0"], name="")[0]
        assert sess.run(z, {"x:0": [[1.0, 1.0]]}).tolist() == [[12.0, 18.0]]


def test_extract_remove_and_shapes_as_tf():
    g = _variables_graph()
    graph_def = g.as_graph_def()
    assert [n.name for n in tf.graph_util.remove_training_nodes(graph_def).node] == [  # TF 2.21
        "x", "v/initial_value", "v", "v/Assign", "w/initial_value", "w", "w/Assign", "y", "Cast", "mul", "init"]
    with pytest.raises(AssertionError, match="q is not in graph"):
        tf.graph_util.extract_sub_graph(graph_def, ["q"])
    with pytest.raises(TypeError, match="dest_nodes must be an iterable of strings, but got type <class 'str'>."):
        tf.graph_util.extract_sub_graph(graph_def, "q")
    with pytest.raises(TypeError, match="graph_def must be a graph_pb2.GraphDef proto, but got type <class 'int'>."):
        tf.graph_util.extract_sub_graph(3, ["q"])
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "x").as_list() == [None, 2]
    nodes = {n.name: n for n in graph_def.node}
    assert [tf.graph_util.must_run_on_cpu(nodes[n]) for n in ("w/initial_value", "v/initial_value", "Cast")] == [
        True, False, True]
    assert tf.graph_util.must_run_on_cpu(g.get_operation_by_name("v"), pin_variables_on_cpu=True)


def test_write_graph_text_and_binary(tmp_path):
    g = _variables_graph()
    text = tf.train.write_graph(g, str(tmp_path / "sub"), "g.pbtxt")
    binary = tf.io.write_graph(g.as_graph_def(), str(tmp_path), "g.pb", as_text=False)
    assert text == str(tmp_path / "sub" / "g.pbtxt") and binary == str(tmp_path / "g.pb")
    assert text_format.Parse(pathlib.Path(text).read_text(), protos.GraphDef()) == g.as_graph_def()
    assert protos.GraphDef.FromString(pathlib.Path(binary).read_bytes()) == g.as_graph_def()


def test_convert_variables_to_constants_freezes_resource_variables_as_tf():
    """TF's converter: the handle becomes the Const, its reads Identities (through cond's Switches, which take
    the value's dtype) and a gather GatherV2 on a new `<name>/axis` Const (recorded from TF 2.21)."""
    with tf.Graph().as_default(), tf.Session() as sess:
        ids = tf.placeholder(tf.int32, [None], name="ids")
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        e = tf.get_variable("e", [3, 2], initializer=tf.constant_initializer([[1., 2.], [3., 4.], [5., 6.]]),
                            use_resource=True)
        c = tf.cond(tf.reduce_sum(x) > 0, lambda: tf.matmul(x, e, transpose_b=True),
                    lambda: -tf.matmul(x, e, transpose_b=True))
        tf.identity(tf.reduce_sum(c) + tf.reduce_sum(tf.nn.embedding_lookup(e, ids)), name="y")
        sess.run(tf.global_variables_initializer())
        frozen = tf.graph_util.convert_variables_to_constants(sess, sess.graph.as_graph_def(), ["y"])
    assert [(n.name, n.op, list(n.input)) for n in frozen.node
            if n.op in ("Const", "Identity", "Switch", "GatherV2") and not n.name.startswith("Const")] == [
        ("e", "Const", []), ("Greater/y", "Const", []), ("cond/pred_id", "Identity", ["Greater"]),
        ("cond/MatMul/ReadVariableOp", "Identity", ["cond/MatMul/ReadVariableOp/Switch:1"]),
        ("cond/MatMul/ReadVariableOp/Switch", "Switch", ["e", "cond/pred_id"]),
        ("cond/MatMul/Switch", "Switch", ["x", "cond/pred_id"]),
        ("cond/MatMul_1/ReadVariableOp", "Identity", ["cond/MatMul_1/ReadVariableOp/Switch"]),
        ("cond/MatMul_1/ReadVariableOp/Switch", "Switch", ["e", "cond/pred_id"]),
        ("cond/MatMul_1/Switch", "Switch", ["x", "cond/pred_id"]),
        ("embedding_lookup", "GatherV2", ["e", "ids", "embedding_lookup/axis"]),
        ("embedding_lookup/Identity", "Identity", ["embedding_lookup"]), ("y", "Identity", ["add"]),
        ("embedding_lookup/axis", "Const", [])]
    nodes = {n.name: n for n in frozen.node}
    assert nodes["cond/MatMul/ReadVariableOp/Switch"].attr["T"].type == tf.float32.as_datatype_enum
    assert nodes["embedding_lookup/axis"].attr["dtype"].type == tf.int32.as_datatype_enum
    with tf.Graph().as_default(), tf.Session() as sess:
        out, = tf.import_graph_def(frozen, return_elements=["y:0"], name="")
        assert sess.run(out, {"x:0": [[1., 1.]], "ids:0": [0, 2]}) == 35.0
        assert sess.run(out, {"x:0": [[-1., -1.]], "ids:0": [1]}) == 28.0


def test_import_graph_def_reference_errors_as_tf():
    """Messages of TF 2.21 for an unknown input, a cycle, bad return_elements and a mapped input's shape."""
    gd = tf.GraphDef()
    for name, src in (("x", "missing"), ("y", "x:0")):
        node = gd.node.add(name=name, op="Identity", input=[src])
        node.attr["T"].type = 1
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Node 'x': Unknown input node 'missing'$"):
            tf.import_graph_def(gd, name="pre")
        gd.node[0].input[0] = "y"
        with pytest.raises(ValueError, match=r"^2 nodes in a cycle$"):
            tf.import_graph_def(gd, name="pre")
    with tf.Graph().as_default() as g:
        a = tf.constant([1.0, 2.0], name="a")
        tf.add(a, tf.placeholder(tf.float32, [2], name="b"), name="c")
    graph_def = g.as_graph_def()
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=re.escape("must be a list of strings. Obtained [3].")):
            tf.import_graph_def(graph_def, return_elements=[3])
        with pytest.raises(ValueError, match=re.escape(
                "for '{{node import/c}} = AddV2[T=DT_FLOAT](import/a, Const:0)' with input shapes: [2], [3].")):
            tf.import_graph_def(graph_def, input_map={"b:0": tf.constant([1.0, 1.0, 3.0])})


def _graph_def(*nodes):
    gd = tf.GraphDef()
    for name, op, inputs, attrs in nodes:
        node = gd.node.add(name=name, op=op, input=inputs)
        for key, value in attrs.items():
            if isinstance(value, int):
                node.attr[key].type = value
            else:
                node.attr[key].s = value
    return gd


@pytest.mark.parametrize("nodes, message", [
    ([("a", "Placeholder", [], {})],
     "NodeDef missing attr 'dtype' from Op<name=Placeholder; signature= -> output:dtype; attr=dtype:type; "
     "attr=shape:shape,default=<unknown>>; NodeDef: {{node a}}"),
    ([("a", "Placeholder", [], {"dtype": b"x"})],
     "AttrValue had value with type 'string' when 'type' expected\n\t for attr 'dtype'\n\t; NodeDef: {{node a}}; "
     "Op<name=Placeholder; signature= -> output:dtype; attr=dtype:type; attr=shape:shape,default=<unknown>>"),
    ([("a", "Placeholder", [], {"dtype": 1}), ("a", "Placeholder", [], {"dtype": 1})], "Node 'a' is not unique"),
    ([("a", "Placeholder", [], {"dtype": 1}), ("b", "Identity", ["a", "a"], {"T": 1})],
     "NodeDef expected inputs 'float' do not match 2 inputs specified; Op<name=Identity; signature=input:T -> "
     "output:T; attr=T:type>; NodeDef: {{node b}}"),
    ([("a", "Placeholder", [], {"dtype": 1}), ("b", "Identity", ["a:1"], {"T": 1})],
     "Node 'b': Connecting to invalid output 1 of source node a which has 1 outputs."),
    ([("a", "Placeholder", [], {"dtype": 1}), ("b", "Identity", ["a"], {"T": 1}), ("c", "NoOp", ["^b", "b"], {})],
     "Node 'c': Control dependencies must come after regular dependencies"),
    ([("a b", "Placeholder", [], {"dtype": 1})], "Node 'a b': Node name contains invalid characters"),
    ([("n", "Conv2D", [], {})],
     "NodeDef missing attrs 'padding', 'strides', 'T' from Op<name=Conv2D; signature=input:T, filter:T -> output:T; "
     "attr=T:type,allowed=[DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32]; attr=strides:list(int); "
     "attr=use_cudnn_on_gpu:bool,default=true; attr=padding:string,allowed=[\"SAME\", \"VALID\", \"EXPLICIT\"]; "
     "attr=explicit_paddings:list(int),default=[]; attr=data_format:string,default=\"NHWC\",allowed=[\"NHWC\", "
     "\"NCHW\"]; attr=dilations:list(int),default=[1, 1, 1, 1]>; NodeDef: {{node n}}"),
    ([("n", "AccumulatorSetGlobalStep", [], {})],
     "NodeDef expected inputs 'string_ref, int64' do not match 0 inputs specified; Op<name=AccumulatorSetGlobalStep; "
     "signature=handle:Ref(string), new_global_step:int64 -> >; NodeDef: {{node n}}"),
    ([("n", "IteratorV2", [], {})],
     "NodeDef missing attrs 'output_shapes', 'container', 'output_types', 'shared_name' from Op<name=IteratorV2; "
     "signature= -> handle:resource; attr=shared_name:string; attr=container:string; attr=output_types:list(type),"
     "min=1; attr=output_shapes:list(shape),min=1; is_stateful=true>; NodeDef: {{node n}}"),
    ([("n", "PrintV2", [], {})],
     "NodeDef expected inputs 'string' do not match 0 inputs specified; Op<name=PrintV2; signature=input:string -> ; "
     "attr=output_stream:string,default=\"stderr\"; attr=end:string,default=\"\\n\"; is_stateful=true>; "
     "NodeDef: {{node n}}"),
    ([("n", "RestoreV2", [], {})],
     "NodeDef missing attr 'dtypes' from Op<name=RestoreV2; signature=prefix:string, tensor_names:string, "
     "shape_and_slices:string -> tensors:; attr=dtypes:list(type),min=1; is_stateful=true>; NodeDef: {{node n}}"),
    ([("n", "Merge", [], {})],
     "NodeDef missing attrs 'N', 'T' from Op<name=Merge; signature=inputs:N*T -> output:T, value_index:int32; "
     "attr=T:type; attr=N:int,min=1>; NodeDef: {{node n}}"),
    ([("n", "ImageSummary", [], {})],
     "NodeDef expected inputs 'string, float' do not match 0 inputs specified; Op<name=ImageSummary; signature="
     "tag:string, tensor:T -> summary:string; attr=max_images:int,default=3,min=1; attr=T:type,default=DT_FLOAT,"
     "allowed=[DT_UINT8, DT_FLOAT, DT_HALF, DT_DOUBLE]; attr=bad_color:tensor,default=Tensor<type: uint8 shape: "
     "[4] values: 255 0 0...>>; NodeDef: {{node n}}"),
    ([("a", "Placeholder", [], {"dtype": 1}), ("b", "AddN", ["a", "a"], {"T": 1})],
     "NodeDef missing attr 'N' from Op<name=AddN; signature=inputs:N*T -> sum:T; attr=N:int,min=1; "
     "attr=T:type,allowed=[DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64, DT_INT64, "
     "DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF, "
     "DT_UINT32, DT_UINT64, DT_VARIANT]; is_commutative=true; is_aggregate=true>; NodeDef: {{node b}}"),
])
def test_malformed_graph_defs_fail_with_tfs_messages(nodes, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            tf.import_graph_def(_graph_def(*nodes), name="")


def test_return_element_of_a_mapped_tensor_is_its_replacement():
    """TF 2.21 returns the input_map tensor, not the imported one it replaces."""
    with tf.Graph().as_default() as g:
        tf.identity(tf.placeholder(tf.float32, name="a"), name="b")
    with tf.Graph().as_default():
        c = tf.constant(1.0)
        assert tf.import_graph_def(g.as_graph_def(), input_map={"a": c}, return_elements=["a:0"]) == [c]


def test_attr_errors_name_the_node_as_imported():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=re.escape("; NodeDef: {{node pre/x}}")):
            tf.import_graph_def(_graph_def(("x", "Placeholder", [], {})), name="pre")
        with pytest.raises(ValueError, match=re.escape("for attr 'dtype'\n\t; NodeDef: {{node pre_1/x}}; Op<")):
            tf.import_graph_def(_graph_def(("x", "Placeholder", [], {"dtype": b"q"})), name="pre")


def test_names_are_parsed_as_tf_before_the_import_and_a_mapped_output_must_exist():
    with tf.Graph().as_default():
        a = tf.constant(1.0, name="a")
        tf.identity(a, name="b")
        gd = tf.get_default_graph().as_graph_def()
    with tf.Graph().as_default() as g:
        c = tf.constant(2.0, name="c")
        second = "Second component of the name following the `:` should be an int."
        for kwargs, message in (
                (dict(return_elements=["b:x"]), f"Cannot convert 'b:x' to a tensor name. {second} Got x."),
                (dict(return_elements=["b:"]), f"Cannot convert 'b:' to a tensor name. {second} Got ."),
                (dict(return_elements=["b:0:1"]), "Cannot convert 'b:0:1' to a tensor name. Tensor names should not "
                                                  "contain more than 1 `:`. Obtained 2"),
                (dict(input_map={"a:y": c}, return_elements=["b:x"]),
                 f"Cannot convert 'a:y' to a tensor name. {second} Got y.")):
            before = len(g.get_operations())
            with pytest.raises(ValueError) as info:
                tf.import_graph_def(gd, **kwargs)
            assert str(info.value) == message
            assert len(g.get_operations()) == before  # nothing imported
        with pytest.raises(ValueError, match=r"^Attempted to map inputs that were not found in graph_def: \[a:1\]$"):
            tf.import_graph_def(gd, input_map={"a:1": c}, name="imp")
        assert g.get_operation_by_name("imp/b").type == "Identity"  # TF checks once the nodes are in
