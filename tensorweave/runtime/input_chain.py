"""Many runs of a QueueRunner's reader step at once: ReaderRead -> (parse) -> QueueEnqueue, run by one call.

A QueueRunner runs its enqueue op in a loop. When that op's step is the input chain of TF1 programs — a
reader's ReaderReadV2 of one record, optionally one ParseExampleV2 or ParseSingleExample of it, and the
QueueEnqueueV2 of the results — `InputChain.run(n)` does up to n consecutive runs of it in one call, each
exactly as the step would: one record read, its parse, one element enqueued, in that order, an error
raised by the run that meets it (after the runs before it are done) and naming its node. What it saves is
the step's machinery per run (a step context, waiting on two asynchronous kernels, the reader's line of
reads, the enqueue's attempt), which is most of a small record's cost in Python.

It never waits: it first reserves places in the queue (`Queue.reserve`: none while enqueues wait), and runs
only while the reader serves a record at once (`ReaderResource.read_now`: a work unit in progress and no
read in line). Whatever would wait (the queue full, a new work unit to dequeue) or fail inside the reader is
left to an ordinary step, which the caller runs when a call made no run; so close and cancellation find
every waiting kernel where the step machinery put it. An enqueue that finds the queue closed fails as TF's
does on a closed queue. Calls run one at a time (the other threads of the runner wait for a call, never for
more than its runs, which do not block).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from tensorweave.framework.graph_def import NodeDef
from tensorweave.framework.op_kernel import OpKernel, OpKernelContext, StepContext, kernel_error

_HANDLE_OPS = frozenset({"FIFOQueueV2", "PaddingFIFOQueueV2", "RandomShuffleQueueV2", "PriorityQueueV2",
                         "TFRecordReaderV2", "TextLineReaderV2", "WholeFileReaderV2", "FixedLengthRecordReaderV2",
                         "IdentityReaderV2"})
_PARSE_OPS = frozenset({"ParseExampleV2", "ParseSingleExample"})


class ChainNode(Protocol):
    """What the chain reads of a plan entry (executor.py's `_Node`)."""

    node_def: NodeDef
    kernel: OpKernel | None
    inputs: tuple[int, ...]
    deref: tuple[int, ...]
    out_slot: int
    num_outputs: int


class InputChain:
    """The runs of one matched plan (`match` makes it); `run(n)` returns how many it did (0: none could be done
    without waiting, so the caller runs one ordinary step)."""

    def __init__(self, handles: list[ChainNode], read: ChainNode, parse: ChainNode | None, enqueue: ChainNode,
                 template: list[Any]) -> None:
        self._handles = [(node.out_slot, node.kernel.call, OpKernelContext(node.kernel, StepContext()))
                         for node in handles]
        self._read, self._parse, self._enqueue = read, parse, enqueue
        self._parse_ctx = None if parse is None else OpKernelContext(parse.kernel, StepContext())
        self._template = template
        self._types = enqueue.node_def.attr["Tcomponents"]
        consumed = set(enqueue.inputs) | set(parse.inputs if parse is not None else ())
        self._key_used = read.out_slot in consumed
        # one call at a time: the QueueRunner's threads would only contend for the interpreter and the locks
        self._running = threading.Lock()

    def run(self, max_runs: int) -> int:
        with self._running:
            return self._run(max_runs)

    def _run(self, max_runs: int) -> int:
        values = list(self._template)
        try:
            for slot, call, ctx in self._handles:  # the reader and queues, found once and kept by their kernels
                values[slot] = call(ctx)
        except Exception:  # noqa: BLE001 - an ordinary step raises it, naming its node
            return 0
        read, parse, enqueue = self._read, self._parse, self._enqueue
        reader, work = values[read.inputs[0]], values[read.inputs[1]]
        queue = values[enqueue.inputs[0]]
        granted = queue.reserve(max_runs)
        runs = 0
        try:
            while runs < granted:
                try:
                    record = reader.read_now(work)
                except Exception as e:
                    raise kernel_error(read.node_def, e) from e
                if record is None:
                    break
                if self._key_used:
                    values[read.out_slot] = np.asarray(record[0], dtype=object)
                values[read.out_slot + 1] = np.asarray(record[1], dtype=object)
                if parse is not None:
                    _run_kernel(parse, self._parse_ctx, values)
                try:
                    queue.enqueue_reserved(queue.element([values[s] for s in enqueue.inputs[1:]], self._types))
                except Exception as e:
                    raise kernel_error(enqueue.node_def, e) from e
                runs += 1
        finally:
            queue.unreserve(granted - runs)
        return runs


def _run_kernel(node: ChainNode, ctx: OpKernelContext, values: list[Any]) -> None:
    """Run a synchronous kernel on its input slots and store its outputs in its own."""
    try:
        outputs = node.kernel.call(ctx, *[values[slot] for slot in node.inputs])
    except Exception as e:
        raise kernel_error(node.node_def, e) from e
    if node.num_outputs == 1:
        values[node.out_slot] = outputs
    else:
        values[node.out_slot:node.out_slot + node.num_outputs] = outputs


def match(runnable: Sequence[ChainNode], produced: set[int], template: list[Any]) -> InputChain | None:
    """The chain of a straight-line plan that runs nothing else and fetches nothing (`produced`: the slots its
    nodes output; every other input is a constant of `template`), else None."""
    by_op: dict[str, list[ChainNode]] = {}
    for node in runnable:
        by_op.setdefault(node.node_def.op if node.node_def.op not in _HANDLE_OPS else "handle", []).append(node)
    reads, enqueues = by_op.pop("ReaderReadV2", []), by_op.pop("QueueEnqueueV2", [])
    handles = by_op.pop("handle", [])
    parses = [node for op in _PARSE_OPS for node in by_op.pop(op, [])]
    if by_op or len(reads) != 1 or len(enqueues) != 1 or len(parses) > 1 or any(n.deref for n in runnable):
        return None
    read, enqueue = reads[0], enqueues[0]
    handle_slots = {node.out_slot for node in handles}
    chain_slots = set(range(read.out_slot, read.out_slot + 2))
    parse = parses[0] if parses else None
    if parse is not None:
        if parse.inputs[0] != read.out_slot + 1 or any(slot in produced for slot in parse.inputs[1:]):
            return None
        chain_slots.update(range(parse.out_slot, parse.out_slot + parse.num_outputs))
    if not set(read.inputs) <= handle_slots or enqueue.inputs[0] not in handle_slots:
        return None
    if any(slot in produced and slot not in chain_slots for slot in enqueue.inputs[1:]):
        return None
    return InputChain(handles, read, parse, enqueue, template)
