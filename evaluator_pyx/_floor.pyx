# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Floors for the batch evaluator: what this machine allows for each part of a 7-card
evaluation by tables, measured with the same compiler and flags as the kernels.

Used by `poki bench --only kernels` (agent/bench/kernels.py) and docs/kernels.md, never
at play time. Each loop runs over n hands and writes what it computed into an output
array, so the compiler cannot drop any of it:

* `clock_cycles(n)`: 4 * n dependent one-cycle integer adds (inline assembly, so the
  compiler cannot fold them); CPU seconds / (4 n) is the time of one cycle, so the
  other figures can be read as cycles per hand.
* `reads_only_one(index)`: one read per hand from the rank-value table at an index
  computed beforehand: the floor of any evaluator whose last step reads a table of that
  size (the loads alone, no key arithmetic, no flush test).
* `reads_only_hash(rank_sums)`: the perfect hash's two dependent reads per hand with the
  rank-key sums computed beforehand (no flush test).
* `keys_from_masks(masks)`: the mask -> key step alone (the four suit-word reads and
  their sum, a flush flag and card count), no hash reads.
* `keys_bitsliced(masks)`: a mask -> key of its ranks with no table at all (the per-rank
  card counts as three bit planes, a bit-sliced adder of the four suit words, which the
  compiler vectorises): the cost of computing a key of the cards without any read.
* `stream_only(masks)`: read each mask and write a 16-bit result, nothing else: the
  memory floor of the batch API.
* `noop(x)`: one of our METH_O builtins that returns its argument: the floor of a
  Python call to `evaluate(mask)`.
* `call_variants(order)`: the single call built the ways tried before the one _core
  keeps (_call_floor.h): prebuilt result objects, the same with every table and object
  in a 2 MB huge page, objects ordered by frequency, a constant result, a fresh int.

* `count_keys_only(masks)`, `reads_only_count(hashes)`: the two halves of the count-key
  design (the hash of the per-rank counts and the flush flag computed with no table, one
  hand at a time; the count table's two reads with the hash handed in).
* `pdep_keys_only(masks)`: the per-rank counts by BMI2's PDEP (each suit word spread to
  4-bit fields and the four summed), the other table-free way to a key of the ranks.

