"""ACPC tables: the glue between the ACPC protocol (connectors.acpc), the seat runtime
(agent.play.seat), players and the opponent database.

* :class:`AcpcSession` is one player's side of the protocol: MATCHSTATE lines in, events
  to the seat, our answer out when it is our turn; :func:`play_at_dealer` runs it over a
  TCP connection (connectors.acpc.client) to any ACPC dealer.
* :func:`host_match` runs our dealer (agent.play.acpc.dealer) with remote players and
  in-process seats; an in-process seat is a seat runtime the dealer feeds events and
  asks for decisions directly (no text in between).
* Every decision has a deadline (:class:`DecisionClock`, from config ``[acpc]``): the
  ACPC dealer ends the whole match when a player breaches its limits (by default 600 s
  per response and 7 s per hand on average over the match), so a slow engine must
  answer in time; the seat answers its fallback (check, else call) when the engine is
  late.
* Finished hands go to the opponent database through the seat's sink, to the database
  writer thread (agent.play.stores, as at IRC tables); a Poki player reads and writes its
  opponents' models through the same thread, attached as every runner attaches them.
"""
from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TextIO

import numpy as np

from agent.config import AcpcConfig
from agent.game.events import HandEnded
from agent.game.records import with_content_id
from agent.game.rules import Action, Phase
from agent.game.tracker import Tracker, TrackerError
from agent.play.acpc.dealer import AcpcDealer, DealerLimits, LocalSeat, MatchOutcome
from agent.play.kinds import ensure_kinds
from agent.play.seat import Seat, SeatStats
from agent.play.stores import DatabaseWriter
from agent.players import Player, create_player
from connectors.acpc.client import AcpcConnection, DealerSilent
from connectors.acpc.game import AcpcGame
from connectors.acpc.protocol import (
    MatchState,
    ProtocolError,
    StateTranslator,
    format_response,
    is_comment,
)

__all__ = [
    "AcpcSession",
    "ClientResult",
    "DecisionClock",
    "host_match",
    "play_at_dealer",
]

