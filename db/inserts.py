"""The rows of a group of hands on their way into SQLite: what Database._prepare fills
(players, hands, seats, actions, showdowns, results and the model counts) and how it is
inserted, many rows to a statement.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

from agent.game.prepared import PreparedHand, prepare_hand
from agent.game.records import HandRecord, RecordError, WriteReport

from .models import _MODEL_COLUMNS

__all__: list[str] = []


class _Counters:
    """The last hand and player numbers taken, read inside the write transaction."""

    __slots__ = ("seq", "pid")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.seq: int = conn.execute("SELECT coalesce(max(seq), 0) FROM hands").fetchone()[0]
        self.pid: int = conn.execute("SELECT coalesce(max(id), 0) FROM players").fetchone()[0]


class _Prepared:
    """The rows of one group of hands, ready to insert: players, aliases, hand counts
    and populations as lists of rows; the others (hands, seats, actions, shown, results
    and the model counts) as their rows' values laid end to end (_insert_many)."""

    __slots__ = ("report", "players", "aliases", "hands", "seats", "actions", "shown", "results", "models", "hand_counts",
                 "fine", "scores", "populations", "population_models")

    def __init__(self) -> None:
        self.report = WriteReport()
        self.players: list[tuple] = []
        self.aliases: list[tuple] = []
        self.hands: list = []
        self.seats: list = []
        self.actions: list = []
        self.shown: list = []
        self.results: list = []
        self.models: list = []
        self.hand_counts: list[tuple] = []
        self.fine: list = []
        self.scores: list = []
        self.populations: list[tuple] = []
        self.population_models: list = []


# Rows per INSERT statement: most of the cost of inserting a row with executemany is the
# statement's own work per execution (step, reset, locks), which a statement of many rows
# pays once; past about a hundred rows, longer statements gain nothing. SQLite before 3.32
# takes at most 999 parameters a statement.
_ROWS_PER_STATEMENT = 100
_MAX_PARAMETERS = 999
_HANDS_INSERT = ("INSERT INTO hands (seq, hand_id, network, source, started_at, small_blind, big_blind,"
                 " small_bet, big_bet, max_bets, board, players, pot, actions, shown, rake, tournament, level, hero)"
                 " VALUES ")
_SEATS_INSERT = "INSERT INTO seats (hand, player, position, stack) VALUES "
_ACTIONS_INSERT = ("INSERT INTO actions (hand, ord, player, round, kind, amount, bets_to_call, raises,"
                   " position, players_active, all_in, context, fine_context) VALUES ")
_MODELS_UPSERT = f"INSERT OR REPLACE INTO models (player, {_MODEL_COLUMNS}) VALUES "
_FINE_UPSERT = f"INSERT OR REPLACE INTO fine_models (player, {_MODEL_COLUMNS}) VALUES "
_SCORES_UPSERT = "INSERT OR REPLACE INTO predictor_scores (player, twelve, backoff, ref_hand) VALUES "
_POPULATION_UPSERT = f"INSERT OR REPLACE INTO population_models (network, level, {_MODEL_COLUMNS}) VALUES "
_SHOWN_INSERT = "INSERT INTO showdowns (hand, player, cards) VALUES "
_RESULTS_INSERT = "INSERT INTO results (hand, player, put_in, won) VALUES "


def _insert_many(conn: sqlite3.Connection, insert: str, width: int, values: list) -> None:
    """INSERT the rows laid end to end in ``values`` (``width`` values a row) with
    ``insert`` ("INSERT ... VALUES "), up to _ROWS_PER_STATEMENT rows to a statement."""
    one = "(" + ",".join("?" * width) + ")"
    per = min(_ROWS_PER_STATEMENT, _MAX_PARAMETERS // width)
    step = per * width
    full = len(values) - len(values) % step
    if full:
        sql = insert + ",".join([one] * per)
        for start in range(0, full, step):
            conn.execute(sql, values[start:start + step])
    if full < len(values):
        conn.execute(insert + ",".join([one] * ((len(values) - full) // width)), values[full:])


def _insert(conn: sqlite3.Connection, p: _Prepared) -> None:
    conn.executemany("INSERT INTO players (id, name, hands) VALUES (?, ?, 0)", p.players)
    conn.executemany("INSERT INTO aliases (network, nick, player) VALUES (?, ?, ?)", p.aliases)
    _insert_many(conn, _HANDS_INSERT, 19, p.hands)
    _insert_many(conn, _SEATS_INSERT, 4, p.seats)
    _insert_many(conn, _ACTIONS_INSERT, 13, p.actions)
    _insert_many(conn, _SHOWN_INSERT, 3, p.shown)
    _insert_many(conn, _RESULTS_INSERT, 4, p.results)
    # The models' rows are upserts of many rows a statement too (INSERT OR REPLACE
    # replaces by the primary key, row by row, as executemany would).
    _insert_many(conn, _MODELS_UPSERT, 9, p.models)
    conn.executemany("UPDATE players SET hands = ? WHERE id = ?", p.hand_counts)
    _insert_many(conn, _FINE_UPSERT, 9, p.fine)
    _insert_many(conn, _SCORES_UPSERT, 4, p.scores)
    conn.executemany("INSERT OR REPLACE INTO populations (network, hands) VALUES (?, ?)", p.populations)
    _insert_many(conn, _POPULATION_UPSERT, 10, p.population_models)


def _groups(
    records: Iterable[HandRecord], network: str, size: int, report: WriteReport
) -> Iterator[tuple[list[PreparedHand], int]]:
    """The rows of valid records in groups of `size`, each with how many records it
    took; invalid ones are listed in `report` and left out."""
    group: list[PreparedHand] = []
    handled = 0
    for record in records:
        handled += 1
        try:
            group.append(prepare_hand(record, network))
        except RecordError as exc:
            report.rejected.append((str(getattr(record, "hand_id", "?")), str(exc)))
            continue
        if len(group) >= size:
            yield group, handled
            group, handled = [], 0
    if handled:
        yield group, handled
