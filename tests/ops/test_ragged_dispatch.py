"""Ragged dispatch: tf.reduce_*, elementwise math and operators, cast, where, concat, gather, size, rank,
zeros_like/ones_like and strings.length on tf.RaggedTensor, against values recorded from TensorFlow 2.21
(compat.v1), and TF's errors."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _show(v):
    """A fetched value as plain lists, tagged with its kind, as recorded from TF."""
    if hasattr(v, "to_list"):
        return ("R", v.to_list(), str(v.flat_values.dtype))
    return ("T", np.asarray(v).tolist(), str(np.asarray(v).dtype))


def _R(pylist, **kwargs):
    return tf.ragged.constant(pylist, **kwargs)


_N = [[[1, 2], [3]], [], [[4, 5, 6], [7]]]
_CASES = {
 'reduce_sum1': lambda: tf.reduce_sum(_R([[1, 2, 3], [4], []]), axis=1),
 'reduce_sum0': lambda: tf.reduce_sum(_R([[1, 2, 3], [4], []]), axis=0),
 'reduce_sum_all': lambda: tf.reduce_sum(_R([[1, 2, 3], [4], []])),
 'reduce_mean1': lambda: tf.reduce_mean(_R([[1., 2, 3], [4], []]), axis=1),
 'reduce_mean_axes': lambda: tf.reduce_mean(_R(_N, dtype=tf.float32), axis=[1, 2]),
 'reduce_max1': lambda: tf.reduce_max(_R([[1, 2, 3], [4], []]), axis=1),
 'reduce_min0': lambda: tf.reduce_min(_R([[1, 2, 3], [4], []]), axis=0),
 'reduce_prod_nested': lambda: tf.reduce_prod(_R([[[1, 2], [3]], [[4, 5, 6]]]), axis=2),
 'reduce_nested1': lambda: tf.reduce_sum(_R(_N), axis=1),
 'reduce_nested0': lambda: tf.reduce_max(_R(_N), axis=0),
 'reduce_nested01': lambda: tf.reduce_sum(_R(_N), axis=[0, 1]),
 'reduce_inner_dense': lambda: tf.reduce_sum(_R([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1), axis=2),
 'reduce_any': lambda: tf.reduce_any(_R([[True, False], [False]]), axis=1),
 'reduce_all0': lambda: tf.reduce_all(_R([[True, False], [False], [True, True, True]]), axis=0),
 'elementwise_add': lambda: _R([[1, 2], [3]]) + _R([[10, 20], [30]]),
 'elementwise_scalar': lambda: _R([[1, 2], [3]]) * 2,
 'elementwise_rsub': lambda: 10 - _R([[1, 2], [3]]),
 'elementwise_bcast': lambda: tf.add(_R([[1, 2], [3]]), tf.constant([[100], [200]])),
 'elementwise_inner': lambda: _R([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=1) * tf.constant([10, 100]),
 'elementwise_nested_bcast': lambda: tf.multiply(_R(_N), tf.constant([[[1]], [[2]], [[3]]])),
 'compare': lambda: _R([[1, 5], [3]]) > 2,
 'logical': lambda: (_R([[True, False], [True]]) & _R([[True, True], [False]])) | ~_R([[False, False], [True]]),
 'truediv': lambda: _R([[1, 2], [3]]) / 2,
 'math_abs': lambda: tf.abs(_R([[-1, 2], [-3]])),
 'math_cast': lambda: tf.cast(_R([[1, 2], [3]]), tf.float32),
 'math_equal': lambda: tf.equal(_R([[1, 2], [3]]), 2),
 'math_neg': lambda: -_R([[1, 2], [3]]),
 'math_sqrt': lambda: tf.math.sqrt(_R([[1., 4.], [9.]])),
 'math_maximum': lambda: tf.maximum(_R([[1, 7], [3]]), 2),
 'concat_axis0': lambda: tf.concat([_R([[1, 2], [3]]), _R([[4], [], [5, 6]])], axis=0),
 'concat_axis1': lambda: tf.concat([_R([[1, 2], [3]]), _R([[4], [5, 6]])], axis=1),
 'concat_axis1_dense': lambda: tf.concat([_R([[1, 2], [3]]), tf.constant([[7], [9]])], axis=1),
 'concat_axis2': lambda: tf.concat([_R([[[1], [2, 3]], [[4]]]), _R([[[5], [6]], [[7, 8]]])], axis=2),
 'concat_neg': lambda: tf.concat([_R([[1, 2], [3]]), _R([[4], [5, 6]])], axis=-1),
 'gather': lambda: tf.gather(_R([[1, 2], [3], [4, 5, 6]]), [2, 0]),
 'gather_scalar': lambda: tf.gather(_R([[1, 2], [3], [4, 5, 6]]), 2),
 'gather_ragged_idx': lambda: tf.gather([10, 20, 30], _R([[0, 1], [2]])),
 'gather_both': lambda: tf.gather(_R([[1, 2], [3], [4, 5, 6]]), _R([[2], [0, 1]])),
 'where': lambda: tf.where(_R([[True, False], [True]]), _R([[1, 2], [3]]), _R([[10, 20], [30]])),
 'size': lambda: tf.size(_R([[1, 2], [3]])),
 'rank': lambda: tf.rank(_R([[[1, 2], [3]]])),
 'ones_like': lambda: tf.ones_like(_R([[1, 2], [3]])),
 'zeros_like': lambda: tf.zeros_like(_R([[1, 2], [3]]), dtype=tf.float32),
 'string_length': lambda: tf.strings.length(_R([["ab", "c"], [""]])),
 'sum_keep': lambda: tf.reduce_sum(_R([[1, 2], [3]]), axis=1, keepdims=True),
 'max_keep0': lambda: tf.reduce_max(_R([[1, 2], [3]]), axis=0, keepdims=True),
 'reduce_join': lambda: tf.strings.reduce_join(_R([["a", "b"], ["c"], []]), axis=1, separator="-"),
 'reduce_join_all': lambda: tf.strings.reduce_join(_R([["a", "b"], ["c"]])),
}

_EXPECTED = {
    'reduce_sum1': ('T', [6, 4, 0], 'int32'),
    'reduce_sum0': ('T', [5, 2, 3], 'int32'),
    'reduce_sum_all': ('T', 10, 'int32'),
    'reduce_mean1': ('T', [2.0, 4.0, np.nan], 'float32'),
    'reduce_mean_axes': ('T', [2.0, np.nan, 5.5], 'float32'),
    'reduce_max1': ('T', [3, 4, -2147483648], 'int32'),
    'reduce_min0': ('T', [1, 2, 3], 'int32'),
    'reduce_prod_nested': ('R', [[2, 3], [120]], 'int32'),
    'reduce_nested1': ('R', [[4, 2], [], [11, 5, 6]], 'int32'),
    'reduce_nested0': ('R', [[4, 5, 6], [7]], 'int32'),
    'reduce_nested01': ('T', [15, 7, 6], 'int32'),
    'reduce_inner_dense': ('R', [[3], [7, 11]], 'int32'),
    'reduce_any': ('T', [True, False], 'bool'),
    'reduce_all0': ('T', [False, False, True], 'bool'),
    'elementwise_add': ('R', [[11, 22], [33]], 'int32'),
    'elementwise_scalar': ('R', [[2, 4], [6]], 'int32'),
    'elementwise_rsub': ('R', [[9, 8], [7]], 'int32'),
    'elementwise_bcast': ('R', [[101, 102], [203]], 'int32'),
    'elementwise_inner': ('R', [[[10, 200]], [[30, 400], [50, 600]]], 'int32'),
    'elementwise_nested_bcast': ('R', [[[1, 2], [3]], [], [[12, 15, 18], [21]]], 'int32'),
    'compare': ('R', [[False, True], [True]], 'bool'),
    'logical': ('R', [[True, True], [False]], 'bool'),
    'truediv': ('R', [[0.5, 1.0], [1.5]], 'float64'),
    'math_abs': ('R', [[1, 2], [3]], 'int32'),
    'math_cast': ('R', [[1.0, 2.0], [3.0]], 'float32'),
    'math_equal': ('R', [[False, True], [False]], 'bool'),
    'math_neg': ('R', [[-1, -2], [-3]], 'int32'),
    'math_sqrt': ('R', [[1.0, 2.0], [3.0]], 'float32'),
    'math_maximum': ('R', [[2, 7], [3]], 'int32'),
    'concat_axis0': ('R', [[1, 2], [3], [4], [], [5, 6]], 'int32'),
    'concat_axis1': ('R', [[1, 2, 4], [3, 5, 6]], 'int32'),
    'concat_axis1_dense': ('R', [[1, 2, 7], [3, 9]], 'int32'),
    'concat_axis2': ('R', [[[1, 5], [2, 3, 6]], [[4, 7, 8]]], 'int32'),
    'concat_neg': ('R', [[1, 2, 4], [3, 5, 6]], 'int32'),
    'gather': ('R', [[4, 5, 6], [1, 2]], 'int32'),
    'gather_scalar': ('T', [4, 5, 6], 'int32'),
    'gather_ragged_idx': ('R', [[10, 20], [30]], 'int32'),
    'gather_both': ('R', [[[4, 5, 6]], [[1, 2], [3]]], 'int32'),
    'where': ('R', [[1, 20], [3]], 'int32'),
    'size': ('T', 3, 'int32'),
    'rank': ('T', 3, 'int32'),
    'ones_like': ('R', [[1, 1], [1]], 'int32'),
    'zeros_like': ('R', [[0.0, 0.0], [0.0]], 'float32'),
    'string_length': ('R', [[2, 1], [0]], 'int32'),
    'sum_keep': ('T', [[3], [3]], 'int32'),
    'max_keep0': ('T', [[3, 2]], 'int32'),
    'reduce_join': ('T', [b'a-b', b'c', b''], 'object'),
    'reduce_join_all': ('T', b'abc', '|S3'),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_ragged_dispatch_matches_tf(case):
    with tf.Graph().as_default(), tf.Session() as sess:
        got, want = _show(sess.run(_CASES[case]())), _EXPECTED[case]
    np.testing.assert_equal(got, want)


def test_mismatched_ragged_operands_fail_when_run():
    splits = tf.placeholder(tf.int64, [None])
    total = tf.RaggedTensor.from_row_splits([1, 2, 3], splits) + _R([[1], [2, 3]])
    with tf.Session() as sess:
        assert sess.run(total, {splits: [0, 1, 3]}).to_list() == [[2], [4, 6]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Condition x == y did not hold"):
            sess.run(total, {splits: [0, 2, 3]})


def test_dispatch_build_errors_and_static_shapes():
    rt = _R([[1, 2], [3]])
    with pytest.raises(ValueError, match="Unable to broadcast"):
        rt + tf.constant([1, 2])
    with pytest.raises(TypeError, match="Got an unexpected keyword argument 'axes'"):
        tf.reduce_sum(rt, axes=1)
    assert tf.reduce_sum(rt, axis=1).shape.as_list() == [2] and (rt * 2).shape.as_list() == [2, None]
    assert tf.concat([rt, rt], axis=0).dtype == tf.int32 and tf.gather(rt, [1]).ragged_rank == 1
