"""SparseTensor elements in tf.data (graph mode): structure (output_classes, element_spec), sources, functions
that take and return sparse tensors, batching and unbatching, iterators, the experimental helpers. Expected
values are literals recorded from TF 2.21."""

import numpy as np
import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf


def _triple(value):
    assert isinstance(value, tf.SparseTensorValue)
    return value.indices.tolist(), value.values.tolist(), value.dense_shape.tolist()


def _sparse_range(n):
    """Elements i: the 1-D sparse tensor of dense shape [i + 1] with value i at 0."""
    return tf.data.Dataset.range(n).map(lambda i: tf.SparseTensor([[0]], [i], [i + 1]))


def test_from_tensor_slices_of_a_sparse_tensor_value():
    with tf.Graph().as_default():
        st = tf.SparseTensorValue(indices=[[0, 0], [1, 2], [2, 1], [2, 3]], values=[1., 2., 3., 4.],
                                  dense_shape=[3, 4])
        ds = tf.data.Dataset.from_tensor_slices(st)
        assert ds.output_classes is tf.SparseTensor and tf.data.get_output_classes(ds) is tf.SparseTensor
        assert ds.output_types == tf.float32 and ds.output_shapes.as_list() == [4]
        assert ds.element_spec == tf.SparseTensorSpec([4], tf.float32)
        assert repr(ds.element_spec) == "SparseTensorSpec(TensorShape([Dimension(4)]), tf.float32)"
        nxt = ds.make_one_shot_iterator().get_next()
        assert isinstance(nxt, tf.SparseTensor) and nxt.shape.as_list() == [4]
        assert nxt.indices.shape.as_list() == [None, 1] and nxt.dense_shape.shape.as_list() == [1]
        out = dataset_elements(nxt)
        assert [_triple(v) for v in out] == [([[0]], [1.0], [4]), ([[2]], [2.0], [4]), ([[1], [3]], [3.0, 4.0], [4])]
        assert out[0].indices.dtype == np.int64 and out[0].values.dtype == np.float32
        tensors = tf.data.Dataset.from_tensors({"x": tf.SparseTensor([[0]], ["a"], [3]), "y": 1})
        assert tensors.output_classes == {"x": tf.SparseTensor, "y": tf.Tensor}
        assert tf.data.Dataset.from_tensors(st).output_shapes.as_list() == [3, 4]


def test_map_takes_and_returns_sparse_tensors():
    with tf.Graph().as_default():
        st = tf.SparseTensorValue([[0, 0], [1, 2]], [1., 2.], [2, 4])
        both = tf.data.Dataset.from_tensor_slices(st).map(lambda x: (x, tf.sparse.to_dense(x)))
        assert both.output_classes == (tf.SparseTensor, tf.Tensor)
        assert [s.as_list() for s in both.output_shapes] == [[4], [4]]  # the spec's shape reaches to_dense
        assert [d.tolist() for _, d in dataset_elements(both)] == [[1., 0., 0., 0.], [0., 0., 2., 0.]]
        ds = _sparse_range(5)
        assert ds.output_classes is tf.SparseTensor and ds.output_types == tf.int64
        assert ds.element_spec == tf.SparseTensorSpec([None], tf.int64)
        values = tf.data.Dataset.from_tensors(tf.SparseTensorValue([[0]], [7], [1])).map(lambda x: x.values)
        assert [v.tolist() for v in dataset_elements(values)] == [[7]]


