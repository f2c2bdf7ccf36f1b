"""The WorkerService of one task: its devices, the partition graphs masters register, and their steps.

A master registers, per session, the part of a step's graph that runs on this task (partitions of its
devices, with `_Send`/`_Recv` at every edge that leaves a device, and the library functions they call);
RegisterGraph adds those to the session's function library, makes one Executor per device and returns a
handle. RunGraph runs them for one step id: the master's feeds arrive as rendezvous keys with tensors, its
fetches leave as keys read from the step's rendezvous when the step is done. Tensors another task needs
stay in the step's rendezvous until that task asks with RecvTensor (which may come before this task's
RunGraph). A step ends here with the master's CleanupGraph, or before it once its RunGraph succeeded and
every value it sent was received (nothing of it is left to ask for), so a tensorweave master sends no
CleanupGraph after a step that succeeded (`rpc.SELF_CLEANING`): one RPC less per task and step. A partial
run's RunGraphs (`is_partial`) start the step's executors with the first and leave them running; each feeds
and fetches its keys, the last also waits for the executors. A RecvTensor for a step that ended fails with
AbortedError. Devices and their resource managers (variables, queues) belong to the task and outlive
sessions, as in TF, so clients of several sessions share a parameter server's variables.
"""

from __future__ import annotations

import collections
import os
import random
import threading
from typing import Any

from tensorweave import errors
from tensorweave.devices.cpu import CPU_MEMORY_LIMIT, cpu_device
from tensorweave.devices.device import Device
from tensorweave.distributed import rpc
from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.distributed.remote_rendezvous import RemoteRendezvous
from tensorweave.distributed.worker_cache import IN_PROCESS_CALL, WorkerCache
from tensorweave.formats import protos
from tensorweave.framework import function_def, op_registry
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.framework.graph_io import add_default_attrs, graph_def_from_proto
from tensorweave.framework.op_kernel import OpKernel, StepContext
from tensorweave.framework.resource_mgr import ResourceMgr
from tensorweave.ops import sendrecv_ops  # noqa: F401 - registers _Send/_Recv, which partition graphs hold
from tensorweave.runtime.executor import (
    CallFrame,
    Executor,
    InterOpPool,
    StepRunner,
    run_partitions,
)
from tensorweave.runtime.function import FunctionLibraryRuntime
from tensorweave.runtime.step_stats import NodeExecStats, cost_graph, to_proto

_FINISHED_STEPS_KEPT = 10000


def new_incarnation() -> int:
    """A random nonzero 63-bit number that tells this run of a device from a restarted one."""
    return random.getrandbits(63) | 1


class _WorkerSession:
    """A master session's graphs on this task, and its stateful kernels (shared by its graphs)."""

    def __init__(self) -> None:
        self.graphs: dict[str, list[Executor]] = {}
        self.stateful_kernels: dict[tuple[str, str], OpKernel] = {}
        self.functions = FunctionLibraryRuntime()  # of every graph registered, as the calls in them need
        self.lock = threading.Lock()

    def kernel_for(self, node_def: NodeDef, device: Any) -> OpKernel:
        if not op_registry.get(node_def.op).op_def.is_stateful:
            return self.functions.new_kernel(node_def, device)
        key = (device.name, node_def.name)
        kernel = self.stateful_kernels.get(key)
        if kernel is None:
            kernel = self.stateful_kernels[key] = self.functions.new_kernel(node_def, device)
        return kernel


