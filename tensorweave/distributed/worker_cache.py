"""How a task reaches every task of its cluster's WorkerService: its own in-process, the others by gRPC.

Task names are TF's ('/job:ps/replica:0/task:0'); the task of a device is its name up to '/device:'.
The own task is called directly (same requests and responses, no serialization), as TF's master calls its
local worker; a channel per remote address is opened once and kept.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from tensorweave import errors
from tensorweave.distributed import rpc
from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.formats import protos
from tensorweave.framework.device_spec import DeviceSpec


def task_name(job: str, task: int) -> str:
    return f"/job:{job}/replica:0/task:{task}"


def task_of(device: str) -> str:
    """The task part of a full device name."""
    return device.rpartition("/device:")[0]


# Whether the service call running on this thread came from the own task (LocalStub), not over gRPC
IN_PROCESS_CALL: contextvars.ContextVar[bool] = contextvars.ContextVar("in_process_call", default=False)


class LocalStub:
    """The own task's service, called in-process with the Stub interface (IN_PROCESS_CALL set while it runs)."""

    def __init__(self, service: Any, pool: ThreadPoolExecutor) -> None:
        self._service = service
        self._pool = pool

    def call(self, name: str, request: Any, timeout: float | None = None, wait_for_ready: bool = False) -> Any:
        token = IN_PROCESS_CALL.set(True)
        try:
            return getattr(self._service, name)(request)
        finally:
            IN_PROCESS_CALL.reset(token)

    def call_async(self, name: str, request: Any, callback: Callable[[BaseException | None, Any], None],
                   waiter: Callable[[Callable[[], None]], bool] | None = None) -> Any:
        def run() -> None:
            IN_PROCESS_CALL.set(True)  # this pool thread runs only own-task calls
            try:
                response = getattr(self._service, name)(request)
            except Exception as e:  # noqa: BLE001 - handed to the callback as a remote failure would be
                callback(e, None)
                return
            callback(None, response)

        return self._pool.submit(run)


class WorkerCache:
    """Stubs of the cluster's workers, by task name."""

    def __init__(self, cluster: ClusterSpec, local_task: str, local_worker: Any) -> None:
        self.cluster = cluster
        self.local_task = local_task
        self._pool = ThreadPoolExecutor(max_workers=32, thread_name_prefix="tensorweave-local-worker")
        self._local = LocalStub(local_worker, self._pool)
        self._stubs: dict[str, rpc.Stub] = {}
        self._channels: list[Any] = []
        self._self_cleaning = {local_task}
        self._lock = threading.Lock()

    def task_names(self) -> list[str]:
        """Every task of the cluster, the own task first."""
        names = [task_name(job, index) for job in sorted(self.cluster.jobs) for index in self.cluster.task_indices(job)]
        return [self.local_task] + [name for name in names if name != self.local_task]

    def stub(self, task: str) -> Any:
        if task == self.local_task:
            return self._local
        with self._lock:
            stub = self._stubs.get(task)
            if stub is None:
                spec = DeviceSpec.from_string(task)
                try:
                    address = self.cluster.task_address(spec.job, spec.task)
                except ValueError:
                    raise errors.InvalidArgumentError(None, None, f"Invalid target task {task}: not in the "
                                                      "cluster") from None
                channel = rpc.new_channel(address)
                self._channels.append(channel)
                stub = self._stubs[task] = rpc.Stub(channel, rpc.WORKER_SERVICE, rpc.WORKER_METHODS)
            return stub

    def get_status(self, task: str, timeout: float) -> Any:
        """The task's GetStatus (waiting for a task still starting), noting whether it ends its steps itself."""
        if task == self.local_task:
            return self._local.call("GetStatus", protos.GetStatusRequest())
        response, metadata = self.stub(task).call_with_metadata("GetStatus", protos.GetStatusRequest(),
                                                                timeout=timeout, wait_for_ready=True)
        with self._lock:
            if rpc.SELF_CLEANING in metadata:
                self._self_cleaning.add(task)
            else:
                self._self_cleaning.discard(task)
        return response

    def self_cleaning(self, task: str) -> bool:
        """Whether the task drops a step that succeeded without CleanupGraph (a tensorweave worker does)."""
        with self._lock:
            return task in self._self_cleaning

    def close(self) -> None:
        with self._lock:
            for channel in self._channels:
                channel.close()
            self._channels.clear()
            self._stubs.clear()
        self._pool.shutdown(wait=False)
