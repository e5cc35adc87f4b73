"""The database benchmark runs and reports its figures (a measurement, not a speed test)."""
from __future__ import annotations

import pytest

from agent.bench.database import run_db_bench
from agent.config import Config


@pytest.mark.slow
def test_db_bench_quick() -> None:
    figures = run_db_bench(Config(), quick=True)
    assert figures["hands"] == 5_000 and len(figures["hands_per_s_runs"]) == figures["repeats"]
    assert 6 <= figures["players_per_hand"] <= 10 and figures["actions_per_hand"] > 10
