"""`tf.sets` (SetSize and the dense/sparse set operations) against values, shapes and messages recorded from real
TensorFlow 2.21 (`tf.compat.v1`)."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

A = [[1, 2, 2, 5], [3, 4, 4, 4]]
B = [[2, 7], [4, 1]]


def _sparse() -> tf.SparseTensor:
    return tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 2]], [2, 9, 4, 8], [2, 3])


def _check(value, indices, values, dense_shape, dtype=np.int32):
    np.testing.assert_array_equal(value.indices, np.array(indices, np.int64).reshape(-1, len(dense_shape)))
    np.testing.assert_array_equal(value.values, np.array(values, dtype))
    assert value.values.dtype == np.dtype(dtype) and value.indices.dtype == np.int64
    np.testing.assert_array_equal(value.dense_shape, dense_shape)


def test_set_operations_dense_and_sparse():
    with tf.Graph().as_default(), tf.Session() as sess:
        a, b, sp = tf.constant(A), tf.constant(B), _sparse()
        other = tf.SparseTensor([[1, 1], [1, 2]], [4, 0], [2, 3])
        results = sess.run([tf.sets.intersection(a, b), tf.sets.union(a, sp), tf.sets.difference(a, sp),
                            tf.sets.set_difference(sp, a), tf.sets.difference(a, b, aminusb=False),
                            tf.sets.set_union(sp, other), tf.sets.set_intersection(sp, other),
                            tf.sets.intersection([[1, 2]], [[3]])])
        _check(results[0], [[0, 0], [1, 0]], [2, 4], [2, 1])
        _check(results[1], [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]], [1, 2, 5, 9, 3, 4, 8], [2, 4])
        _check(results[2], [[0, 0], [0, 1], [1, 0]], [1, 5, 3], [2, 2])
        _check(results[3], [[0, 0], [1, 0]], [9, 8], [2, 1])  # flipped to dense-sparse, b-a
        _check(results[4], [[0, 0], [1, 0]], [7, 1], [2, 1])
        _check(results[5], [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], [2, 9, 0, 4, 8], [2, 3])
        _check(results[6], [[1, 0]], [4], [2, 1])
        _check(results[7], [], [], [1, 0])
        strings = sess.run(tf.sets.union(tf.constant([[b"b", b"a"], [b"c", b"c"]]), [[b"a"], [b"ab"]]))
        _check(strings, [[0, 0], [0, 1], [1, 0], [1, 1]], [b"a", b"b", b"ab", b"c"], [2, 2], dtype=object)
        rank3 = sess.run(tf.sets.union(np.array([[[1, 1], [2, 0]]], np.int64), np.array([[[3], [0]]], np.int64)))
        _check(rank3, [[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1]], [1, 3, 0, 2], [1, 2, 2], dtype=np.int64)


def test_set_size():
    with tf.Graph().as_default(), tf.Session() as sess:
        assert tf.sets.size(_sparse()).shape.ndims is None
        np.testing.assert_array_equal(sess.run(tf.sets.size(_sparse())), np.array([2, 2], np.int32))
        repeated = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [1, 1, 0]], [3, 3, 1], [2, 2, 2])
        size = sess.run(tf.sets.set_size(repeated))
        assert size.dtype == np.int32
        np.testing.assert_array_equal(size, [[1, 0], [0, 1]])
        unsorted = tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [2, 2])
        np.testing.assert_array_equal(sess.run(tf.sets.size(unsorted, validate_indices=False)), [2, 0])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,0\] is out of order"):
            sess.run(tf.sets.size(unsorted))
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[1\] = \[0,3\] is out of bounds: need 0 <= index < \[2,2\]"):
            sess.run(tf.sets.size(tf.SparseTensor([[0, 1], [0, 3]], [1, 2], [2, 2])))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid rank 1\.") as info:
            sess.run(tf.sets.size(tf.SparseTensor([[0]], [1], [2])))
        assert info.value.op.type == "SetSize"


def test_set_static_shapes_and_build_errors():
    with tf.Graph().as_default():
        result = tf.sets.intersection(tf.constant(A), tf.constant(B))
        assert [t.shape.as_list() for t in (result.indices, result.values, result.dense_shape)] == [
            [None, 2], [None], [2]]
        p = tf.placeholder(tf.int32, [None, None, 3])
        assert tf.sets.union(p, p).indices.shape.as_list() == [None, 3]
        assert tf.sets.union(p, _sparse_rank3()).dense_shape.shape.as_list() == [3]
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            tf.sets.union([1, 2], [1])
        with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 3"):
            tf.sets.union([[1, 2]], [[[1]]])
        with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 2 and 3\. Shapes "
                                             r"are \[2\] and \[3\]\."):
            tf.sets.union([[1, 2], [3, 4]], [[1], [2], [3]])
        with pytest.raises(TypeError, match="'a' has invalid dtype `<dtype: 'float32'>` not in supported dtypes"):
            tf.sets.union([[1., 2]], [[1.]])
        with pytest.raises(TypeError, match="Types don't match, <dtype: 'int32'> vs <dtype: 'int64'>."):
            tf.sets.union([[1, 2]], tf.constant([[1]], tf.int64))
        with pytest.raises(TypeError, match="Expected `SparseTensor`, got "):
            tf.sets.size(tf.constant(A))
        with pytest.raises(TypeError, match="Invalid dtype `<dtype: 'float32'>` not in supported dtypes"):
            tf.sets.size(tf.SparseTensor([[0, 0]], [1.], [1, 1]))
        grads = tf.gradients(tf.cast(tf.sets.union(p, p).values, tf.float32), p)
        assert grads == [None]


def _sparse_rank3() -> tf.SparseTensor:
    return tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 3])


def test_set_runtime_shape_errors():
    with tf.Graph().as_default(), tf.Session() as sess:
        two_rows = tf.placeholder_with_default([[1, 2], [3, 4]], [None, None])
        three_rows = tf.placeholder_with_default([[1], [2], [3]], [None, None])
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Mismatched shapes \[2\] vs \[3\]"):
            sess.run(tf.sets.union(two_rows, three_rows).values)
        dense = tf.placeholder_with_default([[1, 2]], None)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Mismatched shapes \[1\] vs \[1,1\]"):
            sess.run(tf.sets.union(dense, tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1])).values)
        vector = tf.placeholder_with_default([1, 2], None)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Shape \[2\] has rank 1 < 2"):
            sess.run(tf.sets.union(vector, vector).values)
