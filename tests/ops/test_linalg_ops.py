"""Batched linear algebra against NumPy math (and, for the diagonal packings and norms, values checked against
real TensorFlow 2.21 `tf.compat.v1`): band parts, diagonals (V1 and V3 with ranges and alignments), trace, eye,
cross, tensordot, norm, inverses, determinants, Cholesky, solves, least squares, SVD (singular vectors up to
sign) and eigh; TF's errors; numeric gradients."""

import re

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

RNG = np.random.RandomState(0)
A = RNG.randn(2, 3, 3)
SPD = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)
B = RNG.randn(2, 3, 2)
M = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _run(t, feed=None):
    with tf.Session(graph=t.graph) as sess:
        return sess.run(t, feed)


def test_band_part():
    rows, cols = np.indices((3, 4))
    check_op(lambda m: [tf.matrix_band_part(m, 1, 0), tf.linalg.band_part(m, -1, 1), tf.matrix_band_part(m, 0, -1)],
             [M], [M * ((cols - rows <= 0) & (cols - rows >= -1)), M * (cols - rows <= 1), np.triu(M)], grad=False)
    check_gradient(lambda m: tf.matrix_band_part(m, 1, 0), [A])
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"num_lower must be negative or less or equal to number of rows \(3\) got: 5"):
            _run(tf.matrix_band_part(M, 5, 0))


def test_matrix_diag_forms_recorded_from_tf():
    d = np.array([[1., 2, 3], [4, 5, 6]], np.float32)
    two = np.stack([d, d + 10], 1)
    check_op(lambda x: [tf.matrix_diag(x), tf.linalg.diag(x, k=1)], [d],
             [np.stack([np.diag(r) for r in d]), np.stack([np.diag(r, 1) for r in d])])
    below = np.zeros((2, 5, 3), np.float32)
    below[:, [1, 2, 3], [0, 1, 2]] = d
    check_op(lambda x: tf.linalg.diag(x, k=-1, num_rows=5), [d], below)
    # k=(0, 1) LEFT_LEFT pads the superdiagonal's short end on the right with padding_value
    check_op(lambda x: tf.linalg.diag(x, k=(0, 1), align="LEFT_LEFT", padding_value=9), [two],
             [[[11, 1, 9], [9, 12, 2], [9, 9, 13]], [[14, 4, 9], [9, 15, 5], [9, 9, 16]]], dtype=np.float32)
    assert tf.matrix_diag(d).op.type == "MatrixDiagV3" and tf.matrix_diag(d).name.startswith("diag")


def test_matrix_diag_sizes_checked_as_tf():
    """MatrixDiagV3's shape function and kernel (messages recorded from TF 2.21): a num_rows or num_cols not
    known while building counts as -1 there, so the static shape is the inferred one."""
    with tf.Graph().as_default():
        fed = tf.placeholder_with_default
        for kwargs, message in [(dict(num_rows=3, num_cols=4), "num_rows and num_cols are not consistent with "
                                 "lower_diag_index, upper_diag_index, and the length of the given diagonals.\n"
                                 "num_rows = 3 != min_num_rows = 2, num_cols = 4 != min_num_cols = 2"),
                                (dict(num_rows=1), "num_rows is too small"), (dict(num_cols=1), "num_cols is too small.")]:
            with pytest.raises(ValueError, match=re.escape(message)):
                tf.linalg.diag([1.0, 2], **kwargs)
        with pytest.raises(ValueError, match="The number of rows of `diagonal` doesn't match the number of diagonals "
                                             "implied from `d_lower` and `d_upper`.\nnum_diags = 3, d_lower = 0, "
                                             "d_upper = 1 2 2"):
            tf.linalg.diag([[1.0, 2], [3, 4], [5, 6]], k=(0, 1))
        taller = tf.linalg.diag([1.0, 2], num_rows=fed(3, []))
        assert taller.shape.as_list() == [2, 2]
        cases = [(tf.linalg.diag([1.0, 2], num_rows=fed(3, []), num_cols=fed(4, [])), "The number of rows or columns "
                  "is not consistent with the specified d_lower, d_upper, and diagonal."),
                 (tf.linalg.diag([1.0, 2], num_rows=fed(1, [])), "The number of rows is too small."),
                 (tf.linalg.diag([1.0, 2], num_cols=fed(1, [])), "The number of columns is too small."),
                 (tf.linalg.diag(fed([[1.0, 2], [3, 4], [5, 6]], [None, None]), k=fed([0, 1], [None])),
                  "The number of diagonals provided in the input does not match the lower_diag_index and "
                  "upper_diag_index range."),
                 (tf.linalg.diag([1.0, 2], k=fed([0, 0, 1], [None])), "diag_index must have only one or two "
                  "elements, received 3 elements.")]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(taller), [[1, 0], [0, 2], [0, 0]])
            for t, message in cases:
                with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
                    sess.run(t)


