"""The count-key evaluation from masks (evaluator_pyx/_count_batch.h): the batch kernel
behind evaluate_batch, the single call evaluate, and their table, checked against
independent references: eval7's order of random, flush-only and 5/6/7-card hands (list
sizes around the kernel's 16-hand step), the per-rank counts of the cards themselves for
the perfect hash (every multiset of 5-7 ranks, enumerated here, gets its own slot inside
the table), and the pure-Python backend's error messages for bad masks.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import evaluator_pyx as ev
from evaluator_pyx import _python

from helpers.hands import flush_hands
from helpers.references import reference_package

eval7 = reference_package("eval7")
_core = pytest.importorskip("evaluator_pyx._core")

_E7_CARDS = [eval7.Card(name) for name in ev.CARD_NAMES]


def eval7_values(masks: np.ndarray) -> np.ndarray:
    return np.array([eval7.evaluate([_E7_CARDS[c] for c in ev.mask_to_card_list(int(m))]) for m in masks],
                    dtype=np.int64)


def same_order(ours: np.ndarray, theirs: np.ndarray) -> None:
    """Ours orders the hands as eval7 does, ties included (the scales differ)."""
    order = np.argsort(ours.astype(np.int64), kind="stable")
    step_ours = np.diff(ours.astype(np.int64)[order])
    step_theirs = np.diff(theirs[order])
    assert ((step_ours == 0) == (step_theirs == 0)).all(), "ties differ from eval7"
    assert (step_theirs[step_ours != 0] > 0).all(), "order differs from eval7"


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 1000, 4099])
def test_batch_agrees_with_eval7_around_the_block_size(n: int) -> None:
    rng = np.random.default_rng(100 + n)
    parts = [flush_hands(rng, n // 5 + 1, 7)] + [ev.random_hand_masks(rng, n // 3 + 1, k) for k in (5, 6, 7)]
    masks = rng.permutation(np.concatenate(parts))[:n]
    checked = ev.evaluate_batch(masks)
    unchecked = ev.evaluate_batch(masks, check=False)
    assert (checked == unchecked).all()
    if n:
        same_order(checked, eval7_values(masks))
        assert checked.tolist() == [ev.evaluate(int(m)) for m in masks]


@pytest.mark.parametrize("cards", [5, 6, 7])
def test_flush_only_lists(cards: int) -> None:
    rng = np.random.default_rng(cards)
    masks = flush_hands(rng, 500, cards)
    values = ev.evaluate_batch(masks)
    assert {ev.hand_category(int(v)) for v in values} <= {"flush", "straight flush"}
    same_order(values, eval7_values(masks))
    assert values.tolist() == [ev.evaluate(int(m)) for m in masks]


@pytest.mark.parametrize("cards", [5, 6, 7])
def test_random_hands_of_each_size(cards: int) -> None:
    rng = np.random.default_rng(10 + cards)
    masks = ev.random_hand_masks(rng, 3000, cards)
    values = ev.evaluate_batch(masks)
    same_order(values, eval7_values(masks))
    assert values.tolist() == [ev.evaluate_cards(ev.mask_to_card_list(int(m))) for m in masks]


def test_hands_sharing_ranks_but_not_suits_share_a_value_unless_flush() -> None:
    """Royal flush, a straight of the same ranks, and the wheel: the flush row and the
    hashed rows are told apart by the suit counts, not by the ranks."""
    royal = ev.cards_to_mask("As Ks Qs Js Ts 2c 3d")
    broadway = ev.cards_to_mask("As Kh Qs Js Ts 2c 3d")
    wheel_flush = ev.cards_to_mask("Ah 2h 3h 4h 5h Kc Kd")
    values = ev.evaluate_batch(np.array([royal, broadway, wheel_flush] * 6, dtype=np.uint64))
    assert ev.hand_category(int(values[0])) == "straight flush"
    assert ev.hand_category(int(values[1])) == "straight"
    assert ev.hand_category(int(values[2])) == "straight flush"
    assert int(values[0]) == _core.CATEGORY_FLOOR[8] + 9  # the best hand there is
    assert int(values[2]) == _core.CATEGORY_FLOOR[8]      # the lowest straight flush


def _rank_multisets() -> list[tuple[int, ...]]:
    out = []
    for size in (5, 6, 7):
        for combo in itertools.combinations_with_replacement(range(13), size):
            if max(combo.count(r) for r in set(combo)) <= 4:
                out.append(combo)
    return out


def _non_flush_mask(combo: tuple[int, ...]) -> int:
    """Cards of these ranks with the suits dealt round-robin: at most 2 of a suit, and
    the copies of one rank in distinct suits."""
    cards = [4 * rank + (j % 4) for j, rank in enumerate(combo)]
    assert len(set(cards)) == len(cards)
    return ev.cards_to_mask(cards)


def test_every_rank_multiset_gets_its_own_slot_in_bounds() -> None:
    multisets = _rank_multisets()
    assert len(multisets) == 73_775
    masks = np.array([_non_flush_mask(c) for c in multisets], dtype=np.uint64)
    offsets_bytes, values_bytes, _ = _core.count_tables()
    offsets = np.frombuffer(offsets_bytes, dtype=np.uint16).astype(np.int64)
    table = np.frombuffer(values_bytes, dtype=np.uint16)
    assert len(offsets) == 8193  # 8,192 hashed rows and the flush row
    h = _core.count_hashes(masks).astype(np.int64)
    assert int(h.max()) < 1 << 25
    slots = (h >> 13) + 2 * offsets[h & 0x1FFF]
    assert len(np.unique(slots)) == len(multisets), "two rank multisets share a slot"
    info = _core.table_info()
    flush_start = 2 * int(offsets[8192])
    assert int(slots.max()) < flush_start, "a hashed slot runs into the flush row"
    assert flush_start + 8192 == info["count_table_used"] <= len(table)
    # The slot holds the value: the same as the kept rank-sum hash and as eval7's order.
    assert (table[slots] == ev.evaluate_batch(masks)).all()
    sample = np.random.default_rng(0).choice(len(masks), 3000, replace=False)
    same_order(table[slots][sample], eval7_values(masks[sample]))
    # Every 25-bit hash (even one no hand makes) lands inside the table.
    worst = (((1 << 25) - 1) >> 13) + 2 * int(offsets[:8192].max())
    assert worst < len(table)


def test_the_hash_depends_only_on_the_ranks() -> None:
    """Relabelling suits leaves the count key, so the hash, unchanged."""
    rng = np.random.default_rng(21)
    masks = ev.random_hand_masks(rng, 500, 7)
    for perm in ((1, 0, 2, 3), (3, 2, 1, 0), (2, 3, 0, 1)):
        relabelled = np.array([ev.cards_to_mask([4 * (c >> 2) + perm[c & 3] for c in ev.mask_to_card_list(int(m))])
                               for m in masks], dtype=np.uint64)
        assert (_core.count_hashes(relabelled) == _core.count_hashes(masks)).all()


def _bad(kind: str, good: int) -> int:
    cards = ev.mask_to_card_list(good)
    if kind == "eight cards":
        return good | (1 << ev.card_bit(next(c for c in range(52) if c not in cards)))
    if kind == "four cards":
        return ev.cards_to_mask(cards[:4])
    if kind == "no cards":
        return 0
    if kind == "stray bit 13":
        return good | (1 << 13)
    if kind == "stray bit 63":
        return good | (1 << 63)
    return good | (1 << 47)  # stray bit 15 of the third suit word


KINDS = ["eight cards", "four cards", "no cards", "stray bit 13", "stray bit 63", "stray bit 47"]


@pytest.mark.parametrize("position", [0, 5, 15, 16, 31, 40, 47, 48, 50])
@pytest.mark.parametrize("kind", KINDS)
def test_bad_masks_in_a_block_or_the_tail_are_named_as_before(position: int, kind: str) -> None:
    """51 masks: three blocks of 16 and a tail of 3. The error names the first bad mask
    with the words of the pure-Python backend."""
    rng = np.random.default_rng(position)
    masks = ev.random_hand_masks(rng, 51, 7)
    masks[position] = _bad(kind, int(masks[position]))
    with pytest.raises(ev.CardError) as ours:
        ev.evaluate_batch(masks)
    with pytest.raises(ev.CardError) as reference:
        _python.evaluate_batch(masks)
    assert str(ours.value) == str(reference.value)
    assert str(ours.value).startswith(f"masks[{position}]: ")
    if position < 50:
        masks[50] = 0  # a later bad mask does not change which is named
        with pytest.raises(ev.CardError, match=rf"^masks\[{position}\]: "):
            ev.evaluate_batch(masks)
    ev.evaluate_batch(masks, check=False)  # in bounds whatever the masks


@pytest.mark.parametrize("kind", KINDS)
def test_single_call_rejects_bad_masks_with_the_same_words(kind: str) -> None:
    good = int(ev.random_hand_masks(np.random.default_rng(1), 1, 7)[0])
    bad = _bad(kind, good)
    with pytest.raises(ev.CardError) as ours:
        ev.evaluate(bad)
    with pytest.raises(ev.CardError) as reference:
        _python.evaluate(bad)
    assert str(ours.value) == str(reference.value)


class _IntSubclass(int):
    pass


def test_single_call_reads_every_kind_of_int() -> None:
    """Exact ints of one to three 30-bit digits are read directly; subclasses, numpy
    ints and ints too big or negative take the general path, with the same results or
    errors."""
    rng = np.random.default_rng(2)
    masks = ev.random_hand_masks(rng, 200, 7)
    expected = ev.evaluate_batch(masks).tolist()
    assert [ev.evaluate(int(m)) for m in masks] == expected
    assert [ev.evaluate(_IntSubclass(int(m))) for m in masks] == expected
    assert [ev.evaluate(m) for m in masks] == expected  # numpy.uint64
    # One digit (all cards in the first suit word), two, and three (bits 60 and up).
    low = ev.cards_to_mask("2c 3c 4c 5c 7c")
    assert int(low) < 1 << 30 and ev.evaluate(low) == _python.evaluate(low)
    three = ev.cards_to_mask("As Ks 2c 3d 5h")
    assert int(three) >= 1 << 60 and ev.evaluate(three) == _python.evaluate(three)
    for bad in (-1, -three, 1 << 64, (1 << 64) | three, 1 << 90, 1 << 63):
        with pytest.raises(ev.CardError) as ours:
            ev.evaluate(bad)
        with pytest.raises(ev.CardError) as reference:
            _python.evaluate(bad)
        assert str(ours.value) == str(reference.value)
    for bad in (1.0, "0x1f", None, b"\x1f"):
        with pytest.raises(TypeError):
            ev.evaluate(bad)
    with pytest.raises(ev.CardError):
        ev.evaluate(True)


@pytest.mark.parametrize("stray", [0xE000, 0x8000, 0x2000])
def test_stray_bits_in_a_flush_suit_still_read_inside_the_table(stray: int) -> None:
    """A flush suit's word with stray bits 13-15 set: unchecked, every value read is one
    of the table's (0..7462); checked, the mask is named."""
    rng = np.random.default_rng(stray)
    masks = flush_hands(rng, 64, 7)
    suits = [max(range(4), key=lambda s: bin((int(m) >> (16 * s)) & 0x1FFF).count("1")) for m in masks]
    bad = np.array([int(m) | (stray << (16 * s)) for m, s in zip(masks, suits)], dtype=np.uint64)
    values = ev.evaluate_batch(bad, check=False)
    assert int(values.max()) <= 7462
    with pytest.raises(ev.CardError, match=r"^masks\[0\]: mask .* has bits that are not cards"):
        ev.evaluate_batch(bad)
