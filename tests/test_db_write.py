"""Writing hands: each once, whole or not at all, with the models kept equal to a
recomputation from the stored actions."""
from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections import defaultdict
from dataclasses import replace

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.game.records import ACTION_CLASS, BLIND_KINDS, ActionRecord, HandRecord, RecordError, ShownCards
from db import Database, DatabaseError

TABLES = ("players", "aliases", "hands", "seats", "actions", "showdowns", "results", "models")


def _counts(path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def _closed_form(stored: list[tuple[str, HandRecord]], half_life: float) -> dict:
    """Each player's model straight from the definition, from the records alone:
    decayed count = sum over observations of 0.5 ** (hands since / half_life)."""
    dealt: dict[tuple[str, str], int] = defaultdict(int)
    seen: dict[tuple[str, str], list] = defaultdict(list)
    for network, rec in stored:
        for s in rec.seats:
            dealt[(network, s.player)] += 1
        for a in rec.actions:
            if a.kind not in BLIND_KINDS:
                seen[(network, a.player)].append((dealt[(network, a.player)], a.context, ACTION_CLASS[a.kind]))
    models = {}
    for key, now in dealt.items():
        decayed = [[0.0, 0.0, 0.0] for _ in range(12)]
        lifetime = [[0, 0, 0] for _ in range(12)]
        for hand, ctx, cls in seen[key]:
            decayed[ctx][cls] += 0.5 ** ((now - hand) / half_life)
            lifetime[ctx][cls] += 1
        models[key] = (now, decayed, lifetime)
    return models


def _assert_models_match(database: Database, stored: list[tuple[str, HandRecord]]) -> None:
    expected = _closed_form(stored, database.half_life)
    for (network, nick), (hands, decayed, lifetime) in expected.items():
        model = database.get(nick, network)
        assert model.hands == hands
        for ctx in range(12):
            assert model.lifetime[ctx] == tuple(lifetime[ctx])
            for got, want in zip(model.decayed[ctx], decayed[ctx]):
                assert abs(got - want) <= 1e-9, (nick, ctx, model.decayed[ctx], decayed[ctx])


def test_a_hand_written_twice_is_stored_once(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    hands = list(synthetic_hands(40, seed=1))
    with Database(path) as database:
        assert database.write_hand(hands[0], "irc").stored == 1
        again = database.write_hand(hands[0], "irc")
        assert (again.stored, again.duplicates) == (0, 1)
        report = database.write_hands(hands + hands[:10] + [hands[3]], "irc", batch_hands=7)
        assert (report.stored, report.duplicates, report.rejected) == (39, 12, [])
        before = database.get(hands[0].seats[0].player, "irc")
        assert database.write_hands(hands, "irc").duplicates == 40
        assert database.get(hands[0].seats[0].player, "irc") == before
        assert database.hand_count() == 40
        assert database.check() == []
    assert _counts(path)["hands"] == 40


def _broken(h: HandRecord) -> dict[str, HandRecord]:
    """Ways a record can be inconsistent, each named for what is wrong."""
    first = h.actions[2]
    folder = next(a for a in h.actions if a.kind == "f")
    last_round = h.actions[-1].round
    return {
        "chips": replace(h, results=(replace(h.results[0], won=h.results[0].won + 1),) + h.results[1:]),
        "unseated": replace(h, actions=h.actions[:2] + (replace(first, player="ghost"),) + h.actions[3:]),
        "position": replace(h, actions=h.actions[:2] + (replace(first, position=first.position % len(h.seats) + 1),) + h.actions[3:]),
        "after fold": replace(h, actions=h.actions + (ActionRecord(last_round, folder.player, "k", 0, 0, 0, folder.position, 1),)),
        "missing result": replace(h, results=h.results[1:]),
        "not a card": replace(h, board=(1, 2, 52)),
        "card twice": replace(h, board=(1, 2, 3), shown=(ShownCards(h.seats[0].player, (3, 4)),)),
        "negative": replace(h, actions=h.actions[:2] + (replace(first, bets_to_call=-1),) + h.actions[3:]),
        "all_in not a bool": replace(h, actions=h.actions[:2] + (replace(first, all_in=1),) + h.actions[3:]),
        "blank id": replace(h, hand_id=" "),
        "float round": replace(h, actions=h.actions[:2] + (replace(first, round=0.0),) + h.actions[3:]),
        "text position": replace(h, seats=(replace(h.seats[0], position="1"),) + h.seats[1:]),
        "float chips": replace(h, results=(replace(h.results[0], won=float(h.results[0].won)),) + h.results[1:]),
        "no such kind": replace(h, actions=h.actions[:2] + (replace(first, kind="x"),) + h.actions[3:]),
        "seated twice": replace(h, seats=h.seats + (h.seats[0],)),
        "one player": replace(h, seats=h.seats[:1]),
        "rounds backwards": replace(h, actions=h.actions + (replace(h.actions[-1], round=0),)),
        "blind after betting": replace(h, actions=h.actions[:3] + (replace(h.actions[0], kind="bb"),) + h.actions[3:]),
        "fold puts in chips": replace(h, actions=h.actions[:2] + (replace(first, kind="f", amount=5),) + h.actions[3:]),
        "too many active": replace(h, actions=h.actions[:2] + (replace(first, players_active=len(h.seats) + 1),) + h.actions[3:]),
        "put in differs": replace(h, results=(replace(h.results[0], put_in=h.results[0].put_in + 1,
                                                      won=h.results[0].won + 1),) + h.results[1:]),
        "negative winnings": replace(h, results=(replace(h.results[0], won=-1),) + h.results[1:]),
        "board of two": replace(h, board=(1, 2)),
        "shows twice": replace(h, board=(), shown=(ShownCards(h.seats[0].player, (3, 4)),
                                                   ShownCards(h.seats[0].player, (5, 6)))),
        "not a time": replace(h, started_at=float("nan")),
        "zero big bet": replace(h, big_bet=0),
        "not a record": h.seats[0],
    }


def test_an_inconsistent_hand_is_rejected_whole(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    hands = [h for h in synthetic_hands(60, seed=2) if any(a.kind == "f" for a in h.actions)]
    good, victim = hands[:20], hands[20]
    with Database(path) as database:
        database.write_hands(good, "irc")
        counts = _counts(path)
        models = {s.player: database.get(s.player, "irc") for h in good for s in h.seats}
        for what, bad in _broken(victim).items():
            with pytest.raises(RecordError) as err:
                database.write_hand(bad, "irc")
            hand_id = getattr(bad, "hand_id", "")
            assert hand_id.strip() == "" or hand_id in str(err.value), what
            assert _counts(path) == counts, what
            assert not database.has_hand(victim.hand_id), what
        with pytest.raises(RecordError, match="network"):
            database.write_hand(victim, "")
        # In a batch the bad ones are listed with their reasons and the rest are stored.
        broken = list(_broken(victim).values())
        report = database.write_hands(broken[:5] + hands[21:25] + broken[5:], "irc", batch_hands=3)
        assert report.stored == 4 and report.duplicates == 0
        assert len(report.rejected) == len(broken)
        assert all(reason for _, reason in report.rejected)
        assert not database.has_hand(victim.hand_id)
        for nick, model in models.items():
            if not any(s.player == nick for h in hands[21:25] for s in h.seats):
                assert database.get(nick, "irc") == model
        assert database.check() == []


def test_a_failure_inside_the_transaction_leaves_nothing(tmp_path) -> None:
    """A real SQLite error after most rows of a group are in: the group rolls back whole,
    and the writer's in-memory models forget it too."""
    path = tmp_path / "d.sqlite"
    hands = list(synthetic_hands(120, seed=4))
    with Database(path, half_life=20) as database:
        database.write_hands(hands[:40], "irc", batch_hands=10)
        counts = _counts(path)
        with sqlite3.connect(path) as conn:
            # results are inserted after hands, seats, actions and showdowns
            conn.execute(
                "CREATE TRIGGER boom BEFORE INSERT ON results WHEN NEW.hand = "
                f"(SELECT seq FROM hands WHERE hand_id = '{hands[55].hand_id}') "
                "BEGIN SELECT RAISE(ABORT, 'boom'); END"
            )
        with pytest.raises(sqlite3.IntegrityError, match="boom"):
            database.write_hands(hands[40:], "irc", batch_hands=40)  # 40..79 is one group
        assert _counts(path) == counts
        with sqlite3.connect(path) as conn:
            conn.execute("DROP TRIGGER boom")
        database.write_hands(hands[40:], "irc", batch_hands=40)
        assert database.check() == []
        _assert_models_match(database, [("irc", h) for h in hands])


@pytest.mark.slow
def test_incremental_models_equal_recomputation_over_many_random_hands(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    a = list(synthetic_hands(1500, seed=21, min_players=2, max_players=10, pool=30))
    b = list(synthetic_hands(900, seed=22, min_players=6, max_players=10, pool=20))
    c = list(synthetic_hands(600, seed=21, min_players=2, max_players=4, pool=30, id_prefix="other-"))
    stored: list[tuple[str, HandRecord]] = []
    with Database(path, half_life=13.5) as database:
        plan = [
            ("irc", a[:700], 100), ("tcp", b[:300], 1), ("irc", a[650:1100], 33), ("tcp", c, 250),
            ("tcp", b[300:], 9999), ("irc", a[1000:], 2), ("irc", c[:100], 50),
        ]
        ids: set[tuple[str, str]] = set()
        for network, records, batch in plan:
            if batch == 1:
                for r in records:
                    database.write_hand(r, network)
            else:
                database.write_hands(records, network, batch_hands=batch)
            for r in records:
                # hand ids are unique per database, whatever the network
                if r.hand_id not in {i for _, i in ids}:
                    ids.add((network, r.hand_id))
                    stored.append((network, r))
        assert database.hand_count() == len(stored)
        assert database.compare_models(tolerance=1e-9) == []
        _assert_models_match(database, stored)
        # Rebuilding from the actions gives the same table.
        with sqlite3.connect(path) as conn:
            before = conn.execute("SELECT * FROM models ORDER BY player, context").fetchall()
        assert database.recompute() == len(before)
        with sqlite3.connect(path) as conn:
            after = conn.execute("SELECT * FROM models ORDER BY player, context").fetchall()
        assert len(before) == len(after)
        for x, y in zip(before, after):
            assert x[:2] == y[:2] and x[5:] == y[5:]
            assert all(abs(p - q) <= 1e-9 for p, q in zip(x[2:5], y[2:5]))
        _assert_models_match(database, stored)
        assert database.check() == []


def test_changing_the_half_life_needs_a_recompute(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    hands = list(synthetic_hands(300, seed=5))
    with Database(path, half_life=40) as database:
        database.write_hands(hands, "irc")
    with pytest.raises(DatabaseError, match="recompute"):
        Database(path, half_life=80)
    with Database(path) as database:  # None: the file's own half-life
        assert database.half_life == 40
        database.recompute(half_life=80)
    with Database(path, half_life=80) as database:
        assert database.check() == []
        _assert_models_match(database, [("irc", h) for h in hands])


def test_get_sees_writes_from_this_and_other_connections(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    hands = list(synthetic_hands(50, seed=6))
    nick = hands[0].seats[0].player
    with Database(path) as writer, Database(path) as reader:
        writer.write_hands(hands[:10], "irc")
        first = reader.get(nick, "irc")
        assert first is reader.get(nick, "irc")  # cached
        more = [h for h in hands[10:] if nick in {s.player for s in h.seats}]
        writer.write_hand(more[0], "irc")
        assert reader.get(nick, "irc").hands == first.hands + 1
        cached = writer.get(nick, "irc")
        writer.write_hand(more[1], "irc")
        assert writer.get(nick, "irc").hands == cached.hands + 1
        # Two writers taking turns keep one consistent history.
        reader.write_hands(hands[10:30], "irc", batch_hands=4)
        writer.write_hands(hands[20:], "irc", batch_hands=6)
        assert writer.check() == [] and reader.check() == []
        order = [r[0] for r in sqlite3.connect(path).execute("SELECT hand_id FROM hands ORDER BY seq")]
        by_id = {h.hand_id: h for h in hands}
        _assert_models_match(reader, [("irc", by_id[i]) for i in order])
        assert reader.get("nobody", "irc").hands == 0


def test_files_that_are_not_poki_databases_are_refused(tmp_path) -> None:
    with pytest.raises(DatabaseError, match="no database"):
        Database(tmp_path / "missing.sqlite", create=False)
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(os.urandom(4096))
    with pytest.raises(DatabaseError, match="not an SQLite database"):
        Database(garbage)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x)")
    with pytest.raises(DatabaseError, match="not a Poki database"):
        Database(other)
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(DatabaseError, match="not a Poki database"):
        Database(empty, create=False)


def test_schema_stats_and_plain_sqlite_access(tmp_path) -> None:
    path = tmp_path / "d.sqlite"
    hands = list(synthetic_hands(200, seed=8))
    with Database(path) as database:
        database.write_hands(hands, "irc")
        stats = database.stats()
        assert stats["migrations_applied"] == ["m001_initial", "m002_irc_bankrolls", "m003_fine_contexts", "m004_learned_predictors", "m005_off_model", "m007_rake_and_hero", "m008_ranges", "m009_tournaments"] and stats["migrations_pending"] == []
        assert stats["counts"]["hands"] == 200 and stats["journal_mode"] == "wal"
        assert stats["counts"]["actions"] == sum(len(h.actions) for h in hands)
    with Database(path, create=False) as database:  # reopening applies nothing twice
        assert database.migrations_applied() == ["m001_initial", "m002_irc_bankrolls", "m003_fine_contexts", "m004_learned_predictors", "m005_off_model", "m007_rake_and_hero", "m008_ranges", "m009_tournaments"]
    with sqlite3.connect(path) as conn:
        nick = hands[0].seats[0].player
        pid = conn.execute("SELECT player FROM aliases WHERE nick = ?", (nick,)).fetchone()[0]
        plan = " ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN SELECT * FROM models WHERE player = ?", (pid,)))
        assert "USING PRIMARY KEY" in plan
        plan = " ".join(r[-1] for r in conn.execute(
            "EXPLAIN QUERY PLAN SELECT count(*) FROM actions WHERE player = ? AND context < 3 AND kind = 'r'", (pid,)))
        assert "actions_by_player" in plan
        net = conn.execute("SELECT sum(net), count(*) FROM player_hands WHERE player = ?", (pid,)).fetchone()
        assert net[1] == sum(1 for h in hands if nick in {s.player for s in h.seats})
        assert conn.execute("SELECT board FROM hands WHERE seq = 1").fetchone()[0].count(" ") in (0, 2, 3, 4)
    if shutil.which("sqlite3"):
        out = subprocess.run(["sqlite3", str(path), "SELECT count(*) FROM hands;"], capture_output=True, text=True)
        assert out.returncode == 0 and out.stdout.strip() == "200"


def test_most_seen_players_per_network(tmp_path):
    from agent.bench.synthetic import synthetic_hands
    from db.database import Database

    database = Database(tmp_path / "seen.sqlite")
    records = list(synthetic_hands(120, seed=5))
    database.write_hands(records[:60], "net-a")
    database.write_hands(records[60:], "net-b")
    # Count each network's hands per nick independently of the database.
    expected = {}
    for network, part in (("net-a", records[:60]), ("net-b", records[60:])):
        counts = {}
        for r in part:
            for s in r.seats:
                counts[s.player] = counts.get(s.player, 0) + 1
        expected[network] = counts
    got = database.most_seen_players(2)
    assert [n for n, _ in got] == ["net-a", "net-a", "net-b", "net-b"]
    for network, nick in got:
        # Players are per (network, nick), so each pick is among the top counts of its network.
        top = sorted(expected[network].values(), reverse=True)[:2]
        assert expected[network][nick] >= top[-1]
    database.close()
