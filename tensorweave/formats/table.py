"""The LevelDB table format of a checkpoint's `.index` file: an in-memory builder and a checked reader.

Layout: data blocks of prefix-compressed entries (a restart every 16 entries, flushed once a block
reaches TF's 256 KiB), each followed by a type byte `00` and a masked CRC-32C; an empty metaindex
block; an index block (restart interval 1) mapping each data block's shortest separator key to its
handle; and a 48-byte footer ending in the table magic. Built with TF's exact rules, the bytes equal
TF's own. The reader trusts nothing: every length, offset and CRC is checked against the file, and
any violation is DataLossError naming the file.
"""

from __future__ import annotations

import struct

from tensorweave import errors
from tensorweave.formats.crc32c import masked_crc32c

BLOCK_SIZE = 256 * 1024
RESTART_INTERVAL = 16
MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_TRAILER_SIZE = 5


def encode_varint(value: int) -> bytes:
    """LevelDB/protobuf unsigned varint."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data: bytes, pos: int, limit: int) -> tuple[int, int]:
    """(value, next position) of a varint64 that must end before `limit`; ValueError otherwise."""
    result = 0
    shift = 0
    while pos < limit and shift < 64:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    raise ValueError("bad varint")


class _BlockBuilder:
    def __init__(self, restart_interval: int) -> None:
        self._interval = restart_interval
        self._buf = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last_key = b""

    def empty(self) -> bool:
        return not self._buf

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self._counter < self._interval:
            limit = min(len(key), len(self._last_key))
            while shared < limit and key[shared] == self._last_key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buf))
            self._counter = 0
        self._buf += encode_varint(shared) + encode_varint(len(key) - shared) + encode_varint(len(value))
        self._buf += key[shared:]
        self._buf += value
        self._last_key = key
        self._counter += 1

    def size_estimate(self) -> int:
        return len(self._buf) + 4 * len(self._restarts) + 4

    def finish(self) -> bytes:
        return bytes(self._buf) + struct.pack(f"<{len(self._restarts)}II", *self._restarts, len(self._restarts))


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key k with start <= k < limit (LevelDB's bytewise FindShortestSeparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n and start[i] < 0xFF and start[i] + 1 < limit[i]:
        return start[:i] + bytes([start[i] + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    """A short key >= key (LevelDB's bytewise FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def build_table(entries: list[tuple[bytes, bytes]]) -> bytes:
    """The table file for entries already in strictly increasing key order."""
    out = bytearray()
    index = _BlockBuilder(1)
    block = _BlockBuilder(RESTART_INTERVAL)
    pending: bytes | None = None  # handle of the last flushed block, awaiting its index key
    last_key = b""

    def write_block(contents: bytes) -> bytes:
        handle = encode_varint(len(out)) + encode_varint(len(contents))
        out.extend(contents)
        out.extend(b"\x00" + struct.pack("<I", masked_crc32c(contents + b"\x00")))
        return handle

    for key, value in entries:
        if pending is not None:
            index.add(_shortest_separator(last_key, key), pending)
            pending = None
        last_key = key
        block.add(key, value)
        if block.size_estimate() >= BLOCK_SIZE:
            pending = write_block(block.finish())
            block = _BlockBuilder(RESTART_INTERVAL)
    if not block.empty():
        pending = write_block(block.finish())
    metaindex_handle = write_block(_BlockBuilder(RESTART_INTERVAL).finish())
    if pending is not None:
        index.add(_short_successor(last_key), pending)
    index_handle = write_block(index.finish())
    footer = (metaindex_handle + index_handle).ljust(FOOTER_SIZE - 8, b"\x00")
    out.extend(footer + struct.pack("<Q", MAGIC))
    return bytes(out)


def read_table(data: bytes, path: str) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of a table file's contents, in order; DataLossError if corrupt: TF's own bare messages
    for a file too short or without the magic number (as its Table::Open gives them), naming `path` otherwise."""
    try:
        if len(data) < FOOTER_SIZE:
            raise errors.DataLossError(None, None, "file is too short to be an sstable")
        if struct.unpack_from("<Q", data, len(data) - 8)[0] != MAGIC:
            raise errors.DataLossError(None, None, "not an sstable (bad magic number)")
        footer_start = len(data) - FOOTER_SIZE
        _, pos = _read_handle(data, footer_start, len(data) - 8)  # metaindex: unused by bundles
        index_offset, index_size = _read_handle(data, pos, len(data) - 8)[0]
        index = _block(data, index_offset, index_size, footer_start)
        entries: list[tuple[bytes, bytes]] = []
        for _, handle in _block_entries(index):
            (offset, size), _ = _read_handle(handle, 0, len(handle))
            for key, value in _block_entries(_block(data, offset, size, footer_start)):
                if entries and key <= entries[-1][0]:
                    raise ValueError("keys out of order")
                entries.append((key, value))
        return entries
    except (ValueError, struct.error) as e:
        raise errors.DataLossError(None, None, f"{path}: corrupted checkpoint index: {e}") from None


def _read_handle(data: bytes, pos: int, limit: int) -> tuple[tuple[int, int], int]:
    offset, pos = decode_varint(data, pos, limit)
    size, pos = decode_varint(data, pos, limit)
    return (offset, size), pos


def _block(data: bytes, offset: int, size: int, limit: int) -> bytes:
    """A block's contents after checking it lies inside the file and its trailer's type and CRC."""
    end = offset + size
    if end + _TRAILER_SIZE > limit:
        raise ValueError(f"block handle ({offset}, {size}) past the end of the file")
    contents = data[offset:end]
    if data[end] != 0:
        raise ValueError(f"unsupported block compression type {data[end]}")
    if masked_crc32c(data[offset:end + 1]) != struct.unpack_from("<I", data, end + 1)[0]:
        raise ValueError(f"block checksum mismatch at offset {offset}")
    return contents


def _block_entries(block: bytes) -> list[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise ValueError("block too short")
    num_restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise ValueError("bad restart array")
    out: list[tuple[bytes, bytes]] = []
    key = b""
    pos = 0
    while pos < limit:
        shared, pos = decode_varint(block, pos, limit)
        non_shared, pos = decode_varint(block, pos, limit)
        value_len, pos = decode_varint(block, pos, limit)
        if shared > len(key) or pos + non_shared + value_len > limit:
            raise ValueError("bad block entry")
        key = key[:shared] + block[pos:pos + non_shared]
        pos += non_shared
        out.append((key, block[pos:pos + value_len]))
        pos += value_len
    return out
