"""The graph a tf.data pipeline builds: one node per transformation, of TF's op type, name and inputs, its
scalars as Consts named as TF names them and its functions in the graph library (literals recorded from TF 2.21
in TF1 graph mode)."""

import numpy as np
import pytest
from op_testing import dataset_elements

import tensorweave.compat.v1 as tf


def _graph(build):
    g = tf.Graph()
    with g.as_default():
        build()
    return g


def _ops(g):
    return [(op.name, op.type, [t.name for t in op.inputs]) for op in g.get_operations()]


def test_a_pipeline_is_a_node_per_transformation():
    def build():
        ds = (tf.data.Dataset.from_tensor_slices(np.arange(10)).map(lambda x: x * 2).filter(lambda x: x > 2)
              .batch(3).repeat(2).shuffle(5, seed=1).take(4).skip(1).prefetch(2))
        tf.data.make_one_shot_iterator(ds).get_next()

    assert _ops(_graph(build)) == [
        ("normalize_element/component_0", "Const", []),
        ("TensorSliceDataset", "TensorSliceDataset", ["normalize_element/component_0:0"]),
        ("MapDataset", "MapDataset", ["TensorSliceDataset:0"]),
        ("FilterDataset", "FilterDataset", ["MapDataset:0"]),
        ("batch_size", "Const", []), ("drop_remainder", "Const", []),
        ("BatchDatasetV2", "BatchDatasetV2", ["FilterDataset:0", "batch_size:0", "drop_remainder:0"]),
        ("count", "Const", []),
        ("RepeatDataset", "RepeatDataset", ["BatchDatasetV2:0", "count:0"]),
        ("buffer_size", "Const", []), ("seed", "Const", []), ("seed2/Const", "Const", []),
        ("seed2/Equal/y", "Const", []), ("seed2/Equal", "Equal", ["seed:0", "seed2/Equal/y:0"]),
        ("seed2/Equal_1/y", "Const", []), ("seed2/Equal_1", "Equal", ["seed2/Const:0", "seed2/Equal_1/y:0"]),
        ("seed2/LogicalAnd", "LogicalAnd", ["seed2/Equal:0", "seed2/Equal_1:0"]),
        ("seed2/Const_1", "Const", []),
        ("seed2", "SelectV2", ["seed2/LogicalAnd:0", "seed2/Const_1:0", "seed2/Const:0"]),
        ("ShuffleDataset", "ShuffleDataset", ["RepeatDataset:0", "buffer_size:0", "seed:0", "seed2:0"]),
        ("count_1", "Const", []), ("TakeDataset", "TakeDataset", ["ShuffleDataset:0", "count_1:0"]),
        ("count_2", "Const", []), ("SkipDataset", "SkipDataset", ["TakeDataset:0", "count_2:0"]),
        ("buffer_size_1", "Const", []), ("PrefetchDataset", "PrefetchDataset", ["SkipDataset:0", "buffer_size_1:0"]),
        ("OneShotIterator", "OneShotIterator", []),
        ("IteratorToStringHandle", "IteratorToStringHandle", ["OneShotIterator:0"]),
        ("IteratorGetNext", "IteratorGetNext", ["OneShotIterator:0"])]


def test_the_values_still_come_from_the_pipeline():
    with tf.Graph().as_default():
        ds = (tf.data.Dataset.from_tensor_slices(np.arange(10)).map(lambda x: x * 2).filter(lambda x: x > 2)
              .batch(3).repeat(2).shuffle(5, seed=1).take(4).skip(1).prefetch(2))
        assert [v.tolist() for v in dataset_elements(ds)] == [[16, 18], [10, 12, 14], [16, 18]]


