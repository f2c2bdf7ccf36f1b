"""BatchFunction (`tf.nondifferentiable_batch_function`): concurrent runs of one function batched together.

The decorated Python function is traced once per call site into a private graph (by `tensorweave.data.function`,
through the `trace_function` hook, as tf.data's functions are) and registered under the name its node's `f`
attr carries. Each run of a BatchFunction node is a task: its inputs (batched along their first dimension) go
to the node's batcher, a resource shared by `shared_name` (the node's name scope). A batcher keeps one open
batch: a task that would overflow `max_batch_size` closes it, a batch that reaches `max_batch_size` or has
waited `batch_timeout_micros` since its first task is processed on one of `num_batch_threads` threads: the
tasks' inputs concatenated, padded up to the next of `allowed_batch_sizes` with copies of the first row, the
function run once, and its outputs split back to the tasks by their sizes. A task is never split across batches
(TF may split one under `enable_large_batch_splitting`; each task's results are the same either way).
Captured outer tensors are not supported: the function uses its arguments, constants and ops of its own.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import nest, tensor_shape
from tensorweave.framework.graph import Tensor, name_scope
from tensorweave.framework.hooks import Hook
from tensorweave.framework.op_kernel import Done, OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.resource_mgr import ResourceSlot
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.platform.tf_export import tf_export

trace_function: Hook[Callable[[Callable, Sequence[Any], Sequence[Any]], Any]] = Hook(
    "batch function trace", "tensorweave.data.function")

_functions: dict[str, Callable[[list[Any]], list[Any]]] = {}
_functions_lock = threading.Lock()
_function_ids = itertools.count()

BatchFunction = Op(
    "BatchFunction", inputs=["in_tensors: Tin", "captured_tensors: Tcaptured"], outputs=["out_tensors: Tout"],
    attrs=["f: func", "num_batch_threads: int", "max_batch_size: int", "batch_timeout_micros: int",
           "max_enqueued_batches: int = 10", "allowed_batch_sizes: list(int) = []", "container: string = ''",
           "shared_name: string = ''", "batching_queue: string = ''", "low_priority_max_batch_size: int = 0",
           "low_priority_batch_timeout_micros: int = 0", "low_priority_allowed_batch_sizes: list(int) = []",
           "low_priority_max_enqueued_batches: int = 0",
           "mixed_priority_policy: {'low_priority_padding_with_max_batch_size', "
           "'low_priority_padding_with_next_allowed_batch_size', 'priority_isolation', 'priority_merge'} = "
           "'low_priority_padding_with_max_batch_size'",
           "batch_padding_policy: {'PAD_UP', 'BATCH_DOWN', 'MINIMIZE_TPU_COST_PER_REQUEST'} = 'PAD_UP'",
           "Tin: list(type) >= 1", "Tcaptured: list(type) >= 0", "Tout: list(type) >= 1",
           "enable_large_batch_splitting: bool = false"],
    is_distributed_communication=True)
NotDifferentiable("BatchFunction")


@BatchFunction.shape
def _batch_function_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.unknown_shape()] * len(ctx.attr("Tout"))


class _Task:
    """One run's inputs, its size (their first dimension) and where its outputs go."""

    __slots__ = ("inputs", "size", "done")

    def __init__(self, inputs: list[np.ndarray], size: int, done: Done) -> None:
        self.inputs, self.size, self.done = inputs, size, done


class _Batcher:
    """The open batch of one shared name, its timer, and the threads that process closed batches."""

    def __init__(self, function: Callable[[list[Any]], list[Any]], threads: int, max_batch_size: int,
                 timeout_micros: int, allowed_batch_sizes: list[int]) -> None:
        self._function = function
        self._max = max_batch_size
        self._timeout = timeout_micros / 1e6
        self._allowed = allowed_batch_sizes
        self._pool = ThreadPoolExecutor(max_workers=max(threads, 1), thread_name_prefix="tensorweave-batch")
        self._lock = threading.Lock()
        self._open: list[_Task] = []
        self._size = 0

    def submit(self, task: _Task) -> None:
        with self._lock:
            if self._open and self._size + task.size > self._max:
                self._close()
            self._open.append(task)
            self._size += task.size
            if self._size >= self._max:
                self._close()
            elif len(self._open) == 1:
                timer = threading.Timer(self._timeout, self._expire, (self._open,))
                timer.daemon = True
                timer.start()

    def _expire(self, batch: list[_Task]) -> None:
        with self._lock:
            if self._open is batch:
                self._close()

    def _close(self) -> None:
        """Hand the open batch to a processing thread (under the lock)."""
        batch, self._open, self._size = self._open, [], 0
        self._pool.submit(self._process, batch)

    def _process(self, batch: list[_Task]) -> None:
        size = sum(task.size for task in batch)
        padded = next((s for s in self._allowed if s >= size), size)
        try:
            inputs = [np.concatenate([task.inputs[i] for task in batch]) for i in range(len(batch[0].inputs))]
            if padded > size:
                inputs = [np.concatenate([x, np.repeat(x[:1], padded - size, axis=0)]) for x in inputs]
            outputs = [np.asarray(o) for o in self._function(inputs)]
            for output in outputs:
                if output.ndim == 0 or output.shape[0] != padded:
                    raise errors.FailedPreconditionError(
                        None, None, "Batched output tensor's 0th dimension does not equal the sum of the 0th "
                        f"dimension sizes of the input tensors. 0th dimension size: "
                        f"{output.shape[0] if output.ndim else 0}; batch size: {size}; unbatched tasks size: 0; "
                        f"padding size: {padded - size}")
        except Exception as e:  # noqa: BLE001 - every task of the batch hears of the failure
            error = e if isinstance(e, errors.OpError) else errors.InvalidArgumentError(None, None, str(e))
            for task in batch:
                task.done(error=error)
            return
        start = 0
        for task in batch:
            task.done([output[start:start + task.size] for output in outputs])
            start += task.size


