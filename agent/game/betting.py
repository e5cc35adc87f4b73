"""The betting-state cache: what the rules say after a betting string, learnt once per
string and kept (for the tables that deal or follow hands by their betting alone).

In limit hold'em with a game's fixed sizes and no stacks to run out, the cards change
neither whose turn it is, nor what is legal, nor how many board cards come next, nor what
each position has put in, nor who may win which pot: all of it follows from the betting
string (the ACPC protocol's ``cr/rc...``, one letter per action, ``/`` closing a round).
:class:`BettingCache` asks the one rules engine (agent.game.rules through
agent.game.tracker) the first time a string is met, by replaying the hand so far through
a scratch tracker, and keeps the answer as a :class:`BettingPoint`; after that a step is
a dictionary look-up. The same holds for the snapshot a seat is shown at its turn: kept
per (players by position, betting, viewer) as a :class:`~agent.game.context.ContextTemplate`
and completed with the hand's own id, board and hole cards.

A finished hand is settled by :meth:`BettingPoint.won` with the rules' own settlement
(agent.game.showdown.pay_pots) over the pots the rules state gave for that betting: the
hand driver's fast mode (agent.play.hand_driver) and the lean ACPC client
(agent.play.acpc.lean) deal and follow hands this way.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, cast

from agent.game.context import ContextTemplate, GameContext, context_template
from agent.game.events import CardsShown, Event, HandEnded
from agent.game.operations import Pot
from agent.game.rules import Action, Phase
from agent.game.showdown import pay_pots, pots
from agent.game.tracker import Tracker

__all__ = ["ACT", "BOARD", "CACHE_LIMIT", "OVER", "BettingCache", "BettingPoint"]

ACT, BOARD, OVER = 0, 1, 2  # what comes after a betting string: an action, board cards, the end
CACHE_LIMIT = 1 << 16  # entries kept per cache; cleared when full
_BETTING, _BOARD, _HOLE_DEALING = Phase.BETTING, Phase.BOARD_DEALING, Phase.HOLE_DEALING
_UNKNOWN = object()  # not in the cache yet


class BettingPoint(NamedTuple):
    """The rules' answer after one betting string; positions are the hand's seats in
    order (0 the first after the button)."""

    kind: int  # ACT, BOARD or OVER
    actor: int  # ACT: the position to act; -1 otherwise
    legal: tuple[Action, ...]  # ACT: what it may do
    cards: int  # BOARD: how many board cards come next
    put_in: tuple[int, ...]  # chips each position has put in so far
    live: tuple[int, ...]  # positions not folded
    all_in: bool  # someone is all-in (only with stacks)
    pots: tuple[Pot, ...]  # OVER: main pot first, each with who may win it
    merge_pots: bool  # the variant's settlement rules (agent.game.variant)
    spread_odd: bool

    def won(self, values: Sequence[int]) -> list[int]:
        """Chips each position wins of the finished hand when each live position's hand is
        worth ``values[position]`` (larger wins; read only where two or more may win a
        pot): the rules' one settlement."""
        won = [0] * len(self.put_in)
        pay_pots(self.pots, values, self.merge_pots, self.spread_odd, won)
        return won


class BettingCache:
    """Answers of the rules engine per betting string, for one table (one game, one
    number of players); see the module docstring."""

    def __init__(self, limit: int = CACHE_LIMIT) -> None:
        self.limit = limit
        self._points: dict[str, BettingPoint] = {}
        self._contexts: dict[tuple[Any, ...], ContextTemplate] = {}
        self._turns: dict[tuple[Any, ...], ContextTemplate | None] = {}
        self.learnt = 0  # replays through the rules engine (cache misses)

    def point(self, betting: str, events: Callable[[], Sequence[Event]]) -> BettingPoint:
        """What comes after ``betting``; ``events()`` gives this hand's events so far
        (asked for only on a miss; cards shown and the hand's end are passed over).
        TrackerError when the rules refuse them."""
        point = self._points.get(betting)
        if point is None:
            point = self._learn(betting, self._replay(events()))
        return point

    def _learn(self, betting: str, tracker: Tracker) -> BettingPoint:
        """The point the rules state of ``tracker`` is at, kept for ``betting``."""
        st = tracker.state
        assert st is not None  # the events just replayed began a hand
        phase = st.phase
        variant = st.variant
        ended: tuple[Pot, ...] = ()
        if phase == _BETTING:
            kind, actor, legal, cards = ACT, cast(int, st.actor), st.legal_actions(), 0
        elif phase == _BOARD:
            kind, actor, legal, cards = BOARD, -1, (), st.pending_board_count
        else:
            kind, actor, legal, cards = OVER, -1, (), 0
            ended = tuple(pots(st))
        point = BettingPoint(kind, actor, legal, cards, tuple(st.put_in), tuple(st.active),
                             bool(st.all_in), ended, variant.merge_same_winners,
                             variant.odd_chips_spread)
        points = self._points
        if len(points) >= self.limit:
            points.clear()
        points[betting] = point
        return point

    def context(self, names: tuple[str, ...], betting: str, viewer: int, hand_id: str,
                board: tuple[int, ...], hole: tuple[int, ...],
                events: Callable[[], Sequence[Event]]) -> GameContext:
        """The snapshot position ``viewer`` is shown now, as the tracker would give it, with
        this hand's id, board and ``hole`` cards. TrackerError when the rules refuse the
        events."""
        key = (names, betting, viewer)
        template = self._contexts.get(key)
        if template is None:
            template = context_template(self._replay(events()).snapshot(names[viewer]))
            contexts = self._contexts
            if len(contexts) >= self.limit:
                contexts.clear()
            contexts[key] = template
        return template.build(hand_id, board, hole)

    def turn(self, betting: str, viewer: int, names: tuple[str, ...],
             events: Callable[[], Sequence[Event]]) -> ContextTemplate | None:
        """The template of position ``viewer``'s snapshot when ``betting`` leaves it to act
        (ContextTemplate.build completes it), None when it is not its turn: one look-up
        for a seat that follows a hand by its betting. TrackerError when the rules refuse
        the events."""
        key = (betting, viewer, names)
        turns = self._turns
        template = turns.get(key, _UNKNOWN)
        if template is _UNKNOWN:
            point = self._points.get(betting)
            tracker = None
            if point is None:  # one replay serves both
                tracker = self._replay(events())
                point = self._learn(betting, tracker)
            template = None
            if point.kind == ACT and point.actor == viewer:
                if tracker is None:
                    tracker = self._replay(events())
                template = context_template(tracker.snapshot(names[viewer]))
            if len(turns) >= self.limit:
                turns.clear()
            turns[key] = template
        return template  # type: ignore[return-value]  # the _UNKNOWN sentinel was replaced above

    def _replay(self, events: Sequence[Event]) -> Tracker:
        self.learnt += 1
        tracker = Tracker()
        for event in events:
            if type(event) is not CardsShown and type(event) is not HandEnded:
                tracker.apply(event)
        st = tracker.state
        if st is not None and st.phase == _HOLE_DEALING:
            tracker.snapshot()  # cards the source never gave (opponents') are face down
        return tracker