def test_initializable_iterator_nodes():
    def build():
        x = tf.placeholder(tf.float32, [None])
        it = tf.data.make_initializable_iterator(tf.data.Dataset.from_tensor_slices(x).batch(2))
        it.get_next()

    assert _ops(_graph(build)) == [
        ("Placeholder", "Placeholder", []), ("TensorSliceDataset", "TensorSliceDataset", ["Placeholder:0"]),
        ("batch_size", "Const", []), ("drop_remainder", "Const", []),
        ("BatchDatasetV2", "BatchDatasetV2", ["TensorSliceDataset:0", "batch_size:0", "drop_remainder:0"]),
        ("IteratorV2", "IteratorV2", []), ("MakeIterator", "MakeIterator", ["BatchDatasetV2:0", "IteratorV2:0"]),
        ("IteratorToStringHandle", "IteratorToStringHandle", ["IteratorV2:0"]),
        ("IteratorGetNext", "IteratorGetNext", ["IteratorV2:0"])]


def test_interleave_flat_map_and_parallel_map_nodes():
    def build():
        tf.data.Dataset.range(5).interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2)
        tf.data.Dataset.range(5).flat_map(lambda x: tf.data.Dataset.from_tensors(x))
        tf.data.Dataset.range(5).interleave(lambda x: tf.data.Dataset.from_tensors(x), cycle_length=2,
                                            num_parallel_calls=2)
        tf.data.Dataset.range(5).map(lambda x: x + 1, num_parallel_calls=4)

    range_ops = {"Const", "RangeDataset"}
    assert [op for op in _ops(_graph(build)) if op[1] not in range_ops or op[0].startswith(("cycle", "block"))] == [
        ("cycle_length", "Const", []), ("block_length", "Const", []),
        ("InterleaveDataset", "InterleaveDataset", ["RangeDataset:0", "cycle_length:0", "block_length:0"]),
        ("FlatMapDataset", "FlatMapDataset", ["RangeDataset_1:0"]),
        ("cycle_length_1", "Const", []), ("block_length_1", "Const", []),
        ("ParallelInterleaveDatasetV4", "ParallelInterleaveDatasetV4",
         ["RangeDataset_2:0", "cycle_length_1:0", "block_length_1:0", "buffer_output_elements:0",
          "prefetch_input_elements:0", "num_parallel_calls:0"]),
        ("ParallelMapDatasetV2", "ParallelMapDatasetV2", ["RangeDataset_3:0", "num_parallel_calls_1:0"])]


def test_sources_and_other_transformations():
    def build():
        tf.data.Dataset.range(5).window(2)
        tf.data.Dataset.range(5).cache().cache("/tmp/x")
        tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(3))).concatenate(
            tf.data.Dataset.zip((tf.data.Dataset.range(3), tf.data.Dataset.range(3))))
        tf.data.Dataset.from_tensors({"b": [1, 2], "a": 3.0}).shard(2, 0)

    assert [op for op in _ops(_graph(build)) if op[1] != "RangeDataset" and op[0][:4] not in ("star", "stop", "step")
            ] == [
        ("size", "Const", []), ("shift", "Const", []), ("stride", "Const", []), ("drop_remainder", "Const", []),
        ("WindowDataset", "WindowDataset", ["RangeDataset:0", "size:0", "shift:0", "stride:0", "drop_remainder:0"]),
        ("filename", "Const", []), ("CacheDataset", "CacheDataset", ["RangeDataset_1:0", "filename:0"]),
        ("filename_1", "Const", []), ("CacheDataset_1", "CacheDataset", ["CacheDataset:0", "filename_1:0"]),
        ("ZipDataset", "ZipDataset", ["RangeDataset_2:0", "RangeDataset_3:0"]),
        ("ZipDataset_1", "ZipDataset", ["RangeDataset_4:0", "RangeDataset_5:0"]),
        ("ConcatenateDataset", "ConcatenateDataset", ["ZipDataset:0", "ZipDataset_1:0"]),
        ("normalize_element/component_0", "Const", []), ("normalize_element/component_1", "Const", []),
        ("TensorDataset", "TensorDataset", ["normalize_element/component_0:0", "normalize_element/component_1:0"]),
        ("num_shards", "Const", []), ("index", "Const", []),
        ("ShardDataset", "ShardDataset", ["TensorDataset:0", "num_shards:0", "index:0"])]


