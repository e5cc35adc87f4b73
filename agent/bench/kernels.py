"""The evaluator's hot kernels beside OMPEval, on the same work in the same run.

Rows (DESIGN.md's performance table): 7-card evaluation of a random list from the
cards (ours: from masks), the same hands kept in incremental form, weighted flop hand
strength over the 1,081 live holdings, exact weighted flop Ppot/Npot with two cards to
come, and one Python call. Every figure is a median of CPU time (time.process_time; the
driver uses CLOCK_PROCESS_CPUTIME_ID) over repeats, single thread, so a busy machine
inflates both sides alike. OMPEval (agent/bench/ompeval.py) is compiled from PyPI's
omp-wrapper sdist at bench time; without g++ or the sdist its column says why.

The driver's results are compared with ours (hand strengths, Ppot/Npot, category counts
of the 7-card list), so a figure is only printed beside one that computed the same thing.
"""
from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import evaluator_pyx as ev

TARGETS = {
    "batch_hands_per_s": 500e6,
    "flop_hs_us": 1.0,
    "flop_pot2_ms": 2.0,
    "call_ns": 50.0,
}


def cpu_median(fn: Callable[[], Any], repeats: int) -> float:
    """Median CPU seconds of fn() over repeats."""
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def _deals(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.array([rng.choice(52, 5, replace=False) for _ in range(n)], dtype=np.uint8)


def run_kernels_bench(quick: bool = False, anchor: bool = True) -> dict[str, Any]:
    """Ours and OMPEval's figures on the same inputs (see the module docstring)."""
    from evaluator_pyx import _assess, _core

    rng = np.random.default_rng(1995)
    repeats = 3 if quick else 7
    n7 = 500_000 if quick else 2_000_000
    n_deals = 8 if quick else 32
    n_pot = 2 if quick else 6
    hs_reps = 100 if quick else 500
    masks = ev.random_hand_masks(rng, n7, 7, unique=True)
    cards7 = ev.cards_from_masks(masks, 7)
    deals = _deals(rng, n_deals)
    weights = np.maximum(rng.random(1326) ** 2, 0.01)
    holes = [ev.cards_to_mask(d[:2].tolist()) for d in deals]
    boards = [ev.cards_to_mask(d[2:].tolist()) for d in deals]
    out = np.empty(n7, dtype=np.uint16)
    keys = _core.hand_keys(masks)

    ev.evaluate_batch(masks, out)
    ours: dict[str, Any] = {}
    ours["batch_hands_per_s"] = n7 / cpu_median(lambda: ev.evaluate_batch(masks, out), repeats)
    ours["batch_unchecked_hands_per_s"] = n7 / cpu_median(lambda: ev.evaluate_batch(masks, out, check=False), repeats)
    ours["incremental_hands_per_s"] = n7 / cpu_median(lambda: _core.evaluate_key_batch(keys, masks, out), repeats)
    values = ev.evaluate_batch(masks)
    floors = np.array(_core.CATEGORY_FLOOR[1:])
    ours["categories"] = np.bincount(np.searchsorted(floors, values, side="right"), minlength=9).tolist()

    def hs() -> None:
        for h, b in zip(holes, boards):
            _assess._repeat_hand_strength(h, b, weights, hs_reps)

    ours["flop_hs_us"] = cpu_median(hs, repeats) / (n_deals * hs_reps) * 1e6
    ours["hs"] = [ev.hand_strength(h, b, weights) for h, b in zip(holes, boards)]

    def pot2() -> None:
        for h, b in zip(holes[:n_pot], boards[:n_pot]):
            _assess._repeat_potential(h, b, weights, 2, 1)

    ours["flop_pot2_ms"] = cpu_median(pot2, repeats) / n_pot * 1e3
    ours["pot"] = [ev.hand_potential(h, b, weights, 2) for h, b in zip(holes[:n_pot], boards[:n_pot])]

    call_masks = masks[:200_000].tolist()
    evaluate = ev.evaluate

    def calls() -> None:
        for m in call_masks:
            evaluate(m)

    def empty_loop() -> None:
        for m in call_masks:
            pass

    ours["call_ns"] = cpu_median(calls, repeats) / len(call_masks) * 1e9
    ours["loop_ns"] = cpu_median(empty_loop, repeats) / len(call_masks) * 1e9

    result: dict[str, Any] = {
        "quick": quick, "repeats": repeats, "hands": n7, "deals": n_deals, "potential_deals": n_pot,
        "load_average": list(os.getloadavg()), "ours": ours, "targets": TARGETS,
    }
    if anchor:
        from agent.bench.ompeval import run_ompeval

        omp = run_ompeval(cards7, deals, n_pot, hs_reps, repeats, weights)
        if omp.get("available"):
            omp["agrees"] = _agreement(ours, omp)
        result["ompeval"] = omp
    return result


def _agreement(ours: dict[str, Any], omp: dict[str, Any]) -> dict[str, bool]:
    """Did OMPEval compute what we did? (hand strengths and potentials to 1e-9, 7-card
    category counts exactly)."""
    hs_ok = len(omp["hs"]) == len(ours["hs"]) and all(
        abs(omp["hs"][i] - x) <= 1e-9 for i, x in enumerate(ours["hs"]))
    pot_ok = all(abs(omp["pot"][i][0] - p) <= 1e-9 and abs(omp["pot"][i][1] - n) <= 1e-9
                 for i, (p, n) in enumerate(ours["pot"]) if i in omp["pot"])
    return {"hand_strength": hs_ok, "potential": pot_ok and bool(omp["pot"]),
            "categories": omp.get("categories") == ours["categories"]}


def format_kernels_bench(r: dict[str, Any]) -> str:
    """Rows: same work | OMPEval | ours | ours / OMPEval speed | target."""
    o = r["ours"]
    omp = r.get("ompeval", {})
    have = bool(omp.get("available"))
    agrees = omp.get("agrees", {})

    def mark(ok_key: str) -> str:
        return "" if agrees.get(ok_key, True) else " (DISAGREES)"

    def rate(x: float) -> str:
        return f"{x / 1e6:,.0f} M/s"

    rows: list[tuple[str, str, str, str, str]] = []
    omp_rate = 1.0 / omp["eval_from_cards_s_per_hand"] if have else None
    omp_inc = 1.0 / omp["eval_incremental_s_per_hand"] if have else None
    rows.append(("7-card eval, random list, from the 7 cards (ours: masks, checked)",
                 rate(omp_rate) + mark("categories") if have else "-", rate(o["batch_hands_per_s"]),
                 f"{o['batch_hands_per_s'] / omp_rate:.2f}x" if have else "-", ">= 500 M/s"))
    rows.append(("7-card eval, masks, unchecked", "", rate(o["batch_unchecked_hands_per_s"]),
                 f"{o['batch_unchecked_hands_per_s'] / omp_rate:.2f}x" if have else "-", ""))
    rows.append(("7-card eval, hands kept in incremental form", rate(omp_inc) if have else "-",
                 rate(o["incremental_hands_per_s"]),
                 f"{o['incremental_hands_per_s'] / omp_inc:.2f}x" if have else "-", ""))
    omp_hs = omp["flop_hs_s"] * 1e6 if have else None
    rows.append(("flop hand strength, weighted, 1,081 holdings",
                 f"{omp_hs:.2f} µs" + mark("hand_strength") if have else "-", f"{o['flop_hs_us']:.2f} µs",
                 f"{omp_hs / o['flop_hs_us']:.2f}x" if have else "-", "<= 1.0 µs"))
    omp_pot = omp.get("flop_pot2_s")
    rows.append(("exact flop Ppot/Npot, 2 to come, weighted",
                 f"{omp_pot * 1e3:.2f} ms" + mark("potential") if omp_pot else "-", f"{o['flop_pot2_ms']:.2f} ms",
                 f"{omp_pot * 1e3 / o['flop_pot2_ms']:.2f}x" if omp_pot else "-", "<= 2.0 ms"))
    rows.append(("one Python call, evaluate(mask) (loop overhead)", "", f"{o['call_ns']:.0f} ns ({o['loop_ns']:.0f} ns)",
                 "", "<= 50 ns"))
    head = ("same work", "OMPEval (C++)", "ours", "speed ratio", "target")
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    note = (f"(CPU-time medians of {r['repeats']} repeats, one core, load {r['load_average'][0]:.1f}; "
            "speed ratio > 1: ours faster")
    note += f"; OMPEval: {omp.get('compiler')})" if have else f"; OMPEval unavailable: {omp.get('reason', 'not run')})"
    lines.append(note)
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(format_kernels_bench(run_kernels_bench("--quick" in sys.argv)))
