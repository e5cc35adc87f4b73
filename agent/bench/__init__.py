"""Speed figures of the targets of docs/architecture.md, measured on this machine.

Every figure is a median over repeats, single thread, with the anchor packages (eval7,
phevaluator) measured in the same run when they are installed, so ratios are
comparable even on a shared, noisy machine. Inputs are generated before timing starts.
"""
from __future__ import annotations

import gc
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from agent.config import Config, config_toml

# docs/architecture.md's targets.
TARGET_BATCH_HANDS_PER_S = 150e6
TARGET_CALL_NS = 200.0


def median_runs(fn: Callable[[], Any], repeats: int) -> tuple[float, list[float]]:
    """Median and all wall times (seconds) of fn() over repeats, GC off while timing."""
    times = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            t0 = time.perf_counter_ns()
            fn()
            times.append((time.perf_counter_ns() - t0) / 1e9)
    finally:
        if enabled:
            gc.enable()
    return statistics.median(times), times


def _per_call_ns(fn: Callable[[Any], Any], args: list, repeats: int) -> tuple[float, list[float]]:
    """Median ns per fn(arg) over a Python loop on args (loop overhead included)."""

    def loop() -> None:
        for a in args:
            fn(a)

    median, times = median_runs(loop, repeats)
    return median / len(args) * 1e9, [t / len(args) * 1e9 for t in times]


def _per_call_ns_star(fn: Callable[..., Any], args: list[tuple], repeats: int) -> float:
    def loop() -> None:
        for a in args:
            fn(*a)

    return median_runs(loop, repeats)[0] / len(args) * 1e9


def _eval7_figures(cards: np.ndarray, repeats: int) -> dict[str, Any]:
    try:
        import eval7
    except ImportError:
        return {"available": False}
    from evaluator_pyx import CARD_NAMES

    deck = [eval7.Card(name) for name in CARD_NAMES]
    hands = [[deck[c] for c in row] for row in cards.tolist()]
    evaluate = eval7.evaluate
    evaluate(hands[0])
    batch_s, batch_runs = median_runs(lambda: [evaluate(h) for h in hands], repeats)
    call_ns, _ = _per_call_ns(evaluate, hands, repeats)
    return {
        "available": True,
        "version": getattr(eval7, "__version__", None) or _dist_version("eval7"),
        "hands": len(hands),
        "batch_hands_per_s": len(hands) / batch_s,
        "batch_hands_per_s_runs": [len(hands) / t for t in batch_runs],
        "call_ns": call_ns,
        "note": "eval7.evaluate called from Python over pre-built lists of eval7.Card "
        "(its Python path; eval7 has no batch API)",
    }


