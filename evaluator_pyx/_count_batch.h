/* Evaluation of 5-7 card masks by the count key (evaluator_pyx._core; docs/kernels.md).
 *
 * A hand's non-flush value depends only on how many cards it holds of each rank. Those
 * counts are computed from the mask with no table: a bit-sliced adder of the four 13-bit
 * suit words (the card layout of [west-2005]) gives
 * them as three bit planes; a multiply hash of the planes has no collision among the
 * 73,775 rank multisets of 5-7 cards and splits into a row and a column of a
 * row-displacement table (two dependent reads: 16 KB of row offsets, in L1, then about
 * 215 KB of 16-bit values, in L2). The flush test is a popcount per suit word, also with
 * no table; a flush goes to one more row of the same table, its column the flush suit's
 * word, so a flush costs no branch.
 *
 * The batch kernel takes sixteen hands a step: their masks transposed so one AVX2
 * register holds one suit's word of all sixteen (a 16-bit lane each), the adder, the
 * popcounts and the flush select then cost one instruction per sixteen hands, and the
 * hash two 32-bit multiplies per eight. Each block's rows and columns go through a small
 * buffer to the scalar reads, which run after the next block's arithmetic. A machine
 * without AVX2 runs the same steps one hand at a time (poki_cb_one).
 *
 * poki_count_batch_checked returns 1 when every mask is 5-7 cards with no stray bits
 * (the caller then finds and names the first bad one); _unchecked always returns 1.
 * Whatever the masks, every read stays inside the tables.
 */
#ifndef POKI_COUNT_BATCH_H
#define POKI_COUNT_BATCH_H

#include <stdint.h>
#include <stddef.h>
#if defined(__AVX2__)
#include <immintrin.h>
#define POKI_CB_VECTOR 1
#else
#define POKI_CB_VECTOR 0
#endif

/* The hash of a count key's bit planes b0, b1, b2 (13 bits each):
   h = ((b0 + 2**16 b1) MA + b2 MB) mod 2**32; its top 13 bits are the row, the 12 below
   the column (the low bits of a product depend only on the low bits of its factors, so
   the row is taken from the top). These multipliers make row and column together
   distinct for every multiset of 5-7 ranks, with at most 19 multisets to a row (found
   by a random search; _core's table builder checks it at import and refuses the
   tables otherwise). */
#define POKI_CB_MA 0xf73fdd95u
#define POKI_CB_MB 0x479d8387u
#define POKI_CB_VALID 0x1fff1fff1fff1fffULL
/* The row of the count table that holds the flush values by suit word (_core.pxd). */
#define POKI_CB_FLUSH_ROW 8192

/* The 25-bit hash of a mask's count key: the per-rank counts as three bit planes by a
   bit-sliced adder on the mask's four 16-bit lanes [a, b, c, d] at once. y = x >> 16 is
   [b, c, d, 0], so s = x ^ y holds a^b in lane 0 and c^d in lane 2, cr = x & y holds
   a&b and c&d there. The count is (a^b) + (c^d) + 2 (a&b) + 2 (c&d): bit 0 a^b^c^d;
   with the carry k = (a^b) & (c^d), bit 1 (a&b) ^ (c&d) ^ k and bit 2 (a&b) & (c&d)
   (k excludes both carries, so bit 2 has no other term). Lane 0 of each is kept. */
