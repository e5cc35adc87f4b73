"""When a replay keeps the by-player indexes up to date as it writes and when it builds
them at the end (agent.play.offline.replay.LIVE_INDEX_HANDS): either way the file must hold the
same rows and the same indexes, and pass its own check. Real hands of the April 1995
logs, copied into a small month; parallel and serial replays."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import agent.play.offline.replay as replay_module
from agent.play.offline.replay import ReplayOptions, replay
from connectors.logs.irc_database import IrcHand
from db import schema
from db.database import Database

from helpers.replay_logs import first_irc_hands, mini_month
from shared_data import DATA

needs_data = pytest.mark.skipif(DATA is None, reason="the IRC hand logs are not there")


@pytest.fixture(scope="module")
def some_hands() -> list[IrcHand]:
    return first_irc_hands(40)


def _contents(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows, sorted (migration timestamps left out), and the indexes' SQL."""
    conn = sqlite3.connect(path)
    try:
        out: dict[str, list[tuple]] = {}
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info([{table}])") if r[1] != "applied_at"]
            out[table] = sorted(conn.execute(f"SELECT {', '.join(f'[{c}]' for c in columns)} FROM [{table}]"),
                                key=repr)
        out["<indexes>"] = sorted(conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index'"),
                                  key=repr)
        return out
    finally:
        conn.close()


def _replay_counting_deferrals(month: Path, path: Path, workers: int, monkeypatch) -> tuple[int, int]:
    """Replay ``month`` into ``path``: how many times the indexes were deferred, and the
    hands stored."""
    calls = []
    deferred = Database.deferred_indexes

    def counting(self: Database):  # type: ignore[no-untyped-def]  # a test double
        calls.append(1)
        return deferred(self)

    monkeypatch.setattr(Database, "deferred_indexes", counting)
    try:
        summary = replay([month], ReplayOptions(db_path=path, workers=workers, chunk_hands=10))
    finally:
        monkeypatch.setattr(Database, "deferred_indexes", deferred)
    return len(calls), summary.stored


@needs_data
@pytest.mark.parametrize("workers", [1, 2])
def test_live_and_deferred_indexes_store_the_same_file(tmp_path, some_hands, monkeypatch, workers) -> None:
    month = mini_month(tmp_path / "logs", some_hands)
    live, deferred = tmp_path / "live.sqlite", tmp_path / "deferred.sqlite"
    # A small file: the indexes are kept up to date as the hands are written.
    calls, stored = _replay_counting_deferrals(month, live, workers, monkeypatch)
    assert calls == 0 and stored > 30
    # The same logs with the limit at nothing: dropped, then built at the end.
    monkeypatch.setattr(replay_module, "LIVE_INDEX_HANDS", 0)
    assert _replay_counting_deferrals(month, deferred, workers, monkeypatch) == (1, stored)
    a, b = _contents(live), _contents(deferred)
    assert a == b
    assert len(a["hands"]) == stored and len(a["actions"]) > stored
    for path in (live, deferred):
        with Database(path, create=False) as database:
            assert database.check() == []
            assert schema.missing_indexes(database.db) == []
