"""`tf.graph_util`: GraphDef-to-GraphDef rewrites for deployment (freeze, extract, strip training nodes).

Every function takes and returns TF GraphDef protobufs (ours; real TF's are accepted where a graph is read),
never touches the Python graph except `tensor_shape_from_node_def_name`, and leaves its input unchanged.
`convert_variables_to_constants` reads the variables' values through the session it is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tensorweave.formats import protos
from tensorweave.formats.tensor_proto import make_tensor_proto
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Operation
from tensorweave.framework.graph_def import parse_input
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_VARIABLE_OPS = frozenset({"Assign", "AssignAdd", "AssignSub", "Queue", "ScatterAdd", "ScatterSub",
                           "ScatterUpdate", "TruncatedNormal", "Variable", "VariableV2"})
_CPU_TYPED_OPS = {"Const": "dtype", "DynamicStitch": "T", "ParallelDynamicStitch": "T", "Cast": "SrcT"}


def _node_name(spec: str) -> str:
    return parse_input(spec)[0]


def _as_our_graph_def(graph_def: Any) -> Any:
    if getattr(getattr(graph_def, "DESCRIPTOR", None), "full_name", None) != "tensorflow.GraphDef":
        raise TypeError(f"graph_def must be a graph_pb2.GraphDef proto, but got type {type(graph_def)}.")
    if isinstance(graph_def, protos.GraphDef):
        return graph_def
    return protos.GraphDef.FromString(graph_def.SerializeToString())


@tf_export("graph_util.must_run_on_cpu")
def must_run_on_cpu(node: Any, pin_variables_on_cpu: bool = False) -> bool:
    """Whether a node (Operation or NodeDef) has to live on the CPU: int32 and string constants, int32
    stitches and casts from int32 (TF keeps int32 tensors in host memory), and variables if pinned."""
    node_def = node.node_def if isinstance(node, Operation) else node
    if pin_variables_on_cpu and node_def.op in _VARIABLE_OPS:
        return True
    attr = _CPU_TYPED_OPS.get(node_def.op)
    if attr is None:
        return False
    dtype = node_def.attr[attr].type
    return dtype == dtypes.int32.as_datatype_enum or (node_def.op == "Const"
                                                      and dtype == dtypes.string.as_datatype_enum)


@tf_export("graph_util.extract_sub_graph")
def extract_sub_graph(graph_def: Any, dest_nodes: Iterable[str]) -> Any:
    """The nodes `dest_nodes` need (through data and control inputs), in the graph's order, with its
    library and versions."""
    graph_def = _as_our_graph_def(graph_def)
    if isinstance(dest_nodes, str):
        raise TypeError(f"dest_nodes must be an iterable of strings, but got type {type(dest_nodes)}.")
    nodes = {n.name: n for n in graph_def.node}
    for name in dest_nodes:
        assert name in nodes, f"{name} is not in graph"  # noqa: S101 - TF's error is this AssertionError
    keep, pending = set(), list(dest_nodes)
    while pending:
        name = pending.pop()
        if name not in keep:
            keep.add(name)
            pending.extend(_node_name(i) for i in nodes[name].input)
    out = protos.GraphDef(node=[n for n in graph_def.node if n.name in keep])
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


@tf_export("graph_util.tensor_shape_from_node_def_name")
def tensor_shape_from_node_def_name(graph: Any, input_name: str) -> tensor_shape.TensorShape:
    """The static shape of a tensor named as a node ('x', meaning 'x:0') or a tensor ('x:1')."""
    name = input_name if ":" in input_name else input_name + ":0"
    return graph.get_tensor_by_name(name).get_shape()


@tf_export("graph_util.remove_training_nodes")
def remove_training_nodes(input_graph: Any, protected_nodes: Iterable[str] | None = None) -> Any:
    """The graph without what only training needs: CheckNumerics nodes are dropped and Identity nodes
    spliced out, except protected ones, colocation targets and Identities on either end of a control edge."""
    protected = set(protected_nodes or ())
    dropped = {n.name for n in input_graph.node if n.op == "CheckNumerics" and n.name not in protected}
    kept = []
    for node in input_graph.node:
        if node.name not in dropped:
            copy = protos.NodeDef()
            copy.CopyFrom(node)
            del copy.input[:]
            copy.input.extend(i for i in node.input if i.lstrip("^") not in dropped)
            kept.append(copy)
    control_sources = {i[1:] for n in kept for i in n.input if i.startswith("^")}
    with_control_inputs = {n.name for n in kept if any(i.startswith("^") for i in n.input)}
    colocation_targets = {(s.decode() if isinstance(s, bytes) else s).removeprefix("loc:@")
                          for n in kept if "_class" in n.attr for s in n.attr["_class"].list.s}
    spliced = {n.name: n.input[0] for n in kept
               if n.op == "Identity" and n.name not in protected | colocation_targets | with_control_inputs
               | control_sources}
    out = protos.GraphDef()
    for node in kept:
        if node.name in spliced:
            continue
        inputs = []
        for spec in node.input:
            while spec.lstrip("^") in spliced:
                spec = spliced[spec.lstrip("^")]
            inputs.append(spec)
        del node.input[:]
        node.input.extend(inputs)
        out.node.append(node)
    return out


@tf_export("graph_util.convert_variables_to_constants")
def convert_variables_to_constants(sess: Any, input_graph_def: Any, output_node_names: list[str],
                                   variable_names_whitelist: Iterable[str] | None = None,
                                   variable_names_blacklist: Iterable[str] | None = None) -> Any:
    """The subgraph that computes `output_node_names` with each variable it reads (all, or those the lists
    allow) replaced by a Const of its current value in `sess`: a frozen graph that needs no checkpoint.

    As TF's converter: a resource variable's reads become Identities (gathers become GatherV2/GatherNd), and
    the control-flow nodes a handle passes through (Switch, Enter, Merge ...) take the variable's dtype."""
    graph_def = extract_sub_graph(input_graph_def, output_node_names)
    allowed = set(variable_names_whitelist) if variable_names_whitelist is not None else None
    denied = set(variable_names_blacklist or ())
    variables = [n for n in graph_def.node if n.op in ("Variable", "VariableV2", "VarHandleOp")
                 and (allowed is None or n.name in allowed) and n.name not in denied]
    fetches = [n.name + ("/Read/ReadVariableOp:0" if n.op == "VarHandleOp" else ":0") for n in variables]
    values = sess.run(fetches) if fetches else []
    out = protos.GraphDef()
    out.CopyFrom(graph_def)
    _Freezer(out).freeze({n.name: (value, n.attr["dtype"].type) for n, value in zip(variables, values)})
    tf_logging.info("Froze %d variables.", len(values))
    return out


