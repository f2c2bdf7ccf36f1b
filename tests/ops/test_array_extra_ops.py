"""The rest of TF1's top-level array ops: scatter, partition/stitch, unique/setdiff/searchsorted,
space<->depth/batch, patches, reverse_sequence, roll, bitcast, fake quantization and the small composites.
Expected values are NumPy math or literals recorded from TF 2.21; error messages are TF's."""

import re

import numpy as np
import pytest
from op_testing import check_gradient, check_op, runtime_message

import tensorweave.compat.v1 as tf

RNG = np.random.default_rng(0)


def _run(tensor):
    with tf.Session() as sess:
        return sess.run(tensor)


def _runtime_error(build, match):
    with tf.Graph().as_default():
        tensor = build()
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(tensor)
    assert re.search(match, runtime_message(info.value)), runtime_message(info.value)
    return info


def _pwd(value):
    return tf.placeholder_with_default(value, None)


def test_scatter_nd_sums_repeated_rows():
    check_op(lambda i, u: tf.scatter_nd(i, u, [5]), [np.array([[[1], [3]], [[1], [0]]], np.int32),
                                                       np.array([[1., 2], [3, 4]], np.float32)],
             np.array([4., 4, 0, 2, 0], np.float32), grad=True)
    check_op(lambda i, u: tf.scatter_nd(i, u, [2, 3]), [np.array([[1]], np.int64), np.array([[1, 2, 3]], np.int32)],
             np.array([[0, 0, 0], [1, 2, 3]], np.int32))


def test_tensor_scatter_family():
    base = RNG.standard_normal((4, 3))
    indices = np.array([[0], [2]], np.int32)
    updates = RNG.standard_normal((2, 3))
    for fn, combine in ((tf.tensor_scatter_nd_update, lambda a, b: b), (tf.tensor_scatter_add, np.add),
                        (tf.tensor_scatter_nd_sub, np.subtract), (tf.tensor_scatter_nd_max, np.maximum),
                        (tf.tensor_scatter_nd_min, np.minimum)):
        want = base.copy()
        want[[0, 2]] = combine(base[[0, 2]], updates)
        check_op(lambda t, i, u, fn=fn: fn(t, i, u), [base, indices, updates], want, grad=True)
    assert tf.tensor_scatter_update is tf.tensor_scatter_nd_update and tf.manip.scatter_nd is tf.scatter_nd


def test_scatter_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"Dimensions \[0,1\) of indices\[shape=\[2,1\]\] = \[2\] must match "
                           r"dimensions \[0,1\) of updates\[shape=\[3\]\] = \[3\]: Dimension 0 in both shapes must "
                           r"be equal, but are 2 and 3\. Shapes are \[2\] and \[3\]\."):
            tf.scatter_nd([[0], [1]], [1., 2., 3.], [4])
        with pytest.raises(ValueError, match=r"Dimensions \[1,2\) of input\[shape=\[4,3\]\] = \[3\] must match "
                           r"dimensions \[1,2\) of updates\[shape=\[1,2\]\] = \[2\]"):
            tf.scatter_nd([[0]], [[1., 2]], [4, 3])
    info = _runtime_error(lambda: tf.scatter_nd(_pwd([[5]]), [1.], [4]),
                          r"^indices\[0\] = \[5\] does not index into shape \[4\]")
    assert info.value.op.name == "ScatterNd"
    _runtime_error(lambda: tf.tensor_scatter_add(tf.zeros([4]), _pwd([[-1]]), [1.]),
                   r"^indices\[0\] = \[-1\] does not index into shape \[4\]")
    _runtime_error(lambda: tf.scatter_nd(_pwd([[0]]), [1.], _pwd([0])),
                   r"^Indices and updates specified for empty output.  indices shape: \[1,1\]")
    _runtime_error(lambda: tf.scatter_nd(_pwd([[0]]), [1.], _pwd([-1])), r"^Dimension -1 must be >= 0")
    with tf.Graph().as_default():  # a known empty output fails while building, as TF's ScatterNdShapeHelper
        for build in (lambda: tf.scatter_nd([[0]], [1], [0]), lambda: tf.tensor_scatter_nd_update(tf.zeros([0, 2]),
                                                                                                  [[0]], [[1., 1]])):
            with pytest.raises(ValueError, match="^Indices and updates specified for empty input for '"):
                build()


