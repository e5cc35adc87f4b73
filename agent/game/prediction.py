"""Next-action predictions from decayed counts, defined once for every part that needs
them: the engine's modeler, the database (which keeps each player's running score of
every predictor), the in-memory store and the shadow scorer.

Three predictors give a (fold, call, raise) triple:

* **twelve** — the specific model of seed 002/004: the player's decayed frequencies in
  one of the twelve coarse contexts, blended with the context's default triple until
  the context holds ``blend`` observations (DESIGN.md's defaults).
* **backoff** — hierarchical smoothing over the fine contexts of agent.game.context
  (seed 004: twelve contexts miss the number of opponents, position and the board; a
  context defined too narrowly takes too long to learn). Each level is a Dirichlet
  posterior whose prior is the level above, so each source counts by how much it has
  seen: the population's fine counts shrink to the population's coarse frequencies
  (strength ``population``); the player's coarse counts shrink to the population's
  coarse frequencies (``coarse``); the prior of the player's fine context is the
  population's fine frequencies tilted by how the player departs from the population in
  the coarse context; the player's fine counts shrink to that prior (``fine``). The
  strengths are pseudo-counts learned from the data (``poki predict-tune`` fits them by
  log-likelihood on a slice of hands scored before they are learned), not set by hand.
* **meta** — seed 004's meta-predictor, which "uses whichever [method] is most
  successful for each opponent": the twelve-context and back-off predictions mixed with
  weights proportional to exp(running log-likelihood) of each on this player's own
  earlier decisions (Bayesian model averaging; the running sums decay with the player's
  hands like the counts, so a player who changes style moves the mix).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agent.game.frequencies import ContextCounts, Decay, PlayerState

__all__ = [
    "DEFAULT_BLEND_OBSERVATIONS", "DEFAULT_STRENGTHS", "DEFAULT_TRIPLES", "EPSILON", "META_PREDICTORS",
    "Predictor", "Strengths", "backoff_triple", "blend_triple", "floored_loglik",
]

Triple = tuple[float, float, float]

# Triples a context starts from before the player has shown anything (DESIGN.md):
# facing no bet folding is pointless; facing bets a player folds more the more they face.
DEFAULT_TRIPLES: tuple[Triple, ...] = (
    (0.0, 0.5, 0.5),
    (0.5, 0.3, 0.2),
    (0.7, 0.2, 0.1),
) * 4
DEFAULT_BLEND_OBSERVATIONS = 20.0
EPSILON = 1e-3  # every probability is floored here before a log is taken
META_PREDICTORS = ("twelve", "backoff")  # the order of PlayerState.scores


@dataclass(frozen=True, slots=True)
class Strengths:
    """Pseudo-counts of the back-off hierarchy and the population's half-life (hands of
    the whole network). Defaults: fitted by ``poki predict-tune`` on the April 1995 IRC
    hands of 1995-04-15 to 04-19, scored from models learned before 04-15 (docs/prediction.md)."""

    population: float = 4.0
    coarse: float = 16.0
    fine: float = 32.0
    population_half_life: float = 20000.0

    def __post_init__(self) -> None:
        for name in ("population", "coarse", "fine", "population_half_life"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (math.isfinite(v) and v > 0):
                raise ValueError(f"back-off {name} must be a positive number, got {v!r}")


DEFAULT_STRENGTHS = Strengths()


def blend_triple(counts: Sequence[float], context: int, blend: float = DEFAULT_BLEND_OBSERVATIONS) -> Triple:
    """Decayed (fold, call, raise) counts of a coarse context blended with the context's
    default triple, the data's share growing linearly up to ``blend`` observations."""
    default = DEFAULT_TRIPLES[context]
    c0: float = counts[0]
    c1: float = counts[1]
    c2: float = counts[2]
    total: float = c0 + c1 + c2
    if total <= 0:
        return default
    w: float = 1.0
    if blend > 0 and total < blend:
        w = total / blend
    v: float = 1.0 - w
    return (v * default[0] + w * c0 / total, v * default[1] + w * c1 / total, v * default[2] + w * c2 / total)


