"""`tf.train.MonitoredSession` and friends: a training loop's session with hooks, initialization or
recovery from checkpoints, queue runners, and recreation after a task of the cluster fails.

A MonitoredSession is a stack of wrappers around a `tf.Session`, outermost first:
- `_RecoverableSession`: on AbortedError or UnavailableError (a worker or parameter server died or
  restarted) closes the session and makes a new one with its creator, which restores the latest
  checkpoint, then retries the call;
- `_CoordinatedSession`: a Coordinator and the queue-runner threads it started; an error a thread
  reported is raised from `run`, and `close` stops and joins the threads;
- `_HookedSession`: merges every hook's `before_run` fetches, feeds and options into the caller's call and
  hands each hook its own results in `after_run`; a hook's `request_stop` makes `should_stop()` true.
The session creator's Scaffold finalizes the graph; closing unfinalizes it again when it was not final
before. An OutOfRangeError or StopIteration leaving a `with` block ends it cleanly.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

from tensorweave import errors
from tensorweave.formats.protos import RunMetadata, RunOptions
from tensorweave.framework.graph import GraphKeys, get_default_graph
from tensorweave.ops import control_flow_ops, lookup_ops, summary_ops, variables
from tensorweave.ops.manipulation_ops import concat
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train import basic_session_run_hooks, coordinator, queue_runner
from tensorweave.train.saver import Saver
from tensorweave.train.session_manager import SessionManager
from tensorweave.train.session_run_hook import (
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
)

_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)
USE_DEFAULT = object()


def _get_saver_or_default() -> Saver:
    """The SAVERS collection's one Saver, or a new sharded one over every saveable (added there)."""
    savers = get_default_graph().get_collection(GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS}. Please indicate which one to "
                               "use by passing it to the constructor.")
        return savers[0]
    saver = Saver(sharded=True, allow_empty=True)
    get_default_graph().add_to_collection(GraphKeys.SAVERS, saver)
    return saver


