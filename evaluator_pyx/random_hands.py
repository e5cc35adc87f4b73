"""Vectorised helpers for arrays of hands: random deals and card-array <-> mask conversion."""
from __future__ import annotations

from math import comb

import numpy as np

from .cards import N_CARDS, CardError

_ONE = np.uint64(1)


def masks_from_cards(cards: np.ndarray) -> np.ndarray:
    """(n, k) array of card ints 0..51 -> n uint64 hand masks (cards.py layout).

    Raises CardError for a card out of range or a row with a repeated card.
    """
    c = np.asarray(cards)
    if c.ndim != 2:
        raise ValueError(f"expected an (n, k) array of cards, got shape {c.shape}")
    if c.size and (c.min() < 0 or c.max() >= N_CARDS):
        raise CardError("card ints must be 0..51")
    c = c.astype(np.int64)
    if c.shape[1] > 1 and (np.diff(np.sort(c, axis=1), axis=1) == 0).any():
        raise CardError("a row repeats a card")
    bits = (16 * (c & 3) + (c >> 2)).astype(np.uint64)
    return np.bitwise_or.reduce(np.left_shift(_ONE, bits), axis=1, dtype=np.uint64)


def cards_from_masks(masks: np.ndarray, n_cards: int) -> np.ndarray:
    """n uint64 masks of exactly n_cards cards each -> (n, n_cards) int8 array of card
    ints, ascending."""
    m = np.ascontiguousarray(masks, dtype=np.uint64).reshape(-1)
    bits = np.unpackbits(m.view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    rows, pos = np.nonzero(bits)
    if len(rows) != len(m) * n_cards or (np.bincount(rows, minlength=len(m)) != n_cards).any():
        raise CardError(f"every mask must hold exactly {n_cards} cards")
    if ((pos & 15) >= 13).any():
        raise CardError("a mask has bits that are not cards")
    cards = (4 * (pos & 15) + (pos >> 4)).reshape(len(m), n_cards)
    return np.sort(cards, axis=1).astype(np.int8)


_CARD_BITS = np.array([1 << (16 * (c & 3) + (c >> 2)) for c in range(N_CARDS)], dtype=np.uint64)


def _deal(rng: np.random.Generator, n: int, n_cards: int) -> tuple[np.ndarray, np.ndarray]:
    """n uniform random sets of n_cards distinct cards, as (cards, masks), by Floyd's
    sampling: step j draws t in 0..j and takes t, or j itself if t is already taken."""
    if not 0 <= n_cards <= N_CARDS:
        raise ValueError(f"n_cards must be 0..52, got {n_cards}")
    cards = np.empty((n, n_cards), dtype=np.int8)
    masks = np.zeros(n, dtype=np.uint64)
    for i, j in enumerate(range(N_CARDS - n_cards, N_CARDS)):
        t = rng.integers(0, j + 1, size=n)
        c = np.where((masks & _CARD_BITS[t]) != 0, j, t)
        cards[:, i] = c
        masks |= _CARD_BITS[c]
    return cards, masks


def random_card_arrays(rng: np.random.Generator, n: int, n_cards: int = 7) -> np.ndarray:
    """(n, n_cards) int8 array: each row n_cards distinct random cards (uniform deals)."""
    return _deal(rng, n, n_cards)[0]


def random_hand_masks(
    rng: np.random.Generator, n: int, n_cards: int = 7, unique: bool = False
) -> np.ndarray:
    """n random hand masks of n_cards cards each. With unique=True no hand repeats; the
    order stays random either way (a sorted array would flatter table lookups)."""
    if unique and n > comb(N_CARDS, n_cards):
        raise ValueError(f"there are only {comb(N_CARDS, n_cards)} hands of {n_cards} cards")
    masks = _deal(rng, n, n_cards)[1]
    if unique:
        while True:
            distinct = np.sort(masks)  # (np.unique is far slower on big uint64 arrays)
            distinct = distinct[np.concatenate(([True], distinct[1:] != distinct[:-1]))]
            if len(distinct) >= n:
                break
            more = _deal(rng, n - len(distinct) + 1024, n_cards)[1]
            masks = np.concatenate([distinct, more])
        masks = rng.permutation(distinct)[:n]
    return masks
