"""Kernel helpers shared by the op families: TF's InvalidArgument error for a node (and the one for attrs that
no kernel supports), bfloat16 computed in float32 as TF's kernels do, C++'s truncating integer division, and
the dtype shorthands of kernels that TF registers for fewer types than their OpDef allows.

This module imports no op family, so every family uses it and none keeps a copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, op_registry, tensor_shape
from tensorweave.framework.op_kernel import OpKernelContext


def invalid_argument(ctx: OpKernelContext, message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(ctx.node_def, None, message)


def no_kernel_registered(ctx: OpKernelContext) -> errors.InvalidArgumentError:
    """TF's error for a node whose non-type attrs no CPU kernel is registered for. (TF fails every run of a
    graph holding such a node; here the runs that reach it.)"""
    attrs = op_registry.attrs_summary(op_registry.get(ctx.op).op_def, ctx.node_def)
    return invalid_argument(ctx, f"No OpKernel was registered to support Op '{ctx.op}' used by {{{{node {ctx.name}}}}} "
                    f"with these attrs: [{attrs}]")


def make_shape(ctx: OpKernelContext, shape: Any) -> tuple[int, ...]:
    """TF's tensor::MakeShape: the dims in a shape tensor, which must be a vector of non-negative sizes."""
    if np.ndim(shape) != 1:
        raise invalid_argument(ctx, f"shape must be a vector of {{int32,int64}}, got shape "
                                    f"{tensor_shape.shape_string(np.shape(shape))}")
    dims = tuple(int(d) for d in shape.tolist())
    for d in dims:
        if d < 0:
            raise invalid_argument(ctx, f"Dimension {d} must be >= 0")
    return dims


BFLOAT16 = np.dtype(dtypes.bfloat16.as_numpy_dtype)
EIGEN_BFLOAT16_PACKET = 8  # lanes of the packets in which TF's x86 Eigen kernels process bfloat16


def in_float32(x: Any) -> Any:
    """bfloat16 values as float32, in which several TF bfloat16 kernels (matmuls, sums, softmax) compute
    before rounding the result once (ml_dtypes' own would round every step, or return float32); other
    arrays as they are."""
    return x.astype(np.float32) if x.dtype == BFLOAT16 else x


def c_division(x: Any, y: Any) -> Any:
    """Integer division truncating toward zero, as C++ (TF's integer Mean); `y` is never 0."""
    x, y = np.asarray(x), np.asarray(y)
    q = x // y  # floor division, moved up one where it rounded a negative quotient down (no abs: INT64_MIN)
    return (q + ((x - q * y != 0) & ((x < 0) ^ (y < 0)))).astype(np.result_type(x, y))


F16, F32, F64, C64, C128 = dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128
# The integer kernels in the order TF lists their registrations (`kernel_types`).
INTEGERS_LISTED = (dtypes.int64, dtypes.int32, dtypes.int16, dtypes.int8, dtypes.uint64, dtypes.uint32,
                    dtypes.uint16, dtypes.uint8)


_ESCAPES = {ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t", ord('"'): '\\"', ord("'"): "\\'",
            ord("\\"): "\\\\"}


def c_escape(raw: bytes) -> str:
    """absl::CEscape: C escapes for quotes, backslash and \\n\\r\\t, octal for other unprintable bytes."""
    return "".join(_ESCAPES.get(b) or (chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in raw)


def utf8_safe_c_escape(raw: bytes, errors: str = "backslashreplace") -> str:
    """absl::Utf8SafeCEscape (how TF prints a string tensor's elements): c_escape, but bytes of 0x80 and up
    pass through, so UTF-8 text stays readable (a byte that is not UTF-8 decoded by `errors`: a Python escape,
    or "surrogateescape" to keep the byte for a string tensor)."""
    escaped = b"".join(_ESCAPES.get(b, "").encode() or (bytes([b]) if 0x20 <= b < 0x7F or b >= 0x80 else
                                                      f"\\{b:03o}".encode()) for b in raw)
    return escaped.decode("utf-8", errors)


_NORMAL_MINIMUM = {np.dtype(np.float32): np.finfo(np.float32).tiny, np.dtype(np.float64): np.finfo(np.float64).tiny}


def flush_denormals(fn: Any) -> Any:
    """`fn` with float32 and float64 results below the normal range flushed to (signed) zero, as TF's CPU
    kernels compute (its threads run with flush-to-zero set): for the exponential kernels, whose tiny results
    are common (exp(-100.) is 0 in TF, a denormal in NumPy) and cost more than the extra pass. The check is
    one reduction of the magnitudes (fmin passes NaN by); only a result with a value below the normal range
    (or exactly zero) takes the flushing pass."""
    def flushed(x: Any, *args: Any, **kwargs: Any) -> Any:
        y = fn(x, *args, **kwargs)
        tiny = _NORMAL_MINIMUM.get(getattr(y, "dtype", None))
        if tiny is None:
            return y
        if type(y) is not np.ndarray:
            return y * 0 if abs(y) < tiny else y
        if not y.size:
            return y
        magnitude = np.abs(y)
        if np.fmin.reduce(magnitude, axis=None) < tiny:
            y = np.where(magnitude < tiny, y * 0, y)[()]
        return y
    flushed.__name__ = getattr(fn, "__name__", "flushed")
    flushed.__doc__ = fn.__doc__
    return flushed
