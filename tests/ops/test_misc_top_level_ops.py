"""sort, argsort, repeat, ensure_shape, timestamp, lbeta, required_space_to_batch_paddings,
clip_by_average_norm and the sparse helpers (expand_dims, reset_shape, to_indicator, mask) against NumPy and
values and messages recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import time

import numpy as np
import pytest
from op_testing import check_gradient, check_op

import tensorweave.compat.v1 as tf


def test_sort_and_argsort():
    check_op(tf.sort, [np.array([3, 1, 2], np.int32)], np.array([1, 2, 3], np.int32))
    check_op(lambda x: tf.argsort(x, direction="DESCENDING"), [np.array([3., 1, 2, 1], np.float32)],
             np.array([0, 2, 1, 3], np.int32))
    check_op(lambda x: tf.sort(x, axis=0, direction="DESCENDING"), [np.array([[3, 1], [0, 5]], np.int32)],
             np.array([[3, 5], [0, 1]], np.int32))
    check_op(lambda x: tf.argsort(x, stable=True), [np.array([2, 1, 1, 0], np.int32)], np.array([3, 1, 2, 0], np.int32))
    check_op(tf.sort, [np.array([3, 1, 200], np.uint8)], np.array([1, 3, 200], np.uint8))
    extremes = np.array([np.iinfo(np.int32).min, 5, np.iinfo(np.int32).max, -1], np.int32)
    check_op(tf.sort, [extremes], np.sort(extremes))
    x = np.random.RandomState(0).randn(3, 4, 5)
    check_op(lambda t: tf.sort(t, axis=1), [x], np.sort(x, axis=1))
    check_op(lambda t: tf.argsort(t, axis=0), [x], np.argsort(x, axis=0, kind="stable").astype(np.int32))
    check_gradient(lambda t: tf.sort(t) * np.arange(5.0), [x[0, 0]])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Argument `direction` should be one of ASCENDING, DESCENDING. "
                                             "Received: direction=UP"):
            tf.sort([1, 2], direction="UP")
        with pytest.raises(ValueError, match="Argument `axis` must be a constant scalar."):
            tf.sort([1, 2], axis=tf.placeholder(tf.int32))


def test_repeat():
    x = np.array([[1, 2], [3, 4]], np.int32)
    check_op(lambda t: tf.repeat(t, 2), [x], np.repeat(x, 2))
    check_op(lambda t: tf.repeat(t, [1, 2], axis=0), [x], np.repeat(x, [1, 2], axis=0), fully_defined=False)
    check_op(lambda t: tf.repeat(t, 3, axis=1), [x], np.repeat(x, 3, axis=1), fully_defined=False)
    check_op(lambda t: tf.repeat(t, 3), [np.int32(5)], np.array([5, 5, 5], np.int32), fully_defined=False)
    check_gradient(lambda t: tf.repeat(t, [2, 0, 1], axis=1), [np.random.RandomState(1).randn(2, 3)])
    with tf.Graph().as_default(), pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.repeat([1, 2], [1, 2, 3])


def _repeat_graph(fn):
    with tf.Graph().as_default() as g:
        result = fn()
        return result, [op.type for op in g.get_operations() if op.type not in ("Const", "Placeholder")]


def test_repeat_static_shapes_and_graph_as_tf():
    """TF 2.21's shapes and ops: a count per element keeps a sequence_mask's entries (the repeated dimension
    unknown unless the reshape after it folds), one count tiles and reshapes."""
    result, ops = _repeat_graph(lambda: tf.repeat([1, 2], [2, 3]))
    assert str(result.shape) == "(?,)" and result.name == "Repeat/boolean_mask/GatherV2:0"
    assert ops == ["Reshape", "Cast", "StridedSlice", "Pack", "BroadcastTo", "Max", "Maximum", "Range", "ExpandDims",
                   "Cast", "Less", "ExpandDims", "Pack", "Tile", "StridedSlice", "Prod", "StridedSlice", "StridedSlice",
                   "Pack", "ConcatV2", "Reshape", "Reshape", "Where", "Squeeze", "GatherV2"]
    result, ops = _repeat_graph(lambda: tf.repeat([[1, 2], [3, 4]], 3, axis=-1))
    assert str(result.shape) == "(2, 6)" and result.name == "Repeat/Reshape_1:0"
    assert ops == ["Cast", "Reshape", "ExpandDims", "Pack", "Tile", "StridedSlice", "StridedSlice", "Mul",
                   "StridedSlice", "Pack", "ConcatV2", "Reshape"]
    shapes = {
        "(4,)": lambda: tf.repeat([1, 2], [2]),
        "(?, 2)": lambda: tf.repeat([[1, 2], [3, 4]], [1, 2], axis=0),
        "(2, 3)": lambda: tf.repeat([[1, 2], [3, 4]], [1, 2], axis=1),
        "(2, 1)": lambda: tf.repeat([[1, 2], [3, 4]], [1, 0], axis=1),
        "(2,)": lambda: tf.repeat(3, 2, axis=0),
        "(?, 6)": lambda: tf.repeat(tf.placeholder(tf.float32, [None, 3]), 2, axis=1),
        "(?, ?)": lambda: tf.repeat(tf.placeholder(tf.float32, [None, 3]), tf.placeholder(tf.int32, [3]), axis=1),
        "(?,)": lambda: tf.repeat(tf.placeholder(tf.float32), 2),
        "<unknown>": lambda: tf.repeat(tf.placeholder(tf.float32), 2, axis=1),
        "(0,)": lambda: tf.repeat(tf.zeros([0]), tf.zeros([0], tf.int32)),
    }
    for expected, fn in shapes.items():
        assert str(_repeat_graph(fn)[0].shape) == expected
    with tf.Graph().as_default(), tf.Session() as sess:
        data = tf.placeholder(tf.float32)
        counts = tf.placeholder(tf.int32)
        out = sess.run([tf.repeat(data, 2, axis=1), tf.repeat([1, 2, 3], counts)],
                       {data: np.ones([2, 3], np.float32), counts: [1, 2, 3]})
        assert out[0].shape == (2, 6) and out[1].tolist() == [1, 2, 2, 3, 3, 3]


def test_repeat_errors_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Shape \(1, 2\) must have rank at most 1"):
            tf.repeat([1, 2], [[1, 2]])
        with pytest.raises(ValueError, match="axis=2 out of bounds: expected -2<=axis<2"):
            tf.repeat([[1, 2]], 2, axis=2)
        with pytest.raises(TypeError, match=r"Argument `tensor` \(name: repeats\) must be of type integer. "
                                            "Received `tensor` = .* of dtype: <dtype: 'float32'>"):
            tf.repeat([1, 2], [1.0, 2.0])


def test_ensure_shape():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 3])
        checked = tf.ensure_shape(x, [2, None])
        assert checked.shape.as_list() == [2, 3] and checked.op.type == "EnsureShape"
        np.testing.assert_array_equal(sess.run(checked, {x: np.ones((2, 3))}), np.ones((2, 3)))
        assert tf.gradients(tf.reduce_sum(checked), x)[0] is not None
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"Shape of tensor .* \[3,3\] is not compatible with expected shape \[2,3\]\."):
            sess.run(tf.ensure_shape(x, [2, 3]), {x: np.zeros((3, 3))})
        with pytest.raises(ValueError, match=r"Dimension 1 in both shapes must be equal, but are 4 and 3\. Shapes "
                                             r"are \[2,4\] and \[2,3\]\."):
            tf.ensure_shape(tf.zeros([2, 3]), [2, 4])


def test_timestamp_lbeta_paddings_clip():
    with tf.Graph().as_default(), tf.Session() as sess:
        stamp = tf.timestamp()
        assert stamp.dtype == tf.float64 and stamp.shape.as_list() == [] and stamp.op.type == "Timestamp"
        assert abs(sess.run(stamp) - time.time()) < 60
        paddings, crops = sess.run(tf.required_space_to_batch_paddings([5, 7], [2, 3],
                                                                       base_paddings=[[1, 0], [0, 1]]))
        np.testing.assert_array_equal(paddings, [[1, 0], [0, 2]])
        np.testing.assert_array_equal(crops, [[0, 0], [0, 1]])
        dynamic = tf.placeholder(tf.int32, [2])
        paddings = sess.run(tf.required_space_to_batch_paddings(dynamic, [2, 3])[0], {dynamic: [5, 7]})
        np.testing.assert_array_equal(paddings, [[0, 1], [0, 2]])
    check_op(tf.lbeta, [np.array([[1., 2.], [3., 4.]], np.float32)], np.array([-0.6931472, -4.0943446], np.float32))
    check_op(tf.math.lbeta, [np.zeros((2, 0), np.float32)], np.array([-np.inf, -np.inf], np.float32))
    check_op(lambda t: tf.clip_by_average_norm(t, 1.0), [np.array([[3., 4.], [0., 0.]], np.float32)],
             np.array([[2.4, 3.2], [0., 0.]], np.float32))


def test_sparse_helpers():
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [1, 2, 3], [2, 3])
        first, last, middle = sess.run([tf.sparse.expand_dims(sp, 0), tf.sparse.expand_dims(sp),
                                        tf.sparse.expand_dims(sp, axis=1)])
        np.testing.assert_array_equal(first.indices, [[0, 0, 1], [0, 1, 0], [0, 1, 2]])
        np.testing.assert_array_equal(first.dense_shape, [1, 2, 3])
        np.testing.assert_array_equal(last.indices, [[0, 1, 0], [1, 0, 0], [1, 2, 0]])
        np.testing.assert_array_equal(middle.dense_shape, [2, 1, 3])
        tight, wide = sess.run([tf.sparse.reset_shape(tf.SparseTensor([[0, 1]], [1], [4, 4])),
                                tf.sparse_reset_shape(sp, [4, 5])])
        np.testing.assert_array_equal(tight.dense_shape, [1, 2])
        np.testing.assert_array_equal(wide.dense_shape, [4, 5])
        with pytest.raises(ValueError, match="Requested new_shape should have dimension sizes >= sp_input.shape."):
            tf.sparse.reset_shape(sp, [1, 5])
        fed = tf.sparse_placeholder(tf.int32)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x <= y did not hold element-wise"):
            sess.run(tf.sparse.reset_shape(fed, [1, 5]), {fed: tf.SparseTensorValue([[0, 0]], [1], [2, 2])})
        ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0], [1, 1]], [3, 1, 0, 3], [2, 2])
        indicator = tf.sparse.to_indicator(ids, 4)
        assert indicator.dtype == tf.bool
        np.testing.assert_array_equal(sess.run(indicator), [[False, True, False, True], [True, False, False, True]])
        np.testing.assert_array_equal(sess.run(tf.sparse_to_indicator(tf.SparseTensor([[0, 0], [0, 1]], [2, 2],
                                                                                       [1, 2]), 3)),
                                      [[False, False, True]])
        slices = tf.IndexedSlices(tf.constant([[1., 2], [3, 4], [5, 6]]), tf.constant([0, 3, 5]), tf.constant([6, 2]))
        masked = tf.sparse.mask(slices, [3])
        values, indices = sess.run([masked.values, masked.indices])
        np.testing.assert_array_equal(values, [[1, 2], [5, 6]])
        np.testing.assert_array_equal(indices, [0, 5])
        assert tf.sparse_mask is tf.sparse.mask


def test_edit_distance():
    with tf.Graph().as_default(), tf.Session() as sess:
        hypothesis = tf.SparseTensor([[0, 0, 0], [1, 0, 0], [1, 0, 1]], ["a", "b", "c"], [2, 1, 2])
        truth = tf.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]], ["a", "b", "x", "c"], [2, 2, 3])
        normalized, raw = tf.edit_distance(hypothesis, truth), tf.edit_distance(hypothesis, truth, normalize=False)
        assert normalized.shape.as_list() == [2, 2] and normalized.dtype == tf.float32
        assert tf.edit_distance(tf.sparse_placeholder(tf.string), truth).shape.ndims is None
        first, second = sess.run([normalized, raw])
        np.testing.assert_array_equal(first, np.array([[np.inf, 1], [1 / 3, 0]], np.float32))
        np.testing.assert_array_equal(second, [[1, 1], [1, 0]])
        # Recorded from TF: random sequences of 0..2 with gaps.
        rng = np.random.RandomState(0)
        hyp_values, truth_values = rng.randint(0, 3, 40), rng.randint(0, 3, 30)
        hyp_indices = np.stack([np.repeat(np.arange(5), 8), np.tile(np.arange(8), 5)], 1)[rng.rand(40) < 0.8]
        truth_indices = np.stack([np.repeat(np.arange(5), 6), np.tile(np.arange(6), 5)], 1)[rng.rand(30) < 0.8]
        distances = sess.run(tf.edit_distance(tf.SparseTensor(hyp_indices, hyp_values[:len(hyp_indices)], [5, 8]),
                                              tf.SparseTensor(truth_indices, truth_values[:len(truth_indices)],
                                                              [6, 6])))
        np.testing.assert_allclose(distances, [0.8333333, 1.2, 0.6, 1.6666666, 1.0, 0.0], rtol=1e-6)
        with pytest.raises(ValueError, match="Num elements of hypothesis_shape does not match truth_shape: 2 vs. 3"):
            tf.edit_distance(tf.SparseTensor([[0, 0]], [1], [1, 1]), tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1]))
        with pytest.raises(TypeError, match="Hypothesis must be a SparseTensor."):
            tf.edit_distance(tf.constant([1]), truth)


def test_serialize_and_deserialize_sparse():
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.SparseTensor([[0, 1], [2, 0]], [5, 7], [3, 4])
        one, many = tf.serialize_sparse(sp), tf.io.serialize_many_sparse(sp)
        assert one.shape.as_list() == [3] and many.shape.as_list() == [None, 3]
        restored = tf.deserialize_many_sparse(many, tf.int32)
        assert restored.indices.shape.as_list() == [None, None]
        serialized, batch, value = sess.run([one, many, restored])
        # The bytes real TF writes.
        assert list(serialized) == [
            b'\x08\t\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02" ' + np.array([[0, 1], [2, 0]], np.int64).tobytes(),
            b'\x08\x03\x12\x04\x12\x02\x08\x02"\x08' + np.array([5, 7], np.int32).tobytes(),
            b'\x08\t\x12\x04\x12\x02\x08\x02"\x10' + np.array([3, 4], np.int64).tobytes()]
        assert batch[1, 0] == b'\x08\t\x12\x06\x12\x00\x12\x02\x08\x01' and batch[1, 1] == b'\x08\x03\x12\x02\x12\x00'
        np.testing.assert_array_equal(value.indices, [[0, 1], [2, 0]])
        np.testing.assert_array_equal(value.values, [5, 7])
        np.testing.assert_array_equal(value.dense_shape, [3, 4])
        stacked = sess.run(tf.deserialize_many_sparse(
            tf.stack([one, tf.serialize_sparse(tf.SparseTensor([[1, 3]], [9], [2, 5]))]), tf.int32))
        np.testing.assert_array_equal(stacked.indices, [[0, 0, 1], [0, 2, 0], [1, 1, 3]])
        np.testing.assert_array_equal(stacked.dense_shape, [2, 3, 5])
        strings = sess.run(tf.deserialize_many_sparse(
            tf.serialize_many_sparse(tf.SparseTensor([[0, 0], [1, 1]], ["a", "bc"], [2, 2])), tf.string))
        np.testing.assert_array_equal(strings.values, np.array([b"a", b"bc"], dtype=object))
        with pytest.raises(tf.errors.InvalidArgumentError, match="Requested SparseTensor of type float"):
            sess.run(tf.deserialize_many_sparse(many, tf.float32).values)


def _volume_patches(x, ksizes, strides, padding):
    """ExtractVolumePatches by loops over the output positions (the test's reference)."""
    spatial = x.shape[1:4]
    if padding == "SAME":
        out = [-(-s // st) for s, st in zip(spatial, strides)]
        pads = [max((o - 1) * st + k - s, 0) for o, st, k, s in zip(out, strides, ksizes, spatial)]
    else:
        out = [-(-(s - k + 1) // st) for s, k, st in zip(spatial, ksizes, strides)]
        pads = [0, 0, 0]
    padded = np.pad(x, [(0, 0)] + [(p // 2, p - p // 2) for p in pads] + [(0, 0)])
    result = np.zeros((x.shape[0], *out, int(np.prod(ksizes)) * x.shape[4]), x.dtype)
    for i in range(out[0]):
        for j in range(out[1]):
            for k in range(out[2]):
                block = padded[:, i * strides[0]:i * strides[0] + ksizes[0], j * strides[1]:j * strides[1] + ksizes[1],
                               k * strides[2]:k * strides[2] + ksizes[2]]
                result[:, i, j, k] = block.reshape(x.shape[0], -1)
    return result


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
def test_extract_volume_patches(padding):
    x = np.arange(2 * 3 * 4 * 5 * 2, dtype=np.float32).reshape(2, 3, 4, 5, 2)
    check_op(lambda t: tf.extract_volume_patches(t, [1, 2, 2, 3, 1], [1, 1, 2, 2, 1], padding), [x],
             _volume_patches(x, [2, 2, 3], [1, 2, 2], padding))
    check_gradient(lambda t: tf.extract_volume_patches(t, [1, 2, 1, 2, 1], [1, 1, 2, 1, 1], padding),
                   [np.random.RandomState(2).randn(1, 2, 3, 3, 2)])
