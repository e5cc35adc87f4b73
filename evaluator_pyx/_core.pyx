# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, always_allow_keywords=False, annotation_typing=False
"""Compiled hand evaluator: 5-7 cards to a value 1..7462 (higher better) by table lookups.

Layout (see _core.pxd for the C-level API). From a mask (evaluate, evaluate_batch,
evaluate_cards): the hand's per-rank card counts are computed from its four 13-bit suit
words ([west-2005]) with no table, as
three bit planes by a bit-sliced adder; a multiply hash of those planes and a perfect
hash table give the value of the best non-flush five; a per-suit popcount tells a
flush (only one suit can hold 5 of at most 7 cards, and a flush then beats anything else
those cards make), valued by a table of suit words (_count_batch.h has the batch kernel).
In incremental form (the assessment kernels' enumerations): a sum of per-rank keys and
per-suit counters, kept by addition, into a second perfect hash (evaluate_key).

All tables are computed here, at import, in C.
"""
from libc.stdint cimport int32_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort, calloc
from libc.string cimport memcpy, memset
from cpython.object cimport PyObject
from cpython.time cimport monotonic_ns

import operator

cimport cython

import numpy as np

from .cards import CardError

# The rank keys: 13 numbers, increasing, each the smallest above the previous one that
# keeps the sums of all multisets of up to 7 ranks (at most 4 of a rank) distinct, found
# by a greedy search starting from 1. The perfect-hash build below rejects them if two
# multisets of 5-7 ranks ever share a sum.
cdef uint32_t[13] _RANK_KEYS = [1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154,
                                667453, 1526359, 3453520]

CATEGORIES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)

cdef EvalTables _T
cdef uint32_t _codes[N_VALUES]          # sorted class codes; value = index + 1
cdef int _rank_table_used = 0
cdef int _count_table_used = 0
cdef long long _init_ns = 0


cdef const EvalTables* eval_tables() noexcept nogil:
    return &_T


# ---------------------------------------------------------------------------------------
# Hand classes. A class code is the category in bits 20-23 and the tie-breaking ranks in
# the nibbles below, most significant first (the hand value of [west-2005]), so codes
# order like hands; the dense value of a class is 1 + its position among the 7462 distinct codes.

cdef inline uint32_t _push(uint32_t code, int rank) noexcept nogil:
    return (code << 4) | <uint32_t>rank


cdef inline uint32_t _finish(uint32_t code, int fields) noexcept nogil:
    # Left-align the tie-break fields so the category lands in bits 20-23.
    return code << (4 * (6 - fields))


cdef int _straight_high(uint32_t ranks) noexcept nogil:
    cdef int h
    for h in range(12, 3, -1):
        if ((ranks >> (h - 4)) & 0x1f) == 0x1f:
            return h
    if (ranks & 0x100f) == 0x100f:    # A-2-3-4-5: five high
        return 3
    return -1


cdef uint32_t _flush_code(uint32_t word) noexcept nogil:
    """Code of the best five of a suit word with 5+ cards: straight flush or flush."""
    cdef int h = _straight_high(word)
    cdef int r, n = 0
    cdef uint32_t code
    if h >= 0:
        return _finish(_push(8, h), 2)
    code = 5
    for r in range(12, -1, -1):
        if (word >> r) & 1 and n < 5:
            code = _push(code, r)
            n += 1
    return _finish(code, 6)


