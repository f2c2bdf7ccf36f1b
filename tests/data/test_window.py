"""Dataset.window: datasets of windows used through flat_map, zip, reduce (TF's WindowDataset; literals recorded
from TF 2.21)."""

import numpy as np
import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf

_SPEC = "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([]))"


def _windows(size, shift=None, stride=1, drop=False, n=7):
    ds = tf.data.Dataset.range(n).window(size, shift, stride, drop).flat_map(lambda w: w.batch(size))
    return [v.tolist() for v in dataset_elements(ds)]


def test_window_spec_and_repr():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(7).window(3, 1)
        assert repr(ds) == f"<_WindowDataset element_spec={_SPEC}>"
        assert repr(ds.output_types) == repr(ds.output_shapes) == repr(ds.output_classes) == _SPEC
        assert ds.flat_map(lambda w: w.batch(3)).output_shapes.as_list() == [None]


def test_window_shift_stride_and_remainder():
    with tf.Graph().as_default():
        assert _windows(3, 1) == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6], [5, 6], [6]]
        assert _windows(3) == [[0, 1, 2], [3, 4, 5], [6]]
        assert _windows(3, 2, 2) == [[0, 2, 4], [2, 4, 6], [4, 6], [6]]
        assert _windows(3, 2, 2, True) == [[0, 2, 4], [2, 4, 6]]
        assert _windows(2, 3) == [[0, 1], [3, 4], [6]]
        assert _windows(4, 1, drop=True, n=6) == [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5]]
        assert _windows(2, n=0) == []


def test_window_of_tuples_and_dicts():
    with tf.Graph().as_default():
        pairs = tf.data.Dataset.zip((tf.data.Dataset.range(5),
                                     tf.data.Dataset.range(5).map(lambda x: tf.cast(x * 10, tf.float32))))
        ds = pairs.window(3, 1).flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(3), b.batch(3))))
        out = dataset_elements(ds)
        assert [a.tolist() for a, _ in out] == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4], [4]]
        assert out[0][1].dtype == np.float32 and out[3][1].tolist() == [30.0, 40.0]
        dicts = tf.data.Dataset.from_tensor_slices({"x": np.arange(6).reshape(3, 2), "y": ["a", "b", "c"]}).window(2)
        assert sorted(dicts.element_spec) == ["x", "y"]
        assert dicts.element_spec["x"].element_spec.shape.as_list() == [2]
        ds = dicts.flat_map(lambda d: tf.data.Dataset.zip({"x": d["x"].batch(2), "y": d["y"].batch(2)}))
        out = dataset_elements(ds)
        assert out[0]["x"].tolist() == [[0, 1], [2, 3]] and out[1]["y"].tolist() == [b"c"]


def test_window_datasets_transform_and_reduce():
    with tf.Graph().as_default():
        r = tf.data.Dataset.range
        sums = r(6).window(3).flat_map(
            lambda w: tf.data.Dataset.from_tensors(w.reduce(np.int64(0), lambda s, v: s + v)))
        assert dataset_elements(sums) == [3, 12]
        nested = r(6).window(2).window(2).flat_map(lambda ww: ww.flat_map(lambda w: w.batch(2)))
        assert [v.tolist() for v in dataset_elements(nested)] == [[0, 1], [2, 3], [4, 5]]
        ragged = r(4).map(lambda x: (x, tf.fill([x], x))).window(2).flat_map(
            lambda a, b: tf.data.Dataset.zip((a, b)).padded_batch(2, padded_shapes=([], [None])))
        assert [b.tolist() for _, b in dataset_elements(ragged)] == [[[0], [1]], [[2, 2, 0], [3, 3, 3]]]
        interleaved = r(5).window(3).interleave(lambda w: w, cycle_length=2)
        assert dataset_elements(interleaved) == [0, 3, 1, 4, 2]
        sparse = tf.data.Dataset.from_tensor_slices(tf.SparseTensor([[0, 0], [1, 1]], [1, 2], [3, 2])).window(2)
        dense = sparse.flat_map(lambda w: w.batch(2)).map(tf.sparse.to_dense)
        assert [v.tolist() for v in dataset_elements(dense)] == [[[1, 0], [0, 2]], [[0, 0]]]


def test_window_fed_size_and_get_next_dataset():
    with tf.Graph().as_default():
        size = tf.placeholder(tf.int64, [])
        it = tf.data.make_initializable_iterator(tf.data.Dataset.range(6).window(size, 2).flat_map(lambda w: w.batch(4)))
        assert [v.tolist() for v in dataset_elements(it.get_next(), {size: 3}, it.initializer)] == [
            [0, 1, 2], [2, 3, 4], [4, 5]]
        window = tf.data.make_one_shot_iterator(tf.data.Dataset.range(5).window(2)).get_next()
        assert repr(window) == "<_VariantDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>"


def test_window_cardinality():
    with tf.Graph().as_default():
        r = tf.data.Dataset.range
        counts = [tf.data.experimental.cardinality(r(n).window(*args)) for n in (0, 1, 7, 8)
                  for args in [(3,), (3, 2), (3, 2, 2, True), (3, 1, 1, True)]]
        endless = tf.data.experimental.cardinality(r(7).repeat().window(3))
        unknown = tf.data.experimental.cardinality(r(7).filter(lambda x: True).window(3))
        with tf.Session() as sess:
            assert sess.run(counts) == [0, 0, 0, 0, 1, 1, 0, 0, 3, 4, 2, 5, 3, 4, 2, 6]
            assert sess.run([endless, unknown]) == [-1, -2]


@pytest.mark.parametrize("args,what", [((0,), "size"), ((2, 0), "shift"), ((2, 1, 0), "stride"), ((-1,), "size")])
def test_window_bad_parameters(args, what):
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5).window(*args).flat_map(lambda w: w)
        with pytest.raises(tf.errors.InvalidArgumentError, match=f"Window {what} must be greater than zero."):
            dataset_elements(ds)
