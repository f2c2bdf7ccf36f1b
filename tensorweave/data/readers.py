"""File datasets: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset and CsvDataset (with
make_csv_dataset, which infers its columns from the files).

Each captures its file names (a string scalar or vector, possibly fed) and options as tensors and reads the
files one after another when iterated, with TF's compression types ('', 'ZLIB', 'GZIP'); TFRecord framing
and CRC checks are formats/tfrecord.py's. `buffer_size` and `num_parallel_reads` only tune TF's reads and
are accepted and ignored.
"""

from __future__ import annotations

import collections
import csv
import io
import re
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.data import structure
from tensorweave.data.dataset_ops import AUTOTUNE, DatasetV1, Element, _Run
from tensorweave.data.experimental_ops import ignore_errors as ignore_errors_transformation
from tensorweave.data.experimental_ops import parallel_interleave, parse_example_dataset
from tensorweave.data.options import Options
from tensorweave.data.sources import DatasetSource
from tensorweave.formats.tfrecord import decompressed_chunks, open_or_raise, read_records
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import Tensor, convert_to_tensor
from tensorweave.framework.op_registry import Op
from tensorweave.framework.tensor_util import constant_value, is_tensor
from tensorweave.ops import constant_ops, dataset_ops, shape_ops
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export

_COMPRESSIONS = ("", "ZLIB", "GZIP")


def _names(filenames: Any) -> list[str]:
    return [n.decode() if isinstance(n, bytes) else str(n) for n in np.asarray(filenames, dtype=object).reshape(-1)]


def _compression(value: Any, named: bool = False) -> str:
    """A dataset's compression type; TF's CSV dataset names a bad one in its message, the others do not."""
    compression = np.asarray(value, dtype=object).item()
    compression = compression.decode() if isinstance(compression, bytes) else compression
    if compression not in _COMPRESSIONS:
        raise errors.InvalidArgumentError(
            None, None, f"Unsupported compression_type: {compression}." if named else "Unsupported compression_type.")
    return compression


def _filenames(filenames: Any, name: str | None = "filenames") -> Any:
    """File names as a string tensor of any rank (TF flattens it), with TF's TypeError for other types."""
    tensor = convert_to_tensor(filenames, dtype_hint=dtypes.string, name=name)
    if tensor.dtype != dtypes.string:
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `{tensor.dtype!r}` "
                        "elements.")
    return tensor


def _string(value: Any, name: str) -> Any:
    return convert_to_tensor("" if value is None else value, dtype=dtypes.string, name=name)


def _record(data: bytes) -> Element:
    return [np.asarray(data, dtype=object)]


def _file_bytes(path: str, compression: str) -> bytes:
    """A whole file's (decompressed) bytes, a corrupt stream failing with TF's message."""
    with open_or_raise(path, "rb") as f:
        return b"".join(decompressed_chunks(f, compression))


class _ReaderDataset(DatasetV1):
    """A reader of files (TF's: a flat_map of a per-file reader over the dataset of the file names) under its
    public class, whose node is that flat_map's."""

    _same_cardinality = True

    def __init__(self, filenames: Any, read_one_file: Callable[[Tensor], DatasetV1],
                 num_parallel_reads: Any) -> None:
        files = _files(filenames)

        def read(filename: Tensor) -> DatasetV1:
            return read_one_file(convert_to_tensor(filename, dtype=dtypes.string, name="filename"))

        if num_parallel_reads is None:
            self._impl = files.flat_map(read)
        elif num_parallel_reads == AUTOTUNE:
            self._impl = files.interleave(read, num_parallel_calls=num_parallel_reads)
        else:
            self._impl = files.apply(parallel_interleave(read, num_parallel_reads))
        super().__init__((self._impl,), [], self._impl.element_spec)

    def _node(self, name: str | None = None) -> Tensor:
        return self._impl._variant_tensor()

    def _iterate(self, run: _Run) -> Iterator[Element]:
        return self._impl._iterate(run)


