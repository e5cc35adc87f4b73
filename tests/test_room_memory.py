"""The memory of a whole `poki replay` of room files (issue 39, item 8): a valid iPoker
archive is replayed within 100 MB, every process of it (the writer and its reading
workers). Each iPoker game was parsed by an expat parser whose handlers and the parser
referred to each other, a cycle holding the game's whole element tree until the next
collection, which the replay pauses for a chunk: 1,000 ten-seat games took a worker to
110 MB. The writer's page cache grew with the file (up to 64 MiB); it is released
between chunks. docs/reliability.md has the figures for a 47 MB archive."""
from __future__ import annotations

import gc
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from room_files import ipoker_archive

from connectors.logs import ipoker

from shared_data import FPDB_LHE as FPDB

needs_fpdb = pytest.mark.skipif(FPDB is None, reason="../shared/data/fpdb-lhe is not here")
SESSION = "iPoker/LHE-10max-USD-0.10-0.20-201107.player.sitting.out.xml"
TIME = shutil.which("time", path="/usr/bin")


@needs_fpdb
def test_an_ipoker_game_read_leaves_no_cycle_behind() -> None:
    """Every game of the real session read and parsed with the collector paused: nothing
    is left for it to find (each game's elements go as soon as it is read)."""
    data = (FPDB / SESSION).read_bytes()
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        games = [ipoker.parse_hand(h.text, f"x:{h.line}") for h in ipoker.read_hands([data]) if h.text]
        found = gc.collect()
    finally:
        if enabled:
            gc.enable()
    assert len(games) == 30 and found == 0


@needs_fpdb
@pytest.mark.skipif(TIME is None, reason="no /usr/bin/time")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_replay_of_an_ipoker_archive_stays_within_100_mb(tmp_path, workers) -> None:
    """An 8 MB archive (2,820 ten-seat games, chunks of 1,000): the peak of the largest
    process, as /usr/bin/time -v gives it (the command and each worker it waited for)."""
    path = tmp_path / "archive.xml"
    games = ipoker_archive(FPDB / SESSION, path, 8 << 20)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONWARNINGS": "ignore"}
    assert TIME is not None
    proc = subprocess.run([TIME, "-v", sys.executable, "-m", "agent.cli", "replay", str(path), "--db",
                           str(tmp_path / "a.sqlite"), "--no-progress", "--workers", workers],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"stored: {games:,}" in proc.stdout
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) // 1000
    assert peak < 100, f"{peak} MB resident replaying an 8 MB archive ({games} games)"
