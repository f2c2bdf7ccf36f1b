"""tf.train.init_from_checkpoint in every assignment_map form TF1 accepts, warm_start, VocabInfo and
checkpoints_iterator; the names, values and messages were checked against real TF 2.21."""

from __future__ import annotations

import re

import numpy as np
import pytest
from op_testing import runtime_message

import tensorweave.compat.v1 as tf


@pytest.fixture(scope="module")
def ckpt_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A checkpoint of a/x [1, 2], a/y [[3]], b/z 5 (int32), w 7."""
    d = str(tmp_path_factory.mktemp("ckpt"))
    with tf.Graph().as_default():
        with tf.variable_scope("a"):
            tf.get_variable("x", initializer=[1.0, 2.0])
            tf.get_variable("y", initializer=[[3.0]])
        with tf.variable_scope("b"):
            tf.get_variable("z", initializer=5)
        tf.get_variable("w", initializer=7.0)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, d + "/model")
    return d


def _new_scope() -> list[tf.Variable]:
    with tf.variable_scope("new"):
        return [tf.get_variable("x", [2]), tf.get_variable("y", [1, 1]), tf.get_variable("q", [3])]


def _new_scope_xy() -> list[tf.Variable]:
    with tf.variable_scope("new"):
        return [tf.get_variable("x", [2]), tf.get_variable("y", [1, 1])]


def _same_names() -> list[tf.Variable]:
    with tf.variable_scope("a"):
        made = [tf.get_variable("x", [2]), tf.get_variable("y", [1, 1])]
    with tf.variable_scope("b"):
        made.append(tf.get_variable("z", [], dtype=tf.int32))
    return made + [tf.get_variable("w", [])]


def _restored(assignment_map: object, make: object, ckpt: str) -> dict[str, object]:
    """{variable: its value after the initializers} for the variables taken from the checkpoint."""
    with tf.Graph().as_default():
        made = make()
        tf.train.init_from_checkpoint(ckpt, assignment_map(made) if callable(assignment_map) else assignment_map)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return {v.op.name: sess.run(v).tolist() for v in made if v.initial_value.op.type == "RestoreV2"}


@pytest.mark.parametrize("assignment_map,make,expected", [
    ({"a/x": "new/x"}, _new_scope, {"new/x": [1.0, 2.0]}),
    (lambda made: {"a/y": made[1], "a/x": made[0]}, _new_scope, {"new/x": [1.0, 2.0], "new/y": [[3.0]]}),
    ({"/": "/"}, _same_names, {"a/x": [1.0, 2.0], "a/y": [[3.0]], "b/z": 5, "w": 7.0}),
    ({"a/": "/"}, lambda: [tf.get_variable("x", [2]), tf.get_variable("y", [1, 1])], {"x": [1.0, 2.0], "y": [[3.0]]}),
    ([("a/", "new/")], _new_scope_xy, {"new/x": [1.0, 2.0], "new/y": [[3.0]]}),
])
def test_init_from_checkpoint_forms(ckpt_dir: str, assignment_map: object, make: object, expected: dict) -> None:
    assert _restored(assignment_map, make, ckpt_dir) == expected
    assert _restored(assignment_map, make, ckpt_dir + "/model") == expected


def test_init_from_checkpoint_replaces_the_initializer_as_tf(ckpt_dir: str) -> None:
    with tf.Graph().as_default():
        made = _same_names()
        tf.train.init_from_checkpoint(ckpt_dir, {"/": "/"})
        assert [(v.initial_value.name, v.initializer.name, v.initial_value.shape.as_list()) for v in made[:2]] == [
            ("checkpoint_initializer:0", "Assign:0", [2]), ("checkpoint_initializer_1:0", "Assign_1:0", [1, 1])]
        restore = made[0].initial_value.op
        assert restore.type == "RestoreV2" and restore.device == "/device:CPU:0"
        with tf.device("/cpu:0"):
            res = tf.get_variable("r", [2], use_resource=True)
        tf.train.init_from_checkpoint(ckpt_dir, {"a/x": res})  # TF: an Identity and the assign on its device
        assert (res.initializer.name, res.initializer.device) == ("AssignVariableOp", "/device:CPU:0")
        assert [(t.name, t.op.device) for t in res.initializer.inputs] == [("r:0", "/device:CPU:0"),
                                                                           ("Identity:0", "/device:CPU:0")]
        with tf.Session() as sess:
            assert sess.run(made[0].initializer).tolist() == [1.0, 2.0]  # the initializer is the Assign's Tensor
            sess.run(res.initializer)
            assert sess.run(res).tolist() == [1.0, 2.0]
        with pytest.raises(ValueError, match=re.escape("Tensor a/a/x (/x in a/) is not found in ")):
            tf.train.init_from_checkpoint(ckpt_dir, {"a/": "/"})


@pytest.mark.parametrize("assignment_map,message", [
    ({"a/": "new/"}, "Tensor a/q (q in a/) is not found in D checkpoint"),
    (lambda made: {"w": made[0]}, "Shape of variable new/x:0 ((2,)) doesn't match with shape of tensor w ([]) from "
                                  "checkpoint reader."),
    ({"a/x": "new/"}, "Assignment map with scope only name new should map to scope only a/x. Should be 'scope/': "
                      "'other_scope/'."),
    ({"a/": "new"}, "Tensor a/ew/q (ew/q in a/) is not found in D checkpoint"),
    ({"zz": "new/x"}, "Tensor zz is not found in D checkpoint {"),
])
def test_init_from_checkpoint_errors_as_tf(ckpt_dir: str, assignment_map: object, message: str) -> None:
    with tf.Graph().as_default():
        made = _new_scope()
        with pytest.raises(ValueError) as info:
            tf.train.init_from_checkpoint(ckpt_dir, assignment_map(made) if callable(assignment_map)
                                          else assignment_map)
    assert str(info.value).replace(ckpt_dir, "D").startswith(message)


def _warm_started(ckpt: str, **kwargs: object) -> list[object]:
    with tf.Graph().as_default():
        with tf.variable_scope("a"):
            made = [tf.get_variable("x", [2]), tf.get_variable("y", [1, 1]),
                    tf.get_variable("zz", [1], trainable=False)]
        tf.train.warm_start(ckpt, **kwargs)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run(v).tolist() if v.initial_value.op.type == "RestoreV2" else None for v in made[:2]]


def test_warm_start(ckpt_dir: str) -> None:
    assert _warm_started(ckpt_dir) == [[1.0, 2.0], [[3.0]]]
    assert _warm_started(ckpt_dir, vars_to_warm_start=["a/x"]) == [[1.0, 2.0], None]
    assert _warm_started(ckpt_dir, vars_to_warm_start="a/y", var_name_to_prev_var_name={"a/y": "a/y"}) == [
        None, [[3.0]]]
    with pytest.raises(ValueError, match=re.escape("You provided the following variables in "
                                                   "var_name_to_prev_var_name that were not used: {'a/q'}.  Perhaps "
                                                   "you misspelled them?  Here is the list of viable variable names: "
                                                   "dict_keys(['a/x'])")):
        _warm_started(ckpt_dir, vars_to_warm_start="a/x", var_name_to_prev_var_name={"a/q": "a/x"})
    with pytest.raises(ValueError, match="`vars_to_warm_start must be a `list` or `str`.  Given type is <class 'int'>"):
        _warm_started(ckpt_dir, vars_to_warm_start=3)


def test_vocab_info() -> None:
    assert tf.train.VocabInfo("new", 3, 1, "old") == ("new", 3, 1, "old", -1, None, 0)
    with pytest.raises(ValueError, match="The only supported values for the axis argument are 0 and 1.  "
                                         "Provided axis: 2"):
        tf.train.VocabInfo("new", 3, 1, "old", axis=2)


def test_checkpoints_iterator(ckpt_dir: str, tmp_path: object) -> None:
    assert list(tf.train.checkpoints_iterator(ckpt_dir, timeout=0.05)) == [ckpt_dir + "/model"]
    assert list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.01)) == []
    calls = []
    assert list(tf.train.checkpoints_iterator(ckpt_dir, timeout=0.01,
                                              timeout_fn=lambda: calls.append(1) or len(calls) > 1)) == [
        ckpt_dir + "/model"]
    assert len(calls) == 2


def test_load_variable_and_list_variables(ckpt_dir: str) -> None:
    assert tf.train.list_variables(ckpt_dir) == [("a/x", [2]), ("a/y", [1, 1]), ("b/z", []), ("w", [])]
    np.testing.assert_array_equal(tf.train.load_variable(ckpt_dir, "a/x:0"), [1.0, 2.0])
    assert tf.train.load_checkpoint(ckpt_dir).get_variable_to_dtype_map()["b/z"] == tf.int32


def test_warm_start_with_vocab_remapping(tmp_path: object) -> None:
    # expected values recorded from TF 2.21's tf.compat.v1.train.warm_start on the same checkpoint and vocabularies
    old_vocab, new_vocab = str(tmp_path / "old.txt"), str(tmp_path / "new.txt")
    (tmp_path / "old.txt").write_text("a\nb\nc\nd\n")
    (tmp_path / "new.txt").write_text("c\nx\na\ne\nb\n")
    with tf.Graph().as_default():
        tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3), name="emb")
        tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4) + 100, name="w")
        tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) + 50, name="old_pemb")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ckpt = tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [6, 3], initializer=tf.ones_initializer())
        w = tf.get_variable("w", [3, 6], initializer=tf.ones_initializer())
        pemb = tf.get_variable("pemb", [7, 3], initializer=tf.ones_initializer(),
                               partitioner=tf.fixed_size_partitioner(2))
        tf.train.warm_start(ckpt, [".*"], var_name_to_vocab_info={
            "emb": tf.train.VocabInfo(new_vocab, 5, 1, old_vocab),
            "w": tf.train.VocabInfo(new_vocab, 5, 1, old_vocab, backup_initializer=tf.ones_initializer(), axis=1),
            "pemb": tf.train.VocabInfo(new_vocab, 4, 3, old_vocab, old_vocab_size=3,
                                       backup_initializer=tf.ones_initializer())},
            var_name_to_prev_var_name={"pemb": "old_pemb"})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run([emb, w, tf.concat(list(pemb), 0)])
    assert [v.tolist() for v in values] == [
        [[6.0, 7.0, 8.0], [0.0, 0.0, 0.0], [0.0, 1.0, 2.0], [0.0, 0.0, 0.0], [3.0, 4.0, 5.0], [0.0, 0.0, 0.0]],
        [[102.0, 1.0, 100.0, 1.0, 101.0, 1.0], [106.0, 1.0, 104.0, 1.0, 105.0, 1.0],
         [110.0, 1.0, 108.0, 1.0, 109.0, 1.0]],
        [[56.0, 57.0, 58.0], [1.0, 1.0, 1.0], [50.0, 51.0, 52.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0],
         [1.0, 1.0, 1.0]]]


def test_vocab_remapping_ops_and_their_errors(tmp_path: object) -> None:
    # TF's GenerateVocabRemapping / LoadAndRemapMatrix kernels: an old id mapped twice, the initializing values
    # not exactly the missing cells, a new vocabulary shorter than asked (TF's messages)
    (tmp_path / "old.txt").write_text("a\nb\nc\n")
    (tmp_path / "new.txt").write_text("b\nz\na\n")
    with tf.Graph().as_default():
        tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="m")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ckpt = tf.train.Saver().save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        remap, present = tf.raw_ops.GenerateVocabRemapping(
            new_vocab_file=str(tmp_path / "new.txt"), old_vocab_file=str(tmp_path / "old.txt"), new_vocab_offset=0,
            num_new_vocab=3)
        too_many = tf.raw_ops.GenerateVocabRemapping(
            new_vocab_file=str(tmp_path / "new.txt"), old_vocab_file=str(tmp_path / "old.txt"), new_vocab_offset=2,
            num_new_vocab=2)

        def load(rows: list, values: list) -> object:
            return tf.raw_ops.LoadAndRemapMatrix(
                ckpt_path=ckpt, old_tensor_name="m", row_remapping=tf.constant(rows, tf.int64),
                col_remapping=tf.constant([], tf.int64), initializing_values=values, num_rows=len(rows), num_cols=2)

        with tf.Session() as sess:
            assert [v.tolist() for v in sess.run([remap, present])] == [[1, -1, 0], 2]
            assert sess.run(load([1, -1, 0], [7.0, 8.0])).tolist() == [[2.0, 3.0], [7.0, 8.0], [0.0, 1.0]]
            with pytest.raises(tf.errors.UnimplementedError,
                               match="Old ID 1 is mapped to both new ID 0 and 2, which is not supported."):
                sess.run(load([1, -1, 1], [7.0, 8.0]))
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="initializing_values contained 1 elements, but more missing values remain."):
                sess.run(load([1, -1, 0], [7.0]))
            with pytest.raises(tf.errors.InvalidArgumentError, match="initializing_values contained 3 elements, but "
                                                                     "only 2 elements were used"):
                sess.run(load([1, -1, 0], [7.0, 8.0, 9.0]))
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="lookup table size must be larger than last new vocab entry's line"):
                sess.run(too_many)


def test_variable_maps_iterate_in_tfs_unordered_map_order(tmp_path: object) -> None:
    """TF builds these maps as a C++ std::unordered_map; the orders are TF 2.21's."""
    with tf.Graph().as_default():
        for i in range(30):
            tf.Variable(float(i), name=f"v{i}")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, f"{tmp_path}/m")
    reader = tf.train.NewCheckpointReader(path)
    expected = ["v9", "v26", "v16", "v15", "v19", "v14", "v25", "v5", "v11", "v23", "v27", "v12", "v17", "v3",
                "v1", "v4", "v24", "v10", "v20", "v0", "v21", "v22", "v13", "v8", "v2", "v28", "v6", "v29", "v18",
                "v7"]
    assert list(reader.get_variable_to_shape_map()) == expected
    assert list(reader.get_variable_to_dtype_map()) == expected
    assert [name for name, _ in tf.train.list_variables(str(tmp_path))][:3] == ["v0", "v1", "v10"]