def _files(filenames: Any) -> DatasetV1:
    """TF's dataset of the file names: a dataset of string scalars as given, else the slices of the names
    reshaped to a vector (`flat_filenames`)."""
    if isinstance(filenames, DatasetV1):
        types, shapes = structure.legacy_types(filenames.element_spec), structure.legacy_shapes(filenames.element_spec)
        if types != dtypes.string:
            raise TypeError("The `filenames` argument must contain `tf.string` elements. Got a dataset of "
                            f"`{types!r}` elements.")
        if not shapes.is_compatible_with(tensor_shape.TensorShape([])):
            raise TypeError("The `filenames` argument must contain `tf.string` elements of shape [] (i.e. scalars). "
                            f"Got a dataset of element shape {shapes!r}.")
        return filenames
    return DatasetV1.from_tensor_slices(shape_ops.reshape(_filenames(filenames, None), [-1], name="flat_filenames"))


def _file_reader(op: Op, captures: list[Tensor], produce: Callable[..., Iterator[Element]]) -> DatasetV1:
    """The records of one file: the dataset TF's reader makes per file name (a node of TF's reader `op`), in the
    function its flat_map (or interleave) traces."""
    return DatasetSource(captures, dtypes.string, tensor_shape.TensorShape([]), produce, op)


def _int64_or(value: Any, default: int, name: str) -> Tensor:
    return convert_to_tensor(default if value is None else value, dtype=dtypes.int64, name=name)


# TF's read buffer sizes (bytes): a TFRecord reader's, and the other readers'
_TF_RECORD_BUFFER_SIZE = 256 * 1024
_READER_BUFFER_SIZE = 256 * 1024


@tf_export("data.TFRecordDataset")
class TFRecordDatasetV1(_ReaderDataset):
    """A dataset of the records of one or more TFRecord files."""

    _tf_class_name = "TFRecordDatasetV2"

    def __init__(self, filenames: Any, compression_type: str | None = None, buffer_size: int | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None) -> None:
        def read(filename: Tensor) -> DatasetV1:
            return _file_reader(dataset_ops.TFRecordDataset, [
                filename, _string(compression_type, "compression_type"),
                _int64_or(buffer_size, _TF_RECORD_BUFFER_SIZE, "buffer_size")], _tfrecords)

        super().__init__(filenames, read, num_parallel_reads)


def _tfrecords(failed: Callable[[errors.OpError], None], filenames: Any, compression_type: Any,
               buffer_size: Any) -> Iterator[Element]:
    """The records of each file; a corrupt record (DataLossError) ends its file, and below an ignore_errors
    the next file follows, as in TF. An unknown compression type reads the files uncompressed, as TF's
    RecordReaderOptions do (it only logs it)."""
    compression = np.asarray(compression_type, dtype=object).item()
    compression = compression.decode() if isinstance(compression, bytes) else compression
    compression = compression if compression in _COMPRESSIONS else ""
    for path in _names(filenames):
        with open_or_raise(path, "rb") as f:
            try:
                for data in read_records(f, compression):
                    yield _record(data)
            except errors.DataLossError as e:
                failed(e)


@tf_export("data.TextLineDataset")
class TextLineDatasetV1(_ReaderDataset):
    """A dataset of the lines of one or more text files (without their line ends)."""

    _tf_class_name = "TextLineDatasetV2"

    def __init__(self, filenames: Any, compression_type: str | None = None, buffer_size: int | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None) -> None:
        def read(filename: Tensor) -> DatasetV1:
            return _file_reader(dataset_ops.TextLineDataset, [
                filename, _string(compression_type, "compression_type"),
                _int64_or(buffer_size, _READER_BUFFER_SIZE, "buffer_size")], _text_lines)

        super().__init__(filenames, read, num_parallel_reads)


def _text_lines(failed: Callable[[errors.OpError], None], filenames: Any, compression_type: Any,
                buffer_size: Any) -> Iterator[Element]:
    compression = _compression(compression_type)
    for path in _names(filenames):
        lines = _file_bytes(path, compression).split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        for line in lines:
            yield _record(line[:-1] if line.endswith(b"\r") else line)