def test_matrix_diag_part_and_set_diag():
    check_op(lambda m: [tf.matrix_diag_part(m), tf.linalg.diag_part(m, k=1)], [M],
             [np.diagonal(M, axis1=1, axis2=2), np.diagonal(M, 1, axis1=1, axis2=2)])
    # k=(-2, 1), LEFT_RIGHT: superdiagonals left-aligned, subdiagonals right-aligned, padded with 7 (TF 2.21)
    check_op(lambda m: tf.linalg.diag_part(m[0], k=(-2, 1), align="LEFT_RIGHT", padding_value=7), [M],
             [[1, 6, 11], [0, 5, 10], [7, 4, 9], [7, 7, 8]], dtype=np.float32)
    expected = M.copy()
    expected[:, [0, 1, 2], [1, 2, 3]] = 5
    check_op(lambda m: tf.linalg.set_diag(m, tf.fill([2, 3], 5.0), k=1), [M], expected)
    expected = M.copy()
    expected[:, [0, 1, 2], [0, 1, 2]] = -1
    check_op(lambda m: tf.matrix_set_diag(m, -tf.ones([2, 3])), [M], expected)
    check_gradient(lambda m: tf.linalg.diag_part(m, k=(-1, 1)), [A])
    check_gradient(lambda m, d: tf.linalg.set_diag(m, d), [A, A[:, 0]])
    check_gradient(lambda d: tf.linalg.diag(d, k=(0, 1)), [A[:, :2]])


def test_trace_eye_adjoint_matvec_cross():
    check_op(lambda a: [tf.trace(a), tf.linalg.trace(a[0])], [A], [np.trace(A, axis1=1, axis2=2), np.trace(A[0])])
    check_op(lambda: [tf.eye(3), tf.eye(2, 3, batch_shape=[2], dtype=tf.int32), tf.linalg.eye(3, 2)], [],
             [np.eye(3, dtype=np.float32), np.broadcast_to(np.eye(2, 3, dtype=np.int32), (2, 2, 3)),
              np.eye(3, 2, dtype=np.float32)])
    assert tf.eye(3).name == "eye/diag:0" and tf.eye(2, 3).name == "eye_1/set_diag:0"
    c = (A + 1j * A[::-1]).astype(np.complex128)
    check_op(lambda x: tf.linalg.adjoint(x), [c], np.conj(c.transpose(0, 2, 1)))
    check_op(lambda a, v: tf.linalg.matvec(a, v), [A, B[..., 0]], np.einsum("bij,bj->bi", A, B[..., 0]))
    check_op(lambda a, b: tf.cross(a, b), [A, A[::-1]], np.cross(A, A[::-1]), grad=True)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Dimension must be 3 but is 4"):
        tf.linalg.cross(M, M)


def test_tensordot():
    check_op(lambda a, b: [tf.tensordot(a, b, [[2], [1]]), tf.tensordot(a, a, [[0, 2], [0, 2]]),
                           tf.tensordot(b, b, 0)],
             [M, M[0]], [np.tensordot(M, M[0], [[2], [1]]), np.tensordot(M, M, [[0, 2], [0, 2]]),
                         np.tensordot(M[0], M[0], 0)])
    check_gradient(lambda a, b: tf.tensordot(a, b, [[2], [1]]), [A, B])
    with tf.Graph().as_default():  # unknown batch size, as in attention layers
        x = tf.placeholder(tf.float32, [None, 3, 4])
        y = tf.tensordot(x, M[0].T, [[2], [0]])
        assert y.shape.as_list() == [None, 3, 3]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y, {x: M}), np.tensordot(M, M[0].T, [[2], [0]]), rtol=1e-6)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Different number of contraction axes"):
        tf.tensordot(M, M, [[0], [0, 1]])
    with tf.Graph().as_default():  # unknown rank: TF's dynamic form (axes made non-negative when run)
        x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        z = tf.tensordot(x, y, [[-1, 1], [0, 1]])
        assert z.shape.ndims is None
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(z, {x: M, y: M[0].T}), np.tensordot(M, M[0].T, [[2, 1], [0, 1]]),
                                       rtol=1e-6)


