"""The report as a user gets it: `poki report` writes the folder, and a real headless
Chromium loads the page offline: it renders, its charts are drawn SVG elements, the table
sorts when a header is clicked, and the browser reports no errors. Also the CSV and JSON
beside it, names that are not HTML, and the clear errors for a missing or foreign file."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.cli import main
from db.database import Database

from helpers.report import play

HERO = "p11_3"
NASTY = '<img/src=x/onerror=alert(1)>'


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A database of 3,000 synthetic hands among 40 players plus a few hands of players
    with hostile names, and its report (we are p11_3)."""
    tmp = tmp_path_factory.mktemp("report")
    db = tmp / "poki.sqlite"
    hands = list(synthetic_hands(3000, seed=11, pool=40))
    nasty = [play(f"x{i}", f'a:AsAd {NASTY}:KsKd =cmd|calc:QsQd',
                  f"=cmd|calc:c a:c {NASTY}:k | a:k {NASTY}:b =cmd|calc:c a:f | {NASTY}:k =cmd|calc:k | {NASTY}:k =cmd|calc:k")
             for i in range(3)]
    with Database(db) as d:
        d.write_hands(hands, "syn")
        d.write_hands(nasty, "other")
    out = tmp / "out"
    assert main(["report", "--db", str(db), "--out", str(out), "--hero", HERO, "--charts", "6",
                 "--no-progress"]) == 0
    return out


def test_the_folder_holds_page_csv_and_json_that_agree(report) -> None:
    assert sorted(p.name for p in report.iterdir()) == [".poki-output", "hands", "index.html", "players.csv",
                                                        "report.json"]
    data = json.loads((report / "report.json").read_text())
    with (report / "players.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(data["players"]) == data["opponents_total"] == 42  # 40 + 3 - us
    assert data["heroes_found"] == [HERO]
    by_name = {p["player"]: p for p in data["players"]}
    assert HERO not in by_name
    for row in rows:
        p = by_name[row["player"].lstrip("'")]
        assert int(row["hands"]) == p["hands"] and int(row["vpip_n"]) == p["vpip"]["n"]
    # A name a spreadsheet would run as a formula is defused in the CSV only.
    assert "'=cmd|calc" in [r["player"] for r in rows] and "=cmd|calc" in by_name
    # Opponents who sat with us have our result against them; the others none.
    assert sum(p["results_vs_us_sb_per_hand"] is not None for p in data["players"]) > 10
    assert by_name["a"]["results_vs_us_sb_per_hand"] is None
    html = (report / "index.html").read_text()
    assert NASTY not in html and "&lt;img/src=x/onerror=alert(1)&gt;" in html
    # Offline: nothing fetched from anywhere.
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)


def test_the_page_in_a_real_browser_renders_draws_sorts_without_errors(report, tmp_path, browser) -> None:
    data = json.loads((report / "report.json").read_text())
    browser.open(report / "index.html")
    assert browser.js("document.title").startswith("Poki opponent report")
    assert browser.js("document.querySelectorAll('#opponents tbody tr').length") == len(data["players"])
    # Charts: six drawn SVGs with real drawing elements, the first one laid out.
    charts = browser.js("Array.from(document.querySelectorAll('svg.chart')).map("
                        "s => [s.querySelectorAll('path, line, rect, polyline').length, s.closest('details').id])")
    assert len(charts) == 6 and all(n > 30 for n, _ in charts)
    box = browser.js("(() => { const r = document.querySelector('svg.chart').getBoundingClientRect();"
                     " return [r.width, r.height]; })()")
    assert box[0] > 400 and box[1] > 80
    assert browser.js("document.getElementById('no-hero')") is None

    def column(i: int) -> list[str]:
        return browser.js(f"Array.from(document.querySelectorAll('#opponents tbody tr'))"
                          f".map(r => r.cells[{i}].getAttribute('data-v'))")

    headers = browser.js("Array.from(document.querySelectorAll('#opponents th')).map(th => th.textContent.trim())")
    vpip_col = headers.index("VPIP")
    expected = sorted((p["vpip"]["value"] for p in data["players"] if p["vpip"]["value"] is not None),
                      reverse=True)
    browser.js(f"document.querySelectorAll('#opponents th button')[{vpip_col}].click()")
    got = column(vpip_col)
    assert [float(v) for v in got if v] == pytest.approx(expected, abs=1e-4)
    assert all(v for v in got[:len(expected)]) and not any(got[len(expected):])  # no figure: last
    browser.js(f"document.querySelectorAll('#opponents th button')[{vpip_col}].click()")
    assert [float(v) for v in column(vpip_col) if v] == pytest.approx(expected[::-1], abs=1e-4)
    browser.js("document.querySelectorAll('#opponents th button')[0].click()")
    names = column(0)
    assert names == sorted(names)
    hands_col = headers.index("Hands")
    browser.js(f"document.querySelectorAll('#opponents th button')[{hands_col}].click()")
    hands = [int(v) for v in column(hands_col)]
    assert hands == sorted(hands, reverse=True)
    # The search box filters the rows.
    browser.js("(() => { const f = document.getElementById('find'); f.value = 'p11_1';"
               " f.dispatchEvent(new Event('input')); })()")
    visible = browser.js("Array.from(document.querySelectorAll('#opponents tbody tr')).filter(r => !r.hidden).length")
    assert 0 < visible < len(data["players"])
    browser.screenshot(tmp_path / "report.png")
    assert browser.errors == []