@tf_export("data.FixedLengthRecordDataset")
class FixedLengthRecordDatasetV1(_ReaderDataset):
    """A dataset of fixed-length records from one or more binary files, after a header and before a footer."""

    _tf_class_name = "FixedLengthRecordDatasetV2"

    def __init__(self, filenames: Any, record_bytes: int, header_bytes: int | None = None,
                 footer_bytes: int | None = None, buffer_size: int | None = None, compression_type: str | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None) -> None:
        def read(filename: Tensor) -> DatasetV1:
            return _file_reader(dataset_ops.FixedLengthRecordDatasetV2, [
                filename, _int64_or(header_bytes, 0, "header_bytes"),
                convert_to_tensor(record_bytes, dtype=dtypes.int64, name="record_bytes"),
                _int64_or(footer_bytes, 0, "footer_bytes"), _int64_or(buffer_size, _READER_BUFFER_SIZE, "buffer_size"),
                _string(compression_type, "compression_type")], _fixed_length_records)

        super().__init__(filenames, read, num_parallel_reads)


def _fixed_length_records(failed: Callable[[errors.OpError], None], filenames: Any, header_bytes: Any,
                          record_bytes: Any, footer_bytes: Any, buffer_size: Any,
                          compression_type: Any) -> Iterator[Element]:
    """The records of each file, as TF's: an uncompressed file whose body is not a whole number of records fails
    before its first record (InvalidArgumentError); a compressed one is read as a stream, and its partial last
    record or a corrupt stream fails after the records before it (DataLossError), which below an ignore_errors
    the next file follows."""
    size, header, footer = int(record_bytes), int(header_bytes), int(footer_bytes)
    for wrong, message in ((header < 0, "`header_bytes` must be >= 0"), (size <= 0, "`record_bytes` must be > 0"),
                           (footer < 0, "`footer_bytes` must be >= 0")):
        if wrong:
            raise errors.InvalidArgumentError(None, None, message)
    compression = _compression(compression_type)
    for path in _names(filenames):
        if compression:
            try:
                yield from _streamed_records(path, size, header, footer, compression)
            except errors.DataLossError as e:
                failed(e)
            continue
        data = _file_bytes(path, compression)
        body = data[header:len(data) - footer]
        if len(data) >= header + footer and len(body) % size:
            raise _not_whole_records(errors.InvalidArgumentError, path, header, footer, len(body), size)
        for start in range(0, len(body) - size + 1, size):
            yield _record(body[start:start + size])


def _streamed_records(path: str, size: int, header: int, footer: int, compression: str) -> Iterator[Element]:
    """The records of a compressed file as its stream is inflated (the footer's bytes held back)."""
    buffer, total = b"", 0
    with open_or_raise(path, "rb") as f:
        for chunk in decompressed_chunks(f, compression):
            skip = max(0, header - total)  # what of the header this chunk still holds
            total += len(chunk)
            buffer += chunk[skip:]
            count = max(0, (len(buffer) - footer) // size)
            for i in range(count):
                yield _record(buffer[i * size:(i + 1) * size])
            buffer = buffer[count * size:]
    if len(buffer) > footer:
        raise _not_whole_records(errors.DataLossError, path, header, footer, total - header - footer, size)


def _not_whole_records(cls: type, path: str, header: int, footer: int, body: int, size: int) -> errors.OpError:
    return cls(None, None, f"Excluding the header ({header} bytes) and footer ({footer} bytes), input file \"{path}\" "
                           f"has body length {body} bytes, which is not an exact multiple of the record length "
                           f"({size} bytes).")


@tf_export("data.experimental.make_batched_features_dataset")
def make_batched_features_dataset(file_pattern: Any, batch_size: int, features: dict, reader: Any = None,
                                  label_key: str | None = None, reader_args: Any = None, num_epochs: int | None = None,
                                  shuffle: bool = True, shuffle_buffer_size: int = 10000,
                                  shuffle_seed: int | None = None, prefetch_buffer_size: int | None = None,
                                  reader_num_threads: int | None = None, parser_num_threads: int | None = None,
                                  sloppy_ordering: bool = False, drop_final_batch: bool = False) -> DatasetV1:
    """TF1's feature-column input: the records of the matching files (interleaved, shuffled, repeated),
    batched and parsed into a dict of tensors and sparse tensors; with `label_key`, (features, label) pairs.
    The files are read in the deterministic order whatever `sloppy_ordering` says."""
    reader = TFRecordDatasetV1 if reader is None else reader
    dataset = DatasetV1.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    dataset = dataset.interleave(lambda filename: reader(filename, *(reader_args or [])),
                                 cycle_length=reader_num_threads or 1, block_length=1)
    if structure.legacy_types(dataset.element_spec) == (dtypes.string, dtypes.string):  # (key, value) records
        dataset = dataset.map(lambda _, value: value)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=drop_final_batch or num_epochs is None)
    dataset = dataset.apply(parse_example_dataset(features, num_parallel_calls=parser_num_threads or 2))
    if label_key:
        if label_key not in features:
            raise ValueError(f"The `label_key` provided ({label_key}) must be one of the `features` keys: "
                             f"{features.keys()}.")
        dataset = dataset.map(lambda x: (x, x.pop(label_key)))
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


