"""The executor's fast path for loops: an innermost loop frame compiled to one Python `while` loop.

The generic executor pays its per-node bookkeeping (pending counts, deadness, frames and iterations) for
every node of every iteration, which is the whole cost of a small loop. A frame whose body is plain enough
runs instead as generated code, once all of its Enters have arrived: each iteration runs the frame's nodes
in a fixed topological order, one line per kernel, and the frame's own control nodes (Merge, Switch,
LoopCond, NextIteration, Exit, Identity) become assignments. Values are the same as the dataflow schedule's:
an iteration's nodes see the same inputs, only the interleaving of independent nodes of neighbouring
iterations (what `parallel_iterations` allows) is fixed.

A frame compiles when it is a while loop as TF1 builds it and nothing in it needs the executor itself:
no nested frame, no asynchronous or transfer kernel, no Switch but the loop's own (a cond in the body) and
each Merge joining one Enter and one NextIteration. Then every node of the frame is live in one of three
patterns (TF's deadness rules, decided here once): in every iteration (`ALWAYS`: the predicate and
whatever depends only on Merges and invariants), in the iterations whose predicate holds (`BODY`: below a
loop Switch's true output) or only after the last one (`EXIT`: below its false output). A node that would be
dead in every iteration, or a frame shaped otherwise, is left to the generic path.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from tensorweave import errors
from tensorweave.framework.op_kernel import DEAD, OpKernelContext
from tensorweave.runtime.partition import node_frames
from tensorweave.runtime.straight_line import PlanNode, kernel_statement

_ENTER = frozenset({"Enter", "RefEnter"})
_EXIT = frozenset({"Exit", "RefExit"})
_MERGE = frozenset({"Merge", "RefMerge"})
_SWITCH = frozenset({"Switch", "RefSwitch"})
_NEXT_ITERATION = frozenset({"NextIteration", "RefNextIteration"})
_FORWARDS = _EXIT | _NEXT_ITERATION | frozenset({"LoopCond", "Identity", "RefIdentity"})  # output = input
_NOTHING = frozenset({"NoOp", "ControlTrigger"})  # no outputs, no effect: only their edges count
_REFUSED = frozenset({"_Arg", "_Retval", "_Send", "_HostSend", "_Recv", "_HostRecv"})


class _Live(enum.IntEnum):
    """In which iterations a node of the frame is live (see the module docstring)."""

    ALWAYS = 0
    BODY = 1
    EXIT = 2
    NEVER = 3


def _both(a: _Live, b: _Live) -> _Live:
    """A node with inputs live in `a` and in `b` is live where both are."""
    if a == _Live.ALWAYS:
        return b
    return a if b in (_Live.ALWAYS, a) else _Live.NEVER


class LoopNode(PlanNode, Protocol):
    """What the compiler reads of a plan entry (executor.py's `_Node`), beyond what straight_line reads."""

    index: int
    call: Callable | None
    asynchronous: bool
    frame_name: str
    constant_enter: bool
    num_control_inputs: int
    out_edges: list[tuple[int, int, int]]


class CompiledLoop:
    """One frame's loop: `run(values, cancellation)` takes the values of `enters` (node indices, in order) and
    returns those of `exits`, raising CancelledError once the step's `cancellation` has started; `failed_node(error)` is the index of the node whose line raised `error`."""

    def __init__(self, enters: list[int], exits: list[int], fn: Callable, line_nodes: dict[int, int]) -> None:
        self.enters = enters
        self.exits = exits
        self.run = fn
        self._line_nodes = line_nodes

    def failed_node(self, error: BaseException) -> int:
        tb, line = error.__traceback__, 0
        while tb is not None:
            if tb.tb_frame.f_code is self.run.__code__:
                line = tb.tb_lineno
            tb = tb.tb_next
        return self._line_nodes.get(line, self.exits[0] if self.exits else self.enters[0])


def compile_loops(nodes: Sequence[LoopNode], order: Sequence[int], template: list[Any]) -> dict[str, CompiledLoop]:
    """The compiled loop of every frame of the plan that qualifies, by frame name."""
    frames, _ = node_frames([n.node_def for n in nodes])
    members: dict[str, list[int]] = {}
    for i in order:
        if frames[i]:
            members.setdefault(frames[i], []).append(i)
    loops = {}
    for name, frame_nodes in members.items():
        loop = _compile_frame(nodes, name, frame_nodes, template)
        if loop is not None:
            loops[name] = loop
    return loops


def _compile_frame(nodes: Sequence[LoopNode], name: str, members: list[int], template: list[Any]) -> CompiledLoop | None:
    """The frame's loop, or None when it is not one this path runs."""
    enters = [n.index for n in nodes if n.node_def.op in _ENTER and n.frame_name == name]
    member_set = set(members)
    inside = member_set | set(enters)
    loop_conds = [i for i in members if nodes[i].node_def.op == "LoopCond"]
    if len(loop_conds) != 1:
        return None
    pred_slot = nodes[loop_conds[0]].out_slot
    in_edges: dict[int, list[tuple[int, int]]] = {i: [] for i in members}  # node -> (source, slot)
    for source in inside:
        for successor, slot, _ in nodes[source].out_edges:
            if successor in member_set:
                in_edges[successor].append((source, slot))
            elif source in member_set and nodes[source].node_def.op not in _EXIT:
                return None  # a value leaves the frame other than by an Exit
    for i in enters:
        if not nodes[i].constant_enter and any(nodes[s].node_def.op not in _MERGE or slot < 0
                                               for s, slot, _ in nodes[i].out_edges):
            return None  # a loop variable's Enter feeds only its Merge (it has a value in iteration 0 alone)
    live: dict[int, _Live] = {i: _Live.ALWAYS for i in enters}
    merges: list[tuple[int, int, int]] = []  # (Merge, its Enter, its NextIteration)
    for i in members:
        node, op = nodes[i], nodes[i].node_def.op
        if (op in _REFUSED or op in _ENTER or node.asynchronous
                or (node.call is None and not (node.kernel is not None and node.kernel.constant))):
            return None
        sources = [s for s, _ in in_edges[i]]
        if len(sources) != node.num_data_inputs + node.num_control_inputs:
            return None  # an input from outside the frame other than by an Enter
        if op in _MERGE:
            kinds = sorted((nodes[s].node_def.op in _ENTER, s) for s in sources)
            if len(sources) != 2 or node.num_control_inputs or [k for k, _ in kinds] != [False, True] or \
                    nodes[kinds[0][1]].node_def.op not in _NEXT_ITERATION:
                return None
            merges.append((i, kinds[1][1], kinds[0][1]))
            live[i] = _Live.ALWAYS
            continue
        if op in _SWITCH and (node.inputs[1] != pred_slot or node.num_control_inputs):
            return None  # a cond inside the body
        state = _Live.ALWAYS
        for source, slot in in_edges[i]:
            if nodes[source].node_def.op in _NEXT_ITERATION:
                return None
            edge = live[source]
            if nodes[source].node_def.op in _SWITCH and slot >= 0:
                edge = _Live.EXIT if slot == nodes[source].out_slot else _Live.BODY
            state = _both(state, edge)
        if op == "ControlTrigger":
            state = _Live.ALWAYS  # never dead: it runs once its inputs have arrived, dead or live
        live[i] = state
        if (state == _Live.NEVER or (op in _SWITCH and state != _Live.ALWAYS)
                or (op in _NEXT_ITERATION and state != _Live.BODY) or (op in _EXIT and state != _Live.EXIT)
                or (op == "LoopCond" and state != _Live.ALWAYS)):
            return None
    exits = [i for i in members if nodes[i].node_def.op in _EXIT]
    return _generate(nodes, name, members, enters, exits, merges, live, loop_conds[0], template)


def _generate(nodes: Sequence[LoopNode], name: str, members: list[int], enters: list[int], exits: list[int],
              merges: list[tuple[int, int, int]], live: dict[int, _Live], loop_cond: int,
              template: list[Any]) -> CompiledLoop:
    """The loop's Python source, compiled (see the module docstring for its shape)."""
    namespace: dict[str, Any] = {"_TRUE": np.True_, "_ZERO": np.int32(0), "_ONE": np.int32(1), "_DEAD": DEAD}
    constants = {n.out_slot for i in members if (n := nodes[i]).call is None}
    used = {slot for i in members for slot in nodes[i].inputs}

    def ref(slot: int) -> str:
        if slot in constants:
            namespace[f"k{slot}"] = _as_scalar(template[slot])
            return f"k{slot}"
        return f"s{slot}"

    line_nodes: dict[int, int] = {}
    namespace["_as_scalar"] = _as_scalar
    lines = ["def loop(values, cancellation):",
             f"    {''.join(f's{nodes[i].out_slot}, ' for i in enters)}= map(_as_scalar, values)"]
    for merge, enter, _ in merges:
        lines.append(f"    s{nodes[merge].out_slot} = s{nodes[enter].out_slot}")
        if nodes[merge].out_slot + 1 in used:
            lines.append(f"    s{nodes[merge].out_slot + 1} = _ZERO")

    def emit(i: int, indent: str, switch_output: int = 1) -> None:
        node, op = nodes[i], nodes[i].node_def.op
        if op in _MERGE or op in _NOTHING or node.call is None:
            return
        if op in _SWITCH:
            if node.out_slot + switch_output in used:
                lines.append(f"{indent}s{node.out_slot + switch_output} = {ref(node.inputs[0])}")
            return
        if op in _FORWARDS:
            deref = ".read()" if node.deref else ""
            lines.append(f"{indent}s{node.out_slot} = {ref(node.inputs[0])}{deref}")
        else:
            lines.append(f"{indent}{kernel_statement(node, f'c{i}', ref, namespace)[0]}")
        line_nodes[len(lines)] = i

    split = members.index(loop_cond) + 1
    # Every 1024 iterations the loop looks at the step's cancellation, so a timeout or a closed session ends
    # even a loop that never would (the generic path stops between nodes)
    namespace["_cancelled"] = _cancelled
    lines.append("    iterations = 0")
    lines.append("    while True:")
    lines.append("        iterations += 1")
    lines.append("        if not iterations & 1023 and cancellation.is_cancelled:")
    lines.append("            raise _cancelled()")
    for i in members[:split]:
        emit(i, " " * 8)
    pred = f"s{nodes[loop_cond].out_slot}"
    switches = [i for i in members if nodes[i].node_def.op in _SWITCH]
    if switches:  # a predicate other than NumPy's True goes through a Switch kernel, which checks it
        switch = nodes[switches[0]].kernel
        namespace["_switch"] = functools.partial(switch.call, OpKernelContext(switch))
        lines.append(f"        if {pred} is not _TRUE and _switch(None, {pred})[1] is _DEAD:")
        line_nodes[len(lines)] = switches[0]
    else:
        lines.append(f"        if not {pred}:")
    last = [i for i in members[split:] if live[i] == _Live.ALWAYS]
    for i in last:
        emit(i, " " * 12, switch_output=0)
    lines.append("            break")
    for i in members[split:]:
        if live[i] in (_Live.ALWAYS, _Live.BODY):
            emit(i, " " * 8)
    for merge, _, next_iteration in merges:
        lines.append(f"        s{nodes[merge].out_slot} = s{nodes[next_iteration].out_slot}")
        if nodes[merge].out_slot + 1 in used:
            lines.append(f"        s{nodes[merge].out_slot + 1} = _ONE")
    for i in members:
        if live[i] == _Live.EXIT:
            emit(i, " " * 4)
    lines.append(f"    return [{', '.join(f's{nodes[i].out_slot}' for i in exits)}]")
    code = compile("\n".join(lines) + "\n", f"<tensorweave loop {name}>", "exec")
    exec(code, namespace)  # noqa: S102 - the source is generated above from the plan alone
    return CompiledLoop(enters, exits, namespace["loop"], line_nodes)



def _cancelled() -> errors.CancelledError:
    return errors.CancelledError(None, None, "The step was cancelled while a loop ran")


def _as_scalar(value: Any) -> Any:
    """A 0-d numeric array as the NumPy scalar it holds (a fed or constant loop bound, a counter's step):
    the same value to every kernel, but NumPy's operators on scalars skip the ufunc machinery, several
    times the cost of a small iteration."""
    if type(value) is np.ndarray and value.ndim == 0 and value.dtype.kind in "biufc":
        return value[()]
    return value
