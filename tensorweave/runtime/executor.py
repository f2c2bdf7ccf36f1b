"""The dataflow executor of one partition: an immutable plan, built once, and a per-step state.

The plan (TF's ExecutorImpl) holds, for every node of the partition's GraphDef, its `OpKernel` (attrs
bound, persistent state), its kind (normal, Switch, Merge, Enter, Exit, NextIteration, Send, Recv, control
trigger, call-frame `_Arg`/`_Retval`), its inputs as integer slots of a flat value list, its out edges and
the initial pending counts. A step (TF's ExecutorState) has its own frames: today the root frame with its
one iteration, which holds the values (entries that may be dead), pending and dead-input counts and
remaining-consumer counts. Concurrent steps share the plan and nothing else. A value is dropped as soon as
its last consumer has run.

Scheduling, as TF's: a node is ready when its pending count reaches zero; a ready node with a dead input
does not run and its outputs are dead (the control-flow issue adds Merge's and the frame nodes' rules at
`_NodeKind`); cheap kernels run inline on whichever thread made them ready, expensive ones (MatMul, ...)
go to the session's inter-op pool when other work is ready, unless the node's measured cost (kept per node
in the plan, as TF's executor keeps its cost estimates) shows it quicker than a thread hop (a small LSTM
cell's MatMul): a hop costs tens of microseconds, and far more on a loaded machine, where a woken thread
waits for a core. An asynchronous kernel (Recv, Dequeue)
is started and left: its `done` callback, from any thread, finishes it and carries the step on on that
thread, so no thread is held while it waits. `run_async` is the whole interface; the blocking `run` waits
on it, and plans without control flow (nor asynchronous kernels beside several expensive ones) take the
straight-line fast path (straight_line.py), which launches expensive kernels on the pool itself. A loop frame
simple enough runs as one compiled Python loop once all its Enters have arrived (loop_compiler.py); a plan
whose loops all compile, entered from a root frame without conds, runs straight, each loop one line of it.

An error fails the step: the first one is kept, nothing new starts, the step's cancellation manager runs
its callbacks and its rendezvous is aborted (waiting asynchronous kernels finish with the error), and the
step completes with it once the kernels in flight are done. Values on ref edges are the variable objects
themselves; an edge from a ref output into a non-ref input is dereferenced here, as TF's executor does.
`_Arg` and `_Retval` nodes are the step's call frame.
"""

from __future__ import annotations

import enum
import hashlib
import heapq
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.framework import op_registry
from tensorweave.framework.cancellation import cancel_after
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.dtypes import type_string
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.op_def import arg_types
from tensorweave.framework.op_kernel import (
    DEAD,
    OpKernel,
    OpKernelContext,
    StepContext,
    enter_step,
    kernel_error,
    leave_step,
    quiet_numerics,
)
from tensorweave.framework.op_registry import new_kernel
from tensorweave.platform.thread_pool import ThreadPool
from tensorweave.runtime import input_chain
from tensorweave.runtime.loop_compiler import CompiledLoop, compile_loops, root_schedule
from tensorweave.runtime.step_stats import NodeExecStats
from tensorweave.runtime.straight_line import (
    INLINE_BELOW_S,
    LoopCall,
    StraightLineStep,
    compile_step,
    record_cost,
)

KernelFactory = Callable[[NodeDef, DeviceBase], OpKernel]
StepDone = Callable[[BaseException | None], None]


class _NodeKind(enum.IntEnum):
    NORMAL = 0
    ARG = 1
    RETVAL = 2
    SWITCH = 3
    MERGE = 4
    ENTER = 5
    EXIT = 6
    NEXT_ITERATION = 7
    SEND = 8
    RECV = 9
    CONTROL_TRIGGER = 10


_KINDS = {"_Arg": _NodeKind.ARG, "_Retval": _NodeKind.RETVAL, "Switch": _NodeKind.SWITCH,
          "RefSwitch": _NodeKind.SWITCH, "_SwitchN": _NodeKind.SWITCH, "Merge": _NodeKind.MERGE,
          "RefMerge": _NodeKind.MERGE, "Enter": _NodeKind.ENTER, "RefEnter": _NodeKind.ENTER, "Exit": _NodeKind.EXIT,
          "RefExit": _NodeKind.EXIT,
          "NextIteration": _NodeKind.NEXT_ITERATION, "RefNextIteration": _NodeKind.NEXT_ITERATION,
          "_Send": _NodeKind.SEND, "_HostSend": _NodeKind.SEND, "_Recv": _NodeKind.RECV,
          "_HostRecv": _NodeKind.RECV, "ControlTrigger": _NodeKind.CONTROL_TRIGGER}
_REF_READERS = frozenset({"IsVariableInitialized", "RefIdentity"})  # ref inputs they only read
_RESOURCE_UPDATE = re.compile(r"Assign(Add|Sub)?VariableOp|ResourceScatter|ResourceStridedSliceAssign")
# training ops (ApplyAdam, ResourceSparseApplyFtrl, ...) run as soon as they are ready: beside them TF's order
# depends on its threads, and a deferred update would hold every gradient of the step until the end
_TRAINING_OP = re.compile(r"(Resource)?(Sparse)?Apply")
_CONTROL_FLOW = frozenset({_NodeKind.SWITCH, _NodeKind.MERGE, _NodeKind.ENTER, _NodeKind.EXIT,
                           _NodeKind.NEXT_ITERATION})
_LOOP_KINDS = frozenset({_NodeKind.ENTER, _NodeKind.EXIT, _NodeKind.NEXT_ITERATION})


class CallFrame:
    """A step's arguments (the `_Arg` values, by index) and, once it is done, its results (`_Retval`s)."""

    __slots__ = ("args", "rets")

    def __init__(self, args: Sequence[Any]) -> None:
        self.args = args
        self.rets: list[Any] = []