def test_init_from_checkpoint_missing_tensor_lists_tfs_map_order(ckpt_dir: str) -> None:
    with tf.Graph().as_default():
        tf.get_variable("x", [2])
        with pytest.raises(ValueError, match=re.escape(
                "checkpoint {'b/z': [], 'w': [], 'a/y': [1, 1], 'a/x': [2]}")):
            tf.train.init_from_checkpoint(ckpt_dir, {"nope": "x"})


def test_an_index_that_is_no_table_fails_with_tfs_messages_and_classes(tmp_path, caplog) -> None:
    (tmp_path / "short.index").write_bytes(b"garbage")
    (tmp_path / "bad.index").write_bytes(b"garbage" * 20)
    for prefix, message in (("short", "file is too short to be an sstable"),
                            ("bad", "not an sstable (bad magic number)")):
        path = str(tmp_path / prefix)
        for open_reader in (tf.train.NewCheckpointReader, tf.train.load_checkpoint, tf.train.list_variables):
            with pytest.raises(tf.errors.OpError) as info:  # TF's error_translator: no class named by the message
                open_reader(path)
            assert type(info.value) is tf.errors.OpError and info.value.error_code == tf.errors.UNKNOWN
            assert info.value.message == message
        with tf.Graph().as_default():
            saver = tf.train.Saver([tf.Variable([1.0, 2.0], name="a")])
            with tf.Session() as sess, pytest.raises(tf.errors.DataLossError) as info:
                saver.restore(sess, path)
            assert runtime_message(info.value).splitlines()[0] == message
    (tmp_path / "m.data-00000-of-00001").write_bytes(b"garbage")  # the data file named as a prefix: a V1 table
    with pytest.raises(tf.errors.DataLossError, match=re.escape(
            f"Unable to open table file {tmp_path}/m.data-00000-of-00001: DATA_LOSS: file is too short to be an "
            "sstable: perhaps your file is in a different file format")):
        tf.train.NewCheckpointReader(str(tmp_path / "m.data-00000-of-00001"))
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "gone"\n')
    with caplog.at_level("ERROR", logger="tensorflow"):
        assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert [r.getMessage() for r in caplog.records] == [f"Couldn't match files for checkpoint {tmp_path}/gone"]
