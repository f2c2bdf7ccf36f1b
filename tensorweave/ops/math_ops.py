"""Math ops: elementwise arithmetic and comparisons with broadcasting, MatMul, reductions, Cast,
and the Tensor operator overloads (`+`, `*`, `@`, `<`, ...) that TF installs from this module."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_registry import Op
from tensorweave.ops import array_ops

_NUMBER = "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, uint32, uint64, int64, complex64, complex128}"
_REAL = "{bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
_FLOAT = "{bfloat16, half, float, double}"


def broadcast_static_shape(x: tensor_shape.TensorShape, y: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """The broadcast of two partial shapes, or ValueError naming the incompatible dimensions."""
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


def _broadcast_shape(op: Any) -> list:
    return [broadcast_static_shape(op.inputs[0].shape, op.inputs[1].shape)]


def _unary_shape(op: Any) -> list:
    return [op.inputs[0].shape]


def _binary_kernel(fn: Callable) -> Callable:
    def kernel(ctx: Any, x: Any, y: Any) -> Any:
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


def _binary_op(name: str, types: str, fn: Callable, output: str = "T") -> Op:
    """An elementwise binary op with broadcasting: one definition, shape function and kernel."""
    op = Op(name, inputs=["x: T", "y: T"], outputs=[f"z: {output}"], attrs=[f"T: {types}"])
    op.shape(_broadcast_shape)
    op.kernel("CPU", "GPU")(_binary_kernel(fn))
    return op


def _unary_op(name: str, types: str, fn: Callable) -> Op:
    """An elementwise unary op: one definition, shape function and kernel."""
    op = Op(name, inputs=["x: T"], outputs=["y: T"], attrs=[f"T: {types}"])
    op.shape(_unary_shape)

    @op.kernel("CPU", "GPU")
    def kernel(ctx: Any, x: Any) -> Any:
        return fn(x)

    return op


def _c_division(x: Any, y: Any) -> Any:
    """Integer division truncating toward zero, as C++ (TF's Div and RealDiv on integers)."""
    if np.result_type(x, y).kind in "iu":
        if np.any(np.asarray(y) == 0):
            raise errors.InvalidArgumentError(None, None, "Integer division by zero")
        q = np.abs(x) // np.abs(y)
        return np.where((np.asarray(x) < 0) ^ (np.asarray(y) < 0), -q, q).astype(np.result_type(x, y))
    return np.true_divide(x, y)


def _floor_divide(x: Any, y: Any) -> Any:
    if np.result_type(x, y).kind in "iu" and np.any(np.asarray(y) == 0):
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")
    return np.floor_divide(x, y)


def _floor_mod(x: Any, y: Any) -> Any:
    if np.result_type(x, y).kind in "iu" and np.any(np.asarray(y) == 0):
        raise errors.InvalidArgumentError(None, None, "Integer division by zero")
    return np.mod(x, y)


Add = _binary_op("Add", _NUMBER[:-1] + ", string}", np.add)
AddV2 = _binary_op("AddV2", _NUMBER, np.add)
Sub = _binary_op("Sub", _NUMBER, np.subtract)
Mul = _binary_op("Mul", _NUMBER, np.multiply)
RealDiv = _binary_op("RealDiv", _NUMBER, _c_division)
FloorDiv = _binary_op("FloorDiv", _NUMBER, _floor_divide)
FloorMod = _binary_op("FloorMod", _REAL, _floor_mod)
Pow = _binary_op("Pow", _NUMBER, np.power)
Maximum = _binary_op("Maximum", _REAL, np.maximum)
Minimum = _binary_op("Minimum", _REAL, np.minimum)
Less = _binary_op("Less", _REAL, np.less, output="bool")
LessEqual = _binary_op("LessEqual", _REAL, np.less_equal, output="bool")
Greater = _binary_op("Greater", _REAL, np.greater, output="bool")
GreaterEqual = _binary_op("GreaterEqual", _REAL, np.greater_equal, output="bool")
LogicalAnd = Op("LogicalAnd", inputs=["x: bool", "y: bool"], outputs=["z: bool"])
LogicalAnd.shape(_broadcast_shape)
LogicalAnd.kernel("CPU", "GPU")(_binary_kernel(np.logical_and))
LogicalOr = Op("LogicalOr", inputs=["x: bool", "y: bool"], outputs=["z: bool"])
LogicalOr.shape(_broadcast_shape)
LogicalOr.kernel("CPU", "GPU")(_binary_kernel(np.logical_or))

Neg = _unary_op("Neg", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128}",
                np.negative)
