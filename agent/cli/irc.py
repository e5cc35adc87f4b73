"""Poki on IRC: host a table (`poki irc deal`), sit Poki at one (`poki irc play`), or run
a small IRC server on this machine for them (`poki irc server`).

The dealer and the player speak Poki's dealer dialect (docs/irc-dialect.md); people can
play from any IRC client. Settings not given on the command line come from the [irc]
section of the config (server, nicks, owners, time limit, bankrolls, flood control).

Examples:
  poki irc server --port 6667
  poki irc deal --server 127.0.0.1:6667 --channel '#holdem' --db tables.sqlite
  poki irc play --server 127.0.0.1:6667 --channel '#holdem' --dealer dealer

A dealer or player bot also writes the opponent report from its database on the [report]
cron schedule (nightly by default) into --report-out, in a child process, while it plays;
--no-report turns that off.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import time

from agent.cli import arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="irc_command", metavar="ACTION")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--server", metavar="HOST:PORT", help="IRC server (default: [irc] server)")
    common.add_argument("--channel", action="append", metavar="CHANNEL",
                        help="a table's channel; repeat for several tables (default: [irc] channels)")
    common.add_argument("--seed", type=arguments.seed, default=None, help="seed (default: [random] seed)")
    common.add_argument("--no-flood-limit", action="store_true",
                        help="send without flood control (only on a server of your own)")
    common.add_argument("-v", "--verbose", action="store_true", help="log connections and skipped lines")
    common.add_argument("--report-out", metavar="DIR", default=None,
                        help="folder of the scheduled opponent report (default: [report] out)")
    common.add_argument("--no-report", action="store_true",
                        help="do not write the opponent report on the [report] cron schedule")

    deal = sub.add_parser("deal", parents=[common], help="host tables: the dealer bot",
                          description="Deal limit hold'em in IRC channels: seats people and bots (!sit), "
                          "keeps bankrolls in SQLite across sessions, writes every hand to the opponent "
                          "database and to ACPC/PHH logs.")
    deal.add_argument("--nick", default="dealer", help="the dealer's nick (default dealer)")
    deal.add_argument("--db", metavar="FILE", help="database (default: [database] path)")
    deal.add_argument("--hands", type=arguments.positive_count, default=None, help="stop after this many hands (default: until stopped)")
    deal.add_argument("--logs", metavar="DIR", default="irc-logs",
                      help="folder for the hand logs, <table>.acpc.log and <table>.phhs (default irc-logs)")
    deal.add_argument("--action-seconds", type=arguments.seconds, default=None,
                      help="time limit per action (default: [irc] action_seconds)")
    deal.add_argument("--no-progress", action="store_true", help="no progress bar")

    play = sub.add_parser("play", parents=[common], help="sit Poki (or any player) at IRC tables",
                          description="The player bot: joins the channels, takes a seat, plays every "
                          "hand the dealer deals it within the dealer's time limit, stores every hand and "
                          "learns the opponents. It acts only on what the dealer says. Owners ([irc] owners "
                          "or --owner) may /msg it: status, leave #channel, report, quit.")
    play.add_argument("--dealer", default=None, help="the dealer's nick (default: [irc] dealer_nick)")
    play.add_argument("--dealer-host", default=None, help="accept the dealer only from this host or user@host")
    play.add_argument("--player", default="poki", metavar="SPEC",
                      help="who plays: a player spec (default poki; see `poki match --list`)")
    play.add_argument("--nick", default=None, help="our nick (default: [irc] nick)")
    play.add_argument("--db", metavar="FILE", help="database (default: [database] path)")
    play.add_argument("--owner", action="append", metavar="MASK",
                      help="nick!user@host mask allowed to give orders (default: [irc] owners)")

    server = sub.add_parser("server", help="run an IRC server (miniircd) on 127.0.0.1 until stopped",
                            description="A real IRC server on loopback for your own tables.")
    server.add_argument("--port", type=arguments.listen_port, default=6667, help="port (default 6667)")


def run(args: argparse.Namespace) -> int:
    if args.irc_command is None:
        print("poki irc: choose deal, play or server (poki irc --help)", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        format="%(asctime)s %(name)s: %(message)s")
    # `kill` (SIGTERM) stops a bot as Ctrl-C does: hands committed, chips returned, the
    # server it started ended.
    signal.signal(signal.SIGTERM, _interrupt)
    if os.environ.get("POKI_PROFILE"):
        # Every thread under cProfile, written at exit (python -m agent.bench.irc_profile).
        from agent.bench.irc_profile import install_from_env

        install_from_env()
    return {"deal": _deal, "play": _play, "server": _server}[args.irc_command](args)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _common(args: argparse.Namespace) -> tuple[str, list[str], int] | None:
    from connectors.irc.address import split_server

    irc = args.settings.irc
    server = args.server or irc.server
    try:
        split_server(server)
    except ValueError as exc:
        print(f"poki irc: --server: {exc}", file=sys.stderr)
        return None
    channels = args.channel or list(irc.channels)
    bad = [c for c in channels if c[:1] not in "#&" or " " in c or "," in c]
    if bad:
        print(f"poki irc: not channel names: {', '.join(bad)} (they start with #)", file=sys.stderr)
        return None
    seed = args.seed if args.seed is not None else args.settings.random.seed
    return server, channels, seed


def _deal(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agent.play.irc_dealer import DealerHost
    from connectors.irc import dialect

    common = _common(args)
    if common is None:
        return 2
    server, channels, seed = common
    if not dialect.is_nick(args.nick):
        print(f"poki irc deal: --nick {args.nick!r} is not a nick of at most {dialect.MAX_NICK} characters",
              file=sys.stderr)
        return 2
    if args.hands is not None and args.hands < 1:
        print("poki irc deal: --hands must be at least 1", file=sys.stderr)
        return 2
    db = args.db or args.settings.database.path
    host = DealerHost(server, channels, db, args.settings, nick=args.nick, hands=args.hands, seed=seed,
                      log_dir=args.logs, action_seconds=args.action_seconds,
                      flood_rate=0.0 if args.no_flood_limit else None)
    try:
        host.start()
    except Exception as exc:  # noqa: BLE001 - a clear message, not a traceback
        print(f"poki irc deal: {exc}", file=sys.stderr)
        return 1
    print(f"dealing at {', '.join(channels)} on {server} as {args.nick}; database {db}, logs in {args.logs}/",
          flush=True)
    job = _start_report_job(args, db)
    bar = None if args.no_progress or args.hands is None else tqdm(total=args.hands, unit="hand")
    try:
        while not host.wait(0.5):
            if bar is not None:
                bar.n = host.call(lambda: host.bot.stats.hands)
                bar.refresh()
    except KeyboardInterrupt:
        print("\nstopping (a hand in progress is void, chips as before it)", file=sys.stderr)
    finally:
        stats = None
        try:
            stats = host.call(lambda: host.bot.stats)
        except Exception:  # noqa: BLE001
            pass
        if bar is not None and stats is not None:
            bar.n = stats.hands
            bar.close()
        _stop_report_job(job)
        host.stop()
    if stats is not None:
        print(f"{stats.hands} hands dealt, {stats.voided} void, {stats.timeouts} time-outs, "
              f"{stats.refused} commands refused")
    if host.unstored:
        print(f"poki irc deal: {host.unstored} finished hand(s) could not be stored in {db}; they are kept in "
              f"its journal and stored at the next start", file=sys.stderr)
        return 1
    return 0 if host.error is None else 1


def _play(args: argparse.Namespace) -> int:
    from agent.players import SpecError
    from agent.play.irc_player import PlayerBot

    common = _common(args)
    if common is None:
        return 2
    server, channels, seed = common
    irc = args.settings.irc
    db = args.db or args.settings.database.path
    try:
        bot = PlayerBot(args.settings, server=server, channels=channels, dealer=args.dealer or irc.dealer_nick,
                        spec=args.player, nick=args.nick, db_path=db, seed=seed,
                        dealer_host=args.dealer_host, owners=args.owner,
                        flood_rate=0.0 if args.no_flood_limit else None)
    except SpecError as exc:
        print(f"poki irc play: --player: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001
        print(f"poki irc play: {exc}", file=sys.stderr)
        return 1
    print(f"playing {bot.spec} at {', '.join(channels)} on {server}; dealer {bot.feed.dealer_nick}; "
          f"database {db}. Ctrl-C to stop.", flush=True)
    print(bot.describe(), flush=True)
    bot.start()
    job = _start_report_job(args, db)
    last = time.monotonic()
    try:
        while not bot.wait(1.0):
            if time.monotonic() - last > 60:
                last = time.monotonic()
                print(bot.summary(), flush=True)
    except KeyboardInterrupt:
        print("\nstopping", file=sys.stderr)
    finally:
        summary = bot.summary()
        _stop_report_job(job)
        bot.stop()
    print(summary)
    if bot.writer.not_stored:
        print(f"poki irc play: {bot.writer.not_stored} finished hand(s) were NOT stored in {db}; the last: "
              f"{bot.writer.last_error}", file=sys.stderr)
        return 1
    return 0


def _start_report_job(args: argparse.Namespace, db: str):
    """The opponent report of the bot's database on the [report] cron schedule, or None
    with --no-report. A run goes on in a child process, so the bot keeps playing (and
    answering the server) meanwhile; a failed run is logged and the next one runs."""
    if args.no_report:
        return None
    from agent.report.schedule import NightlyReport

    try:
        job = NightlyReport.from_config(args.settings, db_path=db, out=args.report_out)
    except ValueError as exc:  # a cron line the config check let through (e.g. minute 61)
        print(f"poki irc: [report] cron {args.settings.report.cron!r}: {exc}; no scheduled report",
              file=sys.stderr)
        return None
    job.start()
    print(f"opponent report of {db} into {job.out} on the schedule {args.settings.report.cron!r} "
          f"({args.settings.report.timezone}); next at {job.next_run_time()}", flush=True)
    return job


def _stop_report_job(job) -> None:
    if job is None:
        return
    job.shutdown()
    s = job.status
    print(f"opponent report: {s.runs} run(s), {s.failures} failed", flush=True)


def _server(args: argparse.Namespace) -> int:
    from connectors.irc.server import LoopbackServer, ServerError

    try:
        srv = LoopbackServer(args.port).start()
    except ServerError as exc:
        print(f"poki irc server: {exc}", file=sys.stderr)
        return 1
    print(f"IRC server (miniircd) on {srv.address}; Ctrl-C to stop", flush=True)
    try:
        while srv.running:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
    return 0
