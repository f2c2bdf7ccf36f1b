"""Graph optimizations of a step's graph, as TF's GraphOptimizer at its default L1 level: constant
folding, common-subexpression elimination and dead-node removal before partitioning, and, after it,
Recv scheduling (`GraphOptions.enable_recv_scheduling`); and the rewrite of Grappler's dependency optimizer
that matters most to training steps: a node whose outputs nothing reads becomes a NoOp.

A node whose data inputs are all constants, that is not stateful, touches no ref and has no control
inputs, computes the same value in every step: it is evaluated once here and replaced by a Const of the
same name (TF folds the same set, up to 10 MiB per tensor). Stateful ops (variables, random ops, queues)
are never folded, so every step still runs them. A node whose kernel fails is left as it is, so the error
surfaces in the step, naming the node, as it would without folding.

A floating-point division by a constant (RealDiv, Div, Xdivy whose divisor is a Const of the step) becomes a
multiplication by the divisor's reciprocal, folded into a Const named `ConstantFolding/<node>_recip` (an Xdivy
a MulNoNan): Grappler's constant folding makes this strength reduction, so `x / 3.0` gives `x * (1 / 3.0)`'s
values in TF, which differ from the quotient's in the last bit for a third of all x.

A MatMul or an NHWC Conv2D whose output only a BiasAdd reads (or an Add of a vector the graph fixes to the
output's depth: a constant's or variable's, as the oneDNN remapper of TF's x86 builds takes it for a bias),
and a bias sum only an activation (Relu, Relu6, Elu, LeakyRelu) reads, become one `_FusedMatMul` or
`_FusedConv2D` named as the last of them, as Grappler's remapper fuses them (float only): one kernel that adds
the bias into the new output in place. In a training graph, an activation whose gradient reads its input
(Relu6, LeakyRelu) leaves the bias sum a second reader: only the bias fuses there, as in TF.

A ReluGrad of a MaxPoolGrad that only it reads, whose features are the pooling's input (the gradient of
relu then max_pool), becomes the MaxPoolGrad of the ReluGrad of the pooled gradient by the pooled output:
each window's gradient goes to its first maximum, whose value is the window's output, so masking by the output
before routing gives the same values bit for bit, on a quarter of the elements for a 2x2 pool (the names
swap: the MaxPoolGrad takes the ReluGrad's, which a reader or a fetch asks for).

A node reached only through control edges (the gradient of an input nobody asked for, which a gradient
tuple's group still waits on) computes a value no one reads: unless it has side effects, moves values
between frames, or exists to fail (Assert, CheckNumerics), it becomes a NoOp waiting on its inputs, as
Grappler's dependency optimizer rewrites it, so what waited on it still waits on them (and is dead where it
was), and its own inputs may in turn become unread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import arg_types
from tensorweave.framework.op_kernel import OpKernel

MAX_CONSTANT_BYTES = 10 * 1024 * 1024
# Control-flow ops move values between frames and decide liveness: TF never folds them either.
_NEVER_FOLDED = {"Const", "_Arg", "_Retval", "Placeholder", "PlaceholderWithDefault", "Enter", "RefEnter", "Exit",
                 "RefExit", "NextIteration", "RefNextIteration", "LoopCond", "Switch", "RefSwitch", "Merge",
                 "RefMerge", "ControlTrigger"}
# Equal constants are one; every feed point and every NoOp (a target, a group) stays as written.
_NEVER_MERGED = (_NEVER_FOLDED - {"Const"}) | {"NoOp"}
# Run for their errors or their frames even when their values go unread (Grappler's do_not_rewrite_ops).
_NEVER_NOOP = _NEVER_FOLDED | {"NoOp", "Assert", "CheckNumerics"}
_TOGGLE_OFF = 2  # RewriterConfig.Toggle.OFF


def constant_folding_enabled(config: Any) -> bool:
    """TF's rule: opt_level L1 (the default) folds; L0 folds only if do_constant_folding is set."""
    return _enabled(config, "do_constant_folding")


