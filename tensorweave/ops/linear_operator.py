"""`tf.linalg.LinearOperator` and the operators that are one matrix, one diagonal or a view of another
operator: FullMatrix, Diag, Identity, ScaledIdentity, Zeros, LowerTriangular, Adjoint, Inversion, Composition.

A LinearOperator is a batch of matrices `[B1, ..., Bb, M, N]` known by what it does (matmul, solve,
determinant, ...) rather than by its entries: each subclass computes those from its own structure with the
existing ops, and the base class falls back on the dense matrix only where a subclass has nothing better.
Invariant, as TF keeps it: the hints `is_non_singular`, `is_self_adjoint`, `is_positive_definite` and
`is_square` are True, False or None (unknown), consistent with each other (a contradiction is a ValueError at
construction), and the operations that need a property (`solve`, `inverse`, `cholesky`, `determinant`) refuse
an operator whose hints say it lacks it. Structured operators (Kronecker, block diagonal, circulant, ...) are
in `linear_operator_structured`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape, tensor_util
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.check_ops import assert_equal, assert_less, assert_positive
from tensorweave.ops.control_flow_ops import no_op
from tensorweave.ops.elementwise_ops import abs as tf_abs
from tensorweave.ops.elementwise_ops import conj, exp, imag, log, not_equal, real, sqrt
from tensorweave.ops.fill_ops import ones, zeros
from tensorweave.ops.linalg_decompositions import (
    cholesky,
    cholesky_solve,
    matrix_determinant,
    matrix_solve,
    matrix_triangular_solve,
    self_adjoint_eigvals,
    slogdet,
    svd,
)
from tensorweave.ops.linalg_ops import adjoint as matrix_adjoint
from tensorweave.ops.linalg_ops import (
    eye,
    matmul,
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    matrix_set_diag,
)
from tensorweave.ops.manipulation_ops import concat
from tensorweave.ops.reduction_ops import reduce_all, reduce_max, reduce_min, reduce_prod, reduce_sum
from tensorweave.ops.shape_ops import (
    broadcast_dynamic_shape,
    broadcast_static_shape,
    broadcast_to,
    expand_dims,
    shape,
    size,
    squeeze,
)
from tensorweave.platform.tf_export import tf_export

_FLOATING = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.complex64, dtypes.complex128)


def check_dtype(tensor: Tensor, argument: str, allowed: Sequence[dtypes.DType] = _FLOATING) -> None:
    """TF's TypeError for an operator argument of a dtype the operator cannot hold."""
    if tensor.dtype.base_dtype not in allowed:
        listed = ", ".join(f"tf.{d.name}" for d in allowed)
        raise TypeError(f"Argument `{argument}` must have dtype in [{listed}]. Received: {tensor.dtype}.")


def shape_argument(value: Any, name: str) -> Tensor:
    """A shape or dimension argument (`num_rows`, `batch_shape`) as an int32 tensor, as TF converts them."""
    tensor = convert_to_tensor(value, name=name, dtype_hint=dtypes.int32)
    if not tensor.dtype.is_integer:
        raise TypeError(f"Argument {name} must be integer type.  Found: {tensor}")
    return tensor if tensor.dtype == dtypes.int32 else cast(tensor, dtypes.int32)


def static_value(tensor: Tensor) -> np.ndarray | None:
    """The value of a tensor known when the graph is built (a constant), else None."""
    return tensor_util.constant_value(tensor)


def broadcast_matrix_batch_dims(matrices: Sequence[Tensor]) -> list[Tensor]:
    """The matrices broadcast against each other in their batch dimensions (all but the last two), as the ops
    that want equal batches (MatrixSolve, the FFTs) need: statically where the shapes say enough."""
    batches = [m.shape[:-2] for m in matrices]
    if all(b.is_fully_defined() for b in batches) and all(b == batches[0] for b in batches):
        return list(matrices)
    batch = shape(matrices[0])[:-2]
    for m in matrices[1:]:
        batch = broadcast_dynamic_shape(batch, shape(m)[:-2])
    static = batches[0]
    for b in batches[1:]:
        static = broadcast_static_shape(static, b)
    result = []
    for m, b in zip(matrices, batches):
        if b.is_fully_defined() and b == static and static.is_fully_defined():
            result.append(m)
            continue
        out = broadcast_to(m, concat([batch, shape(m)[-2:]], 0))
        out.set_shape(static.concatenate(m.shape[-2:]))
        result.append(out)
    return result


def _hint_and(*hints: bool | None) -> bool | None:
    """True when every hint is True (the property then holds for the combination), else unknown."""
    return True if all(h is True for h in hints) else None


def auto_hint(hints: Sequence[bool | None], given: bool | None, message: str) -> bool | None:
    """A combined operator's hint: True when all its parts have the property (a given False contradicts)."""
    if all(h is True for h in hints):
        if given is False:
            raise ValueError(message)
        return True
    return given


def expected_true(argument: str, value: Any) -> str:
    """The tail TF's newer operators give a hint they contradict."""
    return f" Expected argument `{argument}` to be True. Received: {value}."


def operator_hint(operator: LinearOperator, attr: str, given: bool | None, message: str) -> bool | None:
    """The hint of a view (adjoint, inverse) of `operator`: its own where known, unless `given` contradicts."""
    known = getattr(operator, attr)
    if known is not None and given is not None and known != given:
        raise ValueError(message)
    return known if known is not None else given


