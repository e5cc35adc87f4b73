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