def test_without_us_in_the_hands_the_page_says_so(report, tmp_path, browser) -> None:
    db = report.parent / "poki.sqlite"
    out = tmp_path / "no-hero"
    assert main(["report", "--db", str(db), "--out", str(out), "--hero", "poki*", "--charts", "1",
                 "--players", "5", "--no-progress"]) == 0
    browser.open(out / "index.html")
    assert "no results against us" in browser.js("document.getElementById('no-hero').textContent")
    assert browser.js("document.querySelectorAll('#opponents tbody tr').length") == 5
    assert browser.errors == []


def test_the_command_reports_bad_input_clearly(tmp_path, capsys) -> None:
    assert main(["report", "--db", str(tmp_path / "none.sqlite"), "--out", str(tmp_path / "o"), "--no-progress"]) == 1
    assert "no database at" in capsys.readouterr().err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00garbage" * 500)
    assert main(["report", "--db", str(junk), "--out", str(tmp_path / "o"), "--no-progress"]) == 1
    assert "junk.sqlite" in capsys.readouterr().err
    assert main(["report", "--db", str(junk), "--since", "yesterday", "--no-progress"]) == 2
    assert "--since" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_an_output_folder_that_cannot_be_made_is_a_clear_error(report, tmp_path, capsys) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    db = report.parent / "poki.sqlite"
    assert main(["report", "--db", str(db), "--out", str(tmp_path / "file" / "r"), "--charts", "0",
                 "--no-progress"]) == 1
    assert "cannot write the report into" in capsys.readouterr().err


def test_a_new_report_replaces_the_old_one_whole(report, tmp_path) -> None:
    db = report.parent / "poki.sqlite"
    out = tmp_path / "r"
    assert main(["report", "--db", str(db), "--out", str(out), "--charts", "0", "--no-progress"]) == 0
    first = (out / "index.html").read_text()
    assert main(["report", "--db", str(db), "--out", str(out), "--charts", "0", "--players", "3",
                 "--network", "syn", "--no-progress"]) == 0
    assert (out / "index.html").read_text() != first
    data = json.loads((out / "report.json").read_text())
    assert len(data["players"]) == 3 and data["hands_by_network"] == {"syn": 3000}
    assert [p.name for p in tmp_path.iterdir()] == ["r"]  # no temporary folder left behind


def test_a_damaged_database_still_gives_a_report_and_says_what_was_left_out(report, tmp_path, capsys) -> None:
    import shutil
    import sqlite3

    db = tmp_path / "damaged.sqlite"
    shutil.copy(report.parent / "poki.sqlite", db)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE actions SET round = 7 WHERE hand = 1 AND ord = 3")
        conn.execute("UPDATE actions SET kind = 'zz' WHERE hand = 1 AND ord = 4")
        conn.execute("UPDATE actions SET player = 999999 WHERE hand = 2 AND ord = 3")  # nobody seated
        conn.execute("DELETE FROM results WHERE hand = 3")
    out = tmp_path / "r"
    assert main(["report", "--db", str(db), "--out", str(out), "--charts", "1", "--no-progress"]) == 0
    assert "2 action row(s)" in capsys.readouterr().err
    data = json.loads((out / "report.json").read_text())
    assert data["action_rows_left_out"] == 2 and data["hands"] == 3003
    assert 'id="bad-rows"' in (out / "index.html").read_text()


@pytest.mark.slow
def test_a_reader_never_sees_half_a_report(report, tmp_path) -> None:
    import threading

    db = report.parent / "poki.sqlite"
    out = tmp_path / "r"
    assert main(["report", "--db", str(db), "--out", str(out), "--charts", "1", "--no-progress"]) == 0
    done = threading.Event()
    statuses: list[int] = []

    def rewrite() -> None:
        try:
            for players in (3, 40, 5, 42, 2):
                statuses.append(main(["report", "--db", str(db), "--out", str(out), "--charts", "1",
                                      "--players", str(players), "--no-progress"]))
        finally:
            done.set()

    thread = threading.Thread(target=rewrite)
    thread.start()
    complete = 0
    try:
        while not done.is_set():
            try:
                html = (out / "index.html").read_text()
                data = json.loads((out / "report.json").read_text())
            except FileNotFoundError:
                continue  # between the two renames, or the folder of one report and not the next
            assert html.rstrip().endswith("</html>")
            assert len(data["players"]) in (43, 3, 40, 5, 42, 2)  # the first report: all 43 (no "us")
            complete += 1
    finally:
        thread.join(timeout=120)
    assert statuses == [0] * 5 and complete > 0


def test_an_empty_database_gives_a_page_that_says_so(tmp_path) -> None:
    Database(tmp_path / "empty.sqlite").close()
    out = tmp_path / "r"
    assert main(["report", "--db", str(tmp_path / "empty.sqlite"), "--out", str(out), "--no-progress"]) == 0
    assert 'id="no-hands"' in (out / "index.html").read_text()
    assert json.loads((out / "report.json").read_text())["players"] == []