@tf_export("train.Scaffold")
class Scaffold:
    """The ops that initialize, check and save a model, and the summary op, made with TF's defaults (or
    taken from their graph collections) when `finalize` runs, which also finalizes the graph."""

    def __init__(self, init_op: Any = None, init_feed_dict: dict | None = None, init_fn: Any = None,
                 ready_op: Any = None, ready_for_local_init_op: Any = None, local_init_op: Any = None,
                 summary_op: Any = None, saver: Any = None, copy_from_scaffold: Scaffold | None = None,
                 local_init_feed_dict: dict | None = None) -> None:
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")

            def coalesce(value: Any, name: str) -> Any:
                return value if value is not None else getattr(copy_from_scaffold, name)

            init_op = coalesce(init_op, "init_op")
            init_feed_dict = coalesce(init_feed_dict, "_init_feed_dict")
            init_fn = coalesce(init_fn, "_user_init_fn")  # the user's function, not the wrapped one
            ready_op = coalesce(ready_op, "ready_op")
            ready_for_local_init_op = coalesce(ready_for_local_init_op, "ready_for_local_init_op")
            local_init_op = coalesce(local_init_op, "local_init_op")
            local_init_feed_dict = coalesce(local_init_feed_dict, "_local_init_feed_dict")
            summary_op = coalesce(summary_op, "summary_op")
            saver = coalesce(saver, "saver")
        self._user_init_fn = init_fn
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._local_init_feed_dict = local_init_feed_dict
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self) -> Scaffold:
        """Make the missing ops (TF's defaults, or the one op of the matching collection) and finalize the
        graph."""
        if self._init_op is None:
            self._init_op = Scaffold.get_or_default(
                "init_op", GraphKeys.INIT_OP,
                lambda: control_flow_ops.group(variables.global_variables_initializer(),
                                               variables.initialize_resources(
                                                   get_default_graph().get_collection(GraphKeys.RESOURCES))))
        if self._ready_op is None:
            self._ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, lambda: concat([variables.report_uninitialized_variables(),
                                                       variables.report_uninitialized_resources()], 0))
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: concat([variables.report_uninitialized_variables(variables.global_variables()),
                                variables.report_uninitialized_resources(
                                    get_default_graph().get_collection(GraphKeys.RESOURCES))], 0))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default("local_init_op", GraphKeys.LOCAL_INIT_OP,
                                                          Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP, summary_ops.merge_all)
        if self._saver is None:
            self._saver = _get_saver_or_default()
        self._saver.build()
        get_default_graph().finalize()
        tf_logging.info("Graph was finalized.")
        return self

    @property
    def init_fn(self) -> Any:
        return self._init_fn

    @property
    def init_op(self) -> Any:
        return self._init_op

    @property
    def ready_op(self) -> Any:
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        return self._ready_for_local_init_op

    @property
    def local_init_op(self) -> Any:
        return self._local_init_op

    @property
    def local_init_feed_dict(self) -> dict | None:
        return self._local_init_feed_dict

    @property
    def summary_op(self) -> Any:
        return self._summary_op

    @property
    def saver(self) -> Any:
        return self._saver

    @property
    def init_feed_dict(self) -> dict | None:
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name: str, collection_key: str, default_constructor: Any) -> Any:
        """The one item of a collection, else a new default (added to the collection)."""
        graph = get_default_graph()
        elements = graph.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(f'More than one item in the collection "{collection_key}". Please indicate '
                                   f"which one to use by passing it to the tf.Scaffold constructor as:  "
                                   f"tf.Scaffold({arg_name}=item to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            graph.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op() -> Any:
        """Initializes the local variables, the lookup tables and the local resources."""
        return control_flow_ops.group(
            variables.local_variables_initializer(), lookup_ops.tables_initializer(),
            variables.initialize_resources(get_default_graph().get_collection(GraphKeys.LOCAL_RESOURCES)))


@tf_export("train.SessionCreator")
class SessionCreator:
    """Makes a `tf.Session` ready to run (the interface MonitoredSession calls)."""

    def create_session(self) -> Any:
        raise NotImplementedError(f"create_session is not implemented for {self}.")


@tf_export("train.ChiefSessionCreator")
class ChiefSessionCreator(SessionCreator):
    """The chief's sessions: restored from the latest checkpoint of `checkpoint_dir`, else initialized."""

    def __init__(self, scaffold: Scaffold | None = None, master: str = "", config: Any = None,
                 checkpoint_dir: str | None = None, checkpoint_filename_with_path: str | None = None) -> None:
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager: SessionManager | None = None
        self._master = master
        self._config = config

    def _get_session_manager(self) -> SessionManager:
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op, local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op, ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager

    def create_session(self) -> Any:
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path, config=self._config,
            init_op=self._scaffold.init_op, init_feed_dict=self._scaffold.init_feed_dict,
            init_fn=self._scaffold.init_fn)


@tf_export("train.WorkerSessionCreator")
class WorkerSessionCreator(SessionCreator):
    """A non-chief worker's sessions: wait until the chief has made the model ready."""

    def __init__(self, scaffold: Scaffold | None = None, master: str = "", config: Any = None,
                 max_wait_secs: float = 30 * 60) -> None:
        self._scaffold = scaffold or Scaffold()
        self._session_manager: SessionManager | None = None
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def _get_session_manager(self) -> SessionManager:
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op, ready_op=self._scaffold.ready_op, ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager

    def create_session(self) -> Any:
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(self._master, config=self._config,
                                                            max_wait_secs=self._max_wait_secs)


class _WrappedSession:
    """A session wrapper; `should_stop` asks this layer (`_check_stop`) and then the wrapped ones."""

    def __init__(self, sess: Any) -> None:
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(self._sess, _WrappedSession)

    @property
    def graph(self) -> Any:
        return self._sess.graph

    @property
    def sess_str(self) -> Any:
        return self._sess.sess_str

    def should_stop(self) -> bool:
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self) -> bool:
        return False

    def close(self) -> None:
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                tf_logging.error("An error occurred when attempting to close the session. This may be due to a "
                                 "preemption in a connected worker or parameter server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args: Any, **kwargs: Any) -> Any:
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn: Any, raw_session: Any, run_with_hooks: Any) -> Any:
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks or self.run))


