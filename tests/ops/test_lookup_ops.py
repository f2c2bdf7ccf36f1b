"""tf.lookup tables and their initializers: values, names, collections and errors recorded from TF 2.21."""

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.ops import lookup_ops


def _error(sess, fetch):
    with pytest.raises(errors.OpError) as info:
        sess.run(fetch)
    return type(info.value), runtime_message(info.value).split("\n")[0]


def test_static_hash_table_from_tensors():
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1, 2, 3]), -1)
        out = table.lookup(tf.constant([["a", "z"], ["c", "b"]]))
        assert [op.name for op in tf.get_default_graph().get_operations()] == [
            "keys", "values", "Const", "hash_table", "key_value_init/LookupTableImportV2", "Const_1",
            "hash_table_Lookup/LookupTableFindV2"]
        assert table.resource_handle.op.type == "HashTableV2"
        assert table.resource_handle.op.get_attr("shared_name").startswith(b"hash_table_")
        assert tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS) == [table.initializer]
        assert (out.shape.as_list(), out.dtype, table.size().name) == ([2, 2], tf.int32,
                                                                       "hash_table_Size/LookupTableSizeV2:0")
        assert (table.key_dtype, table.value_dtype, table.name) == (tf.string, tf.int32, "hash_table")
        with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'string'>, received: "
                                            "<dtype: 'int32'>"):
            table.lookup(tf.constant([1, 2]))
        with tf.Session() as sess:
            assert _error(sess, out) == (errors.FailedPreconditionError, "Table not initialized.")
            sess.run(tf.tables_initializer())
            sess.run(table.initializer)  # a second run changes nothing
            values, size = sess.run([out, table.size()])
            np.testing.assert_array_equal(values, [[1, -1], [3, 2]])
            assert size == 3
            clash = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 1], [2.0, 3.0]), 0.0)
            assert _error(sess, clash.initializer) == (
                errors.FailedPreconditionError,
                "HashTable has different value for same key. Key 1 has 2 and trying to add value 3")
    assert tf.tables_initializer().name == "init_all_tables" and tf.initialize_all_tables is not None


def test_text_file_initializer_and_vocabulary_tables(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("x\ty 10\nfoo\tbar 20\nbaz\tq 30\n")
    with tf.Graph().as_default(), tf.Session() as sess:
        index = tf.lookup.TextFileIndex
        lines = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(path), tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER), -1)
        fields = tf.lookup.StaticHashTable(
            tf.lookup.TextFileInitializer(str(path), tf.string, 0, tf.string, 1, delimiter=" "), "?")
        vocab = tf.lookup.StaticVocabularyTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b"], [0, 1], value_dtype=tf.int64), 3)
        ids = vocab.lookup(tf.constant(["a", "zz", "b", "yy", "c"]))
        assert ids.op.type == "SelectV2" and ids.op.name == "hash_table_2_Lookup/SelectV2"
        assert lines.initializer.type == "InitializeTableFromTextFileV2"
        sess.run(tf.tables_initializer())
        found = sess.run([lines.lookup(tf.constant(["foo\tbar 20", "no"])),
                          fields.lookup(tf.constant(["x\ty", "foo\tbar", "q"])), ids, vocab.size()])
        assert [v.tolist() for v in found[:3]] == [[1, -1], [b"10", b"20", b"?"], [0, 3, 1, 3, 3]]
        assert found[3] == 5
        with pytest.raises(ValueError, match="`num_oov_buckets` must be > 0; use StaticHashTable."):
            tf.lookup.StaticVocabularyTable(tf.lookup.KeyValueTensorInitializer(["a"], [0], value_dtype=tf.int64), 0)
        with pytest.raises(ValueError, match="`value_dtype` must be string for `value_index` TextFileIndex.WHOLE_LINE"):
            tf.lookup.TextFileInitializer(str(path), tf.int64, index.LINE_NUMBER, tf.int64, index.WHOLE_LINE)


def test_text_file_tables_share_one_resource_and_one_asset_path_as_tf(tmp_path):
    """TF's TextFileInitializer holds an Asset (`asset_path`, a CPU constant outside control flow) and names its
    table by file and columns, so a second table of one file reads the first's entries (recorded from TF 2.21)."""
    path = str(tmp_path / "vocab.txt")
    (tmp_path / "vocab.txt").write_text("apple\nbanana\n")
    index = tf.lookup.TextFileIndex
    with tf.Graph().as_default() as g, tf.Session() as sess:
        def table(**kwargs):
            return tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
                path, tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER, **kwargs), -1)
        with tf.name_scope("outer"):
            first = table()
        second, sized = table(), table(vocab_size=2, value_index_offset=3)
        assert [(op.name, op.device) for op in g.get_operations() if "asset_path" in op.name] == [
            ("outer/asset_path", "/device:CPU:*"), ("asset_path", "/device:CPU:*"), ("asset_path_1", "/device:CPU:*")]
        paths = ["outer/asset_path:0", "asset_path:0", "asset_path_1:0"]
        assert [list(op.inputs)[1].name for op in g.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)] == paths
        assert [t.name for t in tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)] == paths
        names = [t.resource_handle.op.get_attr("shared_name") for t in (first, second, sized)]
        assert names == [f"hash_table_{path}_-2_-1".encode()] * 2 + [f"hash_table_{path}_2_-2_-1_3".encode()]
        sess.run(first.initializer)
        assert sess.run(second.lookup(tf.constant(["banana", "x"]))).tolist() == [1, -1]
        fed = tf.placeholder(tf.string, [])
        by_feed = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            fed, tf.string, index.WHOLE_LINE, tf.int64, index.LINE_NUMBER), -1)
        assert by_feed.resource_handle.op.get_attr("shared_name") == (
            b'hash_table_Tensor("Placeholder:0", shape=(), dtype=string)_-2_-1')
        assert len(tf.get_collection(tf.GraphKeys.ASSET_FILEPATHS)) == 3


