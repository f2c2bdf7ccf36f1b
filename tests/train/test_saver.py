"""tf.train.Saver: TF's node names, save/change/restore, interop with real TF's files, errors, max_to_keep,
sharded saves across devices, and crash-safety of a save loop killed at several points."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave import errors

REFERENCE = os.environ.get("TW_REFERENCE_CKPT", "/work/shared/reference/checkpoint_v2")
needs_reference = pytest.mark.skipif(not os.path.isdir(REFERENCE), reason="reference checkpoint not present")


def _reference_variables(init: bool = True) -> list[tf.Variable]:
    """The variables of the reference checkpoint, with its values (or zeros)."""
    values = [np.arange(6, dtype=np.float32).reshape(2, 3), np.array([7, 8], np.int32), np.float64(3.5), np.int64(0)]
    names = ["dense/kernel", "dense/bias", "scalar64", "global_step"]
    return [tf.Variable(v if init else np.zeros_like(v), name=n) for v, n in zip(values, names)]


def test_node_names_and_saver_def_as_tf() -> None:
    with tf.Graph().as_default() as g:
        with tf.device("/cpu:0"):
            tf.Variable([[1.0, 2.0]], name="dense/kernel")
            tf.Variable(3, name="b")
        saver = tf.train.Saver()
        ops = [(op.name, op.type, op.device) for op in g.get_operations() if op.name.startswith("save")]
    assert str(saver.as_saver_def()) == ('filename_tensor_name: "save/Const:0"\nsave_tensor_name: '
                                         '"save/control_dependency:0"\nrestore_op_name: "save/restore_all"\n'
                                         'max_to_keep: 5\nkeep_checkpoint_every_n_hours: 10000\nversion: V2\n')
    cpu0 = "/device:CPU:0"
    assert ops == [  # recorded from TF 2.21
        ("save/filename/input", "Const", ""), ("save/filename", "PlaceholderWithDefault", ""),
        ("save/Const", "PlaceholderWithDefault", ""), ("save/SaveV2/tensor_names", "Const", ""),
        ("save/SaveV2/shape_and_slices", "Const", ""), ("save/SaveV2", "SaveV2", ""),
        ("save/control_dependency", "Identity", ""), ("save/RestoreV2/tensor_names", "Const", cpu0),
        ("save/RestoreV2/shape_and_slices", "Const", cpu0), ("save/RestoreV2", "RestoreV2", cpu0),
        ("save/Assign", "Assign", cpu0), ("save/Assign_1", "Assign", cpu0), ("save/restore_all", "NoOp", cpu0)]


def test_sharded_node_names_as_tf() -> None:
    with tf.Graph().as_default() as g:
        tf.Variable(3, name="b")
        saver = tf.train.Saver(sharded=True)
        names = [op.name for op in g.get_operations() if op.name.startswith("save")]
    assert saver.as_saver_def().save_tensor_name == "save/Identity:0"
    assert names == [  # recorded from TF 2.21
        "save/filename/input", "save/filename", "save/Const", "save/StaticRegexFullMatch", "save/Const_1",
        "save/Const_2", "save/Select", "save/StringJoin", "save/num_shards", "save/ShardedFilename/shard",
        "save/ShardedFilename", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices", "save/SaveV2",
        "save/control_dependency", "save/MergeV2Checkpoints/checkpoint_prefixes", "save/MergeV2Checkpoints",
        "save/Identity", "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices", "save/RestoreV2",
        "save/Assign", "save/restore_shard", "save/restore_all"]


def test_assign_save_change_restore(tmp_path: os.PathLike) -> None:
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.Variable(5, name="w")
        saver = tf.train.Saver({"renamed": v, "w": w}, max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([v.assign([3.0, 4.0]), w.assign(6)])
            paths = [saver.save(sess, os.path.join(tmp_path, "m"), global_step=step) for step in range(3)]
            assert paths[-1] == os.path.join(tmp_path, "m-2")
            sess.run([v.assign([0.0, 0.0]), w.assign(0)])
            saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
            np.testing.assert_array_equal(sess.run(v), [3.0, 4.0])
            assert sess.run(w) == 6
    assert saver.last_checkpoints == paths[1:]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m-1.data-00000-of-00001", "m-1.index", "m-1.meta",
                                            "m-2.data-00000-of-00001", "m-2.index", "m-2.meta"]
    assert tf.train.load_variable(str(tmp_path), "renamed").tolist() == [3.0, 4.0]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == paths[1:]
    meta = tf.MetaGraphDef.FromString(open(os.path.join(tmp_path, "m-2.meta"), "rb").read())
    assert meta.saver_def == saver.as_saver_def()
    assert "save/RestoreV2" in [n.name for n in meta.graph_def.node]


@needs_reference
def test_saved_files_equal_real_tfs_and_restore_its_checkpoint(tmp_path: os.PathLike) -> None:
    """Our bundle of the reference variables is TF's byte for byte (TF restores it: checked with TF 2.21, which
    also imported our .meta); and TF's checkpoint restores into our variables."""
    with tf.Graph().as_default():
        variables = _reference_variables()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, os.path.join(tmp_path, "model.ckpt"), global_step=42, write_meta_graph=False)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(os.path.join(tmp_path, "model.ckpt-42" + suffix), "rb") as ours, \
                open(os.path.join(REFERENCE, "model.ckpt-42" + suffix), "rb") as theirs:
            assert ours.read() == theirs.read()
    with tf.Graph().as_default():
        variables = _reference_variables(init=False)
        saver = tf.train.Saver(variables)
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(REFERENCE))
            kernel, bias, scalar, step = sess.run(variables)
    np.testing.assert_array_equal(kernel, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert bias.tolist() == [7, 8] and bias.dtype == np.int32
    assert scalar == 3.5 and step == 0


@needs_reference
def test_restore_errors_as_tf() -> None:
    ckpt = os.path.join(REFERENCE, "model.ckpt-43")
    cases = [  # messages recorded from TF 2.21
        (lambda: [tf.Variable([1, 2], name="missing")], errors.NotFoundError,
         "Restoring from checkpoint failed. This is most likely due to a Variable name or other graph key that is "
         "missing from the checkpoint. Please ensure that you have not altered the graph expected based on the "
         "checkpoint. Original error:\n\nKey missing not found in checkpoint"),
        (lambda: {"dense/bias": tf.Variable([1.0, 2.0], name="x")}, errors.InvalidArgumentError,
         "Restoring from checkpoint failed. This is most likely due to a mismatch between the current graph and "
         "the graph from the checkpoint. Please ensure that you have not altered the graph expected based on the "
         "checkpoint. Original error:\n\ntensor_name = dense/bias; expected dtype float does not equal original "
         "dtype int32"),
        (lambda: {"dense/bias": tf.Variable([1, 2, 3], name="x")}, errors.InvalidArgumentError,
         "Original error:\n\nAssign requires shapes of both tensors to match. lhs shape= [3] rhs shape= [2]")]
    for build, error, message in cases:
        with tf.Graph().as_default():
            saver = tf.train.Saver(build())
            with tf.Session() as sess, pytest.raises(error) as e:
                saver.restore(sess, ckpt)
            head, tail = message.split("Original error:\n\n")  # then the session's error, as TF 2's Session words it
            assert head + "Original error:\n\nGraph execution error:\n\n" in e.value.message
            assert tail in e.value.message
    with tf.Graph().as_default():
        saver = tf.train.Saver([tf.Variable(1, name="x")])
        with tf.Session() as sess, pytest.raises(ValueError, match="The passed save_path is not a valid "
                                                                   "checkpoint: /nonexistent/foo$"):
            saver.restore(sess, "/nonexistent/foo")


def test_constructor_checks_as_tf() -> None:
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="^No variables to save$"):
            tf.train.Saver()
        assert tf.train.Saver(allow_empty=True).as_saver_def() is None
        v = tf.Variable(1, name="v")
        with pytest.raises(ValueError, match="If `var_list` is provided then build cannot be deferred"):
            tf.train.Saver([v], defer_build=True)
        with pytest.raises(TypeError, match="^Variables to save should be passed in a dict or a list. Got 3$"):
            tf.train.Saver(3)
        with pytest.raises(TypeError, match="^Variable to save is not a Variable: Tensor\\(\"c:0\""):
            tf.train.Saver([tf.constant(1.0, name="c")])
        with pytest.raises(TypeError, match="^names_to_saveables must be a dict mapping string names to "
                                            "Tensors/Variables. Not a variable: Tensor\\(\"c_1:0\""):
            tf.train.Saver({"c": tf.constant(1.0, name="c")})
        with pytest.raises(TypeError, match="^can't convert Operation 'v' to Tensor$"):
            tf.train.Saver([v.op])  # TF converts first, so its conversion error is what shows
        deferred = tf.train.Saver(defer_build=True)
        with tf.Session() as sess, pytest.raises(RuntimeError, match="`build\\(\\)` should be called"):
            deferred.save(sess, "/tmp/x")
        deferred.build()
        assert deferred.as_saver_def().restore_op_name == "save/restore_all"
        again = tf.train.Saver.from_proto(deferred.to_proto())
        assert again.as_saver_def() == deferred.as_saver_def()
        assert deferred.to_proto(export_scope="save").filename_tensor_name == "Const:0"
        w = tf.Variable(2, name="w")
        assert tf.train.Saver([[v], (w,)]).saver_def.restore_op_name == "save_1/restore_all"  # TF flattens lists


