"""V2 checkpoints (tensor bundles) at the file level: `<prefix>.index` plus `<prefix>.data-NNNNN-of-NNNNN`.

The index is a LevelDB table (`table.py`) mapping `""` to a BundleHeaderProto and each tensor name to
a BundleEntryProto (dtype, shape, shard, offset, size, masked CRC-32C of the bytes). Data shards hold
the tensors back to back: fixed-size types as raw little-endian C-order bytes; strings as varint
lengths, a masked CRC of the lengths, then the bytes. A partitioned variable has a full entry listing
its slices, each stored under an OrderedCode key of (name, slice). Writes go to temporary files that
are fsynced and renamed into place (data first, index last), so a reader never sees a half-written
bundle, even after a crash;
reads check every CRC and every size against the file before allocating.
"""

from __future__ import annotations

import math
import os
import struct
import threading
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent import futures
from typing import Any

import google_crc32c
import numpy as np
from google.protobuf import message

from tensorweave import errors
from tensorweave.formats import datatypes as dt
from tensorweave.formats.crc32c import mask, unmask
from tensorweave.formats.protos import BundleEntryProto, BundleHeaderProto, TensorSliceProto, VersionDef
from tensorweave.formats.table import build_table, decode_varint, encode_varint, read_table
from tensorweave.formats.tensor_proto import as_storage, cast_to_datatype
from tensorweave.formats.tfrecord import open_or_raise, os_error

HEADER_KEY = b""
_FULL_EXTENT = -1
_IO_CHUNK = 4 << 20  # big entries are read in chunks, so the CRC of one chunk overlaps the read of the next
_io_pool: futures.ThreadPoolExecutor | None = None
_io_pool_lock = threading.Lock()


def data_filename(prefix: str, shard_id: int, num_shards: int) -> str:
    """The data file of one shard, as TF names it."""
    return f"{prefix}.data-{shard_id:05d}-of-{num_shards:05d}"


def index_filename(prefix: str) -> str:
    """The index file of a bundle."""
    return f"{prefix}.index"


def _write_num_increasing(value: int) -> bytes:
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes([len(body)]) + body


def _write_signed_num_increasing(value: int) -> bytes:
    x = ~value if value < 0 else value
    if x < 64:
        return bytes([(0x80 ^ value) & 0xFF])
    length = (x.bit_length() + 1 + 6) // 7  # 7 bits per byte, less one header bit per byte
    body = bytearray((value & ((1 << (8 * length)) - 1)).to_bytes(length, "big"))
    header = (0xFF << (8 - min(length, 8))) & 0xFF
    body[0] ^= header if length < 9 else 0xFF
    if length >= 9:
        body[1] ^= (0xFF << (16 - length)) & 0xFF
    return bytes(body)


def encode_tensor_name_slice(name: str, starts: Sequence[int], lengths: Sequence[int]) -> bytes:
    """The index key of one stored slice: TF's OrderedCode of (0, name, rank, start_i, length_i ...)."""
    escaped = name.encode("utf-8").replace(b"\xff", b"\xff\x00").replace(b"\x00", b"\x00\xff")
    out = [_write_num_increasing(0), escaped, b"\x00\x01", _write_num_increasing(len(starts))]
    for start, length in zip(starts, lengths):
        out.append(_write_signed_num_increasing(start))
        out.append(_write_signed_num_increasing(length))
    return b"".join(out)


def slice_extents(proto: Any, full_shape: Sequence[int]) -> tuple[list[int], list[int]]:
    """(starts, lengths) of a TensorSliceProto; a full extent is start 0, length -1 as TF encodes it."""
    if len(proto.extent) not in (0, len(full_shape)):
        raise ValueError(f"slice rank {len(proto.extent)} does not match shape {list(full_shape)}")
    starts, lengths = [], []
    for d in range(len(full_shape)):
        extent = proto.extent[d] if proto.extent else None
        has_length = extent is not None and extent.HasField("length")
        starts.append(extent.start if has_length else 0)
        lengths.append(extent.length if has_length else _FULL_EXTENT)
    return starts, lengths


