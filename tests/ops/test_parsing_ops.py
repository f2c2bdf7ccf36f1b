"""Example parsing, SerializeTensor/ParseTensor and DecodeCompressed against values, graph structure and error
messages recorded from real TensorFlow 2.21 (`tf.compat.v1`)."""

import gzip
import zlib

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf
from tensorweave.formats import protos


def _feature(feature, values):
    if isinstance(values[0], float):
        feature.float_list.value.extend(values)
    elif isinstance(values[0], int):
        feature.int64_list.value.extend(values)
    else:
        feature.bytes_list.value.extend(values)


def _example(**features):
    example = protos.Example()
    for key, values in features.items():
        _feature(example.features.feature[key], values)
    return example.SerializeToString()


def _sequence_example(context, feature_lists):
    example = protos.SequenceExample()
    for key, values in context.items():
        _feature(example.context.feature[key], values)
    for key, steps in feature_lists.items():
        feature_list = example.feature_lists.feature_list[key]
        feature_list.SetInParent()
        for values in steps:
            step = feature_list.feature.add()
            if values:
                _feature(step, values)
    return example.SerializeToString()


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _assert_sparse(value, indices, values, dense_shape):
    np.testing.assert_array_equal(value.indices, np.array(indices, np.int64).reshape(-1, len(dense_shape)))
    np.testing.assert_array_equal(value.values, values)
    np.testing.assert_array_equal(value.dense_shape, dense_shape)


def test_parse_example_builds_parse_example_v2_and_parses_every_feature_kind():
    serialized = tf.placeholder(tf.string, [None])
    out = tf.parse_example(serialized, {
        "a": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True, default_value=-1),
        "v": tf.VarLenFeature(tf.string), "sp": tf.io.SparseFeature("ix", "val", tf.float32, 5)},
        example_names=["x", "y"])
    assert out["a"].shape.as_list() == [None, None, 2] and out["a"].name == "ParseExample/ParseExampleV2:9"
    assert out["v"].indices.shape.as_list() == [None, 2] and out["v"].dense_shape.shape.as_list() == [2]
    ops = [(op.type, op.name) for op in tf.get_default_graph().get_operations()]
    assert ("Const", "ParseExample/ParseExampleV2/names") in ops and ("ParseExampleV2", "ParseExample/ParseExampleV2") in ops
    value = _run(out, {serialized: [_example(a=[1, 2, 3, 4], v=[b"x"], ix=[3, 1], val=[1.5, 2.5]),
                                    _example(v=[b"p", b"q"], ix=[0], val=[9.0])]})
    np.testing.assert_array_equal(value["a"], [[[1, 2], [3, 4]], [[-1, -1], [-1, -1]]])
    _assert_sparse(value["v"], [[0, 0], [1, 0], [1, 1]], [b"x", b"p", b"q"], [2, 2])
    _assert_sparse(value["sp"], [[0, 1], [0, 3], [1, 0]], np.float32([2.5, 1.5, 9.0]), [2, 5])
    assert value["sp"].values.dtype == np.float32


def test_parse_example_defaults_and_static_shapes():
    serialized = tf.placeholder(tf.string, [None])
    out = tf.io.parse_example(serialized, {"a": tf.FixedLenFeature([2, 2], tf.int64, default_value=[[1, 2], [3, 4]]),
                                           "b": tf.FixedLenFeature([], tf.string, default_value="zz"),
                                           "f": tf.FixedLenFeature([3], tf.float32, default_value=[0.5] * 3)})
    assert out["a"].shape.as_list() == [None, 2, 2] and out["b"].shape.as_list() == [None]
    value = _run(out, {serialized: [_example(a=[5, 6, 7, 8], f=[1.0, 2.0, 3.0]), _example(b=[b"q"])]})
    np.testing.assert_array_equal(value["a"], [[[5, 6], [7, 8]], [[1, 2], [3, 4]]])
    np.testing.assert_array_equal(value["b"], np.array([b"zz", b"q"], object))
    np.testing.assert_array_equal(value["f"], np.float32([[1, 2, 3], [0.5, 0.5, 0.5]]))
    assert value["f"].dtype == np.float32 and value["a"].dtype == np.int64


