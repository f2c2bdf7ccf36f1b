"""The `grpc://host:port` session backend: the client side of TF's MasterService (TF's GrpcSession).

The client's graph goes to the master with CreateSession (the first nodes) and ExtendSession (the nodes
added since, with the graph version it holds), each with the FunctionDefs added since in its `library`;
each step is one RunStep with the feeds as TensorProtos and the fetches and targets by name, errors carried
in the response body as TF's client asks. Partial runs and callables live in the master too
(PartialRunSetup, MakeCallable/RunCallable/ReleaseCallable). The master prunes, places and partitions over
the cluster; this backend only speaks the protocol.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from tensorweave import errors
from tensorweave.distributed import rpc
from tensorweave.distributed.master import local_master
from tensorweave.distributed.worker_cache import LocalStub
from tensorweave.formats import protos
from tensorweave.framework.device_base import DeviceBase
from tensorweave.framework.graph_def import GraphDef, NodeDef
from tensorweave.runtime.session_factory import PlanKey, SessionBackend, register_session_factory

SCHEME = "grpc://"


class _ListedDevice(DeviceBase):
    """A device the master listed (what `Session.list_devices()` shows)."""

    def __init__(self, attributes: Any) -> None:
        super().__init__(attributes.name, attributes.device_type, None)
        self.memory_limit_bytes = attributes.memory_limit


class GrpcSession(SessionBackend):
    """A session whose graph lives in the master at `target` and whose steps run on its cluster."""

    def __init__(self, target: str, config: Any = None) -> None:
        # a master served by this process is called directly, as TF's GrpcSession does through LocalMaster
        master = local_master(target)
        self._channel = None if master is not None else rpc.new_channel(target[len(SCHEME):])
        self._master = (LocalStub(master, None) if master is not None
                        else rpc.Stub(self._channel, rpc.MASTER_SERVICE, rpc.MASTER_METHODS))
        self._target = target
        self._config = config
        self._handle = ""
        self._graph_version = 0
        self._lock = threading.Lock()
        self._closed = False
        self._new_functions: list[Any] = []  # FunctionDefs for the next graph_def the master gets

    @property
    def devices(self) -> list[DeviceBase]:
        response = self._master.call("ListDevices", protos.ListDevicesRequest(session_handle=self._handle))
        return [_ListedDevice(d) for d in list(response.local_device) + list(response.remote_device)]

    @property
    def closed(self) -> bool:
        return self._closed

    def add_functions(self, bodies: dict[str, GraphDef], definitions: Sequence[Any] = ()) -> None:
        """Kept for the graph_def of the next CreateSession or ExtendSession (its `library`, as TF's client
        sends the functions new since the last one), which the nodes that call them bring."""
        with self._lock:
            self._new_functions.extend(definitions)

    def extend(self, nodes: list[NodeDef]) -> None:
        graph_def = GraphDef(node=list(nodes)).to_proto()
        with self._lock:
            graph_def.library.function.extend(self._new_functions)
            if not self._handle:
                request = protos.CreateSessionRequest(graph_def=graph_def, target=self._target)
                if self._config is not None:
                    request.config.CopyFrom(self._config)
                response = self._master.call("CreateSession", request, wait_for_ready=True)
                self._handle, self._graph_version = response.session_handle, response.graph_version
            else:
                response = self._master.call("ExtendSession", protos.ExtendSessionRequest(
                    session_handle=self._handle, graph_def=graph_def, current_graph_version=self._graph_version))
                self._graph_version = response.new_graph_version
            self._new_functions.clear()

    def run(self, key: PlanKey, feed_values: Sequence[Any], step_stats: Any = None,
            timeout_in_ms: int = 0, options: Any = None, run_metadata: Any = None) -> list[Any]:
        if key.exact_nodes:
            raise errors.UnimplementedError(None, None, "Partial runs are not available in grpc:// sessions")
        request = protos.RunStepRequest(session_handle=self._handle, fetch=key.fetches, target=key.targets,
                                        store_errors_in_response_body=True)
        for name, value in zip(key.feeds, feed_values):
            request.feed.add(name=name, tensor=rpc.tensor_to_proto(value))
        if options is not None:  # as TF's GrpcSession sends them
            request.options.CopyFrom(options)
        if timeout_in_ms:
            request.options.timeout_in_ms = timeout_in_ms
        if step_stats is not None:  # a traced step: the master gathers every task's stats
            request.options.trace_level = protos.RunOptions.FULL_TRACE
        response = self._checked(self._master.call("RunStep", request))
        if step_stats is not None:
            step_stats.CopyFrom(response.metadata.step_stats)
        if run_metadata is not None:  # every task's partition graphs and cost graph, as the master gathered them
            run_metadata.partition_graphs.extend(response.metadata.partition_graphs)
            if response.metadata.HasField("cost_graph"):
                run_metadata.cost_graph.CopyFrom(response.metadata.cost_graph)
        by_name = {named.name: named.tensor for named in response.tensor}
        return [rpc.tensor_from_proto(by_name[name]) for name in key.fetches]

    runs_partial_runs = True

    def partial_run_setup(self, feeds: Sequence[str], fetches: Sequence[str], targets: Sequence[str]) -> str:
        response = self._master.call("PartialRunSetup", protos.PartialRunSetupRequest(
            session_handle=self._handle, feed=feeds, fetch=fetches, target=targets))
        return response.partial_run_handle

    def partial_run(self, handle: str, feeds: Sequence[str], feed_values: Sequence[Any],
                    fetches: Sequence[str]) -> list[Any]:
        request = protos.RunStepRequest(session_handle=self._handle, fetch=fetches, partial_run_handle=handle,
                                        store_errors_in_response_body=True)
        for name, value in zip(feeds, feed_values):
            request.feed.add(name=name, tensor=rpc.tensor_to_proto(value))
        response = self._checked(self._master.call("RunStep", request))
        by_name = {named.name: named.tensor for named in response.tensor}
        return [rpc.tensor_from_proto(by_name[name]) for name in fetches]

    def make_callable(self, options: Any) -> Any:
        return self._master.call("MakeCallable", protos.MakeCallableRequest(
            session_handle=self._handle, options=options)).handle

    def run_callable(self, handle: Any, feed_values: Sequence[Any], run_metadata: Any = None) -> list[Any]:
        request = protos.RunCallableRequest(session_handle=self._handle, handle=handle,
                                            feed=[rpc.tensor_to_proto(value) for value in feed_values])
        response = self._master.call("RunCallable", request)
        if run_metadata is not None:
            run_metadata.MergeFrom(response.metadata)
        return [rpc.tensor_from_proto(tensor) for tensor in response.fetch]

    def release_callable(self, handle: Any) -> None:
        if not self._closed:
            self._master.call("ReleaseCallable", protos.ReleaseCallableRequest(session_handle=self._handle,
                                                                               handle=handle))

    @staticmethod
    def _checked(response: Any) -> Any:
        """The response of a RunStep whose error came in its body, raised as TF's client raises it."""
        if response.status_code:
            raise errors._make_specific_exception(None, None, response.status_error_message, response.status_code)
        return response

    def step_graphs(self, key: PlanKey) -> list[GraphDef]:
        return []  # the partitions live in the master

    def container_names(self) -> list[str]:
        return []

    def reset_containers(self, containers: list[str]) -> None:
        self._master.call("Reset", protos.ResetRequest(container=containers))

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            handle = self._handle
        try:
            if handle:
                self._master.call("CloseSession", protos.CloseSessionRequest(session_handle=handle), timeout=5)
        except errors.OpError:  # a master that is gone has nothing left to close
            pass
        finally:
            if self._channel is not None:
                self._channel.close()


register_session_factory("GRPC_SESSION", lambda target: target.startswith(SCHEME),
                         lambda target, config: GrpcSession(target, config))
