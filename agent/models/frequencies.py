"""Decayed per-context betting-frequency counts: how a player's observed decisions add up
and age. These are the numbers the opponent database stores and the opponent model reads
(agent.models.opponent_model turns them into predictions).

A player's observations age by the player's own hands (seed 004 asks for a decay so that
recent play counts more): every hand the player is dealt into multiplies the weight of
everything seen before by 0.5 ** (1 / half_life), so an observation made h hands ago
weighs 0.5 ** (h / half_life). Counts are kept lazily, as (count as of hand `ref`, ref),
and scaled only when they are read or added to, so an update is O(1) however long the
player has been away. The database and the in-memory store share this code, and learn a
hand through the one agent.models.prediction.Predictor.advance, so the two can never
disagree on the math.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent.game.context import N_CONTEXTS

__all__ = ["DEFAULT_HALF_LIFE", "ContextCounts", "Decay", "PlayerModel", "PlayerState"]

FOLD, CALL, RAISE = 0, 1, 2
DEFAULT_HALF_LIFE = 500.0

Triple = tuple[float, float, float]


class Decay:
    """The one definition of how observations age."""

    __slots__ = ("half_life", "factor")

    def __init__(self, half_life: float) -> None:
        if isinstance(half_life, bool) or not isinstance(half_life, (int, float)):
            raise ValueError(f"half-life must be a number of hands, got {half_life!r}")
        if not (math.isfinite(half_life) and half_life > 0):
            raise ValueError(f"half-life must be a positive number of hands, got {half_life!r}")
        self.half_life = float(half_life)
        self.factor = 0.5 ** (1.0 / self.half_life)

    def weight(self, elapsed: int) -> float:
        """What one observation made `elapsed` of the player's hands ago weighs now."""
        return self.factor**elapsed


class ContextCounts:
    """One context of one player: decayed (fold, call, raise) as of the player's hand
    `ref`, and lifetime counts.

    The seven numbers are plain fields (``f``, ``c``, ``r`` decayed; ``nf``, ``nc``,
    ``nr`` lifetime), C doubles and integers once compiled (frequencies.pxd), so the
    writer's hot path (agent.models.prediction.Predictor.advance) reads and adds to them
    without a Python object per number. ``decayed`` and ``lifetime`` give them as lists."""

    __slots__ = ("f", "c", "r", "ref", "nf", "nc", "nr")

    def __init__(
        self, decayed: Sequence[float] | None = None, ref: int = 0, lifetime: Sequence[int] | None = None
    ) -> None:
        if decayed is None:
            self.f = self.c = self.r = 0.0
        else:
            self.f, self.c, self.r = float(decayed[0]), float(decayed[1]), float(decayed[2])
        self.ref = ref
        if lifetime is None:
            self.nf = self.nc = self.nr = 0
        else:
            self.nf, self.nc, self.nr = int(lifetime[0]), int(lifetime[1]), int(lifetime[2])

    @property
    def decayed(self) -> list[float]:
        """The decayed counts as of hand ``ref`` (a copy)."""
        return [self.f, self.c, self.r]

    @property
    def lifetime(self) -> list[int]:
        """The lifetime counts (a copy)."""
        return [self.nf, self.nc, self.nr]

    def bring_to(self, now: int, factor: float) -> None:
        """Scale the decayed counts to the player's hand `now` (never before `ref`)."""
        if now != self.ref:
            k = factor ** (now - self.ref)
            self.f *= k
            self.c *= k
            self.r *= k
            self.ref = now

    def add(self, action_class: int) -> None:
        """Count one observation, the counts already brought to the present."""
        if action_class == FOLD:
            self.f += 1.0
            self.nf += 1
        elif action_class == CALL:
            self.c += 1.0
            self.nc += 1
        else:
            self.r += 1.0
            self.nr += 1

    def observe(self, action_class: int, now: int, factor: float) -> None:
        """Add one observation made in the player's hand `now` (never before `ref`)."""
        self.bring_to(now, factor)
        self.add(action_class)

    def decayed_at(self, now: int, factor: float) -> Triple:
        """The decayed counts as seen from the player's hand `now`."""
        if now == self.ref:
            return (self.f, self.c, self.r)
        k = factor ** (now - self.ref)
        return (self.f * k, self.c * k, self.r * k)

    def row(self) -> tuple[float, float, float, int, int, int, int]:
        """(decayed fold, call, raise, ref, lifetime fold, call, raise): a database row's counts."""
        return (self.f, self.c, self.r, self.ref, self.nf, self.nc, self.nr)

    def copy(self) -> ContextCounts:
        out = ContextCounts()
        out.f, out.c, out.r, out.ref = self.f, self.c, self.r, self.ref
        out.nf, out.nc, out.nr = self.nf, self.nc, self.nr
        return out


