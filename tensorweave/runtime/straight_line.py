"""The executor's fast path: a plan without control flow, compiled to one Python function.

Taken only for plans without control flow or dead tensors, and whose asynchronous kernels each depend on the
one before (executor.py decides): its nodes run in a fixed topological order on the calling thread, one
generated line per node, so a step pays no per-node interpretation at all (that is the whole cost of the
runtime on small steps, and a tenth of a small-kernel training step's). Each value is a local `sN` (N its
slot), deleted right after its last consumer; constants are globals `kN`; `cI` is node I's kernel call with
its OpKernelContext bound once (a context without a step: it reads the step this thread runs, which the
function enters first). An asynchronous kernel (a queue's enqueue, a reader's read) is waited for where it
stands (executor.py's `_chained` says why that cannot deadlock). A traced variant records each kernel's start
and end. A failure is traced back to its node through the line it was raised on.

Parallelism between expensive kernels survives the fixed order: an expensive kernel with other lines before
its first consumer is launched (`pI`) rather than called, and joined on the line before that consumer. A
launch runs the kernel on the inter-op pool unless its measured cost (kept per node, as the dataflow
executor keeps it) shows it quicker than a thread hop, so the calling thread runs the lines in between
meanwhile, as the dataflow schedule would. A step that fails waits for what it launched before it raises.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.op_kernel import (
    OpKernel,
    OpKernelContext,
    StepContext,
    enter_step,
    leave_step,
    quiet_numerics,
)
from tensorweave.runtime.step_stats import NodeExecStats

# An expensive kernel whose measured time is below this runs inline. The estimate falls to a quicker run's
# time at once and rises toward a slower one's by 1/_COST_WEIGHT of the difference (TF's executor moves its
# estimates so): a run's time can only overstate the kernel's cost, by the waits for a core on a loaded machine.
INLINE_BELOW_S = 1e-3
_COST_WEIGHT = 8


class PlanNode(Protocol):
    """What the compiler reads of a plan entry (executor.py's `_Node`)."""

    index: int
    node_def: NodeDef
    kernel: OpKernel | None
    inputs: tuple[int, ...]
    deref: tuple[int, ...]
    out_slot: int
    num_outputs: int


class LoopCall(NamedTuple):
    """A compiled loop frame as one line of a step (loop_compiler.py): `run(values, cancellation)` takes the
    values of its Enters and returns those of its Exits; `failed_node(error)` names the node that raised."""

    run: Callable
    enters: Sequence[PlanNode]
    exits: Sequence[PlanNode]
    failed_node: Callable[[BaseException], NodeDef]


class StraightLineStep:
    """One compiled schedule: `run(args, step, stats)` returns the fetched values; `failed_node(error)` names
    the node whose line raised `error`."""

    def __init__(self, fn: Callable, line_nodes: dict[int, NodeDef | LoopCall]) -> None:
        self.run = fn
        self._line_nodes = line_nodes

    def failed_node(self, error: BaseException) -> NodeDef:
        tb = error.__traceback__
        line = 0
        while tb is not None:
            if tb.tb_frame.f_code is self.run.__code__:
                line = tb.tb_lineno
            tb = tb.tb_next
        node = self._line_nodes.get(line) or NodeDef("<step>", "")
        return node.failed_node(error) if isinstance(node, LoopCall) else node


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


def record_cost(costs: list[float], index: int, elapsed: float) -> None:
    """Move node `index`'s cost estimate toward a run's `elapsed` seconds (see INLINE_BELOW_S); races between
    steps only blur it."""
    previous = costs[index]
    costs[index] = elapsed if elapsed < previous else previous + (elapsed - previous) / _COST_WEIGHT


class _Launched:
    """An expensive kernel running on the pool: `wait()` returns its outputs (to the one joining line) or
    raises its error."""

    __slots__ = ("_done", "_result", "_error")

    def __init__(self) -> None:
        self._done = threading.Lock()  # held until the kernel is done
        self._done.acquire()
        self._result: Any = None
        self._error: BaseException | None = None

    def run(self, run_kernel: Callable, step: StepContext, stats: list[NodeExecStats] | None,
            inputs: tuple) -> None:
        previous = enter_step(step)
        try:
            with quiet_numerics():
                self._result = run_kernel(stats, inputs)
        except BaseException as e:  # noqa: BLE001 - raised again on the thread that joins it
            self._error = e
        finally:
            leave_step(previous)
            self._done.release()

    def wait(self) -> Any:
        self._done.acquire()
        self._done.release()
        if self._error is not None:
            raise self._error
        result, self._result = self._result, None
        return result


def _join(launched: Any) -> Any:
    """A launched kernel's outputs: waited for when it went to the pool, as they are when it ran inline."""
    return launched.wait() if type(launched) is _Launched else launched


def _drain(launched: list[_Launched]) -> None:
    """Wait for every kernel a failing step launched, so that none still runs once the step has failed."""
    for kernel in launched:
        try:
            kernel.wait()
        except BaseException:  # noqa: BLE001, S110 - the step raises its first error
            pass


def _launcher(node: PlanNode, call: Callable, costs: list[float], submit: Callable) -> Callable:
    """The node's launch: `launch(launched, step, stats, *inputs)` runs its kernel here when its measured
    cost is below a thread hop's, else submits it to the pool (appending it to `launched`) and returns it
    running; either way the kernel's time is measured, and recorded in `stats` when traced."""
    label, num_outputs, index = (node.node_def.name, node.node_def.op), node.num_outputs, node.index

    def run_kernel(stats: list[NodeExecStats] | None, inputs: tuple) -> Any:
        start = time.time_ns()
        result = call(*inputs)
        end = time.time_ns()
        record_cost(costs, index, (end - start) / 1e9)
        if stats is not None:
            outputs = (result,) if num_outputs == 1 else tuple(result) if num_outputs else ()
            stats.append(NodeExecStats(*label, start // 1000, end // 1000, threading.get_native_id(), outputs))
        return result

    def launch(launched: list[_Launched], step: StepContext, stats: list[NodeExecStats] | None, *inputs: Any) -> Any:
        if costs[index] < INLINE_BELOW_S:
            return run_kernel(stats, inputs)
        kernel = _Launched()
        launched.append(kernel)
        submit(kernel.run, run_kernel, step, stats, inputs)
        return kernel

    return launch


def kernel_statement(node: PlanNode, name: str, ref: Callable[[int], str], namespace: dict[str, Any]
                     ) -> tuple[str, list[str]]:
    """The generated line that calls `node`'s kernel, bound in `namespace` as `name` with a context that reads
    the thread's step, on its inputs (`ref(slot)` spells each, dereferenced where the plan says) and assigns
    its outputs to the locals `sN`; with those locals' names."""
    call = (node.kernel.call,) if not node.kernel.asynchronous else (_waited, node.kernel.call)
    namespace[name] = functools.partial(*call, OpKernelContext(node.kernel))
    outputs = _outputs(node)
    return _assigned(outputs, f"{name}({', '.join(_inputs(node, ref))})"), outputs


def _inputs(node: PlanNode, ref: Callable[[int], str]) -> list[str]:
    return [ref(slot) + (".read()" if i in node.deref else "") for i, slot in enumerate(node.inputs)]


def _outputs(node: PlanNode) -> list[str]:
    return [f"s{slot}" for slot in range(node.out_slot, node.out_slot + node.num_outputs)]


def _assigned(outputs: list[str], value: str) -> str:
    """The statement that assigns `value` (a kernel's result) to its outputs' locals."""
    if len(outputs) == 1:
        return f"{outputs[0]} = {value}"
    if outputs:
        return f"{', '.join(outputs)}, = {value}"
    return value


def compile_step(runnable: Sequence[PlanNode], arg_slots: list[tuple[int, int]],
                 ret_slots: list[tuple[int, int, bool]], template: list[Any], fetched: set[int],
                 traced: bool = False, launches: Mapping[int, int] | None = None, costs: list[float] | None = None,
                 submit: Callable | None = None, loops: Mapping[int, LoopCall] | None = None,
                 ret_nodes: Mapping[int, NodeDef] | None = None) -> StraightLineStep:
    """The straight-line function of `runnable` (in order); traced, it takes a list for NodeExecStats.
    `launches` maps the position of each kernel that may run on the pool (through `submit`) to the position of
    the line it is joined before (`len(runnable)`: before the results); `costs` are the plan's estimates of
    its nodes' times, by node index. `loops` are the positions where a compiled loop runs in place of the
    node there (one of its Enters), with the step's cancellation. `ret_nodes` are the `_Retval`s by index:
    a ref fetch is read on a line of its own, so its failure names its `_Retval`."""
    launches, loops, ret_nodes = launches or {}, loops or {}, ret_nodes or {}

    def inputs_of(position: int) -> list[int]:
        node = runnable[position]
        return [enter.inputs[0] for enter in loops[position].enters] if position in loops else list(node.inputs)
    namespace: dict[str, Any] = {"_now": time.time_ns, "_thread": threading.get_native_id, "_Stats": NodeExecStats,
                                 "_enter": enter_step, "_leave": leave_step, "_join": _join, "_drain": _drain,
                                 "_StepContext": StepContext}
    local: set[int] = set()

    def ref(slot: int) -> str:
        if slot in local:
            return f"s{slot}"
        namespace[f"k{slot}"] = template[slot]
        return f"k{slot}"

    last_use: dict[int, int] = {}
    for position in range(len(runnable)):
        for slot in inputs_of(position):
            last_use[slot] = position
    joins: dict[int, list[int]] = {}
    for position, join in sorted(launches.items()):
        joins.setdefault(join, []).append(position)
    lines = ["def step(args, step, stats=None):"]
    if launches or loops:  # the kernels it launches run in the step of this thread, and loops read its cancellation
        lines += ["    if step is None:", "        step = _StepContext()"]
    if launches:
        lines.append("    launched = []")
    lines += ["    previous = _enter(step)", "    try:"]
    for slot, index in arg_slots:
        lines.append(f"        s{slot} = args[{index}]")
        local.add(slot)
    line_nodes: dict[int, NodeDef | LoopCall] = {}

    def unused(outputs: Sequence[int]) -> list[int]:
        return [slot for slot in outputs if slot not in last_use and slot not in fetched]

    def join(position: int) -> None:
        node = runnable[position]
        outputs = range(node.out_slot, node.out_slot + node.num_outputs)
        local.update(outputs)
        dead = [f"p{position}"] + [f"s{slot}" for slot in unused(outputs)]
        lines.append(f"        {_assigned(_outputs(node), f'_join(p{position})')}; del {', '.join(dead)}")
        line_nodes[len(lines)] = node.node_def

    for position, node in enumerate(runnable):
        for launched in joins.get(position, ()):
            join(launched)
        outputs = range(node.out_slot, node.out_slot + node.num_outputs)
        if position in loops:
            loop = loops[position]
            namespace[f"w{position}"] = loop.run
            values = [ref(e.inputs[0]) + (".read()" if e.deref else "") for e in loop.enters]
            statement = f"w{position}([{', '.join(values)}], step.cancellation)"
            if loop.exits:  # a list of the Exits' values
                statement = f"{''.join(f's{e.out_slot}, ' for e in loop.exits)}= {statement}"
            local.update(e.out_slot for e in loop.exits)
            dead = unused([e.out_slot for e in loop.exits])
        elif position in launches:
            namespace[f"l{position}"] = _launcher(node, functools.partial(node.kernel.call, OpKernelContext(node.kernel)),
                                                  costs, submit)
            statement = f"p{position} = l{position}(launched, step, stats, {''.join(i + ', ' for i in _inputs(node, ref))})"
            dead = []
        else:
            statement, names = kernel_statement(node, f"c{position}", ref, namespace)
            local.update(outputs)
            dead = unused(outputs)
            if traced:
                namespace[f"n{position}"] = (node.node_def.name, node.node_def.op)
                statement = (f"t = _now() // 1000; {statement}; "
                             f"stats.append(_Stats(*n{position}, t, _now() // 1000, _thread(), "
                             f"({''.join(o + ', ' for o in names)})))")
        dead = [slot for slot in dict.fromkeys(inputs_of(position)) if last_use[slot] == position and slot in local
                and slot not in fetched] + dead
        lines.append(f"        {statement}"
                     + (f"; del {', '.join(f's{d}' for d in dead)}" if dead else ""))
        line_nodes[len(lines)] = loops[position] if position in loops else node.node_def
    for launched in joins.get(len(runnable), ()):
        join(launched)
    results = []
    for index, slot, deref in ret_slots:
        if deref and index in ret_nodes:
            lines.append(f"        r{index} = {ref(slot)}.read()")
            line_nodes[len(lines)] = ret_nodes[index]
            results.append(f"r{index}")
        else:
            results.append(ref(slot) + (".read()" if deref else ""))
    lines.append(f"        return [{', '.join(results)}]")
    if launches:
        lines += ["    except BaseException:", "        _drain(launched)", "        raise"]
    lines += ["    finally:", "        _leave(previous)"]
    code = compile("\n".join(lines) + "\n", "<tensorweave step>", "exec")
    exec(code, namespace)  # noqa: S102 - the source is generated above from the plan alone
    return StraightLineStep(namespace["step"], line_nodes)
