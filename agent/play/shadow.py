"""Shadow scoring of the opponent models on real hands (``poki replay --predict``).

Before each real decision of each player (fold, check, call, bet, raise; blinds are
forced and not scored), five predictors give a (fold, call, raise) triple, where check
counts as call and bet as raise:

* **meta**: seed 004's meta-predictor (agent.game.prediction): twelve and back-off mixed
  by how well each has foreseen this player so far;
* **backoff**: the fine contexts of agent.game.context backed off to the player's twelve
  contexts and to the population (agent.game.prediction.backoff_triple);
* **twelve**: the player's specific model in twelve contexts (decayed per-context
  frequencies blended with the context's default triple until the context holds
  ``blend`` observations);
* **baseline**: the player's own action frequencies over all earlier decisions, every
  context pooled, Laplace-smoothed: (count + 1) / (total + 3);
* **defaults**: the context's default triple alone (what the model knows of a stranger).

Every prediction uses the models as they stood before the hand: models learn hand by
hand, in log order, and a replay into a database that already holds hands starts from
the models stored there (``seed``), so a month can be learned and the next one scored;
hands the database already holds are neither scored nor learned twice (``known``).

Two scores per predictor: **accuracy**, how often the most likely action was the one
taken (a tie between k actions earns 1/k when one of them was taken, the expected score of
breaking the tie at random), and **log-likelihood**, the mean natural log of the
probability given to the action taken, after flooring every entry of the triple at
``epsilon`` (default 0.001) and renormalising, so one impossible-looking action costs
ln(0.001) ≈ -6.9 instead of minus infinity. Scores are kept overall, per round, per
context, and per player; players with at least ``min_hands`` hands are also scored as a
group, as the ones whose models have had time to learn.

The models are kept in an agent.engine.opponent_model.MemoryModelStore fed the same hands
in the same order as the database through the same Predictor.advance, so they are the
database's models as of each hand.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from agent.engine.opponent_model import MemoryModelStore
from agent.game.context import context_name
from agent.game.frequencies import DEFAULT_HALF_LIFE, PlayerState
from agent.game.prediction import DEFAULT_BLEND_OBSERVATIONS, DEFAULT_STRENGTHS, DEFAULT_TRIPLES, Strengths
from agent.game.prepared import prepare_hand
from agent.game.records import ROUND_NAMES, HandRecord, RecordError

__all__ = ["EPSILON", "MIN_HANDS", "PREDICTORS", "ShadowScorer", "format_report", "format_tuning", "tune_strengths"]

EPSILON = 1e-3
MIN_HANDS = 500
PREDICTORS = ("meta", "backoff", "twelve", "baseline", "defaults")
_N = len(PREDICTORS)
_TIE = 1e-12
Seeder = Callable[[str], tuple[dict[str, PlayerState], PlayerState]]


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
        self.hits = [0.0] * _N
        self.loglik = [0.0] * _N

    def add(self, scores: list[tuple[float, float]]) -> None:
        self.decisions += 1
        hits, loglik = self.hits, self.loglik
        for i, (h, ll) in enumerate(scores):
            hits[i] += h
            loglik[i] += ll

    def merge(self, other: _Tally) -> None:
        self.decisions += other.decisions
        for i in range(_N):
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
                 epsilon: float = EPSILON, min_hands: int = MIN_HANDS, strengths: Strengths = DEFAULT_STRENGTHS,
                 seed: Seeder | None = None, known: Callable[[str], bool] | None = None) -> None:
        if not 0.0 < epsilon < 1.0 / 3.0:
            raise ValueError(f"epsilon must be in (0, 1/3), got {epsilon}")
        self.store = MemoryModelStore(half_life, strengths, blend)
        self.blend = float(blend)
        self.epsilon = float(epsilon)
        self.min_hands = int(min_hands)
        self.seeder = seed
        self.known = known
        self._seeded: set[str] = set()
        self.hands = 0
        self.skipped_known = 0
        self.overall = _Tally()
        self.by_round = [_Tally() for _ in range(4)]
        self.by_context = [_Tally() for _ in range(12)]
        self.by_player: dict[tuple[str, str], _Tally] = {}
        self.rejected = 0
        self.kept: list[tuple[HandRecord, str]] = []  # hands kept for tune_strengths

    def observe(self, record: HandRecord, network: str) -> None:
        """Score every decision of one hand with the models as they were before it, then
        add the hand to the models. A record the database would refuse is not used; a
        hand the database held before the replay began is skipped."""
        try:
            prepared = prepare_hand(record, network)
        except RecordError:
            self.rejected += 1
            return
        if self.known is not None and self.known(record.hand_id):
            self.skipped_known += 1
            return
        store = self.store
        if network not in self._seeded:
            self._seeded.add(network)
            if self.seeder is not None:
                store.seed(network, *self.seeder(network))
        predictor = store.predictor
        population = store.population(network)
        eps = self.epsilon
        players = prepared.players
        states = [store.state(nick, network) or PlayerState() for nick in players]
        rounds = [a[2] for a in prepared.actions if a[3] not in ("sb", "bb")]
        pooled_cache: dict[int, tuple[float, float, float]] = {}
        rows = []
        for (seat, ctx, actual, fine), rnd in zip(prepared.observations, rounds):
            state = states[seat]
            twelve, backoff, meta = predictor.all(state, population, ctx, fine)
            baseline = pooled_cache.get(seat)
            if baseline is None:
                pooled = [1, 1, 1]
                for cc in state.contexts:
                    if cc is not None:
                        life = cc.lifetime
                        pooled[0] += life[0]
                        pooled[1] += life[1]
                        pooled[2] += life[2]
                total = pooled[0] + pooled[1] + pooled[2]
                baseline = pooled_cache[seat] = (pooled[0] / total, pooled[1] / total, pooled[2] / total)
            rows.append((seat, ctx, rnd, [
                _scores(meta, actual, eps), _scores(backoff, actual, eps), _scores(twelve, actual, eps),
                _scores(baseline, actual, eps), _scores(DEFAULT_TRIPLES[ctx], actual, eps),
            ]))
        for seat, ctx, rnd, scores in rows:
            self.overall.add(scores)
            self.by_round[rnd].add(scores)
            self.by_context[ctx].add(scores)
            key = (network, players[seat])
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
            state = self.store.state(nick, network)
            hands = 0 if state is None else state.hands
            if hands >= self.min_hands:
                regulars.merge(tally)
                rows.append({"player": nick, "network": network, "hands": hands, **tally.to_json()})
        rows.sort(key=lambda r: (-r["hands"], r["player"]))
        s = self.store.predictor.strengths
        return {
            "hands": self.hands,
            "hands_already_stored": self.skipped_known,
            "players": len(self.by_player),
            "predictors": list(PREDICTORS),
            "epsilon": self.epsilon,
            "blend_observations": self.blend,
            "half_life_hands": self.store.half_life,
            "strengths": {"population": s.population, "coarse": s.coarse, "fine": s.fine,
                          "population_half_life": s.population_half_life},
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
    st = report["strengths"]
    head = "  ".join(f"{name:^15}" for name in PREDICTORS)
    sub = "  ".join(f"{'acc':>7} {'loglik':>7}" for _ in PREDICTORS)
    lines = [
        f"shadow scoring: {report['overall']['decisions']:,} decisions in {report['hands']:,} hands "
        f"of {report['players']:,} players"
        + (f" ({report['hands_already_stored']:,} hands already stored: not scored)"
           if report.get("hands_already_stored") else ""),
        f"models learned hand by hand in log order: half-life {report['half_life_hands']:g} hands; twelve "
        f"contexts blended with the defaults up to {report['blend_observations']:g} observations; back-off "
        f"strengths population {st['population']:g}, coarse {st['coarse']:g}, fine {st['fine']:g}, "
        f"population half-life {st['population_half_life']:g} hands",
        f"accuracy: the most likely action taken (ties share); log-likelihood: natural log, triples "
        f"floored at {report['epsilon']:g}; baseline: own pooled frequencies, Laplace +1",
        "",
        f"{'':<31}  {'decisions':>9}  {head}",
        f"{'':<31}  {'':>9}  {sub}",
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


# Candidate values of each strength, tried one strength at a time (coordinate ascent).
_GRID = {
    "population": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
    "coarse": (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
    "fine": (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0),
    "population_half_life": (2000.0, 5000.0, 10000.0, 20000.0, 50000.0, 1e9),
}


def tune_strengths(hands: list[tuple[HandRecord, str]], options: Any, seeder: Seeder | None,
                   rounds: int = 2, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Fit the back-off strengths to ``hands`` (the tuning slice): each candidate scores
    every hand in order from the models ``seeder`` gives (the stored ones, learned from
    hands before the slice), and the strengths with the best mean log-likelihood of the
    back-off predictor win; one strength at a time over _GRID, ``rounds`` passes."""
    def score(s: Strengths) -> float:
        scorer = ShadowScorer(half_life=options.half_life, blend=options.blend_observations,
                              epsilon=options.epsilon, min_hands=options.min_hands, strengths=s, seed=seeder)
        for record, network in hands:
            scorer.observe(record, network)
        t = scorer.overall
        return t.loglik[1] / t.decisions if t.decisions else float("-inf")

    best = options.strengths
    best_ll = score(best)
    tried = [{"strengths": _strengths_json(best), "backoff_log_likelihood": best_ll}]
    for _ in range(rounds):
        changed = False
        for name, values in _GRID.items():
            for v in values:
                if getattr(best, name) == v:
                    continue
                cand = Strengths(**{**_strengths_json(best), name: v})
                ll = score(cand)
                tried.append({"strengths": _strengths_json(cand), "backoff_log_likelihood": ll})
                if progress is not None:
                    progress(f"{cand}: {ll:.4f}")
                if ll > best_ll + 1e-6:
                    best, best_ll, changed = cand, ll, True
        if not changed:
            break
    decisions = sum(1 for r, _ in hands for a in r.actions if a.kind not in ("sb", "bb"))
    return {"tuning": True, "hands": len(hands), "decisions": decisions, "best": _strengths_json(best),
            "backoff_log_likelihood": best_ll, "tried": tried}


def _strengths_json(s: Strengths) -> dict[str, float]:
    return {"population": s.population, "coarse": s.coarse, "fine": s.fine,
            "population_half_life": s.population_half_life}


def format_tuning(report: dict[str, Any]) -> str:
    b = report["best"]
    return "\n".join([
        f"fitted the back-off strengths on {report['hands']:,} hands ({report['decisions']:,} decisions), "
        f"{len(report['tried'])} candidates tried",
        f"best: population {b['population']:g}, coarse {b['coarse']:g}, fine {b['fine']:g}, "
        f"population half-life {b['population_half_life']:g} hands: back-off log-likelihood "
        f"{report['backoff_log_likelihood']:.4f}",
        f"use: --strengths {b['population']:g},{b['coarse']:g},{b['fine']:g},{b['population_half_life']:g}",
    ])