def parse_slice_spec(spec: str, rank: int) -> Any:
    """A TensorSliceProto from TF's slice string (`"0,2:-"`: start,length per dim, `-` for all)."""
    proto = TensorSliceProto()
    parts = spec.split(":") if spec else []
    if len(parts) != rank:
        raise errors.InvalidArgumentError(None, None, f"Expected {rank} dimensions in slice spec {spec!r}")
    for part in parts:
        extent = proto.extent.add()
        if part != "-":
            try:
                start, length = (int(x) for x in part.split(","))
            except ValueError:
                raise errors.InvalidArgumentError(None, None, f"Bad slice extent {part!r} in {spec!r}") from None
            extent.start = start
            extent.length = length
    return proto


def parse_shape_and_slice(spec: str) -> tuple[list[int], Any]:
    """(full shape, TensorSliceProto) from a SaveV2 `shape_and_slices` string such as `"4 6 0,2:-"`."""
    *dims, slice_spec = spec.split(" ")
    if not dims:
        raise errors.InvalidArgumentError(None, None, f"Need least two elements in shape_and_slice specification: {spec}")
    try:
        shape = [int(d) for d in dims]
    except ValueError:
        raise errors.InvalidArgumentError(None, None, f"Non-numerical dimension in shape_and_slice: {spec}") from None
    return shape, parse_slice_spec(slice_spec, len(shape))


def _crc_of(array: np.ndarray) -> int:
    return google_crc32c.value(array) if array.size else 0


def _io_thread() -> futures.ThreadPoolExecutor:
    """One I/O thread shared by all bundles, running its tasks in order.

    File reads release the GIL and CRC32C does not, so a second thread reading the next chunk while the
    caller computes the CRC of the last hides most of the read. (Writes gain nothing this way: measured,
    a write to the page cache and a CRC beside it run no faster than one after the other.)
    """
    global _io_pool
    with _io_pool_lock:
        if _io_pool is None:
            _io_pool = futures.ThreadPoolExecutor(1, thread_name_prefix="bundle-io")
        return _io_pool


def _chunks(nbytes: int) -> list[slice]:
    return [slice(start, min(start + _IO_CHUNK, nbytes)) for start in range(0, nbytes, _IO_CHUNK)]


def _read_with_crc(f: Any, offset: int, out: np.ndarray) -> int | None:
    """Fill the byte array `out` from `offset` and return the CRC32C of what was read; None on a short read."""
    f.seek(offset)
    if out.size < 2 * _IO_CHUNK:
        return _crc_of(out) if f.readinto(memoryview(out)) == out.size else None
    chunks = _chunks(out.size)
    reads = [_io_thread().submit(f.readinto, memoryview(out[chunk])) for chunk in chunks]
    try:
        crc = 0
        for chunk, read in zip(chunks, reads):
            if read.result() != chunk.stop - chunk.start:
                return None
            crc = google_crc32c.extend(crc, out[chunk])
        return crc
    finally:
        futures.wait(reads)  # no read may still be filling `out` once the caller has it


def _string_parts(values: Iterable[Any]) -> tuple[list[bytes], int, int]:
    """The pieces TF writes for a string tensor, their total size and the entry's unmasked CRC."""
    strings = [_as_bytes(v) for v in values]
    lengths = bytearray()
    crc = 0
    for s in strings:
        lengths += encode_varint(len(s))
        crc = google_crc32c.extend(crc, struct.pack("<I" if len(s) <= 0xFFFFFFFF else "<Q", len(s)))
    length_checksum = struct.pack("<I", mask(crc))
    crc = google_crc32c.extend(crc, length_checksum)
    for s in strings:
        crc = google_crc32c.extend(crc, s)
    parts = [bytes(lengths), length_checksum, *strings]
    return parts, sum(len(p) for p in parts), crc


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    raise TypeError(f"A string tensor holds bytes or str, not {type(value).__name__}")


