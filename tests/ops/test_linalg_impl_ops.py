"""sqrtm, logm, the tridiagonal product and solve, the LU composites, pinv, matrix_rank, normalize and
eigh_tridiagonal against NumPy and values recorded from real TensorFlow 2.21 (`tf.compat.v1`), with gradients."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

RNG = np.random.RandomState(1)
A = RNG.randn(2, 3, 3)
SPD = A @ np.swapaxes(A, -1, -2) + 3 * np.eye(3)
DIAGONALS = RNG.randn(2, 3, 4)
DIAGONALS[:, 1] += 4


def _dense(diagonals):
    """The matrices of compact diagonals (superdiag, maindiag, subdiag)."""
    size = diagonals.shape[-1]
    rows = np.arange(size)
    dense = np.zeros(diagonals.shape[:-2] + (size, size))
    dense[..., rows, rows] = diagonals[..., 1, :]
    dense[..., rows[:-1], rows[1:]] = diagonals[..., 0, :-1]
    dense[..., rows[1:], rows[:-1]] = diagonals[..., 2, 1:]
    return dense


def _spd_function(fn):
    values, vectors = np.linalg.eigh(SPD)
    return (vectors * fn(values)[..., None, :]) @ np.swapaxes(vectors, -1, -2)


def test_sqrtm_and_logm():
    root = check_op(tf.linalg.sqrtm, [SPD], _spd_function(np.sqrt), rtol=1e-10, atol=1e-10)[0][0]
    np.testing.assert_allclose(root[0, 0], [2.42532, -0.12562, 0.62748], atol=1e-5)  # TF's
    check_op(tf.matrix_square_root, [SPD.astype(np.float32)], root.astype(np.float32), rtol=1e-5, atol=1e-5)
    rotation = np.array([[0.0, -1.0], [1.0, 0.0]])  # complex eigenvalues, a real principal root
    check_op(tf.linalg.sqrtm, [rotation], np.array([[1, -1], [1, 1]]) / np.sqrt(2), atol=1e-12)
    log = check_op(tf.linalg.logm, [SPD.astype(np.complex128)], _spd_function(np.log).astype(np.complex128),
                   rtol=1e-10, atol=1e-10)[0][0]
    np.testing.assert_allclose(log[0, 0], [1.70284, -0.0406, 0.52411], atol=1e-5)  # TF's
    check_gradient(tf.linalg.sqrtm, [SPD[0]])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.linalg.sqrtm(tf.zeros([2, 3]))
        with pytest.raises(TypeError):
            tf.linalg.logm(tf.zeros([2, 2]))


def test_tridiagonal_matmul_and_solve():
    rhs = RNG.randn(2, 4, 2)
    dense = _dense(DIAGONALS)
    check_op(tf.linalg.tridiagonal_matmul, [DIAGONALS, rhs], dense @ rhs, rtol=1e-10, atol=1e-10)
    check_op(tf.linalg.tridiagonal_solve, [DIAGONALS, rhs], np.linalg.solve(dense, rhs), rtol=1e-10, atol=1e-10)
    check_op(lambda d, r: tf.linalg.tridiagonal_solve(d, r, transpose_rhs=True), [DIAGONALS, np.swapaxes(rhs, -1, -2)],
             np.linalg.solve(dense, rhs), rtol=1e-10, atol=1e-10)
    check_op(tf.linalg.tridiagonal_solve, [DIAGONALS, rhs[..., 0]], np.linalg.solve(dense, rhs)[..., 0],
             rtol=1e-10, atol=1e-10)
    check_op(lambda m, r: tf.linalg.tridiagonal_solve(m, r, diagonals_format="matrix"), [dense[0], rhs[0]],
             np.linalg.solve(dense[0], rhs[0]), rtol=1e-10, atol=1e-10)
    check_op(lambda a, b, c, r: tf.linalg.tridiagonal_matmul([a, b, c], r, diagonals_format="sequence"),
             [*DIAGONALS[0], rhs[0]], dense[0] @ rhs[0], rtol=1e-10, atol=1e-10)
    check_gradient(tf.linalg.tridiagonal_matmul, [DIAGONALS[0], rhs[0]])
    check_gradient(tf.linalg.tridiagonal_solve, [DIAGONALS[0], rhs[0]])
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(ValueError, match="Expected 3 diagonals got 2"):
            tf.linalg.tridiagonal_solve(tf.zeros([2, 4]), tf.zeros([4, 1]))
        singular = tf.placeholder(tf.float64, [3, 3])
        with pytest.raises(tf.errors.InvalidArgumentError, match="The matrix is not invertible."):
            sess.run(tf.linalg.tridiagonal_solve(singular, tf.ones([3, 1], tf.float64), perturb_singular=True),
                     {singular: np.zeros((3, 3))})


def test_tridiagonal_solve_of_a_singular_matrix_is_nan_as_tf():
    """TF's CPU kernel logs and returns NaN for a singular system (per batch member), and without pivoting for
    any zero pivot; the ops are named as TF names them, in no name scope."""
    with tf.Graph().as_default(), tf.Session() as sess:
        batch = tf.linalg.tridiagonal_solve(np.array([[[1., 2., 0.], [1., 4., 5.], [0., 6., 7.]], np.zeros((3, 3))],
                                                     np.float32), tf.ones([2, 3, 1]))
        no_pivot = tf.linalg.tridiagonal_solve(np.array([[1., 1., 0.], [0., 1., 1.], [0., 1., 1.]], np.float32),
                                               tf.ones([3]), partial_pivoting=False)
        product = tf.linalg.tridiagonal_matmul(np.ones((3, 3), np.float32), tf.ones([3, 1]))
        assert [t.op.name for t in (batch, no_pivot, product)] == ["TridiagonalSolve", "Squeeze", "TridiagonalMatMul"]
        got_batch, got_no_pivot = sess.run([batch, no_pivot])
    np.testing.assert_allclose(got_batch[0, :, 0], [-0.125, 1.125, -1.375], rtol=1e-6)
    assert np.isnan(got_batch[1]).all() and np.isnan(got_no_pivot).all()
    with pytest.raises(ValueError, match="partial_pivoting must be True if perturb_singular is."):
        tf.linalg.tridiagonal_solve(np.ones((3, 3), np.float32), tf.ones([3, 1]), partial_pivoting=False,
                                    perturb_singular=True)


def test_sqrtm_nan_and_pinv_dtype_as_tf():
    """TF's Schur-based root is NaN for a real matrix with a negative eigenvalue, or two zero ones."""
    with tf.Graph().as_default(), tf.Session() as sess:
        roots = sess.run(tf.linalg.sqrtm(np.array([[[4., 0.], [0., 9.]], [[-1., 0.], [0., 1.]], [[0., 0.], [0., 0.]],
                                                   [[0., 1.], [-1., 0.]]], np.float32)))
        complex_root = sess.run(tf.linalg.sqrtm(np.array([[-4., 0.], [0., 9.]], np.complex64)))
        with pytest.raises(TypeError, match=r"Input `a` must have `float`-like `dtype` \(saw int32\)."):
            tf.linalg.pinv(tf.constant([[1, 2]]))
    np.testing.assert_allclose(roots[0], [[2, 0], [0, 3]], rtol=1e-6)
    assert np.isnan(roots[1]).all() and np.isnan(roots[2]).all()
    np.testing.assert_allclose(roots[3], [[0.70710677, 0.70710677], [-0.70710677, 0.70710677]], rtol=1e-5)
    np.testing.assert_allclose(complex_root, [[2j, 0], [0, 3]], atol=1e-6)


