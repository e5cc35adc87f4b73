# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""Hand assessment in C: hand strength, hand potential, ranks, strengths and one-card Ppot
of every holding on a board, and Monte Carlo roll-outs (C-level API in _assess.pxd).

The quantities are those of seed 003 (Billings, Papp, Schaeffer, Szafron 1998) §4.2-4.4:
hand strength HS is the share of possible opponent holdings our hand beats now (ties
count half); Ppot / Npot come from Table 2, the weighted counts of (opponent holding,
run-out) pairs by whether we are ahead / tied / behind now and after the run-out; EHS =
HS_n + (1 - HS_n) * Ppot. Every enumeration is weighted by a 1326-entry table in HOLDINGS
order (seed 003 §4.3; seed 004's weight tables). The Monte Carlo kernels follow seed 001
(Mick West): deal the unknown cards at random and count our share of the pot.
"""
from libc.math cimport sqrt
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from evaluator_pyx._core cimport (
    KEY_INIT,
    N_HOLDINGS,
    VALID_MASK_BITS,
    ctz64,
    EvalTables,
    eval_tables,
    evaluate_key,
    mask_key,
    popcount64,
    rank_value,
)

import numpy as np

from .cards import CardError, cards_to_mask

cdef const EvalTables* _T = eval_tables()

cdef extern from *:
    """
    /* w if keep else 0.0, without a branch: the comparisons that decide it are coin
       flips, and a mispredicted branch costs more than the whole evaluation. */
    static inline double poki_keep(double w, int keep) {
        union { double d; unsigned long long u; } x;
        x.d = w;
        x.u &= 0ULL - (unsigned long long)(keep != 0);
        return x.d;
    }
    """
    double keep "poki_keep"(double w, int keep) noexcept nogil

# Bit of each card in a hand mask, and each holding's two cards and starting-hand type.
cdef uint64_t _CARD_BIT[52]
cdef uint8_t _HCARD[1326][2]
cdef uint8_t _HTYPE[1326]
cdef uint8_t _TYPE_OF_CARDS[52][52]
# Rank pair of each holding, 13 * low + high: a hand's value without a flush depends on
# its ranks only, so one evaluation per rank pair serves every holding of that pair.
cdef uint8_t _HRP[1326]
# The holdings of each rank pair (16 for two ranks, 6 for a pair).
cdef uint16_t _RP_MEMBERS[169][16]
cdef uint8_t _RP_N[169]
# Holding (a, b), a < b, is number _HBASE[a] + b in HOLDINGS order.
cdef int _HBASE[52]
# Uniform weights.
cdef double _ONES[1326]


cdef void _init_tables() noexcept nogil:
    cdef int a, b, i = 0, ra, rb, hi, lo, ty
    memset(_RP_N, 0, sizeof(_RP_N))
    for a in range(52):
        _CARD_BIT[a] = 1ULL << (16 * (a & 3) + (a >> 2))
    for a in range(52):
        for b in range(52):
            ra = a >> 2
            rb = b >> 2
            hi = ra if ra > rb else rb
            lo = rb if ra > rb else ra
            if (a & 3) == (b & 3):
                ty = 13 * hi + lo          # suited (and the impossible a == b)
            else:
                ty = 13 * lo + hi          # offsuit, pairs land on the diagonal
            _TYPE_OF_CARDS[a][b] = <uint8_t>ty
    for a in range(52):
        for b in range(a + 1, 52):
            _HCARD[i][0] = <uint8_t>a
            _HCARD[i][1] = <uint8_t>b
            _HTYPE[i] = _TYPE_OF_CARDS[a][b]
            ra = a >> 2
            rb = b >> 2
            _HRP[i] = <uint8_t>(13 * ra + rb if ra <= rb else 13 * rb + ra)
            _RP_MEMBERS[_HRP[i]][_RP_N[_HRP[i]]] = <uint16_t>i
            _RP_N[_HRP[i]] += 1
            i += 1
    for a in range(52):
        _HBASE[a] = 50 * a - a * (a - 1) // 2 - 1
    for i in range(N_HOLDINGS):
        _ONES[i] = 1.0


_init_tables()


cdef const uint8_t* holding_types() noexcept nogil:
    return &_HTYPE[0]


cdef inline uint64_t _cards_key(uint64_t mask) noexcept nogil:
    """Incremental key of a mask's cards without KEY_INIT (adds to a hand key)."""
    return mask_key(_T, mask) - KEY_INIT


# ---------------------------------------------------------------------------------------
# Alias tables (Vose): O(1) draws of a holding in proportion to its weight.

cdef int alias_build(AliasTable* a, const double* weights, uint64_t dead) noexcept nogil:
    cdef int i, n = 0, ns = 0, nl = 0, s, l
    cdef double total = 0.0, w
    cdef uint16_t small[1326]
    cdef uint16_t large[1326]
    for i in range(N_HOLDINGS):
        if _T.holding_masks[i] & dead:
            continue
        w = 1.0 if weights == NULL else weights[i]
        if w > 0.0:
            a.holding[n] = <uint16_t>i
            a.prob[n] = w
            total += w
            n += 1
    a.n = n
    if n == 0:
        return 0
    # Scale to mean 1, then pair each under-full slot with an over-full one.
    for i in range(n):
        a.prob[i] = a.prob[i] * n / total
        a.alias[i] = a.holding[i]
        if a.prob[i] < 1.0:
            small[ns] = <uint16_t>i
            ns += 1
        else:
            large[nl] = <uint16_t>i
            nl += 1
    while ns > 0 and nl > 0:
        ns -= 1
        s = small[ns]
        l = large[nl - 1]
        a.alias[s] = a.holding[l]
        a.prob[l] = (a.prob[l] + a.prob[s]) - 1.0
        if a.prob[l] < 1.0:
            nl -= 1
            small[ns] = <uint16_t>l
            ns += 1
    # Whatever is left is full up to rounding.
    while nl > 0:
        nl -= 1
        a.prob[large[nl]] = 1.0
    while ns > 0:
        ns -= 1
        a.prob[small[ns]] = 1.0
    return n


# ---------------------------------------------------------------------------------------
# Exact enumerations.

ctypedef struct _BoardRanks:
    uint64_t key                    # the board's hand key and mask
    uint64_t mask
    uint64_t flush_suit             # the suit word of a suit with 3+ board cards, else 0
    int need                        # that suit's cards a holding needs for a flush
    uint16_t rank_pair[169]         # non-flush value of board + each rank pair (13 * lo + hi)


cdef inline void _board_ranks(const EvalTables* t, uint64_t key, uint64_t mask,
                              _BoardRanks* r) noexcept nogil:
    """Values of the board (3-5 cards) with every rank pair, and where flushes can be.
    With at most 5 board cards only one suit can hold 3 or more of them."""
    cdef uint32_t rs = <uint32_t>key          # the low 32 bits of a key: its rank-key sum
    cdef uint32_t rl
    cdef int lo, hi, s, c
    r.key = key
    r.mask = mask
    r.flush_suit = 0
    r.need = 3
    for lo in range(13):
        rl = rs + t.rank_keys[lo]
        for hi in range(lo, 13):
            r.rank_pair[13 * lo + hi] = rank_value(t, rl + t.rank_keys[hi])
    for s in range(4):
        c = popcount64(mask & (0x1fffULL << (16 * s)))
        if c >= 3:
            r.flush_suit = 0x1fffULL << (16 * s)
            r.need = 5 - c


cdef inline uint16_t _holding_value(const EvalTables* t, const _BoardRanks* r, int i,
                                    uint64_t m) noexcept nogil:
    """Value of board + holding i (mask m): a lookup unless it may make a flush."""
    if <int>popcount64(m & r.flush_suit) >= r.need:
        return evaluate_key(t, r.key + t.holding_keys[i], r.mask | m)
    return r.rank_pair[_HRP[i]]


cdef inline int _suit_of_word(uint64_t word_mask) noexcept nogil:
    """Suit 0..3 of a one-suit word mask (0x1fff << 16 * suit)."""
    return <int>(ctz64(word_mask) >> 4)


cdef inline double _w(const double* weights, int i) noexcept nogil:
    return 1.0 if weights == NULL else weights[i]


cdef int _hs_counts_generic(const EvalTables* t, uint64_t hole, uint64_t board,
                            const double* weights, const _BoardRanks* rr, uint16_t ours,
                            double* out3) noexcept nogil:
    """hs_counts_c for any board: every holding that may make a flush is valued alone."""
    cdef int i, lo, hi
    cdef uint64_t dead = hole | board, m
    cdef const _BoardRanks* r = rr
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
            by_pair[_HCARD[i][1] & 3][_HRP[i]] += w
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
    cdef _BoardRanks r
    _board_ranks(t, mask_key(t, board), board, &r)
    cdef uint16_t ours = evaluate_key(t, r.key + _cards_key(hole), dead), v, vp
    if r.need < 2:
        # Four or five board cards of a suit: most holdings may make a flush.
        return _hs_counts_generic(t, hole, board, weights, &r, ours, out3)
    cdef const double* w = weights
    if w == NULL:
        w = &_ONES[0]
    # Holdings that cannot make a flush are valued by their rank pair, so only the weight
    # of each rank pair's live holdings is needed. Holding (a, b), a < b, sits at
    # _HBASE[a] + b: for one first card a, the holdings whose second card has a higher
    # rank are one contiguous run, so a rank's four first cards add their runs into
    # acc[b] (a plain vector loop), and acc[b] * alive[b] summed over b's four suits is
    # the rank pair's weight.
    cdef double alive[52]
    cdef double acc[52]
    cdef double ahead = 0.0, tied = 0.0, total = 0.0, p
    cdef const double* row
    cdef int cards_s[13]
    for k in range(52):
        alive[k] = 0.0 if _CARD_BIT[k] & dead else 1.0
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
                p += w[_HBASE[a] + b] * alive[b]
            row = w + _HBASE[a]
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
            x = 4 * k + _suit_of_word(r.flush_suit)
            if alive[x] != 0.0:
                cards_s[n_s] = x
                n_s += 1
        for x in range(n_s):
            a = cards_s[x]
            for y in range(x + 1, n_s):
                b = cards_s[y]
                p = w[_HBASE[a] + b]
                vp = r.rank_pair[_HRP[_HBASE[a] + b]]
                v = evaluate_key(t, r.key + t.holding_keys[_HBASE[a] + b], board | _CARD_BIT[a] | _CARD_BIT[b])
                ahead += keep(p, v < ours) - keep(p, vp < ours)
                tied += keep(p, v == ours) - keep(p, vp == ours)
    out3[0] = ahead
    out3[1] = tied
    out3[2] = total - ahead - tied
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


cdef inline void _tally(const uint16_t* idx, const uint64_t* masks, const double* ws,
                        int start, int end, const _BoardRanks* r, uint64_t runout,
                        uint16_t ours, double* row3) noexcept nogil:
    """Add to row3 (ahead, tied, total) the weights of listed holdings start..end-1 that
    do not touch the run-out cards, compared with our value after the run-out."""
    cdef int j, k
    cdef uint16_t v
    cdef uint64_t m
    cdef double w
    # Four independent sets of sums, so the additions do not wait on each other.
    cdef double a[4]
    cdef double ti[4]
    cdef double s[4]
    for k in range(4):
        a[k] = 0.0
        ti[k] = 0.0
        s[k] = 0.0
    j = start
    while j + 4 <= end:
        for k in range(4):
            m = masks[j + k]
            v = _holding_value(_T, r, idx[j + k], m)
            w = keep(ws[j + k], (m & runout) == 0)
            a[k] += keep(w, v < ours)
            ti[k] += keep(w, v == ours)
            s[k] += w
        j += 4
    while j < end:
        m = masks[j]
        v = _holding_value(_T, r, idx[j], m)
        w = keep(ws[j], (m & runout) == 0)
        a[0] += keep(w, v < ours)
        ti[0] += keep(w, v == ours)
        s[0] += w
        j += 1
    row3[0] += (a[0] + a[1]) + (a[2] + a[3])
    row3[1] += (ti[0] + ti[1]) + (ti[2] + ti[3])
    row3[2] += (s[0] + s[1]) + (s[2] + s[3])


cdef inline void _runout_tally(const EvalTables* t, uint64_t hole, uint64_t hkey,
                               uint64_t board, uint64_t bkey, uint64_t runout, uint64_t runout_key,
                               const uint16_t* sidx, const uint64_t* smasks, const double* sws,
                               const int* group_start, double (*acc)[3]) noexcept nogil:
    """Table 2 columns for one run-out: every listed holding against us on the new board."""
    cdef _BoardRanks r
    cdef uint64_t rkey = bkey + runout_key, rmask = board | runout
    cdef int g
    _board_ranks(t, rkey, rmask, &r)
    cdef uint16_t ours = evaluate_key(t, rkey + hkey, rmask | hole)
    for g in range(3):
        _tally(sidx, smasks, sws, group_start[g], group_start[g + 1], &r, runout, ours, acc[g])


ctypedef struct _Bins:
    # The opponent holdings counted by potential_table_c, by where we stand now.
    const double* weights
    double by_pair[3][169]          # weight by group (AHEAD, TIED, BEHIND) and rank pair
    double total[3]
    uint8_t group[1326]             # each holding's group, 3 if not counted
    uint16_t by_card[52][51]        # the counted holdings that hold each card
    int n_card[52]


cdef inline void _take_out(const _BoardRanks* r, const _Bins* bins, int card, int other,
                           uint16_t ours, double (*acc)[3]) noexcept nogil:
    """Remove the counted holdings holding `card` (but not `other`, already removed)
    from the tallies, each at its rank pair's value as the bins counted it."""
    cdef int k, i, g
    cdef uint16_t v
    cdef double w
    for k in range(bins.n_card[card]):
        i = bins.by_card[card][k]
        if other >= 0 and (_HCARD[i][0] == other or _HCARD[i][1] == other):
            continue
        g = bins.group[i]
        w = _w(bins.weights, i)
        v = r.rank_pair[_HRP[i]]
        acc[g][0] -= keep(w, v < ours)
        acc[g][1] -= keep(w, v == ours)
        acc[g][2] -= w


cdef inline void _runout_bins(const EvalTables* t, uint64_t hole, uint64_t hkey,
                              uint64_t board, uint64_t bkey, uint64_t dead, int c1, int c2,
                              const _Bins* bins, const uint16_t* sidx, const uint64_t* smasks,
                              const double* sws, const int* group_start,
                              double (*acc)[3]) noexcept nogil:
    """Table 2 columns for the run-out c1 (and c2 if >= 0) from the rank-pair bins: 91
    comparisons per group, then the holdings that hold a run-out card are taken out and
    the ones that make a flush moved to their own value."""
    cdef uint64_t runout = _CARD_BIT[c1], rkey = bkey + t.card_keys[c1]
    if c2 >= 0:
        runout |= _CARD_BIT[c2]
        rkey += t.card_keys[c2]
    cdef uint64_t rmask = board | runout
    cdef _BoardRanks r
    _board_ranks(t, rkey, rmask, &r)
    cdef uint16_t ours = evaluate_key(t, rkey + hkey, rmask | hole), v, vp
    cdef int g, lo, hi, q, k, x, y, n_s, a, b, i, s
    cdef double w, ca, ct
    cdef int cards_s[13]
    if r.need < 2:
        # Four or five cards of a suit on the board: value every holding.
        for g in range(3):
            _tally(sidx, smasks, sws, group_start[g], group_start[g + 1], &r, runout, ours, acc[g])
        return
    cdef double sa[3]
    cdef double st[3]
    for g in range(3):
        sa[g] = 0.0
        st[g] = 0.0
    for lo in range(13):
        for hi in range(lo, 13):
            q = 13 * lo + hi
            v = r.rank_pair[q]
            for g in range(3):
                sa[g] += keep(bins.by_pair[g][q], v < ours)
                st[g] += keep(bins.by_pair[g][q], v == ours)
    for g in range(3):
        acc[g][0] += sa[g]
        acc[g][1] += st[g]
        acc[g][2] += bins.total[g]
    _take_out(&r, bins, c1, -1, ours, acc)
    if c2 >= 0:
        _take_out(&r, bins, c2, c1, ours, acc)
    if r.flush_suit:
        s = _suit_of_word(r.flush_suit)
        n_s = 0
        for k in range(13):
            x = 4 * k + s
            if not (_CARD_BIT[x] & (dead | runout)):
                cards_s[n_s] = x
                n_s += 1
        for x in range(n_s):
            a = cards_s[x]
            for y in range(x + 1, n_s):
                b = cards_s[y]
                i = _HBASE[a] + b
                g = bins.group[i]
                if g == 3:
                    continue
                w = _w(bins.weights, i)
                vp = r.rank_pair[_HRP[i]]
                v = evaluate_key(t, rkey + t.holding_keys[i], rmask | t.holding_masks[i])
                acc[g][0] += keep(w, v < ours) - keep(w, vp < ours)
                acc[g][1] += keep(w, v == ours) - keep(w, vp == ours)


cdef int potential_table_c(const EvalTables* t, uint64_t hole, uint64_t board,
                           const double* weights, int cards_to_come, double* out9) noexcept nogil:
    cdef int nb = popcount64(board)
    if nb < 3 or nb > 4 or cards_to_come < 1 or cards_to_come > 5 - nb:
        return -1
    cdef uint64_t dead = hole | board, m, hkey = _cards_key(hole)
    cdef uint64_t bkey = mask_key(t, board)
    cdef _BoardRanks r
    _board_ranks(t, bkey, board, &r)
    cdef uint16_t now = evaluate_key(t, bkey + hkey, dead), v
    # Opponent holdings with weight, grouped by where we stand now (AHEAD, TIED, BEHIND)
    # so each inner loop keeps one set of sums in registers.
    cdef uint16_t idx[1326]
    cdef uint8_t row[1326]
    cdef uint16_t sidx[1326]
    cdef uint64_t smasks[1326]
    cdef double sws[1326]
    cdef int group_start[4]
    cdef int fill[3]
    cdef int i, j, g, n = 0, nd = 0, a, b
    cdef double w
    cdef int deck[52]
    cdef double acc[3][3]        # [now][weight ahead, weight tied, total weight] later
    fill[0] = 0
    fill[1] = 0
    fill[2] = 0
    for i in range(N_HOLDINGS):
        m = t.holding_masks[i]
        if m & dead:
            continue
        w = 1.0 if weights == NULL else weights[i]
        if not w > 0.0:
            continue
        v = _holding_value(t, &r, i, m)
        g = AHEAD if v < now else (TIED if v == now else BEHIND)
        row[n] = <uint8_t>g
        idx[n] = <uint16_t>i
        fill[g] += 1
        n += 1
    group_start[0] = 0
    group_start[1] = fill[0]
    group_start[2] = fill[0] + fill[1]
    group_start[3] = n
    fill[0] = group_start[0]
    fill[1] = group_start[1]
    fill[2] = group_start[2]
    for j in range(n):
        g = row[j]
        i = idx[j]
        sidx[fill[g]] = <uint16_t>i
        smasks[fill[g]] = t.holding_masks[i]
        sws[fill[g]] = 1.0 if weights == NULL else weights[i]
        fill[g] += 1
    for i in range(52):
        if not (_CARD_BIT[i] & dead):
            deck[nd] = i
            nd += 1
    # Every counted holding's weight by group and rank pair, and each card's holdings.
    cdef _Bins bins
    memset(&bins, 0, sizeof(bins))
    bins.weights = weights
    for j in range(N_HOLDINGS):
        bins.group[j] = 3
    for g in range(3):
        for j in range(group_start[g], group_start[g + 1]):
            i = sidx[j]
            bins.group[i] = <uint8_t>g
            bins.by_pair[g][_HRP[i]] += sws[j]
            bins.total[g] += sws[j]
            a = _HCARD[i][0]
            b = _HCARD[i][1]
            bins.by_card[a][bins.n_card[a]] = <uint16_t>i
            bins.n_card[a] += 1
            bins.by_card[b][bins.n_card[b]] = <uint16_t>i
            bins.n_card[b] += 1
    memset(acc, 0, sizeof(acc))
    for a in range(nd):
        if cards_to_come == 1:
            _runout_bins(t, hole, hkey, board, bkey, dead, deck[a], -1, &bins,
                         sidx, smasks, sws, group_start, acc)
        else:
            for b in range(a + 1, nd):
                _runout_bins(t, hole, hkey, board, bkey, dead, deck[a], deck[b], &bins,
                             sidx, smasks, sws, group_start, acc)
    for g in range(3):
        out9[3 * g + AHEAD] = acc[g][0]
        out9[3 * g + TIED] = acc[g][1]
        out9[3 * g + BEHIND] = acc[g][2] - acc[g][0] - acc[g][1]
    return 0


cdef void ppot_npot_c(const double* t9, double* ppot, double* npot) noexcept nogil:
    # Seed 003 §4.2: Ppot = (T[B,A] + T[B,T]/2 + T[T,A]/2) / (T[B,S] + T[T,S]/2),
    #                Npot = (T[A,B] + T[A,T]/2 + T[T,B]/2) / (T[A,S] + T[T,S]/2).
    cdef double sa = t9[0] + t9[1] + t9[2]
    cdef double st = t9[3] + t9[4] + t9[5]
    cdef double sb = t9[6] + t9[7] + t9[8]
    cdef double d = sb + 0.5 * st
    ppot[0] = (t9[3 * BEHIND + AHEAD] + 0.5 * t9[3 * BEHIND + TIED] + 0.5 * t9[3 * TIED + AHEAD]) / d if d > 0.0 else 0.0
    d = sa + 0.5 * st
    npot[0] = (t9[3 * AHEAD + BEHIND] + 0.5 * t9[3 * AHEAD + TIED] + 0.5 * t9[3 * TIED + BEHIND]) / d if d > 0.0 else 0.0


cdef void holding_values_c(const EvalTables* t, uint64_t board, int32_t* out) noexcept nogil:
    cdef _BoardRanks r
    _board_ranks(t, mask_key(t, board), board, &r)
    cdef uint64_t m
    cdef int i
    for i in range(N_HOLDINGS):
        m = t.holding_masks[i]
        out[i] = 0 if m & board else _holding_value(t, &r, i, m)


cdef inline int _radix_sort_values(const uint16_t* vals, uint16_t* idx, uint16_t* tmp, int n) noexcept nogil:
    """Sort idx[0:n] by vals[idx[k]] (values below 2**14), stable: two 7-bit passes."""
    cdef int count[128]
    cdef int j, c, k, g
    memset(count, 0, sizeof(count))
    for j in range(n):
        count[vals[idx[j]] & 127] += 1
    k = 0
    for c in range(128):
        g = count[c]
        count[c] = k
        k += g
    for j in range(n):
        c = vals[idx[j]] & 127
        tmp[count[c]] = idx[j]
        count[c] += 1
    memset(count, 0, sizeof(count))
    for j in range(n):
        count[vals[tmp[j]] >> 7] += 1
    k = 0
    for c in range(128):
        g = count[c]
        count[c] = k
        k += g
    for j in range(n):
        c = vals[tmp[j]] >> 7
        idx[count[c]] = tmp[j]
        count[c] += 1
    return n


cdef inline int _item_members(const EvalTables* t, const _BoardRanks* r, int item,
                              uint16_t* members) noexcept nogil:
    """The holdings an item stands for: a rank pair's holdings that touch no board card
    and cannot make a flush (item < 169), or the one flush-capable holding item - 169."""
    cdef int k, n = 0, h
    cdef uint64_t m
    if item >= 169:
        members[0] = <uint16_t>(item - 169)
        return 1
    for k in range(_RP_N[item]):
        h = _RP_MEMBERS[item][k]
        m = t.holding_masks[h]
        if (m & r.mask) == 0 and <int>popcount64(m & r.flush_suit) < r.need:
            members[n] = <uint16_t>h
            n += 1
    return n


cdef void holding_strengths_c(const EvalTables* t, uint64_t board, const double* weights,
                              double* out) noexcept nogil:
    # Holdings come in "items" of one value each: a rank pair's holdings that cannot make
    # a flush share the pair's value, and each flush-capable holding is its own item. The
    # items are sorted by value (a few hundred at most, instead of 1081 holdings) and
    # walked in order, equal values together.
    #
    # For holding h = {a, b} the opponent holdings o that can face it are those missing a
    # and b; by inclusion-exclusion their weight below h's value is  below_all -
    # below_with[a] - below_with[b]  (no holding below h holds both a and b: only h does),
    # at h's value  eq_all - eq_with[a] - eq_with[b] + w[h],  and in all  total -
    # with[a] - with[b] + w[h].
    cdef _BoardRanks r
    _board_ranks(t, mask_key(t, board), board, &r)
    cdef uint64_t m
    cdef int i, j, k, e, q, a, b, n_items = 0, n_members, n_group
    cdef uint16_t item_val[1326 + 169]
    cdef uint16_t items[1326 + 169]
    cdef uint16_t tmp[1326 + 169]
    cdef uint16_t group[1326]
    cdef double with_card[52]
    cdef double below_with[52]
    cdef double eq_with[52]
    cdef double total = 0.0, below_all = 0.0, eq_all, w, less, eq, tot, tiny, hs, sum_a
    cdef uint16_t v
    memset(with_card, 0, sizeof(with_card))
    memset(below_with, 0, sizeof(below_with))
    memset(eq_with, 0, sizeof(eq_with))
    for i in range(169):
        if _RP_N[i]:
            item_val[i] = r.rank_pair[i]
            items[n_items] = <uint16_t>i
            n_items += 1
    # Holdings run (a, b) by a then b: keep a's sum in a register, b changes every step.
    i = 0
    for a in range(52):
        sum_a = 0.0
        for b in range(a + 1, 52):
            m = t.holding_masks[i]
            if m & board:
                out[i] = 0.0
            else:
                w = _w(weights, i)
                sum_a += w
                with_card[b] += w
                if <int>popcount64(m & r.flush_suit) >= r.need:
                    item_val[169 + i] = evaluate_key(t, r.key + t.holding_keys[i], board | m)
                    items[n_items] = <uint16_t>(169 + i)
                    n_items += 1
            i += 1
        with_card[a] += sum_a
        total += sum_a
    _radix_sort_values(item_val, items, tmp, n_items)
    # Differences of sums this far below the total are rounding, not weight.
    tiny = total * 1e-12
    j = 0
    while j < n_items:
        v = item_val[items[j]]
        e = j
        n_group = 0
        while e < n_items and item_val[items[e]] == v:
            n_group += _item_members(t, &r, items[e], &group[n_group])
            e += 1
        eq_all = 0.0
        for k in range(n_group):
            i = group[k]
            w = _w(weights, i)
            eq_all += w
            eq_with[_HCARD[i][0]] += w
            eq_with[_HCARD[i][1]] += w
        for k in range(n_group):
            i = group[k]
            a = _HCARD[i][0]
            b = _HCARD[i][1]
            w = _w(weights, i)
            tot = total - with_card[a] - with_card[b] + w
            less = below_all - below_with[a] - below_with[b]
            eq = eq_all - eq_with[a] - eq_with[b] + w
            hs = (less + 0.5 * eq) / tot if tot > tiny else 0.0
            out[i] = 0.0 if hs < 0.0 else (1.0 if hs > 1.0 else hs)
        below_all += eq_all
        for k in range(n_group):
            i = group[k]
            a = _HCARD[i][0]
            b = _HCARD[i][1]
            below_with[a] += eq_with[a]
            below_with[b] += eq_with[b]
            eq_with[a] = 0.0
            eq_with[b] = 0.0
        j = e


cdef inline void _fen_add(double* tree, int v, double w) noexcept nogil:
    while v < 8192:
        tree[v] += w
        v += v & -v


cdef inline double _fen_sum(const double* tree, int v) noexcept nogil:
    """Sum of the weights added at values 1..v."""
    cdef double s = 0.0
    while v > 0:
        s += tree[v]
        v -= v & -v
    return s


cdef int holding_ppot1_c(const EvalTables* t, uint64_t board, const double* weights,
                         double* out) noexcept nogil:
    # Seed 003's one-card Ppot of every holding h at once. Its denominator needs only the
    # weight of opponent holdings o now ahead of h and tied with it (each faces the same
    # number of next cards). Its numerator sums, over each next card c and each o
    # missing h's cards and c,
    #     w[o] * ( [o ahead now] * ([o behind after c] + [tied after c] / 2)
    #              + [tied now] * [o behind after c] / 2 ),
    # a two-dimensional dominance count per c: holdings in order of present value (best
    # first) go into a Fenwick tree keyed by their value after c. Card removal by
    # inclusion-exclusion: the same sums over the holdings that hold one of h's cards
    # (at most 46 a card) are taken off directly; o = h itself adds nothing.
    cdef int nb = popcount64(board)
    if nb < 3 or nb > 4:
        return -1
    cdef int32_t v0[1326]
    cdef int32_t v1[1326]
    cdef uint16_t vals[1326]
    cdef uint16_t idx[1326]
    cdef uint16_t tmp[1326]
    cdef double num[1326]
    cdef double plt[1326]
    cdef double tree[8192]
    cdef uint16_t by_card[52][52]
    cdef uint8_t group_end[52][52]
    cdef int n_card[52]
    cdef int32_t lv0[52]
    cdef int32_t lv1[52]
    cdef double lw[52]
    cdef double s_whole, s_half
    cdef int gt, lt1, v0k, v1k
    cdef double ahead_w[52]
    cdef double eq_w[52]
    cdef double w, above, eq_all, den, s, wo, tiny, total = 0.0
    cdef int i, j, e, k, q, n = 0, c, x, a, b, h, o, nx
    cdef uint64_t cbit, m
    cdef int n_next = 52 - nb - 4
    holding_values_c(t, board, v0)
    for i in range(N_HOLDINGS):
        out[i] = 0.0
        num[i] = 0.0
        if v0[i]:
            vals[i] = <uint16_t>v0[i]
            idx[n] = <uint16_t>i
            n += 1
            total += _w(weights, i)
    _radix_sort_values(vals, idx, tmp, n)
    # Best first; each card's list of live holdings in the same order.
    for k in range(n // 2):
        i = idx[k]
        idx[k] = idx[n - 1 - k]
        idx[n - 1 - k] = <uint16_t>i
    memset(n_card, 0, sizeof(n_card))
    for k in range(n):
        i = idx[k]
        a = _HCARD[i][0]
        b = _HCARD[i][1]
        by_card[a][n_card[a]] = <uint16_t>i
        n_card[a] += 1
        by_card[b][n_card[b]] = <uint16_t>i
        n_card[b] += 1
    # For each position in a card's list, where the holdings worth as much end.
    for x in range(52):
        e = n_card[x]
        for k in range(n_card[x] - 1, -1, -1):
            if k + 1 < n_card[x] and v0[by_card[x][k]] != v0[by_card[x][k + 1]]:
                e = k + 1
            group_end[x][k] = <uint8_t>e
    tiny = total * 1e-12
    for c in range(52):
        cbit = _CARD_BIT[c]
        if cbit & board:
            continue
        holding_values_c(t, board | cbit, v1)
        memset(tree, 0, sizeof(tree))
        j = 0
        while j < n:
            e = j
            while e < n and v0[idx[e]] == v0[idx[j]]:
                e += 1
            # o strictly ahead now are in the tree: ahead after c, or tied after c.
            for k in range(j, e):
                h = idx[k]
                if t.holding_masks[h] & cbit:
                    continue
                plt[k] = _fen_sum(tree, v1[h] - 1)
                num[h] += plt[k] + 0.5 * (_fen_sum(tree, v1[h]) - plt[k])
            for k in range(j, e):
                h = idx[k]
                if not (t.holding_masks[h] & cbit):
                    _fen_add(tree, v1[h], _w(weights, h))
            # o tied now (this group): ahead after c, half.
            for k in range(j, e):
                h = idx[k]
                if t.holding_masks[h] & cbit:
                    continue
                num[h] += 0.5 * (_fen_sum(tree, v1[h] - 1) - plt[k])
            j = e
        for x in range(52):
            if (_CARD_BIT[x] & board) or x == c:
                continue
            # This card's holdings, best first, gathered: values now and after c, and
            # weights (0 for the one holding c).
            nx = n_card[x]
            for q in range(nx):
                o = by_card[x][q]
                lv0[q] = v0[o]
                lv1[q] = v1[o]
                lw[q] = keep(_w(weights, o), (t.holding_masks[o] & cbit) == 0)
            for k in range(nx):
                if lw[k] == 0.0 and (t.holding_masks[by_card[x][k]] & cbit):
                    continue
                # o ahead now: behind after c counts whole, tied half; o tied now
                # (positions up to the end of k's group): behind after c counts half.
                s_whole = 0.0
                s_half = 0.0
                v0k = lv0[k]
                v1k = lv1[k]
                for q in range(group_end[x][k]):
                    gt = lv0[q] > v0k
                    lt1 = lv1[q] < v1k
                    s_whole += keep(lw[q], gt & lt1)
                    s_half += keep(lw[q], (gt & (lv1[q] == v1k)) | ((gt ^ 1) & lt1))
                num[by_card[x][k]] -= s_whole + 0.5 * s_half
    # Denominators: weight of the holdings h faces that are ahead now, and tied.
    memset(ahead_w, 0, sizeof(ahead_w))
    memset(eq_w, 0, sizeof(eq_w))
    above = 0.0
    cdef double with_card[52]
    memset(with_card, 0, sizeof(with_card))
    for k in range(n):
        i = idx[k]
        w = _w(weights, i)
        with_card[_HCARD[i][0]] += w
        with_card[_HCARD[i][1]] += w
    j = 0
    while j < n:
        e = j
        eq_all = 0.0
        while e < n and v0[idx[e]] == v0[idx[j]]:
            i = idx[e]
            w = _w(weights, i)
            eq_all += w
            eq_w[_HCARD[i][0]] += w
            eq_w[_HCARD[i][1]] += w
            e += 1
        for k in range(j, e):
            h = idx[k]
            a = _HCARD[h][0]
            b = _HCARD[h][1]
            w = _w(weights, h)
            if total - with_card[a] - with_card[b] + w <= tiny:
                continue
            den = n_next * ((above - ahead_w[a] - ahead_w[b])
                            + 0.5 * (eq_all - eq_w[a] - eq_w[b] + w))
            if den > tiny:
                s = num[h] / den
                out[h] = 0.0 if s < 0.0 else (1.0 if s > 1.0 else s)
        above += eq_all
        for k in range(j, e):
            h = idx[k]
            a = _HCARD[h][0]
            b = _HCARD[h][1]
            ahead_w[a] += eq_w[a]
            ahead_w[b] += eq_w[b]
            eq_w[a] = 0.0
            eq_w[b] = 0.0
        j = e
    return 0


# ---------------------------------------------------------------------------------------
# Monte Carlo.

cdef inline int _draw(int* deck, int j, int n, uint64_t avoid, Rng* rng) noexcept nogil:
    """Partial Fisher-Yates step j: move a uniform card of deck[j:n] that is not in
    `avoid` to position j and return it (caller guarantees one exists)."""
    cdef int r, c
    while True:
        r = j + <int>rng_below(rng, <uint32_t>(n - j))
        c = deck[r]
        if not (_CARD_BIT[c] & avoid):
            deck[r] = deck[j]
            deck[j] = c
            return c


cdef int rollout_c(const EvalTables* t, uint64_t hole, uint64_t board, int opponents,
                   long trials, Rng* rng, const AliasTable** tables,
                   double* sum, double* sumsq) noexcept nogil:
    cdef uint64_t dead = hole | board, used, m, bm, bk
    cdef uint64_t hkey = _cards_key(hole), bkey0 = mask_key(t, board)
    cdef int deck[52]
    cdef int opp[32]
    cdef int nd = 0, nb = 5 - <int>popcount64(board), i, j, o, c, c1, c2, attempts, ties
    cdef long trial
    cdef uint16_t ours, v
    cdef double share, s = 0.0, s2 = 0.0
    cdef bint lost
    sum[0] = 0.0
    sumsq[0] = 0.0
    if opponents < 1 or opponents > 22 or nb < 0:
        return -1
    for i in range(52):
        if not (_CARD_BIT[i] & dead):
            deck[nd] = i
            nd += 1
    if nb + 2 * opponents > nd:
        return -1
    if tables != NULL:
        for o in range(opponents):
            if tables[o].n == 0:
                return -1
    for trial in range(trials):
        used = 0
        if tables != NULL:
            # Joint rejection: the opponents' holdings are drawn from their tables until
            # no two share a card, which is the product of the tables restricted to
            # consistent deals.
            attempts = 0
            while True:
                used = 0
                for o in range(opponents):
                    opp[o] = alias_draw(tables[o], rng)
                    m = t.holding_masks[opp[o]]
                    if m & used:
                        break
                    used |= m
                else:
                    break
                attempts += 1
                if attempts >= 10000:
                    return -1
        bk = bkey0
        bm = board
        for j in range(nb):
            c = _draw(deck, j, nd, used, rng)
            bk += t.card_keys[c]
            bm |= _CARD_BIT[c]
        ours = evaluate_key(t, bk + hkey, bm | hole)
        lost = False
        ties = 0
        for o in range(opponents):
            if tables != NULL:
                v = evaluate_key(t, bk + t.holding_keys[opp[o]], bm | t.holding_masks[opp[o]])
            else:
                c1 = _draw(deck, nb + 2 * o, nd, 0, rng)
                c2 = _draw(deck, nb + 2 * o + 1, nd, 0, rng)
                v = evaluate_key(t, bk + t.card_keys[c1] + t.card_keys[c2],
                                 bm | _CARD_BIT[c1] | _CARD_BIT[c2])
            if v > ours:
                lost = True
                break
            elif v == ours:
                ties += 1
        share = 0.0 if lost else 1.0 / (1 + ties)
        s += share
        s2 += share * share
    sum[0] = s
    sumsq[0] = s2
    return 0


cdef int income_rollout_c(const EvalTables* t, uint64_t hole, int opponents, long trials,
                          Rng* rng, const uint8_t* plays, int blinds,
                          double* sum, double* sumsq) noexcept nogil:
    cdef int deck[52]
    cdef int nd = 0, i, j, o, c, c1, c2, ties, seat, players = opponents + 1, opp_seat
    cdef long trial
    cdef uint64_t bk, bm, hkey = _cards_key(hole)
    cdef uint16_t ours, v
    cdef bint lost
    cdef double net, pot, s = 0.0, s2 = 0.0
    sum[0] = 0.0
    sumsq[0] = 0.0
    if opponents < 1 or opponents > 22 or popcount64(hole) != 2:
        return -1
    for i in range(52):
        if not (_CARD_BIT[i] & hole):
            deck[nd] = i
            nd += 1
    for trial in range(trials):
        # Our seat cycles through the table (seat 0 small blind, 1 big blind), so every
        # seat gets the same share of the trials.
        seat = <int>(trial % players)
        bk = KEY_INIT
        bm = 0
        for j in range(5):
            c = _draw(deck, j, nd, 0, rng)
            bk += t.card_keys[c]
            bm |= _CARD_BIT[c]
        ours = evaluate_key(t, bk + hkey, bm | hole)
        pot = 1.0
        ties = 0
        lost = False
        for o in range(opponents):
            c1 = _draw(deck, 5 + 2 * o, nd, 0, rng)
            c2 = _draw(deck, 6 + 2 * o, nd, 0, rng)
            if plays != NULL and not plays[_TYPE_OF_CARDS[c1][c2]]:
                if blinds:
                    opp_seat = o if o < seat else o + 1
                    if opp_seat == 1:
                        pass                    # the big blind is in already: it plays
                    else:
                        if opp_seat == 0:
                            pot += 0.5          # the small blind's money stays in
                        continue
                else:
                    continue
            pot += 1.0
            if lost:
                continue
            v = evaluate_key(t, bk + t.card_keys[c1] + t.card_keys[c2],
                             bm | _CARD_BIT[c1] | _CARD_BIT[c2])
            if v > ours:
                lost = True
            elif v == ours:
                ties += 1
        # Everyone who plays has one small bet in; the best hands split the pot.
        net = (0.0 if lost else pot / (1 + ties)) - 1.0
        s += net
        s2 += net * net
    sum[0] = s
    sumsq[0] = s2
    return 0


# ---------------------------------------------------------------------------------------
# Python API: argument checks, then the kernels without the GIL.

HAND_TYPE_NAMES: tuple = tuple(
    ("23456789TJQKA"[x] * 2) if x == y
    else ("23456789TJQKA"[x] + "23456789TJQKA"[y] + "s" if x > y
          else "23456789TJQKA"[y] + "23456789TJQKA"[x] + "o")
    for x in range(13) for y in range(13)
)


def hand_type_of_holding(int index) -> int:
    """Starting-hand type 0..168 (HAND_TYPE_NAMES) of holding `index` (HOLDINGS order)."""
    if not 0 <= index < N_HOLDINGS:
        raise ValueError(f"holding index must be 0..1325, got {index}")
    return _HTYPE[index]


def holding_type_table() -> np.ndarray:
    """Starting-hand type of every holding, uint8[1326] in HOLDINGS order."""
    out = np.empty(N_HOLDINGS, dtype=np.uint8)
    cdef uint8_t[::1] o = out
    cdef int i
    for i in range(N_HOLDINGS):
        o[i] = _HTYPE[i]
    return out


cdef uint64_t _as_mask(object x, int lo, int hi, str what) except? 0xffffffffffffffff:
    if isinstance(x, int):
        if x < 0 or x >> 64 or x & ~VALID_MASK_BITS:
            raise CardError(f"{what}: mask {x:#x} has bits that are not cards")
        m = <uint64_t>x
    else:
        m = <uint64_t>cards_to_mask(x)
    cdef int n = popcount64(m)
    if not lo <= n <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise CardError(f"{what}: need {want} cards, got {n}")
    return m


cdef tuple _hole_board(object hole, object board, int board_lo, int board_hi):
    cdef uint64_t h = _as_mask(hole, 2, 2, "hole")
    cdef uint64_t b = _as_mask(board, board_lo, board_hi, "board")
    if h & b:
        raise CardError("hole and board share a card")
    return h, b


cdef bint _weights_ok(const double[::1] w) noexcept nogil:
    cdef int i
    for i in range(N_HOLDINGS):
        if not (w[i] >= 0.0 and w[i] <= 1.7976931348623157e308):
            return False
    return True


cdef object _weights(object weights):
    """None, or a checked C-contiguous float64[1326] view of a weight table."""
    if weights is None:
        return None
    arr = np.ascontiguousarray(weights, dtype=np.float64)
    if arr.shape != (N_HOLDINGS,):
        raise ValueError(f"a weight table has 1326 entries (HOLDINGS order), got shape {arr.shape}")
    if not _weights_ok(arr):
        raise ValueError("weights must be finite and >= 0")
    return arr


cdef inline const double* _ptr(object arr):
    cdef const double[::1] v
    if arr is None:
        return NULL
    v = arr
    return &v[0]


def hand_strength(hole, board, weights=None) -> float:
    """Share of the opponent's possible holdings (weighted; None = uniform) that our hole
    cards beat on this 3-5 card board, ties half (seed 003 §4.2). Holdings that touch our
    cards or the board are left out."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 5)
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double hs
    with nogil:
        hs = hand_strength_c(_T, h, b, p)
    if hs < 0.0:
        raise ValueError("no opponent holding has weight")
    return hs


def hand_strength_counts(hole, board, weights=None) -> tuple:
    """(weight we beat, weight we tie, weight that beats us) behind hand_strength."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 5)
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double c[3]
    with nogil:
        hs_counts_c(_T, h, b, p, c)
    return (c[0], c[1], c[2])


def hand_strength_n(hole, board, weights=None, int opponents=1) -> float:
    """HS_n = HS ** opponents: the chance of beating `opponents` players who each hold a
    hand drawn from the same table (seed 003 §4.2)."""
    if opponents < 1:
        raise ValueError(f"opponents must be >= 1, got {opponents}")
    return hand_strength(hole, board, weights) ** opponents


def hand_strength_multi(hole, board, weight_tables) -> float:
    """Product of our hand strength against each opponent's own weight table (None in the
    list = uniform): HS_n with a table per opponent (seed 003 §4.3, seed 004)."""
    tables = list(weight_tables)
    if not tables:
        raise ValueError("need at least one opponent's weight table")
    cdef double hs = 1.0
    for w in tables:
        hs *= hand_strength(hole, board, w)
    return hs


def potential_table(hole, board, weights=None, int cards_to_come=2) -> np.ndarray:
    """Seed 003's Table 2: a 3 x 3 float64 array, rows where we stand now and columns
    where we stand after `cards_to_come` cards (AHEAD, TIED, BEHIND), each entry the
    weight of (opponent holding, run-out) pairs (uniform weights: plain counts)."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 4)
    cdef int nb = popcount64(b)
    if not 1 <= cards_to_come <= 5 - nb:
        raise ValueError(f"cards_to_come must be 1..{5 - nb} with {nb} board cards, got {cards_to_come}")
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    out = np.zeros((3, 3), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        potential_table_c(_T, h, b, p, cards_to_come, &o[0, 0])
    return out


def hand_potential(hole, board, weights=None, int cards_to_come=2) -> tuple:
    """(Ppot, Npot) by exact enumeration of every opponent holding and every run-out of
    `cards_to_come` cards (flop: 1 or 2, turn: 1), weighted, with seed 003's formulas."""
    t = potential_table(hole, board, weights, cards_to_come)
    cdef double[:, ::1] o = t
    cdef double pp, np_
    ppot_npot_c(&o[0, 0], &pp, &np_)
    return (pp, np_)


def ppot_npot(table) -> tuple:
    """(Ppot, Npot) of a 3 x 3 Table 2 (seed 003 §4.2)."""
    cdef double[:, ::1] o = np.ascontiguousarray(table, dtype=np.float64).reshape(3, 3)
    cdef double pp, np_
    ppot_npot_c(&o[0, 0], &pp, &np_)
    return (pp, np_)


def holding_values(board, out=None) -> np.ndarray:
    """Hand value (1..7462) of each of the 1326 holdings with this 3-5 card board, int32
    in HOLDINGS order; 0 for holdings that share a card with the board."""
    cdef uint64_t b = _as_mask(board, 3, 5, "board")
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.int32)
    cdef int32_t[::1] o = out
    if o.shape[0] != N_HOLDINGS:
        raise ValueError("out needs 1326 entries")
    with nogil:
        holding_values_c(_T, b, &o[0])
    return out


def holding_strengths(board, weights=None, out=None) -> np.ndarray:
    """Hand strength of each of the 1326 holdings on this 3-5 card board against an
    opponent holding drawn from `weights` (None = uniform), exact card removal between
    the two holdings; float64 in HOLDINGS order, 0.0 for holdings that share a card with
    the board or that leave the opponent no weight."""
    cdef uint64_t b = _as_mask(board, 3, 5, "board")
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.float64)
    cdef double[::1] o = out
    if o.shape[0] != N_HOLDINGS:
        raise ValueError("out needs 1326 entries")
    with nogil:
        holding_strengths_c(_T, b, p, &o[0])
    return out


