"""Our ACPC dealer: hosts a limit hold'em match over TCP for any program that speaks the
ACPC protocol 2.0.0 (connectors.acpc.protocol), as project_acpc_server's ``dealer``
does, with the game from an ACPC game definition (connectors.acpc.game).

One listening socket per remote seat, on loopback unless told otherwise; the ports are
known before anyone connects (the command prints them as its first line, as the ACPC
dealer does). Every player connects, greets with ``VERSION:2.0.0``, and then gets its
view after every event; the dealer deals ``hands`` hands from a seeded
``numpy.random.Generator`` and moves every seat one position each hand (seat s plays
position (s - hand) mod n, position 0 being the first after the button), so a seed gives
the same cards, the same positions and, with the same players, the same log.

Every hand runs on the hand driver (agent.play.hand_driver), in its rules mode (the
tracker over agent.game.rules) or, when no in-process seat follows the events and there
are no stacks, in its fast mode (the rules engine's answers kept per betting string,
agent.game.betting): the same states, answers and log either way. The states are written
by the protocol's writer (connectors.acpc.protocol.format_matchstate); each hand's log
line is the ``STATE:`` line of connectors.logs.acpc_log, and the match ends with its
``SCORE:`` line, which ``poki replay`` reads.

Misbehaving players never stop the others' match (and unlike the ACPC dealer, which ends
the whole match, the match goes on):

* a line that is not a response, or answers a state that is not the current one, is
  logged and ignored (the ACPC dealer's "un-requested response");
* a malformed or invalid action is logged and taken as a call (the ACPC dealer's rule);
  an action is read as the ACPC dealer reads it (protocol.parse_action: its first letter
  decides, so ``r100`` in a limit game is a raise);
* no answer within ``response_timeout`` seconds is taken as a call; a seat whose
  answers have used more than ``budget_per_hand`` seconds per hand of the match is
  folded for the rest of the match (it checks when checking is free: folding is not a
  legal move then);
* a disconnected seat is folded (or checks) from then on;
* over-long lines (1 MB) are dropped (connectors.acpc.client.LineFramer).

A hand is a strict back-and-forth with each remote player, so whatever can wait is put
off until the dealer next waits for a remote answer and done while that player thinks:
the in-process seats' events (each seat catches up before it decides) and the finished
hands' log lines (the file is flushed a few times a second). States for a remote
player are written together when it is next asked to act (or the match ends).

In-process seats (house bots, Poki) are injected objects with the seat runtime's calls
(``LocalSeat``: ``feed(event)``, ``decide(deadline_s) -> Action``, ``follows_events``,
``decide_on(ctx)``, ``hand_done(record)``; agent.play.seat.Seat has them), so the dealer
never imports players: each gets the events of the hand as its
player sees them (its own hole cards, every action and board, the cards shown at the
showdown) and is asked for its move when it is its turn, with ``response_timeout`` as
the deadline. No text goes between the dealer and them. A seat that says it does not
follow the events (``follows_events`` False: a constant-time house bot with no hand
hooks, agent.play.seat) is instead asked ``decide_on(ctx)`` with the dealer's own snapshot for
its seat, which shows it exactly what its own tracker would, and told ``hand_done(record)``
when a hand ends: one tracker fewer fed every event.
"""
from __future__ import annotations

import logging
import select
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from agent.game.betting import BettingCache
from agent.game.events import CardsShown, Event, HandStarted, HoleCards
from agent.game.rules import Action
from agent.game.slots import slot_constructor
from agent.play.acpc.dealer_seats import (
    MAX_CALLERS,
    Caller,
    DealerError,
    DealerLimits,
    LocalSeat,
    MatchOutcome,
    SeatReport,
    TableSeat,
)
from agent.play.deals import SeededDeals
from agent.play.hand_driver import BOARD, ENDED, OVER, HandDriver
from connectors.acpc.client import LineFramer, SocketPoller, socket_timeval
from connectors.acpc.game import AcpcGame
from connectors.acpc.protocol import (
    NO_STACK,
    VERSION_LINE,
    ProtocolError,
    format_matchstate,
    is_comment,
    parse_action,
    parse_response,
    parse_version,
)
from connectors.logs import acpc_log
from evaluator_pyx.cards import CARD_NAMES

