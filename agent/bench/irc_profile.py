"""Where the CPU of a benchmark IRC table goes (the table of ``poki bench --only irc``).

``python -m agent.bench.irc_profile [--hands N] [--out DIR] [--strace] [--config FILE]`` runs one table
as the bench does (miniircd on loopback, the dealer bot in this process, four house bots
as ``poki irc play`` processes, no flood limit, no pause between hands) and prints, per
process, the functions that cost the most CPU per hand:

* every thread of the dealer and of each bot runs under its own ``cProfile`` profiler
  timed by that thread's CPU clock (:class:`ThreadProfiles`; in the bots through the
  ``POKI_PROFILE`` environment switch that ``poki irc play`` honours), so waiting in
  ``select`` costs nothing and a worker thread's decisions are counted where they run.
  Functions of the Cython-compiled modules are not seen one by one: their time shows in
  the Python function that called them;
* with ``--strace``, ``strace -c -f`` attached to every process (server included) for
  the timed hands: system calls per hand by kind. Tracing slows the table, so the hands
  per second of that run mean nothing; the counts per hand do.

For looking, not for figures to compare: the profilers cost CPU of their own.
"""
from __future__ import annotations

import argparse
import cProfile
import dataclasses
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

__all__ = ["ENV", "ThreadProfiles", "install_from_env"]

ENV = "POKI_PROFILE"  # file prefix: a process that honours it writes <prefix>.<thread>.prof
SOURCE_ENV = "POKI_PROFILE_SOURCE"  # set: the compiled modules are imported from source


class ThreadProfiles:
    """One cProfile profiler per thread, each timed by its thread's CPU clock: threads
    started after :meth:`install` get theirs at their first call; :meth:`dump` writes
    each thread's statistics to ``<prefix>.<thread name>.prof``."""

    def __init__(self) -> None:
        self.profiles: list[tuple[str, cProfile.Profile]] = []
        self._lock = threading.Lock()

    def _start_thread(self, frame: object, event: str, arg: object) -> None:
        # threading runs this as the new thread's profile function: swap in a profiler.
        profile = cProfile.Profile(time.thread_time)
        with self._lock:
            self.profiles.append((threading.current_thread().name, profile))
        profile.enable()

    def install(self, *, this_thread: bool = False) -> ThreadProfiles:
        threading.setprofile(self._start_thread)
        if this_thread:
            self._start_thread(None, "call", None)
        return self

    def dump(self, prefix: str | Path) -> list[Path]:
        threading.setprofile(None)
        written = []
        with self._lock:
            profiles = list(self.profiles)
        seen: dict[str, int] = {}
        for name, profile in profiles:
            profile.disable()
            safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in name)
            seen[safe] = seen.get(safe, 0) + 1
            if seen[safe] > 1:
                safe += f"-{seen[safe]}"
            path = Path(f"{prefix}.{safe}.prof")
            try:
                profile.dump_stats(path)
            except (TypeError, ValueError):
                continue  # a thread that never returned from its first call: nothing to show
            written.append(path)
        return written


def install_from_env() -> ThreadProfiles | None:
    """Profile every thread of this process when ``POKI_PROFILE`` is set (its value: the
    file prefix); the statistics are written at interpreter exit."""
    prefix = os.environ.get(ENV)
    if not prefix:
        return None
    import atexit

    if os.environ.get(SOURCE_ENV):
        source_first()
    profiles = ThreadProfiles().install(this_thread=True)
    atexit.register(profiles.dump, prefix)
    return profiles


def source_first() -> None:
    """Import the compiled modules not imported yet from their Python source, so the
    profilers see their functions one by one (slower than compiled: for ranking only)."""
    from agent.native import COMPILED_MODULES, SourceFirst

    sys.meta_path.insert(0, SourceFirst([m for m in COMPILED_MODULES if m not in sys.modules]))


def _print_stats(label: str, files: list[Path], hands: int, top: int) -> None:
    files = [f for f in files if f.stat().st_size > 0]
    if not files:
        print(f"\n## {label}: no profile written")
        return
    stats = pstats.Stats(*map(str, files))
    total = stats.total_tt  # type: ignore[attr-defined]  # pstats.Stats keeps them undeclared
    print(f"\n## {label}: {total / hands * 1e3:.2f} ms CPU per hand under the profilers "
          f"({', '.join(f.name.split('.', 1)[1].rsplit('.', 1)[0] for f in files)})")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]  # pstats.Stats keeps them undeclared
    print(f"{'us/hand':>8} {'cum us':>8} {'calls/hand':>10}  function")
    for (path, line, name), (_cc, calls, tt, ct, _callers) in rows:
        where = f"{Path(path).name}:{line}" if line else path
        print(f"{tt / hands * 1e6:8.0f} {ct / hands * 1e6:8.0f} {calls / hands:10.1f}  {name} ({where})")


