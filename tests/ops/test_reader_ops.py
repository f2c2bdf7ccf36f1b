"""Readers and the whole-file ops; keys, values, counters and messages recorded from TF 2.21."""

import gzip

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors


def _read_all(reader_fn, files, up_to=None):
    """Every (key, value, records produced, units completed) a reader gives, until the closed queue is drained."""
    q = tf.FIFOQueue(10, [tf.string])
    reader = reader_fn()
    key, value = reader.read(q) if up_to is None else reader.read_up_to(q, up_to)
    with tf.Session() as sess:
        sess.run(q.enqueue_many([files]))
        sess.run(q.close())
        out = []
        while True:
            try:
                out.append(tuple(np.asarray(x).tolist() for x in sess.run([key, value])))
            except errors.OutOfRangeError as e:
                assert "is closed and has insufficient elements (requested 1, current size 0)" in e.message
                break
        counters = sess.run([reader.num_records_produced(), reader.num_work_units_completed()])
    return out, counters


def test_text_lines_skip_headers_and_strip_line_ends(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"h1\nh2\nl1\r\nl2\n\nl4")
    b.write_bytes(b"x\n")
    out, counters = _read_all(lambda: tf.TextLineReader(skip_header_lines=2), [str(a), str(b)])
    assert out == [(f"{a}:3".encode(), b"l1"), (f"{a}:4".encode(), b"l2"), (f"{a}:5".encode(), b""),
                   (f"{a}:6".encode(), b"l4")]
    assert counters == [4, 2]
    out, _ = _read_all(lambda: tf.TextLineReader(skip_header_lines=3), [str(b), str(a)], up_to=2)
    assert out == [([f"{a}:4".encode(), f"{a}:5".encode()], [b"l2", b""]), ([f"{a}:6".encode()], [b"l4"])]


def test_fixed_length_records_header_footer_hop_and_gzip(tmp_path):
    raw, packed = tmp_path / "fx.bin", tmp_path / "fx.gz"
    raw.write_bytes(bytes(range(23)))
    packed.write_bytes(gzip.compress(bytes(range(23))))
    out, _ = _read_all(lambda: tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=3), [str(raw)])
    assert [v for _, v in out] == [bytes(range(i, i + 4)) for i in (2, 6, 10, 14)]
    assert out[0][0] == f"{raw}:0".encode()
    out, _ = _read_all(lambda: tf.FixedLengthRecordReader(4, header_bytes=2, footer_bytes=3, hop_bytes=3), [str(raw)])
    assert [v for _, v in out] == [bytes(range(i, i + 4)) for i in (2, 5, 8, 11, 14)]
    out, _ = _read_all(lambda: tf.FixedLengthRecordReader(5, header_bytes=1, encoding="GZIP"), [str(packed)])
    assert [v for _, v in out] == [bytes(range(i, i + 5)) for i in (1, 6, 11, 16)]


def test_tfrecord_whole_file_and_identity_readers(tmp_path):
    path = str(tmp_path / "r.tfr")
    with tf.python_io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(b"rec%d" % i * (i + 1))
    out, counters = _read_all(tf.TFRecordReader, [path, path], up_to=2)
    assert [k for k, _ in out] == [[f"{path}:0".encode(), f"{path}:20".encode()], [f"{path}:44".encode()]] * 2
    assert counters == [6, 2]
    (tmp_path / "c.txt").write_bytes(b"")
    out, counters = _read_all(tf.WholeFileReader, [path, str(tmp_path / "c.txt")], up_to=5)
    assert [v for _, v in out] == [[open(path, "rb").read()], [b""]] and counters == [2, 2]
    out, _ = _read_all(tf.IdentityReader, ["p", "q"])
    assert out == [(b"p", b"p"), (b"q", b"q")]


def test_reader_names_shapes_and_errors(tmp_path):
    q = tf.FIFOQueue(10, [tf.string], name="fq")
    reader = tf.TFRecordReader()
    key, value = reader.read(q)
    keys, _ = reader.read_up_to(q, 3)
    assert (reader.reader_ref.name, key.name, value.shape.as_list(), keys.name, keys.shape.as_list()) == (
        "TFRecordReaderV2:0", "ReaderReadV2:0", [], "ReaderReadUpToV2:0", [None])
    assert tf.WholeFileReader(name="wfr").reader_ref.op.name == "wfr"
    assert (reader.supports_serialize, tf.WholeFileReader().supports_serialize) == (False, True)
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        reader.read_up_to(q, [1, 2])
    (tmp_path / "a.txt").write_bytes(b"not a record")
    qi, q2 = tf.FIFOQueue(10, [tf.int32]), tf.FIFOQueue(10, [tf.string, tf.string])
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[str(tmp_path / "nope"), str(tmp_path / "a.txt")]]))
        with pytest.raises(errors.NotFoundError, match="nope; No such file or directory"):
            sess.run(key)
        for _ in range(2):  # the failed work unit stays in progress
            with pytest.raises(errors.DataLossError, match=r"corrupted record at 0 \(Is this even a TFRecord file\?\)"):
                sess.run(key)
        with pytest.raises(errors.InvalidArgumentError, match="Expected queue with single string component"):
            sess.run(tf.IdentityReader().read(qi))
        with pytest.raises(errors.InvalidArgumentError, match="Expected single component queue"):
            sess.run(tf.IdentityReader().read(q2))
        with pytest.raises(errors.UnimplementedError, match="Reader SerializeState"):
            sess.run(reader.serialize_state())
        with pytest.raises(errors.UnimplementedError, match="Reader RestoreState"):
            sess.run(reader.restore_state(b""))


