"""The structured `tf.linalg` operators: Kronecker products, block diagonals, (block) circulants, low-rank
updates, Toeplitz, Householder reflections, permutations and tridiagonal matrices.

Each keeps only its defining tensors and computes from them what the structure gives cheaply (a circulant's
matmul is a pointwise product between FFTs; a Kronecker product's determinant is a product of its factors'),
falling back on `LinearOperator`'s dense defaults otherwise. Invariants as in `linear_operator`: TF's hints
and messages, and static shapes as TF reports them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorweave.framework.tensor_shape import dimension_value
from tensorweave.ops.cast_ops import cast
from tensorweave.ops.check_ops import assert_positive
from tensorweave.ops.elementwise_ops import abs as tf_abs
from tensorweave.ops.elementwise_ops import conj, equal, log, maximum, real, rsqrt, sqrt
from tensorweave.ops.fill_ops import ones, zeros, zeros_like
from tensorweave.ops.indexing_ops import gather, one_hot
from tensorweave.ops.linalg_decompositions import matrix_determinant, slogdet
from tensorweave.ops.linalg_impl_ops import _compact_diagonals, tridiagonal_matmul, tridiagonal_solve
from tensorweave.ops.linalg_ops import adjoint as matrix_adjoint
from tensorweave.ops.linalg_ops import matmul, matrix_diag, matrix_diag_part, matrix_set_diag
from tensorweave.ops.linear_operator import (
    LinearOperator,
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorIdentity,
    assert_no_entries_with_modulus_zero,
    auto_hint,
    broadcast_matrix_batch_dims,
    expected_true,
    static_value,
)
from tensorweave.ops.manipulation_ops import concat, matrix_transpose, reverse, split, stack
from tensorweave.ops.reduction_ops import reduce_mean, reduce_prod, reduce_sum
from tensorweave.ops.sequence_ops import range as tf_range
from tensorweave.ops.shape_ops import (
    broadcast_dynamic_shape,
    broadcast_static_shape,
    expand_dims,
    reshape,
    shape,
)
from tensorweave.ops.spectral_ops import FFT, FFT2D, FFT3D, IFFT, IFFT2D, IFFT3D
from tensorweave.platform.tf_export import tf_export


def _check_operators(operators: Sequence[LinearOperator], empty_message: str, kronecker: bool) -> list:
    """The operators as a list, non-empty and of one dtype (with each operator's own TypeError)."""
    operators = list(operators)
    if not operators:
        raise ValueError(empty_message)
    dtype = operators[0].dtype
    if any(o.dtype != dtype for o in operators):
        if kronecker:
            found = [str((o.name, o.dtype)) for o in operators]
            raise TypeError(f"Expected every operation in argument `operators` to have the same dtype. "
                            f"Received {found}.")
        found = "   ".join(str((o.name, o.dtype)) for o in operators)
        raise TypeError(f"Expected all operators to have the same dtype.  Found {found}")
    return operators


def _batch_shape(operators: Sequence[LinearOperator]) -> tensor_shape.TensorShape:
    batch = operators[0].batch_shape
    for operator in operators[1:]:
        batch = broadcast_static_shape(batch, operator.batch_shape)
    return batch


def _batch_shape_tensor(operators: Sequence[LinearOperator]) -> Tensor:
    batch = operators[0].batch_shape_tensor()
    for operator in operators[1:]:
        batch = broadcast_dynamic_shape(batch, operator.batch_shape_tensor())
    return batch


def _concat_matrices(matrices: Sequence[Tensor], axis: int) -> Tensor:
    """Matrices joined along a matrix axis after broadcasting their batch dimensions against each other."""
    return concat(broadcast_matrix_batch_dims(list(matrices)), axis)


def _concat_vectors(vectors: Sequence[Tensor]) -> Tensor:
    columns = _concat_matrices([expand_dims(v, -1) for v in vectors], -2)
    return columns[..., 0]


def _reshape_last(x: Tensor, dims: int, new: list) -> Tensor:
    """`x` with its last `dims` dimensions replaced by `new`: a static shape where `x`'s is known."""
    if x.shape.is_fully_defined() and all(isinstance(n, int) for n in new):
        return reshape(x, x.shape.as_list()[:-dims] + new)
    return reshape(x, concat([shape(x)[:-dims], new], 0))


def _kron_dense(a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker product of two batches of matrices."""
    product = expand_dims(expand_dims(a, -1), -3) * expand_dims(expand_dims(b, -2), -4)
    rows = [dimension_value(a.shape[-2]), dimension_value(b.shape[-2])]
    cols = [dimension_value(a.shape[-1]), dimension_value(b.shape[-1])]
    if None in rows + cols:
        sa, sb = shape(a), shape(b)
        return _reshape_last(product, 4, [sa[-2] * sb[-2], sa[-1] * sb[-1]])
    return _reshape_last(product, 4, [rows[0] * rows[1], cols[0] * cols[1]])


def _kron_vector(a: Tensor, b: Tensor) -> Tensor:
    """The Kronecker product of two batches of vectors (the diagonal of a Kronecker product)."""
    product = expand_dims(a, -1) * expand_dims(b, -2)
    n = [dimension_value(a.shape[-1]), dimension_value(b.shape[-1])]
    if None in n:
        return _reshape_last(product, 2, [shape(a)[-1] * shape(b)[-1]])
    return _reshape_last(product, 2, [n[0] * n[1]])


@tf_export("linalg.LinearOperatorKronecker")
class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product `A1 x A2 x ... x An` of operators."""

    def __init__(self, operators: Sequence[LinearOperator], is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str | None = None) -> None:
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = _check_operators(
            operators, f"Argument `operators` must be a list of >=1 operators. Received: {list(operators)}.", True)
        self._operators = operators
        is_non_singular = auto_hint([o.is_non_singular for o in operators], is_non_singular,
                                    "The Kronecker product of non-singular operators is always non-singular."
                                    + expected_true("is_non_singular", is_non_singular))
        is_self_adjoint = auto_hint([o.is_self_adjoint for o in operators], is_self_adjoint,
                                    "The Kronecker product of self-adjoint operators is always self-adjoint."
                                    + expected_true("is_self_adjoint", is_self_adjoint))
        is_positive_definite = auto_hint(
            [o.is_positive_definite for o in operators], is_positive_definite,
            "The Kronecker product of positive-definite operators is always positive-definite."
            + expected_true("is_positive_definite", is_positive_definite))
        super().__init__(operators[0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_x_".join(o.name for o in operators), parameters=parameters)

    @property
    def operators(self) -> list[LinearOperator]:
        return self._operators

    def _shape(self) -> tensor_shape.TensorShape:
        rows, cols = self._operators[0].range_dimension, self._operators[0].domain_dimension
        for operator in self._operators[1:]:
            rows, cols = rows * operator.range_dimension, cols * operator.domain_dimension
        return _batch_shape(self._operators).concatenate([rows, cols])

    def _shape_tensor(self) -> Tensor:
        rows = reduce_prod(stack([o.range_dimension_tensor() for o in self._operators]))
        cols = reduce_prod(stack([o.domain_dimension_tensor() for o in self._operators]))
        return concat([_batch_shape_tensor(self._operators), stack([rows, cols])], 0)

    def _to_dense(self) -> Tensor:
        dense = self._operators[0].to_dense()
        for operator in self._operators[1:]:
            dense = _kron_dense(dense, operator.to_dense())
        return dense

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _factor_powers(self) -> list[Tensor]:
        """For each factor, `N / n_i`: how often its determinant enters the product's (N the total size)."""
        total = cast(self.domain_dimension_tensor(), self.dtype)
        return [total / cast(o.domain_dimension_tensor(), self.dtype) for o in self._operators]

    def _determinant(self) -> Tensor:
        result = None
        for operator, power in zip(self._operators, self._factor_powers()):
            term = operator.determinant() ** power
            result = term if result is None else result * term
        return result

    def _log_abs_determinant(self) -> Tensor:
        result = None
        for operator, power in zip(self._operators, self._factor_powers()):
            term = power * operator.log_abs_determinant()
            result = term if result is None else result + term
        return result

    def _trace(self) -> Tensor:
        result = self._operators[0].trace()
        for operator in self._operators[1:]:
            result = result * operator.trace()
        return result

    def _diag_part(self) -> Tensor:
        diag = self._operators[0].diag_part()
        for operator in self._operators[1:]:
            diag = _kron_vector(diag, operator.diag_part())
        return diag

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._inverse_operator().matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self) -> Tensor:
        values = self._operators[0].eigvals()
        for operator in self._operators[1:]:
            values = _kron_vector(values, operator.eigvals())
        return values

    def _each(self, method: str, **hints: Any) -> LinearOperator:
        return LinearOperatorKronecker([getattr(o, method)() for o in self._operators], **hints)

    def _adjoint_operator(self) -> LinearOperator:
        return self._each("adjoint", is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)

    def _inverse_operator(self) -> LinearOperator:
        return self._each("inverse", is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)

    def _cholesky_operator(self) -> LinearOperator:
        return self._each("cholesky", is_non_singular=True, is_self_adjoint=None, is_square=True)


@tf_export("linalg.LinearOperatorBlockDiag")
class LinearOperatorBlockDiag(LinearOperator):
    """The direct sum of operators: a block-diagonal matrix with the operators as its blocks."""

    def __init__(self, operators: Sequence[LinearOperator], is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = True, name: str | None = None) -> None:
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        operators = _check_operators(operators, f"Expected a non-empty list of operators. Found: {list(operators)}",
                                     False)
        self._operators = operators
        is_non_singular = auto_hint([o.is_non_singular for o in operators], is_non_singular,
                                    "The direct sum of non-singular operators is always non-singular.")
        is_self_adjoint = auto_hint([o.is_self_adjoint for o in operators], is_self_adjoint,
                                    "The direct sum of self-adjoint operators is always self-adjoint.")
        is_positive_definite = auto_hint(
            [o.is_positive_definite for o in operators], is_positive_definite,
            "The direct sum of positive definite operators is always positive definite.")
        super().__init__(operators[0].dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square,
                         name=name or "_ds_".join(o.name for o in operators), parameters=parameters)

    @property
    def operators(self) -> list[LinearOperator]:
        return self._operators

    def _shape(self) -> tensor_shape.TensorShape:
        rows, cols = self._operators[0].range_dimension, self._operators[0].domain_dimension
        for operator in self._operators[1:]:
            rows, cols = rows + operator.range_dimension, cols + operator.domain_dimension
        return _batch_shape(self._operators).concatenate([rows, cols])

    def _shape_tensor(self) -> Tensor:
        rows = reduce_sum(stack([o.range_dimension_tensor() for o in self._operators]))
        cols = reduce_sum(stack([o.domain_dimension_tensor() for o in self._operators]))
        return concat([_batch_shape_tensor(self._operators), stack([rows, cols])], 0)

    def _split(self, x: Tensor, which: str) -> list[Tensor]:
        sizes = [o._dim(which) for o in self._operators]
        if not all(isinstance(s, int) for s in sizes):
            sizes = stack([convert_to_tensor(s) for s in sizes])
        return split(x, sizes, axis=-2)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = matrix_adjoint(x) if adjoint_arg else x
        parts = self._split(x, "range" if adjoint else "domain")
        return _concat_matrices([o.matmul(p, adjoint=adjoint) for o, p in zip(self._operators, parts)], -2)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        parts = self._split(rhs, "domain" if adjoint else "range")
        return _concat_matrices([o.solve(p, adjoint=adjoint) for o, p in zip(self._operators, parts)], -2)

    def _to_dense(self) -> Tensor:
        denses = broadcast_matrix_batch_dims([o.to_dense() for o in self._operators])
        cols = [o._dim("domain") for o in self._operators]
        rows = []
        for i, (operator, dense) in enumerate(zip(self._operators, denses)):
            before, after = cols[:i], cols[i + 1:]
            pieces = []
            for widths in (before, after):
                if widths:
                    width = sum(widths) if all(isinstance(w, int) for w in widths) else reduce_sum(stack(widths))
                    batch = (dense.shape[:-2].as_list() if dense.shape[:-2].is_fully_defined()
                             else shape(dense)[:-2])
                    size = [operator._dim("range"), width]
                    pieces.append(zeros(batch + size if isinstance(batch, list) else concat([batch, size], 0),
                                        dtype=self.dtype))
                else:
                    pieces.append(None)
            rows.append(concat([p for p in (pieces[0], dense, pieces[1]) if p is not None], -1))
        return concat(rows, -2)

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

    def _trace(self) -> Tensor:
        result = self._operators[0].trace()
        for operator in self._operators[1:]:
            result = result + operator.trace()
        return result

    def _diag_part(self) -> Tensor:
        return _concat_vectors([o.diag_part() for o in self._operators])

    def _eigvals(self) -> Tensor:
        return _concat_vectors([o.eigvals() for o in self._operators])

    def _each(self, method: str, **hints: Any) -> LinearOperator:
        return LinearOperatorBlockDiag([getattr(o, method)() for o in self._operators], **hints)

    def _adjoint_operator(self) -> LinearOperator:
        return self._each("adjoint", is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)

    def _inverse_operator(self) -> LinearOperator:
        return self._each("inverse", is_non_singular=self.is_non_singular, is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=True)

    def _cholesky_operator(self) -> LinearOperator:
        return self._each("cholesky", is_non_singular=True, is_square=True)


_FFTS = {1: (FFT, IFFT), 2: (FFT2D, IFFT2D), 3: (FFT3D, IFFT3D)}


def _to_complex(x: Tensor) -> Tensor:
    if x.dtype.is_complex:
        return x
    return cast(x, dtypes.complex128 if x.dtype == dtypes.float64 else dtypes.complex64)


class _BaseLinearOperatorCirculant(LinearOperator):
    """Circulant matrices of `block_depth` levels (circulant, block circulant with circulant blocks, ...),
    diagonalized by the DFT: `A = F^H diag(spectrum) F`, so each operation is one FFT round trip or a function
    of the spectrum."""

    _block_depth = 1

    def __init__(self, spectrum: Any, input_output_dtype: Any, is_non_singular: bool | None,
                 is_self_adjoint: bool | None, is_positive_definite: bool | None, is_square: bool | None,
                 name: str, parameters: dict) -> None:
        if not is_square:
            raise ValueError("A [[nested] block] circulant operator is always square. Expected argument "
                             f"`is_square` to be True. Received: {is_square}.")
        with name_scope(name, values=[spectrum]):
            self._spectrum = convert_to_tensor(spectrum, name="spectrum")
        if self._spectrum.shape.ndims is not None and self._spectrum.shape.ndims < self._block_depth:
            raise ValueError(f"Argument `spectrum` must have at least {self._block_depth} dimensions. "
                             f"Received: {self._spectrum}.")
        if not self._spectrum.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real spectrum always corresponds to a self-adjoint operator. Expected argument "
                                 "`is_self_adjoint` to be True when `spectrum.dtype.is_complex` = True. Received: "
                                 f"{is_self_adjoint}.")
            is_self_adjoint = True
        super().__init__(input_output_dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def spectrum(self) -> Tensor:
        return self._spectrum

    @property
    def block_depth(self) -> int:
        return self._block_depth

    @property
    def block_shape(self) -> tensor_shape.TensorShape:
        return self._spectrum.shape[-self._block_depth:]

    def block_shape_tensor(self) -> Tensor:
        if self.block_shape.is_fully_defined():
            return convert_to_tensor(self.block_shape.as_list(), dtype=dtypes.int32)
        return shape(self._spectrum)[-self._block_depth:]

    def _block_axes(self) -> list[int]:
        return list(range(-self._block_depth, 0))

    def _shape(self) -> tensor_shape.TensorShape:
        spectrum = self._spectrum.shape
        if spectrum.ndims is None:
            return tensor_shape.TensorShape(None)
        n = self.block_shape.num_elements()
        return spectrum[:-self._block_depth].concatenate([n, n])

    def _shape_tensor(self) -> Tensor:
        n = reduce_prod(self.block_shape_tensor())
        return concat([shape(self._spectrum)[:-self._block_depth], stack([n, n])], 0)

    def _size(self) -> Any:
        n = self.block_shape.num_elements()
        return n if n is not None else reduce_prod(self.block_shape_tensor())

    def _apply_spectrum(self, x: Tensor, spectrum: Tensor, adjoint_arg: bool) -> Tensor:
        """`F^H diag(spectrum) F x`: x's columns blockified, transformed, scaled and transformed back."""
        fft, ifft = _FFTS[self._block_depth]
        x = matrix_adjoint(x) if adjoint_arg else x
        x = cast(x, spectrum.dtype)
        rows = matrix_transpose(x)
        block = self.block_shape.as_list() if self.block_shape.is_fully_defined() else self.block_shape_tensor()
        blocks = _reshape_last(rows, 1, block) if isinstance(block, list) else reshape(
            rows, concat([shape(rows)[:-1], block], 0))
        spectrum = expand_dims(spectrum, -self._block_depth - 1)
        product = ifft(spectrum * fft(blocks))
        product = _reshape_last(product, self._block_depth, [self._size()])
        return cast(matrix_transpose(product), self.dtype)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        spectrum = _to_complex(self._spectrum)
        return self._apply_spectrum(x, conj(spectrum) if adjoint else spectrum, adjoint_arg)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        spectrum = _to_complex(self._spectrum)
        return self._apply_spectrum(rhs, 1.0 / (conj(spectrum) if adjoint else spectrum), adjoint_arg)

    def _determinant(self) -> Tensor:
        return cast(reduce_prod(_to_complex(self._spectrum), axis=self._block_axes()), self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return cast(reduce_sum(log(tf_abs(self._spectrum)), axis=self._block_axes()), self.dtype)

    def _trace(self) -> Tensor:
        return cast(reduce_sum(_to_complex(self._spectrum), axis=self._block_axes()), self.dtype)

    def _diag_part(self) -> Tensor:
        entry = cast(reduce_mean(_to_complex(self._spectrum), axis=self._block_axes()), self.dtype)
        return expand_dims(entry, -1) * ones([self._size()], dtype=self.dtype)

    def _eigvals(self) -> Tensor:
        spectrum = self._spectrum
        return cast(_reshape_last(spectrum, self._block_depth, [self._size()]), self.dtype)

    def convolution_kernel(self, name: str = "convolution_kernel") -> Tensor:
        """The kernel `h` whose circular convolution this operator is: the inverse DFT of the spectrum."""
        with self._scope(name):
            return cast(_FFTS[self._block_depth][1](_to_complex(self._spectrum)), self.dtype)

    def _assert_non_singular(self) -> Any:
        return assert_no_entries_with_modulus_zero(
            self._spectrum, message="Singular operator:  Spectrum contained zero values.")

    def _assert_positive_definite(self) -> Any:
        return assert_positive(real(self._spectrum), message="Not positive definite:  Real part of spectrum "
                               "was not all positive.")

    def _with_spectrum(self, spectrum: Tensor, **hints: Any) -> LinearOperator:
        return type(self)(spectrum, input_output_dtype=self.dtype, is_square=True, **hints)

    def _adjoint_operator(self) -> LinearOperator:
        # As TF's: the adjoint takes the default input_output_dtype, complex64, whatever this operator's is.
        return type(self)(conj(self._spectrum), is_non_singular=self.is_non_singular,
                          is_self_adjoint=self.is_self_adjoint, is_positive_definite=self.is_positive_definite,
                          is_square=True)

    def _inverse_operator(self) -> LinearOperator:
        return self._with_spectrum(1.0 / self._spectrum, is_non_singular=self.is_non_singular,
                                   is_self_adjoint=self.is_self_adjoint,
                                   is_positive_definite=self.is_positive_definite)

    def _cholesky_operator(self) -> LinearOperator:
        return self._with_spectrum(sqrt(self._spectrum), is_non_singular=True, is_self_adjoint=True,
                                   is_positive_definite=True)


def _circulant_class(depth: int, export: str) -> type:
    def __init__(self: Any, spectrum: Any, input_output_dtype: Any = dtypes.complex64,
                 is_non_singular: bool | None = None, is_self_adjoint: bool | None = None,
                 is_positive_definite: bool | None = None, is_square: bool = True, name: str = export) -> None:
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        _BaseLinearOperatorCirculant.__init__(self, spectrum, input_output_dtype, is_non_singular, is_self_adjoint,
                                              is_positive_definite, is_square, name, parameters)

    doc = (f"The operator of a {depth}-level circulant matrix (of circulant blocks) from its spectrum, the DFT "
           "of its convolution kernel.")
    cls = type(export, (_BaseLinearOperatorCirculant,), {"__init__": __init__, "_block_depth": depth,
                                                          "__doc__": doc, "__module__": __name__})
    return tf_export(f"linalg.{export}")(cls)


LinearOperatorCirculant = _circulant_class(1, "LinearOperatorCirculant")
LinearOperatorCirculant2D = _circulant_class(2, "LinearOperatorCirculant2D")
LinearOperatorCirculant3D = _circulant_class(3, "LinearOperatorCirculant3D")


@tf_export("linalg.LinearOperatorLowRankUpdate")
class LinearOperatorLowRankUpdate(LinearOperator):
    """`A = L + U D V^H`: a base operator plus a rank-k update; solve and determinant go through the
    k x k capacitance matrix `D^{-1} + V^H L^{-1} U` (Woodbury and the matrix determinant lemma)."""

    def __init__(self, base_operator: LinearOperator, u: Any, diag_update: Any = None, v: Any = None,
                 is_diag_update_positive: bool | None = None, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str = "LinearOperatorLowRankUpdate") -> None:
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        dtype = base_operator.dtype
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError("Default diagonal is the identity, which is positive.  However, user set "
                                 "'is_diag_update_positive' to False.")
            is_diag_update_positive = True
        if v is None and base_operator.is_self_adjoint:
            if is_self_adjoint is False:
                raise ValueError("A = L + UDU^H, with L self-adjoint and D real diagonal.  Since UDU^H is "
                                 "self-adjoint, this must be a self-adjoint operator.")
            is_self_adjoint = True
        if (v is None and base_operator.is_self_adjoint and base_operator.is_positive_definite
                and is_diag_update_positive):
            if is_positive_definite is False:
                raise ValueError("Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
        self._use_cholesky = bool(is_positive_definite and is_self_adjoint and v is None)
        with name_scope(name, values=[u, diag_update, v]):
            self._u = convert_to_tensor(u, dtype=dtype, name="u")
            self._v = self._u if v is None else convert_to_tensor(v, dtype=dtype, name="v")
            self._diag_update = None if diag_update is None else convert_to_tensor(diag_update, dtype=dtype,
                                                                                   name="diag_update")
        self._base_operator = base_operator
        self._is_diag_update_positive = is_diag_update_positive
        if self._diag_update is None:
            rank = dimension_value(self._u.shape[-1])
            self._diag_operator = LinearOperatorIdentity(rank if rank is not None else shape(self._u)[-1],
                                                         dtype=dtype)
        else:
            self._diag_operator = LinearOperatorDiag(self._diag_update, is_positive_definite=is_diag_update_positive)
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square, name=name,
                         parameters=parameters)

    @property
    def u(self) -> Tensor:
        return self._u

    @property
    def v(self) -> Tensor:
        return self._v

    @property
    def diag_update(self) -> Tensor | None:
        return self._diag_update

    @property
    def diag_operator(self) -> LinearOperator:
        return self._diag_operator

    @property
    def base_operator(self) -> LinearOperator:
        return self._base_operator

    @property
    def is_diag_update_positive(self) -> bool | None:
        return self._is_diag_update_positive

    def _shape(self) -> tensor_shape.TensorShape:
        batch = broadcast_static_shape(self._base_operator.batch_shape, self._u.shape[:-2])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self) -> Tensor:
        batch = broadcast_dynamic_shape(self._base_operator.batch_shape_tensor(), shape(self._u)[:-2])
        return concat([batch, self._base_operator.shape_tensor()[-2:]], 0)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        leading = self._base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_x = matmul(v, x, adjoint_a=True, adjoint_b=adjoint_arg)
        return leading + matmul(u, self._diag_operator.matmul(vh_x, adjoint=adjoint))

    def _capacitance(self, adjoint: bool) -> Tensor:
        """`D^{-1} + V^H L^{-1} U` (of the adjoint's factors when `adjoint`)."""
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        linv_u = self._base_operator.solve(u, adjoint=adjoint)
        d_inverse = self._diag_operator.inverse()
        if adjoint:
            d_inverse = d_inverse.adjoint()
        return d_inverse.add_to_tensor(matmul(v, linv_u, adjoint_a=True))

    def _determinant(self) -> Tensor:
        return (self._base_operator.determinant() * self._diag_operator.determinant()
                * matrix_determinant(self._capacitance(False)))

    def _log_abs_determinant(self) -> Tensor:
        return (self._base_operator.log_abs_determinant() + self._diag_operator.log_abs_determinant()
                + slogdet(self._capacitance(False))[1])

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        linv_rhs = self._base_operator.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        capacitance = LinearOperatorFullMatrix(self._capacitance(adjoint), is_non_singular=True)
        capinv_vh_linv_rhs = capacitance.solve(matmul(v, linv_rhs, adjoint_a=True))
        return linv_rhs - self._base_operator.solve(matmul(u, capinv_vh_linv_rhs), adjoint=adjoint)


@tf_export("linalg.LinearOperatorToeplitz")
class LinearOperatorToeplitz(LinearOperator):
    """A Toeplitz matrix (constant along each diagonal) from its first column `col` and first row `row`
    (`row[0]` is ignored: the diagonal is `col[0]`)."""

    def __init__(self, col: Any, row: Any, is_non_singular: bool | None = None, is_self_adjoint: bool | None = None,
                 is_positive_definite: bool | None = None, is_square: bool | None = None,
                 name: str = "LinearOperatorToeplitz") -> None:
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[row, col]):
            self._col = convert_to_tensor(col, name="col")
            self._row = convert_to_tensor(row, dtype=self._col.dtype, name="row")
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        super().__init__(self._col.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def col(self) -> Tensor:
        return self._col

    @property
    def row(self) -> Tensor:
        return self._row

    def _shape(self) -> tensor_shape.TensorShape:
        n_col, n_row = self._col.shape.dims[-1], self._row.shape.dims[-1]
        if n_col.value is not None and n_row.value is not None and n_col != n_row:
            raise ValueError("Expected square matrix, got row and col with mismatched dimensions.")
        n = n_col.merge_with(n_row)
        return broadcast_static_shape(self._col.shape[:-1], self._row.shape[:-1]).concatenate([n, n])

    def _shape_tensor(self) -> Tensor:
        n = shape(self._col)[-1:]
        return concat([broadcast_dynamic_shape(shape(self._col)[:-1], shape(self._row)[:-1]), n, n], 0)

    def _to_dense(self) -> Tensor:
        n = self._dim("domain")
        col, row = self._col, self._row
        # values[n - 1 + k] is the k-th subdiagonal's entry (col[k]), values[n - 1 - k] the k-th superdiagonal's
        values = concat(broadcast_matrix_batch_dims(
            [expand_dims(reverse(row[..., 1:], [-1]), -2), expand_dims(col, -2)]), -1)[..., 0, :]
        offsets = tf_range(n)
        indices = (n - 1) + expand_dims(offsets, -1) - offsets
        return gather(values, indices, axis=-1, batch_dims=0)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _trace(self) -> Tensor:
        return cast(self.domain_dimension_tensor(), self.dtype) * self._col[..., 0]

    def _diag_part(self) -> Tensor:
        return self._col[..., 0:1] * ones([self._dim("domain")], dtype=self.dtype)


@tf_export("linalg.LinearOperatorHouseholder")
class LinearOperatorHouseholder(LinearOperator):
    """The reflection `I - 2 v v^H / (v^H v)` across the hyperplane orthogonal to `reflection_axis` `v`:
    self-adjoint, its own inverse, determinant -1."""

    def __init__(self, reflection_axis: Any, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str = "LinearOperatorHouseholder") -> None:
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        with name_scope(name, values=[reflection_axis]):
            self._reflection_axis = convert_to_tensor(reflection_axis, name="reflection_axis")
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        super().__init__(self._reflection_axis.dtype, is_non_singular=is_non_singular, is_self_adjoint=True,
                         is_positive_definite=False, is_square=True, name=name, parameters=parameters)

    @property
    def reflection_axis(self) -> Tensor:
        return self._reflection_axis

    def _shape(self) -> tensor_shape.TensorShape:
        axis = self._reflection_axis.shape
        return axis.concatenate(axis[-1:])

    def _shape_tensor(self) -> Tensor:
        s = shape(self._reflection_axis)
        return concat([s, s[-1:]], 0)

    def _normalized_axis(self) -> Tensor:
        """The unit reflection axis (as tf.math.l2_normalize, epsilon 1e-12)."""
        axis = self._reflection_axis
        square_sum = reduce_sum(real(axis * conj(axis)), axis=-1, keepdims=True)
        return axis * cast(rsqrt(maximum(square_sum, 1e-12)), self.dtype)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = matrix_adjoint(x) if adjoint_arg else x
        mat = expand_dims(self._normalized_axis(), -1)
        return x - 2 * mat * matmul(mat, x, adjoint_a=True)

    def _trace(self) -> Tensor:
        return cast(self.domain_dimension_tensor() - 2, self.dtype) * ones(self._batch_dims([]), dtype=self.dtype)

    def _determinant(self) -> Tensor:
        return -ones(self._batch_dims([]), dtype=self.dtype)

    def _log_abs_determinant(self) -> Tensor:
        return zeros(self._batch_dims([]), dtype=self.dtype)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return self._matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self) -> Tensor:
        mat = expand_dims(self._normalized_axis(), -1)
        matrix = -2 * matmul(mat, mat, adjoint_b=True)
        return matrix_set_diag(matrix, 1.0 + matrix_diag_part(matrix))

    def _diag_part(self) -> Tensor:
        axis = self._normalized_axis()
        return 1 - 2 * axis * conj(axis)

    def _eigvals(self) -> Tensor:
        n = self._dim("domain")
        rest = ones(self._batch_dims([n - 1]), dtype=self.dtype)
        return concat([-ones(self._batch_dims([1]), dtype=self.dtype), rest], -1)

    def _cond(self) -> Tensor:
        return ones(self._batch_dims([]), dtype=self.dtype)

    def _adjoint_operator(self) -> LinearOperator:
        return self

    def _inverse_operator(self) -> LinearOperator:
        return self


@tf_export("linalg.LinearOperatorPermutation")
class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix `P` with `P[i, perm[i]] = 1`: `P x` gathers the rows of `x` by `perm`."""

    def __init__(self, perm: Any, dtype: Any = dtypes.float32, is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str = "LinearOperatorPermutation") -> None:
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        with name_scope(name, values=[perm]):
            self._perm = convert_to_tensor(perm, name="perm")
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument `perm` must be integer dtype. Received: {self._perm}.")
        if self._perm.shape.ndims is not None and self._perm.shape.ndims < 1:
            raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {self._perm}.")
        static = static_value(self._perm)
        if static is not None and not np.all(np.sort(static, axis=-1) == np.arange(static.shape[-1])):
            raise ValueError(f"Argument `perm` must be a vector of unique integers from 0 to "
                             f"{static.shape[-1] - 1}.")
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular." + expected_true(
                "is_non_singular", is_non_singular))
        if is_square is False:
            raise ValueError("A Permutation operator is always square." + expected_true("is_square", is_square))
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def perm(self) -> Tensor:
        return self._perm

    def _shape(self) -> tensor_shape.TensorShape:
        s = self._perm.shape
        return s.concatenate(s[-1:])

    def _shape_tensor(self) -> Tensor:
        s = shape(self._perm)
        return concat([s, s[-1:]], 0)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        return matmul(self.to_dense(), rhs, adjoint_a=not adjoint, adjoint_b=adjoint_arg)

    def _determinant(self) -> Tensor:
        return matrix_determinant(self.to_dense())

    def _log_abs_determinant(self) -> Tensor:
        return zeros(self._batch_dims([]), dtype=self.dtype)

    def _fixed_points(self) -> Tensor:
        return cast(equal(self._perm, tf_range(self._dim("domain"), dtype=self._perm.dtype)), self.dtype)

    def _trace(self) -> Tensor:
        return reduce_sum(self._fixed_points(), axis=-1)

    def _diag_part(self) -> Tensor:
        return self._fixed_points()

    def _to_dense(self) -> Tensor:
        return cast(one_hot(self._perm, self._dim("domain")), self.dtype)


@tf_export("linalg.LinearOperatorTridiag")
class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal matrix given by its diagonals in TF's 'compact' ([..., 3, N]: super, main, sub),
    'matrix' or 'sequence' format; matmul and solve are the tridiagonal ops."""

    def __init__(self, diagonals: Any, diagonals_format: str = "compact", is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str = "LinearOperatorTridiag") -> None:
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint, is_positive_definite=is_positive_definite,
                          is_square=is_square, name=name)
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError("Argument `diagonals_format` must be one of compact, matrix, or sequence. "
                             f"Received : {diagonals_format}.")
        with name_scope(name, values=[diagonals]):
            if diagonals_format == "sequence":
                self._diagonals = [convert_to_tensor(d, name=f"diag_{i}") for i, d in enumerate(diagonals)]
            else:
                self._diagonals = convert_to_tensor(diagonals, name="diagonals")
            self._compact = _compact_diagonals(self._diagonals, diagonals_format)
        self._diagonals_format = diagonals_format
        super().__init__(self._compact.dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=is_square, name=name,
                         parameters=parameters)

    @property
    def diagonals(self) -> Any:
        return self._diagonals

    @property
    def diagonals_format(self) -> str:
        return self._diagonals_format

    def _shape(self) -> tensor_shape.TensorShape:
        if self._diagonals_format == "matrix":
            return self._diagonals.shape
        if self._diagonals_format == "sequence":
            main = self._diagonals[1].shape
            return main.concatenate(main[-1:])
        s = self._diagonals.shape
        return s[:-2].concatenate([s[-1], s[-1]]) if s.ndims is not None else s

    def _shape_tensor(self) -> Tensor:
        s = shape(self._compact)
        return concat([s[:-2], s[-1:], s[-1:]], 0)

    def _adjoint_compact(self) -> Tensor:
        """The compact diagonals of the adjoint: the conjugated sub- and superdiagonals swap and shift."""
        superdiag, main, subdiag = (conj(self._compact[..., i, :]) for i in range(3))
        edge = zeros_like(main[..., :1])
        new_super = concat([subdiag[..., 1:], edge], -1)
        new_sub = concat([edge, superdiag[..., :-1]], -1)
        return stack([new_super, main, new_sub], axis=-2)

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = matrix_adjoint(x) if adjoint_arg else x
        diagonals = self._adjoint_compact() if adjoint else self._compact
        diagonals, x = broadcast_matrix_batch_dims([diagonals, x])
        return tridiagonal_matmul(diagonals, x)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        diagonals = self._adjoint_compact() if adjoint else self._compact
        diagonals, rhs = broadcast_matrix_batch_dims([diagonals, rhs])
        return tridiagonal_solve(diagonals, rhs)

    def _diag_part(self) -> Tensor:
        return self._compact[..., 1, :]

    def _trace(self) -> Tensor:
        return reduce_sum(self._diag_part(), axis=-1)

    def _to_dense(self) -> Tensor:
        return matrix_diag(self._compact, k=(-1, 1), align="LEFT_RIGHT")


@tf_export("linalg.LinearOperatorBlockLowerTriangular")
class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A block lower-triangular matrix from rows of operators (`operators[i]` holds the blocks `A_i0 .. A_ii`,
    the last one square, on the diagonal): matmul blockwise, solve by block substitution."""

    def __init__(self, operators: Sequence[Sequence[LinearOperator]], is_non_singular: bool | None = None,
                 is_self_adjoint: bool | None = None, is_positive_definite: bool | None = None,
                 is_square: bool | None = None, name: str = "LinearOperatorBlockLowerTriangular") -> None:
        parameters = dict(operators=operators, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square, name=name)
        rows = [list(row) for row in operators]
        if not rows:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. Received: {list(operators)}.")
        for i, row in enumerate(rows):
            if len(row) != i + 1:
                raise ValueError(f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Received: {len(row)} "
                                 "blocks.")
        dtype = rows[0][0].dtype
        for i, row in enumerate(rows):
            if any(o.dtype != dtype for o in row):
                raise TypeError(f"Expected all operators to have the same dtype.  Found {[o.dtype for o in row]} "
                                f"in row {i} and {dtype} in row 0.")
        for i, row in enumerate(rows):
            if row[-1].is_square is False:
                raise ValueError("Matrices on the diagonal (the final elements of each row-partition in the "
                                 "`operators` list) must be square. Expected argument "
                                 f"`operators[{i}][-1].is_square` to be True. Received: False.")
        if is_square is False:
            raise ValueError("`LinearOperatorBlockLowerTriangular` must be square."
                             + expected_true("is_square", is_square))
        self._operators = rows
        is_non_singular = auto_hint(
            [row[-1].is_non_singular for row in rows], is_non_singular,
            "A blockwise lower-triangular operator with non-singular operators on the main diagonal is always "
            "non-singular." + expected_true("is_non_singular", is_non_singular))
        super().__init__(dtype, is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                         is_positive_definite=is_positive_definite, is_square=True, name=name,
                         parameters=parameters)

    @property
    def operators(self) -> list[list[LinearOperator]]:
        return self._operators

    def _diagonal(self) -> list[LinearOperator]:
        return [row[-1] for row in self._operators]

    def _shape(self) -> tensor_shape.TensorShape:
        n = self._diagonal()[0].domain_dimension
        for operator in self._diagonal()[1:]:
            n = n + operator.domain_dimension
        return _batch_shape([o for row in self._operators for o in row]).concatenate([n, n])

    def _shape_tensor(self) -> Tensor:
        n = reduce_sum(stack([o.domain_dimension_tensor() for o in self._diagonal()]))
        return concat([_batch_shape_tensor([o for row in self._operators for o in row]), stack([n, n])], 0)

    def _split(self, x: Tensor) -> list[Tensor]:
        sizes = [o._dim("domain") for o in self._diagonal()]
        if not all(isinstance(s, int) for s in sizes):
            sizes = stack([convert_to_tensor(s) for s in sizes])
        return split(x, sizes, axis=-2)

    def _block(self, i: int, j: int) -> LinearOperator:
        return self._operators[i][j]

    def _matmul(self, x: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        x = matrix_adjoint(x) if adjoint_arg else x
        parts = self._split(x)
        count = len(parts)
        result = []
        for i in range(count):
            sources = range(i, count) if adjoint else range(i + 1)
            terms = [self._block(k, i).matmul(parts[k], adjoint=True) if adjoint
                     else self._block(i, k).matmul(parts[k]) for k in sources]
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            result.append(total)
        return _concat_matrices(result, -2)

    def _solve(self, rhs: Tensor, adjoint: bool = False, adjoint_arg: bool = False) -> Tensor:
        rhs = matrix_adjoint(rhs) if adjoint_arg else rhs
        parts = self._split(rhs)
        count = len(parts)
        solution: list[Tensor | None] = [None] * count
        for i in (reversed(range(count)) if adjoint else range(count)):
            residual = parts[i]
            for k in (range(i + 1, count) if adjoint else range(i)):
                residual = residual - (self._block(k, i).matmul(solution[k], adjoint=True) if adjoint
                                       else self._block(i, k).matmul(solution[k]))
            solution[i] = self._block(i, i).solve(residual, adjoint=adjoint)
        return _concat_matrices(solution, -2)

    def _to_dense(self) -> Tensor:
        blocks = [o for row in self._operators for o in row]
        denses = iter(broadcast_matrix_batch_dims([o.to_dense() for o in blocks]))
        widths = [o._dim("domain") for o in self._diagonal()]
        rows = []
        for i, row in enumerate(self._operators):
            pieces = [next(denses) for _ in row]
            after = widths[i + 1:]
            if after:
                width = sum(after) if all(isinstance(w, int) for w in after) else reduce_sum(stack(after))
                batch = pieces[0].shape[:-2]
                size = [row[-1]._dim("range"), width]
                target = (batch.as_list() + size if batch.is_fully_defined() and isinstance(width, int)
                          else concat([shape(pieces[0])[:-2], stack(size)], 0))
                pieces.append(zeros(target, dtype=self.dtype))
            rows.append(concat(pieces, -1))
        return concat(rows, -2)

    def _determinant(self) -> Tensor:
        result = self._diagonal()[0].determinant()
        for operator in self._diagonal()[1:]:
            result = result * operator.determinant()
        return result

    def _log_abs_determinant(self) -> Tensor:
        result = self._diagonal()[0].log_abs_determinant()
        for operator in self._diagonal()[1:]:
            result = result + operator.log_abs_determinant()
        return result

    def _trace(self) -> Tensor:
        result = self._diagonal()[0].trace()
        for operator in self._diagonal()[1:]:
            result = result + operator.trace()
        return result

    def _diag_part(self) -> Tensor:
        return _concat_vectors([o.diag_part() for o in self._diagonal()])

    def _inverse_operator(self) -> LinearOperator:
        """Block forward substitution on the identity: `X_ii = A_ii^-1`, `X_ij = -A_ii^-1 sum_k A_ik X_kj`."""
        count = len(self._operators)
        inverse: list[list[LinearOperator]] = [[] for _ in range(count)]
        for i in range(count):
            for j in range(i):
                total = None
                for k in range(j, i):
                    term = self._block(i, k).matmul(inverse[k][j].to_dense())
                    total = term if total is None else total + term
                inverse[i].append(LinearOperatorFullMatrix(-self._block(i, i).solve(total)))
            inverse[i].append(self._block(i, i).inverse())
        return LinearOperatorBlockLowerTriangular(inverse, is_non_singular=self.is_non_singular)
