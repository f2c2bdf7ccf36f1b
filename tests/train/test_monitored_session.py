"""MonitoredSession, MonitoredTrainingSession, Scaffold, SessionManager, the hooks and Supervisor, in one
process. Expected call orders, checkpoint steps and event streams were recorded from real TF 2.21 running the
same programs (tf.compat.v1)."""

import glob
import json
import logging
import os
import re
import threading
import time

import numpy as np
import pytest

import tensorweave.compat.v1 as tf
from tensorweave.train import monitored_session


@pytest.fixture(autouse=True)
def _close_cached_writers():
    yield
    tf.summary.FileWriterCache.clear()


class _Recorder(tf.train.SessionRunHook):
    def __init__(self, log, name, fetch=None, feed=None, stop_at=None):
        self.log, self.name, self.fetch, self.feed, self.stop_at = log, name, fetch, feed, stop_at

    def begin(self):
        self.log.append((self.name, "begin"))

    def after_create_session(self, session, coord):
        self.log.append((self.name, "after_create_session", type(coord).__name__))

    def before_run(self, run_context):
        self.log.append((self.name, "before_run"))
        return tf.train.SessionRunArgs(self.fetch, self.feed)

    def after_run(self, run_context, run_values):
        self.log.append((self.name, "after_run", run_values.results, run_context.stop_requested))
        if self.stop_at is not None and run_values.results >= self.stop_at:
            run_context.request_stop()

    def end(self, session):
        self.log.append((self.name, "end"))


def test_hook_call_order_merged_fetches_and_feeds_and_request_stop():
    log = []
    c = tf.Variable(0, name="c")
    inc = tf.assign_add(c, 1)
    p = tf.placeholder(tf.int32, [], name="p")
    q = tf.placeholder(tf.int32, [], name="q")
    hooks = [_Recorder(log, "a", fetch=c, stop_at=2), _Recorder(log, "b", fetch={"pq": p * 10}, feed={p: 3})]
    with tf.train.MonitoredSession(hooks=hooks) as sess:
        assert tf.get_default_graph().finalized
        while not sess.should_stop():
            log.append(("caller", sess.run([inc, q], feed_dict={q: 5})))
        with pytest.raises(RuntimeError, match="^Run called even after should_stop requested.$"):
            sess.run(inc)
    assert not tf.get_default_graph().finalized
    assert log == [
        ("a", "begin"), ("b", "begin"),
        ("a", "after_create_session", "Coordinator"), ("b", "after_create_session", "Coordinator"),
        ("a", "before_run"), ("b", "before_run"),
        ("a", "after_run", 1, False), ("b", "after_run", {"pq": 30}, False),
        ("caller", [1, 5]),
        ("a", "before_run"), ("b", "before_run"),
        ("a", "after_run", 2, False), ("b", "after_run", {"pq": 30}, True),
        ("caller", [2, 5]),
        ("a", "end"), ("b", "end")]


def test_feed_conflicts():
    p = tf.placeholder(tf.int32, [], name="p")
    with tf.train.MonitoredSession(hooks=[_Recorder([], "x", feed={p: 1})]) as sess:
        with pytest.raises(RuntimeError, match=r"^Same tensor is fed by a SessionRunHook and user. Conflict\(s\): "
                                               r"\[<tf.Tensor 'p:0' shape=\(\) dtype=int32>\]$"):
            sess.run(p, feed_dict={p: 2})
    with tf.train.MonitoredSession(hooks=[_Recorder([], "x", feed={p: 1}), _Recorder([], "y", feed={p: 1})]) as sess:
        with pytest.raises(RuntimeError, match=r"^Same tensor is fed by two hooks. Conflict\(s\): "):
            sess.run(p)


def _training_graph():
    gs = tf.train.get_or_create_global_step()
    x = tf.Variable(1.0, name="x")
    loss = tf.square(x)
    tf.summary.scalar("loss", loss)
    return gs, tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=gs)


