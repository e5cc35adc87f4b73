# C-level API of hand potential (Table 2) (evaluator_pyx._potential), for the engine's, the opponent
# modeler's and the simulator's hot loops.
#
# Conventions (_core.pxd): hands are 64-bit masks, weight tables 1326 doubles in HOLDINGS
# order, NULL meaning uniform. These functions trust their inputs: hole is 2 cards, board
# 3-5 (0-5 for the Monte Carlo kernels), disjoint from hole, weights finite and >= 0. The
# Python wrappers in _assess.pyx check all that. None of them allocates; all are nogil.
from libc.stdint cimport uint64_t

from evaluator_pyx._core cimport EvalTables

# Table 2 of [testbed-1998]: out9[3 * now + later] is the weight of (opponent holding, run-out)
# pairs where we are `now` (AHEAD/TIED/BEHIND) with the present board and `later` after
# cards_to_come more cards (1 or 2 on the flop, 1 on the turn), each run-out counted once.
# Returns 0, or -1 for a bad board size / cards_to_come.
cdef int potential_table_c(const EvalTables* t, uint64_t hole, uint64_t board,
                           const double* weights, int cards_to_come, double* out9) noexcept nogil

# Ppot and Npot from a Table 2 (Billings et al.'s [testbed-1998] formulas; 0 where a denominator is 0).
cdef void ppot_npot_c(const double* t9, double* ppot, double* npot) noexcept nogil
