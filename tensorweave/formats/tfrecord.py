"""TFRecord files: TF's record framing, whole-stream GZIP/ZLIB compression, and their reader and writer.

A record is `uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)`, all
little-endian, with no file header; compression wraps the whole stream, not each record. The reader
checks both CRCs and raises DataLossError with TF's message and the byte offset (in the uncompressed
stream) of the first bad record; it never skips one, and never allocates more than the file holds.
"""

from __future__ import annotations

import os
import re
import struct
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

import google_crc32c

from tensorweave import errors
from tensorweave.formats.crc32c import masked_crc32c

_HEADER = struct.Struct("<QI")
_CRC = struct.Struct("<I")
_MASK_DELTA = 0xA282EAD8
_READ_CHUNK = 1 << 20
_WRITE_BUFFER = 1 << 20
_LENGTH_CRC_CACHE = 4096


class TFRecordCompressionType:
    """The compression kinds of a TFRecord file (TF1's enum values)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """How a TFRecord file is compressed; the zlib knobs mirror TF's and default to zlib's own."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type: Any = None, flush_mode: int | None = None,
                 input_buffer_size: int | None = None, output_buffer_size: int | None = None,
                 window_bits: int | None = None, compression_level: int | None = None,
                 compression_method: int | None = None, mem_level: int | None = None,
                 compression_strategy: int | None = None) -> None:
        self.get_compression_type_string(compression_type)  # validated now, kept as given (as TF1 does)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """"", "ZLIB" or "GZIP" for options given as TFRecordOptions, an enum value, a string or None."""
        while isinstance(options, TFRecordOptions):
            options = options.compression_type
        return _compression_string(options)

    def _compressor(self) -> Any:
        kind = self.get_compression_type_string(self)
        if not kind:
            return None
        # as in TF, GZIP is only the default window_bits (MAX_WBITS + 16): a window_bits given with GZIP
        # is used as is, and so writes a zlib stream
        window = self.window_bits
        if window is None:
            window = zlib.MAX_WBITS + 16 if kind == "GZIP" else zlib.MAX_WBITS
        return zlib.compressobj(
            self.compression_level if self.compression_level is not None else zlib.Z_DEFAULT_COMPRESSION,
            self.compression_method if self.compression_method is not None else zlib.DEFLATED,
            window,
            self.mem_level if self.mem_level is not None else zlib.DEF_MEM_LEVEL,
            self.compression_strategy if self.compression_strategy is not None else zlib.Z_DEFAULT_STRATEGY,
        )


def _compression_string(compression: Any) -> str:
    if compression is None or compression == "" or compression == TFRecordCompressionType.NONE:
        return ""
    if compression in ("ZLIB", TFRecordCompressionType.ZLIB):
        return "ZLIB"
    if compression in ("GZIP", TFRecordCompressionType.GZIP):
        return "GZIP"
    raise ValueError(f'Not a valid compression_type: "{compression}"')


def open_or_raise(path: str, mode: str) -> BinaryIO:
    """Open a file, turning the OS error into TF's class (NotFoundError, PermissionDeniedError ...)."""
    try:
        return open(path, mode)  # noqa: SIM115 - the caller owns and closes it
    except OSError as e:
        raise os_error(path, e) from e


def os_error(path: str, error: OSError) -> errors.OpError:
    """TF's error for a failed file operation on `path` (`<path>; No such file or directory` ...)."""
    if isinstance(error, FileNotFoundError):
        return errors.NotFoundError(None, None, f"{path}; No such file or directory")
    if isinstance(error, IsADirectoryError):
        return errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
    if isinstance(error, PermissionError):
        return errors.PermissionDeniedError(None, None, f"{path}; Permission denied")
    return errors.UnknownError(None, None, f"{path}; {error.strerror or error}")


def _options(options: Any) -> TFRecordOptions:
    return options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)


def frame_record(data: bytes) -> bytes:
    """One record framed as TF writes it: length, its masked CRC, the data, the data's masked CRC."""
    header = struct.pack("<Q", len(data))
    return b"".join((header, _CRC.pack(masked_crc32c(header)), data, _CRC.pack(masked_crc32c(data))))