def _events(logdir):
    rows = []
    for event in tf.train.summary_iterator(glob.glob(os.path.join(logdir, "events*"))[0]):
        kind = event.WhichOneof("what")
        detail = None
        if kind == "summary":
            detail = [(v.tag, round(v.simple_value, 4) if v.tag == "loss" else None) for v in event.summary.value]
        elif kind == "session_log":
            detail = (event.session_log.status, os.path.basename(event.session_log.checkpoint_path))
        rows.append((event.step, kind, detail))
    return rows


def test_monitored_training_session_checkpoints_summaries_and_restore(tmp_path):
    d = str(tmp_path)
    gs, train = _training_graph()
    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=3, save_summaries_steps=2,
                                           log_step_count_steps=4, hooks=[tf.train.StopAtStepHook(last_step=7)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert _events(d) == [
        (0, "file_version", None), (0, "graph_def", None), (0, "meta_graph_def", None), (0, "graph_def", None),
        (0, "meta_graph_def", None), (0, "session_log", (3, "model.ckpt")), (1, "session_log", (1, "")),
        (1, "summary", [("loss", 1.0)]), (3, "summary", [("loss", 0.4096)]), (3, "session_log", (3, "model.ckpt")),
        (5, "summary", [("global_step/sec", None)]), (5, "summary", [("loss", 0.1678)]),
        (6, "session_log", (3, "model.ckpt")), (7, "summary", [("loss", 0.0687)])]
    state = tf.train.get_checkpoint_state(d)
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-0", "model.ckpt-3", "model.ckpt-6", "model.ckpt-7"]
    assert os.path.exists(os.path.join(d, "graph.pbtxt"))

    steps = []
    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, save_checkpoint_steps=3,
                                           hooks=[tf.train.StopAtStepHook(num_steps=2)]) as sess:
        steps.append(sess.run(gs))  # restored, not initialized
        while not sess.should_stop():
            steps.append(sess.run([train, gs])[1])
    assert steps == [7, 8, 9]
    assert sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "*.index"))) == [
        "model.ckpt-0.index", "model.ckpt-3.index", "model.ckpt-6.index", "model.ckpt-7.index", "model.ckpt-9.index"]
    np.testing.assert_allclose(tf.train.load_variable(d, "x"), 0.8 ** 9, rtol=1e-6)


def test_out_of_range_ends_the_with_block_cleanly_and_run_step_fn():
    dataset = tf.data.Dataset.range(3)
    next_element = tf.data.make_one_shot_iterator(dataset).get_next()
    seen = []
    with tf.train.MonitoredSession() as sess:
        while not sess.should_stop():
            seen.append(sess.run(next_element))
    assert seen == [0, 1, 2]

    tf.reset_default_graph()
    c = tf.Variable(0)
    inc = tf.assign_add(c, 1)
    calls = []

    def step_fn(step_context):
        value = step_context.run_with_hooks(inc)
        calls.append((value, step_context.session.run(c)))
        if value == 2:
            step_context.request_stop()
        return value

    with tf.train.MonitoredSession() as sess:
        assert sess.run_step_fn(step_fn) == 1
        sess.run_step_fn(step_fn)
        assert sess.should_stop() is False  # StopIteration leaves the with block
    assert calls == [(1, 1), (2, 2)]
    with tf.train.MonitoredSession() as sess, pytest.raises(ValueError, match="`step_fn` may either have one"):
        sess.run_step_fn(lambda ctx: None)


class _FlakyCreator(tf.train.SessionCreator):
    """A chief session creator whose first session's runs fail once as a restarted task makes them fail."""

    def __init__(self, error):
        self.created = 0
        self.error = error
        self._creator = tf.train.ChiefSessionCreator()

    def create_session(self):
        self.created += 1
        session = self._creator.create_session()
        if self.created == 1:
            error, run = self.error, session.run

            def failing_run(*args, **kwargs):
                session.run = run
                raise error

            session.run = failing_run
        return session


@pytest.mark.parametrize("error", [tf.errors.AbortedError(None, None, "worker restarted"),
                                   tf.errors.UnavailableError(None, None, "ps is gone")])
