"""Elementwise math: unary functions, binary arithmetic, comparisons and logic with broadcasting (each op made
by `unary_op`/`binary_op`: one definition, shape function and kernel), complex parts and conjugation
(Real, Imag, Angle, Complex, ComplexAbs, Conj), Equal/NotEqual, Select/SelectV2 (`tf.where`), AddN and
SquaredDifference.

Importing this module installs the Tensor operator overloads of these ops (`+ - * / // % ** & | ^`, the
comparisons, unary `-`, `abs` and `~`), as TF's math_ops does; `@` is installed by `linalg_ops`. `abs`,
`pow`, `round` and `complex` are TF's public names here, so the builtins are spelled `builtins.*`.
AddV2, Sub, Mul and the comparisons compute with Python's operators, the same ufuncs on arrays: on NumPy
scalars (a loop's counter) they take NumPy's scalar fast path, ten times cheaper than a ufunc call.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.dispatch import add_dispatch_support
from tensorweave.framework.graph import Tensor, control_dependencies, convert_to_tensor, name_scope
from tensorweave.framework.indexed_slices import IndexedSlices, convert_to_tensor_or_indexed_slices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import constant_ops, fill_ops, indexing_ops, manipulation_ops, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.kernel_helpers import (
    C64,
    C128,
    F16,
    F32,
    F64,
    INTEGERS_LISTED,
    c_division,
    flush_denormals,
)
from tensorweave.ops.shape_helpers import broadcast_binary_shape, broadcast_shapes, unary_shape
from tensorweave.ops.special_kernels import erf32, erf64
from tensorweave.platform.tf_export import export_value, tf_export

_NUMBER = "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}"
_MIN_MAX = "{bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64}"
_FLOAT = "{bfloat16, half, float, double}"


def _binary_kernel(fn: Callable) -> Callable:
    def kernel(ctx: OpKernelContext, x: Any, y: Any) -> Any:
        try:
            return fn(x, y)
        except ValueError:
            if np.shape(x) != np.shape(y):
                raise errors.InvalidArgumentError(
                    ctx.node_def, None, f"Incompatible shapes: {tensor_shape.shape_string(np.shape(x))} vs. "
                    f"{tensor_shape.shape_string(np.shape(y))}") from None
            raise
    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def binary_op(name: str, types: str, fn: Callable, output: str = "T",
               kernel_types: tuple[dtypes.DType, ...] | None = None, **flags: bool) -> Op:
    """An elementwise binary op with broadcasting: one definition, shape function and kernel (existing, as
    TF's, for `kernel_types` only when given); `flags` are the OpDef's (`is_commutative=True`...)."""
    op = Op(name, inputs=["x: T", "y: T"], outputs=[f"z: {output}"], attrs=[f"T: {types}"], **flags)
    op.shape(broadcast_binary_shape)
    op.kernel("CPU", type_constraints=_kernel_constraint(kernel_types))(_binary_kernel(fn))
    return op


def _kernel_constraint(kernel_types: tuple[dtypes.DType, ...] | None) -> dict[str, tuple[dtypes.DType, ...]]:
    """The `T` constraint of a kernel TF registers for `kernel_types` only (none when None)."""
    return {} if kernel_types is None else {"T": kernel_types}


def unary_op(name: str, types: str, fn: Callable, output: str = "T", arg: str = "x", result: str = "y",
              kernel_types: tuple[dtypes.DType, ...] | None = None) -> Op:
    """An elementwise unary op: one definition, shape function and kernel (`arg`/`result` name TF's args;
    TF's kernel exists for `kernel_types` only, when given)."""
    op = Op(name, inputs=[f"{arg}: T"], outputs=[f"{result}: {output}"], attrs=[f"T: {types}"])
    op.shape(unary_shape)

    @op.kernel("CPU", type_constraints=_kernel_constraint(kernel_types))
    def kernel(ctx: OpKernelContext, x: Any) -> Any:
        return fn(x)

    return op


def _floor_divide(x: Any, y: Any) -> Any:
    """Integers round toward -inf; floats are floor(x / y), so inf // 2 is inf (NumPy's gives nan)."""
    if np.result_type(x, y).kind in "iu":
        if np.any(np.asarray(y) == 0):
            raise errors.InvalidArgumentError(None, None, "Integer division by zero")
        return np.floor_divide(x, y)
    return np.floor(np.true_divide(x, y))


def _floor_mod(x: Any, y: Any) -> Any:
    """The remainder with the divisor's sign; for floats the truncated remainder (fmod) moved into the
    divisor's sign, so -0.0 % 2.0 stays -0.0."""
    if np.result_type(x, y).kind in "iu":
        if np.any(np.asarray(y) == 0):
            raise errors.InvalidArgumentError(None, None, "Integer division by zero")
        return np.mod(x, y)
    remainder = np.fmod(x, y)
    return np.where((remainder != 0) & ((np.asarray(y) < 0) != (remainder < 0)), remainder + y, remainder)


def _power(x: Any, y: Any) -> Any:
    np.broadcast_shapes(np.shape(x), np.shape(y))  # incompatible shapes are reported before exponents
    if np.result_type(x, y).kind == "i" and np.any(np.asarray(y) < 0):
        raise errors.InvalidArgumentError(None, None, "Integers to negative integer powers are not allowed")
    return np.power(x, y)


def _add(x: Any, y: Any) -> Any:
    """x + y; strings concatenate, and a scalar result stays a (0-d) array of bytes."""
    total = np.add(x, y)
    return np.asarray(total, dtype=object) if x.dtype == object else total


Add = binary_op("Add", "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, string}",
                 _add)
AddV2 = binary_op("AddV2", "{bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "
                   "complex64, complex128}", operator.add, is_commutative=True, is_aggregate=True)
Sub = binary_op("Sub", "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128, "
                 "uint32, uint64}", operator.sub)
Mul = binary_op("Mul", _NUMBER, operator.mul, is_commutative=True)


def _true_divide(x: Any, y: Any) -> Any:
    """x / y; complex values as Eigen's packets divide them (the divisor scaled by its larger part, then x times
    its conjugate over its squared norm), so (3+4j) / 5 is exactly 0.6+0.8j, where NumPy's multiplies by a
    reciprocal (0.6000000000000001), and a zero or infinite divisor gives nan+nanj; in the last size % packet
    elements (Eigen's scalar loop) those come out as C's complex division gives them (`_c99_special_quotients`):
    (1+2j) / 0 is inf+infj there. Rounding differences of the scalar loop's finite quotients are not modelled."""
    if not (np.iscomplexobj(x) or np.iscomplexobj(y)):
        return np.true_divide(x, y)
    dtype = np.result_type(x, y)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    with np.errstate(all="ignore"):
        scale = np.maximum(np.abs(y.real), np.abs(y.imag))
        c, d = y.real / scale, y.imag / scale
        norm = c * c + d * d
        out = np.empty(np.broadcast_shapes(x.shape, y.shape), dtype)
        out.real = (x.real * c + x.imag * d) / norm / scale
        out.imag = (x.imag * c - x.real * d) / norm / scale
        tail = out.size % _COMPLEX_PACKET[dtype]
        if tail:
            flat = out.reshape(-1)
            flat[-tail:] = _c99_special_quotients(np.broadcast_to(x, out.shape).reshape(-1)[-tail:],
                                                  np.broadcast_to(y, out.shape).reshape(-1)[-tail:], flat[-tail:])
    return out


# Complex elements per packet of TF's CPU build (AVX, 32 bytes).
_COMPLEX_PACKET = {np.dtype(np.complex64): 4, np.dtype(np.complex128): 2}


def _c99_special_quotients(x: Any, y: Any, quotient: Any) -> Any:
    """`quotient` (x / y by the scaled formula) with the infinities and zeros C99's Annex G division (compiler-rt's
    __divdc3) recovers where the formula gives nan+nanj: a nonzero x over 0 is infinite ((1+2j) / 0 =
    inf+infj, 1 / 0 = inf+nanj), an infinite x over a finite y infinite, a finite x over an infinity 0."""
    a, b, c, d = x.real, x.imag, y.real, y.imag
    real, imag = quotient.real.copy(), quotient.imag.copy()
    lost = np.isnan(real) & np.isnan(imag)
    by_zero = lost & (c == 0) & (d == 0) & ~(np.isnan(a) & np.isnan(b))
    inf_c = np.copysign(np.inf, c).astype(c.dtype)
    real, imag = np.where(by_zero, inf_c * a, real), np.where(by_zero, inf_c * b, imag)
    lost &= ~by_zero

    def unit(v: Any) -> Any:  # +-1 for an infinity, +-0 otherwise
        return np.copysign(np.isinf(v).astype(v.dtype), v)

    infinite = lost & (np.isinf(a) | np.isinf(b)) & np.isfinite(c) & np.isfinite(d)
    real = np.where(infinite, np.inf * (unit(a) * c + unit(b) * d), real)
    imag = np.where(infinite, np.inf * (unit(b) * c - unit(a) * d), imag)
    vanishing = lost & ~infinite & (np.isinf(c) | np.isinf(d)) & np.isfinite(a) & np.isfinite(b)
    real = np.where(vanishing, 0 * (a * unit(c) + b * unit(d)), real)
    imag = np.where(vanishing, 0 * (b * unit(c) - a * unit(d)), imag)
    out = np.empty(real.shape, quotient.dtype)
    out.real, out.imag = real, imag
    return out


RealDiv = binary_op("RealDiv", _NUMBER, _true_divide,
                     kernel_types=(C128, C64, dtypes.bfloat16, F64, F16, F32))
FloorDiv = binary_op("FloorDiv", _NUMBER, _floor_divide,
                      kernel_types=(F64, dtypes.bfloat16, F16, F32) + INTEGERS_LISTED)
FloorMod = binary_op("FloorMod", "{int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, "
                      "double}", _floor_mod)
Pow = binary_op("Pow", "{bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128}", _power)
# Elements per vector packet of TF's CPU build (AVX, 32 bytes) for the types with a signed zero.
_PACKET = {np.dtype(np.float16): 16, np.dtype(np.float32): 8, np.dtype(np.float64): 4}


_SCALAR_ROW = 1024  # a scalar operand of a large extremum is given as a row this long


def _pick_with_scalar(pick: Callable, x: Any, y: Any, out: Any) -> Any:
    """pick(x, y, out=out), where y is a scalar of a large contiguous x's type, against a row of y's value by
    rows of x: the same values, but NumPy's loop with a scalar operand runs at half the speed (relu of a
    [12544, 32] float32 block 0.38 ns an element against 0.17)."""
    result = np.empty_like(x) if out is None else out
    flat_x, flat_out, row = x.reshape(-1), result.reshape(-1), np.full(_SCALAR_ROW, y, x.dtype)
    full = x.size // _SCALAR_ROW * _SCALAR_ROW
    pick(flat_x[:full].reshape(-1, _SCALAR_ROW), row, out=flat_out[:full].reshape(-1, _SCALAR_ROW))
    pick(flat_x[full:], row[:x.size - full], out=flat_out[full:])
    return result


def eigen_extremum(pick: Callable) -> Callable:
    """`pick` (np.maximum or np.minimum) as TF's CPU kernel ties: its packets give the second argument (as
    NumPy does), its scalar tail (the last size % packet elements) the first, so max(-0.0, 0.0) is -0.0
    only there (relu(-0.0) of a 4-element tensor is -0.0, of an 8-element one 0.0, as in TF 2.21)."""
    def extremum(x: Any, y: Any, out: Any = None) -> Any:
        if (isinstance(x, np.ndarray) and x.size >= 2 * _SCALAR_ROW and x.flags.c_contiguous
                and isinstance(y, np.generic) and y.dtype == x.dtype
                and (out is None or (out.shape == x.shape and out.dtype == x.dtype and out.flags.c_contiguous))):
            result = _pick_with_scalar(pick, x, y, out)
        else:
            result = np.asarray(pick(x, y, out=out))
        tail = result.size % _PACKET.get(result.dtype, 1)
        if tail:
            flat = result.reshape(-1)
            first = np.broadcast_to(x, result.shape).reshape(-1)[-tail:]
            second = np.broadcast_to(y, result.shape).reshape(-1)[-tail:]
            flat[-tail:] = pick(second, first)
            result = flat.reshape(result.shape)
        return result

    extremum.__name__ = pick.__name__
    return extremum


Maximum = binary_op("Maximum", _MIN_MAX, eigen_extremum(np.maximum))
Minimum = binary_op("Minimum", _MIN_MAX, eigen_extremum(np.minimum))
Less = binary_op("Less", "realnumbertype", operator.lt, output="bool")
LessEqual = binary_op("LessEqual", "realnumbertype", operator.le, output="bool")
Greater = binary_op("Greater", "realnumbertype", operator.gt, output="bool")
GreaterEqual = binary_op("GreaterEqual", "realnumbertype", operator.ge, output="bool")
LogicalAnd = Op("LogicalAnd", inputs=["x: bool", "y: bool"], outputs=["z: bool"], is_commutative=True)
LogicalAnd.shape(broadcast_binary_shape)
LogicalAnd.kernel("CPU")(_binary_kernel(np.logical_and))
LogicalOr = Op("LogicalOr", inputs=["x: bool", "y: bool"], outputs=["z: bool"], is_commutative=True)
LogicalOr.shape(broadcast_binary_shape)
LogicalOr.kernel("CPU")(_binary_kernel(np.logical_or))

_SIGNED = "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}"
_FLOAT_COMPLEX = "{bfloat16, half, float, double, complex64, complex128}"

Neg = unary_op("Neg", _SIGNED, np.negative)
Abs = unary_op("Abs", "{bfloat16, half, float, double, int8, int16, int32, int64}", np.abs)
Square = unary_op("Square", "{bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
                  "complex64, complex128}", np.square)
Invert = unary_op("Invert", "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}", np.invert)
export_value(Invert, "bitwise.invert")
_INTEGER = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
BitwiseAnd = binary_op("BitwiseAnd", _INTEGER, np.bitwise_and, is_commutative=True)
export_value(BitwiseAnd, "bitwise.bitwise_and")
BitwiseOr = binary_op("BitwiseOr", _INTEGER, np.bitwise_or, is_commutative=True)
export_value(BitwiseOr, "bitwise.bitwise_or")
BitwiseXor = binary_op("BitwiseXor", _INTEGER, np.bitwise_xor, is_commutative=True)
export_value(BitwiseXor, "bitwise.bitwise_xor")
PopulationCount = unary_op("PopulationCount", _INTEGER, output="uint8",  # bits of the two's complement pattern
                           fn=lambda x: np.bitwise_count(np.asarray(x).view(f"u{x.dtype.itemsize}")).astype(np.uint8))


def _clamped_shift(x: Any, y: Any) -> tuple[Any, Any]:
    """x, and y clamped to [0, bits of x): TF's kernels clamp an out-of-range shift instead of failing."""
    x, y = np.asarray(x), np.asarray(y)
    return x, np.clip(y, 0, x.dtype.itemsize * 8 - 1).astype(x.dtype)


def _left_shift(x: Any, y: Any) -> Any:
    x, y = _clamped_shift(x, y)
    unsigned = np.dtype(f"uint{x.dtype.itemsize * 8}")  # bits shifted out of a signed value wrap, as in C++
    return np.left_shift(x.astype(unsigned), y.astype(unsigned)).astype(x.dtype)


def _right_shift(x: Any, y: Any) -> Any:
    return np.right_shift(*_clamped_shift(x, y))  # arithmetic for signed types


LeftShift = binary_op("LeftShift", _INTEGER, _left_shift)
export_value(LeftShift, "bitwise.left_shift")
RightShift = binary_op("RightShift", _INTEGER, _right_shift)
export_value(RightShift, "bitwise.right_shift")
LogicalNot = Op("LogicalNot", inputs=["x: bool"], outputs=["y: bool"])
LogicalNot.shape(unary_shape)


@LogicalNot.kernel("CPU")
def _logical_not(ctx: OpKernelContext, x: Any) -> Any:
    return np.logical_not(x)


@tf_export("math.add", "add")
@add_dispatch_support
def add(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x + y elementwise with broadcasting (AddV2; Add for strings)."""
    with name_scope(name, "Add", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        return (Add if x.dtype.base_dtype == dtypes.string else AddV2)(x, y, name=scope)


@tf_export("math.subtract", "subtract")
@add_dispatch_support
def subtract(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Sub(x, y, name=name)


@tf_export("math.multiply", "multiply")
@add_dispatch_support
def multiply(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Mul(x, y, name=name)


@tf_export("math.reciprocal_no_nan")
def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """1 / x, and 0 wherever x is 0 (DivNoNan of a constant one)."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = constant_ops.constant(1, dtype=x.dtype.base_dtype, name="one")
        return DivNoNan(one, x, name=scope)


@tf_export("math.scalar_mul", "scalar_mul")
def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> Any:
    """`scalar` (converted to `x`'s dtype, and required to be 0-D) times `x`; of IndexedSlices, their values
    scaled (as TF does for gradients)."""
    scalar = convert_to_tensor(scalar, dtype=dtypes.as_dtype(x.dtype).base_dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
    if isinstance(x, IndexedSlices):
        return IndexedSlices(Mul(scalar, x.values, name=name), x.indices, x.dense_shape)
    return Mul(scalar, x, name=name)


@tf_export("math.negative", "negative")
@add_dispatch_support
def negative(x: Any, name: str | None = None) -> Tensor:
    return Neg(x, name=name)


@tf_export("math.abs", "abs")
@add_dispatch_support
def abs(x: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """|x|; complex values give their real magnitude (ComplexAbs)."""
    with name_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return ComplexAbs(x, Tout=x.dtype.real_dtype, name=scope)
        return Abs(x, name=scope)


@tf_export("math.square", "square")
@add_dispatch_support
def square(x: Any, name: str | None = None) -> Tensor:
    return Square(x, name=name)


@tf_export("math.maximum", "maximum")
@add_dispatch_support
def maximum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Maximum(x, y, name=name)


@tf_export("math.minimum", "minimum")
@add_dispatch_support
def minimum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Minimum(x, y, name=name)


@tf_export("realdiv")
def realdiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    return RealDiv(x, y, name=name)


@tf_export("math.floordiv", "floordiv")
@add_dispatch_support
def floordiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Floor division; floats are floored after dividing (TF1's `tf.floordiv`)."""
    with name_scope(name, "floordiv", [x, y]) as scope:
        return FloorDiv(x, y, name=scope)


@tf_export("floor_div")
def floor_div(x: Any, y: Any, name: str | None = None) -> Tensor:
    """TF1's raw `tf.floor_div`: the FloorDiv op, with no name scope of its own."""
    return FloorDiv(x, y, name=name)


@tf_export("math.floormod", "math.mod", "floormod", "mod")
@add_dispatch_support
def floormod(x: Any, y: Any, name: str | None = None) -> Tensor:
    return FloorMod(x, y, name=name)


@tf_export("math.pow", "pow")
@add_dispatch_support
def pow(x: Any, y: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    with name_scope(name, "Pow", [x]) as scope:
        return Pow(x, y, name=scope)


# Python 3 division's dtype per input dtype: a float type to cast integers to, None to divide as is; any
# other dtype is refused (in TF's order, which its error message lists).
_TRUEDIV_CASTS = {dtypes.uint8: dtypes.float32, dtypes.int8: dtypes.float32, dtypes.uint16: dtypes.float32,
                  dtypes.int16: dtypes.float32, dtypes.uint32: dtypes.float64, dtypes.int32: dtypes.float64,
                  dtypes.uint64: dtypes.float64, dtypes.int64: dtypes.float64, dtypes.bfloat16: None,
                  dtypes.float16: None, dtypes.float32: None, dtypes.float64: None, dtypes.complex64: None,
                  dtypes.complex128: None}


def _division_operands(x: Tensor, y: Tensor, caller: str) -> tuple[Tensor, Tensor]:
    """`x` and `y` (of one dtype) cast to the float type they divide in, or TF's TypeError naming `caller`."""
    if x.dtype.base_dtype != y.dtype.base_dtype:
        raise TypeError(f"`x` and `y` must have the same dtype, got {x.dtype.base_dtype!r} != "
                        f"{y.dtype.base_dtype!r}.")
    if x.dtype.base_dtype not in _TRUEDIV_CASTS:
        raise TypeError(f"Invalid dtype {x.dtype.base_dtype!r} in {caller}. Expected one of "
                        f"{{{', '.join(repr(d) for d in _TRUEDIV_CASTS)}}}.")
    target = _TRUEDIV_CASTS[x.dtype.base_dtype]
    if target is not None:
        x, y = cast(x, target), cast(y, target)
    return x, y


@tf_export("math.truediv", "truediv")
@add_dispatch_support
def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Python 3 division: integers are cast to float first (8/16-bit to float32, 32/64-bit to float64)."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        return RealDiv(*_division_operands(x, y, "__truediv__"), name=scope)


@tf_export("math.divide_no_nan", "div_no_nan")
def div_no_nan(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y (integers divided as `truediv` does), and 0 wherever y is 0; a Python `x` takes `y`'s dtype."""
    with name_scope(name, "div_no_nan", [x, y]) as scope:
        if not isinstance(x, Tensor) and isinstance(y, Tensor):
            y = convert_to_tensor(y, name="y")
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
        else:
            x = convert_to_tensor(x, name="x")
            y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        return DivNoNan(*_division_operands(x, y, "tf.math.divide_no_nan"), name=scope)


@tf_export("math.divide", "divide")
@add_dispatch_support
def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`tf.divide`: `x / y` (a Python `x` is converted first, to `y`'s dtype, outside any scope); with a
    `name`, truediv under that name, as TF's."""
    if name is not None:
        return truediv(x, y, name=name)
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=y.dtype.base_dtype if isinstance(y, Tensor) else None)
    return x / y


@tf_export("div")
def div(x: Any, y: Any, name: str | None = None) -> Tensor:
    """TF1's `tf.div`: Python 2 semantics (floor division on integers, real division otherwise)."""
    with name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        if x.dtype.is_floating or x.dtype.is_complex:
            return RealDiv(x, y, name=scope)
        return FloorDiv(x, y, name=scope)


@tf_export("math.less", "less")
@add_dispatch_support
def less(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Less(x, y, name=name)


@tf_export("math.less_equal", "less_equal")
@add_dispatch_support
def less_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return LessEqual(x, y, name=name)


@tf_export("math.greater", "greater")
@add_dispatch_support
def greater(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Greater(x, y, name=name)


@tf_export("math.greater_equal", "greater_equal")
@add_dispatch_support
def greater_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return GreaterEqual(x, y, name=name)


@tf_export("math.logical_and", "logical_and")
@add_dispatch_support
def logical_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    return LogicalAnd(x, y, name=name)


@tf_export("math.logical_or", "logical_or")
@add_dispatch_support
def logical_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    return LogicalOr(x, y, name=name)


@tf_export("math.logical_not", "logical_not")
@add_dispatch_support
def logical_not(x: Any, name: str | None = None) -> Tensor:
    return LogicalNot(x, name=name)


def _and(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`x & y`: logical for booleans, bitwise for integers (TF's and_)."""
    if x.dtype.base_dtype == dtypes.bool:
        return LogicalAnd(x, y, name=name)
    return BitwiseAnd(x, y)


def _or(x: Any, y: Any, name: str | None = None) -> Tensor:
    if x.dtype.base_dtype == dtypes.bool:
        return LogicalOr(x, y, name=name)
    return BitwiseOr(x, y)


def _xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    if x.dtype.base_dtype == dtypes.bool:
        return logical_xor(x, y, name=name)
    return BitwiseXor(x, y)


def _invert(x: Tensor) -> Tensor:
    return LogicalNot(x) if x.dtype.base_dtype == dtypes.bool else Invert(x)


@tf_export("math.logical_xor", "logical_xor")
@add_dispatch_support
def logical_xor(x: Any, y: Any, name: str = "LogicalXor") -> Tensor:
    """x ^ y for booleans, composed as TF does: (x | y) & !(x & y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# -- Unary math -------------------------------------------------------------------------------------

def _rsqrt(x: Any) -> Any:
    return 1 / np.sqrt(x)


def _sigmoid(x: Any) -> Any:
    """1 / (1 + e^-x). In float and double e^-x overflows only where the result is below the normal range (0,
    as TF's); half and bfloat16 take Eigen's generic e^x / (1 + e^x), each step rounded to the type."""
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    if x.dtype.itemsize >= 4:  # kernels run under quiet_numerics: the overflow warns nothing
        e = np.exp(-x)
        if type(e) is not np.ndarray:  # a 0-d input's scalar
            return 1 / (1 + e)
        e += 1  # in the new array: the same values as 1 / (1 + e), without two more temporaries
        return np.divide(1, e, out=e)
    e = np.exp(x)
    return np.where(np.isinf(e), x.dtype.type(1), e / (1 + e))


def _sign(x: Any) -> Any:
    """-1, 0 or 1; x / |x| for complex x (0 at 0), as TF."""
    if np.iscomplexobj(x):
        magnitude = np.abs(x)
        return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude)).astype(x.dtype)
    return np.sign(x)


def _erf(x: Any) -> Any:
    """TF's erf: its double kernel's form in float64; half and bfloat16 through its float one, as Eigen's."""
    return erf64(x) if x.dtype == F64 else erf32(x).astype(x.dtype)


Sqrt = unary_op("Sqrt", _FLOAT_COMPLEX, np.sqrt)
Rsqrt = unary_op("Rsqrt", _FLOAT_COMPLEX, _rsqrt)
Exp = unary_op("Exp", _FLOAT_COMPLEX, flush_denormals(np.exp))
Expm1 = unary_op("Expm1", _FLOAT_COMPLEX, flush_denormals(np.expm1))
Log = unary_op("Log", _FLOAT_COMPLEX, np.log)
Log1p = unary_op("Log1p", _FLOAT_COMPLEX, np.log1p)
Sin = unary_op("Sin", _FLOAT_COMPLEX, np.sin)
Cos = unary_op("Cos", _FLOAT_COMPLEX, np.cos)
Tan = unary_op("Tan", _FLOAT_COMPLEX, np.tan)
Tanh = unary_op("Tanh", _FLOAT_COMPLEX, np.tanh)
Sigmoid = unary_op("Sigmoid", _FLOAT_COMPLEX, flush_denormals(_sigmoid))
Sign = unary_op("Sign", _SIGNED, _sign)
ComplexAbs = Op("ComplexAbs", inputs=["x: T"], outputs=["y: Tout"],
                attrs=["T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"])
ComplexAbs.shape(unary_shape)


@ComplexAbs.kernel("CPU")
def _complex_abs(ctx: OpKernelContext, x: Any) -> Any:
    return ctx.xp.abs(x)


def _complex_part_op(name: str, fn: Callable) -> Op:
    """Real, Imag or Angle: a real tensor (float for complex64, double for complex128) from a complex one."""
    op = Op(name, inputs=["input: T"], outputs=["output: Tout"],
            attrs=["T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"])
    op.shape(unary_shape)
    op.kernel("CPU")(lambda ctx, input, Tout: fn(input))  # noqa: A006, N803 - TF's names
    return op


Real = _complex_part_op("Real", np.real)
Imag = _complex_part_op("Imag", np.imag)
Angle = _complex_part_op("Angle", np.angle)
Complex = Op("Complex", inputs=["real: T", "imag: T"], outputs=["out: Tout"],
             attrs=["T: {float, double} = DT_FLOAT", "Tout: {complex64, complex128} = DT_COMPLEX64"])
Complex.shape(broadcast_binary_shape)


def _make_complex(re: Any, im: Any) -> Any:
    """The parts set as they are (re + im·1j would make inf·1j's real part NaN)."""
    re, im = np.asarray(re), np.asarray(im)
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), np.complex64 if re.dtype == np.float32 else np.complex128)
    out.real, out.imag = re, im
    return out


_complex_kernel = _binary_kernel(_make_complex)
Complex.kernel("CPU")(lambda ctx, real, imag, Tout: _complex_kernel(ctx, real, imag))  # noqa: N803


@tf_export("math.real", "real")
def real(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's arg name
    """The real part of a complex tensor; a real numeric tensor is returned as it is."""
    with name_scope(name, "Real", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return Real(input, Tout=input.dtype.real_dtype, name=scope)
        if input.dtype.is_floating or input.dtype.is_integer or input.dtype.is_quantized:  # TF's is_numeric
            return input
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {input.dtype}")


@tf_export("math.imag", "imag")
def imag(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's arg name
    """The imaginary part of a complex tensor; zeros for a real one."""
    with name_scope(name, "Imag", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return Imag(input, Tout=input.dtype.real_dtype, name=scope)
        return fill_ops.zeros_like(input)


@tf_export("math.angle", "angle")
def angle(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's arg name
    """The argument of each complex element; pi for negative real values, 0 otherwise."""
    with name_scope(name, "Angle", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return Angle(input, Tout=input.dtype.real_dtype, name=scope)
        return where(input < 0, np.pi * fill_ops.ones_like(input), fill_ops.zeros_like(input))


@tf_export("dtypes.complex", "complex")
def complex(real: Any, imag: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """real + imag * 1j from two float32 (complex64) or two float64 (complex128) tensors."""
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    with name_scope(name, "Complex", [real, imag]) as scope:
        types = (real.dtype, imag.dtype)
        if types == (dtypes.float64, dtypes.float64):
            tout = dtypes.complex128
        elif types == (dtypes.float32, dtypes.float32):
            tout = dtypes.complex64
        else:
            raise TypeError(f"The `real` and `imag` components have incorrect types: {real.dtype.name} "
                            f"{imag.dtype.name}. They must be consistent, and one of "
                            f"{[dtypes.float32, dtypes.float64]}")
        return Complex(real, imag, Tout=tout, name=scope)


def _divide_no_nan(x: Any, y: Any) -> Any:
    """x / y, and 0 wherever y is 0 (even for a nan or inf x)."""
    zero = np.asarray(y) == 0
    return np.where(zero, 0, _true_divide(x, np.where(zero, 1, y))).astype(np.result_type(x, y), copy=False)


DivNoNan = binary_op("DivNoNan", "{half, float, bfloat16, double, complex64, complex128}", _divide_no_nan)


def _check_truncating_divisor(x: Any, y: Any) -> None:
    """An integer 0 divisor fails as TF's truncating kernels do: an InternalError, not FloorDiv's message."""
    if np.result_type(x, y).kind in "iu" and np.any(np.asarray(y) == 0):
        raise errors.InternalError(None, None, "Unexpected error in binary operator (only integer div and mod "
                                   "should have errors)")


def _truncate_divide(x: Any, y: Any) -> Any:
    """Integers round toward 0 (C++ division); floats are trunc(x / y)."""
    _check_truncating_divisor(x, y)
    if np.result_type(x, y).kind in "iu":
        return c_division(x, y)
    return np.trunc(np.true_divide(x, y))


def _truncate_mod(x: Any, y: Any) -> Any:
    """C++'s remainder: the sign of the dividend (fmod), for integers and floats."""
    _check_truncating_divisor(x, y)
    return np.fmod(x, y)


TruncateDiv = binary_op("TruncateDiv", _NUMBER, _truncate_divide,
                         kernel_types=(F64, F32, dtypes.bfloat16, F16) + INTEGERS_LISTED)
TruncateMod = binary_op("TruncateMod", "{int32, int64, bfloat16, half, float, double}", _truncate_mod,
                         kernel_types=(F64, F32, dtypes.int64, dtypes.int32))
Atan2 = Op("Atan2", inputs=["y: T", "x: T"], outputs=["z: T"], attrs=[f"T: {_FLOAT}"])
Atan2.shape(broadcast_binary_shape)
Atan2.kernel("CPU")(_binary_kernel(np.arctan2))
Asin = unary_op("Asin", _FLOAT_COMPLEX, np.arcsin)
Acos = unary_op("Acos", _FLOAT_COMPLEX, np.arccos)
Atan = unary_op("Atan", _FLOAT_COMPLEX, np.arctan)
Sinh = unary_op("Sinh", _FLOAT_COMPLEX, np.sinh)
Cosh = unary_op("Cosh", _FLOAT_COMPLEX, np.cosh)
Asinh = unary_op("Asinh", _FLOAT_COMPLEX, np.arcsinh)
Acosh = unary_op("Acosh", _FLOAT_COMPLEX, np.arccosh)
Atanh = unary_op("Atanh", _FLOAT_COMPLEX, np.arctanh)
Rint = unary_op("Rint", _FLOAT, np.rint, kernel_types=(F64, F32))  # half to even
def _reciprocal(x: Any) -> Any:
    """1 / x; complex values by Eigen's complex division (1+0j gives 1+0j, where NumPy's gives 1-0j)."""
    return _true_divide(np.ones((), x.dtype), x) if np.iscomplexobj(x) else np.reciprocal(x)


Reciprocal = unary_op("Reciprocal", _SIGNED, _reciprocal,
                        kernel_types=(C128, C64, F64, dtypes.bfloat16, F16, F32))
Round = unary_op("Round", _SIGNED, np.round,  # half to even
                   kernel_types=(dtypes.int64, dtypes.int32, dtypes.bfloat16, F64, F32, F16))
Floor = unary_op("Floor", _FLOAT, np.floor)
Ceil = unary_op("Ceil", _FLOAT, np.ceil)
IsNan = unary_op("IsNan", _FLOAT, np.isnan, output="bool")
IsInf = unary_op("IsInf", _FLOAT, np.isinf, output="bool")
IsFinite = unary_op("IsFinite", _FLOAT, np.isfinite, output="bool")
Erf = unary_op("Erf", _FLOAT, _erf)


@tf_export("truncatediv")
def truncatediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y rounded toward zero (C semantics), with broadcasting."""
    return TruncateDiv(x, y, name=name)


@tf_export("truncatemod")
def truncatemod(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The remainder of truncated division: the sign follows `x`."""
    return TruncateMod(x, y, name=name)


@tf_export("math.atan2", "atan2")
def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of (x, y), elementwise with broadcasting (TF's argument order: y first)."""
    return Atan2(y, x, name=name)


@tf_export("math.asin", "asin")
def asin(x: Any, name: str | None = None) -> Tensor:
    return Asin(x, name=name)


@tf_export("math.acos", "acos")
def acos(x: Any, name: str | None = None) -> Tensor:
    return Acos(x, name=name)


@tf_export("math.atan", "atan")
def atan(x: Any, name: str | None = None) -> Tensor:
    return Atan(x, name=name)


@tf_export("math.sinh", "sinh")
def sinh(x: Any, name: str | None = None) -> Tensor:
    return Sinh(x, name=name)


@tf_export("math.cosh", "cosh")
def cosh(x: Any, name: str | None = None) -> Tensor:
    return Cosh(x, name=name)


@tf_export("math.asinh", "asinh")
def asinh(x: Any, name: str | None = None) -> Tensor:
    return Asinh(x, name=name)


@tf_export("math.acosh", "acosh")
def acosh(x: Any, name: str | None = None) -> Tensor:
    return Acosh(x, name=name)


@tf_export("math.atanh", "atanh")
def atanh(x: Any, name: str | None = None) -> Tensor:
    return Atanh(x, name=name)


@tf_export("math.rint", "rint")
def rint(x: Any, name: str | None = None) -> Tensor:
    """The nearest integer (ties to even), as a float."""
    return Rint(x, name=name)


@tf_export("math.sqrt", "sqrt")
@add_dispatch_support
def sqrt(x: Any, name: str | None = None) -> Tensor:
    return Sqrt(x, name=name)


@tf_export("math.rsqrt", "rsqrt")
@add_dispatch_support
def rsqrt(x: Any, name: str | None = None) -> Tensor:
    return Rsqrt(x, name=name)


@tf_export("math.exp", "exp")
@add_dispatch_support
def exp(x: Any, name: str | None = None) -> Tensor:
    return Exp(x, name=name)


@tf_export("math.expm1", "expm1")
def expm1(x: Any, name: str | None = None) -> Tensor:
    return Expm1(x, name=name)


@tf_export("math.log", "log")
@add_dispatch_support
def log(x: Any, name: str | None = None) -> Tensor:
    return Log(x, name=name)


@tf_export("math.log1p", "log1p")
@add_dispatch_support
def log1p(x: Any, name: str | None = None) -> Tensor:
    return Log1p(x, name=name)


@tf_export("math.sin", "sin")
@add_dispatch_support
def sin(x: Any, name: str | None = None) -> Tensor:
    return Sin(x, name=name)


@tf_export("math.cos", "cos")
@add_dispatch_support
def cos(x: Any, name: str | None = None) -> Tensor:
    return Cos(x, name=name)


@tf_export("math.tan", "tan")
def tan(x: Any, name: str | None = None) -> Tensor:
    return Tan(x, name=name)


@tf_export("math.tanh", "nn.tanh", "tanh")
@add_dispatch_support
def tanh(x: Any, name: str | None = None) -> Tensor:
    return Tanh(x, name=name)


@tf_export("math.sigmoid", "nn.sigmoid", "sigmoid")
@add_dispatch_support
def sigmoid(x: Any, name: str | None = None) -> Tensor:
    return Sigmoid(x, name=name)


@tf_export("math.sign", "sign")
@add_dispatch_support
def sign(x: Any, name: str | None = None) -> Tensor:
    """-1, 0 or 1; complex values are divided by their magnitude (0 stays 0), composed as TF does."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return DivNoNan(x, cast(ComplexAbs(x, Tout=x.dtype.real_dtype), x.dtype), name=name)
    return Sign(x, name=name)


@tf_export("math.reciprocal", "reciprocal")
@add_dispatch_support
def reciprocal(x: Any, name: str | None = None) -> Tensor:
    return Reciprocal(x, name=name)


@tf_export("math.round", "round")
@add_dispatch_support
def round(x: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """Round half to even; integer tensors are returned as they are (no op), as in TF."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return Round(x, name=name)


@tf_export("math.floor", "floor")
@add_dispatch_support
def floor(x: Any, name: str | None = None) -> Tensor:
    return Floor(x, name=name)


@tf_export("math.ceil", "ceil")
@add_dispatch_support
def ceil(x: Any, name: str | None = None) -> Tensor:
    return Ceil(x, name=name)


@tf_export("debugging.is_nan", "math.is_nan", "is_nan")
@add_dispatch_support
def is_nan(x: Any, name: str | None = None) -> Tensor:
    return IsNan(x, name=name)


@tf_export("debugging.is_inf", "math.is_inf", "is_inf")
def is_inf(x: Any, name: str | None = None) -> Tensor:
    return IsInf(x, name=name)


@tf_export("debugging.is_finite", "math.is_finite", "is_finite")
@add_dispatch_support
def is_finite(x: Any, name: str | None = None) -> Tensor:
    return IsFinite(x, name=name)


@tf_export("math.erf", "erf")
def erf(x: Any, name: str | None = None) -> Tensor:
    return Erf(x, name=name)


# -- Conj --------------------------------------------------------------------------------------------


Conj = Op("Conj", inputs=["input: T"], outputs=["output: T"], attrs=["T: {complex64, complex128, variant} = DT_COMPLEX64"])
Conj.shape(unary_shape)


@Conj.kernel("CPU")
def _conj(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return ctx.xp.conj(input)


@tf_export("math.conj", "conj")
def conj(x: Any, name: str | None = None) -> Tensor:
    """The complex conjugate; real tensors are returned as they are (no op), as in TF; other dtypes are
    refused."""
    if isinstance(x, Tensor) and (x.dtype.is_floating or x.dtype.is_integer):
        return x
    with name_scope(name, "Conj", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return Conj(x, name=scope)
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


# -- Equal, NotEqual ---------------------------------------------------------------------------------


def _equality_op(name: str, fn: Callable) -> Op:
    """Elementwise ==/!= of any type (commutative); with `incompatible_shape_error` false, shapes that do not
    broadcast give a scalar (False for Equal, True for NotEqual) instead of an error."""
    op = Op(name, inputs=["x: T", "y: T"], outputs=["z: bool"],
            attrs=["T: type", "incompatible_shape_error: bool = true"], is_commutative=True)
    broadcast = _binary_kernel(fn)

    @op.shape
    def shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        try:
            return broadcast_binary_shape(ctx)
        except ValueError:
            if ctx.attr("incompatible_shape_error"):
                raise
            return [tensor_shape.unknown_shape()]

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, x: Any, y: Any, incompatible_shape_error: bool) -> Any:
        try:
            return broadcast(ctx, x, y)
        except errors.InvalidArgumentError:
            if incompatible_shape_error:
                raise
            return np.array(name == "NotEqual")

    return op


Equal = _equality_op("Equal", np.equal)
NotEqual = _equality_op("NotEqual", np.not_equal)


@tf_export("math.equal", "equal")
@add_dispatch_support
def equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x == y elementwise with broadcasting (TF1 keeps `Tensor.__eq__` as identity)."""
    return Equal(x, y, name=name)


@tf_export("math.not_equal", "not_equal")
@add_dispatch_support
def not_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x != y elementwise with broadcasting."""
    return NotEqual(x, y, name=name)


# -- Select, SelectV2 (tf.where) ---------------------------------------------------------------------

Select = Op("Select", inputs=["condition: bool", "t: T", "e: T"], outputs=["output: T"], attrs=["T: type"])


@Select.shape
def _select_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """`t` and `e` agree; `condition` has their shape, is a scalar, or is a vector along their first axis."""
    data = tensor_shape.merge_shapes(ctx.input_shape(1), ctx.input_shape(2))
    cond = ctx.input_shape(0)
    if cond.ndims is None or data.ndims is None or cond.ndims == 0:
        return [data]
    if cond.ndims != 1 or data.ndims == 0:
        return [tensor_shape.merge_shapes(data, cond)]
    tensor_shape.merge_shapes(cond, tensor_shape.TensorShape(data.as_list()[:1]))
    return [data]


def _same_shape_error(ctx: OpKernelContext, shapes: list, index: int) -> errors.InvalidArgumentError:
    """TF's ValidateInputsAreSameShape message, comparing input `index` with input 0."""
    return errors.InvalidArgumentError(
        ctx.node_def, None, f"Inputs to operation {ctx.name} of type {ctx.op} must have the same size and shape.  "
        f"Input 0: {tensor_shape.shape_string(shapes[0])} != input {index}: {tensor_shape.shape_string(shapes[index])}")


@Select.kernel("CPU")
def _select(ctx: OpKernelContext, condition: Any, t: Any, e: Any) -> Any:
    shapes = [np.shape(condition), np.shape(t), np.shape(e)]
    cond_shape, then_shape, else_shape = shapes
    if not cond_shape or (len(cond_shape) == 1 and len(then_shape) != 1):
        if then_shape != else_shape:
            raise errors.InvalidArgumentError(
                ctx.node_def, None, "'then' and 'else' must have the same size.  but received: "
                f"{tensor_shape.shape_string(then_shape)} vs. {tensor_shape.shape_string(else_shape)}")
        if not cond_shape:
            return t if condition else e
        if not then_shape:
            raise errors.InvalidArgumentError(ctx.node_def, None, "'then' must be at least a vector, but saw "
                                              f"shape: {tensor_shape.shape_string(then_shape)}")
        if then_shape[0] != cond_shape[0]:
            raise errors.InvalidArgumentError(ctx.node_def, None, "Number of batches of 'then' must match size of "
                                              f"'cond', but saw: {then_shape[0]} vs. {cond_shape[0]}")
        condition = condition.reshape(cond_shape + (1,) * (len(then_shape) - 1))
    else:
        for index in (1, 2):
            if shapes[index] != cond_shape:
                raise _same_shape_error(ctx, shapes, index)
    return ctx.xp.where(condition, t, e)


SelectV2 = Op("SelectV2", inputs=["condition: bool", "t: T", "e: T"], outputs=["output: T"], attrs=["T: type"])


@SelectV2.shape
def _select_v2_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    cond, t, e = ctx.input_shapes
    return [broadcast_shapes(cond, broadcast_shapes(t, e))]  # TF's order, for its messages


@SelectV2.kernel("CPU")
def _select_v2(ctx: OpKernelContext, condition: Any, t: Any, e: Any) -> Any:
    try:
        np.broadcast_shapes(np.shape(condition), np.shape(t), np.shape(e))
    except ValueError:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"condition {tensor_shape.shape_string(np.shape(condition))}, then "
            f"{tensor_shape.shape_string(np.shape(t))}, and else {tensor_shape.shape_string(np.shape(e))} must be "
            "broadcastable") from None
    return ctx.xp.where(condition, t, e)


@tf_export("where")
@add_dispatch_support
def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """TF1's `tf.where`: elements of `x` or `y` by `condition` (Select: a vector condition picks rows);
    with only `condition`, the coordinates of its true elements."""
    if x is None and y is None:
        return indexing_ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return Select(condition, x, y, name=name)


@tf_export("where_v2")
def where_v2(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """`tf.where_v2`: like `where`, with `condition`, `x` and `y` broadcast together (SelectV2)."""
    if x is None and y is None:
        return indexing_ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return SelectV2(condition, x, y, name=name)


# -- AddN, SquaredDifference -------------------------------------------------------------------------

AddN = Op("AddN", inputs=["inputs: N * T"], outputs=["sum: T"], attrs=["N: int >= 1", "T: {numbertype, variant}"],
          is_commutative=True, is_aggregate=True)


@AddN.shape
def _add_n_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Every input has the same shape: merged from the last input back, naming the one that disagrees."""
    shape = ctx.input_shape(-1)
    for i in builtins.range(ctx.num_inputs - 2, -1, -1):
        try:
            shape = tensor_shape.merge_shapes(ctx.input_shape(i), shape)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return [shape]


@AddN.kernel("CPU")
def _add_n(ctx: OpKernelContext, *inputs: Any) -> Any:
    """The sum; variant values (TensorLists, gradients of TF2's TensorArrays) add themselves."""
    if not hasattr(inputs[0], "dtype"):
        return functools.reduce(lambda a, b: a.add(b), inputs)
    first = np.shape(inputs[0])
    if len(inputs) == 2 and np.shape(inputs[1]) == first:  # a gradient's two paths: the common case, checked once
        return inputs[0] + inputs[1]
    shapes = [np.shape(x) for x in inputs]
    for index, shape in enumerate(shapes):
        if shape != first:
            raise _same_shape_error(ctx, shapes, index)
    if len(inputs) == 1:
        return inputs[0]
    total = inputs[0] + inputs[1]
    for x in inputs[2:]:  # into the one new array: a fresh one per input would cost a page-faulted buffer each
        total += x
    return total


@tf_export("math.add_n", "add_n")
def add_n(inputs: Any, name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one dtype and shape; one tensor is returned as it is.
    IndexedSlices are made dense as the op's inputs (`AddN/inputs_0`), as TF's."""
    inputs = [convert_to_tensor_or_indexed_slices(x) for x in inputs]
    if len(inputs) == 1:
        inputs = [convert_to_tensor(inputs[0])]
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    if len(inputs) == 1:
        return manipulation_ops.identity(inputs[0], name=name) if name else inputs[0]
    return AddN(inputs, name=name)


@tf_export("math.accumulate_n", "accumulate_n")
def accumulate_n(inputs: Any, shape: Any = None, tensor_dtype: Any = None, name: str | None = None) -> Tensor:
    """TF's `accumulate_n`, now `add_n` after its checks: a non-empty list or tuple of tensors of one dtype,
    whose shapes merge with `shape`."""
    error = ValueError("inputs must be a list of at least one Tensor with the same dtype and shape")
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise error
    inputs = [convert_to_tensor_or_indexed_slices(x) for x in inputs]
    if not all(isinstance(x, Tensor) for x in inputs) or not all(x.dtype == inputs[0].dtype for x in inputs):
        raise error
    merged = tensor_shape.unknown_shape() if shape is None else tensor_shape.as_shape(shape)
    for x in inputs:
        merged = merged.merge_with(x.shape)
    if tensor_dtype is not None and tensor_dtype != inputs[0].dtype:
        raise TypeError(f"The `tensor_dtype` argument is {tensor_dtype}, but `input` is of type {inputs[0].dtype}. "
                        "These must be equal. Try casting the input to the desired type.")
    return add_n(inputs, name=name)


def _squared_difference(x: Any, y: Any) -> Any:
    difference = np.subtract(x, y)
    return difference * np.conj(difference)


SquaredDifference = binary_op("SquaredDifference",
                               "{bfloat16, half, float, double, int32, int64, complex64, complex128}",
                               _squared_difference, is_commutative=True)


@tf_export("math.squared_difference", "squared_difference")
@add_dispatch_support
def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    """(x - y) * conj(x - y) elementwise, with broadcasting."""
    return SquaredDifference(x, y, name=name)


# -- Operator overloads ------------------------------------------------------------------------------


def binary_overload(func: Callable, op_name: str) -> tuple[Callable, Callable]:
    """`x <op> y` and `y <op> x` as TF defines them.

    The left form hands `y` to the op, which converts it with the tensor's dtype and raises TF's error
    when it cannot; the right operand still gets its own `__r<op>__` chance. The reflected form converts
    the Python operand to the tensor's dtype.
    """

    def binary(x: Tensor, y: Any) -> Any:
        with name_scope(None, op_name, [x, y]) as scope:
            try:
                return func(x, y, name=scope)
            except (TypeError, ValueError) as error:
                reflected_op = getattr(type(y), f"__r{op_name}__", None)
                if reflected_op is None:
                    raise
                try:
                    result = reflected_op(y, x)
                except (TypeError, ValueError):
                    raise error from None
                if result is NotImplemented:
                    raise
                return result

    def reflected(y: Tensor, x: Any) -> Any:
        with name_scope(None, op_name, [x, y]) as scope:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=scope)

    return binary, reflected


def _install_operators() -> None:
    binaries = {"add": add, "sub": subtract, "mul": multiply, "truediv": truediv, "floordiv": floordiv,
                "mod": floormod, "pow": pow, "and": _and, "or": _or, "xor": _xor}
    for op_name, func in binaries.items():
        binary, reflected = binary_overload(func, op_name)
        Tensor._override_operator(f"__{op_name}__", binary)
        Tensor._override_operator(f"__r{op_name}__", reflected)
    Tensor._override_operator("__lt__", lambda x, y: Less(x, y))
    Tensor._override_operator("__le__", lambda x, y: LessEqual(x, y))
    Tensor._override_operator("__gt__", lambda x, y: Greater(x, y))
    Tensor._override_operator("__ge__", lambda x, y: GreaterEqual(x, y))
    Tensor._override_operator("__neg__", lambda x: Neg(x))
    Tensor._override_operator("__abs__", lambda x: abs(x))
    Tensor._override_operator("__invert__", _invert)


_install_operators()


# -- Gradients -----------------------------------------------------------------------------------------
# The derivative of each op above (TF's math_grad); broadcasting binary ops sum each input's gradient back
# to its shape through `shape_ops.unbroadcast`. The dedicated grad ops (SigmoidGrad, TanhGrad, SqrtGrad,
# RsqrtGrad, ReciprocalGrad: `dy` times the derivative, from the op's output `y`) are TF's.

def _conj(x: Any) -> Any:
    """The conjugate of complex values; real ones as they are (np.conj would copy them)."""
    return np.conj(x) if x.dtype.kind == "c" else x


def _grad_op(name: str, fn: Callable) -> Op:
    op = Op(name, inputs=["y: T", "dy: T"], outputs=["z: T"], attrs=[f"T: {_FLOAT_COMPLEX}"])
    op.shape(broadcast_binary_shape)
    op.kernel("CPU")(_binary_kernel(fn))
    return op


SigmoidGrad = _grad_op("SigmoidGrad", lambda y, dy: dy * _conj(y * (1 - y)))
TanhGrad = _grad_op("TanhGrad", lambda y, dy: dy * _conj(1 - y * y))
SqrtGrad = _grad_op("SqrtGrad", lambda y, dy: dy * (np.asarray(0.5, np.asarray(y).dtype) / np.conj(y)))
RsqrtGrad = _grad_op("RsqrtGrad", lambda y, dy: dy * np.conj(y * y * y) * np.asarray(-0.5, np.asarray(y).dtype))
ReciprocalGrad = _grad_op("ReciprocalGrad", lambda y, dy: -dy * np.conj(y * y))


def _binary_inputs(op: Any, grad: Tensor) -> tuple[Tensor, Tensor, tuple, tuple]:
    x, y = op.inputs
    sx, sy = shape_ops.broadcast_gradient_args(x, y, grad)
    return x, y, sx, sy


def _same_full_shapes(x: Tensor, y: Tensor, grad: Any) -> bool:
    return (isinstance(grad, Tensor) and x.shape.is_fully_defined() and x.shape == y.shape == grad.shape)


@Add.gradient
@AddV2.gradient
def _add_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs
    if _same_full_shapes(x, y, grad):
        return [grad, grad]
    sx, sy = shape_ops.broadcast_gradient_args(x, y, grad)
    return [shape_ops.unbroadcast(grad, sx), shape_ops.unbroadcast(grad, sy)]


@Sub.gradient
def _sub_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs
    if _same_full_shapes(x, y, grad):
        return [grad, -grad]
    sx, sy = shape_ops.broadcast_gradient_args(x, y, grad)
    return [shape_ops.unbroadcast(grad, sx), shape_ops.unbroadcast(-grad, sy)]


@Mul.gradient
def _mul_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs
    if _same_full_shapes(x, y, grad) and grad.dtype in (dtypes.int32, dtypes.float32):
        return [Mul(grad, y), Mul(grad, x)]
    gx, gy = Mul(grad, conj(y)), Mul(conj(x), grad)
    sx, sy = shape_ops.broadcast_gradient_args(x, y, grad)
    return [shape_ops.unbroadcast(gx, sx), shape_ops.unbroadcast(gy, sy)]


@RealDiv.gradient
def _real_div_grad(op: Any, grad: Tensor) -> list:
    x, y, sx, sy = _binary_inputs(op, grad)
    x, y = conj(x), conj(y)
    gx = RealDiv(grad, y)
    gy = grad * RealDiv(RealDiv(-x, y), y)
    return [shape_ops.unbroadcast(gx, sx), shape_ops.unbroadcast(gy, sy)]


@DivNoNan.gradient
def _div_no_nan_grad(op: Any, grad: Tensor) -> list:
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    gx = div_no_nan(grad, y)
    gy = grad * div_no_nan(div_no_nan(-x, y), y)
    sx, sy = shape_ops.broadcast_gradient_args(x, y, grad)
    return [shape_ops.unbroadcast(gx, sx), shape_ops.unbroadcast(gy, sy)]


@FloorMod.gradient
def _floor_mod_grad(op: Any, grad: Tensor) -> list:
    x, y, sx, sy = _binary_inputs(op, grad)
    return [shape_ops.unbroadcast(grad, sx), shape_ops.unbroadcast(grad * -FloorDiv(x, y), sy)]


@FloorDiv.gradient
@TruncateDiv.gradient
def _integer_division_grad(op: Any, grad: Tensor) -> list:
    return [None, None]


@Pow.gradient
def _pow_grad(op: Any, grad: Tensor) -> list:
    """TF's _PowGrad: the mask's 0 converted as Greater's `y`, v1 `where` (Select), the shapes taken last."""
    x, y = conj(op.inputs[0]), conj(op.inputs[1])
    gx = grad * y * Pow(x, y - 1)
    mask = NotEqual(x, 0, incompatible_shape_error=True) if x.dtype.is_complex else Greater(x, 0)
    safe_x = Select(mask, x, fill_ops.ones_like(op.inputs[0]))
    log_x = Select(mask, Log(safe_x), fill_ops.zeros_like(op.inputs[0]))
    gy = grad * conj(op.outputs[0]) * log_x
    _, _, sx, sy = _binary_inputs(op, grad)
    return [shape_ops.unbroadcast(gx, sx), shape_ops.unbroadcast(gy, sy)]


def _min_max_grad(op: Any, grad: Tensor, selector: Op) -> list:
    x, y, sx, sy = _binary_inputs(op, grad)
    zeros = fill_ops.zeros_like(grad)
    xmask = selector(x, y)
    gx, gy = SelectV2(xmask, grad, zeros), SelectV2(xmask, zeros, grad)
    return [shape_ops.unbroadcast(gx, sx), shape_ops.unbroadcast(gy, sy)]


@Maximum.gradient
def _maximum_grad(op: Any, grad: Tensor) -> list:
    return _min_max_grad(op, grad, GreaterEqual)


@Minimum.gradient
def _minimum_grad(op: Any, grad: Tensor) -> list:
    return _min_max_grad(op, grad, LessEqual)


@SquaredDifference.gradient
def _squared_difference_grad(op: Any, grad: Tensor) -> list:
    x, y = op.inputs
    with control_dependencies([grad]):
        gx = scalar_mul(2.0, grad) * (x - y)
    if _same_full_shapes(x, y, grad):
        return [gx, -gx]
    gy = -gx
    sx, sy = shape_ops.broadcast_gradient_args(x, y, grad)
    return [shape_ops.unbroadcast(gx, sx), shape_ops.unbroadcast(gy, sy)]


@Atan2.gradient
def _atan2_grad(op: Any, grad: Tensor) -> list:
    y, x, sy, sx = _binary_inputs(op, grad)
    grad_inv = grad / (Square(x) + Square(y))
    return [shape_ops.unbroadcast(x * grad_inv, sy), shape_ops.unbroadcast(-y * grad_inv, sx)]


@AddN.gradient
def _add_n_grad(op: Any, grad: Tensor) -> list:
    return [grad] * len(op.inputs)


@Select.gradient
def _select_grad(op: Any, grad: Tensor) -> list:
    c, x = op.inputs[0], op.inputs[1]
    zeros = fill_ops.zeros_like(x)
    return [None, Select(c, grad, zeros), Select(c, zeros, grad)]


@SelectV2.gradient
def _select_v2_grad(op: Any, grad: Tensor) -> list:
    """The gradient routed to the taken side, each summed down to its input's shape from the output's."""
    c, x, y = op.inputs
    z = op.outputs[0]
    zeros = fill_ops.zeros([], dtype=grad.dtype)
    gx, gy = SelectV2(c, grad, zeros), SelectV2(c, zeros, grad)
    gx = shape_ops.unbroadcast(gx, shape_ops.broadcast_gradient_args(x, z)[0])
    return [None, gx, shape_ops.unbroadcast(gy, shape_ops.broadcast_gradient_args(y, z)[0])]


def _unary_grad(op_handle: Op, derivative: Callable[[Tensor, Tensor], Tensor]) -> None:
    """Register `grad * derivative(x, y)` (x the input, y the output, both conjugated) as the gradient."""
    def grad_fn(op: Any, grad: Tensor) -> list:
        return [grad * derivative(conj(op.inputs[0]), conj(op.outputs[0]))]
    grad_fn.__name__ = f"_{op_handle.name.lower()}_grad"
    op_handle.gradient(grad_fn)


@Square.gradient
def _square_grad(op: Any, grad: Tensor) -> list:
    """grad * (x * 2), the 2 made after the gradient exists, as TF's (so it is not computed too early)."""
    with control_dependencies([grad]):
        x = conj(op.inputs[0])
        return [multiply(grad, multiply(x, constant_ops.constant(2.0, dtype=x.dtype)))]


def _one(x: Tensor) -> Tensor:
    return constant_ops.constant(1, dtype=x.dtype)


_unary_grad(Abs, lambda x, y: Sign(x))
_unary_grad(Exp, lambda x, y: y)
_unary_grad(Expm1, lambda x, y: Exp(x))
_unary_grad(Log, lambda x, y: Reciprocal(x))
_unary_grad(Log1p, lambda x, y: Reciprocal(_one(x) + x))
_unary_grad(Sin, lambda x, y: Cos(x))
_unary_grad(Cos, lambda x, y: -Sin(x))
_unary_grad(Tan, lambda x, y: Square(Reciprocal(Cos(x))))
_unary_grad(Asin, lambda x, y: Rsqrt(_one(x) - Square(x)))
_unary_grad(Acos, lambda x, y: -Rsqrt(_one(x) - Square(x)))
_unary_grad(Atan, lambda x, y: Reciprocal(_one(x) + Square(x)))
_unary_grad(Sinh, lambda x, y: Cosh(x))
_unary_grad(Cosh, lambda x, y: Sinh(x))
_unary_grad(Asinh, lambda x, y: Reciprocal(Cosh(y)))
_unary_grad(Acosh, lambda x, y: Reciprocal(Sinh(y)))
_unary_grad(Atanh, lambda x, y: Reciprocal(_one(x) - Square(x)))
_unary_grad(Erf, lambda x, y: constant_ops.constant(2 / math.sqrt(math.pi), dtype=x.dtype) * Exp(-Square(x)))


@Neg.gradient
def _neg_grad(op: Any, grad: Tensor) -> list:
    return [-grad]


@Sign.gradient
def _sign_grad(op: Any, grad: Tensor) -> list:
    return [fill_ops.zeros_like(op.inputs[0])]


@Floor.gradient
@Ceil.gradient
@Round.gradient
@Rint.gradient
def _step_grad(op: Any, grad: Tensor) -> list:
    return [None]


@Sqrt.gradient
def _sqrt_grad(op: Any, grad: Tensor) -> list:
    return [SqrtGrad(op.outputs[0], grad)]


@Rsqrt.gradient
def _rsqrt_grad(op: Any, grad: Tensor) -> list:
    return [RsqrtGrad(op.outputs[0], grad)]


@Reciprocal.gradient
def _reciprocal_grad(op: Any, grad: Tensor) -> list:
    return [ReciprocalGrad(op.outputs[0], grad)]


@Tanh.gradient
def _tanh_grad(op: Any, grad: Tensor) -> list:
    return [TanhGrad(op.outputs[0], grad)]


@Sigmoid.gradient
def _sigmoid_grad(op: Any, grad: Tensor) -> list:
    return [SigmoidGrad(op.outputs[0], grad)]


@SigmoidGrad.gradient
def _sigmoid_grad_grad(op: Any, grad: Tensor) -> list:
    y, dy = op.inputs
    gb = grad * dy
    return [gb - constant_ops.constant(2, dtype=gb.dtype) * gb * y, SigmoidGrad(y, grad)]


@TanhGrad.gradient
def _tanh_grad_grad(op: Any, grad: Tensor) -> list:
    y, dy = op.inputs
    return [grad * constant_ops.constant(-2, dtype=grad.dtype) * dy * conj(y), TanhGrad(y, grad)]


@SqrtGrad.gradient
def _sqrt_grad_grad(op: Any, grad: Tensor) -> list:
    y, z = op.inputs[0], op.outputs[0]
    ga = grad / y
    return [-conj(z) * ga, constant_ops.constant(0.5, dtype=ga.dtype) * ga]


@ReciprocalGrad.gradient
def _reciprocal_grad_grad(op: Any, grad: Tensor) -> list:
    y, dy = op.inputs
    return [constant_ops.constant(-2, dtype=grad.dtype) * grad * dy * conj(y), ReciprocalGrad(y, grad)]


@Conj.gradient
def _conj_grad(op: Any, grad: Tensor) -> list:
    return [conj(grad)]


@Real.gradient
def _real_grad(op: Any, grad: Tensor) -> list:
    return [Complex(grad, fill_ops.zeros_like(grad), Tout=op.inputs[0].dtype)]


@Imag.gradient
def _imag_grad(op: Any, grad: Tensor) -> list:
    return [Complex(fill_ops.zeros_like(grad), grad, Tout=op.inputs[0].dtype)]


@Complex.gradient
def _complex_grad(op: Any, grad: Tensor) -> list:
    x, y, sx, sy = _binary_inputs(op, grad)
    return [shape_ops.unbroadcast(real(grad), sx), shape_ops.unbroadcast(imag(grad), sy)]


@Angle.gradient
def _angle_grad(op: Any, grad: Tensor) -> list:
    """TF's: -grad / (imag(x) + i real(x)), as a complex gradient."""
    x = op.inputs[0]
    z = reciprocal(complex(imag(x), real(x)))
    return [-complex(grad, constant_ops.constant(0, dtype=grad.dtype)) * z]


@ComplexAbs.gradient
def _complex_abs_grad(op: Any, grad: Tensor) -> list:
    """grad * x / |x|, 0 where x is 0."""
    y = op.outputs[0]
    return [div_no_nan(complex(grad, fill_ops.zeros_like(grad)) * op.inputs[0], complex(y, fill_ops.zeros_like(y)))]


@RsqrtGrad.gradient
def _rsqrt_grad_grad(op: Any, grad: Tensor) -> list:
    """RsqrtGrad(a, b) = -b a^3 / 2: its slopes are -3/2 b a^2 in a and RsqrtGrad(a, 1) in b."""
    a, b = op.inputs
    ca, cg = conj(a), conj(grad)
    return [constant_ops.constant(-1.5, dtype=grad.dtype) * cg * b * square(ca), RsqrtGrad(ca, grad)]


for _op_type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual", "LogicalAnd", "LogicalOr",
                 "LogicalNot", "IsNan", "IsInf", "IsFinite", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Invert",
                 "LeftShift", "RightShift", "PopulationCount"):
    NotDifferentiable(_op_type)
