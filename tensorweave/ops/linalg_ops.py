"""Linear algebra: the matrix products MatMul, BatchMatMulV2 and SparseMatMul (`tf.matmul` chooses among them
as TF does, and is installed as `Tensor.__matmul__` when this module is imported), the QR decomposition, the
diagonal of a square tensor, the band and diagonals of batched matrices (MatrixBandPart, MatrixDiag,
MatrixDiagPart, MatrixSetDiag and their V3 forms with diagonal ranges and alignments), Cross, Einsum, and the
composites built on them (trace, eye, adjoint, matvec, tensordot, norm). Solvers and decompositions are in
`linalg_decompositions`.

Qr and DiagPart exist for what builds on them (the orthogonal initializer), with TF's op types and attrs so
graphs round-trip with real TF; the batched forms run over the leading dimensions as TF's kernels do.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import elementwise_ops, raw_ops, sequence_ops, shape_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import binary_overload, conj, sqrt
from tensorweave.ops.fill_ops import ones, zeros, zeros_like
from tensorweave.ops.indexing_ops import gather
from tensorweave.ops.kernel_helpers import BFLOAT16, C64, C128, F16, F32, F64, in_float32, invalid_argument
from tensorweave.ops.manipulation_ops import concat, matrix_transpose, stack, transpose
from tensorweave.ops.reduction_ops import reduce_max, reduce_prod, reduce_sum, reduced_shape
from tensorweave.ops.set_ops import ListDiff
from tensorweave.ops.shape_helpers import broadcast_shapes, merge_dim, with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import expand_dims, reshape, squeeze
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
def matmul_kernel(ctx: OpKernelContext, a: Any, b: Any, transpose_a: bool, transpose_b: bool,
                  epilogue: Callable[[Any, slice], None] | None = None) -> Any:
    """MatMul's kernel (a fused MatMul's product too, `epilogue` applied to its blocks: see Device.matmul):
    always a new array."""
    if a.ndim != 2 or b.ndim != 2:
        raise errors.InvalidArgumentError(ctx.node_def, None, f"In[{0 if a.ndim != 2 else 1}] is not a matrix. "
                                          f"Instead it has shape {tensor_shape.shape_string((a if a.ndim != 2 else b).shape)}")
    a = a.T if transpose_a else a
    b = b.T if transpose_b else b
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"Matrix size-incompatible: In[0]: {tensor_shape.shape_string(a.shape)}, "
            f"In[1]: {tensor_shape.shape_string(b.shape)}")
    return ctx.device.matmul(in_float32(a), in_float32(b), epilogue=epilogue).astype(a.dtype, copy=False)


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
            ctx.node_def, None, f"Matrix size-incompatible: In[0]: {tensor_shape.shape_string(x.shape)}, "
            f"In[1]: {tensor_shape.shape_string(y.shape)} {int(adj_x)} {int(adj_y)}")
    if adj_x:
        x = xp.conj(xp.swapaxes(x, -1, -2))
    if adj_y:
        y = xp.conj(xp.swapaxes(y, -1, -2))
    try:
        return xp.matmul(in_float32(x), in_float32(y)).astype(x.dtype, copy=False)
    except ValueError:
        raise errors.InvalidArgumentError(
            ctx.node_def, None, f"In[0] and In[1] must have compatible batch dimensions: "
            f"{tensor_shape.shape_string(x.shape)} vs. {tensor_shape.shape_string(y.shape)}") from None


_BATCH_MATMUL_V3_TYPES = "{bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, complex128}"
BatchMatMulV3 = Op("BatchMatMulV3", inputs=["x: Ta", "y: Tb"], outputs=["output: Tout"],
                   attrs=[f"Ta: {_BATCH_MATMUL_V3_TYPES}", f"Tb: {_BATCH_MATMUL_V3_TYPES}",
                          "Tout: {bfloat16, half, float, double, int16, int32, int64, complex64, complex128}",
                          "adj_x: bool = false", "adj_y: bool = false", "grad_x: bool = false",
                          "grad_y: bool = false"])
BatchMatMulV3.shape(_batch_matmul_shape)


def _batch_matmul_v3(ctx: OpKernelContext, x: Any, y: Any, adj_x: bool, adj_y: bool, Tout: dtypes.DType) -> Any:  # noqa: N803
    """BatchMatMulV2's product of operands of types Ta and Tb, computed in and returned as Tout (8-bit integers
    accumulate in int32; bfloat16 with an 8-bit integer computes in float32 and rounds once)."""
    out = np.dtype(Tout.as_numpy_dtype)
    compute = np.float32 if out == BFLOAT16 else out
    return _batch_matmul(ctx, x.astype(compute, copy=False), y.astype(compute, copy=False), adj_x,
                         adj_y).astype(out, copy=False)


# BatchMatMulV3's CPU kernels: one type for all three, or TF's mixed 8-bit ones.
for _ta, _tb, _tout in ([(t, t, t) for t in (dtypes.int64, dtypes.int32, dtypes.int16, F64, F32, dtypes.bfloat16,
                                             C128, C64)]
                        + [(a, b, dtypes.int32) for a in (dtypes.uint8, dtypes.int8)
                           for b in (dtypes.uint8, dtypes.int8)]
                        + [(t, dtypes.bfloat16, dtypes.bfloat16) for t in (dtypes.uint8, dtypes.int8)]
                        + [(dtypes.bfloat16, t, dtypes.bfloat16) for t in (dtypes.uint8, dtypes.int8)]):
    BatchMatMulV3.kernel("CPU", expensive=True, type_constraints={"Ta": (_ta,), "Tb": (_tb,),
                                                                  "Tout": (_tout,)})(_batch_matmul_v3)


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
            ctx.node_def, None, f"Matrix size incompatible: a: {tensor_shape.shape_string(a.shape)}, b: "
            f"{tensor_shape.shape_string(b.shape)}")
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
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           output_type: dtypes.DType | None = None, grad_a: bool = False, grad_b: bool = False,
           name: str | None = None) -> Tensor:
    """a @ b as TF dispatches it: BatchMatMulV2 when either side may have batch dimensions, SparseMatMul for
    float32/bfloat16 sparsity hints or a bfloat16 operand mixed with another type, else MatMul; BatchMatMulV3
    instead of BatchMatMulV2 and MatMul when `output_type` differs from an operand's type."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        for side, transpose, adjoint in (("a", transpose_a, adjoint_a), ("b", transpose_b, adjoint_b)):
            if transpose and adjoint:
                raise ValueError(f"Only one of `transpose_{side}` and `adjoint_{side}` can be True. Received "
                                 f"`transpose_{side}`=True, `adjoint_{side}`=True.")
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype_hint=a.dtype.base_dtype, name="b")
        may_have_batch = (a.shape.ndims is None or a.shape.ndims > 2 or b.shape.ndims is None
                          or b.shape.ndims > 2)
        use_v3 = bool(output_type) and (output_type != a.dtype or output_type != b.dtype)
        if not a_is_sparse and not b_is_sparse and may_have_batch:
            if transpose_a:
                a, adjoint_a = conj(a), True
            if transpose_b:
                b, adjoint_b = conj(b), True
            if use_v3:
                return BatchMatMulV3(a, b, adj_x=adjoint_a, adj_y=adjoint_b, Tout=output_type, grad_x=grad_a,
                                     grad_y=grad_b, name=scope)
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
        if use_v3:
            return BatchMatMulV3(a, b, adj_x=transpose_a, adj_y=transpose_b, Tout=output_type, grad_x=grad_a,
                                 grad_y=grad_b, name=scope)
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
    x = input.astype(np.float32) if input.dtype == np.float16 else input  # half computes in float32
    q, r = ctx.xp.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q.astype(input.dtype, copy=False), r.astype(input.dtype, copy=False)


