"""The learned predictor's data and storage: every stored decision turned into its
feature vector as the models stood before its hand (agent.models.learned), and the fitted
weights kept in the ``learned_predictors`` table (migration m004) with the range of
hands they were fitted on.

The decisions are rebuilt from the stored hands in the order they were stored, with the
same Predictor.advance the writer used, so the statistics a decision's features read are
exactly those the shadow scorer and the engine would have read before that hand.
"""
from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby

import numpy as np

from agent.models.frequencies import Decay, PlayerState
from agent.models.learned import N_FEATURES, LearnedModel, hand_features
from agent.models.prediction import Predictor, Strengths

__all__ = ["Decisions", "decisions", "load_learned", "store_learned"]

_DECISION_KINDS = ("f", "k", "c", "b", "r")
_CLASS = {"f": 0, "k": 1, "c": 1, "b": 2, "r": 2}


@dataclass
class Decisions:
    """Every decision of the stored hands in storing order: features ``X``, action class
    ``y``, coarse context, round, the hand's start time (NaN when unknown) and sequence
    number."""

    X: np.ndarray
    y: np.ndarray
    context: np.ndarray
    round: np.ndarray
    started_at: np.ndarray
    hand: np.ndarray

    def select(self, mask: np.ndarray) -> Decisions:
        return Decisions(self.X[mask], self.y[mask], self.context[mask], self.round[mask], self.started_at[mask],
                         self.hand[mask])

    def window(self, since: float | None, until: float | None) -> np.ndarray:
        """The rows of hands started in [since, until) (unknown start times: outside any
        window that is set)."""
        t = self.started_at
        mask = np.ones(len(t), dtype=bool)
        if since is not None:
            mask &= t >= since
        if until is not None:
            mask &= t < until
        if since is not None or until is not None:
            mask &= ~np.isnan(t)
        return mask


def decisions(conn: sqlite3.Connection, half_life: float, strengths: Strengths,
              progress: Callable[[int], None] | None = None) -> Decisions:
    """The feature vectors of every stored decision (see the module docstring); the
    models are rebuilt from empty as db.models.recompute_models does. ``progress(n)``
    is told of every n hands done."""
    predictor = Predictor(Decay(half_life), strengths)
    states: dict[int, PlayerState] = {}
    populations: dict[str, PlayerState] = {}
    hands = conn.execute("SELECT seq, network, started_at, small_bet, big_bet FROM hands ORDER BY seq")
    seats = groupby(conn.execute("SELECT hand, player, position FROM seats ORDER BY hand, position"),
                    key=lambda r: r[0])
    actions = groupby(conn.execute(
        "SELECT hand, ord, player, round, kind, amount, bets_to_call, raises, position, players_active, all_in,"
        " context, fine_context FROM actions ORDER BY hand, ord"), key=lambda r: r[0])
    rows: list[np.ndarray] = []
    ys: list[int] = []
    ctxs: list[int] = []
    rounds: list[int] = []
    times: list[float] = []
    seqs: list[int] = []
    pending_seats = next(seats, None)
    pending_actions = next(actions, None)
    done = 0
    for seq, network, started_at, small_bet, big_bet in hands:
        while pending_seats is not None and pending_seats[0] < seq:
            pending_seats = next(seats, None)
        seated = []
        if pending_seats is not None and pending_seats[0] == seq:
            seated = [r[1] for r in pending_seats[1]]
            pending_seats = next(seats, None)
        while pending_actions is not None and pending_actions[0] < seq:
            pending_actions = next(actions, None)
        hand_actions = []
        if pending_actions is not None and pending_actions[0] == seq:
            hand_actions = list(pending_actions[1])
            pending_actions = next(actions, None)
        index = {pid: i for i, pid in enumerate(seated)}
        hand_states = []
        for pid in seated:
            st = states.get(pid)
            if st is None:
                st = states[pid] = PlayerState()
            hand_states.append(st)
        population = populations.get(network)
        if population is None:
            population = populations[network] = PlayerState()
        # (ord, seat, round, kind, amount, btc, raises, position, active, all_in, context, fine)
        laid_out = [(a[1], index[a[2]], *a[3:]) for a in hand_actions if a[2] in index]
        if seated:
            # A decision is featured from the models as they stood before its hand...
            for seat, context, rnd, cls, x in hand_features(laid_out, len(seated), small_bet, big_bet, hand_states,
                                                           population, predictor):
                rows.append(x)
                ys.append(cls)
                ctxs.append(context)
                rounds.append(rnd)
                times.append(float("nan") if started_at is None else float(started_at))
                seqs.append(seq)
            # ... and the hand is learned after.
            observations = [(a[1], a[10], _CLASS[a[3]], a[11]) for a in laid_out if a[3] in _CLASS]
            predictor.advance(hand_states, population, observations)
        done += 1
        if progress is not None and done % 500 == 0:
            progress(500)
    if progress is not None and done % 500:
        progress(done % 500)
    X = np.vstack(rows) if rows else np.zeros((0, N_FEATURES))
    return Decisions(X, np.array(ys, dtype=np.int64), np.array(ctxs, dtype=np.int64),
                     np.array(rounds, dtype=np.int64), np.array(times, dtype=np.float64),
                     np.array(seqs, dtype=np.int64))


def store_learned(conn: sqlite3.Connection, name: str, model: LearnedModel) -> None:
    """Keep ``model`` under ``name`` (replacing one of that name), inside the caller's
    write transaction."""
    conn.execute(
        "INSERT OR REPLACE INTO learned_predictors (name, scheme, l2, decisions, hands, first_started_at,"
        " last_started_at, fitted_at, model) VALUES (?,?,?,?,?,?,?,?,?)",
        (name, model.scheme, model.l2, model.decisions, model.hands, model.first_started_at,
         model.last_started_at, time.time(), model.to_json()))


def load_learned(conn: sqlite3.Connection, name: str = "default") -> LearnedModel | None:
    """The stored model of that name, None if there is none; ValueError, naming the
    table, for a stored model this build cannot read."""
    row = conn.execute("SELECT model FROM learned_predictors WHERE name = ?", (name,)).fetchone()
    if row is None:
        return None
    try:
        return LearnedModel.from_json(row[0])
    except ValueError as exc:
        raise ValueError(f"learned_predictors[{name!r}]: {exc}") from None
