#!/bin/bash
# docs/strength.md §10: the learned re-weighting floor (floor_on = "learned": each action's
# factor (1 - eps) f + eps, eps per opponent from its showdowns) on fresh seeds, one match
# at a time (2 workers, nice 5). Run from the repository as POKI="python -m agent.cli".
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
# (a) B: the triple strategy against the Loki-1 Bettor, Loki-1 re-weighting on both sides,
# every player with the learned floor.
B='poki(bettor=triples,reweight=loki1,floor_on=learned)'
L1='poki(bettor=loki1,reweight=loki1,floor_on=learned)'
nice -n 5 $P match "$B" "$B" $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 --deals 3000 --seed 6201 --workers 2 \
    --name B4 --json --no-progress > $OUT/B4.json
# (b) The house-field A/B: two triple players with the learned floor, two with the floor
# on the weight (the old default), mc x2 and the four style bots, one duplicate match.
T='poki(bettor=triples,floor_on=learned)'
TW='poki(bettor=triples,floor_on=weight)'
nice -n 5 $P match "$T" "$T" "$TW" "$TW" mc mc tight-aggressive tight-passive loose-aggressive loose-passive \
    --deals 3000 --seed 6202 --workers 2 --name fieldAB3 --json --no-progress > $OUT/fieldAB3.json
