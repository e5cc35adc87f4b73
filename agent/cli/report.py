"""Write the opponent report: HUD statistics of every opponent in the database (as FPDB
defines them, each with its sample size), per-context models, charts and results against
us, as one page (DIR/index.html, works offline) plus DIR/players.csv and DIR/report.json.
The previous report in DIR is replaced whole; a DIR holding anything but a report of
ours, or holding the database, is refused untouched (exit 1).

With --schedule, stay running and write it on the [report] cron schedule (the nightly
report), until interrupted.

With --serve, serve the report live on this machine instead (http://127.0.0.1:PORT/, read-only
on the database): the pages update themselves as hands are stored, each opponent has a page
of his own, and any hand can be replayed street by street. Only the loopback interface
unless --bind-any allows --host to be another address. Ctrl-C (or SIGTERM) stops it.

Examples:
  poki report --db poki.sqlite --out report
  poki report --network irc1995 --since 1995-04-10 --players 50
  poki report --hero 'poki*' --schedule
  poki report --db poki.sqlite --serve --port 8765
"""
from __future__ import annotations

import argparse
import datetime as dt
import logging
import sys
import threading
from collections.abc import Callable

from . import arguments

DEFAULT_PORT = 8765  # poki report --serve's port when none is given


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument("--db", metavar="FILE", default=None, help="database file (default: [database] path)")
    parser.add_argument("--out", metavar="DIR", default=None, help="report folder (default: [report] out)")
    parser.add_argument("--network", metavar="NET", default=None,
                        help="only hands of this network (e.g. irc1995); default: all")
    parser.add_argument("--since", metavar="DATE", default=None,
                        help="only hands started on or after DATE (YYYY-MM-DD or an ISO date-time; UTC "
                        "unless it names a zone)")
    parser.add_argument("--players", metavar="N", type=int, default=None,
                        help="only the N most-seen opponents (default: all)")
    parser.add_argument("--hero", metavar="NAME", default=None,
                        help="the players we are, for results against us: names or globs, comma-separated "
                        "(default: [report] hero, and the players the hand histories were written for, an "
                        "online room's 'Dealt to' player)")
    parser.add_argument("--session-gap", metavar="MINUTES", type=float, default=None,
                        help="minutes between two of a player's hands that end a session (default 30)")
    parser.add_argument("--charts", metavar="N", type=int, default=None,
                        help="draw charts for N opponents: those who played most with us first, then the "
                        "most-seen (default: [report] charts)")
    parser.add_argument("--schedule", action="store_true",
                        help="keep running and write the report on the [report] cron schedule")
    serve = parser.add_argument_group("served live (--serve)")
    serve.add_argument("--serve", action="store_true",
                       help="serve the report live on this machine until stopped, instead of writing it")
    serve.add_argument("--port", metavar="PORT", type=arguments.listen_port, default=DEFAULT_PORT,
                       help=f"port to serve on (default {DEFAULT_PORT}; 0: any free port)")
    serve.add_argument("--host", metavar="ADDRESS", default="127.0.0.1",
                       help="address to serve on (default 127.0.0.1; another needs --bind-any)")
    serve.add_argument("--bind-any", action="store_true",
                       help="allow --host to be an address other than the loopback interface: anyone who "
                       "can reach it reads the database's players and hands")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def parse_since(text: str) -> float:
    """Unix time of a date or date-time; naive ones are UTC. ValueError if unreadable."""
    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"--since: not a date (YYYY-MM-DD) or ISO date-time: {text!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    try:  # the report shows it as a UTC date: one past year 9999 or before year 1 there is none
        when.astimezone(dt.timezone.utc)
    except OverflowError:
        raise ValueError(f"--since: {text!r} is outside the years 1-9999 in UTC") from None
    return when.timestamp()


