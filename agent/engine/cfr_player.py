"""The ``cfr`` player: heads-up limit hold'em by an abstract game's equilibrium strategy,
PsOpti's approach (Billings et al., IJCAI 2003) solved by CFR+ (agent.engine.equilibrium).

At each decision it finds the hand's betting in the abstract game's tree, the bucket
sequence of its cards (agent.engine.abstraction: E[HS²] percentile buckets, the flop's
about 30 ms once per board, the turn's about 1 ms), and draws an action from the average
strategy there with its own generator. It keeps no state between hands and learns
nothing: it plays the same against everyone.

It plays heads-up only, at the abstract game's structure; at any other table it says so
(agent.engine.heads_up.HeadsUpError) instead of guessing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from agent.engine.equilibrium import DEFAULT_STRATEGY, load_strategy
from agent.engine.heads_up import StrategyView, check_structure, spot_of
from agent.engine.resolve import RiverResolver
from agent.game.rules import Action
from agent.players import BasePlayer, Param, PlayerKind

if TYPE_CHECKING:
    from agent.game.context import GameContext

__all__ = ["CFR_KIND", "EquilibriumPlayer"]


class EquilibriumPlayer(BasePlayer):
    """See the module docstring. ``strategy``: a strategy file (default: the shipped one)."""

    def __init__(self, name: str, rng: np.random.Generator, strategy: str = "", resolve: str = "off") -> None:
        super().__init__(name, rng)
        self.strategy_file = load_strategy(strategy or None)
        self.view = StrategyView(self.strategy_file.game, self.strategy_file.policy)
        self.off_tree = 0  # drawn actions the table did not allow (a raise with no chips): calls
        # resolve="river": the river re-solved at its first decision (agent.engine.resolve).
        self.resolver = RiverResolver() if resolve == "river" else None

    def act(self, ctx: GameContext) -> Action:
        check_structure(ctx, self.name)
        hole = ctx.hole_cards
        if not hole or len(hole) != 2:
            raise ValueError(f"{self.name}: hand {ctx.hand_id} gave us no hole cards")
        view = self.view if self.resolver is None else self.resolver.at(self.view, ctx, self.name)
        spot = spot_of(view.game, ctx, self.name)
        probs = view.probabilities(spot.node, hole, ctx.board)
        action, legal = view.choose(spot.node, probs, self.rng, ctx.legal_actions)
        if not legal:
            self.off_tree += 1
        return action

    def policy(self) -> StrategyView:
        """The strategy it plays (for a local best response, which knows its opponent)."""
        return self.view


# The kind agent.play.kinds registers (the registry is filled from above, never by import).
CFR_KIND = PlayerKind(
    "cfr",
    lambda name, rng, strategy, resolve: EquilibriumPlayer(name, rng, strategy, resolve),
    {"strategy": Param(str, "", f"strategy file from `poki train-cfr` (default: the shipped "
                                f"{DEFAULT_STRATEGY.name})"),
     "resolve": Param(str, "off", "river: re-solve the river exactly at its first decision, safely "
                                  "(agent.engine.resolve)", choices=("off", "river"))},
    "heads-up equilibrium of an abstract game, solved by CFR+ (PsOpti's successor; heads-up only)")
