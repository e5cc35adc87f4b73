"""Opponent histories in SQLite; the only package that imports sqlite-utils.

`Database` stores whole hands and keeps the decayed per-context models the modeler reads;
`MemoryModelStore` keeps the same models without a file. Both are `ModelStore`s. The
SQLite part is imported only when used, so the modeler can use the in-memory store
without paying for it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import agent  # noqa: F401  (first: agent.native's guard covers this package's compiled modules)

from .models import (
    DEFAULT_BLEND_OBSERVATIONS,
    DEFAULT_HALF_LIFE,
    DEFAULT_TRIPLES,
    N_CONTEXTS,
    Decay,
    MemoryModelStore,
    ModelStore,
    PlayerModel,
    WriteReport,
    context_name,
)

if TYPE_CHECKING:
    from .database import Database, DatabaseError

__all__ = [
    "DEFAULT_BLEND_OBSERVATIONS",
    "DEFAULT_HALF_LIFE",
    "DEFAULT_TRIPLES",
    "N_CONTEXTS",
    "Database",
    "DatabaseError",
    "Decay",
    "MemoryModelStore",
    "ModelStore",
    "PlayerModel",
    "WriteReport",
    "context_name",
]


def __getattr__(name: str) -> Any:
    if name in ("Database", "DatabaseError"):
        from . import database

        return getattr(database, name)
    raise AttributeError(f"module 'db' has no attribute {name!r}")
