"""Segment reductions against literals recorded from real TensorFlow 2.21 (`tf.compat.v1`): sorted, unsorted and
sparse forms, TF's runtime errors for unsorted or out-of-range ids, and numeric gradients."""

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf

DATA = np.array([[1., 2], [3, 4], [5, 6], [7, 8]], np.float32)
LOWEST, HIGHEST = -np.finfo(np.float32).max, np.finfo(np.float32).max


@pytest.mark.parametrize("fn, expected", [
    (tf.segment_sum, [[4, 6], [0, 0], [12, 14]]),
    (tf.math.segment_mean, [[2, 3], [0, 0], [6, 7]]),
    (tf.segment_max, [[3, 4], [0, 0], [7, 8]]),
    (tf.segment_min, [[1, 2], [0, 0], [5, 6]]),
    (tf.segment_prod, [[3, 8], [1, 1], [35, 48]]),
])
def test_sorted_segments(fn, expected):
    check_op(lambda d, i: fn(d, i), [DATA, np.array([0, 0, 2, 2], np.int32)], expected, dtype=np.float32,
             fully_defined=False)


def test_sorted_segment_mean_of_integers_truncates():
    check_op(lambda d: tf.segment_mean(d, [0, 0, 1]), [np.array([1, 2, -7], np.int32)], [1, -7], dtype=np.int32,
             fully_defined=False)


@pytest.mark.parametrize("fn, expected", [
    (tf.unsorted_segment_max, [[1, 2], [LOWEST, LOWEST], [7, 8], [LOWEST, LOWEST]]),
    (tf.math.unsorted_segment_min, [[1, 2], [HIGHEST, HIGHEST], [5, 6], [HIGHEST, HIGHEST]]),
    (tf.unsorted_segment_prod, [[1, 2], [1, 1], [35, 48], [1, 1]]),
    (tf.unsorted_segment_mean, [[1, 2], [0, 0], [6, 7], [0, 0]]),
    (tf.unsorted_segment_sqrt_n, [[1, 2], [0, 0], [8.485281944274902, 9.899495124816895], [0, 0]]),
])
def test_unsorted_segments_drop_negative_ids(fn, expected):
    check_op(lambda d: fn(d, [0, -1, 2, 2], 4), [DATA], expected, dtype=np.float32)


def test_unsorted_segment_mean_and_sqrt_n_of_unknown_rank_as_tf():
    """The counts are reshaped by the ranks at run time, so each row (not each column) is divided."""
    data = np.array([[1., 2], [3, 5], [5, 6], [7, 8]], np.float32)
    with tf.Graph().as_default():
        d, i = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
        mean, sqrt_n = tf.unsorted_segment_mean(d, i, 2), tf.unsorted_segment_sqrt_n(d, i, 2)
        with tf.Session() as sess:
            got = sess.run([mean, sqrt_n], {d: data, i: [0, 1, 1, 1]})
    np.testing.assert_allclose(got[0], [[1, 2], [5, 6.333333]], rtol=1e-6)
    np.testing.assert_allclose(got[1], [[1, 2], [8.660254, 10.969655]], rtol=1e-6)


def test_sparse_segments():
    check_op(lambda d: [tf.sparse_segment_sum(d, [0, 3, 1], [0, 0, 2]), tf.sparse_segment_mean(d, [0, 3, 1], [0, 0, 2]),
                        tf.sparse_segment_sqrt_n(d, [0, 3, 1], [0, 0, 2], num_segments=4)],
             [DATA], [[[8, 10], [0, 0], [3, 4]], [[4, 5], [0, 0], [3, 4]],
                      [[5.656854152679443, 7.071067810058594], [0, 0], [3, 4], [0, 0]]],
             dtype=np.float32, fully_defined=False)
    assert tf.sparse.segment_sum is tf.sparse_segment_sum and tf.sparse.segment_mean is tf.sparse_segment_mean
    assert tf.sparse.segment_sqrt_n is tf.sparse_segment_sqrt_n
    assert tf.sparse_segment_sqrt_n(DATA, [0, 1], [0, 0], num_segments=3).op.type == "SparseSegmentSqrtNWithNumSegments"
    assert tf.sparse_segment_sqrt_n(DATA, [0, 1], [0, 0], num_segments=3).shape.as_list() == [3, 2]