def test_dynamic_partition_and_stitch():
    data = RNG.standard_normal((5, 2))
    partitions = np.array([1, 0, 1, 2, 0], np.int32)
    check_op(lambda d, p: tf.dynamic_partition(d, p, 3), [data, partitions],
             [data[[1, 4]], data[[0, 2]], data[[3]]], fully_defined=False)
    with tf.Graph().as_default():
        t = tf.constant(data)
        parts = tf.dynamic_partition(t, partitions, 3)
        weighted = sum(tf.reduce_sum(p * float(i + 1)) for i, p in enumerate(parts))
        assert _run(tf.gradients(weighted, t)[0]).tolist() == [[2, 2], [1, 1], [2, 2], [3, 3], [1, 1]]
    check_op(lambda: tf.dynamic_stitch([[0, 3], [1]], [[1, 2], [3]]), [], np.array([1, 3, 0, 2], np.int32))
    check_op(lambda a, b: tf.dynamic_stitch([[1, 0], [1]], [a, b]), [data[:2], data[2:3]],
             np.stack([data[1], data[2]]))  # a repeated index: the last data given wins
    check_op(lambda a, b: tf.dynamic_stitch([[2, 0], [1]], [a, b]), [data[:2], data[2:3]],
             np.stack([data[1], data[2], data[0]]), grad=True)
    with tf.Graph().as_default():
        stitched = tf.dynamic_stitch([tf.placeholder(tf.int32, [2]), [1]], [tf.zeros([2, 3]), tf.zeros([1, 3])])
        assert stitched.shape.as_list() == [None, 3]
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.dynamic_partition([1, 2, 3], [0, 1], 2)
        with pytest.raises(ValueError, match=r"Dimension 0 in both shapes must be equal, but are 1 and 2\. Shapes are "
                                             r"\[1\] and \[2\]\."):
            tf.dynamic_stitch([[0, 2], [1]], [[[1], [2]], [[3, 4]]])
        parallel = tf.raw_ops.ParallelDynamicStitch(indices=[[2], [0, 1]], data=[[7], [8, 9]])
        assert _run(parallel).tolist() == [8, 9, 7]
    _runtime_error(lambda: tf.dynamic_partition([1, 2, 3], _pwd([0, 5, 1]), 2), r"^partitions\[1\] = 5 is not in \[0, 2\)")
    _runtime_error(lambda: tf.dynamic_stitch([[0, -1], [1]], [[1, 2], [3]]), r"^indices\[1\] is out of range")
    _runtime_error(lambda: tf.dynamic_stitch([_pwd([0, 2]), [1]], [_pwd([1, 2, 4]), [3]]),
                   r"^data\[0\].shape = \[3\] does not start with indices\[0\].shape = \[2\]")


def test_unique_setdiff_searchsorted():
    check_op(lambda x: tf.unique(x), [np.array([4, 1, 4, 2, 1], np.int32)],
             [np.array([4, 1, 2], np.int32), np.array([0, 1, 0, 2, 1], np.int32)], fully_defined=False)
    check_op(lambda x: tf.unique_with_counts(x, out_idx=tf.int64), [np.array([3., 3., 1.], np.float32)],
             [np.array([3., 1.], np.float32), np.array([0, 0, 1], np.int64), np.array([2, 1], np.int64)],
             fully_defined=False)
    with tf.Graph().as_default():
        y, idx = tf.unique(["b", "a", "b", "c"])
        assert _run(y).tolist() == [b"b", b"a", b"c"] and _run(idx).tolist() == [0, 1, 0, 2]
        with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
            tf.unique([[1, 2]])
        # TF's hash map: every NaN distinct; 0 and -0 one float32 value but two float16 ones (hashed by bits)
        nan = float("nan")
        y, idx, count = _run(tf.unique_with_counts(tf.constant([0., -0., nan, nan, 1.])))
        assert (str(y.tolist()), idx.tolist(), count.tolist()) == ("[0.0, nan, nan, 1.0]", [0, 0, 1, 2, 3], [2, 1, 1, 1])
        y, idx = _run(tf.unique(tf.constant([0., -0., nan, nan, 1.], tf.float16)))
        assert (str(y.tolist()), idx.tolist()) == ("[0.0, -0.0, nan, nan, 1.0]", [0, 1, 2, 3, 4])
    check_op(lambda x, y: tf.setdiff1d(x, y), [np.array([1, 2, 3, 4, 2], np.int32), np.array([2, 4], np.int32)],
             [np.array([1, 3], np.int32), np.array([0, 2], np.int32)], fully_defined=False)
    sorted_seq = np.array([[1, 3, 3, 5], [0, 0, 1, 2]], np.int32)
    values = np.array([[3, 0, 6], [0, 2, 1]], np.int32)
    check_op(lambda s, v: tf.searchsorted(s, v), [sorted_seq, values], np.array([[1, 0, 4], [0, 3, 2]], np.int32))
    check_op(lambda s, v: tf.searchsorted(s, v, side="right", out_type=tf.int64), [sorted_seq, values],
             np.array([[3, 0, 4], [2, 4, 3]], np.int64))
    floats = np.sort(RNG.standard_normal((3, 50)), axis=1)
    queries = RNG.standard_normal((3, 20))
    want = np.stack([np.searchsorted(floats[i], queries[i]) for i in range(3)]).astype(np.int32)
    check_op(lambda s, v: tf.searchsorted(s, v), [floats, queries], want)
    with pytest.raises(ValueError, match="Argument `side` must be either 'right' or 'left'. Received: `side` = 'x'."):
        tf.searchsorted([1, 2], [1], side="x")
    _runtime_error(lambda: tf.searchsorted([[1, 2, 3], [1, 2, 3]], [[1]]), "^Leading dim_size of both tensors must match.")


