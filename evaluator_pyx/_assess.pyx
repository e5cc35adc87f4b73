# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False, annotation_typing=False
"""Hand assessment from Python: hand strength, hand potential, ranks, strengths and
one-card Ppot of every holding on a board, and Monte Carlo roll-outs, each a checked
wrapper around a C kernel run without the GIL.

The quantities are those of [testbed-1998] (Billings, Papp, Schaeffer, Szafron 1998) §4.2-4.4:
hand strength HS is the share of possible opponent holdings our hand beats now (ties
count half); Ppot / Npot come from Table 2, the weighted counts of (opponent holding,
run-out) pairs by whether we are ahead / tied / behind now and after the run-out; EHS =
HS_n + (1 - HS_n) * Ppot. Every enumeration is weighted by a 1326-entry table in HOLDINGS
order ([testbed-1998] §4.3; Billings et al.'s [poki-2002] weight tables). The Monte Carlo kernels follow [west-2005]
(Mick West): deal the unknown cards at random and count our share of the pot.

The kernels live by role, each with its C-level API in a .pxd: _strength (hand
strength), _potential (Table 2), _ranking (every holding on a board at once), _rollout
(Monte Carlo, alias tables, the random generator); _board.pxd holds what they share.
"""
from libc.math cimport sqrt
from libc.stdint cimport int32_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

from evaluator_pyx._core cimport N_HOLDINGS, VALID_MASK_BITS, EvalTables, eval_tables, popcount64
from evaluator_pyx._potential cimport potential_table_c, ppot_npot_c
from evaluator_pyx._ranking cimport holding_ppot1_c, holding_strengths_c, holding_values_c
from evaluator_pyx._rollout cimport (
    N_HAND_TYPES,
    AliasTable,
    Rng,
    alias_build,
    income_rollout_c,
    rng_seed,
    rollout_c,
)
from evaluator_pyx._strength cimport hand_strength_c, hs_counts_c

import numpy as np

from .cards import CardError, cards_to_mask

cdef const EvalTables* _T = eval_tables()


HAND_TYPE_NAMES: tuple = tuple(
    ("23456789TJQKA"[x] * 2) if x == y
    else ("23456789TJQKA"[x] + "23456789TJQKA"[y] + "s" if x > y
          else "23456789TJQKA"[y] + "23456789TJQKA"[x] + "o")
    for x in range(13) for y in range(13)
)


def hand_type_of_holding(int index) -> int:
    """Starting-hand type 0..168 (HAND_TYPE_NAMES) of holding `index` (HOLDINGS order)."""
    if not 0 <= index < N_HOLDINGS:
        raise ValueError(f"holding index must be 0..1325, got {index}")
    return _T.holding_type[index]


def holding_type_table() -> np.ndarray:
    """Starting-hand type of every holding, uint8[1326] in HOLDINGS order."""
    out = np.empty(N_HOLDINGS, dtype=np.uint8)
    cdef uint8_t[::1] o = out
    cdef int i
    for i in range(N_HOLDINGS):
        o[i] = _T.holding_type[i]
    return out


cdef uint64_t _as_mask(object x, int lo, int hi, str what) except? 0xffffffffffffffff:
    if isinstance(x, int):
        if x < 0 or x >> 64 or x & ~VALID_MASK_BITS:
            raise CardError(f"{what}: mask {x:#x} has bits that are not cards")
        m = <uint64_t>x
    else:
        m = <uint64_t>cards_to_mask(x)
    cdef int n = popcount64(m)
    if not lo <= n <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        raise CardError(f"{what}: need {want} cards, got {n}")
    return m


cdef tuple _hole_board(object hole, object board, int board_lo, int board_hi):
    cdef uint64_t h = _as_mask(hole, 2, 2, "hole")
    cdef uint64_t b = _as_mask(board, board_lo, board_hi, "board")
    if h & b:
        raise CardError("hole and board share a card")
    return h, b


cdef bint _weights_ok(const double[::1] w) noexcept nogil:
    cdef int i
    for i in range(N_HOLDINGS):
        if not (w[i] >= 0.0 and w[i] <= 1.7976931348623157e308):
            return False
    return True


