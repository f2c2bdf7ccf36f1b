"""tf.RaggedTensor and tf.ragged: factories, conversions, indexing and the ragged ops against values recorded
from TensorFlow 2.21 (compat.v1), static shapes, RaggedTensorValue fetch and feed, and TF's errors."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tests.op_testing import check_gradient


def _show(v):
    """A fetched value as plain lists, tagged with its kind, as recorded from TF."""
    if hasattr(v, "to_list"):
        return ("R", v.to_list(), str(v.flat_values.dtype))
    if hasattr(v, "indices"):
        return ("S", v.indices.tolist(), v.values.tolist(), v.dense_shape.tolist())
    return ("T", np.asarray(v).tolist(), str(np.asarray(v).dtype))


def _R(pylist, **kwargs):
    return tf.ragged.constant(pylist, **kwargs)


_CASES = {
 'nested_to_tensor': lambda: tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]]).to_tensor(default_value=-1),
 'inner_to_tensor': lambda: tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1).to_tensor(),
 'shape_to_tensor': lambda: tf.ragged.constant([[1, 2, 3], [4], [5, 6]]).to_tensor(shape=[2, 2]),
 'string_to_tensor': lambda: tf.ragged.constant([["a", "b"], ["c"]]).to_tensor(),
 'nested_to_sparse': lambda: tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]]).to_sparse(),
 'inner_to_sparse': lambda: tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).to_sparse(),
 'range_float': lambda: tf.ragged.range([0., 5.], [2., 1.], [0.5, -1.5]),
 'range_one': lambda: tf.ragged.range([3, 0, 2]),
 'slice_nested': lambda: tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]], [[7]]])[1:4:2],
 'row_nested': lambda: tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]])[-3],
 'neg_slice': lambda: tf.ragged.constant([[1], [2, 3], [4, 5, 6]])[-2:],
 'from_sparse': lambda: tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1., 2., 3.], [4, 5])),
 'from_value_rowids': lambda: tf.RaggedTensor.from_value_rowids([3, 1, 4, 1, 5], [0, 0, 2, 2, 3], nrows=5),
 'from_row_starts': lambda: tf.RaggedTensor.from_row_starts([3, 1, 4, 1, 5], [0, 0, 2]),
 'from_row_limits': lambda: tf.RaggedTensor.from_row_limits([3, 1, 4, 1, 5], [1, 1, 5]),
 'from_row_lengths': lambda: tf.RaggedTensor.from_row_lengths([3, 1, 4, 1, 5], [2, 0, 3]),
 'from_nested_row_splits': lambda: tf.RaggedTensor.from_nested_row_splits([1, 2, 3, 4], [[0, 1, 3], [0, 2, 2, 4]]),
 'from_nested_row_lengths': lambda: tf.RaggedTensor.from_nested_row_lengths([1, 2, 3, 4], [[1, 2], [2, 0, 2]]),
 'from_tensor_padding': lambda: tf.RaggedTensor.from_tensor([[1, 0, 2, 0], [0, 0, 0, 0], [3, 0, 0, 0]], padding=0),
 'from_tensor_plain': lambda: tf.RaggedTensor.from_tensor([[1, 2], [3, 4], [5, 6]]),
 'from_tensor_3d_pad': lambda: tf.RaggedTensor.from_tensor([[[1, 1], [0, 0]], [[0, 0], [0, 0]]], padding=[0, 0]),
 'seg_to_splits': lambda: tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 3]),
 'seg_to_splits_n': lambda: tf.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=5),
 'splits_to_seg': lambda: tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5]),
 'boolean_mask': lambda: tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, False]]),
 'map_flat_values': lambda: tf.ragged.map_flat_values(tf.multiply, tf.ragged.constant([[1, 2], [3]]), 10),
 'row_lengths_2': lambda: tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]]).row_lengths(axis=2),
 'value_rowids': lambda: tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6]]]).value_rowids(),
 'nrows32': lambda: tf.ragged.constant([[1], [], []]).nrows(out_type=tf.int32),
 'with_flat_values': lambda: tf.ragged.constant([[[1, 2], [3]], [[4]]]).with_flat_values(tf.constant([1., 2., 3., 4.])),
 'empty_const': lambda: tf.ragged.constant([[], []]),
 'stack': lambda: tf.ragged.stack([tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([[4], [], [5, 6]])]),
 'stack_nested': lambda: tf.ragged.stack([tf.ragged.constant([[[1], [2, 3]]]), tf.ragged.constant([[[4]], []])]),
 'stack_vectors': lambda: tf.ragged.stack([[1, 2], [3]]),
 'stack_axis1': lambda: tf.ragged.stack([_R([[1, 2], [3]]), _R([[4], [5, 6]])], axis=1),
 'stack_axis1_dense': lambda: tf.ragged.stack([_R([[1, 2], [3]]), tf.constant([[7, 8], [9, 10]])], axis=1),
 'stack_axis2': lambda: tf.ragged.stack([_R([[1, 2], [3]]), _R([[4, 5], [6]])], axis=2),
 'stack_axis_neg': lambda: tf.ragged.stack([_R([[1, 2], [3]]), _R([[4, 5], [6]])], axis=-1),
 'stack_axis1_3d': lambda: tf.ragged.stack([_R([[[1], [2, 3]], [[4]]]), _R([[[5]], []])], axis=1),
 'cross': lambda: tf.ragged.cross([_R([['a', 'b'], ['c']]), tf.constant([['d'], ['e']]), tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ['f', 'g', 'h'], [2, 2])]),
 'cross_int': lambda: tf.ragged.cross([_R([[1, 2], []], dtype=tf.int64), _R([['x'], ['y']])]),
 'cross_int32': lambda: tf.ragged.cross([tf.constant([[1], [2]]), _R([['x', 'z'], ['y']])]),
 'cross_hashed': lambda: tf.ragged.cross_hashed([_R([['a', 'b'], ['c']]), tf.constant([['d'], ['e']])], num_buckets=100),
 'cross_hashed_int': lambda: tf.ragged.cross_hashed([_R([[1, 2], [3]], dtype=tf.int64), _R([['x'], ['y']])], hash_key=7),
 'cross_hashed_raw': lambda: tf.ragged.cross_hashed([_R([['a', 'b'], ['c']])]),
 'cross_splits32': lambda: tf.ragged.cross([_R([['a', 'b'], ['c']], row_splits_dtype=tf.int32)]),
 'sdp': lambda: tf.ragged.stack_dynamic_partitions([10, 20, 30, 40, 50], [0, 2, 0, 2, 2], 4),
 'sdp_2d': lambda: tf.ragged.stack_dynamic_partitions([[1, 2], [3, 4], [5, 6]], [1, 0, 1], 2),
 'sdp_ragged': lambda: tf.ragged.stack_dynamic_partitions(_R([[1], [2, 3], []]), [1, 1, 0], 3),
 'bounding_shape': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]]).bounding_shape(),
 'bounding_shape_axis': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]]).bounding_shape(axis=[2, 0]),
 'bounding_shape_inner': lambda: _R([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).bounding_shape(out_type=tf.int32),
 'merge_dims_01': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]]).merge_dims(0, 1),
 'merge_dims_12': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]]).merge_dims(1, 2),
 'merge_dims_all': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]]).merge_dims(0, -1),
 'merge_dims_inner': lambda: _R([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1).merge_dims(1, 2),
 'with_row_splits_dtype': lambda: _R([[[1, 2], [3]], [[4]]]).with_row_splits_dtype(tf.int32).nested_row_splits[1],
 'nested_value_rowids': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]]).nested_value_rowids()[1],
 'from_nested_value_rowids': lambda: tf.RaggedTensor.from_nested_value_rowids([1, 2, 3, 4], [[0, 2, 2], [0, 0, 2, 2]], [4, 3]),
 'from_uniform_row_length': lambda: tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 2),
 'uniform_nested': lambda: tf.RaggedTensor.from_uniform_row_length(_R([[1], [2, 3], [], [4]]), 2),
 'from_tensor_rr2': lambda: tf.RaggedTensor.from_tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], ragged_rank=2),
 'from_tensor_lengths': lambda: tf.RaggedTensor.from_tensor([[1, 2, 3], [4, 5, 6]], lengths=[1, 3]),
 'getitem_col': lambda: _R([[1, 2, 3], [4], [5, 6]])[:, 1:],
 'getitem_2d': lambda: _R([[1, 2, 3], [4], [5, 6]])[1:, :2],
 'getitem_nested': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]])[:, :, 1:],
 'getitem_inner': lambda: _R([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)[:, :, 1],
 'getitem_row_col': lambda: _R([[1, 2, 3], [4], [5, 6]])[2, 1],
 'getitem_ellipsis': lambda: _R([[1, 2, 3], [4], [5, 6]])[..., :1],
 'getitem_newaxis': lambda: _R([[1, 2, 3], [4]])[tf.newaxis],
 'to_tensor_shape_nested': lambda: _R([[[1, 2], [3]], [], [[4, 5, 6]]]).to_tensor(shape=[2, 3, 2], default_value=9),
 'bmask_rr': lambda: tf.ragged.boolean_mask(_R([[1, 2], [3], [4, 5, 6]]), _R([[True, False], [True], [False, True, True]])),
 'bmask_rows': lambda: tf.ragged.boolean_mask(_R([[1, 2], [3], [4, 5, 6]]), [True, False, True]),
 'bmask_dense_rows': lambda: tf.ragged.boolean_mask([[1, 2], [3, 4], [5, 6]], [True, False, True]),
 'bmask_3d': lambda: tf.ragged.boolean_mask(_R([[[1, 2], [3]], [[4, 5, 6]]]), _R([[[True, False], [True]], [[False, True, True]]])),
 'bmask_3d_rows': lambda: tf.ragged.boolean_mask(_R([[[1, 2], [3]], [[4, 5, 6]]]), _R([[False, True], [True]])),
 'bmask_dense_3d': lambda: tf.ragged.boolean_mask(tf.reshape(tf.range(8), [2, 2, 2]), [[True, False], [True, True]]),
}

_EXPECTED = {
    'nested_to_tensor': ('T', [[[1, 2, -1], [3, -1, -1]], [[-1, -1, -1], [-1, -1, -1]], [[4, 5, 6], [-1, -1, -1]]], 'int32'),
    'inner_to_tensor': ('T', [[[1, 2], [3, 4]], [[5, 6], [0, 0]]], 'int32'),
    'shape_to_tensor': ('T', [[1, 2], [4, 0]], 'int32'),
    'string_to_tensor': ('T', [[b'a', b'b'], [b'c', b'']], 'object'),
    'nested_to_sparse': ('S', [[0, 0, 0], [0, 0, 1], [0, 1, 0], [2, 0, 0], [2, 0, 1], [2, 0, 2]], [1, 2, 3, 4, 5, 6], [3, 2, 3]),
    'inner_to_sparse': ('S', [[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]], [1, 2, 3, 4, 5, 6], [2, 2, 2]),
    'range_float': ('R', [[0.0, 0.5, 1.0, 1.5], [5.0, 3.5, 2.0]], 'float32'),
    'range_one': ('R', [[0, 1, 2], [], [0, 1]], 'int32'),
    'slice_nested': ('R', [[], [[7]]], 'int32'),
    'row_nested': ('R', [[1, 2], [3]], 'int32'),
    'neg_slice': ('R', [[2, 3], [4, 5, 6]], 'int32'),
    'from_sparse': ('R', [[1.0, 2.0], [], [3.0], []], 'float32'),
    'from_value_rowids': ('R', [[3, 1], [], [4, 1], [5], []], 'int32'),
    'from_row_starts': ('R', [[], [3, 1], [4, 1, 5]], 'int32'),
    'from_row_limits': ('R', [[3], [], [1, 4, 1, 5]], 'int32'),
    'from_row_lengths': ('R', [[3, 1], [], [4, 1, 5]], 'int32'),
    'from_nested_row_splits': ('R', [[[1, 2]], [[], [3, 4]]], 'int32'),
    'from_nested_row_lengths': ('R', [[[1, 2]], [[], [3, 4]]], 'int32'),
    'from_tensor_padding': ('R', [[1, 0, 2], [], [3]], 'int32'),
    'from_tensor_plain': ('R', [[1, 2], [3, 4], [5, 6]], 'int32'),
    'from_tensor_3d_pad': ('R', [[[1, 1]], []], 'int32'),
    'seg_to_splits': ('T', [0, 2, 2, 4, 5], 'int64'),
    'seg_to_splits_n': ('T', [0, 2, 2, 3, 3, 3], 'int64'),
    'splits_to_seg': ('T', [0, 0, 2, 2, 2], 'int64'),
    'boolean_mask': ('R', [[1, 3], []], 'int32'),
    'map_flat_values': ('R', [[10, 20], [30]], 'int32'),
    'row_lengths_2': ('R', [[2, 1], [], [3]], 'int64'),
    'value_rowids': ('T', [0, 0, 2], 'int64'),
    'nrows32': ('T', 3, 'int32'),
    'with_flat_values': ('R', [[[1.0, 2.0], [3.0]], [[4.0]]], 'float32'),
    'empty_const': ('R', [[], []], 'float32'),
    'stack': ('R', [[[1, 2], [3]], [[4], [], [5, 6]]], 'int32'),
    'stack_nested': ('R', [[[[1], [2, 3]]], [[[4]], []]], 'int32'),
    'stack_vectors': ('R', [[1, 2], [3]], 'int32'),
    'stack_axis1': ('R', [[[1, 2], [4]], [[3], [5, 6]]], 'int32'),
    'stack_axis1_dense': ('R', [[[1, 2], [7, 8]], [[3], [9, 10]]], 'int32'),
    'stack_axis2': ('R', [[[1, 4], [2, 5]], [[3, 6]]], 'int32'),
    'stack_axis_neg': ('R', [[[1, 4], [2, 5]], [[3, 6]]], 'int32'),
    'stack_axis1_3d': ('R', [[[[1], [2, 3]], [[5]]], [[[4]], []]], 'int32'),
    'cross': ('R', [[b'a_X_d_X_f', b'b_X_d_X_f'], [b'c_X_e_X_g', b'c_X_e_X_h']], 'object'),
    'cross_int': ('R', [[b'1_X_x', b'2_X_x'], []], 'object'),
    'cross_int32': ('R', [[b'1_X_x', b'1_X_z'], [b'2_X_y']], 'object'),
    'cross_hashed': ('R', [[82, 54], [41]], 'int64'),
    'cross_hashed_int': ('R', [[1499106900099428149, 5256780658367613573], [1779267445957561478]], 'int64'),
    'cross_hashed_raw': ('R', [[3550520439517529108, 5701958020731327761], [5287514571041673476]], 'int64'),
    'cross_splits32': ('R', [[b'a', b'b'], [b'c']], 'object'),
    'sdp': ('R', [[10, 30], [], [20, 40, 50], []], 'int32'),
    'sdp_2d': ('R', [[[3, 4]], [[1, 2], [5, 6]]], 'int32'),
    'sdp_ragged': ('R', [[[]], [[1], [2, 3]], []], 'int32'),
    'bounding_shape': ('T', [3, 2, 3], 'int64'),
    'bounding_shape_axis': ('T', [3, 3], 'int64'),
    'bounding_shape_inner': ('T', [2, 2, 2], 'int32'),
    'merge_dims_01': ('R', [[1, 2], [3], [4, 5, 6]], 'int32'),
    'merge_dims_12': ('R', [[1, 2, 3], [], [4, 5, 6]], 'int32'),
    'merge_dims_all': ('T', [1, 2, 3, 4, 5, 6], 'int32'),
    'merge_dims_inner': ('R', [[1, 2], [3, 4, 5, 6]], 'int32'),
    'with_row_splits_dtype': ('T', [0, 2, 3, 4], 'int32'),
    'nested_value_rowids': ('T', [0, 0, 1, 2, 2, 2], 'int64'),
    'from_nested_value_rowids': ('R', [[[1, 2]], [], [[], [3, 4]], []], 'int32'),
    'from_uniform_row_length': ('R', [[1, 2], [3, 4], [5, 6]], 'int32'),
    'uniform_nested': ('R', [[[1], [2, 3]], [[], [4]]], 'int32'),
    'from_tensor_rr2': ('R', [[[1, 2], [3, 4]], [[5, 6], [7, 8]]], 'int32'),
    'from_tensor_lengths': ('R', [[1], [4, 5, 6]], 'int32'),
    'getitem_col': ('R', [[2, 3], [], [6]], 'int32'),
    'getitem_2d': ('R', [[4], [5, 6]], 'int32'),
    'getitem_nested': ('R', [[[2], []], [], [[5, 6]]], 'int32'),
    'getitem_inner': ('R', [[2], [4, 6]], 'int32'),
    'getitem_row_col': ('T', 6, 'int32'),
    'getitem_ellipsis': ('R', [[1], [4], [5]], 'int32'),
    'getitem_newaxis': ('R', [[[1, 2, 3], [4]]], 'int32'),
    'to_tensor_shape_nested': ('T', [[[1, 2], [3, 9], [9, 9]], [[9, 9], [9, 9], [9, 9]]], 'int32'),
    'bmask_rr': ('R', [[1], [3], [5, 6]], 'int32'),
    'bmask_rows': ('R', [[1, 2], [4, 5, 6]], 'int32'),
    'bmask_dense_rows': ('T', [[1, 2], [5, 6]], 'int32'),
    'bmask_3d': ('R', [[[1], [3]], [[5, 6]]], 'int32'),
    'bmask_3d_rows': ('R', [[[3]], [[4, 5, 6]]], 'int32'),
    'bmask_dense_3d': ('R', [[[0, 1]], [[4, 5], [6, 7]]], 'int32'),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_ragged_values_match_tf(case):
    with tf.Graph().as_default(), tf.Session() as sess:
        assert _show(sess.run(_CASES[case]())) == _EXPECTED[case]


def test_static_shapes_and_structure():
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3, 4, 5], [0, 2, 2, 5])
    assert rt.shape.as_list() == [3, None] and rt.dtype == tf.int32 and rt.row_splits.dtype == tf.int64
    assert rt.ragged_rank == 1 and rt.to_tensor().shape.as_list() == [3, None]
    nested = tf.ragged.constant([[[1, 2], [3]], [[4]]])
    assert nested.shape.as_list() == [2, None, None] and nested.ragged_rank == 2
    assert len(nested.nested_row_splits) == 2 and nested.flat_values.shape.as_list() == [4]
    inner = tf.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1)
    assert inner.shape.as_list() == [2, None, 2] and inner.to_tensor().shape.as_list() == [2, None, 2]
    assert isinstance(inner.to_sparse(), tf.SparseTensor) and tf.is_tensor(rt)


def test_fetch_and_feed_ragged_tensor_value():
    p = tf.ragged.placeholder(tf.int32, 1, [])
    assert p.flat_values.op.type == "Placeholder" and p.row_splits.op.name == "RaggedPlaceholder/row_splits_0"
    value = tf.ragged.RaggedTensorValue(np.array([1, 2, 3], np.int32), np.array([0, 1, 3]))
    with tf.Session() as sess:
        out = sess.run(p.to_tensor(), {p: value})
        fetched = sess.run(p, {p: value})
    np.testing.assert_array_equal(out, [[1, 0], [2, 3]])
    assert str(fetched) == "<tf.RaggedTensorValue [[1], [2, 3]]>" and fetched.shape == (2, None)
    assert tf.ragged.constant_value([[1, 2], [3]]).to_list() == [[1, 2], [3]]


def test_validate_raises_at_run_time():
    splits = tf.placeholder(tf.int64, [None])
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3], splits)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="do not form a valid RaggedTensor:monotonic"):
            sess.run(rt.row_splits, {splits: [0, 2, 1, 3]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="do not form a valid RaggedTensor:nvals"):
            sess.run(rt.row_splits, {splits: [0, 2, 5]})
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="Requires delta != 0"):
        sess.run(tf.ragged.range([0, 1], [3, 4], [1, 0]).values)


def test_build_errors():
    with pytest.raises(ValueError, match=r"RaggedTensor constructor is private"):
        tf.RaggedTensor([1], [0, 1])
    with pytest.raises(ValueError, match=r"Shape \(1, 3\) must have rank 1"):
        tf.RaggedTensor.from_row_splits([1, 2, 3], [[0, 2, 3]])
    with pytest.raises(ValueError, match="Specify argument `lengths` or `padding`, but not both."):
        tf.RaggedTensor.from_tensor([[1]], lengths=[1], padding=0)


def test_to_tensor_gradient():
    splits = np.array([0, 2, 2, 5])

    def build(values, default):
        rt = tf.RaggedTensor.from_row_splits(values, splits, validate=False)
        return rt.to_tensor(default_value=default) * np.arange(9.0).reshape(3, 3)

    check_gradient(build, [np.array([1.0, 2, 3, 4, 5]), np.array(0.5)])
    check_gradient(lambda v: tf.RaggedTensor.from_row_splits(v, splits, validate=False).to_tensor(shape=[2, 2, 2]),
                   [np.arange(10.0).reshape(5, 2)])


def test_new_build_errors():
    rt = tf.ragged.constant([[1, 2], [3]])
    for build, error, message in [
            (lambda: rt.to_list(), ValueError, "to_list can only be used in eager mode."),
            (lambda: rt.numpy(), ValueError, r"RaggedTensor.numpy\(\) is only supported in eager mode."),
            (lambda: rt.merge_dims(1, 0), ValueError,
             r"Expected outer_axis \(1\) to be less than or equal to inner_axis \(0\)."),
            (lambda: tf.ragged.stack([rt, rt], axis=3), ValueError, "axis=3 out of bounds: expected -3<=axis<3"),
            (lambda: tf.ragged.stack([], axis=0), ValueError, "rt_inputs may not be empty."),
            (lambda: tf.ragged.cross(rt), TypeError, "Inputs must be a list"),
            (lambda: tf.ragged.cross([tf.ragged.constant([[[1]]])]), ValueError,
             "tf.ragged.cross only supports inputs with rank=2"),
            (lambda: rt[:, 0], ValueError, "Cannot index into an inner ragged dimension.")]:
        with pytest.raises(error, match=message):
            build()


def test_new_static_shapes():
    rt = tf.ragged.constant([[1, 2], [3]])
    uniform = tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4], 2)
    assert uniform.shape.as_list() == [2, 2] and uniform.uniform_row_length.dtype == tf.int64
    assert tf.ragged.stack([rt, rt], axis=2).shape.as_list()[-1:] == [2]
    assert tf.ragged.cross([rt]).row_splits.dtype == tf.int64
    assert tf.RaggedTensor.from_tensor(tf.zeros([2, 3, 4]), ragged_rank=2).ragged_rank == 2
    assert rt.bounding_shape().shape.as_list() == [2] and rt.merge_dims(0, 1).shape.as_list() == [3]


def test_stack_dynamic_partitions_checks_partitions():
    partitions = tf.placeholder(tf.int32, [None])
    rt = tf.ragged.stack_dynamic_partitions([1, 2, 3], partitions, 2)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="partitions must be less than num_partitions"):
        sess.run(rt.values, {partitions: [0, 2, 1]})
