"""Shadow scoring of the opponent model on real hands (``poki replay --predict``).

Before each real decision of each player (fold, check, call, bet, raise; blinds are
forced and not scored), three predictors give a (fold, call, raise) triple, where check
counts as call and bet as raise:

* **model**: the player's specific model (agent.engine.opponent_model.predict_triple: decayed
  per-context frequencies blended with the context's default triple until the context
  holds ``blend`` observations), as it stood before the hand: models learn hand by hand,
  in log order, so a prediction uses only hands played before it;
* **baseline**: the player's own action frequencies over all earlier decisions, every
  context pooled, Laplace-smoothed: (count + 1) / (total + 3);
* **defaults**: the context's default triple alone (what the model knows of a stranger).

Two scores per predictor: **accuracy**, how often the most likely action was the one
taken (a tie between k actions earns 1/k when one of them was taken, the expected score of
breaking the tie at random), and **log-likelihood**, the mean natural log of the
probability given to the action taken, after flooring every entry of the triple at
``epsilon`` (default 0.001) and renormalising, so one impossible-looking action costs
ln(0.001) ≈ -6.9 instead of minus infinity. Scores are kept overall, per round, per
context, and per player; players with at least ``min_hands`` hands in the replay are
also scored as a group, as the ones whose models have had time to learn.

The models are kept in a agent.engine.opponent_model.MemoryModelStore fed the same hands in the same
order as the database, so they are the database's models as of each hand when the
replay starts from an empty database (the arithmetic is shared, db/models.py).
"""
from __future__ import annotations

import math
from typing import Any

from agent.game.records import ACTION_CLASS, DECISION_KINDS, ROUND_NAMES, HandRecord, RecordError
from agent.engine.opponent_model import DEFAULT_BLEND_OBSERVATIONS, DEFAULT_TRIPLES, MemoryModelStore, predict_triple
from agent.game.context import context_name
from agent.game.frequencies import DEFAULT_HALF_LIFE
from agent.game.prepared import validate_record

__all__ = ["EPSILON", "MIN_HANDS", "PREDICTORS", "ShadowScorer", "format_report"]

EPSILON = 1e-3
MIN_HANDS = 500
PREDICTORS = ("model", "baseline", "defaults")
_TIE = 1e-12


def _scores(triple: tuple[float, float, float], actual: int, epsilon: float) -> tuple[float, float]:
    """(accuracy credit, log-likelihood) of one prediction."""
    top = max(triple)
    tied = [i for i in range(3) if triple[i] >= top - _TIE]
    hit = 1.0 / len(tied) if actual in tied else 0.0
    floored = [p if p > epsilon else epsilon for p in triple]
    return hit, math.log(floored[actual] / sum(floored))


class _Tally:
    """Sums of the scores of a set of decisions, for every predictor."""

    __slots__ = ("decisions", "hits", "loglik")

    def __init__(self) -> None:
        self.decisions = 0
        self.hits = [0.0, 0.0, 0.0]
        self.loglik = [0.0, 0.0, 0.0]

    def add(self, scores: list[tuple[float, float]]) -> None:
        self.decisions += 1
        hits, loglik = self.hits, self.loglik
        for i, (h, ll) in enumerate(scores):
            hits[i] += h
            loglik[i] += ll

    def merge(self, other: _Tally) -> None:
        self.decisions += other.decisions
        for i in range(3):
            self.hits[i] += other.hits[i]
            self.loglik[i] += other.loglik[i]

    def to_json(self) -> dict[str, Any]:
        n = self.decisions
        out: dict[str, Any] = {"decisions": n}
        for i, name in enumerate(PREDICTORS):
            out[name] = {
                "accuracy": self.hits[i] / n if n else None,
                "log_likelihood": self.loglik[i] / n if n else None,
            }
        return out