def test_a_list_saved_under_one_name_must_be_slices_of_one_tensor_as_tf() -> None:
    with tf.Graph().as_default():
        a = tf.Variable([1.0, 2.0], name="a")
        p = tf.get_variable("p", shape=[4, 2], partitioner=tf.fixed_size_partitioner(2))
        q = tf.get_variable("q", shape=[4, 2], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="^Slices must all be slices: <tf.Variable 'a:0' shape=\\(2,\\) "
                                             "dtype=float32_ref>$"):
            tf.train.Saver({"p": [a]})
        with pytest.raises(ValueError, match="^Slices must all be from the same tensor: p != q$"):
            tf.train.Saver({"p": [list(p)[0], list(q)[1]]})
        with pytest.raises(ValueError, match="^Slices must all be Variables: 3.0$"):
            tf.train.Saver({"p": [list(p)[0], 3.0]})
        assert tf.train.Saver({"p": tuple(p)}).saver_def.restore_op_name == "save/restore_all"


def test_set_and_recover_last_checkpoints_and_relative_paths(tmp_path: os.PathLike) -> None:
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver(max_to_keep=1, save_relative_paths=True, pad_step_number=True)
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = saver.save(sess, os.path.join(tmp_path, "m"), global_step=tf.constant(7), write_meta_graph=False)
    assert path == os.path.join(tmp_path, "m-00000007")
    with open(os.path.join(tmp_path, "checkpoint")) as f:
        assert f.read() == 'model_checkpoint_path: "m-00000007"\nall_model_checkpoint_paths: "m-00000007"\n'
    saver.set_last_checkpoints(["a", "b"])
    assert saver.last_checkpoints == ["a", "b"]
    saver.recover_last_checkpoints([path, os.path.join(tmp_path, "gone")])
    assert saver.last_checkpoints == [path]


