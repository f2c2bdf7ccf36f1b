"""Read-only LMDB: the records of an LMDB environment's main database, in key order, as LMDB's cursor gives them
(what TF1's LMDBReader reads through liblmdb).

The file (an environment directory's `data.mdb`, or the file itself, as MDB_NOSUBDIR opens it) is a sequence of
pages of one size. Pages 0 and 1 are meta pages, the one with the larger transaction id current; its main
database record names the B+tree's root. Every page starts with a 16-byte header (page number, flags, the
lower and upper bounds of its free space, or for an overflow page the count of pages it spans); branch and leaf
pages then hold a vector of 16-bit offsets to their nodes, in key order. A node is (size low, size high, flags,
key size) as four 16-bit words, then the key, then: on a branch page nothing (the child's page number is the
48-bit size field with the flags word above it), on a leaf page the value, or with F_BIGDATA the number of the
overflow page that holds it. The layout is liblmdb 0.9's on a little-endian 64-bit machine.
"""

from __future__ import annotations

import mmap
import os
import struct
from collections.abc import Iterator

import numpy as np

from tensorweave import errors
from tensorweave.formats import tfrecord

_MAGIC = 0xBEEFC0DE
_DATA_VERSION = 1
_PAGE_HEADER = struct.Struct("<QHHHH")  # page number, pad, flags, lower, upper (overflow: page count)
_META = struct.Struct("<IIQQ" + "IHHQQQQQ" * 2 + "QQ")  # magic, version, address, map size, 2 dbs, last page, txn
_NODE = struct.Struct("<HHHH")  # size low, size high, flags, key size
_BRANCH, _LEAF, _OVERFLOW, _META_PAGE, _LEAF2 = 0x01, 0x02, 0x04, 0x08, 0x20
_BIGDATA, _DUPDATA = 0x01, 0x04
_DUPSORT = 0x04
_NO_ROOT = 2**64 - 1


def data_file(path: str) -> str:
    """The data file of `path`: an environment directory's data.mdb, or `path` itself when it is a file."""
    return os.path.join(path, "data.mdb") if os.path.isdir(path) else path


class LMDBFile:
    """One LMDB data file, mapped read-only; `records()` walks its main database."""

    def __init__(self, path: str) -> None:
        self.path = data_file(path)
        with tfrecord.open_or_raise(self.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size < 2 * _PAGE_HEADER.size + _META.size:
                raise self._invalid()
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        first = self._meta(0)
        self.page_size = first[4]  # the free-list record's pad holds the page size
        if size < 2 * self.page_size:
            raise self._invalid()
        meta = max(first, self._meta(self.page_size), key=lambda m: m[-1])
        flags, self.depth, self.entries, self.root = meta[13], meta[14], meta[18], meta[19]
        if flags & _DUPSORT:
            raise errors.UnimplementedError(None, None, f"{self.path}: LMDB databases with sorted duplicates")

    def _invalid(self) -> errors.DataLossError:
        return errors.DataLossError(None, None, f"{self.path}: MDB_INVALID: File is not an LMDB file")

    def _meta(self, offset: int) -> tuple[int, ...]:
        flags = _PAGE_HEADER.unpack_from(self._map, offset)[2]
        meta = _META.unpack_from(self._map, offset + _PAGE_HEADER.size)
        if not flags & _META_PAGE or meta[0] != _MAGIC:
            raise self._invalid()
        if meta[1] != _DATA_VERSION:
            raise errors.DataLossError(
                None, None, f"{self.path}: MDB_VERSION_MISMATCH: Database environment version mismatch")
        return meta

    def close(self) -> None:
        self._map.close()

    def records(self) -> Iterator[tuple[bytes, bytes]]:
        """(key, value) of every record of the main database, in key order."""
        if self.root != _NO_ROOT:
            yield from self._walk(self.root)

    def _page(self, number: int) -> tuple[int, int, np.ndarray]:
        """The page's offset in the file, its flags, and its node offsets (from the page's start)."""
        base = number * self.page_size
        if base + self.page_size > len(self._map):
            raise errors.DataLossError(None, None, f"{self.path}: MDB_PAGE_NOTFOUND: Requested page not found")
        _, _, flags, lower, _ = _PAGE_HEADER.unpack_from(self._map, base)
        count = max(lower - _PAGE_HEADER.size, 0) // 2
        offsets = np.frombuffer(self._map, "<u2", count, base + _PAGE_HEADER.size).astype(np.int64)
        return base, flags, offsets

    def _walk(self, number: int) -> Iterator[tuple[bytes, bytes]]:
        base, flags, offsets = self._page(number)
        if flags & _BRANCH:
            for offset in offsets:
                low, high, top, _ = _NODE.unpack_from(self._map, base + offset)
                yield from self._walk(low | high << 16 | top << 32)
        elif flags & _LEAF and not flags & _LEAF2:
            for offset in offsets:
                yield self._leaf_record(base + int(offset))
        else:
            raise errors.DataLossError(None, None, f"{self.path}: MDB_CORRUPTED: Located page was wrong type")

    def _leaf_record(self, at: int) -> tuple[bytes, bytes]:
        low, high, flags, key_size = _NODE.unpack_from(self._map, at)
        start = at + _NODE.size + key_size
        key, size = self._map[at + _NODE.size:start], low | high << 16
        if flags & _DUPDATA:
            raise errors.UnimplementedError(None, None, f"{self.path}: LMDB records with duplicate keys")
        if flags & _BIGDATA:
            start = struct.unpack_from("<Q", self._map, start)[0] * self.page_size + _PAGE_HEADER.size
        return key, self._map[start:start + size]
