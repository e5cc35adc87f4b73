"""The IRC side of Poki's bots: one connection to one server, run by a loop on its own
thread.

What every bot needs, done once here:

* **lines in and out**: the server's bytes are cut into bounded lines by
  connectors.irc.framing (a line over 8 KiB dropped, a line that is not UTF-8 read as
  Latin-1) and split by ``identity.parse_line``; the commands the bots use become
  :class:`IrcEvent` objects, and no line a server sends, however malformed, raises out
  of the read. (No IRC library: the one once used, ``irc``, raised out of its read on a
  QUIT or PRIVMSG without parameters, buffered a line without end without bound, and
  offered a rate limit that blocks the loop thread and a back-off drawn from the global
  ``random``; what was left of it was its parser, kept short here.)
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
  server's flood limit however fast its owner talks (``by_server``: the budget of the
  server's software, connectors.irc.servers, once its 004 names it); what waits for the bucket waits in
  a priority queue (connectors.irc.send_queue: the game's lines before answers, answers
  to one nick coalesced), and :meth:`IrcClient.when_delivered` tells when the lines
  queued so far have gone past the server's own flood delay (a PING behind them);
* **cheap lines**: a table is a stream of PRIVMSG and NOTICE lines, so those are split on
  their first spaces straight into an event (``_on_line``); every other line (registration,
  PING, JOIN, numerics) is parsed whole. Lines queued together leave in one write (one
  wake-up of the server and of every reader instead of one per line);
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

import numpy as np

from connectors.irc import identity
from connectors.irc.framing import MAX_READ_LINE, LineError, LineReader, encode_line
from connectors.irc.identity import Login, Negotiation, Tls, nickserv_verdict, parse_line
from connectors.irc.send_queue import OutLine, Priority, SendQueue
from connectors.irc.servers import MAX_VERSION, SendBudget, profile_for, software

__all__ = ["Backoff", "IrcClient", "IrcEvent", "Login", "Priority", "SendBudget", "TokenBucket", "Tls", "account_tag"]

log = logging.getLogger("poki.irc")
# The send budget chosen for a server, a logger of its own: `poki irc` shows it to the user
# whatever the log level (agent.cli.irc).
budget_log = logging.getLogger("poki.irc.budget")

MAX_LINE_BYTES = 400  # message text per line; the server adds our prefix within 512
# Lines of the login exchange, a refused server password (464 ERR_PASSWDMISMATCH) and the
# server's last word (ERROR).
_IDENTITY_LINES = identity.COMMANDS | {"464", "ERROR"}
# Our nick refused at registration: 432 ERR_ERRONEUSNICKNAME, 433 ERR_NICKNAMEINUSE,
# 436 ERR_NICKCOLLISION, 437 ERR_UNAVAILRESOURCE.
_NICK_REFUSED = frozenset({"432", "433", "436", "437"})
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


class Timer:
    """A call :meth:`IrcClient.call_later` scheduled; :meth:`cancel` stops it from running."""

    __slots__ = ("when", "fn", "cancelled")

    def __init__(self, when: float, fn: Callable[[], object]) -> None:
        self.when, self.fn, self.cancelled = when, fn, False

    def cancel(self) -> None:
        self.cancelled = True


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


def _open_socket(host: str, port: int, timeout: float, context: ssl.SSLContext | None) -> socket.socket:
    """The TCP connection (and its TLS session) to ``host:port``, opened within ``timeout``
    seconds; OSError (ssl.SSLError among them) when it cannot be."""
    sock = socket.create_connection((host, port), timeout=timeout)
    try:
        # Lines are small and each waits for an answer: no Nagle delay.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if context is not None:
            sock = context.wrap_socket(sock, server_hostname=host)
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
                 answer_gap: float = 10.0, budget: SendBudget | None = None, by_server: bool = False) -> None:
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
        # The send budget: ``budget``, else flood_burst lines at once then flood_rate a
        # second; with ``by_server``, replaced by the budget of the server's software once
        # its 004 names it (connectors.irc.servers), on every connection.
        self._first_budget = budget if budget is not None else SendBudget("custom", flood_burst, flood_rate)
        self.by_server = by_server
        self.budget = self._first_budget
        self.bucket = TokenBucket(self.budget.burst, self.budget.rate)
        self.server_version = ""  # the server's version as its 004 gave it ("" until then)
        self.backoff = Backoff(reconnect_min, reconnect_max, rng or np.random.default_rng(0))
        self.name = name or nick
        self._sock: socket.socket | None = None  # the connection to the server, while open
        self._reader = LineReader(MAX_READ_LINE)  # the server's bytes into lines
        self._me = nick  # our nick as the server knows it on this connection
        # The server's commands the bots use, and what reads each (every other is ignored).
        self._commands: dict[str, Callable[[str, str, list[str], str], None]] = {
            "001": self._on_welcome, "004": self._on_myinfo, "JOIN": self._on_join, "PART": self._on_part,
            "QUIT": self._on_quit, "NICK": self._on_nick, "KICK": self._on_kick, "352": self._on_who,
            "353": self._on_names,
            "PRIVMSG": self._on_message, "NOTICE": self._on_message,
            **{code: self._on_nick_refused for code in _NICK_REFUSED}}
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
        self._timers: list[tuple[float, int, Timer]] = []
        self._seq = itertools.count()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop_ident: int | None = None  # the loop thread's id once it runs
        self._quit_message = ""
        self._negotiation = Negotiation(None, nick)  # the current connection's
        self._attempt_timer: Timer | None = None  # the time limit of the registration under way
        self._services_wait: str = ""  # "identify" or "regain" while services' answers matter
        self._identify_timer: Timer | None = None
        self._regain_timer: Timer | None = None
        self._channels_joined = False  # joined after this connection's registration
        self._last_error = ""  # the text of the server's last ERROR line
        self._heard = False  # the server said something on this connection

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
        return self._me if self.registered else self.wanted_nick

    @property
    def overlong(self) -> int:
        """Lines from the server dropped for being longer than MAX_READ_LINE bytes."""
        return self._reader.overlong

    def describe_budget(self) -> str:
        """The send budget in use, for a start line."""
        if self.by_server and not self.server_version:
            return f"send budget by the server's software (until it answers, {self.budget.describe()})"
        return f"send budget {self.budget.describe()}"

    def tls_version(self) -> str | None:
        """The TLS version of the open connection ("TLSv1.3" ...), None without TLS."""
        sock = self._sock
        return sock.version() if isinstance(sock, ssl.SSLSocket) else None

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

    def call_later(self, seconds: float, fn: Callable[[], object]) -> Timer:
        """Run ``fn()`` on the loop thread after ``seconds``; ``.cancel()`` the result to
        call it off. Call from the loop thread (or through call_soon)."""
        timer = Timer(time.monotonic() + seconds, fn)
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

    @property
    def budget_of_the_server(self) -> bool:
        """The send budget is the one of the server's recognised software, a little under
        its default flood limits: the server passes each line on as it reads it."""
        return self.by_server and software(self.server_version) is not None

    def when_delivered(self, fn: Callable[[], object]) -> None:
        """Run ``fn()`` on the loop thread once every line queued so far has gone past our
        queue *and* the server's flood delay. Under the budget of the server's software
        (:attr:`budget_of_the_server`) the server holds nothing, so once they are written
        (a mark in the queue, no line spent: on InspIRCd a PING costs as much of the
        limit as a line). Otherwise a PING queued behind them (with the game's priority)
        is answered only after the server has handled them, since a server handles one
        client's lines in order. Lost on a disconnection (the lines are too). Call from
        the loop thread."""
        if self.budget_of_the_server:
            self._outbox.push(OutLine("", Priority.GAME, on_sent=fn, mark=True))
            self._wake()
            return
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
            sock = self._sock
            if self._outbox or not self.registered or sock is None:
                return False
            if self.bucket.take() > 0:
                return False
            try:
                data = encode_line(line)
            except LineError as exc:
                log.error("%s: line not sent (%s): %.80r", self.name, exc, line)
                return True
            try:
                sock.sendall(data)
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
        if self._sock is None and now >= self._next_connect and self.failure is None:
            self._connect()
        sock = self._sock
        wait = 0.5
        if self._timers:
            wait = min(wait, max(0.0, self._timers[0][0] - now))
        if self._calls or self._idle:
            wait = 0.0
        pause = self._flush()
        if pause is not None:
            wait = min(wait, pause)
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
        if sock is not None and sock in ready and self._sock is sock:
            self._read(sock)
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
        except Exception:  # the owner's bug must not kill the connection
            log.exception("%s: error in a scheduled call", self.name)

    def _flush(self) -> float | None:
        """Send what the bucket allows, best priority first, in one write; the seconds
        until the next line may go, if any wait."""
        outbox = self._outbox
        sock = self._sock
        if not outbox or sock is None:
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
                if line.mark:  # no line: the lines before it are in this batch or written
                    self.bucket.tokens += 1
                    if line.on_sent is not None:
                        sent.append(line.on_sent)
                    continue
                try:
                    batch.append(encode_line(line.text))
                except LineError as exc:
                    log.error("%s: line not sent (%s): %.80r", self.name, exc, line.text)
                    continue
                if line.on_sent is not None:
                    sent.append(line.on_sent)
            written = True  # a batch of marks alone writes nothing and is done
            if batch:
                try:
                    sock.sendall(b"".join(batch))
                except OSError:
                    written = False
                else:
                    self.lines_sent += len(batch)
        if not written:
            self._lost("Connection reset by peer")  # outside the lock: it runs handlers
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
        self._reader.reset()
        self._heard = False  # nothing read on this connection yet
        self._me = self.wanted_nick
        self.server_version = ""
        if self.by_server and self.budget != self._first_budget:
            self._use_budget(self._first_budget)  # another server may answer this time
        login = self.login
        self._negotiation = negotiation = Negotiation(login, self.wanted_nick, self.capabilities)
        # CAP LS and PASS come before NICK and USER (the server then holds the
        # registration until CAP END); all in one write, never logged: PASS is a secret.
        opening = negotiation.opening()
        if login is not None and login.server_password:
            opening.append(f"PASS {login.server_password}")
        opening += [f"NICK {self.wanted_nick}", f"USER {self.username} 0 * :{self.realname}"]
        self.attempts += 1
        try:
            sock = _open_socket(self.host, self.port, self.connect_timeout, self._tls_context)
        except OSError as exc:
            refusal = _tls_refusal(exc, self.host, self.port)
            if refusal is not None:
                self._fail(refusal)
                return
            delay = self.backoff.next()
            self._next_connect = time.monotonic() + delay
            if self._tls_context is not None and isinstance(exc, TimeoutError):
                # A plain-text server reads a TLS handshake as a line it waits to see end.
                log.warning("%s: cannot connect to %s:%s (%s; no TLS answer: if it is the server's plain-text "
                            "port, drop --tls); next try in %.1f s", self.name, self.host, self.port, exc, delay)
            else:
                log.info("%s: cannot connect to %s:%s (%s); next try in %.1f s",
                         self.name, self.host, self.port, exc, delay)
            return
        self._sock = sock
        self._write_now(opening, counted=False)
        # Registration (and the login before it) must end within the time limit.
        attempt = self.attempts
        self._attempt_timer = self.call_later(self.connect_timeout, lambda: self._registration_overdue(attempt))

    def _registration_overdue(self, attempt: int) -> None:
        if attempt != self.attempts or self.registered or self._sock is None:
            return
        waited = "the login (SASL)" if not self._negotiation.finished else "the welcome"
        hint = ""
        if not self._heard:
            hint = (" and it said nothing: if it is a TLS port, connect with --tls" if self._tls_context is None
                    else " and it said nothing over TLS: is it the server's TLS port?")
        log.warning("%s: %s:%s did not finish registering within %g s (waited for %s)%s; trying again",
                    self.name, self.host, self.port, self.connect_timeout, waited, hint)
        self._hang_up("registration timed out")

    def _hang_up(self, message: str) -> None:
        """Say QUIT (best effort) and close the connection; the owner is told it is lost."""
        if self._sock is None:
            return
        self._write_now([f"QUIT :{message}" if message else "QUIT"], counted=False)
        self._lost(message)

    def _lost(self, reason: str) -> None:
        """The connection is over (closed by us or by the server, or broken): close the
        socket, reconnect after the back-off unless stopping or failed, tell the owner."""
        sock = self._sock
        if sock is None:
            return
        self._sock = None
        with self._send_lock:  # not while another thread writes to it (_send_now)
            try:
                sock.shutdown(socket.SHUT_WR)  # our last lines, then the end
            except OSError:
                pass
            sock.close()
        self.registered = False
        self.account = None
        self._services_wait = ""
        self.joined.clear()
        if not self._stop.is_set() and self.failure is None:
            delay = self.backoff.next()
            self._next_connect = time.monotonic() + delay
            why = f"{reason}; the server said: {self._last_error}" if self._last_error else reason
            log.info("%s: disconnected (%s); reconnecting in %.1f s", self.name, why, delay)
        self._emit(IrcEvent("disconnected", text=reason))

    def _read(self, sock: socket.socket) -> None:
        """Read what the server sent and handle its lines (loop thread)."""
        try:
            data = sock.recv(65536)
            if isinstance(sock, ssl.SSLSocket):
                # What TLS decrypted beyond this read is invisible to select(): read it now.
                while data and sock.pending():
                    data += sock.recv(65536)
        except OSError:
            data = b""
        first = not self._heard
        self._heard = True
        if first and self._tls_context is None and data[:1] in (b"\x15", b"\x16") and data[1:2] == b"\x03":
            # A TLS record (an alert, a handshake) where IRC's first line belongs: the
            # server speaks TLS on this port; plain text will never work.
            self._fail(f"{self.host}:{self.port} answered in TLS, not in plain IRC: it is a TLS port; connect "
                       f"with --tls (or use the server's plain-text port)")
            return
        if not data:
            if first and self._tls_context is None:
                log.warning("%s: %s:%s closed the connection before saying anything: if it is a TLS port, "
                            "connect with --tls", self.name, self.host, self.port)
            self._lost("Connection reset by peer")
            return
        for line in self._reader.feed(data):
            self._on_line(line)
            if self._sock is not sock:
                return  # a handler ended the connection: the rest was for it

    def _fail(self, reason: str) -> None:
        """Give up for good: a refusal that trying again cannot fix. The connection is
        closed and not tried again (the loop goes on running calls and timers, so the
        owner can close its tables); the owner learns why through ``on_failure``."""
        if self.failure is not None:
            return
        self.failure = reason
        log.error("%s: %s", self.name, reason)
        self._hang_up("cannot log in")
        if self.on_failure is not None:
            on_failure = self.on_failure
            self._guard(lambda: on_failure(reason))

    def _write_now(self, lines: list[str], *, counted: bool = True) -> None:
        """Send lines of the connection itself at once (loop thread), past the flood bucket
        and never logged: login lines may carry a password. A line that cannot be sent is
        dropped (logged without its text); a failed write is seen by the next read.
        ``counted``: in ``lines_sent`` (login lines are; registration, PONG, JOIN, WHO and
        QUIT are not)."""
        sock = self._sock
        if not lines or sock is None:
            return
        parts = []
        for line in lines:
            try:
                parts.append(encode_line(line))
            except LineError as exc:
                log.error("%s: a %s line not sent (%s)", self.name, line.partition(" ")[0], exc)
        with self._send_lock:
            try:
                sock.sendall(b"".join(parts))
            except OSError:
                return
        if counted:
            self.lines_sent += len(parts)

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
        if self._sock is None or not self.registered:
            return
        me = self._me
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
        if self._services_wait != "regain" or self._sock is None or not self.registered:
            return
        services = self.login.services if self.login is not None else "NickServ"
        if step >= 2 * len(identity.REGAIN_COMMANDS):
            log.warning("%s: %s would not give back the nick %s (tried %s); we stay %s", self.name, services,
                        self.wanted_nick, ", ".join(identity.REGAIN_COMMANDS), self._me)
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
        if self._channels_joined or self._sock is None or not self.registered:
            return
        self._channels_joined = True
        self._write_now([f"JOIN {channel}" for channel in self.channels], counted=False)

    def _shutdown(self) -> None:
        if self._sock is not None:
            deadline = time.monotonic() + 1.0
            while self._outbox and time.monotonic() < deadline:
                pause = self._flush()
                if pause:
                    time.sleep(min(pause, 0.1))
            self._hang_up(self._quit_message)
        self._wake_r.close()
        self._wake_w.close()

    def _emit(self, event: IrcEvent) -> None:
        if self._services_wait and event.kind == "notice" and self.login is not None \
                and event.nick.lower() == self.login.services.lower():
            self._on_services_notice(event.text)
        if self.handler is not None:
            self._guard(lambda: self.handler(event))  # type: ignore[misc]  # checked not None just above

    def _on_line(self, line: str) -> None:
        """One line from the server (loop thread). Whatever the server sends, nothing
        raises: a line without the parameters its command needs is ignored."""
        body, account = line, ""
        if line[:1] == "@":  # IRCv3 tags: only the sender's account matters here
            tags, _, body = line.partition(" ")
            account = account_tag(tags)
        # The lines a table is made of, a user's PRIVMSG or NOTICE that is not CTCP, split
        # on their first spaces: what parse_line and _on_message give for them, at a
        # fraction of the cost.
        if body[:1] == ":":
            prefix, _, rest = body.partition(" ")
            command, _, rest = rest.partition(" ")
            if command == "PRIVMSG" or command == "NOTICE":
                target, _, text = rest.partition(" ")
                if text[:1] == ":" and "!" in prefix and target and text[1:2] != "\x01":
                    nick, _, userhost = prefix[1:].partition("!")
                    self._emit(IrcEvent("message" if command == "PRIVMSG" else "notice",
                                        nick, userhost, target, text[1:], "", account))
                    return
        prefix, command, params = parse_line(body)
        if command == "PING":  # answered at once, past the queue: the loop never waits on a player
            self._write_now([f"PONG :{params[0]}" if params else "PONG"], counted=False)
        elif command == "PONG":
            if params and params[-1].startswith(_DELIVERY_TOKEN):
                self._on_delivered(params[-1])
        elif command in _IDENTITY_LINES:
            self._on_identity_line(command, params)
        else:
            read = self._commands.get(command)
            if read is not None:
                read(command, prefix, params, account)

    # What each command means to the bots, from its source (``nick!user@host``), its
    # parameters and the sender's account (IRCv3 account-tag); see ``_commands``.

    def _on_welcome(self, command: str, prefix: str, params: list[str], account: str) -> None:
        if self.registered:
            return  # once a connection: a second one is a broken server's
        if params:
            self._me = params[0]  # the nick we registered with, after any fallback
        self.registered = True
        self.connects += 1
        self.backoff.reset()
        if self._attempt_timer is not None:
            self._attempt_timer.cancel()
        if not self._negotiation.finished:
            self._negotiation.finished = True  # the server registered us without CAP
        self._emit(IrcEvent("connected", target=self._me))
        self._after_welcome()

    def _on_myinfo(self, command: str, prefix: str, params: list[str], account: str) -> None:
        """004 RPL_MYINFO: <me> <server name> <version> <user modes> <channel modes>."""
        if len(params) < 3 or self.server_version:
            return
        self.server_version = version = params[2][:MAX_VERSION]
        if not self.by_server:
            return
        budget = profile_for(version)
        known = "" if software(version) is not None else " (software not recognised)"
        budget_log.info("%s: %s:%s runs %r%s; send budget %s", self.name, self.host, self.port, version, known,
                        budget.describe())
        self._use_budget(budget)

    def _use_budget(self, budget: SendBudget) -> None:
        with self._send_lock:  # _send_now takes tokens from another thread
            self.budget = budget
            self.bucket = TokenBucket(budget.burst, budget.rate)

    def _on_nick_refused(self, command: str, prefix: str, params: list[str], account: str) -> None:
        """Our nick is taken (or refused) while registering: ``poki_``, ``poki_2`` ..."""
        if self.registered:
            return
        self._nick_tries += 1
        base = self.wanted_nick[:12] if command != "432" else "poki"  # 432: not a nick at all
        new = f"{base}_" if self._nick_tries == 1 else f"{base}_{self._nick_tries}"
        self._me = new
        self._write_now([f"NICK {new}"], counted=False)

    def _on_message(self, command: str, prefix: str, params: list[str], account: str) -> None:
        """A PRIVMSG or NOTICE the short path in _on_line left: CTCP, a server's source, a
        text without its colon. Of CTCP (a text in \\x01) only ACTION (``/me``) is read, as
        a message; a notice without a source (before registration) is not passed on."""
        if len(params) < 2:
            return
        nick, _, userhost = prefix.partition("!")
        target, text = params[0], params[1]
        if text[:1] == "\x01":
            tag, _, text = text[1:].rstrip("\x01").partition(" ")
            if command != "PRIVMSG" or tag != "ACTION":
                return
        if command == "PRIVMSG":
            self._emit(IrcEvent("message", nick, userhost, target, text, "", account))
        elif nick:
            self._emit(IrcEvent("notice", nick, userhost, target, text, "", account))

    def _on_join(self, command: str, prefix: str, params: list[str], account: str) -> None:
        if not params:
            return
        nick, _, userhost = prefix.partition("!")
        channel = params[0]
        if nick == self._me:
            self.joined.add(channel)
            self._write_now([f"WHO {channel}"], counted=False)  # who is there, with user@host
        self._emit(IrcEvent("join", nick, userhost, channel, account=account))

    def _on_part(self, command: str, prefix: str, params: list[str], account: str) -> None:
        if not params:
            return
        nick, _, userhost = prefix.partition("!")
        if nick == self._me:
            self.joined.discard(params[0])
        self._emit(IrcEvent("part", nick, userhost, params[0], params[1] if len(params) > 1 else "", "", account))

    def _on_quit(self, command: str, prefix: str, params: list[str], account: str) -> None:
        nick, _, userhost = prefix.partition("!")
        self._emit(IrcEvent("quit", nick, userhost, "", params[0] if params else "", "", account))

    def _on_nick(self, command: str, prefix: str, params: list[str], account: str) -> None:
        if not params:
            return
        nick, _, userhost = prefix.partition("!")
        new = params[0]
        if nick == self._me:
            self._me = new
            if self._services_wait == "regain" and new.lower() == self.wanted_nick.lower():
                log.info("%s: the services gave us back the nick %s", self.name, new)
                self._ready()
        self._emit(IrcEvent("nick", nick, userhost, "", "", new, account))

    def _on_kick(self, command: str, prefix: str, params: list[str], account: str) -> None:
        if len(params) < 2:
            return
        nick, _, userhost = prefix.partition("!")
        channel, kicked = params[0], params[1]
        if kicked == self._me:
            self.joined.discard(channel)
            # Rejoin after a pause (a kick is often a warning, not a ban).
            self.call_later(2.0, lambda: self._rejoin(channel))
        self._emit(IrcEvent("kick", nick, userhost, channel, params[2] if len(params) > 2 else "", kicked, account))

    def _rejoin(self, channel: str) -> None:
        if channel in self.channels:
            self.send_raw(f"JOIN {channel}")

    def _on_who(self, command: str, prefix: str, params: list[str], account: str) -> None:
        """352 RPL_WHOREPLY: <me> <channel> <user> <host> <server> <nick> <flags> :<hops> <realname>."""
        if len(params) >= 6:
            self._emit(IrcEvent("who", params[5], f"{params[2]}@{params[3]}", params[1]))

    def _on_names(self, command: str, prefix: str, params: list[str], account: str) -> None:
        """353 RPL_NAMREPLY: <me> <symbol> <channel> :<nicks>."""
        if len(params) >= 4:
            self._emit(IrcEvent("names", target=params[2], text=params[3]))


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
