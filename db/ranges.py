"""Learned ranges in the database (migration m008): for each (network, nick), and for
each network's population under the nick '', the decayed counts of agent.models.ranges.
The engine (``[engine] reweight = "learned"``) reads a player's and its population's at
the start of a hand and adds a shown-down holding's observations after it.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from agent.models.ranges import (
    NO_RANGE_COUNTS,
    PLAYER_HALF_LIFE,
    POPULATION_HALF_LIFE,
    RangeCounts,
    add_observations,
    check_observations,
    pack_counts,
    unpack_counts,
)

__all__ = ["POPULATION_NICK", "add_ranges", "read_ranges"]

POPULATION_NICK = ""  # no real nick is empty (records refuse it)


def _read(conn: sqlite3.Connection, network: str, nick: str) -> RangeCounts:
    row = conn.execute("SELECT counts, showdowns FROM ranges WHERE network = ? AND nick = ?",
                       (network, nick)).fetchone()
    if row is None:
        return NO_RANGE_COUNTS
    return unpack_counts(row[0], row[1], f"ranges of {nick or 'the population'!r} on {network!r}")


def read_ranges(conn: sqlite3.Connection, network: str, nick: str) -> tuple[RangeCounts, RangeCounts]:
    """(the player's, the population's) counts; zeros for none. ValueError for a damaged row."""
    return _read(conn, network, nick), _read(conn, network, POPULATION_NICK)


def add_ranges(conn: sqlite3.Connection, network: str, nick: str, observations: Sequence[tuple[int, int]]) -> None:
    """Age the player's and the population's counts by one showdown and add one shown-down
    holding's (row, bin) observations to both (inside the caller's transaction)."""
    if not nick:
        raise ValueError("range observations need a player's nick")
    obs = check_observations(observations, f"range observations of {nick!r}")
    for who, half_life in ((nick, PLAYER_HALF_LIFE), (POPULATION_NICK, POPULATION_HALF_LIFE)):
        new = add_observations(_read(conn, network, who), obs, half_life)
        conn.execute("INSERT INTO ranges (network, nick, counts, showdowns) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT (network, nick) DO UPDATE SET counts = excluded.counts, "
                     "showdowns = excluded.showdowns", (network, who, pack_counts(new), new.showdowns))
