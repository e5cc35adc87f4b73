"""House bots: simple opponents for testing and demos ([west-2005]).

Mick West ([west-2005]) advises testing a poker AI against simple bots at high speed; the
Loki papers ([loki2-1999], §6) vary the field by style, tight (T) to loose (L) by how many
hands a player takes to the flop and aggressive (A) to conservative (C) by how often it
bets and raises after the flop. Here:

* ``call`` / ``raise`` — always check-or-call / always bet-or-raise (call when capped);
* ``random`` — a legal move drawn with given weights (uniform by default);
* ``rr`` — West's [west-2005] rate-of-return bot: RR = hand strength / pot odds, mapped to a
  fold/call/raise triple by its table;
* ``mc`` — a plain Monte Carlo thresholds bot, the kind a newcomer writes first and no
  opponent model: pre-flop it plays the top ``range`` of starting hands (the top fifth by
  default; raising the best of them), after the flop it bets at a Monte Carlo hand
  strength of ``bet``, raises at ``raise``, and calls when the strength beats the pot
  odds;
* ``tight-aggressive``, ``tight-passive``, ``loose-aggressive``, ``loose-passive`` (and
  ``style`` with every setting open) — Billings et al.'s [loki2-1999] T/L × A/C styles on hand strength:
  ``vpip`` is the share of dealt hands played pre-flop, ``aggression`` how often a hand
  worth playing is bet or raised rather than checked or called.

The range reader (``range-reader``: fixed tables read opponents' ranges, EHS against
them) reads with the engine's weight tables, so it lives in agent.engine.range_reader.

Hand strength is Mick West's: the share of random deals the hand wins (ties split)
against the live opponents' random hands with the board completed at random, from the
evaluator's Monte Carlo kernel ``evaluator_pyx.win_probability``. All randomness, the
kernel's seeds included, comes from each bot's injected generator.
"""
from __future__ import annotations

from functools import lru_cache
from typing import TypedDict

import numpy as np

from agent.game.context import GameContext
from agent.game.rules import Action
from agent.players import BasePlayer, Param, PlayerKind
from evaluator_pyx.cards import N_CARDS, card_bit

__all__ = [
    "AlwaysCall",
    "AlwaysRaise",
    "HOUSE_KINDS",
    "MonteCarloThresholds",
    "nearest_legal",
    "RandomPlayer",
    "RateOfReturn",
    "StylePlayer",
    "preflop_percentile",
    "rr_triple",
]

FOLD, CALL, RAISE = Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE
_MASK = tuple(1 << card_bit(c) for c in range(N_CARDS))
_SEED_LIMIT = 2**62


_win_probability = None


def _kernel():
    """evaluator_pyx.win_probability, looked up when a strength bot first needs it."""
    global _win_probability
    if _win_probability is None:
        import evaluator_pyx

        try:
            _win_probability = evaluator_pyx.win_probability
        except AttributeError:
            raise RuntimeError(
                "evaluator_pyx.win_probability is missing: rebuild the evaluator "
                f"({evaluator_pyx.INSTALL_COMMAND})") from None
    return _win_probability


def hand_strength(ctx: GameContext, trials: int, rng: np.random.Generator) -> float:
    """West's [west-2005] hand strength of the viewer's cards against the live opponents."""
    hole = ctx.hole_cards
    if hole is None:
        raise ValueError(f"{ctx.viewer}: hand strength needs our hole cards")
    hole_mask = _MASK[hole[0]] | _MASK[hole[1]]
    board_mask = 0
    for c in ctx.board:
        board_mask |= _MASK[c]
    opponents = max(1, len(ctx.active) - 1)
    return float(_kernel()(hole_mask, board_mask, opponents, trials,
                           int(rng.integers(_SEED_LIMIT))))


