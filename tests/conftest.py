"""Fixtures and settings every test module shares; helpers that tests import live in
tests/helpers (import them as `from helpers.<module> import name`)."""
from __future__ import annotations

import pytest


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
