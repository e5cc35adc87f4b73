"""Local best response (Lisý and Bowling, "Equilibrium approximation quality of current
no-limit poker bots", AAAI-17 Workshop on Computer Poker and Imperfect Information Games;
arXiv 1612.07547): a lower bound on how much a heads-up strategy loses to its best
response in the real game, with no abstraction, by a player that knows the strategy.

At each of its decisions LBR holds the opponent's range: every holding that shares no
card with its own cards or the board, weighted by the probability that the opponent's
strategy takes each action it took this hand with that holding. It then looks one action
ahead, supposing both players only check or call afterwards:

* wp: its share of the pot against the range with the board dealt out (exact after the
  flop by the potential tables of evaluator_pyx, a seeded roll-out pre-flop);
* call (or check): wp x pot - (1 - wp) x to call;
* raise (or bet): fp x pot + (1 - fp) x (wp x (pot + b) - (1 - wp) x (to call + b)), fp the
  range's probability of folding to the raise by the opponent's strategy and b one bet;
* fold: 0. It takes the best (a fold only when facing a bet).

Its win rate against the strategy is a lower bound on the strategy's exploitability in
the real game (a best response would win at least as much), in expectation; a match gives
it with a confidence interval (agent.play.lbr).

The opponent is anything that can say, at each of its decisions in this hand, the action
probabilities of every holding: ``opponent(ctx) -> StrategyView`` (agent.engine.heads_up),
asked afresh at every decision of a hand (a learning opponent may change between hands,
a re-solving one between rounds).

Registered (by agent.play.kinds, :func:`lbr_kind`) as ``lbr(target=cfr)`` and ``lbr(target=poki)``, to be seated against that
target (``poki match 'lbr(target=cfr)' cfr``): against ``cfr`` it reads the same strategy
file; against Poki heads-up it keeps a replica of Poki's responder (agent.engine.response)
fed the same finished hands, whose strategy is a function of those hands alone, so it
knows the strategy Poki plays at every moment without looking inside the other seat; with
``resolve=river`` it re-solves the target's river as the target does (agent.engine.resolve: the solve
reads public information only), with no deadline (a solve Poki abandons at its deadline,
counted in Poki's fallbacks, is one LBR models wrongly).
Against any other opponent its figure means nothing.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

import evaluator_pyx as ev
from agent.engine.heads_up import StrategyView, betting_string, check_structure
from agent.game.rules import Action
from agent.players import BasePlayer, Param, PlayerKind

if TYPE_CHECKING:
    from agent.config import Config
    from agent.game.context import GameContext
    from agent.game.records import HandRecord

__all__ = ["LocalBestResponse", "lbr_kind", "lbr_values", "range_of", "share_against"]

_LETTER_OF_KIND = {"f": "f", "k": "c", "c": "c", "b": "r", "r": "r"}
_BOARD_AT_ROUND = (0, 3, 4, 5)
_SEED_LIMIT = 2**62


def range_of(view: StrategyView, history: tuple, board: tuple[int, ...], opponent: str,
             blocked: int) -> np.ndarray:
    """The opponent's range now: 1326 weights, 0 for holdings touching ``blocked`` (our
    cards and the board), each other holding's weight the product over the opponent's
    actions this hand of its probability under the strategy (``view``)."""
    weights = np.ones(ev.N_HOLDINGS)
    weights[(ev.HOLDINGS_ARRAY & np.uint64(blocked)) != 0] = 0.0
    game = view.game
    prefix: list[str] = []
    for rnd, actions in enumerate(history):
        letters = ""
        for player, kind in actions:
            letter = _LETTER_OF_KIND.get(kind)
            if letter is None:
                continue  # a blind
            if player == opponent:
                node = game.tree.node_of["/".join(prefix + [letters])]
                probs = view.all_holdings(node, board[:_BOARD_AT_ROUND[rnd]])
                weights *= probs[:, view.letters(node).index(letter)]
            letters += letter
        prefix.append(letters)
    return weights


def share_against(hole: tuple[int, int], board: tuple[int, ...], weights: np.ndarray,
                  rng: np.random.Generator, preflop_trials: int) -> float:
    """Our expected share of the pot against an opponent holding drawn from ``weights``,
    the board dealt out with no more betting (ties half)."""
    hole_mask = ev.cards_to_mask(hole)
    board_mask = ev.cards_to_mask(board) if board else 0
    if len(board) == 5:
        return float(ev.hand_strength(hole_mask, board_mask, weights))
    if len(board) in (3, 4):
        table = np.asarray(ev.potential_table(hole_mask, board_mask, weights, 5 - len(board))).reshape(3, 3)
        final = table.sum(axis=0)  # columns: ahead, tied, behind at the end
        total = final.sum()
        return float((final[0] + 0.5 * final[1]) / total) if total > 0 else 0.5
    mean, _ = ev.rollout(hole_mask, 0, 1, preflop_trials, int(rng.integers(_SEED_LIMIT)), weights)
    return float(mean)


def lbr_values(wp: float, pot: float, to_call: float, bet: float, fold_share: float | None) -> dict[str, float]:
    """The utilities of LBR's choices (module docstring), in the units of the amounts;
    ``fold_share`` None when no raise is possible."""
    values = {"c": wp * pot - (1.0 - wp) * to_call}
    if to_call > 0:
        values["f"] = 0.0
    if fold_share is not None:
        fp = fold_share
        values["r"] = fp * pot + (1.0 - fp) * (wp * (pot + bet) - (1.0 - wp) * (to_call + bet))
    return values


class LocalBestResponse(BasePlayer):
    """See the module docstring. ``opponent``: returns the opponent's strategy view."""

    def __init__(self, name: str, rng: np.random.Generator, opponent: Callable[[GameContext], StrategyView],
                 preflop_trials: int = 2000) -> None:
        super().__init__(name, rng)
        self.opponent = opponent
        self.preflop_trials = preflop_trials
        self.last: dict[str, float] = {}

    def act(self, ctx: GameContext) -> Action:
        check_structure(ctx, self.name)
        view = self.opponent(ctx)
        other = next(p for p in ctx.players if p != self.name)
        hole = ctx.hole_cards
        if not hole or len(hole) != 2:
            raise ValueError(f"{self.name}: hand {ctx.hand_id} gave us no hole cards")
        board = tuple(ctx.board)
        blocked = ev.cards_to_mask(tuple(hole) + board)
        weights = range_of(view, ctx.history, board, other, blocked)
        if weights.sum() <= 0.0:
            weights = np.where((ev.HOLDINGS_ARRAY & np.uint64(blocked)) != 0, 0.0, 1.0)
        wp = share_against((hole[0], hole[1]), board, weights, self.rng, self.preflop_trials)
        unit = float(ctx.small_bet)
        fold_share = None
        if ctx.can_raise:
            after = view.game.tree.node_of.get(betting_string(ctx.history) + "r")
            if after is not None and "f" in view.letters(after):
                probs = view.all_holdings(after, board)
                fold_share = float(weights @ probs[:, view.letters(after).index("f")] / weights.sum())
            else:
                fold_share = 0.0
        values = lbr_values(wp, ctx.pot / unit, ctx.to_call / unit, ctx.bet_size / unit, fold_share)
        self.last = dict(values, wp=wp)
        best = max(values, key=lambda k: (values[k], k == "c"))
        action = {"f": Action.FOLD, "c": Action.CHECK_CALL, "r": Action.BET_RAISE}[best]
        return action if action in ctx.legal_actions else Action.CHECK_CALL


