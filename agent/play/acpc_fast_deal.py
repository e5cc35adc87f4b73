"""The dealer's fast path: hands dealt by their betting string.

When no in-process seat follows every event (each is absent, remote, or decides on a
snapshot: ``Seat.follows_events`` False, agent.play.seat), the dealer (agent.play.acpc_dealer)
does not need a rules state per hand: in limit hold'em with the game's fixed sizes and no
stacks, whose turn it is, what is legal, how many board cards come next, what each
position has put in and who may win which pot all follow from the betting string
(agent.game.betting: the rules engine's answers, learnt once per string). The snapshot a
seat deciding on the dealer's view is shown comes from the same cache.

A hand's result is the rules' own settlement (agent.game.showdown.pay_pots, through
:meth:`~agent.game.betting.BettingPoint.won`) of the pots the rules gave for the final
betting, with the hands shown valued by the evaluator: the same chips as the rules state.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.game.betting import ACT, BOARD, BettingPoint
from agent.game.events import BoardDealt, Event, HandStarted, HoleCards
from agent.game.records import PlayerResult
from agent.game.rules import Action
from agent.game.slots import slot_constructor
from connectors.acpc.protocol import ACTION_CHAR
from evaluator_pyx import evaluate_cards
from evaluator_pyx.cards import CARD_NAMES as _CARD_TEXT

__all__ = ["FastHands", "SettledHand", "results_of", "settle"]

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


def settle(end: BettingPoint, holes: Sequence[tuple[int, ...]], board: tuple[int, ...]) -> list[int]:
    """Each position's net result of a finished hand (``end``: the point after its final
    betting), the live hands valued by the evaluator and paid by the rules' settlement."""
    live = end.live
    values = [0] * len(end.put_in)
    if len(live) > 1:
        for q in live:
            values[q] = evaluate_cards(holes[q] + board)
    won = end.won(values)
    put_in = end.put_in
    return [won[q] - put_in[q] for q in range(len(put_in))]


def results_of(end: BettingPoint, nets: Sequence[int], names: tuple[str, ...]) -> tuple[PlayerResult, ...]:
    """Per-seat results (chips put in, chips won) of a hand settled by :func:`settle`."""
    put_in = end.put_in
    return tuple(PlayerResult(name, put_in[q], nets[q] + put_in[q]) for q, name in enumerate(names))


class FastHands:
    """The fast path's half of agent.play.acpc_dealer.AcpcDealer (a base class of it): a
    hand dealt by its betting string. It uses the dealer's own sending, asking and
    logging (``_send``, ``_action_of``, ``_write``, ``_later``, ``_rules``: its
    agent.game.betting.BettingCache)."""

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
            point = rules.point(betting, events)
            kind = point.kind
            if kind == BOARD:
                count = point.cards
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
            actor = point.actor
            seat = at[actor]
            if seat.viewer:  # the seat decides on the dealer's snapshot, from the cache
                self._view = rules.context(names, betting, actor, hand_id, board, holes[actor], events)
            try:
                action = self._action_of(seat, point.legal, budget)
            finally:
                self._view = None
            seat.report.actions += 1
            acts.append(seat.acted[action])
            betting += ACTION_CHAR[action]
            if action == Action.FOLD:
                folded[actor] = True
        self._later.append((self._end_fast, (point, holes, board, names, viewers, at, hand, betting,
                                             "|".join(hole_texts) + board_text, hand_id)))

    def _end_fast(self, end: BettingPoint, holes: list, board: tuple[int, ...], names: tuple[str, ...],
                  viewers: list[Any], at: list[Any], hand: int, betting: str, cards: str, hand_id: str) -> None:
        """Settle a fast-path hand (the rules' settlement of the pots the rules gave), tell
        the seats that decided on snapshots, log it."""
        nets = settle(end, holes, board)
        if viewers:
            self._hands_done(viewers, SettledHand(hand_id, self.game.small_bet, results_of(end, nets, names)))
        values = []
        for seat, value in zip(at, nets):
            seat.report.total += value
            values.append(str(value))
        self._write(f"STATE:{hand}:{betting}:{cards}:{'|'.join(values)}:{'|'.join(names)}")
