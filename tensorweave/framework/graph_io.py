"""The IR GraphDef at the boundary: conversion to and from TF's GraphDef protobuf.

Attr values are typed by the op's OpDef where it declares the attr (so a shape and a list(int) stay
distinct), and by their Python type otherwise (internal attrs such as `_class` and `_output_shapes`).
An AttrValue with no Python form here (a FunctionDef's `placeholder`, no value at all, a func with attrs of
its own) stays an AttrValue protobuf in the IR and exports unchanged, as TF keeps such attrs.
This is how graphs reach event files, checkpoints' MetaGraphDefs and other TF tools (`tf.train.write_graph`
writes one to a file).

One-way rule: this module reads the IR and the op registry (declared attr types), never the Python graph,
which builds on it; it installs graph_def's `to_proto` hook, so `GraphDef.to_proto()` converts here.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import uuid
from typing import Any

import numpy as np
from google.protobuf import text_format

from tensorweave.formats import protos
from tensorweave.formats.tensor_proto import as_shape_proto, listed_values, make_ndarray, make_tensor_proto
from tensorweave.framework import dtypes, op_registry, tensor_shape
from tensorweave.framework.graph_def import GraphDef, NodeDef, to_proto
from tensorweave.framework.op_def import ArgDef, AttrDef, OpDef, check_attr_value
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export

_FULL_TYPE_IDS = {name: value.number for name, value in
                  protos.FullTypeDef.DESCRIPTOR.fields_by_name["type_id"].enum_type.values_by_name.items()}
_MAX_ELEMENTS = 2**63 - 1
_LIST_FIELDS = {"type": "type", "int": "i", "float": "f", "bool": "b", "string": "s", "shape": "shape",
                "tensor": "tensor", "func": "func"}


def _declared_type(op_type: str, attr_name: str) -> str | None:
    try:
        op_def = op_registry.get(op_type).op_def
        return op_def.attr(attr_name).type
    except KeyError:
        return None


def inferred_attr_type(value: Any) -> str:
    """The AttrValue type a Python attr value implies, for attrs no OpDef declares ("attr_value" for an
    AttrValue kept as the protobuf)."""
    if isinstance(value, protos.AttrValue):
        return "attr_value"
    if isinstance(value, (list, tuple)):
        return f"list({inferred_attr_type(value[0])})" if value else "list(int)"
    if isinstance(value, dtypes.DType):
        return "type"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, tensor_shape.TensorShape):
        return "shape"
    if isinstance(value, np.ndarray):
        return "tensor"
    raise TypeError(f"Don't know how to export attr value {value!r} to an AttrValue")


def _scalar_to_proto(kind: str, value: Any) -> Any:
    if kind == "type":
        return dtypes.as_dtype(value).as_datatype_enum
    if kind == "string":
        return value.encode() if isinstance(value, str) else value
    if kind == "shape":
        if isinstance(value, tensor_shape.TensorShape):
            value = None if value.ndims is None else value.as_list()
        return as_shape_proto(value)
    if kind == "tensor":
        if isinstance(value, str):  # an OpDef's tensor default, kept as TensorProto text (ImageSummary's bad_color)
            return text_format.Parse(value, protos.TensorProto())
        return make_tensor_proto(value)
    if kind == "func":
        return protos.NameAttrList(name=value if isinstance(value, str) else getattr(value, "name", str(value)))
    return value


def attr_to_proto(kind: str, value: Any) -> Any:
    """An AttrValue for a value of the given OpDef attr type ('int', 'list(shape)', ...); an AttrValue the IR
    keeps as the protobuf is copied unchanged."""
    if isinstance(value, protos.AttrValue):
        attr = protos.AttrValue()
        attr.CopyFrom(value)
        return attr
    if kind.startswith("list("):
        item = kind[5:-1]
        attr = protos.AttrValue()
        attr.list.SetInParent()
        field = getattr(attr.list, _LIST_FIELDS[item])
        items = [_scalar_to_proto(item, v) for v in value]
        if item in ("shape", "tensor", "func"):
            for v in items:
                field.add().CopyFrom(v)
        else:
            field.extend(items)
        return attr
    converted = _scalar_to_proto(kind, value)
    field = _LIST_FIELDS[kind]
    if kind in ("shape", "tensor", "func"):
        attr = protos.AttrValue()
        getattr(attr, field).CopyFrom(converted)
        return attr
    return protos.AttrValue(**{field: converted})


def node_attr_to_proto(node: NodeDef, name: str) -> Any:
    """The AttrValue of one of the node's attrs, with a splat tensor listing only its leading values as TF's
    TensorProto does (make_tensor_proto encodes them for the full shape)."""
    value = node.attr[name]
    listed = node.splats.get(name)
    if listed is not None:  # `flat` copies only the listed values (a splat may be a stride-0 view)
        attr = protos.AttrValue()
        attr.tensor.CopyFrom(make_tensor_proto(value.flat[:listed], shape=value.shape))
        return attr
    return attr_to_proto(_declared_type(node.op, name) or inferred_attr_type(value), value)


@functools.cache
def _output_full_types(op_type: str) -> tuple[Any, ...] | None:
    """The op's declared output full types as FullTypeDefs (empty where an output declares none), or None
    when it declares none at all: only ops with full types get an `experimental_type` in TF."""
    try:
        op_def = op_registry.get(op_type).op_def
    except KeyError:
        return None
    if all(arg.full_type is None for arg in op_def.output_args):
        return None
    return tuple(text_format.Parse(arg.full_type or "", protos.FullTypeDef()) for arg in op_def.output_args)


def _substitute_type_vars(full_type: Any, attrs: dict[str, object]) -> None:
    """Replace each TFT_VAR naming a type attr by that dtype's full type, as TF's SpecializeType does."""
    if full_type.type_id == _FULL_TYPE_IDS["TFT_VAR"]:
        dtype = dtypes.as_dtype(attrs[full_type.s])
        full_type.Clear()
        full_type.type_id = _FULL_TYPE_IDS["TFT_" + protos.DataType.Name(dtype.as_datatype_enum)[3:]]
        return
    for arg in full_type.args:
        _substitute_type_vars(arg, attrs)


def _experimental_type(node: NodeDef) -> Any:
    """The NodeDef `experimental_type` TF's graph gives a node of an op with output full types, or None: a
    TFT_PRODUCT of the outputs' full types with their type variables bound to the node's attrs."""
    outputs = _output_full_types(node.op)
    if outputs is None:
        return None
    product = protos.FullTypeDef(type_id=_FULL_TYPE_IDS["TFT_PRODUCT"], args=outputs)
    _substitute_type_vars(product, node.attr)
    return product


def node_def_to_proto(node: NodeDef) -> Any:
    """TF's NodeDef protobuf for an IR NodeDef (a fresh message: changing it leaves the node as it is)."""
    proto = protos.NodeDef(name=node.name, op=node.op, input=list(node.input), device=node.device)
    for name in node.attr:
        proto.attr[name].CopyFrom(node_attr_to_proto(node, name))
    experimental_type = _experimental_type(node)
    if experimental_type is not None:
        proto.experimental_type.CopyFrom(experimental_type)
    return proto


