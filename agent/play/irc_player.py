"""Sitting Poki in IRC poker channels: the player bot.

One IRC connection (connectors.irc.client), one :class:`~connectors.irc.player.PlayerFeed`
turning the configured dealer's lines into events, and per channel (table) one seat
runtime (agent.play.seat: tracker + player, decisions on the seat's worker thread with a
deadline inside the dealer's time limit, so the IRC loop keeps answering PINGs). Every
finished hand of every table goes to ONE database writer thread (:class:`DatabaseWriter`),
which also answers the Poki engine's opponent-model reads, so the engine learns the
opponents from what the database holds (seed 004: models kept between sessions). It
stores the hands in groups (``[irc] store_batch_seconds``), one transaction each, and
any read first stores what is waiting.
"""
from __future__ import annotations

import collections
import logging
import queue
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agent.config import Config
from agent.game.events import Event, HandStarted
from agent.players import Player, PlayerSpec, create_player, parse_spec
from agent.play.irc_dealer import network_of, split_server
from agent.play.seat import Seat, fallback_action
from agent.game.records import HandRecord
from agent.game.rules import Action
from connectors.irc import dialect as d
from connectors.irc.client import IrcClient
from connectors.irc.player import PlayerFeed, action_word
from agent.game.frequencies import PlayerModel
from agent.game.records import WriteReport

__all__ = ["DatabaseWriter", "PlayerBot", "WriterModelStore"]

log = logging.getLogger("poki.irc.player")

_STOP = object()
_WRITE = object()  # write the waiting hands now
_ARMED = object()  # hands wait: write them batch_seconds from now


class _Hand:
    """A finished hand waiting for the writer."""

    __slots__ = ("record", "network")

    def __init__(self, record: HandRecord, network: str) -> None:
        self.record, self.network = record, network


