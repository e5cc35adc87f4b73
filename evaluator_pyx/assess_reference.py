"""Hand assessment by plain brute force: the reference the compiled _assess is tested
against, and the slow pure-Python backend of the same API.

Everything here is the textbook definition written out loop by loop ([testbed-1998] §4.2-4.4,
Billings, Papp, Schaeffer, Szafron 1998): list the opponent's possible holdings, list the
run-outs, evaluate every hand, count. Nothing is shared with _assess.pyx but the card
encoding; hand values come from whichever `evaluate(mask)` is passed in (default: the
package's evaluate, itself checked against independent evaluators).
"""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from .cards import (
    HOLDING_CARDS,
    N_CARDS,
    N_HOLDINGS,
    RANKS,
    VALID_MASK_BITS,
    CardError,
    card_bit,
    cards_to_mask,
    holding_index_of_cards,
)

Evaluate = Callable[[int], int]
AHEAD, TIED, BEHIND = 0, 1, 2

# Starting-hand types: 13 * x + y on the 13 x 13 rank grid; pairs on the diagonal, suited
# hands at (high, low), offsuit at (low, high).
HAND_TYPE_NAMES: tuple[str, ...] = tuple(
    RANKS[x] * 2 if x == y else (RANKS[x] + RANKS[y] + "s" if x > y else RANKS[y] + RANKS[x] + "o")
    for x in range(13)
    for y in range(13)
)


def hand_type_of_cards(a: int, b: int) -> int:
    """Starting-hand type 0..168 of two card ints."""
    ra, rb = a >> 2, b >> 2
    hi, lo = max(ra, rb), min(ra, rb)
    if ra != rb and (a & 3) == (b & 3):
        return 13 * hi + lo
    return 13 * lo + hi


def holding_types() -> list[int]:
    """Starting-hand type of every holding, HOLDINGS order."""
    return [hand_type_of_cards(a, b) for a, b in HOLDING_CARDS]


def _default_evaluate() -> Evaluate:
    from . import evaluate

    return evaluate


def _bit(card: int) -> int:
    return 1 << card_bit(card)


def parse_mask(x: int | str | Iterable, lo: int, hi: int, what: str) -> int:
    if isinstance(x, int):
        if x < 0 or x >> 64 or x & ~VALID_MASK_BITS:
            raise CardError(f"{what}: mask {x:#x} has bits that are not cards")
        m = x
    else:
        m = cards_to_mask(x)
    n = bin(m).count("1")
    if not lo <= n <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise CardError(f"{what}: need {want} cards, got {n}")
    return m


def _weight(weights: Sequence[float] | None, a: int, b: int) -> float:
    return 1.0 if weights is None else float(weights[holding_index_of_cards(a, b)])


def _unknown_cards(known: int) -> list[int]:
    return [c for c in range(N_CARDS) if not known & _bit(c)]


def hand_strength_counts(
    hole: int, board: int, weights: Sequence[float] | None = None, evaluate: Evaluate | None = None
) -> tuple[float, float, float]:
    """(weight of holdings we beat, we tie, that beat us) on the current board."""
    evaluate = evaluate or _default_evaluate()
    ours = evaluate(hole | board)
    ahead = tied = behind = 0.0
    for a, b in combinations(_unknown_cards(hole | board), 2):
        w = _weight(weights, a, b)
        theirs = evaluate(board | _bit(a) | _bit(b))
        if ours > theirs:
            ahead += w
        elif ours == theirs:
            tied += w
        else:
            behind += w
    return ahead, tied, behind


def hand_strength(
    hole: int, board: int, weights: Sequence[float] | None = None, evaluate: Evaluate | None = None
) -> float:
    ahead, tied, behind = hand_strength_counts(hole, board, weights, evaluate)
    total = ahead + tied + behind
    if not total > 0:
        raise ValueError("no opponent holding has weight")
    return (ahead + tied / 2) / total


