"""`poki bench` section ``irc``: the IRC bots on a real server on loopback (miniircd).

* hands per second of the dealer bot with four house bots as IRC clients (each a
  `poki irc play` process, as they run for real), no flood
  limit, no pause between hands (docs/architecture.md's targets: 50 hands/s); every hand goes through
  the server, the rules engine and the dealer's database;
* the CPU time a hand costs, by process (the dealer, the IRC server, the four bots;
  user + system time from /proc on Linux): unlike hands per second it hardly depends
  on what else the machine runs, so it is the figure to compare between machines and
  versions;
* the player bot's decision latency, from the dealer's "to act" line reaching the bot to
  its answer handed to the connection, for Poki at a table with three house bots
  (median and p99).

Wall-clock figures on a shared machine: a median over repeats, not a test.
"""
from __future__ import annotations

import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.play.irc.dealer import DealerHost
    from agent.play.irc.table import DealerBot
    from connectors.irc.server import LoopbackServer

from agent.bench import settings_file
from agent.config import Config

TARGET_HANDS_PER_S = 50.0


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (None where /proc is absent)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def stop_processes(procs: list[subprocess.Popen], timeout: float) -> None:
    """Terminate every process, then wait for each (killed past ``timeout`` seconds)."""
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def dealer_bot(host: DealerHost) -> DealerBot:
    """The host's dealer bot, read on its loop thread (inside ``host.call``): the loop's
    first job made it, so it is there unless opening the dealer's database failed."""
    bot = host.bot
    if bot is None:
        raise RuntimeError("the dealer bot did not start (its database did not open)")
    return bot


def server_pid(server: LoopbackServer) -> int:
    """The process id of a started loopback server."""
    if server.process is None:
        raise RuntimeError(f"the IRC server at {server.address} is not running")
    return server.process.pid


def _table(config: Config, directory: Path, specs: list[str], hands: int, seed: int, *,
           in_process: int = 0) -> dict[str, Any]:
    """One table: the dealer in this process, the first ``in_process`` bots too (their
    latency is measured), the rest as `poki irc play` processes, as they would run; all
    with the settings ``config``."""
    from agent.play.irc.dealer import DealerHost
    from agent.play.irc.player import PlayerBot
    from connectors.irc.server import LoopbackServer

    settings = settings_file(config, directory)
    server = LoopbackServer().start()
    started: list = []
    procs: list[subprocess.Popen] = []
    try:
        host = DealerHost(server.address, ["#bench"], directory / f"dealer{seed}.sqlite", config,
                          hands=hands, seed=seed, hand_pause=0.0, flood_rate=0.0,
                          min_players=len(specs))
        started.append(host.start())
        host.wait_tables(60)
        bots = []
        for k, spec in enumerate(specs):
            nick = f"{spec.split('(')[0][:8]}{k}"
            if k < in_process:
                bot = PlayerBot(config, server=server.address, channels=["#bench"], dealer="dealer",
                                spec=spec, nick=nick, db_path=None, seed=seed + k, flood_rate=0.0)
                started.append(bot.start())
                bots.append(bot)
            else:
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "agent.cli", "--config", str(settings), "irc", "play",
                     "--server", server.address,
                     "--channel", "#bench", "--dealer", "dealer", "--player", spec, "--nick", nick,
                     "--no-flood-limit", "--no-report", "--seed", str(seed + k),
                     "--db", str(directory / f"{nick}-{seed}.sqlite")],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        # Time from the second hand on: starting, connecting and sitting are not dealing.
        deadline = time.monotonic() + 120
        while host.call(lambda: dealer_bot(host).stats.hands) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        first = host.call(lambda: dealer_bot(host).stats.hands)
        pids = {"server": server_pid(server), **{f"bot{k}": p.pid for k, p in enumerate(procs)}}
        cpu0 = {name: process_cpu_seconds(pid) for name, pid in pids.items()}
        own0 = time.process_time()
        t0 = time.perf_counter()
        if not host.wait(600):
            raise RuntimeError("the benchmark table did not finish")
        elapsed = time.perf_counter() - t0
        played = hands - first
        cpu: dict[str, float] | None = {"dealer": (time.process_time() - own0) / played * 1e3}
        for name, pid in pids.items():
            now, before = process_cpu_seconds(pid), cpu0[name]
            if now is None or before is None:
                cpu = None  # no /proc: no per-process figures
                break
            cpu[name] = (now - before) / played * 1e3  # type: ignore[index]  # a dict until a process has no /proc entry
        return {"hands_per_s": played / elapsed, "cpu_ms": cpu,
                "latency": bots[0].latency() if bots else {"decisions": 0}}
    finally:
        stop_processes(procs, 30)
        for thing in reversed(started):
            thing.stop()
        server.stop()


def run_irc_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """The figures (module docstring): the dealer and the bots with the settings ``config``,
    but for no flood limit, no pause between hands and quick reconnections."""
    config = dataclasses.replace(config, irc=dataclasses.replace(
        config.irc, flood_profile="custom", flood_lines_per_second=0.0, hand_pause_seconds=0.0,
        reconnect_min_seconds=0.2, reconnect_max_seconds=2.0))
    hands = 150 if quick else 500
    repeats = 1 if quick else 3
    house = ["rr", "tight-aggressive", "loose-passive", "loose-aggressive"]
    rates, medians, p99s = [], [], []
    cpus: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="poki-irc-bench-") as tmp:
        directory = Path(tmp)
        for rep in range(repeats):
            table = _table(config, directory, house, hands, 100 + rep)
            rates.append(table["hands_per_s"])
            if table["cpu_ms"] is not None:
                cpus.append(table["cpu_ms"])
            lat = _table(config, directory, ["poki", *house[:3]], hands // 2, 200 + rep,
                         in_process=1)["latency"]
            if lat.get("decisions"):
                medians.append(lat["median_ms"])
                p99s.append(lat["p99_ms"])
    cpu_ms = None
    if cpus:
        cpu_ms = {name: statistics.median(c[name] for c in cpus) for name in cpus[0]}
        cpu_ms["bots"] = statistics.median(sum(v for k, v in c.items() if k.startswith("bot")) for c in cpus)
        cpu_ms["total"] = statistics.median(sum(v for k, v in c.items() if k != "bots") for c in cpus)
    return {
        "hands_per_s": statistics.median(rates),
        "cpu_ms_per_hand": cpu_ms,
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "hands_per_s_runs": rates,
        "hands_per_repeat": hands,
        "target_hands_per_s": TARGET_HANDS_PER_S,
        "poki_latency_median_ms": statistics.median(medians) if medians else None,
        "poki_latency_p99_ms": statistics.median(p99s) if p99s else None,
        "note": "miniircd on 127.0.0.1, the dealer bot + four house bots as `poki irc play` "
                "processes, no flood limit; "
                "latency: Poki with three house bots, from 'to act' received to the answer sent; "
                "cpu_ms_per_hand: user+system CPU milliseconds per hand by process (bot0-3 the "
                "house bots, bots their sum), median over repeats",
    }
