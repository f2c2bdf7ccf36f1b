"""Solvers and decompositions of batched matrices: MatrixInverse, MatrixDeterminant, LogMatrixDeterminant,
Cholesky, MatrixSolve, MatrixTriangularSolve, MatrixSolveLs, Svd, SelfAdjointEigV2 and Lu, with TF's gradients
(Lu has none here; Svd's is for real inputs), and the composites TF1 builds on them (logdet,
slogdet, cholesky_solve, lstsq, eigh, eigvalsh, svd, expm).

Every kernel runs over all leading (batch) dimensions at once through NumPy's stacked LAPACK calls.
Decompositions are unique only up to signs (Svd's and eigenvectors' columns): values agree with TF's, the
signs of those columns may not.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import elementwise_ops, raw_ops
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.constant_ops import constant
from tensorweave.ops.control_flow_ops import cond, while_loop
from tensorweave.ops.elementwise_ops import Abs, Floor, Log, less, maximum, real, reciprocal_no_nan, where_v2
from tensorweave.ops.fill_ops import zeros_like
from tensorweave.ops.kernel_helpers import C64, C128, F32, F64, invalid_argument
from tensorweave.ops.linalg_ops import (
    MatrixBandPart,
    MatrixDiagPart,
    MatrixSetDiag,
    adjoint,
    eye,
    matmul,
    matrix_diag,
    matrix_diag_part,
)
from tensorweave.ops.reduction_ops import reduce_max, reduce_sum
from tensorweave.ops.shape_helpers import broadcast_shapes, with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import expand_dims, reshape, shape
from tensorweave.platform.tf_export import tf_export

_TYPES = "{double, float, half, complex64, complex128}"
# The types TF has CPU kernels of these ops for (MatrixInverse also takes half, computed in float32).
_LAPACK_KERNEL = {"T": (F32, F64, C64, C128)}


def _square(shape: tensor_shape.TensorShape) -> tensor_shape.TensorShape:
    """TF's MakeBatchSquareMatrix: rank >= 2 with equal inner dimensions."""
    shape = with_rank_at_least(shape, 2)
    if shape.ndims is None:
        return shape
    rows, cols = shape.dims[-2], shape.dims[-1]
    if not rows.is_compatible_with(cols):
        raise ValueError(f"Dimensions must be equal, but are {rows.value} and {cols.value}")
    return shape[:-2].concatenate([rows.merge_with(cols)] * 2)