@tf_export("linalg.LinearOperator")
class LinearOperator:
    """A batch of matrices defined by their action; subclasses implement `_shape`, `_shape_tensor` and
    `_matmul`, and override the other `_`-methods where their structure does better than the dense matrix."""

    def __init__(self, dtype: Any, graph_parents: Any = None, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None, parameters: dict | None = None) -> None:
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._name = name or type(self).__name__
        self._parameters = dict(parameters) if parameters is not None else {}

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of the matrices (and of the tensors matmul and solve accept)."""
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def parameters(self) -> dict:
        """The arguments the operator was built from."""
        return dict(self._parameters)

    @property
    def graph_parents(self) -> list:
        """Deprecated in TF: the tensors the operator depends on, as given."""
        return list(self._graph_parents)

    @property
    def is_non_singular(self) -> bool | None:
        return self._is_non_singular

    @property
    def is_self_adjoint(self) -> bool | None:
        return self._is_self_adjoint

    @property
    def is_positive_definite(self) -> bool | None:
        return self._is_positive_definite

    @property
    def is_square(self) -> bool | None:
        """The hint, or what the static shape says where there is no hint (None when it cannot tell)."""
        auto = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto
        return self._is_square_set_or_implied_by_hints

    def _shape(self) -> tensor_shape.TensorShape:
        raise NotImplementedError("_shape is not implemented.")

    def _shape_tensor(self) -> Tensor:
        raise NotImplementedError("_shape_tensor is not implemented.")

    @property
    def shape(self) -> tensor_shape.TensorShape:
        """The static shape `[B1, ..., Bb, M, N]`, partial where the arguments' shapes are."""
        return self._shape()

    @property
    def batch_shape(self) -> tensor_shape.TensorShape:
        return self.shape[:-2]

    @property
    def tensor_rank(self) -> int | None:
        return self.shape.ndims

    @property
    def domain_dimension(self) -> tensor_shape.Dimension:
        if self.shape.ndims is None:
            return tensor_shape.Dimension(None)
        return self.shape.dims[-1]

    @property
    def range_dimension(self) -> tensor_shape.Dimension:
        if self.shape.ndims is None:
            return tensor_shape.Dimension(None)
        return self.shape.dims[-2]

    def _scope(self, name: str) -> Any:
        return _OperatorScope(self, name)

    def shape_tensor(self, name: str = "shape_tensor") -> Tensor:
        with self._scope(name):
            if self.shape.is_fully_defined():
                return convert_to_tensor(self.shape.as_list(), dtype=dtypes.int32, name="shape")
            return self._shape_tensor()

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> Tensor:
        with self._scope(name):
            if self.batch_shape.is_fully_defined():
                return convert_to_tensor(self.batch_shape.as_list(), dtype=dtypes.int32, name="batch_shape")
            return self.shape_tensor()[:-2]

    def tensor_rank_tensor(self, name: str = "tensor_rank_tensor") -> Tensor:
        with self._scope(name):
            if self.tensor_rank is not None:
                return convert_to_tensor(self.tensor_rank, dtype=dtypes.int32)
            return size(self.shape_tensor())

    def domain_dimension_tensor(self, name: str = "domain_dimension_tensor") -> Tensor:
        with self._scope(name):
            value = tensor_shape.dimension_value(self.domain_dimension)
            if value is not None:
                return convert_to_tensor(value, dtype=dtypes.int32)
            return self.shape_tensor()[-1]

    def range_dimension_tensor(self, name: str = "range_dimension_tensor") -> Tensor:
        with self._scope(name):
            value = tensor_shape.dimension_value(self.range_dimension)
            if value is not None:
                return convert_to_tensor(value, dtype=dtypes.int32)
            return self.shape_tensor()[-2]

    def _check_input_dtype(self, arg: Tensor) -> None:
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype}.  Found: {arg.dtype} in tensor {arg}")

    def _can_use_cholesky(self) -> bool:
        return bool(self.is_self_adjoint and self.is_positive_definite)

    def _batch_dims(self, trailing: list) -> Any:
        """`batch_shape + trailing`: a Python list where the batch shape is static, else a shape tensor."""
        if self.batch_shape.is_fully_defined():
            return self.batch_shape.as_list() + list(trailing)
        return concat([self.batch_shape_tensor(), trailing], 0)

    def _dim(self, which: str) -> Any:
        """The domain or range dimension: an int where static, else a scalar tensor."""
        value = tensor_shape.dimension_value(getattr(self, f"{which}_dimension"))
        return value if value is not None else getattr(self, f"{which}_dimension_tensor")()

    def matmul(self, x: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str = "matmul") -> Any:
        """`self @ x` (adjoints as asked); with a LinearOperator `x` the product is an operator."""
        if isinstance(x, LinearOperator):
            left, right = self._composable(x, adjoint, adjoint_arg, "x")
            with self._scope(name):
                return left._matmul_operator(right)
        with self._scope(name):
            x = self._checked_argument(x, "x", -2 if adjoint else -1, -1 if adjoint_arg else -2)
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other: Any) -> Any:
        return self.matmul(other)

    def _checked_argument(self, value: Any, arg_name: str, self_dim: int, arg_dim: int) -> Tensor:
        """`value` as a tensor of the operator's dtype, its dimension `arg_dim` checked against the operator's
        dimension `self_dim`."""
        value = convert_to_tensor(value, name=arg_name)
        self._check_input_dtype(value)
        tensor_shape.dimension_at_index(self.shape, self_dim).assert_is_compatible_with(value.shape[arg_dim])
        return value

    def _composable(self, other: LinearOperator, adjoint: bool, adjoint_arg: bool,
                    arg_name: str) -> tuple[LinearOperator, LinearOperator]:
        """(self or its adjoint, other or its adjoint), checked to compose: other's range is self's domain."""
        left = self.adjoint() if adjoint else self
        right = other.adjoint() if adjoint_arg else other
        if (right.range_dimension.value is not None and left.domain_dimension.value is not None
                and right.range_dimension != left.domain_dimension):
            raise ValueError(f"Operators are incompatible. Expected `{arg_name}` to have dimension "
                             f"{left.domain_dimension} but got {right.range_dimension}.")
        return left, right

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        raise NotImplementedError("_matmul is not implemented.")

    def _matmul_operator(self, right: LinearOperator) -> LinearOperator:
        """`self @ right` as an operator: a structured one where the pair allows (TF's algebra registry)."""
        if isinstance(right, LinearOperatorIdentity) and not isinstance(self, LinearOperatorZeros):
            return self
        return LinearOperatorComposition(
            [self, right], is_non_singular=_hint_and(self.is_non_singular, right.is_non_singular))

    def matvec(self, x: Any, adjoint: bool = False, name: str = "matvec") -> Tensor:
        """`self @ x` for a batch of vectors `x`."""
        with self._scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            tensor_shape.dimension_at_index(self.shape, self_dim).assert_is_compatible_with(x.shape[-1])
            return self._matvec(x, adjoint=adjoint)

    def _matvec(self, x: Tensor, adjoint: bool = False) -> Tensor:
        return squeeze(self.matmul(expand_dims(x, -1), adjoint=adjoint), [-1])

    def _check_square(self, what: str) -> None:
        if self.is_square is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is expected to not be square.")

    def determinant(self, name: str = "det") -> Tensor:
        self._check_square("Determinant")
        with self._scope(name):
            return self._determinant()

    def _determinant(self) -> Tensor:
        if self._can_use_cholesky():
            return exp(self.log_abs_determinant())
        return matrix_determinant(self.to_dense())

    def log_abs_determinant(self, name: str = "log_abs_det") -> Tensor:
        self._check_square("Determinant")
        with self._scope(name):
            return self._log_abs_determinant()

    def _log_abs_determinant(self) -> Tensor:
        if self._can_use_cholesky():
            diag = matrix_diag_part(cholesky(self.to_dense()))
            return 2.0 * reduce_sum(log(diag), axis=[-1])
        return slogdet(self.to_dense())[1]

    def _check_solvable(self) -> None:
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError(
                "Exact solve not implemented for an operator that is expected to not be square.")

    def solve(self, rhs: Any, adjoint: bool = False, adjoint_arg: bool = False, name: str = "solve") -> Any:
        """`X` with `self @ X = rhs` (adjoints as asked); with a LinearOperator `rhs`, an operator."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left, right = self._composable(rhs, adjoint, adjoint_arg, "rhs")
            with self._scope(name):
                return left._solve_operator(right)
        with self._scope(name):
            rhs = self._checked_argument(rhs, "rhs", -1 if adjoint else -2, -1 if adjoint_arg else -2)
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve_operator(self, right: LinearOperator) -> LinearOperator:
        return self.inverse()._matmul_operator(right)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            matrix, rhs = broadcast_matrix_batch_dims([cholesky(self.to_dense()), rhs])
            return cholesky_solve(matrix, rhs)
        matrix, rhs = broadcast_matrix_batch_dims([self.to_dense(), rhs])
        return matrix_solve(matrix, rhs, adjoint=adjoint)

    def solvevec(self, rhs: Any, adjoint: bool = False, name: str = "solve") -> Tensor:
        """`x` with `self @ x = rhs` for a batch of vectors."""
        self._check_solvable()
        with self._scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            tensor_shape.dimension_at_index(self.shape, self_dim).assert_is_compatible_with(rhs.shape[-1])
            return self._solvevec(rhs, adjoint=adjoint)

    def _solvevec(self, rhs: Tensor, adjoint: bool = False) -> Tensor:
        return squeeze(self.solve(expand_dims(rhs, -1), adjoint=adjoint), [-1])

    def adjoint(self, name: str = "adjoint") -> LinearOperator:
        """The conjugate transpose: `self` when self-adjoint, else a structured or lazy adjoint."""
        if self.is_self_adjoint is True:
            return self
        with self._scope(name):
            return self._adjoint_operator()

    def _adjoint_operator(self) -> LinearOperator:
        return LinearOperatorAdjoint(self)

    @property
    def H(self) -> LinearOperator:  # noqa: N802 - TF's name
        return self.adjoint()

    def inverse(self, name: str = "inverse") -> LinearOperator:
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        with self._scope(name):
            return self._inverse_operator()

    def _inverse_operator(self) -> LinearOperator:
        return LinearOperatorInversion(self)

    def cholesky(self, name: str = "cholesky") -> LinearOperator:
        """The lower-triangular factor `L` with `self = L L^H`, for a self-adjoint positive definite operator."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix.")
        with self._scope(name):
            return self._cholesky_operator()

    def _cholesky_operator(self) -> LinearOperator:
        return LinearOperatorLowerTriangular(cholesky(self.to_dense()), is_non_singular=True,
                                             is_self_adjoint=False, is_square=True)

    def trace(self, name: str = "trace") -> Tensor:
        self._check_square("Trace")
        with self._scope(name):
            return self._trace()

    def _trace(self) -> Tensor:
        return reduce_sum(self.diag_part(), axis=[-1])

    def diag_part(self, name: str = "diag_part") -> Tensor:
        with self._scope(name):
            return self._diag_part()

    def _diag_part(self) -> Tensor:
        return matrix_diag_part(self.to_dense())

    def to_dense(self, name: str = "to_dense") -> Tensor:
        with self._scope(name):
            return self._to_dense()

    def _to_dense(self) -> Tensor:
        return self.matmul(eye(num_rows=self._dim("domain"), batch_shape=self._batch_dims([]), dtype=self.dtype))

    def add_to_tensor(self, x: Any, name: str = "add_to_tensor") -> Tensor:
        """`self.to_dense() + x`, done from the structure where it can be."""
        with self._scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return self.to_dense() + x

    def eigvals(self, name: str = "eigvals") -> Tensor:
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._scope(name):
            return self._eigvals()

    def _eigvals(self) -> Tensor:
        return self_adjoint_eigvals(self.to_dense())

    def cond(self, name: str = "cond") -> Tensor:
        """The condition number: the ratio of the largest to the smallest singular value."""
        with self._scope(name):
            return self._cond()

    def _cond(self) -> Tensor:
        if not self.is_self_adjoint:
            values = svd(self.to_dense(), compute_uv=False)
        else:
            values = tf_abs(self.eigvals())
        return reduce_max(values, axis=-1) / reduce_min(values, axis=-1)

    def assert_non_singular(self, name: str = "assert_non_singular") -> Any:
        with self._scope(name):
            return self._assert_non_singular()

    def _assert_non_singular(self) -> Any:
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        values = svd(self.to_dense(), compute_uv=False)
        condition = reduce_max(values, axis=-1) / reduce_min(values, axis=-1)
        return assert_less(condition, self._max_condition_number_to_be_non_singular(),
                           message="Singular matrix up to precision epsilon.")

    def _max_condition_number_to_be_non_singular(self) -> Tensor:
        """1 / (max(100, M, N) * eps): TF's bound past which a matrix counts as singular."""
        with name_scope("max_nonsingular_condition_number"):
            eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
            dims = cast(convert_to_tensor([100, self.range_dimension_tensor(), self.domain_dimension_tensor()]),
                        self.dtype.real_dtype)
            return 1.0 / (reduce_max(dims) * eps)

    def assert_positive_definite(self, name: str = "assert_positive_definite") -> Any:
        with self._scope(name):
            return self._assert_positive_definite()

    def _assert_positive_definite(self) -> Any:
        if self.is_self_adjoint:
            return assert_positive(real(matrix_diag_part(cholesky(self.to_dense()))),
                                   message="Matrix was not positive definite.")
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_self_adjoint(self, name: str = "assert_self_adjoint") -> Any:
        with self._scope(name):
            return self._assert_self_adjoint()

    def _assert_self_adjoint(self) -> Any:
        dense = self.to_dense()
        return assert_equal(dense, matrix_adjoint(dense), message="Matrix was not equal to its adjoint.")


