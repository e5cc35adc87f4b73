"""The kernels bench's arithmetic on hand-built figures (a 1 GHz clock, known times per
hand): rates, cycles per hand and the rows printed are what the figures say, and a
missing anchor or laboratory module is reported, not hidden. Its timing helpers on the
real floor loops are tested with the laboratory (tests/test_evaluator_floor.py).
"""
from __future__ import annotations

import numpy as np

from agent.bench import kernels


def figures() -> dict:
    ours = {
        "batch_hands_per_s": 250e6, "batch_best_hands_per_s": 300e6,
        "batch_unchecked_hands_per_s": 320e6, "batch_unchecked_best_hands_per_s": 330e6,
        "incremental_hands_per_s": 500e6, "incremental_best_hands_per_s": 600e6,
        "flop_hs_us": 0.5, "flop_pot2_ms": 1.0, "call_ns": 50.0, "loop_ns": 7.0,
        "call_floor_ns": {"evaluate_hot": 28.0, "abs": 20.0, "noop": 19.0, "evaluate_kept": 41.0,
                          "noop_kept": 30.0},
        # 1 GHz: 5 ns per hand at best is 5 cycles and 200 M/s; 10 ns median is 100 M/s.
        "floors": {"cycle_s": 1e-9, "per_hand": {"reads_only_hash": (10e-9, 5e-9), "key_kept": (4e-9, 2e-9)}},
    }
    omp = {"available": True, "compiler": "g++", "eval_from_cards_s_per_hand": 1 / 200e6,
           "eval_from_cards_best_s_per_hand": 1 / 250e6, "eval_incremental_s_per_hand": 1 / 400e6,
           "eval_incremental_best_s_per_hand": 1 / 500e6, "flop_hs_s": 2e-6, "flop_pot2_s": 5e-3,
           "agrees": {"hand_strength": True, "potential": True, "categories": True}}
    return {"repeats": 7, "load_average": [3.0, 3.0, 3.0], "ours": ours, "ompeval": omp}


def test_rates_ratios_and_cycles_follow_the_figures() -> None:
    text = kernels.format_kernels_bench(figures())
    rows = {line.split("  ")[0]: line for line in text.splitlines()}
    hash_row = next(line for line in text.splitlines() if line.startswith("floor: the hash's 2 dependent reads"))
    assert hash_row.split()[-3:] == ["100", "200", "5.0"]
    kept = next(line for line in text.splitlines() if line.startswith("ours, incremental form"))
    assert kept.split()[-3:] == ["250", "500", "2.0"]
    inc = next(v for k, v in rows.items() if k.startswith("7-card eval, hands kept in incremental form"))
    assert "400 M/s (500)" in inc and "500 M/s (600)" in inc and "1.25x" in inc
    assert "(clock 1.00 GHz" in text
    call = next(line for line in text.splitlines() if line.startswith("one Python call"))
    assert "50 ns (7; one mask repeated 28; abs 20; noop 19)" in call
    held = next(line for line in text.splitlines() if line.startswith("  the same, every result kept"))
    assert "41 ns (30)" in held
    assert "built the ways tried" not in text       # no variants measured, no line


def test_the_tried_calls_line_names_each_variant_and_the_huge_page() -> None:
    r = figures()
    r["ours"]["call_tried_ns"] = {"prebuilt": 44.4, "prebuilt_hugepage": 43.6, "allocated": 36.0}
    r["ours"]["call_hugepage"] = {"advice": 1, "anon_huge_kb": 2048}
    lines = kernels.format_kernels_bench(r).splitlines()
    tried = next(line for line in lines if line.startswith("evaluate(mask) built the ways tried"))
    assert tried.endswith("prebuilt objects 44; the same, tables and objects in a 2 MB huge page 44; a new int 36")
    assert "(the huge page: madvise accepted, 2048 kB AnonHugePages in its mapping)" in lines
    r["ours"]["call_hugepage"] = {"advice": -1, "anon_huge_kb": None}
    assert "(the huge page: madvise refused or no mapping)" in kernels.format_kernels_bench(r).splitlines()


def test_huge_page_lookup_and_frequency_order_on_this_process() -> None:
    data = np.ones(1 << 20)                     # an 8 MB anonymous mapping of our own
    kb = kernels.hugepage_kb(data.ctypes.data)
    assert kb is None or kb >= 0
    if kb is not None:
        assert kernels.hugepage_kb(0) is None   # nothing is mapped at address 0
    order = kernels.frequency_order(np.random.default_rng(4), 20_000)
    assert order[0] == 0 and sorted(order.tolist()) == list(range(7463))
    # 7462 (a royal flush) is among the rarest values; a high card or one pair is not.
    assert order.tolist().index(7462) > 1000


def test_a_missing_anchor_says_why() -> None:
    r = figures()
    r["ompeval"] = {"available": False, "reason": "g++ not found"}
    text = kernels.format_kernels_bench(r)
    assert "OMPEval unavailable: g++ not found" in text
    assert "OMPEval, incremental form" not in text


def test_without_the_floor_module_the_rows_say_so() -> None:
    r = figures()
    del r["ours"]["floors"]
    r["ours"]["floors_missing"] = "No module named 'evaluator_pyx._floor'"
    text = kernels.format_kernels_bench(r)
    assert "floors and tried designs unavailable: No module named 'evaluator_pyx._floor'" in text
    assert "POKI_BUILD_LAB=1" in text
    assert "7-card eval, hands kept in incremental form" in text
