"""IRC: the dealer dialect (pure parse/format), a loopback IRC server for tests and the
demo, and the IRC side of the player and dealer bots (connection, reconnect, flood
control). Nothing here knows players, the engine or the database: agent/play ties them in.
"""

import agent  # noqa: E402,F401 - first: installs the guard against stale compiled modules (agent.native)