class _OperatorScope:
    """`with op._scope("matmul")`: the ops of one method under `<operator name>/<method>/`."""

    def __init__(self, operator: LinearOperator, name: str) -> None:
        self._outer = name_scope(operator.name + "/")
        self._inner = name_scope(name)

    def __enter__(self) -> str:
        self._outer.__enter__()
        return self._inner.__enter__()

    def __exit__(self, *exc: Any) -> None:
        self._inner.__exit__(*exc)
        self._outer.__exit__(*exc)


def assert_no_entries_with_modulus_zero(x: Tensor, message: str) -> Any:
    """An assertion that no entry of `x` is zero (a diagonal that would make the operator singular)."""
    return assert_equal(reduce_all(not_equal(tf_abs(x), 0)), True, message=message)


def assert_zero_imag_part(x: Tensor, message: str) -> Any:
    """An assertion that `x` is real (a diagonal that makes the operator self-adjoint)."""
    if not x.dtype.is_complex:
        return no_op()
    return assert_equal(reduce_all(imag(x) == 0), True, message=message)


@tf_export("linalg.LinearOperatorFullMatrix")
class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a dense batch of matrices."""

    def __init__(self, matrix: Any, is_non_singular: bool | None = None, is_self_adjoint: bool | None = None,
                 is_positive_definite: bool | None = None, is_square: bool | None = None,
                 name: str = "LinearOperatorFullMatrix") -> None:
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[matrix]):
            self._matrix = convert_to_tensor(matrix, name="matrix")
        check_dtype(self._matrix, "matrix")
        if self._matrix.shape.ndims is not None and self._matrix.shape.ndims < 2:
            raise ValueError(f"Argument `matrix` must have at least 2 dimensions. Received: {self._matrix}.")
        super().__init__(self._matrix.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square, name=name,
                         parameters=parameters)

    @property
    def matrix(self) -> Tensor:
        return self._matrix

    def _shape(self) -> tensor_shape.TensorShape:
        return self._matrix.shape

    def _shape_tensor(self) -> Tensor:
        return shape(self._matrix)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self) -> Tensor:
        return self._matrix


@tf_export("linalg.LinearOperatorLowerTriangular")
class LinearOperatorLowerTriangular(LinearOperator):
    """A lower-triangular batch of matrices (the strict upper triangle of `tril` is ignored): solve is a
    triangular solve and the determinant the product of the diagonal."""

    def __init__(self, tril: Any, is_non_singular: bool | None = None, is_self_adjoint: bool | None = None,
                 is_positive_definite: bool | None = None, is_square: bool | None = None,
                 name: str = "LinearOperatorLowerTriangular") -> None:
        parameters = dict(tril=tril, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        with name_scope(name, values=[tril]):
            self._tril = convert_to_tensor(tril, name="tril")
        if self._tril.shape.ndims is not None and self._tril.shape.ndims < 2:
            raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {self._tril}")
        super().__init__(self._tril.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def tril(self) -> Tensor:
        return self._tril

    def _get_tril(self) -> Tensor:
        return matrix_band_part(self._tril, -1, 0)

    def _shape(self) -> tensor_shape.TensorShape:
        return self._tril.shape

    def _shape_tensor(self) -> Tensor:
        return shape(self._tril)

    def _assert_non_singular(self) -> Any:
        return assert_no_entries_with_modulus_zero(
            matrix_diag_part(self._tril), message="Singular operator:  Diagonal contained zero values.")

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return matmul(self._get_tril(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self) -> Tensor:
        return reduce_prod(matrix_diag_part(self._tril), axis=[-1])

    def _log_abs_determinant(self) -> Tensor:
        return reduce_sum(log(tf_abs(matrix_diag_part(self._tril))), axis=[-1])

    def _diag_part(self) -> Tensor:
        return matrix_diag_part(self._tril)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        tril, rhs = broadcast_matrix_batch_dims([self._get_tril(), rhs])
        return matrix_triangular_solve(tril, rhs, lower=True, adjoint=adjoint)

    def _to_dense(self) -> Tensor:
        return self._get_tril()

    def _eigvals(self) -> Tensor:
        return matrix_diag_part(self._tril)


@tf_export("linalg.LinearOperatorDiag")
class LinearOperatorDiag(LinearOperator):
    """A diagonal batch of matrices given by their diagonals `[B1, ..., Bb, N]`: every operation is
    elementwise over the diagonal."""

    def __init__(self, diag: Any, is_non_singular: bool | None = None, is_self_adjoint: bool | None = None,
                 is_positive_definite: bool | None = None, is_square: bool | None = None,
                 name: str = "LinearOperatorDiag") -> None:
        parameters = dict(diag=diag, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[diag]):
            self._diag = convert_to_tensor(diag, name="diag")
        if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
            raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {self._diag}")
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def diag(self) -> Tensor:
        return self._diag

    def _shape(self) -> tensor_shape.TensorShape:
        return self._diag.shape.concatenate(self._diag.shape[-1:])

    def _shape_tensor(self) -> Tensor:
        d = shape(self._diag)
        return concat([d, d[-1:]], 0)

    def _assert_non_singular(self) -> Any:
        return assert_no_entries_with_modulus_zero(
            self._diag, message="Singular operator:  Diagonal contained zero values.")

    def _assert_positive_definite(self) -> Any:
        if self.dtype.is_complex:
            message = ("Diagonal operator had diagonal entries with non-positive real part, "
                       "thus was not positive definite.")
        else:
            message = "Real diagonal operator had non-positive diagonal entries, thus was not positive definite."
        return assert_positive(real(self._diag), message=message)

    def _assert_self_adjoint(self) -> Any:
        return assert_zero_imag_part(
            self._diag, message="This diagonal operator contained non-zero imaginary values.  "
            "Thus it was not self-adjoint.")

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        diag = conj(self._diag) if adjoint else self._diag
        x = matrix_adjoint(x) if adjoint_arg else x
        return expand_dims(diag, -1) * x

    def _matvec(self, x: Tensor, adjoint: bool = False) -> Tensor:
        return (conj(self._diag) if adjoint else self._diag) * x

    def _determinant(self) -> Tensor:
        return reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self) -> Tensor:
        log_det = reduce_sum(log(tf_abs(self._diag)), axis=[-1])
        return cast(log_det, self.dtype) if self.dtype.is_complex else log_det

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        diag = conj(self._diag) if adjoint else self._diag
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        return rhs * expand_dims(1.0 / diag, -1)

    def _to_dense(self) -> Tensor:
        return matrix_diag(self._diag)

    def _diag_part(self) -> Tensor:
        return self._diag

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return matrix_set_diag(x, self._diag + matrix_diag_part(x))

    def _eigvals(self) -> Tensor:
        return self._diag

    def _cond(self) -> Tensor:
        magnitude = tf_abs(self._diag)
        return reduce_max(magnitude, axis=-1) / reduce_min(magnitude, axis=-1)

    def _adjoint_operator(self) -> LinearOperator:
        return LinearOperatorDiag(conj(self._diag), is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite, is_square=True)

    def _inverse_operator(self) -> LinearOperator:
        return LinearOperatorDiag(1.0 / self._diag, is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite, is_square=True)

    def _cholesky_operator(self) -> LinearOperator:
        return LinearOperatorDiag(sqrt(self._diag), is_non_singular=True, is_self_adjoint=True,
                                  is_positive_definite=True, is_square=True)

    def _matmul_operator(self, right: LinearOperator) -> LinearOperator:
        hints = dict(is_non_singular=_hint_and(self.is_non_singular, right.is_non_singular),
                     is_self_adjoint=_hint_and(self.is_self_adjoint, right.is_self_adjoint), is_square=True)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(self._diag * right.diag, is_positive_definite=_hint_and(
                self.is_positive_definite, right.is_positive_definite), **hints)
        if isinstance(right, LinearOperatorScaledIdentity):
            return LinearOperatorDiag(self._diag * right.multiplier[..., None], is_positive_definite=_hint_and(
                self.is_positive_definite, right.is_positive_definite), **hints)
        if isinstance(right, LinearOperatorLowerTriangular):
            hints["is_self_adjoint"] = None
            return LinearOperatorLowerTriangular(expand_dims(self._diag, -1) * right.to_dense(), **hints)
        return super()._matmul_operator(right)


class _BaseIdentity(LinearOperator):
    """What Identity and ScaledIdentity share: `num_rows` checked as TF checks it, and their diagonal."""

    def _init_num_rows(self, num_rows: Any) -> None:
        self._num_rows = shape_argument(num_rows, "num_rows")
        self._num_rows_static = static_value(self._num_rows)
        if self._num_rows.shape.ndims is not None and self._num_rows.shape.ndims != 0:
            raise ValueError(f"Argument num_rows must be a 0-D Tensor.  Found: {self._num_rows_static}")
        if self._num_rows_static is not None and self._num_rows_static < 0:
            raise ValueError(f"Argument num_rows must be non-negative.  Found: {self._num_rows_static}")

    def _rows(self) -> Any:
        return int(self._num_rows_static) if self._num_rows_static is not None else self._num_rows

    def _ones_diag(self) -> Tensor:
        return ones(self._batch_dims([self._rows()]), dtype=self.dtype)

    def _assert_non_singular(self) -> Any:
        return no_op("assert_non_singular")

    def _assert_positive_definite(self) -> Any:
        return no_op("assert_positive_definite")

    def _assert_self_adjoint(self) -> Any:
        return no_op("assert_self_adjoint")


@tf_export("linalg.LinearOperatorIdentity")
class LinearOperatorIdentity(_BaseIdentity):
    """`[B1, ..., Bb, N, N]` identity matrices: matmul and solve return their argument (broadcast to the
    batch shape when one is given)."""

    def __init__(self, num_rows: Any, batch_shape: Any = None, dtype: Any = None, is_non_singular: bool = True,
                 is_self_adjoint: bool = True, is_positive_definite: bool = True, is_square: bool = True,
                 assert_proper_shapes: bool = False, name: str = "LinearOperatorIdentity") -> None:
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, assert_proper_shapes=assert_proper_shapes, name=name)
        for hint, prop in ((is_non_singular, "non-singular"), (is_self_adjoint, "self adjoint"),
                           (is_positive_definite, "positive-definite"), (is_square, "square")):
            if not hint:
                raise ValueError(f"An identity operator is always {prop}.")
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name, values=[num_rows, batch_shape]):
            self._init_num_rows(num_rows)
            self._batch_shape_arg = None if batch_shape is None else shape_argument(batch_shape, "batch_shape")
        self._batch_shape_static = None
        if self._batch_shape_arg is not None:
            if self._batch_shape_arg.shape.ndims is not None and self._batch_shape_arg.shape.ndims != 1:
                raise ValueError("Argument batch_shape must be a 1-D Tensor.  Found: "
                                 f"{static_value(self._batch_shape_arg)}")
            self._batch_shape_static = static_value(self._batch_shape_arg)
            if self._batch_shape_static is not None and np.any(self._batch_shape_static < 0):
                raise ValueError(f"Argument batch_shape must be non-negative.  Found:{self._batch_shape_static}")
        super().__init__(dtype or dtypes.float32, is_non_singular=True, is_self_adjoint=True,
                         is_positive_definite=True, is_square=True, name=name, parameters=parameters)

    def _shape(self) -> tensor_shape.TensorShape:
        matrix = tensor_shape.TensorShape([self._num_rows_static, self._num_rows_static]
                                          if self._num_rows_static is not None else [None, None])
        if self._batch_shape_arg is None:
            return matrix
        if self._batch_shape_static is not None:
            batch = tensor_shape.TensorShape(self._batch_shape_static.tolist())
        else:
            batch = tensor_shape.TensorShape([None] * (self._batch_shape_arg.shape.num_elements() or 0)) \
                if self._batch_shape_arg.shape.is_fully_defined() else tensor_shape.TensorShape(None)
        return batch.concatenate(matrix)

    def _shape_tensor(self) -> Tensor:
        matrix = convert_to_tensor([self._num_rows, self._num_rows])
        if self._batch_shape_arg is None:
            return matrix
        return concat([self._batch_shape_arg, matrix], 0)

    def _possibly_broadcast_batch_shape(self, x: Tensor) -> Tensor:
        """`x` broadcast to the operator's batch shape (identity matrices with a batch shape make one)."""
        if self._batch_shape_arg is None:
            return x
        special = self._batch_dims([1, 1])
        return x + zeros(special, dtype=self.dtype)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = matrix_adjoint(x) if adjoint_arg else x
        return self._possibly_broadcast_batch_shape(x)

    def _determinant(self) -> Tensor:
        return ones(self._batch_dims([]), dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return zeros(self._batch_dims([]), dtype=self.dtype)

    def _trace(self) -> Tensor:
        return ones(self._batch_dims([]), dtype=self.dtype) * cast(self._rows(), self.dtype)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _diag_part(self) -> Tensor:
        return self._ones_diag()

    def _to_dense(self) -> Tensor:
        batch = None if self._batch_shape_arg is None else self._batch_dims([])
        return eye(num_rows=self._rows(), batch_shape=batch, dtype=self.dtype)

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return matrix_set_diag(x, 1 + matrix_diag_part(x))

    def _eigvals(self) -> Tensor:
        return self._ones_diag()

    def _cond(self) -> Tensor:
        return ones(self._batch_dims([]), dtype=self.dtype)

    def _adjoint_operator(self) -> LinearOperator:
        return self

    def _inverse_operator(self) -> LinearOperator:
        return self

    def _cholesky_operator(self) -> LinearOperator:
        return self

    def _matmul_operator(self, right: LinearOperator) -> LinearOperator:
        return right

    def _solve_operator(self, right: LinearOperator) -> LinearOperator:
        return right


@tf_export("linalg.LinearOperatorScaledIdentity")
class LinearOperatorScaledIdentity(_BaseIdentity):
    """`multiplier * I` for a batch of scalar multipliers `[B1, ..., Bb]`."""

    def __init__(self, num_rows: Any, multiplier: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool = True, assert_proper_shapes: bool = False,
                 name: str = "LinearOperatorScaledIdentity") -> None:
        parameters = dict(num_rows=num_rows, multiplier=multiplier, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, assert_proper_shapes=assert_proper_shapes, name=name)
        if not is_square:
            raise ValueError("A ScaledIdentity operator is always square.")
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = convert_to_tensor(multiplier, name="multiplier")
            self._init_num_rows(num_rows)
        if not self._multiplier.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        super().__init__(self._multiplier.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def multiplier(self) -> Tensor:
        return self._multiplier

    def _shape(self) -> tensor_shape.TensorShape:
        rows = self._num_rows_static
        return self._multiplier.shape.concatenate([rows, rows] if rows is not None else [None, None])

    def _shape_tensor(self) -> Tensor:
        return concat([shape(self._multiplier), [self._num_rows, self._num_rows]], 0)

    def _multiplier_matrix(self, adjoint: bool) -> Tensor:
        multiplier = conj(self._multiplier) if adjoint else self._multiplier
        return expand_dims(expand_dims(multiplier, -1), -1)

    def _assert_non_singular(self) -> Any:
        return assert_no_entries_with_modulus_zero(self._multiplier, message="LinearOperator was singular")

    def _assert_positive_definite(self) -> Any:
        return assert_positive(real(self._multiplier), message="LinearOperator was not positive definite.")

    def _assert_self_adjoint(self) -> Any:
        return assert_zero_imag_part(self._multiplier, message="LinearOperator was not self-adjoint")

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = matrix_adjoint(x) if adjoint_arg else x
        return x * self._multiplier_matrix(adjoint)

    def _determinant(self) -> Tensor:
        return self._multiplier ** cast(self._rows(), self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return cast(self._rows(), self.dtype) * cast(log(tf_abs(self._multiplier)), self.dtype)

    def _trace(self) -> Tensor:
        return self._multiplier * cast(self._rows(), self.dtype)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        return rhs / self._multiplier_matrix(adjoint)

    def _diag_part(self) -> Tensor:
        return self._ones_diag() * expand_dims(self._multiplier, -1)

    def _to_dense(self) -> Tensor:
        return eye(num_rows=self._rows(), dtype=self.dtype) * self._multiplier_matrix(False)

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return matrix_set_diag(x, matrix_diag_part(x) + expand_dims(self._multiplier, -1))

    def _eigvals(self) -> Tensor:
        return self._ones_diag() * expand_dims(self._multiplier, -1)

    def _cond(self) -> Tensor:
        return ones(self._batch_dims([]), dtype=self.dtype.real_dtype)

    def _scaled(self, multiplier: Tensor, **hints: Any) -> LinearOperatorScaledIdentity:
        return LinearOperatorScaledIdentity(self._rows(), multiplier, is_square=True, **hints)

    def _adjoint_operator(self) -> LinearOperator:
        return self._scaled(conj(self._multiplier), is_non_singular=self.is_non_singular,
                            is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite)

    def _inverse_operator(self) -> LinearOperator:
        return self._scaled(1.0 / self._multiplier, is_non_singular=self.is_non_singular,
                            is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite)

    def _cholesky_operator(self) -> LinearOperator:
        return self._scaled(sqrt(self._multiplier), is_non_singular=True, is_self_adjoint=True,
                            is_positive_definite=True)

    def _matmul_operator(self, right: LinearOperator) -> LinearOperator:
        pd = _hint_and(self.is_positive_definite, right.is_positive_definite)
        hints = dict(is_non_singular=_hint_and(self.is_non_singular, right.is_non_singular),
                     is_self_adjoint=_hint_and(self.is_self_adjoint, right.is_self_adjoint))
        if isinstance(right, LinearOperatorScaledIdentity):
            return self._scaled(self._multiplier * right.multiplier, is_positive_definite=pd, **hints)
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(right.diag * self._multiplier[..., None], is_positive_definite=pd,
                                      is_square=True, **hints)
        return super()._matmul_operator(right)


@tf_export("linalg.LinearOperatorZeros")
class LinearOperatorZeros(LinearOperator):
    """`[B1, ..., Bb, M, N]` matrices of zeros: singular, never inverted or solved."""

    def __init__(self, num_rows: Any, num_columns: Any = None, batch_shape: Any = None, dtype: Any = None,
                 is_non_singular: bool = False, is_self_adjoint: bool = True, is_positive_definite: bool = False,
                 is_square: bool = True, assert_proper_shapes: bool = False,
                 name: str = "LinearOperatorZeros") -> None:
        parameters = dict(num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        if is_non_singular:
            raise ValueError("A zero operator is always singular.")
        if is_positive_definite:
            raise ValueError("A zero operator is always not positive-definite.")
        self._assert_proper_shapes = assert_proper_shapes
        with name_scope(name, values=[num_rows, num_columns, batch_shape]):
            self._num_rows = shape_argument(num_rows, "num_rows")
            self._num_columns = self._num_rows if num_columns is None else shape_argument(num_columns,
                                                                                           "num_columns")
            self._batch_shape_arg = None if batch_shape is None else shape_argument(batch_shape, "batch_shape")
        self._rows_static = static_value(self._num_rows)
        self._columns_static = static_value(self._num_columns)
        self._batch_static = None if self._batch_shape_arg is None else static_value(self._batch_shape_arg)
        for argument, value in (("num_rows", self._rows_static), ("num_columns", self._columns_static)):
            if value is not None and np.ndim(value) != 0:
                raise ValueError(f"Argument {argument} must be a 0-D Tensor.  Found: {value}")
            if value is not None and value < 0:
                raise ValueError(f"Argument {argument} must be non-negative.  Found: {value}")
        if (is_square and self._rows_static is not None and self._columns_static is not None
                and self._rows_static != self._columns_static):
            raise ValueError(f"LinearOperatorZeros initialized as is_square=True, but got "
                             f"num_rows({self._rows_static}) != num_columns({self._columns_static})")
        if is_self_adjoint is False and is_square:
            raise ValueError("A zero operator is always self adjoint.")
        super().__init__(dtype or dtypes.float32, is_non_singular=False, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=False, is_square=is_square, name=name, parameters=parameters)

    def _static(self, value: np.ndarray | None) -> int | None:
        return None if value is None else int(value)

    def _shape(self) -> tensor_shape.TensorShape:
        matrix = tensor_shape.TensorShape([self._static(self._rows_static), self._static(self._columns_static)])
        if self._batch_shape_arg is None:
            return matrix
        if self._batch_static is None:
            return tensor_shape.TensorShape(None)
        return tensor_shape.TensorShape(self._batch_static.tolist()).concatenate(matrix)

    def _shape_tensor(self) -> Tensor:
        matrix = convert_to_tensor([self._num_rows, self._num_columns])
        if self._batch_shape_arg is None:
            return matrix
        return concat([self._batch_shape_arg, matrix], 0)

    def _batch(self) -> Any:
        return self._batch_dims([]) if self._batch_shape_arg is not None else []

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        dense = self._to_dense()
        return matmul(dense, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self) -> Tensor:
        return zeros(self._batch(), dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return log(self._determinant())

    def _trace(self) -> Tensor:
        return zeros(self._batch(), dtype=self.dtype)

    def _diag_part(self) -> Tensor:
        rows, columns = self._dim("range"), self._dim("domain")
        diag = min(rows, columns) if isinstance(rows, int) and isinstance(columns, int) else \
            reduce_min(convert_to_tensor([rows, columns]))
        return zeros(self._batch_dims([diag]) if self._batch_shape_arg is not None else [diag], dtype=self.dtype)

    def _to_dense(self) -> Tensor:
        matrix = [self._dim("range"), self._dim("domain")]
        return zeros(self._batch_dims(matrix) if self._batch_shape_arg is not None else matrix, dtype=self.dtype)

    def _add_to_tensor(self, x: Tensor) -> Tensor:
        return x + zeros(self._batch_dims([1, 1]), dtype=self.dtype) if self._batch_shape_arg is not None else x

    def _eigvals(self) -> Tensor:
        return self._diag_part()

    def _assert_non_singular(self) -> Any:
        raise NotImplementedError("Zero operators are always non-invertible.")

    def _assert_positive_definite(self) -> Any:
        raise NotImplementedError("Zero operators are always non-positive definite.")

    def _assert_self_adjoint(self) -> Any:
        return no_op("assert_self_adjoint")

    def _adjoint_operator(self) -> LinearOperator:
        if self.is_square:
            return self
        return super()._adjoint_operator()

    def _matmul_operator(self, right: LinearOperator) -> LinearOperator:
        return self


@tf_export("linalg.LinearOperatorAdjoint")
class LinearOperatorAdjoint(LinearOperator):
    """The conjugate transpose of an operator, computed through the operator's own adjoint methods."""

    def __init__(self, operator: LinearOperator, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None) -> None:
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._operator = operator
        is_square = operator_hint(operator, "is_square", is_square,
                                  "An operator is square if and only if its adjoint is square.")
        is_non_singular = operator_hint(operator, "is_non_singular", is_non_singular,
                                        "An operator is non-singular if and only if its adjoint is non-singular.")
        is_self_adjoint = operator_hint(operator, "is_self_adjoint", is_self_adjoint,
                                        "An operator is self-adjoint if and only if its adjoint is self-adjoint.")
        is_positive_definite = operator_hint(
            operator, "is_positive_definite", is_positive_definite,
            "An operator is positive-definite if and only if its adjoint is positive-definite.")
        super().__init__(operator.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or operator.name + "_adjoint", parameters=parameters)

    @property
    def operator(self) -> LinearOperator:
        return self._operator

    def _shape(self) -> tensor_shape.TensorShape:
        s = self._operator.shape
        return s[:-2].concatenate([s[-1], s[-2]]) if s.ndims is not None else s

    def _shape_tensor(self) -> Tensor:
        s = self._operator.shape_tensor()
        return concat([s[:-2], s[-1:], s[-2:-1]], 0)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x: Tensor, adjoint: bool = False) -> Tensor:
        return self._operator.matvec(x, adjoint=not adjoint)

    def _determinant(self) -> Tensor:
        if self.is_self_adjoint:
            return self._operator.determinant()
        return conj(self._operator.determinant())

    def _log_abs_determinant(self) -> Tensor:
        return self._operator.log_abs_determinant()

    def _trace(self) -> Tensor:
        if self.is_self_adjoint:
            return self._operator.trace()
        return conj(self._operator.trace())

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs: Tensor, adjoint: bool = False) -> Tensor:
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self) -> Tensor:
        if self.is_self_adjoint:
            return self._operator.to_dense()
        return matrix_adjoint(self._operator.to_dense())

    def _diag_part(self) -> Tensor:
        return conj(self._operator.diag_part())

    def _eigvals(self) -> Tensor:
        values = self._operator.eigvals()
        return values if self._operator.is_self_adjoint else conj(values)

    def _cond(self) -> Tensor:
        return self._operator.cond()

    def _adjoint_operator(self) -> LinearOperator:
        return self._operator


@tf_export("linalg.LinearOperatorInversion")
class LinearOperatorInversion(LinearOperator):
    """The inverse of a non-singular operator: its matmul is the operator's solve and its solve the matmul."""

    def __init__(self, operator: LinearOperator, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None) -> None:
        parameters = dict(operator=operator, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                "Argument `is_non_singular` or argument `operator` must have supplied hint `is_non_singular` equal "
                f"to `True` or `None`. Found `operator.is_non_singular`: {operator.is_non_singular}, "
                f"`is_non_singular`: {is_non_singular}.")
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "Argument `is_square` or argument `operator` must have supplied hint `is_square` equal to `True` "
                f"or `None`. Found `operator.is_square`: {operator.is_square}, `is_square`: {is_square}.")
        is_non_singular = operator_hint(operator, "is_non_singular", is_non_singular,
                                        "An operator is non-singular if and only if its inverse is non-singular.")
        is_self_adjoint = operator_hint(operator, "is_self_adjoint", is_self_adjoint,
                                        "An operator is self-adjoint if and only if its inverse is self-adjoint.")
        is_positive_definite = operator_hint(
            operator, "is_positive_definite", is_positive_definite,
            "An operator is positive-definite if and only if its inverse is positive-definite.")
        is_square = operator_hint(operator, "is_square", is_square,
                                  "An operator is square if and only if its inverse is square.")
        super().__init__(operator.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or operator.name + "_inv", parameters=parameters)

    @property
    def operator(self) -> LinearOperator:
        return self._operator

    def _shape(self) -> tensor_shape.TensorShape:
        return self._operator.shape

    def _shape_tensor(self) -> Tensor:
        return self._operator.shape_tensor()

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self) -> Tensor:
        return 1.0 / self._operator.determinant()

    def _log_abs_determinant(self) -> Tensor:
        return -1.0 * self._operator.log_abs_determinant()

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self) -> Tensor:
        return 1.0 / self._operator.eigvals()

    def _cond(self) -> Tensor:
        return self._operator.cond()

    def _inverse_operator(self) -> LinearOperator:
        return self._operator


