"""The evaluator's floor loops and tried batch designs (evaluator_pyx._floor) against
independent references, so the cycles per hand the bench prints are for loops that do
the work they claim: eval7 for every alternative batch loop on random lists (sizes that
are not a multiple of the 256-hand block, flush-heavy lists, 5- and 6-card hands), a
count of ranks from the cards themselves for the table-free key, and the perfect hash's
layout (16-bit offsets of 8,192 rows, even displacements) checked for collisions over
every rank multiset of 5-7 cards enumerated here.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.bench import kernels
from evaluator_pyx import _python

from helpers.hands import flush_hands
from helpers.references import lab_module, reference_package

eval7 = reference_package("eval7")
_core = pytest.importorskip("evaluator_pyx._core")
_floor = lab_module("evaluator_pyx._floor")
pytestmark = pytest.mark.lab

_E7_CARDS = [eval7.Card(name) for name in ev.CARD_NAMES]
_RANK_KEYS = (1, 5, 24, 112, 521, 2247, 9244, 30823, 103066, 250154, 667453, 1526359, 3453520)


def eval7_order_matches(masks: np.ndarray, ours: np.ndarray) -> None:
    """Ours and eval7's values order the hands the same way (equal where equal)."""
    theirs = np.array([eval7.evaluate([_E7_CARDS[c] for c in ev.mask_to_card_list(int(m))]) for m in masks],
                      dtype=np.int64)
    order = np.argsort(ours.astype(np.int64), kind="stable")
    step_ours = np.diff(ours.astype(np.int64)[order])
    step_theirs = np.diff(theirs[order])
    assert ((step_ours == 0) == (step_theirs == 0)).all(), "ties differ from eval7"
    assert (step_theirs[step_ours != 0] > 0).all(), "order differs from eval7"


MASK_LOOPS = ("alt_mask_simple", "alt_mask_group4", "alt_mask_select", "alt_mask_fixup", "alt_mask_staged")
KEY_LOOPS = ("alt_key_one_test", "alt_key_group4", "alt_key_group8", "alt_key_branch_inline", "alt_key_select", "alt_key_fixup", "alt_key_staged")


