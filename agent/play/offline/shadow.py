"""Shadow scoring of the opponent models on real hands (``poki replay --predict``).

Before each real decision of each player (fold, check, call, bet, raise; blinds are
forced and not scored), five predictors give a (fold, call, raise) triple, where check
counts as call and bet as raise:

* **meta**: Billings et al.'s [poki-2002] meta-predictor (agent.models.prediction): twelve and back-off mixed
  by how well each has foreseen this player so far (with a learned predictor, the three
  of them: weights proportional to exp(each one's decayed running log-likelihood on
  this player's earlier decisions));
* **learned** (when the database holds one, ``poki db fit-predictor``): the multinomial
  logistic regression of agent.models.learned (or Billings et al.'s [poki-2002] network on top of it) over
  the decision's public features and the player's statistics as they stood before the
  hand; its weights are fixed while scoring, and the hands it was fitted on are
  reported, so a scored hand it has seen shows;
* **backoff**: the fine contexts of agent.game.context backed off to the player's twelve
  contexts and to the population (agent.models.prediction.backoff_triple);
* **twelve**: the player's specific model in twelve contexts (decayed per-context
  frequencies blended with the context's default triple until the context holds
  ``blend`` observations);
* **baseline**: the player's own action frequencies over all earlier decisions, every
  context pooled, Laplace-smoothed: (count + 1) / (total + 3);
* **defaults**: the context's default triple alone (what the model knows of a stranger).

Besides, the **range score** (agent.play.offline.range_score): for every player who showed
down, the log-likelihood of its holding under the weight tables of uniform, Loki-1, the
triples and the learned ranges, street by street (``ranges`` in the report).

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

The models are kept in an agent.models.opponent_model.MemoryModelStore fed the same hands
in the same order as the database through the same Predictor.advance, so they are the
database's models as of each hand.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from agent.game.context import context_name
from agent.game.prepared import prepare_hand
from agent.game.records import ROUND_NAMES, HandRecord, RecordError
from agent.models.frequencies import DEFAULT_HALF_LIFE, PlayerState
from agent.models.learned import LearnedModel, hand_features
from agent.models.prediction import DEFAULT_BLEND_OBSERVATIONS, DEFAULT_STRENGTHS, DEFAULT_TRIPLES, Strengths
from agent.models.ranges import DEFAULT_RANGE_SETTINGS, RangeSettings
from agent.models.store import MemoryModelStore
from agent.play.offline.range_score import RangeScorer, format_ranges

__all__ = ["EPSILON", "MIN_HANDS", "PREDICTORS", "ShadowScorer", "format_report", "format_tuning", "tune_strengths"]

EPSILON = 1e-3
MIN_HANDS = 500
PREDICTORS = ("meta", "backoff", "twelve", "baseline", "defaults")
PREDICTORS_LEARNED = ("meta", "learned", "backoff", "twelve", "baseline", "defaults")
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

    __slots__ = ("decisions", "hits", "loglik", "names")

    def __init__(self, names: tuple[str, ...] = PREDICTORS) -> None:
        self.names = names
        self.decisions = 0
        self.hits = [0.0] * len(names)
        self.loglik = [0.0] * len(names)

    def add(self, scores: list[tuple[float, float]]) -> None:
        self.decisions += 1
        hits, loglik = self.hits, self.loglik
        for i, (h, ll) in enumerate(scores):
            hits[i] += h
            loglik[i] += ll

    def merge(self, other: _Tally) -> None:
        self.decisions += other.decisions
        for i in range(len(self.names)):
            self.hits[i] += other.hits[i]
            self.loglik[i] += other.loglik[i]

    def to_json(self) -> dict[str, Any]:
        n = self.decisions
        out: dict[str, Any] = {"decisions": n}
        for i, name in enumerate(self.names):
            out[name] = {
                "accuracy": self.hits[i] / n if n else None,
                "log_likelihood": self.loglik[i] / n if n else None,
            }
        return out


class ShadowScorer:
    """Scores the decisions of hands given in order, then learns from them."""

    def __init__(self, *, half_life: float = DEFAULT_HALF_LIFE, blend: float = DEFAULT_BLEND_OBSERVATIONS,
                 epsilon: float = EPSILON, min_hands: int = MIN_HANDS, strengths: Strengths = DEFAULT_STRENGTHS,
                 seed: Seeder | None = None, known: Callable[[str], bool] | None = None,
                 learned: LearnedModel | None = None, ranges: RangeSettings = DEFAULT_RANGE_SETTINGS) -> None:
        if not 0.0 < epsilon < 1.0 / 3.0:
            raise ValueError(f"epsilon must be in (0, 1/3), got {epsilon}")
        self.store = MemoryModelStore(half_life, strengths, blend)
        self.ranges = RangeScorer(self.store, settings=ranges)
        self.score_ranges = True  # off while fitting the back-off strengths (tune_strengths)
        self.blend = float(blend)
        self.epsilon = float(epsilon)
        self.min_hands = int(min_hands)
        self.seeder = seed
        self.known = known
        self._seeded: set[str] = set()
        self.hands = 0
        self.skipped_known = 0
        self.learned = learned
        self.predictors = PREDICTORS if learned is None else PREDICTORS_LEARNED
        names = self.predictors
        self.overall = _Tally(names)
        self.by_round = [_Tally(names) for _ in range(4)]
        self.by_context = [_Tally(names) for _ in range(12)]
        self.by_player: dict[tuple[str, str], _Tally] = {}
        # With a learned predictor, the meta-predictor's decayed running log-likelihoods
        # per player: twelve, back-off, learned, and the player's hand they are as of.
        self._learned_scores: dict[tuple[str, str], list[float]] = {}
        self.learned_inside_fit = 0  # scored hands inside the learned model's fitted range
        self._pending_learned: list[tuple[str, str, float, float, float]] = []
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
        learned = self.learned
        if learned is not None:
            feats = hand_features(prepared.actions, len(players), record.small_bet, record.big_bet, states, population,
                                  predictor)
            first, last = learned.first_started_at, learned.last_started_at
            t = record.started_at
            if t is not None and first is not None and last is not None and first <= t <= last:
                self.learned_inside_fit += 1
        metas = []  # the engine's prediction of each decision, for the range score
        for i, ((seat, ctx, actual, fine), rnd) in enumerate(zip(prepared.observations, rounds)):
            state = states[seat]
            twelve, backoff, meta = predictor.all(state, population, ctx, fine)
            if learned is not None:
                lt = learned.triple(feats[i][4])
                meta = self._meta3(network, players[seat], state, twelve, backoff, lt, actual)
            metas.append(meta)
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
            scores = [_scores(meta, actual, eps), _scores(backoff, actual, eps), _scores(twelve, actual, eps),
                      _scores(baseline, actual, eps), _scores(DEFAULT_TRIPLES[ctx], actual, eps)]
            if learned is not None:
                scores.insert(1, _scores(lt, actual, eps))
            rows.append((seat, ctx, rnd, scores))
        for seat, ctx, rnd, scores in rows:
            self.overall.add(scores)
            self.by_round[rnd].add(scores)
            self.by_context[ctx].add(scores)
            key = (network, players[seat])
            tally = self.by_player.get(key)
            if tally is None:
                tally = self.by_player[key] = _Tally(self.predictors)
            tally.add(scores)
        if record.shown and self.score_ranges:
            self.ranges.observe(record, prepared, network, metas)
        store.write_hand(record, network)
        if learned is not None:
            self._learn_scores()
        self.hands += 1

    def set_learned(self, learned: LearnedModel) -> None:
        """Score ``learned`` too (before the first hand is observed)."""
        if self.hands or self.overall.decisions:
            raise ValueError("the learned predictor must be given before any hand is scored")
        source = self.ranges.source
        self.__init__(half_life=self.store.half_life, blend=self.blend, epsilon=self.epsilon,  # type: ignore[misc]  # a fresh start with the learned predictor
                      min_hands=self.min_hands, strengths=self.store.predictor.strengths, seed=self.seeder,
                      known=self.known, learned=learned, ranges=self.ranges.settings)
        self.ranges.source = source

    def _meta3(self, network: str, nick: str, state: PlayerState, twelve: tuple[float, float, float],
               backoff: tuple[float, float, float], learned: tuple[float, float, float], actual: int
               ) -> tuple[float, float, float]:
        """The meta-predictor over twelve, back-off and learned for one decision: weights
        proportional to exp(decayed running log-likelihood) of each on this player's
        earlier decisions. The three running scores are kept here; when a player is
        first met, the twelve's and back-off's start from the scores its stored model
        holds and the learned one's from the back-off's (no record of its own yet, it
        starts as trusted as the back-off). This decision's log-likelihoods join the
        scores once the hand is learned (``_learn_scores``)."""
        f = self.store.predictor.factor
        now = state.hands
        entry = self._learned_scores.get((network, nick))
        if entry is None:
            k = 1.0 if now == state.scores_ref else f ** (now - state.scores_ref)
            s0, s1 = state.score_twelve * k, state.score_backoff * k
            entry = self._learned_scores[(network, nick)] = [s0, s1, s1, float(now)]
        k = 1.0 if entry[3] == now else f ** (now - entry[3])
        s0, s1, s2 = entry[0] * k, entry[1] * k, entry[2] * k
        top = max(s0, s1, s2)
        w0, w1, w2 = math.exp(s0 - top), math.exp(s1 - top), math.exp(s2 - top)
        total = w0 + w1 + w2
        out = ((w0 * twelve[0] + w1 * backoff[0] + w2 * learned[0]) / total,
               (w0 * twelve[1] + w1 * backoff[1] + w2 * learned[1]) / total,
               (w0 * twelve[2] + w1 * backoff[2] + w2 * learned[2]) / total)
        eps = self.epsilon
        self._pending_learned.append((network, nick, _scores(twelve, actual, eps)[1],
                                      _scores(backoff, actual, eps)[1], _scores(learned, actual, eps)[1]))
        return out

    def _learn_scores(self) -> None:
        """After the store learned the hand: each scored decision's log-likelihoods join
        the player's running scores (decayed with the player's hands, as the counts)."""
        f = self.store.predictor.factor
        store = self.store
        for network, nick, l0, l1, l2 in self._pending_learned:
            entry = self._learned_scores[(network, nick)]
            state = store.state(nick, network)
            if state is None:  # store.write_hand models every player of the hand it learns
                raise RuntimeError(f"no model of {nick} on {network} after the store learned the hand")
            now = state.hands  # the hand just learned
            if entry[3] != now:
                k = f ** (now - entry[3])
                entry[0] *= k
                entry[1] *= k
                entry[2] *= k
                entry[3] = float(now)
            entry[0] += l0
            entry[1] += l1
            entry[2] += l2
        self._pending_learned.clear()

    def _learned_json(self) -> dict[str, Any]:
        m = self.learned
        assert m is not None
        return {"l2": m.l2, "hidden": m.hidden_units, "decisions": m.decisions, "hands": m.hands,
                "first_started_at": m.first_started_at, "last_started_at": m.last_started_at,
                "scored_hands_inside_fitted_range": self.learned_inside_fit}

    def report(self, top: int | None = None) -> dict[str, Any]:
        """Every figure, JSON-ready; ``players`` lists those with at least ``min_hands``
        hands, most hands first (the first ``top`` of them when given)."""
        regulars = _Tally(self.predictors)
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
            "predictors": list(self.predictors),
            **({"learned": self._learned_json()} if self.learned is not None else {}),
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
            "ranges": self.ranges.report(),
        }


def _row(label: str, t: dict[str, Any], names: Any = PREDICTORS) -> str:
    cells = [f"{label:<31}", f"{t['decisions']:>9,}"]
    for name in names:
        p = t[name]
        if p["accuracy"] is None:
            cells.append(f"{'-':>7} {'-':>7}")
        else:
            cells.append(f"{p['accuracy']:>7.3f} {p['log_likelihood']:>7.3f}")
    return "  ".join(cells)


def _learned_lines(report: dict[str, Any]) -> list[str]:
    m = report.get("learned")
    if m is None:
        return []
    from datetime import datetime, timezone

    def when(t: float | None) -> str:
        return "?" if t is None else datetime.fromtimestamp(t, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")

    kind = f"network, {m['hidden']} hidden units" if m.get("hidden") else "logistic regression"
    lines = [f"learned: {kind} (l2 {m['l2']:g}) fitted on {m['decisions']:,} decisions of "
             f"{m['hands']:,} hands, {when(m['first_started_at'])} to {when(m['last_started_at'])} UTC; "
             f"meta mixes twelve, back-off and learned"]
    if m["scored_hands_inside_fitted_range"]:
        lines.append(f"WARNING: {m['scored_hands_inside_fitted_range']:,} scored hands started inside the learned "
                     f"model's fitted range: its figures are not held out")
    return lines


def format_report(report: dict[str, Any], players: int = 15) -> str:
    """The scores as a table: accuracy and mean log-likelihood of each predictor."""
    st = report["strengths"]
    names = tuple(report["predictors"])
    head = "  ".join(f"{name:^15}" for name in names)
    sub = "  ".join(f"{'acc':>7} {'loglik':>7}" for _ in names)
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
        *_learned_lines(report),
        "",
        f"{'':<31}  {'decisions':>9}  {head}",
        f"{'':<31}  {'':>9}  {sub}",
        _row("all decisions", report["overall"], names),
    ]
    for name, t in report["by_round"].items():
        lines.append(_row(f"  {name}", t, names))
    reg = report["regulars"]
    lines.append(_row(f"players with {report['min_hands']}+ hands ({reg['players']})", reg, names))
    shown = report["regular_players"][:players]
    if shown:
        lines.append("")
        lines.append("player (hands)")
        for r in shown:
            lines.append(_row(f"  {r['player'][:15]} ({r['hands']})", r, names))
        more = len(report["regular_players"]) - len(shown)
        if more > 0:
            lines.append(f"  ... {more} more (--json lists them all)")
    lines.append("")
    lines.append("by context:")
    for name, t in report["by_context"].items():
        lines.append(_row(f"  {name}", t, names))
    if "ranges" in report:
        lines.append("")
        lines.append(format_ranges(report["ranges"]))
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
        scorer.score_ranges = False
        for record, network in hands:
            scorer.observe(record, network)
        t = scorer.overall
        i = scorer.predictors.index("backoff")
        return t.loglik[i] / t.decisions if t.decisions else float("-inf")

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
