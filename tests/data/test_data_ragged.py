"""RaggedTensor elements in tf.data (graph mode): structure (output_classes is the spec, as TF1's), slicing,
map, batch into one more ragged dimension, unbatch, ragged_batch / dense_to_ragged_batch. Expected values are
literals recorded from TF 2.21."""

import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf


def _ranges(n):
    """Elements i: tf.ragged.range(i), the ragged tensor [[0, ..., i - 1]]."""
    return tf.data.Dataset.range(n).map(lambda i: tf.ragged.range(i))


def test_from_tensor_slices_of_a_ragged_tensor():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[1, 2], [], [3, 4, 5]]))
        spec = tf.RaggedTensorSpec([None], tf.int32, 0, tf.int64)
        assert ds.element_spec == spec and ds.output_classes == spec
        assert ds.output_types == tf.int32 and ds.output_shapes.as_list() == [None]
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        assert isinstance(nxt, tf.Tensor) and nxt.shape.as_list() == [None]  # ragged rank 0: a plain tensor
        assert [v.tolist() for v in dataset_elements(ds)] == [[1, 2], [], [3, 4, 5]]
        assert tf.data.Dataset.from_tensors(tf.ragged.constant([[1, 2], [], [3, 4, 5]])).element_spec == \
            tf.RaggedTensorSpec([3, None], tf.int32, 1, tf.int64)


def test_batch_map_and_unbatch_of_ragged_elements():
    with tf.Graph().as_default():
        ds = _ranges(4)
        assert ds.element_spec == tf.RaggedTensorSpec([1, None], tf.int64, 1, tf.int64)
        assert ds.output_shapes.as_list() == [1, None]
        batched = ds.batch(3)
        spec = tf.RaggedTensorSpec([None, 1, None], tf.int64, 2, tf.int64)
        assert batched.element_spec == spec and batched.output_classes == spec
        nxt = tf.data.make_one_shot_iterator(batched).get_next()
        assert isinstance(nxt, tf.RaggedTensor) and nxt.ragged_rank == 2 and nxt.shape.as_list() == [None, 1, None]
        out = dataset_elements(batched)
        assert [v.to_list() for v in out] == [[[[]], [[0]], [[0, 1]]], [[[0, 1, 2]]]]
        assert [[s.tolist() for s in v.nested_row_splits] for v in out] == [[[0, 1, 2, 3], [0, 0, 1, 3]],
                                                                             [[0, 1], [0, 3]]]
        unbatched = batched.unbatch()
        assert unbatched.element_spec == tf.RaggedTensorSpec([1, None], tf.int64, 1, tf.int64)
        assert [v.to_list() for v in dataset_elements(unbatched)] == [[[]], [[0]], [[0, 1]], [[0, 1, 2]]]
        mapped = ds.map(lambda x: (x.with_flat_values(x.flat_values * 2), tf.reduce_sum(x.flat_values)))
        assert mapped.element_spec == (tf.RaggedTensorSpec([1, None], tf.int64, 1, tf.int64),
                                       tf.TensorSpec([], tf.int64))
        assert [(v.to_list(), int(s)) for v, s in dataset_elements(mapped)[1:]] == [([[0]], 0), ([[0, 2]], 1), ([[0, 2, 4]], 3)]
        pairs = tf.data.Dataset.range(4).map(lambda i: tf.RaggedTensor.from_row_lengths(tf.range(i * 2), [i, i]))
        assert [v.to_list() for v in dataset_elements(pairs.batch(2))] == [[[[], []], [[0], [1]]],
                                                               [[[0, 1], [2, 3]], [[0, 1, 2], [3, 4, 5]]]]
        assert [[s.tolist() for s in v.nested_row_splits] for v in dataset_elements(pairs.batch(2))][1] == [[0, 2, 4],
                                                                                             [0, 2, 4, 7, 10]]
        with pytest.raises(TypeError, match="`padded_batch` is only supported for datasets that produce tensor "
                                            "elements"):
            ds.padded_batch(2)


