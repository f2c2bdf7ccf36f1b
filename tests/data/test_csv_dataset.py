"""tf.data.experimental.CsvDataset: TF's record parse, defaults and messages (literals recorded from TF 2.21)."""

import pytest

import tensorweave.compat.v1 as tf


def _rows(tmp_path, text, defaults, **kwargs):
    path = tmp_path / "x.csv"
    path.write_text(text)
    nxt = tf.data.make_one_shot_iterator(tf.data.experimental.CsvDataset(str(path), defaults, **kwargs)).get_next()
    rows = []
    with tf.Session() as sess:
        try:
            while True:
                rows.append(tuple(v.item() if hasattr(v, "item") else v for v in sess.run(nxt)))
        except tf.errors.OutOfRangeError:
            return rows, None
        except tf.errors.InvalidArgumentError as e:
            return rows, e.message.split("\n")[0]


def test_header_defaults_na_value_and_quotes(tmp_path):
    with tf.Graph().as_default():
        ds = tf.data.experimental.CsvDataset(["a"], [tf.int32, [0.5], ["dflt"]])
        assert repr(ds).startswith("<CsvDatasetV2 element_spec=(TensorSpec(shape=(), dtype=tf.int32")
        assert ds.output_types == (tf.int32, tf.float32, tf.string)
        assert _rows(tmp_path, 'x,y,z\n1,2.5,hello\n3,,"q,w"\n4,NA,e\n', [tf.int32, [0.5], ["dflt"]], header=True,
                     na_value="NA") == ([(1, 2.5, b"hello"), (3, 0.5, b"q,w"), (4, 0.5, b"e")], None)
        assert _rows(tmp_path, '"a""b",c\n"x\ny",z\n', [[""], [""]]) == ([(b'a"b', b"c"), (b"x\ny", b"z")], None)
        assert _rows(tmp_path, "a,b,c,d\n1,2,3,4\n", [[0], [0]], header=True, select_cols=[1, 3]) == ([(2, 4)], None)
        assert _rows(tmp_path, "1;2\r\n3;4", [[0], [0]], field_delim=";") == ([(1, 2), (3, 4)], None)


@pytest.mark.parametrize("text,defaults,rows,message", [
    ("1,a\nx,b\n", [[0], [""]], [(1, b"a")], "Field 0 in record is not a valid int32: x"),
    ("1,a,3\n", [[0], [""]], [], "Expect 2 fields but have more in record"),
    ("1\n", [[0], [""]], [], "Expect 2 fields but have 1 in record"),
    ("\n", [tf.int32, [""]], [], "Field 0 is required but missing in record!"),
    ("1.5,a\n", [[0], [""]], [], "Field 0 in record is not a valid int32: 1.5"),
    ('a"b,c\n', [[""], [""]], [], "Unquoted fields cannot have quotes inside"),
    ('"ab"c,d\n', [[""], [""]], [], "Reached end of file without closing quoted field in record"),
])
def test_errors(tmp_path, text, defaults, rows, message):
    with tf.Graph().as_default():
        assert _rows(tmp_path, text, defaults) == (rows, message)


def test_make_csv_dataset_infers_names_and_types(tmp_path):
    """Column names from the header, types from the first rows, OrderedDict features (values from TF 2.21)."""
    (tmp_path / "a.csv").write_text('age,fare,name,survived\n22,7.25,"Braund, Mr",0\n38,71.28,Cumings,1\n'
                                    '26,,Heikkinen,1\n')
    (tmp_path / "b.csv").write_text("age,fare,name,survived\n35,53.1,Futrelle,1\n1e10,8.05,Allen,0\n")
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_csv_dataset(str(tmp_path / "*.csv"), batch_size=2, label_name="survived",
                                                   num_epochs=1, shuffle=False)
        features, label = ds.output_types
        assert type(features).__name__ == "OrderedDict" and list(features.items()) == [
            ("age", tf.float32), ("fare", tf.float32), ("name", tf.string)] and label == tf.int32
        nxt = tf.data.make_one_shot_iterator(ds).get_next()
        with tf.Session() as sess:
            f, lab = sess.run(nxt)
            assert f["name"].tolist() == [b"Braund, Mr", b"Cumings"] and lab.tolist() == [0, 1]
            f, lab = sess.run(nxt)
            assert f["fare"].tolist() == [0.0, 53.099998474121094] and f["age"].tolist() == [26.0, 35.0]
        picked = tf.data.experimental.make_csv_dataset(str(tmp_path / "a.csv"), batch_size=3,
                                                       select_columns=["name", "age"], num_epochs=1)
        assert list(picked.output_types.items()) == [("age", tf.int32), ("name", tf.string)]
        for kwargs, message in [({"label_name": "zz"}, "`label_name` provided must be one of the columns"),
                                ({"select_columns": ["q"]}, "Column q specified in `select_columns` must be"),
                                ({"header": False}, "Expected `column_names` or `header` arguments.")]:
            with pytest.raises(ValueError, match=message):
                tf.data.experimental.make_csv_dataset(str(tmp_path / "a.csv"), batch_size=2, **kwargs)
