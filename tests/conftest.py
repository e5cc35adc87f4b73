"""Fixtures and settings every test module shares; helpers that tests import live in
tests/helpers (import them as `from helpers.<module> import name`)."""
from __future__ import annotations

import pytest


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
    from agent.config import Config
    from agent.play.kinds import install_kinds

    install_kinds(Config())


@pytest.fixture
def server():
    """A loopback IRC server (miniircd on 127.0.0.1, a port from the OS), stopped after."""
    from connectors.irc.server import LoopbackServer

    srv = LoopbackServer().start()
    try:
        yield srv
    finally:
        srv.stop()
