# C-level API of the hand evaluator, for other Cython modules' hot loops.
#
#     from evaluator_pyx._core cimport EvalTables, eval_tables, evaluate_key, KEY_INIT
#     cdef const EvalTables* T = eval_tables()      # once, at module level
#
# Cards are ints 0..51 (4 * rank + suit) and hands 64-bit masks, card bit 16 * suit + rank
# (cards.py; the suit-word layout of [west-2005]). Values are 1..7462, higher
# better, equal to _reference.evaluate for 5, 6 and 7 cards.
#
# Three ways to evaluate:
#   count_evaluate(T.count_offsets, T.count_values, T.flush_values, mask)
#                                 from a mask alone, no table until the hash (the batch
#                                 kernel and evaluate use it; _count_batch.h).
#   evaluate_mask(T, mask)        from a mask alone, by the suit-word table (mask_key's
#                                 way; kept for the bench's floors).
#   evaluate_key(T, key, mask)    from an incremental hand key plus the same hand's mask:
#                                 key = KEY_INIT + sum of T.card_keys[c] over its cards.
#                                 Keys add, so a loop keeps a board's key (mask_key) and
#                                 adds a holding's (T.holding_keys[i], the HOLDINGS order)
#                                 and ORs the masks (T.holding_masks[i]).
#
# A key's low 32 bits are the sum of per-rank keys (unique for every multiset of up to 7
# ranks, so it identifies the hand's ranks); bits 32 + 4 * suit hold a counter per suit
# that starts at 3 (KEY_INIT), so it reaches 8, setting bit 3 of its nibble, exactly when
# that suit has 5 cards; with at most 7 cards no counter overflows into the next nibble.
#
# Every function here reads only inside the tables whatever the key or mask (card_key
# needs a card 0..51), but values are only meaningful for 5 to 7 distinct cards, and a
# key holds at most 7 cards.
from libc.stdint cimport int32_t, uint8_t, uint16_t, uint32_t, uint64_t

cdef extern from *:
    """
    #define POKI_KEY_INIT        (0x3333ULL << 32)
    #define POKI_KEY_FLUSH_BITS  (0x8888ULL << 32)
    #define POKI_VALID_MASK_BITS 0x1fff1fff1fff1fffULL
    #define POKI_RANK_SUM_MASK   0x1ffffffU
    #define POKI_SUIT_WORD_FLUSH 0x02000000U
    #define poki_ctz64(x)        ((unsigned)__builtin_ctzll(x))
    #define poki_popcount64(x)   ((unsigned)__builtin_popcountll(x))
    #define poki_unlikely(x)     __builtin_expect(!!(x), 0)
    """
    # Key of the empty hand: every suit counter at 3.
    const uint64_t KEY_INIT "POKI_KEY_INIT"
    # Bit 3 of each suit counter: set in a key exactly when that suit has 5+ cards.
    const uint64_t KEY_FLUSH_BITS "POKI_KEY_FLUSH_BITS"
    # The 52 bits that are cards (bits 13-15 of each suit word are not).
    const uint64_t VALID_MASK_BITS "POKI_VALID_MASK_BITS"
    # Rank-key sums of any set of cards are below 2**25; masking with this keeps every
    # table index in bounds whatever the input.
    const uint32_t RANK_SUM_MASK "POKI_RANK_SUM_MASK"
    # Bit 25 of a suit-word entry: the word has 5+ cards.
    const uint32_t SUIT_WORD_FLUSH "POKI_SUIT_WORD_FLUSH"
    unsigned ctz64 "poki_ctz64"(uint64_t x) noexcept nogil
    unsigned popcount64 "poki_popcount64"(uint64_t x) noexcept nogil
    # Branch hint: the condition is rarely true (the compiler lays that path out of line).
    bint unlikely "poki_unlikely"(uint64_t x) noexcept nogil