def nearest_legal(ctx: GameContext, wanted: Action) -> Action:
    """The wanted move, or the nearest legal one: a fold with nothing to call is a check,
    a raise when capped (or all-in) a call."""
    legal = ctx.legal_actions
    if wanted in legal:
        return wanted
    if wanted == FOLD:
        return CALL
    return CALL if CALL in legal else legal[0]


class AlwaysCall(BasePlayer):
    instant = True  # constant time: a live table may ask it on its own thread (agent.play.seat)

    def act(self, ctx: GameContext) -> Action:
        return CALL


class AlwaysRaise(BasePlayer):
    instant = True

    def act(self, ctx: GameContext) -> Action:
        return RAISE if RAISE in ctx.legal_actions else CALL


class RandomPlayer(BasePlayer):
    """A legal move drawn with weights fold : call : raise (renormalised over what is
    legal)."""

    instant = True

    def __init__(self, name: str, rng: np.random.Generator, fold: float = 1.0,
                 call: float = 1.0, raise_: float = 1.0) -> None:
        super().__init__(name, rng)
        self.weights = (fold, call, raise_)

    def act(self, ctx: GameContext) -> Action:
        legal = ctx.legal_actions
        weights = self.weights
        total = 0.0
        for a in legal:
            total += weights[a]
        if total <= 0:
            return CALL
        x = self.rng.random() * total
        for a in legal:
            x -= weights[a]
            if x < 0:
                return a
        return legal[-1]


# West's [west-2005] table: (RR below, fold, call, raise); the last row is RR >= 1.3.
RR_TABLE = (
    (0.8, 0.95, 0.00, 0.05),
    (1.0, 0.80, 0.05, 0.15),
    (1.3, 0.00, 0.60, 0.40),
    (float("inf"), 0.00, 0.30, 0.70),
)


def rr_triple(rate_of_return: float) -> tuple[float, float, float]:
    """West's [west-2005] (fold, call, raise) probabilities for a rate of return."""
    for below, fold, call, raise_ in RR_TABLE:
        if rate_of_return < below:
            return fold, call, raise_
    return RR_TABLE[-1][1:]  # pragma: no cover - inf row always matches


def rate_of_return(strength: float, ctx: GameContext) -> float:
    """Hand strength over pot odds ([west-2005]). With nothing to call, the odds are those
    of the bet we could make: bet / (pot + bet)."""
    cost = ctx.to_call or ctx.bet_size
    return strength * (ctx.pot + cost) / cost


class RateOfReturn(BasePlayer):
    """Mick West's rate-of-return bot ([west-2005]): RR = HS / pot odds; RR < 0.8 folds 95%
    (raises 5% as a bluff), < 1.0 folds 80%, calls 5%, raises 15%, < 1.3 calls 60%,
    raises 40%, else calls 30%, raises 70%; a fold with nothing to call is a check."""

    def __init__(self, name: str, rng: np.random.Generator, trials: int = 1000) -> None:
        super().__init__(name, rng)
        self.trials = trials

    def act(self, ctx: GameContext) -> Action:
        strength = hand_strength(ctx, self.trials, self.rng)
        fold, call, _ = rr_triple(rate_of_return(strength, ctx))
        x = self.rng.random()
        wanted = FOLD if x < fold else CALL if x < fold + call else RAISE
        return nearest_legal(ctx, wanted)


@lru_cache(maxsize=1)
def _preflop_table() -> np.ndarray:
    """Share of dealt hands (by combinations) that are weaker than each starting hand,
    indexed [high rank, low rank, suited]; strength is heads-up hand strength from the
    Monte Carlo kernel with a fixed seed, so the table is the same in every process."""
    kernel = _kernel()
    strength = {}
    combos = {}
    for high in range(13):
        for low in range(high + 1):
            for suited in ((False,) if high == low else (False, True)):
                a = 4 * high + 3
                b = 4 * low + (3 if suited else 2)
                strength[high, low, suited] = kernel(_MASK[a] | _MASK[b], 0, 1, 6000,
                                                     1_000_003 * high + 1009 * low + suited)
                combos[high, low, suited] = 6 if high == low else 4 if suited else 12
    order = sorted(strength, key=strength.__getitem__)
    table = np.zeros((13, 13, 2))
    below = 0
    for key in order:
        # Mid-point of the class's share, so the best hand is near 1 and the worst near 0.
        high, low, suited = key
        table[high, low, int(suited)] = (below + combos[key] / 2) / 1326
        below += combos[key]
    table.flags.writeable = False
    return table


