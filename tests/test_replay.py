"""`poki replay` on the real April 1995 IRC logs: every hand read or skipped with its
reason, stored hands consistent with the log (chips, pots, legal actions), a second run
storing nothing, a parallel run and a killed-and-resumed run ending with the database a
serial run makes."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from agent.play.offline.replay import ReplayOptions, replay
from connectors.logs.irc_database import IrcHand, SkippedHand, read_irc_database
from connectors.logs.irc_events import irc_hand_events
from connectors.logs.sources import KnownHand, LogHand, LogProblem, plan, read_chunk
from db import Database

from helpers.tiers import full_tier

REPO = Path(__file__).resolve().parents[1]
DATASET = "irc-holdem-199504-dev"


from shared_data import DATA  # the shared 1995 logs (located in one place)

pytestmark = pytest.mark.skipif(DATA is None, reason=f"the IRC hand logs ({DATASET}) are not there: "
                                "set POKI_SHARED_DATA to the folder holding them")

HANDS_IN_LOGS = 20_078
READ = 20_031
SKIPPED = {"incomplete": 33, "illegal-action": 10, "put-in-mismatch": 4}
TABLES = ("meta", "players", "aliases", "hands", "seats", "actions", "showdowns", "results", "models")


def contents(path: Path) -> dict[str, list]:
    """Every row of the Poki tables (not the migrations log, which holds timestamps)."""
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM [{t}] ORDER BY 1, 2").fetchall() for t in TABLES}
    finally:
        conn.close()


def hand_count(path: Path) -> int:
    if not path.exists():
        return 0
    conn = sqlite3.connect(path, timeout=30)
    try:
        return conn.execute("SELECT count(*) FROM hands").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


@pytest.fixture(scope="module")
@full_tier
def serial(tmp_path_factory):
    """One serial replay of the whole month, with shadow scoring (which tracks every hand
    and leaves the database as a plain replay would)."""
    path = tmp_path_factory.mktemp("serial") / "irc.sqlite"
    summary = replay([DATA], ReplayOptions(db_path=path, workers=1, predict=True))
    return path, summary


@pytest.fixture(scope="module")
def irc_items():
    # The replay names files by their resolved paths (the shared data may sit behind a link).
    return list(read_irc_database(DATA.resolve()))


def test_every_hand_is_read_or_skipped_with_its_reason(serial) -> None:
    path, summary = serial
    assert summary.hands == HANDS_IN_LOGS
    assert summary.read == summary.stored == READ
    assert summary.duplicates == 0 and summary.stopped is None
    assert dict(summary.skipped_by_reason) == SKIPPED
    assert summary.skipped == sum(SKIPPED.values()) == HANDS_IN_LOGS - READ
    for p in summary.problems:
        # where: the hdb file and line; the reason starts with its category
        assert "/holdem/199504/hdb:" in p.where and p.reason.startswith(p.category + ":")
        assert p.where.rsplit(":", 1)[1].isdigit()
    assert summary.players == 518  # 520 in the roster, two only in skipped hands
    with Database(path, create=False) as database:
        stats = database.stats()["counts"]
        assert stats["hands"] == READ and stats["players"] == summary.players
        assert stats["actions"] == summary.actions
        # Whole hands, chips balancing (put in = won = pot), actions adding up to each
        # player's put-in, models equal to a recomputation from the stored actions.
        assert database.check() == []


def test_chunked_reading_equals_the_whole_month_reader(irc_items) -> None:
    """connectors.logs.sources builds any range of a month on its own; the hands and problems
    are exactly those of connectors.logs.irc_database.read_irc_database."""
    chunks, problems = plan([DATA], chunk_hands=777)
    assert problems == []
    items = [item for chunk in chunks for item in read_chunk(chunk)]
    hands = [h for h in irc_items if isinstance(h, IrcHand)]
    ours = [i for i in items if isinstance(i, LogHand)]
    assert [h.hand_id for h in ours] == [f"irc:{h.hand_id}" for h in hands]
    assert all(o.events == irc_hand_events(h) for o, h in zip(ours, hands))
    skipped = [s for s in irc_items if isinstance(s, SkippedHand)]
    assert sorted((p.where, p.reason) for p in items if isinstance(p, LogProblem)) == sorted(
        (s.source, s.reason) for s in skipped)
    # Every hand's id is known before it is built: a skip recognises them all.
    known = [i for chunk in chunks[:3] for i in read_chunk(chunk, skip=lambda hand_id: True)]
    assert {type(i) for i in known} <= {KnownHand, LogProblem}


def test_stored_pots_match_hdb_and_every_action_was_legal(serial, irc_items) -> None:
    path, _ = serial
    hands = {f"irc:{h.hand_id}": h for h in irc_items if isinstance(h, IrcHand)}
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT seq, hand_id, big_blind, small_bet, big_bet, max_bets, pot FROM hands").fetchall()
        seats = defaultdict(dict)
        for hand, player, stack in conn.execute("SELECT hand, player, stack FROM seats"):
            seats[hand][player] = stack
        actions = defaultdict(list)
        for row in conn.execute("SELECT hand, player, round, kind, amount, bets_to_call, raises, "
                                "players_active, all_in FROM actions ORDER BY hand, ord"):
            actions[row[0]].append(row[1:])
        results = {(h, p): (i, w) for h, p, i, w in conn.execute("SELECT hand, player, put_in, won FROM results")}
    finally:
        conn.close()
    assert {r[1] for r in rows} == set(hands)
    checked = Counter()
    for seq, hand_id, big_blind, small_bet, big_bet, max_bets, pot in rows:
        hand = hands[hand_id]
        # Chips: put in equals won, hand by hand and player by player as in the log.
        by_nick = {p.nick: p for p in hand.players}
        put = won = 0
        for pid in seats[seq]:
            put_in, w = results[(seq, pid)]
            put += put_in
            won += w
        assert put == won == pot == sum(p.put_in for p in hand.players) == sum(p.won for p in hand.players)
        # Pots: chips put in before each round (and in all, at the showdown) against hdb.
        acts = actions[seq]
        for r, (players, hdb_pot) in enumerate(hand.hdb_figures):
            if (players, hdb_pot) == (0, 0):
                continue
            stored = sum(a[3] for a in acts if a[1] <= r)
            assert stored == hdb_pot, (hand_id, r, stored, hdb_pot)
            checked["pots"] += 1
        assert len(by_nick) == len(seats[seq])
        checked["actions"] += _check_legal(hand_id, acts, seats[seq], big_blind, small_bet, big_bet, max_bets)
        checked["hands"] += 1
    assert checked["hands"] == READ
    assert checked["pots"] > 30_000 and checked["actions"] > 250_000


def _check_legal(hand_id: str, acts: list, stacks: dict, big_blind: int, small_bet: int, big_bet: int,
                 max_bets: int) -> int:
    """Every stored action of an IRC hand, checked independently of the tracker against
    the bets it faced: checks only with nothing to call, calls of exactly what was owed (or all the
    player had), bets only into no bet, raises of one bet over the bet (or all-in short),
    bets to call and raises as stored, no raise past the cap while three or more could
    still bet. Returns the number of decisions checked."""
    left = dict(stacks)
    folded: set = set()
    all_in: set = set()
    rnd = -1
    decisions = 0
    level = bets = 0
    mine: dict = {}
    for player, r, kind, amount, btc, raises, active, is_all_in in acts:
        bet = small_bet if r < 2 else big_bet
        if r != rnd:
            rnd = r
            if r > 0:
                level, bets, mine = 0, 0, {}
        owed = level - mine.get(player, 0)
        where = f"{hand_id} round {r}: {player} {kind} {amount}"
        assert player not in folded and player not in all_in, where
        assert amount <= left[player], where
        assert is_all_in == (amount > 0 and amount == left[player]), where
        if kind in ("sb", "bb"):
            assert r == 0 and amount > 0, where
            if kind == "bb":
                # The 1995 dealer: the nominal blind is the bet even when its poster is short.
                bets, level = 1, max(level, big_blind)
            level = max(level, amount)
        else:
            decisions += 1
            # Bets to call as the tracker counts them: of what the player could put in.
            assert btc == -(-min(max(owed, 0), left[player]) // bet), where
            assert raises == bets, where
            if kind == "k":
                assert owed <= 0 and amount == 0, where
            elif kind == "c":
                assert owed > 0 and amount == min(owed, left[player]), where
            elif kind == "f":
                assert amount == 0, where
                folded.add(player)
            elif kind == "b":
                assert level == 0 and (amount == bet or is_all_in and amount < bet), where
            elif kind == "r":
                assert level > 0, where
                full = level + bet - mine.get(player, 0)
                assert amount == full or (is_all_in and owed < amount < full), where
                able = active - len(all_in)
                assert bets < max_bets or able <= 2, where
            else:
                raise AssertionError(where)
            # The opening bet counts even when short; a raise only when a full bet over.
            if kind == "b" or (kind == "r" and amount - owed >= bet):
                bets += 1
        left[player] -= amount
        mine[player] = mine.get(player, 0) + amount
        level = max(level, mine[player])
        if is_all_in:
            all_in.add(player)
    return decisions


def test_a_second_replay_stores_nothing(serial, tmp_path) -> None:
    path, _ = serial
    before = contents(path)
    summary = replay([DATA], ReplayOptions(db_path=path, workers=1))
    assert summary.stored == 0 and summary.known == READ and summary.duplicates == READ
    assert summary.read == READ and dict(summary.skipped_by_reason) == SKIPPED
    assert contents(path) == before


def test_a_parallel_replay_makes_the_serial_database(serial, tmp_path) -> None:
    path, _ = serial
    parallel = tmp_path / "parallel.sqlite"
    summary = replay([DATA], ReplayOptions(db_path=parallel, workers=2, chunk_hands=600))
    assert summary.stored == READ and dict(summary.skipped_by_reason) == SKIPPED
    assert contents(parallel) == contents(path)


def test_a_killed_replay_resumes_to_the_same_database(serial, tmp_path) -> None:
    path, _ = serial
    killed = tmp_path / "killed.sqlite"
    # Small transactions, so the kill finds some committed and more to come.
    (tmp_path / "config.toml").write_text("[database]\nbatch_hands = 100\n")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "replay", str(DATA), "--db", str(killed), "--workers", "1",
         "--chunk", "200", "--no-progress"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(6000):  # a bounded wait for some hands to be committed
            if hand_count(killed) >= 500 or proc.poll() is not None:
                break
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL, "the replay finished before it could be killed"
    done = hand_count(killed)
    assert 0 < done < READ and done % 100 == 0  # whole transactions only

    summary = replay([DATA], ReplayOptions(db_path=killed, workers=1))
    assert summary.known == done and summary.stored == READ - done
    assert contents(killed) == contents(path)


def test_shadow_scoring_on_the_real_logs(serial) -> None:
    path, summary = serial
    report = summary.prediction
    assert report is not None and report["hands"] == READ
    conn = sqlite3.connect(path)
    try:
        decisions = conn.execute("SELECT count(*) FROM actions WHERE kind IN ('f','k','c','b','r')").fetchone()[0]
        by_round = dict(conn.execute("SELECT round, count(*) FROM actions WHERE kind IN ('f','k','c','b','r') "
                                     "GROUP BY round").fetchall())
        regulars = conn.execute("SELECT count(*) FROM players WHERE hands >= 500").fetchone()[0]
    finally:
        conn.close()
    overall = report["overall"]
    assert overall["decisions"] == decisions
    assert [t["decisions"] for t in report["by_round"].values()] == [by_round[r] for r in range(4)]
    assert report["regulars"]["players"] == regulars > 0
    for t in [overall, *report["by_round"].values(), report["regulars"]]:
        for name in ("meta", "backoff", "twelve", "baseline", "defaults"):
            assert 0.0 <= t[name]["accuracy"] <= 1.0
            assert -6.91 < t[name]["log_likelihood"] < 0.0
    # The specific model beats what it knows of a stranger, and the pooled baseline.
    assert overall["twelve"]["log_likelihood"] > overall["defaults"]["log_likelihood"]
    assert overall["twelve"]["log_likelihood"] > overall["baseline"]["log_likelihood"]
    assert overall["twelve"]["accuracy"] > overall["baseline"]["accuracy"]
    # The fine contexts backed off to the twelve and to the population beat the twelve.
    assert overall["backoff"]["log_likelihood"] > overall["twelve"]["log_likelihood"]
    assert overall["backoff"]["accuracy"] > overall["twelve"]["accuracy"]
    assert overall["meta"]["log_likelihood"] > overall["twelve"]["log_likelihood"]
