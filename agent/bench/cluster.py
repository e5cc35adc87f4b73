"""Dask cluster against the process pool on this machine (``poki bench --only cluster``):
the cost of one task, and the throughput of a match and of a replay of the shared April
1995 IRC logs at several batch sizes, with ``workers`` processes either way.

The machine is shared, so every run is measured in CPU seconds as well as wall seconds:
all processes together — this one (with a LocalCluster its scheduler runs here, in a
thread), the pool's children (counted once they are reaped) or the cluster's workers and
their nannies (read with psutil, which Dask installs). The overhead of a task is the
extra CPU the cluster spends per batch over the pool on the same work; the batch size
that hides it is the smallest whose CPU per hand is within ``HIDDEN`` of the pool's.

The process-pool runs come first: a pool forks this process, which must not yet hold the
cluster's threads.
"""
from __future__ import annotations

import dataclasses
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.config import Config
from agent.play.offline.replay import ReplayOptions, replay, shared_irc_logs
from agent.play.offline.tournament import TournamentSetup, run_tournament

HIDDEN = 0.05  # a batch size hides the overhead when the cluster costs at most 5% more CPU per hand
MATCH_SPECS = ("call", "raise", "random", "tight-aggressive")
MATCH_DEALS = 600
MATCH_CHUNKS = (1, 5, 25, 100)
REPLAY_CHUNKS = (100, 300, 1000, 3000)
NOOP_TASKS = 400


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _self_cpu() -> float:
    return time.process_time()


class _CpuMeter:
    """CPU seconds of this process plus its helpers: reaped children (a pool) or the
    given live processes (a cluster's workers and nannies)."""

    def __init__(self, pids: list[int] | None = None) -> None:
        self.procs = []
        if pids:
            import psutil

            self.procs = [psutil.Process(p) for p in pids]

    def _now(self) -> float:
        total = _self_cpu() + _children_cpu()
        for p in self.procs:
            t = p.cpu_times()
            total += t.user + t.system
        return total

    def measure(self, fn: Callable[[], Any]) -> tuple[float, float, Any]:
        """(wall seconds, CPU seconds, fn's result)."""
        c0, w0 = self._now(), time.perf_counter()
        out = fn()
        return time.perf_counter() - w0, self._now() - c0, out


def _median_runs(meter_for: Callable[[], _CpuMeter], fn: Callable[[], Any], repeats: int) -> dict[str, Any]:
    walls, cpus = [], []
    units = 0
    for _ in range(repeats):
        wall, cpu, units = meter_for().measure(fn)
        walls.append(wall)
        cpus.append(cpu)
    return {"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus), "units": units,
            "wall_runs": walls, "cpu_runs": cpus}


def _noop(x: int) -> int:
    return x


def _match(config: Config, chunk: int, **kw: Any) -> Callable[[], int]:
    table = dataclasses.replace(config.table, seats=len(MATCH_SPECS))
    setup = TournamentSetup.from_text(MATCH_SPECS, table, 7, chunk=chunk)

    def play() -> int:
        return run_tournament(setup, MATCH_DEALS, **kw).hands

    return play


def _replay(config: Config, data: Path, tmp: Path, chunk: int, workers: int,
            pool_for: Callable[[], Any] | None) -> Callable[[], int]:
    counter = iter(range(10**6))

    def run() -> int:
        path = tmp / f"replay-{chunk}-{next(counter)}-{os.getpid()}.sqlite"
        options = ReplayOptions.from_settings(config, path, workers=workers, chunk_hands=chunk)
        if pool_for is None:
            summary = replay([data], options)
        else:
            with pool_for() as pool:
                summary = replay([data], options, pool=pool)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return summary.hands

    return run


def _per_unit(row: dict[str, float]) -> dict[str, float]:
    units = row["units"] or 1
    return {**row, "per_s": units / row["wall_s"], "cpu_us_per_unit": row["cpu_s"] / units * 1e6}


