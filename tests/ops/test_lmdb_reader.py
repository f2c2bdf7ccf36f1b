"""tf.LMDBReader: TF1's graph (a ref handle; ReaderRead and the other V1 verbs on a FakeQueue of the work
queue), the records of LMDB files and environment directories in key order (as liblmdb's cursor gives them:
tests/formats/test_lmdb.py checks the parser against py-lmdb), its counters, reset, and its errors. TF 2.21's
kernel no longer reads LMDB (it fails with "LMDB support is removed"); this reader does as TF1's did."""

import pathlib

import pytest

import tensorweave.compat.v1 as tf

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "lmdb"


def _queue(sess, *names):
    queue = tf.FIFOQueue(10, tf.string)
    sess.run(queue.enqueue_many([[str(FIXTURES / n) for n in names]]))
    sess.run(queue.close())
    return queue


def test_lmdb_reader_graph_is_tf1s():
    with tf.Graph().as_default():
        reader = tf.LMDBReader(name="lmdb")
        key, value = reader.read(tf.FIFOQueue(3, tf.string))
        keys, _ = reader.read_up_to(tf.FIFOQueue(3, tf.string), 4)
        assert reader.reader_ref.dtype == tf.string._as_ref and reader.reader_ref.shape.as_list() == [2]
        assert not reader.supports_serialize
        assert key.op.type == "ReaderRead" and [t.op.type for t in key.op.inputs] == ["LMDBReader", "FakeQueue"]
        assert key.shape.as_list() == [] and value.shape.as_list() == [] and keys.shape.as_list() == [None]
        assert [reader.num_records_produced().op.type, reader.num_work_units_completed().op.type,
                reader.serialize_state().op.type, reader.reset().type, reader.restore_state("").type] == [
            "ReaderNumRecordsProduced", "ReaderNumWorkUnitsCompleted", "ReaderSerializeState", "ReaderReset",
            "ReaderRestoreState"]


def test_lmdb_reader_reads_files_and_directories_in_key_order():
    with tf.Graph().as_default(), tf.Session() as sess:
        reader = tf.LMDBReader()
        key, value = reader.read(_queue(sess, "small.mdb", "empty.mdb", "dir"))
        records = [tuple(sess.run([key, value])) for _ in range(8)]
        with pytest.raises(tf.errors.OutOfRangeError, match="is closed and has insufficient elements"):
            sess.run(key)
        produced, completed = sess.run([reader.num_records_produced(), reader.num_work_units_completed()])
    assert records == [(b"\x00bin", b"\x01\x02\xff"), (b"apple", b"red"), (b"banana", b"ripe yellow"),
                       (b"cherry", b"dark red"), (b"pear", b"green"), (b"key0", b"value0"), (b"key1", b"value1"),
                       (b"key2", b"value2")]
    assert (produced, completed) == (8, 3)


def test_lmdb_reader_read_up_to_and_reset():
    with tf.Graph().as_default(), tf.Session() as sess:
        reader = tf.LMDBReader()
        keys, values = reader.read_up_to(_queue(sess, "tree.mdb", "small.mdb"), 100)
        sizes, lengths = [], []
        for _ in range(4):
            k, v = sess.run([keys, values])
            sizes.append(len(k))
            lengths.append(sum(len(x) for x in v))
        assert sizes == [100, 100, 94, 5] and lengths == [2457, 7311, 20197, 30]
        reread = tf.LMDBReader()
        key, _ = reread.read(_queue(sess, "dir", "dir"))
        assert sess.run(key) == b"key0" and sess.run(key) == b"key1"
        sess.run(reread.reset())
        assert sess.run([reread.num_records_produced(), reread.num_work_units_completed()]) == [0, 0]
        assert [sess.run(key) for _ in range(3)] == [b"key0", b"key1", b"key2"]


def test_lmdb_reader_errors(tmp_path):
    (tmp_path / "bad.mdb").write_bytes(b"x" * 10000)
    with tf.Graph().as_default(), tf.Session() as sess:
        queue = tf.FIFOQueue(10, tf.string)
        sess.run(queue.enqueue_many([[str(tmp_path / "nope.mdb"), str(tmp_path / "bad.mdb")]]))
        reader = tf.LMDBReader()
        key, _ = reader.read(queue)
        with pytest.raises(tf.errors.NotFoundError, match="nope.mdb; No such file or directory"):
            sess.run(key)
        with pytest.raises(tf.errors.DataLossError, match="MDB_INVALID: File is not an LMDB file"):
            sess.run(key)
        with pytest.raises(tf.errors.UnimplementedError, match="Reader SerializeState"):
            sess.run(reader.serialize_state())
