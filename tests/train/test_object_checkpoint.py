"""Object-based checkpoints (`tf.train.Checkpoint`, `CheckpointManager`) as TF 2.21's CheckpointV1 writes them
in graph mode: the same keys, the same TrackableObjectGraph bytes, each side restoring the other's files.

tests/fixtures/tf_object_checkpoint/ckpt-1 was written by TF 2.21 (`tf.compat.v1`, graph mode) running
`_model()` below, one Adam step, then `ckpt.save(dir + "/ckpt", session=sess)`. Expected values and
messages are literals printed by TF 2.21 on the same programs.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.formats.protos import TrackableObjectGraph

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "tf_object_checkpoint", "ckpt-1")

_KEYS = [
    "_CHECKPOINTABLE_OBJECT_GRAPH",
    "mod/lst/0/.ATTRIBUTES/VARIABLE_VALUE",
    "mod/lst/0/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
    "mod/lst/0/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE",
    "model_var/.ATTRIBUTES/VARIABLE_VALUE",
    "model_var/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
    "model_var/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/beta1_power/.ATTRIBUTES/VARIABLE_VALUE",
    "optimizer/beta2_power/.ATTRIBUTES/VARIABLE_VALUE",
    "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
    "step/.ATTRIBUTES/VARIABLE_VALUE",
]


def _model(w0: list, b0: list, step0: int) -> tuple:
    """A ref and a resource variable, Adam's slots and non-slot variables, a Module holding a list and a dict."""
    step = tf.Variable(step0, dtype=tf.int64, name="step", use_resource=False)
    w = tf.Variable(w0, name="w", use_resource=False)
    b = tf.get_variable("b", initializer=b0, use_resource=True)
    loss = tf.reduce_sum(tf.square(tf.matmul(w, tf.reshape(b, [2, 1]))))
    opt = tf.train.AdamOptimizer(0.1)
    mod = tf.Module()
    mod.v = w
    mod.lst = [b, step]
    mod.d = {"x": w}
    ckpt = tf.train.Checkpoint(step=step, optimizer=opt, model_var=w, mod=mod)
    return ckpt, opt, loss, (step, w, b)