def test_norm_forms():
    x = M - 11.5
    ax = np.abs(x)
    check_op(lambda t: [tf.norm(t), tf.norm(t, axis=1), tf.norm(t, ord=1, axis=-1),
                        tf.norm(t, ord=np.inf, axis=0, keepdims=True), tf.norm(t, ord=3, axis=2),
                        tf.norm(t, ord="fro", axis=[1, 2]), tf.norm(t, ord=1, axis=(-2, -1)),
                        tf.norm(t, ord=np.inf, axis=(1, 2)), tf.norm(t, ord=2, axis=(1, 2))],
             [x], [np.float32(np.sqrt((x * x).sum())), np.sqrt((x * x).sum(1)), ax.sum(-1), ax.max(0, keepdims=True),
                   np.cbrt((ax ** 3).sum(2)), np.sqrt((x * x).sum((1, 2))), ax.sum(1).max(-1), ax.sum(2).max(-1),
                   np.linalg.norm(x, 2, axis=(1, 2)).astype(np.float32)], rtol=1e-5)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="'ord' must be a supported matrix norm"):
            tf.norm(x, ord="nuc", axis=[0, 1])
        with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got -1"):
            tf.norm(x, ord=-1)
        with pytest.raises(ValueError, match="'axis' must be None, an integer, or a tuple of 2 unique integers"):
            tf.norm(x, axis=[0, 0])


def test_inverse_determinants():
    check_op(lambda a: [tf.matrix_inverse(a), tf.linalg.inv(a, adjoint=True), tf.matrix_determinant(a),
                        *tf.linalg.slogdet(a)],
             [A], [np.linalg.inv(A), np.linalg.inv(A.transpose(0, 2, 1)), np.linalg.det(A), *np.linalg.slogdet(A)])
    check_op(lambda s: tf.linalg.logdet(s), [SPD], np.linalg.slogdet(SPD)[1])
    check_gradient(lambda a: tf.matrix_inverse(a), [A])
    check_gradient(lambda a: tf.linalg.inv(a, adjoint=True), [A])
    check_gradient(lambda a: tf.matrix_determinant(a), [A])
    check_gradient(lambda a: tf.linalg.slogdet(a)[1], [A])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.matrix_inverse(A[:, :2])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible."):
            _run(tf.matrix_inverse(np.zeros((2, 2))))


def test_cholesky_and_solves():
    chol = np.linalg.cholesky(SPD)
    check_op(lambda s, b: [tf.cholesky(s), tf.cholesky_solve(tf.cholesky(s), b)], [SPD, B],
             [chol, np.linalg.solve(SPD, B)])
    check_gradient(lambda a: tf.cholesky(tf.matmul(a, a, transpose_b=True) + 3 * tf.eye(3, dtype=tf.float64)), [A])
    check_op(lambda a, b: [tf.matrix_solve(a, b), tf.linalg.solve(a, b, adjoint=True), tf.matrix_triangular_solve(a, b),
                           tf.linalg.triangular_solve(a, b, lower=False, adjoint=True),
                           tf.linalg.triangular_solve(a[0], b)],
             [A, B], [np.linalg.solve(A, B), np.linalg.solve(A.transpose(0, 2, 1), B), np.linalg.solve(np.tril(A), B),
                      np.linalg.solve(np.triu(A).transpose(0, 2, 1), B), np.linalg.solve(np.tril(A[0]), B)])
    check_gradient(lambda a, b: tf.matrix_solve(a, b), [A, B])
    check_gradient(lambda a, b: tf.linalg.solve(a, b, adjoint=True), [A, B])
    tri = np.tril(A) + 3 * np.eye(3)
    check_gradient(lambda a, b: tf.matrix_triangular_solve(a, b), [tri, B])
    check_gradient(lambda a, b: tf.linalg.triangular_solve(a, b, lower=False, adjoint=True), [tri.transpose(0, 2, 1), B])
    check_gradient(lambda a, b: tf.linalg.triangular_solve(a, b), [tri[0], B])
    with tf.Graph().as_default():
        # TF 2.21: no error, NaN in the lower triangle of each matrix that is not positive definite
        np.testing.assert_array_equal(_run(tf.cholesky([[[4., 2.], [2., 3.]], [[-1., 0.], [0., 1.]]])),
                                      [[[2., 0.], [1., np.float32(np.sqrt(2.))]], [[np.nan, 0.], [np.nan, np.nan]]])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input matrix is not invertible."):
            _run(tf.matrix_solve(np.zeros((2, 2)), np.zeros((2, 1))))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.matrix_solve(A, B[:, :2])


