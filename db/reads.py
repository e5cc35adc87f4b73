"""The database's read API for the report: the queries agent.report reads hands with, in
one place beside the schema they depend on. Every function takes an open connection
(inside the caller's read transaction) and the hands filter as agent.report.stats builds
it: a WHERE clause over ``hands`` (without the word WHERE, empty for all hands) and its
parameters.
"""
from __future__ import annotations

import sqlite3
from typing import Any

__all__ = ["recorded_heroes", "seat_positions"]


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info([{table}])")}


def recorded_heroes(conn: sqlite3.Connection, where: str, params: list[Any]) -> set[int]:
    """The players the chosen hands' sources were written for (an online room's "Dealt
    to" player): who we are when the report is not told otherwise."""
    if "hero" not in _columns(conn, "hands"):
        return set()
    clause = f"WHERE hero IS NOT NULL{' AND ' + where if where else ''}"
    return {row[0] for row in conn.execute(f"SELECT DISTINCT hero FROM hands {clause}", params)}


def seat_positions(conn: sqlite3.Connection, where: str, params: list[Any]) -> list[tuple[int, int, int]]:
    """(hand, player, position) of every seat of the chosen hands, by hand then player
    (position: seats after the button, 1 the first, n the button)."""
    in_hands = f"WHERE hand IN (SELECT seq FROM hands WHERE {where})" if where else ""
    return conn.execute(f"SELECT hand, player, position FROM seats {in_hands} ORDER BY hand, player",
                        params).fetchall()
