"""gRPC plumbing: TF's service method paths and messages, status codes, tensors on the wire, channels.

Every server serves `/tensorflow.MasterService/<Method>` and `/tensorflow.WorkerService/<Method>` with TF's
request and response messages, through generic handlers (no generated stubs). A service is a Python
object whose method `Name(request) -> response` raises tensorweave's OpError classes; here they become the
RPC's status with the same code (TF's error codes are gRPC's), and a failed call becomes the OpError of
its status on the caller's side. Messages have no size limit, so big tensors cross in one message.
"""

from __future__ import annotations

import queue
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import numpy as np

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.formats.tensor_proto import make_ndarray, make_tensor_proto

MASTER_METHODS = {
    "CreateSession": (protos.CreateSessionRequest, protos.CreateSessionResponse),
    "ExtendSession": (protos.ExtendSessionRequest, protos.ExtendSessionResponse),
    "RunStep": (protos.RunStepRequest, protos.RunStepResponse),
    "CloseSession": (protos.CloseSessionRequest, protos.CloseSessionResponse),
    "ListDevices": (protos.ListDevicesRequest, protos.ListDevicesResponse),
    "Reset": (protos.ResetRequest, protos.ResetResponse),
    "PartialRunSetup": (protos.PartialRunSetupRequest, protos.PartialRunSetupResponse),
    "MakeCallable": (protos.MakeCallableRequest, protos.MakeCallableResponse),
    "RunCallable": (protos.RunCallableRequest, protos.RunCallableResponse),
    "ReleaseCallable": (protos.ReleaseCallableRequest, protos.ReleaseCallableResponse),
}
WORKER_METHODS = {
    "GetStatus": (protos.GetStatusRequest, protos.GetStatusResponse),
    "CreateWorkerSession": (protos.CreateWorkerSessionRequest, protos.CreateWorkerSessionResponse),
    "DeleteWorkerSession": (protos.DeleteWorkerSessionRequest, protos.DeleteWorkerSessionResponse),
    "RegisterGraph": (protos.RegisterGraphRequest, protos.RegisterGraphResponse),
    "DeregisterGraph": (protos.DeregisterGraphRequest, protos.DeregisterGraphResponse),
    "RunGraph": (protos.RunGraphRequest, protos.RunGraphResponse),
    "CleanupGraph": (protos.CleanupGraphRequest, protos.CleanupGraphResponse),
    "CleanupAll": (protos.CleanupAllRequest, protos.CleanupAllResponse),
    "RecvTensor": (protos.RecvTensorRequest, protos.RecvTensorResponse),
}
MASTER_SERVICE = "tensorflow.MasterService"
WORKER_SERVICE = "tensorflow.WorkerService"

_UNLIMITED = [("grpc.max_send_message_length", -1), ("grpc.max_receive_message_length", -1)]
# A peer that dies is noticed within seconds, never waited on: a dead process's connection resets at once, a
# silent one misses keep-alive pings (every 2 s, 2 s to answer, also while idle); a restarted task is
# reconnected to within a second (gRPC's default backoff grows to 2 minutes). At most 2 pings go out between
# data frames: a real TF server takes a third ping within 5 minutes without data for abuse and drops the
# connection with its calls ("Too many pings"): a step waiting over 6 s on a TF task would fail.
_CHANNEL_OPTIONS = _UNLIMITED + [
    ("grpc.keepalive_time_ms", 2000), ("grpc.keepalive_timeout_ms", 2000),
    ("grpc.keepalive_permit_without_calls", 1), ("grpc.http2.max_pings_without_data", 2),
    ("grpc.http2.min_time_between_pings_ms", 1000), ("grpc.http2.ping_timeout_ms", 2000),
    ("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 1000)]
_SERVER_OPTIONS = _UNLIMITED + [
    ("grpc.keepalive_time_ms", 2000), ("grpc.keepalive_timeout_ms", 2000),
    ("grpc.keepalive_permit_without_calls", 1), ("grpc.http2.min_ping_interval_without_data_ms", 1000),
    ("grpc.http2.max_ping_strikes", 0)]
_CODES = {code.value[0]: code for code in grpc.StatusCode}
# Sent with GetStatus by a worker that ends a step's rendezvous itself once its RunGraph succeeded and every
# tensor it sent was received: its master then sends no CleanupGraph after a step that succeeded (a real TF
# worker sends no such metadata and gets one as TF's master sends it, after every step).
SELF_CLEANING = ("tensorweave-step-cleanup", "self")


def error_from_rpc(error: grpc.RpcError) -> errors.OpError:
    """The OpError of a failed call's status (a dead peer is UNAVAILABLE, as in TF)."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    return errors._make_specific_exception(None, None, error.details() or str(code), code.value[0])


def error_status(error: BaseException) -> tuple[int, str]:
    """(TF error code, message) of an exception raised while serving a call."""
    if isinstance(error, errors.OpError):
        return error.error_code, error.message
    return errors.UNKNOWN, f"{type(error).__name__}: {error}"


def tensor_to_proto(value: Any) -> Any:
    """A value as TF's TensorProto (numbers in `tensor_content`: one buffer copy, no per-element Python)."""
    return make_tensor_proto(np.asarray(value))


def tensor_from_proto(proto: Any) -> np.ndarray:
    return make_ndarray(proto)


def serve(server: grpc.Server, service: str, methods: dict[str, tuple[type, type]], target: Any,
          metadata: dict[str, tuple[tuple[str, str], ...]] | None = None) -> None:
    """Add `target`'s methods to `server` under TF's paths for `service`; a method named in `metadata` sends
    those (key, value) pairs as trailing metadata (TF's peers ignore metadata they do not know)."""

    def handler(name: str, request_class: type) -> grpc.RpcMethodHandler:
        method = getattr(target, name)
        trailing = (metadata or {}).get(name)

        def call(request: Any, context: grpc.ServicerContext) -> Any:
            try:
                response = method(request)
            except Exception as e:  # noqa: BLE001 - every failure is the call's status
                code, message = error_status(e)
                context.abort(_CODES.get(code, grpc.StatusCode.UNKNOWN), message)
            if trailing:
                context.set_trailing_metadata(trailing)
            return response

        return grpc.unary_unary_rpc_method_handler(call, request_deserializer=request_class.FromString,
                                                   response_serializer=lambda m: m.SerializeToString())

    handlers = {name: handler(name, request) for name, (request, _) in methods.items()}
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))


