"""Replay hand logs through the tracker into the opponent database: IRC Poker Database
months (holdem/YYYYMM with hdb, hroster, pdb/), ACPC dealer logs (STATE: lines), PHH
files (.phh, .phhs) and the online rooms' fixed-limit hold'em hand histories (PokerStars,
Full Tilt, iPoker, PartyPoker, OnGame, Absolute, Cake, Bovada, Winamax, 888, Winning,
Seals With Clubs: recognised by their content, in any
encoding the rooms used; hands of other games skipped and counted), given as files or
folders. Every hand is stored once: a second run
over the same logs stores nothing new, and a run killed part-way resumes where it stopped.
Hands that cannot be read or break the rules are skipped and counted by reason.

ACPC logs need the game's blinds, bets and cap: from --game, else a game definition
beside the log (named as in the log's header, or LOG.game), else the standard ACPC game
the header names; --blinds, --bets and --cap override single figures.

--predict scores the opponent model: before every real decision, how often its most
likely action was the one taken and the mean log-likelihood of the actual actions,
beside a baseline of the player's own pooled frequencies; and, for every holding shown
down, its log-likelihood under the weight tables of uniform, Loki-1, the triples and the
learned ranges, which it learns into the database as it goes (docs/prediction.md, "Ranges").

--cluster ADDRESS reads, checks and prepares the chunks as tasks on a Dask cluster (a
scheduler's tcp://HOST:PORT, or `local`; needs the `cluster` extra) while this process
alone writes, in log order: the database is the one a serial replay makes (docs/scale.md).

--follow keeps reading: the PATHs (folders, or files) are looked at every --poll seconds
(new files, hands appended to known ones, as a room's client, a dealer or the IRC dealer
writes them) and each hand is stored once it is complete: a room's hand when the next
hand's start line is written, or when the file has been quiet for --quiet seconds and
the hand parses whole; an iPoker game at its end tag; an ACPC hand at its line end; a
.phhs table at the next table or, quiet, when it reads whole. A hand still being written
is waited for, never read in part. It runs until Ctrl-C or SIGTERM, then says what it
stored and which hands it was still waiting for. Run again over the same folders, it
stores nothing twice (hands are recognised by their content ids; no offsets are kept).
A line per batch stored goes to standard error (--no-progress: none). Reads and writes in
this one process (no --workers, --cluster, --predict, --tune or --strict).

Examples: poki replay ../shared/data/irc-holdem-199504-dev --db irc.sqlite --predict ;
poki replay --follow ~/PokerStars/HandHistory --db tracker.sqlite
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from agent.cli import arguments
from agent.cli.arguments import outputs_refused
from agent.cli.cluster_option import NoCluster, open_cluster
from agent.config import MAX_BETS, MAX_CHIPS
from agent.models.prediction import Strengths


def _pair(text: str) -> tuple[int, int]:
    try:
        a, b = (int(x) for x in text.replace(",", "/").split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two whole numbers like 5/10, got {text!r}") from None
    if a <= 0 or b <= 0 or a > b or b > MAX_CHIPS:
        raise argparse.ArgumentTypeError(f"expected 0 < first <= second <= {MAX_CHIPS:,}, got {text!r}")
    return a, b


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def _date(text: str) -> float:
    """A UTC date (YYYY-MM-DD) or date and time (YYYY-MM-DDTHH:MM[:SS]) as Unix time."""
    from datetime import datetime, timezone

    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=timezone.utc).timestamp()
        except ValueError:
            continue
    raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM, UTC): {text!r}")


def _strengths(text: str) -> Strengths:
    parts = text.split(",")
    try:
        values = [float(p) for p in parts]
        if len(values) not in (3, 4):
            raise ValueError("three or four numbers")
        names = ("population", "coarse", "fine", "population_half_life")
        return Strengths(**dict(zip(names, values)))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--strengths wants P,C,F[,H], positive numbers: {text!r} ({exc})") from None


def _range_settings(text: str) -> Any:
    from agent.models.ranges import RangeSettings

    try:
        player, population = (float(p) for p in text.split(","))
        return RangeSettings(player, population)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--ranges wants PLAYER,POPULATION, positive numbers: {text!r} ({exc})") \
            from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="log files or folders")
    parser.add_argument("--follow", action="store_true",
                        help="keep following the PATHs: store each new hand once it is complete, until Ctrl-C or "
                             "SIGTERM (see above)")
    parser.add_argument("--poll", type=arguments.seconds, default=0.25, metavar="SECONDS",
                        help="--follow: seconds between two looks at the files (default 0.25)")
    parser.add_argument("--quiet", type=arguments.seconds, default=0.75, metavar="SECONDS",
                        help="--follow: seconds a file must stay unchanged before the hand it ends in is taken "
                             "as complete, if it parses whole (default 0.75; a hand followed by the next "
                             "hand's start is complete at once)")
    parser.add_argument("--db", metavar="FILE", default=None, help="database file (default: [database] path)")
    parser.add_argument("--network", default=None,
                        help="network the players are known on (default: irc1995, acpc, phh, or the room: stars, "
                             "ftp, ipoker, party, ongame, absolute, cake, bovada, winamax, 888, winning, swc)")
    parser.add_argument("--strict", action="store_true", help="stop at the first problem instead of skipping it")
    parser.add_argument("--predict", action="store_true", help="score the opponent model's predictions (shadow mode)")
    parser.add_argument("--workers", type=_positive, default=None,
                        help="processes reading and tracking hands (default: the number of CPUs); with "
                             "--cluster local, the local cluster's worker processes")
    parser.add_argument("--cluster", metavar="ADDRESS", default=None,
                        help="read and track the chunks on a Dask cluster: a scheduler address "
                             "(tcp://HOST:8786; the logs must be at the same paths on its workers) or 'local' "
                             "for worker processes on this machine (pip install 'poki[cluster]'); this "
                             "process still writes every hand, in log order")
    parser.add_argument("--cluster-timeout", type=arguments.seconds, default=20.0, metavar="SECONDS",
                        help="seconds to wait for the cluster's scheduler to answer (default 20)")
    parser.add_argument("--chunk", type=_positive, default=1000, help="hands per chunk of work (default 1000)")
    parser.add_argument("--game", metavar="FILE", default=None, help="ACPC game definition for every ACPC log")
    parser.add_argument("--blinds", type=_pair, default=None, metavar="SB/BB", help="ACPC logs: blinds, e.g. 5/10")
    parser.add_argument("--bets", type=_pair, default=None, metavar="SMALL/BIG", help="ACPC logs: bets, e.g. 10/20")
    parser.add_argument("--cap", type=arguments.whole(1, MAX_BETS, "bets a round"), default=None, metavar="N",
                        help="ACPC logs: bets a round, the big blind the first pre-flop (e.g. 4)")
    parser.add_argument("--min-hands", type=int, default=500, metavar="N",
                        help="--predict: players with this many hands are also scored as a group (default 500)")
    parser.add_argument("--since", type=_date, default=None, metavar="DATE",
                        help="only hands started at or after DATE (YYYY-MM-DD or YYYY-MM-DDTHH:MM, UTC); "
                             "hands outside are counted and left alone")
    parser.add_argument("--until", type=_date, default=None, metavar="DATE",
                        help="only hands started before DATE (UTC), e.g. learn a month up to a cut date "
                             "and score the rest with --predict --since")
    parser.add_argument("--strengths", type=_strengths, default=None, metavar="P,C,F[,H]",
                        help="back-off pseudo-counts: population, coarse, fine (and the population's "
                             "half-life in hands); default: those fitted in docs/prediction.md")
    parser.add_argument("--ranges", type=_range_settings, default=None, metavar="PLAYER,POPULATION",
                        help="--predict: pseudo-counts of the learned ranges' back-off (the population's shape in "
                             "a player's rows, the flat shape in the population's); default: those fitted in "
                             "docs/prediction.md")
    parser.add_argument("--tune", action="store_true",
                        help="with --predict: fit the back-off strengths to these hands (scored from the "
                             "models stored in --db) and print them; nothing is stored")
    parser.add_argument("--skipped", metavar="FILE", default=None,
                        help="write every skipped hand as a line: where, reason (tab-separated)")
    parser.add_argument("--json", action="store_true", help="print the summary (and scores) as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from agent.play.offline.replay import ReplayOptions
    from connectors.logs.sources import AcpcSettings

    settings = args.settings
    acpc = AcpcSettings(
        game_file=args.game,
        small_blind=args.blinds[0] if args.blinds else None,
        big_blind=args.blinds[1] if args.blinds else None,
        small_bet=args.bets[0] if args.bets else None,
        big_bet=args.bets[1] if args.bets else None,
        max_bets=args.cap,
    )
    db_path = args.db or settings.database.path
    if args.cluster:
        # Workers on this machine look stored hands up in the file: the same file wherever
        # their working directory is.
        db_path = os.path.abspath(db_path)
    options = ReplayOptions.from_settings(
        settings,
        db_path,
        network=args.network,
        strict=args.strict,
        predict=args.predict,
        workers=args.workers or os.cpu_count() or 1,
        chunk_hands=args.chunk,
        acpc=acpc,
        min_hands=args.min_hands,
        since=args.since,
        until=args.until,
        tune=args.tune,
        **({"strengths": args.strengths} if args.strengths is not None else {}),
        **({"ranges": args.ranges} if args.ranges is not None else {}),
    )
    if args.tune and not args.predict:
        print("poki replay: --tune needs --predict", file=sys.stderr)
        return 2
    for path in args.paths:
        if not os.path.lexists(path):  # a link loop exists (it is reported as one, not as missing)
            print(f"poki replay: no such file or folder: {path}", file=sys.stderr)
            return 2
    if args.game is not None and not os.path.isfile(args.game):
        print(f"poki replay: no such game definition: {args.game}", file=sys.stderr)
        return 2
    reads = [(f"the input {path}", path) for path in args.paths] + [(f"the game definition {args.game}", args.game)]
    if outputs_refused("replay", args, {"--skipped": args.skipped}, reads, db=db_path):
        return 2
    if args.follow:
        refused = [name for name, given in (("--cluster", args.cluster), ("--predict", args.predict),
                                            ("--tune", args.tune), ("--strict", args.strict),
                                            ("--workers", args.workers)) if given]
        if refused:
            print(f"poki replay: --follow reads and stores in this one process: not with {', '.join(refused)}",
                  file=sys.stderr)
            return 2
        return _follow(args, options)

    try:
        cluster = open_cluster(args, "replay")
    except NoCluster:
        return 2
    if cluster is not None:
        import dataclasses

        options = dataclasses.replace(options, workers=cluster.threads)
    try:
        return _replay(args, options, cluster)
    finally:
        if cluster is not None:
            cluster.close()


def _replay(args: argparse.Namespace, options: Any, cluster: Any) -> int:
    from contextlib import ExitStack, nullcontext

    from agent.play.offline.replay import ReplayWorkerError
    from connectors.acpc.game import GameError
    from db.database import DatabaseError

    expected: tuple[type[Exception], ...] = (FileNotFoundError, GameError, DatabaseError, ReplayWorkerError)
    pool_context: Any = nullcontext(None)
    if cluster is not None:
        from agent.play.offline.cluster import ClusterError, ReplayPool

        expected += (ClusterError,)
        pool_context = ReplayPool(cluster, args.paths)
    with ExitStack() as outputs:
        try:
            on_problem = _skipped_sink(args, outputs)
        except OSError:
            return 2
        return _replay_into(args, options, pool_context, expected, on_problem)


def _skipped_sink(args: argparse.Namespace, stack: Any) -> Callable[[Any], None] | None:
    """--skipped FILE: every skipped hand written as it is met (the summary keeps only the
    first ones), into a file renamed into place at the end, whatever the exit (closed by
    ``stack``); None without --skipped. OSError, said here, when it cannot be made."""
    from agent.outputs import write_output

    if not args.skipped:
        return None
    try:
        skipped_file = stack.enter_context(write_output(args.skipped))
    except OSError as exc:
        print(f"poki replay: --skipped {args.skipped}: {exc.strerror or exc}", file=sys.stderr)
        raise

    def on_problem(p: Any) -> None:
        skipped_file.write(f"{p.where}\t{p.reason}\n")
    return on_problem


def _replay_into(args: argparse.Namespace, options: Any, pool_context: Any, expected: tuple[type[Exception], ...],
                 on_problem: Any) -> int:
    from agent.play.offline.replay import replay
    from connectors.acpc.game import GameError
    from db.database import DatabaseWriteError

    bar = None
    progress = on_total = None
    if not args.no_progress:
        from tqdm import tqdm

        # No monitor thread: the worker processes are forked, best from a single thread.
        tqdm.monitor_interval = 0
        bar = tqdm(total=0, unit="hand", file=sys.stderr, disable=None, smoothing=0.1)

        def on_total(total: int) -> None:
            bar.total = total
            bar.refresh()

        progress = bar.update
    try:
        with pool_context as pool:
            summary = replay(args.paths, options, progress=progress, on_total=on_total, pool=pool,
                             on_problem=on_problem)
    except expected as exc:
        print(f"poki replay: {exc}", file=sys.stderr)
        if isinstance(exc, DatabaseWriteError):
            print("poki replay: every hand stored before this is kept; the same command resumes where it stopped",
                  file=sys.stderr)
        return 2 if isinstance(exc, (FileNotFoundError, GameError)) else 1
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(json.dumps(summary.to_json(), indent=2))
    else:
        print(summary.format())
        if summary.prediction is not None:
            from agent.play.offline.shadow import format_report, format_tuning

            print()
            print(format_tuning(summary.prediction) if args.tune else format_report(summary.prediction))
    if summary.stopped is not None:
        print(f"poki replay: stopped at the first problem: {summary.stopped}", file=sys.stderr)
        return 1
    if summary.files_not_read and not summary.files_read:
        # Asked to read files, and none was one we read: not a run that did nothing quietly.
        print(f"poki replay: none of the {summary.files_not_read:,} files met is a log poki reads "
              "(each is named above)", file=sys.stderr)
        return 1
    return 0


def _follow(args: argparse.Namespace, options: Any) -> int:
    """``--follow``: look and store until Ctrl-C or SIGTERM, then say what was stored."""
    import signal
    import threading
    import time
    from contextlib import ExitStack

    from agent.play.offline.follow import Follower, FollowSettings
    from agent.play.offline.replay import ReplaySummary
    from connectors.acpc.game import GameError
    from db.database import DatabaseError

    try:
        settings = FollowSettings(poll=args.poll, quiet=args.quiet)
    except ValueError as exc:
        print(f"poki replay: {exc}", file=sys.stderr)
        return 2
    stop = threading.Event()
    stopped_by: list[str] = []

    def on_signal(number: int, _frame: Any) -> None:
        stopped_by.append(signal.Signals(number).name)
        stop.set()

    def say(text: str) -> None:
        if not args.no_progress:
            print(text, file=sys.stderr, flush=True)

    with ExitStack() as stack:
        try:
            on_problem = _skipped_sink(args, stack)
        except OSError:
            return 2
        follower = Follower(args.paths, options, settings, on_problem=on_problem)

        def on_batch(s: ReplaySummary) -> None:
            say(f"{time.strftime('%H:%M:%S')} stored {s.stored:,} (read {s.read:,}, already stored {s.duplicates:,}, "
                f"skipped {s.skipped:,}); {follower.totals.stored:,} stored since the start")

        previous = {n: signal.signal(n, on_signal) for n in (signal.SIGINT, signal.SIGTERM)}
        for number, handler in previous.items():
            stack.callback(signal.signal, number, handler)
        say(f"poki replay --follow: following {', '.join(args.paths)} into {options.db_path}: a look every "
            f"{settings.poll:g} s, a file's last hand taken once it is {settings.quiet:g} s quiet and parses whole; "
            "Ctrl-C or SIGTERM stops")
        try:
            totals = follower.run(stop, on_batch=on_batch, on_note=lambda note: say(f"poki replay --follow: {note}"))
        except (DatabaseError, GameError) as exc:
            print(f"poki replay: {exc}", file=sys.stderr)
            print(f"poki replay: stored {follower.totals.stored:,} hands before this; the same command goes on "
                  "where it stopped", file=sys.stderr)
            return 1
    totals.stopped_by = stopped_by[0] if stopped_by else None
    if args.json:
        print(json.dumps(totals.to_json(), indent=2))
    else:
        print(totals.format())
    return 0
