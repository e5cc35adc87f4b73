"""Pure-Python hand evaluator: the reference the compiled core is tested against.

Written for clarity, not speed: it scores every 5-card subset of the hand and keeps the
best. Hand values are dense ranks 1..7462 over the distinct 5-card hand classes (higher is
better), the same scale the compiled core returns, so the two can be compared value for
value.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations

from .cards import CardError, mask_to_card_list

CATEGORIES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)


def _straight_high(distinct_desc: list[int]) -> int | None:
    if len(distinct_desc) != 5:
        return None
    if distinct_desc[0] - distinct_desc[4] == 4:
        return distinct_desc[0]
    if distinct_desc == [12, 3, 2, 1, 0]:  # the wheel, A-2-3-4-5: five high
        return 3
    return None


def five_card_key(ranks: tuple[int, ...], flush: bool) -> tuple[int, ...]:
    """(category, tie-breaking ranks...) for five cards given as ranks 0..12."""
    counts = Counter(ranks)
    # Ranks ordered by how many times they appear, then by rank: the tie-break order.
    by_group = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    high = _straight_high(sorted(counts, reverse=True)) if len(counts) == 5 else None
    if high is not None and flush:
        return (8, high)
    if shape[0] == 4:
        return (7, *by_group)
    if shape[:2] == [3, 2]:
        return (6, *by_group)
    if flush:
        return (5, *by_group)
    if high is not None:
        return (4, high)
    if shape[0] == 3:
        return (3, *by_group)
    if shape[:2] == [2, 2]:
        return (2, *by_group)
    if shape[0] == 2:
        return (1, *by_group)
    return (0, *by_group)


def _all_class_keys() -> list[tuple[int, ...]]:
    keys = set()
    for combo in combinations(range(13), 5):
        keys.add(five_card_key(combo, True))
    # Every multiset of 5 ranks with at most 4 of a rank, unsuited.
    def multisets(start: int, left: int, acc: list[int]):
        if left == 0:
            yield tuple(acc)
            return
        for r in range(start, 13):
            if acc.count(r) < 4:
                acc.append(r)
                yield from multisets(r, left - 1, acc)
                acc.pop()
    for ms in multisets(0, 5, []):
        keys.add(five_card_key(ms, False))
    return sorted(keys)


_CLASS_KEYS = _all_class_keys()
assert len(_CLASS_KEYS) == 7462
_VALUE_OF_KEY = {key: i + 1 for i, key in enumerate(_CLASS_KEYS)}
# First value of each category, for hand_category().
CATEGORY_FLOOR = tuple(
    min(v for k, v in _VALUE_OF_KEY.items() if k[0] == cat) for cat in range(len(CATEGORIES))
)


def evaluate_cards(cards: list[int]) -> int:
    """Value (1..7462, higher better) of the best five of 5-7 cards given as ints."""
    if not 5 <= len(cards) <= 7:
        raise CardError(f"need 5 to 7 cards to evaluate, got {len(cards)}")
    best = 0
    for five in combinations(cards, 5):
        ranks = tuple(c >> 2 for c in five)
        flush = len({c & 3 for c in five}) == 1
        value = _VALUE_OF_KEY[five_card_key(ranks, flush)]
        if value > best:
            best = value
    return best


@lru_cache(maxsize=1 << 16)
def evaluate(mask: int) -> int:
    """Value (1..7462, higher better) of the best five cards of a 5-7 card mask."""
    return evaluate_cards(mask_to_card_list(mask))


def hand_category(value: int) -> str:
    """'high card' ... 'straight flush' for a hand value."""
    if not 1 <= value <= 7462:
        raise ValueError(f"not a hand value: {value!r}")
    cat = 0
    while cat + 1 < len(CATEGORIES) and value >= CATEGORY_FLOOR[cat + 1]:
        cat += 1
    return CATEGORIES[cat]
