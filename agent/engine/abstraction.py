"""The card abstraction of the heads-up equilibrium player: per round, holdings grouped in
buckets by their expected hand strength squared (E[HS²]), with perfect recall (a player
knows the bucket of every round so far), and the chance model of the abstract game
measured from real deals.

**Buckets.** Pre-flop, a holding's bucket is its percentile among the 1,326 holdings by
E[HS²] against a random holding over random boards (measured, averaged over the holdings
alike up to suits). On the flop, turn and river it is the holding's percentile among the
holdings that share no card with that board, by exact E[HS²] on that board
(evaluator_pyx.holding_ehs2: every turn and river, or every river, enumerated): bucket
k of n holds the percentiles [k/n, (k+1)/n), a holding's percentile being the share of
live holdings below it plus half the share equal to it. A percentile on each board (not
one threshold for all boards) keeps every bucket equally likely on every board, so the
two players' buckets are close to independent whatever the board (measured in
``ChanceModel.dependence``), which is what the abstract game assumes; on the river it
orders holdings exactly as the showdown does.

**Chance.** Each player's bucket sequence (b0, b1, b2, b3) is drawn independently from
the distribution of sequences measured on sampled deals (``measure``); the rounds reveal
it one bucket at a time. A showdown pays the share of the pot a holding of river bucket i
wins against one of river bucket j (ties half), measured over every pair of card-disjoint
holdings on the sampled river boards.

PsOpti (Billings, Burch, Davidson, Holte, Schaeffer, Schauenberg, Szafron, "Approximating
game-theoretic optimal strategies for full-scale poker", IJCAI 2003) first solved heads-up
limit hold'em through such bucket abstractions with chance moving players between
buckets; the E[HS²] percentile buckets with perfect recall are those of the CFR papers
(Zinkevich et al. 2007; Johanson's thesis, 2007).
"""
from __future__ import annotations

import hashlib
import itertools
import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

import evaluator_pyx as ev

__all__ = [
    "BOARD_AT_ROUND",
    "CardAbstraction",
    "ChanceModel",
    "DEAD",
    "canonical_flops",
    "flop_table",
    "measure",
    "percentile_buckets",
]

BOARD_AT_ROUND = (0, 3, 4, 5)
DEAD = 255  # bucket of a holding that shares a card with the board
_MAX_BUCKETS = 50
_CARD_MASK = tuple(1 << ev.card_bit(c) for c in range(52))
_HOLDING_CARDS = np.array(ev.HOLDING_CARDS, dtype=np.int64)  # (1326, 2)


def percentile_buckets(values: np.ndarray, live: np.ndarray, n: int) -> np.ndarray:
    """Bucket 0..n-1 of each entry by its percentile among the ``live`` entries (the
    share below it plus half the share equal to it; bucket k holds [k/n, (k+1)/n)); DEAD
    for entries not live. Equal values always share a bucket."""
    out = np.full(values.shape[0], DEAD, dtype=np.uint8)
    v = values[live]
    if v.size == 0:
        return out
    ordered = np.sort(v)
    below = np.searchsorted(ordered, v, side="left")
    upto = np.searchsorted(ordered, v, side="right")
    pct = (below + 0.5 * (upto - below)) / v.size
    out[live] = np.minimum((pct * n).astype(np.int64), n - 1).astype(np.uint8)
    return out


def _holding_class(index: int) -> tuple[int, int, bool]:
    a, b = ev.HOLDING_CARDS[index]
    ra, rb = a >> 2, b >> 2
    return (max(ra, rb), min(ra, rb), (a & 3) == (b & 3) and ra != rb)


def _class_average(values: np.ndarray) -> np.ndarray:
    """Each holding's value replaced by the mean over its class (rank pair and suitedness:
    the holdings alike up to a change of suits)."""
    groups: dict[tuple[int, int, bool], list[int]] = {}
    for i in range(ev.N_HOLDINGS):
        groups.setdefault(_holding_class(i), []).append(i)
    out = np.empty_like(values)
    for members in groups.values():
        out[members] = values[members].mean()
    return out


def _board_mask(cards: Sequence[int]) -> int:
    m = 0
    for c in cards:
        m |= _CARD_MASK[c]
    return m


