"""tf.linalg.LinearOperator and its subclasses: every method against NumPy on the operator's dense matrix,
static shapes and dtypes against the fetched values, and the hints, names, result types, partial static
shapes and error messages recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

L = tf.linalg
RNG = np.random.RandomState(0)
A = RNG.randn(2, 3, 3)
SPD = A @ np.swapaxes(A, -1, -2) + 3 * np.eye(3)
V = RNG.randn(2, 3)
C = RNG.randn(4) + 1j * RNG.randn(4)
U = RNG.randn(2, 3, 1)


def _circulant(kernel):
    """The circulant matrix whose first column is `kernel`."""
    n = len(kernel)
    return np.stack([np.roll(kernel, j) for j in range(n)], axis=-1)


def _tridiag(compact):
    return np.diag(compact[1]) + np.diag(compact[0, :-1], 1) + np.diag(compact[2, 1:], -1)


def _householder(v):
    v = v / np.linalg.norm(v, axis=-1, keepdims=True)
    return np.eye(v.shape[-1]) - 2 * v[..., :, None] * v[..., None, :].conj()


def _kron(a, b):
    return np.einsum("...ij,...kl->...ikjl", a, b).reshape(a.shape[:-2] + (a.shape[-2] * b.shape[-2],
                                                                            a.shape[-1] * b.shape[-1]))


SPECTRUM = np.fft.fft(np.array([2.0, 0.5, 1.0, 0.5]))  # a symmetric kernel: a real spectrum
SPECTRUM2 = C.reshape(2, 2) + 3
TRIDIAG = np.array([[1.0, 2.0, 3.0, 0.0], [5.0, 6.0, 7.0, 8.0], [0.0, -1.0, -2.0, -3.0]])
PERM = np.array([[2, 0, 1], [1, 0, 2]])
FACTOR = np.array([[2.0, 1.0], [0.5, 3.0]])
LRU_BASE = V + 3
LRU_DIAG = np.array([[2.0], [0.5]])

# name -> (builder of the operator, its dense matrix in NumPy)
OPERATORS = {
    "full": (lambda: L.LinearOperatorFullMatrix(A + 2 * np.eye(3)), A + 2 * np.eye(3)),
    "spd": (lambda: L.LinearOperatorFullMatrix(SPD, is_self_adjoint=True, is_positive_definite=True), SPD),
    "diag": (lambda: L.LinearOperatorDiag(V + 3), np.eye(3) * (V + 3)[..., None, :]),
    "complex_diag": (lambda: L.LinearOperatorDiag(C[:3]), np.diag(C[:3])),
    "identity": (lambda: L.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64), np.tile(np.eye(3), (2, 1, 1))),
    "scaled": (lambda: L.LinearOperatorScaledIdentity(3, np.array([2.0, -3.0])),
               np.eye(3) * np.array([2.0, -3.0])[:, None, None]),
    "tril": (lambda: L.LinearOperatorLowerTriangular(A + 3 * np.eye(3)), np.tril(A + 3 * np.eye(3))),
    "composition": (lambda: L.LinearOperatorComposition([L.LinearOperatorFullMatrix(A + 2 * np.eye(3)),
                                                         L.LinearOperatorDiag(V + 3)]),
                    (A + 2 * np.eye(3)) @ (np.eye(3) * (V + 3)[..., None, :])),
    "kronecker": (lambda: L.LinearOperatorKronecker([L.LinearOperatorFullMatrix(A[0] + 2 * np.eye(3)),
                                                     L.LinearOperatorFullMatrix(FACTOR)]),
                  _kron(A[0] + 2 * np.eye(3), FACTOR)),
    "block_diag": (lambda: L.LinearOperatorBlockDiag([L.LinearOperatorFullMatrix(A[:, :2, :2] + 2 * np.eye(2)),
                                                      L.LinearOperatorDiag(np.array([2.0, 5.0]))]),
                   np.block([[A[:, :2, :2] + 2 * np.eye(2), np.zeros((2, 2, 2))],
                             [np.zeros((2, 2, 2)), np.tile(np.diag([2.0, 5.0]), (2, 1, 1))]])),
    "circulant": (lambda: L.LinearOperatorCirculant(SPECTRUM.real, input_output_dtype=tf.float64),
                  _circulant(np.array([2.0, 0.5, 1.0, 0.5]))),
    "complex_circulant": (lambda: L.LinearOperatorCirculant(C + 3, input_output_dtype=tf.complex128),
                          _circulant(np.fft.ifft(C + 3))),
    "circulant_2d": (lambda: L.LinearOperatorCirculant2D(SPECTRUM2, input_output_dtype=tf.complex128),
                     np.array([np.fft.ifft2(SPECTRUM2 * np.fft.fft2(e.reshape(2, 2))).reshape(4) for e in np.eye(4)]).T),
    "low_rank_update": (lambda: L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag(LRU_BASE), U,
                                                              diag_update=LRU_DIAG),
                        np.eye(3) * LRU_BASE[..., None, :] + U @ (LRU_DIAG[..., None] * np.swapaxes(U, -1, -2))),
    "low_rank_update_v": (lambda: L.LinearOperatorLowRankUpdate(L.LinearOperatorFullMatrix(SPD), U[0] * [1.0],
                                                                v=U[1]),
                          SPD + U[0] @ U[1].T),
    "block_lower_triangular": (
        lambda: L.LinearOperatorBlockLowerTriangular([[L.LinearOperatorFullMatrix(A[:, :2, :2] + 3 * np.eye(2))],
                                                      [L.LinearOperatorFullMatrix(FACTOR[:1]),
                                                       L.LinearOperatorDiag(np.array([4.0]))]]),
        np.block([[A[:, :2, :2] + 3 * np.eye(2), np.zeros((2, 2, 1))],
                  [np.tile(FACTOR[:1], (2, 1, 1)), np.full((2, 1, 1), 4.0)]])),
    "toeplitz": (lambda: L.LinearOperatorToeplitz(np.array([4.0, 1.0, 0.5]), np.array([4.0, 2.0, -1.0])),
                 np.array([[4.0, 2.0, -1.0], [1.0, 4.0, 2.0], [0.5, 1.0, 4.0]])),
    "householder": (lambda: L.LinearOperatorHouseholder(np.array([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]])),
                    _householder(np.array([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]]))),
    "permutation": (lambda: L.LinearOperatorPermutation(PERM, dtype=tf.float64), np.eye(3)[PERM]),
    "tridiag": (lambda: L.LinearOperatorTridiag(TRIDIAG), _tridiag(TRIDIAG)),
    "tridiag_matrix": (lambda: L.LinearOperatorTridiag(_tridiag(TRIDIAG), diagonals_format="matrix"),
                       _tridiag(TRIDIAG)),
    "tridiag_sequence": (lambda: L.LinearOperatorTridiag(list(TRIDIAG), diagonals_format="sequence"),
                         _tridiag(TRIDIAG)),
    "adjoint": (lambda: L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix(A + 2 * np.eye(3))),
                np.swapaxes(A + 2 * np.eye(3), -1, -2)),
    "inversion": (lambda: L.LinearOperatorInversion(L.LinearOperatorFullMatrix(A + 2 * np.eye(3))),
                  np.linalg.inv(A + 2 * np.eye(3))),
}


def _adjoint(x):
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("key", sorted(OPERATORS))
def test_operator_methods_match_the_dense_matrix(key):
    build, dense = OPERATORS[key]
    with tf.Graph().as_default():
        operator = build()
        dtype = operator.dtype.as_numpy_dtype
        n = operator.shape.as_list()[-1]
        x = (np.arange(1.0, 2 * n + 1).reshape(n, 2) * [1.0, -0.5]).astype(dtype)
        if operator.dtype.is_complex:
            x = x * (1 + 0.5j)
        expected = {
            "to_dense": dense,
            "matmul": dense @ x,
            "matmul_adjoint": _adjoint(dense) @ x,
            "matmul_adjoint_arg": dense @ x,
            "matvec": (dense @ x[:, :1])[..., 0],
            "solve": np.linalg.solve(dense, np.broadcast_to(x, dense.shape[:-1] + (2,))),
            "solve_adjoint": np.linalg.solve(_adjoint(dense), np.broadcast_to(x, dense.shape[:-1] + (2,))),
            "solvevec": np.linalg.solve(dense, np.broadcast_to(x[:, :1], dense.shape[:-1] + (1,)))[..., 0],
            "determinant": np.linalg.det(dense),
            "log_abs_determinant": np.linalg.slogdet(dense)[1],
            "trace": np.trace(dense, axis1=-2, axis2=-1),
            "diag_part": np.diagonal(dense, axis1=-2, axis2=-1),
            "add_to_tensor": dense + x[:, :1],
            "inverse": np.linalg.inv(dense),
            "adjoint": _adjoint(dense),
        }
        built = {
            "to_dense": operator.to_dense(),
            "matmul": operator.matmul(x),
            "matmul_adjoint": operator.matmul(x, adjoint=True),
            "matmul_adjoint_arg": operator.matmul(_adjoint(x), adjoint_arg=True),
            "matvec": operator.matvec(x[:, 0]),
            "solve": operator.solve(x),
            "solve_adjoint": operator.solve(x, adjoint=True),
            "solvevec": operator.solvevec(x[:, 0]),
            "determinant": operator.determinant(),
            "log_abs_determinant": operator.log_abs_determinant(),
            "trace": operator.trace(),
            "diag_part": operator.diag_part(),
            "add_to_tensor": operator.add_to_tensor(np.broadcast_to(x[:, :1], dense.shape).astype(dtype)),
            "inverse": operator.inverse().to_dense(),
            "adjoint": operator.adjoint().to_dense(),
        }
        if operator.is_self_adjoint:
            expected["eigvals"] = np.linalg.eigvalsh(dense)
            built["eigvals"] = tf.sort(tf.math.real(operator.eigvals()), axis=-1)
        if operator.is_self_adjoint and operator.is_positive_definite:
            expected["cholesky"] = np.linalg.cholesky(dense)
            built["cholesky"] = operator.cholesky().to_dense()
        with tf.Session() as sess:
            values = sess.run(built)
    assert operator.shape.as_list() == list(dense.shape)
    for name, tensor in built.items():
        value = values[name]
        assert tensor.shape.as_list() == list(value.shape), name
        assert tensor.dtype.as_numpy_dtype == value.dtype, name
        if name in ("log_abs_determinant", "determinant") and not np.iscomplexobj(expected[name]):
            value = np.real(value)
        if name == "adjoint" and key.endswith("circulant_2d") or name == "adjoint" and key == "complex_circulant":
            atol = 1e-5  # TF's adjoint of a circulant computes in its default complex64
        else:
            atol = 1e-9
        np.testing.assert_allclose(value, expected[name], rtol=1e-6, atol=atol, err_msg=f"{key}.{name}")


def test_values_recorded_from_tensorflow():
    with tf.Graph().as_default():
        fetches = {
            "circulant": L.LinearOperatorCirculant(np.array([5.0, 1.0, 2.0, 1.0]), input_output_dtype=tf.float64)
            .to_dense(),
            "complex_circulant_det": L.LinearOperatorCirculant(C + 3, input_output_dtype=tf.complex128).determinant(),
            "low_rank_update_det": OPERATORS["low_rank_update"][0]().determinant(),
            "toeplitz_solvevec": OPERATORS["toeplitz"][0]().solvevec(np.array([1.0, -0.5, -1.0])),
            "kronecker_log_abs_det": OPERATORS["kronecker"][0]().log_abs_determinant(),
            "permutation_det": OPERATORS["permutation"][0]().determinant(),
            "tridiag_det": OPERATORS["tridiag"][0]().determinant(),
            "circulant_kernel": L.LinearOperatorCirculant(np.array([5.0, 1.0, 2.0, 1.0]),
                                                          input_output_dtype=tf.float64).convolution_kernel(),
        }
        with tf.Session() as sess:
            values = sess.run(fetches)
    np.testing.assert_allclose(values["circulant"][0], [2.25, 0.75, 1.25, 0.75])
    np.testing.assert_allclose(values["low_rank_update_det"], [18.03259573, 48.43469076], rtol=1e-8)
    np.testing.assert_allclose(values["toeplitz_solvevec"], [0.20588235, -0.04411765, -0.26470588], rtol=1e-7)
    np.testing.assert_allclose(values["kronecker_log_abs_det"], 11.20854091962507, rtol=1e-12)
    np.testing.assert_allclose(values["permutation_det"], [1.0, -1.0])
    np.testing.assert_allclose(values["tridiag_det"], 2175.0, rtol=1e-12)
    np.testing.assert_allclose(values["circulant_kernel"], [2.25, 0.75, 1.25, 0.75])
    assert values["complex_circulant_det"] == pytest.approx(np.prod(C + 3))


def _kind(operator):
    return type(operator).__name__


def test_hints_names_and_the_operators_of_the_algebra():
    with tf.Graph().as_default():
        full = L.LinearOperatorFullMatrix(np.eye(3, dtype=np.float32))
        diag = L.LinearOperatorDiag([1.0, 2.0, 3.0])
        identity = L.LinearOperatorIdentity(3)
        scaled = L.LinearOperatorScaledIdentity(3, 2.0)
        tril = L.LinearOperatorLowerTriangular(np.eye(3, dtype=np.float32))
        spd = L.LinearOperatorFullMatrix(np.eye(3, dtype=np.float32), is_self_adjoint=True,
                                         is_positive_definite=True)
        assert [_kind(o.adjoint()) for o in (full, diag, identity, scaled, tril)] == [
            "LinearOperatorAdjoint", "LinearOperatorDiag", "LinearOperatorIdentity", "LinearOperatorScaledIdentity",
            "LinearOperatorAdjoint"]
        assert [_kind(o.inverse()) for o in (full, diag, identity, scaled, tril)] == [
            "LinearOperatorInversion", "LinearOperatorDiag", "LinearOperatorIdentity",
            "LinearOperatorScaledIdentity", "LinearOperatorInversion"]
        assert _kind(spd.cholesky()) == "LinearOperatorLowerTriangular"
        assert [_kind(a.matmul(b)) for a, b in ((full, diag), (diag, diag), (identity, full), (full, identity),
                                                  (scaled, scaled), (diag, scaled), (scaled, diag), (diag, tril))] == [
            "LinearOperatorComposition", "LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorFullMatrix",
            "LinearOperatorScaledIdentity", "LinearOperatorDiag", "LinearOperatorDiag", "LinearOperatorLowerTriangular"]
        assert _kind(full.solve(diag)) == "LinearOperatorComposition"
        assert full.adjoint().name == "LinearOperatorFullMatrix_adjoint"
        assert full.inverse().name == "LinearOperatorFullMatrix_inv"
        assert full.matmul(tril).matmul(full).name == ("LinearOperatorFullMatrix_o_LinearOperatorLowerTriangular"
                                                       "_o_LinearOperatorFullMatrix")
        hints = [(o.is_non_singular, o.is_self_adjoint, o.is_positive_definite, o.is_square)
                 for o in (full, diag, identity, scaled, tril)]
        assert hints == [(None, None, None, True), (None, True, None, True), (True, True, True, True),
                         (None, True, None, True), (None, None, None, True)]
        assert str(full.shape) == "(3, 3)" and full.batch_shape.as_list() == [] and full.tensor_rank == 2
        assert isinstance(full.domain_dimension, tf.Dimension) and full.domain_dimension == 3
        u = np.ones((3, 1), np.float32)
        low_rank = [L.LinearOperatorLowRankUpdate(base, u, **kwargs)
                    for kwargs in ({}, {"diag_update": [2.0]}, {"diag_update": [2.0], "is_diag_update_positive": True},
                                   {"v": u}) for base in (diag, spd)]
        assert [(o.is_non_singular, o.is_self_adjoint, o.is_positive_definite) for o in low_rank] == [
            (None, True, None), (True, True, True), (None, True, None), (None, True, None), (None, True, None),
            (True, True, True), (None, None, None), (None, None, None)]
        kronecker = L.LinearOperatorKronecker([spd, spd])
        assert (kronecker.name, kronecker.inverse().name, kronecker.cholesky().name) == (
            "LinearOperatorFullMatrix_x_LinearOperatorFullMatrix",
            "LinearOperatorFullMatrix_inv_x_LinearOperatorFullMatrix_inv",
            "LinearOperatorLowerTriangular_x_LinearOperatorLowerTriangular")
        assert kronecker.adjoint() is kronecker and str(kronecker.shape) == "(9, 9)"
        composition = L.LinearOperatorComposition([spd, spd])
        assert (composition.is_non_singular, composition.is_self_adjoint, composition.is_positive_definite) == (
            True, True, True)
        assert _kind(composition.cholesky()) == "LinearOperatorLowerTriangular"
        block = L.LinearOperatorBlockDiag([diag, identity])
        assert (block.name, str(block.shape), block.is_self_adjoint, _kind(block.inverse())) == (
            "LinearOperatorDiag_ds_LinearOperatorIdentity", "(6, 6)", True, "LinearOperatorBlockDiag")
        circulant = L.LinearOperatorCirculant([1.0, 2.0, 3.0])
        assert (circulant.dtype, circulant.is_self_adjoint, _kind(circulant.inverse())) == (
            tf.complex64, True, "LinearOperatorCirculant")
        householder = L.LinearOperatorHouseholder([1.0, 2.0])
        assert (householder.is_non_singular, householder.is_self_adjoint, householder.is_positive_definite,
                householder.adjoint() is householder, householder.inverse() is householder) == (
            None, True, False, True, True)
        zeros = L.LinearOperatorZeros(2)
        assert (zeros.is_non_singular, zeros.is_self_adjoint, zeros.adjoint() is zeros) == (False, True, True)
        rectangular = L.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=False)
        assert (str(rectangular.shape), rectangular.adjoint().name) == ("(2, 3)", "LinearOperatorZeros_adjoint")
        lower = L.LinearOperatorBlockLowerTriangular([[identity], [identity, identity]])
        assert (lower.name, lower.is_non_singular, lower.is_self_adjoint, _kind(lower.adjoint()),
                _kind(lower.inverse())) == ("LinearOperatorBlockLowerTriangular", True, None, "LinearOperatorAdjoint",
                                            "LinearOperatorBlockLowerTriangular")
        inversion = L.LinearOperatorInversion(diag)
        assert inversion.name == "LinearOperatorDiag_inv" and inversion.inverse() is diag
        assert inversion.adjoint() is inversion
        assert L.LinearOperatorAdjoint(full).adjoint() is full


def test_partial_static_shapes():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3, None])
        v = tf.placeholder(tf.float32, [2, None])
        n = tf.placeholder(tf.int32, [])
        cases = {
            "full": (L.LinearOperatorFullMatrix(p), "(?, 3, ?)", "(?, 3, ?)", "(?, ?)"),
            "unknown_rank": (L.LinearOperatorFullMatrix(tf.placeholder(tf.float32)), "<unknown>", "<unknown>",
                             "<unknown>"),
            "diag": (L.LinearOperatorDiag(v), "(2, ?, ?)", "(2, ?, ?)", "(2, ?)"),
            "identity": (L.LinearOperatorIdentity(n), "(?, ?)", "(?, ?)", "(?,)"),
            "kronecker": (L.LinearOperatorKronecker([L.LinearOperatorDiag(v), L.LinearOperatorIdentity(2)]),
                          "(2, ?, ?)", "(2, ?, ?)", "(2, ?)"),
            "block_diag": (L.LinearOperatorBlockDiag([L.LinearOperatorDiag(v), L.LinearOperatorIdentity(2)]),
                           "(2, ?, ?)", "(2, ?, ?)", "(2, ?)"),
            "circulant": (L.LinearOperatorCirculant(v, input_output_dtype=tf.float32), "(2, ?, ?)", "(2, ?, ?)",
                          "(2, ?)"),
            "toeplitz": (L.LinearOperatorToeplitz(v, v), "(2, ?, ?)", "(2, ?, ?)", "(2, ?)"),
            "adjoint": (L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix(p)), "(?, ?, 3)", "(?, ?, 3)", "(?, ?)"),
        }
        for key, (operator, static, dense, diag) in cases.items():
            assert (str(operator.shape), str(operator.to_dense().shape), str(operator.diag_part().shape)) == (
                static, dense, diag), key
        assert L.LinearOperatorToeplitz(v, v).is_square is True
        assert L.LinearOperatorFullMatrix(p).is_square is None
        assert str(L.LinearOperatorZeros(n, 2, is_square=False, is_self_adjoint=False).shape) == "(?, 2)"
        circulant = L.LinearOperatorCirculant2D(np.ones((2, 3, 4), np.complex64))
        assert (circulant.block_depth, str(circulant.block_shape), str(circulant.shape)) == (2, "(3, 4)",
                                                                                             "(2, 12, 12)")
        full = L.LinearOperatorFullMatrix(p)
        fed = {p: np.ones((4, 3, 5), np.float32)}
        with tf.Session() as sess:
            values = sess.run([full.shape_tensor(), full.batch_shape_tensor(), full.domain_dimension_tensor(),
                               full.tensor_rank_tensor()], fed)
        assert [v.tolist() for v in values] == [[4, 3, 5], [4], 5, 3]


def _raises(error, message, build):
    with tf.Graph().as_default():
        with pytest.raises(error) as info:
            build()
    assert str(info.value) == message


def test_errors_as_tensorflow_raises_them():
    full = lambda: L.LinearOperatorFullMatrix(np.eye(3, dtype=np.float32))  # noqa: E731
    wide = lambda: L.LinearOperatorFullMatrix([[1.0, 2.0]])  # noqa: E731
    identity = L.LinearOperatorIdentity
    cases = [
        (TypeError, "Argument `matrix` must have dtype in [tf.float16, tf.float32, tf.float64, tf.complex64, "
         "tf.complex128]. Received: <dtype: 'int32'>.", lambda: L.LinearOperatorFullMatrix([[1, 2]])),
        (ValueError, "A real diagonal operator is always self adjoint.",
         lambda: L.LinearOperatorDiag([1.0], is_self_adjoint=False)),
        (ValueError, "Only square diagonal operators currently supported.",
         lambda: L.LinearOperatorDiag([1.0], is_square=False)),
        (ValueError, "A positive definite matrix is always non-singular.",
         lambda: L.LinearOperatorFullMatrix([[1.0]], is_positive_definite=True, is_non_singular=False)),
        (ValueError, "A non-singular matrix is always square.",
         lambda: L.LinearOperatorFullMatrix([[1.0]], is_non_singular=True, is_square=False)),
        (ValueError, "User set is_square hint to False, but the operator was square.",
         lambda: L.LinearOperatorFullMatrix([[1.0]], is_square=False).is_square),
        (ValueError, "Dimensions 3 and 2 are not compatible", lambda: full().matmul(np.ones((2, 2), np.float32))),
        (ValueError, "Operators are incompatible. Expected `x` to have dimension 3 but got 2.",
         lambda: full().matmul(identity(2))),
        (NotImplementedError, "Determinant not implemented for an operator that is expected to not be square.",
         lambda: wide().determinant()),
        (NotImplementedError, "Exact solve not implemented for an operator that is expected to not be square.",
         lambda: wide().solve([[1.0]])),
        (ValueError, "Cannot take the Inverse: This operator represents a non square matrix.",
         lambda: wide().inverse()),
        (ValueError, "Cannot take the Inverse: This operator represents a singular matrix.",
         lambda: L.LinearOperatorZeros(2).inverse()),
        (ValueError, "Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix.",
         lambda: full().cholesky()),
        (NotImplementedError, "Exact solve not implemented for an operator that is expected to be singular.",
         lambda: L.LinearOperatorZeros(2).solve(np.ones((2, 1), np.float32))),
        (NotImplementedError, "Only self-adjoint matrices are supported.", lambda: full().eigvals()),
        (ValueError, "An identity operator is always self adjoint.", lambda: identity(2, is_self_adjoint=False)),
        (ValueError, "Argument num_rows must be non-negative.  Found: -1", lambda: identity(-1)),
        (ValueError, "Argument num_rows must be a 0-D Tensor.  Found: [2]", lambda: identity([2])),
        (ValueError, "Argument batch_shape must be a 1-D Tensor.  Found: 2", lambda: identity(2, batch_shape=2)),
        (ValueError, "Expected a non-empty list of operators. Found: []", lambda: L.LinearOperatorComposition([])),
        (TypeError, "Expected all operators to have the same dtype.  Found ('LinearOperatorFullMatrix', tf.float32)"
         "   ('LinearOperatorIdentity', tf.float64)",
         lambda: L.LinearOperatorComposition([full(), identity(3, dtype=tf.float64)])),
        (TypeError, "Expected every operation in argument `operators` to have the same dtype. Received "
         "[\"('LinearOperatorIdentity', tf.float32)\", \"('LinearOperatorIdentity', tf.float64)\"].",
         lambda: L.LinearOperatorKronecker([identity(2), identity(2, dtype=tf.float64)])),
        (ValueError, "The Kronecker product of non-singular operators is always non-singular. Expected argument "
         "`is_non_singular` to be True. Received: False.",
         lambda: L.LinearOperatorKronecker([identity(2), identity(2)], is_non_singular=False)),
        (ValueError, "The direct sum of positive definite operators is always positive definite.",
         lambda: L.LinearOperatorBlockDiag([identity(2), identity(2)], is_positive_definite=False)),
        (ValueError, "The composition was determined to be self-adjoint but user provided incorrect `False` hint.",
         lambda: L.LinearOperatorComposition([identity(2)], is_self_adjoint=False)),
        (TypeError, "Argument `perm` must be integer dtype. Received: Tensor(\"LinearOperatorPermutation/perm:0\", "
         "shape=(2,), dtype=float32).", lambda: L.LinearOperatorPermutation([1.0, 0.0])),
        (ValueError, "Argument `operators[1]` must contain `2` blocks. Received: 1 blocks.",
         lambda: L.LinearOperatorBlockLowerTriangular([[identity(2)], [identity(2)]])),
        (ValueError, "Matrices on the diagonal (the final elements of each row-partition in the `operators` list) "
         "must be square. Expected argument `operators[0][-1].is_square` to be True. Received: False.",
         lambda: L.LinearOperatorBlockLowerTriangular([[L.LinearOperatorFullMatrix(np.ones((2, 3)))]])),
        (ValueError, "A blockwise lower-triangular operator with non-singular operators on the main diagonal is "
         "always non-singular. Expected argument `is_non_singular` to be True. Received: False.",
         lambda: L.LinearOperatorBlockLowerTriangular([[identity(2)], [identity(2), identity(2)]],
                                                      is_non_singular=False)),
        (ValueError, "A Householder operator is always non-positive definite.",
         lambda: L.LinearOperatorHouseholder([1.0], is_positive_definite=True)),
        (ValueError, "Argument `is_non_singular` or argument `operator` must have supplied hint `is_non_singular` "
         "equal to `True` or `None`. Found `operator.is_non_singular`: False, `is_non_singular`: None.",
         lambda: L.LinearOperatorInversion(L.LinearOperatorZeros(2))),
        (ValueError, "An operator is square if and only if its adjoint is square.",
         lambda: L.LinearOperatorAdjoint(full(), is_square=False)),
        (ValueError, "A [[nested] block] circulant operator is always square. Expected argument `is_square` to be "
         "True. Received: False.", lambda: L.LinearOperatorCirculant([1.0, 2.0], is_square=False)),
        (ValueError, "A ScaledIdentity operator is always square.",
         lambda: L.LinearOperatorScaledIdentity(2, 1.0, is_square=False)),
        (ValueError, "A zero operator is always singular.", lambda: L.LinearOperatorZeros(2, is_non_singular=True)),
        (ValueError, "LinearOperatorZeros initialized as is_square=True, but got num_rows(2) != num_columns(3)",
         lambda: L.LinearOperatorZeros(2, 3)),
        (ValueError, "Argument `diagonals_format` must be one of compact, matrix, or sequence. Received : foo.",
         lambda: L.LinearOperatorTridiag(np.ones((3, 4), np.float32), diagonals_format="foo")),
        (ValueError, "Expected square matrix, got row and col with mismatched dimensions.",
         lambda: L.LinearOperatorToeplitz([1.0, 2.0], [1.0, 2.0, 3.0]).shape),
        (ValueError, "A = L + UDU^H, with L self-adjoint and D real diagonal.  Since UDU^H is self-adjoint, this "
         "must be a self-adjoint operator.",
         lambda: L.LinearOperatorLowRankUpdate(L.LinearOperatorDiag([1.0, 2.0]), np.ones((2, 1), np.float32),
                                               is_self_adjoint=False)),
        (TypeError, "Expected argument to have dtype <dtype: 'float32'>.  Found: <dtype: 'float64'> in tensor "
         "Tensor(\"LinearOperatorDiag/matmul/x:0\", shape=(2, 1), dtype=float64)",
         lambda: L.LinearOperatorDiag([[1.0, 2.0]]).matmul(np.ones((2, 1), np.float64))),
    ]
    for error, message, build in cases:
        _raises(error, message, build)


def test_assertions_run_and_fail_as_tensorflow():
    with tf.Graph().as_default():
        singular = L.LinearOperatorDiag([1.0, 0.0])
        indefinite = L.LinearOperatorFullMatrix([[1.0, 2.0], [2.0, 1.0]], is_self_adjoint=True)
        passing = [L.LinearOperatorDiag([1.0, 2.0]).assert_non_singular(),
                   L.LinearOperatorDiag([1.0, 2.0]).assert_positive_definite(),
                   L.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 2.0]]).assert_self_adjoint(),
                   L.LinearOperatorFullMatrix([[2.0, 1.0], [1.0, 2.0]]).assert_non_singular(),
                   L.LinearOperatorIdentity(2).assert_positive_definite()]
        with tf.Session() as sess:
            sess.run(passing)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Singular operator:  Diagonal contained zero"):
                sess.run(singular.assert_non_singular())
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(indefinite.assert_positive_definite())
            with pytest.raises(tf.errors.InvalidArgumentError, match="Matrix was not equal to its adjoint."):
                sess.run(L.LinearOperatorFullMatrix([[1.0, 2.0], [0.0, 1.0]]).assert_self_adjoint())
