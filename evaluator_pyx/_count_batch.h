/* Batch evaluation of 5-7 card masks by the count key (evaluator_pyx._core, docs/kernels.md).
 *
 * A hand's non-flush value depends only on how many cards it holds of each rank. The
 * counts are computed from the mask with no table: a bit-sliced adder of the four 13-bit
 * suit words gives them as three bit planes (the count key, count_key in _core.pxd), a
 * multiply-shift hashes that key to 25 bits without collisions among the 73,775 rank
 * multisets of 5-7 cards, and a row-displacement table (two dependent reads, 16 KB of
 * row offsets in L1, ~200 KB of values in L2) gives the value. The flush test is a
 * per-suit popcount, also without a table; the rare flushes (3% of random hands) are
 * valued after their block from the per-suit-word flush table.
 *
 * The arithmetic part runs on four hands at once in AVX2 registers (the vector units
 * and the load ports are separate, so the reads of one block overlap the arithmetic of
 * the next); a machine without AVX2 runs the same steps one hand at a time.
 *
 * poki_count_batch(...) returns 1 when every mask is 5-7 cards with no stray bits (with
 * check; always 1 without it): the caller then finds and names the first bad one.
 */
#ifndef POKI_COUNT_BATCH_H
#define POKI_COUNT_BATCH_H