def test_sharded_save_one_file_per_device(tmp_path: os.PathLike) -> None:
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = tf.Variable([1.0, 2.0], name="a")
        with tf.device("/cpu:1"):
            b = tf.Variable([3, 4], name="b")
        saver = tf.train.Saver(sharded=True)
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, os.path.join(tmp_path, "m"), write_meta_graph=False)
            sess.run([a.assign([0.0, 0.0]), b.assign([0, 0])])
            saver.restore(sess, path)
            assert sess.run(a).tolist() == [1.0, 2.0] and sess.run(b).tolist() == [3, 4]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m.data-00000-of-00002", "m.data-00001-of-00002",
                                            "m.index"]


_SAVE_LOOP = textwrap.dedent("""
    import sys
    import numpy as np
    import tensorweave.compat.v1 as tf
    v = tf.Variable(np.zeros(1 << 20, np.float32), name="v")
    step = tf.Variable(0, name="step")
    update = tf.group(v.assign_add(tf.ones_like(v)), step.assign_add(1))
    saver = tf.train.Saver(max_to_keep=3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        while True:
            sess.run(update)
            saver.save(sess, sys.argv[1] + "/m", global_step=step)
""")


def test_killed_save_loop_leaves_a_restorable_latest_checkpoint(tmp_path: os.PathLike) -> None:
    """Kill a process saving in a loop at several moments; what latest_checkpoint names always restores."""
    delays = [0.0, 0.013, 0.037, 0.071]
    dirs = [os.path.join(tmp_path, str(i)) for i in range(len(delays))]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [os.getcwd(), os.environ.get("PYTHONPATH")] if p))
    procs = []
    try:
        for d in dirs:
            os.makedirs(d)
            procs.append(subprocess.Popen([sys.executable, "-c", _SAVE_LOOP, d], env=env,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for d, proc, delay in zip(dirs, procs, delays):
            deadline = time.monotonic() + 60
            while not os.path.exists(os.path.join(d, "checkpoint")) and proc.poll() is None:
                assert time.monotonic() < deadline, "the save loop never wrote a checkpoint"
                time.sleep(0.005)
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
    for d in dirs:
        latest = tf.train.latest_checkpoint(d)
        assert latest is not None
        step = int(latest.rsplit("-", 1)[1])
        with tf.Graph().as_default():
            v = tf.Variable(np.zeros(1 << 20, np.float32), name="v")
            s = tf.Variable(0, name="step")
            with tf.Session() as sess:
                tf.train.Saver().restore(sess, latest)
                assert sess.run(s) == step
                assert np.all(sess.run(v) == step)
        shutil.rmtree(d)


def test_checkpoint_save_makes_pending_events_visible_as_tf(tmp_path: os.PathLike) -> None:
    logdir, ckpt = os.path.join(tmp_path, "logs"), os.path.join(tmp_path, "ckpt")
    os.makedirs(ckpt)
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        writer = tf.summary.FileWriter(logdir, flush_secs=120)
        for step in (1, 2):
            writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), step)
        with tf.Session() as sess:
            sess.run(v.initializer)
            tf.train.Saver().save(sess, os.path.join(ckpt, "m"), write_meta_graph=False)
        (name,) = os.listdir(logdir)
        assert [e.step for e in tf.train.summary_iterator(os.path.join(logdir, name))] == [0, 1, 2]
        writer.close()