Abs = _unary_op("Abs", _REAL, np.abs)
Square = _unary_op("Square", _NUMBER, np.square)
Invert = _unary_op("Invert", "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}", np.invert)
_INTEGER = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
BitwiseAnd = _binary_op("BitwiseAnd", _INTEGER, np.bitwise_and)
BitwiseOr = _binary_op("BitwiseOr", _INTEGER, np.bitwise_or)
BitwiseXor = _binary_op("BitwiseXor", _INTEGER, np.bitwise_xor)
LogicalNot = Op("LogicalNot", inputs=["x: bool"], outputs=["y: bool"])
LogicalNot.shape(_unary_shape)


@LogicalNot.kernel("CPU", "GPU")
def _logical_not(ctx: Any, x: Any) -> Any:
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


def negative(x: Any, name: str | None = None) -> Tensor:
    return Neg(x, name=name)


def abs(x: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    return Abs(x, name=name)


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


def floormod(x: Any, y: Any, name: str | None = None) -> Tensor:
    return FloorMod(x, y, name=name)


def pow(x: Any, y: Any, name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    with name_scope(name, "Pow", [x]) as scope:
        return Pow(x, y, name=scope)


_TRUEDIV_CASTS = {dtypes.int8: dtypes.float32, dtypes.uint8: dtypes.float32, dtypes.int16: dtypes.float32,
                  dtypes.uint16: dtypes.float32, dtypes.int32: dtypes.float64, dtypes.int64: dtypes.float64}


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Python 3 division: integers are cast to float first (int32/int64 to float64)."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"x and y must have the same dtype, got {x.dtype.base_dtype!r} != "
                            f"{y.dtype.base_dtype!r}")
        target = _TRUEDIV_CASTS.get(x.dtype.base_dtype)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return RealDiv(x, y, name=scope)


def divide(x: Any, y: Any, name: str | None = None) -> Tensor:
    """`tf.divide`: Python 3 semantics, as `x / y`."""
    return truediv(x, y, name=name)


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

# -- MatMul, BatchMatMulV2, Conj --------------------------------------------------------------------

_MATMUL_TYPES = ("{bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, int8, int16, "
                 "complex64, complex128}")

MatMul = Op("MatMul", inputs=["a: T", "b: T"], outputs=["product: T"],
            attrs=["transpose_a: bool = false", "transpose_b: bool = false", f"T: {_MATMUL_TYPES}",
                   "grad_a: bool = false", "grad_b: bool = false"])


def _inner_dims_match(a: list, b: list) -> None:
    if a[-1] is not None and b[-2] is not None and a[-1] != b[-2]:
        raise ValueError(f"Dimensions must be equal, but are {a[-1]} and {b[-2]}")


@MatMul.shape
def _matmul_shape(op: Any) -> list:
    a, b = op.inputs[0].shape, op.inputs[1].shape
    for s in (a, b):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims}")
    a = a.as_list() if a.ndims is not None else [None, None]
    b = b.as_list() if b.ndims is not None else [None, None]
    if op.node_def.attr["transpose_a"]:
        a = a[::-1]
    if op.node_def.attr["transpose_b"]:
        b = b[::-1]
    _inner_dims_match(a, b)
    return [tensor_shape.TensorShape([a[0], b[1]])]


@MatMul.kernel("CPU", "GPU", expensive=True)
def _matmul(ctx: Any, a: Any, b: Any, transpose_a: bool, transpose_b: bool) -> Any:
    if a.ndim != 2 or b.ndim != 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"In[{0 if a.ndim != 2 else 1}] is not a matrix. "
                                          f"Instead it has shape {tensor_util.shape_string((a if a.ndim != 2 else b).shape)}")
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Matrix size-incompatible: In[0]: {tensor_util.shape_string(a.shape)}, "
            f"In[1]: {tensor_util.shape_string(b.shape)}")
    return ctx.xp.matmul(a, b)


