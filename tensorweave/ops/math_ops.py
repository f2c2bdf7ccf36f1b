"""Math ops: elementwise arithmetic, comparisons and unary functions with broadcasting, complex parts
(Real/Imag/Angle/Complex), MatMul/BatchMatMulV2/SparseMatMul, reductions, Cast, Select/SelectV2
(`tf.where`), AddN, ClipByValue, ArgMax/ArgMin, Cumsum/Cumprod, and the Tensor operator overloads (`+`, `*`,
`@`, `<`, ...) that TF installs from this module. Composite wrappers (clip_by_value, clip_by_norm,
saturate_cast, reduce_logsumexp, reduce_variance, count_nonzero, div_no_nan) build the same ops under the
same names as TF's."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import (
    Tensor,
    convert_to_tensor,
    name_scope,
    register_tensor_conversion_function,
)
from tensorweave.framework.indexed_slices import IndexedSlices, convert_to_tensor_or_indexed_slices
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import array_ops

_NUMBER = "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}"
_MIN_MAX = "{bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64}"
_FLOAT = "{bfloat16, half, float, double}"
_BFLOAT16 = np.dtype(dtypes.bfloat16.as_numpy_dtype)
_EIGEN_BFLOAT16_PACKET = 8  # lanes of the packets in which TF's x86 Eigen kernels process bfloat16


def _in_float32(x: Any) -> Any:
    """bfloat16 values as float32, in which several TF bfloat16 kernels (matmuls, sums, softmax) compute
    before rounding the result once (ml_dtypes' own would round every step, or return float32); other
    arrays as they are."""
    return x.astype(np.float32) if x.dtype == _BFLOAT16 else x


def _broadcast_shapes(x: tensor_shape.TensorShape, y: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """The broadcast of two partial shapes, or the ValueError of TF's C++ shape functions."""
    if x.ndims is None or y.ndims is None:
        return tensor_shape.unknown_shape()
    xs, ys = x.as_list(), y.as_list()
    n = max(len(xs), len(ys))
    xs = [1] * (n - len(xs)) + xs
    ys = [1] * (n - len(ys)) + ys
    dims = []
    for a, b in zip(xs, ys):
        if a == 1:
            dims.append(b)
        elif b == 1:
            dims.append(a)
        elif a is None or b is None:
            dims.append(a if b is None else b)
        elif a == b:
            dims.append(a)
        else:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return tensor_shape.TensorShape(dims)


def broadcast_static_shape(shape_x: tensor_shape.TensorShape,
                           shape_y: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """`tf.broadcast_static_shape`: the broadcast of two TensorShapes, failing with TF's Python message."""
    try:
        return _broadcast_shapes(shape_x, shape_y)
    except ValueError:
        raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
                         "pair they are either equal or one of them is 1. Received: "
                         f"{shape_x} and {shape_y}.") from None


def _broadcast_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_broadcast_shapes(ctx.input_shape(0), ctx.input_shape(1))]


def _unary_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


def _binary_kernel(fn: Callable) -> Callable:
    def kernel(ctx: OpKernelContext, x: Any, y: Any) -> Any:
        try:
            return fn(x, y)
        except ValueError:
            if np.shape(x) != np.shape(y):
                raise errors.InvalidArgumentError(
                    ctx.node_def, None, f"Incompatible shapes: {tensor_util.shape_string(np.shape(x))} vs. "
                    f"{tensor_util.shape_string(np.shape(y))}") from None
            raise
    kernel.__name__ = f"_{fn.__name__}_kernel"
    return kernel


def _binary_op(name: str, types: str, fn: Callable, output: str = "T",
               kernel_types: tuple[dtypes.DType, ...] | None = None, **flags: bool) -> Op:
    """An elementwise binary op with broadcasting: one definition, shape function and kernel (existing, as
    TF's, for `kernel_types` only when given); `flags` are the OpDef's (`is_commutative=True`...)."""
    op = Op(name, inputs=["x: T", "y: T"], outputs=[f"z: {output}"], attrs=[f"T: {types}"], **flags)
    op.shape(_broadcast_shape)
    op.kernel("CPU", type_constraints=_kernel_constraint(kernel_types))(_binary_kernel(fn))
    return op


def _kernel_constraint(kernel_types: tuple[dtypes.DType, ...] | None) -> dict[str, tuple[dtypes.DType, ...]]:
    """The `T` constraint of a kernel TF registers for `kernel_types` only (none when None)."""
    return {} if kernel_types is None else {"T": kernel_types}


def _unary_op(name: str, types: str, fn: Callable, output: str = "T", arg: str = "x", result: str = "y",
              kernel_types: tuple[dtypes.DType, ...] | None = None) -> Op:
    """An elementwise unary op: one definition, shape function and kernel (`arg`/`result` name TF's args;
    TF's kernel exists for `kernel_types` only, when given)."""
    op = Op(name, inputs=[f"{arg}: T"], outputs=[f"{result}: {output}"], attrs=[f"T: {types}"])
    op.shape(_unary_shape)

    @op.kernel("CPU", type_constraints=_kernel_constraint(kernel_types))
    def kernel(ctx: OpKernelContext, x: Any) -> Any:
        return fn(x)

    return op


def _c_division(x: Any, y: Any) -> Any:
    """Integer division truncating toward zero, as C++ (TF's integer Mean); `y` is never 0."""
    q = np.abs(x) // np.abs(y)
    return np.where((np.asarray(x) < 0) ^ (np.asarray(y) < 0), -q, q).astype(np.result_type(x, y))


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


Add = _binary_op("Add", "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128, string}",
                 _add)
AddV2 = _binary_op("AddV2", "{bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, "
                   "complex64, complex128}", np.add, is_commutative=True, is_aggregate=True)
Sub = _binary_op("Sub", "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128, "
                 "uint32, uint64}", np.subtract)
Mul = _binary_op("Mul", _NUMBER, np.multiply, is_commutative=True)
_F16, _F32, _F64, _C64, _C128 = dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128
# The integer kernels in the order TF lists their registrations (`kernel_types`).
_INTEGERS_LISTED = (dtypes.int64, dtypes.int32, dtypes.int16, dtypes.int8, dtypes.uint64, dtypes.uint32,
                    dtypes.uint16, dtypes.uint8)
RealDiv = _binary_op("RealDiv", _NUMBER, np.true_divide,
                     kernel_types=(_C128, _C64, dtypes.bfloat16, _F64, _F16, _F32))
FloorDiv = _binary_op("FloorDiv", _NUMBER, _floor_divide,
                      kernel_types=(_F64, dtypes.bfloat16, _F16, _F32) + _INTEGERS_LISTED)
FloorMod = _binary_op("FloorMod", "{int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, float, "
                      "double}", _floor_mod)
Pow = _binary_op("Pow", "{bfloat16, float, half, double, int8, int16, int32, int64, complex64, complex128}", _power)
Maximum = _binary_op("Maximum", _MIN_MAX, np.maximum)
Minimum = _binary_op("Minimum", _MIN_MAX, np.minimum)
Less = _binary_op("Less", "realnumbertype", np.less, output="bool")
LessEqual = _binary_op("LessEqual", "realnumbertype", np.less_equal, output="bool")
Greater = _binary_op("Greater", "realnumbertype", np.greater, output="bool")
GreaterEqual = _binary_op("GreaterEqual", "realnumbertype", np.greater_equal, output="bool")
LogicalAnd = Op("LogicalAnd", inputs=["x: bool", "y: bool"], outputs=["z: bool"], is_commutative=True)
LogicalAnd.shape(_broadcast_shape)
LogicalAnd.kernel("CPU")(_binary_kernel(np.logical_and))
LogicalOr = Op("LogicalOr", inputs=["x: bool", "y: bool"], outputs=["z: bool"], is_commutative=True)
LogicalOr.shape(_broadcast_shape)
LogicalOr.kernel("CPU")(_binary_kernel(np.logical_or))

_SIGNED = "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}"
_FLOAT_COMPLEX = "{bfloat16, half, float, double, complex64, complex128}"

Neg = _unary_op("Neg", _SIGNED, np.negative)
Abs = _unary_op("Abs", "{bfloat16, half, float, double, int8, int16, int32, int64}", np.abs)
Square = _unary_op("Square", "{bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
                  "complex64, complex128}", np.square)
