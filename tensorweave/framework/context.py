"""Whether this thread executes ops eagerly: the eager context (TF's eager/context.py), at the floor of the
Python graph.

Eager execution exists only inside `tf.py_function`: its kernel enters an eager context on the thread that
calls the Python function, and every op created there runs at once (framework/eager.py) instead of joining a
graph. The context carries the device its kernels run on, the step they share and the gradient tapes that
record them. Building an eager op's node is itself graph building, so `building()` suspends eagerness for it.
Graph building has tapes of its own (a `tf.GradientTape` entered outside any py_function records graph ops).

Invariant: the contexts form a per-thread stack, innermost last; a `None` entry (a suspension) makes the
thread build graphs again until it is left, and records on no tape (the nodes it builds are an eager op's).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

_state = threading.local()


class EagerContext:
    """One eager scope: the device its kernels run on, their shared step, the active tapes (innermost last)."""

    __slots__ = ("device", "step", "tapes")

    def __init__(self, device: Any, step: Any) -> None:
        self.device = device
        self.step = step
        self.tapes: list[Any] = []


def _stack() -> list[EagerContext | None]:
    stack = getattr(_state, "stack", None)
    if stack is None:
        stack = _state.stack = []
    return stack


def current() -> EagerContext | None:
    """The eager context this thread executes in (None: it builds graphs)."""
    stack = getattr(_state, "stack", None)
    return stack[-1] if stack else None


def executing_eagerly() -> bool:
    return current() is not None


def active_tapes() -> list[Any]:
    """The tapes that record the ops created now on this thread, innermost last (entering a tape appends to
    this list): the eager context's, else the graph's; none while an eager op's node is built."""
    stack = getattr(_state, "stack", None)
    if stack:
        return stack[-1].tapes if stack[-1] is not None else []
    tapes = getattr(_state, "graph_tapes", None)
    if tapes is None:
        tapes = _state.graph_tapes = []
    return tapes


def variable_accessed(variable: Any) -> None:
    """A trainable variable read now joins what each active tape that watches accessed variables watches (TF's
    variable_accessed)."""
    if variable.trainable:
        for tape in active_tapes():
            tape.variable_accessed(variable)


def building_eager_op() -> bool:
    """Whether the node being built is an eager op's (TF infers no shapes for those: the kernel checks)."""
    stack = getattr(_state, "stack", None)
    return bool(stack) and stack[-1] is None


@contextlib.contextmanager
def eager_mode(context: EagerContext) -> Iterator[EagerContext]:
    """Ops created inside run at once in `context`."""
    stack = _stack()
    stack.append(context)
    try:
        yield context
    finally:
        stack.pop()


@contextlib.contextmanager
def building() -> Iterator[None]:
    """Ops created inside join graphs again (an eager op's own node, and what converting its inputs adds)."""
    stack = _stack()
    stack.append(None)
    try:
        yield
    finally:
        stack.pop()
