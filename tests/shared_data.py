"""Where the tests find the shared April 1995 IRC logs: ../shared/data beside the
repository, or $POKI_SHARED_DATA. On a developer's machine without them the tests on real
data are skipped; under CI (POKI_REQUIRE_SHARED_DATA=1, set by .ci/run, or CI set) they
must be there, since a run that skipped them would prove nothing about real logs."""
from __future__ import annotations

import os

from agent.play.offline.replay import shared_irc_logs

DATA = shared_irc_logs()
if DATA is None and (os.environ.get("POKI_REQUIRE_SHARED_DATA") == "1" or os.environ.get("CI")):
    raise RuntimeError(
        "the shared IRC hand logs were not found (../shared/data/irc-holdem-199504-dev "
        "beside the repository, or $POKI_SHARED_DATA); CI needs them"
    )

# FPDB's fixed-limit regression files from six online rooms, beside the IRC logs.
FPDB_LHE = None if DATA is None else DATA.parent / "fpdb-lhe"
if FPDB_LHE is not None and not (FPDB_LHE / "README.md").is_file():
    if os.environ.get("POKI_REQUIRE_SHARED_DATA") == "1" or os.environ.get("CI"):
        raise RuntimeError(f"the online rooms' hand histories were not found at {FPDB_LHE}; CI needs them")
    FPDB_LHE = None