class _PokiReplica:
    """Poki's heads-up responder rebuilt from the hands it saw (agent.engine.response)."""

    def __init__(self, p_max: float, strategy: str, resolve: str) -> None:
        from agent.engine.equilibrium import load_strategy
        from agent.engine.resolve import ResolveSettings, RiverResolver
        from agent.engine.response import HeadsUpResponder, ResponseSettings

        self.responder = HeadsUpResponder(load_strategy(strategy or None), ResponseSettings(p_max=p_max))
        self.resolver = RiverResolver(ResolveSettings(deadline_s=float("inf"))) if resolve == "river" else None

    def end_hand(self, record: HandRecord, me: str) -> None:
        names = [s.player for s in record.seats]
        if len(names) == 2 and me in names:
            self.responder.observe(record, names[1 - names.index(me)])

    def view(self, me: str, ctx: GameContext | None = None) -> StrategyView:
        """Poki's strategy against ``me`` (at ``ctx``: its river re-solved, with ``resolve``)."""
        view = self.responder.view(me)
        if self.resolver is not None and ctx is not None:
            view = self.resolver.at(view, ctx, next(p for p in ctx.players if p != me))
        return view


class TargetedLocalBestResponse(LocalBestResponse):
    """LBR against a named target (module docstring)."""

    def __init__(self, name: str, rng: np.random.Generator, target: str, strategy: str, p: float,
                 preflop_trials: int, resolve: str = "off") -> None:
        self._replica: Any = None
        if target == "cfr":
            from agent.engine.equilibrium import load_strategy

            loaded = load_strategy(strategy or None)
            view = StrategyView(loaded.game, loaded.policy)
            opponent: Callable[[GameContext], StrategyView] = lambda ctx: view
            if resolve == "river":  # cfr(resolve=river): its river re-solved as it does
                from agent.engine.resolve import ResolveSettings, RiverResolver

                resolver = RiverResolver(ResolveSettings(deadline_s=float("inf")))
                opponent = lambda ctx: resolver.at(view, ctx, next(p for p in ctx.players if p != self.name))
        else:
            self._replica = _PokiReplica(p, strategy, resolve)
            opponent = lambda ctx: self._replica.view(self.name, ctx)
        super().__init__(name, rng, opponent, preflop_trials)
        self.target = target

    def end_hand(self, record: HandRecord) -> None:
        if self._replica is not None:
            self._replica.end_hand(record, self.name)


def lbr_kind(config: Config) -> PlayerKind:
    """The ``lbr`` player kind, the default of ``p`` from ``config``'s [engine] heads_up_p
    (agent.play.kinds registers it with the settings the program was given, as Poki's)."""
    return PlayerKind(
        "lbr",
        lambda name, rng, target, strategy, p, preflop_trials, resolve: TargetedLocalBestResponse(
            name, rng, target, strategy, p, preflop_trials, resolve),
        {"target": Param(str, "cfr", "the strategy it responds to (seat it against that player)",
                         choices=("cfr", "poki")),
         "strategy": Param(str, "", "the target's strategy file (cfr's strategy, Poki's heads_up_strategy; "
                                    "default: the shipped one)"),
         "p": Param(float, config.engine.heads_up_p, "target=poki: Poki's heads_up_p", low=0.0, high=1.0),
         "preflop_trials": Param(int, 2000, "roll-outs of a pre-flop share of the pot", low=100, high=10**6),
         "resolve": Param(str, config.engine.heads_up_resolve,
                          "the target's river re-solving (Poki's heads_up_resolve, cfr's resolve)",
                          choices=("off", "river"))},
        "local best response (Lisý & Bowling 2017) to cfr or to Poki heads-up: a lower bound on its exploitability")
