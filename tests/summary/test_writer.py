"""tf.summary.FileWriter's graph side: the MetaGraphDef it writes after a constructor's graph (op list, version
strings, collections) and FileWriterCache's default graph. Expected values are TF 2.21's, recorded by hand."""

import logging
import os
import re
import warnings

import pytest
from google.protobuf import text_format

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.framework import op_registry
from tensorweave.framework.graph_io import op_def_to_proto
from tensorweave.framework.meta_graph import ops_used_by_graph_def
from tensorweave.framework.op_def import parse_op_def

# TF's OpDefs as its op registry holds them (`op_def_registry.get(name)`)
IDENTITY = 'name: "Identity" input_arg { name: "input" type_attr: "T" } output_arg { name: "output" type_attr: "T" } ' \
           'attr { name: "T" type: "type" }'
PLACEHOLDER = 'name: "Placeholder" output_arg { name: "output" type_attr: "dtype" } attr { name: "dtype" type: "type" } ' \
              'attr { name: "shape" type: "shape" default_value { shape { unknown_rank: true } } }'
VARIABLE_V2 = 'name: "VariableV2" output_arg { name: "ref" type_attr: "dtype" is_ref: true } ' \
              'attr { name: "shape" type: "shape" } attr { name: "dtype" type: "type" } ' \
              'attr { name: "container" type: "string" default_value { s: "" } } ' \
              'attr { name: "shared_name" type: "string" default_value { s: "" } } is_stateful: true'
CONCAT_V2 = 'name: "ConcatV2" input_arg { name: "values" type_attr: "T" number_attr: "N" } ' \
            'input_arg { name: "axis" type_attr: "Tidx" } output_arg { name: "output" type_attr: "T" } ' \
            'attr { name: "N" type: "int" has_minimum: true minimum: 2 } attr { name: "T" type: "type" } ' \
            'attr { name: "Tidx" type: "type" default_value { type: DT_INT32 } ' \
            'allowed_values { list { type: DT_INT32 type: DT_INT64 } } }'
CONV_2D = 'name: "Conv2D" input_arg { name: "input" type_attr: "T" } input_arg { name: "filter" type_attr: "T" } ' \
          'output_arg { name: "output" type_attr: "T" } ' \
          'attr { name: "T" type: "type" allowed_values { list { type: DT_HALF type: DT_BFLOAT16 type: DT_FLOAT ' \
          'type: DT_DOUBLE type: DT_INT32 } } } attr { name: "strides" type: "list(int)" } ' \
          'attr { name: "use_cudnn_on_gpu" type: "bool" default_value { b: true } } ' \
          'attr { name: "padding" type: "string" allowed_values { list { s: "SAME" s: "VALID" s: "EXPLICIT" } } } ' \
          'attr { name: "explicit_paddings" type: "list(int)" default_value { list { } } } ' \
          'attr { name: "data_format" type: "string" default_value { s: "NHWC" } ' \
          'allowed_values { list { s: "NHWC" s: "NCHW" } } } ' \
          'attr { name: "dilations" type: "list(int)" default_value { list { i: 1 i: 1 i: 1 i: 1 } } }'
IMAGE_SUMMARY = 'name: "ImageSummary" input_arg { name: "tag" type: DT_STRING } ' \
                'input_arg { name: "tensor" type_attr: "T" } output_arg { name: "summary" type: DT_STRING } ' \
                'attr { name: "max_images" type: "int" default_value { i: 3 } has_minimum: true minimum: 1 } ' \
                'attr { name: "T" type: "type" default_value { type: DT_FLOAT } allowed_values { list { ' \
                'type: DT_UINT8 type: DT_FLOAT type: DT_HALF type: DT_DOUBLE } } } ' \
                'attr { name: "bad_color" type: "tensor" default_value { tensor { dtype: DT_UINT8 ' \
                'tensor_shape { dim { size: 4 } } int_val: 255 int_val: 0 int_val: 0 int_val: 255 } } }'


def _op_def(text):
    return text_format.Parse(text, protos.OpDef())


def _events(logdir):
    (path,) = logdir.iterdir()
    return list(tf.train.summary_iterator(str(path)))


def _meta_graph(logdir):
    (event,) = [e for e in _events(logdir) if e.HasField("meta_graph_def")]
    return protos.MetaGraphDef.FromString(event.meta_graph_def)