cdef uint32_t _rank_code(const int* cnt) noexcept nogil:
    """Code of the best non-flush five of a rank multiset of 5-7 cards (cnt[r] each)."""
    cdef int r, quad = -1, trip = -1, pair = -1, pair2 = -1, n = 0, h
    cdef uint32_t present = 0, code
    for r in range(12, -1, -1):
        if cnt[r]:
            present |= 1u << r
    for r in range(12, -1, -1):
        if cnt[r] == 4 and quad < 0:
            quad = r
        elif cnt[r] >= 3 and trip < 0:
            trip = r
    if quad >= 0:
        code = _push(7, quad)
        for r in range(12, -1, -1):
            if r != quad and cnt[r]:
                return _finish(_push(code, r), 3)
    if trip >= 0:
        for r in range(12, -1, -1):
            if r != trip and cnt[r] >= 2:
                return _finish(_push(_push(6, trip), r), 3)
    h = _straight_high(present)
    if h >= 0:
        return _finish(_push(4, h), 2)
    if trip >= 0:
        code = _push(3, trip)
        for r in range(12, -1, -1):
            if r != trip and cnt[r] and n < 2:
                code = _push(code, r)
                n += 1
        return _finish(code, 4)
    for r in range(12, -1, -1):
        if cnt[r] == 2:
            if pair < 0:
                pair = r
            elif pair2 < 0:
                pair2 = r
    if pair2 >= 0:
        code = _push(_push(2, pair), pair2)
        for r in range(12, -1, -1):
            if r != pair and r != pair2 and cnt[r]:
                return _finish(_push(code, r), 4)
    if pair >= 0:
        code = _push(1, pair)
        for r in range(12, -1, -1):
            if r != pair and cnt[r] and n < 3:
                code = _push(code, r)
                n += 1
        return _finish(code, 5)
    code = 0
    for r in range(12, -1, -1):
        if cnt[r] and n < 5:
            code = _push(code, r)
            n += 1
    return _finish(code, 6)


cdef int _cmp_u32(const void* a, const void* b) noexcept nogil:
    cdef uint32_t x = (<const uint32_t*>a)[0]
    cdef uint32_t y = (<const uint32_t*>b)[0]
    return (x > y) - (x < y)


cdef uint16_t _value_of_code(uint32_t code) noexcept nogil:
    cdef int lo = 0, hi = N_VALUES - 1, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if _codes[mid] < code:
            lo = mid + 1
        else:
            hi = mid
    return <uint16_t>(lo + 1) if _codes[lo] == code else 0


# Walks every rank multiset (at most 4 of a rank) of up to max_cards cards and, for those
# of at least min_cards, records its code, or its rank-key sum and value.
ctypedef struct _Walk:
    int cnt[13]
    int min_cards
    int max_cards
    int n            # multisets seen
    int capacity     # room in the output arrays
    uint32_t* codes
    uint32_t* sums
    uint32_t* hashes  # count_hash of each multiset's count key, when not NULL
    uint16_t* values


cdef uint32_t _count_hash_of(const int* cnt) noexcept nogil:
    """count_hash of a rank multiset from its counts: bit r of plane j is bit j of the
    count of rank r (what the bit-sliced adder makes from a mask)."""
    cdef uint32_t planes[3]
    cdef int r, j
    planes[0] = planes[1] = planes[2] = 0
    for r in range(13):
        for j in range(3):
            planes[j] |= <uint32_t>((cnt[r] >> j) & 1) << r
    return count_planes_hash(planes[0], planes[1], planes[2])


cdef void _walk(_Walk* w, int rank, int cards, uint32_t key_sum) noexcept nogil:
    cdef int j
    cdef uint32_t code
    if rank == 13:
        if cards >= w.min_cards and w.n < w.capacity:
            code = _rank_code(w.cnt)
            if w.codes != NULL:
                w.codes[w.n] = code
            else:
                w.sums[w.n] = key_sum
                w.values[w.n] = _value_of_code(code)
                if w.hashes != NULL:
                    w.hashes[w.n] = _count_hash_of(w.cnt)
        if cards >= w.min_cards:
            w.n += 1
        return
    for j in range(5):
        if cards + j > w.max_cards:
            break
        w.cnt[rank] = j
        _walk(w, rank + 1, cards + j, key_sum + <uint32_t>j * _RANK_KEYS[rank])
    w.cnt[rank] = 0


