"""Event files for TensorBoard: the FileWriter, its background writer thread, and summary_iterator.

An event file is a TFRecord file of serialized `Event` protos whose first record is the version event
`brain.Event:2`, named `events.out.tfevents.<10-digit time>.<host><suffix>` (TF1's names) and, as in
TF 2.x, created only when its first event arrives (a writer that writes nothing leaves no file), except
that a writer given a `filename_suffix` creates it at once, as TF's does. Writers
queue events and a daemon thread writes them, flushing every `flush_secs`, so training never waits
on the disk; `flush` and `close` wait until every queued event is on disk. An error in the writer
thread is re-raised on the caller's next call.
"""

from __future__ import annotations

import itertools
import os
import queue
import socket
import threading
import time
import warnings
import weakref
from collections.abc import Iterator
from typing import Any, BinaryIO

from google.protobuf import message

from tensorweave import errors
from tensorweave.formats.protos import Event, GraphDef, MetaGraphDef, SessionLog, Summary, TaggedRunMetadata
from tensorweave.formats.tfrecord import frame_record, open_or_raise, os_error, tf_record_iterator

FILE_VERSION = "brain.Event:2"
SOURCE_WRITER = "tensorflow.core.util.events_writer"  # TF's writer id in the version event; kept for parity
_CLOSE = object()
_OPEN_WRITERS: weakref.WeakSet[EventFileWriter] = weakref.WeakSet()


def flush_open_event_files() -> None:
    """Flush every open event writer: in TF a checkpoint save makes the events written so far visible in
    their files (seen in TF 2.21), so a TensorBoard run shows them at each checkpoint, not after `flush_secs`."""
    for writer in list(_OPEN_WRITERS):
        writer.flush()


# Numbers the files of the writers made for the summary-writer ops, as TF's C++ summary file writer does
_writer_numbers = itertools.count()