@pytest.mark.parametrize("name,expected", [("Identity", IDENTITY), ("Placeholder", PLACEHOLDER),
                                           ("VariableV2", VARIABLE_V2), ("ConcatV2", CONCAT_V2)])
def test_op_def_to_proto_of_registered_ops_is_tfs(name, expected):
    assert op_def_to_proto(op_registry.get(name).op_def) == _op_def(expected)


def test_op_def_to_proto_string_allowed_values_and_list_defaults():
    """Conv2D's spec strings from TF's REGISTER_OP (string allowed values, an empty list default)."""
    op_def = parse_op_def("Conv2D", ["input: T", "filter: T"], ["output: T"], [
        "T: {half, bfloat16, float, double, int32}", "strides: list(int)", "use_cudnn_on_gpu: bool = true",
        "padding: {'SAME', 'VALID', 'EXPLICIT'}", "explicit_paddings: list(int) = []",
        "data_format: { 'NHWC', 'NCHW' } = 'NHWC' ", "dilations: list(int) = [1, 1, 1, 1]"])
    assert op_def_to_proto(op_def) == _op_def(CONV_2D)


def test_op_def_to_proto_tensor_default():
    op_def = parse_op_def("ImageSummary", ["tag: string", "tensor: T"], ["summary: string"], [
        "max_images: int >= 1 = 3", "T: {uint8, float, half, double} = DT_FLOAT",
        "bad_color: tensor = { dtype: DT_UINT8 tensor_shape: { dim { size: 4 } } "
        "int_val: 255 int_val: 0 int_val: 0 int_val: 255 }"])
    assert op_def_to_proto(op_def) == _op_def(IMAGE_SUMMARY)


def test_constructor_graph_is_written_with_its_meta_graph(tmp_path):
    x = tf.placeholder(tf.float32, name="x")
    tf.identity(x, name="y")
    tf.summary.FileWriter(str(tmp_path), tf.get_default_graph()).close()
    events = _events(tmp_path)
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def", "meta_graph_def"]
    meta_graph = _meta_graph(tmp_path)
    assert [f.name for f, _ in meta_graph.ListFields()] == ["meta_info_def", "graph_def"]
    info = meta_graph.meta_info_def
    assert list(info.stripped_op_list.op) == [_op_def(IDENTITY), _op_def(PLACEHOLDER)]
    assert (info.tensorflow_version, info.tensorflow_git_version) == ("2.21.0", "tensorweave")
    assert [f.name for f, _ in info.ListFields()] == ["stripped_op_list", "tensorflow_version",
                                                      "tensorflow_git_version"]
    assert meta_graph.graph_def == protos.GraphDef.FromString(events[1].graph_def)
    assert [n.name for n in meta_graph.graph_def.node] == ["x", "y"]


def test_version_event_wall_time_is_the_file_names_whole_seconds(tmp_path):
    tf.summary.FileWriter(str(tmp_path), filename_suffix=".s").close()
    (path,) = tmp_path.iterdir()
    (version,) = _events(tmp_path)
    assert version.wall_time == int(re.match(r"events\.out\.tfevents\.(\d+)\.", path.name).group(1))