def test_unique_v2_along_an_axis_as_tf():
    x = np.array([[1, 2, 1], [1, 2, 1], [3, 4, 3], [1, 2, 1]])
    with tf.Graph().as_default():
        rows = tf.raw_ops.UniqueWithCountsV2(x=x, axis=[-2])
        columns = tf.raw_ops.UniqueV2(x=tf.placeholder_with_default(x, None), axis=tf.placeholder_with_default(
            np.array([1], np.int64), None))
        vector = tf.raw_ops.UniqueV2(x=np.array([3., np.nan, 3, np.nan, -0., 0.]), axis=np.zeros([0], np.int32))
        empty = tf.raw_ops.UniqueV2(x=np.zeros((2, 0)), axis=[0])
        assert [t.shape.as_list() for t in rows] == [[None, None], [4], [None]]
        assert (columns.y.shape.ndims, columns.idx.shape.as_list()) == (None, [None])
        y, idx, count = _run(list(rows))
        assert (y.tolist(), idx.tolist(), count.tolist()) == ([[1, 2, 1], [3, 4, 3]], [0, 0, 1, 0], [3, 1])
        y, idx = _run(list(columns))
        assert (y.tolist(), idx.tolist()) == ([[1, 2], [1, 2], [3, 4], [1, 2]], [0, 1, 0])
        y, idx = _run(list(vector))
        assert (str(y.tolist()), idx.tolist()) == ("[3.0, nan, nan, -0.0]", [0, 1, 0, 2, 3, 3])
        y, idx = _run(list(empty))
        assert (y.shape, idx.tolist()) == ((1, 0), [0, 0])
        for axis, message in (([], "x expects a 1D vector."), ([0, 1], "axis does not support input tensors "
                              "larger than 1 elements."), ([2], r"axis expects to be in the range \[-2, 2\)"),
                              (0, "axis expects a 1D vector.")):
            with pytest.raises(ValueError, match=f"^{message} for "):
                tf.raw_ops.UniqueV2(x=x, axis=axis)
        fed = tf.placeholder(tf.int64)
        fetch = tf.raw_ops.UniqueV2(x=tf.placeholder_with_default(x, None), axis=fed).y
        for axis, message in (([-3], r"^axis has to be between \[0, 2\)"), ([], "^unique expects a 1D vector.")):
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                tf.Session().run(fetch, {fed: axis})
            assert re.search(message, runtime_message(info.value))


def test_unique_has_no_complex_kernel_as_tf():
    for build in (lambda: tf.unique([1 + 2j]), lambda: tf.raw_ops.UniqueWithCountsV2(x=[1 + 2j], axis=[0])):
        with tf.Graph().as_default():
            with pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel was registered to support Op 'Unique"):
                _run(build()[0])


def test_searchsorted_is_tfs_binary_search():
    """TF runs std::lower_bound / upper_bound per value: a NaN value, or a row that is not sorted, gives the
    index that binary search reaches (recorded from TF 2.21), not the sorted insertion point."""
    rows = np.array([[3., 1, np.nan, 2, 2, 0, 5]], np.float32)
    values = np.array([[2., 0, 9, np.nan, 1, 3, 4, 2.5]], np.float32)
    check_op(lambda s, v: [tf.searchsorted(s, v), tf.searchsorted(s, v, side="right")], [rows, values],
             [np.array([[2, 0, 7, 0, 0, 6, 6, 6]], np.int32), np.array([[6, 0, 7, 7, 3, 6, 6, 6]], np.int32)],
             grad=False)
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="No OpKernel was registered to support Op 'LowerBound'"):
            _run(tf.searchsorted(np.array([b"a", b"c"]), np.array([b"b"])))


