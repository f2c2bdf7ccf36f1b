"""The MasterService of one task: sessions whose steps run over the whole cluster (TF's MasterSession).

CreateSession asks every task for its devices (GetStatus), opens a worker session on each, and places the
client's graph once over all the cluster's devices (`/job:J/replica:R/task:T/device:D`), the master's own
task first, so unconstrained nodes run there. The first RunStep of a (feeds, fetches, targets) signature
builds its plan with the local pipeline: prune, fold constants, partition per device (`_Send`/`_Recv` at
every edge between devices), then feeds and fetches become client-terminated `_Recv`/`_Send` nodes on the
device of the tensor fed or fetched, and the partitions are grouped per task and registered once, each
with the library functions its nodes call, directly or not (TF's master sends these too). Every
later step is one RunGraph per task, all at once, under one random step id; feeds and fetches travel as
rendezvous keys with tensors (never decoded here), and CleanupGraph ends the step on every task: when one
task fails, the others are cleaned up at once so none waits for a tensor that will never come; a step that
succeeded ends by itself on a tensorweave worker (`rpc.SELF_CLEANING`), and on any other is cleaned up once
the next step is under way (nothing waits in it, and its cleanup then never delays the next step's RunGraph).
A partial run (PartialRunSetup, then RunSteps with its handle) is one step of a registered plan whose
RunGraphs (`is_partial`) each feed and fetch a piece of it, as TF's RunState; a callable (MakeCallable) is a
registered plan that RunCallable runs by number, its feeds by position.
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
from tensorweave.framework.function_def import reachable_definitions
from tensorweave.framework.graph_def import GraphDef, NodeDef, parse_input
from tensorweave.framework.graph_io import graph_def_from_proto
from tensorweave.framework.rendezvous import create_key
from tensorweave.runtime.execution_state import ExecutionState
from tensorweave.runtime.optimize import StepOptimizations
from tensorweave.runtime.partition import partition
from tensorweave.runtime.prune import check_partial_run_setup, prune

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


@dataclasses.dataclass
class _PartialRun:
    """A partial run's step (TF's RunState): its plan, its step id, and the feeds fed and fetches made."""

    key: tuple
    parts: list[_TaskPart]
    step_id: int
    fed: dict[str, bool]
    fetched: dict[str, bool]
    exec_opts: Any = None  # chosen by the first call, as TF's PerStepState


def _fetched(parts: list[_TaskPart], responses: list[Any], count: int) -> list[Any]:
    """The TensorProtos of a step's `count` fetches, in order, from the tasks' RunGraph responses."""
    tensors: list[Any] = [None] * count
    for part, response in zip(parts, responses):
        received = {named.name: named.tensor for named in response.recv}
        for position, rendezvous_key in part.recvs:
            tensors[position] = received[rendezvous_key]
    return tensors


def _merge_metadata(metadata: Any, responses: list[Any], exec_opts: Any) -> None:
    """Every task's step stats, costs and partitions, as TF's MasterSession merges them into RunMetadata."""
    for response in responses:
        if exec_opts.record_timeline:
            metadata.step_stats.dev_stats.extend(response.step_stats.dev_stats)
        if exec_opts.record_costs:
            metadata.cost_graph.node.extend(response.cost_graph.node)
        metadata.partition_graphs.extend(response.partition_graph)


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
        self._partial_run_handles = itertools.count()
        self._partial_runs: dict[str, _PartialRun] = {}
        self._partial_cleanups: dict[int, Callable[[], None]] = {}  # of the partial runs' steps under way
        self._callables: dict[int, tuple[tuple, Any]] = {}  # handle -> (plan key, RunOptions)
        self._next_callable = 0
        self._library: dict[str, Any] = {}  # name -> FunctionDef, of every graph_def the client sent
        self._lock = threading.Lock()
        self._tasks = list(dict.fromkeys(task_of(device.name) for device in devices))
        for task in self._tasks:
            cache.stub(task).call("CreateWorkerSession", protos.CreateWorkerSessionRequest(
                session_handle=handle, master_task=cache.local_task))

    def extend(self, graph_def: GraphDef, initial: bool = False) -> None:
        """Add the nodes and functions of `graph_def`; each ExtendSession makes a new graph version, the graph
        CreateSession brings is version 0 (TF's MasterSession numbers them so, and a TF client extends from
        the number it got). A function keeps its first definition, as a session's library."""
        with self._lock:
            for definition in graph_def.library:
                self._library.setdefault(definition.signature.name, definition)
        self._state.extend(graph_def.node)
        if not initial:
            with self._lock:
                self.graph_version += 1

    def run(self, request: Any) -> Any:
        feeds = tuple(named.name for named in request.feed)
        key = (feeds, tuple(request.fetch), tuple(request.target))
        parts = self._plans.get(key) or self._build_plan(*key)
        options = request.options
        exec_opts = self._exec_opts(key, options)
        step_id = random.getrandbits(63)
        requests = [self._run_graph_request(part, step_id, exec_opts, [(key, request.feed[index].tensor)
                                                                       for index, key in part.sends],
                                            [key for _, key in part.recvs]) for part in parts]
        responses = self._run_step(parts, requests, self._timeout(options), step_id)
        result = protos.RunStepResponse()
        _merge_metadata(result.metadata, responses, exec_opts)
        for name, tensor in zip(request.fetch, _fetched(parts, responses, len(request.fetch))):
            result.tensor.add(name=name, tensor=tensor)
        return result

    def _exec_opts(self, key: tuple, options: Any) -> Any:
        """What TF's MasterSession asks the workers to record in a step of the plan `key` with these options."""
        count = next(self._executions[key])
        return protos.ExecutorOpts(
            record_timeline=options.trace_level > 0, record_partition_graphs=options.output_partition_graphs,
            record_costs=self._cost_model_every > 0 and (count + 1 - self._cost_model_after) % self._cost_model_every == 0)

    def _timeout(self, options: Any) -> float | None:
        timeout_in_ms = options.timeout_in_ms or self._timeout_in_ms
        return timeout_in_ms / 1000 if timeout_in_ms > 0 else None

    def _run_graph_request(self, part: _TaskPart, step_id: int, exec_opts: Any, sends: list[tuple[str, Any]],
                           recv_keys: list[str]) -> Any:
        request = protos.RunGraphRequest(session_handle=self.handle, create_worker_session_called=True,
                                         graph_handle=part.handle, step_id=step_id, recv_key=recv_keys)
        for rendezvous_key, tensor in sends:
            request.send.add(name=rendezvous_key, tensor=tensor)
        request.exec_opts.CopyFrom(exec_opts)
        return request

    # -- partial runs (TF's MasterSession::PartialRunSetup and DoPartialRun) ---------------------------

    def partial_run_setup(self, request: Any) -> str:
        """Build and register the plan of the whole step now; its RunGraphs come with the partial runs."""
        key = (tuple(request.feed), tuple(request.fetch), tuple(request.target))
        with self._lock:
            handle = str(next(self._partial_run_handles))
        check_partial_run_setup(*key)
        parts = self._plans.get(key) or self._build_plan(*key)
        with self._lock:
            self._partial_runs[handle] = _PartialRun(key, parts, random.getrandbits(63), dict.fromkeys(key[0], False),
                                                     dict.fromkeys(key[1], False))
        return handle

    def run_partial(self, request: Any) -> Any:
        """Feed some of a partial run's feeds and fetch some of its fetches: one RunGraph per task of the
        step, the first of which starts its executors; the last ends the step."""
        with self._lock:
            state = self._partial_runs.get(request.partial_run_handle)
        if state is None:
            raise errors.InvalidArgumentError(None, None, "Must run PartialRunSetup before performing partial runs")
        feeds = {named.name: named.tensor for named in request.feed}
        for pending, names, verb in ((state.fed, feeds, "feed"), (state.fetched, request.fetch, "fetch")):
            for name in names:
                if name not in pending:
                    raise errors.InvalidArgumentError(
                        None, None, f"The {verb} {name} was not specified in partial_run_setup.")
                if pending[name]:
                    raise errors.InvalidArgumentError(None, None, f"The {verb} {name} has already been "
                                                      f"{'fed' if verb == 'feed' else 'fetched'}.")
        self._check_fetches(state, feeds, request.fetch)
        state.fed.update(dict.fromkeys(feeds, True))
        state.fetched.update(dict.fromkeys(request.fetch, True))
        last = all(state.fed.values()) and all(state.fetched.values())
        if state.exec_opts is None:
            state.exec_opts = self._exec_opts(state.key, request.options)
        feed_names, fetch_names = state.key[0], state.key[1]
        wanted = set(request.fetch)
        requests = []
        for part in state.parts:
            run_graph = self._run_graph_request(
                part, state.step_id, state.exec_opts,
                [(key, feeds[feed_names[index]]) for index, key in part.sends if feed_names[index] in feeds],
                [key for index, key in part.recvs if fetch_names[index] in wanted])
            run_graph.is_partial, run_graph.is_last_partial_run = True, last
            requests.append(run_graph)
        try:
            responses = self._run_step(state.parts, requests, self._timeout(request.options), state.step_id,
                                       partial_over=last)
        except BaseException:
            with self._lock:
                self._partial_runs.pop(request.partial_run_handle, None)
            raise
        if last:
            with self._lock:
                self._partial_runs.pop(request.partial_run_handle, None)
        received = {}
        for part, response in zip(state.parts, responses):
            by_key = {named.name: named.tensor for named in response.recv}
            received.update((fetch_names[index], by_key[key]) for index, key in part.recvs if key in by_key)
        result = protos.RunStepResponse()
        _merge_metadata(result.metadata, responses, state.exec_opts)
        for name in request.fetch:
            result.tensor.add(name=name, tensor=received[name])
        return result

    def _check_fetches(self, state: _PartialRun, feeds: dict[str, Any], fetches: Sequence[str]) -> None:
        """TF's CheckFetches: no fetch may depend, in the whole graph, on a feed still to come."""
        pending = set()
        for name, fed in state.fed.items():
            if not fed:
                if self._state.node(parse_input(name)[0]) is None:
                    raise errors.NotFoundError(None, None, f"Feed {name}: not found")
                pending.add(parse_input(name))
        pending.difference_update(parse_input(name) for name in feeds)
        stack = []
        for name in fetches:
            node = self._state.node(parse_input(name)[0])
            if node is None:
                raise errors.NotFoundError(None, None, f"Fetch {name}: not found")
            stack.append(node)
        visited: set[str] = set()
        while stack:
            for spec in stack.pop().input:
                source = parse_input(spec)
                if source in pending:
                    raise errors.InvalidArgumentError(None, None, f"Fetch {source[0]}:{source[1]} can't be computed "
                                                      "from the feeds that have been fed so far.")
                if source[0] not in visited:
                    visited.add(source[0])
                    node = self._state.node(source[0])
                    if node is not None:
                        stack.append(node)

    # -- callables (TF's MasterSession::MakeCallable, RunCallable, ReleaseCallable) -------------------

    def make_callable(self, options: Any) -> int:
        """Build and register the plan of `options` (CallableOptions); its handle runs it with RunCallable."""
        key = (tuple(options.feed), tuple(options.fetch), tuple(options.target))
        if options.tensor_connection:
            raise errors.UnimplementedError(None, None, "CallableOptions.tensor_connection is not supported in "
                                            "distributed sessions")
        self._plans.get(key) or self._build_plan(*key)
        run_options = protos.RunOptions()
        run_options.CopyFrom(options.run_options)
        with self._lock:
            handle = self._next_callable
            self._next_callable += 1
            self._callables[handle] = (key, run_options)
        return handle

    def run_callable(self, request: Any) -> Any:
        with self._lock:
            callable_ = self._callables.get(request.handle)
            issued = self._next_callable
        if callable_ is None:
            if request.handle >= issued:
                raise errors.InvalidArgumentError(None, None, f"No such callable handle: {request.handle}")
            raise errors.InvalidArgumentError(
                None, None, f"Attempted to run callable after handle was released: {request.handle}")
        key, run_options = callable_
        parts = self._plans.get(key) or self._build_plan(*key)
        exec_opts = self._exec_opts(key, run_options)
        step_id = random.getrandbits(63)
        feed = request.feed
        requests = []
        for part in parts:
            sends = []
            for index, rendezvous_key in part.sends:
                if index >= len(feed):
                    raise errors.InvalidArgumentError(None, None, f"Invalid number of feed tensors. Expected: "
                                                      f"{len(key[0])}. Got: {len(feed)}")
                sends.append((rendezvous_key, feed[index]))
            requests.append(self._run_graph_request(part, step_id, exec_opts, sends, [k for _, k in part.recvs]))
        responses = self._run_step(parts, requests, self._timeout(run_options), step_id)
        result = protos.RunCallableResponse()
        _merge_metadata(result.metadata, responses, exec_opts)
        result.fetch.extend(_fetched(parts, responses, len(key[1])))
        return result

    def release_callable(self, handle: int) -> None:
        with self._lock:
            self._callables.pop(handle, None)

    def _build_plan(self, feeds: tuple[str, ...], fetches: tuple[str, ...], targets: tuple[str, ...]) -> list[_TaskPart]:
        with self._lock:
            parts = self._plans.get((feeds, fetches, targets))
            if parts is not None:
                return parts
            graph_def = self._state.placed_graph()
            graph_def = prune(graph_def, feeds, fetches, targets, self._state.tensor_types(feeds + fetches))
            graph_def = self._optimizations.apply(graph_def, targets, host_device())
            graph_def = self._place_call_frame(graph_def, feeds, fetches)
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
                request.graph_def.library.function.extend(
                    reachable_definitions(request.graph_def.node, self._library))
                response = self._cache.stub(task).call("RegisterGraph", request)
                parts.append(_TaskPart(task, response.graph_handle, sends[task], recvs[task]))
            self._plans[(feeds, fetches, targets)] = parts
            self._executions[(feeds, fetches, targets)] = itertools.count()
            return parts

    def _place_call_frame(self, graph_def: GraphDef, feeds: tuple[str, ...], fetches: tuple[str, ...]) -> GraphDef:
        """Each `_Arg` on the device of the tensor it feeds, each `_Retval` on the device of what it fetches,
        so feeds and fetches go straight to and from the task that holds them; named as TF's master names
        its client-terminated nodes (`_recv_x_0` feeds `x:0`, `_send_y_0` fetches `y:0`), which errors show."""
        devices = {node.name: node.device for node in graph_def.node if node.device}
        renamed = {}
        nodes = []
        for node in graph_def.node:
            if node.op == "_Arg":
                source, index = parse_input(feeds[node.attr["index"]])
                renamed[node.name] = f"_recv_{source}_{index}"
                node = dataclasses.replace(node, name=renamed[node.name], device=self._state.device_of(source))
                devices[node.name] = node.device
            elif node.op == "_Retval":
                source, index = parse_input(fetches[node.attr["index"]])
                node = dataclasses.replace(node, name=f"_send_{source}_{index}",
                                           device=devices[parse_input(node.input[0])[0]])
            nodes.append(node)
        nodes = [dataclasses.replace(node, input=[_renamed_input(spec, renamed) for spec in node.input])
                 if any(parse_input(spec)[0] in renamed for spec in node.input) else node for node in nodes]
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

    def _run_step(self, parts: list[_TaskPart], requests: list[Any], timeout: float | None, step_id: int,
                  partial_over: bool | None = None) -> list[Any]:
        """One RunGraph per task (`requests`, one per part) under one step id, the own task's on this thread.
        Every task's step is cleaned up: at once when it failed; once the next step is under way when it
        succeeded, so that CleanupGraph never delays a step's RunGraph on a task (a session's last step is
        cleaned at close). A partial run's step (`partial_over` not None) goes on after a call that succeeded,
        and is cleaned up at once after its last one."""
        lock, finished = threading.Lock(), threading.Event()
        responses: list[Any] = [None] * len(parts)
        failures: list[BaseException] = []
        remaining = len(parts)
        cleaned = threading.Event()

        def cleanup() -> None:
            if cleaned.is_set():
                return
            cleaned.set()
            succeeded = remaining == 0 and not failures and partial_over is not False
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
        for position, (part, request) in enumerate(zip(parts, requests)):
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
            if failures or partial_over:
                pass
            elif partial_over is not None:  # a partial run's step goes on, and is cleaned at its end or close
                displaced = None
                self._partial_cleanups[step_id] = cleanup
            else:  # nothing waits in a step that succeeded: its cleanup goes with the next step's
                displaced, self._finished_step = self._finished_step, cleanup
            if displaced is not None:
                self._partial_cleanups.pop(step_id, None)
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
            running = list(self._running) + list(self._partial_cleanups.values())
            self._partial_runs.clear()
            self._partial_cleanups.clear()
            self._callables.clear()
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


