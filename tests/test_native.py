"""The pure-Python modules compiled with Cython: in CI every one is compiled and imported
compiled, and a compiled copy older than its source is never imported."""
from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import warnings

import pytest

from agent import native

EXTENSION = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.mark.skipif(os.environ.get("POKI_REQUIRE_COMPILED") != "1", reason="compiled build not required here")
def test_every_listed_module_is_imported_compiled() -> None:
    assert set(native.status().values()) == {"compiled"}
    for name in native.COMPILED_MODULES:
        module = importlib.import_module(name)
        assert module.__file__.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), name


def _package(tmp_path, name: str, source: str) -> None:
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(source)
    # Not a loadable extension: importing it fails, so only the source can be imported.
    (pkg / f"mod{EXTENSION}").write_bytes(b"not an ELF file")


def test_a_compiled_copy_is_stale_unless_built_from_the_present_source(tmp_path) -> None:
    _package(tmp_path, "pkga", "VALUE = 1\n")
    digest = native.source_digest(tmp_path / "pkga" / "mod.py")
    assert native.stale_modules(["pkga.mod"], {"pkga.mod": digest}, tmp_path) == []
    assert native.stale_modules(["pkga.mod"], {"pkga.mod": "0" * 64}, tmp_path) == ["pkga.mod"]
    assert native.stale_modules(["pkga.mod"], {}, tmp_path) == ["pkga.mod"]
    # Declarations beside the source are compiled with it: adding or editing them makes
    # the build stale too.
    (tmp_path / "pkga" / "mod.pxd").write_text("cdef int counter\n")
    assert native.stale_modules(["pkga.mod"], {"pkga.mod": digest}, tmp_path) == ["pkga.mod"]
    with_pxd = native.source_digest(tmp_path / "pkga" / "mod.py")
    assert native.stale_modules(["pkga.mod"], {"pkga.mod": with_pxd}, tmp_path) == []
    (tmp_path / "pkga" / "mod.pxd").write_text("cdef long counter\n")
    assert native.stale_modules(["pkga.mod"], {"pkga.mod": with_pxd}, tmp_path) == ["pkga.mod"]
    (tmp_path / "pkga" / f"mod{EXTENSION}").unlink()
    assert native.stale_modules(["pkga.mod"], {}, tmp_path) == []  # nothing compiled: nothing stale


def test_a_compiled_module_that_cimports_a_stale_one_is_stale_too(tmp_path) -> None:
    """A compiled copy checks the layout of the classes it cimports at import: beside a
    module imported from source it fails to import (agent.game.prepared, which cimports
    agent.game.context's ContextWalker), so the guard imports it from source as well."""
    for name in ("base", "user", "other"):
        pkg = tmp_path / "pkgc"
        pkg.mkdir(exist_ok=True)
        (pkg / "__init__.py").write_text("")
        (pkg / f"{name}.py").write_text(f"NAME = {name!r}\n")
        (pkg / f"{name}{EXTENSION}").write_bytes(b"not an ELF file")
    (tmp_path / "pkgc" / "base.pxd").write_text("cdef class Walker:\n    cdef public int n\n")
    (tmp_path / "pkgc" / "user.pxd").write_text("from pkgc.base cimport Walker\n")
    modules = ["pkgc.base", "pkgc.user", "pkgc.other"]
    built = {m: native.source_digest(native.source_path(m, tmp_path)) for m in modules}
    assert native.stale_modules(modules, built, tmp_path) == []
    assert native.stale_modules(modules, {**built, "pkgc.base": "0" * 64}, tmp_path) == ["pkgc.base", "pkgc.user"]
    assert native.stale_modules(modules, {**built, "pkgc.user": "0" * 64}, tmp_path) == ["pkgc.user"]


