"""`tf.import_graph_def`: a GraphDef's nodes added to the default graph, as TF's C++ importer adds them.

Nodes get TF's names (under the `import` scope by default; with `name=""` a name already in the graph is
made unique and every reference to it, `_class` colocation groups included, follows), their OpDef's default
attrs, the inputs `input_map` substitutes, the device and control-dependency scopes the import runs in,
and output shapes from our shape functions. Loops import as written: a Merge is created once one input
exists, and the inputs its loop feeds back (from NextIteration) are wired when their nodes are made; its
shape is inferred with those back edges unknown, as TF's shape refiner does.

Invariant: an import adds all of its nodes or none (an error removes those it had added), and a node never
allocates the tensor it declares beyond what its GraphDef lists (graph_io keeps splats as views).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.formats.unordered_map import unordered_map_order
from tensorweave.framework import dtypes, function_def, graph_io, op_registry, shape_inference, tensor_shape
from tensorweave.framework.graph import (
    Graph,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
    name_scope,
)
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import OpDef, arg_types, check_attr_value
from tensorweave.platform.tf_export import tf_export

_COLOCATION_PREFIX = "loc:@"


def as_ir_graph_def(graph_def: Any) -> GraphDef:
    """Our IR of a GraphDef given as the IR, as our protobuf or as real TF's (parsed from its bytes)."""
    if isinstance(graph_def, GraphDef):
        return graph_def
    if getattr(getattr(graph_def, "DESCRIPTOR", None), "full_name", None) != "tensorflow.GraphDef":
        raise TypeError("Argument `graph_def` must be a GraphDef proto.")
    if not isinstance(graph_def, protos.GraphDef):
        graph_def = protos.GraphDef.FromString(graph_def.SerializeToString())
    return graph_io.graph_def_from_proto(graph_def)


def _input_key(name: str) -> str:
    """An input_map key or node input in TF's canonical form: 'x' is 'x:0', '^x' stays."""
    if name.startswith("^"):
        return name
    node, index = parse_input(name)
    return f"{node}:{index}"


def _parse_tensor_name(name: str) -> tuple[str, int]:
    """TF's importer._ParseTensorName, which checks an input_map key or return element before the import."""
    components = name.split(":")
    if len(components) == 2:
        try:
            return components[0], int(components[1])
        except ValueError:
            raise ValueError(f"Cannot convert {name!r} to a tensor name. Second component of the name following "
                             f"the `:` should be an int. Got {components[1]}.") from None
    if len(components) == 1:
        return components[0], 0
    raise ValueError(f"Cannot convert '{name}' to a tensor name. Tensor names should not contain more than 1 `:`. "
                     f"Obtained {len(components) - 1}")


def _unmatched_input_map_key(key: str, created: dict[str, Operation]) -> bool:
    """Whether an input_map key names no node of the GraphDef, or an output its node does not have."""
    node, index = parse_input(key)
    if node not in created:
        return True
    return index >= len(created[node].outputs)


class _BackEdge:
    """A Merge input whose node does not exist yet: unknown shape for the Merge's shape function."""

    def __init__(self, dtype: Any) -> None:
        self.dtype = dtype
        self.shape = tensor_shape.unknown_shape()


def _remove_default_attrs(producer_op_list: Any, nodes: list[NodeDef]) -> None:
    """Drop attrs the producer's OpDefs did not know that still hold our default (TF's _RemoveDefaultAttrs),
    so a graph from an older producer imports where it would otherwise carry attrs it never set."""
    producer_ops = {op.name: op for op in producer_op_list.op}
    for node in nodes:
        producer = producer_ops.get(node.op)
        if producer is None or node.op not in op_registry.registered_ops():
            continue
        known = {a.name for a in producer.attr}
        op_def = op_registry.get(node.op).op_def
        for attr in op_def.attrs:
            if attr.name in node.attr and attr.name not in known and attr.has_default \
                    and node.attr[attr.name] == check_attr_value(op_def, attr, None):
                del node.attr[attr.name]