class DatabaseWriter:
    """The one thread that owns the database: hands are queued to it from any table;
    model reads run on it too (``call``). ``db_path`` None keeps models in memory.

    With ``batch_seconds`` > 0 the hands are stored in groups, one transaction per group:
    a hand waits at most that long (or until ``batch_hands`` wait) before its group is
    written. On a fast table that saves most of the cost of storing (SQLite writes a page
    that many hands touch once per transaction, not once per hand). Every group is whole
    hands, written all or nothing, and a read (``call``) first writes the hands handed
    over before it, so the models read include every finished hand; once reads come (a
    player that learns from the database, once a hand) each hand is stored as it comes,
    so no read waits for a group. Closing writes the rest. A bot killed outright
    (SIGKILL) loses at most the last ``batch_seconds`` of hands from its database, each
    one whole or not at all: what a power cut could take from a database on
    synchronous=NORMAL too."""

    def __init__(self, db_path: str | Path | None, *, half_life: float, synchronous: str = "normal",
                 batch_seconds: float = 0.0, batch_hands: int = 200) -> None:
        if batch_seconds < 0 or batch_hands < 1:
            raise ValueError(f"batch_seconds must be >= 0 and batch_hands >= 1, got {batch_seconds}, {batch_hands}")
        self.db_path = db_path
        self.half_life = half_life
        self.synchronous = synchronous
        self.batch_seconds = batch_seconds
        self.batch_hands = batch_hands
        self.stored = 0
        self.duplicates = 0
        self.rejected = 0
        self.errors = 0
        self.not_stored = 0  # hands given to the writer and not stored (failed or refused)
        self.transactions = 0  # groups written
        self.last_error = ""
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._hands: collections.deque[_Hand] = collections.deque()  # finished hands not written yet
        self._armed = False  # the writer knows hands are waiting (their group's clock runs)
        self._read = False  # a read has come: hands are no longer grouped
        self._opened = threading.Event()
        self._open_error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="db-writer", daemon=True)
        self._thread.start()
        self._opened.wait(60)
        if self._open_error is not None:
            raise self._open_error

    def _run(self) -> None:
        try:
            if self.db_path is None:
                from agent.engine.opponent_model import MemoryModelStore

                self.store: Any = MemoryModelStore(self.half_life)
            else:
                from db.database import Database

                self.store = Database(self.db_path, half_life=self.half_life, synchronous=self.synchronous)
        except BaseException as exc:  # noqa: BLE001 - reported to the opener
            self._open_error = exc
            self._opened.set()
            return
        self._opened.set()
        jobs = self._jobs
        hands = self._hands
        due: float | None = None  # when the oldest waiting hand must be written
        try:
            while True:
                if due is None:
                    job = jobs.get()
                else:
                    wait = due - time.monotonic()
                    try:
                        job = jobs.get(timeout=wait) if wait > 0 and len(hands) < self.batch_hands else _WRITE
                    except queue.Empty:
                        job = _WRITE
                if job is _ARMED:
                    if due is None:
                        due = time.monotonic() + self.batch_seconds
                    continue
                # A group is due, a read (it sees every hand handed over before it) or the end.
                due = None
                self._armed = False  # before taking the hands: a hand after this arms again
                group = []
                while hands:
                    group.append(hands.popleft())
                if self.batch_seconds > 0:
                    if group:
                        self._store(group)
                else:
                    for hand in group:  # no groups: each hand in its own transaction
                        self._store([hand])
                if job is _WRITE:
                    continue
                if job is _STOP:
                    return
                fn, future = job
                # Someone reads the database (the Poki engine, once a hand): from now on
                # each hand is stored as it comes, so a read never waits for a group.
                self._read = True
                try:
                    result = fn()
                except BaseException as exc:  # noqa: BLE001
                    future.set_exception(exc)
                else:
                    future.set_result(result)
        finally:
            close = getattr(self.store, "close", None)
            if close is not None:
                close()

    def _store(self, hands: list[_Hand]) -> None:
        """Write ``hands`` (in order) in one transaction per network; a hand the store
        refuses is counted and logged, the others are stored."""
        from agent.game.records import RecordError

        store = self.store
        by_network: dict[str, list[HandRecord]] = {}
        for hand in hands:
            by_network.setdefault(hand.network, []).append(hand.record)
        for network, records in by_network.items():
            try:
                if len(records) > 1 and hasattr(store, "write_hands"):
                    report: WriteReport = store.write_hands(records, network, batch_hands=len(records))
                else:
                    report = WriteReport()
                    for record in records:
                        try:
                            report.add(store.write_hand(record, network))
                        except RecordError as exc:
                            report.rejected.append((record.hand_id, str(exc)))
            except Exception as exc:  # noqa: BLE001 - the database failed: counted, play goes on
                self.errors += 1
                self.not_stored += len(records)
                self.last_error = f"{len(records)} hand(s) not stored: {exc}"
                log.error("database writer: %s", self.last_error)
                continue
            self.transactions += 1
            self.stored += report.stored
            self.duplicates += report.duplicates
            self.not_stored += len(report.rejected)
            for hand_id, reason in report.rejected:
                self.rejected += 1
                self.last_error = f"hand {hand_id} not stored: {reason}"
                log.error("%s", self.last_error)

    def call(self, fn: Callable[[], Any], timeout: float | None = 60.0) -> Any:
        future: Future = Future()
        self._jobs.put((fn, future))
        return future.result(timeout)

    def write(self, record: HandRecord, network: str) -> None:
        """Queue a finished hand (returns at once). Only the first hand of a group wakes
        the writer (to start the group's clock); the others just wait in line."""
        hands = self._hands
        hands.append(_Hand(record, network))
        if self.batch_seconds <= 0 or self._read or len(hands) == self.batch_hands:
            self._jobs.put(_WRITE)
        elif not self._armed:
            self._armed = True
            self._jobs.put(_ARMED)

    def hand_count(self) -> int:
        return self.call(lambda: self.store.hand_count() if hasattr(self.store, "hand_count")
                         else len(getattr(self.store, "_hand_ids", ())))

    def close(self, timeout: float = 60.0) -> None:
        if self._thread.is_alive():
            self._jobs.put(_STOP)
            self._thread.join(timeout)


class WriterModelStore:
    """A ModelStore for the Poki engine: reads go to the writer thread; writes are left
    to the seat's sink (the same hand is stored once)."""

    def __init__(self, writer: DatabaseWriter) -> None:
        self.writer = writer

    def get(self, nick: str, network: str) -> PlayerModel:
        return self.writer.call(lambda: self.writer.store.get(nick, network))

    def write_hand(self, record: HandRecord, network: str) -> WriteReport:
        return WriteReport()


@dataclass
class TableStatus:
    seated: bool = False
    sit_asked: bool = False
    turns: int = 0
    turn_mismatch: int = 0
    late: int = 0  # decisions answered by the fallback at the deadline
    voids: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds from "to act" to our reply queued


