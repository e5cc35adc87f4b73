#!/bin/bash
# The remaining experiments after house (5000 deals) and B (5000 deals): R at 5000 deals,
# the rest at 3000 (a shared 2-core machine: the budget did not allow more).
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
while pgrep -f -- "--name B " > /dev/null; do sleep 5; done
L1='poki(bettor=loki1,reweight=loki1)'
run() { # name seed deals specs...
  name=$1; seed=$2; deals=$3; shift 3
  echo "== $name seed=$seed deals=$deals $(date +%T)" >> $OUT/log.txt
  $P match "$@" --deals $deals --seed $seed --workers 2 --no-progress --name $name --json > $OUT/$name.json 2>> $OUT/log.txt
  echo "   done $(date +%T)" >> $OUT/log.txt
}
run R 103 5000 'poki(bettor=loki1)' 'poki(bettor=loki1)' $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1
run BR 104 3000 poki poki $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1
U='poki(weights=uniform)'
run weighted 105 3000 poki poki $U $U $U $U $U $U $U $U
N='poki(potential=off)'
run potential 106 3000 poki poki $N $N $N $N $N $N $N $N
A=poki; Bu='poki(weights=uniform)'; D='poki(potential=off)'; G='poki(opponent_model=generic)'
E='poki(bettor=loki1,reweight=none,weights=uniform,potential=off,opponent_model=generic)'
run versions 107 3000 $A $A $Bu $Bu $D $D $G $G $E $E