@pytest.mark.parametrize("data, message", [
    ([_example(b=[1])], "Name: <unknown>, Feature: a (data type: float) is required but could not be found."),
    ([_example(a=[1])], "Name: <unknown>, Key: a, Index: 0.  Data types don't match. Data type: int64 but expected "
                        "type: float"),
    ([_example(a=[1.0])], "Name: <unknown>, Key: a, Index: 0.  Number of float values != expected.  Values size: 1 "
                          "but output shape: [2]"),
    ([b"garbage"], "Could not parse example input, value: 'garbage'"),
])
def test_parse_example_errors(data, message):
    serialized = tf.placeholder(tf.string, [None])
    out = tf.parse_example(serialized, {"a": tf.FixedLenFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(out, {serialized: data})
    assert runtime_message(info.value).startswith(message) and "ParseExample/ParseExampleV2" in str(info.value)


def test_parse_example_sequence_feature_stride_error_and_build_errors():
    serialized = tf.placeholder(tf.string, [None])
    out = tf.parse_example(serialized, {"a": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True)},
                           example_names=["x", "y"])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Name: x, Key: a, Index: 0.  Number of int64 values is "
                                                             r"not a multiple of stride length. Saw 3 values but "
                                                             r"output shape is: \[\?,2\]"):
        _run(out, {serialized: [_example(a=[1, 2, 3]), _example(a=[1, 2])]})
    with pytest.raises(ValueError, match="Unsupported: FixedLenSequenceFeature requires allow_missing to be True."):
        tf.parse_example(serialized, {"a": tf.FixedLenSequenceFeature([2], tf.int64)})
    with pytest.raises(ValueError, match=r"First dimension of shape for feature a unknown. Consider using "
                                         r"FixedLenSequenceFeature."):
        tf.parse_example(serialized, {"a": tf.FixedLenFeature([None, 2], tf.int64)})
    with pytest.raises(ValueError, match=r"Argument `features` cannot be None or falsy. Got \{\}"):
        tf.parse_example(serialized, {})
    with pytest.raises(ValueError, match="Input serialized must be a scalar"):
        tf.parse_single_example(serialized, {"a": tf.FixedLenFeature([2], tf.int64)})


def test_parse_single_example():
    serialized = tf.placeholder(tf.string, [])
    out = tf.parse_single_example(serialized, {"a": tf.FixedLenFeature([2], tf.float32),
                                               "v": tf.VarLenFeature(tf.int64)}, name="psx")
    assert out["a"].name == "psx/psx/psx:3" and out["a"].shape.as_list() == [2]
    value = _run(out, {serialized: _example(a=[1.0, 2.0], v=[4, 5, 6])})
    np.testing.assert_array_equal(value["a"], np.float32([1, 2]))
    _assert_sparse(value["v"], [[0], [1], [2]], [4, 5, 6], [3])
    for data, message in [(_example(b=[1]), "Feature: a (data type: float) is required but could not be found."),
                          (_example(a=[1, 2, 3]), "Key: a.  Data types don't match. Data type: int64 but expected "
                                                  "type: float")]:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(out, {serialized: data})
        assert runtime_message(info.value).startswith(message)


CONTEXT = {"c": tf.FixedLenFeature([], tf.int64, default_value=7), "cv": tf.VarLenFeature(tf.float32)}
SEQUENCE = {"a": tf.FixedLenSequenceFeature([2], tf.float32),
            "b": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True), "v": tf.VarLenFeature(tf.int64)}
SEQ1 = _sequence_example({"c": [3]}, {"a": [[1.0, 2.0], [3.0, 4.0]], "v": [[1, 2, 3], []]})
SEQ2 = _sequence_example({"cv": [5.5]}, {"a": [[9.0, 9.0]], "b": [[4]] * 3, "v": [[8]]})


