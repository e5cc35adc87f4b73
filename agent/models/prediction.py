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

from agent.models.frequencies import ContextCounts, Decay, PlayerState

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
    d = DEFAULT_TRIPLES[context]
    if counts[0] + counts[1] + counts[2] <= 0:
        return d
    return _blend3(counts[0], counts[1], counts[2], d[0], d[1], d[2], blend)


def backoff_triple(player_fine: Sequence[float], player_coarse: Sequence[float], pop_fine: Sequence[float],
                   pop_coarse: Sequence[float], context: int, s: Strengths = DEFAULT_STRENGTHS) -> Triple:
    """The back-off prediction from four decayed count triples (module docstring)."""
    d = DEFAULT_TRIPLES[context]
    return _backoff3(player_fine[0], player_fine[1], player_fine[2], player_coarse[0], player_coarse[1],
                     player_coarse[2], pop_fine[0], pop_fine[1], pop_fine[2], pop_coarse[0], pop_coarse[1],
                     pop_coarse[2], d[0], d[1], d[2], s.population, s.coarse, s.fine)


def _backoff3(x0: float, x1: float, x2: float, y0: float, y1: float, y2: float, u0: float, u1: float, u2: float,
              v0: float, v1: float, v2: float, d0: float, d1: float, d2: float, a: float, b: float, g: float
              ) -> Triple:
    """backoff_triple on plain numbers (C doubles once compiled, prediction.pxd): the
    player's fine (x) and coarse (y) counts, the population's fine (u) and coarse (v)
    counts, the context's default triple (d) and the strengths (a, b, g)."""
    # The population's coarse frequencies, with the default triple as one pseudo-count
    # so an empty population still predicts; floored so the tilt below never divides by 0.
    n = v0 + v1 + v2 + 1.0
    pc0 = (v0 + d0) / n + 1e-4
    pc1 = (v1 + d1) / n + 1e-4
    pc2 = (v2 + d2) / n + 1e-4
    n = u0 + u1 + u2 + a
    pf0 = (u0 + a * pc0) / n
    pf1 = (u1 + a * pc1) / n
    pf2 = (u2 + a * pc2) / n
    n = y0 + y1 + y2 + b
    # The prior of the fine context: the population's tilted by the player's departure
    # from the population in the coarse context, action by action.
    q0 = pf0 * ((y0 + b * pc0) / n / pc0)
    q1 = pf1 * ((y1 + b * pc1) / n / pc1)
    q2 = pf2 * ((y2 + b * pc2) / n / pc2)
    n = x0 + x1 + x2 + g
    g = g / (q0 + q1 + q2)
    return ((x0 + g * q0) / n, (x1 + g * q1) / n, (x2 + g * q2) / n)


def _blend3(c0: float, c1: float, c2: float, d0: float, d1: float, d2: float, blend: float) -> Triple:
    """blend_triple on plain numbers."""
    total = c0 + c1 + c2
    if total <= 0:
        return (d0, d1, d2)
    w = 1.0
    if blend > 0 and total < blend:
        w = total / blend
    v = 1.0 - w
    return (v * d0 + w * c0 / total, v * d1 + w * c1 / total, v * d2 + w * c2 / total)


def _loglik3(p0: float, p1: float, p2: float, actual: int, epsilon: float) -> float:
    """floored_loglik on plain numbers."""
    if p0 < epsilon:
        p0 = epsilon
    if p1 < epsilon:
        p1 = epsilon
    if p2 < epsilon:
        p2 = epsilon
    p = p0 if actual == 0 else (p1 if actual == 1 else p2)
    return math.log(p / (p0 + p1 + p2))


def floored_loglik(triple: Sequence[float], actual: int, epsilon: float = EPSILON) -> float:
    """log of the probability given to ``actual`` after flooring every entry at
    ``epsilon`` and renormalising (one impossible-looking action costs ln(epsilon))."""
    return _loglik3(triple[0], triple[1], triple[2], actual, epsilon)


_EMPTY = ContextCounts()  # read where a context was never observed; never changed


def _read(cc: ContextCounts | None, now: int, factor: float) -> Triple:
    if cc is None:
        return (0.0, 0.0, 0.0)
    return cc.decayed_at(now, factor)


