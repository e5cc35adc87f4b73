"""The socket side of an ACPC player: connect to a dealer, send lines, receive lines;
no player logic (that is agent.play.acpc.match).

Framing: a line ends in ``\\r\\n`` or a bare ``\\n`` (a trailing ``\\r`` is dropped);
we always send ``\\r\\n``. A line longer than :data:`MAX_LINE_BYTES` (1 MB) is dropped
with an error naming the peer, and reading goes on at the next line end, so a flood of
bytes can neither exhaust memory nor stop the match. Bytes that are not ASCII are
replaced (the protocol is ASCII; such a line then fails to parse and is reported).
:class:`LineFramer` and :class:`SocketPoller` are shared with the dealer server
(agent.play.acpc.dealer).

A hand is a strict back-and-forth with the dealer, so :meth:`AcpcConnection.serve` keeps
the path from a state to our answer short: one blocking read (no poll first), the lines
it brought, one send of their answers, and only then the work that can wait.
"""
from __future__ import annotations

import logging
import select
import socket
import struct
from collections.abc import Callable, Iterator

from connectors.acpc.protocol import MAX_LINE_BYTES, VERSION_LINE

__all__ = ["AcpcConnection", "DealerSilent", "LineFramer", "LineTooLong", "SocketPoller", "socket_timeval"]

log = logging.getLogger("poki.acpc")


class LineTooLong(ValueError):
    """A peer sent a line over the cap; it was dropped."""


class DealerSilent(ConnectionError):
    """The dealer sent nothing for the whole of the silence limit."""

    def __init__(self, source: str, seconds: float) -> None:
        super().__init__(f"{source}: sent nothing for {seconds:g} s")
        self.seconds = seconds


def socket_timeval(seconds: float) -> bytes:
    """The value of SO_RCVTIMEO / SO_SNDTIMEO for ``seconds``: never zero, which would
    mean no limit at all."""
    whole = int(seconds)
    micros = int((seconds - whole) * 1e6)
    return struct.pack("ll", whole, micros if whole or micros else 1)


class LineFramer:
    """Bytes in, lines out (see the module docstring). ``on_error(message)`` hears of
    every dropped line; ``dropped`` counts them."""

    __slots__ = ("max_line", "source", "on_error", "dropped", "_buf", "_skipping")

    def __init__(self, source: str = "peer", max_line: int = MAX_LINE_BYTES,
                 on_error: Callable[[str], None] | None = None) -> None:
        self.max_line = max_line
        self.source = source
        self.on_error = on_error
        self.dropped = 0
        self._buf = b""
        self._skipping = False  # inside an over-long line, waiting for its end

    @property
    def pending(self) -> int:
        """Bytes held of an unfinished line."""
        return len(self._buf)

    def feed(self, data: bytes) -> list[str]:
        """The complete lines ``data`` finishes (without line ends)."""
        if (not self._buf and not self._skipping and len(data) <= self.max_line + 1
                and data.endswith(b"\r\n") and data.count(b"\n") == data.count(b"\r\n")):
            # The usual read: whole lines, each ending in \r\n, none over the cap.
            return data[:-2].decode("ascii", "replace").split("\r\n")
        buf = self._buf + data if self._buf else data
        lines = buf.split(b"\n")
        self._buf = lines.pop()
        out = []
        for raw in lines:
            if self._skipping:
                self._skipping = False  # the end of the line being dropped
                continue
            if len(raw) > self.max_line + 1:
                self._drop(len(raw))
                continue
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            out.append(raw.decode("ascii", "replace"))
        if len(self._buf) > self.max_line + 1:
            if not self._skipping:
                self._drop(len(self._buf))
                self._skipping = True
            self._buf = b""
        return out

    def _drop(self, size: int) -> None:
        self.dropped += 1
        message = (f"{self.source}: a line of more than {self.max_line} bytes "
                   f"({size} so far) dropped")
        log.error("%s", message)
        if self.on_error is not None:
            self.on_error(message)


