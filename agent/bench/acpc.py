"""`poki bench` section ``acpc``: hands per second of our ACPC client with an always-call
player against our ACPC dealer on loopback, heads-up (docs/architecture.md's table: target 2,000
hands/s; the ACPC C dealer with a Python always-call client did about 1,200).

The dealer runs as `poki acpc deal` in its own process, its second seat an in-process
always-call player; the client plays in this process through the seat runtime, as
`poki acpc play --no-db` does (with no database and an always-call player, that is the
lean client path, agent.play.acpc.lean). The clock runs from the connection to the dealer's closing of
the match; each side's CPU time is reported too, because the machine is shared. The
dealer's CPU is measured on its whole process, so each repeat also plays a match of
:data:`SHORT_MATCH` hands: the difference between the two is the dealer's CPU per hand
without its interpreter's start-up.

A hand is a strict back-and-forth between the two processes (four answers from the
client a heads-up hand when both call), so the rate is bounded by the sum of both sides'
CPU on the critical path plus eight wake-ups a hand. Since the two never run at once,
the headline figure keeps both on one CPU (`--cpu N` on both commands): each hand-over
is then a switch between two processes whose code and data stay in that core's caches,
where across two cores it is a wake-up of the other core and the socket's data crossing
between them. The same match free to use both cores is measured in alternate rounds and
printed beside it.
"""
from __future__ import annotations

import os
import resource
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

__all__ = ["SHORT_MATCH", "run_acpc_bench", "time_match"]

SHORT_MATCH = 20  # hands of the match that measures the dealer's start-up CPU


def time_match(settings: Path, hands: int, seed: int = 1, cpu: int | None = None) -> dict[str, float]:
    """One heads-up match of ``hands`` hands, the dealer reading the config file
    ``settings``; its wall time and both sides' CPU time. With ``cpu``, the dealer and this
    process (the client) both run on that CPU only."""
    from agent.play.acpc.match import play_at_dealer
    from agent.players import create_player
    from connectors.acpc.game import standard_game

    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "agent.cli", "--config", str(settings), "acpc", "deal", "--players", "client", "house",
           "--seat", "house=call", "--hands", str(hands), "--seed", str(seed), "--no-progress"]
    if cpu is not None:
        cmd += ["--cpu", str(cpu)]
    allowed = os.sched_getaffinity(0)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    dealer = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env, cwd=root)
    try:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
        first = dealer.stdout.readline()  # type: ignore[union-attr]  # stdout=PIPE above
        try:
            port = int(first.split()[0])
        except (IndexError, ValueError):
            raise RuntimeError(f"the dealer printed no port: {first!r} "
                               f"{dealer.stderr.read()[-500:] if dealer.stderr else ''}") from None
        game = standard_game("holdem.limit.2p.reverse_blinds.game")
        assert game is not None  # a standard game's name
        player = create_player("call", np.random.default_rng(seed), "client")
        cpu0 = time.process_time()
        t0 = time.perf_counter()
        result = play_at_dealer("127.0.0.1", port, player, game, match="bench")
        wall = time.perf_counter() - t0
        client_cpu = time.process_time() - cpu0
        dealer.communicate(timeout=60)
    finally:
        os.sched_setaffinity(0, allowed)
        if dealer.poll() is None:
            dealer.kill()
            dealer.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if result.hands != hands:
        raise RuntimeError(f"the bench match played {result.hands} of {hands} hands")
    return {"hands": hands, "seconds": wall, "hands_per_s": hands / wall,
            "client_cpu_s": client_cpu, "dealer_process_cpu_s": server_cpu}


def run_acpc_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """The figures (module docstring); the dealer runs with ``config``."""
    hands = 1000 if quick else 4000
    repeats = 1 if quick else 3
    cpu = min(os.sched_getaffinity(0))
    one_core: list[dict[str, float]] = []
    two_cores: list[dict[str, float]] = []
    dealer_per_hand = []
    with tempfile.TemporaryDirectory(prefix="poki-acpc-bench-") as tmp:
        settings = settings_file(config, Path(tmp))
        for seed in range(1, repeats + 1):
            # Alternate rounds, so a busy spell of the shared machine falls on both ways.
            short = time_match(settings, SHORT_MATCH, seed, cpu)
            run = time_match(settings, hands, seed, cpu)
            one_core.append(run)
            dealer_per_hand.append((run["dealer_process_cpu_s"] - short["dealer_process_cpu_s"])
                                   / (hands - SHORT_MATCH))
            two_cores.append(time_match(settings, hands, seed))
    return {
        "hands": hands,
        "repeats": repeats,
        "cpu": cpu,
        "hands_per_s": round(statistics.median(r["hands_per_s"] for r in one_core)),
        "client_cpu_us_per_hand": round(statistics.median(r["client_cpu_s"] for r in one_core) / hands * 1e6),
        # The dealer's CPU per hand without its start-up (module docstring).
        "dealer_cpu_us_per_hand": round(statistics.median(dealer_per_hand) * 1e6),
        "dealer_process_cpu_us_per_hand": round(
            statistics.median(r["dealer_process_cpu_s"] for r in one_core) / hands * 1e6),
        "two_cores_hands_per_s": round(statistics.median(r["hands_per_s"] for r in two_cores)),
        "two_cores_client_cpu_us_per_hand": round(
            statistics.median(r["client_cpu_s"] for r in two_cores) / hands * 1e6),
        "load_average": list(os.getloadavg()),
        "target_hands_per_s": 2000,
        "anchor": "ACPC C dealer + Python always-call client: about 1,200 hands/s",
    }
