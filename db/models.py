"""The opponent models as the database stores them: reading them (a player, a network's
population, everything), rebuilding them from the stored hands, writing a rebuilt set,
and comparing two sets. The arithmetic is agent.models.prediction.Predictor.advance, the
same the writer (db.database) and the in-memory store use, so a recomputation equals the
models kept up to date hand by hand.
"""
from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from itertools import groupby

from agent.game.context import N_CONTEXTS
from agent.models.frequencies import ContextCounts, Decay, PlayerState
from agent.models.prediction import Predictor
from agent.game.records import ACTION_CLASS

_DECISION_KINDS_SQL = "('f','k','c','b','r')"
_MODEL_FIELDS = ("context", "fold_decayed", "call_decayed", "raise_decayed", "ref_hand", "fold_count", "call_count", "raise_count")
_MODEL_COLUMNS = ", ".join(_MODEL_FIELDS)


def _state_from_rows(hands: int, rows: Iterable[tuple], fine_rows: Iterable[tuple] = (),
                     scores: tuple | None = None) -> PlayerState:
    state = PlayerState(hands)
    for ctx, df, dc, dr, ref, lf, lc, lr in rows:
        if ctx is not None:
            state.contexts[ctx] = ContextCounts([df, dc, dr], ref, [lf, lc, lr])
    fine = state.fine
    for ctx, df, dc, dr, ref, lf, lc, lr in fine_rows:
        fine[ctx] = ContextCounts([df, dc, dr], ref, [lf, lc, lr])
    if scores is not None:
        state.scores = [scores[0], scores[1]]
        state.scores_ref = scores[2]
    return state


def _load_state(conn: sqlite3.Connection, pid: int) -> PlayerState:
    hands = conn.execute("SELECT hands FROM players WHERE id = ?", (pid,)).fetchone()[0]
    rows = conn.execute(f"SELECT {_MODEL_COLUMNS} FROM models WHERE player = ?", (pid,))
    fine = conn.execute(f"SELECT {_MODEL_COLUMNS} FROM fine_models WHERE player = ?", (pid,))
    scores = conn.execute("SELECT twelve, backoff, ref_hand FROM predictor_scores WHERE player = ?", (pid,)).fetchone()
    return _state_from_rows(hands, rows, fine, scores)


def _load_population(conn: sqlite3.Connection, network: str) -> PlayerState:
    row = conn.execute("SELECT hands FROM populations WHERE network = ?", (network,)).fetchone()
    state = PlayerState(0 if row is None else row[0])
    for level, ctx, df, dc, dr, ref, lf, lc, lr in conn.execute(
            f"SELECT level, {_MODEL_COLUMNS} FROM population_models WHERE network = ?", (network,)):
        cc = ContextCounts([df, dc, dr], ref, [lf, lc, lr])
        if level == 0:
            state.contexts[ctx] = cc
        else:
            state.fine[ctx] = cc
    return state


def _count_row(cc: ContextCounts) -> tuple:
    return cc.row()



def recompute_models(conn: sqlite3.Connection, predictor: Predictor
                     ) -> tuple[dict[int, PlayerState], dict[str, PlayerState]]:
    """Every player's model and every network's population rebuilt from the stored seats
    and actions (read through ``conn``, inside one read transaction), hands in the order
    they were stored."""
    states: dict[int, PlayerState] = defaultdict(PlayerState)
    populations: dict[str, PlayerState] = {}
    for (pid,) in conn.execute("SELECT id FROM players"):
        states[pid] = PlayerState(0)
    seats = conn.execute("SELECT s.hand, s.player, h.network FROM seats s JOIN hands h ON h.seq = s.hand"
                         " ORDER BY s.hand")
    actions = groupby(
        conn.execute(
            f"SELECT hand, player, context, kind, fine_context FROM actions WHERE kind IN {_DECISION_KINDS_SQL}"
            " ORDER BY hand, ord"
        ),
        key=lambda row: row[0],
    )
    pending = next(actions, None)
    for hand, seated in groupby(seats, key=lambda row: row[0]):
        seated = list(seated)
        network = seated[0][2]
        population = populations.get(network)
        if population is None:
            population = populations[network] = PlayerState(0)
        index = {pid: i for i, (_, pid, _) in enumerate(seated)}
        hand_states = [states[pid] for _, pid, _ in seated]
        while pending is not None and pending[0] < hand:
            pending = next(actions, None)  # actions of an unseated hand: `check` reports them
        observations = []
        if pending is not None and pending[0] == hand:
            for _, pid, ctx, kind, fine in pending[1]:
                if pid in index:
                    observations.append((index[pid], ctx, ACTION_CLASS[kind], fine))
            pending = next(actions, None)
        predictor.advance(hand_states, population, observations)
    return dict(states), populations


