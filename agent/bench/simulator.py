"""Speed of the selective-sampling simulator ([sampling-1999]; the targets of docs/architecture.md: one
simulated decision, 500 trials, ten players on the flop, median <= 50 ms, p99 <= 150 ms;
Poki took seconds).

Poki with ``bettor=simulator`` sits at ten seats with nine calling stations, so all ten
players see every flop; every flop decision it takes with all ten still in is timed
whole (catching up on the betting, re-weighting nine tables, EHS, and the simulation of
exactly 500 trials: no obvious-move cut-off, no time budget), and the trials per second
of the simulation itself are reported with it. Wall-clock and process CPU time are both
given: on a shared machine the second is what one core of its own would take.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

import agent.engine.player as player_module
from agent.config import Config
from agent.engine.player import PokiPlayer
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.players import Player, create_player

TRIALS = 500


class _Timed(PokiPlayer):
    def __init__(self, *args: Any, sink: list[float], cpu_sink: list[float], **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._sink = sink
        self._cpu_sink = cpu_sink

    def act(self, ctx):
        if ctx.round != 1 or ctx.players_active != 10:
            return super().act(ctx)
        t0, c0 = time.perf_counter(), time.process_time()
        action = super().act(ctx)
        self._sink.append(time.perf_counter() - t0)
        self._cpu_sink.append(time.process_time() - c0)
        return action


def run_simulator_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """Median and p99 milliseconds per simulated flop decision at ten seats, and trials/s:
    Poki with ``config``'s engine settings, simulating every decision with a fixed number of
    trials (no time limit), at ``config``'s table with ten seats."""
    hands = 40 if quick else 300
    times: list[float] = []
    cpu: list[float] = []
    sim_seconds: list[float] = []
    sim_trials: list[int] = []
    real = player_module.simulate_decision

    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        out = real(*args, **kwargs)
        sim_seconds.append(time.perf_counter() - t0)
        sim_trials.append(out.trials)
        return out

    settings = dataclasses.replace(config.engine, bettor="simulator", sim_trials=TRIALS, sim_min_trials=TRIALS,
                                   sim_time_ms=0.0)
    rng = np.random.default_rng(2026)
    players: list[Player] = [_Timed("poki", np.random.default_rng(7), settings, sink=times, cpu_sink=cpu)]
    players += [create_player("call", np.random.default_rng(100 + i), name=f"call-{i}") for i in range(9)]
    dealer = Dealer(dataclasses.replace(config.table, seats=10), source="bench")
    player_module.simulate_decision = timed
    try:
        for hand in range(hands):
            dealer.play_hand(players, Deal.draw(rng, 10), button=hand % 10, hand_id=f"simbench:{hand}")
    finally:
        player_module.simulate_decision = real
    arr = np.array(times) * 1e3
    done = float(np.sum(sim_trials))
    return {
        "hands": hands,
        "decisions": int(arr.size),
        "trials": TRIALS,
        "median_ms": float(np.median(arr)) if arr.size else float("nan"),
        "p99_ms": float(np.percentile(arr, 99)) if arr.size else float("nan"),
        # CPU time of the process: what one core would take on an idle machine.
        "cpu_median_ms": float(np.median(cpu) * 1e3) if cpu else float("nan"),
        "cpu_p99_ms": float(np.percentile(cpu, 99) * 1e3) if cpu else float("nan"),
        "trials_per_s": done / float(np.sum(sim_seconds)) if sim_seconds else float("nan"),
    }


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    from agent.config import load_config

    print(json.dumps(run_simulator_bench(load_config(), "--quick" in sys.argv), indent=2))
