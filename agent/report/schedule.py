"""The nightly report as an APScheduler 3.x cron job, for long-running bots and for
`poki report --schedule`.

The job runs off a bot's decision path: the scheduler's worker thread starts each run in
a child interpreter (by default), so the report neither holds the bot's GIL nor its
memory, and whatever goes wrong in it cannot take the bot down; the child reads the
database through a read-only connection of its own, so the bot keeps writing hands
meanwhile (WAL: readers never block the writer). A run that is still going when the
next one is due is not doubled: the job allows one instance, and runs missed while the
process was busy or asleep are coalesced into one. A failed run is logged with its reason
and counted, and the next one runs as planned. Each run writes into a temporary folder
and renames it into place (page.write_report), so readers never see half a report.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, JobExecutionEvent
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger

from .page import ReportOptions, ReportResult, ReportWriteError, write_report
from .stats import ReportDataError

log = logging.getLogger("poki.report")
JOB_ID = "poki-nightly-report"


def cron_trigger(cron: str, timezone: str) -> CronTrigger:
    """A crontab line (minute hour day month weekday), or six fields with seconds first,
    in ``timezone``. ValueError names what is wrong."""
    fields = cron.split()
    if len(fields) == 5:
        return CronTrigger.from_crontab(cron, timezone=timezone)
    if len(fields) == 6:
        second, minute, hour, day, month, dow = fields
        return CronTrigger(second=second, minute=minute, hour=hour, day=day, month=month,
                           day_of_week=dow, timezone=timezone)
    raise ValueError(f"a cron line has 5 fields (or 6, seconds first), got {cron!r}")


@dataclass
class RunStatus:
    """What the scheduled job has done so far (read it from any thread)."""

    runs: int = 0
    failures: int = 0
    skipped: int = 0  # due while a run was still going: coalesced into that run
    last_error: str | None = None
    last_result: ReportResult | None = None
    history: list[tuple[float, str]] = field(default_factory=list)  # (time, "ok"/"failed: ...")


class NightlyReport:
    """The report on a cron schedule, in a background scheduler of its own."""

    def __init__(self, db_path: str | Path, out: str | Path, options: ReportOptions = ReportOptions(),
                 *, cron: str = "30 4 * * *", timezone: str = "UTC", isolate: bool = True,
                 timeout: float = 3600.0) -> None:
        """``isolate``: each run in a child interpreter (the bot's process keeps its GIL,
        memory and stability whatever the report does); otherwise on the scheduler's
        thread. ``timeout``: a child run taking longer is stopped and counted as failed."""
        self.db_path = Path(db_path)
        self.out = Path(out)
        self.options = options
        self.isolate = isolate
        self.timeout = timeout
        self._child: Any = None  # the running child interpreter, if any
        self._stopping = False
        self.trigger = cron_trigger(cron, timezone)
        self.status = RunStatus()
        self._lock = threading.Lock()
        self._scheduler = BackgroundScheduler(
            executors={"default": ThreadPoolExecutor(max_workers=1)},
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": 3600},
            timezone=timezone,
        )
        self._scheduler.add_listener(self._on_skipped, EVENT_JOB_MAX_INSTANCES)
        self._scheduler.add_job(self.run_once, self.trigger, id=JOB_ID, name="opponent report")

    @classmethod
    def from_config(cls, config: Any, db_path: str | Path | None = None, out: str | Path | None = None) -> NightlyReport:
        """The job a long-running bot starts: database, folder, schedule and options from
        its config (agent.config.Config: [database] path, [report])."""
        from .page import options_from_config

        r = config.report
        return cls(db_path or config.database.path, out or r.out, options_from_config(r),
                   cron=r.cron, timezone=r.timezone)

    def start(self) -> None:
        self._scheduler.start()
        log.info("opponent report scheduled: next at %s, into %s", self.next_run_time(), self.out)

    def shutdown(self, wait: bool = True) -> None:
        """Stop the schedule; a run in a child interpreter is ended, not waited for."""
        self._stopping = True
        with self._lock:
            child = self._child
        if child is not None and child.poll() is None:
            child.terminate()
        if self._scheduler.running:
            self._scheduler.shutdown(wait=wait)

    def __enter__(self) -> NightlyReport:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def next_run_time(self) -> Any:
        job = self._scheduler.get_job(JOB_ID)
        return None if job is None else getattr(job, "next_run_time", None)

    def run_once(self) -> ReportResult | None:
        """One run of the report: the result, or None after logging why it failed.
        Never raises (except on interpreter shutdown), so the schedule goes on."""
        if self._stopping:
            return None
        try:
            if self.isolate:
                result = self._run_child()
            else:
                result = write_report(self.db_path, self.out, self.options)
        except Exception as exc:  # any failure of one run: logged, retried at the next time
            if self._stopping:
                log.info("opponent report stopped with the schedule")
                return None
            with self._lock:
                self.status.runs += 1
                self.status.failures += 1
                self.status.last_error = f"{type(exc).__name__}: {exc}"
                self.status.history.append((time.time(), f"failed: {self.status.last_error}"))
            log.error("opponent report failed (next run at %s): %s", self.next_run_time(), self.status.last_error,
                      exc_info=not isinstance(exc, (OSError, ValueError, ReportDataError, ReportWriteError, ChildRunError)))
            return None
        with self._lock:
            self.status.runs += 1
            self.status.last_result = result
            self.status.last_error = None
            self.status.history.append((time.time(), "ok"))
        log.info("opponent report: %d opponents over %d hands in %.1f s -> %s",
                 result.players, result.hands, result.seconds, result.index)
        return result

    def _run_child(self) -> ReportResult:
        """One report written by a child interpreter (python -m agent.report.schedule),
        in a session of its own: a Ctrl-C meant for the bot does not reach it; shutdown()
        ends it."""
        import json
        import os
        import subprocess
        import sys
        from dataclasses import asdict

        package_root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        env.setdefault("OPENBLAS_NUM_THREADS", "1")
        child = subprocess.Popen(
            [sys.executable, "-m", "agent.report.schedule", str(self.db_path), str(self.out),
             json.dumps(asdict(self.options))],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        with self._lock:
            self._child = child
        try:
            stdout, stderr = child.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            child.communicate()
            raise ChildRunError(f"the report took longer than {self.timeout:g} s and was stopped") from None
        finally:
            with self._lock:
                self._child = None
        lines = stdout.strip().splitlines()
        if child.returncode != 0 or not lines:
            reason = (stderr.strip().splitlines() or [f"exit status {child.returncode}"])[-1]
            raise ChildRunError(reason)
        r = json.loads(lines[-1])
        return ReportResult(out=Path(r["out"]), index=Path(r["index"]), players=r["players"], hands=r["hands"],
                            seconds=r["seconds"], bad_actions=r["bad_actions"])

    def _on_skipped(self, event: JobExecutionEvent) -> None:
        with self._lock:
            self.status.skipped += 1
        log.warning("opponent report still running when the next one was due: that run is skipped")


class ChildRunError(Exception):
    """A report run in a child interpreter failed; the message is the child's own."""


def _child_main(argv: list[str]) -> int:
    """python -m agent.report.schedule DB OUT OPTIONS_JSON: one report; its result as a
    JSON line on stdout, or the reason it failed as the last line on stderr."""
    import json
    import sys

    from .stats import StyleThresholds

    db_path, out, raw = argv
    fields = json.loads(raw)
    fields["thresholds"] = StyleThresholds(**fields["thresholds"])
    try:
        result = write_report(db_path, out, ReportOptions(**fields))
    except (ReportDataError, ReportWriteError) as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    print(json.dumps({"out": str(result.out), "index": str(result.index), "players": result.players,
                      "hands": result.hands, "seconds": result.seconds, "bad_actions": result.bad_actions}))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(_child_main(sys.argv[1:]))
