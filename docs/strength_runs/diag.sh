#!/bin/bash
# Diagnostic table for B (which lost): the Loki-1 Bettor and four triple-strategy variants,
# two copies each, all with Loki-1 re-weighting.
cd "$(dirname "$0")/../.."
${POKI:-.venv/bin/poki} match 'poki(bettor=loki1,reweight=loki1)' 'poki(bettor=loki1,reweight=loki1)' \
  'poki(reweight=loki1)' 'poki(reweight=loki1)' \
  'poki(reweight=loki1,call_margin=0.15)' 'poki(reweight=loki1,call_margin=0.15)' \
  'poki(reweight=loki1,semi_bluff=0,check_raise=0,slow_play=0)' 'poki(reweight=loki1,semi_bluff=0,check_raise=0,slow_play=0)' \
  'poki(reweight=loki1,mix_width=0)' 'poki(reweight=loki1,mix_width=0)' \
  --deals 1000 --seed 201 --workers 1 --no-progress --name diagB --json > docs/strength_runs/diagB.json