def potential_table(
    hole: int,
    board: int,
    weights: Sequence[float] | None = None,
    cards_to_come: int = 2,
    evaluate: Evaluate | None = None,
) -> list[list[float]]:
    """Billings et al.'s [testbed-1998] Table 2 as nested lists [now][later], AHEAD / TIED / BEHIND."""
    evaluate = evaluate or _default_evaluate()
    table = [[0.0] * 3 for _ in range(3)]
    unknown = _unknown_cards(hole | board)
    ours_now = evaluate(hole | board)
    ours_later: dict[int, int] = {}
    for a, b in combinations(unknown, 2):
        w = _weight(weights, a, b)
        if w == 0:
            continue
        opp = _bit(a) | _bit(b)
        theirs_now = evaluate(board | opp)
        now = AHEAD if ours_now > theirs_now else TIED if ours_now == theirs_now else BEHIND
        rest = [c for c in unknown if c != a and c != b]
        for runout_cards in combinations(rest, cards_to_come):
            runout = 0
            for c in runout_cards:
                runout |= _bit(c)
            if runout not in ours_later:
                ours_later[runout] = evaluate(hole | board | runout)
            ours = ours_later[runout]
            theirs = evaluate(board | runout | opp)
            later = AHEAD if ours > theirs else TIED if ours == theirs else BEHIND
            table[now][later] += w
    return table


def ppot_npot(table: Sequence[Sequence[float]]) -> tuple[float, float]:
    """[testbed-1998] §4.2's formulas for Ppot and Npot from Table 2 (0 when undefined)."""
    t = table
    sum_ahead, sum_tied, sum_behind = (sum(row) for row in t)
    d = sum_behind + sum_tied / 2
    ppot = (t[BEHIND][AHEAD] + t[BEHIND][TIED] / 2 + t[TIED][AHEAD] / 2) / d if d > 0 else 0.0
    d = sum_ahead + sum_tied / 2
    npot = (t[AHEAD][BEHIND] + t[AHEAD][TIED] / 2 + t[TIED][BEHIND] / 2) / d if d > 0 else 0.0
    return ppot, npot


def hand_potential(
    hole: int,
    board: int,
    weights: Sequence[float] | None = None,
    cards_to_come: int = 2,
    evaluate: Evaluate | None = None,
) -> tuple[float, float]:
    return ppot_npot(potential_table(hole, board, weights, cards_to_come, evaluate))


def holding_values(board: int, evaluate: Evaluate | None = None) -> list[int]:
    """Value of every holding with the board, 0 where it shares a board card."""
    evaluate = evaluate or _default_evaluate()
    out = []
    for a, b in HOLDING_CARDS:
        m = _bit(a) | _bit(b)
        out.append(0 if m & board else evaluate(board | m))
    return out


def holding_strengths(
    board: int, weights: Sequence[float] | None = None, evaluate: Evaluate | None = None
) -> list[float]:
    """Hand strength of every holding against every other holding it can face: O(1326^2)."""
    values = holding_values(board, evaluate)
    live = [i for i in range(N_HOLDINGS) if values[i]]
    out = [0.0] * N_HOLDINGS
    for i in live:
        a, b = HOLDING_CARDS[i]
        beaten = tied = total = 0.0
        for j in live:
            c, d = HOLDING_CARDS[j]
            if c in (a, b) or d in (a, b):
                continue
            w = 1.0 if weights is None else float(weights[j])
            total += w
            if values[i] > values[j]:
                beaten += w
            elif values[i] == values[j]:
                tied += w
        out[i] = (beaten + tied / 2) / total if total > 0 else 0.0
    return out


# ---- Monte Carlo, for the pure-Python backend (its own generator: results differ from
# the compiled kernels' but are just as reproducible) ----------------------------------


def rollout(
    hole: int,
    board: int = 0,
    opponents: int = 1,
    trials: int = 10000,
    seed: int = 0,
    weights=None,
    evaluate: Evaluate | None = None,
) -> tuple[float, float]:
    """West's [west-2005] simulation: (mean, standard error) of our pot share, ties split."""
    evaluate = evaluate or _default_evaluate()
    rng = random.Random(seed)
    dead = hole | board
    unknown = _unknown_cards(dead)
    n_board = 5 - bin(board).count("1")
    tables = None
    if weights is not None:
        tables = []
        for k in range(opponents):
            w = weights[k] if len(weights) == opponents and hasattr(weights[k], "__len__") else weights
            live = [i for i, (a, b) in enumerate(HOLDING_CARDS) if not dead & (_bit(a) | _bit(b)) and w[i] > 0]
            if not live:
                raise ValueError(f"opponent {k}'s weight table has no holding left")
            tables.append((live, [float(w[i]) for i in live]))
    s = s2 = 0.0
    for _ in range(trials):
        if tables is None:
            cards = rng.sample(unknown, n_board + 2 * opponents)
            holdings = [(cards[n_board + 2 * o], cards[n_board + 2 * o + 1]) for o in range(opponents)]
            run = cards[:n_board]
        else:
            for _attempt in range(10000):
                holdings = [HOLDING_CARDS[rng.choices(live, ws)[0]] for live, ws in tables]
                flat = [c for h in holdings for c in h]
                if len(set(flat)) == len(flat):
                    break
            else:
                raise ValueError("no consistent deal: the weight tables keep giving opponents the same cards")
            run = rng.sample([c for c in unknown if c not in flat], n_board)
        full = board
        for c in run:
            full |= _bit(c)
        ours = evaluate(hole | full)
        theirs = [evaluate(full | _bit(a) | _bit(b)) for a, b in holdings]
        best = max(theirs)
        share = 0.0 if best > ours else 1.0 / (1 + theirs.count(ours))
        s += share
        s2 += share * share
    return mean_stderr(s, s2, trials)


