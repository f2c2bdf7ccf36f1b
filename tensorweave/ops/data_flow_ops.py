"""Queues (TF1's V2 resource-handle queue ops) and `tf.QueueBase` with its FIFO, padding, random-shuffle and
priority queues; conditional accumulators (`tf.ConditionalAccumulator`, `tf.SparseConditionalAccumulator`).

A queue op (FIFOQueueV2, …) finds or makes its `Queue` in the device's ResourceMgr on its first run (by
shared_name, else a process-unique `_<id>_<node name>`, as TF names it) and outputs it as the handle.
Enqueue and dequeue are asynchronous kernels: each call is an attempt that finishes at once when it can,
else waits in the queue's list without holding a thread. Every change of the queue (an element in or out,
a close, a cancellation) runs `_flush`, which advances the waiting attempts in arrival order under the
queue's lock while any makes progress; their `done` callbacks run after the lock is released, since a
`done` carries its step on. A waiting attempt registers with its step's cancellation manager, so a closed
session, a cancelled step or a step past its deadline fails it with CancelledError.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import heapq
import itertools
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, random_seed, tensor_shape, tensor_util
from tensorweave.framework.graph import Operation, Tensor, convert_to_tensor, device, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import Done, OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.resource_mgr import ResourceSlot, resource_name
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import cast_ops
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.manipulation_ops import stack
from tensorweave.ops.random_ops import SingleSampleStream
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

_INT32_MAX = 2**31 - 1


def _dtype_names(types: Sequence[dtypes.DType]) -> str:
    return ", ".join(dtypes.type_string(t) for t in types)


def _shapes_string(shapes: Sequence[Any]) -> str:
    return "[" + ", ".join(tensor_shape.shape_string(s) for s in shapes) + "]"


class _Attempt:
    """A waiting enqueue (its remaining elements) or dequeue (how many it wants, what it has)."""

    __slots__ = ("done", "elements", "wanted", "allow_small", "batched", "taken", "cancellation", "token")

    def __init__(self, done: Done, elements: list[tuple] | None = None, wanted: int = 0, allow_small: bool = False,
                 batched: bool = False) -> None:
        self.done = done
        self.elements = elements
        self.wanted = wanted
        self.allow_small = allow_small
        self.batched = batched
        self.taken: list[tuple] = []
        self.cancellation: Any = None
        self.token = 0


class Queue:
    """A FIFO queue of tuples of arrays; subclasses change the order (`_push`, `_pop`, `_restore`,
    `_available`) or how a batch is assembled (`_batch`)."""

    kind = "FIFOQueue"
    op_types: tuple[str, ...] = ("FIFOQueueV2",)

    def __init__(self, name: str, component_types: list[dtypes.DType], shapes: list[Any], capacity: int,
                 attrs: dict[str, Any]) -> None:
        self.name = name
        self.component_types = list(component_types)
        self.shapes = [tensor_shape.TensorShape(s) for s in shapes]
        # each element's shape when every component's is fully known: the common check is one tuple compare
        self._element_shape = ([tuple(s.as_list()) for s in self.shapes]
                               if self.shapes and all(s.is_fully_defined() for s in self.shapes) else None)
        self.capacity = _INT32_MAX if capacity < 0 else capacity
        self.requested_capacity = capacity
        self.lock = threading.Lock()
        self.closed = False
        self.enqueuers: collections.deque[_Attempt] = collections.deque()
        self.dequeuers: collections.deque[_Attempt] = collections.deque()
        self._elements: Any = collections.deque()
        self._reserved = 0  # places promised to enqueues that cannot wait (`reserve`)

    # -- the order of elements (subclasses override) ----------------------------------------------------

    def size(self) -> int:
        return len(self._elements)

    def _push(self, element: tuple) -> None:
        self._elements.append(element)

    def _pop(self) -> tuple:
        return self._elements.popleft()

    def _restore(self, elements: list[tuple]) -> None:
        """Put back what a failed batch dequeue had taken, in front as TF does."""
        self._elements.extendleft(reversed(elements))

    def _available(self) -> int:
        return self.size()

    # -- shared-queue checks (TF's MatchesNodeDef) ----------------------------------------------------------

    def check_matches(self, op_type: str, component_types: list[dtypes.DType], shapes: list[Any], capacity: int,
                      attrs: dict[str, Any]) -> None:
        if op_type not in self.op_types:
            raise errors.InvalidArgumentError(None, None, f"Expected {self.kind}, found {op_type}")
        if capacity != self.requested_capacity:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has capacity {self.requested_capacity} but requested "
                            f"capacity was {capacity}")
        if list(component_types) != self.component_types:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component types {_dtype_names(self.component_types)} "
                            f"but requested component types were {_dtype_names(component_types)}")
        requested = [tensor_shape.TensorShape(s) for s in shapes]
        if [s.as_list() if s.ndims is not None else None for s in requested] != \
                [s.as_list() if s.ndims is not None else None for s in self.shapes]:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has component shapes {_shapes_string(self.shapes)} but "
                            f"requested component shapes were {_shapes_string(requested)}")

    # -- validation (TF's QueueBase::ValidateTuple / ValidateManyTuple) -----------------------------------

    def check_types(self, node_types: Sequence[dtypes.DType], outputs: bool) -> None:
        """TF's MatchSignature: a node's component types must be the queue's."""
        if list(node_types) != self.component_types:
            mine = ", ".join(["resource"] + ([] if outputs else [dtypes.type_string(t) for t in node_types]))
            want = ", ".join(["resource"] + ([] if outputs else [dtypes.type_string(t) for t in self.component_types]))
            if outputs:
                mine += " -> " + _dtype_names(node_types)
                want += " -> " + _dtype_names(self.component_types)
            raise errors.InvalidArgumentError(None, None, f"Signature mismatch, have: {mine} expected: {want}")

    def check_tuple(self, values: Sequence[Any], batched: bool) -> int:
        """The batch size of `values` (1 for one element), after TF's shape checks."""
        if not batched and self._element_shape == [np.shape(value) for value in values]:
            return 1
        batch = 1
        if batched:
            for i, value in enumerate(values):
                if np.ndim(value) == 0:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch in tuple component {i}. Expected rank at least 1, got []")
            batch = np.shape(values[0])[0]
        for i, value in enumerate(values):
            shape = np.shape(value)
            if batched and not self.shapes and shape[0] != batch:
                raise errors.InvalidArgumentError(
                    None, None, f"All input tensors must have the same size in the 0th dimension. Component {i} "
                                f"has {shape[0]}, and should have {batch}")
            if self.shapes:
                expected = tensor_shape.TensorShape([batch] if batched else []).concatenate(self.shapes[i])
                if not expected.is_compatible_with(shape):
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch in tuple component {i}. Expected "
                                    f"{tensor_shape.shape_string(expected)}, got {tensor_shape.shape_string(shape)}")
        return batch

    def check_batchable(self) -> None:
        if not self.shapes or not all(s.is_fully_defined() for s in self.shapes):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind}'s DequeueMany and DequeueUpTo require the components to have specified "
                            "shapes.")

    def element(self, components: Sequence[Any], types: Sequence[dtypes.DType]) -> tuple:
        """One enqueued element made of a QueueEnqueue's inputs, after TF's type and shape checks."""
        self.check_types(types, outputs=False)
        self.check_tuple(components, batched=False)
        return tuple(_stored(c) for c in components)

    # -- places for enqueues that must not wait (runtime/input_chain.py) --------------------------------------

    def reserve(self, wanted: int) -> int:
        """Promise up to `wanted` free places to enqueues that must not wait, as many as are free now (none while
        enqueues wait or once closed); each is then used by `enqueue_reserved` or given back by `unreserve`."""
        with self.lock:
            if self.closed or self.enqueuers:
                return 0
            granted = max(0, min(wanted, self.capacity - self.size() - self._reserved))
            self._reserved += granted
            return granted

    def unreserve(self, count: int) -> None:
        if count:
            with self.lock:
                self._reserved -= count
                finished = self._flush()
            self._finish(finished)

    def enqueue_reserved(self, element: tuple) -> None:
        """Enqueue into a reserved place: at once, or TF's error for an enqueue on a closed queue (the place
        stays reserved then)."""
        with self.lock:
            if self.closed:
                raise errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed.")
            self._reserved -= 1
            self._push(element)
            finished = self._flush()
        self._finish(finished)

    # -- the attempts ---------------------------------------------------------------------------------------

    def try_enqueue(self, ctx: OpKernelContext, done: Done, elements: list[tuple]) -> None:
        self._start(ctx, _Attempt(done, elements=elements), self.enqueuers, "Enqueue")

    def try_dequeue(self, ctx: OpKernelContext, done: Done, wanted: int, allow_small: bool, batched: bool) -> None:
        self._start(ctx, _Attempt(done, wanted=wanted, allow_small=allow_small, batched=batched), self.dequeuers,
                    "Dequeue")

    def _start(self, ctx: OpKernelContext, attempt: _Attempt, waiting: collections.deque, what: str) -> None:
        with self.lock:
            if what == "Enqueue" and self.closed:
                finished = [(attempt, errors.CancelledError(None, None, f"{self.kind} '{self.name}' is closed."))]
            else:
                waiting.append(attempt)
                finished = self._flush()
                if attempt not in waiting:
                    attempt = None
        self._finish(finished)
        if attempt is None:
            return
        cancellation = ctx.cancellation
        token = cancellation.get_cancellation_token()
        cancelled = errors.CancelledError(None, None, f"{what} operation was cancelled")
        attempt.cancellation, attempt.token = cancellation, token
        if not cancellation.register_callback(token, lambda: self._cancel(attempt, waiting, cancelled)):
            self._cancel(attempt, waiting, cancelled)

    def _cancel(self, attempt: _Attempt, waiting: collections.deque, error: BaseException) -> None:
        with self.lock:
            if attempt not in waiting:
                return  # it finished first
            waiting.remove(attempt)
            finished = [(attempt, error)] + self._flush()
        self._finish(finished)

    def close(self, cancel_pending_enqueues: bool) -> None:
        with self.lock:
            self.closed = True
            finished: list[tuple[_Attempt, BaseException | None]] = []
            if cancel_pending_enqueues:
                error = errors.CancelledError(None, None, "Enqueue operation was cancelled")
                finished = [(a, error) for a in self.enqueuers]
                self.enqueuers.clear()
            finished += self._flush()
        self._finish(finished)

    def _flush(self) -> list[tuple[_Attempt, BaseException | None]]:
        """Advance waiting attempts while any makes progress (under the lock); what finished, with its error
        or None (a finished dequeue owns its elements: `_finish` assembles them, outside the lock)."""
        finished: list[tuple[_Attempt, BaseException | None]] = []
        progress = True
        while progress:
            progress = False
            free = self.capacity - self._reserved
            while self.enqueuers and self.size() < free:
                attempt = self.enqueuers[0]
                while attempt.elements and self.size() < free:
                    self._push(attempt.elements.pop(0))
                    progress = True
                if attempt.elements:
                    break
                self.enqueuers.popleft()
                finished.append((attempt, None))
            while self.dequeuers:
                attempt = self.dequeuers[0]
                took, complete, error = self._serve(attempt)
                progress = progress or took
                if not complete:
                    break
                self.dequeuers.popleft()
                finished.append((attempt, error))
        return finished

    def _serve(self, attempt: _Attempt) -> tuple[bool, bool, BaseException | None]:
        """One pass of the first waiting dequeue (under the lock): whether it took elements, whether it is
        complete, and its error."""
        requested = attempt.wanted - len(attempt.taken)
        if self.closed and self.size() < requested:  # checked before taking, as TF (a seeded draw)
            current = self.size()
            self._restore(attempt.taken)
            attempt.taken = []
            if attempt.allow_small and self.size() > 0:
                attempt.wanted = self.size()
            elif attempt.allow_small and self.enqueuers:
                return False, False, None  # a pending enqueue may still add elements
            else:
                return False, True, self._insufficient(requested, current)
        count = min(attempt.wanted - len(attempt.taken), self._available())
        if count > 0:
            attempt.taken.extend(self._pop() for _ in range(count))
        return count > 0, len(attempt.taken) >= attempt.wanted, None

    def _insufficient(self, requested: int, current: int) -> errors.OutOfRangeError:
        return errors.OutOfRangeError(None, None, f"{self.kind} '{self.name}' is closed and has insufficient "
                                                  f"elements (requested {requested}, current size {current})")

    def _outputs(self, attempt: _Attempt) -> list[Any]:
        if not attempt.batched:
            return list(attempt.taken[0])
        return [self._batch(i, [element[i] for element in attempt.taken]) for i in range(len(self.component_types))]

    def _batch(self, index: int, values: list[Any]) -> Any:
        if not values:
            return np.zeros([0] + self.shapes[index].as_list(), self.component_types[index].as_numpy_dtype)
        return _stacked(values)

    def _finish(self, finished: list[tuple[_Attempt, BaseException | None]]) -> None:
        """Complete finished attempts; called without the lock, since a `done` carries its step on."""
        for attempt, error in finished:
            if attempt.cancellation is not None:
                attempt.cancellation.deregister_callback(attempt.token)
            if error is not None:
                attempt.done(error=error)
            elif attempt.elements is not None:
                attempt.done()
            else:
                outputs = self._outputs(attempt)
                attempt.done(outputs[0] if len(outputs) == 1 else outputs)