def test_padded_batch_node_takes_a_shape_and_a_padding_value_per_component():
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.range(5).map(lambda x: (tf.fill([x], x), tf.fill([2, x], "a")))
        padded = ds.padded_batch(2, padded_shapes=([None], [2, None]), padding_values=(np.int64(-1), "z"),
                                 drop_remainder=True)
        assert [(op.name, op.type) for op in g.get_operations()][-7:-1] == [
            ("batch_size", "Const"), ("Const", "Const"), ("Const_1", "Const"), ("padding_value", "Const"),
            ("padding_value_1", "Const"), ("drop_remainder", "Const")]
        node = g.get_operation_by_name("PaddedBatchDatasetV2")
        assert [t.name for t in node.inputs] == ["MapDataset:0", "batch_size:0", "Const:0", "Const_1:0",
                                                 "padding_value:0", "padding_value_1:0", "drop_remainder:0"]
        assert tf.make_ndarray(g.get_operation_by_name("Const_1").get_attr("value")).tolist() == [2, -1]
        first = dataset_elements(padded)[0]
        assert first[0].tolist() == [[-1], [1]]
        assert first[1].tolist() == [[[b"z"], [b"z"]], [[b"a"], [b"a"]]]


def test_captured_tensors_are_inputs_of_the_node_whose_function_reads_them():
    def build():
        x = tf.constant(3, tf.int64, name="x")
        y = tf.placeholder(tf.int64, [], name="y")
        (tf.data.Dataset.range(4).map(lambda v: v * x + y).filter(lambda v: v > y)
         .flat_map(lambda v: tf.data.Dataset.from_tensors(v + x)))

    assert _ops(_graph(build))[-3:] == [
        ("MapDataset", "MapDataset", ["RangeDataset:0", "x:0", "y:0"]),
        ("FilterDataset", "FilterDataset", ["MapDataset:0", "y:0"]),
        ("FlatMapDataset", "FlatMapDataset", ["FilterDataset:0", "x:0"])]


def test_function_attrs_name_traced_functions_of_the_library():
    g = tf.Graph()
    with g.as_default():
        tf.data.Dataset.range(3).map(lambda x: x + 1).filter(lambda x: x > 1)
        graph_def = g.as_graph_def()
    names = [f.signature.name for f in graph_def.library.function]
    map_f = g.get_operation_by_name("MapDataset").get_attr("f").name
    predicate = g.get_operation_by_name("FilterDataset").get_attr("predicate").name
    assert map_f.startswith("__inference_Dataset_map_lambda_") and map_f in names
    assert predicate.startswith("__inference_Dataset_filter_lambda_") and predicate in names
    assert [n.op for n in graph_def.node] == ["Const"] * 3 + ["RangeDataset", "MapDataset", "FilterDataset"]


def test_a_flat_map_function_returns_its_dataset_and_its_functions_join_the_library():
    g = tf.Graph()
    with g.as_default():
        tf.data.Dataset.range(4).flat_map(lambda x: tf.data.Dataset.range(x).map(lambda y: y + 100))
        library = {f.signature.name: f for f in g.as_graph_def().library.function}
    outer = library[g.get_operation_by_name("FlatMapDataset").get_attr("f").name]
    inner = next(n for n in outer.node_def if n.op == "MapDataset")
    assert inner.attr["f"].func.name in library
    assert [a.type for a in outer.signature.output_arg] == [tf.variant.as_datatype_enum]


