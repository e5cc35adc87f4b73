"""A long-running IRC bot writes the opponent report on the [report] cron schedule while it
sits at a real IRC server (miniircd on loopback): `poki irc play` started as users start
it, with a schedule of every two seconds; the report covers the hands of its database, and
`kill` stops the bot and its job cleanly. `--no-report` starts no job."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from agent.bench.synthetic import synthetic_hands
from connectors.irc.server import LoopbackServer
from db.database import Database

ROOT = Path(__file__).resolve().parent.parent


def _start_bot(tmp_path: Path, server: LoopbackServer, *extra: str) -> subprocess.Popen:
    config = tmp_path / "poki.toml"
    config.write_text('[report]\ncron = "*/2 * * * * *"\ncharts = 2\nhero = "nobody"\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
    return subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "--config", str(config), "irc", "play", "--server", server.address,
         "--channel", "#reports", "--player", "call", "--nick", "watcher", "--db", str(tmp_path / "bot.sqlite"),
         *extra],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _stop(bot: subprocess.Popen) -> tuple[int, str, str]:
    if bot.poll() is None:
        bot.send_signal(signal.SIGTERM)
    try:
        out, err = bot.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        bot.kill()
        out, err = bot.communicate()
    return bot.returncode, out, err


def test_the_player_bot_writes_the_report_on_its_schedule(server, tmp_path) -> None:
    hands = list(synthetic_hands(300, seed=11, pool=12))
    with Database(tmp_path / "bot.sqlite") as db:
        db.write_hands(hands, "irc")
    seen = Counter(s.player for h in hands for s in h.seats)
    out = tmp_path / "nightly"
    bot = _start_bot(tmp_path, server, "--report-out", str(out))
    try:
        deadline = time.monotonic() + 180  # a hang, not a speed limit
        while not (out / "report.json").exists():
            assert bot.poll() is None, f"the bot ended: {bot.communicate()}"
            assert time.monotonic() < deadline, "no report written"
            time.sleep(0.2)
        report = json.loads((out / "report.json").read_text())
        # Wait for the next run's report too: by then the bot has counted the first run.
        while json.loads((out / "report.json").read_text())["generated_at"] == report["generated_at"]:
            assert bot.poll() is None, f"the bot ended: {bot.communicate()}"
            assert time.monotonic() < deadline, "no second report written"
            time.sleep(0.2)
    finally:
        code, stdout, stderr = _stop(bot)
    assert code == 0, stderr
    assert report["hands"] == len(hands)
    assert {p["player"]: p["hands"] for p in report["players"]} == dict(seen)
    assert (out / "index.html").read_text().count("<html") == 1
    # The bot's last words count the runs: at least the one read above, none failed.
    runs, failed = stdout.split("opponent report: ")[1].split(" run(s), ")
    assert int(runs) >= 1 and failed.startswith("0 failed")


def test_no_report_starts_no_job(server, tmp_path) -> None:
    bot = _start_bot(tmp_path, server, "--no-report")
    try:
        deadline = time.monotonic() + 60
        while bot.poll() is None and time.monotonic() < deadline:
            line = bot.stdout.readline()
            if line.startswith("playing"):
                break
        time.sleep(3)  # the job, had one started, would have announced itself and run
    finally:
        code, stdout, stderr = _stop(bot)
    assert code == 0, stderr
    assert "opponent report" not in stdout
    assert not (tmp_path / "report").exists()
