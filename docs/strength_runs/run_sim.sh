#!/bin/bash
# The simulator's rows (docs/strength.md §6): S heads-up and at ten seats against the
# formula engine, the ten-seat house field with the Monte Carlo thresholds bot (mc), and
# the field again as a regular plays it: models warmed in a SQLite file first.
# sim_time_ms=0: no time budget, so a run is reproducible whatever the machine's load.
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
SIM='poki(bettor=simulator,sim_time_ms=0)'
FIELD="mc mc tight-aggressive tight-aggressive tight-passive loose-aggressive loose-passive rr"
$P match "$SIM" poki --deals 5000 --seed 302 --workers 2 --name S2 --json --no-progress > $OUT/S2.json
$P match "$SIM" "$SIM" poki poki poki poki poki poki poki poki --deals 1200 --seed 304 --workers 2 \
    --name S10 --json --no-progress > $OUT/S10.json
T='poki(bettor=simulator,sim_time_ms=0,sim_thresholds=table)'
$P match "$T" "$SIM" --deals 3000 --seed 306 --workers 2 --name TU2 --json --no-progress > $OUT/TU2.json
$P match "$T" "$T" poki poki poki poki poki poki poki poki --deals 1200 --seed 307 --workers 2 \
    --name T10 --json --no-progress > $OUT/T10.json
$P match poki "$SIM" $FIELD --deals 1500 --seed 401 --workers 2 --name field --json --no-progress > $OUT/field.json
# A regular: a warm-up match fills warm.sqlite, the measured match starts from a copy of it
# (so it can be replayed from the same file); --db runs it in one process. The same match
# without a database is the cold figure. 300-deal pair on seed 403, 1,000-deal pair on 404.
rm -f $OUT/warm.sqlite* $OUT/regular*.sqlite*
$P match poki "$SIM" $FIELD --deals 300 --seed 402 --name warm --db $OUT/warm.sqlite --json --no-progress > $OUT/warm.json
for run in "regular 403 300" "regular2 404 1000"; do
    set -- $run
    cp $OUT/warm.sqlite $OUT/$1.sqlite
    $P match poki "$SIM" $FIELD --deals $3 --seed $2 --name $1 --db $OUT/$1.sqlite --json --no-progress > $OUT/$1.json
done
$P match poki "$SIM" $FIELD --deals 300 --seed 403 --workers 2 --name cold --json --no-progress > $OUT/cold.json
$P match poki "$SIM" $FIELD --deals 1000 --seed 404 --workers 2 --name cold2 --json --no-progress > $OUT/cold2.json