@pytest.mark.parametrize("n", [1, 5, 255, 256, 257, 1000, 2 * 256 + 3])
def test_every_batch_loop_agrees_with_eval7(n: int) -> None:
    rng = np.random.default_rng(n)
    # A third flushes, so every block has some; the rest random 7, 6 and 5 card hands.
    parts = [flush_hands(rng, n // 3, 7)]
    for cards in (7, 6, 5):
        parts.append(ev.random_hand_masks(rng, (n - n // 3 + 2) // 3, cards))
    masks = rng.permutation(np.concatenate(parts))[:n]
    keys = _core.hand_keys(masks)
    reference = ev.evaluate_batch(masks)
    eval7_order_matches(masks, reference)
    for name in MASK_LOOPS:
        out = np.zeros(len(masks), dtype=np.uint16)
        getattr(_floor, name)(masks, out)
        assert (out == reference).all(), name
    for name in KEY_LOOPS:
        out = np.zeros(len(masks), dtype=np.uint16)
        getattr(_floor, name)(keys, masks, out)
        assert (out == reference).all(), name
    assert (_core.evaluate_key_batch(keys, masks) == reference).all()


def test_all_flushes_and_no_flushes_in_a_block() -> None:
    rng = np.random.default_rng(7)
    for masks in (flush_hands(rng, 600, 7), flush_hands(rng, 300, 5)):
        keys = _core.hand_keys(masks)
        reference = ev.evaluate_batch(masks)
        eval7_order_matches(masks, reference)
        assert all(ev.hand_category(int(v)) in ("flush", "straight flush") for v in reference)
        for name in KEY_LOOPS:
            out = np.zeros(len(masks), dtype=np.uint16)
            getattr(_floor, name)(keys, masks, out)
            assert (out == reference).all(), name


def test_hash_reads_alone_value_non_flush_hands() -> None:
    rng = np.random.default_rng(3)
    masks = ev.random_hand_masks(rng, 3000, 7)
    values = ev.evaluate_batch(masks)
    plain = np.array([ev.hand_category(int(v)) not in ("flush", "straight flush") for v in values])
    sums = _floor.rank_sums(masks)
    out = np.zeros(len(masks), dtype=np.uint16)
    _floor.reads_only_hash(sums, out)
    assert (out[plain] == values[plain]).all()
    index = _floor.value_indexes(sums)
    out2 = np.zeros(len(masks), dtype=np.uint16)
    _floor.reads_only_one(index, out2)
    assert (out2 == out).all()
    assert int(index.max()) < _core.table_info()["rank_table_used"]


def test_rank_sums_are_the_rank_key_sums_of_the_cards() -> None:
    rng = np.random.default_rng(4)
    masks = ev.random_hand_masks(rng, 500, 7)
    sums = _floor.rank_sums(masks)
    for m, s in zip(masks, sums):
        assert int(s) == sum(_RANK_KEYS[c >> 2] for c in ev.mask_to_card_list(int(m)))


def test_bitsliced_key_counts_each_rank() -> None:
    rng = np.random.default_rng(5)
    masks = np.concatenate([ev.random_hand_masks(rng, 500, k) for k in (5, 6, 7)])
    out = np.zeros(len(masks), dtype=np.uint64)
    _floor.keys_bitsliced(masks, out)
    for m, key in zip(masks, out):
        counts = [0] * 13
        for c in ev.mask_to_card_list(int(m)):
            counts[c >> 2] += 1
        key = int(key)
        got = [((key >> r) & 1) + 2 * ((key >> (13 + r)) & 1) + 4 * ((key >> (26 + r)) & 1) for r in range(13)]
        assert got == counts


def test_quads_count_four_in_the_bitsliced_key() -> None:
    masks = np.array([ev.cards_to_mask([48, 49, 50, 51, 0, 4, 8])], dtype=np.uint64)  # four aces
    out = np.zeros(1, dtype=np.uint64)
    _floor.keys_bitsliced(masks, out)
    assert (int(out[0]) >> (26 + 12)) & 1 and not (int(out[0]) >> 12) & 1


def test_the_hash_keeps_every_rank_multiset_apart() -> None:
    """Every multiset of 5-7 ranks (at most 4 of a rank) gets its own slot, in bounds,
    with the layout the .pxd declares (8,192 rows; the slot is the column plus twice a
    16-bit offset)."""
    info = _core.table_info()
    assert info["hash_row_bits"] == 13
    sums = []
    for size in (5, 6, 7):
        for combo in itertools.combinations_with_replacement(range(13), size):
            if max(combo.count(r) for r in set(combo)) <= 4:
                sums.append(sum(_RANK_KEYS[r] for r in combo))
    assert len(sums) == 73_775
    index = _floor.value_indexes(np.array(sums, dtype=np.uint32))
    assert len(set(index.tolist())) == len(sums), "two rank multisets share a slot"
    assert int(index.max()) < info["rank_table_used"] <= info["rank_table_capacity"]
    # Any 25-bit sum, even one no hand makes, indexes inside the table.
    junk = np.array([0, (1 << 25) - 1, 0xFFFFFFFF, 123456789], dtype=np.uint32)
    assert int(_floor.value_indexes(junk).max()) < info["rank_table_capacity"]


def test_clock_and_noop() -> None:
    assert _floor.clock_cycles(1000) == 4000
    big = 1 << 80
    assert _floor.noop(big) is big
    with pytest.raises(TypeError):
        _floor.noop()


@pytest.mark.parametrize("position", [0, 3, 4, 8, 9])
@pytest.mark.parametrize("bad", ["eight cards", "four cards", "stray bit", "no cards"])
def test_a_bad_mask_in_a_group_or_the_tail_is_named(position: int, bad: str) -> None:
    """evaluate_batch checks four hands at a time and the last n % 4 alone; a bad mask
    anywhere is named by its index, the first one when there are two."""
    rng = np.random.default_rng(position)
    masks = ev.random_hand_masks(rng, 10, 7)
    good = int(masks[position])
    cards = ev.mask_to_card_list(good)
    if bad == "eight cards":
        extra = next(c for c in range(52) if c not in cards)
        masks[position] = good | (1 << ev.card_bit(extra))
    elif bad == "four cards":
        masks[position] = ev.cards_to_mask(cards[:4])
    elif bad == "stray bit":
        masks[position] = good | (1 << 13)
    else:
        masks[position] = 0
    with pytest.raises(ev.CardError, match=rf"masks\[{position}\]"):
        ev.evaluate_batch(masks)
    if position < 9:
        masks[9] = 0  # a second bad mask later: the first is still the one named
        with pytest.raises(ev.CardError, match=rf"masks\[{position}\]"):
            ev.evaluate_batch(masks)
    ev.evaluate_batch(masks, check=False)  # no error: the caller vouched for the masks


def test_the_tried_call_variants_give_the_same_values() -> None:
    """The bench's variants of the call (prebuilt objects, tables copied into a huge
    page, objects by frequency, constant, fresh ints) read the same values, flushes
    and 5-6 card hands included, as the pure-Python backend."""
    rng = np.random.default_rng(31)
    order = np.r_[0, rng.permutation(np.arange(1, 7463))]
    funcs, advice, address = _floor.call_variants(order)
    if not funcs:
        pytest.skip("no CPython 3.11 int layout")
    assert advice in (-1, 0, 1) and (address != 0) == (advice != -1)
    masks = [int(m) for m in flush_hands(rng, 60, 7)]
    masks += [int(ev.random_hand_masks(rng, 1, int(k))[0]) for k in rng.integers(5, 8, 240)]
    expected = [_python.evaluate(m) for m in masks]
    for name, f in funcs.items():
        got = [f(m) for m in masks]
        if name == "constant":
            assert len({id(v) for v in got}) == 1
        else:
            assert got == expected, name
        with pytest.raises(ValueError):
            f(0b11)
    with pytest.raises(ValueError):
        _floor.call_variants(np.arange(7463)[::-1].copy())   # 0 must come first


def test_the_bench_times_the_floors_and_calls_on_the_real_loops() -> None:
    masks = ev.random_hand_masks(np.random.default_rng(9), 5000, 7)
    floors = kernels.run_floors(masks, _core.hand_keys(masks), 2)
    assert set(floors["per_hand"]) == {key for key, _ in kernels.FLOOR_ROWS}
    assert all(0 < best <= median for median, best in floors["per_hand"].values())
    assert 0 < floors["cycle_s"] < 1e-8       # a clock above 100 MHz
    calls = kernels.run_call_floors(masks[:2000].tolist(), 2)
    assert set(calls) == {"evaluate", "evaluate_hot", "abs", "bit_count", "noop", "loop", "evaluate_kept",
                          "noop_kept"}
    assert all(ns > 0 for ns in calls.values())
