"""tf.data.experimental.get_next_as_optional: has_value and get_value per run, as TF 2.21's."""

import pytest

import tensorweave.compat.v1 as tf


def test_get_next_as_optional():
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [1.5, 2.5])))
        optional = tf.data.experimental.get_next_as_optional(it)
        assert repr(optional.element_spec) == ("({'a': TensorSpec(shape=(), dtype=tf.int32, name=None)}, "
                                               "TensorSpec(shape=(), dtype=tf.float32, name=None))")
        has_value, value = optional.has_value(), optional.get_value()
        assert has_value.dtype == tf.bool and has_value.shape.as_list() == []
        assert value[0]["a"].dtype == tf.int32 and value[1].dtype == tf.float32
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [bool(sess.run(has_value)) for _ in range(3)] == [True, True, False]
            sess.run(it.initializer)
            assert sess.run(value) == ({"a": 1}, 1.5)
            assert sess.run(value) == ({"a": 2}, 2.5)
            with pytest.raises(tf.errors.InvalidArgumentError, match="The given optional does not have a value."):
                sess.run(value)