class _Node:
    """A plan entry: one node with its kernel and its inputs resolved to slots."""

    __slots__ = ("index", "node_def", "kind", "kernel", "call", "inputs", "deref", "out_slot", "num_outputs",
                 "expensive", "asynchronous", "out_edges", "num_control_inputs", "num_data_inputs", "frame_name",
                 "constant_enter", "updates_ref")

    def __init__(self, index: int, node_def: NodeDef) -> None:
        self.index = index
        self.node_def = node_def
        self.kind = _KINDS.get(node_def.op, _NodeKind.NORMAL)
        self.kernel: OpKernel | None = None
        self.call: Callable | None = None  # None: nothing to run per step (call frame, constant)
        self.inputs: tuple[int, ...] = ()
        self.deref: tuple[int, ...] = ()
        self.out_slot = 0
        self.num_outputs = 0
        self.expensive = False
        self.asynchronous = False
        # updates a variable (a ref input: Assign, ScatterAdd, ...; a resource: AssignVariableOp, ...): it runs
        # once nothing else is ready, as TF's come out (a step fetching a reader beside the update reads the old value)
        self.updates_ref = False
        # (successor, output slot, input position in the successor); slot and position -1: a control edge
        self.out_edges: list[tuple[int, int, int]] = []
        self.num_control_inputs = 0
        self.num_data_inputs = 0
        # an Enter's frame and whether it enters a loop invariant
        self.frame_name = node_def.attr["frame_name"].decode() if self.kind == _NodeKind.ENTER else ""
        self.constant_enter = self.kind == _NodeKind.ENTER and bool(node_def.attr["is_constant"])


class InterOpPool(ThreadPool):
    """A session's (or worker's) inter-op threads: the pool that knows how many kernels it runs at once."""

    def __init__(self, threads: int, thread_name_prefix: str = "tensorweave-inter-op") -> None:
        super().__init__(threads, thread_name_prefix)
        self.threads = threads


