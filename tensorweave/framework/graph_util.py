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
    allow) replaced by a Const of its current value in `sess`: a frozen graph that needs no checkpoint."""
    graph_def = extract_sub_graph(input_graph_def, output_node_names)
    allowed = set(variable_names_whitelist) if variable_names_whitelist is not None else None
    denied = set(variable_names_blacklist or ())
    variables = [n.name for n in graph_def.node if n.op in ("Variable", "VariableV2")
                 and (allowed is None or n.name in allowed) and n.name not in denied]
    values = dict(zip(variables, sess.run([name + ":0" for name in variables]))) if variables else {}
    out = protos.GraphDef()
    for node in graph_def.node:
        if node.name in values:
            const = out.node.add(name=node.name, op="Const", device=node.device)
            const.attr["dtype"].CopyFrom(node.attr["dtype"])
            const.attr["value"].tensor.CopyFrom(make_tensor_proto(values[node.name]))
        else:
            out.node.add().CopyFrom(node)
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    tf_logging.info("Froze %d variables.", len(values))
    return out