def test_batch_and_unbatch_of_sparse_elements():
    with tf.Graph().as_default():
        batched = _sparse_range(5).batch(2)
        assert batched.output_shapes.as_list() == [None, None]
        assert batched.element_spec == tf.SparseTensorSpec([None, None], tf.int64)
        assert batched.make_one_shot_iterator().get_next().shape.as_list() == [None, None]
        assert [_triple(v) for v in dataset_elements(batched)] == [
            ([[0, 0], [1, 0]], [0, 1], [2, 2]), ([[0, 0], [1, 0]], [2, 3], [2, 4]), ([[0, 0]], [4], [1, 5])]
        unbatched = batched.unbatch()
        assert unbatched.element_spec == tf.SparseTensorSpec([None], tf.int64)
        assert [_triple(v) for v in dataset_elements(unbatched)] == [
            ([[0]], [0], [2]), ([[0]], [1], [2]), ([[0]], [2], [4]), ([[0]], [3], [4]), ([[0]], [4], [5])]
        mixed = tf.data.Dataset.range(3).map(lambda i: (tf.SparseTensor([[0, 0]], [i], [1, 2]), tf.fill([1], i)))
        mixed = mixed.unbatch()
        assert [s.as_list() for s in mixed.output_shapes] == [[2], []]
        first = dataset_elements(mixed)[0]
        assert _triple(first[0]) == ([[0]], [0], [2]) and first[1] == 0
        dropped = tf.data.make_initializable_iterator(
            tf.data.Dataset.range(6).map(lambda i: tf.SparseTensor([[0, i]], [1.0], [1, 6])).batch(4, True))
        assert dropped.output_shapes.as_list() == [4, 1, 6] and dropped.get_next().shape.as_list() == [4, 1, 6]


def test_padded_batch_of_sparse_elements_raises_tf_error():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match=r"^`padded_batch` is only supported for datasets that produce tensor "
                                            r"elements but type spec of elements in the input dataset is not a "
                                            r"subclass of TensorSpec: `SparseTensorSpec\(TensorShape\(\[Dimension"
                                            r"\(None\)\]\), tf.int64\)`.$"):
            _sparse_range(3).padded_batch(2, padded_shapes=[None])


def test_filter_flat_map_interleave_with_sparse_elements():
    with tf.Graph().as_default():
        kept = _sparse_range(5).filter(lambda x: tf.reduce_sum(x.values) > 1)
        assert [_triple(v)[1:] for v in dataset_elements(kept)] == [([2], [3]), ([3], [4]), ([4], [5])]
        sp = tf.data.Dataset.range(6).map(lambda i: tf.SparseTensor([[0, i]], [tf.cast(i, tf.float32)], [1, 6]))
        flat = sp.flat_map(lambda x: tf.data.Dataset.from_tensors(x).repeat(2))
        assert flat.output_shapes.as_list() == [1, 6]
        assert [_triple(v) for v in dataset_elements(flat)[:3]] == [
            ([[0, 0]], [0.0], [1, 6]), ([[0, 0]], [0.0], [1, 6]), ([[0, 1]], [1.0], [1, 6])]
        inter = tf.data.Dataset.range(3).interleave(lambda i: tf.data.Dataset.from_tensor_slices(
            tf.SparseTensor([[0, 0], [1, 1]], tf.stack([i, i * 10]), [2, 3])), cycle_length=2)
        assert inter.element_spec == tf.SparseTensorSpec([3], tf.int64)
        assert [_triple(v) for v in dataset_elements(inter)] == [
            ([[0]], [0], [3]), ([[0]], [1], [3]), ([[1]], [0], [3]), ([[1]], [10], [3]), ([[0]], [2], [3]),
            ([[1]], [20], [3])]


