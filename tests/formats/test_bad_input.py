"""Property tests: truncated, bit-flipped and random bytes into every reader give only TF's error classes.

A reader either returns exactly what was written or raises an OpError (DataLossError for corruption);
never another exception, a crash, a hang, or an allocation beyond what the file could hold.
"""

import functools
import gzip
import shutil
import struct
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tensorweave import errors
from tensorweave.formats import protos
from tensorweave.formats.bundle import BundleReader, BundleWriter
from tensorweave.formats.checkpoint_reader import load_checkpoint
from tensorweave.formats.crc32c import masked_crc32c
from tensorweave.formats.events import summary_iterator
from tensorweave.formats.table import read_table
from tensorweave.formats.tensor_proto import make_ndarray
from tensorweave.formats.tfrecord import frame_record, tf_record_iterator

from .make_fixtures.cases import REFERENCE

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
RECORDS = [b"", b"abc", bytes(range(200)), b"z" * 1000]
PLAIN = b"".join(frame_record(r) for r in RECORDS)
# a fixed gzip MTIME (gzip.compress writes the current time): with FLG's FEXTRA bit flipped its low bytes
# are read as XLEN, so the time would decide what a flip does
MTIME = 0x6B07D052
COMPRESS = {"": lambda b: b, "GZIP": functools.partial(gzip.compress, mtime=MTIME), "ZLIB": zlib.compress}


def _flip(data: bytes, position: int, bit: int) -> bytes:
    out = bytearray(data)
    out[position % len(out)] ^= 1 << bit
    return bytes(out)


def _read_records(path, kind):
    try:
        return list(tf_record_iterator(path, kind))
    except errors.OpError as e:
        assert isinstance(e, errors.DataLossError), e
        return e


@SETTINGS
@given(position=st.integers(0, len(PLAIN) - 1), bit=st.integers(0, 7))
def test_any_bit_flip_in_a_record_file_is_caught(tmp_path, position, bit):
    path = tmp_path / "r"
    path.write_bytes(_flip(PLAIN, position, bit))
    assert isinstance(_read_records(path, ""), errors.DataLossError)


@SETTINGS
@given(kind=st.sampled_from(["", "GZIP", "ZLIB"]), cut=st.integers(1, len(PLAIN)))
def test_truncated_record_files(tmp_path, kind, cut):
    path = tmp_path / "r"
    data = COMPRESS[kind](PLAIN)[:-cut]
    path.write_bytes(data)
    result = _read_records(path, kind)
    if not isinstance(result, errors.DataLossError):  # a cut in a header or a compressed stream: TF is quiet
        assert result == RECORDS[: len(result)]


@SETTINGS
@given(kind=st.sampled_from(["GZIP", "ZLIB"]), position=st.integers(0, 10_000), bit=st.integers(0, 7))
@example(kind="GZIP", position=3, bit=2)
def test_bit_flips_in_compressed_record_files(tmp_path, kind, position, bit):
    path = tmp_path / "r"
    data = COMPRESS[kind](PLAIN)
    path.write_bytes(_flip(data, position, bit))
    result = _read_records(path, kind)
    if kind == "GZIP" and (position % len(data), bit) == (3, 2):  # FEXTRA set: TF reads no records, and no error (below)
        assert result == []
    else:  # gzip's MTIME, XFL and OS fields carry no CRC: a flip there changes nothing
        assert isinstance(result, errors.DataLossError) or result == RECORDS


_HEADER_CHECK = "inflate() failed with error -3: incorrect header check"
_BAD_FLAGS = "inflate() failed with error -3: unknown header flags set"