#include <stdint.h>
#include <stddef.h>
#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* The hash of a count key's bit planes b0, b1, b2: (b0 M0 + b1 M1 + b2 M2) mod 2**32,
   its top 25 bits. These multipliers make it distinct for every multiset of 5-7 ranks
   (found by a random search; _core's table builder checks it at import). */
#define POKI_CB_M0 0x71988ad5u
#define POKI_CB_M1 0xa9b01363u
#define POKI_CB_M2 0xfe9a2f13u
#define POKI_CB_VALID 0x1fff1fff1fff1fffULL
/* The row of the count table that holds the flush values by suit word (_core.pxd). */
#define POKI_CB_FLUSH_ROW 8192
/* Hands per block: their hashes and flush flags first, then the reads. */
#ifndef POKI_CB_BLOCK
#define POKI_CB_BLOCK 16
#endif

/* The 25-bit hash of a mask's count key: the per-rank counts as three bit planes by a
   bit-sliced adder on the mask's four 16-bit lanes [a, b, c, d] at once. y = x >> 16 is
   [b, c, d, 0], so s = x ^ y holds a^b in lane 0 and c^d in lane 2, cr = x & y holds
   a&b and c&d there. The count is (a^b) + (c^d) + 2 (a&b) + 2 (c&d): bit 0 a^b^c^d;
   with the carry k = (a^b) & (c^d), bit 1 (a&b) ^ (c&d) ^ k and bit 2 (a&b) & (c&d)
   (k excludes both carries, so bit 2 has no other term). Lane 0 of each is kept. */
static inline uint32_t poki_cb_planes_hash(uint32_t b0, uint32_t b1, uint32_t b2)
{
    return (b0 * POKI_CB_M0 + b1 * POKI_CB_M1 + b2 * POKI_CB_M2) >> 7;
}

static inline uint32_t poki_cb_hash(uint64_t x)
{
    uint64_t y = x >> 16, s = x ^ y, cr = x & y, s2 = s >> 32, cr2 = cr >> 32;
    return poki_cb_planes_hash((uint32_t)(s ^ s2) & 0x1fff, (uint32_t)(cr ^ cr2 ^ (s & s2)) & 0x1fff,
                               (uint32_t)(cr & cr2) & 0x1fff);
}

static inline uint64_t poki_cb_flush(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    x = x + (x >> 8);
    return (x + 0x0003000300030003ULL) & 0x0008000800080008ULL;
}

static inline uint16_t poki_cb_flush_value(const uint16_t* flush_values, uint64_t x)
{
    return flush_values[x & 0x1fff] | flush_values[(x >> 16) & 0x1fff]
         | flush_values[(x >> 32) & 0x1fff] | flush_values[(x >> 48) & 0x1fff];
}

static inline uint16_t poki_cb_lookup(const uint16_t* offsets, const uint16_t* values, uint32_t h)
{
    return values[(h >> 13) + 2 * (uint32_t)offsets[h & 0x1fff]];
}

/* One hand, every step (the tail of a batch and the machines without AVX2). */
static inline uint16_t poki_cb_one(const uint16_t* offsets, const uint16_t* values,
                                   const uint16_t* flush_values, uint64_t x)
{
    if (__builtin_expect(poki_cb_flush(x) != 0, 0))
        return poki_cb_flush_value(flush_values, x);
    return poki_cb_lookup(offsets, values, poki_cb_hash(x));
}

static inline int poki_cb_good(uint64_t x)
{
    unsigned n = (unsigned)__builtin_popcountll(x);
    return (x & ~POKI_CB_VALID) == 0 && n - 5u <= 2u;
}

static inline __attribute__((always_inline)) int
poki_count_batch_impl(const uint16_t* offsets, const uint16_t* values, const uint16_t* flush_values,
                      const uint64_t* m, uint16_t* out, ptrdiff_t n, const int check)
{
    ptrdiff_t i = 0, j;
    int good = 1;
#if defined(__AVX2__)
    const __m256i low13 = _mm256_set1_epi64x(0x1fff);
    const __m256i col_bits = _mm256_set1_epi64x(0x0fff0000);
    const __m256i col_field = _mm256_set1_epi64x(0x1fff0000);
    const __m256i flush_row = _mm256_set1_epi64x(POKI_CB_FLUSH_ROW);
    const __m256i m0 = _mm256_set1_epi64x(POKI_CB_M0), m1 = _mm256_set1_epi64x(POKI_CB_M1);
    const __m256i m2 = _mm256_set1_epi64x(POKI_CB_M2);
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i bits_of = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                             0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i ones8 = _mm256_set1_epi8(1);
    const __m256i four16 = _mm256_set1_epi16(4);
    const __m256i stray_bits = _mm256_set1_epi64x((long long)~POKI_CB_VALID);
    const __m256i five = _mm256_set1_epi64x(5), seven = _mm256_set1_epi64x(7);
    __m256i stray = _mm256_setzero_si256(), bad_count = _mm256_setzero_si256();
    /* Per hand of the block: the row and column of its value (16-bit fields the second
       loop reads with no arithmetic). */
    uint16_t h[POKI_CB_BLOCK][4];
    for (; i + POKI_CB_BLOCK <= n; i += POKI_CB_BLOCK) {
        for (j = 0; j < POKI_CB_BLOCK; j += 4) {
            __m256i x = _mm256_loadu_si256((const __m256i*)(m + i + j));
            /* the bit planes as in poki_cb_hash, four hands at a time */
            __m256i y = _mm256_srli_epi64(x, 16);
            __m256i s = _mm256_xor_si256(x, y), cr = _mm256_and_si256(x, y);
            __m256i s2 = _mm256_srli_epi64(s, 32), cr2 = _mm256_srli_epi64(cr, 32);
            __m256i b0 = _mm256_and_si256(_mm256_xor_si256(s, s2), low13);
            __m256i b1 = _mm256_and_si256(_mm256_xor_si256(_mm256_xor_si256(cr, cr2),
                                                           _mm256_and_si256(s, s2)), low13);
            __m256i b2 = _mm256_and_si256(cr, cr2);
            /* low 32 bits of each 64-bit lane: the 32-bit hash (the high half is unused) */
            __m256i hash = _mm256_add_epi32(_mm256_add_epi32(_mm256_mul_epu32(b0, m0),
                                                             _mm256_mul_epu32(b1, m1)),
                                            _mm256_mul_epu32(b2, m2));
            /* row = bits 7-19 into field 0, column = bits 20-31 into field 1 */
            __m256i rc = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi32(hash, 7), low13),
                                         _mm256_and_si256(_mm256_srli_epi32(hash, 4), col_bits));
            /* per-byte popcounts, then per suit word (16-bit lane): 5+ is a flush */
            __m256i pc = _mm256_add_epi8(
                _mm256_shuffle_epi8(bits_of, _mm256_and_si256(x, nibble)),
                _mm256_shuffle_epi8(bits_of, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble)));
            __m256i suits = _mm256_maddubs_epi16(pc, ones8);
            /* A flush goes to the flush row (POKI_CB_FLUSH_ROW), its column the flush
               suit's word: the flagged lane of x, the four lanes ORed into field 1. */
            __m256i w = _mm256_and_si256(x, _mm256_cmpgt_epi16(suits, four16));
            w = _mm256_or_si256(w, _mm256_slli_epi64(w, 32));
            w = _mm256_or_si256(w, _mm256_slli_epi64(w, 16));
            w = _mm256_and_si256(_mm256_srli_epi64(w, 32), col_field);
            __m256i no_flush = _mm256_cmpeq_epi64(w, _mm256_setzero_si256());
            _mm256_storeu_si256((__m256i*)h[j],
                                _mm256_blendv_epi8(_mm256_or_si256(w, flush_row), rc, no_flush));
            if (check) {
                /* cards per hand (stray bits are caught apart): 5..7 */
                __m256i cards = _mm256_sad_epu8(pc, _mm256_setzero_si256());
                stray = _mm256_or_si256(stray, _mm256_and_si256(x, stray_bits));
                bad_count = _mm256_or_si256(bad_count, _mm256_or_si256(
                    _mm256_cmpgt_epi64(five, cards), _mm256_cmpgt_epi64(cards, seven)));
            }
        }
        /* Through memory: without this the compiler moves each field from the vector
           registers with two-uop extracts (vpextrw), slower than a store and 16-bit loads. */
        __asm__ volatile("" : : : "memory");
        /* The hash's two reads (a flush's row is the flush row). */
        for (j = 0; j < POKI_CB_BLOCK; ++j)
            out[i + j] = values[h[j][1] + 2 * (uint32_t)offsets[h[j][0]]];
    }
    if (check && !(_mm256_testz_si256(stray, stray) && _mm256_testz_si256(bad_count, bad_count)))
        good = 0;
#endif
    for (; i < n; ++i) {
        out[i] = poki_cb_one(offsets, values, flush_values, m[i]);
        if (check)
            good &= poki_cb_good(m[i]);
    }
    return good;
}

static int poki_count_batch_checked(const uint16_t* offsets, const uint16_t* values,
                                    const uint16_t* flush_values, const uint64_t* m, uint16_t* out,
                                    ptrdiff_t n)
{
    return poki_count_batch_impl(offsets, values, flush_values, m, out, n, 1);
}

static int poki_count_batch_unchecked(const uint16_t* offsets, const uint16_t* values,
                                      const uint16_t* flush_values, const uint64_t* m, uint16_t* out,
                                      ptrdiff_t n)
{
    return poki_count_batch_impl(offsets, values, flush_values, m, out, n, 0);
}

#endif
