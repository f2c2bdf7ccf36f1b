"""Rendezvous: where a Send leaves a tensor and the matching Recv picks it up (TF's framework/rendezvous.h).

A key names one tensor of one step's exchange between two devices: `src_device;src_incarnation;dst_device;
tensor_name;frame_id:iter_id`, so the same edge in different loop iterations gets different keys. Send never
blocks; Recv is asynchronous: its callback runs when the value arrives (on the sending thread) or at once if
it is already there. `abort` fails every pending and later Recv with the error, so a failed step never leaves
a Recv waiting. `LocalRendezvous` serves one process; the distributed runtime puts a remote one in front.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from typing import Any

RecvCallback = Callable[[BaseException | None, Any, bool], None]  # (error, value, is_dead)


def create_key(src_device: str, src_incarnation: int, dst_device: str, tensor_name: str,
               frame_id: int = 0, iteration: int = 0) -> str:
    """The rendezvous key of one tensor's transfer, as TF's Rendezvous::CreateKey spells it (the incarnation
    as the unsigned 64-bit number TF prints, whatever sign the int64 attr that carries it has)."""
    return f"{src_device};{src_incarnation & 0xFFFFFFFFFFFFFFFF:016x};{dst_device};{tensor_name};{frame_id}:{iteration}"


class Rendezvous:
    """The interface kernels see: send a value under a key, receive it asynchronously, abort the exchange."""

    def send(self, key: str, value: Any, is_dead: bool = False) -> None:
        raise NotImplementedError

    def recv_async(self, key: str, callback: RecvCallback) -> None:
        raise NotImplementedError

    def abort(self, error: BaseException) -> None:
        raise NotImplementedError

    def recv(self, key: str, timeout: float | None = None) -> tuple[Any, bool]:
        """Block until the value of `key` arrives: (value, is_dead). For tests and host-side callers only:
        kernels use `recv_async`, so no executor thread ever waits."""
        arrived = threading.Event()
        result: list[Any] = []

        def on_value(error: BaseException | None, value: Any, is_dead: bool) -> None:
            result.extend((error, value, is_dead))
            arrived.set()

        self.recv_async(key, on_value)
        if not arrived.wait(timeout):
            raise TimeoutError(f"Timed out waiting for rendezvous key {key}")
        error, value, is_dead = result
        if error is not None:
            raise error
        return value, is_dead


class LocalRendezvous(Rendezvous):
    """An in-process rendezvous: per key, a queue of sent values or of waiting receivers (never both)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[str, deque[tuple[Any, bool]]] = {}
        self._waiters: dict[str, deque[RecvCallback]] = {}
        self._error: BaseException | None = None

    def send(self, key: str, value: Any, is_dead: bool = False) -> None:
        with self._lock:
            if self._error is not None:
                raise self._error
            waiters = self._waiters.get(key)
            if not waiters:
                self._values.setdefault(key, deque()).append((value, is_dead))
                return
            callback = waiters.popleft()
            if not waiters:
                del self._waiters[key]
        callback(None, value, is_dead)

    def recv_async(self, key: str, callback: RecvCallback) -> None:
        with self._lock:
            error = self._error
            if error is None:
                values = self._values.get(key)
                if not values:
                    self._waiters.setdefault(key, deque()).append(callback)
                    return
                value, is_dead = values.popleft()
                if not values:
                    del self._values[key]
        if error is not None:
            callback(error, None, False)
        else:
            callback(None, value, is_dead)

    def drained(self) -> bool:
        """Whether every value sent was received and no receiver waits (a step's exchange is over)."""
        with self._lock:
            return not self._values and not self._waiters

    def abort(self, error: BaseException) -> None:
        with self._lock:
            if self._error is not None:
                return
            self._error = error
            waiters = [cb for queue in self._waiters.values() for cb in queue]
            self._waiters.clear()
            self._values.clear()
        for callback in waiters:
            callback(error, None, False)
