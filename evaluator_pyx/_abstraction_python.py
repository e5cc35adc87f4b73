"""Pure-Python versions of the card-abstraction kernels (evaluator_pyx._abstraction): the
same API and results, far slower; used when the compiled module is not built, and as the
reference the tests compare it with."""
from __future__ import annotations

import numpy as np

from .cards import HOLDINGS, N_HOLDINGS, card_bit

RIVER_SCALE = 1980
_MASKS = np.array(HOLDINGS, dtype=np.uint64)
_ALL = 0x1FFF1FFF1FFF1FFF


def _strengths(board: int) -> np.ndarray:
    from . import holding_strengths

    return holding_strengths(board)


def _board_mask(board: int) -> int:
    board = int(board)
    n = bin(board).count("1")
    if board & ~_ALL:
        raise ValueError(f"board mask {board:#x} has bits that are not cards")
    if not 3 <= n <= 5:
        raise ValueError(f"a board has 3-5 cards, got {n}")
    return board


def _add_river(board: int, sums: np.ndarray, counts: np.ndarray) -> None:
    hs = _strengths(board)
    live = (_MASKS & np.uint64(board)) == 0
    k = np.floor(hs * RIVER_SCALE + 0.5).astype(np.int64)
    sums[live] += k[live] * k[live]
    counts[live] += 1


def holding_ehs2(board, out=None) -> np.ndarray:
    b = _board_mask(board)
    sums = np.zeros(N_HOLDINGS, dtype=np.int64)
    counts = np.zeros(N_HOLDINGS, dtype=np.int32)
    rest = [1 << card_bit(c) for c in range(52) if not (1 << card_bit(c)) & b]
    n = bin(b).count("1")
    if n == 5:
        _add_river(b, sums, counts)
    elif n == 4:
        for x in rest:
            _add_river(b | x, sums, counts)
    else:
        for i, x in enumerate(rest):
            for y in rest[i + 1:]:
                _add_river(b | x | y, sums, counts)
    if out is None:
        out = np.empty(N_HOLDINGS, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        out[:] = np.where(counts > 0, sums / (counts * float(RIVER_SCALE) ** 2), -1.0)
    return out


def river_hs2_sums(boards, sums, counts) -> None:
    for b in np.asarray(boards, dtype=np.uint64).tolist():
        if bin(b).count("1") != 5:
            raise ValueError("a board is not 5 cards")
        _add_river(b, sums, counts)


def river_pair_outcomes(board, buckets, n_buckets, won, pairs) -> None:
    from . import holding_values

    b = _board_mask(board)
    if bin(b).count("1") != 5:
        raise ValueError("river_pair_outcomes needs a 5-card board")
    values = holding_values(b)
    live = [i for i in range(N_HOLDINGS) if not int(_MASKS[i]) & b]
    for x, i in enumerate(live):
        for j in live[x + 1:]:
            if int(_MASKS[i]) & int(_MASKS[j]):
                continue
            bi, bj = int(buckets[i]), int(buckets[j])
            pairs[bi, bj] += 1.0
            pairs[bj, bi] += 1.0
            if values[i] > values[j]:
                won[bi, bj] += 1.0
            elif values[i] < values[j]:
                won[bj, bi] += 1.0
            else:
                won[bi, bj] += 0.5
                won[bj, bi] += 0.5