cdef enum:
    N_VALUES = 7462
    N_HOLDINGS = 1326
    SUIT_WORDS = 8192
    # Perfect hash of a rank-key sum k:
    #     rank_values[(k >> HASH_ROW_BITS) + 2 * hash_offsets[k & HASH_ROW_MASK]].
    # 8,192 rows of 2-byte offsets (16 KB, half of a core's L1d, so the first of the two
    # dependent reads stays in L1); displacements are even so that 16 bits reach a value
    # table of more than 65,536 slots.
    HASH_ROW_BITS = 13
    HASH_ROWS = 1 << HASH_ROW_BITS
    HASH_ROW_MASK = HASH_ROWS - 1
    # Room for every in-bounds index: the filled part plus (2**25 >> HASH_ROW_BITS).
    RANK_TABLE_CAPACITY = 110592
    # The count-key table: the same room, then the flush values of every suit word (at
    # 2 * count_offsets[FLUSH_ROW] + word), so a flush is one more row of the hash.
    FLUSH_ROW = HASH_ROWS
    COUNT_TABLE_CAPACITY = RANK_TABLE_CAPACITY + SUIT_WORDS

ctypedef struct EvalTables:
    # Per 13-bit suit word w: bits 0-24 the sum of the rank keys of w's ranks, bit 25 set
    # if w has 5+ cards, bits 26-31 the number of cards in w. Summed over a mask's four
    # words: the rank-key sum, the flush bit, and the card count (bit 25 carries into the
    # count only when two suits have 5+ cards, which makes the count 11 or more anyway).
    uint32_t suit_words[SUIT_WORDS]
    # Value of the best flush (or straight flush) in a suit word with 5+ cards, else 0.
    uint16_t flush_values[SUIT_WORDS]
    uint16_t hash_offsets[HASH_ROWS]           # half the displacement of each row
    # Value of the best non-flush five of each rank multiset of 5-7 cards, by hashed key.
    uint16_t rank_values[RANK_TABLE_CAPACITY]
    # The same values by the 25-bit hash of the hand's count key (count_hash: the
    # per-rank counts as three 13-bit planes, computed from a mask with no table), in
    # rows and columns laid out like the rank-sum hash above.
    uint16_t count_offsets[HASH_ROWS + 1]
    uint16_t count_values[COUNT_TABLE_CAPACITY]
    # Incremental key of each card 0..51: its rank key + 1 in its suit's counter.
    uint64_t card_keys[52]
    # Key of each rank 0..12 (the low 32 bits of a card key).
    uint32_t rank_keys[13]
    # The 1326 two-card holdings in HOLDINGS order (cards.py: (a, b), a < b, by a then b):
    # their masks, and their keys (the sum of the two card keys, without KEY_INIT), so a
    # hand of board + holding i is key board_key + holding_keys[i], mask board | holding_masks[i].
    uint64_t holding_masks[N_HOLDINGS]
    uint64_t holding_keys[N_HOLDINGS]
    # Per-card and per-holding facts the assessment kernels look up (_board.pxd):
    uint64_t card_bits[52]                     # each card's bit in a mask
    uint8_t holding_cards[N_HOLDINGS][2]       # holding i is (a, b), a < b
    # Rank pair of each holding, 13 * low rank + high rank: without a flush a hand's value
    # depends on its ranks only, so one value per rank pair serves all its holdings.
    uint8_t holding_rank_pair[N_HOLDINGS]
    uint16_t rank_pair_members[169][16]        # the holdings of each rank pair
    uint8_t rank_pair_size[169]                # 16 for two ranks, 6 for a pair
    # Holding (a, b), a < b, is number holding_base[a] + b: for one first card a the
    # holdings run contiguously in b, which the weight sums read as vectors.
    int32_t holding_base[52]
    # Starting-hand type 0..168 of each holding and of any two cards (13 * x + y on the
    # grid of ranks: pairs on the diagonal, suited at (high, low), offsuit at (low, high)).
    uint8_t holding_type[N_HOLDINGS]
    uint8_t type_of_cards[52][52]
    double ones[N_HOLDINGS]                    # the uniform weight table


# The tables, built when evaluator_pyx._core is imported. Read-only.
cdef const EvalTables* eval_tables() noexcept nogil
# The loop from masks by suit-word sums (the batch path of a build without AVX2; the
# bench's reference for the count key): out[i] = value of m[i]; with check, False if
# any mask is not 5-7 cards.
cdef bint masks_loop(const EvalTables* t, const uint64_t* m, uint16_t* out, Py_ssize_t n,
                     bint check) noexcept nogil


