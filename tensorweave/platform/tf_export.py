"""The public API table: each TF1 name is declared once, where it is implemented (TF's `tf_export`).

An implementation module marks a public function or class with `@tf_export("math.add", "add")` (every
dotted name TF1 gives it: the namespace path, then the name) and a public value with `export_value`. The
`compat.v1` package and its sub-namespace modules hold no lists of names: each fills itself from this table
with `populate(namespace_dict, "nn")`, so `tf.nn.relu` exists because `relu` says it is `nn.relu`.

Invariant: a dotted name is declared once; declaring it again for another object is an error (two places
claiming one public name is a bug, not an override).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, MutableMapping
from types import ModuleType
from typing import Any, TypeVar

from tensorweave.platform.argument_checked_names import NAMES as _ARGUMENT_CHECKED

_T = TypeVar("_T")

# namespace ('' for the top level, 'nn', 'train', 'io.gfile', ...) -> public name -> object
_API: dict[str, dict[str, Any]] = {}


def _declare(value: Any, names: tuple[str, ...]) -> None:
    if not names:
        raise ValueError(f"no public name given for {value!r}")
    for dotted in names:
        namespace, _, name = dotted.rpartition(".")
        if not name.isidentifier():
            raise ValueError(f"'{dotted}' is not a dotted Python name")
        entries = _API.setdefault(namespace, {})
        if name in entries and entries[name] is not value:
            raise ValueError(f"tf.{dotted} is already declared for {entries[name]!r}")
        entries[name] = value


def tf_export(*names: str) -> Callable[[_T], _T]:
    """Declare the decorated function or class under each dotted TF1 name ('nn.relu', 'math.add', 'add'); a
    function TF checks the arguments of (argument_checked_names) comes back wrapped to word a call that does
    not fit its signature as TF does."""
    def declare(value: _T) -> _T:
        if inspect.isfunction(value) and _ARGUMENT_CHECKED.intersection(names):
            value = _checked_arguments(value)
        _declare(value, names)
        return value

    return declare


def _checked_arguments(fn: _T) -> _T:
    """`fn`, a TypeError from a call that does not bind to its signature worded as TF's C++ API dispatcher
    words it (it checks before the function runs; here the function is called and only such a call's error
    is reworded)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except TypeError:
            problem = _signature_problem(signature, args, kwargs)
            if problem is None:
                raise
            raise TypeError(problem) from None

    return wrapper  # type: ignore[return-value]


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


def export_value(value: Any, *names: str) -> None:
    """Declare a public value (a dtype, a constant, a protobuf class) under each dotted TF1 name."""
    _declare(value, names)


def names(namespace: str) -> dict[str, Any]:
    """The public names of one namespace and their objects (a copy)."""
    return dict(_API.get(namespace, {}))


def populate(module_globals: MutableMapping[str, Any], namespace: str) -> None:
    """Fill a namespace module's globals from the table. Its `__all__` gains the public names it got and the
    sub-namespace modules it holds (`tf.nn`, `tf.io.gfile`), what `import *` took before there was a table."""
    entries = _API.get(namespace, {})
    module_globals.update(entries)
    public = {name for name, value in module_globals.items()
              if not name.startswith("_") and (name in entries or isinstance(value, ModuleType))}
    module_globals["__all__"] = sorted(set(module_globals.get("__all__", ())) | public)