cdef object _weights(object weights):
    """None, or a checked C-contiguous float64[1326] view of a weight table."""
    if weights is None:
        return None
    arr = np.ascontiguousarray(weights, dtype=np.float64)
    if arr.shape != (N_HOLDINGS,):
        raise ValueError(f"a weight table has 1326 entries (HOLDINGS order), got shape {arr.shape}")
    if not _weights_ok(arr):
        raise ValueError("weights must be finite and >= 0")
    return arr


cdef inline const double* _ptr(object arr):
    cdef const double[::1] v
    if arr is None:
        return NULL
    v = arr
    return &v[0]


def hand_strength(hole, board, weights=None) -> float:
    """Share of the opponent's possible holdings (weighted; None = uniform) that our hole
    cards beat on this 3-5 card board, ties half ([testbed-1998] §4.2). Holdings that touch our
    cards or the board are left out."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 5)
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double hs
    with nogil:
        hs = hand_strength_c(_T, h, b, p)
    if hs < 0.0:
        raise ValueError("no opponent holding has weight")
    return hs


def hand_strength_counts(hole, board, weights=None) -> tuple:
    """(weight we beat, weight we tie, weight that beats us) behind hand_strength."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 5)
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double c[3]
    with nogil:
        hs_counts_c(_T, h, b, p, c)
    return (c[0], c[1], c[2])


def hand_strength_n(hole, board, weights=None, int opponents=1) -> float:
    """HS_n = HS ** opponents: the chance of beating `opponents` players who each hold a
    hand drawn from the same table ([testbed-1998] §4.2)."""
    if opponents < 1:
        raise ValueError(f"opponents must be >= 1, got {opponents}")
    return hand_strength(hole, board, weights) ** opponents


def hand_strength_multi(hole, board, weight_tables) -> float:
    """Product of our hand strength against each opponent's own weight table (None in the
    list = uniform): HS_n with a table per opponent ([testbed-1998] §4.3, [poki-2002])."""
    tables = list(weight_tables)
    if not tables:
        raise ValueError("need at least one opponent's weight table")
    cdef double hs = 1.0
    for w in tables:
        hs *= hand_strength(hole, board, w)
    return hs


def potential_table(hole, board, weights=None, int cards_to_come=2) -> np.ndarray:
    """Billings et al.'s [testbed-1998] Table 2: a 3 x 3 float64 array, rows where we stand now and columns
    where we stand after `cards_to_come` cards (AHEAD, TIED, BEHIND), each entry the
    weight of (opponent holding, run-out) pairs (uniform weights: plain counts)."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 4)
    cdef int nb = popcount64(b)
    if not 1 <= cards_to_come <= 5 - nb:
        raise ValueError(f"cards_to_come must be 1..{5 - nb} with {nb} board cards, got {cards_to_come}")
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    out = np.zeros((3, 3), dtype=np.float64)
    cdef double[:, ::1] o = out
    with nogil:
        potential_table_c(_T, h, b, p, cards_to_come, &o[0, 0])
    return out


def hand_potential(hole, board, weights=None, int cards_to_come=2) -> tuple:
    """(Ppot, Npot) by exact enumeration of every opponent holding and every run-out of
    `cards_to_come` cards (flop: 1 or 2, turn: 1), weighted, with Billings et al.'s [testbed-1998] formulas."""
    t = potential_table(hole, board, weights, cards_to_come)
    cdef double[:, ::1] o = t
    cdef double pp, np_
    ppot_npot_c(&o[0, 0], &pp, &np_)
    return (pp, np_)


def ppot_npot(table) -> tuple:
    """(Ppot, Npot) of a 3 x 3 Table 2 ([testbed-1998] §4.2)."""
    cdef double[:, ::1] o = np.ascontiguousarray(table, dtype=np.float64).reshape(3, 3)
    cdef double pp, np_
    ppot_npot_c(&o[0, 0], &pp, &np_)
    return (pp, np_)


def holding_values(board, out=None) -> np.ndarray:
    """Hand value (1..7462) of each of the 1326 holdings with this 3-5 card board, int32
    in HOLDINGS order; 0 for holdings that share a card with the board."""
    cdef uint64_t b = _as_mask(board, 3, 5, "board")
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.int32)
    cdef int32_t[::1] o = out
    if o.shape[0] != N_HOLDINGS:
        raise ValueError("out needs 1326 entries")
    with nogil:
        holding_values_c(_T, b, &o[0])
    return out


