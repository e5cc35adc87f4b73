"""The binned hand-strength and potential kernels against the brute-force reference
(evaluator_pyx.assess_reference: every opponent holding and run-out valued one by one).

The compiled kernels sum weights by rank pair and treat the holdings that can make a
flush apart, with different code for boards holding 3, 4 or 5 cards of a suit and for
run-outs that bring a suit to 3 or 4; these cases are built on purpose here. With
uniform weights every tally is an integer, so those must be equal exactly.
"""
from __future__ import annotations

import numpy as np
import pytest

import evaluator_pyx as ev
from evaluator_pyx import assess_reference as ref

pytest.importorskip("evaluator_pyx._assess")


def card(rank: int, suit: int) -> int:
    return 4 * rank + suit


def suited_deal(rng: np.random.Generator, n_board: int, n_suited: int) -> tuple[int, int]:
    """Hole and board masks with exactly n_suited board cards of one suit."""
    suit = int(rng.integers(4))
    ranks = [int(r) for r in rng.choice(13, n_board, replace=False)]
    board = [card(r, suit) for r in ranks[:n_suited]]
    board += [card(r, (suit + 1 + int(rng.integers(3))) % 4) for r in ranks[n_suited:]]
    rest = [c for c in range(52) if c not in board]
    # Half the time our hole cards are of the board's suit too.
    if rng.random() < 0.5:
        rest_s = [c for c in rest if c & 3 == suit]
        hole = [int(c) for c in rng.choice(rest_s, 2, replace=False)]
    else:
        hole = [int(c) for c in rng.choice(rest, 2, replace=False)]
    return ev.cards_to_mask(hole), ev.cards_to_mask(board)


def weight_table(rng: np.random.Generator) -> np.ndarray:
    """Random weights with a fifth of the holdings at zero."""
    return rng.random(1326) * (rng.random(1326) < 0.8)


@pytest.mark.parametrize("n_board,n_suited", [(3, 0), (3, 2), (3, 3), (4, 2), (4, 3), (4, 4), (5, 3), (5, 4), (5, 5)])
def test_hand_strength_counts_match_brute_force(n_board: int, n_suited: int) -> None:
    rng = np.random.default_rng(10 * n_board + n_suited)
    for k in range(6):
        hole, board = suited_deal(rng, n_board, n_suited)
        if k == 0:
            assert ev.hand_strength_counts(hole, board) == ref.hand_strength_counts(hole, board)
            continue
        w = weight_table(rng)
        assert ev.hand_strength_counts(hole, board, w) == pytest.approx(
            ref.hand_strength_counts(hole, board, w), rel=1e-12, abs=1e-9)


@pytest.mark.parametrize("n_board,n_suited,to_come", [(3, 3, 1), (3, 2, 1), (4, 3, 1), (4, 4, 1), (4, 2, 1)])
def test_one_card_potential_matches_brute_force(n_board: int, n_suited: int, to_come: int) -> None:
    rng = np.random.default_rng(100 + 10 * n_board + n_suited)
    for k in range(3):
        hole, board = suited_deal(rng, n_board, n_suited)
        w = None if k == 0 else weight_table(rng)
        ours = ev.potential_table(hole, board, w, to_come)
        expect = np.array(ref.potential_table(hole, board, w, to_come))
        if w is None:
            assert (ours == expect).all()
        else:
            np.testing.assert_allclose(ours, expect, rtol=1e-11, atol=1e-8)


@pytest.mark.slow
@pytest.mark.parametrize("n_suited", [3, 2])
def test_two_card_flop_potential_matches_brute_force(n_suited: int) -> None:
    """Three suited: every run-out keeps a flush draw (run-outs of the suit reach 4 and
    5); two suited: run-outs of that suit bring the board to 3 or 4."""
    rng = np.random.default_rng(200 + n_suited)
    hole, board = suited_deal(rng, 3, n_suited)
    assert (ev.potential_table(hole, board, None, 2) == np.array(ref.potential_table(hole, board, None, 2))).all()
    w = weight_table(rng)
    np.testing.assert_allclose(ev.potential_table(hole, board, w, 2),
                               np.array(ref.potential_table(hole, board, w, 2)), rtol=1e-11, atol=1e-8)


def test_paper_example_exact() -> None:
    """Billings et al.'s [testbed-1998] worked example: AsQc on 3h4cJh, uniform weights."""
    hole, board = ev.cards_to_mask("As Qc"), ev.cards_to_mask("3h 4c Jh")
    assert round(ev.hand_strength(hole, board), 3) == 0.585
    assert [round(x, 3) for x in ev.hand_potential(hole, board, None, 2)] == [0.208, 0.274]
    assert [round(x, 3) for x in ev.hand_potential(hole, board, None, 1)] == [0.108, 0.145]
