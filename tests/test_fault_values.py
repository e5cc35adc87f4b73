"""Issue 39 item 5 and the lower findings: bad values are exit 2 naming the option or key,
checked where they are read, never a traceback later; and a property test that draws
option values (paths of every kind, the command's own files among them, numbers at and
past their limits) for a few sub-commands: never a traceback, never exit 0 with a file
changed that the command does not own."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.cli import main
from agent.config import ConfigError, load_config


@pytest.mark.parametrize("text, says", [
    ("[acpc]\ndecision_deadline = 1e308\n", "acpc.decision_deadline"),
    ("[acpc]\ndealer_timeout = 1e300\n", "acpc.dealer_timeout"),
    ("[irc]\nhand_pause_seconds = 1e300\n", "irc.hand_pause_seconds"),
    ('[database]\npath = "a\\u0000b"\n', "database.path"),
])
def test_item5_config_values_are_refused_where_read(tmp_path, text, says) -> None:
    path = tmp_path / "c.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=says.replace(".", r"\.")):
        load_config(path)


def test_item5_a_missing_heads_up_strategy_is_said_when_the_player_is_made(tmp_path, capsys) -> None:
    """It was found at the first heads-up decision (a traceback mid-match)."""
    config = tmp_path / "c.toml"
    config.write_text('[engine]\nheads_up_strategy = "no-such-strategy.npz"\n')
    code = main(["--config", str(config), "acpc", "play", "127.0.0.1", "1", "--no-db", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "heads_up_strategy" in err and "no-such-strategy.npz" in err and "Traceback" not in err


@pytest.mark.parametrize("since", ["9999-12-31T23:59:59-12:00", "0001-01-01T00:00:00+14:00"])
def test_item5_report_since_at_the_ends_of_the_calendar_is_exit_2(tmp_path, since, capsys) -> None:
    from db.database import Database

    Database(tmp_path / "e.sqlite").close()
    code = main(["report", "--db", str(tmp_path / "e.sqlite"), "--since", since, "--out", str(tmp_path / "r"),
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "--since" in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("args", [["replay", "x", "--cluster-timeout", "-1"], ["match", "a", "b", "--cluster-timeout", "-1"],
                                  ["replay", "x", "--cap", "1000"], ["replay", "x", "--blinds", "5/100000000000"],
                                  ["replay", "x", "--bets", "10/100000000000"]])
def test_item5_and_lower_numbers_past_their_limits_are_exit_2(args, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert args[-2] in err and "Traceback" not in err


# --- the property test --------------------------------------------------------------------------

PATH_KINDS = ["new", "new-in-missing-folder", "folder-of-the-users", "fifo", "the-database", "the-input",
              "the-config", "link-to-the-database", "dev-null"]
NUMBERS = ["-1", "0", "1", "2", "3", "1000001", "9223372036854775808", "1e20", "nan", "x"]


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("base")
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=raise",
                 "--hands", "3", "--seed", "9", "--log", str(folder / "match.log"), "--no-progress"]) == 0
    assert main(["replay", str(folder / "match.log"), "--db", str(folder / "poki.sqlite"), "--no-progress"]) == 0
    (folder / "config.toml").write_text("[random]\nseed = 11\n")
    return folder


def _path(kind: str, work: Path) -> str:
    if kind == "new":
        return str(work / "out.txt")
    if kind == "new-in-missing-folder":
        return str(work / "missing" / "out.txt")
    if kind == "folder-of-the-users":
        (work / "users").mkdir(exist_ok=True)
        (work / "users" / "keep.txt").write_text("the user's")
        return str(work / "users")
    if kind == "fifo":
        os.mkfifo(work / "pipe")
        return str(work / "pipe")
    if kind == "link-to-the-database":
        os.symlink(work / "poki.sqlite", work / "link")
        return str(work / "link")
    if kind == "dev-null":
        return os.devnull
    return str(work / {"the-database": "poki.sqlite", "the-input": "match.log", "the-config": "config.toml"}[kind])


def _state(work: Path) -> dict[str, str]:
    """Every regular file under ``work`` by its digest (FIFOs and links by their kind)."""
    seen = {}
    for root, _, files in os.walk(work):
        for name in files:
            path = Path(root, name)
            if path.is_symlink() or not path.is_file():
                seen[str(path)] = "link" if path.is_symlink() else "special"
            else:
                seen[str(path)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


COMMANDS = {
    "replay": lambda w, p, n: ["--config", str(w / "config.toml"), "replay", str(w / "match.log"), "--db",
                               str(w / "poki.sqlite"), "--skipped", p, "--chunk", n, "--no-progress", "--workers", "1"],
    "match": lambda w, p, n: ["--config", str(w / "config.toml"), "match", "call", "raise", "--deals", n,
                              "--db", str(w / "poki.sqlite"), "--csv", p, "--no-progress"],
    "acpc-deal": lambda w, p, n: ["--config", str(w / "config.toml"), "acpc", "deal", "--players", "a", "b",
                                  "--seat", "a=call", "--seat", "b=call", "--hands", n, "--log", p, "--no-progress"],
    "train-cfr": lambda w, p, n: ["--config", str(w / "config.toml"), "train-cfr", "--out", p, "--seed", n,
                                  "--flops", "1000000000", "--no-progress"],
}
# The path kinds that are what each command reads (its database, its inputs, its config).
READS = {"replay": {"the-database", "link-to-the-database", "the-input", "the-config"},
         "match": {"the-database", "link-to-the-database", "the-config"},
         "acpc-deal": {"the-config"}, "train-cfr": {"the-config"}}


@settings(max_examples=30, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(sorted(COMMANDS)), kind=st.sampled_from(PATH_KINDS),
       number=st.sampled_from(NUMBERS))
def test_property_drawn_options_never_traceback_nor_change_what_the_command_does_not_own(
        base, tmp_path_factory, command, kind, number) -> None:
    if command in ("match", "acpc-deal") and number not in ("-1", "0", "1", "2", "3", "x", "nan", "1e20"):
        number = "2"  # a match of a million deals would run for hours: its bound is checked elsewhere
    work = Path(tempfile.mkdtemp(dir=tmp_path_factory.getbasetemp()))
    for name in ("match.log", "poki.sqlite", "config.toml"):
        shutil.copy(base / name, work / name)
    path = _path(kind, work)
    before = _state(work)
    try:
        code = main(COMMANDS[command](work, path, number))
    except SystemExit as stop:  # argparse: a usage error
        code = stop.code
    assert code in (0, 1, 2)
    after = _state(work)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    reads = READS[command]
    if kind in reads:  # the command's own database, input or config: refused, nothing changed
        assert code == 2 and not changed, (command, kind, number, changed)
    # What a command may change: the file its output option names (a new one, or an
    # existing regular file it does not read, as the user asked), and the database it was
    # given (hands added by replay and match). No temporary file remains.
    allowed = {str(work / "poki.sqlite"), str(work / "poki.sqlite-wal"), str(work / "poki.sqlite-shm")} \
        if "the-database" in reads else set()
    if kind in ("new", "the-input", "the-config") and kind not in reads:
        allowed.add(str(Path(path)))
    assert changed <= allowed, (command, kind, number, code, changed)
    if "the-input" in reads:
        assert (work / "match.log").read_bytes() == (base / "match.log").read_bytes()
    assert not [p for p in after if p.endswith(".part")]
    if kind == "folder-of-the-users":
        assert (work / "users" / "keep.txt").read_text() == "the user's"
    shutil.rmtree(work)


def test_lower_a_match_name_its_log_header_cannot_hold_is_exit_2(tmp_path, capsys) -> None:
    """`acpc deal --match 'x y'` wrote a header its own replay read as match x of game y
    (0 of 2 hands stored); now the name is refused before anything is dealt."""
    log = tmp_path / "m.log"
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=call", "--hands", "2",
                 "--match", "x y", "--log", str(log), "--no-progress"]) == 2
    assert "--match" in capsys.readouterr().err and not log.exists()
    assert main(["match", "call", "raise", "--deals", "1", "--name", "x y", "--log-acpc", str(log),
                 "--no-progress"]) == 2
    assert "--name" in capsys.readouterr().err and not log.exists()
