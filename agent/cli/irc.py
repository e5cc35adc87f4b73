"""Poki on IRC: host a table (`poki irc deal`), sit Poki at one (`poki irc play`), or run
a small IRC server on this machine for them (`poki irc server`).

The dealer and the player speak Poki's dealer dialect (docs/irc-dialect.md); people can
play from any IRC client. Settings not given on the command line come from the [irc]
section of the config (server, TLS, accounts, nicks, owners, time limit, bankrolls, flood
control): `poki irc deal --help` and `poki irc play --help` list the network ones and
the send budgets (by default, the one the server's software allows).

Examples:
  poki irc server --port 6667
  poki irc deal --server 127.0.0.1:6667 --channel '#holdem'
  poki irc play --server 127.0.0.1:6667 --channel '#holdem' --dealer dealer
  POKI_IRC_PASSWORD=... poki irc play --server irc.example.net:6697 --account poki

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
from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO, Literal

from agent.cli import arguments

if TYPE_CHECKING:
    from agent.play.irc.network import NetworkOptions
    from agent.play.irc.table import DealerStats
    from agent.report.serve import ReportServer
    from connectors.irc.deck_log import DeckCheck


# The [irc] settings of a bot's connection, for --help: (key, the option that overrides it).
_NETWORK_SETTINGS = {
    "deal": (("server", "--server"), ("dealer_nick", "--nick"), ("tls", "--tls / --no-tls"),
             ("tls_verify", "--tls-insecure"), ("tls_ca_file", "--tls-ca"), ("dealer_tls_cert_file", "--tls-cert"),
             ("sasl", "--sasl"), ("password_over_plain_text", "--password-over-plain-text"),
             ("dealer_account", "--account"), ("dealer_password_file", "--password-file"),
             ("server_password_file", "--server-password-file"), ("services_nick", ""),
             ("connect_timeout_seconds", ""), ("flood_profile", ""), ("flood_burst", ""), ("flood_lines_per_second", "--no-flood-limit"),
             ("reconnect_min_seconds", ""), ("reconnect_max_seconds", "")),
    "play": (("server", "--server"), ("nick", "--nick"), ("dealer_nick", "--dealer"), ("dealer_host", "--dealer-host"),
             ("dealer_account", "--dealer-account"),
             ("tls", "--tls / --no-tls"), ("tls_verify", "--tls-insecure"), ("tls_ca_file", "--tls-ca"),
             ("tls_cert_file", "--tls-cert"), ("sasl", "--sasl"),
             ("password_over_plain_text", "--password-over-plain-text"), ("account", "--account"),
             ("password_file", "--password-file"), ("server_password_file", "--server-password-file"),
             ("services_nick", ""), ("connect_timeout_seconds", ""), ("flood_profile", ""),
             ("flood_burst", ""), ("flood_lines_per_second", "--no-flood-limit"), ("answer_gap_seconds", ""), ("reconnect_min_seconds", ""),
             ("reconnect_max_seconds", "")),
}
# Each role's files: (what, the setting giving its default, the option).
_ROLE_FILES = {
    "deal": (("database", "[irc] dealer_db", "--db"), ("scheduled report", "[irc] dealer_report", "--report-out"),
             ("hand logs", "irc-logs/", "--logs")),
    "play": (("database", "[database] path", "--db"), ("scheduled report", "[report] out", "--report-out")),
}


def _toml(value: object) -> str:
    if value is None:
        return "(not set)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{value:g}" if isinstance(value, float) else str(value)


def settings_help(role: str) -> str:
    """The end of `irc deal --help` / `irc play --help`: where the settings live, the
    network ones with their built-in defaults, where secrets come from, the role's files."""
    from agent.config import Config
    from agent.play.irc.network import PASSWORD_ENV, SERVER_PASSWORD_ENV
    from connectors.irc.servers import PROFILES

    defaults = Config()
    irc = defaults.irc
    rows = [(f"{key} = {_toml(getattr(irc, key))}", option) for key, option in _NETWORK_SETTINGS[role]]
    width = max(len(r[0]) for r in rows) + 2
    password_key = "dealer_password_file" if role == "deal" else "password_file"
    files = []
    for what, setting, option in _ROLE_FILES[role]:
        if setting.startswith("["):
            section, key = setting[1:].split("] ")
            value = getattr(getattr(defaults, section), key)
            files.append(f"  {what}: {setting} ({_toml(value)}), {option}")
        else:
            files.append(f"  {what}: {setting}, {option}")
    return "\n".join([
        "settings:",
        "  An option given here wins; everything else comes from the settings file: --config FILE",
        "  (here or before `irc`; default ./config.toml, else the built-in defaults; `poki info` prints",
        "  the settings in use). The network settings, in its [irc] section, with their defaults:",
        *(f"    {text:<{width}}{option}".rstrip() for text, option in rows),
        "",
        "secrets:",
        "  Passwords are never taken on the command line nor from the settings file, and never",
        "  logged. The account password is the first line of --password-file FILE, else",
        f"  ${PASSWORD_ENV[role]}, else the first line of the file [irc] {password_key} names.",
        "  The server password (PASS) likewise: --server-password-file FILE,",
        f"  ${SERVER_PASSWORD_ENV}, [irc] server_password_file.",
        "  Port 6697 means TLS (tls = \"auto\"); the server's certificate is checked unless",
        "  --tls-insecure. SASL PLAIN logs in when a password is given (over TLS only, unless",
        "  --password-over-plain-text), SASL EXTERNAL with a client certificate alone; a server",
        "  without SASL gets NickServ IDENTIFY (over TLS only too). A refused",
        "  login stops the bot with the reason (exit status 1) instead of trying again.",
        "",
        "send budget (flood control):",
        "  A server reads only so many lines a second from a client and holds back the rest (the",
        "  turn a line announces then starts late). flood_profile = \"auto\" (the default) reads",
        "  the server's software from its welcome (004) and keeps a little under its default limits;",
        "  the start line and the log say which. A profile name fixes one; \"custom\" (or setting",
        "  flood_burst / flood_lines_per_second) gives your own; --no-flood-limit: none. Profiles:",
        *(f"    {name:<11}{budget.describe().partition(': ')[2]}" for name, budget in PROFILES.items()),
        "  solanum also stands for charybdis; safe is what auto uses for a server it does not",
        "  recognise; exempt is for a bot the server exempts from its limits (a server you run:",
        "  docs/irc-networks.md).",
        "",
        "this bot's files (each role its own, so a dealer and a player can share a folder):",
        *files,
    ])


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    sub = parser.add_subparsers(dest="irc_command", metavar="ACTION")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS,
                        help="settings file (as `poki --config FILE`; default ./config.toml)")
    common.add_argument("--server", metavar="HOST:PORT", help="IRC server (default: [irc] server)")
    common.add_argument("--channel", action="append", metavar="CHANNEL",
                        help="a table's channel; repeat for several tables (default: [irc] channels)")
    common.add_argument("--seed", type=arguments.seed, default=None,
                        help="seed (play: default [random] seed; deal: decks from the seed, for tests and "
                        "demos only, said at the table; default: from the OS's entropy)")
    common.add_argument("--no-flood-limit", action="store_true",
                        help="send without flood control (only on a server of your own)")
    common.add_argument("--owner", action="append", metavar="MASK",
                        help="who may /msg the bot orders (help lists them): a user@host mask or account:NAME, "
                        "never a nick (default: [irc] owners)")
    common.add_argument("-v", "--verbose", action="store_true", help="log connections and skipped lines")
    common.add_argument("--report-out", metavar="DIR", default=None,
                        help="folder of the scheduled opponent report (default: this bot's own, listed below)")
    common.add_argument("--no-report", action="store_true",
                        help="do not write the opponent report on the [report] cron schedule")
    common.add_argument("--serve-report", metavar="PORT", type=arguments.listen_port, default=None,
                        help="also serve the live opponent report of the bot's database on "
                        "http://127.0.0.1:PORT/ while it plays (0: any free port; poki report --serve)")
    net = common.add_argument_group("network (TLS and login; secrets only from files or the environment)")
    net.add_argument("--tls", action=argparse.BooleanOptionalAction, default=None,
                     help="connect over TLS (default: [irc] tls; \"auto\": on port 6697)")
    net.add_argument("--tls-insecure", action="store_true",
                     help="do not check the server's certificate (prefer --tls-ca for a self-signed server)")
    net.add_argument("--tls-ca", metavar="FILE", default=None,
                     help="trust the CA certificates in FILE (e.g. the server's self-signed certificate)")
    net.add_argument("--tls-cert", metavar="FILE", default=None,
                     help="our client certificate with its key (PEM): CertFP and SASL EXTERNAL")
    net.add_argument("--account", metavar="NAME", default=None, help="the account to log in to (default: the nick)")
    net.add_argument("--password-file", metavar="FILE", default=None,
                     help="file whose first line is the account's password (never give it on the command line)")
    net.add_argument("--server-password-file", metavar="FILE", default=None,
                     help="file whose first line is the server password (PASS)")
    net.add_argument("--sasl", choices=("auto", "plain", "external", "off"), default=None,
                     help="how to log in (default: [irc] sasl; off: NickServ IDENTIFY only)")
    net.add_argument("--password-over-plain-text", action="store_true",
                     help="allow the account password without TLS (refused by default; only on a network you trust)")

    deal = sub.add_parser("deal", parents=[common], help="host tables: the dealer bot",
                          formatter_class=argparse.RawDescriptionHelpFormatter, epilog=settings_help("deal"),
                          description="Deal limit hold'em in IRC channels: seats people and bots (!sit), "
                          "keeps bankrolls in SQLite across sessions, writes every hand to the opponent "
                          "database and to ACPC/PHH logs. Owners ([irc] owners or --owner) may /msg it: "
                          "status, pause, resume, quit (at the hand's end), remove NICK; help lists them.")
    deal.add_argument("--nick", default=None, help="the dealer's nick (default: [irc] dealer_nick)")
    deal.add_argument("--db", metavar="FILE", help="database (default: [irc] dealer_db, dealer.sqlite)")
    deal.add_argument("--hands", type=arguments.positive_count, default=None,
                      help="stop after this many hands (default: until stopped)")
    deal.add_argument("--logs", metavar="DIR", default="irc-logs",
                      help="folder for the hand logs, <table>.acpc.log and <table>.phhs (default irc-logs)")
    deal.add_argument("--action-seconds", type=arguments.seconds, default=None,
                      help="time limit per action (default: [irc] action_seconds)")
    deal.add_argument("--no-progress", action="store_true",
                      help="no progress bar (nor, when the output is no terminal, a line every 50 hands)")

    play = sub.add_parser("play", parents=[common], help="sit Poki (or any player) at IRC tables",
                          formatter_class=argparse.RawDescriptionHelpFormatter, epilog=settings_help("play"),
                          description="The player bot: joins the channels, takes a seat, plays every "
                          "hand the dealer deals it within the dealer's time limit, stores every hand and "
                          "learns the opponents. It acts only on what the dealer says. Owners ([irc] owners "
                          "or --owner) may /msg it: status, leave #channel, report, quit.")
    play.add_argument("--dealer", default=None, help="the dealer's nick (default: [irc] dealer_nick)")
    play.add_argument("--dealer-host", default=None, metavar="MASK",
                      help="accept the dealer only from this identity: host, user@host or a nick!user@host mask "
                      "(* and ? wildcards; a ~ before the user is ignored). Default: the user@host the dealer's "
                      "nick has when first seen, pinned for the session")
    play.add_argument("--dealer-account", default=None, metavar="ACCOUNT",
                      help="accept the dealer only when the server vouches it is logged in to ACCOUNT "
                      "(IRCv3 account-tag; default: [irc] dealer_account)")
    play.add_argument("--player", default="poki", metavar="SPEC",
                      help="who plays: a player spec (default poki; see `poki match --list`)")
    play.add_argument("--nick", default=None, help="our nick (default: [irc] nick)")
    play.add_argument("--db", metavar="FILE", help="database (default: [database] path, poki.sqlite)")

    verify = sub.add_parser("verify", help="check a table's decks against their commitments in a channel log",
                            description="Reads a channel log (an IRC client's log or the bare lines) and "
                            "checks every hand the dealer committed: the revealed deck hashes to the "
                            "commitment announced at the hand's start, and every card the log shows (board, "
                            "shown hands, your hole cards) is where that deck puts it. Exit status 0 when "
                            "every revealed hand checks out, 1 otherwise (docs/irc-dialect.md).")
    verify.add_argument("log", metavar="LOG", help="the channel log (text; '-' reads standard input)")
    verify.add_argument("--dealer", metavar="NICK", default=None,
                        help="read only this nick's lines (default: the nick the log shows dealing, "
                        "the speaker of the most hand lines; name it when others spoke hand lines)")
    verify.add_argument("-v", "--verbose", action="store_true", help="one line per hand")

    server = sub.add_parser("server", help="run an IRC server (miniircd) on 127.0.0.1 until stopped",
                            description="A real IRC server on loopback for your own tables.")
    server.add_argument("--port", type=arguments.listen_port, default=6667, help="port (default 6667)")


