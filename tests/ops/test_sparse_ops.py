"""Sparse tensors and their ops: values against NumPy or literals recorded from TensorFlow 2.21 (compat.v1),
static shapes, SparseTensorValue fetch and feed round trips, and TF's build and runtime errors."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_gradient, check_op, check_tensor, runtime_message


def _sparse(indices, values, shape):
    return tf.SparseTensor(indices, values, shape)


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _check_sparse(sp, indices, values, dense_shape, dtype, fully_defined=False):
    """Each component of `sp` against the recorded value; its static shape compatible with the fetched one."""
    with tf.Session() as sess:
        check_tensor(sp.indices, indices, dtype=np.int64, fully_defined=fully_defined, sess=sess)
        check_tensor(sp.values, values, dtype=dtype, fully_defined=fully_defined, sess=sess)
        check_tensor(sp.dense_shape, dense_shape, dtype=np.int64, fully_defined=fully_defined, sess=sess)


def _error_info(fetch, feed_dict=None):
    with pytest.raises(tf.errors.InvalidArgumentError) as info, tf.Session() as sess:
        sess.run(fetch, feed_dict)
    return info.value


def _error(fetch, feed_dict=None):
    return _error_info(fetch, feed_dict).message


# -- SparseTensor, SparseTensorValue, sparse_placeholder -------------------------------------------------

def test_sparse_tensor_properties_and_fetch():
    with tf.Graph().as_default() as graph:
        sp = _sparse([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        assert (sp.dtype, sp.shape.as_list(), sp.get_shape().as_list()) == (tf.float32, [3, 4], [3, 4])
        assert sp.op is sp.values.op and sp.graph is graph
        assert sp.indices.name == "SparseTensor/indices:0" and sp.indices.dtype == tf.int64
        assert tf.is_tensor(sp) and tf.SparseTensor is tf.sparse.SparseTensor
        dense = tf.sparse.to_dense(sp)
        assert sp.consumers() == [dense.op]
        with tf.Session() as sess:
            value = sess.run(sp)
            assert isinstance(value, tf.SparseTensorValue)
            np.testing.assert_array_equal(value.indices, [[0, 0], [1, 2]])
            assert value.dense_shape.tolist() == [3, 4]
            nested = sess.run({"a": [sp, dense]})
            assert isinstance(nested["a"][0], tf.SparseTensorValue)
            with sess.as_default():
                assert sp.eval().values.tolist() == [1.0, 2.0]
        again = tf.SparseTensor.from_value(value)
        assert again.shape.as_list() == [3, 4]
        assert tf.convert_to_tensor_or_sparse_tensor(value).dtype == tf.float32
    with pytest.raises(TypeError, match="is neither a SparseTensor nor SparseTensorValue"):
        tf.SparseTensor.from_value([1])
    with pytest.raises(RuntimeError, match="Sparse dtype mismatch. Requested: int32,  Actual: float32"):
        tf.convert_to_tensor_or_sparse_tensor(sp, dtype=tf.int32)
    with tf.Graph().as_default(), pytest.raises(ValueError):
        tf.SparseTensor([[0, 0]], [1.0, 2.0], [3, 4])


def test_sparse_placeholder_names_shapes_and_feeds():
    with tf.Graph().as_default() as graph:
        sp = tf.sparse_placeholder(tf.float32, [None, 3], name="sp")
        unnamed = tf.sparse.placeholder(tf.int32)
        assert [op.name for op in graph.get_operations()] == [
            "sp/shape_default", "sp/shape", "sp/values", "sp/indices", "Placeholder", "Placeholder_1",
            "Placeholder_2"]
        assert sp.shape.as_list() == [None, 3] and sp.indices.shape.as_list() == [None, 2]
        assert unnamed.shape.ndims is None and unnamed.dense_shape.shape.as_list() == [None]
        total = tf.sparse.reduce_sum(sp, 1)
        value = tf.SparseTensorValue(np.array([[0, 1], [1, 2]]), np.array([2.0, 5.0], np.float32), np.array([2, 3]))
        with tf.Session() as sess:
            assert sess.run(total, {sp: value}).tolist() == [2.0, 5.0]
            fetched = sess.run(sp, {sp: ([[0, 0]], [7.0], [1, 3])})  # a plain triple feeds too
            assert isinstance(fetched, tf.SparseTensorValue) and fetched.values.tolist() == [7.0]
            assert sess.run(unnamed.values, {unnamed: ([[0]], [4], [2])}).tolist() == [4]
            # TF zips a fed value's items with the three tensors: a dense array's rows go to indices and values
            with pytest.raises(ValueError, match=r"^Cannot feed value of shape \(2,\) for Tensor sp/indices:0, which "
                                                 r"has shape \(\?, 2\)$"):
                sess.run(sp, {sp: np.ones([2, 2])})


# -- SparseToDense, to_dense -----------------------------------------------------------------------------

def test_sparse_to_dense():
    check_op(lambda i, s, v: tf.sparse_to_dense(i, s, v, -1.0), [np.array([[0, 1], [1, 2]]), np.array([2, 3]),
                                                                np.array([5.0, 6.0], np.float32)],
             np.array([[-1, 5, -1], [-1, -1, 6]], np.float32))
    with tf.Graph().as_default():
        check_tensor(tf.sparse_to_dense([0, 2], [4], 7), [7, 0, 7, 0], dtype=np.int32)
        check_tensor(tf.sparse_to_dense([[1, 1], [0, 2]], [2, 3], [5.0, 6.0], validate_indices=False),
                     [[0, 0, 6], [0, 5, 0]], dtype=np.float32)
        sp = _sparse([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        check_tensor(tf.sparse.to_dense(sp, 9.0), [[1, 9, 9, 9], [9, 9, 2, 9], [9, 9, 9, 9]], dtype=np.float32)
        assert tf.sparse_tensor_to_dense is tf.sparse.to_dense
        partial = tf.sparse_to_dense(tf.placeholder(tf.int32, [None, 2]), tf.placeholder(tf.int32, [2]), 1.0)
        assert partial.shape.as_list() == [None, None]


@pytest.mark.parametrize("indices, validate, message", [
    ([[0, 1], [2, 2]], True, "indices[1] = [2,2] is out of bounds: need 0 <= index < [2,3]"),
    ([[0, -1]], True, "indices[0] = [0,-1] is out of bounds: need 0 <= index < [2,3]"),
    ([[1, 1], [0, 2]], True, "indices[1] = [0,2] is out of order. Many sparse ops require sorted indices.\n"
                             "    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n"),
    ([[0, 1], [0, 1]], True, "indices[1] = [0,1] is repeated"),
    ([[0, 1], [2, 2]], False, "Indices are not valid (out of bounds).  Shape: [2,3]"),
])
def test_sparse_to_dense_bad_indices(indices, validate, message):
    with tf.Graph().as_default():
        dense = tf.sparse_to_dense(indices, [2, 3], [5.0] * len(indices), validate_indices=validate)
        assert message in _error(dense)
        assert "SparseToDense" in _error(dense)


def test_sparse_to_dense_bad_values():
    with tf.Graph().as_default():
        dense = tf.sparse_to_dense(tf.placeholder_with_default(np.array([[0, 1], [1, 2]]), None), [2, 3],
                                   tf.placeholder_with_default([5.0, 6.0, 7.0], None))
        assert "sparse_values has incorrect shape [3], should be [] or [2]" in _error(dense)


# -- add -------------------------------------------------------------------------------------------------

def test_sparse_add():
    with tf.Graph().as_default():
        a = _sparse([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
        total = tf.sparse.add(a, _sparse([[0, 0], [1, 1], [2, 3]], [-1.0, 3.0, 4.0], [3, 4]))
        assert total.indices.shape.as_list() == [None, 2] and total.shape.as_list() == [3, 4]
        _check_sparse(total, [[0, 0], [1, 1], [1, 2], [2, 3]], [0, 3, 2, 4], [3, 4], np.float32)
        thresholded = tf.sparse_add(a, _sparse([[0, 0], [1, 2], [2, 3]], [-0.5, 0.1, 0.01], [3, 4]), threshold=0.6)
        _check_sparse(thresholded, [[1, 2], [2, 3]], [2.1, 0.01], [3, 4], np.float32)
        for dense_sum in (tf.sparse.add(a, tf.ones([3, 4])), tf.sparse.add(tf.ones([3, 4]), a)):
            check_tensor(dense_sum, [[2, 1, 1, 1], [1, 1, 3, 1], [1, 1, 1, 1]], dtype=np.float32)
        with pytest.raises(ValueError, match=r"Shapes \(3, 4\) and \(3, 5\) are incompatible"):
            tf.sparse.add(a, _sparse([[0, 0]], [1.0], [3, 5]))
        with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
            tf.sparse.add(tf.ones([1]), tf.ones([1]))
        assert ("Dimension 1 does not equal (no broadcasting is supported): sparse side 4 vs dense side 5"
                in _error(tf.sparse.add(a, tf.placeholder_with_default(tf.ones([3, 5]), None))))
        bad = tf.sparse.add(_sparse([[0, 0], [3, 2]], [1.0, 2.0], [3, 4]), tf.ones([3, 4]))
        assert ("Sparse tensor has an invalid index on dimension 0: a_indices(1,0) = 3, dense tensor shape: 3 4"
                in _error(bad))
        shape_b = tf.placeholder_with_default(np.array([3, 5], np.int64), [2])
        assert ("Operands' shapes do not match: got 4 and 5 for dimension 1"
                in _error(tf.sparse.add(a, tf.SparseTensor([[0, 0]], [1.0], shape_b))))


# -- concat, reshape, reorder, retain --------------------------------------------------------------------

def test_sparse_concat():
    with tf.Graph().as_default():
        joined = tf.sparse.concat(1, [_sparse([[0, 2], [1, 0], [1, 1]], ["a", "b", "c"], [2, 3]),
                                      _sparse([[0, 1], [0, 2]], ["d", "e"], [2, 4])])
        assert joined.indices.shape.as_list() == [5, 2] and joined.shape.as_list() == [2, 7]
        value = _run(joined)
        assert value.indices.tolist() == [[0, 2], [0, 4], [0, 5], [1, 0], [1, 1]]
        assert value.values.tolist() == [b"a", b"d", b"e", b"b", b"c"]
        a, b = _sparse([[0, 2], [1, 0]], [1, 2], [2, 3]), _sparse([[2, 1]], [3], [3, 2])
        expanded = tf.sparse_concat(1, [a, b], expand_nonconcat_dim=True)
        assert expanded.shape.as_list() == [3, 5]
        _check_sparse(expanded, [[0, 2], [1, 0], [2, 4]], [1, 2, 3], [3, 5], np.int32, fully_defined=True)
        assert ("Input shapes must match: expected 2 for dimension 0 but got 3 at position 1"
                in _error(tf.sparse.concat(1, [a, b])))


def test_sparse_reshape():
    with tf.Graph().as_default():
        sp = _sparse([[0, 0, 1], [1, 1, 2]], [1.0, 2.0], [2, 2, 3])
        reshaped = tf.sparse.reshape(sp, [3, -1])
        assert reshaped.shape.as_list() == [3, 4]
        _check_sparse(reshaped, [[0, 1], [2, 3]], [1, 2], [3, 4], np.float32, fully_defined=True)
        with pytest.raises(ValueError, match=r"Cannot reshape a tensor with 12 elements to shape \[5, None\] "
                                             r"\(10 elements\)."):
            tf.sparse_reshape(sp, [5, -1])
        unknown = tf.SparseTensor(sp.indices, sp.values, tf.placeholder_with_default(np.array([2, 2, 3]), None))
        assert ("Input to reshape is a SparseTensor with 12 dense values, but the requested shape requires a "
                "multiple of 5. input_shape=[2,2,3] output_shape=[5,1]" in _error(tf.sparse.reshape(unknown, [5, -1])))
        assert ("Input to reshape is a tensor with 12 dense values, but the requested shape has 10. "
                "input_shape=[2,2,3] output_shape=[5,2]" in _error(tf.sparse.reshape(unknown, [5, 2])))
        assert "only one output dimension may be -1, not both 0 and 1" in _error(tf.sparse.reshape(unknown, [-1, -1]))


def test_sparse_reorder_and_retain():
    with tf.Graph().as_default():
        sp = _sparse([[1, 0], [0, 3], [0, 1]], [1.0, 2.0, 3.0], [2, 4])
        ordered = tf.sparse.reorder(sp)
        assert ordered.indices.shape.as_list() == [3, 2] and ordered.shape.as_list() == [2, 4]
        _check_sparse(ordered, [[0, 1], [0, 3], [1, 0]], [3, 2, 1], [2, 4], np.float32, fully_defined=True)
        retained = tf.sparse_retain(sp, [True, False, True])
        _check_sparse(retained, [[1, 0], [0, 1]], [1, 3], [2, 4], np.float32)
        with pytest.raises(ValueError, match="Dimensions 3 and 2 are not compatible"):
            tf.sparse.retain(sp, [True, False])


# -- slice, split, transpose, fill_empty_rows ------------------------------------------------------------

def test_sparse_static_shape_is_what_tf_python_side_sees():
    """A SparseTensor's static shape comes from TF's Python constant_value_as_shape: a dense shape passed
    through (or a Const, Pack, Shape) is known; one a kernel computes (SparseSlice, SparseSplit, SparseCross,
    sparse_reset_shape's reduction) is unknown, as in TF, though shape inference could run it."""
    with tf.Graph().as_default():
        sp = _sparse([[0, 1], [1, 0], [2, 3]], [1.0, 2.0, 3.0], [3, 4])
        shapes = [tf.sparse_reorder(sp), tf.sparse.expand_dims(sp, 0), tf.sparse_slice(sp, [0, 0], [2, 2]),
                  tf.sparse_split(sp_input=sp, num_split=2, axis=1)[0], tf.sparse_reset_shape(sp),
                  tf.sparse_reset_shape(sp, [5, 5]), tf.sparse_reduce_sum_sparse(sp, 1)]
        assert [str(t.shape) for t in shapes] == ["(3, 4)", "(1, ?, ?)", "(?, ?)", "(?, ?)", "(?, ?)", "(5, 5)",
                                                  "<unknown>"]


def test_sparse_slice_and_split():
    with tf.Graph().as_default():
        sp = _sparse([[0, 1], [1, 3], [2, 0], [3, 4]], [1, 2, 3, 4], [4, 6])
        _check_sparse(tf.sparse.slice(sp, [1, 1], [2, 5]), [[0, 2]], [2], [2, 5], np.int32)
        _check_sparse(tf.sparse_slice(sp, [3, 3], [5, 5]), [[0, 1]], [4], [1, 3], np.int32)
        assert "Expected start to be a vector of length 2 but got length 1" in _error(
            tf.sparse.slice(sp, [3], [5, 5]).values)
        five = _sparse([[0, 1], [1, 3], [2, 0], [3, 4], [0, 5]], [1, 2, 3, 4, 5], [4, 6])
        pieces = tf.sparse.split(sp_input=five, num_split=4, axis=1)
        expected = [([[0, 1], [2, 0]], [1, 3], [4, 2]), ([[1, 1]], [2], [4, 2]), ([[3, 0]], [4], [4, 1]),
                    ([[0, 0]], [5], [4, 1])]
        for piece, (indices, values, shape) in zip(pieces, expected):
            _check_sparse(piece, indices, values, shape, np.int32)
        rows = tf.sparse_split(sp_input=five, num_split=3, axis=0)
        _check_sparse(rows[0], [[0, 1], [1, 3], [0, 5]], [1, 2, 5], [2, 6], np.int32)
        with pytest.raises(ValueError, match="Keyword arguments are required"):
            tf.sparse.split(five, 2, 1)
        bad = tf.sparse.split(sp_input=five, num_split=2, axis=tf.placeholder_with_default(np.int64(2), []))
        assert "Input axis should be in range [-2, 2), got 2" in _error(bad[0].values)


def test_sparse_transpose():
    with tf.Graph().as_default():
        sp = _sparse([[0, 1, 2], [1, 0, 1], [1, 2, 0]], [1.0, 2.0, 3.0], [2, 3, 4])
        reversed_ = tf.sparse.transpose(sp)
        assert reversed_.shape.as_list() == [4, 3, 2]
        _check_sparse(reversed_, [[0, 2, 1], [1, 0, 1], [2, 1, 0]], [3, 2, 1], [4, 3, 2], np.float32, True)
        _check_sparse(tf.sparse_transpose(sp, [1, 0, 2]), [[0, 1, 1], [1, 0, 2], [2, 1, 0]], [2, 1, 3], [3, 2, 4],
                      np.float32, True)


def test_sparse_fill_empty_rows():
    with tf.Graph().as_default():
        sp = _sparse([[0, 1], [0, 3], [2, 0], [3, 1], [2, 2]], [1.0, 2.0, 3.0, 4.0, 5.0], [5, 6])
        filled, empty = tf.sparse.fill_empty_rows(sp, -1.0)
        assert empty.shape.as_list() == [5] and filled.shape.as_list() == [5, 6]
        _check_sparse(filled, [[0, 1], [0, 3], [1, 0], [2, 0], [2, 2], [3, 1], [4, 0]], [1, 2, -1, 3, 5, 4, -1],
                      [5, 6], np.float32)
        check_tensor(empty, [False, True, False, False, True], dtype=bool)
    with tf.Graph().as_default():
        bad, _ = tf.sparse_fill_empty_rows(_sparse([[0, 1], [7, 3]], [1.0, 2.0], [5, 6]), -1.0)
        message = _error(bad.values)
        assert "indices(1, 0) is invalid: 7 >= 5" in message and "SparseFillEmptyRows/SparseFillEmptyRows" in message


# -- reductions ------------------------------------------------------------------------------------------

def _x():
    return _sparse([[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], [1.0, -2.0, 3.0, -4.0, 5.0], [4, 3])


@pytest.mark.parametrize("reduce, kwargs, expected", [
    (tf.sparse.reduce_sum, {}, 3.0),
    (tf.sparse.reduce_sum, {"axis": 1}, [-1, 3, 1, 0]),
    (tf.sparse.reduce_sum, {"axis": 0, "keepdims": True}, [[-3, 3, 3]]),
    (tf.sparse_reduce_sum, {"reduction_axes": -1}, [-1, 3, 1, 0]),
    (tf.sparse.reduce_max, {"axis": 1}, [1, 3, 5, 0]),
    (tf.sparse_reduce_max, {"axis": 0}, [1, 3, 5]),
])
def test_sparse_reduce(reduce, kwargs, expected):
    with tf.Graph().as_default():
        check_tensor(reduce(_x(), **kwargs), expected, dtype=np.float32)


def test_sparse_reduce_sparse_and_errors():
    with tf.Graph().as_default():
        negative = _sparse([[0, 1], [2, 0], [2, 2]], [-1.0, -4.0, -5.0], [4, 3])
        check_tensor(tf.sparse.reduce_max(negative, 1), [-1, 0, -4, 0], dtype=np.float32)  # present entries only
        _check_sparse(tf.sparse.reduce_sum_sparse(_x(), 1), [[0], [1], [2]], [-1, 3, 1], [4], np.float32)
        _check_sparse(tf.sparse_reduce_max_sparse(_x(), 0, keepdims=True), [[0, 0], [0, 1], [0, 2]], [1, 3, 5],
                      [1, 3], np.float32)
        assert "Invalid reduction dimension 2, for input with 2 dimensions." in _error(
            tf.sparse.reduce_sum(_x(), tf.placeholder_with_default(2, [])))
        unknown = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], tf.placeholder_with_default(np.array([2, 3]), None))
        check_tensor(tf.sparse.reduce_sum(unknown, 1), [1, 2], dtype=np.float32, fully_defined=False)


