"""Sequences: the Range op and `tf.range`; a Python `range` converts to a Range op, as in TF.

`range` is TF's public name here, so this module spells the builtins `builtins.range` and `builtins.abs`.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import (
    Tensor,
    convert_to_tensor,
    name_scope,
    register_tensor_conversion_function,
)
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.kernel_helpers import F16, F32, F64
from tensorweave.platform.tf_export import tf_export

# -- Range -------------------------------------------------------------------------------------------


Range = Op("Range", inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"], outputs=["output: Tidx"],
           attrs=["Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, uint64} = "
                  "DT_INT32"])


_INT64_MAX = np.iinfo(np.int64).max


def _cpp_str(v: Any) -> str:
    """A number as TF's C++ messages print it: floats with six significant digits."""
    return f"{float(v):g}" if isinstance(v, (float, np.floating)) else str(v)


def _range_size(start: Any, limit: Any, delta: Any) -> int:
    """The length of [start, limit) in steps of a non-zero delta, with TF's checks and messages (written as
    TF's kernel writes them, so a NaN bound fails them)."""
    if delta > 0:
        if not start <= limit:
            raise ValueError(f"Requires start <= limit when delta > 0: {_cpp_str(start)}/{_cpp_str(limit)}")
    elif not start >= limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {_cpp_str(start)}/{_cpp_str(limit)}")
    if isinstance(start, (int, np.integer)):
        return -(-builtins.abs(int(limit) - int(start)) // builtins.abs(int(delta)))
    size = np.ceil(np.abs((limit - start) / delta))
    if size > _INT64_MAX:
        raise ValueError(f"Requires ((limit - start) / delta) <= {_INT64_MAX}")
    return int(size)


@Range.shape
def _range_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    for arg, shape in zip(("start", "limit", "delta"), ctx.input_shapes):
        if shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims}\n\t for '{arg}'")
    values = [ctx.input_value(i) for i in builtins.range(ctx.num_inputs)]
    if any(v is None for v in values):
        return [tensor_shape.TensorShape([None])]
    if ctx.attr("Tidx") == dtypes.float16:  # TF's shape function computes no half range
        raise ValueError(f"Unsupported dtype{dtypes.float16.as_datatype_enum}")
    start, limit, delta = (v.reshape(-1)[0] for v in values)
    if delta == 0:
        raise ValueError("Requires delta != 0")
    return [tensor_shape.TensorShape([_range_size(start, limit, delta)])]


@Range.kernel("CPU", type_constraints={"Tidx": (dtypes.int64, dtypes.int32, F64, F32, dtypes.bfloat16, F16)})
def _range(ctx: OpKernelContext, start: Any, limit: Any, delta: Any) -> Any:
    for arg, v in (("start", start), ("limit", limit), ("delta", delta)):
        if v.ndim != 0 and v.shape != (1,):
            raise errors.InvalidArgumentError(ctx.node_def, None, f"{arg} must be a scalar, not shape "
                                              f"{tensor_shape.shape_string(v.shape)}")
    start, limit, delta = (v.reshape(-1)[0] for v in (start, limit, delta))
    if delta == 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Requires delta != 0: {_cpp_str(delta)}")
    try:
        size = _range_size(start, limit, delta)
    except ValueError as e:
        raise errors.InvalidArgumentError(ctx.node_def, None, str(e)) from None
    return start + ctx.xp.arange(size, dtype=start.dtype) * delta  # start + i * delta in the op's type, as TF


_RANGE_TYPES = [dtypes.int32, dtypes.int64, dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64]


@tf_export("range")
def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001 - TF's name
          name: str = "range") -> Tensor:
    """[start, limit) in steps of `delta` (`range(n)` is [0, n)); without `dtype` the widest of the
    arguments' types wins, so ints give int32 and any float gives float32."""
    if limit is None:
        start, limit = 0, start
    with name_scope(name, "Range", [start, limit, delta]) as scope:
        args = [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dtype, name=arg)
                for arg, v in (("start", start), ("limit", limit), ("delta", delta))]
        if dtype is None:
            inferred = [a.dtype.base_dtype for a in args]
            if not all(t in _RANGE_TYPES for t in inferred):
                raise AssertionError  # TF asserts that every argument has one of these types
            dtype = max(inferred, key=_RANGE_TYPES.index)
        start, limit, delta = (cast(a, dtype) for a in args)
        return Range(start, limit, delta, name=scope)


def _range_conversion(value: builtins.range, dtype: Any = None, name: str | None = None,
                      as_ref: bool = False) -> Tensor:
    """A Python `range` converts to a Range op (`Range:0`), as in TF, not to a constant."""
    return range(value.start, value.stop, value.step, dtype=dtype, name=name)


register_tensor_conversion_function(builtins.range, _range_conversion)
