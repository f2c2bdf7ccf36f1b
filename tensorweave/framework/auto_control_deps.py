"""Automatic control dependencies of a traced function body (TF's auto_control_deps.py).

A tf.function's body runs as a dataflow graph, yet its side effects must keep the Python program's order.
After tracing, the ops of the body get control inputs by TF's rule:
- ops that use the same resource run in program order: a write waits for the last write and for the reads
  since it, a read for the last write (ReadVariableOp and the other read-only ops only read);
- stateful ops without a resource input run in program order among themselves;
- the ops that must run (every stateful op except a read nobody consumes, and every call of a function by
  name) are returned: the function's results wait for them, or they are its control outputs.
Ops of a while loop built inside (TF1's control flow; TF would build a While op) get no control inputs, as
TF's, but its stateful ops must run too (a wait for them can only be outside the loop). A resource that a TF1 cond
routes through a Switch gets an artificial Merge of the Switch's outputs, which must run: the resource's
next user waits for it, and it for the branch's users.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Operation, Tensor

# Read-only resource ops (TF's register_read_only_resource_op).
RESOURCE_READ_OPS = frozenset({"ReadVariableOp", "VariableShape", "ResourceGather", "ResourceGatherNd",
                               "_ReadVariablesOp"})
# Stateful ops TF leaves unordered: legacy random ops (variable initializers use them) and async collectives.
_UNORDERED_STATEFUL_OPS = frozenset({
    "RandomUniform", "RandomUniformInt", "RandomStandardNormal", "ParameterizedTruncatedNormal",
    "TruncatedNormal", "RandomShuffle", "Multinomial", "RandomGamma", "RandomGammaGrad", "RandomPoisson",
    "RandomPoissonV2", "CollectiveGather", "CollectiveReduce", "CollectiveBcastSend", "CollectiveBcastSendV2",
    "CollectiveBcastRecv", "CollectiveBcastRecvV2", "NcclAllReduce", "Recv", "CollectiveInitializeCommunicator",
    "CollectiveAssignGroupV2"})


def is_stateful(op: Operation) -> bool:
    """Whether `op` is ordered as a side effect (TF's op_is_stateful)."""
    return (op._op_def is not None and op._op_def.is_stateful and op.type not in _UNORDERED_STATEFUL_OPS
            and op.type != "Placeholder")


def in_while_loop(op: Operation) -> bool:
    context = op._control_flow_context
    return context is not None and context.get_while_context() is not None


def _resource_inputs(op: Operation) -> list[tuple[Tensor, bool]]:
    """(resource tensor, whether only read) for each distinct resource input of `op`."""
    read_only = set(op._node_def.attr.get("_read_only_resource_inputs") or ())
    seen: dict[object, tuple[Tensor, bool]] = {}
    for i, t in enumerate(op.inputs):
        if t.dtype.base_dtype == dtypes.resource and t.ref() not in seen:
            seen[t.ref()] = (t, op.type in RESOURCE_READ_OPS or i in read_only)
    return list(seen.values())


def add_control_dependencies(ops: Iterable[Operation], merge: Callable[[list[Tensor], str], Operation]
                             ) -> list[Operation]:
    """Order `ops` (a body's ops in program order) by TF's rule; the ops that must run, in program order
    (those in a while loop among them, which nothing outside may wait for directly).
    `merge(tensors, name)` builds a Merge op (for resources routed through a TF1 cond's Switch)."""
    last_write: dict[object, Operation] = {}  # a resource's key (None: no resource) -> its last writer
    reads_since_write: dict[object, list[Operation]] = {}
    merge_for: dict[object, Operation] = {}  # a resource's key -> the merge that waits for its users
    must_run: dict[Operation, None] = {}

    def process_switch(switch: Operation) -> None:
        source = switch.inputs[0]
        if source.dtype.base_dtype == dtypes.resource and source.op.type == "Switch":
            process_switch(source.op)
        if switch.outputs[0].ref() in merge_for:
            return
        artificial = merge(list(switch.outputs), "artificial_merge")
        artificial._control_flow_context = switch._control_flow_context.outer_context
        must_run[artificial] = None
        if source.ref() in last_write:
            switch._add_control_input(last_write[source.ref()])
        last_write[source.ref()] = artificial
        if source.ref() in merge_for:
            merge_for[source.ref()]._add_control_input(artificial)
        for t in switch.outputs:
            merge_for[t.ref()] = artificial

    for op in list(ops):
        if in_while_loop(op):
            if is_stateful(op):
                must_run[op] = None
            continue
        stateful = is_stateful(op)
        if op._op_def is None or op.graph._is_function(op.type) or (
                stateful and (op.type not in RESOURCE_READ_OPS or any(t.consumers() for t in op.outputs))):
            must_run[op] = None
        if op.type == "Switch" and op.inputs[0].dtype.base_dtype == dtypes.resource:
            continue
        if op.type == "Merge":  # a cond's result waits for what ran before it (outside loops)
            in_loops = [o for o in must_run if in_while_loop(o)]
            for before in must_run:
                if before is not op and not in_while_loop(before):
                    op._add_control_input(before)
                    for t in before.inputs:
                        if t.ref() in last_write:
                            last_write[t.ref()] = op
            must_run = dict.fromkeys(in_loops + [op])
            continue
        controls: list[Operation] = []
        resources = _resource_inputs(op)
        for resource, is_read in resources:
            key = resource.ref()
            if resource.op.type == "Switch":
                process_switch(resource.op)
            if key in last_write:
                controls.append(last_write[key])
            if key in merge_for:
                merge_for[key]._add_control_input(op)
            if is_read:
                reads_since_write.setdefault(key, []).append(op)
            else:
                controls.extend(reads_since_write.pop(key, []))
                last_write[key] = op
        if stateful and not resources and op._control_flow_context is None:
            if None in last_write:
                controls.append(last_write[None])
            last_write[None] = op
        op._add_control_inputs([c for c in dict.fromkeys(controls) if c is not op])
    return list(must_run)