@tf_export("linalg.qr", "qr")
def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """Q and R with input = Q R for each innermost matrix (Q's columns orthonormal, R upper triangular)."""
    return Qr(input, full_matrices=full_matrices, name=name)


@Qr.gradient
def _qr_grad(op: Any, dq: Tensor, dr: Tensor) -> list:
    """TF's (arXiv:2009.10071): square and deep matrices directly, a wide one through its leading square part;
    not for deep matrices with full_matrices, nor for shapes unknown while building."""
    q, r = op.outputs
    if r.shape.ndims is None or r.shape.as_list()[-2] is None or r.shape.as_list()[-1] is None:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: {r.shape}")
    if r.shape.dims[-2].value > r.shape.dims[-1].value and q.shape.dims[-2].value == q.shape.dims[-1].value:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
                                  f"r.shape={r.shape} with nrows={r.shape.dims[-2]}and ncols={r.shape.dims[-1]}.")
    dq = zeros_like(q) if dq is None else dq
    dr = zeros_like(r) if dr is None else dr
    rows, cols = q.shape.dims[-2].value, r.shape.dims[-1].value
    if rows >= cols:
        return [_qr_grad_square_and_deep(q, r, dq, dr)]
    a = op.inputs[0]
    y, u = a[..., :, rows:], r[..., :, :rows]
    dv, du = dr[..., :, rows:], dr[..., :, :rows]
    dx = _qr_grad_square_and_deep(q, u, dq + matmul(y, dv, adjoint_b=True), du)
    return [concat([dx, matmul(q, dv)], axis=-1)]


def _qr_grad_square_and_deep(q: Tensor, r: Tensor, dq: Tensor, dr: Tensor) -> Tensor:
    """The QR gradient for rows >= cols without full_matrices (with TF's correction for complex inputs)."""

    def solve_by_r(x: Tensor) -> Tensor:  # x r^-H for the upper triangular r
        return adjoint(raw_ops.MatrixTriangularSolve(matrix=r, rhs=adjoint(x), lower=False, adjoint=False))

    qdq = matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - adjoint(qdq)
    rdr = matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - adjoint(rdr)
    tril = MatrixBandPart(qdq_ + rdr_, -1, 0)
    grad = matmul(q, dr + solve_by_r(tril)) + solve_by_r(dq - matmul(q, qdq))
    if q.dtype.is_complex:
        m = rdr - adjoint(qdq)
        eyem = matrix_set_diag(zeros_like(m), matrix_diag_part(m))
        correction = eyem - cast(elementwise_ops.real(eyem), q.dtype)
        grad = grad + solve_by_r(matmul(q, adjoint(correction)))
    return grad


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


Diag = Op("Diag", inputs=["diagonal: T"], outputs=["output: T"],
          attrs=["T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"])


@Diag.shape
def _diag_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = with_rank_at_least(ctx.input_shape(0), 1)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [shape.concatenate(shape)]


@Diag.kernel("CPU")
def _diag(ctx: OpKernelContext, diagonal: Any) -> Any:
    """The rank-2k tensor with diagonal[i1..ik] at [i1..ik, i1..ik] and zeros elsewhere."""
    if diagonal.ndim < 1:
        raise invalid_argument(ctx, f"Input must be at least rank 1, got {diagonal.ndim}")
    size = diagonal.size
    out = np.zeros((size, size), diagonal.dtype)
    out[np.arange(size), np.arange(size)] = diagonal.reshape(-1)
    return out.reshape(diagonal.shape + diagonal.shape)


@Diag.gradient
def _diag_grad(op: Any, grad: Tensor) -> list:
    return [DiagPart(grad)]


@DiagPart.gradient
def _diag_part_grad(op: Any, grad: Tensor) -> list:
    return [Diag(grad)]


@tf_export("linalg.tensor_diag", "diag")
def tensor_diag(diagonal: Any, name: str | None = None) -> Tensor:
    """A tensor of twice the rank with `diagonal` on its diagonal."""
    return Diag(diagonal, name=name)


