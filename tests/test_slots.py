"""The fast constructors of frozen slots dataclasses build exactly what the classes build."""
from __future__ import annotations

import dataclasses
import os
import pickle
import sys

import pytest

from agent.game import context, events, operations, records, slots, variant

# Every frozen slots dataclass of the game: what the hot paths build with slot constructors.
CLASSES = [
    c for module in (variant, operations, records, events, context)
    for c in vars(module).values()
    if isinstance(c, type) and dataclasses.is_dataclass(c) and c.__module__ == module.__name__
    and c.__dataclass_params__.frozen and "__slots__" in vars(c)
]


def _values(cls: type) -> tuple:
    """A distinct value for every field (objects, so identity can be checked)."""
    return tuple(("value", cls.__name__, i) for i, _ in enumerate(dataclasses.fields(cls)))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_a_fast_constructor_builds_what_the_class_builds(cls) -> None:
    values = _values(cls)
    expected = cls(*values)
    for make in (slots.slot_constructor(cls), slots._generated(cls, [f.name for f in dataclasses.fields(cls)])):
        made = make(*values)
        assert type(made) is cls
        assert made == expected and hash(made) == hash(expected) and repr(made) == repr(expected)
        assert all(getattr(made, f.name) is v for f, v in zip(dataclasses.fields(cls), values))
        assert pickle.loads(pickle.dumps(made)) == expected
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, dataclasses.fields(cls)[0].name, None)
        with pytest.raises(TypeError):
            make(*values, "one too many")


@pytest.mark.skipif(os.environ.get("POKI_REQUIRE_COMPILED") != "1", reason="compiled build not required here")
def test_the_compiled_constructor_is_used_and_keeps_reference_counts() -> None:
    make = slots.slot_constructor(records.ActionRecord)
    assert type(make).__name__ == "SlotMaker"
    value = object()
    before = sys.getrefcount(value)
    made = [make(0, value, "c", 10, 1, 0, 3, 5, False) for _ in range(100)]
    assert sys.getrefcount(value) == before + 100
    del made
    assert sys.getrefcount(value) == before
