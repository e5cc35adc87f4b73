"""`poki demo`, the README's main job, runs from start to end: a match whose logs are
replayed into a fresh database that then holds every hand of the match."""
from __future__ import annotations

import json
import sqlite3

import pytest

from agent.cli import main


def test_demo_runs_the_whole_pipeline(tmp_path, capsys):
    out = tmp_path / "demo"
    status = main(["demo", "--out", str(out), "--deals", "4", "--seed", "7", "--offline", "--no-irc", "--no-progress",
                   "--players", "poki", "rr", "call"])
    assert status == 0
    printed = capsys.readouterr().out
    # 4 deals, each played once per rotation of 3 seats.
    assert "4 deals x 3 (duplicate) = 12 hands" in printed
    assert (out / "match.acpc.log").is_file() and any((out / "phh").iterdir())
    with sqlite3.connect(out / "poki.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM hands").fetchone()[0] == 12
        seated = {r[0] for r in conn.execute("SELECT nick FROM aliases")}
    assert seated == {"poki", "rr", "call"}
    assert "opponent model of" in printed
    # It ends with the opponent report, Poki being us: our results against rr and call.
    index = out / "report" / "index.html"
    assert printed.rstrip().splitlines()[-1] == f"opponent report: {index.resolve()}"
    report = json.loads((out / "report" / "report.json").read_text())
    assert report["heroes_found"] == ["poki"]
    vs = {p["player"]: p["results_vs_us_sb_per_hand"] for p in report["players"]}
    assert set(vs) == {"rr", "call"} and all(v["n"] == 12 for v in vs.values())
    with sqlite3.connect(out / "poki.sqlite") as conn:
        ours = conn.execute("SELECT sum((r.won - r.put_in) * 1.0 / h.small_bet) FROM results r"
                            " JOIN players p ON p.id = r.player JOIN hands h ON h.seq = r.hand"
                            " WHERE p.name = 'poki'").fetchone()[0]
    # What we won from rr and from call (pot by pot) adds up to our net.
    assert (vs["rr"]["value"] + vs["call"]["value"]) * 12 == pytest.approx(ours, abs=1e-2)


def test_demo_refuses_unknown_players(tmp_path, capsys):
    for mode in (["--offline", "--no-irc"], []):
        status = main(["demo", "--out", str(tmp_path / "d"), "--deals", "2", *mode, "--no-progress",
                       "--players", "nobody", "call"])
        assert status != 0
        assert "nobody" in capsys.readouterr().err
