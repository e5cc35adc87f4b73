"""The single call evaluate(mask) and the int objects it returns (evaluator_pyx._core).

A result the caller has dropped is reused by the next call (its digit rewritten), a
result the caller holds never is, and no call allocates an int. Checked against the
pure-Python backend's values (an independent implementation) under the ways callers
hold results: discarded, kept in a list, held across later calls, compared, used as
sort and max keys and as dict keys, summed; and the reference counts of every object
handed out come back to where they were.
"""
from __future__ import annotations

import gc
import json
import pickle
import sys

import numpy as np
import pytest

import evaluator_pyx as ev
from evaluator_pyx import _python

_core = pytest.importorskip("evaluator_pyx._core")


def _masks(seed: int, n: int) -> list[int]:
    rng = np.random.default_rng(seed)
    cards = rng.integers(5, 8, n)
    return [int(ev.random_hand_masks(rng, 1, int(k))[0]) for k in cards]


@pytest.fixture(scope="module")
def hands() -> tuple[list[int], list[int]]:
    masks = _masks(18, 600)
    return masks, [_python.evaluate(m) for m in masks]


def test_results_kept_in_a_list_keep_their_values(hands: tuple[list[int], list[int]]) -> None:
    masks, expected = hands
    kept = [ev.evaluate(m) for m in masks]
    assert kept == expected
    assert all(type(v) is int for v in kept)
    # Many more calls, their results dropped: nothing kept changes.
    for m in reversed(masks):
        ev.evaluate(m)
    assert kept == expected


def test_a_held_result_survives_later_calls(hands: tuple[list[int], list[int]]) -> None:
    masks, expected = hands
    first = ev.evaluate(masks[0])
    second = ev.evaluate(masks[1])
    for m in masks:
        ev.evaluate(m)
    third = ev.evaluate(masks[2])
    for m in masks[::-1]:
        ev.evaluate(m)
    assert (first, second, third) == (expected[0], expected[1], expected[2])
    del second
    for m in masks:       # one of the two held objects is free again and reused
        ev.evaluate(m)
    assert first == expected[0] and third == expected[2]


def test_results_used_as_operands_keys_and_sums(hands: tuple[list[int], list[int]]) -> None:
    masks, expected = hands
    by_mask = dict(zip(masks, expected))
    pairs = list(zip(masks[::2], masks[1::2]))
    assert [ev.evaluate(a) > ev.evaluate(b) for a, b in pairs] == [by_mask[a] > by_mask[b] for a, b in pairs]
    assert [ev.evaluate(a) - ev.evaluate(b) for a, b in pairs] == [by_mask[a] - by_mask[b] for a, b in pairs]
    assert sorted(masks, key=ev.evaluate) == sorted(masks, key=by_mask.__getitem__)
    assert max(masks, key=ev.evaluate) == max(masks, key=by_mask.__getitem__)
    assert sum(map(ev.evaluate, masks)) == sum(expected)
    counts: dict[int, int] = {}
    for m in masks:
        v = ev.evaluate(m)
        counts[v] = counts.get(v, 0) + 1
    reference: dict[int, int] = {}
    for v in expected:
        reference[v] = reference.get(v, 0) + 1
    assert counts == reference
    assert np.array([ev.evaluate(m) for m in masks], dtype=np.int64).tolist() == expected


def test_the_general_path_gives_the_same_values(hands: tuple[list[int], list[int]]) -> None:
    """Int subclasses and numpy ints take the general path (Cython's conversion); exact
    ints the C path: the same values, and the general path's results are held safely too."""

    class Mask(int):
        pass

    masks, expected = hands
    general = [ev.evaluate(Mask(m)) for m in masks]
    numpy_ints = [ev.evaluate(np.uint64(m)) for m in masks]
    direct = [ev.evaluate(m) for m in masks]
    assert general == numpy_ints == direct == expected


def test_no_int_is_allocated_per_call(hands: tuple[list[int], list[int]]) -> None:
    masks = hands[0] * 20
    gc.collect()
    ev.evaluate(masks[0])
    before = sys.getallocatedblocks()
    kept = [ev.evaluate(m) for m in masks]
    grown = sys.getallocatedblocks() - before
    # A fresh int per call would add len(masks) blocks; the list's own storage is one.
    assert grown < len(masks) // 100, grown
    assert len({id(v) for v in kept}) <= 7463 + 2


def test_reference_counts_come_back(hands: tuple[list[int], list[int]]) -> None:
    masks, expected = hands
    held = ev.evaluate(masks[0])
    held_count = sys.getrefcount(held)
    for _ in range(50):
        for m in masks:
            ev.evaluate(m)
    assert sys.getrefcount(held) == held_count and held == expected[0]
    kept = [ev.evaluate(m) for m in masks * 3]
    objects = {id(v): v for v in kept}
    copies = {k: sum(1 for v in kept if v is o) for k, o in objects.items()}
    with_kept = {k: sys.getrefcount(o) for k, o in objects.items()}
    del kept
    for k, o in objects.items():
        assert sys.getrefcount(o) == with_kept[k] - copies[k]
    del objects
    assert sys.getrefcount(held) == held_count


def test_results_behave_as_ints() -> None:
    mask = ev.cards_to_mask("Ks Kh Kd 2c 2d 7h 9s")
    value = ev.evaluate(mask)
    reference = _python.evaluate(mask)
    assert type(value) is int and value == reference and hash(value) == hash(reference)
    assert {value: 1}[reference] == 1 and value + 0 == reference and -value == -reference
    assert json.dumps(value) == str(reference) and pickle.loads(pickle.dumps(value)) == reference
    assert np.uint16(value) == reference and f"{value:#x}" == f"{reference:#x}"
    assert value.bit_length() == reference.bit_length() and str(value) == str(reference)


def test_signature_and_errors() -> None:
    import inspect

    assert str(inspect.signature(ev.evaluate)) == "(mask, /)"
    with pytest.raises(TypeError):
        ev.evaluate()  # type: ignore[call-arg]  # a wrong call on purpose: the error is the test
    with pytest.raises(TypeError):
        ev.evaluate(1, 2)  # type: ignore[call-arg]  # a wrong call on purpose: the error is the test
    with pytest.raises(TypeError):
        ev.evaluate(mask=ev.cards_to_mask("As Ks Qs Js Ts"))  # type: ignore[call-arg]  # a wrong call on purpose: the error is the test
