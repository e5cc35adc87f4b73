"""Helpers for the tests over a real IRC server (miniircd on loopback): a person at an
IRC client (a raw socket speaking plain IRC, reading the dealer by the regular
expressions of docs/irc-dialect.md and not by Poki's own parser), the hands as the
databases hold them, and waiting without wall-clock limits on speed (only hang
timeouts)."""
from __future__ import annotations

import re
import socket
import sqlite3
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from connectors.logs import acpc_log

HANG = 120.0  # seconds before a wait is taken as a hang


@pytest.fixture
def running():
    """Register what a test starts (something with stop() or close(), or a function that
    stops it); everything is stopped at teardown, last first."""
    things: list = []
    yield things.append
    for thing in reversed(things):
        try:
            (getattr(thing, "stop", None) or getattr(thing, "close", None) or thing)()
        except Exception:  # noqa: BLE001 - stop the rest
            pass


def wait_for(cond: Callable[[], object], timeout: float = HANG, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


# The dealer's lines, written from docs/irc-dialect.md's tables.
NICK = r"[A-Za-z\[\]\\`_^{|}][A-Za-z0-9\[\]\\`_^{|}\-]*"
DOC_LINES = {
    "start": re.compile(rf"Hand (\d+): starts\. Button ({NICK})\. Blinds (\d+)/(\d+), bets (\d+)/(\d+), cap (\d+)\. Seats: (.+)\."),
    "blind": re.compile(rf"Hand (\d+): ({NICK}) posts the (small|big) blind, (\d+)( \(all-in\))?\."),
    "turn": re.compile(rf"Hand (\d+): ({NICK}) to act: (.+); pot (\d+) \((\d+)s\)\."),
    "act": re.compile(rf"Hand (\d+): ({NICK}) (folds|checks|calls \d+|bets \d+|raises to \d+)( \(all-in\))?( \(time-out\))?\."),
    "left": re.compile(rf"Hand (\d+): ({NICK}) leaves the hand\."),
    "board": re.compile(r"Hand (\d+): (flop [2-9TJQKA][cdhs] [2-9TJQKA][cdhs] [2-9TJQKA][cdhs]|"
                        r"(turn|river) [2-9TJQKA][cdhs] \(board( [2-9TJQKA][cdhs]){4,5}\))\."),
    "shows": re.compile(rf"Hand (\d+): ({NICK}) shows [2-9TJQKA][cdhs] [2-9TJQKA][cdhs]( \([a-z ,\-]+\))?\."),
    "mucks": re.compile(rf"Hand (\d+): ({NICK}) mucks\."),
    "wins": re.compile(rf"Hand (\d+): ({NICK}) wins (\d+)\."),
    "ends": re.compile(r"Hand (\d+): ends\. Stacks: (.+)\."),
    "void": re.compile(r"Hand (\d+): void, chips restored\."),
    "commit": re.compile(r"Hand (\d+): deck commitment ([0-9a-f]{64})\."),
    "reveal": re.compile(r"Hand (\d+): deck ((?:[2-9TJQKA][cdhs] ){51}[2-9TJQKA][cdhs]), salt ([0-9a-f]{32})\."),
    "sit": re.compile(rf"Table: ({NICK}) sits with (\d+) chips \(bankroll (\d+)\)\."),
    "leave": re.compile(rf"Table: ({NICK}) leaves with (\d+) chips \(bankroll (\d+)\)\."),
    "sitout": re.compile(rf"Table: ({NICK}) sits out( \(.+\))?\."),
    "info": re.compile(r"Table: .+"),
}
HOLE = re.compile(r"Hand (\d+): your cards at ([#&]\S+): ([2-9TJQKA][cdhs]) ([2-9TJQKA][cdhs])\.")


def clauses(line: str) -> list[str]:
    """A hand line of several clauses (docs/irc-dialect.md: joined by ` | `, each
    ending with a full stop) as the one-clause lines it stands for."""
    m = re.fullmatch(r"(Hand \d+: )(.*)", line)
    if m is None or ". | " not in line:
        return [line]
    parts = m.group(2).split(". | ")
    return [m.group(1) + part + ("." if k < len(parts) - 1 else "") for k, part in enumerate(parts)]


def time_out_gaps(said: list[tuple[float, str]], nick: str, seconds: int | None = None) -> list[float]:
    """Seconds from each of ``nick``'s turn lines to its time-out line, from ``said``
    (when a watcher read it, one clause); each turn line shows ``seconds`` when given."""
    gaps = []
    turn_seen = None
    for when, clause in said:
        if f" {nick} to act: " in clause:
            assert seconds is None or f"({seconds}s)." in clause, clause
            turn_seen = when
        elif turn_seen is not None and clause.split(": ", 1)[1].startswith(f"{nick} ") \
                and clause.endswith("(time-out)."):
            gaps.append(when - turn_seen)
            turn_seen = None
    return gaps


def classify(line: str) -> tuple[str, re.Match] | None:
    for name, regex in DOC_LINES.items():
        m = regex.fullmatch(line)
        if m:
            return name, m
    return None


class Person:
    """Someone at a plain IRC client: a raw socket, answering PINGs, keeping every line
    it sees; ``on_line(person, kind, prefix, target, text)`` lets a test script answers."""

    def __init__(self, port: int, nick: str, *, user: str | None = None,
                 on_line: Callable[..., None] | None = None, ca_file: str | Path | None = None) -> None:
        self.nick = nick
        self.former: set[str] = set()  # nicks this connection had before
        self.user = user or nick
        self.on_line = on_line
        self.lines: list[tuple[str, str, str, str]] = []  # (command, prefix, target, text)
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=HANG)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if ca_file is not None:  # over TLS, trusting that certificate
            self.sock = ssl.create_default_context(cafile=str(ca_file)).wrap_socket(
                self.sock, server_hostname="127.0.0.1")
        self._lock = threading.Lock()
        self._closed = False
        self.send(f"NICK {nick}")
        self.send(f"USER {self.user} 0 * :a person")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def send(self, line: str) -> None:
        with self._lock:
            if not self._closed:
                self.sock.sendall((line + "\r\n").encode())

    def say(self, target: str, text: str) -> None:
        self.send(f"PRIVMSG {target} :{text}")

    def _read(self) -> None:
        buf = b""
        try:
            while True:
                data = self.sock.recv(65536)
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    self._line(raw.decode(errors="replace").rstrip("\r"))
        except OSError:
            return

    def _line(self, line: str) -> None:
        if line.startswith("PING"):
            self.send("PONG" + line[4:])
            return
        prefix = ""
        if line.startswith(":"):
            prefix, _, line = line[1:].partition(" ")
        command, _, rest = line.partition(" ")
        target, _, text = rest.partition(" :")
        if command == "NICK" and prefix.split("!")[0] == self.nick:
            self.former.add(self.nick)
            self.nick = (text or target).lstrip(":")
        self.lines.append((command, prefix, target.strip(), text))
        if self.on_line is not None:
            self.on_line(self, command, prefix, target.strip(), text)

    def from_dealer(self, dealer: str = "dealer", command: str = "PRIVMSG") -> list[str]:
        """What the dealer said, one clause a line (lines of several clauses split)."""
        return [clause for c, p, _, t in list(self.lines) if c == command and p.split("!")[0] == dealer
                for clause in clauses(t)]

    def close(self, message: str = "bye") -> None:
        try:
            self.send(f"QUIT :{message}")
        except OSError:
            pass
        with self._lock:
            self._closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        self.thread.join(10)


