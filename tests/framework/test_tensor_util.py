"""Static evaluation while building graphs: `constant_value` and `constant_value_as_shape` (what TF's C++
shape inference sees, so static shapes follow shape vectors and axes computed from constants and static
shapes), and `get_static_value` (TF's weaker Python-side `tf.get_static_value`).

Every expected shape, value and message is a literal recorded from TensorFlow 2.21 (`tf.compat.v1`, graph
mode); a message is TF's own, before the node description TF may append.
"""

import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework import tensor_util


def _inputs() -> dict:
    return {"x": tf.placeholder(tf.float32, [None, 3, 4]), "y": tf.placeholder(tf.float32, [2, 3, 4]),
            "v": tf.placeholder(tf.float32, [5, 6, 7]), "u": tf.placeholder(tf.float32),
            "n": tf.placeholder(tf.int32, []), "pf": tf.placeholder(tf.float32, [])}


SHAPES = {
    "reshape_stack_shape0": (lambda x, **_: tf.reshape(x, tf.stack([tf.shape(x)[0], -1])), [None, None]),
    "reshape_stack_known_dim": (lambda x, **_: tf.reshape(x, tf.stack([tf.shape(x)[1], -1])), [3, None]),
    "reshape_stack_negative_index": (lambda x, **_: tf.reshape(x, tf.stack([tf.shape(x)[-1], -1])),
                                     [4, None]),
    "reshape_stack_product": (lambda x, **_: tf.reshape(x, tf.stack([-1, tf.shape(x)[1] * tf.shape(x)[2]])),
                              [None, 12]),
    "reshape_unstack_shape": (lambda x, **_: tf.reshape(x, tf.stack([tf.unstack(tf.shape(x))[1], -1])),
                              [3, None]),
    "reshape_concat": (lambda x, **_: tf.reshape(x, tf.concat([tf.shape(x)[:1], [4, 3]], 0)), [None, 4, 3]),
    "reshape_concat_minus_one": (lambda x, **_: tf.reshape(x, tf.concat([tf.shape(x)[:1], [-1]], 0)),
                                 [None, None]),
    "reshape_concat_unknown_rank": (lambda x, u, **_: tf.reshape(x, tf.concat([tf.shape(u), [-1]], 0)), None),
    "reshape_cast_shape": (lambda x, **_: tf.reshape(x, tf.cast(tf.shape(x), tf.int64)), [None, 3, 4]),
    "reshape_cast_via_float_known": (
        lambda y, **_: tf.reshape(y, tf.cast(tf.cast(tf.shape(y), tf.float32), tf.int32)), [2, 3, 4]),
    "reshape_cast_via_float_partial": (
        lambda x, **_: tf.reshape(x, tf.cast(tf.cast(tf.shape(x), tf.float32), tf.int32)),
        [None, None, None]),
    "reshape_arithmetic": (lambda **_: tf.reshape(tf.zeros([24]), tf.constant([2, 3]) * 2), [4, 6]),
    "reshape_expand_squeeze": (
        lambda y, **_: tf.reshape(y, tf.squeeze(tf.expand_dims(tf.constant([4, 6]), 0))), [4, 6]),
    "reshape_shrink_of_const": (lambda y, **_: tf.reshape(y, tf.constant([[4, 6]])[0]), [4, 6]),
    "reshape_gather": (lambda y, **_: tf.reshape(y, tf.gather(tf.constant([4, 6, 9]), [1, 0])), [6, 4]),
    "reshape_placeholder": (lambda y, **_: tf.reshape(y, tf.placeholder(tf.int32, [3])), [None, None, None]),
    "reshape_placeholder_with_default": (
        lambda y, **_: tf.reshape(y, tf.placeholder_with_default([4, 6], [2])), [None, None]),
    "reshape_maximum_partial": (lambda x, **_: tf.reshape(x, tf.maximum(tf.shape(x), 1)), [None, None, None]),
    "reshape_maximum_known": (lambda y, **_: tf.reshape(y, tf.maximum(tf.shape(y), 1)), [2, 3, 4]),
    "reshape_slice_op": (lambda x, **_: tf.reshape(x, tf.slice(tf.shape(x), [0], [2])), [None, None]),
    "reshape_size": (lambda y, **_: tf.reshape(y, tf.stack([tf.size(y)])), [24]),
    "reshape_size_division": (lambda y, **_: tf.reshape(y, tf.stack([tf.size(y) // 4, 4])), [6, 4]),
    "reshape_fill_product": (lambda y, **_: tf.reshape(y, tf.fill([2], 2) * tf.constant([2, 3])), [4, 6]),
    "reshape_cast_float_stack": (lambda y, **_: tf.reshape(y, tf.cast(tf.stack([4.0, 6.0]), tf.int32)),
                                 [4, 6]),
    "reshape_empty": (lambda **_: tf.reshape(tf.zeros([1, 1]), tf.zeros([0], tf.int32)), []),
    "zeros_shape_tail": (lambda x, **_: tf.zeros(tf.shape(x)[1:]), [3, 4]),
    "zeros_shape_tail_tensor_begin": (lambda x, **_: tf.zeros(tf.shape(x)[tf.constant(1):]), [3, 4]),
    "zeros_shape_tail_fed_begin": (lambda x, n, **_: tf.zeros(tf.shape(x)[n:]), None),
    "zeros_shape_head": (lambda x, **_: tf.zeros(tf.shape(x)[:-1]), [None, 3]),
    "zeros_shape_step": (lambda x, **_: tf.zeros(tf.shape(x)[::2]), [None, 4]),
    "zeros_shape_middle": (lambda x, **_: tf.zeros(tf.shape(x)[1:2]), [3]),
    "zeros_shape_negative_begin": (lambda x, **_: tf.zeros(tf.shape(x)[-2:]), [3, 4]),
    "zeros_shape_past_end": (lambda x, **_: tf.zeros(tf.shape(x)[5:]), []),
    "zeros_shape_end_clamped": (lambda x, **_: tf.zeros(tf.shape(x)[1:10]), [3, 4]),
    "zeros_shape_empty_slice": (lambda x, **_: tf.zeros(tf.shape(x)[2:1]), []),
    "zeros_shape_unknown_rank": (lambda u, **_: tf.zeros(tf.shape(u)[1:]), None),
    "zeros_concat_slices": (lambda x, **_: tf.zeros(tf.concat([tf.shape(x)[1:], tf.shape(x)[:1]], 0)),
                            [3, 4, None]),
    "zeros_stack_arithmetic": (
        lambda x, y, **_: tf.zeros(tf.stack([tf.shape(y)[0] * 2, tf.shape(x)[2] + 1])), [4, 5]),
    "zeros_scalar_dim": (lambda x, **_: tf.zeros(tf.shape(x)[1]), [3]),
    "zeros_cast_placeholder": (lambda **_: tf.zeros(tf.cast(tf.placeholder(tf.float32, [2]), tf.int32)),
                               [None, None]),
    "zeros_cast_stack": (lambda x, **_: tf.zeros(tf.cast(tf.stack([tf.shape(x)[0], 3]), tf.int64)),
                         [None, 3]),
    "fill_stack": (lambda **_: tf.fill(tf.stack([2, 3]), 1.0), [2, 3]),
    "fill_arithmetic": (lambda **_: tf.fill(tf.constant([2, 3]) + 1, 1.0), [3, 4]),
    "fill_fed_dim": (lambda n, **_: tf.fill(tf.stack([n, 3]), 1.0), [None, 3]),
    "fill_minus_one": (lambda n, **_: tf.fill(tf.stack([n, -1]), 1.0), [None, None]),
    "fill_pack_int64": (lambda **_: tf.fill(tf.stack([tf.constant(2, tf.int64), 3]), 1.0), [2, 3]),
    "fill_slice_of_const": (lambda **_: tf.fill(tf.constant([2, 3, 4])[1:], 1.0), [3, 4]),
    "fill_strided": (lambda x, **_: tf.fill(tf.strided_slice(tf.shape(x), [0], [3], [2]), 1.0), [None, 4]),
    "fill_begin_mask_2": (
        lambda x, **_: tf.fill(tf.strided_slice(tf.shape(x), [1], [3], [1], begin_mask=2), 1.0),
        [None, None]),
    "fill_new_axis_of_shrink": (lambda y, **_: tf.fill(tf.shape(y)[None, 1], 1.0), [3]),
    "fill_reshaped_slice": (lambda x, **_: tf.fill(tf.reshape(tf.shape(x)[1:], [-1]), 1.0), [None, None]),
    "fill_concat_fed_piece": (
        lambda n, **_: tf.fill(tf.concat([tf.constant([2]), tf.stack([n])], 0), 1.0), [2, None]),
    "fill_concat_unknown_length": (
        lambda **_: tf.fill(tf.concat([tf.constant([2]), tf.placeholder(tf.int32, [None])], 0), 1.0), None),
    "fill_concat_known_length": (
        lambda **_: tf.fill(tf.concat([tf.constant([2]), tf.placeholder(tf.int32, [2])], 0), 1.0),
        [2, None, None]),
    "fill_stack_unstack": (lambda x, **_: tf.fill(tf.stack(tf.unstack(tf.shape(x))), 1.0), [None, 3, 4]),
    "fill_cast_float_pack": (
        lambda pf, **_: tf.fill(tf.cast(tf.stack([tf.constant(4.0), pf]), tf.int32), 1.0), [None, None]),
    "fill_cast_int_pack": (lambda n, **_: tf.fill(tf.cast(tf.stack([tf.constant(4), n]), tf.int64), 1.0),
                           [4, None]),
    "fill_cast_fraction": (lambda **_: tf.fill(tf.cast(tf.constant([2.5, 3.0]), tf.int32), 1.0), [2, 3]),
    "fill_index_tensor": (lambda x, **_: tf.fill(tf.stack([tf.shape(x)[tf.constant(1)]]), 1.0), [None]),
    "fill_unknown_dim_plus_one": (lambda x, **_: tf.fill(tf.stack([tf.shape(x)[0] + 1]), 1.0), [None]),
    "fill_rank": (lambda x, **_: tf.fill(tf.stack([tf.rank(x), 2]), 1.0), [3, 2]),
    "fill_shrink_of_const": (lambda **_: tf.fill(tf.stack([tf.constant([5, 6])[1], 2]), 1.0), [6, 2]),
    "fill_shape_of_const_sum": (lambda **_: tf.fill(tf.shape(tf.zeros([2, 5]) + 1), 1.0), [2, 5]),
    "random_uniform_stack": (lambda x, **_: tf.random_uniform(tf.stack([tf.shape(x)[1], 2])), [3, 2]),
    "reduce_max_range": (lambda v, **_: tf.reduce_max(v, axis=tf.range(2)), [7]),
    "reduce_max_range_rank": (lambda v, **_: tf.reduce_max(v, axis=tf.range(1, tf.rank(v))), [5]),
    "reduce_sum_arithmetic": (lambda v, **_: tf.reduce_sum(v, axis=tf.constant(1) + 1), [5, 6]),
    "reduce_sum_unstack": (lambda y, **_: tf.reduce_sum(y, axis=tf.unstack(tf.constant([1, 2]))[1]), [2, 3]),
    "reduce_sum_select": (lambda y, **_: tf.reduce_sum(y, axis=tf.where(tf.constant(True), 1, 2)), [2, 4]),
    "reduce_sum_placeholder_with_default": (
        lambda y, **_: tf.reduce_sum(y, axis=tf.placeholder_with_default(1, [])), None),
    "reduce_sum_random": (lambda y, **_: tf.reduce_sum(y, axis=tf.random_uniform([], 0, 2, tf.int32)), None),
    "reduce_sum_variable": (lambda y, **_: tf.reduce_sum(y, axis=tf.Variable(1)), None),
    "reduce_sum_division_by_zero": (lambda y, **_: tf.reduce_sum(y, axis=tf.constant(1) // tf.constant(0)),
                                    None),
    "tile_stack": (lambda y, **_: tf.tile(y, tf.stack([1, 2, tf.shape(y)[0]])), [2, 6, 8]),
    "expand_dims_arithmetic": (lambda y, **_: tf.expand_dims(y, tf.constant(0) + 1), [2, 1, 3, 4]),
    "transpose_range": (lambda y, **_: tf.transpose(y, tf.range(2, -1, -1)), [4, 3, 2]),
    "slice_arithmetic": (lambda y, **_: tf.slice(y, tf.constant([0, 1, 1]) * 1, [-1, 2, 2]), [2, 2, 2]),
    "concat_axis_arithmetic": (lambda y, **_: tf.concat([y, y], tf.constant(0) + 1), [2, 6, 4]),
    "one_hot_depth_arithmetic": (lambda **_: tf.one_hot(tf.constant([1, 2]), tf.constant(3) + 2), [2, 5]),
    "range_arithmetic": (lambda **_: tf.range(tf.constant(3) + 2), [5]),
    "range_size": (lambda y, **_: tf.range(tf.size(y)), [24]),
    "gather_axis_arithmetic": (lambda y, **_: tf.gather(y, [0], axis=tf.constant(2) - 1), [2, 1, 4]),
}


@pytest.mark.parametrize("case", SHAPES)
def test_static_shape_matches_tf(case):
    build, expected = SHAPES[case]
    shape = build(**_inputs()).shape
    assert (None if shape.ndims is None else shape.as_list()) == expected


ERRORS = {
    "scalar_shape": (lambda y, **_: tf.reshape(y, 24), "Shape must be rank 1 but is rank 0"),
    "scalar_minus_one": (lambda **_: tf.fill(tf.constant(-1), 1.0), "Shape must be rank 1 but is rank 0"),
    "matrix_shape": (lambda y, **_: tf.reshape(y, tf.constant([[4, 6]])),
                     "Shape must be rank 1 but is rank 2"),
    "minus_two": (lambda y, **_: tf.reshape(y, tf.constant([-2, 12])),
                  "Invalid value in tensor used for shape: -2"),
    "reversed_shape": (lambda y, **_: tf.zeros(tf.shape(y)[::-1]),
                       "Subshape must have computed start >= end since stride is negative, but is 0 and 3 "
                       "(computed from start 0 and end 9223372036854775807 over shape with rank 3 and "
                       "stride-1)"),
    "reversed_tail": (lambda y, **_: tf.zeros(tf.shape(y)[2::-1]),
                      "Subshape must have computed start >= end since stride is negative, but is 2 and 3 "
                      "(computed from start 2 and end 9223372036854775807 over shape with rank 3 and "
                      "stride-1)"),
    "begin_out_of_bounds": (lambda x, **_: tf.zeros(tf.shape(x)[-10:]),
                            "Subshape start out of bounds: -10, for shape with rank 3"),
    "end_out_of_bounds": (lambda x, **_: tf.zeros(tf.shape(x)[2:-10:-1]),
                          "Subshape end out of bounds: -10, for shape with rank 3"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_shape_vector_errors_match_tf(case):
    build, message = ERRORS[case]
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        build(**_inputs())


def test_constant_value_runs_the_constant_subgraph():
    x = tf.placeholder(tf.float32, [None, 3])
    value = tensor_util.constant_value(tf.constant([2, 3]) * 2 + tf.shape(x)[1])
    assert value.dtype == np.int32 and value.tolist() == [7, 9]
    assert tensor_util.constant_value(tf.unstack(tf.constant([[1, 2], [3, 4]]))[1]).tolist() == [3, 4]
    assert tensor_util.constant_value(tf.shape(x, out_type=tf.int64)[-1]).dtype == np.int64
    assert tensor_util.constant_value(tf.rank(tf.placeholder(tf.float32))) is None
    assert tensor_util.constant_value(tf.shape(x)[0]) is None
    assert tensor_util.constant_value(tf.random_uniform([2]) * 0) is None


def test_constant_value_as_shape_reads_pieces():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    assert tensor_util.constant_value_as_shape(tf.stack([tf.shape(x)[1], -1])).as_list() == [3, None]
    assert tensor_util.constant_value_as_shape(tf.constant([2, 3]) + 1).as_list() == [3, 4]
    assert tensor_util.constant_value_as_shape(tf.placeholder(tf.int32, [2])).as_list() == [None, None]
    assert tensor_util.constant_value_as_shape(tf.placeholder(tf.int32)).ndims is None


def test_get_static_value_is_tfs_python_evaluation():
    x = tf.placeholder(tf.float32, [None, 3, 4])
    n = tf.placeholder(tf.int32, [])
    c = tf.constant(2)
    assert tensor_util.get_static_value(c + 3) is None  # no arithmetic on the Python side
    assert tensor_util.get_static_value(tf.shape(x)[1:]) is None
    assert tensor_util.get_static_value(tf.expand_dims(tf.constant([1, 2]), 0)) is None
    assert tensor_util.get_static_value(tf.stack([[1, 2], [3, 4]], axis=1)) is None
    assert tensor_util.get_static_value(tf.stack([tf.shape(x)[0], -1])) is None
    partial = tensor_util.get_static_value(tf.stack([tf.shape(x)[0], -1]), partial=True)
    assert partial.dtype == object and partial[0] is None and partial[1] == -1
    nested = tensor_util.get_static_value(tf.stack([tf.stack([n, 2]), [3, 4]]), partial=True)
    assert nested.dtype == object and nested.shape == (2, 2) and nested[0, 0] is None
    assert tensor_util.get_static_value(tf.cast(tf.stack([n, 2]), tf.int64), partial=True) is None
    assert tensor_util.get_static_value(tf.unstack(tf.stack([n, 2]))[1], partial=True) == 2
    assert tensor_util.get_static_value(tf.concat([[1], [2, 3]], 0)).tolist() == [1, 2, 3]
    assert tensor_util.get_static_value(tf.range(1, 7, 2)).tolist() == [1, 3, 5]
    floats = tensor_util.get_static_value(tf.range(0, 1, 0.3))
    assert floats.dtype == np.float32 and floats.tolist() == pytest.approx([0, 0.3, 0.6, 0.9])
    assert tensor_util.get_static_value(tf.fill(tf.stack([2, 3]), 1.0)).tolist() == [[1.0] * 3] * 2
    assert tensor_util.get_static_value(tf.fill([2], n)) is None
    assert tensor_util.get_static_value(tf.equal(tf.constant([1, 2]), 2)).tolist() == [False, True]
    assert tensor_util.get_static_value(tf.not_equal(c, 2)) == np.False_
    assert tensor_util.get_static_value(tf.cast(c, tf.float32)).dtype == np.float32
    assert tensor_util.get_static_value(tf.identity(tf.stack([n, 2])), partial=True)[0] is None
    assert tensor_util.get_static_value(tf.rank(x)).dtype == np.int32
    assert tensor_util.get_static_value(3) == 3 and tensor_util.get_static_value([1, 2]) == [1, 2]
    assert tensor_util.get_static_value(tf.Variable(3)) is None


def test_get_static_value_prevents_feeding():
    n = tf.placeholder(tf.int32, [])
    c = tf.constant(7)
    cast = tf.cast(c, tf.float32)
    packed = tf.stack([n, 2])
    graph = tf.get_default_graph()
    tensor_util.get_static_value(cast)
    tensor_util.get_static_value(packed, partial=True)
    assert not graph.is_feedable(cast) and not graph.is_feedable(c) and not graph.is_feedable(packed)
    assert graph.is_feedable(n)
    folded = c + 1
    assert tensor_util.constant_value(folded) == 8 and graph.is_feedable(folded)
