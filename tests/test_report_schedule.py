"""The nightly report's APScheduler cron job, on a schedule seconds apart: it writes the
report while another connection keeps adding hands, each report sees more of them, and a
run that fails (its output folder cannot be made) is logged and the next run succeeds."""
from __future__ import annotations

import json
import sqlite3
import threading
import time

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.report.page import ReportOptions
from agent.report.schedule import NightlyReport, cron_trigger
from db.database import Database


def test_cron_lines() -> None:
    assert cron_trigger("30 4 * * *", "UTC") is not None
    assert cron_trigger("*/2 * * * * *", "Europe/Paris") is not None
    with pytest.raises(ValueError):
        cron_trigger("every night", "UTC")
    with pytest.raises(ValueError):
        cron_trigger("61 4 * * *", "UTC")


@pytest.mark.slow
def test_scheduled_reports_while_a_writer_adds_hands_and_after_a_failed_run(tmp_path, caplog) -> None:
    db_path = tmp_path / "live.sqlite"
    hands = list(synthetic_hands(6000, seed=5, pool=30))
    with Database(db_path) as db:
        db.write_hands(hands[:500], "live")
    written = [500]
    stop = threading.Event()
    writer_errors: list[BaseException] = []

    def writer() -> None:
        # A bot's writer: its own connection, a few hands at a time, as play goes on.
        try:
            with Database(db_path) as db:
                for start in range(500, len(hands), 50):
                    if stop.is_set():
                        return
                    db.write_hands(hands[start:start + 50], "live")
                    written[0] = start + 50
                    time.sleep(0.3)  # play goes on at its own pace
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            writer_errors.append(exc)

    # The first runs fail: where the report folder should go there is a file.
    blocker = tmp_path / "reports"
    blocker.write_text("not a folder")
    out = blocker / "nightly"
    job = NightlyReport(db_path, out, ReportOptions(hero="p5_1", charts=2), cron="*/2 * * * * *", timezone="UTC")
    thread = threading.Thread(target=writer)
    seen: list[int] = []
    job.start()
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while job.status.failures == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert job.status.failures >= 1 and "nightly" in (job.status.last_error or "")
        blocker.unlink()
        blocker.mkdir()
        while len(set(seen)) < 3 and time.monotonic() < deadline:
            report = out / "report.json"
            if report.exists():
                hands_seen = json.loads(report.read_text())["hands"]
                if not seen or hands_seen != seen[-1]:
                    seen.append(hands_seen)
                assert hands_seen <= written[0] + 50  # never more than the writer committed
            time.sleep(0.1)
    finally:
        stop.set()
        thread.join(timeout=60)
        job.shutdown()
    assert not writer_errors, writer_errors
    assert len(set(seen)) >= 3, seen
    assert seen == sorted(seen) and seen[0] >= 500  # each report saw more of the hands
    assert job.status.runs > job.status.failures >= 1
    assert job.status.last_error is None  # the runs after the failures succeeded
    assert any("opponent report failed" in r.message for r in caplog.records)
    # The folder holds one whole report; no temporary folders are left behind.
    assert sorted(p.name for p in out.iterdir()) == [".poki-output", "hands", "index.html", "players.csv",
                                                    "report.json"]
    assert [p.name for p in (tmp_path / "reports").iterdir()] == ["nightly"]


def test_a_run_still_going_when_the_next_is_due_is_not_doubled(tmp_path) -> None:
    db_path = tmp_path / "locked.sqlite"
    with Database(db_path) as db:
        db.write_hands(list(synthetic_hands(200, seed=3)), "live")
    # Another connection holds the file exclusively: the first run waits for it, second
    # after second, while the schedule fires every second.
    locker = sqlite3.connect(db_path)
    locker.execute("PRAGMA locking_mode = EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")
    job = NightlyReport(db_path, tmp_path / "out", ReportOptions(charts=0), cron="* * * * * *", timezone="UTC")
    job.start()
    try:
        deadline = time.monotonic() + 25
        while job.status.skipped < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert job.status.skipped >= 2 and job.status.runs == 0  # one run going, none doubled
        locker.rollback()
        locker.close()
        while job.status.runs == 0 and time.monotonic() < deadline + 20:
            time.sleep(0.1)
    finally:
        job.shutdown()
    assert job.status.runs >= 1 and job.status.failures == 0, job.status
    assert (tmp_path / "out" / "index.html").is_file()


def test_a_bot_builds_the_job_from_its_config(tmp_path) -> None:
    from agent.config import ConfigError, parse_config

    config = parse_config({"report": {"cron": "15 3 * * 1-5", "timezone": "America/Edmonton", "out": str(tmp_path / "o"),
                                      "hero": "me", "charts": 3}, "database": {"path": str(tmp_path / "x.sqlite")}})
    job = NightlyReport.from_config(config)
    assert job.db_path == tmp_path / "x.sqlite" and job.out == tmp_path / "o"
    assert job.options.hero == "me" and job.options.charts == 3
    assert str(job.trigger.timezone) == "America/Edmonton"
    assert {f.name: str(f) for f in job.trigger.fields}["hour"] == "3"
    for bad in ({"cron": "every night"}, {"timezone": "Mars/Olympus"}, {"loose_vpip": 1.5}, {"charts": -1}):
        with pytest.raises(ConfigError, match="report"):
            parse_config({"report": bad})


@pytest.mark.parametrize("isolate", [True, False])
def test_one_run_in_a_child_or_on_the_thread(tmp_path, isolate) -> None:
    db_path = tmp_path / "small.sqlite"
    job = NightlyReport(db_path, tmp_path / "out", ReportOptions(charts=1), isolate=isolate)
    assert job.run_once() is None  # no database yet: a failed run, logged, not raised
    assert job.status.failures == 1 and "no database at" in job.status.last_error
    with Database(db_path) as db:
        db.write_hands(list(synthetic_hands(100, seed=2)), "live")
    result = job.run_once()
    assert result is not None and result.hands == 100 and result.index.is_file()
    assert job.status.runs == 2 and job.status.last_error is None


def test_shutdown_ends_a_run_in_progress_and_leaves_no_process(tmp_path) -> None:
    db_path = tmp_path / "locked.sqlite"
    with Database(db_path) as db:
        db.write_hands(list(synthetic_hands(50, seed=4)), "live")
    locker = sqlite3.connect(db_path)
    locker.execute("PRAGMA locking_mode = EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")  # the run waits for it
    job = NightlyReport(db_path, tmp_path / "out", ReportOptions(charts=0), cron="* * * * * *", timezone="UTC")
    job.start()
    try:
        deadline = time.monotonic() + 30
        while job._child is None and time.monotonic() < deadline:
            time.sleep(0.05)
        child = job._child
        assert child is not None
    finally:
        job.shutdown()
        locker.close()
    assert child.wait(timeout=30) is not None  # ended by the shutdown, not left running
    assert job.status.failures == 0 and not (tmp_path / "out").exists()
