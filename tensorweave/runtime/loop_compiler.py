"""The executor's fast path for loops: an innermost loop frame compiled to one Python `while` loop.

The generic executor pays its per-node bookkeeping (pending counts, deadness, frames and iterations) for
every node of every iteration, which is the whole cost of a small loop. A frame whose body is plain enough
runs instead as generated code, once all of its Enters have arrived: each iteration runs the frame's nodes
in a fixed topological order, one line per kernel, and the frame's own control nodes (Merge, Switch,
LoopCond, NextIteration, Exit, Identity) become assignments. Values are the same as the dataflow schedule's:
an iteration's nodes see the same inputs, only the interleaving of independent nodes of neighbouring
iterations (what `parallel_iterations` allows) is fixed.

A frame compiles when it is a while loop as TF1 builds it and nothing in it needs the executor itself:
no asynchronous or transfer kernel, each loop Merge joining one Enter and one NextIteration, every nested
frame compiled itself. A nested loop is one line of the outer loop, a call of its compiled loop, placed after
whatever its Enters read and before whatever reads its Exits, live where its loop variables' Enters are (an
invariant's Enter may be live more often only if the nested loop, with its variables dead, would run nothing
with an effect: its predicate below a loop variable, no stateful node on invariants alone).
Then every node of the frame is live in one of three patterns (TF's deadness rules, decided here once): in
every iteration (`ALWAYS`: the predicate and whatever depends only on Merges and invariants), in the
iterations whose predicate holds (`BODY`: below a loop Switch's true output) or only after the last one
(`EXIT`: below its false output). Conds inside the frame (`tf.cond`, `tf.case`, in the body or the
predicate) add a guard: the sides of their predicates a node is below; the node's line runs under an `if`
on them, the cond's Switch kernel runs (it checks the predicate) and sets its side, and its Merge takes the
input of that side, so the untaken side never runs, as in the dataflow schedule. A node that would be dead in
every iteration (below both sides of one predicate), frame control (LoopCond, NextIteration, Exit, the loop's
Switches) inside a cond, a Merge joining other than the two sides of one predicate, or a frame shaped
otherwise is left to the generic path.
"""

from __future__ import annotations

import enum
import functools
import heapq
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, Protocol

import numpy as np

from tensorweave import errors
from tensorweave.framework import op_registry
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


class _Conds(NamedTuple):
    """Where each node of a frame is live: `live` its loop pattern; `guards` the (predicate slot, side) pairs of
    the conds in the body it is inside (live where every predicate has that value); `switches` those conds'
    Switches, each with its predicate's slot (past Identities: a cond's Switches read one predicate through
    several); `merges` their Merges, each with the (predicate slot, side) of its first input."""

    live: dict[int, _Live]
    guards: dict[int, frozenset[tuple[int, bool]]]
    switches: dict[int, int]
    merges: dict[int, tuple[int, bool]]


class LoopNode(PlanNode, Protocol):
    """What the compiler reads of a plan entry (executor.py's `_Node`), beyond what straight_line reads."""

    call: Callable | None
    asynchronous: bool
    frame_name: str
    constant_enter: bool
    num_control_inputs: int
    out_edges: list[tuple[int, int, int]]


class CompiledLoop:
    """One frame's loop: `run(values, cancellation)` takes the values of `enters` (node indices, in order) and
    returns those of `exits`, raising CancelledError once the step's `cancellation` has started; `failed_node(error)` is the index of the node whose line raised `error`."""

    def __init__(self, enters: list[int], exits: list[int], fn: Callable, line_nodes: dict[int, int],
                 inner: list[CompiledLoop], dead_without_variables: bool) -> None:
        self.enters = enters
        self.exits = exits
        self.run = fn
        self._line_nodes = line_nodes
        self._inner = inner  # the loops nested in this one, which its lines call
        # Whether, with its loop variables' Enters dead, the frame's predicate is dead and what still runs (on
        # invariants alone) has no effect: then skipping the whole loop is what the dataflow schedule does
        self.dead_without_variables = dead_without_variables

    def failed_node(self, error: BaseException) -> int:
        tb, line, codes = error.__traceback__, 0, set()
        while tb is not None:
            codes.add(tb.tb_frame.f_code)
            if tb.tb_frame.f_code is self.run.__code__:
                line = tb.tb_lineno
            tb = tb.tb_next
        for loop in self._inner:
            if loop.run.__code__ in codes:
                return loop.failed_node(error)
        return self._line_nodes.get(line, self.exits[0] if self.exits else self.enters[0])


