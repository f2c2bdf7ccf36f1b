"""`tf.CriticalSection`: functions run one at a time on a mutex resource (MutexV2, MutexLock,
ConsumeMutexLock).

A Mutex lives in its device's resource manager. MutexLock is asynchronous: it hands out the lock at once when
the mutex is free, and otherwise queues and completes when it is released, holding no thread meanwhile (a
cancelled step stops waiting). The lock value is what TF's variant is: the lock is released when
ConsumeMutexLock runs (which `execute` makes wait for every output of the function), when the step that took
it fails (through its cancellation), or at the latest when the value is dropped.

`execute(fn)` builds fn's ops under a control dependency on the lock, makes the lock wait for what fn's ops
read from outside, and keeps TF's graph-time checks: a section may not be entered from inside itself, and two
sections may share a resource only if neither asks for exclusive access.
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave import errors
from tensorweave.framework import dtypes, nest, tensor_shape
from tensorweave.framework.graph import (
    Operation,
    Tensor,
    add_to_collections,
    colocate_with,
    control_dependencies,
    convert_to_tensor,
    get_collection,
    get_default_graph,
    init_scope,
    name_scope,
)
from tensorweave.framework.op_kernel import Done, OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.resource_mgr import ResourceSlot
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import control_flow_ops, manipulation_ops
from tensorweave.platform.tf_export import tf_export

CRITICAL_SECTIONS = "critical_sections"
CRITICAL_SECTION_EXECUTIONS = "critical_section_executions"


class _Mutex:
    """A mutex whose waiters are callbacks, served in order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._held = False
        self._waiters: collections.deque[Callable[[MutexLockValue], None]] = collections.deque()
        self._lock = threading.Lock()

    def acquire(self, granted: Callable[[MutexLockValue], None]) -> Callable[[], bool]:
        """Call `granted(lock)` once the mutex is this caller's (now, if it is free); returns a function that
        withdraws a waiting request (True if it was still waiting)."""
        with self._lock:
            if self._held:
                self._waiters.append(granted)
                granted_now = False
            else:
                self._held = granted_now = True
        if granted_now:
            granted(MutexLockValue(self))

        def withdraw() -> bool:
            with self._lock:
                if granted in self._waiters:
                    self._waiters.remove(granted)
                    return True
                return False

        return withdraw

    def release(self) -> None:
        with self._lock:
            following = self._waiters.popleft() if self._waiters else None
            if following is None:
                self._held = False
        if following is not None:
            following(MutexLockValue(self))


class MutexLockValue:
    """A MutexLock output: holding it holds the mutex; it releases once, however it ends."""

    def __init__(self, mutex: _Mutex) -> None:
        self._mutex: _Mutex | None = mutex
        self._release_lock = threading.Lock()

    def release(self) -> None:
        with self._release_lock:
            mutex, self._mutex = self._mutex, None
        if mutex is not None:
            mutex.release()

    def __del__(self) -> None:
        self.release()


MutexV2 = Op("MutexV2", outputs=["resource: resource"], attrs=["container: string = ''", "shared_name: string = ''"],
             is_stateful=True)
MutexV2.shape(lambda ctx: [tensor_shape.TensorShape([])])
NotDifferentiable("MutexV2")


@MutexV2.kernel("CPU", state=ResourceSlot)
def _mutex_v2(ctx: OpKernelContext, container: bytes, shared_name: bytes) -> _Mutex:
    slot: ResourceSlot = ctx.state
    if slot.resource is None:
        name = shared_name.decode() or ctx.name
        slot.resource = ctx.resources.lookup_or_create(container.decode(), name, lambda: _Mutex(name))
    return slot.resource


MutexLock = Op("MutexLock", inputs=["mutex: resource"], outputs=["mutex_lock: variant"], is_stateful=True)
NotDifferentiable("MutexLock")


@MutexLock.shape
def _mutex_lock_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    ctx.input_shape(0).with_rank(0)
    return [tensor_shape.TensorShape([])]


@MutexLock.kernel("CPU", asynchronous=True)
def _mutex_lock(ctx: OpKernelContext, done: Done, mutex: _Mutex) -> None:
    cancellation = ctx.cancellation
    token = cancellation.get_cancellation_token()

    def granted(lock: MutexLockValue) -> None:
        # a step that fails after taking the lock gives it back when it is cancelled
        if not cancellation.register_callback(token, lock.release):
            lock.release()
            done(error=errors.CancelledError(None, None, "Lock acquisition cancelled."))
            return
        done(lock)

    withdraw = mutex.acquire(granted)

    def cancel_wait() -> None:
        if withdraw():
            cancellation.deregister_callback(token)
            done(error=errors.CancelledError(None, None, "Lock acquisition cancelled."))

    waiting_token = cancellation.get_cancellation_token()
    if not cancellation.register_callback(waiting_token, cancel_wait):
        cancel_wait()


ConsumeMutexLock = Op("ConsumeMutexLock", inputs=["mutex_lock: variant"], is_stateful=True)
ConsumeMutexLock.shape(lambda ctx: [])
NotDifferentiable("ConsumeMutexLock")


