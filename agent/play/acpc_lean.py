"""The lean ACPC client path: our side of the protocol for a seat that needs no events.

A seat whose player is instant (a constant-time house bot) and has no hooks, and which
has no hand sink (no database), does not follow the events (``Seat.follows_events`` is
False, agent.play.seat): nothing of the hand reaches the player but the context of its
own decisions, and nothing is stored. For such a seat :class:`LeanSession` does only
what the answers and the summary need:

* every dealer line is still checked as the full path checks it (the protocol
  translator: grammar, cards, continuation of the last state), but the usual ones, a
  hand's first line and a line that only adds actions or a round's board cards, are
  taken without the state and events the full path builds
  (``StateTranslator.begin``/``advance``); when the rules must be asked, the hand's
  events are rebuilt from its last state, which holds them all;
* whose turn it is, and the decision context when it is ours, follow from our position
  and the betting string alone (limit hold'em with the game's fixed sizes: the cards do
  not change who acts, what is legal, the pot or the history). The first time a
  (position, betting) pair is met, the real tracker replays the hand so far and its
  answer is kept; after that a decision costs a dictionary look-up and one context
  built with this hand's id, board and hole cards. So the rules that answer are the
  one rules engine (agent.game.rules through agent.game.tracker), never a copy;
* the hand's result for the summary: what each seat put in and who is still live
  follows from the final betting string too (kept the same way); a fold leaves one
  winner, and a showdown with one best hand (or a pot the winners split evenly) is
  settled with the evaluator. Anything else (odd chips, all-in side pots, a showdown the
  dealer did not show) replays the whole hand through the seat's own tracker, exactly as
  the full path does, once, at the end.

With ``put_off_ends`` (as agent.play.acpc_match.play_at_dealer runs it) a finished hand is
settled by :meth:`LeanSession.catch_up`, after the answer to the next hand's first turn
is sent, so it is off the path from the dealer's state to our answer.

With ``records=True`` every hand takes that last way and the seat's tracker builds its
:class:`~agent.game.records.HandRecord` (what the tests compare with the full path).
"""
from __future__ import annotations

import logging
from collections.abc import Sequence

from agent.game.context import GameContext, context_template
from agent.game.events import CardsShown, Event, HandEnded
from agent.game.rules import Phase
from agent.game.slots import slot_constructor
from agent.game.tracker import Tracker, TrackerError
from agent.play.acpc_match import AcpcSession, DecisionClock
from agent.play.seat import Seat
from connectors.acpc.game import AcpcGame
from connectors.acpc.protocol import ACTION_CHAR, MatchState, ProtocolError, StateTranslator
from evaluator_pyx import evaluate_cards

__all__ = ["LeanSession"]

log = logging.getLogger("poki.acpc")

_make_context = slot_constructor(GameContext)
_HOLE_DEALING, _BETTING = Phase.HOLE_DEALING, Phase.BETTING
CACHE_LIMIT = 1 << 16  # (position, betting) entries kept; cleared when full
_NOT_OURS = False  # a cache entry: not our turn


