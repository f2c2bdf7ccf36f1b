"""CsvDataset and make_csv_dataset: TF's CSV parsing rules, messages, column and type inference (literals
recorded from TF 2.21)."""

import collections
import gzip

import numpy as np
import pytest
from op_testing import dataset_elements, runtime_message

import tensorweave.compat.v1 as tf

_STR_INT_FLOAT = [tf.string, tf.int32, tf.float32]


def _write(tmp_path, text, name="f.csv"):
    path = tmp_path / name
    path.write_bytes(text.encode())
    return str(path)


def _records(tmp_path, text, defaults, **kwargs):
    """The records of a file of `text` (`defaults` a list, or a function making it in the graph)."""
    with tf.Graph().as_default():
        defaults = defaults() if callable(defaults) else defaults
        return [tuple(getattr(v, "item", lambda v=v: v)() for v in element) for element in
                dataset_elements(tf.data.experimental.CsvDataset(_write(tmp_path, text), defaults, **kwargs))]


def _error(tmp_path, text, defaults, **kwargs):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        _records(tmp_path, text, defaults, **kwargs)
    return runtime_message(info.value).split("\n")[0]


def test_csv_records_line_ends_and_spec(tmp_path):
    expected = [(b"a", 1, 2.5), (b"b", 2, 3.5)]
    for text in ("a,1,2.5\nb,2,3.5\n", "a,1,2.5\nb,2,3.5", "a,1,2.5\r\nb,2,3.5\r\n", "a,1,2.5\rb,2,3.5\r"):
        assert _records(tmp_path, text, _STR_INT_FLOAT) == expected
    with tf.Graph().as_default():
        ds = tf.data.experimental.CsvDataset("x.csv", [tf.string, tf.int32, tf.constant([1.0], tf.float64)])
        assert repr(ds) == ("<CsvDatasetV2 element_spec=(TensorSpec(shape=(), dtype=tf.string, name=None), "
                            "TensorSpec(shape=(), dtype=tf.int32, name=None), TensorSpec(shape=(), dtype=tf.float64, "
                            "name=None))>")
        assert ds.output_types == (tf.string, tf.int32, tf.float64)


def test_csv_defaults_na_and_quotes(tmp_path):
    def defaults():
        return [tf.constant(["z"]), tf.constant([7]), tf.constant([1.5])]

    assert _records(tmp_path, "a,,\n,2,\n", defaults) == [(b"a", 7, 1.5), (b"z", 2, 1.5)]
    assert _records(tmp_path, "NA,NA,NA\n", defaults, na_value="NA") == [(b"z", 7, 1.5)]
    assert _records(tmp_path, '"NA",x\n', lambda: [tf.constant(["d"]), tf.string], na_value="NA") == [(b"d", b"x")]
    assert _records(tmp_path, ' a , 1 , 2.5 \na," 1 ",2\n', _STR_INT_FLOAT) == [(b" a ", 1, 2.5), (b"a", 1, 2.0)]
    text = '"a,b",1,"2.5"\n"he said ""hi""",2,3\n"x\r\ny",3,4\n'
    assert _records(tmp_path, text, _STR_INT_FLOAT) == [(b"a,b", 1, 2.5), (b'he said "hi"', 2, 3.0),
                                                        (b"x\r\ny", 3, 4.0)]
    assert _records(tmp_path, '"a,b",1\n', [tf.string] * 3, use_quote_delim=False) == [(b'"a', b'b"', b"1")]
    assert _records(tmp_path, "\n", lambda: [tf.constant(["d"])]) == [(b"d",)]
    assert _records(tmp_path, "", [tf.string]) == []
    assert _records(tmp_path, "a|1|2.5\n", _STR_INT_FLOAT, field_delim="|") == [(b"a", 1, 2.5)]


