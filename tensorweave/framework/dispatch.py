"""TF's dispatch wrapper around public APIs: it sends a call whose arguments include a composite tensor
type (tf.RaggedTensor) to the handler registered for that API and type, and it gives a call that does not fit
the signature TF's messages.

Handlers are registered by the modules that own the types (`dispatch_for_types`), so a family of plain ops
never imports the composite types that dispatch through it.

TF checks a wrapped API's arguments in C++ before the Python function runs, so such a call fails with
"Got an unexpected keyword argument 'as_ref'" rather than Python's "f() got an unexpected ...". Here the
function is called directly, and only a TypeError from a call that does not bind is reworded.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


def add_dispatch_support(fn: _F) -> _F:
    """Wrap a public API so that calls with a registered composite type go to its handler, and calls that
    do not fit its signature fail with TF's messages."""
    signature = inspect.signature(fn)
    targets: list[tuple[tuple[type, ...], Callable]] = []

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        target = next((handler for types, handler in targets
                       if _any_instance(args, types) or _any_instance(kwargs.values(), types)), fn)
        try:
            return target(*args, **kwargs)
        except TypeError:
            problem = _signature_problem(signature, args, kwargs)
            if problem is None:
                raise
            raise TypeError(problem) from None

    wrapper._dispatch_targets = targets  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def _any_instance(values: Any, types: tuple[type, ...]) -> bool:
    """Whether an argument, or an element of a list or tuple argument, is one of `types`."""
    for value in values:
        if isinstance(value, types) or (isinstance(value, (list, tuple))
                                        and any(isinstance(v, types) for v in value)):
            return True
    return False


def dispatch_for_types(api: Callable, *types: type) -> Callable[[_F], _F]:
    """Register the decorated function to run in place of `api` (a function wrapped by add_dispatch_support)
    when any of its arguments is one of `types`; it takes `api`'s arguments."""
    targets = getattr(api, "_dispatch_targets", None)
    if targets is None:
        raise TypeError(f"{api.__name__} does not support dispatch")

    def register(handler: _F) -> _F:
        targets.append((types, handler))
        return handler

    return register


def _signature_problem(signature: inspect.Signature, args: tuple, kwargs: dict) -> str | None:
    """TF's message for arguments that do not fit `signature`, or None when they do."""
    params = list(signature.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(args) > len(positional) and not any(p.kind == p.VAR_POSITIONAL for p in params):
        return f"Too many arguments were given. Expected {len(positional)} but got {len(args)}."
    bound_by_position = {p.name for p in positional[:len(args)]}
    takes_any_keyword = any(p.kind == p.VAR_KEYWORD for p in params)
    for name in kwargs:
        if name in bound_by_position:
            return f"Got multiple values for argument '{name}'"
        if name not in signature.parameters and not takes_any_keyword:
            return f"Got an unexpected keyword argument '{name}'"
    try:
        signature.bind(*args, **kwargs)
    except TypeError:
        return "Missing required positional argument"
    return None
