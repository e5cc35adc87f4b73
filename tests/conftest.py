"""Shared test helpers.

Reference packages (eval7, phevaluator, PokerKit) are test-only dependencies of the dev
extra. Where they are missing a developer's run skips the tests that need them; with
POKI_REQUIRE_REFERENCES=1 (set by .ci/run) a missing one fails the run instead, so a
green CI always means the checks against them ran.
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def reference_package(name: str) -> ModuleType:
    """Import a reference package: skip the module without it, or fail under CI."""
    if os.environ.get("POKI_REQUIRE_REFERENCES") == "1":
        return importlib.import_module(name)
    return pytest.importorskip(name)


@pytest.fixture(scope="session")
def small_strategy(tmp_path_factory) -> str:
    """A strategy file of a coarse abstract game (two buckets a round), trained briefly:
    the heads-up players' tests play it instead of the shipped one."""
    from agent.engine.abstraction import measure
    from agent.engine.equilibrium import AbstractGame, StrategyFile, Trainer

    game = AbstractGame(measure((2, 2, 2, 2), 8, seed=12, turns=2, rivers=2, with_flop_table=False))
    trainer = Trainer(game, threads=2)
    trainer.run(150, 150)
    path = tmp_path_factory.mktemp("strategy") / "small.npz"
    StrategyFile.write(path, game, trainer.average(), trainer.log.rows)
    return str(path)


def pytest_configure(config: pytest.Config) -> None:
    """The player kinds, with the built-in settings, as the command line registers them
    with its own (agent.play.kinds): tests build players from specs directly."""
    from agent.play.kinds import install_kinds
    from agent.config import Config

    install_kinds(Config())