# -- CSV -------------------------------------------------------------------------------------------------------

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_CSV_TYPE_NAMES = {np.dtype(np.int32): "int32", np.dtype(np.int64): "int64", np.dtype(np.float32): "float",
                   np.dtype(np.float64): "double"}
_INTEGER = re.compile(rb"[+-]?[0-9]+")


def _required_dtype(value: Any) -> dtypes.DType | None:
    """The dtype a record default names (a required field), else None. As TF's `value in _ACCEPTABLE_CSV_TYPES`,
    an int names the dtype of that enum value (1 is float32)."""
    if is_tensor(value) or isinstance(value, (bool, float, str, bytes, list, tuple, np.ndarray)):
        return None
    try:
        dtype = dtypes.as_dtype(value)
    except TypeError:
        return None
    return dtype if dtype in _CSV_TYPES else None


def _csv_default(value: Any, index: int) -> Tensor:
    """A record default as a tensor: a scalar or a vector of one (an optional field's value), or an empty vector
    (a required field's)."""
    required = _required_dtype(value)
    tensor = (constant_ops.constant([], dtype=required) if required is not None
              else convert_to_tensor(value, name=f"record_defaults_{index}"))
    if tensor.dtype not in _CSV_TYPES:
        raise TypeError(f"Value passed to parameter 'record_defaults' has DataType {tensor.dtype.name} not in list "
                        "of allowed values: float32, float64, int32, int64, string")
    rank = tensor.shape.ndims
    if rank is not None and rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {rank}")
    if rank == 1 and tensor.shape[0] not in (0, 1, None):
        raise ValueError("Shape of a default must be a length-0 or length-1 vector, or a scalar.")
    return tensor


def _scalar(value: Any, dtype: dtypes.DType, name: str) -> Tensor:
    tensor = convert_to_tensor(value, dtype=dtype, name=name)
    if tensor.shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {tensor.shape.ndims}")
    return tensor