def test_space_to_depth_and_back():
    x = RNG.standard_normal((2, 4, 6, 3))
    want = x.reshape(2, 2, 2, 3, 2, 3).transpose(0, 1, 3, 2, 4, 5).reshape(2, 2, 3, 12)
    check_op(lambda t: tf.space_to_depth(t, 2), [x], want, grad=True)
    check_op(lambda t: tf.nn.depth_to_space(t, 2), [want], x, grad=True)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 2 but is 3"):
            tf.space_to_depth(tf.zeros([1, 3, 4, 2]), 2)
        with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 4 but is 6"):
            tf.depth_to_space(tf.zeros([1, 3, 4, 6]), 2)
    _runtime_error(lambda: tf.space_to_depth(_pwd(tf.zeros([1, 3, 4, 2])), 2),
                   "^Image width 4 and height 3 should be divisible by block_size: 2")
    _runtime_error(lambda: tf.depth_to_space(_pwd(tf.zeros([1, 3, 4, 6])), 2),
                   "^Input depth dimension 6 should be divisible by: 4")
    _runtime_error(lambda: tf.space_to_depth(tf.zeros([1, 4, 4, 2]), 2, data_format="NCHW"),
                   "^No OpKernel was registered to support Op 'SpaceToDepth'")


def test_space_to_batch_and_back():
    x = np.arange(16, dtype=np.float64).reshape(1, 4, 4, 1)
    recorded = np.array([[[0, 2], [8, 10]], [[1, 3], [9, 11]], [[4, 6], [12, 14]], [[5, 7], [13, 15]]], np.float64)
    check_op(lambda t: tf.space_to_batch_nd(t, [2, 2], [[0, 0], [0, 0]]), [x], recorded[..., None], grad=True)
    check_op(lambda t: tf.batch_to_space_nd(t, [2, 2], [[0, 0], [0, 0]]), [recorded[..., None]], x, grad=True)
    y = RNG.standard_normal((2, 3, 5, 2))
    padded = tf.space_to_batch(tf.constant(y), [[1, 0], [1, 2]], block_size=2)
    assert padded.shape.as_list() == [8, 2, 4, 2] and padded.op.type == "SpaceToBatchND"
    check_op(lambda t: tf.batch_to_space(tf.space_to_batch(t, [[1, 0], [1, 2]], 2), [[1, 0], [1, 2]], 2), [y], y,
             grad=True)
    check_op(lambda t: tf.raw_ops.BatchToSpace(input=tf.raw_ops.SpaceToBatch(input=t, paddings=[[1, 0], [1, 2]],
                                                                             block_size=2),
                                               crops=[[1, 0], [1, 2]], block_size=2), [y], y, grad=True)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="block_shape must be positive"):
            tf.space_to_batch_nd(tf.zeros([1, 4, 4, 2]), [0, 2], [[0, 0], [0, 0]])
        with pytest.raises(ValueError, match="paddings cannot be negative"):
            tf.space_to_batch_nd(tf.zeros([1, 4, 4, 2]), [2, 2], [[-1, 1], [0, 0]])
        with pytest.raises(ValueError, match="Negative dimension size caused by subtracting 5 from 4"):
            tf.batch_to_space_nd(tf.zeros([4, 2, 2, 1]), [2, 2], [[0, 5], [0, 0]])
    _runtime_error(lambda: tf.space_to_batch_nd(_pwd(tf.zeros([1, 3, 4, 2])), [2, 2], [[0, 0], [0, 0]]),
                   r"^padded_shape\[0\]=3 is not divisible by block_shape\[0\]=2")
    _runtime_error(lambda: tf.batch_to_space_nd(_pwd(tf.zeros([3, 2, 2, 1])), [2, 2], [[0, 0], [0, 0]]),
                   r"^Input batch dimension \(3\) is not divisible by product of block sizes \(4\)")
    _runtime_error(lambda: tf.batch_to_space_nd(_pwd(tf.zeros([4, 2, 2, 1])), [2, 2], [[0, 5], [0, 0]]),
                   r"^cropped_shape\[0\]=-1 must be non-negative")