def test_scan_reduce_cardinality_and_single_element_nodes():
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.range(8)
        ds.scan(np.int64(0), lambda s, v: (s + v, s))
        ds.take_while(lambda v: v < 3)
        ds.unique()
        ds.apply(tf.data.experimental.ignore_errors())
        ds.group_by_window(lambda v: v % 2, lambda k, w: w.batch(2), 2)
        total = tf.data.Dataset.range(5).reduce(np.int64(0), lambda s, v: s + v)
        count = tf.data.experimental.cardinality(ds)
        single = tf.data.Dataset.range(3).take(1).get_single_element()
        assert _ops(g)[4:10] == [
            ("normalize_element/component_0", "Const", []),
            ("ScanDataset", "ScanDataset", ["RangeDataset:0", "normalize_element/component_0:0"]),
            ("TakeWhileDataset", "TakeWhileDataset", ["RangeDataset:0"]),
            ("UniqueDataset", "UniqueDataset", ["RangeDataset:0"]),
            ("IgnoreErrorsDataset", "IgnoreErrorsDataset", ["RangeDataset:0"]),
            ("GroupByWindowDataset", "GroupByWindowDataset", ["RangeDataset:0"])]
        assert _ops(g)[-10:-7] == [
            ("initial_state/normalize_element/component_0", "Const", []),
            ("ReduceDataset", "ReduceDataset", ["RangeDataset_1:0", "initial_state/normalize_element/component_0:0"]),
            ("DatasetCardinality", "DatasetCardinality", ["RangeDataset:0"])]
        with tf.Session() as sess:
            assert sess.run([total, count, single]) == [10, 8, 0]


def test_exported_graph_def_lists_tf_op_types_and_runs_when_imported(tmp_path):
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.from_tensor_slices([1, 2, 3]).map(lambda x: x * 10).batch(2)
        it = tf.data.make_initializable_iterator(ds)
        it.get_next(name="next")
        tf.train.write_graph(g, str(tmp_path), "g.pbtxt")
        graph_def = g.as_graph_def()
    text = (tmp_path / "g.pbtxt").read_text()
    assert 'op: "BatchDatasetV2"' in text and "_PyDataset" not in text
    with tf.Graph().as_default() as imported:
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            sess.run(imported.get_operation_by_name("MakeIterator"))
            assert sess.run("next:0").tolist() == [10, 20]