def test_parse_sequence_example():
    serialized = tf.placeholder(tf.string, [None])
    context, lists, lengths = tf.io.parse_sequence_example(serialized, CONTEXT, SEQUENCE)
    assert lists["a"].shape.as_list() == [None, None, 2] and lengths["a"].shape.as_list() == [None]
    assert lists["a"].name == "ParseSequenceExample/ParseSequenceExample/ParseSequenceExampleV2:7"
    context, lists, lengths = _run((context, lists, lengths), {serialized: [SEQ1, SEQ2]})
    np.testing.assert_array_equal(context["c"], [3, 7])
    _assert_sparse(context["cv"], [[1, 0]], np.float32([5.5]), [2, 1])
    _assert_sparse(lists["v"], [[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 0, 0]], [1, 2, 3, 8], [2, 2, 3])
    np.testing.assert_array_equal(lists["a"], np.float32([[[1, 2], [3, 4]], [[9, 9], [0, 0]]]))
    np.testing.assert_array_equal(lists["b"], [[0, 0, 0], [4, 4, 4]])
    np.testing.assert_array_equal(lengths["a"], [2, 1])
    np.testing.assert_array_equal(lengths["b"], [0, 3])


def test_parse_single_sequence_example():
    serialized = tf.placeholder(tf.string, [])
    context, lists = tf.parse_single_sequence_example(serialized, CONTEXT, SEQUENCE)
    assert context["c"].shape.as_list() == [] and lists["a"].shape.as_list() == [None, 2]
    assert context["cv"].indices.shape.as_list() == [None, 1] and lists["v"].indices.shape.as_list() == [None, 2]
    assert lists["a"].name == "ParseSingleSequenceExample/ParseSequenceExample/ParseSequenceExampleV2:7"
    context, lists = _run((context, lists), {serialized: SEQ1})
    assert context["c"] == 3
    _assert_sparse(context["cv"], np.zeros((0, 1)), np.float32([]), [0])
    _assert_sparse(lists["v"], [[0, 0], [0, 1], [0, 2]], [1, 2, 3], [2, 3])
    np.testing.assert_array_equal(lists["a"], np.float32([[1, 2], [3, 4]]))
    assert lists["b"].shape == (0,) and lists["b"].dtype == np.int64


@pytest.mark.parametrize("data, message", [
    (_sequence_example({}, {"b": []}), "Name: <unknown>, Feature list 'a' is required but could not be found.  Did you "
                                       "mean to include it in feature_list_dense_missing_assumed_empty or "
                                       "feature_list_dense_defaults?"),
    (_sequence_example({}, {"a": [[1.0]]}), "Feature list 'a' has an unexpected number of values.  Total values size: "
                                            "1 is not consistent with output shape: [?,2]"),
    (_sequence_example({}, {"a": [[1, 2]]}), "Name: <unknown>, Feature list: a, Index: 0.  Data types don't match. "
                                             "Expected type: float"),
    (_sequence_example({"c": [1.0]}, {"a": []}), "Name: <unknown>, Context feature: c.  Data types don't match. "
                                                 "Expected type: int64"),
])
def test_parse_sequence_example_errors(data, message):
    serialized = tf.placeholder(tf.string, [None])
    scalar = tf.placeholder(tf.string, [])
    batch = tf.io.parse_sequence_example(serialized, CONTEXT, SEQUENCE)
    single = tf.io.parse_single_sequence_example(scalar, CONTEXT, SEQUENCE)
    for fetches, feed in [(batch, {serialized: [data]}), (single, {scalar: data})]:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            _run(fetches, feed)
        assert runtime_message(info.value).startswith(message)


