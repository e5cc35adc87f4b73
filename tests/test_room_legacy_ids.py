"""Databases made before room hands were keyed by content (issue 39, item 8): an older Poki
stored a room's hand under ``<room>:<number>``, now ``<room>:<number>:<digest>``. The
real files of ../shared/data/fpdb-lhe replayed into such a file store nothing twice, a
hand under a reused number with other cards is still stored, and the stored hands
recognised are re-keyed, so the next replay knows them by id before reading them (db.legacy).

The old file is made as the old code made it: the same readers wrote the same rows, under
the id without its digest (connectors.logs.sources.legacy_hand_id), which is what the
test rewrites the ids to.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent.play.offline.replay import ReplayOptions, replay
from connectors.logs.sources import legacy_hand_id

from shared_data import FPDB_LHE as FPDB

needs_fpdb = pytest.mark.skipif(FPDB is None, reason="../shared/data/fpdb-lhe is not here")
ONGAME = "OnGame/LHE-9max-USD-0.50-1.00-201008.All-in.with.showdown.txt"


def _ids(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return sorted(r[0] for r in conn.execute("SELECT hand_id FROM hands"))


def _old_database(logs: Path, db: Path) -> int:
    """A database of ``logs`` as an older Poki left it: every room hand under its old id."""
    first = replay([logs], ReplayOptions(db_path=db, workers=1, strict=True))
    assert first.stored > 0 and first.skipped == 0
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT seq, hand_id FROM hands").fetchall()
        old = {seq: legacy_hand_id(hand_id) for seq, hand_id in rows}
        assert None not in old.values() and len(set(old.values())) == len(rows)
        conn.executemany("UPDATE hands SET hand_id = ? WHERE seq = ?", [(o, s) for s, o in old.items()])
    assert all(legacy_hand_id(i) is None for i in _ids(db))
    return first.stored


@needs_fpdb
def test_the_same_files_into_a_database_of_old_room_ids_store_nothing_twice(tmp_path) -> None:
    db = tmp_path / "old.sqlite"
    hands = _old_database(FPDB, db)
    old = _ids(db)

    again = replay([FPDB], ReplayOptions(db_path=db, workers=1))
    assert (again.stored, again.skipped, again.duplicates) == (0, 0, hands)
    new = _ids(db)
    assert len(new) == hands
    # Each stored hand now has the id the readers give: the old id and the digest.
    assert sorted(legacy_hand_id(i) or "" for i in new) == old

    # Known by id now, before they are read.
    third = replay([FPDB], ReplayOptions(db_path=db, workers=2))
    assert (third.stored, third.known) == (0, hands)


@needs_fpdb
def test_a_reused_number_with_other_cards_is_stored_beside_the_old_id(tmp_path) -> None:
    """The same hand number, players and play, other shown cards: another hand (main and
    the old code dropped it as "already in the database")."""
    original = (FPDB / ONGAME).read_bytes()
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "hand.txt").write_bytes(original)
    db = tmp_path / "old.sqlite"
    assert _old_database(logs, db) == 1
    assert _ids(db) == ["ongame:R5-75443872-61"]

    other = original.replace(b"[Qd, Qh]", b"[Qc, Qs]")
    assert other != original
    reused = tmp_path / "reused"
    reused.mkdir()
    (reused / "hand.txt").write_bytes(other)
    summary = replay([reused], ReplayOptions(db_path=db, workers=1, strict=True))
    assert (summary.stored, summary.duplicates) == (1, 0)
    ids = _ids(db)
    assert ids[0] == "ongame:R5-75443872-61" and legacy_hand_id(ids[1]) == "ongame:R5-75443872-61"
    with sqlite3.connect(db) as conn:
        shown = sorted(r[0] for r in conn.execute("SELECT cards FROM showdowns WHERE cards LIKE 'Q%'"))
    assert shown == ["Qc Qs", "Qd Qh"]

    # The original once more: the stored hand, re-keyed; nothing added.
    same = replay([logs], ReplayOptions(db_path=db, workers=1))
    assert (same.stored, same.duplicates) == (0, 1)
    assert len(_ids(db)) == 2 and "ongame:R5-75443872-61" not in _ids(db)
