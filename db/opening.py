"""Deciding whether a file may be opened as the Poki database, before anything is
written to it: the file is looked at read-only first, and only a file that is ours (or
new, or empty, when creating) is then opened for writing.

What is refused, untouched (not even switched to WAL), with a DatabaseError that names
the file and says why:

* a folder, or a file that is not SQLite at all (its first bytes are not SQLite's header);
* an SQLite file of another application: another application id in its header, or
  tables and no record of our migrations;
* a file of a newer Poki: a migration of ours this version does not know (the schema may
  have changed in ways this version would break);
* an empty (0-byte) file when not creating: nothing to read, and nothing is written;
* when it is to be written: a damaged file (``PRAGMA quick_check`` finds a problem;
  ``poki db check`` then says what) — writing more into it would bury the damage.

A file is ours when it records our migrations (and any application id in its header is
:data:`APPLICATION_ID`, which db.database writes when it opens a file for writing: the
write that also proves the file can be written before any work starts).
"""
from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

__all__ = ["APPLICATION_ID", "MIGRATIONS_TABLE", "FileState", "applied_migrations", "inspect", "newer_message", "open_read_only",
           "quick_check"]

APPLICATION_ID = 0x506F6B69  # "Poki", in the SQLite header's application id field
SQLITE_HEADER = b"SQLite format 3\x00"
MIGRATIONS_TABLE = "_sqlite_migrations"


@dataclass(frozen=True)
class FileState:
    """What a look at the file found: ``kind`` is "missing", "empty" (0 bytes, or SQLite
    with no tables yet) or "ours"; ``migrations`` the names of ours it has had."""

    kind: str
    migrations: tuple[str, ...] = ()


def open_read_only(path: str | Path, timeout: float = 30.0) -> sqlite3.Connection:
    """A connection that cannot write the file (SQLite's read-only mode, queries only): the
    one read-only opener. The path is quoted in the URI, so a ``#``, ``?`` or ``%`` in a
    file name stays part of the name: unquoted, ``#`` would end the path and drop
    ``mode=ro`` (SQLite would then create and write the file named by what comes before)."""
    uri = f"file:{quote(os.path.abspath(path))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=timeout)
    conn.execute("PRAGMA query_only = 1")
    return conn


def quick_check(conn: sqlite3.Connection, limit: int = 5) -> list[str]:
    """What SQLite's quick check finds wrong with the file (empty when nothing)."""
    rows = [r[0] for r in conn.execute(f"PRAGMA quick_check({int(limit)})")]
    return [] if rows == ["ok"] else rows


def inspect(path: str | Path, known_migrations: set[str], migration_set: str, *,
            create: bool, verify: bool, error: type[Exception], write: bool = True) -> FileState:
    """Look at ``path`` read-only and raise ``error`` (the caller's DatabaseError) for a
    file that must not be opened (module docstring); ``verify`` runs the quick check;
    ``write``: the caller will write, so the file and its folder must be writable."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not path.exists():
        if path.is_symlink():
            raise error(f"{path}: a link to nothing")
        if not create:
            raise error(f"no database at {path}")
        if write and folder.is_dir() and not os.access(folder, os.W_OK):
            raise error(f"{path}: cannot be written: the folder {folder} is read-only")
        return FileState("missing")
    if path.is_dir():
        raise error(f"{path}: a folder, not a database file")
    if write and not os.access(path, os.W_OK):
        raise error(f"{path}: cannot be written: the file is read-only (nothing was played or read)")
    if write and not os.access(folder, os.W_OK):
        # SQLite keeps its journal beside the file.
        raise error(f"{path}: cannot be written: its folder {folder} is read-only (nothing was played or read)")
    try:
        with open(path, "rb") as handle:
            head = handle.read(100)
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not head:
        if not create:
            raise error(f"{path}: an empty file, not a Poki database")
        return FileState("empty")
    if not head.startswith(SQLITE_HEADER):
        raise error(f"{path}: not an SQLite database (it does not start with SQLite's header); left as it is")
    try:
        conn = open_read_only(path)
    except sqlite3.Error as exc:
        raise error(f"{path}: cannot open read-only: {exc}") from None
    try:
        return _decide(conn, path, known_migrations, migration_set, create, verify, error)
    except sqlite3.DatabaseError as exc:
        raise error(f"{path}: not a usable SQLite database: {exc}; left as it is") from None
    finally:
        conn.close()


def applied_migrations(conn: sqlite3.Connection, migration_set: str) -> tuple[str, ...]:
    """The names of our migrations the file has had, in order (none when its record of
    them cannot be read)."""
    try:
        return tuple(r[0] for r in conn.execute(
            f"SELECT name FROM [{MIGRATIONS_TABLE}] WHERE migration_set = ? ORDER BY rowid", (migration_set,)))
    except sqlite3.OperationalError:
        return ()


def newer_message(path: str | Path, newer: list[str]) -> str:
    """Why a file of a newer Poki is refused: the migrations this version does not know."""
    return (f"{path}: made by a newer version of Poki (it has had migration {', '.join(newer)}, "
            "which this version does not know); left as it is: use that version, or another file")


def _decide(conn: sqlite3.Connection, path: Path, known: set[str], migration_set: str, create: bool,
            verify: bool, error: type[Exception]) -> FileState:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id not in (0, APPLICATION_ID):
        raise error(f"{path}: an SQLite file of another application (application id {app_id:#x}); "
                    "left as it is")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
              if not r[0].startswith("sqlite_")}
    ours = applied_migrations(conn, migration_set) if MIGRATIONS_TABLE in tables else ()
    if not ours:
        if tables - {MIGRATIONS_TABLE}:
            shown = ", ".join(sorted(tables)[:6])
            raise error(f"{path}: an SQLite file that is not a Poki database (tables: {shown}); left as it is")
        if not create:
            raise error(f"{path}: an empty file, not a Poki database")
        return FileState("empty")
    newer = [name for name in ours if name not in known]
    if newer:
        raise error(newer_message(path, newer))
    if verify:
        try:
            problems = quick_check(conn)
        except sqlite3.DatabaseError as exc:  # damaged past what the check can list
            problems = [str(exc)]
        if problems:
            raise error(f"{path}: the file is damaged ({'; '.join(problems[:3])}); nothing was written to it: "
                        "`poki db check` examines it")
    return FileState("ours", ours)
