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
