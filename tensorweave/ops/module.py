"""`tf.Module`: a named container of variables and other modules, found by walking its attributes.

A module enters its name scope once, when it is made, so the scope is made unique in the graph then
('dense', 'dense_1/'); `name_scope` and methods wrapped by `with_name_scope` re-enter that exact scope.
What a module holds is found by walking its attributes in sorted order, into lists, tuples and dicts, then
into the modules found, each object reported once.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave.framework import nest
from tensorweave.framework.graph import get_default_graph
from tensorweave.ops.variables import Variable
from tensorweave.platform.tf_export import tf_export


class _ModuleNameScope:
    """Re-enters a module's scope (TF1's name scope object, whose `name` is the scope string)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._scopes: list[Any] = []

    def __enter__(self) -> str:
        scope = get_default_graph().name_scope(self.name)
        self._scopes.append(scope)
        return scope.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._scopes.pop().__exit__(*exc)


def _snake_case(class_name: str) -> str:
    """'HTTPServer' -> 'http_server', 'MyMod' -> 'my_mod': a word starts at a capital after a lower-case
    letter or digit, and at the last capital of a run that a lower-case letter follows."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])|(?<=.)([A-Z])(?=[a-z])", r"_\1\2", class_name).lower()


@tf_export("Module")
class Module:
    """Base neural network module class: a name scope, and the variables and submodules of its attributes."""

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = _snake_case(type(self).__name__)
        elif not name.isidentifier():
            raise ValueError(f"'{name}' is not a valid module name. Module names must be valid Python identifiers "
                             "(e.g. a valid class name).")
        self._name = name
        with get_default_graph().name_scope(name) as scope:
            self._name_scope = _ModuleNameScope(scope)

    @property
    def name(self) -> str:
        return self._name

    @property
    def name_scope(self) -> _ModuleNameScope:
        """The scope this module's ops are made under (entered with `with module.name_scope:`)."""
        return self._name_scope

    @property
    def variables(self) -> tuple[Variable, ...]:
        """Every variable of this module and its submodules, each once."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple[Variable, ...]:
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple[Module, ...]:
        """Every module this one holds, directly or through other modules, each once."""
        return tuple(self._flatten(predicate=lambda m: isinstance(m, Module)))

    def _flatten(self, recursive: bool = True, predicate: Callable[[Any], bool] | None = None,
                 attribute_traversal_key: Callable[[str], Any] | None = None, with_path: bool = False,
                 expand_composites: bool = False) -> Iterator[Any]:
        """What `predicate` accepts among the attributes' contents (every leaf by default), this module's first
        then its submodules'; with `with_path`, (attribute path, leaf) pairs, repeats included."""
        return _walk(self, (), recursive, predicate or (lambda _: True), attribute_traversal_key, with_path,
                     set(), {id(self)})

    @classmethod
    def with_name_scope(cls, method: Callable[..., Any]) -> Callable[..., Any]:
        """Decorate a method to run it in its module's name scope."""
        @functools.wraps(method)
        def in_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return in_scope


def _is_variable(value: Any) -> bool:
    return isinstance(value, Variable)


def _walk(module: Module, path: tuple, recursive: bool, predicate: Callable[[Any], bool],
          key: Callable[[str], Any] | None, with_path: bool, seen: set[int], visited: set[int]) -> Iterator[Any]:
    submodules = []
    attributes = vars(module)
    for name in sorted(attributes, key=key):
        for leaf_path, leaf in nest.flatten_with_tuple_paths(attributes[name]):
            leaf_path = path + (name,) + leaf_path
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module) and id(leaf) not in visited:
                submodules.append((leaf_path, leaf))
    for sub_path, submodule in submodules:
        visited.add(id(submodule))
        yield from _walk(submodule, sub_path, recursive, predicate, key, with_path, seen, visited)
