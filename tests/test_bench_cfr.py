"""`poki bench --only cfr`: its parts give figures a row can print (the figures themselves
are measurements, not checked here)."""
from __future__ import annotations

import pytest

from agent.bench.cfr import _training, format_cfr_bench, time_acpc_decisions
from agent.config import Config, EngineConfig
from agent.engine.equilibrium import load_strategy


@pytest.mark.slow
def test_the_cfr_bench_measures_training_and_acpc_decisions(small_strategy):
    training = _training(load_strategy(small_strategy), 2)
    assert training["entries"] > 0 and training["best_response_s"] > 0
    for th in training["threads"]:
        assert training[f"threads_{th}"]["iterations_per_s"] > 0
    # The settings reach both the player here and the dealer's process (a config file).
    acpc = time_acpc_decisions(Config(engine=EngineConfig(heads_up_strategy=small_strategy)), 20)
    assert acpc["hands"] == 20 and acpc["decisions"] > 0
    assert 0 < acpc["median_ms"] <= acpc["p90_ms"] <= acpc["p99_ms"] <= acpc["max_ms"]
    assert acpc["seat_errors"] == 0
    rows = format_cfr_bench({"training": training, "acpc": acpc, "load_average": [1.0, 1.0, 1.0],
                             "target_decision_ms": 1.0})
    assert any("ACPC" in r[0] and r[1].endswith("ms median") for r in rows)
