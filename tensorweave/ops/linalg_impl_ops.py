"""The rest of `tf.linalg`: the matrix square root and logarithm (MatrixSquareRoot with TF's gradient,
MatrixLogarithm), tridiagonal products and solves (TridiagonalMatMul, TridiagonalSolve, both with TF's
gradients) and the composites TF builds from existing ops: lu_solve, lu_reconstruct, lu_matrix_inverse, pinv,
matrix_rank, normalize and eigh_tridiagonal.

The square root and logarithm are taken through each matrix's eigendecomposition, V f(L) V^-1, for the whole
batch in one stacked LAPACK call (TF uses a Schur decomposition: the same principal branch, equal values up to
rounding for the diagonalizable matrices both handle well). The tridiagonal kernels work on the three
diagonals as vectors: a product is three shifted multiplies, a solve a stacked dense solve of the matrix the
diagonals make.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.op_kernel import OpKernelContext
from tensorweave.framework.op_registry import Op
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.elementwise_ops import conj, greater, maximum, where_v2
from tensorweave.ops.fill_ops import ones, zeros
from tensorweave.ops.indexing_ops import boolean_mask, gather, gather_nd
from tensorweave.ops.kernel_helpers import invalid_argument
from tensorweave.ops.linalg_decompositions import MatrixSolve, _check_square, _square, self_adjoint_eig, svd
from tensorweave.ops.linalg_decompositions import matrix_triangular_solve as triangular_solve
from tensorweave.ops.linalg_ops import (
    eye,
    matmul,
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
    norm,
)
from tensorweave.ops.manipulation_ops import concat, matrix_transpose, stack
from tensorweave.ops.reduction_ops import reduce_max, reduce_prod, reduce_sum
from tensorweave.ops.scatter_ops import scatter_nd
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_helpers import with_rank, with_rank_at_least
from tensorweave.ops.shape_ops import (
    broadcast_dynamic_shape,
    broadcast_to,
    expand_dims,
    reshape,
    shape,
    squeeze,
)
from tensorweave.platform.tf_export import tf_export

# -- MatrixSquareRoot, MatrixLogarithm ----------------------------------------------------------------------


def _eig_function(x: Any, fn: Any) -> Any:
    """V fn(L) V^-1 of each innermost matrix, real for real input (its principal branch is)."""
    values, vectors = np.linalg.eig(x)
    result = np.linalg.solve(np.swapaxes(vectors, -1, -2), np.swapaxes(vectors * fn(values)[..., None, :], -1, -2))
    result = np.swapaxes(result, -1, -2)
    return result.real if not np.iscomplexobj(x) else result


MatrixSquareRoot = Op("MatrixSquareRoot", inputs=["input: T"], outputs=["output: T"],
                      attrs=["T: {double, float, half, complex64, complex128}"])
MatrixSquareRoot.shape(lambda ctx: [_square(ctx.input_shape(0))])


@MatrixSquareRoot.kernel("CPU", expensive=True)
def _matrix_square_root(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    _check_square(ctx, input)
    if input.size == 0:
        return input.copy()
    x = input.astype(np.float32) if input.dtype == np.float16 else input
    with np.errstate(invalid="ignore"):
        root = _eig_function(x, lambda values: np.sqrt(values.astype(np.complex128)))
        # TF's Schur method: a negative real eigenvalue of a real matrix, or two zero eigenvalues (0 / 0 in the
        # triangular recurrence), make the whole root NaN
        values = np.linalg.eigvals(x)
        bad = np.sum(values == 0, axis=-1) >= 2
        if not np.iscomplexobj(x):
            bad |= np.any((values.imag == 0) & (values.real < 0), axis=-1)
        root[bad] = np.nan
    return root.astype(input.dtype)


@MatrixSquareRoot.gradient
def _matrix_square_root_grad(op: Any, grad: Tensor) -> list:
    """R = sqrtm(A), so dA = R dR + dR R; the gradient by A is the Y with R^T Y + Y R^T = grad, solved as the
    linear system (R^T (x) I + I (x) R) vec(Y) = vec(grad) (row-major vec, Kronecker products by broadcasting)."""
    root = op.outputs[0]
    dims = shape(root)
    order = dims[-1]
    batch = dims[:-2]
    identity = eye(order, batch_shape=batch, dtype=root.dtype)
    system = _kronecker(matrix_transpose(root), identity) + _kronecker(identity, root)
    vec = reshape(grad, concat([batch, [order * order, 1]], 0))
    return [reshape(MatrixSolve(system, vec), dims)]


def _kronecker(a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker products of two batches of n x n matrices: [..., n*n, n*n]."""
    dims = shape(a)
    batch, order = dims[:-2], dims[-1]
    left = reshape(a, concat([batch, [order, 1, order, 1]], 0))
    right = reshape(b, concat([batch, [1, order, 1, order]], 0))
    return reshape(left * right, concat([batch, [order * order, order * order]], 0))