def is_adjoint_pair(x: LinearOperator, y: LinearOperator) -> bool:
    """Whether `y` is `x`'s adjoint by construction (the same self-adjoint operator, or a lazy adjoint)."""
    if x is y and x.is_self_adjoint:
        return True
    return ((isinstance(x, LinearOperatorAdjoint) and x.operator is y)
            or (isinstance(y, LinearOperatorAdjoint) and y.operator is x))


def is_aat_form(operators: Sequence[LinearOperator]) -> bool:
    """Whether the product is `A1 ... An An^H ... A1^H`, which is self-adjoint by construction."""
    if len(operators) % 2:
        return False
    return all(is_adjoint_pair(first, second) for first, second in zip(operators, operators[::-1]))


@tf_export("linalg.LinearOperatorComposition")
class LinearOperatorComposition(LinearOperator):
    """The product `A1 A2 ... An` of operators, applied right to left without forming it."""

    def __init__(self, operators: Sequence[LinearOperator], is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None) -> None:
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = list(operators)
        if not operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        self._operators = operators
        dtype = operators[0].dtype
        if any(o.dtype != dtype for o in operators):
            found = "   ".join(str((o.name, o.dtype)) for o in operators)
            raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")
        is_non_singular = auto_hint([o.is_non_singular for o in operators], is_non_singular,
                                    "The composition of non-singular operators is always non-singular.")
        if (len(operators) == 1 and operators[0].is_self_adjoint) or is_aat_form(operators):
            if is_self_adjoint is False:
                raise ValueError("The composition was determined to be self-adjoint but user provided incorrect "
                                 "`False` hint.")
            is_self_adjoint = True
        if is_aat_form(operators) and is_non_singular:
            if is_positive_definite is False:
                raise ValueError("The composition was determined to be non-singular and have the form A @ A.H, "
                                 "hence it must be positive-definite. The user provided an incorrect `False` hint.")
            is_positive_definite = True
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_o_".join(o.name for o in operators), parameters=parameters)

    @property
    def operators(self) -> list[LinearOperator]:
        return self._operators

    def _shape(self) -> tensor_shape.TensorShape:
        domain = self._operators[0].domain_dimension
        for operator in self._operators[1:]:
            domain.assert_is_compatible_with(operator.range_dimension)
            domain = operator.domain_dimension
        batch = self._operators[0].batch_shape
        for operator in self._operators[1:]:
            batch = broadcast_static_shape(batch, operator.batch_shape)
        return batch.concatenate([self._operators[0].range_dimension, self._operators[-1].domain_dimension])

    def _shape_tensor(self) -> Tensor:
        batch = self._operators[0].batch_shape_tensor()
        for operator in self._operators[1:]:
            batch = broadcast_dynamic_shape(batch, operator.batch_shape_tensor())
        return concat([batch, [self._operators[0].range_dimension_tensor(),
                               self._operators[-1].domain_dimension_tensor()]], 0)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        order = self._operators if adjoint else self._operators[::-1]
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            result = operator.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self) -> Tensor:
        result = self._operators[0].determinant()
        for operator in self._operators[1:]:
            result = result * operator.determinant()
        return result

    def _log_abs_determinant(self) -> Tensor:
        result = self._operators[0].log_abs_determinant()
        for operator in self._operators[1:]:
            result = result + operator.log_abs_determinant()
        return result

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        order = self._operators[::-1] if adjoint else self._operators
        solution = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for operator in order[1:]:
            solution = operator.solve(solution, adjoint=adjoint)
        return solution
