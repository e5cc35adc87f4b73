# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""Monte Carlo kernels ([west-2005], Mick West: deal the unknown cards at random and count
our share of the pot) and the pre-flop income roll-out ([testbed-1998] §4.1, [poki-2002]), with
Vose alias tables to draw opponent holdings from weight tables. C-level API in
_rollout.pxd (the random number generator is inline there).
"""
from libc.stdint cimport uint8_t, uint16_t, uint64_t

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


cdef const uint8_t* holding_types() noexcept nogil:
    return &_T.holding_type[0]


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


cdef inline int _draw(int* deck, int j, int n, uint64_t avoid, Rng* rng) noexcept nogil:
    """Partial Fisher-Yates step j: move a uniform card of deck[j:n] that is not in
    `avoid` to position j and return it (caller guarantees one exists)."""
    cdef int r, c
    while True:
        r = j + <int>rng_below(rng, <uint32_t>(n - j))
        c = deck[r]
        if not (_T.card_bits[c] & avoid):
            deck[r] = deck[j]
            deck[j] = c
            return c


cdef int rollout_c(const EvalTables* t, uint64_t hole, uint64_t board, int opponents,
                   long trials, Rng* rng, const AliasTable** tables,
                   double* sum, double* sumsq) noexcept nogil:
    cdef uint64_t dead = hole | board, used, m, bm, bk
    cdef uint64_t hkey = cards_key(t, hole), bkey0 = mask_key(t, board)
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
        if not (t.card_bits[i] & dead):
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
            bm |= t.card_bits[c]
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
                                 bm | t.card_bits[c1] | t.card_bits[c2])
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
    cdef uint64_t bk, bm, hkey = cards_key(t, hole)
    cdef uint16_t ours, v
    cdef bint lost
    cdef double net, pot, s = 0.0, s2 = 0.0
    sum[0] = 0.0
    sumsq[0] = 0.0
    if opponents < 1 or opponents > 22 or popcount64(hole) != 2:
        return -1
    for i in range(52):
        if not (t.card_bits[i] & hole):
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
            bm |= t.card_bits[c]
        ours = evaluate_key(t, bk + hkey, bm | hole)
        pot = 1.0
        ties = 0
        lost = False
        for o in range(opponents):
            c1 = _draw(deck, 5 + 2 * o, nd, 0, rng)
            c2 = _draw(deck, 6 + 2 * o, nd, 0, rng)
            if plays != NULL and not plays[t.type_of_cards[c1][c2]]:
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
                             bm | t.card_bits[c1] | t.card_bits[c2])
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