def _complete_attrs(node: NodeDef, op_def: OpDef, name: str) -> dict[str, Any]:
    """The node's attrs with its OpDef's defaults filled in, as TF's importer adds them (errors name the node
    as imported, `name`)."""
    attrs = dict(node.attr)
    missing = {attr.name for attr in op_def.attrs if attr.name not in attrs and not attr.has_default}
    if missing:  # TF names them all, in the order of its unordered_map of the op's attrs
        names = ", ".join(f"'{name}'" for name in unordered_map_order([a.name for a in op_def.attrs])
                          if name in missing)
        raise ValueError(f"NodeDef missing attr{'s' if len(missing) > 1 else ''} {names} from "
                         f"{graph_io.summarize_op_def(op_def)}; NodeDef: {{{{node {name}}}}}")
    for attr in op_def.attrs:
        if attr.name not in attrs:
            attrs[attr.name] = check_attr_value(op_def, attr, None)
            continue
        kind = _scalar_attr_kind(attrs[attr.name])
        if kind is not None and kind != attr.type and (kind, attr.type) != ("int", "float"):
            raise ValueError(f"AttrValue had value with type '{kind}' when '{attr.type}' expected\n\t for attr "
                             f"'{attr.name}'\n\t; NodeDef: {{{{node {name}}}}}; {graph_io.summarize_op_def(op_def)}")
    return attrs


def _type_string(dtype: dtypes.DType) -> str:
    """TF's DataTypeString, ref types included (`string_ref`)."""
    return dtypes.type_string(dtype) + ("_ref" if dtype._is_ref_dtype else "")


def _scalar_attr_kind(value: Any) -> str | None:
    """The AttrValue kind a plain IR value was parsed from (None for shapes, lists, tensors and the like,
    whose kind the value alone does not tell)."""
    if isinstance(value, dtypes.DType):
        return "type"
    for cls, kind in ((bool, "bool"), (bytes, "string"), (int, "int"), (float, "float")):
        if isinstance(value, cls):
            return kind
    return None


# TF's IsValidNodeName for imported nodes: pieces joined by '>', each starting with a letter, digit or dot.
_VALID_NODE_NAME = re.compile(r"[A-Za-z0-9.][A-Za-z0-9_./-]*(>[A-Za-z0-9.][A-Za-z0-9_./-]*)*\Z")