def test_sparse_elements_through_the_element_preserving_transformations():
    with tf.Graph().as_default():
        sp = tf.data.Dataset.range(6).map(lambda i: tf.SparseTensor([[0, i]], [tf.cast(i, tf.float32)], [1, 6]))
        chain = sp.cache().shuffle(4, seed=1).repeat(2).skip(1).take(8).shard(2, 1).prefetch(2)
        chain = tf.data.Dataset.zip((chain, tf.data.Dataset.range(100))).concatenate(
            tf.data.Dataset.zip((sp, tf.data.Dataset.range(2))))
        assert chain.output_classes == (tf.SparseTensor, tf.Tensor)
        assert [s.as_list() for s in chain.output_shapes] == [[1, 6], []]
        assert [(_triple(v), int(j)) for v, j in dataset_elements(chain)] == [
            (([[0, 5]], [5.0], [1, 6]), 0), (([[0, 3]], [3.0], [1, 6]), 1), (([[0, 2]], [2.0], [1, 6]), 2),
            (([[0, 3]], [3.0], [1, 6]), 3), (([[0, 0]], [0.0], [1, 6]), 0), (([[0, 1]], [1.0], [1, 6]), 1)]
        merged = _sparse_range(2).concatenate(tf.data.Dataset.range(3).map(lambda i: tf.SparseTensor([[0]], [i], [2])))
        assert merged.output_shapes.as_list() == [None]
        zipped = tf.data.Dataset.zip((_sparse_range(2), tf.data.Dataset.range(5)))
        assert zipped.element_spec == (tf.SparseTensorSpec([None], tf.int64), tf.TensorSpec([], tf.int64))
        assert tf.data.experimental.get_structure(sp) == tf.SparseTensorSpec([1, 6], tf.float32)
        with pytest.raises(TypeError, match=r"^Incompatible dataset elements:\n  SparseTensorSpec\(TensorShape"
                                            r"\(\[Dimension\(None\)\]\), tf.int64\) vs.   TensorSpec\(shape=\(\), "
                                            r"dtype=tf.int64, name=None\)$"):
            _sparse_range(2).concatenate(tf.data.Dataset.range(3))


def test_reinitializable_and_feedable_iterators_of_sparse_elements():
    with tf.Graph().as_default():
        ds = _sparse_range(3)
        it = tf.data.Iterator.from_structure(ds.output_types, ds.output_shapes, output_classes=ds.output_classes)
        assert it.output_classes is tf.SparseTensor and it.element_spec == tf.SparseTensorSpec([None], tf.int64)
        with pytest.raises(TypeError, match="^Expected output classes <class '.*Tensor'> but got dataset with output "
                                            "classes <class '.*SparseTensor'>.$"):
            tf.data.Iterator.from_structure(ds.output_types, ds.output_shapes).make_initializer(ds)
        init, nxt = it.make_initializer(ds), it.get_next()
        assert isinstance(nxt, tf.SparseTensor) and nxt.shape.as_list() == [None]
        assert _triple(dataset_elements(nxt, init=init)[0]) == ([[0]], [0], [1])

        batched = tf.data.Dataset.range(6).map(
            lambda i: tf.SparseTensor([[0, i]], [tf.cast(i, tf.float32)], [1, 6])).batch(2)
        handle = tf.placeholder(tf.string, [])
        feedable = tf.data.Iterator.from_string_handle(handle, batched.output_types, batched.output_shapes,
                                                       batched.output_classes)
        assert feedable.element_spec == tf.SparseTensorSpec([None, 1, 6], tf.float32)
        source = batched.make_one_shot_iterator()
        with tf.Session() as sess:
            value = sess.run(feedable.get_next(), {handle: sess.run(source.string_handle())})
        assert _triple(value) == ([[0, 0, 0], [1, 0, 1]], [0.0, 1.0], [2, 1, 6])


def _example(i):
    return tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i)))),
        "b": tf.train.Feature(float_list=tf.train.FloatList(value=[float(i)]))})).SerializeToString()


_PARSED_BATCHES = [([[1, 0]], [0], [2, 1], [[0.0], [1.0]]),
                   ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], [0, 1, 0, 1, 2], [2, 3], [[2.0], [3.0]]),
                   ([[0, 0], [0, 1], [0, 2], [0, 3]], [0, 1, 2, 3], [1, 4], [[4.0]])]