def holding_strengths(board, weights=None, out=None) -> np.ndarray:
    """Hand strength of each of the 1326 holdings on this 3-5 card board against an
    opponent holding drawn from `weights` (None = uniform), exact card removal between
    the two holdings; float64 in HOLDINGS order, 0.0 for holdings that share a card with
    the board or that leave the opponent no weight."""
    cdef uint64_t b = _as_mask(board, 3, 5, "board")
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.float64)
    cdef double[::1] o = out
    if o.shape[0] != N_HOLDINGS:
        raise ValueError("out needs 1326 entries")
    with nogil:
        holding_strengths_c(_T, b, p, &o[0])
    return out


def holding_ppot(board, weights=None, out=None) -> np.ndarray:
    """One-card Ppot ([testbed-1998] §4.2) of each of the 1326 holdings on a flop or turn
    against an opponent holding drawn from `weights` (None = uniform), exact, all in one
    pass; float64 in HOLDINGS order, 0.0 for holdings that share a card with the board
    (and where Ppot's denominator is 0: nothing is ahead of or tied with the holding)."""
    cdef uint64_t b = _as_mask(board, 3, 4, "board")
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.float64)
    cdef double[::1] o = out
    if o.shape[0] != N_HOLDINGS:
        raise ValueError("out needs 1326 entries")
    with nogil:
        holding_ppot1_c(_T, b, p, &o[0])
    return out


cdef uint64_t _seed64(object seed) except? 0:
    return <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)


