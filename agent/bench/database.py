"""How fast hands go into the database with their players' models updated: synthetic
6-10 player hands with realistic action counts, written in batches into a fresh file.
The replay of real logs must stay above 5,000 hands/s end to end, so this figure needs
to sit well above that."""
from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agent.bench.synthetic import synthetic_hands
from agent.config import Config
from agent.game.records import HandRecord
from db.database import Database


def _one_run(config: Config, records: list[HandRecord], path: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to write `records` into a new file, as ``config`` sets
    the file's writes and the models' half-life."""
    with Database(path, half_life=config.model.half_life_hands, synchronous=config.database.synchronous,
                  batch_hands=config.database.batch_hands) as db:
        wall, cpu = time.perf_counter(), time.process_time()
        report = db.write_hands(records, "bench")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if report.stored != len(records):
        raise RuntimeError(f"benchmark wrote {report}, expected {len(records)} hands")
    return wall, cpu


def run_db_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """Hands written per second (median over repeats, each into a new file, with the
    settings ``config``), by the clock and per second of this process's CPU time (steadier
    on a busy machine)."""
    hands = 5_000 if quick else 20_000
    repeats = 3 if quick else 5
    records = list(synthetic_hands(hands, seed=2026, min_players=6, max_players=10))
    with tempfile.TemporaryDirectory(prefix="poki-db-bench-") as tmp:
        runs = [_one_run(config, records, Path(tmp) / f"bench{i}.sqlite") for i in range(repeats)]
    return {
        "hands": hands,
        "repeats": repeats,
        "batch_hands": config.database.batch_hands,
        "players_per_hand": round(sum(len(r.seats) for r in records) / hands, 1),
        "actions_per_hand": round(sum(len(r.actions) for r in records) / hands, 1),
        "hands_per_s": round(hands / statistics.median(w for w, _ in runs)),
        "hands_per_cpu_s": round(hands / statistics.median(c for _, c in runs)),
        "hands_per_s_runs": [round(hands / w) for w, _ in runs],
    }


if __name__ == "__main__":
    import json
    import sys

    from agent.config import load_config

    print(json.dumps(run_db_bench(load_config(), quick="--quick" in sys.argv), indent=2))