__all__ = ["AcpcDealer", "DealerError", "DealerLimits", "LocalSeat", "MatchOutcome", "SeatReport"]

log = logging.getLogger("poki.acpc.dealer")

_CARD_TEXT = CARD_NAMES
_ACTIONS = {"f": Action.FOLD, "c": Action.CHECK_CALL, "r": Action.BET_RAISE}
_ACTION_BYTES = {ord(k): v for k, v in _ACTIONS.items()}
# Events are immutable: a positional constructor (a frozen dataclass's keyword __init__
# costs several times more).
_make_started = slot_constructor(HandStarted)
# Hands are dealt from shuffles drawn DEAL_BATCH at a time (one numpy call instead of one
# a hand); hand k's cards depend only on the seed and k, not on the match's length.
DEAL_BATCH = 128
_DONTWAIT = socket.MSG_DONTWAIT
LOG_FLUSH_SECONDS = 0.25  # the match log reaches its file at least this often
_DECK = np.tile(np.arange(52, dtype=np.int8), (DEAL_BATCH, 1))


def _each_local(seats: Sequence[TableSeat], arg: Any, hand_done: bool) -> None:
    """Feed ``arg`` (an event) to each in-process seat still playing, or with ``hand_done``
    tell it that its hand ended (``arg``: the hand's result); one that raises folds from
    then on."""
    for seat in seats:
        if seat.report.disconnected:
            continue
        local = seat.local
        assert local is not None  # in-process seats only
        try:
            if hand_done:
                local.hand_done(arg)
            else:
                local.feed(arg)
        except Exception as exc:  # noqa: BLE001 - a crashing seat must not stop the match
            log.error("%s raised %r; its seat folds from now on", seat.where, exc)
            seat.report.disconnected = True


