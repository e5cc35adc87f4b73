"""The player kinds this program plays, registered from above: the house bots
(agent.players.housebots), the range reader (agent.engine.range_reader: it reads
ranges with the engine's weight tables, so it lives above the players), the Poki engine
(agent.engine.player), the heads-up equilibrium ``cfr`` (agent.engine.cfr_player) and the local best response ``lbr``
(agent.engine.lbr), the engine's defaults (and lbr's Poki ``p``) taken from the
settings the program was given. The registry (agent.players) imports none of them;
the command line calls :func:`install_kinds` with its settings first thing, and a
runner used on its own (a test, a script, a worker process on another machine) with
nothing registered gets the built-in defaults (:func:`ensure_kinds`). A parsed spec carries every setting of its player, so a worker
builds exactly the player the command parsed whatever defaults it registered.
"""
from __future__ import annotations

from agent.config import Config
from agent.engine.cfr_player import CFR_KIND
from agent.engine.lbr import lbr_kind
from agent.engine.player import poki_kind
from agent.engine.range_reader import RANGE_KINDS
from agent.players import known_kinds, register
from agent.players.housebots import HOUSE_KINDS

__all__ = ["ensure_kinds", "install_kinds"]


def install_kinds(config: Config) -> None:
    """Register every kind, Poki's (and lbr's) defaults from ``config`` ([engine], [model])."""
    for kind in HOUSE_KINDS + RANGE_KINDS:
        register(kind, replace=True)
    register(poki_kind(config), replace=True)
    register(CFR_KIND, replace=True)
    register(lbr_kind(config), replace=True)


def ensure_kinds() -> None:
    """Register every kind with the built-in settings unless some are registered already
    (by the command line, with the settings it was given)."""
    if not known_kinds():
        install_kinds(Config())
