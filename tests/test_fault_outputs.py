"""Issue 39: one way to write an output file (agent.outputs). An output that is the
command's own database or one of its inputs is refused before anything runs (exit 2,
naming it), every file as it was; an output that cannot be written is said before the
work; files are written aside and renamed into place, never replacing a folder."""
from __future__ import annotations

import hashlib
import os
import shutil
import time
from pathlib import Path

import pytest
from faults import stored_hands as _stored

from agent.cli import main
from agent.outputs import OutputError, check_outputs, write_output

HANDS = 6


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, Path]:
    """An ACPC log of HANDS hands and a database holding them."""
    folder = tmp_path_factory.mktemp("out")
    log = folder / "match.log"
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=raise",
                 "--hands", str(HANDS), "--seed", "7", "--log", str(log), "--no-progress"]) == 0
    db = folder / "r.sqlite"
    assert main(["replay", str(log), "--db", str(db), "--no-progress"]) == 0
    return log, db


@pytest.fixture
def copies(stored, tmp_path) -> tuple[Path, Path]:
    log, db = stored
    shutil.copy(log, tmp_path / "match.log")
    shutil.copy(db, tmp_path / "r.sqlite")
    return tmp_path / "match.log", tmp_path / "r.sqlite"


@pytest.mark.parametrize("target", ["db", "db-link", "input"])
def test_finding3_replay_skipped_naming_the_database_or_an_input_is_refused(copies, tmp_path, target, capsys) -> None:
    log, db = copies
    other = tmp_path / "other.log"
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=call",
                 "--hands", "3", "--seed", "8", "--log", str(other), "--no-progress"]) == 0
    capsys.readouterr()
    if target == "db-link":
        os.symlink(db, tmp_path / "link")
    named = {"db": db, "db-link": tmp_path / "link", "input": log}[target]
    before = {p: _digest(p) for p in (log, db, other)}
    code = main(["replay", str(other), str(log), "--db", str(db), "--skipped", str(named), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "--skipped" in err and "which this command reads" in err
    assert {p: _digest(p) for p in (log, db, other)} == before
    assert _stored(db) == HANDS


def test_finding3_match_csv_naming_its_database_is_refused(copies, capsys) -> None:
    _, db = copies
    before = _digest(db)
    code = main(["match", "call", "raise", "--deals", "2", "--db", str(db), "--csv", str(db), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "--csv" in err and str(db) in err
    assert _digest(db) == before


def test_two_outputs_on_one_file_are_refused(tmp_path, capsys) -> None:
    out = tmp_path / "x.txt"
    code = main(["match", "call", "raise", "--deals", "2", "--csv", str(out), "--log-acpc", str(out), "--no-progress"])
    assert code == 2 and "the same file as --csv" in capsys.readouterr().err
    assert not out.exists()


def test_finding3_acpc_deal_log_is_untouched_when_the_deal_is_refused(tmp_path, capsys) -> None:
    log = tmp_path / "old.log"
    log.write_text("an earlier match's log\n")
    code = main(["acpc", "deal", "--players", "a b", "c", "--seat", "c=call", "--hands", "2", "--log", str(log),
                 "--no-progress"])
    assert code != 0
    assert log.read_text() == "an earlier match's log\n"
    assert [p.name for p in tmp_path.iterdir()] == ["old.log"]  # no temporary file left


def test_finding3_acpc_deal_log_naming_the_config_is_refused(tmp_path, capsys) -> None:
    config = tmp_path / "poki.toml"
    config.write_text("[random]\nseed = 4\n")
    code = main(["--config", str(config), "acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat",
                 "b=call", "--hands", "2", "--log", str(config), "--no-progress"])
    assert code == 2 and "the config file" in capsys.readouterr().err
    assert config.read_text() == "[random]\nseed = 4\n"


@pytest.mark.parametrize("kind", ["folder", "missing-folder", "fifo"])
def test_match_csv_that_cannot_be_written_is_said_before_the_match(tmp_path, kind, capsys) -> None:
    path = {"folder": tmp_path / "f", "missing-folder": tmp_path / "no" / "x.csv", "fifo": tmp_path / "p"}[kind]
    if kind == "folder":
        path.mkdir()
        (path / "mine.txt").write_text("keep")
    elif kind == "fifo":
        os.mkfifo(path)
    code = main(["match", "call", "raise", "--deals", "3000", "--csv", str(path), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "--csv" in err and "Traceback" not in err
    if kind == "folder":
        assert (path / "mine.txt").read_text() == "keep"


def test_finding5_train_cfr_outputs_are_checked_before_training(tmp_path, capsys) -> None:
    """A bad --out, --checkpoint or --log-json was found only after the chance model and
    every iteration; now it is exit 2 at once."""
    for option in ("--out", "--checkpoint", "--log-json"):
        args = {"--out": str(tmp_path / "s.npz"), option: str(tmp_path / "missing" / "x")}
        t0 = time.perf_counter()
        code = main(["train-cfr", "--flops", "400", "--iterations", "50", "--batch", "50", "--no-progress",
                     *[x for kv in args.items() for x in kv]])
        assert code == 2 and option in capsys.readouterr().err
        assert time.perf_counter() - t0 < 5
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["--seed", "-1"], ["--flops", "100000000000000000000"], ["--threads", "0"],
                                  ["--save-every", "nan"]])
def test_finding5_train_cfr_values_are_checked_where_read(tmp_path, args, capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["train-cfr", "--out", str(tmp_path / "s.npz"), *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert args[0] in err and "Traceback" not in err


def test_write_output_replaces_whole_or_not_at_all(tmp_path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("old")
    os.chmod(out, 0o640)
    with pytest.raises(RuntimeError), write_output(out) as handle:
        handle.write("half")
        raise RuntimeError("the work failed")
    assert out.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    with write_output(out) as handle:
        handle.write("new")
    assert out.read_text() == "new" and os.stat(out).st_mode & 0o777 == 0o640
    link = tmp_path / "link.txt"
    os.symlink(out, link)
    with write_output(link) as handle:  # a link is followed: the file it leads to is replaced
        handle.write("through the link")
    assert link.is_symlink() and out.read_text() == "through the link"


def test_check_outputs_refuses_a_read_only_file_and_a_device(tmp_path) -> None:
    ro = tmp_path / "ro.txt"
    ro.write_text("mine")
    os.chmod(ro, 0o444)
    if os.geteuid() != 0:  # root may write anything: the refusal is by permission
        with pytest.raises(OutputError, match="read-only"):
            check_outputs({"--csv": ro})
    with pytest.raises(OutputError, match="character device"):
        check_outputs({"--csv": "/dev/null"})
    with pytest.raises(OutputError, match="which this command reads"):
        check_outputs({"--out": ro}, [("the input ro", tmp_path / "." / "ro.txt")])
