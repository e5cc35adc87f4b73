"""Won from / lost to (agent.report.flows): the chips that moved between each pair of
players, pot by pot, worked out by hand here; the same figures from a hand replayed
from a room's file into the database and reported; and on the demo's table, where
the four opponents share every hand with us, four different figures that add up to our
net."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from agent.cli import main
from agent.report.flows import hand_flows
from agent.report.stats import compute
from db.reads import open_readonly

CASES = Path(__file__).resolve().parent / "room_cases"


def test_a_three_way_hand_with_a_side_pot_pays_pot_by_pot() -> None:
    # A (all-in for 30) has the best hand, we (U) the second, B the worst. B and we put
    # in 40 each. Main pot 90 (30 from each of us three) to A; side pot 20 (10 from B,
    # 10 from us) to us.
    A, B, U = 1, 2, 3
    flows, rakes = hand_flows([A, B, U], {A: 30, B: 40, U: 40}, {A: 90, B: 0, U: 20}, folded=set())
    # By hand: in the main pot B and we each lose our 30 to A; in the side pot B loses
    # his 10 to us. So A won 30 from us and 30 from B; we won 10 from B.
    assert flows == {(A, B): 30.0, (A, U): 30.0, (U, B): 10.0}
    assert rakes == {}
    # Our net (20 - 40 = -20) is what we won from B less what we lost to A.
    assert flows[(U, B)] - flows[(A, U)] == 20 - 40


def test_a_split_pot_moves_nothing_between_its_winners_and_a_folder_pays_both() -> None:
    A, B, C = 1, 2, 3
    # C folds after putting in 10; A and B put in 50 each and split the 110.
    flows, _ = hand_flows([A, B, C], {A: 50, B: 50, C: 10}, {A: 55, B: 55, C: 0}, folded={C})
    assert flows == {(A, C): 5.0, (B, C): 5.0}


def test_the_rake_is_paid_by_the_pots_winners_beside_the_flows() -> None:
    A, B = 1, 2
    # A pot of 200 raked 6: A takes 194. B lost his 100 to A; A paid the rake.
    flows, rakes = hand_flows([A, B], {A: 100, B: 100}, {A: 194, B: 0}, folded=set())
    assert flows == {(A, B): 100.0} and rakes == {A: 6.0}


def test_the_side_pot_hand_of_a_room_file_reported_as_won_from_and_lost_to(tmp_path) -> None:
    """PokerStars hand 9000000002 (tests/room_cases/stars.txt): Alice, all-in for $3,
    takes the main pot of $9 less $0.40 rake; our kings take the $2 side pot from Bob.
    We lost our $3 of the main pot to Alice and won Bob's $1 of the side pot: -$3 and +$1,
    -3 and +1 small bets ($1), and our net of -$2 is their sum."""
    db = tmp_path / "case.sqlite"
    hand = (CASES / "stars.txt").read_text().split("\n\n\n\n")[1]
    (tmp_path / "case.txt").write_text(hand + "\n")
    assert main(["replay", str(tmp_path / "case.txt"), "--db", str(db), "--no-progress", "--workers", "1"]) == 0
    conn = open_readonly(str(db))
    try:
        data = compute(conn, str(db), hero="nobody")  # the hero the file names is us
    finally:
        conn.close()
    assert data.heroes == ["Hero"]
    vs = {p.name: (p.vs_us_chips, p.vs_us.value, p.vs_us.n) for p in data.players}
    assert vs == {"Alice": (-300.0, -3.0, 1), "Bob": (100.0, 1.0, 1)}
    assert data.us.net_chips == -200 and data.us.flows_chips == -200 and data.us.rake_chips == 0


def test_on_the_demos_table_four_opponents_four_figures_that_add_up_to_our_net(tmp_path) -> None:
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--hands", "60", "--seed", "5", "--no-progress"]) == 0
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["heroes_found"] == ["poki"]
    chips = {p["player"]: p["results_vs_us_chips"] for p in report["players"]}
    assert len(chips) == 4 and len(set(chips.values())) == 4
    # Over every hand each opponent sat in (all of them with us).
    assert all(p["results_vs_us_sb_per_hand"]["n"] == p["hands"] >= 50 for p in report["players"])
    with sqlite3.connect(out / "poki.sqlite") as conn:
        ours = conn.execute("SELECT sum(r.won - r.put_in) FROM results r JOIN players p ON p.id = r.player"
                            " WHERE p.name = 'poki'").fetchone()[0]
    # No rake on our table: what we won from each opponent adds up to our net.
    assert sum(chips.values()) == pytest.approx(ours, abs=0.02)
    assert report["us"]["net_chips"] == ours and report["us"]["rake_chips"] == 0
