"""ACPC matches: our ACPC dealer (:mod:`.dealer`, its match types :mod:`.dealer_seats`),
the glue between the ACPC protocol, the seat runtime, a player and the database for a
match at an ACPC dealer (:mod:`.match`) and the lean client path for a seat that needs no
events (:mod:`.lean`)."""