@tf_export("linalg.sqrtm", "matrix_square_root")
def matrix_square_root(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The principal square root of each innermost square matrix."""
    return MatrixSquareRoot(input, name=name)


MatrixLogarithm = Op("MatrixLogarithm", inputs=["input: T"], outputs=["output: T"],
                     attrs=["T: {complex64, complex128}"])
MatrixLogarithm.shape(lambda ctx: [_square(ctx.input_shape(0))])


@MatrixLogarithm.kernel("CPU", expensive=True)
def _matrix_logarithm(ctx: OpKernelContext, input: Any) -> Any:  # noqa: A002
    _check_square(ctx, input)
    if input.size == 0:
        return input.copy()
    return _eig_function(input, np.log).astype(input.dtype)


@tf_export("linalg.logm")
def matrix_logarithm(input: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """The principal logarithm of each innermost complex square matrix."""
    return MatrixLogarithm(input, name=name)


# -- TridiagonalMatMul, TridiagonalSolve --------------------------------------------------------------------

_TRIDIAGONAL_TYPES = "T: {double, float, complex64, complex128}"


def _shift_up(x: Any, axis: int) -> Any:
    """x[i + 1] at i along `axis` (NumPy), zero past the end."""
    out = np.zeros_like(x)
    source = [slice(None)] * x.ndim
    target = [slice(None)] * x.ndim
    source[axis], target[axis] = slice(1, None), slice(None, -1)
    out[tuple(target)] = x[tuple(source)]
    return out


def _shift_down(x: Any, axis: int) -> Any:
    """x[i - 1] at i along `axis` (NumPy), zero before the start."""
    out = np.zeros_like(x)
    source = [slice(None)] * x.ndim
    target = [slice(None)] * x.ndim
    source[axis], target[axis] = slice(None, -1), slice(1, None)
    out[tuple(target)] = x[tuple(source)]
    return out


TridiagonalMatMul = Op("TridiagonalMatMul", inputs=["superdiag: T", "maindiag: T", "subdiag: T", "rhs: T"],
                       outputs=["output: T"], attrs=[_TRIDIAGONAL_TYPES])


@TridiagonalMatMul.shape
def _tridiagonal_matmul_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    rhs = with_rank_at_least(ctx.input_shape(3), 2)
    for index in range(3):
        diagonal = with_rank_at_least(ctx.input_shape(index), 2)
        if diagonal.ndims is not None and diagonal[-2] is not None and tensor_shape.dimension_value(
                diagonal[-2]) != 1:
            raise ValueError(f"Dimension must be 1 but is {tensor_shape.dimension_value(diagonal[-2])}")
    return [rhs]


@TridiagonalMatMul.kernel("CPU")
def _tridiagonal_matmul(ctx: OpKernelContext, superdiag: Any, maindiag: Any, subdiag: Any, rhs: Any) -> Any:
    size = rhs.shape[-2]
    for name, diagonal in (("superdiag", superdiag), ("maindiag", maindiag), ("subdiag", subdiag)):
        if diagonal.shape[-1] != size or diagonal.shape[-2] != 1:
            raise invalid_argument(ctx, f"Expected {name} to have shape [..., 1, {size}], got "
                                        f"{tensor_shape.shape_string(diagonal.shape)}")
    column = np.swapaxes  # the diagonals [..., 1, M] as columns [..., M, 1] against rhs's rows
    return (column(superdiag, -1, -2) * _shift_up(rhs, -2) + column(maindiag, -1, -2) * rhs
            + column(subdiag, -1, -2) * _shift_down(rhs, -2))


@TridiagonalMatMul.gradient
def _tridiagonal_matmul_grad(op: Any, grad: Tensor) -> list:
    superdiag, maindiag, subdiag, rhs = op.inputs
    rhs_conj = conj(rhs)
    diagonal_grads = [expand_dims(reduce_sum(part * grad, axis=-1), -2)
                      for part in (_tensor_shift(rhs_conj, up=True), rhs_conj, _tensor_shift(rhs_conj, up=False))]
    super_t, main_t, sub_t = (matrix_transpose(d, conjugate=True) for d in (superdiag, maindiag, subdiag))
    rhs_grad = _tensor_shift(super_t * grad, up=False) + main_t * grad + _tensor_shift(sub_t * grad, up=True)
    return [*diagonal_grads, rhs_grad]


def _tensor_shift(x: Tensor, up: bool) -> Tensor:
    """x[..., i + 1, :] (up) or x[..., i - 1, :] at row i, zero past the edge."""
    edge = zeros(concat([shape(x)[:-2], [1], shape(x)[-1:]], 0), x.dtype)
    return concat([x[..., 1:, :], edge], -2) if up else concat([edge, x[..., :-1, :]], -2)


TridiagonalSolve = Op("TridiagonalSolve", inputs=["diagonals: T", "rhs: T"], outputs=["output: T"],
                      attrs=["partial_pivoting: bool = true", "perturb_singular: bool = false", _TRIDIAGONAL_TYPES])


@TridiagonalSolve.shape
def _tridiagonal_solve_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    diagonals = with_rank_at_least(ctx.input_shape(0), 2)
    rhs = with_rank_at_least(ctx.input_shape(1), 2)
    if diagonals.ndims is not None:
        if diagonals[-2] is not None and tensor_shape.dimension_value(diagonals[-2]) != 3:
            raise ValueError(f"Dimension must be 3 but is {tensor_shape.dimension_value(diagonals[-2])}")
        if rhs.ndims is not None:
            with_rank(rhs, diagonals.ndims)
            tensor_shape.merge_shapes(diagonals[:-2], rhs[:-2])
            tensor_shape.merge_shapes(diagonals[-1:], rhs[-2:-1])
    return [rhs]


def _dense_tridiagonal(diagonals: Any) -> Any:
    """The [..., M, M] matrices of compact diagonals [..., 3, M] (superdiag, maindiag, subdiag)."""
    size = diagonals.shape[-1]
    matrix = np.zeros(diagonals.shape[:-2] + (size, size), diagonals.dtype)
    rows = np.arange(size)
    matrix[..., rows, rows] = diagonals[..., 1, :]
    matrix[..., rows[:-1], rows[1:]] = diagonals[..., 0, :-1]
    matrix[..., rows[1:], rows[:-1]] = diagonals[..., 2, 1:]
    return matrix


@TridiagonalSolve.kernel("CPU", expensive=True)
def _tridiagonal_solve(ctx: OpKernelContext, diagonals: Any, rhs: Any, partial_pivoting: bool,
                       perturb_singular: bool) -> Any:
    if diagonals.shape[-2] != 3:
        raise invalid_argument(ctx, f"Expected 3 diagonals got {diagonals.shape[-2]}")
    if diagonals.shape[-1] != rhs.shape[-2]:
        raise invalid_argument(ctx, f"Expected last dimension of diagonals to be same as the size of rhs, got "
                                    f"{diagonals.shape[-1]} and {rhs.shape[-2]}")
    if rhs.size == 0:
        return rhs.copy()
    matrix = _dense_tridiagonal(diagonals)
    singular = np.zeros(matrix.shape[:-2], bool)
    if not partial_pivoting:  # the Thomas algorithm fails on any zero pivot
        pivot = diagonals[..., 1, 0]
        singular |= pivot == 0
        for i in range(1, diagonals.shape[-1]):
            with np.errstate(divide="ignore", invalid="ignore"):
                pivot = diagonals[..., 1, i] - diagonals[..., 2, i] * diagonals[..., 0, i - 1] / pivot
            singular |= pivot == 0
    solution = np.full(rhs.shape, np.nan, rhs.dtype)
    for index in np.ndindex(*matrix.shape[:-2]):
        if singular[index]:
            continue
        try:
            solution[index] = np.linalg.solve(matrix[index], rhs[index])
        except np.linalg.LinAlgError:
            if perturb_singular:
                raise invalid_argument(ctx, "The matrix is not invertible.") from None
    # TF's CPU kernel logs that a matrix is not invertible and leaves its solution NaN
    return solution


@TridiagonalSolve.gradient
def _tridiagonal_solve_grad(op: Any, grad: Tensor) -> list:
    """As TF: the rhs's gradient solves the transposed system; the diagonals' are minus the three diagonals of
    that gradient times the solution's transpose."""
    diagonals = op.inputs[0]
    solution = op.outputs[0]
    edge = zeros(concat([shape(diagonals)[:-2], [1]], 0), diagonals.dtype)
    transposed = stack([concat([diagonals[..., 2, 1:], edge], -1), diagonals[..., 1, :],
                        concat([edge, diagonals[..., 0, :-1]], -1)], axis=-2)
    rhs_grad = TridiagonalSolve(transposed, grad, partial_pivoting=op.get_attr("partial_pivoting"),
                                perturb_singular=op.get_attr("perturb_singular"))
    diagonal_grads = stack([reduce_sum(rhs_grad * _tensor_shift(solution, up=True), -1),
                            reduce_sum(rhs_grad * solution, -1),
                            reduce_sum(rhs_grad * _tensor_shift(solution, up=False), -1)], axis=-2)
    return [-diagonal_grads, rhs_grad]


def _compact_diagonals(diagonals: Any, diagonals_format: str) -> Tensor:
    """Diagonals in TF's compact [..., 3, M] form from any of its three formats."""
    if diagonals_format == "compact":
        return convert_to_tensor(diagonals, name="diagonals")
    if diagonals_format == "sequence":
        if not isinstance(diagonals, (list, tuple)) or len(diagonals) != 3:
            raise ValueError("Expected diagonals to be a sequence of length 3.")
        superdiag, maindiag, subdiag = (convert_to_tensor(d) for d in diagonals)
        return stack([superdiag, maindiag, subdiag], axis=-2)
    if diagonals_format == "matrix":
        matrix = convert_to_tensor(diagonals, name="diagonals")
        main = matrix_diag_part(matrix)
        edge = zeros(concat([shape(matrix)[:-2], [1]], 0), matrix.dtype)
        superdiag = concat([matrix_diag_part(matrix, k=1), edge], -1)
        subdiag = concat([edge, matrix_diag_part(matrix, k=-1)], -1)
        return stack([superdiag, main, subdiag], axis=-2)
    raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


@tf_export("linalg.tridiagonal_matmul")
def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                       name: str | None = None) -> Tensor:
    """The product of tridiagonal matrices (given by their diagonals) and `rhs`; as TF, in no name scope."""
    compact = _compact_diagonals(diagonals, diagonals_format)
    rhs = convert_to_tensor(rhs, name="rhs")
    superdiag, maindiag, subdiag = (expand_dims(compact[..., i, :], -2) for i in range(3))
    return TridiagonalMatMul(superdiag, maindiag, subdiag, rhs, name=name)


