"""Measure Poki's speed figures (the targets in docs/architecture.md) on this machine, one core.

Every figure is a median over repeats, printed beside the anchor package's figure measured
in the same run where that package is installed. These are measurements, not pass/fail
checks: machines are shared and noisy, so compare ratios rather than absolute times.
"""
from __future__ import annotations

import argparse
import json
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from agent.bench import ON_REQUEST, SECTIONS

    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a rough figure fast)")
    parser.add_argument(
        "--only",
        metavar="SECTIONS",
        help=f"comma-separated sections to run (default all but {', '.join(ON_REQUEST)}): {', '.join(SECTIONS)}",
    )


def run(args: argparse.Namespace) -> int:
    from agent import bench

    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    try:
        figures = bench.run_all(
            args.settings, quick=args.quick, only=only, progress=lambda name: print(f"measuring {name} ...", file=sys.stderr)
        )
    except ValueError as exc:
        print(f"poki bench: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(figures, indent=2, default=float))
    else:
        print(bench.format_table(figures))
    return 0