The `alt_*` loops are the designs tried for the batch kernels and measured beside the
ones kept in _core (docs/kernels.md says which won and by how much): a branch-free
select of the flush and rank values, a block whose flushes are listed without a branch
and fixed after it, and blocks split into stages (suit-word sums, hash reads, flushes).
`alt_mask_group4` is the loop from masks _core used before the count key. The `cnt_*`
loops are the count key one hand (or four, or a block) at a time without AVX2, and
`cnt_batch` the kernel _core uses (_count_batch.h).
"""
from libc.stdint cimport uint16_t, uint32_t, uint64_t, uintptr_t

from evaluator_pyx._core cimport (
    EvalTables, eval_tables, RANK_SUM_MASK, SUIT_WORD_FLUSH, rank_index, rank_value,
    evaluate_key, evaluate_mask, evaluate_suit_sum, key_flush_word, suit_sum, unlikely,
    count_hash, count_index, count_value, flush_lanes, flush_value_of_mask,
    count_batch_checked, count_batch_unchecked, masks_loop,
)

cimport cython

import numpy as np

cdef extern from *:
    """
    #include <stdint.h>
    static uint64_t poki_dependent_adds(uint64_t n)
    {
        uint64_t x = 0;
        for (uint64_t i = 0; i < n; ++i)
            __asm__ volatile("add $1, %0\\n\\tadd $1, %0\\n\\tadd $1, %0\\n\\tadd $1, %0" : "+r"(x));
        return x;
    }
    """
    uint64_t dependent_adds "poki_dependent_adds"(uint64_t n) noexcept nogil

cdef extern from "immintrin.h":
    uint64_t pdep64 "_pdep_u64"(uint64_t a, uint64_t mask) noexcept nogil

cdef extern from "_call_floor.h":
    object floor_call_setup "poki_floor_call_setup"(
        const uint16_t* offsets, size_t offsets_size, const uint16_t* values, size_t values_size,
        const uint16_t* flush, size_t flush_size, const uint16_t* order, int* huge, uintptr_t* address)

cdef const EvalTables* T = eval_tables()


def clock_cycles(uint64_t n) -> int:
    """Run 4 * n dependent adds (one cycle each); returns their sum, 4 * n."""
    cdef uint64_t r
    with nogil:
        r = dependent_adds(n)
    return r


def rank_sums(masks) -> np.ndarray:
    """The rank-key sum of each mask (uint32), as the hash reads it."""
    cdef const uint64_t[::1] m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    out = np.empty(m.shape[0], dtype=np.uint32)
    cdef uint32_t[::1] o = out
    cdef Py_ssize_t i
    cdef uint64_t x
    for i in range(m.shape[0]):
        x = m[i]
        o[i] = (T.suit_words[x & 0x1fff] + T.suit_words[(x >> 16) & 0x1fff]
                + T.suit_words[(x >> 32) & 0x1fff] + T.suit_words[(x >> 48) & 0x1fff]) & RANK_SUM_MASK
    return out


def value_indexes(sums) -> np.ndarray:
    """Where the perfect hash puts each rank-key sum in the value table (uint32)."""
    cdef const uint32_t[::1] s = np.ascontiguousarray(sums, dtype=np.uint32)
    out = np.empty(s.shape[0], dtype=np.uint32)
    cdef uint32_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(s.shape[0]):
        o[i] = rank_index(T, s[i])
    return out


def reads_only_one(index, uint16_t[::1] out) -> None:
    """out[i] = the value table at index[i] (one read per hand)."""
    cdef const uint32_t[::1] k = index
    cdef Py_ssize_t i, n = k.shape[0]
    with nogil:
        for i in range(n):
            out[i] = T.rank_values[k[i]]


def reads_only_hash(sums, uint16_t[::1] out) -> None:
    """out[i] = the perfect hash of sums[i] (two dependent reads per hand)."""
    cdef const uint32_t[::1] k = sums
    cdef Py_ssize_t i, n = k.shape[0]
    cdef uint32_t s
    with nogil:
        for i in range(n):
            s = k[i]
            out[i] = rank_value(T, s)


def keys_from_masks(masks, uint32_t[::1] out) -> None:
    """out[i] = the suit-word sum of masks[i] (four reads of the 32 KB suit-word table)."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint64_t x
    with nogil:
        for i in range(n):
            x = m[i]
            out[i] = (T.suit_words[x & 0x1fff] + T.suit_words[(x >> 16) & 0x1fff]
                      + T.suit_words[(x >> 32) & 0x1fff] + T.suit_words[(x >> 48) & 0x1fff])


def stream_only(masks, uint16_t[::1] out) -> None:
    """out[i] = the low 16 bits of masks[i]: the batch API's memory traffic alone."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    with nogil:
        for i in range(n):
            out[i] = <uint16_t>(m[i] ^ (m[i] >> 16))


def keys_bitsliced(masks, uint64_t[::1] out) -> None:
    """out[i] = the per-rank card counts of masks[i] as three 13-bit planes (a bit-sliced
    adder of the four suit words): a key of the ranks computed with no table read."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint64_t x, a, b, c, d, s1, c1, s2, c2, k
    with nogil:
        for i in range(n):
            x = m[i]
            a = x & 0x1fff
            b = (x >> 16) & 0x1fff
            c = (x >> 32) & 0x1fff
            d = x >> 48
            s1 = a ^ b
            c1 = a & b
            s2 = c ^ d
            c2 = c & d
            k = s1 & s2
            out[i] = (s1 ^ s2) | ((c1 ^ c2 ^ k) << 13) | (((c1 & c2) | ((c1 ^ c2) & k)) << 26)


# The alternatives measured beside the kernels kept in _core.

def alt_key_branch_inline(keys, masks, uint16_t[::1] out) -> None:
    """The flush branch without a hint (the compiler lays the flush path inline)."""
    cdef const uint64_t[::1] k = keys
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint64_t fb
    with nogil:
        for i in range(n):
            fb = k[i] & (0x8888ULL << 32)
            if fb:
                out[i] = T.flush_values[key_flush_word(k[i], m[i])]
            else:
                out[i] = rank_value(T, <uint32_t>k[i])


def alt_key_select(keys, masks, uint16_t[::1] out) -> None:
    """Branch-free: the flush value (0 without a flush) and the rank value both read,
    one selected."""
    cdef const uint64_t[::1] k = keys
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint16_t f, p
    with nogil:
        for i in range(n):
            f = T.flush_values[key_flush_word(k[i], m[i])]
            p = rank_value(T, <uint32_t>k[i])
            out[i] = f if f else p