cdef int _build_codes() except -1:
    """Fill _codes with the 7462 distinct class codes, sorted."""
    cdef uint32_t* buf = <uint32_t*>malloc(sizeof(uint32_t) * 8192)
    cdef _Walk w
    cdef int word, i, n
    if buf == NULL:
        raise MemoryError()
    memset(&w, 0, sizeof(w))
    w.min_cards = 5
    w.max_cards = 5
    w.capacity = 8192 - 1287
    w.codes = buf
    _walk(&w, 0, 0, 0)
    n = w.n
    if n > w.capacity:
        raise RuntimeError("evaluator tables: too many five-card rank multisets")
    for word in range(8192):
        if popcount64(word) == 5:
            buf[n] = _flush_code(word)
            n += 1
    qsort(buf, n, sizeof(uint32_t), _cmp_u32)
    w.n = 0
    for i in range(n):
        if i == 0 or buf[i] != buf[i - 1]:
            if w.n < N_VALUES:
                _codes[w.n] = buf[i]
            w.n += 1
    free(buf)
    if w.n != N_VALUES:
        raise RuntimeError(f"evaluator tables: {w.n} hand classes, expected {N_VALUES}")
    return 0


cdef int _build_suit_tables() except -1:
    cdef int word, r, a, b, h
    cdef uint32_t rank_sum
    cdef uint16_t flush
    cdef int c
    for r in range(13):
        _T.rank_keys[r] = _RANK_KEYS[r]
    for c in range(52):
        _T.card_keys[c] = <uint64_t>_RANK_KEYS[c >> 2] + (1ULL << (32 + 4 * (c & 3)))
    h = 0
    for a in range(52):
        for b in range(a + 1, 52):
            _T.holding_masks[h] = (1ULL << (16 * (a & 3) + (a >> 2))) | (1ULL << (16 * (b & 3) + (b >> 2)))
            _T.holding_keys[h] = _T.card_keys[a] + _T.card_keys[b]
            h += 1
    for word in range(SUIT_WORDS):
        rank_sum = 0
        for r in range(13):
            if (word >> r) & 1:
                rank_sum += _RANK_KEYS[r]
        flush = _value_of_code(_flush_code(word)) if popcount64(word) >= 5 else 0
        _T.flush_values[word] = flush
        _T.suit_words[word] = (rank_sum | (popcount64(word) << 26)
                               | (SUIT_WORD_FLUSH if popcount64(word) >= 5 else 0))
    return 0


cdef enum:
    _MAX_MULTISETS = 80000   # rank multisets of 5-7 cards: 73,775


include "_perfect_hash.pxi"


cdef int _build_rank_hash() except -1:
    """Both perfect hashes of the 5-7 rank multisets: by rank-key sum (the incremental
    form's) and by count key (from a mask without a table)."""
    global _rank_table_used, _count_table_used
    cdef _Walk w
    cdef uint32_t* sums = NULL
    cdef uint32_t* hashes = NULL
    cdef uint16_t* values = NULL
    cdef uint32_t used_size = 0
    try:
        sums = <uint32_t*>malloc(sizeof(uint32_t) * _MAX_MULTISETS)
        hashes = <uint32_t*>malloc(sizeof(uint32_t) * _MAX_MULTISETS)
        values = <uint16_t*>malloc(sizeof(uint16_t) * _MAX_MULTISETS)
        if not (sums and hashes and values):
            raise MemoryError()
        memset(&w, 0, sizeof(w))
        w.min_cards = 5
        w.max_cards = 7
        w.capacity = _MAX_MULTISETS
        w.sums = sums
        w.hashes = hashes
        w.values = values
        _walk(&w, 0, 0, 0)
        if w.n > _MAX_MULTISETS:
            raise RuntimeError("evaluator tables: too many rank multisets")
        _pack_hash(sums, values, w.n, _T.hash_offsets, _T.rank_values, &used_size)
        _rank_table_used = used_size
        _pack_hash(hashes, values, w.n, _T.count_offsets, _T.count_values, &used_size)
        # The flush row: every suit word's flush value (0 for fewer than 5 cards) after
        # the hashed part, at an even displacement.
        used_size = (used_size + 1) & ~1u
        if used_size + SUIT_WORDS > COUNT_TABLE_CAPACITY or (used_size >> 1) > 0xffff:
            raise RuntimeError("evaluator tables: no room for the flush row")
        _T.count_offsets[FLUSH_ROW] = <uint16_t>(used_size >> 1)
        memcpy(&_T.count_values[used_size], _T.flush_values, sizeof(_T.flush_values))
        _count_table_used = used_size + SUIT_WORDS
    finally:
        free(sums); free(hashes); free(values)
    return 0