class BundleWriter:
    """Writes a single-shard bundle (one per device; `merge_bundles` joins them for sharded saves).

    `finish` renames the data file into place, then writes the index, so the index's appearance
    marks a complete bundle.
    """

    def __init__(self, prefix: str | os.PathLike) -> None:
        self._prefix = os.fspath(prefix)
        directory = os.path.dirname(self._prefix)
        if directory:  # TF creates the prefix's own directory, not its parents: a missing parent is NotFound
            try:
                os.mkdir(directory)
            except FileExistsError:
                pass
            except OSError as e:
                raise os_error(directory, e) from e
        self._data_path = data_filename(self._prefix, 0, 1)
        self._tmp_data_path = f"{self._data_path}.tempstate{uuid.uuid4().int & ((1 << 64) - 1)}"
        self._file = open_or_raise(self._tmp_data_path, "wb")  # closed in finish() or abort()
        self._offset = 0
        self._entries: dict[bytes, Any] = {}
        self._sliced: dict[bytes, Any] = {}

    def add(self, key: str, value: Any, dtype: Any = None) -> None:
        """Append a whole tensor under `key` (a NumPy array or anything `np.asarray` takes)."""
        entry = self._write_tensor(value, dtype)
        self._put(key.encode("utf-8"), entry)

    def add_slice(self, full_name: str, full_shape: Sequence[int], slice_spec: Any, value: Any,
                  dtype: Any = None) -> None:
        """Append one slice of a partitioned tensor (slice as TF's spec string or a TensorSliceProto)."""
        full_shape = [int(d) for d in full_shape]
        proto = parse_slice_spec(slice_spec, len(full_shape)) if isinstance(slice_spec, str) else slice_spec
        starts, lengths = slice_extents(proto, full_shape)
        entry = self._write_tensor(value, dtype)
        self._put(encode_tensor_name_slice(full_name, starts, lengths), entry)
        key = full_name.encode("utf-8")
        full = self._sliced.get(key)
        if key in self._entries:
            raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {full_name}")
        if full is None:
            full = self._sliced[key] = BundleEntryProto(dtype=entry.dtype)
            full.shape.dim.extend(BundleEntryProto().shape.Dim(size=d) for d in full_shape)
        elif full.dtype != entry.dtype or [d.size for d in full.shape.dim] != full_shape:
            raise errors.InvalidArgumentError(None, None, f"Inconsistent slices of {full_name!r}")
        full.slices.add().CopyFrom(proto)

    def _put(self, key: bytes, entry: Any) -> None:
        if key in self._entries or key in self._sliced or key == HEADER_KEY:
            raise errors.InvalidArgumentError(None, None, f"Adding duplicate key: {key.decode('utf-8', 'replace')}")
        self._entries[key] = entry

    def _write_tensor(self, value: Any, dtype: Any) -> Any:
        enum = None if dtype is None else dt.as_enum(dtype) % dt.REF_OFFSET
        array = np.asarray(value) if not isinstance(value, np.ndarray) else value
        if enum is None:
            enum = dt.from_numpy(array.dtype)
        entry = BundleEntryProto(dtype=enum, offset=self._offset)
        entry.shape.SetInParent()
        entry.shape.dim.extend(BundleEntryProto().shape.Dim(size=d) for d in array.shape)
        if enum == dt.DT_STRING:
            parts, size, crc = _string_parts(array.ravel().tolist())
            for part in parts:
                self._file.write(part)
        else:
            if dt.from_numpy(array.dtype) != enum:
                array = cast_to_datatype(array, enum)
            plain = as_storage(array, enum)
            size = plain.nbytes
            crc = _crc_of(plain)
            if size:
                plain.tofile(self._file)  # NumPy's direct write: no copy through Python's buffer
        entry.size = size
        entry.crc32c = mask(crc)
        self._offset += size
        return entry

    def finish(self) -> None:
        """Sync, close and rename the data file, then write the index atomically."""
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._tmp_data_path, self._data_path)
        entries = self._entries | self._sliced
        header = BundleHeaderProto(num_shards=1, version=VersionDef(producer=1))
        rows = [(HEADER_KEY, header.SerializeToString())]
        rows += [(key, entries[key].SerializeToString()) for key in sorted(entries)]
        write_file_atomically(index_filename(self._prefix), build_table(rows))

    def abort(self) -> None:
        """Drop the partial data file (after an error mid-save)."""
        self._file.close()
        if os.path.exists(self._tmp_data_path):
            os.remove(self._tmp_data_path)

    def __enter__(self) -> BundleWriter:
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if exc_type is None:
            self.finish()
        else:
            self.abort()