def test_parse_single_example_in_map_then_batch_and_parse_example_dataset():
    with tf.Graph().as_default():
        records = [_example(i) for i in range(5)]
        spec = {"a": tf.VarLenFeature(tf.int64), "b": tf.FixedLenFeature([1], tf.float32)}
        parsed = tf.data.Dataset.from_tensor_slices(records).map(lambda s: tf.parse_single_example(s, spec))
        assert parsed.output_classes == {"a": tf.SparseTensor, "b": tf.Tensor}
        assert parsed.output_shapes["a"].as_list() == [None] and parsed.output_shapes["b"].as_list() == [1]
        batched = parsed.batch(2)
        assert batched.output_shapes["a"].as_list() == [None, None]
        assert [(*_triple(v["a"]), v["b"].tolist()) for v in dataset_elements(batched)] == _PARSED_BATCHES
        dataset = tf.data.Dataset.from_tensor_slices(records).batch(2).apply(
            tf.data.experimental.parse_example_dataset(spec))
        assert dataset.output_shapes["b"].as_list() == [None, 1] and dataset.output_classes["a"] is tf.SparseTensor
        assert [(*_triple(v["a"]), v["b"].tolist()) for v in dataset_elements(dataset)] == _PARSED_BATCHES
        with pytest.raises(TypeError, match=r"^Input dataset should be a dataset of vectors of strings. Instead it "
                                            r"is `TensorSpec\(shape=\(\), dtype=tf.string, name=None\)`.$"):
            tf.data.Dataset.from_tensor_slices(records).apply(tf.data.experimental.parse_example_dataset(spec))
        fused = tf.data.Dataset.from_tensor_slices(records).apply(
            tf.data.experimental.map_and_batch(lambda s: tf.parse_single_example(s, spec), 3))
        assert [_triple(v["a"]) for v in dataset_elements(fused)] == [
            ([[1, 0], [2, 0], [2, 1]], [0, 0, 1], [3, 2]),
            ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]], [0, 1, 2, 0, 1, 2, 3], [2, 4])]


def test_dense_to_sparse_batch():
    with tf.Graph().as_default():
        fixed = tf.data.Dataset.range(1, 5).map(lambda i: tf.fill([i], i)).apply(
            tf.data.experimental.dense_to_sparse_batch(2, [6]))
        assert fixed.output_classes is tf.SparseTensor and fixed.output_shapes.as_list() == [None, 6]
        assert [_triple(v) for v in dataset_elements(fixed)] == [
            ([[0, 0], [1, 0], [1, 1]], [1, 2, 2], [2, 6]),
            ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2], [1, 3]], [3, 3, 3, 4, 4, 4, 4], [2, 6])]
        grown = tf.data.Dataset.range(0, 4).map(lambda i: tf.zeros(tf.stack([i, 2]), tf.int32)).apply(
            tf.data.experimental.dense_to_sparse_batch(3, [None, 2]))
        assert grown.output_shapes.as_list() == [None, None, 2]
        assert [_triple(v) for v in dataset_elements(grown)] == [
            ([[1, 0, 0], [1, 0, 1], [2, 0, 0], [2, 0, 1], [2, 1, 0], [2, 1, 1]], [0] * 6, [3, 2, 2]),
            ([[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1], [0, 2, 0], [0, 2, 1]], [0] * 6, [1, 3, 2])]
        strings = tf.data.Dataset.from_tensor_slices(np.array([[b"x", b"y"], [b"z", b""]])).apply(
            tf.data.experimental.dense_to_sparse_batch(2, [None]))
        assert _triple(dataset_elements(strings)[0]) == ([[0, 0], [0, 1], [1, 0], [1, 1]], [b"x", b"y", b"z", b""], [2, 2])
        too_long = tf.data.Dataset.range(1, 5).map(lambda i: tf.fill([i], i)).apply(
            tf.data.experimental.dense_to_sparse_batch(2, [2]))
        nxt = too_long.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            sess.run(nxt)
            with pytest.raises(tf.errors.DataLossError,
                               match=r"Input element had shape \(\[3\]\) that is larger than the row shape \(\[2\]\)."):
                sess.run(nxt)
        wrong_rank = tf.data.Dataset.range(1, 5).map(lambda i: tf.fill([i], i)).apply(
            tf.data.experimental.dense_to_sparse_batch(2, [2, 2]))
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"Input element had shape \(\[1\]\) that is "
                                                                 r"incompatible with the row shape \(\[2,2\]\)."):
            dataset_elements(wrong_rank)