def stored_hands(path: str | Path) -> dict[str, tuple]:
    """hand_id -> everything the database holds of the hand, by nick (for comparing two
    databases that saw the same hands)."""
    conn = sqlite3.connect(str(path))
    try:
        nick = dict(conn.execute("SELECT player, nick FROM aliases").fetchall())
        out = {}
        for seq, hand_id, board, pot in conn.execute("SELECT seq, hand_id, board, pot FROM hands"):
            seats = tuple(sorted((nick[p], pos, st) for p, pos, st in conn.execute(
                "SELECT player, position, stack FROM seats WHERE hand = ?", (seq,))))
            actions = tuple((nick[p], r, k, a) for p, r, k, a in conn.execute(
                "SELECT player, round, kind, amount FROM actions WHERE hand = ? ORDER BY ord", (seq,)))
            results = tuple(sorted((nick[p], i, w) for p, i, w in conn.execute(
                "SELECT player, put_in, won FROM results WHERE hand = ?", (seq,))))
            shown = tuple(sorted((nick[p], c) for p, c in conn.execute(
                "SELECT player, cards FROM showdowns WHERE hand = ?", (seq,))))
            out[hand_id] = (board, pot, seats, actions, results, shown)
        return out
    finally:
        conn.close()


def acpc_lines(tmp_path, table="holdem") -> list[acpc_log.AcpcHand]:
    path = tmp_path / "logs" / f"{table}.acpc.log"
    return [acpc_log.parse_state(line) for line in path.read_text().splitlines() if line.startswith("STATE")]


def check_against_acpc_log(hands: dict[str, tuple], log: list[acpc_log.AcpcHand], channel="#holdem") -> None:
    """Every stored hand agrees with the dealer's ACPC log line of the same number: the
    same players, the same betting and the same chips won or lost by each."""
    by_number = {h.hand_number: h for h in log}
    assert len(by_number) == len(log)
    for hand_id, (_board, _pot, _seats, actions, results, _shown) in hands.items():
        number = int(hand_id.rsplit(":", 1)[1])
        line = by_number[number]
        net = {p: won - put for p, put, won in results}
        assert {p: net[p] for p in line.players} == dict(zip(line.players, line.values)), hand_id
        letters = {"f": "f", "k": "c", "c": "c", "b": "r", "r": "r"}
        rounds = ["", "", "", ""]
        for _, rnd, kind, _ in actions:
            if kind in letters:
                rounds[rnd] += letters[kind]
        assert tuple(r for r in rounds if r) == tuple(b for b in line.betting if b), hand_id