def cse_enabled(config: Any) -> bool:
    """TF's rule: opt_level L1 (the default) eliminates common subexpressions; L0 only if
    do_common_subexpression_elimination is set."""
    return _enabled(config, "do_common_subexpression_elimination")


def dependency_optimization_enabled(config: Any) -> bool:
    """Grappler's rule: on unless RewriterConfig turns dependency_optimization off or disables the meta
    optimizer."""
    return _grappler_enabled(config, "dependency_optimization")


def grappler_constant_folding_enabled(config: Any) -> bool:
    """Grappler's rule: on unless RewriterConfig turns constant_folding off or disables the meta optimizer."""
    return _grappler_enabled(config, "constant_folding")


def remapping_enabled(config: Any) -> bool:
    """Grappler's rule: on unless RewriterConfig turns remapping off or disables the meta optimizer."""
    return _grappler_enabled(config, "remapping")


def _grappler_enabled(config: Any, toggle: str) -> bool:
    rewrite = getattr(getattr(config, "graph_options", None), "rewrite_options", None)
    if rewrite is None:
        return True
    return not rewrite.disable_meta_optimizer and getattr(rewrite, toggle) != _TOGGLE_OFF


@dataclasses.dataclass(frozen=True)
class StepOptimizations:
    """Which of a step's graph optimizations a session's config turns on (TF's defaults: all)."""

    fold_constants: bool
    cse: bool
    dependency_optimization: bool
    remapping: bool = True
    reciprocal_multiplication: bool = True

    @classmethod
    def from_config(cls, config: Any) -> StepOptimizations:
        return cls(constant_folding_enabled(config), cse_enabled(config), dependency_optimization_enabled(config),
                   remapping_enabled(config), grappler_constant_folding_enabled(config))

    def apply(self, graph_def: GraphDef, targets: Collection[str], device: DeviceBase) -> GraphDef:
        """A pruned step graph optimized in TF's order (the local session's and the distributed master's):
        constants folded on `device`, divisions by constants made multiplications, common subexpressions merged, unread values made NoOps, dead nodes
        removed, MatMuls and convolutions fused with their BiasAdds; `targets` run as written."""
        if self.fold_constants:
            graph_def = fold_constants(graph_def, device)
        if self.reciprocal_multiplication:
            graph_def = divide_by_reciprocal_multiplication(graph_def, device)
        if self.cse:
            graph_def = eliminate_common_subexpressions(graph_def, targets)
        if self.dependency_optimization:
            graph_def = convert_unread_to_noops(graph_def, targets)
        graph_def = remove_dead_nodes(graph_def, targets)
        if not self.remapping:
            return graph_def
        return fuse_contraction_bias(mask_before_pool_gradient(graph_def, targets), targets)


def _enabled(config: Any, flag: str) -> bool:
    options = getattr(getattr(config, "graph_options", None), "optimizer_options", None)
    if options is None:
        return True
    return getattr(options, "opt_level", 0) >= 0 or bool(getattr(options, flag, False))


def fold_constants(graph_def: GraphDef, device: DeviceBase) -> GraphDef:
    """The graph with every foldable node replaced by a Const holding its value (a node of several outputs by
    a Const per output, which its readers then read; the node stays for whatever waits on it).

    A Const in a cond branch or a loop body waits on the branch's or the loop's pivot (a control input): what
    is folded from it keeps every such gate, its own control inputs and its inputs', so the new Const is dead,
    and runs in its frame, exactly where the node did (Grappler's folding inside loops)."""
    values: dict[str, tuple[Any, list[str]]] = {
        n.name: (n.attr["value"], list(n.input)) for n in graph_def.node
        if n.op == "Const" and all(spec.startswith("^") for spec in n.input)}
    out, renamed = [], {}
    for node in graph_def.node:
        folded = _fold(node, values, device)
        if folded is None:
            out.append(node)
            continue
        outputs, gates = folded
        if len(outputs) == 1:
            values[node.name] = (outputs[0], gates)
            out.append(_folded_const(node.name, outputs[0], gates, node.device))
            continue
        out.append(node)
        for i, value in enumerate(outputs):
            name = f"ConstantFolding/{node.name}-folded-{i}"
            values[name] = (value, gates)
            renamed[f"{node.name}:{i}" if i else node.name] = name
            out.append(_folded_const(name, value, gates, node.device))
    if renamed:
        out = [_reading_folded(n, renamed) for n in out]
    return GraphDef(node=out, producer=graph_def.producer)


