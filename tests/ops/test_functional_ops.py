"""`tf.map_fn`, `tf.scan`, `tf.foldl` and `tf.foldr`: values against NumPy or literals, static shapes, TF's
graph for a small map and TF's errors (recorded from TensorFlow 2.21, `tf.compat.v1`, v2 behaviour disabled)."""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_tensor


def test_map_fn_builds_tfs_graph():
    with tf.Graph().as_default() as graph:
        result = tf.map_fn(lambda x: x * 2., tf.constant([[1., 2.], [3., 4.]]))
        names = [(op.name, op.type) for op in graph.get_operations()]
    assert result.name == "map/TensorArrayStack/TensorArrayGatherV3:0"
    assert names[:3] == [("Const", "Const"), ("map/TensorArray/size", "Const"), ("map/TensorArray", "TensorArrayV3")]
    assert [n for n, _ in names[12:]] == [
        "map/Const", "map/TensorArray_1/size", "map/TensorArray_1", "map/while/maximum_iterations",
        "map/while/iteration_counter", "map/while/Enter", "map/while/Enter_1", "map/while/Enter_2", "map/while/Merge",
        "map/while/Merge_1", "map/while/Merge_2", "map/while/Less", "map/while/Less/Enter", "map/while/Less_1/y",
        "map/while/Less_1", "map/while/LogicalAnd", "map/while/LoopCond", "map/while/Switch", "map/while/Switch_1",
        "map/while/Switch_2", "map/while/Identity", "map/while/Identity_1", "map/while/Identity_2", "map/while/add/y",
        "map/while/add", "map/while/TensorArrayReadV3", "map/while/TensorArrayReadV3/Enter",
        "map/while/TensorArrayReadV3/Enter_1", "map/while/mul/y", "map/while/mul",
        "map/while/TensorArrayWrite/TensorArrayWriteV3", "map/while/TensorArrayWrite/TensorArrayWriteV3/Enter",
        "map/while/add_1/y", "map/while/add_1", "map/while/NextIteration", "map/while/NextIteration_1",
        "map/while/NextIteration_2", "map/while/Exit", "map/while/Exit_1", "map/while/Exit_2",
        "map/TensorArrayStack/Const", "map/TensorArrayStack/range/start", "map/TensorArrayStack/range/delta",
        "map/TensorArrayStack/range", "map/TensorArrayStack/TensorArrayGatherV3"]


def test_map_fn_values_and_shapes():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default():
        check_tensor(tf.map_fn(lambda v: v * v, tf.constant(x)), x * x)
        pair = tf.map_fn(lambda p: (p[0] + p[1], p[0] * p[1]), (tf.constant([1., 2.]), tf.constant([3., 4.])),
                         dtype=(tf.float32, tf.float32))
        check_tensor(pair[0], np.array([4., 6.], np.float32))
        check_tensor(pair[1], np.array([3., 8.], np.float32))
        nested = tf.map_fn(lambda d: {"s": tf.reduce_sum(d["a"]), "n": tf.cast(d["b"], tf.float32)},
                           {"a": tf.constant(x), "b": tf.constant([1, 2, 3, 4])},
                           dtype={"s": tf.float32, "n": tf.float32})
        check_tensor(nested["s"], x.sum(axis=1))
        check_tensor(nested["n"], np.array([1., 2., 3., 4.], np.float32))
        fed = tf.placeholder(tf.float32, [None, 3])
        sliced = tf.map_fn(lambda v: v[:2], fed)
        assert sliced.shape.as_list() == [None, 2]
        check_tensor(sliced, x[:, :2], {fed: x}, fully_defined=False)


def test_scan():
    x = np.array([1., 2., 3.], np.float32)
    with tf.Graph().as_default():
        check_tensor(tf.scan(lambda a, v: a + v, tf.constant(x)), np.cumsum(x))
        check_tensor(tf.scan(lambda a, v: a * v, tf.constant(x), initializer=tf.constant(2.), reverse=True),
                     np.array([12., 12., 6.], np.float32))
        check_tensor(tf.scan(lambda a, v: a + v, tf.constant(x), reverse=True), np.cumsum(x[::-1])[::-1])
        both = tf.scan(lambda a, v: (a[0] + v, a[1] * v), tf.constant(x),
                       initializer=(tf.constant(0.), tf.constant(1.)))
        check_tensor(both[0], np.cumsum(x))
        check_tensor(both[1], np.cumprod(x))
        fed = tf.placeholder(tf.float32, [None, 3])
        assert tf.scan(lambda a, v: a + v, fed).shape.as_list() == [None, 3]


