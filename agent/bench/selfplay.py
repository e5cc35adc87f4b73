"""Self-play speed: hands per second through the in-process dealer (rules, tracker and a
HandRecord per hand) with house bots that do no simulation."""
from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Any

import numpy as np

from agent.config import Config
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.players import create_player

TARGET_SELFPLAY_HANDS_PER_S = 2000.0
# Tables measured: house bots without hand-strength simulation (the dealer, the rules and
# the tracker are what is timed), heads-up and six-handed.
SELFPLAY_TABLES = {
    "heads-up random vs call": ("random", "call"),
    "6 seats random/call/raise": ("random", "random", "call", "random", "raise", "random"),
}


def run_selfplay_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """Hands per second of self-play through the in-process dealer (rules + tracker +
    HandRecord per hand, no logs) with house bots that do no simulation; one core, median
    of repeats, wall clock (and per CPU second, which a busy machine disturbs less). The
    figure reported is the six-seat table's, where the always-raise bot caps every round.
    The tables are ``config``'s, with the seats of each line-up."""
    import gc

    hands = 1000 if quick else 4000
    repeats = 3 if quick else 5
    figures: dict[str, Any] = {"target_hands_per_s": TARGET_SELFPLAY_HANDS_PER_S,
                               "hands_per_repeat": hands, "repeats": repeats, "tables": {}}
    for label, specs in SELFPLAY_TABLES.items():
        n = len(specs)
        table = dataclasses.replace(config.table, seats=n)
        rates: list[float] = []
        cpu_rates: list[float] = []  # per second of this process's CPU time (a busy machine)
        decisions = 0
        for rep in range(repeats):
            players = [create_player(s, np.random.default_rng([7, rep, k]), name=f"{s}{k}")
                       for k, s in enumerate(specs)]
            dealer = Dealer(table, source="bench")
            rng = np.random.default_rng([7, rep])
            deals = [Deal.draw(rng, n) for _ in range(hands)]
            enabled = gc.isenabled()
            gc.disable()
            try:
                t0, c0 = time.perf_counter(), time.process_time()
                for h, deal in enumerate(deals):
                    record = dealer.play_hand(players, deal, button=h % n, hand_id=str(h))
                    if rep == 0:
                        decisions += len(record.actions) - 2
                elapsed = time.perf_counter() - t0
                cpu = time.process_time() - c0
            finally:
                if enabled:
                    gc.enable()
            rates.append(hands / elapsed)
            cpu_rates.append(hands / cpu if cpu > 0 else float("inf"))
        figures["tables"][label] = {
            "seats": n,
            "players": list(specs),
            "hands_per_s": statistics.median(rates),
            "hands_per_s_runs": rates,
            "hands_per_cpu_s": statistics.median(cpu_rates),
            "decisions_per_hand": decisions / hands,
        }
    headline = figures["tables"]["6 seats random/call/raise"]["hands_per_s"]
    figures["hands_per_s"] = headline
    figures["meets_target"] = headline >= TARGET_SELFPLAY_HANDS_PER_S
    return figures
