"""IRC's framing, apart from meaning: the bytes a server sends cut into lines, and a line
we send made into bytes.

Everything read here is untrusted and bounded: a line longer than ``MAX_READ_LINE`` bytes
is dropped (and counted), so a server that never sends a line feed cannot grow our memory;
a line that is not UTF-8 is read as Latin-1, as IRC clients do, instead of failing the
read and losing the lines after it. A line we write may hold no CR, LF or NUL (it would
end the line early, or smuggle in a second command) and is at most IRC's 512 bytes with
its CR LF.

What a line means (its prefix, command and parameters) is connectors.irc.client's and
connectors.irc.identity's business.
"""
from __future__ import annotations

__all__ = ["MAX_READ_LINE", "MAX_WRITE_LINE", "LineError", "LineReader", "encode_line"]

MAX_READ_LINE = 8192  # longest line read (IRC's limit is 512 bytes, IRCv3 tags add 8 KiB)
MAX_WRITE_LINE = 510  # IRC's 512 bytes a line, less the CR LF


class LineError(ValueError):
    """A line that cannot be sent: a CR, LF or NUL in it, or too long."""


def encode_line(line: str) -> bytes:
    """``line`` as the bytes to write, CR LF added.

    >>> encode_line("PRIVMSG #holdem :señor")
    b'PRIVMSG #holdem :se\\xc3\\xb1or\\r\\n'
    >>> encode_line("PRIVMSG x :a\\r\\nQUIT")
    Traceback (most recent call last):
    ...
    connectors.irc.framing.LineError: an IRC line cannot hold CR, LF or NUL
    """
    if "\n" in line or "\r" in line or "\0" in line:
        raise LineError("an IRC line cannot hold CR, LF or NUL")
    data = line.encode("utf-8")
    if len(data) > MAX_WRITE_LINE:
        raise LineError(f"an IRC line is at most {MAX_WRITE_LINE + 2} bytes with its CR LF, this one {len(data) + 2}")
    return data + b"\r\n"


class LineReader:
    """Cuts a stream of bytes into lines (LF or CR LF ends one; empty lines are skipped).
    ``overlong`` counts the lines dropped for being longer than ``limit`` bytes.

    >>> reader = LineReader()
    >>> reader.feed(b":a!b@c PRIVMSG #t :caf\\xe9\\r\\nPING :x"), reader.feed(b"\\n")
    ([':a!b@c PRIVMSG #t :café'], ['PING :x'])
    """

    __slots__ = ("limit", "overlong", "_pending", "_skipping")

    def __init__(self, limit: int = MAX_READ_LINE) -> None:
        if limit < 1:
            raise ValueError(f"the longest line read must be at least 1 byte, got {limit}")
        self.limit = limit
        self.overlong = 0
        self._pending = b""  # the unfinished last line of the previous read
        self._skipping = False  # inside a line already dropped: skip to its end

    def reset(self) -> None:
        """Forget an unfinished line (a new connection starts afresh)."""
        self._pending = b""
        self._skipping = False

    def feed(self, data: bytes) -> list[str]:
        """The whole lines that ``data`` completes, in order."""
        if self._skipping:
            end = data.find(b"\n")
            if end < 0:
                return []
            data = data[end + 1:]
            self._skipping = False
        if self._pending:
            data = self._pending + data
        parts = data.split(b"\n")
        rest = parts.pop()
        if len(rest) > self.limit:
            # No line feed in sight: a broken or hostile server; drop the line (its tail
            # too, when it comes: never read a piece of it as a line) and keep reading.
            self.overlong += 1
            self._skipping = True
            rest = b""
        self._pending = rest
        lines: list[str] = []
        for raw in parts:
            if raw[-1:] == b"\r":
                raw = raw[:-1]
            if not raw:
                continue
            if len(raw) > self.limit:
                self.overlong += 1
                continue
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(raw.decode("latin-1"))
        return lines
