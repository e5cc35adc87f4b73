"""Sitting Poki in IRC poker channels: the player bot.

One IRC connection (connectors.irc.client), one :class:`~connectors.irc.player.PlayerFeed`
turning the configured dealer's lines into events, and per channel (table) one seat
runtime (agent.play.seat: tracker + player, decisions on the seat's worker thread with a
deadline inside the dealer's time limit, so the IRC loop keeps answering PINGs). Every
finished hand of every table goes to ONE database writer thread
(agent.play.stores.DatabaseWriter), and the player reads and writes its opponent models
through the same thread (attached as every runner attaches them), so the engine learns
the opponents from what the database holds ([poki-2002]: models kept between sessions) and
reads there everything it reads in a match: models, predictor, off-model counts, learned
weights. The writer stores the hands in groups (``[irc] store_batch_seconds``), one
transaction each, and any read first stores what is waiting.

The players are built and given their models when the bot is made, before it connects:
a bad spec or a store that cannot serve the player stops the bot at once, and
:meth:`PlayerBot.describe` says what each table's player runs with.
"""
from __future__ import annotations

import logging
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from agent.config import Config
from agent.game.events import Event, HandEnded, HandStarted
from agent.game.rules import Action
from agent.play.irc.network import NetworkOptions, send_budget
from agent.play.kinds import ensure_kinds
from agent.play.seat import Seat, table_generator
from agent.play.stores import DatabaseWriter
from agent.players import Player, PlayerSpec, create_player, parse_spec
from connectors.irc import dialect as d
from connectors.irc.address import network_of, split_server
from connectors.irc.client import IrcClient, Priority
from connectors.irc.orders import Caller, OrderBook, Owners
from connectors.irc.player import PlayerFeed

__all__ = ["PlayerBot", "ReportOutcome"]

log = logging.getLogger("poki.irc.player")

@dataclass
class TableStatus:
    seated: bool = False
    sit_asked: bool = False
    turns: int = 0
    turn_mismatch: int = 0
    voids: int = 0
    leaving: bool = False  # an owner said leave: at the end of the hand in progress
    latencies: list[float] = field(default_factory=list)  # seconds from "to act" to our reply queued
    sent_late: int = 0  # replies that left our queue after the limit the turn line showed


class ReportOutcome(Protocol):
    """What the owner's ``report`` order is told of a report written
    (agent.report.page.ReportResult is one)."""

    @property
    def index(self) -> Path: ...

    @property
    def players(self) -> int: ...

    @property
    def hands(self) -> int: ...


