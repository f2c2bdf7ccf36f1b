"""The executor's fast path: a plan with no parallelism worth a thread hop, compiled to one Python function.

Taken only for plans without control flow or dead tensors, whose asynchronous kernels each depend on the one
before, and with at most one expensive kernel (executor.py decides): its nodes run in a fixed topological
order on the calling thread, one generated line per node, so a small step pays no per-node interpretation at
all (that is the whole cost of the runtime on small steps). Each value is a local `sN` (N its slot), deleted
right after its last consumer; constants are globals `kN`; `cI` is node I's kernel call with its
OpKernelContext bound once (a context without a step: it reads the step this thread runs, which the function
enters first). An asynchronous kernel (a queue's enqueue, a reader's read) is waited for where it stands
(executor.py's `_chained` says why that cannot deadlock). A traced variant records each kernel's start and
end. A failure is traced back to its node through the line it was raised on.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.op_kernel import OpKernel, OpKernelContext, enter_step, leave_step
from tensorweave.runtime.step_stats import NodeExecStats


class PlanNode(Protocol):
    """What the compiler reads of a plan entry (executor.py's `_Node`)."""

    node_def: NodeDef
    kernel: OpKernel | None
    inputs: tuple[int, ...]
    deref: tuple[int, ...]
    out_slot: int
    num_outputs: int


class StraightLineStep:
    """One compiled schedule: `run(args, step, stats)` returns the fetched values; `failed_node(error)` names
    the node whose line raised `error`."""

    def __init__(self, fn: Callable, line_nodes: dict[int, NodeDef]) -> None:
        self.run = fn
        self._line_nodes = line_nodes

    def failed_node(self, error: BaseException) -> NodeDef:
        tb = error.__traceback__
        line = 0
        while tb is not None:
            if tb.tb_frame.f_code is self.run.__code__:
                line = tb.tb_lineno
            tb = tb.tb_next
        return self._line_nodes.get(line) or NodeDef("<step>", "")


def _waited(call: Callable, ctx: OpKernelContext, *inputs: Any) -> Any:
    """An asynchronous kernel's outputs, waited for on this thread (executor.py lets a straight-line step hold
    such kernels only where nothing else of the step could run meanwhile); its error raised here."""
    finished = threading.Lock()  # held until done: cheaper than an Event where most kernels finish inline
    finished.acquire()
    outcome: list[Any] = []

    def done(outputs: Any = None, error: BaseException | None = None) -> None:
        outcome.append((outputs, error))
        finished.release()

    call(ctx, done, *inputs)
    if not outcome:
        finished.acquire()
    outputs, error = outcome[0]
    if error is not None:
        raise error
    return outputs


def kernel_statement(node: PlanNode, name: str, ref: Callable[[int], str], namespace: dict[str, Any]
                     ) -> tuple[str, list[str]]:
    """The generated line that calls `node`'s kernel, bound in `namespace` as `name` with a context that reads
    the thread's step, on its inputs (`ref(slot)` spells each, dereferenced where the plan says) and assigns
    its outputs to the locals `sN`; with those locals' names."""
    call = (node.kernel.call,) if not node.kernel.asynchronous else (_waited, node.kernel.call)
    namespace[name] = functools.partial(*call, OpKernelContext(node.kernel))
    inputs = [ref(slot) + (".read()" if i in node.deref else "") for i, slot in enumerate(node.inputs)]
    outputs = [f"s{slot}" for slot in range(node.out_slot, node.out_slot + node.num_outputs)]
    call = f"{name}({', '.join(inputs)})"
    if len(outputs) == 1:
        return f"{outputs[0]} = {call}", outputs
    if outputs:
        return f"{', '.join(outputs)}, = {call}", outputs
    return call, outputs


def compile_step(runnable: Sequence[PlanNode], arg_slots: list[tuple[int, int]],
                 ret_slots: list[tuple[int, int, bool]], template: list[Any], fetched: set[int],
                 traced: bool = False) -> StraightLineStep:
    """The straight-line function of `runnable` (in order); traced, it takes a list for NodeExecStats."""
    namespace: dict[str, Any] = {"_now": time.time_ns, "_thread": threading.get_native_id, "_Stats": NodeExecStats,
                                 "_enter": enter_step, "_leave": leave_step}
    local: set[int] = set()

    def ref(slot: int) -> str:
        if slot in local:
            return f"s{slot}"
        namespace[f"k{slot}"] = template[slot]
        return f"k{slot}"

    last_use: dict[int, int] = {}
    for position, node in enumerate(runnable):
        for slot in node.inputs:
            last_use[slot] = position
    lines = ["def step(args, step, stats=None):", "    previous = _enter(step)", "    try:"]
    for slot, index in arg_slots:
        lines.append(f"        s{slot} = args[{index}]")
        local.add(slot)
    line_nodes: dict[int, NodeDef] = {}
    for position, node in enumerate(runnable):
        statement, outputs = kernel_statement(node, f"c{position}", ref, namespace)
        local.update(range(node.out_slot, node.out_slot + node.num_outputs))
        dead = [slot for slot in dict.fromkeys(node.inputs) if last_use[slot] == position and slot in local
                and slot not in fetched]
        dead += [slot for slot in range(node.out_slot, node.out_slot + node.num_outputs)
                 if slot not in last_use and slot not in fetched]
        if traced:
            namespace[f"n{position}"] = (node.node_def.name, node.node_def.op)
            statement = (f"t = _now() // 1000; {statement}; "
                         f"stats.append(_Stats(*n{position}, t, _now() // 1000, _thread(), "
                         f"({''.join(o + ', ' for o in outputs)})))")
        lines.append(f"        {statement}"
                     + (f"; del {', '.join(f's{d}' for d in dead)}" if dead else ""))
        line_nodes[len(lines)] = node.node_def
    results = [ref(slot) + (".read()" if deref else "") for _, slot, deref in ret_slots]
    lines.append(f"        return [{', '.join(results)}]")
    lines += ["    finally:", "        _leave(previous)"]
    code = compile("\n".join(lines) + "\n", "<tensorweave step>", "exec")
    exec(code, namespace)  # noqa: S102 - the source is generated above from the plan alone
    return StraightLineStep(namespace["step"], line_nodes)
