"""SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename, ShardedFilespec: values, static checks and TF's errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors
from tensorweave.formats import bundle
from tensorweave.ops import io_ops
from tests.op_testing import check_op


def _run(fetches: object) -> object:
    with tf.Session() as sess:
        return sess.run(fetches)


def test_save_then_restore_every_dtype_whole_and_sliced(tmp_path: os.PathLike) -> None:
    prefix = os.path.join(tmp_path, "ckpt")
    values = {"f": np.arange(6, dtype=np.float32).reshape(2, 3), "i": np.int64(-4), "s": np.array([b"a", b"xyz"], object),
              "b": np.array([True, False]), "h": np.array([1.5], np.float16)}
    with tf.Graph().as_default():
        names = sorted(values)
        _run(io_ops.save_v2(prefix, names, [""] * len(names), [tf.constant(values[n]) for n in names]))
        restored = io_ops.restore_v2(prefix, names[::-1], [""] * len(names), [tf.constant(values[n]).dtype
                                                                             for n in names[::-1]])
        assert all(t.shape.ndims is None for t in restored)
        for name, got in zip(names[::-1], _run(restored)):
            np.testing.assert_array_equal(got, values[name])
            assert np.asarray(got).dtype == np.asarray(values[name]).dtype
        sliced = io_ops.restore_v2(prefix, ["f"], ["2 3 1,1:0,2"], [tf.float32])
        assert sliced[0].shape.as_list() == [1, 2]
        np.testing.assert_array_equal(_run(sliced)[0], [[3, 4]])


def test_save_slices_of_a_partitioned_variable(tmp_path: os.PathLike) -> None:
    prefix = os.path.join(tmp_path, "part")
    with tf.Graph().as_default():
        _run(io_ops.save_v2(prefix, ["v", "v"], ["4 2 0,2:-", "4 2 2,2:-"],
                            [tf.constant([[0, 1], [2, 3]]), tf.constant([[4, 5], [6, 7]])]))
        np.testing.assert_array_equal(_run(io_ops.restore_v2(prefix, ["v"], [""], [tf.int32]))[0],
                                      np.arange(8).reshape(4, 2))
        with pytest.raises(errors.InvalidArgumentError, match="does not match the shape of the tensor to  save"):
            _run(io_ops.save_v2(prefix, ["w"], ["4 2 0,3:-"], [tf.constant([[0, 1], [2, 3]])]))


def test_restore_errors_as_tf(tmp_path: os.PathLike) -> None:
    prefix = os.path.join(tmp_path, "ckpt")
    bundle.write_bundle(prefix, {"a": np.float32([1, 2])})
    with tf.Graph().as_default():
        with pytest.raises(errors.NotFoundError, match="Key c not found in checkpoint") as e:
            _run(io_ops.restore_v2(prefix, ["c"], [""], [tf.float32], name="R"))
        assert e.value.node_def.name == "R"
        with pytest.raises(errors.InvalidArgumentError,
                           match="tensor_name = a; expected dtype int32 does not equal original dtype float\n"):
            _run(io_ops.restore_v2(prefix, ["a"], [""], [tf.int32]))
        with pytest.raises(errors.InvalidArgumentError, match=r"shape in shape_and_slice spec \[3\] does not match"):
            _run(io_ops.restore_v2(prefix, ["a"], ["3 0,1"], [tf.float32]))
        with open(prefix + ".index", "wb") as f:
            f.write(b"garbage" * 10)
        with pytest.raises(errors.DataLossError, match=r"not an sstable \(bad magic number\)"):
            _run(io_ops.restore_v2(prefix, ["a"], [""], [tf.float32]))
        with pytest.raises(errors.NotFoundError, match="Failed to find any matching files"):
            _run(io_ops.restore_v2(prefix + "x", ["a"], [""], [tf.float32]))


def test_static_checks() -> None:
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension must be 2 but is 1"):
            io_ops.save_v2("p", ["a"], [""], [tf.constant(1), tf.constant(2)])
        with pytest.raises(ValueError, match="must be rank 0"):
            io_ops.restore_v2(["p"], ["a"], [""], [tf.int32])
        with pytest.raises(ValueError, match="must be rank 1"):
            io_ops.merge_v2_checkpoints("a", "b")


def test_sharded_filename_and_filespec() -> None:
    check_op(lambda b, s, n: io_ops.sharded_filename(b, s, n), [np.array(b"foo", object), np.int32(2), np.int32(7)],
             np.array(b"foo-00002-of-00007", object))
    check_op(lambda b, n: io_ops.ShardedFilespec(b, n), [np.array(b"foo", object), np.int32(7)],
             np.array(b"foo-?????-of-00007", object))


def test_merge_v2_checkpoints(tmp_path: os.PathLike) -> None:
    parts = [os.path.join(tmp_path, "tmp", f"part-{i:05d}-of-00002") for i in range(2)]
    bundle.write_bundle(parts[0], {"a": np.float32([1, 2])})
    bundle.write_bundle(parts[1], {"b": np.int64(3)})
    dest = os.path.join(tmp_path, "model")
    with tf.Graph().as_default():
        _run(io_ops.merge_v2_checkpoints(parts + [os.path.join(tmp_path, "missing")], dest, allow_missing_files=True))
        a, b = _run(io_ops.restore_v2(dest, ["a", "b"], ["", ""], [tf.float32, tf.int64]))
    np.testing.assert_array_equal(a, [1, 2])
    assert b == 3
    assert not os.path.exists(os.path.join(tmp_path, "tmp"))
    assert sorted(os.listdir(tmp_path)) == ["model.data-00000-of-00002", "model.data-00001-of-00002", "model.index"]