def _strace_summary(path: Path, hands: int, top: int) -> None:
    lines = path.read_text(errors="replace").splitlines()
    rows = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 5 and parts[0].replace(".", "").isdigit() and parts[-1] not in ("total",):
            try:
                calls = int(parts[3])
            except ValueError:
                continue
            rows.append((calls, parts[-1], float(parts[1])))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    print(f"  {path.stem}: {total / hands:.0f} system calls per hand: "
          + ", ".join(f"{name} {calls / hands:.1f}" for calls, name, _ in rows[:top]))


def main(argv: list[str] | None = None) -> int:
    from agent.bench.irc import dealer_bot, server_pid, stop_processes

    parser = argparse.ArgumentParser(prog="python -m agent.bench.irc_profile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=300, help="hands to deal (default 300)")
    parser.add_argument("--out", default=None, help="folder for the .prof files (default: a temporary one)")
    parser.add_argument("--top", type=int, default=25, help="functions shown per process (default 25)")
    parser.add_argument("--strace", action="store_true", help="count system calls instead of profiling")
    parser.add_argument("--source", action="store_true",
                        help="the compiled modules from their Python source (their functions seen one by one)")
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--config", default=None, metavar="FILE",
                        help="settings file (default: config.toml in the working directory, else built-in defaults)")
    args = parser.parse_args(argv)
    if args.hands < 20:
        parser.error("--hands must be at least 20")
    if args.source:
        source_first()
        os.environ[SOURCE_ENV] = "1"  # the bots too

    from agent.bench import settings_file
    from agent.config import ConfigError, load_config
    from agent.play.irc.dealer import DealerHost
    from connectors.irc.server import LoopbackServer

    try:
        base = load_config(args.config)
    except ConfigError as exc:
        parser.error(str(exc))
    config = dataclasses.replace(base, irc=dataclasses.replace(
        base.irc, flood_profile="custom", flood_lines_per_second=0.0, hand_pause_seconds=0.0))
    house = ["rr", "tight-aggressive", "loose-passive", "loose-aggressive"]
    tmp = tempfile.TemporaryDirectory(prefix="poki-irc-profile-")
    out = Path(args.out) if args.out else Path(tmp.name)
    out.mkdir(parents=True, exist_ok=True)
    settings = settings_file(config, out)
    profiles = None if args.strace else ThreadProfiles().install()
    server = LoopbackServer().start()
    procs: list[subprocess.Popen] = []
    traces: list[tuple[subprocess.Popen, Path]] = []
    host = None
    try:
        host = DealerHost(server.address, ["#bench"], out / "dealer.sqlite", config, hands=args.hands,
                          seed=args.seed, hand_pause=0.0, flood_rate=0.0, min_players=len(house))
        host.start()
        host.wait_tables(60)
        for k, spec in enumerate(house):
            nick = f"{spec.split('(')[0][:8]}{k}"
            env = dict(os.environ)
            if not args.strace:
                env[ENV] = str(out / f"bot{k}")
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "agent.cli", "--config", str(settings), "irc", "play",
                 "--server", server.address,
                 "--channel", "#bench", "--dealer", "dealer", "--player", spec, "--nick", nick,
                 "--no-flood-limit", "--no-report", "--seed", str(args.seed + k),
                 "--db", str(out / f"{nick}.sqlite")],
                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 120
        while host.call(lambda: dealer_bot(host).stats.hands) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        first = host.call(lambda: dealer_bot(host).stats.hands)
        if args.strace:
            pids = {"dealer": os.getpid(), "server": server_pid(server),
                    **{f"bot{k}": p.pid for k, p in enumerate(procs)}}
            for name, pid in pids.items():
                path = out / f"{name}.strace"
                traces.append((subprocess.Popen(["strace", "-c", "-f", "-o", str(path), "-p", str(pid)],
                                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), path))
            time.sleep(1.0)  # attached
            first = host.call(lambda: dealer_bot(host).stats.hands)
        t0 = time.perf_counter()
        if not host.wait(1200):
            raise RuntimeError("the table did not finish")
        elapsed = time.perf_counter() - t0
        played = args.hands - first
        for proc, _ in traces:
            proc.send_signal(signal.SIGINT)
        for proc, _ in traces:
            proc.wait(30)
        print(f"{played} hands timed, {played / elapsed:.1f} hands/s under the "
              f"{'tracer' if args.strace else 'profilers'} (load {os.getloadavg()[0]:.2f})")
    finally:
        stop_processes(procs, 60)
        if host is not None:
            host.stop()
        server.stop()
    if args.strace:
        for _, path in traces:
            _strace_summary(path, played, args.top)
    else:
        assert profiles is not None
        files = profiles.dump(out / "dealer")
        # All hands count for the profiles (they run from the start).
        _print_stats("dealer (this process)", [f for f in files if ".irc_dealer" in f.name], args.hands, args.top)
        for k in range(len(house)):
            _print_stats(f"bot{k} ({house[k]})", sorted(out.glob(f"bot{k}.*.prof")), args.hands, args.top)
    print(f"\nfiles in {out}" if args.out else "")
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