class Executor:
    """Runs one partition's GraphDef on one device; `run(args)` returns the `_Retval` values in index order."""

    def __init__(self, graph_def: GraphDef, device: DeviceBase, kernel_for: KernelFactory = new_kernel,
                 pool: Any = None) -> None:
        self.graph_def = graph_def  # what the plan was built from (RunOptions.output_partition_graphs shows it)
        self.device = device
        self._pool = pool
        node_defs = graph_def.node
        nodes = [_Node(i, n) for i, n in enumerate(node_defs)]
        self._nodes = nodes
        next_slot = 0
        input_is_ref, output_is_ref = [], []
        for node in nodes:
            op = op_registry.lookup_op(node.node_def)
            input_is_ref.append([t._is_ref_dtype for t in arg_types(op.op_def.input_args, node.node_def.attr)])
            out_types = arg_types(op.op_def.output_args, node.node_def.attr)
            output_is_ref.append([t._is_ref_dtype for t in out_types])
            node.out_slot, node.num_outputs = next_slot, len(out_types)
            next_slot += len(out_types)
        self._resolve_inputs(input_is_ref, output_is_ref)
        self._frames = _loop_frames(nodes)
        order = _topological_order(nodes)
        self._roots = [i for i in order if not nodes[i].node_def.input]
        self._pending = [_initial_pending(n) for n in nodes]

        self._template: list[Any] = [None] * next_slot
        self._arg_slots: list[tuple[int, int]] = []
        ret_slots: list[tuple[int, int, bool]] = []
        self._ret_nodes: dict[int, NodeDef] = {}  # by index: a ref fetch's read fails naming its _Retval, as TF's
        for node in nodes:
            nd = node.node_def
            if node.kind == _NodeKind.ARG:
                self._arg_slots.append((node.out_slot, nd.attr["index"]))
            elif node.kind == _NodeKind.RETVAL:
                ret_slots.append((nd.attr["index"], node.inputs[0], bool(node.deref)))
                self._ret_nodes[nd.attr["index"]] = nd
            else:
                kernel = node.kernel = kernel_for(nd, device)
                node.expensive, node.asynchronous = kernel.expensive, kernel.asynchronous
                if kernel.constant:
                    self._template[node.out_slot] = kernel.compute([])[0]
                else:
                    node.call = kernel.call
        self._ret_slots = sorted(ret_slots)
        self._loops = compile_loops(nodes, order, self._template)
        # Nodes a step never calls (feeds, fetches, constants), which a trace still lists, as TF's
        # (TF lists constants, then feeds, first; fetches last)
        self._untraced = ([n for n in nodes if n.kernel is not None and n.kernel.constant]
                          + [n for n in nodes if n.kind in (_NodeKind.ARG, _NodeKind.RETVAL)])
        fetched = {slot for _, slot, _ in ret_slots}
        self._remaining = self._consumer_counts(next_slot, fetched)
        runnable = [nodes[i] for i in order if nodes[i].call is not None]
        self._has_async = any(n.asynchronous for n in runnable)
        # A partition that has heavy kernels to run before its first wait starts on the pool when it runs
        # beside another such one (see run_partitions)
        self.starts_heavy = _expensive_before_waiting(nodes, self._roots)
        self._costs = [float("inf")] * len(nodes)  # seconds per run of each expensive node, measured
        self._loop_calls: dict[int, LoopCall] = {}
        self.chain: input_chain.InputChain | None = None  # set for a QueueRunner's reader step (input_chain.py)
        self._compile = self._straight_schedule(order, runnable, fetched, pool)
        self._straight: StraightLineStep | None = self._compile(False) if self._compile is not None else None
        self._straight_traced: StraightLineStep | None = None

    def _straight_schedule(self, order: list[int], runnable: list[_Node], fetched: set[int], pool: Any
                           ) -> Callable[[bool], StraightLineStep | None] | None:
        """How to compile the plan's straight-line step (traced or not; None where it cannot be traced), or None
        when steps take the dataflow path. Several expensive kernels are launched (see straight_line.py) and
        loops entered from the root run compiled, each as one line, unless the plan holds asynchronous
        kernels, whose waits the dataflow path alone interleaves with them."""
        nodes = self._nodes
        expensive = sum(n.expensive for n in runnable)
        control_flow = any(n.kind in _CONTROL_FLOW for n in nodes)
        launches: dict[int, int] = {}
        if self._has_async:
            if expensive > 1 or control_flow:
                return None
            runnable = [nodes[i] for i in _topological_order(nodes, defer_async=True) if nodes[i].call is not None]
            waiting = [n for n in runnable if n.asynchronous]
            # a _Recv may receive a dead value, which only the dataflow path carries
            if not (all(n.kind == _NodeKind.NORMAL for n in waiting) and _chained(nodes, waiting)):
                return None
            if not self._arg_slots and not self._ret_slots:  # run many times at once when a QueueRunner loops
                produced = {slot for n in runnable for slot in range(n.out_slot, n.out_slot + n.num_outputs)}
                self.chain = input_chain.match(runnable, produced, self._template)
        else:
            # the caller's thread runs the step beside what it launches: only where the pool alone could
            # already run two kernels at once (TF's kernels run on inter-op threads, the caller waits)
            launch = expensive > 1 and isinstance(pool, InterOpPool) and pool.threads > 1
            if launch:
                order = _topological_order(nodes, launch_early=True)
            loops: dict[int, CompiledLoop] = {}
            if control_flow:
                schedule = root_schedule(nodes, order, self._loops)
                if schedule is None:
                    return None
                order, loops = schedule
            runnable = [nodes[i] for i in order if nodes[i].call is not None
                        and (nodes[i].kind != _NodeKind.ENTER or i in loops)]
            position = {node.index: p for p, node in enumerate(runnable)}
            for p, node in enumerate(runnable):
                if node.index in loops:
                    loop = loops[node.index]
                    position.update(dict.fromkeys(loop.enters, p))
                    self._loop_calls[p] = LoopCall(loop.run, [nodes[i] for i in loop.enters],
                                                   [nodes[i] for i in loop.exits],
                                                   lambda e, loop=loop: nodes[loop.failed_node(e)].node_def)
            launches = _launch_points(nodes, runnable, position) if launch else {}
        submit = pool.submit if pool is not None else None

        def compile_plan(traced: bool) -> StraightLineStep | None:
            if traced and self._loop_calls:  # a traced step shows every node of every iteration
                return None
            return compile_step(runnable, self._arg_slots, self._ret_slots, self._template, fetched, traced,
                                launches, self._costs, submit, self._loop_calls, self._ret_nodes)

        return compile_plan

    def _resolve_inputs(self, input_is_ref: list[list[bool]], output_is_ref: list[list[bool]]) -> None:
        """Inputs to slots, out edges, ref dereferences."""
        nodes = self._nodes
        by_name = {n.node_def.name: n.index for n in nodes}
        for node in nodes:
            nd = node.node_def
            slots, deref = [], []
            for spec in nd.input:
                src_name, src_index = parse_input(spec)
                src = by_name.get(src_name)
                if src is None:
                    raise errors.InvalidArgumentError(nd, None, f"Node '{nd.name}': Unknown input node '{spec}'")
                if src_index < 0:
                    nodes[src].out_edges.append((node.index, -1, -1))
                    node.num_control_inputs += 1
                    continue
                if src_index >= nodes[src].num_outputs:
                    raise errors.InvalidArgumentError(
                        nd, None, f"Node '{nd.name}': Connecting to invalid output {src_index} of source node "
                        f"{src_name} which has {nodes[src].num_outputs} outputs.")
                position = len(slots)
                slot = nodes[src].out_slot + src_index
                slots.append(slot)
                nodes[src].out_edges.append((node.index, slot, position))
                expects_ref = input_is_ref[node.index][position]  # a ref-typed _Retval returns the ref itself
                if output_is_ref[src][src_index] and not expects_ref:
                    deref.append(position)
                elif expects_ref and not output_is_ref[src][src_index]:
                    raise _ref_expected_error(nd, position, nodes[src].node_def, src_index)
            node.inputs = tuple(slots)
            node.deref = tuple(deref)
            node.num_data_inputs = len(slots)
            node.updates_ref = node.kind == _NodeKind.NORMAL and _TRAINING_OP.match(nd.op) is None and (
                _RESOURCE_UPDATE.match(nd.op) is not None
                or (nd.op not in _REF_READERS and any(input_is_ref[node.index][:len(slots)])))

    def _consumer_counts(self, num_slots: int, fetched: set[int]) -> list[int]:
        counts = [0] * num_slots
        for node in self._nodes:
            if node.call is not None:
                for slot in node.inputs:
                    counts[slot] += 1
        for slot in fetched:
            counts[slot] += 1  # never freed during the step
        return counts

    @property
    def ret_indices(self) -> list[int]:
        """The fetch index of each value `run` returns (a partition holds some of the step's fetches)."""
        return [index for index, _, _ in self._ret_slots]

    @property
    def ordered(self) -> bool:
        """Whether steps take the straight-line fast path (no parallelism or control flow, asynchronous kernels
        only one after another)."""
        return self._straight is not None

    @property
    def waits(self) -> bool:
        """Whether a step may wait in an asynchronous kernel or run a loop (a straight-line one then wants a
        step that the session's close and the step's timeout cancel)."""
        return self._has_async or bool(self._loop_calls)

    def run(self, args: Sequence[Any], stats: list[NodeExecStats] | None = None,
            step: StepContext | None = None) -> list[Any]:
        """Run one step with the given feeds; returns the fetched values. With `stats`, kernels are traced."""
        straight = self._straight
        if straight is not None and stats is not None:
            straight = self._straight_traced = self._straight_traced or self._compile(True)
        if straight is not None:
            start = time.time_ns() // 1000
            try:
                with quiet_numerics():
                    results = straight.run(args, step, stats)
            except Exception as e:
                failure = kernel_error(straight.failed_node(e), e)
                if step is not None and self._has_async:  # as a failed dataflow step: what waits on it stops
                    step.cancellation.start_cancel()
                    step.rendezvous.abort(failure)
                raise failure from e
            if stats is not None:
                self._add_frame_records(stats, args, start)
            return results
        finished = threading.Event()
        outcome: list[BaseException | None] = []
        step = step or StepContext()

        def done(error: BaseException | None) -> None:
            outcome.append(error)
            finished.set()

        frame = CallFrame(args)
        self.run_async(frame, step, done, stats)
        finished.wait()
        if outcome[0] is not None:
            raise outcome[0]
        return frame.rets

    def run_async(self, call_frame: CallFrame, step: StepContext, done: StepDone,
                  stats: list[NodeExecStats] | None = None, runner: StepRunner | None = None) -> None:
        """Start a step; `done(error or None)` is called once, from whichever thread finishes it, after the
        results are in `call_frame.rets` (in `ret_indices` order). The step's rendezvous and cancellation
        are `step`'s; expensive kernels go to `runner` (the waiting caller or the pool), else to the pool."""
        if stats is not None:
            start, finish = time.time_ns() // 1000, done

            def done(error: BaseException | None) -> None:
                if error is None:  # a failed step lists only the kernels that ran
                    self._add_frame_records(stats, call_frame.args, start)
                finish(error)

        _StepRun(self, call_frame, step, done, stats, runner).start()

    def _add_frame_records(self, stats: list[NodeExecStats], args: Sequence[Any], start: int) -> None:
        """Trace the nodes no kernel runs for: constants and `_Arg`s at the step's start (with their values),
        before the kernels' records, and `_Retval`s at its end (called once the step's kernels are done)."""
        end, thread = time.time_ns() // 1000, threading.get_native_id()
        first = []
        for node in self._untraced:
            nd = node.node_def
            if node.kind == _NodeKind.ARG:
                first.append(NodeExecStats(nd.name, nd.op, start, start, thread, (args[nd.attr["index"]],)))
            elif node.kind == _NodeKind.RETVAL:
                stats.append(NodeExecStats(nd.name, nd.op, end, end, thread))
            else:
                first.append(NodeExecStats(nd.name, nd.op, start, start, thread, (self._template[node.out_slot],)))
        stats[:0] = first