BatchMatMulV2 = Op("BatchMatMulV2", inputs=["x: T", "y: T"], outputs=["output: T"],
                   attrs=[f"T: {_MATMUL_TYPES}", "adj_x: bool = false", "adj_y: bool = false",
                          "grad_x: bool = false", "grad_y: bool = false"])


@BatchMatMulV2.shape
def _batch_matmul_shape(op: Any) -> list:
    x, y = op.inputs[0].shape, op.inputs[1].shape
    for s in (x, y):
        if s.ndims is not None and s.ndims < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {s.ndims}")
    if x.ndims is None or y.ndims is None:
        return [tensor_shape.unknown_shape()]
    xs, ys = x.as_list(), y.as_list()
    if op.node_def.attr["adj_x"]:
        xs[-2:] = xs[-1], xs[-2]
    if op.node_def.attr["adj_y"]:
        ys[-2:] = ys[-1], ys[-2]
    _inner_dims_match(xs, ys)
    batch = broadcast_static_shape(tensor_shape.TensorShape(xs[:-2]), tensor_shape.TensorShape(ys[:-2]))
    return [batch.concatenate([xs[-2], ys[-1]])]


@BatchMatMulV2.kernel("CPU", "GPU", expensive=True)
def _batch_matmul(ctx: Any, x: Any, y: Any, adj_x: bool, adj_y: bool) -> Any:
    xp = ctx.xp
    if x.ndim < 2 or y.ndim < 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"In[{0 if x.ndim < 2 else 1}] ndims must be >= 2: "
                                          f"{min(x.ndim, y.ndim)}")
    if adj_x:
        x = xp.conj(xp.swapaxes(x, -1, -2))
    if adj_y:
        y = xp.conj(xp.swapaxes(y, -1, -2))
    if x.shape[-1] != y.shape[-2]:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Matrix size-incompatible: In[0]: {tensor_util.shape_string(x.shape)}, "
            f"In[1]: {tensor_util.shape_string(y.shape)}")
    try:
        return xp.matmul(x, y)
    except ValueError:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"In[0] and In[1] must have compatible batch dimensions: "
            f"{tensor_util.shape_string(x.shape)} vs. {tensor_util.shape_string(y.shape)}") from None


Conj = Op("Conj", inputs=["input: T"], outputs=["output: T"], attrs=["T: {complex64, complex128, variant} = DT_COMPLEX64"])
Conj.shape(_unary_shape)


@Conj.kernel("CPU", "GPU")
def _conj(ctx: Any, input: Any) -> Any:  # noqa: A002
    return ctx.xp.conj(input)


