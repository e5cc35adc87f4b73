"""Hosting IRC tables: the dealer bot (agent.play.irc.table) with its bank in SQLite
(db.bankroll: bankrolls across sessions, Billings et al.'s [poki-2002] tiers by minimum bankroll) and every
hand written to the opponent database and to ACPC (``STATE:`` lines) and PHH logs. A
finished hand is safe in the journal (agent.play.irc.journal) before the dealer announces
it; the database takes the journal's hands in groups off the hand's path.

:class:`DealerHost` is what ``poki irc deal`` runs, and what the demo, the benchmark and
the tests start and stop from code.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent.config import Config, TableConfig
from agent.game.records import HandRecord
from agent.play.deals import SeededDeals
from agent.play.irc.deck import EntropyDecks
from agent.play.irc.journal import HandJournal, JournalEntry, read_journal
from agent.play.irc.network import NetworkOptions, send_budget
from agent.play.irc.seats import BankError
from agent.play.irc.table import DealerBot
from connectors.irc.address import network_of, split_server
from connectors.irc.client import IrcClient
from connectors.irc.orders import Owners
from connectors.logs import acpc_log, phh
from db.bankroll import BankrollError, Bankrolls
from db.database import Database

__all__ = ["DealerHost", "HandLogFiles", "SqliteBank", "dealing_path", "interrupted_hands", "journal_path",
           "replay_journal", "unheard_ends"]

log = logging.getLogger("poki.irc.dealer")


def journal_path(db_path: str | Path) -> Path:
    """The dealer's journal of hands not yet in the database at ``db_path``."""
    return Path(f"{db_path}.pending-hands")


def dealing_path(db_path: str | Path) -> Path:
    """The dealer's record of the hands it started (``<channel> <number>`` a line): a hand
    started but neither stored nor void when the dealer was killed is announced void when
    it comes back, and its number is never dealt again. A hand's last lines (its end or
    void, its deck) are recorded too when they are queued (``<channel> <number> told
    <line>``) and marked when the server has them (``<channel> <number> heard``): lines a
    killed dealer queued but the channel never heard are said again when it is back."""
    return Path(f"{db_path}.hands-started")


DEALING_TAIL_BYTES = 1 << 20  # the dealing record's end that is read at a start (bounded)


@dataclass(frozen=True)
class _Dealt:
    """One line of the dealing record."""

    channel: str
    number: int
    kind: str  # "started", "told" or "heard"
    text: str = ""  # the told line