def _renamed_input(spec: str, renamed: dict[str, str]) -> str:
    """An input spec ('x', 'x:1', '^x') naming its node by its new name, if it has one."""
    control = spec.startswith("^")
    name, _, index = spec.lstrip("^").partition(":")
    name = renamed.get(name, name)
    return f"^{name}" if control else f"{name}:{index}" if index else name


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
            session.extend(graph_def_from_proto(request.graph_def), initial=True)
        with self._lock:
            self._sessions[handle] = session
        return protos.CreateSessionResponse(session_handle=handle, graph_version=session.graph_version)

    def ExtendSession(self, request: Any) -> Any:  # noqa: N802
        session = self._get(request.session_handle)
        if request.current_graph_version != session.graph_version:
            raise errors.AbortedError(None, None, f"Current version is {session.graph_version} but caller "
                                      f"expected {request.current_graph_version}.")
        session.extend(graph_def_from_proto(request.graph_def))
        return protos.ExtendSessionResponse(new_graph_version=session.graph_version)

    def RunStep(self, request: Any) -> Any:  # noqa: N802
        try:
            session = self._get(request.session_handle)
            return session.run_partial(request) if request.partial_run_handle else session.run(request)
        except Exception as e:
            if not request.store_errors_in_response_body:
                raise
            code, message = rpc.error_status(e)
            return protos.RunStepResponse(status_code=code, status_error_message=message)

    def PartialRunSetup(self, request: Any) -> Any:  # noqa: N802
        handle = self._get(request.session_handle).partial_run_setup(request)
        return protos.PartialRunSetupResponse(partial_run_handle=handle)

    def MakeCallable(self, request: Any) -> Any:  # noqa: N802
        return protos.MakeCallableResponse(handle=self._get(request.session_handle).make_callable(request.options))

    def RunCallable(self, request: Any) -> Any:  # noqa: N802
        return self._get(request.session_handle).run_callable(request)

    def ReleaseCallable(self, request: Any) -> Any:  # noqa: N802
        self._get(request.session_handle).release_callable(request.handle)
        return protos.ReleaseCallableResponse()

    def CloseSession(self, request: Any) -> Any:  # noqa: N802
        with self._lock:
            session = self._sessions.pop(request.session_handle, None)
        if session is None:
            raise errors.AbortedError(None, None, f"Session {request.session_handle} is not found. Possibly, this "
                                      "master has restarted.")
        session.close()
        return protos.CloseSessionResponse()

    def ListDevices(self, request: Any) -> Any:  # noqa: N802
        """A session's devices (those of the tasks its device filters let it use), all as `local_device` as TF's
        MasterSession lists them; without a session, the whole cluster's, this task's as local."""
        response = protos.ListDevicesResponse()
        if request.session_handle:
            with self._lock:
                session = self._sessions.get(request.session_handle)
            if session is None:
                raise errors.InvalidArgumentError(None, None, f"Session {request.session_handle} is not found. "
                                                  "Possibly, this master has restarted.")
            response.local_device.extend(device.attributes for device in session.devices)
            return response
        for device in cluster_devices(self._cache):
            local = task_of(device.name) == self._cache.local_task
            (response.local_device if local else response.remote_device).add().CopyFrom(device.attributes)
        return response

    def Reset(self, request: Any) -> Any:  # noqa: N802
        """Clear the named containers (all when none) on every task the device filters name (all without
        filters), then close every session of this master, in TF's order."""
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
        for task in self._cache.task_names():
            if _task_matches(task, request.device_filters):
                self._cache.stub(task).call("CleanupAll", protos.CleanupAllRequest(container=list(request.container)))
        for session in sessions:
            session.close()
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
