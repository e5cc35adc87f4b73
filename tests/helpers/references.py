"""What the tests check against, and what they skip without.

Reference packages (eval7, phevaluator, PokerKit) are test-only dependencies of the dev
extra. Where they are missing a developer's run skips the tests that need them; with
POKI_REQUIRE_REFERENCES=1 (set by .ci/run) a missing one fails the run instead, so a
green CI always means the checks against them ran.

Laboratory modules (evaluator_pyx._floor: the floor loops and tried designs `poki bench
--only kernels` sets beside the kept ones) are built only with POKI_BUILD_LAB=1. Their
tests skip, saying so, where the lab build is absent; with POKI_REQUIRE_LAB=1 (the lab
step of .ci/run) a missing one fails instead.
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

LAB_BUILD = "POKI_BUILD_LAB=1 pip install -e ."


def reference_package(name: str) -> ModuleType:
    """Import a reference package: skip the module without it, or fail under CI."""
    if os.environ.get("POKI_REQUIRE_REFERENCES") == "1":
        return importlib.import_module(name)
    return pytest.importorskip(name)


def lab_module(name: str) -> ModuleType:
    """Import a laboratory module: skip the test module without it (with the command that
    builds it), or fail where POKI_REQUIRE_LAB=1."""
    if os.environ.get("POKI_REQUIRE_LAB") == "1":
        return importlib.import_module(name)
    try:
        return importlib.import_module(name)
    except ImportError:
        pytest.skip(f"{name} is a laboratory module, built only on request ({LAB_BUILD})",
                    allow_module_level=True)