def test_serialize_and_parse_tensor():
    serialized = tf.io.serialize_tensor(tf.constant([[1.5, 2]]))
    assert _run(serialized) == b'\x08\x01\x12\x08\x12\x02\x08\x01\x12\x02\x08\x02"\x08\x00\x00\xc0?\x00\x00\x00@'
    assert _run(tf.serialize_tensor(tf.constant(["ab", "c"]))) == b"\x08\x07\x12\x04\x12\x02\x08\x02B\x02abB\x01c"
    parsed = tf.io.parse_tensor(serialized, tf.float32)
    assert parsed.shape.ndims is None
    np.testing.assert_array_equal(_run(parsed), np.float32([[1.5, 2]]))
    x = tf.placeholder(tf.string, [])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Type mismatch between parsed tensor \(float\) and "
                                                             r"dtype \(int32\)"):
        _run(tf.parse_tensor(x, tf.int32), {x: _run(serialized)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse `serialized` as TensorProto, base64: "
                                                             "anVuaw=="):
        _run(tf.io.parse_tensor(x, tf.float32), {x: b"junk"})


def test_decode_compressed():
    data = tf.constant([zlib.compress(b"hello"), zlib.compress(b"")])
    np.testing.assert_array_equal(_run(tf.io.decode_compressed(data, "ZLIB")), np.array([b"hello", b""], object))
    assert _run(tf.decode_compressed(tf.constant(gzip.compress(b"abc")), "GZIP")) == b"abc"
    assert _run(tf.io.decode_compressed(tf.constant(b"plain"))) == b"plain"
    with pytest.raises(tf.errors.DataLossError, match="inflate\\(\\) failed with error -3: incorrect header check"):
        _run(tf.io.decode_compressed(tf.constant(b"notcompressed"), "ZLIB"))


def test_parse_ragged_features():
    """tf.io.RaggedFeature: one row per example (TF's default int32 row splits), the values alone in a single
    parse, `value_key` naming another feature; values and the type error recorded from TF 2.21."""
    serialized = [_example(a=[1, 2, 3], b=[1.5], w=[b"x"]), _example(a=[4], b=[2.5, 3.5], w=[b"y", b"z"]),
                  _example(b=[0.5])]
    features = {"a": tf.io.RaggedFeature(tf.int64), "b": tf.io.RaggedFeature(tf.float32, row_splits_dtype=tf.int64),
                "c": tf.io.RaggedFeature(tf.string), "w2": tf.io.RaggedFeature(tf.string, value_key="w"),
                "d": tf.io.FixedLenFeature([], tf.float32, default_value=-1.0)}
    out = tf.io.parse_example(serialized, features)
    one = tf.io.parse_single_example(serialized[1], {"v": tf.io.RaggedFeature(tf.float32, value_key="b")})
    assert str(tf.io.RaggedFeature(tf.int64)) == ("RaggedFeature(dtype=tf.int64, value_key=None, partitions=(), "
                                                  "row_splits_dtype=tf.int32, validate=False)")
    assert out["a"].shape.as_list() == [3, None] and out["a"].row_splits.dtype == tf.int32
    assert out["b"].row_splits.dtype == tf.int64 and one["v"].shape.as_list() == [None]
    got, single = _run([out, one])
    assert {k: v.to_list() for k, v in got.items() if k != "d"} == {
        "a": [[1, 2, 3], [4], []], "b": [[1.5], [2.5, 3.5], [0.5]], "c": [[], [], []], "w2": [[b"x"], [b"y", b"z"], []]}
    np.testing.assert_array_equal(got["d"], [-1.0, -1.0, -1.0])
    np.testing.assert_array_equal(single["v"], [2.5, 3.5])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Name: <unknown>, Key: a, Index: 0.  Data types "
                                                             r"don't match. Expected type: float, Actual type: int64"):
        _run(tf.io.parse_example(serialized, {"a": tf.io.RaggedFeature(tf.float32)}))