cdef int _build_holding_tables() except -1:
    cdef int a, b, i = 0, ra, rb, hi, lo, ty
    memset(_T.rank_pair_size, 0, sizeof(_T.rank_pair_size))
    for a in range(52):
        _T.card_bits[a] = 1ULL << (16 * (a & 3) + (a >> 2))
        _T.holding_base[a] = 50 * a - a * (a - 1) // 2 - 1
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
            _T.type_of_cards[a][b] = <uint8_t>ty
    for a in range(52):
        for b in range(a + 1, 52):
            _T.holding_cards[i][0] = <uint8_t>a
            _T.holding_cards[i][1] = <uint8_t>b
            _T.holding_type[i] = _T.type_of_cards[a][b]
            ra = a >> 2
            rb = b >> 2
            _T.holding_rank_pair[i] = <uint8_t>(13 * ra + rb if ra <= rb else 13 * rb + ra)
            _T.rank_pair_members[_T.holding_rank_pair[i]][_T.rank_pair_size[_T.holding_rank_pair[i]]] = <uint16_t>i
            _T.rank_pair_size[_T.holding_rank_pair[i]] += 1
            _T.ones[i] = 1.0
            i += 1
    return 0


cdef tuple _category_floor():
    floors = [0] * 9
    cdef int i
    for i in range(N_VALUES - 1, -1, -1):
        floors[_codes[i] >> 20] = i + 1
    return tuple(floors)


cdef long long _t0 = monotonic_ns()
_build_codes()
_build_suit_tables()
_build_rank_hash()
_build_holding_tables()
_init_ns = monotonic_ns() - _t0

# First value of each of the 9 categories, high card .. straight flush.
CATEGORY_FLOOR = _category_floor()


# ---------------------------------------------------------------------------------------
# Python API.

cdef object _bad_mask(object mask):
    try:
        mask = operator.index(mask)
    except TypeError:
        return TypeError(f"a hand mask is an int, not {type(mask).__name__}")
    if mask < 0 or mask >> 64 or mask & ~VALID_MASK_BITS:
        return CardError(f"mask {mask:#x} has bits that are not cards")
    return CardError(f"need 5 to 7 cards to evaluate, got {bin(mask).count('1')} (mask {mask:#x})")


# The single call, evaluate(mask). What it costs beyond a no-op call is nearly all memory
# between calls (docs/kernels.md, "The Python call"): while the interpreter streams a
# caller's list of ints through the caches, each call reads a row offset, a value slot,
# and writes the reference count of its result object. The result is the largest part:
# with one prebuilt object per value (7,463 of 32 bytes, 239 KB) each call's incref and
# the caller's decref land on a line that has usually left L1 and often L2.
#
# So a result the caller drops before the next call is reused: two int objects of our
# own, in one cache line, each returned while nothing but this module references it
# (its count is exactly its base count), its digit set to the new value. A caller that
# keeps a result (a list of values, a key, a comparison's left side) holds a reference,
# so that object is left alone and the next call takes the other one, or a prebuilt
# object of its value. An object nobody else references cannot be observed changing;
# CPython's own zip and enumerate reuse their result tuples under the same test.
#
# All of these live in this module, are never freed, and start at a count of 2**30, as
# CPython's static objects do (an unbalanced decref elsewhere would then make a reused
# object merely stop being reused). This needs CPython's int layout of 3.11 and earlier
# (30-bit digits, no immortal objects); other builds return the prebuilt tuple's item.
cdef extern from "_call.h":
    void init_value_objects "poki_init_value_objects"() noexcept
    # Borrowed: the caller's conversion to object takes the reference it returns.
    PyObject* value_object "poki_value_object"(unsigned v, PyObject* objects) noexcept

