"""The opponent modeler ([loki2-1999] §3-4, [poki-2002] "opponent modeling", "weight tables",
"re-weighting"): one 1326-entry weight table per opponent per hand, re-weighted after each
of that opponent's actions.

A table starts at weight 1 for every holding ([poki-2002]: when a new hand begins every entry
is initialised to one; holdings that share a card with ours or the board are 0). What the
income rates contribute is the pre-flop strength of a holding: its income-rate percentile
for the field size, so the pre-flop re-weighting turns the table into the one the
opponent carries to the flop ([loki2-1999] §3: income rates "assign initial weight
probabilities"). After the flop a holding's strength is an EHS-like value computed for
all 1326 holdings at once (:func:`board_strengths`).

Both rules read the opponent's (fold, call, raise) frequencies in the context of the
action (round × bets to call 0 / 1 / 2+): their own decayed counts blended with the
defaults (agent.models.opponent_model.predict_triple, the specific opponent model of [poki-2002]) or the
defaults alone (the generic model). The frequencies become strength thresholds by weighted
quantiles of the opponent's current table: if they fold a share f here, the holdings below
the f-quantile are the ones they fold; if they raise a share r, the ones above the
(1 − r)-quantile raise.

* Loki-1 (Papp): μ is the threshold the action implies (the fold threshold for a call,
  the raise threshold for a raise), σ a spread; weight × 0.01 below μ − σ, × 1 above
  μ + σ, linear between. A call never lowers a strong holding.
* Loki-2 ([loki2-1999] §4): weight × the entry for the observed action of the triple this
  opponent would produce holding each hand: ramps of half-width ``opponent_width`` round
  the fold and raise thresholds, the strongest holdings raising (1 − opponent_mix) of the
  time and calling the rest (Billings et al.'s [loki2-1999] A-A [0, 0.2, 0.8]), so a call lowers them.

Nothing the opponent could hold is ever ruled out: with ``floor_on="action"`` no action
multiplies a live holding's weight by less than ``reweight_floor``, so the evidence of
successive actions compounds (Bayes' rule; right against threshold players); with
``floor_on="weight"`` (the default before the learned floor) no weight falls below it, which caps the
evidence at 100:1 (robust against players who bet medium hands). docs/strength.md §8.

``floor_on="learned"`` (the engine's default) reads each action's likelihood as a mixture, P(action | holding) =
(1 − ε) f(holding) + ε, f the threshold model's factor and ε the share of this opponent's
actions of that class (calls/checks, bets/raises) that come from holdings the model gives
a low factor: its "off-model" rate, learned from its shown-down hands (:func:`off_model_counts`,
kept in the opponent-model store) under a Beta prior centred on ``reweight_floor``
(:func:`learned_eps`). The evidence compounds as with "action", but an opponent that bets
medium hands at a fixed rate gets a larger ε and its tables stop collapsing onto the few
holdings the thresholds say it bets with. docs/strength.md §10.

``rule="learned"`` (learned ranges, agent.models.ranges) drops the thresholds: a
holding's factor is the density, learned from the opponent's (backed off to the
population's) shown-down holdings, of its percentile on the current table in the row of
the action's class, coarse context and predicted share (``freq``); the bin of each action is kept so that a
showdown can add the shown holding's bins to the store.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

import evaluator_pyx as ev
from agent.engine.income_rates import field_of_players, load_income_rates
from agent.models.ranges import bins_of, range_row, table_percentiles

FOLD, CALL, RAISE = 0, 1, 2
N_HOLDINGS = 1326
_HOLDINGS = np.asarray(ev.HOLDINGS_ARRAY, dtype=np.uint64)


@lru_cache(maxsize=1)
def _card_contained() -> np.ndarray:
    """bool[52, 1326]: holding h contains card c."""
    out = np.zeros((ev.N_CARDS, N_HOLDINGS), dtype=bool)
    for c in range(ev.N_CARDS):
        out[c] = (_HOLDINGS & np.uint64(1 << ev.card_bit(c))) != 0
    return out


def live_holdings(known_mask: int) -> np.ndarray:
    """bool[1326]: holdings that share no card with `known_mask` (a 64-bit card mask)."""
    return (_HOLDINGS & np.uint64(known_mask)) == 0


@lru_cache(maxsize=8)
def preflop_strengths(field: str) -> np.ndarray:
    """Pre-flop strength of every holding: its income-rate percentile (0..1, ties half)
    among the 1326 holdings, from the shipped iterated table for the field size."""
    players = {"2": 2, "3-4": 4, "5+": 7}[field]
    ir = load_income_rates().holding_rates(players)
    srt = np.sort(ir)
    below = np.searchsorted(srt, ir, side="left")
    upto = np.searchsorted(srt, ir, side="right")
    out = (below + 0.5 * (upto - below)) / N_HOLDINGS
    out.flags.writeable = False
    return out


_BOARD_CACHE: OrderedDict[tuple[int, bool], np.ndarray] = OrderedDict()
_BOARD_CACHE_SIZE = 32


def board_strengths(board_mask: int, potential: bool = True) -> np.ndarray:
    """An EHS-like strength of every holding on a 3-5 card board, in one batch: its hand
    strength against one uniformly random holding (evaluator_pyx.holding_strengths), plus,
    with `potential` before the river, the expected rise of that hand strength over the
    next card, E[max(0, HS' − HS)] over the cards that can come. That term stands in for
    (1 − HS) × Ppot, which is too dear to compute exactly for 1326 holdings after every
    action (the cost of re-weighting every holding after every action); it rewards the same draws. 0 for holdings that
    share a card with the board. Cached per board (every player at the table shares it)."""
    key = (board_mask, potential)
    hit = _BOARD_CACHE.get(key)
    if hit is not None:
        _BOARD_CACHE.move_to_end(key)
        return hit
    hs = ev.holding_strengths(board_mask)
    n_board = bin(board_mask).count("1")
    if potential and n_board < 5:
        gain = np.zeros(N_HOLDINGS)
        contained = _card_contained()
        nxt = np.empty(N_HOLDINGS)
        for c in range(ev.N_CARDS):
            bit = 1 << ev.card_bit(c)
            if board_mask & bit:
                continue
            ev.holding_strengths(board_mask | bit, None, nxt)
            np.subtract(nxt, hs, out=nxt)
            np.maximum(nxt, 0.0, out=nxt)
            nxt[contained[c]] = 0.0
            gain += nxt
        hs = hs + gain / (ev.N_CARDS - n_board - 2)
    hs.flags.writeable = False
    _BOARD_CACHE[key] = hs
    if len(_BOARD_CACHE) > _BOARD_CACHE_SIZE:
        _BOARD_CACHE.popitem(last=False)
    return hs


class Assessment(NamedTuple):
    """Our hand against the live opponents' weight tables ([testbed-1998] §4.2-4.4)."""

    ehs: float  # HS_n + (1 - HS_n) * Ppot
    hs_n: float  # the product of our hand strength against each table (HS^n with uniform tables)
    ppot: float  # positive potential, one card to come (0 on the river or without potential)
    npot: float  # negative potential of the same enumeration
    each: tuple[float, ...]  # our hand strength against each table, in the order given


def assess_hand(hole_mask: int, board_mask: int, tables: Sequence[np.ndarray] | None, opponents: int,
                potential: bool) -> Assessment:
    """(EHS, HS_n, Ppot, Npot) of our hand on a 3-5 card board against each opponent's
    weight table (``tables``; None: ``opponents`` uniform tables, HS^n), Ppot and Npot
    with one card to come against the tables pooled (each scaled to sum 1): the one
    assessment the Poki player and the range reader (agent.engine.range_reader) share."""
    if tables is not None:
        each = tuple(float(ev.hand_strength(hole_mask, board_mask, t)) for t in tables)
        hs_n = 1.0
        for h in each:
            hs_n *= h
    else:
        each = ()
        hs_n = ev.hand_strength(hole_mask, board_mask) ** max(1, opponents)
    ppot = npot = 0.0
    if potential and bin(board_mask).count("1") < 5:
        pooled = None
        if tables:
            pooled = np.zeros(tables[0].shape)
            for t in tables:
                pooled += t / t.sum()
        ppot, npot = ev.hand_potential(hole_mask, board_mask, pooled, 1)
    return Assessment(hs_n + (1.0 - hs_n) * ppot, hs_n, float(ppot), float(npot), each)


def weighted_quantile(strength: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The strength below which a share `q` of the table's weight lies."""
    live = weights > 0
    s = strength[live]
    w = weights[live]
    if s.size == 0:
        return 0.0
    order = np.argsort(s, kind="stable")
    cum = np.cumsum(w[order])
    idx = int(np.searchsorted(cum, q * cum[-1], side="left"))
    return float(s[order[min(idx, s.size - 1)]])


def ramp_array(x: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """0 below lo, 1 above hi, linear between."""
    if hi <= lo:
        return (x >= hi).astype(np.float64)
    return np.clip((x - lo) / (hi - lo), 0.0, 1.0)


def loki1_multipliers(strength: np.ndarray, mu: float, sigma: float, floor: float = 0.01) -> np.ndarray:
    """Loki-1's re-weighting factor (Papp): `floor` below μ − σ, 1 above μ + σ, linear
    between."""
    return floor + (1.0 - floor) * ramp_array(strength, mu - sigma, mu + sigma)


def opponent_triples(strength: np.ndarray, weights: np.ndarray, freq: Sequence[float],
                     width: float, mix: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(fold, call, raise) arrays: the triple the opponent would produce with each holding,
    its thresholds set so that, over its current table, about the observed shares fold and
    raise."""
    f_freq, _, r_freq = (float(x) for x in freq)
    top = 1.0 - mix
    if r_freq > 0.0:
        raise_at = weighted_quantile(strength, weights, 1.0 - min(1.0, r_freq / top))
        r = top * ramp_array(strength, raise_at - width, raise_at + width)
    else:
        r = np.zeros_like(strength)
    if f_freq > 0.0:
        fold_at = weighted_quantile(strength, weights, f_freq)
        f = (1.0 - ramp_array(strength, fold_at - width, fold_at + width)) * (1.0 - r)
    else:
        f = np.zeros_like(strength)
    c = 1.0 - r - f
    return f, c, r


def loki1_threshold(strength: np.ndarray, weights: np.ndarray, freq: Sequence[float],
                    action: int) -> float:
    """μ: the strength the opponent's action implies, from its frequencies in the context."""
    f_freq, _, r_freq = freq
    if action == RAISE:
        return weighted_quantile(strength, weights, 1.0 - r_freq)
    return weighted_quantile(strength, weights, f_freq)


# The learned mixture weight (floor_on = "learned"). A holding whose factor for the action
# it took is below OFF_MODEL_FACTOR is one the threshold model says (nearly) never takes it:
# below the fold/raise ramps. The Beta prior on the off-model rate has mean reweight_floor
# and weight EPS_PRIOR_STRENGTH pseudo-actions, fixed once here (not tuned per match): an
# opponent's own showdowns outweigh it after a few dozen actions.
OFF_MODEL_FACTOR = 0.1
EPS_PRIOR_STRENGTH = 20.0
CLASSES = (CALL, RAISE)


def learned_eps(n: float, k: float, floor: float = 0.01, strength: float = EPS_PRIOR_STRENGTH) -> float:
    """The posterior mean of the off-model rate after ``k`` of ``n`` actions seen at
    showdowns came from low-factor holdings, under Beta(floor·s, (1 − floor)·s), s =
    ``strength``; never below ``floor`` (the prior's mean: an opponent that fits the model
    exactly is read as Papp's 0.01, no action rules a holding out)."""
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"off-model counts k={k} of n={n}")
    return max(floor, (floor * strength + k) / (strength + n))


def off_model_counts(factors: Sequence[tuple[int, np.ndarray]], holding: int,
                     low: float = OFF_MODEL_FACTOR) -> tuple[int, int, int, int]:
    """(calls seen, of them off-model, bets/raises seen, of them off-model) of one
    opponent's hand whose holding (index 0..1325) was shown: ``factors`` are the
    threshold model's factors f (before any floor or mixture) of each action it took, as
    (action, f[1326]); an action is off-model when f[holding] < ``low``."""
    n = [0, 0, 0]
    k = [0, 0, 0]
    for action, f in factors:
        n[action] += 1
        if f[holding] < low:
            k[action] += 1
    return n[CALL], k[CALL], n[RAISE], k[RAISE]


_RESCALE_BELOW = 1e-200  # a table whose largest weight falls this low is scaled back up


def apply_action(weights: np.ndarray, multipliers: np.ndarray, floor: float = 0.01,
                 floor_on: str = "action") -> np.ndarray:
    """Billings et al.'s [loki2-1999] update: each weight times the probability the holding's triple gave the
    observed action (or Loki-1's factor), that factor never below `floor`.

    The floor bounds the evidence of one action, not the weight: no single action rules a
    holding out (Papp's 0.01), but the evidence of several actions adds up as Bayes' rule
    has it ([poki-2002]: the old table is the prior, the new one the posterior). A floor on
    the weight itself (``floor_on="weight"``, robust against players
    who bet medium hands, docs/strength.md §8) holds every holding that has failed to fit several actions at
    the same 0.01 as one that failed one, so after a bet on the flop, turn and river the
    hundreds of such holdings keep most of the table's mass while the few that fit every
    action have weights of products of in-band factors. Only relative weights matter
    ([loki2-1999]), so a table that shrinks towards underflow is scaled back up."""
    w = np.asarray(weights, dtype=np.float64)
    if floor_on == "learned":
        # The mixture (1 − ε) f + ε, `floor` being this opponent's ε; `multipliers` is f.
        out = w * ((1.0 - floor) * multipliers + floor)
        top = float(out.max()) if out.size else 0.0
        if 0.0 < top < _RESCALE_BELOW:
            out /= top
        return out
    if floor_on == "weight":
        out = w * multipliers
        np.maximum(out, floor, out=out, where=w > 0)
        return out
    out = w * np.maximum(multipliers, floor)
    top = float(out.max()) if out.size else 0.0
    if 0.0 < top < _RESCALE_BELOW:
        out /= top
    return out


def reweight(weights: np.ndarray, strength: np.ndarray, freq: Sequence[float], action: int,
             rule: str, *, sigma: float = 0.1, width: float = 0.1, mix: float = 0.2,
             floor: float = 0.01, floor_on: str = "action") -> np.ndarray:
    """The table after the opponent took `action` (CALL or RAISE), by `rule` ("loki1",
    "triples" or "none"); a new array, each live holding's weight multiplied by `floor`
    at least (with floor_on = "learned", `floor` is the opponent's ε)."""
    if rule == "none" or action == FOLD:
        return weights.copy()
    return apply_action(weights, model_factors(weights, strength, freq, action, rule, sigma=sigma,
                                               width=width, mix=mix, floor=floor, floor_on=floor_on),
                        floor, floor_on)


def model_factors(weights: np.ndarray, strength: np.ndarray, freq: Sequence[float], action: int,
                  rule: str, *, sigma: float = 0.1, width: float = 0.1, mix: float = 0.2,
                  floor: float = 0.01, floor_on: str = "action") -> np.ndarray:
    """The threshold model's factor of every holding for `action` (CALL or RAISE) by
    `rule`: Loki-1's (with its floor, except for floor_on = "learned", which wants the
    bare ramp f to mix) or the opponent's predicted triple's entry."""
    if rule == "loki1":
        mu = loki1_threshold(strength, weights, freq, action)
        return loki1_multipliers(strength, mu, sigma, 0.0 if floor_on == "learned" else floor)
    if rule == "triples":
        return opponent_triples(strength, weights, freq, width, mix)[action]
    raise ValueError(f"unknown re-weighting rule {rule!r}")


class OpponentModeler:
    """The weight tables of one hand: one per opponent, re-weighted as they act."""

    def __init__(self, rule: str = "triples", *, sigma: float = 0.1, width: float = 0.1,
                 mix: float = 0.2, floor: float = 0.01, potential: bool = True,
                 floor_on: str = "action") -> None:
        self.rule = rule
        self.sigma = sigma
        self.width = width
        self.mix = mix
        self.floor = floor
        self.floor_on = floor_on
        self.potential = potential
        self.tables: dict[str, np.ndarray] = {}
        self._known = 0
        # floor_on = "learned": each opponent's ε for (calls, bets/raises), set by the
        # player from the store at the start of a hand, and the factors f of every
        # action it took this hand, for counting at a showdown.
        self.eps: dict[str, tuple[float, float]] = {}
        self.factors: dict[str, list[tuple[int, np.ndarray]]] = {}
        # rule = "learned": each opponent's densities (agent.models.ranges.densities) and
        # the (range row, bin of every holding) of each action re-weighted for.
        self.densities: dict[str, np.ndarray] = {}
        self.range_bins: dict[str, list[tuple[int, np.ndarray]]] = {}

    def new_hand(self, opponents: Iterable[str], hole_mask: int,
                 eps: dict[str, tuple[float, float]] | None = None,
                 densities: dict[str, np.ndarray] | None = None) -> None:
        """Fresh tables: weight 1 except holdings touching our cards ([poki-2002]); `eps`:
        each opponent's learned (call, raise) ε (floor_on = "learned"; missing: the floor);
        `densities`: each opponent's learned ranges (rule = "learned"; missing: flat, the
        action read as no evidence)."""
        base = live_holdings(hole_mask).astype(np.float64)
        self.tables = {nick: base.copy() for nick in opponents}
        self._known = hole_mask
        self.eps = dict(eps or {})
        self.factors = {}
        self.densities = dict(densities or {})
        self.range_bins = {}

    def range_observations(self, nick: str, holding: int) -> list[tuple[int, int]]:
        """rule = "learned": the (row, bin) of `holding` at each of `nick`'s actions
        re-weighted for this hand, what its showdown teaches the learned ranges."""
        return [(row, int(bins[holding])) for row, bins in self.range_bins.get(nick, ())]

    def eps_of(self, nick: str, action: int) -> float:
        """The mixture weight ε used for `nick`'s `action` (CALL or RAISE)."""
        pair = self.eps.get(nick)
        return self.floor if pair is None else pair[0 if action == CALL else 1]

    def see_board(self, board_mask: int) -> None:
        """Holdings that share a card with the board become impossible."""
        new = board_mask & ~self._known
        if new:
            dead = ~live_holdings(new)
            for table in self.tables.values():
                table[dead] = 0.0
            self._known |= new

    def strengths(self, board_mask: int, players: int) -> np.ndarray:
        if board_mask == 0:
            return preflop_strengths(field_of_players(max(2, players)))
        return board_strengths(board_mask, self.potential)

    def observe(self, nick: str, action: int, freq: Sequence[float], board_mask: int,
                players: int, context: int = -1) -> None:
        """Re-weight `nick`'s table after it took `action` with `players` in the hand,
        its frequencies in the context being `freq` (rule = "learned" reads the coarse
        `context` besides)."""
        table = self.tables.get(nick)
        if table is None or action == FOLD or self.rule == "none":
            return
        self.see_board(board_mask)
        strength = self.strengths(board_mask, players)
        if self.rule == "learned":
            row = range_row(context, action, min(1.0, max(0.0, float(freq[action]))))
            bins = bins_of(table_percentiles(strength, table))
            self.range_bins.setdefault(nick, []).append((row, bins))
            dens = self.densities.get(nick)
            if dens is not None:
                self.tables[nick] = apply_action(table, dens[row][bins], 0.0, "action")
            return
        if self.floor_on == "learned":
            f = model_factors(table, strength, freq, action, self.rule, sigma=self.sigma, width=self.width,
                              mix=self.mix, floor_on="learned")
            self.factors.setdefault(nick, []).append((action, f))
            self.tables[nick] = apply_action(table, f, self.eps_of(nick, action), "learned")
            return
        self.tables[nick] = reweight(table, strength, freq, action, self.rule, sigma=self.sigma,
                                     width=self.width, mix=self.mix, floor=self.floor,
                                     floor_on=self.floor_on)