def alt_key_fixup(keys, masks, uint16_t[::1] out) -> None:
    """Blocks of 256: rank values for all, then the flushes (listed branch-free) fixed."""
    cdef const uint64_t[::1] k = keys
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, j, n = m.shape[0], b, e
    cdef uint32_t fl[256]
    cdef int nf
    with nogil:
        b = 0
        while b < n:
            e = b + 256 if b + 256 < n else n
            nf = 0
            for i in range(b, e):
                out[i] = rank_value(T, <uint32_t>k[i])
                fl[nf] = <uint32_t>(i - b)
                nf += (k[i] & (0x8888ULL << 32)) != 0
            for j in range(nf):
                i = b + fl[j]
                out[i] = T.flush_values[key_flush_word(k[i], m[i])]
            b = e


def alt_mask_select(masks, uint16_t[::1] out) -> None:
    """Branch-free from masks: both the rank value and the four words' flush values read,
    one selected."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint64_t x
    cdef uint32_t e
    cdef uint16_t f, p
    with nogil:
        for i in range(n):
            x = m[i]
            e = suit_sum(T, x)
            p = rank_value(T, e)
            f = (T.flush_values[x & 0x1fff] | T.flush_values[(x >> 16) & 0x1fff]
                 | T.flush_values[(x >> 32) & 0x1fff] | T.flush_values[(x >> 48) & 0x1fff])
            out[i] = f if f else p


def alt_mask_staged(masks, uint16_t[::1] out) -> None:
    """Blocks of 256 in stages: suit-word sums into a buffer with a branch-free list of
    the flushes, then the hash reads, then the flushes."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, j, n = m.shape[0], b, e
    cdef uint32_t sums[256]
    cdef uint32_t fl[256]
    cdef uint32_t s
    cdef uint64_t x
    cdef int nf
    with nogil:
        b = 0
        while b < n:
            e = b + 256 if b + 256 < n else n
            nf = 0
            for i in range(b, e):
                s = suit_sum(T, m[i])
                sums[i - b] = s
                fl[nf] = <uint32_t>(i - b)
                nf += (s >> 25) & 1
            for i in range(b, e):
                out[i] = rank_value(T, sums[i - b])
            for j in range(nf):
                x = m[b + fl[j]]
                out[b + fl[j]] = (T.flush_values[x & 0x1fff] | T.flush_values[(x >> 16) & 0x1fff]
                                  | T.flush_values[(x >> 32) & 0x1fff] | T.flush_values[(x >> 48) & 0x1fff])
            b = e


def alt_mask_fixup(masks, uint16_t[::1] out) -> None:
    """Blocks of 256 in one pass: suit-word sum and rank value per hand, flushes listed
    branch-free and fixed after the block."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, j, n = m.shape[0], b, e
    cdef uint32_t fl[256]
    cdef uint32_t s
    cdef uint64_t x
    cdef int nf
    with nogil:
        b = 0
        while b < n:
            e = b + 256 if b + 256 < n else n
            nf = 0
            for i in range(b, e):
                s = suit_sum(T, m[i])
                out[i] = rank_value(T, s)
                fl[nf] = <uint32_t>(i - b)
                nf += (s >> 25) & 1
            for j in range(nf):
                x = m[b + fl[j]]
                out[b + fl[j]] = (T.flush_values[x & 0x1fff] | T.flush_values[(x >> 16) & 0x1fff]
                                  | T.flush_values[(x >> 32) & 0x1fff] | T.flush_values[(x >> 48) & 0x1fff])
            b = e


def alt_key_staged(keys, masks, uint16_t[::1] out) -> None:
    """Blocks of 256: hash indexes (offset reads), then the value reads, then the flushes."""
    cdef const uint64_t[::1] k = keys
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, j, n = m.shape[0], b, e
    cdef uint32_t idx[256]
    cdef uint32_t fl[256]
    cdef int nf
    with nogil:
        b = 0
        while b < n:
            e = b + 256 if b + 256 < n else n
            nf = 0
            for i in range(b, e):
                idx[i - b] = rank_index(T, <uint32_t>k[i])
                fl[nf] = <uint32_t>(i - b)
                nf += (k[i] & (0x8888ULL << 32)) != 0
            for i in range(b, e):
                out[i] = T.rank_values[idx[i - b]]
            for j in range(nf):
                i = b + fl[j]
                out[i] = T.flush_values[key_flush_word(k[i], m[i])]
            b = e


def alt_mask_simple(masks, uint16_t[::1] out) -> None:
    """One pass, hand by hand: evaluate_mask (flush test and branch per hand)."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    with nogil:
        for i in range(n):
            out[i] = evaluate_mask(T, m[i])