@tf_export("linalg.tridiagonal_solve")
def tridiagonal_solve(diagonals: Any, rhs: Any, diagonals_format: str = "compact", transpose_rhs: bool = False,
                      conjugate_rhs: bool = False, name: str | None = None, partial_pivoting: bool = True,
                      perturb_singular: bool = False) -> Tensor:
    """Solutions x of A x = rhs for tridiagonal A given by its diagonals (`transpose_rhs`: rhs is [..., K, M])."""
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    compact = _compact_diagonals(diagonals, diagonals_format)
    rhs = convert_to_tensor(rhs, name="rhs")
    _check_tridiagonal_ranks(compact.shape, rhs.shape)
    is_vector = None not in (rhs.shape.ndims, compact.shape.ndims) and rhs.shape.ndims == compact.shape.ndims - 1
    if is_vector:  # TF ignores transpose_rhs for a vector
        rhs = expand_dims(conj(rhs) if conjugate_rhs else rhs, -1)
    elif transpose_rhs:
        rhs = matrix_transpose(rhs, conjugate=conjugate_rhs)
    elif conjugate_rhs:
        rhs = conj(rhs)
    lhs_size, rhs_size = compact.shape[-1:], rhs.shape[-2:-1]
    if compact.shape.ndims and rhs.shape.ndims and lhs_size[0] is not None and rhs_size[0] is not None and \
            lhs_size[0] != rhs_size[0]:
        raise ValueError("Expected number of left-hand sided and right-hand sides to be equal, got "
                         f"{lhs_size[0]} and {rhs_size[0]}")
    result = TridiagonalSolve(compact, rhs, partial_pivoting=partial_pivoting, perturb_singular=perturb_singular,
                              name=name)
    return squeeze(result, -1) if is_vector else result