def test_extract_image_patches():
    x = np.arange(2 * 5 * 6 * 2, dtype=np.float32).reshape(2, 5, 6, 2)
    with tf.Graph().as_default():
        patches = tf.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 2, 1], [1, 2, 1, 1], "SAME")
        got = _run(patches)
        assert patches.shape.as_list() == [2, 3, 3, 12] and got.sum() == 7648.0  # recorded from TF
        assert got[0, 1, 1].tolist() == [16, 17, 18, 19, 20, 21, 40, 41, 42, 43, 44, 45]
        assert got[1, 2, 2].tolist() == [104, 105, 106, 107] + [0] * 8
        assert tf.image.extract_image_patches(x, sizes=[1, 3, 3, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1],
                                              padding="VALID").shape.as_list() == [2, 3, 4, 18]
    check_gradient(lambda t: tf.extract_image_patches(t, [1, 2, 2, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"),
                   [RNG.standard_normal((1, 4, 5, 2))])
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.UnimplementedError, match="Only support ksizes across space."):
            _run(tf.extract_image_patches(tf.zeros([1, 5, 5, 1]), [2, 2, 2, 1], [1] * 4, [1] * 4, "VALID"))
        with pytest.raises(ValueError, match=r"^Stride must be > 0, but got 0 for '\{\{node ExtractImagePatches"):
            tf.image.extract_patches(tf.placeholder(tf.float32), [1, 2, 2, 1], [1, 0, 1, 1], [1] * 4, "VALID")
        # a zero size or rate is accepted (TF 2.21: shapes [?, 9, 7, 0] and [?, 8, 7, 12])
        free = tf.placeholder(tf.float32, [None, 8, 8, 3])
        assert tf.image.extract_patches(free, [1, 0, 2, 1], [1] * 4, [1] * 4, "VALID").shape.as_list() == [None, 9, 7, 0]
        assert tf.image.extract_patches(free, [1, 2, 2, 1], [1] * 4, [1, 0, 1, 1],
                                        "VALID").shape.as_list() == [None, 8, 7, 12]


def test_reverse_sequence_and_roll():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    check_op(lambda t: tf.reverse_sequence(t, [1, 3, 4], seq_axis=1, batch_axis=0), [x],
             np.array([[0, 1, 2, 3], [6, 5, 4, 7], [11, 10, 9, 8]], np.float64), grad=True)
    check_op(lambda t: tf.reverse_sequence(t, tf.constant([2, 0, 1, 3], tf.int64), seq_dim=0, batch_dim=1), [x[:, :]],
             np.stack([x[[1, 0, 2], 0], x[:, 1], x[:, 2], x[[2, 1, 0], 3]], axis=1))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="seq_dim must be < input rank: 3 vs. 2"):
            tf.reverse_sequence(tf.zeros([2, 3]), [1, 2], 3, 0)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.reverse_sequence(tf.zeros([2, 3]), [1, 2, 3], 1, 0)
    _runtime_error(lambda: tf.reverse_sequence(tf.zeros([2, 3]), _pwd(tf.constant([1, 5], tf.int64)), 1, 0),
                   r"^seq_lens\(1\) > input.dims\(1\)")
    y = np.arange(6, dtype=np.float64).reshape(2, 3)
    check_op(lambda t: tf.roll(t, [1, -1, 2], [0, 1, 1]), [y], np.roll(y, [1, 1], [0, 1]), grad=True)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal, but are 2 and 1"):
            tf.roll([1, 2, 3], [1, 2], [0])
    _runtime_error(lambda: tf.roll([1, 2, 3], [1], _pwd([3])), "^axis 3 is out of range")


def test_small_array_ops():
    check_op(lambda: tf.bitcast(tf.constant([1.0], tf.float32), tf.uint8), [],
             np.array([[0, 0, 128, 63]], np.uint8))
    check_op(lambda: tf.bitcast(tf.constant([[0, 0, 128, 63]], tf.uint8), tf.float32), [], np.array([1.], np.float32))
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Cannot bitcast from 1 to 2 due to shape. 3 does not match 2"):
            tf.bitcast(tf.zeros([3], tf.float32), tf.float64)
    check_op(lambda: tf.parallel_stack([[1, 2], [3, 4]]), [], np.array([[1, 2], [3, 4]], np.int32))
    check_op(lambda: tf.guarantee_const(tf.constant([1.5])), [], np.array([1.5], np.float32))
    check_op(lambda: tf.broadcast_dynamic_shape([2, 1], [3]), [], np.array([2, 3], np.int32))
    _runtime_error(lambda: tf.broadcast_dynamic_shape(_pwd([2, 3]), [4, 3]), r"^Incompatible shapes: \[2,3\] vs. \[4,3\]")
    check_op(lambda: tf.invert_permutation([2, 0, 1]), [], np.array([1, 2, 0], np.int32))
    assert tf.math.invert_permutation is tf.invert_permutation
    check_op(lambda: tf.unravel_index([1, 5], [2, 3]), [], np.array([[0, 1], [1, 2]], np.int32))
    _runtime_error(lambda: tf.unravel_index([1, 9], [2, 3]), "^index is out of bound as with dims")
    check_op(lambda: tf.batch_gather([[1, 2, 3], [4, 5, 6]], [[2, 0], [1, 1]]), [], np.array([[3, 1], [5, 5]], np.int32))