# TF 2.21's tf_record_iterator(path, options=GZIP) on this file with one bit of the 10-byte gzip header flipped
# (bytes 4-9, MTIME, XFL and OS, are never checked: all four records). Flipping FLG's FEXTRA bit makes inflate
# read MTIME's low bytes as XLEN (0xD052, longer than the file) and wait for extra-field bytes that never come:
# TF then reads no records and raises nothing, the same as for a file cut inside the gzip header.
# FNAME and FCOMMENT (bits 3 and 4) depend on where the deflate data holds its first NUL, so are left out.
@pytest.mark.parametrize("position, bit, expected", [
    *[(0, b, _HEADER_CHECK) for b in range(8)],
    *[(1, b, _HEADER_CHECK) for b in range(8)],
    *[(2, b, "inflate() failed with error -3: unknown compression method") for b in range(8)],
    (3, 0, 4),  # FTEXT is only a hint
    (3, 1, "inflate() failed with error -3: header crc mismatch"),
    (3, 2, 0),
    (3, 5, _BAD_FLAGS), (3, 6, _BAD_FLAGS), (3, 7, _BAD_FLAGS),
    *[(p, b, 4) for p in range(4, 10) for b in range(8)],
])
def test_gzip_header_bit_flips_as_tf(tmp_path, position, bit, expected):
    path = tmp_path / "r"
    path.write_bytes(_flip(COMPRESS["GZIP"](PLAIN), position, bit))
    if isinstance(expected, int):
        assert list(tf_record_iterator(path, "GZIP")) == RECORDS[:expected]
        return
    with pytest.raises(errors.DataLossError) as info:
        list(tf_record_iterator(path, "GZIP"))
    assert info.value.message == expected


# TF 2.21 on a GZIP file cut inside its 10-byte header, or a ZLIB file inside its 2-byte one: no records and no
# error, like an empty file, as TF's ZlibInputStream ends quietly wherever the compressed input runs out.
@pytest.mark.parametrize("kind, keep", [*[("GZIP", n) for n in range(1, 11)], ("ZLIB", 1), ("ZLIB", 2)])
def test_compressed_file_cut_in_its_header_reads_no_records_as_tf(tmp_path, kind, keep):
    path = tmp_path / "r"
    path.write_bytes(COMPRESS[kind](PLAIN)[:keep])
    assert list(tf_record_iterator(path, kind)) == []


@SETTINGS
@given(data=st.binary(max_size=400), kind=st.sampled_from(["", "GZIP", "ZLIB"]))
def test_random_bytes_as_record_file(tmp_path, data, kind):
    path = tmp_path / "r"
    path.write_bytes(data)
    _read_records(path, kind)


@SETTINGS
@given(length=st.integers(2**20, 2**64 - 1), kind=st.sampled_from(["", "GZIP"]))
def test_huge_length_field_is_data_loss(tmp_path, length, kind):
    header = struct.pack("<Q", length)
    path = tmp_path / "r"
    path.write_bytes(COMPRESS[kind](header + struct.pack("<I", masked_crc32c(header)) + b"x" * 100))
    assert isinstance(_read_records(path, kind), errors.DataLossError)


@SETTINGS
@given(payload=st.binary(max_size=200))
def test_random_event_records(tmp_path, payload):
    path = tmp_path / "events.out.tfevents.0.h"
    path.write_bytes(frame_record(payload))
    try:
        events = list(summary_iterator(path))
    except errors.OpError as e:
        assert isinstance(e, errors.DataLossError)
    else:
        assert len(events) == 1


@pytest.fixture(scope="module")
def bundle_files(tmp_path_factory):
    """A small bundle with numbers, strings and a partitioned tensor: (index bytes, data bytes, values)."""
    directory = tmp_path_factory.mktemp("bundle")
    values = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "s": np.array([b"xy", b"", b"z"], dtype=object),
              "v": np.int64(5)}
    with BundleWriter(directory / "b") as writer:
        writer.add("a", values["a"])
        writer.add_slice("p", [4], "0,2", np.array([1, 2], np.int32))
        writer.add_slice("p", [4], "2,2", np.array([3, 4], np.int32))
        writer.add("s", values["s"])
        writer.add("v", values["v"])
    values["p"] = np.array([1, 2, 3, 4], np.int32)
    return ((directory / "b.index").read_bytes(), (directory / "b.data-00000-of-00001").read_bytes(), values)


