"""Hand strength against weight tables on boards with three cards of a suit: the kernel
counts flush holdings at their rank pair's value and then moves them, and that subtraction
must never leave a negative share (a hand that beats nothing is HS 0, not an error).
Checked against a plain count over every holding with the 7-card evaluator."""
import numpy as np
import pytest

import evaluator_pyx as ev


def brute_hs(hole: int, board: int, weights: np.ndarray) -> float:
    ours = ev.evaluate(hole | board)
    ahead = tied = total = 0.0
    for i, h in enumerate(ev.HOLDINGS):
        if h & (hole | board) or weights[i] <= 0:
            continue
        theirs = ev.evaluate(h | board)
        total += weights[i]
        ahead += weights[i] * (ours > theirs)
        tied += weights[i] * (ours == theirs)
    return (ahead + 0.5 * tied) / total


@pytest.mark.parametrize("seed", range(8))
def test_hand_that_beats_nothing_on_a_flush_board(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # A flop of three spades and a hole that makes nothing (one low spade, no pair).
    board = ev.cards_to_mask(ev.parse_cards("2s Js Ks"))
    hole = ev.cards_to_mask(ev.parse_cards("8s Tc"))
    ours = ev.evaluate(hole | board)
    # Weights of the kind re-weighting leaves (products of a few factors).
    weights = rng.choice([1.0, 0.505, 0.3, 0.13, 0.0201, 0.01], ev.N_HOLDINGS)
    for i, h in enumerate(ev.HOLDINGS):
        # Only holdings that beat or tie us keep weight: we are never ahead.
        if h & (hole | board) or ev.evaluate(h | board) < ours:
            weights[i] = 0.0
    hs = ev.hand_strength(hole, board, weights)
    assert hs == pytest.approx(brute_hs(hole, board, weights), abs=1e-12)
    ahead, tied, behind = ev.hand_strength_counts(hole, board, weights)
    assert ahead >= 0.0 and tied >= 0.0 and behind >= 0.0


def test_mixed_tables_on_flush_boards_match_a_plain_count() -> None:
    rng = np.random.default_rng(11)
    for _ in range(4):
        cards = rng.permutation(52)
        suit_cards = [c for c in cards if ev.card_suit(int(c)) == ev.card_suit(int(cards[0]))][:3]
        rest = [int(c) for c in cards if c not in suit_cards][:2]
        board = ev.cards_to_mask([int(c) for c in suit_cards])
        hole = ev.cards_to_mask(rest)
        weights = rng.uniform(0.0, 1.0, ev.N_HOLDINGS) * (rng.uniform(size=ev.N_HOLDINGS) < 0.3)
        assert ev.hand_strength(hole, board, weights) == pytest.approx(brute_hs(hole, board, weights), abs=1e-9)


def test_flush_holdings_only_never_error() -> None:
    """A table a match produced (flush draws re-weighted after several actions): every
    holding with weight is two spades, each a flush that beats our eight-high. The flush
    moves subtract exactly what was added, in another order; the share must come out 0."""
    board = ev.cards_to_mask(ev.parse_cards("2s Js Ks"))
    hole = ev.cards_to_mask(ev.parse_cards("8s Tc"))
    heavy = {"3s As": 0.47513574660633495, "4s As": 0.5572624434389144, "5s As": 0.6916515837104077,
             "6s As": 0.631923076923077, "7s As": 0.7215158371040727, "9s Ts": 0.3855429864253398,
             "9s Qs": 0.4602036199095024, "9s As": 0.9305656108597288, "Ts Qs": 0.7588461538461542,
             "Ts As": 1.0, "Qs As": 1.0}
    weights = np.zeros(ev.N_HOLDINGS)
    low = ["3s", "4s", "5s", "6s", "7s", "9s", "Ts", "Qs", "As"]
    for i, a in enumerate(low):
        for b in low[i + 1:]:
            mask = ev.cards_to_mask(ev.parse_cards(f"{a} {b}"))
            weights[ev.holding_index(mask)] = heavy.get(f"{a} {b}", 0.01)
    assert ev.hand_strength(hole, board, weights) == 0.0 == brute_hs(hole, board, weights)
    ahead, tied, behind = ev.hand_strength_counts(hole, board, weights)
    assert ahead == 0.0 and tied == 0.0 and behind == pytest.approx(weights.sum())
