# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""Hand potential ([testbed-1998] §4.2, Table 2): for every opponent holding and every run-out
of one or two cards, whether we are ahead, tied or behind now and after, weighted by a
1326-entry table; Ppot and Npot from the table. C-level API in _potential.pxd.

Per run-out the opponent holdings are not valued one by one: their weights, binned by
where we stand now and by rank pair, are compared with our new value 91 times a group;
the holdings that hold a run-out card are then taken out and those that make a flush
moved to their own value. Boards with four or five cards of a suit (where most holdings
may make a flush) are tallied holding by holding.
"""
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint64_t
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


cdef inline void _tally(const uint16_t* idx, const uint64_t* masks, const double* ws,
                        int start, int end, const BoardRanks* r, uint64_t runout,
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
            v = holding_value(_T, r, idx[j + k], m)
            w = keep(ws[j + k], (m & runout) == 0)
            a[k] += keep(w, v < ours)
            ti[k] += keep(w, v == ours)
            s[k] += w
        j += 4
    while j < end:
        m = masks[j]
        v = holding_value(_T, r, idx[j], m)
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
    cdef BoardRanks r
    cdef uint64_t rkey = bkey + runout_key, rmask = board | runout
    cdef int g
    board_ranks(t, rkey, rmask, &r)
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


cdef inline void _take_out(const BoardRanks* r, const _Bins* bins, int card, int other,
                           uint16_t ours, double (*acc)[3]) noexcept nogil:
    """Remove the counted holdings holding `card` (but not `other`, already removed)
    from the tallies, each at its rank pair's value as the bins counted it."""
    cdef int k, i, g
    cdef uint16_t v
    cdef double w
    for k in range(bins.n_card[card]):
        i = bins.by_card[card][k]
        if other >= 0 and (_T.holding_cards[i][0] == other or _T.holding_cards[i][1] == other):
            continue
        g = bins.group[i]
        w = weight_of(bins.weights, i)
        v = r.rank_pair[_T.holding_rank_pair[i]]
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
    cdef uint64_t runout = t.card_bits[c1], rkey = bkey + t.card_keys[c1]
    if c2 >= 0:
        runout |= t.card_bits[c2]
        rkey += t.card_keys[c2]
    cdef uint64_t rmask = board | runout
    cdef BoardRanks r
    board_ranks(t, rkey, rmask, &r)
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
        s = suit_of_word(r.flush_suit)
        n_s = 0
        for k in range(13):
            x = 4 * k + s
            if not (t.card_bits[x] & (dead | runout)):
                cards_s[n_s] = x
                n_s += 1
        for x in range(n_s):
            a = cards_s[x]
            for y in range(x + 1, n_s):
                b = cards_s[y]
                i = t.holding_base[a] + b
                g = bins.group[i]
                if g == 3:
                    continue
                w = weight_of(bins.weights, i)
                vp = r.rank_pair[t.holding_rank_pair[i]]
                v = evaluate_key(t, rkey + t.holding_keys[i], rmask | t.holding_masks[i])
                acc[g][0] += keep(w, v < ours) - keep(w, vp < ours)
                acc[g][1] += keep(w, v == ours) - keep(w, vp == ours)


cdef int potential_table_c(const EvalTables* t, uint64_t hole, uint64_t board,
                           const double* weights, int cards_to_come, double* out9) noexcept nogil:
    cdef int nb = popcount64(board)
    if nb < 3 or nb > 4 or cards_to_come < 1 or cards_to_come > 5 - nb:
        return -1
    cdef uint64_t dead = hole | board, m, hkey = cards_key(t, hole)
    cdef uint64_t bkey = mask_key(t, board)
    cdef BoardRanks r
    board_ranks(t, bkey, board, &r)
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
        v = holding_value(t, &r, i, m)
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
        if not (t.card_bits[i] & dead):
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
            bins.by_pair[g][t.holding_rank_pair[i]] += sws[j]
            bins.total[g] += sws[j]
            a = t.holding_cards[i][0]
            b = t.holding_cards[i][1]
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
    # [testbed-1998] §4.2: Ppot = (T[B,A] + T[B,T]/2 + T[T,A]/2) / (T[B,S] + T[T,S]/2),
    #                Npot = (T[A,B] + T[A,T]/2 + T[T,B]/2) / (T[A,S] + T[T,S]/2).
    cdef double sa = t9[0] + t9[1] + t9[2]
    cdef double st = t9[3] + t9[4] + t9[5]
    cdef double sb = t9[6] + t9[7] + t9[8]
    cdef double d = sb + 0.5 * st
    ppot[0] = (t9[3 * BEHIND + AHEAD] + 0.5 * t9[3 * BEHIND + TIED] + 0.5 * t9[3 * TIED + AHEAD]) / d if d > 0.0 else 0.0
    d = sa + 0.5 * st
    npot[0] = (t9[3 * AHEAD + BEHIND] + 0.5 * t9[3 * AHEAD + TIED] + 0.5 * t9[3 * TIED + BEHIND]) / d if d > 0.0 else 0.0
