"""The pure-Python modules that are also compiled with Cython, and the guard that keeps a
compiled copy older than its source from being imported.

These modules are ordinary Python (the hot paths of the rules, the tracker, the log
readers and the database writer); setup.py compiles each one as it is, into an
extension module beside the source, which Python then imports in preference to the
``.py``: the same code, about a quarter to a half faster. setup.py also records the
SHA-256 of every source it compiled (``agent/_compiled_sources.py``, generated). When a
source no longer matches (edited after the build), its compiled copy would silently run
the old code, so :func:`guard` makes Python import that module from its source instead
and warns; with POKI_REQUIRE_COMPILED=1 a stale or missing compiled module is an error.

Every package holding such modules imports ``agent`` first, whose ``__init__`` calls
:func:`guard` before any of them can be imported.
"""
from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import re
import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

# Modules setup.py compiles (setup.py reads this list from this file). Each earns its place
# in a bench row; the IRC table's modules (connectors.irc.dialect, client, player and
# agent.play.irc.table: 8 MB of the 53 MB of C an install compiles) do not: `poki bench
# --only irc` (no flood limit) measured 19.6 ms of CPU a hand from source against 18.0 ms
# compiled (medians of five alternated pairs whose spread was 17-28 ms on a shared machine),
# and a live table waits on the server's send budget (15-30 s a hand), not on the CPU.
COMPILED_MODULES: tuple[str, ...] = (
    "agent.game.events",
    "agent.game.records",
    "agent.game.variant",
    "agent.game.operations",
    "agent.game.hand",
    "agent.game.rules",
    "agent.game.showdown",
    "agent.game.tracker",
    "agent.game.context",
    "agent.models.frequencies",
    "agent.models.prediction",
    "agent.game.prepared",
    "agent.game.betting",
    "agent.play.hand_driver",
    "agent.play.offline.dealer",
    "agent.play.offline.replay",
    "connectors.logs.irc_format",
    "connectors.logs.irc_hand",
    "connectors.logs.irc_database",
    "connectors.logs.irc_events",
    "connectors.logs.sources",
    "connectors.acpc.protocol",
    "connectors.acpc.client",
    "agent.play.acpc.dealer",
    "agent.play.acpc.dealer_seats",
    "agent.play.acpc.match",
    "agent.play.acpc.lean",
    "agent.play.seat",
    "db.inserts",
    "db.database",
)
# Modules an earlier version compiled and this one does not: a build in place (pip install
# -e .) leaves their old extension beside the source, which Python would import before the
# .py, running old code; the guard imports them from source and says which file to delete.
# A compiled module that moved (agent.play.irc_table, now agent.play.irc.table) has no .py
# left under its old name, so nothing imports an extension left there: it needs no entry.
RETIRED_MODULES: tuple[str, ...] = (
    "connectors.irc.dialect",
    "connectors.irc.client",
    "connectors.irc.player",
)
SOURCES_MODULE = "agent._compiled_sources"
REBUILD_COMMAND = "pip install -e ."
ROOT = Path(__file__).resolve().parent.parent  # the folder holding agent/, connectors/, db/


def source_path(module: str, root: Path = ROOT) -> Path:
    return root.joinpath(*module.split(".")).with_suffix(".py")


def compiled_path(module: str, root: Path = ROOT) -> Path | None:
    """The extension module built for ``module``, if there is one."""
    source = source_path(module, root)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_name(source.stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def source_digest(path: Path) -> str:
    """SHA-256 of a module's source and of the .pxd beside it, if any: Cython compiles
    the two together, so a change to either makes the compiled copy stale."""
    digest = hashlib.sha256(path.read_bytes())
    declarations = path.with_suffix(".pxd")
    if declarations.is_file():
        digest.update(b"\0pxd\0" + declarations.read_bytes())
    return digest.hexdigest()


_CIMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+cimport|cimport\s+([\w.]+))", re.M)