class SocketPoller:
    """Sockets to wait on for input (the dealer's players): register/unregister/select
    as the selectors module's, but :meth:`select` returns the registered data directly,
    without the selectors module's Python-level loop (a dealer waits four times a
    heads-up hand)."""

    def __init__(self) -> None:
        self._poll = select.poll()
        self._data: dict[int, object] = {}
        self._socks: dict[int, socket.socket] = {}

    def register(self, sock: socket.socket, data: object) -> None:
        fd = sock.fileno()
        self._poll.register(fd, select.POLLIN)
        self._data[fd] = data
        self._socks[fd] = sock

    def unregister(self, sock: socket.socket) -> None:
        fd = sock.fileno()
        if self._data.pop(fd, None) is None:
            raise KeyError(fd)
        del self._socks[fd]
        self._poll.unregister(fd)

    def select(self, timeout: float | None) -> list:
        """The data of the sockets ready to read (or closed) within ``timeout`` seconds."""
        ms = None if timeout is None else max(0, int(timeout * 1000 + 0.999))
        data = self._data
        return [data[fd] for fd, _ in self._poll.poll(ms) if fd in data]

    def __len__(self) -> int:
        return len(self._data)

    def close(self) -> None:
        self._data.clear()
        self._socks.clear()


class AcpcConnection:
    """A TCP connection to an ACPC dealer: :meth:`send_line` and iteration over the
    dealer's lines until it closes the connection."""

    def __init__(self, host: str, port: int, *, timeout: float | None = 30.0,
                 max_line: int = MAX_LINE_BYTES, recv_size: int = 65536,
                 silence: float | None = None) -> None:
        self.source = f"dealer {host}:{port}"
        self.framer = LineFramer(self.source, max_line)
        self.recv_size = recv_size
        self.closed_by_peer = False
        self.silence = silence
        try:
            self.sock = socket.create_connection((host, port), timeout=timeout)
        except TimeoutError:
            raise ConnectionError(f"cannot connect to the dealer at {host}:{port}: no answer within "
                                  f"{timeout:g} s") from None
        except OSError as exc:
            raise ConnectionError(f"cannot connect to the dealer at {host}:{port}: {exc}") from None
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The dealer takes its time between states, but not forever: the blocking read
        # itself gives up after ``silence`` seconds (SO_RCVTIMEO, no poll before each
        # read), and so does a send to a dealer that stopped reading.
        self.sock.settimeout(None)
        if silence is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, socket_timeval(silence))
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, socket_timeval(silence))

    def greet(self) -> None:
        """Send the version greeting, the first line a player sends."""
        self.send_line(VERSION_LINE)

    def send_line(self, line: str) -> None:
        self.sock.sendall(line.encode("ascii") + b"\r\n")

    def lines(self) -> Iterator[str]:
        """The dealer's lines as they arrive; ends when the dealer closes (then
        :attr:`closed_by_peer` is True) or the connection breaks (ConnectionError)."""
        feed = self.framer.feed
        for data in self._reads():
            yield from feed(data)

    def _reads(self) -> Iterator[bytes]:
        """What each blocking read brings, until the dealer closes (then
        :attr:`closed_by_peer` is True) or the connection breaks (ConnectionError)."""
        recv = self.sock.recv
        size = self.recv_size
        while True:
            try:
                data = recv(size)
            except (BlockingIOError, TimeoutError):
                raise DealerSilent(self.source, self.silence or 0.0) from None
            except OSError as exc:
                raise ConnectionError(f"{self.source}: connection lost: {exc}") from None
            if not data:
                self.closed_by_peer = True
                if self.framer.pending:
                    log.warning("%s: closed in the middle of a line (%d bytes dropped)",
                                self.source, self.framer.pending)
                return
            yield data

    def serve(self, on_line: Callable[[str], str | None],
              after: Callable[[], None] | None = None) -> None:
        """Play until the dealer closes the connection (then :attr:`closed_by_peer` is
        True; ConnectionError if it breaks): each line goes to ``on_line``, and the
        answers to what one read brought are sent together, in one call, as soon as
        that read's lines are done; ``after()`` then runs the work that can wait while
        the dealer reads them. The wait for the dealer is the blocking read itself (no
        poll first)."""
        sendall = self.sock.sendall
        feed = self.framer.feed
        for data in self._reads():
            answers = None
            for line in feed(data):
                answer = on_line(line)
                if answer is not None:
                    if answers is None:
                        answers = answer + "\r\n"
                    else:
                        answers += answer + "\r\n"
            if answers is not None:
                try:
                    sendall(answers.encode("ascii"))
                except (BlockingIOError, TimeoutError):
                    raise ConnectionError(f"{self.source}: did not read our answer for "
                                          f"{self.silence or 0.0:g} s") from None
            if after is not None:
                after()

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self) -> AcpcConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