def test_sparse_segment_mean_and_sqrt_n_scale_by_the_reciprocal():
    """TF's sparse kernels multiply by 1/N (1/sqrt N) where the dense ones divide: bits recorded from TF 2.21."""
    x = np.float32(0.37) * np.array([11, 15, 17], np.float32)
    data = np.stack([x, np.zeros(3, np.float32), np.zeros(3, np.float32)])
    with tf.Session() as sess:
        mean, sqrt_n, dense = sess.run([tf.sparse_segment_mean(data, [0, 1, 2], [0, 0, 0]),
                                        tf.sparse_segment_sqrt_n([[22.], [0.]], [0, 1], [0, 0]),
                                        tf.segment_mean(data, [0, 0, 0])])
    np.testing.assert_array_equal(mean[0], np.float32([1.3566668, 1.8500001, 2.0966668]))
    assert sqrt_n[0, 0] == np.float32(15.556349)
    np.testing.assert_array_equal(dense[0], np.float32([1.3566667, 1.85, 2.0966666]))


def _run_error(tensor, feed):
    with tf.Session(graph=tensor.graph) as sess:
        sess.run(tensor, feed)


@pytest.mark.parametrize("ids, message", [
    ([0, 2, 1, 1], "segment ids are not increasing"),
    ([-1, 0, 0, 0], r"Segment id -1 out of range \[0, 1\), possibly because 'segment_ids' input is not sorted."),
    ([0, 0, 1], "segment_ids should be the same size as dimension 0 of input."),
    ([[0, 0], [1, 1]], "segment_ids should be a vector."),
])
def test_sorted_segment_errors(ids, message):
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match=message):
            _run_error(tf.segment_sum(DATA, p), {p: ids})


