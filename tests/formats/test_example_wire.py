"""The vectorized Example reader (formats/example_wire.py) against protobuf's parse: every list kind, packed
and unpacked encodings, long keys and lists, and the records it leaves to protobuf (returning None)."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave.formats import example_wire, protos

_KINDS = {None: 0, "bytes_list": 1, "float_list": 2, "int64_list": 3}
_FIELDS = {1: "bytes_list", 2: "float_list", 3: "int64_list"}


def _random_examples(rng: np.random.Generator, n: int) -> list[bytes]:
    keys = ["a", "bb", "k" * 200, "feature_name_long_1", "feature_name_long_2"]
    records = []
    for _ in range(n):
        example = protos.Example()
        for key in keys:
            if rng.random() < 0.2:
                continue
            feature = example.features.feature[key]
            kind, size = int(rng.integers(0, 4)), int(rng.choice([0, 1, 3, 40]))
            if kind == 1:
                feature.bytes_list.value.extend(bytes(rng.integers(0, 256, int(rng.integers(0, 200)), np.uint8))
                                                for _ in range(size))
            elif kind == 2:
                feature.float_list.value.extend(rng.standard_normal(size).tolist())
            elif kind == 3:
                feature.int64_list.value.extend(rng.integers(-2**63, 2**63 - 1, size).tolist())
        records.append(example.SerializeToString())
    return records


def _expected(records: list[bytes], key: str, kind: int) -> tuple[list, list, list]:
    kinds, values, counts = [], [], []
    for record in records:
        feature = protos.Example.FromString(record).features.feature.get(key)
        kinds.append(-1 if feature is None else _KINDS[feature.WhichOneof("kind")])
        if kinds[-1] == kind:
            listed = list(getattr(feature, _FIELDS[kind]).value)
            values += listed
            counts.append(len(listed))
    return kinds, values, counts


@pytest.mark.parametrize("kind", [1, 2, 3])
def test_reads_what_protobuf_reads(kind: int) -> None:
    records = _random_examples(np.random.default_rng(kind), 200)
    keys = ["a", "bb", "k" * 200, "feature_name_long_1", "feature_name_long_2", "absent"]
    columns = example_wire.read_features(records, keys, [kind] * len(keys))
    for key, column in zip(keys, columns):
        kinds, values, counts = _expected(records, key, kind)
        assert column.kind.tolist() == kinds and column.counts.tolist() == counts
        if kind == 2:
            np.testing.assert_array_equal(column.values, np.array(values, np.float32))
        else:
            assert column.values.tolist() == values


def _record(key: bytes, feature: bytes) -> bytes:
    entry = b"\x0a" + bytes([len(key)]) + key + b"\x12" + bytes([len(feature)]) + feature
    features = b"\x0a" + bytes([len(entry)]) + entry
    return b"\x0a" + bytes([len(features)]) + features


def test_unpacked_and_mixed_encodings() -> None:
    floats = b"\x0d" + struct.pack("<f", 1.5) + b"\x0a\x08" + struct.pack("<ff", 2.5, 3.5)
    ints = b"\x08\x05" + b"\x0a\x03\x01\xac\x02" + b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
    records = [_record(b"x", b"\x12" + bytes([len(floats)]) + floats),
               _record(b"x", b"\x1a" + bytes([len(ints)]) + ints), _record(b"x", b"")]
    column = example_wire.read_features(records, ["x"], [example_wire.FLOAT_LIST])[0]
    assert (column.kind.tolist(), column.values.tolist(), column.counts.tolist()) == ([2, 3, 0], [1.5, 2.5, 3.5], [3])
    column = example_wire.read_features(records, ["x"], [example_wire.INT64_LIST])[0]
    assert (column.values.tolist(), column.counts.tolist()) == ([5, 1, 300, -1], [4])
    assert column.values.tolist() == list(protos.Example.FromString(records[1]).features.feature["x"].int64_list.value)


@pytest.mark.parametrize("record", [
    b"\x0a\x05\x0a",  # truncated
    _record(b"x", b"\x12\x00") * 2,  # two records concatenated: the same key twice, protobuf's merge
    _record(b"x", b"\x12\x00") + b"\x10\x01",  # an unknown field
    b"\x0a\x05\x0a\x03\x0a\x01x",  # a map entry without a value
    _record(b"x", b"\x12\x03\x0a\x01\x00"),  # a packed float run of one byte
])
def test_leaves_unusual_records_to_protobuf(record: bytes) -> None:
    assert example_wire.read_features([record], ["x"], [example_wire.FLOAT_LIST]) is None


def test_parse_example_takes_protobufs_parse_for_unusual_records() -> None:
    first = protos.Example()
    first.features.feature["x"].float_list.value.append(1.0)
    second = protos.Example()
    second.features.feature["x"].float_list.value.append(2.0)
    merged = first.SerializeToString() + second.SerializeToString()  # protobuf: the last value wins
    with tf.Graph().as_default():
        parsed = tf.parse_example([merged, first.SerializeToString()], {"x": tf.FixedLenFeature([], tf.float32)})
        bad = tf.parse_example([b"\x0a\x05\x0a"], {"x": tf.FixedLenFeature([], tf.float32)})
        with tf.Session() as sess:
            assert sess.run(parsed)["x"].tolist() == [2.0, 1.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example input"):
                sess.run(bad)


def test_a_large_batch_parses_as_small_ones() -> None:
    # From _WIRE_MIN_WORK (records x (keys + 2)) on, parse_example reads the wire format; smaller batches take protobuf's
    # parse: both give the same features
    rng = np.random.default_rng(3)
    records = []
    for i in range(300):
        example = protos.Example()
        if rng.random() < 0.8:
            example.features.feature["x"].float_list.value.extend(rng.standard_normal(3).tolist())
        example.features.feature["s"].int64_list.value.extend(range(int(rng.integers(0, 4))))
        example.features.feature["b"].bytes_list.value.append(b"r%d\x00" % i)
        records.append(example.SerializeToString())
    spec = {"x": tf.FixedLenFeature([3], tf.float32, default_value=[0.5, 0.5, 0.5]),
            "s": tf.VarLenFeature(tf.int64), "b": tf.FixedLenFeature([], tf.string)}
    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, [None])
        parsed = tf.parse_example(serialized, spec)
        with tf.Session() as sess:
            whole = sess.run(parsed, {serialized: records})
            parts = [sess.run(parsed, {serialized: records[i:i + 50]}) for i in range(0, 300, 50)]
    np.testing.assert_array_equal(whole["x"], np.concatenate([p["x"] for p in parts]))
    assert whole["b"].tolist() == [b for p in parts for b in p["b"].tolist()]
    assert whole["s"].values.tolist() == [v for p in parts for v in p["s"].values.tolist()]
    assert whole["s"].dense_shape.tolist() == [300, 3]


def _columns_equal_protobufs(records: list[bytes], keys: list[str], kinds: list[int]) -> None:
    columns = example_wire.read_features(records, keys, kinds)
    assert columns is not None
    for key, kind, column in zip(keys, kinds, columns):
        expected_kinds, values, counts = _expected(records, key, kind)
        assert column.kind.tolist() == expected_kinds and column.counts.tolist() == counts
        assert column.values.tolist() == (np.array(values, np.float32).tolist() if kind == 2 else values)


def test_many_requested_keys_few_present() -> None:
    # more (key, record) slots than the batch has bytes for: the entries are sorted instead of tabled
    records = _random_examples(np.random.default_rng(7), 50)
    keys = ["a", "bb", "feature_name_long_1"] + [f"absent_{i}" for i in range(300)]
    _columns_equal_protobufs(records, keys, [3, 2, 1] + [2] * 300)


def test_empty_records_features_and_lists() -> None:
    def example(features: dict) -> bytes:
        message = protos.Example()
        for key, (kind, values) in features.items():
            feature = message.features.feature[key]
            if kind is not None:
                getattr(feature, kind).SetInParent()
                getattr(feature, kind).value.extend(values)
        return message.SerializeToString()

    records = [b"", example({}), example({"x": (None, [])}), example({"x": ("float_list", [])}),
               example({"x": ("float_list", [1.5, 2.5]), "y": ("int64_list", [])}),
               example({"y": ("int64_list", [2**40, -3])}), b"\x0a\x00"]
    _columns_equal_protobufs(records, ["x", "y"], [2, 3])


def test_keys_alike_long_and_with_zero_bytes() -> None:
    # keys that prefix one another, a key of 128 bytes (a two-byte length: the general layout), NUL bytes
    keys = ["a", "ab", "abc", "k" * 128, "n\0", "n\0\0", "0123456789abcdef", "0123456789abcdeg"]
    records = []
    for i in range(40):
        example = protos.Example()
        for j, key in enumerate(keys):
            if (i + j) % 3:
                example.features.feature[key].float_list.value.extend([i + j / 10] * (j % 3))
        records.append(example.SerializeToString())
    _columns_equal_protobufs(records, keys, [2] * len(keys))


@pytest.mark.parametrize("keys", [["x"], ["x"] + [f"absent_{i}" for i in range(300)]])
def test_a_key_twice_in_a_record_is_left_to_protobuf(keys: list[str]) -> None:
    entry = b"\x0a\x01x\x12\x00"
    features = b"\x0a" + bytes([len(entry)]) + entry
    record = b"\x0a" + bytes([2 * len(features)]) + features * 2
    assert example_wire.read_features([record] * 3, keys, [2] * len(keys)) is None


def _float_example(i: int, bad: str | None = None, missing: str | None = None) -> bytes:
    example = protos.Example()
    for j in range(20):
        key = f"f{j}"
        if key == bad:
            example.features.feature[key].int64_list.value.append(i)
        elif key != missing:
            example.features.feature[key].float_list.value.append(i + j / 100)
    return example.SerializeToString()


@pytest.mark.parametrize("spec, records, message", [
    ({f"f{j}": tf.FixedLenFeature([], tf.float32) for j in range(20)},
     [_float_example(i, bad="f3" if i == 7 else None) for i in range(40)],
     "Name: <unknown>, Key: f3, Index: 7.  Data types don't match. Data type: int64 but expected type: float"),
    ({f"f{j}": tf.FixedLenFeature([], tf.float32) for j in range(20)},
     [_float_example(i, missing="f5" if i == 9 else None) for i in range(40)],
     "Name: <unknown>, Feature: f5 (data type: float) is required but could not be found."),
    ({"f5": tf.FixedLenFeature([], tf.float32, default_value=-1.0), "f3": tf.VarLenFeature(tf.float32),
      "f4": tf.FixedLenFeature([2], tf.float32)}, [_float_example(i) for i in range(100)],
     "Name: <unknown>, Key: f4, Index: 0.  Number of float values != expected.  Values size: 1 but output "
     "shape: [2]"),
])
def test_wire_read_batches_raise_tfs_errors(spec: dict, records: list[bytes], message: str) -> None:
    # messages recorded from TF 2.21's tf.compat.v1.parse_example on the same batches (of 40 records; the wire
    # reader's first error is protobuf's)
    assert example_wire.read_features(records, sorted(spec), [2] * len(spec)) is not None
    with tf.Graph().as_default():
        parsed = tf.parse_example(records, spec)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as error:
            sess.run(parsed)
    assert runtime_message(error.value).split("\n")[0] == message


def test_wire_read_batch_with_defaults_and_missing_features() -> None:
    records = [_float_example(i, missing="f5" if i % 4 == 0 else None) for i in range(100)]
    spec = {"f5": tf.FixedLenFeature([], tf.float32, default_value=-1.0), "f3": tf.VarLenFeature(tf.float32),
            "f7": tf.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}
    with tf.Graph().as_default():
        parsed = tf.parse_example(records, spec)
        with tf.Session() as sess:
            out = sess.run(parsed)
    np.testing.assert_array_equal(out["f5"], np.array([-1.0 if i % 4 == 0 else i + 0.05 for i in range(100)],
                                                      np.float32))
    np.testing.assert_array_equal(out["f3"].values, np.arange(100, dtype=np.float32) + np.float32(0.03))
    assert out["f3"].dense_shape.tolist() == [100, 1]
    np.testing.assert_array_equal(out["f7"], (np.arange(100, dtype=np.float32) + np.float32(0.07))[:, None])