def test_feature_columns_over_a_sparse_parsing_pipeline():
    fc = tf.feature_column

    def example(i):
        return tf.train.Example(features=tf.train.Features(feature={
            "age": tf.train.Feature(float_list=tf.train.FloatList(value=[20.0 + 7 * i])),
            "city": tf.train.Feature(bytes_list=tf.train.BytesList(value=[[b"a", b"b", b"c", b"d"][i % 4]])),
            "tags": tf.train.Feature(bytes_list=tf.train.BytesList(
                value=[b"t%d" % (i % 3), b"t%d" % (i % 5)][:1 + i % 2]))})).SerializeToString()

    with tf.Graph().as_default():
        city = fc.categorical_column_with_vocabulary_list("city", ["a", "b", "c"], num_oov_buckets=1)
        tags = fc.categorical_column_with_hash_bucket("tags", 5)
        cols = [fc.numeric_column("age"), fc.indicator_column(city), fc.indicator_column(tags)]
        ds = tf.data.Dataset.from_tensor_slices([example(i) for i in range(6)]).map(
            lambda s: tf.parse_single_example(s, fc.make_parse_example_spec(cols))).batch(4)
        assert ds.output_classes["tags"] is tf.SparseTensor
        dense = fc.input_layer(ds.make_one_shot_iterator().get_next(), cols)
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            assert sess.run(dense).tolist() == [
                [20.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [27.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0],
                [34.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [41.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]]
            assert sess.run(dense).tolist() == [[48.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
                                                [55.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]]


def test_from_sparse_tensor_slices_gives_dense_triples():
    with tf.Graph().as_default():
        st = tf.SparseTensorValue(indices=[[0, 0], [2, 1], [2, 3]], values=[1., 3., 4.], dense_shape=[3, 4])
        ds = tf.data.Dataset.from_sparse_tensor_slices(tf.SparseTensor.from_value(st))
        assert ds.output_classes == (tf.Tensor, tf.Tensor, tf.Tensor)
        assert ds.element_spec == (tf.TensorSpec([None, 1], tf.int64), tf.TensorSpec([None], tf.float32),
                                   tf.TensorSpec([1], tf.int64))
        assert [tuple(part.tolist() for part in v) for v in dataset_elements(ds)] == [
            ([[0]], [1.0], [4]), ([], [], [4]), ([[1], [3]], [3.0, 4.0], [4])]
        with pytest.raises(TypeError, match="^Invalid `sparse_tensor`. `sparse_tensor` must be a "
                                            "`tf.sparse.SparseTensor`. Got <class '.*SparseTensorValue'>.$"):
            tf.data.Dataset.from_sparse_tensor_slices(st)


def test_a_fed_sparse_placeholder_through_an_initializable_iterator():
    with tf.Graph().as_default():
        sp = tf.sparse_placeholder(tf.float32, shape=[None, 3])
        # as TF's, the element is rebuilt from the three tensors: the placeholder's declared shape is not kept
        assert tf.data.Dataset.from_tensors(sp).output_shapes.as_list() == [None, None]
        ds = tf.data.Dataset.from_tensor_slices(sp).batch(2)
        assert ds.output_shapes.as_list() == [None, None]
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer, {sp: tf.SparseTensorValue([[0, 1], [2, 2], [3, 0]], [1., 2., 3.], [4, 3])})
            assert [_triple(sess.run(nxt)) for _ in range(2)] == [([[0, 1]], [1.0], [2, 3]),
                                                                  ([[0, 2], [1, 0]], [2.0, 3.0], [2, 3])]
            sess.run(it.initializer, {sp: tf.SparseTensorValue([[0, 0]], [5.], [1, 3])})
            assert _triple(sess.run(nxt)) == ([[0, 0]], [5.0], [1, 3])
        with pytest.raises(ValueError, match=r"^Cannot capture a placeholder \(name:Placeholder_1, type:Placeholder\) "
                                             r"by value.$"):
            tf.data.Dataset.from_tensor_slices(sp).make_one_shot_iterator()


def test_get_single_element_of_sparse_and_ragged_elements():
    with tf.Graph().as_default():
        single = tf.data.experimental.get_single_element(tf.data.Dataset.from_tensors(tf.SparseTensor([[0]], [1], [2])))
        assert isinstance(single, tf.SparseTensor) and single.shape.as_list() == [2]
        pair = tf.data.Dataset.range(3).map(lambda i: (i, tf.ragged.range(i))).batch(5).get_single_element()
        with tf.Session() as sess:
            assert _triple(sess.run(single)) == ([[0]], [1], [2])
            ids, ragged = sess.run(pair)
            assert ids.tolist() == [0, 1, 2] and ragged.to_list() == [[[]], [[0]], [[0, 1]]]
            for dataset, message in ((tf.data.Dataset.range(0), "Dataset was empty."),
                                     (tf.data.Dataset.range(2), "Dataset had more than one element.")):
                with pytest.raises(tf.errors.InvalidArgumentError, match=message):
                    sess.run(tf.data.experimental.get_single_element(dataset))
        with pytest.raises(TypeError, match="^Invalid `dataset`. Expected a `tf.data.Dataset` object but got "
                                            "<class 'int'>.$"):
            tf.data.experimental.get_single_element(3)


def _write_parts(directory):
    for part in range(2):
        with tf.python_io.TFRecordWriter(str(directory / f"part-{part}.tfrecord")) as writer:
            for i in range(5):
                writer.write(tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(int64_list=tf.train.Int64List(value=list(range(i % 3)))),
                    "y": tf.train.Feature(int64_list=tf.train.Int64List(value=[10 * part + i]))})).SerializeToString())
    return str(directory / "*.tfrecord")


