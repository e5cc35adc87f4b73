"""Speed of hand assessment (the targets of docs/architecture.md), with eval7 beside it.

Each figure is a median over repeats of a batch over random deals, single thread. "ours"
is the kernel called back to back in C (what the engine's Cython code pays); "ours from
Python" adds one Python call with its argument checks. eval7 is driven from Python
through its public functions, and only where it computes the same thing:
py_hand_vs_range_exact gives the (unweighted: it ignores range weights) hand strength on
the present board; py_all_hands_vs_range the strength of every holding on a river;
py_hand_vs_range_monte_carlo a Monte Carlo equity. eval7 has no hand potential.
OMPEval, the C++ anchor, is measured on the same work by the `kernels` section
(agent/bench/kernels.py).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import evaluator_pyx as ev
from agent.bench import median_runs
from agent.config import Config

# docs/architecture.md's targets.
TARGET_FLOP_HS_US = 1.0
TARGET_FLOP_POTENTIAL_MS = 2.0
TARGET_RIVER_RANKS_US = 20.0
# The anchors docs/architecture.md quotes for eval7's C core driven from Cython.
EVAL7_CORE_FLOP_HS_US = 12.0
EVAL7_CORE_FLOP_POTENTIAL_MS = 13.7


def _median_seconds(fn: Callable[[], Any], repeats: int) -> float:
    return median_runs(fn, repeats)[0]


def _deals(rng: np.random.Generator, n: int, n_board: int) -> list[tuple[int, int]]:
    out = []
    for _ in range(n):
        cards = [int(c) for c in rng.choice(52, n_board + 2, replace=False)]
        out.append((ev.cards_to_mask(cards[:2]), ev.cards_to_mask(cards[2:])))
    return out


def _eval7_tools():
    try:
        import eval7
    except ImportError:
        return None
    from evaluator_pyx.cards import CARD_NAMES, HOLDING_CARDS

    cards = [eval7.Card(name) for name in CARD_NAMES]

    def hand_range(weights: np.ndarray) -> Any:
        hr = eval7.HandRange("AA")
        hr.hands = [((cards[a], cards[b]), float(weights[i])) for i, (a, b) in enumerate(HOLDING_CARDS)]
        return hr

    def as_cards(mask: int) -> list:
        return [cards[c] for c in ev.mask_to_card_list(mask)]

    return eval7, hand_range, as_cards


def run_assess_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """Medians of every assessment figure; times in the unit named by each key (the
    evaluator kernels have no settings: ``config`` is not read)."""
    from evaluator_pyx import _assess  # type: ignore[attr-defined]  # compiled (Cython): mypy sees no source

    rng = np.random.default_rng(2024)
    repeats = 3 if quick else 7
    n_deals = 8 if quick else 32
    weights = np.maximum(rng.random(1326) ** 2, 0.01)
    flops = _deals(rng, n_deals, 3)
    turns = _deals(rng, n_deals, 4)
    rivers = _deals(rng, n_deals, 5)
    out: dict[str, Any] = {"backend": ev.ASSESS_BACKEND, "quick": quick, "deals": n_deals, "repeats": repeats}

    # Flop hand strength, weighted, 1081 holdings.
    reps = 200 if quick else 1000

    def hs_c() -> None:
        for h, b in flops:
            _assess._repeat_hand_strength(h, b, weights, reps)

    def hs_py() -> None:
        for h, b in flops:
            ev.hand_strength(h, b, weights)

    out["flop_hs_us"] = _median_seconds(hs_c, repeats) / (n_deals * reps) * 1e6
    out["flop_hs_python_call_us"] = _median_seconds(hs_py, repeats) / n_deals * 1e6

    # Flop Ppot/Npot with two cards to come, weighted, exact.
    pot_flops = flops[: 3 if quick else 8]

    def pot2() -> None:
        for h, b in pot_flops:
            _assess._repeat_potential(h, b, weights, 2, 1)

    out["flop_potential_2_ms"] = _median_seconds(pot2, repeats) / len(pot_flops) * 1e3

    def pot1_flop() -> None:
        for h, b in flops:
            _assess._repeat_potential(h, b, weights, 1, 1)

    out["flop_potential_1_us"] = _median_seconds(pot1_flop, repeats) / n_deals * 1e6

    def pot_turn() -> None:
        for h, b in turns:
            _assess._repeat_potential(h, b, weights, 1, 1)

    out["turn_potential_us"] = _median_seconds(pot_turn, repeats) / n_deals * 1e6

    # All 1326 holdings on a river board: values, then strengths against a weight table.
    reps_r = 100 if quick else 500

    def ranks_c() -> None:
        for _, b in rivers:
            _assess._repeat_holding_values(b, reps_r)

    def ranks_py() -> None:
        for _, b in rivers:
            ev.holding_values(b)

    def strengths_c() -> None:
        for _, b in rivers:
            _assess._repeat_holding_strengths(b, weights, reps_r // 5)

    out["river_ranks_us"] = _median_seconds(ranks_c, repeats) / (n_deals * reps_r) * 1e6
    out["river_ranks_python_call_us"] = _median_seconds(ranks_py, repeats) / n_deals * 1e6
    out["river_strengths_us"] = _median_seconds(strengths_c, repeats) / (n_deals * (reps_r // 5)) * 1e6

    # One-card Ppot of all 1326 holdings at once, on a flop.
    ppot_out = np.empty(1326)
    ppot_flops = flops[: 2 if quick else 6]

    def all_ppot() -> None:
        for _, b in ppot_flops:
            ev.holding_ppot(b, weights, ppot_out)

    out["flop_all_holdings_ppot_ms"] = _median_seconds(all_ppot, repeats) / len(ppot_flops) * 1e3

    # Monte Carlo: showdowns (our hand against one opponent's) per second.
    trials = 20_000 if quick else 100_000
    h, b = flops[0]

    def mc1() -> None:
        ev.rollout(h, b, 1, trials, 1)

    def mc_weighted() -> None:
        ev.rollout(h, b, 1, trials, 1, weights)

    def mc5() -> None:
        ev.rollout(h, b, 5, trials, 1)

    out["mc_showdowns_per_s"] = trials / _median_seconds(mc1, repeats)
    out["mc_weighted_showdowns_per_s"] = trials / _median_seconds(mc_weighted, repeats)
    out["mc_5_opponents_trials_per_s"] = trials / _median_seconds(mc5, repeats)

    out.update(_eval7_figures(weights, flops, rivers, repeats, trials))
    out["targets"] = {
        "flop_hs_us": TARGET_FLOP_HS_US,
        "flop_potential_2_ms": TARGET_FLOP_POTENTIAL_MS,
        "river_ranks_us": TARGET_RIVER_RANKS_US,
        "eval7_core_flop_hs_us": EVAL7_CORE_FLOP_HS_US,
        "eval7_core_flop_potential_2_ms": EVAL7_CORE_FLOP_POTENTIAL_MS,
    }
    return out


def _eval7_figures(weights: np.ndarray, flops: list[tuple[int, int]], rivers: list[tuple[int, int]],
                   repeats: int, trials: int) -> dict[str, float]:
    """eval7's figures on the same work, where it computes the same thing (the module
    docstring); none without eval7."""
    tools = _eval7_tools()
    if tools is None:
        return {}
    n_deals = len(flops)
    out: dict[str, float] = {}
    eval7, hand_range, as_cards = tools
    hr = hand_range(weights)
    e_flops = [(as_cards(h), as_cards(b)) for h, b in flops]
    e_rivers = [(as_cards(h), as_cards(b)) for h, b in rivers]

    def e7_hs() -> None:
        for h7, b7 in e_flops:
            eval7.py_hand_vs_range_exact(h7, hr, b7)

    def e7_ranks() -> None:
        for _, b7 in e_rivers[:4]:
            bm = set(b7)
            for cards in _E7_HOLDINGS(eval7):
                if cards[0] in bm or cards[1] in bm:
                    continue
                eval7.evaluate(list(cards) + b7)

    def e7_strengths() -> None:
        for _, b7 in e_rivers[:2]:
            eval7.py_all_hands_vs_range(hr, hr, b7, 1)

    def e7_mc() -> None:
        eval7.py_hand_vs_range_monte_carlo(e_flops[0][0], hr, e_flops[0][1], trials)

    out["eval7_flop_hs_us"] = _median_seconds(e7_hs, repeats) / n_deals * 1e6
    out["eval7_river_ranks_us"] = _median_seconds(e7_ranks, max(1, repeats // 2)) / 4 * 1e6
    out["eval7_river_strengths_us"] = _median_seconds(e7_strengths, max(1, repeats // 2)) / 2 * 1e6
    out["eval7_mc_showdowns_per_s"] = trials / _median_seconds(e7_mc, repeats)
    return out


_E7_CACHE: list = []


def _E7_HOLDINGS(eval7) -> list:
    if not _E7_CACHE:
        from evaluator_pyx.cards import CARD_NAMES, HOLDING_CARDS

        cards = [eval7.Card(name) for name in CARD_NAMES]
        _E7_CACHE.extend((cards[a], cards[b]) for a, b in HOLDING_CARDS)
    return _E7_CACHE


def format_assess_bench(r: dict[str, Any]) -> str:
    """The figures as a table: ours, eval7 from Python, target."""

    def f(key: str, fmt: str = "{:.2f}") -> str:
        v = r.get(key)
        return "-" if v is None else fmt.format(v)

    rows = [
        ("flop hand strength, weighted (µs)", f("flop_hs_us"), f("flop_hs_python_call_us"), f("eval7_flop_hs_us", "{:.1f}") + " (unweighted)", "≤ 1"),
        ("flop Ppot/Npot, 2 to come, exact (ms)", f("flop_potential_2_ms"), "", "-", "≤ 2"),
        ("flop Ppot/Npot, 1 to come (µs)", f("flop_potential_1_us", "{:.0f}"), "", "-", ""),
        ("turn Ppot/Npot (µs)", f("turn_potential_us", "{:.0f}"), "", "-", ""),
        ("river, ranks of all holdings (µs)", f("river_ranks_us"), f("river_ranks_python_call_us"), f("eval7_river_ranks_us", "{:.0f}") + " (evaluate loop)", "≤ 20"),
        ("flop, one-card Ppot of all holdings (ms)", "", f("flop_all_holdings_ppot_ms"), "-", ""),
        ("river, strengths of all holdings (µs)", f("river_strengths_us"), "", f("eval7_river_strengths_us", "{:.0f}"), ""),
        ("Monte Carlo, 1 opponent (showdowns/s)", f("mc_showdowns_per_s", "{:,.0f}"), "", f("eval7_mc_showdowns_per_s", "{:,.0f}"), ""),
        ("Monte Carlo, weighted (showdowns/s)", f("mc_weighted_showdowns_per_s", "{:,.0f}"), "", "", ""),
        ("Monte Carlo, 5 opponents (deals/s)", f("mc_5_opponents_trials_per_s", "{:,.0f}"), "", "", ""),
    ]
    head = ("figure", "ours (C)", "ours (Python call)", "eval7 (Python)", "target")
    widths = [max(len(str(row[i])) for row in rows + [head]) for i in range(5)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(head, widths))]
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(row, widths)) for row in rows]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(format_assess_bench(run_assess_bench(Config(), "--quick" in sys.argv)))
