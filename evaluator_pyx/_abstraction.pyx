# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""Card-abstraction kernels: the expected hand strength squared (E[HS²]) of every holding
on a board in one call, and the showdown outcomes of every pair of holdings on a river
board counted by bucket.

E[HS²] (Johanson's percentile E[HS²] buckets, used by Zinkevich et al. 2007 for their CFR
abstractions): the mean over every way the board can be completed of the square of the
holding's hand strength on the completed board against one opponent holding drawn
uniformly from the cards left. Squaring favours hands whose strength may rise (draws)
over made hands of the same mean strength. On a river board it is HS².

Hand strengths come from the all-holdings kernel (_ranking.holding_strengths_c); with
uniform weights every river strength is k / 1980 for an integer k (990 opponent
holdings, ties counted half), so the sums here are kept in integers and equal holdings
(those alike up to a change of suits) get exactly equal values: the percentile buckets
built on them never split a class of equivalent holdings by rounding.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memset

import numpy as np
cimport numpy as cnp

from evaluator_pyx._core cimport N_HOLDINGS, EvalTables, eval_tables, popcount64
from evaluator_pyx._ranking cimport holding_strengths_c, holding_values_c

cnp.import_array()

cdef const EvalTables* _T = eval_tables()

# 2 x the opponent holdings left on a river board: HS x RIVER_SCALE is an integer.
RIVER_SCALE = 1980
cdef double _SCALE = 1980.0


cdef inline uint64_t _bit(int card) noexcept nogil:
    return (<uint64_t>1) << (16 * (card & 3) + (card >> 2))


cdef void _add_river(uint64_t board, int64_t* sums, int32_t* counts, double* hs) noexcept nogil:
    """Adds HS² x RIVER_SCALE² of every holding live on the 5-card ``board`` to sums."""
    cdef int i
    cdef int64_t k
    holding_strengths_c(_T, board, NULL, hs)
    for i in range(N_HOLDINGS):
        if (_T.holding_masks[i] & board) == 0:
            k = <int64_t>(hs[i] * _SCALE + 0.5)
            sums[i] += k * k
            counts[i] += 1


cdef int ehs2_sums_c(uint64_t board, int64_t* sums, int32_t* counts) noexcept nogil:
    """Integer E[HS²] numerators of every holding on a 3-5 card board: sums[i] /
    (counts[i] x RIVER_SCALE²) is holding i's E[HS²]; counts[i] is 0 for holdings that
    touch the board. Returns 0, or -1 for a bad board size."""
    cdef int n = popcount64(board)
    cdef double hs[1326]
    cdef int a, b
    cdef uint64_t ba, bb
    memset(sums, 0, N_HOLDINGS * sizeof(int64_t))
    memset(counts, 0, N_HOLDINGS * sizeof(int32_t))
    if n == 5:
        _add_river(board, sums, counts, hs)
    elif n == 4:
        for a in range(52):
            ba = _bit(a)
            if not (ba & board):
                _add_river(board | ba, sums, counts, hs)
    elif n == 3:
        for a in range(52):
            ba = _bit(a)
            if ba & board:
                continue
            for b in range(a + 1, 52):
                bb = _bit(b)
                if not (bb & board):
                    _add_river(board | ba | bb, sums, counts, hs)
    else:
        return -1
    return 0


def _board_mask(board) -> int:
    cdef uint64_t m = <uint64_t>int(board)
    cdef int n = popcount64(m)
    if m & ~(<uint64_t>0x1fff1fff1fff1fff):
        raise ValueError(f"board mask {board:#x} has bits that are not cards")
    if n < 3 or n > 5:
        raise ValueError(f"a board has 3-5 cards, got {n}")
    return m


