#!/bin/bash
# Strength experiments for docs/strength.md; each writes JSON and a table.
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
DEALS=${DEALS:-5000}  # house and B were run with 5000
L1='poki(bettor=loki1,reweight=loki1)'
run() { # name seed specs...
  name=$1; seed=$2; shift 2
  echo "== $name seed=$seed deals=$DEALS $(date +%T)" >> $OUT/log.txt
  $P match "$@" --deals $DEALS --seed $seed --workers 2 --no-progress --name $name --json > $OUT/$name.json 2>> $OUT/log.txt
  echo "   done $(date +%T)" >> $OUT/log.txt
}
H="tight-aggressive tight-aggressive tight-passive tight-passive loose-aggressive loose-aggressive loose-passive loose-passive"
run house 101 poki poki $H
run B 102 'poki(reweight=loki1)' 'poki(reweight=loki1)' $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1
# R, B+R, weighted, potential and versions: run3.sh (fewer deals for the later ones).