def run_partitions(executors: Sequence[Executor], frames: Sequence[CallFrame], step: StepContext,
                   traced: Sequence[list[NodeExecStats]] | None = None, timeout: float | None = None,
                   runner: StepRunner | None = None) -> None:
    """Run one step over several executors of this process (a step's partitions), sharing `step`'s rendezvous
    and cancellation: the first failure cancels the others, which stop waiting on it. Past `timeout` seconds
    the step is cancelled and fails with DeadlineExceededError. Raises the cause, not the cancellations and
    aborts it set off (TF's StatusGroup); the results are in `frames`. This thread works for the step
    through `runner` (one is made when none is given) until it is done."""
    remaining = len(executors)
    lock = threading.Lock()
    runner = runner or StepRunner(executors[0]._pool)
    failures: list[BaseException] = []

    def done(error: BaseException | None) -> None:
        nonlocal remaining
        with lock:
            if error is not None:
                failures.append(error)
            remaining -= 1
            last = remaining == 0
        if error is not None:
            step.cancellation.start_cancel()
            step.rendezvous.abort(error)
        if last:
            runner.finish()

    deadline = None if timeout is None else cancel_after(step.cancellation, timeout)
    # Partitions that soon wait on a Recv start first, inline; of those with heavy work before any wait (TF
    # starts every partition's ready nodes on the inter-op pool), all but the last go to the pool and the last
    # runs on this thread, so a step whose partitions hand work along a chain makes no thread hop to start
    heavy = [i for i, e in enumerate(executors) if e.starts_heavy and e._pool is not None]
    inline = heavy[-1] if heavy else None
    for number in [i for i in range(len(executors)) if i not in heavy] + heavy:
        executor, frame = executors[number], frames[number]
        stats = traced[number] if traced is not None else None
        if number in heavy and number != inline:
            executor._pool.submit(executor.run_async, frame, step, done, stats, runner)
        else:
            executor.run_async(frame, step, done, stats, runner)
    runner.work_until_finished()
    if deadline is not None:
        deadline.cancel()
        if deadline.fired and failures:  # the deadline's cancellation woke every waiting kernel
            raise errors.DeadlineExceededError(None, None, "Timed out waiting for notification")
    if failures:
        raise next((f for f in failures if not isinstance(f, (errors.CancelledError, errors.AbortedError))),
                   failures[0])


class StepRunner:
    """Where a step of several partitions sends its expensive kernels: to the thread that ran the step, while
    it has nothing to do but wait for the partitions, else to whichever comes first of the inter-op pool's
    threads and that thread.

    Partitions hand work to each other through Send and Recv on whichever thread sends, so the caller soon
    waits with every partition's work on pool threads, which may be busy carrying another partition on: the
    caller takes that work instead (as it does its own partition's inline when one device runs the step). A
    task handed to the pool while the caller is busy stays claimable by the caller once it waits: a pool
    thread may take a millisecond to wake (or be busy), and the caller, about to wait, runs it instead.
    """

    def __init__(self, pool: Any) -> None:
        self._pool = pool
        self._condition = threading.Condition(threading.Lock())
        self._tasks: deque[tuple[Callable, tuple]] = deque()  # for the caller alone
        self._shared: deque[tuple[Callable, tuple]] = deque()  # for the caller or a pool thread
        self._idle = False
        self._busy = False
        self._finished = False

    def offer(self, fn: Callable, *args: Any) -> bool:
        """Have the caller run `fn(*args)` (a blocking call the step waits for) when it has nothing else to do
        (it may still be starting the step); False when it is busy or has work waiting, or the step is over."""
        with self._condition:
            if self._tasks or self._busy or self._finished:
                return False
            self._tasks.append((fn, args))
            self._condition.notify()
            return True

    def submit(self, fn: Callable, *args: Any) -> None:
        """Run `fn(*args)` on the caller if it is idle and no task waits for it already, else on the first of
        a pool thread and the caller to be free."""
        with self._condition:
            if self._idle and not self._tasks:
                self._tasks.append((fn, args))
                self._condition.notify()
                return
            self._shared.append((fn, args))
            self._condition.notify()
        self._pool.submit(self._run_shared)

    def _run_shared(self) -> None:
        """On a pool thread: one shared task, unless the caller has taken them all."""
        with self._condition:
            if not self._shared:
                return
            fn, args = self._shared.popleft()
        fn(*args)

    def finish(self) -> None:
        with self._condition:
            self._finished = True
            self._condition.notify()

    def work_until_finished(self) -> None:
        """Run handed and shared tasks on this thread until `finish` (every partition done; no task is left by
        then, as a step finishes only after the kernels it started)."""
        condition, tasks, shared = self._condition, self._tasks, self._shared
        while True:
            with condition:
                while not tasks and not shared and not self._finished:
                    self._idle = True
                    condition.wait()
                self._idle = False
                if not tasks and not shared:
                    return
                fn, args = (tasks or shared).popleft()
                self._busy = True
            fn(*args)
            with condition:
                self._busy = False


class _Iteration:
    """One iteration of one frame: its entries (values, possibly dead) and its nodes' counts."""

    __slots__ = ("values", "pending", "dead_inputs", "remaining", "merge_choice", "outstanding_ops",
                 "outstanding_frames")

    def __init__(self, values: list[Any], pending: list[int], remaining: list[int]) -> None:
        self.values = values
        self.pending = pending
        self.dead_inputs = [0] * len(pending)
        self.remaining = remaining
        self.merge_choice: dict[int, int] = {}  # Merge node -> the input position it forwards
        self.outstanding_ops = 0  # nodes of this iteration made ready and not yet finished
        self.outstanding_frames = 0  # child frames started in this iteration and not yet done