def compile_loops(nodes: Sequence[LoopNode], order: Sequence[int], template: list[Any]) -> dict[str, CompiledLoop]:
    """The compiled loop of every frame of the plan that qualifies, by frame name."""
    frames, parents = node_frames([n.node_def for n in nodes])
    members: dict[str, list[int]] = {}
    for i in order:
        if frames[i]:
            members.setdefault(frames[i], []).append(i)

    def depth(frame: str) -> int:
        return 0 if not frame else 1 + depth(parents.get(frame, ""))

    loops: dict[str, CompiledLoop] = {}
    for name in sorted(members, key=depth, reverse=True):  # inner frames first: an outer loop calls theirs
        inner = {child: loops.get(child) for child, parent in parents.items() if parent == name}
        loop = _compile_frame(nodes, name, members[name], template, inner)
        if loop is not None:
            loops[name] = loop
    return loops


def root_schedule(nodes: Sequence[LoopNode], order: Sequence[int], loops: Mapping[str, CompiledLoop]
                  ) -> tuple[list[int], dict[int, CompiledLoop]] | None:
    """The root frame's nodes in an order after `order` where each loop entered from the root is one step, at
    its last Enter (every Enter of it after what it reads, every reader of its Exits after them), and those
    loops by that Enter: a step the straight-line path runs. None when a frame of the plan did not compile or
    the root frame has control flow of its own (a cond)."""
    frames, parents = node_frames([n.node_def for n in nodes])
    members = [i for i in order if not frames[i]]
    if any(name not in loops for name in parents) or any(
            nodes[i].node_def.op in _SWITCH | _MERGE | _NEXT_ITERATION | {"LoopCond"} for i in members):
        return None
    top = [loops[name] for name, parent in parents.items() if not parent]
    schedule = _order_with_calls(nodes, members, top)
    return None if schedule is None else (schedule, {loop.enters[-1]: loop for loop in top})


