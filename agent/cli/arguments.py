"""Option types of the command line: each value is checked by type and range where it is
read, so a bad one is a usage error (exit 2) naming the option, never a match that runs
on nonsense (a negative or NaN time-out) or a traceback later."""
from __future__ import annotations

import argparse
import math

from agent.config import MAX_CHIPS, MAX_SEED

__all__ = ["count", "listen_port", "port", "positive_count", "seconds", "seed"]


def _whole(text: str, low: int, high: int, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"expected {what} from {low:,} to {high:,}, got {value:,}")
    return value


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
    if not (math.isfinite(value) and 0 < value <= 365 * 86400):
        raise argparse.ArgumentTypeError(f"expected seconds above 0 (and at most a year), got {text!r}")
    return value
