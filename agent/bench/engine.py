"""Decision speed of the Poki engine (the targets of docs/architecture.md): time per
post-flop decision at a ten-seat table without simulation, everything the player does
at its turn included (catching up on the betting, re-weighting each live opponent's table
after each of its actions, EHS against every table, the triple and the draw).

Two tables: Poki against nine calling stations (every opponent stays to the river: nine
live weight tables, the worst case) and ten Poki players (a typical field); and the
first table again with Poki reading the learned predictor (``[model] predictor =
"learned"``, agent.models.learned) instead of the default meta-predictor, and with Poki
re-weighting by learned ranges (``[engine] reweight = "learned"``, agent.models.ranges)
instead of the triples (``stations_ranges``: timed in turn with ``stations``, so load
changes fall on both alike). The board
strengths shared by the table are computed once per board per process; the first
decision on a new board pays for them and is counted like any other.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np

from agent.config import Config, ModelConfig
from agent.engine.player import PokiPlayer
from agent.models.store import MemoryModelStore
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.players import Player, create_player


class _Timed(PokiPlayer):
    def __init__(self, *args: Any, sink: list[float], **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._sink = sink

    def act(self, ctx):
        if ctx.round == 0:
            return super().act(ctx)
        t0 = time.perf_counter()
        action = super().act(ctx)
        self._sink.append(time.perf_counter() - t0)
        return action


class _WeightedStore(MemoryModelStore):
    """The in-memory models with a learned predictor's weights, as the database holds
    them after ``poki db fit-predictor``; random weights: they do not change the cost."""

    def __init__(self, model: ModelConfig) -> None:
        from agent.models.learned import N_FEATURES, LearnedModel

        super().__init__(model.half_life_hands, blend=model.blend_observations)
        self._learned = LearnedModel(np.random.default_rng(7).normal(size=(3, N_FEATURES)) * 0.1, 1e-4)

    def learned_model(self) -> Any:
        return self._learned


def _table(config: Config, kind: str, hands: int, seed: int) -> list[float]:
    """The decision times of one table (module docstring), its players with ``config``'s
    settings but for what the table is about."""
    times: list[float] = []
    rng = np.random.default_rng(seed)
    if kind == "stations_learned":
        model = dataclasses.replace(config.model, predictor="learned")
        players: list[Player] = [_Timed("poki", np.random.default_rng(seed + 1), config.engine, sink=times,
                          store=_WeightedStore(model), model=model)]
        players += [create_player("call", np.random.default_rng(seed + 2 + i), name=f"call-{i}")
                    for i in range(9)]
    elif kind in ("stations", "stations_ranges"):
        engine = dataclasses.replace(config.engine, reweight="learned") if kind == "stations_ranges" else config.engine
        players = [_Timed("poki", np.random.default_rng(seed + 1), engine, sink=times, model=config.model)]
        players += [create_player("call", np.random.default_rng(seed + 2 + i), name=f"call-{i}")
                    for i in range(9)]
    else:
        players = [_Timed(f"poki-{i}", np.random.default_rng(seed + 1 + i), config.engine, sink=times,
                          model=config.model) for i in range(10)]
    dealer = Dealer(dataclasses.replace(config.table, seats=10), source="bench")
    for hand in range(hands):
        dealer.play_hand(players, Deal.draw(rng, 10), button=hand % 10, hand_id=f"bench:{hand}")
    return times


def run_engine_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """Median (and 90th percentile) seconds per post-flop decision, per table, the players
    with ``config``'s settings."""
    hands = 60 if quick else 400
    out: dict[str, Any] = {"hands": hands}
    rounds: dict[str, list[float]] = {"stations": [], "stations_ranges": []}
    for part in range(4):  # the two alternate, a quarter of the hands at a time
        for kind in rounds:
            rounds[kind] += _table(config, kind, hands // 2, seed=2024 + part)
    for kind in ("stations", "stations_ranges", "poki", "stations_learned"):
        times = rounds[kind] if kind in rounds else _table(config, kind, hands if kind == "poki" else hands * 2, seed=2024)
        arr = np.array(times)
        out[kind] = {
            "decisions": int(arr.size),
            "median_ms": float(np.median(arr) * 1e3) if arr.size else float("nan"),
            "p90_ms": float(np.percentile(arr, 90) * 1e3) if arr.size else float("nan"),
        }
    out["median_postflop_decision_ms"] = out["stations"]["median_ms"]
    out["prediction"] = run_prediction_bench(config, quick)
    return out


def run_prediction_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """Microseconds per opponent prediction during play, as PokiPlayer._freq makes it:
    the fine context of an action (ContextWalker) and the meta-predictor's triple from a
    model read once a hand (twelve contexts and back-off mixed); also the back-off and
    twelve-context triples alone. Models learned from synthetic hands (agent.bench.synthetic),
    with ``config``'s model settings.
    CPU time of this process, not wall time: the machine may be shared."""
    from agent.bench.synthetic import synthetic_hands
    from agent.game.prepared import prepare_hand
    from agent.models.opponent_model import predict_model
    from agent.models.store import MemoryModelStore

    store = MemoryModelStore(config.model.half_life_hands, blend=config.model.blend_observations)
    hands = list(synthetic_hands(300 if quick else 2000, seed=7))
    for record in hands:
        store.write_hand(record, "bench")
    # The decisions of the last hands, each with the model of its player.
    cases = []
    for record in hands[-200:]:
        p = prepare_hand(record, "bench")
        for seat, ctx, _, fine in p.observations:
            cases.append((store.get(p.players[seat], "bench"), ctx, fine))
    predictor = store.predictor
    reps = 3 if quick else 20
    out: dict[str, Any] = {"decisions": len(cases)}
    for which in ("meta", "backoff", "twelve"):
        t0 = time.process_time()
        for _ in range(reps):
            for model, ctx, fine in cases:
                predict_model(model, ctx, fine, predictor, which)
        out[f"{which}_us"] = (time.process_time() - t0) / (reps * len(cases)) * 1e6
    # The fine context of every action of a hand, as the player follows it.
    from agent.game.context import fine_contexts

    t0 = time.process_time()
    count = 0
    for _ in range(reps):
        for record in hands[-200:]:
            positions = {s.player: s.position for s in record.seats}
            count += len(fine_contexts(record.actions, positions, record.board))
    out["context_us"] = (time.process_time() - t0) / count * 1e6
    out["meta_with_context_us"] = out["meta_us"] + out["context_us"]
    out["learned_us"] = _learned_prediction_us(store, hands[-200:], reps)
    out["learned_network_us"] = _learned_prediction_us(store, hands[-200:], reps, hidden=16)
    return out


def _learned_prediction_us(store: Any, hands: list, reps: int, hidden: int = 0) -> float:
    """Microseconds per learned-predictor triple (agent.models.learned) with its features:
    the public features followed action by action, the player's statistics (its looseness
    and aggression kept for the hand), the logits from the sparse pairs (the weights of
    a fine context's one-hot columns summed once per fine context). The weights are
    random: they do not change the cost. ``hidden``: with Billings et al.'s [poki-2002] network of that many
    tanh units on top (agent.models.network)."""
    import numpy as np

    from agent.game.prepared import prepare_hand
    from agent.models.frequencies import PlayerState
    from agent.models.learned import N_FEATURES, DecisionFeatures, LearnedModel, player_stats, stack_pairs

    rng = np.random.default_rng(7)
    network = None
    if hidden:
        network = (rng.normal(size=(hidden, N_FEATURES)) * 0.1, rng.normal(size=hidden), rng.normal(size=(3, hidden)))
    model = LearnedModel(rng.normal(size=(3, N_FEATURES)) * 0.1, 1e-4, network=network)
    predictor, population = store.predictor, store.population("bench")
    prepared = []
    for record in hands:
        p = prepare_hand(record, "bench")
        prepared.append((p, [store.state(n, "bench") or PlayerState() for n in p.players], record))
    count = 0
    t0 = time.process_time()
    for _ in range(reps):
        for p, states, record in prepared:
            stats: dict[int, tuple[float, float]] = {}
            walker = DecisionFeatures(len(p.players), record.small_bet, record.big_bet)
            for a in p.actions:
                seat = a[1]
                if a[3] != "sb" and a[3] != "bb":
                    ps = stats.get(seat)
                    if ps is None:
                        ps = stats[seat] = player_stats(states[seat], predictor.factor)
                    table, own, pairs = walker.public_split(seat, a[2], a[5], a[10], a[11], a[7])
                    pairs += stack_pairs(predictor, states[seat], population, a[10], a[11], a[2], stats=ps)
                    model.triple_split(a[10], a[11], table, own, pairs)
                    count += 1
                walker.record(seat, a[2], a[3], a[4])
    return (time.process_time() - t0) / count * 1e6


if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    from agent.config import load_config

    print(json.dumps(run_engine_bench(load_config(), "--quick" in sys.argv), indent=2))