def _reading_folded(node: NodeDef, folded: dict[str, str]) -> NodeDef:
    """`node` reading the Consts folded from outputs it reads (`folded`: output spec -> Const name)."""
    inputs = [folded.get(spec[:-2] if spec.endswith(":0") else spec, spec) for spec in node.input]
    return node if inputs == node.input else dataclasses.replace(node, input=inputs)


def _folded_const(name: str, value: Any, gates: list[str], device: str) -> NodeDef:
    return NodeDef(name, "Const", gates, device, {"value": value, "dtype": dtypes.as_dtype(value.dtype)})


def _fold(node: NodeDef, values: dict[str, tuple[Any, list[str]]], device: DeviceBase) -> tuple | None:
    """The node's constant outputs and the control inputs they keep, or None when it cannot or should not be
    folded."""
    if node.op in _NEVER_FOLDED or not node.input:
        return None
    inputs, gates = [], []
    for spec in node.input:
        if spec.startswith("^"):
            gates.append(spec)
            continue
        name, index = parse_input(spec)
        if index != 0 or name not in values:
            return None
        value, its_gates = values[name]
        inputs.append(value)
        gates.extend(its_gates)
    try:
        op = op_registry.get(node.op)
    except KeyError:
        return None
    kernel = op.find_kernel(device.device_type, node.attr)
    if kernel is None or kernel.asynchronous or op.op_def.is_stateful:
        return None
    out_types = arg_types(op.op_def.output_args, node.attr)
    types = arg_types(op.op_def.input_args, node.attr) + out_types
    if len(types) != len(inputs) + len(out_types) or any(t._is_ref_dtype or t in (dtypes.resource, dtypes.variant)
                                                         for t in types):  # a variant is no array for a Const
        return None
    try:
        folding = OpKernel(kernel, node, device)
        folding.folding = True
        outputs = folding.compute(inputs)
    except errors.OpError:  # including one that cannot allocate: the step reports it
        return None
    outputs = [device.xp.asarray(value) for value in outputs]
    if len(outputs) != len(out_types) or sum(value.nbytes for value in outputs) > MAX_CONSTANT_BYTES:
        return None
    for value in outputs:
        value.flags.writeable = False
    return outputs, list(dict.fromkeys(gates))


_DIVISIONS = {"RealDiv": "Mul", "Div": "Mul", "Xdivy": "MulNoNan"}


def divide_by_reciprocal_multiplication(graph_def: GraphDef, device: DeviceBase) -> GraphDef:
    """The graph with each floating-point division by a Const made a multiplication by the Const's reciprocal
    (Grappler's ReduceDivToReciprocalMul): a `Reciprocal` of the divisor, folded where it can be; an Xdivy
    becomes MulNoNan(reciprocal, x), which is zero where x is."""
    nodes = {node.name: node for node in graph_def.node}
    out = []
    for node in graph_def.node:
        multiply = _DIVISIONS.get(node.op)
        divisor = nodes.get(parse_input(node.input[1])[0]) if multiply and len(node.input) >= 2 else None
        dtype = node.attr.get("T")
        if divisor is None or divisor.op != "Const" or dtype is None or not (dtype.is_floating or dtype.is_complex):
            out.append(node)
            continue
        recip = NodeDef(f"ConstantFolding/{node.name}_recip", "Reciprocal", [node.input[1]], node.device,
                        {"T": dtype})
        folded = None if divisor.input else _fold(recip, {divisor.name: (divisor.attr["value"], [])}, device)
        value = None if folded is None else folded[0][0]
        if value is not None and value.dtype in (np.float32, np.float64):
            # TF folds with its CPU threads' flush-to-zero: a reciprocal below the normal range is zero
            value = np.where(np.abs(value) < np.finfo(value.dtype).tiny, np.copysign(0, value).astype(value.dtype),
                             value)
        if value is not None:
            recip = NodeDef(recip.name, "Const", [], node.device, {"value": value, "dtype": dtype})
        inputs = [recip.name, node.input[0]] if node.op == "Xdivy" else [node.input[0], recip.name]
        out += [recip, dataclasses.replace(node, op=multiply, input=inputs + node.input[2:])]
    return GraphDef(node=out, producer=graph_def.producer)


