"""A file `poki replay` does not read is never passed over in silence (issue 40): each is
named, with what it looks like when that can be told, counted in the summary and in
--json; a run asked to read files that recognised none exits 1, a run that read some
exits 0 with the count of the others."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent.cli import main

from shared_data import FPDB_LHE

MORE = None if FPDB_LHE is None else FPDB_LHE.parent / "fpdb-lhe-more"
needs_more = pytest.mark.skipif(MORE is None or not (MORE / "README.md").is_file(),
                                reason="../shared/data/fpdb-lhe-more is not here")


def _fpdb_expectations(folder: Path, copies: int) -> list[Path]:
    """``copies`` real files of a format we do not read: FPDB's expected results (.hp,
    .hands, .gt) of the Cake files, under names of their own."""
    assert MORE is not None
    sources = sorted(p for p in (MORE / "Cake").iterdir() if p.suffix in (".hp", ".hands", ".gt"))
    out = []
    for i in range(copies):
        source = sources[i % len(sources)]
        target = folder / f"{i:02d}-{source.name}"
        shutil.copyfile(source, target)
        out.append(target)
    return out


@needs_more
def test_a_folder_of_ten_unread_files_names_each_and_exits_1(tmp_path, capsys) -> None:
    folder = tmp_path / "unread"
    folder.mkdir()
    files = _fpdb_expectations(folder, 10)
    assert main(["replay", str(folder), "--db", str(tmp_path / "x.sqlite"), "--no-progress", "--workers", "1"]) == 1
    captured = capsys.readouterr()
    for path in files:
        line = next(x for x in captured.out.splitlines() if f"{path}:" in x)
        assert "looks like FPDB's expected import results" in line and "no reader for it" in line
    assert "files not read: 10 (of 10)" in captured.out
    assert "none of the 10 files met is a log poki reads" in captured.err
    assert main(["replay", str(folder), "--db", str(tmp_path / "x.sqlite"), "--no-progress", "--json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["files_not_read"] == 10 and summary["files_read"] == 0 and summary["stored"] == 0
    assert sorted(s.split(": looks like")[0] for s in summary["unread_files"]) == sorted(map(str, files))


@needs_more
def test_a_mixed_folder_stores_the_read_files_names_the_others_and_exits_0(tmp_path, capsys) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    for room in ("Boss", "Everest", "KingsClub"):
        for source in (MORE / room).iterdir():
            shutil.copyfile(source, folder / source.name)
    unread = _fpdb_expectations(folder, 3)
    notes = folder / "notes.bin"
    notes.write_bytes(b"\x00\x01 nothing a room writes\n")
    status = main(["replay", str(folder), "--db", str(tmp_path / "m.sqlite"), "--no-progress", "--json", "--strict"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and summary["stopped"] is None
    assert summary["stored"] == 3 and summary["files_read"] == 3 and summary["files_not_read"] == 4
    named = {s.split(": ")[0]: s for s in summary["unread_files"]}
    assert set(named) == {*map(str, unread), str(notes)}
    assert named[str(notes)].endswith("not an IRC Poker Database month, an ACPC log, a PHH file or a hand "
                                      "history of a room read")


def test_a_file_given_by_name_that_is_not_read_is_named_with_its_look_and_exits_1(tmp_path, capsys) -> None:
    summary_file = tmp_path / "stars-summary.txt"
    summary_file.write_text("PokerStars Tournament #288463329, Freeroll  Hold'em Limit\n"
                            "Buy-In: 0/0 FPP\n9 players\n")
    assert main(["replay", str(summary_file), "--db", str(tmp_path / "s.sqlite"), "--no-progress"]) == 1
    out = capsys.readouterr().out
    assert f"{summary_file}: looks like a PokerStars tournament summary: no reader for it" in out