def test_lu_composites():
    rhs = RNG.randn(2, 3, 2)
    with tf.Graph().as_default():
        lu, perm = tf.linalg.lu(tf.constant(A))
        solved, rebuilt, inverse = tf.Session().run(
            [tf.linalg.lu_solve(lu, perm, rhs), tf.linalg.lu_reconstruct(lu, perm), tf.linalg.lu_matrix_inverse(lu, perm)])
    np.testing.assert_allclose(solved, np.linalg.solve(A, rhs), atol=1e-10)
    np.testing.assert_allclose(rebuilt, A, atol=1e-12)
    np.testing.assert_allclose(inverse, np.linalg.inv(A), atol=1e-10)


def test_pinv_rank_normalize():
    wide = RNG.randn(3, 2)
    check_op(tf.linalg.pinv, [wide], np.linalg.pinv(wide), rtol=1e-10, atol=1e-10)
    check_op(tf.linalg.matrix_rank, [np.array([[1.0, 2], [2, 4]])], np.int32(1))
    check_op(tf.linalg.matrix_rank, [A], np.array([3, 3], np.int32))
    norms = np.linalg.norm(A[0], axis=1, keepdims=True)
    check_op(lambda x: list(tf.linalg.normalize(x, axis=1)), [A[0]], [A[0] / norms, norms], rtol=1e-12)
    check_op(lambda x: list(tf.linalg.normalize(x, ord=1)), [A[0]], [A[0] / np.abs(A[0]).sum(),
                                                                      np.abs(A[0]).sum().reshape(1, 1)], rtol=1e-12)


def test_eigh_tridiagonal():
    check_op(lambda: tf.linalg.eigh_tridiagonal([1., 2., 3.], [0.5, 0.25]), [],
             np.array([0.78868, 2.14519, 3.06613], np.float32), atol=1e-5)  # TF's
    alpha, beta = np.array([1., 2., 3., 4.]), np.array([0.5, 0.25, 1.0])
    expected = np.linalg.eigvalsh(np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1))
    check_op(lambda a, b: tf.linalg.eigh_tridiagonal(a, b, select="i", select_range=[1, 2]), [alpha, beta],
             expected[1:3], rtol=1e-10)
    check_op(lambda a, b: tf.linalg.eigh_tridiagonal(a, b, select="v", select_range=[1.5, 3.5]), [alpha, beta],
             expected[(expected > 1.5) & (expected <= 3.5)], rtol=1e-10, fully_defined=False)
    with tf.Graph().as_default(), tf.Session() as sess:
        values, vectors = sess.run(tf.linalg.eigh_tridiagonal(alpha, beta, eigvals_only=False))
    matrix = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    np.testing.assert_allclose(matrix @ vectors, vectors * values, atol=1e-10)


def test_tridiagonal_solve_static_checks_as_tf():
    """TF's messages; a vector rhs ignores transpose_rhs (TF's python)."""
    with tf.Graph().as_default():
        diagonals = tf.constant([[1., 2., 0.], [4., 5., 6.], [0., 7., 8.]])
        vector = tf.linalg.tridiagonal_solve(diagonals, tf.constant([1., 2., 3.]), transpose_rhs=True)
        assert vector.shape.as_list() == [3]
        with pytest.raises(ValueError, match="Expected number of left-hand sided and right-hand sides to be equal, "
                                             "got 3 and 4"):
            tf.linalg.tridiagonal_solve(diagonals, tf.ones([4, 1]))
        with pytest.raises(ValueError, match="Expected the rank of rhs to be 1 or 2, got 4"):
            tf.linalg.tridiagonal_solve(diagonals, tf.ones([1, 3, 1, 1]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.linalg.det(tf.ones([2, 3]))
