"""The opponent model's predictions (seeds 002, 004): what an opponent will do in a context,
from the decayed counts stored for it (agent.models.frequencies), and where the engine gets
those counts from — the :class:`ModelStore` protocol, which the SQLite database
(db.Database) and the in-memory :class:`MemoryModelStore` implement.

Specific model: each context's decayed (fold, call, raise) frequencies blended with that
context's default triple, the data's share growing linearly until the context holds
``blend_observations`` decayed observations (DESIGN.md's defaults: facing no bet
0/.5/.5, one bet .5/.3/.2, two or more .7/.2/.1). The richer back-off and meta predictors
(agent.models.prediction) read the fine contexts and the population kept with each model;
the learned predictor (agent.models.learned, seed 004's neural-network idea as a logistic
regression) reads the decision's public features besides, and its weights come from a
store that holds them (``learned_model``: the database after ``poki db fit-predictor``).
"""
from __future__ import annotations

import logging
import math
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, runtime_checkable

from agent.models.frequencies import DEFAULT_HALF_LIFE, Decay, PlayerModel, PlayerState
from agent.models.learned import LearnedModel, stack_pairs
from agent.models.prediction import (
    DEFAULT_BLEND_OBSERVATIONS, DEFAULT_STRENGTHS, DEFAULT_TRIPLES, Predictor, Strengths, blend_triple,
)
from agent.game.prepared import prepare_hand
from agent.game.records import HandRecord, RecordError, WriteReport

__all__ = ["DEFAULT_BLEND_OBSERVATIONS", "DEFAULT_TRIPLES", "MemoryModelStore", "ModelStore", "PREDICTOR_CHOICES",
           "learned_of", "predict_learned", "predict_model", "predict_triple"]

Triple = tuple[float, float, float]
PREDICTOR_CHOICES = ("twelve", "backoff", "meta", "learned")
_EMPTY = PlayerState()
_log = logging.getLogger(__name__)
_WARNED: set[str] = set()  # stores already warned about (once per process each)


def predict_triple(model: PlayerModel, context: int,
                   blend_observations: float = DEFAULT_BLEND_OBSERVATIONS) -> Triple:
    """The twelve-context prediction: the decayed frequencies of ``model`` in ``context``
    blended with the context's default triple, the data's share growing linearly until
    the context holds ``blend_observations`` (decayed) observations."""
    return blend_triple(model.decayed[context], context, blend_observations)


def predict_model(model: PlayerModel, context: int, fine: int, predictor: Predictor, which: str = "meta") -> Triple:
    """What ``model``'s player does next in (coarse ``context``, ``fine`` context) by the
    predictor named ``which`` (PREDICTOR_CHOICES); a model without its full state (built
    by hand) falls back to the twelve contexts."""
    state = model.state
    if which == "twelve" or state is None:
        return predict_triple(model, context, predictor.blend)
    population = model.population if model.population is not None else _EMPTY
    if which == "backoff" or which == "learned":  # learned: only when no weights are stored
        return predictor.backoff(state, population, context, fine)
    return predictor.meta(state, population, context, fine)


def learned_of(store: Any, which: str) -> LearnedModel | None:
    """The fitted weights the engine reads for predictor ``which`` from ``store``: those
    its ``learned_model()`` returns (the database's ``learned_predictors`` row) when
    ``which`` is learned or meta, else None. With ``which`` = learned and no weights
    (a store without the method, an empty table, a row this build cannot read) a warning
    is logged once per store and the caller reads the back-off instead."""
    if which not in ("learned", "meta"):
        return None
    reader = getattr(store, "learned_model", None)
    problem = "it keeps no fitted weights"
    model = None
    if callable(reader):
        try:
            model = reader()
            problem = "it holds no fitted weights (poki db fit-predictor)"
        except ValueError as exc:  # weights of another feature scheme, or not weights at all
            problem = str(exc)
    if model is None and which == "learned":
        where = str(getattr(store, "path", type(store).__name__))
        if where not in _WARNED:
            _WARNED.add(where)
            _log.warning("[model] predictor = \"learned\" but %s: %s; the back-off predictor is read instead",
                         where, problem)
    return model


def predict_learned(model: PlayerModel, context: int, fine: int, round_: int, predictor: Predictor,
                    learned: LearnedModel, public: tuple[int, int, Sequence[tuple[int, float]]],
                    which: str = "learned", stats: tuple[float, float] | None = None) -> Triple:
    """The learned predictor's triple for a decision whose public features are
    ``public`` (agent.models.learned.DecisionFeatures.public_split) and whose player's
    statistics come from ``model`` (as it stood before the hand, like training). With
    ``which`` = meta, twelve, back-off and learned mixed by exp(running log-likelihood):
    the twelve's and back-off's from the player's stored scores, the learned one's taken
    as the back-off's (it keeps no record of its own in play), as the shadow scorer starts
    a player. A model without its full state (built by hand) reads the twelve contexts."""
    state = model.state
    if state is None:
        return predict_triple(model, context, predictor.blend)
    population = model.population if model.population is not None else _EMPTY
    backoff = predictor.backoff(state, population, context, fine)
    twelve = predictor.twelve(state, context)
    table, own, pairs = public
    lt = learned.triple_split(context, fine, table, own,
                              list(pairs) + stack_pairs(predictor, state, population, context, fine, round_,
                                                        backoff, twelve, stats))
    if which != "meta":
        return lt
    s0, s1 = state.score_twelve, state.score_backoff
    if state.hands != state.scores_ref:
        k = predictor.factor ** (state.hands - state.scores_ref)
        s0 *= k
        s1 *= k
    top = s0 if s0 > s1 else s1
    w0, w1 = math.exp(s0 - top), math.exp(s1 - top)
    total = w0 + 2.0 * w1
    return ((w0 * twelve[0] + w1 * (backoff[0] + lt[0])) / total, (w0 * twelve[1] + w1 * (backoff[1] + lt[1])) / total,
            (w0 * twelve[2] + w1 * (backoff[2] + lt[2])) / total)


