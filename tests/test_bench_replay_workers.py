"""The per-worker CPU bench of a parallel replay (agent.bench.replay.run_workers_bench)
on the shared April 1995 IRC logs: every chunk the replay plans is read by one of the
workers, once, the replay stores what a replay of its own does, and the bench leaves the
process as it found it (collector running, nothing frozen, no month cached)."""
from __future__ import annotations

import gc

import pytest

from tests.shared_data import DATA

pytestmark = pytest.mark.skipif(DATA is None, reason="the shared IRC logs are not there")


@pytest.mark.slow
def test_workers_bench_reads_every_chunk_once_and_cleans_up(tmp_path) -> None:
    from agent.bench.replay import run_workers_bench
    from agent.play.offline.replay import ReplayOptions, replay
    from connectors.logs import sources
    from connectors.logs.sources import plan

    out = run_workers_bench(workers=2)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert not sources._cache

    chunks, _ = plan([DATA], chunk_hands=1000)
    assert out["chunks"] == len(chunks)
    per = out["per_worker"]
    assert 1 <= len(per) <= 2
    assert sum(w["chunks"] for w in per) == len(chunks)
    assert all(w["bytes"] > 0 and w["user_s"] + w["sys_s"] > 0 for w in per)
    assert all("before_first_chunk_cpu_s" in w for w in per)
    assert out["workers_lifetime_cpu_s"] > 0
    assert len(out["serial_reading"]) == 2

    # The measured replay met the hands a plain serial replay meets.
    summary = replay([DATA], ReplayOptions(db_path=tmp_path / "serial.sqlite", workers=1))
    assert out["hands"] == summary.hands