def test_a_stale_module_is_imported_from_its_source(tmp_path, monkeypatch) -> None:
    _package(tmp_path, "pkgb", "VALUE = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError):
        importlib.import_module("pkgb.mod")  # the broken "compiled" copy comes first
    sys.modules.pop("pkgb.mod", None)
    finder = native.SourceFirst(["pkgb.mod"], tmp_path)
    sys.meta_path.insert(0, finder)
    try:
        module = importlib.import_module("pkgb.mod")
    finally:
        sys.meta_path.remove(finder)
        sys.modules.pop("pkgb.mod", None)
        sys.modules.pop("pkgb", None)
    assert module.VALUE == 2 and module.__file__.endswith("mod.py")


def test_the_guard_warns_or_refuses_when_a_build_is_stale(monkeypatch) -> None:
    compiled = [m for m in native.COMPILED_MODULES if native.compiled_path(m) is not None]
    if not compiled:
        pytest.skip("nothing compiled in this install")
    monkeypatch.setattr(native, "_recorded_digests", lambda: {})  # as if every source changed
    monkeypatch.setattr(native, "RETIRED_MODULES", ())  # leftovers of an old build: their own test
    before = list(sys.meta_path)
    try:
        monkeypatch.setattr(native, "_guarded", False)
        monkeypatch.setenv("POKI_REQUIRE_COMPILED", "1")
        with pytest.raises(ImportError, match="rebuild with"):
            native.guard()
        monkeypatch.setattr(native, "_guarded", False)
        monkeypatch.delenv("POKI_REQUIRE_COMPILED")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            native.guard()
        assert any("imported from source" in str(w.message) for w in caught)
        added = [f for f in sys.meta_path if f not in before]
        assert len(added) == 1 and set(added[0].paths) == set(compiled)
    finally:
        sys.meta_path[:] = before


def test_every_pxd_is_package_data_so_an_installed_copy_checks_clean() -> None:
    """The staleness check hashes a module's .py with the .pxd beside it; a .pxd the wheel
    leaves out makes every installed copy of that module look stale (it did for
    connectors.logs.irc_hand and irc_events). Each .pxd of the tree must be matched by the
    package data pyproject.toml declares for its package."""
    import fnmatch
    from pathlib import Path

    import tomllib

    root = Path(native.ROOT)
    tool = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    data, excluded = tool["package-data"], tool.get("exclude-package-data", {})
    missing = []
    for pxd in sorted(root.glob("**/*.pxd")):
        rel = pxd.relative_to(root)
        if rel.parts[0] not in ("agent", "connectors", "evaluator_pyx", "db"):
            continue
        package = ".".join(rel.parts[:-1])
        patterns = data.get("*", []) + data.get(package, [])
        dropped = excluded.get("*", []) + excluded.get(package, [])
        if not any(fnmatch.fnmatch(pxd.name, p) for p in patterns) or any(fnmatch.fnmatch(pxd.name, p) for p in dropped):
            missing.append(str(rel))
    assert not missing, f"not in the wheel: {missing}"


def test_an_extension_left_beside_a_module_no_longer_compiled_is_never_imported(tmp_path) -> None:
    """A build in place leaves the extension of a module an earlier version compiled;
    Python would import it before the source. The guard lists it, so it is imported from
    source (the retired modules of this tree: none has a leftover in a fresh build)."""
    _package(tmp_path, "pkgr", "VALUE = 2\n")
    assert native.leftover_modules(["pkgr.mod"], tmp_path) == ["pkgr.mod"]
    (tmp_path / "pkgr" / f"mod{EXTENSION}").unlink()
    assert native.leftover_modules(["pkgr.mod"], tmp_path) == []
    assert not set(native.RETIRED_MODULES) & set(native.COMPILED_MODULES)
    _package(tmp_path, "pkgs", "VALUE = 3\n")
    finder = native.SourceFirst(["pkgs.mod"], tmp_path)
    spec = finder.find_spec("pkgs.mod")
    assert spec is not None and spec.origin == str(tmp_path / "pkgs" / "mod.py")
