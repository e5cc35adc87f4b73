"""Room amounts past what the database can hold (issue 39): a real PokerStars hand whose
stack is above 2^63 cents crashed the writer (SQLite's 64-bit integers) and aborted the
replay of every file after it; it is a problem of that hand (rooms.MAX_CHIPS), and the
other hands are stored."""
from __future__ import annotations

import pytest

from agent.cli import main
from agent.play.offline.replay import ReplayOptions, replay

from shared_data import FPDB_LHE as FPDB

needs_fpdb = pytest.mark.skipif(FPDB is None, reason="../shared/data/fpdb-lhe is not here")


@needs_fpdb
@pytest.mark.parametrize("amount", [b"$92233720368547758.08", b"$99999999999999999999", b"$10,000,000,000,000.01"])
def test_a_room_amount_too_large_to_store_is_a_problem_of_its_hand(tmp_path, amount, capsys) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    hand = (FPDB / "Stars" / "LHE-USD-1.00-200508.BB.and.Button.same.player.txt").read_bytes()
    assert b"($40 in chips)" in hand
    (logs / "a.txt").write_bytes(hand.replace(b"($40 in chips)", b"(" + amount + b" in chips)"))
    (logs / "b.txt").write_bytes((FPDB / "Stars" / "LHE-10max-USD-1.00-2.00-No_max_seats.txt").read_bytes())
    summary = replay([logs], ReplayOptions(db_path=tmp_path / "a.sqlite", workers=1))
    assert (summary.stored, summary.skipped_by_reason) == (1, {"malformed": 1})
    assert "a.txt" in summary.problems[0].where and "chips" in summary.problems[0].reason
    # The command: the same, no traceback.
    assert main(["replay", str(logs), "--db", str(tmp_path / "b.sqlite"), "--no-progress", "--workers", "1"]) == 0
    assert "stored: 1" in capsys.readouterr().out


@needs_fpdb
def test_an_ipoker_amount_too_large_to_store_is_a_problem_of_its_game(tmp_path) -> None:
    source = (FPDB / "iPoker" / "LHE-10max-USD-0.10-0.20-201107.player.sitting.out.xml").read_bytes()
    first = source.index(b'chips="')
    end = source.index(b'"', first + len(b'chips="'))
    big = source[:first] + b'chips="99999999999999999999"' + source[end + 1:]
    path = tmp_path / "session.xml"
    path.write_bytes(big)
    whole = replay([FPDB / "iPoker" / "LHE-10max-USD-0.10-0.20-201107.player.sitting.out.xml"],
                   ReplayOptions(db_path=tmp_path / "whole.sqlite", workers=1))
    summary = replay([path], ReplayOptions(db_path=tmp_path / "a.sqlite", workers=1))
    assert summary.skipped_by_reason.get("malformed", 0) >= 1
    assert summary.stored >= whole.stored - summary.skipped_by_reason["malformed"] > 0