def test_batching_windows_gives_a_batch_of_datasets():
    """TF batches datasets of datasets: a DatasetSpec of one more dimension, its elements no tensors to fetch,
    unbatch gives the windows back; padded_batch refuses them."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(7).window(2).batch(2)
        spec = "DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([Dimension(None)]))"
        assert repr(ds.element_spec) == repr(ds.output_shapes) == spec
        pairs = tf.data.Dataset.zip((tf.data.Dataset.range(5), tf.data.Dataset.range(5))).window(2)
        assert repr(pairs.batch(2, drop_remainder=True).element_spec[0]) == spec.replace("Dimension(None)",
                                                                                        "Dimension(2)")
        nested = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess, pytest.raises(TypeError, match='has invalid type "_NestedVariant"'):
            sess.run(nested)
        windows = ds.unbatch().flat_map(lambda w: w.batch(2))
        assert [v.tolist() for v in dataset_elements(windows)] == [[0, 1], [2, 3], [4, 5], [6]]
        with pytest.raises(TypeError, match="`padded_batch` is not supported for datasets of datasets"):
            tf.data.Dataset.range(7).window(2).padded_batch(2)


def test_readers_flat_map_a_reader_over_the_file_names(tmp_path):
    names = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    for i, name in enumerate(names):
        with open(name, "w") as f:
            f.write(f"a{i}\nb{i}\n")
    g = tf.Graph()
    with g.as_default():
        tf.data.TFRecordDataset(names)
        lines = tf.data.TextLineDataset(names, num_parallel_reads=2)
        assert repr(lines) == "<TextLineDatasetV2 element_spec=TensorSpec(shape=(), dtype=tf.string, name=None)>"
        assert [op for op in _ops(g) if op[1] != "Const"] == [
            ("flat_filenames", "Reshape", ["Const:0", "flat_filenames/shape:0"]),
            ("TensorSliceDataset", "TensorSliceDataset", ["flat_filenames:0"]),
            ("FlatMapDataset", "FlatMapDataset", ["TensorSliceDataset:0"]),
            ("flat_filenames_1", "Reshape", ["Const_1:0", "flat_filenames_1/shape:0"]),
            ("TensorSliceDataset_1", "TensorSliceDataset", ["flat_filenames_1:0"]),
            ("LegacyParallelInterleaveDatasetV2", "LegacyParallelInterleaveDatasetV2",
             ["TensorSliceDataset_1:0", "cycle_length:0", "block_length:0", "buffer_output_elements:0",
              "prefetch_input_elements:0"])]
        assert dataset_elements(lines) == [b"a0", b"a1", b"b0", b"b1"]


def test_unbatch_maps_its_input_to_dense_first():
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.from_tensors([1, 2]).unbatch()
        assert _ops(g)[1:] == [("TensorDataset", "TensorDataset", ["normalize_element/component_0:0"]),
                               ("MapDataset", "MapDataset", ["TensorDataset:0"]),
                               ("UnbatchDataset", "UnbatchDataset", ["MapDataset:0"])]
        assert dataset_elements(ds) == [1, 2]


def test_experimental_transformation_nodes():
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.range(4)
        ds.apply(tf.data.experimental.assert_cardinality(4))
        ds.map(lambda x: tf.fill([x], x)).apply(tf.data.experimental.dense_to_sparse_batch(2, [5]))
        tf.data.experimental.sample_from_datasets([ds, ds], seed=1)
        assert _ops(g)[4:10] == [
            ("expected_cardinality", "Const", []),
            ("AssertCardinalityDataset", "AssertCardinalityDataset", ["RangeDataset:0", "expected_cardinality:0"]),
            ("MapDataset", "MapDataset", ["RangeDataset:0"]), ("Const", "Const", []),
            ("DenseToSparseBatchDataset/batch_size", "Const", []),
            ("DenseToSparseBatchDataset", "DenseToSparseBatchDataset",
             ["MapDataset:0", "DenseToSparseBatchDataset/batch_size:0", "Const:0"])]
        assert [op[:2] for op in _ops(g)[-6:]] == [
            ("RandomDataset", "RandomDataset"), ("batch_size", "Const"), ("drop_remainder", "Const"),
            ("BatchDatasetV2", "BatchDatasetV2"), ("MapDataset_1", "MapDataset"),
            ("DirectedInterleaveDataset", "DirectedInterleaveDataset")]


def test_choose_from_datasets_rewrites_its_choices():
    def build():
        tf.data.experimental.choose_from_datasets([tf.data.Dataset.range(2), tf.data.Dataset.range(3)],
                                                  tf.data.Dataset.range(2))

    assert _ops(_graph(build))[-3:] == [
        ("RewriteDataset/rewrite_name", "Const", []),
        ("RewriteDataset", "RewriteDataset", ["RangeDataset_2:0", "RewriteDataset/rewrite_name:0"]),
        ("DirectedInterleaveDataset", "DirectedInterleaveDataset",
         ["RewriteDataset:0", "RangeDataset:0", "RangeDataset_1:0"])]


def test_from_generator_flat_maps_a_generator_id():
    def gen(n):
        yield from range(n)

    g = tf.Graph()
    with g.as_default():
        ds = tf.data.Dataset.from_generator(gen, tf.int64, args=(3,))
        assert _ops(g) == [
            ("args_0", "Const", []), ("normalize_element/component_0", "Const", []),
            ("TensorDataset", "TensorDataset", ["normalize_element/component_0:0"]),
            ("FlatMapDataset", "FlatMapDataset", ["TensorDataset:0", "args_0:0"])]
        assert dataset_elements(ds) == [0, 1, 2]


def test_list_files_checks_that_a_file_matched(tmp_path):
    g = tf.Graph()
    with g.as_default():
        pattern = str(tmp_path / "*.nope")
        assert dataset_elements(tf.data.Dataset.list_files(pattern)) == []  # a one-shot iterator drops the check
        assert [op.type for op in g.get_operations()][:17] == [
            "Const", "MatchingFiles", "Shape", "Const", "Const", "Const", "StridedSlice", "Const", "Greater", "Const",
            "ReduceJoin", "Const", "Add", "Assert", "Identity", "TensorSliceDataset", "Shape"]
        it = tf.data.make_initializable_iterator(tf.data.Dataset.list_files([pattern, "/x/*.y"], shuffle=False))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match=r"No files matched pattern: .*\*\.nope, /x/\*\.y"):
            sess.run(it.initializer)


def _dataset_nodes(g):
    return [(n.name, n.op, list(n.input)) for n in g.as_graph_def().node if n.op.endswith("Dataset")
            or n.op.endswith(("DatasetV2", "DatasetV4"))]


def test_ragged_batch_maps_to_ragged_then_batches():
    def build():
        tf.data.Dataset.range(5).map(lambda x: tf.range(x)).ragged_batch(2)

    assert _dataset_nodes(_graph(build)) == [
        ("RangeDataset", "RangeDataset", ["start", "stop", "step"]),
        ("MapDataset", "MapDataset", ["RangeDataset"]), ("MapDataset_1", "MapDataset", ["MapDataset"]),
        ("BatchDatasetV2", "BatchDatasetV2", ["MapDataset_1", "batch_size", "drop_remainder"])]


def test_csv_dataset_nodes(tmp_path):
    path = str(tmp_path / "a.csv")
    with open(path, "w") as f:
        f.write("a,b,c\n1,2.5,x\n3,,y\n")
    csv_inputs = ["filenames", "compression_type", "buffer_size", "header", "field_delim", "use_quote_delim",
                  "na_value", "select_cols"]
    g = _graph(lambda: tf.data.experimental.CsvDataset(path, [tf.int32, tf.float32, tf.string], header=True))
    assert _dataset_nodes(g) == [("CSVDatasetV2", "CSVDatasetV2", csv_inputs + ["Const", "Const_1", "Const_2",
                                                                               "exclude_cols"])]
    g = _graph(lambda: tf.data.experimental.CsvDataset(path, [[0], [1.0], ["z"]], header=True))
    assert _dataset_nodes(g)[0][2][8:] == ["record_defaults_0", "record_defaults_1", "record_defaults_2",
                                           "exclude_cols"]
    g = _graph(lambda: tf.data.experimental.make_csv_dataset(path, batch_size=2, shuffle=False, num_epochs=1))
    assert [(name, op) for name, op, _ in _dataset_nodes(g)] == [
        ("TensorSliceDataset", "TensorSliceDataset"),
        ("LegacyParallelInterleaveDatasetV2", "LegacyParallelInterleaveDatasetV2"),
        ("BatchDatasetV2", "BatchDatasetV2"), ("MapDataset", "MapDataset"), ("PrefetchDataset", "PrefetchDataset")]
    assert _dataset_nodes(g)[1][2] == ["TensorSliceDataset", "Const", "Const_1", "Const_2", "cycle_length",
                                       "block_length", "buffer_output_elements", "prefetch_input_elements"]


def test_group_by_reducer_node_names_its_four_functions():
    def build():
        reducer = tf.data.experimental.Reducer(lambda k: tf.constant(0, tf.int64), lambda s, x: s + x, lambda s: s)
        tf.data.Dataset.range(5).apply(tf.data.experimental.group_by_reducer(lambda x: x % 2, reducer))

    g = _graph(build)
    assert _dataset_nodes(g)[1] == ("ExperimentalGroupByReducerDataset", "ExperimentalGroupByReducerDataset",
                                    ["RangeDataset"])
    attrs = g.get_operation_by_name("ExperimentalGroupByReducerDataset").node_def.attr
    assert [attrs[f"{kind}_func"].func.name.split("_group_by_reducer_")[0] for kind in
            ("key", "init", "reduce", "finalize")] == ["__inference_tf_data_experimental"] * 4


def test_bucket_by_sequence_length_captures_its_batch_sizes():
    def build():
        tf.data.Dataset.range(5).map(lambda x: tf.range(x)).bucket_by_sequence_length(
            lambda x: tf.shape(x)[0], [2], [2, 2])

    assert _dataset_nodes(_graph(build))[-1] == ("GroupByWindowDataset", "GroupByWindowDataset",
                                                 ["MapDataset", "Const", "Const"])


def test_graph_seed_only_shuffle_and_later_random_ops_match_tf():
    """A one-shot iterator draws an op seed as TF's does (its function's), so the seeds of the shuffles and
    random ops made after it are TF's; values recorded from TF 2.21."""
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        x = tf.data.Dataset.range(6).shuffle(3).batch(2).make_one_shot_iterator().get_next()
        r = tf.random_uniform([2])
        d2 = tf.data.Dataset.from_tensor_slices(np.arange(8)).map(lambda v: v * 2).shuffle(4).repeat(2).batch(3)
        y = d2.make_initializable_iterator()
        yn = y.get_next()
        r2 = tf.random_uniform([2])
        with tf.Session() as sess:
            assert [sess.run(x).tolist() for _ in range(3)] == [[0, 2], [4, 1], [3, 5]]
            np.testing.assert_allclose(sess.run([r, r2]), [[0.406397, 0.8576], [0.385387, 0.361992]], atol=1e-6)
            sess.run(y.initializer)
            assert [sess.run(yn).tolist() for _ in range(3)] == [[2, 4, 10], [8, 0, 6], [14, 12, 4]]