# Nodes that pass a variable's handle or value on unchanged: their `T` becomes the variable's dtype.
_PASS_THROUGH_OPS = frozenset({"Enter", "Exit", "Identity", "NextIteration", "Switch", "_SwitchN", "Merge"})


class _Freezer:
    """Rewrites a GraphDef in place, following each frozen variable's outgoing edges (TF's
    convert_to_constants over the main graph; function bodies are left as they are)."""

    def __init__(self, graph_def: Any) -> None:
        self._graph_def = graph_def
        self._nodes = {n.name: n for n in graph_def.node}
        self._consumers: dict[str, list[tuple[Any, int]]] = {}
        for node in graph_def.node:
            for index, spec in enumerate(node.input):
                if not spec.startswith("^"):
                    self._consumers.setdefault(_node_name(spec), []).append((node, index))

    def freeze(self, values: dict[str, tuple[Any, int]]) -> None:
        for name, (value, dtype) in values.items():
            node = self._nodes[name]
            node.Clear()
            node.name, node.op = name, "Const"
            node.attr["dtype"].type = dtype
            node.attr["value"].tensor.CopyFrom(make_tensor_proto(value, dtypes.as_dtype(dtype)))
            self._follow(name, dtype)

    def _follow(self, name: str, dtype: int) -> None:
        for node, index in self._consumers.get(name, ()):
            if node.op in _PASS_THROUGH_OPS:
                _set_type(node, 0 if node.op == "Merge" else index, dtype)
                if "_output_shapes" in node.attr:
                    del node.attr["_output_shapes"]
                self._follow(node.name, dtype)
            elif node.op == "ReadVariableOp":
                _rewrite(node, "Identity", [node.input[0]], T=node.attr["dtype"])
            elif node.op == "ResourceGather":
                self._gather_v2(node)
            elif node.op == "ResourceGatherNd":
                _rewrite(node, "GatherNd", list(node.input[:2]), Tparams=node.attr["dtype"],
                         Tindices=node.attr["Tindices"])

    def _gather_v2(self, node: Any) -> None:
        if node.attr["batch_dims"].i != 0:
            raise ValueError(f"batch_dims must be 0 for freeze_graph, but got node({node.name}).attr('batch_dims')"
                             f" = {node.attr['batch_dims'].i}.")
        indices_type = protos.AttrValue()
        indices_type.CopyFrom(node.attr["Tindices"])
        axis_name = node.name + "/axis"
        if axis_name not in self._nodes:
            axis = self._nodes[axis_name] = self._graph_def.node.add(name=axis_name, op="Const")
            axis.attr["dtype"].CopyFrom(indices_type)
            axis.attr["value"].tensor.CopyFrom(make_tensor_proto(0, dtypes.as_dtype(indices_type.type)))
        _rewrite(node, "GatherV2", [*node.input[:2], axis_name], Tparams=node.attr["dtype"], Tindices=indices_type,
                 Taxis=indices_type)


def _set_type(node: Any, index: int, dtype: int) -> None:
    """TF's update_dtype: entry `index` of the node's `T` (a type, or a list of them)."""
    attr = node.attr["T"]
    if attr.HasField("list") and len(attr.list.type) > index:
        attr.list.type[index] = dtype
    elif attr.HasField("type") and index == 0:
        attr.type = dtype
    else:
        count = len(attr.list.type) if attr.HasField("list") else int(attr.HasField("type"))
        raise ValueError(f"`index` {index:d} is out of range for node({node.name}).attr(T), which has "
                         f"{count:d} elements.")


def _rewrite(node: Any, op: str, inputs: list[str], **attrs: Any) -> None:
    """Replace the node by `op` on `inputs` with `attrs`, keeping its name and colocation (and nothing else)."""
    kept = {key: protos.AttrValue() for key in attrs}
    for key, value in attrs.items():
        kept[key].CopyFrom(value)
    colocation = protos.AttrValue()
    if "_class" in node.attr:
        colocation.CopyFrom(node.attr["_class"])
    name = node.name
    node.Clear()
    node.name, node.op = name, op
    node.input.extend(inputs)
    for key, value in kept.items():
        node.attr[key].CopyFrom(value)
    if colocation.ByteSize():
        node.attr["_class"].CopyFrom(colocation)