def _check_allowed_batch_sizes(ctx: OpKernelContext, allowed: list[int], max_batch_size: int,
                               splitting: bool) -> None:
    for i, size in enumerate(allowed):
        if i > 0 and size <= allowed[i - 1]:
            raise invalid_argument(ctx, "allowed_batch_sizes entries must be monotonically increasing")
        if not splitting and i == len(allowed) - 1 and size != max_batch_size:
            raise invalid_argument(ctx, "final entry in allowed_batch_sizes must equal max_batch_size when "
                                        "enable_large_batch_splitting is False")


@BatchFunction.kernel("CPU", asynchronous=True, state=ResourceSlot)
def _batch_function(ctx: OpKernelContext, done: Done, *tensors: Any, f: str, num_batch_threads: int,
                    max_batch_size: int, batch_timeout_micros: int, allowed_batch_sizes: list[int],
                    container: bytes, shared_name: bytes, enable_large_batch_splitting: bool,
                    Tin: list, **attrs: Any) -> None:  # noqa: N803
    _check_allowed_batch_sizes(ctx, list(allowed_batch_sizes), max_batch_size, enable_large_batch_splitting)
    inputs = [np.asarray(t) for t in tensors[:len(Tin)]]
    if any(x.ndim == 0 for x in inputs):
        raise invalid_argument(ctx, "Batching input tensors must have at least one dimension.")
    if len({x.shape[0] for x in inputs}) > 1:
        raise invalid_argument(ctx, "Batching input tensors supplied in a given op invocation must have equal "
                                    "0th-dimension size.")
    size = inputs[0].shape[0]
    if size > max_batch_size:
        raise invalid_argument(ctx, f"Task size {size} is larger than maximum input batch size {max_batch_size}")
    with _functions_lock:
        function = _functions.get(f)
    if function is None:
        raise errors.NotFoundError(ctx.node_def, None, f"Function {f} is not defined.")

    def make() -> _Batcher:
        return _Batcher(function, num_batch_threads, max_batch_size, batch_timeout_micros,
                        list(allowed_batch_sizes))

    slot: ResourceSlot = ctx.state
    batcher = slot.get(lambda: ctx.resources.lookup_or_create(container.decode(), f"{shared_name.decode()}{f}", make))

    def finish(outputs: Any = None, error: BaseException | None = None) -> None:
        if isinstance(error, errors.OpError) and error.node_def is None:
            error = type(error)(ctx.node_def, None, error.message)
        if error is not None:
            done(error=error)
        else:  # an asynchronous kernel's one output is given as itself
            done(outputs[0] if len(outputs) == 1 else outputs)

    batcher.submit(_Task(inputs, size, finish))


def _register(name: str, function: Callable[[list[Any]], list[Any]]) -> str:
    name = f"__inference_{name}_{next(_function_ids)}"
    with _functions_lock:
        _functions[name] = function
    return name


@tf_export("nondifferentiable_batch_function")
def batch_function(num_batch_threads: int, max_batch_size: int, batch_timeout_micros: int,
                   allowed_batch_sizes: list[int] | None = None, max_enqueued_batches: int = 10,
                   autograph: bool = True, enable_large_batch_splitting: bool = True) -> Callable:
    """A decorator: the function's work, for runs of its graph made at the same time, done in one batch (its
    arguments are tensors batched along their first dimension; its result a tensor or a sequence of them)."""

    def decorator(fn: Callable) -> Callable:
        def decorated(*args: Any) -> Any:
            traced = trace_function(fn, [a.dtype for a in args], [a.shape for a in args])
            with name_scope("batch") as name:
                for a in args:
                    if not isinstance(a, Tensor):
                        raise ValueError("All arguments to functions decorated with `batch_function`  are "
                                         f"supposed to be Tensors; found {a!r}.")
                outputs = BatchFunction(
                    list(args), [], f=_register(getattr(fn, "__name__", "function"), traced),
                    num_batch_threads=num_batch_threads, max_batch_size=max_batch_size,
                    batch_timeout_micros=batch_timeout_micros, allowed_batch_sizes=allowed_batch_sizes or [],
                    max_enqueued_batches=max_enqueued_batches, shared_name=name,
                    enable_large_batch_splitting=enable_large_batch_splitting,
                    Tout=[t.dtype for t in nest.flatten(traced.output_spec)])
            return nest.pack_sequence_as(traced.output_spec, list(outputs))

        return decorated

    return decorator
