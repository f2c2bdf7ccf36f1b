"""Readers (TF1's reader ops) and `tf.ReaderBase` with its TFRecord, text-line, whole-file, fixed-length,
identity and LMDB readers.

The LMDB reader is TF1's, whose op has only the ref-handle form: its verbs are the V1 reader ops (ReaderRead, …,
on a FakeQueue ref of the work queue), with the V2 ops' kernels. TF 2.21 keeps the op but its kernel fails
("LMDB support is removed from TensorFlow"); this one reads, as TF1 did through liblmdb, each work unit's
records in key order, keyed by their LMDB keys (with TF1's slips left out: a work unit after the first starts at
its own first record, and reset starts over).

A reader op (TFRecordReaderV2, …) finds or makes its `ReaderResource` in the device's ResourceMgr on its first run, as a
queue op does. A reader turns work units (filenames, dequeued from a queue of strings) into records, and keeps
TF's ReaderBase counters: work units started and finished (one is in progress while started > finished) and
records produced. ReaderReadV2 and ReaderReadUpToV2 are asynchronous kernels: the reads of one reader are served
one at a time in arrival order (TF's reader lock); a read that needs a work unit asks the queue for one and waits
without holding a thread, and the queue's answer carries it on on the answering thread. A queue closed and
drained fails the read with the queue's OutOfRangeError. A failed record keeps its work unit in progress, so the
next read fails the same way, as in TF.
"""

from __future__ import annotations

import collections
import itertools
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np
from google.protobuf import message, text_format

from tensorweave import errors
from tensorweave.formats import lmdb, protos, tfrecord
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Operation, Tensor
from tensorweave.framework.op_kernel import Done, OpKernelContext
from tensorweave.framework.op_registry import NotDifferentiable, Op
from tensorweave.framework.resource_mgr import ResourceSlot, resource_name
from tensorweave.framework.shape_inference import InferenceContext
from tensorweave.ops import io_ops
from tensorweave.ops.kernel_helpers import c_escape, invalid_argument
from tensorweave.ops.shape_helpers import with_rank
from tensorweave.platform.tf_export import tf_export


class _Read:
    """One ReaderRead(UpTo) call waiting in its reader's line: how many records it wants and what it has."""

    __slots__ = ("ctx", "done", "queue", "wanted", "batched", "keys", "values", "cancellation", "token")

    def __init__(self, ctx: OpKernelContext, done: Done, queue: Any, wanted: int, batched: bool) -> None:
        self.ctx = ctx
        self.done = done
        self.queue = queue
        self.wanted = wanted
        self.batched = batched
        self.keys: list[bytes] = []
        self.values: list[bytes] = []
        self.cancellation: Any = None
        self.token = 0

    def outputs(self) -> list[Any]:
        if self.batched:
            return [np.array(self.keys, dtype=object), np.array(self.values, dtype=object)]
        return [np.asarray(self.keys[0], dtype=object), np.asarray(self.values[0], dtype=object)]


def _check_work_queue(queue: Any) -> None:
    if len(queue.component_types) != 1:
        raise errors.InvalidArgumentError(None, None, "Expected single component queue")
    if queue.component_types[0] != dtypes.string:
        raise errors.InvalidArgumentError(None, None, "Expected queue with single string component")