@to_proto.install
def graph_def_to_proto(graph_def: GraphDef) -> Any:
    """TF's GraphDef protobuf for an IR GraphDef."""
    proto = protos.GraphDef()
    proto.node.extend(node_def_to_proto(n) for n in graph_def.node)
    proto.versions.producer = graph_def.producer
    if graph_def.library:
        proto.library.function.extend(graph_def.library)
    return proto


def _arg_def_to_proto(arg: ArgDef) -> Any:
    proto = protos.OpDef.ArgDef(name=arg.name, type_attr=arg.type_attr or "", number_attr=arg.number_attr or "",
                                type_list_attr=arg.type_list_attr or "", is_ref=arg.is_ref)
    if arg.type is not None:
        proto.type = arg.type.as_datatype_enum
    if arg.full_type is not None:
        text_format.Parse(arg.full_type, proto.experimental_full_type)
    return proto


def _attr_def_to_proto(attr: AttrDef) -> Any:
    proto = protos.OpDef.AttrDef(name=attr.name, type=attr.type)
    if attr.has_default:
        proto.default_value.CopyFrom(attr_to_proto(attr.type, attr.default))
    if attr.minimum is not None:
        proto.has_minimum = True
        proto.minimum = attr.minimum
    if attr.allowed_values is not None:
        kind = "string" if "string" in attr.type else "type"
        proto.allowed_values.CopyFrom(attr_to_proto(f"list({kind})", attr.allowed_values))
    return proto


def op_def_to_proto(op_def: OpDef) -> Any:
    """TF's OpDef protobuf for a registered op, as TF's registry holds it (no documentation), e.g. for a
    MetaGraphDef's `stripped_op_list`."""
    return protos.OpDef(name=op_def.name, input_arg=[_arg_def_to_proto(a) for a in op_def.input_args],
                        output_arg=[_arg_def_to_proto(a) for a in op_def.output_args],
                        attr=[_attr_def_to_proto(a) for a in op_def.attrs], is_stateful=op_def.is_stateful,
                        is_commutative=op_def.is_commutative, is_aggregate=op_def.is_aggregate,
                        allows_uninitialized_input=op_def.allows_uninitialized_input,
                        is_distributed_communication=op_def.is_distributed_communication)