def test_lstsq():
    tall = RNG.randn(2, 4, 3)
    rhs = RNG.randn(2, 4, 2)
    wide = A[:, :2]

    def ridge(a, b, l2):
        return np.linalg.solve(a.transpose(0, 2, 1) @ a + l2 * np.eye(a.shape[-1]), a.transpose(0, 2, 1) @ b)

    check_op(lambda a, b, w: [tf.linalg.lstsq(a, b), tf.matrix_solve_ls(a, b, l2_regularizer=0.5),
                              tf.linalg.lstsq(w, b[:, :2], l2_regularizer=0.1)],
             [tall, rhs, wide], [ridge(tall, rhs, 0), ridge(tall, rhs, 0.5),
                                 wide.transpose(0, 2, 1) @ np.linalg.solve(
                                     wide @ wide.transpose(0, 2, 1) + 0.1 * np.eye(2), rhs[:, :2])])


def test_lstsq_gradient():
    tall, wide = RNG.randn(2, 4, 3), RNG.randn(2, 2, 3)
    check_gradient(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.3), [tall, RNG.randn(2, 4, 2)])
    check_gradient(lambda a, b: tf.matrix_solve_ls(a, b), [tall, RNG.randn(2, 4, 2)])
    check_gradient(lambda a, b: tf.linalg.lstsq(a, b, l2_regularizer=0.1), [wide, RNG.randn(2, 2, 2)])


def test_lstsq_builds_tfs_composite_unless_fast_is_off():
    """TF's matrix_solve_ls: Cholesky of the regularized Gramian and two triangular solves (a cond on the
    shape when the inner dimensions are unknown); the MatrixSolveLs kernel only for fast=False."""
    with tf.Graph().as_default() as g:
        a, b = tf.constant(A[0]), tf.constant(B[0])
        ops_before = len(g.get_operations())
        x = tf.matrix_solve_ls(a, b)
        types = [op.type for op in g.get_operations()[ops_before:]]
        assert x.name == "matrix_solve_ls/cholesky_solve/MatrixTriangularSolve_1:0"
        assert types.count("Cholesky") == 1 and "MatrixSolveLs" not in types and "MatrixDiagV3" not in types
        assert tf.matrix_solve_ls(a, b, fast=False).op.inputs[2].name == "MatrixSolveLs/l2_regularizer:0"
        unknown = tf.matrix_solve_ls(tf.placeholder_with_default(A[0], [None, None]), b, l2_regularizer=0.1)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(unknown), np.linalg.solve(A[0].T @ A[0] + 0.1 * np.eye(3),
                                                                          A[0].T @ B[0]))


def test_solver_runtime_messages_as_tf():
    fed = tf.placeholder_with_default
    x = np.arange(6.0).reshape(2, 3)
    with tf.Graph().as_default():
        cases = [(tf.matrix_solve(fed(x, None), fed(x, None)), "First input (lhs) must be a square matrix."),
                 (tf.matrix_solve(fed(np.eye(2), None), fed(x.T, None)), "Input matrix and rhs are incompatible."),
                 (tf.matrix_solve(fed(np.eye(2), None), fed(np.ones(2), None)),
                  "All input tensors must have the same rank."),
                 (tf.matrix_solve_ls(fed(x, None), fed(np.ones([3, 1]), None), fast=False),
                  "Input matrix and rhs are incompatible."),
                 (tf.matrix_triangular_solve(fed(np.eye(2), None), fed(x.T, None), adjoint=True),
                  "In[0] mismatch In[1] shape: 2 vs. 3: [2,2] [3,2] 1 1"),
                 (tf.matrix_triangular_solve(fed(x, None), fed(x, None)),
                  "In[0] matrices in the last dimensions must be square (3 =/= 2)"),
                 (tf.matrix_triangular_solve(fed(np.eye(2), None), fed(np.ones(2), None)), "In[1] ndims must be >= 2: 1"),
                 (tf.matrix_triangular_solve(fed(np.ones([2, 2, 2]), None), fed(np.ones([3, 2, 1]), None)),
                  "In[0] and In[1] must have compatible batch dimensions: [2,2,2] vs. [3,2,1]")]
        with tf.Session() as sess:
            for t, message in cases:
                with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
                    sess.run(t)


