"""The one read-only opener (db.opening.open_read_only) and its callers: the report's
(db.reads.open_readonly), the replay's look-up of stored hands (db.database.StoredHands)
and the file inspection before a database is opened. A file name holding a character
that means something in an SQLite URI (``#`` ends the path, ``?`` starts the options,
``%`` starts an escape) is read as named; the file is never written, and a missing file
is never made (real SQLite files, the folder's listing and times compared). A reader of a
database in WAL mode may leave SQLite's shared index beside it (``-wal``, ``-shm``: how
readers and a writer meet), never a file of another name."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent.bench.synthetic import synthetic_hands
from db.database import Database, DatabaseError, StoredHands
from db.opening import open_read_only
from db.reads import ReadError, open_readonly, report_rows

NAMES = ["hands#1.sqlite", "hands?mode=rwc.sqlite", "hands%41.sqlite", "a#b?c%25d.sqlite"]
HANDS = 12


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file in ``folder`` but SQLite's WAL index files: (modification time in ns, size)."""
    return {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(folder.iterdir())
            if not p.name.endswith(("-wal", "-shm"))}


def made(folder: Path, name: str) -> Path:
    path = folder / name
    with Database(path) as db:
        report = db.write_hands(synthetic_hands(HANDS, seed=5), "net")
    assert report.stored == HANDS
    return path


@pytest.mark.parametrize("name", NAMES)
def test_a_database_named_with_uri_characters_is_read_as_named_and_left_as_it_was(tmp_path, name) -> None:
    folder = tmp_path / "dbs"
    folder.mkdir()
    path = made(folder, name)
    before, content = listing(folder), path.read_bytes()
    conn = open_readonly(str(path))  # the report's opener
    try:
        assert len(report_rows(conn).hands) == HANDS
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("CREATE TABLE stray (x)")
    finally:
        conn.close()
    stored = StoredHands(path)  # the replay's
    try:
        assert stored.has_hand("syn5-0") and not stored.has_hand("syn5-99")
    finally:
        stored.close()
    conn = open_read_only(path)
    try:
        with pytest.raises(sqlite3.OperationalError):
            conn.execute("DELETE FROM hands")
    finally:
        conn.close()
    assert listing(folder) == before and path.read_bytes() == content
    assert {p.name for p in folder.iterdir()} <= {name, f"{name}-wal", f"{name}-shm"}


@pytest.mark.parametrize("name", NAMES)
def test_a_missing_database_named_with_uri_characters_is_never_made(tmp_path, name) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "keep").write_text("x")  # the prefix a `#` would leave is "hands" or "a": not made either
    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    with pytest.raises(ReadError, match="no database"):
        open_readonly(str(folder / name))
    with pytest.raises(sqlite3.OperationalError):
        open_read_only(folder / name)
    with pytest.raises(DatabaseError, match="cannot open read-only"):
        StoredHands(folder / name)
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before


def test_the_file_before_a_hash_is_not_what_is_opened(tmp_path) -> None:
    """Where the file the unquoted URI would name exists (the path up to the ``#``), the
    opener still reads the named file, and the other is untouched."""
    folder = tmp_path / "pair"
    folder.mkdir()
    decoy = folder / "hands"
    decoy.write_bytes(b"")  # an empty file: SQLite opens it as an empty database
    path = made(folder, "hands#1.sqlite")
    before = listing(folder)
    conn = open_readonly(str(path))
    try:
        assert len(report_rows(conn).hands) == HANDS
    finally:
        conn.close()
    assert listing(folder) == before and decoy.read_bytes() == b""
