"""The opponent model's predictions (seeds 002, 004): what an opponent will do in a context,
from the decayed counts stored for it (agent.models.frequencies), read from a model store
(agent.models.store: the SQLite database or the in-memory store).

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
from collections.abc import Sequence

from agent.models.frequencies import PlayerModel, PlayerState
from agent.models.learned import LearnedModel, stack_pairs
from agent.models.prediction import DEFAULT_BLEND_OBSERVATIONS, DEFAULT_TRIPLES, Predictor, blend_triple
from agent.models.store import ModelStore

__all__ = ["DEFAULT_BLEND_OBSERVATIONS", "DEFAULT_TRIPLES", "PREDICTOR_CHOICES", "learned_of", "predict_learned",
           "predict_model", "predict_triple"]

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


def learned_of(store: ModelStore, which: str) -> tuple[LearnedModel | None, str]:
    """The fitted weights the engine reads for predictor ``which`` from ``store`` (its
    ``learned_model()``: the database's ``learned_predictors`` row) when ``which`` is
    learned or meta, else None; with a word on what was found. With ``which`` = learned
    and no weights (an empty table, a row this build cannot read) a warning is logged once
    per store and the caller reads the back-off instead."""
    if which not in ("learned", "meta"):
        return None, "not read"
    where = store.describe()
    try:
        model = store.learned_model()
        problem = "the store holds no fitted weights (poki db fit-predictor)"
    except ValueError as exc:  # weights of another feature scheme, or not weights at all
        model, problem = None, str(exc)
    if model is not None:
        return model, "fitted weights from the store"
    if which == "learned" and where not in _WARNED:
        _WARNED.add(where)
        _log.warning("[model] predictor = \"learned\" but %s: %s; the back-off predictor is read instead",
                     where, problem)
    return None, f"none: {problem}"


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