@cython.binding(False)     # the same kind of builtin function as _core.evaluate
def noop(x):
    """Returns its argument: the cost of calling one of our METH_O functions at all."""
    return x


def call_variants(order) -> tuple:
    """({name: METH_O builtin}, advice, address) for the single call's tried variants
    (_call_floor.h). order: the value of each object slot in the frequency layout, a
    permutation of 0..7462 (most frequent values first). advice: 1 if madvise accepted
    MADV_HUGEPAGE for the mapping at address, 0 if not, -1 if there is no mapping (the
    huge-page variants then read the ordinary tables). Empty on builds without CPython
    3.11's int layout."""
    cdef const uint16_t[::1] o = np.ascontiguousarray(order, dtype=np.uint16)
    if o.shape[0] != 7463 or o[0] != 0 or sorted(np.asarray(o).tolist()) != list(range(7463)):
        # (0 first: a flush's value is the OR of its four suit words' entries, 0 but one)
        raise ValueError("order must be a permutation of 0..7462 starting with 0")
    cdef int huge = -1
    cdef uintptr_t address = 0
    funcs = floor_call_setup(T.count_offsets, sizeof(T.count_offsets), T.count_values,
                             sizeof(T.count_values), T.flush_values, sizeof(T.flush_values),
                             &o[0], &huge, &address)
    return funcs, huge, address


def alt_mask_group4(masks, uint16_t[::1] out) -> None:
    """Four hands per iteration: four suit-word sums, one flush test for the four, then
    four independent hash lookups (_core's loop from masks before the count key, kept
    there for builds without AVX2), unchecked."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t n = m.shape[0]
    if n == 0:
        return
    with nogil:
        masks_loop(T, &m[0], &out[0], n, False)


def alt_key_group8(keys, masks, uint16_t[::1] out) -> None:
    """Eight hands per iteration, one flush test for the eight keys together."""
    cdef const uint64_t[::1] k = keys
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, j, n = m.shape[0], n8 = n & ~(<Py_ssize_t>7)
    cdef uint64_t any_flush
    with nogil:
        for i in range(0, n8, 8):
            any_flush = (k[i] | k[i + 1] | k[i + 2] | k[i + 3] | k[i + 4] | k[i + 5] | k[i + 6]
                         | k[i + 7]) & (0x8888ULL << 32)
            if unlikely(any_flush):
                for j in range(i, i + 8):
                    out[j] = evaluate_key(T, k[j], m[j])
            else:
                for j in range(i, i + 8):
                    out[j] = rank_value(T, <uint32_t>k[j])
        for i in range(n8, n):
            out[i] = evaluate_key(T, k[i], m[i])


def alt_key_one_test(keys, masks, uint16_t[::1] out) -> None:
    """One hand per iteration, its flush test a branch laid out of line (evaluate_key)."""
    cdef const uint64_t[::1] k = keys
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    with nogil:
        for i in range(n):
            out[i] = evaluate_key(T, k[i], m[i])


def alt_key_group4(keys, masks, uint16_t[::1] out) -> None:
    """Four hands per iteration: one flush test for the four keys together (taken for
    about 12% of random groups), then four hash lookups with no branch between them."""
    cdef const uint64_t[::1] k = keys
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0], n4 = n & ~(<Py_ssize_t>3)
    cdef uint64_t a, b, c, d, ma, mb, mc, md
    with nogil:
        for i in range(0, n4, 4):
            a = k[i]
            b = k[i + 1]
            c = k[i + 2]
            d = k[i + 3]
            # every mask read, so the mask array streams (docs/kernels.md)
            ma = m[i]
            mb = m[i + 1]
            mc = m[i + 2]
            md = m[i + 3]
            if unlikely((a | b | c | d) & (0x8888ULL << 32)):
                out[i] = evaluate_key(T, a, ma)
                out[i + 1] = evaluate_key(T, b, mb)
                out[i + 2] = evaluate_key(T, c, mc)
                out[i + 3] = evaluate_key(T, d, md)
            else:
                out[i] = rank_value(T, <uint32_t>a)
                out[i + 1] = rank_value(T, <uint32_t>b)
                out[i + 2] = rank_value(T, <uint32_t>c)
                out[i + 3] = rank_value(T, <uint32_t>d)
        for i in range(n4, n):
            out[i] = evaluate_key(T, k[i], m[i])


# The count-key design: the key of a hand's ranks computed from its mask with no table
# (a bit-sliced adder of the suit words, count_hash), its multiply hash, then the two reads.

def count_keys_only(masks, uint32_t[::1] out) -> None:
    """out[i] = the count-key hash of masks[i] | its flush flag: every ALU step of the
    count-key design, no table read."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint64_t x
    with nogil:
        for i in range(n):
            x = m[i]
            out[i] = count_hash(x) | <uint32_t>(flush_lanes(x) != 0) << 31


