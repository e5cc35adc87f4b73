"""The IRC side of Poki's bots: one connection to one server, on the ``irc`` library's
reactor, run by a loop on its own thread.

What every bot needs, done once here:

* **reconnect with back-off**: a lost connection (or one refused) is tried again after
  ``min`` seconds, doubling up to ``max``, with jitter from the injected generator; the
  channels are joined again on every (re)connection, and after a kick;
* **another nick** when ours is taken: ``poki`` -> ``poki_`` -> ``poki_2`` ...; logged in
  to an account, we ask the services to give ours back (REGAIN, RECOVER, GHOST);
* **TLS and identity** (connectors.irc.identity): TLS with the server's certificate
  verified, a server password, SASL PLAIN or EXTERNAL negotiated before registration and
  NickServ IDENTIFY where the server offers no SASL. A refusal that trying again cannot
  fix (a wrong password, a certificate that does not verify) ends the client with the
  reason (``failure``, ``on_failure``) instead of reconnecting; an attempt that has not
  registered within ``connect_timeout`` seconds is dropped and tried again with back-off;
* **flood control**: every line we send goes through a token bucket (``burst`` lines at
  once, then ``rate`` lines a second; rate 0 means no limit), so the bot never trips a
  server's flood limit however fast its owner talks; what waits for the bucket waits in
  a priority queue (connectors.irc.send_queue: the game's lines before answers, answers
  to one nick coalesced), and :meth:`IrcClient.when_delivered` tells when the lines
  queued so far have gone past the server's own flood delay (a PING behind them);
* **cheap lines**: a table is a stream of PRIVMSG and NOTICE lines, so those take a short
  path from the socket to the owner (:class:`_Connection`), without the library's generic
  event machinery; every other line (registration, PING, JOIN, numerics) goes through
  the library as before. Lines queued together leave in one write (one wake-up of the
  server and of every reader instead of one per line);
* **threads**: the loop thread alone touches the connection. Any thread may call
  :meth:`IrcClient.say`, :meth:`IrcClient.notice`, :meth:`IrcClient.call_soon` and
  :meth:`IrcClient.call_later`; they queue work and wake the loop. PINGs are answered on
  the loop thread, which never waits on a player.

The owner receives :class:`IrcEvent` objects on the loop thread through ``handler``.
Nothing here knows poker.
"""
from __future__ import annotations

import collections
import heapq
import itertools
import logging
import re
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import irc.client
import numpy as np

from connectors.irc import identity
from connectors.irc.identity import Login, Negotiation, Tls, nickserv_verdict, parse_line
from connectors.irc.send_queue import OutLine, Priority, SendQueue

__all__ = ["Backoff", "IrcClient", "IrcEvent", "Login", "Priority", "TokenBucket", "Tls", "account_tag"]

log = logging.getLogger("poki.irc")

_EVENTS = ("welcome", "nicknameinuse", "erroneusnickname", "nickcollision", "unavailresource",
           "disconnect", "pubmsg", "privmsg", "action", "pubnotice", "privnotice", "join", "part",
           "quit", "nick", "kick", "whoreply", "namreply")
MAX_LINE_BYTES = 400  # message text per line; the server adds our prefix within 512
MAX_READ_LINE = 8192  # longest line read (IRC's limit is 512 bytes, IRCv3 tags add 8 KiB)
# Lines the client reads itself before the library: the login exchange, a refused
# server password (464 ERR_PASSWDMISMATCH) and the server's last word (ERROR).
_IDENTITY_LINES = identity.COMMANDS | {"464", "ERROR"}
# An ERROR before registration that trying again will not change (a server password, a ban).
_REFUSED_AT_THE_DOOR = re.compile(r"password|access denied|banned|k-?lined|g-?lined|z-?lined", re.IGNORECASE)
REGAIN_PAUSE_SECONDS = 1.5  # after asking the services for our nick, and after taking it
_DELIVERY_TOKEN = "poki-delivered-"  # our PINGs that mark a line as gone past the server


