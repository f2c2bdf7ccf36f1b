"""Our .proto subset: TF's wire format and text format, in a private pool that never clashes with TF's."""

import numpy as np
from google.protobuf import descriptor_pool, text_format
from google.protobuf.unknown_fields import UnknownFieldSet

from tensorweave.formats import protos
from tensorweave.formats.tensor_proto import make_ndarray

from .make_fixtures.cases import REFERENCE


def test_private_pool():
    assert protos.POOL is not descriptor_pool.Default()
    assert protos.GraphDef.DESCRIPTOR.full_name == "tensorflow.GraphDef"
    assert protos.message_class("tensorflow.NodeDef") is protos.NodeDef


def test_reference_graphs_parse_as_text_and_round_trip_on_the_wire():
    for name in ("mlp", "while", "cond"):
        graph = text_format.Parse((REFERENCE / "graphs" / f"{name}.pbtxt").read_text(), protos.GraphDef())
        assert graph.node and graph.versions.producer > 0
        wire = graph.SerializeToString(deterministic=True)
        assert protos.GraphDef.FromString(wire).SerializeToString(deterministic=True) == wire
    consts = [n for n in graph.node if n.op == "Const"]
    assert all(make_ndarray(n.attr["value"].tensor) is not None for n in consts)


def _unknown_fields(msg):
    count = len(UnknownFieldSet(msg))
    for field, value in msg.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            values = [v for v in value.values()] if field.message_type.fields_by_name["value"].message_type else []
        else:
            values = list(value) if field.is_repeated else [value]
        count += sum(_unknown_fields(v) for v in values)
    return count


def test_reference_meta_graph_parses_without_unknown_fields():
    meta = protos.MetaGraphDef.FromString((REFERENCE / "checkpoint_v2" / "model.ckpt-43.meta").read_bytes())
    assert meta.saver_def.version == protos.SaverDef.V2
    assert meta.saver_def.filename_tensor_name == "save/Const:0"
    variables = meta.collection_def["variables"].bytes_list.value
    assert protos.VariableDef.FromString(variables[0]).variable_name
    assert {n.op for n in meta.graph_def.node} >= {"SaveV2", "RestoreV2"}
    assert _unknown_fields(meta) == 0  # every field TF wrote is in our schema


def test_tf1_enum_constants_and_nested_classes():
    assert protos.RunOptions.FULL_TRACE == 3 and protos.RunOptions(trace_level="FULL_TRACE").trace_level == 3
    assert protos.SessionLog.CHECKPOINT == 3
    assert protos.OptimizerOptions.L0 == -1
    config = protos.ConfigProto(device_count={"CPU": 4}, allow_soft_placement=True,
                                gpu_options=protos.GPUOptions(allow_growth=True),
                                graph_options=protos.GraphOptions(
                                    optimizer_options=protos.OptimizerOptions(opt_level=protos.OptimizerOptions.L0)))
    assert protos.ConfigProto.FromString(config.SerializeToString()) == config
    value = protos.Summary.Value(tag="x", simple_value=1.0)
    assert protos.Summary(value=[value]).value[0].simple_value == 1.0
    assert isinstance(protos.Summary.Image(height=1), protos.Summary.Image)


def test_example_wire_format():
    example = protos.Example(features=protos.Features(feature={
        "f": protos.Feature(float_list=protos.FloatList(value=[1.0, 2.0])),
        "i": protos.Feature(int64_list=protos.Int64List(value=[-1]))}))
    wire = example.SerializeToString(deterministic=True)
    assert b"\x0a\x08\x00\x00\x80\x3f\x00\x00\x00\x40" in wire  # packed floats
    assert b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01" in wire  # -1 as a 10-byte varint
    np.testing.assert_array_equal(protos.Example.FromString(wire).features.feature["f"].float_list.value, [1, 2])