class PaddingQueue(Queue):
    """A FIFO queue of elements whose shapes may differ where the queue's shapes leave dimensions unknown;
    a batch pads each component with zeros to its largest element."""

    kind = "PaddingFIFOQueue"
    op_types = ("PaddingFIFOQueueV2",)

    def check_batchable(self) -> None:
        pass

    def _batch(self, index: int, values: list[Any]) -> Any:
        dtype = self.component_types[index].as_numpy_dtype
        if not values:
            return np.zeros([0] + [d or 0 for d in self.shapes[index].as_list()], dtype)
        shapes = {np.shape(v) for v in values}
        if len(shapes) == 1:
            return _stacked(values)
        out = np.zeros((len(values), *np.max(list(shapes), axis=0)), dtype)
        if out.dtype == object:
            out.fill(b"")
        for row, value in enumerate(values):  # one copy per element: the elements differ in shape
            out[(row, *(slice(0, n) for n in np.shape(value)))] = value
        return out


class RandomShuffleQueue(Queue):
    """Elements leave in random order, and only while more than `min_after_dequeue` remain (until closed);
    each pick is TF's (one Philox draw per element), so a seeded queue gives TF's order."""

    kind = "RandomShuffleQueue"
    op_types = ("RandomShuffleQueueV2",)

    def __init__(self, name: str, component_types: list[dtypes.DType], shapes: list[Any], capacity: int,
                 attrs: dict[str, Any]) -> None:
        super().__init__(name, component_types, shapes, capacity, attrs)
        self._elements = []
        self.min_after_dequeue = attrs["min_after_dequeue"]
        if self.min_after_dequeue < 0:  # TF's kernel construction checks
            raise errors.InvalidArgumentError(None, None, f"min_after_dequeue {self.min_after_dequeue} must be >= 0")
        if self.min_after_dequeue >= self.capacity:
            raise errors.InvalidArgumentError(
                None, None, f"min_after_dequeue {self.min_after_dequeue} must be < capacity {self.capacity}")
        self._draw = SingleSampleStream(attrs["seed"], attrs["seed2"])

    def check_matches(self, op_type: str, component_types: list[dtypes.DType], shapes: list[Any], capacity: int,
                      attrs: dict[str, Any]) -> None:
        super().check_matches(op_type, component_types, shapes, capacity, attrs)
        if attrs["min_after_dequeue"] != self.min_after_dequeue:
            raise errors.InvalidArgumentError(
                None, None, f"Shared queue '{self.name}' has min_after_dequeue {self.min_after_dequeue} but "
                            f"requested min_after_dequeue was {attrs['min_after_dequeue']}")

    def _pop(self) -> tuple:
        elements = self._elements
        index = self._draw() % len(elements)  # TF's pick: swap with the last, pop
        elements[index], elements[-1] = elements[-1], elements[index]
        return elements.pop()

    def _restore(self, elements: list[tuple]) -> None:
        self._elements.extend(reversed(elements))

    def _available(self) -> int:
        return self.size() if self.closed else max(0, self.size() - self.min_after_dequeue)


