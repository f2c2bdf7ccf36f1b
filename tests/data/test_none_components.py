"""tf.data elements holding None (TF's NoneTensorSpec components): a component of no tensor that get_next
gives back as None, through map, batch, unbatch, zip, window and the sources. Values recorded from TF 2.21."""

import pytest

import tensorweave.compat.v1 as tf
from tensorweave.framework.type_spec import NoneTensorSpec


def _values(dataset):
    """The element structure get_next gives and the values of its tensors, element by element."""
    element = tf.data.make_one_shot_iterator(dataset).get_next()
    tensors = [t for t in tf.nest.flatten(element) if t is not None]
    out = []
    with tf.Session() as sess:
        try:
            while True:
                out.append([v.tolist() for v in sess.run(tensors)])
        except tf.errors.OutOfRangeError:
            pass
    return element, out


def test_map_returning_none_in_a_tuple():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).map(lambda x: (x, None))
        assert repr(tf.data.get_output_types(ds)) == "(tf.int64, NoneTensorSpec())"
        assert repr(tf.data.get_output_shapes(ds)) == "(TensorShape([]), NoneTensorSpec())"
        assert tf.data.get_output_classes(ds) == (tf.Tensor, NoneTensorSpec())
        assert repr(ds.element_spec) == "(TensorSpec(shape=(), dtype=tf.int64, name=None), NoneTensorSpec())"
        element, out = _values(ds)
        assert element[1] is None and element[0].shape.as_list() == []
        assert out == [[0], [1], [2]]


def test_map_returning_none_in_a_dict_then_mapped_again():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).map(lambda x: {"a": x, "b": None})
        assert repr(ds.element_spec) == "{'a': TensorSpec(shape=(), dtype=tf.int64, name=None), 'b': NoneTensorSpec()}"
        seen = []
        ds = ds.map(lambda d: seen.append(d["b"]) or d["a"] * 2)
        assert seen == [None]
        assert _values(ds)[1] == [[0], [2], [4]]


def test_map_returning_only_none_is_an_op_error():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Attr 'output_types' of 'MapDataset' Op passed list of length 0 "
                                             "less than minimum 1"):
            tf.data.Dataset.range(3).map(lambda x: None)


def test_batch_unbatch_filter_and_window_with_none():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5).map(lambda x: (None, x))
        batched = ds.batch(2, drop_remainder=True)
        assert repr(batched.element_spec) == "(NoneTensorSpec(), TensorSpec(shape=(2,), dtype=tf.int64, name=None))"
        assert _values(batched)[1] == [[[0, 1]], [[2, 3]]]
        assert _values(ds.batch(2).unbatch())[1] == [[0], [1], [2], [3], [4]]
        assert _values(ds.filter(lambda a, b: b > 2))[1] == [[3], [4]]
        windows = ds.window(2)
        assert _values(windows.flat_map(lambda a, b: b))[1] == [[0], [1], [2], [3], [4]]
        with pytest.raises(ValueError, match="Attr 'output_types' of 'FlatMapDataset' Op passed list of length 0"):
            windows.flat_map(lambda a, b: a)


def test_sources_and_zip_with_none():
    with tf.Graph().as_default():
        slices = tf.data.Dataset.from_tensor_slices((None, [1, 2], None))
        assert repr(slices.element_spec) == ("(NoneTensorSpec(), TensorSpec(shape=(), dtype=tf.int32, name=None), "
                                             "NoneTensorSpec())")
        assert _values(slices)[1] == [[1], [2]]
        tensors = tf.data.Dataset.from_tensors((None, 5, None, 6))
        names = [op.name for op in tf.get_default_graph().get_operations() if "component" in op.name][-2:]
        assert names == ["normalize_element_1/component_1", "normalize_element_1/component_3"]
        assert _values(tensors)[1] == [[5, 6]]
        zipped = tf.data.Dataset.zip((tf.data.Dataset.range(2), tf.data.Dataset.range(5).map(lambda x: (None, x))))
        element, out = _values(zipped)
        assert element[1][0] is None and out == [[0, 0], [1, 1]]
        with pytest.raises(ValueError, match="Attr 'Toutput_types' of 'TensorDataset' Op passed list of length 0"):
            tf.data.Dataset.from_tensors(None)
        for empty in (None, (None,)):
            with pytest.raises(ValueError, match="Invalid `element`. `element` should not be empty."):
                tf.data.Dataset.from_tensor_slices(empty)


def test_padded_batch_rejects_none():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3).map(lambda x: (x, None))
        with pytest.raises(TypeError, match="`padded_batch` is only supported for datasets that produce tensor "
                                            "elements but type spec of elements in the input dataset is not a "
                                            "subclass of TensorSpec: `NoneTensorSpec\\(\\)`."):
            ds.padded_batch(2)
