"""Automatic control dependencies of a traced function body (TF's auto_control_deps.py).

A tf.function's body runs as a dataflow graph, yet its side effects must keep the Python program's order.
After tracing, the ops of the body get control inputs by TF's rule:
- ops that use the same resource run in program order: a write waits for the last write and for the reads
  since it, a read for the last write (ReadVariableOp and the other read-only ops only read);
- stateful ops without a resource input run in program order among themselves;
- the ops that must run (every stateful op except a read nobody consumes, and every call of a function by
  name) are returned: the function's results wait for them, or they are its control outputs.
Ops of a while loop built inside (TF1's control flow) are left alone, as TF's.
"""

from __future__ import annotations

from collections.abc import Iterable

from tensorweave.framework import dtypes
from tensorweave.framework.graph import Operation

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


def _in_while_loop(op: Operation) -> bool:
    context = op._control_flow_context
    return context is not None and context.get_while_context() is not None


def _resource_inputs(op: Operation) -> list[tuple[object, bool]]:
    """(resource tensor's key, whether only read) for each distinct resource input of `op`."""
    read_only = set(op._node_def.attr.get("_read_only_resource_inputs") or ())
    seen: dict[object, bool] = {}
    for i, t in enumerate(op.inputs):
        if t.dtype.base_dtype == dtypes.resource and t.ref() not in seen:
            seen[t.ref()] = op.type in RESOURCE_READ_OPS or i in read_only
    return list(seen.items())


def add_control_dependencies(ops: Iterable[Operation]) -> list[Operation]:
    """Order `ops` (a body's ops in program order) by TF's rule; the ops that must run, in program order."""
    last_write: dict[object, Operation] = {}  # a resource's key (None: no resource) -> its last writer
    reads_since_write: dict[object, list[Operation]] = {}
    must_run: dict[Operation, None] = {}
    for op in ops:
        if _in_while_loop(op):
            continue
        stateful = is_stateful(op)
        if op._op_def is None or op.graph._is_function(op.type) or (
                stateful and (op.type not in RESOURCE_READ_OPS or any(t.consumers() for t in op.outputs))):
            must_run[op] = None
        if op.type == "Merge":  # a cond's result waits for what ran before it
            op._add_control_inputs([o for o in must_run if o is not op])
            must_run = {op: None}
            continue
        controls: list[Operation] = []
        resources = _resource_inputs(op)
        for key, is_read in resources:
            if key in last_write:
                controls.append(last_write[key])
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