@pytest.mark.parametrize("use_resource", [False, True])
def test_slots_of_a_partitioned_variable_are_saved_as_one_partitioned_slot(tmp_path: os.PathLike,
                                                                             use_resource: bool) -> None:
    """TF's slot_creator gives each part's slot the part's slice of `<full name>/<slot>`: the checkpoint holds
    `p/pv/Adam` [4, 2], not `p/pv/part_0/Adam` (keys recorded from TF 2.21)."""
    with tf.Graph().as_default():
        with tf.variable_scope("p", partitioner=tf.fixed_size_partitioner(2), use_resource=use_resource):
            pv = tf.get_variable("pv", [4, 2], initializer=tf.ones_initializer())
        opt = tf.train.AdamOptimizer(0.1)
        train = opt.minimize(tf.reduce_sum(tf.nn.embedding_lookup(pv, [0, 3])))
        info = opt.get_slot(list(pv)[1], "m")._save_slice_info
        assert (info.full_name, info.full_shape, info.var_offset, info.var_shape) == ("p/pv/Adam", [4, 2], [2, 0],
                                                                                      [2, 2])
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = saver.save(sess, os.path.join(tmp_path, "m"))
        assert tf.train.list_variables(path) == [("beta1_power", []), ("beta2_power", []), ("p/pv", [4, 2]),
                                                 ("p/pv/Adam", [4, 2]), ("p/pv/Adam_1", [4, 2])]
        with tf.Session() as sess:
            saver.restore(sess, path)
            np.testing.assert_allclose(sess.run(tf.concat(list(pv), 0))[:, 0], [0.9, 1, 1, 0.9], rtol=1e-6)


def test_partitioned_and_resource_variables_save_and_restore_nodes_as_tf(tmp_path: os.PathLike) -> None:
    """TF saves a ref shard's `read` snapshot, reads a resource shard (DisableCopyOnRead, then a CPU copy) in
    the save scope, and restores a resource variable through an Identity on the variable's device (nodes
    recorded from TF 2.21)."""
    with tf.Graph().as_default() as g:
        with tf.device("/cpu:0"):
            with tf.variable_scope("r", partitioner=tf.fixed_size_partitioner(2)):
                ref = tf.get_variable("p", [4, 2], initializer=tf.ones_initializer())
            with tf.variable_scope("s", partitioner=tf.fixed_size_partitioner(2), use_resource=True):
                res = tf.get_variable("p", [4, 2], initializer=tf.ones_initializer())
        saver = tf.train.Saver()
        save = g.get_operation_by_name("save/SaveV2")
        assert [t.name for t in save.inputs[3:]] == ["r/p/part_0/read:0", "r/p/part_1/read:0", "save/Identity_1:0",
                                                     "save/Identity_3:0"]
        assert [(op.name, op.type, op.device) for op in g.get_operations() if op.name.startswith("save/Read")] == [
            ("save/Read/DisableCopyOnRead", "DisableCopyOnRead", "/device:CPU:0"),
            ("save/Read/ReadVariableOp", "ReadVariableOp", "/device:CPU:0"),
            ("save/Read_1/DisableCopyOnRead", "DisableCopyOnRead", "/device:CPU:0"),
            ("save/Read_1/ReadVariableOp", "ReadVariableOp", "/device:CPU:0")]
        assign = g.get_operation_by_name("save/AssignVariableOp")
        assert ([t.name for t in assign.inputs], assign.device) == (["s/p/part_0:0", "save/Identity_4:0"],
                                                                   "/device:CPU:0")
        assert g.get_operation_by_name("save/Identity_4").device == "/device:CPU:0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, os.path.join(tmp_path, "m"))
            sess.run([v.assign(v * 3) for v in list(ref) + list(res)])
            saver.restore(sess, path)
            assert sess.run(tf.concat(list(res), 0)).tolist() == [[1.0, 1.0]] * 4
            assert sess.run(tf.concat(list(ref), 0)).tolist() == [[1.0, 1.0]] * 4
        assert tf.train.list_variables(path) == [("r/p", [4, 2]), ("s/p", [4, 2])]