def test_writes_tfs_keys_and_object_graph(tmp_path):
    with tf.Graph().as_default():
        ckpt, opt, loss, (_, w, b) = _model([[1.0, 2.0], [3.0, 4.0]], [0.5, -0.5], 0)
        train = opt.minimize(loss, var_list=[w, b])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    assert path == str(tmp_path / "ckpt-1")
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    assert (tmp_path / "checkpoint").read_text() == 'model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_paths: "ckpt-1"\n'
    assert [k for k, _ in tf.train.list_variables(path)] == _KEYS
    ours, theirs = tf.train.load_checkpoint(path), tf.train.load_checkpoint(FIXTURE)
    assert ours.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH") == theirs.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH")
    for key in _KEYS[1:]:
        np.testing.assert_allclose(ours.get_tensor(key), theirs.get_tensor(key), rtol=1e-6)
    graph = TrackableObjectGraph.FromString(ours.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"))
    assert [(c.local_name, c.node_id) for c in graph.nodes[0].children] == [
        ("mod", 1), ("model_var", 2), ("optimizer", 3), ("step", 4), ("save_counter", 5)]
    assert [(s.original_variable_node_id, s.slot_name, s.slot_variable_node_id)
            for s in graph.nodes[3].slot_variables] == [(2, "m", 11), (10, "m", 12), (2, "v", 13), (10, "v", 14)]
    assert graph.nodes[11].attributes[0].full_name == "w/Adam"


def test_restores_a_checkpoint_tf_wrote_and_trains_on():
    with tf.Graph().as_default():
        ckpt, opt, loss, (step, w, b) = _model(tf.zeros([2, 2]), [0.0, 0.0], 7)
        status = ckpt.restore(FIXTURE)
        train = opt.minimize(loss, var_list=[w, b])  # slots made after restore() are still matched
        status.assert_consumed()
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            got = sess.run([step, w, b, opt.get_slot(w, "m"), opt.get_slot(b, "v"), ckpt.save_counter])
            sess.run(train)
            after = sess.run([w, b])
    expected = [0, [[1.0999999, 1.9000001], [3.1, 3.9]], [0.59999996, -0.4], [[-0.05000001, 0.05000001]] * 2,
                [0.01599979, 0.03599954], 1]
    for value, want in zip(got, expected):
        np.testing.assert_allclose(value, want, rtol=1e-6)
    np.testing.assert_allclose(after[0], [[1.1825278, 1.8220745], [3.1108735, 3.8718128]], rtol=1e-6)
    np.testing.assert_allclose(after[1], [0.6337515, -0.35942692], rtol=1e-6)


def test_write_escapes_names_and_load_status_asserts(tmp_path):
    with tf.Graph().as_default():
        a = tf.Variable([1.0, 2.0], name="a")
        b = tf.Variable(3, name="b", use_resource=True)
        holder = tf.Module()
        holder.items = {"x/y.z": a}
        ck = tf.train.Checkpoint(h=holder, b=b)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ck.write(str(tmp_path / "sub" / "w"), session=sess)  # write: no number, no state file
        assert path == str(tmp_path / "sub" / "w") and not (tmp_path / "sub" / "checkpoint").exists()
        assert [k for k, _ in tf.train.list_variables(path)] == [
            "_CHECKPOINTABLE_OBJECT_GRAPH", "b/.ATTRIBUTES/VARIABLE_VALUE", "h/items/x.Sy..z/.ATTRIBUTES/VARIABLE_VALUE"]

        a2, c2 = tf.Variable([0.0, 0.0], name="a2"), tf.Variable(7.0, name="c2")
        h2 = tf.Module()
        h2.items = {"x/y.z": a2}
        status = tf.train.Checkpoint(h=h2, c=c2).restore(path)
        for check in (status.assert_existing_objects_matched, status.assert_consumed):
            with pytest.raises(AssertionError, match="^Found 2 Python objects that were not bound to checkpointed "
                                                     "values, likely due to changes in the Python program. Showing "
                                                     "2 of 2 unmatched objects"):
                check()
        status.assert_nontrivial_match()
        with tf.Session() as sess:
            status.expect_partial().initialize_or_restore(sess)  # restores a2, initializes c2 and save_counter
            np.testing.assert_equal(sess.run([a2, c2]), [[1.0, 2.0], 7.0])

        status = tf.train.Checkpoint(h=h2, b=tf.Variable(0, name="b3", use_resource=True)).restore(path)
        with pytest.raises(AssertionError, match="Showing 1 of 1 unmatched objects: .*save_counter"):
            status.assert_existing_objects_matched()



def test_restore_none_only_initializes_and_name_based_checkpoints_fall_back(tmp_path):
    with tf.Graph().as_default():
        a, c = tf.Variable([1.0, 2.0], name="a"), tf.Variable(7.0, name="c")
        status = tf.train.Checkpoint(a=a, c=c).restore(None)
        assert type(status).__name__ == "InitializationOnlyStatus"
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            np.testing.assert_equal(sess.run([a, c]), [[1.0, 2.0], 7.0])
            with pytest.raises(AssertionError, match=r"^No checkpoint specified, so no restore ops are available "
                                                     r"\(save_path=None to Saver.restore\).$"):
                status.run_restore_ops(sess)
            with pytest.raises(AssertionError, match=r"^No checkpoint specified \(save_path=None\); nothing is "
                                                     "being restored.$"):
                status.assert_consumed()
            saved = tf.train.Saver([a]).save(sess, str(tmp_path / "names"))
        status = tf.train.Checkpoint(v=a).restore(saved)
        with pytest.raises(AssertionError, match="^Object not restored: <"):
            status.assert_consumed()
        with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="save_counter"):
            status.run_restore_ops(sess)  # as in TF: the Checkpoint's own save_counter has no entry by name


def test_layers_and_nested_checkpoints_are_tracked(tmp_path):
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0, 3.0]])
        dense, bn = tf.layers.Dense(2), tf.layers.BatchNormalization()
        bn(dense(x), training=True)
        inner = tf.train.Checkpoint(dense=dense)
        ck = tf.train.Checkpoint(bn=bn, inner=inner)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ck.save(str(tmp_path / "c"), session=sess)
        assert [k for k, _ in tf.train.list_variables(path)][1:] == [
            "bn/beta/.ATTRIBUTES/VARIABLE_VALUE", "bn/gamma/.ATTRIBUTES/VARIABLE_VALUE",
            "bn/moving_mean/.ATTRIBUTES/VARIABLE_VALUE", "bn/moving_variance/.ATTRIBUTES/VARIABLE_VALUE",
            "inner/dense/bias/.ATTRIBUTES/VARIABLE_VALUE", "inner/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE",
            "save_counter/.ATTRIBUTES/VARIABLE_VALUE"]
        with pytest.raises(ValueError, match="^`Checkpoint` was expecting a trackable object"):
            tf.train.Checkpoint(a=3)


