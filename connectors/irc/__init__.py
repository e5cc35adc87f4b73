"""IRC: the dealer dialect (pure parse/format), a loopback IRC server for tests and the
demo, the bots' IRC connection (reconnect, flood control) and the player bot's reading of
the dealer's lines into events. The dealer's table logic is agent.play.irc_table.
Nothing here knows players, the engine or the database: agent/play ties them in.
"""