def _check_tridiagonal_ranks(diagonals: Any, rhs: Any) -> None:
    """TF's static checks of compact diagonals against the right-hand sides, with its messages."""
    diags_rank, rhs_rank = diagonals.ndims, rhs.ndims
    if diags_rank:
        if diags_rank < 2:
            raise ValueError(f"Expected diagonals to have rank at least 2, got {diags_rank}")
        if rhs_rank and rhs_rank not in (diags_rank, diags_rank - 1):
            raise ValueError(f"Expected the rank of rhs to be {diags_rank - 1} or {diags_rank}, got {rhs_rank}")
        if rhs_rank and not diagonals[:-2].is_compatible_with(rhs[:diags_rank - 2]):
            raise ValueError(f"Batch shapes {diagonals[:-2]} and {rhs[:diags_rank - 2]} are incompatible")
    if diags_rank and diagonals.dims[-2].value and diagonals.dims[-2].value != 3:
        raise ValueError(f"Expected 3 diagonals got {diagonals.dims[-2].value}")


# -- LU composites, pinv, matrix_rank, normalize, eigh_tridiagonal ------------------------------------------


def _unit_lower(lower_upper: Tensor) -> Tensor:
    return matrix_set_diag(matrix_band_part(lower_upper, -1, 0), ones(shape(lower_upper)[:-1], lower_upper.dtype))