def test_save_creates_only_the_prefix_directory_as_tf(tmp_path: os.PathLike) -> None:
    """TF's bundle writer makes the prefix's own directory but not its parents; the Saver turns the NotFound
    into its ValueError, and a sharded save (prefix `<path>_temp/part-*`) needs `<path>`'s directory."""
    root = os.fspath(tmp_path)
    with tf.Graph().as_default():
        v = tf.Variable([1.0], name="v")
        with tf.Session() as sess:
            sess.run(v.initializer)
            with pytest.raises(errors.NotFoundError, match=f"{root}/b/c; No such file or directory"):
                sess.run(tf.raw_ops.SaveV2(prefix=os.path.join(root, "b/c/m"), tensor_names=["v"],
                                           shape_and_slices=[""], tensors=[v]))
            tf.train.Saver().save(sess, os.path.join(root, "a", "m"))
            for saver, prefix in [(tf.train.Saver(), "q/r/m"), (tf.train.Saver(sharded=True), "x/m")]:
                with pytest.raises(ValueError, match=f"Parent directory of {root}/{prefix} doesn't exist, can't "
                                                     "save.$"):
                    saver.save(sess, os.path.join(root, prefix))
    assert sorted(os.listdir(root)) == ["a"]


def test_export_meta_graph_clear_extraneous_savers_as_tf(tmp_path: os.PathLike) -> None:
    """Node and collection lists recorded from TF 2.21: only the exporting Saver's scope stays, and the
    savers collection holds that Saver alone, which import_meta_graph rebuilds as a Saver."""
    with tf.Graph().as_default():
        with tf.name_scope("outer"):
            v = tf.Variable(1.0, name="v")
        first = tf.train.Saver([v])
        mine = tf.train.Saver([v], name="mine", write_version=tf.train.SaverDef.V1)
        tf.add_to_collection(tf.GraphKeys.SAVERS, first)
        tf.add_to_collection(tf.GraphKeys.SAVERS, mine)
        meta = mine.export_meta_graph(clear_extraneous_savers=True)
        assert sorted(n.name for n in meta.graph_def.node) == [
            "mine/Assign", "mine/Const", "mine/RestoreV2", "mine/RestoreV2/shape_and_slices",
            "mine/RestoreV2/tensor_names", "mine/control_dependency", "mine/filename", "mine/filename/input",
            "mine/restore_all", "mine/save", "mine/save/shapes_and_slices", "mine/save/tensor_names", "outer/v",
            "outer/v/Assign", "outer/v/initial_value", "outer/v/read"]
        assert [tf.train.SaverDef.FromString(x).restore_op_name for x in meta.collection_def["savers"].bytes_list.value] == [
            "mine/restore_all"]
        scoped = tf.train.export_meta_graph(saver_def=first.saver_def, clear_extraneous_savers=True,
                                            export_scope="outer")
        assert sorted(n.name for n in scoped.graph_def.node) == ["v", "v/Assign", "v/initial_value", "v/read"]
        assert not scoped.collection_def["savers"].bytes_list.value  # the Saver lies outside the scope
        first.export_meta_graph(f"{tmp_path}/x.meta", clear_extraneous_savers=True)
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(f"{tmp_path}/x.meta")
        assert saver.saver_def.restore_op_name == "save/restore_all"
        assert [type(x).__name__ for x in tf.get_collection("savers")] == ["Saver"]
