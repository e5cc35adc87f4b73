"""`poki demo`, the README's first command, is the IRC demo: a real IRC server on loopback,
the dealer bot, Poki and house bots as IRC clients; the hands are stored, the results
printed, and nothing is left running."""
from __future__ import annotations

import os
import re
import sqlite3
import subprocess

from agent.cli import main


def _children_running() -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    return [ln for ln in out.splitlines() if "miniircd" in ln and f" {os.getpid()} " in ln]


def test_demo_plays_on_irc_and_stops_everything(tmp_path, capsys) -> None:
    out = tmp_path / "demo"
    status = main(["demo", "--out", str(out), "--hands", "25", "--seed", "3", "--no-progress",
                   "--players", "poki", "rr", "tight-passive"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "miniircd on 127.0.0.1:" in printed
    with sqlite3.connect(out / "poki.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM hands").fetchone()[0] == 25
        assert {r[0] for r in conn.execute("SELECT nick FROM aliases")} == {"poki", "rr", "tightpassive"}
    with sqlite3.connect(out / "dealer.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM hands").fetchone()[0] == 25
        chips = conn.execute("SELECT (SELECT total(chips) FROM bankrolls) + (SELECT total(chips) FROM table_chips)"
                             ).fetchone()[0]
    assert chips == 3 * 10000
    m = re.search(r"chips in bankrolls and on the table: (\d+) = (\d+) granted", printed)
    assert m and m.group(1) == m.group(2) == "30000"
    assert (out / "logs" / "holdem.acpc.log").read_text().count("STATE:") == 25
    assert "what Poki learned of" in printed
    assert _children_running() == []
