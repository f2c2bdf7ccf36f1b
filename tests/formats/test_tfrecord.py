"""TFRecord framing, compression and corruption handling, checked against files real TF wrote."""

import gzip
import struct
import zlib

import pytest

from tensorweave import errors
from tensorweave.formats import crc32c
from tensorweave.formats.protos import Example
from tensorweave.formats.tfrecord import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    frame_record,
    tf_record_iterator,
)

from .make_fixtures.cases import FIXTURES, RECORDS, example_features

KINDS = ["", "GZIP", "ZLIB"]


def test_crc32c_check_value_and_mask():
    assert crc32c.value(b"123456789") == 0xE3069283
    assert crc32c.unmask(crc32c.mask(0x12345678)) == 0x12345678
    assert crc32c.masked_crc32c(b"abc") == crc32c.mask(crc32c.value(b"abc"))


@pytest.mark.parametrize("kind", ["none", "gzip", "zlib"])
def test_reads_tf_written_files(kind):
    options = TFRecordOptions("" if kind == "none" else kind.upper())
    assert list(tf_record_iterator(FIXTURES / f"tf_records.{kind}.tfrecord", options)) == RECORDS


def test_plain_file_is_byte_identical_to_tf(tmp_path):
    with TFRecordWriter(tmp_path / "r", None) as w:
        for record in RECORDS:
            w.write(record)
    assert (tmp_path / "r").read_bytes() == (FIXTURES / "tf_records.none.tfrecord").read_bytes()
    assert b"".join(frame_record(r) for r in RECORDS) == (tmp_path / "r").read_bytes()


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_compression_is_whole_stream(tmp_path, kind):
    path = tmp_path / "r"
    with TFRecordWriter(path, kind) as w:
        for record in RECORDS:
            w.write(record)
    raw = path.read_bytes()
    plain = gzip.decompress(raw) if kind == "GZIP" else zlib.decompress(raw)
    assert plain == (FIXTURES / "tf_records.none.tfrecord").read_bytes()
    assert list(tf_record_iterator(path, kind)) == RECORDS


@pytest.mark.parametrize("options", [None, "", "GZIP", "ZLIB", TFRecordCompressionType.GZIP,
                                     TFRecordOptions(TFRecordCompressionType.ZLIB),
                                     TFRecordOptions("GZIP", compression_level=9)])
def test_options_forms(tmp_path, options):
    with TFRecordWriter(tmp_path / "r", options) as w:
        w.write(b"x")
        w.write("é")
    assert list(tf_record_iterator(tmp_path / "r", options)) == [b"x", "é".encode()]
    assert TFRecordOptions.get_compression_type_string(options) in KINDS


def test_flush_makes_records_visible(tmp_path):
    for kind in KINDS:
        w = TFRecordWriter(tmp_path / f"r{kind}", kind)
        w.write(b"first")
        w.flush()
        if not kind:
            assert list(tf_record_iterator(tmp_path / f"r{kind}", kind)) == [b"first"]
        w.close()
        w.close()
        assert list(tf_record_iterator(tmp_path / f"r{kind}", kind)) == [b"first"]


def test_examples_written_by_tf_parse():
    records = list(tf_record_iterator(FIXTURES / "tf_examples.tfrecord"))
    for i, record in enumerate(records):
        feature = Example.FromString(record).features.feature
        expected = example_features(i)
        assert list(feature["label"].int64_list.value) == expected["label"]
        assert list(feature["weights"].float_list.value) == expected["weights"]
        assert list(feature["name"].bytes_list.value) == expected["name"]
        assert list(feature["neg"].int64_list.value) == expected["neg"]


def _plain():
    return (FIXTURES / "tf_records.none.tfrecord").read_bytes()


@pytest.mark.parametrize("cut", [1, 8, 11, 12, 13, 19, 100])
def test_truncation_names_file_and_offset(tmp_path, cut):
    data = _plain()
    path = tmp_path / "cut"
    path.write_bytes(data[:-cut])
    with pytest.raises(errors.DataLossError, match=r"cut: truncated record at \d+"):
        list(tf_record_iterator(path))


def test_bad_crc_is_data_loss_with_offset(tmp_path):
    data = bytearray(_plain())
    data[12 + 4 + 12 + 2] ^= 1  # second record's data byte
    (tmp_path / "bad").write_bytes(bytes(data))
    it = tf_record_iterator(tmp_path / "bad")
    assert next(it) == b""
    with pytest.raises(errors.DataLossError, match="corrupted record at 16"):
        next(it)


def test_huge_length_is_data_loss_not_memory_error(tmp_path):
    header = struct.pack("<Q", 1 << 60)
    (tmp_path / "huge").write_bytes(header + struct.pack("<I", crc32c.masked_crc32c(header)) + b"abc")
    with pytest.raises(errors.DataLossError, match="truncated"):
        list(tf_record_iterator(tmp_path / "huge"))
    (tmp_path / "huge.gz").write_bytes(gzip.compress((tmp_path / "huge").read_bytes()))
    with pytest.raises(errors.DataLossError, match="truncated"):
        list(tf_record_iterator(tmp_path / "huge.gz", "GZIP"))


@pytest.mark.parametrize("kind", ["GZIP", "ZLIB"])
def test_bad_compressed_stream_is_data_loss(tmp_path, kind):
    raw = (FIXTURES / f"tf_records.{kind.lower()}.tfrecord").read_bytes()
    (tmp_path / "cut").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(errors.DataLossError, match="cut"):
        list(tf_record_iterator(tmp_path / "cut", kind))
    (tmp_path / "junk").write_bytes(b"not compressed at all")
    with pytest.raises(errors.DataLossError, match="junk"):
        list(tf_record_iterator(tmp_path / "junk", kind))


def test_missing_file_and_directory_are_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError):
        list(tf_record_iterator(tmp_path / "absent"))
    with pytest.raises(errors.NotFoundError):
        TFRecordWriter(tmp_path / "no" / "dir")


def test_bad_compression_name():
    with pytest.raises(ValueError):
        TFRecordOptions("LZMA")