def _check_square(ctx: OpKernelContext, x: Any) -> None:
    if x.ndim < 2:
        raise invalid_argument(ctx, f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise invalid_argument(ctx, "Input matrix must be square.")


def _adjoint(xp: Any, x: Any) -> Any:
    return xp.conj(xp.swapaxes(x, -1, -2))


def _in_lapack_type(x: Any) -> Any:
    """half as float32, which LAPACK (and NumPy's linalg) computes in."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _square_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_square(ctx.input_shape(0))]


def _batch_shape(ctx: InferenceContext) -> tensor_shape.TensorShape:
    """The batch shape of square matrices; the determinants' shape functions compare the columns with the
    rows (TF's message names them in that order)."""
    shape = with_rank_at_least(ctx.input_shape(0), 2)
    if shape.ndims is None:
        return tensor_shape.unknown_shape()
    rows, cols = shape.dims[-2], shape.dims[-1]
    if not rows.is_compatible_with(cols):
        raise ValueError(f"Dimensions must be equal, but are {cols.value} and {rows.value}")
    return shape[:-2]


# -- MatrixInverse, MatrixDeterminant, LogMatrixDeterminant -----------------------------------------------

MatrixInverse = Op("MatrixInverse", inputs=["input: T"], outputs=["output: T"],
                   attrs=["adjoint: bool = false", f"T: {_TYPES}"])
MatrixInverse.shape(_square_shape)


@MatrixInverse.kernel("CPU", expensive=True)
def _matrix_inverse(ctx: OpKernelContext, input: Any, adjoint: bool) -> Any:  # noqa: A002
    _check_square(ctx, input)
    x = _adjoint(ctx.xp, input) if adjoint else input
    try:
        return ctx.xp.linalg.inv(_in_lapack_type(x)).astype(input.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise invalid_argument(ctx, "Input is not invertible.") from None


@MatrixInverse.gradient
def _matrix_inverse_grad(op: Any, grad: Tensor) -> list:
    """d(A^-1) = -A^-1 dA A^-1."""
    ainv = op.outputs[0]
    adj = op.get_attr("adjoint")
    return [-matmul(ainv, matmul(grad, ainv, adjoint_a=adj, adjoint_b=not adj), adjoint_a=not adj)]


@tf_export("linalg.inv", "matrix_inverse")
def matrix_inverse(input: Any, adjoint: bool = False, name: str | None = None) -> Tensor:  # noqa: A002
    """The inverse (of the adjoint, with `adjoint=True`) of each innermost square matrix."""
    return MatrixInverse(input, adjoint=adjoint, name=name)


MatrixDeterminant = Op("MatrixDeterminant", inputs=["input: T"], outputs=["output: T"],
                       attrs=["T: {half, float, double, complex64, complex128}"])


@MatrixDeterminant.shape
def _matrix_determinant_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [_batch_shape(ctx)]


@MatrixDeterminant.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _matrix_determinant(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    _check_square(ctx, input)
    return ctx.xp.linalg.det(input).astype(input.dtype, copy=False)


@MatrixDeterminant.gradient
def _matrix_determinant_grad(op: Any, grad: Tensor) -> list:
    """d det(A) / dA = det(A) A^-H."""
    a_adj_inv = MatrixInverse(op.inputs[0], adjoint=True)
    return [expand_dims(expand_dims(grad * op.outputs[0], -1), -1) * a_adj_inv]


@tf_export("linalg.det", "matrix_determinant")
def matrix_determinant(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The determinant of each innermost square matrix."""
    return MatrixDeterminant(input, name=name)


LogMatrixDeterminant = Op("LogMatrixDeterminant", inputs=["input: T"], outputs=["sign: T", "log_abs_determinant: T"],
                          attrs=["T: {half, float, double, complex64, complex128}"])


@LogMatrixDeterminant.shape
def _log_matrix_determinant_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    batch = _batch_shape(ctx)
    return [batch, batch]


@LogMatrixDeterminant.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _log_matrix_determinant(ctx: OpKernelContext, input: Any) -> tuple[Any, Any]:  # noqa: A002
    _check_square(ctx, input)
    sign, logdet = ctx.xp.linalg.slogdet(input)
    return sign.astype(input.dtype, copy=False), logdet.astype(input.dtype, copy=False)


@LogMatrixDeterminant.gradient
def _log_matrix_determinant_grad(op: Any, _: Tensor, grad_log_abs: Tensor) -> list:
    """d log|det(A)| / dA = A^-H."""
    a_adj_inv = MatrixInverse(op.inputs[0], adjoint=True)
    return [expand_dims(expand_dims(grad_log_abs, -1), -1) * a_adj_inv]


@tf_export("linalg.slogdet")
def slogdet(input: Any, name: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The sign and the log of the absolute determinant of each innermost square matrix."""
    return LogMatrixDeterminant(input, name=name)


# -- Cholesky, cholesky_solve, logdet ------------------------------------------------------------------

Cholesky = Op("Cholesky", inputs=["input: T"], outputs=["output: T"], attrs=[f"T: {_TYPES}"])
Cholesky.shape(_square_shape)


@Cholesky.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _cholesky(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    """The lower factor L with L L^H = A, reading only A's lower triangle, as TF's. A matrix that is not
    positive definite gets NaN in its lower triangle (TF 2.21's CPU kernel reports no error), the others
    their factor."""
    _check_square(ctx, input)
    xp = ctx.xp
    try:
        return xp.linalg.cholesky(input).astype(input.dtype, copy=False)
    except np.linalg.LinAlgError:
        pass
    lower = xp.tril(input)
    definite = xp.all(xp.linalg.eigvalsh(lower + xp.conj(xp.swapaxes(xp.tril(input, -1), -1, -2))) > 0, axis=-1)
    definite = definite[..., None, None]
    failed = xp.where(xp.tril(xp.ones(input.shape[-2:], bool)), xp.nan, 0).astype(input.dtype)
    try:
        factor = xp.linalg.cholesky(xp.where(definite, input, xp.eye(input.shape[-1], dtype=input.dtype)))
    except np.linalg.LinAlgError:  # a borderline matrix the eigenvalues passed: no factor at all
        return xp.broadcast_to(failed, input.shape).copy()
    return xp.where(definite, factor, failed).astype(input.dtype, copy=False)


@Cholesky.gradient
def _cholesky_grad(op: Any, grad: Tensor) -> list:
    """TF's: Murray's blocked formula, symmetrized (the op reads only the lower triangle)."""
    chol = op.outputs[0]
    rows = shape(chol)[-1]
    l_inverse = MatrixTriangularSolve(chol, eye(rows, batch_shape=shape(chol)[:-2], dtype=chol.dtype))
    middle = matmul(chol, grad, adjoint_a=True)
    middle = MatrixSetDiag(middle, 0.5 * MatrixDiagPart(middle))
    middle = MatrixBandPart(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a = grad_a + adjoint(grad_a)
    return [grad_a * 0.5]


@tf_export("linalg.cholesky", "cholesky")
def cholesky(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The lower Cholesky factor of each innermost Hermitian positive definite matrix."""
    return Cholesky(input, name=name)


@tf_export("linalg.cholesky_solve", "cholesky_solve")
def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> Tensor:
    """X with A X = rhs for A = chol chol^H: two triangular solves."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        y = MatrixTriangularSolve(chol, rhs, adjoint=False, lower=True)
        return MatrixTriangularSolve(chol, y, adjoint=True, lower=True)


@tf_export("linalg.logdet")
def logdet(matrix: Any, name: str | None = None) -> Tensor:
    """The log determinant of each Hermitian positive definite matrix: 2 sum(log(diag(cholesky)))."""
    with name_scope(name, "logdet", [matrix]):
        chol = Cholesky(convert_to_tensor(matrix, name="matrix"))
        return 2.0 * reduce_sum(Log(real(matrix_diag_part(chol))), axis=[-1])


# -- MatrixSolve, MatrixTriangularSolve, MatrixSolveLs ------------------------------------------------

MatrixSolve = Op("MatrixSolve", inputs=["matrix: T", "rhs: T"], outputs=["output: T"],
                 attrs=["adjoint: bool = false", f"T: {_TYPES}"])


@MatrixSolve.shape
def _matrix_solve_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    matrix = _square(ctx.input_shape(0))
    rhs = with_rank_at_least(ctx.input_shape(1), 2)
    if matrix.ndims is None or rhs.ndims is None:
        return [tensor_shape.unknown_shape()]
    if matrix.ndims != rhs.ndims:
        raise ValueError(f"Shape must be rank {matrix.ndims} but is rank {rhs.ndims}")
    batch = matrix[:-2].merge_with(rhs[:-2])
    if not matrix.dims[-2].is_compatible_with(rhs.dims[-2]):
        raise ValueError(f"Dimensions must be equal, but are {matrix.dims[-2].value} and {rhs.dims[-2].value}")
    return [batch.concatenate([matrix.dims[-1].merge_with(rhs.dims[-2]), rhs.dims[-1]])]


def _check_solver(ctx: OpKernelContext, matrix: Any, rhs: Any, square: bool) -> None:
    """TF's LinearAlgebraOp checks of a solver's inputs (MatrixSolve's `square` one too), in its order."""
    if matrix.ndim < 2:
        raise invalid_argument(ctx, f"Input tensor 0 must have rank >= 2, got {matrix.ndim}")
    if rhs.ndim != matrix.ndim:
        raise invalid_argument(ctx, "All input tensors must have the same rank.")
    if rhs.shape[:-2] != matrix.shape[:-2]:
        raise invalid_argument(ctx, "All input tensors must have the same outer dimensions.")
    if square and matrix.shape[-1] != matrix.shape[-2]:
        raise invalid_argument(ctx, "First input (lhs) must be a square matrix.")
    if matrix.shape[-2] != rhs.shape[-2]:
        raise invalid_argument(ctx, "Input matrix and rhs are incompatible.")


@MatrixSolve.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _matrix_solve(ctx: OpKernelContext, matrix: Any, rhs: Any, adjoint: bool) -> Any:
    _check_solver(ctx, matrix, rhs, square=True)
    a = _adjoint(ctx.xp, matrix) if adjoint else matrix
    try:
        return ctx.xp.linalg.solve(a, rhs).astype(rhs.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise invalid_argument(ctx, "Input matrix is not invertible.") from None


@MatrixSolve.gradient
def _matrix_solve_grad(op: Any, grad: Tensor) -> list:
    a, c = op.inputs[0], op.outputs[0]
    adj = op.get_attr("adjoint")
    grad_b = MatrixSolve(a, grad, adjoint=not adj)
    grad_a = -matmul(c, grad_b, adjoint_b=True) if adj else -matmul(grad_b, c, adjoint_b=True)
    return [grad_a, grad_b]


@tf_export("linalg.solve", "matrix_solve")
def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> Tensor:
    """X with A X = rhs (A^H X = rhs with `adjoint=True`) for each innermost square matrix A."""
    return MatrixSolve(matrix, rhs, adjoint=adjoint, name=name)


MatrixTriangularSolve = Op("MatrixTriangularSolve", inputs=["matrix: T", "rhs: T"], outputs=["output: T"],
                           attrs=["lower: bool = true", "adjoint: bool = false",
                                  "T: {bfloat16, double, float, half, complex64, complex128}"])


@MatrixTriangularSolve.shape
def _matrix_triangular_solve_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    """The batch dimensions broadcast, as TF's since 2.2."""
    matrix = _square(ctx.input_shape(0))
    rhs = with_rank_at_least(ctx.input_shape(1), 2)
    if matrix.ndims is None or rhs.ndims is None:
        return [tensor_shape.unknown_shape()]
    if not matrix.dims[-2].is_compatible_with(rhs.dims[-2]):
        raise ValueError(f"Dimensions must be equal, but are {matrix.dims[-2].value} and {rhs.dims[-2].value}")
    return [broadcast_shapes(matrix[:-2], rhs[:-2]).concatenate(rhs[-2:])]


@MatrixTriangularSolve.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _matrix_triangular_solve(ctx: OpKernelContext, matrix: Any, rhs: Any, lower: bool, adjoint: bool) -> Any:
    """A solve with the triangle of `matrix` that `lower` names (the other is never read); with a zero on the
    diagonal, TF's substitution's infinities and NaNs."""
    for i, x in enumerate((matrix, rhs)):
        if x.ndim < 2:
            raise invalid_argument(ctx, f"In[{i}] ndims must be >= 2: {x.ndim}")
    xp = ctx.xp
    shapes = f"{tensor_shape.shape_string(matrix.shape)} vs. {tensor_shape.shape_string(rhs.shape)}"
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise invalid_argument(ctx, f"In[0] and In[1] must have compatible batch dimensions: {shapes}") from None
    if matrix.shape[-2] != matrix.shape[-1]:
        raise invalid_argument(ctx, f"In[0] matrices in the last dimensions must be square ({matrix.shape[-1]} =/= "
                                    f"{matrix.shape[-2]})")
    if matrix.shape[-1] != rhs.shape[-2]:
        raise invalid_argument(ctx, f"In[0] mismatch In[1] shape: {matrix.shape[-1]} vs. {rhs.shape[-2]}: "
                                    f"{shapes.replace(' vs.', '')} {int(lower)} {int(adjoint)}")
    a = xp.tril(matrix) if lower else xp.triu(matrix)
    a = _adjoint(xp, a) if adjoint else a
    a = xp.broadcast_to(a, batch + matrix.shape[-2:])
    b = xp.broadcast_to(rhs, batch + rhs.shape[-2:])
    try:
        return xp.linalg.solve(a, b).astype(rhs.dtype, copy=False)
    except np.linalg.LinAlgError:
        return _substitute(xp, a, b, lower != adjoint).astype(rhs.dtype, copy=False)


def _substitute(xp: Any, a: Any, b: Any, lower: bool) -> Any:
    """Forward (lower) or back substitution, row by row, dividing by zero where the diagonal holds one."""
    x = xp.zeros(b.shape, np.result_type(a.dtype, b.dtype))
    rows = range(a.shape[-1]) if lower else reversed(range(a.shape[-1]))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in rows:
            x[..., i, :] = (b[..., i, :] - xp.matmul(a[..., i:i + 1, :], x)[..., 0, :]) / a[..., i, i, None]
    return x


@MatrixTriangularSolve.gradient
def _matrix_triangular_solve_grad(op: Any, grad: Tensor) -> list:
    a, c = op.inputs[0], op.outputs[0]
    adj, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = MatrixTriangularSolve(a, grad, lower=lower, adjoint=not adj)
    grad_a = -matmul(c, grad_b, adjoint_b=True) if adj else -matmul(grad_b, c, adjoint_b=True)
    grad_a = MatrixBandPart(grad_a, -1, 0) if lower else MatrixBandPart(grad_a, 0, -1)
    b = op.inputs[1]
    if (a.shape.is_fully_defined() and b.shape.is_fully_defined()
            and a.shape.as_list()[:-2] == b.shape.as_list()[:-2]):
        return [grad_a, grad_b]
    sa, sb = raw_ops.Shape(input=a), raw_ops.Shape(input=b)
    ra, rb = raw_ops.BroadcastGradientArgs(s0=sa[:-2], s1=sb[:-2])
    return [reshape(raw_ops.Sum(input=grad_a, reduction_indices=ra), sa),
            reshape(raw_ops.Sum(input=grad_b, reduction_indices=rb), sb)]


@tf_export("linalg.triangular_solve", "matrix_triangular_solve")
def matrix_triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                            name: str | None = None) -> Tensor:
    """X with A X = rhs for the lower (or upper) triangle A of each innermost matrix (batch dimensions
    broadcast)."""
    with name_scope(name, "triangular_solve", [matrix, rhs]):
        return MatrixTriangularSolve(matrix, rhs, lower=lower, adjoint=adjoint)


MatrixSolveLs = Op("MatrixSolveLs", inputs=["matrix: T", "rhs: T", "l2_regularizer: double"], outputs=["output: T"],
                   attrs=[f"T: {_TYPES}", "fast: bool = true"])


@MatrixSolveLs.shape
def _matrix_solve_ls_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    matrix = with_rank_at_least(ctx.input_shape(0), 2)
    rhs = with_rank_at_least(ctx.input_shape(1), 2)
    with_rank(ctx.input_shape(2), 0)
    if matrix.ndims is None or rhs.ndims is None:
        return [tensor_shape.unknown_shape()]
    if matrix.ndims != rhs.ndims:
        raise ValueError(f"Shape must be rank {matrix.ndims} but is rank {rhs.ndims}")
    if not matrix.dims[-2].is_compatible_with(rhs.dims[-2]):
        raise ValueError(f"Dimensions must be equal, but are {matrix.dims[-2].value} and {rhs.dims[-2].value}")
    return [matrix[:-2].merge_with(rhs[:-2]).concatenate([matrix.dims[-1], rhs.dims[-1]])]


@MatrixSolveLs.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _matrix_solve_ls(ctx: OpKernelContext, matrix: Any, rhs: Any, l2_regularizer: Any, fast: bool) -> Any:
    """The regularized normal equations as TF's fast path solves them (for every `fast`: the complete
    orthogonal decomposition TF uses otherwise gives the same minimizer for full-rank inputs)."""
    _check_solver(ctx, matrix, rhs, square=False)
    xp = ctx.xp
    rows, cols = matrix.shape[-2:]
    l2 = float(l2_regularizer)
    a_h = _adjoint(xp, matrix)
    if rows >= cols:
        gram = a_h @ matrix + l2 * xp.eye(cols, dtype=matrix.dtype)
        return xp.linalg.solve(gram, a_h @ rhs).astype(rhs.dtype, copy=False)
    gram = matrix @ a_h + l2 * xp.eye(rows, dtype=matrix.dtype)
    return (a_h @ xp.linalg.solve(gram, rhs)).astype(rhs.dtype, copy=False)


@MatrixSolveLs.gradient
def _matrix_solve_ls_grad(op: Any, grad: Tensor) -> list:
    """TF's, for the fast (normal equations) solution of inner shapes known while building."""
    if not op.get_attr("fast"):
        raise ValueError("Gradient not defined for fast=False")
    a, b = op.inputs[0], op.inputs[1]
    x = op.outputs[0]
    l2 = cast(op.inputs[2], a.dtype.base_dtype)
    rows, cols = a.shape.as_list()[-2:] if a.shape.ndims is not None else (None, None)
    if rows is None or cols is None:
        raise NotImplementedError("MatrixSolveLs gradient with unknown inner matrix dimensions is not built in "
                                  "tensorweave")
    if rows >= cols:
        chol = _regularized_gramian_cholesky(a, l2, first_kind=True)
        z = cholesky_solve(chol, grad)
        xzt = matmul(x, z, adjoint_b=True)
        zx_sym = xzt + adjoint(xzt)
        return [-matmul(a, zx_sym) + matmul(b, z, adjoint_b=True), matmul(a, z), None]
    chol = _regularized_gramian_cholesky(a, l2, first_kind=False)
    grad_b = cholesky_solve(chol, matmul(a, grad))
    tmp = cholesky_solve(chol, b)
    a1 = -matmul(grad_b, matmul(tmp, a, adjoint_a=True))
    a2 = matmul(tmp, grad - matmul(a, grad_b, adjoint_a=True), adjoint_b=True)
    return [a1 + a2, grad_b, None]


@tf_export("linalg.lstsq", "matrix_solve_ls")
def matrix_solve_ls(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True,
                    name: str | None = None) -> Tensor:
    """The least-squares solution X of A X = rhs, ridge-regularized by `l2_regularizer`, built as TF builds it:
    the fast (Cholesky) path from products, Cholesky and triangular solves unless the MatrixSolveLs kernel is
    asked for (`fast=False`) or pays (a large batch of small matrices)."""
    matrix = convert_to_tensor(matrix, name="matrix")
    if matrix.dtype == dtypes.complex128 and (isinstance(l2_regularizer, Tensor) or l2_regularizer != 0):
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and l2_regularizer != 0 due "
                                  "to poor accuracy.")
    if not _solve_ls_composite(matrix, fast):
        return MatrixSolveLs(matrix, rhs, l2_regularizer, fast=fast, name=name)
    with name_scope(name, "matrix_solve_ls", [matrix, rhs, l2_regularizer]):
        dims = matrix.shape[-2:]
        if dims.is_fully_defined():
            return (_solve_overdetermined if dims[-2] >= dims[-1] else _solve_underdetermined)(
                matrix, rhs, l2_regularizer)
        dims = shape(matrix)[-2:]
        return cond(dims[-2] >= dims[-1], lambda: _solve_overdetermined(matrix, rhs, l2_regularizer),
                    lambda: _solve_underdetermined(matrix, rhs, l2_regularizer))


def _solve_ls_composite(matrix: Tensor, fast: bool) -> bool:
    """TF's choice: the composite unless `fast` is off, or the matrices outgrow a guessed L2 cache while the
    batch is larger than their smaller dimension (then the kernel reads each matrix once)."""
    if fast is False:
        return False
    if not matrix.shape.is_fully_defined():
        return True
    dims = matrix.shape.as_list()
    size = int(np.prod(dims)) * matrix.dtype.size
    return not (size > 256000 and int(np.prod(dims[:-2])) > min(dims[-2:]))


def _regularized_gramian_cholesky(matrix: Tensor, l2_regularizer: Any, first_kind: bool) -> Tensor:
    """TF's _RegularizedGramianCholesky: the Cholesky factor of A^H A (first kind) or A A^H, plus l2_regularizer
    times the identity unless it is a Python 0."""
    gramian = matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, Tensor) or l2_regularizer != 0:
        dims = shape(matrix)
        identity = eye(dims[-1] if first_kind else dims[-2], batch_shape=dims[:-2], dtype=matrix.dtype)
        small = matrix.shape[-1 if first_kind else -2]
        identity.set_shape(matrix.shape[:-2].concatenate([small, small]))
        gramian += l2_regularizer * identity
    return Cholesky(gramian)


def _solve_overdetermined(matrix: Tensor, rhs: Any, l2_regularizer: Any) -> Tensor:
    """(A^H A + l2 I)^-1 A^H rhs."""
    chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=True)
    return cholesky_solve(chol, matmul(matrix, rhs, adjoint_a=True))


def _solve_underdetermined(matrix: Tensor, rhs: Any, l2_regularizer: Any) -> Tensor:
    """A^H (A A^H + l2 I)^-1 rhs."""
    chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=False)
    return matmul(matrix, cholesky_solve(chol, rhs), adjoint_a=True)


# -- Svd, SelfAdjointEigV2 ------------------------------------------------------------------------------

Svd = Op("Svd", inputs=["input: T"], outputs=["s: T", "u: T", "v: T"],
         attrs=["compute_uv: bool = true", "full_matrices: bool = false", f"T: {_TYPES}"])


@Svd.shape
def _svd_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = with_rank_at_least(ctx.input_shape(0), 2)
    if shape.ndims is None:
        unknown = tensor_shape.unknown_shape()
        return [unknown, unknown, unknown]
    batch, (rows, cols) = shape[:-2], (shape.dims[-2].value, shape.dims[-1].value)
    p = None if rows is None or cols is None else min(rows, cols)
    s = batch.concatenate([p])
    if not ctx.attr("compute_uv"):
        return [s, tensor_shape.TensorShape([0]), tensor_shape.TensorShape([0])]
    full = ctx.attr("full_matrices")
    return [s, batch.concatenate([rows, rows if full else p]), batch.concatenate([cols, cols if full else p])]


@Svd.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _svd(ctx: OpKernelContext, input: Any, compute_uv: bool, full_matrices: bool) -> tuple[Any, Any, Any]:  # noqa: A002
    """s in decreasing order; v (not its adjoint) as TF returns it."""
    if input.ndim < 2:
        raise invalid_argument(ctx, f"Input tensor 0 must have rank >= 2, got {input.ndim}")
    xp = ctx.xp
    if not compute_uv:
        s = xp.linalg.svd(input, compute_uv=False)
        empty = xp.zeros(0, input.dtype)
        return s.astype(input.dtype, copy=False), empty, empty
    u, s, vh = xp.linalg.svd(input, full_matrices=full_matrices)
    return s.astype(input.dtype, copy=False), u.astype(input.dtype, copy=False), _adjoint(xp, vh).astype(
        input.dtype, copy=False)


def _safe_reciprocal(x: Tensor, epsilon: float = 1e-20) -> Tensor:
    return x * elementwise_ops.reciprocal(x * x + epsilon)


@Svd.gradient
def _svd_grad(op: Any, grad_s: Tensor, grad_u: Tensor, grad_v: Tensor) -> list:
    """TF's (after Townsend's derivation), for real inputs; with full_matrices only where m and n differ by
    at most 1, as TF's."""
    a = op.inputs[0]
    if a.dtype.is_complex:
        raise NotImplementedError("The Svd gradient of complex inputs is not built in tensorweave")
    s, u, v = op.outputs
    grad_s = zeros_like(s) if grad_s is None else grad_s
    grad_s_mat = matrix_diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = Svd(a, compute_uv=True)
        return [matmul(u, matmul(grad_s_mat, v, adjoint_b=True))]
    shape_a = a.shape
    if shape_a.ndims is None or shape_a.dims[-2].value is None or shape_a.dims[-1].value is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown inner matrix shape.")
    m, n = shape_a.dims[-2].value, shape_a.dims[-1].value
    grad_u = zeros_like(u) if grad_u is None else grad_u
    grad_v = zeros_like(v) if grad_v is None else grad_v
    use_adjoint = m > n
    if use_adjoint:
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    full_matrices = op.get_attr("full_matrices")
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError("svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True.")
    s_mat = matrix_diag(s)
    s_2 = s * s
    f = MatrixSetDiag(_safe_reciprocal(expand_dims(s_2, -2) - expand_dims(s_2, -1)), zeros_like(s))
    s_inv_mat = matrix_diag(_safe_reciprocal(s))
    v1, grad_v1 = v[..., :, :m], grad_v[..., :, :m]
    f_u = f * matmul(u, grad_u, adjoint_a=True)
    f_v = f * matmul(v1, grad_v1, adjoint_a=True)
    inner = grad_s_mat + matmul(f_u + adjoint(f_u), s_mat) + matmul(s_mat, f_v + adjoint(f_v))
    grad_a = matmul(u, matmul(inner, v1, adjoint_b=True))
    if m != n:
        gv1t = adjoint(grad_v1)
        term = gv1t - matmul(matmul(gv1t, v1), v1, adjoint_b=True)
        if full_matrices:
            v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
            term = term - matmul(matmul(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
        grad_a = grad_a + matmul(matmul(u, s_inv_mat), term)
    return [adjoint(grad_a) if use_adjoint else grad_a]


@tf_export("linalg.svd", "svd")
def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True, name: str | None = None) -> Any:
    """The singular values of each innermost matrix (real, for complex ones too), and with `compute_uv` (the
    default) the singular vectors: (s, u, v) with tensor = u diag(s) v^H."""
    s, u, v = Svd(tensor, compute_uv=compute_uv, full_matrices=full_matrices, name=name)
    if s.dtype.is_complex:  # TF returns the (real) singular values in the real type
        s = real(s)
    return (s, u, v) if compute_uv else s


SelfAdjointEigV2 = Op("SelfAdjointEigV2", inputs=["input: T"], outputs=["e: T", "v: T"],
                      attrs=["compute_v: bool = true", f"T: {_TYPES}"])


@SelfAdjointEigV2.shape
def _self_adjoint_eig_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = _square(ctx.input_shape(0))
    if shape.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    e = shape[:-1]
    return [e, shape if ctx.attr("compute_v") else tensor_shape.TensorShape([0])]


@SelfAdjointEigV2.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _self_adjoint_eig(ctx: OpKernelContext, input: Any, compute_v: bool) -> tuple[Any, Any]:  # noqa: A002
    """Eigenvalues ascending, from the lower triangle (as TF's)."""
    _check_square(ctx, input)
    xp = ctx.xp
    if not compute_v:
        return xp.linalg.eigvalsh(input, UPLO="L").astype(input.dtype, copy=False), xp.zeros(0, input.dtype)
    e, v = xp.linalg.eigh(input, UPLO="L")
    return e.astype(input.dtype, copy=False), v.astype(input.dtype, copy=False)


@SelfAdjointEigV2.gradient
def _self_adjoint_eig_grad(op: Any, grad_e: Tensor, grad_v: Tensor) -> list:
    """TF's: through the eigenvectors by 1/(e_j - e_i) off the diagonal, then symmetrized onto the lower
    triangle the op reads."""
    e, v = op.outputs
    if not op.get_attr("compute_v"):  # TF recomputes the eigenvectors the gradient needs
        v = SelfAdjointEigV2(op.inputs[0], compute_v=True)[1]
        grad_v = None
    if grad_e is None:
        grad_e = zeros_like(e)
    f = MatrixSetDiag(reciprocal_no_nan(expand_dims(e, -2) - expand_dims(e, -1)), zeros_like(e))
    inner = matrix_diag(grad_e) if grad_v is None else matrix_diag(grad_e) + f * matmul(v, grad_v, adjoint_a=True)
    grad_a = matmul(v, matmul(inner, v, adjoint_b=True))
    grad_a = MatrixBandPart(grad_a + adjoint(grad_a), -1, 0)
    return [MatrixSetDiag(grad_a, 0.5 * MatrixDiagPart(grad_a))]


@tf_export("linalg.eigh", "self_adjoint_eig")
def self_adjoint_eig(tensor: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The eigenvalues (ascending) and eigenvectors of each innermost self-adjoint matrix."""
    e, v = SelfAdjointEigV2(tensor, compute_v=True, name=name)
    return e, v


@tf_export("linalg.eigvalsh", "self_adjoint_eigvals")
def self_adjoint_eigvals(tensor: Any, name: str | None = None) -> Tensor:
    """The eigenvalues (ascending) of each innermost self-adjoint matrix."""
    e, _ = SelfAdjointEigV2(tensor, compute_v=False, name=name)
    return e


# -- Lu -----------------------------------------------------------------------------------------------

Lu = Op("Lu", inputs=["input: T"], outputs=["lu: T", "p: output_idx_type"],
        attrs=[f"T: {_TYPES}", "output_idx_type: {int32, int64} = DT_INT32"])


@Lu.shape
def _lu_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    shape = _square(ctx.input_shape(0))
    if shape.ndims is None:
        return [tensor_shape.unknown_shape(), tensor_shape.unknown_shape()]
    return [shape, shape[:-1]]


@Lu.kernel("CPU", expensive=True, type_constraints=_LAPACK_KERNEL)
def _lu(ctx: OpKernelContext, input: Any, output_idx_type: Any) -> tuple[Any, Any]:  # noqa: A002
    """Doolittle elimination with partial pivoting (the first largest pivot, as Eigen's PartialPivLU), one
    column at a time over the whole batch: L (unit diagonal, below) and U packed in one matrix, and the
    permutation p with input[..., p, :] = L U."""
    _check_square(ctx, input)
    n = input.shape[-1]
    lu = input.reshape((-1, n, n)).copy()
    batch = np.arange(lu.shape[0])
    perm = np.tile(np.arange(n), (lu.shape[0], 1))
    for k in range(n):
        pivot_rows = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
        rows_k, rows_p = lu[batch, k].copy(), lu[batch, pivot_rows].copy()
        lu[batch, k], lu[batch, pivot_rows] = rows_p, rows_k
        perm[batch, k], perm[batch, pivot_rows] = perm[batch, pivot_rows], perm[batch, k].copy()
        pivots = lu[:, k, k]
        if np.any(pivots == 0):
            raise invalid_argument(ctx, "Input is not invertible.")
        lu[:, k + 1:, k] /= pivots[:, None]
        lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k:k + 1] * lu[:, k:k + 1, k + 1:]
    return lu.reshape(input.shape), perm.reshape(input.shape[:-1]).astype(output_idx_type.as_numpy_dtype)


@tf_export("linalg.lu")
def lu(input: Any, output_idx_type: Any = "int32", name: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The LU decomposition with partial pivoting of each innermost square matrix: (lu, p)."""
    return Lu(input, output_idx_type=output_idx_type, name=name)


# -- matrix_exponential ---------------------------------------------------------------------------------

# Higham's scaling and squaring: the Pade approximants' coefficients, and the 1-norm bounds below which each
# degree is accurate enough (degrees 3, 5, 7 for single precision, 3, 5, 7, 9, 13 for double).
_PADE = {
    3: (120.0, 60.0, 12.0),
    5: (30240.0, 15120.0, 3360.0, 420.0, 30.0),
    7: (17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0),
    9: (17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0),
    13: (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
         10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0),
}
_SINGLE_BOUNDS = (4.258730016922831e-001, 1.880152677804762e+000)
_DOUBLE_BOUNDS = (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e+000)


def _pade(matrix: Tensor, degree: int, ident: Tensor) -> tuple[Tensor, Tensor]:
    """U (the odd part) and V (the even part) of the [degree/degree] Pade approximant of exp, as TF's."""
    b = _PADE[degree]
    m2 = matmul(matrix, matrix)
    if degree == 13:
        m4 = matmul(m2, m2)
        m6 = matmul(m4, m2)
        tmp_u = matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident
        v = matmul(m6, b[12] * m6 + b[10] * m4 + b[8] * m2) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
        return matmul(matrix, tmp_u), v
    powers = [ident, m2]
    while len(powers) < (degree + 1) // 2:
        powers.append(matmul(powers[-1], m2))
    tmp, v = powers[-1], b[degree - 1] * powers[-1]
    for j in range(len(powers) - 2, -1, -1):
        tmp = tmp + b[2 * j + 1] * powers[j]
        v = v + b[2 * j] * powers[j]
    return matmul(matrix, tmp), v


@tf_export("linalg.expm")
def matrix_exponential(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """exp of each innermost square matrix, by TF's scaling and squaring: a Pade approximant chosen by the
    1-norm, solved with MatrixSolve, then squared in a while_loop as often as each matrix needs."""
    with name_scope(name, "matrix_exponential", [input]):
        matrix = convert_to_tensor(input, name="input")
        if matrix.shape.ndims is not None and matrix.shape.as_list()[-2:] == [0, 0]:
            return matrix
        original_shape = shape(matrix)
        matrix = reshape(matrix, raw_ops.ConcatV2(values=[[-1], original_shape[-2:]], axis=0))
        l1_norm = expand_dims(expand_dims(reduce_max(reduce_sum(Abs(matrix), axis=-2), axis=-1), -1), -1)
        real_dtype = l1_norm.dtype

        def const(x: float) -> Tensor:
            return constant(x, dtype=real_dtype)

        ident = eye(shape(matrix)[-2], batch_shape=shape(matrix)[:-2], dtype=matrix.dtype)
        single = matrix.dtype.base_dtype in (dtypes.float16, dtypes.float32, dtypes.complex64)
        max_norm = const(3.925724783138660 if single else 5.371920351148152)
        squarings = maximum(Floor(Log(l1_norm / max_norm) / Log(const(2.0))), const(0.0))
        degrees, bounds = ((3, 5, 7), _SINGLE_BOUNDS) if single else ((3, 5, 7, 9, 13), _DOUBLE_BOUNDS)
        scaled = matrix / cast(elementwise_ops.pow(const(2.0), squarings), matrix.dtype)
        pairs = [_pade(matrix, d, ident) for d in degrees[:-1]] + [_pade(scaled, degrees[-1], ident)]
        u, v = pairs[-1]
        for bound, (u_d, v_d) in reversed(list(zip(bounds, pairs[:-1]))):
            small = less(l1_norm, const(bound))
            u, v = where_v2(small, u_d, u), where_v2(small, v_d, v)
        result = MatrixSolve(-u + v, u + v)
        max_squarings = reduce_max(squarings)

        def more(i: Tensor, _: Tensor) -> Tensor:
            return less(i, max_squarings)

        def square(i: Tensor, r: Tensor) -> tuple[Tensor, Tensor]:
            return i + 1, where_v2(less(i, squarings), matmul(r, r), r)

        _, result = while_loop(more, square, [const(0.0), result])
        return reshape(result, original_shape)
