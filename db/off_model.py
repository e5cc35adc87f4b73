"""Off-model counts in the database (migration m005): for each (network, nick), the calls
and bets/raises seen at that player's showdowns and how many of each came from holdings
the threshold model gave a low factor. The engine's learned re-weighting floor
(agent.engine.modeler.learned_eps, ``[engine] floor_on = "learned"``) reads them at the
start of a hand, so a regular's ε carries over from one session to the next.
"""
from __future__ import annotations

import math
import sqlite3
from collections.abc import Sequence

__all__ = ["add_off_model", "check_counts", "read_off_model"]

ZERO = (0.0, 0.0, 0.0, 0.0)


def check_counts(counts: Sequence[float], source: str) -> tuple[float, float, float, float]:
    """(n_call, k_call, n_raise, k_raise) as floats; ValueError naming `source` unless each
    is a finite count ≥ 0 with k ≤ n."""
    if len(counts) != 4:
        raise ValueError(f"{source}: off-model counts need 4 numbers, got {len(counts)}")
    n_c, k_c, n_r, k_r = (float(x) for x in counts)
    for x in (n_c, k_c, n_r, k_r):
        if not math.isfinite(x) or x < 0:
            raise ValueError(f"{source}: off-model count {x!r} is not a finite count")
    if k_c > n_c or k_r > n_r:
        raise ValueError(f"{source}: more off-model actions than actions ({k_c}/{n_c}, {k_r}/{n_r})")
    return n_c, k_c, n_r, k_r


def read_off_model(conn: sqlite3.Connection, network: str, nick: str) -> tuple[float, float, float, float]:
    """The counts stored for (network, nick); zeros for a player never counted."""
    row = conn.execute("SELECT n_call, k_call, n_raise, k_raise FROM off_model WHERE network = ? AND nick = ?",
                       (network, nick)).fetchone()
    return ZERO if row is None else (float(row[0]), float(row[1]), float(row[2]), float(row[3]))


def add_off_model(conn: sqlite3.Connection, network: str, nick: str, counts: Sequence[float]) -> None:
    """Add one hand's counts to (network, nick)'s (inside the caller's transaction)."""
    n_c, k_c, n_r, k_r = check_counts(counts, f"off-model counts of {nick!r}")
    conn.execute(
        "INSERT INTO off_model (network, nick, n_call, k_call, n_raise, k_raise) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (network, nick) DO UPDATE SET n_call = n_call + excluded.n_call, "
        "k_call = k_call + excluded.k_call, n_raise = n_raise + excluded.n_raise, "
        "k_raise = k_raise + excluded.k_raise",
        (network, nick, n_c, k_c, n_r, k_r))