def test_ragged_batch_and_dense_to_ragged_batch():
    with tf.Graph().as_default():
        grids = tf.data.Dataset.range(3).map(lambda i: tf.fill(tf.stack([2, i]), i)).ragged_batch(2)
        assert grids.element_spec == tf.RaggedTensorSpec([None, 2, None], tf.int64, 2, tf.int64)
        out = dataset_elements(grids)
        assert [v.to_list() for v in out] == [[[[], []], [[1], [1]]], [[[2, 2], [2, 2]]]]
        assert [[s.tolist() for s in v.nested_row_splits] for v in out] == [[[0, 2, 4], [0, 0, 0, 1, 2]],
                                                                           [[0, 2], [0, 2, 4]]]
        mixed = tf.data.Dataset.range(3).map(lambda i: (tf.fill(tf.stack([i]), i), tf.fill([2], i))).apply(
            tf.data.experimental.dense_to_ragged_batch(2, row_splits_dtype=tf.int32))
        assert mixed.element_spec == (tf.RaggedTensorSpec([None, None], tf.int64, 1, tf.int32),
                                      tf.TensorSpec([None, 2], tf.int64))
        out = dataset_elements(mixed)
        assert [(v.to_list(), d.tolist()) for v, d in out] == [([[], [1]], [[0, 0], [1, 1]]), ([[2, 2]], [[2, 2]])]
        assert out[0][0].row_splits.dtype == "int32"
        it = tf.data.Iterator.from_structure(tf.data.get_output_types(grids), tf.data.get_output_shapes(grids),
                                             output_classes=tf.data.get_output_classes(grids))
        assert it.element_spec == grids.element_spec and it.get_next().shape.as_list() == [None, 2, None]
        assert repr(out[1][0]) == ("tf.RaggedTensorValue(values=array([2, 2]), "
                                   "row_splits=array([0, 2], dtype=int32))")


def test_ragged_batch_converts_each_component_in_its_place():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(1, 3).map(lambda i: {"a": tf.fill(tf.stack([1, i]), i), "b": tf.fill([2], i),
                                                        "c": tf.fill(tf.stack([1, i]), -i)})
        batched = ds.ragged_batch(2)
        assert {k: s.as_list() for k, s in tf.data.get_output_shapes(batched).items()} == {
            "a": [None, 1, None], "b": [None, 2], "c": [None, 1, None]}
        out = dataset_elements(batched)[0]
        assert (out["a"].to_list(), out["b"].tolist(), out["c"].to_list()) == (
            [[[1]], [[2, 2]]], [[1, 1], [2, 2]], [[[-1]], [[-2, -2]]])


def test_a_ragged_component_is_one_encoded_variant_in_the_graph():
    """TF passes a ragged component as one variant: RaggedTensorToVariant into the source node (batched for
    from_tensor_slices), RaggedTensorFromVariant under RaggedFromVariant after IteratorGetNext (from TF 2.21)."""
    with tf.Graph().as_default() as g:
        rt = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
        ds = tf.data.Dataset.from_tensor_slices(rt)
        x = [tf.data.make_one_shot_iterator(d).get_next() for d in (ds, tf.data.Dataset.from_tensors(rt), ds.batch(2))]
        assert [n.op for n in g.as_graph_def().node] == [
            "Const", "Const", "RaggedTensorToVariant", "TensorSliceDataset", "RaggedTensorToVariant", "TensorDataset",
            "Const", "Const", "BatchDatasetV2", "OneShotIterator", "IteratorToStringHandle", "IteratorGetNext",
            "RaggedTensorFromVariant", "OneShotIterator", "IteratorToStringHandle", "IteratorGetNext",
            "RaggedTensorFromVariant", "OneShotIterator", "IteratorToStringHandle", "IteratorGetNext",
            "RaggedTensorFromVariant"]
        assert x[0].name == "RaggedFromVariant/RaggedTensorFromVariant:0" and x[0].shape.as_list() == [None]
        assert x[1].values.name == "RaggedFromVariant_1/RaggedTensorFromVariant:1"
        assert x[1].row_splits.name == "RaggedFromVariant_1/RaggedTensorFromVariant:0"
        assert x[1].row_splits.shape.as_list() == [4] and x[2].row_splits.shape.as_list() == [None]
        with tf.Session() as sess:
            first, whole, batch = sess.run(x)
            assert first.tolist() == [1, 2]
            assert whole.to_list() == [[1, 2], [3], [4, 5, 6]] and batch.to_list() == [[1, 2], [3]]
            assert sess.run(x[0]).tolist() == [3] and sess.run(x[2]).to_list() == [[4, 5, 6]]