def _load_all(tmp_path, index, data, values):
    """Read every tensor; return the error if any, asserting values are exact when there is none."""
    (tmp_path / "b.index").write_bytes(index)
    (tmp_path / "b.data-00000-of-00001").write_bytes(data)
    try:
        reader = load_checkpoint(tmp_path / "b")
        for name, value in values.items():
            got = reader.get_tensor(name)
            np.testing.assert_array_equal(got, value)
        reader.close()
    except errors.OpError as e:
        return e
    return None


@SETTINGS
@given(position=st.integers(0, 10_000), bit=st.integers(0, 7))
def test_bit_flips_in_bundle_index(tmp_path, bundle_files, position, bit):
    index, data, values = bundle_files
    _load_all(tmp_path, _flip(index, position, bit), data, values)


@SETTINGS
@given(position=st.integers(0, 10_000), bit=st.integers(0, 7))
def test_any_bit_flip_in_bundle_data_is_caught(tmp_path, bundle_files, position, bit):
    index, data, values = bundle_files
    error = _load_all(tmp_path, index, _flip(data, position, bit), values)
    assert isinstance(error, errors.DataLossError), error


@SETTINGS
@given(which=st.sampled_from(["index", "data"]), cut=st.integers(1, 400))
def test_truncated_bundles(tmp_path, bundle_files, which, cut):
    index, data, values = bundle_files
    error = _load_all(tmp_path, index[:-cut] if which == "index" else index,
                      data[:-cut] if which == "data" else data, values)
    if which == "index":  # fails to open: TF's reader raises that as a plain OpError (its error_translator)
        assert type(error) is errors.OpError and error.error_code == errors.UNKNOWN, error
    else:
        assert isinstance(error, errors.DataLossError), error


@SETTINGS
@given(data=st.binary(max_size=600))
def test_random_bytes_as_index(tmp_path, data):
    try:
        read_table(data, "x.index")
    except errors.DataLossError:
        pass
    (tmp_path / "b.index").write_bytes(data)
    try:
        BundleReader(tmp_path / "b")
    except errors.OpError:
        pass


@pytest.mark.parametrize("dims,size", [([2**32, 2**32], 0), ([2**62, 4], 0), ([3, 2**61], 24), ([2**40], 8)])
def test_shape_overflow_is_data_loss(tmp_path, dims, size):
    entry = protos.BundleEntryProto(dtype=1, size=size)
    test_forged_entries_never_over_allocate.hypothesis.inner_test(tmp_path, entry, dims)


@SETTINGS
@given(entry=st.builds(protos.BundleEntryProto, dtype=st.integers(0, 30), shard_id=st.integers(-2, 3),
                       offset=st.integers(-(2**40), 2**62), size=st.integers(-(2**40), 2**62)),
       dims=st.lists(st.integers(-5, 2**40), max_size=4))
def test_forged_entries_never_over_allocate(tmp_path, entry, dims):
    """Entries with valid CRCs but absurd fields (as a buggy writer could make) are refused, not allocated."""
    entry.shape.dim.extend(protos.TensorShapeProto.Dim(size=d) for d in dims)
    shutil.copy(REFERENCE / "checkpoint_v2" / "model.ckpt-43.data-00000-of-00001", tmp_path / "f.data-00000-of-00001")
    from tensorweave.formats.table import build_table

    header = protos.BundleHeaderProto(num_shards=1, version=protos.VersionDef(producer=1)).SerializeToString()
    (tmp_path / "f.index").write_bytes(build_table([(b"", header), (b"t", entry.SerializeToString())]))
    try:
        load_checkpoint(tmp_path / "f").get_tensor("t")
    except errors.OpError:
        return
    assert entry.offset >= 0 and entry.offset + entry.size <= 48 and entry.shard_id == 0


@SETTINGS
@given(data=st.binary(max_size=200))
def test_random_tensor_protos(data):
    try:
        proto = protos.TensorProto.FromString(data)
    except Exception as e:  # noqa: BLE001 - protobuf's own DecodeError is the contract here
        assert type(e).__name__ == "DecodeError"
        return
    if np.prod([d.size for d in proto.tensor_shape.dim], dtype=np.float64) > 1e6:
        return  # a splat of a huge shape is a legitimate (large) tensor, as in TF
    try:
        make_ndarray(proto)
    except (TypeError, ValueError):
        pass
