"""`tf.train.QueueRunner`, `add_queue_runner` and `start_queue_runners`: threads that keep a queue full.

A QueueRunner runs each of its enqueue ops in a loop on its own thread, per session. When an enqueue fails
because the queue was closed (OutOfRangeError by default, as a queue of input reports the end of its data),
that thread stops; the last of them to stop closes the queue, so its consumers drain it and then see
OutOfRangeError. With a Coordinator, one more thread waits for the stop request and cancels pending
enqueues (`cancel_op`), and any other error requests the stop. A thread asks the session for several runs per
call, which the runtime makes at once where it can (a reader's step: runtime/input_chain.py), each as one run.
"""

from __future__ import annotations

import functools
import threading
import weakref
from typing import Any

from tensorweave import errors
from tensorweave.client.session import BaseSession
from tensorweave.formats import protos
from tensorweave.framework import meta_graph
from tensorweave.framework.graph import (
    GraphKeys,
    add_to_collection,
    get_collection,
    get_default_graph,
    get_default_session,
    prepend_name_scope,
    strip_name_scope,
)
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export
from tensorweave.train.coordinator import Coordinator

# Runs of an enqueue op one call of the loop may make at once (where the runtime can: an input chain, see
# runtime/input_chain.py); the stop request is checked between calls
_RUNS_PER_CALL = 32