def pdep_keys_only(masks, uint64_t[::1] out) -> None:
    """out[i] = the per-rank counts of masks[i] as 13 nibbles, each suit word spread by
    PDEP and the four summed: the counts count_hash gets by its adder, by BMI2 instead."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint64_t x
    with nogil:
        for i in range(n):
            x = m[i]
            out[i] = (pdep64(x & 0x1fff, 0x1111111111111ULL) + pdep64((x >> 16) & 0x1fff, 0x1111111111111ULL)
                      + pdep64((x >> 32) & 0x1fff, 0x1111111111111ULL) + pdep64(x >> 48, 0x1111111111111ULL))


def reads_only_count(hashes, uint16_t[::1] out) -> None:
    """out[i] = the count-key table at hash hashes[i] (its two dependent reads)."""
    cdef const uint32_t[::1] k = hashes
    cdef Py_ssize_t i, n = k.shape[0]
    with nogil:
        for i in range(n):
            out[i] = T.count_values[count_index(T, k[i])]


def cnt_mask_simple(masks, uint16_t[::1] out) -> None:
    """Count key, one hand per iteration, its flush test a branch laid out of line."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, n = m.shape[0]
    cdef uint64_t x
    with nogil:
        for i in range(n):
            x = m[i]
            if unlikely(flush_lanes(x)):
                out[i] = flush_value_of_mask(T.flush_values, x)
            else:
                out[i] = count_value(T, x)


def cnt_mask_group4(masks, uint16_t[::1] out) -> None:
    """Count key, four hands per iteration under one flush test."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, j, n = m.shape[0], n4 = n & ~(<Py_ssize_t>3)
    cdef uint64_t a, b, c, d
    with nogil:
        for i in range(0, n4, 4):
            a = m[i]
            b = m[i + 1]
            c = m[i + 2]
            d = m[i + 3]
            if unlikely(flush_lanes(a) | flush_lanes(b) | flush_lanes(c) | flush_lanes(d)):
                for j in range(i, i + 4):
                    out[j] = flush_value_of_mask(T.flush_values, m[j]) if flush_lanes(m[j]) else count_value(T, m[j])
            else:
                out[i] = count_value(T, a)
                out[i + 1] = count_value(T, b)
                out[i + 2] = count_value(T, c)
                out[i + 3] = count_value(T, d)
        for i in range(n4, n):
            out[i] = flush_value_of_mask(T.flush_values, m[i]) if flush_lanes(m[i]) else count_value(T, m[i])


def cnt_mask_staged(masks, uint16_t[::1] out) -> None:
    """Count key in blocks of 64: the hashes and flush flags of the block first (a loop
    the compiler vectorises), then the two reads per hand, then the block's flushes."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t i, j, n = m.shape[0], b, e
    cdef uint32_t h[64]
    cdef uint64_t fl
    with nogil:
        b = 0
        while b < n:
            e = b + 64 if b + 64 < n else n
            fl = 0
            for i in range(b, e):
                h[i - b] = count_hash(m[i])
                fl |= flush_lanes(m[i])
            for i in range(b, e):
                out[i] = T.count_values[count_index(T, h[i - b])]
            if fl:
                for i in range(b, e):
                    if flush_lanes(m[i]):
                        out[i] = flush_value_of_mask(T.flush_values, m[i])
            b = e


def cnt_batch(masks, uint16_t[::1] out, bint check) -> bool:
    """The count-key batch kernel (_count_batch.h)."""
    cdef const uint64_t[::1] m = masks
    cdef Py_ssize_t n = m.shape[0]
    cdef int good
    with nogil:
        if check:
            good = count_batch_checked(T.count_offsets, T.count_values, T.flush_values, &m[0], &out[0], n)
        else:
            good = count_batch_unchecked(T.count_offsets, T.count_values, T.flush_values, &m[0], &out[0], n)
    return good != 0
