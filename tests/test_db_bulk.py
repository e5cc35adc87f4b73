"""The bulk-writing paths: hands prepared as rows (possibly in another process) store the
same database as records written directly, and a bulk load that drops the by-player
indexes always gets them back, the same as the migration made them."""
from __future__ import annotations

import marshal
import sqlite3

import pytest

from db import Database
from db import schema
from db.rows import prepare_hand
from db.testing import synthetic_hands

TABLES = ("players", "aliases", "hands", "seats", "actions", "showdowns", "results", "models")


def _dump(path) -> dict[str, list]:
    with sqlite3.connect(path) as conn:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in TABLES}


def _index_sql(path) -> dict[str, str]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"))


def test_prepared_rows_store_what_records_store(tmp_path) -> None:
    hands = list(synthetic_hands(300, seed=41, min_players=2, max_players=10))
    with Database(tmp_path / "records.sqlite") as direct:
        direct.write_hands(hands[:200], "irc", batch_hands=37)
        direct.write_hands(hands[150:], "irc", batch_hands=64)  # 50 duplicates
    # As a worker process sends them: plain tuples through marshal.
    sent = marshal.loads(marshal.dumps([tuple(prepare_hand(h, "irc")) for h in hands]))
    with Database(tmp_path / "rows.sqlite") as bulk:
        first = bulk.write_prepared(sent[:200], "irc", batch_hands=37)
        second = bulk.write_prepared(sent[150:], "irc", batch_hands=64)
        assert (first.stored, second.stored, second.duplicates) == (200, 100, 50)
        assert bulk.check() == []
    assert _dump(tmp_path / "rows.sqlite") == _dump(tmp_path / "records.sqlite")


def test_prepared_rows_of_another_network_are_refused(tmp_path) -> None:
    hand = next(iter(synthetic_hands(1, seed=3)))
    with Database(tmp_path / "d.sqlite") as database:
        with pytest.raises(ValueError, match="network"):
            database.write_prepared([prepare_hand(hand, "irc")], "acpc")
        assert database.hand_count() == 0


def test_deferrable_indexes_are_the_migrations_own(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    Database(path).close()
    made = _index_sql(path)
    assert set(schema.DEFERRABLE_INDEXES) <= set(made)
    with Database(path) as database:
        with database.deferred_indexes():
            assert not set(schema.DEFERRABLE_INDEXES) & set(_index_sql(path))
            database.write_hands(list(synthetic_hands(50, seed=5)), "irc")
        assert database.check() == []
    assert _index_sql(path) == made


def test_indexes_come_back_when_a_bulk_load_fails(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    with Database(path) as database:
        made = _index_sql(path)
        with pytest.raises(RuntimeError):
            with database.deferred_indexes():
                database.write_hands(list(synthetic_hands(20, seed=6)), "irc")
                raise RuntimeError("stop")
        assert _index_sql(path) == made
        assert database.hand_count() == 20


def test_indexes_dropped_by_a_killed_load_are_reported_and_rebuilt_by_the_next_writer(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    with Database(path) as database:
        made = _index_sql(path)
        database.write_hands(list(synthetic_hands(20, seed=7)), "irc")
    # What a process killed inside deferred_indexes leaves: the indexes dropped, committed.
    with sqlite3.connect(path) as conn:
        for name in schema.DEFERRABLE_INDEXES:
            conn.execute(f"DROP INDEX {name}")
    with Database(path, create=False) as reader:
        problems = reader.check()
        assert len(problems) == len(schema.DEFERRABLE_INDEXES)
        assert all("index missing" in p for p in problems)
    assert _index_sql(path) != made  # a reader leaves the file alone
    with Database(path) as writer:
        assert writer.check() == []
    assert _index_sql(path) == made
