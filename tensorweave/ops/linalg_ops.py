"""Linear algebra: the matrix products MatMul, BatchMatMulV2 and SparseMatMul (`tf.matmul` chooses among them
as TF does, and is installed as `Tensor.__matmul__` when this module is imported), the QR decomposition and
the diagonal of a square tensor.

Qr and DiagPart exist for what builds on them (the orthogonal initializer), with TF's op types and attrs so
graphs round-trip with real TF; the batched forms run over the leading dimensions as TF's kernels do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import raw_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import binary_overload, conj
from tensorweave.ops.kernel_helpers import C64, C128, F16, F32, F64, in_float32
from tensorweave.ops.shape_helpers import broadcast_shapes
from tensorweave.platform.tf_export import tf_export

# -- MatMul, BatchMatMulV2, SparseMatMul -------------------------------------------------------------

_MATMUL_TYPES = "{bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128}"
# MatMul's and BatchMatMulV2's CPU kernels: no unsigned ones.
_MATMUL_KERNEL_TYPES = (dtypes.int64, dtypes.int32, dtypes.int16, F64, F32, dtypes.bfloat16, F16, C128, C64)

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
    return ctx.xp.matmul(in_float32(a), in_float32(b)).astype(a.dtype, copy=False)


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
    batch = broadcast_shapes(tensor_shape.TensorShape(xs[:-2]), tensor_shape.TensorShape(ys[:-2]))
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
        return xp.matmul(in_float32(x), in_float32(y)).astype(x.dtype, copy=False)
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
    a, b = in_float32(a), in_float32(b)
    return ctx.xp.matmul(a.T if transpose_a else a, b.T if transpose_b else b)


@tf_export("sparse_matmul")
def sparse_matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, a_is_sparse: bool = False,
                  b_is_sparse: bool = False, name: str | None = None) -> Tensor:
    """`tf.sparse_matmul`: a float32 product of float32 or bfloat16 matrices."""
    return SparseMatMul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, a_is_sparse=a_is_sparse,
                        b_is_sparse=b_is_sparse, name=name)


@tf_export("linalg.matmul", "matmul")
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


# `a @ b` is `tf.matmul`, installed as TF's math_ops installs it.
_matmul_operator, _rmatmul_operator = binary_overload(matmul, "matmul")
Tensor._override_operator("__matmul__", _matmul_operator)
Tensor._override_operator("__rmatmul__", _rmatmul_operator)


# -- Qr, DiagPart ------------------------------------------------------------------------------------

Qr = Op("Qr", inputs=["input: T"], outputs=["q: T", "r: T"],
        attrs=["full_matrices: bool = false", "T: {double, float, half, complex64, complex128}"])


@Qr.shape
def _qr_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    if shape.ndims < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {shape.ndims}")
    *batch, rows, cols = shape.dims
    rows, cols = rows.value, cols.value
    if ctx.attr("full_matrices"):
        q_cols = rows
        r_rows = rows
    else:
        q_cols = None if rows is None or cols is None else min(rows, cols)
        r_rows = q_cols
    return [tensor_shape.TensorShape(batch + [rows, q_cols]), tensor_shape.TensorShape(batch + [r_rows, cols])]


@Qr.kernel("CPU", expensive=True)
def _qr(ctx: OpKernelContext, input: Any, full_matrices: bool) -> tuple[Any, Any]:  # noqa: A002 - TF's arg name
    if input.ndim < 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Input tensor 0 must have rank >= 2, got "
                                          f"{input.ndim}")
    q, r = ctx.xp.linalg.qr(input, mode="complete" if full_matrices else "reduced")
    return q.astype(input.dtype, copy=False), r.astype(input.dtype, copy=False)


DiagPart = Op("DiagPart", inputs=["input: T"], outputs=["diagonal: T"],
              attrs=["T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"])


@DiagPart.shape
def _diag_part_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = ctx.input_shape(0)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    if shape.ndims % 2 or not shape.ndims:
        raise ValueError(f"Input must have even and non-zero rank, input rank is {shape.ndims}")
    half = shape.ndims // 2
    dims = []
    for a, b in zip(shape.dims[:half], shape.dims[half:]):
        if not a.is_compatible_with(b):
            raise ValueError(f"Dimensions must be equal, but are {a.value} and {b.value}")
        dims.append(a.merge_with(b))
    return [tensor_shape.TensorShape(dims)]


@DiagPart.kernel("CPU")
def _diag_part(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002 - TF's arg name
    """input[i1..ik, i1..ik] for every index tuple: the diagonal of the input seen as a square matrix."""
    half = input.ndim // 2
    if input.ndim % 2 or input.shape[:half] != input.shape[half:]:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"Invalid shape {list(input.shape)}: dimensions "
                                          f"must match for the input's two halves")
    size = int(np.prod(input.shape[:half], dtype=np.int64))
    return ctx.xp.diagonal(input.reshape(size, size)).reshape(input.shape[:half])


# -- Gradients -----------------------------------------------------------------------------------------

@MatMul.gradient
def _matmul_grad(op: Any, grad: Tensor) -> list:
    """TF's four cases by transposition, so no Transpose op is added."""
    a, b = conj(op.inputs[0]), conj(op.inputs[1])
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    if not t_a and not t_b:
        return [MatMul(grad, b, transpose_b=True), MatMul(a, grad, transpose_a=True)]
    if not t_a:
        return [MatMul(grad, b), MatMul(grad, a, transpose_a=True)]
    if not t_b:
        return [MatMul(b, grad, transpose_b=True), MatMul(a, grad)]
    return [MatMul(b, grad, transpose_a=True, transpose_b=True), MatMul(grad, a, transpose_a=True, transpose_b=True)]


@BatchMatMulV2.gradient
def _batch_matmul_v2_grad(op: Any, grad: Tensor) -> list:
    """The four cases by adjoint, each summed back over the batch dimensions its input was broadcast along."""
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x and not adj_y:
        gx, gy = BatchMatMulV2(grad, y, adj_y=True), BatchMatMulV2(x, grad, adj_x=True)
    elif not adj_x:
        gx, gy = BatchMatMulV2(grad, y), BatchMatMulV2(grad, x, adj_x=True)
    elif not adj_y:
        gx, gy = BatchMatMulV2(y, grad, adj_y=True), BatchMatMulV2(x, grad)
    else:
        gx, gy = BatchMatMulV2(y, grad, adj_x=True, adj_y=True), BatchMatMulV2(grad, x, adj_x=True, adj_y=True)
    if (x.shape.is_fully_defined() and y.shape.is_fully_defined()
            and x.shape.as_list()[:-2] == y.shape.as_list()[:-2]):
        return [gx, gy]
    sx, sy = raw_ops.Shape(input=x), raw_ops.Shape(input=y)
    rx, ry = raw_ops.BroadcastGradientArgs(s0=sx[:-2], s1=sy[:-2])
    return [raw_ops.Reshape(tensor=raw_ops.Sum(input=gx, reduction_indices=rx), shape=sx),
            raw_ops.Reshape(tensor=raw_ops.Sum(input=gy, reduction_indices=ry), shape=sy)]