class PriorityQueue(Queue):
    """Elements leave smallest priority first (component 0, an int64 scalar; ties in arrival order)."""

    kind = "PriorityQueue"
    op_types = ("PriorityQueueV2",)

    def __init__(self, name: str, component_types: list[dtypes.DType], shapes: list[Any], capacity: int,
                 attrs: dict[str, Any]) -> None:
        super().__init__(name, [dtypes.int64] + list(component_types), [[]] + list(shapes), capacity, attrs)
        self._elements = []
        self._arrivals = itertools.count()

    def check_matches(self, op_type: str, component_types: list[dtypes.DType], shapes: list[Any], capacity: int,
                      attrs: dict[str, Any]) -> None:
        super().check_matches(op_type, [dtypes.int64] + list(component_types), [[]] + list(shapes), capacity, attrs)

    def _push(self, element: tuple) -> None:
        heapq.heappush(self._elements, (int(element[0]), next(self._arrivals), element))

    def _pop(self) -> tuple:
        return heapq.heappop(self._elements)[2]

    def _restore(self, elements: list[tuple]) -> None:
        for element in elements:
            self._push(element)

    def _serve(self, attempt: _Attempt) -> tuple[bool, bool, BaseException | None]:
        """TF's PriorityQueue takes a whole batch at once while open (its batches stay sorted); once closed, a
        dequeue_up_to takes what is left and then fails on the empty queue, losing it, as TF's does."""
        size, requested = self.size(), attempt.wanted - len(attempt.taken)
        if attempt.wanted == 0:
            return False, True, None
        if self.closed and (size == 0 or (not attempt.allow_small and size < requested)):
            return False, True, self._insufficient(requested, size)
        if size < requested and (size == 0 or not (self.closed and attempt.allow_small)):
            return False, False, None
        count = min(requested, size)
        attempt.taken.extend(self._pop() for _ in range(count))
        return True, len(attempt.taken) == attempt.wanted, None


_QUEUE_ATTRS = ["component_types: list(type) >= 1", "shapes: list(shape) >= 0 = []", "capacity: int = -1",
                "container: string = ''", "shared_name: string = ''"]
FIFOQueueV2 = Op("FIFOQueueV2", outputs=["handle: resource"], attrs=_QUEUE_ATTRS, is_stateful=True)
PaddingFIFOQueueV2 = Op("PaddingFIFOQueueV2", outputs=["handle: resource"], attrs=_QUEUE_ATTRS, is_stateful=True)
RandomShuffleQueueV2 = Op(
    "RandomShuffleQueueV2", outputs=["handle: resource"],
    attrs=_QUEUE_ATTRS[:3] + ["min_after_dequeue: int = 0", "seed: int = 0", "seed2: int = 0"] + _QUEUE_ATTRS[3:],
    is_stateful=True)
PriorityQueueV2 = Op("PriorityQueueV2", outputs=["handle: resource"],
                     attrs=["component_types: list(type) >= 0 = []", "shapes: list(shape) >= 0"] + _QUEUE_ATTRS[2:],
                     is_stateful=True)

_QUEUE_CLASSES = {"FIFOQueueV2": Queue, "PaddingFIFOQueueV2": PaddingQueue,
                  "RandomShuffleQueueV2": RandomShuffleQueue, "PriorityQueueV2": PriorityQueue}


