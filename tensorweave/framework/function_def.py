"""A graph's function library: TF's FunctionDefs, and their bodies as IR GraphDefs with a call frame.

A FunctionDef names its tensors as TF does: an argument by its name (`a`), a node's output by the node, the
output arg of its OpDef and the index within that arg (`mul:z:0`, `split:output:1`). `function_def_to_body`
turns one into the GraphDef a call runs: an `_Arg` per input argument (named as the argument), the nodes
with their inputs as flat `node:index` strings, and a `_Retval` per output (`<name>_RetVal`), as TF's
FunctionDefToBodyHelper. `graph_to_function_def` is the inverse for a function graph built in Python.

Invariant: the library keeps the FunctionDef protobufs themselves (they travel in `GraphDef.library` and
MetaGraphDefs unchanged, also when real TF wrote them); bodies are made only where a call is instantiated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from tensorweave.formats import protos
from tensorweave.framework import dtypes, graph_io, op_registry
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_def import ArgDef, OpDef, arg_types

# Ops that call a function of the library through their attrs; a node whose op is a library function's
# name calls it too (TF1's Defun calls).
CALL_OPS = frozenset({"PartitionedCall", "StatefulPartitionedCall"})


class LibraryFunction:
    """One FunctionDef of a graph's library (what TF keeps in `graph._functions`): `name`, `definition`."""

    def __init__(self, definition: Any) -> None:
        self.definition = definition

    @property
    def name(self) -> str:
        return self.definition.signature.name

    def __repr__(self) -> str:
        return f"<LibraryFunction {self.name}>"