def eliminate_common_subexpressions(graph_def: GraphDef, keep: Collection[str] = ()) -> GraphDef:
    """The graph with each stateless node that repeats an earlier one (same op, device, attrs, data inputs
    in order and control inputs as a set) removed and its consumers reading the earlier one. Stateful ops
    (variables, random ops, queues), control-flow ops, nodes touching refs or resources, and the nodes in
    `keep` (a step's targets) are never merged: each must run as written."""
    seen: dict[tuple, str] = {}
    renamed: dict[str, str] = {}
    out = []
    for node in graph_def.node:
        node = _renamed_inputs(node, renamed)
        key = _cse_key(node) if node.name not in keep else None
        if key is not None:
            first = seen.setdefault(key, node.name)
            if first != node.name:
                renamed[node.name] = first
                continue
        out.append(node)
    out = [_renamed_inputs(node, renamed) for node in out]  # inputs read before their producer (back edges)
    return GraphDef(node=out, producer=graph_def.producer)


def _renamed_inputs(node: NodeDef, renamed: dict[str, str]) -> NodeDef:
    if not renamed:
        return node
    inputs = []
    for spec in node.input:
        name, index = parse_input(spec)
        if name in renamed:
            spec = "^" + renamed[name] if index < 0 else (renamed[name] if index == 0 else f"{renamed[name]}:{index}")
        inputs.append(spec)
    if inputs == node.input:
        return node
    if len(set(i for i in inputs if i.startswith("^"))) != sum(1 for i in inputs if i.startswith("^")):
        inputs = [i for n, i in enumerate(inputs) if not i.startswith("^") or i not in inputs[:n]]
    return dataclasses.replace(node, input=inputs)


def _cse_key(node: NodeDef) -> tuple | None:
    """What makes two nodes compute the same value, or None when the node must not be merged."""
    if node.op in _NEVER_MERGED:
        return None
    op = op_registry.registered_ops().get(node.op)
    if op is None or op.op_def.is_stateful or _touches_refs(op, node):
        return None
    data = tuple(spec for spec in node.input if not spec.startswith("^"))
    control = frozenset(spec for spec in node.input if spec.startswith("^"))
    try:
        attrs = tuple(sorted((name, _hashable(value)) for name, value in node.attr.items()))
        hash(attrs)
    except TypeError:
        return None
    return node.op, node.device, data, control, attrs


