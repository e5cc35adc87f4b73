"""The hand driver: the one place a hand is dealt and its betting run.

Every dealer (the in-process dealer, agent.play.offline.dealer; the ACPC dealer,
agent.play.acpc.dealer; the IRC dealer table, agent.play.irc.table) runs its hands on a
:class:`HandDriver`, step by step:

* :meth:`HandDriver.start` deals the hand (the HandStarted event, every seat's hole cards
  and the board to come);
* :meth:`HandDriver.step` says what comes next: ``ACT`` (``actor`` and ``legal`` say who
  and what), ``BOARD`` or ``OVER`` (agent.game.betting's kinds);
* :meth:`HandDriver.apply` takes the actor's move, and turns one that is not legal into
  check/call (counted); :meth:`HandDriver.apply_default` is the check/call of a move that
  came late, malformed or not at all (counted);
* :meth:`HandDriver.deal_board` deals the round's board cards;
* :meth:`HandDriver.settle` ends the hand and pays it through the rules' one settlement
  (agent.game.showdown.pay_pots).

:meth:`HandDriver.play` is the synchronous loop on top, for a dealer whose players answer
at once (agent.play.offline.dealer; the rules mode, each actor asked with its snapshot,
whose legal moves are the ones :meth:`HandDriver.apply` checks); a dealer whose answers
arrive as events (the IRC dealer table: a player's line, a time-out, a player leaving)
calls the steps itself.

Two modes, one driver. The rules mode applies every event to a rules state (the tracker
over agent.game.rules, agent.game.operations and agent.game.showdown) and ends with its
:class:`~agent.game.records.HandRecord`. The fast mode (``start(..., fast=True)``, for a
table where no seat follows the hand event by event and there are no stacks) asks the
betting-state cache (agent.game.betting: the same rules engine's answers, learnt once per
betting string) instead, and settles with :func:`settle_point`: the live hands valued by
the evaluator, the pots the rules gave for the final betting paid by pay_pots. Both modes
keep the ACPC betting string, so the same seeds give the same states and logs either way.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from agent.game.betting import ACT, BOARD, OVER, BettingCache, BettingPoint
from agent.game.context import GameContext
from agent.game.events import BoardDealt, Event, HandEnded, HandStarted, HoleCards, PlayerActed, PlayerLeft
from agent.game.records import HandRecord, PlayerResult
from agent.game.rules import Action, Phase, State
from agent.game.slots import slot_constructor
from agent.game.tracker import Tracker
from evaluator_pyx import evaluate_cards

__all__ = ["ACT", "BOARD", "ENDED", "OVER", "HandDriver", "Settlement", "SettledHand", "Turn", "settle_point"]

_BETTING, _BOARD_DEALING = Phase.BETTING, Phase.BOARD_DEALING
_LETTERS = "fcr"  # the ACPC betting letter of each Action (FOLD, CHECK_CALL, BET_RAISE)
_FOLD = Action.FOLD
ENDED = HandEnded()  # events are immutable: one shared end
_NO_ACTIONS: tuple[Action, ...] = ()
_LINEUPS_KEPT = 1024  # line-ups whose move events are kept built
_PLAYERS_KEPT = 1024  # players whose default moves are kept counted
# Positional constructors: a frozen dataclass's keyword __init__ costs several times more.
_make_holes = slot_constructor(HoleCards)
_make_board = slot_constructor(BoardDealt)


class Turn(NamedTuple):
    """Whose turn it is (a position of the hand: 0 the first after the button... the
    seat order of HandStarted.players) and what it may do."""

    position: int
    legal: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class SettledHand:
    """A fast-mode hand's end as a seat that decided on snapshots is told it (the results
    and the small bet a HandRecord gives; a fast-mode hand has no full record)."""

    hand_id: str
    small_bet: int
    results: tuple[PlayerResult, ...]


class Settlement(NamedTuple):
    """A settled hand: each position's net chips (won less put in), and the rules state's
    record (rules mode) or the fast mode's results (``record`` None)."""

    nets: tuple[int, ...]
    results: tuple[PlayerResult, ...]
    record: HandRecord | None