def test_list_files_and_make_batched_features_dataset(tmp_path):
    pattern = _write_parts(tmp_path)
    features = {"x": tf.VarLenFeature(tf.int64), "y": tf.FixedLenFeature([], tf.int64)}
    with tf.Graph().as_default():
        files = tf.data.Dataset.list_files(pattern, shuffle=False)
        assert files.output_types == tf.string and files.output_shapes.as_list() == []
        assert [f.decode().rsplit("/", 1)[1] for f in dataset_elements(files)] == ["part-0.tfrecord", "part-1.tfrecord"]
        shuffled = tf.data.Dataset.list_files(pattern, seed=4)
        assert [f.decode().rsplit("/", 1)[1] for f in dataset_elements(shuffled)] == ["part-1.tfrecord", "part-0.tfrecord"]
        assert dataset_elements(tf.data.Dataset.list_files(str(tmp_path / "*.nope"))) == []

        ds = tf.data.experimental.make_batched_features_dataset(pattern, 3, features, label_key="y", num_epochs=1,
                                                                shuffle=False)
        assert tf.data.get_output_classes(ds) == ({"x": tf.SparseTensor}, tf.Tensor)
        assert tf.data.get_output_shapes(ds)[0]["x"].as_list() == [None, None]
        assert [(*_triple(x["x"]), y.tolist()) for x, y in dataset_elements(ds)] == [
            ([[1, 0], [2, 0], [2, 1]], [0, 0, 1], [3, 2], [0, 1, 2]), ([[1, 0]], [0], [3, 1], [3, 4, 10]),
            ([[0, 0], [1, 0], [1, 1]], [0, 0, 1], [3, 2], [11, 12, 13]), ([[0, 0]], [0], [1, 1], [14])]
        repeated = tf.data.experimental.make_batched_features_dataset(pattern, 4, features, shuffle_seed=3,
                                                                      shuffle_buffer_size=6)
        assert {k: s.as_list() for k, s in tf.data.get_output_shapes(repeated).items()} == {"x": [4, None],
                                                                                            "y": [4]}
        nxt = tf.data.make_one_shot_iterator(repeated).get_next()
        with tf.Session() as sess:
            assert [sess.run(nxt)["y"].tolist() for _ in range(3)] == [[0, 1, 2, 3], [13, 4, 11, 12], [10, 14, 0, 11]]
        with pytest.raises(ValueError, match=r"^The `label_key` provided \(z\) must be one of the `features` keys: "
                                             r"dict_keys\(\['x', 'y'\]\).$"):
            tf.data.experimental.make_batched_features_dataset(pattern, 3, features, label_key="z")


