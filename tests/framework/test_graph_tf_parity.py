"""Graph framework behaviours matched to real TensorFlow 2.21 (`tf.compat.v1`, v2 behaviour disabled).

Every expected value and message below was recorded by running the same snippet under real TensorFlow.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos
from tensorweave.framework import dtypes
from tensorweave.framework.graph import Graph, _DefaultGraphStack


@pytest.fixture
def g() -> Iterator[Graph]:
    graph = tf.Graph()
    with graph.as_default():
        yield graph


def test_as_graph_def_is_tf_protobuf_with_producer_version(g):
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    with tf.colocate_with(a):
        tf.identity(a, name="b")
    graph_def = g.as_graph_def()
    assert isinstance(graph_def, protos.GraphDef)
    assert str(graph_def) == (
        'node {\n  name: "a"\n  op: "Const"\n  device: "/device:CPU:0"\n  attr {\n    key: "value"\n    value {\n'
        '      tensor {\n        dtype: DT_FLOAT\n        tensor_shape {\n        }\n        float_val: 1\n      }\n'
        '    }\n  }\n  attr {\n    key: "dtype"\n    value {\n      type: DT_FLOAT\n    }\n  }\n}\nnode {\n'
        '  name: "b"\n  op: "Identity"\n  input: "a"\n  device: "/device:CPU:0"\n  attr {\n    key: "_class"\n'
        '    value {\n      list {\n        s: "loc:@a"\n      }\n    }\n  }\n  attr {\n    key: "T"\n'
        '    value {\n      type: DT_FLOAT\n    }\n  }\n}\nversions {\n  producer: 2474\n}\n')
    assert list(graph_def.node[1].attr["_class"].list.s) == [b"loc:@a"]
    assert (tf.GRAPH_DEF_VERSION, tf.GRAPH_DEF_VERSION_MIN_CONSUMER, tf.GRAPH_DEF_VERSION_MIN_PRODUCER) == (2474, 0, 0)


def test_as_graph_def_add_shapes_and_session_graph_def(g):
    tf.placeholder(tf.float32, [None, 3], name="p")
    tf.unstack(tf.zeros([2, 3]), name="u")
    shapes = [[[d.size for d in s.dim] for s in n.attr["_output_shapes"].list.shape]
              for n in g.as_graph_def(add_shapes=True).node]
    assert shapes == [[[-1, 3]], [[2, 3]], [[3], [3]]]
    with tf.Session() as sess:
        assert isinstance(sess.graph_def, protos.GraphDef) and len(sess.graph_def.node) == 3


def test_tensors_take_user_attributes(g):
    t = tf.constant([1, 2])
    t.foo = 1
    assert t.foo == 1


def test_graph_keys_private_collections():
    assert tf.GraphKeys._VARIABLE_COLLECTIONS == [
        "variables", "local_variables", "metric_variables", "model_variables", "trainable_variables",
        "moving_average_variables", "concatenated_variables", "trainable_resource_variables"]
    assert tf.GraphKeys._STREAMING_MODEL_PORTS == "streaming_model_ports"
    assert tf.GraphKeys._SUMMARY_COLLECTION == "_SUMMARY_V2"


def test_dtype_size_limits_and_invalid_enum():
    assert [tf.as_dtype(n).size for n in ("string", "resource", "variant", "bool", "qint8", "float16")] == \
        [0, 0, 0, 1, 1, 2]
    with pytest.raises(ValueError, match=r"^<dtype: 'float16'> does not have defined limits\.$"):
        _ = tf.float16.limits
    with pytest.raises(TypeError, match=r"^Cannot find maximum value of <dtype: 'quint8'> with quantized type "
                                        r"<dtype: 'quint8'>\.$"):
        _ = tf.quint8.max
    with pytest.raises(TypeError, match=r"^Cannot find maximum value of <dtype: 'resource'>\.$"):
        _ = tf.resource.max
    with pytest.raises(TypeError, match=r"^200 does not correspond to a valid tensorflow::DataType$"):
        dtypes.DType(200)


def test_convert_to_tensor_or_indexed_slices_dtype_mismatch(g):
    with pytest.raises(ValueError) as info:
        tf.convert_to_tensor_or_indexed_slices(tf.constant(1), tf.float32)
    assert str(info.value) == ('Incompatible tensor conversion requested to `dtype` float32 for `value` '
                               '(Tensor("Const:0", shape=(), dtype=int32)) with dtype int32.')
    assert tf.convert_to_tensor_or_indexed_slices([1.0, 2.0]).dtype == tf.float32


def test_default_stack_blocks_must_nest():
    g1, g2 = tf.Graph(), tf.Graph()
    stack = _DefaultGraphStack()
    stack.push(g1)
    stack.push(g2)
    with pytest.raises(AssertionError, match=r"^Nesting violated for default stack of <class '.*Graph'> objects$"):
        stack.pop(g1)
    stack.pop(g2)
    assert stack.get() is g1


def test_default_session_blocks_must_nest():
    s1, s2 = tf.Session(graph=tf.Graph()), tf.Session(graph=tf.Graph())
    outer, inner = s1.as_default(), s2.as_default()
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(AssertionError, match=r"^Nesting violated for default stack of <class '.*Session'> objects$"):
        outer.__exit__(None, None, None)
    inner.__exit__(None, None, None)
    outer.__exit__(None, None, None)
    assert tf.get_default_session() is None


def test_create_op_takes_output_types_from_op_def_and_attr_value_protos(g):
    a = tf.constant([[1.0]], name="a")
    op = g.create_op("MatMul", [a, a], [tf.int32], attrs={"transpose_a": tf.AttrValue(b=True)})
    assert (op.name, op.get_attr("transpose_a"), op.outputs[0].dtype) == ("MatMul", True, tf.float32)
    private = g.create_op("Identity", [a], [tf.float32], attrs={"_foo": tf.AttrValue(s=b"x")})
    assert private.get_attr("_foo") == b"x"
    with pytest.raises(TypeError, match=r"^Input #0 is not a tensor: 1\.0$"):
        g.create_op("Identity", [1.0], [tf.float32])


def test_set_attr_accepts_attr_value_protos(g):
    a = tf.constant(1.0, name="a")
    a.op._set_attr("_class", tf.AttrValue(list=tf.AttrValue.ListValue(s=[b"loc:@z"])))
    assert a.op.get_attr("_class") == [b"loc:@z"] and a.op.colocation_groups() == [b"loc:@z"]
    a.op._set_attr("_shape", tf.AttrValue(shape=tf.TensorShape([1, None]).as_proto()))
    assert [d.size for d in a.op.get_attr("_shape").dim] == [1, -1]


def test_device_scope_reads_the_device_spec_it_was_given(g):
    spec = tf.DeviceSpec(job="ps")
    with tf.device(spec):
        a = tf.constant(1)
        spec.job = "w"
        b = tf.constant(1)
        spec.device_type = "GPU"
        c = tf.constant(1)
        with tf.device("/task:1"):
            spec.replica = 0
            d = tf.constant(1)
    assert [t.op.device for t in (a, b, c, d)] == ["/job:ps", "/job:w", "/job:w/device:GPU:*",
                                                   "/job:w/replica:0/task:1/device:GPU:*"]


def test_graph_def_versions_and_building_function(g):
    assert str(g.graph_def_versions) == "producer: 2474\n"
    assert g.building_function is False and g._building_function is False


def test_missing_numpy_attributes_point_to_numpy_behaviour(g):
    t = tf.constant([1.0, 2.0])
    with pytest.raises(AttributeError) as info:
        _ = t.T
    assert str(info.value) == ("SymbolicTensor object has no attribute 'T'. \n        If you are looking for numpy-related "
                               "methods, please run the following:\n        "
                               "tf.experimental.numpy.experimental_enable_numpy_behavior()\n      ")
    with pytest.raises(AttributeError, match=r"^'SymbolicTensor' object has no attribute 'numpy'$"):
        _ = t.numpy
    assert not hasattr(t, "assign")
    assert type(t).__name__ == "SymbolicTensor" and isinstance(t, tf.Tensor)  # TF 2.x graph tensors' class


def test_eval_and_run_name_which_session_has_another_graph():
    with tf.Graph().as_default():
        a = tf.constant(1, name="a")
    sess = tf.Session(graph=tf.Graph())
    with sess.as_default():
        with pytest.raises(ValueError) as info:
            a.eval()
        assert str(info.value) == ("Cannot use the default session to evaluate tensor: the tensor's graph is "
                                   "different from the session's graph. Pass an explicit session to "
                                   "`eval(session=sess)`.")
        with pytest.raises(ValueError) as info:
            a.op.run()
        assert str(info.value) == ("Cannot use the default session to execute operation: the operation's graph "
                                   "is different from the session's graph. Pass an explicit session to "
                                   "run(session=sess).")
    with pytest.raises(ValueError) as info:
        a.eval(session=sess)
    assert str(info.value) == ("Cannot use the given session to evaluate tensor: the tensor's graph is different "
                               "from the session's graph.")
    with pytest.raises(ValueError) as info:
        a.op.run(session=sess)
    assert str(info.value) == ("Cannot use the given session to execute operation: the operation's graph is "
                               "different from the session's graph.")
    sess.close()


def _indexed_slices(dense_shape: bool = True) -> tuple:
    values = tf.constant([[1.0, 2.0], [3.0, 4.0]], name="v")
    indices = tf.constant([0, 1], name="i")
    shape = tf.constant([5, 2], name="d") if dense_shape else None
    return tf.IndexedSlices(values, indices, shape), values, indices, shape


def test_indexed_slices_properties(g):
    slices, values, indices, shape = _indexed_slices()
    assert (slices.values, slices.indices, slices.dense_shape) == (values, indices, shape)
    assert (slices.name, slices.dtype, slices.device, slices.op.name, slices.graph) == ("v:0", tf.float32, "", "v", g)
    assert str(slices.shape) == "(5, 2)" and tf.is_tensor(slices) and tf.get_static_value(slices) is None
    assert str(slices) == ('IndexedSlices(indices=Tensor("i:0", shape=(2,), dtype=int32), values=Tensor("v:0", '
                           'shape=(2, 2), dtype=float32), dense_shape=Tensor("d:0", shape=(2,), dtype=int32))')
    negated = -slices
    assert negated.values.name == "Neg:0" and negated.indices is indices and negated.dense_shape is shape
    assert {op.name for op in slices.consumers()} == {"Neg"}


def test_indexed_slices_shape_is_what_dense_shape_fixes(g):
    slices, _, _, _ = _indexed_slices(dense_shape=False)
    assert str(slices.shape) == "<unknown>" and "dense_shape" not in str(slices)
    rows = tf.placeholder(tf.float32, [None, 2])
    assert str(tf.IndexedSlices(rows, tf.constant([0]), tf.placeholder(tf.int64, [2])).shape) == "(?, ?)"
    stacked = tf.stack([tf.placeholder(tf.int32, []), 2])
    assert str(tf.IndexedSlices(rows, tf.constant([0]), stacked).shape) == "(?, 2)"


def test_indexed_slices_pass_conversion_and_control_dependencies(g):
    slices, _, _, _ = _indexed_slices()
    assert tf.convert_to_tensor_or_indexed_slices(slices) is slices
    with pytest.raises(ValueError, match=r"^Incompatible tensor conversion requested to `dtype` int32 for `value` "
                                         r"\(IndexedSlices\(indices=Tensor\(\"i:0\""):
        tf.convert_to_tensor_or_indexed_slices(slices, tf.int32)
    with tf.control_dependencies([slices]):
        after = tf.constant(1, name="c")
    assert [op.name for op in after.op.control_inputs] == ["v"]
    with pytest.raises(TypeError, match=r"^Can not convert a IndexedSlices into a Tensor or Operation\.$"):
        g.as_graph_element(slices)


def test_operation_node_def_is_a_fresh_tf_protobuf(g):
    a = tf.constant([1.0, 2.0], name="c")
    with tf.device("/cpu:0"):
        s = tf.add(a, a, name="s")
    node_def = s.op.node_def
    assert isinstance(node_def, protos.NodeDef) and node_def is not s.op.node_def
    assert str(node_def) == ('name: "s"\nop: "AddV2"\ninput: "c"\ninput: "c"\ndevice: "/device:CPU:0"\nattr {\n'
                             '  key: "T"\n  value {\n    type: DT_FLOAT\n  }\n}\n')
    assert node_def.attr["T"].type == tf.float32.as_datatype_enum
    value = a.op.node_def.attr["value"].tensor
    assert (value.dtype, [d.size for d in value.tensor_shape.dim]) == (tf.float32.as_datatype_enum, [2])
    assert value.tensor_content == b"\x00\x00\x80?\x00\x00\x00@"
    assert protos.NodeDef.FromString(node_def.SerializeToString()) == node_def
    node_def.name = "zzz"
    node_def.attr["T"].type = tf.float64.as_datatype_enum
    assert (s.op.name, s.op.get_attr("T")) == ("s", tf.float32)


def test_operation_op_def_is_tf_protobuf(g):
    a = tf.constant([1.0, 2.0])
    placeholder = tf.placeholder(tf.float32).op
    assert isinstance(placeholder.op_def, protos.OpDef) and placeholder.op_def is not placeholder.op_def
    assert str(placeholder.op_def) == (
        'name: "Placeholder"\noutput_arg {\n  name: "output"\n  type_attr: "dtype"\n}\nattr {\n  name: "dtype"\n'
        '  type: "type"\n}\nattr {\n  name: "shape"\n  type: "shape"\n  default_value {\n    shape {\n'
        '      unknown_rank: true\n    }\n  }\n}\n')
    assert str(tf.concat([a, a], 0).op.op_def) == (
        'name: "ConcatV2"\ninput_arg {\n  name: "values"\n  type_attr: "T"\n  number_attr: "N"\n}\ninput_arg {\n'
        '  name: "axis"\n  type_attr: "Tidx"\n}\noutput_arg {\n  name: "output"\n  type_attr: "T"\n}\nattr {\n'
        '  name: "N"\n  type: "int"\n  has_minimum: true\n  minimum: 2\n}\nattr {\n  name: "T"\n  type: "type"\n}\n'
        'attr {\n  name: "Tidx"\n  type: "type"\n  default_value {\n    type: DT_INT32\n  }\n  allowed_values {\n'
        '    list {\n      type: DT_INT32\n      type: DT_INT64\n    }\n  }\n}\n')
    assert str(tf.identity_n([a, a])[0].op.op_def) == (
        'name: "IdentityN"\ninput_arg {\n  name: "input"\n  type_list_attr: "T"\n}\noutput_arg {\n  name: "output"\n'
        '  type_list_attr: "T"\n}\nattr {\n  name: "T"\n  type: "list(type)"\n  has_minimum: true\n  minimum: 1\n}\n')
    assert str(tf.Variable(1.0).op.op_def) == (
        'name: "VariableV2"\noutput_arg {\n  name: "ref"\n  type_attr: "dtype"\n  is_ref: true\n}\nattr {\n'
        '  name: "shape"\n  type: "shape"\n}\nattr {\n  name: "dtype"\n  type: "type"\n}\nattr {\n'
        '  name: "container"\n  type: "string"\n  default_value {\n    s: ""\n  }\n}\nattr {\n  name: "shared_name"\n'
        '  type: "string"\n  default_value {\n    s: ""\n  }\n}\nis_stateful: true\n')
    strided = tf.strided_slice(a, [0], [1]).op.op_def
    assert [(attr.name, attr.default_value.i) for attr in strided.attr][2:] == [
        ("begin_mask", 0), ("end_mask", 0), ("ellipsis_mask", 0), ("new_axis_mask", 0), ("shrink_axis_mask", 0)]
    assert list(strided.attr[1].allowed_values.list.type) == [tf.int16.as_datatype_enum, tf.int32.as_datatype_enum,
                                                              tf.int64.as_datatype_enum]


@pytest.mark.parametrize("build", [
    lambda: tf.reshape(tf.zeros([4]), [-2, 2]),
    lambda: tf.fill([-2, 3], 1.0),
    lambda: tf.zeros([-2, 3]),
    lambda: tf.ones(tf.constant([-2, 3])),
    lambda: tf.random_normal([-2, 3]),
    lambda: tf.reshape(tf.zeros([4]), tf.stack([-2, 2])),
    lambda: tf.reshape(tf.zeros([4]), tf.concat([[-2], [tf.placeholder(tf.int32, [])]], 0)),
    lambda: tf.fill(tf.constant([-2, 8], tf.int64), 1.0),
])
def test_invalid_shape_values_fail_without_node_context(g, build):
    with pytest.raises(ValueError, match=r"^Invalid value in tensor used for shape: -2$"):
        build()


def test_partial_shape_errors_are_bare_but_shape_function_errors_name_the_node(g):
    x = tf.zeros([4, 4])
    with pytest.raises(ValueError, match=r"^Subshape start out of bounds: -7, for shape with rank 2$"):
        tf.reshape(x, tf.shape(x)[-7:])
    # a Cast's value is read by the shape function itself, which TF's error then names
    with pytest.raises(ValueError) as info:
        tf.reshape(x, tf.cast(tf.constant([-2., 8.]), tf.int32))
    assert str(info.value) == ("Invalid value in tensor used for shape: -2 for '{{node Reshape_1}} = "
                               "Reshape[T=DT_FLOAT, Tshape=DT_INT32](zeros, Cast)' with input shapes: [4,4], [2] "
                               "and with computed input tensors: input[1] = <-2 8>.")
    assert [op.name for op in g.get_operations()][-1] == "Cast"  # the failed nodes are gone


def test_constant_shape_dims_are_truncated_to_ints(g):
    assert tf.constant(1, shape=[2.5]).shape.as_list() == [2]
    assert tf.constant(1.0, shape=(2.2, 1.9)).shape.as_list() == [2, 1]
    assert tf.constant([1, 2], shape=[np.float32(2.9)]).shape.as_list() == [2]
    assert tf.constant(1, shape=["2"]).shape.as_list() == [2]
    with tf.Session() as sess:
        assert sess.run(tf.constant(7, shape=[2.5, 1])).tolist() == [[7], [7]]
    with pytest.raises(TypeError, match=r"^'float' object cannot be interpreted as an integer$"):
        tf.constant(1, shape=[0.5])
    with pytest.raises(ValueError, match=r"^Too many elements provided\. Takes at most -1, but got 1\.$"):
        tf.constant(1, shape=[-1])
    with pytest.raises(ValueError, match=r"^Dimension -2 must be >= 0$"):
        tf.constant(1, shape=[-2, -3])
    with pytest.raises(TypeError, match=r"^'int' object is not iterable$"):
        tf.constant(1, shape=3)


def test_python_range_converts_to_a_range_op(g):
    r = tf.convert_to_tensor(range(1, 10, 2))
    assert (r.name, r.shape.as_list(), r.dtype) == ("Range:0", [5], tf.int32)
    assert [t.name for t in r.op.inputs] == ["Range/start:0", "Range/limit:0", "Range/delta:0"]
    assert tf.convert_to_tensor(range(3), name="r").name == "r:0"
    assert tf.convert_to_tensor(range(3), dtype=tf.int64).dtype == tf.int64
    assert tf.convert_to_tensor(range(3), preferred_dtype=tf.float32).dtype == tf.float32
    big = tf.convert_to_tensor(range(2**40, 2**40 + 3))
    assert big.dtype == tf.int64 and [t.name for t in big.op.inputs][2] == "Range_3/Cast:0"
    added = tf.add(range(3), 1)
    assert [t.op.type for t in added.op.inputs] == ["Range", "Const"]
    with tf.Session() as sess:
        assert sess.run(r).tolist() == [1, 3, 5, 7, 9]
        assert sess.run(tf.convert_to_tensor(range(5, 0, -2))).tolist() == [5, 3, 1]


@pytest.mark.parametrize("base_type", [int, float, bool, np.ndarray, np.generic, np.float32, np.int64, (str, int)])
def test_conversions_for_numbers_and_numpy_values_cannot_be_registered(base_type):
    with pytest.raises(TypeError, match=r"^Cannot register conversions for Python numeric types and NumPy scalars "
                                        r"and arrays\.$"):
        tf.register_tensor_conversion_function(base_type, lambda value, dtype=None, name=None, as_ref=False: None)


def test_register_tensor_conversion_function_checks_its_arguments():
    with pytest.raises(TypeError, match=r"^Argument `base_type` must be a type or a tuple of types\. Obtained: 3$"):
        tf.register_tensor_conversion_function(3, lambda value, dtype=None, name=None, as_ref=False: None)
    with pytest.raises(TypeError, match=r"^Argument `conversion_func` must be callable\. Received 3\.$"):
        tf.register_tensor_conversion_function(dict, 3)


def test_convert_to_tensor_has_no_as_ref_and_checks_its_call_as_tf(g):
    with pytest.raises(TypeError, match=r"^Got an unexpected keyword argument 'as_ref'$"):
        tf.convert_to_tensor(1, as_ref=True)
    with pytest.raises(TypeError, match=r"^Got an unexpected keyword argument 'foo'$"):
        tf.convert_to_tensor(1, 2, 3, 4, 5, foo=1)
    with pytest.raises(TypeError, match=r"^Too many arguments were given\. Expected 5 but got 6\.$"):
        tf.convert_to_tensor(1, None, None, None, None, None)
    with pytest.raises(TypeError, match=r"^Got multiple values for argument 'value'$"):
        tf.convert_to_tensor(1, value=2)
    with pytest.raises(TypeError, match=r"^Missing required positional argument$"):
        tf.convert_to_tensor()
    with pytest.raises(ValueError, match=r"^Cannot specify both 'preferred_dtype' and 'dtype_hint'\.$"):
        tf.convert_to_tensor(1, preferred_dtype=tf.float32, dtype_hint=tf.int64)
    assert tf.convert_to_tensor(1, dtype_hint=tf.float32).dtype == tf.float32
    with pytest.raises(TypeError, match=r"^Expected int32, but got 2\.5 of type 'float'\.$"):
        tf.convert_to_tensor(2.5, dtype=tf.int32)  # a TypeError inside the function is left as it is
