"""Poki's hand evaluator: cards as ints, hands as 64-bit masks, 5-7 cards to a value.

Values are 1..7462, higher better, one per distinct five-card hand class; hands compare
by comparing values. The compiled core (evaluator_pyx._core, Cython) is used when it is
built; otherwise the same API runs on the slow pure-Python reference and BACKEND says
"python". With POKI_REQUIRE_COMPILED=1 in the environment a missing core is an error.
"""
from __future__ import annotations

import os

import numpy as np

from .cards import (
    CARD_NAMES,
    HOLDING_CARDS,
    HOLDINGS,
    N_CARDS,
    N_HOLDINGS,
    RANKS,
    SUITS,
    VALID_MASK_BITS,
    CardError,
    card_bit,
    card_rank,
    card_str,
    card_suit,
    cards_str,
    cards_to_mask,
    holding_index,
    holding_index_of_cards,
    mask_to_card_list,
    mask_to_cards,
    parse_card,
    parse_cards,
)

from .random_hands import cards_from_masks, masks_from_cards, random_card_arrays, random_hand_masks

INSTALL_COMMAND = "pip install -e ."


def _compiled_required() -> bool:
    return os.environ.get("POKI_REQUIRE_COMPILED", "").strip().lower() not in ("", "0", "false", "no")


try:
    from . import _core as _backend

    BACKEND = "cython"
except ImportError as exc:
    if _compiled_required():
        raise ImportError(
            "evaluator_pyx: the compiled core evaluator_pyx._core could not be imported "
            f"({exc}) and POKI_REQUIRE_COMPILED is set; build it by running "
            f"`{INSTALL_COMMAND}` in the repository root"
        ) from exc
    from . import _python as _backend

    BACKEND = "python"

CATEGORIES: tuple[str, ...] = _backend.CATEGORIES
# First value of each category, high card .. straight flush.
CATEGORY_FLOOR: tuple[int, ...] = _backend.CATEGORY_FLOOR

evaluate = _backend.evaluate
evaluate_cards = _backend.evaluate_cards
evaluate_batch = _backend.evaluate_batch
hand_category = _backend.hand_category

# The 1326 two-card holdings as masks, in HOLDINGS order (index = holding_index(mask)).
HOLDINGS_ARRAY: np.ndarray = np.array(HOLDINGS, dtype=np.uint64)
HOLDINGS_ARRAY.flags.writeable = False

__all__ = [
    "BACKEND",
    "CARD_NAMES",
    "CATEGORIES",
    "CATEGORY_FLOOR",
    "CardError",
    "HOLDINGS",
    "HOLDINGS_ARRAY",
    "HOLDING_CARDS",
    "INSTALL_COMMAND",
    "N_CARDS",
    "N_HOLDINGS",
    "RANKS",
    "SUITS",
    "VALID_MASK_BITS",
    "card_bit",
    "card_rank",
    "card_str",
    "card_suit",
    "cards_from_masks",
    "cards_str",
    "cards_to_mask",
    "evaluate",
    "evaluate_batch",
    "evaluate_cards",
    "hand_category",
    "holding_index",
    "holding_index_of_cards",
    "mask_to_card_list",
    "mask_to_cards",
    "masks_from_cards",
    "parse_card",
    "parse_cards",
    "random_card_arrays",
    "random_hand_masks",
]

# Hand assessment (seed 003 §4.2-4.4, seed 001): exact weighted hand strength and
# potential, all-holding ranks and strengths on a board, Monte Carlo roll-outs. Compiled
# in _assess when built, else the slow pure-Python version; ASSESS_BACKEND says which.
try:
    from . import _assess as _assess_backend

    ASSESS_BACKEND = "cython"
except ImportError as exc:
    if _compiled_required():
        raise ImportError(
            "evaluator_pyx: the compiled module evaluator_pyx._assess could not be imported "
            f"({exc}) and POKI_REQUIRE_COMPILED is set; build it by running "
            f"`{INSTALL_COMMAND}` in the repository root"
        ) from exc
    from . import _assess_python as _assess_backend

    ASSESS_BACKEND = "python"

HAND_TYPE_NAMES: tuple[str, ...] = _assess_backend.HAND_TYPE_NAMES
hand_type_of_holding = _assess_backend.hand_type_of_holding
holding_type_table = _assess_backend.holding_type_table
win_probability = _assess_backend.win_probability
rollout = _assess_backend.rollout
income_rollout = _assess_backend.income_rollout
hand_strength = _assess_backend.hand_strength
hand_strength_counts = _assess_backend.hand_strength_counts
hand_strength_n = _assess_backend.hand_strength_n
hand_strength_multi = _assess_backend.hand_strength_multi
potential_table = _assess_backend.potential_table
hand_potential = _assess_backend.hand_potential
ppot_npot = _assess_backend.ppot_npot
ehs = _assess_backend.ehs
holding_values = _assess_backend.holding_values
holding_strengths = _assess_backend.holding_strengths
holding_ppot = _assess_backend.holding_ppot

__all__ += [
    "ASSESS_BACKEND",
    "HAND_TYPE_NAMES",
    "ehs",
    "hand_potential",
    "hand_strength",
    "hand_strength_counts",
    "hand_strength_multi",
    "hand_strength_n",
    "hand_type_of_holding",
    "holding_ppot",
    "holding_strengths",
    "holding_type_table",
    "holding_values",
    "income_rollout",
    "potential_table",
    "ppot_npot",
    "rollout",
    "win_probability",
]

# Card-abstraction kernels (the heads-up equilibrium's buckets): E[HS²] of every holding on
# a board, river HS² sums, showdown outcomes of holding pairs by bucket. Compiled in
# _abstraction when built, else the slow pure-Python version; ABSTRACTION_BACKEND says which.
try:
    from . import _abstraction as _abstraction_backend

    ABSTRACTION_BACKEND = "cython"
except ImportError as exc:
    if _compiled_required():
        raise ImportError(
            "evaluator_pyx: the compiled module evaluator_pyx._abstraction could not be imported "
            f"({exc}) and POKI_REQUIRE_COMPILED is set; build it by running "
            f"`{INSTALL_COMMAND}` in the repository root"
        ) from exc
    from . import _abstraction_python as _abstraction_backend

    ABSTRACTION_BACKEND = "python"

holding_ehs2 = _abstraction_backend.holding_ehs2
river_hs2_sums = _abstraction_backend.river_hs2_sums
river_pair_outcomes = _abstraction_backend.river_pair_outcomes

__all__ += ["ABSTRACTION_BACKEND", "holding_ehs2", "river_hs2_sums", "river_pair_outcomes"]
