"""The seat runtime: one live table = one :class:`~agent.game.tracker.Tracker` + one player +
one connector's stream of events (docs/architecture.md, "The seat runtime"). IRC and ACPC tables both
use it, so deadlines, learning and storage behave the same at every table.

A connector calls, on its own I/O thread:

* :meth:`Seat.feed` with each event it translated from the wire. The tracker checks it;
  an impossible event abandons the hand (logged, counted, the hand is not stored) and
  the rest of that hand's events are ignored until the next ``HandStarted``. Accepted
  events reach the player's hand hooks (``new_hand`` / ``observe`` / ``end_hand`` of
  agent.players.interface, those it overrides, as agent.play.offline.dealer calls them: every
  public event, and our own hole cards).
* :meth:`Seat.decide` (or :meth:`Seat.decide_async`) when the tracker says it is our
  turn. The player is asked on the seat's worker thread, never on the caller's; if it
  has not answered by the deadline the seat answers a safe fallback (below) and counts
  the miss. The answer is always legal in the tracker's state.

One exception: a player that declares ``instant = True`` (a constant-time house bot such
as always-call) and overrides no hand hook is asked on the caller's thread. It cannot
miss a deadline, and a hop to the worker and back (tens of microseconds, more on a busy
machine) would cost far more than its decision; fast tables (the ACPC bench) measure
the connector, not thread switches.

Every other call into the player (hooks and decisions) and into the hand sink runs on ONE
worker thread, in the order the events came. So a player that is not thread-safe (the
Poki engine, a SQLite connection opened with :meth:`Seat.run`) is only ever touched from
that thread, and a slow database write never holds up the I/O thread. A decision that
comes late still runs to its end on the worker (Python threads cannot be killed); the
calls queued behind it wait, and its answer is dropped.

A slow engine can leave its best action so far where the seat finds it at the deadline:
the player's ``interim = (ctx, action)`` (declared by the interface, None by default),
set during ``act(ctx)`` and replaced as its search improves (one attribute assignment,
so safe to read from another thread). At the deadline the seat answers that action when
it belongs to this very decision (``ctx`` is the context the seat passed) and is legal.

The fallback when the player is late with nothing better: check when checking is free,
otherwise call.
Folding is never the fallback: a late engine says nothing about the strength of its
hand, a limit call costs one bet while a fold forfeits the whole pot, and calling is
what the ACPC dealer itself does with a missing or invalid action, so the hand the
table plays is the hand the dealer would have made of it.

When a hand ends the seat hands its :class:`~agent.game.records.HandRecord` to the injected
``sink`` (e.g. a database writer; on the worker thread, after the player's ``end_hand``)
and adds our result to :class:`SeatStats` (net chips, small bets per hand, a 95%
interval). A hand the sink did not store is counted in ``not_stored`` with the reason
(the sink raised, or its :class:`~agent.game.records.WriteReport` says it was refused),
and one it found stored already in ``already_stored``, so a table never reports hands as
stored that are not.
"""
from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar, cast

import numpy as np

from agent.game.context import GameContext
from agent.game.events import Event, HandStarted, HoleCards
from agent.game.records import HandRecord, WriteReport
from agent.game.rules import Action, Phase
from agent.game.tracker import Tracker, TrackerError
from agent.players import Player

__all__ = ["Seat", "SeatError", "SeatStats", "fallback_action", "table_generator"]

log = logging.getLogger("poki.seat")

T = TypeVar("T")
HandSink = Callable[[HandRecord], Any]


class SeatError(RuntimeError):
    """A seat asked to do something it cannot do now (decide when it is not our turn,
    use it after close)."""


def table_generator(seed: int, table: int = 0) -> np.random.Generator:
    """The generator of the player a live runner seats at its ``table``-th table, from the
    command's seed: ``default_rng(seed)`` for the first (so `poki acpc play --seed S`, the
    first table of `poki irc play --seed S` and a player built in-process from the same
    seed draw the same numbers), ``default_rng([seed, table])`` for the others."""
    return np.random.default_rng(seed if table == 0 else [seed, table])