@tf_export("linalg.lu_solve")
def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False, name: str | None = None) -> Tensor:
    """Solutions x of A x = rhs from `tf.linalg.lu`'s factors of A: rhs permuted, then two triangular solves."""
    with name_scope(name or "lu_solve"):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        perm = convert_to_tensor(perm, name="perm")
        rhs = convert_to_tensor(rhs, name="rhs", dtype=lower_upper.dtype)
        rhs_dims = shape(rhs)
        batch = broadcast_dynamic_shape(rhs_dims[:-2], shape(perm)[:-1])
        full = concat([batch, rhs_dims[-2:]], 0)
        flat_rhs = reshape(broadcast_to(rhs, full), concat([[-1], rhs_dims[-2:]], 0))
        flat_perm = reshape(broadcast_to(perm, full[:-1]), concat([[-1], rhs_dims[-2:-1]], 0))
        count, size = shape(flat_rhs)[0], rhs_dims[-2]
        batch_index = broadcast_to(expand_dims(tf_range(count), 1), stack([count, size]))
        rows = stack([batch_index, cast(flat_perm, dtypes.int32)], -1)
        permuted = reshape(gather_nd(flat_rhs, rows), full)
        return triangular_solve(lower_upper, triangular_solve(_unit_lower(lower_upper), permuted), lower=False)


@tf_export("linalg.lu_matrix_inverse")
def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False,
                      name: str | None = None) -> Tensor:
    """The inverse of A from `tf.linalg.lu`'s factors of A."""
    with name_scope(name or "lu_matrix_inverse"):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        dims = shape(lower_upper)
        return lu_solve(lower_upper, perm, eye(dims[-1], batch_shape=dims[:-2], dtype=lower_upper.dtype))


@tf_export("linalg.lu_reconstruct")
def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False, name: str | None = None) -> Tensor:
    """A from `tf.linalg.lu`'s factors: L U with its rows put back where the permutation took them."""
    with name_scope(name or "lu_reconstruct"):
        lower_upper = convert_to_tensor(lower_upper, name="lower_upper")
        perm = convert_to_tensor(perm, name="perm")
        dims = shape(lower_upper)
        product = matmul(_unit_lower(lower_upper), matrix_band_part(lower_upper, 0, -1))
        count = reduce_prod(dims[:-2])
        size = dims[-1]
        rows = reshape(cast(perm, dtypes.int32), [count, size])
        batch_index = broadcast_to(expand_dims(tf_range(count), 1), [count, size])
        restored = scatter_nd(stack([batch_index, rows], -1), reshape(product, [count, size, size]),
                              stack([count, size, size]))
        result = reshape(restored, dims)
        result.set_shape(lower_upper.shape)
        return result