class EventFileWriter:
    """Writes Event protos to one event file in `logdir` through a queue and a writer thread."""

    def __init__(self, logdir: str | os.PathLike, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str | None = None, process_tag: bool = False) -> None:
        """`process_tag`: the file is made at once and named as TF's C++ summary file writer names it, the
        process id and a process-wide count after the host name."""
        self._logdir = os.fspath(logdir)
        self._max_queue = max_queue
        self._flush_secs = max(flush_secs, 0.01)
        self._suffix = filename_suffix or ""
        self._tag = f".{os.getpid()}.{next(_writer_numbers)}" if process_tag else None
        self._closed = True
        self._open()

    def _open(self) -> None:
        make_dirs(self._logdir)
        self._path: str | None = None
        # created by the writer thread with the first event, as TF does, unless a suffix is given
        self._file: BinaryIO | None = self._create_file() if self._suffix or self._tag else None
        self._queue: queue.Queue[Any] = queue.Queue(self._max_queue)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="EventLoggerThread", daemon=True)
        self._closed = False
        self._thread.start()
        _OPEN_WRITERS.add(self)

    def _create_file(self) -> BinaryIO:
        """The event file, opened with the version event (at the first event, or at once given a suffix)."""
        now = int(time.time())  # TF stamps the version event with the file name's whole seconds
        name = f"events.out.tfevents.{now:010d}.{socket.gethostname()}{self._tag or ''}{self._suffix}"
        self._path = os.path.join(self._logdir, name)
        f = open_or_raise(self._path, "wb")
        version = Event(wall_time=now, file_version=FILE_VERSION)
        version.source_metadata.writer = SOURCE_WRITER
        f.write(frame_record(version.SerializeToString()))
        f.flush()  # TF flushes the version event with the file's creation
        return f

    def _run(self) -> None:
        """Write queued events; as in TF the first is flushed at once (a new run shows up in TensorBoard
        right away), later ones within `flush_secs`. With nothing unflushed the thread just waits."""
        next_flush = time.monotonic()
        unflushed = False
        while True:
            try:
                item = self._queue.get(timeout=max(0.0, next_flush - time.monotonic()) if unflushed else None)
            except queue.Empty:
                item = None
            try:
                if item is _CLOSE:
                    return
                if item is not None:
                    if self._file is None:
                        self._file = self._create_file()
                    self._file.write(frame_record(item))
                    unflushed = True
                if unflushed and time.monotonic() >= next_flush:
                    assert self._file is not None
                    self._file.flush()
                    unflushed = False
                    next_flush = time.monotonic() + self._flush_secs
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
                self._error = e
            finally:
                if item is not None:
                    self._queue.task_done()

    def _check(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise errors.UnknownError(None, None, f"{self._logdir}: event writer failed: {error}") from error

    def get_logdir(self) -> str:
        """The directory this writer writes into."""
        return self._logdir

    def add_event(self, event: Any) -> None:
        """Queue an Event (TF's or ours); blocks only when the queue is full."""
        self._check()
        if not isinstance(event, message.Message):
            raise TypeError(f"{type(event)} is not a valid proto.")
        if not self._closed:
            self._queue.put(event.SerializeToString())

    def flush(self) -> None:
        """Return once every queued event is written and flushed to the OS."""
        if self._closed:
            return
        self._queue.join()
        self._check()
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Write everything queued and close the file; a later `reopen` starts a new file."""
        if self._closed:
            return
        self._queue.join()
        self._queue.put(_CLOSE)
        self._thread.join()
        if self._file is not None:
            self._file.close()
        self._closed = True
        self._check()

    def reopen(self) -> None:
        """Start a new event file in the same directory after `close` (no-op while open)."""
        if self._closed:
            self._open()

    @property
    def path(self) -> str | None:
        """The current event file's path; None until its first event is written."""
        return self._path


class FileWriter:
    """TF1's `tf.summary.FileWriter`: summaries, session logs, graphs and run metadata to an event file."""

    def __init__(self, logdir: str | os.PathLike, graph: Any = None, max_queue: int = 10,
                 flush_secs: float = 120, graph_def: Any = None, filename_suffix: str | None = None,
                 session: Any = None) -> None:
        self.event_writer = self._event_writer(logdir, max_queue, flush_secs, filename_suffix, session)
        self._closed = False
        self._seen_summary_tags: set[str] = set()
        self._session_run_tags: set[str] = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph, graph_def=graph_def)
            self.add_meta_graph(self._constructor_meta_graph(graph, graph_def))

    def _event_writer(self, logdir: str | os.PathLike, max_queue: int, flush_secs: float,
                      filename_suffix: str | None, session: Any) -> Any:
        """The writer of the events: a file's own, or with a session the summary-writer ops', which need
        the layers above (`tensorweave.summary.writer`)."""
        if session is not None:
            raise errors.UnimplementedError(None, None, "FileWriter(session=...) needs tensorweave.summary")
        return EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)

    def _constructor_meta_graph(self, graph: Any, graph_def: Any) -> Any:
        """The MetaGraphDef TF writes after the constructor's graph. Here only its graph_def: the op list,
        version strings and collections need the layers above (`tensorweave.summary.writer` adds them)."""
        meta_graph = MetaGraphDef()
        meta_graph.graph_def.MergeFromString(_graph_def_bytes(graph_def if graph_def is not None else graph))
        return meta_graph

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def get_logdir(self) -> str:
        """The directory this writer writes into."""
        return self.event_writer.get_logdir()

    def _warn_if_closed(self) -> None:
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a noop unless the "
                          "FileWriter is explicitly reopened.", stacklevel=1)

    def add_event(self, event: Any) -> None:
        """Write an Event as given."""
        self._warn_if_closed()
        self.event_writer.add_event(event)

    def _add(self, global_step: int | None, **what: Any) -> None:
        self._warn_if_closed()
        event = Event(wall_time=time.time(), **what)
        if global_step is not None:
            event.step = int(global_step)
        self.event_writer.add_event(event)

    def add_summary(self, summary: Any, global_step: int | None = None) -> None:
        """Write a Summary (or its serialized bytes); plugin metadata is kept only on a tag's first value.

        As in TF, a tag counts as seen from its first value, with metadata or not, and the metadata of
        later values is cleared in the caller's own Summary.
        """
        if isinstance(summary, bytes):
            summary = Summary.FromString(summary)
        elif not hasattr(summary, "value"):  # TF reads `summary.value` first: an Event is no Summary
            raise AttributeError("value" if isinstance(summary, message.Message)
                                 else f"'{type(summary).__name__}' object has no attribute 'value'")
        for value in summary.value:
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
            else:
                self._seen_summary_tags.add(value.tag)
        self._add(global_step, summary=Summary.FromString(summary.SerializeToString()))

    def add_session_log(self, session_log: Any, global_step: int | None = None) -> None:
        """Write a SessionLog (START, STOP, CHECKPOINT), which TensorBoard uses to discard stale events."""
        _check_message(session_log, SessionLog)
        self._add(global_step, session_log=SessionLog.FromString(session_log.SerializeToString()))

    def add_graph(self, graph: Any, global_step: int | None = None, graph_def: Any = None) -> None:
        """Write a graph: a GraphDef, or any Graph whose `as_graph_def()` gives one."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        self._add(global_step, graph_def=_graph_def_bytes(graph if graph is not None else graph_def))

    def add_meta_graph(self, meta_graph_def: Any, global_step: int | None = None) -> None:
        """Write a MetaGraphDef (TensorBoard reads the graph from it when no graph event exists)."""
        if getattr(getattr(meta_graph_def, "DESCRIPTOR", None), "full_name", None) != MetaGraphDef.DESCRIPTOR.full_name:
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: {type(meta_graph_def)}")
        self._add(global_step, meta_graph_def=meta_graph_def.SerializeToString())

    def add_run_metadata(self, run_metadata: Any, tag: str, global_step: int | None = None) -> None:
        """Write a step's RunMetadata under a tag, for TensorBoard's compute-time and memory overlays.

        A tag names one step's metadata, so a tag used before is a ValueError, as in TF.
        """
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags.add(tag)
        tagged = TaggedRunMetadata()
        tagged.tag = tag  # assigned, as TF does, so a tag that is no string is protobuf's TypeError
        tagged.run_metadata = run_metadata.SerializeToString()
        self._add(global_step, tagged_run_metadata=tagged)

    def flush(self) -> None:
        """Return once everything added so far is on disk."""
        self._warn_if_closed()
        self.event_writer.flush()

    def close(self) -> None:
        """Flush and close the event file."""
        self.event_writer.close()
        self._closed = True

    def reopen(self) -> None:
        """Start a new event file after `close`."""
        self.event_writer.reopen()
        self._closed = False


def make_dirs(logdir: str) -> None:
    """Create a directory and its parents with TF's errors: a file in the way is FailedPreconditionError."""
    if not logdir:  # the working directory
        return
    try:
        os.makedirs(logdir, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        parts = logdir.split(os.sep)
        for i in range(1, len(parts) + 1):
            prefix = os.sep.join(parts[:i])
            if prefix and os.path.exists(prefix) and not os.path.isdir(prefix):
                raise errors.FailedPreconditionError(None, None, f"{prefix} is not a directory") from None
        raise
    except OSError as e:
        raise os_error(logdir, e) from e


def _check_message(value: Any, cls: type[message.Message]) -> None:
    """Reject another message type (TF's own classes are accepted too: only the message name counts)."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    if getattr(descriptor, "full_name", None) != cls.DESCRIPTOR.full_name:
        raise TypeError("Parameter to initialize message field must be dict or instance of same class: "
                        f"expected {cls} got {type(value)}.")


def _graph_def_bytes(graph: Any) -> bytes:
    """Serialize a GraphDef (TF's or ours), or the GraphDef of a Graph (whose own form may need `to_proto()`)."""
    if hasattr(graph, "as_graph_def"):
        try:
            graph = graph.as_graph_def(add_shapes=True)
        except TypeError:
            graph = graph.as_graph_def()
    if not isinstance(graph, message.Message) and hasattr(graph, "to_proto"):
        graph = graph.to_proto()
    if getattr(getattr(graph, "DESCRIPTOR", None), "full_name", None) != GraphDef.DESCRIPTOR.full_name:
        raise TypeError("The passed graph must be an instance of `Graph` or the deprecated `GraphDef`")
    return graph.SerializeToString()


class FileWriterCache:
    """One shared FileWriter per logdir (TF1's `tf.summary.FileWriterCache`)."""

    _cache: dict[str, FileWriter] = {}
    _lock = threading.RLock()

    @classmethod
    def get(cls, logdir: str | os.PathLike) -> FileWriter:
        """The cached writer for a logdir, creating it on first use."""
        with cls._lock:
            key = os.fspath(logdir)
            if key not in cls._cache:
                cls._cache[key] = cls._new_writer(key)
            return cls._cache[key]

    @classmethod
    def clear(cls) -> None:
        """Close and forget every cached writer."""
        with cls._lock:
            for writer in cls._cache.values():
                writer.close()
            cls._cache.clear()

    @staticmethod
    def _new_writer(logdir: str) -> FileWriter:
        """The writer for a logdir not cached yet (`tensorweave.summary.writer`'s cache, which subclasses this
        one with a cache of its own, starts it with the default graph, as TF's does)."""
        return FileWriter(logdir)


def summary_iterator(path: str | os.PathLike) -> Iterator[Any]:
    """An iterator over the Event protos of an event file (TF1's `tf.train.summary_iterator`).

    As in TF, a missing file fails at the call and a corrupt record is DataLossError; a well-framed record
    that is no Event is DataLossError too (TF lets protobuf's DecodeError out: bad bytes here always
    come out as TF's error classes).
    """
    records = tf_record_iterator(path)
    path = os.fspath(path)

    def events() -> Iterator[Any]:
        for index, record in enumerate(records):
            try:
                yield Event.FromString(record)
            except message.DecodeError as e:
                raise errors.DataLossError(None, None, f"{path}: record {index} is not an Event: {e}") from None

    return events()