def test_parse_ragged_feature_partitions():
    """RowLengths and UniformRowLength partitions, innermost first, over the whole batch's values (as TF's)."""
    serialized = [_example(v=[1, 2, 3, 4], l=[2, 0, 1, 1], m=[1, 3]), _example(v=[7, 8], l=[1, 1], m=[2])]
    F = tf.io.RaggedFeature
    features = {"a": F(tf.int64, value_key="v", partitions=[F.RowLengths("l")]),
                "b": F(tf.int64, value_key="v", partitions=[F.UniformRowLength(2)]),
                "c": F(tf.int64, value_key="v", partitions=[F.RowLengths("m"), F.UniformRowLength(1)]),
                "d": F(tf.int64, value_key="v", partitions=[F.UniformRowLength(1), F.RowLengths("l")])}
    batch, one = tf.io.parse_example(serialized, features), tf.io.parse_single_example(serialized[0], features)
    assert [batch[k].shape.as_list() for k in "abcd"] == [[2, None, None], [2, None, 2], [2, None, None, 1],
                                                          [2, None, 1, None]]
    assert one["b"].shape.as_list() == [None, 2] and one["c"].shape.as_list() == [None, None, 1]
    got, single = _run([batch, one])
    assert {k: v.to_list() for k, v in got.items()} == {
        "a": [[[1, 2], [], [3], [4]], [[7], [8]]], "b": [[[1, 2], [3, 4]], [[7, 8]]],
        "c": [[[[1]], [[2], [3], [4]]], [[[7], [8]]]], "d": [[[[1, 2]], [[]], [[3]], [[4]]], [[[7]], [[8]]]]}
    assert single["a"].to_list() == [[1, 2], [], [3], [4]] and single["b"].tolist() == [[1, 2], [3, 4]]
    assert single["d"].to_list() == [[[1, 2]], [[]], [[3]], [[4]]]
    with pytest.raises(NotImplementedError, match="RowSplits is not supported"):
        tf.io.parse_example(serialized, {"a": F(tf.int64, value_key="v", partitions=[F.RowSplits("l")])})