init_value_objects()
cdef tuple _VALUE_OBJECTS = tuple(range(N_VALUES + 1))


cdef inline object _value(unsigned v):
    return <object>value_object(v, <PyObject*>_VALUE_OBJECTS)


cdef extern from "_call.h":
    bint exact_mask "poki_exact_mask"(object o, uint64_t* out) noexcept
    ctypedef object (*_GeneralCall)(object)
    object make_evaluate "poki_make_evaluate"(_GeneralCall general, const uint16_t* offsets,
                                              const uint16_t* values, const uint16_t* flush_values,
                                              tuple value_objects, object module_name)


cdef uint64_t _mask_of(object mask) except? 0:
    """The general path of evaluate's argument: any int-like object, or the error."""
    cdef uint64_t m
    try:
        m = mask
    except (OverflowError, TypeError):
        raise _bad_mask(mask) from None
    return m


cdef object _evaluate_general(object mask):
    """evaluate(mask) for what the C path does not take: int subclasses, numpy ints, ints
    out of range, bad masks (the errors), and every call on builds without the 3.11 int
    layout."""
    cdef uint64_t m
    if not exact_mask(mask, &m):
        m = _mask_of(mask)
    if (m & ~VALID_MASK_BITS) or <unsigned>(popcount64(m) - 5) > 2:
        raise _bad_mask(mask)
    return _value(count_evaluate(_T.count_offsets, _T.count_values, _T.flush_values, m))


# A plain builtin function (METH_O, no Python-level frame): the cheapest call CPython has.
evaluate = make_evaluate(_evaluate_general, _T.count_offsets, _T.count_values, _T.flush_values,
                         _VALUE_OBJECTS, __name__)


def evaluate_cards(cards) -> int:
    """Value of 5-7 cards given as ints 0..51."""
    cdef uint64_t mask = 0, bit
    cdef int c
    cdef Py_ssize_t n = 0
    for card in cards:
        if not isinstance(card, int) or not 0 <= card < 52:
            raise CardError(f"not a card index: {card!r}")
        c = card
        bit = 1ULL << (16 * (c & 3) + (c >> 2))
        if mask & bit:
            raise CardError(f"duplicate card {card!r}")
        mask |= bit
        n += 1
    if n < 5 or n > 7:
        raise CardError(f"need 5 to 7 cards to evaluate, got {n}")
    return count_evaluate(_T.count_offsets, _T.count_values, _T.flush_values, mask)


# The batch loop over masks is count_batch_* (_count_batch.h) where the build has AVX2:
# no table until the count key's hash; without AVX2, masks_loop (suit-word sums). The loop over incremental keys is a function
# of its own called through a pointer set at import: inlined into the Python wrapper,
# it kept its array pointers, the count and constants on the stack and reloaded them
# every hand (2-4 extra reads per hand, seen in the compiled code), because the
# wrapper's other values held the registers.

