"""`raw_ops`: every registered op, called by its TF type name with keyword arguments only, as `tf.raw_ops`.

`raw_ops.MatMul(a=x, b=y, transpose_b=True)` looks the `Op` handle up in the op registry when the attribute is
read, not when this module is imported, and builds the same node as calling the handle. That late binding is
how a family low in the import order (or a gradient written in an op's block) calls an op of a family above
it without importing that module, so imports between the op families go one way: the op only has to be
registered by the time the call runs, which it is once the op library (`tensorweave.compat.v1`) is imported.

As in TF, a raw op takes its inputs and the attrs not inferred from them by keyword (`name` too), refuses
positional arguments with TF's TypeError, and ops whose names start with an underscore are not listed.
"""

from __future__ import annotations

import builtins
import keyword
import re
import sys
from typing import Any

from tensorweave.framework import op_registry
from tensorweave.framework.op_registry import Op
from tensorweave.platform.tf_export import export_value

# The names TF's op generator prefixes with an underscore: Python's keywords and builtins (but `round`), and
# ops whose Python-defined namesakes they would clash with.
_RESERVED = (frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {
    "batch_norm_with_global_normalization", "clip_by_value", "fused_batch_norm", "histogram_fixed_width", "stack",
}) - {"round"}


def _snake_name(op_type: str) -> str:
    """TF's Python name for an op type (`BatchMatMulV2` -> `batch_mat_mul_v2`, `Conv2D` -> `conv2d`,
    `L2Loss` -> `l2_loss`), with a leading underscore where it is reserved (`Any` -> `_any`), as TF's op
    generator writes it: its TypeErrors name the op so."""
    snake = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=.)(?=[A-Z][a-z])", "_", op_type).lower()
    return f"_{snake}" if snake in _RESERVED else snake


_REDUCTION = {"reduction_indices": "axis"}
# The arguments TF's API definitions rename in tf.raw_ops (OpDef name -> public name). Tensorweave's own calls
# may still use the OpDef names.
_PUBLIC_NAMES = {
    "All": _REDUCTION, "Any": _REDUCTION, "EuclideanNorm": _REDUCTION, "Max": _REDUCTION, "Mean": _REDUCTION,
    "Min": _REDUCTION, "Prod": _REDUCTION, "Sum": _REDUCTION, "ExpandDims": {"dim": "axis"},
    "Select": {"t": "x", "e": "y"}, "Split": {"split_dim": "axis"}, "SplitV": {"split_dim": "axis"},
    "Squeeze": {"squeeze_dims": "axis"}, "Where": {"input": "condition"},
}


class RawOp:
    """An op called TF's raw way: keyword arguments only, checked against the OpDef's inputs and the attrs
    that its inputs do not determine."""

    def __init__(self, op: Op) -> None:
        self.op = op
        self.__name__ = _snake_name(op.name)
        op_def = op.op_def
        inferred = {attr for arg in op_def.input_args
                    for attr in (arg.type_attr, arg.number_attr, arg.type_list_attr) if attr}
        public = _PUBLIC_NAMES.get(op.name, {})
        self._internal = {name: internal for internal, name in public.items()}
        self.keys = ([public.get(arg.name, arg.name) for arg in op_def.input_args]
                     + [public.get(attr.name, attr.name) for attr in op_def.attrs if attr.name not in inferred]
                     + ["name"])
        self._required = [public.get(arg.name, arg.name) for arg in op_def.input_args] + [
            public.get(attr.name, attr.name) for attr in op_def.attrs
            if attr.name not in inferred and not attr.has_default]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args:
            raise TypeError(f"{self.__name__} only takes keyword args (possible keys: {self.keys}). Please pass "
                            "these args as kwargs instead.")
        kwargs = {self._internal.get(key, key) if key in self.keys else key: value for key, value in kwargs.items()}
        given = {public for public, internal in self._internal.items() if internal in kwargs} | set(kwargs)
        for key in kwargs:
            if key not in self.keys and key not in self._internal.values():
                raise TypeError(f"{self.__name__}() got an unexpected keyword argument '{key}'")
        missing = [key for key in self._required if key not in given]
        if missing:
            quoted = [f"'{key}'" for key in missing]
            listed = quoted[0] if len(quoted) == 1 else (
                f"{quoted[0]} and {quoted[1]}" if len(quoted) == 2 else f"{', '.join(quoted[:-1])}, and {quoted[-1]}")
            raise TypeError(f"{self.__name__}() missing {len(missing)} required positional "
                            f"argument{'s' if len(missing) > 1 else ''}: {listed}")
        return self.op(**kwargs)

    def __repr__(self) -> str:
        return f"<raw op {self.op.name}>"


def __getattr__(op_type: str) -> RawOp:
    if not op_type.startswith("_"):
        try:
            return RawOp(op_registry.get(op_type))
        except KeyError:
            pass
    raise AttributeError(f"module '{__name__}' has no attribute '{op_type}'")


def __dir__() -> list[str]:
    return sorted(name for name in op_registry.registered_ops() if not name.startswith("_"))


export_value(sys.modules[__name__], "raw_ops")