def fallback_action(ctx: GameContext) -> Action:
    """The answer for a player that missed its deadline: check if free, else call (see
    the module docstring for why never fold)."""
    legal = ctx.legal_actions
    if Action.CHECK_CALL in legal:
        return Action.CHECK_CALL
    return Action.FOLD if Action.FOLD in legal else legal[0]


@dataclass
class SeatStats:
    """Counters and our running result at one table."""

    hands: int = 0  # hands finished and handed to the sink
    hands_abandoned: int = 0  # hands given up because an event was impossible
    events: int = 0  # events accepted by the tracker
    events_refused: int = 0  # events the tracker refused (each abandons its hand)
    events_skipped: int = 0  # events of an abandoned hand, ignored
    decisions: int = 0
    late: int = 0  # decisions the player missed: its best so far or the fallback answered
    interim: int = 0  # of those, answered with the player's best action so far
    illegal: int = 0  # decisions the player answered with an illegal move: the fallback
    player_errors: int = 0  # exceptions raised by the player (hooks or act)
    sink_errors: int = 0  # exceptions raised by the sink
    not_stored: int = 0  # hands given to the sink and not stored (errors, refusals)
    already_stored: int = 0  # hands the sink found stored already (the same hand)
    net_chips: int = 0  # our chips won minus put in over the finished hands
    decision_seconds: float = 0.0  # time spent waiting for decisions
    last_error: str = ""
    last_storage_error: str = ""  # why the last hand not stored was not
    # Sums of our result per finished hand, in small bets, and of its square: the mean
    # and its interval without keeping every hand (a live table runs for weeks).
    _sb_sum: float = 0.0
    _sb_sq: float = 0.0

    def add_result(self, small_bets: float) -> None:
        self._sb_sum += small_bets
        self._sb_sq += small_bets * small_bets

    @property
    def sb_per_hand(self) -> float:
        return self._sb_sum / self.hands if self.hands else 0.0

    @property
    def interval95(self) -> float:
        """Half-width of the 95% confidence interval of :attr:`sb_per_hand` (normal
        approximation over hands; 0 with fewer than two hands)."""
        n = self.hands
        if n < 2:
            return 0.0
        mean = self._sb_sum / n
        var = max(0.0, (self._sb_sq - n * mean * mean) / (n - 1))
        return 1.96 * math.sqrt(var / n)


_STOP = object()