def _output_offsets(node: NodeDef, library: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """Each output arg of the node's op: (first flat index, count)."""
    function = library.get(node.op)
    if function is not None:
        return {arg.name: (i, 1) for i, arg in enumerate(function.signature.output_arg)}
    op_def = op_registry.get(node.op).op_def
    offsets, start = {}, 0
    for arg in op_def.output_args:
        count = len(arg_types([arg], node.attr))
        offsets[arg.name] = (start, count)
        start += count
    return offsets


def _flat_input(spec: str, args: set[str], offsets: Mapping[str, dict[str, tuple[int, int]]]) -> str:
    """A FunctionDef input string as the IR's: `^n` and an argument stay, `node:arg:i` is `node:<flat>`."""
    if spec.startswith("^") or spec in args:
        return spec
    parts = spec.split(":")
    if len(parts) == 1:
        return spec
    if len(parts) != 3 or parts[0] not in offsets or parts[1] not in offsets[parts[0]]:
        raise ValueError(f"Invalid input in function body: '{spec}'")
    start, count = offsets[parts[0]][parts[1]]
    index = int(parts[2])
    if index >= count:
        raise ValueError(f"Invalid input in function body: '{spec}' (out of range)")
    flat = start + index
    return parts[0] if flat == 0 else f"{parts[0]}:{flat}"


def function_def_to_body(fdef: Any, library: Mapping[str, Any] | None = None) -> GraphDef:
    """The IR GraphDef a call of `fdef` runs (`library`: name -> FunctionDef, for nodes that call one of
    them by name, which become PartitionedCalls)."""
    library = library or {}
    signature = fdef.signature
    for arg in list(signature.input_arg) + list(signature.output_arg):
        if not arg.type:
            raise NotImplementedError(f"Function {signature.name}: argument {arg.name} has a polymorphic type")
    nodes = graph_io.graph_def_from_proto(protos.GraphDef(node=fdef.node_def)).node
    offsets = {n.name: _output_offsets(n, library) for n in nodes}  # a call's outputs are its function's
    nodes = [call_by_name(n, library) if n.op in library else n for n in nodes]
    args = {arg.name for arg in signature.input_arg}
    body = [NodeDef(arg.name, "_Arg", [], "", {"T": dtypes.as_dtype(arg.type), "index": i})
            for i, arg in enumerate(signature.input_arg)]
    for node in nodes:
        node.input = [_flat_input(spec, args, offsets) for spec in node.input]
        body.append(node)
    for i, arg in enumerate(signature.output_arg):
        source = _flat_input(fdef.ret[arg.name], args, offsets)
        body.append(NodeDef(f"{arg.name}_RetVal", "_Retval", [source], "",
                            {"T": dtypes.as_dtype(arg.type), "index": i}))
    return GraphDef(node=body)


def function_bodies(definitions: Iterable[Any], library: Iterable[Any]) -> dict[str, GraphDef]:
    """The bodies of the FunctionDefs that have one here (name -> GraphDef), as a session's library takes
    them; one that does not (a polymorphic signature, an op we lack) fails where it is called."""
    by_name = {f.signature.name: f for f in library}
    bodies = {}
    for fdef in definitions:
        try:
            bodies[fdef.signature.name] = function_def_to_body(fdef, by_name)
        except (ValueError, KeyError, NotImplementedError):
            continue
    return bodies


def _called(nodes: Iterable[Any], library: Mapping[str, Any]) -> Iterator[str]:
    """The names of the functions the NodeDef protobufs `nodes` call: by op name, or in a func attr."""
    for node in nodes:
        if node.op in library:
            yield node.op
        for value in node.attr.values():
            if value.HasField("func"):
                yield value.func.name
            elif value.HasField("list"):
                yield from (f.name for f in value.list.func)


def reachable_definitions(nodes: Iterable[Any], library: Mapping[str, Any]) -> list[Any]:
    """The FunctionDefs of `library` (name -> FunctionDef) that the NodeDef protobufs `nodes` call, directly
    or through other functions: the library TF's master sends with a partition (only what it reaches)."""
    reached: dict[str, Any] = {}
    pending = list(_called(nodes, library))
    while pending:
        name = pending.pop()
        if name not in reached and name in library:
            reached[name] = library[name]
            pending.extend(_called(library[name].node_def, library))
    return list(reached.values())


def call_by_name(node: NodeDef, library: Mapping[str, Any]) -> NodeDef:
    """A node whose op is a library function (TF1's call by name, what `Defun` builds) as the PartitionedCall
    it means, keeping its internal `_` attrs (`_disable_call_shape_inference`)."""
    signature = library[node.op].signature
    attrs = {"f": node.op, "Tin": [dtypes.as_dtype(a.type) for a in signature.input_arg],
             "Tout": [dtypes.as_dtype(a.type) for a in signature.output_arg], "config": b"",
             "config_proto": b"", "executor_type": b""}
    attrs.update({k: v for k, v in node.attr.items() if k.startswith("_")})
    call = "StatefulPartitionedCall" if _is_stateful(library[node.op]) else "PartitionedCall"
    return NodeDef(node.name, call, node.input, node.device, attrs)


def calls_by_name(nodes: Sequence[NodeDef], library: Mapping[str, Any]) -> list[NodeDef]:
    """`nodes` with each call of a library function by name (an op that is not registered) as its
    PartitionedCall: what a session runs of a graph that keeps TF's call-by-name nodes."""
    registered = op_registry.registered_ops()
    return [call_by_name(n, library) if n.op in library and n.op not in registered else n for n in nodes]


def _is_stateful(fdef: Any) -> bool:
    return fdef.signature.is_stateful or any(
        op.op_def.is_stateful for n in fdef.node_def if (op := op_registry.registered_ops().get(n.op)) is not None)


def signature_op_def(fdef: Any) -> OpDef:
    """The OpDef of a node that calls `fdef` by name (TF1's Defun call): the signature's arguments."""
    signature = fdef.signature
    inputs = tuple(ArgDef(a.name, dtypes.as_dtype(a.type)) for a in signature.input_arg)
    outputs = tuple(ArgDef(a.name, dtypes.as_dtype(a.type)) for a in signature.output_arg)
    return OpDef(signature.name, inputs, outputs, (), _is_stateful(fdef))


def normalized_name(name: str) -> str:
    """An argument or output name from an op name, as TF's C API makes them: lower case, `_` for the rest."""
    return re.sub(r"[^a-z0-9_]", "_", name.lower())


def _unique(name: str, used: dict[str, int]) -> str:
    """`name`, or the first free `name_<k>` (k counting from 0 per name): TF's NodeNameMapping."""
    if name not in used:
        used[name] = 0
        return name
    while True:
        candidate = f"{name}_{used[name]}"
        used[name] += 1
        if candidate not in used:
            used[candidate] = 0
            return candidate


def graph_to_function_def(name: str, operations: Iterable[Any], inputs: Sequence[Any], outputs: Sequence[Any],
                          control_outputs: Sequence[Any] = ()) -> Any:
    """The FunctionDef of a function graph: `inputs` (its placeholders' tensors) are the arguments, `outputs`
    the results, every other op a node (inputs in TF's `node:arg:index` form). Names are made unique as TF's
    C API does: the results first, then the arguments, then the nodes (a node may be renamed `mul_0`)."""
    fdef = protos.FunctionDef()
    fdef.signature.name = name
    used: dict[str, int] = {}
    out_names = [_unique(normalized_name(tensor.op.name), used) for tensor in outputs]
    arg_of = {}
    for i, tensor in enumerate(inputs):
        arg = fdef.signature.input_arg.add(name=_unique(normalized_name(tensor.op.name), used),
                                           type=tensor.dtype.base_dtype.as_datatype_enum)
        arg_of[tensor.op] = arg.name
        shape = tensor.shape
        attrs = fdef.arg_attr[i].attr
        attrs["_output_shapes"].CopyFrom(graph_io.attr_to_proto("list(shape)", [shape]))
        attrs["_user_specified_name"].s = tensor.op.name.encode()
    operations = [op for op in operations if op not in arg_of]
    renamed = {op: _unique(op.name, used) for op in operations}

    def tensor_ref(tensor: Any) -> str:
        if tensor.op in arg_of:
            return arg_of[tensor.op]
        return f"{renamed[tensor.op]}:{_output_arg_of(tensor)}"

    for op in operations:
        node = graph_io.node_def_to_proto(op._node_def)
        node.ClearField("experimental_type")
        node.name = renamed[op]
        del node.input[:]
        node.input.extend([tensor_ref(t) for t in op.inputs] + sorted(f"^{renamed[c]}" for c in op.control_inputs))
        fdef.node_def.append(node)
    for tensor, out in zip(outputs, out_names):
        fdef.signature.output_arg.add(name=out, type=tensor.dtype.base_dtype.as_datatype_enum)
        fdef.ret[out] = tensor_ref(tensor)
    for op in sorted(control_outputs, key=lambda op: op.name):
        fdef.signature.control_output.append(op.name)
        fdef.control_ret[op.name] = renamed[op]
    fdef.signature.is_stateful = any(op._op_def is not None and op._op_def.is_stateful for op in operations)
    fdef.attr["_construction_context"].s = b"kEagerRuntime"
    return fdef


def _output_arg_of(tensor: Any) -> str:
    """`arg:index` of a tensor within its op's output args (`z:0`, `output:1`)."""
    node = tensor.op._node_def
    for arg_name, (start, count) in _output_offsets(node, {}).items():
        if start <= tensor.value_index < start + count:
            return f"{arg_name}:{tensor.value_index - start}"
    raise ValueError(f"No output arg holds {tensor.name}")

