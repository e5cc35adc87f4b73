"""Fast positional constructors for frozen slots dataclasses.

A frozen dataclass's own ``__init__`` sets every field through ``object.__setattr__``,
which costs about twice as much as filling the slots directly; the rules, the tracker and
the log readers build hundreds of thousands of operations, events and records a minute,
so they build them with these. The instance is the same as one the class builds (none of
these classes has a ``__post_init__``, and no checking happens in either)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any


def slot_constructor(cls: type) -> Callable[..., Any]:
    """A function taking ``cls``'s fields in order and returning the instance."""
    names = [f.name for f in fields(cls)]
    env: dict[str, Any] = {"new": object.__new__, "cls": cls}
    lines = [f"def make({', '.join(names)}):", "    obj = new(cls)"]
    for name in names:
        env[f"set_{name}"] = getattr(cls, name).__set__
        lines.append(f"    set_{name}(obj, {name})")
    lines.append("    return obj")
    exec("\n".join(lines), env)
    return env["make"]
