"""Measure Poki's speed figures (the table in DESIGN.md) on this machine, one core.

Every figure is a median over repeats, printed beside the anchor package's figure measured
in the same run where that package is installed. These are measurements, not pass/fail
checks: machines are shared and noisy, so compare ratios rather than absolute times.
"""
from __future__ import annotations

import argparse
import json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer repeats (a rough figure fast)")


def run(args: argparse.Namespace) -> int:
    from agent import bench

    figures = bench.run_all(quick=args.quick)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        print(bench.format_table(figures))
    return 0