@tf_export("linalg.tensor_diag_part", "diag_part")
def tensor_diag_part(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The diagonal of a tensor of even rank (input[i1..ik, i1..ik])."""
    return DiagPart(input, name=name)


# -- Gradients -----------------------------------------------------------------------------------------

@MatMul.gradient
def _matmul_grad(op: Any, grad: Tensor) -> list:
    return _matmul_grads(conj(op.inputs[0]), conj(op.inputs[1]), op.get_attr("transpose_a"),
                         op.get_attr("transpose_b"), grad, mark=True)


def _matmul_grads(a: Tensor, b: Tensor, t_a: bool, t_b: bool, grad: Tensor, mark: bool = False) -> list:
    """TF's four cases by transposition, so no Transpose op is added; `mark` sets MatMul's grad_a/grad_b attrs
    on the two products, as TF's MatMul gradient does."""
    first, second = ({"grad_a": True}, {"grad_b": True}) if mark else ({}, {})
    if not t_a and not t_b:
        return [MatMul(grad, b, transpose_b=True, **first), MatMul(a, grad, transpose_a=True, **second)]
    if not t_a:
        return [MatMul(grad, b, **first), MatMul(grad, a, transpose_a=True, **second)]
    if not t_b:
        return [MatMul(b, grad, transpose_b=True, **first), MatMul(a, grad, **second)]
    return [MatMul(b, grad, transpose_a=True, transpose_b=True, **first),
            MatMul(grad, a, transpose_a=True, transpose_b=True, **second)]


@SparseMatMul.gradient
def _sparse_matmul_grad(op: Any, grad: Tensor) -> list:
    """MatMul's gradients computed in float32 (the sparsity flags only tune the kernel), each cast back to its
    input's type (float or bfloat16)."""
    a, b = op.inputs
    grads = _matmul_grads(cast(a, dtypes.float32), cast(b, dtypes.float32), op.get_attr("transpose_a"),
                          op.get_attr("transpose_b"), grad)
    return [cast(g, t.dtype) for g, t in zip(grads, (a, b))]


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


@BatchMatMulV3.gradient
def _batch_matmul_v3_grad(op: Any, grad: Tensor) -> list:
    """TF's: the products by `tf.matmul` (marked grad_a/grad_b), summed back over broadcast batch dimensions."""
    x, y = op.inputs
    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    if not adj_x and not adj_y:
        gx, gy = matmul(grad, y, adjoint_b=True, grad_a=True), matmul(x, grad, adjoint_a=True, grad_b=True)
    elif not adj_x:
        gx, gy = matmul(grad, y, grad_a=True), matmul(grad, x, adjoint_a=True, grad_b=True)
    elif not adj_y:
        gx, gy = matmul(y, grad, adjoint_b=True, grad_a=True), matmul(x, grad, grad_b=True)
    else:
        gx = matmul(y, grad, adjoint_a=True, adjoint_b=True, grad_a=True)
        gy = matmul(grad, x, adjoint_a=True, adjoint_b=True, grad_b=True)
    sx, sy = x.shape, y.shape
    if not (sx.ndims is None or sx.ndims > 2 or sy.ndims is None or sy.ndims > 2) or (
            sx[:-2].is_fully_defined() and sy[:-2].is_fully_defined() and sx[:-2] == sy[:-2]):
        return [gx, gy]
    shape_x, shape_y = raw_ops.Shape(input=x), raw_ops.Shape(input=y)
    rx, ry = raw_ops.BroadcastGradientArgs(s0=shape_x[:-2], s1=shape_y[:-2])
    return [raw_ops.Reshape(tensor=raw_ops.Sum(input=gx, reduction_indices=rx), shape=shape_x),
            raw_ops.Reshape(tensor=raw_ops.Sum(input=gy, reduction_indices=ry), shape=shape_y)]


# -- MatrixBandPart ------------------------------------------------------------------------------------

MatrixBandPart = Op("MatrixBandPart", inputs=["input: T", "num_lower: Tindex", "num_upper: Tindex"],
                    outputs=["band: T"], attrs=["T: type", "Tindex: {int32, int64} = DT_INT64"])


@MatrixBandPart.shape
def _matrix_band_part_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's is UnchangedShape: the ranks are the kernel's to check."""
    return [ctx.input_shape(0)]


@MatrixBandPart.kernel("CPU")
def _matrix_band_part(ctx: OpKernelContext, input: Any, num_lower: Any, num_upper: Any) -> Any:  # noqa: A002
    """The entries with -num_lower <= j - i <= num_upper (a negative count keeps that whole triangle)."""
    if input.ndim < 2:
        raise invalid_argument(ctx, f"input must be at least 2-dim, received shape: "
                                    f"{tensor_shape.shape_string(input.shape)}")
    for arg, value in (("num_lower", num_lower), ("num_upper", num_upper)):
        if np.ndim(value) != 0:
            raise invalid_argument(ctx, f"{arg} must be scalar, got shape {tensor_shape.shape_string(np.shape(value))}")
    rows, cols = input.shape[-2:]
    lower, upper = int(num_lower), int(num_upper)
    if lower > rows:
        raise invalid_argument(ctx, f"num_lower must be negative or less or equal to number of rows ({rows}) "
                                    f"got: {lower}")
    if upper > cols:
        raise invalid_argument(ctx, f"num_upper must be negative or less or equal to number of columns ({cols}) "
                                    f"got: {upper}")
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = ((lower < 0) | (offset >= -lower)) & ((upper < 0) | (offset <= upper))
    return np.where(keep, input, np.zeros((), input.dtype))


@MatrixBandPart.gradient
def _matrix_band_part_grad(op: Any, grad: Tensor) -> list:
    return [MatrixBandPart(grad, op.inputs[1], op.inputs[2]), None, None]


@tf_export("linalg.band_part", "matrix_band_part")
def matrix_band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The central band of each innermost matrix: `num_lower` subdiagonals and `num_upper` superdiagonals."""
    return MatrixBandPart(input, num_lower, num_upper, name=name)


# -- MatrixDiag, MatrixDiagPart, MatrixSetDiag (V1 and V3) -----------------------------------------------

_ALIGN = "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'"


def _diag_range(k: Any, ctx: OpKernelContext | None = None) -> tuple[int, int]:
    """(lower, upper) of a diagonal index `k` (one or two elements); a kernel's `ctx` checks it as TF's do."""
    k = np.asarray(k)
    if ctx is not None:
        if k.ndim > 1:
            raise invalid_argument(ctx, f"diag_index must be a scalar or vector, received shape: "
                                        f"{tensor_shape.shape_string(k.shape)}")
        if k.ndim == 1 and not 0 < k.size <= 2:
            raise invalid_argument(ctx, f"diag_index must have only one or two elements, received {k.size} elements.")
    k = k.reshape(-1)
    return (int(k[0]), int(k[-1]))


def _diag_len(rows: int, cols: int, d: int) -> int:
    return min(rows + min(0, d), cols - max(0, d))


def _band_coords(rows: int, cols: int, lo: int, hi: int, align: str) -> tuple[Any, Any, Any, int]:
    """For diagonals hi down to lo of a rows x cols matrix, packed as TF packs them (superdiagonals aligned by
    the first word of `align`, subdiagonals by the second): each packed slot's row, column and whether it
    holds an entry, and the packed length."""
    d = hi - np.arange(hi - lo + 1)[:, None]
    lengths = np.minimum(rows + np.minimum(0, d), cols - np.maximum(0, d))
    width = int(lengths.max()) if lengths.size else 0
    words = (align.decode() if isinstance(align, bytes) else align).split("_")
    right = np.where(d >= 0, words[0] == "RIGHT", words[1] == "RIGHT")
    q = np.arange(width)[None, :] - np.where(right, width - lengths, 0)
    valid = (q >= 0) & (q < lengths)
    return np.where(valid, q + np.maximum(0, -d), 0), np.where(valid, q + np.maximum(0, d), 0), valid, width


def _check_diag_bounds(ctx: OpKernelContext, rows: int, cols: int, lo: int, hi: int, lower_stop: str) -> None:
    """TF's MatrixDiagPart/MatrixSetDiag checks of each diagonal index against the matrix (0 is in bound when
    it is empty), before the range's; `lower_stop` is the '.' TF's MatrixDiagPart message has after the lower
    index (its other messages have none)."""
    for which, index, stop in (("lower", lo, lower_stop), ("upper", hi, "")):
        if index != 0 and not -rows < index < cols:
            raise invalid_argument(ctx, f"{which}_diag_index is out of bound: {index}{stop} It must be between "
                                        f"{-rows} and {cols}")
    _check_diag_range(ctx, lo, hi)


def _check_diag_range(ctx: OpKernelContext, lo: int, hi: int) -> None:
    if lo > hi:
        raise invalid_argument(ctx, f"lower_diag_index must not be larger than upper_diag_index: {lo} > {hi}")


def _matrix_diag(ctx: OpKernelContext, diagonal: Any, lo: int, hi: int, rows: int, cols: int, padding: Any,
                 align: str) -> Any:
    _check_diag_range(ctx, lo, hi)
    width = diagonal.shape[-1]
    if lo != hi:
        if diagonal.ndim < 2 or diagonal.shape[-2] != hi - lo + 1:
            raise invalid_argument(ctx, "The number of diagonals provided in the input does not match the "
                                        "lower_diag_index and upper_diag_index range.")
        diagonal_batch = diagonal.shape[:-2]
    else:
        diagonal_batch, diagonal = diagonal.shape[:-1], diagonal[..., None, :]
    min_rows, min_cols = width - min(hi, 0), width + max(lo, 0)
    if rows != -1 and rows < min_rows:
        raise invalid_argument(ctx, "The number of rows is too small.")
    if cols != -1 and cols < min_cols:
        raise invalid_argument(ctx, "The number of columns is too small.")
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    if rows != min_rows and cols != min_cols:
        raise invalid_argument(ctx, "The number of rows or columns is not consistent with the specified d_lower, "
                                    "d_upper, and diagonal.")
    r, c, valid, _ = _band_coords(rows, cols, lo, hi, align)
    out = np.full(diagonal_batch + (rows, cols), padding, dtype=diagonal.dtype)
    slots = np.nonzero(valid)
    out[..., r[slots], c[slots]] = diagonal[..., slots[0], slots[1]]
    return out


def _matrix_diag_part(ctx: OpKernelContext, input: Any, lo: int, hi: int, padding: Any, align: str) -> Any:  # noqa: A002
    rows, cols = input.shape[-2:]
    _check_diag_bounds(ctx, rows, cols, lo, hi, ".")
    r, c, valid, _ = _band_coords(rows, cols, lo, hi, align)
    out = np.where(valid, input[..., r, c], np.asarray(padding, dtype=input.dtype))
    return out[..., 0, :] if lo == hi else out


def _matrix_set_diag(ctx: OpKernelContext, input: Any, diagonal: Any, lo: int, hi: int, align: str) -> Any:  # noqa: A002
    rows, cols = input.shape[-2:]
    _check_diag_bounds(ctx, rows, cols, lo, hi, "")
    r, c, valid, width = _band_coords(rows, cols, lo, hi, align)
    expected = input.shape[:-2] + ((width,) if lo == hi else (hi - lo + 1, width))
    if diagonal.shape != expected:
        raise invalid_argument(ctx, "Either first dimensions of diagonal don't match input.shape[:-2], or "
                                    "diagonal.shape[:-1] is not equal to the longests diagonal in range "
                                    "[lower_diag_index:upper_diag_index].\nInput shape: "
                                    f"{tensor_shape.shape_string(input.shape)}\nDiagonal shape: "
                                    f"{tensor_shape.shape_string(diagonal.shape)}\nExpected diagonal shape: "
                                    f"{tensor_shape.shape_string(expected)}")
    if lo == hi:
        diagonal = diagonal[..., None, :]
    out = input.copy()
    slots = np.nonzero(valid)
    out[..., r[slots], c[slots]] = diagonal[..., slots[0], slots[1]]
    return out


def _static_k(ctx: InferenceContext, index: int) -> tuple[int, int] | None:
    k = ctx.input_value(index)
    if ctx.input_shape(index).ndims is not None and ctx.input_shape(index).ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {ctx.input_shape(index).ndims}")
    return None if k is None else _diag_range(k)


MatrixDiag = Op("MatrixDiag", inputs=["diagonal: T"], outputs=["output: T"], attrs=["T: type"])
MatrixDiagV3 = Op("MatrixDiagV3", inputs=["diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32",
                                          "padding_value: T"], outputs=["output: T"], attrs=["T: type", _ALIGN])


@MatrixDiag.shape
def _matrix_diag_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    diagonal = with_rank_at_least(ctx.input_shape(0), 1)
    if diagonal.ndims is None:
        return [tensor_shape.unknown_shape()]
    return [diagonal.concatenate(diagonal[-1:])]


@MatrixDiagV3.shape
def _matrix_diag_v3_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """TF's MatrixDiagV2Shape: a num_rows or num_cols not known while building counts as -1 (inferred), and an
    unknown diagonal length as -1 too."""
    diagonal = with_rank_at_least(ctx.input_shape(0), 1)
    k = _static_k(ctx, 1)
    for i in (2, 3, 4):
        with_rank(ctx.input_shape(i), 0)
    if k is None or diagonal.ndims is None:
        return [tensor_shape.unknown_shape()]
    lo, hi = k
    if lo > hi:
        raise ValueError("lower_diag_index is greater than upper_diag_index")
    dims = [-1 if d is None else d for d in diagonal.as_list()]
    if lo < hi and dims[-2] != hi - lo + 1:
        raise ValueError(f"The number of rows of `diagonal` doesn't match the number of diagonals implied from "
                         f"`d_lower` and `d_upper`.\nnum_diags = {dims[-2]}, d_lower = {lo}, d_upper = {hi} "
                         f"{diagonal.ndims} {dims[-1]}")
    rows, cols = (-1 if ctx.input_value(i) is None else int(ctx.input_value(i)) for i in (2, 3))
    min_rows, min_cols = dims[-1] - min(hi, 0), dims[-1] + max(lo, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    if rows == -1:
        rows = min_rows
    elif rows < min_rows:
        raise ValueError("num_rows is too small")
    if cols == -1:
        cols = min_cols
    elif cols < min_cols:
        raise ValueError("num_cols is too small.")
    if rows != min_rows and cols != min_cols:
        raise ValueError(f"num_rows and num_cols are not consistent with lower_diag_index, upper_diag_index, and the "
                         f"length of the given diagonals.\nnum_rows = {rows} != min_num_rows = {min_rows}, num_cols = "
                         f"{cols} != min_num_cols = {min_cols}")
    batch = diagonal[:-1] if lo == hi else diagonal[:-2]
    return [batch.concatenate([rows if rows >= 0 else None, cols if cols >= 0 else None])]


@MatrixDiag.kernel("CPU")
def _matrix_diag_v1(ctx: OpKernelContext, diagonal: Any) -> Any:
    if diagonal.ndim < 1:
        raise invalid_argument(ctx, f"input must be at least 1-dim, received shape: "
                                    f"{tensor_shape.shape_string(diagonal.shape)}")
    return _matrix_diag(ctx, diagonal, 0, 0, -1, -1, 0, "RIGHT_LEFT")


@MatrixDiagV3.kernel("CPU")
def _matrix_diag_v3(ctx: OpKernelContext, diagonal: Any, k: Any, num_rows: Any, num_cols: Any, padding_value: Any,
                    align: str) -> Any:
    return _matrix_diag(ctx, diagonal, *_diag_range(k, ctx), int(num_rows), int(num_cols), padding_value, align)


MatrixDiagPart = Op("MatrixDiagPart", inputs=["input: T"], outputs=["diagonal: T"], attrs=["T: type"])
MatrixDiagPartV3 = Op("MatrixDiagPartV3", inputs=["input: T", "k: int32", "padding_value: T"],
                      outputs=["diagonal: T"], attrs=["T: type", _ALIGN])


@MatrixDiagPart.shape
def _matrix_diag_part_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = with_rank_at_least(ctx.input_shape(0), 2)
    if shape.ndims is None:
        return [tensor_shape.unknown_shape()]
    rows, cols = shape.dims[-1].value, shape.dims[-2].value
    return [shape[:-2].concatenate([None if rows is None or cols is None else min(rows, cols)])]


@MatrixDiagPartV3.shape
def _matrix_diag_part_v3_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = with_rank_at_least(ctx.input_shape(0), 2)
    k = _static_k(ctx, 1)
    if shape.ndims is None or k is None:
        return [tensor_shape.unknown_shape()]
    lo, hi = k
    if lo > hi:
        raise ValueError("lower_diag_index is greater than upper_diag_index")
    rows, cols = shape.dims[-2].value, shape.dims[-1].value
    width = None
    if rows is not None and cols is not None:
        _check_static_diag_bounds(rows, cols, lo, hi)
        width = min(rows + min(0, hi), cols - max(0, lo))
    inner = [width] if lo == hi else [hi - lo + 1, width]
    return [shape[:-2].concatenate(inner)]


@MatrixDiagPart.kernel("CPU")
def _matrix_diag_part_v1(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    if input.ndim < 2:
        raise invalid_argument(ctx, f"input must be at least 2-dim, received shape: "
                                    f"{tensor_shape.shape_string(input.shape)}")
    return _matrix_diag_part(ctx, input, 0, 0, 0, "RIGHT_LEFT")


@MatrixDiagPartV3.kernel("CPU")
def _matrix_diag_part_v3(ctx: OpKernelContext, input: Any, k: Any, padding_value: Any, align: str) -> Any:  # noqa: A002
    if input.ndim < 2:
        raise invalid_argument(ctx, f"input must be at least 2-dim, received shape: "
                                    f"{tensor_shape.shape_string(input.shape)}")
    return _matrix_diag_part(ctx, input, *_diag_range(k, ctx), padding_value, align)


MatrixSetDiag = Op("MatrixSetDiag", inputs=["input: T", "diagonal: T"], outputs=["output: T"], attrs=["T: type"])
MatrixSetDiagV3 = Op("MatrixSetDiagV3", inputs=["input: T", "diagonal: T", "k: int32"], outputs=["output: T"],
                     attrs=["T: type", _ALIGN])


@MatrixSetDiag.shape
def _matrix_set_diag_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_set_diag_output(ctx, (0, 0))]


def _check_static_diag_bounds(rows: int, cols: int, lo: int, hi: int) -> None:
    """TF's shape functions' check of the diagonal indices against a known matrix size (0 is in bound when the
    matrix is empty)."""
    for which, index in (("lower", lo), ("upper", hi)):
        if index != 0 and not -rows < index < cols:
            raise ValueError(f"{which}_diag_index is out of bound.")


@MatrixSetDiagV3.shape
def _matrix_set_diag_v3_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    k = _static_k(ctx, 2)
    if k is not None and k[0] > k[1]:
        raise ValueError("lower_diag_index is greater than upper_diag_index")
    output = _set_diag_output(ctx, k)
    input_shape = ctx.input_shape(0)
    if input_shape.ndims is not None and k is not None:
        rows, cols = input_shape.dims[-2].value, input_shape.dims[-1].value
        if rows is not None and cols is not None:
            _check_static_diag_bounds(rows, cols, *k)
    return [output]


def _set_diag_output(ctx: InferenceContext, k: tuple[int, int] | None) -> tensor_shape.TensorShape:
    """TF's check of the diagonal's rank against the input's (one less for a single diagonal `k`), and the
    input's shape completed from the diagonal's leading dimensions."""
    shape = with_rank_at_least(ctx.input_shape(0), 2)
    diag = with_rank_at_least(ctx.input_shape(1), 1)
    if shape.ndims is not None:
        if k is not None:
            diag = with_rank(diag, shape.ndims - 1 if k[0] == k[1] else shape.ndims)
        elif diag.ndims is not None:
            with_rank_at_least(diag, shape.ndims - 1)
            if diag.ndims > shape.ndims:
                raise ValueError(f"Shape must be at most rank {shape.ndims} but is rank {diag.ndims}")
    if diag.ndims is None or shape.is_fully_defined():
        return shape
    guess = diag[:-1].concatenate([None, None])  # TF drops one dimension even for a range of diagonals
    if shape.ndims is None:
        return guess
    if shape.ndims != guess.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {shape.ndims} and {guess.ndims}")
    return tensor_shape.TensorShape([merge_dim(a, b) for a, b in zip(shape.dims, guess.dims)])


@MatrixSetDiag.kernel("CPU")
def _matrix_set_diag_v1(ctx: OpKernelContext, input: Any, diagonal: Any) -> Any:  # noqa: A002
    return _matrix_set_diag(ctx, input, diagonal, 0, 0, "RIGHT_LEFT")


@MatrixSetDiagV3.kernel("CPU")
def _matrix_set_diag_v3(ctx: OpKernelContext, input: Any, diagonal: Any, k: Any, align: str) -> Any:  # noqa: A002
    return _matrix_set_diag(ctx, input, diagonal, *_diag_range(k, ctx), align)


@MatrixDiag.gradient
def _matrix_diag_grad(op: Any, grad: Tensor) -> list:
    return [matrix_diag_part(grad)]


# The V2 ops (raw ops only) are V3 with TF's old alignment of every diagonal to the left.
MatrixDiagV2 = Op("MatrixDiagV2", inputs=["diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32",
                                          "padding_value: T"], outputs=["output: T"], attrs=["T: type"])
MatrixDiagPartV2 = Op("MatrixDiagPartV2", inputs=["input: T", "k: int32", "padding_value: T"],
                      outputs=["diagonal: T"], attrs=["T: type"])
MatrixSetDiagV2 = Op("MatrixSetDiagV2", inputs=["input: T", "diagonal: T", "k: int32"], outputs=["output: T"],
                     attrs=["T: type"])
MatrixDiagV2.shape(_matrix_diag_v3_shape)
MatrixDiagPartV2.shape(_matrix_diag_part_v3_shape)
MatrixSetDiagV2.shape(_matrix_set_diag_v3_shape)


@MatrixDiagV2.kernel("CPU")
def _matrix_diag_v2(ctx: OpKernelContext, diagonal: Any, k: Any, num_rows: Any, num_cols: Any,
                    padding_value: Any) -> Any:
    return _matrix_diag_v3(ctx, diagonal, k, num_rows, num_cols, padding_value, "LEFT_LEFT")


@MatrixDiagPartV2.kernel("CPU")
def _matrix_diag_part_v2(ctx: OpKernelContext, input: Any, k: Any, padding_value: Any) -> Any:  # noqa: A002
    return _matrix_diag_part_v3(ctx, input, k, padding_value, "LEFT_LEFT")


@MatrixSetDiagV2.kernel("CPU")
def _matrix_set_diag_v2(ctx: OpKernelContext, input: Any, diagonal: Any, k: Any) -> Any:  # noqa: A002
    return _matrix_set_diag_v3(ctx, input, diagonal, k, "LEFT_LEFT")


# The gradients are TF's: built with the public wrappers (V3 ops named diag, diag_part, set_diag), a V2 op's with
# their default alignment, RIGHT_LEFT, even though the V2 op aligns LEFT_LEFT.

@MatrixDiagV2.gradient
@MatrixDiagV3.gradient
def _matrix_diag_v3_grad(op: Any, grad: Tensor) -> list:
    align = op.get_attr("align") if op.type == "MatrixDiagV3" else "RIGHT_LEFT"
    return [matrix_diag_part(grad, k=op.inputs[1], align=align), None, None, None, None]


@MatrixDiagPart.gradient
def _matrix_diag_part_grad(op: Any, grad: Tensor) -> list:
    matrix_shape = op.inputs[0].shape[-2:]
    if matrix_shape.is_fully_defined() and matrix_shape[0] == matrix_shape[1]:
        return [matrix_diag(grad)]
    return [matrix_set_diag(zeros_like(op.inputs[0]), grad)]


@MatrixDiagPartV2.gradient
@MatrixDiagPartV3.gradient
def _matrix_diag_part_v3_grad(op: Any, grad: Tensor) -> list:
    matrix_shape = op.inputs[0].shape[-2:]
    align = op.get_attr("align") if op.type == "MatrixDiagPartV3" else "RIGHT_LEFT"
    if matrix_shape.is_fully_defined():
        rows, cols = matrix_shape.as_list()
        return [matrix_diag(grad, k=op.inputs[1], num_rows=rows, num_cols=cols, align=align), None, None]
    return [matrix_set_diag(zeros_like(op.inputs[0]), grad, k=op.inputs[1], align=align), None, None]


@MatrixSetDiag.gradient
def _matrix_set_diag_grad(op: Any, grad: Tensor) -> list:
    input_shape = op.inputs[0].shape.merge_with(grad.shape)
    diag_shape = op.inputs[1].shape
    batch_shape = input_shape[:-2].merge_with(diag_shape[:-1])
    matrix_shape = input_shape[-2:]
    if batch_shape.is_fully_defined() and matrix_shape.is_fully_defined():
        zero_diag = zeros(batch_shape.as_list() + [min(matrix_shape.as_list())], dtype=grad.dtype)
    else:  # TF computes the diagonal's shape from grad's; it is the diagonal input's
        zero_diag = zeros_like(op.inputs[1])
    return [matrix_set_diag(grad, zero_diag), matrix_diag_part(grad)]


@MatrixSetDiagV2.gradient
@MatrixSetDiagV3.gradient
def _matrix_set_diag_v3_grad(op: Any, grad: Tensor) -> list:
    k = op.inputs[2]
    align = op.get_attr("align") if op.type == "MatrixSetDiagV3" else "RIGHT_LEFT"
    diag_shape = op.inputs[1].shape
    if diag_shape.is_fully_defined():
        zero_diag = zeros(diag_shape.as_list(), dtype=grad.dtype)
    else:  # TF computes the diagonal's shape from grad's and k in conds; it is the diagonal input's
        zero_diag = zeros_like(op.inputs[1])
    return [matrix_set_diag(grad, zero_diag, k=k, align=align), matrix_diag_part(grad, k=k, align=align), None]


@tf_export("linalg.diag", "matrix_diag")
def matrix_diag(diagonal: Any, name: str = "diag", k: Any = 0, num_rows: Any = -1, num_cols: Any = -1,
                padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """Batched matrices with the given diagonals (`k`: one index or a [low, high] range) and `padding_value`
    elsewhere."""
    if getattr(diagonal, "dtype", None) == dtypes.bool:
        padding_value = bool(padding_value)  # TF's way round converting 0 to a bool
    return MatrixDiagV3(diagonal, k, num_rows, num_cols, padding_value, align=align, name=name)


@tf_export("linalg.diag_part", "matrix_diag_part")
def matrix_diag_part(input: Any, name: str = "diag_part", k: Any = 0, padding_value: Any = 0,  # noqa: A002
                     align: str = "RIGHT_LEFT") -> Tensor:
    """The diagonals `k` of each innermost matrix, packed as `align` says."""
    if getattr(input, "dtype", None) == dtypes.bool:
        padding_value = bool(padding_value)  # TF's way round converting 0 to a bool
    return MatrixDiagPartV3(input, k, padding_value, align=align, name=name)


@tf_export("linalg.set_diag", "matrix_set_diag")
def matrix_set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: Any = 0,  # noqa: A002
                    align: str = "RIGHT_LEFT") -> Tensor:
    """Each innermost matrix with its diagonals `k` replaced."""
    return MatrixSetDiagV3(input, diagonal, k, align=align, name=name)


@tf_export("linalg.trace", "trace")
def trace(x: Any, name: str | None = None) -> Tensor:
    """The sum of the main diagonal of each innermost matrix."""
    with name_scope(name, "Trace", [x]) as scope:
        return reduce_sum(matrix_diag_part(convert_to_tensor(x, name="x")), [-1], name=scope)


@tf_export("linalg.eye", "eye")
def eye(num_rows: Any, num_columns: Any = None, batch_shape: Any = None, dtype: Any = dtypes.float32,
        name: str | None = None) -> Tensor:
    """Identity matrices (ones on the main diagonal of `num_rows` x `num_columns`), batched by `batch_shape`."""
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if square else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            diag_size = raw_ops.Minimum(x=num_rows, y=num_columns)
        else:
            if not all(isinstance(n, (int, np.integer)) for n in (num_rows, num_columns)):
                raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. Received: "
                                f"num_rows={num_rows}, num_columns={num_columns}")
            square = num_rows == num_columns
            diag_size = min(num_rows, num_columns)
        if isinstance(batch_shape, Tensor) or isinstance(diag_size, Tensor):
            batch = convert_to_tensor(batch_shape, name="shape", dtype=dtypes.int32)
            diag_shape = concat((batch, [diag_size]), axis=0)
            matrix_shape = None if square else concat((batch, [num_rows, num_columns]), axis=0)
        else:  # as TF: a list of whatever batch_shape iterates over (an int is a TypeError)
            diag_shape = list(batch_shape) + [diag_size]
            matrix_shape = list(batch_shape) + [num_rows, num_columns]
        diag_ones = ones(diag_shape, dtype=dtype)
        if square:
            return matrix_diag(diag_ones)
        return matrix_set_diag(zeros(matrix_shape, dtype=dtype), diag_ones)


@tf_export("linalg.adjoint")
def adjoint(matrix: Any, name: str | None = None) -> Tensor:
    """The conjugate transpose of each innermost matrix."""
    with name_scope(name, "adjoint", [matrix]):
        return matrix_transpose(convert_to_tensor(matrix, name="matrix"), conjugate=True)


@tf_export("linalg.matvec")
def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: str | None = None) -> Tensor:
    """Each matrix of `a` times the vector of `b`: matmul with `b` as a column."""
    with name_scope(name, "MatVec", [a, b]):
        product = matmul(a, expand_dims(b, -1), transpose_a=transpose_a, adjoint_a=adjoint_a,
                         a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)
        return squeeze(product, axis=-1)