def conj(x: Any, name: str | None = None) -> Tensor:
    """The complex conjugate; real tensors are returned as they are (no op), as in TF."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_complex:
        return Conj(x, name=name)
    return x


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           name: str | None = None) -> Tensor:
    """a @ b: MatMul for matrices, BatchMatMulV2 when either side may have batch dimensions (as TF)."""
    if transpose_a and adjoint_a:
        raise ValueError("Only one of transpose_a and adjoint_a can be True.")
    if transpose_b and adjoint_b:
        raise ValueError("Only one of transpose_b and adjoint_b can be True.")
    with name_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype=a.dtype.base_dtype, name="b")
        if a.shape.ndims is None or a.shape.ndims > 2 or b.shape.ndims is None or b.shape.ndims > 2:
            if transpose_a:
                a, adjoint_a = conj(a), True
            if transpose_b:
                b, adjoint_b = conj(b), True
            return BatchMatMulV2(a, b, adj_x=adjoint_a, adj_y=adjoint_b, name=scope)
        if adjoint_a:
            a, transpose_a = conj(a), True
        if adjoint_b:
            b, transpose_b = conj(b), True
        return MatMul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, name=scope)

# -- Cast --------------------------------------------------------------------------------------------

Cast = Op("Cast", inputs=["x: SrcT"], outputs=["y: DstT"], attrs=["SrcT: type", "DstT: type",
                                                                  "Truncate: bool = false"])


@Cast.shape
def _cast_shape(op: Any) -> list:
    return [op.inputs[0].shape]


@Cast.kernel("CPU", "GPU")
def _cast(ctx: Any, x: Any, DstT: dtypes.DType) -> Any:  # noqa: N803 - TF's attr name
    target = DstT.as_numpy_dtype
    if np.iscomplexobj(x) and not DstT.is_complex:
        x = np.real(x)
    if DstT == dtypes.string or np.asarray(x).dtype.kind == "O":
        raise errors.UnimplementedError(ctx.node_def, None, "Cast string to/from a number is not supported")
    return x.astype(target, copy=False) if isinstance(x, np.ndarray) else np.asarray(x).astype(target)


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

# -- Reductions --------------------------------------------------------------------------------------


def _reduction_shape(op: Any) -> list:
    shape = op.inputs[0].shape
    keep_dims = op.node_def.attr["keep_dims"]
    axes = tensor_util.constant_value(op.inputs[1])
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if axes is None:
        return [tensor_shape.unknown_shape(rank=shape.ndims) if keep_dims else tensor_shape.unknown_shape()]
    rank = shape.ndims
    axes_set = set()
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < max(rank, 1):
            raise ValueError(f"Invalid reduction dimension {a} for input with {rank} dimensions.")
        axes_set.add(a % rank if rank else 0)
    dims = shape.as_list()
    if keep_dims:
        return [tensor_shape.TensorShape([1 if i in axes_set else d for i, d in enumerate(dims)])]
    return [tensor_shape.TensorShape([d for i, d in enumerate(dims) if i not in axes_set])]


def _reduction_axes(ctx: Any, x: Any, axes: Any) -> tuple[int, ...]:
    rank = np.ndim(x)
    result = []
    for a in np.asarray(axes).reshape(-1):
        a = int(a)
        if not -rank <= a < max(rank, 1):
            raise errors.InvalidArgumentError(ctx.node_def, None, f"Invalid reduction dimension ({a} for input "
                                              f"with {rank} dimension(s)")
        a = a % rank if rank else 0
        if a in result:
            raise errors.InvalidArgumentError(ctx.node_def, None, "Invalid reduction arguments: Axes contains "
                                              f"duplicate dimension: {a}")
        result.append(a)
    return tuple(result) if rank else ()


def _reduction_op(name: str, types: str) -> Op:
    op = Op(name, inputs=["input: T", "reduction_indices: Tidx"], outputs=["output: T"],
            attrs=["keep_dims: bool = false", f"T: {types}", "Tidx: {int32, int64} = DT_INT32"])
    op.shape(_reduction_shape)
    return op


Sum = _reduction_op("Sum", _NUMBER)
Mean = _reduction_op("Mean", _NUMBER)
Max = _reduction_op("Max", _REAL)
Min = _reduction_op("Min", _REAL)
Prod = _reduction_op("Prod", _NUMBER)


@Sum.kernel("CPU", "GPU")
def _sum(ctx: Any, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    return ctx.xp.sum(input, axis=_reduction_axes(ctx, input, reduction_indices), keepdims=keep_dims,
                      dtype=input.dtype)


@Prod.kernel("CPU", "GPU")
def _prod(ctx: Any, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    return ctx.xp.prod(input, axis=_reduction_axes(ctx, input, reduction_indices), keepdims=keep_dims,
                       dtype=input.dtype)


@Mean.kernel("CPU", "GPU")
def _mean(ctx: Any, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
    axes = _reduction_axes(ctx, input, reduction_indices)
    xp = ctx.xp
    if input.dtype.kind in "iu":
        count = int(np.prod([input.shape[a] for a in axes], dtype=np.int64)) if axes else 1
        total = xp.sum(input, axis=axes, keepdims=keep_dims, dtype=np.int64)
        return _c_division(total, np.int64(max(count, 1))).astype(input.dtype)
    if input.dtype == np.float16:
        return xp.mean(input, axis=axes, keepdims=keep_dims, dtype=np.float32).astype(np.float16)
    return xp.mean(input, axis=axes, keepdims=keep_dims)


def _extreme_kernel(fn: Callable) -> Callable:
    def kernel(ctx: Any, input: Any, reduction_indices: Any, keep_dims: bool) -> Any:  # noqa: A002
        axes = _reduction_axes(ctx, input, reduction_indices)
        if input.size == 0 and any(input.shape[a] == 0 for a in axes):
            raise errors.InvalidArgumentError(ctx.node_def, None, "Reduction of an empty dimension")
        return fn(input, axis=axes, keepdims=keep_dims)
    return kernel


Max.kernel("CPU", "GPU")(_extreme_kernel(np.max))
Min.kernel("CPU", "GPU")(_extreme_kernel(np.min))


def _reduce(op: Op, input_tensor: Any, axis: Any, keepdims: Any, name: str | None, reduction_indices: Any,
            keep_dims: Any) -> Tensor:
    """TF1's reduce_* wrappers: `axis`/`reduction_indices` and `keepdims`/`keep_dims` aliases."""
    if axis is not None and reduction_indices is not None:
        raise ValueError("Cannot specify both 'axis' and 'reduction_indices'.")
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keepdims' and 'keep_dims'.")
    axis = reduction_indices if axis is None else axis
    keepdims = bool(keep_dims if keepdims is None else keepdims)
    x = convert_to_tensor(input_tensor, name="input_tensor")
    reduce_all = axis is None
    if reduce_all:
        rank = x.shape.ndims
        if rank is not None:
            axis = array_ops.constant(np.arange(rank, dtype=np.int32))
        else:
            axis = range(0, array_ops.rank(x))
    result = op(x, axis, keep_dims=keepdims, name=name)
    if reduce_all and not keepdims:
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
# `range` (below) and `abs` are TF's public names here, so this module spells the builtins `builtins.range`
# and `builtins.abs`.