def test_einsum_and_diagonal_runtime_messages_as_tf():
    fed = tf.placeholder_with_default
    x = np.arange(6.0).reshape(2, 3)
    with tf.Graph().as_default():
        cases = [(tf.einsum("ij,jk->ik", fed(x, None), fed(x, None)),
                  "Expected dimension 3 at axis 0 of the input shaped [2,3] but got dimension 2"),
                 (tf.einsum("ij->i", fed(np.ones(3), None)), "Expected input 0 to have rank 2 but got: 1"),
                 (tf.linalg.diag_part(fed(x, None), k=fed(5, [])),
                  "lower_diag_index is out of bound: 5. It must be between -2 and 3"),
                 (tf.linalg.diag_part(fed(x, None), k=fed([-1, 3], [None])),
                  "upper_diag_index is out of bound: 3 It must be between -2 and 3"),
                 (tf.linalg.set_diag(fed(x, None), fed(np.array([1.0, 2]), None), k=fed(3, [])),
                  "lower_diag_index is out of bound: 3 It must be between -2 and 3")]
        with tf.Session() as sess:
            for t, message in cases:
                with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(message)):
                    sess.run(t)


def test_svd_and_eigh():
    x = A[:, :2]
    s_ref = np.linalg.svd(x, compute_uv=False)
    # values checked below: singular vectors are unique only up to sign (TF's may differ from these)
    s, u, v, _, uf, vf, s_only = check_op(
        lambda t: [*tf.svd(t), *tf.linalg.svd(t, full_matrices=True), tf.linalg.svd(t, compute_uv=False)], [x],
        [s_ref, np.zeros((2, 2, 2)), np.zeros((2, 3, 2)), s_ref, np.zeros((2, 2, 2)), np.zeros((2, 3, 3)), s_ref],
        atol=10)[0]
    np.testing.assert_allclose(np.concatenate([s, s_only]), np.concatenate([s_ref, s_ref]), atol=1e-12)
    np.testing.assert_allclose(u @ (s[..., None] * np.conj(v.transpose(0, 2, 1))), x, atol=1e-12)
    np.testing.assert_allclose(uf.transpose(0, 2, 1) @ uf, np.broadcast_to(np.eye(2), (2, 2, 2)), atol=1e-12)
    np.testing.assert_allclose(vf.transpose(0, 2, 1) @ vf, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-12)
    e_ref = np.linalg.eigvalsh(SPD)
    e, vecs = check_op(lambda t: list(tf.self_adjoint_eig(t)), [SPD], [e_ref, np.zeros((2, 3, 3))], atol=10)[0]
    np.testing.assert_allclose(e, e_ref, atol=1e-12)
    np.testing.assert_allclose(vecs @ (e[..., None] * vecs.transpose(0, 2, 1)), SPD, atol=1e-12)
    check_op(lambda t: tf.linalg.eigvalsh(t), [SPD], e_ref)
    # the eigenvalues, and the eigenvectors up to sign (|v|), are differentiable
    check_gradient(lambda t: tf.linalg.eigvalsh(t + tf.matrix_transpose(t)), [A])
    check_gradient(lambda t: tf.abs(tf.linalg.eigh(t + tf.matrix_transpose(t))[1]), [A])


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ij->", [(2, 3)]), ("ij,ij->i", [(2, 3), (2, 3)]), ("i,j->ij", [(3,), (4,)]), ("ijk->kj", [(2, 3, 4)]),
    ("...ij,...jk->...ik", [(5, 2, 3), (5, 3, 4)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
])
def test_einsum(equation, shapes):
    arrays = [RNG.randn(*s) for s in shapes]
    explicit = equation if "->" in equation else equation + "->ik"
    check_op(lambda *t: tf.einsum(equation, *t), arrays, np.einsum(explicit, *arrays))
    check_gradient(lambda *t: tf.einsum(equation, *t), arrays)


def test_einsum_as_tf():
    check_op(lambda x: tf.linalg.einsum("ii", x), [A[0]], np.trace(A[0]))
    assert tf.einsum("ij,jk->ik", A[0], A[0]).name == "einsum/Einsum:0"
    with tf.Graph().as_default(), pytest.raises(ValueError, match="without ellipsis"):
        tf.einsum("...ij,...jk", np.ones((5, 2, 3)), np.ones((3, 4)))
    with tf.Graph().as_default():  # an operand of unknown rank leaves its labels (and any ellipsis) unknown
        u, k = tf.placeholder(tf.float32), tf.placeholder(tf.float32, [None, 3])
        shapes = [tf.einsum(eq, *args).shape.as_list() if tf.einsum(eq, *args).shape.ndims is not None else None
                  for eq, args in [("ij,kj->ik", (u, u)), ("ij,jk", (u, k)), ("ij,j->i", (u, np.ones(3))),
                                   ("...j,kj->...k", (u, k)), ("bij,bjk->bik", (tf.placeholder(tf.float32, [2, None, 3]),
                                                                               u))]]
        assert shapes == [[None, None], [None, 3], [None], None, [2, None, None]]


