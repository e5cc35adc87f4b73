"""Pure-Python backend: the compiled core's Python API on top of _reference (slow)."""
from __future__ import annotations

import operator
from collections.abc import Iterable

import numpy as np

from . import _reference
from .cards import VALID_MASK_BITS, CardError

CATEGORIES = _reference.CATEGORIES
CATEGORY_FLOOR = _reference.CATEGORY_FLOOR


def hand_category(value: int) -> str:
    """'high card' ... 'straight flush' for a hand value."""
    try:
        v = operator.index(value)
    except TypeError:
        raise ValueError(f"not a hand value: {value!r}") from None
    return _reference.hand_category(v)


def _check_mask(mask: int) -> int:
    try:
        mask = operator.index(mask)
    except TypeError:
        raise TypeError(f"a hand mask is an int, not {type(mask).__name__}") from None
    if mask < 0 or mask >> 64 or mask & ~VALID_MASK_BITS:
        raise CardError(f"mask {mask:#x} has bits that are not cards")
    n = bin(mask).count("1")
    if not 5 <= n <= 7:
        raise CardError(f"need 5 to 7 cards to evaluate, got {n} (mask {mask:#x})")
    return mask


def evaluate(mask: int) -> int:
    """Value (1..7462, higher better) of the best five cards of a 5-7 card mask."""
    return _reference.evaluate(_check_mask(mask))


def evaluate_cards(cards: Iterable[int]) -> int:
    """Value of 5-7 cards given as ints 0..51."""
    seen: set[int] = set()
    for card in cards:
        if not isinstance(card, int) or not 0 <= card < 52:
            raise CardError(f"not a card index: {card!r}")
        if card in seen:
            raise CardError(f"duplicate card {card!r}")
        seen.add(card)
    if not 5 <= len(seen) <= 7:
        raise CardError(f"need 5 to 7 cards to evaluate, got {len(seen)}")
    return _reference.evaluate_cards(sorted(seen))


def evaluate_batch(masks, out: np.ndarray | None = None, check: bool = True) -> np.ndarray:
    """Values of an array of 5-7 card masks (uint64) as a uint16 array of its shape."""
    arr = np.ascontiguousarray(masks, dtype=np.uint64)
    m = arr.reshape(-1)
    if out is None:
        out = np.empty(arr.shape, dtype=np.uint16)
        flat = out.reshape(-1)
    else:
        if out.ndim != 1 or out.dtype != np.uint16:
            raise ValueError("out must be a 1-D uint16 array")
        flat = out
    if len(flat) != len(m):
        raise ValueError(f"out has {len(flat)} entries for {len(m)} masks")
    for i, mask in enumerate(m.tolist()):
        try:
            flat[i] = evaluate(mask)
        except CardError as exc:
            if check:
                raise CardError(f"masks[{i}]: {exc}") from None
            flat[i] = 0
    return out
