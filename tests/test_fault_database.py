"""Database files we did not make, or cannot trust, are refused untouched (db.opening):
a file of a newer Poki, another application's SQLite file, a 0-byte file when reading,
a damaged file when writing. Each is checked through the commands a user runs (`poki db`,
`poki replay`) and byte for byte afterwards."""
from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.cli import main
from db.database import Database, DatabaseError


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def stocked(tmp_path) -> Path:
    path = tmp_path / "poki.sqlite"
    with Database(path) as db:
        db.write_hands(list(synthetic_hands(60, seed=4)), "irc")
    return path


@pytest.fixture(scope="module")
def acpc_log(tmp_path_factory) -> Path:
    log = tmp_path_factory.mktemp("log") / "match.log"
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=raise",
                 "--hands", "20", "--seed", "3", "--log", str(log), "--no-progress"]) == 0
    return log


def _checkpointed(path: Path) -> None:
    """Everything in the main file (no WAL), so its bytes are the whole database."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _from_the_future(path: Path) -> str:
    """Make ``path`` a file of a newer Poki (a migration this version does not know); its digest."""
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO _sqlite_migrations (migration_set, name, applied_at) "
                     "VALUES ('poki', 'm099_from_the_future', '2031-01-01')")
    conn.close()
    _checkpointed(path)
    return _digest(path)


def test_finding6_a_file_of_a_newer_poki_is_refused_untouched(stocked, acpc_log, capsys) -> None:
    before = _from_the_future(stocked)
    with pytest.raises(DatabaseError, match="newer version of Poki.*m099_from_the_future"):
        Database(stocked)
    assert main(["db", "check", "--db", str(stocked)]) == 1
    assert "newer version" in capsys.readouterr().err
    assert main(["db", "stats", "--db", str(stocked)]) == 1
    assert main(["replay", str(acpc_log), "--db", str(stocked), "--no-progress"]) == 1
    assert "newer version" in capsys.readouterr().err
    assert _digest(stocked) == before


def test_report_refuses_a_file_of_a_newer_poki_untouched(stocked, tmp_path, capsys) -> None:
    """Issue 39: `poki report` read a newer Poki's file (a schema it may misread) as if it
    were its own; it is refused as every other opener refuses it, exit 1, no report."""
    before = _from_the_future(stocked)
    out = tmp_path / "report"
    assert main(["report", "--db", str(stocked), "--out", str(out), "--no-progress"]) == 1
    assert "newer version of Poki" in capsys.readouterr().err
    assert not out.exists() and _digest(stocked) == before


def _damage(path: Path) -> None:
    _checkpointed(path)
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.seek(size // 2)
        f.write(bytes(range(256)) * 40)


def test_finding6_replay_refuses_a_damaged_file(stocked, acpc_log, capsys) -> None:
    _damage(stocked)
    before = _digest(stocked)
    assert main(["replay", str(acpc_log), "--db", str(stocked), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "damaged" in err and "poki db check" in err and "Traceback" not in err
    assert _digest(stocked) == before
    # db check says what is wrong, reading only.
    assert main(["db", "check", "--db", str(stocked)]) == 1
    captured = capsys.readouterr()
    assert "integrity_check" in captured.out and "damaged" in captured.err
    assert _digest(stocked) == before


def test_finding6_another_applications_file_is_left_as_it_was(tmp_path, capsys) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x)")
        conn.execute("INSERT INTO notes VALUES ('mine')")
    conn.close()
    before = _digest(other)
    for command in (["db", "stats"], ["db", "check"], ["db", "player", "x"]):
        assert main([*command, "--db", str(other)]) == 1
        assert "not a Poki database" in capsys.readouterr().err
    with pytest.raises(DatabaseError, match="not a Poki database"):
        Database(other)
    assert _digest(other) == before
    with sqlite3.connect(other) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # never switched to WAL
    conn.close()
    # Another application that marks its files: refused by its application id alone.
    marked = tmp_path / "marked.sqlite"
    with sqlite3.connect(marked) as conn:
        conn.execute("PRAGMA application_id = 1234")
    conn.close()
    with pytest.raises(DatabaseError, match="another application"):
        Database(marked)


def test_finding6_a_zero_byte_file_stays_zero_bytes(tmp_path, capsys) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    for command in (["db", "stats"], ["db", "check"]):
        assert main([*command, "--db", str(empty)]) == 1
        assert "empty file" in capsys.readouterr().err
    assert empty.stat().st_size == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite"]
    # Creating a database in it is what a writer may do.
    with Database(empty) as db:
        assert db.hand_count() == 0


def test_a_folder_or_a_non_sqlite_file_is_refused(tmp_path) -> None:
    (tmp_path / "folder.sqlite").mkdir()
    with pytest.raises(DatabaseError, match="a folder"):
        Database(tmp_path / "folder.sqlite")
    text = tmp_path / "notes.sqlite"
    text.write_text("my notes, not a database")
    with pytest.raises(DatabaseError, match="not an SQLite database"):
        Database(text)
    assert text.read_text() == "my notes, not a database"


def test_our_files_carry_our_application_id(stocked) -> None:
    from db.opening import APPLICATION_ID

    with sqlite3.connect(stocked) as conn:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    conn.close()
