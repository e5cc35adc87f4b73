# What the assessment kernels share (_strength, _potential, _ranking, _rollout): the
# board's values with every rank pair, a holding's value on a board, and small helpers.
# Only inline functions and types: there is no _board module.
#
#     from evaluator_pyx._board cimport BoardRanks, board_ranks, holding_value, keep, ...
#
# Conventions (_core.pxd): hands are 64-bit masks, incremental keys add, weight tables
# are 1326 doubles in HOLDINGS order with NULL meaning uniform.
from libc.stdint cimport uint16_t, uint32_t, uint64_t
from libc.string cimport memset

from evaluator_pyx._core cimport KEY_INIT, EvalTables, ctz64, evaluate_key, mask_key, popcount64, rank_value

cdef enum:
    # Table 2 of [testbed-1998]: rows and columns in this order.
    AHEAD = 0
    TIED = 1
    BEHIND = 2

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


ctypedef struct BoardRanks:
    uint64_t key                    # the board's hand key and mask
    uint64_t mask
    uint64_t flush_suit             # the suit word of a suit with 3+ board cards, else 0
    int need                        # that suit's cards a holding needs for a flush
    uint16_t rank_pair[169]         # non-flush value of board + each rank pair (13 * lo + hi)


cdef inline void board_ranks(const EvalTables* t, uint64_t key, uint64_t mask,
                              BoardRanks* r) noexcept nogil:
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


cdef inline uint16_t holding_value(const EvalTables* t, const BoardRanks* r, int i,
                                    uint64_t m) noexcept nogil:
    """Value of board + holding i (mask m): a lookup unless it may make a flush."""
    if <int>popcount64(m & r.flush_suit) >= r.need:
        return evaluate_key(t, r.key + t.holding_keys[i], r.mask | m)
    return r.rank_pair[t.holding_rank_pair[i]]


cdef inline int suit_of_word(uint64_t word_mask) noexcept nogil:
    """Suit 0..3 of a one-suit word mask (0x1fff << 16 * suit)."""
    return <int>(ctz64(word_mask) >> 4)


cdef inline double weight_of(const double* weights, int i) noexcept nogil:
    return 1.0 if weights == NULL else weights[i]


cdef inline uint64_t cards_key(const EvalTables* t, uint64_t mask) noexcept nogil:
    """Incremental key of a mask's cards without KEY_INIT (adds to a hand key)."""
    return mask_key(t, mask) - KEY_INIT


cdef inline int radix_sort_values(const uint16_t* vals, uint16_t* idx, uint16_t* tmp, int n) noexcept nogil:
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