def write_file_atomically(path: str, data: bytes) -> None:
    """Replace `path` with `data` so that a crash leaves the old file or the new one, never part of one:
    written to a temporary file, fsynced, renamed, and the rename synced."""
    tmp = f"{path}.tempstate{uuid.uuid4().hex}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    sync_directory(os.path.dirname(path))


def sync_directory(directory: str) -> None:
    """Make the renames into a directory durable (where the platform lets a directory be opened)."""
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the rename itself is still atomic
    finally:
        os.close(fd)


def write_bundle(prefix: str | os.PathLike, tensors: Mapping[str, Any]) -> None:
    """Write a single-shard bundle of named tensors in sorted-name order, as TF's Saver does."""
    with BundleWriter(prefix) as writer:
        for name in sorted(tensors, key=lambda n: n.encode("utf-8")):
            writer.add(name, tensors[name])


def merge_bundles(prefixes: Sequence[str | os.PathLike], destination_prefix: str | os.PathLike,
                  delete_old_dirs: bool = True) -> None:
    """Merge per-device bundles into one sharded bundle (TF's MergeV2Checkpoints, for sharded saves).

    Shards are renumbered in input order and their data files renamed into place; slices of one
    partitioned tensor saved on different devices are combined. The merged index is written last.
    """
    destination = os.fspath(destination_prefix)
    readers = [BundleReader(p) for p in prefixes]
    total = sum(r.num_shards for r in readers)
    merged: dict[bytes, Any] = {}
    renames = []
    first_shard = 0
    for reader in readers:
        for key in reader.keys():
            entry = BundleEntryProto()
            entry.CopyFrom(reader.entry(key))
            entry.shard_id += first_shard
            existing = merged.get(key)
            if existing is None:
                merged[key] = entry
            elif entry.slices and existing.slices and entry.dtype == existing.dtype and entry.shape == existing.shape:
                existing.slices.extend(entry.slices)
            else:
                raise errors.InvalidArgumentError(None, None, f"Duplicate tensor keyed by {key.decode('utf-8', 'replace')} "
                                                  "encountered, when merging prefix: " + reader.prefix)
        for shard in range(reader.num_shards):
            renames.append((data_filename(reader.prefix, shard, reader.num_shards),
                            data_filename(destination, first_shard + shard, total)))
        first_shard += reader.num_shards
        reader.close()
    directory = os.path.dirname(destination)
    if directory:
        os.makedirs(directory, exist_ok=True)
    for source, target in renames:
        os.replace(source, target)
    header = BundleHeaderProto(num_shards=total, version=VersionDef(producer=1))
    rows = [(HEADER_KEY, header.SerializeToString())] + [(k, merged[k].SerializeToString()) for k in sorted(merged)]
    write_file_atomically(index_filename(destination), build_table(rows))
    for prefix in prefixes:
        prefix = os.fspath(prefix)
        if os.path.abspath(index_filename(prefix)) != os.path.abspath(index_filename(destination)):
            os.remove(index_filename(prefix))
        if delete_old_dirs:
            try:
                os.rmdir(os.path.dirname(prefix) or ".")
            except OSError:
                pass  # not empty, or the destination's own directory: TF leaves those too


