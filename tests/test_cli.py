"""The `poki` command: every sub-command builds its parser and prints its help, and bad
settings files fail with a message naming the file."""
from __future__ import annotations

import pytest

from agent.cli import COMMANDS, main


def test_top_level_help_lists_every_command(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_each_command_has_help(name, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([name, "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: poki")


def test_no_command_prints_help_and_fails(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_bad_config_file_is_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("[table]\nseats = 99\n")
    assert main(["--config", str(bad), "info"]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "seats" in err
    assert main(["--config", str(tmp_path / "missing.toml"), "info"]) == 2
    assert "not found" in capsys.readouterr().err


def test_unknown_config_key_is_refused(tmp_path, capsys):
    bad = tmp_path / "typo.toml"
    bad.write_text("[table]\nbig_blnd = 10\n")
    assert main(["--config", str(bad), "info"]) == 2
    assert "big_blnd" in capsys.readouterr().err


def spy_section(config, quick=False):
    """A `poki bench` section that reports the settings it was given (registered by the
    test below)."""
    return {"seats": config.table.seats, "dealer_nick": config.irc.dealer_nick, "quick": quick}


def test_a_bench_section_gets_the_settings_of_the_config_option(tmp_path, capsys, monkeypatch):
    """`poki --config FILE bench`: every section is given the settings the command loaded,
    not a config.toml it finds in the working directory."""
    import json

    from agent import bench

    settings = tmp_path / "settings.toml"
    settings.write_text('[table]\nseats = 6\n[irc]\ndealer_nick = "croupier"\n')
    (tmp_path / "config.toml").write_text("[table]\nseats = 4\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(bench.SECTIONS, "spy", (__name__, "spy_section"))
    assert main(["--config", str(settings), "bench", "--only", "spy", "--quick", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["spy"] == {"seats": 6, "dealer_nick": "croupier", "quick": True}
    assert main(["bench", "--only", "spy", "--json"]) == 0  # no option: the working directory's file
    assert json.loads(capsys.readouterr().out)["spy"] == {"seats": 4, "dealer_nick": "dealer", "quick": False}


def test_settings_written_for_a_child_process_read_back_equal(tmp_path):
    """config_toml (what a bench section gives a process it starts): load_config reads back
    the same settings, strings with quotes, backslashes, non-ASCII and DEL included."""
    import dataclasses

    from agent.config import Config, config_toml, load_config

    base = Config()
    config = dataclasses.replace(
        base,
        table=dataclasses.replace(base.table, seats=6, big_bet=40, small_bet=20),
        model=dataclasses.replace(base.model, half_life_hands=1e-5, predictor="learned"),
        engine=dataclasses.replace(base.engine, potential=False, bettor="triples", heads_up_strategy='a "b"\\c\x7fé'),
        irc=dataclasses.replace(base.irc, channels=("#poki", "#b"), min_bankroll={"#poki": 500, "#b": 0},
                                owners=("a!b@c",), dealer_nick="croupier"),
        acpc=dataclasses.replace(base.acpc, max_line_bytes=4096),
    )
    assert config != base
    path = tmp_path / "child.toml"
    path.write_text(config_toml(config), encoding="utf-8")
    assert load_config(path) == config
    path.write_text(config_toml(base), encoding="utf-8")
    assert path.read_text() == "" and load_config(path) == base