def _compile_frame(nodes: Sequence[LoopNode], name: str, members: list[int], template: list[Any],
                   inner: dict[str, CompiledLoop | None]) -> CompiledLoop | None:
    """The frame's loop, or None when it is not one this path runs; `inner` has the compiled loops of the
    frames nested in it (None for one that did not compile)."""
    enters = [n.index for n in nodes if n.node_def.op in _ENTER and n.frame_name == name]
    member_set = set(members)
    if any(loop is None or any(e not in member_set for e in loop.enters) for loop in inner.values()):
        return None
    calls = {loop.enters[-1]: loop for loop in inner.values() if loop is not None and loop.enters}
    members = _order_with_calls(nodes, members, list(calls.values()))
    if members is None:
        return None
    inner_enters = {e for loop in calls.values() for e in loop.enters}
    inside = member_set | set(enters) | {e for loop in calls.values() for e in loop.exits}
    loop_conds = [i for i in members if nodes[i].node_def.op == "LoopCond"]
    if len(loop_conds) != 1:
        return None
    pred_slot = nodes[loop_conds[0]].out_slot
    in_edges: dict[int, list[tuple[int, int]]] = {i: [] for i in members}  # node -> (source, slot)
    for source in inside:
        for successor, slot, _ in nodes[source].out_edges:
            if successor in member_set:
                in_edges[successor].append((source, slot))
            elif source in member_set and nodes[source].node_def.op not in _EXIT and source not in inner_enters:
                return None  # a value leaves the frame other than by an Exit
    for i in enters:
        if not nodes[i].constant_enter and any(nodes[s].node_def.op not in _MERGE or slot < 0
                                               for s, slot, _ in nodes[i].out_edges):
            return None  # a loop variable's Enter feeds only its Merge (it has a value in iteration 0 alone)
    live: dict[int, _Live] = {i: _Live.ALWAYS for i in enters}
    guards: dict[int, frozenset[tuple[int, bool]]] = {i: frozenset() for i in enters}
    merges: list[tuple[int, int, int]] = []  # (Merge, its Enter, its NextIteration)
    cond_switches: dict[int, int] = {}  # a cond's Switch: its predicate's slot, past Identities
    producers = {nodes[i].out_slot: i for i in members}
    cond_merges: dict[int, tuple[int, bool]] = {}
    variant = dict.fromkeys(enters, False)  # below a loop variable (a Merge)
    for i in members:
        node, op = nodes[i], nodes[i].node_def.op
        if (op in _REFUSED or (op in _ENTER and i not in inner_enters) or node.asynchronous
                or (node.call is None and not (node.kernel is not None and node.kernel.constant))):
            return None
        sources = [s for s, _ in in_edges[i]]
        if len(sources) != node.num_data_inputs + node.num_control_inputs:
            return None  # an input from outside the frame other than by an Enter
        if op in _MERGE and any(nodes[s].node_def.op in _NEXT_ITERATION for s in sources):
            kinds = sorted((nodes[s].node_def.op in _ENTER, s) for s in sources)
            if len(sources) != 2 or node.num_control_inputs or [k for k, _ in kinds] != [False, True] or \
                    nodes[kinds[0][1]].node_def.op not in _NEXT_ITERATION:
                return None
            merges.append((i, kinds[1][1], kinds[0][1]))
            live[i], guards[i], variant[i] = _Live.ALWAYS, frozenset(), True
            continue
        if op in _SWITCH and node.inputs[1] != pred_slot:
            pred = node.inputs[1]
            while pred in producers and nodes[producers[pred]].node_def.op == "Identity":
                pred = nodes[producers[pred]].inputs[0]
            cond_switches[i] = pred
        elif op in _SWITCH and node.num_control_inputs:
            return None
        edges = []
        for source, slot in in_edges[i]:
            if nodes[source].node_def.op in _NEXT_ITERATION:
                return None
            edge, edge_guard = live[source], guards[source]
            if nodes[source].node_def.op in _SWITCH and slot >= 0:
                taken = slot != nodes[source].out_slot
                if source in cond_switches:
                    edge_guard = edge_guard | {(cond_switches[source], taken)}
                else:
                    edge = _Live.BODY if taken else _Live.EXIT
            edges.append((edge, edge_guard, slot))
        if op in _MERGE:  # a cond's: its two inputs live on the two sides of one predicate
            if len(edges) != 2 or node.num_control_inputs or edges[0][0] != edges[1][0] or \
                    sorted(slot for _, _, slot in edges) != sorted(node.inputs):
                return None
            edges.sort(key=lambda edge: edge[2] != node.inputs[0])  # in the order of the Merge's inputs
            first, second = edges[0][1] - edges[1][1], edges[1][1] - edges[0][1]
            if len(first) != 1 or len(second) != 1 or [p for p, _ in first] != [p for p, _ in second]:
                return None
            cond_merges[i] = next(iter(first))
            edges = [(edges[0][0], edges[0][1] & edges[1][1], -1)]
        state, guard = _Live.ALWAYS, frozenset()
        for edge, edge_guard, _ in edges:
            state, guard = _both(state, edge), guard | edge_guard
        if len({p for p, _ in guard}) != len(guard):
            state = _Live.NEVER  # below both sides of one predicate
        if op == "ControlTrigger":
            state, guard = _Live.ALWAYS, frozenset()  # never dead: it runs once its inputs have arrived, dead or live
        live[i], guards[i] = state, guard
        variant[i] = any(variant[source] for source, _ in in_edges[i])
        if i in calls:  # the line of the nested loop's call runs where its Exits are live
            called = _call_state(nodes, calls[i], live, guards)
            if called is None:
                return None
            for e in [i, *calls[i].exits]:
                live[e], guards[e], variant[e] = *called, True
        frame_control = op in _NEXT_ITERATION or op in _EXIT or op == "LoopCond" or \
            (op in _SWITCH and i not in cond_switches)
        if (state == _Live.NEVER or (frame_control and guard)
                or (op in _SWITCH and i not in cond_switches and state != _Live.ALWAYS)
                or (op in _NEXT_ITERATION and state != _Live.BODY) or (op in _EXIT and state != _Live.EXIT)
                or (op == "LoopCond" and state != _Live.ALWAYS)):
            return None
    exits = [i for i in members if nodes[i].node_def.op in _EXIT]
    dead_without_variables = variant[loop_conds[0]] and not any(
        not variant[i] and op_registry.get(nodes[i].node_def.op).op_def.is_stateful for i in members)
    return _generate(nodes, name, members, enters, exits, merges, _Conds(live, guards, cond_switches, cond_merges),
                     loop_conds[0], template, calls, dead_without_variables)


