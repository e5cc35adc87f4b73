"""The `poki` command: one sub-command per job.

Each sub-command lives in its own module and is imported only when run, so `poki --help`
stays instant and a job's heavy imports (numpy tables, sqlite, irc) are paid by that job.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

# numpy's OpenBLAS starts a thread per CPU that spins for a while whenever it wakes; Poki's
# arrays are small, so those threads only take CPU time from the replay and match workers.
# Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# name -> (module, help). Each module has `add_arguments(parser)` and `run(args) -> int`.
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("agent.cli.demo", "Poki on IRC on this machine: a loopback IRC server, the dealer bot, Poki and house bots; what the database learned; the report (--offline: match and log replay)"),
    "info": ("agent.cli.info", "show the version, the evaluator backend and the config in use"),
    "bench": ("agent.cli.bench", "measure the speed figures of DESIGN.md (evaluator, ...)"),
    "db": ("agent.cli.db", "the opponent database: stats, one player's model, recompute, check"),
    "tables": ("agent.cli.tables", "pre-flop income-rate tables: build them by (iterated) roll-outs, or show them"),
    "match": ("agent.cli.match", "play house bots (and Poki) in duplicate tournaments: sb/hand with 95%% intervals"),
    "report": ("agent.cli.report", "the opponent report: HUD statistics with sample sizes, charts, CSV and JSON; --schedule runs it nightly"),
    "acpc": ("agent.cli.acpc", "play at an ACPC dealer (poki acpc play HOST PORT) or host one (poki acpc deal)"),
    "replay": ("agent.cli.replay", "replay hand logs (IRC database, ACPC, PHH) into the opponent database; --predict scores the models"),
    "irc": ("agent.cli.irc", "IRC poker: host tables (deal), sit Poki at them (play), run a local IRC server"),
    "train-cfr": ("agent.cli.train_cfr", "solve heads-up limit hold'em in an abstract game by CFR+: the strategy file of the cfr player, exploitability after each batch"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="poki",
        description="Poki: a limit Texas Hold'em agent re-created from the University of "
        "Alberta's Poki papers.",
    )
    parser.add_argument(
        "--config",
        default=None,
        metavar="FILE",
        help="settings file (default: config.toml in the working directory, else built-in defaults)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(name, help=help_text, description=module.__doc__)
        module.add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from agent.config import ConfigError, load_config

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        args.settings = load_config(args.config)
    except ConfigError as exc:
        print(f"poki: {exc}", file=sys.stderr)
        return 2
    # The player kinds, Poki's defaults from these settings (the registry is filled from
    # here, above every layer; a parsed spec then carries every setting of its player).
    from agent.play.kinds import install_kinds

    install_kinds(args.settings)
    try:
        return int(args._module.run(args) or 0)
    except KeyboardInterrupt:
        print("poki: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into a reader that stopped early (`poki ... | head`): not a failure.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0