def test_from_structure_reads_legacy_shapes_given_as_lists():
    with tf.Graph().as_default():
        it = tf.data.Iterator.from_structure(tf.int64, [None], output_classes=tf.SparseTensor)
        assert it.element_spec == tf.SparseTensorSpec([None], tf.int64)
        pair = tf.data.Iterator.from_structure((tf.int64, tf.float32), ([None], [2, 3]))
        assert [s.as_list() for s in pair.output_shapes] == [[None], [2, 3]]
        init = it.make_initializer(_sparse_range(2))
        assert _triple(dataset_elements(it.get_next(), init=init)[1]) == ([[0]], [1], [2])


def test_a_sparse_component_is_one_serialized_variant_in_the_graph():
    """TF passes a sparse component through the graph serialized: SerializeManySparse (SerializeSparse) into the
    source node, one variant of unknown shape in every dataset and iterator node, DeserializeSparse after
    IteratorGetNext (names and output indices from TF 2.21)."""
    with tf.Graph().as_default() as g:
        sp = tf.SparseTensor([[0, 0], [1, 2], [2, 1]], [1., 2., 3.], [3, 4])
        ds = tf.data.Dataset.from_tensor_slices({"s": sp, "a": tf.range(3)})
        it = ds.batch(2).make_initializable_iterator()
        x = it.get_next()
        z = tf.data.Dataset.from_tensors(sp).make_one_shot_iterator().get_next()
        assert [n.op for n in g.as_graph_def().node] == [
            "Const", "Const", "Const", "Const", "Const", "Const", "Range", "SerializeManySparse", "TensorSliceDataset",
            "Const", "Const", "BatchDatasetV2", "IteratorV2", "MakeIterator", "IteratorToStringHandle",
            "IteratorGetNext", "DeserializeSparse", "Unpack", "Const", "Pack", "SerializeSparse", "TensorDataset",
            "OneShotIterator", "IteratorToStringHandle", "IteratorGetNext", "DeserializeSparse", "Const"]
        nodes = {n.name: n for n in g.as_graph_def().node}
        assert nodes["TensorSliceDataset"].input == ["range", "SerializeManySparse"]
        assert [tf.as_dtype(t) for t in nodes["IteratorGetNext"].attr["output_types"].list.type] == [
            tf.int32, tf.variant]
        assert nodes["IteratorGetNext"].attr["output_shapes"].list.shape[1].unknown_rank
        assert x["a"].name == "IteratorGetNext:0"
        assert [x["s"].indices.name, x["s"].values.name] == ["DeserializeSparse:0", "DeserializeSparse:1"]
        assert x["s"].indices.shape.as_list() == [None, 2]
        assert z.indices.name == "DeserializeSparse_1:0" and z.dense_shape.name == "shape:0"
        handle = tf.placeholder(tf.string, [])
        fed = tf.data.Iterator.from_string_handle(handle, ds.output_types, ds.output_shapes, ds.output_classes)
        with tf.Session() as sess:
            sess.run(it.initializer)
            first = sess.run(x)
            assert first["a"].tolist() == [0, 1]
            assert _triple(first["s"]) == ([[0, 0], [1, 2]], [1., 2.], [2, 4])
            assert _triple(sess.run(z)) == ([[0, 0], [1, 2], [2, 1]], [1., 2., 3.], [3, 4])
            one = sess.run(fed.get_next(), {handle: sess.run(ds.make_one_shot_iterator().string_handle())})
            assert _triple(one["s"]) == ([[0]], [1.], [4])