def test_checkpoint_manager_numbers_keeps_and_records(tmp_path):
    d = str(tmp_path)
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        x = tf.Variable([1.0, -2.0], name="x")
        opt = tf.train.MomentumOptimizer(0.1, 0.9)
        train = opt.minimize(tf.reduce_sum(tf.square(x)), global_step=gs)
        ckpt = tf.train.Checkpoint(optimizer=opt, x=x, gs=gs, nested={"l": [x]})
        mgr = tf.train.CheckpointManager(ckpt, d, max_to_keep=2, checkpoint_name="model")
        assert (mgr.latest_checkpoint, mgr.checkpoints, mgr.directory, mgr.checkpoint_interval) == (None, [], d, None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            kept = []
            for _ in range(4):
                sess.run(train)
                mgr.save()
                kept.append([os.path.basename(c) for c in mgr.checkpoints])
            assert kept == [["model-1"], ["model-1", "model-2"], ["model-2", "model-3"], ["model-3", "model-4"]]
            assert mgr.save(checkpoint_number=gs) == os.path.join(d, "model-4")  # numbered by the step tensor
            assert sorted(os.listdir(d)) == ["checkpoint", "model-3.data-00000-of-00001", "model-3.index",
                                             "model-4.data-00000-of-00001", "model-4.index"]
            state = tf.train.get_checkpoint_state(d)
            assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == ["model-3", "model-4"]
            assert len(state.all_model_checkpoint_timestamps) == 2
            assert sess.run(ckpt.save_counter) == 5
            sess.run(train)
            ckpt.restore(mgr.latest_checkpoint).assert_consumed().run_restore_ops(sess)
            got = sess.run([x, gs, opt.get_slot(x, "momentum")])
        np.testing.assert_allclose(got[0], [-0.3086, 0.6172], rtol=1e-4)
        assert got[1] == 4
        np.testing.assert_allclose(got[2], [3.706, -7.412], rtol=1e-4)
        again = tf.train.CheckpointManager(ckpt, d, max_to_keep=3, checkpoint_name="model")
        assert again.latest_checkpoint == os.path.join(d, "model-4")
        assert [os.path.basename(c) for c in again.checkpoints] == ["model-3", "model-4"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = tf.train.Checkpoint(optimizer=opt, x=x, gs=gs).save(os.path.join(d, "u"), session=sess)
        with pytest.raises(AssertionError, match="^Unresolved object in checkpoint \\(root\\).optimizer's state "
                                                 "'momentum' for \\(root\\).x: attributes {\n  name: \"VARIABLE_VALUE\"\n"
                                                 "  full_name: \"x/Momentum\"\n"):
            tf.train.Checkpoint(x=x, gs=gs).restore(path).assert_consumed()
        with pytest.raises(AssertionError, match=r"^Unresolved object in checkpoint \(root\).x: attributes"):
            tf.train.Checkpoint(optimizer=opt, gs=gs).restore(path).assert_consumed()
        with pytest.raises(ValueError, match=r"^Expected a positive integer or `None` for `max_to_keep`, got 0.$"):
            tf.train.CheckpointManager(ckpt, d, max_to_keep=0)
        with pytest.raises(ValueError, match="^`step_counter` should be passed if `checkpoint_interval` is not None.$"):
            tf.train.CheckpointManager(ckpt, d, max_to_keep=1, checkpoint_interval=5)


def test_checkpoint_manager_interval_and_restore_or_initialize(tmp_path):
    with tf.Graph().as_default():
        step = tf.Variable(0, dtype=tf.int64, name="step")
        ckpt = tf.train.Checkpoint(step=step)
        calls = []
        mgr = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None, step_counter=step,
                                         checkpoint_interval=3, init_fn=lambda: calls.append(1))
        assert mgr.restore_or_initialize() is None and calls == [1]
        written = []
        with tf.Session() as sess:
            sess.run(step.initializer)
            bump = step.assign_add(1)
            for _ in range(7):
                written.append(mgr.save(checkpoint_number=step))
                sess.run(bump)
            assert mgr.save(check_interval=False) is not None
        assert [os.path.basename(p) if p else None for p in written] == [
            "ckpt-0", None, None, "ckpt-3", None, None, "ckpt-6"]
        assert len(mgr.checkpoints) == 4


def test_a_name_based_saver_reads_an_object_based_checkpoint_as_tf(tmp_path) -> None:
    """TF's Saver falls back to the checkpoint's object graph (saved name -> key) when its names are missing;
    a variable the graph does not know is TF's NotFoundError listing both sides (recorded from TF 2.21)."""
    with tf.Graph().as_default():
        v = tf.Variable([1.5, 2.5], name="myv")
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer(), use_resource=True)
        ckpt = tf.train.Checkpoint(a=v, b=w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = ckpt.save(str(tmp_path / "ck"), session=sess)
    with tf.Graph().as_default():
        v = tf.Variable([0.0, 0.0], name="myv")
        w = tf.get_variable("w", [2], initializer=tf.zeros_initializer(), use_resource=True)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            for _ in range(2):  # the second restore reuses the remapped saver
                saver.restore(sess, path)
                assert [x.tolist() for x in sess.run([v, w])] == [[1.5, 2.5], [1.0, 1.0]]
    with tf.Graph().as_default():
        tf.Variable([0.0, 0.0], name="other")
        with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError) as info:
            tf.train.Saver().restore(sess, path)
    assert info.value.message.startswith(
        "\n\nExisting variables not in the checkpoint: other\n\nVariables names when this checkpoint was written "
        "which don't exist now: myv, save_counter, w\n\n(0 variable name(s) did match)\n\nCould not find some "
        "variables in the checkpoint (see names above).")
