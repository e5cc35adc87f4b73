"""Pure-Python backend of hand assessment: _assess's Python API on top of
assess_reference and the pure-Python evaluator. Slow (seconds for two-card potential),
there so the package works without the compiled modules. Its Monte Carlo kernels use
Python's own generator: seeded and reproducible, but not the compiled kernels' numbers.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _python
from . import assess_reference as ref
from .cards import HOLDINGS, N_HOLDINGS

HAND_TYPE_NAMES = ref.HAND_TYPE_NAMES
_TYPES = np.array(ref.holding_types(), dtype=np.uint8)
_TYPES.flags.writeable = False
_evaluate = _python.evaluate


def hand_type_of_holding(index: int) -> int:
    if not 0 <= index < N_HOLDINGS:
        raise ValueError(f"holding index must be 0..1325, got {index}")
    return int(_TYPES[index])


def holding_type_table() -> np.ndarray:
    return _TYPES.copy()


def _weights(weights):
    if weights is None:
        return None
    arr = np.ascontiguousarray(weights, dtype=np.float64)
    if arr.shape != (N_HOLDINGS,):
        raise ValueError(f"a weight table has 1326 entries (HOLDINGS order), got shape {arr.shape}")
    if not (np.all(arr >= 0) and np.all(np.isfinite(arr))):
        raise ValueError("weights must be finite and >= 0")
    return arr.tolist()


def _hole_board(hole, board, lo: int, hi: int) -> tuple[int, int]:
    h = ref.parse_mask(hole, 2, 2, "hole")
    b = ref.parse_mask(board, lo, hi, "board")
    if h & b:
        raise ref.CardError("hole and board share a card")
    return h, b


def hand_strength(hole, board, weights=None) -> float:
    h, b = _hole_board(hole, board, 3, 5)
    return ref.hand_strength(h, b, _weights(weights), _evaluate)


def hand_strength_counts(hole, board, weights=None) -> tuple:
    h, b = _hole_board(hole, board, 3, 5)
    return ref.hand_strength_counts(h, b, _weights(weights), _evaluate)


def hand_strength_n(hole, board, weights=None, opponents: int = 1) -> float:
    if opponents < 1:
        raise ValueError(f"opponents must be >= 1, got {opponents}")
    return hand_strength(hole, board, weights) ** opponents


def hand_strength_multi(hole, board, weight_tables: Sequence) -> float:
    tables = list(weight_tables)
    if not tables:
        raise ValueError("need at least one opponent's weight table")
    hs = 1.0
    for w in tables:
        hs *= hand_strength(hole, board, w)
    return hs


def potential_table(hole, board, weights=None, cards_to_come: int = 2) -> np.ndarray:
    h, b = _hole_board(hole, board, 3, 4)
    nb = bin(b).count("1")
    if not 1 <= cards_to_come <= 5 - nb:
        raise ValueError(f"cards_to_come must be 1..{5 - nb} with {nb} board cards, got {cards_to_come}")
    return np.array(ref.potential_table(h, b, _weights(weights), cards_to_come, _evaluate))


def ppot_npot(table) -> tuple:
    return ref.ppot_npot(np.asarray(table, dtype=np.float64).reshape(3, 3).tolist())


def hand_potential(hole, board, weights=None, cards_to_come: int = 2) -> tuple:
    return ppot_npot(potential_table(hole, board, weights, cards_to_come))


def holding_values(board, out=None) -> np.ndarray:
    b = ref.parse_mask(board, 3, 5, "board")
    values = np.array(ref.holding_values(b, _evaluate), dtype=np.int32)
    if out is None:
        return values
    out[:] = values
    return out


def holding_strengths(board, weights=None, out=None) -> np.ndarray:
    b = ref.parse_mask(board, 3, 5, "board")
    s = np.array(ref.holding_strengths(b, _weights(weights), _evaluate), dtype=np.float64)
    if out is None:
        return s
    out[:] = s
    return out


def holding_ppot(board, weights=None, out=None) -> np.ndarray:
    b = ref.parse_mask(board, 3, 4, "board")
    p = np.array(ref.holding_ppot(b, _weights(weights), _evaluate), dtype=np.float64)
    if out is None:
        return p
    out[:] = p
    return out


def rollout(hole, board=0, opponents: int = 1, trials: int = 10000, seed=0, weights=None) -> tuple:
    h, b = _hole_board(hole, board, 0, 5)
    if not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be 1..22, got {opponents}")
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    if weights is not None:
        arr = np.asarray(weights, dtype=np.float64)
        if arr.ndim == 1:
            arr = np.broadcast_to(arr, (opponents, N_HOLDINGS))
        if arr.shape != (opponents, N_HOLDINGS):
            raise ValueError(f"weights must be a 1326 table or ({opponents}, 1326), got shape {arr.shape}")
        weights = [_weights(row) for row in arr]
    return ref.rollout(h, b, opponents, trials, seed, weights, _evaluate)


def win_probability(hole, board=0, opponents: int = 1, trials: int = 10000, seed=0) -> float:
    return rollout(hole, board, opponents, trials, seed)[0]


def ehs(hole, board, weights=None, opponents: int = 1, cards_to_come: int = 1) -> float:
    h, b = _hole_board(hole, board, 3, 5)
    nb = bin(b).count("1")
    if isinstance(weights, (list, tuple)):
        hs_n = hand_strength_multi(h, b, weights)
        live = np.array([(m & (h | b)) == 0 for m in HOLDINGS])
        mix = np.zeros(N_HOLDINGS)
        for w in weights:
            arr = np.ones(N_HOLDINGS) if w is None else np.asarray(_weights(w))
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


def income_rollout(hole, opponents: int, trials: int, seed=0, plays=None, blinds: bool = False) -> tuple:
    h = ref.parse_mask(hole, 2, 2, "hole")
    if not 1 <= opponents <= 22:
        raise ValueError(f"opponents must be 1..22, got {opponents}")
    if trials < 2:
        raise ValueError(f"trials must be >= 2, got {trials}")
    if plays is not None:
        plays = np.ascontiguousarray(plays, dtype=np.uint8)
        if plays.shape != (169,):
            raise ValueError(f"plays needs 169 flags, got shape {plays.shape}")
        plays = plays.tolist()
    return ref.income_rollout(h, opponents, trials, seed, plays, _evaluate, bool(blinds))