class _Importer:
    """One import: names, inputs and creation order of the GraphDef's nodes in graph `g`."""

    def __init__(self, g: Graph, nodes: list[NodeDef], prefix: str, input_map: dict[str, Tensor],
                 control_inputs: list[Operation]) -> None:
        self.g = g
        self.nodes = {n.name: n for n in nodes}
        self.order = nodes
        self.prefix = prefix
        self.input_map = input_map
        self.control_inputs = control_inputs
        self.names = {n.name: self._new_name(n.name) for n in nodes}
        self.created: dict[str, Operation] = {}
        self.back_edges: list[tuple[Operation, int, str, str]] = []

    def _new_name(self, name: str) -> str:
        return f"{self.prefix}/{name}" if self.prefix else self.g.unique_name(name)

    def _source(self, spec: str, consumer: str = "") -> Tensor | Operation | None:
        """The tensor (or, for '^x', the op) an input string of node `consumer` names, None while its node is
        not made."""
        key = _input_key(spec)
        if key in self.input_map:
            mapped = self.input_map[key]
            return mapped.op if key.startswith("^") else mapped
        name, index = parse_input(spec)
        op = self.created.get(name)
        if op is None or index < 0:
            return op
        if index >= len(op._outputs):
            raise ValueError(f"Node '{consumer}': Connecting to invalid output {index} of source node {name} which "
                             f"has {len(op._outputs)} outputs.")
        return op._outputs[index]

    def _ready(self, node: NodeDef) -> bool:
        sources = [self._source(s, node.name) for s in node.input]
        if node.op in ("Merge", "RefMerge"):  # a loop's Merge waits only for its entry
            data = [s for spec, s in zip(node.input, sources) if not spec.startswith("^")]
            return (not data or any(s is not None for s in data)) and all(
                s is not None for spec, s in zip(node.input, sources) if spec.startswith("^"))
        return all(s is not None for s in sources)

    def run(self) -> None:
        seen: set[str] = set()
        for node in self.order:  # TF's BuildNodeIndex checks, in its order
            if not _VALID_NODE_NAME.match(node.name):
                raise ValueError(f"Node '{node.name}': Node name contains invalid characters")
            if node.name in seen:
                raise ValueError(f"Node '{node.name}' is not unique")
            seen.add(node.name)
            if any(not b.startswith("^") and a.startswith("^") for a, b in zip(node.input, node.input[1:])):
                raise ValueError(f"Node '{node.name}': Control dependencies must come after regular dependencies")
        for node in self.order:
            for spec in node.input:
                if _input_key(spec) not in self.input_map and parse_input(spec)[0] not in self.nodes:
                    raise ValueError(f"Node '{node.name}': Unknown input node '{spec}'")
        pending = list(self.order)
        while pending:
            waiting = []
            for node in pending:
                if self._ready(node):
                    self._create(node)
                else:
                    waiting.append(node)
            if len(waiting) == len(pending):
                raise ValueError(f"{len(waiting)} nodes in a cycle")
            pending = waiting
        for op, index, spec, consumer in self.back_edges:
            op._update_input(index, self._source(spec, consumer))

    def _create(self, node: NodeDef) -> None:
        function = None if node.op in op_registry.registered_ops() else self.g._get_function(node.op)
        if function is not None:  # a call by name keeps the function's name as its type, as TF's
            op_def = function_def.signature_op_def(function.definition)
        else:
            try:
                op_def = op_registry.get(node.op).op_def
            except KeyError:
                raise errors.NotFoundError(None, None, op_registry.unregistered_op_message(node.op)) from None
        attrs = _complete_attrs(node, op_def, self.names[node.name])
        attrs.pop("_output_shapes", None)  # a record of the exporter's shapes: TF's importer drops it
        name = self.names[node.name]
        if "_class" in attrs:
            attrs["_class"] = [self._colocation_group(g) for g in attrs["_class"]]
        data_specs = [s for s in node.input if not s.startswith("^")]
        expected = arg_types(op_def.input_args, attrs)
        if len(expected) != len(data_specs):
            raise ValueError(f"NodeDef expected inputs '{', '.join(_type_string(t) for t in expected)}' do not match "
                             f"{len(data_specs)} inputs specified; {graph_io.summarize_op_def(op_def)}; NodeDef: "
                             f"{{{{node {name}}}}}")
        inputs, back = [], []
        for i, spec in enumerate(data_specs):
            tensor = self._source(spec, node.name)
            if tensor is None:
                back.append((i, spec))
            else:
                _check_input_type(name, i, tensor, expected[i])
            inputs.append(tensor)
        stand_in = next(t for t in inputs if t is not None) if back else None
        control = [self._source(s, node.name) for s in node.input if s.startswith("^")]
        new_node = NodeDef(name=name, op=node.op, device=node.device, attr=attrs, splats=dict(node.splats))
        op = self.g._create_op_from_node_def(
            new_node, [stand_in if t is None else t for t in inputs], arg_types(op_def.output_args, attrs),
            op_def, control_inputs=list(dict.fromkeys(control + self.control_inputs)))
        self.created[node.name] = op
        self.back_edges.extend((op, i, spec, node.name) for i, spec in back)
        shape_fn = None if function is not None else op_registry.get(node.op).shape_fn
        if shape_fn is not None:
            shape_inputs = [_BackEdge(expected[i]) if t is None else t for i, t in enumerate(inputs)]
            context = shape_inference.InferenceContext(self._node_as_built(node, op), op_def, shape_inputs,
                                                       shape_inference.PYTHON_GRAPH_VALUES)
            for t, shape in zip(op._outputs, context.run(shape_fn)):
                t._shape = shape
        called = attrs["f"] if node.op in function_def.CALL_OPS else function and function.name
        if called and not back and not attrs.get("_disable_call_shape_inference"):
            shapes = function_output_shapes(self.g, called, [t.shape for t in inputs])
            for t, shape in zip(op._outputs, shapes or ()):
                t._shape = shape

    def _node_as_built(self, node: NodeDef, op: Operation) -> NodeDef:
        """The op's NodeDef as TF's importer holds it while inferring shapes: an input taken from
        `input_map` is still spelled `name:index`, which shows in shape errors."""
        data_specs = [s for s in node.input if not s.startswith("^")]
        if not any(_input_key(s) in self.input_map for s in data_specs):
            return op._node_def
        inputs = [f"{t.op.name}:{t.value_index}" if _input_key(spec) in self.input_map else shown
                  for spec, t, shown in zip(data_specs, op.inputs, op._node_def.input)]
        return dataclasses.replace(op._node_def, input=inputs + op._node_def.input[len(inputs):])

    def _colocation_group(self, group: str | bytes) -> str:
        group = group.decode() if isinstance(group, bytes) else group
        if group.startswith(_COLOCATION_PREFIX):
            target = group[len(_COLOCATION_PREFIX):]
            if target in self.names:
                return _COLOCATION_PREFIX + self.names[target]
        return group