class ReaderResource:
    """TF's ReaderBase: the counters, the line of reads, and the work-unit loop; subclasses read the records of
    one work unit (`_start_work`, `_records`, `_finish_work`)."""

    kind = "ReaderBase"
    supports_state = False

    def __init__(self, node_name: str, attrs: Any) -> None:
        self.name = f"{self.kind} '{node_name}'"
        self.lock = threading.Lock()
        self.work = b""
        self.work_started = 0
        self.work_finished = 0
        self.num_records_produced = 0
        self._error: errors.OpError | None = None  # what the work unit in progress failed with
        self._reads: collections.deque[_Read] = collections.deque()
        self._awaiting_work = False

    # -- one work unit (subclasses) ---------------------------------------------------------------------

    def _start_work(self) -> None:
        """Open `self.work`."""

    def _records(self, n: int) -> tuple[list[bytes], list[bytes], bool]:
        """Up to `n` (> 0) more keys and values of the work unit, and whether it has ended."""
        raise NotImplementedError

    def _finish_work(self) -> None:
        """Let go of the work unit's file."""

    # -- the line of reads ----------------------------------------------------------------------------------

    def read(self, ctx: OpKernelContext, done: Done, queue: Any, wanted: int, batched: bool) -> None:
        _check_work_queue(queue)
        read = _Read(ctx, done, queue, wanted, batched)
        with self.lock:
            self._reads.append(read)
        self._advance(None)
        with self.lock:
            if read not in self._reads:
                return
            cancellation = ctx.cancellation
            read.cancellation, read.token = cancellation, cancellation.get_cancellation_token()
            registered = cancellation.register_callback(read.token, lambda: self._cancel(read))
        if not registered:
            self._cancel(read)

    def read_now(self, queue: Any) -> tuple[bytes, bytes] | None:
        """The next record, for a ReaderRead that would be served at once (no read in line, a work unit in
        progress, its records not failed); None when it would have to wait or fail, which the caller then runs
        as a ReaderRead. As `_serve` for one record: a work unit found at its end is finished."""
        _check_work_queue(queue)
        with self.lock:
            if self._reads or self._awaiting_work or self.work_finished >= self.work_started or self._error:
                return None
            try:
                keys, values, at_end = self._records(1)
            except errors.OpError as e:
                self._error = e
                return None
            self.num_records_produced += len(keys)
            if at_end:
                self._finish_work()
                self.work_finished = self.work_started
            return (keys[0], values[0]) if keys else None

    def _cancel(self, read: _Read) -> None:
        """A cancelled step's read leaves the line, unless it is the one being served: its dequeue is cancelled
        with the same step, and that fails it."""
        with self.lock:
            if read not in self._reads or read is self._reads[0]:
                return
            self._reads.remove(read)
        read.done(error=errors.CancelledError(None, None, "Read operation was cancelled"))

    def _advance(self, answer: tuple[_Read, Any, BaseException | None] | None) -> None:
        """Serve the line while it progresses without waiting; `answer` is a queue's answer to a request for
        work. A request answered at once is taken in this loop, so a run of empty files does not recurse."""
        while True:
            finished: list[tuple[_Read, Any]] = []
            with self.lock:
                if answer is not None:
                    self._take_work(*answer, finished)
                needy = self._serve(finished)
            self._complete(finished)
            if needy is None:
                return
            answer = self._request_work(needy)
            if answer is None:
                return

    def _serve(self, finished: list[tuple[_Read, Any]]) -> _Read | None:
        """TF's ReaderBase::ReadUpTo for the reads in line (under the lock): the first read that needs a work
        unit, or None when the line is empty or already waits for one."""
        while self._reads and not self._awaiting_work:
            read = self._reads[0]
            if self.work_finished >= self.work_started:
                self._awaiting_work = True
                return read
            try:
                if self._error is not None:
                    raise self._error
                keys, values, at_end = self._records(read.wanted - len(read.keys))
            except errors.OpError as e:
                self._error = e
                self._reads.popleft()
                finished.append((read, e))
                continue
            read.keys += keys
            read.values += values
            self.num_records_produced += len(keys)
            if at_end:
                self._finish_work()
                self.work_finished = self.work_started
            if len(read.keys) == read.wanted or (at_end and read.keys):
                self._reads.popleft()
                finished.append((read, read.outputs()))
        return None

    def _request_work(self, read: _Read) -> tuple[_Read, Any, BaseException | None] | None:
        """Ask `read`'s queue for a work unit: its answer if it came at once, else None (the answer carries the
        line on when it comes)."""
        lock = threading.Lock()
        pending: list[Any] = [True, None]  # still inside try_dequeue; an answer given meanwhile

        def answer(outputs: Any = None, error: BaseException | None = None) -> None:
            with lock:
                if pending[0]:
                    pending[1] = (read, outputs, error)
                    return
            self._advance((read, outputs, error))

        try:
            read.queue.try_dequeue(read.ctx, answer, 1, allow_small=False, batched=False)
        except errors.OpError as e:
            answer(error=e)
        with lock:
            pending[0] = False
            return pending[1]

    def _take_work(self, read: _Read, outputs: Any, error: BaseException | None,
                   finished: list[tuple[_Read, Any]]) -> None:
        """Start the work unit the queue gave `read` (under the lock); a failed dequeue or open fails `read`."""
        self._awaiting_work = False
        if error is None:
            if np.size(outputs) != 1:
                error = errors.InvalidArgumentError(None, None, "Expected to dequeue a one-element string tensor")
            else:
                self.work = bytes(np.ravel(outputs)[0])
                self._error = None
                try:
                    self._start_work()
                    self.work_started += 1
                except errors.OpError as e:
                    error = e
        if error is not None:
            self._reads.remove(read)
            finished.append((read, error))

    @staticmethod
    def _complete(finished: list[tuple[_Read, Any]]) -> None:
        for read, result in finished:
            if read.cancellation is not None:
                read.cancellation.deregister_callback(read.token)
            if isinstance(result, BaseException):
                read.done(error=result)
            else:
                read.done(result)

    # -- the other verbs ------------------------------------------------------------------------------------

    def reset(self) -> None:
        with self.lock:
            if self.work_finished < self.work_started:
                self._finish_work()
            self.work, self._error = b"", None
            self.work_started = self.work_finished = self.num_records_produced = 0

    def serialize_state(self) -> bytes:
        if not self.supports_state:
            raise errors.UnimplementedError(None, None, "Reader SerializeState")
        with self.lock:
            return protos.ReaderBaseState(work_started=self.work_started, work_finished=self.work_finished,
                                          num_records_produced=self.num_records_produced,
                                          current_work=self.work).SerializeToString()

    def restore_state(self, state: bytes) -> None:
        """As TF's ReaderBase::RestoreState: a state that fails to restore resets the reader."""
        if not self.supports_state:
            raise errors.UnimplementedError(None, None, "Reader RestoreState")
        proto = protos.ReaderBaseState()
        try:
            proto.ParseFromString(state)
        except message.DecodeError:
            self.reset()
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse state for {self.name}: {c_escape(state)}") from None
        with self.lock:
            self.work_started, self.work_finished = proto.work_started, proto.work_finished
            self.num_records_produced, self.work = proto.num_records_produced, proto.current_work
            problem = None
            if min(self.work_started, self.work_finished, self.num_records_produced) < 0:
                problem = "Unexpected negative value"
            elif self.work_started > self.work_finished:
                problem = "Inconsistent work started vs. finished"
        if problem:
            self.reset()
            raise errors.InvalidArgumentError(
                None, None, f"{problem} when restoring in {self.name}: "
                            f"{text_format.MessageToString(proto, as_one_line=True)}")


