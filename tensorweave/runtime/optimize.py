"""Graph optimizations between pruning and placement: constant folding, as TF's default L1 level does.

A node whose data inputs are all constants, that is not stateful, touches no ref and has no control
inputs, computes the same value in every step: it is evaluated once here and replaced by a Const of the
same name (TF folds the same set, up to 10 MiB per tensor). Stateful ops (variables, random ops, queues)
are never folded, so every step still runs them. A node whose kernel fails is left as it is, so the error
surfaces in the step, naming the node, as it would without folding.
"""

from __future__ import annotations

from typing import Any

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


def constant_folding_enabled(config: Any) -> bool:
    """TF's rule: opt_level L1 (the default) folds; L0 folds only if do_constant_folding is set."""
    options = getattr(getattr(config, "graph_options", None), "optimizer_options", None)
    if options is None:
        return True
    return getattr(options, "opt_level", 0) >= 0 or bool(getattr(options, "do_constant_folding", False))


def fold_constants(graph_def: GraphDef, device: DeviceBase) -> GraphDef:
    """The graph with every foldable node replaced by a Const holding its value."""
    # A Const with control inputs (one inside a cond branch) is not a constant of the step: it may be dead
    values: dict[str, Any] = {n.name: n.attr["value"] for n in graph_def.node if n.op == "Const" and not n.input}
    out = []
    for node in graph_def.node:
        value = _fold(node, values, device)
        if value is None:
            out.append(node)
            continue
        values[node.name] = value
        out.append(NodeDef(node.name, "Const", [], node.device,
                           {"value": value, "dtype": dtypes.as_dtype(value.dtype)}))
    return GraphDef(node=out, producer=graph_def.producer)


def _fold(node: NodeDef, values: dict[str, Any], device: DeviceBase) -> Any:
    """The node's constant value, or None when it cannot or should not be folded."""
    if node.op in _NEVER_FOLDED or not node.input:
        return None
    inputs = []
    for spec in node.input:
        name, index = parse_input(spec)
        if index != 0 or name not in values:
            return None
        inputs.append(values[name])
    try:
        op = op_registry.get(node.op)
    except KeyError:
        return None
    kernel = op.find_kernel(device.device_type, node.attr)
    if kernel is None or kernel.asynchronous or op.op_def.is_stateful or len(op.op_def.output_args) != 1:
        return None
    types = arg_types(op.op_def.input_args, node.attr) + arg_types(op.op_def.output_args, node.attr)
    if len(types) != len(inputs) + 1 or any(t._is_ref_dtype or t == dtypes.resource for t in types):
        return None
    try:
        value = OpKernel(kernel, node, device).compute(inputs)[0]
    except errors.OpError:  # including one that cannot allocate: the step reports it
        return None
    value = device.xp.asarray(value)
    if value.nbytes > MAX_CONSTANT_BYTES:
        return None
    value.flags.writeable = False
    return value
