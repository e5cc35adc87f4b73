"""The card abstraction of the heads-up equilibrium (agent.engine.abstraction) and its
kernels (evaluator_pyx holding_ehs2, river_hs2_sums, river_pair_outcomes): E[HS²] against
eval7's evaluator by plain enumeration, the compiled kernels against the pure-Python
ones, the percentile buckets, the flop table against direct computation, and the
measured chance model's own consistency."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.engine import abstraction as ab
from evaluator_pyx import _abstraction_python as ref
from tests.helpers.references import reference_package


def _mask(text: str) -> int:
    return ev.cards_to_mask(ev.parse_cards(text))


def _eval7_ehs2(hole: str, board: str) -> float:
    """E[HS²] of one holding by enumerating every river card and every opponent holding
    with eval7's evaluator (one to two cards to come)."""
    eval7 = reference_package("eval7")
    hole_c = ev.parse_cards(hole)
    board_c = ev.parse_cards(board)
    deck = [c for c in range(52) if c not in hole_c and c not in board_c]
    card = [eval7.Card(ev.CARD_NAMES[c]) for c in range(52)]
    total = 0.0
    runs = 0
    for extra in itertools.combinations(deck, 5 - len(board_c)):
        full = board_c + list(extra)
        left = [c for c in deck if c not in extra]
        ours = eval7.evaluate([card[c] for c in hole_c + full])
        score = 0.0
        count = 0
        for a, b in itertools.combinations(left, 2):
            theirs = eval7.evaluate([card[a], card[b]] + [card[c] for c in full])
            score += 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0
            count += 1
        total += (score / count) ** 2
        runs += 1
    return total / runs


@pytest.mark.parametrize("hole, board", [("Ah Kh", "Qh 7h 2c 9s"), ("5d 5c", "Ks Jd 5h 2s"),
                                         ("8c 7c", "9c 6d 2h Td 3s")])
def test_ehs2_matches_eval7_enumeration(hole, board):
    values = ev.holding_ehs2(_mask(board))
    h = ev.holding_index_of_cards(*ev.parse_cards(hole))
    assert values[h] == pytest.approx(_eval7_ehs2(hole, board), abs=1e-12)


def test_ehs2_compiled_equals_reference_and_marks_dead_holdings():
    for board in ("As Kd 7h 4c 2s", "Td 9d 8c 2h", "Qs Qh 3d"):
        mask = _mask(board)
        fast = ev.holding_ehs2(mask)
        if len(board.split()) == 3:
            # The pure-Python flop takes minutes; compare a turn of it instead.
            mask |= _mask("2c")
            fast = ev.holding_ehs2(mask)
        slow = ref.holding_ehs2(mask)
        assert np.array_equal(fast, slow)
        dead = (ev.HOLDINGS_ARRAY & np.uint64(mask)) != 0
        assert (fast[dead] == -1.0).all() and (fast[~dead] >= 0.0).all() and (fast[~dead] <= 1.0).all()


def test_suit_changes_leave_ehs2_exactly_equal():
    # Two boards alike up to a change of suits give every holding the image's value, bit
    # for bit (integer sums), so percentile buckets never split equivalent holdings.
    perm = (2, 0, 3, 1)
    board = ev.parse_cards("Kc 9d 4h")
    image = [ab._permute_card(c, perm) for c in board]
    a = ev.holding_ehs2(ev.cards_to_mask(board))
    b = ev.holding_ehs2(ev.cards_to_mask(image))
    hmap = ab._holding_maps()[ab._SUIT_PERMS.index(perm)]
    assert np.array_equal(a, b[hmap])


def test_river_pair_outcomes_count_every_disjoint_pair():
    board = _mask("Js 8d 8c 3h 2s")
    buckets = (np.arange(ev.N_HOLDINGS) % 3).astype(np.uint8)
    won = np.zeros((3, 3))
    pairs = np.zeros((3, 3))
    ev.river_pair_outcomes(board, buckets, 3, won, pairs)
    won_ref = np.zeros((3, 3))
    pairs_ref = np.zeros((3, 3))
    ref.river_pair_outcomes(board, buckets, 3, won_ref, pairs_ref)
    assert np.array_equal(won, won_ref) and np.array_equal(pairs, pairs_ref)
    # 1081 live holdings, each facing C(45, 2) = 990 others: ordered pairs.
    assert pairs.sum() == 1081 * 990
    # Every pair's pot goes somewhere: won[i, j] + won[j, i] = pairs[i, j].
    assert np.allclose(won + won.T, pairs)


