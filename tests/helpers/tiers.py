"""The two tiers of the test suite, declared where the cost is.

The README's test command runs the fast tier: unit and property tests and one smoke
test of each transport and real part. ``pytest --full`` (always in .ci/run) adds the full
tier: every real-server scenario, the real networks, the browser, the cluster, the
whole-month replays and the long property runs.

A test is in the full tier because of what it uses, never because a list names it: a
fixture that starts something costly (a server, a browser, a cluster, a replay of a whole
month) is declared with :func:`full_tier`, and conftest marks every test that uses it
``full``. A test that is the fast tier's smoke test of such a part says so with
``@pytest.mark.smoke``; a long sweep with no such fixture is ``@pytest.mark.slow``.
Hypothesis tests take their example counts from :func:`examples`.

A fixture that starts an IRC server is also declared with :func:`waits_on_servers`: its
tests spend most of their time waiting on the server's flood limits, not on a core, so
.ci/run runs them (``-m servers``) beside the rest (``-m "not servers"``), both at once.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

# Fixture names declared costly; conftest reads it once every test module is imported.
FULL_TIER_FIXTURES: set[str] = set()

F = TypeVar("F", bound=Callable[..., object])

# Fixture names whose tests mostly wait on a server's limits (marked ``servers``).
SERVER_FIXTURES: set[str] = set()

# Set by conftest from --full before any test module is imported.
FULL_ENV = "POKI_TEST_TIER"


def full_tier(fixture: F) -> F:
    """Declare a fixture costly: every test that uses it is in the full tier. Put it under
    ``@pytest.fixture`` (it records the function's name, which is the fixture's)."""
    FULL_TIER_FIXTURES.add(fixture.__name__)
    return fixture


def waits_on_servers(fixture: F) -> F:
    """Declare a fixture a running IRC server: every test that uses it is marked
    ``servers`` (and is in the full tier only if the fixture is declared full_tier too)."""
    SERVER_FIXTURES.add(fixture.__name__)
    return fixture


def is_full() -> bool:
    return os.environ.get(FULL_ENV) == "full"


def examples(full: int, fast: int | None = None) -> int:
    """A Hypothesis test's example count: ``full`` in the full tier, ``fast`` (a fifth,
    at least 25) in the fast tier."""
    if is_full():
        return full
    return fast if fast is not None else max(25, full // 5)
