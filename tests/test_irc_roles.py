"""Each IRC role its own files: `poki irc deal` and `poki irc play` started side by side in
one folder with their defaults (no --db, no --report-out) share no file, over a real IRC
server (miniircd on loopback)."""
from __future__ import annotations

import dataclasses
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from agent.config import Config
from agent.play.irc.player import PlayerBot
from connectors.irc.server import LoopbackServer

from irc_live import HANG, running, stored_hands, wait_for  # noqa: F401 - fixture

ROOT = Path(__file__).resolve().parent.parent


def hands_in(path: Path) -> int:
    """Hands in a bot's database so far (0 before its writer made the schema)."""
    try:
        return len(stored_hands(path)) if path.exists() else 0
    except sqlite3.Error:
        return 0


def test_a_dealer_and_a_player_in_one_folder_share_no_file(running, tmp_path) -> None:
    hands = 3
    # A schedule that does not come during the test: the report jobs start, say where
    # they will write, and write nothing.
    (tmp_path / "config.toml").write_text(
        "[irc]\nhand_pause_seconds = 0\naction_seconds = 20\ndecision_margin_seconds = 1\n"
        "reconnect_min_seconds = 0.2\nreconnect_max_seconds = 2\n"
        "[report]\ncron = \"0 0 1 1 *\"\n")
    server = LoopbackServer().start()
    running(server)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "agent.cli", "irc"]
    dealer = subprocess.Popen([*command, "deal", "--server", server.address, "--hands", str(hands),
                               "--no-progress", "--no-flood-limit"],
                              cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    player = subprocess.Popen([*command, "play", "--server", server.address, "--no-flood-limit"],
                              cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        cfg = Config()
        cfg = dataclasses.replace(cfg, irc=dataclasses.replace(cfg.irc, flood_lines_per_second=0,
                                                               decision_margin_seconds=1.0))
        running(PlayerBot(cfg, server=server.address, channels=["#holdem"], dealer="dealer", spec="call",
                          nick="caller", seed=3).start())
        dealer_out, _ = dealer.communicate(timeout=HANG * 3)
        assert dealer.returncode == 0, dealer_out
        wait_for(lambda: hands_in(tmp_path / "poki.sqlite") == hands, what="the player bot to store the hands")
        player.send_signal(signal.SIGTERM)
        player_out, _ = player.communicate(timeout=HANG)
        assert player.returncode == 0, player_out
    finally:
        for proc in (dealer, player):
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    # The dealer's database, journal, logs and report folder; the player's database and
    # report folder: no name in common.
    # Owners are told absolute paths (the bot's folder is not theirs).
    here = tmp_path.resolve()
    assert f"database {here / 'dealer.sqlite'}," in dealer_out and f"into {here / 'report-dealer'} " in dealer_out
    assert f"database {here / 'poki.sqlite'}." in player_out and f"into {here / 'report'} " in player_out
    names = {p.name for p in tmp_path.iterdir()} - {"config.toml"}
    dealer_files = {n for n in names if n.startswith("dealer.sqlite")} | {"irc-logs"}
    player_files = {n for n in names if n.startswith("poki.sqlite")}
    assert names == dealer_files | player_files, names
    assert "dealer.sqlite" in dealer_files and "poki.sqlite" in player_files
    dealt = stored_hands(tmp_path / "dealer.sqlite")
    assert len(dealt) == hands
    assert stored_hands(tmp_path / "poki.sqlite") == dealt