def settle_point(end: BettingPoint, holes: Sequence[tuple[int, ...] | None],
                 board: tuple[int, ...]) -> list[int] | None:
    """Each position's net chips of a finished hand (``end``: the betting point after its
    final action), every live hand valued by the evaluator and the pots paid by the rules'
    settlement; None when a live hand that could win a contested pot is not known
    (``holes[q]`` None: only a rules state can then say what happened). The one place a
    hand settled by its betting is valued and paid (the fast mode, the lean ACPC client)."""
    live = end.live
    values = [0] * len(end.put_in)
    if len(live) > 1:
        for q in live:
            hole = holes[q]
            if hole is None:
                return None
            values[q] = evaluate_cards(hole + board)
    won = end.won(values)
    put_in = end.put_in
    return [won[q] - put_in[q] for q in range(len(put_in))]


class HandDriver:
    """Runs hands one at a time; see the module docstring. ``cache`` serves the fast mode
    (one per table: one game, one number of players); without it only the rules mode runs.

    Between :meth:`start` and :meth:`settle`: ``betting`` (the ACPC betting string so far),
    ``rounds`` (the board cards of each round reached, ``()`` for the pre-flop),
    ``board`` (the board so far, flat), ``folded`` (by position), ``holes`` (by position)
    and, after :meth:`step` returned ACT, ``actor`` and ``legal``.
    """

    def __init__(self, cache: BettingCache | None = None) -> None:
        self.cache = cache
        self.tracker = Tracker()
        self.defaults: dict[str, int] = {}  # moves taken as check/call, by player, over every hand
        self.in_hand = False  # started and not settled
        self.fast = False
        self.started: HandStarted | None = None
        self.names: tuple[str, ...] = ()
        self.holes: tuple[tuple[int, ...], ...] = ()
        self.betting = ""
        self.rounds: list[tuple[int, ...]] = []
        self.board: tuple[int, ...] = ()
        self.folded: list[bool] = []
        self.actor = -1
        self.legal: tuple[Action, ...] = _NO_ACTIONS
        self._cards: Sequence[int] = ()  # the five board cards to deal
        self._state: State | None = None
        self._point: BettingPoint | None = None
        self._acts: list[Event] = []  # fast mode: the hand's actions and boards (for a cache miss)
        # Events are immutable: each line-up's moves built once (one look-up a hand), by
        # position and then Action.
        self._acted: dict[tuple[str, ...], tuple[tuple[PlayerActed, ...], ...]] = {}
        self._moves: tuple[tuple[PlayerActed, ...], ...] = ()  # this hand's

    # --- the steps -----------------------------------------------------------------------

    def start(self, started: HandStarted, holes: Sequence[tuple[int, ...]], board: Sequence[int], *,
              fast: bool = False, hole_events: list[HoleCards] | None = None) -> None:
        """Deal a hand: ``holes`` by position (the seat order of ``started.players``),
        ``board`` its five board cards. ``fast``: the betting-cache mode (needs a cache).
        ``hole_events``: where to put each seat's HoleCards event (rules mode), for the
        caller to pass on to the seat that owns it."""
        if self.in_hand:
            raise RuntimeError(f"{started.hand_id}: the driver's last hand was not settled")
        names = started.players
        n = len(names)
        if len(holes) != n:
            raise ValueError(f"{started.hand_id}: {len(holes)} hands dealt to {n} seats")
        if fast and self.cache is None:
            raise ValueError("the fast mode needs a betting cache")
        self.fast = fast
        self.started = started
        self.names = names
        self.holes = tuple(holes)
        self._cards = board
        self.betting = ""
        self.rounds = [()]
        self.board = ()
        self.folded = [False] * n
        self.actor = -1
        self.legal = _NO_ACTIONS
        self._point = None
        acted = self._acted
        moves = acted.get(names)
        if moves is None:
            if len(acted) >= _LINEUPS_KEPT:
                acted.clear()  # a long-lived table meets many line-ups: keep the recent ones'
            moves = acted[names] = tuple([tuple([PlayerActed(name, a) for a in Action]) for name in names])
        self._moves = moves
        if fast:
            self._acts = []
            self.in_hand = True
            return
        tracker = self.tracker
        tracker.apply(started)
        for name, hole in zip(names, holes):
            event = _make_holes(name, hole)
            tracker.apply(event)
            if hole_events is not None:
                hole_events.append(event)
        self._state = tracker.state
        self.in_hand = True  # (a start the rules refused leaves no hand to settle)

    def step(self) -> int:
        """What comes next: ACT (then ``actor`` and ``legal`` are set), BOARD or OVER."""
        if self.fast:
            cache = self.cache
            assert cache is not None  # start checked it
            point = cache.point(self.betting, self._events)
            self._point = point
            self.actor = point.actor
            self.legal = point.legal
            return point.kind
        st = self._state
        assert st is not None  # started
        phase = st.phase
        if phase == _BETTING:
            actor = st.actor
            assert actor is not None  # someone acts while betting
            self.actor = actor
            self.legal = st.legal_actions()
            return ACT
        if phase == _BOARD_DEALING:
            return BOARD
        return OVER

    def to_act(self) -> Turn | None:
        """Whose turn it is and what it may do; None when the next step is not a move."""
        if self.step() != ACT:
            return None
        return Turn(self.actor, self.legal)

    def apply(self, action: Action) -> PlayerActed:
        """Take the actor's move (after :meth:`step` returned ACT); the move taken. One that
        is not legal now is taken as check/call and counted (the ACPC dealer's rule): the
        event's action then differs from ``action``."""
        if action not in self.legal:
            action = self._defaulted(False)
        # The move is applied here and only here (one call a move: the hot path of self-play).
        actor = self.actor
        event = self._moves[actor][action]
        if self.fast:
            self._acts.append(event)
        else:
            self.tracker.apply(event)
        self.betting += _LETTERS[action]
        if action == _FOLD:
            self.folded[actor] = True
        return event

    def apply_default(self, *, check_or_fold: bool = False) -> PlayerActed:
        """The actor's move came late, malformed or not at all: check/call (the ACPC
        dealer's rule), or with ``check_or_fold`` check when it is free and fold when the
        actor faces a bet (a live table's rule for a player who let his time run out);
        counted. The move taken."""
        # Legal by the rules, so apply takes it as it is (no second count): check/call is
        # open to every actor, and a fold is chosen only facing a bet.
        return self.apply(self._defaulted(check_or_fold))

    def _defaulted(self, check_or_fold: bool) -> Action:
        """Count the actor's default move and say which it is (see :meth:`apply_default`)."""
        name = self.names[self.actor]
        defaults = self.defaults
        # Most recently counted last; a long-lived table meets many players: only the
        # latest _PLAYERS_KEPT are kept (an in-process match or tournament has a handful).
        count = defaults.pop(name, 0) + 1
        defaults[name] = count
        if len(defaults) > _PLAYERS_KEPT:
            del defaults[next(iter(defaults))]
        if check_or_fold:
            st = self._state
            facing = Action.FOLD in self.legal if st is None or self.fast else st.to_call(self.actor) > 0
            if facing:
                return Action.FOLD
        return Action.CHECK_CALL

    def leave(self, position: int) -> bool:
        """``position`` leaves the hand now (a player who left the table; rules mode): its
        hand is folded when the rules let it go now (True), else it is kept in, to be
        checked or folded in turn (False)."""
        st = self._state
        if self.fast or st is None or st.phase == Phase.OVER or not st.can_leave(position):
            return False
        self.tracker.apply(PlayerLeft(self.names[position]))
        self.folded[position] = True
        return True

    def abandon(self) -> None:
        """Give the hand up unsettled (a voided hand): the next :meth:`start` deals anew
        (the tracker counts the abandoned hand when the next one starts)."""
        self.in_hand = False

    @property
    def state(self) -> State | None:
        """The rules mode's state of the hand (read it, never move it from outside): the
        stacks, bets, pot and operations a table announces."""
        return None if self.fast else self._state

    def deal_board(self) -> BoardDealt:
        """Deal the board cards the rules ask for now (after :meth:`step` returned BOARD)."""
        if self.fast:
            point = self._point
            assert point is not None  # step set it
            count = point.cards
        else:
            st = self._state
            assert st is not None  # started
            count = st.pending_board_count
        dealt = len(self.board)
        new = tuple(self._cards[dealt:dealt + count])
        event = _make_board(new)
        if self.fast:
            self._acts.append(event)
        else:
            self.tracker.apply(event)
        self.board += new
        self.rounds.append(new)
        self.betting += "/"
        return event

    def settle(self) -> Settlement:
        """End the hand (after :meth:`step` returned OVER) and pay it: the rules state's
        record, or in the fast mode the cache's pots paid by :func:`settle_point`."""
        if self.fast:
            self.in_hand = False
            names = self.names
            end = self._point
            assert end is not None and end.kind == OVER  # step said OVER
            nets = settle_point(end, self.holes, self.board)
            assert nets is not None  # every hole is known to the dealer
            put_in = end.put_in
            results = tuple(PlayerResult(name, put_in[q], nets[q] + put_in[q]) for q, name in enumerate(names))
            return Settlement(tuple(nets), results, None)
        record = self._record()
        results = record.results  # one per seat, in seat order (the tracker's record)
        return Settlement(tuple([r.won - r.put_in for r in results]), results, record)

    def _record(self) -> HandRecord:
        """End the rules mode's hand: the tracker's record (its pots paid by pay_pots)."""
        self.in_hand = False
        record = self.tracker.apply(ENDED)
        assert record is not None  # HandEnded always ends a hand with its record
        return record

    def ended(self, settlement: Settlement) -> HandRecord | SettledHand:
        """What a seat is told of the settled hand's end: the record, or the fast mode's
        results."""
        if settlement.record is not None:
            return settlement.record
        started = self.started
        assert started is not None  # a hand was dealt
        return SettledHand(started.hand_id, started.small_bet, settlement.results)

    def snapshot(self, position: int) -> GameContext:
        """The table as ``position`` sees it now (its own hole cards only)."""
        if not self.fast:
            return self.tracker.snapshot(self.names[position])
        started, cache = self.started, self.cache
        assert started is not None and cache is not None  # started in the fast mode
        return cache.context(
            self.names, self.betting, position, started.hand_id, self.board, self.holes[position],
            self._events)

    def _events(self) -> list[Event]:
        """The fast mode's hand so far as events (asked by the cache on a miss)."""
        started = self.started
        assert started is not None  # started
        return [started, *[_make_holes(name, hole) for name, hole in zip(self.names, self.holes)], *self._acts]

    # --- the synchronous loop ------------------------------------------------------------

    def play(self, acts: Sequence[Callable[[GameContext], Action]],
             observe: Callable[[Event], None] | None = None) -> HandRecord:
        """Run a hand started in the rules mode to its end and settle it; its record.
        ``acts[position]`` is asked the actor's move with the actor's snapshot; ``observe``
        is told every action and board as it happens.

        Self-play's hot loop, so each turn is :meth:`step`'s rules mode read in place (the
        state's phase and actor) and its legal moves are the ones the actor's snapshot
        shows (the same rules state's, computed once a turn); moves are taken by
        :meth:`apply` and boards dealt by :meth:`deal_board` as for every dealer."""
        st = self._state
        if self.fast or not self.in_hand or st is None:
            raise RuntimeError("play runs a hand started in the rules mode")
        view = self.tracker.snapshot
        names = self.names
        apply, deal_board = self.apply, self.deal_board
        while True:
            phase = st.phase
            if phase == _BETTING:
                actor = st.actor
                assert actor is not None  # someone acts while betting
                self.actor = actor
                context = view(names[actor])
                self.legal = context.legal_actions
                event: Event = apply(acts[actor](context))
            elif phase == _BOARD_DEALING:
                event = deal_board()
            else:
                return self._record()
            if observe is not None:
                observe(event)
