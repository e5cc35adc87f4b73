"""Play a match between Poki and house bots in the in-process dealer: a duplicate
tournament by default ([loki2-1999], [testbed-1998]: every deal replayed with the seats rotated so
each player holds every hand once), results in small bets per hand with 95% intervals.

Players are specs, one per seat: rr, call, raise, random, tight-aggressive,
loose-passive(vpip=0.5), hero=rr(trials=2000), ... (`--list` shows every kind and its
settings). Blinds, bets and stacks come from the [table] section of the config.

Example: poki match rr call --deals 2000 --seed 1

With --cluster ADDRESS the batches of deals run as tasks on a Dask cluster (a scheduler's
tcp://HOST:PORT, or `local` for worker processes on this machine; needs the `cluster`
extra): the results and logs are those of a run in one process (docs/scale.md).

With --db FILE the players that model opponents read their models from that SQLite file
and every hand is written to it, so a second match with the same file starts from what
the first one learned.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from agent.cli import arguments
from agent.cli.cluster_option import NoCluster, open_cluster

if TYPE_CHECKING:
    from agent.play.offline.tournament import TournamentSetup


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("specs", nargs="*", metavar="SPEC",
                        help="one player spec per seat (2-10), e.g. rr call 'loose-passive(vpip=0.5)'")
    parser.add_argument("--deals", type=arguments.positive_count, default=1000, help="deals to play (default 1000)")
    parser.add_argument("--seed", type=arguments.seed, default=None,
                        help="seed of the cards, seatings and players (default: [random] seed)")
    parser.add_argument("--duplicate", action=argparse.BooleanOptionalAction, default=True,
                        help="replay every deal once per seat rotation (default: on)")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes to play batches of deals in (default 1; with --cluster local: "
                             "the local cluster's worker processes, default the number of CPUs)")
    parser.add_argument("--chunk", type=int, default=50,
                        help="deals per batch; results depend on it, not on --workers (default 50)")
    parser.add_argument("--cluster", metavar="ADDRESS", default=None,
                        help="run the batches on a Dask cluster: a scheduler address (tcp://HOST:8786) or "
                             "'local' for a cluster of worker processes on this machine "
                             "(pip install 'poki[cluster]'); same results as one process")
    parser.add_argument("--cluster-timeout", type=arguments.seconds, default=20.0, metavar="SECONDS",
                        help="seconds to wait for the cluster's scheduler to answer (default 20)")
    parser.add_argument("--name", default="match", help="match name in hand ids and logs")
    parser.add_argument("--db", metavar="FILE",
                        help="SQLite database (made if missing) the players read opponent models from "
                             "and every hand is written to, so models carry over from match to match "
                             "(batches then run in order in one process)")
    parser.add_argument("--log-acpc", metavar="FILE", help="write every hand as ACPC STATE: lines")
    parser.add_argument("--log-phh", metavar="DIR", help="write every hand as PHH (.phhs files)")
    parser.add_argument("--csv", metavar="FILE", help="write raw per-hand results as CSV")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--json-hands", action="store_true",
                        help="with --json, include raw per-hand results")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--list", action="store_true", help="list the player kinds and exit")


def _list_kinds() -> str:
    from agent.players import known_kinds

    lines = []
    for name, kind in known_kinds().items():
        lines.append(f"{name}: {kind.help}")
        for key, param in kind.params.items():
            lines.append(f"    {key} = {param.default!r}  {param.help}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    from agent.play.offline.tournament import TournamentSetup
    from agent.players import SpecError

    if args.list:
        print(_list_kinds())
        return 0
    if not 2 <= len(args.specs) <= 10:
        print(f"poki match: give 2-10 player specs, got {len(args.specs)}", file=sys.stderr)
        return 2
    if args.deals < 1 or (args.workers is not None and args.workers < 1) or args.chunk < 1:
        print("poki match: --deals, --workers and --chunk must be at least 1", file=sys.stderr)
        return 2
    if args.db and ((args.workers or 1) > 1 or args.cluster):
        print("poki match: --db plays the batches in order in one process; drop --workers and --cluster",
              file=sys.stderr)
        return 2
    seed = args.settings.random.seed if args.seed is None else args.seed
    table = dataclasses.replace(args.settings.table, seats=len(args.specs))
    try:
        setup = TournamentSetup.from_text(args.specs, table, seed, duplicate=args.duplicate,
                                          chunk=args.chunk, name=args.name, db=args.db,
                                          half_life=args.settings.model.half_life_hands)
    except (SpecError, ValueError) as exc:
        print(f"poki match: {exc}", file=sys.stderr)
        return 2
    if arguments.outputs_refused("match", args, {"--csv": args.csv, "--log-acpc": args.log_acpc}, db=args.db):
        return 2
    if args.log_acpc:
        from connectors.logs.acpc_log import match_name_problem

        problem = match_name_problem(args.name)
        if problem is not None:
            print(f"poki match: --name: {problem}", file=sys.stderr)
            return 2
    if args.log_phh:
        try:  # the folder of PHH logs, made before the match rather than found unusable after it
            os.makedirs(args.log_phh, exist_ok=True)
        except OSError as exc:
            print(f"poki match: --log-phh {args.log_phh}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    try:
        cluster = open_cluster(args, "match")
    except NoCluster:
        return 2
    try:
        return _play(args, setup, cluster)
    finally:
        if cluster is not None:
            cluster.close()


def _play(args: argparse.Namespace, setup: TournamentSetup, cluster: Any) -> int:
    from agent.play.offline.tournament import run_tournament

    bar = None
    progress = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=args.deals * setup.rotations, unit="hand", file=sys.stderr,
                   disable=None)
        progress = bar.update
    try:
        result = run_tournament(setup, args.deals, workers=args.workers or 1,
                                log_acpc=args.log_acpc, log_phh=args.log_phh,
                                progress=progress, cluster=cluster)
    except Exception as exc:
        from db import DatabaseError

        expected: tuple[type[Exception], ...] = (DatabaseError,)
        if cluster is not None:
            from agent.play.offline.cluster import ClusterError

            expected += (ClusterError,)  # the cluster failed under the run (scheduler lost, ...)
        if not isinstance(exc, expected):
            raise
        print(f"poki match: {exc}", file=sys.stderr)
        return 2
    finally:
        if bar is not None:
            bar.close()
    if args.csv:
        try:
            result.write_csv(args.csv)
        except OSError as exc:  # checked writable before the match; the disk may have filled since
            print(f"poki match: --csv {args.csv}: {exc.strerror or exc}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(result.to_json(hands=args.json_hands), indent=2))
    else:
        print(result.format_table())
    if result.rejected_hands:
        print(f"poki match: {result.rejected_hands} hand(s) were NOT stored in {args.db}: the database refused them",
              file=sys.stderr)
        return 1
    return 0