def _dealing_lines(path: Path) -> list[_Dealt]:
    """The dealing record's last lines that can be read (others are skipped)."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(0, size - DEALING_TAIL_BYTES))
            data = f.read()
    except FileNotFoundError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    if size > DEALING_TAIL_BYTES:
        lines = lines[1:]  # cut in the middle
    out = []
    for line in lines:
        channel, _, rest = line.partition(" ")
        number, _, rest = rest.partition(" ")
        kind, _, said = rest.partition(" ")
        if not channel or not number.isdigit() or len(number) >= 16:
            continue
        if kind == "" and not said:
            out.append(_Dealt(channel, int(number), "started"))
        elif kind == "heard" and not said:
            out.append(_Dealt(channel, int(number), "heard"))
        elif kind == "told" and said:
            out.append(_Dealt(channel, int(number), "told", said))
    return out


def unheard_ends(path: Path, keep: int = 4) -> dict[str, list[str]]:
    """The last lines of hands a killed session queued that the server never confirmed,
    by channel (lower case), oldest hand first (at most ``keep`` hands a channel)."""
    told: dict[tuple[str, int], list[str]] = {}
    for entry in _dealing_lines(path):
        key = (entry.channel.lower(), entry.number)
        if entry.kind == "told":
            told.setdefault(key, []).append(entry.text)
        elif entry.kind == "heard":
            told.pop(key, None)
    numbers: dict[str, list[int]] = {}
    for channel, number in sorted(told, key=lambda k: k[1]):
        numbers.setdefault(channel, []).append(number)
    unheard = {}
    for channel, hands in numbers.items():
        unheard[channel] = [line for n in hands[-keep:] for line in told[(channel, n)]]
        log.warning("%s: the last lines of hand(s) %s were queued but never confirmed heard: said again", channel,
                    ", ".join(map(str, hands[-keep:])))
    return unheard


def interrupted_hands(path: Path, bankrolls: Bankrolls) -> dict[str, int]:
    """The hands a killed session started and did not finish, by channel (lower case);
    each is recorded void in ``bankrolls`` (its number skipped). Call after the journal
    is replayed. Lines that cannot be read are skipped."""
    started: dict[str, tuple[str, int]] = {}
    for entry in _dealing_lines(path):
        if entry.kind != "started":
            continue
        key = entry.channel.lower()
        if key not in started or entry.number > started[key][1]:
            started[key] = (entry.channel, entry.number)
    interrupted = {}
    for key, (channel, number) in started.items():
        next_hand = bankrolls.next_hand(channel)
        if next_hand is not None and number >= next_hand:
            bankrolls.skip_hand(channel, number)
            interrupted[key] = number
            log.warning("%s: hand %d was interrupted by the last session's end: void", channel, number)
    return interrupted


class SqliteBank:
    """agent.play.irc.table's Bank on db.bankroll (the loop thread owns the connection).

    With a :class:`~agent.play.irc.journal.HandJournal`, a finished hand is made safe by
    one line appended to the journal and the dealer announces it at once; the database
    takes the waiting hands in one transaction (:meth:`settle`) at most ``batch_seconds``
    later, after the lines of the moment are sent (``idle``), and before anything else
    touches the bank, so a seat, a leave or a read always sees every finished hand.
    Without a journal each hand is committed before it is announced."""

    def __init__(self, bankrolls: Bankrolls, *, journal: HandJournal | None = None, batch_seconds: float = 0.0,
                 batch_hands: int = 200, later: Callable[[float, Callable[[], object]], object] | None = None,
                 idle: Callable[[Callable[[], object]], object] | None = None) -> None:
        self.bankrolls = bankrolls
        self.journal = journal if batch_seconds > 0 and later is not None else None
        self.batch_seconds = batch_seconds
        self.batch_hands = batch_hands
        self.later = later
        self.idle = idle
        self.pending: list[JournalEntry] = []
        self.transactions = 0  # groups committed
        self.errors = 0
        self._timer: object | None = None
        self.started_fd = -1  # the dealing record (dealing_path), when the host opened it

    def hand_started(self, channel: str, number: int) -> None:
        """Hand ``number`` is being dealt (one write: it survives a kill)."""
        if self.started_fd >= 0:
            os.write(self.started_fd, f"{channel} {number}\n".encode())

    def hand_void(self, channel: str, number: int) -> None:
        """Hand ``number`` is void: its number is not dealt again."""
        self.settle()
        self.bankrolls.skip_hand(channel, number)

    def settle(self) -> None:
        """Commit the hands waiting in the journal (all of them or none; raises on
        failure, the hands stay in the journal)."""
        pending = self.pending
        if not pending:
            return
        self.bankrolls.hands_done([(e.channel, e.record, e.stacks, e.next_hand) for e in pending])
        self.pending = []
        self.transactions += 1
        assert self.journal is not None
        self.journal.clear()

    def _due(self) -> None:
        self._timer = None
        if self.idle is not None:
            self.idle(self._settle_logged)  # after the lines of this moment are sent
        else:
            self._settle_logged()

    def _settle_logged(self) -> None:
        try:
            self.settle()
        except Exception as exc:  # noqa: BLE001 - kept in the journal; tried again
            self.errors += 1
            log.error("storing %d hand(s) failed (kept in %s, tried again): %s", len(self.pending),
                      self.journal.path if self.journal else "memory", exc)
            if self._timer is None and self.later is not None:
                self._timer = self.later(max(1.0, self.batch_seconds), self._due)

    def _call(self, fn, *args):  # any callable and its result
        self.settle()
        try:
            return fn(*args)
        except BankrollError as exc:
            raise BankError(str(exc)) from None

    def seated_before(self, channel: str) -> list[str]:
        return sorted(self._call(self.bankrolls.at_table, channel))

    def open_table(self, channel: str) -> int:
        return self._call(self.bankrolls.open_table, channel)

    def sit(self, channel: str, nick: str, userhost: str, chips: int | None, buy_in: int,
            minimum: int) -> tuple[int, int]:
        return self._call(self.bankrolls.sit, channel, nick, userhost, chips, buy_in, minimum)

    def leave(self, channel: str, nick: str) -> tuple[int, int]:
        return self._call(self.bankrolls.leave, channel, nick)

    def rename(self, channel: str, old: str, new: str, userhost: str) -> None:
        self._call(self.bankrolls.rename, channel, old, new, userhost)

    def bankroll(self, nick: str, userhost: str) -> int | None:
        self.settle()
        return self.bankrolls.bankroll_for(nick, userhost)

    def hand_done(self, channel: str, record: HandRecord, stacks: dict[str, int], next_hand: int) -> None:
        journal = self.journal
        if journal is None:
            self.bankrolls.hand_done(channel, record, stacks, next_hand)
            return
        record.check()  # a hand the database would refuse is void before it is announced
        entry = JournalEntry(channel, record, dict(stacks), next_hand)
        journal.append(entry)
        self.pending.append(entry)
        if len(self.pending) >= self.batch_hands:
            if self.idle is not None:
                self.idle(self._settle_logged)
        elif self._timer is None:
            self._timer = self.later(self.batch_seconds, self._due)  # type: ignore[misc]  # the reactor's scheduled command


def replay_journal(path: Path, bankrolls: Bankrolls) -> int:
    """Commit the hands of the journal at ``path`` that the database lacks (a dealer
    killed before it stored them); returns how many. Lines that cannot be read are
    logged and skipped. Raises RuntimeError naming the file when they cannot be stored."""
    entries, problems = read_journal(path)
    for problem in problems:
        log.error("%s", problem)
    todo = []
    for entry in entries:
        next_hand = bankrolls.next_hand(entry.channel)
        if next_hand is not None and entry.number >= next_hand:
            todo.append(entry)
    if todo:
        try:
            bankrolls.hands_done([(e.channel, e.record, e.stacks, e.next_hand) for e in todo])
        except Exception as exc:  # noqa: BLE001 - the dealer must not start without them
            raise RuntimeError(f"{path}: {len(todo)} finished hand(s) the database lacks could not be "
                               f"stored ({exc}); move the file away to start without them") from None
        log.warning("%s: %d finished hand(s) stored from the journal", path, len(todo))
    return len(todo)


class HandLogFiles:
    """Appends each committed hand to ``<dir>/<table>.acpc.log`` and ``<dir>/<table>.phhs``.
    The files stay open (one ``write`` per hand each, nothing buffered in the process, so
    a kill loses no line); :meth:`close` at the end."""

    def __init__(self, directory: str | Path) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self._files: dict[str, int] = {}

    def _stem(self, channel: str) -> str:
        return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in channel.lstrip("#&")) or "table"

    def _write(self, name: str, text: str) -> None:
        fd = self._files.get(name)
        if fd is None:
            fd = self._files[name] = os.open(self.dir / name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.write(fd, text.encode("utf-8"))

    def add(self, channel: str, record: HandRecord, holes: dict[str, tuple[int, int]]) -> None:
        number = int(record.hand_id.rsplit(":", 1)[1])
        stem = self._stem(channel)
        line = acpc_log.format_state(acpc_log.hand_from_record(record, holes, number))
        self._write(f"{stem}.acpc.log", line + "\n")
        self._write(f"{stem}.phhs", f"[{number}]\n{phh.format_hand(phh.hand_from_record(record, holes))}\n")

    def close(self) -> None:
        files, self._files = self._files, {}
        for fd in files.values():
            os.close(fd)


@dataclass
class DealerHost:
    """A dealer bot on its own thread, with its database and logs; ``start()``, then
    ``wait()`` for ``hands`` hands or ``stop()``."""

    server: str
    channels: Sequence[str]
    db_path: str | Path
    config: Config
    nick: str = "dealer"
    hands: int | None = None
    seed: int | None = None  # None: decks from the OS's entropy (real play); a seed: tests and demos
    log_dir: str | Path | None = None
    action_seconds: float | None = None
    hand_pause: float | None = None
    flood_rate: float | None = None
    table: TableConfig | None = None
    min_players: int = 2  # seated before the session's first hand
    network_options: NetworkOptions | None = None  # TLS and the dealer's login (None: plain text, no login)
    deals: SeededDeals | None = None  # each hand's cards from a seed (agent.play.deals), not ``seed``
    joined_clauses: bool = True  # off: one clause a line (the dialect's older form; `poki bench` compares)
    fair_clock: bool = True  # off: the clock starts when the turn line is queued (`poki bench` compares)
    claim_seconds: float = 120.0  # the longest a session's first hand waits for a claimed other dealer's proof
    drain_seconds: float = 60.0  # the longest a stop waits for its last lines to reach the server before QUIT
    owners: Sequence[str] | None = None  # who may give the dealer orders (None: [irc] owners; connectors.irc.orders)

    def __post_init__(self) -> None:
        self.host, self.port = split_server(self.server)
        self.network = network_of(self.host)
        self.finished = threading.Event()
        self.ready = threading.Event()
        self.bot: DealerBot | None = None
        self.client: IrcClient | None = None
        self.error: BaseException | None = None
        self.logs = HandLogFiles(self.log_dir) if self.log_dir is not None else None
        self.bank: SqliteBank | None = None
        self.database: Database | None = None  # opened on the loop thread by start()
        self.journal: HandJournal | None = None
        self.replayed = 0  # hands stored from a killed session's journal at start
        self.interrupted: dict[str, int] = {}  # hands a killed session left unfinished (void)
        self.started_fd = -1
        self.unstored = 0  # hands left in the journal, not in the database, when it stopped

    def start(self) -> DealerHost:
        irc = self.config.irc
        rng = np.random.default_rng(self.seed)  # no seed: from the OS's entropy
        decks = EntropyDecks() if self.seed is None and self.deals is None else None
        network = self.network_options or NetworkOptions(connect_timeout=irc.connect_timeout_seconds)
        budget = send_budget(irc, self.flood_rate)
        owners = Owners(irc.owners if self.owners is None else self.owners)  # a nick-only owner fails here
        self.client = IrcClient(
            self.host, self.port, self.nick, name=f"dealer {self.nick}",
            budget=budget.budget, by_server=budget.by_server,
            reconnect_min=irc.reconnect_min_seconds, reconnect_max=irc.reconnect_max_seconds,
            rng=np.random.default_rng(None if self.seed is None else [self.seed, 1]), tls=network.tls, login=network.login,
            connect_timeout=network.connect_timeout, on_failure=self._network_failed,
            answer_gap=irc.answer_gap_seconds, capabilities=("account-tag",) if owners.wants_accounts else ())
        client = self.client
        started = threading.Event()

        def open_db() -> None:
            # The database belongs to the loop thread: open it there, first thing.
            try:
                self.database = Database(self.db_path, half_life=self.config.model.half_life_hands,
                                         synchronous=self.config.database.synchronous)
                self.bankrolls = Bankrolls(self.database, self.network, initial=irc.initial_bankroll)
                # Hands a killed session announced but did not store, before any table opens.
                path = journal_path(self.db_path)
                self.replayed = replay_journal(path, self.bankrolls)
                started_path = dealing_path(self.db_path)
                self.interrupted = interrupted_hands(started_path, self.bankrolls)
                unheard = unheard_ends(started_path)
                self.started_fd = os.open(started_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
                journal = None
                if irc.store_batch_seconds > 0:
                    journal = self.journal = HandJournal(path)
                    journal.clear()
                self.bank = SqliteBank(self.bankrolls, journal=journal, batch_seconds=irc.store_batch_seconds,
                                       later=client.call_later, idle=client.call_idle)
                self.bank.started_fd = self.started_fd
                self.bot = DealerBot(
                    client, self.channels, self.table or self.config.table, self.bank,
                    rng=rng,
                    action_seconds=irc.action_seconds if self.action_seconds is None else self.action_seconds,
                    max_timeouts=irc.max_timeouts,
                    hand_pause=irc.hand_pause_seconds if self.hand_pause is None else self.hand_pause,
                    hands=self.hands, tiers=irc.tier, min_players=self.min_players,
                    on_hand=self.logs.add if self.logs is not None else None,
                    done=self._session_over, deals=self.deals, decks=decks, interrupted=self.interrupted,
                    joined_clauses=self.joined_clauses, fair_clock=self.fair_clock,
                    claim_seconds=self.claim_seconds, unheard=unheard, told=self._told, owners=owners)
            except BaseException as exc:  # noqa: BLE001 - reported to the starter
                self.error = exc
                opening.append(exc)
                self.finished.set()
            finally:
                started.set()

        opening: list[BaseException] = []  # what failed opening the database (the network's refusals end the session instead)
        client.call_soon(open_db)
        client.start()
        started.wait(60)
        if opening:
            client.stop()
            raise opening[0]
        return self

    def _told(self, channel: str, number: int, lines: tuple[str, ...] | None) -> None:
        """The dealing record (dealing_path): a hand's last lines queued, or heard (None).
        One write each: it survives a kill."""
        if self.started_fd < 0:
            return
        if lines is None:
            text = f"{channel} {number} heard\n"
        else:
            text = "".join(f"{channel} {number} told {line}\n" for line in lines if "\n" not in line)
        os.write(self.started_fd, text.encode("utf-8"))

    def _network_failed(self, reason: str) -> None:
        """The network refused us for good (a wrong password ...): the session ends."""
        self.error = ConnectionError(reason)
        self.finished.set()

    def wait_tables(self, timeout: float = 30.0) -> bool:
        """Wait until the dealer sits in every channel (players may then !sit)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            client = self.client
            if client is not None and all(c in client.joined for c in self.channels):
                return True
            time.sleep(0.02)
        return False

    def _session_over(self) -> None:
        # The session's last hands are in the database when wait() returns.
        self._settle()
        self.finished.set()

    def _settle(self) -> None:
        if self.bank is not None:
            try:
                self.bank.settle()
            except Exception as exc:  # noqa: BLE001 - kept in the journal for the next start
                self.unstored = len(self.bank.pending)
                log.error("storing the last hands failed (kept in the journal): %s", exc)

    def wait(self, timeout: float | None = None) -> bool:
        return self.finished.wait(timeout)

    def call(self, fn, timeout: float = 30.0):  # any callable and its result
        """Run ``fn()`` on the dealer's loop thread (which owns the database) and return
        its result; the finished hands are in the database when it runs."""
        client = self.client
        if client is None:
            raise RuntimeError("the dealer is not running")
        future: Future = Future()

        def job() -> None:
            try:
                if self.bank is not None:
                    self.bank.settle()
                future.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)

        client.call_soon(job)
        return future.result(timeout)

    def chips(self) -> tuple[int, int]:
        """(chips in bankrolls and on tables, chips ever granted): equal when no chip was
        made or lost."""
        return self.call(lambda: (self.bankrolls.total(), self.bankrolls.granted()))

    def stop(self) -> None:
        client = self.client
        if client is None:
            return

        def close() -> None:
            if self.bot is not None:
                try:
                    self.bot.close_tables()  # the hand in progress: void, said before we go
                except Exception as exc:  # noqa: BLE001 - stopping goes on
                    log.error("voiding the hands in progress: %s", exc)
            client.handler = None  # no more events: the tables are closed
            self._settle()
            db = self.database
            if db is not None:
                db.close()
                self.database = None
            if self.journal is not None:
                self.journal.close()
            if self.logs is not None:
                self.logs.close()

        drained = threading.Event()
        try:
            def close_then_drain() -> None:
                close()
                client.call_soon(lambda: self._drain(client, drained))  # behind the tables' last flush

            self.call(close_then_drain, timeout=30.0)
        except Exception as exc:  # noqa: BLE001 - stopping goes on
            log.error("closing the dealer's database: %s", exc)
        # The last hand's lines (its end or void, its deck) reach the channel before QUIT:
        # every player stores the hands the dealer stored.
        began = time.monotonic()
        if not drained.wait(self.drain_seconds):
            log.error("the lines queued when the dealer stopped were not confirmed delivered within %g s "
                      "(the server did not answer): quitting anyway; players may miss the last hand's end",
                      self.drain_seconds)
        elif time.monotonic() - began > 1.0:
            log.info("the last lines reached the server in %.1f s", time.monotonic() - began)
        try:
            self.call(self._close_record, timeout=10.0)  # after the last "heard" marks
        except Exception as exc:  # noqa: BLE001 - stopping goes on
            log.error("closing the dealing record: %s", exc)
        client.stop("the dealer is closing the tables")
        self.client = None

    def _close_record(self) -> None:
        if self.started_fd >= 0:
            os.close(self.started_fd)
            self.started_fd = -1
            if self.bank is not None:
                self.bank.started_fd = -1

    def _drain(self, client: IrcClient, drained: threading.Event) -> None:
        """Set ``drained`` once every line queued so far has gone past the server (loop
        thread; after the tables' last lines were flushed); the hands told are heard then."""
        if not client.registered:
            drained.set()  # nothing can be delivered: the lines went with the connection
            return
        bot = self.bot

        def delivered() -> None:
            if bot is not None:
                bot.heard()
            drained.set()

        client.when_delivered(delivered)
