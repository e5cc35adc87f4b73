"""The incremental hand form (a key of summed per-card rank keys and suit counters, plus
the mask) against independent evaluators, eval7 and phevaluator, on random hands and on
the hands where evaluators go wrong: every flush and straight flush, wheels, quads with
each kicker, full houses against flushes, with 5, 6 and 7 cards.

Keys are built two ways, by adding card keys one at a time (in a shuffled order) and
from the mask (_core.hand_keys), and valued by _core.evaluate_key_batch, the form the
enumerations and play-outs use in C.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import evaluator_pyx as ev

from helpers.references import reference_package

eval7 = reference_package("eval7")
phevaluator = reference_package("phevaluator")
_pheval = reference_package("phevaluator._pheval")
_core = pytest.importorskip("evaluator_pyx._core")

_PH = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards, 7: _pheval.evaluate_7cards}
_E7_CARDS = [eval7.Card(name) for name in ev.CARD_NAMES]
_PH_IDS = [phevaluator.Card(name).id_ for name in ev.CARD_NAMES]


def assert_same_order(ours: np.ndarray, theirs: np.ndarray) -> None:
    """Ours -> theirs is strictly increasing: equal where ours are equal, rising where
    ours rise (higher is better on both sides)."""
    order = np.argsort(ours, kind="stable")
    step_ours = np.diff(ours[order].astype(np.int64))
    step_theirs = np.diff(theirs[order].astype(np.int64))
    ties = step_ours == 0
    assert (ties == (step_theirs == 0)).all(), "hands tied under one evaluator differ under the other"
    assert (step_theirs[~ties] > 0).all(), "hands ordered differently"


def incremental_values(rows: list[list[int]], rng: np.random.Generator) -> np.ndarray:
    """Values through the incremental form, keys built card by card and from masks."""
    masks = np.array([ev.cards_to_mask(r) for r in rows], dtype=np.uint64)
    by_mask = _core.evaluate_key_batch(_core.hand_keys(masks), masks)
    card_keys = _core.card_keys()
    keys = []
    for r in rows:
        key = 0x3333 << 32  # the empty hand: every suit counter at 3
        for c in rng.permutation(r):
            key += card_keys[int(c)]
        keys.append(key)
    by_cards = _core.evaluate_key_batch(np.array(keys, dtype=np.uint64), masks)
    assert (by_mask == by_cards).all(), "a key built card by card differs from the mask's key"
    assert (by_mask == ev.evaluate_batch(masks)).all(), "incremental form differs from the mask path"
    return by_mask.astype(np.int64)


def check_against_references(rows: list[list[int]], rng: np.random.Generator) -> None:
    ours = incremental_values(rows, rng)
    e7 = np.array([eval7.evaluate([_E7_CARDS[c] for c in r]) for r in rows], dtype=np.int64)
    ph = -np.array([_PH[len(r)](*[_PH_IDS[c] for c in r]) for r in rows], dtype=np.int64)
    assert_same_order(ours, e7)
    assert_same_order(ours, ph)


def card(rank: int, suit: int) -> int:
    return 4 * rank + suit


@pytest.mark.parametrize("n_cards", [5, 6, 7])
def test_random_hands(n_cards: int) -> None:
    rng = np.random.default_rng(100 + n_cards)
    rows = [[int(c) for c in row] for row in ev.random_card_arrays(rng, 20_000, n_cards)]
    check_against_references(rows, rng)


def test_every_flush_and_straight_flush_with_off_suit_extras() -> None:
    """All 1,287 five-card words of one suit, alone, with one off-suit card, and with a
    pair of another suit that would make a full house only with the flush's ranks."""
    rng = np.random.default_rng(7)
    rows = []
    for ranks in itertools.combinations(range(13), 5):
        suit = int(rng.integers(4))
        five = [card(r, suit) for r in ranks]
        rows.append(five)
        extra = card(int(rng.integers(13)), (suit + 1) % 4)
        rows.append(five + [extra])
        r0 = ranks[0]
        rows.append(five + [card(r0, (suit + 1) % 4), card(r0, (suit + 2) % 4)])
    check_against_references(rows, rng)


def test_six_and_seven_cards_of_one_suit() -> None:
    """The flush value must come from the best five of six or seven suited cards."""
    rng = np.random.default_rng(8)
    rows = [[card(r, 2) for r in ranks] for n in (6, 7) for ranks in itertools.combinations(range(13), n)]
    check_against_references(rows, rng)


def test_wheels_and_six_highs() -> None:
    """A-2-3-4-5 (the ace low), the wheel straight flush, and the 6-high straight above
    the wheel, with every extra card that does not change the category."""
    rng = np.random.default_rng(9)
    wheel = [12, 0, 1, 2, 3]
    rows = []
    for extra in range(52):
        for suits in ((0, 1, 2, 3, 0), (1, 1, 1, 1, 1), (2, 2, 2, 2, 3)):
            five = [card(r, s) for r, s in zip(wheel, suits)]
            if extra in five:
                continue
            rows.append(five)
            rows.append(five + [extra])
            six_high = [card(r, s) for r, s in zip([0, 1, 2, 3, 4], suits)]
            if extra not in six_high:
                rows.append(six_high + [extra])
    check_against_references(rows, rng)


def test_quads_with_every_kicker() -> None:
    rng = np.random.default_rng(10)
    rows = []
    for q in range(13):
        quads = [card(q, s) for s in range(4)]
        for k in range(13):
            if k == q:
                continue
            rows.append(quads + [card(k, 0)])
            rows.append(quads + [card(k, 1), card(k, 2)])
            rows.append(quads + [card(k, 3), card((k + 1) % 13 if (k + 1) % 13 != q else (k + 2) % 13, 0),
                                 card(k, 0)])
    check_against_references(rows, rng)


def test_full_houses_trips_and_two_pairs_of_seven() -> None:
    """Two trips, trips with two pairs, three pairs: the best five must be chosen."""
    rng = np.random.default_rng(11)
    rows = []
    for a, b in itertools.permutations(range(13), 2):
        rows.append([card(a, 0), card(a, 1), card(a, 2), card(b, 0), card(b, 1), card(b, 2)])
        c = (a + b + 1) % 13
        if c not in (a, b):
            rows.append([card(a, 0), card(a, 1), card(a, 2), card(b, 0), card(b, 1), card(c, 2), card(c, 3)])
            rows.append([card(a, 0), card(a, 1), card(b, 2), card(b, 3), card(c, 0), card(c, 1),
                         card((c + 3) % 13, 2) if (c + 3) % 13 not in (a, b, c) else card(c, 2)])
    check_against_references(rows, rng)


def test_key_of_added_cards_is_the_sum() -> None:
    """Adding a card to a hand is adding its key: a board's key plus a holding's key is
    the key of the whole hand (what the enumerations rely on)."""
    rng = np.random.default_rng(12)
    masks, hkeys = _core.holding_tables()
    for _ in range(300):
        cards = [int(c) for c in rng.choice(52, 7, replace=False)]
        board = ev.cards_to_mask(cards[2:])
        whole = ev.cards_to_mask(cards)
        i = ev.HOLDINGS.index(ev.cards_to_mask(cards[:2]))
        board_key = int(_core.hand_keys(np.array([board], dtype=np.uint64))[0])
        whole_key = int(_core.hand_keys(np.array([whole], dtype=np.uint64))[0])
        assert board_key + hkeys[i] == whole_key
        assert masks[i] | board == whole