def holding_ppot(board, weights=None, out=None) -> np.ndarray:
    """One-card Ppot (seed 003 §4.2) of each of the 1326 holdings on a flop or turn
    against an opponent holding drawn from `weights` (None = uniform), exact, all in one
    pass; float64 in HOLDINGS order, 0.0 for holdings that share a card with the board
    (and where Ppot's denominator is 0: nothing is ahead of or tied with the holding)."""
    cdef uint64_t b = _as_mask(board, 3, 4, "board")
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.float64)
    cdef double[::1] o = out
    if o.shape[0] != N_HOLDINGS:
        raise ValueError("out needs 1326 entries")
    with nogil:
        holding_ppot1_c(_T, b, p, &o[0])
    return out


cdef uint64_t _seed64(object seed) except? 0:
    return <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)


def rollout(hole, board=0, int opponents=1, long trials=10000, seed=0, weights=None) -> tuple:
    """Monte Carlo roll-out (seed 001): (mean, standard error) of our share of the pot
    against `opponents` hands with the board (0-5 cards) dealt out at random, ties split.
    weights: None (opponents dealt uniformly), one 1326 table for every opponent, or an
    (opponents, 1326) array, one table each (selective sampling). Same seed, same result."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 0, 5)
    if not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be 1..22, got {opponents}")
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    cdef Rng rng
    rng_seed(&rng, _seed64(seed))
    cdef double s = 0.0, s2 = 0.0
    cdef int rc, k
    cdef AliasTable* store = NULL
    cdef const AliasTable* ptrs[22]
    if weights is None:
        with nogil:
            rc = rollout_c(_T, h, b, opponents, trials, &rng, NULL, &s, &s2)
    else:
        arr = np.asarray(weights, dtype=np.float64)
        if arr.ndim == 1:
            arr = np.broadcast_to(arr, (opponents, N_HOLDINGS))
        if arr.shape != (opponents, N_HOLDINGS):
            raise ValueError(f"weights must be a 1326 table or ({opponents}, 1326), got shape {arr.shape}")
        tables = [_weights(arr[k]) for k in range(opponents)]
        store = <AliasTable*>malloc(sizeof(AliasTable) * opponents)
        if store == NULL:
            raise MemoryError()
        try:
            for k in range(opponents):
                if alias_build(&store[k], _ptr(tables[k]), h | b) == 0:
                    raise ValueError(f"opponent {k}'s weight table has no holding left")
                ptrs[k] = &store[k]
            with nogil:
                rc = rollout_c(_T, h, b, opponents, trials, &rng, ptrs, &s, &s2)
        finally:
            free(store)
    if rc < 0:
        raise ValueError("no consistent deal: not enough cards, or the weight tables "
                         "keep giving opponents the same cards")
    return _mean_stderr(s, s2, trials)


cdef tuple _mean_stderr(double s, double s2, long n):
    cdef double mean = s / n
    cdef double var = (s2 - s * mean) / (n - 1) if n > 1 else 0.0
    return (mean, sqrt(var / n) if var > 0.0 else 0.0)


def win_probability(hole, board=0, int opponents=1, long trials=10000, seed=0) -> float:
    """Mick West's Monte Carlo hand strength (seed 001): our average share of the pot
    against `opponents` random hands with the board completed at random, ties split."""
    return rollout(hole, board, opponents, trials, seed)[0]


def ehs(hole, board, weights=None, int opponents=1, int cards_to_come=1) -> float:
    """Effective hand strength EHS = HS_n + (1 - HS_n) * Ppot (seed 003 §4.4).

    weights: one table (or None) for all `opponents`, HS_n = HS ** opponents; or a list of
    tables, one per opponent, HS_n = product of HS against each, Ppot against their
    average (each table normalised over the holdings still possible). cards_to_come
    defaults to 1: seed 003 notes Poki uses one-card Ppot even on the flop. On the river
    Ppot is 0 and EHS = HS_n."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 5)
    nb = popcount64(b)
    if isinstance(weights, (list, tuple)):
        hs_n = hand_strength_multi(h, b, weights)
        mix = np.zeros(N_HOLDINGS)
        live = np.array([(m & (h | b)) == 0 for m in _holding_masks()], dtype=bool)
        for w in weights:
            arr = np.ones(N_HOLDINGS) if w is None else _weights(w)
            tot = float(arr[live].sum())
            if tot > 0:
                mix += np.where(live, arr, 0.0) / tot
        pot_w = mix
    else:
        hs_n = hand_strength_n(h, b, weights, opponents)
        pot_w = weights
    if nb == 5 or cards_to_come == 0:
        return hs_n
    ppot = hand_potential(h, b, pot_w, min(cards_to_come, 5 - nb))[0]
    return hs_n + (1.0 - hs_n) * ppot


