"""File datasets: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset and CsvDataset, and the batched
input helpers make_csv_dataset and make_batched_features_dataset.

Each captures its file names (a string scalar or vector, possibly fed) and options as tensors and reads the
files one after another when iterated, with TF's compression types ('', 'ZLIB', 'GZIP'); TFRecord framing
and CRC checks are formats/tfrecord.py's. `buffer_size` and `num_parallel_reads` only tune TF's reads and
are accepted and ignored.
"""

from __future__ import annotations

import collections
import csv
import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from tensorweave import errors
from tensorweave.data.dataset_ops import AUTOTUNE, DatasetSource, DatasetV1, Element, parse_example_dataset
from tensorweave.formats.tfrecord import decompressed_chunks, open_or_raise, read_records
from tensorweave.framework import dtypes, tensor_shape
from tensorweave.framework.graph import convert_to_tensor
from tensorweave.ops.string_ops import parse_number
from tensorweave.platform import gfile
from tensorweave.platform.tf_export import tf_export

_COMPRESSIONS = ("", "ZLIB", "GZIP")


def _names(filenames: Any) -> list[str]:
    return [n.decode() if isinstance(n, bytes) else str(n) for n in np.asarray(filenames, dtype=object).reshape(-1)]


def _compression(value: Any) -> str:
    compression = np.asarray(value, dtype=object).item()
    compression = compression.decode() if isinstance(compression, bytes) else compression
    if compression not in _COMPRESSIONS:
        raise errors.InvalidArgumentError(None, None, f"Unsupported compression_type: {compression}.")
    return compression


def _filenames(filenames: Any) -> Any:
    tensor = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
    if tensor.shape.ndims is not None and tensor.shape.ndims > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {tensor.shape.ndims}")
    return tensor


def _string(value: Any, name: str) -> Any:
    return convert_to_tensor("" if value is None else value, dtype=dtypes.string, name=name)


def _record(data: bytes) -> Element:
    return [np.asarray(data, dtype=object)]


def _file_bytes(path: str, compression: str) -> bytes:
    with open_or_raise(path, "rb") as f:
        data = f.read()
    try:
        if compression == "GZIP":
            return gzip.decompress(data)
        return zlib.decompress(data) if compression == "ZLIB" else data
    except (OSError, zlib.error) as e:
        raise errors.DataLossError(None, None, f"inflate() failed: {e}") from None


@tf_export("data.TFRecordDataset")
class TFRecordDataset(DatasetSource):
    """A dataset of the records of one or more TFRecord files."""

    def __init__(self, filenames: Any, compression_type: str | None = None, buffer_size: int | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None) -> None:
        super().__init__([_filenames(filenames), _string(compression_type, "compression_type")], dtypes.string,
                         tensor_shape.TensorShape([]), _tfrecords)


def _tfrecords(failed: Callable[[errors.OpError], None], filenames: Any, compression_type: Any) -> Iterator[Element]:
    """The records of each file; a corrupt record (DataLossError) ends its file, and below an ignore_errors
    the next file follows, as in TF."""
    compression = _compression(compression_type)
    for path in _names(filenames):
        with open_or_raise(path, "rb") as f:
            try:
                for data in read_records(f, compression):
                    yield _record(data)
            except errors.DataLossError as e:
                failed(e)


@tf_export("data.TextLineDataset")
class TextLineDataset(DatasetSource):
    """A dataset of the lines of one or more text files (without their line ends)."""

    def __init__(self, filenames: Any, compression_type: str | None = None, buffer_size: int | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None) -> None:
        super().__init__([_filenames(filenames), _string(compression_type, "compression_type")], dtypes.string,
                         tensor_shape.TensorShape([]), _text_lines)


def _text_lines(failed: Callable[[errors.OpError], None], filenames: Any, compression_type: Any) -> Iterator[Element]:
    compression = _compression(compression_type)
    for path in _names(filenames):
        lines = _file_bytes(path, compression).split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        for line in lines:
            yield _record(line[:-1] if line.endswith(b"\r") else line)