@tf_export("data.experimental.CsvDataset")
class CsvDatasetV1(DatasetSource):
    """A dataset of the records of one or more CSV files (RFC 4180), one scalar per selected column, parsed as
    TF's CSVDatasetV2: an empty field (or `na_value`) takes its column's default, and is an error where the
    default is empty (a dtype: a required field); numbers may have surrounding spaces."""

    _tf_class_name = "CsvDatasetV2"

    def __init__(self, filenames: Any, record_defaults: Any, compression_type: str | None = None,
                 buffer_size: int | None = None, header: Any = False, field_delim: Any = ",",
                 use_quote_delim: Any = True, na_value: Any = "", select_cols: Any = None) -> None:
        # made in TF's order, which names them
        filenames = _filenames(filenames)
        compression = _scalar(compression_type or "", dtypes.string, "compression_type")
        defaults = [_csv_default(value, i) for i, value in enumerate(record_defaults)]
        options = [_scalar(4 << 20 if buffer_size is None else buffer_size, dtypes.int64, "buffer_size"),
                   _scalar(header, dtypes.bool, "header"), _scalar(field_delim, dtypes.string, "field_delim"),
                   _scalar(use_quote_delim, dtypes.bool, "use_quote_delim"),
                   _scalar(na_value, dtypes.string, "na_value"),
                   convert_to_tensor([] if select_cols is None else select_cols, dtype=dtypes.int64,
                                     name="select_cols")]
        captures = [filenames, compression, *options, *defaults,
                    convert_to_tensor([], dtype=dtypes.int64, name="exclude_cols")]  # TF1's CsvDataset has none
        super().__init__(captures, tuple(d.dtype for d in defaults), tuple(tensor_shape.TensorShape([])
                                                                           for _ in defaults), _csv_records,
                         dataset_ops.CSVDatasetV2)

    def _node_inputs(self, variants: list[Tensor]) -> list[Any]:
        return [*self._captures[:8], self._captures[8:-1], self._captures[-1]]


def _csv_records(failed: Callable[[errors.OpError], None], filenames: Any, compression_type: Any, buffer_size: Any,
                 header: Any, field_delim: Any, use_quote_delim: Any, na_value: Any, select_cols: Any,
                 *defaults_and_exclude_cols: Any) -> Iterator[Element]:
    """Each file's records as elements; the options are checked before the first (as TF's dataset kernel
    does: an initializer fails). The last value, exclude_cols, is always empty (TF1's CsvDataset)."""
    defaults = defaults_and_exclude_cols[:-1]
    compression = _compression(compression_type, named=True)
    if int(buffer_size) <= 0:
        raise errors.InvalidArgumentError(None, None, "buffer_size should be positive")
    delim = np.asarray(field_delim, dtype=object).item()
    if len(delim) != 1:
        raise errors.InvalidArgumentError(None, None, "field_delim should be only 1 char")
    select = [int(c) for c in np.asarray(select_cols).reshape(-1)]
    if select and len(select) != len(defaults):
        raise errors.InvalidArgumentError(None, None, "select_cols should match output size")
    if any(c < 0 for c in select):
        raise errors.InvalidArgumentError(None, None, "select_cols should be non-negative indices")
    if any(b <= a for a, b in zip(select, select[1:])):
        raise errors.InvalidArgumentError(None, None, "select_cols should be strictly increasing indices")
    na = np.asarray(na_value, dtype=object).item()
    return _csv_file_records(failed, _names(filenames), compression, bool(header), delim, bool(use_quote_delim), na,
                             select, tuple(np.asarray(d) for d in defaults))


def _csv_file_records(failed: Callable[[errors.OpError], None], paths: list[str], compression: str, header: bool,
                      delim: bytes, use_quote: bool, na: bytes, select: list[int],
                      defaults: tuple[np.ndarray, ...]) -> Iterator[Element]:
    """The records of each file; a record that fails (below an ignore_errors) is skipped, as TF's."""
    field_end = re.compile(b"[" + re.escape(delim) + b"\r\n]")
    for path in paths:
        data = _file_bytes(path, compression)
        pos = 0
        if header:
            if not data:
                raise errors.InvalidArgumentError(None, None, "Can't read header of file")
            pos = _csv_record(data, 0, delim, use_quote, field_end)[1]
        while pos < len(data):
            fields, pos, error, error_at = _csv_record(data, pos, delim, use_quote, field_end)
            try:
                yield _csv_element(fields, error, error_at, select, defaults, na)
            except errors.InvalidArgumentError as e:
                failed(e)


