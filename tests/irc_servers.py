"""Real IRC server software for the tests (connectors.irc.daemons): ngircd, and InspIRCd
linked to Anope services, from Debian's packages. Where one is not installed a
developer's run skips the tests that need it; with POKI_REQUIRE_IRC_SERVERS=1 (set by
.ci/run, which installs them) a missing one fails them instead, so a green CI always
means they ran."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from connectors.irc.daemons import Inspircd, Ngircd, missing_programs

from helpers.tiers import full_tier

REQUIRED = os.environ.get("POKI_REQUIRE_IRC_SERVERS") == "1"


def need(*servers: str) -> None:
    """Skip the test (fail it under CI) when the programs ``servers`` need are missing."""
    missing = missing_programs(*servers)
    if not missing:
        return
    message = f"not installed: {', '.join(missing)} (.ci/run installs them with apt-get)"
    if REQUIRED:
        pytest.fail(f"POKI_REQUIRE_IRC_SERVERS is set but {message}")
    pytest.skip(message)


@pytest.fixture(scope="module")
@full_tier
def inspircd():
    """InspIRCd with Anope services on loopback, shared by a module's tests (each registers
    accounts of its own)."""
    need("inspircd")
    with Inspircd() as net:
        yield net


@pytest.fixture(scope="module")
@full_tier
def ngircd():
    need("ngircd")
    with Ngircd() as net:
        yield net


def secret_file(folder: Path, name: str, secret: str) -> Path:
    """A password file as a user keeps one: the secret on its first line, readable by its
    owner alone."""
    path = folder / name
    path.write_text(secret + "\n")
    path.chmod(0o600)
    return path
