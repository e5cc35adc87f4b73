"""The player registry is filled from above with the settings the program was given
(agent.play.kinds): agent.players imports no kind itself (no importlib below the command
line), no settings reach players through the environment, and a parsed spec carries every
setting of its player."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from agent.cli import main
from agent.config import Config, load_config
from agent.play.kinds import install_kinds
from agent.players import create_player, known_kinds, parse_spec

REPO = Path(__file__).resolve().parents[1]


def _python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), POKI_CONFIG=str(REPO / "no-such-file.toml"))
    return subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)


def test_the_registry_imports_no_kind_itself() -> None:
    done = _python("import sys, agent.players as p\n"
                   "print(sorted(p.known_kinds()), 'agent.engine.player' in sys.modules)\n"
                   "try:\n    p.parse_spec('poki')\nexcept p.SpecError as e:\n    print(e)\n")
    assert done.returncode == 0, done.stderr
    first, message = done.stdout.splitlines()[:2]
    assert first == "[] False"
    assert "install_kinds" in message
    source = (REPO / "agent" / "players" / "__init__.py").read_text()
    assert "importlib" not in source


def test_pokis_defaults_are_the_settings_given(tmp_path) -> None:
    other = tmp_path / "other.toml"
    other.write_text("[engine]\nbet_threshold = 0.61\n[model]\nhalf_life_hands = 50\n")
    try:
        install_kinds(load_config(other))
        spec = parse_spec("poki")
        assert spec.settings["bet_threshold"] == 0.61 and spec.settings["half_life"] == 50.0
        player = create_player(spec, np.random.default_rng(0))
        assert player.settings.bet_threshold == 0.61 and player.model_settings.half_life_hands == 50.0
    finally:
        install_kinds(Config())
    # The spec keeps its settings whatever is registered later (a worker elsewhere).
    again = create_player(spec, np.random.default_rng(0))
    assert again.settings.bet_threshold == 0.61 and again.store.predictor.decay.half_life == 50.0
    assert parse_spec("poki").settings["bet_threshold"] == Config().engine.bet_threshold


def test_the_command_line_registers_with_its_config(tmp_path, capsys) -> None:
    other = tmp_path / "other.toml"
    other.write_text("[engine]\nbet_threshold = 0.61\n")
    try:
        assert main(["--config", str(other), "match", "--list"]) == 0
        listing = capsys.readouterr().out
        assert "0.61" in listing
        assert "POKI_CONFIG" not in os.environ
    finally:
        install_kinds(Config())
    assert {"poki", "call", "rr", "tight-aggressive"} <= set(known_kinds())