def _scalar_handle(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


for _queue_op in (FIFOQueueV2, PaddingFIFOQueueV2, RandomShuffleQueueV2, PriorityQueueV2):
    _queue_op.shape(_scalar_handle)


@FIFOQueueV2.kernel("CPU", state=ResourceSlot)
@PaddingFIFOQueueV2.kernel("CPU", state=ResourceSlot)
@RandomShuffleQueueV2.kernel("CPU", state=ResourceSlot)
@PriorityQueueV2.kernel("CPU", state=ResourceSlot)
def _queue(ctx: OpKernelContext) -> Queue:
    def find_or_make() -> Queue:
        attrs = ctx.node_def.attr
        types, shapes, capacity = attrs["component_types"], attrs["shapes"], attrs["capacity"]
        name = resource_name(attrs["shared_name"].decode(), ctx.name)
        cls = _QUEUE_CLASSES[ctx.op]
        queue = ctx.resources.lookup_or_create(attrs["container"].decode(), name,
                                               lambda: cls(name, types, shapes, capacity, attrs))
        queue.check_matches(ctx.op, types, shapes, capacity, attrs)
        return queue

    slot: ResourceSlot = ctx.state
    return slot.get(find_or_make)


def _check_scalar_handle(ctx: InferenceContext) -> None:
    with_rank(ctx.input_shape(0), 0)


QueueEnqueueV2 = Op("QueueEnqueueV2", inputs=["handle: resource", "components: Tcomponents"],
                    attrs=["Tcomponents: list(type) >= 1", "timeout_ms: int = -1"], is_stateful=True)
QueueEnqueueManyV2 = Op("QueueEnqueueManyV2", inputs=["handle: resource", "components: Tcomponents"],
                        attrs=["Tcomponents: list(type) >= 1", "timeout_ms: int = -1"], is_stateful=True)


@QueueEnqueueV2.shape
@QueueEnqueueManyV2.shape
def _enqueue_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_scalar_handle(ctx)
    return []


@QueueEnqueueV2.kernel("CPU", asynchronous=True)
def _enqueue(ctx: OpKernelContext, done: Done, handle: Any, *components: Any, Tcomponents: list,  # noqa: N803
             timeout_ms: int) -> None:
    handle.try_enqueue(ctx, done, [handle.element(components, Tcomponents)])


@QueueEnqueueManyV2.kernel("CPU", asynchronous=True)
def _enqueue_many(ctx: OpKernelContext, done: Done, handle: Any, *components: Any, Tcomponents: list,  # noqa: N803
                  timeout_ms: int) -> None:
    queue = handle
    queue.check_types(Tcomponents, outputs=False)
    batch = queue.check_tuple(components, batched=True)
    if batch == 0:  # done at once, closed or not, as TF's TryEnqueueMany
        done()
        return
    components = [_stored(c) for c in components]
    queue.try_enqueue(ctx, done, [tuple(c[i] for c in components) for i in range(batch)])


def _stacked(values: list[np.ndarray]) -> np.ndarray:
    """Elements of one shape and type stacked on a new first axis: np.array builds it in C from arrays, where
    np.stack's per-array Python work costs three times as much for a batch of small elements."""
    first = values[0]
    if isinstance(first, np.ndarray) and first.dtype != object:
        return np.array(values, dtype=first.dtype)
    if np.ndim(first) == 0 and isinstance(first, (bytes, np.ndarray)):  # strings: np.array would nest 0-d arrays
        out = np.empty(len(values), object)
        out[:] = [v[()] if isinstance(v, np.ndarray) else v for v in values]
        return out
    return np.stack(values)


def _stored(value: Any) -> Any:
    """A value as the queue keeps it: a read-only input (a variable's live buffer) is copied, so that later
    updates of its source do not show through."""
    value = np.asarray(value)
    return value if value.flags.writeable else value.copy()


QueueDequeueV2 = Op("QueueDequeueV2", inputs=["handle: resource"], outputs=["components: component_types"],
                    attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"], is_stateful=True)
QueueDequeueManyV2 = Op("QueueDequeueManyV2", inputs=["handle: resource", "n: int32"],
                        outputs=["components: component_types"],
                        attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"], is_stateful=True)
QueueDequeueUpToV2 = Op("QueueDequeueUpToV2", inputs=["handle: resource", "n: int32"],
                        outputs=["components: component_types"],
                        attrs=["component_types: list(type) >= 1", "timeout_ms: int = -1"], is_stateful=True)


@QueueDequeueV2.shape
def _dequeue_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_scalar_handle(ctx)
    return [tensor_shape.unknown_shape() for _ in ctx.attr("component_types")]


@QueueDequeueManyV2.shape
def _dequeue_many_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_scalar_handle(ctx)
    with_rank(ctx.input_shape(1), 0)
    n = ctx.input_value(1)
    if n is not None and int(n) < 0:
        raise ValueError(f"Input 'n' must be >= 0, but is {int(n)}")
    return [tensor_shape.unknown_shape() for _ in ctx.attr("component_types")]


@QueueDequeueUpToV2.shape
def _dequeue_up_to_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_scalar_handle(ctx)
    with_rank(ctx.input_shape(1), 0)
    return [tensor_shape.unknown_shape() for _ in ctx.attr("component_types")]


@QueueDequeueV2.kernel("CPU", asynchronous=True)
def _dequeue(ctx: OpKernelContext, done: Done, handle: Any, component_types: list, timeout_ms: int) -> None:
    queue = handle
    queue.check_types(component_types, outputs=True)
    queue.try_dequeue(ctx, done, 1, allow_small=False, batched=False)


@QueueDequeueManyV2.kernel("CPU", asynchronous=True)
def _dequeue_many(ctx: OpKernelContext, done: Done, handle: Any, n: Any, component_types: list,
                  timeout_ms: int) -> None:
    queue = handle
    queue.check_types(component_types, outputs=True)
    if int(n) < 0:
        raise errors.InvalidArgumentError(None, None, f"DequeueManyOp requested {int(n)} < 0 elements")
    queue.check_batchable()
    queue.try_dequeue(ctx, done, int(n), allow_small=False, batched=True)


@QueueDequeueUpToV2.kernel("CPU", asynchronous=True)
def _dequeue_up_to(ctx: OpKernelContext, done: Done, handle: Any, n: Any, component_types: list,
                   timeout_ms: int) -> None:
    queue = handle
    queue.check_types(component_types, outputs=True)
    if int(n) < 0:
        raise errors.InvalidArgumentError(None, None, f"DequeueUpToOp requested {int(n)} < 0 elements")
    queue.check_batchable()
    queue.try_dequeue(ctx, done, int(n), allow_small=True, batched=True)


QueueCloseV2 = Op("QueueCloseV2", inputs=["handle: resource"], attrs=["cancel_pending_enqueues: bool = false"],
                  is_stateful=True)
QueueIsClosedV2 = Op("QueueIsClosedV2", inputs=["handle: resource"], outputs=["is_closed: bool"], is_stateful=True)
QueueSizeV2 = Op("QueueSizeV2", inputs=["handle: resource"], outputs=["size: int32"], is_stateful=True)


@QueueCloseV2.shape
def _close_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_scalar_handle(ctx)
    return []


@QueueIsClosedV2.shape
@QueueSizeV2.shape
def _scalar_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _check_scalar_handle(ctx)
    return [tensor_shape.TensorShape([])]


@QueueCloseV2.kernel("CPU")
def _close(ctx: OpKernelContext, handle: Any, cancel_pending_enqueues: bool) -> None:
    handle.close(cancel_pending_enqueues)


@QueueIsClosedV2.kernel("CPU")
def _is_closed(ctx: OpKernelContext, handle: Any) -> Any:
    return np.bool_(handle.closed)


@QueueSizeV2.kernel("CPU")
def _size(ctx: OpKernelContext, handle: Any) -> Any:
    queue = handle
    with queue.lock:
        return np.int32(queue.size())


# -- the Python classes ----------------------------------------------------------------------------------


def _as_type_list(types: Any) -> list[dtypes.DType]:
    if isinstance(types, (list, tuple)):
        return [dtypes.as_dtype(t) for t in types]
    return [dtypes.as_dtype(types)]


def _as_shape_list(shapes: Any, unknown_dim_allowed: bool = False) -> list[tensor_shape.TensorShape] | None:
    """Shapes as TF's queues take them: None, one shape, or one per component (fully defined unless
    `unknown_dim_allowed`, and always of known rank)."""
    if unknown_dim_allowed and (not isinstance(shapes, (list, tuple)) or not shapes
                                or any(s is None or isinstance(s, int) for s in shapes)):
        raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("Shapes must be a TensorShape or a list or tuple of TensorShapes, "
                        f"got {type(shapes)} instead.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [tensor_shape.as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.ndims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names: Any, types: list[dtypes.DType]) -> list[str] | None:
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(types):
        raise ValueError("List of names must have the same length as the list of dtypes, received "
                         f"len(names)={len(names)},len(dtypes)={len(types)}")
    return list(names)


def _shape_attr(shapes: list[tensor_shape.TensorShape] | None) -> list:
    return [s.as_list() for s in shapes] if shapes else []


@tf_export("queue.QueueBase", "io.QueueBase", "QueueBase")
class QueueBase:
    """A queue of tuples of tensors that lives across steps: the Python side of a queue handle."""

    def __init__(self, dtypes: list, shapes: list | None, names: list[str] | None, queue_ref: Tensor) -> None:
        self._dtypes = dtypes
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes, received "
                                 f"len(shapes)={len(shapes)}, len(dtypes)={len(dtypes)}")
            self._shapes = [tensor_shape.TensorShape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes, received "
                                 f"len(names)={len(names)},len {len(dtypes)}")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index: Any, queues: list[QueueBase]) -> QueueBase:
        """The queue `queues[index]`, chosen at run time: queues of the same dtypes and names, whose shapes
        become the dimensions they all agree on."""
        if not queues or not isinstance(queues, list) or not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        first = queues[0]
        if not all(first.dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        if not all(first.names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        shapes = [functools.reduce(_common_shape, s) for s in zip(*(q.shapes for q in queues))]
        selected = gather(stack([q.queue_ref for q in queues]), index)
        return QueueBase(first.dtypes, shapes, first.names, selected)

    @property
    def queue_ref(self) -> Tensor:
        return self._queue_ref

    @property
    def name(self) -> str:
        return self._queue_ref.op.name

    @property
    def dtypes(self) -> list:
        return self._dtypes

    @property
    def shapes(self) -> list:
        return self._shapes

    @property
    def names(self) -> list[str] | None:
        return self._names

    def _check_enqueue_dtypes(self, vals: Any) -> list[Tensor]:
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  Dictionary: "
                                 f"{sorted(vals.keys())},Queue: {sorted(self._names)}")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert_to_tensor(v, dtype=dtype, name=f"component_{i}")
                for i, (v, dtype) in enumerate(zip(vals, self._dtypes))]

    def _scope_vals(self, vals: Any) -> list:
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals: Any, name: str | None = None) -> Operation:
        """An op that adds one element (waiting while the queue is full)."""
        with name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for val, shape in zip(vals, self._shapes):
                val.shape.assert_is_compatible_with(shape)
            return QueueEnqueueV2(self._queue_ref, vals, name=scope)

    def enqueue_many(self, vals: Any, name: str | None = None) -> Operation:
        """An op that adds the slices along dimension 0 of `vals`, one element each."""
        with name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch_dim = tensor_shape.dimension_at_index(vals[0].shape.with_rank_at_least(1), 0)
            for val, shape in zip(vals, self._shapes):
                val_batch_dim = tensor_shape.dimension_at_index(val.shape.with_rank_at_least(1), 0)
                batch_dim = batch_dim.merge_with(val_batch_dim)
                val.shape[1:].assert_is_compatible_with(shape)
            return QueueEnqueueManyV2(self._queue_ref, vals, name=scope)

    def _dequeue_return_value(self, tensors: list[Tensor]) -> Any:
        if self._names:
            return dict(zip(self._names, tensors))
        return tensors[0] if len(tensors) == 1 else tensors

    def dequeue(self, name: str | None = None) -> Any:
        """One element (waiting while the queue is empty; OutOfRangeError once closed and empty)."""
        name = name or f"{self._name}_Dequeue"
        tensors = QueueDequeueV2(self._queue_ref, component_types=self._dtypes, name=name)
        for t, shape in zip(tensors, self._shapes):
            t.set_shape(shape)
        return self._dequeue_return_value(tensors)

    def dequeue_many(self, n: Any, name: str | None = None) -> Any:
        """`n` elements stacked along a new dimension 0."""
        name = name or f"{self._name}_DequeueMany"
        tensors = QueueDequeueManyV2(self._queue_ref, n, component_types=self._dtypes, name=name)
        value = tensor_util.constant_value(tensors[0].op.inputs[1])
        batch = tensor_shape.TensorShape([None if value is None else int(value)])
        for t, shape in zip(tensors, self._shapes):
            t.set_shape(batch.concatenate(shape))
        return self._dequeue_return_value(tensors)

    def dequeue_up_to(self, n: Any, name: str | None = None) -> Any:
        """Up to `n` elements: fewer only once the queue is closed."""
        name = name or f"{self._name}_DequeueUpTo"
        tensors = QueueDequeueUpToV2(self._queue_ref, n, component_types=self._dtypes, name=name)
        for t, shape in zip(tensors, self._shapes):
            t.set_shape(tensor_shape.TensorShape([None]).concatenate(shape))
        return self._dequeue_return_value(tensors)

    def close(self, cancel_pending_enqueues: bool = False, name: str | None = None) -> Operation:
        """An op that closes the queue: later enqueues fail, dequeues drain what is left."""
        name = name or f"{self._name}_Close"
        return QueueCloseV2(self._queue_ref, cancel_pending_enqueues=cancel_pending_enqueues, name=name)

    def is_closed(self, name: str | None = None) -> Tensor:
        name = name or f"{self._name}_Is_Closed"
        return QueueIsClosedV2(self._queue_ref, name=name)

    def size(self, name: str | None = None) -> Tensor:
        name = name or f"{self._name}_Size"
        return QueueSizeV2(self._queue_ref, name=name)


def _common_shape(a: tensor_shape.TensorShape, b: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """The dimensions two shapes agree on (unknown elsewhere; unknown rank where the ranks differ)."""
    if a.ndims is None or b.ndims is None or a.ndims != b.ndims:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape([x if x is not None and x == y else None
                                     for x, y in zip(a.as_list(), b.as_list())])


def _shared(shared_name: str | None) -> str:
    return shared_name or ""


@tf_export("queue.FIFOQueue", "FIFOQueue")
class FIFOQueue(QueueBase):
    """A queue whose elements leave in the order they came."""

    def __init__(self, capacity: int, dtypes: Any, shapes: Any = None, names: Any = None,
                 shared_name: str | None = None, name: str = "fifo_queue") -> None:
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, types)
        with device("CPU"):
            ref = FIFOQueueV2(component_types=types, shapes=_shape_attr(shapes), capacity=capacity,
                              shared_name=_shared(shared_name), name=name)
        super().__init__(types, shapes, names, ref)


@tf_export("queue.PaddingFIFOQueue", "io.PaddingFIFOQueue", "PaddingFIFOQueue")
class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose components may have unknown dimensions; dequeue_many pads them with zeros."""

    def __init__(self, capacity: int, dtypes: Any, shapes: Any, names: Any = None, shared_name: str | None = None,
                 name: str = "padding_fifo_queue") -> None:
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, types)
        if len(types) != len(shapes):
            raise ValueError("Shapes must be provided for all components, but received "
                             f"{len(types)} dtypes and {len(shapes)} shapes.")
        ref = PaddingFIFOQueueV2(component_types=types, shapes=_shape_attr(shapes), capacity=capacity,
                                 shared_name=_shared(shared_name), name=name)
        super().__init__(types, shapes, names, ref)


@tf_export("queue.RandomShuffleQueue", "io.RandomShuffleQueue", "RandomShuffleQueue")
class RandomShuffleQueue(QueueBase):
    """A queue whose elements leave in random order, keeping `min_after_dequeue` to mix with (until closed)."""

    def __init__(self, capacity: int, min_after_dequeue: int, dtypes: Any, shapes: Any = None, names: Any = None,
                 seed: int | None = None, shared_name: str | None = None, name: str = "random_shuffle_queue") -> None:
        types = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, types)
        seed1, seed2 = random_seed.get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # TF: with only a graph seed, a shared queue's seed2 depends on the graph seed and its name alone
            digest = hashlib.md5((str(seed1) + shared_name).encode()).hexdigest()
            seed2 = int(digest[:8], 16) & 0x7FFFFFFF
        ref = RandomShuffleQueueV2(component_types=types, shapes=_shape_attr(shapes), capacity=capacity,
                                   min_after_dequeue=min_after_dequeue, seed=seed1, seed2=seed2,
                                   shared_name=_shared(shared_name), name=name)
        super().__init__(types, shapes, names, ref)


@tf_export("queue.PriorityQueue", "io.PriorityQueue", "PriorityQueue")
class PriorityQueue(QueueBase):
    """A queue whose elements leave smallest int64 priority first (each element's component 0)."""

    def __init__(self, capacity: int, types: Any, shapes: Any = None, names: Any = None,
                 shared_name: str | None = None, name: str = "priority_queue") -> None:
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes)
        ref = PriorityQueueV2(component_types=types, shapes=None if shapes is None else _shape_attr(shapes),
                              capacity=capacity,
                              shared_name=_shared(shared_name), name=name)
        priority_types = [dtypes.int64] + types
        priority_shapes = [tensor_shape.TensorShape([])] + shapes if shapes else shapes
        super().__init__(priority_types, priority_shapes, names, ref)



# -- conditional accumulators ----------------------------------------------------------------------------
#
# An accumulator sums the gradients applied with a local step no older than its global step (staler ones
# are dropped without a word, as TF does) and hands out their average when a TakeGradient finds enough of
# them; the take resets the count and advances the global step, so a late replica's gradient of the
# previous step is dropped. Takes wait as attempts (no thread held), cancelled with their step.



def _complete_takes(finished: list[tuple[_Attempt, Any]]) -> None:
    """Complete an accumulator's finished takes (each with its result or error), outside its lock."""
    for attempt, result in finished:
        if attempt.cancellation is not None:
            attempt.cancellation.deregister_callback(attempt.token)
        if isinstance(result, BaseException):
            attempt.done(error=result)
        else:
            attempt.done(result[0] if len(result) == 1 else result)


class _Accumulator:
    """What the dense and sparse accumulators share: the count, the global step and the waiting takes."""

    def __init__(self, name: str, dtype: dtypes.DType, shape: list | None, reduction_type: str) -> None:
        self.name = name
        self.dtype = dtype
        self.shape = tensor_shape.TensorShape(shape)
        self.reduction_type = reduction_type
        self.lock = threading.Lock()
        self.counter = 0
        self.global_step = 0
        self.takers: collections.deque[_Attempt] = collections.deque()

    def set_global_step(self, new_global_step: int) -> None:
        with self.lock:
            if new_global_step < self.global_step:
                tf_logging.get_logger().warning(
                    "Attempt to set current_global_step_ to smaller value: current_global_step_ = %d >= %d = "
                    "new_global_step.", self.global_step, new_global_step)
            self.global_step = new_global_step

    def try_apply(self, local_step: int, gradient: tuple) -> None:
        """Add `gradient` unless it is stale; then serve the takes it completes."""
        error = None
        with self.lock:
            if local_step >= self.global_step:
                try:
                    self._validate(*gradient)
                    if self.counter > 0:
                        self._add(*gradient)
                    else:
                        self._assign(*gradient)
                    self.counter += 1
                except errors.InvalidArgumentError as e:
                    error = e
            finished = self._flush()
        _complete_takes(finished)
        if error is not None:
            raise error

    def try_take(self, ctx: OpKernelContext, done: Done, num_required: int) -> None:
        if num_required <= 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"Argument num_required must be positive, but was {num_required}")
        attempt = _Attempt(done, wanted=num_required)
        cancellation = ctx.cancellation
        attempt.cancellation, attempt.token = cancellation, cancellation.get_cancellation_token()
        if not cancellation.register_callback(attempt.token, lambda: self._cancel(attempt)):
            done(error=errors.CancelledError(None, None, "TakeGrad operation was cancelled"))
            return
        with self.lock:
            self.takers.append(attempt)
            finished = self._flush()
        _complete_takes(finished)

    def _cancel(self, attempt: _Attempt) -> None:
        with self.lock:
            if attempt not in self.takers:
                return
            self.takers.remove(attempt)
            finished = [(attempt, errors.CancelledError(None, None, "TakeGrad operation was cancelled"))]
            finished += self._flush()
        _complete_takes(finished)

    def _flush(self) -> list[tuple[_Attempt, Any]]:
        """The takes the gradients now counted satisfy, each with its result; completed after the lock."""
        finished: list[tuple[_Attempt, Any]] = []
        while self.takers and self.counter >= self.takers[0].wanted:
            self.global_step += 1
            finished.append((self.takers.popleft(), self._take()))
            self.counter = 0
        return finished

    def _mean(self, total: np.ndarray, count: Any) -> np.ndarray:
        """The sum divided by the count of gradients in it."""
        if self.reduction_type != "MEAN":
            return total
        return (total / count).astype(total.dtype, copy=False)

    def _validate(self, *gradient: Any) -> None:
        raise NotImplementedError

    def _assign(self, *gradient: Any) -> None:
        raise NotImplementedError

    def _add(self, *gradient: Any) -> None:
        raise NotImplementedError

    def _take(self) -> list:
        raise NotImplementedError