def test_folds_on_a_matrix():
    m = np.array([[1., 2.], [3., 4.], [5., 6.]], np.float32)
    with tf.Graph().as_default():
        check_tensor(tf.foldl(lambda a, v: a + v, tf.constant(m)), m.sum(axis=0))
        check_tensor(tf.foldr(lambda a, v: a * 10 + v, tf.constant([1., 2., 3.])), np.float32(321.))
        check_tensor(tf.foldl(lambda a, v: a * 10 + v, tf.constant([1., 2., 3.]), initializer=tf.constant(0.)),
                     np.float32(123.))
        check_tensor(tf.foldr(lambda a, v: a - v, tf.constant(m), initializer=tf.zeros([2])), -m.sum(axis=0))


def test_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Elements in elems must be 1\\+ dimensional Tensors, not scalars"):
            tf.map_fn(lambda x: x, tf.constant(1.))
        with pytest.raises(ValueError, match=re.escape("elems must be a Tensor or (possibly nested) sequence of "
                                                       "Tensors. Got [], which does not contain any Tensors.")):
            tf.map_fn(lambda x: x, [])
        with pytest.raises(ValueError, match="The two structures don't have the same nested structure."):
            tf.map_fn(lambda x: (x, x), tf.constant([1.]))
        with pytest.raises(AttributeError, match="'int' object has no attribute '__name__'"):
            tf.foldr(3, tf.constant([1., 2., 3.]))


def test_vectorized_map_structures_and_gradients():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
        w = tf.Variable([[1., 2.], [3., 4.]])
        r = tf.vectorized_map(lambda e: tf.matmul(e[None], w)[0], x)
        assert (r.shape.as_list(), r.dtype) == ([3, 2], tf.float32)
        nested = tf.vectorized_map(lambda e: (e[0] * 2, {"s": tf.cast(tf.reduce_sum(e[1]), tf.int32)}), (x, x))
        assert nested[1]["s"].shape.as_list() == [3] and nested[1]["s"].dtype == tf.int32
        constant = tf.vectorized_map(lambda e: tf.constant(1.0), x)
        ph = tf.placeholder(tf.float32, [None, 2])
        fed = tf.vectorized_map(lambda e: e + 1, ph)
        assert fed.shape.as_list() == [None, 2]
        grads = tf.gradients(tf.reduce_sum(r), [w, x])
        with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
            tf.vectorized_map(lambda e: e, (x, tf.zeros([4])))
        with tf.Session() as sess:
            sess.run(w.initializer)
            values = sess.run([r, nested, constant] + grads)
            np.testing.assert_array_equal(values[0], [[3, 4], [11, 16], [19, 28]])
            np.testing.assert_array_equal(values[1][0], [[0, 2], [4, 6], [8, 10]])
            np.testing.assert_array_equal(values[1][1]["s"], [1, 5, 9])
            np.testing.assert_array_equal(values[2], [1, 1, 1])
            np.testing.assert_array_equal(values[3], [[6, 6], [9, 9]])  # recorded from TF 2.21
            np.testing.assert_array_equal(values[4], [[3, 7]] * 3)
            np.testing.assert_array_equal(sess.run(fed, {ph: np.ones([4, 2])}), np.full([4, 2], 2.0))
            assert sess.run(tf.vectorized_map(lambda e: e, tf.zeros([0, 2]))).shape == (0, 2)


def test_map_fn_stacks_sparse_results_of_a_sparse_tensor_spec():
    """Literals from TF 2.21: each row's SparseTensor stacked along a new first dimension."""
    x = tf.constant([[1., 0.], [0., 2.], [3., 3.]])
    r = tf.map_fn(lambda t: tf.sparse.from_dense(t), x, fn_output_signature=tf.SparseTensorSpec([2], tf.float32))
    assert [r.indices.shape.as_list(), r.dense_shape.shape.as_list()] == [[None, 2], [2]]
    assert r.shape.as_list() == [3, 2]  # the batched spec's shape, as TF's (a constant dense_shape)
    pair = tf.map_fn(lambda t: (t[0], tf.sparse.from_dense(t[None])), x,
                     fn_output_signature=(tf.TensorSpec([], tf.float32), tf.SparseTensorSpec(None, tf.float32)))
    with tf.Session() as s:
        value, (firsts, stacked) = s.run([r, pair])
    assert value.indices.tolist() == [[0, 0], [1, 1], [2, 0], [2, 1]]
    assert value.values.tolist() == [1., 2., 3., 3.] and value.dense_shape.tolist() == [3, 2]
    assert firsts.tolist() == [1., 0., 3.] and stacked.dense_shape.tolist() == [3, 1, 2]
    assert stacked.indices.tolist() == [[0, 0, 0], [1, 0, 1], [2, 0, 0], [2, 0, 1]]


def test_gradient_of_nested_map_fn_pops_the_inner_tensor_arrays_handles():
    """The outer loop's gradient keeps each iteration's inner TensorArray handle on a resource stack."""
    x = tf.placeholder(tf.float32, [2, 3])
    r = tf.map_fn(lambda row: tf.map_fn(lambda e: e * e, row), x)
    g = tf.gradients(r, x)[0]
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(g, {x: value}), 2 * value)
