"""Inputs checked by type and range where they are read: options of the command line
(agent.cli.arguments) and the config file (agent.config, read through agent.toml_input).
Each bad value is a clear error naming the option or key (exit 2), never a run on
nonsense or a traceback later."""
from __future__ import annotations

import pytest
import tomllib

from agent.cli import main
from agent.config import ConfigError, load_config, parse_config


@pytest.mark.parametrize("option, value", [("--t-response", "-1"), ("--t-response", "nan"), ("--t-response", "inf"),
                                           ("--t-response", "0"), ("--t-per-hand", "-0.5"), ("--t-per-hand", "nan"),
                                           ("--port", "99999"), ("--port", "-3"), ("--hands", "-1"),
                                           ("--seed", "-1"), ("--seed", "1.5")])
def test_finding7_acpc_deal_options_are_checked_where_read(option, value, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=call", option, value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert option in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["127.0.0.1", "99999"], ["127.0.0.1", "0"], ["127.0.0.1", "port"],
                                  ["127.0.0.1", "1", "--dealer-timeout", "nan"],
                                  ["127.0.0.1", "1", "--seed", "-5"]])
def test_finding7_acpc_play_options_are_checked_where_read(args, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["acpc", "play", *args, "--no-db"])
    assert stop.value.code == 2
    assert "Traceback" not in capsys.readouterr().err


def _config_error(tmp_path, data: bytes) -> str:
    path = tmp_path / "c.toml"
    path.write_bytes(data)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    return str(err.value)


@pytest.mark.parametrize("text, says", [
    ("[random]\nseed = 1.5\n", "[random].seed: expected a whole number"),
    ("[random]\nseed = -1\n", "random.seed must be a whole number from 0"),
    ("[random]\nseed = 123456789012345678901234567\n", "random.seed must be a whole number from 0"),
    ("[table]\nsmall_bet = 10.5\n", "[table].small_bet: expected a whole number"),
    ("[table]\nseats = 9.5\n", "[table].seats: expected a whole number"),
    ("[table]\nsmall_blind = 100000000000000000000\n", "table.small_blind must be a whole number"),
    ("[acpc]\nresponse_timeout = nan\n", "[acpc].response_timeout: expected a finite number"),
    ("[acpc]\nresponse_timeout = -1.0\n", "acpc.response_timeout must be a positive number"),
    ("[acpc]\ngreet_timeout = inf\n", "expected a finite number"),
    ("[irc]\naction_seconds = true\n", "[irc].action_seconds: expected a whole number"),
    ("[engine]\nsim_trials = 1e12\n", "[engine].sim_trials: expected a whole number"),
    ("[engine]\nsim_trials = 1000000000000\n", "engine.sim_trials must be a whole number"),
    ("[database]\npath = 5\n", "[database].path: expected a string"),
    ("[report]\ncharts = 2.0\n", "[report].charts: expected a whole number"),
])
def test_finding7_config_values_are_checked_by_type_and_range(tmp_path, text, says) -> None:
    assert says in _config_error(tmp_path, text.encode())


def test_finding7_config_files_that_are_not_config_files(tmp_path) -> None:
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    with pytest.raises(ConfigError, match="a folder, not a config file"):
        load_config(folder)
    assert "not UTF-8" in _config_error(tmp_path, "[random]\nseed = 7 # caf\u00e9\n".encode("latin-1"))
    assert "nested more than" in _config_error(tmp_path, b"x = " + b"[" * 100_000)
    assert "not valid TOML" in _config_error(tmp_path, b"[random\nseed=")
    assert "more than" in _config_error(tmp_path, b"# " + b"x" * (2 << 20))


def test_a_utf8_byte_order_mark_is_accepted(tmp_path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes("\ufeff[random]\nseed = 7\n".encode("utf-8"))
    assert load_config(path).random.seed == 7


def test_bad_config_through_the_command_line_is_exit_2(tmp_path, capsys) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[table]\nseats = 9.5\n")
    assert main(["--config", str(path), "info"]) == 2
    err = capsys.readouterr().err
    assert "seats" in err and "Traceback" not in err


def test_good_values_still_pass() -> None:
    config = parse_config(tomllib.loads("[table]\nseats = 6\nsmall_bet = 20\nbig_bet = 40\n"
                                        "[random]\nseed = 9223372036854775807\n[acpc]\nresponse_timeout = 2\n"))
    assert config.table.seats == 6 and config.random.seed == 2**63 - 1
    assert config.acpc.response_timeout == 2.0 and isinstance(config.acpc.response_timeout, float)