class _Frame:
    """A loop frame of a step (TF's FrameState): its iterations by number, up to `max_parallel` of them in
    flight, the NextIteration values waiting for a free one, its loop invariants (constant Enters, visible
    to every iteration) and its dead Exits (passed on to the parent when the frame is done). The root frame
    has one iteration and no parent."""

    __slots__ = ("name", "key", "frame_id", "parent", "parent_iteration", "iterations", "iteration_count",
                 "outstanding_iterations", "max_parallel", "pending_inputs", "next_iteration_roots",
                 "invariants", "dead_exits", "children", "loop", "arrivals")

    def __init__(self, name: str, key: tuple[int, str], parent: _Frame | None, parent_iteration: int,
                 max_parallel: int, pending_inputs: int) -> None:
        self.name = name
        self.key = key  # (parent iteration, frame name): how the parent finds it
        self.frame_id = _frame_id(name)
        self.parent = parent
        self.parent_iteration = parent_iteration
        self.iterations: dict[int, _Iteration] = {}
        self.iteration_count = 0  # the newest iteration started
        self.outstanding_iterations = 1
        self.max_parallel = max_parallel
        self.pending_inputs = pending_inputs  # Enters into this frame that have not run yet
        self.next_iteration_roots: list[tuple[_Node, Any]] = []
        self.invariants: list[tuple[_Node, Any, bool]] = []
        self.dead_exits: list[_Node] = []
        self.children: dict[tuple[int, str], _Frame] = {}
        self.loop: CompiledLoop | None = None  # its compiled loop, when it runs as one
        self.arrivals: list[tuple[_Node, Any, bool]] = []  # the Enters' values that loop waits for