@tf_export("data.FixedLengthRecordDataset")
class FixedLengthRecordDataset(DatasetSource):
    """A dataset of fixed-length records from one or more binary files, after a header and before a footer."""

    def __init__(self, filenames: Any, record_bytes: int, header_bytes: int | None = None,
                 footer_bytes: int | None = None, buffer_size: int | None = None, compression_type: str | None = None,
                 num_parallel_reads: int | None = None, name: str | None = None) -> None:
        sizes = [convert_to_tensor(v or 0, dtype=dtypes.int64, name=n) for v, n in
                 ((record_bytes, "record_bytes"), (header_bytes, "header_bytes"), (footer_bytes, "footer_bytes"))]
        super().__init__([_filenames(filenames), *sizes, _string(compression_type, "compression_type")],
                         dtypes.string, tensor_shape.TensorShape([]), _fixed_length_records)


def _fixed_length_records(failed: Callable[[errors.OpError], None], filenames: Any, record_bytes: Any,
                          header_bytes: Any, footer_bytes: Any, compression_type: Any) -> Iterator[Element]:
    """The records of each file, as TF's: an uncompressed file whose body is not a whole number of records fails
    before its first record (InvalidArgumentError); a compressed one is read as a stream, and its partial last
    record or a corrupt stream fails after the records before it (DataLossError), which below an ignore_errors
    the next file follows."""
    size, header, footer = int(record_bytes), int(header_bytes), int(footer_bytes)
    if size <= 0:
        raise errors.InvalidArgumentError(None, None, f"record_bytes must be greater than zero. (got {size})")
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


_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)
_CSV_TYPE_NAMES = {"float32": "float", "float64": "double"}


@tf_export("data.experimental.CsvDataset")
class CsvDataset(DatasetSource):
    """A dataset of the records of CSV files, one scalar per column: `record_defaults` gives each column's type
    and default (a dtype alone: the column is required); `select_cols` picks columns, in increasing order."""

    _tf_class_name = "CsvDatasetV2"

    def __init__(self, filenames: Any, record_defaults: Any, compression_type: str | None = None,
                 buffer_size: int | None = None, header: bool = False, field_delim: str = ",",
                 use_quote_delim: bool = True, na_value: str = "", select_cols: Any = None) -> None:
        defaults = [convert_to_tensor([], dtype=d) if isinstance(d, dtypes.DType) or (
            isinstance(d, type) and d in (int, float, str)) else convert_to_tensor(d) for d in record_defaults]
        for default in defaults:
            if default.dtype.base_dtype not in _CSV_TYPES:
                raise TypeError(f"Invalid `record_defaults`. Each must be one of {_CSV_TYPES}, but got "
                                f"{default.dtype}.")
        self._options = (bool(header), field_delim.encode(), use_quote_delim, na_value.encode(),
                         None if select_cols is None else list(select_cols))
        super().__init__([_filenames(filenames), _string(compression_type, "compression_type"), *defaults],
                         tuple(d.dtype.base_dtype for d in defaults), tuple(tensor_shape.TensorShape([])
                                                                             for _ in defaults), self._records)

    def _records(self, failed: Callable[[errors.OpError], None], filenames: Any, compression_type: Any,
                 *defaults: Any) -> Iterator[Element]:
        header, delim, use_quote, na_value, select_cols = self._options
        compression = _compression(compression_type)
        for path in _names(filenames):
            data = _file_bytes(path, compression)
            position = data.index(b"\n") + 1 if header and b"\n" in data else len(data) if header else 0
            while position < len(data):
                fields, position = _csv_record(data, position, delim[0], use_quote)
                if select_cols is not None:
                    fields = [fields[c] for c in select_cols if c < len(fields)]
                values = []  # converted as parsed: a bad field fails before a wrong count
                for i, text in enumerate(fields):
                    if i == len(defaults):
                        raise errors.InvalidArgumentError(
                            None, None, f"Expect {len(defaults)} fields but have more in record")
                    values.append(_csv_value(i, text, defaults[i], na_value))
                if len(values) < len(defaults):
                    raise errors.InvalidArgumentError(
                        None, None, f"Expect {len(defaults)} fields but have {len(values)} in record")
                yield values