_SUIT_PERMS = tuple(itertools.permutations(range(4)))


def _permute_card(card: int, perm: tuple[int, ...]) -> int:
    return (card & ~3) | perm[card & 3]


@lru_cache(maxsize=1)
def _holding_maps() -> np.ndarray:
    """(24, 1326): the holding that holding h becomes under each permutation of suits."""
    out = np.empty((len(_SUIT_PERMS), ev.N_HOLDINGS), dtype=np.int16)
    for p, perm in enumerate(_SUIT_PERMS):
        for h, (a, b) in enumerate(ev.HOLDING_CARDS):
            out[p, h] = ev.holding_index_of_cards(_permute_card(a, perm), _permute_card(b, perm))
    out.flags.writeable = False
    return out


def _canonical(flop: Sequence[int]) -> tuple[tuple[int, ...], int]:
    """The least (sorted) image of a flop under the 24 permutations of suits, and the
    index of a permutation that gives it."""
    best: tuple[int, ...] | None = None
    which = 0
    for p, perm in enumerate(_SUIT_PERMS):
        image = tuple(sorted(_permute_card(c, perm) for c in flop))
        if best is None or image < best:
            best, which = image, p
    assert best is not None
    return best, which


@lru_cache(maxsize=1)
def canonical_flops() -> tuple[tuple[int, ...], ...]:
    """The 1,755 flops that differ other than by a change of suits, each as its least
    image, in increasing order."""
    return tuple(sorted({_canonical(f)[0] for f in itertools.combinations(range(52), 3)}))


@lru_cache(maxsize=1)
def _canonical_index() -> dict[tuple[int, ...], int]:
    return {f: i for i, f in enumerate(canonical_flops())}


def _flop_rows(flops: Sequence[tuple[int, ...]], n: int) -> np.ndarray:
    """The flop buckets (percentile of exact E[HS²]) of every holding on each flop."""
    out = np.empty((len(flops), ev.N_HOLDINGS), dtype=np.uint8)
    for i, flop in enumerate(flops):
        values = ev.holding_ehs2(_board_mask(flop))
        out[i] = percentile_buckets(values, values >= 0.0, n)
    return out


def flop_table(n: int, workers: int = 1, progress: Callable[[int], None] | None = None) -> np.ndarray:
    """(1755, 1326) uint8: the flop bucket of every holding on every canonical flop
    (``canonical_flops``); about 20 s of one core."""
    flops = canonical_flops()
    parts = [flops[i:i + 65] for i in range(0, len(flops), 65)]
    rows = []
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for part, block in zip(parts, pool.map(_flop_rows, parts, [n] * len(parts))):
                rows.append(block)
                if progress:
                    progress(len(part))
    else:
        for part in parts:
            rows.append(_flop_rows(part, n))
            if progress:
                progress(len(part))
    return np.concatenate(rows)


