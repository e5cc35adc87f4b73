"""`poki bench` section ``cfr``: the heads-up equilibrium's speeds (docs/strength.md §12).

* CFR+ training on the shipped strategy's abstract game: iterations per second with one
  thread and with every core (an iteration walks the tree once per player), and the
  strategy entries updated per second (entries x iterations / s); one exact best response
  (both players) in seconds.
* The ``cfr`` player deciding at an ACPC dealer: our dealer (``poki acpc deal``) in its own
  process, heads-up against always-call, the cfr player through the protocol client; the
  time of each ``act()`` (finding the node, the bucket sequence of its cards, drawing the
  action), median and tail over every decision of the match. The first decision on a turn
  computes the turn's buckets (about 1 ms); flops are looked up in the strategy file.

The load average is printed with the figures: the machine may be shared.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from agent.bench import settings_file
from agent.config import Config
from agent.players import Player

__all__ = ["format_cfr_bench", "run_cfr_bench"]


def _training(strategy: Any, iterations: int) -> dict[str, Any]:
    game = strategy.game
    out: dict[str, Any] = {"entries": game.size, "buckets": list(game.abstraction.buckets)}
    threads = sorted({1, os.cpu_count() or 1})
    for th in threads:
        solver = game.solver()
        solver.iterate(1, 1, 0, th)  # warm-up: pages touched
        t0 = time.perf_counter()
        solver.iterate(iterations, 2, 0, th)
        seconds = time.perf_counter() - t0
        out[f"threads_{th}"] = {"iterations_per_s": iterations / seconds,
                                "entries_per_s": iterations * game.size / seconds}
    solver = game.solver()
    t0 = time.perf_counter()
    solver.best_response_values(strategy.policy, threads[-1])
    out["best_response_s"] = time.perf_counter() - t0
    out["threads"] = threads
    return out


class _Timed(Player):
    """The cfr player with each act() timed (it has no hooks to pass on)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.times: list[float] = []

    def act(self, ctx: Any) -> Any:
        t0 = time.perf_counter()
        action = self.inner.act(ctx)
        self.times.append(time.perf_counter() - t0)
        return action


def time_acpc_decisions(config: Config, hands: int, seed: int = 1) -> dict[str, Any]:
    """A heads-up match of ``hands`` hands at our ACPC dealer (run with ``config``); the cfr
    player's act() times."""
    from agent.engine.cfr_player import EquilibriumPlayer
    from agent.play.acpc.match import play_at_dealer
    from connectors.acpc.game import standard_game

    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with tempfile.TemporaryDirectory(prefix="poki-cfr-bench-") as tmp:
        cmd = [sys.executable, "-m", "agent.cli", "--config", str(settings_file(config, Path(tmp))), "acpc", "deal",
               "--players", "cfr", "house", "--seat", "house=call", "--hands", str(hands), "--seed", str(seed),
               "--no-progress"]
        dealer = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=root)
        try:
            first = dealer.stdout.readline()  # type: ignore[union-attr]  # stdout=PIPE above
            try:
                port = int(first.split()[0])
            except (IndexError, ValueError):
                raise RuntimeError(f"the dealer printed no port: {first!r}") from None
            player = _Timed(EquilibriumPlayer("cfr", np.random.default_rng(seed), config.engine.heads_up_strategy))
            t0 = time.perf_counter()
            game = standard_game("holdem.limit.2p.reverse_blinds.game")
            assert game is not None  # a standard game's name
            result = play_at_dealer("127.0.0.1", port, player, game, match="bench-cfr")
            wall = time.perf_counter() - t0
            dealer.communicate(timeout=60)
        finally:
            if dealer.poll() is None:
                dealer.kill()
                dealer.communicate()
    if result.hands != hands:
        raise RuntimeError(f"the bench match played {result.hands} of {hands} hands")
    ms = sorted(t * 1000.0 for t in player.times)
    return {"hands": hands, "decisions": len(ms), "median_ms": statistics.median(ms),
            "p90_ms": ms[int(0.9 * (len(ms) - 1))], "p99_ms": ms[int(0.99 * (len(ms) - 1))],
            "max_ms": ms[-1], "hands_per_s": hands / wall, "seat_late": result.stats.late,
            "seat_errors": result.stats.player_errors}


def run_cfr_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """CFR+ training on the strategy ``[engine] heads_up_strategy`` names (the shipped one
    by default) and the cfr player's decisions at our dealer (module docstring)."""
    from agent.engine.equilibrium import load_strategy

    strategy = load_strategy(config.engine.heads_up_strategy or None)
    figures = {"training": _training(strategy, 3 if quick else 10),
               "acpc": time_acpc_decisions(config, 300 if quick else 2000),
               "load_average": list(os.getloadavg()),
               "target_decision_ms": 1.0}
    return figures


def format_cfr_bench(f: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    rows = []
    tr = f["training"]
    load = f["load_average"][0]
    for th in tr["threads"]:
        t = tr[f"threads_{th}"]
        rows.append((f"CFR+ training, {'x'.join(map(str, tr['buckets']))} buckets, {th} thread(s)",
                     f"{t['iterations_per_s']:.2f} iterations/s",
                     f"{t['entries_per_s'] / 1e6:.1f} M entries/s; {tr['entries']:,} entries; load {load:.1f}", ""))
    rows.append(("exact best response of the abstract game (both players)", f"{tr['best_response_s']:.2f} s", "", ""))
    a = f["acpc"]
    rows.append(("cfr decision at our ACPC dealer, heads-up", f"{a['median_ms']:.3f} ms median",
                 f"p90 {a['p90_ms']:.2f} ms, p99 {a['p99_ms']:.2f} ms; {a['decisions']} decisions; load {load:.1f}",
                 f"<= {f['target_decision_ms']:.0f} ms median"))
    return rows