class Worker:
    """TF's WorkerService methods (request -> response, OpErrors for failures) for the task `task`."""

    def __init__(self, task: str, cluster: ClusterSpec, config: Any = None) -> None:
        num_cpus = config.device_count.get("CPU", 1) if config is not None else 1
        intra_op_threads = getattr(config, "intra_op_parallelism_threads", 0)
        self.task = task
        self.devices: list[Device] = [cpu_device(task, i, ResourceMgr(), intra_op_threads) for i in range(num_cpus)]
        self._by_name = {device.name: device for device in self.devices}
        self.incarnations = {device.name: new_incarnation() for device in self.devices}
        threads = getattr(config, "inter_op_parallelism_threads", 0) or os.cpu_count() or 1
        self._pool = InterOpPool(max(threads, 1))
        self.cache = WorkerCache(cluster, task, self)
        self._sessions: dict[str, _WorkerSession] = {"": _WorkerSession()}  # "": TF's legacy session
        self._steps: dict[int, RemoteRendezvous] = {}
        self._finished: collections.OrderedDict[int, None] = collections.OrderedDict()
        self._partial_steps: dict[int, threading.Event] = {}  # partial runs' steps: set when the executors end
        self._lock = threading.Lock()

    def device_attributes(self) -> list[Any]:
        return [protos.DeviceAttributes(name=d.name, device_type=d.device_type, memory_limit=CPU_MEMORY_LIMIT,
                                        incarnation=self.incarnations[d.name], locality=protos.DeviceLocality())
                for d in self.devices]

    # -- sessions and graphs ---------------------------------------------------------------------------

    def GetStatus(self, request: Any) -> Any:  # noqa: N802 - TF's method names
        return protos.GetStatusResponse(device_attributes=self.device_attributes())

    def CreateWorkerSession(self, request: Any) -> Any:  # noqa: N802
        with self._lock:
            self._sessions.setdefault(request.session_handle, _WorkerSession())
        return protos.CreateWorkerSessionResponse()

    def DeleteWorkerSession(self, request: Any) -> Any:  # noqa: N802
        with self._lock:
            if request.session_handle:
                self._sessions.pop(request.session_handle, None)
        return protos.DeleteWorkerSessionResponse()

    def _session(self, handle: str, created: bool) -> _WorkerSession:
        with self._lock:
            session = self._sessions.get(handle if created else "")
        if session is None:
            raise errors.AbortedError(None, None, f"Session handle is not found: {handle}. Possibly this worker "
                                      f'("{self.task}") just restarted.')
        return session

    def RegisterGraph(self, request: Any) -> Any:  # noqa: N802
        session = self._session(request.session_handle, request.create_worker_session_called)
        graph_def = add_default_attrs(graph_def_from_proto(request.graph_def))
        by_device: dict[str, list[NodeDef]] = {}
        for node in graph_def.node:
            if node.device not in self._by_name:
                raise errors.InvalidArgumentError(
                    node, None, f"{node.name} is assigned to {node.device or 'no device'}, which is not a device "
                    f"of task {self.task}")
            by_device.setdefault(node.device, []).append(node)
        with session.lock:
            session.functions.add_functions(function_def.function_bodies(graph_def.library, graph_def.library),
                                            graph_def.library)
            executors = [Executor(GraphDef(node=nodes, producer=graph_def.producer), self._by_name[name],
                                  session.kernel_for, self._pool) for name, nodes in by_device.items()]
            handle = f"{random.getrandbits(64):016x}"
            session.graphs[handle] = executors
        return protos.RegisterGraphResponse(graph_handle=handle)

    def DeregisterGraph(self, request: Any) -> Any:  # noqa: N802
        session = self._session(request.session_handle, request.create_worker_session_called)
        with session.lock:
            session.graphs.pop(request.graph_handle, None)
        return protos.DeregisterGraphResponse()

    def CleanupAll(self, request: Any) -> Any:  # noqa: N802
        """Clear the named resource containers (all when none are named) of every device."""
        for device in self.devices:
            for container in list(request.container) or device.resource_mgr.container_names():
                device.resource_mgr.cleanup(container)
        with self._lock:
            sessions = list(self._sessions.values())
        for session in sessions:
            with session.lock:
                for kernel in session.stateful_kernels.values():
                    kernel.reset_state()
        return protos.CleanupAllResponse()

    # -- steps -----------------------------------------------------------------------------------------

    def _step(self, step_id: int) -> RemoteRendezvous:
        """The step's rendezvous, made by whichever of RunGraph and RecvTensor comes first."""
        with self._lock:
            rendezvous = self._steps.get(step_id)
            if rendezvous is None:
                if step_id in self._finished:
                    raise errors.AbortedError(None, None, f"Step {step_id} has been cleaned up")
                rendezvous = self._steps[step_id] = RemoteRendezvous(step_id, self.cache)
            return rendezvous

    def RunGraph(self, request: Any) -> Any:  # noqa: N802
        session = self._session(request.session_handle, request.create_worker_session_called)
        with session.lock:
            executors = session.graphs.get(request.graph_handle)
        if executors is None:
            raise errors.AbortedError(None, None, f"Graph handle is not found: {request.graph_handle}")
        rendezvous = self._step(request.step_id)
        rendezvous.remote_master = not IN_PROCESS_CALL.get()
        try:
            for named in request.send:
                rendezvous.feed(named.name, rpc.tensor_from_proto(named.tensor))
            exec_opts = request.exec_opts
            traced = [[] for _ in executors] if exec_opts.record_timeline or exec_opts.record_costs else None
            if request.is_partial:
                return self._run_partial(request, executors, rendezvous, traced)
            self._run(executors, rendezvous, traced)
            response = protos.RunGraphResponse()
            if traced is not None:  # TF's RunGraphResponse.step_stats: the master merges every task's
                response.step_stats.CopyFrom(to_proto([(e.device.name, records) for e, records in zip(executors, traced)],
                                                      [e.graph_def for e in executors]))
            for executor in executors:  # each partition's own node ids, as TF's worker reports its graphs
                if exec_opts.record_costs:
                    response.cost_graph.node.extend(cost_graph([executor.graph_def], response.step_stats).node)
                if exec_opts.record_partition_graphs:
                    response.partition_graph.append(executor.graph_def.to_proto())
            for key in request.recv_key:
                value, is_dead = rendezvous.local.recv(key, timeout=0)
                if is_dead:
                    raise errors.InvalidArgumentError(None, None, f"The tensor returned for {key} was not valid.")
                response.recv.add(name=key, tensor=rpc.tensor_to_proto(value))
            rendezvous.ran = True
            self._end_if_drained(rendezvous)
            return response
        except Exception as e:
            rendezvous.abort(e)
            if not request.store_errors_in_response_body:
                raise
            code, message = rpc.error_status(e)
            return protos.RunGraphResponse(status_code=code, status_error_message=message)

    def _run_partial(self, request: Any, executors: list[Executor], rendezvous: RemoteRendezvous,
                     traced: list[list[NodeExecStats]] | None) -> Any:
        """One call of a partial run (TF's DoPartialRunGraph): the first starts the step's executors, which
        then run on while the master's later calls feed more and ask for more; each call returns once its
        recv keys have values, the last once the executors are done too."""
        with self._lock:
            done = self._partial_steps.get(request.step_id)
            if done is None:
                done = self._partial_steps[request.step_id] = threading.Event()
                first = True
            else:
                first = False
        if first:
            def run() -> None:
                try:
                    self._run(executors, rendezvous, traced)
                except Exception as e:  # noqa: BLE001 - every waiting recv and the last call report it
                    rendezvous.abort(e)
                finally:
                    done.set()

            threading.Thread(target=run, name="tensorweave-partial-run", daemon=True).start()
        response = protos.RunGraphResponse()
        for key in request.recv_key:
            value, is_dead = rendezvous.local.recv(key)
            if is_dead:
                raise errors.InvalidArgumentError(None, None, f"The tensor returned for {key} was not valid.")
            response.recv.add(name=key, tensor=rpc.tensor_to_proto(value))
        if request.is_last_partial_run:
            done.wait()
            if rendezvous.error is not None:
                raise rendezvous.error
            with self._lock:
                self._partial_steps.pop(request.step_id, None)
            rendezvous.ran = True
            self._end_if_drained(rendezvous)
        return response

    def _run(self, executors: list[Executor], rendezvous: RemoteRendezvous,
             traced: list[list[NodeExecStats]] | None) -> None:
        """Run the step's executors on this task (recording each kernel's stats in `traced`, one list per
        executor, when given); the first error (not a cancellation it caused) wins."""
        step = StepContext(rendezvous=rendezvous, cancellation=rendezvous.cancellation, step_id=rendezvous.step_id)
        rendezvous.runner = StepRunner(executors[0]._pool)
        try:
            run_partitions(executors, [CallFrame(()) for _ in executors], step, traced, runner=rendezvous.runner)
        finally:
            rendezvous.runner = None

    def RecvTensor(self, request: Any) -> Any:  # noqa: N802
        """Wait for the step's value of the key (sent by this task's `_Send`) and return it."""
        rendezvous = self._step(request.step_id)
        value, is_dead = rendezvous.local.recv(request.rendezvous_key)
        if rendezvous.ran:
            self._end_if_drained(rendezvous)
        response = protos.RecvTensorResponse(is_dead=is_dead)
        if not is_dead:
            response.tensor.CopyFrom(rpc.tensor_to_proto(value))
        return response

    def _end(self, step_id: int) -> RemoteRendezvous | None:
        """Drop the step's rendezvous (returned, if it had one); a later RecvTensor of it fails."""
        with self._lock:
            rendezvous = self._steps.pop(step_id, None)
            self._finished[step_id] = None
            if len(self._finished) > _FINISHED_STEPS_KEPT:
                self._finished.popitem(last=False)
        return rendezvous

    def _end_if_drained(self, rendezvous: RemoteRendezvous) -> None:
        """End a step whose RunGraph succeeded once nothing it sent waits to be received."""
        if rendezvous.local.drained():
            self._end(rendezvous.step_id)

    def CleanupGraph(self, request: Any) -> Any:  # noqa: N802
        """End the step: its rendezvous goes, and anything still waiting in it fails."""
        rendezvous = self._end(request.step_id)
        with self._lock:
            self._partial_steps.pop(request.step_id, None)
        if rendezvous is not None:
            rendezvous.abort(errors.AbortedError(None, None, f"Cleanup {request.step_id}"))
        return protos.CleanupGraphResponse()

    def close(self) -> None:
        """Fail every step still running (the server is going away)."""
        with self._lock:
            steps = list(self._steps.values())
            self._steps.clear()
        for rendezvous in steps:
            rendezvous.abort(errors.UnavailableError(None, None, f"Worker {self.task} is shutting down"))
        self._pool.shutdown(wait=False)
        for device in self.devices:
            device.close()
        self.cache.close()