class _RecoverableSession(_WrappedSession):
    """Recreates the session (and so restores the latest checkpoint) when a task of the cluster fails."""

    def __init__(self, sess_creator: SessionCreator) -> None:
        self._sess_creator = sess_creator
        super().__init__(self._create_session())

    def _create_session(self) -> Any:
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                tf_logging.info("An error was raised while a session was being created. This may be due to a "
                                "preemption of a connected worker or parameter server. A new session will be "
                                "created. This error may also occur due to a gRPC failure caused by high memory or "
                                "network bandwidth usage in the parameter servers. If this error occurs repeatedly, "
                                "try increasing the number of parameter servers assigned to the job. Error: %s", e)

    def _check_stop(self) -> bool:
        try:
            if self._sess:
                return self._sess._check_stop()
            return True
        except _PREEMPTION_ERRORS as e:
            tf_logging.info("An error was raised while considering whether the session is complete. This may be "
                            "due to a preemption in a connected worker or parameter server. The current session "
                            "will be closed and a new session will be created. Error: %s", e)
            self.close()
            self._sess = self._create_session()
            return False
        except Exception:
            self._sess = None
            raise

    def run(self, fetches: Any, feed_dict: dict | None = None, options: Any = None, run_metadata: Any = None) -> Any:
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)
            except _PREEMPTION_ERRORS as e:
                tf_logging.info("An error was raised. This may be due to a preemption in a connected worker or "
                                "parameter server. The current session will be closed and a new session will be "
                                "created. This error may also occur due to a gRPC failure caused by high memory "
                                "or network bandwidth usage in the parameter servers. If this error occurs "
                                "repeatedly, try increasing the number of parameter servers assigned to the job. "
                                "Error: %s", e)
                self.close()
                self._sess = None

    def run_step_fn(self, step_fn: Any, raw_session: Any, run_with_hooks: Any) -> Any:
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run_step_fn(step_fn, self._sess_creator.tf_sess, self._sess.run)
            except _PREEMPTION_ERRORS as e:
                tf_logging.info("An error was raised. This may be due to a preemption in a connected worker or "
                                "parameter server. The current session will be closed and a new session will be "
                                "created. Error: %s", e)
                self.close()
                self._sess = None


