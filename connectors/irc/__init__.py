"""IRC: the dealer dialect (pure parse/format), the bots' IRC side
(connection, TLS and the login to an account, reconnect, flood control), a loopback IRC
server for tests and the demo, and real server software (ngircd, InspIRCd with Anope
services) on loopback for the tests and the benchmark. Nothing here knows players, the
engine or the database: agent/play ties them in
(the dealer's table logic is agent.play.irc.table).
"""
