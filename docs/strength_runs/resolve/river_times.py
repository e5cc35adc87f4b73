"""Decision time of river re-solving (agent.engine.resolve), on rivers the blueprint
reaches in self-play: deals and betting drawn with a seeded generator from the shipped
strategy, each river re-solved for the seat to act first there; prints the median, p90,
p99 and maximum of the solve times (wall clock and this process's CPU time) and the
fallbacks, and how much the opponent's best response wins on those rivers against the
blueprint's river and against the re-solved one (the Bayes ranges at the river's start,
small bets per deal reaching the river).

    PYTHONPATH=. python docs/strength_runs/resolve/river_times.py [RIVERS] [SEED] [ITERATIONS]
"""
from __future__ import annotations

import sys
import time

import numpy as np

import evaluator_pyx as ev
from agent.engine.equilibrium import load_strategy
from agent.engine.heads_up import StrategyView
from agent.engine.resolve import ResolvedView, ResolveSettings, RiverResolver, blueprint_strategy


def main() -> None:
    rivers = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 43
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else ResolveSettings().iterations
    rng = np.random.default_rng(seed)
    sf = load_strategy()
    view = StrategyView(sf.game, sf.policy)
    tree = sf.game.tree
    resolver = RiverResolver(ResolveSettings(iterations=iterations))
    names = ("A", "B")  # A the button (seat 0)
    times: list[float] = []  # wall clock (what the deadline counts)
    cpu: list[float] = []  # this process's CPU time: one core's, whatever the machine's load
    br: list[tuple[float, float]] = []
    hands = 0
    while len(times) < rivers:
        hands += 1
        cards = [int(c) for c in rng.permutation(52)[:9]]
        hole = (cards[0:2], cards[2:4])
        board = cards[4:9]
        shown = (0, 3, 4, 5)
        history: list[list[tuple[str, str]]] = [[]]
        node = 0
        while True:
            kind = int(tree.kind[node])
            if kind == 3:
                node = int(tree.children[int(tree.first[node])])
                history.append([])
                continue
            if kind != 0:
                break
            rnd = int(tree.round[node])
            if rnd == 3:
                t0, c0 = time.perf_counter(), time.process_time()
                resolved = resolver.view(view, tuple(tuple(r) for r in history), board, names, "A",
                              names[int(tree.actor[node])], key=hands)
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                if isinstance(resolved, ResolvedView):
                    br.append(_best_responses(resolved, view, int(tree.actor[node])))
                break
            who = int(tree.actor[node])
            probs = view.probabilities(node, hole[who], board[:shown[rnd]])
            p = np.asarray(probs, dtype=np.float64)
            pick = int(rng.choice(len(p), p=p / p.sum()))
            letter = view.letters(node)[pick]
            if letter != "f":
                history[-1].append((names[who], letter))
            node = int(tree.children[int(tree.first[node]) + pick])
    print(f"{len(times)} rivers ({hands} deals, seed {seed}, {iterations} iterations, last board "
          f"{ev.cards_str(tuple(board))}); solves {resolver.solves}, fallbacks {resolver.fallbacks}")
    for name, values in (("wall", times), ("cpu", cpu)):
        ms = np.array(values) * 1000.0
        print(f"  {name}: median {np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f}, "
              f"p99 {np.percentile(ms, 99):.1f}, max {ms.max():.1f}")
    against = np.array(br)
    print(f"  the opponent's best response wins, sb per deal reaching the river: against the blueprint's river "
          f"{against[:, 0].mean():+.4f}, against the re-solved {against[:, 1].mean():+.4f} ({len(br)} rivers)")


def _best_responses(resolved: ResolvedView, blueprint_view: StrategyView, us: int) -> tuple[float, float]:
    """What the opponent's best response wins per unit of joint range weight, against our
    blueprint river and against our re-solved one (its own range held at the Bayes one)."""
    g = resolved.solution.subgame
    ranges = resolved.solution.ranges
    blueprint = blueprint_strategy(g, blueprint_view)
    them = 1 - us
    norm = float(ranges[0] @ g.unblocked(ranges[1][None, :])[0])
    out = []
    for ours in (blueprint, {**blueprint, **resolved.solution.strategy}):
        values = g.evaluate(ours, ranges[0], ranges[1], best_responder=them)[them]
        out.append(float(ranges[them] @ values) / norm)
    return out[0], out[1]


if __name__ == "__main__":
    main()