@dataclass(frozen=True)
class CardAbstraction:
    """Buckets per round and the pre-flop bucket of every holding (module docstring)."""

    buckets: tuple[int, int, int, int]
    preflop: np.ndarray = field(repr=False)  # uint8 bucket of each of the 1326 holdings
    # (1755, 1326) flop buckets of every canonical flop (flop_table), or None: computed
    # on demand (about 30 ms a flop).
    flops: np.ndarray | None = field(default=None, repr=False)
    _cache: OrderedDict = field(default_factory=OrderedDict, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.buckets) != 4 or any(not 1 <= b <= _MAX_BUCKETS for b in self.buckets):
            raise ValueError(f"buckets per round must be 4 numbers of 1-{_MAX_BUCKETS}, got {self.buckets}")
        pre = np.asarray(self.preflop)
        if pre.shape != (ev.N_HOLDINGS,) or pre.max() >= self.buckets[0]:
            raise ValueError("the pre-flop table needs one bucket below buckets[0] for each of 1326 holdings")
        if self.flops is not None:
            f = np.asarray(self.flops)
            live = f[f != DEAD]
            if f.shape != (len(canonical_flops()), ev.N_HOLDINGS) or (live.size and live.max() >= self.buckets[1]):
                raise ValueError("the flop table needs 1755 x 1326 buckets below buckets[1]")

    def sequences_in_round(self, round_: int) -> int:
        """Bucket sequences a player can hold in ``round_`` (0 pre-flop .. 3 river)."""
        return int(np.prod(self.buckets[: round_ + 1]))

    def board_buckets(self, board: Sequence[int]) -> np.ndarray:
        """Bucket of every holding on a flop, turn or river board (DEAD for holdings that
        touch it): a flop from the flop table when there is one, a turn (about 1 ms) or
        river computed and kept for the last few boards."""
        mask = _board_mask(board)
        hit = self._cache.get(mask)
        if hit is not None:
            self._cache.move_to_end(mask)
            return hit
        n = len(board)
        if n not in (3, 4, 5):
            raise ValueError(f"a board has 3-5 cards, got {n}")
        if n == 3 and self.flops is not None:
            canon, perm = _canonical(board)
            return self.flops[_canonical_index()[canon]][_holding_maps()[perm]]
        values = ev.holding_ehs2(mask)
        out = percentile_buckets(values, values >= 0.0, self.buckets[BOARD_AT_ROUND.index(n)])
        out.flags.writeable = False
        self._cache[mask] = out
        if len(self._cache) > 16:
            self._cache.popitem(last=False)
        return out

    def sequences(self, board: Sequence[int], round_: int) -> np.ndarray:
        """The bucket sequence index of every holding in ``round_`` on ``board`` (its
        first cards for that round), int64, -1 for holdings that touch the board. The
        index of (b0, ..., br) is ((b0 * B1 + b1) * B2 + b2) ... (mixed radix)."""
        seq = self.preflop.astype(np.int64)
        dead = np.zeros(ev.N_HOLDINGS, dtype=bool)
        for r in range(1, round_ + 1):
            b = self.board_buckets(board[: BOARD_AT_ROUND[r]])
            dead |= b == DEAD
            seq = seq * self.buckets[r] + np.where(b == DEAD, 0, b)
        seq[dead] = -1
        return seq

    def sequence_of(self, hole: Sequence[int], board: Sequence[int], round_: int) -> int:
        """The bucket sequence index of one holding (see ``sequences``)."""
        h = ev.holding_index_of_cards(*hole)
        seq = int(self.preflop[h])
        for r in range(1, round_ + 1):
            b = int(self.board_buckets(board[: BOARD_AT_ROUND[r]])[h])
            if b == DEAD:
                raise ValueError("the hole cards share a card with the board")
            seq = seq * self.buckets[r] + b
        return seq

    def describe(self) -> dict:
        return {
            "buckets": list(self.buckets),
            "preflop": "percentile of E[HS^2] over the 1326 holdings (measured, class-averaged)",
            "postflop": "percentile of exact E[HS^2] among the holdings live on the board; "
                        "bucket k of n holds [k/n, (k+1)/n); ties share a bucket",
            "recall": "perfect: the sequence of buckets of every round",
        }