def test_optional_get_value_rebuilds_a_sparse_value_in_its_scope():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [1, 2]], [1, 2], [2, 4])
        it = tf.data.make_initializable_iterator(tf.data.Dataset.zip({"a": tf.data.Dataset.from_tensor_slices(sp),
                                                                      "b": tf.data.Dataset.range(2)}))
        value = it.get_next_as_optional().get_value()
        assert value["b"].name == "OptionalGetValue:1"
        assert value["a"].indices.name == "OptionalGetValue/DeserializeSparse:0"
        assert value["a"].dense_shape.name == "OptionalGetValue/shape:0"
        with tf.Session() as sess:
            sess.run(it.initializer)
            got = sess.run(value)
            assert _triple(got["a"]) == ([[0]], [1], [4]) and got["b"] == 0


def test_a_sparse_scan_or_reduce_state_is_serialized_as_tfs():
    with tf.Graph().as_default() as g:
        st = tf.SparseTensor([[0]], tf.constant([0], tf.int64), [1])
        ds = tf.data.Dataset.range(3)
        scanned = ds.scan(st, lambda s, x: (tf.SparseTensor(s.indices, s.values + x, s.dense_shape), s.values[0]))
        reduced = ds.reduce(st, lambda s, x: tf.SparseTensor(s.indices, s.values + x, s.dense_shape))
        assert [n.op for n in g.as_graph_def().node][7:] == [
            "SerializeSparse", "ScanDataset", "SerializeSparse", "ReduceDataset", "DeserializeSparse", "Const"]
        assert reduced.indices.name == "DeserializeSparse:0"
        nxt = tf.data.make_one_shot_iterator(scanned).get_next()
        with tf.Session() as sess:
            assert _triple(sess.run(reduced)) == ([[0]], [3], [1])
            assert [sess.run(nxt) for _ in range(3)] == [0, 0, 1]


def test_parse_example_dataset_is_tfs_parse_example_dataset_node():
    """TF's node: ParseExampleDatasetV2 over the dense defaults (key_<name> reshaped, or an empty Const) and its
    parallel calls converted in its scope; names and attrs from TF 2.21."""
    with tf.Graph().as_default() as g:
        example = tf.train.Example(features=tf.train.Features(feature={
            "b": tf.train.Feature(float_list=tf.train.FloatList(value=[1., 2.])),
            "c": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x"]))})).SerializeToString()
        features = {"b": tf.VarLenFeature(tf.float32), "a": tf.FixedLenFeature([2], tf.int64, default_value=[1, 2]),
                    "c": tf.FixedLenFeature([], tf.string)}
        ds = tf.data.Dataset.from_tensors([example]).apply(
            tf.data.experimental.parse_example_dataset(features, num_parallel_calls=2))
        assert ds.element_spec["b"] == tf.SparseTensorSpec([1, None], tf.float32)
        node = {n.name: n for n in g.as_graph_def().node}["ParseExampleDatasetV2"]
        assert list(node.input) == ["TensorDataset", "ParseExampleDatasetV2/num_parallel_calls", "Reshape", "Const"]
        assert list(node.attr["sparse_keys"].list.s) == [b"b"] and list(node.attr["dense_keys"].list.s) == [b"a", b"c"]
        assert node.attr["deterministic"].s == b"default"
        got = dataset_elements(ds)[0]
        assert got["a"].tolist() == [[1, 2]] and got["c"].tolist() == [b"x"]
        assert _triple(got["b"]) == ([[0, 0], [0, 1]], [1., 2.], [1, 2])