def test_recoverable_session_recreates_the_session(error):
    c = tf.Variable(5)
    log = []
    creator = _FlakyCreator(error)
    with tf.train.MonitoredSession(session_creator=creator, hooks=[_Recorder(log, "h")]) as sess:
        assert sess.run(c) == 5
    assert creator.created == 2
    assert [entry[1] for entry in log] == ["begin", "after_create_session", "before_run", "after_create_session",
                                          "before_run", "after_run", "end"]
    tf.reset_default_graph()
    c = tf.Variable(5)
    with tf.train.SingularMonitoredSession(hooks=[]) as sess:
        assert sess.raw_session().run(c) == 5
    creator = _FlakyCreator(error)
    session = monitored_session._MonitoredSession(creator, [], should_recover=False)
    with pytest.raises(type(error)):
        session.run(c)
    session.close()


def test_scaffold_defaults_and_errors():
    v = tf.Variable(1.0, name="v")
    tf.Variable(2.0, name="local", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    scaffold = tf.train.Scaffold().finalize()
    assert tf.get_default_graph().finalized
    assert scaffold.init_op is tf.get_collection(tf.GraphKeys.INIT_OP)[0]
    assert scaffold.saver is tf.get_collection(tf.GraphKeys.SAVERS)[0]
    assert scaffold.summary_op is None and scaffold.init_fn is None
    with tf.Session() as sess:
        assert list(sess.run(scaffold.ready_op)) == [b"v", b"local"]
        assert list(sess.run(scaffold.ready_for_local_init_op)) == [b"v"]
        sess.run(scaffold.init_op)
        sess.run(scaffold.local_init_op)
        assert sess.run(scaffold.ready_op).size == 0
    tf.get_default_graph()._unsafe_unfinalize()
    copied = tf.train.Scaffold(copy_from_scaffold=scaffold, init_fn=lambda scaffold, sess: None)
    assert copied.init_op is scaffold.init_op and copied.saver is scaffold.saver and copied.init_fn is not None
    with pytest.raises(TypeError, match="copy_from_scaffold is not a Scaffold instance."):
        tf.train.Scaffold(copy_from_scaffold=object())
    tf.add_to_collection(tf.GraphKeys.SUMMARY_OP, tf.constant("a"))
    tf.add_to_collection(tf.GraphKeys.SUMMARY_OP, tf.constant("b"))
    with pytest.raises(RuntimeError, match='More than one item in the collection "summary_op". Please indicate which '
                                           r"one to use by passing it to the tf.Scaffold constructor as:  "
                                           r"tf.Scaffold\(summary_op=item to use\)"):
        tf.train.Scaffold().finalize()
    del v


def test_session_manager_prepare_recover_and_wait(tmp_path):
    v = tf.Variable(3.0, name="v")
    ready = tf.report_uninitialized_variables()
    saver = tf.train.Saver()
    manager = tf.train.SessionManager(ready_op=ready, recovery_wait_secs=0.01)
    sess, initialized = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert not initialized
    sess.close()
    with pytest.raises(RuntimeError, match="^Model is not initialized and no init_op or init_fn or local_init_op "
                                           "was given$"):
        manager.prepare_session("")
    with pytest.raises(RuntimeError, match="^Init operations did not make model ready.  Init op: None, init fn: "
                                           ".*, local_init_op: None, error: Variables not initialized: v$"):
        manager.prepare_session("", init_fn=lambda sess: None)
    sess = manager.prepare_session("", init_op=v.initializer)
    saver.save(sess, str(tmp_path / "model"), global_step=4)
    sess.close()
    sess, initialized = manager.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
    assert initialized and sess.run(v) == 3.0
    sess.close()
    with pytest.raises(tf.errors.DeadlineExceededError, match="^Session was not ready after waiting 0 secs.$"):
        manager.wait_for_session("", max_wait_secs=0)
    for kwargs in ({}, {"ready_op": ready}):  # TF 2.21 asks for the local_init_op, whatever the ready_op
        with pytest.raises(ValueError, match=re.escape(
                "If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                f"ready_for_local_init_op [{ready}]")):
            tf.train.SessionManager(ready_for_local_init_op=ready, **kwargs)
    tf.train.SessionManager(ready_for_local_init_op=ready, local_init_op=tf.no_op())


def test_logging_tensor_hook_prints_values_as_str_does(caplog):
    """TF logs `str` of the fetched NumPy value: float32 1.6384 reads 1.6384, not its float64 expansion."""
    loss = tf.constant(1.6384, name="loss")
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        with tf.train.MonitoredSession(hooks=[tf.train.LoggingTensorHook({"loss": loss}, every_n_iter=1)]) as sess:
            sess.run(loss)
    assert [r.getMessage() for r in caplog.records if r.getMessage().startswith("loss =")] == ["loss = 1.6384"]


def test_hooks_stop_nan_logging_final_ops_feed_fn(caplog):
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    p = tf.placeholder(tf.float32, [], name="p")
    loss = tf.identity(p, name="loss")
    final = tf.train.FinalOpsHook(gs * 10)
    feeds = iter([1.0, 2.0, 3.0])
    hooks = [tf.train.StopAtStepHook(num_steps=3), final, tf.train.FeedFnHook(lambda: {p: next(feeds)}),
             tf.train.LoggingTensorHook({"loss": "loss", "step": gs}, every_n_iter=2),
             tf.train.NanTensorHook(loss)]
    values = []
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        with tf.train.MonitoredSession(hooks=hooks) as sess:
            while not sess.should_stop():
                values.append(sess.run([inc, loss]))
    assert values == [[1, 1.0], [2, 2.0], [3, 3.0]]
    assert final.final_ops_values == 30
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("loss =")]
    assert len(logged) == 2 and logged[0] == "loss = 1.0, step = 1" and logged[1].startswith("loss = 3.0, step = 3 (")

    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss)]) as sess:
        with pytest.raises(tf.train.NanLossDuringTrainingError, match="^NaN loss during training.$"):
            sess.run(loss, {p: np.nan})
    with tf.train.MonitoredSession(hooks=[tf.train.NanTensorHook(loss, fail_on_nan_loss=False)]) as sess:
        sess.run(loss, {p: np.nan})
        assert sess.should_stop()

    with pytest.raises(ValueError, match="^One of num_steps or last_step must be specified.$"):
        tf.train.StopAtStepHook()
    with pytest.raises(ValueError, match="^Only one of num_steps or last_step can be specified.$"):
        tf.train.StopAtStepHook(1, 2)
    with pytest.raises(ValueError, match="^either at_end and/or exactly one of every_n_iter and every_n_secs must be "
                                         "provided.$"):
        tf.train.LoggingTensorHook([loss])
    with pytest.raises(ValueError, match="^Exactly one of scaffold or summary_op must be provided.$"):
        tf.train.SummarySaverHook(save_steps=1)