def function_output_shapes(g: Graph, f: Any, input_shapes: list[tensor_shape.TensorShape]
                           ) -> list[tensor_shape.TensorShape] | None:
    """The output shapes of a call of library function `f` of `g` on inputs of these shapes, from the shape
    functions of its body (TF's shape refiner infers through a call so); None when the body is not known here."""
    function = g._get_function(f if isinstance(f, str) else f.func.name)
    if function is None:
        return None
    try:
        body = function_def.function_def_to_body(function.definition, {n: lf.definition for n, lf in
                                                                          g._functions.items()})
    except (ValueError, KeyError, NotImplementedError):
        return None
    nodes = []
    for node in body.node:
        if node.op == "_Arg":
            attrs = {"dtype": node.attr["T"], "shape": input_shapes[node.attr["index"]]}
            node = NodeDef(node.name, "Placeholder", [], "", attrs)
        elif node.op == "_Retval":
            node = NodeDef(node.name, "Identity", node.input, "", {"T": node.attr["T"]})
        nodes.append(node)
    scratch = Graph()
    scratch._functions = dict(g._functions)
    try:
        with scratch.as_default():
            importer = _Importer(scratch, nodes, "", {}, [])
            importer.run()
    except (ValueError, TypeError, errors.OpError):
        return None
    by_index = {n.attr["index"]: n.name for n in body.node if n.op == "_Retval"}
    return [importer.created[by_index[i]].outputs[0].shape for i in sorted(by_index)]


def inline_function_body(g: Graph, f: str, args: list[Tensor]) -> list[Tensor]:
    """Add the body of library function `f` to `g` (the default graph's name scope) on `args`; its results.
    A backward function recomputes its forward body so."""
    function = g._get_function(f)
    if function is None:
        raise ValueError(f"Function {f} is not in the graph's library")
    body = function_def.function_def_to_body(function.definition, {n: lf.definition for n, lf in
                                                                      g._functions.items()})
    return inline_body(g, _traced_names(body, function.definition.signature), args)


def _traced_names(body: GraphDef, signature: Any) -> GraphDef:
    """The body with the nodes that FunctionDef conversion renamed `<x>_0` (a result or argument was named
    `x`, TF's C API rule) named `x` again, as in the graph it was traced from (TF differentiates that graph:
    its gradient ops are named after these)."""
    taken = {n.name for n in body.node}
    args = {a.name for a in list(signature.input_arg) + list(signature.output_arg)}
    renamed = {n.name: n.name[:-2] for n in body.node if n.op not in ("_Arg", "_Retval") and
               n.name.endswith("_0") and n.name[:-2] in args and n.name[:-2] not in taken}
    if not renamed:
        return body

    def source(spec: str) -> str:
        control, name, rest = spec.startswith("^"), *spec.lstrip("^").partition(":")[::2]
        name = renamed.get(name, name)
        return f"{'^' if control else ''}{name}{':' + rest if rest else ''}"

    nodes = [dataclasses.replace(n, name=renamed.get(n.name, n.name), input=[source(i) for i in n.input])
             for n in body.node]
    return dataclasses.replace(body, node=nodes)


def inline_body(g: Graph, body: GraphDef, args: list[Tensor]) -> list[Tensor]:
    """Add a function body (a GraphDef with a call frame) to `g` on `args`; its results."""
    mapped = {f"{n.name}:0": args[n.attr["index"]] for n in body.node if n.op == "_Arg"}
    source = copy_nodes(g, [n for n in body.node if n.op not in ("_Arg", "_Retval")], mapped)
    results = {n.attr["index"]: source(n.input[0]) for n in body.node if n.op == "_Retval"}
    return [results[i] for i in sorted(results)]


def copy_nodes(g: Graph, nodes: list[NodeDef], input_map: dict[str, Tensor]) -> Callable[[str], Any]:
    """Add `nodes` to `g` (names kept where free, outside any control dependencies), inputs named in
    `input_map` (`node:index`) read from the tensors it maps them to; what each input string names now."""
    with g.as_default(), g.control_dependencies(None):
        importer = _Importer(g, nodes, "", input_map, [])
        importer.run()
    return importer._source


def _check_input_type(node_name: str, index: int, tensor: Tensor, expected: Any) -> None:
    """TF's importer accepts a ref where a value is expected, never the other way round or another type."""
    actual = tensor.dtype
    if actual == expected or (not expected._is_ref_dtype and actual.base_dtype == expected):
        return
    raise ValueError(f"Input {index} of node {node_name} was passed {dtypes.type_string(actual)} from "
                     f"{tensor.name} incompatible with expected {dtypes.type_string(expected)}.")


def _colocate_devices(ops: list[Operation]) -> None:
    """An op with colocation groups takes the device of the first op of its groups that has one (device
    scopes do not apply to it), as TF's importer propagates devices to colocated ops."""
    g = ops[0].graph if ops else None
    for op in ops:
        groups = op._node_def.attr.get("_class")
        if not groups:
            continue
        device = ""
        for group in groups:
            target = g._ops_by_name.get(group[len(_COLOCATION_PREFIX):]) if group.startswith(
                _COLOCATION_PREFIX) else None
            if target is not None and target.device:
                device = target.device
                break
        op._set_device(device)


