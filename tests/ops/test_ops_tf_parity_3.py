"""Divergences from TensorFlow found by fuzzing math, array, random, image, string, sparse and debugging ops
side by side with real TensorFlow 2.21 (`tf.compat.v1`): the expected values and messages are its literals."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_substr_pos_and_len_shapes_must_be_equal_not_broadcast():
    with pytest.raises(ValueError, match=r"^pos and len shapes must match: \[2\] vs. \[1\] for '\{\{node Substr\}\}"):
        tf.strings.substr(["hello", "world"], [0, 1], [1])
    with pytest.raises(ValueError, match=r"^pos and len shapes must match: \[\?\] vs. \[2\]"):
        tf.strings.substr(["hello", "world"], tf.placeholder(tf.int32, [None]), [1, 2])
    with pytest.raises(ValueError, match="^Shape must be rank 1 but is rank 0"):
        tf.strings.substr(["hello", "world"], 0, [1, 2])
    assert tf.strings.substr(["hello", "world"], tf.placeholder(tf.int32), [1, 2]).shape.ndims is None


def _sparse(dtype=tf.float32):
    return tf.SparseTensor([[0, 1], [0, 2], [1, 0]], tf.constant([3, 2, 1], dtype), [2, 3])


def test_sparse_dense_division_by_a_zero_the_entries_meet_fails():
    """Only the dense values that entries meet are checked: a zero elsewhere divides nothing."""
    assert _run((_sparse() / tf.constant([[1.0, 1.0, 1.0], [1.0, 0.0, 1.0]])).values).tolist() == [3.0, 2.0, 1.0]
    for dense in (tf.constant([-0.0, 1.0, 1.0]), tf.constant([[0.0], [2.0]])):
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="^SparseDenseCwiseDiv cannot divide by zero,but input dense tensor contains zero "):
            _run((_sparse() / dense).values)


def test_sparse_true_division_casts_integers_to_float_as_dense_division():
    g = tf.Graph()
    with g.as_default():
        quotient = _sparse(tf.int16) / tf.constant([1, 2, 4], tf.int16)
        assert quotient.values.dtype == tf.float32
        assert [op.name for op in g.get_operations()][-3:] == ["truediv/Cast", "truediv/Cast_1", "truediv"]
        assert _run(quotient.values).tolist() == [1.5, 0.5, 1.0]
    assert (_sparse(tf.int32) / 2).values.dtype == tf.float64


def test_sparse_dense_cwise_ops_have_no_complex_kernel():
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="^No OpKernel was registered to support Op 'SparseDenseCwiseMul'"):
        _run((_sparse(tf.complex64) * tf.constant([1j, 1, 1], tf.complex64)).values)
