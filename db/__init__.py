"""Opponent histories in SQLite; the only package that imports sqlite-utils.

:class:`~db.database.Database` stores whole hands, one transaction per batch, and keeps
the decayed per-context counts (agent.models.frequencies) that the opponent model reads; it
implements the whole model store the engine reads through (agent.models.store.ModelStore).
It depends on agent.game and agent.models only. The SQLite part is imported when first used.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

# First: agent.native's guard covers this package's compiled modules.
import agent.native  # noqa: F401

if TYPE_CHECKING:
    from .database import Database, DatabaseError

__all__ = ["Database", "DatabaseError"]


def __getattr__(name: str) -> Any:
    if name in ("Database", "DatabaseError"):
        from . import database

        return getattr(database, name)
    raise AttributeError(f"module 'db' has no attribute {name!r}")
