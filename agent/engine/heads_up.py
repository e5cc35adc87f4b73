"""Playing an abstract-game strategy at a real heads-up table: where a hand's public
betting is in the abstract game's tree, which bucket sequence our cards are, and the
action probabilities there, for our holding or for every holding at once (what a local
best response needs of its opponent).

A real heads-up limit hand with the standard structure (blinds of half a small bet and
one small bet, big bets twice the small, four bets a round) is always in the tree: the
abstraction is of the cards only. A table with another structure, or more than two
players dealt in, has no abstract strategy: ``HeadsUpError`` says so.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

import evaluator_pyx as ev
from agent.engine.equilibrium import ACTION_LETTERS, AbstractGame
from agent.game.rules import Action

if TYPE_CHECKING:
    from agent.game.context import GameContext

__all__ = ["HeadsUpError", "Spot", "StrategyView", "betting_string", "spot_of"]

_LETTER_OF_KIND = {"f": "f", "k": "c", "c": "c", "b": "r", "r": "r"}
ACTION_OF_LETTER = {"f": Action.FOLD, "c": Action.CHECK_CALL, "r": Action.BET_RAISE}


class HeadsUpError(ValueError):
    """A hand the abstract heads-up game does not cover."""


def betting_string(history: Sequence[Sequence[tuple[str, str]]]) -> str:
    """The ACPC-style betting of a hand's history (GameContext.history): per round the
    letters f, c (check or call), r (bet or raise), rounds joined by '/'; blinds left out."""
    rounds = []
    for actions in history:
        rounds.append("".join(_LETTER_OF_KIND[kind] for _, kind in actions if kind in _LETTER_OF_KIND))
    return "/".join(rounds)


@dataclass(frozen=True)
class Spot:
    """Where a real decision is in the abstract game: the decision node, the abstract
    seat of the player to act (0 the button, 1 the big blind) and the round."""

    node: int
    seat: int
    round: int


def check_structure(ctx: GameContext, who: str) -> None:
    """The table plays the abstract game's structure, with two players."""
    if len(ctx.players) != 2:
        raise HeadsUpError(f"{who} plays heads-up only: hand {ctx.hand_id} has {len(ctx.players)} players")
    if ctx.big_bet != 2 * ctx.small_bet or ctx.max_bets != 4:
        raise HeadsUpError(f"{who} was solved for big bets of two small bets and a cap of 4 bets; hand "
                           f"{ctx.hand_id} has bets {ctx.small_bet}/{ctx.big_bet}, cap {ctx.max_bets}")
    blinds = [a.amount for a in ctx.actions if a.kind in ("sb", "bb")]
    if blinds and sorted(blinds) != [ctx.small_bet // 2, ctx.small_bet] or ctx.small_bet % 2:
        raise HeadsUpError(f"{who} was solved for blinds of half a small bet and one small bet; hand "
                           f"{ctx.hand_id} has blinds {blinds} with a small bet of {ctx.small_bet}")


def spot_of(game: AbstractGame, ctx: GameContext, player: str) -> Spot:
    """The abstract decision of ``player`` (to act in ``ctx``)."""
    betting = betting_string(ctx.history)
    node = game.tree.node_of.get(betting)
    if node is None:
        raise HeadsUpError(f"hand {ctx.hand_id}: betting {betting!r} is not in the abstract game")
    seat = 0 if ctx.players.index(player) == ctx.button else 1
    if int(game.tree.actor[node]) != seat:
        raise HeadsUpError(f"hand {ctx.hand_id}: at {betting!r} the abstract game has seat "
                           f"{int(game.tree.actor[node])} to act, not {player} (seat {seat})")
    return Spot(node, seat, int(game.tree.round[node]))


class StrategyView:
    """An abstract game's strategy (one probability per entry, AbstractGame.offset's
    layout) read at real decisions."""

    def __init__(self, game: AbstractGame, policy: np.ndarray) -> None:
        if policy.shape != (game.size,):
            raise ValueError(f"a strategy of {policy.shape} entries for a game of {game.size}")
        self.game = game
        self.policy = policy

    def letters(self, node: int) -> str:
        """The node's actions as letters (f c r), in the strategy's order."""
        return "".join(ACTION_LETTERS[a] for a in self.game.block_of[node].letters)

    def probabilities(self, node: int, hole: Sequence[int], board: Sequence[int]) -> np.ndarray:
        """Action probabilities at ``node`` for our hole cards (in ``letters(node)`` order)."""
        rnd = int(self.game.tree.round[node])
        seq = self.game.abstraction.sequence_of(hole, board, rnd)
        return self.game.probabilities(self.policy, node, seq)

    def all_holdings(self, node: int, board: Sequence[int]) -> np.ndarray:
        """(1326, actions) probabilities of every holding at ``node`` on ``board``; rows of
        holdings that touch the board are zero."""
        g = self.game
        rnd = int(g.tree.round[node])
        seqs = g.abstraction.sequences(board, rnd)
        k = int(g.tree.n_child[node])
        lo = int(g.offset[node])
        live = seqs >= 0
        out = np.zeros((ev.N_HOLDINGS, k), dtype=np.float64)
        idx = lo + seqs[live, None] * k + np.arange(k)[None, :]
        out[live] = self.policy[idx]
        return out

    def choose(self, node: int, probs: np.ndarray, rng: np.random.Generator, legal: Sequence[Action]) -> tuple[Action, bool]:
        """Draw an action; (the action, whether it was legal as drawn: a raise that the
        stacks do not allow becomes a call)."""
        letters = self.letters(node)
        total = float(probs.sum())
        x = rng.random() * total if total > 0 else 0.0
        pick = len(letters) - 1
        for i, p in enumerate(probs):
            x -= float(p)
            if x < 0.0:
                pick = i
                break
        action = ACTION_OF_LETTER[letters[pick]]
        if action in legal:
            return action, True
        return (Action.CHECK_CALL if Action.CHECK_CALL in legal else legal[0]), False
