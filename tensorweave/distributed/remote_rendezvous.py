"""The rendezvous of one step on one worker (TF's RpcRemoteRendezvous).

Sends always stay local: a `_Send` leaves its value here, where a `_Recv` of this task or a RecvTensor call
from another task picks it up. A `_Recv` whose sender is on this task, or whose value the master fed with
RunGraph, reads locally; any other asks the sender's task with RecvTensor, asynchronously: the call is made
by the thread that runs this task's part of the step when it has nothing else to do (it would only wait),
else by a caller thread; either way the receive is failed at once when the step aborts. Aborting the step fails every pending receive, local or remote, with the step's error.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tensorweave.distributed import rpc
from tensorweave.distributed.worker_cache import WorkerCache, task_of
from tensorweave.formats import protos
from tensorweave.framework.cancellation import CancellationManager
from tensorweave.framework.rendezvous import LocalRendezvous, RecvCallback, Rendezvous
from tensorweave.runtime.executor import StepRunner


class RemoteRendezvous(Rendezvous):
    """One step's exchange on one worker, reaching the other tasks' rendezvous through RecvTensor."""

    def __init__(self, step_id: int, cache: WorkerCache) -> None:
        self.step_id = step_id
        self.local = LocalRendezvous()
        self.cancellation = CancellationManager()
        self._cache = cache
        self._fed: set[str] = set()
        self._calls: set[Any] = set()
        self._lock = threading.Lock()
        self._error: BaseException | None = None
        self.ran = False  # this task's RunGraph of the step succeeded
        self.remote_master = False  # the step's RunGraph came over gRPC, from a master on another task
        self.runner: StepRunner | None = None  # the thread running this task's part of the step, while it does

    def feed(self, key: str, value: Any) -> None:
        """A value the master sent with RunGraph (a client-terminated `_Recv` of this task reads it)."""
        with self._lock:
            self._fed.add(key)
        self.local.send(key, value)

    def send(self, key: str, value: Any, is_dead: bool = False) -> None:
        sender, _, receiver = key.split(";")[:3]
        if isinstance(value, np.ndarray) and (task_of(receiver) != self._cache.local_task
                                              or (receiver == sender and self.remote_master)):
            # another task, or a master on another task (a client-terminated key names the sender twice),
            # gets the value as it is at the send, as from TF's worker: not a later in-place update of the
            # variable it may be the buffer of (a global step fetched beside the train op is the step's old one)
            value = value.copy()
        self.local.send(key, value, is_dead)

    def recv_async(self, key: str, callback: RecvCallback) -> None:
        sender = task_of(key.partition(";")[0])
        with self._lock:
            local = key in self._fed or sender == self._cache.local_task
            error = self._error
        if local:
            self.local.recv_async(key, callback)
            return
        if error is not None:
            callback(error, None, False)
            return
        request = protos.RecvTensorRequest(step_id=self.step_id, rendezvous_key=key)
        call: list[Any] = []

        def replied(failure: BaseException | None, response: Any) -> None:
            with self._lock:
                if call:
                    self._calls.discard(call[0])
                failure = self._error if failure is not None and self._error is not None else failure
            if failure is not None:
                callback(failure, None, False)
            elif response.is_dead:
                callback(None, None, True)
            else:
                callback(None, rpc.tensor_from_proto(response.tensor), False)

        try:
            stub = self._cache.stub(sender)
        except Exception as e:  # noqa: BLE001 - the receiving kernel reports it
            callback(e, None, False)
            return
        future = stub.call_async("RecvTensor", request, replied, self.runner.offer if self.runner else None)
        with self._lock:
            if not future.done():
                call.append(future)
                self._calls.add(future)

    @property
    def error(self) -> BaseException | None:
        """The error the step was aborted with, if it was."""
        return self._error

    def abort(self, error: BaseException) -> None:
        with self._lock:
            if self._error is not None:
                return
            self._error = error
            calls = list(self._calls)
            self._calls.clear()
        self.local.abort(error)
        self.cancellation.start_cancel()
        for future in calls:
            future.cancel()