# -- Cross ---------------------------------------------------------------------------------------------

Cross = Op("Cross", inputs=["a: T", "b: T"], outputs=["product: T"], attrs=["T: realnumbertype"])


@Cross.shape
def _cross_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    a = with_rank_at_least(ctx.input_shape(0), 1)
    b = with_rank_at_least(ctx.input_shape(1), 1)
    a = tensor_shape.merge_shapes(a, b)
    if a.ndims is not None and a.dims[-1].value is not None and a.dims[-1].value != 3:
        raise ValueError(f"Dimension must be 3 but is {a.dims[-1].value}")
    return [a]


@Cross.kernel("CPU")
def _cross(ctx: OpKernelContext, a: Any, b: Any) -> Any:
    if a.shape != b.shape:
        raise invalid_argument(ctx, f"Both inputs must be of same shape: {tensor_shape.shape_string(a.shape)} vs. "
                                    f"{tensor_shape.shape_string(b.shape)}")
    if a.ndim < 1 or a.shape[-1] != 3:
        raise invalid_argument(ctx, f"Innermost dimension should be 3; got {a.shape[-1] if a.ndim else 0}")
    return np.cross(a, b).astype(a.dtype, copy=False)


@Cross.gradient
def _cross_grad(op: Any, grad: Tensor) -> list:
    a, b = op.inputs
    return [Cross(b, grad), Cross(grad, a)]


