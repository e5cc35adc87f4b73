"""What runs games at live tables: the seat runtime shared by every connector
(:mod:`agent.play.seat`) and the glue that ties a connector, a player and the database
together for one kind of table (:mod:`agent.play.acpc_match` for ACPC dealers)."""
