# C-level API of every holding on a board at once (evaluator_pyx._ranking), for the engine's, the opponent
# modeler's and the simulator's hot loops.
#
# Conventions (_core.pxd): hands are 64-bit masks, weight tables 1326 doubles in HOLDINGS
# order, NULL meaning uniform. These functions trust their inputs: hole is 2 cards, board
# 3-5 (0-5 for the Monte Carlo kernels), disjoint from hole, weights finite and >= 0. The
# Python wrappers in _assess.pyx check all that. None of them allocates; all are nogil.
from libc.stdint cimport int32_t, uint64_t

from evaluator_pyx._core cimport EvalTables

# Hand value (1..7462) of every holding with the board (3-5 cards), 0 for the holdings
# that touch the board; out has 1326 entries.
cdef void holding_values_c(const EvalTables* t, uint64_t board, int32_t* out) noexcept nogil

# Hand strength of every holding against the weight table (card removal between the
# holding and the opponent's holding exact); 0.0 for holdings touching the board and for
# holdings with no opponent weight left. out has 1326 entries.
cdef void holding_strengths_c(const EvalTables* t, uint64_t board, const double* weights,
                              double* out) noexcept nogil


# One-card Ppot ([testbed-1998]) of every holding on a flop or turn (3-4 cards) against the
# weight table, exact, in one pass (a Fenwick-tree sweep per next card); 0.0 for holdings
# touching the board or with nothing ahead of or tied with them. out has 1326 entries.
# Returns 0, or -1 for a bad board size.
cdef int holding_ppot1_c(const EvalTables* t, uint64_t board, const double* weights,
                         double* out) noexcept nogil