def backoff_triple(player_fine: Sequence[float], player_coarse: Sequence[float], pop_fine: Sequence[float],
                   pop_coarse: Sequence[float], context: int, s: Strengths = DEFAULT_STRENGTHS) -> Triple:
    """The back-off prediction from four decayed count triples (module docstring)."""
    # Locals annotated float are C doubles once compiled (agent/native.py).
    d = DEFAULT_TRIPLES[context]
    # The population's coarse frequencies, with the default triple as one pseudo-count
    # so an empty population still predicts; floored so the tilt below never divides by 0.
    c0: float = pop_coarse[0]
    c1: float = pop_coarse[1]
    c2: float = pop_coarse[2]
    n: float = c0 + c1 + c2 + 1.0
    pc0: float = (c0 + d[0]) / n + 1e-4
    pc1: float = (c1 + d[1]) / n + 1e-4
    pc2: float = (c2 + d[2]) / n + 1e-4
    a: float = s.population
    c0, c1, c2 = pop_fine[0], pop_fine[1], pop_fine[2]
    n = c0 + c1 + c2 + a
    pf0: float = (c0 + a * pc0) / n
    pf1: float = (c1 + a * pc1) / n
    pf2: float = (c2 + a * pc2) / n
    b: float = s.coarse
    c0, c1, c2 = player_coarse[0], player_coarse[1], player_coarse[2]
    n = c0 + c1 + c2 + b
    # The prior of the fine context: the population's tilted by the player's departure
    # from the population in the coarse context, action by action.
    q0: float = pf0 * ((c0 + b * pc0) / n / pc0)
    q1: float = pf1 * ((c1 + b * pc1) / n / pc1)
    q2: float = pf2 * ((c2 + b * pc2) / n / pc2)
    g: float = s.fine
    c0, c1, c2 = player_fine[0], player_fine[1], player_fine[2]
    n = c0 + c1 + c2 + g
    g = g / (q0 + q1 + q2)
    return ((c0 + g * q0) / n, (c1 + g * q1) / n, (c2 + g * q2) / n)


def floored_loglik(triple: Sequence[float], actual: int, epsilon: float = EPSILON) -> float:
    """log of the probability given to ``actual`` after flooring every entry at
    ``epsilon`` and renormalising (one impossible-looking action costs ln(epsilon))."""
    p0: float = triple[0]
    p1: float = triple[1]
    p2: float = triple[2]
    if p0 < epsilon:
        p0 = epsilon
    if p1 < epsilon:
        p1 = epsilon
    if p2 < epsilon:
        p2 = epsilon
    p: float = p0 if actual == 0 else (p1 if actual == 1 else p2)
    return math.log(p / (p0 + p1 + p2))


_ZERO = (0.0, 0.0, 0.0)


def _read(cc: ContextCounts | None, now: int, factor: float) -> Sequence[float]:
    if cc is None:
        return _ZERO
    if cc.ref == now:
        return cc.decayed
    return cc.decayed_at(now, factor)