def test_second_or_step_timer():
    timer = tf.train.SecondOrStepTimer(every_steps=3)
    assert timer.should_trigger_for_step(0) and timer.last_triggered_step() is None
    assert timer.update_last_triggered_step(0) == (None, None)
    assert [timer.should_trigger_for_step(s) for s in range(5)] == [False, False, False, True, True]
    elapsed_secs, elapsed_steps = timer.update_last_triggered_step(4)
    assert elapsed_steps == 4 and elapsed_secs >= 0
    with pytest.raises(ValueError, match="^Either every_secs or every_steps should be provided.$"):
        tf.train.SecondOrStepTimer()
    with pytest.raises(ValueError, match="^Can not provide both every_secs and every_steps.$"):
        tf.train.SecondOrStepTimer(1, 1)


def test_profiler_hook_writes_chrome_timelines(tmp_path):
    gs = tf.train.get_or_create_global_step()
    x = tf.Variable([1.0, 2.0])
    train = tf.group(tf.assign_add(x, [1.0, 1.0]), tf.assign_add(gs, 1))
    hook = tf.train.ProfilerHook(save_steps=2, output_dir=str(tmp_path))
    with tf.train.MonitoredSession(hooks=[hook, tf.train.StopAtStepHook(last_step=5)]) as sess:
        while not sess.should_stop():
            sess.run(train)
    assert sorted(os.listdir(tmp_path))[1:] == ["timeline-2.json", "timeline-4.json"]
    trace = json.loads((tmp_path / "timeline-2.json").read_text())
    assert any(e.get("ph") == "X" and e["name"] == "AssignAdd" for e in trace["traceEvents"])
    tf.summary.FileWriterCache.clear()
    tagged = [e.tagged_run_metadata.tag for e in tf.train.summary_iterator(glob.glob(str(tmp_path / "events*"))[0])
              if e.WhichOneof("what") == "tagged_run_metadata"]
    assert tagged == ["step_2", "step_4"]