def test_a_function_using_the_graph_seed_warns_as_tf():
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        with pytest.warns(UserWarning, match="Seed 3 from outer graph might be getting used by function "
                                             "Dataset_map_lambda, if the random op has not been provided any seed"):
            tf.data.Dataset.range(3).map(lambda v: tf.random_uniform([]))


def test_v2_only_transformations_return_datasets_without_tf1_methods():
    """TF1's Dataset overrides only some transformations (returning a DatasetV1Adapter); the others (take_while,
    scan, unique, ...) return a DatasetV2, without make_one_shot_iterator or the legacy structure attributes, as
    do the transformations of a DatasetV2; apply, zip, enumerate and the tf.data.experimental ones give TF1's."""
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(10)
        v2 = [ds.take_while(lambda x: x < 3), ds.scan(np.int64(0), lambda s, x: (s + x, s)), ds.unique(),
              ds.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2), window_size=2), ds.ignore_errors(),
              ds.map(lambda x: tf.fill([x], x)).sparse_batch(2, [10]), tf.data.Dataset.random(seed=1),
              tf.data.Dataset.choose_from_datasets([ds, ds], tf.data.Dataset.range(2)),
              tf.data.Dataset.sample_from_datasets([ds, ds], seed=1), tf.data.Dataset.counter(),
              ds.map(lambda x: tf.fill([x], x)).ragged_batch(2), ds.take_while(lambda x: x < 3).take(2),
              ds.take_while(lambda x: x < 3).apply(lambda d: d)]
        v1 = [ds.shuffle(2), ds.enumerate(), ds.take_while(lambda x: x < 3).enumerate(),
              ds.apply(tf.data.experimental.take_while(lambda x: x < 3)), ds.apply(lambda d: d.unique()),
              tf.data.experimental.choose_from_datasets([ds, ds], tf.data.Dataset.range(2)),
              tf.data.experimental.sample_from_datasets([ds, ds]), tf.data.experimental.Counter(),
              tf.data.experimental.RandomDataset(1), tf.data.Dataset.zip((ds.unique(), ds))]
        assert [hasattr(d, "make_one_shot_iterator") or hasattr(d, "output_types") for d in v2] == [False] * len(v2)
        assert all(hasattr(d, "make_one_shot_iterator") and hasattr(d, "output_types") for d in v1)
        with pytest.raises(AttributeError, match="'_TakeWhileDataset' object has no attribute "
                                                 "'make_one_shot_iterator'"):
            v2[0].make_one_shot_iterator()
        assert tf.data.get_output_types(v2[0]) == tf.int64
        nxt = tf.data.make_one_shot_iterator(v2[0]).get_next()
        with tf.Session() as sess:
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]