static inline uint32_t poki_cb_planes_hash(uint32_t b0, uint32_t b1, uint32_t b2)
{
    uint32_t h = (b0 | (b1 << 16)) * POKI_CB_MA + b2 * POKI_CB_MB;
    return (h >> 19) | (((h >> 7) & 0xfff) << 13);    /* row | column << 13 */
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

#if defined(__AVX2__)
/* Sixteen hands: their rows and columns (r, c; a flush's row is POKI_CB_FLUSH_ROW and
   its column the flush suit's word), in the word order of the transposed registers
   (poki_cb_hand gives the hand of each word); with check, ORs into *bad a nonzero word
   for any mask that is not 5-7 cards without stray bits. */
static inline __attribute__((always_inline)) void
poki_cb_block16(const uint64_t* m, uint16_t* r, uint16_t* c, __m256i* bad, const int check)
{
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i bits_of = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                             0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    /* per 128-bit half (two hands [a b c d]): [a a b b c c d d] */
    const __m256i by_suit = _mm256_setr_epi8(0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15,
                                             0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15);
    const __m256i ones8 = _mm256_set1_epi8(1), zero = _mm256_setzero_si256();
    const __m256i ma = _mm256_set1_epi32((int)POKI_CB_MA), mb = _mm256_set1_epi32((int)POKI_CB_MB);
    const __m256i low12 = _mm256_set1_epi32(0xfff);
    const __m256i flush_row = _mm256_set1_epi16(POKI_CB_FLUSH_ROW);
    __m256i x0 = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i*)m), by_suit);
    __m256i x1 = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i*)(m + 4)), by_suit);
    __m256i x2 = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i*)(m + 8)), by_suit);
    __m256i x3 = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i*)(m + 12)), by_suit);
    __m256i l01 = _mm256_unpacklo_epi32(x0, x1), h01 = _mm256_unpackhi_epi32(x0, x1);
    __m256i l23 = _mm256_unpacklo_epi32(x2, x3), h23 = _mm256_unpackhi_epi32(x2, x3);
    /* each suit's 13-bit words of the sixteen hands, one per 16-bit lane */
    __m256i a = _mm256_unpacklo_epi64(l01, l23), b = _mm256_unpackhi_epi64(l01, l23);
    __m256i c_ = _mm256_unpacklo_epi64(h01, h23), d = _mm256_unpackhi_epi64(h01, h23);
    /* the bit-sliced adder (poki_cb_hash), sixteen hands per operation */
    __m256i s1 = _mm256_xor_si256(a, b), c1 = _mm256_and_si256(a, b);
    __m256i s2 = _mm256_xor_si256(c_, d), c2 = _mm256_and_si256(c_, d);
    __m256i b0 = _mm256_xor_si256(s1, s2);
    __m256i b1 = _mm256_xor_si256(_mm256_xor_si256(c1, c2), _mm256_and_si256(s1, s2));
    __m256i b2 = _mm256_and_si256(c1, c2);
    /* the hash in 32-bit lanes: words 0-3 of each half, then words 4-7 */
    __m256i hl = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_unpacklo_epi16(b0, b1), ma),
                                  _mm256_mullo_epi32(_mm256_unpacklo_epi16(b2, zero), mb));
    __m256i hh = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_unpackhi_epi16(b0, b1), ma),
                                  _mm256_mullo_epi32(_mm256_unpackhi_epi16(b2, zero), mb));
    /* back to the words' order (the pack undoes the unpacks) */
    __m256i row = _mm256_packus_epi32(_mm256_srli_epi32(hl, 19), _mm256_srli_epi32(hh, 19));
    __m256i col = _mm256_packus_epi32(_mm256_and_si256(_mm256_srli_epi32(hl, 7), low12),
                                      _mm256_and_si256(_mm256_srli_epi32(hh, 7), low12));
    /* cards per suit word (popcount by nibbles), 5+ is a flush; the flush suit's word */
#define POKI_CB_SUIT_CARDS(v) _mm256_maddubs_epi16(_mm256_add_epi8(                         \
        _mm256_shuffle_epi8(bits_of, _mm256_and_si256((v), nibble)),                        \
        _mm256_shuffle_epi8(bits_of, _mm256_and_si256(_mm256_srli_epi16((v), 4), nibble))), ones8)
    __m256i na = POKI_CB_SUIT_CARDS(a), nb = POKI_CB_SUIT_CARDS(b);
    __m256i nc = POKI_CB_SUIT_CARDS(c_), nd = POKI_CB_SUIT_CARDS(d);
#undef POKI_CB_SUIT_CARDS
    const __m256i four = _mm256_set1_epi16(4);
    /* (masked to 13 bits: a mask with stray bits must still read inside the table) */
    __m256i fw = _mm256_and_si256(_mm256_or_si256(
        _mm256_or_si256(_mm256_and_si256(a, _mm256_cmpgt_epi16(na, four)),
                        _mm256_and_si256(b, _mm256_cmpgt_epi16(nb, four))),
        _mm256_or_si256(_mm256_and_si256(c_, _mm256_cmpgt_epi16(nc, four)),
                        _mm256_and_si256(d, _mm256_cmpgt_epi16(nd, four)))), _mm256_set1_epi16(0x1fff));
    __m256i no_flush = _mm256_cmpeq_epi16(fw, zero);
    _mm256_storeu_si256((__m256i*)r, _mm256_blendv_epi8(flush_row, row, no_flush));
    _mm256_storeu_si256((__m256i*)c, _mm256_blendv_epi8(fw, col, no_flush));
    if (check) {
        /* 5..7 cards, and no bit of 13-15 in any word */
        __m256i cards = _mm256_add_epi16(_mm256_add_epi16(na, nb), _mm256_add_epi16(nc, nd));
        __m256i stray = _mm256_and_si256(_mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c_, d)),
                                         _mm256_set1_epi16((short)0xe000));
        *bad = _mm256_or_si256(*bad, _mm256_or_si256(stray, _mm256_or_si256(
            _mm256_cmpgt_epi16(cards, _mm256_set1_epi16(7)),
            _mm256_cmpgt_epi16(_mm256_set1_epi16(5), cards))));
    }
}