log = logging.getLogger("poki.acpc")
NETWORK = "acpc"


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """Everything alive when a match starts (modules, the player's tables, numpy) is kept
    out of the garbage collector's walks until it ends: a fast table allocates records
    and events by the thousand, and each full collection would otherwise walk the whole
    heap again. Nothing is kept alive longer by this."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class DecisionClock:
    """Deadlines that keep us inside an ACPC dealer's limits: at most ``per_decision``
    seconds a decision, and no more than ``per_hand`` seconds a hand on average over the
    match so far (the dealer's match-wide average); never below ``floor``."""

    def __init__(self, per_decision: float, per_hand: float, floor: float = 0.05) -> None:
        self.per_decision = per_decision
        self.per_hand = per_hand
        self.floor = floor
        self.hands = 0
        self.used = 0.0

    def new_hand(self) -> None:
        self.hands += 1

    def deadline(self) -> float:
        left = self.per_hand * self.hands - self.used
        return max(self.floor, min(self.per_decision, left))

    def spent(self, seconds: float) -> None:
        self.used += seconds


class AcpcSession:
    """Our side of the protocol for one seat (module docstring). ``on_line`` takes each
    dealer line and returns our answer, or None when we do not act."""

    put_off_ends = False  # this path settles each hand as its last line is read

    def __init__(self, game: AcpcGame, seat: Seat, *, names: Sequence[str] = (),
                 match: str = "acpc", source: str = "acpc",
                 clock: DecisionClock | None = None,
                 hand_clock: Callable[[], float] | None = None) -> None:
        self.game = game
        self.seat = seat
        self.source = source
        self.translator = StateTranslator(game, seat.me, names=names, match=match, source=source,
                                          clock=hand_clock)
        self.clock = clock
        self.lines = 0
        self.errors = 0
        self.answers = 0
        self.last_error = ""
        self._broken_hand: int | None = None  # the hand whose states no longer continue

    def _error(self, message: str) -> None:
        self.errors += 1
        self.last_error = message
        log.error("%s", message)

    def on_line(self, line: str) -> str | None:
        if is_comment(line):
            return None
        self.lines += 1
        where = f"{self.source} line {self.lines}"
        translator = self.translator
        last = translator.last
        seat = self.seat
        try:
            read_state, events = translator.read(line, where)
        except ProtocolError as exc:
            try:
                state = translator.parse(line, where)
            except ProtocolError:
                self._error(f"{exc}; ignored")
                return None
            if self._broken_hand != state.hand_number:
                self._broken_hand = state.hand_number
                self._error(f"{exc}; the hand is abandoned")
                seat.abandon(str(exc))
            return self._broken_turn(state)
        if read_state is None:  # read() leaves out the state only when asked for no events
            raise RuntimeError(f"{where}: the translator read the line without its state")
        state = read_state
        new_hand = last is None or last.hand_number != state.hand_number
        if new_hand and self.clock is not None:
            self.clock.new_hand()
        for event in events:
            seat.feed(event)
        if not seat.hand_ok:
            return self._broken_turn(state)
        if translator.hand_over or not seat.our_turn:
            return None
        deadline = self.clock.deadline() if self.clock is not None else None
        t0 = time.perf_counter()
        action = seat.decide(deadline)
        if self.clock is not None:
            self.clock.spent(time.perf_counter() - t0)
        self.answers += 1
        return format_response(state.text, action)

    def _broken_turn(self, state: MatchState) -> str | None:
        """In a hand we no longer follow, still answer when the state is our turn (a
        dealer ends the match on a missing answer): the rules, replayed on a scratch
        tracker from this state alone, say whose turn it is; we call."""
        if self._our_turn_alone(state):
            self.answers += 1
            return format_response(state.text, Action.CHECK_CALL)
        return None

    def _our_turn_alone(self, state: MatchState) -> bool:
        scratch = StateTranslator(self.game, self.seat.me, match="scratch")
        tracker = Tracker()
        try:
            for event in scratch.update(state):
                if type(event) is HandEnded:
                    return False
                tracker.apply(event)
            tracker.snapshot()
        except (ProtocolError, TrackerError):
            return False
        st = tracker.state
        return st is not None and st.phase == Phase.BETTING and st.actor == state.position

    def catch_up(self) -> None:
        """Work put off until our answer is out (none on this path: every event reaches
        the seat as its line is read)."""

    @property
    def mid_hand(self) -> bool:
        return self.translator.last is not None and not self.translator.hand_over


def _open_models(seat: Seat, db_path: str | None, network: str, settings: Any = None) -> DatabaseWriter | None:
    """The opponent database at ``db_path`` on its own writer thread (as at IRC tables):
    finished hands go there through the seat's sink, and the player reads and writes its
    models through the same thread (agent.play.stores). Returns the writer (None: no
    database)."""
    if db_path is None:
        return None
    kwargs: dict[str, Any] = {"half_life": None}
    if settings is not None:
        kwargs = {"synchronous": settings.database.synchronous, "half_life": settings.model.half_life_hands}
    writer = DatabaseWriter(db_path, **kwargs)
    try:
        seat.player.attach_store(writer.models(), network)
    except BaseException:
        writer.close()
        raise
    # Stored under an id that names the hand's content (when it was dealt, who sat, what
    # happened): a reused match name or a hand number the dealer repeats never makes a
    # new hand look stored already.
    seat.sink = lambda record: writer.write(with_content_id(record), network)
    return writer


def _count_storage(stats: SeatStats, writer: DatabaseWriter) -> None:
    """Add what the (closed) writer did with the seat's hands to its stats: the writer
    stores them on its own thread, so the sink's return says nothing. A hand handed over
    and neither stored nor found stored already counts as not stored."""
    stats.already_stored += writer.duplicates
    unaccounted = stats.hands - stats.not_stored - writer.stored - writer.duplicates
    if unaccounted > 0:
        stats.not_stored += unaccounted
        stats.last_storage_error = writer.last_error or (
            f"{unaccounted} hand(s) still waiting for the database writer when it was closed")


@dataclass
class ClientResult:
    hands: int
    stats: SeatStats
    protocol_errors: int
    ended_mid_hand: bool
    dealer: str
    messages: list[str] = field(default_factory=list)
    storing: bool = False  # finished hands went to a database
    lost: bool = False  # the connection broke or the dealer went silent
    cut_line: int = 0  # bytes of a line the dealer's stream ended in the middle of

    @property
    def stored(self) -> int:
        """Finished hands stored by this match (0 when not storing)."""
        s = self.stats
        return s.hands - s.not_stored - s.already_stored if self.storing else 0

    @property
    def complete(self) -> bool:
        """The dealer closed the match between hands, every hand was followed to its
        end and, when storing, every one of them was stored."""
        s = self.stats
        return (not self.lost and not self.ended_mid_hand and not s.hands_abandoned
                and not (self.storing and s.not_stored) and not self.cut_line
                and s.hands > 0)  # a match of no hand is a wrong port or a dealer that broke off

    def failure(self) -> str | None:
        """Why the match is not :attr:`complete`, in one line; None when it is."""
        if self.complete:
            return None
        s = self.stats
        if self.lost:
            return self.messages[0] if self.messages else "the connection was lost"
        if self.cut_line:
            return f"the dealer closed the connection in the middle of a line ({self.cut_line} bytes of it)"
        if self.ended_mid_hand:
            return "the dealer closed the match in the middle of a hand"
        if s.hands_abandoned:
            return f"{s.hands_abandoned} hand(s) abandoned"
        if self.storing and s.not_stored:
            return f"{s.not_stored} hand(s) not stored"
        if self.protocol_errors:
            return (f"the dealer closed the connection having dealt no hand; none of its {self.protocol_errors} "
                    f"line(s) was a state of the match (is it an ACPC dealer?)")
        return "the dealer closed the connection having dealt no hand"

    def summary(self, name: str) -> str:
        s = self.stats
        lines = [f"{self.dealer}: {self.hands} hands played as {name}",
                 f"result: {s.sb_per_hand:+.3f} sb/hand ± {s.interval95:.3f} (95%), "
                 f"{s.net_chips:+d} chips"]
        problems = []
        if s.late:
            problems.append(f"{s.late} late decisions answered by the fallback")
        if s.hands_abandoned:
            problems.append(f"{s.hands_abandoned} hands abandoned")
        if self.protocol_errors:
            problems.append(f"{self.protocol_errors} bad lines from the dealer")
        if s.not_stored:
            problems.append(f"{s.not_stored} hands not stored (the last: {s.last_storage_error})")
        if s.already_stored:
            problems.append(f"{s.already_stored} hands already in the database (the same hand: same start, "
                            "cards and actions), not stored twice")
        if self.ended_mid_hand:
            problems.append("the dealer closed the match in the middle of a hand")
        if self.cut_line:
            problems.append(f"the dealer's stream ended in the middle of a line ({self.cut_line} bytes)")
        problems.extend(self.messages)
        if problems:
            lines.append("problems: " + "; ".join(problems))
        return "\n".join(lines)


def play_at_dealer(host: str, port: int, player: Player, game: AcpcGame, *,
                   config: AcpcConfig | None = None, db_path: str | None = None,
                   settings: Any = None, names: Sequence[str] = (), match: str | None = None,
                   progress: Callable[[int], None] | None = None,
                   connect_timeout: float = 30.0,
                   on_ready: Callable[[str], None] | None = None) -> ClientResult:
    """Connect to an ACPC dealer, greet, play every hand it deals with ``player`` until it
    closes the match; finished hands go to the database at ``db_path`` (None: nowhere).
    A dealer silent for ``config.dealer_timeout`` seconds ends the match for us (the
    result says so: ``lost``). ``on_ready`` is told what the player runs with (bettor,
    predictor, floor, store) once its models are attached, before connecting."""
    config = config or AcpcConfig()
    where = f"dealer {host}:{port}"
    match = match or f"acpc:{host}:{port}:{int(time.time())}"
    seat = Seat(player, source=where)
    try:
        writer = _open_models(seat, db_path, NETWORK, settings)
    except BaseException:
        seat.close()
        raise
    if on_ready is not None:
        on_ready(player.describe())
    clock = DecisionClock(config.decision_deadline, config.hand_budget)
    if seat.follows_events:
        session = AcpcSession(game, seat, names=names, match=match, source=where, clock=clock,
                              hand_clock=time.time)
    else:
        # No hooks, no sink: the lean path answers from the betting string
        # (agent.play.acpc.lean); its answers and summary are the full path's.
        from agent.play.acpc.lean import LeanSession

        session = LeanSession(game, seat, names=names, match=match, source=where, clock=clock)
    try:
        conn = AcpcConnection(host, port, timeout=connect_timeout, max_line=config.max_line_bytes,
                              silence=config.dealer_timeout)
    except ConnectionError:
        if writer is not None:
            writer.close()
        seat.close()
        raise
    counted = [0]  # hands reported to ``progress``
    stats = seat.stats

    def after_send() -> None:
        # While the dealer reads our answer: hands whose end was put off are settled,
        # and the progress bar moves.
        session.catch_up()
        if progress is not None:
            done = stats.hands + stats.hands_abandoned
            if done > counted[0]:
                progress(done - counted[0])
                counted[0] = done

    session.put_off_ends = True
    lost = ""
    try:
        conn.greet()
        with _frozen_heap():
            conn.serve(session.on_line, after_send)
    except DealerSilent as exc:
        last = session.translator.last
        waited = ("the first state of the match" if last is None else
                  f"the next state of hand {last.hand_number}" if session.mid_hand else
                  f"the state after hand {last.hand_number}")
        lost = f"{exc} while we waited for {waited}; the match is given up"
        log.error("%s", lost)
    except (ConnectionError, OSError) as exc:
        lost = str(exc) if str(exc).startswith(where) else f"{where}: connection lost: {exc}"
        log.error("%s", lost)
    finally:
        # A stream that ends inside a line broke off, whatever came before it.
        cut = conn.framer.pending if conn.closed_by_peer else 0
        conn.close()
        session.catch_up()
        mid = session.mid_hand
        last = session.translator.last
        if mid and last is not None:  # mid_hand: a state was read (and its hand is not over)
            log.warning("%s closed the match in the middle of hand %d; that hand is not stored",
                        where, last.hand_number)
        seat.flush(60)
        if writer is not None:
            writer.close()
            _count_storage(seat.stats, writer)
        seat.close()
    return ClientResult(seat.stats.hands, seat.stats, session.errors, mid, where,
                        [lost] if lost else [], storing=db_path is not None, lost=bool(lost), cut_line=cut)


def host_match(game: AcpcGame, names: Sequence[str], hands: int, seed: int, *,
               seats: dict[int, str] | None = None, config: AcpcConfig | None = None,
               host: str | None = None, ports: Sequence[int | None] = (),
               log_file: TextIO | None = None, game_name: str = "game",
               match_name: str = "poki", on_listen: Callable[[list[int]], None] | None = None,
               progress: Callable[[int], None] | None = None,
               limits: DealerLimits | None = None,
               fast: bool = True) -> tuple[MatchOutcome, dict[int, SeatStats]]:
    """Run our dealer: ``seats`` maps seat indexes to player specs played in-process; the
    others are remote and connect to the ports passed to ``on_listen`` (called once the
    sockets listen, before waiting for players). ``fast=False`` keeps the dealer on its
    rules state for every hand (the hand driver's rules mode, agent.play.hand_driver)."""
    config = config or AcpcConfig()
    ensure_kinds()
    local: dict[int, Seat] = {}
    root = np.random.SeedSequence(seed)
    player_seeds = root.spawn(len(names))
    for index, spec in (seats or {}).items():
        player = create_player(spec, np.random.default_rng(player_seeds[index]), names[index])
        local[index] = Seat(player, me=names[index], source=f"seat {index + 1} ({names[index]})")
    limits = limits or DealerLimits(config.response_timeout, config.budget_per_hand,
                                    config.connect_timeout or None, config.max_line_bytes,
                                    config.greet_timeout)
    # The dealer takes its in-process seats as LocalSeat (and copies the mapping).
    in_process: dict[int, LocalSeat] = dict(local)
    dealer = AcpcDealer(game, names, hands, seed, game_name=game_name, match_name=match_name,
                        host=host or config.host, ports=ports, local=in_process, limits=limits,
                        log_file=log_file, fast=fast)
    try:
        ports_open = dealer.listen()
        if on_listen is not None:
            on_listen(ports_open)
        dealer.wait_for_players()
        with _frozen_heap():
            outcome = dealer.run(progress)
    finally:
        dealer.close()
        for seat in local.values():
            seat.close()
    return outcome, {i: s.stats for i, s in local.items()}