def test_percentile_buckets_split_evenly_and_keep_ties_together():
    values = np.array([0.1, 0.2, 0.2, 0.3, 0.4, 0.5, 0.5, 0.5, 0.9, 1.0])
    live = np.ones(10, dtype=bool)
    live[0] = False
    b = ab.percentile_buckets(values, live, 3)
    assert b[0] == ab.DEAD
    # Nine live values; mid-rank percentiles 1/18, 1/18... of equal values are equal.
    assert b[1] == b[2] and b[5] == b[6] == b[7]
    assert list(b[1:]) == sorted(b[1:])
    assert set(b[1:]) == {0, 1, 2}


def test_flop_table_lookup_equals_direct_buckets():
    rng = np.random.default_rng(4)
    flops = [tuple(int(c) for c in rng.permutation(52)[:3]) for _ in range(6)]
    table = np.full((len(ab.canonical_flops()), ev.N_HOLDINGS), ab.DEAD, dtype=np.uint8)
    index = ab._canonical_index()
    for f in flops:
        canon, _ = ab._canonical(f)
        table[index[canon]] = ab._flop_rows([canon], 4)[0]
    pre = np.zeros(ev.N_HOLDINGS, dtype=np.uint8)
    with_table = ab.CardAbstraction((1, 4, 2, 2), pre, table)
    direct = ab.CardAbstraction((1, 4, 2, 2), pre)
    assert len(ab.canonical_flops()) == 1755
    for f in flops:
        assert np.array_equal(with_table.board_buckets(list(f)), direct.board_buckets(list(f)))


@pytest.fixture(scope="module")
def chance() -> ab.ChanceModel:
    return ab.measure((3, 2, 2, 3), 20, seed=5, turns=2, rivers=2, with_flop_table=False)


@pytest.mark.slow
def test_measured_chance_model_is_a_distribution(chance):
    p = chance.sequence_probs
    assert p.shape == (3, 2, 2, 3) and p.min() >= 0.0 and p.sum() == pytest.approx(1.0)
    # Pre-flop buckets split the 1326 holdings into thirds (by combinations).
    counts = np.bincount(chance.abstraction.preflop, minlength=3)
    assert counts.sum() == 1326 and counts.min() > 380
    assert p.sum(axis=(1, 2, 3)) == pytest.approx(counts / 1326, abs=0.02)
    # Later buckets are percentiles on each board: a third, half... of each board's holdings.
    assert p.sum(axis=(0, 2, 3)) == pytest.approx([0.5, 0.5], abs=0.03)
    assert p.sum(axis=(0, 1, 2)) == pytest.approx([1 / 3] * 3, abs=0.03)
    root, conds = chance.conditionals()
    assert root.sum() == pytest.approx(1.0)
    for r, cond in enumerate(conds, start=1):
        assert cond.reshape(-1, chance.abstraction.buckets[r]).sum(axis=1) == pytest.approx(1.0)


@pytest.mark.slow
def test_showdown_share_is_zero_sum_and_ordered(chance):
    share = chance.share
    assert np.allclose(share + share.T, 1.0)
    assert np.diag(share) == pytest.approx(0.5)
    # River buckets are percentiles of hand strength on the board: higher wins.
    for i in range(3):
        for j in range(i):
            assert share[i, j] > 0.95


@pytest.mark.slow
def test_measure_is_a_function_of_its_arguments():
    a = ab.measure((2, 2, 2, 2), 4, seed=9, turns=1, rivers=2, with_flop_table=False)
    b = ab.measure((2, 2, 2, 2), 4, seed=9, turns=1, rivers=2, with_flop_table=False, workers=2)
    c = ab.measure((2, 2, 2, 2), 4, seed=10, turns=1, rivers=2, with_flop_table=False)
    assert a.digest() == b.digest()
    assert a.digest() != c.digest()


def test_bad_abstractions_are_refused():
    with pytest.raises(ValueError, match="buckets per round"):
        ab.measure((2, 2, 2), 4, seed=1)
    with pytest.raises(ValueError, match="pre-flop table"):
        ab.CardAbstraction((2, 2, 2, 2), np.full(ev.N_HOLDINGS, 3, dtype=np.uint8))
    with pytest.raises(ValueError, match="3-5 cards"):
        ev.holding_ehs2(_mask("As Kd"))
