# The row-displacement perfect hash builder of evaluator_pyx._core (included there at
# compile time; it fills tables of _core's EvalTables at import).


# Perfect hash of 25-bit keys, one per multiset of 5-7 ranks (row displacement): a
# key k is split into a row, its low HASH_ROW_BITS bits, and a column, the rest; each
# row gets one displacement so that its columns land on free slots. Rows are placed
# fullest first, each at the first displacement where all its columns are free, tested
# 64 displacements at a time on a bitset of used slots. A row starts its search a little
# before where the last row of the same size went, which keeps the build to a few
# milliseconds. Two such hashes are built: of the rank-key sums (the incremental form's
# keys) and of the count-key hashes (count_hash, from a mask without a table).
cdef enum:
    _SEARCH_BACK = 512


cdef inline uint64_t _window(const uint64_t* bits, uint32_t p) noexcept nogil:
    """Bits p .. p+63 of a bitset."""
    cdef uint32_t w = p >> 6, b = p & 63
    if b == 0:
        return bits[w]
    return (bits[w] >> b) | (bits[w + 1] << (64 - b))


cdef int _pack_hash(const uint32_t* keys, const uint16_t* values, int n, uint16_t* offsets,
                    uint16_t* table, uint32_t* table_used) except -1:
    """Row-displacement perfect hash of n distinct keys below 2**25 (the comment above):
    fills offsets (HASH_ROWS halved displacements) and table (RANK_TABLE_CAPACITY slots,
    key k at (k >> HASH_ROW_BITS) + 2 * offsets[k & HASH_ROW_MASK], unused slots 0)."""
    cdef int i, j, c, max_count = 0
    cdef uint32_t row, d = 0, d0, start, p, size = 0
    cdef uint32_t hint[64]
    cdef uint64_t ok
    cdef int32_t* row_count = NULL
    cdef int32_t* row_start = NULL
    cdef int32_t* order = NULL
    cdef int32_t* fill = NULL
    cdef uint32_t* cols = NULL
    cdef uint16_t* col_values = NULL
    cdef uint64_t* used = NULL
    cdef uint32_t lowfree = 0, tmp_c
    cdef uint16_t tmp_v
    cdef int n_words = (RANK_TABLE_CAPACITY + 2 * 64 * 64) // 64
    cdef int by_count[64]
    try:
        row_count = <int32_t*>calloc(HASH_ROWS, sizeof(int32_t))
        row_start = <int32_t*>calloc(HASH_ROWS + 1, sizeof(int32_t))
        order = <int32_t*>malloc(sizeof(int32_t) * HASH_ROWS)
        fill = <int32_t*>malloc(sizeof(int32_t) * HASH_ROWS)
        cols = <uint32_t*>malloc(sizeof(uint32_t) * n)
        col_values = <uint16_t*>malloc(sizeof(uint16_t) * n)
        used = <uint64_t*>calloc(n_words, sizeof(uint64_t))
        if not (row_count and row_start and order and fill and cols and col_values and used):
            raise MemoryError()

        # Bucket the keys by row, columns ascending within a row.
        for i in range(n):
            if keys[i] > RANK_SUM_MASK:
                raise RuntimeError("evaluator tables: a hash key above 2**25")
            row_count[keys[i] & HASH_ROW_MASK] += 1
        for i in range(HASH_ROWS):
            row_start[i + 1] = row_start[i] + row_count[i]
            fill[i] = row_start[i]
            if row_count[i] > max_count:
                max_count = row_count[i]
        if max_count >= 64:
            raise RuntimeError("evaluator tables: a hash row is too full")
        for i in range(n):
            row = keys[i] & HASH_ROW_MASK
            j = fill[row]
            fill[row] += 1
            cols[j] = keys[i] >> HASH_ROW_BITS
            col_values[j] = values[i]
            while j > row_start[row] and cols[j - 1] > cols[j]:
                tmp_c = cols[j]; cols[j] = cols[j - 1]; cols[j - 1] = tmp_c
                tmp_v = col_values[j]; col_values[j] = col_values[j - 1]; col_values[j - 1] = tmp_v
                j -= 1
            if j > row_start[row] and cols[j - 1] == cols[j]:
                raise RuntimeError("evaluator tables: two rank multisets share a key")

        # Rows fullest first (counting sort by size).
        memset(by_count, 0, sizeof(by_count))
        for i in range(HASH_ROWS):
            by_count[row_count[i]] += 1
        j = 0
        for c in range(max_count, -1, -1):
            p = j
            j += by_count[c]
            by_count[c] = p
        for i in range(HASH_ROWS):
            order[by_count[row_count[i]]] = i
            by_count[row_count[i]] += 1

        memset(hint, 0, sizeof(hint))
        for i in range(HASH_ROWS):
            row = order[i]
            c = row_count[row]
            if c == 0:
                offsets[row] = 0
                continue
            while used[lowfree >> 6] == 0xffffffffffffffffULL:
                lowfree += 64
            start = (lowfree & ~63u) - cols[row_start[row]] if (lowfree & ~63u) > cols[row_start[row]] else 0
            if hint[c] > start + _SEARCH_BACK:
                start = (hint[c] - _SEARCH_BACK) & ~63u
            # Displacements are even (stored halved in 16 bits): d0 even, odd bits masked.
            d0 = start & ~1u
            while True:
                ok = 0x5555555555555555ULL
                j = row_start[row]
                while j < row_start[row + 1] and ok:
                    if d0 + cols[j] + 64 >= <uint32_t>(64 * n_words):
                        raise RuntimeError("evaluator tables: hash table overflow")
                    ok &= ~_window(used, d0 + cols[j])
                    j += 1
                if ok:
                    d = d0 + ctz64(ok)
                    break
                d0 += 64
            for j in range(row_start[row], row_start[row + 1]):
                p = d + cols[j]
                used[p >> 6] |= 1ULL << (p & 63)
                if p + 1 > size:
                    size = p + 1
            hint[c] = d
            if d >> 1 > 0xffff:
                raise RuntimeError("evaluator tables: a hash displacement does not fit 16 bits")
            offsets[row] = <uint16_t>(d >> 1)
        # Any 25-bit key indexes below max offset + (2**25 >> HASH_ROW_BITS).
        for i in range(HASH_ROWS):
            if 2 * <uint32_t>offsets[i] + ((RANK_SUM_MASK >> HASH_ROW_BITS) + 1) > RANK_TABLE_CAPACITY:
                raise RuntimeError("evaluator tables: rank table capacity too small")
        memset(table, 0, sizeof(uint16_t) * RANK_TABLE_CAPACITY)
        for i in range(HASH_ROWS):
            for j in range(row_start[i], row_start[i + 1]):
                table[2 * <uint32_t>offsets[i] + cols[j]] = col_values[j]
        table_used[0] = size
    finally:
        free(row_count); free(row_start); free(order); free(fill)
        free(cols); free(col_values); free(used)
    return 0
