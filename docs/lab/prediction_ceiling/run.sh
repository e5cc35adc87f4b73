#!/bin/sh
# The flexible-model check of docs/prediction.md ("Could a card-blind model reach 68%?"),
# on the tuning slice only: nothing from 1995-04-20 on is read. Run from the repository
# root. scikit-learn is not a dependency of the project: install it beside, e.g.
#   .venv/bin/pip install --target /tmp/skl --no-deps scikit-learn scipy joblib narwhals
# and pass that folder as SKLEARN_PATH. Every fit runs on one thread, one at a time
# (about 40 CPU minutes in all).
set -e
D=${POKI_SHARED_DATA:-../shared/data}
export SKLEARN_PATH=${SKLEARN_PATH:?install scikit-learn beside and set SKLEARN_PATH}
export CEILING_WORK=${CEILING_WORK:-out/ceiling}
export PYTHONPATH=$PWD OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
PY=".venv/bin/python"
S=docs/lab/prediction_ceiling
mkdir -p "$CEILING_WORK"
[ -f "$CEILING_WORK/tune.sqlite" ] || .venv/bin/poki replay "$D" --db "$CEILING_WORK/tune.sqlite" --until 1995-04-20 --no-progress
$PY $S/build_features.py "$CEILING_WORK/tune.sqlite" "$CEILING_WORK/feat.npz"
$PY $S/logistic.py                     # the shipped logistic model, 420 and 604 inputs
$PY $S/logistic.py inner               # the same on the inner split (reference for the grid)
# settings, chosen on the inner validation loss only (four for the 420 inputs, two for 467)
for s in "0.1 31 1 100" "0.05 15 1 200" "0.05 63 10 500" "0.1 15 1 500"; do $PY $S/gbm.py grid a $s; done
for s in "0.05 63 10 500" "0.1 31 1 100"; do $PY $S/gbm.py grid b $s; done
for mode in final upper; do
  for fs in a b; do
    set -- $($PY $S/choose.py $fs)
    $PY $S/gbm.py $mode $fs "$@"
  done
done
$PY $S/additive.py a; $PY $S/additive.py b   # no interactions against interactions free
$PY $S/tables.py a_lr0.05_lv63_l210.0_ml500 b_lr0.1_lv31_l21.0_ml100
$PY $S/bayes.py
$PY $S/perm.py a "$CEILING_WORK/out/gbm_final_a_lr0.05_lv63_l210.0_ml500.pkl"
$PY $S/perm.py b "$CEILING_WORK/out/gbm_final_b_lr0.1_lv31_l21.0_ml100.pkl"
