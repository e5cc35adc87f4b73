"""A command deletes only what it made: `poki report --out` and `poki demo --out` replace
a folder only when it holds their own output (a marker file) and nothing else, and never
the folder that holds the database (agent.output_folder)."""
from __future__ import annotations

import json
import os

import pytest

from agent.cli import main
from db.database import Database

MARKER = ".poki-output"  # agent.output_folder.MARKER


@pytest.fixture
def empty_db(tmp_path):
    path = tmp_path / "poki.sqlite"
    Database(path).close()
    return path


def _report(db, out) -> int:
    return main(["report", "--db", str(db), "--out", str(out), "--charts", "0", "--no-progress"])


def test_finding1_report_out_keeps_a_folder_of_the_users_files(empty_db, tmp_path, capsys) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.txt").write_text("years of work")
    (precious / "index.html").write_text("my own page")
    assert _report(empty_db, precious) == 1
    err = capsys.readouterr().err
    assert "did not write" in err and "thesis.txt" in err and "Traceback" not in err
    assert (precious / "thesis.txt").read_text() == "years of work"
    assert (precious / "index.html").read_text() == "my own page"
    assert [n for n in os.listdir(tmp_path) if not n.startswith("poki.sqlite")] == ["precious"]


def test_finding1_report_never_replaces_the_folder_holding_the_database(tmp_path, capsys) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "poki.sqlite"
    Database(db).close()
    before = db.read_bytes()
    assert _report(db, data) == 1
    assert "poki.sqlite" in capsys.readouterr().err
    assert db.read_bytes() == before
    # Not even when the folder is a report of ours that the user put the database in.
    out = tmp_path / "r"
    assert _report(db, out) == 0
    os.replace(db, out / "poki.sqlite")
    assert _report(out / "poki.sqlite", out) == 1
    assert (out / "poki.sqlite").is_file() and (out / "index.html").is_file()


def test_finding1_report_out_dot_is_a_clear_refusal(empty_db, tmp_path, capsys, monkeypatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (work / "notes.txt").write_text("keep")
    assert _report(empty_db, ".") == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "did not write" in err
    assert (work / "notes.txt").read_text() == "keep" and empty_db.is_file()
    # The folder holding the database, named as the working folder.
    monkeypatch.chdir(tmp_path)
    assert _report("poki.sqlite", ".") == 1
    assert "which this command reads" in capsys.readouterr().err


def test_a_report_replaces_its_own_report_and_refuses_once_a_stranger_moves_in(empty_db, tmp_path, capsys) -> None:
    out = tmp_path / "r"
    assert _report(empty_db, out) == 0
    marker = json.loads((out / MARKER).read_text())
    assert marker["kind"] == "report" and sorted(marker["entries"]) == ["hands", "index.html", "players.csv",
                                                                       "report.json"]
    assert marker["folders"] == ["hands"]  # the replayer's pages
    (out / "notes.txt").write_text("the user's")
    assert _report(empty_db, out) == 1
    assert "notes.txt" in capsys.readouterr().err and (out / "notes.txt").is_file()
    (out / "notes.txt").unlink()
    (out / "index.html").write_text("stale")
    assert _report(empty_db, out) == 0
    assert (out / "index.html").read_text() != "stale"
    # The old folder is gone; nothing else was left beside the report.
    assert [n for n in os.listdir(tmp_path) if not n.startswith("poki.sqlite")] == ["r"]


def test_an_empty_or_missing_folder_is_taken_and_a_file_is_refused(empty_db, tmp_path) -> None:
    from agent.output_folder import OutputFolderError, check_replaceable, clear_folder

    (tmp_path / "empty").mkdir()
    assert _report(empty_db, tmp_path / "empty") == 0
    assert _report(empty_db, tmp_path / "new" / "deeper") == 0
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputFolderError, match="not a folder"):
        check_replaceable(tmp_path / "file", "report")
    # A marker of another kind (a demo folder) is not a report to replace.
    clear_folder(tmp_path / "demo", "demo", ["poki.sqlite"])
    with pytest.raises(OutputFolderError, match="'demo'"):
        check_replaceable(tmp_path / "demo", "report")


def test_finding1_demo_out_keeps_a_folder_it_did_not_make(tmp_path, capsys) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "poki.sqlite").write_text("not ours at all")
    for mode in (["--offline"], []):
        assert main(["demo", *mode, "--out", str(precious), "--no-progress", "--hands", "1"]) == 2
        assert "did not write" in capsys.readouterr().err
    assert (precious / "poki.sqlite").read_text() == "not ours at all"
    assert os.listdir(precious) == ["poki.sqlite"]


def test_a_demo_folder_is_cleared_of_what_the_demo_makes_only(tmp_path) -> None:
    from agent.output_folder import OutputFolderError, clear_folder

    out = clear_folder(tmp_path / "demo", "demo", ["poki.sqlite", "report"], folders=["report"])
    (out / "poki.sqlite").write_text("an earlier run's")
    (out / "report").mkdir()
    (out / "report" / "index.html").write_text("old")
    clear_folder(out, "demo", ["poki.sqlite", "report"], folders=["report"])
    assert os.listdir(out) == [MARKER]
    (out / "mine.txt").write_text("the user's")
    with pytest.raises(OutputFolderError, match="mine.txt"):
        clear_folder(out, "demo", ["poki.sqlite", "report"], folders=["report"])
    assert (out / "mine.txt").is_file()


@pytest.mark.parametrize("entry", ["index.html", "players.csv"])
def test_issue39_item6_a_users_folder_where_a_report_file_was_is_kept(empty_db, tmp_path, capsys, entry) -> None:
    """The marker lists index.html; the user has since made index.html a folder of their
    files. The next report refuses (it did not write that folder) and deletes nothing."""
    out = tmp_path / "r"
    assert _report(empty_db, out) == 0
    (out / entry).unlink()
    (out / entry).mkdir()
    (out / entry / "notes.txt").write_text("mine")
    capsys.readouterr()
    assert _report(empty_db, out) == 1
    err = capsys.readouterr().err
    assert entry in err and "did not write" in err
    assert (out / entry / "notes.txt").read_text() == "mine"


def test_issue39_item6_a_link_where_a_report_file_was_is_not_followed_or_removed(empty_db, tmp_path) -> None:
    out = tmp_path / "r"
    assert _report(empty_db, out) == 0
    elsewhere = tmp_path / "elsewhere.html"
    elsewhere.write_text("the user's page")
    (out / "index.html").unlink()
    os.symlink(elsewhere, out / "index.html")
    assert _report(empty_db, out) == 1
    assert (out / "index.html").is_symlink() and elsewhere.read_text() == "the user's page"