@tf_export("train.QueueRunner", "train.queue_runner.QueueRunner")
class QueueRunner:
    """The enqueue ops of one queue, each run in a loop on its own thread, and the ops that close it."""

    def __init__(self, queue: Any = None, enqueue_ops: list | None = None, close_op: Any = None, cancel_op: Any = None,
                 queue_closed_exception_types: tuple | None = None, queue_runner_def: Any = None,
                 import_scope: str | None = None) -> None:
        self._lock = threading.Lock()
        self._runs_per_session: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
        self._exceptions_raised: list[BaseException] = []
        if queue_runner_def is not None:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope)
            return
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        if queue_closed_exception_types is not None:
            if (not isinstance(queue_closed_exception_types, tuple) or not queue_closed_exception_types
                    or not all(isinstance(t, type) and issubclass(t, errors.OpError)
                               for t in queue_closed_exception_types)):
                # %-formatting with the tuple itself, as TF's: an empty or longer tuple fails in the formatting
                message = "queue_closed_exception_types, when provided, must be a tuple of tf.error types, but saw: %s"
                raise TypeError(message % queue_closed_exception_types)  # noqa: UP031
        self._queue_closed_exception_types = queue_closed_exception_types or (errors.OutOfRangeError,)
        self._close_op = queue.close() if close_op is None else close_op
        self._cancel_op = queue.close(cancel_pending_enqueues=True) if cancel_op is None else cancel_op

    def _init_from_proto(self, queue_runner_def: Any, import_scope: str | None) -> None:
        """The runner a meta graph's QueueRunnerDef names; its queue is then the queue's op, as in TF."""
        g = get_default_graph()

        def element(name: str) -> Any:
            return g.as_graph_element(prepend_name_scope(name, import_scope))

        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(name) for name in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        # a QueueRunnerDef older than the field lists no types: the default then
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(code)
            for code in queue_runner_def.queue_closed_exception_types) or (errors.OutOfRangeError,)

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This runner's QueueRunnerDef, names relative to `export_scope` (None when its queue lies outside)."""
        if export_scope is not None and not self.queue.name.startswith(export_scope):
            return None
        return protos.QueueRunnerDef(
            queue_name=strip_name_scope(self.queue.name, export_scope),
            enqueue_op_name=[strip_name_scope(op.name, export_scope) for op in self.enqueue_ops],
            close_op_name=strip_name_scope(self.close_op.name, export_scope),
            cancel_op_name=strip_name_scope(self.cancel_op.name, export_scope),
            queue_closed_exception_types=[errors.error_code_from_exception_type(cls)
                                          for cls in self._queue_closed_exception_types])

    @staticmethod
    def from_proto(queue_runner_def: Any, import_scope: str | None = None) -> QueueRunner:
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)

    @property
    def queue(self) -> Any:
        return self._queue

    @property
    def enqueue_ops(self) -> list:
        return self._enqueue_ops

    @property
    def close_op(self) -> Any:
        return self._close_op

    @property
    def cancel_op(self) -> Any:
        return self._cancel_op

    @property
    def queue_closed_exception_types(self) -> tuple:
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self) -> list[BaseException]:
        """What the threads raised when they ran without a coordinator."""
        return self._exceptions_raised

    @property
    def name(self) -> str:
        return self._queue.name

    def _run(self, sess: Any, enqueue_op: Any, coord: Coordinator | None) -> None:
        """Run `enqueue_op` until told to stop or the queue closes; the last thread out closes the queue."""
        decremented = False
        try:
            if isinstance(sess, BaseSession):
                enqueue = functools.partial(sess._repeating_callable(enqueue_op), _RUNS_PER_CALL)
            else:
                enqueue = sess.make_callable(enqueue_op)
            while not (coord and coord.should_stop()):
                try:
                    enqueue()
                except self._queue_closed_exception_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - the session may be closing
                                tf_logging.vlog(1, "Ignored exception: %s", str(e))
                    return
        except Exception as e:
            if coord:
                coord.request_stop(e)
            else:
                tf_logging.error("Exception in QueueRunner: %s", str(e))
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess: Any, cancel_op: Any, coord: Coordinator) -> None:
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - the session may already be closed
            tf_logging.vlog(1, "Ignored exception: %s", str(e))

    def create_threads(self, sess: Any, coord: Coordinator | None = None, daemon: bool = False,
                       start: bool = False) -> list[threading.Thread]:
        """One thread per enqueue op (and with `coord`, one that cancels on stop), registered with `coord`;
        none when this runner already runs in `sess`."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, coord), name=f"QueueRunnerThread-{self.name}-{op.name}")
                   for op in self._enqueue_ops]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                                            name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for thread in threads:
            if coord:
                coord.register_thread(thread)
            if daemon:
                thread.daemon = True
            if start:
                thread.start()
        return threads


@tf_export("train.add_queue_runner", "train.queue_runner.add_queue_runner")
def add_queue_runner(qr: QueueRunner, collection: str = GraphKeys.QUEUE_RUNNERS) -> None:
    """Add `qr` to the graph's collection of queue runners (which `start_queue_runners` starts)."""
    add_to_collection(collection, qr)


@tf_export("train.start_queue_runners", "train.queue_runner.start_queue_runners")
def start_queue_runners(sess: Any = None, coord: Coordinator | None = None, daemon: bool = True,
                        start: bool = True, collection: str = GraphKeys.QUEUE_RUNNERS) -> list[threading.Thread]:
    """Start the threads of every queue runner in the graph's collection; returns them."""
    if sess is None:
        sess = get_default_session()
        if not sess:
            raise ValueError("Cannot start queue runners: No default session is registered. Use `with "
                             "sess.as_default()` or pass an explicit session to tf.start_queue_runners(sess=sess)")
    if not isinstance(sess, BaseSession):
        if sess.__class__.__name__ in ("MonitoredSession", "SingularMonitoredSession"):
            return []
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    runners = get_collection(collection)
    if not runners:
        tf_logging.warning("`tf.train.start_queue_runners()` was called when no queue runners were defined. You "
                           "can safely remove the call to this deprecated function.")
    threads: list[threading.Thread] = []
    with sess.graph.as_default():
        for runner in runners:
            threads.extend(runner.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads


meta_graph.register_proto_function(GraphKeys.QUEUE_RUNNERS, proto_type=protos.QueueRunnerDef,
                                   to_proto=QueueRunner.to_proto, from_proto=QueueRunner.from_proto)
