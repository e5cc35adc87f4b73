#!/bin/bash
# Re-run every match of docs/strength.md's table (and the rows of docs/lab/strength.md §10
# they were measured with), one at a time (2 workers, nice 5); each writes NAME.json here
# and paired.py reduces the per-hand results to NAME.deals.json. Hours on two cores.
# Run from anywhere; POKI="python -m agent.cli" runs a checkout without installing.
# `poki` has had the loose pre-flop thresholds since issue 42 (item 3); the rows measured
# before it were played with what is `poki(preflop=moderate)` now (add it to replay them).
cd "$(dirname "$0")/../.."
P=${POKI:-.venv/bin/poki}
OUT=docs/strength_runs
# (a) B: the triple strategy against the Loki-1 Bettor, Loki-1 re-weighting on both sides,
# every player with the learned floor.
B='poki(bettor=triples,reweight=loki1,floor_on=learned)'
L1='poki(bettor=loki1,reweight=loki1,floor_on=learned)'
nice -n 5 $P match "$B" "$B" $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 --deals 3000 --seed 6201 --workers 2 \
    --name B4 --json --no-progress > $OUT/B4.json
# (b) The house-field A/B: two triple players with the learned floor, two with the floor
# on the weight (the old default), mc x2 and the four style bots, one duplicate match.
T='poki(bettor=triples,floor_on=learned)'
TW='poki(bettor=triples,floor_on=weight)'
nice -n 5 $P match "$T" "$T" "$TW" "$TW" mc mc tight-aggressive tight-passive loose-aggressive loose-passive \
    --deals 3000 --seed 6202 --workers 2 --name fieldAB3 --json --no-progress > $OUT/fieldAB3.json
# From here `poki` ships with floor_on = "learned". --json-hands keeps the per-hand results,
# which paired.py reduces to NAME.deals.json (the paired difference of two specs by deal).
PY=${PYTHON:-.venv/bin/python}
# (c) S heads-up: the shipped engine (simulator) against the formula engine.
nice -n 5 $P match poki 'poki(bettor=triples)' --deals 3000 --seed 6203 --workers 2 --name S4 --json --json-hands \
    --no-progress > $OUT/S4.json
$PY $OUT/paired.py S4 poki 'poki(bettor=triples)'
# (d) The shipped engine at ten seats in the house field (as §6 and §9).
FIELD="mc mc tight-aggressive tight-aggressive tight-passive loose-aggressive loose-passive rr"
nice -n 5 $P match poki 'poki(bettor=triples)' $FIELD --deals 2000 --seed 6204 --workers 2 --name field4 --json \
    --json-hands --no-progress > $OUT/field4.json
$PY $OUT/paired.py field4 poki mc
$PY $OUT/paired.py field4 poki 'poki(bettor=triples)'
# The house-field A/B again on a fresh seed, with per-deal results (paired difference).
nice -n 5 $P match "$T" "$T" "$TW" "$TW" mc mc tight-aggressive tight-passive loose-aggressive loose-passive \
    --deals 3000 --seed 6205 --workers 2 --name fieldAB4 --json --json-hands --no-progress > $OUT/fieldAB4.json
$PY $OUT/paired.py fieldAB4 'poki(bettor=triples)' 'poki(bettor=triples, floor_on=weight)'
# The same A/B with the shipped engine (simulator bettor): learned against the weight floor.
nice -n 5 $P match poki poki 'poki(floor_on=weight)' 'poki(floor_on=weight)' mc mc tight-aggressive tight-passive \
    loose-aggressive loose-passive --deals 2000 --seed 6206 --workers 2 --name fieldAB5 --json --json-hands \
    --no-progress > $OUT/fieldAB5.json
$PY $OUT/paired.py fieldAB5 poki 'poki(floor_on=weight)'
# B+R with the learned floor everywhere.
nice -n 5 $P match 'poki(bettor=triples)' 'poki(bettor=triples)' $L1 $L1 $L1 $L1 $L1 $L1 $L1 $L1 --deals 3000 \
    --seed 6207 --workers 2 --name BR4 --json --json-hands --no-progress > $OUT/BR4.json
