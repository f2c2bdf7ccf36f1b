"""V1 checkpoints (`tf.train.Saver(write_version=SaverDef.V1)`): SaveSlices files, RestoreV2's fallback to
them and the CheckpointReader over them.

tests/fixtures/tf_v1_checkpoint/model was written by TF 2.21's tf.compat.v1.train.Saver(write_version=V1)
over the graph `_reference_graph` builds; the names, orders and messages below were recorded from TF 2.21.
"""

from __future__ import annotations

import logging
import os
import re

import numpy as np
import pytest

import tensorweave.compat.v1 as tf

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf_v1_checkpoint", "model")


def _reference_graph() -> None:
    tf.Variable([1.0, 2.0], name="v")
    tf.Variable(np.array([1.5], np.float16), name="hv")
    tf.Variable(3, name="sc")
    tf.Variable(["ab", "c"], name="st")
    tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2), initializer=tf.ones_initializer())


def test_v1_save_writes_tfs_bytes(tmp_path: os.PathLike) -> None:
    with tf.Graph().as_default():
        _reference_graph()
        saver = tf.train.Saver(write_version=tf.train.SaverDef.V1)
        assert saver.saver_def.version == tf.train.SaverDef.V1
        ops = sorted(f"{op.name}:{op.type}" for op in tf.get_default_graph().get_operations()
                     if op.name.startswith("save/save"))
        assert ops == ["save/save/shapes_and_slices:Const", "save/save/tensor_names:Const", "save/save:SaveSlices"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, f"{tmp_path}/model")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model", "model.meta"]
    with open(path, "rb") as ours, open(FIXTURE, "rb") as tfs:
        assert ours.read() == tfs.read()


def test_reader_over_tfs_v1_file() -> None:
    reader = tf.train.NewCheckpointReader(FIXTURE)
    assert list(reader.get_variable_to_shape_map().items()) == [
        ("hv", [1]), ("p", [4, 2]), ("sc", []), ("st", [2]), ("v", [2])]
    assert {k: v.name for k, v in reader.get_variable_to_dtype_map().items()} == {
        "hv": "float16", "p": "float32", "sc": "int32", "st": "string", "v": "float32"}
    assert reader.debug_string() == (b"v (DT_FLOAT) [2]\nst (DT_STRING) [2]\nsc (DT_INT32) []\n"
                                     b"p (DT_FLOAT) [4,2], 2 slices\nhv (DT_HALF) [1]\n")
    assert reader.has_tensor("p") and not reader.has_tensor("zz")
    np.testing.assert_array_equal(reader.get_tensor("v"), [1.0, 2.0])
    assert reader.get_tensor("st").tolist() == [b"ab", b"c"]
    assert reader.get_tensor("sc") == 3
    with pytest.raises(tf.errors.UnimplementedError, match="^Data type not supported$"):
        reader.get_tensor("hv")
    with pytest.raises(tf.errors.UnimplementedError, match="^Sliced checkpoints are not supported$"):
        reader.get_tensor("p")
    with pytest.raises(tf.errors.NotFoundError, match="^zz not found in checkpoint file$"):
        reader.get_tensor("zz")
    assert tf.train.list_variables(FIXTURE)[0] == ("hv", [1])


def test_restore_from_tfs_v1_file_and_its_errors() -> None:
    with tf.Graph().as_default():
        v = tf.Variable([0.0, 0.0], name="v")
        p = tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(4), initializer=tf.zeros_initializer())
        hv = tf.Variable(np.zeros(1, np.float16), name="hv")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, FIXTURE)
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
            np.testing.assert_array_equal(sess.run(tf.concat(list(p), 0)), np.ones((4, 2)))
            np.testing.assert_array_equal(sess.run(hv), [1.5])
            with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
                    "Expected to restore a tensor of type int32, got a tensor of type string instead: "
                    "tensor_name = st")):
                tf.train.Saver([tf.Variable([1, 2], name="st")]).restore(sess, FIXTURE)
            with pytest.raises(tf.errors.NotFoundError, match=re.escape(
                    f'Tensor name "zz" not found in checkpoint files {FIXTURE}')):
                tf.train.Saver([tf.Variable(1.0, name="zz")]).restore(sess, FIXTURE)


def test_sharded_v1_save_names_its_files_by_pattern(tmp_path: os.PathLike) -> None:
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            v = tf.Variable([1.0, 2.0], name="v")
        with tf.device("/cpu:1"):
            w = tf.Variable([[3.0]], name="w")
        saver = tf.train.Saver(sharded=True, write_version=tf.train.SaverDef.V1)
        assert saver.saver_def.save_tensor_name == "save/ShardedFilespec:0"
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, f"{tmp_path}/model", global_step=1)
            assert path == f"{tmp_path}/model-1-?????-of-00002"
            assert sorted(os.listdir(tmp_path)) == ["checkpoint", "model-1-00000-of-00002",
                                                   "model-1-00001-of-00002", "model-1.meta"]
            sess.run(v.assign([0.0, 0.0]))
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
            assert tf.train.latest_checkpoint(str(tmp_path)) == path
        assert sorted(tf.train.list_variables(str(tmp_path))) == [("v", [2]), ("w", [1, 1])]
        np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path), "w"), [[3.0]])
    del w


def test_v1_checkpoints_beyond_max_to_keep_are_deleted(tmp_path: os.PathLike) -> None:
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver(write_version=tf.train.SaverDef.V1, max_to_keep=1)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, f"{tmp_path}/m", global_step=1)
            saver.save(sess, f"{tmp_path}/m", global_step=2)
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m-2", "m-2.meta"]
    assert tf.train.checkpoint_exists(f"{tmp_path}/m-2") and not tf.train.checkpoint_exists(f"{tmp_path}/m-1")


def test_each_v1_save_logs_tfs_deprecation_banner(tmp_path: os.PathLike, caplog: pytest.LogCaptureFixture) -> None:
    with tf.Graph().as_default():
        tf.Variable([1.0, 2.0], name="v")
        saver = tf.train.Saver(write_version=tf.train.SaverDef.V1)
        with tf.Session() as sess, caplog.at_level(logging.WARNING, logger="tensorflow"):
            sess.run(tf.global_variables_initializer())
            saver.save(sess, os.path.join(tmp_path, "m"))
            saver.save(sess, os.path.join(tmp_path, "m"))
    stars = "*" * 55
    banner = [stars, "TensorFlow's V1 checkpoint format has been deprecated.",
              "Consider switching to the more efficient V2 format:",
              "   `tf.train.Saver(write_version=tf.train.SaverDef.V2)`", "now on by default.", stars]
    assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == banner * 2
