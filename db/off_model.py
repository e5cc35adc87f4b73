"""Off-model counts in the database (migration m005): for each (network, nick), the calls
and bets/raises seen at that player's showdowns and how many of each came from holdings
the threshold model gave a low factor. The engine's learned re-weighting floor
(agent.engine.modeler.learned_eps, ``[engine] floor_on = "learned"``) reads them at the
start of a hand, so a regular's ε carries over from one session to the next.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from agent.models.store import NO_OFF_MODEL, OffModelCounts, check_off_model

__all__ = ["add_off_model", "read_off_model"]


def read_off_model(conn: sqlite3.Connection, network: str, nick: str) -> OffModelCounts:
    """The counts stored for (network, nick); zeros for a player never counted."""
    row = conn.execute("SELECT n_call, k_call, n_raise, k_raise FROM off_model WHERE network = ? AND nick = ?",
                       (network, nick)).fetchone()
    return NO_OFF_MODEL if row is None else OffModelCounts(float(row[0]), float(row[1]), float(row[2]), float(row[3]))


def add_off_model(conn: sqlite3.Connection, network: str, nick: str, counts: Sequence[float]) -> None:
    """Add one hand's counts to (network, nick)'s (inside the caller's transaction)."""
    n_c, k_c, n_r, k_r = check_off_model(counts, f"off-model counts of {nick!r}")
    conn.execute(
        "INSERT INTO off_model (network, nick, n_call, k_call, n_raise, k_raise) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (network, nick) DO UPDATE SET n_call = n_call + excluded.n_call, "
        "k_call = k_call + excluded.k_call, n_raise = n_raise + excluded.n_raise, "
        "k_raise = k_raise + excluded.k_raise",
        (network, nick, n_c, k_c, n_r, k_r))