cdef bint masks_loop(const EvalTables* t, const uint64_t* m, uint16_t* out, Py_ssize_t n,
                     bint check) noexcept nogil:
    """out[i] = value of m[i]; with check, False if any mask is not 5-7 cards (the caller
    finds which). The loop from masks for a build without AVX2 (POKI_PORTABLE=1 on an
    older target), where the count key one hand at a time is slower (docs/kernels.md):
    four hands per iteration, their suit-word sums, one flush test for the four, then
    four hash lookups with no branch between them."""
    cdef Py_ssize_t i, n4 = n & ~(<Py_ssize_t>3)
    cdef uint64_t bad = 0, ok = 1
    cdef uint32_t a, b, c, d
    for i in range(0, n4, 4):
        a = suit_sum(t, m[i])
        b = suit_sum(t, m[i + 1])
        c = suit_sum(t, m[i + 2])
        d = suit_sum(t, m[i + 3])
        if check:
            # Branch-free checks: stray bits, and bit 0 of 0xe0 >> count, set for 5-7.
            bad |= (m[i] | m[i + 1] | m[i + 2] | m[i + 3]) & ~VALID_MASK_BITS
            ok &= ((<uint64_t>0xe0 >> (a >> 26)) & (<uint64_t>0xe0 >> (b >> 26))
                   & (<uint64_t>0xe0 >> (c >> 26)) & (<uint64_t>0xe0 >> (d >> 26)))
        if unlikely((a | b | c | d) & SUIT_WORD_FLUSH):
            out[i] = evaluate_suit_sum(t, m[i], a)
            out[i + 1] = evaluate_suit_sum(t, m[i + 1], b)
            out[i + 2] = evaluate_suit_sum(t, m[i + 2], c)
            out[i + 3] = evaluate_suit_sum(t, m[i + 3], d)
        else:
            out[i] = rank_value(t, a)
            out[i + 1] = rank_value(t, b)
            out[i + 2] = rank_value(t, c)
            out[i + 3] = rank_value(t, d)
    for i in range(n4, n):
        a = suit_sum(t, m[i])
        if check:
            bad |= m[i] & ~VALID_MASK_BITS
            ok &= <uint64_t>0xe0 >> (a >> 26)
        out[i] = evaluate_suit_sum(t, m[i], a)
    return bad == 0 and ok != 0


ctypedef void (*_KeysKernel)(const EvalTables*, const uint64_t*, const uint64_t*, uint16_t*, Py_ssize_t) noexcept nogil


cdef void _keys_loop(const EvalTables* t, const uint64_t* keys, const uint64_t* masks,
                     uint16_t* out, Py_ssize_t n) noexcept nogil:
    values_of_keys(t, keys, masks, out, n)


cdef _KeysKernel _keys_kernel = _keys_loop


def evaluate_batch(masks, out=None, bint check=True) -> np.ndarray:
    """Values of an array of 5-7 card masks (uint64) as a uint16 array of its shape.

    `out` may be a preallocated 1-D contiguous uint16 array of the same size. With
    `check` (the default) a bad mask raises CardError naming the first one (by flat
    index); check=False skips the test for masks known to be good (a bad mask then gets
    a meaningless value). The loop runs in C without the GIL.
    """
    arr = np.ascontiguousarray(masks, dtype=np.uint64)
    cdef const uint64_t[::1] m = arr.reshape(-1)
    cdef Py_ssize_t n = m.shape[0], i
    cdef uint16_t[::1] o
    if out is None:
        out = np.empty(arr.shape, dtype=np.uint16)
        o = out.reshape(-1)
    else:
        o = out
    if o.shape[0] != n:
        raise ValueError(f"out has {o.shape[0]} entries for {n} masks")
    cdef bint good
    if n == 0:
        return out
    with nogil:
        if not COUNT_BATCH_VECTOR:
            good = masks_loop(&_T, &m[0], &o[0], n, check)
        elif check:
            good = count_batch_checked(_T.count_offsets, _T.count_values, _T.flush_values,
                                       &m[0], &o[0], n)
        else:
            good = count_batch_unchecked(_T.count_offsets, _T.count_values, _T.flush_values,
                                         &m[0], &o[0], n)
    if not good:
        for i in range(n):
            if not mask_is_hand(m[i]):
                raise CardError(f"masks[{i}]: {_bad_mask(int(m[i]))}")
    return out


def hand_category(value: int) -> str:
    """'high card' ... 'straight flush' for a hand value."""
    try:
        v = operator.index(value)
    except TypeError:
        raise ValueError(f"not a hand value: {value!r}") from None
    if not 1 <= v <= N_VALUES:
        raise ValueError(f"not a hand value: {value!r}")
    cdef int cat = 8
    while v < CATEGORY_FLOOR[cat]:
        cat -= 1
    return CATEGORIES[cat]


