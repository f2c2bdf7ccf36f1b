"""The raw-only older op versions and aliases (ops/legacy_ops.py, MatrixDiag*V2), against values recorded
from TF 2.21's `tf.raw_ops` in graph mode."""

import numpy as np
import pytest
from op_testing import check_gradient

import tensorweave.compat.v1 as tf

F = np.array([[1., -2.], [3., 4.]], np.float32)


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def test_aliases_and_first_versions_as_tf():
    with tf.Graph().as_default():
        f, i = tf.constant(F), tf.constant([[7, -2], [3, 4]])
        got = _run([tf.raw_ops.Inv(x=f), tf.raw_ops.Div(x=i, y=tf.constant([[2, 3]])),
                    tf.raw_ops.Mod(x=f, y=tf.constant(-1.5)), tf.raw_ops.Mod(x=i, y=tf.constant(-3)),
                    tf.raw_ops.InTopK(predictions=f, targets=[1, 0], k=1), tf.raw_ops.Concat(concat_dim=1, values=[f, f]),
                    tf.raw_ops.Gather(params=f, indices=[1, 0, 1]), tf.raw_ops.Reverse(tensor=f, dims=[False, True]),
                    tf.raw_ops.BatchMatMul(x=tf.ones([2, 2, 3]), y=tf.ones([2, 3, 1]))])
    np.testing.assert_allclose(got[0], [[1, -0.5], [1 / 3, 0.25]], rtol=1e-7)
    np.testing.assert_array_equal(got[1], [[3, 0], [1, 1]])
    np.testing.assert_array_equal(got[2], [[1, -0.5], [0, 1]])
    np.testing.assert_array_equal(got[3], [[1, -2], [0, 1]])
    np.testing.assert_array_equal(got[4], [False, False])
    np.testing.assert_array_equal(got[5], np.concatenate([F, F], 1))
    np.testing.assert_array_equal(got[6], F[[1, 0, 1]])
    np.testing.assert_array_equal(got[7], F[:, ::-1])
    np.testing.assert_array_equal(got[8], np.full([2, 2, 1], 3.0))


def test_raw_only_math_and_array_ops_as_tf():
    with tf.Graph().as_default():
        f = tf.constant(F)
        got = _run([tf.raw_ops.ApproximateEqual(x=f, y=f + 1e-6, tolerance=1e-5),
                    tf.raw_ops.DataFormatDimMap(x=[0, 1, 2, 3, -1]), tf.raw_ops.DataFormatVecPermute(x=[1, 2, 3, 4]),
                    tf.raw_ops.DataFormatVecPermute(x=[1, 2, 3, 4], src_format="NCHW", dst_format="NHWC"),
                    tf.raw_ops.ScatterNdNonAliasingAdd(input=f, indices=[[0], [0]], updates=[[1., 1.], [2., 2.]]),
                    [tf.raw_ops.ToBool(input=f), tf.raw_ops.ToBool(input=tf.constant(0.)),
                     tf.raw_ops.ToBool(input=tf.zeros([0]))],
                    tf.raw_ops.InplaceAdd(x=f, i=[1], v=[[10., 10.]]), tf.raw_ops.InplaceUpdate(x=f, i=[0], v=[[9., 9.]]),
                    tf.raw_ops.Empty(shape=[2, 0], dtype=tf.float32)])
    assert got[0].all()
    np.testing.assert_array_equal(got[1], [0, 2, 3, 1, 1])
    np.testing.assert_array_equal(got[2], [1, 4, 2, 3])
    np.testing.assert_array_equal(got[3], [1, 3, 4, 2])
    np.testing.assert_array_equal(got[4], [[4, 1], [3, 4]])
    assert got[5] == [True, False, False]
    np.testing.assert_array_equal(got[6], [[1, -2], [13, 14]])
    np.testing.assert_array_equal(got[7], [[9, 9], [3, 4]])
    assert got[8].shape == (2, 0)


def test_matrix_diag_v2_ops_align_left():
    with tf.Graph().as_default():
        got = _run([tf.raw_ops.MatrixDiagV2(diagonal=[[1., 2.], [3, 4]], k=[0, 1], num_rows=-1, num_cols=-1,
                                            padding_value=0),
                    tf.raw_ops.MatrixDiagPartV2(input=tf.reshape(tf.range(9.), [3, 3]), k=[-1, 1], padding_value=9),
                    tf.raw_ops.MatrixSetDiagV2(input=tf.zeros([3, 3]), diagonal=[[1., 2., 5], [3., 4., 6]], k=[0, 1])])
    np.testing.assert_array_equal(got[0], [[3, 1], [0, 4]])
    np.testing.assert_array_equal(got[1], [[1, 5, 9], [0, 4, 8], [3, 7, 9]])
    np.testing.assert_array_equal(got[2], [[3, 1, 0], [0, 4, 2], [0, 0, 6]])


def test_gradients_as_tf():
    """d sum(t^2) / d f for each op; MatrixDiagPartV2's is TF's, whose gradient aligns RIGHT_LEFT."""
    with tf.Graph().as_default():
        f = tf.constant(F)
        outs = [tf.raw_ops.Concat(concat_dim=-1, values=[f, f * 2]), tf.raw_ops.Gather(params=f, indices=[[1], [1]]),
                tf.raw_ops.BatchMatMul(x=tf.reshape(f, [1, 2, 2]), y=tf.reshape(f, [1, 2, 2]), adj_y=True),
                tf.raw_ops.MatrixDiagPartV2(input=f, k=[0, 1], padding_value=0.), tf.raw_ops.InvGrad(y=f, dy=f * 3)]
        got = _run([tf.convert_to_tensor(tf.gradients(tf.reduce_sum(t * t), f)[0]) for t in outs])
    expected = [[[10, -20], [30, 40]], [[0, 0], [12, 16]], [[-40, -120], [280, 440]], [[2, 0], [0, 8]],
                [[54, -1728], [13122, 55296]]]
    for value, want in zip(got, expected):
        np.testing.assert_array_equal(value, want)
    check_gradient(lambda x, y: [tf.raw_ops.Div(x=x, y=y), tf.raw_ops.Inv(x=y)],
                   [np.array([[0.5, 2.0]]), np.array([[1.5], [3.0]])])


def test_errors_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 1"):
            tf.raw_ops.BatchMatMul(x=tf.ones([2, 2, 3]), y=tf.ones([1, 3, 2]))
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.raw_ops.Reverse(tensor=F, dims=[True])
        with pytest.raises(LookupError, match="Gradient explicitly disabled. Reason: b'nope'"):
            f = tf.constant(F)
            tf.gradients(tf.raw_ops.PreventGradient(input=f, message="nope"), f)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            _run(tf.raw_ops.Div(x=[1, 2], y=[0, 1]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="1D input must be of size 2 or 4, but got shape"):
            _run(tf.raw_ops.DataFormatVecPermute(x=[1, 2, 3]))