@runtime_checkable
class ModelStore(Protocol):
    """Where the modeler gets opponent models and where finished hands go. The engine owns
    this protocol; the SQLite ``db.Database`` and :class:`MemoryModelStore` provide it."""

    def get(self, nick: str, network: str) -> PlayerModel: ...

    def write_hand(self, record: HandRecord, network: str) -> WriteReport: ...


class MemoryModelStore:
    """The same models without a database, for play with nothing stored: hands are
    checked and counted once each exactly as the database does."""

    def __init__(self, half_life: float = DEFAULT_HALF_LIFE, strengths: Strengths = DEFAULT_STRENGTHS,
                 blend: float = DEFAULT_BLEND_OBSERVATIONS) -> None:
        self.decay = Decay(half_life)
        self.predictor = Predictor(self.decay, strengths, blend)
        self._players: dict[tuple[str, str], PlayerState] = {}
        self._populations: dict[str, PlayerState] = {}
        self._hand_ids: set[str] = set()
        self._pop_snaps: dict[str, PlayerState] = {}
        # Off-model counts (floor_on = "learned") and the (hand, network, nick) already added.
        self._off_model: dict[tuple[str, str], tuple[float, float, float, float]] = {}
        self._off_model_seen: OrderedDict[tuple[str, str, str], None] = OrderedDict()

    def state(self, nick: str, network: str) -> PlayerState | None:
        """The live state of a player (None if never seen): changed by later hands."""
        return self._players.get((network, nick))

    def population(self, network: str) -> PlayerState:
        """The live state of a network's whole population."""
        pop = self._populations.get(network)
        if pop is None:
            pop = self._populations[network] = PlayerState()
        return pop

    def seed(self, network: str, players: dict[str, PlayerState], population: PlayerState | None) -> None:
        """Start from models learned elsewhere (the database's), as they stand."""
        for nick, state in players.items():
            self._players[(network, nick)] = state
        if population is not None:
            self._populations[network] = population

    @property
    def half_life(self) -> float:
        return self.decay.half_life

    def write_hand(self, record: HandRecord, network: str) -> WriteReport:
        """Raise RecordError for an inconsistent hand; a hand already seen is a duplicate."""
        prepared = prepare_hand(record, network)
        if record.hand_id in self._hand_ids:
            return WriteReport(duplicates=1)
        self._hand_ids.add(record.hand_id)
        states = []
        for nick in prepared.players:
            key = (network, nick)
            state = self._players.get(key)
            if state is None:
                state = self._players[key] = PlayerState()
            states.append(state)
        self.predictor.advance(states, self.population(network), prepared.observations)
        return WriteReport(stored=1)

    def write_hands(self, records: Iterable[HandRecord], network: str, *,
                    batch_hands: int | None = None) -> WriteReport:
        """Every hand of ``records`` as :meth:`write_hand` does; ``batch_hands`` is the
        database's transaction size, meaningless here and accepted so either store serves."""
        report = WriteReport()
        for record in records:
            try:
                report.add(self.write_hand(record, network))
            except RecordError as exc:
                report.rejected.append((str(getattr(record, "hand_id", "?")), str(exc)))
        return report

    def get(self, nick: str, network: str) -> PlayerModel:
        state = self._players.get((network, nick))
        if state is None:
            return PlayerModel.empty(nick, network, self.decay.half_life)
        return state.snapshot(nick, network, self.decay, self._population_snapshot(network))

    def _population_snapshot(self, network: str) -> PlayerState:
        # One copy per hand learned, shared by every model read until the next hand.
        pop = self.population(network)
        snap = self._pop_snaps.get(network)
        if snap is None or snap.hands != pop.hands:
            snap = self._pop_snaps[network] = pop.copy()
        return snap

    def off_model(self, nick: str, network: str) -> tuple[float, float, float, float]:
        """(calls, of them off-model, bets/raises, of them off-model) seen at `nick`'s
        showdowns (the engine's floor_on = "learned"; zeros for a player never counted)."""
        return self._off_model.get((network, nick), (0.0, 0.0, 0.0, 0.0))

    def add_off_model(self, nick: str, network: str, hand_id: str, counts: Sequence[float]) -> bool:
        """Add one shown-down hand's counts for `nick`, once per (hand, nick) however many
        seats report it (False when already added); ValueError for counts that are not
        counts (k ≤ n, finite, ≥ 0)."""
        key = (hand_id, network, nick)
        if key in self._off_model_seen:
            return False
        n_c, k_c, n_r, k_r = (float(x) for x in counts)
        if not all(math.isfinite(x) and x >= 0 for x in (n_c, k_c, n_r, k_r)) or k_c > n_c or k_r > n_r:
            raise ValueError(f"off-model counts of {nick!r} in {hand_id}: {tuple(counts)!r} are not counts")
        old = self._off_model.get((network, nick), (0.0, 0.0, 0.0, 0.0))
        self._off_model[(network, nick)] = (old[0] + n_c, old[1] + k_c, old[2] + n_r, old[3] + k_r)
        self._off_model_seen[key] = None
        if len(self._off_model_seen) > 4096:
            self._off_model_seen.popitem(last=False)
        return True

    def players(self) -> list[tuple[str, str]]:
        """(network, nick) of every player seen."""
        return sorted(self._players)
