"""The report over a mixed database, as a user would build it: real 1995 IRC hands, an
ACPC match dealt by our dealer, and PokerStars hand histories (FPDB's files and the
written cases), all replayed into one file; the page renders in a real headless Chromium
with its new sections (won from / lost to us, statistics by position, steals, 4-bets,
check-raises and later continuation bets, sessions) and no browser errors."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.cli import main

from helpers.replay_logs import first_irc_hands, mini_month
from shared_data import DATA, FPDB_LHE

CASES = Path(__file__).resolve().parent / "room_cases"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    if DATA is None or FPDB_LHE is None:
        pytest.skip("the shared logs are not here")
    tmp = tmp_path_factory.mktemp("mixed")
    logs = tmp / "logs"
    mini_month(logs / "irc", first_irc_hands(400))
    acpc = logs / "acpc"
    acpc.mkdir()
    assert main(["acpc", "deal", "--players", "rr", "call", "--seat", "rr", "--seat", "call", "--hands", "60",
                 "--seed", "3", "--log", str(acpc / "match.log"), "--no-progress"]) == 0
    stars = logs / "stars"
    shutil.copytree(FPDB_LHE / "Stars", stars)
    shutil.copy(CASES / "stars.txt", stars / "cases.txt")
    db = tmp / "mixed.sqlite"
    assert main(["replay", str(logs / "irc"), str(acpc), str(stars), "--db", str(db), "--no-progress",
                 "--workers", "1"]) == 0
    out = tmp / "report"
    assert main(["report", "--db", str(db), "--out", str(out), "--charts", "6", "--no-progress"]) == 0
    return out


def test_the_mixed_report_names_every_network_and_us(mixed) -> None:
    data = json.loads((mixed / "report.json").read_text())
    assert set(data["hands_by_network"]) == {"irc1995", "acpc", "stars"}
    assert data["hands_by_network"]["stars"] == 7  # FPDB's 4 and the 3 written limit hands
    # We are the hero the PokerStars files name; the IRC and ACPC players are opponents.
    assert data["heroes_found"] == ["Hero"] and data["heroes_recorded"] == ["Hero"]
    by_name = {p["player"]: p for p in data["players"]}
    # The written hands, worked out pot by pot: the split pot (Alice's folded 50-cent
    # blind shared by its two winners, 25 to us; nothing between Bob and us), the side
    # pot (we lose our 300 of the main pot to Alice and win Bob's 100 of the side pot),
    # the time-out (Alice's 100 and Bob's 200 to us): Alice -175 for us, Bob +300.
    assert by_name["Alice"]["results_vs_us_chips"] == 25 - 300 + 100
    assert by_name["Bob"]["results_vs_us_chips"] == 0 + 100 + 200
    for p in data["players"]:
        for key in ("steal", "fold_steal", "four_bet", "check_raise_flop", "cbet_turn", "cbet_river",
                    "wtsd_flop_call"):
            assert p[key]["n"] >= p[key]["done"] >= 0
        assert set(p["by_position"]) == {"blinds", "early", "middle", "late"}
        assert sum(g["hands"] for g in p["by_position"].values()) == p["hands"]


def test_the_mixed_report_renders_its_new_sections_in_a_real_browser(mixed, browser) -> None:
    data = json.loads((mixed / "report.json").read_text())
    browser.open(mixed / "index.html")
    assert browser.js("document.querySelectorAll('#opponents tbody tr').length") == len(data["players"])
    heads = browser.js("Array.from(document.querySelectorAll('#opponents th')).map(t => t.textContent.trim())")
    assert {"Steal", "FSteal", "vs us"} <= set(heads)
    assert browser.js("document.getElementById('us').textContent").count("Hero") >= 1
    # Each opponent's section: the position table with its four groups and the won
    # from / lost to row; the charted ones a session table and four chart panels.
    assert browser.js("document.querySelectorAll('details.player table.positions').length") == len(data["players"])
    assert browser.js("Array.from(document.querySelectorAll('table.positions')[0].tBodies[0].rows)"
                      ".map(r => r.cells[0].textContent)") == ["blinds", "early", "middle", "late"]
    assert browser.js("document.querySelectorAll('tr.vs-us').length") == len(data["players"])
    assert browser.js("document.querySelectorAll('table.sessions').length") == 6
    panels = browser.js("Array.from(document.querySelectorAll('svg.chart')).map("
                        "s => s.querySelectorAll('g[id^=\"axes_\"]').length)")
    assert len(panels) == 6 and all(n == 4 for n in panels)
    labels = browser.js("document.body.textContent")
    for label in ("4-bet pre-flop", "Check-raise (river)", "Continuation bet (turn)",
                  "Went to showdown after calling a flop bet", "Fold to steal"):
        assert label in labels
    assert browser.errors == []
