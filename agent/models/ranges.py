"""Learned ranges: how a player's actions map to hand strength, learned from the holdings
it showed down ([loki2-1999] §4, re-weighting by the opponent's triples; [poki-2002], "weight
tables" and "specific opponent modelling").

The shipped re-weighting (agent.engine.modeler) reads an action through a threshold
model: the opponent's predicted frequencies in the context become strength thresholds on
its current weight table, and a holding's factor is a ramp around them (with a mixing
weight ε learned per opponent). Here the map is learned instead. When a player acts, each
holding has a **percentile on the player's current table**: the share of the table's
weight on weaker holdings (ties count half), u in [0, 1]. If the table is right, u of the
holding the player really has is uniform before the action; after the action, its
distribution is the evidence the action gives. That distribution, P(u | action,
context), is what a showdown shows: each action of a player whose holding was turned
over adds one count to the bin of u that holding had (``N_BINS`` equal bins) in the row
of the action's class (call/check, bet/raise) and coarse context (round × bets to call).

Re-weighting is then Bayes' rule: weight × density(bin of u), the density a row's
counts normalised to mean 1 over the bins, so an action that says nothing (a flat
histogram) leaves the table as it was. Counts decay (each showdown of the player weighs
older ones by 0.5 ** (1 / PLAYER_HALF_LIFE), the population's by its own half-life in
showdowns of the network) and back off: the population's row with POPULATION_STRENGTH
pseudo-counts spread evenly, a player's row with PLAYER_STRENGTH pseudo-counts shaped
as the population's. The strengths and half-lives were chosen on a tuning slice of the
April 1995 logs (docs/prediction.md, "Ranges").

Showdowns are a biased sample (a player shows the hands it went on with), so the rows of
the early streets learn the ranges of hands that reached a showdown; that is also what
the range score (``poki replay --predict``) measures.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = ["N_BINS", "N_ROWS", "POPULATION_HALF_LIFE", "PLAYER_HALF_LIFE", "RangeCounts", "RangeSettings",
           "DEFAULT_RANGE_SETTINGS", "add_observations", "check_observations", "densities", "pack_counts",
           "range_row", "is_raise_row", "table_percentiles", "bins_of", "unpack_counts", "NO_RANGE_COUNTS"]

N_BINS = 10
N_CONTEXTS = 12
SHARE_EDGES = (0.15, 0.3, 0.5)  # buckets of the predicted share of the action's class
N_ROWS = 2 * N_CONTEXTS * (len(SHARE_EDGES) + 1)  # coarse context × (call/check, bet/raise) × share
CALL, RAISE = 1, 2
PLAYER_HALF_LIFE = 200.0  # showdowns of the player
POPULATION_HALF_LIFE = 5000.0  # shown holdings of the network


@dataclass(frozen=True)
class RangeSettings:
    """How a player's counts are read: pseudo-counts of the population's shape in a
    player's row, and of the flat shape in the population's."""

    player_strength: float = 100.0
    population_strength: float = 100.0

    def __post_init__(self) -> None:
        for name in ("player_strength", "population_strength"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise ValueError(f"range setting {name} must be a positive number, got {v!r}")


DEFAULT_RANGE_SETTINGS = RangeSettings()


class RangeCounts(NamedTuple):
    """Decayed counts of the bins of u, one row per (context, action class), and the
    decayed number of showdowns they come from."""

    counts: np.ndarray  # float64[N_ROWS, N_BINS]
    showdowns: float = 0.0


def _empty() -> RangeCounts:
    z = np.zeros((N_ROWS, N_BINS))
    z.flags.writeable = False
    return RangeCounts(z, 0.0)


NO_RANGE_COUNTS = _empty()


def range_row(context: int, action: int, share: float) -> int:
    """The row of an action of class ``action`` (CALL or RAISE) in coarse ``context``
    that the opponent model gave a share ``share`` (0..1) of the player's actions there."""
    if not 0 <= context < N_CONTEXTS or action not in (CALL, RAISE) or not 0.0 <= share <= 1.0:
        raise ValueError(f"no range row for context {context!r}, action {action!r}, share {share!r}")
    bucket = sum(1 for edge in SHARE_EDGES if share >= edge)
    return (2 * context + (1 if action == RAISE else 0)) * (len(SHARE_EDGES) + 1) + bucket


