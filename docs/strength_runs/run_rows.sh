#!/bin/bash
# docs/strength.md §9: S at ten seats and the regular's rows re-run with the shipped `poki`
# (simulator bettor, calling rule "showdown", floor_on = "weight", sim_time_ms = 0), fresh
# seeds, one match at a time. T is the formula engine (the triple strategy).
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
T='poki(bettor=triples)'
FIELD="mc mc tight-aggressive tight-aggressive tight-passive loose-aggressive loose-passive rr"
# S at ten seats: two shipped Pokis against eight formula engines (as S10, §6).
$P match poki poki "$T" "$T" "$T" "$T" "$T" "$T" "$T" "$T" --deals 1000 --seed 8101 --workers 2 \
    --name S10b --json --no-progress > $OUT/S10b.json
# A regular (as §6): a warm-up match fills warm3.sqlite; the measured match starts from a
# copy of it (--db: one process, models carried through); the same match cold (no
# database, fresh models every 50 deals) beside it.
rm -f $OUT/warm3.sqlite* $OUT/regular3.sqlite*
$P match "$T" poki $FIELD --deals 300 --seed 8102 --name warm3 --db $OUT/warm3.sqlite --json --no-progress > $OUT/warm3.json
cp $OUT/warm3.sqlite $OUT/regular3.sqlite
$P match "$T" poki $FIELD --deals 2000 --seed 8103 --name regular3 --db $OUT/regular3.sqlite --json --no-progress > $OUT/regular3.json
$P match "$T" poki $FIELD --deals 2000 --seed 8103 --workers 2 --name cold3 --json --no-progress > $OUT/cold3.json
# S at ten seats again on a second fresh seed (1,500 deals).
$P match poki poki "$T" "$T" "$T" "$T" "$T" "$T" "$T" "$T" --deals 1500 --seed 8104 --workers 2 \
    --name S10c --json --no-progress > $OUT/S10c.json
