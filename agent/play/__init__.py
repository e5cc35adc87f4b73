"""What runs games: the seat runtime shared by every live table (:mod:`agent.play.seat`),
the dealers' table logic (the IRC dealer bot, :mod:`agent.play.irc_table`; our ACPC dealer,
:mod:`agent.play.acpc_dealer`), the glue that ties a connector, a player and the database
together for one kind of table (:mod:`agent.play.acpc_match`, :mod:`agent.play.irc_player`),
the in-process dealer, duplicate tournaments, the replay runner and shadow scoring."""
