#!/bin/bash
# docs/strength.md §12: the shipped strategy (agent/engine/data/cfr-default.npz) and the
# finer one. Run from anywhere; POKI / PYTHON name the commands (default: the venv's).
cd "$(dirname "$0")/../../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs/cfr
# The shipped strategy: 5 E[HS²] buckets a round, the chance model from 3,000 sampled
# flops (4 turns each, 4 rivers each turn: 48,000 river boards), 4,000 CFR+ iterations on
# two threads, the exact best response every 50.
nice -n 5 $P train-cfr --buckets 5,5,5,5 --flops 3000 --seed 2030 --iterations 4000 --batch 50 \
    --out agent/engine/data/cfr-default.npz --checkpoint /tmp/cfr-5555.ckpt --log-json $OUT/train_5555.json \
    --no-progress
# A finer abstraction (8 buckets a round: 57 M strategy entries, about 0.7 GB of regrets
# and sums): hours on a laptop's two cores; resumable (--resume /tmp/cfr-8888.ckpt).
if [ "$1" = "--fine" ]; then
  nice -n 5 $P train-cfr --buckets 8,8,8,8 --flops 3000 --seed 2031 --iterations ${FINE_ITERATIONS:-1000} \
      --batch 100 --out /tmp/cfr-8888.npz --checkpoint /tmp/cfr-8888.ckpt --log-json $OUT/train_8888.json \
      --no-progress
fi
${PYTHON:-.venv/bin/python} $OUT/plot.py
