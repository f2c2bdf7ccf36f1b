"""formats.lmdb: the records of LMDB files written by liblmdb (tests/fixtures/lmdb, made by its
make_fixtures.py with py-lmdb), equal to what py-lmdb's cursor read from them (recorded as counts and hashes):
meta pages, a three-level B+tree, overflow pages, an environment directory, an empty database, bad files."""

import hashlib
import pathlib

import pytest

from tensorweave import errors
from tensorweave.formats import lmdb

FIXTURES = pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "lmdb"


def _digest(parts: list[bytes]) -> str:
    return hashlib.sha256(b"".join(parts)).hexdigest()[:16]


@pytest.mark.parametrize("name, count, keys, values", [
    ("small.mdb", 5, "20b096cf50fe556d", "2ad50c925ca117fe"),
    ("tree.mdb", 294, "ba3c76683276ed3e", "53b545012153bd0b"),
    ("dir", 3, "658b4ea708f9105c", "adbb418aed542dfb"),
    ("empty.mdb", 0, "e3b0c44298fc1c14", "e3b0c44298fc1c14"),
])
def test_records_equal_liblmdb_cursor(name, count, keys, values):
    file = lmdb.LMDBFile(str(FIXTURES / name))
    records = list(file.records())
    file.close()
    assert len(records) == count == file.entries
    assert _digest([k for k, _ in records]) == keys and _digest([v for _, v in records]) == values
    assert [k for k, _ in records] == sorted(k for k, _ in records)


def test_tree_pages_and_overflow_values():
    file = lmdb.LMDBFile(str(FIXTURES / "tree.mdb"))
    records = list(file.records())
    assert file.page_size == 4096 and file.depth == 3
    assert [i for i, (_, v) in enumerate(records) if len(v) > 4000] == [159, 272, 283]
    assert sorted({len(v) for _, v in records})[-2:] == [5000, 9000]
    assert records[0][0][:8] == b"00010001" and records[-1][0][:8] == b"02990299"
    small = dict(lmdb.LMDBFile(str(FIXTURES / "small.mdb")).records())
    assert small == {b"\x00bin": b"\x01\x02\xff", b"apple": b"red", b"banana": b"ripe yellow",
                     b"cherry": b"dark red", b"pear": b"green"}


def test_bad_files(tmp_path):
    with pytest.raises(errors.NotFoundError, match="nope.mdb; No such file or directory"):
        lmdb.LMDBFile(str(tmp_path / "nope.mdb"))
    (tmp_path / "text.mdb").write_bytes(b"not an lmdb file" * 1000)
    with pytest.raises(errors.DataLossError, match="MDB_INVALID: File is not an LMDB file"):
        lmdb.LMDBFile(str(tmp_path / "text.mdb"))
    (tmp_path / "short.mdb").write_bytes((FIXTURES / "small.mdb").read_bytes()[:8192])
    with pytest.raises(errors.DataLossError, match="MDB_PAGE_NOTFOUND"):
        list(lmdb.LMDBFile(str(tmp_path / "short.mdb")).records())