class BundleReader:
    """Reads a bundle: parses the whole index up front, then reads tensors from the shards on demand."""

    def __init__(self, prefix: str | os.PathLike) -> None:
        self._prefix = os.fspath(prefix)
        self.prefix = self._prefix
        self._index_path = index_filename(self._prefix)
        try:
            with open(self._index_path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            if os.path.isdir(self._prefix):  # TF then tries the prefix itself as a V1 table file
                raise errors.DataLossError(
                    None, None, f"Unable to open table file {self._prefix}: FAILED_PRECONDITION: {self._prefix}; "
                    "Is a directory: perhaps your file is in a different file format and you need to use a "
                    "different restore operator?") from None
            raise errors.NotFoundError(None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any "
                                       f"matching files for {self._prefix}") from None
        rows = read_table(data, self._index_path)
        if not rows or rows[0][0] != HEADER_KEY:
            raise errors.DataLossError(None, None, f"{self._index_path}: checkpoint index has no header entry")
        header = self._parse(BundleHeaderProto, rows[0][1], "header")
        if header.endianness != BundleHeaderProto.LITTLE:
            raise errors.UnimplementedError(None, None, f"{self._index_path}: big-endian checkpoints are unsupported")
        if header.num_shards < 1:
            raise errors.DataLossError(None, None, f"{self._index_path}: bad num_shards {header.num_shards}")
        self.num_shards = header.num_shards
        self._raw_entries = dict(rows[1:])
        self._entries: dict[bytes, Any] = {}
        self._files: dict[int, Any] = {}
        self._lock = threading.Lock()

    def _parse(self, cls: Any, data: bytes, what: str) -> Any:
        try:
            return cls.FromString(data)
        except message.DecodeError as e:
            raise errors.DataLossError(None, None, f"{self._index_path}: corrupted {what} entry: {e}") from None

    def entry(self, key: str | bytes) -> Any:
        """The BundleEntryProto of a key; NotFoundError naming it when absent."""
        raw_key = key.encode("utf-8") if isinstance(key, str) else key
        entry = self._entries.get(raw_key)
        if entry is None:
            if raw_key not in self._raw_entries:
                name = raw_key.decode("utf-8", "replace")
                raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
            entry = self._entries[raw_key] = self._parse(BundleEntryProto, self._raw_entries[raw_key], repr(raw_key))
        return entry

    def keys(self) -> list[bytes]:
        """Every key but the header, in index order (slice keys included)."""
        return list(self._raw_entries)

    def contains(self, key: str) -> bool:
        """Whether the index has this key."""
        return key.encode("utf-8") in self._raw_entries

    def shape_and_dtype(self, key: str) -> tuple[list[int], int]:
        """The full shape and DataType of a tensor, without reading it."""
        entry = self.entry(key)
        return [d.size for d in entry.shape.dim], entry.dtype

    def lookup(self, key: str) -> np.ndarray:
        """The tensor stored under `key`, assembled from its slices if it was saved partitioned."""
        entry = self.entry(key)
        shape = self._shape(entry, key)
        if not entry.slices:
            return self._read(entry, shape, key)
        parts = []
        for proto in entry.slices:
            try:
                starts, lengths = slice_extents(proto, shape)
            except ValueError as e:
                raise errors.DataLossError(None, None, f"{self._index_path}: bad slice of {key}: {e}") from None
            index = tuple(slice(s, None if n == _FULL_EXTENT else s + n) for s, n in zip(starts, lengths))
            part = self.entry(encode_tensor_name_slice(key, starts, lengths))
            with self._lock:
                self._check_extent(part, key)
            parts.append((index, part))
        # The slices' stored sizes bound the full tensor, so a corrupt shape cannot force a huge allocation.
        if math.prod(shape) > sum(part.size for _, part in parts):
            raise errors.DataLossError(None, None, f"{self._index_path}: slices of {key} do not cover its shape")
        out = self._empty(entry.dtype, shape)
        for index, part in parts:
            target = out[index]
            if part.dtype != entry.dtype or self._shape(part, key) != list(target.shape):
                raise errors.DataLossError(None, None, f"{self._index_path}: slice of {key} has the wrong shape")
            out[index] = self._read(part, list(target.shape), key)
        return out

    def _shape(self, entry: Any, key: Any) -> list[int]:
        shape = [d.size for d in entry.shape.dim]
        if any(d < 0 for d in shape):
            raise errors.DataLossError(None, None, f"{self._index_path}: bad shape {shape} for {key}")
        return shape

    def _empty(self, enum: int, shape: list[int]) -> np.ndarray:
        if enum == dt.DT_STRING:
            return np.full(shape, b"", dtype=object)
        return np.zeros(shape, dtype=self._storage(enum)).view(dt.numpy_dtype(enum))

    def _storage(self, enum: int) -> np.dtype:
        try:
            return dt.storage_dtype(enum)
        except TypeError:
            raise errors.UnimplementedError(None, None, f"{self._index_path}: cannot read tensors of DataType "
                                            f"{enum}") from None

    def _file(self, shard_id: int) -> Any:
        if not 0 <= shard_id < self.num_shards:
            raise errors.DataLossError(None, None, f"{self._index_path}: bad shard id {shard_id}")
        f = self._files.get(shard_id)
        if f is None:
            path = data_filename(self._prefix, shard_id, self.num_shards)
            try:
                f = self._files[shard_id] = open(path, "rb")  # noqa: SIM115 - closed in close()
            except FileNotFoundError:
                raise errors.NotFoundError(None, None, f"{path}: checkpoint data file not found") from None
        return f

    def _check_extent(self, entry: Any, key: Any) -> Any:
        """The entry's open shard, once its bytes are known to lie inside it (caller holds the lock)."""
        f = self._file(entry.shard_id)
        if entry.offset < 0 or entry.size < 0 or entry.offset + entry.size > os.fstat(f.fileno()).st_size:
            raise errors.DataLossError(None, None, f"{f.name}: entry for {key} lies past the end of the file")
        return f

    def _read(self, entry: Any, shape: list[int], key: Any) -> np.ndarray:
        """Read an entry's bytes straight into the result array, then check sizes and the CRC."""
        num = math.prod(shape)
        with self._lock:
            f = self._check_extent(entry, key)
            path = f.name
            if entry.dtype == dt.DT_STRING:
                if num > entry.size:
                    raise errors.DataLossError(None, None, f"{path}: string tensor {key} is truncated")
                f.seek(entry.offset)
                return self._decode_strings(f.read(entry.size), num, shape, entry, path, key)
            storage = self._storage(entry.dtype)
            if num * storage.itemsize != entry.size:
                raise errors.DataLossError(None, None, f"{path}: {key} holds {entry.size} bytes, but shape {shape} "
                                           f"of {dt.name(entry.dtype)} needs {num * storage.itemsize}")
            flat = np.empty(num, dtype=storage)
            crc = _read_with_crc(f, entry.offset, flat.view(np.uint8))
        if crc is None:
            raise errors.DataLossError(None, None, f"{path}: short read of {key}")
        if crc != unmask(entry.crc32c):
            raise errors.DataLossError(None, None, f"{path}: checksum does not match for {key}: stored "
                                       f"{unmask(entry.crc32c)} vs. calculated on the restored bytes {crc}")
        return flat.view(dt.numpy_dtype(entry.dtype)).reshape(shape)

    def _decode_strings(self, data: bytes, num: int, shape: list[int], entry: Any, path: str, key: Any) -> np.ndarray:
        lengths = []
        pos = 0
        crc = 0
        try:
            for _ in range(num):
                length, pos = decode_varint(data, pos, len(data))
                lengths.append(length)
                crc = google_crc32c.extend(crc, struct.pack("<I" if length <= 0xFFFFFFFF else "<Q", length))
        except ValueError:
            raise errors.DataLossError(None, None, f"{path}: corrupted string lengths of {key}") from None
        checksum = data[pos:pos + 4]
        if len(checksum) != 4 or struct.unpack("<I", checksum)[0] != mask(crc):
            raise errors.DataLossError(None, None, f"{path}: string lengths checksum does not match for {key}")
        crc = google_crc32c.extend(crc, checksum)
        pos += 4
        if pos + sum(lengths) != len(data):
            raise errors.DataLossError(None, None, f"{path}: string tensor {key} has the wrong size")
        out = np.empty(num, dtype=object)
        for i, length in enumerate(lengths):
            out[i] = data[pos:pos + length]
            pos += length
        crc = google_crc32c.extend(crc, data[len(data) - sum(lengths):])
        if crc != unmask(entry.crc32c):
            raise errors.DataLossError(None, None, f"{path}: checksum does not match for {key}")
        return out.reshape(shape)

    def close(self) -> None:
        """Close the open data files."""
        with self._lock:
            for f in self._files.values():
                f.close()
            self._files.clear()

    def __enter__(self) -> BundleReader:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_files", None):
            self.close()