def test_sparse_reduce_out_of_range_indices_checks_only_the_flat_write_index():
    with tf.Graph().as_default():
        # TF's kernel checks the group's row-major index in the output: [0, 5] of [2, 3] lands on [1, 2]
        stray = _sparse([[0, 5, 0], [1, 0, 2]], [1.0, 2.0], [2, 3, 4])
        check_tensor(tf.sparse.reduce_sum(stray, 2), [[0, 0, 0], [2, 0, 1]], dtype=np.float32)
        check_tensor(tf.sparse.reduce_max(stray, 2, keepdims=True), [[[0], [0], [0]], [[2], [0], [1]]],
                     dtype=np.float32)
        for sp, axis, index, size in [(_sparse([[0, 1], [5, 3]], [1.0, 2.0], [3, 4]), 1, 5, 3),
                                      (_sparse([[0, -1, 0], [1, 0, 2]], [1.0, 2.0], [2, 3, 4]), 2, -1, 6)]:
            with pytest.raises(tf.errors.InternalError) as info, tf.Session() as sess:
                sess.run(tf.sparse.reduce_sum(sp, axis))
            assert runtime_message(info.value).split("\n")[0] == (
                f"Obtained a write index of {index} which is outside of bounds of [0, {size})")


# -- matmul, softmax, maximum/minimum, cwise -------------------------------------------------------------

