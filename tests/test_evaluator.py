"""The hand evaluator: values against the pure-Python reference, known hands, the
incremental-key path, bad input, and which backend gets loaded."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evaluator_pyx as ev
from evaluator_pyx import CardError, _python, _reference, cards_to_mask

from helpers.tiers import examples

COMPILED = ev.BACKEND == "cython"
needs_compiled = pytest.mark.skipif(not COMPILED, reason="compiled core not built")
PACKAGE_ROOT = str(Path(ev.__file__).resolve().parent.parent)


def value(text: str) -> int:
    return ev.evaluate(cards_to_mask(text))


# --- backend ---------------------------------------------------------------------------


def test_required_compiled_backend_is_loaded():
    if os.environ.get("POKI_REQUIRE_COMPILED") == "1":
        assert ev.BACKEND == "cython"
    assert ev.BACKEND in ("cython", "python")


_BLOCK_CORE = """
import importlib.abc, sys

class BlockCore(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "evaluator_pyx._core":
            raise ImportError("evaluator_pyx._core blocked by the test")
        return None

sys.meta_path.insert(0, BlockCore())
"""

_REPORT = """
import evaluator_pyx as ev
print(ev.BACKEND, ev.evaluate(ev.cards_to_mask("As Ks Qs Js Ts")))
"""


def _run(code: str, require: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("POKI_REQUIRE_COMPILED", None)
    if require is not None:
        env["POKI_REQUIRE_COMPILED"] = require
    env["PYTHONPATH"] = PACKAGE_ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )


def test_require_compiled_with_core_present_loads_cython():
    if importlib.util.find_spec("evaluator_pyx._core") is None and os.environ.get("POKI_REQUIRE_COMPILED") != "1":
        pytest.skip("compiled core not built")
    result = _run(_REPORT, "1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["cython", "7462"]


def test_missing_core_falls_back_to_python():
    result = _run(_BLOCK_CORE + _REPORT, None)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["python", "7462"]


def test_missing_core_is_an_import_error_when_compiled_required():
    result = _run(_BLOCK_CORE + _REPORT, "1")
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert "POKI_REQUIRE_COMPILED" in result.stderr
    assert ev.INSTALL_COMMAND in result.stderr


# --- values against the reference ------------------------------------------------------


def test_category_floors_match_reference():
    assert ev.CATEGORY_FLOOR == _reference.CATEGORY_FLOOR
    assert ev.CATEGORIES == _reference.CATEGORIES


@pytest.mark.parametrize("n_cards", [5, 6, 7])
def test_agrees_with_reference_on_random_hands(n_cards):
    rng = np.random.default_rng(20240 + n_cards)
    cards = ev.random_card_arrays(rng, 6700, n_cards)
    ours = ev.evaluate_batch(ev.masks_from_cards(cards))
    theirs = [_reference.evaluate_cards([int(c) for c in row]) for row in cards]
    assert ours.tolist() == theirs


def test_single_call_matches_batch():
    rng = np.random.default_rng(7)
    for n_cards in (5, 6, 7):
        masks = ev.random_hand_masks(rng, 3000, n_cards)
        batch = ev.evaluate_batch(masks)
        assert [ev.evaluate(int(m)) for m in masks] == batch.tolist()
        cards = ev.cards_from_masks(masks, n_cards)
        assert [ev.evaluate_cards([int(c) for c in row]) for row in cards] == batch.tolist()


def test_python_backend_matches_compiled():
    rng = np.random.default_rng(11)
    for n_cards in (5, 6, 7):
        masks = ev.random_hand_masks(rng, 300, n_cards)
        assert _python.evaluate_batch(masks).tolist() == ev.evaluate_batch(masks).tolist()
        assert [_python.evaluate(int(m)) for m in masks[:50]] == ev.evaluate_batch(masks[:50]).tolist()
    for text in ["As Ks Qs Js Ts", "Ah 2c 3d 4s 5h", "7c 5d 4h 3s 2c 9d"]:
        cards = ev.parse_cards(text)
        assert _python.evaluate_cards(cards) == ev.evaluate_cards(cards)
        assert _python.hand_category(value(text)) == ev.hand_category(value(text))


# --- known hands -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, category",
    [
        ("As Ks Qs Js Ts", "straight flush"),
        ("5d 4d 3d 2d Ad", "straight flush"),
        ("9c 9d 9h 9s 2c", "four of a kind"),
        ("Ac Ad Ah Ks Kd", "full house"),
        ("Ah Kh Qh Jh 9h", "flush"),
        ("Ah 2c 3d 4s 5h", "straight"),
        ("Tc Jd Qh Ks Ac", "straight"),
        ("7c 7d 7h Ks 2d", "three of a kind"),
        ("7c 7d 2h 2s Ad", "two pair"),
        ("7c 7d 2h 3s Ad", "pair"),
        ("As Kd Qh Jc 9s", "high card"),
        ("Qs Kd Ah 2c 3d", "high card"),  # no wrap-around straight
    ],
)
def test_categories_of_known_hands(text, category):
    assert ev.hand_category(value(text)) == category


def test_extremes_and_floors():
    assert value("As Ks Qs Js Ts") == 7462
    assert value("7c 5d 4h 3s 2c") == 1
    assert value("5d 4d 3d 2d Ad") == ev.CATEGORY_FLOOR[8]
    assert value("Ah 2c 3d 4s 5h") == ev.CATEGORY_FLOOR[4]
    assert value("Ac Ad Ah As Kc") == ev.CATEGORY_FLOOR[8] - 1
    assert ev.hand_category(1) == "high card"
    assert ev.hand_category(7462) == "straight flush"


def test_orderings():
    # The wheel is the lowest straight and straight flush.
    assert value("Ah 2c 3d 4s 5h") < value("2c 3d 4s 5h 6c")
    assert value("5d 4d 3d 2d Ad") < value("6d 5d 4d 3d 2d")
    # Lowest quads beat the highest full house; lowest full house beats the best flush.
    assert value("2c 2d 2h 2s 3c") > value("Ac Ad Ah Ks Kd")
    assert value("2c 2d 2h 3s 3c") > value("Ah Kh Qh Jh 9h")
    # Kickers count, suits don't.
    assert value("Ac Ad Kh Qs 3c") > value("Ac Ad Kh Qs 2c")
    assert value("Ac Ad Kh Qs 3c") == value("Ah As Kd Qc 3d")
    assert value("9c 9d 4h 4s Ac") > value("9c 9d 4h 4s Kc")


@pytest.mark.parametrize(
    "seven, best_five",
    [
        ("Ah Ad Ac Kh Kd Ks 2c", "Ah Ad Ac Kh Kd"),  # two trips: aces full of kings
        ("2c 2d 2h 2s Ac Ad Ah", "2c 2d 2h 2s Ac"),  # quads with trips beside
        ("Ah Ad Kh Kd Qh Qd 2c", "Ah Ad Kh Kd Qc"),  # three pairs: third pair kicks
        ("4h 5h 6h 7h 8h 9h 2c", "5h 6h 7h 8h 9h"),  # straight flush in a six-card flush
        ("2h 3h 4h 5h 9h 6c 7d", "2h 3h 4h 5h 9h"),  # flush over a seven-high straight
        ("Ac 2d 3h 4s 5c 6d Kh", "2d 3h 4s 5c 6d"),  # six-high straight over the wheel
        ("Ac Kc Qc Jc 9c 8c 7c", "Ac Kc Qc Jc 9c"),  # best five of seven suited
        ("Ad Kd Qd Jd Td 9d 8d", "Ad Kd Qd Jd Td"),  # royal out of a seven-card straight flush
        ("9s 9h 9d 5c 5d 5h 2s", "9s 9h 9d 5c 5d"),
    ],
)
def test_best_five_of_seven(seven, best_five):
    assert value(seven) == value(best_five)


@settings(max_examples=examples(300), deadline=None)
@given(
    cards=st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True),
    suit_perm=st.permutations(range(4)),
)
def test_suit_relabelling_keeps_value(cards, suit_perm):
    relabelled = [4 * (c >> 2) + suit_perm[c & 3] for c in cards]
    assert ev.evaluate_cards(cards) == ev.evaluate_cards(relabelled)


@settings(max_examples=examples(300), deadline=None)
@given(cards=st.lists(st.integers(0, 51), min_size=6, max_size=7, unique=True))
def test_more_cards_never_lower_the_value(cards):
    whole = ev.evaluate_cards(cards)
    for i in range(len(cards)):
        assert ev.evaluate_cards(cards[:i] + cards[i + 1 :]) <= whole


# --- incremental keys (the C-level path other modules use) -----------------------------


@needs_compiled
def test_incremental_key_path_matches_mask_path():
    from evaluator_pyx import _core

    rng = np.random.default_rng(3)
    for n_cards in (5, 6, 7):
        masks = ev.random_hand_masks(rng, 200_000, n_cards)
        assert (_core.evaluate_batch_by_key(masks) == ev.evaluate_batch(masks)).all()
        for row in ev.random_card_arrays(rng, 500, n_cards):
            cards = [int(c) for c in row]
            assert _core.evaluate_cards_by_key(cards) == ev.evaluate_cards(cards)


@needs_compiled
def test_card_keys_layout():
    from evaluator_pyx import _core

    info = _core.table_info()
    keys = _core.card_keys()
    for c, key in enumerate(keys):
        assert key & 0xFFFFFFFF == info["rank_keys"][c >> 2]
        assert key >> 32 == 1 << (4 * (c & 3))
    assert info["rank_table_used"] <= info["rank_table_capacity"]
    masks, hkeys = _core.holding_tables()
    assert masks == ev.HOLDINGS
    for (a, b), key in zip(ev.HOLDING_CARDS, hkeys):
        assert key == keys[a] + keys[b]


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mask",
    [
        0,
        cards_to_mask("As Ks Qs Js"),  # 4 cards
        cards_to_mask("As Ks Qs Js Ts 9s 8s 7s"),  # 8 cards
        cards_to_mask("As Ks Qs Js") | 1 << 13,  # a bit that is no card
        1 << 63 | cards_to_mask("As Ks Qs Js Ts"),
        -1,
        1 << 64,
    ],
)
def test_bad_masks_raise_card_error(mask):
    with pytest.raises(CardError):
        ev.evaluate(mask)
    with pytest.raises(CardError):
        _python.evaluate(mask)


def test_non_int_mask_is_a_type_error():
    for bad in ("As Ks Qs Js Ts", 1.5, None):
        with pytest.raises(TypeError):
            ev.evaluate(bad)
    assert ev.evaluate(np.uint64(cards_to_mask("As Ks Qs Js Ts"))) == 7462


@pytest.mark.parametrize(
    "cards",
    [[0, 1, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 3], [0, 1, 2, 3, 52], [-1, 1, 2, 3, 4], ["As", 1, 2, 3, 4]],
)
def test_bad_card_lists_raise_card_error(cards):
    with pytest.raises(CardError):
        ev.evaluate_cards(cards)
    with pytest.raises(CardError):
        _python.evaluate_cards(cards)


def test_bad_card_strings():
    for text in ["Xs", "A", "Ax", "", "1s", "As ", None]:
        with pytest.raises(CardError):
            ev.parse_card(text)
    with pytest.raises(CardError):
        ev.parse_cards("AsK")
    with pytest.raises(CardError):
        ev.parse_cards("As Kd As")
    with pytest.raises(CardError):
        ev.cards_to_mask("As Kd Zz")


def test_batch_bad_mask_names_its_index():
    masks = ev.random_hand_masks(np.random.default_rng(1), 10)
    masks[3] = np.uint64(cards_to_mask("As Ks"))
    with pytest.raises(CardError, match=r"masks\[3\]"):
        ev.evaluate_batch(masks)
    for bad in [
        1 << 15 | cards_to_mask("As Ks Qs Js Ts"),
        cards_to_mask("2c 3c 4c 5c 6c 2d 3d 4d 5d 6d"),  # two five-card suits
        ev.VALID_MASK_BITS,  # the whole deck
        cards_to_mask("2c 3c 4c 5c 6c 7c 8c 9c"),
    ]:
        masks[3] = np.uint64(bad)
        with pytest.raises(CardError, match=r"masks\[3\]"):
            ev.evaluate_batch(masks)
        with pytest.raises(CardError):
            ev.evaluate(bad)
    ev.evaluate_batch(masks, check=False)  # no error, meaningless value at [3]


def test_hand_category_rejects_non_values():
    assert ev.hand_category(np.uint16(7462)) == _python.hand_category(np.uint16(7462)) == "straight flush"
    for bad in (0, 7463, -5, "7", 3.0):
        with pytest.raises(ValueError):
            ev.hand_category(bad)
        with pytest.raises(ValueError):
            _python.hand_category(bad)


# --- batch API and holdings ------------------------------------------------------------


def test_batch_shapes_and_types():
    rng = np.random.default_rng(5)
    masks = ev.random_hand_masks(rng, 1000)
    values = ev.evaluate_batch(masks)
    assert values.dtype == np.uint16 and values.shape == (1000,)
    assert ev.evaluate_batch(np.empty(0, np.uint64)).shape == (0,)
    assert (ev.evaluate_batch(masks[::2]) == values[::2]).all()  # strided input
    assert (ev.evaluate_batch(masks.tolist()) == values).all()  # any sequence
    out = np.zeros(1000, np.uint16)
    assert ev.evaluate_batch(masks, out=out) is out and (out == values).all()
    with pytest.raises(ValueError):
        ev.evaluate_batch(masks, out=np.zeros(5, np.uint16))
    square = ev.evaluate_batch(masks.reshape(40, 25))
    assert square.shape == (40, 25) and (square.ravel() == values).all()
    assert (_python.evaluate_batch(masks[:20].reshape(4, 5)) == values[:20].reshape(4, 5)).all()


def test_holdings():
    assert len(ev.HOLDINGS) == ev.N_HOLDINGS == 1326
    assert ev.HOLDINGS_ARRAY.dtype == np.uint64
    assert ev.HOLDINGS_ARRAY.tolist() == list(ev.HOLDINGS)
    assert not ev.HOLDINGS_ARRAY.flags.writeable
    for i in (0, 1, 700, 1325):
        mask = ev.HOLDINGS[i]
        assert bin(mask).count("1") == 2
        assert ev.holding_index(mask) == i
        a, b = ev.mask_to_card_list(mask)
        assert ev.holding_index_of_cards(b, a) == i


def test_mask_card_array_round_trip():
    rng = np.random.default_rng(9)
    cards = ev.random_card_arrays(rng, 5000, 7)
    assert (np.diff(np.sort(cards, axis=1), axis=1) > 0).all()
    masks = ev.masks_from_cards(cards)
    assert (ev.cards_from_masks(masks, 7) == np.sort(cards, axis=1)).all()
    assert ev.mask_to_card_list(int(masks[0])) == sorted(int(c) for c in cards[0])
    unique = ev.random_hand_masks(rng, 50_000, 5, unique=True)
    assert len(set(unique.tolist())) == 50_000
    with pytest.raises(CardError):
        ev.masks_from_cards(np.array([[1, 1, 2, 3, 4]]))


def test_cards_from_text_reads_pairs_and_names_what_is_wrong() -> None:
    from evaluator_pyx.cards import CARD_NAMES, CardError, cards_from_text, parse_cards

    rng = np.random.default_rng(11)
    for _ in range(200):
        cards = rng.choice(52, size=int(rng.integers(0, 8)), replace=False).tolist()
        text = "".join(CARD_NAMES[c] for c in cards)
        assert cards_from_text(text) == tuple(parse_cards(text)) == tuple(cards)
    with pytest.raises(CardError, match="cannot read cards"):
        cards_from_text("AsK")
    with pytest.raises(CardError, match="'Zz' is not a card"):
        cards_from_text("AsZz")
    assert cards_from_text("as", {"as": 51}) == (51,)
