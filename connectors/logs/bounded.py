"""Reading log files bounded: lines are streamed from a byte offset (a chunk of a log is
read without the rest of the file in memory), a line longer than ``max_line`` bytes is
skipped to its end and reported instead of held, and consecutive unusable lines can be
told as one run, so a file of garbage costs neither memory nor a problem per line.

Hand logs are text of short lines (an ACPC ``STATE:`` line, an IRC database line, a PHH
table line are well under a kilobyte), so :data:`MAX_LINE_BYTES` leaves room for any real
one while keeping a file of a single endless line from being read whole.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NamedTuple

from agent.inputs import open_input, read_bounded

__all__ = ["MAX_FILE_TEXT", "MAX_LINE_BYTES", "Line", "Run", "RunCollector", "lines", "read_small_text", "stream_lines"]

MAX_LINE_BYTES = 1 << 20  # a longer line is reported, never held
MAX_FILE_TEXT = 1 << 20  # files read whole (a game definition, one PHH hand): at most this
_BLOCK = 1 << 20  # bytes read at a time


class Line(NamedTuple):
    """One line of a file: its number (from 1), the byte offset where it starts, its bytes
    without the line end (``None`` when it was longer than the cap) and its size in bytes
    with the line end. (A tuple: a log has hundreds of thousands of lines.)"""

    number: int
    offset: int
    raw: bytes | None
    size: int


_new_line = tuple.__new__  # a Line without NamedTuple.__new__'s argument handling


def lines(path: str | Path, *, start: int = 0, first: int = 1, count: int | None = None,
          max_line: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """The lines of ``path`` from byte offset ``start`` (the line numbered ``first``),
    ``count`` of them or to the end; a trailing ``\r`` is kept (callers strip). OSError
    when the file cannot be read or is not a regular file (agent.inputs). The file is
    read a block at a time and split in C: at most a block and one line (up to
    ``max_line`` bytes) are held."""
    with open_input(path) as f:
        if start:
            f.seek(start)
        yield from stream_lines(f, offset=start, first=first, count=count, max_line=max_line)


def stream_lines(f: BinaryIO, *, offset: int = 0, first: int = 1, count: int | None = None,
                 max_line: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """The lines of an open binary stream (a file at byte ``offset``, standard input), as
    :func:`lines` gives them: the cap applies while reading, so an endless line costs at
    most a block and ``max_line`` bytes."""
    new = _new_line
    read = f.read
    number = first
    left = -1 if count is None else count
    partial = b""  # the start of a line that runs past the block read
    over = 0  # bytes so far of a line over the cap (its text is not kept)
    while left != 0:
        block = read(_BLOCK)
        if not block:
            break
        pieces = block.split(b"\n")
        tail = pieces.pop()  # after the block's last line end: a line still going on
        for piece in pieces:
            if over:
                size = over + len(piece) + 1
                over = 0
                yield new(Line, (number, offset, None, size))
            else:
                if partial:
                    piece = partial + piece
                    partial = b""
                size = len(piece) + 1
                yield new(Line, (number, offset, None if size > max_line + 1 else piece, size))
            offset += size
            number += 1
            left -= 1
            if left == 0:
                return
        if over:
            over += len(tail)
        elif tail:
            partial = partial + tail if partial else tail
            if len(partial) > max_line:
                over = len(partial)
                partial = b""
    if left != 0 and (partial or over):  # the last line, without a line end
        yield new(Line, (number, offset, None if over else partial, over or len(partial)))


def read_small_text(path: str | Path, what: str, max_bytes: int = MAX_FILE_TEXT) -> str:
    """A small file (a game definition, one hand) read whole as UTF-8 (bad bytes become
    U+FFFD); ValueError (agent.inputs.TooLarge) naming the file when it is larger than
    ``max_bytes``, OSError when it cannot be read or is not a regular file."""
    return read_bounded(path, max_bytes, what).decode("utf-8", "replace")


@dataclass(frozen=True, slots=True)
class Run:
    """Lines of one file with the same problem and no usable line between them (blank
    lines and comments may be)."""

    path: str
    first: int  # line numbers
    last: int
    why: str
    sample: str  # the first line's text, shortened
    count: int = 1  # the lines with the problem

    @property
    def where(self) -> str:
        return f"{self.path}:{self.first}"

    def describe(self) -> str:
        if self.first == self.last:
            return f"{self.path} line {self.first}: {self.why}: {self.sample!r}"
        return (f"{self.path} lines {self.first}-{self.last} ({self.count:,} lines): {self.why}; "
                f"the first: {self.sample!r}")


class RunCollector:
    """Gathers unusable lines into runs: :meth:`add` a line, and a run comes out (from
    :meth:`add` or :meth:`flush`) when a line with another problem comes, or the caller
    met a usable line (:meth:`flush`)."""

    __slots__ = ("run",)

    def __init__(self) -> None:
        self.run: Run | None = None  # the run under way

    def add(self, path: str, number: int, why: str, text: str) -> Run | None:
        """Add an unusable line; the run it ends, if any."""
        run = self.run
        if run is not None and run.path == path and run.why == why:
            self.run = Run(path, run.first, number, why, run.sample, run.count + 1)
            return None
        self.run = Run(path, number, number, why, text[:80])
        return run

    def flush(self) -> Run | None:
        """The run under way, if any (call when a usable line or the end comes)."""
        run, self.run = self.run, None
        return run
