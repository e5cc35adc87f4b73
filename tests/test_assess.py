"""Hand assessment: Billings et al.'s [testbed-1998] worked example, the exact routines against the plain
brute force of assess_reference, the Monte Carlo kernels against exact figures, seeding,
bad input, and which backend gets loaded."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import evaluator_pyx as ev
from evaluator_pyx import assess_reference as ref
from evaluator_pyx import cards_to_mask as M

COMPILED = ev.ASSESS_BACKEND == "cython"
needs_compiled = pytest.mark.skipif(not COMPILED, reason="compiled _assess not built")
PACKAGE_ROOT = str(Path(ev.__file__).resolve().parent.parent)

AQ = M("As Qc")
FLOP_34J = M("3h 4c Jh")


# --- [testbed-1998] §4.2: A-Q on 3-4-J ---------------------------------------------------------


def test_worked_example_hand_strength():
    # 628 hands worse, 9 equal (the other A-Q), 444 better; HS 0.585.
    assert ev.hand_strength_counts(AQ, FLOP_34J) == (628.0, 9.0, 444.0)
    assert round(ev.hand_strength(AQ, FLOP_34J), 3) == 0.585
    # "Against five opponents ... HS5 = .585^5 = .069".
    assert round(ev.hand_strength_n(AQ, FLOP_34J, None, 5), 3) == 0.069


def test_worked_example_table_2_counts():
    table = ev.potential_table(AQ, FLOP_34J, None, 2)
    assert table.tolist() == [
        [449005, 3211, 169504],
        [0, 8370, 540],
        [91981, 1036, 346543],
    ]
    assert table.sum(axis=1).tolist() == [628 * 990, 9 * 990, 444 * 990]
    assert table.sum(axis=0).tolist() == [540986, 12617, 516587]
    assert table.sum() == 1070190 == 1081 * 990


def test_worked_example_potential():
    ppot, npot = ev.hand_potential(AQ, FLOP_34J, None, 2)
    assert (round(ppot, 3), round(npot, 3)) == (0.208, 0.274)
    ppot1, npot1 = ev.hand_potential(AQ, FLOP_34J, None, 1)
    assert (round(ppot1, 3), round(npot1, 3)) == (0.108, 0.145)
    # One card to come: 45 possible cards per opponent holding.
    assert ev.potential_table(AQ, FLOP_34J, None, 1).sum() == 1081 * 45


def test_worked_example_ehs():
    hs = ev.hand_strength(AQ, FLOP_34J)
    ppot1 = ev.hand_potential(AQ, FLOP_34J, None, 1)[0]
    assert ev.ehs(AQ, FLOP_34J) == pytest.approx(hs + (1 - hs) * ppot1, abs=1e-15)
    hs5 = hs**5
    assert ev.ehs(AQ, FLOP_34J, None, 5) == pytest.approx(hs5 + (1 - hs5) * ppot1, abs=1e-15)
    two = ev.ehs(AQ, FLOP_34J, None, 1, cards_to_come=2)
    assert two == pytest.approx(hs + (1 - hs) * ev.hand_potential(AQ, FLOP_34J, None, 2)[0])


def test_card_strings_are_accepted():
    assert ev.hand_strength("As Qc", "3h 4c Jh") == ev.hand_strength(AQ, FLOP_34J)
    assert ev.hand_strength(["As", "Qc"], ["3h", "4c", "Jh"]) == ev.hand_strength(AQ, FLOP_34J)


# --- against the brute force ------------------------------------------------------------


def _deal(rng: np.random.Generator, n_board: int) -> tuple[int, int]:
    cards = [int(c) for c in rng.choice(52, n_board + 2, replace=False)]
    return M(cards[:2]), M(cards[2:])


def _weights(rng: np.random.Generator, kind: str) -> np.ndarray | None:
    if kind == "uniform":
        return None
    if kind == "random":
        return rng.random(1326)
    if kind == "sparse":
        # Mostly zero with a few heavy holdings: stresses card removal and empty rows.
        w = np.zeros(1326)
        idx = rng.choice(1326, 25, replace=False)
        w[idx] = rng.random(25) * 10
        return w
    # Poki-style: re-weighted table with a floor of 0.01 ([poki-2002]).
    return np.maximum(rng.random(1326) ** 3, 0.01)


KINDS = ["uniform", "random", "sparse", "floor"]


@pytest.mark.parametrize("n_board", [3, 4, 5])
@pytest.mark.parametrize("kind", KINDS)
def test_hand_strength_equals_brute_force(n_board, kind):
    rng = np.random.default_rng(100 * n_board + KINDS.index(kind))
    for _ in range(40):
        hole, board = _deal(rng, n_board)
        w = _weights(rng, kind)
        counts = ev.hand_strength_counts(hole, board, w)
        expect = ref.hand_strength_counts(hole, board, w)
        assert counts == pytest.approx(expect, rel=1e-12, abs=1e-9)
        if sum(expect) > 0:
            assert ev.hand_strength(hole, board, w) == pytest.approx(
                ref.hand_strength(hole, board, w), abs=1e-9
            )
        else:
            with pytest.raises(ValueError):
                ev.hand_strength(hole, board, w)


def test_hand_strength_multi_and_n():
    rng = np.random.default_rng(5)
    hole, board = _deal(rng, 4)
    tables = [rng.random(1326), None, rng.random(1326)]
    expect = 1.0
    for w in tables:
        expect *= ref.hand_strength(hole, board, w)
    assert ev.hand_strength_multi(hole, board, tables) == pytest.approx(expect, abs=1e-12)
    hs = ref.hand_strength(hole, board, tables[0])
    assert ev.hand_strength_n(hole, board, tables[0], 3) == pytest.approx(hs**3, abs=1e-12)


def _assert_table_close(ours: np.ndarray, expect: list[list[float]]) -> None:
    expect_arr = np.array(expect)
    scale = max(1.0, float(expect_arr.sum()))
    assert np.abs(ours - expect_arr).max() <= 1e-12 * scale
    assert ev.ppot_npot(ours) == pytest.approx(ref.ppot_npot(expect), abs=1e-9)


@pytest.mark.parametrize("n_board", [3, 4])
@pytest.mark.parametrize("kind", KINDS)
def test_one_card_potential_equals_brute_force(n_board, kind):
    rng = np.random.default_rng(200 + 10 * n_board + KINDS.index(kind))
    for _ in range(8):
        hole, board = _deal(rng, n_board)
        w = _weights(rng, kind)
        ours = ev.potential_table(hole, board, w, 1)
        expect = ref.potential_table(hole, board, w, 1)
        _assert_table_close(ours, expect)
        assert ev.hand_potential(hole, board, w, 1) == pytest.approx(ref.ppot_npot(expect), abs=1e-9)


@pytest.mark.parametrize("kind", ["uniform", "random", "sparse"])
def test_two_card_potential_equals_brute_force(kind):
    rng = np.random.default_rng(300 + KINDS.index(kind))
    for _ in range(2):
        hole, board = _deal(rng, 3)
        w = _weights(rng, kind)
        _assert_table_close(ev.potential_table(hole, board, w, 2), ref.potential_table(hole, board, w, 2))


def test_ehs_with_a_table_per_opponent():
    rng = np.random.default_rng(11)
    hole, board = _deal(rng, 3)
    tables = [rng.random(1326), rng.random(1326)]
    hs_n = ref.hand_strength(hole, board, tables[0]) * ref.hand_strength(hole, board, tables[1])
    live = np.array([(m & (hole | board)) == 0 for m in ev.HOLDINGS])
    mix = sum(np.where(live, w, 0) / w[live].sum() for w in tables)
    ppot = ref.hand_potential(hole, board, mix, 1)[0]
    assert ev.ehs(hole, board, tables) == pytest.approx(hs_n + (1 - hs_n) * ppot, abs=1e-9)


def test_ehs_on_the_river_is_hs_n():
    rng = np.random.default_rng(12)
    hole, board = _deal(rng, 5)
    w = rng.random(1326)
    assert ev.ehs(hole, board, w, 2) == pytest.approx(ref.hand_strength(hole, board, w) ** 2, abs=1e-12)


@pytest.mark.parametrize("n_board", [3, 4, 5])
def test_holding_values_equal_brute_force(n_board):
    rng = np.random.default_rng(400 + n_board)
    for _ in range(25):
        board = _deal(rng, n_board)[1]
        values = ev.holding_values(board)
        assert values.dtype == np.int32 and values.shape == (1326,)
        assert values.tolist() == ref.holding_values(board)
        assert (values == 0).sum() == 1326 - (52 - n_board) * (51 - n_board) // 2


@pytest.mark.parametrize("n_board", [3, 4, 5])
@pytest.mark.parametrize("kind", KINDS)
def test_holding_strengths_equal_brute_force(n_board, kind):
    rng = np.random.default_rng(500 + 10 * n_board + KINDS.index(kind))
    board = _deal(rng, n_board)[1]
    w = _weights(rng, kind)
    ours = ev.holding_strengths(board, w)
    expect = np.array(ref.holding_strengths(board, w))
    assert np.abs(ours - expect).max() <= 1e-9


@pytest.mark.slow
def test_holding_strengths_with_ties_and_flush_boards():
    # Boards where many holdings tie (a straight on board) or a flush is on board.
    for text in ("5c 6d 7h 8s 9c", "2h 7h 9h Jh Kh", "Ac Ad Ah As Kc", "2c 2d 3h", "Th Jh Qh Kh"):
        board = M(text)
        w = np.random.default_rng(len(text)).random(1326)
        assert np.abs(ev.holding_strengths(board, w) - np.array(ref.holding_strengths(board, w))).max() <= 1e-9
        assert np.abs(ev.holding_strengths(board) - np.array(ref.holding_strengths(board))).max() <= 1e-9


def test_holding_strengths_agree_with_hand_strength():
    rng = np.random.default_rng(9)
    board = _deal(rng, 4)[1]
    w = rng.random(1326)
    strengths = ev.holding_strengths(board, w)
    for i in rng.choice(1326, 40, replace=False):
        hole = ev.HOLDINGS[i]
        if hole & board:
            assert strengths[i] == 0.0
        else:
            assert strengths[i] == pytest.approx(ev.hand_strength(hole, board, w), abs=1e-12)


def test_out_arrays_are_filled_in_place():
    board = M("2c 7d 9h Js")
    out_v = np.zeros(1326, dtype=np.int32)
    out_s = np.zeros(1326)
    assert ev.holding_values(board, out=out_v) is out_v
    assert ev.holding_strengths(board, None, out=out_s) is out_s
    assert out_v.tolist() == ev.holding_values(board).tolist()


@pytest.mark.parametrize(
    "text, kind", [("3h 4c Jh", "random"), ("2h 7h 9h Ks", "uniform"), ("5c 5d 9s", "sparse"), ("Ts Js Qs Ks", "floor")]
)
def test_batched_one_card_ppot_equals_pairwise_brute_force(text, kind):
    board = M(text)
    w = _weights(np.random.default_rng(len(text)), kind)
    ours = ev.holding_ppot(board, w)
    expect = np.array(ref.holding_ppot(board, w))
    assert np.abs(ours - expect).max() <= 1e-9


def test_batched_one_card_ppot_equals_table_2_per_holding():
    board = FLOP_34J
    ppot = ev.holding_ppot(board)
    assert round(ppot[ev.holding_index(AQ)], 3) == 0.108
    rng = np.random.default_rng(40)
    w = rng.random(1326)
    ppot_w = ev.holding_ppot(board | M("9d"), w)
    for i in rng.choice(1326, 30, replace=False):
        hole = ev.HOLDINGS[i]
        if hole & (board | M("9d")):
            assert ppot_w[i] == 0.0
        else:
            assert ppot_w[i] == pytest.approx(ev.hand_potential(hole, board | M("9d"), w, 1)[0], abs=1e-12)
    with pytest.raises(ValueError):
        ev.holding_ppot(board | M("9d 2s"))


# --- Monte Carlo ------------------------------------------------------------------------


def _equity_from_table(table: np.ndarray) -> float:
    """Final share against one opponent: the columns of Table 2 after the run-out."""
    cols = table.sum(axis=0)
    return (cols[0] + cols[1] / 2) / cols.sum()


@pytest.mark.parametrize("text", [("As Qc", "3h 4c Jh"), ("8h 7h", "9h 6d 2h"), ("2c 2d", "Kh Qs 9d")])
def test_win_probability_against_exact_equity(text):
    hole, board = M(text[0]), M(text[1])
    exact = _equity_from_table(ev.potential_table(hole, board, None, 2))
    mean, se = ev.rollout(hole, board, 1, 200_000, 17)
    assert abs(mean - exact) < 4 * se
    assert ev.win_probability(hole, board, 1, 200_000, 17) == mean


def test_weighted_rollout_against_exact():
    rng = np.random.default_rng(21)
    hole, board = _deal(rng, 3)
    w = rng.random(1326) ** 4
    exact = _equity_from_table(ev.potential_table(hole, board, w, 2))
    mean, se = ev.rollout(hole, board, 1, 200_000, 5, w)
    assert abs(mean - exact) < 4 * se
    # On the river the roll-out is the hand strength itself.
    hole, board = _deal(rng, 5)
    exact = ev.hand_strength(hole, board, w)
    mean, se = ev.rollout(hole, board, 1, 200_000, 6, w)
    assert abs(mean - exact) < 4 * se


def test_multiway_rollout_agrees_with_reference_simulation():
    hole, board = M("Ah Kh"), M("Qh 7c 2h")
    mean, se = ev.rollout(hole, board, 3, 100_000, 1)
    ref_mean, ref_se = ref.rollout(hole, board, 3, 6_000, 2)
    assert abs(mean - ref_mean) < 4 * (se**2 + ref_se**2) ** 0.5
    # Pre-flop aces against three random hands win about 64% (a known figure).
    assert ev.win_probability("As Ad", 0, 3, 100_000, 3) == pytest.approx(0.64, abs=0.01)


def test_weighted_multiway_rollout_with_one_table_each():
    # Opponents who can only hold specific hands: exact answer known.
    hole, board = M("As Ks"), M("2c 7d 9h Jc 3s")
    w1 = np.zeros(1326)
    w1[ev.holding_index(M("Qc Qd"))] = 1.0           # beats us (a pair of queens)
    w2 = np.zeros(1326)
    w2[ev.holding_index(M("4c 5d"))] = 1.0           # loses
    assert ev.rollout(hole, board, 2, 1000, 1, np.array([w1, w2]))[0] == 0.0
    assert ev.rollout(hole, board, 1, 1000, 1, w2) == (1.0, 0.0)
    # Both drawn from one table holding only one hand: no consistent deal.
    with pytest.raises(ValueError):
        ev.rollout(hole, board, 2, 10, 1, w1)


def test_seeded_runs_reproduce():
    hole, board = M("Td 9d"), M("8d 2s")
    a = ev.rollout(hole, board, 4, 20_000, 123)
    assert ev.rollout(hole, board, 4, 20_000, 123) == a
    assert ev.rollout(hole, board, 4, 20_000, 124) != a
    w = np.random.default_rng(0).random(1326)
    b = ev.rollout(hole, board, 2, 5_000, 9, w)
    assert ev.rollout(hole, board, 2, 5_000, 9, w) == b
    assert ev.income_rollout(hole, 3, 5_000, 4) == ev.income_rollout(hole, 3, 5_000, 4)


def test_income_rollout_against_reference_simulation():
    plays = np.ones(169, dtype=np.uint8)
    plays[np.arange(0, 169, 3)] = 0
    for hole in (M("As Ad"), M("7c 2d")):
        for blinds in (False, True):
            mean, se = ev.income_rollout(hole, 3, 100_000, 8, plays, blinds)
            ref_mean, ref_se = ref.income_rollout(hole, 3, 6_000, 8, plays.tolist(), blinds=blinds)
            assert abs(mean - ref_mean) < 4 * (se**2 + ref_se**2) ** 0.5
    # Everyone folds: nothing is won or lost.
    assert ev.income_rollout(M("As Ad"), 3, 1000, 1, np.zeros(169)) == (0.0, 0.0)
    # With blinds, heads-up: half the time the opponent is the big blind and plays (we
    # win 2 * equity - 1), half the time the small blind, who folds and leaves half a bet.
    mean, se = ev.income_rollout(M("7c 2d"), 1, 200_000, 3, np.zeros(169), True)
    equity = ev.win_probability(M("7c 2d"), 0, 1, 200_000, 4)
    assert mean == pytest.approx(0.5 * (2 * equity - 1) + 0.5 * 0.5, abs=0.01)
    # Everyone plays: blinds change nothing (each player has one small bet in).
    assert ev.income_rollout(hole, 4, 1000, 5, None, True) == ev.income_rollout(hole, 4, 1000, 5)


def test_hand_types():
    names = ev.HAND_TYPE_NAMES
    assert len(names) == len(set(names)) == 169
    types = ev.holding_type_table()
    assert np.bincount(types, minlength=169).tolist() == [
        6 if n[0] == n[1] else (4 if n.endswith("s") else 12) for n in names
    ]
    assert names[ev.hand_type_of_holding(ev.holding_index(M("As Ks")))] == "AKs"
    assert names[ev.hand_type_of_holding(ev.holding_index(M("Ac Kd")))] == "AKo"
    assert names[ev.hand_type_of_holding(ev.holding_index(M("7h 7c")))] == "77"
    assert types.tolist() == ref.holding_types()


# --- bad input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: ev.hand_strength(M("As Ks Qs"), FLOP_34J),
        lambda: ev.hand_strength(AQ, M("3h 4c")),
        lambda: ev.hand_strength(AQ, M("As 4c Jh")),
        lambda: ev.hand_strength(AQ, 1 << 13 | FLOP_34J),
        lambda: ev.hand_strength(AQ, FLOP_34J, np.ones(10)),
        lambda: ev.hand_strength(AQ, FLOP_34J, -np.ones(1326)),
        lambda: ev.hand_strength(AQ, FLOP_34J, np.full(1326, np.nan)),
        lambda: ev.hand_strength(AQ, FLOP_34J, np.zeros(1326)),
        lambda: ev.hand_potential(AQ, FLOP_34J | M("2d"), None, 2),
        lambda: ev.hand_potential(AQ, FLOP_34J | M("2d 5d"), None, 1),
        lambda: ev.hand_potential(AQ, FLOP_34J, None, 0),
        lambda: ev.holding_values(M("2c 3c")),
        lambda: ev.rollout(AQ, FLOP_34J, 0),
        lambda: ev.rollout(AQ, FLOP_34J, 23),
        lambda: ev.rollout(AQ, FLOP_34J, 1, 0),
        lambda: ev.rollout(AQ, FLOP_34J, 2, 10, 0, np.ones((3, 1326))),
        lambda: ev.rollout(AQ, FLOP_34J, 1, 10, 0, np.zeros(1326)),
        lambda: ev.income_rollout(AQ, 3, 100, 0, np.ones(10)),
        lambda: ev.hand_strength("As Qx", FLOP_34J),
    ],
)
def test_bad_input_is_rejected(call):
    with pytest.raises((ValueError, TypeError)):
        call()


# --- backends ---------------------------------------------------------------------------

_BLOCK = """
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "evaluator_pyx._assess":
            raise ImportError("evaluator_pyx._assess blocked by the test")
        return None