def test_csv_numbers(tmp_path):
    for text, value in (("+5", 5), (" 5", 5), ("007", 7), ("-2147483648", -2147483648)):
        assert _records(tmp_path, text + "\n", [tf.int32]) == [(value,)]
    for text in ("1e3", "0x10", "5.", "2147483648"):
        assert _error(tmp_path, text + "\n", [tf.int32]) == f"Field 0 in record is not a valid int32: {text}"
    for text, value in ((".5", 0.5), (" 2.5 ", 2.5), ("-inf", -np.inf), ("Infinity", np.inf), ("0x1p3", 8.0),
                        ("+.5e1", 5.0), ("1e-50", 0.0), ("3.4e39", np.inf)):
        assert _records(tmp_path, text + "\n", [tf.float32]) == [(value,)]
    assert np.isnan(_records(tmp_path, "NaN\n", [tf.float32])[0][0])
    for text in ("1e", "1d", "1_0", " "):
        assert _error(tmp_path, text + "\n", [tf.float32]) == f"Field 0 in record is not a valid float: {text}"
    assert _error(tmp_path, "x\n", [tf.float64]) == "Field 0 in record is not a valid double: x"
    assert _error(tmp_path, "9223372036854775808\n", [tf.int64]) == (
        "Field 0 in record is not a valid int64: 9223372036854775808")
    assert _records(tmp_path, "a,3000000000,2\n", [tf.string, tf.int64, tf.float64]) == [(b"a", 3000000000, 2.0)]


@pytest.mark.parametrize("text,message", [
    ("a,,2\n", "Field 1 is required but missing in record!"),
    ('"",1,2\n', "Field 0 is required but missing in record!"),
    ("a,1,2\n\nb,2,3\n", "Field 0 is required but missing in record!"),
    ("a,1\n", "Expect 3 fields but have 2 in record"),
    ("a,1,2,3\n", "Expect 3 fields but have more in record"),
    ("a,x,2\n", "Field 1 in record is not a valid int32: x"),
    ('a"b,1,2\n', "Unquoted fields cannot have quotes inside"),
    ('"a"b,1,2\n', "Reached end of file without closing quoted field in record"),
    ('"a"b,1,2\n"c",2,3\n', "Quote inside a string has to be escaped by another quote"),
])
def test_csv_record_errors(tmp_path, text, message):
    assert _error(tmp_path, text, _STR_INT_FLOAT) == message


def test_csv_select_cols_and_header(tmp_path):
    assert _records(tmp_path, "a,1,2.5,q\nb,2,3.5,r\n", [tf.int32, tf.string], select_cols=[1, 3]) == [
        (1, b"q"), (2, b"r")]
    assert _records(tmp_path, 'a,"x\ny",1,4,5\n', [tf.string, tf.int32], select_cols=[0, 2]) == [(b"a", 1)]
    assert _error(tmp_path, "a,1,x,\n", [tf.int32, tf.string], select_cols=[1, 3]) == (
        "Field 1 is required but missing in record!")
    assert _error(tmp_path, "a,1,x,q,r\"\n", [tf.int32, tf.string], select_cols=[1, 3]) == (
        "Unquoted fields cannot have quotes inside")
    assert _error(tmp_path, "a,b\n", [tf.string, tf.int32], select_cols=[0, 2]) == (
        "Expect 2 fields but have 1 in record")
    for cols, message in (([1, 0], "select_cols should match output size"),
                          ([-1, 2, 3], "select_cols should be non-negative indices"),
                          ([1, 1, 2], "select_cols should be strictly increasing indices")):
        assert _error(tmp_path, "a\n", [tf.int32] * 3, select_cols=cols) == message
    assert _error(tmp_path, "a\n", [tf.string], field_delim="||") == "field_delim should be only 1 char"
    assert _error(tmp_path, "a\n", [tf.string], buffer_size=0) == "buffer_size should be positive"
    assert _records(tmp_path, '"x\ny",y,z\na,1,2\n', _STR_INT_FLOAT, header=True) == [(b"a", 1, 2.0)]
    assert _records(tmp_path, "only\n", [tf.string], header=True) == []
    assert _error(tmp_path, "", [tf.string], header=True) == "Can't read header of file"