def _phevaluator_figures(cards: np.ndarray, repeats: int) -> dict[str, Any]:
    try:
        import phevaluator
        from phevaluator import _pheval
    except ImportError:
        return {"available": False}
    from evaluator_pyx import CARD_NAMES

    ids = [phevaluator.Card(name).id_ for name in CARD_NAMES]
    hands = [tuple(ids[c] for c in row) for row in cards.tolist()]
    return {
        "available": True,
        "version": _dist_version("phevaluator"),
        "hands": len(hands),
        "call_ns": _per_call_ns_star(phevaluator.evaluate_cards, hands, repeats),
        "native_call_ns": _per_call_ns_star(_pheval.evaluate_7cards, hands, repeats),
        "note": "call_ns: phevaluator.evaluate_cards(*ids), its public API; "
        "native_call_ns: its C function _pheval.evaluate_7cards(*ids) called directly",
    }


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def run_evaluator_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """7-card evaluation: batch hands/s through evaluate_batch and ns per Python call of
    evaluate, ours and the anchors', as medians over repeats (the evaluator has no
    settings: ``config`` is not read)."""
    import evaluator_pyx as ev

    n_batch = 1_000_000 if quick else 2_000_000
    n_calls = 100_000 if quick else 200_000
    n_anchor = 50_000 if quick else 200_000
    repeats = 5 if quick else 11
    rng = np.random.default_rng(2026)
    masks = ev.random_hand_masks(rng, n_batch, 7, unique=True)
    out = np.empty(n_batch, dtype=np.uint16)
    call_masks = masks[:n_calls].tolist()

    if ev.BACKEND == "python":  # the reference is ~10^4 times slower: measure a little
        masks, out, call_masks, repeats = masks[:2000], out[:2000], call_masks[:2000], 3

    ev.evaluate_batch(masks, out)  # warm-up: tables into cache, output pages touched
    batch_s, batch_runs = median_runs(lambda: ev.evaluate_batch(masks, out), repeats)
    unchecked_s, _ = median_runs(lambda: ev.evaluate_batch(masks, out, check=False), repeats)
    call_ns, call_runs = _per_call_ns(ev.evaluate, call_masks, repeats)
    abs_call_ns, _ = _per_call_ns(abs, call_masks, repeats)

    figures: dict[str, Any] = {
        "backend": ev.BACKEND,
        "hands": len(masks),
        "call_hands": len(call_masks),
        "repeats": repeats,
        "batch_hands_per_s": len(masks) / batch_s,
        "batch_hands_per_s_runs": [len(masks) / t for t in batch_runs],
        "batch_unchecked_hands_per_s": len(masks) / unchecked_s,
        "call_ns": call_ns,
        "call_ns_runs": call_runs,
        "loop_with_abs_call_ns": abs_call_ns,
        "target_batch_hands_per_s": TARGET_BATCH_HANDS_PER_S,
        "target_call_ns": TARGET_CALL_NS,
        "note": "random distinct 7-card hands; batch = evaluate_batch on a uint64 array "
        "(validating each mask; 'unchecked' with check=False); call = Python loop over "
        "evaluate(mask), loop overhead included (loop_with_abs_call_ns: the same loop "
        "calling the builtin abs())",
    }
    if ev.BACKEND == "cython":
        from evaluator_pyx import _core  # type: ignore[attr-defined]  # compiled (Cython): mypy sees no source

        figures["table_build_ms"] = _core.table_info()["build_ms"]
    anchor_cards = ev.cards_from_masks(masks[:n_anchor], 7)
    figures["eval7"] = _eval7_figures(anchor_cards, repeats)
    figures["phevaluator"] = _phevaluator_figures(anchor_cards, repeats)
    return figures


def _machine() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
    }


def settings_file(config: Config, folder: Path) -> Path:
    """``config`` written as a config file in ``folder``: what a section gives a process it
    starts (``python -m agent.cli --config FILE ...``), so the child measures with the
    settings the command was given, not with a config.toml it happens to find."""
    path = folder / "bench-settings.toml"
    path.write_text(config_toml(config), encoding="utf-8")
    return path


class Section(Protocol):
    """A section of `poki bench`: its figures, measured with the settings the command loaded
    (`poki --config FILE bench`; a section fixes on top only what its figure is about, such
    as the seats of its table), fewer repeats when ``quick``."""

    def __call__(self, config: Config, quick: bool = False) -> dict[str, Any]: ...


# Every section of `poki bench`: name -> (module, function), a Section; a section whose
# module is missing is left out.
SECTIONS: dict[str, tuple[str, str]] = {
    "evaluator": ("agent.bench", "run_evaluator_bench"),
    "assess": ("agent.bench.assess", "run_assess_bench"),
    "kernels": ("agent.bench.kernels", "run_kernels_bench"),
    "selfplay": ("agent.bench.selfplay", "run_selfplay_bench"),
    "engine": ("agent.bench.engine", "run_engine_bench"),
    "simulator": ("agent.bench.simulator", "run_simulator_bench"),
    "db": ("agent.bench.database", "run_db_bench"),
    "replay": ("agent.bench.replay", "run_replay_bench"),
    "report": ("agent.bench.report", "run_report_bench"),
    "acpc": ("agent.bench.acpc", "run_acpc_bench"),
    "irc": ("agent.bench.irc", "run_irc_bench"),
    "cluster": ("agent.bench.cluster", "run_cluster_bench"),
    "cfr": ("agent.bench.cfr", "run_cfr_bench"),
}
# Sections run only when named (--only): they need an optional extra or take minutes.
ON_REQUEST = ("cluster",)


