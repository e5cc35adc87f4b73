"""Adapters between wire or log formats and the tracker's typed events (no poker logic):
logs/ (the 1995 IRC Poker Database, ACPC dealer logs, PHH) and acpc/ (the ACPC dealer's
game definitions). Connectors know agent.game and nothing above it.
"""
# First: agent.native's guard covers this package's compiled modules.
import agent.native  # noqa: F401 - imported for the compiled-module guard