class TFRecordWriter:
    """Writes records to a TFRecord file; buffered, so records reach the disk on flush or close."""

    def __init__(self, path: str | bytes | os.PathLike, options: Any = None) -> None:
        if not isinstance(path, (str, bytes, os.PathLike)):  # TF's compat.as_bytes(path), which also rejects PathLike
            raise TypeError(f"Expected binary or unicode string, got {path!r}")
        self._path = os.fsdecode(os.fspath(path))
        self._compressor = _options(options)._compressor()
        self._file: BinaryIO | None = open_or_raise(self._path, "wb")
        self._pending: list[bytes] = []
        self._pending_bytes = 0

    def write(self, record: bytes | str) -> None:
        """Append one record (bytes, or a str written as UTF-8)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        if isinstance(record, str):
            record = record.encode("utf-8")
        elif isinstance(record, bytearray):
            record = bytes(record)
        elif not isinstance(record, bytes):  # bytes(5) would silently write five NULs
            raise TypeError("write(): incompatible function arguments. The following argument types are "
                            f"supported:\n    1. (self: TFRecordWriter, record: str) -> None\n\nInvoked with: "
                            f"{self!r}, {record!r}")
        # frame_record, inlined: this is the hot path of writing records
        crc = google_crc32c.value(record)
        header = struct.pack("<Q", len(record))
        hcrc = google_crc32c.value(header)
        self._pending.append(header)
        self._pending.append(struct.pack(
            "<I", (((hcrc >> 15) | (hcrc << 17)) + _MASK_DELTA) & 0xFFFFFFFF))
        self._pending.append(record)
        self._pending.append(struct.pack(
            "<I", (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF))
        self._pending_bytes += len(record) + 16
        if self._pending_bytes >= _WRITE_BUFFER:
            self._drain()

    def _drain(self) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        if self._compressor is not None:
            data = self._compressor.compress(data)
        assert self._file is not None
        self._file.write(data)

    def flush(self) -> None:
        """Push buffered records to the OS; a compressed stream is partial-flushed (as TF does) so readers see them."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, "Writer is closed.")
        self._drain()
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_PARTIAL_FLUSH))
        self._file.flush()

    def close(self) -> None:
        """Finish the stream (compression trailer included) and close the file; closing twice is fine."""
        if self._file is None:
            return
        self._drain()
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_FINISH))
        self._file.close()
        self._file = None

    def __enter__(self) -> TFRecordWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_file", None) is not None:
            self.close()


def _inflate_error(error: zlib.error) -> errors.DataLossError:
    """zlib's complaint in TF's words (`inflate() failed with error -3: incorrect header check`)."""
    match = re.match(r"Error (-?\d+) while decompressing data: (.*)", str(error))
    detail = f"inflate() failed with error {match[1]}: {match[2]}" if match else f"inflate() failed: {error}"
    return errors.DataLossError(None, None, detail)


def decompressed_chunks(f: BinaryIO, compression: str) -> Iterator[bytes]:
    """The stream's (decompressed) bytes in bounded chunks; a corrupt compressed stream is DataLossError.

    As in TF, an unfinished stream just ends (a writer may have only sync-flushed it), gzip members
    may follow one another, and bytes after the end of a zlib stream are ignored.
    """
    if not compression:
        while chunk := f.read(_READ_CHUNK):
            yield chunk
        return
    wbits = zlib.MAX_WBITS + 16 if compression == "GZIP" else zlib.MAX_WBITS
    decompressor = zlib.decompressobj(wbits)
    try:
        while True:
            pending = decompressor.unconsumed_tail or f.read(_READ_CHUNK)
            if not pending:
                return
            out = decompressor.decompress(pending, _READ_CHUNK)
            while decompressor.eof:
                if out:
                    yield out
                out = b""
                if compression != "GZIP":
                    return
                rest = decompressor.unused_data or f.read(_READ_CHUNK)
                if not rest:
                    return
                decompressor = zlib.decompressobj(wbits)
                out = decompressor.decompress(rest, _READ_CHUNK)
            if out:
                yield out
    except zlib.error as e:
        raise _inflate_error(e) from None


