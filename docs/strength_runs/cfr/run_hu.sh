#!/bin/bash
# docs/strength.md §12: the heads-up rows. Duplicate matches, fresh seeds, two workers,
# nice 5. cfr and Poki meet each house bot on the same seed (the same cards, deal by deal),
# so paired.py gives Poki − cfr against each bot on the same deals. Poki's players are
# rebuilt every --chunk deals (2,500: 5,000 hands of one opponent model per batch).
# A match whose JSON is already here is not played again (delete it to replay).
# Run from anywhere; POKI / PYTHON name the commands (default: the venv's).
cd "$(dirname "$0")/../../.."
P=${POKI:-.venv/bin/poki}
PY=${PYTHON:-.venv/bin/python}
OUT=docs/strength_runs/cfr
DEALS=${DEALS:-5000}
run() {  # NAME SEED DEALS SPEC SPEC
  local name=$1 seed=$2 deals=$3; shift 3
  [ -s $OUT/$name.json ] && return
  nice -n 5 $P match "$@" --deals $deals --seed $seed --workers 2 --chunk 2500 --name $name --json --json-hands \
      --no-progress > $OUT/$name.json.part && mv $OUT/$name.json.part $OUT/$name.json
}
run hu_poki_cfr 7120 ${DEALS_POKI_CFR:-40000} poki cfr
$PY docs/strength_runs/paired.py cfr/hu_poki_cfr poki cfr
run lbr_cfr 7130 ${DEALS_LBR:-10000} 'lbr(target=cfr)' cfr
$PY docs/strength_runs/paired.py cfr/lbr_cfr lbr cfr
run lbr_poki 7131 $DEALS 'lbr(target=poki)' poki
$PY docs/strength_runs/paired.py cfr/lbr_poki 'lbr(target=poki)' poki
seed=7101
for bot in call raise random rr mc tight-aggressive tight-passive loose-aggressive loose-passive; do
  run hu_cfr_$bot $seed $DEALS cfr $bot
  run hu_poki_$bot $seed $DEALS poki $bot
  $PY docs/strength_runs/paired.py cfr/hu_poki_$bot poki cfr cfr/hu_cfr_$bot
  seed=$((seed + 1))
done
$PY $OUT/summarize_hu.py
# The finer strategy (train.sh --fine writes /tmp/cfr-8888.npz): against the shipped one,
# and its own local best response.
if [ -s /tmp/cfr-8888.npz ]; then
  run cfr8_cfr5 7140 ${DEALS_FINE:-10000} "fine=cfr(strategy='/tmp/cfr-8888.npz')" cfr
  $PY docs/strength_runs/paired.py cfr/cfr8_cfr5 "cfr(strategy=/tmp/cfr-8888.npz)" cfr
  run lbr_cfr8 7141 ${DEALS_LBR:-10000} "lbr(strategy='/tmp/cfr-8888.npz')" "cfr(strategy='/tmp/cfr-8888.npz')"
  $PY docs/strength_runs/paired.py cfr/lbr_cfr8 "lbr(strategy=/tmp/cfr-8888.npz)" "cfr(strategy=/tmp/cfr-8888.npz)"
fi
