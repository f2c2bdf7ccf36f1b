"""DirectSession: the in-process master and worker of TF's local implementation.

It holds the session's placed graph (an ExecutionState, extended incrementally as the client's graph
grows), its devices with their resource managers, and one cached plan per PlanKey. The first run of a key
goes through the pipeline, every later run only executes:

    prune the placed graph -> fold constants -> CSE -> unread values to NoOps -> remove dead nodes
    -> partition by device
    -> schedule Recvs -> one Executor per partition

A step gets one call frame (the feeds) and, when it spans partitions, one rendezvous and cancellation
manager that all its executors share. Kernels of stateful nodes (variables, random ops) are made once per
session and shared by every plan, as TF's OpSegment keeps them, so their state survives across plans.
`run` is safe to call from many threads at once: plans are immutable and each step has its own state.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Sequence
from typing import Any

from tensorweave import errors
from tensorweave.devices.cpu import cpu_device
from tensorweave.devices.device import Device
from tensorweave.framework import op_registry
from tensorweave.framework.cancellation import CancellationManager, cancel_after
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.op_kernel import OpKernel, StepContext
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.framework.session_state import KeptTensor, is_handle_op, register_session_tensors
from tensorweave.ops import sendrecv_ops  # noqa: F401 - registers _Send/_Recv, which partition graphs hold
from tensorweave.platform import tf_logging
from tensorweave.runtime.execution_state import ExecutionState, without_outside_control_inputs
from tensorweave.runtime.executor import CallFrame, Executor, InterOpPool, run_partitions
from tensorweave.runtime.function import FunctionLibraryRuntime
from tensorweave.runtime.optimize import StepOptimizations, schedule_recvs
from tensorweave.runtime.partition import partition
from tensorweave.runtime.place import is_generator
from tensorweave.runtime.prune import prune
from tensorweave.runtime.session_factory import PlanKey, SessionBackend, register_session_factory
from tensorweave.runtime.step_stats import NodeExecStats, to_proto

LOCAL_TASK = "/job:localhost/replica:0/task:0"
# TENSORWEAVE_PLACEMENT=cost_model: sessions made while it is set place unconstrained nodes with the
# whitepaper's cost model (place.cost_model_place) instead of TF's first-device rule.
PLACEMENT_ENV = "TENSORWEAVE_PLACEMENT"
# ConfigProto.session_inter_op_thread_pool entries with a global_name: one pool per name in the process
_GLOBAL_POOLS: dict[str, InterOpPool] = {}
_GLOBAL_POOLS_LOCK = threading.Lock()


class _Plan:
    """The executors of one PlanKey, one per partition, and how to run a step over them."""

    def __init__(self, executors: list[Executor], num_fetches: int, handle_fetches: list[int] | None = None) -> None:
        self.executors = executors
        self._num_fetches = num_fetches
        # the fetches that are session handles; None: the plan makes no handles
        self.handle_fetches = handle_fetches
        # the common case: one partition without parallelism (the straight-line fast path)
        self._straight = executors[0] if len(executors) == 1 and executors[0].ordered else None

    @property
    def graphs(self) -> list[GraphDef]:
        return [executor.graph_def for executor in self.executors]

    def run(self, feed_values: Sequence[Any], step_stats: Any = None,
            cancellation: CancellationManager | None = None, timeout: float | None = None,
            step: StepContext | None = None) -> list[Any]:
        """One step (in `step`, if given). `cancellation` (the session's) cancels it when fired; past `timeout`
        seconds the step is cancelled and fails with DeadlineExceededError, as TF's `timeout_in_ms`."""
        single = self._straight
        if single is not None and not single.waits:
            if step_stats is None:
                return single.run(feed_values, None, step)
            records: list[NodeExecStats] = []
            try:
                return single.run(feed_values, records, step)
            finally:
                step_stats.CopyFrom(to_proto([(single.device.name, records)], [single.graph_def]))
        traced = None if step_stats is None else [[] for _ in self.executors]
        step = step or StepContext()
        token = None
        if cancellation is not None:
            token = cancellation.get_cancellation_token()
            if not cancellation.register_callback(token, step.cancellation.start_cancel):
                raise errors.CancelledError(None, None, "Session has been closed.")
        try:
            return self._run_step(feed_values, step, traced, timeout)
        finally:
            if token is not None:
                cancellation.deregister_callback(token)
            if traced is not None:
                step_stats.CopyFrom(to_proto([(e.device.name, r) for e, r in zip(self.executors, traced)],
                                             self.graphs))

    def run_repeated(self, max_runs: int, cancellation: CancellationManager, timeout: float | None) -> int:
        """Up to `max_runs` steps without feeds or fetches at once where the plan is an input chain, else one."""
        chain = self._straight.chain if self._straight is not None else None
        if chain is not None:
            runs = chain.run(max_runs)
            if runs:
                return runs
        self.run((), None, cancellation, timeout)
        return 1

    def _run_step(self, feed_values: Sequence[Any], step: StepContext, traced: list[list[NodeExecStats]] | None,
                  timeout: float | None) -> list[Any]:
        if self._straight is not None:  # one that may wait: on this thread, in a step that close and timeout cancel
            deadline = None if timeout is None else cancel_after(step.cancellation, timeout)
            try:
                return self._straight.run(feed_values, traced[0] if traced is not None else None, step)
            except errors.OpError:
                if deadline is not None and deadline.fired:
                    raise errors.DeadlineExceededError(None, None, "Timed out waiting for notification") from None
                raise
            finally:
                if deadline is not None:
                    deadline.cancel()
        frames = [CallFrame(feed_values) for _ in self.executors]
        run_partitions(self.executors, frames, step, traced, timeout)
        results: list[Any] = [None] * self._num_fetches
        for executor, frame in zip(self.executors, frames):
            for index, value in zip(executor.ret_indices, frame.rets):
                results[index] = value
        return results


class DirectSession(SessionBackend):
    """Runs steps of a graph in this process."""

    def __init__(self, config: Any = None) -> None:
        if config is not None and config.device_count.get("CPU", 1) < 1:  # ConfigProto(device_count={'CPU': n})
            raise errors.NotFoundError(None, None, "No CPU devices are available in this process")
        intra_op_threads = getattr(config, "intra_op_parallelism_threads", 0)
        num_cpus = config.device_count.get("CPU", 1) if config is not None else 1
        self._devices: list[Device] = [cpu_device(LOCAL_TASK, i, ResourceMgr(), intra_op_threads, hold_blas=True)
                                       for i in range(num_cpus)]
        self._owned_pools: list[InterOpPool] = []
        self._pools = self._inter_op_pools(config)
        self._pool = self._pools[0]
        self._cost_model = os.environ.get(PLACEMENT_ENV) == "cost_model" and num_cpus > 1
        self._state = ExecutionState(self._devices, bool(getattr(config, "allow_soft_placement", False)),
                                     self._cost_model)
        self._plans: dict[PlanKey, _Plan] = {}
        self._pool_plans: dict[tuple[PlanKey, int], _Plan] = {}  # plans run on a pool other than the first
        self._stateful_kernels: dict[tuple[str, str], OpKernel] = {}
        self._functions = FunctionLibraryRuntime()
        self._node_names = itertools.count()  # of the nodes partitioning adds, unique over all plans
        self._lock = threading.Lock()
        self._closed = False
        self._optimizations = StepOptimizations.from_config(config)
        graph_options = getattr(config, "graph_options", None)
        self._recv_scheduling = bool(getattr(graph_options, "enable_recv_scheduling", False))
        self._bfloat16_sendrecv = bool(getattr(graph_options, "enable_bfloat16_sendrecv", False))
        self._log_device_placement = bool(getattr(config, "log_device_placement", False))
        self._operation_timeout_in_ms = int(getattr(config, "operation_timeout_in_ms", 0))
        self._cancellation = CancellationManager()  # fired by close: running steps stop waiting
        self._session_tensors = register_session_tensors([device.resource_mgr for device in self._devices])

    @property
    def devices(self) -> list[DeviceBase]:
        return list(self._devices)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def wants_output_shapes(self) -> bool:
        return self._cost_model

    def extend(self, nodes: list[NodeDef]) -> None:
        """Add nodes to the session's graph, placed now for good; plans already built stay valid.

        Nodes that cannot be placed, or that no kernel supports, are rejected here, as TF places the whole
        graph: the client's graph keeps them, so every later run fails, whatever it fetches.
        """
        self._state.extend(nodes)
        if self._log_device_placement:
            _log_placement(self._state.placed_graph())

    def add_functions(self, bodies: dict[str, GraphDef], definitions: Sequence[Any] = ()) -> None:
        self._functions.add_functions(bodies, definitions)

    def step_graphs(self, key: PlanKey) -> list[GraphDef]:
        plan = self._plans.get(key)
        return [] if plan is None else plan.graphs

    def _inter_op_pools(self, config: Any) -> list[InterOpPool | None]:
        """The pools a step's kernels may run on: one per `session_inter_op_thread_pool` entry (a named one
        shared by every session of the process), else one of `inter_op_parallelism_threads` threads (a
        negative count runs every kernel on the caller's thread, as TF's)."""
        options = list(getattr(config, "session_inter_op_thread_pool", None) or [])
        if not options:
            threads = getattr(config, "inter_op_parallelism_threads", 0) or os.cpu_count() or 1
            return [self._own_pool(threads) if threads > 0 else None]
        pools: list[InterOpPool | None] = []
        for option in options:
            threads = option.num_threads or os.cpu_count() or 1
            if not option.global_name:
                pools.append(self._own_pool(threads))
                continue
            with _GLOBAL_POOLS_LOCK:
                if option.global_name not in _GLOBAL_POOLS:
                    _GLOBAL_POOLS[option.global_name] = InterOpPool(threads, f"tensorweave-{option.global_name}")
                pool = _GLOBAL_POOLS[option.global_name]
            if pool.threads != threads:
                tf_logging.warning("Requested num_threads=%d for inter_op thread pool %s, but it already has %d "
                                   "threads", threads, option.global_name, pool.threads)
            pools.append(pool)
        return pools

    def _own_pool(self, threads: int) -> InterOpPool:
        pool = InterOpPool(threads)
        self._owned_pools.append(pool)
        return pool

    def run(self, key: PlanKey, feed_values: Sequence[Any], step_stats: Any = None,
            timeout_in_ms: int = 0, options: Any = None, run_metadata: Any = None) -> list[Any]:
        pool_index = options.inter_op_thread_pool if options is not None else 0
        if pool_index:  # RunOptions.inter_op_thread_pool: another of the session's pools, or -1 the caller's thread
            if not -1 <= pool_index < len(self._pools):
                raise errors.InvalidArgumentError(None, None, f"Invalid inter_op_thread_pool: {pool_index}")
            plan = self._pool_plans.get((key, pool_index)) or self._build_plan(key, pool_index)
        else:
            plan = self._plans.get(key)
            if plan is None:
                plan = self._build_plan(key)
        timeout_in_ms = timeout_in_ms or self._operation_timeout_in_ms
        timeout = timeout_in_ms / 1000 if timeout_in_ms > 0 else None
        if plan.handle_fetches is None:
            return plan.run(feed_values, step_stats, self._cancellation, timeout)
        step = StepContext()  # the session keeps the tensors whose handles the step fetches
        fetched: set[str] = set()
        try:
            results = plan.run(feed_values, step_stats, self._cancellation, timeout, step)
            fetched = {_handle_of(results[i]) for i in plan.handle_fetches}
            return results
        finally:
            self._session_tensors.end_step(step.step_id, fetched)

    def run_repeated(self, key: PlanKey, max_runs: int) -> int:
        plan = self._plans.get(key)
        if plan is None:
            plan = self._build_plan(key)
        timeout_in_ms = self._operation_timeout_in_ms
        return plan.run_repeated(max_runs, self._cancellation, timeout_in_ms / 1000 if timeout_in_ms > 0 else None)

    def _build_plan(self, key: PlanKey, pool_index: int = 0) -> _Plan:
        """The plan of `key` whose kernels run on pool `pool_index` (-1: the caller's thread)."""
        with self._lock:
            if self._closed:
                raise errors.CancelledError(None, None, "Session has been closed.")
            plan = self._plans.get(key) if pool_index == 0 else self._pool_plans.get((key, pool_index))
            if plan is not None:
                return plan
            graph_def = self._state.placed_graph()
            if key.exact_nodes:
                graph_def = without_outside_control_inputs(graph_def, key.targets)
            graph_def = prune(graph_def, key.feeds, key.fetches, key.targets,
                              self._state.tensor_types(key.feeds + key.fetches, key.refs))
            graph_def = self._optimizations.apply(graph_def, key.targets, self._devices[0])
            parts = partition(graph_def, self._devices[0].name, self._bfloat16_sendrecv, self._node_names)
            if self._recv_scheduling:
                parts = {name: schedule_recvs(part) for name, part in parts.items()}
            devices = {device.name: device for device in self._devices}
            pool = None if pool_index == -1 else self._pools[pool_index]
            executors = [Executor(part, devices[name], self._kernel_for, pool) for name, part in parts.items()]
            plan = _Plan(executors, len(key.fetches), _handle_fetches(graph_def, key.fetches))
            if pool_index == 0:
                self._plans[key] = plan
            else:
                self._pool_plans[(key, pool_index)] = plan
            return plan

    def _kernel_for(self, node_def: NodeDef, device: DeviceBase) -> OpKernel:
        """A new kernel, except for stateful nodes: one per session, shared by every plan (called under the
        lock)."""
        if not op_registry.get(node_def.op).op_def.is_stateful:
            return self._functions.new_kernel(node_def, device)
        key = (device.name, node_def.name)
        kernel = self._stateful_kernels.get(key)
        if kernel is None:
            kernel = self._stateful_kernels[key] = self._functions.new_kernel(node_def, device)
        return kernel

    def container_names(self) -> list[str]:
        return [name for device in self._devices for name in device.resource_mgr.container_names()]

    def reset_containers(self, containers: list[str]) -> None:
        for device in self._devices:
            for container in containers:
                device.resource_mgr.cleanup(container)
        with self._lock:
            for kernel in self._stateful_kernels.values():
                kernel.reset_state()

    def close(self) -> None:
        self._cancellation.start_cancel()
        with self._lock:
            self._closed = True
            self._plans.clear()
            self._pool_plans.clear()
            self._stateful_kernels.clear()
        for pool in self._owned_pools:  # the process's named pools outlive the session
            pool.shutdown(wait=False)
        for device in self._devices:
            device.resource_mgr.clear()
            device.close()


def _handle_fetches(graph_def: GraphDef, fetches: Sequence[str]) -> list[int] | None:
    """The positions of the fetches that are session handles; None when the step makes no handle."""
    handle_nodes = {node.name for node in graph_def.node if is_handle_op(node.op)}
    if not handle_nodes:
        return None
    return [i for i, name in enumerate(fetches) if name.rpartition(":")[0] in handle_nodes]


def _handle_of(value: Any) -> str:
    """The handle string of a fetched GetSessionHandle (a string scalar) or GetSessionHandleV2 value."""
    if isinstance(value, KeptTensor):
        return value.handle
    handle = value.item() if hasattr(value, "item") else value
    return handle.decode() if isinstance(handle, bytes) else str(handle)


def _log_placement(graph_def: GraphDef) -> None:
    """`log_device_placement`: print each node's device as TF's placer does, generators (nodes without
    inputs and with one non-ref output, placed with their consumers) last."""
    for node in sorted(graph_def.node, key=is_generator):  # stable: graph order kept
        print(f"{node.name}: ({node.op}): {node.device}")


register_session_factory("DIRECT_SESSION", lambda target: target == "", lambda target, config: DirectSession(config))