def _csv_record(data: bytes, pos: int, delim: bytes, use_quote: bool,
                field_end: re.Pattern) -> tuple[list[bytes], int, str | None, int]:
    """The fields of the record at `pos`, where the next one starts, and the first error in it (a message, and
    the index of the field it is in). A quoted field ends at a quote before a delimiter, a line end or the end
    of the data; a lone quote before that is an error, as is a quote in an unquoted field."""
    fields: list[bytes] = []
    error, error_at = None, 0
    while True:
        if use_quote and data[pos:pos + 1] == b'"':
            value, i, lone = bytearray(), pos + 1, False
            while True:
                quote = data.find(b'"', i)
                if quote < 0:
                    if error is None:
                        error, error_at = "Reached end of file without closing quoted field in record", len(fields)
                    return fields, len(data), error, error_at
                value += data[i:quote]
                after = data[quote + 1:quote + 2]
                if after == b'"':
                    value += b'"'
                    i = quote + 2
                elif after in (b"", delim, b"\n", b"\r"):
                    pos = quote + 1
                    break
                else:
                    lone, i = True, quote + 1
                    value += b'"'
            if lone and error is None:
                error, error_at = "Quote inside a string has to be escaped by another quote", len(fields)
            fields.append(bytes(value))
        else:
            end = field_end.search(data, pos)
            end = len(data) if end is None else end.start()
            value = data[pos:end]
            if use_quote and b'"' in value and error is None:
                error, error_at = "Unquoted fields cannot have quotes inside", len(fields)
            fields.append(value)
            pos = end
        if pos >= len(data):
            return fields, pos, error, error_at
        char = data[pos:pos + 1]
        if char == delim:
            pos += 1
            continue
        return fields, pos + (2 if data[pos:pos + 2] == b"\r\n" else 1), error, error_at


def _csv_element(fields: list[bytes], error: str | None, error_at: int, select: list[int],
                 defaults: tuple[np.ndarray, ...], na: bytes) -> Element:
    """The record's values, its errors in TF's order: each field's as it is read, then a short or long record."""
    count = len(defaults)
    if not select and (error_at >= count if error else len(fields) > count):
        raise errors.InvalidArgumentError(None, None, f"Expect {count} fields but have more in record")
    limit = error_at if error else len(fields)
    values = [_csv_value(index, fields[column], defaults[index], na)
              for index, column in enumerate(select or range(count)) if column < limit]
    if error:
        raise errors.InvalidArgumentError(None, None, error)
    if len(values) < count:
        raise errors.InvalidArgumentError(None, None, f"Expect {count} fields but have {len(values)} in record")
    return values


def _csv_value(index: int, field: bytes, default: np.ndarray, na: bytes) -> np.ndarray:
    if not field or field == na:
        if not default.size:
            raise errors.InvalidArgumentError(None, None, f"Field {index} is required but missing in record!")
        return default.reshape(())
    if default.dtype == object:
        return np.asarray(field, dtype=object)
    value = _csv_number(field.strip(), default.dtype)
    if value is None:
        raise errors.InvalidArgumentError(
            None, None, f"Field {index} in record is not a valid {_CSV_TYPE_NAMES[default.dtype]}: "
                        f"{field.decode(errors='replace')}")
    return value


def _csv_number(text: bytes, dtype: np.dtype) -> np.ndarray | None:
    """`text` as a number of `dtype` (a float may be hex, inf or nan, and overflows to inf), else None."""
    if dtype.kind == "i":
        if not _INTEGER.fullmatch(text):
            return None
        number = int(text)
        info = np.iinfo(dtype)
        return np.asarray(number, dtype) if info.min <= number <= info.max else None
    if b"_" in text or not text.isascii():
        return None
    try:
        number = float.fromhex(text.decode()) if text.lstrip(b"+-")[:2].lower() == b"0x" else float(text)
    except ValueError:
        return None
    with np.errstate(over="ignore"):
        return np.asarray(number).astype(dtype)