@pytest.mark.parametrize("adjoint_a, adjoint_b", [(False, False), (True, False), (False, True), (True, True)])
def test_sparse_dense_matmul(adjoint_a, adjoint_b):
    dense_a = np.array([[1, 0, -2], [0, 3, 0], [-4, 0, 5], [0, 0, 0]], np.float32)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)[: (4 if adjoint_a else 3), :]
    b = b.T if adjoint_b else b
    a = dense_a.T if adjoint_a else dense_a
    expected = a @ (b.T if adjoint_b else b)
    with tf.Graph().as_default():
        check_tensor(tf.sparse.sparse_dense_matmul(_x(), b, adjoint_a=adjoint_a, adjoint_b=adjoint_b), expected)
    assert tf.sparse.matmul is tf.sparse_tensor_dense_matmul is tf.sparse.sparse_dense_matmul


def test_sparse_dense_matmul_dense_times_sparse_and_errors():
    with tf.Graph().as_default():
        product = tf.sparse.sparse_dense_matmul(np.arange(8.0, dtype=np.float32).reshape(2, 4), _x())
        check_tensor(product, [[-8, 3, 10], [-20, 15, 22]], dtype=np.float32)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.sparse.sparse_dense_matmul(_x(), np.ones((4, 2), np.float32))
        with pytest.raises(TypeError):
            tf.sparse.sparse_dense_matmul(_x(), np.ones((3, 2)))  # float64 b, as in TF
        message = _error(tf.sparse.sparse_dense_matmul(_x(), tf.placeholder_with_default(np.ones((4, 2), np.float32),
                                                                                         None)))
        assert "Cannot multiply A and B because inner dimension does not match: 3 vs. 4." in message
        assert "{{node SparseTensorDenseMatMul_3/SparseTensorDenseMatMul}}" in message  # the op under its wrapper's name scope
        ones = np.ones((3, 2), np.float32)
        assert "k (5) from index[0,1] out of bounds (>=3)" in _error(
            tf.sparse.sparse_dense_matmul(_sparse([[0, 5]], [1.0], [2, 3]), ones))
        assert "m (4) from index[0,0] out of bounds (>=2)" in _error(
            tf.sparse.sparse_dense_matmul(_sparse([[4, 1]], [1.0], [2, 3]), ones))


