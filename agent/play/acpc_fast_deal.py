"""The dealer's fast path: what the rules say about a hand, learnt once per betting string.

When no in-process seat follows every event (each is absent, remote, or decides on a
snapshot: ``Seat.follows_events`` False, agent.play.seat), the dealer (agent.play.acpc_dealer)
does not need a rules state per hand. In limit hold'em with the game's fixed sizes and
no stacks, the cards change neither whose turn it is, nor what is legal, nor how many
board cards come next, nor what each position has put in: all of it follows from the
betting string alone. :class:`RulesCache` asks the one rules engine (agent.game.rules
through agent.game.tracker) the first time a betting string is met, by replaying the
hand so far through a scratch tracker, and keeps the answer; after that a step is a
dictionary look-up. The same holds for the snapshot a seat deciding on the dealer's
view is shown: kept per (players in position order, betting, viewer) with this hand's
id, board and hole cards put in (as agent.play.acpc_lean does on the client side).

A hand's result comes from the final betting (chips put in, live positions) and the
evaluator: a fold leaves one winner, a showdown with one best hand or a pot the winners
split evenly pays as the rules pay. Anything else (an odd chip, an all-in) is settled by
the rules engine, replaying the whole hand once (:func:`settle`).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.game.context import GameContext, context_template
from agent.game.events import BoardDealt, Event, HandEnded, HandStarted, HoleCards
from agent.game.records import PlayerResult
from agent.game.rules import Action, Phase
from agent.game.slots import slot_constructor
from agent.game.tracker import Tracker
from connectors.acpc.protocol import ACTION_CHAR
from evaluator_pyx import evaluate_cards
from evaluator_pyx.cards import CARD_NAMES as _CARD_TEXT

__all__ = ["ACT", "BOARD", "OVER", "CACHE_LIMIT", "FastHands", "RulesCache", "SettledHand",
           "results_of", "settle"]

ACT, BOARD, OVER = 0, 1, 2  # the kinds of RulesCache.step entries
CACHE_LIMIT = 1 << 16  # entries kept per table; cleared when full
_make_context = slot_constructor(GameContext)
_ENDED = HandEnded()
_make_holes = slot_constructor(HoleCards)
_make_board = slot_constructor(BoardDealt)


@dataclass(frozen=True, slots=True)
class SettledHand:
    """What a seat that decided on snapshots is told at a hand's end (``Seat.hand_done``
    reads the results and the small bet of a HandRecord; a fast-path hand has no full
    record)."""

    hand_id: str
    small_bet: int
    results: tuple[PlayerResult, ...]


class RulesCache:
    """Answers of the rules engine per betting string, for one table (one game, one
    number of players)."""

    def __init__(self) -> None:
        self._steps: dict[str, tuple] = {}
        self._contexts: dict[tuple, tuple] = {}
        self.learnt = 0  # replays through the rules engine (cache misses)

    def step(self, betting: str, events: Callable[[], Sequence[Event]]) -> tuple:
        """After ``betting`` (``events()``: this hand's events so far, asked for only on
        a miss): ``(ACT, actor, legal)``,
        ``(BOARD, cards to deal)`` or ``(OVER, put_in, live positions, all-in)``."""
        entry = self._steps.get(betting)
        if entry is None:
            st = self._replay(events()).state
            phase = st.phase
            if phase == Phase.BETTING:
                entry = (ACT, st.actor, st.legal_actions())
            elif phase == Phase.BOARD_DEALING:
                entry = (BOARD, st.pending_board_count)
            else:
                entry = (OVER, tuple(st.put_in), tuple(st.active), bool(st.all_in))
            steps = self._steps
            if len(steps) >= CACHE_LIMIT:
                steps.clear()
            steps[betting] = entry
        return entry

    def context(self, names: tuple[str, ...], betting: str, viewer: int, hand_id: str,
                board: tuple[int, ...], hole: tuple[int, ...],
                events: Callable[[], Sequence[Event]]) -> GameContext:
        """The snapshot of position ``viewer`` now, as the tracker would give it."""
        key = (names, betting, viewer)
        entry = self._contexts.get(key)
        if entry is None:
            ctx = self._replay(events()).snapshot(names[viewer])
            entry = context_template(ctx)
            contexts = self._contexts
            if len(contexts) >= CACHE_LIMIT:
                contexts.clear()
            contexts[key] = entry
        return _make_context(hand_id, *entry[0], board, *entry[1], hole)

    def _replay(self, events: Sequence[Event]) -> Tracker:
        self.learnt += 1
        tracker = Tracker()
        for event in events:
            tracker.apply(event)
        return tracker


def settle(facts: tuple, holes: Sequence[tuple[int, ...]], board: tuple[int, ...],
           names: tuple[str, ...], events: Callable[[], Sequence[Event]]
           ) -> tuple[list[int], tuple | None]:
    """Each position's net result of a finished hand, and the rules engine's record's
    results when it had to settle it (None otherwise). ``facts`` is the OVER entry;
    ``events()`` the hand's events, asked for only then."""
    _, put_in, live, all_in = facts
    n = len(put_in)
    pot = sum(put_in)
    won = [0] * n
    if len(live) == 1:
        won[live[0]] = pot
    else:
        winners: list[int] = []
        if not all_in:
            best = -1
            for q in live:
                value = evaluate_cards(holes[q] + board)
                if value > best:
                    best = value
                    winners = [q]
                elif value == best:
                    winners.append(q)
        if all_in or pot % len(winners):
            # Side pots and odd chips: the rules engine's way, once.
            tracker = Tracker()
            for event in events():
                tracker.apply(event)
            record = tracker.apply(_ENDED)
            by_name = {r.player: r.won - r.put_in for r in record.results}  # type: ignore[union-attr]
            return [by_name[name] for name in names], record.results  # type: ignore[union-attr]
        share = pot // len(winners)
        for q in winners:
            won[q] = share
    return [won[q] - put_in[q] for q in range(n)], None


