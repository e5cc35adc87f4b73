"""The context of a decision, defined once: the tracker's read-only snapshot of the public
game context (seed 004), and the opponent-model context every part reads — the tracker's
records, the player's re-weighting, the database's counts and the shadow scorer.

An opponent-model context is round × bets to call (0, 1, 2+): twelve contexts, the
"betting frequencies in different contexts" of seed 004 §3.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.game.rules import Action

if TYPE_CHECKING:
    from agent.game.records import ActionRecord

__all__ = ["N_CONTEXTS", "GameContext", "context_name", "decision_context"]

N_CONTEXTS = 12  # 4 rounds × bets to call 0 / 1 / 2+ (seed 004)
_ROUND_NAMES = ("preflop", "flop", "turn", "river")
_BETS_NAMES = ("0 bets", "1 bet", "2+ bets")


def decision_context(round_: int, bets_to_call: int) -> int:
    """Opponent-model context 0..11 of a decision in ``round_`` (0 pre-flop .. 3 river)
    facing ``bets_to_call`` whole bets."""
    return 3 * round_ + (bets_to_call if bets_to_call < 2 else 2)


def context_name(context: int) -> str:
    """'flop, 1 bet' for context 4."""
    return f"{_ROUND_NAMES[context // 3]}, {_BETS_NAMES[context % 3]}"


@dataclass(frozen=True, slots=True)
class GameContext:
    """The public game context at one moment of a hand, as one viewer sees it.

    Per-seat tuples are indexed by seat (clockwise table order, as ``players``).
    ``history`` holds one tuple per round reached, each a tuple of (player, kind) in the
    order taken, kinds as in agent.game.records (sb bb f k c b r); ``actions`` holds the
    same actions as the tracker recorded them, each with the bets it faced, the players
    active and its opponent-model context, so no decider works them out again.
    """

    hand_id: str
    players: tuple[str, ...]
    button: int
    positions: tuple[int, ...]  # seats after the button: 1 = first after it, n = the button
    stacks: tuple[int, ...]  # chips behind now
    put_in: tuple[int, ...]  # chips put in this hand so far
    active: tuple[str, ...]  # players not folded (all-in ones included), in seat order
    round: int  # 0 pre-flop, 1 flop, 2 turn, 3 river (4 showdown, 5 over)
    board: tuple[int, ...]
    pot: int  # every chip put in so far, this round's bets included
    small_bet: int
    big_bet: int
    bet_size: int  # the fixed bet of this round
    max_bets: int
    bets_this_round: int  # bets made this round; pre-flop the big blind is the first
    raises_this_round: int
    actor: str | None  # who is to act (None while dealing, at showdown, when over)
    actor_seat: int | None
    to_call: int  # chips the actor would put in by calling (0 when checking is free)
    bets_to_call: int  # ceil(to_call / bet_size)
    legal_actions: tuple[Action, ...]
    history: tuple[tuple[tuple[str, str], ...], ...]
    actions: tuple[ActionRecord, ...]  # every action so far, each with its context
    viewer: str | None
    hole_cards: tuple[int, ...] | None  # the viewer's own cards, if known

    @property
    def players_active(self) -> int:
        return len(self.active)

    @property
    def opponents(self) -> int:
        """Live players besides the actor (or the viewer when nobody acts)."""
        return len(self.active) - 1

    @property
    def position(self) -> int | None:
        """The actor's position (1 = first after the button, n = the button)."""
        return None if self.actor_seat is None else self.positions[self.actor_seat]

    @property
    def pot_odds(self) -> float:
        """Chips to call over the pot after calling (seed 001); 0 when checking is free."""
        return self.to_call / (self.pot + self.to_call) if self.to_call else 0.0

    @property
    def can_raise(self) -> bool:
        return Action.BET_RAISE in self.legal_actions

    @property
    def can_fold(self) -> bool:
        return Action.FOLD in self.legal_actions
