"""The replay's part-by-part CPU bench (agent.bench.replay.run_parts_bench) on the shared
April 1995 IRC logs: it reads, tracks and prepares the same hands a replay's workers do,
splits the writer's time into parts that add up, and leaves the writer's functions it
times as they were."""
from __future__ import annotations

import pytest

from tests.shared_data import DATA

pytestmark = pytest.mark.skipif(DATA is None, reason="the shared IRC logs are not there")


@pytest.mark.slow
def test_parts_bench_covers_the_replays_hands_and_restores_the_writer() -> None:
    import db.database as database_module
    from agent.bench.replay import run_parts_bench
    from agent.play.offline.replay import _PREPARED, PREPARED, _track
    from connectors.logs.sources import clear_cache, plan

    prepare_before, insert_before = database_module.Database._prepare, database_module._insert
    out = run_parts_bench(repeats=1)
    # The timing wrappers are gone: later writes run the writer's own functions.
    assert database_module.Database._prepare is prepare_before
    assert database_module._insert is insert_before

    # The same hands as the replay's own reading path (its entries tagged as prepared
    # rows), counted independently of the bench's loop.
    chunks, _ = plan([DATA], chunk_hands=1000)
    try:
        expected = sum(1 for c in chunks for e in _track(c, None, PREPARED) if e[0] == _PREPARED)
    finally:
        clear_cache()
    assert expected > 0
    assert out["hands"] == expected

    parts = ("write_number_and_learn_cpu_s", "write_insert_cpu_s", "write_indexes_and_close_cpu_s")
    for part in parts + ("read_cpu_s", "track_cpu_s", "prepare_rows_cpu_s", "marshal_cpu_s"):
        assert out[part] > 0, part
    assert out["write_other_cpu_s"] >= -0.01
    # Rounded to milliseconds each: the parts add up to the total within that rounding.
    total = sum(out[p] for p in parts) + out["write_other_cpu_s"]
    assert abs(total - out["write_total_cpu_s"]) < 0.01