def _hashable(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.dtype.str, value.shape, value.tobytes()
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def convert_unread_to_noops(graph_def: GraphDef, keep: Collection[str] = ()) -> GraphDef:
    """The graph with each side-effect-free node whose outputs only control edges consume made a NoOp on
    its inputs (see the module docstring); `keep` (a step's targets) stays as written."""
    nodes = {node.name: node for node in graph_def.node}
    readers = dict.fromkeys(nodes, 0)
    for node in graph_def.node:
        for spec in node.input:
            name, index = parse_input(spec)
            if index >= 0 and name in readers:
                readers[name] += 1
    converted: dict[str, NodeDef] = {}
    pending = [name for name, count in readers.items() if count == 0]
    while pending:
        name = pending.pop()
        node = nodes[name]
        if name in converted or name in keep or not _free_of_side_effects(node, nodes):
            continue
        inputs = []
        for spec in node.input:
            source, index = parse_input(spec)
            if index >= 0 and source in readers:
                readers[source] -= 1
                if readers[source] == 0:
                    pending.append(source)
            control = "^" + source
            if control not in inputs:
                inputs.append(control)
        converted[name] = NodeDef(name, "NoOp", inputs, node.device, {})
    if not converted:
        return graph_def
    return GraphDef(node=[converted.get(node.name, node) for node in graph_def.node], producer=graph_def.producer)


def _free_of_side_effects(node: NodeDef, nodes: dict[str, NodeDef]) -> bool:
    """Whether computing the node only makes its outputs (TF's IsFreeOfSideEffect, less what never becomes
    a NoOp): stateless, no refs or resources, at least one output, and no data input from a Switch (whose
    untaken output makes its consumer dead, while a control edge from the Switch itself is live: a branch
    pivot must stay)."""
    if node.op in _NEVER_NOOP:
        return False
    op = op_registry.registered_ops().get(node.op)
    if op is None or op.op_def.is_stateful or not op.op_def.output_args or _touches_refs(op, node):
        return False
    for spec in node.input:
        source, index = parse_input(spec)
        if index >= 0 and source in nodes and nodes[source].op in ("Switch", "RefSwitch"):
            return False
    return True


def _touches_refs(op: Any, node: NodeDef) -> bool:
    """Whether the node reads or writes a ref or resource (or its types cannot be told)."""
    try:
        types = arg_types(op.op_def.input_args, node.attr) + arg_types(op.op_def.output_args, node.attr)
    except KeyError:
        return True
    return any(t._is_ref_dtype or t == dtypes.resource for t in types)


_FUSED_ACTIVATIONS = frozenset({"Relu", "Relu6", "Elu", "LeakyRelu"})
# The conv attrs a fused convolution keeps (Grappler's CopyConv2DAttributes)
_CONV_ATTRS = ("strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu")


def fuse_contraction_bias(graph_def: GraphDef, keep: Collection[str] = ()) -> GraphDef:
    """The graph with each float MatMul or NHWC Conv2D + BiasAdd (+ activation) chain made one `_FusedMatMul`
    or `_FusedConv2D` (see the module docstring). A node fuses into its reader only when that reader alone
    reads it (through output 0, no control edges either way), both are on the same device, and it is not in
    `keep` (a target)."""
    nodes = {node.name: node for node in graph_def.node}
    readers: dict[str, list[str]] = {}
    for node in graph_def.node:
        for spec in node.input:
            readers.setdefault(parse_input(spec)[0], []).append(spec if spec.startswith("^") else node.name)

    def sole_reader(node: NodeDef, op: Collection[str]) -> NodeDef | None:
        names = readers.get(node.name, [])
        reader = nodes.get(names[0]) if len(names) == 1 else None
        if (reader is None or reader.op not in op or node.name in keep or reader.device != node.device
                or reader.attr.get("T") != dtypes.float32):
            return None
        return reader

    def bias_of(contraction: NodeDef, reader: NodeDef) -> str | None:
        """The bias input of the contraction's reader, when it adds one along the output's channels (the
        product's columns, the convolution's last dimension)."""
        data = [spec for spec in reader.input if not spec.startswith("^")]
        if reader.op == "BiasAdd":
            nhwc = _text(reader.attr.get("data_format", b"NHWC")) == "NHWC" or contraction.op == "MatMul"
            return data[1] if nhwc and parse_input(data[0]) == (contraction.name, 0) else None
        if len(data) != 2 or (contraction.name, 0) not in map(parse_input, data):
            return None
        bias = data[1] if parse_input(data[0]) == (contraction.name, 0) else data[0]
        weights = _static_shape(contraction.input[1], nodes)
        if contraction.op == "MatMul":
            width = None if weights is None or len(weights) != 2 else weights[
                0 if contraction.attr["transpose_b"] else 1]
        else:
            width = None if weights is None or len(weights) != 4 else weights[3]
        return bias if width is not None and _static_shape(bias, nodes) == (width,) else None

    fused: dict[str, NodeDef] = {}  # the name of the node each chain replaces -> the fused node
    removed: set[str] = set()
    for contraction in graph_def.node:
        if (contraction.op not in ("MatMul", "Conv2D") or contraction.attr.get("T") != dtypes.float32
                or any(spec.startswith("^") for spec in contraction.input)
                or _text(contraction.attr.get("data_format", b"NHWC")) != "NHWC"):
            continue
        bias_add = sole_reader(contraction, ("BiasAdd", "Add", "AddV2"))
        bias = None if bias_add is None else bias_of(contraction, bias_add)
        if bias is None:
            continue
        activation = sole_reader(bias_add, _FUSED_ACTIVATIONS)
        last = activation or bias_add
        chain = [bias_add] + ([activation] if activation is not None else [])
        controls = list(dict.fromkeys(spec for node in chain for spec in node.input if spec.startswith("^")))
        fused_ops = [b"BiasAdd"] + ([activation.op.encode()] if activation is not None else [])
        alpha = activation.attr.get("alpha", 0.2) if activation is not None else 0.2
        if contraction.op == "MatMul":
            attrs = {"T": dtypes.float32, "transpose_a": contraction.attr["transpose_a"],
                     "transpose_b": contraction.attr["transpose_b"], "num_args": 1, "fused_ops": fused_ops,
                     "epsilon": 0.0001, "leakyrelu_alpha": alpha}
        else:
            attrs = {"T": dtypes.float32, **{name: contraction.attr[name] for name in _CONV_ATTRS
                                             if name in contraction.attr},
                     "TArgs": [dtypes.float32], "num_args": 1, "num_host_args": 0, "filter_format": b"HWIO",
                     "fused_ops": fused_ops, "epsilon": 0.0, "leakyrelu_alpha": alpha}
        fused[last.name] = NodeDef(last.name, f"_Fused{contraction.op}", [*contraction.input, bias, *controls],
                                   last.device, attrs)
        removed.update(node.name for node in [contraction, *chain] if node is not last)
    if not fused:
        return graph_def
    return GraphDef(node=[fused.get(node.name, node) for node in graph_def.node if node.name not in removed],
                    producer=graph_def.producer)


def mask_before_pool_gradient(graph_def: GraphDef, keep: Collection[str] = ()) -> GraphDef:
    """The graph with each ReluGrad(MaxPoolGrad(x, y, dy), x) made MaxPoolGrad(x, y, ReluGrad(dy, y)) (see the
    module docstring), when the MaxPoolGrad has no other reader, neither has control edges, both are on one
    device and the MaxPoolGrad is not in `keep`."""
    nodes = {node.name: node for node in graph_def.node}
    readers: dict[str, int] = {}
    for node in graph_def.node:
        for spec in node.input:
            readers[parse_input(spec)[0]] = readers.get(parse_input(spec)[0], 0) + 1
    swapped: dict[str, NodeDef] = {}
    for relu_grad in graph_def.node:
        if relu_grad.op != "ReluGrad" or any(spec.startswith("^") for spec in relu_grad.input):
            continue
        pool_name, index = parse_input(relu_grad.input[0])
        pool_grad = nodes.get(pool_name)
        if (pool_grad is None or pool_grad.op != "MaxPoolGrad" or index != 0 or readers[pool_name] != 1
                or pool_name in keep or pool_grad.device != relu_grad.device
                or any(spec.startswith("^") for spec in pool_grad.input)
                or parse_input(pool_grad.input[0]) != parse_input(relu_grad.input[1])):
            continue
        x, y, dy = pool_grad.input
        swapped[pool_name] = NodeDef(pool_name, "ReluGrad", [dy, y], relu_grad.device, dict(relu_grad.attr))
        swapped[relu_grad.name] = NodeDef(relu_grad.name, "MaxPoolGrad", [x, y, pool_name], pool_grad.device,
                                          dict(pool_grad.attr))
    if not swapped:
        return graph_def
    return GraphDef(node=[swapped.get(node.name, node) for node in graph_def.node], producer=graph_def.producer)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _static_shape(spec: str, nodes: dict[str, NodeDef]) -> tuple[int, ...] | None:
    """The shape of a value the graph fixes (a constant's, a variable's, through Identities and Enters), else
    None."""
    name, index = parse_input(spec)
    node = nodes.get(name)
    while node is not None and node.op in ("Identity", "Enter") and index == 0:
        name, index = parse_input(node.input[0])
        node = nodes.get(name)
    if node is None or index != 0:
        return None
    if node.op == "Const":
        return tuple(np.shape(node.attr["value"]))
    shape = node.attr.get("shape") if node.op in ("VariableV2", "Variable") else None
    return None if shape is None or None in shape else tuple(shape)


def remove_dead_nodes(graph_def: GraphDef, keep: Collection[str] = ()) -> GraphDef:
    """The graph without nodes whose outputs nothing uses (the inputs of folded or merged nodes): a node
    survives if it is in `keep` (targets), is stateful, is part of the call frame, or feeds a survivor."""
    by_name = {node.name: node for node in graph_def.node}
    ops = op_registry.registered_ops()
    live: set[str] = set()
    stack = [node.name for node in graph_def.node
             if node.name in keep or node.op in ("_Arg", "_Retval") or node.op not in ops
             or ops[node.op].op_def.is_stateful]
    while stack:
        name = stack.pop()
        if name in live or name not in by_name:
            continue
        live.add(name)
        stack.extend(parse_input(spec)[0] for spec in by_name[name].input)
    if len(live) == len(by_name):
        return graph_def
    return GraphDef(node=[node for node in graph_def.node if node.name in live], producer=graph_def.producer)


def schedule_recvs(graph_def: GraphDef) -> GraphDef:
    """A partition whose `_Recv`s start as late as possible (TF's enable_recv_scheduling): each `_Recv`
    gets a control input from the latest local input of the first node downstream of it that also waits
    on local work, so a received tensor does not arrive, and sit in memory, long before it can be used.
    A `_Recv` with no such node downstream is left to start at once."""
    nodes = graph_def.node
    by_name = {node.name: node for node in nodes}
    depth: dict[str, int] = {}

    def depth_of(name: str) -> int:  # longest path from a source, over the partition's edges
        pending = [name]
        while pending:
            current = pending[-1]
            if current in depth:
                pending.pop()
                continue
            sources = [parse_input(spec)[0] for spec in by_name[current].input if parse_input(spec)[0] in by_name]
            missing = [s for s in sources if s not in depth and s not in pending]
            if missing:
                pending.extend(missing)
                continue
            depth[current] = 1 + max((depth.get(s, 0) for s in sources), default=0)
            pending.pop()
        return depth[name]

    if any(node.op in _NEVER_FOLDED - {"Const", "_Arg", "_Retval", "Placeholder", "PlaceholderWithDefault"}
           for node in nodes):
        return graph_def  # frames and back edges: ordering by depth does not apply
    consumers: dict[str, list[NodeDef]] = {}
    for node in nodes:
        for spec in node.input:
            consumers.setdefault(parse_input(spec)[0], []).append(node)
    gates: dict[str, str] = {}
    for recv in nodes:
        if recv.op not in ("_Recv", "_HostRecv") or recv.input:
            continue
        downstream = _descendants(recv.name, consumers)
        for user in sorted((by_name[name] for name in downstream), key=lambda node: depth_of(node.name)):
            candidates = [parse_input(spec)[0] for spec in user.input]
            candidates = [name for name in candidates if name in by_name and name != recv.name
                          and name not in downstream and by_name[name].op not in ("_Recv", "_HostRecv", "_Arg", "Const")]
            if candidates:  # the first node the value reaches that also waits on local work
                gates[recv.name] = max(candidates, key=depth_of)
                break
    if not gates:
        return graph_def
    out = [dataclasses.replace(node, input=["^" + gates[node.name]]) if node.name in gates else node for node in nodes]
    return GraphDef(node=out, producer=graph_def.producer)


def _descendants(name: str, consumers: dict[str, list[NodeDef]]) -> set[str]:
    found: set[str] = set()
    stack = [name]
    while stack:
        for node in consumers.get(stack.pop(), ()):
            if node.name not in found:
                found.add(node.name)
                stack.append(node.name)
    return found
