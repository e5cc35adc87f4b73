"""A learned next-action predictor: multinomial logistic regression over the public
context of a decision and the player's own decayed statistics (stacking).

[poki-2002] (Davidson et al. 2000, §"Neural networks") predicts an opponent's next action
with a feed-forward network whose inputs are properties of the public game context (the
last action, bets to call, pot odds, number of active players, position, round, board
texture, ...) and reports it far ahead of the frequency tables. This module is our own
take on the same idea, one layer deep: the logits of (fold, call, raise) are a linear
function of

* the public features of the decision — the coarse context (round × bets to call), and
  within each coarse context the fine context's digits (agent.game.context: active
  players, relative position, aggressor, the player's last action in the hand, acted
  this round, bets made this round, voluntary, board texture); the last action at the
  table this round; the player's own previous action this round; callers since the last
  bet; pot odds and the pot's size; the player's place at the table;
* the player's statistics as the models stood before the hand — the log-probabilities
  of the back-off and twelve-context predictions (agent.models.prediction), how much the
  player has been seen in this fine and coarse context, and its looseness (how rarely it
  folds to a bet pre-flop) and aggression (bets and raises among bets, raises and calls).

So the model learns *how far to trust* the frequency predictions, context by context,
rather than replacing them: stacking. It is fitted by L-BFGS on the L2-penalised mean
log-likelihood (``fit``; deterministic: full batch from zero weights, so the same data
give the same weights bit for bit), on decisions scored before each hand was learned
(db.learned builds them from the stored hands).

Features are built once per decision by ``DecisionFeatures`` from a hand's action rows
in the layout of agent.game.prepared (``ord, seat, round, kind, amount, bets_to_call,
raises, position, players_active, all_in, context, fine``) — the layout the database
stores too — so training, shadow scoring and play compute the same numbers.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agent.game.context import FINE_DIGITS, FINE_PER_COARSE, FINE_RADIX, N_CONTEXTS
from agent.models.frequencies import PlayerState
from agent.models.network import MLPShape, lbfgs, mlp_unpack, training_data
from agent.models.prediction import EPSILON, Predictor

__all__ = ["FEATURE_SCHEME", "MODEL_KINDS", "N_FEATURES", "DecisionFeatures", "LearnedModel", "feature_names", "fit",
           "fine_columns", "hand_features", "mean_loglik", "player_stats", "stack_features", "stack_pairs"]

Triple = tuple[float, float, float]

# The fine context's digits (agent.game.context's FINE_RADIX), one-hot each.
_PER_CONTEXT_DIGITS = sum(FINE_RADIX)  # 23
_NUMERIC = ("pot_odds", "log_pot_sb", "callers", "seat_fraction", "seated", "bias_round")
_STACK_PER_CONTEXT = ("backoff_logp_fold", "backoff_logp_call", "backoff_logp_raise")
_STACK_PER_ROUND = ("twelve_logp_fold", "twelve_logp_call", "twelve_logp_raise", "log_fine_seen", "log_coarse_seen",
                    "log_hands", "looseness", "aggression", "backoff_fold_x_seen", "backoff_call_x_seen",
                    "backoff_raise_x_seen")

# Offsets of the groups in the feature vector.
_O_CONTEXT = 0
_O_DIGITS = _O_CONTEXT + N_CONTEXTS
_O_TABLE_LAST = _O_DIGITS + N_CONTEXTS * _PER_CONTEXT_DIGITS  # 4 rounds × (none, fold, check/call, bet/raise)
_O_OWN_LAST = _O_TABLE_LAST + 16  # 4 rounds × (none, check/call, bet/raise) this round
_O_NUMERIC = _O_OWN_LAST + 12  # 4 rounds × _NUMERIC
_O_STACK_CTX = _O_NUMERIC + 4 * len(_NUMERIC)  # 12 coarse contexts × back-off log-probabilities
_O_STACK_ROUND = _O_STACK_CTX + N_CONTEXTS * len(_STACK_PER_CONTEXT)
N_FEATURES = _O_STACK_ROUND + 4 * len(_STACK_PER_ROUND)
# Names this layout: stored weights fitted on another one are refused.
FEATURE_SCHEME = f"logit-1:{N_FEATURES}:" + "x".join(map(str, FINE_RADIX))
_ROUNDS = ("preflop", "flop", "turn", "river")
# What a stored model is: "logistic" (weights only) or "network" (the same direct weights
# plus one hidden layer, agent.models.network). A stored kind this build does not know is
# refused by name.
MODEL_KINDS = ("logistic", "network")


def feature_names() -> list[str]:
    """A name for every column of the feature vector, in order."""
    names = [f"ctx{c}" for c in range(N_CONTEXTS)]
    for c in range(N_CONTEXTS):
        for name, radix in zip(FINE_DIGITS, FINE_RADIX):
            names += [f"ctx{c}:{name}={v}" for v in range(radix)]
    for r in _ROUNDS:
        names += [f"{r}:table_last={v}" for v in ("none", "fold", "call", "raise")]
    for r in _ROUNDS:
        names += [f"{r}:own_last={v}" for v in ("none", "call", "raise")]
    for r in _ROUNDS:
        names += [f"{r}:{n}" for n in _NUMERIC]
    for c in range(N_CONTEXTS):
        names += [f"ctx{c}:{n}" for n in _STACK_PER_CONTEXT]
    for r in _ROUNDS:
        names += [f"{r}:{n}" for n in _STACK_PER_ROUND]
    assert len(names) == N_FEATURES
    return names


def _log(p: float) -> float:
    return math.log(p if p > EPSILON else EPSILON)


def player_stats(state: PlayerState, factor: float) -> tuple[float, float]:
    """(looseness, aggression) of a player from its decayed coarse counts, each shrunk to
    a neutral value by a few pseudo-decisions so a stranger reads as average:
    looseness = share of pre-flop decisions facing a bet not folded (prior 0.5, 4
    pseudo-decisions); aggression = bets and raises among bets, raises and calls in
    every context (prior 0.3, 4 pseudo-decisions)."""
    f = c = r = 0.0
    for ctx in (1, 2):
        cc = state.contexts[ctx]
        if cc is not None:
            k = 1.0 if cc.ref == state.hands else factor ** (state.hands - cc.ref)
            f += cc.f * k
            c += cc.c * k
            r += cc.r * k
    loose = (c + r + 2.0) / (f + c + r + 4.0)
    calls = raises = 0.0
    for cc in state.contexts:
        if cc is not None:
            k = 1.0 if cc.ref == state.hands else factor ** (state.hands - cc.ref)
            calls += cc.c * k
            raises += cc.r * k
    aggr = (raises + 1.2) / (raises + calls + 4.0)
    return loose, aggr


def _seen(state: PlayerState, context: int, fine: int, factor: float) -> tuple[float, float]:
    """Decayed observations of the player in the fine and in the coarse context."""
    fc = state.fine.get(fine)
    nf = 0.0
    if fc is not None:
        nf = fc.f + fc.c + fc.r
        if fc.ref != state.hands:
            nf *= factor ** (state.hands - fc.ref)
    cc = state.contexts[context]
    nc = 0.0
    if cc is not None:
        nc = cc.f + cc.c + cc.r
        if cc.ref != state.hands:
            nc *= factor ** (state.hands - cc.ref)
    return nf, nc


def fine_columns(context: int, fine: int) -> list[int]:
    """The one-hot columns a fine context sets: its coarse context and, within it, one
    per digit of the fine context (agent.game.context's mixed radix)."""
    cols = [_O_CONTEXT + context]
    rest = fine - context * FINE_PER_COARSE
    base = _O_DIGITS + context * _PER_CONTEXT_DIGITS + _PER_CONTEXT_DIGITS
    for radix in reversed(FINE_RADIX):
        rest, d = divmod(rest, radix)
        base -= radix
        cols.append(base + d)
    return cols


class DecisionFeatures:
    """Follows one hand's actions in order and gives the feature vector of each decision:
    call ``features`` before ``record`` for every action, blinds included (they build
    the pot). ``seated`` is the number of players dealt in, ``small_bet`` and
    ``big_bet`` the hand's bet sizes."""

    __slots__ = ("seated", "small_bet", "big_bet", "pot", "round", "table_last", "own_last", "callers")

    def __init__(self, seated: int, small_bet: int, big_bet: int) -> None:
        self.seated = seated
        self.small_bet = small_bet
        self.big_bet = big_bet
        self.pot = 0
        self.round = 0
        self.table_last = 0  # this round: 0 none, 1 fold, 2 check/call, 3 bet/raise
        self.own_last: dict[int, int] = {}  # seat -> 1 check/call, 2 bet/raise this round
        self.callers = 0  # calls since the last bet or raise this round

    def _enter(self, round_: int) -> None:
        if round_ != self.round:
            self.round = round_
            self.table_last = 0
            self.own_last = {}
            self.callers = 0

    def public(self, seat: int, round_: int, bets_to_call: int, context: int, fine: int, position: int,
               out: np.ndarray) -> None:
        """Write the public features of ``seat``'s decision into ``out`` (zeros)."""
        for k, v in self.public_pairs(seat, round_, bets_to_call, context, fine, position):
            out[k] = v

    def public_pairs(self, seat: int, round_: int, bets_to_call: int, context: int, fine: int,
                     position: int) -> list[tuple[int, float]]:
        """The public features of ``seat``'s decision as (column, value) pairs, the
        columns not listed being 0."""
        table, own, numeric = self.public_split(seat, round_, bets_to_call, context, fine, position)
        return [(k, 1.0) for k in fine_columns(context, fine)] + [(table, 1.0), (own, 1.0)] + numeric

    def public_split(self, seat: int, round_: int, bets_to_call: int, context: int, fine: int, position: int
                     ) -> tuple[int, int, list[tuple[int, float]]]:
        """The public features of ``seat``'s decision in the form play reads fastest:
        the columns of the last action at the table and of the player's own this round
        (each one-hot), and the numeric features as (column, value) pairs; the one-hot
        columns of the context and its fine digits follow from ``fine`` alone
        (``fine_columns``), so a model sums their weights once per fine context."""
        if round_ != self.round:
            self._enter(round_)
        bet = self.small_bet if round_ < 2 else self.big_bet
        to_call = bets_to_call * bet
        pot = self.pot
        o = _O_NUMERIC + len(_NUMERIC) * round_
        return (_O_TABLE_LAST + 4 * round_ + self.table_last, _O_OWN_LAST + 3 * round_ + self.own_last.get(seat, 0), [
            (o, to_call / (pot + to_call) if to_call else 0.0),
            (o + 1, math.log1p(pot / self.small_bet) / 3.0),
            (o + 2, min(self.callers, 4) / 4.0),
            (o + 3, position / self.seated),
            (o + 4, self.seated / 10.0),
            (o + 5, 1.0),
        ])

    def record(self, seat: int, round_: int, kind: str, amount: int) -> None:
        """One action taken (kinds as agent.game.records: sb bb f k c b r)."""
        if round_ != self.round:
            self._enter(round_)
        self.pot += amount
        if kind == "sb" or kind == "bb":
            return
        if kind == "f":
            self.table_last = 1
        elif kind == "b" or kind == "r":
            self.table_last = 3
            self.own_last[seat] = 2
            self.callers = 0
        else:
            self.table_last = 2
            self.own_last[seat] = 1
            if kind == "c":
                self.callers += 1


def stack_features(predictor: Predictor, state: PlayerState, population: PlayerState, context: int, fine: int,
                   round_: int, out: np.ndarray, backoff: Triple | None = None, twelve: Triple | None = None) -> None:
    """Write the player's statistics (the models as they stand) into ``out``."""
    for k, v in stack_pairs(predictor, state, population, context, fine, round_, backoff, twelve):
        out[k] = v


def stack_pairs(predictor: Predictor, state: PlayerState, population: PlayerState, context: int, fine: int,
                round_: int, backoff: Triple | None = None, twelve: Triple | None = None,
                stats: tuple[float, float] | None = None) -> list[tuple[int, float]]:
    """The player's statistics (the models as they stand) as (column, value) pairs.
    ``stats``: the player's ``player_stats``, when the caller keeps them for the hand
    (they change only when a hand is learned)."""
    if backoff is None:
        backoff = predictor.backoff(state, population, context, fine)
    if twelve is None:
        twelve = predictor.twelve(state, context)
    b0, b1, b2 = _log(backoff[0]), _log(backoff[1]), _log(backoff[2])
    o = _O_STACK_CTX + 3 * context
    nf, nc = _seen(state, context, fine, predictor.factor)
    loose, aggr = player_stats(state, predictor.factor) if stats is None else stats
    seen = math.log1p(nf) / 4.0
    r = _O_STACK_ROUND + len(_STACK_PER_ROUND) * round_
    return [
        (o, b0), (o + 1, b1), (o + 2, b2),
        (r, _log(twelve[0])), (r + 1, _log(twelve[1])), (r + 2, _log(twelve[2])),
        (r + 3, seen), (r + 4, math.log1p(nc) / 6.0), (r + 5, math.log1p(state.hands) / 8.0),
        (r + 6, loose), (r + 7, aggr), (r + 8, b0 * seen), (r + 9, b1 * seen), (r + 10, b2 * seen),
    ]


def hand_features(actions: Sequence[tuple[Any, ...]], seated: int, small_bet: int, big_bet: int,
                  states: Sequence[PlayerState], population: PlayerState, predictor: Predictor
                  ) -> list[tuple[int, int, int, int, np.ndarray]]:
    """(seat, context, round, action class, features) of every decision of a hand, the
    players' statistics read from ``states`` and ``population`` as they stand (the
    models before the hand: the caller learns the hand afterwards)."""
    walker = DecisionFeatures(seated, small_bet, big_bet)
    out = []
    for a in actions:
        seat, rnd, kind, amount, btc, position, context, fine = a[1], a[2], a[3], a[4], a[5], a[7], a[10], a[11]
        if kind != "sb" and kind != "bb":
            x = np.zeros(N_FEATURES)
            walker.public(seat, rnd, btc, context, fine, position, x)
            stack_features(predictor, states[seat], population, context, fine, rnd, x)
            out.append((seat, context, rnd, _CLASS[kind], x))
        walker.record(seat, rnd, kind, amount)
    return out


_CLASS = {"f": 0, "k": 1, "c": 1, "b": 2, "r": 2}


def _softmax_of(cols: list[list[float]], z0: float, z1: float, z2: float,
                pairs: Sequence[tuple[int, float]]) -> Triple:
    """Softmax of the logits (z0, z1, z2) plus each sparse pair's weighted column."""
    c0, c1, c2 = cols
    for k, v in pairs:
        z0 += c0[k] * v
        z1 += c1[k] * v
        z2 += c2[k] * v
    return _softmax3(z0, z1, z2)


def _softmax3(z0: float, z1: float, z2: float) -> tuple[float, float, float]:
    """Softmax of three logits in plain floats (the play path; numpy's per-call cost
    would be most of it)."""
    top = z0 if z0 > z1 else z1
    if z2 > top:
        top = z2
    e0, e1, e2 = math.exp(z0 - top), math.exp(z1 - top), math.exp(z2 - top)
    total = e0 + e1 + e2
    return (e0 / total, e1 / total, e2 / total)


@dataclass
class LearnedModel:
    """Fitted weights (3 × N_FEATURES, fold/call/raise logits) and what they were fitted
    on: the feature scheme, the L2 penalty, the decisions and the time range of the
    hands (Unix times), so a stored model says what data it has seen. ``network``, when
    set, is a hidden layer (U: units × N_FEATURES, b: units, V: 3 × units) whose
    ``V tanh(U x + b)`` is added to the logits (agent.models.network, Billings et al.'s [poki-2002] network)."""

    weights: np.ndarray
    l2: float
    decisions: int = 0
    hands: int = 0
    first_started_at: float | None = None
    last_started_at: float | None = None
    scheme: str = FEATURE_SCHEME
    train_loglik: float = float("nan")
    extra: dict[str, Any] = field(default_factory=dict)
    network: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    _columns: list[list[float]] | None = field(default=None, init=False, repr=False, compare=False)
    _fine_logits: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _fine_hidden: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)
    _UT: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    _blocks: dict[Any, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=np.float64)
        if w.shape != (3, N_FEATURES):
            raise ValueError(f"learned predictor weights must be 3 x {N_FEATURES}, got {w.shape}")
        if not np.all(np.isfinite(w)):
            raise ValueError("learned predictor weights must be finite")
        self.weights = w
        if self.network is not None:
            U, b, V = (np.asarray(a, dtype=np.float64) for a in self.network)
            h = U.shape[0] if U.ndim == 2 else -1
            if h < 1 or U.shape != (h, N_FEATURES) or b.shape != (h,) or V.shape != (3, h):
                raise ValueError(f"learned predictor hidden layer must be U units x {N_FEATURES}, b units, "
                                 f"V 3 x units; got {U.shape}, {b.shape}, {V.shape}")
            if not (np.all(np.isfinite(U)) and np.all(np.isfinite(b)) and np.all(np.isfinite(V))):
                raise ValueError("learned predictor hidden weights must be finite")
            self.network = (U, b, V)
            self._UT = np.ascontiguousarray(U.T)  # one row of hidden weights per input column

    @property
    def kind(self) -> str:
        return "logistic" if self.network is None else "network"

    @property
    def hidden_units(self) -> int:
        return 0 if self.network is None else int(self.network[0].shape[0])

    @classmethod
    def from_flat(cls, w: np.ndarray, hidden: int, l2: float, **kwargs: Any) -> LearnedModel:
        """The model of a flat parameter vector of agent.models.network's layout."""
        W, U, b, V = mlp_unpack(np.asarray(w, dtype=np.float64), MLPShape(N_FEATURES, hidden))
        return cls(W.copy(), l2, network=(U.copy(), b.copy(), V.copy()) if hidden else None, **kwargs)

    def logits(self, X: np.ndarray) -> np.ndarray:
        """The (fold, call, raise) logits of every row of ``X`` (a matrix)."""
        Z: np.ndarray = X @ self.weights.T
        if self.network is not None:
            U, b, V = self.network
            Z += np.tanh(X @ U.T + b) @ V.T
        return Z

    def triple(self, x: np.ndarray) -> Triple:
        """(fold, call, raise) probabilities for one feature vector."""
        z = self.weights @ x
        if self.network is not None:
            U, b, V = self.network
            z = z + V @ np.tanh(U @ x + b)
        z -= z.max()
        e = np.exp(z)
        s = e.sum()
        return (float(e[0] / s), float(e[1] / s), float(e[2] / s))

    def triple_pairs(self, pairs: Sequence[tuple[int, float]]) -> Triple:
        """(fold, call, raise) probabilities from a sparse feature vector's (column,
        value) pairs, in plain Python floats: what play reads (no array per decision)."""
        cols = self._columns
        if cols is None:
            cols = self._columns = self.weights.tolist()  # three lists: fold, call, raise weights
        if self.network is None:
            return _softmax_of(cols, 0.0, 0.0, 0.0, pairs)
        pre = self.network[1].copy()
        UT = self._UT
        assert UT is not None  # set with the network, when the model is made
        for k, v in pairs:
            pre += UT[k] * v
        z0, z1, z2 = (self.network[2] @ np.tanh(pre)).tolist()
        return _softmax_of(cols, z0, z1, z2, pairs)

    def triple_split(self, context: int, fine: int, table: int, own: int,
                     pairs: Sequence[tuple[int, float]]) -> Triple:
        """``triple_pairs`` for features given as DecisionFeatures.public_split gives them
        plus the player's ``stack_pairs``: the weights of a fine context's one-hot
        columns are summed once per fine context and kept (for the hidden layer too:
        its pre-activation from those columns, one vector per fine context)."""
        cols = self._columns
        if cols is None:
            cols = self._columns = self.weights.tolist()
        c0, c1, c2 = cols
        base = self._fine_logits.get(fine)
        if base is None:
            ks = fine_columns(context, fine)
            base = self._fine_logits[fine] = (sum(c0[k] for k in ks), sum(c1[k] for k in ks), sum(c2[k] for k in ks))
        z0 = base[0] + c0[table] + c0[own]
        z1 = base[1] + c1[table] + c1[own]
        z2 = base[2] + c2[table] + c2[own]
        if self.network is not None:
            return self._network_split(context, fine, table, own, pairs, z0, z1, z2)
        return _softmax_of(cols, z0, z1, z2, pairs)

    def _network_split(self, context: int, fine: int, table: int, own: int, pairs: Sequence[tuple[int, float]],
                       z0: float, z1: float, z2: float) -> Triple:
        """triple_split with the hidden layer. The one-hot columns' share (the fine
        context, the last action at the table, the player's own) of the hidden
        pre-activations is kept per triple of them; the rows of U and of the direct
        weights for the numeric pairs' columns are gathered once per sequence of columns
        (in play: one per coarse context) into one block, so a decision costs one small
        product for both the hidden layer and the direct logits."""
        UT, (_, b, V) = self._UT, self.network  # type: ignore[misc]  # called only with a network
        assert UT is not None
        key = (fine, table, own)
        hb = self._fine_hidden.get(key)
        if hb is None:
            hb = self._fine_hidden[key] = UT[fine_columns(context, fine)].sum(axis=0) + UT[table] + UT[own] + b
        ks = tuple([k for k, _ in pairs])
        block = self._blocks.get(ks)
        if block is None:
            cols = list(ks)
            block = self._blocks[ks] = np.ascontiguousarray(np.hstack([UT[cols], self.weights[:, cols].T]))
        out = np.array([v for _, v in pairs]) @ block
        h = len(hb)
        y0, y1, y2 = (V @ np.tanh(out[:h] + hb) + out[h:]).tolist()
        return _softmax3(z0 + y0, z1 + y1, z2 + y2)

    def probabilities(self, X: np.ndarray) -> np.ndarray:
        """Row-wise (fold, call, raise) probabilities for a matrix of feature vectors."""
        return _softmax(self.logits(X))

    def to_json(self) -> str:
        d: dict[str, Any] = {
            "scheme": self.scheme, "kind": self.kind, "l2": self.l2, "decisions": self.decisions, "hands": self.hands,
            "first_started_at": self.first_started_at, "last_started_at": self.last_started_at,
            "train_loglik": self.train_loglik, "extra": self.extra, "weights": self.weights.tolist(),
        }
        if self.network is not None:
            U, b, V = self.network
            d["hidden"] = {"U": U.tolist(), "b": b.tolist(), "V": V.tolist()}
        return json.dumps(d)

    @classmethod
    def from_json(cls, text: str) -> LearnedModel:
        """The model stored as ``to_json`` wrote it; ValueError for anything else
        (another feature scheme, a model kind this build does not know, wrong shape,
        not finite). A model stored before networks existed has no kind: logistic."""
        try:
            d = json.loads(text)
            scheme = d["scheme"]
            kind = d.get("kind", "logistic")
            weights = np.array(d["weights"], dtype=np.float64)
            hidden = d.get("hidden")
            network = None
            if kind == "network":
                network = (np.array(hidden["U"], dtype=np.float64), np.array(hidden["b"], dtype=np.float64),
                           np.array(hidden["V"], dtype=np.float64))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"not a stored learned predictor: {exc}") from None
        if scheme != FEATURE_SCHEME:
            raise ValueError(f"learned predictor fitted on feature scheme {scheme!r}, this build reads "
                             f"{FEATURE_SCHEME!r}: fit it again (poki db fit-predictor)")
        if kind not in MODEL_KINDS:
            raise ValueError(f"learned predictor of kind {kind!r}, this build reads {' and '.join(MODEL_KINDS)}: "
                             f"fit it again (poki db fit-predictor)")
        if kind == "logistic" and hidden is not None:
            raise ValueError("not a stored learned predictor: a logistic model with hidden weights")
        return cls(weights, float(d["l2"]), int(d.get("decisions", 0)), int(d.get("hands", 0)),
                   d.get("first_started_at"), d.get("last_started_at"), scheme,
                   float(d.get("train_loglik", float("nan"))), dict(d.get("extra") or {}), network)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return out