def test_checkpoint_saver_listener_and_secs(tmp_path):
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    calls = []

    class Listener(tf.train.CheckpointSaverListener):
        def begin(self):
            calls.append("begin")

        def before_save(self, session, global_step_value):
            calls.append(("before_save", global_step_value))

        def after_save(self, session, global_step_value):
            calls.append(("after_save", global_step_value))
            return global_step_value >= 4

        def end(self, session, global_step_value):
            calls.append(("end", global_step_value))

    hook = tf.train.CheckpointSaverHook(str(tmp_path), save_steps=2, listeners=[Listener()])
    tf.train.Saver()
    steps = 0
    with tf.train.MonitoredSession(hooks=[hook]) as sess:
        while not sess.should_stop():
            sess.run(inc)
            steps += 1
    assert steps == 4
    assert calls == ["begin", ("before_save", 0), ("after_save", 0), ("before_save", 2), ("after_save", 2),
                     ("before_save", 4), ("after_save", 4), ("end", 4)]
    with pytest.raises(ValueError, match="^You cannot provide both saver and scaffold.$"):
        tf.train.CheckpointSaverHook(str(tmp_path), save_secs=1, saver=object(), scaffold=object())


def test_supervisor_managed_session_and_basic_train_loop(tmp_path):
    gs = tf.train.get_or_create_global_step()
    v = tf.Variable(0.0, name="v")
    tf.summary.scalar("v", v)
    train = tf.group(tf.assign_add(v, 1.0), tf.assign_add(gs, 1))
    logdir = str(tmp_path)
    sv = tf.train.Supervisor(logdir=logdir, save_summaries_secs=0, save_model_secs=0)
    assert tf.get_default_graph().finalized and sv.is_chief and sv.global_step is gs
    with sv.managed_session() as sess:
        for _ in range(3):
            sess.run(train)
        sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
        sv.summary_computed(sess, sess.run(sv.summary_op))
    assert sv.should_stop()
    status = [(e.step, e.session_log.status) for e in tf.train.summary_iterator(glob.glob(logdir + "/events*")[0])
              if e.WhichOneof("what") == "session_log"]
    assert status == [(0, 1), (0, 2)]  # START at step 0, STOP
    assert os.path.exists(os.path.join(logdir, "graph.pbtxt"))

    def step(sess):
        if sess.run(gs) >= 5:
            sv.request_stop()
        else:
            sess.run(train)

    tf.train.basic_train_loop(sv, step)  # restored at step 3
    with sv.managed_session() as sess:
        assert sess.run([gs, v]) == [3, 3.0]  # nothing saved since: the checkpoint of step 3 again
    with pytest.raises(ValueError, match="Cannot feed value of shape"), sv.managed_session() as sess:
        sess.run(tf.get_default_graph().get_tensor_by_name("v:0"), {gs: [1, 2]})


