"""Hands built for evaluator tests."""
from __future__ import annotations

import numpy as np

import evaluator_pyx as ev


def flush_hands(rng: np.random.Generator, n: int, cards: int) -> np.ndarray:
    """n hands of `cards` cards with at least five of one suit."""
    masks = []
    for _ in range(n):
        suit = int(rng.integers(4))
        of_suit = [4 * int(r) + suit for r in rng.choice(13, 5, replace=False)]
        rest = [c for c in rng.permutation(52).tolist() if c not in of_suit][: cards - 5]
        masks.append(ev.cards_to_mask(of_suit + rest))
    return np.array(masks, dtype=np.uint64)