def test_sparse_softmax():
    with tf.Graph().as_default():
        sp = _sparse([[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], [1.0, 2.0, 3.0, 4.0, 6.0], [4, 3])
        soft = tf.sparse.softmax(sp)
        _check_sparse(soft, [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]],
                      np.array([0.26894143, 0.7310586, 1.0, 0.11920291, 0.880797], np.float32), [4, 3], np.float32,
                      fully_defined=True)
        assert soft.values.name == "SparseSoftmax/SparseSoftmax:0"
        three = _sparse([[0, 0, 0], [0, 0, 2], [0, 1, 1], [1, 0, 0]], [1.0, 2.0, 3.0, 4.0], [2, 2, 3])
        check_tensor(tf.sparse_softmax(three).values, np.array([0.26894143, 0.7310586, 1.0, 1.0], np.float32))


def test_sparse_maximum_minimum():
    with tf.Graph().as_default():
        a = _sparse([[0, 0], [1, 2]], [-1.0, 2.0], [3, 4])
        b = _sparse([[0, 0], [1, 1], [2, 3]], [-3.0, -3.0, 4.0], [3, 4])
        union = [[0, 0], [1, 1], [1, 2], [2, 3]]
        high = tf.sparse.maximum(a, b)
        assert high.indices.shape.as_list() == [None, None] and high.shape.as_list() == [3, 4]
        _check_sparse(high, union, [-1, 0, 2, 4], [3, 4], np.float32)
        _check_sparse(tf.sparse_minimum(a, b), union, [-3, -3, 0, 0], [3, 4], np.float32)
        assert "Operands' shapes do not match: got 4 and 5 for dimension 1" in _error(
            tf.sparse.maximum(a, _sparse([[0, 0]], [-3.0], [3, 5])).values)