class Seat:
    """One player at one live table; see the module docstring.

    ``player`` is any agent.players Player; ``me`` the name our seat has in the events
    (default: the player's name). ``sink`` receives each finished hand's record;
    ``source`` names the table in log messages.
    """

    def __init__(self, player: Player, *, me: str | None = None,
                 sink: HandSink | None = None, source: str = "seat") -> None:
        self.player = player
        self.me = me or player.name
        self.sink = sink
        self.source = source
        self.tracker = Tracker(self.me)
        self.stats = SeatStats()
        self._hooks = player.hand_hooks()  # only those the player overrides are called
        # See the module docstring: constant-time players without hand hooks decide inline.
        self._inline = player.instant and not any(self._hooks)
        self._broken: str | None = None  # why the current hand was abandoned
        self._closed = False
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._worker = threading.Thread(target=self._work, name=f"seat:{self.me}", daemon=True)
        self._worker.start()

    # --- the worker thread ---------------------------------------------------------------

    def _work(self) -> None:
        jobs = self._jobs
        while True:
            job = jobs.get()
            if job is _STOP:
                return
            fn, args, reply = job
            try:
                result = fn(*args)
            except BaseException as exc:  # noqa: BLE001 - reported, the worker goes on
                if reply is None:
                    self._player_failed(fn, exc)
                else:
                    reply(False, exc)
            else:
                if reply is not None:
                    reply(True, result)

    def _player_failed(self, fn: Callable, exc: BaseException) -> None:
        self.stats.player_errors += 1
        self.stats.last_error = f"{self.source}: {getattr(fn, '__name__', fn)} raised {exc!r}"
        log.error("%s", self.stats.last_error)

    def _post(self, fn: Callable, *args: Any) -> None:
        self._jobs.put((fn, args, None))

    def _submit(self, fn: Callable[..., T], *args: Any) -> Future:
        if self._closed:
            raise SeatError(f"{self.source}: the seat is closed")
        future: Future = Future()

        def reply(ok: bool, value: Any) -> None:
            if future.set_running_or_notify_cancel():
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)

        self._jobs.put((fn, args, reply))
        return future

    def run(self, fn: Callable[..., T], *args: Any, timeout: float | None = None) -> T:
        """Run ``fn(*args)`` on the seat's worker thread (after everything queued) and
        return its result: for objects that must live on the player's thread, such as a
        SQLite connection shared by the player and the sink."""
        return self._submit(fn, *args).result(timeout)

    # --- events ------------------------------------------------------------------------------

    @property
    def hand_ok(self) -> bool:
        """The current hand is being followed (not abandoned)."""
        return self._broken is None

    @property
    def broken_reason(self) -> str | None:
        return self._broken

    def feed(self, event: Event) -> HandRecord | None:
        """Apply one event from the connector; returns the hand's record when the event
        finished it. An impossible event abandons the hand: logged, counted, returns None
        (see the module docstring); it never raises for bad input."""
        stats = self.stats
        if type(event) is HandStarted:
            if self._broken is None and self.tracker.in_hand:
                self._abandon("a new hand started before this one ended")
            self._broken = None
        elif self._broken is not None:
            stats.events_skipped += 1
            return None
        try:
            record = self.tracker.apply(event)
        except TrackerError as exc:
            stats.events_refused += 1
            if type(event) is HandStarted:
                self._broken = f"refused start: {exc}"
                stats.hands_abandoned += 1
                stats.last_error = str(exc)
                log.error("%s: hand refused: %s", self.source, exc)
            else:
                self._abandon(str(exc))
            return None
        stats.events += 1
        new_hand, observe, end_hand = self._hooks
        if type(event) is HandStarted:
            if new_hand is not None:
                self._post(new_hand, event)
        elif observe is not None and (type(event) is not HoleCards or event.player == self.me):
            self._post(observe, event)
        if record is not None:
            self._finished(record)
        return record

    def abandon(self, reason: str) -> bool:
        """Give up the hand in progress (the connector lost the table, or the dealer
        voided it): it is not stored and the rest of its events are ignored until the
        next ``HandStarted``. False when no hand was being followed."""
        if self._broken is not None or not self.tracker.in_hand:
            return False
        self._abandon(reason)
        return True

    def _abandon(self, reason: str) -> None:
        self._broken = reason
        self.stats.hands_abandoned += 1
        self.stats.last_error = reason
        log.error("%s: hand abandoned, not stored: %s", self.source, reason)

    def _finished(self, record: HandRecord) -> None:
        stats = self.stats
        _, observe, end_hand = self._hooks
        for result in record.results:
            if result.player == self.me:
                net = result.won - result.put_in
                stats.net_chips += net
                stats.add_result(net / record.small_bet)
                break
        else:
            stats.add_result(0.0)
        stats.hands += 1
        if end_hand is not None:
            self._post(end_hand, record)
        if self.sink is not None:
            self._post(self._sink, record)

    def _sink(self, record: HandRecord) -> None:
        try:
            report = self.sink(record)  # type: ignore[misc]  # checked not None where the seat was made
        except Exception as exc:  # noqa: BLE001 - a storage failure must not stop play
            self.stats.sink_errors += 1
            self._not_stored(record, f"storing it failed: {exc}")
            return
        if isinstance(report, WriteReport):
            if report.duplicates:
                # The same hand (the store's id names its content) is in the store already.
                self.stats.already_stored += 1
                log.warning("%s: hand %s was already stored", self.source, record.hand_id)
            for _, reason in report.rejected:
                self._not_stored(record, f"the database refused it: {reason}")

    def _not_stored(self, record: HandRecord, why: str) -> None:
        self.stats.not_stored += 1
        self.stats.last_error = f"{self.source}: hand {record.hand_id} not stored: {why}"
        self.stats.last_storage_error = self.stats.last_error
        log.error("%s", self.stats.last_error)

    # --- decisions -----------------------------------------------------------------------

    @property
    def our_turn(self) -> bool:
        """The tracker is waiting for an action from our seat (in a hand not abandoned)."""
        st = self.tracker.state
        if st is None or self._broken is not None or not self.tracker.in_hand:
            return False
        if st.phase == Phase.HOLE_DEALING:
            # Cards the source never gives (opponents') are face down once play starts.
            self.tracker.snapshot(self.me)
        actor = st.actor
        return (st.phase == Phase.BETTING and actor is not None
                and self.tracker.hand.players[actor] == self.me)  # type: ignore[union-attr]  # asked only with a hand in play

    def _context(self) -> GameContext:
        if not self.our_turn:
            raise SeatError(f"{self.source}: not our turn (the hand is waiting for "
                            f"{self.tracker.waiting_for})")
        return self.tracker.snapshot(self.me)

    def _checked(self, ctx: GameContext, action: object) -> Action:
        if action in ctx.legal_actions:
            # Action(...) goes through the enum's Python-level __call__: skipped when the
            # player already answered an Action (the usual case, on every decision). Any
            # other answer equal to a legal Action is its int value (Action is an IntEnum).
            return action if type(action) is Action else Action(cast(int, action))
        self.stats.illegal += 1
        self.stats.last_error = (f"{self.source} hand {ctx.hand_id}: {self.player.name} "
                                 f"answered {action!r}, not legal; fallback answered")
        log.warning("%s", self.stats.last_error)
        return fallback_action(ctx)

    def _late(self, ctx: GameContext, deadline_s: float | None) -> Action:
        self.stats.late += 1
        interim = self.player.interim
        if (type(interim) is tuple and len(interim) == 2 and interim[0] is ctx
                and interim[1] in ctx.legal_actions):
            self.stats.interim += 1
            self.stats.last_error = (f"{self.source} hand {ctx.hand_id}: {self.player.name} did "
                                     f"not finish within {deadline_s:g} s; its best action so far "
                                     "answered")
            log.warning("%s", self.stats.last_error)
            return Action(interim[1])
        self.stats.last_error = (f"{self.source} hand {ctx.hand_id}: {self.player.name} did not "
                                 f"decide within {deadline_s:g} s; fallback answered")
        log.warning("%s", self.stats.last_error)
        return fallback_action(ctx)

    @property
    def follows_events(self) -> bool:
        """Whether the seat needs every event. An instant player without hand hooks and a
        seat without a sink do not: a dealer that owns the hand's rules state may instead ask
        :meth:`decide_on` with its own snapshot and report the end with :meth:`hand_done`,
        sparing a second tracker the same events (agent.play.acpc.dealer does)."""
        return not self._inline or self.sink is not None

    def decide_on(self, ctx: GameContext) -> Action:
        """Our action in ``ctx``, a snapshot for our seat from the table's own tracker (the
        context our tracker would give). Only when :attr:`follows_events` is False; the
        player answers on the caller's thread, as an instant player does in :meth:`decide`."""
        if self.follows_events:
            raise SeatError(f"{self.source}: this seat follows the events; use decide()")
        if self._closed:
            raise SeatError(f"{self.source}: the seat is closed")
        self.stats.decisions += 1
        try:
            return self._checked(ctx, self.player.act(ctx))
        except Exception as exc:  # noqa: BLE001 - the player's failure is counted and answered, play goes on
            self._player_failed(self.player.act, exc)
            return fallback_action(ctx)

    def hand_done(self, record: HandRecord) -> None:
        """A hand played through :meth:`decide_on` ended: counted as :meth:`feed` counts
        a HandEnded."""
        self._finished(record)

    def _tell_deadline(self, deadline_s: float | None) -> None:
        # A player that can budget its time (Poki's simulator) is told the decision's
        # deadline before it acts; the interface's default ignores it.
        self.player.set_deadline(deadline_s)

    def decide(self, deadline_s: float | None = None) -> Action:
        """Our action now: the player's if it answers within ``deadline_s`` seconds
        (None: wait as long as it takes), else the fallback. Raises SeatError when it is
        not our turn."""
        ctx = self._context()
        if self._closed:
            raise SeatError(f"{self.source}: the seat is closed")
        self.stats.decisions += 1
        self._tell_deadline(deadline_s)
        if self._inline:
            try:
                return self._checked(ctx, self.player.act(ctx))
            except Exception as exc:  # noqa: BLE001 - the player's failure is counted and answered, play goes on
                self._player_failed(self.player.act, exc)
                return fallback_action(ctx)
        t0 = time.perf_counter()
        # A queue of one answer rather than a Future: a decision is the hot path of a
        # fast table, and the queue's C-level get with a timeout is the cheapest wait.
        answers: queue.SimpleQueue = queue.SimpleQueue()
        self._jobs.put((self.player.act, (ctx,), lambda ok, value: answers.put((ok, value))))
        try:
            ok, value = answers.get(timeout=deadline_s)
        except queue.Empty:
            action = self._late(ctx, deadline_s)
        else:
            if ok:
                action = self._checked(ctx, value)
            else:
                self._player_failed(self.player.act, value)
                action = fallback_action(ctx)
        self.stats.decision_seconds += time.perf_counter() - t0
        return action

    def decide_async(self, deadline_s: float | None, callback: Callable[[Action], Any], *,
                     call_later: Callable[[float, Callable[[], Any]], Any] | None = None) -> None:
        """As :meth:`decide` without blocking: ``callback(action)`` is called exactly
        once, from another thread, with the player's action, or at the deadline with its
        best action so far (``interim``) or the fallback. The player is told the deadline
        first (``set_deadline``), as :meth:`decide` tells it. For connectors with their own
        event loop: ``call_later(seconds, fn)`` (returning something with ``cancel()``)
        runs the deadline on that loop rather than on a timer thread of its own."""
        ctx = self._context()
        self.stats.decisions += 1
        self._tell_deadline(deadline_s)
        t0 = time.perf_counter()
        lock = threading.Lock()
        done = [False]

        def answer(action: Action) -> None:
            with lock:
                if done[0]:
                    return
                done[0] = True
            self.stats.decision_seconds += time.perf_counter() - t0
            try:
                callback(action)
            except Exception as exc:  # noqa: BLE001 - the player's failure is counted and answered, play goes on
                log.error("%s: decision callback raised %r", self.source, exc)

        timer: Any = None

        def from_player(future: Future) -> None:
            with lock:
                if done[0]:
                    return
            exc = future.exception()
            if exc is not None:
                self._player_failed(self.player.act, exc)
                answer(fallback_action(ctx))
            else:
                answer(self._checked(ctx, future.result()))
            if timer is not None:
                timer.cancel()

        def at_deadline() -> None:
            with lock:
                if done[0]:
                    return
            answer(self._late(ctx, deadline_s))

        if deadline_s is not None:
            if call_later is None:
                timer = threading.Timer(deadline_s, at_deadline)
                timer.daemon = True
                timer.start()
            else:
                timer = call_later(deadline_s, at_deadline)
        future = self._submit(self.player.act, ctx)
        future.add_done_callback(from_player)

    # --- end ---------------------------------------------------------------------------------

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every queued hook and sink call has run; False on timeout."""
        if self._closed:
            return True
        try:
            self.run(lambda: None, timeout=timeout)
        except TimeoutError:
            return False
        return True

    def close(self, timeout: float | None = 30.0) -> bool:
        """Run what is queued, then stop the worker; False if it did not stop in time
        (a player stuck in a decision)."""
        if self._closed:
            return True
        self._closed = True
        self._jobs.put(_STOP)
        self._worker.join(timeout)
        return not self._worker.is_alive()

    def __enter__(self) -> Seat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
