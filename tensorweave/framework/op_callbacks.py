"""Op callbacks, as TF's `op_callbacks`: functions called right after an op is added to a graph, which may
replace the outputs the op's Python wrapper returns (`tf.debugging.enable_check_numerics` instruments a graph
this way).

A callback is `fn(op_type, inputs, attrs, outputs, op_name=None, graph=None)` returning None (outputs kept)
or as many tensors as `outputs`. Callbacks are per thread, as TF's: one added on a thread sees the ops built
on that thread. Invariant: while callbacks run, the ops they build are not passed to callbacks (no recursion).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

_state = threading.local()


def _callbacks() -> list[Callable[..., Any]]:
    if not hasattr(_state, "callbacks"):
        _state.callbacks = []
        _state.invoking = False
    return _state.callbacks


def add_op_callback(callback_fn: Callable[..., Any]) -> None:
    """Adds `callback_fn` on this thread (once: adding it again changes nothing)."""
    if callback_fn is None:
        raise ValueError("Passed callback function cannot be None.")
    if not callable(callback_fn):
        raise ValueError(f"Callback function passed to op_callback() is expected to be callable, but is not. "
                         f"Received {callback_fn}")
    callbacks = _callbacks()
    if callback_fn not in callbacks:
        callbacks.append(callback_fn)


def remove_op_callback(callback_fn: Callable[..., Any]) -> None:
    """Removes an added callback; KeyError if it was not added on this thread."""
    callbacks = _callbacks()
    if callback_fn not in callbacks:
        raise KeyError("The specified op callback has not been registered, and hence cannot be removed.")
    callbacks.remove(callback_fn)


def should_invoke_op_callbacks() -> bool:
    """Whether this thread has callbacks and is not already running them."""
    return bool(_callbacks()) and not _state.invoking


def invoke_op_callbacks(op_type: str, inputs: Sequence[Any], attrs: Any, outputs: Sequence[Any],
                        op_name: str | None = None, graph: Any = None) -> list[Any] | None:
    """Runs this thread's callbacks in order, each seeing the outputs the previous one returned; the final
    outputs, or None when no callback replaced them."""
    replaced = None
    _state.invoking = True
    try:
        for callback in list(_callbacks()):
            new_outputs = callback(op_type, inputs, attrs, outputs, op_name=op_name, graph=graph)
            if new_outputs is None:
                continue
            if len(new_outputs) != len(outputs):
                raise ValueError(f"The op callback returned {len(new_outputs)} tensors, which does not match "
                                 f"the original number of outputs of op {op_name} ({len(outputs)}).")
            replaced = outputs = list(new_outputs)
    finally:
        _state.invoking = False
    return replaced