def test_sparse_dense_cwise():
    with tf.Graph().as_default():
        product = _x() * tf.constant([1.0, 2.0, 3.0])
        assert product.values.op.name == "mul" and product.values.shape.as_list() == [5]
        check_tensor(product.values, [1, -6, 6, -4, 15], dtype=np.float32)
        check_tensor((_x() / tf.constant([[1.0], [2.0], [4.0], [8.0]])).values, [1, -2, 1.5, -1, 1.25],
                     dtype=np.float32)
        sp = _x()
        added = tf.raw_ops.SparseDenseCwiseAdd(sp_indices=sp.indices, sp_values=sp.values, sp_shape=sp.dense_shape,
                                               dense=tf.constant([1.0, 2.0, 3.0]))
        check_tensor(added, [2, 1, 5, -3, 8], dtype=np.float32)
        for dense, shape in (([1.0, 2.0], "[2]"), (np.ones((2, 4, 3), np.float32), "[2,4,3]")):
            assert ("SparseDenseBinaryOpShared broadcasts dense to sparse only; got incompatible shapes: [4,3] vs. "
                    f"{shape}" in _error((_x() * tf.constant(dense)).values))


# -- eye, from_dense -------------------------------------------------------------------------------------

def test_sparse_eye_and_from_dense():
    with tf.Graph().as_default():
        eye = tf.sparse.eye(3, 4, dtype=tf.int32)
        assert eye.shape.as_list() == [3, 4]
        _check_sparse(eye, [[0, 0], [1, 1], [2, 2]], [1, 1, 1], [3, 4], np.int32, fully_defined=True)
        _check_sparse(tf.sparse.eye(2), [[0, 0], [1, 1]], [1, 1], [2, 2], np.float32, fully_defined=True)
        sparse = tf.sparse.from_dense([[0, 1], [2, 0]])
        assert sparse.shape.as_list() == [2, 2]
        _check_sparse(sparse, [[0, 1], [1, 0]], [1, 2], [2, 2], np.int32)


