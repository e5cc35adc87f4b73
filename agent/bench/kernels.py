"""The evaluator's hot kernels beside OMPEval, on the same work in the same run.

Rows (the targets of docs/architecture.md): 7-card evaluation of a random list from the
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
from agent.config import Config

# The ways of building the single call tried before the kept one (_floor.call_variants).
TRIED_CALLS = {
    "prebuilt": "prebuilt objects",
    "prebuilt_hugepage": "the same, tables and objects in a 2 MB huge page",
    "prebuilt_frequency": "the same, objects by frequency",
    "reused_hugepage": "reused objects (kept), tables in the huge page",
    "constant": "one constant object",
    "allocated": "a new int",
}
N_OBJECTS = 7463

TARGETS = {
    "batch_hands_per_s": 500e6,
    "flop_hs_us": 1.0,
    "flop_pot2_ms": 2.0,
    "call_ns": 50.0,
}


def cpu_times(fn: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """(median, best) CPU seconds of fn() over repeats; on a shared machine the best
    repeat is the least disturbed one."""
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times), min(times)


def cpu_median(fn: Callable[[], Any], repeats: int) -> float:
    """Median CPU seconds of fn() over repeats."""
    return cpu_times(fn, repeats)[0]


def clock_seconds(repeats: int, adds: int = 20_000_000) -> float:
    """Seconds per CPU cycle: the best of `repeats` runs of a chain of dependent adds."""
    from evaluator_pyx import _floor  # type: ignore[attr-defined]  # compiled (Cython): mypy sees no source

    return cpu_times(lambda: _floor.clock_cycles(adds // 4), repeats)[1] / adds


def run_floors(masks: np.ndarray, keys: np.ndarray, repeats: int) -> dict[str, Any]:
    """Seconds per hand (median, best) of the floors and of the alternative batch loops
    of evaluator_pyx._floor, on the same hands as the kernels, with the clock."""
    from evaluator_pyx import _core, _floor  # type: ignore[attr-defined]  # compiled (Cython): mypy sees no source

    n = len(masks)
    out = np.empty(n, dtype=np.uint16)
    sums = _floor.rank_sums(masks)
    index = _floor.value_indexes(sums)
    hashes = _core.count_hashes(masks)
    u32 = np.empty(n, dtype=np.uint32)
    u64 = np.empty(n, dtype=np.uint64)
    loops: dict[str, Callable[[], Any]] = {
        "stream_only": lambda: _floor.stream_only(masks, out),
        "reads_only_one": lambda: _floor.reads_only_one(index, out),
        "reads_only_hash": lambda: _floor.reads_only_hash(sums, out),
        "keys_from_masks": lambda: _floor.keys_from_masks(masks, u32),
        "keys_bitsliced": lambda: _floor.keys_bitsliced(masks, u64),
        "pdep_keys_only": lambda: _floor.pdep_keys_only(masks, u64),
        "key_kept": lambda: _core.evaluate_key_batch(keys, masks, out),
        "alt_key_group4": lambda: _floor.alt_key_group4(keys, masks, out),
        "alt_key_group8": lambda: _floor.alt_key_group8(keys, masks, out),
        "alt_key_branch_inline": lambda: _floor.alt_key_branch_inline(keys, masks, out),
        "alt_key_select": lambda: _floor.alt_key_select(keys, masks, out),
        "alt_key_fixup": lambda: _floor.alt_key_fixup(keys, masks, out),
        "alt_key_staged": lambda: _floor.alt_key_staged(keys, masks, out),
        "count_keys_only": lambda: _floor.count_keys_only(masks, u32),
        "reads_only_count": lambda: _floor.reads_only_count(hashes, out),
        "mask_kept": lambda: _core.evaluate_batch(masks, out, check=False),
        "alt_mask_group4": lambda: _floor.alt_mask_group4(masks, out),
        "cnt_mask_simple": lambda: _floor.cnt_mask_simple(masks, out),
        "cnt_mask_group4": lambda: _floor.cnt_mask_group4(masks, out),
        "cnt_mask_staged": lambda: _floor.cnt_mask_staged(masks, out),
        "alt_mask_simple": lambda: _floor.alt_mask_simple(masks, out),
        "alt_mask_select": lambda: _floor.alt_mask_select(masks, out),
        "alt_mask_fixup": lambda: _floor.alt_mask_fixup(masks, out),
        "alt_mask_staged": lambda: _floor.alt_mask_staged(masks, out),
    }
    times: dict[str, list[float]] = {name: [] for name in loops}
    # Rounds alternate the loops, so a busy spell of the machine falls on all of them.
    for _ in range(repeats):
        for name, fn in loops.items():
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    return {
        "cycle_s": clock_seconds(repeats),
        "per_hand": {name: (statistics.median(t) / n, min(t) / n) for name, t in times.items()},
    }


def frequency_order(rng: np.random.Generator, n: int = 1_000_000) -> np.ndarray:
    """Hand values by how often random 7-card hands take them, most frequent first, 0
    first of all (the object order of _floor's frequency layout), from a sample of n."""
    counts = np.bincount(ev.evaluate_batch(ev.random_hand_masks(rng, n, 7)), minlength=N_OBJECTS)
    counts[0] = counts.max() + 1
    return np.argsort(-counts, kind="stable").astype(np.uint16)


def hugepage_kb(address: int) -> int | None:
    """AnonHugePages (kB) of the mapping of this process that holds address, from
    /proc/self/smaps; None where there is no such file or mapping."""
    try:
        with open("/proc/self/smaps") as f:
            inside = False
            for line in f:
                head = line.split()[0] if line.strip() else ""
                if "-" in head and not head.endswith(":"):
                    lo, hi = (int(x, 16) for x in head.split("-"))
                    inside = lo <= address < hi
                elif inside and head == "AnonHugePages:":
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def run_call_floors(values: list[int], repeats: int,
                    tried: dict[str, Callable[[int], Any]] | None = None) -> dict[str, float]:
    """ns per call (median) of evaluate(mask) and of the cheapest calls beside it: the
    builtin abs, int.bit_count through a local name, our own no-op METH_O builtin, the
    bare loop, and evaluate on one mask repeated (tables hot). Also both calls with every
    result kept in a list (evaluate_kept, noop_kept): a result the caller holds is never
    reused, so there evaluate returns its value's prebuilt object (docs/kernels.md)."""
    from evaluator_pyx import _floor  # type: ignore[attr-defined]  # compiled (Cython): mypy sees no source

    evaluate, noop, bit_count = ev.evaluate, _floor.noop, int.bit_count

    def call(f: Callable[[int], Any]) -> Callable[[], None]:
        def run() -> None:
            for m in values:
                f(m)
        return run

    def bare() -> None:
        for _m in values:
            pass

    hot = [values[0]] * len(values)

    def evaluate_hot() -> None:
        for m in hot:
            evaluate(m)

    def kept(f: Callable[[int], Any]) -> Callable[[], None]:
        def run() -> None:
            out = [f(m) for m in values]
            del out
        return run

    # evaluate_hot: one mask over and over, so the tables stay in L1; the difference
    # from evaluate on the random list is the tables' cache misses between calls.
    runs = {"evaluate": call(evaluate), "evaluate_hot": evaluate_hot, "abs": call(abs),
            "bit_count": call(bit_count), "noop": call(noop), "loop": bare,
            "evaluate_kept": kept(evaluate), "noop_kept": kept(noop)}
    # The ways of building the call tried before (_floor.call_variants), in the same rounds.
    runs.update({f"tried_{name}": call(f) for name, f in (tried or {}).items()})
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            t0 = time.process_time()
            fn()
            times[name].append(time.process_time() - t0)
    return {name: statistics.median(t) / len(values) * 1e9 for name, t in times.items()}


def _deals(rng: np.random.Generator, n: int) -> np.ndarray:
    return np.array([rng.choice(52, 5, replace=False) for _ in range(n)], dtype=np.uint8)


def run_kernels_bench(config: Config, quick: bool = False, anchor: bool = True) -> dict[str, Any]:
    """Ours and OMPEval's figures on the same inputs (see the module docstring); the
    kernels have no settings: ``config`` is not read."""
    from evaluator_pyx import _assess, _core  # type: ignore[attr-defined]  # compiled (Cython): mypy sees no source

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
    for name, fn in (("batch", lambda: ev.evaluate_batch(masks, out)),
                     ("batch_unchecked", lambda: ev.evaluate_batch(masks, out, check=False)),
                     ("incremental", lambda: _core.evaluate_key_batch(keys, masks, out))):
        median, best = cpu_times(fn, repeats)
        ours[f"{name}_hands_per_s"] = n7 / median
        ours[f"{name}_best_hands_per_s"] = n7 / best
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

    try:
        from evaluator_pyx import _floor  # type: ignore[attr-defined]  # compiled (Cython): mypy sees no source

        tried, advice, address = _floor.call_variants(frequency_order(np.random.default_rng(18)))
        calls = run_call_floors(masks[:200_000].tolist(), repeats, tried)
        ours["call_tried_ns"] = {k[len("tried_"):]: calls.pop(k) for k in list(calls) if k.startswith("tried_")}
        ours["call_hugepage"] = {"advice": advice, "anon_huge_kb": hugepage_kb(address) if address else None}
        ours["floors"] = run_floors(masks, keys, repeats)
    except ImportError as exc:
        # evaluator_pyx._floor is bench-only; without it the rows go on without floors.
        ours["floors_missing"] = str(exc)
        evaluate = ev.evaluate
        values = masks[:200_000].tolist()

        def run() -> None:
            for m in values:
                evaluate(m)

        calls = {"evaluate": cpu_median(run, repeats) / len(values) * 1e9, "loop": float("nan")}
    ours["call_ns"] = calls.pop("evaluate")
    ours["loop_ns"] = calls.pop("loop")
    ours["call_floor_ns"] = calls

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


def _table(head: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(head, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    return lines


# The floors and alternatives, in the order printed, with what each row is.
FLOOR_ROWS = (
    ("stream_only", "floor: read a mask, write 16 bits (memory only)"),
    ("reads_only_one", "floor: 1 read of the value table, index precomputed"),
    ("reads_only_hash", "floor: the hash's 2 dependent reads, rank sum precomputed"),
    ("keys_from_masks", "floor: mask -> key, the 4 suit-word reads, no hash"),
    ("keys_bitsliced", "floor: mask -> key computed, no table read"),
    ("pdep_keys_only", "  tried: the per-rank counts by PDEP (4 per hand), no table"),
    ("key_kept", "ours, incremental form (kept: flush branch out of line)"),
    ("alt_key_group4", "  tried: 4 hands, 1 flush test"),
    ("alt_key_group8", "  tried: 8 hands, 1 flush test"),
    ("alt_key_branch_inline", "  tried: 1 hand, flush branch laid inline"),
    ("alt_key_select", "  tried: branch-free select of flush/rank value"),
    ("alt_key_fixup", "  tried: blocks, flushes listed and fixed after"),
    ("alt_key_staged", "  tried: blocks, hash indexes then value reads"),
    ("count_keys_only", "floor: mask -> count-key hash + flush flag, no table (1 hand at a time)"),
    ("reads_only_count", "floor: the count table's 2 dependent reads, hash precomputed"),
    ("mask_kept", "ours, from masks, unchecked (kept: count key, AVX2, 16 hands a step)"),
    ("cnt_mask_simple", "  tried: count key, 1 hand, flush branch out of line"),
    ("cnt_mask_group4", "  tried: count key, 4 hands, 1 flush test"),
    ("cnt_mask_staged", "  tried: count key, blocks of 64, flushes fixed after"),
    ("alt_mask_group4", "  before: suit-word sums, 4 hands, 1 flush test"),
    ("alt_mask_simple", "  tried: suit-word sums, 1 hand, 1 flush test"),
    ("alt_mask_select", "  tried: suit-word sums, branch-free flush select"),
    ("alt_mask_fixup", "  tried: suit-word sums, blocks, flushes fixed after"),
    ("alt_mask_staged", "  tried: suit-word sums, blocks in stages"),
)


def format_floors(r: dict[str, Any]) -> str:
    """Floors and tried designs: M hands/s (median, best) and cycles per hand (best)."""
    floors = r["ours"].get("floors")
    if not floors:
        missing = r["ours"].get("floors_missing")
        return (f"(floors and tried designs unavailable: {missing}; they are a laboratory module, "
                f"built with POKI_BUILD_LAB=1 pip install -e .)") if missing else ""
    cycle = floors["cycle_s"]
    rows: list[tuple[str, ...]] = []
    for key, label in FLOOR_ROWS:
        if key not in floors["per_hand"]:
            continue
        median, best = floors["per_hand"][key]
        rows.append((label, f"{1 / median / 1e6:,.0f}", f"{1 / best / 1e6:,.0f}", f"{best / cycle:.1f}"))
    omp = r.get("ompeval", {})
    if omp.get("available"):
        for key, label in (("eval_incremental", "OMPEval, incremental form, values summed"),
                           ("eval_incremental_store", "OMPEval, incremental form, values stored"),
                           ("eval_from_cards", "OMPEval, from the 7 cards, values summed")):
            if f"{key}_s_per_hand" in omp and f"{key}_best_s_per_hand" in omp:
                median, best = omp[f"{key}_s_per_hand"], omp[f"{key}_best_s_per_hand"]
                rows.append((label, f"{1 / median / 1e6:,.0f}", f"{1 / best / 1e6:,.0f}", f"{best / cycle:.1f}"))
    lines = _table(("7-card loop, same random list", "M/s median", "M/s best", "cycles/hand (best)"), rows)
    lines.append(f"(clock {1 / cycle / 1e9:.2f} GHz from a chain of dependent adds; cycles = best CPU time / cycle; "
                 "the floors' rounds alternate with the tried loops)")
    return "\n".join(lines)


def format_kernels_bench(r: dict[str, Any]) -> str:
    """Rows: same work | OMPEval | ours | ours / OMPEval speed | target; then the floors."""
    o = r["ours"]
    omp = r.get("ompeval", {})
    have = bool(omp.get("available"))
    agrees = omp.get("agrees", {})

    def mark(ok_key: str) -> str:
        return "" if agrees.get(ok_key, True) else " (DISAGREES)"

    def rate(x: float) -> str:
        return f"{x / 1e6:,.0f} M/s"

    def rates(key: str) -> str:
        best = o.get(f"{key}_best_hands_per_s")
        return rate(o[f"{key}_hands_per_s"]) + (f" ({best / 1e6:,.0f})" if best else "")

    def omp_rates(key: str) -> str:
        best = omp.get(f"{key}_best_s_per_hand")
        return rate(1.0 / omp[f"{key}_s_per_hand"]) + (f" ({1e-6 / best:,.0f})" if best else "")

    rows: list[tuple[str, ...]] = []
    omp_rate = 1.0 / omp["eval_from_cards_s_per_hand"] if have else None
    omp_inc = 1.0 / omp["eval_incremental_s_per_hand"] if have else None
    rows.append(("7-card eval, random list, from the 7 cards (ours: masks, checked)",
                 omp_rates("eval_from_cards") + mark("categories") if have else "-", rates("batch"),
                 f"{o['batch_hands_per_s'] / omp_rate:.2f}x" if have else "-", ">= 500 M/s"))
    rows.append(("7-card eval, masks, unchecked", "", rates("batch_unchecked"),
                 f"{o['batch_unchecked_hands_per_s'] / omp_rate:.2f}x" if have else "-", ""))
    rows.append(("7-card eval, hands kept in incremental form", omp_rates("eval_incremental") if have else "-",
                 rates("incremental"),
                 f"{o['incremental_hands_per_s'] / omp_inc:.2f}x" if have else "-", ""))
    if have and "eval_incremental_store_s_per_hand" in omp:
        omp_store = 1.0 / omp["eval_incremental_store_s_per_hand"]
        rows.append(("  the same, OMPEval storing each value as ours does", omp_rates("eval_incremental_store"),
                     rates("incremental"), f"{o['incremental_hands_per_s'] / omp_store:.2f}x", ""))
    omp_hs = omp["flop_hs_s"] * 1e6 if have else None
    rows.append(("flop hand strength, weighted, 1,081 holdings",
                 f"{omp_hs:.2f} µs" + mark("hand_strength") if have else "-", f"{o['flop_hs_us']:.2f} µs",
                 f"{omp_hs / o['flop_hs_us']:.2f}x" if have else "-", "<= 1.0 µs"))
    omp_pot = omp.get("flop_pot2_s")
    rows.append(("exact flop Ppot/Npot, 2 to come, weighted",
                 f"{omp_pot * 1e3:.2f} ms" + mark("potential") if omp_pot else "-", f"{o['flop_pot2_ms']:.2f} ms",
                 f"{omp_pot * 1e3 / o['flop_pot2_ms']:.2f}x" if omp_pot else "-", "<= 2.0 ms"))
    floor = dict(o.get("call_floor_ns", {}))
    kept, kept_noop = floor.pop("evaluate_kept", None), floor.pop("noop_kept", None)
    beside = "; ".join(f"{name.replace('evaluate_hot', 'one mask repeated')} {ns:.0f}" for name, ns in floor.items())
    rows.append(("one Python call, evaluate(mask) (loop; cheapest calls, ns)", "",
                 f"{o['call_ns']:.0f} ns ({o['loop_ns']:.0f}" + (f"; {beside})" if beside else ")"), "", "<= 50 ns"))
    if kept is not None and kept_noop is not None:
        rows.append(("  the same, every result kept in a list (no-op kept, ns)", "",
                     f"{kept:.0f} ns ({kept_noop:.0f})", "", ""))
    lines = _table(("same work", "OMPEval (C++)", "ours", "speed ratio", "target"), rows)
    tried = o.get("call_tried_ns", {})
    if tried:
        huge = o.get("call_hugepage", {})
        took = huge.get("anon_huge_kb")
        lines.append("evaluate(mask) built the ways tried before, same rounds, results dropped (ns): " + "; ".join(
            f"{TRIED_CALLS.get(name, name)} {ns:.0f}" for name, ns in tried.items()))
        lines.append(f"(the huge page: madvise {'accepted' if huge.get('advice') == 1 else 'refused or no mapping'}"
                     + (f", {took} kB AnonHugePages in its mapping)" if took is not None else ")"))
    note = (f"(CPU-time medians of {r['repeats']} repeats, best repeat in brackets, one core, "
            f"load {r['load_average'][0]:.1f}; speed ratio > 1: ours faster")
    note += f"; OMPEval: {omp.get('compiler')})" if have else f"; OMPEval unavailable: {omp.get('reason', 'not run')})"
    lines.append(note)
    floors = format_floors(r)
    return "\n".join(lines) + ("\n\n" + floors if floors else "")


if __name__ == "__main__":
    import sys

    print(format_kernels_bench(run_kernels_bench(Config(), "--quick" in sys.argv)))
