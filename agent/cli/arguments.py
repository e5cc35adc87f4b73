"""Option types of the command line: each value is checked by type and range where it is
read, so a bad one is a usage error (exit 2) naming the option, never a match that runs
on nonsense (a negative or NaN time-out) or a traceback later."""
from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from agent.config import MAX_CHIPS, MAX_SECONDS, MAX_SEED

__all__ = ["count", "listen_port", "outputs_refused", "port", "positive_count", "seconds", "seed", "whole"]


def _whole(text: str, low: int, high: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected {what} from {low:,} to {high:,}, got {value:,}")
    return value


def whole(low: int, high: int, what: str) -> Callable[[str], int]:
    """An option type: a whole number from ``low`` to ``high`` (``what`` it counts)."""
    def parse(text: str) -> int:
        return _whole(text, low, high, what)
    return parse


def port(text: str) -> int:
    """A TCP port to connect to: 1-65535."""
    return _whole(text, 1, 65535, "a port number")


def listen_port(text: str) -> int:
    """A TCP port to listen on: 1-65535, or 0 for any free port."""
    return _whole(text, 0, 65535, "a port number (0: any free port)")


def seed(text: str) -> int:
    """A seed: a whole number the generators and the database all take."""
    return _whole(text, 0, MAX_SEED, "a whole-number seed")


def count(text: str) -> int:
    """A number of things (hands, deals): 0 or more."""
    return _whole(text, 0, MAX_CHIPS, "a whole number")


def positive_count(text: str) -> int:
    """A number of things that must be at least one."""
    return _whole(text, 1, MAX_CHIPS, "a whole number")


def seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero (and below a year)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(f"expected seconds above 0 (and at most a year), got {text!r}")
    return value


def outputs_refused(command: str, args: argparse.Namespace, outputs: Mapping[str, str | Path | None],
                    reads: Sequence[tuple[str, str | Path | None]] = (), db: str | Path | None = None) -> bool:
    """Check a command's output files before any work (agent.outputs.check_outputs):
    against ``db`` (its database and SQLite's files beside it), ``reads`` (what, path)
    and the config file. True, with the reason on stderr (a usage error, exit 2), when one
    may not be written."""
    from agent.config import DEFAULT_PATH
    from agent.outputs import OutputError, check_outputs, database_files

    config = args.config or DEFAULT_PATH  # the file the settings came from, if it exists
    guarded: list[tuple[str, str | Path | None]] = [(f"the database {db}", path) for path in database_files(db)]
    guarded += [*reads, (f"the config file {config}", config)]
    try:
        check_outputs(outputs, guarded)
    except OutputError as exc:
        print(f"poki {command}: {exc}", file=sys.stderr)
        return True
    return False