def test_shuffle_and_repeat_and_map_and_batch_are_tfs_single_nodes():
    """TF's experimental shuffle_and_repeat and map_and_batch each make one node (ShuffleAndRepeatDataset,
    MapAndBatchDataset) over TF's constants; values recorded from TF 2.21."""
    with tf.Graph().as_default() as g:
        tf.set_random_seed(5)
        ds = tf.data.Dataset.range(10)
        a = ds.apply(tf.data.experimental.shuffle_and_repeat(4, 3))
        c = ds.apply(tf.data.experimental.map_and_batch(lambda x: (x, tf.as_string(x)), 4))
        d = ds.apply(tf.data.experimental.map_and_batch(lambda x: {"v": tf.fill([2], x)}, 3, num_parallel_batches=2,
                                                        drop_remainder=True))
        assert d.output_shapes == {"v": tf.TensorShape([3, 2])}
        nodes = {n.name: n for n in g.as_graph_def().node}
        assert list(nodes["ShuffleAndRepeatDataset"].input) == ["RangeDataset", "buffer_size", "seed", "seed2", "count"]
        assert list(nodes["MapAndBatchDataset"].input) == ["RangeDataset", "batch_size", "num_parallel_calls",
                                                           "drop_remainder"]
        assert [n.op for n in g.as_graph_def().node][4:8] == ["Const", "Const", "Const", "Const"]
        with pytest.raises(ValueError, match="`num_parallel_batches` was set to 1 and `num_parallel_calls` as set "
                                             "to 2"):
            tf.data.experimental.map_and_batch(lambda x: x, 2, 1, num_parallel_calls=2)
        its = [tf.data.make_one_shot_iterator(x).get_next() for x in (a, c, d)]
        with tf.Session() as sess:
            assert sess.run(tf.data.experimental.cardinality(a)) == 30
            assert [int(sess.run(its[0])) for _ in range(12)] == [2, 0, 5, 4, 7, 1, 3, 6, 8, 9, 0, 3]
            values, strings = sess.run(its[1])
            assert values.tolist() == [0, 1, 2, 3] and strings.tolist() == [b"0", b"1", b"2", b"3"]
            assert sess.run(its[2])["v"].tolist() == [[0, 0], [1, 1], [2, 2]]


def test_map_and_filter_with_legacy_function():
    with tf.Graph().as_default() as g:
        mapped = tf.data.Dataset.range(5).map_with_legacy_function(lambda x: x * 2)
        kept = mapped.filter_with_legacy_function(lambda x: x > 2)
        nodes = {n.name: n for n in g.as_graph_def().node}
        assert not nodes["MapDataset"].attr["preserve_cardinality"].b  # TF's legacy map
        assert hasattr(mapped, "output_shapes") and not hasattr(kept, "output_shapes")  # TF's filter one is V2
        assert not hasattr(kept, "map_with_legacy_function")
        assert tf.data.experimental.SHARD_HINT == -1
        batched = tf.data.Dataset.range(5).apply(
            tf.data.experimental.map_and_batch_with_legacy_function(lambda x: x * 3, 2))
        assert [n.op for n in g.as_graph_def().node][-1] == "MapAndBatchDataset"
        assert [v.tolist() for v in dataset_elements(batched)] == [[0, 3], [6, 9], [12]]
        assert [v.tolist() for v in dataset_elements(kept)] == [4, 6, 8]
