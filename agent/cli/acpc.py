"""Play at an ACPC dealer, or host one (the ACPC dealer protocol 2.0.0 of the Annual
Computer Poker Competition, limit hold'em for 2-10 players).

  poki acpc play HOST PORT [--player SPEC]      sit a player (default Poki) at any ACPC
                                                dealer: project_acpc_server's `dealer`
                                                or ours; finished hands go to the
                                                opponent database
  poki acpc deal --players A B [--seat SPEC]    host a match: prints the listening ports
                                                on its first line (as the ACPC dealer),
                                                writes an ACPC log that `poki replay` reads

Example, Poki against a house bot through our dealer, in two terminals:

  poki acpc deal --hands 1000 --seed 7 --players poki rr --seat rr --log match.log
  poki acpc play 127.0.0.1 PORT --name poki

or both in-process, with nobody connecting: poki acpc deal --players poki rr --seat poki --seat rr
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from contextlib import ExitStack

from agent.cli import arguments

STANDARD_HEADS_UP = "holdem.limit.2p.reverse_blinds.game"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="acpc_command", metavar="ACTION", required=True)
    play = sub.add_parser(
        "play", help="play at an ACPC dealer until it ends the match",
        description="Connect to an ACPC dealer, greet, play every hand it deals, store them in "
                    "the opponent database, print our result when the dealer closes the match.")
    play.add_argument("host", metavar="HOST", help="the dealer's address, e.g. 127.0.0.1")
    play.add_argument("port", metavar="PORT", type=arguments.port, help="the port the dealer printed for our seat")
    play.add_argument("--player", metavar="SPEC", default="poki",
                      help="who plays (a player spec, see `poki match --list`; default poki)")
    play.add_argument("--game", metavar="FILE", default=STANDARD_HEADS_UP,
                      help="the ACPC game definition the dealer uses, or a standard game name "
                           f"(default {STANDARD_HEADS_UP})")
    play.add_argument("--name", default="poki", help="our name in the hands stored (default poki)")
    play.add_argument("--opponents", nargs="+", metavar="NAME", default=(),
                      help="names of the other seats, starting with the seat after ours "
                           "(the protocol gives none; default acpc:1, acpc:2, ...)")
    play.add_argument("--db", metavar="FILE", default=None,
                      help="opponent database (default: [database] path)")
    play.add_argument("--no-db", action="store_true", help="store nothing")
    play.add_argument("--seed", type=arguments.seed, default=None, help="seed of the player's choices (default: [random] seed)")
    play.add_argument("--match", default=None, help="match name in hand ids (default: host, port and start time)")
    play.add_argument("--dealer-timeout", type=arguments.seconds, default=None, metavar="S",
                      help="seconds the dealer may send nothing before we give the match up "
                           "(default: [acpc] dealer_timeout)")
    play.add_argument("--cpu", type=int, default=None, metavar="N",
                      help="run on CPU N only (a dealer on this machine is best given the same N: "
                           "the two sides take turns, and one core hands over faster than two)")
    play.add_argument("--no-progress", action="store_true", help="no progress bar")
    play.add_argument("-v", "--verbose", action="store_true", help="log every warning to stderr")

    deal = sub.add_parser(
        "deal", help="host an ACPC dealer: remote players connect, in-process ones are seated",
        description="Deal a limit hold'em match by the ACPC protocol. The first line of output "
                    "lists the port of each remote seat, in seat order; each player connects "
                    "to its port. Positions rotate every hand as the ACPC dealer rotates them.")
    deal.add_argument("--players", nargs="+", metavar="NAME", required=True,
                      help="the seats' names, in seat order (as many as the game has players)")
    deal.add_argument("--seat", action="append", default=[], metavar="SPEC",
                      help="play a seat in-process: a player spec labelled with the seat's name "
                           "(bob=rr) or named like it (rr takes the seat named rr); repeatable")
    deal.add_argument("--game", metavar="FILE", default=None,
                      help="ACPC game definition or standard game name (default: the standard "
                           "limit game for the number of players)")
    deal.add_argument("--hands", type=arguments.count, default=1000, help="hands to deal (default 1000)")
    deal.add_argument("--seed", type=arguments.seed, default=None, help="seed of the cards (default: [random] seed)")
    deal.add_argument("--port", type=arguments.listen_port, nargs="+", default=(), metavar="P",
                      help="listening port of each remote seat, in seat order (default: any free port)")
    deal.add_argument("--host", default=None, help="address to listen on (default: [acpc] host, loopback)")
    deal.add_argument("--log", metavar="FILE", default=None, help="write the match log (ACPC STATE:/SCORE: lines)")
    deal.add_argument("--match", default="poki", help="match name in the log and hand ids (default poki)")
    deal.add_argument("--t-response", type=arguments.seconds, default=None, metavar="S",
                      help="seconds for one answer before it is taken as a call (default: [acpc])")
    deal.add_argument("--t-per-hand", type=arguments.seconds, default=None, metavar="S",
                      help="seconds per hand a seat may use over the match before it is folded "
                           "for the rest of it (default: [acpc])")
    deal.add_argument("--cpu", type=int, default=None, metavar="N",
                      help="run on CPU N only (give a player on this machine the same N: see "
                           "`poki acpc play --help`)")
    deal.add_argument("--no-progress", action="store_true", help="no progress bar")
    deal.add_argument("-v", "--verbose", action="store_true", help="log every warning to stderr")


def _load_game(text: str | None, players: int | None, command: str):
    from connectors.acpc.game import GameError, parse_game, standard_game

    if text is None:
        n = players or 2
        text = STANDARD_HEADS_UP if n == 2 else f"holdem.limit.{n}p.game"
    if os.path.isfile(text):
        try:
            with open(text, encoding="utf-8", errors="replace") as handle:
                return parse_game(handle.read(), text), os.path.basename(text)
        except (GameError, OSError) as exc:
            raise SystemExit(f"poki acpc {command}: {exc}") from None
    game = standard_game(os.path.basename(text))
    if game is None:
        raise SystemExit(f"poki acpc {command}: no such game definition: {text} (give a file, or a "
                         "standard name like holdem.limit.3p.game)")
    return game, os.path.basename(text)


def pin_to_cpu(cpu: int | None, command: str) -> None:
    """Keep this process on one CPU. A match is a strict back-and-forth, so a dealer and
    a player on the same machine never run at once: on one core each hand-over is a
    switch between two warm processes, across two it is a wake-up of another core
    (docs in README, "Sit at an ACPC dealer")."""
    if cpu is None:
        return
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if cpu not in allowed:
        raise SystemExit(f"poki acpc {command}: --cpu {cpu}: this process may run on CPUs "
                         f"{', '.join(map(str, allowed)) or '(unknown)'}")
    os.sched_setaffinity(0, {cpu})


def _logging(verbose: bool) -> None:
    logging.basicConfig(level=logging.WARNING if verbose else logging.ERROR,
                        format="poki: %(message)s", stream=sys.stderr)


def run(args: argparse.Namespace) -> int:
    try:
        return _play(args) if args.acpc_command == "play" else _deal(args)
    except SystemExit as exc:
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
            return 2
        raise


def _progress(disabled: bool, total: int | None, unit: str):
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, disable=disabled or not sys.stderr.isatty(),
                file=sys.stderr, dynamic_ncols=True)


def _play(args: argparse.Namespace) -> int:
    from agent.models.store import StoreError
    from agent.play.acpc.match import play_at_dealer
    from agent.play.seat import table_generator
    from agent.players import SpecError, create_player
    from db.database import DatabaseError

    _logging(args.verbose)
    pin_to_cpu(args.cpu, "play")
    game, _ = _load_game(args.game, None, "play")
    settings = args.settings
    seed = settings.random.seed if args.seed is None else args.seed
    try:
        player = create_player(args.player, table_generator(seed), args.name)
    except SpecError as exc:
        print(f"poki acpc play: {exc}", file=sys.stderr)
        return 2
    if len(args.opponents) > (game.players or 2) - 1:
        print(f"poki acpc play: {len(args.opponents)} opponent names for a "
              f"{game.players}-player game", file=sys.stderr)
        return 2
    db_path = None if args.no_db else (args.db or settings.database.path)
    config = settings.acpc
    if args.dealer_timeout is not None:
        import dataclasses

        config = dataclasses.replace(config, dealer_timeout=args.dealer_timeout)
    with _progress(args.no_progress, None, "hand") as bar:
        try:
            result = play_at_dealer(args.host, args.port, player, game, config=config,
                                    db_path=db_path, settings=settings, names=args.opponents,
                                    match=args.match, progress=bar.update,
                                    on_ready=lambda text: print(text, flush=True))
        except (ConnectionError, ValueError, DatabaseError, StoreError) as exc:
            print(f"poki acpc play: {exc}", file=sys.stderr)
            return 1
    print(result.summary(args.name))
    if db_path is not None:
        print(f"{result.stored} hands stored in {db_path} (network acpc)")
        if result.stats.not_stored:
            print(f"poki acpc play: {result.stats.not_stored} of {result.hands} finished hands were NOT stored; "
                  f"the last: {result.stats.last_storage_error}", file=sys.stderr)
    # Success only for a whole match: at least one hand, closed by the dealer between
    # hands, every hand followed to its end and stored.
    failure = result.failure()
    if failure is not None:
        print(f"poki acpc play: {failure}", file=sys.stderr)
        return 1
    return 0


def _deal(args: argparse.Namespace) -> int:
    from agent.outputs import write_output
    from agent.play.acpc.dealer import DealerError, DealerLimits
    from agent.play.acpc.match import host_match
    from agent.players import SpecError, parse_spec

    _logging(args.verbose)
    pin_to_cpu(args.cpu, "deal")
    names = list(args.players)
    game, game_name = _load_game(args.game, len(names), "deal")
    settings = args.settings
    seats: dict[int, str] = {}
    for text in args.seat:
        try:
            spec = parse_spec(text)
        except SpecError as exc:
            print(f"poki acpc deal: {exc}", file=sys.stderr)
            return 2
        name = spec.label or spec.kind
        if name not in names:
            print(f"poki acpc deal: --seat {text}: no seat named {name!r} in --players "
                  f"({', '.join(names)})", file=sys.stderr)
            return 2
        index = names.index(name)
        if index in seats:
            print(f"poki acpc deal: seat {name!r} is given twice", file=sys.stderr)
            return 2
        seats[index] = text
    config = settings.acpc
    limits = DealerLimits(
        args.t_response if args.t_response is not None else config.response_timeout,
        args.t_per_hand if args.t_per_hand is not None else config.budget_per_hand,
        config.connect_timeout or None, config.max_line_bytes, config.greet_timeout)
    seed = settings.random.seed if args.seed is None else args.seed

    def announce(ports: list[int]) -> None:
        if ports:
            print(" ".join(str(p) for p in ports), flush=True)

    from connectors.logs.acpc_log import match_name_problem

    problem = match_name_problem(args.match)
    if problem is not None:
        print(f"poki acpc deal: --match: {problem}", file=sys.stderr)
        return 2
    game_file = args.game if args.game is not None and os.path.isfile(args.game) else None
    if arguments.outputs_refused("acpc deal", args, {"--log": args.log}, [(f"the game definition {game_file}", game_file)]):
        return 2
    try:
        with ExitStack() as files:
            # Renamed into place when the match is over; a match that fails leaves an
            # earlier file of that name as it was.
            log_file = files.enter_context(write_output(args.log, encoding="ascii")) if args.log else None
            with _progress(args.no_progress, args.hands, "hand") as bar:
                outcome, stats = host_match(
                    game, names, args.hands, seed, seats=seats, config=config, host=args.host,
                    ports=args.port, log_file=log_file, game_name=game_name, match_name=args.match,
                    on_listen=announce, progress=bar.update, limits=limits)
    except (DealerError, OSError, ValueError) as exc:
        print(f"poki acpc deal: {exc}", file=sys.stderr)
        return 1
    hands = outcome.hands
    for report in outcome.seats:
        sb = report.total / (hands * game.small_bet) if hands else 0.0
        line = f"{report.name}: {report.total:+d} chips, {sb:+.3f} sb/hand"
        problems = []
        for what, count in (("invalid actions", report.invalid), ("time-outs", report.timeouts),
                            ("ignored lines", report.ignored), ("over-long lines", report.dropped)):
            if count:
                problems.append(f"{count} {what}")
        if report.disconnected:
            problems.append("disconnected")
        if report.folded_out:
            problems.append(f"folded out: {report.folded_out}")
        if problems:
            line += " (" + ", ".join(problems) + ")"
        print(line)
    print(f"SCORE:{'|'.join(str(r.total) for r in outcome.seats)}:{'|'.join(names)}")
    return 0
