"""TF's own wire bytes against tensorweave: the calls a real TF master made to a TF worker, and a real TF1
client to its master (recorded by make_fixtures/tf_wire.py), replayed byte for byte to our server."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.distributed import rpc
from tensorweave.distributed.rpc import free_ports
from tensorweave.formats import protos

CALLS = json.loads((Path(__file__).parent / "fixtures" / "tf_wire.json").read_text())


def _messages(method: str) -> tuple[type, type]:
    service, name = method.strip("/").split("/")
    methods = rpc.MASTER_METHODS if service == rpc.MASTER_SERVICE else rpc.WORKER_METHODS
    return methods[name]


@contextlib.contextmanager
def _worker_task(*other_jobs: str):
    """Our server as /job:worker/task:0 of a cluster that also names `other_jobs` (never started); yields a
    function that sends a call's bytes as they are and returns the reply's."""
    ports = free_ports(1 + len(other_jobs))
    cluster = {job: [f"127.0.0.1:{port}"] for job, port in zip(("worker", *other_jobs), ports)}
    server = tf.train.Server(cluster, job_name="worker", task_index=0)
    channel = grpc.insecure_channel(cluster["worker"][0])
    try:
        yield lambda method, request: channel.unary_unary(method)(request, timeout=10)
    finally:
        channel.close()
        server._stop()


@pytest.mark.parametrize("conversation", ["master_to_worker", "functions_master_to_worker"])
def test_tf_master_drives_our_worker(conversation):
    """TF's master registers partitions with default-valued attrs left out and asks for fetches with
    RecvTensor (here before or after the step's RunGraph): our worker runs them and answers as TF's did;
    with function calls, it sends the FunctionDefs a partition calls in its library and lowers a Case to
    `_SwitchN` and `Merge`."""
    handles: dict[str, str] = {}
    ran: set[int] = set()
    waiting: dict[int, list] = {}
    with _worker_task("master") as server:
        _replay_master_calls(server, CALLS[conversation], handles, ran, waiting)


def _replay_master_calls(server: Any, calls: list, handles: dict[str, str], ran: set[int],
                         waiting: dict[int, list]) -> None:

    def replay(method: str, request: bytes, expected: bytes) -> None:
        request_class, response_class = _messages(method)
        message = request_class.FromString(request)
        if method.endswith("/RunGraph"):  # the graph TF's worker registered is ours under another handle
            message.graph_handle = handles[message.graph_handle]
            request = message.SerializeToString()
        got, want = response_class.FromString(server(method, request)), response_class.FromString(expected)
        if method.endswith("/RegisterGraph"):
            handles[want.graph_handle] = got.graph_handle
        elif method.endswith("/GetStatus"):
            assert [(d.name, d.device_type) for d in got.device_attributes] == \
                   [(d.name, d.device_type) for d in want.device_attributes]
        elif method.endswith("/RecvTensor"):
            assert got.is_dead == want.is_dead
            np.testing.assert_array_equal(rpc.tensor_from_proto(got.tensor), rpc.tensor_from_proto(want.tensor))
        elif method.endswith("/RunGraph"):
            assert got.status_code == want.status_code == 0 and len(got.recv) == len(want.recv)

    for method, request, response in calls:
        request, response = bytes.fromhex(request), bytes.fromhex(response)
        if method.endswith("/RecvTensor"):
            step = protos.RecvTensorRequest.FromString(request).step_id
            if step not in ran:  # a fetch TF asked for while the step ran: ask once it has
                waiting.setdefault(step, []).append((method, request, response))
                continue
        replay(method, request, response)
        if method.endswith("/RunGraph"):
            step = protos.RunGraphRequest.FromString(request).step_id
            ran.add(step)
            for call in waiting.pop(step, []):
                replay(*call)
    assert not waiting


def test_tf_client_drives_our_master():
    """A TF1 client's CreateSession, RunStep (feeds, fetches, errors in the body), ExtendSession and
    CloseSession: the same values and status codes as TF's master gave."""
    with _worker_task() as server:
        _replay_client_calls(server)


def _replay_client_calls(server: Any) -> None:
    handle = None
    for method, request, response in CALLS["client_to_master"]:
        request_class, response_class = _messages(method)
        message = request_class.FromString(bytes.fromhex(request))
        if handle is not None:
            message.session_handle = handle
        got = response_class.FromString(server(method, message.SerializeToString()))
        want = response_class.FromString(bytes.fromhex(response))
        if method.endswith("/CreateSession"):
            handle = got.session_handle
            assert got.graph_version == want.graph_version
        elif method.endswith("/ExtendSession"):
            assert got.new_graph_version == want.new_graph_version
        elif method.endswith("/RunStep"):
            assert (got.status_code, [t.name for t in got.tensor]) == (want.status_code, [t.name for t in want.tensor])
            assert got.status_error_message.split("\n")[0] == want.status_error_message.split("\n")[0]
            for mine, theirs in zip(got.tensor, want.tensor):
                np.testing.assert_array_equal(rpc.tensor_from_proto(mine.tensor), rpc.tensor_from_proto(theirs.tensor))


def test_tf_client_partial_runs_and_callables():
    """A TF1 client's partial runs (values, and the errors of a spent handle, an early fetch, a feed or fetch
    given twice, an unknown feed, bad setups), its callables (MakeCallable, RunCallable, ReleaseCallable, a
    fetch not in the graph) and Reset: the same handles, values and status codes as TF's master gave."""
    with _worker_task() as server:
        handle = None
        for method, request, response, *failure in CALLS["partial_runs_and_callables"]:
            request_class, response_class = _messages(method)
            message = request_class.FromString(bytes.fromhex(request))
            if handle is not None and hasattr(message, "session_handle"):
                message.session_handle = handle
            try:
                got = response_class.FromString(server(method, message.SerializeToString()))
            except grpc.RpcError as e:
                assert [e.code().value[0], e.details()] == failure, method
                continue
            assert not failure, method
            want = response_class.FromString(bytes.fromhex(response))
            if method.endswith("/CreateSession"):
                handle = got.session_handle
            elif method.endswith("/RunStep"):
                assert (got.status_code, got.status_error_message.split("\n")[0], [t.name for t in got.tensor]) == \
                       (want.status_code, want.status_error_message.split("\n")[0], [t.name for t in want.tensor])
                for mine, theirs in zip(got.tensor, want.tensor):
                    np.testing.assert_array_equal(rpc.tensor_from_proto(mine.tensor), rpc.tensor_from_proto(theirs.tensor))
            elif method.endswith("/RunCallable"):
                assert [rpc.tensor_from_proto(t).tolist() for t in got.fetch] == \
                       [rpc.tensor_from_proto(t).tolist() for t in want.fetch]
            else:
                assert got == want, method


def test_unknown_callable_handles():
    """TF's master: a handle never made and one released are InvalidArgument."""
    with _worker_task() as server:
        def call(method: str, request: Any) -> Any:
            return server(f"/{rpc.MASTER_SERVICE}/{method}", request.SerializeToString())

        graph = protos.GraphDef()
        graph.node.add(name="c", op="Const", attr={"dtype": protos.AttrValue(type=1),
                                                   "value": protos.AttrValue(tensor=rpc.tensor_to_proto(np.float32(2)))})
        handle = protos.CreateSessionResponse.FromString(call("CreateSession", protos.CreateSessionRequest(
            graph_def=graph))).session_handle
        made = protos.MakeCallableResponse.FromString(call("MakeCallable", protos.MakeCallableRequest(
            session_handle=handle, options=protos.CallableOptions(fetch=["c:0"])))).handle
        ran = protos.RunCallableResponse.FromString(call("RunCallable", protos.RunCallableRequest(
            session_handle=handle, handle=made)))
        assert rpc.tensor_from_proto(ran.fetch[0]) == 2.0
        call("ReleaseCallable", protos.ReleaseCallableRequest(session_handle=handle, handle=made))
        for number, message in ((made, f"Attempted to run callable after handle was released: {made}"),
                                (made + 1, f"No such callable handle: {made + 1}")):
            try:
                call("RunCallable", protos.RunCallableRequest(session_handle=handle, handle=number))
            except grpc.RpcError as e:
                assert (e.code(), e.details()) == (grpc.StatusCode.INVALID_ARGUMENT, message)
            else:
                raise AssertionError("expected InvalidArgument")


# (method, request fields, TF 2.21's status code and first line of its message, or None for success), as a real
# TF master of a worker and a ps task answered these requests (session "zz" is unknown; "*" is this session).
_MASTER_ANSWERS = [
    ("ExtendSession", {"graph_def": ["c"], "current_graph_version": 0}, (3, "GraphDef argument to Extend includes "
     "node 'c', which was created by a previous call to Create or Extend in this session.")),
    ("ExtendSession", {"graph_def": ["d"], "current_graph_version": 5}, (10, "Current version is 0 but caller expected 5.")),
    ("ExtendSession", {"graph_def": ["e<-nope"], "current_graph_version": 0}, (3, "Node 'e': Unknown input node 'nope'")),
    ("ExtendSession", {"graph_def": ["d"], "current_graph_version": 0}, None),
    ("ListDevices", {"session_handle": "zz"}, (3, "Session zz is not found. Possibly, this master has restarted.")),
    ("RunStep", {"session_handle": "zz", "fetch": ["c:0"]}, (10, "Session zz is not found.")),
    ("PartialRunSetup", {"fetch": ["nope:0"]}, (5, "FetchOutputs node nope:0: not found")),
    ("PartialRunSetup", {"feed": ["c:0", "c:0"], "fetch": ["d:0"]}, (3, 'Endpoint "c:0" fed more than once.')),
    ("MakeCallable", {"session_handle": "zz"}, (10, "Session zz is not found.")),
    ("RunCallable", {"handle": 3}, (3, "No such callable handle: 3")),
    ("ReleaseCallable", {"handle": 3}, None),
    ("CloseSession", {}, None),
    ("CloseSession", {}, (10, "Session * is not found. Possibly, this master has restarted.")),
    ("ExtendSession", {"graph_def": ["x"], "current_graph_version": 1}, (10, "Session * is not found.")),
    ("Reset", {"device_filters": ["/job:nothing"]}, None),
]


def _node(spec: str) -> Any:
    """A float Const `name`, or with 'name<-input' an Identity of `input`."""
    name, _, source = spec.partition("<-")
    if source:
        return protos.NodeDef(name=name, op="Identity", input=[source], attr={"T": protos.AttrValue(type=1)})
    return protos.NodeDef(name=name, op="Const", attr={"dtype": protos.AttrValue(type=1), "value": protos.AttrValue(
        tensor=rpc.tensor_to_proto(np.float32(1)))})


def test_master_answers_bad_requests_as_tf():
    """Extending with a node sent before, a stale version or an unknown input; unknown sessions and callable
    handles; bad partial-run setups; closing twice; a filtered Reset: TF's codes and messages, and a
    session's ListDevices lists every device it uses as local, as TF's MasterSession does."""
    worker_port, ps_port = free_ports(2)
    cluster = {"worker": [f"127.0.0.1:{worker_port}"], "ps": [f"127.0.0.1:{ps_port}"]}
    servers = [tf.train.Server(cluster, job_name=job, task_index=0) for job in ("ps", "worker")]
    channel = grpc.insecure_channel(cluster["worker"][0])
    try:
        def call(method: str, request: Any) -> Any:
            response_class = rpc.MASTER_METHODS[method][1]
            raw = channel.unary_unary(f"/{rpc.MASTER_SERVICE}/{method}")(request.SerializeToString(), timeout=30)
            return response_class.FromString(raw)

        handle = call("CreateSession", protos.CreateSessionRequest(graph_def=protos.GraphDef(node=[_node("c")]))).session_handle
        listed = call("ListDevices", protos.ListDevicesRequest(session_handle=handle))
        assert ([d.name for d in listed.local_device], list(listed.remote_device)) == \
               (["/job:worker/replica:0/task:0/device:CPU:0", "/job:ps/replica:0/task:0/device:CPU:0"], [])
        listed = call("ListDevices", protos.ListDevicesRequest())
        assert ([d.name for d in listed.local_device], [d.name for d in listed.remote_device]) == \
               (["/job:worker/replica:0/task:0/device:CPU:0"], ["/job:ps/replica:0/task:0/device:CPU:0"])
        for method, fields, answer in _MASTER_ANSWERS:
            request = rpc.MASTER_METHODS[method][0](session_handle=handle) if method != "Reset" \
                else protos.ResetRequest()
            for field, value in fields.items():
                if field == "graph_def":
                    request.graph_def.node.extend(_node(spec) for spec in value)
                elif isinstance(value, list):
                    getattr(request, field).extend(value)
                else:
                    setattr(request, field, value)
            try:
                call(method, request)
            except grpc.RpcError as e:
                assert answer is not None, (method, e.details())
                assert (e.code().value[0], e.details().split("\n")[0]) == (answer[0], answer[1].replace("*", handle))
            else:
                assert answer is None, method
    finally:
        channel.close()
        for server in servers:
            server._stop()