@dataclass(frozen=True, slots=True)
class IrcEvent:
    """What happened, as the owner sees it. ``kind``: connected, disconnected, message
    (PRIVMSG; ``target`` a channel or our nick), notice, join, part, quit, nick, kick,
    names (``text`` the space-separated nicks of ``target``), who (one member of
    ``target`` with its user@host, as WHO answers after we join). ``account`` is set only
    where the server tags lines with the sender's account (the account-tag capability)."""

    kind: str
    nick: str = ""  # who did it ("" for the server)
    userhost: str = ""  # user@host of that connection
    target: str = ""  # channel, or our nick for private lines
    text: str = ""
    other: str = ""  # new nick (nick), kicked nick (kick)
    account: str = ""  # the account the server says the sender is logged in to (IRCv3 account-tag)


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` a second (0: unlimited)."""

    def __init__(self, burst: int, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        if burst < 1 or rate < 0:
            raise ValueError(f"token bucket needs burst >= 1 and rate >= 0, got {burst}, {rate}")
        self.burst = burst
        self.rate = rate
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self) -> float:
        """0 and one token taken, or the seconds to wait for the next token."""
        if self.rate == 0:
            return 0.0
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class Backoff:
    """Reconnect delays: ``low`` seconds doubling to ``high``, each drawn in [d/2, d]."""

    def __init__(self, low: float, high: float, rng: np.random.Generator) -> None:
        self.low, self.high, self.rng = low, high, rng
        self.attempt = 0

    def next(self) -> float:
        delay = min(self.high, self.low * (2 ** self.attempt))
        self.attempt += 1
        return float(delay * (0.5 + 0.5 * self.rng.random()))

    def reset(self) -> None:
        self.attempt = 0


class _Timer:
    __slots__ = ("when", "fn", "cancelled")

    def __init__(self, when: float, fn: Callable[[], object]) -> None:
        self.when, self.fn, self.cancelled = when, fn, False

    def cancel(self) -> None:
        self.cancelled = True


class _Connection(irc.client.ServerConnection):
    """The library's server connection with a short path for user PRIVMSG and NOTICE
    lines, the lines a table is made of. The library turns every line into an Event, looks
    its command up, builds argument and tag objects, dequotes CTCP and sorts the global
    handlers under a lock; for ``:nick!user@host PRIVMSG <target> :<text>`` all of that
    gives what splitting the line on its first spaces gives, at a fraction of the cost.
    Of IRCv3 tags only the sender's account is read (account-tag). Lines with CTCP or
    low-level quoting, server sources and every other command go to the library unchanged.

    Reading and writing are short too: :meth:`process_data` splits what one ``recv``
    brought into lines itself (the library's line buffer runs a regular expression, a
    generator and a debug log call per line, and its strict decoding raises out of the
    read on a line that is not UTF-8, losing the lines after it; here such a line is read
    as Latin-1, as IRC clients do), and :meth:`_prep_message` encodes a line with the
    checks that matter (no line feed, 512 bytes at most)."""

    owner: IrcClient | None = None
    _pending: bytes = b""  # the unfinished last line of the previous read
    overlong = 0  # lines dropped for being longer than MAX_READ_LINE bytes

    def reset_reader(self) -> None:
        """A new connection starts with no unfinished line."""
        self._pending = b""

    def process_data(self) -> None:
        sock = self.socket
        try:
            data = sock.recv(65536)
        except OSError:
            self.disconnect("Connection reset by peer")
            return
        if not data:
            self.disconnect("Connection reset by peer")
            return
        pending = getattr(sock, "pending", None)
        if pending is not None:
            # TLS: what the library decrypted beyond this read is invisible to select().
            try:
                while pending():
                    data += sock.recv(65536)
            except OSError:
                self.disconnect("Connection reset by peer")
                return
        if self._pending:
            data = self._pending + data
        lines = data.split(b"\n")
        rest = lines.pop()
        if len(rest) > MAX_READ_LINE:
            # No line feed in sight: a broken or hostile server; drop it, keep reading.
            self.overlong += 1
            log.warning("dropped %d bytes without a line end from %s", len(rest), getattr(self, "server", "the server"))
            rest = b""
        self._pending = rest
        for raw in lines:
            if raw[-1:] == b"\r":
                raw = raw[:-1]
            if not raw:
                continue
            if len(raw) > MAX_READ_LINE:
                self.overlong += 1
                continue
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                line = raw.decode("latin-1")
            self._process_line(line)
            if self.socket is not sock:
                return  # a handler ended the connection: the rest was for it

    def _process_line(self, line: str) -> None:
        owner = self.owner
        body, account = line, ""
        if line[:1] == "@":  # IRCv3 tags: only the sender's account matters here
            tags, _, body = line.partition(" ")
            account = account_tag(tags)
        if owner is not None and body[:1] == ":":
            prefix, _, rest = body.partition(" ")
            command, _, rest = rest.partition(" ")
            if command == "PRIVMSG" or command == "NOTICE":
                target, _, text = rest.partition(" ")
                if (text[:1] == ":" and "!" in prefix and target
                        and "\x01" not in text and "\x10" not in text):
                    nick, _, userhost = prefix[1:].partition("!")
                    owner._emit(IrcEvent("message" if command == "PRIVMSG" else "notice",
                                         nick, userhost, target, text[1:], "", account))
                    return
        if owner is not None:
            _, command, params = parse_line(line)
            if command == "PONG" and params and params[-1].startswith(_DELIVERY_TOKEN):
                owner._on_delivered(params[-1])
                return
            if command in _IDENTITY_LINES:
                owner._on_identity_line(command, params)
                if command != "ERROR" or owner.failure is not None:
                    return
        super()._process_line(line)

    def _prep_message(self, string: str) -> bytes:
        if "\n" in string or "\r" in string:
            raise irc.client.InvalidCharacters("an IRC line cannot hold CR or LF")
        data = string.encode("utf-8")
        if len(data) > 510:  # IRC's 512 bytes with the CR LF
            raise irc.client.MessageTooLong("Messages limited to 512 bytes including CR/LF")
        return data + b"\r\n"


def account_tag(tags: str) -> str:
    """The ``account`` tag's value in an IRCv3 tags prefix (``@a=1;account=poki``), or "".

    >>> account_tag("@time=2026-01-01T00:00:00Z;account=poki")
    'poki'
    >>> account_tag("@msgid=x"), account_tag("@account=a\\sb")
    ('', 'a b')
    """
    for tag in tags[1:].split(";"):
        if tag[:8] == "account=":
            value = tag[8:]
            if "\\" in value:
                value = (value.replace("\\:", ";").replace("\\s", " ").replace("\\r", "\r")
                         .replace("\\n", "\n").replace("\\\\", "\\"))
            return value
    return ""


class _Reactor(irc.client.Reactor):
    connection_class = _Connection


class _Dialer:
    """The library's connect factory: opens the TCP connection (and the TLS session) within
    ``timeout`` seconds, then writes the lines that must come before the library's NICK and
    USER (``CAP LS 302``, ``PASS``), straight to the socket: never through a logger."""

    def __init__(self, host: str, timeout: float, context: ssl.SSLContext | None, opening: list[str]) -> None:
        self.host, self.timeout, self.context, self.opening = host, timeout, context, opening

    def __call__(self, address: tuple[str, int]) -> socket.socket:
        sock = socket.create_connection(address, timeout=self.timeout)
        try:
            # Lines are small and each waits for an answer: no Nagle delay.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.context is not None:
                sock = self.context.wrap_socket(sock, server_hostname=self.host)
            if self.opening:
                sock.sendall("".join(f"{line}\r\n" for line in self.opening).encode("utf-8"))
            sock.settimeout(None)
        except BaseException:
            sock.close()
            raise
        return sock


def _tls_refusal(exc: BaseException, host: str, port: int) -> str | None:
    """Why a TLS connection can never work as configured (no use trying again), or None."""
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (f"TLS: the certificate of {host}:{port} does not verify ({exc.verify_message}); for a "
                f"server with a self-signed certificate give it (or its CA) with --tls-ca FILE, or skip "
                f"the check with --tls-insecure")
    if isinstance(exc, ssl.SSLError) and exc.reason in ("WRONG_VERSION_NUMBER", "UNKNOWN_PROTOCOL",
                                                        "HTTP_REQUEST", "RECORD_LAYER_FAILURE"):
        return f"TLS: {host}:{port} does not speak TLS ({exc.reason}); is it the server's plain port? (--no-tls)"
    return None


class IrcClient:
    """One bot's connection; see the module docstring."""

    def __init__(self, host: str, port: int, nick: str, *, channels: Iterable[str] = (),
                 handler: Callable[[IrcEvent], object] | None = None,
                 username: str | None = None, realname: str = "Poki limit hold'em",
                 flood_burst: int = 5, flood_rate: float = 0.5,
                 reconnect_min: float = 1.0, reconnect_max: float = 60.0,
                 rng: np.random.Generator | None = None, name: str | None = None,
                 tls: Tls | None = None, login: Login | None = None, connect_timeout: float = 30.0,
                 on_failure: Callable[[str], object] | None = None, capabilities: tuple[str, ...] = (),
                 answer_gap: float = 10.0) -> None:
        self.host, self.port = host, port
        self.tls = tls
        # Built now: a certificate file that cannot be read fails the bot at start-up.
        self._tls_context = tls.context() if tls is not None else None
        self.login = login
        self.connect_timeout = connect_timeout
        self.on_failure = on_failure
        self.capabilities = capabilities  # IRCv3 capabilities to ask for (besides sasl)
        self.wanted_nick = nick
        self.username = username or nick
        self.realname = realname
        self.channels: list[str] = list(channels)
        self.handler = handler
        self.bucket = TokenBucket(flood_burst, flood_rate)
        self.backoff = Backoff(reconnect_min, reconnect_max, rng or np.random.default_rng(0))
        self.name = name or nick
        self.reactor = _Reactor()
        # Only the events the bots use (not "all_events": every line would also come as a
        # raw event, twice the calls for nothing).
        for kind in _EVENTS:
            self.reactor.add_global_handler(kind, self._on_event, 0)
        self.connection: irc.client.ServerConnection | None = None
        self.registered = False
        self.connects = 0  # successful registrations, for tests and status
        self.attempts = 0  # connections tried
        self.account: str | None = None  # the account the server says we are logged in to
        self.failure: str | None = None  # why the client gave up for good
        self.lines_sent = 0
        self.joined: set[str] = set()
        self._nick_tries = 0
        self._next_connect = 0.0
        # What waits for the bucket, game lines first; answers to one person coalesced and
        # at least answer_gap seconds apart (connectors.irc.send_queue).
        self._outbox = SendQueue(answer_gap)
        self._deliveries: dict[str, Callable[[], object]] = {}  # PING token -> what waits for it
        self._delivery_seq = itertools.count(1)
        self._send_lock = threading.Lock()  # one writer at a time: the loop or _send_now
        self._calls: collections.deque[Callable[[], object]] = collections.deque()
        self._idle: collections.deque[Callable[[], object]] = collections.deque()
        self._timers: list[tuple[float, int, _Timer]] = []
        self._seq = itertools.count()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop_ident: int | None = None  # the loop thread's id once it runs
        self._quit_message = ""
        self._negotiation = Negotiation(None, nick)  # the current connection's
        self._attempt_timer: _Timer | None = None  # the time limit of the registration under way
        self._services_wait: str = ""  # "identify" or "regain" while services' answers matter
        self._identify_timer: _Timer | None = None
        self._regain_timer: _Timer | None = None
        self._channels_joined = False  # joined after this connection's registration
        self._last_error = ""  # the text of the server's last ERROR line

    # --- any thread -------------------------------------------------------------------------

    @property
    def enabled(self) -> frozenset[str]:
        """The IRCv3 capabilities the server granted on this connection."""
        return frozenset(self._negotiation.enabled)

    def give_up(self, reason: str) -> None:
        """End the connection for good with ``reason`` (the owner cannot go on: a
        capability it needs is missing ...); on_failure is called. Any thread."""
        self.call_soon(lambda: self._fail(reason))

    @property
    def nick(self) -> str:
        conn = self.connection
        if conn is not None and self.registered:
            return conn.get_nickname()
        return self.wanted_nick

    def _wake(self) -> None:
        if threading.get_ident() == self._loop_ident:
            return  # the loop looks at its queues before it sleeps again
        try:
            self._wake_w.send(b"x")
        except (BlockingIOError, OSError):
            pass  # already awake, or closing

    def call_soon(self, fn: Callable[[], object]) -> None:
        """Run ``fn()`` on the loop thread, soon."""
        self._calls.append(fn)
        self._wake()

    def call_later(self, seconds: float, fn: Callable[[], object]) -> _Timer:
        """Run ``fn()`` on the loop thread after ``seconds``; ``.cancel()`` the result to
        call it off. Call from the loop thread (or through call_soon)."""
        timer = _Timer(time.monotonic() + seconds, fn)
        heapq.heappush(self._timers, (timer.when, next(self._seq), timer))
        self._wake()
        return timer

    def call_idle(self, fn: Callable[[], object]) -> None:
        """Run ``fn()`` on the loop thread once the lines queued so far have been written
        (work that must not hold them up). Call from the loop thread."""
        self._idle.append(fn)

    def send_raw(self, line: str, priority: Priority = Priority.PROTOCOL, *, key: str | None = None,
                 on_sent: Callable[[], object] | None = None) -> None:
        """Queue one raw line (flood-controlled, by ``priority``: connectors.irc.send_queue);
        dropped while disconnected. ``key`` coalesces and spaces lines (answers to one
        person); ``on_sent`` runs on the loop thread once the line is written."""
        if "\r" in line or "\n" in line or "\0" in line:
            raise ValueError(f"an IRC line cannot hold CR, LF or NUL: {line!r}")
        if key is None and threading.get_ident() != self._loop_ident and self._send_now(line):
            if on_sent is not None:
                self.call_soon(on_sent)
            return
        self._outbox.push(OutLine(line, priority, key, on_sent))
        self._wake()

    def withdraw(self, key: str) -> bool:
        """Drop the queued line pushed with ``key``, if it has not left (it no longer
        holds: connectors.irc.send_queue). Loop thread."""
        with self._send_lock:
            return self._outbox.withdraw(key)

    def when_delivered(self, fn: Callable[[], object]) -> None:
        """Run ``fn()`` on the loop thread once every line queued so far has gone past our
        queue *and* the server's flood delay: a PING queued behind them (with the game's
        priority) is answered only after the server has handled them, since a server
        handles one client's lines in order. Lost on a disconnection (the lines are too).
        Call from the loop thread."""
        token = f"{_DELIVERY_TOKEN}{next(self._delivery_seq)}"
        self._deliveries[token] = fn
        self._outbox.push(OutLine(f"PING :{token}", Priority.GAME))
        self._wake()

    def _on_delivered(self, token: str) -> None:
        fn = self._deliveries.pop(token, None)
        if fn is not None:
            self._guard(fn)

    def _send_now(self, line: str) -> bool:
        """From a thread other than the loop's: send ``line`` at once if nothing is queued
        before it and the bucket allows it. A decision's answer then leaves from the
        thread that made it, instead of waking the loop thread to send it: one thread
        switch less on the way from the dealer's question to its answer. False: queue
        it."""
        if self._tls_context is not None:
            return False  # one TLS session is not to be written and read by two threads at once
        with self._send_lock:
            conn = self.connection
            if self._outbox or not self.registered or conn is None or conn.socket is None:
                return False
            if self.bucket.take() > 0:
                return False
            try:
                data = conn._prep_message(line)
            except (irc.client.MessageTooLong, irc.client.InvalidCharacters):
                log.error("%s: line not sent (over 512 bytes or bad characters): %.80r", self.name, line)
                return True
            try:
                conn.socket.sendall(data)
            except OSError:
                return True  # the connection is going: the loop sees it and reconnects
            self.lines_sent += 1
            return True

    def say(self, target: str, text: str, priority: Priority = Priority.OTHER, *, key: str | None = None,
            on_sent: Callable[[], object] | None = None) -> None:
        """PRIVMSG ``text`` to a channel or nick, one line per text line (``on_sent`` after
        the last; ``priority`` and ``key`` as for :meth:`send_raw`)."""
        self._send_text("PRIVMSG", target, text, priority, key, on_sent)

    def notice(self, target: str, text: str, priority: Priority = Priority.OTHER, *, key: str | None = None,
               on_sent: Callable[[], object] | None = None) -> None:
        self._send_text("NOTICE", target, text, priority, key, on_sent)

    def _send_text(self, command: str, target: str, text: str, priority: Priority, key: str | None,
                   on_sent: Callable[[], object] | None) -> None:
        parts = _lines(text)
        if key is not None and len(parts) > 1:
            key = None  # a keyed answer replaces one line: several parts go as they are
        for k, part in enumerate(parts):
            self.send_raw(f"{command} {target} :{part}", priority, key=key,
                          on_sent=on_sent if k == len(parts) - 1 else None)

    def join(self, channel: str) -> None:
        if channel not in self.channels:
            self.channels.append(channel)
        self.send_raw(f"JOIN {channel}")

    def part(self, channel: str, message: str = "") -> None:
        if channel in self.channels:
            self.channels.remove(channel)
        self.joined.discard(channel)
        self.send_raw(f"PART {channel} :{message}" if message else f"PART {channel}")

    def start(self) -> IrcClient:
        """Run the loop on its own thread (connecting at once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.run, name=f"irc:{self.name}", daemon=True)
            self._thread.start()
        return self

    def stop(self, message: str = "bye", timeout: float = 10.0) -> None:
        """Send QUIT (after what is queued, within a second) and end the loop thread."""
        self._quit_message = message
        self._stop.set()
        self._wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    # --- the loop thread ----------------------------------------------------------------------

    def run(self) -> None:
        self._loop_ident = threading.get_ident()
        try:
            while not self._stop.is_set():
                self._step()
        finally:
            self._shutdown()

    def _step(self) -> None:
        now = time.monotonic()
        conn = self.connection
        if (conn is None or not conn.is_connected()) and now >= self._next_connect and self.failure is None:
            self._connect()
            conn = self.connection
        wait = 0.5
        if self._timers:
            wait = min(wait, max(0.0, self._timers[0][0] - now))
        if self._calls or self._idle:
            wait = 0.0
        pause = self._flush()
        if pause is not None:
            wait = min(wait, pause)
        sock = conn.socket if conn is not None else None
        if sock is None and self.failure is None:
            wait = min(wait, max(0.0, self._next_connect - now))
        wake_r = self._wake_r
        try:
            ready, _, _ = select.select([wake_r, sock] if sock is not None else [wake_r], [], [], wait)
        except (OSError, ValueError):
            ready = []  # a socket closed under us; the connection notices below
        if wake_r in ready:
            try:
                while wake_r.recv(4096):
                    pass
            except (BlockingIOError, OSError):
                pass
        if sock is not None and sock in ready and conn.socket is sock:
            conn.process_data()
        calls = self._calls
        while calls:
            self._guard(calls.popleft())
        timers = self._timers
        if timers:
            now = time.monotonic()
            while timers and timers[0][0] <= now:
                _, _, timer = heapq.heappop(timers)
                if not timer.cancelled:
                    self._guard(timer.fn)
        if self._outbox:
            self._flush()
        idle = self._idle
        while idle:
            self._guard(idle.popleft())

    def _guard(self, fn: Callable[[], object]) -> None:
        try:
            fn()
        except Exception:  # noqa: BLE001 - the owner's bug must not kill the connection
            log.exception("%s: error in a scheduled call", self.name)

    def _flush(self) -> float | None:
        """Send what the bucket allows, best priority first, in one write; the seconds
        until the next line may go, if any wait."""
        outbox = self._outbox
        conn = self.connection
        if not outbox or conn is None or conn.socket is None:
            return None
        batch: list[bytes] = []
        sent: list[Callable[[], object]] = []
        pause = None
        take = self.bucket.take
        with self._send_lock:
            while outbox:
                pause = take()
                if pause > 0:
                    break
                pause = None
                line = outbox.pop()
                if line is None:  # only answers held for their gap
                    self.bucket.tokens += 1  # not spent
                    pause = outbox.ready_in()
                    break
                try:
                    batch.append(conn._prep_message(line.text))
                except (irc.client.MessageTooLong, irc.client.InvalidCharacters):
                    log.error("%s: line not sent (over 512 bytes or bad characters): %.80r", self.name, line.text)
                    continue
                if line.on_sent is not None:
                    sent.append(line.on_sent)
            if not batch:
                return pause
            try:
                conn.socket.sendall(b"".join(batch))
            except OSError:
                written = False
            else:
                written = True
                self.lines_sent += len(batch)
        if not written:
            conn.disconnect("Connection reset by peer.")  # outside the lock: it runs handlers
            return None
        for fn in sent:  # outside the lock too: they may queue lines
            self._guard(fn)
        return pause

    def _connect(self) -> None:
        self.registered = False
        self.account = None
        self.joined.clear()
        self._nick_tries = 0
        self._outbox.clear()  # lines for a lost connection mean nothing on a new one
        self._deliveries.clear()
        self._last_error = ""
        self._services_wait = ""
        if self.connection is None:
            self.connection = self.reactor.server()
            self.connection.owner = self
        self.connection.reset_reader()
        login = self.login
        self._negotiation = negotiation = Negotiation(login, self.wanted_nick, self.capabilities)
        opening = negotiation.opening()
        if login is not None and login.server_password:
            opening.append(f"PASS {login.server_password}")
        self.attempts += 1
        try:
            self.connection.connect(self.host, self.port, self.wanted_nick,
                                    username=self.username, ircname=self.realname,
                                    connect_factory=_Dialer(self.host, self.connect_timeout,
                                                            self._tls_context, opening))
        except irc.client.ServerConnectionError as exc:
            refusal = _tls_refusal(exc.__cause__, self.host, self.port) if exc.__cause__ else None
            if refusal is not None:
                self._fail(refusal)
                return
            delay = self.backoff.next()
            self._next_connect = time.monotonic() + delay
            hint = ""
            if self._tls_context is not None and isinstance(exc.__cause__, TimeoutError):
                hint = " (no TLS answer: is it the server's TLS port?)"
            log.info("%s: cannot connect to %s:%s (%s)%s; next try in %.1f s",
                     self.name, self.host, self.port, exc.__cause__ or exc, hint, delay)
            return
        # Registration (and the login before it) must end within the time limit.
        attempt = self.attempts
        self._attempt_timer = self.call_later(self.connect_timeout, lambda: self._registration_overdue(attempt))

    def _registration_overdue(self, attempt: int) -> None:
        conn = self.connection
        if attempt != self.attempts or self.registered or conn is None or not conn.is_connected():
            return
        waited = "the login (SASL)" if not self._negotiation.finished else "the welcome"
        log.warning("%s: %s:%s did not finish registering within %g s (waited for %s); trying again",
                    self.name, self.host, self.port, self.connect_timeout, waited)
        conn.disconnect("registration timed out")

    def _fail(self, reason: str) -> None:
        """Give up for good: a refusal that trying again cannot fix. The connection is
        closed and not tried again (the loop goes on running calls and timers, so the
        owner can close its tables); the owner learns why through ``on_failure``."""
        if self.failure is not None:
            return
        self.failure = reason
        log.error("%s: %s", self.name, reason)
        conn = self.connection
        if conn is not None and conn.is_connected():
            try:
                conn.quit("cannot log in")
            except irc.client.ServerNotConnectedError:
                pass
            conn.disconnect("cannot log in")
        if self.on_failure is not None:
            on_failure = self.on_failure
            self._guard(lambda: on_failure(reason))

    def _write_now(self, lines: list[str]) -> None:
        """Send login lines at once (loop thread), past the flood bucket and never logged:
        they may carry a password."""
        conn = self.connection
        if not lines or conn is None or conn.socket is None:
            return
        data = b"".join(conn._prep_message(line) for line in lines)
        with self._send_lock:
            try:
                conn.socket.sendall(data)
            except OSError:
                return
        self.lines_sent += len(lines)

    def _on_identity_line(self, command: str, params: list[str]) -> None:
        """A line of the login exchange, a refused server password or the server's ERROR."""
        if command == "ERROR":
            self._last_error = text = params[-1] if params else ""
            if not self.registered and _REFUSED_AT_THE_DOOR.search(text):
                login = self.login
                if login is not None and login.server_password:
                    hint = "a wrong server password? check --server-password-file"
                else:
                    hint = ("does it want a server password? --server-password-file FILE or "
                            "$POKI_IRC_SERVER_PASSWORD")
                self._fail(f"{self.host}:{self.port} refused us before registration: {text!r} ({hint})")
            return
        if command == "464":  # ERR_PASSWDMISMATCH
            text = params[-1] if params else ""
            self._fail(f"the server refused our server password (464 {text}); check the file given with "
                       f"--server-password-file (or $POKI_IRC_SERVER_PASSWORD)")
            return
        negotiation = self._negotiation
        self._write_now(negotiation.feed(command, params))
        if command == "900" and negotiation.account:
            self._logged_in(negotiation.account)
        elif command == "901":
            self.account = None
        if negotiation.failure is not None:
            self._fail(negotiation.failure)

    def _logged_in(self, account: str) -> None:
        first = self.account is None
        self.account = account
        if first:
            log.info("%s: logged in to account %s", self.name, account)
        if self._services_wait == "identify":
            if self._identify_timer is not None:
                self._identify_timer.cancel()
            self._see_to_nick()

    def _after_welcome(self) -> None:
        """Registered: identify to NickServ where SASL did not log us in, see to our nick,
        then join the channels (some admit only identified nicks)."""
        self._channels_joined = False
        login = self.login
        if login is not None and self.account is None and login.password and login.mechanism in ("plain", "nickserv"):
            if login.mechanism != "nickserv":
                log.info("%s: %s:%s offers no SASL %s; identifying to %s", self.name, self.host, self.port,
                         login.mechanism.upper(), login.services)
            self._services_wait = "identify"
            self._write_now([f"PRIVMSG {login.services} :IDENTIFY {login.name(self.wanted_nick)} {login.password}"])
            self._identify_timer = self.call_later(self.connect_timeout, self._identify_overdue)
            return
        if login is not None and self.account is None and login.mechanism == "external":
            log.warning("%s: not logged in: %s:%s took no SASL EXTERNAL; going on unidentified",
                        self.name, self.host, self.port)
        self._see_to_nick()

    def _identify_overdue(self) -> None:
        if self._services_wait != "identify":
            return
        log.warning("%s: %s did not confirm IDENTIFY within %g s; going on unidentified",
                    self.name, self.login.services if self.login else "NickServ", self.connect_timeout)
        self._see_to_nick()

    def _on_services_notice(self, text: str) -> None:
        if self._services_wait != "identify" or self.login is None:
            return
        verdict = nickserv_verdict(text)
        login = self.login
        if verdict == "refused":
            self._fail(f"{login.services} refused IDENTIFY for account {login.name(self.wanted_nick)!r}: "
                       f"wrong account name or password ({text.strip()[:120]})")
        elif verdict == "accepted":
            self._logged_in(self.account or login.name(self.wanted_nick))

    def _see_to_nick(self) -> None:
        """On a fallback nick and logged in: ask the services for ours (REGAIN, RECOVER,
        GHOST in turn); not logged in: say why we keep the fallback. Then join."""
        self._services_wait = ""
        conn = self.connection
        if conn is None or not self.registered:
            return
        me = conn.get_nickname()
        if me.lower() == self.wanted_nick.lower():
            self._ready()
        elif self.account is None:
            log.warning("%s: the nick %s is taken; we are %s (logged in to its account, the services would "
                        "give it back: --account and --password-file)", self.name, self.wanted_nick, me)
            self._ready()
        else:
            self._services_wait = "regain"
            self._regain_step(0)

    def _regain_step(self, step: int) -> None:
        conn = self.connection
        if self._services_wait != "regain" or conn is None or not self.registered:
            return
        services = self.login.services if self.login is not None else "NickServ"
        if step >= 2 * len(identity.REGAIN_COMMANDS):
            log.warning("%s: %s would not give back the nick %s (tried %s); we stay %s", self.name, services,
                        self.wanted_nick, ", ".join(identity.REGAIN_COMMANDS), conn.get_nickname())
            self._ready()
            return
        if step % 2 == 0:  # ask ...
            self._write_now([f"PRIVMSG {services} :{identity.REGAIN_COMMANDS[step // 2]} {self.wanted_nick}"])
        else:  # ... then take the nick, in case the services freed it without handing it over
            self._write_now([f"NICK {self.wanted_nick}"])
        self._regain_timer = self.call_later(REGAIN_PAUSE_SECONDS, lambda: self._regain_step(step + 1))

    def _ready(self) -> None:
        """Login and nick seen to: join the channels, once per connection."""
        self._services_wait = ""
        conn = self.connection
        if self._channels_joined or conn is None or not self.registered:
            return
        self._channels_joined = True
        for channel in self.channels:
            conn.send_raw(f"JOIN {channel}")

    def _shutdown(self) -> None:
        conn = self.connection
        if conn is not None and conn.is_connected():
            deadline = time.monotonic() + 1.0
            while self._outbox and time.monotonic() < deadline:
                pause = self._flush()
                if pause:
                    time.sleep(min(pause, 0.1))
            try:
                conn.quit(self._quit_message)
            except irc.client.ServerNotConnectedError:
                pass
            conn.disconnect(self._quit_message)
        self._wake_r.close()
        self._wake_w.close()

    def _emit(self, event: IrcEvent) -> None:
        if self._services_wait and event.kind == "notice" and self.login is not None \
                and event.nick.lower() == self.login.services.lower():
            self._on_services_notice(event.text)
        if self.handler is not None:
            self._guard(lambda: self.handler(event))  # type: ignore[misc]  # checked not None just above

    def _on_event(self, conn: irc.client.ServerConnection, ev: irc.client.Event) -> None:
        kind = ev.type
        source = ev.source
        nick = getattr(source, "nick", "") or ""
        userhost = getattr(source, "userhost", "") or ""
        text = ev.arguments[0] if ev.arguments else ""
        me = conn.get_nickname()
        account = ""
        for tag in ev.tags or ():
            if tag.get("key") == "account":
                account = tag.get("value") or ""
        if kind == "welcome":
            self.registered = True
            self.connects += 1
            self.backoff.reset()
            if self._attempt_timer is not None:
                self._attempt_timer.cancel()
            if not self._negotiation.finished:
                self._negotiation.finished = True  # the server registered us without CAP
            self._emit(IrcEvent("connected", target=me))
            self._after_welcome()
        elif kind in ("nicknameinuse", "erroneusnickname", "nickcollision", "unavailresource"):
            if not self.registered:
                self._nick_tries += 1
                base = self.wanted_nick[:12] if kind != "erroneusnickname" else "poki"
                new = f"{base}_" if self._nick_tries == 1 else f"{base}_{self._nick_tries}"
                conn.nick(new)
        elif kind == "disconnect":
            self.registered = False
            self.account = None
            self._services_wait = ""
            self.joined.clear()
            if not self._stop.is_set() and self.failure is None:
                delay = self.backoff.next()
                self._next_connect = time.monotonic() + delay
                why = f"{text}; the server said: {self._last_error}" if self._last_error else text
                log.info("%s: disconnected (%s); reconnecting in %.1f s", self.name, why, delay)
            self._emit(IrcEvent("disconnected", text=text))
        elif kind in ("pubmsg", "privmsg", "action"):
            self._emit(IrcEvent("message", nick, userhost, ev.target, text, "", account))
        elif kind in ("pubnotice", "privnotice"):
            if nick:  # not server notices
                self._emit(IrcEvent("notice", nick, userhost, ev.target, text, "", account))
        elif kind == "join":
            if nick == me:
                self.joined.add(ev.target)
                conn.send_raw(f"WHO {ev.target}")  # who is there, with user@host
            self._emit(IrcEvent("join", nick, userhost, ev.target, account=account))
        elif kind == "part":
            if nick == me:
                self.joined.discard(ev.target)
            self._emit(IrcEvent("part", nick, userhost, ev.target, text, "", account))
        elif kind == "quit":
            self._emit(IrcEvent("quit", nick, userhost, "", text, "", account))
        elif kind == "nick":
            if ev.target == me and self._services_wait == "regain" \
                    and me.lower() == self.wanted_nick.lower():
                log.info("%s: the services gave us back the nick %s", self.name, me)
                self._ready()
            self._emit(IrcEvent("nick", nick, userhost, "", "", ev.target, account))
        elif kind == "kick":
            kicked = ev.arguments[0] if ev.arguments else ""
            reason = ev.arguments[1] if len(ev.arguments) > 1 else ""
            if kicked == me:
                self.joined.discard(ev.target)
                channel = ev.target
                # Rejoin after a pause (a kick is often a warning, not a ban).
                self.call_later(2.0, lambda: channel in self.channels and self.send_raw(f"JOIN {channel}"))
            self._emit(IrcEvent("kick", nick, userhost, ev.target, reason, kicked, account))
        elif kind == "whoreply":
            args = ev.arguments
            if len(args) >= 5:
                self._emit(IrcEvent("who", args[4], f"{args[1]}@{args[2]}", args[0]))
        elif kind == "namreply":
            channel = ev.arguments[1] if len(ev.arguments) > 1 else ""
            names = ev.arguments[2] if len(ev.arguments) > 2 else ""
            self._emit(IrcEvent("names", target=channel, text=names))


def _lines(text: str) -> list[str]:
    out = []
    for line in text.replace("\r", "").split("\n"):
        data = line.encode("utf-8")
        while len(data) > MAX_LINE_BYTES:
            cut = MAX_LINE_BYTES
            while cut > 0 and (data[cut] & 0xC0) == 0x80:
                cut -= 1  # never split a UTF-8 character
            out.append(data[:cut].decode("utf-8"))
            data = data[cut:]
        if data:
            out.append(data.decode("utf-8"))
    return out
