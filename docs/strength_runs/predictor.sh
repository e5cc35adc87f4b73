#!/bin/sh
# The engine reading the meta-predictor (fine contexts backed off, mixed per opponent
# with the twelve contexts; the default) against the same engine reading twelve contexts:
# five copies of each, duplicate, fresh seed. Prints nothing; writes predictor.json.
M="poki(predictor=meta)"; T="poki(predictor=twelve)"
poki match "$M" "$M" "$M" "$M" "$M" "$T" "$T" "$T" "$T" "$T" \
    --deals 1000 --seed 4242 --workers 2 --json > predictor.json