def preflop_percentile(hole: tuple[int, ...]) -> float:
    """0..1: how good a starting hand is among all 1326 (1 = the best)."""
    a, b = hole
    ra, rb = a >> 2, b >> 2
    if ra < rb:
        ra, rb = rb, ra
    return float(_preflop_table()[ra, rb, int((a & 3) == (b & 3) and ra != rb)])


class StylePlayer(BasePlayer):
    """Billings et al.'s [loki2-1999] playing styles. Pre-flop: plays the best ``vpip`` share of hands, raises
    with probability ``aggression`` × (place within its playing range), and lets the
    bottom of its range go when facing two bets or more. After the flop: West's [west-2005] rate
    of return, with a bar to continue that is lower the looser the player, and a bet or
    raise with probability ``aggression`` when the hand clears it by a margin."""

    def __init__(self, name: str, rng: np.random.Generator, vpip: float = 0.4,
                 aggression: float = 0.5, trials: int = 500) -> None:
        super().__init__(name, rng)
        self.vpip = vpip
        self.aggression = aggression
        self.trials = trials
        # Tight players need a better rate of return to go on (vpip 0.25 -> 1.05,
        # 0.6 -> 0.84).
        self.continue_bar = 1.2 - 0.6 * vpip

    def act(self, ctx: GameContext) -> Action:
        rng = self.rng
        if ctx.round == 0:
            hole = ctx.hole_cards
            if hole is None:
                raise ValueError(f"{self.name}: needs its hole cards")
            place = preflop_percentile(hole)
            floor = 1.0 - self.vpip
            if place < floor:
                return nearest_legal(ctx, FOLD)
            within = (place - floor) / self.vpip if self.vpip > 0 else 1.0
            if ctx.bets_to_call >= 2 and within < 0.3 * (ctx.bets_to_call - 1):
                return nearest_legal(ctx, FOLD)
            if rng.random() < self.aggression * within:
                return nearest_legal(ctx, RAISE)
            return CALL
        strength = hand_strength(ctx, self.trials, rng)
        rr = rate_of_return(strength, ctx)
        aggression = self.aggression
        if rr >= self.continue_bar + 0.3:
            return nearest_legal(ctx, RAISE if rng.random() < aggression else CALL)
        if rr >= self.continue_bar:
            # Worth a call; a bet or raise only now and then.
            return nearest_legal(ctx, RAISE if rng.random() < 0.25 * aggression else CALL)
        # Not worth going on: check if free, else fold, with a rare bluff.
        return nearest_legal(ctx, RAISE if rng.random() < 0.05 * aggression else FOLD)


class MonteCarloThresholds(BasePlayer):
    """See ``mc`` in the module docstring: fixed thresholds on Monte Carlo hand strength
    against the live opponents' random hands ([west-2005]), pot odds for calls."""

    def __init__(self, name: str, rng: np.random.Generator, range: float = 0.2,
                 bet: float = 0.6, raise_: float = 0.8, trials: int = 500) -> None:
        super().__init__(name, rng)
        self.range = range
        self.bet = bet
        self.raise_ = raise_
        self.trials = trials

    def act(self, ctx: GameContext) -> Action:
        if ctx.round == 0:
            hole = ctx.hole_cards
            if hole is None:
                raise ValueError(f"{self.name}: needs its hole cards")
            place = preflop_percentile(hole)
            if place < 1.0 - self.range:
                return nearest_legal(ctx, FOLD)
            # The top quarter of the range raises (up to the cap); the rest calls.
            return nearest_legal(ctx, RAISE if place >= 1.0 - self.range / 4 else CALL)
        strength = hand_strength(ctx, self.trials, self.rng)
        threshold = self.bet if ctx.bets_this_round == 0 else self.raise_
        if strength >= threshold:
            return nearest_legal(ctx, RAISE)
        if strength >= ctx.pot_odds:
            return CALL
        return nearest_legal(ctx, FOLD)