class _CoordinatedSession(_WrappedSession):
    """A session with a Coordinator: its threads' reported errors surface in `run`, and `close` joins them."""

    def __init__(self, sess: Any, coord: coordinator.Coordinator, stop_grace_period_secs: float = 120) -> None:
        super().__init__(sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self) -> bool:
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self) -> None:
        self._coord.request_stop()
        try:
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs, ignore_live_threads=True)
        finally:
            try:
                _WrappedSession.close(self)
            except Exception:  # noqa: BLE001 - the coordinator's error, if any, is the one that matters
                pass

    def _reraise_coordinator_error(self) -> None:
        """After a failed call: raise a thread's reported error instead when there is one (a queue runner's
        failure is why a dequeue failed), keeping a preemption as it is."""
        original = sys.exc_info()[1]
        if isinstance(original, _PREEMPTION_ERRORS):
            raise original
        try:
            self._coord.raise_requested_exception()
        except _PREEMPTION_ERRORS:
            raise
        except Exception:  # noqa: BLE001 - the caller's original error is what propagates
            pass
        raise original

    def run(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._sess.run(*args, **kwargs)
        except Exception:
            self._reraise_coordinator_error()


class _HookedSession(_WrappedSession):
    """A session that calls its hooks around every `run`."""

    def __init__(self, sess: Any, hooks: list[SessionRunHook]) -> None:
        super().__init__(sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self) -> bool:
        return self._should_stop

    def run(self, fetches: Any, feed_dict: dict | None = None, options: Any = None, run_metadata: Any = None) -> Any:
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches: dict[Any, Any] = {"caller": fetches}
        run_context = SessionRunContext(original_args=SessionRunArgs(fetches, feed_dict), session=self._sess)
        options = options or RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict, options=options,
                                      run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, SessionRunValues(results=outputs[hook] if hook in outputs else None,
                                                         options=options, run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context: SessionRunContext, fetch_dict: dict, user_feed_dict: dict | None,
                              options: Any) -> dict | None:
        """Collect every hook's request into `fetch_dict` (under the hook) and `options`; the merged feeds."""
        hook_feeds: dict = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                fetch_dict[hook] = request.fetches
            if request.feed_dict:
                _raise_if_feeds_intersect(hook_feeds, request.feed_dict, "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds, "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1: dict, feeds2: dict, message: str) -> None:
    intersection = set(feeds1) & set(feeds2)
    if intersection:
        raise RuntimeError(message + " Conflict(s): " + str(list(intersection)))


def _merge_run_options(options: Any, incoming: Any) -> None:
    """TF's merge: the larger of each level and limit, debug watches appended."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool, incoming.inter_op_thread_pool)
    options.output_partition_graphs = max(options.output_partition_graphs, incoming.output_partition_graphs)
    options.debug_options.debug_tensor_watch_opts.extend(incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (options.debug_options.reset_disk_byte_usage
                                                   or incoming.debug_options.reset_disk_byte_usage)


class _MonitoredSession:
    """What MonitoredSession and SingularMonitoredSession share: the hooks' life cycle and the stack of
    wrappers."""

    def __init__(self, session_creator: SessionCreator | None, hooks: list[SessionRunHook] | None,
                 should_recover: bool, stop_grace_period_secs: float = 120) -> None:
        self._graph_was_finalized = get_default_graph().finalized
        self._hooks = list(hooks or [])
        for hook in self._hooks:
            hook.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        if should_recover:
            self._sess: Any = _RecoverableSession(self._coordinated_creator)
        else:
            self._sess = self._coordinated_creator.create_session()

    @property
    def graph(self) -> Any:
        """The graph this session runs (None once closed)."""
        return None if self._tf_sess() is None else self._tf_sess().graph

    def run(self, fetches: Any, feed_dict: dict | None = None, options: Any = None, run_metadata: Any = None) -> Any:
        """`Session.run` with the hooks called around it."""
        return self._sess.run(fetches, feed_dict=feed_dict, options=options, run_metadata=run_metadata)

    def run_step_fn(self, step_fn: Any) -> Any:
        """Call `step_fn(step_context)`, whose `session` is the raw session and `run_with_hooks` runs with
        the hooks; `step_context.request_stop()` ends the loop."""
        arguments = tuple(inspect.signature(step_fn).parameters)
        if inspect.ismethod(step_fn):
            arguments = ("self",) + arguments
        if arguments not in (("step_context",), ("self", "step_context")):
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` and "
                             f"`step_context` arguments if it's an instance method. Got {arguments} instead.")
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    class StepContext:
        """What a `step_fn` gets: the raw session, a run through the hooks, and a way to stop."""

        def __init__(self, session: Any, run_with_hooks_fn: Any) -> None:
            self._session = session
            self._run_with_hooks_fn = run_with_hooks_fn

        @property
        def session(self) -> Any:
            return self._session

        def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self) -> None:
            """Stop the loop: raises StopIteration, which the `with` block of the session swallows."""
            raise StopIteration("step_fn has requested the iterations to stop.")

    def should_stop(self) -> bool:
        return self._sess is None or self._sess.should_stop()

    def close(self) -> None:
        self._close_internal()

    def __enter__(self) -> _MonitoredSession:
        return self

    def __exit__(self, exception_type: Any, exception_value: Any, traceback: Any) -> bool:
        if exception_type in (errors.OutOfRangeError, StopIteration):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None  # an input that ran out ends the block cleanly

    class _CoordinatedSessionCreator(SessionCreator):
        """Creates the raw session (its creator's Scaffold has finalized the graph), starts its queue
        runners and calls the hooks' `after_create_session`; each recovery goes through here again."""

        def __init__(self, session_creator: SessionCreator, hooks: list[SessionRunHook],
                     stop_grace_period_secs: float) -> None:
            self._session_creator = session_creator
            self._hooks = hooks
            self.coord: coordinator.Coordinator | None = None
            self.tf_sess: Any = None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self) -> Any:
            self.tf_sess = self._session_creator.create_session()
            self.coord = coordinator.Coordinator(clean_stop_exception_types=[])  # every error surfaces
            if get_default_graph().get_collection(GraphKeys.QUEUE_RUNNERS):
                queue_runner.start_queue_runners(sess=self.tf_sess, coord=self.coord)
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                       self._stop_grace_period_secs)

    def _close_internal(self, exception_type: Any = None) -> None:
        try:
            if not exception_type:
                for hook in self._hooks:
                    hook.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    get_default_graph()._unsafe_unfinalize()

    def _is_closed(self) -> bool:
        return self._coordinated_creator.tf_sess is None

    def _tf_sess(self) -> Any:
        return self._coordinated_creator.tf_sess


