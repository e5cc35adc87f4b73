"""The bulk-writing paths: hands prepared as rows (possibly in another process) store the
same database as records written directly, and a bulk load that drops the by-player
indexes always gets them back, the same as the migration made them."""
from __future__ import annotations

import marshal
import sqlite3

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.game.prepared import prepare_hand
from db import Database, schema

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


def _faults(h):
    """Records each broken in one way, with the words the refusal must contain."""
    from dataclasses import replace

    from agent.game.records import ShownCards

    first = h.actions[2]
    blind = h.actions[0]
    folder = next(a for a in h.actions if a.kind == "f")
    folders = {a.player for a in h.actions if a.kind == "f"}
    stayer = next(a for a in reversed(h.actions) if a.player not in folders)
    return [
        (replace(h, seats=h.seats + (h.seats[0],)), "seated twice"),
        (replace(h, seats=h.seats[:1]), "1 players seated"),
        (replace(h, actions=h.actions + (replace(stayer, round=0, kind="k", amount=0),)), "out of order"),
        (replace(h, actions=h.actions[:3] + (replace(blind, kind="bb", amount=0),) + h.actions[3:]), "blind posted after"),
        (replace(h, actions=h.actions[:2] + (replace(first, kind="f", amount=first.amount or 5),) + h.actions[3:]), "puts in"),
        (replace(h, actions=h.actions[:2] + (replace(first, players_active=len(h.seats) + 1),) + h.actions[3:]), "players active"),
        (replace(h, actions=h.actions[:2] + (replace(first, position=first.position % len(h.seats) + 1),) + h.actions[3:]), "but seated at"),
        (replace(h, actions=h.actions + (replace(folder, kind="k", amount=0, round=h.actions[-1].round),)), "after folding"),
        (replace(h, actions=h.actions[:2] + (replace(first, raises=-1),) + h.actions[3:]), "negative"),
        (replace(h, actions=h.actions[:2] + (replace(first, all_in=0),) + h.actions[3:]), "wrong type"),
        (replace(h, actions=h.actions[:2] + (replace(first, player="ghost"),) + h.actions[3:]), "unseated"),
        (replace(h, actions=h.actions[:2] + (replace(first, kind="x"),) + h.actions[3:]), "unknown kind"),
        (replace(h, results=(replace(h.results[0], put_in=h.results[0].put_in + 1, won=h.results[0].won + 1),)
                 + h.results[1:]), "by the actions"),
        (replace(h, results=(replace(h.results[0], won=h.results[0].won + 1),) + h.results[1:]), "won"),
        (replace(h, results=(replace(h.results[0], won=float(h.results[0].won)),) + h.results[1:]), "not integers"),
        (replace(h, results=h.results[1:] + h.results[:1] * 1 + h.results[1:2]), "every seated player once"),
        (replace(h, board=(1, 2)), "board of 2"),
        (replace(h, board=(1, 2, 52)), "not a card"),
        (replace(h, board=(1, 2, 3), shown=(ShownCards(h.seats[0].player, (3, 4)),)), "appears twice"),
        (replace(h, board=(), shown=(ShownCards(h.seats[0].player, (3, 4)), ShownCards(h.seats[0].player, (5, 6)))),
         "shows cards twice"),
        (replace(h, shown=(ShownCards("ghost", (40, 41)),)), "bad shown cards"),
        (replace(h, started_at=float("nan")), "started_at"),
        (replace(h, big_bet=0), "big_bet"),
        (replace(h, source=7), "source"),
        (replace(h, seats=(replace(h.seats[0], position="1"),) + h.seats[1:]), "position"),
        (replace(h, seats=(replace(h.seats[0], player=" "),) + h.seats[1:]), "empty player name"),
        (replace(h, actions=h.actions[:2] + (replace(first, round=None),) + h.actions[3:]), "wrong type"),
        (replace(h, actions=None), "malformed record"),
    ]


def test_each_fault_is_refused_for_its_own_reason() -> None:
    from agent.game.records import RecordError

    hands = [h for h in synthetic_hands(80, seed=12, min_players=4)
             if any(a.kind == "f" for a in h.actions[3:]) and h.actions[-1].round > 0]
    for h in hands[:5]:
        prepare_hand(h, "irc")  # the unbroken hand passes
        for bad, words in _faults(h):
            with pytest.raises(RecordError, match=words):
                prepare_hand(bad, "irc")
    with pytest.raises(RecordError, match="network"):
        prepare_hand(hands[0], " ")
    with pytest.raises(RecordError, match="not a hand record"):
        prepare_hand(hands[0].seats[0], "irc")