def _options(args: argparse.Namespace):
    from agent.report.page import options_from_config

    since = None if args.since is None else parse_since(args.since)
    if args.players is not None and args.players < 1:
        raise ValueError("--players must be at least 1")
    if args.charts is not None and args.charts < 0:
        raise ValueError("--charts must be 0 or more")
    gap = getattr(args, "session_gap", None)
    if gap is not None and not gap > 0:
        raise ValueError("--session-gap must be more than 0 minutes")
    return options_from_config(args.settings.report, network=args.network, since=since, players=args.players,
                               hero=args.hero, charts=args.charts,
                               recorded_heroes=False if args.hero is not None else None,
                               session_gap=None if gap is None else gap * 60.0)


def run(args: argparse.Namespace) -> int:
    from agent.report.page import ReportWriteError, write_report
    from agent.report.stats import ReportDataError

    db_path = args.db or args.settings.database.path
    out = args.out or args.settings.report.out
    try:
        options = _options(args)
    except ValueError as exc:
        print(f"poki report: {exc}", file=sys.stderr)
        return 2
    if args.serve and args.schedule:
        print("poki report: --serve and --schedule are two ways to run; choose one", file=sys.stderr)
        return 2
    if args.serve:
        return _serve(db_path, options, args)
    if args.schedule:
        return _schedule(db_path, out, options, args)

    from tqdm import tqdm

    bar = tqdm(total=10 + options.charts, unit="step", disable=args.no_progress, file=sys.stderr,
               bar_format="{desc:<28}{bar}| {n_fmt}/{total_fmt} [{elapsed}]")

    def step(name: str) -> None:
        bar.set_description_str(f"report: {name}"[:28])
        bar.update(1)

    try:
        result = write_report(db_path, out, options, progress=step)
    except (ReportDataError, ReportWriteError) as exc:
        bar.close()
        print(f"poki report: {exc}", file=sys.stderr)
        return 1
    bar.update(bar.total - bar.n)
    bar.close()
    if result.bad_actions:
        print(f"poki report: {result.bad_actions} action row(s) with a round or kind that does not exist "
              f"were left out (`poki db check --db {db_path}` examines the file)", file=sys.stderr)
    print(f"report of {result.players} opponents over {result.hands:,} hands in {result.seconds:.1f} s")
    print(result.index)
    return 0


def _until_stopped(stop: Callable[[], None]) -> None:
    """Wait for Ctrl-C or SIGTERM, then ``stop``; the SIGTERM handler before is put back
    (the command may run inside a longer-lived process)."""
    import signal

    stopping = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    try:
        while not stopping.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        stop()
        signal.signal(signal.SIGTERM, previous)


def _schedule(db_path: str, out: str, options, args: argparse.Namespace) -> int:
    from agent.report.schedule import NightlyReport

    cfg = args.settings.report
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        job = NightlyReport(db_path, out, options, cron=cfg.cron, timezone=cfg.timezone)
    except ValueError as exc:  # a cron line the config check let through (e.g. minute 61)
        print(f"poki report: [report] cron {cfg.cron!r}: {exc}", file=sys.stderr)
        return 2
    job.start()
    print(f"report of {db_path} into {out} on the schedule {cfg.cron!r} ({cfg.timezone}); "
          f"next at {job.next_run_time()}; Ctrl-C stops", flush=True)
    _until_stopped(job.shutdown)
    s = job.status
    print(f"stopped after {s.runs} run(s), {s.failures} failed, {s.skipped} skipped")
    return 0


def _serve(db_path: str, options, args: argparse.Namespace) -> int:
    from agent.report.serve import ReportServer, ServeError

    try:
        server = ReportServer(db_path, options, host=args.host, port=args.port, allow_any=args.bind_any)
    except ServeError as exc:
        print(f"poki report: {exc}", file=sys.stderr)
        return 2
    server.start()
    print(f"serving the report of {db_path} at {server.url} (read-only; the pages follow the database); "
          f"Ctrl-C stops", flush=True)
    _until_stopped(server.stop)
    print("stopped serving the report", flush=True)
    return 0