class Predictor:
    """The three predictors for one decay and one set of strengths, and the one way a
    hand's decisions are scored and learned (``advance``), shared by the database and the
    in-memory store so incremental updates and a recomputation agree."""

    __slots__ = ("decay", "factor", "pop_decay", "pop_factor", "strengths", "blend", "epsilon",
                 "s_population", "s_coarse", "s_fine")

    def __init__(self, decay: Decay, strengths: Strengths = DEFAULT_STRENGTHS,
                 blend: float = DEFAULT_BLEND_OBSERVATIONS, epsilon: float = EPSILON) -> None:
        self.decay = decay
        self.factor = decay.factor
        self.strengths = strengths
        self.s_population = float(strengths.population)
        self.s_coarse = float(strengths.coarse)
        self.s_fine = float(strengths.fine)
        self.pop_decay = Decay(strengths.population_half_life)
        self.pop_factor = self.pop_decay.factor
        self.blend = float(blend)
        self.epsilon = float(epsilon)

    def twelve(self, state: PlayerState, context: int) -> Triple:
        cc = state.contexts[context]
        d = DEFAULT_TRIPLES[context]
        if cc is None:
            return d
        k = 1.0 if cc.ref == state.hands else self.factor ** (state.hands - cc.ref)
        return _blend3(cc.f * k, cc.c * k, cc.r * k, d[0], d[1], d[2], self.blend)

    def backoff(self, state: PlayerState, population: PlayerState, context: int, fine: int) -> Triple:
        d = DEFAULT_TRIPLES[context]
        f, pf = self.factor, self.pop_factor
        now, pnow = state.hands, population.hands
        x = _known(state.fine.get(fine))
        y = _known(state.contexts[context])
        u = _known(population.fine.get(fine))
        v = _known(population.contexts[context])
        kx = 1.0 if x.ref == now else f ** (now - x.ref)
        ky = 1.0 if y.ref == now else f ** (now - y.ref)
        ku = 1.0 if u.ref == pnow else pf ** (pnow - u.ref)
        kv = 1.0 if v.ref == pnow else pf ** (pnow - v.ref)
        return _backoff3(x.f * kx, x.c * kx, x.r * kx, y.f * ky, y.c * ky, y.r * ky, u.f * ku, u.c * ku, u.r * ku,
                         v.f * kv, v.c * kv, v.r * kv, d[0], d[1], d[2],
                         self.s_population, self.s_coarse, self.s_fine)

    def weights(self, state: PlayerState) -> tuple[float, float]:
        """The meta-predictor's weights of (twelve, backoff) for this player."""
        s0, s1 = state.score_twelve, state.score_backoff
        if state.hands != state.scores_ref:
            k = self.factor ** (state.hands - state.scores_ref)
            s0 *= k
            s1 *= k
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
        written out on the counts' fields (C numbers once compiled: frequencies.pxd,
        prediction.pxd): each count read is first brought to the present (as observe
        would), so it is scaled once, not twice (the writer's hot path)."""
        for state in states:
            state.hands += 1
        population.hands += 1
        f, pf, eps, blend = self.factor, self.pop_factor, self.epsilon, self.blend
        sa, sb, sg = self.s_population, self.s_coarse, self.s_fine
        pnow = population.hands
        pop_contexts, pop_fine = population.contexts, population.fine
        for seat, context, action_class, fine in observations:
            state = states[seat]
            now = state.hands
            v = _present(pop_contexts, context, pnow, pf)
            u = _present_fine(pop_fine, fine, pnow, pf)
            y = _present(state.contexts, context, now, f)
            x = _present_fine(state.fine, fine, now, f)
            d = DEFAULT_TRIPLES[context]
            d0, d1, d2 = d
            if y.f + y.c + y.r <= 0:
                la = _loglik3(d0, d1, d2, action_class, eps)
            else:
                a0, a1, a2 = _blend3(y.f, y.c, y.r, d0, d1, d2, blend)
                la = _loglik3(a0, a1, a2, action_class, eps)
            b0, b1, b2 = _backoff3(x.f, x.c, x.r, y.f, y.c, y.r, u.f, u.c, u.r, v.f, v.c, v.r, d0, d1, d2,
                                   sa, sb, sg)
            lb = _loglik3(b0, b1, b2, action_class, eps)
            # state.add_scores, written out.
            if state.scores_ref != now:
                k = f ** (now - state.scores_ref)
                state.score_twelve *= k
                state.score_backoff *= k
                state.scores_ref = now
            state.score_twelve += la
            state.score_backoff += lb
            y.add(action_class)
            x.add(action_class)
            v.add(action_class)
            u.add(action_class)


def _known(cc: ContextCounts | None) -> ContextCounts:
    return _EMPTY if cc is None else cc


def _present(contexts: list[ContextCounts | None], context: int, now: int, factor: float) -> ContextCounts:
    """The counts of a coarse context (made if new), scaled to the hand ``now``."""
    cc = contexts[context]
    if cc is None:
        cc = ContextCounts(None, now)
        contexts[context] = cc
    else:
        cc.bring_to(now, factor)
    return cc


def _present_fine(fine: dict[int, ContextCounts], context: int, now: int, factor: float) -> ContextCounts:
    """The counts of a fine context (made if new), scaled to the hand ``now``."""
    cc = fine.get(context)
    if cc is None:
        cc = ContextCounts(None, now)
        fine[context] = cc
    else:
        cc.bring_to(now, factor)
    return cc