def summarize_op_def(op_def: OpDef) -> str:
    """TF's SummarizeOpDef (`Op<name=Identity; signature=input:T -> output:T; attr=T:type>`), as its
    NodeDef validation errors show the op."""
    proto = op_def_to_proto(op_def)

    def args(arg_list: Any) -> str:
        parts = []
        for arg in arg_list:
            kind = dtypes.type_string(dtypes.as_dtype(arg.type)) if arg.type else arg.type_attr  # TF shows no list
            kind = f"{arg.number_attr}*{kind}" if arg.number_attr else kind
            parts.append(f"{arg.name}:{f'Ref({kind})' if arg.is_ref else kind}")
        return ", ".join(parts)

    text = f"Op<name={proto.name}; signature={args(proto.input_arg)} -> {args(proto.output_arg)}"
    for attr in proto.attr:
        text += f"; attr={attr.name}:{attr.type}"
        if attr.HasField("default_value"):
            text += f",default={_summarize_attr_value(attr.default_value)}"
        if attr.has_minimum:
            text += f",min={attr.minimum}"
        if attr.HasField("allowed_values"):
            text += f",allowed={_summarize_attr_value(attr.allowed_values)}"
    for flag in ("is_commutative", "is_aggregate", "is_stateful", "allows_uninitialized_input",
                 "is_distributed_communication"):
        if getattr(proto, flag):
            text += f"; {flag}=true"
    return text + ">"


def _summarize_attr_value(value: Any) -> str:
    """TF's SummarizeAttrValue for the kinds OpDef defaults and allowed lists hold."""
    kind = value.WhichOneof("value")
    if kind == "list":
        items = [protos.DataType.Name(t) for t in value.list.type] or [f'"{_c_escape(v)}"' for v in value.list.s] or \
            [str(i) for i in value.list.i] or [_short_float(f) for f in value.list.f] or \
            ["true" if b else "false" for b in value.list.b]
        return f"[{', '.join(items)}]"
    if kind == "type":
        return protos.DataType.Name(value.type)
    if kind == "shape":
        if value.shape.unknown_rank:
            return "<unknown>"
        return "[" + ",".join("?" if d.size == -1 else str(d.size) for d in value.shape.dim) + "]"
    if kind == "s":
        return f'"{_c_escape(value.s)}"'
    if kind == "b":
        return "true" if value.b else "false"
    if kind == "f":
        return _short_float(value.f)
    if kind == "i":
        return str(value.i)
    if kind == "func":
        return value.func.name
    if kind == "tensor":
        array = make_ndarray(value.tensor)
        shown = " ".join(str(v) for v in array.ravel()[:3].tolist()) + ("..." if array.size > 3 else "")
        shape = "[" + ",".join(str(d) for d in array.shape) + "]"
        return f"Tensor<type: {dtypes.type_string(dtypes.as_dtype(value.tensor.dtype))} shape: {shape} values: {shown}>"
    return text_format.MessageToString(value, as_one_line=True)


def _c_escape(data: bytes) -> str:
    """absl::CEscape: C escapes for quotes, backslash and control bytes, octal for other unprintables."""
    named = {0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x22: '\\"', 0x27: "\\'", 0x5C: "\\\\"}
    return "".join(named.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in data)


def _short_float(value: float) -> str:
    return f"{value:g}"


def _scalar_from_proto(kind: str, value: Any) -> Any:
    if kind == "type":
        return dtypes.as_dtype(value)
    if kind == "shape":
        return None if value.unknown_rank else [None if d.size == -1 else d.size for d in value.dim]
    if kind == "tensor":
        array = make_ndarray(value)
        array.flags.writeable = False
        return array
    if kind == "func":
        return value.name
    return value


def _kept_as_proto(attr: Any) -> bool:
    """Whether an AttrValue has no Python form in the IR: no value set, a `placeholder` (FunctionDefs use
    them), or a func (or list of them) carrying attrs that a bare function name would lose."""
    which = attr.WhichOneof("value")
    if which == "func":
        return bool(attr.func.attr)
    if which == "list":
        return any(f.attr for f in attr.list.func)
    return which is None or which not in _LIST_FIELDS.values()