def test_sequence_mask_and_meshgrid():
    check_op(lambda: tf.sequence_mask([[1, 3], [0, 2]], 3), [],
             np.array([[[1, 0, 0], [1, 1, 1]], [[0, 0, 0], [1, 1, 0]]], bool))
    check_op(lambda: tf.sequence_mask([1, 2], dtype=tf.float32), [], np.array([[1, 0], [1, 1]], np.float32))
    with tf.Graph().as_default():
        assert tf.sequence_mask(tf.placeholder(tf.int32, [2])).shape.as_list() == [2, None]
        assert tf.sequence_mask([4, 2], 4, dtype=tf.float32).name == "SequenceMask_1/Cast_1:0"  # TF 2.21: two Casts
        with pytest.raises(ValueError, match="^Argument `maxlen` must be scalar for sequence_mask"):
            tf.sequence_mask([1, 2], maxlen=[3])
    xs, ys = np.arange(3.), np.arange(2.)
    check_op(lambda a, b: tf.meshgrid(a, b), [xs, ys], list(np.meshgrid(xs, ys)), grad=True)
    check_op(lambda a, b: tf.meshgrid(a, b, indexing="ij"), [xs, ys], list(np.meshgrid(xs, ys, indexing="ij")))
    with pytest.raises(TypeError, match="^'foo' is an invalid keyword argument for this function"):
        tf.meshgrid([1], foo=1)


def test_fake_quant():
    x = np.array([-7., -1.03, -0.01, 0.0, 0.02, 1.49, 5.96, 6.5], np.float32)
    scale = np.float32(12 / 255)
    zero = np.round(np.float32(6) / scale)
    nudged = (-zero * scale, (255 - zero) * scale)
    want = (np.floor((np.clip(x, *nudged) - nudged[0]) / scale + 0.5) * scale + nudged[0]).astype(np.float32)
    check_op(lambda t: tf.fake_quant_with_min_max_args(t), [x], want, rtol=1e-5, atol=1e-5)
    check_op(lambda t: tf.quantization.fake_quant_with_min_max_vars(t, -6., 6.), [x], want, rtol=1e-5, atol=1e-5)
    per_channel = np.stack([x, x], axis=1)
    check_op(lambda t: tf.fake_quant_with_min_max_vars_per_channel(t, [-6., -6.], [6., 6.]), [per_channel],
             np.stack([want, want], axis=1), rtol=1e-5, atol=1e-5)
    with tf.Graph().as_default():
        t = tf.constant(x)
        lo, hi = tf.constant(-6.), tf.constant(6.)
        out = tf.fake_quant_with_min_max_vars(t, lo, hi)
        grads = _run(tf.gradients(tf.reduce_sum(out * tf.range(8.)), [t, lo, hi]))
        inside = (x >= nudged[0]) & (x <= nudged[1])
        np.testing.assert_allclose(grads[0], np.where(inside, np.arange(8.), 0))
        assert grads[1] == 0.0 and grads[2] == 7.0
        with pytest.raises(ValueError, match="^min has to be smaller than max, was: min=1.0, max=0.0"):
            tf.fake_quant_with_min_max_args(t, min=1.0, max=0.0)


def test_space_depth_static_shapes_follow_data_format():
    with tf.Graph().as_default():
        assert tf.nn.space_to_depth(tf.zeros([1, 1, 4, 6]), 2, data_format="NCHW").shape.as_list() == [1, 4, 2, 3]
        assert tf.nn.depth_to_space(tf.zeros([1, 8, 2, 3]), 2, data_format="NCHW").shape.as_list() == [1, 2, 4, 6]
        assert tf.nn.space_to_depth(tf.zeros([1, 4, 6, 1]), 2).shape.as_list() == [1, 2, 3, 4]
