"""Decision speed of the Poki engine (DESIGN.md performance table; issue 5): time per
post-flop decision at a ten-seat table without simulation, everything the player does
at its turn included (catching up on the betting, re-weighting each live opponent's table
after each of its actions, EHS against every table, the triple and the draw).

Two tables: Poki against nine calling stations (every opponent stays to the river: nine
live weight tables, the worst case) and ten Poki players (a typical field). The board
strengths shared by the table are computed once per board per process; the first
decision on a new board pays for them and is counted like any other.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from agent.config import TableConfig
from agent.play.dealer import Deal, Dealer
from agent.engine.player import PokiPlayer
from agent.players import create_player


class _Timed(PokiPlayer):
    def __init__(self, *args: Any, sink: list[float], **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._sink = sink

    def act(self, ctx):  # type: ignore[no-untyped-def]
        if ctx.round == 0:
            return super().act(ctx)
        t0 = time.perf_counter()
        action = super().act(ctx)
        self._sink.append(time.perf_counter() - t0)
        return action


def _table(kind: str, hands: int, seed: int) -> list[float]:
    times: list[float] = []
    rng = np.random.default_rng(seed)
    if kind == "stations":
        players = [_Timed("poki", np.random.default_rng(seed + 1), sink=times)]
        players += [create_player("call", np.random.default_rng(seed + 2 + i), name=f"call-{i}")
                    for i in range(9)]
    else:
        players = [_Timed(f"poki-{i}", np.random.default_rng(seed + 1 + i), sink=times)
                   for i in range(10)]
    dealer = Dealer(TableConfig(seats=10), source="bench")
    for hand in range(hands):
        dealer.play_hand(players, Deal.draw(rng, 10), button=hand % 10, hand_id=f"bench:{hand}")
    return times


def run_engine_bench(quick: bool = False) -> dict[str, Any]:
    """Median (and 90th percentile) seconds per post-flop decision, per table."""
    hands = 60 if quick else 400
    out: dict[str, Any] = {"hands": hands}
    for kind in ("stations", "poki"):
        times = _table(kind, hands if kind == "poki" else hands * 2, seed=2024)
        arr = np.array(times)
        out[kind] = {
            "decisions": int(arr.size),
            "median_ms": float(np.median(arr) * 1e3) if arr.size else float("nan"),
            "p90_ms": float(np.percentile(arr, 90) * 1e3) if arr.size else float("nan"),
        }
    out["median_postflop_decision_ms"] = out["stations"]["median_ms"]
    return out


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    print(json.dumps(run_engine_bench("--quick" in sys.argv), indent=2))