def test_index_tables(tmp_path):
    path = tmp_path / "v.txt"
    path.write_text("emerson\nlake\npalmer\n")
    with tf.Graph().as_default(), tf.Session() as sess:
        words = lookup_ops.index_table_from_tensor(["brain", "salad", "surgery"], num_oov_buckets=1)
        from_file = lookup_ops.index_table_from_file(str(path), num_oov_buckets=2)
        names = lookup_ops.index_to_string_table_from_tensor(["a", "b"])
        lines = lookup_ops.index_to_string_table_from_file(str(path), default_value="?")
        numbers = lookup_ops.index_table_from_tensor(tf.constant([10, 20, 30], tf.int64), dtype=tf.int64,
                                                     num_oov_buckets=3)
        first_two = lookup_ops.index_table_from_file(str(path), vocab_size=2)
        sess.run(tf.tables_initializer())
        got = sess.run([words.lookup(tf.constant(["salad", "tank", "brain", "x"])),
                        from_file.lookup(tf.constant(["lake", "tarkus", "palmer", "z"])),
                        names.lookup(tf.constant([1, 0, 5], tf.int64)), lines.lookup(tf.constant([2, 3], tf.int64)),
                        numbers.lookup(tf.constant([20, 40, 10, 7], tf.int64)),
                        first_two.lookup(tf.constant(["palmer", "lake"])), words.size(), from_file.size()])
        assert [np.asarray(v).tolist() for v in got] == [
            [1, 3, 0, 3], [1, 3, 2, 4], [b"b", b"a", b"UNK"], [b"palmer", b"?"], [1, 4, 0, 4], [-1, 1], 4, 5]


def test_mutable_hash_tables():
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -5)
        vectors = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, 0.0])
        assert (table.resource_handle.op.type, vectors.resource_handle.op.type) == (
            "MutableHashTableV2", "MutableHashTableOfTensorsV2")
        insert = table.insert(["k1", "k2"], [7, 8])
        assert insert.name == "MutableHashTable_lookup_table_insert/LookupTableInsertV2"
        sess.run([insert, vectors.insert([3, 4], [[1.0, 2.0], [3.0, 4.0]])])
        sess.run(table.insert(["k2"], [9]))
        found = vectors.lookup(tf.constant([4, 9], tf.int64))
        assert found.shape.as_list() == [2, 2]
        got = sess.run([table.lookup(tf.constant(["k2", "nope"])), table.size(), found])
        assert [np.asarray(v).tolist() for v in got] == [[9, -5], 2, [[3.0, 4.0], [0.0, 0.0]]]
        keys, values = sess.run(table.export())
        assert sorted(zip(keys.tolist(), values.tolist())) == [(b"k1", 7), (b"k2", 9)]
        sess.run(table.remove(tf.constant(["k1", "absent"])))
        assert sess.run(table.size()) == 1
        assert _error(sess, table.insert(["a"], [1, 2])) == (errors.InvalidArgumentError,
                                                             "Expected shape [1] for value, got [2]")


def test_dense_hash_table():
    with tf.Graph().as_default(), tf.Session() as sess:
        table = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=-1, empty_key=0,
                                                      deleted_key=-1)
        handle = table.resource_handle.op
        assert (handle.name, handle.type, [t.op.name for t in handle.inputs]) == (
            "MutableDenseHashTable", "MutableDenseHashTableV2", ["empty_key", "deleted_key"])
        sess.run(table.insert(tf.constant([5, 7], tf.int64), tf.constant([50, 70], tf.int64)))
        found, size = sess.run([table.lookup(tf.constant([7, 8], tf.int64)), table.size()])
        assert (found.tolist(), size) == ([70, -1], 2)
        sess.run(table.remove(tf.constant([5], tf.int64)))
        assert sess.run(table.size()) == 1
        assert _error(sess, table.insert(tf.constant([0], tf.int64), tf.constant([1], tf.int64))) == (
            errors.InvalidArgumentError, "Using the empty_key as a table key is not allowed")
        assert _error(sess, table.lookup(tf.constant([-1], tf.int64))) == (
            errors.InvalidArgumentError, "Using the deleted_key as a table key is not allowed")
        same = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, 0, 0)
        assert _error(sess, same.size()) == (errors.InvalidArgumentError, "Empty and deleted keys cannot be equal")
