"""tf.sparse.cross and tf.sparse.cross_hashed against the crosses and hashes real TensorFlow 2.21 computes."""

import pytest

import tensorweave.compat.v1 as tf


def _inputs():
    a = tf.SparseTensor(indices=[[0, 0], [1, 0], [1, 1]], values=["a", "b", "c"], dense_shape=[2, 2])
    b = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0]], values=tf.constant([1, 2, 3], tf.int64), dense_shape=[2, 3])
    d = tf.constant([["x", "y"], ["z", "w"]])
    e = tf.constant([[7], [8]], tf.int64)
    return a, b, d, e


FULL = [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]
CASES = {  # name -> (indices, values, dense_shape), TF's
    "cross": (FULL, [b"a_X_1_X_x", b"a_X_1_X_y", b"a_X_2_X_x", b"a_X_2_X_y", b"b_X_3_X_z", b"b_X_3_X_w",
                     b"c_X_3_X_z", b"c_X_3_X_w"], [2, 4]),
    "separator": ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]], [b"a+x", b"a+y", b"b+z", b"b+w", b"c+z", b"c+w"],
                  [2, 4]),
    "hashed": (FULL, [43144969564918260, 5928838386147229058, 1839699824895794331, 7972979813298003807,
                      5057131493469648809, 4492905631290968019, 8679131944673613281, 433808892080689301], [2, 4]),
    "buckets": ([[0, 0], [1, 0], [1, 1]], [6, 6, 9], [2, 2]),
    "hash_key": ([[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1]], [44, 42, 94, 84, 70, 70], [2, 4]),
    "single": ([[0, 0], [0, 1], [1, 0]], [b"1", b"2", b"3"], [2, 2]),
}


def test_crosses_and_hashes_as_tensorflow():
    with tf.Graph().as_default():
        a, b, d, e = _inputs()
        crosses = {
            "cross": tf.sparse.cross([a, b, d]),
            "separator": tf.sparse.cross([d, a], separator="+"),
            "hashed": tf.sparse.cross_hashed([a, b, d]),
            "buckets": tf.sparse.cross_hashed([a, e], num_buckets=10),
            "hash_key": tf.sparse.cross_hashed([b, d], num_buckets=100, hash_key=123),
            "single": tf.sparse.cross([b]),
        }
        for cross in crosses.values():
            assert (cross.indices.shape.as_list(), cross.values.shape.as_list(),
                    cross.dense_shape.shape.as_list()) == ([None, 2], [None], [2])
        assert crosses["cross"].values.op.type == "SparseCrossV2" and crosses["hashed"].values.dtype == tf.int64
        with tf.Session() as sess:
            values = sess.run(crosses)
    for name, (indices, expected, dense_shape) in CASES.items():
        got = values[name]
        assert (got.indices.tolist(), got.values.tolist(), got.dense_shape.tolist()) == (indices, expected,
                                                                                         dense_shape), name


def test_cross_errors():
    with tf.Graph().as_default():
        _, _, d, _ = _inputs()
        with pytest.raises(TypeError, match="Inputs must be a list"):
            tf.sparse.cross(d)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Dense inputs should be a matrix but received shape \[1\] at position 0"):
                sess.run(tf.sparse.cross([tf.constant(["a"])]))
            with pytest.raises(tf.errors.InvalidArgumentError, match="Expected batch size 2 got 1"):
                sess.run(tf.sparse.cross([d, tf.constant([["q"]])]))
            empty = sess.run(tf.sparse.cross([]))
    assert (empty.indices.shape, empty.values.shape, empty.dense_shape.tolist()) == ((0, 2), (0,), [0, 0])


def test_batch_mismatch_names_the_input_as_tf():
    sparse = tf.SparseTensor([[0, 0], [1, 0]], tf.constant(["a", "b"]), [2, 1])
    other = tf.SparseTensor([[0, 0], [2, 0]], tf.constant(["x", "y"]), [3, 1])
    dense = tf.constant([["x"], ["y"], ["z"]])
    with tf.Session() as sess:
        for crossed, where in [(tf.sparse.cross([sparse, other]), "at position 1"),
                               (tf.sparse.cross_hashed([sparse, tf.constant([["q"], ["r"]]), dense], 10),
                                "at dense tensor 1")]:
            with pytest.raises(tf.errors.InvalidArgumentError, match=f"Expected batch size 2 got 3 {where}"):
                sess.run(crossed.values)


def test_graph_names_as_tf():
    # recorded from TF: the separator is converted first (a plain Const); no SparseTensor scope is taken
    with tf.Graph().as_default() as g:
        a = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([3, 4], tf.int32), [2, 1])
        tf.sparse.cross([a, tf.constant([[1], [2]])], separator="+")
        after = tf.SparseTensor([[0, 0]], [1], [1, 1])
        assert [op.name for op in g.get_operations()] == [
            "Const", "SparseTensor/indices", "SparseTensor/dense_shape", "Const_1", "Const_2", "Cast", "Cast_1",
            "SparseCrossV2", "SparseTensor_2/indices", "SparseTensor_2/values", "SparseTensor_2/dense_shape"]
        assert after.indices.op.name == "SparseTensor_2/indices"