# --- registry ------------------------------------------------------------------------------

# The kinds agent.play.kinds registers (the registry is filled from above, never by import).
HOUSE_KINDS: list[PlayerKind] = []
_add = HOUSE_KINDS.append

_TRIALS = Param(int, 1000, "Monte Carlo deals per hand-strength estimate", low=10, high=10**7)


class _Bounds(TypedDict):
    """A Param's bounds, unpacked into it."""

    low: float
    high: float


_SHARE = _Bounds(low=0.0, high=1.0)

_add(PlayerKind("call", AlwaysCall, {}, "always checks or calls"))
_add(PlayerKind("raise", AlwaysRaise, {}, "always bets or raises (calls when capped)"))
_add(PlayerKind(
    "random",
    lambda name, rng, **weights: RandomPlayer(name, rng, weights["fold"], weights["call"],
                                              weights["raise"]),
    {"fold": Param(float, 1.0, "weight of folding", low=0.0),
     "call": Param(float, 1.0, "weight of checking or calling", low=0.0),
     "raise": Param(float, 1.0, "weight of betting or raising", low=0.0)},
    "a legal move at random (weights over the legal moves)"))
_add(PlayerKind("rr", RateOfReturn, {"trials": _TRIALS},
                    "Mick West's rate-of-return bot ([west-2005])"))

_add(PlayerKind(
    "mc",
    lambda name, rng, **kw: MonteCarloThresholds(name, rng, kw["range"], kw["bet"], kw["raise"], kw["trials"]),
    {"range": Param(float, 0.2, "share of starting hands played pre-flop", **_SHARE),
     "bet": Param(float, 0.6, "hand strength to bet", **_SHARE),
     "raise": Param(float, 0.8, "hand strength to raise", **_SHARE),
     "trials": Param(int, 500, "Monte Carlo deals per hand-strength estimate", low=10, high=10**7)},
    "Monte Carlo thresholds: bets / raises at fixed hand strengths, calls on pot odds, "
    "top-fifth pre-flop range, no opponent model"))

_STYLES = {
    # name: (vpip, aggression)
    "tight-aggressive": (0.25, 0.75),
    "tight-passive": (0.25, 0.2),
    "loose-aggressive": (0.6, 0.75),
    "loose-passive": (0.6, 0.2),
}
_STYLE_TRIALS = Param(int, 500, "Monte Carlo deals per hand-strength estimate", low=10, high=10**7)


def _style_kind(name: str, vpip: float, aggression: float, help_text: str) -> PlayerKind:
    return PlayerKind(name, StylePlayer, {
        "vpip": Param(float, vpip, "share of dealt hands played pre-flop", **_SHARE),
        "aggression": Param(float, aggression, "how often a playable hand bets or raises",
                            **_SHARE),
        "trials": _STYLE_TRIALS,
    }, help_text)


_add(_style_kind("style", 0.4, 0.5, "a T/L x A/C style bot with every setting open ([loki2-1999])"))
for _name, (_vpip, _aggr) in _STYLES.items():
    _add(_style_kind(_name, _vpip, _aggr, f"{_name.replace('-', '/')} style ([loki2-1999])"))
    # [loki2-1999] calls the passive styles conservative (C).
    if _name.endswith("passive"):
        _alias = _name.replace("passive", "conservative")
        _add(_style_kind(_alias, _vpip, _aggr, f"same as {_name} (Billings et al.'s [loki2-1999] C)"))