def run(args: argparse.Namespace) -> int:
    if args.irc_command is None:
        print("poki irc: choose deal, play, verify or server (poki irc --help)", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        format="%(asctime)s %(name)s: %(message)s")
    logging.getLogger("poki.irc.budget").setLevel(logging.INFO)  # which send budget a server gets: always said
    # `kill` (SIGTERM) stops a bot as Ctrl-C does: hands committed, chips returned, the
    # server it started ended. The handler before is put back at the end (the command may
    # run inside a longer-lived process, whose forked children would inherit ours).
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        if os.environ.get("POKI_PROFILE"):
            # Every thread under cProfile, written at exit (python -m agent.bench.irc_profile).
            from agent.bench.irc_profile import install_from_env

            install_from_env()
        return {"deal": _deal, "play": _play, "server": _server, "verify": _verify}[args.irc_command](args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _common(args: argparse.Namespace) -> tuple[str, list[str], int, NetworkOptions] | None:
    from agent.play.irc.network import NetworkError, network_options
    from connectors.irc.address import split_server

    irc = args.settings.irc
    server = args.server or irc.server
    try:
        _, port = split_server(server)
    except ValueError as exc:
        print(f"poki irc: --server: {exc}", file=sys.stderr)
        return None
    channels = args.channel or list(irc.channels)
    bad = [c for c in channels if c[:1] not in "#&" or " " in c or "," in c]
    if bad:
        print(f"poki irc: not channel names: {', '.join(bad)} (they start with #)", file=sys.stderr)
        return None
    seed = args.seed if args.seed is not None else args.settings.random.seed
    try:
        network = network_options(args.settings, args.irc_command, port, tls=args.tls,
                                  tls_insecure=args.tls_insecure, ca_file=args.tls_ca, cert_file=args.tls_cert,
                                  account=args.account, password_file=args.password_file,
                                  server_password_file=args.server_password_file, sasl=args.sasl,
                                  password_over_plain_text=args.password_over_plain_text)
    except NetworkError as exc:
        print(f"poki irc {args.irc_command}: {exc}", file=sys.stderr)
        return None
    return server, channels, seed, network


def _deal(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from agent.play.irc.dealer import DealerHost
    from connectors.irc import dialect

    common = _common(args)
    if common is None:
        return 2
    server, channels, seed, network = common
    nick = args.nick or args.settings.irc.dealer_nick
    if not dialect.is_nick(nick):
        print(f"poki irc deal: --nick {nick!r} is not a nick of at most {dialect.MAX_NICK} characters",
              file=sys.stderr)
        return 2
    if args.hands is not None and args.hands < 1:
        print("poki irc deal: --hands must be at least 1", file=sys.stderr)
        return 2
    db = args.db or args.settings.irc.dealer_db
    # Real play deals from the OS's entropy; only --seed (tests, demos) makes decks repeat.
    host = DealerHost(server, channels, db, args.settings, nick=nick, hands=args.hands, seed=args.seed,
                      log_dir=args.logs, action_seconds=args.action_seconds,
                      flood_rate=0.0 if args.no_flood_limit else None, network_options=network,
                      owners=args.owner)

    def dealer_stats() -> DealerStats:
        # Read on the loop thread (host.call), whose first job made the bot.
        if host.bot is None:
            raise RuntimeError("the dealer bot did not start (its database did not open)")
        return host.bot.stats

    served = _report_server(args, db)
    if served is False:
        return 2
    try:
        host.start()
    except Exception as exc:  # noqa: BLE001 - a clear message, not a traceback
        print(f"poki irc deal: {exc}", file=sys.stderr)
        _stop_report_server(served)
        return 1
    _start_report_server(served)
    assert host.client is not None  # made by start()
    print(f"dealing at {', '.join(channels)} on {server} ({network.describe()}) as {nick}; "
          f"{host.client.describe_budget()}; database {os.path.abspath(db)}, logs in "
          f"{os.path.abspath(args.logs)}/", flush=True)
    job = _start_report_job(args, db, args.settings.irc.dealer_report)
    # A bar on a terminal; into a log, a line every PROGRESS_EVERY hands (not a frame a second).
    on_terminal = sys.stderr.isatty()
    bar = None if args.no_progress or args.hands is None or not on_terminal else tqdm(total=args.hands, unit="hand")
    told = 0
    try:
        while not host.wait(0.5):
            if bar is not None:
                bar.n = host.call(lambda: dealer_stats().hands)
                bar.refresh()
            elif not args.no_progress and not on_terminal:
                told = _progress_line(host.call(lambda: dealer_stats().hands), told, args.hands)
    except KeyboardInterrupt:
        print("\nstopping (a hand in progress is void, chips as before it)", file=sys.stderr)
    finally:
        stats = None
        try:
            stats = host.call(dealer_stats)
        except Exception:  # noqa: BLE001 - stopping: what cannot be read is reported, the stop goes on
            pass
        if bar is not None and stats is not None:
            bar.n = stats.hands
            bar.close()
        _stop_report_job(job)
        _stop_report_server(served)
        host.stop()
    if stats is not None:
        print(f"{stats.hands} hands dealt, {stats.voided} void, {stats.timeouts} time-outs, "
              f"{stats.refused} commands refused")
    if host.unstored:
        print(f"poki irc deal: {host.unstored} finished hand(s) could not be stored in {db}; they are kept in "
              f"its journal and stored at the next start", file=sys.stderr)
    if host.error is not None:
        print(f"poki irc deal: {host.error}", file=sys.stderr)
    return 1 if host.unstored or host.error is not None else 0


PROGRESS_EVERY = 50  # hands between two progress lines when the output is no terminal


def _progress_line(hands: int, told: int, limit: int | None) -> int:
    """Print ``N hands dealt`` when ``hands`` passed the next multiple of PROGRESS_EVERY
    since ``told``; the count last told."""
    if hands // PROGRESS_EVERY <= told // PROGRESS_EVERY:
        return told
    of = f" of {limit}" if limit is not None else ""
    print(f"{hands}{of} hands dealt", file=sys.stderr, flush=True)
    return hands


def _play(args: argparse.Namespace) -> int:
    from agent.play.irc.player import PlayerBot
    from agent.players import SpecError

    common = _common(args)
    if common is None:
        return 2
    server, channels, seed, network = common
    irc = args.settings.irc
    db = args.db or args.settings.database.path
    served = _report_server(args, db)
    if served is False:
        return 2
    try:
        bot = PlayerBot(args.settings, server=server, channels=channels, dealer=args.dealer or irc.dealer_nick,
                        spec=args.player, nick=args.nick, db_path=db, seed=seed,
                        dealer_host=args.dealer_host, owners=args.owner,
                        dealer_account=args.dealer_account,
                        flood_rate=0.0 if args.no_flood_limit else None, network_options=network)
    except SpecError as exc:
        _stop_report_server(served)
        print(f"poki irc play: --player: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - stopping: what cannot be read is reported, the stop goes on
        _stop_report_server(served)
        print(f"poki irc play: {exc}", file=sys.stderr)
        return 1
    print(f"playing {bot.spec} at {', '.join(channels)} on {server} ({network.describe()}); dealer "
          f"{bot.feed.dealer_nick}; {bot.client.describe_budget()}; database {os.path.abspath(db)}. "
          f"Ctrl-C to stop.", flush=True)
    print(bot.describe(), flush=True)
    bot.start()
    _start_report_server(served)
    job = _start_report_job(args, db, args.settings.report.out)
    if job is not None:
        bot.report_now = job.run_once  # the owner's `report` order: one run now, in a child
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
        _stop_report_server(served)
        bot.stop()
    print(summary)
    failed = False
    if bot.writer.not_stored:
        print(f"poki irc play: {bot.writer.not_stored} finished hand(s) were NOT stored in {db}; the last: "
              f"{bot.writer.last_error}", file=sys.stderr)
        failed = True
    if bot.failure is not None:
        print(f"poki irc play: {bot.failure}", file=sys.stderr)
        failed = True
    return 1 if failed else 0


def _start_report_job(args: argparse.Namespace, db: str, default_out: str):
    """The opponent report of the bot's database on the [report] cron schedule into
    --report-out (else ``default_out``, the role's own folder), or None with --no-report.
    A run goes on in a child process, so the bot keeps playing (and answering the server)
    meanwhile; a failed run is logged and the next one runs."""
    if args.no_report:
        return None
    from agent.report.schedule import NightlyReport

    try:
        job = NightlyReport.from_config(args.settings, db_path=db, out=args.report_out or default_out)
    except ValueError as exc:  # a cron line the config check let through (e.g. minute 61)
        print(f"poki irc: [report] cron {args.settings.report.cron!r}: {exc}; no scheduled report",
              file=sys.stderr)
        return None
    job.start()
    print(f"opponent report of {os.path.abspath(db)} into {os.path.abspath(job.out)} on the schedule {args.settings.report.cron!r} "
          f"({args.settings.report.timezone}); next at {job.next_run_time()}", flush=True)
    return job


def _report_server(args: argparse.Namespace, db: str) -> ReportServer | None | Literal[False]:
    """The live report of the bot's database, listening on 127.0.0.1 (--serve-report
    PORT) but not yet answering; None without the option; False (said) when the port
    cannot be had, before the bot joins any table."""
    if args.serve_report is None:
        return None
    from agent.report.page import options_from_config
    from agent.report.serve import ReportServer, ServeError

    try:
        return ReportServer(db, options_from_config(args.settings.report), port=args.serve_report)
    except ServeError as exc:
        print(f"poki irc {args.irc_command}: --serve-report: {exc}", file=sys.stderr)
        return False


def _start_report_server(server: ReportServer | None) -> None:
    if server is not None:
        server.start()
        print(f"serving the live opponent report at {server.url}", flush=True)


def _stop_report_server(server: ReportServer | None) -> None:
    if server is not None:
        server.stop()


def _stop_report_job(job) -> None:
    if job is None:
        return
    job.shutdown()
    s = job.status
    print(f"opponent report: {s.runs} run(s), {s.failures} failed", flush=True)


def _log_lines(stream: BinaryIO, max_line: int) -> Iterator[str]:
    """A channel log's lines as text, each capped while it is read (a longer line is no
    dealer's and is skipped unheld)."""
    from connectors.logs.bounded import stream_lines

    for line in stream_lines(stream, max_line=max_line):
        if line.raw is not None:
            yield line.raw.decode("utf-8", "replace")


def _verify(args: argparse.Namespace) -> int:
    from agent.inputs import open_input
    from connectors.irc.deck_log import MAX_LINE, verify_lines

    try:
        if args.log == "-":
            check = verify_lines(_log_lines(sys.stdin.buffer, MAX_LINE), args.dealer)
        else:
            with open_input(args.log) as f:  # a FIFO or device is refused unread
                check = verify_lines(_log_lines(f, MAX_LINE), args.dealer)
    except OSError as exc:
        print(f"poki irc verify: {exc}", file=sys.stderr)
        return 2
    _say_whose_lines(check, named=args.dealer is not None)
    for hand in check.hands:
        if hand.problems:
            print(f"hand {hand.hand}: FAILED: {'; '.join(hand.problems)}")
        elif args.verbose:
            print(f"hand {hand.hand}: ok ({len(hand.seen)} card lines checked)")
    if check.unverifiable:
        shown = ", ".join(map(str, check.unverifiable[:10])) + (" ..." if len(check.unverifiable) > 10 else "")
        print(f"{len(check.unverifiable)} hand(s) without a revealed deck in the log (not checked): {shown}")
    failed = len(check.failed)
    print(f"{check.verified} hand(s) verified, {failed} failed")
    if not check.hands:
        print("poki irc verify: no revealed deck in the log", file=sys.stderr)
        return 1
    return 1 if failed else 0


def _say_whose_lines(check: DeckCheck, *, named: bool) -> None:
    """Whose lines `poki irc verify` read, and whose it did not."""
    if check.dealer is None:
        print("the log has no nicks (bare lines): every hand line is read as the dealer's")
        return
    print(f"dealer: {check.dealer} ({'named' if named else 'the speaker of the most hand lines'})")
    if check.ignored:
        shown = ", ".join(f"{nick} ({n})" for nick, n in sorted(check.ignored.items())[:10])
        hint = "" if named else "; name the dealer with --dealer NICK if it is not the one above"
        print(f"hand lines of others, not read: {shown}{hint}")


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