def cimports(module: str, root: Path = ROOT) -> set[str]:
    """The modules ``module``'s declarations (.pxd) cimport."""
    declarations = source_path(module, root).with_suffix(".pxd")
    if not declarations.is_file():
        return set()
    return {a or b for a, b in _CIMPORT.findall(declarations.read_text(encoding="utf-8"))}


def leftover_modules(modules: Iterable[str], root: Path = ROOT) -> list[str]:
    """Modules of ``modules`` (no longer compiled) with an extension beside their source."""
    return [m for m in modules if source_path(m, root).is_file() and compiled_path(m, root) is not None]


def stale_modules(modules: Iterable[str], digests: Mapping[str, str], root: Path = ROOT) -> list[str]:
    """Modules with a compiled copy that was not built from their present source, and the
    compiled ones that cimport such a module: a compiled copy checks at import that a class
    it cimports has the layout it was built against, which the class of a module imported
    from source has not (so it too must come from source)."""
    modules = list(modules)
    stale = []
    for module in modules:
        source = source_path(module, root)
        if compiled_path(module, root) is not None and source.is_file() \
                and digests.get(module) != source_digest(source):
            stale.append(module)
    grown = True
    while grown:
        grown = False
        for module in modules:
            if module not in stale and compiled_path(module, root) is not None \
                    and cimports(module, root) & set(stale):
                stale.append(module)
                grown = True
    return stale


class SourceFirst(importlib.abc.MetaPathFinder):
    """Imports the named modules from their ``.py`` files, whatever else lies beside them."""

    def __init__(self, modules: Sequence[str], root: Path = ROOT) -> None:
        self.paths = {m: source_path(m, root) for m in modules}

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        source = self.paths.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def _recorded_digests() -> dict[str, str]:
    try:
        from agent._compiled_sources import SOURCES
    except ImportError:
        return {}
    return dict(SOURCES)


def compiled_required() -> bool:
    """POKI_REQUIRE_COMPILED is set: a module that is not compiled is an error."""
    return os.environ.get("POKI_REQUIRE_COMPILED", "").strip().lower() not in ("", "0", "false", "no")


def status() -> dict[str, str]:
    """Each compiled-capable module: "compiled", "stale" (imported from source) or
    "source" (no compiled copy)."""
    stale = set(stale_modules(COMPILED_MODULES, _recorded_digests()))
    return {
        m: "stale" if m in stale else ("compiled" if compiled_path(m) is not None else "source")
        for m in COMPILED_MODULES
    }


_guarded = False


def guard() -> None:
    """Make stale compiled modules import from source (once per process)."""
    global _guarded
    if _guarded:
        return
    _guarded = True
    stale = stale_modules(COMPILED_MODULES, _recorded_digests())
    if compiled_required():
        missing = [m for m in COMPILED_MODULES if compiled_path(m) is None]
        if stale or missing:
            raise ImportError(
                "POKI_REQUIRE_COMPILED is set but these modules are "
                + "; ".join(part for part in (
                    f"compiled from an older source: {', '.join(stale)}" if stale else "",
                    f"not compiled: {', '.join(missing)}" if missing else "") if part)
                + f"; rebuild with `{REBUILD_COMMAND}`"
            )
    leftover = leftover_modules(RETIRED_MODULES)
    if stale or leftover:
        sys.meta_path.insert(0, SourceFirst(stale + leftover))
    if leftover:
        warnings.warn(
            "extensions an earlier build left beside modules that are no longer compiled, ignored (delete "
            + ", ".join(str(compiled_path(m)) for m in leftover) + ")",
            RuntimeWarning,
            stacklevel=2,
        )
    if stale:
        warnings.warn(
            f"compiled modules older than their source, imported from source instead (slower): "
            f"{', '.join(stale)}; rebuild with `{REBUILD_COMMAND}`",
            RuntimeWarning,
            stacklevel=2,
        )