def _equality_op(name: str, fn: Callable) -> Op:
    """Elementwise ==/!= of any type; with `incompatible_shape_error` false, shapes that do not broadcast
    give a scalar (False for Equal, True for NotEqual) instead of an error."""
    op = Op(name, inputs=["x: T", "y: T"], outputs=["z: bool"],
            attrs=["T: type", "incompatible_shape_error: bool = true"])
    broadcast = _binary_kernel(fn)

    @op.shape
    def shape(node: Any) -> list:
        try:
            return _broadcast_shape(node)
        except ValueError:
            if node.node_def.attr["incompatible_shape_error"]:
                raise
            return [tensor_shape.unknown_shape()]

    @op.kernel("CPU", "GPU")
    def kernel(ctx: Any, x: Any, y: Any, incompatible_shape_error: bool) -> Any:
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


def _cpp_str(v: Any) -> str:
    """A number as TF's C++ messages print it: floats with six significant digits."""
    return f"{float(v):g}" if isinstance(v, (float, np.floating)) else str(v)


def _range_size(start: Any, limit: Any, delta: Any) -> int:
    """The length of [start, limit) in steps of a non-zero delta, with TF's checks and messages."""
    if delta > 0 and start > limit:
        raise ValueError(f"Requires start <= limit when delta > 0: {_cpp_str(start)}/{_cpp_str(limit)}")
    if delta < 0 and start < limit:
        raise ValueError(f"Requires start >= limit when delta < 0: {_cpp_str(start)}/{_cpp_str(limit)}")
    if isinstance(start, (int, np.integer)):
        return -(-builtins.abs(int(limit) - int(start)) // builtins.abs(int(delta)))
    return int(np.ceil(np.abs((limit - start) / delta)))


@Range.shape
def _range_shape(op: Any) -> list:
    for arg, t in zip(("start", "limit", "delta"), op.inputs):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims}\n\t for '{arg}'")
    values = [tensor_util.constant_value(t) for t in op.inputs]
    if any(v is None for v in values):
        return [tensor_shape.TensorShape([None])]
    start, limit, delta = (v.reshape(-1)[0] for v in values)
    if delta == 0:
        raise ValueError("Requires delta != 0")
    return [tensor_shape.TensorShape([_range_size(start, limit, delta)])]


@Range.kernel("CPU", "GPU")
def _range(ctx: Any, start: Any, limit: Any, delta: Any) -> Any:
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
            dtype = max((a.dtype.base_dtype for a in args), key=_RANGE_TYPES.index)
        start, limit, delta = (cast(a, dtype) for a in args)
        return Range(start, limit, delta, name=scope)