def mean_loglik(P: np.ndarray, y: np.ndarray, epsilon: float = EPSILON) -> float:
    """Mean floored log-likelihood of the actions ``y`` under probabilities ``P``, as the
    shadow scorer computes it (entries floored at epsilon, renormalised)."""
    Q = np.maximum(P, epsilon)
    Q = Q / Q.sum(axis=1, keepdims=True)
    return float(np.mean(np.log(Q[np.arange(len(y)), y])))


def _objective(w: np.ndarray, X: np.ndarray, Y: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """Penalised mean negative log-likelihood and its gradient (weights flattened)."""
    n = X.shape[0]
    W = w.reshape(3, -1)
    Z = X @ W.T
    Z -= Z.max(axis=1, keepdims=True)
    logsum = np.log(np.exp(Z).sum(axis=1, keepdims=True))
    logP = Z - logsum
    loss = -float(np.sum(logP * Y)) / n + 0.5 * l2 * float(np.sum(w * w))
    G = (np.exp(logP) - Y).T @ X / n + l2 * W
    return loss, G.ravel()


def fit(X: np.ndarray, y: np.ndarray, l2: float, *, max_iter: int = 300, tol: float = 1e-7, memory: int = 10,
        progress: Callable[[int, float], None] | None = None) -> np.ndarray:
    """Weights (3 × columns of ``X``) maximising the mean log-likelihood of the classes
    ``y`` (0 fold, 1 call, 2 raise) minus ``l2``/2 × the squared weights, by L-BFGS
    (agent.models.network.lbfgs) from zero weights.
    Deterministic: no random choice is made, so the same data give the same weights.
    ``progress(iteration, loss)`` is told of every iteration."""
    X, y = training_data(X, y, "fit")
    if not (math.isfinite(l2) and l2 >= 0):
        raise ValueError(f"l2 must be a non-negative number, got {l2!r}")
    Y = np.zeros((len(y), 3))
    Y[np.arange(len(y)), y] = 1.0
    w = lbfgs(lambda v: _objective(v, X, Y, l2), np.zeros(3 * X.shape[1]), max_iter=max_iter, tol=tol,
              memory=memory, progress=progress)
    return w.reshape(3, -1)