def _csv_record(data: bytes, position: int, delim: int, use_quote: bool) -> tuple[list[bytes], int]:
    """The fields of the record at `position` (RFC 4180 quotes, which may hold line ends) and where the next
    record starts: TF's CsvDataset parse."""
    fields, n = [], len(data)
    while True:
        field = bytearray()
        if use_quote and position < n and data[position] == 0x22:
            position += 1
            while True:
                if position >= n:
                    raise errors.InvalidArgumentError(
                        None, None, "Reached end of file without closing quoted field in record")
                if data[position] == 0x22:
                    following = data[position + 1] if position + 1 < n else None
                    if following == 0x22:
                        field.append(0x22)
                        position += 2
                        continue
                    if following not in (None, delim, 0x0A, 0x0D):
                        raise errors.InvalidArgumentError(
                            None, None, "Reached end of file without closing quoted field in record")
                    position += 1
                    break
                field.append(data[position])
                position += 1
        else:
            while position < n and data[position] not in (delim, 0x0A, 0x0D):
                if use_quote and data[position] == 0x22:
                    raise errors.InvalidArgumentError(None, None, "Unquoted fields cannot have quotes inside")
                field.append(data[position])
                position += 1
        fields.append(bytes(field))
        if position < n and data[position] == delim:
            position += 1
            continue
        if data[position:position + 2] == b"\r\n":
            return fields, position + 2
        return fields, position + 1


def _csv_value(index: int, text: bytes, default: Any, na_value: bytes) -> Any:
    if text == b"" or text == na_value:
        if np.size(default) == 0:
            raise errors.InvalidArgumentError(None, None, f"Field {index} is required but missing in record!")
        return np.asarray(default).reshape(-1)[0]
    dtype = np.asarray(default).dtype
    if dtype.kind == "O":
        return np.asarray(text, dtype=object)
    value = parse_number(text, dtype)
    if value is None:
        name = dtypes.as_dtype(dtype).name
        raise errors.InvalidArgumentError(None, None, f"Field {index} in record is not a valid "
                                                      f"{_CSV_TYPE_NAMES.get(name, name)}: {text.decode(errors='replace')}")
    return np.asarray(value, dtype=dtype)


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
    reader = TFRecordDataset if reader is None else reader
    dataset = DatasetV1.list_files(file_pattern, shuffle=shuffle, seed=shuffle_seed)
    dataset = dataset.interleave(lambda filename: reader(filename, *(reader_args or [])),
                                 cycle_length=reader_num_threads or 1, block_length=1)
    if dataset.output_types == (dtypes.string, dtypes.string):  # a reader of (key, value) records
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


def _csv_rows(path: str, compression: str, field_delim: str, use_quote_delim: bool) -> Any:
    """Python's csv reader over a (decompressed) file: what make_csv_dataset infers names and types from."""
    text = io.StringIO(_file_bytes(path, compression).decode())
    return csv.reader(text, delimiter=field_delim, quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)


def _csv_column_names(filenames: list[str], rows: Callable[[str], Any]) -> list[str]:
    names = None
    for path in filenames:
        header = next(rows(path), None)
        if header is None:
            raise ValueError(f"Failed when reading the header line of {path}. Is it an empty file?")
        if names is not None and header != names:
            raise ValueError("All input CSV files should have the same column names in the header row. File "
                             f"{path} has different column names.")
        names = header
    return names


def _csv_type(text: str, previous: dtypes.DType | None) -> dtypes.DType:
    """The least permissive of int32, int64, float32, float64 and string that `text` and the column's previous
    values all fit."""
    def fits(dtype: dtypes.DType) -> bool:
        try:
            if dtype.is_integer:
                return int(np.int64(text)) == int(dtype.as_numpy_dtype(np.int64(text)))
            return bool(dtype.as_numpy_dtype(text) < np.inf)
        except (ValueError, OverflowError):
            return False
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64]
    start = order.index(previous) if previous in order else len(order) if previous is not None else 0
    return next((d for d in order[start:] if fits(d)), dtypes.string)


def _csv_column_defaults(filenames: list[str], rows: Callable[[str], Any], num_cols: int, na_value: str,
                         header: bool, num_rows: int | None, columns: list[int]) -> list:
    inferred: list[dtypes.DType | None] = [None] * len(columns)
    seen = 0
    for path in filenames:
        reader = rows(path)
        row_num = 1
        if header:
            next(reader, None)
            row_num += 1
        for row in reader:
            if num_rows is not None and seen >= num_rows:
                break
            if len(row) != num_cols:
                raise ValueError(f"Problem inferring types: CSV row {row_num} has {len(row)} number of fields. "
                                 f"Expected: {num_cols}.")
            for j, column in enumerate(columns):
                if row[column] not in ("", na_value):
                    inferred[j] = _csv_type(row[column], inferred[j])
            row_num += 1
            seen += 1
    return [convert_to_tensor(["" if t in (None, dtypes.string) else 0], dtype=t or dtypes.string)
            for t in inferred]


