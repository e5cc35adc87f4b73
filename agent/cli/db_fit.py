"""``poki db fit-predictor``: fit the learned predictor (agent.models.learned) on the
decisions of the stored hands of a time window and keep its weights in the file.

Every stored decision is featured as the models stood before its hand (db.learned); the
weights are fitted on the decisions of hands started in [--since, --until). With several
--l2 values, each is fitted on that window and scored on the validation window
(--validate-since, --validate-until: hands the fit never sees), and the best by mean
log-likelihood is kept (fitted on the training window alone: the validation window
stays unseen).

With --hidden N the model is Billings et al.'s [poki-2002] network (agent.models.network): the logistic
model's direct weights plus N tanh units, started from the fitted logistic model and a
seeded draw (--seed), fitted on the earlier hands of the window and stopped early on the
last --holdout share of them (the stopping part: never fitted on). Several --hidden values
(0 = the logistic model) are chosen between like several --l2 values.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from agent.cli import arguments

if TYPE_CHECKING:
    from db.database import Database

DEFAULT_L2 = 3e-5  # chosen on the tuning slice (docs/prediction.md)
DEFAULT_HIDDEN = 0  # no hidden layer: a network did no better on the tuning slice (docs/prediction.md)
DEFAULT_SEED = 4  # the hidden layer's starting draw
DEFAULT_HOLDOUT = 0.1  # share of the fitting window's hands held back to stop a network early


def _hidden_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--hidden wants whole numbers separated by commas, got {text!r}") from None
    if not values or any(v < 0 or v > 1024 for v in values):
        raise argparse.ArgumentTypeError(f"--hidden values must be 0 to 1024 units, got {text!r}")
    return values


def _share(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0.0 < v < 1.0:
        raise argparse.ArgumentTypeError(f"--holdout must be a share between 0 and 1, got {text!r}")
    return v


def _l2_list(text: str) -> list[float]:
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--l2 wants numbers separated by commas, got {text!r}") from None
    if not values or any(not (v >= 0.0 and v < float("inf")) for v in values):
        raise argparse.ArgumentTypeError(f"--l2 values must be non-negative numbers, got {text!r}")
    return values


def add_fit_arguments(parser: argparse.ArgumentParser) -> None:
    from agent.cli.replay import _date

    parser.add_argument("--since", type=_date, default=None, metavar="DATE",
                        help="fit on hands started at or after DATE (YYYY-MM-DD[THH:MM], UTC)")
    parser.add_argument("--until", type=_date, default=None, metavar="DATE",
                        help="fit on hands started before DATE (UTC); e.g. the date the scored part starts")
    parser.add_argument("--l2", type=_l2_list, default=[DEFAULT_L2], metavar="X[,Y...]",
                        help=f"L2 penalty on the weights (default {DEFAULT_L2:g}); several: choose on the "
                             "validation window")
    parser.add_argument("--validate-since", type=_date, default=None, metavar="DATE",
                        help="with several --l2 or --hidden: the validation window's start")
    parser.add_argument("--validate-until", type=_date, default=None, metavar="DATE",
                        help="with several --l2 or --hidden: the validation window's end")
    parser.add_argument("--hidden", type=_hidden_list, default=[DEFAULT_HIDDEN], metavar="N[,M...]",
                        help=f"hidden tanh units of Billings et al.'s [poki-2002] network on top of the logistic model (default "
                             f"{DEFAULT_HIDDEN}: the logistic model alone); several: choose on the validation window")
    parser.add_argument("--seed", type=arguments.seed, default=DEFAULT_SEED,
                        help=f"seed of the hidden layer's starting weights (default {DEFAULT_SEED})")
    parser.add_argument("--holdout", type=_share, default=DEFAULT_HOLDOUT, metavar="SHARE",
                        help=f"with --hidden: the last SHARE of the fitting window's hands stop the fit early "
                             f"(default {DEFAULT_HOLDOUT:g})")
    parser.add_argument("--blas-threads", type=int, default=1, metavar="N",
                        help="threads numpy's BLAS may use while fitting (default 1: on a shared machine more "
                             "threads cost several times the CPU for the same weights)")
    parser.add_argument("--name", default="default", help="name the weights are stored under (default: default)")
    parser.add_argument("--max-iter", type=int, default=300, metavar="N", help="L-BFGS iterations at most (300)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def fit_predictor(database: Database, args: argparse.Namespace) -> int:
    import numpy as np

    from agent.models.learned import LearnedModel, fit, mean_loglik
    from agent.models.network import fit_network
    from db.learned import decisions, store_learned

    several = len(args.l2) * len(args.hidden) > 1
    if several and args.validate_since is None and args.validate_until is None:
        print("poki db fit-predictor: several --l2 or --hidden values need a validation window "
              "(--validate-since / --validate-until)", file=sys.stderr)
        return 2
    if args.max_iter < 1:
        print("poki db fit-predictor: --max-iter must be at least 1", file=sys.stderr)
        return 2
    if args.blas_threads < 1:
        print("poki db fit-predictor: --blas-threads must be at least 1", file=sys.stderr)
        return 2
    hands = database.hand_count()
    if hands == 0:
        print(f"poki db fit-predictor: {database.path} holds no hands", file=sys.stderr)
        return 1
    bar = _bar(args, hands, "hand")
    with database.snapshot() as conn:
        data = decisions(conn, database.half_life, database.strengths, progress=None if bar is None else bar.update)
    if bar is not None:
        bar.close()
    train = data.window(args.since, args.until)
    if not train.any():
        print("poki db fit-predictor: no decisions in the fitting window", file=sys.stderr)
        return 1
    valid = data.window(args.validate_since, args.validate_until) if several else None
    if valid is not None:
        if not valid.any():
            print("poki db fit-predictor: no decisions in the validation window", file=sys.stderr)
            return 1
        if (valid & train).any():
            print("poki db fit-predictor: the validation window overlaps the fitting window", file=sys.stderr)
            return 2
    X, y = data.X[train], data.y[train]
    times = data.started_at[train]
    known = times[~np.isnan(times)]
    tried: list[dict[str, Any]] = []
    best: LearnedModel | None = None
    best_score = float("-inf")
    fit_rows, stop_rows = _split_holdout(data.hand[train], args.holdout) if max(args.hidden) > 0 else (None, None)
    span: dict[str, Any] = {"decisions": int(train.sum()), "hands": int(len(np.unique(data.hand[train]))),
            "first_started_at": float(known.min()) if len(known) else None,
            "last_started_at": float(known.max()) if len(known) else None}
    linears: dict[float, Any] = {}  # the logistic model of the fitting part a network starts from, per l2
    with _blas_threads(args.blas_threads):
        for l2 in args.l2:
            for hidden in args.hidden:
                desc = f"l2 {l2:g}" + (f", {hidden} hidden" if hidden else "")
                bar = _bar(args, args.max_iter, "iteration", desc=desc)
                tick = None if bar is None else (lambda it, loss, b=bar: b.update(1))
                info: dict[str, Any] = {}
                if hidden == 0:
                    model = LearnedModel(fit(X, y, l2, max_iter=args.max_iter, progress=tick), l2, **span)
                else:
                    # Billings et al.'s [poki-2002] network: from the logistic model of the fitting part, stopped
                    # early on the held-back part.
                    linear = linears.get(l2)
                    if linear is None:
                        linear = linears[l2] = fit(X[fit_rows], y[fit_rows], l2, max_iter=args.max_iter)
                    w, info = fit_network(X[fit_rows], y[fit_rows], hidden, l2, np.random.default_rng(args.seed),
                                          linear=linear, stop_X=X[stop_rows], stop_y=y[stop_rows],
                                          max_iter=args.max_iter, progress=tick)
                    model = LearnedModel.from_flat(w, hidden, l2, **span)
                if bar is not None:
                    bar.close()
                model.train_loglik = mean_loglik(model.probabilities(X), y)
                row: dict[str, Any] = {"l2": l2, "hidden": hidden, "train_log_likelihood": model.train_loglik}
                if hidden:
                    row.update(seed=args.seed, holdout=args.holdout, **info)
                    model.extra = {"seed": args.seed, "holdout": args.holdout, **info}
                score = model.train_loglik
                if valid is not None:
                    P = model.probabilities(data.X[valid])
                    score = mean_loglik(P, data.y[valid])
                    row["validation_log_likelihood"] = score
                    row["validation_accuracy"] = _accuracy(P, data.y[valid])
                    model.extra.update(validation_log_likelihood=score, validation_decisions=int(valid.sum()))
                tried.append(row)
                if best is None or score > best_score:
                    best, best_score = model, score
    assert best is not None
    conn = database.db.conn
    conn.execute("BEGIN IMMEDIATE")
    try:
        store_learned(conn, args.name, best)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    out = {"name": args.name, "l2": best.l2, "hidden": best.hidden_units, "decisions": best.decisions,
           "hands": best.hands,
           "first_started_at": best.first_started_at, "last_started_at": best.last_started_at,
           "train_log_likelihood": best.train_loglik, "tried": tried}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for row in tried:
            extra = (f", validation {row['validation_accuracy']:.4f} / {row['validation_log_likelihood']:.4f}"
                     if "validation_log_likelihood" in row else "")
            net = (f", {row['hidden']} hidden units (stopped at iteration {row['best_iteration']} of "
                   f"{row['iterations']})" if row["hidden"] else "")
            print(f"l2 {row['l2']:g}{net}: fitting log-likelihood {row['train_log_likelihood']:.4f}{extra}")
        kind = f", {best.hidden_units} hidden units" if best.hidden_units else ""
        print(f"stored '{args.name}' in {database.path}: l2 {best.l2:g}{kind}, {best.decisions:,} decisions of "
              f"{best.hands:,} hands ({_when(best.first_started_at)} to {_when(best.last_started_at)})")
    return 0


def _blas_threads(n: int) -> Any:
    """A context in which numpy's BLAS uses at most ``n`` threads (threadpoolctl); without
    threadpoolctl, nothing changes. On the shared two-core machine a logistic fit with
    BLAS on both cores took 201 CPU s against 54 on one, for the same weights to the
    fit's own noise (docs/prediction.md)."""
    import contextlib

    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return contextlib.nullcontext()
    return threadpool_limits(limits=n, user_api="blas")


def _split_holdout(hands: Any, share: float) -> tuple[Any, Any]:
    """Rows of the fitting window split by hand, in storing order: the earlier hands to
    fit on and the last ``share`` of them to stop on (at least one hand each when there
    are two)."""
    import numpy as np

    order = np.unique(hands)
    cut = min(len(order) - 1, max(1, int(round(len(order) * (1.0 - share))))) if len(order) > 1 else len(order)
    last_fit = order[cut - 1]
    fit_rows = hands <= last_fit
    stop_rows = ~fit_rows
    if not stop_rows.any():
        stop_rows = fit_rows  # a single hand: nothing to hold back
    return fit_rows, stop_rows


def _accuracy(P: Any, y: Any) -> float:
    import numpy as np

    top = P.max(axis=1, keepdims=True)
    tied = P >= top - 1e-12
    return float(np.mean(tied[np.arange(len(y)), y] / tied.sum(axis=1)))


def _when(t: float | None) -> str:
    if t is None:
        return "?"
    from datetime import datetime, timezone

    return datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _bar(args: argparse.Namespace, total: int, unit: str, desc: str | None = None) -> Any:
    if args.no_progress:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, disable=None)