class _DenseAccumulator(_Accumulator):
    """The running sum of dense gradients of one shape."""

    def _validate(self, grad: np.ndarray) -> None:
        if self.counter > 0 and self.accum.shape != grad.shape:
            raise errors.InvalidArgumentError(None, None, f"Shape mismatch: expected "
                                                          f"{tensor_shape.shape_string(self.accum.shape)}, got "
                                                          f"{tensor_shape.shape_string(grad.shape)}")
        if not self.shape.is_compatible_with(grad.shape):
            raise errors.InvalidArgumentError(None, None, f"Shape mismatch: expected "
                                                          f"{tensor_shape.shape_string(self.shape)}, got "
                                                          f"{tensor_shape.shape_string(grad.shape)}")

    def _assign(self, grad: np.ndarray) -> None:
        self.accum = np.array(grad, copy=True)

    def _add(self, grad: np.ndarray) -> None:
        self.accum += grad

    def _take(self) -> list:
        return [self._mean(self.accum, self.counter)]


class _SparseAccumulator(_Accumulator):
    """The running sum of IndexedSlices gradients, row by row, with how many gradients touched each row (a
    MEAN take divides each row by its own count, as TF's does)."""

    def _validate(self, indices: np.ndarray, values: np.ndarray, shape: np.ndarray | None) -> None:
        def mismatch(message: str) -> errors.InvalidArgumentError:
            return errors.InvalidArgumentError(None, None, "Shape mismatch: " + message)

        if np.ndim(indices) != 1:
            raise errors.InvalidArgumentError(None, None, f"Input indices should be vector but received shape: "
                                                          f"{tensor_shape.shape_string(np.shape(indices))}")
        if np.ndim(values) == 0:
            raise errors.InvalidArgumentError(None, None, "Values cannot be 0-dimensional.")
        if len(values) != len(indices):
            raise errors.InvalidArgumentError(None, None, f"Expected {len(indices)} non-empty input values, got "
                                                          f"{len(values)}")
        dims = self.shape.as_list() if self.shape.ndims is not None else []
        if shape is not None:
            if len(dims) > np.size(shape):
                raise mismatch(f"expected shape rank at least {len(dims)}, got {np.size(shape)}")
            for i, d in enumerate(dims):
                if d is not None and d != shape[i]:
                    raise mismatch(f"expected shape dim {i} to be {d}, got {shape[i]}")
        if dims and dims[0] is not None and len(indices):
            over = np.flatnonzero(indices >= dims[0])
            if over.size:
                raise mismatch(f"index of slice {over[0]} exceeded limits of shape; index is {indices[over[0]]} "
                               f"exceeded {dims[0]}")
        if self.counter > 0:
            if self.values.ndim != values.ndim:
                raise mismatch(f"expected values rank {self.values.ndim}, got {values.ndim}")
            for i in range(1, values.ndim):
                if self.values.shape[i] != values.shape[i]:
                    raise mismatch(f"expected values dim {i} to be {self.values.shape[i]}, got {values.shape[i]}")
        else:
            if len(dims) > values.ndim:
                raise mismatch(f"expected values rank at least {len(dims)}, got {values.ndim}")
            for i in range(1, len(dims)):
                if dims[i] is not None and dims[i] != values.shape[i]:
                    raise mismatch(f"expected values dim {i} to be {dims[i]}, got {values.shape[i]}")

    def _assign(self, indices: np.ndarray, values: np.ndarray, shape: Any) -> None:
        self.indices = np.array(indices, np.int64)
        self.values = np.array(values, copy=True)
        self.counts = np.ones(len(indices), np.int64)

    def _add(self, indices: np.ndarray, values: np.ndarray, shape: Any) -> None:
        """TF's merge of two index lists (sorted, as it assumes): the k-th row of an index in the sum meets
        the k-th row of that index in the new gradient; rows without a partner stay rows of their own."""
        keys = np.stack([np.concatenate([self.indices, indices]),
                         np.concatenate([_occurrence_rank(self.indices), _occurrence_rank(indices)])], axis=1)
        merged, position = np.unique(keys, axis=0, return_inverse=True)
        position = position.reshape(-1)
        summed = np.zeros((len(merged),) + values.shape[1:], values.dtype)
        np.add.at(summed, position, np.concatenate([self.values, values]))
        counts = np.zeros(len(merged), np.int64)
        np.add.at(counts, position, np.concatenate([self.counts, np.ones(len(indices), np.int64)]))
        self.indices, self.values, self.counts = merged[:, 0], summed, counts

    def _take(self) -> list:
        counts = self.counts.reshape((-1,) + (1,) * (self.values.ndim - 1))
        dims = [self.shape.as_list()[0] if self.shape.ndims else -1] + list(self.values.shape[1:])
        dense_shape = np.array([-1 if d is None else d for d in dims], np.int64)
        return [self.indices.copy(), self._mean(self.values, counts), dense_shape]