def test_segment_static_and_other_runtime_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.segment_sum(DATA, [[0, 0], [1, 1]])
        p, q = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"segment_ids\[1\] = 5 is out of range \[0, 2\)"):
            _run_error(tf.unsorted_segment_max(DATA, p, 2), {p: [0, 5, 1, 1]})
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Bad: indices\[1\] == 7 out of range \[0, 4\)"):
            _run_error(tf.sparse_segment_sum(DATA, q, p), {q: [0, 7, 1], p: [0, 0, 1]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
            _run_error(tf.sparse_segment_sum(DATA, q, p), {q: [0, 1, 2], p: [1, 0, 0]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="segment_ids and indices should have same size."):
            _run_error(tf.sparse_segment_sum(DATA, q, p), {q: [0, 1], p: [0, 0, 1]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids must be < num_segments"):
            _run_error(tf.sparse_segment_mean(DATA, q, p, num_segments=2), {q: [0, 1], p: [0, 3]})


def test_segment_gradients():
    x = np.array([[1.5, -2.0], [3.0, 0.5], [0.0, 6.0], [7.0, 0.0], [2.0, 0.0]])
    ids = [0, 0, 2, 2, 3]
    for fn in (tf.segment_sum, tf.segment_mean, tf.segment_max, tf.segment_min, tf.segment_prod):
        check_gradient(lambda d, fn=fn: tf.reshape(fn(d, ids), [4, 2]), [x])  # static rows unknown
    for fn in (tf.unsorted_segment_sum, tf.unsorted_segment_max, tf.unsorted_segment_min, tf.unsorted_segment_prod,
               tf.unsorted_segment_mean, tf.unsorted_segment_sqrt_n):
        check_gradient(lambda d, fn=fn: fn(d, [1, -1, 0, 1, 1], 3), [x])
    for fn in (tf.sparse_segment_sum, tf.sparse_segment_mean, tf.sparse_segment_sqrt_n):
        check_gradient(lambda d, fn=fn: tf.reshape(fn(d, [0, 3, 1, 1], [0, 0, 2, 2]), [3, 2]), [x])
        check_gradient(lambda d, fn=fn: fn(d, [0, 3, 1], [0, 0, 2], num_segments=4), [x])
        check_gradient(lambda d, fn=fn: fn(d, [0, 3, 1, 1], [0, 0, 2, 2], num_segments=3, sparse_gradient=True), [x])


GRAD = np.arange(6., dtype=np.float32).reshape(3, 2)


@pytest.mark.parametrize("op, expected", [
    ("SparseSegmentSum", [[4, 5], [0, 1], [0, 0], [4, 6], [0, 0]]),
    ("SparseSegmentMean", [[2, 2.5], [0, 0.5], [0, 0], [2, 3], [0, 0]]),
    ("SparseSegmentSqrtN", [[2.828427, 3.535534], [0, 0.70710677], [0, 0], [2.828427, 4.2426405], [0, 0]]),
])
def test_sparse_segment_grad_ops(op, expected):
    """The dense grad op, and the V2 one giving only the rows at the sorted unique indices."""
    with tf.Graph().as_default(), tf.Session() as sess:
        dense = getattr(tf.raw_ops, op + "Grad")(grad=GRAD, indices=[3, 1, 3, 0], segment_ids=[0, 0, 2, 2],
                                                 output_dim0=5)
        values, unique = getattr(tf.raw_ops, op + "GradV2")(grad=GRAD, indices=[3, 1, 3, 0], segment_ids=[0, 0, 2, 2],
                                                            dense_output_dim0=5)
        assert dense.shape.as_list() == [5, 2] and values.shape.as_list() == [None, 2]
        assert unique.shape.as_list() == [None]
        got, got_values, got_unique = sess.run([dense, values, unique])
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got_values, np.array(expected)[[0, 1, 3]], rtol=1e-6)
    assert got_unique.tolist() == [0, 1, 3]


def test_sparse_segment_grad_op_errors():
    grad_op = tf.raw_ops.SparseSegmentSumGrad
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 4 and 3\. Shapes are \[4\] and \[3\]\."):
            grad_op(grad=GRAD, indices=[3, 1, 3], segment_ids=[0, 0, 2, 2], output_dim0=5)
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            grad_op(grad=GRAD, indices=[0], segment_ids=[0], output_dim0=[5])
        q, p = tf.placeholder(tf.int32), tf.placeholder(tf.int32)
        out = grad_op(grad=GRAD, indices=q, segment_ids=p, output_dim0=5)
        for indices, ids, message in [([3, 1, 9, 0], [0, 0, 2, 2], r"Index 9 out of range \[0, 5\)\."),
                                      ([3, 1, 3, 0], [0, 0, 2, 3], "Invalid number of segments"),
                                      ([3, 1, 3, 0], [0, 0, 2, -1], r"Segment id -1 out of range \[0, 3\)\.")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                _run_error(out, {q: indices, p: ids})


def test_sparse_segment_gradient_graphs():
    """TF builds the grad ops: dense by default, IndexedSlices with `sparse_gradient` (as embedding_lookup_sparse
    does), so optimizers pick their SparseApply ops."""
    with tf.Graph().as_default():
        d = tf.constant(np.arange(10., dtype=np.float32).reshape(5, 2))
        dense = tf.gradients(tf.sparse.segment_mean(d, [3, 1, 3, 0], [0, 0, 2, 2]), d)[0]
        assert dense.op.type == "SparseSegmentMeanGrad" and dense.shape.as_list() == [5, 2]
        sparse = tf.gradients(tf.sparse.segment_sqrt_n(d, [3, 1, 3, 0], [0, 0, 2, 2], num_segments=4,
                                                       sparse_gradient=True), d)[0]
        assert isinstance(sparse, tf.IndexedSlices) and sparse.values.op.type == "SparseSegmentSqrtNGradV2"
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
        sp = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 1], tf.int64), [2, 3])
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(tf.reduce_sum(tf.nn.embedding_lookup_sparse(v, sp, None)))
        types = [op.type for op in tf.get_default_graph().get_operations()]
        assert "SparseApplyMomentum" in types and "ApplyMomentum" not in types


def test_sparse_segment_length_mismatch_is_tfs_shape_merge_error():
    with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 4 and 2. Shapes are "
                                         r"\[4\] and \[2\]."):
        tf.sparse.segment_sum(tf.zeros([4, 2]), [0, 2, 1, 3], [0, 1])


def test_unsorted_segment_gradients_of_unknown_rank_as_tf():
    """_GatherDropNegatives with ranks unknown while building: the negative ids' mask is widened to the
    gradient's rank when run (values recorded from TF 2.21)."""
    with tf.Graph().as_default():
        data = tf.placeholder_with_default(np.arange(6.0, dtype=np.float32).reshape(2, 3), None)
        ids = tf.placeholder_with_default([0, -1], None)
        grads = [tf.gradients(tf.unsorted_segment_sum(data, ids, 2), data)[0],
                 tf.gradients(tf.unsorted_segment_max(data, ids, 2), data)[0],
                 tf.gradients(tf.unsorted_segment_min(data, tf.placeholder_with_default([[0, 1, -1], [1, 1, 0]],
                                                                                        None), 2), data)[0]]
        with tf.Session() as sess:
            values = sess.run(grads)
    assert [v.tolist() for v in values] == [[[1, 1, 1], [0, 0, 0]], [[1, 1, 1], [0, 0, 0]], [[1, 1, 0], [0, 0, 0]]]
