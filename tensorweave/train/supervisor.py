"""`tf.train.Supervisor`: TF1's older training-loop helper, and `tf.train.basic_train_loop`.

A Supervisor picks the model's ops from the graph collections (or makes TF's defaults), finalizes the graph
and, through a SessionManager, gives the chief a restored-or-initialized session and the other workers one
that waits for the chief. The chief's "standard services" are looper threads on the supervisor's
Coordinator: summaries and steps per second every `save_summaries_secs`, a checkpoint every
`save_model_secs`. `managed_session` stops them, writes the STOP log and closes the session on exit.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from tensorweave import errors
from tensorweave.client.session import Session
from tensorweave.formats.protos import SessionLog, Summary
from tensorweave.framework import dtypes
from tensorweave.framework.graph import GraphKeys, get_default_graph
from tensorweave.framework.graph_io import write_graph
from tensorweave.framework.meta_graph import create_meta_graph_def
from tensorweave.ops import control_flow_ops, summary_ops, variables
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.summary.writer import FileWriter
from tensorweave.train import coordinator, training_util
from tensorweave.train.saver import Saver
from tensorweave.train.session_manager import SessionManager


@tf_export("train.Supervisor")
class Supervisor:
    """Initialization or recovery, checkpoint and summary threads, and a shared stop flag for training."""

    USE_DEFAULT = 0

    def __init__(self, graph: Any = None, ready_op: Any = USE_DEFAULT, ready_for_local_init_op: Any = USE_DEFAULT,
                 is_chief: bool = True, init_op: Any = USE_DEFAULT, init_feed_dict: dict | None = None,
                 local_init_op: Any = USE_DEFAULT, logdir: str | None = None, summary_op: Any = USE_DEFAULT,
                 saver: Any = USE_DEFAULT, global_step: Any = USE_DEFAULT, save_summaries_secs: float = 120,
                 save_model_secs: float = 600, recovery_wait_secs: float = 30, stop_grace_secs: float = 120,
                 checkpoint_basename: str = "model.ckpt", session_manager: SessionManager | None = None,
                 summary_writer: Any = USE_DEFAULT, init_fn: Callable | None = None,
                 local_init_run_options: Any = None) -> None:
        if graph is None:
            graph = get_default_graph()
        self._graph = graph
        with graph.as_default():
            self._init_ready_op(ready_op, ready_for_local_init_op)
            self._init_init_op(init_op, init_feed_dict)
            self._init_local_init_op(local_init_op)
            self._init_saver(saver)
            self._init_summary_op(summary_op)
            self._init_global_step(global_step)
            self._meta_graph_def = create_meta_graph_def(graph.as_graph_def(add_shapes=True), graph,
                                                         saver_def=self._saver.saver_def if self._saver else None)
        self._is_chief = is_chief
        self._coord = coordinator.Coordinator()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        # only the chief writes checkpoints and events
        self._logdir: str | None = None
        self._save_summaries_secs: float | None = None
        self._save_model_secs: float | None = None
        self._save_path: str | None = None
        self._summary_writer: Any = None
        if self._is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if self._logdir:
                    self._summary_writer = FileWriter(self._logdir)
            else:
                self._summary_writer = summary_writer
            self._graph_added_to_summary = False
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
            recovery_wait_secs=self._recovery_wait_secs, local_init_run_options=self._local_init_run_options)
        self._verify_setup()
        graph.finalize()

    def _get_first_op_from_collection(self, key: str) -> Any:
        op_list = self._graph.get_collection(key)
        if len(op_list) > 1:
            tf_logging.info("Found %d %s operations. Returning the first one.", len(op_list), key)
        return op_list[0] if op_list else None

    def _init_ready_op(self, ready_op: Any, ready_for_local_init_op: Any) -> None:
        if ready_op is Supervisor.USE_DEFAULT:
            ready_op = self._get_first_op_from_collection(GraphKeys.READY_OP)
            if ready_op is None:
                ready_op = variables.report_uninitialized_variables()
                self._graph.add_to_collection(GraphKeys.READY_OP, ready_op)
        self._ready_op = ready_op
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._get_first_op_from_collection(GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op: Any, init_feed_dict: dict | None) -> None:
        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._get_first_op_from_collection(GraphKeys.INIT_OP)
            if init_op is None:
                init_op = variables.global_variables_initializer()
                self._graph.add_to_collection(GraphKeys.INIT_OP, init_op)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op: Any) -> None:
        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._get_first_op_from_collection(GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                local_init_op = control_flow_ops.group(variables.local_variables_initializer())
                self._graph.add_to_collection(GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver(self, saver: Any) -> None:
        if saver is Supervisor.USE_DEFAULT:
            saver = self._get_first_op_from_collection(GraphKeys.SAVERS)
            if saver is None and variables.global_variables():
                saver = Saver()
                self._graph.add_to_collection(GraphKeys.SAVERS, saver)
        self._saver = saver

    def _init_summary_op(self, summary_op: Any) -> None:
        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._get_first_op_from_collection(GraphKeys.SUMMARY_OP)
            if summary_op is None:
                summary_op = summary_ops.merge_all()
                if summary_op is not None:
                    self._graph.add_to_collection(GraphKeys.SUMMARY_OP, summary_op)
        self._summary_op = summary_op

    def _init_global_step(self, global_step: Any) -> None:
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._get_first_op_from_collection(GraphKeys.GLOBAL_STEP)
            if global_step is None:
                global_step = self._default_global_step_tensor()
                if global_step is not None:
                    self._graph.add_to_collection(GraphKeys.GLOBAL_STEP, global_step)
        self._global_step = global_step

    def _default_global_step_tensor(self) -> Any:
        """The tensor 'global_step:0' when it is an integer, else None."""
        try:
            gs = self._graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
        if gs.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return gs
        tf_logging.warning("Found 'global_step' is not an int type: %s", gs.dtype)
        return None

    def _verify_setup(self) -> None:
        """A non-chief's variables must be placed (on the parameter servers), as TF requires."""
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError(f"When using replicas, all Variables must have their device set: {op}")

    @property
    def is_chief(self) -> bool:
        return self._is_chief

    @property
    def session_manager(self) -> SessionManager:
        return self._session_manager

    @property
    def coord(self) -> coordinator.Coordinator:
        return self._coord

    @property
    def init_op(self) -> Any:
        return self._init_op

    @property
    def init_feed_dict(self) -> dict | None:
        return self._init_feed_dict

    @property
    def ready_op(self) -> Any:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        return self._ready_for_local_init_op

    @property
    def summary_writer(self) -> Any:
        return self._summary_writer

    @property
    def summary_op(self) -> Any:
        return self._summary_op

    @property
    def save_summaries_secs(self) -> float | None:
        return self._save_summaries_secs

    @property
    def global_step(self) -> Any:
        return self._global_step

    @property
    def saver(self) -> Any:
        return self._saver

    @property
    def save_model_secs(self) -> float | None:
        return self._save_model_secs

    @property
    def save_path(self) -> str | None:
        return self._save_path

    def _write_graph(self) -> None:
        if not self._is_chief:
            return
        if self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def start_standard_services(self, sess: Any) -> list[Any] | None:
        """The chief's summary, step-counter and checkpoint threads (started), given a logdir."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only chief supervisors "
                               "can write events.")
        if not self._logdir:
            tf_logging.warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        if self._global_step is not None and self._summary_writer:
            current_step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START), current_step)
        threads: list[coordinator.LooperThread] = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        for thread in threads:
            thread.start()
        return threads

    def prepare_or_wait_for_session(self, master: str = "", config: Any = None, wait_for_checkpoint: bool = False,
                                    max_wait_secs: float = 7200, start_standard_services: bool = True) -> Session:
        """The chief's restored-or-initialized session (with its services started), or a worker's session
        once the model is ready; queue runners started either way."""
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self.init_op, saver=self.saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs, config=config,
                init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                tf_logging.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config, max_wait_secs=max_wait_secs)
        if start_standard_services:
            tf_logging.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess: Any, queue_runners: list | None = None) -> list[Any]:
        """Start the graph's (or the given) queue runners' threads on the supervisor's coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs: float | None, target: Callable, args: Any = None,
             kwargs: Any = None) -> coordinator.LooperThread:
        """Start a thread calling `target` every `timer_interval_secs` until the supervisor stops."""
        return coordinator.LooperThread.loop(self._coord, timer_interval_secs, target, args=args, kwargs=kwargs)

    def stop(self, threads: Any = None, close_summary_writer: bool = True, ignore_live_threads: bool = False) -> None:
        """Stop and join the services (re-raising what they reported) and close the summary writer."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex: Any = None) -> None:
        self._coord.request_stop(ex=ex)

    def should_stop(self) -> bool:
        return self._coord.should_stop()

    def stop_on_exception(self) -> Any:
        return self._coord.stop_on_exception()

    def wait_for_stop(self) -> None:
        self._coord.wait_for_stop()

    def summary_computed(self, sess: Any, summary: Any, global_step: int | None = None) -> None:
        """Write a summary computed by the caller, at the global step by default."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master: str = "", config: Any = None, start_standard_services: bool = True,
                        close_summary_writer: bool = True) -> Iterator[Session]:
        """A prepared session for a `with` block; an exception in the block stops the services and is
        re-raised by `stop` (an OutOfRangeError ends the block cleanly)."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(master=master, config=config,
                                                    start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - reported to the coordinator, which stop() re-raises
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception:  # noqa: BLE001 - closing ends pending calls; its errors do not matter
                        pass

    Loop = loop
    PrepareSession = prepare_or_wait_for_session
    RequestStop = request_stop
    ShouldStop = should_stop
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    StopOnException = stop_on_exception
    SummaryComputed = summary_computed
    WaitForStop = wait_for_stop


class SVSummaryThread(coordinator.LooperThread):
    """Runs the summary op and writes its result every `save_summaries_secs`."""

    def __init__(self, sv: Supervisor, sess: Any) -> None:
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        if self._sv.global_step is not None:
            summary_strs, global_step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary_strs, global_step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer:
            tf_logging.info("Recording summary at step %s.", global_step)
            self._sv.summary_writer.add_summary(summary_strs, global_step)


class SVStepCounterThread(coordinator.LooperThread):
    """Writes global steps per second every `save_summaries_secs`."""

    def __init__(self, sv: Supervisor, sess: Any, step_counter: Any = None) -> None:
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess
        self._last_time = 0.0
        self._last_step = 0
        self._step_counter = sv.global_step if step_counter is None else step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self) -> None:
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)

    def run_loop(self) -> None:
        current_step = training_util.global_step(self._sess, self._step_counter)
        added_steps, self._last_step = current_step - self._last_step, current_step
        current_time = time.time()
        elapsed_time, self._last_time = current_time - self._last_time, current_time
        steps_per_sec = added_steps / elapsed_time if elapsed_time > 0 else float("inf")
        summary = Summary(value=[Summary.Value(tag=self._summary_tag, simple_value=steps_per_sec)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, current_step)
        tf_logging.log_first_n(tf_logging.INFO, "%s: %g", 10, self._summary_tag, steps_per_sec)


class SVTimerCheckpointThread(coordinator.LooperThread):
    """Saves a checkpoint every `save_model_secs`."""

    def __init__(self, sv: Supervisor, sess: Any) -> None:
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        tf_logging.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            current_step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path), current_step)


@tf_export("train.basic_train_loop")
def basic_train_loop(supervisor: Supervisor, train_step_fn: Callable, args: Any = None, kwargs: Any = None,
                     master: str = "") -> None:
    """Call `train_step_fn(sess, *args, **kwargs)` until the supervisor stops; an AbortedError (a task of
    the cluster restarted) starts a new managed session and goes on."""
    args = args or []
    kwargs = kwargs or {}
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True
