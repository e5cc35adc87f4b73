"""The one way a file from outside is opened for reading (hand logs, configs, password
files, channel logs): regular files only, every read bounded.

A named pipe, a socket or a device is refused by name before a byte is read: opening a
FIFO for reading waits for a writer that may never come, and a device such as
``/dev/zero`` never ends. The file is opened without blocking (``O_NONBLOCK``: opening a
FIFO returns at once) and its kind is taken from the open descriptor (``fstat``), so a
name swapped between a look and the open cannot slip another kind through. Links are
followed: a link to a regular file is that file.

A refusal is an :class:`OSError` (:class:`NotAFile`, or ``IsADirectoryError`` for a
folder), so every caller's existing handling of a file it cannot read applies to it.
"""
from __future__ import annotations

import errno
import fcntl
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotAFile", "TooLarge", "kind_of", "open_input", "read_bounded"]


class NotAFile(OSError):
    """A path that is not a regular file (a FIFO, socket or device); refused unread."""

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class TooLarge(ValueError):
    """A file larger than its reader takes; nothing of it is used."""


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words (for a refusal)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a folder" if stat.S_ISDIR(mode) else "a regular file" if stat.S_ISREG(mode) else "not a file"


def _refuse(path: str | Path, mode: int) -> OSError:
    if stat.S_ISDIR(mode):
        return IsADirectoryError(errno.EISDIR, "a folder, not a file", str(path))
    return NotAFile(errno.EINVAL, f"{kind_of(mode)}, not a regular file; refused (never read)", str(path))


def open_input(path: str | Path) -> BinaryIO:
    """``path`` open for reading in binary, when it is a regular file (links followed);
    NotAFile or IsADirectoryError otherwise, OSError when it cannot be opened."""
    st = os.stat(path)  # a socket cannot even be opened: name it first
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, st.st_mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped since the look above
            raise _refuse(path, mode)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(path: str | Path, max_bytes: int, what: str) -> bytes:
    """A whole small file (a config, a game definition, one hand): at most ``max_bytes``
    are read; TooLarge naming the file and ``what`` it should be when it is larger."""
    with open_input(path) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise TooLarge(f"{path}: larger than {max_bytes:,} bytes; too large for {what}")
    return data