@tf_export("linalg.cross", "cross")
def cross(a: Any, b: Any, name: str | None = None) -> Tensor:
    """The pairwise cross products of the 3-vectors in `a` and `b`."""
    return Cross(a, b, name=name)


# -- tensordot, norm ---------------------------------------------------------------------------------

def _tensordot_axes(a: Tensor, axes: Any) -> tuple[Any, Any]:
    """TF's axes forms: an int n (the last n of a with the first n of b; ranges when a's rank is unknown), a
    pair of axis lists, or a tensor of two rows."""
    if isinstance(axes, (int, np.integer)):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if a.shape.ndims is None:
            rank = shape_ops.rank(a)
            return (sequence_ops.range(rank - axes, rank, dtype=dtypes.int32),
                    sequence_ops.range(axes, dtype=dtypes.int32))
        if axes > a.shape.ndims:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of tensor {a}.  Received "
                             f"{axes}, vs tensor dimensions {a.shape.ndims}.")
        return list(range(a.shape.ndims - axes, a.shape.ndims)), list(range(axes))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, (int, np.integer)) and isinstance(b_axes, (int, np.integer)):
            a_axes, b_axes = [a_axes], [b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, {len(a_axes)} != {len(b_axes)}.")
        return a_axes, b_axes
    axes = convert_to_tensor(axes, name="axes", dtype=dtypes.int32)
    return axes[0], axes[1]


def _tensordot_reshape(x: Tensor, axes: Any, flipped: bool) -> tuple[Tensor, Any, list | None]:
    """TF's helper: `x` transposed so `axes` are last (first when flipped) and reshaped to a matrix; also its
    free dimensions (a list when known while building, else a tensor) and their static sizes (None when the
    rank or the axes are unknown)."""
    if x.shape.is_fully_defined() and isinstance(axes, (list, tuple)):
        static = x.shape.as_list()
        axes = [i if i >= 0 else i + len(static) for i in axes]
        free = [i for i in range(len(static)) if i not in axes]
        static_free = [static[i] for i in free]
        perm = list(axes) + free if flipped else free + list(axes)
        moved = transpose(x, perm) if perm != list(range(len(static))) else x
        prod_free = int(np.prod(static_free, dtype=np.int64))
        prod_axes = int(np.prod([static[i] for i in axes], dtype=np.int64))
        matrix_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        matrix = moved if moved.shape.as_list() == matrix_shape else reshape(moved, matrix_shape)
        return matrix, static_free, static_free
    if x.shape.ndims is not None and isinstance(axes, (list, tuple)):
        static = x.shape.as_list()
        axes = [i if i >= 0 else i + len(static) for i in axes]
        free = [i for i in range(len(static)) if i not in axes]
        static_free = [static[i] for i in free]
        axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        free_t = convert_to_tensor(free, dtype=dtypes.int32, name="free")
        dims = shape_ops.shape(x)
    else:
        static_free = None
        dims = shape_ops.shape(x)
        rank = shape_ops.rank(x)
        axes_t = convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
        axes_t = elementwise_ops.where(axes_t >= 0, axes_t, axes_t + rank)
        free_t, _ = ListDiff(x=sequence_ops.range(rank), y=axes_t, out_idx=dtypes.int32)
    free_dims, axes_dims = gather(dims, free_t), gather(dims, axes_t)
    prod_free, prod_axes = reduce_prod(free_dims), reduce_prod(axes_dims)
    perm = concat([axes_t, free_t] if flipped else [free_t, axes_t], 0)
    new_shape = stack([prod_axes, prod_free] if flipped else [prod_free, prod_axes])
    return reshape(transpose(x, perm), new_shape), free_dims, static_free


@tf_export("linalg.tensordot", "tensordot")
def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """The sum of products of `a` and `b` over `axes`: both moved to matrices and multiplied with MatMul."""
    with name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a, b = convert_to_tensor(a, name="a"), convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_matrix, a_free, a_static = _tensordot_reshape(a, a_axes, False)
        b_matrix, b_free, b_static = _tensordot_reshape(b, b_axes, True)
        product = matmul(a_matrix, b_matrix)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if product.shape.is_fully_defined() and product.shape.as_list() == a_free + b_free:
                return product
            return reshape(product, a_free + b_free, name=scope)
        a_free = convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free = convert_to_tensor(b_free, dtype=dtypes.int32)
        result = reshape(product, concat([a_free, b_free], 0), name=scope)
        if a_static is not None and b_static is not None:
            result.set_shape(a_static + b_static)
        return result


_VECTOR_NORMS = ("euclidean", 1, 2, np.inf)
_MATRIX_NORMS = ("euclidean", "fro", 1, 2, np.inf)


@tf_export("linalg.norm", "norm")
def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None, keepdims: Any = None,  # noqa: A002 - TF's name
         name: str | None = None, keep_dims: Any = None) -> Tensor:
    """Vector norms (over all entries or one axis) and matrix norms (over a pair of axes), as TF1 computes
    them: euclidean/Frobenius, 1, inf, the p-norms of vectors and the spectral norm of matrices."""
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
        keepdims = keep_dims
    keepdims = bool(keepdims)
    is_matrix_norm = (isinstance(axis, (tuple, list)) and len(axis) == 2)
    if is_matrix_norm:
        axis = tuple(axis)
        if (not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if ord not in _MATRIX_NORMS:
            raise ValueError(f"'ord' must be a supported matrix norm in {list(_MATRIX_NORMS)}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        supported = (ord in _VECTOR_NORMS or (not isinstance(ord, str) and ord > 0))
        if not supported:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    with name_scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if is_matrix_norm and ord in (2, 2.0):
            rank = tensor.shape.ndims
            if rank is None:
                raise ValueError("the spectral norm of a tensor of unknown rank is not built in tensorweave")
            first, second = axis[0] % rank, axis[1] % rank
            perm = [i for i in range(rank) if i not in (first, second)] + [first, second]
            singular = raw_ops.Svd(input=transpose(tensor, perm), compute_uv=False)[0]
            result = reduce_max(singular, axis=-1, keepdims=True)
            result = expand_dims(result, -1)
            inverse = [perm.index(i) for i in range(rank)]
            result = transpose(result, inverse)
        elif ord in ("euclidean", "fro") or (ord in (2, 2.0) and not is_matrix_norm):
            result = sqrt(reduce_sum(tensor * conj(tensor), axis, keepdims=True))
        else:
            result = elementwise_ops.abs(tensor)
            if ord == 1:
                result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix_norm:
                    result = reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = reduce_sum(result, axis[1], keepdims=True)
                result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                result = elementwise_ops.pow(reduce_sum(elementwise_ops.pow(result, ord), axis, keepdims=True),
                                             1.0 / ord)
        if not keepdims:
            result = squeeze(result, axis)
        return result


# -- Einsum --------------------------------------------------------------------------------------------

Einsum = Op("Einsum", inputs=["inputs: N * T"], outputs=["output: T"],
            attrs=["equation: string", "N: int >= 1", "T: type"])


def _einsum_parts(equation: str, count: int) -> tuple[list[str], str]:
    equation = equation.decode() if isinstance(equation, bytes) else equation
    if "->" not in equation:
        raise ValueError(f"Einsum equation '{equation}' must have an explicit output ('->')")
    lhs, rhs = equation.split("->")
    subscripts = lhs.split(",")
    if len(subscripts) != count:
        raise ValueError(f"Expecting {len(subscripts)} inputs but got: {count}")
    return subscripts, rhs


def _labelled_dims(sub: str, dims: list) -> tuple[list[tuple[str, Any]], list]:
    """The (letter, dim) pairs of one operand and the dims its ellipsis covers."""
    if "..." not in sub:
        if len(sub) != len(dims):
            raise ValueError(f"Expected {len(sub)} dimensions but got: {len(dims)}")
        return list(zip(sub, dims)), []
    before, after = sub.split("...")
    covered = len(dims) - len(before) - len(after)
    if covered < 0:
        raise ValueError(f"Expected at least {len(before) + len(after)} dimensions but got: {len(dims)}")
    return (list(zip(before, dims[:len(before)])) + list(zip(after, dims[len(dims) - len(after):])),
            dims[len(before):len(before) + covered])


@Einsum.shape
def _einsum_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    subscripts, rhs = _einsum_parts(ctx.attr("equation"), ctx.num_inputs)
    shapes = [ctx.input_shape(i) for i in range(ctx.num_inputs)]
    sizes: dict[str, Any] = {}
    broadcast = tensor_shape.TensorShape([])
    for sub, shape in zip(subscripts, shapes):
        if shape.ndims is None:  # TF's: its labels stay unknown, and so does any broadcast shape
            broadcast = tensor_shape.unknown_shape()
            continue
        pairs, covered = _labelled_dims(sub, list(shape.dims))
        for letter, dim in pairs:
            known = sizes.get(letter, tensor_shape.Dimension(None))
            if not known.is_compatible_with(dim):
                raise ValueError(f"Dimensions must be equal, but are {known.value} and {dim.value}")
            sizes[letter] = known.merge_with(dim)
        broadcast = broadcast_shapes(broadcast, tensor_shape.TensorShape(covered))
    if "..." not in rhs:
        sizes = collections.defaultdict(lambda: tensor_shape.Dimension(None), sizes)
        if broadcast.ndims:
            raise ValueError(f"Shape must be at most rank 0 but is rank {broadcast.ndims}\n\t for einsum equation "
                             f"'{','.join(subscripts)}->{rhs}' without ellipsis (...) in the output subscripts where "
                             "input(s) have non-empty broadcasting shape")
        return [tensor_shape.TensorShape([sizes[letter] for letter in rhs])]
    if broadcast.ndims is None:
        return [tensor_shape.unknown_shape()]
    before, after = rhs.split("...")
    return [tensor_shape.TensorShape([sizes[letter] for letter in before]).concatenate(broadcast).concatenate(
        [sizes[letter] for letter in after])]


@Einsum.kernel("CPU", expensive=True)
def _einsum(ctx: OpKernelContext, *inputs: Any, equation: Any) -> Any:
    equation = equation.decode() if isinstance(equation, bytes) else equation
    lhs, rhs = equation.split("->")
    sizes: dict[str, int] = {}
    for i, (sub, x) in enumerate(zip(lhs.split(","), inputs)):  # TF's checks of ranks and label sizes
        before, ellipsis, after = sub.partition("...")
        if not ellipsis and x.ndim != len(sub):
            raise invalid_argument(ctx, f"Expected input {i} to have rank {len(sub)} but got: {x.ndim}")
        axes = list(enumerate(before)) + [(x.ndim - len(after) + i, c) for i, c in enumerate(after)]
        for axis, label in axes:
            if 0 <= axis < x.ndim and sizes.setdefault(label, x.shape[axis]) != x.shape[axis]:
                raise invalid_argument(ctx, f"Expected dimension {sizes[label]} at axis {axis} of the input shaped "
                                            f"{tensor_shape.shape_string(x.shape)} but got dimension {x.shape[axis]}")
    unique = "".join(dict.fromkeys(rhs.replace("...", "\0"))).replace("\0", "...")
    try:
        result = np.asarray(np.einsum(f"{lhs}->{unique}", *[in_float32(x) for x in inputs],
                                      optimize=len(inputs) > 2)).astype(inputs[0].dtype, copy=False)
    except ValueError as e:
        raise invalid_argument(ctx, f"Einsum: {e}") from None
    if unique == rhs:
        return result
    # A label repeated in the output (TF's inflation, e.g. 'i->ii'): the values on that diagonal, zeros elsewhere.
    pairs, covered = _labelled_dims(unique, list(result.shape))
    sizes = dict(pairs)
    before, _, after = rhs.partition("...")
    full = np.zeros([sizes[c] for c in before] + covered + [sizes[c] for c in after], result.dtype)
    np.einsum(f"{rhs}->{unique}", full)[...] = result  # a writeable view of full's diagonals
    return full


@Einsum.gradient
def _einsum_grad(op: Any, grad: Tensor) -> list:
    """TF's (linalg_grad._EinsumGrad) for one or two operands: the einsum of the output's gradient with the
    other operand onto each operand's subscripts, labels only that operand has (summed away) broadcast back,
    and the gradients of an ellipsis broadcast between the operands summed over its broadcast dimensions.
    Einsums of more operands (which TF's Python einsum never builds) take each operand's gradient the same way."""
    equation = op.get_attr("equation")
    equation = equation.decode() if isinstance(equation, bytes) else equation
    input_subs, output_subs = equation.split("->")
    if len(op.inputs) == 1:
        reduced = set(input_subs) - set(output_subs + "...")
        if not reduced:
            return [Einsum([grad], equation=f"{output_subs}->{input_subs}")]
        return [_einsum_grad_reduced(grad, output_subs, input_subs, raw_ops.Shape(input=op.inputs[0]), reduced)]
    inputs = [conj(x) for x in op.inputs] if grad.dtype.is_complex else list(op.inputs)
    if len(inputs) > 2:
        subscripts = input_subs.split(",")
        return [_einsum_grad_wrt(grad, [x for j, x in enumerate(inputs) if j != i], raw_ops.Shape(input=x),
                                 sub, [s for j, s in enumerate(subscripts) if j != i], output_subs)
                for i, (sub, x) in enumerate(zip(subscripts, inputs))]
    x_subs, y_subs = input_subs.split(",")
    if "..." in output_subs:
        x_subs += "" if "..." in x_subs else "..."
        y_subs += "" if "..." in y_subs else "..."
    x, y = inputs
    x_shape, y_shape = raw_ops.Shape(input=x), raw_ops.Shape(input=y)
    grad_x = _einsum_grad_wrt(grad, [y], x_shape, x_subs, [y_subs], output_subs)
    grad_y = _einsum_grad_wrt(grad, [x], y_shape, y_subs, [x_subs], output_subs)
    if "..." not in output_subs:
        return [grad_x, grad_y]
    bx_start, bx_end = _ellipsis_slice(x_subs)
    by_start, by_end = _ellipsis_slice(y_subs)
    if (x.shape.is_fully_defined() and y.shape.is_fully_defined()
            and x.shape[bx_start:bx_end] == y.shape[by_start:by_end]):
        return [grad_x, grad_y]
    rx, ry = raw_ops.BroadcastGradientArgs(s0=x_shape[bx_start:bx_end], s1=y_shape[by_start:by_end])
    return [reshape(reduce_sum(grad_x, bx_start + rx), x_shape), reshape(reduce_sum(grad_y, by_start + ry), y_shape)]


def _ellipsis_slice(subscripts: str) -> tuple[int, int | None]:
    """(start, end) with x[start:end] the dimensions the ellipsis of `subscripts` covers ((0, 0) without one)."""
    start = subscripts.find("...")
    if start == -1:
        return 0, 0
    remaining = len(subscripts) - (start + 3)
    return start, (-remaining if remaining > 0 else None)


def _label_axis(subscripts: str, label: str) -> int:
    """The leftmost axis of `label`: from the front before an ellipsis, negative after it."""
    splits = subscripts.split("...")
    index = splits[0].find(label)
    if index != -1 or len(splits) < 2:
        return index
    return splits[1].find(label) - len(splits[1])


def _einsum_grad_reduced(output_grad: Tensor, output_subs: str, input_subs: str, input_shape: Tensor,
                         reduced: set) -> Tensor:
    """The gradient of a unary einsum `input_subs->output_subs` that sums the labels `reduced` away: the
    output's gradient broadcast back over them (then an einsum for traces and transposes)."""
    reduced_subs = "".join(reduced)
    reduced_axes = [_label_axis(input_subs, label) for label in reduced_subs]
    repeated = len(set(input_subs)) + len(set(output_subs)) < len(input_subs) + len(output_subs)
    if not repeated and "".join(c for c in input_subs if c not in reduced) == output_subs:
        shape = reduced_shape(input_shape, convert_to_tensor(reduced_axes))
        return raw_ops.BroadcastTo(input=reshape(output_grad, shape), shape=input_shape)
    grad_shape = raw_ops.Shape(input=output_grad)
    reduced_dims = stack([input_shape[axis] for axis in reduced_axes])
    broadcast = raw_ops.BroadcastTo(
        input=reshape(output_grad, concat([ones(len(reduced), dtype=dtypes.int32), grad_shape], axis=0)),
        shape=concat([reduced_dims, grad_shape], axis=0))
    return Einsum([broadcast], equation=f"{reduced_subs + output_subs}->{input_subs}")


def _einsum_grad_wrt(output_grad: Tensor, others: list, input_shape: Tensor, input_subs: str, other_subs: list,
                     output_subs: str) -> Tensor:
    """An operand's gradient (before any unbroadcasting): the einsum of the output's gradient and the other
    operands onto the operand's labels the others or the output have, then the rest broadcast back."""
    reduced = set(input_subs) - set(output_subs + "".join(other_subs) + ".")
    left_subs = "".join(c for c in input_subs if c not in reduced)
    grad_reduced = Einsum([output_grad, *others], equation=f"{','.join([output_subs, *other_subs])}->{left_subs}")
    if not reduced:
        return grad_reduced
    return _einsum_grad_reduced(grad_reduced, left_subs, input_subs, input_shape, reduced)


def _einsum_resolved_equation(equation: str, num_inputs: int) -> str:
    """`equation` checked and completed as TF's Python einsum does before it builds an op (its messages): an
    ellipsis stands for one label '0' that sorts before the letters."""
    resolved = equation.replace(" ", "")
    allowed = "a-zA-Z"
    if "..." in equation:
        if "0" in resolved:
            raise ValueError(f'Invalid character "0" in equation: {equation}.')
        resolved = resolved.replace("...", "0")
        allowed += "0"
    match = re.match(f"^([{allowed},]*)(->[{allowed}]*)?$", resolved)
    if not match:
        raise ValueError(f"Subscripts have incorrect format: {resolved}")
    input_labels = match.group(1).split(",")
    if num_inputs != len(input_labels):
        raise ValueError(f'Got {num_inputs} inputs for equation "{equation}", expecting {len(input_labels)}')
    if match.group(2) is None:
        counts = collections.Counter(match.group(1))
        resolved += "->" + "".join(label for label in sorted(counts) if label != "," and counts[label] == 1)
    output_labels = resolved.split("->", 1)[1]
    if len(set(output_labels)) != len(output_labels):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    for label in output_labels:
        if label != "0" and label not in match.group(1):
            raise ValueError(f"Output subscripts contain the label {label} not present in the input subscripts.")
    return resolved.replace("0", "...")


@tf_export("linalg.einsum", "einsum")
def einsum(equation: str, *inputs: Any, **kwargs: Any) -> Tensor:
    """The Einstein summation `equation` over `inputs`; an implicit output is TF's: the labels used once,
    sorted, where an ellipsis counts as one label that sorts first (so it is carried over only when a single
    input has one)."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: {', '.join(sorted(kwargs))}. Expected: name")
    with name_scope(name, "einsum", inputs):  # TF checks the equation inside its scope (a bad one uses a name)
        return Einsum(list(inputs), equation=_einsum_resolved_equation(equation, len(inputs)))