@pytest.mark.parametrize("equation, shapes", [
    ("...j,jk->...k", [(2, 3), (3, 4)]), ("...ij,...jk->...ik", [(2, 3, 4), (1, 4, 2)]), ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]), ("ijk->ki", [(2, 3, 4)]), ("ij,kl->il", [(2, 3), (3, 4)]), ("ii,ij->j", [(3, 3), (3, 3)]),
    ("i...,i...->...", [(2, 3), (2, 3)]), ("...,...->...", [(2, 3), (3,)]),
])
def test_einsum_gradient_forms_of_tf(equation, shapes):
    """TF's Einsum gradient: broadcast ellipses summed back, traces and transposes through an inflating einsum
    (an output label repeated, 'i->ii')."""
    check_gradient(lambda *t: tf.einsum(equation, *t), [RNG.randn(*s) for s in shapes])


def test_einsum_inflates_a_repeated_output_label():
    x = np.arange(6.0).reshape(2, 3)
    check_op(lambda t: [tf.raw_ops.Einsum(inputs=[t], equation="ij->ijj"), tf.raw_ops.Einsum(
        inputs=[t], equation="ij->jij")], [x], [np.einsum("ij,jk->ijk", x, np.eye(3)),
                                                np.einsum("ij,jk->jik", x, np.eye(3))])


def test_tensordot_axes_forms_of_tf():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    with tf.Graph().as_default():
        unknown = tf.placeholder_with_default(a, None)
        outs = [tf.tensordot(unknown, b, 1), tf.tensordot(unknown, b, 0), tf.tensordot(a, b, tf.constant([[1], [0]])),
                tf.tensordot(a, b, np.array([[1], [0]]))]
        assert [t.shape.ndims for t in outs] == [None, None, 2, 2]  # TF infers the tensor-axes shapes
        values = _run(tf.stack([outs[0], outs[2], outs[3]]))
        np.testing.assert_allclose(values, [a @ b] * 3)
        np.testing.assert_allclose(_run(outs[1]), np.multiply.outer(a, b))
        with pytest.raises(ValueError, match=r"`axes` must not be larger than the number of dimensions of tensor "
                                             r".*\.  Received 3, vs tensor dimensions 2\."):
            tf.tensordot(a, b, 3)
        with pytest.raises(ValueError, match="Shapes must be equal rank, but are 2 and 1"):
            tf.cross(tf.constant([[1.0, 0, 0]]), tf.constant([0.0, 1, 0]))


def test_qr_gradient_of_wide_matrices_as_tf():
    """TF 2.21's QR gradient: wide matrices through their leading square part (values recorded from TF)."""
    w = np.array([[1.0, 2, 3], [4, 5, 7]])
    check_gradient(lambda t: tf.linalg.qr(t)[1], [w])
    check_gradient(lambda t: tf.linalg.qr(t, full_matrices=True)[0], [w])
    with tf.Graph().as_default():
        x = tf.constant(w, tf.float32)
        value = _run(tf.gradients(tf.linalg.qr(x)[1], x)[0])
        np.testing.assert_allclose(value, [[2.325487, -1.212677, -1.212678], [-1.612149, -0.727606, -0.727607]],
                                   rtol=1e-5)
        with pytest.raises(NotImplementedError, match=r"QrGrad not implemented when nrows > ncols and "
                                                       r"full_matrices is true. Received r.shape=\(3, 2\)"):
            tf.gradients(tf.linalg.qr(tf.transpose(x), full_matrices=True)[0], x)