class PlayerBot:
    """Poki (or any player spec) at IRC tables; see the module docstring. ``start()``,
    then ``wait()`` until an owner says quit, or ``stop()``."""

    def __init__(self, config: Config, *, server: str, channels: Sequence[str], dealer: str,
                 spec: str | PlayerSpec = "poki", nick: str | None = None, db_path: str | Path | None = None,
                 seed: int | None = None, dealer_host: str | None = None,
                 owners: Sequence[str] | None = None, flood_rate: float | None = None,
                 username: str | None = None) -> None:
        irc = config.irc
        self.config = config
        self.host, self.port = split_server(server)
        self.network = network_of(self.host)
        self.channels = list(channels)
        # Parsed here, on the caller's thread: a bad spec fails at once, and the player
        # registry is loaded before any table thread needs it.
        self.spec = parse_spec(spec) if isinstance(spec, str) else spec
        self.seed = config.random.seed if seed is None else seed
        self.margin = irc.decision_margin_seconds
        self.writer = DatabaseWriter(db_path, half_life=config.model.half_life_hands,
                                     synchronous=config.database.synchronous,
                                     batch_seconds=irc.store_batch_seconds)
        self.client = IrcClient(
            self.host, self.port, nick or irc.nick, username=username, name=f"player {nick or irc.nick}",
            flood_burst=irc.flood_burst,
            flood_rate=irc.flood_lines_per_second if flood_rate is None else flood_rate,
            reconnect_min=irc.reconnect_min_seconds, reconnect_max=irc.reconnect_max_seconds,
            rng=np.random.default_rng([self.seed, 2]))
        self.feed = PlayerFeed(self.client, self.channels, self,
                               dealer_nick=dealer,
                               dealer_host=irc.dealer_host if dealer_host is None else dealer_host,
                               owners=irc.owners if owners is None else owners)
        self.seats: dict[str, Seat] = {}
        self.players: dict[str, Player] = {}
        self.status: dict[str, TableStatus] = {c: TableStatus() for c in self.channels}
        self.quit = threading.Event()
        self._stopping = False
        self._rng = np.random.default_rng([self.seed, 3])

    # --- seats ----------------------------------------------------------------------------------

    def _player(self, channel: str, nick: str) -> Player:
        player = self.players.get(channel)
        if player is None:
            seed = int(self._rng.integers(2**63))
            player = create_player(self.spec, np.random.default_rng(seed), name=nick)
            if hasattr(player, "store") and hasattr(player, "network"):
                # The engine learns opponents from the database (read on the writer thread).
                player.store = WriterModelStore(self.writer)  # type: ignore[attr-defined]
                player.network = self.network  # type: ignore[attr-defined]
            self.players[channel] = player
        player.name = nick
        return player

    def _seat(self, channel: str) -> Seat:
        nick = self.client.nick
        seat = self.seats.get(channel)
        if seat is None or seat.me != nick:
            if seat is not None:
                seat.close(timeout=5)
            seat = Seat(self._player(channel, nick), me=nick, source=f"irc {channel}",
                        sink=lambda record: self.writer.write(record, self.network))
            self.seats[channel] = seat
        return seat

    # --- TableListener (IRC loop thread) -------------------------------------------------------

    def on_event(self, channel: str, hand: int, event: Event) -> None:
        seat = self._seat(channel) if type(event) is HandStarted else self.seats.get(channel)
        if seat is not None:
            seat.feed(event)

    def on_turn(self, channel: str, to_act: d.ToAct) -> None:
        status = self.status[channel]
        status.turns += 1
        seat = self.seats.get(channel)
        t0 = time.perf_counter()
        if seat is None or not seat.our_turn:
            # Our view of the hand is lost (we joined mid-hand, a line was refused): answer
            # what a time-out would, at once.
            status.turn_mismatch += 1
            word = "check" if to_act.option("check") is not None else "fold"
            self.client.say(self.feed.dealer_nick, d.format_move(word, channel))
            return
        deadline = max(0.5, to_act.seconds - self.margin)
        client = self.client
        dealer = self.feed.dealer_nick
        lock = threading.Lock()
        answered = [False]

        def reply(action: Action) -> None:
            with lock:
                if answered[0]:
                    return  # the deadline answered first
                answered[0] = True
            status.latencies.append(time.perf_counter() - t0)
            # Said to the dealer alone: the dealer announces the move to the table anyway,
            # and the other players' programs are not woken for a line they would ignore.
            client.say(dealer, d.format_move(action_word(action, to_act), channel))

        ctx = seat.tracker.snapshot(seat.me)

        def at_deadline() -> None:
            with lock:
                if answered[0]:
                    return
            status.late += 1
            log.warning("irc %s hand %d: %s did not decide within %.1f s; fallback answered",
                        channel, to_act.hand, seat.player.name, deadline)
            reply(fallback_action(ctx))

        # The deadline runs on the IRC loop (no timer thread per decision); the seat asks
        # the player on its worker thread.
        timer = client.call_later(deadline, at_deadline)
        seat.decide_async(None, lambda action: (timer.cancel(), reply(action)))

    def on_void(self, channel: str, hand: int) -> None:
        seat = self.seats.get(channel)
        if seat is not None and seat.abandon(f"the dealer voided hand {hand}"):
            self.status[channel].voids += 1

    def on_table(self, channel: str, msg: d.Line) -> None:
        status = self.status[channel]
        me = self.client.nick
        if isinstance(msg, d.TableSit) and msg.nick == me:
            status.seated = True
        elif isinstance(msg, (d.TableLeave, d.TableSitOut)) and msg.nick == me:
            status.seated = False
            status.sit_asked = False
            if channel in self.client.channels:
                self._ask_seat(channel)
        elif isinstance(msg, d.TableInfo) and msg.text.startswith("dealing") and not status.sit_asked:
            self._ask_seat(channel)

    def on_presence(self, channel: str, nick: str) -> None:
        """The dealer is in the channel (it joined, or WHO listed it): take a seat."""
        if nick.lower() == self.feed.dealer_nick.lower() and not self.status[channel].sit_asked:
            self._ask_seat(channel)

    def _ask_seat(self, channel: str) -> None:
        status = self.status[channel]
        status.sit_asked = True
        self.client.say(channel, "!sit")

    def on_order(self, nick: str, order: str, args: list[str]) -> str:
        if order == "help":
            return "orders: status, leave #channel, report, quit"
        if order == "status" or order == "report":
            return self.summary()
        if order == "leave":
            channel = args[0] if args else ""
            if channel not in self.status:
                return f"not at {channel or '(no channel given)'}; tables: {', '.join(self.channels)}"
            self.client.say(channel, "!leave")
            self.client.call_later(1.0, lambda: self.client.part(channel, "leaving the table"))
            return f"leaving {channel}"
        if order == "quit":
            self.quit.set()
            return "quitting"
        return ""

    def on_connection(self, connected: bool) -> None:
        for channel, status in self.status.items():
            status.sit_asked = False  # ask again once the dealer is seen (harmless if seated)
            seat = self.seats.get(channel)
            # The dealer voids a hand it cannot finish on the server it lost; so do we.
            if not connected and not self._stopping and seat is not None \
                    and seat.abandon("lost the IRC server mid-hand"):
                status.voids += 1

    # --- reports -----------------------------------------------------------------------------------

    def summary(self) -> str:
        parts = []
        for channel, status in self.status.items():
            seat = self.seats.get(channel)
            if seat is None:
                parts.append(f"{channel}: no hand yet")
                continue
            s = seat.stats
            parts.append(f"{channel}: {s.hands} hands, {s.sb_per_hand:+.2f} sb/hand "
                         f"(+/- {s.interval95:.2f}), {s.hands_abandoned} abandoned, {s.late} late")
        f = self.feed.stats
        w = self.writer
        parts.append(f"ignored: {f.impostor} impostor lines, {f.malformed} malformed; "
                     f"database: {w.stored} hands stored"
                     + (f", {w.not_stored} NOT stored ({w.last_error})" if w.not_stored else ""))
        return "; ".join(parts)

    def latency(self) -> dict[str, float]:
        values = [x for st in self.status.values() for x in st.latencies]
        if not values:
            return {"decisions": 0}
        values.sort()
        p99 = values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]
        return {"decisions": len(values), "median_ms": statistics.median(values) * 1e3, "p99_ms": p99 * 1e3}

    # --- running ------------------------------------------------------------------------------------

    def start(self) -> PlayerBot:
        self.client.start()
        return self

    def wait(self, timeout: float | None = None) -> bool:
        return self.quit.wait(timeout)

    def stop(self) -> None:
        self._stopping = True
        self.client.stop("Poki is leaving")
        for seat in self.seats.values():
            seat.close(timeout=10)
        self.writer.close()