class AcpcDealer:
    """One match; see the module docstring. ``names`` are the seats in order; ``local``
    maps seat indexes to in-process seats; ``ports`` (0 or None: any free port) the
    listening port of each remote seat, in seat order; ``log_file`` receives the match
    log as it is played; ``deals`` gives each hand's cards instead of the seed (the same
    cards any dealer given it deals: agent.play.deals.SeededDeals)."""

    def __init__(self, game: AcpcGame, names: Sequence[str], hands: int, seed: int, *,
                 game_name: str = "game", match_name: str = "poki", host: str = "127.0.0.1",
                 ports: Sequence[int | None] = (), local: dict[int, LocalSeat] | None = None,
                 limits: DealerLimits | None = None, log_file: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic, fast: bool = True,
                 deals: SeededDeals | None = None) -> None:
        n = len(names)
        if game.players is not None and n != game.players:
            raise DealerError(f"the game is for {game.players} players, {n} names given")
        if not 2 <= n <= 10:
            raise DealerError(f"2-10 players can play, got {n}")
        if len(set(names)) != n:
            raise DealerError(f"two seats share a name: {', '.join(names)}")
        bad = [name for name in names if not acpc_log._NAME.fullmatch(name)]
        if bad:
            raise DealerError(f"player names cannot hold ':', '|' or spaces: {', '.join(bad)}")
        if hands < 0:
            raise DealerError(f"hands must be at least 0, got {hands}")
        local = dict(local or {})
        if any(not 0 <= i < n for i in local):
            raise DealerError("an in-process seat index is out of range")
        self.game = game
        self.names = tuple(names)
        self.hands = hands
        self.seed = seed
        self.game_name = game_name
        self.match_name = match_name
        self.host = host
        self.limits = limits or DealerLimits()
        self.log_file = log_file
        self.clock = clock
        self.seats = [TableSeat(i, name, local.get(i), self.limits) for i, name in enumerate(names)]
        remote = [s for s in self.seats if s.local is None]
        ports = list(ports)
        if ports and len(ports) != len(remote):
            raise DealerError(f"{len(ports)} ports for {len(remote)} remote seats")
        self._ports = ports or [0] * len(remote)
        self._selector = SocketPoller()
        self._state_text = [""] * n  # the last state sent to each seat
        self.outcome = MatchOutcome(0, [s.report for s in self.seats])
        # Work that can wait until the dealer next waits for a remote answer (see
        # _catch_up): the in-process seats' events and the finished hands' log lines.
        self._later: list[tuple[Callable[..., object], tuple]] = []
        self._shuffles: list[list[int]] = []  # drawn DEAL_BATCH at a time
        self.deals = deals  # the cards of each hand by position, when given (agent.play.offline.dealer)
        self._log_flushed = float("-inf")
        # The hand driver's fast mode (agent.play.hand_driver): hands no in-process seat
        # follows event by event are dealt from the rules engine's answers kept per betting.
        self.fast = fast and not game.stack
        self._rules = BettingCache()
        # Two drivers, a hand each in turn: a hand's end (the showdown, the record, its
        # log line) is settled after the next hand's first states are out (_end_hand).
        self._drivers = (HandDriver(self._rules), HandDriver(self._rules))
        self._driver = self._drivers[0]  # the current hand's

    # --- setting up ----------------------------------------------------------------------------

    def listen(self) -> list[int]:
        """Open one listening socket per remote seat; their ports, in seat order."""
        ports = []
        for seat, port in zip((s for s in self.seats if s.local is None), self._ports):
            lsock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET)
            lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                lsock.bind((self.host, port or 0))
            except OSError as exc:
                lsock.close()
                self.close()
                raise DealerError(f"cannot listen on {self.host}:{port or 0} for {seat.where}: {exc}") from None
            lsock.listen(MAX_CALLERS)
            lsock.setblocking(False)
            seat.listener = lsock
            ports.append(lsock.getsockname()[1])
        return ports

    def wait_for_players(self) -> None:
        """Accept one connection per remote seat and read each greeting. Every connection
        at a port is a caller until it greets: the first caller to send the version line
        takes the seat; one that sends anything else, or nothing within
        ``greet_timeout`` seconds, is closed (logged), and so is the oldest caller when a
        port has MAX_CALLERS waiting, so connections that never greet cannot keep a
        player from its seat. Raises DealerError when a seat is still empty after
        ``connect_timeout`` seconds."""
        sel = self._selector
        waiting = {}
        for seat in self.seats:
            if seat.listener is not None:
                sel.register(seat.listener, ("listen", seat))
                waiting[seat.index] = seat
        limit = self.limits.connect_timeout
        end = None if limit is None else self.clock() + limit
        try:
            while any(not s.greeted for s in waiting.values()):
                now = self.clock()
                self._drop_silent_callers(waiting.values(), now)
                timeout = None if end is None else end - now
                if timeout is not None and timeout <= 0:
                    raise DealerError(f"players did not connect and greet within {limit:g} s: "
                                      + "; ".join(self._why_empty(s) for s in waiting.values() if not s.greeted))
                soonest = min((c.deadline for s in waiting.values() for c in s.callers), default=None)
                if soonest is not None:
                    timeout = max(0.0, soonest - now) if timeout is None else max(0.0, min(timeout, soonest - now))
                for kind, item in sel.select(timeout):
                    if kind == "listen":
                        self._accept(item)
                    elif kind == "caller":
                        self._hear_caller(*item)
                    else:
                        self._read(item)  # a seated player's lines, kept for the match
        finally:
            for seat in waiting.values():
                for caller in seat.callers:
                    self._close_caller(seat, caller, None)
                if seat.listener is not None:
                    sel.unregister(seat.listener)
                    seat.listener.close()
                    seat.listener = None

    @staticmethod
    def _why_empty(seat: TableSeat) -> str:
        if seat.refused:
            return (f"{seat.where} (its port had {seat.refused} connection(s) that did not greet with "
                    f"{VERSION_LINE!r} in time)")
        return f"{seat.where} (nobody connected)"

    def _accept(self, seat: TableSeat) -> None:
        listener = seat.listener
        assert listener is not None  # registered while it listens
        try:
            conn, addr = listener.accept()
        except OSError:
            return
        where = f"{addr[0]}:{addr[1]}"
        if seat.greeted:
            log.warning("%s: connection from %s closed: the seat is taken", seat.where, where)
            conn.close()
            return
        if len(seat.callers) >= MAX_CALLERS:
            oldest = seat.callers[0]
            self._close_caller(seat, oldest, f"closed to make room: {MAX_CALLERS} connections were waiting "
                                             "to greet")
        conn.setblocking(False)
        caller = Caller(conn, where, self.clock() + self.limits.greet_timeout,
                        LineFramer(f"{seat.where} caller {where}", self.limits.max_line))
        seat.callers.append(caller)
        self._selector.register(conn, ("caller", (seat, caller)))
        log.info("%s: connection from %s; waiting for its greeting", seat.where, where)

    def _close_caller(self, seat: TableSeat, caller: Caller, why: str | None) -> None:
        """Close a connection that did not take the seat; ``why`` is logged (None: quietly,
        the waiting is over)."""
        if caller in seat.callers:
            seat.callers.remove(caller)
        try:
            self._selector.unregister(caller.sock)
        except (KeyError, ValueError):
            pass
        caller.sock.close()
        if why is not None:
            seat.refused += 1
            log.warning("%s: connection from %s %s", seat.where, caller.where, why)

    def _drop_silent_callers(self, seats, now: float) -> None:
        for seat in seats:
            for caller in [c for c in seat.callers if c.deadline <= now]:
                self._close_caller(seat, caller, f"closed: no greeting within {self.limits.greet_timeout:g} s")

    def _hear_caller(self, seat: TableSeat, caller: Caller) -> None:
        """Read what a caller sent: its greeting gives it the seat."""
        try:
            data = caller.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._close_caller(seat, caller, f"lost before it greeted: {exc}")
            return
        if not data:
            self._close_caller(seat, caller, "closed before it greeted")
            return
        lines = caller.framer.feed(data)
        while lines and is_comment(lines[0]):
            lines.pop(0)
        if not lines:
            if caller.framer.dropped:
                self._close_caller(seat, caller, "closed: an over-long line instead of a greeting")
            return
        try:
            major, minor, _ = parse_version(lines[0])
        except ProtocolError as exc:
            seat.report.ignored += 1
            self._close_caller(seat, caller, f"closed: {exc}")
            return
        if major != 2:
            log.warning("%s speaks protocol version %d.%d; this dealer speaks 2.0.0", seat.where, major, minor)
        self._take_seat(seat, caller, lines[1:])

    def _take_seat(self, seat: TableSeat, caller: Caller, lines: list[str]) -> None:
        seat.callers.remove(caller)
        self._selector.unregister(caller.sock)
        for other in list(seat.callers):
            self._close_caller(seat, other, f"closed: {caller.where} greeted first and took the seat")
        conn = caller.sock
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The descriptor blocks, but every read and send of the dealer's own asks not to
        # (MSG_DONTWAIT) except the wait of a lone remote seat for its answer, which blocks
        # in recv itself, at most response_timeout (SO_RCVTIMEO): one syscall, not two.
        conn.setblocking(True)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, socket_timeval(self.limits.response_timeout))
        seat.sock = conn
        seat.framer = caller.framer
        seat.framer.source = seat.where
        seat.lines.extend(lines)
        seat.greeted = True
        seat.report.disconnected = False
        self._selector.register(conn, ("player", seat))
        log.info("%s: %s greeted and took the seat", seat.where, caller.where)

    # --- reading ------------------------------------------------------------------------

    def _read(self, seat: TableSeat, flags: int = _DONTWAIT) -> None:
        sock = seat.sock
        if sock is None:
            return
        try:
            data = sock.recv(65536, flags)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            log.error("%s: connection lost: %s", seat.where, exc)
            data = b""
        if not data:
            self._hang_up(seat)
            return
        dropped = seat.framer.dropped
        seat.lines.extend(seat.framer.feed(data))
        seat.report.dropped += seat.framer.dropped - dropped

    def _hang_up(self, seat: TableSeat) -> None:
        if seat.sock is not None:
            try:
                self._selector.unregister(seat.sock)
            except (KeyError, ValueError):
                pass
            seat.sock.close()
            seat.sock = None
        if seat.greeted and not seat.report.disconnected:
            log.error("%s disconnected; its seat folds from now on", seat.where)
        seat.report.disconnected = True

    def _drain(self, timeout: float, solo: TableSeat | None = None) -> None:
        """Wait up to ``timeout`` for input from any player and read what came. ``solo``:
        the acting seat, waited on in recv itself when it is the only connection and the
        wait is its first for this answer (``timeout`` is then response_timeout)."""
        if solo is not None and solo.sock is not None and len(self._selector) == 1:
            self._read(solo, 0)
            return
        for kind, seat in self._selector.select(max(0.0, timeout)):
            if kind == "player":
                self._read(seat)

    def _discard_unrequested(self, seat: TableSeat) -> None:
        """Lines from a seat that is not asked to act: comments are fine, the rest is
        logged and ignored."""
        for line in seat.lines:
            if not is_comment(line):
                seat.report.ignored += 1
                log.warning("%s: un-requested line ignored: %r", seat.where, line[:80])
        seat.lines.clear()

    # --- sending ------------------------------------------------------------------------

    def _send(self, seat: TableSeat, line: str) -> None:
        self._state_text[seat.index] = line
        if seat.sock is None:
            return
        data = line.encode("ascii") + b"\r\n"
        seat.out.append(data)
        seat.out_bytes += len(data)
        if seat.out_bytes > 65536:
            self._flush(seat)

    def _flush(self, seat: TableSeat) -> None:
        """Send a seat's pending lines. States are held until the dealer next waits for
        an answer (or the match ends), then written together: a player that is not asked
        to act reads them a moment later, in the same order, and a heads-up hand costs a
        few wake-ups instead of one per state."""
        if not seat.out:
            return
        out = seat.out
        data = out[0] if len(out) == 1 else b"".join(out)
        out.clear()
        seat.out_bytes = 0
        sock = seat.sock
        if sock is None:
            return
        end = None
        view: bytes | memoryview = data  # usually sent whole by the first call
        try:
            while view:
                try:
                    sent = sock.send(view, _DONTWAIT)
                except BlockingIOError:
                    # The player is not reading: wait, but not past the response limit.
                    if end is None:
                        end = self.clock() + self.limits.response_timeout
                    left = end - self.clock()
                    if left <= 0:
                        raise TimeoutError(f"not reading for {self.limits.response_timeout:g} s") from None
                    poller = select.poll()
                    poller.register(sock, select.POLLOUT)
                    poller.poll(left * 1000)
                    continue
                view = memoryview(view)[sent:] if sent < len(view) else b""
        except OSError as exc:
            log.error("%s: cannot send: %s", seat.where, exc)
            self._hang_up(seat)

    def _flush_all(self) -> None:
        for seat in self.seats:
            if seat.out:
                self._flush(seat)

    # --- actions ------------------------------------------------------------------------

    def _forced(self, seat: TableSeat, legal: tuple[Action, ...]) -> Action:
        """The move of a seat that folds for the rest of the match."""
        return Action.FOLD if Action.FOLD in legal else Action.CHECK_CALL

    def _action_of(self, seat: TableSeat, legal: tuple[Action, ...], hand_budget: float) -> Action | None:
        """Ask the acting seat (its state was just sent) for its action (the driver takes
        one that is not legal as a call); None when it gave none in time or a malformed one
        (counted and logged here: the driver takes it as a call)."""
        report = seat.report
        if seat.local is not None:
            if self._later:
                self._catch_up()  # its events first (a seat that raised there is out now)
        if not seat.live:
            return self._forced(seat, legal)
        state = self._state_text[seat.index]
        action: Action | None
        if seat.local is not None:
            t0 = self.clock()
            try:
                if seat.viewer:
                    driver = self._driver
                    action = seat.local.decide_on(driver.snapshot(driver.actor))
                else:
                    action = seat.local.decide(self.limits.response_timeout)
            except Exception as exc:  # noqa: BLE001 - a crashing seat must not stop the match
                log.error("%s raised %r; its seat folds from now on", seat.where, exc)
                report.disconnected = True
                return self._forced(seat, legal)
            report.seconds += self.clock() - t0
            return action
        self._flush_all()
        # The player reads its state now: the work that can wait is done meanwhile, on
        # the dealer's clock, not the player's.
        if self._later:
            self._catch_up()
        t0 = self.clock()
        limit = self.limits.response_timeout
        first = True
        if seat.sock is not None and not seat.lines and len(self._selector) == 1:
            # The usual answer of a lone remote seat: one read, one line (_quick_answer).
            action = self._quick_answer(seat, state, legal)
            if action is not None:
                report.seconds += self.clock() - t0
                if report.seconds > hand_budget and not report.folded_out:
                    self._fold_out(seat, hand_budget)
                return action
            first = False  # the blocking read for this answer is done
        while True:
            answer = self._answer_in(seat, seat.lines, state)
            if answer is not False:
                report.seconds += self.clock() - t0
                action = None if isinstance(answer, bool) else answer  # True: a malformed answer
                break
            if seat.sock is None:
                return self._forced(seat, legal)
            left = t0 + limit - self.clock()
            if left <= 0:
                report.timeouts += 1
                report.seconds += self.clock() - t0
                log.warning("%s did not answer %r within %g s; taken as a call",
                            seat.where, state, limit)
                action = None
                break
            self._drain(left, seat if first else None)
            first = False
            for other in self.seats:
                if other is not seat and other.lines:
                    self._discard_unrequested(other)
        if report.seconds > hand_budget and not report.folded_out:
            self._fold_out(seat, hand_budget)
        return action

    @staticmethod
    def _fold_out(seat: TableSeat, hand_budget: float) -> None:
        report = seat.report
        report.folded_out = (f"its answers took {report.seconds:.1f} s, over the match's "
                             f"budget of {hand_budget:.1f} s")
        log.error("%s: %s; it folds for the rest of the match", seat.where, report.folded_out)

    def _quick_answer(self, seat: TableSeat, state: str, legal: tuple[Action, ...]) -> Action | None:
        """Wait for the lone remote seat's answer in recv itself (at most response_timeout:
        SO_RCVTIMEO) and take it at once when the read is exactly ``state:<action>\\r\\n``
        with a legal action; anything else (a timeout, a closed connection, other or more
        bytes) is left to the general reading of :meth:`_action_of` (None)."""
        sock = seat.sock
        assert sock is not None  # the caller checked it
        try:
            data = sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return None  # no answer within response_timeout
        except OSError as exc:
            log.error("%s: connection lost: %s", seat.where, exc)
            data = b""
        if not data:
            self._hang_up(seat)
            return None
        want = state.encode("ascii")
        n = len(want)
        if (len(data) == n + 4 and not seat.framer.pending and data.startswith(want)
                and data[n] == 58 and data.endswith(b"\r\n")):  # 58: ':'
            action = _ACTION_BYTES.get(data[n + 1])
            if action is not None and action in legal:
                return action
        dropped = seat.framer.dropped
        seat.lines.extend(seat.framer.feed(data))
        seat.report.dropped += seat.framer.dropped - dropped
        return None

    def _answer_in(self, seat: TableSeat, lines: list[str], state: str) -> Action | bool:
        """The first answer to ``state`` among ``lines`` (consumed up to it): its action,
        True for a malformed one (counted and logged: taken as a call), False for none yet."""
        report = seat.report
        while lines:
            line = lines.pop(0)
            if is_comment(line):
                continue
            try:
                answered, action_text = parse_response(line)
            except ProtocolError as exc:
                report.ignored += 1
                log.warning("%s: %s; ignored", seat.where, exc)
                continue
            if answered != state:
                report.ignored += 1
                log.warning("%s: answer to another state ignored: %r", seat.where, line[:80])
                continue
            action = parse_action(action_text)
            if action is None:
                report.invalid += 1
                log.warning("%s: bad action %r in %r; taken as a call", seat.where,
                            action_text[:20], line[:80])
                return True
            return action
        return False

    # --- the match ----------------------------------------------------------------------

    def run(self, progress: Callable[[int], None] | None = None) -> MatchOutcome:
        """Deal the match (after :meth:`listen` and :meth:`wait_for_players` when there
        are remote seats) and return what happened. The log is written as it goes."""
        n = len(self.seats)
        rng = np.random.default_rng(self.seed)
        budget = self.limits.budget_per_hand * max(1, self.hands)
        self._write(acpc_log.format_header(self.match_name, self.game_name, self.hands, self.seed))
        try:
            for hand in range(self.hands):
                self._play_hand(hand, rng, n, budget)
                self.outcome.hands += 1
                if progress is not None:
                    progress(1)
            self._catch_up()
            self._write(acpc_log.format_score([s.report.total for s in self.seats], self.names))
            self._flush_all()
        finally:
            try:
                self._catch_up()  # a match cut short still logs the hands it finished
                if self.log_file is not None:
                    self.log_file.flush()
            except Exception as exc:  # noqa: BLE001 - the first error is the one to raise
                log.error("the match log could not be completed: %r", exc)
            self.close()
        return self.outcome

    def _write(self, line: str) -> None:
        self.outcome.log_lines.append(line)
        log_file = self.log_file
        if log_file is not None:
            log_file.write(line + "\n")
            # Flushed a few times a second rather than a line a hand (a write call each).
            now = self.clock()
            if now - self._log_flushed >= LOG_FLUSH_SECONDS:
                log_file.flush()
                self._log_flushed = now

    def _play_hand(self, hand: int, rng: np.random.Generator, n: int, budget: float) -> None:
        """Deal one hand on the hand driver (agent.play.hand_driver): its fast mode when no
        in-process seat follows the events, else its rules mode."""
        game = self.game
        cards = self._deal(rng, n) if self.deals is None else self.deals.cards(hand, n)
        holes = [tuple(cards[2 * p:2 * p + 2]) for p in range(n)]  # by position
        at = [self.seats[(p + hand) % n] for p in range(n)]  # seat at each position
        names = tuple(s.name for s in at)
        driver = self._driver = self._drivers[hand & 1]
        if driver.in_hand:
            self._catch_up()  # its last hand's end is still put off
        local = [s for s in at if s.local is not None and not s.report.disconnected]
        viewers: list[TableSeat] = []
        if local:
            for s in local:
                seat_local = s.local
                assert seat_local is not None  # an in-process seat
                s.viewer = not seat_local.follows_events
            viewers = [s for s in local if s.viewer]
            if viewers:
                local = [s for s in local if not s.viewer]  # the seats fed every event
        remote = [(p, s) for p, s in enumerate(at) if s.local is None]
        tell = self._tell
        # HandStarted's fields in order (agent.game.events).
        started = _make_started(
            f"{self.match_name}:{hand}", f"dealer hand {hand}", names,
            (game.stack or NO_STACK,) * n, n - 1, game.small_blind, game.big_blind,
            game.small_bet, game.big_bet, game.max_bets, True, None, False, None, None, None, None, None)
        hole_events: list[HoleCards] = []
        driver.start(started, holes, cards[2 * n:], fast=self.fast and not local, hole_events=hole_events)
        if local:
            tell(local, started)
            for seat, event in zip(at, hole_events):
                if seat in local:
                    tell((seat,), event)  # each in-process player sees its own cards only
        # What each remote position sees of the hole cards until a showdown: its own.
        own_views = {p: [holes[q] if q == p else None for q in range(n)] for p, _ in remote}
        folded = driver.folded
        showdown = False
        while True:
            kind = driver.step()
            if kind == BOARD:
                dealt = driver.deal_board()
                if local:
                    tell(local, dealt)
                continue
            over = kind == OVER
            showdown = over and folded.count(False) > 1
            betting, rounds = driver.betting, driver.rounds
            for p, seat in remote:
                if showdown:  # every live hand is shown; a folded player still sees its own
                    view = [holes[q] if q == p or not folded[q] else None for q in range(n)]
                else:
                    view = own_views[p]
                self._send(seat, format_matchstate(p, hand, betting, view, rounds))
            if over:
                break
            seat = at[driver.actor]
            action = self._action_of(seat, driver.legal, budget)
            seat.report.actions += 1
            if action is None:
                acted = driver.apply_default()
            else:
                acted = driver.apply(action)
                if acted.action != action:
                    seat.report.invalid += 1
                    log.warning("%s: %r is not a legal action now; taken as a call", seat.where, action)
            if local:
                tell(local, acted)
        if showdown and local:
            for q, seat in enumerate(at):
                if not folded[q]:
                    tell([s for s in local if s is not seat], CardsShown(seat.name, holes[q]))
        # Put off with the rest (while the next hand's first player thinks): nothing
        # the players are sent depends on it.
        self._later.append((self._end_hand, (driver, local, viewers, at, hand)))

    def _end_hand(self, driver: HandDriver, local: list[TableSeat], viewers: list[TableSeat],
                  at: list[TableSeat], hand: int) -> None:
        """Settle a finished hand on its driver, tell the in-process seats, log it."""
        settlement = driver.settle()
        if local:
            self._tell_now(local, ENDED)
        if viewers:
            self._hands_done(viewers, driver.ended(settlement))  # the seats asked with snapshots
        self._log_hand(driver, settlement.nets, at, hand)

    def _deal(self, rng: np.random.Generator, n: int) -> list[int]:
        """The next hand's cards: both players' holes by position, then the board."""
        deals = self._shuffles
        if not deals:
            deals.extend(reversed(rng.permuted(_DECK, axis=1)[:, :2 * n + 5].tolist()))
        return deals.pop()

    def _log_hand(self, driver: HandDriver, nets: tuple[int, ...], at: list[TableSeat], hand: int) -> None:
        """The hand's ``STATE:`` line as acpc_log.format_state writes it, from the driver's
        betting and cards and the settlement's payoffs."""
        values = []
        for seat, value in zip(at, nets):
            seat.report.total += value
            values.append(str(value))
        cards = "|".join([_CARD_TEXT[h[0]] + _CARD_TEXT[h[1]] for h in driver.holes])
        for new in driver.rounds[1:]:
            cards += "/" + "".join([_CARD_TEXT[c] for c in new])
        self._write(f"STATE:{hand}:{driver.betting}:{cards}:{'|'.join(values)}:"
                    f"{'|'.join([seat.name for seat in at])}")

    def _catch_up(self) -> None:
        """Do the work put off (:attr:`_later`), in the order it was put off."""
        later = self._later
        while later:
            self._later = []
            for fn, args in later:
                fn(*args)
            later = self._later

    def _tell(self, seats: Sequence[TableSeat], event: Event) -> None:
        """Pass an event to in-process seats when the dealer next catches up (before any
        of them decides, and while a remote player thinks)."""
        if seats:
            self._later.append((self._tell_now, (seats, event)))

    @staticmethod
    def _tell_now(seats: Sequence[TableSeat], event: Event) -> None:
        """Pass an event to in-process seats."""
        _each_local(seats, event, False)

    @staticmethod
    def _hands_done(seats: Sequence[TableSeat], record: Any) -> None:
        """Tell the in-process seats that decided on snapshots that their hand ended
        (``record``: a HandRecord, or the fast path's settled hand with the same results)."""
        _each_local(seats, record, True)

    def close(self) -> None:
        """Close every socket (players see the end of the match as the connection closing)."""
        for seat in self.seats:
            for sock in (seat.sock, seat.listener):
                if sock is not None:
                    try:
                        self._selector.unregister(sock)
                    except (KeyError, ValueError):
                        pass
                    sock.close()
            seat.sock = seat.listener = None
        try:
            self._selector.close()
        except Exception:  # noqa: BLE001 - closing: nothing left to report to
            pass