def test_qr_and_lu():
    tall = RNG.randn(2, 4, 3)
    q, r = check_op(lambda t: list(tf.linalg.qr(t)), [tall], [np.zeros((2, 4, 3)), np.zeros((2, 3, 3))], atol=10)[0]
    np.testing.assert_allclose(q @ r, tall, atol=1e-12)  # Q and R are unique up to the signs of R's rows
    np.testing.assert_allclose(r, np.triu(r))
    check_gradient(lambda t: [tf.qr(t)[0] * tf.sign(tf.linalg.diag_part(tf.qr(t)[1]))[:, None, :],
                              tf.qr(t)[1] * tf.sign(tf.linalg.diag_part(tf.qr(t)[1]))[..., None]], [tall])
    a = np.random.RandomState(1).randn(2, 4, 4)
    lu, p = check_op(lambda t: list(tf.linalg.lu(t)), [a], [np.zeros((2, 4, 4)), np.zeros((2, 4), np.int32)],
                     atol=10, rtol=0)[0]
    np.testing.assert_array_equal(p, [[0, 1, 2, 3], [1, 0, 3, 2]])  # TF 2.21's permutation
    lower = np.tril(lu, -1) + np.eye(4)
    np.testing.assert_allclose(lower @ np.triu(lu), np.take_along_axis(a, p[..., None], 1), atol=1e-12)
    with tf.Graph().as_default(), pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible."):
        _run(tf.linalg.lu(np.zeros((2, 2)))[0])


def _expm_reference(a):
    """exp(a) by a 30-term Taylor series after scaling by a power of two, then squaring."""
    squarings = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(-2).max(), 1e-300)))) + 4)
    x, term, total = a / 2.0 ** squarings, np.eye(a.shape[-1]), np.eye(a.shape[-1])
    for k in range(1, 30):
        term = term @ x / k
        total = total + term
    for _ in range(squarings):
        total = total @ total
    return total


@pytest.mark.parametrize("scale", [0.01, 1.0, 5.0])
def test_expm(scale):
    a = RNG.randn(2, 3, 3) * scale
    expected = np.stack([_expm_reference(m) for m in a])
    check_op(lambda t: tf.linalg.expm(t), [a], expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    check_op(lambda t: tf.linalg.expm(t), [a.astype(np.float32)], expected.astype(np.float32), rtol=1e-5,
             atol=1e-6 * np.abs(expected).max())


def test_expm_gradient():
    pytest.importorskip("tensorweave.ops.control_flow_state", reason="needs gradients through while_loop (on main)")
    check_gradient(lambda t: tf.linalg.expm(t), [RNG.randn(2, 2, 2) * 2])


def test_tensor_diag():
    d = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    full = np.diag(d.reshape(-1)).reshape(2, 3, 2, 3)
    check_op(lambda t: [tf.diag(t), tf.linalg.tensor_diag_part(tf.linalg.tensor_diag(t))], [d], [full, d])
    check_gradient(lambda t: [tf.diag(t), tf.diag_part(tf.reshape(t, [2, 2]) * 3.0)], [RNG.randn(4)])


@pytest.mark.parametrize("rows, cols, full", [(3, 3, False), (4, 2, False), (2, 4, False), (3, 2, True)])
def test_svd_gradient(rows, cols, full):
    """Through the singular values, and through sign-invariant products of the singular vectors."""
    x = RNG.randn(2, rows, cols)
    check_gradient(lambda t: tf.svd(t, compute_uv=False), [x])

    def build(t):
        s, u, v = tf.svd(t, full_matrices=full)
        k = min(rows, cols)
        return [s, tf.matmul(u[..., :k] * s[..., None, :], v[..., :k], adjoint_b=True),
                tf.matmul(u[..., :k], u[..., :k], adjoint_b=True) * 2.0]

    check_gradient(build, [x])


def test_half_precision_kernels_as_tf():
    """TF's CPU kernels take half for MatrixInverse and Qr only."""
    m = np.array([[2.0, 1.0], [1.0, 3.0]], np.float16)
    check_op(lambda t: tf.linalg.inv(t), [m], np.linalg.inv(m.astype(np.float32)).astype(np.float16))
    check_op(lambda t: tf.matmul(*tf.qr(t)), [m], m)
    with tf.Graph().as_default(), pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel was registered"):
        _run(tf.cholesky(m))


def test_complex_decompositions():
    c = np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64)
    gram = c @ c.conj().T + np.eye(2, dtype=np.complex64)
    check_op(lambda t: [tf.linalg.inv(t), tf.linalg.det(t), *tf.linalg.slogdet(t), tf.svd(t, compute_uv=False)],
             [c], [np.linalg.inv(c), np.linalg.det(c), np.linalg.slogdet(c)[0],
                   np.linalg.slogdet(c)[1].astype(np.complex64), np.array([4.3356447, 0.6724434], np.float32)],
             rtol=1e-5, atol=1e-6)
    check_op(lambda g: [tf.linalg.logdet(g), tf.linalg.eigvalsh(g)], [gram],
             [np.linalg.slogdet(gram)[1], np.linalg.eigvalsh(gram).astype(np.complex64)],
             rtol=1e-5, atol=1e-6)


