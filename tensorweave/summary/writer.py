"""TF1's `tf.summary.FileWriter` and `FileWriterCache` over the L0 event writer (`formats.events`).

What this layer adds is what needs the graph: the MetaGraphDef written after a constructor's graph gets
its op list, version strings and the default graph's collections (`meta_graph`), and a cached writer
starts with the default graph, as TF's does.
"""

from __future__ import annotations

import os
from typing import Any

from tensorweave.formats import events
from tensorweave.formats.events import make_dirs
from tensorweave.framework import dtypes
from tensorweave.framework.graph import (
    Graph,
    Tensor,
    control_dependencies,
    device,
    get_default_graph,
    name_scope,
)
from tensorweave.framework.meta_graph import create_meta_graph_def
from tensorweave.ops import summary_ops
from tensorweave.ops.constant_ops import constant, placeholder_with_default
from tensorweave.platform import tf_logging
from tensorweave.platform.tf_export import tf_export


class EventFileWriterV2:
    """TF's writer for `FileWriter(session=...)`: the session's summary-writer resource for the logdir (shared
    by every FileWriter of that session and logdir), driven by ops it adds to the session's graph."""

    def __init__(self, session: Any, logdir: str | os.PathLike, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str | None = None) -> None:
        self._session = session
        self._logdir = logdir
        self._closed = False
        make_dirs(os.fspath(logdir))
        with session.graph.as_default(), name_scope("filewriter"):
            with device("cpu:0"):  # TF's create_file_writer, flush and close place their ops on the CPU
                # no suffix given: TF's default '.v2', one constant for every CreateSummaryFileWriter
                suffix = constant(".v2") if filename_suffix is None else filename_suffix
                writer = summary_ops.SummaryWriter(shared_name=f"logdir:{os.fspath(logdir)}")

            def create() -> Any:
                with name_scope(None, "CreateSummaryFileWriter") as scope:  # TF's generated wrapper's names
                    return summary_ops.CreateSummaryFileWriter(
                        writer, constant(os.fspath(logdir), name="logdir"),
                        constant(max_queue, dtypes.int32, name="max_queue"),
                        constant(int(flush_secs * 1000), dtypes.int32, name="flush_millis"),
                        suffix if isinstance(suffix, Tensor) else constant(suffix, name="filename_suffix"),
                        name=scope)

            with device("cpu:0"):
                create()
            self._event_placeholder = placeholder_with_default(constant("unused"), shape=[])
            self._add_event_op = summary_ops.ImportEvent(writer, self._event_placeholder)
            with device("cpu:0"):
                summary_ops.FlushSummaryWriter(writer)  # leaving TF's `as_default()` flushes
            self._init_op = create()
            with device("cpu:0"):
                self._flush_op = summary_ops.FlushSummaryWriter(writer)
                with control_dependencies([summary_ops.FlushSummaryWriter(writer)]):
                    self._close_op = summary_ops.CloseSummaryWriter(writer)
        session.run(self._init_op)

    def get_logdir(self) -> str | os.PathLike:
        return self._logdir

    def reopen(self) -> None:
        """After `close`, a new event file in the same directory."""
        if self._closed:
            self._closed = False
            self._session.run(self._init_op)

    def add_event(self, event: Any) -> None:
        if not self._closed:
            self._session.run(self._add_event_op, feed_dict={self._event_placeholder: event.SerializeToString()})

    def flush(self) -> None:
        self._session.run(self._flush_op)

    def close(self) -> None:
        if not self._closed:
            self.flush()
            self._session.run(self._close_op)
            self._closed = True


@tf_export("summary.FileWriter")
class FileWriter(events.FileWriter):
    """TF1's `tf.summary.FileWriter`: summaries, session logs, graphs and run metadata to an event file."""

    def _event_writer(self, logdir: str | os.PathLike, max_queue: int, flush_secs: float,
                      filename_suffix: str | None, session: Any) -> Any:
        if session is None:
            return super()._event_writer(logdir, max_queue, flush_secs, filename_suffix, None)
        return EventFileWriterV2(session, logdir, max_queue, flush_secs, filename_suffix)

    def add_graph(self, graph: Any, global_step: int | None = None, graph_def: Any = None) -> None:
        """Write a Graph's GraphDef (with shapes), or a GraphDef; the deprecated forms, a GraphDef (the
        `sess.graph_def` of old tutorials) or a Graph passed as `graph_def`, warn as TF's."""
        if graph is None or graph_def is None:
            if isinstance(graph_def, Graph) and not isinstance(graph, Graph):
                tf_logging.warning("When passing a `Graph` object, please use the `graph` named argument instead of "
                                   "`graph_def`.")
            elif not isinstance(graph, Graph) and any(
                    getattr(getattr(g, "DESCRIPTOR", None), "full_name", None) == "tensorflow.GraphDef"
                    for g in (graph, graph_def)):
                tf_logging.warning("Passing a `GraphDef` to the SummaryWriter is deprecated. Pass a `Graph` object "
                                   "instead, such as `sess.graph`.")
        super().add_graph(graph, global_step, graph_def)

    def _constructor_meta_graph(self, graph: Any, graph_def: Any) -> Any:
        """TF's `create_meta_graph_def(graph_def=graph_def or graph's GraphDef)`: it takes a Graph only as
        `graph`, and the collections always come from the default graph."""
        if isinstance(graph_def, Graph):
            raise TypeError(f"graph_def must be of type GraphDef. Received type: {type(graph_def)}.")
        return create_meta_graph_def(super()._constructor_meta_graph(graph, graph_def).graph_def,
                                     get_default_graph())


@tf_export("summary.FileWriterCache")
class FileWriterCache(events.FileWriterCache):
    """One shared FileWriter per logdir (TF1's `tf.summary.FileWriterCache`); a new one starts with the
    default graph and its MetaGraphDef, as TF's does."""

    _cache: dict[str, events.FileWriter] = {}

    @staticmethod
    def _new_writer(logdir: str) -> FileWriter:
        return FileWriter(logdir, graph=get_default_graph())