class Predictor:
    """The three predictors for one decay and one set of strengths, and the one way a
    hand's decisions are scored and learned (``advance``), shared by the database and the
    in-memory store so incremental updates and a recomputation agree."""

    __slots__ = ("decay", "factor", "pop_decay", "pop_factor", "strengths", "blend", "epsilon")

    def __init__(self, decay: Decay, strengths: Strengths = DEFAULT_STRENGTHS,
                 blend: float = DEFAULT_BLEND_OBSERVATIONS, epsilon: float = EPSILON) -> None:
        self.decay = decay
        self.factor = decay.factor
        self.strengths = strengths
        self.pop_decay = Decay(strengths.population_half_life)
        self.pop_factor = self.pop_decay.factor
        self.blend = float(blend)
        self.epsilon = float(epsilon)

    def twelve(self, state: PlayerState, context: int) -> Triple:
        return blend_triple(_read(state.contexts[context], state.hands, self.factor), context, self.blend)

    def backoff(self, state: PlayerState, population: PlayerState, context: int, fine: int) -> Triple:
        f, pf = self.factor, self.pop_factor
        return backoff_triple(
            _read(state.fine.get(fine), state.hands, f), _read(state.contexts[context], state.hands, f),
            _read(population.fine.get(fine), population.hands, pf),
            _read(population.contexts[context], population.hands, pf), context, self.strengths)

    def weights(self, state: PlayerState) -> tuple[float, float]:
        """The meta-predictor's weights of (twelve, backoff) for this player."""
        s0, s1 = state.scores_at(self.factor)
        if s0 >= s1:
            e = math.exp(s1 - s0)
            return 1.0 / (1.0 + e), e / (1.0 + e)
        e = math.exp(s0 - s1)
        return e / (1.0 + e), 1.0 / (1.0 + e)

    def all(self, state: PlayerState, population: PlayerState, context: int, fine: int
            ) -> tuple[Triple, Triple, Triple]:
        """(twelve, backoff, meta) for one decision."""
        a = self.twelve(state, context)
        b = self.backoff(state, population, context, fine)
        w0, w1 = self.weights(state)
        return a, b, (w0 * a[0] + w1 * b[0], w0 * a[1] + w1 * b[1], w0 * a[2] + w1 * b[2])

    def meta(self, state: PlayerState, population: PlayerState, context: int, fine: int) -> Triple:
        return self.all(state, population, context, fine)[2]

    def advance(self, states: Sequence[PlayerState], population: PlayerState,
                observations: Iterable[tuple[int, int, int, int]]) -> None:
        """One hand's effect: every seated player's hand counter and the population's move
        on; then, decision by decision in order, each predictor's log-likelihood of the
        action is added to the player's running scores (as the predictors stood before
        it) and the action is counted in the player's and the population's contexts.
        Blinds are forced, so they are not observations (agent.game.prepared).

        The same arithmetic as twelve() and backoff() followed by ContextCounts.observe,
        written out: each count read is first brought to the present (as observe would),
        so it is scaled once, not twice (the writer's hot path)."""
        for state in states:
            state.hands += 1
        population.hands += 1
        f, pf, eps = self.factor, self.pop_factor, self.epsilon
        blend = self.blend
        for seat, context, action_class, fine in observations:
            state = states[seat]
            now = state.hands
            pc_cc = _present(population.contexts, context, population.hands, pf)
            pf_cc = _present_fine(population.fine, fine, population.hands, pf)
            c_cc = _present(state.contexts, context, now, f)
            f_cc = _present_fine(state.fine, fine, now, f)
            # twelve
            counts = c_cc.decayed
            a = blend_triple(counts, context, blend)
            # back-off
            b = backoff_triple(f_cc.decayed, counts, pf_cc.decayed, pc_cc.decayed, context, self.strengths)
            # state.add_scores, written out.
            scores = state.scores
            if state.scores_ref != now:
                k: float = f ** (now - state.scores_ref)
                scores[0] *= k
                scores[1] *= k
                state.scores_ref = now
            scores[0] += floored_loglik(a, action_class, eps)
            scores[1] += floored_loglik(b, action_class, eps)
            c_cc.decayed[action_class] += 1.0
            c_cc.lifetime[action_class] += 1
            f_cc.decayed[action_class] += 1.0
            f_cc.lifetime[action_class] += 1
            pc_cc.decayed[action_class] += 1.0
            pc_cc.lifetime[action_class] += 1
            pf_cc.decayed[action_class] += 1.0
            pf_cc.lifetime[action_class] += 1


def _present(contexts: list[ContextCounts | None], context: int, now: int, factor: float) -> ContextCounts:
    """The counts of a coarse context (made if new), scaled to the hand ``now``."""
    cc = contexts[context]
    if cc is None:
        cc = contexts[context] = ContextCounts([0.0, 0.0, 0.0], now)
    else:
        cc.bring_to(now, factor)
    return cc


def _present_fine(fine: dict[int, ContextCounts], context: int, now: int, factor: float) -> ContextCounts:
    """The counts of a fine context (made if new), scaled to the hand ``now``."""
    cc = fine.get(context)
    if cc is None:
        cc = fine[context] = ContextCounts([0.0, 0.0, 0.0], now)
    else:
        cc.bring_to(now, factor)
    return cc
