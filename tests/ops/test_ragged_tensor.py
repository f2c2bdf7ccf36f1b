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
