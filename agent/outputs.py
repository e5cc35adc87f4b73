"""The one way a command writes an output file (``--csv``, ``--skipped``, ``--log``,
``--log-acpc``, ``--log-json``, ``--out``, ``--checkpoint``): a command never destroys
what it reads, never finds out after the work that it cannot write, and never leaves half
a file where the user looks for one.

* :func:`check_outputs`, before any work: an output that is the command's own database or
  one of its inputs (the same file by device and inode, links followed), or that two
  options both name, is refused; so is one that exists and is not a regular file (a
  folder, a FIFO, a device: never replaced by a file) or that the user made read-only;
  and the folder it goes to must take a new file (one is made there and removed), so a
  missing folder or a read-only disk is said before a match is played or a solver runs.
* :func:`write_output`: the file is written beside its place under a temporary name and
  renamed into place when complete (a reader sees the old file or the new one, never
  half of one); a write that fails leaves the old file as it was and no temporary file.

Links are followed: an output named through a link replaces the file the link leads to.
Folders a command writes whole (the report, the demo) are agent.output_folder's.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO, Literal, TextIO, overload

from agent.inputs import kind_of

__all__ = ["OutputError", "check_outputs", "database_files", "write_output"]


class OutputError(Exception):
    """An output a command will not write; the message names the option and the file."""


def database_files(db: str | Path | None) -> list[str | Path]:
    """A SQLite database and the files SQLite keeps beside it (all the database's)."""
    if db is None:
        return []
    return [db, f"{db}-wal", f"{db}-shm", f"{db}-journal"]


def _identity(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


SQLITE_HEADER = b"SQLite format 3\x00"


def _is_database(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:  # a regular file (checked by the caller)
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _part(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.part")


def check_outputs(outputs: Mapping[str, str | Path | None],
                  reads: Sequence[tuple[str, str | Path | None]] = ()) -> None:
    """Refuse (OutputError) any of ``outputs`` (option: path; None for an option not
    given) that may not be written (module docstring). ``reads`` are (what, path) of the
    files the command reads or keeps: its database (see :func:`database_files`), its
    inputs, its config."""
    read_ids: dict[tuple[int, int], str] = {}
    for what, path in reads:
        key = None if path is None else _identity(path)
        if key is not None:
            read_ids.setdefault(key, what)
    named: dict[str, str] = {}  # the real path of each output: the option that names it
    for option, path in outputs.items():
        if path is None:
            continue
        where = f"{option} {path}"
        try:
            target = Path(os.path.realpath(path))
        except (OSError, ValueError) as exc:
            raise OutputError(f"{where}: not a usable path: {exc}") from None
        other = named.get(str(target))
        if other is not None:
            raise OutputError(f"{where}: the same file as {other}; give each output its own file")
        named[str(target)] = option
        try:
            st = os.stat(target)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise OutputError(f"{where}: cannot use the path: {exc.strerror or exc}") from None
        except ValueError as exc:  # a NUL in the name
            raise OutputError(f"{where}: cannot use the path: {exc}") from None
        if st is not None:
            read = read_ids.get((st.st_dev, st.st_ino))
            if read is not None:
                raise OutputError(f"{where}: that is {read}, which this command reads; writing it would destroy "
                                  "it (nothing was changed)")
            if not stat.S_ISREG(st.st_mode):
                raise OutputError(f"{where}: {kind_of(st.st_mode)}, not a file; it is not replaced "
                                  "(nothing was changed)")
            if not os.access(target, os.W_OK):
                raise OutputError(f"{where}: the file is read-only; it is not replaced (nothing was changed)")
            if _is_database(target):  # no output of ours is one: a database is never written over
                raise OutputError(f"{where}: a SQLite database; it is not replaced by this output "
                                  "(nothing was changed)")
        probe = _part(target)
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise OutputError(f"{where}: cannot write a file in {target.parent}: {exc.strerror or exc}") from None
        os.close(fd)
        os.unlink(probe)


@overload
def write_output(path: str | Path, *, binary: Literal[False] = False, encoding: str = "utf-8",
                 newline: str | None = None) -> AbstractContextManager[TextIO]: ...


@overload
def write_output(path: str | Path, *, binary: Literal[True]) -> AbstractContextManager[BinaryIO]: ...


def write_output(path: str | Path, *, binary: bool = False, encoding: str = "utf-8",
                 newline: str | None = None) -> AbstractContextManager[TextIO] | AbstractContextManager[BinaryIO]:
    """A file to write what goes to ``path``: a temporary file beside it, renamed into
    place when the ``with`` block ends normally, removed (the old file untouched) when it
    ends by an exception. OSError when it cannot be written."""
    return _written(path, binary, encoding, newline)


@contextmanager
def _written(path: str | Path, binary: bool, encoding: str, newline: str | None) -> Iterator[Any]:
    target = Path(os.path.realpath(path))
    tmp = _part(target)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)  # the umask applies
    try:
        handle: IO[Any] = (os.fdopen(fd, "wb") if binary else
                           os.fdopen(fd, "w", encoding=encoding, newline=newline))
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        try:
            st = os.lstat(target)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISREG(st.st_mode):  # became a folder or a link while we wrote
                raise OutputError(f"{path}: {kind_of(st.st_mode)} now; not replaced (the output is lost)")
            os.chmod(tmp, stat.S_IMODE(st.st_mode))  # the replaced file's permissions
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