def results_of(names: tuple[str, ...], nets: Sequence[int], facts: tuple) -> tuple[PlayerResult, ...]:
    """Per-seat results (chips put in, chips won) from the nets and the put-in amounts."""
    put_in = facts[1]
    return tuple(PlayerResult(name, put_in[q], nets[q] + put_in[q]) for q, name in enumerate(names))


class FastHands:
    """The fast path's half of agent.play.acpc_dealer.AcpcDealer (a base class of it): a
    hand dealt by its betting string. It uses the dealer's own sending, asking and
    logging (``_send``, ``_action_of``, ``_write``, ``_later``, ``_rules``)."""

    def _play_fast(self, hand: int, started: HandStarted, at: list[Any],
                   holes: list[tuple[int, ...]], board_cards: list[int],
                   remote: list[tuple[int, Any]], viewers: list[Any], budget: float) -> None:
        """A hand dealt by its betting string (agent.play.acpc_fast_deal): the same states
        sent, the same answers asked, the same log line as :meth:`_play_hand`'s rules
        state gives."""
        n = len(at)
        names = started.players
        hand_id = started.hand_id
        rules = self._rules
        acts: list[Event] = []  # this hand's actions and boards, for the rules on a miss

        def events() -> list[Event]:
            return [started, *[_make_holes(names[q], holes[q]) for q in range(n)], *acts]

        betting = ""
        board_text = ""
        board: tuple[int, ...] = ()  # the cards dealt so far
        dealt = 0
        folded = [False] * n
        hole_texts = [_CARD_TEXT[h[0]] + _CARD_TEXT[h[1]] for h in holes]
        heads = [f"MATCHSTATE:{p}:{hand}:" for p in range(n)]
        own_views = ["|" * p + hole_texts[p] + "|" * (n - 1 - p) for p in range(n)]
        while True:
            entry = rules.step(betting, events)
            kind = entry[0]
            if kind == BOARD:
                count = entry[1]
                new = tuple(board_cards[dealt:dealt + count])
                dealt += count
                board = tuple(board_cards[:dealt])
                acts.append(_make_board(new))
                betting += "/"
                board_text += "/" + "".join(_CARD_TEXT[c] for c in new)
                continue
            if kind == ACT:
                for p, seat in remote:
                    self._send(seat, f"{heads[p]}{betting}:{own_views[p]}{board_text}")
            else:
                showdown = folded.count(False) > 1
                for p, seat in remote:
                    if showdown:
                        view = "|".join(hole_texts[q] if q == p or not folded[q] else ""
                                        for q in range(n))
                    else:
                        view = own_views[p]
                    self._send(seat, f"{heads[p]}{betting}:{view}{board_text}")
                break
            actor = entry[1]
            seat = at[actor]
            if seat.viewer:
                self._view = (names, betting, actor, hand_id, board,
                              holes[actor], events)
            try:
                action = self._action_of(seat, entry[2], budget)
            finally:
                self._view = None
            seat.report.actions += 1
            acts.append(seat.acted[action])
            betting += ACTION_CHAR[action]
            if action == Action.FOLD:
                folded[actor] = True
        self._later.append((self._end_fast, (entry, holes, board, names,
                                             events, viewers, at, hand, betting,
                                             "|".join(hole_texts) + board_text, hand_id)))

    def _end_fast(self, facts: tuple, holes: list, board: tuple[int, ...], names: tuple[str, ...],
                  events: Callable[[], list[Event]], viewers: list[Any], at: list[Any],
                  hand: int, betting: str, cards: str, hand_id: str) -> None:
        """Settle a fast-path hand (the evaluator, or the rules when only they can), tell
        the seats that decided on snapshots, log it."""
        nets, results = settle(facts, holes, board, names, events)
        if viewers:
            record = SettledHand(hand_id, self.game.small_bet,
                                 results if results is not None else results_of(names, nets, facts))
            self._each_local(viewers, "hand_done", record)
        values = []
        for seat, value in zip(at, nets):
            seat.report.total += value
            values.append(str(value))
        self._write(f"STATE:{hand}:{betting}:{cards}:{'|'.join(values)}:{'|'.join(names)}")