def is_raise_row(row: int) -> bool:
    """Whether ``row`` holds bets and raises (else calls and checks)."""
    return (row // (len(SHARE_EDGES) + 1)) % 2 == 1


def check_observations(observations: Iterable[Sequence[int]], source: str) -> list[tuple[int, int]]:
    """``observations`` as (row, bin) pairs; ValueError naming ``source`` unless each is
    two whole numbers in range (at most 64 of them: one hand's actions)."""
    out: list[tuple[int, int]] = []
    for item in observations:
        if len(out) >= 64:
            raise ValueError(f"{source}: more than 64 range observations in one hand")
        try:
            row, b = item
        except (TypeError, ValueError):
            raise ValueError(f"{source}: a range observation is (row, bin), got {item!r}") from None
        if isinstance(row, bool) or isinstance(b, bool) or not isinstance(row, (int, np.integer)) \
                or not isinstance(b, (int, np.integer)) or not (0 <= row < N_ROWS and 0 <= b < N_BINS):
            raise ValueError(f"{source}: range observation {item!r} out of range")
        out.append((int(row), int(b)))
    return out


def add_observations(old: RangeCounts, observations: Sequence[tuple[int, int]], half_life: float) -> RangeCounts:
    """``old`` aged by one showdown and the (row, bin) ``observations`` of it added."""
    k = 0.5 ** (1.0 / half_life)
    counts = old.counts * k
    for row, b in observations:
        counts[row, b] += 1.0
    return RangeCounts(counts, old.showdowns * k + 1.0)


def densities(player: RangeCounts, population: RangeCounts,
              settings: RangeSettings = DEFAULT_RANGE_SETTINGS) -> np.ndarray:
    """float64[N_ROWS, N_BINS]: each row the density of u (mean 1 over the bins) for a
    player with counts ``player`` in a population with ``population``: the population's
    row shrunk to flat, the player's shrunk to that."""
    pop = population.counts
    ps = settings.population_strength
    pop_shape = (pop + ps / N_BINS) / (pop.sum(axis=1, keepdims=True) + ps)
    own = player.counts
    qs = settings.player_strength
    shape: np.ndarray = (own + qs * pop_shape) / (own.sum(axis=1, keepdims=True) + qs)
    return shape * N_BINS


def table_percentiles(strength: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """u of every holding: the share of the table's weight on holdings weaker than it,
    plus half the share on holdings as strong (0 where the table is 0)."""
    live = weights > 0
    out = np.zeros(strength.shape[0])
    s = strength[live]
    if s.size == 0:
        return out
    w = weights[live]
    order = np.argsort(s, kind="stable")
    ss = s[order]
    cum = np.concatenate(([0.0], np.cumsum(w[order])))
    total = cum[-1]
    lo = np.searchsorted(ss, s, side="left")
    hi = np.searchsorted(ss, s, side="right")
    out[live] = (cum[lo] + 0.5 * (cum[hi] - cum[lo])) / total
    return out


def bins_of(u: np.ndarray) -> np.ndarray:
    """The bin (0..N_BINS-1) of each percentile."""
    return np.minimum((u * N_BINS).astype(np.int64), N_BINS - 1)


def pack_counts(counts: RangeCounts) -> bytes:
    """The counts as bytes for a database row (little-endian float64, row by row)."""
    return np.ascontiguousarray(counts.counts, dtype="<f8").tobytes()


def unpack_counts(blob: bytes, showdowns: float, source: str) -> RangeCounts:
    """The counts of a database row; ValueError naming ``source`` unless they are
    N_ROWS × N_BINS finite counts ≥ 0."""
    if not isinstance(blob, (bytes, bytearray, memoryview)) or len(blob) != 8 * N_ROWS * N_BINS:
        raise ValueError(f"{source}: range counts need {8 * N_ROWS * N_BINS} bytes")
    counts = np.frombuffer(bytes(blob), dtype="<f8").reshape(N_ROWS, N_BINS).astype(np.float64)
    sd = float(showdowns)
    if not (np.isfinite(counts).all() and (counts >= 0).all() and math.isfinite(sd) and sd >= 0):
        raise ValueError(f"{source}: range counts that are not finite counts")
    return RangeCounts(counts, sd)