cdef object _HOLDING_MASKS = None


def _holding_masks() -> tuple:
    global _HOLDING_MASKS
    if _HOLDING_MASKS is None:
        _HOLDING_MASKS = tuple(int(_T.holding_masks[i]) for i in range(N_HOLDINGS))
    return _HOLDING_MASKS


def income_rollout(hole, int opponents, long trials, seed=0, plays=None, bint blinds=False) -> tuple:
    """Pre-flop income roll-out of one holding: (mean, standard error) of our net in small
    bets when every player who plays has one small bet in and the board is dealt out
    (seed 003 §4.1, seed 004). plays: None (all opponents play) or 169 flags by
    starting-hand type; an opponent dealt a type whose flag is 0 folds. blinds=False: a
    folder puts nothing in. blinds=True (iterated roll-outs): our seat cycles round the
    table, seat 0 posting the small blind (half a small bet) and seat 1 the big blind
    (one small bet); the big blind always plays and a small blind that folds leaves its
    half bet in the pot."""
    cdef uint64_t h = _as_mask(hole, 2, 2, "hole")
    if not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be 1..22, got {opponents}")
    if trials < 2:
        raise ValueError(f"trials must be >= 2, got {trials}")
    cdef const uint8_t[::1] pv
    cdef const uint8_t* pp = NULL
    if plays is not None:
        parr = np.ascontiguousarray(plays, dtype=np.uint8)
        if parr.shape != (N_HAND_TYPES,):
            raise ValueError(f"plays needs 169 flags, got shape {parr.shape}")
        pv = parr
        pp = &pv[0]
    cdef Rng rng
    rng_seed(&rng, _seed64(seed))
    cdef double s, s2
    with nogil:
        income_rollout_c(_T, h, opponents, trials, &rng, pp, blinds, &s, &s2)
    return _mean_stderr(s, s2, trials)


# ---- repeat loops for the benchmarks: the kernels called back to back in C ------------

def _repeat_hand_strength(uint64_t hole, uint64_t board, weights, long reps) -> float:
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double x = 0.0
    cdef long r
    with nogil:
        for r in range(reps):
            x += hand_strength_c(_T, hole, board, p)
    return x


def _repeat_potential(uint64_t hole, uint64_t board, weights, int cards_to_come, long reps) -> float:
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double t9[9]
    cdef double x = 0.0
    cdef long r
    with nogil:
        for r in range(reps):
            potential_table_c(_T, hole, board, p, cards_to_come, t9)
            x += t9[0]
    return x


def _repeat_holding_values(uint64_t board, long reps) -> int:
    cdef int32_t out[1326]
    cdef long r, x = 0
    with nogil:
        for r in range(reps):
            holding_values_c(_T, board, out)
            x += out[r % 1326]
    return x


def _repeat_holding_strengths(uint64_t board, weights, long reps) -> float:
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double out[1326]
    cdef double x = 0.0
    cdef long r
    with nogil:
        for r in range(reps):
            holding_strengths_c(_T, board, p, out)
            x += out[r % 1326]
    return x