# The ref-handle ops are TF1's (and what its graphs hold); TF's Python makes dense accumulators with the
# resource op, sparse ones with the ref op, as here. `...Op` names keep the handles apart from the classes.
def _occurrence_rank(indices: np.ndarray) -> np.ndarray:
    """For each entry, how many equal entries come before it."""
    order = np.argsort(indices, kind="stable")
    ordered = indices[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(ordered) else np.zeros(0, np.int64)
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(ordered)]))
    rank = np.empty(len(indices), np.int64)
    rank[order] = np.arange(len(indices)) - run_start
    return rank


_ACCUMULATOR_ATTRS = ["dtype: numbertype", "shape: shape", "container: string = ''", "shared_name: string = ''",
                      "reduction_type: {'MEAN', 'SUM'} = 'MEAN'"]
ConditionalAccumulatorOp = Op("ConditionalAccumulator", outputs=["handle: Ref(string)"], attrs=_ACCUMULATOR_ATTRS,
                            is_stateful=True)
ResourceConditionalAccumulator = Op("ResourceConditionalAccumulator", outputs=["handle: resource"],
                                    attrs=_ACCUMULATOR_ATTRS, is_stateful=True)
SparseConditionalAccumulatorOp = Op("SparseConditionalAccumulator", outputs=["handle: Ref(string)"],
                                  attrs=_ACCUMULATOR_ATTRS, is_stateful=True)


