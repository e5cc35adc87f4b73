# C-level API of weighted hand strength (evaluator_pyx._strength), for the engine's, the opponent
# modeler's and the simulator's hot loops.
#
# Conventions (_core.pxd): hands are 64-bit masks, weight tables 1326 doubles in HOLDINGS
# order, NULL meaning uniform. These functions trust their inputs: hole is 2 cards, board
# 3-5 (0-5 for the Monte Carlo kernels), disjoint from hole, weights finite and >= 0. The
# Python wrappers in _assess.pyx check all that. None of them allocates; all are nogil.
from libc.stdint cimport uint64_t

from evaluator_pyx._core cimport EvalTables

# Weighted hand strength counts of our hole cards against every opponent holding that
# does not touch hole or board: out3 = (weight we beat, weight we tie, weight that beats
# us). Returns 0, or -1 if the board is not 3-5 cards.
cdef int hs_counts_c(const EvalTables* t, uint64_t hole, uint64_t board,
                     const double* weights, double* out3) noexcept nogil

# (ahead + tied / 2) / total of hs_counts_c; -1.0 when no opponent holding has weight.
cdef double hand_strength_c(const EvalTables* t, uint64_t hole, uint64_t board,
                            const double* weights) noexcept nogil