$PY $OUT/paired.py BR4 'poki(bettor=triples)' 'poki(bettor=loki1, reweight=loki1)'
# A regular with the learned floor (as §9): a warm-up match fills warm4.sqlite (the models
# and the off-model counts); the measured match starts from a copy of it (--db: one
# process, both carried through); the same match cold (no database) beside it.
rm -f $OUT/warm4.sqlite* $OUT/regular4.sqlite*
nice -n 5 $P match 'poki(bettor=triples)' poki $FIELD --deals 300 --seed 6208 --name warm4 --db $OUT/warm4.sqlite \
    --json --no-progress > $OUT/warm4.json
cp $OUT/warm4.sqlite $OUT/regular4.sqlite
nice -n 5 $P match 'poki(bettor=triples)' poki $FIELD --deals 2000 --seed 6209 --name regular4 --db $OUT/regular4.sqlite \
    --json --json-hands --no-progress > $OUT/regular4.json
nice -n 5 $P match 'poki(bettor=triples)' poki $FIELD --deals 2000 --seed 6209 --workers 2 --name cold4 --json \
    --json-hands --no-progress > $OUT/cold4.json
$PY $OUT/paired.py regular4 poki mc
$PY $OUT/paired.py cold4 poki mc
# The same deals as a regular and cold (paired across the two matches).
$PY $OUT/paired.py regular4 poki poki cold4
$PY $OUT/paired.py regular4 'poki(bettor=triples)' 'poki(bettor=triples)' cold4
$PY $OUT/paired.py regular4 mc mc cold4
# Potential on the triple strategy, and S at ten seats, with the learned floor.
NP='poki(bettor=triples,potential=off)'
nice -n 5 $P match 'poki(bettor=triples)' 'poki(bettor=triples)' "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" "$NP" \
    --deals 2500 --seed 6211 --workers 2 --name potential4 --json --json-hands --no-progress > $OUT/potential4.json
$PY $OUT/paired.py potential4 'poki(bettor=triples)' 'poki(bettor=triples, potential=false)'
T4='poki(bettor=triples)'
nice -n 5 $P match poki poki "$T4" "$T4" "$T4" "$T4" "$T4" "$T4" "$T4" "$T4" --deals 1500 --seed 6210 --workers 2 \
    --name S10d --json --json-hands --no-progress > $OUT/S10d.json
$PY $OUT/paired.py S10d poki 'poki(bettor=triples)'
# The same deals in-process and at our ACPC dealer over TCP (every seat's chips equal).
$PY $OUT/acpc_table.py 2000 2027 17
# The rows of the table:
$PY $OUT/summarize.py field4 regular4 cold4 S4 S10d B4 fieldAB5
# The range reader (issue 42): the issue's field with each of its settings, fresh seeds;
# RR* with Poki as it was then (moderate pre-flop thresholds), RL* with the loose default
# of item 3 (below).
for row in "RR2 range-reader 4202 poki(preflop=moderate)" "RR3 range-reader-tightest 4203 poki(preflop=moderate)" \
        "RR4 range-reader-loosest 4204 poki(preflop=moderate)" "RL1 range-reader 4221 poki" \
        "RL4 range-reader-loosest 4223 poki" "RL3 range-reader-tightest 4224 poki" \
        "RL4b range-reader-loosest 4226 poki" "RL1b range-reader 4227 poki"; do
    set -- $row
    F="$4 $2 mc tight-aggressive call"
    nice -n 5 $P match $F $F --deals 2000 --seed $3 --workers 2 --name $1 --json --json-hands --no-progress \
        > $OUT/$1.json
    $PY $OUT/paired.py $1 "$4" $2
    $PY $OUT/paired.py $1 $2 mc
done
# Where the difference lies (docs/lab/strength.md §14): by situation on RR2's first 1,000
# deals, and Poki with one component changed at a time beside the range reader.
$PY $OUT/situations.py 1000 4202 poki range-reader poki range-reader mc tight-aggressive call \
    poki range-reader mc tight-aggressive call
