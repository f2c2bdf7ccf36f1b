"""CancellationManager: how a step tells its pending work to stop (TF's framework/cancellation.h).

An asynchronous kernel that waits (a Recv, a Dequeue) registers a callback under a token; when the step
fails or is cancelled, `start_cancel` runs every registered callback once, so each waiting kernel finishes
with an error instead of holding the step forever. A callback registered after cancellation started is
refused (`register_callback` returns False) and the kernel must fail at once. Thread-safe.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable


class CancellationManager:
    """Callbacks to run when the step that owns this manager is cancelled."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callable[[], None]] = {}
        self._tokens = itertools.count()
        self._cancelled = False

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    def get_cancellation_token(self) -> int:
        return next(self._tokens)

    def register_callback(self, token: int, callback: Callable[[], None]) -> bool:
        """Run `callback` on cancellation; False (and nothing registered) if cancellation already started."""
        with self._lock:
            if self._cancelled:
                return False
            self._callbacks[token] = callback
            return True

    def deregister_callback(self, token: int) -> bool:
        """Forget the callback of `token`; False if cancellation already started (it runs or has run)."""
        with self._lock:
            if self._cancelled:
                return False
            self._callbacks.pop(token, None)
            return True

    def start_cancel(self) -> None:
        """Cancel: run every registered callback once, outside the lock (a callback may finish a kernel)."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            callbacks = list(self._callbacks.values())
            self._callbacks.clear()
        for callback in callbacks:
            callback()
