# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""Every holding on one board at once: values (the ranking the simulator and the
re-weighting read strengths from), hand strengths against a weight table, and one-card
Ppot ([testbed-1998] §4.2) of all 1,326 holdings in one pass. C-level API in _ranking.pxd.
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


cdef void holding_values_c(const EvalTables* t, uint64_t board, int32_t* out) noexcept nogil:
    cdef BoardRanks r
    board_ranks(t, mask_key(t, board), board, &r)
    cdef uint64_t m
    cdef int i
    for i in range(N_HOLDINGS):
        m = t.holding_masks[i]
        out[i] = 0 if m & board else holding_value(t, &r, i, m)


cdef inline int _item_members(const EvalTables* t, const BoardRanks* r, int item,
                              uint16_t* members) noexcept nogil:
    """The holdings an item stands for: a rank pair's holdings that touch no board card
    and cannot make a flush (item < 169), or the one flush-capable holding item - 169."""
    cdef int k, n = 0, h
    cdef uint64_t m
    if item >= 169:
        members[0] = <uint16_t>(item - 169)
        return 1
    for k in range(t.rank_pair_size[item]):
        h = t.rank_pair_members[item][k]
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
    cdef BoardRanks r
    board_ranks(t, mask_key(t, board), board, &r)
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
        if t.rank_pair_size[i]:
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
                w = weight_of(weights, i)
                sum_a += w
                with_card[b] += w
                if <int>popcount64(m & r.flush_suit) >= r.need:
                    item_val[169 + i] = evaluate_key(t, r.key + t.holding_keys[i], board | m)
                    items[n_items] = <uint16_t>(169 + i)
                    n_items += 1
            i += 1
        with_card[a] += sum_a
        total += sum_a
    radix_sort_values(item_val, items, tmp, n_items)
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
            w = weight_of(weights, i)
            eq_all += w
            eq_with[t.holding_cards[i][0]] += w
            eq_with[t.holding_cards[i][1]] += w
        for k in range(n_group):
            i = group[k]
            a = t.holding_cards[i][0]
            b = t.holding_cards[i][1]
            w = weight_of(weights, i)
            tot = total - with_card[a] - with_card[b] + w
            less = below_all - below_with[a] - below_with[b]
            eq = eq_all - eq_with[a] - eq_with[b] + w
            hs = (less + 0.5 * eq) / tot if tot > tiny else 0.0
            out[i] = 0.0 if hs < 0.0 else (1.0 if hs > 1.0 else hs)
        below_all += eq_all
        for k in range(n_group):
            i = group[k]
            a = t.holding_cards[i][0]
            b = t.holding_cards[i][1]
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
    # Billings et al.'s [testbed-1998] one-card Ppot of every holding h at once. Its denominator needs only the
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
            total += weight_of(weights, i)
    radix_sort_values(vals, idx, tmp, n)
    # Best first; each card's list of live holdings in the same order.
    for k in range(n // 2):
        i = idx[k]
        idx[k] = idx[n - 1 - k]
        idx[n - 1 - k] = <uint16_t>i
    memset(n_card, 0, sizeof(n_card))
    for k in range(n):
        i = idx[k]
        a = t.holding_cards[i][0]
        b = t.holding_cards[i][1]
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
        cbit = t.card_bits[c]
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
                    _fen_add(tree, v1[h], weight_of(weights, h))
            # o tied now (this group): ahead after c, half.
            for k in range(j, e):
                h = idx[k]
                if t.holding_masks[h] & cbit:
                    continue
                num[h] += 0.5 * (_fen_sum(tree, v1[h] - 1) - plt[k])
            j = e
        for x in range(52):
            if (t.card_bits[x] & board) or x == c:
                continue
            # This card's holdings, best first, gathered: values now and after c, and
            # weights (0 for the one holding c).
            nx = n_card[x]
            for q in range(nx):
                o = by_card[x][q]
                lv0[q] = v0[o]
                lv1[q] = v1[o]
                lw[q] = keep(weight_of(weights, o), (t.holding_masks[o] & cbit) == 0)
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
        w = weight_of(weights, i)
        with_card[t.holding_cards[i][0]] += w
        with_card[t.holding_cards[i][1]] += w
    j = 0
    while j < n:
        e = j
        eq_all = 0.0
        while e < n and v0[idx[e]] == v0[idx[j]]:
            i = idx[e]
            w = weight_of(weights, i)
            eq_all += w
            eq_w[t.holding_cards[i][0]] += w
            eq_w[t.holding_cards[i][1]] += w
            e += 1
        for k in range(j, e):
            h = idx[k]
            a = t.holding_cards[h][0]
            b = t.holding_cards[h][1]
            w = weight_of(weights, h)
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
            a = t.holding_cards[h][0]
            b = t.holding_cards[h][1]
            ahead_w[a] += eq_w[a]
            ahead_w[b] += eq_w[b]
            eq_w[a] = 0.0
            eq_w[b] = 0.0
        j = e
    return 0