def test_dense_feature_list_value_counts_as_tf():
    """TF sizes a dense feature list by the most values one example has, then checks each step in order."""
    examples = [_sequence_example({}, {"emb": [[1.0, 2.0], [3.0, 4.0]]}),
                _sequence_example({}, {"emb": [[5.0, 6.0], [7.0]]}), _sequence_example({}, {})]

    def parse(serialized, shape, **kwargs):
        features = {"emb": tf.FixedLenSequenceFeature(shape, tf.float32, allow_missing=True)}
        if isinstance(serialized, list):
            return tf.io.parse_sequence_example(serialized, sequence_features=features, **kwargs)
        return tf.parse_single_sequence_example(serialized, sequence_features=features, **kwargs)

    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Feature list 'emb' has an unexpected number of "
                                                             r"values.  Total values size: 4 is not consistent with "
                                                             r"output shape: \[\?,3\]"):
        _run(parse(examples, [3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Name: <unknown>, Key: emb, Index: 0.  Number of "
                                                             r"values != expected.  values size: 2 but output "
                                                             r"shape: \[3\]"):
        _run(parse(examples[1], [3]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Name: B, Key: emb, Index: 1.  Number of values != "
                                                             r"expected.  values size: 1 but output shape: \[2\]"):
        _run(parse(examples, [2], example_names=["A", "B", "C"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Name: <unknown>, Key: emb, Index: 0.  Number of "
                                                             r"values != expected.  values size: 2 but output "
                                                             r"shape: \[\]"):
        _run(parse(examples, []))
    _, values, lengths = _run(parse(examples[:1], [2]))
    np.testing.assert_array_equal(values["emb"], np.float32([[[1, 2], [3, 4]]]))
    assert lengths["emb"].tolist() == [2]


def test_dense_shapes_with_unknown_inner_dimensions_fail_at_build():
    with pytest.raises(ValueError, match=r"dense_shapes\[0\] has unknown rank or unknown inner dimensions: \[\?,\?\]"):
        tf.parse_example([_example(s=[1])], {"s": tf.FixedLenSequenceFeature([None], tf.int64, allow_missing=True)})


def test_parse_tensor_messages():
    x = tf.placeholder(tf.string, [])
    parsed = tf.io.parse_tensor(x, tf.float32)
    bad_content = tf.make_tensor_proto(np.zeros([2], np.float32))
    bad_content.tensor_content = b"abc"
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse `serialized` as TensorProto, base64: "
                                                             "//79"):
        _run(parsed, {x: b"\xff\xfe\xfd"})
    for data in (b"", bad_content.SerializeToString()):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Cannot parse tensor from proto: "):
            _run(parsed, {x: data})


def test_sparse_type_mismatch_and_example_name_checks():
    examples = [_example(a=[1.5]), _example(a=[1, 2])]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Key: a.  Data types don't match. Expected type: int64, "
                                                             "Actual type: float"):
        _run(tf.parse_single_example(examples[0], {"a": tf.VarLenFeature(tf.int64)}))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Expected names have the same shape as serialized: "
                                                             r"name.shape=\[3\], serialized.shape=\[2\]"):
        _run(tf.parse_example(examples, {"a": tf.VarLenFeature(tf.float32)}, example_names=["p", "q", "r"]))
    with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
        tf.parse_example(examples, {"a": tf.VarLenFeature(tf.float32)}, example_names=[["p", "q"]])
    sequence = _sequence_example({"c": [1.0]}, {})
    with pytest.raises(tf.errors.InvalidArgumentError, match="example_names must be empty or have the correct number "
                                                             "of elements"):
        _run(tf.io.parse_sequence_example([sequence, sequence], context_features={"c": tf.VarLenFeature(tf.float32)},
                                          example_names=["z"]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Only ZLIB, ZSTD, GZIP or NONE are supported "
                                                             "compressions"):
        _run(tf.io.decode_compressed(["x"], "BZIP"))


def test_empty_batch_of_sequence_features():
    parsed = tf.parse_example(tf.constant([], tf.string),
                              {"a": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True),
                               "c": tf.FixedLenFeature([2], tf.float32)})
    values = _run(parsed)
    assert values["a"].shape == (0, 0) and values["a"].dtype == np.int64 and values["c"].shape == (0, 2)
    _, lists, lengths = _run(tf.io.parse_sequence_example(
        tf.constant([], tf.string), sequence_features={"t": tf.FixedLenSequenceFeature([2], tf.int64,
                                                                                      allow_missing=True)}))
    assert lists["t"].shape == (0, 0, 2) and lengths["t"].shape == (0,)


@pytest.mark.parametrize("spec, data, batch, message", [
    ({"s": tf.FixedLenFeature([], tf.string)}, [b"a", b"b"], True,
     "Name: <unknown>, Key: s, Index: 1.  Can't parse serialized Example."),
    ({"s": tf.FixedLenFeature([2], tf.string)}, [b"a"], True,
     "Name: <unknown>, Key: s, Index: 1.  Number of bytes values != expected.  Values size: 1 but output shape: [2]"),
    ({"s": tf.FixedLenFeature([], tf.string)}, [b"a", b"b"], False,
     "Key: s.  Can't parse serialized Example: Parsing bytes_list failed."),
    ({"s": tf.FixedLenFeature([2], tf.string)}, [b"a"], False,
     "Key: s.  Can't parse serialized Example: Some bytes_list slice was not parsed."),
    ({"i": tf.FixedLenFeature([], tf.int64)}, [1, 2], False,
     "Key: i.  Can't parse serialized Example: Some int64_list slice was not parsed."),
    ({"f": tf.FixedLenFeature([2], tf.float32)}, [1.0, 2.0, 3.0], False,
     "Key: f.  Can't parse serialized Example: Some float_list slice was not parsed."),
])
def test_dense_value_count_messages_as_tf(spec, data, batch, message):
    """TF 2.21's literals: its batch parser counts values (a too long string list fails to parse), its
    single-example parser says the list was not parsed."""
    key = next(iter(spec))
    example = _example(**{key: data})
    if batch:
        out = tf.parse_example([_example(**{key: data[:1] * spec[key].shape[0] if spec[key].shape else data[:1]}),
                                example], spec)
    else:
        out = tf.parse_single_example(example, spec)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(out)
    assert runtime_message(info.value).split("\n")[0] == message


def test_batch_reports_first_failing_example_and_empty_feature_is_missing():
    """TF parses example by example: example 1's too long string list fails before example 2's missing
    feature; an empty Feature is missing (its default used)."""
    out = tf.parse_example([_example(c=[b"x"]), _example(c=[b"y", b"z"]), _example(a=[3])],
                           {"c": tf.FixedLenFeature([], tf.string)})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"(?m)^Name: <unknown>, Key: c, Index: 1.  Can't parse serialized Example\.\n"):
        _run(out)
    example = protos.Example()
    example.features.feature["e"].SetInParent()
    out = tf.parse_single_example(example.SerializeToString(), {"e": tf.FixedLenFeature([], tf.float32, 2.5),
                                                                "r": tf.FixedLenFeature([], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"(?m)^Feature: r \(data type: float\) is required but could not be found\.\n"):
        _run(out)
    assert _run(tf.parse_single_example(example.SerializeToString(),
                                        {"e": tf.FixedLenFeature([], tf.float32, 2.5)}))["e"] == 2.5


def test_sparse_feature_merge_as_tf():
    """TF's sparse_merge: the ids' indices (not the values') lead, so unequal counts reach SparseReorder's
    SparseTensor check; a size that is not an int fails at build."""
    spec = {"sp": tf.SparseFeature(index_key="ix", value_key="val", dtype=tf.float32, size=4)}
    out = tf.parse_example([_example(ix=[0, 1], val=[1.0])], spec)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"(?m)^Number of elements in indices \(2\) and values \(1\) do not match\n"):
        _run(out)
    with pytest.raises(TypeError, match="vocab_size has to be a Tensor or Python int. Found <class 'NoneType'>"):
        tf.parse_example([_example(ix=[0], val=[1.0])],
                         {"sp": tf.SparseFeature(index_key="ix", value_key="val", dtype=tf.float32, size=None)})
    with pytest.raises(ValueError, match="sp_ids and vocab_size have to have equal lengths."):
        tf.sparse.merge([tf.SparseTensor([[0, 0]], tf.constant([1], tf.int64), [1, 1])], tf.SparseTensor(
            [[0, 0]], [1.0], [1, 1]), [2, 3])


@pytest.mark.parametrize("count, shape, default, message", [
    (1, [2], [7, 8], "Unexpected number of elements in example ex"),
    (1, [2], None, "Inconsistent max number of elements for feature c: expected 2, but found 1"),
    (3, [2], [7, 8], "Inconsistent max number of elements for feature c: expected 2, but found 3"),
    (2, [], 7, "Inconsistent max number of elements for feature c: expected 1, but found 2"),
])
def test_sequence_context_value_count_messages_as_tf(count, shape, default, message):
    """TF 2.21's SequenceExample parser: too few values with a default fail naming the example."""
    serialized = _sequence_example({"c": [1] * count}, {})
    context, _ = tf.parse_single_sequence_example(
        serialized, {"c": tf.FixedLenFeature(shape, tf.int64, default_value=default)}, None, example_name="ex")
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(context)
    assert runtime_message(info.value).split("\n")[0] == message


_REQUIRED_A = "Feature: a (data type: int64) is required but could not be found."


@pytest.mark.parametrize("contexts, shape, message", [
    ([{}], [], "Inconsistent max number of elements for feature a: expected 1, but found 0"),
    ([{"a": [1]}, {}], [], _REQUIRED_A),
    ([{}, {"a": [1]}], [2], "Inconsistent max number of elements for feature a: expected 2, but found 1"),
    ([{"a": [1, 2]}, {}], [], "Inconsistent max number of elements for feature a: expected 1, but found 2"),
    ([{"a": [1, 2]}, {}], [2], _REQUIRED_A),
])
def test_sequence_context_missing_required_as_tf(contexts, shape, message):
    """TF 2.21 sizes a required context feature by the most values an example has before it looks for the
    missing ones, and its 'required' message names no example, batch or single."""
    serialized = [_sequence_example(context, {"t": [[1]]}) for context in contexts]
    context, _, _ = tf.io.parse_sequence_example(serialized, {"a": tf.FixedLenFeature(shape, tf.int64)})
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _run(context)
    assert runtime_message(info.value).split("\n")[0] == message