class PlayerBot:
    """Poki (or any player spec) at IRC tables; see the module docstring. ``start()``,
    then ``wait()`` until an owner says quit, or ``stop()``."""

    # The owners' orders, declared on the methods below (connectors.irc.orders).
    ORDERS: OrderBook[PlayerBot] = OrderBook("Poki")

    def __init__(self, config: Config, *, server: str, channels: Sequence[str], dealer: str,
                 spec: str | PlayerSpec = "poki", nick: str | None = None, db_path: str | Path | None = None,
                 seed: int | None = None, dealer_host: str | None = None, dealer_account: str | None = None,
                 owners: Sequence[str] | None = None, flood_rate: float | None = None,
                 username: str | None = None, network_options: NetworkOptions | None = None) -> None:
        irc = config.irc
        self.config = config
        owner_set = Owners(irc.owners if owners is None else owners)  # a nick-only owner fails here, first
        self.host, self.port = split_server(server)
        self.network = network_of(self.host)
        self.channels = list(channels)
        # Parsed here, on the caller's thread: a bad spec fails at once, and the player
        # registry is loaded before any table thread needs it.
        ensure_kinds()
        self.spec = parse_spec(spec) if isinstance(spec, str) else spec
        self.seed = config.random.seed if seed is None else seed
        self.margin = irc.decision_margin_seconds
        self.writer = DatabaseWriter(db_path, half_life=config.model.half_life_hands,
                                     synchronous=config.database.synchronous,
                                     batch_seconds=irc.store_batch_seconds)
        network = network_options or NetworkOptions(connect_timeout=irc.connect_timeout_seconds)
        dealer_account = irc.dealer_account if dealer_account is None else dealer_account
        self.failure: str | None = None  # why the network refused us for good, if it did
        budget = send_budget(irc, flood_rate)
        self.client = IrcClient(
            self.host, self.port, nick or irc.nick, username=username, name=f"player {nick or irc.nick}",
            budget=budget.budget, by_server=budget.by_server,
            reconnect_min=irc.reconnect_min_seconds, reconnect_max=irc.reconnect_max_seconds,
            rng=np.random.default_rng([self.seed, 2]), tls=network.tls, login=network.login,
            connect_timeout=network.connect_timeout, on_failure=self._network_failed,
            capabilities=("account-tag",) if dealer_account or owner_set.wants_accounts else ())
        self.feed = PlayerFeed(self.client, self.channels, self,
                               dealer_nick=dealer,
                               dealer_host=irc.dealer_host if dealer_host is None else dealer_host,
                               dealer_account=dealer_account,
                               owners=owner_set)
        self.seats: dict[str, Seat] = {}
        self.status: dict[str, TableStatus] = {c: TableStatus() for c in self.channels}
        self.quit = threading.Event()
        # The owner's ``report`` order: a callable writing the opponent report (in a child
        # process, as the schedule does) and returning its result (None when the run
        # failed: it logs why), set by whoever runs the bot (poki irc play); None: there
        # is no report here.
        self.report_now: Callable[[], ReportOutcome | None] | None = None
        self._report_thread: threading.Thread | None = None
        self._stopping = False
        # One player per table, seeded as every runner seeds table k's player from the
        # command's seed, with its models from the writer thread.
        self.players: dict[str, Player] = {}
        try:
            models = self.writer.models()
            for k, channel in enumerate(self.channels):
                player = create_player(self.spec, table_generator(self.seed, k), name=self.client.nick)
                player.attach_store(models, self.network)
                self.players[channel] = player
        except BaseException:
            self.writer.close()
            raise

    def describe(self) -> str:
        """What each table's player runs with (bettor, predictor, floor, store)."""
        return "\n".join(f"{channel}: {player.describe()}" for channel, player in self.players.items())

    def _network_failed(self, reason: str) -> None:
        """The network refused us for good (a wrong password ...): the bot stops."""
        self.failure = reason
        self.quit.set()

    # --- seats ----------------------------------------------------------------------------------

    def _player(self, channel: str, nick: str) -> Player:
        player = self.players[channel]
        player.name = nick  # the nick the server gave us (poki_ when poki is taken)
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
        if type(event) is HandEnded and self.status[channel].leaving:
            self._leave_now(channel)

    def on_turn(self, channel: str, to_act: d.ToAct) -> None:
        status = self.status[channel]
        status.turns += 1
        seat = self.seats.get(channel)
        t0 = time.perf_counter()
        if seat is None or not seat.our_turn:
            # Our view of the hand is lost (we joined mid-hand, a line was refused): answer
            # what a time-out would, at once.
            status.turn_mismatch += 1
            self.client.say(self.feed.dealer_nick, d.format_move(d.timeout_word(to_act), channel), Priority.GAME)
            return
        # The real deadline: what the turn line gives, less the answer margin. The seat
        # tells the engine (its simulator spends a share of it) and, on the IRC loop (no
        # timer thread per decision), answers the engine's best action so far, or the
        # fallback, if it is late.
        deadline = max(0.5, to_act.seconds - self.margin)
        client = self.client
        dealer = self.feed.dealer_nick

        def reply(action: Action) -> None:
            status.latencies.append(time.perf_counter() - t0)
            # Said to the dealer alone: the dealer announces the move to the table anyway,
            # and the other players' programs are not woken for a line they would ignore.
            client.say(dealer, d.format_move(d.action_word(action, to_act), channel), Priority.GAME,
                       on_sent=sent)

        def sent() -> None:
            # Late is when the move left, not when it was decided: a move held in our own
            # queue past the limit is late however fast the engine was.
            if time.perf_counter() - t0 > to_act.seconds:
                status.sent_late += 1

        seat.decide_async(deadline, reply, call_later=client.call_later)

    def on_void(self, channel: str, hand: int) -> None:
        seat = self.seats.get(channel)
        if seat is not None and seat.abandon(f"the dealer voided hand {hand}"):
            self.status[channel].voids += 1
        if self.status[channel].leaving:
            self._leave_now(channel)

    def on_table(self, channel: str, msg: d.Line) -> None:
        status = self.status[channel]
        me = self.client.nick
        if isinstance(msg, d.TableSit) and msg.nick == me:
            status.seated = True
        elif isinstance(msg, d.TableLeave) and msg.nick == me and status.leaving:
            status.seated = False
            status.leaving = False
            self.client.part(channel, "leaving the table")
        elif isinstance(msg, (d.TableLeave, d.TableSitOut)) and msg.nick == me:
            status.seated = False
            status.sit_asked = False
            if channel in self.client.channels:
                self._ask_seat(channel)
        elif d.is_table_opened(msg) and not status.seated:
            # The dealer opens its table: sit, even if we asked before (of an impostor
            # holding its nick, say, or of a dealer that went away).
            self._ask_seat(channel)

    def on_dealer_gone(self, channel: str) -> None:
        """The dealer left (quit, part): its table is closed, so we are no longer seated
        there; a hand in progress is void (the dealer announces it when it is back) and we
        sit again when it returns."""
        status = self.status[channel]
        status.seated = False
        status.sit_asked = False
        seat = self.seats.get(channel)
        if seat is not None and seat.abandon("the dealer left mid-hand"):
            status.voids += 1

    def on_presence(self, channel: str, nick: str) -> None:
        """The dealer is in the channel (it joined, or WHO listed it): take a seat."""
        if nick.lower() == self.feed.dealer_nick.lower() and not self.status[channel].sit_asked:
            self._ask_seat(channel)

    def _ask_seat(self, channel: str) -> None:
        status = self.status[channel]
        status.sit_asked = True
        self.client.say(channel, d.sit_command(), Priority.GAME)

    def on_order(self, caller: Caller, text: str) -> str:
        return self.ORDERS.answer(self, caller, text)

    @ORDERS.order("status", "each table's hands, small bets a hand, late moves; decks verified, hands stored")
    def _status_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        return self.summary()

    @ORDERS.order("report", "write the opponent report now (in a child process); says where when done")
    def _report_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        return self._report(caller.nick)

    @ORDERS.order("leave", "give up the seat at the table when the hand in progress is over, then part",
                  params=("#channel",), example="leave #holdem")
    def _leave_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        channel = args[0]
        if channel not in self.status:
            return f"not at {channel}; tables: {', '.join(self.channels)}"
        status = self.status[channel]
        status.leaving = True
        if self.feed.tables[channel.lower()].hand is not None:
            return f"leaving {channel} when the hand in progress is over"
        self._leave_now(channel)
        return f"leaving {channel}"

    @ORDERS.order("quit", "leave IRC and stop the bot (the hands played are stored)")
    def _quit_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        self.quit.set()
        return "quitting"

    def _leave_now(self, channel: str) -> None:
        """Give the seat up (no hand in progress): the chips go back to the bankroll; we
        part once the dealer says so, or at once when we hold no seat."""
        status = self.status[channel]
        if status.seated:
            self.client.say(channel, d.leave_command(), Priority.GAME)
        else:
            status.leaving = False
            self.client.part(channel, "leaving the table")

    def _report(self, nick: str) -> str:
        runner = self.report_now
        if runner is None:
            return "no opponent report here (started with --no-report)"
        if self._report_thread is not None and self._report_thread.is_alive():
            return "the opponent report is being written already"
        client = self.client

        def work() -> None:
            try:
                result = runner()
            except Exception as exc:  # noqa: BLE001 - told to the owner
                result, error = None, f"{type(exc).__name__}: {exc}"
            else:
                error = "see the bot's log"
            # An absolute path: the owner's folder is not the bot's.
            text = (f"opponent report written: {result.index.resolve()} ({result.players} opponents, "
                    f"{result.hands} hands)" if result is not None
                    else f"the opponent report failed: {error}")
            client.call_soon(lambda: client.notice(nick, text))

        self._report_thread = threading.Thread(target=work, name="owner report", daemon=True)
        self._report_thread.start()
        return "writing the opponent report (in a child process); I will say when it is done"

    def on_connection(self, connected: bool) -> None:
        if connected and self.feed.dealer_account and "account-tag" not in self.client.enabled:
            self.client.give_up(f"{self.host}:{self.port} does not tag lines with the sender's account (IRCv3 "
                                f"account-tag), so the dealer's account ({self.feed.dealer_account}) cannot be "
                                f"checked; pin the dealer by its host instead (--dealer-host)")
            return
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
                         f"(+/- {s.interval95:.2f}), {s.hands_abandoned} abandoned, {s.late} late "
                         f"({status.sent_late} sent after the limit)")
        f = self.feed.stats
        w = self.writer
        parts.append(f"decks: {f.decks_verified} verified, {f.decks_failed} NOT verified; "
                     f"ignored: {f.impostor} impostor lines, {f.malformed} malformed; "
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
