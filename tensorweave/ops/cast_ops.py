"""Casts: the Cast op, `tf.cast` and TF1's `to_*` shorthands.

The lowest op family: it imports no other, so every family (the array families too) casts through it.
`tf.saturate_cast`, which clamps before casting, is in `clip_ops`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.hooks import Hook
from tensorweave.framework.indexed_slices import IndexedSlices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.framework.sparse_tensor import SparseTensor
from tensorweave.ops.kernel_helpers import EIGEN_BFLOAT16_PACKET
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export

Cast = Op("Cast", inputs=["x: SrcT"], outputs=["y: DstT"], attrs=["SrcT: type", "DstT: type",
                                                                  "Truncate: bool = false"])


@Cast.shape
def _cast_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


_SMALL_INTS = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16))
# Lanes of the output packets in which TF's x86 Eigen converts each float type to an 8/16-bit integer
_CAST_PACKET = {np.dtype(np.float32): 32, np.dtype(np.float64): 16, np.dtype(np.float16): 16}


def _float_to_small_int(x: np.ndarray, source: dtypes.DType, target: np.dtype) -> np.ndarray:
    """TF's float -> 8/16-bit integer cast on x86, where C++ leaves out-of-range values undefined: truncation
    to int32 (NaN, inf and values out of int32's range become INT32_MIN, as cvttps2dq), then, in Eigen's
    packets, saturation to the target's range; the last size % packet elements go through Eigen's scalar
    loop, which wraps instead. float64 and float16 reach uint8 through an unsigned 16-bit saturation read
    back as signed, so their values from 32768 up become 0."""
    packet = EIGEN_BFLOAT16_PACKET if source == dtypes.bfloat16 else _CAST_PACKET[x.dtype]
    wide = x.astype(np.float64 if x.dtype == np.float64 else np.float32).reshape(-1)
    as_int32 = np.where(np.abs(wide) < 2.0 ** 31, wide, -(2.0 ** 31)).astype(np.int32)
    limits = np.iinfo(target)
    scalar_start = as_int32.size // packet * packet
    packed = as_int32[:scalar_start]
    if target == np.uint8 and source in (dtypes.float64, dtypes.float16):
        packed = np.where(packed >= 2 ** 15, 0, packed)
    result = np.empty(as_int32.size, target)
    result[:scalar_start] = np.clip(packed, limits.min, limits.max)
    result[scalar_start:] = as_int32[scalar_start:].astype(target)
    return result.reshape(x.shape)


def _float_to_unsigned(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """TF's float -> uint32/uint64 cast on x86 (measured): a truncated value from -2**(bits-1) below 2**bits
    wraps modulo 2**bits; NaN, infinities and the rest become 2**(bits-1)."""
    bits = target.itemsize * 8
    whole = np.trunc(x.astype(np.float64))
    valid = (whole >= -(2.0 ** (bits - 1))) & (whole < 2.0 ** bits)
    out = np.full(x.shape, 2 ** (bits - 1), target)
    kept = whole[valid]
    small = kept < 2.0 ** 63
    wrapped = np.empty(kept.shape, target)
    wrapped[small] = kept[small].astype(np.int64).astype(target)  # C's conversion: modulo 2**bits
    wrapped[~small] = kept[~small].astype(np.uint64)
    out[valid] = wrapped
    if target == np.uint32 and x.dtype in (np.float32, np.float64):
        _uint32_scalar_tail(whole.reshape(-1), out.reshape(-1))
    return out


def _uint32_scalar_tail(whole: np.ndarray, out: np.ndarray) -> None:
    """The last size % 8 elements, which Eigen casts one at a time (measured): C's conversion through int64,
    its low 32 bits kept, so 5e9 becomes 705032704 and NaN, infinities and values past int64 become 0."""
    start = whole.size // 8 * 8
    tail = whole[start:]
    fits = np.abs(tail) < 2.0 ** 63
    out[start:] = np.where(fits, tail, 0).astype(np.int64).astype(np.uint32)


@Cast.kernel("CPU")
def _cast(ctx: OpKernelContext, x: Any, SrcT: dtypes.DType, DstT: dtypes.DType) -> Any:  # noqa: N803 - TF's attr names
    """NumPy's conversions (ml_dtypes' for bfloat16, which round to nearest even through float32 as TF)."""
    if {SrcT, DstT} & {dtypes.string, dtypes.resource, dtypes.variant}:
        raise errors.UnimplementedError(ctx.node_def, None, f"Cast {dtypes.type_string(SrcT)} to "
                                        f"{dtypes.type_string(DstT)} is not supported")
    target = np.dtype(DstT.as_numpy_dtype)
    if np.iscomplexobj(x) and not DstT.is_complex:
        x = np.real(x)
    x = np.asarray(x)
    if SrcT.is_floating and target in _SMALL_INTS:
        return _float_to_small_int(x, SrcT, target)
    if SrcT.is_floating and target in (np.dtype(np.uint32), np.dtype(np.uint64)):
        return _float_to_unsigned(x, target)
    return x.astype(target, copy=False)


# Whether a value is a ResourceVariable (its class lives above this module, with its ops).
is_resource_variable: Hook = Hook("is_resource_variable", "tensorweave.ops.resource_variable_ops")


@tf_export("dtypes.cast", "cast")
@add_dispatch_support
def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """`x` converted to `dtype` (no op when it already has it, as in TF: a tensor or resource variable of that
    dtype is returned itself)."""
    base_type = dtypes.as_dtype(dtype).base_dtype
    if (isinstance(x, Tensor) or is_resource_variable(x)) and x.dtype.base_dtype == base_type:
        return x
    with name_scope(name, "Cast", [x]) as scope:
        if isinstance(x, SparseTensor):  # the values cast, the structure kept, as TF's
            return SparseTensor(x.indices, cast(x.values, base_type, name=scope), x.dense_shape)
        if isinstance(x, IndexedSlices):
            return IndexedSlices(cast(x.values, base_type, name=scope), x.indices, x.dense_shape)
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex and base_type.is_floating:
            tf_logging.warning(f"You are casting an input of type {x.dtype.name} to an incompatible dtype "
                               f"{base_type.name}.  This will discard the imaginary part and may not be what you "
                               "intended.")
        if x.dtype.base_dtype == base_type:
            return x
        return Cast(x, DstT=base_type, name=scope)


@tf_export("to_float")
def to_float(x: Any, name: str = "ToFloat") -> Tensor:
    return cast(x, dtypes.float32, name=name)


@tf_export("to_int32")
def to_int32(x: Any, name: str = "ToInt32") -> Tensor:
    return cast(x, dtypes.int32, name=name)


@tf_export("to_int64")
def to_int64(x: Any, name: str = "ToInt64") -> Tensor:
    return cast(x, dtypes.int64, name=name)


@tf_export("to_double")
def to_double(x: Any, name: str = "ToDouble") -> Tensor:
    return cast(x, dtypes.float64, name=name)


@tf_export("to_bfloat16")
def to_bfloat16(x: Any, name: str = "ToBFloat16") -> Tensor:
    return cast(x, dtypes.bfloat16, name=name)


@tf_export("to_complex64")
def to_complex64(x: Any, name: str = "ToComplex64") -> Tensor:
    return cast(x, dtypes.complex64, name=name)


@tf_export("to_complex128")
def to_complex128(x: Any, name: str = "ToComplex128") -> Tensor:
    return cast(x, dtypes.complex128, name=name)


_DIFFERENTIABLE = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16, dtypes.complex64,
                   dtypes.complex128)


@Cast.gradient
def _cast_grad(op: Any, grad: Tensor) -> list:
    """Cast back to the source type between floating or complex types; none through integers or bool."""
    source = op.inputs[0].dtype.base_dtype
    if source in _DIFFERENTIABLE and grad.dtype.base_dtype in _DIFFERENTIABLE:
        return [cast(grad, source)]
    return [None]