def test_collections_are_serialized_as_tf_does(tmp_path, caplog):
    a = tf.constant(1.0, name="a")
    v = tf.Variable(1.0, name="v")
    tf.Variable(1.0, name="lv", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    tf.add_to_collection("tensors", a)
    tf.add_to_collection("ops", a.op)
    tf.add_to_collections(["ints", "mixed"], 1)
    tf.add_to_collection("ints", 2)
    tf.add_to_collection("floats", 1.5)
    tf.add_to_collections(["strs", "mixed"], "s")
    tf.add_to_collection("strs", b"t")
    tf.add_to_collection("objs", object())
    tf.add_to_collection("vars_custom", v)
    tf.add_to_collection("bools", True)
    tf.add_to_collection(("tuple_key",), 1)
    with caplog.at_level(logging.WARNING):
        tf.summary.FileWriter(str(tmp_path), tf.get_default_graph()).close()
    collections = _meta_graph(tmp_path).collection_def
    assert {k: c.WhichOneof("kind") for k, c in collections.items()} == {
        "variables": "bytes_list", "trainable_variables": "bytes_list", "local_variables": "bytes_list",
        "tensors": "node_list", "ops": "node_list", "vars_custom": "node_list", "ints": "int64_list",
        "floats": "float_list", "strs": "bytes_list"}
    assert list(collections["tensors"].node_list.value) == ["a:0"]
    assert list(collections["ops"].node_list.value) == ["a"]
    assert list(collections["vars_custom"].node_list.value) == ["v:0"]
    assert list(collections["ints"].int64_list.value) == [1, 2]
    assert list(collections["floats"].float_list.value) == [1.5]
    assert list(collections["strs"].bytes_list.value) == [b"s", b"t"]
    trainable = [protos.VariableDef.FromString(b) for b in collections["trainable_variables"].bytes_list.value]
    assert [(d.variable_name, d.initializer_name, d.snapshot_name, d.initial_value_name, d.trainable)
            for d in trainable] == [("v:0", "v/Assign", "v/read:0", "v/initial_value:0", True),
                                    ("lv:0", "lv/Assign", "lv/read:0", "lv/initial_value:0", True)]
    warned = [r.getMessage().splitlines()[0] for r in caplog.records]
    assert warned == [f"Issue encountered when serializing {key}." for key in ("mixed", "objs", "bools")]


def test_collections_come_from_the_default_graph_whichever_graph_is_written(tmp_path):
    other = tf.Graph()
    with other.as_default():
        tf.constant(1, name="k")
    tf.Variable(2.0, name="default_var")
    tf.summary.FileWriter(str(tmp_path), other).close()
    meta_graph = _meta_graph(tmp_path)
    assert [n.name for n in meta_graph.graph_def.node] == ["k"]
    assert [o.name for o in meta_graph.meta_info_def.stripped_op_list.op] == ["Const"]
    assert sorted(meta_graph.collection_def) == ["trainable_variables", "variables"]


def test_graph_def_argument_gets_a_meta_graph_too(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        tf.placeholder(tf.int32, name="p")
    tf.summary.FileWriter(str(tmp_path), graph_def=graph.as_graph_def()).close()
    meta_graph = _meta_graph(tmp_path)
    assert [o.name for o in meta_graph.meta_info_def.stripped_op_list.op] == ["Placeholder"]
    assert [n.name for n in meta_graph.graph_def.node] == ["p"]


def test_a_graph_given_as_graph_def_is_a_type_error_after_the_graph_event(tmp_path):
    with pytest.raises(TypeError, match=r"^graph_def must be of type GraphDef\. Received type: <class "
                       r"'tensorweave\.framework\.graph\.Graph'>\.$"):
        tf.summary.FileWriter(str(tmp_path), graph_def=tf.get_default_graph())


def test_add_graph_writes_no_meta_graph(tmp_path):
    tf.constant(1, name="k")
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_graph(tf.get_default_graph(), global_step=7)
    writer.close()
    events = _events(tmp_path)
    assert [(e.WhichOneof("what"), e.step) for e in events] == [("file_version", 0), ("graph_def", 7)]


def test_ops_used_by_graph_def_follows_library_functions():
    graph_def = text_format.Parse("""
        node { name: "c" op: "PartitionedCall" attr { key: "f" value { func { name: "outer" } } } }
        node { name: "x" op: "Placeholder" }
        library {
          function { signature { name: "outer" } node_def { name: "i" op: "inner" } }
          function { signature { name: "inner" } node_def { name: "n" op: "Neg" } }
          function { signature { name: "unused" } node_def { name: "s" op: "Sqrt" } }
        }""", protos.GraphDef())
    assert ops_used_by_graph_def(graph_def) == {"PartitionedCall", "Placeholder", "Neg"}


def test_file_writer_cache_starts_with_the_default_graph(tmp_path):
    tf.constant(1, name="cached")
    writer = tf.summary.FileWriterCache.get(str(tmp_path))
    assert isinstance(writer, tf.summary.FileWriter)
    assert tf.summary.FileWriterCache.get(str(tmp_path)) is writer
    tf.summary.FileWriterCache.clear()
    events = _events(tmp_path)
    assert [e.WhichOneof("what") for e in events] == ["file_version", "graph_def", "meta_graph_def"]
    assert [o.name for o in _meta_graph(tmp_path).meta_info_def.stripped_op_list.op] == ["Const"]


def test_session_writer_writes_through_the_summary_writer_ops(tmp_path):
    """TF 2.21's EventFileWriterV2: the session's SummaryWriter resource for the logdir, the graph TF builds
    ('.v2' files named with the process id and a count, made at once); a second writer of the same logdir
    that closes it leaves the first one's flush failing (recorded from TF)."""
    x = tf.placeholder(tf.float32, [])
    scalar = tf.summary.scalar("a", x)
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(str(tmp_path), session=sess)
        writer.add_summary(sess.run(scalar, {x: 2.0}), 1)
        writer.add_graph(sess.graph)
        nodes = [(n.name, n.op, n.device, list(n.input)) for n in sess.graph.as_graph_def().node
                 if n.name.startswith("filewriter/")]
        writer.close()
        second = tf.summary.FileWriter(str(tmp_path), session=sess)
        tf.summary.FileWriter(str(tmp_path), session=sess).close()
        with pytest.raises(errors.NotFoundError) as info:
            second.flush()
    assert [(name, op, device) for name, op, device, _ in nodes] == [
        ("filewriter/Const", "Const", "/device:CPU:0"), ("filewriter/SummaryWriter", "SummaryWriter", "/device:CPU:0"),
        ("filewriter/CreateSummaryFileWriter/logdir", "Const", "/device:CPU:0"),
        ("filewriter/CreateSummaryFileWriter/max_queue", "Const", "/device:CPU:0"),
        ("filewriter/CreateSummaryFileWriter/flush_millis", "Const", "/device:CPU:0"),
        ("filewriter/CreateSummaryFileWriter", "CreateSummaryFileWriter", "/device:CPU:0"),
        ("filewriter/Const_1", "Const", ""), ("filewriter/PlaceholderWithDefault", "PlaceholderWithDefault", ""),
        ("filewriter/ImportEvent", "ImportEvent", ""),
        ("filewriter/FlushSummaryWriter", "FlushSummaryWriter", "/device:CPU:0"),
        ("filewriter/CreateSummaryFileWriter_1/logdir", "Const", ""),
        ("filewriter/CreateSummaryFileWriter_1/max_queue", "Const", ""),
        ("filewriter/CreateSummaryFileWriter_1/flush_millis", "Const", ""),
        ("filewriter/CreateSummaryFileWriter_1", "CreateSummaryFileWriter", ""),
        ("filewriter/FlushSummaryWriter_1", "FlushSummaryWriter", "/device:CPU:0"),
        ("filewriter/FlushSummaryWriter_2", "FlushSummaryWriter", "/device:CPU:0"),
        ("filewriter/CloseSummaryWriter", "CloseSummaryWriter", "/device:CPU:0")]
    assert nodes[5][3][-1] == "filewriter/Const" and nodes[-1][3] == ["filewriter/SummaryWriter",
                                                                      "^filewriter/FlushSummaryWriter_2"]
    assert re.search(r"Resource localhost/logdir:.*/N10tensorflow22SummaryWriterInterfaceE does not exist\.",
                     info.value.message)
    first = min(tmp_path.iterdir(), key=lambda p: int(p.name.split(".")[-2]))
    assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.[^.]+\.{os.getpid()}\.\d+\.v2", first.name)
    events = list(tf.train.summary_iterator(str(first)))
    assert [e.WhichOneof("what") for e in events] == ["file_version", "summary", "graph_def"]
    assert events[1].step == 1 and events[1].summary.value[0].simple_value == 2.0


def test_a_closed_writer_warns_as_tf(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.close()
    with pytest.warns(UserWarning, match=r"^Attempting to use a closed FileWriter\. The operation will be a noop "
                                         r"unless the FileWriter is explicitly reopened\.$"):
        writer.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), 3)
    writer.reopen()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        writer.flush()
    writer.close()


def test_deprecated_graph_forms_warn_as_tf(tmp_path, caplog):
    """A GraphDef (old tutorials' `sess.graph_def`) or a Graph passed as `graph_def` is written with TF's warnings."""
    with tf.Graph().as_default() as graph, caplog.at_level(logging.WARNING, logger="tensorflow"):
        tf.constant(1.0)
        writer = tf.summary.FileWriter(str(tmp_path), graph.as_graph_def())
        writer.add_graph(None, graph_def=graph)
        writer.add_graph(graph)  # the preferred form: no warning
        writer.close()
    assert [r.getMessage() for r in caplog.records if r.name == "tensorflow"] == [
        "Passing a `GraphDef` to the SummaryWriter is deprecated. Pass a `Graph` object instead, such as `sess.graph`.",
        "When passing a `Graph` object, please use the `graph` named argument instead of `graph_def`."]
    (path,) = tmp_path.iterdir()
    graphs = [e for e in tf.train.summary_iterator(str(path)) if e.HasField("graph_def")]
    assert len(graphs) == 3