# Exposed for tests and diagnostics: the incremental-key path and the table facts.

def evaluate_batch_by_key(masks) -> np.ndarray:
    """Values via the incremental-key path (key of the mask, then evaluate_key)."""
    cdef const uint64_t[::1] m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    cdef Py_ssize_t n = m.shape[0], i
    out = np.empty(n, dtype=np.uint16)
    cdef uint16_t[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = evaluate_key(&_T, mask_key(&_T, m[i]), m[i])
    return out


def evaluate_cards_by_key(cards) -> int:
    """Value of 5-7 card ints by adding their card keys one at a time."""
    cdef uint64_t key = KEY_INIT, mask = 0
    cdef int c
    for card in cards:
        c = card
        if not 0 <= c < 52:
            raise CardError(f"not a card index: {card!r}")
        key += card_key(&_T, c)
        mask |= 1ULL << (16 * (c & 3) + (c >> 2))
    return evaluate_key(&_T, key, mask)


def card_keys() -> tuple:
    """The 52 incremental card keys."""
    return tuple([_T.card_keys[i] for i in range(52)])


def holding_tables() -> tuple:
    """(holding masks, holding keys) as the C tables hold them, 1326 each."""
    return (tuple([_T.holding_masks[i] for i in range(N_HOLDINGS)]),
            tuple([_T.holding_keys[i] for i in range(N_HOLDINGS)]))


def table_info() -> dict:
    """Sizes of the tables and how long building them took at import."""
    return {
        "rank_keys": tuple([_T.rank_keys[i] for i in range(13)]),
        "rank_table_used": _rank_table_used,
        "count_table_used": _count_table_used,
        "rank_table_capacity": RANK_TABLE_CAPACITY,
        "hash_row_bits": HASH_ROW_BITS,
        "bytes": sizeof(EvalTables),
        "build_ms": _init_ns / 1e6,
    }


def hand_keys(masks) -> np.ndarray:
    """Incremental keys (KEY_INIT + the card keys) of an array of masks, uint64."""
    cdef const uint64_t[::1] m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    cdef Py_ssize_t n = m.shape[0], i
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = mask_key(&_T, m[i])
    return out


def evaluate_key_batch(keys, masks, out=None) -> np.ndarray:
    """Values of hands kept in incremental form (key and mask each, as hand_keys gives),
    unchecked: the form enumerations and play-outs use, timed by `poki bench`."""
    cdef const uint64_t[::1] k = np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
    cdef const uint64_t[::1] m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    cdef Py_ssize_t n = m.shape[0], i
    if k.shape[0] != n:
        raise ValueError(f"{k.shape[0]} keys for {n} masks")
    if out is None:
        out = np.empty(n, dtype=np.uint16)
    cdef uint16_t[::1] o = out
    if o.shape[0] != n:
        raise ValueError(f"out has {o.shape[0]} entries for {n} masks")
    if n:
        with nogil:
            _keys_kernel(&_T, &k[0], &m[0], &o[0], n)
    return out


def count_hashes(masks) -> np.ndarray:
    """The count-key hash of each mask (uint32), as the evaluator reads it: the key into
    count_tables() that tests check for collisions over every rank multiset."""
    cdef const uint64_t[::1] m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    out = np.empty(m.shape[0], dtype=np.uint32)
    cdef uint32_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(m.shape[0]):
        o[i] = count_hash(m[i])
    return out


def count_tables() -> tuple:
    """(count_offsets, count_values, flush_values) as bytes: the perfect hash's tables,
    for tests and for an outside driver (the OMPEval comparison of `poki bench`)."""
    return (bytes((<const char*>_T.count_offsets)[:sizeof(_T.count_offsets)]),
            bytes((<const char*>_T.count_values)[:sizeof(_T.count_values)]),
            bytes((<const char*>_T.flush_values)[:sizeof(_T.flush_values)]))