def test_serialize_restore_and_reset():
    q = tf.FIFOQueue(10, [tf.string])
    reader = tf.IdentityReader()
    key, _ = reader.read(q)
    counters = [reader.num_records_produced(), reader.num_work_units_completed()]
    with tf.Session() as sess:
        sess.run(q.enqueue_many([["p", "q", "r"]]))
        sess.run([key])
        sess.run([key])
        state = sess.run(reader.serialize_state())
        assert state == b'\x08\x02\x10\x02\x18\x02"\x01q'  # the finished work unit stays current_work
        sess.run(reader.reset())
        assert sess.run(counters) == [0, 0] and sess.run(reader.serialize_state()) == b""
        sess.run(reader.restore_state(state))
        assert sess.run(counters) == [2, 2] and sess.run(key) == b"r"
        sess.run(reader.restore_state(b"\x08\x01\x10\x02"))
        assert sess.run(counters) == [0, 2]
        with pytest.raises(errors.InvalidArgumentError,
                           match="Unexpected negative value when restoring in IdentityReader 'IdentityReaderV2': "
                                 "work_started: -1"):
            sess.run(reader.restore_state(b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"))
        with pytest.raises(errors.InvalidArgumentError,
                           match="Could not parse state for IdentityReader 'IdentityReaderV2': zzz"):
            sess.run(reader.restore_state(b"zzz"))
        with pytest.raises(errors.InvalidArgumentError, match="Inconsistent work started vs. finished"):
            sess.run(reader.restore_state(b'\x08\x03\x10\x01\x18\x05"\x03abc'))


def test_failed_restore_resets_the_reader():
    q = tf.FIFOQueue(10, [tf.string])
    reader = tf.IdentityReader()
    key, _ = reader.read(q)
    counters = [reader.num_records_produced(), reader.num_work_units_completed()]
    with tf.Session() as sess:
        sess.run(q.enqueue_many([["p", "q", "r"]]))
        sess.run([key])
        sess.run([key])
        for bad in (b"zzz", b'\x08\x03\x10\x01\x18\x05"\x03abc'):
            sess.run(reader.restore_state(b'\x08\x02\x10\x02\x18\x02"\x01q'))
            with pytest.raises(errors.InvalidArgumentError):
                sess.run(reader.restore_state(bad))
            assert sess.run(counters) == [0, 0] and sess.run(reader.serialize_state()) == b""


def test_read_file_write_file_and_matching_files(tmp_path):
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_bytes(name.encode())
    matched = tf.matching_files(str(tmp_path / "*.txt"))
    assert (matched.name, matched.shape.as_list()) == ("MatchingFiles:0", [None])
    write = tf.write_file(str(tmp_path / "sub" / "new.txt"), "hey")
    with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
        tf.io.read_file([str(tmp_path / "a.txt")])
    with tf.Session() as sess:
        assert sess.run(matched).tolist() == [str(tmp_path / n).encode() for n in ("a.txt", "b.txt")]
        assert sess.run(tf.matching_files(str(tmp_path / "zz*"))).tolist() == []
        assert sess.run(tf.read_file(str(tmp_path / "b.txt"))) == b"b.txt"
        sess.run(write)
        assert (tmp_path / "sub" / "new.txt").read_bytes() == b"hey"
        with pytest.raises(errors.NotFoundError, match="nope; No such file or directory"):
            sess.run(tf.read_file(str(tmp_path / "nope")))
        with pytest.raises(errors.FailedPreconditionError, match="; Is a directory"):
            sess.run(tf.read_file(str(tmp_path)))


def test_zero_record_bytes_reads_empty_records_without_end(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"abcdef")
    q = tf.FIFOQueue(3, [tf.string])
    keys, values = tf.FixedLengthRecordReader(0).read_up_to(q, 3)
    with tf.Session() as sess:
        sess.run(q.enqueue(str(path)))
        got_keys, got_values = sess.run([keys, values])
    assert got_keys.tolist() == [f"{path}:{i}".encode() for i in range(3)] and got_values.tolist() == [b""] * 3


def test_read_results_and_a_directory_work_unit(tmp_path):
    """A read returns TF's namedtuple; a directory opens as a file and fails at its reads, again and again, as the
    work unit stays in progress (TF 2.21)."""
    q = tf.FIFOQueue(3, [tf.string])
    reader = tf.TextLineReader()
    read = reader.read(q)
    assert type(read).__name__ == "ReaderReadV2" and read.key is read[0] and read.value is read[1]
    assert type(reader.read_up_to(q, 2)).__name__ == "ReaderReadUpToV2"
    with tf.Session() as sess:
        sess.run(q.enqueue_many([[str(tmp_path), str(tmp_path / "missing")]]))
        for _ in range(2):
            with pytest.raises(errors.FailedPreconditionError, match=f"{tmp_path}; Is a directory"):
                sess.run(read)


@pytest.mark.parametrize("kwargs, message", [
    (dict(record_bytes=-1), "record_bytes must be >= 0 not -1"),
    (dict(record_bytes=2, header_bytes=-2), "header_bytes must be >= 0 not -2"),
    (dict(record_bytes=2, footer_bytes=-3), "footer_bytes must be >= 0 not -3"),
    (dict(record_bytes=2, hop_bytes=-1), "hop_bytes must be >= 0 not -1"),
])
def test_fixed_length_reader_negative_sizes_fail_every_run(kwargs, message):
    """TF checks these when it makes the kernel (literals from TF 2.21), so each run naming the reader fails."""
    reader = tf.FixedLengthRecordReader(**kwargs)
    with tf.Session() as sess:
        for _ in range(2):
            with pytest.raises(errors.InvalidArgumentError, match=message) as info:
                sess.run(reader.num_records_produced())
            assert info.value.op.type == "FixedLengthRecordReaderV2"
