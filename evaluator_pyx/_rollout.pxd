# C-level API of the Monte Carlo kernels, alias tables and the random generator
# (evaluator_pyx._rollout), for the engine's, the opponent modeler's and the simulator's
# hot loops.
#
# Conventions (_core.pxd): hands are 64-bit masks, weight tables 1326 doubles in HOLDINGS
# order, NULL meaning uniform. These functions trust their inputs: hole is 2 cards, board
# 3-5 (0-5 for the Monte Carlo kernels), disjoint from hole, weights finite and >= 0. The
# Python wrappers in _assess.pyx check all that. None of them allocates; all are nogil.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t

from evaluator_pyx._core cimport EvalTables

cdef enum:
    # Starting-hand types: 13 * x + y on the 13 x 13 grid of ranks (2..A = 0..12): pairs
    # on the diagonal, suited hands at (high, low), offsuit at (low, high).
    N_HAND_TYPES = 169


# ---- random numbers: xoshiro256** seeded through splitmix64 ---------------------------
# Small, fast and well tested; a seed always gives the same stream on every machine.

ctypedef struct Rng:
    uint64_t s[4]


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    x[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    cdef uint64_t x = seed
    r.s[0] = splitmix64(&x)
    r.s[1] = splitmix64(&x)
    r.s[2] = splitmix64(&x)
    r.s[3] = splitmix64(&x)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s[1] * 5, 7) * 9
    cdef uint64_t t = r.s[1] << 17
    r.s[2] ^= r.s[0]
    r.s[3] ^= r.s[1]
    r.s[1] ^= r.s[2]
    r.s[0] ^= r.s[3]
    r.s[2] ^= t
    r.s[3] = _rotl(r.s[3], 45)
    return result


cdef inline uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    """Uniform in 0..n-1 by multiply-shift of the top 32 bits (bias below n / 2**32,
    far under Monte Carlo noise for the deck sizes used here)."""
    return <uint32_t>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)


cdef inline double rng_uniform(Rng* r) noexcept nogil:
    """Uniform in [0, 1) with 53 random bits."""
    return <double>(rng_next(r) >> 11) * (1.0 / 9007199254740992.0)


# ---- sampling holdings from a weight table (Vose's alias method) ----------------------

ctypedef struct AliasTable:
    int n                               # holdings with positive weight; 0 = none
    double prob[1326]                   # chance of keeping slot k's own holding
    uint16_t holding[1326]              # slot k's own holding
    uint16_t alias[1326]                # the holding drawn otherwise

# Build from a weight table (NULL = uniform), leaving out holdings that touch `dead`.
# Returns the number of holdings that can be drawn (0: nothing to draw).
cdef int alias_build(AliasTable* a, const double* weights, uint64_t dead) noexcept nogil


cdef inline int alias_draw(const AliasTable* a, Rng* r) noexcept nogil:
    """A holding index with probability proportional to its weight (a.n must be > 0)."""
    cdef uint32_t k = rng_below(r, <uint32_t>a.n)
    if rng_uniform(r) < a.prob[k]:
        return a.holding[k]
    return a.alias[k]


# Starting-hand type (0..168, see N_HAND_TYPES) of each holding, in HOLDINGS order.
cdef const uint8_t* holding_types() noexcept nogil


# ---- ([west-2005]: deal the unknown cards at random, count our share) --------

# Our pot share (1 / number tied for best, 0 if beaten) averaged over `trials` deals of
# `opponents` hands and the rest of the board. tables = NULL deals opponents uniformly;
# otherwise tables[k] is opponent k's alias table (built with dead = hole | board).
# sum and sumsq receive the sum of shares and of squared shares. Returns 0, or -1 when
# the tables admit no deal in 10,000 attempts (or the cards run out).
cdef int rollout_c(const EvalTables* t, uint64_t hole, uint64_t board, int opponents,
                   long trials, Rng* rng, const AliasTable** tables,
                   double* sum, double* sumsq) noexcept nogil

# Pre-flop income roll-out ([testbed-1998] §4.1, [poki-2002]): every player who plays has one small
# bet in and the board is dealt out; our net in small bets is summed (our hand always
# plays). plays[type] = 0 makes an opponent dealt that starting-hand type fold (iterated
# roll-outs); plays = NULL: everyone plays. blinds = 0: a folder puts nothing in. blinds
# = 1: our seat cycles round the table (trial % players; seat 0 posts the small blind,
# half a small bet, seat 1 the big blind, one small bet); the big blind always plays and
# a small blind that folds leaves its half bet in the pot.
cdef int income_rollout_c(const EvalTables* t, uint64_t hole, int opponents, long trials,
                          Rng* rng, const uint8_t* plays, int blinds,
                          double* sum, double* sumsq) noexcept nogil
