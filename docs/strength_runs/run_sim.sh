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
$P match poki "$SIM" $FIELD --deals 1500 --seed 401 --workers 2 --name field --json --no-progress > $OUT/field.json
# A regular: a warm-up match fills warm.sqlite, the measured match starts from a copy of it
# (so it can be replayed from the same file); both in one process (--db), fresh seeds.
rm -f $OUT/warm.sqlite* $OUT/regular.sqlite*
$P match poki "$SIM" $FIELD --deals ${WARM:-300} --seed 402 --name warm --db $OUT/warm.sqlite \
    --json --no-progress > $OUT/warm.json
cp $OUT/warm.sqlite $OUT/regular.sqlite
$P match poki "$SIM" $FIELD --deals ${MEASURED:-300} --seed 403 --name regular --db $OUT/regular.sqlite \
    --json --no-progress > $OUT/regular.json
$P match poki "$SIM" $FIELD --deals ${MEASURED:-300} --seed 403 --name cold --json --no-progress > $OUT/cold.json
