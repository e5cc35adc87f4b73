#!/bin/bash
# Follow-up to the potential experiment (which lost with the triple strategy): hand
# potential with the Loki-1 Bettor on both sides, as in seed 003's Lokibot experiment.
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
while pgrep -f "strength_runs/run4.sh" > /dev/null; do sleep 5; done
V='poki(bettor=loki1,reweight=loki1)'
N='poki(bettor=loki1,reweight=loki1,potential=off)'
echo "== potential_loki1 seed=109 deals=3000 $(date +%T)" >> $OUT/log.txt
$P match $V $V $N $N $N $N $N $N $N $N --deals 3000 --seed 109 --workers 2 --no-progress --name potential_loki1 --json > $OUT/potential_loki1.json 2>> $OUT/log.txt
echo "   done $(date +%T)" >> $OUT/log.txt