def _call_state(nodes: Sequence[LoopNode], loop: CompiledLoop, live: dict[int, _Live],
                guards: dict[int, frozenset[tuple[int, bool]]]) -> tuple[_Live, frozenset[tuple[int, bool]]] | None:
    """Where a nested loop's Exits are live: where its loop variables' Enters are, which must agree (None when
    not). An invariant's Enter may be live more often when the loop is dead without its variables."""
    variables = {(live[e], guards[e]) for e in loop.enters if not nodes[e].constant_enter}
    if len(variables) != 1:
        return None
    state, guard = variables.pop()
    for e in loop.enters:
        if (live[e], guards[e]) != (state, guard) and not (
                loop.dead_without_variables and _both(live[e], state) == state and guards[e] <= guard):
            return None
    return state, guard


def _order_with_calls(nodes: Sequence[LoopNode], members: list[int], loops: list[CompiledLoop]) -> list[int] | None:
    """The frame's nodes in an order where each nested loop is one step, at its last Enter: every Enter of it
    after what it reads, every reader of its Exits after all of them (None for a cycle)."""
    if not loops:
        return members
    unit = {e: loop.enters[-1] for loop in loops for e in loop.enters + loop.exits}
    rank = {i: k for k, i in enumerate(members)}
    waits: dict[int, set[int]] = {unit.get(i, i): set() for i in members}
    for source in members + [x for loop in loops for x in loop.exits]:
        if nodes[source].node_def.op in _NEXT_ITERATION:
            continue  # the back edge
        for successor, _, _ in nodes[source].out_edges:
            if successor in rank and unit.get(successor, successor) != unit.get(source, source):
                waits[unit.get(successor, successor)].add(unit.get(source, source))
    ready = [(rank[i], i) for i, before in waits.items() if not before]
    heapq.heapify(ready)
    followers: dict[int, list[int]] = {}
    for i, before in waits.items():
        for source in before:
            followers.setdefault(source, []).append(i)
    order = []
    while ready:
        _, i = heapq.heappop(ready)
        order.extend(loop_enters for loop_enters in ([e for e in members if unit.get(e) == i and e != i]
                                                      if i in unit else []))
        order.append(i)
        for follower in followers.get(i, ()):
            waits[follower].discard(i)
            if not waits[follower]:
                heapq.heappush(ready, (rank[follower], follower))
    return order if len(order) == len(members) else None


