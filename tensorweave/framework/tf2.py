"""Which of TF2's global behaviours are on: the state behind `tf.disable_v2_behavior()`,
`tf.compat.v1.disable_eager_execution()` and the per-behaviour toggles.

TF keeps one base switch (`tf2.enabled()`, on in every TF 2.x install) and lets each behaviour (v2
TensorShape, resource variables, tensor equality, control flow v2) be forced either way on top of it. tensorweave keeps the
same two levels with one difference in the base: it is off until a program shows it was written for TF 2.x
graph mode, by calling `disable_eager_execution()` without `disable_v2_behavior()` (a program calling
neither was written for TF1, where graph mode was the default). Invariant: a behaviour forced by its own
toggle never follows the base switch again, as in TF, where the toggles set module globals.
"""

from __future__ import annotations

_BEHAVIORS = ("tensorshape", "resource_variables", "tensor_equality", "control_flow_v2")
_base = [False]  # tf2.enabled()
_base_forced = [False]  # set by enable/disable_v2_behavior: disable_eager_execution() no longer moves the base
_forced: dict[str, bool] = {}  # behaviour name -> forced value
BEHAVIOR: dict[str, bool] = dict.fromkeys(_BEHAVIORS, False)  # resolved after every change: read on hot paths


def _resolve() -> None:
    for name in _BEHAVIORS:
        BEHAVIOR[name] = _forced.get(name, _base[0])


def enabled() -> bool:
    """Whether TF2 behaviour is the base that each unforced behaviour follows."""
    return _base[0]


def set_enabled(on: bool) -> None:
    """Force the base switch (what `enable_v2_behavior`/`disable_v2_behavior` do through TF's `tf2.enable()`)."""
    _base[0] = on
    _base_forced[0] = True
    _resolve()


def adopt_tf2_defaults() -> None:
    """The program runs TF2's graph mode (`disable_eager_execution()` alone): TF2's defaults hold unless
    `enable_v2_behavior`/`disable_v2_behavior` already chose."""
    if not _base_forced[0]:
        _base[0] = True
        _resolve()


def behavior(name: str) -> bool:
    """Whether the TF2 form of one behaviour ("tensorshape", "resource_variables", "tensor_equality",
    "control_flow_v2") is on."""
    return BEHAVIOR[name]


def force(name: str, on: bool) -> None:
    """Force one behaviour, as its `tf.enable_*`/`tf.disable_*` toggle does."""
    _forced[name] = on
    _resolve()


def reset() -> None:
    """Back to the state at import (TF1 behaviour, nothing forced): tests isolate their mode with it."""
    _base[0] = False
    _base_forced[0] = False
    _forced.clear()
    _resolve()
