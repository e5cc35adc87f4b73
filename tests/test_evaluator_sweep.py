"""Exhaustive and large random checks of the evaluator against independent evaluators:
eval7 (higher is better) and phevaluator (lower is better, its own card ids).

Two evaluators agree when their values order every set of hands the same way: sorted by
our value, theirs must rise exactly where ours rises and stay put where ours does.
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

pytestmark = pytest.mark.slow

# phevaluator's native entry points (its public evaluate_cards wraps these in Python).
_PH = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards, 7: _pheval.evaluate_7cards}
_E7_CARDS = [eval7.Card(name) for name in ev.CARD_NAMES]
_PH_IDS = np.array([phevaluator.Card(name).id_ for name in ev.CARD_NAMES], dtype=np.int64)


def assert_same_order(ours: np.ndarray, theirs: np.ndarray) -> None:
    """ours -> theirs is a strictly increasing function, one-to-one on the values seen."""
    order = np.argsort(ours, kind="stable")
    step_ours = np.diff(ours[order].astype(np.int64))
    step_theirs = np.diff(theirs[order].astype(np.int64))
    ties_ours = step_ours == 0
    assert (ties_ours == (step_theirs == 0)).all(), "hands tied under one evaluator differ under the other"
    assert (step_theirs[~ties_ours] > 0).all(), "hands ordered differently"


def eval7_values(cards: np.ndarray) -> np.ndarray:
    e = eval7.evaluate
    c = _E7_CARDS
    return np.array([e([c[i] for i in row]) for row in cards.tolist()], dtype=np.int64)


def phevaluator_values(cards: np.ndarray) -> np.ndarray:
    """Negated so that higher is better."""
    f = _PH[cards.shape[1]]
    return -np.fromiter(itertools.starmap(f, _PH_IDS[cards].tolist()), dtype=np.int64, count=len(cards))


def class_representatives() -> np.ndarray:
    """One five-card hand per hand class (7,462 rows): every rank multiset with at most 4
    of a rank, suited so it is no flush, and every 5 distinct ranks all in clubs."""
    rows = []
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        counts = [ranks.count(r) for r in ranks]
        if max(counts) > 4:
            continue
        if len(set(ranks)) == 5:
            suits = [0, 0, 0, 0, 1]
        else:  # the i-th card of a rank gets suit i: distinct cards, never 5 of a suit
            suits = [ranks[:k].count(r) for k, r in enumerate(ranks)]
        rows.append([4 * r + s for r, s in zip(ranks, suits)])
    rows += [[4 * r for r in ranks] for ranks in itertools.combinations(range(13), 5)]
    return np.array(rows, dtype=np.int8)


@pytest.fixture(scope="module")
def class_maps() -> tuple[np.ndarray, np.ndarray]:
    """For each of our values 1..7462, eval7's and (negated) phevaluator's value of that
    class; checked to be order-preserving bijections."""
    reps = class_representatives()
    ours = ev.evaluate_batch(ev.masks_from_cards(reps))
    assert np.array_equal(np.sort(ours), np.arange(1, 7463))
    e7, ph = eval7_values(reps), phevaluator_values(reps)
    assert_same_order(ours, e7)
    assert_same_order(ours, ph)
    e7_of = np.zeros(7463, np.int64)
    e7_of[ours] = e7
    ph_of = np.zeros(7463, np.int64)
    ph_of[ours] = ph
    return e7_of, ph_of


def test_every_five_card_hand_orders_like_eval7_and_phevaluator():
    cards = np.array(list(itertools.combinations(range(52), 5)), dtype=np.int8)
    assert len(cards) == 2_598_960
    ours = ev.evaluate_batch(ev.masks_from_cards(cards))
    assert np.array_equal(np.unique(ours), np.arange(1, 7463))  # every class, nothing else
    assert_same_order(ours, eval7_values(cards))
    assert_same_order(ours, phevaluator_values(cards))
    # Category counts of the 2,598,960 hands (the textbook table).
    counts = np.bincount(np.searchsorted(ev.CATEGORY_FLOOR, ours, side="right") - 1, minlength=9)
    assert counts.tolist() == [1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40]


def test_two_million_random_seven_card_hands(class_maps):
    e7_of, ph_of = class_maps
    rng = np.random.default_rng(777)
    cards = ev.random_card_arrays(rng, 2_000_000, 7)
    ours = ev.evaluate_batch(ev.masks_from_cards(cards))
    ph = phevaluator_values(cards)
    assert_same_order(ours, ph)
    assert np.array_equal(ph_of[ours], ph)
    e7 = eval7_values(cards)
    assert_same_order(ours, e7)
    assert np.array_equal(e7_of[ours], e7)


def test_random_six_card_hands(class_maps):
    e7_of, ph_of = class_maps
    cards = ev.random_card_arrays(np.random.default_rng(66), 300_000, 6)
    ours = ev.evaluate_batch(ev.masks_from_cards(cards))
    assert np.array_equal(e7_of[ours], eval7_values(cards))
    assert np.array_equal(ph_of[ours], phevaluator_values(cards))