@ConditionalAccumulatorOp.shape
@ResourceConditionalAccumulator.shape
@SparseConditionalAccumulatorOp.shape
def _accumulator_handle_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([2])]


_ACCUMULATOR_KERNEL_TYPES = {"dtype": (dtypes.float16, dtypes.float32, dtypes.float64)}  # TF's kernels


@ConditionalAccumulatorOp.kernel("CPU", state=ResourceSlot, type_constraints=_ACCUMULATOR_KERNEL_TYPES)
@ResourceConditionalAccumulator.kernel("CPU", state=ResourceSlot, type_constraints=_ACCUMULATOR_KERNEL_TYPES)
@SparseConditionalAccumulatorOp.kernel("CPU", state=ResourceSlot, type_constraints=_ACCUMULATOR_KERNEL_TYPES)
def _accumulator(ctx: OpKernelContext, dtype: Any, shape: Any, container: bytes, shared_name: bytes,
                 reduction_type: bytes) -> _Accumulator:
    slot: ResourceSlot = ctx.state
    if slot.resource is None:
        name = resource_name(shared_name.decode(), ctx.name)
        cls = _SparseAccumulator if ctx.op == "SparseConditionalAccumulator" else _DenseAccumulator
        slot.resource = ctx.resources.lookup_or_create(
            container.decode(), name, lambda: cls(name, dtype, shape, reduction_type.decode()))
    return slot.resource


AccumulatorApplyGradient = Op("AccumulatorApplyGradient",
                              inputs=["handle: Ref(string)", "local_step: int64", "gradient: dtype"],
                              attrs=["dtype: numbertype"])
ResourceAccumulatorApplyGradient = Op("ResourceAccumulatorApplyGradient",
                                      inputs=["handle: resource", "local_step: int64", "gradient: dtype"],
                                      attrs=["dtype: numbertype"], is_stateful=True)
SparseAccumulatorApplyGradient = Op("SparseAccumulatorApplyGradient",
                                    inputs=["handle: Ref(string)", "local_step: int64", "gradient_indices: int64",
                                            "gradient_values: dtype", "gradient_shape: int64"],
                                    attrs=["dtype: numbertype", "has_known_shape: bool"])


@AccumulatorApplyGradient.shape
@ResourceAccumulatorApplyGradient.shape
@SparseAccumulatorApplyGradient.shape
def _apply_gradient_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return []


@AccumulatorApplyGradient.kernel("CPU")
@ResourceAccumulatorApplyGradient.kernel("CPU")
def _accumulator_apply_gradient(ctx: OpKernelContext, handle: _Accumulator, local_step: Any, gradient: Any,
                                dtype: Any) -> None:
    handle.try_apply(int(local_step), (np.asarray(gradient),))


@SparseAccumulatorApplyGradient.kernel("CPU")
def _sparse_accumulator_apply_gradient(ctx: OpKernelContext, handle: _Accumulator, local_step: Any, indices: Any,
                                       values: Any, shape: Any, dtype: Any, has_known_shape: bool) -> None:
    handle.try_apply(int(local_step), (np.asarray(indices), np.asarray(values),
                                       np.asarray(shape) if has_known_shape else None))


AccumulatorTakeGradient = Op("AccumulatorTakeGradient", inputs=["handle: Ref(string)", "num_required: int32"],
                             outputs=["average: dtype"], attrs=["dtype: numbertype"])
ResourceAccumulatorTakeGradient = Op("ResourceAccumulatorTakeGradient",
                                     inputs=["handle: resource", "num_required: int32"], outputs=["average: dtype"],
                                     attrs=["dtype: numbertype"], is_stateful=True)
SparseAccumulatorTakeGradient = Op("SparseAccumulatorTakeGradient",
                                   inputs=["handle: Ref(string)", "num_required: int32"],
                                   outputs=["indices: int64", "values: dtype", "shape: int64"],
                                   attrs=["dtype: numbertype"])