def _csv_selected(select_columns: Any, column_names: list[str]) -> list[int]:
    indices = {name: i for i, name in enumerate(column_names)}
    chosen = []
    for column in select_columns:
        if isinstance(column, int):
            if column < 0 or column >= len(column_names):
                raise ValueError(f"Column index {column} specified in `select_columns` should be > 0  and <= "
                                 f"{len(column_names)}, which is the number of columns.")
            chosen.append(column)
        elif column not in indices:
            raise ValueError(f"Column {column} specified in `select_columns` must be of one of the columns: "
                             f"{indices.keys()}.")
        else:
            chosen.append(indices[column])
    if len(set(chosen)) != len(chosen):
        raise ValueError("The `select_columns` argument contains duplicate columns: "
                         f"{ {c for c in chosen if chosen.count(c) > 1} }.")
    return sorted(chosen)


@tf_export("data.experimental.make_csv_dataset")
def make_csv_dataset(file_pattern: Any, batch_size: int, column_names: Any = None, column_defaults: Any = None,
                     label_name: str | None = None, select_columns: Any = None, field_delim: str = ",",
                     use_quote_delim: bool = True, na_value: str = "", header: bool = True,
                     num_epochs: int | None = None, shuffle: bool = True, shuffle_buffer_size: int = 10000,
                     shuffle_seed: int | None = None, prefetch_buffer_size: int | None = None,
                     num_parallel_reads: int | None = None, sloppy: bool = False,
                     num_rows_for_inference: int | None = 100, compression_type: str | None = None,
                     ignore_errors: bool = False) -> DatasetV1:
    """Batches of the records of CSV files as OrderedDicts of column name to tensor ((features, label) pairs with
    `label_name`); names come from the header, types (when no `column_defaults`) from the first rows, as TF's."""
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if isinstance(file_pattern, list) and not file_pattern:
        raise ValueError("Argument `file_pattern` should not be empty.")
    filenames = sorted(name for pattern in patterns for name in gfile.get_matching_files(pattern))
    if not filenames:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    dataset = DatasetV1.from_tensor_slices(filenames)
    if shuffle:
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    compression = _compression(compression_type or "")

    def rows(path: str) -> Any:
        return _csv_rows(path, compression, field_delim, use_quote_delim)

    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = _csv_column_names(filenames, rows)
    if len(column_names) != len(set(column_names)):
        raise ValueError("Either `column_names` argument or CSV header row contains duplicate column names: "
                         f"{ {c for c in column_names if column_names.count(c) > 1} }.")
    columns = None if select_columns is None else _csv_selected(select_columns, column_names)
    if column_defaults is None:
        column_defaults = _csv_column_defaults(filenames, rows, len(column_names), na_value, header,
                                               num_rows_for_inference, columns or list(range(len(column_names))))
    if columns is not None and len(column_defaults) != len(columns):
        raise ValueError("If specified, `column_defaults` and `select_columns` must have the same length: "
                         f"`column_defaults` has length {len(column_defaults)}, `select_columns` has length "
                         f"{len(columns)}.")
    if columns is not None and len(column_names) > len(columns):
        column_names = [column_names[i] for i in columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: "
                         f"{label_name}.")

    def records(filename: Any) -> DatasetV1:
        records = CsvDataset(filename, column_defaults, compression_type=compression, header=header,
                             field_delim=field_delim, use_quote_delim=use_quote_delim, na_value=na_value,
                             select_cols=columns)
        return records.ignore_errors() if ignore_errors else records

    def organized(*values: Any) -> Any:
        features = collections.OrderedDict(zip(column_names, values))
        return features if label_name is None else (features, features.pop(label_name))

    dataset = dataset.interleave(records, cycle_length=num_parallel_reads or 1, block_length=1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None).map(organized)
    return dataset.prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