def holding_ehs2(board, out=None) -> np.ndarray:
    """E[HS²] of each of the 1326 holdings on this 3-5 card board (a mask) against one
    uniformly random opponent holding, the board completed every possible way; float64 in
    HOLDINGS order, -1.0 for holdings that share a card with the board. Exact: a flop
    enumerates the 1,081 turn-river pairs of each holding, a turn the 46 rivers."""
    cdef uint64_t b = _board_mask(board)
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.float64)
    cdef double[::1] o = out
    if o.shape[0] != N_HOLDINGS:
        raise ValueError("out needs 1326 entries")
    cdef int64_t sums[1326]
    cdef int32_t counts[1326]
    cdef int i
    cdef double scale2 = _SCALE * _SCALE
    with nogil:
        ehs2_sums_c(b, sums, counts)
        for i in range(N_HOLDINGS):
            o[i] = (<double>sums[i]) / (counts[i] * scale2) if counts[i] else -1.0
    return out


def river_hs2_sums(boards, int64_t[::1] sums, int32_t[::1] counts) -> None:
    """Adds HS² x RIVER_SCALE² of every live holding on each 5-card board (an array of
    masks) to ``sums`` and 1 to ``counts`` (1326 entries each): pre-flop E[HS²] by
    sampling boards."""
    cdef uint64_t[::1] bs = np.ascontiguousarray(boards, dtype=np.uint64)
    cdef Py_ssize_t k
    cdef double hs[1326]
    if sums.shape[0] != N_HOLDINGS or counts.shape[0] != N_HOLDINGS:
        raise ValueError("sums and counts need 1326 entries")
    for k in range(bs.shape[0]):
        if popcount64(bs[k]) != 5:
            raise ValueError(f"board {k} is not 5 cards")
    with nogil:
        for k in range(bs.shape[0]):
            _add_river(bs[k], &sums[0], &counts[0], hs)


def river_pair_outcomes(board, const uint8_t[::1] buckets, int n_buckets, double[:, ::1] won,
                        double[:, ::1] pairs) -> None:
    """Over every ordered pair of card-disjoint holdings live on this river board, adds
    to ``won[i, j]`` the pot share the first (of bucket i) wins against the second (of
    bucket j): 1 a win, 1/2 a tie; and 1 to ``pairs[i, j]``. ``buckets`` has one entry
    per holding (its bucket on this board; ignored for holdings touching the board);
    both outputs are n_buckets x n_buckets. won / pairs is the showdown share of bucket
    i against bucket j."""
    cdef uint64_t b = _board_mask(board)
    if popcount64(b) != 5:
        raise ValueError("river_pair_outcomes needs a 5-card board")
    if buckets.shape[0] != N_HOLDINGS:
        raise ValueError("buckets needs 1326 entries")
    if won.shape[0] != n_buckets or won.shape[1] != n_buckets \
            or pairs.shape[0] != n_buckets or pairs.shape[1] != n_buckets:
        raise ValueError("won and pairs must be n_buckets x n_buckets")
    cdef int32_t values[1326]
    cdef int live[1326]
    cdef int n = 0, x, y, i, j, bi, bj
    cdef uint64_t mi
    for i in range(N_HOLDINGS):
        if not (_T.holding_masks[i] & b) and buckets[i] >= n_buckets:
            raise ValueError(f"holding {i} has bucket {buckets[i]}, not below {n_buckets}")
    with nogil:
        holding_values_c(_T, b, values)
        for i in range(N_HOLDINGS):
            if not (_T.holding_masks[i] & b):
                live[n] = i
                n += 1
        for x in range(n):
            i = live[x]
            mi = _T.holding_masks[i]
            bi = buckets[i]
            for y in range(x + 1, n):
                j = live[y]
                if mi & _T.holding_masks[j]:
                    continue
                bj = buckets[j]
                pairs[bi, bj] += 1.0
                pairs[bj, bi] += 1.0
                if values[i] > values[j]:
                    won[bi, bj] += 1.0
                elif values[i] < values[j]:
                    won[bj, bi] += 1.0
                else:
                    won[bi, bj] += 0.5
                    won[bj, bi] += 0.5