def _check_input_map(input_map: Any) -> dict[str, Any]:
    if input_map is None:
        return {}
    if not isinstance(input_map, Mapping):
        raise TypeError("Argument `input_map` must be a dictionary. Obtained "
                        f"{type(input_map).__name__}")
    keys = [k.decode() if isinstance(k, bytes) else k for k in input_map]
    if not all(isinstance(k, str) for k in keys):
        raise TypeError(f"All keys for argument `input_map` must be strings. Obtained keys: {list(input_map)}")
    return dict(zip(keys, input_map.values()))


def _return_element(name: str, nodes: dict[str, NodeDef], created: dict[str, Operation]) -> Any:
    if ":" in name:
        node, index = parse_input(name)
        if node not in nodes:
            raise ValueError(f"Requested return tensor '{name}' not found in graph def")
        outputs = created[node]._outputs
        if index >= len(outputs):
            raise ValueError(f"Invalid return output {index} of node '{node}', which has {len(outputs)} "
                             "output(s)")
        return outputs[index]
    if name not in nodes:
        raise ValueError(f"Requested return node '{name}' not found in graph def")
    return created[name]


@tf_export("graph_util.import_graph_def", "import_graph_def")
def import_graph_def(graph_def: Any, input_map: dict | None = None, return_elements: Iterable[str] | None = None,
                     name: str | None = None, op_dict: Any = None, producer_op_list: Any = None) -> list | None:
    """Import a GraphDef (TF's or ours) into the default graph; returns the requested ops and tensors.

    `op_dict` is ignored, as in TF (the op registry decides); `producer_op_list` removes the default attrs
    the producer did not know.
    """
    del op_dict
    ir = as_ir_graph_def(graph_def)
    input_map = _check_input_map(input_map)
    if return_elements is not None:
        if not all(isinstance(x, (str, bytes)) for x in return_elements):
            raise TypeError(f"Argument `return_elements` must be a list of strings. Obtained {return_elements}.")
        return_elements = tuple(x.decode() if isinstance(x, bytes) else x for x in return_elements)
    nodes = [NodeDef(n.name, n.op, list(n.input), n.device, dict(n.attr), dict(n.splats)) for n in ir.node]
    if producer_op_list is not None:
        _remove_default_attrs(producer_op_list, nodes)
    by_name = {n.name: n for n in nodes}
    g = get_default_graph()
    control_inputs = g._control_dependencies_for_inputs(set())
    with name_scope(name, "import", list(input_map.values())) as scope:
        mapped = {_input_key(k): v for k, v in input_map.items()}
        if not all(isinstance(v, Tensor) for v in mapped.values()):
            if not scope:
                raise ValueError("tf.import_graph_def() requires a non-empty `name` if `input_map` contains "
                                 "non-Tensor values. Try calling tf.convert_to_tensor() on `input_map` values "
                                 "before calling tf.import_graph_def().")
            with g.name_scope("_inputs"):
                mapped = {k: convert_to_tensor(v) for k, v in mapped.items()}
        for key in input_map:
            if not key.startswith("^"):
                _parse_tensor_name(key)
        for element in return_elements or ():
            if ":" in element:
                _parse_tensor_name(element)
        for element in return_elements or ():
            node = parse_input(element)[0] if ":" in element else element
            if node not in by_name:
                kind = "tensor" if ":" in element else "node"
                raise ValueError(f"Requested return {kind} '{element}' not found in graph def")
        for fdef in ir.library:  # before the nodes, which may call them; kept if the import fails, as TF's
            g._add_function(function_def.LibraryFunction(fdef))
        start = len(g._operations)
        with g.control_dependencies(None):
            importer = _Importer(g, nodes, scope[:-1] if scope.endswith("/") else scope, mapped,
                                 control_inputs)
            try:
                importer.run()
                result = None if return_elements is None else [  # a mapped tensor returns its replacement
                    mapped.get(_input_key(e)) if ":" in e and _input_key(e) in mapped
                    else _return_element(e, by_name, importer.created) for e in return_elements]
            except Exception:
                for op in reversed(g._operations_since(start)):
                    g._remove_failed_op(op)
                raise
    _colocate_devices(list(importer.created.values()))
    missing = [k for k in mapped if _unmatched_input_map_key(k, importer.created)]
    if missing:  # TF checks once the graph is in: the imported nodes stay
        raise ValueError(f"Attempted to map inputs that were not found in graph_def: [{', '.join(missing)}]")
    return result