@tf_export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern: Any, batch_size: int, column_names: list | None = None,
                     column_defaults: list | None = None, label_name: str | None = None,
                     select_columns: list | None = None, field_delim: str = ",", use_quote_delim: bool = True,
                     na_value: str = "", header: bool = True, num_epochs: int | None = None, shuffle: bool = True,
                     shuffle_buffer_size: int = 10000, shuffle_seed: int | None = None,
                     prefetch_buffer_size: int | None = None, num_parallel_reads: int | None = None,
                     sloppy: bool = False, num_rows_for_inference: int | None = 100,
                     compression_type: str | None = None, ignore_errors: bool = False,
                     encoding: str = "utf-8") -> DatasetV1:
    """Batches of the records of the matching CSV files as (OrderedDict of columns, label) pairs (the dict
    alone without `label_name`), as TF's: the column names from the first file's header unless given, the
    types inferred from the first `num_rows_for_inference` records unless `column_defaults` gives them; the
    files (and records) shuffled unless `shuffle` is False, repeated `num_epochs` times (None: forever, and the
    batches then all full)."""
    filenames = _matching_files(file_pattern)
    dataset = DatasetV1.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    read_text = _text_reader(compression_type, encoding) if column_names is None or column_defaults is None else None
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = _csv_header(filenames, field_delim, use_quote_delim, read_text)
    if len(column_names) != len(set(column_names)):
        raise ValueError("Either `column_names` argument or CSV header row contains duplicate column names: "
                         f"{_duplicates(column_names)}.")
    if select_columns is not None:
        select_columns = _column_indices(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = [constant_ops.constant([], dtype=_required_dtype(d)) if _required_dtype(d) is not None
                           else d for d in column_defaults]
    else:
        column_defaults = _inferred_defaults(filenames, len(column_names), field_delim, use_quote_delim, na_value,
                                             header, num_rows_for_inference, select_columns, read_text)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError("If specified, `column_defaults` and `select_columns` must have the same length: "
                         f"`column_defaults` has length {len(column_defaults)}, `select_columns` has length "
                         f"{len(select_columns)}.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: {label_name}.")

    def filename_to_dataset(filename: Tensor) -> DatasetV1:
        records = CsvDatasetV1(filename, column_defaults, compression_type, header=header, field_delim=field_delim,
                               use_quote_delim=use_quote_delim, na_value=na_value, select_cols=select_columns)
        return records.apply(ignore_errors_transformation()) if ignore_errors else records

    def map_fn(*columns: Tensor) -> Any:
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is None:
            return features
        return features, features.pop(label_name)

    if num_parallel_reads == AUTOTUNE:
        options = Options()
        options.deterministic = not sloppy
        dataset = dataset.interleave(filename_to_dataset, num_parallel_calls=AUTOTUNE).with_options(options)
    else:
        dataset = dataset.apply(parallel_interleave(filename_to_dataset, num_parallel_reads or 1, 1, sloppy))
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None).map(map_fn)
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)


def _matching_files(file_pattern: Any) -> list[str]:
    """The files of a glob (or a list of globs) at build time, sorted."""
    if isinstance(file_pattern, list) and not file_pattern:
        raise ValueError("Argument `file_pattern` should not be empty.")
    names = gfile.get_matching_files_v2(file_pattern)
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return sorted(names)


def _text_reader(compression_type: Any, encoding: str) -> Callable[[str], str]:
    """How the columns are probed: a file's text (TF reads only uncompressed and GZIP files for this)."""
    compression = "" if compression_type is None else np.asarray(_known_value(compression_type)).item()
    compression = compression.decode() if isinstance(compression, bytes) else compression
    if compression == "ZLIB":
        raise ValueError(f"`compression_type` {compression_type} is not supported for probing columns.")
    if compression not in ("", "GZIP"):
        raise ValueError(f"Received unknown `compression_type` {compression_type}. Expected: GZIP, ZLIB or "
                         " (empty string).")
    return lambda path: _file_bytes(path, compression).decode(encoding)


def _csv_rows(text: str, field_delim: str, use_quote_delim: bool) -> Iterator[list[str]]:
    return csv.reader(io.StringIO(text, newline=""), delimiter=field_delim,
                      quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)