class LeanSession(AcpcSession):
    """An :class:`~agent.play.acpc_match.AcpcSession` for a seat that does not follow the
    events (module docstring); the same ``on_line`` contract, answers and summary."""

    def __init__(self, game: AcpcGame, seat: Seat, *, names: Sequence[str] = (),
                 match: str = "acpc", source: str = "acpc",
                 clock: DecisionClock | None = None, records: bool = False) -> None:
        if seat.follows_events:
            raise ValueError(f"{source}: the lean path is for seats that need no events")
        super().__init__(game, seat, names=names, match=match, source=source, clock=clock)
        self.records = records
        self._in_hand = False  # a hand is being followed (started, not ended or abandoned)
        # What the lines of the hand being followed share: our position, the hand id, the
        # board so far (flat) and our hole cards. ``_following`` is False when the next
        # line must take the full read (no hand, or one the rules refused).
        self._following = False
        self._position = 0
        self._hand_id = ""
        self._board: tuple[int, ...] = ()
        self._hole: tuple[int, ...] = ()
        self._turns: dict[tuple, object] = {}  # (position, betting) -> template or _NOT_OURS
        self._ends: dict[tuple, tuple] = {}  # (position, final betting) -> result facts
        self.replayed = 0  # hands settled by replaying them through the seat's tracker
        # With ``put_off_ends`` a finished hand is settled by :meth:`catch_up` (after the
        # answer to the line that followed it is sent) rather than at once.
        self.put_off_ends = False
        self._ended: list[MatchState] = []

    # --- lines ---------------------------------------------------------------------------

    def on_line(self, line: str) -> str | None:
        if self._following:
            # Most lines only add actions to the round: taken without a state or events.
            translator = self.translator
            betting = translator.advance(line)
            if betting is not None:
                self.lines += 1
                if betting[-1] == "/":
                    self._board = translator.board_cards()  # a round's cards came
                return self._turn((self._position, betting))
        if not line or line[0] == "#" or line[0] == ";":
            return None
        self.lines += 1
        translator = self.translator
        last_hand = translator.hand_number
        # A hand's usual first line needs none of the events read() would build.
        state = translator.begin(line)
        if state is None:
            try:
                state, _ = translator.read(line, None)
            except ProtocolError as exc:
                self._following = False
                return self._bad_line(line, exc)
        if last_hand != state.hand_number:
            if self._in_hand:
                self._abandon_hand("a new hand started before this one ended")
            self._in_hand = True
            self._hand_id = translator.hand_id(state.hand_number)
            self._position = state.position
            self._hole = state.holes[state.position]  # type: ignore[assignment]
            if self.clock is not None:
                self.clock.new_hand()
        if self._broken_hand == state.hand_number:
            self._following = self._in_hand = False
            return self._broken_turn(state)  # a hand the rules refused: calls only
        if translator.hand_over:
            self._following = False
            if self._in_hand:  # (a repeat of the last state of a hand is not a second end)
                self._finish(state)
            return None
        board = state.board
        self._board = board[0] + board[1] + board[2] + board[3] if len(board) == 4 else _flat(board)
        self._following = True
        return self._turn((state.position, translator.betting))

    def _turn(self, key: tuple) -> str | None:
        """Our answer at (position, betting) of the hand being followed, or None."""
        entry = self._turns.get(key)
        if entry is None:
            entry = self._learn(key)
            if entry is None:
                self._following = False
                return self._broken_turn(self.translator.last)  # type: ignore[arg-type]
        if entry is _NOT_OURS:
            return None
        ctx = _make_context(self._hand_id, *entry[0], self._board, *entry[1],  # type: ignore[index]
                            self._hole)
        action = self.seat.decide_on(ctx)
        self.answers += 1
        return self.translator.text + ":" + ACTION_CHAR[action]

    def catch_up(self) -> None:
        """Settle the hands whose end was put off (``put_off_ends``)."""
        ended = self._ended
        while ended:
            self._ended = []
            for state in ended:
                self._finish_now(state)
            ended = self._ended

    def _bad_line(self, line: str, exc: ProtocolError) -> str | None:
        """As the full path: log, abandon the hand, still answer when it is our turn."""
        where = f"{self.source} line {self.lines}"
        try:
            state = self.translator.parse(line, where)
        except ProtocolError as parse_exc:
            self._error(f"{parse_exc}; ignored")
            return None
        if self._broken_hand != state.hand_number:
            self._broken_hand = state.hand_number
            self._error(f"{exc}; the hand is abandoned")
            if self._in_hand:
                self._abandon_hand(str(exc))
        return self._broken_turn(state)

    def _abandon_hand(self, reason: str) -> None:
        """The hand being followed is given up: not counted, as Seat.abandon does."""
        self._in_hand = False
        self._following = False
        stats = self.seat.stats
        stats.hands_abandoned += 1
        stats.last_error = reason
        log.error("%s: hand abandoned, not stored: %s", self.source, reason)

    # --- what the rules say, learnt once per betting string ----------------------------

    def _replay(self, events: Sequence[Event]) -> Tracker | None:
        """A scratch tracker that applied ``events`` (None if it refused one)."""
        tracker = Tracker(self.seat.me)
        try:
            for event in events:
                tracker.apply(event)
            if tracker.state is not None and tracker.state.phase == _HOLE_DEALING:
                tracker.snapshot()  # opponents' cards are face down once play starts
        except TrackerError as exc:
            self._broken_hand = self.translator.last.hand_number  # type: ignore[union-attr]
            self._abandon_hand(str(exc))
            return None
        return tracker

    def _hand_events(self, state: MatchState) -> list[Event]:
        """The events of the hand up to ``state``, as the translator gave them line by
        line: a state of a hand that continued from its first line holds all of them
        (a fresh translator reads it as the hand's only line)."""
        t = self.translator
        scratch = StateTranslator(self.game, self.seat.me, names=t.names, match=t.match,
                                  source=t.source)
        return scratch.update(state)

    def _learn(self, key: tuple) -> object | None:
        """Whose turn it is after this hand's events (None: the rules refused them)."""
        tracker = self._replay(self._hand_events(self.translator.last))  # type: ignore[arg-type]
        if tracker is None:
            return None
        st = tracker.state
        if st is None or st.phase != _BETTING or st.actor != key[0]:
            entry: object = _NOT_OURS
        else:
            ctx = tracker.snapshot(self.seat.me)
            entry = context_template(ctx)  # this hand's id, board and hole cards go in at use
        turns = self._turns
        if len(turns) >= CACHE_LIMIT:
            turns.clear()
        turns[key] = entry
        return entry

    # --- the end of a hand ----------------------------------------------------------------

    def _finish(self, state: MatchState) -> None:
        self._in_hand = False
        if self.put_off_ends:
            self._ended.append(state)
        else:
            self._finish_now(state)

    def _finish_now(self, state: MatchState) -> None:
        events: list[Event] | None = None
        if not self.records:
            key = (state.position, state.betting)
            facts = self._ends.get(key)
            if facts is None:
                events = self._hand_events(state)
                facts = self._end_facts(key, events)
                if facts is None:
                    return  # the rules refused the hand: abandoned
            if self._settle(state, facts):
                return
        self._replay_on_seat(self._hand_events(state) if events is None else events)

    def _end_facts(self, key: tuple, events: list[Event]) -> tuple | None:
        """(chips put in by position, live positions, net of a hand won by folds or None,
        all-in) after the final betting; None if the rules refused the hand."""
        body = [e for e in events if type(e) is not CardsShown and type(e) is not HandEnded]
        tracker = self._replay(body)
        if tracker is None:
            return None
        st = tracker.state
        put_in = st.put_in
        live = st.active
        facts = (put_in, live, bool(st.all_in))
        ends = self._ends
        if len(ends) >= CACHE_LIMIT:
            ends.clear()
        ends[key] = facts
        return facts

    def _settle(self, state: MatchState, facts: tuple) -> bool:
        """Count the hand's result from the cached facts; False when only the tracker can
        settle it (see the module docstring)."""
        put_in, live, all_in = facts
        me = state.position
        pot = sum(put_in)
        if len(live) == 1:
            won = pot if live[0] == me else 0
        else:
            if all_in:
                return False
            holes = state.holes
            flat = _flat(state.board)
            best = -1
            winners = []
            for q in live:
                hole = holes[q]
                if hole is None:
                    return False
                value = evaluate_cards(hole + flat)
                if value > best:
                    best = value
                    winners = [q]
                elif value == best:
                    winners.append(q)
            share, odd = divmod(pot, len(winners))
            if odd:
                return False
            won = share if me in winners else 0
        net = won - put_in[me]
        stats = self.seat.stats
        stats.net_chips += net
        stats.add_result(net / self.game.small_bet)
        stats.hands += 1
        return True

    def _replay_on_seat(self, events: list[Event]) -> None:
        """The full path's way, once: every event through the seat's own tracker."""
        self.replayed += 1
        feed = self.seat.feed
        for event in events:
            feed(event)


def _flat(board: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    out: tuple[int, ...] = ()
    for cards in board:
        out += cards
    return out