cdef inline uint64_t card_key(const EvalTables* t, int card) noexcept nogil:
    """Incremental key of one card 0..51; add to a hand key to add the card."""
    return t.card_keys[card]


cdef inline uint32_t rank_index(const EvalTables* t, uint32_t rank_sum) noexcept nogil:
    """Where the perfect hash puts a rank-key sum in rank_values (in bounds for any sum)."""
    rank_sum &= RANK_SUM_MASK
    return (rank_sum >> HASH_ROW_BITS) + 2 * <uint32_t>t.hash_offsets[rank_sum & HASH_ROW_MASK]


cdef inline uint16_t rank_value(const EvalTables* t, uint32_t rank_sum) noexcept nogil:
    """Value of the best non-flush five of the ranks whose rank-key sum is rank_sum."""
    return t.rank_values[rank_index(t, rank_sum)]


cdef inline uint32_t key_flush_word(uint64_t key, uint64_t mask) noexcept nogil:
    """The flush suit's 13-bit word of the mask if the key has a flush, else 0, without a
    branch. The flush bit is 32 + 4 * suit + 3; a sentinel bit 51 makes the count of
    trailing zeros 51 (suit 4, shift 64 & 63 = 0) when there is none, and the word is then
    masked to 0 (flush_values[0] is 0)."""
    cdef uint64_t flush_bits = key & KEY_FLUSH_BITS
    cdef unsigned suit = (ctz64(flush_bits | (1ULL << 51)) - 35) >> 2
    return <uint32_t>((mask >> ((suit << 4) & 63)) & 0x1fff) & (0u - <uint32_t>(flush_bits != 0))


cdef inline uint16_t evaluate_key(const EvalTables* t, uint64_t key, uint64_t mask) noexcept nogil:
    """Value of a 5-7 card hand from its incremental key and its mask (the mask is only
    read for a flush, to find the flush suit's cards). The flush is the unlikely branch
    (3% of random hands), laid out of line so the common path runs straight through; a
    select of both values without a branch measured slower (docs/kernels.md)."""
    if unlikely(key & KEY_FLUSH_BITS):
        return t.flush_values[key_flush_word(key, mask)]
    return rank_value(t, <uint32_t>key)


cdef inline void values_of_keys(const EvalTables* t, const uint64_t* keys, const uint64_t* masks,
                                uint16_t* out, Py_ssize_t n) noexcept nogil:
    """out[i] = evaluate_key(keys[i], masks[i]) for i < n: one hand per iteration, its
    flush test a branch laid out of line. Groups of four or eight hands under one flush
    test, a branch-free select, and blocks with the flushes fixed after all measured
    no faster on this machine (docs/kernels.md; the loops are in _floor)."""
    cdef Py_ssize_t i
    for i in range(n):
        # Every hand's mask is read, though only a flush needs it: read only for the 3%
        # of flushes, the masks are not streamed in by the hardware prefetcher, each such
        # read waits on memory and the loop ran at half the speed (docs/kernels.md).
        out[i] = evaluate_key(t, keys[i], masks[i])


cdef inline uint32_t suit_sum(const EvalTables* t, uint64_t mask) noexcept nogil:
    """Sum of the suit-word entries of a mask; (suit_sum >> 26) is its number of card bits
    (exact up to 9 cards, and 8 or more for any mask of 8+ cards)."""
    return (t.suit_words[mask & 0x1fff] + t.suit_words[(mask >> 16) & 0x1fff]
            + t.suit_words[(mask >> 32) & 0x1fff] + t.suit_words[(mask >> 48) & 0x1fff])


cdef inline uint16_t evaluate_suit_sum(const EvalTables* t, uint64_t mask, uint32_t e) noexcept nogil:
    """Value of a 5-7 card mask given its suit_sum e."""
    if unlikely(e & SUIT_WORD_FLUSH):
        return (t.flush_values[mask & 0x1fff] | t.flush_values[(mask >> 16) & 0x1fff]
                | t.flush_values[(mask >> 32) & 0x1fff] | t.flush_values[(mask >> 48) & 0x1fff])
    return rank_value(t, e)


