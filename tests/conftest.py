"""Fixtures and settings every test module shares; helpers that tests import live in
tests/helpers (import them as `from helpers.<module> import name`)."""
from __future__ import annotations

import hashlib
import importlib.abc
import os
import sys
from pathlib import Path

import pytest

from helpers.tiers import FULL_ENV, FULL_TIER_FIXTURES, SERVER_FIXTURES, full_tier, waits_on_servers

# The laboratory's compiled modules (setup.py, POKI_BUILD_LAB=1). Where POKI_HIDE_LAB=1
# (.ci/run's product step, on a build that has them for its lab step) they cannot be
# imported by the tests, as on the product users install.
LAB_MODULES = frozenset({"evaluator_pyx._floor"})


class _HiddenLab(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname in LAB_MODULES:
            raise ModuleNotFoundError(f"{fullname} is hidden: POKI_HIDE_LAB=1 tests the product as users install it",
                                      name=fullname)
        return None


if os.environ.get("POKI_HIDE_LAB") == "1":
    sys.meta_path.insert(0, _HiddenLab())


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full", action="store_true", default=False,
        help="run the full tier too: every real-server scenario, the real networks, the browser, "
             "the cluster, the whole-month replays and the long property runs (tests/helpers/tiers.py)")


# What the small strategy is trained from: a change to any of these trains it anew.
_STRATEGY_SOURCES = ("agent/engine/abstraction.py", "agent/engine/equilibrium.py", "agent/engine/_cfr.pyx",
                     "evaluator_pyx/_abstraction.pyx")


def _train_small_strategy(path: Path) -> None:
    from agent.engine.abstraction import measure
    from agent.engine.equilibrium import AbstractGame, StrategyFile, Trainer

    game = AbstractGame(measure((2, 2, 2, 2), 8, seed=12, turns=2, rivers=2, with_flop_table=False))
    trainer = Trainer(game, threads=2)
    trainer.run(150, 150)
    StrategyFile.write(path, game, trainer.average(), trainer.log.rows)


@pytest.fixture(scope="session")
def small_strategy(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A strategy file of a coarse abstract game (two buckets a round), trained briefly:
    the heads-up players' tests play it instead of the shipped one. Trained once and kept
    in pytest's cache folder under the digest of the code that trains it (a worker that
    finds it there reads it; one that trains writes it whole, by rename)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for name in _STRATEGY_SOURCES:
        digest.update((root / name).read_bytes())
    if request.config.pluginmanager.hasplugin("cacheprovider"):
        folder = request.config.cache.mkdir("poki-strategy")
    else:  # -p no:cacheprovider: trained for this run alone
        folder = tmp_path_factory.mktemp("strategy")
    path = Path(folder) / f"small-{digest.hexdigest()[:16]}.npz"
    if not path.is_file():
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.npz")
        _train_small_strategy(partial)
        os.replace(partial, path)
    return str(path)


def pytest_configure(config: pytest.Config) -> None:
    """The tier (before any test module is imported: Hypothesis settings read it), then the
    player kinds, with the built-in settings, as the command line registers them with its
    own (agent.play.kinds): tests build players from specs directly."""
    os.environ[FULL_ENV] = "full" if config.getoption("--full") else "fast"
    from agent.config import Config
    from agent.play.kinds import install_kinds

    install_kinds(Config())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the full tier by what each test uses (tests/helpers/tiers.py); without --full
    deselect it, and say so at the end of the run."""
    fast, full = [], []
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if SERVER_FIXTURES.intersection(fixtures):
            item.add_marker(pytest.mark.servers)
        costly = FULL_TIER_FIXTURES.intersection(fixtures)
        if (costly and item.get_closest_marker("smoke") is None) or item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.full)
        (full if item.get_closest_marker("full") else fast).append(item)
    if full and not config.getoption("--full"):
        config.hook.pytest_deselected(items=full)
        items[:] = fast
        config.stash[_DESELECTED] = len(full)


_DESELECTED = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    if config.getoption("--full"):
        return
    # Under xdist the workers deselect and this process does not hear how many.
    left = config.stash.get(_DESELECTED, None)
    count = f"{left} tests of " if left else ""
    terminalreporter.write_line(
        f"fast tier: {count}the full tier not run (servers, browser, cluster, whole-month replays, long "
        f"sweeps and property runs); `pytest -n 2 --full` runs every test")


@pytest.fixture
@full_tier
@waits_on_servers
def server():
    """A loopback IRC server (miniircd on 127.0.0.1, a port from the OS), stopped after."""
    from connectors.irc.server import LoopbackServer

    srv = LoopbackServer().start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture
@full_tier
def browser():
    """A real headless Chromium (tests/chromium.py), closed after. Missing, the test is
    skipped on a developer's machine and fails where POKI_REQUIRE_BROWSER=1 (.ci/run
    installs it), so a green CI always means the pages were loaded."""
    from chromium import Chromium, chromium_path

    if chromium_path() is None:
        message = "no chromium (.ci/run installs it with apt-get)"
        if os.environ.get("POKI_REQUIRE_BROWSER") == "1":
            pytest.fail(f"POKI_REQUIRE_BROWSER is set but there is {message}")
        pytest.skip(message)
    with Chromium() as chromium:
        yield chromium