/* Word w of the transposed registers holds hand 4 ((w >> 1) & 3) + 2 (w >> 3) + (w & 1):
   half w >> 3 of register (w >> 1) & 3, its hand w & 1 there. */
#define poki_cb_hand(w) (4 * (((w) >> 1) & 3) + 2 * ((w) >> 3) + ((w) & 1))

/* The hash's two reads for the sixteen hands of a block (a flush's row is the flush row). */
static inline __attribute__((always_inline)) void
poki_cb_reads(const uint16_t* offsets, const uint16_t* values, const uint16_t* r, const uint16_t* c,
              uint16_t* out)
{
#define POKI_CB_READ(w) out[poki_cb_hand(w)] = values[c[w] + 2 * (uint32_t)offsets[r[w]]]
    POKI_CB_READ(0); POKI_CB_READ(1); POKI_CB_READ(2); POKI_CB_READ(3);
    POKI_CB_READ(4); POKI_CB_READ(5); POKI_CB_READ(6); POKI_CB_READ(7);
    POKI_CB_READ(8); POKI_CB_READ(9); POKI_CB_READ(10); POKI_CB_READ(11);
    POKI_CB_READ(12); POKI_CB_READ(13); POKI_CB_READ(14); POKI_CB_READ(15);
#undef POKI_CB_READ
}
#endif

static inline __attribute__((always_inline)) int
poki_count_batch_impl(const uint16_t* offsets, const uint16_t* values, const uint16_t* flush_values,
                      const uint64_t* m, uint16_t* out, ptrdiff_t n, const int check)
{
    ptrdiff_t i = 0;
    int good = 1;
#if defined(__AVX2__)
    __m256i bad = _mm256_setzero_si256();
    /* Rows and columns of two blocks: each block's reads run after the next block's
       arithmetic, so its 16-bit loads do not wait on the vector stores just made (a
       32-byte store is not forwarded to them; reading the block just stored measured
       10-20% slower). */
    uint16_t rows[2][16] __attribute__((aligned(32))), cols[2][16] __attribute__((aligned(32)));
    int cur = 0;
    ptrdiff_t prev = -1;
    for (; i + 16 <= n; i += 16) {
        poki_cb_block16(m + i, rows[cur], cols[cur], &bad, check);
        /* Through memory: without this the compiler moves each field from the vector
           registers with two-uop extracts (vpextrw), slower than a store and 16-bit loads. */
        __asm__ volatile("" : : : "memory");
        if (prev >= 0)
            poki_cb_reads(offsets, values, rows[cur ^ 1], cols[cur ^ 1], out + prev);
        prev = i;
        cur ^= 1;
    }
    if (prev >= 0)
        poki_cb_reads(offsets, values, rows[cur ^ 1], cols[cur ^ 1], out + prev);
    if (check && !_mm256_testz_si256(bad, bad))
        good = 0;
#endif
    for (; i < n; ++i) {
        out[i] = poki_cb_one(offsets, values, flush_values, m[i]);
        if (check)
            good &= poki_cb_good(m[i]);
    }
    return good;
}

/* Functions of their own (not inlined into the Python wrapper, where the placement of
   the loop moved its speed by a quarter between the checked and unchecked copies). */
__attribute__((noinline, aligned(64))) static int poki_count_batch_checked(const uint16_t* offsets, const uint16_t* values,
                                    const uint16_t* flush_values, const uint64_t* m, uint16_t* out,
                                    ptrdiff_t n)
{
    return poki_count_batch_impl(offsets, values, flush_values, m, out, n, 1);
}

__attribute__((noinline, aligned(64))) static int poki_count_batch_unchecked(const uint16_t* offsets, const uint16_t* values,
                                      const uint16_t* flush_values, const uint64_t* m, uint16_t* out,
                                      ptrdiff_t n)
{
    return poki_count_batch_impl(offsets, values, flush_values, m, out, n, 0);
}

#endif