def test_csv_files_compression_and_ignore_errors(tmp_path):
    with tf.Graph().as_default():
        names = tf.placeholder(tf.string, [None])
        it = tf.data.make_initializable_iterator(tf.data.experimental.CsvDataset(names, [tf.int32, tf.int32]))
        files = [_write(tmp_path, "1,2\n", "a.csv"), _write(tmp_path, "3,4\n5,6", "b.csv")]
        assert [tuple(e) for e in dataset_elements(it.get_next(), {names: files}, it.initializer)] == [
            (1, 2), (3, 4), (5, 6)]
        files = [_write(tmp_path, "h,h\n1,2\n", "c.csv"), _write(tmp_path, "h,h\n3,4\n5,6", "d.csv")]
        header = tf.data.experimental.CsvDataset(files, [tf.int32, tf.int32], header=True)
        assert [tuple(e) for e in dataset_elements(header)] == [(1, 2), (3, 4), (5, 6)]
    (tmp_path / "g.csv").write_bytes(gzip.compress(b"a,1\nb,2\n"))
    with tf.Graph().as_default():
        gz = tf.data.experimental.CsvDataset(str(tmp_path / "g.csv"), [tf.string, tf.int32], compression_type="GZIP")
        assert [tuple(e) for e in dataset_elements(gz)] == [(b"a", 1), (b"b", 2)]
        plain = tf.data.experimental.CsvDataset(_write(tmp_path, "x\n"), [tf.string], compression_type="GZIP")
        with pytest.raises(tf.errors.DataLossError, match="inflate\\(\\) failed with error -3: incorrect header check"):
            dataset_elements(plain)
    for text, expected in (("a,1\nb,x\nc,3\n", [(b"a", 1), (b"c", 3)]), ("a,1\nb,2,3\nc,3\n", [(b"a", 1), (b"c", 3)]),
                           ('a,1\nb",2\nc,3\n', [(b"a", 1), (b"c", 3)]), ('a,1\n"b"x,2\nc,3\n', [(b"a", 1)])):
        with tf.Graph().as_default():
            ds = tf.data.experimental.CsvDataset(_write(tmp_path, text), [tf.string, tf.int32]).apply(
                tf.data.experimental.ignore_errors())
            assert [(a, b.item()) for a, b in dataset_elements(ds)] == expected


def test_csv_build_errors():
    with tf.Graph().as_default():
        csv = tf.data.experimental.CsvDataset
        with pytest.raises(ValueError, match="Shape must be at most rank 1 but is rank 2"):
            csv("x.csv", [tf.constant([[1]])])
        with pytest.raises(ValueError, match="Shape of a default must be a length-0 or length-1 vector, or a scalar."):
            csv("x.csv", [tf.constant([1, 2])])
        with pytest.raises(TypeError, match="has DataType bool not in list of allowed values: float32, float64, "
                                            "int32, int64, string"):
            csv("x.csv", [tf.constant([True])])
        with pytest.raises(TypeError, match="Failed to convert elements of <dtype: 'int16'> to Tensor"):
            csv("x.csv", [tf.int16])
        with pytest.raises(ValueError, match="Shape must be rank 0 but is rank 1"):
            csv("x.csv", [tf.int32], na_value=["a"])
        with pytest.raises(TypeError, match="unexpected keyword argument 'exclude_cols'"):
            csv("x.csv", [tf.int32], exclude_cols=[1])
        assert csv("x.csv", [1, "zz", [1.5]]).output_types == (tf.float32, tf.string, tf.float32)


_PEOPLE = 'age,name,score,label\n10,bob,1.5,0\n20,al,,1\n30,"c,d",3.25,0\n40,eve,4e40,1\n'


def test_make_csv_dataset_inference_and_label(tmp_path):
    path = _write(tmp_path, _PEOPLE)
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_csv_dataset(path, 3, label_name="label", num_epochs=1, shuffle=False)
        assert repr(ds.output_types) == ("(OrderedDict([('age', tf.int32), ('name', tf.string), ('score', "
                                         "tf.float64)]), tf.int32)")
        assert ds.output_shapes[1].as_list() == [None]
        (features, label), (last, last_label) = dataset_elements(ds)
        assert isinstance(features, collections.OrderedDict) and list(features) == ["age", "name", "score"]
        assert features["name"].tolist() == [b"bob", b"al", b"c,d"] and features["score"].tolist() == [1.5, 0, 3.25]
        assert label.tolist() == [0, 1, 0] and last["score"].tolist() == [4e40] and last_label.tolist() == [1]
        endless = tf.data.experimental.make_csv_dataset(path, 2, shuffle=False)
        assert endless.output_shapes["age"].as_list() == [2]
        assert [e["age"].tolist() for e in dataset_elements(endless.take(3))] == [[10, 20], [30, 40], [10, 20]]
    types = _write(tmp_path, "a,b,c,d,e,f\n1,2147483648,1.5,x,,1e39\n2,3,2,y,,nan\n", "types.csv")
    with tf.Graph().as_default():
        inferred = tf.data.experimental.make_csv_dataset(types, 2, num_epochs=1, shuffle=False)
        assert list(inferred.output_types.values()) == [tf.int32, tf.int64, tf.float32, tf.string, tf.string,
                                                        tf.string]
        one_row = tf.data.experimental.make_csv_dataset(types, 2, num_epochs=1, num_rows_for_inference=1)
        assert one_row.output_types["f"] == tf.float64