def run_cluster_bench(config: Config, quick: bool = False, workers: int = 2) -> dict[str, Any]:
    """The figures (see the module docstring), the tables and replays with the settings
    ``config``; needs the cluster extra."""
    from multiprocessing import get_context

    from agent.play.offline.cluster import Cluster, ReplayPool

    repeats = 1 if quick else 3
    out: dict[str, Any] = {"workers": workers, "repeats": repeats, "load_average": list(os.getloadavg()),
                           "match": {"specs": list(MATCH_SPECS), "deals": MATCH_DEALS, "pool": {}, "cluster": {}},
                           "replay": {"pool": {}, "cluster": {}}}
    data = shared_irc_logs()
    pool_meter = _CpuMeter
    with tempfile.TemporaryDirectory(prefix="poki-cluster-bench-") as tmp_name:
        tmp = Path(tmp_name)
        # -- the process pool first (it forks this process) --
        def pool_noop() -> int:
            with get_context("fork").Pool(workers) as pool:
                handles = [pool.apply_async(_noop, (i,)) for i in range(NOOP_TASKS)]
                return len([h.get() for h in handles])

        out["noop_pool"] = _per_unit(_median_runs(pool_meter, pool_noop, repeats))
        for chunk in MATCH_CHUNKS:
            out["match"]["pool"][chunk] = _per_unit(_median_runs(pool_meter, _match(config, chunk, workers=workers), repeats))
        if data is not None:
            out["replay"]["dataset"] = str(data)
            for chunk in REPLAY_CHUNKS:
                out["replay"]["pool"][chunk] = _per_unit(
                    _median_runs(pool_meter, _replay(config, data, tmp, chunk, workers, None), repeats))
        # -- then the same work on a LocalCluster of as many worker processes --
        t0 = time.perf_counter()
        with Cluster.open("local", workers=workers) as cluster:
            out["cluster_start_s"] = time.perf_counter() - t0
            # A LocalCluster's nannies run in this process; remote parents are counted too.
            pids = set(cluster.worker_pids().values()) | set(cluster.run_everywhere(os.getppid).values())
            pids.discard(os.getpid())
            out["idle_cpu_per_s"] = _CpuMeter(sorted(pids)).measure(lambda: time.sleep(5 if quick else 10))[1] / (
                5 if quick else 10)

            def cluster_meter() -> _CpuMeter:
                return _CpuMeter(sorted(pids))

            def cluster_noop() -> int:
                return sum(1 for _ in cluster.as_completed(_noop, range(NOOP_TASKS)))

            out["noop_cluster"] = _per_unit(_median_runs(cluster_meter, cluster_noop, repeats))
            for chunk in MATCH_CHUNKS:
                out["match"]["cluster"][chunk] = _per_unit(
                    _median_runs(cluster_meter, _match(config, chunk, cluster=cluster), repeats))
            if data is not None:
                for chunk in REPLAY_CHUNKS:
                    out["replay"]["cluster"][chunk] = _per_unit(_median_runs(
                        cluster_meter, _replay(config, data, tmp, chunk, workers, lambda: ReplayPool(cluster, [data])),
                        repeats))
    out["task_overhead_cpu_ms"] = (out["noop_cluster"]["cpu_s"] - out["noop_pool"]["cpu_s"]) / NOOP_TASKS * 1e3
    for kind in ("match", "replay"):
        hide = None
        for chunk, pool_row in sorted(out[kind]["pool"].items()):
            cl = out[kind]["cluster"].get(chunk)
            if cl is None:
                continue
            cl["cpu_ratio_to_pool"] = cl["cpu_s"] / pool_row["cpu_s"]
            if hide is None and cl["cpu_ratio_to_pool"] <= 1 + HIDDEN:
                hide = chunk
        out[kind]["hiding_chunk"] = hide
    out["load_average_after"] = list(os.getloadavg())
    return out


def format_cluster_bench(f: dict[str, Any]) -> str:
    """The figures as text: one row per runner and batch size."""
    lines = [f"Dask LocalCluster vs process pool, {f['workers']} workers, medians of {f['repeats']}; "
             f"load {f['load_average'][0]:.1f} before, {f['load_average_after'][0]:.1f} after; "
             f"cluster start {f['cluster_start_s']:.1f} s",
             f"idle cluster: {f['idle_cpu_per_s']:.3f} CPU s a second",
             f"no-op task: pool {f['noop_pool']['cpu_us_per_unit']:.0f} µs CPU, cluster "
             f"{f['noop_cluster']['cpu_us_per_unit']:.0f} µs CPU (extra {f['task_overhead_cpu_ms']:.2f} ms a task)"]
    for kind, unit, size in (("match", "hands", "deals"), ("replay", "hands", "hands")):
        rows = f[kind]
        if not rows["pool"]:
            continue
        lines.append(f"{kind}: batch ({size})  pool {unit}/s  pool CPU µs/hand  cluster {unit}/s  "
                     "cluster CPU µs/hand  CPU ratio")
        for chunk, p in sorted(rows["pool"].items(), key=lambda kv: int(kv[0])):
            c = rows["cluster"].get(chunk, {})
            lines.append(f"  {int(chunk):>6}  {p['per_s']:>9,.0f}  {p['cpu_us_per_unit']:>9,.0f}  "
                         f"{c.get('per_s', 0):>9,.0f}  {c.get('cpu_us_per_unit', 0):>9,.0f}  "
                         f"{c.get('cpu_ratio_to_pool', 0):>5.2f}")
        lines.append(f"  smallest batch within {HIDDEN:.0%} of the pool's CPU: {rows['hiding_chunk']}")
    return "\n".join(lines)
