"""TensorHandle: what `Session.run` returns for a fetched session handle (TF1's session_ops.TensorHandle).

It names a tensor the session keeps ('node;id;device'). `eval()` reads it and `delete()` frees it, each in a
run of the session's graph; a handle dropped by the program is queued as dead, and the session deletes dead
handles in batches (`register_dead_handle`), as TF's does, unless `get_raw_handle()` took over its life.
"""

from __future__ import annotations

from typing import Any

from tensorweave.framework import dtypes
from tensorweave.ops import session_ops


class TensorHandle:
    """Represents a handle for a live tensor in a session."""

    def __init__(self, handle: Any, dtype: Any, session: Any) -> None:
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtypes.as_dtype(dtype)
        self._session = session
        self._auto_gc_enabled = True

    def __del__(self) -> None:
        if getattr(self, "_auto_gc_enabled", False):
            self._session.register_dead_handle(self._handle)

    def __str__(self) -> str:
        return self._handle

    @property
    def handle(self) -> str:
        """The string representation of this handle."""
        return self._handle

    def to_numpy_array(self) -> str:
        """The value to feed for this handle (its string)."""
        return self._handle

    def _check_live(self) -> None:
        if not self._auto_gc_enabled:
            raise TypeError(f"Persistent tensor {self._handle} may have already been deleted.")

    def eval(self) -> Any:
        """The value of the tensor this handle names."""
        self._check_live()
        holder, reader = session_ops.handle_reader(self._session.graph, self._handle, self._dtype)
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self) -> None:
        """Free the tensor in the session now."""
        self._check_live()
        self._auto_gc_enabled = False
        holder, deleter = session_ops.handle_deleter(self._session.graph, 0, self._handle)
        self._session.run(deleter, feed_dict={holder: self._handle})

    def get_raw_handle(self) -> str:
        """The handle string; the caller now owns the kept tensor's life (no automatic deletion)."""
        self._auto_gc_enabled = False
        return self._handle
