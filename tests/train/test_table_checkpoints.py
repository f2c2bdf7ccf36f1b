"""Mutable lookup tables in checkpoints: a table created with checkpoint=True is one of the Saver's
"saveable_objects", saved as `<name>-keys` and `<name>-values` (its export) and restored by import, as in TF.
tests/fixtures/tf_table_checkpoint/tables was written by TF 2.21's tf.compat.v1.train.Saver over the graph of
`_tables` (with the values inserted below); dense, over two DenseHashTables."""

from __future__ import annotations

import os

import numpy as np

import tensorweave.compat.v1 as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf_table_checkpoint", "tables")


def _tables() -> tuple:
    v = tf.Variable([0.0, 0.0], name="v")
    table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1, name="table")
    vec = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, 0.0], name="vec")
    return v, table, vec


def _lookups(sess: tf.Session, v: tf.Variable, table: object, vec: object) -> list:
    found = sess.run([v, table.lookup(tf.constant(["a", "b", "c", "zz"])), vec.lookup(tf.constant([3, 9, 4], tf.int64))])
    return [x.tolist() for x in found]


_EXPECTED = [[1.0, 2.0], [1, 2, 3, -1], [[1.0, 2.0], [3.5, -1.0], [0.0, 0.0]]]


def test_tables_are_saveable_objects() -> None:
    with tf.Graph().as_default():
        _, table, _ = _tables()
        tf.lookup.experimental.MutableHashTable(tf.int64, tf.int64, 0, name="unsaved", checkpoint=False)
        saveables = tf.get_collection(tf.GraphKeys.SAVEABLE_OBJECTS)
        assert [s.name for s in saveables] == ["table", "vec"]
        assert [spec.name for spec in saveables[0].specs] == ["table-keys", "table-values"]
        assert saveables[0].op is table


def test_a_checkpoint_written_by_tf_restores() -> None:
    with tf.Graph().as_default():
        v, table, vec = _tables()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, FIXTURE)
            assert _lookups(sess, v, table, vec) == _EXPECTED


def test_saved_tables_have_tfs_keys_and_restore(tmp_path: object) -> None:
    with tf.Graph().as_default():
        v, table, vec = _tables()
        inserts = [v.assign([1.0, 2.0]), table.insert(tf.constant(["a", "b", "c"]), tf.constant([1, 2, 3], tf.int64)),
                   vec.insert(tf.constant([3, 9], tf.int64), tf.constant([[1.0, 2.0], [3.5, -1.0]]))]
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(inserts)
            path = saver.save(sess, str(tmp_path / "tables"))
    # the entries TF's checkpoint holds (keys in a hash table's order: compared as sets)
    assert tf.train.list_variables(path) == tf.train.list_variables(FIXTURE)
    for key in ("table", "vec"):
        ours = dict(zip(tf.train.load_variable(path, key + "-keys").tolist(),
                        tf.train.load_variable(path, key + "-values").tolist()))
        theirs = dict(zip(tf.train.load_variable(FIXTURE, key + "-keys").tolist(),
                          tf.train.load_variable(FIXTURE, key + "-values").tolist()))
        assert ours == theirs
    with tf.Graph().as_default():
        v, table, vec = _tables()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert _lookups(sess, v, table, vec) == _EXPECTED
    assert np.array_equal(tf.train.load_variable(path, "v"), [1.0, 2.0])


def test_a_dense_table_saves_and_restores(tmp_path: object) -> None:
    # within tensorweave: its present keys and values (TF writes its whole bucket array instead)
    def dense() -> object:
        return tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=-1.0, empty_key=0,
                                                     deleted_key=-1, name="dense")

    with tf.Graph().as_default():
        table = dense()
        insert = table.insert(tf.constant([5, 7], tf.int64), tf.constant([0.5, 0.7]))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(insert)
            path = saver.save(sess, str(tmp_path / "dense"))
    with tf.Graph().as_default():
        table = dense()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(table.lookup(tf.constant([5, 7, 3], tf.int64))).tolist() == [0.5, 0.699999988079071, -1.0]


def test_a_dense_table_written_by_tf_restores() -> None:
    # TF saves a dense table's buckets ([buckets, 1] keys, empty_key 0 and deleted_key -1 among them): written by
    # TF 2.21 after inserting 5, 7, 9 (then removing 9) into `dense` and 2 into `dvec`
    with tf.Graph().as_default():
        dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=-1.0, empty_key=0,
                                                     deleted_key=-1, initial_num_buckets=8, name="dense")
        dvec = tf.lookup.experimental.DenseHashTable(tf.int64, tf.float32, default_value=[-1.0, -1.0], empty_key=0,
                                                    deleted_key=-1, initial_num_buckets=4, name="dvec")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, os.path.join(os.path.dirname(FIXTURE), "dense"))
            found = sess.run([dense.lookup(tf.constant([5, 7, 9], tf.int64)), dense.size(),
                              dvec.lookup(tf.constant([2, 3], tf.int64))])
    assert [x.tolist() for x in found] == [[0.5, 0.699999988079071, -1.0], 2, [[1.0, 2.0], [-1.0, -1.0]]]
