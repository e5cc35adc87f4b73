"""Fast positional constructors for frozen slots dataclasses.

A frozen dataclass's own ``__init__`` sets every field through ``object.__setattr__``;
the rules, the tracker and the log readers build hundreds of thousands of operations,
events and records a minute, so they build them with these instead. The compiled
constructor (agent/game/_slots.pyx) stores each value in its slot in C; without it, a
generated Python function calls each slot's descriptor. Either way the instance is the
same as one the class builds: none of these classes has a ``__post_init__`` and neither
path checks anything.
"""
from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import fields
from typing import Any, TypeVar, cast

from agent.native import compiled_required

T = TypeVar("T")

try:
    from agent.game._slots import SlotMaker
except ImportError:
    if compiled_required():
        raise ImportError("POKI_REQUIRE_COMPILED is set but agent.game._slots is not compiled; "
                          "rebuild with `pip install -e .`") from None
    SlotMaker = None


def slot_constructor(cls: type[T]) -> Callable[..., T]:
    """A function taking ``cls``'s fields in order and returning the instance."""
    names = [f.name for f in fields(cast(Any, cls))]  # a dataclass, as every caller passes
    descriptors = [cls.__dict__.get(name) for name in names]
    # The compiled constructor allocates as object.__new__ does for a concrete class, so
    # it takes only plain slots classes that are not abstract.
    if SlotMaker is not None and not getattr(cls, "__abstractmethods__", None) \
            and all(type(d) is types.MemberDescriptorType for d in descriptors):
        return cast("Callable[..., T]", SlotMaker(cls, descriptors))
    return _generated(cls, names)


def _generated(cls: type[T], names: list[str]) -> Callable[..., T]:
    env: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = [f"def make({', '.join(names)}):", "    obj = new(cls)"]
    for name in names:
        env[f"set_{name}"] = getattr(cls, name).__set__
        lines.append(f"    set_{name}(obj, {name})")
    lines.append("    return obj")
    exec("\n".join(lines), env)
    return cast("Callable[..., T]", env["make"])