def attr_from_proto(attr: Any) -> Any:
    """The IR value of an AttrValue (types as DType, shapes as lists, tensors as read-only arrays); one with
    no Python form is kept as an AttrValue protobuf (ours, also when given real TF's)."""
    if _kept_as_proto(attr):
        kept = protos.AttrValue()
        kept.ParseFromString(attr.SerializeToString())
        return kept
    which = attr.WhichOneof("value")
    if which == "list":
        for kind, field in _LIST_FIELDS.items():
            values = getattr(attr.list, field)
            if len(values):
                return [_scalar_from_proto(kind, v) for v in values]
        return []
    kind = next(k for k, f in _LIST_FIELDS.items() if f == which)
    return _scalar_from_proto(kind, getattr(attr, which))


def _splat_from_proto(node: Any, tensor: Any) -> tuple[np.ndarray, int] | None:
    """(value, values listed) of a splat TensorProto, or None when it lists every value.

    A splat of one value becomes a read-only stride-0 view of that value, so a node that declares a huge
    constant allocates nothing until a kernel computes with it, as TF imports it; a shape of more than
    2**63 - 1 elements is refused with TF's message.
    """
    shape = [d.size for d in tensor.tensor_shape.dim]
    if any(d < 0 for d in shape):
        return None  # make_ndarray gives NumPy's error, as TF's tensor_util does
    if math.prod(shape) > _MAX_ELEMENTS:
        raise ValueError(f"Shape [{','.join(map(str, shape))}] is too large (more than 2**63 - 1 entries) for "
                         f"'{{{{node {node.name}}}}} = {node.op}[]()' with input shapes: .")
    listed = listed_values(tensor)
    if listed >= math.prod(shape):
        return None
    if listed > 1:  # a listed prefix and a repeated tail has no view: TF's compressed constants, given in full
        return attr_from_proto(protos.AttrValue(tensor=tensor)), listed
    head = protos.TensorProto()
    head.CopyFrom(tensor)
    head.tensor_shape.Clear()
    value = np.broadcast_to(make_ndarray(head).reshape(()), shape)  # never writeable
    return value, listed


def graph_def_from_proto(proto: Any) -> GraphDef:
    """The IR GraphDef of a TF GraphDef protobuf (splat tensors remembered, so they export as TF wrote them)."""
    nodes = []
    for n in proto.node:
        attrs, splats = {}, {}
        for key, value in n.attr.items():
            splat = _splat_from_proto(n, value.tensor) if value.WhichOneof("value") == "tensor" else None
            if splat is None:
                attrs[key] = attr_from_proto(value)
            else:
                attrs[key], splats[key] = splat
        nodes.append(NodeDef(n.name, n.op, list(n.input), n.device, attrs, splats))
    library = [protos.FunctionDef.FromString(f.SerializeToString()) for f in proto.library.function]
    return GraphDef(node=nodes, producer=proto.versions.producer, library=library)


def add_default_attrs(graph_def: GraphDef) -> GraphDef:
    """The graph with each node's missing attrs set to its OpDef's defaults (TF's AddDefaultAttrsToGraphDef):
    TF's master strips default-valued attrs from the partitions it registers on a worker."""
    nodes = []
    for node in graph_def.node:
        try:
            op_def = op_registry.get(node.op).op_def
        except KeyError:  # an unknown op fails where its kernel is made
            op_def = None
        missing = [a for a in op_def.attrs if a.has_default and a.name not in node.attr] if op_def else []
        if missing:
            node = dataclasses.replace(node, attr={**node.attr, **{a.name: check_attr_value(op_def, a, None)
                                                                    for a in missing}})
        nodes.append(node)
    return GraphDef(node=nodes, producer=graph_def.producer, library=graph_def.library)


@tf_export("io.write_graph", "train.write_graph")
def write_graph(graph_or_graph_def: Any, logdir: str, name: str, as_text: bool = True) -> str:
    """Write a graph's GraphDef to `logdir/name` (text format, or binary with `as_text=False`) in one step, so
    a reader never sees half a file; returns the path."""
    graph_def = graph_or_graph_def.as_graph_def() if hasattr(graph_or_graph_def, "as_graph_def") \
        else graph_or_graph_def
    if isinstance(graph_def, GraphDef):
        graph_def = graph_def.to_proto()
    logdir = logdir.decode() if isinstance(logdir, bytes) else logdir
    if not logdir.startswith("gs:"):
        gfile.recursive_create_dir_v2(logdir)
    path = os.path.join(logdir, name)
    content = text_format.MessageToString(graph_def) if as_text \
        else graph_def.SerializeToString(deterministic=True)
    temp = f"{path}.tmp{uuid.uuid4().hex}"
    with gfile.GFile(temp, "w" if as_text else "wb") as f:
        f.write(content)
    gfile.rename_v2(temp, path, overwrite=True)
    return path
