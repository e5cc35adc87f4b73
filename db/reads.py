"""The read API of the opponent database: what readers other than the engine (the opponent
report) take from a file, in one read transaction, without knowing the schema. The SQL
against the tables lives here, in db, with the schema it reads.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import Any, NamedTuple

from agent.game.records import BIG_BLIND, DECISION_KINDS
from db import schema
from db.opening import MIGRATIONS_TABLE, applied_migrations, newer_message, open_read_only

__all__ = ["HandAction", "HandResult", "HandRows", "HandSeat", "HandsVersion", "ReadError", "ReportRows",
           "check_schema", "hand_rows", "hands_version", "open_readonly", "report_rows"]

REPORT_TABLES = ("players", "aliases", "hands", "seats", "actions", "results", "models")
# Action rows a Poki writer makes: the decisions and both blinds, in rounds 0-3.
_KINDS_SQL = "(" + ", ".join(f"'{k}'" for k in (*sorted(DECISION_KINDS), "sb", BIG_BLIND)) + ")"


class ReadError(Exception):
    """The database cannot be read as asked; the message names the file and the reason."""


def check_schema(conn: sqlite3.Connection, path: str) -> None:
    """ReadError naming ``path`` unless the file holds a Poki database's tables, made by
    this version of Poki or an older one (a newer one's may mean what this one cannot read:
    a report of it would be wrong, so it is refused as the writers refuse it)."""
    try:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    except sqlite3.DatabaseError as exc:
        raise ReadError(f"{path}: not an SQLite database: {exc}") from None
    needed = set(REPORT_TABLES)
    if not needed <= tables:
        if not tables:
            raise ReadError(f"{path}: an empty file, not a Poki database")
        raise ReadError(f"{path}: not a Poki database (it lacks the tables {', '.join(sorted(needed - tables))})")
    if MIGRATIONS_TABLE in tables:
        known = schema.known()
        newer = [name for name in applied_migrations(conn, schema.MIGRATION_SET) if name not in known]
        if newer:
            raise ReadError(newer_message(path, newer))


def open_readonly(path: str) -> sqlite3.Connection:
    """A read-only connection of its own (a writer may keep adding hands meanwhile), by the
    one read-only opener (db.opening: the path quoted in its URI, so no character of a file
    name can drop the read-only mode)."""
    if not os.path.isfile(path):
        raise ReadError(f"no database at {path}")
    try:
        conn = open_read_only(path)
    except sqlite3.DatabaseError as exc:
        raise ReadError(f"{path}: cannot be read: {exc}") from None
    try:
        check_schema(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


class ReportRows(NamedTuple):
    """What the opponent report reads, as one snapshot of the file."""

    # (seq, small bet, started at, network, tournament id: None for a cash game's), by seq
    hands: list[tuple[int, int, float | None, str, str | None]]
    names: dict[int, str]  # player id -> name
    networks: dict[int, set[str]]  # player id -> the networks it was seen on
    seats: list[tuple[int, int, int]]  # (hand seq, player id, position), by hand then player
    results: list[tuple[int, int, int, int]]  # (hand seq, player id, put in, won), by hand
    actions: list[tuple[int, int, int, str, int]]  # (hand seq, player id, round, kind, all-in), in order
    bad_actions: int  # action rows no Poki writer makes (a round or kind that does not exist)
    models: list[tuple]  # (player, context, fold/call/raise decayed, ref hand, fold/call/raise lifetime, hands)
    half_life: float | None  # the models' half-life, in the players' hands
    heroes: set[int]  # players the chosen hands' sources were written for (an online room's hero)


def _hand_filter(network: str | None, since: float | None) -> tuple[str, list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    if network is not None:
        where.append("network = ?")
        params.append(network)
    if since is not None:
        where.append("started_at >= ?")
        params.append(since)
    return (" AND ".join(where), params)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info([{table}])")}


def report_rows(conn: sqlite3.Connection, path: str = "", *, network: str | None = None,
                since: float | None = None, progress: Callable[[str], None] | None = None) -> ReportRows:
    """The rows of the hands chosen (``network``, hands started at or after ``since``) and
    every player's model, in one read transaction, however the writer moves on meanwhile.
    Action rows no Poki writer makes are left out and counted, so a damaged or hand-edited
    file still gives a report. A hand of a tournament names it (its chips are not money);
    a file older than that column holds cash games only. A seat's position counts seats after the button (1 the
    first, n the button). The heroes are the players the hands' sources name as the one
    they were written for (an online room's "Dealt to" player); a file older than that
    column names none. ReadError naming ``path`` when the file cannot be read."""
    check_schema(conn, path)
    step = progress or (lambda _: None)
    where, params = _hand_filter(network, since)
    hand_where = f"WHERE {where}" if where else ""
    in_hands = f"WHERE hand IN (SELECT seq FROM hands {hand_where})" if where else ""
    valid = f"round BETWEEN 0 AND 3 AND kind IN {_KINDS_SQL}"
    conn.execute("BEGIN")
    try:
        step("hands")
        columns = _columns(conn, "hands")
        tournament = "tournament" if "tournament" in columns else "NULL"
        hands = conn.execute(
            f"SELECT seq, small_bet, started_at, network, {tournament} FROM hands {hand_where} ORDER BY seq",
            params).fetchall()
        heroes: set[int] = set()
        if "hero" in columns:
            hero_where = f"WHERE hero IS NOT NULL{' AND ' + where if where else ''}"
            heroes = {row[0] for row in conn.execute(f"SELECT DISTINCT hero FROM hands {hero_where}", params)}
        names = dict(conn.execute("SELECT id, name FROM players"))
        nets: dict[int, set[str]] = {}
        for pid, net in conn.execute("SELECT player, network FROM aliases"):
            nets.setdefault(pid, set()).add(net)
        step("seats")
        seats = conn.execute(f"SELECT hand, player, position FROM seats {in_hands} ORDER BY hand, player",
                             params).fetchall()
        step("results")
        results = conn.execute(f"SELECT hand, player, put_in, won FROM results {in_hands} ORDER BY hand",
                               params).fetchall()
        step("actions")
        actions = conn.execute(
            f"SELECT hand, player, round, kind, all_in FROM actions {in_hands} {'AND' if in_hands else 'WHERE'} {valid}"
            " ORDER BY hand, ord", params).fetchall()
        bad_actions = conn.execute(
            f"SELECT count(*) FROM actions {in_hands} {'AND' if in_hands else 'WHERE'} NOT ({valid})",
            params).fetchone()[0]
        step("models")
        models = conn.execute(
            "SELECT m.player, m.context, m.fold_decayed, m.call_decayed, m.raise_decayed, m.ref_hand,"
            " m.fold_count, m.call_count, m.raise_count, p.hands FROM models m JOIN players p ON p.id = m.player"
        ).fetchall()
        half_life_row = conn.execute("SELECT value FROM meta WHERE key = 'half_life_hands'").fetchone()
    except sqlite3.DatabaseError as exc:
        raise ReadError(f"{path}: cannot be read: {exc}") from None
    finally:
        conn.execute("ROLLBACK")
    half_life = float(half_life_row[0]) if half_life_row else None
    return ReportRows(hands, names, nets, seats, results, actions, bad_actions, models, half_life, heroes)


class HandSeat(NamedTuple):
    player: int
    name: str
    position: int  # seats after the button: 1 the first, n the button
    stack: int  # chips at the start of the hand


class HandAction(NamedTuple):
    player: int
    round: int  # 0 pre-flop .. 3 river
    kind: str  # sb bb f k c b r
    amount: int  # chips this action put in
    all_in: bool


class HandResult(NamedTuple):
    player: int
    put_in: int
    won: int


class HandRows(NamedTuple):
    """One stored hand, as the tables hold it (a hand replayer rebuilds it from these)."""

    seq: int
    hand_id: str
    network: str
    source: str
    started_at: float | None
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    board: str  # the cards dealt, space-separated, flop first
    pot: int
    rake: int
    hero: int | None  # the player the source was written for, when it says
    seats: list[HandSeat]  # by position: the first after the button first
    actions: list[HandAction]  # in the order taken, blinds included
    shown: dict[int, str]  # player -> cards shown down
    results: list[HandResult]


class HandsVersion(NamedTuple):
    """What changes when a hand is stored: the count of hands and the last one's seq."""

    hands: int
    last: int


def hands_version(conn: sqlite3.Connection, path: str = "") -> HandsVersion:
    """The count of hands and the last seq, in one read (ReadError naming ``path``)."""
    try:
        count, last = conn.execute("SELECT count(*), coalesce(max(seq), 0) FROM hands").fetchone()
    except sqlite3.DatabaseError as exc:
        raise ReadError(f"{path}: cannot be read: {exc}") from None
    return HandsVersion(int(count), int(last))


def hand_rows(conn: sqlite3.Connection, seq: int, path: str = "") -> HandRows | None:
    """The stored hand ``seq`` in one read transaction, or None when there is none."""
    cols = _columns(conn, "hands")
    rake = "rake" if "rake" in cols else "0"
    hero = "hero" if "hero" in cols else "NULL"
    conn.execute("BEGIN")
    try:
        row = conn.execute(
            f"SELECT seq, hand_id, network, source, started_at, small_blind, big_blind, small_bet, big_bet, board,"
            f" pot, {rake}, {hero} FROM hands WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            return None
        seats = [HandSeat(*r) for r in conn.execute(
            "SELECT s.player, p.name, s.position, s.stack FROM seats s JOIN players p ON p.id = s.player"
            " WHERE s.hand = ? ORDER BY s.position", (seq,))]
        actions = [HandAction(p, rnd, kind, amount, bool(all_in)) for p, rnd, kind, amount, all_in in conn.execute(
            "SELECT player, round, kind, amount, all_in FROM actions WHERE hand = ? ORDER BY ord", (seq,))]
        shown = dict(conn.execute("SELECT player, cards FROM showdowns WHERE hand = ?", (seq,)).fetchall())
        results = [HandResult(*r) for r in conn.execute(
            "SELECT player, put_in, won FROM results WHERE hand = ? ORDER BY player", (seq,))]
    except sqlite3.DatabaseError as exc:
        raise ReadError(f"{path}: cannot be read: {exc}") from None
    finally:
        conn.execute("ROLLBACK")
    (seq_, hand_id, network, source, started_at, small_blind, big_blind, small_bet, big_bet, board, pot, rake_,
     hero_) = row
    return HandRows(seq_, hand_id, network, source, started_at, small_blind, big_blind, small_bet, big_bet, board,
                    pot, rake_, hero_, seats, actions, shown, results)