nice -n 5 $P match poki 'poki(preflop=loose)' 'poki(reweight=none)' 'poki(opponent_model=generic)' range-reader \
    range-reader mc tight-aggressive call call --deals 800 --seed 4205 --workers 2 --name RRabl --json --json-hands \
    --no-progress > $OUT/RRabl.json
nice -n 5 $P match poki 'poki(preflop=loose)' 'poki(bettor=triples)' 'poki(floor_on=weight)' range-reader \
    range-reader mc tight-aggressive call call --deals 800 --seed 4206 --workers 2 --name RRabl2 --json --json-hands \
    --no-progress > $OUT/RRabl2.json
for other in 'poki(preflop=loose)' 'poki(reweight=none)' 'poki(opponent_model=generic)' range-reader; do
    $PY $OUT/paired.py RRabl poki "$other"
done
for other in 'poki(preflop=loose)' 'poki(bettor=triples)' 'poki(floor_on=weight)' range-reader; do
    $PY $OUT/paired.py RRabl2 poki "$other"
done
# The loose pre-flop setting in the house field (the loose Poki in T's seat).
nice -n 5 $P match poki 'poki(preflop=loose)' mc mc tight-aggressive tight-aggressive tight-passive loose-aggressive \
    loose-passive rr --deals 800 --seed 4207 --workers 2 --name RRhouse --json --json-hands --no-progress \
    > $OUT/RRhouse.json
$PY $OUT/paired.py RRhouse 'poki(preflop=loose)' poki
# Issue 42 item 3: the loose pre-flop thresholds, `poki`'s default since then (the old default
# is `poki(preflop=moderate)`). A spec prints without its default settings, so the files
# played before the change (RL1, RL4, RLhouse and the RR* ones) name the loose player
# `poki(preflop=loose)` and the moderate one `poki`; RL3 and later name them `poki` and
# `poki(preflop=moderate)`, as these commands (with the code as it is now) do.
# (RL1, RL4, RL3, RL4b, RL1b: in the loop of the range-reader rows above.)
# The house field with both pre-flop settings (as RRhouse, a fresh seed).
M='poki(preflop=moderate)'
nice -n 5 $P match "$M" poki mc mc tight-aggressive tight-aggressive tight-passive loose-aggressive \
    loose-passive rr --deals 2000 --seed 4222 --workers 2 --name RLhouse --json --json-hands --no-progress \
    > $OUT/RLhouse.json
$PY $OUT/paired.py RLhouse poki "$M"
# The house-field row again on field4's deals (seed 6204; T is loose too now), and the
# loose poki against the moderate one of field4, paired across the two matches.
nice -n 5 $P match poki 'poki(bettor=triples)' $FIELD --deals 2000 --seed 6204 --workers 2 --name field4L --json \
    --json-hands --no-progress > $OUT/field4L.json
$PY $OUT/paired.py field4L poki mc
$PY $OUT/paired.py field4L poki 'poki(bettor=triples)'
$PY $OUT/paired.py field4L poki poki field4
# A post-flop lever beside the range reader (lab §14): lower betting thresholds, a smaller
# opponent mix, one copy each beside two copies of the (loose) poki.
A='poki(bet_threshold=0.4,raise_threshold=0.75)'
B='poki(opponent_mix=0.1)'
nice -n 5 $P match poki poki "$A" "$B" range-reader range-reader mc tight-aggressive call call --deals 1200 \
    --seed 4225 --workers 2 --name RLpost --json --json-hands --no-progress > $OUT/RLpost.json
$PY $OUT/paired.py RLpost 'poki(bet_threshold=0.4, raise_threshold=0.75)' poki
$PY $OUT/paired.py RLpost 'poki(opponent_mix=0.1)' poki
# Pooled over matches on the stored files (spec names as played, see above).
$PY $OUT/paired.py RRhouse,RLhouse 'poki(preflop=loose)' poki
$PY $OUT/paired.py RRabl,RRabl2 'poki(preflop=loose)' poki
$PY $OUT/paired.py "RL4:poki(preflop=loose),RL4b" poki range-reader-loosest
$PY $OUT/paired.py "RL1:poki(preflop=loose),RL1b" poki range-reader