def _failing_reads(path: str) -> Iterator[bytes]:
    """The reads of a directory: TF opens one as a file and fails at its first read, so the work unit has
    started and each later read of it fails the same way."""
    raise tfrecord.os_error(path, IsADirectoryError())
    yield b""  # makes this a generator


class _TFRecordFiles(ReaderResource):
    """Records of TFRecord files; a record's key is `filename:offset` (in the uncompressed stream)."""

    kind = "TFRecordReader"

    def __init__(self, node_name: str, attrs: Any) -> None:
        super().__init__(node_name, attrs)
        self._compression = attrs["compression_type"].decode()
        self._file: Any = None
        self._records_left: Iterator[bytes] = iter(())
        self._offset = 0

    def _start_work(self) -> None:
        path = self.work.decode()
        self._offset = 0
        if os.path.isdir(path):
            self._records_left = _failing_reads(path)
            return
        self._file = tfrecord.open_or_raise(path, "rb")
        size = None if self._compression else os.fstat(self._file.fileno()).st_size
        self._records_left = tfrecord.read_records(self._file, self._compression, size)

    def _records(self, n: int) -> tuple[list[bytes], list[bytes], bool]:
        values = list(itertools.islice(self._records_left, n))
        keys = []
        prefix = self.work + b":"
        for value in values:
            keys.append(prefix + str(self._offset).encode())
            self._offset += len(value) + 16
        return keys, values, len(values) < n

    def _finish_work(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class _TextLines(ReaderResource):
    """Lines of text files (without `\\n` or `\\r\\n`) after `skip_header_lines`; a key is `filename:line`."""

    kind = "TextLineReader"

    def __init__(self, node_name: str, attrs: Any) -> None:
        super().__init__(node_name, attrs)
        self._skip = attrs["skip_header_lines"]
        self._file: Any = None
        self._line = 0

    def _start_work(self) -> None:
        path = self.work.decode()
        self._line = self._skip
        if os.path.isdir(path):
            self._lines: Iterator[bytes] = _failing_reads(path)
            return
        self._file = tfrecord.open_or_raise(path, "rb")
        for _ in range(self._skip):
            self._file.readline()
        self._lines = self._file

    def _records(self, n: int) -> tuple[list[bytes], list[bytes], bool]:
        keys, values = [], []
        prefix = self.work + b":"
        for line in itertools.islice(self._lines, n):
            self._line += 1
            keys.append(prefix + str(self._line).encode())
            values.append(line[:-2] if line.endswith(b"\r\n") else line.rstrip(b"\n"))
        return keys, values, len(values) < n

    def _finish_work(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class _FixedLengthRecords(ReaderResource):
    """Records of `record_bytes` every `hop_bytes` (default: back to back) between a header and a footer of
    (decompressed) files; a key is `filename:record_number`, and a final partial record is dropped."""

    kind = "FixedLengthRecordReader"

    def __init__(self, node_name: str, attrs: Any) -> None:
        for attr in ("header_bytes", "record_bytes", "footer_bytes", "hop_bytes"):  # TF's kernel construction
            if attrs[attr] < 0:
                raise errors.InvalidArgumentError(None, None, f"{attr} must be >= 0 not {attrs[attr]}")
        super().__init__(node_name, attrs)
        self._header, self._footer = attrs["header_bytes"], attrs["footer_bytes"]
        self._size = attrs["record_bytes"]
        self._hop = attrs["hop_bytes"] or self._size
        self._encoding = attrs["encoding"].decode()
        self._data = b""
        self._count = self._next = 0

    def _start_work(self) -> None:
        with tfrecord.open_or_raise(self.work.decode(), "rb") as f:
            data = b"".join(tfrecord.decompressed_chunks(f, self._encoding))
        self._data = data[self._header:max(self._header, len(data) - self._footer)]
        if not self._hop:  # record_bytes 0 and no hop: TF's reader yields empty records without end
            self._count = sys.maxsize
        else:
            self._count = (len(self._data) - self._size) // self._hop + 1 if len(self._data) >= self._size else 0
        self._next = 0

    def _records(self, n: int) -> tuple[list[bytes], list[bytes], bool]:
        numbers = range(self._next, min(self._next + n, self._count))
        self._next = numbers.stop
        prefix = self.work + b":"
        return ([prefix + str(i).encode() for i in numbers],
                [self._data[i * self._hop:i * self._hop + self._size] for i in numbers], len(numbers) < n)

    def _finish_work(self) -> None:
        self._data = b""


class _WholeFiles(ReaderResource):
    """One record per file: its name and its contents."""

    kind = "WholeFileReader"
    supports_state = True

    def _records(self, n: int) -> tuple[list[bytes], list[bytes], bool]:
        return [self.work], [io_ops.read_entire_file(self.work.decode())], True


class _Identity(ReaderResource):
    """One record per work unit: the work unit as both key and value."""

    kind = "IdentityReader"
    supports_state = True

    def _records(self, n: int) -> tuple[list[bytes], list[bytes], bool]:
        return [self.work], [self.work], True


class _LMDBRecords(ReaderResource):
    """The records of LMDB files (or environment directories): each key and value as stored, in key order."""

    kind = "LMDBReader"

    def __init__(self, node_name: str, attrs: Any) -> None:
        super().__init__(node_name, attrs)
        self._file: lmdb.LMDBFile | None = None
        self._records_left: Iterator[tuple[bytes, bytes]] = iter(())

    def _start_work(self) -> None:
        self._file = lmdb.LMDBFile(self.work.decode())
        self._records_left = self._file.records()

    def _records(self, n: int) -> tuple[list[bytes], list[bytes], bool]:
        records = list(itertools.islice(self._records_left, n))
        return [key for key, _ in records], [value for _, value in records], len(records) < n

    def _finish_work(self) -> None:
        if self._file is not None:
            self._records_left = iter(())
            self._file.close()
            self._file = None


# -- the reader ops -----------------------------------------------------------------------------------------

_SHARED = ["container: string = ''", "shared_name: string = ''"]
TFRecordReaderV2 = Op("TFRecordReaderV2", outputs=["reader_handle: resource"],
                      attrs=_SHARED + ["compression_type: string = ''"], is_stateful=True)
TextLineReaderV2 = Op("TextLineReaderV2", outputs=["reader_handle: resource"],
                      attrs=["skip_header_lines: int = 0"] + _SHARED, is_stateful=True)
WholeFileReaderV2 = Op("WholeFileReaderV2", outputs=["reader_handle: resource"], attrs=_SHARED, is_stateful=True)
FixedLengthRecordReaderV2 = Op(
    "FixedLengthRecordReaderV2", outputs=["reader_handle: resource"],
    attrs=["header_bytes: int = 0", "record_bytes: int", "footer_bytes: int = 0", "hop_bytes: int = 0"] + _SHARED
    + ["encoding: string = ''"], is_stateful=True)
IdentityReaderV2 = Op("IdentityReaderV2", outputs=["reader_handle: resource"], attrs=_SHARED, is_stateful=True)
LMDBReaderOp = Op("LMDBReader", outputs=["reader_handle: Ref(string)"], attrs=_SHARED, is_stateful=True)

_READER_CLASSES = {"TFRecordReaderV2": _TFRecordFiles, "TextLineReaderV2": _TextLines,
                   "WholeFileReaderV2": _WholeFiles, "FixedLengthRecordReaderV2": _FixedLengthRecords,
                   "IdentityReaderV2": _Identity, "LMDBReader": _LMDBRecords}


def _scalars(num_outputs: int) -> Any:
    """TF's ScalarInputsAndOutputs: every input a scalar, and so each of `num_outputs` outputs."""

    def shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        for i in range(ctx.num_inputs):
            with_rank(ctx.input_shape(i), 0)
        return [tensor_shape.TensorShape([])] * num_outputs

    return shape


@LMDBReaderOp.kernel("CPU", state=ResourceSlot)
@TFRecordReaderV2.kernel("CPU", state=ResourceSlot)
@TextLineReaderV2.kernel("CPU", state=ResourceSlot)
@WholeFileReaderV2.kernel("CPU", state=ResourceSlot)
@FixedLengthRecordReaderV2.kernel("CPU", state=ResourceSlot)
@IdentityReaderV2.kernel("CPU", state=ResourceSlot)
def _reader(ctx: OpKernelContext) -> ReaderResource:
    def find_or_make() -> ReaderResource:
        attrs = ctx.node_def.attr
        name = resource_name(attrs["shared_name"].decode(), ctx.name)
        cls = _READER_CLASSES[ctx.op]
        return ctx.resources.lookup_or_create(attrs["container"].decode(), name, lambda: cls(ctx.name, attrs))

    slot: ResourceSlot = ctx.state
    return slot.get(find_or_make)


ReaderReadV2 = Op("ReaderReadV2", inputs=["reader_handle: resource", "queue_handle: resource"],
                  outputs=["key: string", "value: string"], is_stateful=True)
ReaderReadUpToV2 = Op("ReaderReadUpToV2",
                      inputs=["reader_handle: resource", "queue_handle: resource", "num_records: int64"],
                      outputs=["keys: string", "values: string"], is_stateful=True)
ReaderNumRecordsProducedV2 = Op("ReaderNumRecordsProducedV2", inputs=["reader_handle: resource"],
                                outputs=["records_produced: int64"], is_stateful=True)
ReaderNumWorkUnitsCompletedV2 = Op("ReaderNumWorkUnitsCompletedV2", inputs=["reader_handle: resource"],
                                   outputs=["units_completed: int64"], is_stateful=True)
ReaderSerializeStateV2 = Op("ReaderSerializeStateV2", inputs=["reader_handle: resource"],
                            outputs=["state: string"], is_stateful=True)
ReaderRestoreStateV2 = Op("ReaderRestoreStateV2", inputs=["reader_handle: resource", "state: string"],
                          is_stateful=True)
ReaderResetV2 = Op("ReaderResetV2", inputs=["reader_handle: resource"], is_stateful=True)
ReaderRead = Op("ReaderRead", inputs=["reader_handle: Ref(string)", "queue_handle: Ref(string)"],
                outputs=["key: string", "value: string"])
ReaderReadUpTo = Op("ReaderReadUpTo",
                    inputs=["reader_handle: Ref(string)", "queue_handle: Ref(string)", "num_records: int64"],
                    outputs=["keys: string", "values: string"])
ReaderNumRecordsProduced = Op("ReaderNumRecordsProduced", inputs=["reader_handle: Ref(string)"],
                              outputs=["records_produced: int64"])
ReaderNumWorkUnitsCompleted = Op("ReaderNumWorkUnitsCompleted", inputs=["reader_handle: Ref(string)"],
                                 outputs=["units_completed: int64"])
ReaderSerializeState = Op("ReaderSerializeState", inputs=["reader_handle: Ref(string)"], outputs=["state: string"])
ReaderRestoreState = Op("ReaderRestoreState", inputs=["reader_handle: Ref(string)", "state: string"])
ReaderReset = Op("ReaderReset", inputs=["reader_handle: Ref(string)"])
FakeQueue = Op("FakeQueue", inputs=["resource: resource"], outputs=["handle: Ref(string)"], is_stateful=True)

for _op, _num_outputs in ((TFRecordReaderV2, 1), (TextLineReaderV2, 1), (WholeFileReaderV2, 1),
                          (FixedLengthRecordReaderV2, 1), (IdentityReaderV2, 1), (ReaderReadV2, 2),
                          (ReaderNumRecordsProducedV2, 1), (ReaderNumWorkUnitsCompletedV2, 1),
                          (ReaderSerializeStateV2, 1), (ReaderRestoreStateV2, 0), (ReaderResetV2, 0)):
    _op.shape(_scalars(_num_outputs))
    NotDifferentiable(_op.name)
NotDifferentiable("ReaderReadUpToV2")


def _ref_handles(handles: int, scalars: int, num_outputs: int) -> Any:
    """TF's shapes for the ref-handle reader ops: `handles` two-element string vectors, then scalars, and so
    `num_outputs` scalar outputs."""

    def shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
        for i in range(handles):
            handle = with_rank(ctx.input_shape(i), 1)
            if handle.dims[0].value not in (None, 2):
                raise ValueError(f"Dimension must be 2 but is {handle.dims[0].value}")
        for i in range(handles, handles + scalars):
            with_rank(ctx.input_shape(i), 0)
        return [tensor_shape.TensorShape([])] * num_outputs

    return shape


for _op, _handles, _num_outputs in ((ReaderRead, 2, 2), (ReaderNumRecordsProduced, 1, 1),
                                    (ReaderNumWorkUnitsCompleted, 1, 1), (ReaderSerializeState, 1, 1),
                                    (ReaderReset, 1, 0)):
    _op.shape(_ref_handles(_handles, 0, _num_outputs))
    NotDifferentiable(_op.name)
ReaderRestoreState.shape(_ref_handles(1, 1, 0))
NotDifferentiable("ReaderRestoreState")
NotDifferentiable("ReaderReadUpTo")
NotDifferentiable("FakeQueue")
NotDifferentiable("LMDBReader")


@ReaderReadUpTo.shape
def _read_up_to_v1_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    _ref_handles(2, 1, 0)(ctx)
    return [tensor_shape.TensorShape([None]), tensor_shape.TensorShape([None])]


@LMDBReaderOp.shape
@FakeQueue.shape
def _ref_handle_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    return [tensor_shape.TensorShape([2])]


@FakeQueue.kernel("CPU")
def _fake_queue(ctx: OpKernelContext, resource: Any) -> Any:
    """The queue itself, as a ref handle for the V1 reader ops."""
    return resource


@ReaderReadUpToV2.shape
def _read_up_to_shape(ctx: InferenceContext) -> list[tensor_shape.TensorShape]:
    for i in range(3):
        with_rank(ctx.input_shape(i), 0)
    return [tensor_shape.TensorShape([None]), tensor_shape.TensorShape([None])]


@ReaderRead.kernel("CPU", asynchronous=True)
@ReaderReadV2.kernel("CPU", asynchronous=True)
def _read(ctx: OpKernelContext, done: Done, reader: ReaderResource, queue: Any) -> None:
    reader.read(ctx, done, queue, 1, batched=False)


@ReaderReadUpTo.kernel("CPU", asynchronous=True)
@ReaderReadUpToV2.kernel("CPU", asynchronous=True)
def _read_up_to(ctx: OpKernelContext, done: Done, reader: ReaderResource, queue: Any, num_records: Any) -> None:
    if int(num_records) < 0:
        raise invalid_argument(ctx, f"num_records must be >= 0, got {int(num_records)}")
    if int(num_records) == 0:
        done([np.array([], dtype=object), np.array([], dtype=object)])
        return
    reader.read(ctx, done, queue, int(num_records), batched=True)


@ReaderNumRecordsProduced.kernel("CPU")
@ReaderNumRecordsProducedV2.kernel("CPU")
def _num_records_produced(ctx: OpKernelContext, reader: ReaderResource) -> Any:
    return np.int64(reader.num_records_produced)


@ReaderNumWorkUnitsCompleted.kernel("CPU")
@ReaderNumWorkUnitsCompletedV2.kernel("CPU")
def _num_work_units_completed(ctx: OpKernelContext, reader: ReaderResource) -> Any:
    return np.int64(reader.work_finished)


@ReaderSerializeState.kernel("CPU")
@ReaderSerializeStateV2.kernel("CPU")
def _serialize_state(ctx: OpKernelContext, reader: ReaderResource) -> Any:
    return np.asarray(reader.serialize_state(), dtype=object)


@ReaderRestoreState.kernel("CPU")
@ReaderRestoreStateV2.kernel("CPU")
def _restore_state(ctx: OpKernelContext, reader: ReaderResource, state: Any) -> None:
    if np.ndim(state) != 0:
        raise invalid_argument(ctx, f"Could not restore state for {reader.name}: expected a scalar state")
    reader.restore_state(state[()])


@ReaderReset.kernel("CPU")
@ReaderResetV2.kernel("CPU")
def _reset(ctx: OpKernelContext, reader: ReaderResource) -> None:
    reader.reset()


# -- the Python classes ----------------------------------------------------------------------------------


@tf_export("ReaderBase")
class ReaderBase:
    """A reader of records from the work units (filenames) of a queue, and its counters and state."""

    def __init__(self, reader_ref: Tensor, supports_serialize: bool = False) -> None:
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self) -> Tensor:
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        """Whether `serialize_state` and `restore_state` work for this reader."""
        return self._supports_serialize

    def _ops(self) -> Any:
        """The reader verbs for this reader's handle: the V2 ops on a resource, TF1's ref-handle ops else."""
        return _V2_VERBS if self._reader_ref.dtype == dtypes.resource else _V1_VERBS

    def _queue_handle(self, queue: Any) -> Tensor:
        """The work queue's handle, behind a FakeQueue ref for the ref-handle ops (as TF does)."""
        queue_ref = queue if isinstance(queue, Tensor) else queue.queue_ref
        return queue_ref if self._ops() is _V2_VERBS else FakeQueue(queue_ref)

    def read(self, queue: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
        """The next (key, value) record, taking a new work unit from `queue` when the current one ends."""
        op = self._ops()["read"]
        return _READ_RESULTS[op.name](*op(self._reader_ref, self._queue_handle(queue), name=name))

    def read_up_to(self, queue: Any, num_records: Any, name: str | None = None) -> tuple[Tensor, Tensor]:
        """Up to `num_records` records (fewer at the end of a work unit), as vectors of keys and values."""
        op = self._ops()["read_up_to"]
        return _READ_RESULTS[op.name](*op(self._reader_ref, self._queue_handle(queue), num_records, name=name))

    def num_records_produced(self, name: str | None = None) -> Tensor:
        return self._ops()["num_records_produced"](self._reader_ref, name=name)

    def num_work_units_completed(self, name: str | None = None) -> Tensor:
        return self._ops()["num_work_units_completed"](self._reader_ref, name=name)

    def serialize_state(self, name: str | None = None) -> Tensor:
        """The reader's state as a string (UnimplementedError at run time for readers that cannot)."""
        return self._ops()["serialize_state"](self._reader_ref, name=name)

    def restore_state(self, state: Any, name: str | None = None) -> Operation:
        return self._ops()["restore_state"](self._reader_ref, state, name=name)

    def reset(self, name: str | None = None) -> Operation:
        """Back to the initial state: no work unit, all counters zero."""
        return self._ops()["reset"](self._reader_ref, name=name)


# TF's generated wrappers return their outputs as a namedtuple named after the op.
_READ_RESULTS = {name: collections.namedtuple(name, fields) for name, fields in (
    ("ReaderReadV2", ["key", "value"]), ("ReaderRead", ["key", "value"]),
    ("ReaderReadUpToV2", ["keys", "values"]), ("ReaderReadUpTo", ["keys", "values"]))}

_V2_VERBS = {"read": ReaderReadV2, "read_up_to": ReaderReadUpToV2, "num_records_produced": ReaderNumRecordsProducedV2,
             "num_work_units_completed": ReaderNumWorkUnitsCompletedV2, "serialize_state": ReaderSerializeStateV2,
             "restore_state": ReaderRestoreStateV2, "reset": ReaderResetV2}
_V1_VERBS = {"read": ReaderRead, "read_up_to": ReaderReadUpTo, "num_records_produced": ReaderNumRecordsProduced,
             "num_work_units_completed": ReaderNumWorkUnitsCompleted, "serialize_state": ReaderSerializeState,
             "restore_state": ReaderRestoreState, "reset": ReaderReset}


@tf_export("TFRecordReader")
class TFRecordReader(ReaderBase):
    """Reads the records of TFRecord files (compressed as `options` says)."""

    def __init__(self, name: str | None = None, options: Any = None) -> None:
        compression_type = tfrecord.TFRecordOptions.get_compression_type_string(options)
        super().__init__(TFRecordReaderV2(compression_type=compression_type, name=name))


@tf_export("TextLineReader")
class TextLineReader(ReaderBase):
    """Reads the lines of text files, after `skip_header_lines` lines of each."""

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None) -> None:
        super().__init__(TextLineReaderV2(skip_header_lines=skip_header_lines or 0, name=name))


@tf_export("WholeFileReader")
class WholeFileReader(ReaderBase):
    """Reads each file whole, as one record keyed by its name."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(WholeFileReaderV2(name=name), supports_serialize=True)


@tf_export("FixedLengthRecordReader")
class FixedLengthRecordReader(ReaderBase):
    """Reads records of a fixed number of bytes from files with an optional header and footer."""

    def __init__(self, record_bytes: int, header_bytes: int | None = None, footer_bytes: int | None = None,
                 hop_bytes: int | None = None, name: str | None = None, encoding: str | None = None) -> None:
        super().__init__(FixedLengthRecordReaderV2(
            record_bytes=record_bytes, header_bytes=header_bytes or 0, footer_bytes=footer_bytes or 0,
            hop_bytes=hop_bytes or 0, encoding=encoding or "", name=name))


@tf_export("IdentityReader")
class IdentityReader(ReaderBase):
    """Reads each work unit as a record whose key and value are the work unit itself."""

    def __init__(self, name: str | None = None) -> None:
        super().__init__(IdentityReaderV2(name=name), supports_serialize=True)


@tf_export("LMDBReader")
class LMDBReader(ReaderBase):
    """Reads the records of LMDB files or environment directories, in key order (`options` is unused, as TF's)."""

    def __init__(self, name: str | None = None, options: Any = None) -> None:
        super().__init__(LMDBReaderOp(name=name))
