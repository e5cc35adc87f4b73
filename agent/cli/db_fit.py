"""``poki db fit-predictor``: fit the learned predictor (agent.game.learned) on the
decisions of the stored hands of a time window and keep its weights in the file.

Every stored decision is featured as the models stood before its hand (db.learned); the
weights are fitted on the decisions of hands started in [--since, --until). With several
--l2 values, each is fitted on that window and scored on the validation window
(--validate-since, --validate-until: hands the fit never sees), and the best by mean
log-likelihood is kept (fitted on the training window alone: the validation window
stays unseen).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from db.database import Database

DEFAULT_L2 = 3e-5  # chosen on the tuning slice (docs/prediction.md)


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
                        help="with several --l2: the validation window's start")
    parser.add_argument("--validate-until", type=_date, default=None, metavar="DATE",
                        help="with several --l2: the validation window's end")
    parser.add_argument("--name", default="default", help="name the weights are stored under (default: default)")
    parser.add_argument("--max-iter", type=int, default=300, metavar="N", help="L-BFGS iterations at most (300)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def fit_predictor(database: Database, args: argparse.Namespace) -> int:
    import numpy as np

    from agent.game.learned import LearnedModel, fit, mean_loglik
    from db.learned import decisions, store_learned

    several = len(args.l2) > 1
    if several and args.validate_since is None and args.validate_until is None:
        print("poki db fit-predictor: several --l2 values need a validation window "
              "(--validate-since / --validate-until)", file=sys.stderr)
        return 2
    if args.max_iter < 1:
        print("poki db fit-predictor: --max-iter must be at least 1", file=sys.stderr)
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
    for l2 in args.l2:
        bar = _bar(args, args.max_iter, "iteration", desc=f"l2 {l2:g}")
        weights = fit(X, y, l2, max_iter=args.max_iter,
                      progress=None if bar is None else (lambda it, loss, b=bar: b.update(1)))
        if bar is not None:
            bar.close()
        model = LearnedModel(weights, l2, decisions=int(train.sum()), hands=int(len(np.unique(data.hand[train]))),
                             first_started_at=float(known.min()) if len(known) else None,
                             last_started_at=float(known.max()) if len(known) else None)
        model.train_loglik = mean_loglik(model.probabilities(X), y)
        row: dict[str, Any] = {"l2": l2, "train_log_likelihood": model.train_loglik}
        score = model.train_loglik
        if valid is not None:
            P = model.probabilities(data.X[valid])
            score = mean_loglik(P, data.y[valid])
            row["validation_log_likelihood"] = score
            row["validation_accuracy"] = _accuracy(P, data.y[valid])
            model.extra = {"validation_log_likelihood": score, "validation_decisions": int(valid.sum())}
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
    out = {"name": args.name, "l2": best.l2, "decisions": best.decisions, "hands": best.hands,
           "first_started_at": best.first_started_at, "last_started_at": best.last_started_at,
           "train_log_likelihood": best.train_loglik, "tried": tried}
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for row in tried:
            extra = (f", validation {row['validation_accuracy']:.4f} / {row['validation_log_likelihood']:.4f}"
                     if "validation_log_likelihood" in row else "")
            print(f"l2 {row['l2']:g}: fitting log-likelihood {row['train_log_likelihood']:.4f}{extra}")
        print(f"stored '{args.name}' in {database.path}: l2 {best.l2:g}, {best.decisions:,} decisions of "
              f"{best.hands:,} hands ({_when(best.first_started_at)} to {_when(best.last_started_at)})")
    return 0


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