def test_sparse_value_gradients():
    """SparseAddGrad, SparseSliceGrad and SparseFillEmptyRowsGrad as the gradients of SparseAdd, SparseSlice
    and SparseFillEmptyRows: TF's values, numeric checks through sparse.to_dense, and TF's refusal for
    SparseSparseMaximum."""
    with tf.Graph().as_default():
        a_val, b_val = tf.constant([1.0, 2.0, 3.0]), tf.constant([10.0, -2.0, 5.0])
        a = tf.SparseTensor([[0, 0], [1, 1], [2, 3]], a_val, [3, 4])
        b = tf.SparseTensor([[0, 1], [1, 1], [2, 0]], b_val, [3, 4])
        total = tf.sparse.add(a, b, threshold=0.5)
        weights = tf.constant([1.0, 2.0, 3.0, 4.0, 5.0])
        ga, gb = tf.gradients(tf.reduce_sum(total.values * weights[:tf.shape(total.values)[0]]), [a_val, b_val])
        c_val = tf.constant([1.0, 2.0, 3.0, 4.0])
        c = tf.SparseTensor([[0, 0], [0, 2], [2, 1], [3, 3]], c_val, [4, 4])
        sliced = tf.sparse.slice(c, [0, 1], [3, 3])
        gs = tf.gradients(tf.reduce_sum(sliced.values * tf.constant([7.0, 11.0])), c_val)[0]
        default = tf.constant(9.0)
        filled, _ = tf.sparse.fill_empty_rows(c, default)
        gf, gd = tf.gradients(tf.reduce_sum(filled.values * tf.range(1.0, 6.0)), [c_val, default])
        assert [t.op.type for t in (ga, gs, gf)] == ["SparseAddGrad", "SparseSliceGrad", "SparseFillEmptyRowsGrad"]
        with tf.Session() as sess:
            values = sess.run([ga, gb, gs, gf, gd])
        for got, want in zip(values, [[1, 0, 4], [2, 0, 3], [0, 7, 11, 0], [1, 2, 4, 5], 3]):
            np.testing.assert_array_equal(got, want)
        with pytest.raises(NotImplementedError, match="Gradient for SparseSparseMaximum is not implemented."):
            tf.gradients(tf.sparse.maximum(a, b).values, a_val)
    idx = [[0, 0], [1, 1], [2, 3]]
    check_gradient(lambda v, w: tf.sparse.to_dense(tf.sparse.add(tf.SparseTensor(idx, v, [3, 4]),
                                                                 tf.SparseTensor([[1, 1], [2, 0]], w, [3, 4]))),
                   [np.array([1.0, 2.0, 3.0]), np.array([0.5, 4.0])])
    check_gradient(lambda v: tf.reshape(tf.sparse.to_dense(tf.sparse.slice(tf.SparseTensor(idx, v, [3, 4]),
                                                                            [1, 1], [2, 2])), [2, 2]),
                   [np.array([1.0, 2.0, 3.0])])
    check_gradient(lambda v, d: tf.reshape(tf.sparse.to_dense(tf.sparse.fill_empty_rows(tf.SparseTensor(
        [[0, 0], [2, 3]], v, [4, 4]), d)[0]), [4, 4]), [np.array([1.0, 2.0]), np.array(9.0)])