def test_global_step_waiter_logging_at_end_and_summary_op_hooks(tmp_path, monkeypatch, caplog):
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    loss = tf.cast(gs, tf.float32) * 2.0
    summary = tf.summary.scalar("twice", loss)
    noop = tf.no_op()
    monkeypatch.setattr(tf.train.GlobalStepWaiterHook, "_POLL_SECS", 0.01)
    threads = []

    class Chief(tf.train.SessionRunHook):
        """Moves the global step on in another thread, as a chief would while this worker waits."""

        def after_create_session(self, session, coord):
            threads.append(threading.Thread(target=lambda: [session.run(inc) for _ in range(3)]))
            threads[0].start()

    hooks = [Chief(), tf.train.GlobalStepWaiterHook(wait_until_step=3),
             tf.train.LoggingTensorHook({"loss": loss}, at_end=True, formatter=lambda v: f"final loss {v['loss']}"),
             tf.train.SummarySaverHook(save_steps=1, output_dir=str(tmp_path), summary_op=summary)]
    with caplog.at_level(logging.INFO, logger="tensorflow"), tf.train.MonitoredSession(hooks=hooks) as sess:
        sess.run(noop)
        threads[0].join()
        assert sess.run(gs) == 3
    assert "final loss 6.0" in [r.getMessage() for r in caplog.records]
    tf.summary.FileWriterCache.clear()
    events = [(e.step, e.WhichOneof("what")) for e in tf.train.summary_iterator(glob.glob(str(tmp_path / "events*"))[0])]
    assert events == [(0, "file_version"), (0, "graph_def"), (0, "meta_graph_def"), (3, "session_log"), (3, "summary"),
                      (3, "summary")]


def test_supervisor_summary_and_checkpoint_threads(tmp_path):
    gs = tf.train.get_or_create_global_step()
    v = tf.Variable(1.0, name="v")
    tf.summary.scalar("value", v)
    inc = tf.assign_add(gs, 1)
    sv = tf.train.Supervisor(logdir=str(tmp_path), save_summaries_secs=0.05, save_model_secs=0.05)
    with sv.managed_session() as sess:
        sess.run(inc)
        deadline = time.monotonic() + 10
        while not str(tf.train.latest_checkpoint(str(tmp_path))).endswith("-1") and time.monotonic() < deadline:
            time.sleep(0.01)
    assert os.path.basename(tf.train.latest_checkpoint(str(tmp_path))) == "model.ckpt-1"
    tags = {v.tag for e in tf.train.summary_iterator(glob.glob(str(tmp_path / "events*"))[0])
            if e.WhichOneof("what") == "summary" for v in e.summary.value}
    assert tags == {"value", "global_step/sec"}
    tf.reset_default_graph()
    tf.Variable(1.0, name="unplaced")
    with pytest.raises(ValueError, match="^When using replicas, all Variables must have their device set: "):
        tf.train.Supervisor(is_chief=False)
    tf.reset_default_graph()
    with pytest.raises(RuntimeError, match="^Only chief supervisor can start standard services."):
        tf.train.Supervisor(is_chief=False, logdir=str(tmp_path)).start_standard_services(None)


def test_scaffold_default_ops_are_built_as_tfs():
    """TF 2.21's Scaffold concatenates the variables' and resources' reports and groups the resources' and
    tables' initializers: the op names a printed graph shows."""
    with tf.Graph().as_default() as g:
        tf.Variable(1.0, name="v")
        scaffold = tf.train.Scaffold()
        scaffold.finalize()
        assert scaffold.ready_op.name == "concat:0" and scaffold.ready_for_local_init_op.name == "concat_1:0"
        assert scaffold.init_op.name == "group_deps" and scaffold.local_init_op.name == "group_deps_1"
        names = [op.name for op in g.get_operations()]
        assert names[names.index("init"):names.index("init") + 3] == ["init", "init_1", "group_deps"]
        assert {"report_uninitialized_resources/Const", "report_uninitialized_resources_1/Const", "init_2",
                "init_all_tables", "init_3"} <= set(names)


def test_summary_saver_hook_summary_reads_the_global_step_before_the_train_op_updates_it(tmp_path):
    """The summary fetched beside the train op sees the global step before this step's increment (TF's
    event file: step 1 holds 0.0, step 3 holds 2.0)."""
    gs = tf.train.get_or_create_global_step()
    inc = tf.assign_add(gs, 1)
    summary = tf.summary.scalar("gsv", tf.cast(gs, tf.float32))
    hook = tf.train.SummarySaverHook(save_steps=2, output_dir=str(tmp_path), summary_op=summary)
    with tf.train.SingularMonitoredSession(hooks=[hook]) as sess:
        for _ in range(4):
            sess.run(inc)
    (events,) = tmp_path.iterdir()
    values = [(e.step, v.simple_value) for e in tf.train.summary_iterator(str(events)) for v in e.summary.value]
    assert values == [(1, 0.0), (3, 2.0)]
