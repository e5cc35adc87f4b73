"""IRC: the dealer dialect (pure parse/format), a loopback IRC server for tests and the
demo, and the IRC side of the player and dealer bots (connection, reconnect, flood
control). Nothing here knows players, the engine or the database: agent/play ties them in.
"""
