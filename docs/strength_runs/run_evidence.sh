#!/bin/bash
# The rows of docs/strength.md §8: the re-weighting floor on each action's factor
# (floor_on = "action"; the shipped default is "weight") on fresh seeds, one match at a
# time (2 workers). B3 and BR3 ran while "action" was the default, so their JSON files
# print the specs without floor_on; it is written out here.
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
L1='poki(bettor=loki1,reweight=loki1,floor_on=action)'
T='poki(bettor=triples,floor_on=action)'
TW='poki(bettor=triples,floor_on=weight)'
# B: the triple strategy against the Loki-1 Bettor, Loki-1 re-weighting on both sides.
B='poki(bettor=triples,reweight=loki1,floor_on=action)'
$P match "$B" "$B" $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 --deals 3000 --seed 6101 --workers 2 --name B3 --json > $OUT/B3.json
# A second field: the fix against the old floor, two of each, at a table of house bots.
$P match "$T" "$T" "$TW" "$TW" mc mc tight-aggressive tight-passive loose-aggressive loose-passive \
    --deals 3000 --seed 6102 --workers 2 --name fieldAB --json > $OUT/fieldAB.json
# B+R: the triple strategy and triple re-weighting against Loki-1.
$P match "$T" "$T" $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 --deals 3000 --seed 6103 --workers 2 --name BR3 --json > $OUT/BR3.json
# Potential on the triple strategy.
NP='poki(bettor=triples,potential=off,floor_on=action)'
$P match "$T" "$T" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" --deals 2500 --seed 6104 --workers 2 \
    --name potential3 --json > $OUT/potential3.json
# Calibration (seed 7001, 1,500 hands, plain play): before (floor on the weight) and after.
PY=${PYTHON:-.venv/bin/python}
$PY $OUT/calibration.py 7001 1500 'poki(bettor=triples,reweight=loki1,floor_on=weight)' \
    'poki(bettor=loki1,reweight=loki1,floor_on=weight)' > $OUT/calibration_B_before.txt
$PY $OUT/calibration.py 7001 1500 'poki(bettor=triples,reweight=loki1,floor_on=action)' \
    'poki(bettor=loki1,reweight=loki1,floor_on=action)' > $OUT/calibration_B_after.txt
$PY $OUT/calibration.py 7001 1500 'poki(bettor=triples,floor_on=weight)' \
    'poki(bettor=loki1,reweight=loki1,floor_on=weight)' > $OUT/calibration_T_before.txt
$PY $OUT/calibration.py 7001 1500 'poki(bettor=triples,floor_on=action)' \
    'poki(bettor=loki1,reweight=loki1,floor_on=action)' > $OUT/calibration_T_after.txt
# The house-field A/B again on a fresh seed.
$P match "$T" "$T" "$TW" "$TW" mc mc tight-aggressive tight-passive loose-aggressive loose-passive \
    --deals 2000 --seed 6105 --workers 2 --name fieldAB2 --json > $OUT/fieldAB2.json