def new_server(max_workers: int = 256) -> grpc.Server:
    """A gRPC server whose handlers may block (RunGraph waits for its step, RecvTensor for its value): each
    waiting call holds one of its threads, made as needed."""
    return grpc.server(ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="tensorweave-rpc"),
                       options=_SERVER_OPTIONS)


class AsyncCall:
    """A call in flight: `callback(error, response)` runs once, when the reply comes or at `cancel()`, which
    ends it for the caller at once with CancelledError (a late reply is then dropped)."""

    def __init__(self, name: str, callback: Callable[[BaseException | None, Any], None]) -> None:
        self._name = name
        self._callback = callback
        self._lock = threading.Lock()
        self._finished = False

    def finish(self, error: BaseException | None, response: Any) -> None:
        with self._lock:
            if self._finished:
                return
            self._finished = True
        self._callback(error, response)

    def done(self) -> bool:
        return self._finished

    def cancel(self) -> None:
        self.finish(errors.CancelledError(None, None, f"{self._name} was cancelled"), None)


class _Callers:
    """Daemon threads that make blocking calls for `call_async`, kept between calls: a blocking call polls
    its own completion queue on the calling thread, where a gRPC future wakes the channel's spin thread (and
    starts a new one whenever none is in flight), which costs a thread hop, often a thread start, per call.
    Daemons, so a call still waiting on a peer never holds up the process's exit."""

    def __init__(self) -> None:
        self._work: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, work: Callable[[], None]) -> None:
        with self._lock:
            start = self._idle == 0
            if not start:
                self._idle -= 1
        self._work.put(work)
        if start:
            threading.Thread(target=self._serve, name="tensorweave-rpc-call", daemon=True).start()

    def _serve(self) -> None:
        while True:
            self._work.get()()
            with self._lock:
                self._idle += 1


_CALLERS = _Callers()


class Stub:
    """Calls one service of one address: `call(name, request)` blocks; `call_async` runs `callback(error,
    response)` when the reply comes."""

    def __init__(self, channel: grpc.Channel, service: str, methods: dict[str, tuple[type, type]]) -> None:
        self._calls = {name: channel.unary_unary(f"/{service}/{name}", request_serializer=lambda m: m.SerializeToString(),
                                                 response_deserializer=response.FromString)
                       for name, (_, response) in methods.items()}

    def call(self, name: str, request: Any, timeout: float | None = None, wait_for_ready: bool = False) -> Any:
        try:
            return self._calls[name](request, timeout=timeout, wait_for_ready=wait_for_ready)
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None

    def call_with_metadata(self, name: str, request: Any, timeout: float | None = None,
                           wait_for_ready: bool = False) -> tuple[Any, tuple[tuple[str, str], ...]]:
        """`call`, also returning the trailing metadata the server sent."""
        try:
            response, call = self._calls[name].with_call(request, timeout=timeout, wait_for_ready=wait_for_ready)
        except grpc.RpcError as e:
            raise error_from_rpc(e) from None
        return response, tuple((key, value) for key, value in call.trailing_metadata() or ())

    def call_async(self, name: str, request: Any, callback: Callable[[BaseException | None, Any], None],
                   waiter: Callable[[Callable[[], None]], bool] | None = None) -> AsyncCall:
        """Start a call; returns it (`cancel()` ends it for the caller at once). The blocking call is made by
        `waiter` when it takes it (a thread that only waits for this reply, as the thread running a step whose
        Recv asks another task: no thread hop, and less CPU on a loaded machine), else on a caller thread."""
        call = AsyncCall(name, callback)
        method = self._calls[name]

        def run() -> None:
            try:
                response = method(request)
            except grpc.RpcError as e:
                call.finish(error_from_rpc(e), None)
                return
            call.finish(None, response)

        if waiter is None or not waiter(run):
            _CALLERS.submit(run)
        return call


def new_channel(address: str) -> grpc.Channel:
    return grpc.insecure_channel(address, options=_CHANNEL_OPTIONS)


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """`count` distinct ports free on `host` now, for a cluster whose tasks must know each other's
    addresses before any of them binds (held together while picked, so none repeats)."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind((host, 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()