@dataclass(frozen=True)
class ChanceModel:
    """The abstract game's chance: P(b0, b1, b2, b3) of one player's bucket sequence
    (both players alike and independent) and the showdown share of river bucket i against
    river bucket j. ``dependence``: what the measurement says of the independence: the
    total variation distance between the joint distribution of the two players' flop
    buckets and the product of its marginals (0 = independent)."""

    abstraction: CardAbstraction
    sequence_probs: np.ndarray  # float64, shape buckets
    share: np.ndarray  # float64 (B3, B3): share[i, j] + share[j, i] = 1
    samples: dict
    dependence: float

    def conditionals(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """(P(b0), [P(b_r | b0..b_{r-1}) flattened as [seq * B_r + b] for r = 1..3]);
        a sequence never seen gets a uniform next bucket (it has probability 0)."""
        p = self.sequence_probs
        root = p.sum(axis=(1, 2, 3))
        conds = []
        for r in range(1, 4):
            joint = p.sum(axis=tuple(range(r + 1, 4))) if r < 3 else p
            flat = joint.reshape(-1, self.abstraction.buckets[r])
            tot = flat.sum(axis=1, keepdims=True)
            cond = np.where(tot > 0, flat / np.where(tot > 0, tot, 1.0), 1.0 / flat.shape[1])
            conds.append(np.ascontiguousarray(cond.reshape(-1)))
        return root, conds

    def digest(self) -> str:
        h = hashlib.sha256()
        h.update(json.dumps(list(self.abstraction.buckets)).encode())
        arrays = [self.abstraction.preflop.astype(np.uint8), self.sequence_probs.astype(np.float64),
                  self.share.astype(np.float64)]
        if self.abstraction.flops is not None:
            arrays.append(np.asarray(self.abstraction.flops, dtype=np.uint8))
        for arr in arrays:
            h.update(np.ascontiguousarray(arr).tobytes())
        return h.hexdigest()


@dataclass
class _Tally:
    """What a batch of sampled flops adds up (summed over batches in any order)."""

    holding_sequences: np.ndarray  # (1326, B1, B2, B3) counts
    hs2_sums: np.ndarray  # (1326,) int64: river HS² x 1980² summed
    hs2_counts: np.ndarray  # (1326,) int32
    won: np.ndarray  # (B3, B3)
    pairs: np.ndarray  # (B3, B3)
    boards: int

    def add(self, other: _Tally) -> None:
        self.holding_sequences += other.holding_sequences
        self.hs2_sums += other.hs2_sums
        self.hs2_counts += other.hs2_counts
        self.won += other.won
        self.pairs += other.pairs
        self.boards += other.boards


def _empty_tally(buckets: tuple[int, ...]) -> _Tally:
    b1, b2, b3 = buckets[1:]
    return _Tally(np.zeros((ev.N_HOLDINGS, b1, b2, b3), dtype=np.int64), np.zeros(ev.N_HOLDINGS, dtype=np.int64),
                  np.zeros(ev.N_HOLDINGS, dtype=np.int32), np.zeros((b3, b3)), np.zeros((b3, b3)), 0)


# A placeholder pre-flop table for the tally (pre-flop buckets are decided after it).
_NO_PREFLOP = np.zeros(ev.N_HOLDINGS, dtype=np.uint8)


def _tally_flops(buckets: tuple[int, ...], seed: int, flops: range, turns: int, rivers: int,
                 table: np.ndarray | None) -> _Tally:
    """Sample flop f of ``flops`` from the seed and f alone, ``turns`` turns on it and
    ``rivers`` rivers on each turn; count every live holding's bucket sequence."""
    abstraction = CardAbstraction(tuple(buckets), _NO_PREFLOP, table)  # type: ignore[arg-type]
    tally = _empty_tally(buckets)
    b3 = buckets[3]
    for f in flops:
        rng = np.random.default_rng([seed, f])
        deck = rng.permutation(52)
        flop = [int(c) for c in deck[:3]]
        fb = abstraction.board_buckets(flop)
        for t in range(turns):
            turn = int(deck[3 + t])
            tb = abstraction.board_buckets(flop + [turn])
            rest = [int(c) for c in deck[3 + turns:]]
            for k in range(rivers):
                river = rest[(t * rivers + k) % len(rest)]
                board = flop + [turn, river]
                rb = abstraction.board_buckets(board)
                live = rb != DEAD
                idx = np.nonzero(live)[0]
                np.add.at(tally.holding_sequences, (idx, fb[idx], tb[idx], rb[idx]), 1)
                mask = _board_mask(board)
                ev.river_hs2_sums(np.array([mask], dtype=np.uint64), tally.hs2_sums, tally.hs2_counts)
                ev.river_pair_outcomes(mask, np.where(live, rb, 0).astype(np.uint8), b3, tally.won, tally.pairs)
                tally.boards += 1
    return tally


def _count_pairs(bk: np.ndarray, alive: np.ndarray, joint: np.ndarray, cards: np.ndarray) -> None:
    """Adds every ordered pair of card-disjoint holdings alive on the board to
    joint[bk[first], bk[second]]."""
    live = np.nonzero(alive)[0]
    held = np.zeros((live.size, 52), dtype=bool)
    held[np.arange(live.size), cards[live, 0]] = True
    held[np.arange(live.size), cards[live, 1]] = True
    overlap = held.astype(np.int32) @ held.T.astype(np.int32)
    ok = overlap == 0
    onehot = np.zeros((live.size, joint.shape[0]))
    onehot[np.arange(live.size), bk[live]] = 1.0
    joint += onehot.T @ ok.astype(np.float64) @ onehot


def _flop_dependence(abstraction: CardAbstraction, seed: int, flops: int) -> float:
    """Total variation distance between the joint distribution of the two players'
    (pre-flop, flop) buckets over card-disjoint holding pairs on ``flops`` sampled flops
    and the product of its marginals: how far the abstract game's independence is from
    the deals (sampling noise adds to it: an upper bound at small samples)."""
    b0, b1 = abstraction.buckets[:2]
    joint = np.zeros((b0 * b1, b0 * b1))
    for f in range(flops):
        deck = np.random.default_rng([seed, f]).permutation(52)
        fb = abstraction.board_buckets([int(c) for c in deck[:3]])
        combined = abstraction.preflop.astype(np.int64) * b1 + fb
        _count_pairs(combined, fb != DEAD, joint, _HOLDING_CARDS)
    joint /= joint.sum()
    marginal = joint.sum(axis=1)
    return 0.5 * float(np.abs(joint - np.outer(marginal, marginal)).sum())


def measure(buckets: Sequence[int], flops: int, *, seed: int, turns: int = 4, rivers: int = 4,
            workers: int = 1, progress: Callable[[int], None] | None = None,
            with_flop_table: bool = True) -> ChanceModel:
    """The abstraction and its chance model from ``flops`` sampled flops (``turns`` turns
    on each, ``rivers`` rivers on each turn): a pure function of the arguments but
    ``workers`` and ``progress`` (the flops are split in batches of 25, whatever the
    number of worker processes). With ``with_flop_table`` the flop buckets of all 1,755
    canonical flops are computed first (``flop_table``; ``progress`` counts them too) and
    kept in the abstraction, so play never computes a flop's."""
    buckets = tuple(int(b) for b in buckets)
    if len(buckets) != 4 or any(not 1 <= b <= _MAX_BUCKETS for b in buckets):
        raise ValueError(f"buckets per round must be 4 numbers of 1-{_MAX_BUCKETS}, got {buckets}")
    if flops < 1 or turns < 1 or rivers < 1 or turns + rivers > 49:
        raise ValueError("flops, turns and rivers must be at least 1 (turns + rivers at most 49)")
    table = flop_table(buckets[1], workers, progress) if with_flop_table else None
    batches = [range(i, min(i + 25, flops)) for i in range(0, flops, 25)]
    tally = _empty_tally(buckets)
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(_tally_flops, buckets, seed, b, turns, rivers, table) for b in batches]
            for fut, b in zip(futures, batches):
                tally.add(fut.result())
                if progress:
                    progress(len(b))
    else:
        for b in batches:
            tally.add(_tally_flops(buckets, seed, b, turns, rivers, table))
            if progress:
                progress(len(b))
    # Pre-flop: E[HS²] of each holding over the sampled boards, averaged over its class.
    ehs2 = tally.hs2_sums / np.maximum(tally.hs2_counts, 1) / float(1980 ** 2)
    pre_values = _class_average(ehs2)
    preflop = percentile_buckets(pre_values, np.ones(ev.N_HOLDINGS, dtype=bool), buckets[0])
    abstraction = CardAbstraction(buckets, preflop, table)  # type: ignore[arg-type]
    seq = np.zeros(buckets, dtype=np.float64)
    np.add.at(seq, preflop, tally.holding_sequences.astype(np.float64))
    seq /= seq.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(tally.pairs > 0, tally.won / np.where(tally.pairs > 0, tally.pairs, 1.0), 0.5)
    dependence = _flop_dependence(abstraction, seed, min(flops, 40))
    samples = {"flops": flops, "turns_per_flop": turns, "rivers_per_turn": rivers, "seed": seed,
               "river_boards": tally.boards, "holding_sequences": int(tally.holding_sequences.sum())}
    return ChanceModel(abstraction, seq, share, samples, dependence)