def read_records(f: BinaryIO, compression: str = "", file_size: int | None = None) -> Iterator[bytes]:
    """Yield the records of an open TFRecord stream, verifying every CRC.

    A stream ending inside a record header ends the iteration, as TF's reader does; one ending inside
    a record's data is DataLossError. `file_size` (uncompressed files) lets a corrupt length field fail
    at once instead of after reading to the end of the file; record data is only ever sliced from bytes
    actually read.
    """
    chunks = decompressed_chunks(f, compression)
    buf = b""
    pos = 0
    base = 0  # stream offset of buf[0]
    length_crcs: dict[int, int] = {}  # records often share a length: skip re-hashing a verified header
    while True:
        records, pos, error = _parse(buf, pos, base, length_crcs)
        yield from records
        if error is not None:
            raise error
        need = _HEADER.size
        if len(buf) - pos >= need:  # a header is buffered but its record is not complete
            need += _HEADER.unpack_from(buf, pos)[0] + 4
            if file_size is not None and base + pos + need > file_size:
                raise _truncated(base + pos, compression)
        buf, base, pos = _refill(chunks, buf, base, pos, need)
        if len(buf) < need:
            if len(buf) >= _HEADER.size:
                raise _truncated(base, compression)
            return


def _parse(buf: bytes, pos: int, base: int,
           length_crcs: dict[int, int]) -> tuple[list[bytes], int, errors.DataLossError | None]:
    """Every complete, verified record in `buf` from `pos`: the hot loop, kept free of I/O."""
    records: list[bytes] = []
    append = records.append
    end = len(buf)
    unpack_header = _HEADER.unpack_from
    unpack_crc = _CRC.unpack_from
    crc32c = google_crc32c.value
    while pos + 12 <= end:
        length, length_crc = unpack_header(buf, pos)
        if length_crcs.get(length) != length_crc:
            c = crc32c(buf[pos:pos + 8])
            if (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF != length_crc:
                hint = "" if base + pos else " (Is this even a TFRecord file?)"
                return records, pos, errors.DataLossError(
                    None, None, f"corrupted record at {base + pos}{hint}")
            if len(length_crcs) < _LENGTH_CRC_CACHE:
                length_crcs[length] = length_crc
        stop = pos + 12 + length
        if stop + 4 > end:
            break
        data = buf[pos + 12:stop]
        c = crc32c(data)
        if (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF != unpack_crc(buf, stop)[0]:
            return records, pos, errors.DataLossError(
                None, None, f"corrupted record at {base + pos + 12}")
        append(data)
        pos = stop + 4
    return records, pos, None


def _refill(chunks: Iterator[bytes], buf: bytes, base: int, pos: int, need: int) -> tuple[bytes, int, int]:
    """Drop consumed bytes and read until `need` bytes are buffered or the stream ends."""
    parts = [buf[pos:]]
    have = len(parts[0])
    for chunk in chunks:
        parts.append(chunk)
        have += len(chunk)
        if have >= need:
            break
    return b"".join(parts), base + pos, 0


def _truncated(offset: int, compression: str) -> errors.DataLossError:
    reason = "EOF reached" if compression else "Read less bytes than requested"
    return errors.DataLossError(None, None, f"truncated record at {offset}' failed with {reason}")


def tf_record_iterator(path: str | bytes | os.PathLike, options: Any = None) -> Iterator[bytes]:
    """Iterate over the records of a TFRecord file (TF1's `tf.python_io.tf_record_iterator`).

    As in TF, a missing file fails here, not at the first `next`. A path that is not a str or bytes
    is TF's TypeError, except that an os.PathLike is accepted (TF rejects a pathlib.Path).
    """
    compression = TFRecordOptions.get_compression_type_string(options)
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError("__init__(): incompatible constructor arguments. The following argument types are "
                        f"supported:\n    1. RecordIterator(arg0: str, arg1: str)\n\nInvoked with: {path!r}, "
                        f"{compression!r}")
    return _iterate(open_or_raise(os.fsdecode(os.fspath(path)), "rb"), compression)


def _iterate(f: BinaryIO, compression: str) -> Iterator[bytes]:
    with f:
        size = None if compression else os.fstat(f.fileno()).st_size
        yield from read_records(f, compression, size)