@AccumulatorTakeGradient.shape
@ResourceAccumulatorTakeGradient.shape
def _take_gradient_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return [tensor_shape.unknown_shape()]


_SparseTakeGradient = collections.namedtuple("SparseAccumulatorTakeGradient", ["indices", "values", "shape"])


@SparseAccumulatorTakeGradient.shape
def _sparse_take_gradient_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return [tensor_shape.unknown_shape()] * 3


@AccumulatorTakeGradient.kernel("CPU", asynchronous=True)
@ResourceAccumulatorTakeGradient.kernel("CPU", asynchronous=True)
@SparseAccumulatorTakeGradient.kernel("CPU", asynchronous=True)
def _accumulator_take_gradient(ctx: OpKernelContext, done: Done, handle: _Accumulator, num_required: Any,
                               dtype: Any) -> None:
    handle.try_take(ctx, done, int(num_required))


AccumulatorNumAccumulated = Op("AccumulatorNumAccumulated", inputs=["handle: Ref(string)"],
                               outputs=["num_accumulated: int32"])
ResourceAccumulatorNumAccumulated = Op("ResourceAccumulatorNumAccumulated", inputs=["handle: resource"],
                                       outputs=["num_accumulated: int32"], is_stateful=True)
AccumulatorSetGlobalStep = Op("AccumulatorSetGlobalStep", inputs=["handle: Ref(string)", "new_global_step: int64"])
ResourceAccumulatorSetGlobalStep = Op("ResourceAccumulatorSetGlobalStep",
                                      inputs=["handle: resource", "new_global_step: int64"], is_stateful=True)


@AccumulatorNumAccumulated.shape
@ResourceAccumulatorNumAccumulated.shape
def _num_accumulated_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([])]


@AccumulatorSetGlobalStep.shape
@ResourceAccumulatorSetGlobalStep.shape
def _set_global_step_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    with_rank(ctx.input_shape(1), 0)
    return []


@AccumulatorNumAccumulated.kernel("CPU")
@ResourceAccumulatorNumAccumulated.kernel("CPU")
def _num_accumulated(ctx: OpKernelContext, handle: _Accumulator) -> Any:
    with handle.lock:
        return np.int32(handle.counter)


@AccumulatorSetGlobalStep.kernel("CPU")
@ResourceAccumulatorSetGlobalStep.kernel("CPU")
def _set_global_step(ctx: OpKernelContext, handle: _Accumulator, new_global_step: Any) -> None:
    handle.set_global_step(int(new_global_step))


@tf_export("ConditionalAccumulatorBase")
class ConditionalAccumulatorBase:
    """A gradient accumulator that lives across steps: the Python side of an accumulator handle."""

    def __init__(self, dtype: Any, shape: Any, accumulator_ref: Tensor) -> None:
        self._dtype = dtype
        self._shape = tensor_shape.unknown_shape() if shape is None else tensor_shape.TensorShape(shape)
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self) -> Tensor:
        return self._accumulator_ref

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> Any:
        return self._dtype

    def num_accumulated(self, name: str | None = None) -> Tensor:
        """How many gradients are in the sum now."""
        return ResourceAccumulatorNumAccumulated(self._accumulator_ref, name=name or f"{self._name}_NumAccumulated")

    def set_global_step(self, new_global_step: Any, name: str | None = None) -> Operation:
        """Gradients of local steps before `new_global_step` are dropped from now on."""
        step = cast_ops.cast(convert_to_tensor(new_global_step), dtypes.int64)
        return ResourceAccumulatorSetGlobalStep(self._accumulator_ref, step, name=name)


@tf_export("ConditionalAccumulator")
class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Averages (or sums) dense gradients until enough have come: what SyncReplicasOptimizer keeps on the PS."""

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "conditional_accumulator", reduction_type: str = "MEAN") -> None:
        shape_attr = None if shape is None else tensor_shape.TensorShape(shape)
        ref = ResourceConditionalAccumulator(
            dtype=dtype, shape=None if shape_attr is None or shape_attr.ndims is None else shape_attr.as_list(),
            shared_name=_shared(shared_name), name=name, reduction_type=reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_grad(self, grad: Any, local_step: Any = 0, name: str | None = None) -> Operation:
        """Add `grad`, computed at `local_step` (dropped when older than the accumulator's global step)."""
        grad = convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        local_step = cast_ops.cast(convert_to_tensor(local_step), dtypes.int64)
        return ResourceAccumulatorApplyGradient(self._accumulator_ref, local_step=local_step, gradient=grad,
                                                name=name)

    def take_grad(self, num_required: Any, name: str | None = None) -> Tensor:
        """The average once `num_required` gradients are in; resets the sum and advances the global step."""
        out = ResourceAccumulatorTakeGradient(self._accumulator_ref, num_required, dtype=self._dtype, name=name)
        out.set_shape(self._shape)
        return out


@tf_export("sparse.SparseConditionalAccumulator", "SparseConditionalAccumulator")
class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """A ConditionalAccumulator of IndexedSlices gradients: rows are averaged over the gradients that
    touched them."""

    def __init__(self, dtype: Any, shape: Any = None, shared_name: str | None = None,
                 name: str = "sparse_conditional_accumulator", reduction_type: str = "MEAN") -> None:
        shape_attr = None if shape is None else tensor_shape.TensorShape(shape)
        ref = SparseConditionalAccumulatorOp(
            dtype=dtype, shape=None if shape_attr is None or shape_attr.ndims is None else shape_attr.as_list(),
            shared_name=_shared(shared_name), name=name, reduction_type=reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_indexed_slices_grad(self, grad: IndexedSlices, local_step: Any = 0,
                                  name: str | None = None) -> Operation:
        return self.apply_grad(grad_indices=grad.indices, grad_values=grad.values, grad_shape=grad.dense_shape,
                               local_step=local_step, name=name)

    def apply_grad(self, grad_indices: Any, grad_values: Any, grad_shape: Any = None, local_step: Any = 0,
                   name: str | None = None) -> Operation:
        """Add the rows `grad_values` at `grad_indices` (dropped when `local_step` is stale)."""
        local_step = cast_ops.cast(convert_to_tensor(local_step), dtypes.int64)
        return SparseAccumulatorApplyGradient(
            self._accumulator_ref, local_step=local_step,
            gradient_indices=cast_ops.cast(grad_indices, dtypes.int64), gradient_values=grad_values,
            gradient_shape=cast_ops.cast([] if grad_shape is None else grad_shape, dtypes.int64),
            has_known_shape=grad_shape is not None, name=name)

    def take_grad(self, num_required: Any, name: str | None = None) -> Any:
        """(indices, values, shape) once `num_required` gradients are in."""
        return _SparseTakeGradient(*SparseAccumulatorTakeGradient(self._accumulator_ref, num_required,
                                                                  dtype=self._dtype, name=name))

    def take_indexed_slices_grad(self, num_required: Any, name: str | None = None) -> IndexedSlices:
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)

    def num_accumulated(self, name: str | None = None) -> Tensor:
        return AccumulatorNumAccumulated(self._accumulator_ref, name=name or f"{self._name}_NumAccumulated")

    def set_global_step(self, new_global_step: Any, name: str | None = None) -> Operation:
        step = cast_ops.cast(convert_to_tensor(new_global_step), dtypes.int64)
        return AccumulatorSetGlobalStep(self._accumulator_ref, step, name=name)
