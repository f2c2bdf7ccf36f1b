"""The MasterService of one task: sessions whose steps run over the whole cluster (TF's MasterSession).

CreateSession asks every task for its devices (GetStatus), opens a worker session on each, and places the
client's graph once over all the cluster's devices (`/job:J/replica:R/task:T/device:D`), the master's own
task first, so unconstrained nodes run there. The first RunStep of a (feeds, fetches, targets) signature
builds its plan with the local pipeline: prune, fold constants, partition per device (`_Send`/`_Recv` at
every edge between devices), then feeds and fetches become client-terminated `_Recv`/`_Send` nodes on the
device of the tensor fed or fetched, and the partitions are grouped per task and registered once. Every
later step is one RunGraph per task, all at once, under one random step id; feeds and fetches travel as
rendezvous keys with tensors (never decoded here), and CleanupGraph ends the step on every task: when one
task fails, the others are cleaned up at once so none waits for a tensor that will never come; a step that
succeeded ends by itself on a tensorweave worker (`rpc.SELF_CLEANING`), and on any other is cleaned up once
the next step is under way (nothing waits in it, and its cleanup then never delays the next step's RunGraph).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import threading
from collections.abc import Callable, Sequence
from typing import Any

from tensorweave import errors
from tensorweave.distributed import rpc
from tensorweave.distributed.worker_cache import WorkerCache, task_of
from tensorweave.formats import protos
from tensorweave.framework.device_base import DeviceBase, host_device
from tensorweave.framework.device_spec import DeviceSpec
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.graph_io import graph_def_from_proto
from tensorweave.framework.rendezvous import create_key
from tensorweave.runtime.execution_state import ExecutionState
from tensorweave.runtime.optimize import StepOptimizations
from tensorweave.runtime.partition import partition
from tensorweave.runtime.prune import prune

_DISCOVERY_TIMEOUT_S = 30.0


class ClusterDevice(DeviceBase):
    """A device of some task of the cluster, as the master sees it: a name to place nodes on."""

    def __init__(self, attributes: Any) -> None:
        super().__init__(attributes.name, attributes.device_type, None)
        self.memory_limit_bytes = attributes.memory_limit
        self.incarnation = attributes.incarnation - (1 << 64) if attributes.incarnation >= 1 << 63 \
            else attributes.incarnation  # as the int64 attr of `_Send`/`_Recv` carries it
        self.attributes = attributes


def _task_matches(task: str, device_filters: Sequence[str]) -> bool:
    """Whether a task is one a session's `device_filters` let it use (every field a filter names must
    match; no filters allow every task)."""
    if not device_filters:
        return True
    spec = DeviceSpec.from_string(task)
    for device_filter in device_filters:
        wanted = DeviceSpec.from_string(device_filter)
        if all(w is None or w == have for w, have in ((wanted.job, spec.job), (wanted.replica, spec.replica),
                                                      (wanted.task, spec.task))):
            return True
    return False


def cluster_devices(cache: WorkerCache, device_filters: Sequence[str] = ()) -> list[ClusterDevice]:
    """Every device of the cluster's tasks that `device_filters` allow (all without filters), the master's own
    task's first; TF waits for tasks still starting, and only for those, so a worker whose session is
    filtered to the PS tasks and itself never waits for the other workers."""
    devices = []
    for task in cache.task_names():
        if task != cache.local_task and not _task_matches(task, device_filters):
            continue
        response = cache.get_status(task, _DISCOVERY_TIMEOUT_S)
        devices.extend(ClusterDevice(attributes) for attributes in response.device_attributes)
    return devices


@dataclasses.dataclass
class _TaskPart:
    """What one task runs of a plan: its registered graph, the feeds it receives and the fetches it sends."""

    task: str
    handle: str
    sends: list[tuple[int, str]]  # (feed position, rendezvous key)
    recvs: list[tuple[int, str]]  # (fetch position, rendezvous key)


class MasterSession:
    """One client session's graph, placed over the cluster, and its registered plans."""

    def __init__(self, handle: str, cache: WorkerCache, devices: list[ClusterDevice], config: Any) -> None:
        self.handle = handle
        self.graph_version = 0
        self._cache = cache
        self.devices = devices
        self._incarnations = {device.name: device.incarnation for device in devices}
        self._client_device = devices[0].name
        self._state = ExecutionState(devices, bool(getattr(config, "allow_soft_placement", False)))
        self._optimizations = StepOptimizations.from_config(config)
        self._timeout_in_ms = int(getattr(config, "operation_timeout_in_ms", 0))
        graph_options = config.graph_options
        self._cost_model_every, self._cost_model_after = graph_options.build_cost_model, graph_options.build_cost_model_after
        self._plans: dict[tuple, list[_TaskPart]] = {}
        self._executions: dict[tuple, itertools.count] = {}  # steps of each plan, for the cost-model schedule
        self._node_names = itertools.count()  # of the nodes partitioning adds, unique over all plans
        self._running: set[Callable[[], None]] = set()  # the cleanup of each step in flight
        self._finished_step: Callable[[], None] | None = None  # the cleanup of the last step that succeeded
        self._lock = threading.Lock()
        self._tasks = list(dict.fromkeys(task_of(device.name) for device in devices))
        for task in self._tasks:
            cache.stub(task).call("CreateWorkerSession", protos.CreateWorkerSessionRequest(
                session_handle=handle, master_task=cache.local_task))

    def extend(self, nodes: Sequence[NodeDef], initial: bool = False) -> None:
        """Add nodes; each ExtendSession makes a new graph version, the graph CreateSession brings is
        version 0 (TF's MasterSession numbers them so, and a TF client extends from the number it got)."""
        self._state.extend(nodes)
        if not initial:
            with self._lock:
                self.graph_version += 1

    def run(self, request: Any) -> Any:
        feeds = tuple(named.name for named in request.feed)
        key = (feeds, tuple(request.fetch), tuple(request.target))
        parts = self._plans.get(key)
        if parts is None:
            parts = self._build_plan(*key)
        options = request.options
        timeout_in_ms = options.timeout_in_ms or self._timeout_in_ms
        count = next(self._executions[key])
        exec_opts = protos.ExecutorOpts(  # what TF's MasterSession asks the workers to record in this step
            record_timeline=options.trace_level > 0, record_partition_graphs=options.output_partition_graphs,
            record_costs=self._cost_model_every > 0 and (count + 1 - self._cost_model_after) % self._cost_model_every == 0)
        responses = self._run_step(parts, request.feed, timeout_in_ms / 1000 if timeout_in_ms > 0 else None, exec_opts)
        result = protos.RunStepResponse()
        for response in responses:  # every task's devices and partitions, as TF's MasterSession merges them
            if exec_opts.record_timeline:
                result.metadata.step_stats.dev_stats.extend(response.step_stats.dev_stats)
            if exec_opts.record_costs:
                result.metadata.cost_graph.node.extend(response.cost_graph.node)
            result.metadata.partition_graphs.extend(response.partition_graph)
        tensors: list[Any] = [None] * len(request.fetch)
        for part, response in zip(parts, responses):
            received = {named.name: named.tensor for named in response.recv}
            for position, rendezvous_key in part.recvs:
                tensors[position] = received[rendezvous_key]
        for name, tensor in zip(request.fetch, tensors):
            result.tensor.add(name=name, tensor=tensor)
        return result

    def _build_plan(self, feeds: tuple[str, ...], fetches: tuple[str, ...], targets: tuple[str, ...]) -> list[_TaskPart]:
        with self._lock:
            parts = self._plans.get((feeds, fetches, targets))
            if parts is not None:
                return parts
            graph_def = self._state.placed_graph()
            graph_def = prune(graph_def, feeds, fetches, targets, self._state.tensor_types(feeds + fetches))
            graph_def = self._optimizations.apply(graph_def, targets, host_device())
            graph_def = self._place_call_frame(graph_def, feeds)
            by_task: dict[str, list[NodeDef]] = {}
            sends: dict[str, list[tuple[int, str]]] = {}
            recvs: dict[str, list[tuple[int, str]]] = {}
            for device, part in partition(graph_def, self._client_device, names=self._node_names).items():
                task = task_of(device)
                for node in part.node:
                    node = self._client_terminated(node, feeds, fetches, sends.setdefault(task, []),
                                                   recvs.setdefault(task, []))
                    by_task.setdefault(task, []).append(node)
            parts = []
            for task, nodes in by_task.items():
                request = protos.RegisterGraphRequest(session_handle=self.handle, create_worker_session_called=True,
                                                      graph_def=GraphDef(node=nodes, producer=graph_def.producer).to_proto())
                response = self._cache.stub(task).call("RegisterGraph", request)
                parts.append(_TaskPart(task, response.graph_handle, sends[task], recvs[task]))
            self._plans[(feeds, fetches, targets)] = parts
            self._executions[(feeds, fetches, targets)] = itertools.count()
            return parts

    def _place_call_frame(self, graph_def: GraphDef, feeds: tuple[str, ...]) -> GraphDef:
        """Each `_Arg` on the device of the tensor it feeds, each `_Retval` on the device of what it fetches,
        so feeds and fetches go straight to and from the task that holds them."""
        devices = {node.name: node.device for node in graph_def.node if node.device}
        nodes = []
        for node in graph_def.node:
            if node.op == "_Arg":
                node = dataclasses.replace(node, device=self._state.device_of(parse_input(feeds[node.attr["index"]])[0]))
                devices[node.name] = node.device
            elif node.op == "_Retval":
                node = dataclasses.replace(node, device=devices[parse_input(node.input[0])[0]])
            nodes.append(node)
        return GraphDef(node=nodes, producer=graph_def.producer)

    def _client_terminated(self, node: NodeDef, feeds: tuple[str, ...], fetches: tuple[str, ...],
                           sends: list[tuple[int, str]], recvs: list[tuple[int, str]]) -> NodeDef:
        """A call-frame node as the `_Recv` of a feed or the `_Send` of a fetch whose other end is the client
        (TF's client-terminated transfers); a transfer between devices with its sender's real incarnation.
        Both ends of a client-terminated key name the node's own device, as in a partition TF's master runs
        on its own task: a TF worker takes feeds and gives fetches only under keys local to it."""
        device = node.device
        incarnation = self._incarnations[device]
        if node.op == "_Arg":
            index, name = node.attr["index"], feeds[node.attr["index"]]
            sends.append((index, create_key(device, incarnation, device, name)))
            return NodeDef(node.name, "_Recv", [], device, _transfer_attrs(
                name, device, incarnation, device, True, tensor_type=node.attr["T"]))
        if node.op == "_Retval":
            index, name = node.attr["index"], fetches[node.attr["index"]]
            recvs.append((index, create_key(device, incarnation, device, name)))
            return NodeDef(node.name, "_Send", list(node.input), device, _transfer_attrs(
                name, device, incarnation, device, True, T=node.attr["T"]))
        if node.op in ("_Send", "_Recv"):
            sender = node.attr["send_device"].decode()
            return dataclasses.replace(node, attr={**node.attr, "send_device_incarnation": self._incarnations[sender]})
        return node

    def _run_step(self, parts: list[_TaskPart], feed: Sequence[Any], timeout: float | None,
                  exec_opts: Any) -> list[Any]:
        """One RunGraph per task under one step id (each recording what `exec_opts` asks), the own task's on
        this thread. Every task's step is
        cleaned up: at once when it failed; once the next step is under way when it succeeded, so that
        CleanupGraph never delays a step's RunGraph on a task (a session's last step is cleaned at close)."""
        step_id = random.getrandbits(63)
        lock, finished = threading.Lock(), threading.Event()
        responses: list[Any] = [None] * len(parts)
        failures: list[BaseException] = []
        remaining = len(parts)
        cleaned = threading.Event()

        def cleanup() -> None:
            if cleaned.is_set():
                return
            cleaned.set()
            succeeded = remaining == 0 and not failures
            request = protos.CleanupGraphRequest(step_id=step_id)
            for part in parts:  # the tasks of the step: no other holds anything of it (TF's rcg partitions)
                if not (succeeded and self._cache.self_cleaning(part.task)):  # else the task ended it itself
                    self._cache.stub(part.task).call_async("CleanupGraph", request, lambda error, response: None)

        def replied(position: int, error: BaseException | None, response: Any) -> None:
            nonlocal remaining
            if isinstance(error, errors.OpError):  # TF's master names the task that failed
                error = errors._make_specific_exception(error.node_def, error.op, f"From {parts[position].task}:\n"
                                                        f"{error.message}", error.error_code)
            with lock:
                if error is not None:
                    failures.append(error)
                responses[position] = response
                remaining -= 1
                last = remaining == 0
            if error is not None:
                cleanup()  # the other tasks stop waiting on this one
            if last:
                finished.set()

        with self._lock:
            self._running.add(cleanup)
            previous, self._finished_step = self._finished_step, None
        local = None
        for position, part in enumerate(parts):
            request = protos.RunGraphRequest(session_handle=self.handle, create_worker_session_called=True,
                                             graph_handle=part.handle, step_id=step_id)
            for index, rendezvous_key in part.sends:
                request.send.add(name=rendezvous_key, tensor=feed[index].tensor)
            request.recv_key.extend(rendezvous_key for _, rendezvous_key in part.recvs)
            request.exec_opts.CopyFrom(exec_opts)
            if part.task == self._cache.local_task and timeout is None:
                local = position, request
            else:
                self._cache.stub(part.task).call_async(
                    "RunGraph", request, lambda error, response, position=position: replied(position, error, response))
        if previous is not None:  # the last step's cleanup, sent once this step's work is on its way
            previous()
        if local is not None:  # the own task's part runs on this thread, which would only wait otherwise
            position, request = local
            try:
                response = self._cache.stub(self._cache.local_task).call("RunGraph", request)
            except Exception as e:  # noqa: BLE001 - the step's failure, as a remote task's would be
                replied(position, e, None)
            else:
                replied(position, None, response)
        timed_out = not finished.wait(timeout)
        if timed_out or failures:
            cleanup()
            finished.wait()
        with self._lock:
            self._running.discard(cleanup)
            displaced = cleanup
            if not failures:  # nothing waits in a step that succeeded: its cleanup goes with the next step's
                displaced, self._finished_step = self._finished_step, cleanup
        if displaced is not None:
            displaced()
        if timed_out and failures:
            raise errors.DeadlineExceededError(None, None, "Timed out waiting for notification")
        if failures:
            raise next((f for f in failures if not isinstance(f, (errors.CancelledError, errors.AbortedError))),
                       failures[0])
        return responses

    def close(self) -> None:
        """Abort the steps still running (a step blocked in a queue or accumulator ends, as TF's
        MasterSession::Close cancels them), then deregister the graphs and the worker sessions."""
        with self._lock:
            parts = [part for plan in self._plans.values() for part in plan]
            self._plans.clear()
            running = list(self._running)
            if self._finished_step is not None:
                running.append(self._finished_step)
                self._finished_step = None
        for cleanup in running:
            cleanup()
        for part in parts:
            _quietly(self._cache.stub(part.task).call, "DeregisterGraph", protos.DeregisterGraphRequest(
                session_handle=self.handle, create_worker_session_called=True, graph_handle=part.handle))
        for task in self._tasks:
            _quietly(self._cache.stub(task).call, "DeleteWorkerSession",
                     protos.DeleteWorkerSessionRequest(session_handle=self.handle))