def test_ragged_fill_empty_rows_and_its_gradient():
    """Values, errors and gradients recorded from TF 2.21."""
    with tf.Graph().as_default(), tf.Session() as sess:
        values, default = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant(-1.0)
        out = tf.ragged_fill_empty_rows(tf.constant([0, 0, 2, 4], tf.int64), values, tf.constant(6, tf.int64), default)
        assert [t.shape.as_list() for t in out] == [[None], [None], [None], [4]]
        rowids, filled, empty, reverse = sess.run(out)
        assert rowids.tolist() == [0, 0, 1, 2, 3, 4, 5] and filled.tolist() == [1, 2, -1, 3, -1, 4, -1]
        assert empty.tolist() == [False, True, False, True, False, True] and reverse.tolist() == [0, 1, 3, 5]
        d_values, d_default = sess.run(tf.ragged_fill_empty_rows_grad(out[3], tf.constant([10.0, 20, 30, 40, 50, 60, 70])))
        assert d_values.tolist() == [10, 20, 40, 60] and d_default == 150
        grads = sess.run(tf.gradients(out.output_values * tf.range(7.0), [values, default]))
        assert grads[0].tolist() == [0, 1, 3, 5] and grads[1] == 12
        unsorted = sess.run(tf.ragged_fill_empty_rows(tf.constant([0, 2, 1], tf.int64), [1.0, 2.0, 3.0],
                                                      tf.constant(4, tf.int64), 0.0))
        assert unsorted.output_values.tolist() == [1, 3, 2, 0] and unsorted.reverse_index_map.tolist() == [0, 2, 1]
        for rowid, nrows, message in [([0, 5], 3, r"indices\(1, 0\) is invalid: 5 >= 3"),
                                      ([0, 1], -1, "Expected shape dimensions to be non-negative, got -1")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                sess.run(tf.ragged_fill_empty_rows(tf.constant(rowid, tf.int64), [1.0, 2.0],
                                                   tf.constant(nrows, tf.int64), 0.0))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 1 and 2"):
            tf.ragged_fill_empty_rows(tf.constant([0], tf.int64), [1.0, 2.0], tf.constant(3, tf.int64), 0.0)


def test_unsorted_operands_as_tfs_kernels_take_them():
    """TF's kernels take sparse operands as sorted: softmax writes its values in sorted order, and the binary
    maximum/minimum merge-walk the lists as given (values recorded from TF 2.21)."""
    a = tf.SparseTensor([[1, 0], [0, 1], [0, 0]], [1.0, 2.0, 3.0], [2, 2])
    b = tf.SparseTensor([[0, 0], [0, 1], [1, 1]], [-1.0, 5.0, -2.0], [2, 2])
    with tf.Session() as sess:
        softmax, maximum, minimum = sess.run([tf.sparse.softmax(a).values, tf.sparse.maximum(a, b),
                                              tf.sparse.minimum(b, a)])
    np.testing.assert_allclose(softmax, [0.7310586, 0.26894143, 1.0], rtol=1e-6)
    walked = [[0, 0], [0, 1], [1, 0], [0, 1], [0, 0], [1, 1]]
    assert maximum.indices.tolist() == walked and minimum.indices.tolist() == walked
    assert maximum.values.tolist() == [0, 5, 1, 2, 3, 0] and minimum.values.tolist() == [-1, 0, 0, 0, 0, -2]


def test_concat_and_eye_dense_shapes_are_named_as_tf():
    with tf.Graph().as_default():
        a = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
        assert tf.sparse.concat(1, [a, a]).dense_shape.op.name == "Const"
        eye = tf.sparse.eye(3, 2)
        assert (eye.dense_shape.op.name, eye.dense_shape.op.type) == ("eye/SparseTensor/dense_shape", "Pack")


def test_invalid_indices_as_tf_takes_them():
    # recorded from TF: reshape divides each offset down in C's arithmetic, unchecked; maximum/minimum walk
    # a repeated index as TF's merge does (twice) and check bounds; split checks bounds
    with tf.Graph().as_default():
        out_of_range = _sparse([[0, 0], [3, 2]], [1.0, 2.0], [2, 3])
        negative = _sparse([[0, -1], [1, 2]], [1.0, 2.0], [2, 3])
        repeated = _sparse([[0, 1], [0, 1]], [1.0, 2.0], [2, 3])
        good = _sparse([[0, 1], [1, 2]], [3.0, 4.0], [2, 3])
        _check_sparse(tf.sparse.reshape(out_of_range, [3, 2]), [[0, 0], [5, 1]], [1, 2], [3, 2], np.float32)
        _check_sparse(tf.sparse.reshape(negative, [3, 2]), [[0, -1], [2, 1]], [1, 2], [3, 2], np.float32)
        _check_sparse(tf.sparse.maximum(repeated, good), [[0, 1], [0, 1], [1, 2]], [3, 2, 4], [2, 3], np.float32)
        _check_sparse(tf.sparse.minimum(repeated, repeated), [[0, 1], [0, 1]], [1, 2], [2, 3], np.float32)
        for fetch, where in [(tf.sparse.maximum(out_of_range, good), "indices[1, :] = [3, 2]"),
                             (tf.sparse.minimum(good, negative), "indices[0, :] = [0, -1]"),
                             (tf.sparse.split(sp_input=out_of_range, num_split=3, axis=1)[0].values,
                              "indices[1, :] = [3, 2]")]:
            assert runtime_message(_error_info(fetch)).split("\n")[0] == f"Sparse index tuple {where} is out of bounds"


def test_concat_of_one_input_shape_errors_and_softmax_rank_message():
    with tf.Graph().as_default():
        one = _sparse([[0, 1]], [1.0], [3, 4])
        assert tf.sparse.concat(0, [one]) is one  # TF's degenerate case: no op
        with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 2 and 1 for '\{\{node SparseConcat"):
            tf.sparse.concat(0, [one, _sparse([[0]], [1.0], [4])])
        vector = _sparse([[0]], [1.0], [3])
        assert runtime_message(_error_info(tf.sparse.softmax(vector))).split("\n")[0] == (
            "Input should have rank >= 2, but received shape: 3")


def test_deserialize_sparse_of_one_and_of_batches_of_serialized_sparse_tensors():
    """TF 2.21's DeserializeSparse: a [3] serialized sparse tensor, or [..., 3] stacked along the leading dims."""
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [1, 2], [1, 3]], [1., 2., 3.], [2, 4])
        many = tf.io.serialize_many_sparse(sp)
        one = tf.raw_ops.DeserializeSparse(serialized_sparse=tf.io.serialize_sparse(sp), dtype=tf.float32)
        rows = tf.raw_ops.DeserializeSparse(serialized_sparse=many, dtype=tf.float32)
        stacked = tf.raw_ops.DeserializeSparse(serialized_sparse=tf.stack([many, many]), dtype=tf.float32)
        assert [t.shape.as_list() for t in one] == [[None, None], [None], [None]]
        with tf.Session() as sess:
            got_one, got_rows, got_stacked = sess.run([one, rows, stacked])
        for indices, values, dense_shape in (got_one, got_rows):
            assert indices.tolist() == [[0, 0], [1, 2], [1, 3]] and values.tolist() == [1., 2., 3.]
            assert dense_shape.tolist() == [2, 4]
        assert got_stacked[0].tolist() == [[0, 0, 0], [0, 1, 2], [0, 1, 3], [1, 0, 0], [1, 1, 2], [1, 1, 3]]
        assert got_stacked[2].tolist() == [2, 2, 4]
