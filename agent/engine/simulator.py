"""The simulation-based betting strategy ([sampling-1999], "An Expected Value Based Betting
Strategy"; [loki2-1999] §5; [poki-2002] "simulation-based betting strategy"): at a post-flop
decision, estimate the EV of checking/calling and of betting/raising by playing the hand
out many times from the tracker's present state, and take the action with the best EV
(fold is 0).

This module turns a game context, the opponents' weight tables and their per-context
frequencies into the numbers the Cython trial loop reads (evaluator_pyx._simulate), and
chooses from the EVs it returns: the best one, at random between those closer than
``sim_close`` small bets to it ([sampling-1999]: "randomize the selection of betting actions
whose EVs are close"), the more aggressive on an exact tie.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

import evaluator_pyx as ev
from agent.config import EngineConfig
from agent.engine.modeler import live_holdings
from agent.game.context import N_CONTEXTS
from agent.game.rules import Action

if TYPE_CHECKING:
    from agent.game.context import GameContext

__all__ = ["SimOutcome", "simulate_decision", "spot_from_context", "table_thresholds"]

Triple = tuple[float, float, float]
_AGGRESSIVE = (Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE)


@dataclasses.dataclass(frozen=True)
class SimOutcome:
    """The EVs (chips won from now on; fold 0) a simulation found, and what it chose."""

    trials: int
    ev_call: float
    se_call: float
    ev_raise: float  # NaN when raising is not legal
    se_raise: float
    stopped_early: bool
    action: Action

    def evs(self) -> dict[Action, float]:
        out = {Action.CHECK_CALL: self.ev_call}
        if not math.isnan(self.ev_raise):
            out[Action.BET_RAISE] = self.ev_raise
        return out


def _simulate_kernel() -> Callable[..., tuple]:
    try:
        from evaluator_pyx import _simulate  # type: ignore[attr-defined]  # compiled only (Cython): no Python twin, no source for mypy
    except ImportError as exc:
        raise RuntimeError(
            "bettor=simulator needs the compiled module evaluator_pyx._simulate: build it with "
            "`python setup.py build_ext --inplace`") from exc
    return _simulate.simulate


def spot_from_context(ctx: GameContext, me: str) -> dict:
    """The decision's state in numbers: seats in post-flop order, chips, this round's bets
    (from the recorded actions' amounts), who has acted since the last bet or raise."""
    n = len(ctx.players)
    seat_of = {p: i for i, p in enumerate(ctx.players)}
    order = sorted(range(n), key=lambda s: ctx.positions[s])
    bets = [0] * n
    for a in ctx.actions:
        if a.round == ctx.round:
            bets[seat_of[a.player]] += a.amount
    acted = [False] * n
    history = ctx.history[ctx.round] if ctx.round < len(ctx.history) else ()
    for player, kind in history:
        if kind in ("b", "r"):
            acted = [False] * n
        acted[seat_of[player]] = True
    live = set(ctx.active)
    return dict(
        me=seat_of[me], order=order, stacks=list(ctx.stacks), put=list(ctx.put_in), bets=bets,
        folded=[p not in live for p in ctx.players], acted=acted, round_=ctx.round,
        level=max(bets), raises=ctx.bets_this_round, max_bets=ctx.max_bets,
        # The context does not say whether the cap holds heads-up; the default variant's does.
        small_bet=ctx.small_bet, big_bet=ctx.big_bet, cap_heads_up=True,
    )


def table_thresholds(ctx: GameContext, me: str, hole: Sequence[int],
                     weights: Sequence[np.ndarray | None], freq: np.ndarray, mix: float) -> np.ndarray:
    """(seats, 12, 2): per opponent and context the strength on the present board below
    which it folds and above which it raises — the weighted quantiles of its own table at
    its fold share and at 1 − raise share / (1 − mix), as the modeler reads an action
    (agent.engine.modeler.opponent_triples)."""
    n = len(ctx.players)
    out = np.zeros((n, N_CONTEXTS, 2))
    out[:, :, 1] = 1.0
    board = ev.cards_to_mask(ctx.board)
    strength = ev.holding_strengths(board)
    live = live_holdings(board | ev.cards_to_mask(hole))
    order = np.argsort(strength, kind="stable")
    sorted_strength = strength[order]
    top = 1.0 - mix
    for seat in range(n):
        if ctx.players[seat] == me:
            continue
        w = weights[seat]
        w = live.astype(np.float64) if w is None else np.where(live, w, 0.0)
        cum = np.cumsum(w[order])
        total = cum[-1]
        if total <= 0:
            continue
        for c in range(N_CONTEXTS):
            f, _, r = freq[seat, c]
            if f > 0:
                out[seat, c, 0] = sorted_strength[min(int(np.searchsorted(cum, f * total)), cum.size - 1)]
            if r > 0:
                q = 1.0 - min(1.0, r / top)
                out[seat, c, 1] = sorted_strength[min(int(np.searchsorted(cum, q * total)), cum.size - 1)]
    return out


def choose(evs: Mapping[Action, float], close: float, rng: np.random.Generator) -> Action:
    """The action of best EV; at random among those within `close` chips of it, the most
    aggressive when nothing is random (close = 0) and EVs tie ([sampling-1999])."""
    best = max(evs.values())
    near = [a for a in _AGGRESSIVE if a in evs and best - evs[a] <= close]
    if close <= 0.0 or len(near) == 1:
        return near[-1]
    return near[int(rng.integers(len(near)))]


def simulate_decision(ctx: GameContext, me: str, hole: Sequence[int],
                      tables: Mapping[str, np.ndarray | None],
                      freqs: Callable[[str, int], Triple], cfg: EngineConfig,
                      rng: np.random.Generator, *, fixed: Mapping[str, Triple] | None = None,
                      trials: int | None = None, budget_s: float | None = None) -> SimOutcome:
    """Simulate our decision in `ctx` (post-flop, our turn) and choose an action.

    tables: each live opponent's weight table (None: uniform); freqs(nick, context): that
    opponent's (fold, call, raise) in a context; fixed: opponents (or ``me``) that play one
    triple whatever they hold. The kernel's seed is drawn from `rng`, so a seeded player
    repeats its decisions."""
    spot = spot_from_context(ctx, me)
    n = len(ctx.players)
    freq = np.zeros((n, N_CONTEXTS, 3))
    fixed_arr = np.full((n, 3), np.nan)
    weights: list[np.ndarray | None] = [None] * n
    live = set(ctx.active)
    for seat, nick in enumerate(ctx.players):
        if fixed and nick in fixed:
            fixed_arr[seat] = fixed[nick]
        if nick == me or nick not in live:
            continue
        weights[seat] = tables.get(nick)
        if not (fixed and nick in fixed):
            for c in range(N_CONTEXTS):
                freq[seat, c] = freqs(nick, c)
    thresholds = None
    if cfg.sim_thresholds == "table":
        thresholds = table_thresholds(ctx, me, hole, weights, freq, cfg.opponent_mix)
    legal = ctx.legal_actions
    can_raise = Action.BET_RAISE in legal
    can_fold = Action.FOLD in legal
    seed = int(rng.integers(0, 2**63))
    t, ev_c, se_c, ev_r, se_r, early = _simulate_kernel()(
        hole=ev.cards_to_mask(hole), board=ev.cards_to_mask(ctx.board),
        hole_index=ev.holding_index_of_cards(*hole), weights=weights, freq=freq,
        fixed=fixed_arr, params=(cfg.bet_threshold, cfg.raise_threshold, cfg.reraise_step,
                                 cfg.mix_width, cfg.opponent_width, cfg.opponent_mix),
        trials=trials if trials is not None else cfg.sim_trials,
        min_trials=min(cfg.sim_min_trials, trials if trials is not None else cfg.sim_trials),
        budget_s=budget_s if budget_s is not None else cfg.sim_time_ms / 1000.0,
        seed=seed, can_fold=can_fold, can_raise=can_raise, thresholds=thresholds, **spot)
    evs: dict[Action, float] = {Action.CHECK_CALL: ev_c}
    if can_raise:
        evs[Action.BET_RAISE] = ev_r
    if can_fold:
        evs[Action.FOLD] = 0.0
    action = choose(evs, cfg.sim_close * ctx.small_bet, rng)
    return SimOutcome(t, ev_c, se_c, ev_r, se_r, early, action)