cdef inline uint16_t evaluate_mask(const EvalTables* t, uint64_t mask) noexcept nogil:
    """Value of a 5-7 card hand mask (no validation)."""
    cdef uint64_t a = mask & 0x1fff, b = (mask >> 16) & 0x1fff
    cdef uint64_t c = (mask >> 32) & 0x1fff, d = (mask >> 48) & 0x1fff
    cdef uint32_t e = t.suit_words[a] + t.suit_words[b] + t.suit_words[c] + t.suit_words[d]
    if unlikely(e & SUIT_WORD_FLUSH):
        # With at most 7 cards only one suit can hold 5, and a flush then beats anything
        # the other cards make; the other three words' flush values are 0.
        return t.flush_values[a] | t.flush_values[b] | t.flush_values[c] | t.flush_values[d]
    return rank_value(t, e)


# The count-key evaluation from a mask (_count_batch.h: the reasoning and the batch
# kernel): a hand's per-rank counts as three 13-bit bit planes by a bit-sliced adder of
# its suit words, hashed to 25 bits with no collision among the 5-7 rank multisets;
# a SWAR popcount per suit word for the flush test. No table read until the hash's two.
cdef extern from "_count_batch.h":
    # 25-bit hash of a mask's count key (in bounds for count_index whatever the mask).
    uint32_t count_hash "poki_cb_hash"(uint64_t mask) noexcept nogil
    # The same from the bit planes (bit r of plane j: bit j of the count of rank r).
    uint32_t count_planes_hash "poki_cb_planes_hash"(uint32_t b0, uint32_t b1, uint32_t b2) noexcept nogil
    # Nonzero exactly when a mask of at most 7 cards has 5+ cards of a suit.
    uint64_t flush_lanes "poki_cb_flush"(uint64_t mask) noexcept nogil
    # Value of a flush hand: the flush values of its four suit words ORed.
    uint16_t flush_value_of_mask "poki_cb_flush_value"(const uint16_t* flush_values, uint64_t mask) noexcept nogil
    # Value of one 5-7 card mask, every step (no validation).
    uint16_t count_evaluate "poki_cb_one"(const uint16_t* offsets, const uint16_t* values,
                                          const uint16_t* flush_values, uint64_t mask) noexcept nogil
    # True when the batch kernels below run on AVX2 (else one hand at a time, slower
    # than evaluate_batch's suit-word loop, which then serves instead).
    const bint COUNT_BATCH_VECTOR "POKI_CB_VECTOR"
    # The batch kernels: 1 if every mask is 5-7 cards with no stray bits (unchecked: 1).
    int count_batch_checked "poki_count_batch_checked"(
        const uint16_t* offsets, const uint16_t* values, const uint16_t* flush_values,
        const uint64_t* m, uint16_t* out, Py_ssize_t n) noexcept nogil
    int count_batch_unchecked "poki_count_batch_unchecked"(
        const uint16_t* offsets, const uint16_t* values, const uint16_t* flush_values,
        const uint64_t* m, uint16_t* out, Py_ssize_t n) noexcept nogil


cdef inline uint32_t count_index(const EvalTables* t, uint32_t h) noexcept nogil:
    """Where a count hash lands in count_values (in bounds for any 25-bit h)."""
    return (h >> HASH_ROW_BITS) + 2 * <uint32_t>t.count_offsets[h & HASH_ROW_MASK]


cdef inline uint16_t count_value(const EvalTables* t, uint64_t mask) noexcept nogil:
    """Value of the best non-flush five of a 5-7 card mask's ranks, by its count key."""
    return t.count_values[count_index(t, count_hash(mask))]


cdef inline uint64_t mask_key(const EvalTables* t, uint64_t mask) noexcept nogil:
    """Incremental key of a mask's cards (e.g. a board's), same as summing card keys."""
    cdef uint64_t key = KEY_INIT
    cdef uint32_t e
    cdef int s
    for s in range(4):
        e = t.suit_words[(mask >> (16 * s)) & 0x1fff]
        key += (e & RANK_SUM_MASK) + (<uint64_t>(e >> 26) << (32 + 4 * s))
    return key


cdef inline bint mask_is_hand(uint64_t mask) noexcept nogil:
    """True for a mask of 5 to 7 cards with no non-card bits."""
    return (mask & ~VALID_MASK_BITS) == 0 and <unsigned>(popcount64(mask) - 5) <= 2

