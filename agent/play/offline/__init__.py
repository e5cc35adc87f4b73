"""Running games without a network: the in-process dealer (:mod:`.dealer`), duplicate
tournaments (:mod:`.tournament`), the replay runner (:mod:`.replay`), shadow scoring and
the range scorer it uses (:mod:`.shadow`, :mod:`.range_score`) and the cluster that spreads
replays and matches over machines (:mod:`.cluster`)."""
