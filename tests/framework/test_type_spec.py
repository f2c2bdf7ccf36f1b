"""tf.TypeSpec and its subclasses: reprs, equality, compatibility and merging as recorded from TF 2.21."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tf


def test_tensor_spec_fields_repr_equality():
    s = tf.TensorSpec([2, None], tf.float32, name="x")
    assert repr(s) == str(s) == "TensorSpec(shape=(2, ?), dtype=tf.float32, name='x')"
    assert (s.shape.as_list(), s.dtype, s.name) == ([2, None], tf.float32, "x")
    assert s == tf.TensorSpec([2, None], tf.float32, "x") and hash(s) == hash(tf.TensorSpec([2, None], "float32", "x"))
    assert s != tf.TensorSpec([2, None], tf.float32)
    assert repr(tf.TensorSpec(None)) == "TensorSpec(shape=<unknown>, dtype=tf.float32, name=None)"
    assert repr(tf.TensorSpec([3], "int32")) == "TensorSpec(shape=(3,), dtype=tf.int32, name=None)"
    assert s.value_type is tf.Tensor


def test_tensor_spec_compatibility():
    s = tf.TensorSpec([2, None], tf.float32, name="x")
    assert s.is_compatible_with(tf.TensorSpec([2, 3], tf.float32, name="other"))
    assert not s.is_compatible_with(tf.TensorSpec([2, 3], tf.int32))
    assert s.is_compatible_with(tf.zeros([2, 5])) and not s.is_compatible_with(tf.zeros([3, 5]))
    assert not s.is_compatible_with(np.zeros([2, 5], np.float32))  # TF: only specs and tensors
    assert tf.TensorSpec([2]).is_subtype_of(tf.TensorSpec([None]))
    assert not tf.TensorSpec([None]).is_subtype_of(tf.TensorSpec([2]))


def test_most_specific_compatible_type():
    a = tf.TensorSpec([2, 3], tf.float32)
    assert repr(a.most_specific_compatible_type(tf.TensorSpec([2, 4]))) == \
        "TensorSpec(shape=(2, ?), dtype=tf.float32, name=None)"
    assert a.most_specific_compatible_type(tf.TensorSpec([2, 3, 4])).shape.rank is None
    with pytest.raises(ValueError, match=r"No TypeSpec is compatible with both TensorSpec\(shape=\(2, 3\), "
                                         r"dtype=tf.float32, name=None\) and TensorSpec\(shape=\(2, 3\), dtype=tf.int32"):
        a.most_specific_compatible_type(tf.TensorSpec([2, 3], tf.int32))
    with pytest.raises(ValueError, match="No TypeSpec"):  # names must agree
        tf.TensorSpec([2], name="a").most_specific_compatible_type(tf.TensorSpec([2], name="b"))
    with pytest.raises(ValueError, match="No TypeSpec"):
        tf.TensorSpec([1]).most_specific_compatible_type(tf.SparseTensorSpec([1]))
    assert tf.TensorSpec([2]).most_specific_common_supertype([tf.TensorSpec([2], tf.int32)]) is None
    merged = tf.SparseTensorSpec([3, 2]).most_specific_compatible_type(tf.SparseTensorSpec([1, 2]))
    assert repr(merged) == "SparseTensorSpec(TensorShape([Dimension(None), Dimension(2)]), tf.float32)"


def test_from_tensor_and_from_spec():
    with tf.Graph().as_default():
        t = tf.placeholder(tf.float32, [None, 4], name="ph")
        assert repr(tf.TensorSpec.from_tensor(t)) == "TensorSpec(shape=(?, 4), dtype=tf.float32, name='ph')"
        assert tf.TensorSpec.from_tensor(t, name="q").name == "q"
    s = tf.TensorSpec([2], tf.int32, "x")
    assert tf.TensorSpec.from_spec(s) == s and tf.TensorSpec.from_spec(s, name="z").name == "z"
    with pytest.raises(ValueError, match="`tensor` should be a tf.Tensor"):
        tf.TensorSpec.from_tensor(np.zeros(2))


def test_type_spec_from_value():
    with tf.Graph().as_default():
        t = tf.placeholder(tf.float32, [None, 4])
        assert repr(tf.type_spec_from_value(t)) == "TensorSpec(shape=(?, 4), dtype=tf.float32, name=None)"
        assert tf.type_spec_from_value(np.zeros([2], np.int32)) == tf.TensorSpec([2], tf.int32)
        assert tf.type_spec_from_value(3) == tf.TensorSpec([], tf.int32)
        assert tf.type_spec_from_value([1., 2.]) == tf.TensorSpec([2], tf.float32)
        assert tf.type_spec_from_value(None) == tf.NoneTensorSpec()
        st = tf.SparseTensor([[0, 0]], [1.0], [3, 4])
        assert repr(tf.type_spec_from_value(st)) == \
            "SparseTensorSpec(TensorShape([Dimension(3), Dimension(4)]), tf.float32)"
        assert tf.type_spec_from_value(tf.SparseTensorValue([[0]], [1], [3])) == tf.SparseTensorSpec([3], tf.int32)
        slices = tf.IndexedSlices(tf.zeros([2, 3]), tf.constant([0, 1]), tf.constant([5, 3]))
        assert repr(tf.type_spec_from_value(slices)) == (
            "IndexedSlicesSpec(TensorShape([Dimension(5), Dimension(3)]), tf.float32, tf.int32, tf.int32, "
            "TensorShape([Dimension(2)]))")
        rt = tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 1, 3])
        assert repr(tf.type_spec_from_value(rt)) == \
            "RaggedTensorSpec(TensorShape([Dimension(2), Dimension(None)]), tf.int32, 1, tf.int64)"
        assert repr(tf.type_spec_from_value(tf.TensorArray(tf.float32, size=3))) == \
            "TensorArraySpec(TensorShape(None), tf.float32, False, True)"
        assert repr(tf.type_spec_from_value(tf.data.Dataset.range(3))) == \
            "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"
    with pytest.raises(TypeError, match="Could not build a TypeSpec for <object object at .*> of unsupported type "
                                        "<class 'object'>."):
        tf.type_spec_from_value(object())


def test_type_spec_is_abstract():
    with pytest.raises(TypeError, match="Can't instantiate abstract class TypeSpec"):
        tf.TypeSpec()
    assert tf.data.experimental.Structure is tf.TypeSpec


def test_composite_specs_repr():
    assert repr(tf.SparseTensorSpec()) == "SparseTensorSpec(TensorShape(None), tf.float32)"
    assert repr(tf.IndexedSlicesSpec()) == \
        "IndexedSlicesSpec(TensorShape(None), tf.float32, tf.int64, None, TensorShape([Dimension(None)]))"
    assert repr(tf.IndexedSlicesSpec([None, 3], tf.float32, tf.int32, tf.int64, [5])) == (
        "IndexedSlicesSpec(TensorShape([Dimension(None), Dimension(3)]), tf.float32, tf.int32, tf.int64, "
        "TensorShape([Dimension(5)]))")
    assert repr(tf.TensorArraySpec([2], tf.int32, True, False)) == \
        "TensorArraySpec(TensorShape([Dimension(2)]), tf.int32, True, False)"
    assert repr(tf.OptionalSpec(tf.TensorSpec([1]))) == \
        "OptionalSpec(TensorSpec(shape=(1,), dtype=tf.float32, name=None),)"
    assert repr(tf.NoneTensorSpec()) == "NoneTensorSpec()"
    assert tf.NoneTensorSpec() == tf.NoneTensorSpec()
    assert tf.SparseTensorSpec([2]) == tf.SparseTensorSpec([2])
    assert hash(tf.SparseTensorSpec([2])) == hash(tf.SparseTensorSpec([2]))


def test_ragged_tensor_spec():
    assert repr(tf.RaggedTensorSpec([2, None, 4], ragged_rank=2)) == \
        "RaggedTensorSpec(TensorShape([Dimension(2), Dimension(None), Dimension(4)]), tf.float32, 2, tf.int64)"
    assert repr(tf.RaggedTensorSpec([3], ragged_rank=None)) == \
        "RaggedTensorSpec(TensorShape([Dimension(3)]), tf.float32, 0, tf.int64)"
    with pytest.raises(ValueError, match="Must specify ragged_rank or a shape with a known rank."):
        tf.RaggedTensorSpec()
    with pytest.raises(ValueError, match=r"Argument `ragged_rank` \(3\) must be less than rank \(3\)."):
        tf.RaggedTensorSpec([2, None, 4], ragged_rank=3)
    with pytest.raises(TypeError, match="Argument `ragged_rank` must be an int. Received 1.5."):
        tf.RaggedTensorSpec([2, None], ragged_rank=1.5)
    with pytest.raises(ValueError, match="dtype must be the same as flat_values_spec.dtype"):
        tf.RaggedTensorSpec([2, None, 3], flat_values_spec=tf.TensorSpec([None, 3], tf.int32))
    a = tf.RaggedTensorSpec([2, None, 3], tf.int32, 1)
    assert a.is_compatible_with(tf.RaggedTensorSpec([None, None, 3], tf.int32, 1))
    assert not a.is_compatible_with(tf.RaggedTensorSpec([None, None, 3], tf.int32, 2))
    assert a.most_specific_compatible_type(tf.RaggedTensorSpec([4, None, 3], tf.int32, 1)) == \
        tf.RaggedTensorSpec([None, None, 3], tf.int32, 1)
    assert tf.RaggedTensorSpec([None, None, 2], tf.int32)._component_specs == [
        tf.TensorSpec([None], tf.int32), tf.TensorSpec([None], tf.int64), tf.TensorSpec([None], tf.int64)]
    with tf.Graph().as_default():
        rt = tf.RaggedTensor.from_row_splits([[1, 2], [2, 3], [3, 4]], [0, 1, 3])
        assert tf.RaggedTensorSpec.from_value(rt) == tf.RaggedTensorSpec([2, None, 2], tf.int32, 1)
        assert not tf.RaggedTensorSpec([None, None, 2], tf.int32).is_compatible_with(rt)


def test_tensor_array_spec():
    assert tf.TensorArraySpec([2], tf.int32).is_compatible_with(tf.TensorArraySpec([None], tf.int32))
    with pytest.raises(ValueError, match="No TypeSpec"):
        tf.TensorArraySpec([2], tf.int32).most_specific_compatible_type(tf.TensorArraySpec([3], tf.int32, True))
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2], dynamic_size=True, infer_shape=False)
        assert tf.TensorArraySpec.from_value(ta) == tf.TensorArraySpec([2], tf.float32, True, False)
        assert not tf.TensorArraySpec([2]).is_compatible_with(ta)
        assert tf.TensorArraySpec([2], dynamic_size=True, infer_shape=False).is_compatible_with(ta)


def test_dataset_element_spec_and_dataset_spec():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3)
        assert ds.element_spec == tf.TensorSpec([], tf.int64)
        assert tf.data.DatasetSpec.from_value(ds) == tf.data.DatasetSpec(tf.TensorSpec([], tf.int64))
        assert repr(tf.data.DatasetSpec(tf.TensorSpec([], tf.int64), [2])) == \
            "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([Dimension(2)]))"
        nested = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [3., 4.])).element_spec
        assert nested == ({"a": tf.TensorSpec([], tf.int32)}, tf.TensorSpec([], tf.float32))
        iterator = tf.data.make_one_shot_iterator(ds)
        assert iterator.element_spec == tf.data.experimental.get_structure(iterator) == tf.TensorSpec([], tf.int64)
        with pytest.raises(TypeError, match="Invalid `dataset_or_iterator`"):
            tf.data.experimental.get_structure(3)
        assert tf.data.experimental.TensorStructure(tf.int32, [2]) == tf.TensorSpec([2], tf.int32)
        assert tf.data.experimental.RaggedTensorStructure(tf.int32, [2, None], 1) == \
            tf.RaggedTensorSpec([2, None], tf.int32, 1)


def test_from_generator_output_signature():
    with tf.Graph().as_default():
        signature = (tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.float32))
        ds = tf.data.Dataset.from_generator(lambda: iter([(1, [2., 3.])]), output_signature=signature)
        assert ds.output_types == (tf.int32, tf.float32) and ds.element_spec == signature
        with tf.Session() as sess:
            a, b = sess.run(tf.data.make_one_shot_iterator(ds).get_next())
        assert a == 1 and b.tolist() == [2., 3.] and b.dtype == np.float32
        with pytest.raises(TypeError, match="The `output_types` argument can not be used together with the "
                                            "`output_signature` argument."):
            tf.data.Dataset.from_generator(lambda: iter([1]), output_types=tf.int32, output_signature=signature[0])
        with pytest.raises(TypeError, match="To specify the output signature you need to provide either"):
            tf.data.Dataset.from_generator(lambda: iter([1]))
        with pytest.raises(TypeError, match="`output_signature` must contain objects that are subclass of "
                                            "`tf.TypeSpec` but found <class 'int'> which is not."):
            tf.data.Dataset.from_generator(lambda: iter([1]), output_signature=3)