def test_einsum_output_label_missing_from_inputs():
    with tf.Graph().as_default() as graph:
        with pytest.raises(ValueError, match="^Output subscripts contain the label k not present in the input "
                                             "subscripts.$"):
            tf.einsum("ij->ijk", tf.zeros([2, 3]))
        assert not [op for op in graph.get_operations() if op.type == "Einsum"]


def test_einsum_implicit_output_carries_a_lone_ellipsis_as_tf():
    """TF counts an ellipsis as one label that sorts first: '...ij,jk' means '...ij,jk->...ik'."""
    a, b = np.arange(24.0).reshape(2, 3, 4), np.arange(20.0).reshape(4, 5)
    check_op(lambda x, y: tf.einsum("...ij,jk", x, y), [a, b], np.einsum("...ij,jk->...ik", a, b), grad=False)
    with tf.Graph().as_default():
        assert tf.einsum("...ij,jk", tf.placeholder(tf.float32, [None, 2, 4]), b.astype(np.float32)).shape.as_list() \
            == [None, 2, 5]


@pytest.mark.parametrize("equation, count, message", [
    ("ij.,jk", 2, "^Subscripts have incorrect format: ij.,jk$"),
    ("i0,jk", 2, "^Subscripts have incorrect format: i0,jk$"),
    ("...i0,jk", 2, '^Invalid character "0" in equation: ...i0,jk.$'),
    ("ij,jk", 1, '^Got 1 inputs for equation "ij,jk", expecting 2$'),
    ("ij->jii", 1, "^Output subscripts contain a label appearing more than once: ij->jii$"),
])
def test_einsum_equation_errors_as_tf(equation, count, message):
    with tf.Graph().as_default() as graph:
        with pytest.raises(ValueError, match=message):
            tf.einsum(equation, *[tf.zeros([2, 2])] * count)
        assert not [op for op in graph.get_operations() if op.type == "Einsum"]


def test_triangular_solve_with_zero_pivot_substitutes_as_tf():
    """TF 2.21 divides by the zero: [[inf], [-inf]] forward, NaN and inf back through the upper triangle."""
    with tf.Graph().as_default():
        lower = _run(tf.linalg.triangular_solve(np.array([[0., 0.], [1., 1.]], np.float32), np.ones((2, 1), np.float32)))
        np.testing.assert_array_equal(lower, [[np.inf], [-np.inf]])
        upper = _run(tf.linalg.triangular_solve(np.array([[[2., 1.], [0., 0.]]]), np.ones((1, 2, 1)), lower=False))
        np.testing.assert_array_equal(upper, [[[-np.inf], [np.inf]]])
        with pytest.raises(ValueError, match="lower_diag_index is greater than upper_diag_index"):
            tf.linalg.diag_part(np.ones((2, 2), np.float32), k=(1, -1))


def test_eye_arguments_as_tf():
    """TF's eye: batch_shape is listed unless a tensor is involved (an int is Python's TypeError), num_rows and
    num_columns must be integers, and the shapes are concatenated before the ones are made."""
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="^'int' object is not iterable$"):
            tf.eye(2, batch_shape=2)
        with pytest.raises(TypeError, match=r"^Arguments `num_rows` and `num_columns` must be positive integer "
                                            r"values. Received: num_rows=2.5, num_columns=2.5$"):
            tf.eye(2.5)
        assert tf.eye(2, batch_shape=np.array([2])).shape.as_list() == [2, 2, 2]
    with tf.Graph().as_default() as graph:
        eye = tf.eye(2, 3, batch_shape=tf.placeholder_with_default([2], [1]))
        assert [op.name for op in graph.get_operations()][2:] == [
            "eye/concat/values_1", "eye/concat/axis", "eye/concat", "eye/concat_1/values_1", "eye/concat_1/axis",
            "eye/concat_1", "eye/ones/Const", "eye/ones", "eye/zeros/Const", "eye/zeros", "eye/set_diag/k",
            "eye/set_diag"]
        assert eye.shape.as_list() == [None, 2, 3]
        np.testing.assert_array_equal(_run(eye), np.tile(np.eye(2, 3, dtype=np.float32), (2, 1, 1)))
