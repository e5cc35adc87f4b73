"""`poki db ...` and the [model] / [database] settings."""
from __future__ import annotations

import json
import sqlite3

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.cli import main
from agent.config import ConfigError, DatabaseConfig, ModelConfig, load_config, parse_config
from db import Database


@pytest.fixture
def stocked(tmp_path, monkeypatch):
    """A working directory with no config.toml (so the defaults apply) and the default
    database file holding 300 hands."""
    monkeypatch.chdir(tmp_path)
    hands = list(synthetic_hands(300, seed=9))
    with Database(tmp_path / DatabaseConfig().path) as database:
        database.write_hands(hands, "irc")
    return tmp_path / DatabaseConfig().path, hands


def test_stats_and_player(stocked, capsys) -> None:
    path, hands = stocked
    assert main(["db", "stats"]) == 0
    out = capsys.readouterr().out
    assert "hands: 300" in out and "m001_initial" in out
    assert main(["db", "stats", "--json", "--db", str(path)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["counts"]["actions"] == sum(len(h.actions) for h in hands)
    nick = hands[0].seats[0].player
    assert main(["db", "player", nick]) == 0
    out = capsys.readouterr().out
    assert nick in out and "river, 2+ bets" in out and out.count("\n") >= 14
    assert main(["db", "player", nick, "--network", "irc", "--json"]) == 0
    model = json.loads(capsys.readouterr().out)
    assert len(model["contexts"]) == 12 and model["hands"] == sum(nick in {s.player for s in h.seats} for h in hands)
    assert main(["db", "player", "nobody"]) == 1
    assert "no player 'nobody'" in capsys.readouterr().err
    assert main(["db", "player", nick, "--network", "elsewhere"]) == 1


def test_check_finds_broken_invariants_and_recompute_repairs_models(stocked, capsys, tmp_path) -> None:
    path, _ = stocked
    assert main(["db", "check"]) == 0
    assert "ok" in capsys.readouterr().out
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE models SET call_count = call_count + 1 WHERE player = 1 AND context = 1")
    conn.close()
    assert main(["db", "check"]) == 1
    assert "lifetime" in capsys.readouterr().out
    config = tmp_path / "other.toml"
    config.write_text("[model]\nhalf_life_hands = 100\n")
    assert main(["--config", str(config), "db", "recompute"]) == 0
    assert "500 -> 100" in capsys.readouterr().out
    assert main(["db", "check"]) == 0
    with Database(path) as database:
        assert database.half_life == 100
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE models SET fold_decayed = fold_decayed + 1e-6 WHERE player = 2 AND context = 1")
    conn.close()
    assert main(["db", "check"]) == 1
    assert "decayed" in capsys.readouterr().out
    assert main(["--config", str(config), "db", "recompute"]) == 0
    assert main(["db", "check"]) == 0
    capsys.readouterr()
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM actions WHERE hand = 3 AND ord = (SELECT max(ord) FROM actions WHERE hand = 3)")
    conn.close()
    assert main(["db", "check", "--no-models"]) == 1
    assert "hand incomplete" in capsys.readouterr().out
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE results SET won = won + 5 WHERE hand = 7 AND won > 0")
    conn.close()
    assert main(["db", "check", "--no-models"]) == 1
    assert "chips do not balance" in capsys.readouterr().out


def test_missing_and_corrupt_files_get_clear_errors(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["db", "stats"]) == 1
    assert "no database at poki.sqlite" in capsys.readouterr().err
    (tmp_path / "junk.sqlite").write_bytes(b"this is not sqlite" * 300)
    assert main(["db", "check", "--db", "junk.sqlite"]) == 1
    assert "not an SQLite database" in capsys.readouterr().err
    assert not (tmp_path / "poki.sqlite").exists()  # nothing was created by looking


def test_model_and_database_settings(tmp_path) -> None:
    config = load_config(None)
    assert config.model == ModelConfig() and config.database == DatabaseConfig()
    parsed = parse_config({"model": {"half_life_hands": 250, "blend_observations": 10},
                           "database": {"path": "x.sqlite", "synchronous": "full", "batch_hands": 50}})
    assert parsed.model.half_life_hands == 250.0 and isinstance(parsed.model.half_life_hands, float)
    assert parsed.database.synchronous == "full"
    for bad in ({"model": {"half_life_hands": 0}}, {"model": {"half_life_hands": "long"}},
                {"database": {"synchronous": "off"}}, {"database": {"path": ""}},
                {"database": {"batch_hands": 0}}, {"model": {"decay": 3}}):
        with pytest.raises(ConfigError):
            parse_config(bad)


def test_check_reports_a_damaged_file(stocked, capsys) -> None:
    path, _ = stocked
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = path.stat().st_size
    with path.open("r+b") as f:
        f.seek(size // 2)
        f.write(bytes(range(256)) * 40)
    assert main(["db", "check"]) == 1
    captured = capsys.readouterr()
    assert "integrity_check" in captured.out or "malformed" in captured.err