sys.meta_path.insert(0, Block())
"""

_REPORT = """
import evaluator_pyx as ev
m = ev.cards_to_mask
print(ev.ASSESS_BACKEND, round(ev.hand_strength(m("As Qc"), m("3h 4c Jh")), 3),
      [round(x, 3) for x in ev.hand_potential(m("As Qc"), m("3h 4c Jh"), None, 1)],
      ev.holding_values(m("2c 7d 9h Js Qs"))[:3].tolist())
"""


def _run(code: str, require: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("POKI_REQUIRE_COMPILED", None)
    if require is not None:
        env["POKI_REQUIRE_COMPILED"] = require
    env["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def test_missing_assess_falls_back_to_python():
    result = _run(_BLOCK + _REPORT, None)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split(maxsplit=1)[0] == "python"
    expect = _run(_REPORT, None).stdout.split(maxsplit=1)[1]
    assert result.stdout.split(maxsplit=1)[1] == expect


def test_missing_assess_is_an_import_error_when_compiled_required():
    result = _run(_BLOCK + _REPORT, "1")
    assert result.returncode != 0
    assert "ImportError" in result.stderr and "POKI_REQUIRE_COMPILED" in result.stderr
    assert "_assess" in result.stderr


@needs_compiled
def test_compiled_backend_loaded_when_required():
    if os.environ.get("POKI_REQUIRE_COMPILED") == "1":
        assert ev.ASSESS_BACKEND == "cython"


@pytest.mark.slow
def test_python_backend_matches_compiled_on_small_cases():
    from evaluator_pyx import _assess_python as py

    rng = np.random.default_rng(31)
    hole, board = _deal(rng, 5)
    w = rng.random(1326)
    assert py.hand_strength(hole, board, w) == pytest.approx(ev.hand_strength(hole, board, w), abs=1e-12)
    hole, board = _deal(rng, 4)
    assert py.hand_potential(hole, board, w, 1) == pytest.approx(ev.hand_potential(hole, board, w, 1), abs=1e-9)
    assert py.holding_values(board).tolist() == ev.holding_values(board).tolist()