def _transfer_attrs(tensor_name: str, send_device: str, incarnation: int, recv_device: str, client_terminated: bool,
                    **dtype: Any) -> dict[str, Any]:
    return {**dtype, "tensor_name": tensor_name.encode(), "send_device": send_device.encode(),
            "send_device_incarnation": incarnation, "recv_device": recv_device.encode(),
            "client_terminated": client_terminated}


def _quietly(call: Any, *args: Any) -> None:
    """A best-effort call while closing: a task that is gone has nothing left to release."""
    try:
        call(*args, timeout=5)
    except errors.OpError:
        pass


class Master:
    """TF's MasterService methods (request -> response, OpErrors for failures) for one task."""

    def __init__(self, cache: WorkerCache, default_config: Any = None) -> None:
        self._cache = cache
        self._default_config = default_config
        self._sessions: dict[str, MasterSession] = {}
        self._lock = threading.Lock()

    def _get(self, handle: str) -> MasterSession:
        with self._lock:
            session = self._sessions.get(handle)
        if session is None:
            raise errors.AbortedError(None, None, f"Session {handle} is not found.")
        return session

    def CreateSession(self, request: Any) -> Any:  # noqa: N802 - TF's method names
        config = protos.ConfigProto()
        if self._default_config is not None:
            config.CopyFrom(self._default_config)
        if request.HasField("config"):
            config.MergeFrom(request.config)
        handle = f"{random.getrandbits(64):016x}"
        session = MasterSession(handle, self._cache, cluster_devices(self._cache, config.device_filters), config)
        if request.graph_def.node:
            session.extend(graph_def_from_proto(request.graph_def).node, initial=True)
        with self._lock:
            self._sessions[handle] = session
        return protos.CreateSessionResponse(session_handle=handle, graph_version=session.graph_version)

    def ExtendSession(self, request: Any) -> Any:  # noqa: N802
        session = self._get(request.session_handle)
        if request.current_graph_version != session.graph_version:
            raise errors.AbortedError(None, None, f"Current version is {session.graph_version} but caller "
                                      f"expected {request.current_graph_version}.")
        session.extend(graph_def_from_proto(request.graph_def).node)
        return protos.ExtendSessionResponse(new_graph_version=session.graph_version)

    def RunStep(self, request: Any) -> Any:  # noqa: N802
        try:
            if request.partial_run_handle:
                raise errors.UnimplementedError(None, None, "Partial runs are not available in distributed sessions")
            return self._get(request.session_handle).run(request)
        except Exception as e:
            if not request.store_errors_in_response_body:
                raise
            code, message = rpc.error_status(e)
            return protos.RunStepResponse(status_code=code, status_error_message=message)

    def CloseSession(self, request: Any) -> Any:  # noqa: N802
        with self._lock:
            session = self._sessions.pop(request.session_handle, None)
        if session is None:
            raise errors.AbortedError(None, None, f"Session {request.session_handle} is not found.")
        session.close()
        return protos.CloseSessionResponse()

    def ListDevices(self, request: Any) -> Any:  # noqa: N802
        # a session's devices are those of the tasks it uses (its device filters); else the whole cluster's
        devices = self._get(request.session_handle).devices if request.session_handle else cluster_devices(self._cache)
        response = protos.ListDevicesResponse()
        for device in devices:
            local = task_of(device.name) == self._cache.local_task
            (response.local_device if local else response.remote_device).add().CopyFrom(device.attributes)
        return response

    def Reset(self, request: Any) -> Any:  # noqa: N802
        """Close every session of this master and clear the named containers (all when none) on every task."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            session.close()
        for task in self._cache.task_names():
            self._cache.stub(task).call("CleanupAll", protos.CleanupAllRequest(container=list(request.container)))
        return protos.ResetResponse()

    def close(self) -> None:
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for session in sessions:
            session.close()


_LOCAL_MASTERS: dict[str, Master] = {}
_LOCAL_MASTERS_LOCK = threading.Lock()


def register_local_master(target: str, master: Master | None) -> None:
    """Make `master` what a session in this process reaches `target` through, without gRPC (TF's
    LocalMaster::Register); None withdraws it when its server stops."""
    with _LOCAL_MASTERS_LOCK:
        if master is None:
            _LOCAL_MASTERS.pop(target, None)
        else:
            _LOCAL_MASTERS[target] = master


def local_master(target: str) -> Master | None:
    """The master served at `target` by this process, if any (TF's LocalMaster::Lookup)."""
    with _LOCAL_MASTERS_LOCK:
        return _LOCAL_MASTERS.get(target)