Invert = _unary_op("Invert", "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}", np.invert)
_INTEGER = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
BitwiseAnd = _binary_op("BitwiseAnd", _INTEGER, np.bitwise_and, is_commutative=True)
BitwiseOr = _binary_op("BitwiseOr", _INTEGER, np.bitwise_or, is_commutative=True)
BitwiseXor = _binary_op("BitwiseXor", _INTEGER, np.bitwise_xor, is_commutative=True)
LogicalNot = Op("LogicalNot", inputs=["x: bool"], outputs=["y: bool"])
LogicalNot.shape(_unary_shape)


@LogicalNot.kernel("CPU")
def _logical_not(ctx: OpKernelContext, x: Any) -> Any:
    return np.logical_not(x)


def add(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x + y elementwise with broadcasting (AddV2; Add for strings)."""
    with name_scope(name, "Add", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        return (Add if x.dtype.base_dtype == dtypes.string else AddV2)(x, y, name=scope)


def subtract(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Sub(x, y, name=name)


def multiply(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Mul(x, y, name=name)


def reciprocal_no_nan(x: Any, name: str | None = None) -> Tensor:
    """1 / x, and 0 wherever x is 0 (DivNoNan of a constant one)."""
    with name_scope(name, "reciprocal_no_nan", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        one = array_ops.constant(1, dtype=x.dtype.base_dtype, name="one")
        return DivNoNan(one, x, name=scope)


def scalar_mul(scalar: Any, x: Tensor, name: str | None = None) -> Tensor:
    """`scalar` (converted to `x`'s dtype, and required to be 0-D) times `x`."""
    scalar = convert_to_tensor(scalar, dtype=dtypes.as_dtype(x.dtype).base_dtype, name="scalar")
    if scalar.shape.ndims != 0:
        raise ValueError(f"The input scalar must be a 0-D value. Received shape {scalar.shape}.")
    return Mul(scalar, x, name=name)


def negative(x: Any, name: str | None = None) -> Tensor:
    return Neg(x, name=name)


def abs(x: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """|x|; complex values give their real magnitude (ComplexAbs)."""
    with name_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            return ComplexAbs(x, Tout=x.dtype.real_dtype, name=scope)
        return Abs(x, name=scope)


def square(x: Any, name: str | None = None) -> Tensor:
    return Square(x, name=name)


def maximum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Maximum(x, y, name=name)


def minimum(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Minimum(x, y, name=name)


def realdiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    return RealDiv(x, y, name=name)


def floordiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Floor division; floats are floored after dividing (TF1's `tf.floordiv`)."""
    with name_scope(name, "floordiv", [x, y]) as scope:
        return FloorDiv(x, y, name=scope)


def floor_div(x: Any, y: Any, name: str | None = None) -> Tensor:
    """TF1's raw `tf.floor_div`: the FloorDiv op, with no name scope of its own."""
    return FloorDiv(x, y, name=name)


def floormod(x: Any, y: Any, name: str | None = None) -> Tensor:
    return FloorMod(x, y, name=name)


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


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Python 3 division: integers are cast to float first (8/16-bit to float32, 32/64-bit to float64)."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        return RealDiv(*_division_operands(x, y, "__truediv__"), name=scope)


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


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`tf.divide`: `x / y` (a Python `x` is converted first, to `y`'s dtype, outside any scope); with a
    `name`, truediv under that name, as TF's."""
    if name is not None:
        return truediv(x, y, name=name)
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=y.dtype.base_dtype if isinstance(y, Tensor) else None)
    return x / y


def div(x: Any, y: Any, name: str | None = None) -> Tensor:
    """TF1's `tf.div`: Python 2 semantics (floor division on integers, real division otherwise)."""
    with name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        if x.dtype.is_floating or x.dtype.is_complex:
            return RealDiv(x, y, name=scope)
        return FloorDiv(x, y, name=scope)


def less(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Less(x, y, name=name)


def less_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return LessEqual(x, y, name=name)


def greater(x: Any, y: Any, name: str | None = None) -> Tensor:
    return Greater(x, y, name=name)


def greater_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    return GreaterEqual(x, y, name=name)


def logical_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    return LogicalAnd(x, y, name=name)


def logical_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    return LogicalOr(x, y, name=name)


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


def logical_xor(x: Any, y: Any, name: str = "LogicalXor") -> Tensor:
    """x ^ y for booleans, composed as TF does: (x | y) & !(x & y)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)

# -- Unary math -------------------------------------------------------------------------------------

_erf_elementwise = np.frompyfunc(math.erf, 1, 1)


def _rsqrt(x: Any) -> Any:
    return 1 / np.sqrt(x)


def _sigmoid(x: Any) -> Any:
    """1 / (1 + e^-x), as exp(-log(1 + e^-x)) for real x so that no intermediate overflows."""
    if np.iscomplexobj(x):
        return 1 / (1 + np.exp(-x))
    if x.dtype == _BFLOAT16:  # Eigen's generic logistic, each step rounded to bfloat16
        e = np.exp(x)
        return np.where(np.isinf(e), x.dtype.type(1), e / (1 + e))
    return np.exp(-np.logaddexp(0, -x))


def _sign(x: Any) -> Any:
    """-1, 0 or 1; x / |x| for complex x (0 at 0), as TF."""
    if np.iscomplexobj(x):
        magnitude = np.abs(x)
        return np.where(magnitude == 0, 0, x / np.where(magnitude == 0, 1, magnitude)).astype(x.dtype)
    return np.sign(x)


def _erf(x: Any) -> Any:
    return np.asarray(_erf_elementwise(x), dtype=x.dtype)


Sqrt = _unary_op("Sqrt", _FLOAT_COMPLEX, np.sqrt)
Rsqrt = _unary_op("Rsqrt", _FLOAT_COMPLEX, _rsqrt)
Exp = _unary_op("Exp", _FLOAT_COMPLEX, np.exp)
Expm1 = _unary_op("Expm1", _FLOAT_COMPLEX, np.expm1)
Log = _unary_op("Log", _FLOAT_COMPLEX, np.log)
Log1p = _unary_op("Log1p", _FLOAT_COMPLEX, np.log1p)
Sin = _unary_op("Sin", _FLOAT_COMPLEX, np.sin)
Cos = _unary_op("Cos", _FLOAT_COMPLEX, np.cos)
Tan = _unary_op("Tan", _FLOAT_COMPLEX, np.tan)
Tanh = _unary_op("Tanh", _FLOAT_COMPLEX, np.tanh)
Sigmoid = _unary_op("Sigmoid", _FLOAT_COMPLEX, _sigmoid)
Sign = _unary_op("Sign", _SIGNED, _sign)
ComplexAbs = Op("ComplexAbs", inputs=["x: T"], outputs=["y: Tout"],
                attrs=["T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"])
ComplexAbs.shape(_unary_shape)


@ComplexAbs.kernel("CPU")
def _complex_abs(ctx: OpKernelContext, x: Any) -> Any:
    return ctx.xp.abs(x)


def _complex_part_op(name: str, fn: Callable) -> Op:
    """Real, Imag or Angle: a real tensor (float for complex64, double for complex128) from a complex one."""
    op = Op(name, inputs=["input: T"], outputs=["output: Tout"],
            attrs=["T: {complex64, complex128} = DT_COMPLEX64", "Tout: {float, double} = DT_FLOAT"])
    op.shape(_unary_shape)
    op.kernel("CPU")(lambda ctx, input, Tout: fn(input))  # noqa: A006, N803 - TF's names
    return op


Real = _complex_part_op("Real", np.real)
Imag = _complex_part_op("Imag", np.imag)
Angle = _complex_part_op("Angle", np.angle)
Complex = Op("Complex", inputs=["real: T", "imag: T"], outputs=["out: Tout"],
             attrs=["T: {float, double} = DT_FLOAT", "Tout: {complex64, complex128} = DT_COMPLEX64"])
Complex.shape(_broadcast_shape)


def _make_complex(re: Any, im: Any) -> Any:
    return np.add(re, np.multiply(im, 1j))  # float32 parts stay complex64 (NumPy 2's weak Python scalars)


_complex_kernel = _binary_kernel(_make_complex)
Complex.kernel("CPU")(lambda ctx, real, imag, Tout: _complex_kernel(ctx, real, imag))  # noqa: N803


def real(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's arg name
    """The real part of a complex tensor; a real numeric tensor is returned as it is."""
    with name_scope(name, "Real", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return Real(input, Tout=input.dtype.real_dtype, name=scope)
        if input.dtype.is_floating or input.dtype.is_integer or input.dtype.is_quantized:  # TF's is_numeric
            return input
        raise TypeError(f"input must be a numeric tensor, but got tensor with dtype {input.dtype}")


def imag(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's arg name
    """The imaginary part of a complex tensor; zeros for a real one."""
    with name_scope(name, "Imag", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return Imag(input, Tout=input.dtype.real_dtype, name=scope)
        return array_ops.zeros_like(input)


def angle(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's arg name
    """The argument of each complex element; pi for negative real values, 0 otherwise."""
    with name_scope(name, "Angle", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        if input.dtype.is_complex:
            return Angle(input, Tout=input.dtype.real_dtype, name=scope)
        return where(input < 0, np.pi * array_ops.ones_like(input), array_ops.zeros_like(input))


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
    return np.where(zero, 0, np.true_divide(x, np.where(zero, 1, y))).astype(np.result_type(x, y), copy=False)


DivNoNan = _binary_op("DivNoNan", "{half, float, bfloat16, double, complex64, complex128}", _divide_no_nan)


def _check_truncating_divisor(x: Any, y: Any) -> None:
    """An integer 0 divisor fails as TF's truncating kernels do: an InternalError, not FloorDiv's message."""
    if np.result_type(x, y).kind in "iu" and np.any(np.asarray(y) == 0):
        raise errors.InternalError(None, None, "Unexpected error in binary operator (only integer div and mod "
                                   "should have errors)")


def _truncate_divide(x: Any, y: Any) -> Any:
    """Integers round toward 0 (C++ division); floats are trunc(x / y)."""
    _check_truncating_divisor(x, y)
    if np.result_type(x, y).kind in "iu":
        return _c_division(x, y)
    return np.trunc(np.true_divide(x, y))


def _truncate_mod(x: Any, y: Any) -> Any:
    """C++'s remainder: the sign of the dividend (fmod), for integers and floats."""
    _check_truncating_divisor(x, y)
    return np.fmod(x, y)


TruncateDiv = _binary_op("TruncateDiv", _NUMBER, _truncate_divide,
                         kernel_types=(_F64, _F32, dtypes.bfloat16, _F16) + _INTEGERS_LISTED)
TruncateMod = _binary_op("TruncateMod", "{int32, int64, bfloat16, half, float, double}", _truncate_mod,
                         kernel_types=(_F64, _F32, dtypes.int64, dtypes.int32))
Atan2 = Op("Atan2", inputs=["y: T", "x: T"], outputs=["z: T"], attrs=[f"T: {_FLOAT}"])
Atan2.shape(_broadcast_shape)
Atan2.kernel("CPU")(_binary_kernel(np.arctan2))
Asin = _unary_op("Asin", _FLOAT_COMPLEX, np.arcsin)
Acos = _unary_op("Acos", _FLOAT_COMPLEX, np.arccos)
Atan = _unary_op("Atan", _FLOAT_COMPLEX, np.arctan)
Sinh = _unary_op("Sinh", _FLOAT_COMPLEX, np.sinh)
Cosh = _unary_op("Cosh", _FLOAT_COMPLEX, np.cosh)
Asinh = _unary_op("Asinh", _FLOAT_COMPLEX, np.arcsinh)
Acosh = _unary_op("Acosh", _FLOAT_COMPLEX, np.arccosh)
Atanh = _unary_op("Atanh", _FLOAT_COMPLEX, np.arctanh)
Rint = _unary_op("Rint", _FLOAT, np.rint, kernel_types=(_F64, _F32))  # half to even
Reciprocal = _unary_op("Reciprocal", _SIGNED, np.reciprocal,
                        kernel_types=(_C128, _C64, _F64, dtypes.bfloat16, _F16, _F32))
Round = _unary_op("Round", _SIGNED, np.round,  # half to even
                   kernel_types=(dtypes.int64, dtypes.int32, dtypes.bfloat16, _F64, _F32, _F16))
Floor = _unary_op("Floor", _FLOAT, np.floor)
Ceil = _unary_op("Ceil", _FLOAT, np.ceil)
IsNan = _unary_op("IsNan", _FLOAT, np.isnan, output="bool")
IsInf = _unary_op("IsInf", _FLOAT, np.isinf, output="bool")
IsFinite = _unary_op("IsFinite", _FLOAT, np.isfinite, output="bool")
Erf = _unary_op("Erf", _FLOAT, _erf)


def truncatediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x / y rounded toward zero (C semantics), with broadcasting."""
    return TruncateDiv(x, y, name=name)


def truncatemod(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The remainder of truncated division: the sign follows `x`."""
    return TruncateMod(x, y, name=name)


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of (x, y), elementwise with broadcasting (TF's argument order: y first)."""
    return Atan2(y, x, name=name)


def asin(x: Any, name: str | None = None) -> Tensor:
    return Asin(x, name=name)


def acos(x: Any, name: str | None = None) -> Tensor:
    return Acos(x, name=name)


def atan(x: Any, name: str | None = None) -> Tensor:
    return Atan(x, name=name)


def sinh(x: Any, name: str | None = None) -> Tensor:
    return Sinh(x, name=name)


def cosh(x: Any, name: str | None = None) -> Tensor:
    return Cosh(x, name=name)


def asinh(x: Any, name: str | None = None) -> Tensor:
    return Asinh(x, name=name)


def acosh(x: Any, name: str | None = None) -> Tensor:
    return Acosh(x, name=name)


def atanh(x: Any, name: str | None = None) -> Tensor:
    return Atanh(x, name=name)


def rint(x: Any, name: str | None = None) -> Tensor:
    """The nearest integer (ties to even), as a float."""
    return Rint(x, name=name)


def sqrt(x: Any, name: str | None = None) -> Tensor:
    return Sqrt(x, name=name)


def rsqrt(x: Any, name: str | None = None) -> Tensor:
    return Rsqrt(x, name=name)


def exp(x: Any, name: str | None = None) -> Tensor:
    return Exp(x, name=name)


def expm1(x: Any, name: str | None = None) -> Tensor:
    return Expm1(x, name=name)


def log(x: Any, name: str | None = None) -> Tensor:
    return Log(x, name=name)


def log1p(x: Any, name: str | None = None) -> Tensor:
    return Log1p(x, name=name)


def sin(x: Any, name: str | None = None) -> Tensor:
    return Sin(x, name=name)


def cos(x: Any, name: str | None = None) -> Tensor:
    return Cos(x, name=name)


def tan(x: Any, name: str | None = None) -> Tensor:
    return Tan(x, name=name)


def tanh(x: Any, name: str | None = None) -> Tensor:
    return Tanh(x, name=name)


def sigmoid(x: Any, name: str | None = None) -> Tensor:
    return Sigmoid(x, name=name)


def sign(x: Any, name: str | None = None) -> Tensor:
    """-1, 0 or 1; complex values are divided by their magnitude (0 stays 0), composed as TF does."""
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return DivNoNan(x, cast(ComplexAbs(x, Tout=x.dtype.real_dtype), x.dtype), name=name)
    return Sign(x, name=name)


def reciprocal(x: Any, name: str | None = None) -> Tensor:
    return Reciprocal(x, name=name)


def round(x: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """Round half to even; integer tensors are returned as they are (no op), as in TF."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return Round(x, name=name)


def floor(x: Any, name: str | None = None) -> Tensor:
    return Floor(x, name=name)


def ceil(x: Any, name: str | None = None) -> Tensor:
    return Ceil(x, name=name)


def is_nan(x: Any, name: str | None = None) -> Tensor:
    return IsNan(x, name=name)


def is_inf(x: Any, name: str | None = None) -> Tensor:
    return IsInf(x, name=name)


def is_finite(x: Any, name: str | None = None) -> Tensor:
    return IsFinite(x, name=name)


def erf(x: Any, name: str | None = None) -> Tensor:
    return Erf(x, name=name)


# -- MatMul, BatchMatMulV2, Conj --------------------------------------------------------------------

_MATMUL_TYPES = "{bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}"
# MatMul's and BatchMatMulV2's CPU kernels: no unsigned ones.
_MATMUL_KERNEL_TYPES = (dtypes.int64, dtypes.int32, dtypes.int16, _F64, _F32, dtypes.bfloat16, _F16, _C128, _C64)

MatMul = Op("MatMul", inputs=["a: T", "b: T"], outputs=["product: T"],
            attrs=["transpose_a: bool = false", "transpose_b: bool = false", f"T: {_MATMUL_TYPES}",
                   "grad_a: bool = false", "grad_b: bool = false"])


def _inner_dims_match(a: list, b: list) -> None:
    if a[-1] is not None and b[-2] is not None and a[-1] != b[-2]:
        raise ValueError(f"Dimensions must be equal, but are {a[-1]} and {b[-2]}")


@MatMul.shape
def _matmul_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    a, b = ctx.input_shape(0), ctx.input_shape(1)
    for s in (a, b):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims}")
    a = a.as_list() if a.ndims is not None else [None, None]
    b = b.as_list() if b.ndims is not None else [None, None]
    if ctx.attr("transpose_a"):
        a = a[::-1]
    if ctx.attr("transpose_b"):
        b = b[::-1]
    _inner_dims_match(a, b)
    return [tensor_shape.TensorShape([a[0], b[1]])]


@MatMul.kernel("CPU", expensive=True, type_constraints={"T": _MATMUL_KERNEL_TYPES})
def _matmul(ctx: OpKernelContext, a: Any, b: Any, transpose_a: bool, transpose_b: bool) -> Any:
    if a.ndim != 2 or b.ndim != 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"In[{0 if a.ndim != 2 else 1}] is not a matrix. "
                                          f"Instead it has shape {tensor_util.shape_string((a if a.ndim != 2 else b).shape)}")
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Matrix size-incompatible: In[0]: {tensor_util.shape_string(a.shape)}, "
            f"In[1]: {tensor_util.shape_string(b.shape)}")
    return ctx.xp.matmul(_in_float32(a), _in_float32(b)).astype(a.dtype, copy=False)


BatchMatMulV2 = Op("BatchMatMulV2", inputs=["x: T", "y: T"], outputs=["output: T"],
                   attrs=["T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, complex64, "
                          "complex128}", "adj_x: bool = false", "adj_y: bool = false",
                          "grad_x: bool = false", "grad_y: bool = false"])


@BatchMatMulV2.shape
def _batch_matmul_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    x, y = ctx.input_shape(0), ctx.input_shape(1)
    for s in (x, y):
        if s.ndims is not None and s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
    if x.ndims is None or y.ndims is None:
        return [tensor_shape.unknown_shape()]
    xs, ys = x.as_list(), y.as_list()
    if ctx.attr("adj_x"):
        xs[-2:] = xs[-1], xs[-2]
    if ctx.attr("adj_y"):
        ys[-2:] = ys[-1], ys[-2]
    _inner_dims_match(xs, ys)
    batch = _broadcast_shapes(tensor_shape.TensorShape(xs[:-2]), tensor_shape.TensorShape(ys[:-2]))
    return [batch.concatenate([xs[-2], ys[-1]])]


@BatchMatMulV2.kernel("CPU", expensive=True, type_constraints={"T": _MATMUL_KERNEL_TYPES})
def _batch_matmul(ctx: OpKernelContext, x: Any, y: Any, adj_x: bool, adj_y: bool) -> Any:
    xp = ctx.xp
    if x.ndim < 2 or y.ndim < 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"In[{0 if x.ndim < 2 else 1}] ndims must be >= 2: "
                                          f"{min(x.ndim, y.ndim)}")
    if x.shape[-2 if adj_x else -1] != y.shape[-1 if adj_y else -2]:  # TF names the inputs as given
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Matrix size-incompatible: In[0]: {tensor_util.shape_string(x.shape)}, "
            f"In[1]: {tensor_util.shape_string(y.shape)} {int(adj_x)} {int(adj_y)}")
    if adj_x:
        x = xp.conj(xp.swapaxes(x, -1, -2))
    if adj_y:
        y = xp.conj(xp.swapaxes(y, -1, -2))
    try:
        return xp.matmul(_in_float32(x), _in_float32(y)).astype(x.dtype, copy=False)
    except ValueError:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"In[0] and In[1] must have compatible batch dimensions: "
            f"{tensor_util.shape_string(x.shape)} vs. {tensor_util.shape_string(y.shape)}") from None


SparseMatMul = Op("SparseMatMul", inputs=["a: Ta", "b: Tb"], outputs=["product: float"],
                  attrs=["transpose_a: bool = false", "transpose_b: bool = false", "a_is_sparse: bool = false",
                         "b_is_sparse: bool = false", "Ta: {float, bfloat16} = DT_FLOAT",
                         "Tb: {float, bfloat16} = DT_FLOAT"])
SparseMatMul.shape(_matmul_shape)


@SparseMatMul.kernel("CPU", expensive=True)
def _sparse_matmul(ctx: OpKernelContext, a: Any, b: Any, transpose_a: bool, transpose_b: bool) -> Any:
    """A float32 product of float32 or bfloat16 matrices (the sparsity hints only choose TF's algorithm)."""
    for side, x in (("a", a), ("b", b)):
        if x.ndim != 2:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"{side} is not a matrix")
    if a.shape[0 if transpose_a else 1] != b.shape[1 if transpose_b else 0]:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Matrix size incompatible: a: {tensor_util.shape_string(a.shape)}, b: "
            f"{tensor_util.shape_string(b.shape)}")
    a, b = _in_float32(a), _in_float32(b)
    return ctx.xp.matmul(a.T if transpose_a else a, b.T if transpose_b else b)


def sparse_matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, a_is_sparse: bool = False,
                  b_is_sparse: bool = False, name: str | None = None) -> Tensor:
    """`tf.sparse_matmul`: a float32 product of float32 or bfloat16 matrices."""
    return SparseMatMul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, a_is_sparse=a_is_sparse,
                        b_is_sparse=b_is_sparse, name=name)


Conj = Op("Conj", inputs=["input: T"], outputs=["output: T"], attrs=["T: {complex64, complex128, variant} = DT_COMPLEX64"])
Conj.shape(_unary_shape)


@Conj.kernel("CPU")
def _conj(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return ctx.xp.conj(input)


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


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False, grad_a: bool = False,
           grad_b: bool = False, name: str | None = None) -> Tensor:
    """a @ b as TF dispatches it: BatchMatMulV2 when either side may have batch dimensions, SparseMatMul for
    float32/bfloat16 sparsity hints or a bfloat16 operand mixed with another type, else MatMul."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        for side, transpose, adjoint in (("a", transpose_a, adjoint_a), ("b", transpose_b, adjoint_b)):
            if transpose and adjoint:
                raise ValueError(f"Only one of `transpose_{side}` and `adjoint_{side}` can be True. Received "
                                 f"`transpose_{side}`=True, `adjoint_{side}`=True.")
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype_hint=a.dtype.base_dtype, name="b")
        may_have_batch = (a.shape.ndims is None or a.shape.ndims > 2 or b.shape.ndims is None
                          or b.shape.ndims > 2)
        if not a_is_sparse and not b_is_sparse and may_have_batch:
            if transpose_a:
                a, adjoint_a = conj(a), True
            if transpose_b:
                b, adjoint_b = conj(b), True
            return BatchMatMulV2(a, b, adj_x=adjoint_a, adj_y=adjoint_b, grad_x=grad_a, grad_y=grad_b, name=scope)
        if adjoint_a:
            a, transpose_a = conj(a), True
        if adjoint_b:
            b, transpose_b = conj(b), True
        a_type, b_type = a.dtype.base_dtype, b.dtype.base_dtype
        sparse_types = (dtypes.bfloat16, dtypes.float32)
        use_sparse = (a_is_sparse or b_is_sparse) and a_type in sparse_types and b_type in sparse_types
        if a_type != b_type and dtypes.bfloat16 in (a_type, b_type) and not {a_type, b_type} & {dtypes.int8,
                                                                                               dtypes.uint8}:
            use_sparse = True
        if use_sparse:
            product = SparseMatMul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, a_is_sparse=a_is_sparse,
                                   b_is_sparse=b_is_sparse, name=scope)
            return cast(product, dtypes.bfloat16) if a_type == b_type == dtypes.bfloat16 else product
        return MatMul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, grad_a=grad_a, grad_b=grad_b,
                      name=scope)

# -- Cast --------------------------------------------------------------------------------------------

Cast = Op("Cast", inputs=["x: SrcT"], outputs=["y: DstT"], attrs=["SrcT: type", "DstT: type",
                                                                  "Truncate: bool = false"])


@Cast.shape
def _cast_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [ctx.input_shape(0)]


_SATURATING_FROM_BFLOAT16 = frozenset([np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16),
                                       np.dtype(np.uint16)])


def _bfloat16_to_small_int(x: np.ndarray, target: np.dtype) -> np.ndarray:
    """TF's bfloat16 -> 8/16-bit integer cast on x86: truncation to int32 (NaN, inf and values out of
    int32's range become INT32_MIN, as cvttps2dq), then, in Eigen's 8-wide packets, saturation to the
    target's range; the last size % 8 elements go through Eigen's scalar loop, which wraps instead."""
    wide = x.astype(np.float32).reshape(-1)
    as_int32 = np.where(np.abs(wide) < 2.0 ** 31, wide, -(2.0 ** 31)).astype(np.int32)
    limits = np.iinfo(target)
    scalar_start = as_int32.size // _EIGEN_BFLOAT16_PACKET * _EIGEN_BFLOAT16_PACKET
    result = np.empty(as_int32.size, target)
    result[:scalar_start] = np.clip(as_int32[:scalar_start], limits.min, limits.max)
    result[scalar_start:] = as_int32[scalar_start:].astype(target)
    return result.reshape(x.shape)


@Cast.kernel("CPU")
def _cast(ctx: OpKernelContext, x: Any, SrcT: dtypes.DType, DstT: dtypes.DType) -> Any:  # noqa: N803 - TF's attr names
    """NumPy's conversions (ml_dtypes' for bfloat16, which round to nearest even through float32 as TF)."""
    target = np.dtype(DstT.as_numpy_dtype)
    if np.iscomplexobj(x) and not DstT.is_complex:
        x = np.real(x)
    if dtypes.string in (SrcT, DstT):
        raise errors.UnimplementedError(ctx.node_def, None, f"Cast {tensor_util.type_string(SrcT)} to "
                                        f"{tensor_util.type_string(DstT)} is not supported")
    x = np.asarray(x)
    if SrcT == dtypes.bfloat16 and target in _SATURATING_FROM_BFLOAT16:
        return _bfloat16_to_small_int(x, target)
    return x.astype(target, copy=False)


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """`x` converted to `dtype` (no op when it already has it, as in TF)."""
    base_type = dtypes.as_dtype(dtype).base_dtype
    if isinstance(x, Tensor) and x.dtype.base_dtype == base_type:
        return x
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype == base_type:
            return x
        return Cast(x, DstT=base_type, name=scope)


def to_float(x: Any, name: str = "ToFloat") -> Tensor:
    return cast(x, dtypes.float32, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> Tensor:
    return cast(x, dtypes.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> Tensor:
    return cast(x, dtypes.int64, name=name)


def to_double(x: Any, name: str = "ToDouble") -> Tensor:
    return cast(x, dtypes.float64, name=name)


def to_bfloat16(x: Any, name: str = "ToBFloat16") -> Tensor:
    return cast(x, dtypes.bfloat16, name=name)


def to_complex64(x: Any, name: str = "ToComplex64") -> Tensor:
    return cast(x, dtypes.complex64, name=name)


def to_complex128(x: Any, name: str = "ToComplex128") -> Tensor:
    return cast(x, dtypes.complex128, name=name)

# -- Reductions --------------------------------------------------------------------------------------


def _reduction_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    keep_dims = ctx.attr("keep_dims")
    axes = ctx.input_value(1)
    if ctx.input_shape(1).ndims is not None and ctx.input_shape(1).ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {ctx.input_shape(1).ndims}")
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if axes is None:
        return [tensor_shape.unknown_shape(rank=shape.ndims) if keep_dims else tensor_shape.unknown_shape()]
    rank = shape.ndims
    axes_set = set()
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < rank:
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        axes_set.add(a % rank)
    dims = shape.as_list()
    if keep_dims:
        return [tensor_shape.TensorShape([1 if i in axes_set else d for i, d in enumerate(dims)])]
    return [tensor_shape.TensorShape([d for i, d in enumerate(dims) if i not in axes_set])]


class _ReductionAxes:
    """A reduction kernel's persistent state: the last axes array it checked, for which rank, and the
    result (a graph constant arrives as the same array every step, so it is checked once)."""

    __slots__ = ("last",)

    def __init__(self, attrs: Any = None) -> None:
        self.last: tuple[Any, int, tuple[int, ...]] | None = None


def _reduction_axes(ctx: OpKernelContext, x: Any, axes: Any) -> tuple[int, ...]:
    """The checked, non-negative reduction axes, remembered per node for the same axes array and rank."""
    rank = np.ndim(x)
    cached = ctx.state.last
    if cached is not None and cached[0] is axes and cached[1] == rank:
        return cached[2]
    result = []
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < rank:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Invalid reduction dimension ({a} for input "
                                              f"with {rank} dimension(s)")
        a %= rank
        if a in result:
            raise errors.InvalidArgumentError(ctx.node_def, None, "Invalid reduction arguments: Axes contains "
                                              f"duplicate dimension: {a}")
        result.append(a)
    normalized = tuple(result)
    ctx.state.last = (axes, rank, normalized)
    return normalized


def _reduction_op(name: str, types: str) -> Op:
    op = Op(name, inputs=["input: T", "reduction_indices: Tidx"], outputs=["output: T"],
            attrs=["keep_dims: bool = false", f"T: {types}", "Tidx: {int32, int64} = DT_INT32"])
    op.shape(_reduction_shape)
    return op


Sum = _reduction_op("Sum", "numbertype")
Mean = _reduction_op("Mean", "numbertype")
Max = _reduction_op("Max", "{realnumbertype, quantizedtype}")
Min = _reduction_op("Min", "{realnumbertype, quantizedtype}")
Prod = _reduction_op("Prod", "numbertype")


@Sum.kernel("CPU", state=_ReductionAxes)
def _sum(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    """In the input's type, except bfloat16, which TF sums in float32 and rounds once."""
    axes = _reduction_axes(ctx, input, reduction_indices)
    if input.dtype == _BFLOAT16:
        return ctx.xp.sum(input, axis=axes, keepdims=keep_dims, dtype=np.float32).astype(_BFLOAT16)
    return ctx.xp.sum(input, axis=axes, keepdims=keep_dims, dtype=input.dtype)


@Prod.kernel("CPU", state=_ReductionAxes)
def _prod(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    return ctx.xp.prod(input, axis=_reduction_axes(ctx, input, reduction_indices), keepdims=keep_dims,
                       dtype=input.dtype)


@Mean.kernel("CPU", state=_ReductionAxes)
def _mean(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    """Sum over count: an empty reduction is 0/0 = nan for floats (as TF), 0 for integers and complex
    numbers; floats sum and divide in their own type (float16 overflows to inf, as TF's), except bfloat16,
    which TF sums and divides in float32 and rounds once."""
    axes = _reduction_axes(ctx, input, reduction_indices)
    xp = ctx.xp
    count = int(np.prod([input.shape[a] for a in axes], dtype=np.int64)) if axes else 1
    if input.dtype.kind in "iu":
        total = xp.sum(input, axis=axes, keepdims=keep_dims, dtype=np.int64)
        return _c_division(total, np.int64(max(count, 1))).astype(input.dtype)
    if input.dtype == _BFLOAT16:
        total = xp.sum(input, axis=axes, keepdims=keep_dims, dtype=np.float32)
        return xp.true_divide(total, np.float32(count)).astype(_BFLOAT16)
    total = xp.sum(input, axis=axes, keepdims=keep_dims, dtype=input.dtype)
    if count == 0 and input.dtype.kind == "c":
        return total
    return xp.true_divide(total, input.dtype.type(count))


def _lowest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).min if dtype.kind in "iu" else -np.inf


def _highest(dtype: np.dtype) -> Any:
    return np.iinfo(dtype).max if dtype.kind in "iu" else np.inf


def _extreme_kernel(fn: Callable, identity: Callable[[np.dtype], Any]) -> Callable:
    """Max or Min; reducing nothing gives the identity (-inf, or the integer type's lowest value, for
    Max), as TF's."""
    def kernel(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
        axes = _reduction_axes(ctx, input, reduction_indices)
        if input.size:
            return fn(input, axis=axes, keepdims=keep_dims)
        return fn(input, axis=axes, keepdims=keep_dims, initial=identity(input.dtype))
    return kernel


Max.kernel("CPU", state=_ReductionAxes)(_extreme_kernel(np.max, _lowest))
Min.kernel("CPU", state=_ReductionAxes)(_extreme_kernel(np.min, _highest))


def _deprecated_alias(new_name: str, new_value: Any, old_name: str, old_value: Any) -> Any:
    """TF's deprecated_argument_lookup: the value given under either name of a renamed argument."""
    if old_value is None:
        return new_value
    if new_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return old_value


def _reduction_dims(x: Any, axis: Any) -> Any:
    """The axes to reduce: every axis when `axis` is None, a Const only for a Tensor of known non-zero rank
    (TF takes the Rank/Range path for everything else, scalars included)."""
    if axis is not None:
        return axis
    rank = x.shape.ndims if isinstance(x, Tensor) else None
    if rank:
        return array_ops.constant(np.arange(rank, dtype=np.int32))
    return range(0, array_ops.rank(x))


def _reduce(op: Op, input_tensor: Any, axis: Any, keepdims: Any, name: str | None, reduction_indices: Any,
            keep_dims: Any) -> Tensor:
    """TF1's reduce_* wrappers: `axis`/`reduction_indices` and `keepdims`/`keep_dims` aliases."""
    axis = _deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    result = op(input_tensor, _reduction_dims(input_tensor, axis), keep_dims=keepdims, name=name)
    if axis is None and not keepdims:
        result.set_shape([])  # every axis is reduced, even when the rank is unknown
    return result


def reduce_sum(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Sum over `axis` (all axes when None)."""
    return _reduce(Sum, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_mean(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Mean over `axis` (integer inputs divide with truncation, as TF)."""
    return _reduce(Mean, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_max(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    return _reduce(Max, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_min(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    return _reduce(Min, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_prod(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    return _reduce(Prod, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def _logical_reduction_op(name: str, fn: Callable) -> Op:
    """Any/All: a reduction of a bool tensor (no T attr); empty axes reduce to the identity, as NumPy."""
    op = Op(name, inputs=["input: bool", "reduction_indices: Tidx"], outputs=["output: bool"],
            attrs=["keep_dims: bool = false", "Tidx: {int32, int64} = DT_INT32"])
    op.shape(_reduction_shape)

    @op.kernel("CPU", state=_ReductionAxes)
    def kernel(ctx: OpKernelContext, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
        return fn(input, axis=_reduction_axes(ctx, input, reduction_indices), keepdims=keep_dims)

    return op


Any_ = _logical_reduction_op("Any", np.any)  # `Any` is typing.Any in this module
All = _logical_reduction_op("All", np.all)


def reduce_any(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Logical or over `axis` (all axes when None)."""
    return _reduce(Any_, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_all(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
               reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """Logical and over `axis` (all axes when None)."""
    return _reduce(All, input_tensor, axis, keepdims, name, reduction_indices, keep_dims)


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: Any = None, name: str | None = None,
                     reduction_indices: Any = None, keep_dims: Any = None) -> Tensor:
    """log(sum(exp(x))) over `axis`, composed as TF does: the (finite) max is subtracted first and added back."""
    axis = _deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    keepdims = bool(_deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims))
    with name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        my_max = stop_gradient(SelectV2(IsFinite(raw_max), raw_max, 0))
        result = Log(reduce_sum(Exp(subtract(input_tensor, my_max)), axis=axis, keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, array_ops.Shape(result))
        result = add(result, my_max, name=scope)
        if axis is None and not keepdims:
            result.set_shape([])
        return result


def reduce_variance(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """The mean squared deviation from the mean over `axis` (|deviation|^2 for complex input, real-valued);
    integer input is refused."""
    with name_scope(name or "reduce_variance"):
        input_tensor = convert_to_tensor(input_tensor)
        means = reduce_mean(input_tensor, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(f"Input must be either real or complex. Received integer type {means.dtype}.")
        diff = input_tensor - means
        if diff.dtype.is_complex:
            squared_deviations = Real(Mul(Conj(diff), diff), Tout=diff.dtype.real_dtype)
        else:
            squared_deviations = Square(diff)
        return reduce_mean(squared_deviations, axis=axis, keepdims=keepdims)


def reduce_std(input_tensor: Any, axis: Any = None, keepdims: bool = False, name: str | None = None) -> Tensor:
    """The square root of `reduce_variance`."""
    with name_scope(name or "reduce_std"):
        return Sqrt(reduce_variance(convert_to_tensor(input_tensor), axis=axis, keepdims=keepdims))


def count_nonzero(input_tensor: Any = None, axis: Any = None, keepdims: Any = None, dtype: Any = dtypes.int64,
                  name: str | None = None, reduction_indices: Any = None, keep_dims: Any = None,
                  input: Any = None) -> Tensor:  # noqa: A002 - TF's name
    """The number of non-zero (non-empty for strings) elements over `axis`, counted in int64."""
    input_tensor = _deprecated_alias("input", input, "input_tensor", input_tensor)
    axis = _deprecated_alias("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _deprecated_alias("keepdims", keepdims, "keep_dims", keep_dims)
    with name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input")
        nonzero = x if x.dtype.base_dtype == dtypes.bool else not_equal(x, array_ops.zeros([], dtype=x.dtype))
        return cast(reduce_sum(cast(nonzero, dtypes.int64), axis=axis, keepdims=keepdims), dtype)

# -- Operator overloads ------------------------------------------------------------------------------


def _binary_overload(func: Callable, op_name: str) -> tuple[Callable, Callable]:
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
                "mod": floormod, "pow": pow, "matmul": matmul, "and": _and, "or": _or, "xor": _xor}
    for op_name, func in binaries.items():
        binary, reflected = _binary_overload(func, op_name)
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


# -- Equal, NotEqual, Range (owned with the array-op library) ---------------------------------------
# `range` (below), `abs` and `complex` are TF's public names here, so this module spells the builtins
# `builtins.range`, `builtins.abs` and `builtins.complex`.


def _equality_op(name: str, fn: Callable) -> Op:
    """Elementwise ==/!= of any type (commutative); with `incompatible_shape_error` false, shapes that do not
    broadcast give a scalar (False for Equal, True for NotEqual) instead of an error."""
    op = Op(name, inputs=["x: T", "y: T"], outputs=["z: bool"],
            attrs=["T: type", "incompatible_shape_error: bool = true"], is_commutative=True)
    broadcast = _binary_kernel(fn)

    @op.shape
    def shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        try:
            return _broadcast_shape(ctx)
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


def equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x == y elementwise with broadcasting (TF1 keeps `Tensor.__eq__` as identity)."""
    return Equal(x, y, name=name)


def not_equal(x: Any, y: Any, name: str | None = None) -> Tensor:
    """x != y elementwise with broadcasting."""
    return NotEqual(x, y, name=name)


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


@Range.kernel("CPU", type_constraints={"Tidx": (dtypes.int64, dtypes.int32, _F64, _F32, dtypes.bfloat16, _F16)})
def _range(ctx: OpKernelContext, start: Any, limit: Any, delta: Any) -> Any:
    for arg, v in (("start", start), ("limit", limit), ("delta", delta)):
        if v.ndim != 0 and v.shape != (1,):
            raise errors.InvalidArgumentError(ctx.node_def, None, f"{arg} must be a scalar, not shape "
                                              f"{tensor_util.shape_string(v.shape)}")
    start, limit, delta = (v.reshape(-1)[0] for v in (start, limit, delta))
    if delta == 0:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Requires delta != 0: {_cpp_str(delta)}")
    try:
        size = _range_size(start, limit, delta)
    except ValueError as e:
        raise errors.InvalidArgumentError(ctx.node_def, None, str(e)) from None
    return start + ctx.xp.arange(size, dtype=start.dtype) * delta  # start + i * delta in the op's type, as TF


_RANGE_TYPES = [dtypes.int32, dtypes.int64, dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64]


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

# -- Select, SelectV2, StopGradient -----------------------------------------------------------------

Select = Op("Select", inputs=["condition: bool", "t: T", "e: T"], outputs=["output: T"], attrs=["T: type"])


@Select.shape
def _select_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """`t` and `e` agree; `condition` has their shape, is a scalar, or is a vector along their first axis."""
    data = tensor_util.merge_shapes(ctx.input_shape(1), ctx.input_shape(2))
    cond = ctx.input_shape(0)
    if cond.ndims is None or data.ndims is None or cond.ndims == 0:
        return [data]
    if cond.ndims != 1 or data.ndims == 0:
        return [tensor_util.merge_shapes(data, cond)]
    tensor_util.merge_shapes(cond, tensor_shape.TensorShape(data.as_list()[:1]))
    return [data]


def _same_shape_error(ctx: OpKernelContext, shapes: list, index: int) -> errors.InvalidArgumentError:
    """TF's ValidateInputsAreSameShape message, comparing input `index` with input 0."""
    return errors.InvalidArgumentError(
        ctx.node_def, None, f"Inputs to operation {ctx.name} of type {ctx.op} must have the same size and shape.  "
        f"Input 0: {tensor_util.shape_string(shapes[0])} != input {index}: {tensor_util.shape_string(shapes[index])}")


@Select.kernel("CPU")
def _select(ctx: OpKernelContext, condition: Any, t: Any, e: Any) -> Any:
    shapes = [np.shape(condition), np.shape(t), np.shape(e)]
    cond_shape, then_shape, else_shape = shapes
    if not cond_shape or (len(cond_shape) == 1 and len(then_shape) != 1):
        if then_shape != else_shape:
            raise errors.InvalidArgumentError(
                ctx.node_def, None, "'then' and 'else' must have the same size.  but received: "
                f"{tensor_util.shape_string(then_shape)} vs. {tensor_util.shape_string(else_shape)}")
        if not cond_shape:
            return t if condition else e
        if not then_shape:
            raise errors.InvalidArgumentError(ctx.node_def, None, "'then' must be at least a vector, but saw "
                                              f"shape: {tensor_util.shape_string(then_shape)}")
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
    return [_broadcast_shapes(cond, _broadcast_shapes(t, e))]  # TF's order, for its messages


@SelectV2.kernel("CPU")
def _select_v2(ctx: OpKernelContext, condition: Any, t: Any, e: Any) -> Any:
    try:
        np.broadcast_shapes(np.shape(condition), np.shape(t), np.shape(e))
    except ValueError:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"condition {tensor_util.shape_string(np.shape(condition))}, then "
            f"{tensor_util.shape_string(np.shape(t))}, and else {tensor_util.shape_string(np.shape(e))} must be "
            "broadcastable") from None
    return ctx.xp.where(condition, t, e)


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """TF1's `tf.where`: elements of `x` or `y` by `condition` (Select: a vector condition picks rows);
    with only `condition`, the coordinates of its true elements."""
    if x is None and y is None:
        return array_ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return Select(condition, x, y, name=name)


def where_v2(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """`tf.where_v2`: like `where`, with `condition`, `x` and `y` broadcast together (SelectV2)."""
    if x is None and y is None:
        return array_ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return SelectV2(condition, x, y, name=name)


StopGradient = Op("StopGradient", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"])
StopGradient.shape(_unary_shape)


@StopGradient.kernel("CPU")
def _stop_gradient(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    return input


def stop_gradient(input: Any, name: str | None = None) -> Tensor:  # noqa: A002 - TF's name
    """`input` unchanged; gradients do not flow through it."""
    return StopGradient(input, name=name)

# -- AddN, SquaredDifference, clip_by_value ---------------------------------------------------------

AddN = Op("AddN", inputs=["inputs: N * T"], outputs=["sum: T"], attrs=["N: int >= 1", "T: {numbertype, variant}"],
          is_commutative=True, is_aggregate=True)


@AddN.shape
def _add_n_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """Every input has the same shape: merged from the last input back, naming the one that disagrees."""
    shape = ctx.input_shape(-1)
    for i in builtins.range(ctx.num_inputs - 2, -1, -1):
        try:
            shape = tensor_util.merge_shapes(ctx.input_shape(i), shape)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return [shape]


@AddN.kernel("CPU")
def _add_n(ctx: OpKernelContext, *inputs: Any) -> Any:
    shapes = [np.shape(x) for x in inputs]
    for index, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise _same_shape_error(ctx, shapes, index)
    if len(inputs) == 1:
        return inputs[0]
    total = inputs[0] + inputs[1]
    for x in inputs[2:]:
        total = total + x
    return total


def add_n(inputs: Any, name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one dtype and shape; one tensor is returned as it is."""
    inputs = [convert_to_tensor(x) for x in inputs]
    if not inputs:
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices with the same dtype "
                         "and shape.")
    if len(inputs) == 1:
        return array_ops.identity(inputs[0], name=name) if name else inputs[0]
    return AddN(inputs, name=name)


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


SquaredDifference = _binary_op("SquaredDifference",
                               "{bfloat16, half, float, double, int32, int64, complex64, complex128}",
                               _squared_difference, is_commutative=True)


def squared_difference(x: Any, y: Any, name: str | None = None) -> Tensor:
    """(x - y) * conj(x - y) elementwise, with broadcasting."""
    return SquaredDifference(x, y, name=name)


def clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None) -> Tensor:
    """`t` clipped to [min, max], composed as TF does (Minimum, then Maximum named after the scope); the
    bounds may broadcast but must not grow `t`'s shape."""
    with name_scope(name, "clip_by_value", [t, clip_value_min, clip_value_max]) as scope:
        values = convert_to_tensor(t, name="t")
        t_min = minimum(values, clip_value_max)
        values.shape.assert_is_compatible_with(t_min.shape)
        t_max = maximum(t_min, clip_value_min, name=scope)
        values.shape.assert_is_compatible_with(t_max.shape)
        return t_max


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Any:
    """`t` scaled down to an L2 norm (over `axes`, all by default) of at most `clip_norm` (negative bounds
    count as 0), composed as TF does; IndexedSlices are clipped by their values."""
    with name_scope(name, "clip_by_norm", [t, clip_norm]) as scope:
        values = convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t, name="t")
        if np.isscalar(clip_norm):
            clip_norm = builtins.max(clip_norm, 0)
        else:
            clip_norm = cast(maximum(clip_norm, 0), dtype=values.dtype)
        l2sum = reduce_sum(values * values, axes, keepdims=True)
        positive = l2sum > 0
        l2sum_safe = where(positive, l2sum, array_ops.ones_like(l2sum))  # no NaN gradient through sqrt(0)
        l2norm = where(positive, sqrt(l2sum_safe), l2sum)
        intermediate = values * clip_norm
        values.shape.assert_is_compatible_with(intermediate.shape)
        clipped = array_ops.identity(intermediate / maximum(l2norm, clip_norm), name=scope)
        if isinstance(t, IndexedSlices):
            return IndexedSlices(clipped, t.indices, t.dense_shape)
        return clipped


ClipByValue = Op("ClipByValue", inputs=["t: T", "clip_value_min: T", "clip_value_max: T"], outputs=["output: T"],
                 attrs=["T: numbertype"])
ClipByValue.shape(_unary_shape)


@ClipByValue.kernel("CPU", type_constraints={"T": (_C128, _C64, dtypes.uint16, dtypes.uint8)
                                                        + _INTEGERS_LISTED[:4] + (dtypes.bfloat16, _F64, _F32, _F16)})
def _clip(ctx: OpKernelContext, t: Any, clip_value_min: Any, clip_value_max: Any) -> Any:
    """min(t, max) then max(·, min), where a NaN bound leaves `t` alone and a NaN `t` stays NaN (as Eigen's
    cwiseMin/cwiseMax); the bounds are scalars or `t`'s exact shape, never broadcast."""
    shape = np.shape(t)
    if any(np.ndim(b) and np.shape(b) != shape for b in (clip_value_min, clip_value_max)):
        raise errors.InvalidArgumentError(
            ctx.node_def, None, "clip_value_min and clip_value_max must be either of the same shape as input, "
            f"or a scalar. input shape: {tensor_util.shape_string(shape)}clip_value_min shape: "
            f"{tensor_util.shape_string(np.shape(clip_value_min))}clip_value_max shape: "
            f"{tensor_util.shape_string(np.shape(clip_value_max))}")
    xp = ctx.xp
    upper = xp.where(clip_value_max < t, clip_value_max, t)
    return xp.where(upper < clip_value_min, clip_value_min, upper)


def _saturation_limits(in_dtype: dtypes.DType, out_dtype: dtypes.DType) -> tuple[Any, Any]:
    """The overlap of both ranges in `in_dtype`, stepped one ulp toward 0 where rounding into `in_dtype`
    pushed a bound outside `out_dtype`'s range; compared in the two types' NumPy promotion, as TF does (so
    float32 -> int64 keeps 2**63 and overflows, as TF's)."""
    np_type = in_dtype.as_numpy_dtype
    try:
        promoted = np.promote_types(np_type, out_dtype.as_numpy_dtype)
    except TypeError:
        promoted = np.dtype(float)
    with np.errstate(over="ignore", invalid="ignore"):
        lo = np.asarray(builtins.max(in_dtype.min, out_dtype.min)).astype(np_type)[()]
        hi = np.asarray(builtins.min(float(in_dtype.max), float(out_dtype.max))).astype(np_type)[()]
        lo_pair, hi_pair = (np.array(pair, dtype=promoted) for pair in ((lo, out_dtype.min), (hi, out_dtype.max)))
    if lo_pair[0] < lo_pair[1]:
        lo = np.nextafter(lo, np_type(0), dtype=np_type)
    if hi_pair[0] > hi_pair[1]:
        hi = np.nextafter(hi, np_type(0), dtype=np_type)
    return lo, hi


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """`value` clamped to `dtype`'s range (ClipByValue "clamp") before the Cast, so nothing wraps around."""
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        in_dtype = value.dtype.base_dtype
        if in_dtype.is_complex and dtype.is_complex:
            real_in, real_out = in_dtype.real_dtype, dtype.real_dtype
            if real_in.min < real_out.min or real_in.max > real_out.max:
                value = ClipByValue(value, convert_to_tensor(builtins.complex(real_out.min, real_out.min), dtype=in_dtype),
                                    convert_to_tensor(builtins.complex(real_out.max, real_out.max), dtype=in_dtype),
                                    name="clamp")
            return cast(value, dtype, name=scope)
        if in_dtype.is_complex:  # TF takes the real part (and warns)
            in_dtype = in_dtype.real_dtype
            value = real(value)
        lo, hi = _saturation_limits(in_dtype, dtype.real_dtype)
        value = ClipByValue(value, convert_to_tensor(lo, dtype=in_dtype), convert_to_tensor(hi, dtype=in_dtype),
                            name="clamp")
        return cast(value, dtype, name=scope)

# -- ArgMax, ArgMin, Cumsum, Cumprod ---------------------------------------------------------------


def _arg_reduce_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The input's shape without the reduced dimension (a scalar stays a scalar)."""
    shape = ctx.input_shape(0)
    array_ops._with_rank(ctx.input_shape(1), 0)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if shape.ndims == 0:
        return [tensor_shape.TensorShape([])]
    dimension = ctx.input_value(1)
    if dimension is None:
        return [tensor_shape.unknown_shape(rank=shape.ndims - 1)]
    rank, dimension = shape.ndims, int(dimension)
    if not -rank <= dimension < rank:
        raise ValueError(f"Dimension ({dimension}) must be in the range [{-rank}, {rank}), where {rank} is the "
                         "number of dimensions in the input.")
    dims = shape.as_list()
    del dims[dimension % rank]
    return [tensor_shape.TensorShape(dims)]


def _arg_reduce_op(name: str, index_types: str, output_types: str, fn: Callable, nan: float) -> Op:
    """ArgMax/ArgMin: the first index of the extreme value along a dimension; NaNs never win, as in TF."""
    op = Op(name, inputs=["input: T", "dimension: Tidx"], outputs=["output: output_type"],
            attrs=["T: {realnumbertype, quantizedtype, bool}", f"Tidx: {index_types} = DT_INT32",
                   f"output_type: {output_types} = DT_INT64"])
    op.shape(_arg_reduce_shape)

    @op.kernel("CPU")
    def kernel(ctx: OpKernelContext, input: Any, dimension: Any, output_type: dtypes.DType) -> Any:  # noqa: A002
        if np.ndim(dimension) != 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, "dim must be a scalar, but received tensor of "
                                              f"shape: {tensor_util.shape_string(np.shape(dimension))}")
        rank, axis = np.ndim(input), int(dimension)
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Expected dimension in the range [{-rank}, "
                                              f"{rank}), but got {axis}")
        axis %= rank
        if input.shape[axis] == 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Reduction axis {axis} is empty in shape "
                                              f"{tensor_util.shape_string(input.shape)}")
        if input.dtype.kind == "f":
            input = ctx.xp.where(ctx.xp.isnan(input), nan, input)
        return fn(input, axis=axis).astype(output_type.as_numpy_dtype)

    return op


ArgMax = _arg_reduce_op("ArgMax", "{int16, int32, int64}", "{int16, uint16, int32, int64}", np.argmax, -np.inf)
ArgMin = _arg_reduce_op("ArgMin", "{int32, int64}", "{int32, int64}", np.argmin, np.inf)


def _arg_reduce(op: Op, input: Any, axis: Any, name: str | None, dimension: Any,  # noqa: A002
                output_type: Any) -> Tensor:
    """TF1's argmax/argmin: `dimension` aliases `axis` (0 when neither), which must be a Python int or an
    integer Tensor."""
    axis = _deprecated_alias("axis", axis, "dimension", dimension)
    if axis is None:
        axis = 0
    elif not isinstance(axis, int) and not (isinstance(axis, Tensor) and axis.dtype.is_integer):
        if hasattr(axis, "dtype"):
            raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
        raise TypeError("axis must be int or Tensor with integer datatype")
    return op(input, axis, output_type=output_type, name=name)


def argmax(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
           output_type: Any = dtypes.int64) -> Tensor:
    """The index of the largest value along `axis` (the first one on ties)."""
    return _arg_reduce(ArgMax, input, axis, name, dimension, output_type)


def argmin(input: Any, axis: Any = None, name: str | None = None, dimension: Any = None,  # noqa: A002
           output_type: Any = dtypes.int64) -> Tensor:
    """The index of the smallest value along `axis` (the first one on ties)."""
    return _arg_reduce(ArgMin, input, axis, name, dimension, output_type)


def arg_max(input: Any, dimension: Any, output_type: Any = dtypes.int64,  # noqa: A002 - TF's name
            name: str | None = None) -> Tensor:
    """TF1's raw `tf.arg_max`: the ArgMax op, `dimension` required."""
    return ArgMax(input, dimension, output_type=output_type, name=name)


def arg_min(input: Any, dimension: Any, output_type: Any = dtypes.int64,  # noqa: A002 - TF's name
            name: str | None = None) -> Tensor:
    """TF1's raw `tf.arg_min`: the ArgMin op, `dimension` required."""
    return ArgMin(input, dimension, output_type=output_type, name=name)


def _scan_op(name: str, scan: str, identity: int) -> Op:
    """Cumsum or Cumprod: a running `scan` along one axis; `exclusive` starts from the identity,
    `reverse` runs from the end."""
    op = Op(name, inputs=["x: T", "axis: Tidx"], outputs=["out: T"],
            attrs=["exclusive: bool = false", "reverse: bool = false", "T: numbertype",
                   "Tidx: {int32, int64} = DT_INT32"])
    op.shape(_unary_shape)

    @op.kernel("CPU")
    def _scan(ctx: OpKernelContext, x: Any, axis: Any, exclusive: bool, reverse: bool) -> Any:
        xp = ctx.xp
        if np.ndim(axis) != 0:
            raise errors.InvalidArgumentError(ctx.node_def, None, "ScanOp: axis must be a scalar, not "
                                              f"{tensor_util.shape_string(np.shape(axis))}")
        rank, axis = np.ndim(x), int(axis)
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(ctx.node_def, None, f"ScanOp: Expected scan axis in the range "
                                              f"[{-rank}, {rank}), but got {axis}")
        axis %= rank
        if reverse:
            x = xp.flip(x, axis)
        out = getattr(xp, scan)(x, axis=axis, dtype=x.dtype)
        if exclusive:
            shifted = xp.full_like(out, identity)
            shifted[(slice(None),) * axis + (slice(1, None),)] = out[(slice(None),) * axis + (slice(None, -1),)]
            out = shifted
        return xp.flip(out, axis) if reverse else out

    return op


Cumsum = _scan_op("Cumsum", "cumsum", 0)
Cumprod = _scan_op("Cumprod", "cumprod", 1)


def cumsum(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Tensor:
    """Running sums along `axis`; `exclusive` leaves each element out of its own sum, `reverse` runs
    from the end."""
    with name_scope(name, "Cumsum", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return Cumsum(x, axis, exclusive=exclusive, reverse=reverse, name=scope)


def cumprod(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
            name: str | None = None) -> Tensor:
    """Running products along `axis` (exclusive starts from 1)."""
    with name_scope(name, "Cumprod", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return Cumprod(x, axis, exclusive=exclusive, reverse=reverse, name=scope)