def run_all(config: Config, quick: bool = False, only: list[str] | None = None,
            progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The chosen benchmark sections (all by default), each given ``config``, plus a note of
    the machine."""
    import importlib

    names = [n for n in SECTIONS if n not in ON_REQUEST] if not only else only
    unknown = [n for n in names if n not in SECTIONS]
    if unknown:
        raise ValueError(f"unknown bench section(s) {', '.join(unknown)}; known: {', '.join(SECTIONS)}")
    figures: dict[str, Any] = {"machine": _machine(), "quick": quick}
    t0 = time.perf_counter()
    for name in names:
        module_name, function = SECTIONS[name]
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        if progress:
            progress(name)
        section: Section = getattr(module, function)
        figures[name] = section(config, quick)
    figures["seconds"] = round(time.perf_counter() - t0, 1)
    return figures


def _rate(x: float) -> str:
    return f"{x / 1e6:,.1f} M/s"


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _evaluator_rows(e: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    e7 = e.get("eval7", {})
    ph = e.get("phevaluator", {})
    rows = [(
        f"7-card eval, batch, one core [{e['backend']}]",
        _rate(e["batch_hands_per_s"]),
        f"eval7 {_rate(e7['batch_hands_per_s'])} (Python path)" if e7.get("available") else "eval7 n/a",
        f">= {_rate(e['target_batch_hands_per_s'])}",
    ), ("7-card eval, batch, unchecked", _rate(e["batch_unchecked_hands_per_s"]), "", "")]
    anchor = []
    if e7.get("available"):
        anchor.append(f"eval7 {e7['call_ns']:.0f} ns")
    if ph.get("available"):
        anchor.append(f"phevaluator {ph['call_ns']:.0f} ns (C fn {ph['native_call_ns']:.0f} ns)")
    rows.append(("7-card eval, one Python call", f"{e['call_ns']:.0f} ns", ", ".join(anchor) or "n/a",
                 f"<= {e['target_call_ns']:.0f} ns"))
    if "table_build_ms" in e:
        rows.append(("evaluator tables built at import", f"{e['table_build_ms']:.1f} ms", "", ""))
    return rows


def _pipeline_rows(figures: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    rows = []
    sp = figures.get("selfplay")
    if sp:
        for label, t in sp["tables"].items():
            rows.append((f"self-play, house bots, {label}", f"{t['hands_per_s']:,.0f} hands/s",
                         f"{t['hands_per_cpu_s']:,.0f} per CPU s", ">= 2,000 hands/s"))
    en = figures.get("engine")
    if en:
        for kind, label in (("stations", "vs 9 callers"), ("stations_ranges", "vs 9 callers, learned ranges"),
                            ("poki", "10 Poki players"), ("stations_learned", "vs 9 callers, learned predictor")):
            if kind in en:
                rows.append((f"Poki post-flop decision, 10 seats, {label}",
                             f"{en[kind]['median_ms']:.2f} ms median", f"p90 {en[kind]['p90_ms']:.2f} ms", ""))
        pr = en.get("prediction")
        if pr:
            rows.append(("opponent prediction in play (fine context + meta)", f"{pr['meta_with_context_us']:.1f} µs",
                         f"back-off {pr['backoff_us']:.1f} µs, twelve {pr['twelve_us']:.1f} µs", "<= 20 µs"))
            if "learned_us" in pr:
                rows.append(("learned prediction (features + logistic)", f"{pr['learned_us']:.1f} µs",
                             "read with [model] predictor = learned", "<= 20 µs"))
            if "learned_network_us" in pr:
                rows.append(("learned prediction (features + 16-unit network)",
                             f"{pr['learned_network_us']:.1f} µs",
                             "poki db fit-predictor --hidden 16", "<= 20 µs"))
    sm = figures.get("simulator")
    if sm and sm.get("decisions"):
        rows.append((f"one simulated decision, {sm['trials']} trials, 10 players, flop",
                     f"{sm['median_ms']:.1f} ms median", f"p99 {sm['p99_ms']:.1f} ms; CPU "
                     f"{sm['cpu_median_ms']:.1f} / p99 {sm['cpu_p99_ms']:.1f} ms; "
                     f"{sm['trials_per_s']:,.0f} trials/s; {sm['decisions']} decisions",
                     "<= 50 ms median, p99 <= 150 ms"))
    d = figures.get("db")
    if d and "hands_per_s" in d:
        rows.append(("hand records into SQLite, models updated", f"{d['hands_per_s']:,} hands/s",
                     f"{d.get('hands_per_cpu_s', 0):,} per CPU s", ""))
    r = figures.get("replay")
    if r and "hands_per_s" in r:
        also = f"{r['workers']} workers; serial {r['serial_hands_per_s']:,}"
        if r.get("load_average"):
            also += f"; load {r['load_average'][0]:.1f}"
        rows.append(("replay of the 1995 IRC logs into SQLite", f"{r['hands_per_s']:,.0f} hands/s", also,
                     ">= 5,000 hands/s"))
    rp = figures.get("report")
    if rp and "seconds" in rp:
        rows.append((f"opponent report, 1995 IRC database ({rp['hands']:,} hands, {rp['players']} players), one core",
                     f"{rp['seconds']:.1f} s", f"{rp['cpu_seconds']:.1f} CPU s; {rp['charts']} charted; "
                     f"page {rp['page_bytes'] / 1e6:.1f} MB", f"< {rp['target_seconds']:.0f} s"))
    irc = figures.get("irc")
    if irc and "hands_per_s" in irc:
        cpu = irc.get("cpu_ms_per_hand")
        load = irc.get("load_average")
        rows.append(("IRC dealer + 4 bots on loopback miniircd", f"{irc['hands_per_s']:,.0f} hands/s",
                     "no flood limit" + (f"; load {load:.1f}" if load is not None else "")
                     + (f"; CPU/hand {cpu['total']:.1f} ms: dealer {cpu['dealer']:.1f}, server "
                        f"{cpu['server']:.1f}, bots {cpu['bots']:.1f}" if cpu else ""),
                     ">= 50 hands/s"))
        if irc.get("poki_latency_median_ms") is not None:
            rows.append(("IRC player bot (Poki): 'to act' to answer", f"{irc['poki_latency_median_ms']:.1f} ms median",
                         f"p99 {irc['poki_latency_p99_ms']:.1f} ms", ""))
    cf = figures.get("cfr")
    if cf:
        from agent.bench.cfr import format_cfr_bench

        rows.extend(format_cfr_bench(cf))
    a = figures.get("acpc")
    if a and "hands_per_s" in a:
        rows.append(("ACPC client (always-call) vs our dealer, loopback, heads-up, one CPU",
                     f"{a['hands_per_s']:,} hands/s",
                     f"CPU/hand: client {a['client_cpu_us_per_hand']} us, dealer "
                     f"{a['dealer_cpu_us_per_hand']} us; load {a['load_average'][0]:.1f}",
                     ">= 2,000 hands/s"))
        if "two_cores_hands_per_s" in a:
            rows.append(("the same, free to use both cores", f"{a['two_cores_hands_per_s']:,} hands/s",
                         f"CPU/hand: client {a['two_cores_client_cpu_us_per_hand']} us", ""))
    return rows


def format_table(figures: dict[str, Any]) -> str:
    """The figures as aligned text tables (what `poki bench` prints)."""
    head = ("figure", "ours", "anchor (same run)", "target")
    blocks = []
    if figures.get("evaluator"):
        blocks.append("\n".join(_aligned([head, *_evaluator_rows(figures["evaluator"])])))
    if figures.get("assess"):
        from agent.bench.assess import format_assess_bench

        blocks.append(format_assess_bench(figures["assess"]))
    if figures.get("kernels"):
        from agent.bench.kernels import format_kernels_bench

        blocks.append(format_kernels_bench(figures["kernels"]))
    rows = _pipeline_rows(figures)
    if rows:
        blocks.append("\n".join(_aligned([("figure", "ours", "also", "target"), *rows])))
    if figures.get("cluster"):
        from agent.bench.cluster import format_cluster_bench

        blocks.append(format_cluster_bench(figures["cluster"]))
    blocks.append(f"(medians over repeats, one core; {figures.get('seconds', '?')} s in all)")
    return "\n\n".join(blocks)


if __name__ == "__main__":
    import json

    from agent.config import load_config

    result = run_all(load_config(), quick="--quick" in sys.argv)
    print(json.dumps(result, indent=2) if "--json" in sys.argv else format_table(result))
