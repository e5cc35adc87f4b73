"""Run the whole pipeline on one machine with nothing but the package: Poki on IRC. A real
IRC server (miniircd) on loopback, the dealer bot, Poki and house bots as separate IRC
clients play a set number of hands, which are stored; then the results, what the database
learned, the opponent report, and everything shut down.

`poki demo --offline` runs the in-process pipeline instead: a duplicate match of house
bots (and Poki) through the in-process dealer, its hand logs and the real April 1995 IRC
games (when ../shared/data is present) replayed into a fresh opponent database, then
what the database learned, and the opponent report.

Each step is the same code as its own sub-command (`poki match`, `poki replay`,
`poki db`, `poki report`), so the demo is also a smoke test of them all.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agent.cli import arguments

DEFAULT_FIELD = (
    "poki",
    "rr",
    "tight-aggressive",
    "tight-passive",
    "loose-aggressive",
    "loose-passive",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="out/demo", metavar="DIR",
                        help="folder for the logs and the database (default out/demo): a new or empty "
                             "folder, or one an earlier demo wrote, whose files are replaced")
    parser.add_argument("--deals", type=arguments.positive_count, default=100,
                        help="deals in the match, each played once per seat rotation (default 100)")
    parser.add_argument("--seed", type=arguments.seed, default=None, help="match seed (default: [random] seed)")
    parser.add_argument("--players", nargs="+", default=list(DEFAULT_FIELD), metavar="SPEC",
                        help="player specs for the match (default: Poki, the rate-of-return bot "
                        "and the four tight/loose x aggressive/passive styles)")
    parser.add_argument("--no-irc", action="store_true",
                        help="do not replay the 1995 IRC logs even when they are present")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--offline", action="store_true",
                        help="no IRC: the duplicate match and log replay pipeline instead")
    parser.add_argument("--hands", type=arguments.positive_count, default=600,
                        help="hands the IRC demo plays (default 600)")


# What each demo writes into --out: the demo clears these (and nothing else) on its next run.
_DATABASE = ("poki.sqlite", "poki.sqlite-wal", "poki.sqlite-shm")
OFFLINE_ENTRIES = ("match.acpc.log", "phh", "report", *_DATABASE)
IRC_ENTRIES = ("logs", "report", *_DATABASE, "dealer.sqlite", "dealer.sqlite-wal", "dealer.sqlite-shm",
               "dealer.sqlite.pending-hands")
DEMO_KIND = "demo"
DEMO_FOLDERS = ("phh", "report", "logs")  # the entries above that are folders


def _demo_folder(out: str, entries: tuple[str, ...]) -> Path | None:
    """--out made ready for a demo (agent.output_folder: a new or empty folder, or one an
    earlier demo wrote, cleared of what that demo made); None, said on stderr, if not."""
    from agent.output_folder import OutputFolderError, clear_folder

    try:
        return clear_folder(out, DEMO_KIND, entries, folders=DEMO_FOLDERS)
    except (OutputFolderError, OSError) as exc:
        print(f"poki demo: --out {exc}", file=sys.stderr)
        return None


def _step(title: str) -> None:
    print(f"\n== {title}", flush=True)


def run(args: argparse.Namespace) -> int:
    if not args.offline:
        return _irc_demo(args)
    from agent.cli import main as poki
    from agent.play.offline.replay import shared_irc_logs

    out = _demo_folder(args.out, OFFLINE_ENTRIES)
    if out is None:
        return 2
    db_path = out / "poki.sqlite"
    phh_dir = out / "phh"
    seed = args.seed if args.seed is not None else args.settings.random.seed
    quiet = ["--no-progress"] if args.no_progress else []
    config = ["--config", args.config] if args.config else []

    _step(f"duplicate match, {args.deals} deals: {' '.join(args.players)}")
    status = poki([*config, "match", *args.players, "--deals", str(args.deals), "--seed", str(seed),
                   "--name", "demo", "--log-acpc", str(out / "match.acpc.log"), "--log-phh", str(phh_dir),
                   *quiet])
    if status:
        return status

    logs = [str(phh_dir)]
    irc = None if args.no_irc else shared_irc_logs()
    if irc is not None:
        logs.append(str(irc))
    elif not args.no_irc:
        print("(the 1995 IRC logs were not found beside the repository; set POKI_SHARED_DATA "
              "to replay them too)", file=sys.stderr)
    _step("replay into the opponent database: " + ", ".join(logs))
    status = poki([*config, "replay", *logs, "--db", str(db_path), *quiet])
    if status:
        return status

    _step("what the database holds")
    status = poki([*config, "db", "stats", "--db", str(db_path)])
    if status:
        return status
    for player in _most_seen_players(db_path, 2):
        _step(f"opponent model of {player[1]} ({player[0]})")
        status = poki([*config, "db", "player", player[1], "--network", player[0], "--db", str(db_path)])
        if status:
            return status

    status = _report(poki, config, db_path, out, quiet)
    if status:
        return status
    print(f"\nlogs and database in {out}/")
    print(f"opponent report: {(out / 'report' / 'index.html').resolve()}")
    return 0


def _report(poki, config: list[str], db_path: Path, out: Path, quiet: list[str]) -> int:
    """The last step of both demos: the opponent report of the demo's database."""
    _step("the opponent report")
    return poki([*config, "report", "--db", str(db_path), "--out", str(out / "report"), *quiet])


def _most_seen_players(db_path: Path, per_network: int) -> list[tuple[str, str]]:
    """(network, nick) of the players with the most hands, a few per network."""
    from db.database import Database

    database = Database(db_path, create=False)
    try:
        return database.most_seen_players(per_network)
    finally:
        database.close()


def _irc_demo(args: argparse.Namespace) -> int:
    """The IRC demo (the default): agent.play.irc.demo, then what Poki's database learned."""
    from agent.cli import main as poki
    from agent.play.irc.demo import DEMO_FIELD, run_irc_demo

    if args.hands < 1:
        print("poki demo: --hands must be at least 1", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else args.settings.random.seed
    specs = args.players if args.players != list(DEFAULT_FIELD) else list(DEMO_FIELD)
    from agent.players import SpecError, parse_spec

    try:
        for spec in specs:
            parse_spec(spec)
    except SpecError as exc:
        print(f"poki demo: {exc}", file=sys.stderr)
        return 2
    if not 2 <= len(specs) <= args.settings.table.seats:
        print(f"poki demo: 2-{args.settings.table.seats} players, got {len(specs)}", file=sys.stderr)
        return 2
    out = _demo_folder(args.out, IRC_ENTRIES)
    if out is None:
        return 2
    config = ["--config", args.config] if args.config else []
    figures = run_irc_demo(args.settings, out, hands=args.hands, specs=specs, seed=seed,
                           progress=not args.no_progress)
    db_path = out / "poki.sqlite"
    _step("what Poki's database holds")
    status = poki([*config, "db", "stats", "--db", str(db_path)])
    if status:
        return status
    for network, nick in _most_seen_players(db_path, 2)[:2]:
        if nick == next(iter(figures["players"])):
            continue
        _step(f"what Poki learned of {nick} ({network})")
        status = poki([*config, "db", "player", nick, "--network", network, "--db", str(db_path)])
        if status:
            return status
    status = _report(poki, config, db_path, out, ["--no-progress"] if args.no_progress else [])
    if status:
        return status
    print(f"\nIRC demo: {figures['hands']} hands in {figures['seconds']:.0f} s; server, dealer and bots "
          f"stopped. Hand logs, Poki's and the dealer's databases in {out}/")
    print(f"opponent report: {(out / 'report' / 'index.html').resolve()}")
    return 0
