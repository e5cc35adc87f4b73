#!/bin/bash
# Follow-up to B (which lost): the same comparison with a call margin of 0.15 on the
# triple strategy's calls, on a fresh seed. Exploratory; the default stays 0.
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
while pgrep -f "strength_runs/run3.sh" > /dev/null; do sleep 5; done
L1='poki(bettor=loki1,reweight=loki1)'
V='poki(reweight=loki1,call_margin=0.15)'
echo "== Bmargin seed=108 deals=3000 $(date +%T)" >> $OUT/log.txt
$P match $V $V $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 --deals 3000 --seed 108 --workers 2 --no-progress --name Bmargin --json > $OUT/Bmargin.json 2>> $OUT/log.txt
echo "   done $(date +%T)" >> $OUT/log.txt