def rollout(hole, board=0, int opponents=1, long trials=10000, seed=0, weights=None) -> tuple:
    """Monte Carlo roll-out ([west-2005]): (mean, standard error) of our share of the pot
    against `opponents` hands with the board (0-5 cards) dealt out at random, ties split.
    weights: None (opponents dealt uniformly), one 1326 table for every opponent, or an
    (opponents, 1326) array, one table each (selective sampling). Same seed, same result."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 0, 5)
    if not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be 1..22, got {opponents}")
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    cdef Rng rng
    rng_seed(&rng, _seed64(seed))
    cdef double s = 0.0, s2 = 0.0
    cdef int rc, k
    cdef AliasTable* store = NULL
    cdef const AliasTable* ptrs[22]
    if weights is None:
        with nogil:
            rc = rollout_c(_T, h, b, opponents, trials, &rng, NULL, &s, &s2)
    else:
        arr = np.asarray(weights, dtype=np.float64)
        if arr.ndim == 1:
            arr = np.broadcast_to(arr, (opponents, N_HOLDINGS))
        if arr.shape != (opponents, N_HOLDINGS):
            raise ValueError(f"weights must be a 1326 table or ({opponents}, 1326), got shape {arr.shape}")
        tables = [_weights(arr[k]) for k in range(opponents)]
        store = <AliasTable*>malloc(sizeof(AliasTable) * opponents)
        if store == NULL:
            raise MemoryError()
        try:
            for k in range(opponents):
                if alias_build(&store[k], _ptr(tables[k]), h | b) == 0:
                    raise ValueError(f"opponent {k}'s weight table has no holding left")
                ptrs[k] = &store[k]
            with nogil:
                rc = rollout_c(_T, h, b, opponents, trials, &rng, ptrs, &s, &s2)
        finally:
            free(store)
    if rc < 0:
        raise ValueError("no consistent deal: not enough cards, or the weight tables "
                         "keep giving opponents the same cards")
    return _mean_stderr(s, s2, trials)


cdef tuple _mean_stderr(double s, double s2, long n):
    cdef double mean = s / n
    cdef double var = (s2 - s * mean) / (n - 1) if n > 1 else 0.0
    return (mean, sqrt(var / n) if var > 0.0 else 0.0)


def win_probability(hole, board=0, int opponents=1, long trials=10000, seed=0) -> float:
    """Mick West's Monte Carlo hand strength ([west-2005]): our average share of the pot
    against `opponents` random hands with the board completed at random, ties split."""
    return rollout(hole, board, opponents, trials, seed)[0]


def ehs(hole, board, weights=None, int opponents=1, int cards_to_come=1) -> float:
    """Effective hand strength EHS = HS_n + (1 - HS_n) * Ppot ([testbed-1998] §4.4).

    weights: one table (or None) for all `opponents`, HS_n = HS ** opponents; or a list of
    tables, one per opponent, HS_n = product of HS against each, Ppot against their
    average (each table normalised over the holdings still possible). cards_to_come
    defaults to 1: [testbed-1998] notes Poki uses one-card Ppot even on the flop. On the river
    Ppot is 0 and EHS = HS_n."""
    cdef uint64_t h, b
    h, b = _hole_board(hole, board, 3, 5)
    nb = popcount64(b)
    if isinstance(weights, (list, tuple)):
        hs_n = hand_strength_multi(h, b, weights)
        mix = np.zeros(N_HOLDINGS)
        live = np.array([(m & (h | b)) == 0 for m in _holding_masks()], dtype=bool)
        for w in weights:
            arr = np.ones(N_HOLDINGS) if w is None else _weights(w)
            tot = float(arr[live].sum())
            if tot > 0:
                mix += np.where(live, arr, 0.0) / tot
        pot_w = mix
    else:
        hs_n = hand_strength_n(h, b, weights, opponents)
        pot_w = weights
    if nb == 5 or cards_to_come == 0:
        return hs_n
    ppot = hand_potential(h, b, pot_w, min(cards_to_come, 5 - nb))[0]
    return hs_n + (1.0 - hs_n) * ppot


cdef object _HOLDING_MASKS = None


def _holding_masks() -> tuple:
    global _HOLDING_MASKS
    if _HOLDING_MASKS is None:
        _HOLDING_MASKS = tuple(int(_T.holding_masks[i]) for i in range(N_HOLDINGS))
    return _HOLDING_MASKS


def income_rollout(hole, int opponents, long trials, seed=0, plays=None, bint blinds=False) -> tuple:
    """Pre-flop income roll-out of one holding: (mean, standard error) of our net in small
    bets when every player who plays has one small bet in and the board is dealt out
    ([testbed-1998] §4.1, [poki-2002]). plays: None (all opponents play) or 169 flags by
    starting-hand type; an opponent dealt a type whose flag is 0 folds. blinds=False: a
    folder puts nothing in. blinds=True (iterated roll-outs): our seat cycles round the
    table, seat 0 posting the small blind (half a small bet) and seat 1 the big blind
    (one small bet); the big blind always plays and a small blind that folds leaves its
    half bet in the pot."""
    cdef uint64_t h = _as_mask(hole, 2, 2, "hole")
    if not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be 1..22, got {opponents}")
    if trials < 2:
        raise ValueError(f"trials must be >= 2, got {trials}")
    cdef const uint8_t[::1] pv
    cdef const uint8_t* pp = NULL
    if plays is not None:
        parr = np.ascontiguousarray(plays, dtype=np.uint8)
        if parr.shape != (N_HAND_TYPES,):
            raise ValueError(f"plays needs 169 flags, got shape {parr.shape}")
        pv = parr
        pp = &pv[0]
    cdef Rng rng
    rng_seed(&rng, _seed64(seed))
    cdef double s, s2
    with nogil:
        income_rollout_c(_T, h, opponents, trials, &rng, pp, blinds, &s, &s2)
    return _mean_stderr(s, s2, trials)


# ---- repeat loops for the benchmarks: the kernels called back to back in C ------------

def _repeat_hand_strength(uint64_t hole, uint64_t board, weights, long reps) -> float:
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double x = 0.0
    cdef long r
    with nogil:
        for r in range(reps):
            x += hand_strength_c(_T, hole, board, p)
    return x


def _repeat_potential(uint64_t hole, uint64_t board, weights, int cards_to_come, long reps) -> float:
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double t9[9]
    cdef double x = 0.0
    cdef long r
    with nogil:
        for r in range(reps):
            potential_table_c(_T, hole, board, p, cards_to_come, t9)
            x += t9[0]
    return x


def _repeat_holding_values(uint64_t board, long reps) -> int:
    cdef int32_t out[1326]
    cdef long r, x = 0
    with nogil:
        for r in range(reps):
            holding_values_c(_T, board, out)
            x += out[r % 1326]
    return x


def _repeat_holding_strengths(uint64_t board, weights, long reps) -> float:
    w = _weights(weights)
    cdef const double* p = _ptr(w)
    cdef double out[1326]
    cdef double x = 0.0
    cdef long r
    with nogil:
        for r in range(reps):
            holding_strengths_c(_T, board, p, out)
            x += out[r % 1326]
    return x
