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
  not change who acts, what is legal, the pot or the history): the game layer's
  betting-state cache (agent.game.betting) asks the one rules engine the first time a
  betting string is met and keeps its answer; after that a decision costs a dictionary
  look-up and one context built with this hand's id, board and hole cards;
* the hand's result for the summary: the pots and who may win each follow from the
  final betting string too (the same cache), and the rules' own settlement pays them
  with the shown hands valued by the evaluator. A showdown the dealer did not show
  replays the whole hand through the seat's own tracker, exactly as the full path does,
  once, at the end.

With ``put_off_ends`` (as agent.play.acpc.match.play_at_dealer runs it) a finished hand is
settled by :meth:`LeanSession.catch_up`, after the answer to the next hand's first turn
is sent, so it is off the path from the dealer's state to our answer.

With ``records=True`` every hand takes that last way and the seat's tracker builds its
:class:`~agent.game.records.HandRecord` (what the tests compare with the full path).
"""
from __future__ import annotations

import logging
from collections.abc import Sequence

from agent.game.betting import BettingCache, BettingPoint
from agent.game.events import Event
from agent.game.tracker import TrackerError
from agent.play.acpc.match import AcpcSession, DecisionClock
from agent.play.hand_driver import settle_point
from agent.play.seat import Seat
from connectors.acpc.game import AcpcGame
from connectors.acpc.protocol import ACTION_CHAR, MatchState, ProtocolError, StateTranslator

__all__ = ["LeanSession"]

log = logging.getLogger("poki.acpc")



class LeanSession(AcpcSession):
    """An :class:`~agent.play.acpc.match.AcpcSession` for a seat that does not follow the
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
        self._names: tuple[str, ...] = ()  # the players by position this hand
        self._rules = BettingCache()  # the rules' answers per betting string
        self.replayed = 0  # hands settled by replaying them through the seat's tracker
        # With ``put_off_ends`` a finished hand is settled by :meth:`catch_up` (after the
        # answer to the line that followed it is sent) rather than at once.
        self.put_off_ends = False
        self._ended: list[MatchState] = []

    # --- lines ---------------------------------------------------------------------------

    def on_line(self, line: str) -> str | None:
        if not line or line[0] == "#" or line[0] == ";":
            return None
        self.lines += 1
        translator = self.translator
        last_hand = translator.hand_number
        try:
            # The usual lines without states or events (StateTranslator.read).
            state, _ = translator.read(line, None, False)  # events=False
        except ProtocolError as exc:
            self._following = False
            return self._bad_line(line, exc)
        if state is None:  # actions (and perhaps a round's cards) added to the hand
            if not self._following:
                return self._broken_turn(translator.last)  # type: ignore[arg-type]  # a turn comes after a state was read
            betting = translator.betting
            if betting[-1] == "/":
                self._board = translator.board_cards()  # a round's cards came
            return self._turn(betting)
        if last_hand != state.hand_number:
            if self._in_hand:
                self._abandon_hand("a new hand started before this one ended")
            self._in_hand = True
            self._hand_id = translator.hand_id(state.hand_number)
            self._position = state.position
            self._names = translator.players_for(state.position)
            self._hole = state.holes[state.position]  # type: ignore[assignment]  # our own cards are always shown to us
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
        return self._turn(translator.betting)

    def _turn(self, betting: str) -> str | None:
        """Our answer after ``betting`` of the hand being followed, or None."""
        try:
            template = self._rules.turn(betting, self._position, self._names, self._events_so_far)
            if template is None:
                return None  # not our turn
            ctx = template.build(self._hand_id, self._board, self._hole)
        except TrackerError as exc:
            self._refused(exc)
            self._following = False
            return self._broken_turn(self.translator.last)  # type: ignore[arg-type]  # a turn comes after a state was read
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

    # --- what the rules say (agent.game.betting) -------------------------------------

    def _refused(self, exc: TrackerError) -> None:
        """The rules refused this hand's events: it is abandoned, and answered with calls."""
        self._broken_hand = self.translator.last.hand_number  # type: ignore[union-attr]  # a turn comes after a state was read
        self._abandon_hand(str(exc))

    def _events_so_far(self) -> list[Event]:
        return self._hand_events(self.translator.last)  # type: ignore[arg-type]  # a turn comes after a state was read

    def _hand_events(self, state: MatchState) -> list[Event]:
        """The events of the hand up to ``state``, as the translator gave them line by
        line: a state of a hand that continued from its first line holds all of them
        (a fresh translator reads it as the hand's only line)."""
        t = self.translator
        scratch = StateTranslator(self.game, self.seat.me, names=t.names, match=t.match,
                                  source=t.source)
        return scratch.update(state)

    # --- the end of a hand ----------------------------------------------------------------

    def _finish(self, state: MatchState) -> None:
        self._in_hand = False
        if self.put_off_ends:
            self._ended.append(state)
        else:
            self._finish_now(state)

    def _finish_now(self, state: MatchState) -> None:
        if not self.records:
            try:
                end = self._rules.point(state.betting_text, lambda: self._hand_events(state))
            except TrackerError as exc:
                self._refused(exc)
                return
            if self._settle(state, end):
                return
        self._replay_on_seat(self._hand_events(state))

    def _settle(self, state: MatchState, end: BettingPoint) -> bool:
        """Count the hand's result: the rules' settlement of the pots after its final
        betting, the live hands valued by the evaluator; False when a live hand was not
        shown (only the seat's tracker can then say what happened)."""
        nets = settle_point(end, state.holes, _flat(state.board))
        if nets is None:
            return False
        net = nets[state.position]
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

