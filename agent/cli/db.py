"""Look after the opponent database: sizes, one player's model, rebuilding the models
from the stored actions, and checking every invariant of the file."""
from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from db.database import Database


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)

    def with_db(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p.add_argument("--db", metavar="FILE", default=None, help="database file (default: [database] path)")
        return p

    stats = with_db(sub.add_parser("stats", help="players, hands, actions, file size, migrations applied"))
    stats.add_argument("--json", action="store_true", help="print machine-readable JSON")
    player = with_db(sub.add_parser(
        "player", help="one player's model: 12 contexts decayed and lifetime, the meta-predictor's mix, and the "
                       "fine contexts seen most with their back-off predictions"))
    player.add_argument("nick", metavar="NICK")
    player.add_argument("--network", default=None, help="the network the nick plays on (needed if on several)")
    player.add_argument("--json", action="store_true", help="print machine-readable JSON")
    player.add_argument("--fine", type=int, default=12, metavar="N",
                        help="show the N fine contexts with the most decayed observations (default 12)")
    with_db(sub.add_parser("recompute", help="rebuild every model from the stored actions ([model] half_life_hands)"))
    from agent.cli.db_fit import add_fit_arguments

    fit = with_db(sub.add_parser(
        "fit-predictor", help="fit the learned predictor on the stored hands of a time window and store its weights",
        description="Fit the learned next-action predictor (multinomial logistic regression over the public "
                    "context of each decision and the player's decayed statistics as they stood before its "
                    "hand) on the stored hands started in [--since, --until), and keep its weights in the "
                    "file; poki replay --predict then scores it beside the others."))
    add_fit_arguments(fit)
    check = with_db(sub.add_parser("check", help="integrity check and every invariant (chips, whole hands, models)"))
    check.add_argument("--no-models", action="store_true", help="skip comparing the models with a recomputation")


def run(args: argparse.Namespace) -> int:
    from db.database import Database, DatabaseError

    path = args.db or args.settings.database.path
    try:
        if args.db_command == "check":
            # A damaged file is examined read-only and never opened for writing.
            damage = _damage(path)
            if damage:
                for problem in damage:
                    print(problem)
                print(f"{path}: {len(damage)} problem(s) found: the file is damaged", file=sys.stderr)
                return 1
        with Database(path, create=False, synchronous=args.settings.database.synchronous,
                      verify=args.db_command != "check") as database:
            return _ACTIONS[args.db_command](database, args)
    except DatabaseError as exc:
        print(f"poki db: {exc}", file=sys.stderr)
        return 1
    except sqlite3.DatabaseError as exc:  # a file damaged past what `check` can report
        print(f"poki db: {path}: {exc}", file=sys.stderr)
        return 1


def _damage(path: str) -> list[str]:
    """What SQLite's integrity check finds wrong with a file of ours, read-only (a file
    that is not ours is refused as the Database would refuse it)."""
    from db import opening, schema
    from db.database import DatabaseError

    opening.inspect(path, schema.known(), schema.MIGRATION_SET, create=False, verify=False, error=DatabaseError,
                    write=False)
    try:
        conn = opening.open_read_only(path)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA integrity_check(20)")]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return [f"integrity_check: {exc}"]
    return [] if rows == ["ok"] else [f"integrity_check: {r}" for r in rows]


def _stats(database: Database, args: argparse.Namespace) -> int:
    stats = database.stats()
    if args.json:
        print(json.dumps(stats, indent=2))
        return 0
    counts = stats["counts"]
    print(f"database: {stats['path']} ({stats['file_bytes'] / 1e6:.1f} MB, journal {stats['journal_mode']})")
    print(f"players: {counts['players']} ({counts['aliases']} nicks)")
    print(f"hands: {counts['hands']}" + "".join(f"\n  {net}: {n}" for net, n in stats["hands_by_network"].items()))
    print(f"actions: {counts['actions']}  seats: {counts['seats']}  showdowns: {counts['showdowns']}  model rows: {counts['models']}")
    print(f"model half-life: {stats['half_life_hands']:g} hands")
    print(f"migrations applied: {', '.join(stats['migrations_applied']) or 'none'}")
    if stats["migrations_pending"]:
        print(f"migrations pending: {', '.join(stats['migrations_pending'])}")
    return 0


def _player(database: Database, args: argparse.Namespace) -> int:
    from agent.game.context import context_name
    from agent.models.opponent_model import predict_triple

    network = args.network
    if network is None:
        networks = database.networks_of(args.nick)
        if not networks:
            print(f"poki db: no player {args.nick!r} in {database.path}", file=sys.stderr)
            return 1
        if len(networks) > 1:
            print(f"poki db: {args.nick!r} plays on {', '.join(networks)}: choose one with --network", file=sys.stderr)
            return 1
        network = networks[0]
    elif database.player_id(args.nick, network) is None:
        print(f"poki db: no player {args.nick!r} on network {network!r} in {database.path}", file=sys.stderr)
        return 1
    model = database.get(args.nick, network)
    blend = args.settings.model.blend_observations
    fine_rows, weights = _fine_rows(database, model, max(0, args.fine))
    if args.json:
        print(json.dumps({
            "nick": model.nick, "network": model.network, "hands": model.hands, "half_life_hands": model.half_life,
            "contexts": [
                {
                    "context": c, "name": context_name(c),
                    "decayed": model.decayed[c], "decayed_total": model.decayed_totals[c],
                    "lifetime": model.lifetime[c], "lifetime_total": model.lifetime_totals[c],
                    "triple": predict_triple(model, c, blend),
                }
                for c in range(len(model.decayed))
            ],
            "meta_weights": {"twelve": weights[0], "backoff": weights[1]},
            "fine_contexts": fine_rows,
        }, indent=2))
        return 0

    def pct(triple) -> str:
        return "   -    -    -" if triple is None else " ".join(f"{100 * x:4.0f}" for x in triple)

    print(f"{model.nick} on {model.network}: {model.hands} hands dealt; half-life {model.half_life:g} hands")
    print(f"{'context':17} {'decayed n':>9}  fold call raise %  {'lifetime n':>10}  fold call raise %   model triple")
    for c in range(len(model.decayed)):
        print(
            f"{context_name(c):17} {model.decayed_totals[c]:9.1f}  {pct(model.frequencies(c)):17}  "
            f"{model.lifetime_totals[c]:10d}  {pct(model.frequencies(c, decayed=False)):17}   {pct(predict_triple(model, c, blend))}"
        )
    print(f"(model triple: decayed frequencies blended with the defaults until {blend:g} observations)")
    print()
    print(f"meta-predictor mix (by each predictor's running log-likelihood on this player): "
          f"twelve contexts {100 * weights[0]:.0f}%, back-off {100 * weights[1]:.0f}%")
    if fine_rows:
        print(f"fine contexts seen most (of {len(model.state.fine) if model.state else 0}):")
        print(f"  {'decayed n':>9}  fold call raise %  population f c r %   back-off triple  context")
        for r in fine_rows:
            print(f"  {r['decayed_total']:9.1f}  {pct(r['frequencies']):17}  {pct(r['population']):18}   "
                  f"{pct(r['backoff']):15}  {r['name']}")
    return 0


def _fine_rows(database: Database, model, top: int) -> tuple[list[dict], tuple[float, float]]:
    """The player's ``top`` fine contexts by decayed observations, each with the player's
    and the population's frequencies and the back-off prediction; and the meta weights."""
    from agent.game.context import FINE_PER_COARSE, fine_context_name
    from agent.models.opponent_model import predict_model

    state = model.state
    if state is None:
        return [], (1.0, 0.0)
    predictor = database.predictor
    pop = model.population
    factor = predictor.factor
    seen = sorted(((sum(cc.decayed_at(state.hands, factor)), ctx) for ctx, cc in state.fine.items()), reverse=True)
    rows = []
    for total, fine in seen[:top]:
        d = state.fine[fine].decayed_at(state.hands, factor)
        pc = pop.fine.get(fine) if pop is not None else None
        pd = pc.decayed_at(pop.hands, predictor.pop_factor) if pc is not None else None
        rows.append({
            "fine_context": fine, "name": fine_context_name(fine), "decayed": d, "decayed_total": total,
            "lifetime": tuple(state.fine[fine].lifetime),
            "frequencies": tuple(x / total for x in d) if total > 0 else None,
            "population": tuple(x / sum(pd) for x in pd) if pd and sum(pd) > 0 else None,
            "backoff": predict_model(model, fine // FINE_PER_COARSE, fine, predictor, "backoff"),
        })
    return rows, predictor.weights(state)


def _recompute(database: Database, args: argparse.Namespace) -> int:
    old = database.half_life
    new = args.settings.model.half_life_hands
    rows = database.recompute(half_life=new)
    change = f" (half-life {old:g} -> {new:g} hands)" if old != new else f" (half-life {new:g} hands)"
    print(f"rebuilt {rows} model rows from {database.hand_count()} hands{change}")
    return 0


def _check(database: Database, args: argparse.Namespace) -> int:
    problems = database.check(models=not args.no_models)
    if problems:
        for problem in problems:
            print(problem)
        print(f"{database.path}: {len(problems)} problem(s) found", file=sys.stderr)
        return 1
    print(f"{database.path}: ok ({database.hand_count()} hands; integrity, chips, whole hands"
          f"{'' if args.no_models else ', models'} checked)")
    return 0


def _fit(database: Database, args: argparse.Namespace) -> int:
    from agent.cli.db_fit import fit_predictor

    return fit_predictor(database, args)


_ACTIONS = {"stats": _stats, "player": _player, "recompute": _recompute, "check": _check, "fit-predictor": _fit}
