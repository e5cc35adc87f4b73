# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""Weighted hand strength ([testbed-1998] §4.2: the share of the opponent's possible holdings our
hand beats now, ties half), exact, against a 1326-entry weight table ([testbed-1998] §4.3).
C-level API in _strength.pxd; the Python wrappers are in _assess.pyx.

A holding that cannot make a flush is worth what its rank pair is worth with the board,
so the 1,326 weights are summed by rank pair (91 sums, each compared once with our
value) before anything is compared; the few holdings that can make a flush are valued
one by one (the incremental hand keys of _core.pxd: board key + holding key).
"""
from libc.stdint cimport uint16_t, uint64_t
from libc.string cimport memset

from evaluator_pyx._core cimport (
    KEY_INIT,
    N_HOLDINGS,
    EvalTables,
    eval_tables,
    evaluate_key,
    mask_key,
    popcount64,
)
from evaluator_pyx._board cimport (
    AHEAD,
    BEHIND,
    TIED,
    BoardRanks,
    board_ranks,
    cards_key,
    holding_value,
    keep,
    radix_sort_values,
    suit_of_word,
    weight_of,
)

cdef const EvalTables* _T = eval_tables()


cdef int _hs_counts_generic(const EvalTables* t, uint64_t hole, uint64_t board,
                            const double* weights, const BoardRanks* rr, uint16_t ours,
                            double* out3) noexcept nogil:
    """hs_counts_c for any board: every holding that may make a flush is valued alone."""
    cdef int i, lo, hi
    cdef uint64_t dead = hole | board, m
    cdef const BoardRanks* r = rr
    cdef uint16_t v
    # Holdings that cannot make a flush are valued by their rank pair alone, so their
    # weights are summed per rank pair first and compared 91 times, not 1081. Four sets
    # of sums, by the second card's suit, keep neighbouring holdings (which often share a
    # rank pair) from waiting on each other's additions.
    cdef double by_pair[4][169]
    cdef double ahead = 0.0, tied = 0.0, total = 0.0, w, p
    memset(by_pair, 0, sizeof(by_pair))
    for i in range(N_HOLDINGS):
        m = t.holding_masks[i]
        w = keep(1.0 if weights == NULL else weights[i], (m & dead) == 0)
        if <int>popcount64(m & r.flush_suit) >= r.need:
            v = evaluate_key(t, r.key + t.holding_keys[i], board | m)
            ahead += keep(w, v < ours)
            tied += keep(w, v == ours)
            total += w
        else:
            by_pair[t.holding_cards[i][1] & 3][t.holding_rank_pair[i]] += w
    for lo in range(13):
        for hi in range(lo, 13):
            i = 13 * lo + hi
            p = (by_pair[0][i] + by_pair[1][i]) + (by_pair[2][i] + by_pair[3][i])
            v = r.rank_pair[i]
            ahead += keep(p, v < ours)
            tied += keep(p, v == ours)
            total += p
    out3[0] = ahead
    out3[1] = tied
    out3[2] = total - ahead - tied
    return 0



cdef int hs_counts_c(const EvalTables* t, uint64_t hole, uint64_t board,
                     const double* weights, double* out3) noexcept nogil:
    cdef int nb = popcount64(board), a, b, ra, r2, k, lo, hi, n_s, x, y
    if nb < 3 or nb > 5:
        return -1
    cdef uint64_t dead = hole | board
    cdef BoardRanks r
    board_ranks(t, mask_key(t, board), board, &r)
    cdef uint16_t ours = evaluate_key(t, r.key + cards_key(t, hole), dead), v, vp
    if r.need < 2:
        # Four or five board cards of a suit: most holdings may make a flush.
        return _hs_counts_generic(t, hole, board, weights, &r, ours, out3)
    cdef const double* w = weights
    if w == NULL:
        w = &t.ones[0]
    # Holdings that cannot make a flush are valued by their rank pair, so only the weight
    # of each rank pair's live holdings is needed. Holding (a, b), a < b, sits at
    # t.holding_base[a] + b: for one first card a, the holdings whose second card has a higher
    # rank are one contiguous run, so a rank's four first cards add their runs into
    # acc[b] (a plain vector loop), and acc[b] * alive[b] summed over b's four suits is
    # the rank pair's weight.
    cdef double alive[52]
    cdef double acc[52]
    cdef double ahead = 0.0, tied = 0.0, total = 0.0, p
    cdef const double* row
    cdef int cards_s[13]
    for k in range(52):
        alive[k] = 0.0 if t.card_bits[k] & dead else 1.0
    for ra in range(13):
        lo = 4 * (ra + 1)
        for k in range(lo, 52):
            acc[k] = 0.0
        p = 0.0
        for a in range(4 * ra, 4 * ra + 4):
            if alive[a] == 0.0:
                continue
            # The pair of rank ra: the same rank's later suits.
            for b in range(a + 1, 4 * ra + 4):
                p += w[t.holding_base[a] + b] * alive[b]
            row = w + t.holding_base[a]
            for k in range(lo, 52):
                acc[k] += row[k]
        v = r.rank_pair[14 * ra]
        ahead += keep(p, v < ours)
        tied += keep(p, v == ours)
        total += p
        for r2 in range(ra + 1, 13):
            k = 4 * r2
            p = (acc[k] * alive[k] + acc[k + 1] * alive[k + 1]) + (acc[k + 2] * alive[k + 2] + acc[k + 3] * alive[k + 3])
            v = r.rank_pair[13 * ra + r2]
            ahead += keep(p, v < ours)
            tied += keep(p, v == ours)
            total += p
    if r.flush_suit:
        # Three board cards of a suit: the holdings of two more of it make a flush. They
        # were counted at their rank pair's value above; move them to their own.
        n_s = 0
        for k in range(13):
            x = 4 * k + suit_of_word(r.flush_suit)
            if alive[x] != 0.0:
                cards_s[n_s] = x
                n_s += 1
        for x in range(n_s):
            a = cards_s[x]
            for y in range(x + 1, n_s):
                b = cards_s[y]
                p = w[t.holding_base[a] + b]
                vp = r.rank_pair[t.holding_rank_pair[t.holding_base[a] + b]]
                v = evaluate_key(t, r.key + t.holding_keys[t.holding_base[a] + b], board | t.card_bits[a] | t.card_bits[b])
                ahead += keep(p, v < ours) - keep(p, vp < ours)
                tied += keep(p, v == ours) - keep(p, vp == ours)
        # The moves above subtract what was added: rounding can leave a share a hair
        # below zero (e.g. -3e-18 when nothing is beaten), which is not a count.
        if ahead < 0.0:
            ahead = 0.0
        if tied < 0.0:
            tied = 0.0
    out3[0] = ahead
    out3[1] = tied
    out3[2] = max(0.0, total - ahead - tied)
    return 0


cdef double hand_strength_c(const EvalTables* t, uint64_t hole, uint64_t board,
                            const double* weights) noexcept nogil:
    cdef double c[3]
    if hs_counts_c(t, hole, board, weights, c) < 0:
        return -1.0
    cdef double total = c[0] + c[1] + c[2]
    if not total > 0.0:
        return -1.0
    return (c[0] + 0.5 * c[1]) / total
