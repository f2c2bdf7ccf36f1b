"""`tf.make_template`: a function that creates its variables on the first call and reuses them after.

A template owns one variable scope, opened with reuse on every call after the first, so every call shares
the variables `tf.get_variable` made the first time (TF1's way to share the weights of, e.g., a tower).
"""

from __future__ import annotations

import functools
import traceback
from collections.abc import Callable
from typing import Any

from tensorweave.framework.graph import GraphKeys, get_collection, get_collection_ref
from tensorweave.ops import variable_scope as vs
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export


def _skip_common_stack_elements(stacktrace: list[str], base_case: list[str]) -> list[str]:
    """The frames of `stacktrace` after those it shares with `base_case` (at least its last one)."""
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


class Template:
    """Wraps `func` so that all its calls share the variables of its first (TF's `Template`)."""

    def __init__(self, name: str, func: Callable, create_scope_now: bool = False, unique_name: str | None = None,
                 custom_getter: Callable | None = None) -> None:
        if name is None:
            raise ValueError("name cannot be None.")
        self._func = func
        self._stacktrace = traceback.format_stack()[:-1]  # where the template was made, for errors in its calls
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._variable_scope: vs.VariableScope | None = None
        if create_scope_now:
            with vs._pure_variable_scope(unique_name or vs._get_unique_variable_scope(name),
                                         custom_getter=custom_getter) as scope:
                self._variable_scope = scope
        self._variables_created = False
        self._first_call = True

    def _call_func(self, args: tuple, kwargs: dict) -> Any:
        """`func`'s result; an error it raises gets TF's note of where the template was defined."""
        try:
            return self._call_func_checked(args, kwargs)
        except Exception as exc:
            trace = "".join(_skip_common_stack_elements(self._stacktrace, traceback.format_stack()))
            arg0 = exc.args[0] if exc.args else ""
            exc.args = (f"{arg0}\n\noriginally defined at:\n{trace}", *exc.args[1:])
            raise

    def _call_func_checked(self, args: tuple, kwargs: dict) -> Any:
        if not self._variables_created:
            if not self._first_call:  # a call from another thread while the first one runs
                return self._func(*args, **kwargs)
            self._first_call = False
            try:
                result = self._func(*args, **kwargs)
            except BaseException:
                self._first_call = True
                raise
            self._variables_created = True
            return result
        global_count = len(get_collection_ref(GraphKeys.GLOBAL_VARIABLES))
        trainable_count = len(get_collection_ref(GraphKeys.TRAINABLE_VARIABLES))
        result = self._func(*args, **kwargs)
        trainable = get_collection_ref(GraphKeys.TRAINABLE_VARIABLES)
        if len(trainable) != trainable_count:
            raise ValueError("Trainable variable created when calling a template after the first time, perhaps "
                             f"you used tf.Variable when you meant tf.get_variable: {trainable[trainable_count:]}")
        variables = get_collection_ref(GraphKeys.GLOBAL_VARIABLES)
        if len(variables) != global_count:
            tf_logging.info("New variables created when calling a template after the first time, perhaps you "
                            "used tf.Variable when you meant tf.get_variable: %s", variables[global_count:])
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._variable_scope is not None:
            with vs.variable_scope(self._variable_scope, reuse=not self._first_call):
                return self._call_func(args, kwargs)
        with vs.variable_scope(self._unique_name, self._name, custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    @property
    def name(self) -> str:
        return self._name

    @property
    def func(self) -> Callable:
        return self._func

    @property
    def variable_scope(self) -> vs.VariableScope | None:
        return self._variable_scope

    @property
    def var_scope(self) -> vs.VariableScope | None:
        return self._variable_scope

    @property
    def variable_scope_name(self) -> str | None:
        """The scope's name with a trailing '/', the prefix of every variable the template made."""
        if self._variable_scope is None:
            return None
        name = self._variable_scope.name
        return name if not name or name.endswith("/") else name + "/"

    def _variables_in(self, collection: str) -> list:
        return get_collection(collection, self.variable_scope_name) if self._variables_created else []

    @property
    def global_variables(self) -> list:
        return self._variables_in(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self) -> list:
        return self._variables_in(GraphKeys.LOCAL_VARIABLES)

    @property
    def trainable_variables(self) -> list:
        return self._variables_in(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self) -> list:
        trainable = set(self.trainable_variables)
        return [v for v in self.global_variables if v not in trainable]

    @property
    def variables(self) -> list:
        return self.global_variables + self.local_variables

    weights = variables
    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables


@tf_export("make_template")
def make_template(name_: str, func_: Callable, create_scope_now_: bool = False, unique_name_: str | None = None,
                  custom_getter_: Callable | None = None, **kwargs: Any) -> Template:
    """`func_` (with `kwargs` bound) as a Template: its first call creates variables in a scope named after
    `name_` (made unique, unless `unique_name_` is given), and later calls reuse them."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)
