"""tf.flags: absl's flags under TF's wrappers (TF1's keyword names, FLAGS that parse sys.argv on first read).

Private names keep this module's public names to absl's plus TF's replacements, as TF has it; each is declared
as `tf.flags.<name>` at the end.
"""

import functools as _functools
import logging as _logging
import sys as _sys
from collections.abc import Callable as _Callable
from typing import Any as _Any

import absl.flags as _absl_flags
from absl.flags import *  # noqa: F403 - tf.flags is absl.flags with a few names replaced
from absl.flags import FLAGS as _ABSL_FLAGS
from absl.flags import DEFINE_boolean as _absl_define_boolean
from absl.flags import DEFINE_float as _absl_define_float
from absl.flags import DEFINE_integer as _absl_define_integer
from absl.flags import DEFINE_string as _absl_define_string
from absl.flags import disclaim_key_flags as _disclaim_key_flags

from tensorweave.platform.tf_export import export_value as _export_value

_disclaim_key_flags()  # flags defined here belong to the defining module, as in TF

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _wrap_define_function(original_function: _Callable[..., _Any]) -> _Callable[..., _Any]:
    """absl's DEFINE_* accepting TF1's old keyword names (with TF's deprecation warning on the root logger)."""

    @_functools.wraps(original_function)
    def wrapper(*args: _Any, **kwargs: _Any) -> _Any:
        has_old_names = False
        for old_name, new_name in _RENAMED_ARGUMENTS.items():
            if old_name in kwargs:
                has_old_names = True
                kwargs[new_name] = kwargs.pop(old_name)
        if has_old_names:
            _logging.warning(
                "Use of the keyword argument names (flag_name, default_value, docstring) is deprecated, please "
                "use (name, default, help) instead.")
        return original_function(*args, **kwargs)

    return wrapper


class _FlagValuesWrapper:
    """absl's FLAGS, except that reading a flag before parsing parses sys.argv (absl raises instead)."""

    def __init__(self, flags_object: _Any) -> None:
        self.__dict__["__wrapped"] = flags_object

    def __getattribute__(self, name: str) -> _Any:
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["__wrapped"].__getattribute__(name)

    def __getattr__(self, name: str) -> _Any:
        wrapped = self.__dict__["__wrapped"]
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name: str, value: _Any) -> None:
        return self.__dict__["__wrapped"].__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        return self.__dict__["__wrapped"].__delattr__(name)

    def __dir__(self) -> _Any:
        return self.__dict__["__wrapped"].__dir__()

    def __getitem__(self, name: str) -> _Any:
        return self.__dict__["__wrapped"].__getitem__(name)

    def __setitem__(self, name: str, flag: _Any) -> None:
        return self.__dict__["__wrapped"].__setitem__(name, flag)

    def __len__(self) -> int:
        return self.__dict__["__wrapped"].__len__()

    def __iter__(self) -> _Any:
        return self.__dict__["__wrapped"].__iter__()

    def __str__(self) -> str:
        return self.__dict__["__wrapped"].__str__()

    def __call__(self, *args: _Any, **kwargs: _Any) -> _Any:
        return self.__dict__["__wrapped"].__call__(*args, **kwargs)


DEFINE_string = _wrap_define_function(_absl_define_string)
DEFINE_boolean = _wrap_define_function(_absl_define_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _wrap_define_function(_absl_define_float)
DEFINE_integer = _wrap_define_function(_absl_define_integer)

FLAGS = _FlagValuesWrapper(_ABSL_FLAGS)

# tf.flags: every public name of absl.flags, as this module has it (TF's replacements above)
for _name in _absl_flags.__all__:
    _export_value(globals()[_name], f"flags.{_name}")