def _generate(nodes: Sequence[LoopNode], name: str, members: list[int], enters: list[int], exits: list[int],
              merges: list[tuple[int, int, int]], conds: _Conds, loop_cond: int,
              template: list[Any], calls: dict[int, CompiledLoop], dead_without_variables: bool) -> CompiledLoop:
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
    # A value forwarded from elsewhere may be a ref variable's live read, whose later assigns every iteration
    # must see (TF's aliased buffer): it stays the array; the others become scalars
    producers = {n.out_slot + k: n.node_def.op for n in nodes for k in range(n.num_outputs)}
    namespace["_KEEP"] = [producers.get(nodes[i].inputs[0]) in _FORWARDS | _ENTER for i in enters]
    lines = ["def loop(values, cancellation):",
             f"    {''.join(f's{nodes[i].out_slot}, ' for i in enters)}= "
             "[v if keep else _as_scalar(v) for v, keep in zip(values, _KEEP)]"]
    for merge, enter, _ in merges:
        lines.append(f"    s{nodes[merge].out_slot} = s{nodes[enter].out_slot}")
        if nodes[merge].out_slot + 1 in used:
            lines.append(f"    s{nodes[merge].out_slot + 1} = _ZERO")
    for pred in sorted({p for guard in conds.guards.values() for p, _ in guard}):
        lines.append(f"    b{pred} = False")  # each cond's side, set by its Switches: read below them alone

    def emit(i: int, indent: str, switch_output: int = 1) -> None:
        node, op = nodes[i], nodes[i].node_def.op
        if op in _NOTHING or node.call is None or (op in _MERGE and i not in conds.merges) or \
                (op in _ENTER and i not in calls):
            return
        if conds.guards[i]:
            lines.append(f"{indent}if {' and '.join(('' if side else 'not ') + f'b{p}' for p, side in sorted(conds.guards[i]))}:")
            indent += "    "
        if i in conds.merges:
            pred, side = conds.merges[i]
            first, second = node.inputs
            lines.append(f"{indent}if {'' if side else 'not '}b{pred}:")
            lines.append(f"{indent}    s{node.out_slot}, s{node.out_slot + 1} = {ref(first)}, _ZERO")
            lines.append(f"{indent}else:")
            lines.append(f"{indent}    s{node.out_slot}, s{node.out_slot + 1} = {ref(second)}, _ONE")
            return
        if i in calls:
            loop = calls[i]
            namespace[f"_loop{i}"] = loop.run
            values = ", ".join(ref(nodes[e].inputs[0]) + (".read()" if nodes[e].deref else "") for e in loop.enters)
            lines.append(f"{indent}{''.join(f's{nodes[e].out_slot}, ' for e in loop.exits)}= _loop{i}([{values}], "
                         "cancellation)" if loop.exits else f"{indent}_loop{i}([{values}], cancellation)")
            line_nodes[len(lines)] = i
            return
        if i in conds.switches:  # the kernel (which checks the predicate) leaves the untaken output dead
            lines.append(f"{indent}{kernel_statement(node, f'c{i}', ref, namespace)[0]}")
            line_nodes[len(lines)] = i
            lines.append(f"{indent}b{conds.switches[i]} = s{node.out_slot + 1} is not _DEAD")
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
    switches = [i for i in members if nodes[i].node_def.op in _SWITCH and i not in conds.switches]
    if switches:  # a predicate other than NumPy's True goes through a Switch kernel, which checks it
        switch = nodes[switches[0]].kernel
        namespace["_switch"] = functools.partial(switch.call, OpKernelContext(switch))
        lines.append(f"        if {pred} is not _TRUE and _switch(None, {pred})[1] is _DEAD:")
        line_nodes[len(lines)] = switches[0]
    else:
        lines.append(f"        if not {pred}:")
    live = conds.live
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
    return CompiledLoop(enters, exits, namespace["loop"], line_nodes, list(calls.values()), dead_without_variables)



def _cancelled() -> errors.CancelledError:
    return errors.CancelledError(None, None, "The step was cancelled while a loop ran")


def _as_scalar(value: Any) -> Any:
    """A 0-d numeric array as the NumPy scalar it holds (a fed or constant loop bound, a counter's step):
    the same value to every kernel, but NumPy's operators on scalars skip the ufunc machinery, several
    times the cost of a small iteration."""
    if type(value) is np.ndarray and value.ndim == 0 and value.dtype.kind in "biufc":
        return value[()]
    return value