def _frame_id(name: str) -> int:
    """A frame's id in rendezvous keys: the same for the same frame in every partition of a step."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little") if name else 0


Ready = deque  # of (node index, is_dead, frame, iteration)


class _StepRun:
    """The state of one step of one executor (TF's ExecutorState and its PropagatorState)."""

    def __init__(self, executor: Executor, call_frame: CallFrame, step: StepContext, done: StepDone,
                 stats: list[NodeExecStats] | None, runner: StepRunner | None = None) -> None:
        self.executor = executor
        pool = executor._pool
        self.submit = None if pool is None else runner.submit if runner is not None else pool.submit
        self.nodes = executor._nodes
        self.call_frame = call_frame
        self.step = step
        self.done = done
        self.stats = stats
        self.root = _Frame("", (0, ""), None, 0, 1, 0)
        values = executor._template[:]
        for slot, index in executor._arg_slots:
            values[slot] = call_frame.args[index]
        self.root.iterations[0] = _Iteration(values, executor._pending[:], executor._remaining[:])
        self.lock = threading.Lock()
        self.outstanding = 0  # nodes made ready and not yet finished, in every frame
        self.waiting = 0  # of those, asynchronous kernels started and not done (a Recv waiting for its value)
        self.failure: BaseException | None = None

    def start(self) -> None:
        roots = self.executor._roots
        if not roots:
            self._complete()
            return
        iteration = self.root.iterations[0]
        self.outstanding = iteration.outstanding_ops = len(roots)
        with quiet_numerics():
            self._process(Ready((i, False, self.root, 0) for i in roots))

    def _process(self, ready: Ready) -> None:
        """Run ready nodes on this thread until none is left (expensive ones may go to the pool). As TF's
        come out, one that updates a ref input waits until nothing else is ready (a reader on this device
        sees the old value) and a _Send waits behind those updates (a reader on another device, the new)."""
        nodes, submit, cancellation, costs = self.nodes, self.submit, self.step.cancellation, self.executor._costs
        updates: Ready = Ready()
        sends: Ready = Ready()
        while ready or updates or sends:
            if ready:
                index, is_dead, frame, iteration = item = ready.popleft()
                if nodes[index].updates_ref:
                    updates.append(item)
                    continue
                if (updates or sends) and nodes[index].kind == _NodeKind.SEND:
                    sends.append(item)
                    continue
            else:
                index, is_dead, frame, iteration = (updates or sends).popleft()
            node = nodes[index]
            if self.failure is None and cancellation.is_cancelled and not node.asynchronous:
                # a timeout or a closed session: a loop on this thread stops here (asynchronous kernels
                # look at the cancellation themselves, with their own message)
                self._fail(node, errors.CancelledError(None, None, "The step was cancelled"))
            if self.failure is not None:  # nothing new starts after an error
                self._retire(frame, iteration)
                continue
            if (is_dead and node.kind != _NodeKind.SEND) or node.call is None:  # a dead _Send sends deadness
                self._finish(node, frame, iteration, None, is_dead, ready)
            elif node.asynchronous:
                self._start_async(node, frame, iteration, ready)
            elif (node.expensive and submit is not None and (ready or self.outstanding - self.waiting > 1)
                  and costs[index] >= INLINE_BELOW_S):
                submit(self._run_on_pool, node, frame, iteration)
            else:
                try:
                    result = self._execute(node, frame, iteration)
                except Exception as e:
                    self._fail(node, e)
                    self._retire(frame, iteration)
                    continue
                self._finish(node, frame, iteration, result, False, ready)

    def _inputs(self, node: _Node, iteration: _Iteration) -> list[Any]:
        values = iteration.values
        if node.kind == _NodeKind.MERGE:  # only the input it forwards: the others are dead or not there yet
            inputs = [DEAD] * node.num_data_inputs
            chosen = iteration.merge_choice[node.index]
            inputs[chosen] = values[node.inputs[chosen]]
        else:
            inputs = [values[s] for s in node.inputs]
        for position in node.deref:
            if inputs[position] is not DEAD:
                inputs[position] = inputs[position].read()
        return inputs

    def _execute(self, node: _Node, frame: _Frame, iteration: int) -> Any:
        ctx = OpKernelContext(node.kernel, self.step, frame.frame_id, iteration)
        inputs = self._inputs(node, frame.iterations[iteration])
        if self.stats is None:
            if not node.expensive:
                return node.call(ctx, *inputs)
            start = time.perf_counter()
            result = node.call(ctx, *inputs)
            record_cost(self.executor._costs, node.index, time.perf_counter() - start)
            return result
        start = time.time_ns() // 1000
        result = node.call(ctx, *inputs)
        self.stats.append(NodeExecStats(node.node_def.name, node.node_def.op, start, time.time_ns() // 1000,
                                        threading.get_native_id(), _as_outputs(node, result)))
        return result

    def _run_on_pool(self, node: _Node, frame: _Frame, iteration: int) -> None:
        try:
            with quiet_numerics():
                result = self._execute(node, frame, iteration)
        except Exception as e:
            self._fail(node, e)
            self._retire(frame, iteration)
            return
        ready: Ready = Ready()
        self._finish(node, frame, iteration, result, False, ready)
        with quiet_numerics():
            self._process(ready)

    def _start_async(self, node: _Node, frame: _Frame, iteration: int, ready: Ready) -> None:
        """Start an asynchronous kernel. A completion from inside the call itself joins this thread's ready
        queue (no recursion); a later one, from any thread, carries the step on on that thread."""
        caller = threading.get_ident()
        inline: list[tuple[Any, BaseException | None]] = []
        starting = True
        start = time.time_ns() // 1000

        def done(outputs: Any = None, error: BaseException | None = None) -> None:
            if self.stats is not None:
                self.stats.append(NodeExecStats(node.node_def.name, node.node_def.op, start,
                                                time.time_ns() // 1000, threading.get_native_id(),
                                                _as_outputs(node, outputs)))
            if starting and threading.get_ident() == caller:
                inline.append((outputs, error))
                return
            self._async_done(node, frame, iteration, outputs, error, None)

        ctx = OpKernelContext(node.kernel, self.step, frame.frame_id, iteration)
        with self.lock:
            self.waiting += 1
        try:
            node.call(ctx, done, *self._inputs(node, frame.iterations[iteration]))
        except Exception as e:  # the kernel failed before it could call done
            inline.append((None, e))
        starting = False
        if inline:
            self._async_done(node, frame, iteration, *inline[0], ready)

    def _async_done(self, node: _Node, frame: _Frame, iteration: int, outputs: Any, error: BaseException | None,
                    ready: Ready | None) -> None:
        with self.lock:
            self.waiting -= 1
        if error is not None:
            self._fail(node, error)
            self._retire(frame, iteration)
            return
        local = ready if ready is not None else Ready()
        self._finish(node, frame, iteration, outputs, False, local)
        if ready is None:
            with quiet_numerics():
                self._process(local)

    def _finish(self, node: _Node, frame: _Frame, iteration: int, result: Any, is_dead: bool,
                ready: Ready) -> None:
        """Store a node's outputs, free its consumed inputs, and pass its outputs on (TF's PropagateOutputs):
        to its successors in the same iteration, into a child frame (Enter), to the parent frame (Exit) or to
        the next iteration (NextIteration). The last Enter into a compiled loop runs that loop."""
        loop_due = None
        with self.lock:
            state = frame.iterations[iteration]
            values, remaining = state.values, state.remaining
            if is_dead:
                values[node.out_slot:node.out_slot + node.num_outputs] = [DEAD] * node.num_outputs
            elif node.call is not None:
                if node.num_outputs == 1:
                    values[node.out_slot] = result
                elif node.num_outputs:
                    _store_outputs(values, node.out_slot, node.num_outputs, result)
            kind = node.kind
            if kind not in _LOOP_KINDS:
                self._activate(node, is_dead, values, frame, iteration, ready)
            elif kind == _NodeKind.ENTER:
                child = self._child_frame(node, frame, iteration)
                value = None if is_dead else values[node.out_slot]
                if child.loop is None:
                    self._enter(node, is_dead, value, child, ready)
                else:
                    child.arrivals.append((node, value, is_dead))
                child.pending_inputs -= 1
                if child.loop is not None and not child.pending_inputs:
                    loop_due = child
                    self.outstanding += 1  # the compiled loop, until its Exits are out
            elif kind == _NodeKind.EXIT:
                if is_dead:  # passed on when the frame is done, if no live value leaves by this Exit
                    if iteration == frame.iteration_count:
                        frame.dead_exits.append(node)
                else:
                    self._activate_from(node, False, values[node.out_slot], frame.parent, frame.parent_iteration,
                                        ready)
            elif not is_dead:  # a live NextIteration: into the next iteration (a dead one stops here)
                value = values[node.out_slot]
                if iteration + 1 <= frame.iteration_count:
                    self._activate_from(node, False, value, frame, iteration + 1, ready)
                elif frame.outstanding_iterations == frame.max_parallel:
                    frame.next_iteration_roots.append((node, value))
                else:
                    self._new_iteration(frame, ready)
                    self._activate_from(node, False, value, frame, iteration + 1, ready)
            if kind in _LOOP_KINDS:  # its value now lives where it went
                values[node.out_slot] = None
            if node.call is not None:
                for slot in node.inputs:
                    remaining[slot] -= 1
                    if remaining[slot] == 0:
                        values[slot] = None
                for slot in range(node.out_slot, node.out_slot + node.num_outputs):
                    if remaining[slot] == 0:
                        values[slot] = None
            self.outstanding -= 1
            state.outstanding_ops -= 1
            if frame.parent is not None and not state.outstanding_ops:  # the iteration may be done
                self._cleanup(frame, ready)
            complete = self.outstanding == 0
        if loop_due is not None:
            self._run_loop(loop_due, ready)
        elif complete:
            self._complete()

    def _enter(self, node: _Node, is_dead: bool, value: Any, child: _Frame, ready: Ready) -> None:
        """An Enter's value arriving in its frame: a loop invariant into every iteration, else into the first."""
        if node.constant_enter and not is_dead:
            child.invariants.append((node, value, is_dead))
            for number in child.iterations:
                self._activate_from(node, is_dead, value, child, number, ready)
        else:
            self._activate_from(node, is_dead, value, child, 0, ready)

    def _run_loop(self, frame: _Frame, ready: Ready) -> None:
        """Run a frame whose Enters have all arrived as its compiled loop, and pass its Exits' values on (dead
        ones when every Enter was dead). Enters both dead and live leave it to the generic path."""
        loop: CompiledLoop = frame.loop
        arrivals = {node.index: (node, value, is_dead) for node, value, is_dead in frame.arrivals}
        dead = sum(is_dead for _, _, is_dead in arrivals.values())
        exits: list[Any] | None = None
        if not dead:
            previous = enter_step(self.step)
            try:
                with quiet_numerics():
                    exits = loop.run([arrivals[i][1] for i in loop.enters], self.step.cancellation)
            except Exception as e:
                self._fail(self.nodes[loop.failed_node(e)], e)
            finally:
                leave_step(previous)
        elif dead == len(arrivals):
            exits = [None] * len(loop.exits)
        with self.lock:
            if exits is not None:
                parent, parent_iteration = frame.parent, frame.parent_iteration
                for index, value in zip(loop.exits, exits):
                    self._activate_from(self.nodes[index], bool(dead), value, parent, parent_iteration, ready)
                del parent.children[frame.key]
                parent.iterations[parent_iteration].outstanding_frames -= 1
                if parent.parent is not None:
                    self._cleanup(parent, ready)
            elif dead and self.failure is None:
                frame.loop = None
                for node, value, is_dead in frame.arrivals:
                    self._enter(node, is_dead, value, frame, ready)
            self.outstanding -= 1
            complete = self.outstanding == 0
        if complete:
            self._complete()

    def _activate(self, node: _Node, is_dead: bool, values: list[Any], frame: _Frame, iteration: int,
                  ready: Ready) -> None:
        """Count `node`'s out edges in its own iteration; successors that become ready join `ready`."""
        state = frame.iterations[iteration]
        pending, dead_inputs, nodes = state.pending, state.dead_inputs, self.nodes
        for successor, slot, position in node.out_edges:
            edge_dead = is_dead or (slot >= 0 and values[slot] is DEAD)
            if nodes[successor].kind == _NodeKind.MERGE:
                ready_merge = _activate_merge(state, nodes[successor], position, edge_dead,
                                              node.kind == _NodeKind.ENTER)
                if ready_merge is None:
                    continue
                ready.append((successor, ready_merge, frame, iteration))
            else:
                if edge_dead:
                    dead_inputs[successor] += 1
                pending[successor] -= 1
                if pending[successor]:
                    continue
                # a ControlTrigger is never dead: it lets a dead branch still signal that it is done
                dead = dead_inputs[successor] > 0 and nodes[successor].kind != _NodeKind.CONTROL_TRIGGER
                ready.append((successor, dead, frame, iteration))
            self.outstanding += 1
            state.outstanding_ops += 1

    def _activate_from(self, node: _Node, is_dead: bool, value: Any, frame: _Frame, iteration: int,
                       ready: Ready) -> None:
        """`node`'s output (one value) arriving in another frame or iteration: stored there, then counted."""
        state = frame.iterations[iteration]
        state.values[node.out_slot] = DEAD if is_dead else value
        self._activate(node, is_dead, state.values, frame, iteration, ready)

    def _child_frame(self, enter: _Node, frame: _Frame, iteration: int) -> _Frame:
        """The frame an Enter leads into for this parent iteration, made on its first Enter."""
        key = (iteration, enter.frame_name)
        child = frame.children.get(key)
        if child is None:
            info = self.executor._frames[enter.frame_name]
            child = frame.children[key] = _Frame(f"{frame.name};{iteration};{enter.frame_name}", key, frame,
                                                 iteration, *info)
            if self.stats is None:  # a traced step shows every node of every iteration
                child.loop = self.executor._loops.get(enter.frame_name)
            child.iterations[0] = self._fresh_iteration()
            frame.iterations[iteration].outstanding_frames += 1
        return child

    def _fresh_iteration(self) -> _Iteration:
        executor = self.executor
        return _Iteration(executor._template[:], executor._pending[:], executor._remaining[:])

    def _new_iteration(self, frame: _Frame, ready: Ready) -> None:
        """Start the frame's next iteration; loop invariants and a waiting NextIteration value enter it."""
        frame.iteration_count += 1
        number = frame.iteration_count
        frame.iterations[number] = self._fresh_iteration()
        frame.outstanding_iterations += 1
        frame.dead_exits.clear()
        for enter, value, is_dead in frame.invariants:
            self._activate_from(enter, is_dead, value, frame, number, ready)

    def _cleanup(self, frame: _Frame, ready: Ready) -> None:
        """Free the frame's finished iterations in order (starting a deferred one for each), and when the
        whole frame is done, pass its dead Exits on and finish it in its parent (TF's
        CleanupFramesIterations)."""
        while frame.parent is not None:
            number = min(frame.iterations)
            while number <= frame.iteration_count and self._iteration_done(frame, number):
                del frame.iterations[number]
                frame.outstanding_iterations -= 1
                number += 1
                if frame.next_iteration_roots:  # the values that waited for a free iteration start it
                    self._new_iteration(frame, ready)
                    for next_node, value in frame.next_iteration_roots:
                        self._activate_from(next_node, False, value, frame, frame.iteration_count, ready)
                    frame.next_iteration_roots.clear()
            if frame.pending_inputs or frame.outstanding_iterations:
                return
            parent, parent_iteration = frame.parent, frame.parent_iteration
            for exit_node in frame.dead_exits:
                self._activate_from(exit_node, True, None, parent, parent_iteration, ready)
            del parent.children[frame.key]
            parent.iterations[parent_iteration].outstanding_frames -= 1
            frame = parent

    @staticmethod
    def _iteration_done(frame: _Frame, number: int) -> bool:
        state = frame.iterations.get(number)
        if state is None or state.outstanding_ops or state.outstanding_frames:
            return False
        return frame.pending_inputs == 0 if number == 0 else (number - 1) not in frame.iterations

    def _retire(self, frame: _Frame, iteration: int) -> None:
        """A node ends without outputs (it failed, or the step had failed before it started)."""
        with self.lock:
            self.outstanding -= 1
            frame.iterations[iteration].outstanding_ops -= 1
            complete = self.outstanding == 0
        if complete:
            self._complete()

    def _fail(self, node: _Node, error: BaseException) -> None:
        """Keep the step's first error; cancel what waits and abort the step's rendezvous."""
        failure = kernel_error(node.node_def, error)
        failure.__cause__ = error
        with self.lock:
            first = self.failure is None
            if first:
                self.failure = failure
        if first:
            self.step.cancellation.start_cancel()
            self.step.rendezvous.abort(failure)

    def _complete(self) -> None:
        if self.failure is None:
            values = self.root.iterations[0].values
            rets = []
            for index, slot, deref in self.executor._ret_slots:
                value = values[slot]
                if value is DEAD or value is None:  # a fetch on an untaken branch, as TF's call frame says
                    self.failure = errors.InvalidArgumentError(None, None, f"Retval[{index}] does not have value")
                    break
                try:
                    rets.append(value.read() if deref else value)
                except errors.OpError as e:  # an uninitialized ref
                    self.failure = kernel_error(self.executor._ret_nodes[index], e)
                    break
            self.call_frame.rets = rets
        self.done(self.failure)


def _activate_merge(state: _Iteration, merge: _Node, position: int, edge_dead: bool, from_enter: bool = False
                    ) -> bool | None:
    """One input edge of a Merge arrived (TF's rule): None while it must wait, else whether it is dead.

    A Merge is ready once its control inputs have arrived and either its first live data input has (it
    forwards that one) or every data input is dead (then it is dead). A dead Enter alone kills a loop's
    Merge: its NextIteration input never comes, as for a loop on the untaken branch of a cond."""
    pending, dead_inputs, index = state.pending, state.dead_inputs, merge.index
    if position < 0:  # a control edge
        pending[index] -= 2
        all_dead = dead_inputs[index] == merge.num_data_inputs
        if pending[index] == 0 or (pending[index] == 1 and all_dead):
            return pending[index] == 1
        return None
    if not edge_dead:
        count = pending[index]
        if count & 1:  # the first live input: the one the Merge forwards
            pending[index] = count - 1
            state.merge_choice[index] = position
        return False if count == 1 else None
    dead_inputs[index] += 1
    if pending[index] == 1 and (dead_inputs[index] == merge.num_data_inputs or from_enter):
        return True
    return None


def _store_outputs(values: list[Any], out: int, num_outputs: int, result: Any) -> None:
    if len(result) != num_outputs:
        raise errors.InternalError(None, None, f"kernel returned {len(result)} outputs, expected {num_outputs}")
    values[out:out + num_outputs] = result


def _expensive_before_waiting(nodes: list[_Node], roots: list[int]) -> bool:
    """Whether a step of the plan gets an expensive kernel ready before it waits on an asynchronous one (a
    Recv): the nodes that run with every input from the roots but none through such a kernel."""
    pending = [1 if n.kind == _NodeKind.MERGE else n.num_data_inputs + n.num_control_inputs for n in nodes]
    stack = list(roots)
    while stack:
        node = nodes[stack.pop()]
        if node.asynchronous:
            continue
        if node.expensive:
            return True
        for successor, _, _ in node.out_edges:
            pending[successor] -= 1
            if pending[successor] == 0:
                stack.append(successor)
    return False


def _loop_frames(nodes: list[_Node]) -> dict[str, tuple[int, int]]:
    """Per loop frame name: its parallel iterations and how many Enters lead into it (TF's FrameInfo)."""
    frames: dict[str, tuple[int, int]] = {}
    for node in nodes:
        if node.kind == _NodeKind.ENTER:
            parallel, enters = frames.get(node.frame_name, (node.node_def.attr["parallel_iterations"], 0))
            frames[node.frame_name] = (parallel, enters + 1)
    return frames


def _initial_pending(node: _Node) -> int:
    """What a node waits for: every input; a Merge, as TF's, its control inputs (counted twice) and, in the
    low bit, a first live data input."""
    if node.kind == _NodeKind.MERGE:
        return 1 + 2 * node.num_control_inputs
    return node.num_data_inputs + node.num_control_inputs


def _topological_order(nodes: list[_Node], defer_async: bool = False, launch_early: bool = False) -> list[int]:
    """Kahn's order, a node that updates a variable after the others that are ready (as `_process`), the
    ready ones by their depth from the roots (TF's ready queue is first-in first-out: a reader ready at the
    step's start runs before a training op that waits for the whole backward pass), ties broken by position
    in the GraphDef (construction order); with `defer_async`, an asynchronous kernel only once no other node
    is ready; with `launch_early`, an expensive kernel as soon as
    it is ready and a reader of one's outputs only once nothing else is, so that the most work lies between a
    launched kernel and its join. A loop's back edges (out of NextIteration) are left out: every other cycle
    is an error."""
    counts = [0] * len(nodes)
    late = [False] * len(nodes)  # reads an expensive kernel's output
    for node in nodes:
        if node.kind != _NodeKind.NEXT_ITERATION:
            for successor, _, _ in node.out_edges:
                counts[successor] += 1
                late[successor] = late[successor] or node.expensive

    depth = [0] * len(nodes)  # the longest path from a root: when TF's first-in first-out ready queue gets to it

    def rank(i: int) -> tuple[int, int, int]:
        node = nodes[i]
        last = 1 if node.updates_ref else 0
        if launch_early:
            return last, 0 if node.expensive else 2 if late[i] else 1, depth[i]
        return last, int(defer_async and node.asynchronous), depth[i]

    heap = [(rank(i), i) for i, c in enumerate(counts) if c == 0]
    heapq.heapify(heap)
    order = []
    while heap:
        _, i = heapq.heappop(heap)
        order.append(i)
        if nodes[i].kind == _NodeKind.NEXT_ITERATION:
            continue
        for successor, _, _ in nodes[i].out_edges:
            counts[successor] -= 1
            depth[successor] = max(depth[successor], depth[i] + 1)
            if counts[successor] == 0:
                heapq.heappush(heap, (rank(successor), successor))
    if len(order) != len(nodes):
        stuck = [nodes[i].node_def.name for i, c in enumerate(counts) if c > 0][:5]
        raise errors.InvalidArgumentError(None, None, f"Graph is not a DAG: cycle through {', '.join(stuck)}")
    return order


def _launch_points(nodes: list[_Node], runnable: list[_Node], position: dict[int, int]) -> dict[int, int]:
    """Of a straight-line schedule, each expensive kernel with other lines before its first successor (the
    position it is joined before; `len(runnable)` when only the results read it): by position. `position`
    gives each node's line (a loop's Enters all the loop's)."""
    launches = {}
    for p, node in enumerate(runnable):
        if node.expensive:
            join = min((position[s] for s, _, _ in node.out_edges if s in position), default=len(runnable))
            if join > p + 1:
                launches[p] = join
    return launches


def _chained(nodes: list[_Node], waiting: list[_Node]) -> bool:
    """Whether each of these asynchronous kernels (in a deferred order) depends on the one before: then, run one
    after another on one thread, a kernel that waits has only its own consumers left to run, none of which the
    dataflow executor could have run meanwhile either, so waiting there cannot deadlock the step."""
    for before, after in zip(waiting, waiting[1:]):
        seen, stack = {before.index}, [before.index]
        while stack and after.index not in seen:
            for successor, _, _ in nodes[stack.pop()].out_edges:
                if successor not in seen:
                    seen.add(successor)
                    stack.append(successor)
        if after.index not in seen:
            return False
    return True


def _ref_expected_error(node_def: NodeDef, position: int, source: NodeDef, index: int) -> errors.OpError:
    """A value (a fed tensor) where a ref input wants the variable itself, in the words of TF's executor."""
    expected = arg_types(op_registry.lookup_op(node_def).op_def.input_args, node_def.attr)[position]
    passed = arg_types(op_registry.lookup_op(source).op_def.output_args, source.attr)[index]
    return errors.InvalidArgumentError(
        node_def, None, f"Input {position} of node {node_def.name} was passed {type_string(passed)} from "
        f"{source.name}:{index} incompatible with expected {type_string(expected)}_ref.")


def _as_outputs(node: _Node, result: Any) -> Sequence[Any]:
    """A kernel's result as the list of its outputs (a traced step records their sizes)."""
    if node.num_outputs == 1:
        return (result,)
    return tuple(result) if node.num_outputs and isinstance(result, (list, tuple)) else ()
