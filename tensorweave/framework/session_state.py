"""A session's kept tensors: the values that session handles name between runs (TF's SessionState and
TensorStore).

A session's backend registers one `SessionTensors` in each of its devices' resource managers. A handle is
TF's string 'node;id;device', the id counted per session. As TF's TensorStore, a value given a handle in a
step is kept only if the step fetches that handle: the kernel adds it as pending for its step and the
session keeps the fetched ones when the step ends (`end_step`) and drops the rest; a store a kernel finds
without a session managing it (a worker's) keeps every value at once. Closing the session clears its
resource managers, and so its kept tensors.
"""

from __future__ import annotations

import itertools
import threading
from typing import Any

from tensorweave import errors

# Where a device's resource manager holds its session's kept tensors (TF's TENSOR_HANDLE_KEY)
CONTAINER = "TensorHandle"
_STORE = "session_tensors"


class SessionTensors:
    """The tensors one session keeps, by handle, and those its running steps have produced."""

    def __init__(self, managed: bool) -> None:
        self._managed = managed  # False: nothing ends steps, so values are kept as soon as made
        self._ids = itertools.count()
        self._kept: dict[str, Any] = {}
        self._pending: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def add(self, step_id: int, node: str, device_name: str, value: Any) -> str:
        with self._lock:
            handle = f"{node};{next(self._ids)};{device_name}"
            if self._managed:
                self._pending.setdefault(step_id, {})[handle] = value
            else:
                self._kept[handle] = value
        return handle

    def end_step(self, step_id: int, fetched: set[str]) -> None:
        """Keep the values of the handles the step fetched; drop its others (all of them when it failed)."""
        with self._lock:
            made = self._pending.pop(step_id, {})
            self._kept.update((h, v) for h, v in made.items() if h in fetched)

    def get(self, handle: str) -> Any:
        with self._lock:
            value = self._kept.get(handle)
        if value is None:
            raise errors.InvalidArgumentError(None, None,
                                              f"The tensor with handle '{handle}' is not in the session store.")
        return value

    def delete(self, handle: str) -> None:
        with self._lock:
            if self._kept.pop(handle, None) is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Failed to delete a tensor with handle '{handle}' in the session store.")


class KeptTensor:
    """A GetSessionHandleV2 value: a resource naming the kept tensor by its handle string."""

    def __init__(self, handle: str) -> None:
        self.handle = handle


def session_tensors(resource_mgr: Any) -> SessionTensors:
    """The store of the session a device's resource manager belongs to (an unmanaged one if none)."""
    return resource_mgr.lookup_or_create(CONTAINER, _STORE, lambda: SessionTensors(managed=False))


def register_session_tensors(resource_mgrs: list[Any]) -> SessionTensors:
    """One managed store for a session's devices: its backend ends each step that makes handles."""
    store = SessionTensors(managed=True)
    for resource_mgr in resource_mgrs:
        resource_mgr.lookup_or_create(CONTAINER, _STORE, lambda: store)
    return store


def is_handle_op(op_type: str) -> bool:
    """Whether a node of this type gives a session handle (its fetched value becomes a TensorHandle)."""
    return op_type in ("GetSessionHandle", "GetSessionHandleV2")