def test_make_csv_dataset_options(tmp_path):
    first = _write(tmp_path, _PEOPLE, "f1.csv")
    _write(tmp_path, "age,name,score,label\n50,x,1,1\n", "f2.csv")
    make = tf.data.experimental.make_csv_dataset
    with tf.Graph().as_default():
        ds = make(str(tmp_path / "f*.csv"), 2, label_name="age", shuffle=True, shuffle_seed=3, select_columns=[0, 2])
        assert [(f["score"].tolist(), a.tolist()) for f, a in dataset_elements(ds.take(3))] == [
            ([1.0, 4e40], [50, 40]), ([3.25, 0.0], [30, 20]), ([1.5, 4e40], [10, 40])]
        typed = make(first, 2, column_defaults=[tf.int64, "q", tf.constant([9.0], tf.float64), 0], num_epochs=1,
                     shuffle=False)
        assert list(typed.output_types.values()) == [tf.int64, tf.string, tf.float64, tf.int32]
        assert dataset_elements(typed)[0]["score"].tolist() == [1.5, 9.0]
        named = make(first, 4, column_names=["a", "b", "c", "d"], column_defaults=[tf.string] * 4, header=False,
                     num_epochs=1, shuffle=False)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Field 2 is required but missing in record!"):
            dataset_elements(named)
    semi = _write(tmp_path, "a;b\nNA;2\n3;x\n5;6\n", "semi.csv")
    with tf.Graph().as_default():
        ds = make(semi, 2, num_epochs=1, shuffle=False, field_delim=";", na_value="NA", ignore_errors=True,
                  column_defaults=[tf.constant([-1]), tf.int32])
        assert [(e["a"].tolist(), e["b"].tolist()) for e in dataset_elements(ds)] == [([-1, 5], [2, 6])]


@pytest.mark.parametrize("kwargs,message", [
    ({"label_name": "zz"}, "`label_name` provided must be one of the columns: ['age', 'name', 'score', 'label']. "
                           "Received: zz."),
    ({"select_columns": ["zz"]}, "Column zz specified in `select_columns` must be of one of the columns: "
                                 "dict_keys(['age', 'name', 'score', 'label'])."),
    ({"select_columns": [7]}, "Column index 7 specified in `select_columns` should be > 0  and <= 4, which is the "
                              "number of columns."),
    ({"select_columns": [0, 0]}, "The `select_columns` argument contains duplicate columns: set()."),
    ({"column_names": ["a", "a", "b", "c"]}, "Either `column_names` argument or CSV header row contains duplicate "
                                             "column names: {'a'}."),
    ({"header": False}, "Expected `column_names` or `header` arguments. Neither is provided."),
    ({"column_defaults": [tf.int32], "select_columns": [0, 1]},
     "If specified, `column_defaults` and `select_columns` must have the same length: `column_defaults` has "
     "length 1, `select_columns` has length 2."),
    ({"compression_type": "ZLIB"}, "`compression_type` ZLIB is not supported for probing columns."),
])
def test_make_csv_dataset_errors(tmp_path, kwargs, message):
    with tf.Graph().as_default(), pytest.raises(ValueError) as info:
        tf.data.experimental.make_csv_dataset(_write(tmp_path, _PEOPLE), 2, **kwargs)
    assert str(info.value) == message


def test_make_csv_dataset_file_errors(tmp_path):
    make = tf.data.experimental.make_csv_dataset
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Argument `file_pattern` should not be empty."):
            make([], 2)
        with pytest.raises(ValueError, match="No files match `file_pattern`"):
            make(str(tmp_path / "none*.csv"), 2)
        with pytest.raises(ValueError, match="Problem inferring types: CSV row 3 has 1 number of fields. Expected: 2."):
            make(_write(tmp_path, "a,b\n1,2\n3\n"), 2)
        with pytest.raises(ValueError, match="Is it an empty file?"):
            make(_write(tmp_path, "", "empty.csv"), 2)
        other = _write(tmp_path, "x,y\n", "other.csv")
        with pytest.raises(ValueError, match="File .*other.csv has different column names."):
            make([_write(tmp_path, "a,b\n", "first.csv"), other], 2)
