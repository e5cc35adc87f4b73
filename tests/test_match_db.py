"""The database in play: a match with a SQLite file leaves the opponents' models in it,
and a second match with the same file starts from them (a real SQLite file, the real
dealer and tournament runner)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent.config import TableConfig
from agent.engine.player import PokiPlayer
from agent.play.offline.tournament import TournamentSetup, run_tournament
from db import Database

SPECS = ("poki(opponent_model=specific)", "call", "raise")


def _setup(path: Path, name: str, seed: int) -> TournamentSetup:
    return TournamentSetup.from_text(SPECS, TableConfig(seats=3), seed, chunk=2, name=name,
                                     db=str(path), half_life=500.0)


def test_match_leaves_models_and_the_next_match_starts_from_them(tmp_path, monkeypatch):
    path = tmp_path / "models.sqlite"
    first = run_tournament(_setup(path, "warm", 1), 4)
    names = first.names
    assert first.rejected_hands == 0 and first.to_json()["db"] == str(path)
    with Database(path) as db:
        assert db.hand_count() == 4 * 3  # every hand once, though a Poki seat also saw it
        after_first = {n: db.get(n, "local") for n in names}
    # Each seat played every hand; the counts are the database's own, from the hands.
    for name in names:
        assert after_first[name].hands == 12
    caller = next(n for n in names if n.startswith("call"))
    assert sum(sum(c) for c in after_first[caller].lifetime) > 0

    # The second match's Poki seats read the file: spy on what they read at their turns.
    seen: list[int] = []
    real = PokiPlayer._freq

    def spy(self, nick, *contexts):
        model = self.store.get(nick, self.network)
        seen.append(model.hands)
        return real(self, nick, *contexts)

    monkeypatch.setattr(PokiPlayer, "_freq", spy)
    second = run_tournament(_setup(path, "measured", 2), 2)
    assert seen and min(seen) >= 12  # never an empty model: it starts from the first match
    with Database(path) as db:
        assert db.hand_count() == 12 + 6
        assert db.get(caller, "local").hands == 18
    assert second.hands == 6


def test_without_db_nothing_is_shared(tmp_path, monkeypatch):
    # The same match without a file: each batch's Poki seat starts from empty models.
    seen: list[int] = []
    real = PokiPlayer._freq

    def spy(self, nick, *contexts):
        seen.append(self.store.get(nick, self.network).hands)
        return real(self, nick, *contexts)

    monkeypatch.setattr(PokiPlayer, "_freq", spy)
    setup = TournamentSetup.from_text(SPECS, TableConfig(seats=3), 1, chunk=2, name="m")
    run_tournament(setup, 4)
    assert seen and max(seen) < 12


def test_db_match_refuses_workers_and_bad_files(tmp_path):
    with pytest.raises(ValueError, match="one worker"):
        run_tournament(_setup(tmp_path / "x.sqlite", "m", 1), 4, workers=2)
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    proc = subprocess.run([sys.executable, "-m", "agent.cli", "match", "call", "raise", "--deals", "2",
                           "--db", str(bad), "--no-progress"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "not an SQLite database" in proc.stderr
    assert bad.read_bytes() == b"this is not a database" * 100  # nothing stored is lost


def test_cli_match_with_db(tmp_path):
    path = tmp_path / "cli.sqlite"
    for name in ("a", "b"):
        proc = subprocess.run([sys.executable, "-m", "agent.cli", "match", "call", "raise", "--deals", "3",
                               "--seed", "5", "--name", name, "--db", str(path), "--no-progress"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
    with Database(path) as db:
        assert db.hand_count() == 2 * 3 * 2