def read_models(conn: sqlite3.Connection) -> tuple[dict[int, PlayerState], dict[str, PlayerState]]:
    """Every player's model and every network's population as the file holds them."""
    hands = dict(conn.execute("SELECT id, hands FROM players"))
    rows = conn.execute(f"SELECT player, {_MODEL_COLUMNS} FROM models ORDER BY player")
    by_player = {pid: list(group) for pid, group in groupby(rows, key=lambda r: r[0])}
    rows = conn.execute(f"SELECT player, {_MODEL_COLUMNS} FROM fine_models ORDER BY player")
    fine_by_player = {pid: list(group) for pid, group in groupby(rows, key=lambda r: r[0])}
    scores = {r[0]: r[1:] for r in conn.execute("SELECT player, twelve, backoff, ref_hand FROM predictor_scores")}
    networks = [r[0] for r in conn.execute(
        "SELECT network FROM populations UNION SELECT DISTINCT network FROM hands")]
    populations = {n: _load_population(conn, n) for n in networks}
    states = {pid: _state_from_rows(n, (r[1:] for r in by_player.get(pid, ())),
                                    (r[1:] for r in fine_by_player.get(pid, ())), scores.get(pid))
              for pid, n in hands.items()}
    return states, populations


def write_models(conn: sqlite3.Connection, states: dict[int, PlayerState], populations: dict[str, PlayerState]) -> int:
    """Replace every model row with ``states`` and ``populations`` (inside the caller's
    write transaction). Returns the number of twelve-context rows."""
    for table in ("models", "fine_models", "predictor_scores", "populations", "population_models"):
        conn.execute(f"DELETE FROM {table}")
    rows = [
        (pid, ctx, *_count_row(cc))
        for pid, state in states.items()
        for ctx, cc in enumerate(state.contexts)
        if cc is not None
    ]
    fine = [(pid, ctx, *_count_row(cc)) for pid, state in states.items() for ctx, cc in state.fine.items()]
    conn.executemany(f"INSERT INTO models (player, {_MODEL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", rows)
    conn.executemany(f"INSERT INTO fine_models (player, {_MODEL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?)", fine)
    conn.executemany("INSERT INTO predictor_scores (player, twelve, backoff, ref_hand) VALUES (?,?,?,?)",
                     [(pid, st.scores[0], st.scores[1], st.scores_ref) for pid, st in states.items()
                      if st.hands])
    conn.executemany("UPDATE players SET hands = ? WHERE id = ?", [(s.hands, p) for p, s in states.items()])
    for network, pop in populations.items():
        conn.execute("INSERT INTO populations (network, hands) VALUES (?, ?)", (network, pop.hands))
        conn.executemany(
            f"INSERT INTO population_models (network, level, {_MODEL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
            [(network, 0, ctx, *_count_row(cc)) for ctx, cc in enumerate(pop.contexts) if cc is not None]
            + [(network, 1, ctx, *_count_row(cc)) for ctx, cc in pop.fine.items()])
    return len(rows)


def _compare_counts(where: str, ca: ContextCounts | None, cb: ContextCounts | None, hands_a: int, hands_b: int,
                    decay: Decay, tolerance: float) -> list[str]:
    ca, cb = ca or ContextCounts(), cb or ContextCounts()
    if ca.lifetime != cb.lifetime:
        return [f"{where}: lifetime {ca.lifetime}, recomputed {cb.lifetime}"]
    da = ca.decayed_at(hands_a, decay.factor)
    db = cb.decayed_at(hands_b, decay.factor)
    if any(not math.isclose(x, y, rel_tol=0.0, abs_tol=tolerance) for x, y in zip(da, db)):
        return [f"{where}: decayed {da}, recomputed {db}"]
    return []


def _compare_states(
    stored: dict[int, PlayerState], fresh: dict[int, PlayerState], decay: Decay, tolerance: float,
    scores: bool = True,
) -> list[str]:
    problems = []
    for pid in sorted(set(stored) | set(fresh)):
        a = stored.get(pid, PlayerState(0))
        b = fresh.get(pid, PlayerState(0))
        who = pid if isinstance(pid, str) else f"player {pid}"
        if a.hands != b.hands:
            problems.append(f"model of {who}: hand counter {a.hands}, recomputed {b.hands}")
        for ctx in range(N_CONTEXTS):
            problems += _compare_counts(f"model of {who} context {ctx}", a.contexts[ctx], b.contexts[ctx],
                                        a.hands, b.hands, decay, tolerance)
        for ctx in sorted(set(a.fine) | set(b.fine)):
            problems += _compare_counts(f"model of {who} fine context {ctx}", a.fine.get(ctx), b.fine.get(ctx),
                                        a.hands, b.hands, decay, tolerance)
        if scores:
            sa, sb = a.scores_at(decay.factor), b.scores_at(decay.factor)
            if any(not math.isclose(x, y, rel_tol=1e-9, abs_tol=tolerance) for x, y in zip(sa, sb)):
                problems.append(f"model of {who}: predictor scores {sa}, recomputed {sb}")
    return problems