def mean_stderr(s: float, s2: float, n: int) -> tuple[float, float]:
    mean = s / n
    var = (s2 - s * mean) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n) if var > 0 else 0.0


def income_rollout(
    hole: int,
    opponents: int,
    trials: int,
    seed: int = 0,
    plays: Sequence[int] | None = None,
    evaluate: Evaluate | None = None,
    blinds: bool = False,
) -> tuple[float, float]:
    """Net small bets of our hand, which always plays, when every player who plays has
    one small bet in. Opponents dealt a type with plays[type] == 0 fold. With blinds our
    seat is trial % players: seat 0 posts half a small bet (left in the pot if it folds),
    seat 1 a whole one and always plays."""
    evaluate = evaluate or _default_evaluate()
    rng = random.Random(seed)
    unknown = _unknown_cards(hole)
    s = s2 = 0.0
    for trial in range(trials):
        seat = trial % (opponents + 1)
        cards = rng.sample(unknown, 5 + 2 * opponents)
        full = 0
        for c in cards[:5]:
            full |= _bit(c)
        ours = evaluate(hole | full)
        pot, ties, lost = 1.0, 0, False
        for o in range(opponents):
            a, b = cards[5 + 2 * o], cards[6 + 2 * o]
            their_seat = o if o < seat else o + 1
            folds = plays is not None and not plays[hand_type_of_cards(a, b)]
            if folds and blinds and their_seat == 1:
                folds = False
            if folds:
                if blinds and their_seat == 0:
                    pot += 0.5
                continue
            pot += 1
            theirs = evaluate(full | _bit(a) | _bit(b))
            if theirs > ours:
                lost = True
            elif theirs == ours:
                ties += 1
        net = (0.0 if lost else pot / (1 + ties)) - 1.0
        s += net
        s2 += net * net
    return mean_stderr(s, s2, trials)


def holding_ppot(board: int, weights: Sequence[float] | None = None, evaluate: Evaluate | None = None) -> list[float]:
    """One-card Ppot of every holding by comparing every pair of holdings for every next
    card (1326 x 1326 matrices; numpy for the arithmetic, no cleverness)."""
    import numpy as np

    from .cards import HOLDINGS

    masks = np.array(HOLDINGS, dtype=np.uint64)
    disjoint = (masks[:, None] & masks[None, :]) == 0
    w = np.ones(N_HOLDINGS) if weights is None else np.asarray(weights, dtype=np.float64)
    v0 = np.array(holding_values(board, evaluate))
    live = v0 > 0
    n_next = N_CARDS - bin(board).count("1") - 4
    num = np.zeros(N_HOLDINGS)
    # [h, o]: o's value against h's.
    o_ahead = v0[None, :] > v0[:, None]
    o_tied = v0[None, :] == v0[:, None]
    for c in _unknown_cards(board):
        v1 = np.array(holding_values(board | _bit(c), evaluate))
        ok = live & (v1 > 0)
        pair = disjoint & ok[:, None] & ok[None, :]
        o_behind_later = v1[None, :] < v1[:, None]
        o_tied_later = v1[None, :] == v1[:, None]
        f = o_ahead * (o_behind_later + 0.5 * o_tied_later) + 0.5 * o_tied * o_behind_later
        num += (pair * f) @ w
    pair0 = disjoint & live[:, None] & live[None, :]
    den = n_next * ((pair0 * (o_ahead + 0.5 * o_tied)) @ w)
    out = np.zeros(N_HOLDINGS)
    good = live & (den > 0)
    out[good] = num[good] / den[good]
    return out.tolist()