class PlayerState:
    """Everything the model of one player needs: the player's hand counter, the 12
    contexts (None where nothing was ever observed), the fine contexts observed
    (agent.game.context.fine_context), and the decayed running log-likelihood of each
    predictor of agent.models.prediction on this player's decisions (``scores``, as of the
    player's hand ``scores_ref``; kept as the fields ``score_twelve`` and
    ``score_backoff``). The whole population of a network is kept as one more
    PlayerState, dealt into every hand."""

    __slots__ = ("hands", "contexts", "fine", "score_twelve", "score_backoff", "scores_ref")

    def __init__(self, hands: int = 0) -> None:
        self.hands = hands
        self.contexts: list[ContextCounts | None] = [None] * N_CONTEXTS
        self.fine: dict[int, ContextCounts] = {}
        self.score_twelve = 0.0
        self.score_backoff = 0.0
        self.scores_ref = 0

    @property
    def scores(self) -> list[float]:
        """The running scores in the order of agent.models.prediction.META_PREDICTORS, as
        of hand ``scores_ref`` (a copy)."""
        return [self.score_twelve, self.score_backoff]

    @scores.setter
    def scores(self, values: Sequence[float]) -> None:
        self.score_twelve, self.score_backoff = float(values[0]), float(values[1])

    def observe(self, context: int, action_class: int, factor: float, fine: int | None = None) -> ContextCounts:
        cc = self.contexts[context]
        if cc is None:
            cc = self.contexts[context] = ContextCounts()
        cc.observe(action_class, self.hands, factor)
        if fine is not None:
            fc = self.fine.get(fine)
            if fc is None:
                fc = self.fine[fine] = ContextCounts()
            fc.observe(action_class, self.hands, factor)
        return cc

    def add_scores(self, logliks: Sequence[float], factor: float) -> None:
        """Add one decision's log-likelihood under each predictor, decayed as the counts."""
        if self.hands != self.scores_ref:
            k = factor ** (self.hands - self.scores_ref)
            self.score_twelve *= k
            self.score_backoff *= k
            self.scores_ref = self.hands
        self.score_twelve += logliks[0]
        self.score_backoff += logliks[1]

    def scores_at(self, factor: float) -> list[float]:
        if self.hands == self.scores_ref:
            return [self.score_twelve, self.score_backoff]
        k = factor ** (self.hands - self.scores_ref)
        return [self.score_twelve * k, self.score_backoff * k]

    def copy(self) -> PlayerState:
        """An independent copy (a snapshot that later observations do not change)."""
        out = PlayerState(self.hands)
        out.contexts = [None if cc is None else cc.copy() for cc in self.contexts]
        out.fine = {k: cc.copy() for k, cc in self.fine.items()}
        out.score_twelve, out.score_backoff = self.score_twelve, self.score_backoff
        out.scores_ref = self.scores_ref
        return out

    def snapshot(self, nick: str, network: str, decay: Decay, population: PlayerState | None = None,
                 own: bool = False) -> PlayerModel:
        """The PlayerModel of this state; it keeps a copy of the state (the state itself
        with ``own``, for a state nobody changes afterwards) and ``population``, which the
        richer predictors of agent.models.prediction read."""
        decayed = []
        lifetime = []
        for cc in self.contexts:
            if cc is None:
                decayed.append((0.0, 0.0, 0.0))
                lifetime.append((0, 0, 0))
            else:
                decayed.append(cc.decayed_at(self.hands, decay.factor))
                lifetime.append((cc.nf, cc.nc, cc.nr))
        return PlayerModel(nick, network, self.hands, decay.half_life, tuple(decayed), tuple(lifetime),
                           self if own else self.copy(), population)


@dataclass(frozen=True, slots=True)
class PlayerModel:
    """What the modeler reads about one opponent: per context the decayed and lifetime
    (fold, call, raise) counts, and how many hands the player has been dealt into."""

    nick: str
    network: str
    hands: int
    half_life: float
    decayed: tuple[Triple, ...]  # 12 contexts, weighted as of the player's latest hand
    lifetime: tuple[tuple[int, int, int], ...]  # 12 contexts, plain counts
    # The full state (fine contexts, predictor scores) and the population of the player's
    # network, for the back-off and meta predictors; None for a model built by hand.
    # (Not compared: two models are equal when their twelve contexts are.)
    state: PlayerState | None = field(default=None, compare=False, repr=False)
    population: PlayerState | None = field(default=None, compare=False, repr=False)

    @classmethod
    def empty(cls, nick: str, network: str, half_life: float) -> PlayerModel:
        return cls(nick, network, 0, half_life, ((0.0, 0.0, 0.0),) * N_CONTEXTS, ((0, 0, 0),) * N_CONTEXTS)

    @property
    def decayed_totals(self) -> tuple[float, ...]:
        return tuple(sum(t) for t in self.decayed)

    @property
    def lifetime_totals(self) -> tuple[int, ...]:
        return tuple(sum(t) for t in self.lifetime)

    def frequencies(self, context: int, decayed: bool = True) -> Triple | None:
        """Observed (fold, call, raise) frequencies in a context; None with no data."""
        counts = self.decayed[context] if decayed else self.lifetime[context]
        total = sum(counts)
        if total <= 0:
            return None
        return (counts[0] / total, counts[1] / total, counts[2] / total)
