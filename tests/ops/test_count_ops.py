"""tf.sparse.bincount (DenseCountSparseOutput, SparseCountSparseOutput) against real TensorFlow 2.21's results."""

import pytest

import tensorweave.compat.v1 as tf


def test_bincount_as_tensorflow():
    with tf.Graph().as_default():
        v = tf.constant([[1, 2, 2], [3, 1, 1]], tf.int64)
        sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], tf.constant([5, 2, 5], tf.int64), [2, 4])
        sp_weights = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [0.5, 1.5, 2.0], [2, 4])
        cases = [  # (counts, op type, static indices shape, dtype, TF's indices, values, dense_shape)
            (tf.sparse.bincount(v), "DenseCountSparseOutput", [None, 1], tf.int64, [[1], [2], [3]], [3, 2, 1], [4]),
            (tf.sparse.bincount(v, axis=-1), "DenseCountSparseOutput", [None, 2], tf.int64,
             [[0, 1], [0, 2], [1, 1], [1, 3]], [1, 2, 2, 1], [2, 4]),
            (tf.sparse.bincount(v, axis=-1, binary_output=True), "DenseCountSparseOutput", [None, 2], tf.int64,
             [[0, 1], [0, 2], [1, 1], [1, 3]], [1, 1, 1, 1], [2, 4]),
            (tf.sparse.bincount(v, minlength=6), "DenseCountSparseOutput", [None, 1], tf.int64, [[1], [2], [3]],
             [3, 2, 1], [6]),
            (tf.sparse.bincount(v, maxlength=2, axis=-1), "DenseCountSparseOutput", [None, 2], tf.int64,
             [[0, 1], [1, 1]], [1, 2], [2, 2]),
            (tf.sparse.bincount(v, maxlength=5), "DenseCountSparseOutput", [None, 1], tf.int64, [[1], [2], [3]],
             [3, 2, 1], [5]),
            (tf.sparse.bincount(v, maxlength=3, minlength=5), "DenseCountSparseOutput", [None, 1], tf.int64,
             [[1], [2]], [3, 2], [3]),
            (tf.sparse.bincount(sp), "DenseCountSparseOutput", [None, 1], tf.int64, [[2], [5]], [1, 2], [6]),
            (tf.sparse.bincount(sp, axis=-1, weights=sp_weights), "SparseCountSparseOutput", [None, 2], tf.float32,
             [[0, 2], [0, 5], [1, 5]], [1.5, 0.5, 2.0], [2, 6]),
            (tf.sparse.bincount(v, weights=tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), axis=-1),
             "DenseCountSparseOutput", [None, 2], tf.float32, [[0, 1], [0, 2], [1, 1], [1, 3]], [1.0, 5.0, 11.0, 4.0],
             [2, 4]),
            (tf.sparse.bincount(tf.constant([1, 2, 2])), "DenseCountSparseOutput", [None, 1], tf.int32, [[1], [2]],
             [1, 2], [3]),
            (tf.sparse.bincount(tf.constant([], tf.int64)), "DenseCountSparseOutput", [None, 1], tf.int64, [], [],
             [1]),
            (tf.sparse.bincount(tf.constant([[0, 0]]), axis=-1, minlength=3), "DenseCountSparseOutput", [None, 2],
             tf.int32, [[0, 0]], [2], [1, 3]),
        ]
        with tf.Session() as sess:
            results = sess.run([c[0] for c in cases])
            with pytest.raises(tf.errors.InvalidArgumentError, match="Input values must all be non-negative"):
                sess.run(tf.sparse.bincount(tf.constant([-1, 2])))
        with pytest.raises(ValueError, match="Unsupported value for argument axis=1. Only 0 and -1 are currently "
                                             "supported."):
            tf.sparse.bincount(v, axis=1)
    for (counts, op_type, static, dtype, indices, values, dense_shape), got in zip(cases, results):
        assert (counts.values.op.type, counts.indices.shape.as_list(), counts.values.dtype) == (op_type, static, dtype)
        assert (got.indices.tolist(), got.values.tolist(), got.dense_shape.tolist()) == (indices, values, dense_shape)


def test_sparse_bincount_weights_checks_as_tensorflow():
    """TF's validate_sparse_weights: weights of a SparseTensor must be a SparseTensor, with its indices (asserted
    when run); weights exclude binary_output."""
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], tf.constant([1, 3, 3], tf.int64), [2, 4])
        w = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], tf.constant([0.5, 2.0, 1.0]), [2, 4])
        other = tf.SparseTensor([[0, 0], [0, 1], [1, 1]], tf.constant([0.5, 2.0, 1.0]), [2, 4])
        with pytest.raises(ValueError, match="Argument `weights` must be a SparseTensor if `values` is a "
                                             "SparseTensor. Received weights=Tensor"):
            tf.sparse.bincount(sp, weights=tf.constant([1.0, 2, 3]))
        with pytest.raises(ValueError, match="Arguments `binary_output` and `weights` are mutually exclusive"):
            tf.sparse.bincount(sp, weights=w, binary_output=True)
        with pytest.raises(tf.errors.InvalidArgumentError, match="'weights' and 'values' must have the same "
                                                                 "indices."):  # known while building, as in TF
            tf.sparse.bincount(sp, weights=other, axis=-1)
        with tf.Session() as sess:
            result = sess.run(tf.sparse.bincount(sp, weights=w))
            assert result.indices.tolist() == [[1], [3]] and result.values.tolist() == [0.5, 3.0]
