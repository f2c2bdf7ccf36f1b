"""TF's dispatch wrapper around public APIs: it sends a call whose arguments include a composite tensor
type (tf.RaggedTensor) to the handler registered for that API and type.

Handlers are registered by the modules that own the types (`dispatch_for_types`), so a family of plain ops
never imports the composite types that dispatch through it. (How a call that does not fit an API's signature
is worded is the API table's: platform/tf_export.py.)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


def add_dispatch_support(fn: _F) -> _F:
    """Wrap a public API so that calls with a registered composite type go to its handler."""
    targets: list[tuple[tuple[type, ...], Callable]] = []

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        target = next((handler for types, handler in targets
                       if _any_instance(args, types) or _any_instance(kwargs.values(), types)), fn)
        return target(*args, **kwargs)

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