def _csv_header(filenames: list[str], field_delim: str, use_quote_delim: bool,
                read_text: Callable[[str], str]) -> list[str]:
    """The column names of the first file's header, which every file must repeat."""
    names = None
    for path in filenames:
        first = next(_csv_rows(read_text(path), field_delim, use_quote_delim), None)
        if first is None:
            raise ValueError(f"Failed when reading the header line of {path}. Is it an empty file?")
        if names is not None and first != names:
            raise ValueError("All input CSV files should have the same column names in the header row. File "
                             f"{path} has different column names.")
        names = names or first
    return names


def _duplicates(names: list) -> set:
    ordered = sorted(names)
    return {a for a, b in zip(ordered[:-1], ordered[1:]) if a == b}


def _column_indices(select_columns: list, column_names: list[str]) -> list[int]:
    """The sorted indices of the selected columns (names or indices)."""
    indices = {name: i for i, name in enumerate(column_names)}
    found = []
    for column in select_columns:
        if isinstance(column, int):
            if column < 0 or column >= len(column_names):
                raise ValueError(f"Column index {column} specified in `select_columns` should be > 0  and <= "
                                 f"{len(column_names)}, which is the number of columns.")
            found.append(column)
        elif column not in indices:
            raise ValueError(f"Column {column} specified in `select_columns` must be of one of the columns: "
                             f"{indices.keys()}.")
        else:
            found.append(indices[column])
    unique = sorted(set(found))
    if len(unique) != len(select_columns):  # TF looks for the duplicates among the unique indices: none
        raise ValueError(f"The `select_columns` argument contains duplicate columns: {_duplicates(unique)}.")
    return unique


def _known_value(value: Any) -> Any:
    """A tensor's constant value, else `value` itself (what make_csv_dataset reads at graph time)."""
    if not is_tensor(value):
        return value
    known = constant_value(value)
    if known is None:
        raise ValueError(f"tensorweave's make_csv_dataset needs constant arguments, not {value}.")
    return known


def _inferred_defaults(filenames: list[str], count: int, field_delim: str, use_quote_delim: bool, na_value: str,
                       header: bool, rows: int | None, select_columns: list[int] | None,
                       read_text: Callable[[str], str]) -> list[Tensor]:
    """The defaults (0 or '') of the types TF infers from the first `rows` records: per column the narrowest
    of int32, int64, float32, float64 and string that every value so far fits (string where none is seen)."""
    columns = range(count) if select_columns is None else select_columns
    types: list[Any] = [None] * len(columns)
    seen = 0
    for path in filenames:
        records = _csv_rows(read_text(path), field_delim, use_quote_delim)
        if header:
            next(records, None)
        for number, row in enumerate(records, 2 if header else 1):
            if len(row) != count:
                raise ValueError(f"Problem inferring types: CSV row {number} has {len(row)} number of fields. "
                                 f"Expected: {count}.")
            if rows is not None and seen >= rows:
                break
            seen += 1
            types = [_widened(row[c], na_value, t) for c, t in zip(columns, types)]
    return [constant_ops.constant([""]) if t in (None, np.bytes_) else constant_ops.constant([0], dtype=t)
            for t in types]


_INFERRED = (np.int32, np.int64, np.float32, np.float64, np.bytes_)


def _widened(value: str, na_value: str, previous: Any) -> Any:
    """The narrowest type of _INFERRED at least as wide as `previous` that `value` is valid in (as TF's
    checks: an int32 that int64 reads the same, a float below inf)."""
    if value in ("", na_value):
        return previous
    start = 0 if previous is None else _INFERRED.index(previous)
    for kind in _INFERRED[start:]:
        if kind is np.bytes_ or _fits(value, kind):
            return kind
    return np.bytes_


def _fits(value: str, kind: Any) -> bool:
    try:
        with warnings.catch_warnings(), np.errstate(over="ignore", invalid="ignore"):
            warnings.simplefilter("ignore")
            if kind is np.int32:
                return bool(np.int32(value) == np.int64(value))
            if kind is np.int64:
                np.int64(value)
                return True
            return bool(kind(value) < np.inf)
    except (ValueError, OverflowError):
        return False