class ShadowScorer:
    """Scores the decisions of hands given in order, then learns from them."""

    def __init__(self, *, half_life: float = DEFAULT_HALF_LIFE, blend: float = DEFAULT_BLEND_OBSERVATIONS,
                 epsilon: float = EPSILON, min_hands: int = MIN_HANDS) -> None:
        if not 0.0 < epsilon < 1.0 / 3.0:
            raise ValueError(f"epsilon must be in (0, 1/3), got {epsilon}")
        self.store = MemoryModelStore(half_life)
        self.blend = float(blend)
        self.epsilon = float(epsilon)
        self.min_hands = int(min_hands)
        self.hands = 0
        self.overall = _Tally()
        self.by_round = [_Tally() for _ in range(4)]
        self.by_context = [_Tally() for _ in range(12)]
        self.by_player: dict[tuple[str, str], _Tally] = {}
        self.rejected = 0

    def observe(self, record: HandRecord, network: str) -> None:
        """Score every decision of one hand with the models as they were before it, then
        add the hand to the models. A record the database would refuse is not used."""
        try:
            validate_record(record, network)
        except RecordError:
            self.rejected += 1
            return
        store = self.store
        blend, eps = self.blend, self.epsilon
        models: dict[str, Any] = {}
        for act in record.actions:
            kind = act.kind
            if kind not in DECISION_KINDS:
                continue
            player = act.player
            model = models.get(player)
            if model is None:
                model = models[player] = store.get(player, network)
            ctx = act.context
            actual = ACTION_CLASS[kind]
            pooled = [0, 0, 0]
            for f, c, r in model.lifetime:
                pooled[0] += f
                pooled[1] += c
                pooled[2] += r
            total = pooled[0] + pooled[1] + pooled[2] + 3
            baseline = ((pooled[0] + 1) / total, (pooled[1] + 1) / total, (pooled[2] + 1) / total)
            scores = [
                _scores(predict_triple(model, ctx, blend), actual, eps),
                _scores(baseline, actual, eps),
                _scores(DEFAULT_TRIPLES[ctx], actual, eps),
            ]
            self.overall.add(scores)
            self.by_round[act.round].add(scores)
            self.by_context[ctx].add(scores)
            key = (network, player)
            tally = self.by_player.get(key)
            if tally is None:
                tally = self.by_player[key] = _Tally()
            tally.add(scores)
        store.write_hand(record, network)
        self.hands += 1

    def report(self, top: int | None = None) -> dict[str, Any]:
        """Every figure, JSON-ready; ``players`` lists those with at least ``min_hands``
        hands, most hands first (the first ``top`` of them when given)."""
        regulars = _Tally()
        rows = []
        for (network, nick), tally in self.by_player.items():
            hands = self.store.get(nick, network).hands
            if hands >= self.min_hands:
                regulars.merge(tally)
                rows.append({"player": nick, "network": network, "hands": hands, **tally.to_json()})
        rows.sort(key=lambda r: (-r["hands"], r["player"]))
        return {
            "hands": self.hands,
            "players": len(self.by_player),
            "epsilon": self.epsilon,
            "blend_observations": self.blend,
            "half_life_hands": self.store.half_life,
            "min_hands": self.min_hands,
            "overall": self.overall.to_json(),
            "by_round": {ROUND_NAMES[r]: t.to_json() for r, t in enumerate(self.by_round)},
            "by_context": {context_name(c): t.to_json() for c, t in enumerate(self.by_context)},
            "regulars": {"players": len(rows), **regulars.to_json()},
            "regular_players": rows if top is None else rows[:top],
        }


def _row(label: str, t: dict[str, Any]) -> str:
    cells = [f"{label:<31}", f"{t['decisions']:>9,}"]
    for name in PREDICTORS:
        p = t[name]
        if p["accuracy"] is None:
            cells.append(f"{'-':>7} {'-':>7}")
        else:
            cells.append(f"{p['accuracy']:>7.3f} {p['log_likelihood']:>7.3f}")
    return "  ".join(cells)


def format_report(report: dict[str, Any], players: int = 15) -> str:
    """The scores as a table: accuracy and mean log-likelihood of each predictor."""
    lines = [
        f"shadow scoring: {report['overall']['decisions']:,} decisions in {report['hands']:,} hands "
        f"of {report['players']:,} players",
        f"models learned hand by hand from this replay, in log order: half-life {report['half_life_hands']:g} "
        f"hands, blended with the defaults up to {report['blend_observations']:g} observations",
        f"accuracy: the most likely action taken (ties share); log-likelihood: natural log, triples "
        f"floored at {report['epsilon']:g}; baseline: own pooled frequencies, Laplace +1",
        "",
        f"{'':<31}  {'decisions':>9}  {'model':^15}  {'baseline':^15}  {'defaults':^15}",
        f"{'':<31}  {'':>9}  {'acc':>7} {'loglik':>7}  {'acc':>7} {'loglik':>7}  {'acc':>7} {'loglik':>7}",
        _row("all decisions", report["overall"]),
    ]
    for name, t in report["by_round"].items():
        lines.append(_row(f"  {name}", t))
    reg = report["regulars"]
    lines.append(_row(f"players with {report['min_hands']}+ hands ({reg['players']})", reg))
    shown = report["regular_players"][:players]
    if shown:
        lines.append("")
        lines.append("player (hands)")
        for r in shown:
            lines.append(_row(f"  {r['player'][:15]} ({r['hands']})", r))
        more = len(report["regular_players"]) - len(shown)
        if more > 0:
            lines.append(f"  ... {more} more (--json lists them all)")
    lines.append("")
    lines.append("by context:")
    for name, t in report["by_context"].items():
        lines.append(_row(f"  {name}", t))
    return "\n".join(lines)
