#!/bin/bash
# The rows of docs/strength.md §7: the triple strategy with the "showdown" calling rule
# (B, B+R, potential) and the simulator as the default bettor (S heads-up, the house field),
# all on fresh seeds, sim_time_ms=0 so a run does not depend on the machine's load.
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
L1='poki(bettor=loki1,reweight=loki1)'
T='poki(bettor=triples)'
SIM='poki(bettor=simulator,sim_time_ms=0)'
FIELD="mc mc tight-aggressive tight-aggressive tight-passive loose-aggressive loose-passive rr"
$P match 'poki(bettor=triples,reweight=loki1)' 'poki(bettor=triples,reweight=loki1)' $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 \
    --deals 1500 --seed 5101 --workers 1 --name B2 --json --no-progress > $OUT/B2.json &
$P match "$T" "$T" $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 --deals 1500 --seed 5102 --workers 1 --name BR2 --json --no-progress > $OUT/BR2.json &
NP='poki(bettor=triples,potential=off)'
$P match "$T" "$T" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" --deals 1500 --seed 5103 --workers 1 --name potential2 \
    --json --no-progress > $OUT/potential2.json &
$P match "$SIM" "$T" $FIELD --deals 1000 --seed 5104 --workers 1 --name field2 --json --no-progress > $OUT/field2.json &
$P match "$SIM" "$T" --deals 3000 --seed 5105 --workers 1 --name S2b --json --no-progress > $OUT/S2b.json &
wait