@ConsumeMutexLock.kernel("CPU")
def _consume_mutex_lock(ctx: OpKernelContext, mutex_lock: Any) -> None:
    if not isinstance(mutex_lock, MutexLockValue):
        raise errors.InvalidArgumentError(None, None, "Expected input mutex_lock to contain a MutexLock object")
    mutex_lock.release()


_ExecutionSignature = collections.namedtuple("_ExecutionSignature",
                                             ["op", "handle", "resources", "exclusive_resource_access"])
_running = threading.local()  # the signatures of the sections whose `execute` is building on this thread


@contextlib.contextmanager
def _entered(signature: tuple) -> Iterator[None]:
    stack = _running.__dict__.setdefault("stack", [])
    if signature in stack:
        raise ValueError(f"Attempting to lock a CriticalSection (signature={signature}) in which we are already "
                         "running. This is illegal and may cause deadlocks.")
    stack.append(signature)
    try:
        yield
    finally:
        stack.pop()


def _colocation(op: Operation) -> Any:
    try:
        return op.get_attr("_class")
    except ValueError:
        return None


@tf_export("CriticalSection")
class CriticalSection:
    """Critical section: functions executed in it run one at a time, across steps and threads."""

    def __init__(self, name: str | None = None, shared_name: str | None = None, critical_section_def: Any = None,
                 import_scope: str | None = None) -> None:
        if critical_section_def and name is not None:
            raise ValueError(f"Arguments critical_section_def={critical_section_def} and shared_name={shared_name} "
                             "are mutually exclusive. Please only specify one of them.")
        if critical_section_def:
            raise ValueError("Argument `critical_section_def` is not supported.")
        with name_scope(name, "CriticalSection", []) as scope:
            with init_scope():
                container = get_default_graph()._container or ""
                if shared_name is None:
                    shared_name = scope
                self._handle = MutexV2(shared_name=shared_name, container=container, name=scope)
                self._signature = (container, shared_name or id(self._handle),
                                   self._handle.op.device or _colocation(self._handle.op))
        add_to_collections(CRITICAL_SECTIONS, self)

    @property
    def name(self) -> str:
        return self._handle.op.name

    def execute(self, fn: Callable[[], Any], exclusive_resource_access: bool = True, name: str | None = None) -> Any:
        """`fn()`'s tensors, computed while this section's lock is held."""
        graph = get_default_graph()
        with name_scope(name, "critical_section_execute", []):
            with _entered(self._signature):
                lock = MutexLock(self._handle)
                existing = set(graph.get_operations())
                with control_dependencies([lock]):
                    result = fn()
                created = [op for op in graph.get_operations() if op not in existing]
            self._lock_after_arguments(created, lock.op)
            resources = list({id(t): t for op in created for t in op.inputs if t.dtype == dtypes.resource}.values())
            if any(self._is_self_handle(t) for t in resources):
                raise ValueError("Attempting to lock a CriticalSection in which we are already running "
                                 f"(signature={self._signature}). This is illegal and may cause deadlocks.")
            self._check_multiple_access(resources, exclusive_resource_access)
            flat = [manipulation_ops.identity(x) for x in nest.flatten(result)]
            with control_dependencies(flat):
                with colocate_with(self._handle):
                    consumed = ConsumeMutexLock(lock)
                result = nest.pack_sequence_as(result, control_flow_ops.tuple(
                    [convert_to_tensor(x) for x in nest.flatten(result)]))
            with control_dependencies([consumed]):
                outputs = nest.map_structure(manipulation_ops.identity, result)
            add_to_collections(CRITICAL_SECTION_EXECUTIONS, _ExecutionSignature(
                op=lock.op, handle=self._handle, resources=resources,
                exclusive_resource_access=exclusive_resource_access))
            return outputs

    def _lock_after_arguments(self, created: list[Operation], lock_op: Operation) -> None:
        """What fn's ops read from outside runs before the lock is taken, so no step waits holding it."""
        created_set = set(created)
        outside = {t.op: None for op in created for t in op.inputs}
        outside.update((c, None) for op in created for c in op.control_inputs)
        excluded = created_set | set(lock_op.control_inputs) | {t.op for t in lock_op.inputs} | {lock_op}
        arguments = [op for op in outside if op not in excluded]
        if arguments:
            lock_op._add_control_input(control_flow_ops.group(*arguments))

    def _is_self_handle(self, x: Tensor) -> bool:
        return (x.op.type == "MutexV2" and bool(x.op.get_attr("shared_name"))
                and x.op.get_attr("shared_name") == self._handle.op.get_attr("shared_name")
                and (x.op.device == self._handle.op.device
                     or _colocation(x.op) == _colocation(self._handle.op)))

    def _check_multiple_access(self, resources: list[Tensor], exclusive_resource_access: bool) -> None:
        for signature in get_collection(CRITICAL_SECTION_EXECUTIONS):
            if self._is_self_handle(signature.handle):
                continue
            if not (exclusive_resource_access or signature.exclusive_resource_access):
                continue
            shared = [t for t in resources if any(t is s for s in signature.resources)]
            if shared:
                raise ValueError(
                    f"This execution would access resources: {shared}. Either this lock (CriticalSection: "
                    f"{self._handle}) or lock '{signature}' (CriticalSection: {signature.handle}) requested "
                    "exclusive resource access of this resource. Did you mean to call execute with keyword "
                    "argument exclusive_resource_access=False?")