@tf_export("linalg.pinv")
def pinv(a: Any, rcond: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse from the SVD, singular values below `rcond` times the largest dropped
    (by default 10 * max(rows, cols) * eps)."""
    with name_scope(name or "pinv", values=[a, rcond]):
        a = convert_to_tensor(a, name="a")
        if not a.dtype.is_floating:
            raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            rows, cols = (a.shape.as_list()[i] if a.shape.ndims else None for i in (-2, -1))
            if rows is not None and cols is not None:
                largest: Any = float(max(rows, cols))
            else:
                largest = cast(maximum(shape(a)[-2], shape(a)[-1]), a.dtype)
            rcond = 10.0 * largest * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=a.dtype, name="rcond")
        singular, left, right = svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * reduce_max(singular, axis=-1)
        singular = where_v2(greater(singular, expand_dims(cutoff, -1)), singular, np.array(np.inf, dtype))
        result = matmul(right / cast(expand_dims(singular, -2), a.dtype), left, adjoint_b=True)
        if a.shape.ndims is not None:
            result.set_shape(a.shape[:-2].concatenate([a.shape[-1], a.shape[-2]]))
        return result


@tf_export("linalg.matrix_rank")
def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False, name: str | None = None) -> Tensor:
    """How many singular values of each innermost matrix exceed `tol` (by default eps * max(rows, cols) times
    the largest)."""
    with name_scope(name or "matrix_rank"):
        a = convert_to_tensor(a, name="a")
        singular = svd(a, compute_uv=False)
        if tol is None:
            inner = a.shape[-2:]
            largest = (np.max(inner.as_list()) if inner.is_fully_defined() else reduce_max(shape(a)[-2:]))
            tol = np.finfo(a.dtype.as_numpy_dtype).eps * cast(largest, a.dtype) * reduce_max(singular, axis=-1,
                                                                                              keepdims=True)
        return reduce_sum(cast(greater(singular, tol), dtypes.int32), axis=-1)


@tf_export("linalg.normalize")
def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002 - TF's name
              name: str | None = None) -> tuple[Tensor, Tensor]:
    """`tensor` divided by its norm (`tf.norm`'s `ord` and `axis`), and that norm."""
    with name_scope(name, "normalize", [tensor]):
        tensor = convert_to_tensor(tensor)
        tensor_norm = cast(norm(tensor, ord, axis, keepdims=True), tensor.dtype)
        return tensor / tensor_norm, tensor_norm


@tf_export("linalg.eigh_tridiagonal")
def eigh_tridiagonal(alpha: Any, beta: Any, eigvals_only: bool = True, select: str = "a", select_range: Any = None,
                     tol: Any = None, name: str | None = None) -> Any:
    """Eigenvalues (ascending; with `eigvals_only=False` and eigenvectors) of the Hermitian tridiagonal matrix of
    diagonal `alpha` and off-diagonal `beta`: all ('a'), those in (lo, hi] ('v') or indices lo..hi ('i')."""
    with name_scope(name or "eigh_tridiagonal"):
        alpha = convert_to_tensor(alpha, name="alpha")
        beta = convert_to_tensor(beta, name="beta", dtype=None if alpha.dtype.is_floating else alpha.dtype)
        if alpha.shape.ndims not in (None, 1):
            raise ValueError(f"Only 1-D alpha is supported (got rank {alpha.shape.ndims}).")
        if select not in ("a", "v", "i"):
            raise ValueError("select must be one of 'a', 'v' or 'i'.")
        if select != "a" and select_range is None:
            raise ValueError("select_range must be given when select is 'v' or 'i'.")
        if beta.dtype.is_complex and not alpha.dtype.is_complex:
            alpha = cast(alpha, beta.dtype)
        matrix = (matrix_diag(alpha) + matrix_diag(beta, k=1) + matrix_diag(conj(beta), k=-1))
        values, vectors = self_adjoint_eig(matrix)
        if select == "i":
            low, high = select_range
            keep = tf_range(low, high + 1)
            values, vectors = gather(values, keep), gather(vectors, keep, axis=1)
        elif select == "v":
            low, high = (convert_to_tensor(bound, dtype=values.dtype) for bound in select_range)
            mask = greater(values, low) & ~greater(values, high)
            values, vectors = boolean_mask(values, mask), boolean_mask(vectors, mask, axis=1)
        return values if eigvals_only else (values, vectors)