@tf_export("train.MonitoredSession")
class MonitoredSession(_MonitoredSession):
    """A session for training loops: hooks, initialization or restore, queue runners, and recreation of the
    session when a task of the cluster fails (AbortedError, UnavailableError)."""

    def __init__(self, session_creator: SessionCreator | None = None, hooks: list[SessionRunHook] | None = None,
                 stop_grace_period_secs: float = 120) -> None:
        super().__init__(session_creator, hooks, should_recover=True, stop_grace_period_secs=stop_grace_period_secs)


@tf_export("train.SingularMonitoredSession")
class SingularMonitoredSession(_MonitoredSession):
    """A MonitoredSession for one process, the chief: no recovery, and the raw session is reachable."""

    def __init__(self, hooks: list[SessionRunHook] | None = None, scaffold: Scaffold | None = None,
                 master: str = "", config: Any = None, checkpoint_dir: str | None = None,
                 stop_grace_period_secs: float = 120, checkpoint_filename_with_path: str | None = None) -> None:
        session_creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config,
                                              checkpoint_dir=checkpoint_dir,
                                              checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(session_creator, hooks, should_recover=False, stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self) -> Any:
        """The `tf.Session` under the hooks."""
        return self._tf_sess()


@tf_export("train.MonitoredTrainingSession")
def MonitoredTrainingSession(master: str = "", is_chief: bool = True, checkpoint_dir: str | None = None,  # noqa: N802
                             scaffold: Scaffold | None = None, hooks: list[SessionRunHook] | None = None,
                             chief_only_hooks: list[SessionRunHook] | None = None,
                             save_checkpoint_secs: Any = USE_DEFAULT, save_summaries_steps: Any = USE_DEFAULT,
                             save_summaries_secs: Any = USE_DEFAULT, config: Any = None,
                             stop_grace_period_secs: float = 120, log_step_count_steps: int = 100,
                             max_wait_secs: float = 7200, save_checkpoint_steps: Any = USE_DEFAULT,
                             summary_dir: str | None = None, save_graph_def: bool = True) -> MonitoredSession:
    """A MonitoredSession set up for training: the chief restores or initializes and, with a
    `checkpoint_dir`, counts steps, saves summaries (every 100 steps) and checkpoints (every 600 secs);
    other workers wait for the chief's model and run only `hooks`."""
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None
    scaffold = scaffold or Scaffold()
    if not is_chief:
        session_creator: SessionCreator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                                               max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=session_creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)
    all_hooks: list[SessionRunHook] = list(chief_only_hooks or [])
    session_creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir, master=master,
                                          config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(basic_session_run_hooks.StepCounterHook(output_dir=summary_dir,
                                                                     every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(basic_session_run_hooks.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summaries_steps, save_secs=save_summaries_secs,
                output_dir=summary_dir))
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0)
                           or (save_checkpoint_steps and save_checkpoint_steps > 0)):
        all_hooks.append(basic_session_run_hooks.CheckpointSaverHook(
            checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs, scaffold=scaffold,
            save_graph_def=save_graph_def))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=session_creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)
