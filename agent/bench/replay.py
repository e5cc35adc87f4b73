"""Replay speed: hands per second replaying the shared April 1995 IRC logs into a fresh
database, serially and in parallel, each run in a fresh interpreter."""
from __future__ import annotations

import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from agent.play.replay import DATASET, ReplayOptions, replay, shared_irc_logs

def _cpu_seconds(who: int) -> float:
    import resource

    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def bench_child() -> None:
    """One measured replay, in a fresh interpreter started by run_replay_bench (arguments:
    logs, database, workers): prints its hands, seconds and CPU seconds as JSON."""
    import json
    import resource
    import sys

    data, path, workers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    summary = replay([data], ReplayOptions(db_path=path, workers=workers))
    print(json.dumps({"hands": summary.hands, "stored": summary.stored, "seconds": summary.seconds,
                      "main_cpu_s": _cpu_seconds(resource.RUSAGE_SELF),
                      "workers_cpu_s": _cpu_seconds(resource.RUSAGE_CHILDREN)}))


def run_replay_bench(quick: bool = False, workers: int | None = None) -> dict[str, Any]:
    """Hands per second replaying the shared April 1995 IRC logs into a fresh database
    (models updated), serially and with ``workers`` processes (default: the CPUs, at
    least 2); medians over repeats, each into a new file and in a new interpreter, as
    ``poki replay`` runs (a process that has replayed before forks slower workers).

    Wall-clock rates move with the machine's load (``load_average``), so each run also
    gives its CPU seconds: the main process's (reading nothing in parallel runs: decoding
    and writing) and all processes' together (the interpreter's start included).
    ``*_hands_per_cpu_s`` is hands over all CPU seconds;
    ``parallel_idle_estimate_hands_per_s`` is what the parallel run would reach on
    ``workers`` otherwise idle cores: hands over the larger of the main process's CPU
    seconds and all CPU seconds shared among the cores. ``hands_per_s`` is the parallel
    figure: ``poki replay`` as it runs by default."""
    import json
    import subprocess
    import sys

    data = shared_irc_logs()
    if data is None:
        raise FileNotFoundError(f"the shared IRC logs ({DATASET}) are not there: set POKI_SHARED_DATA")
    workers = workers or max(2, os.cpu_count() or 1)
    repeats = 1 if quick else 3
    out: dict[str, Any] = {"dataset": str(data), "repeats": repeats, "workers": workers}
    env = {**os.environ, "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1")}
    with tempfile.TemporaryDirectory(prefix="poki-replay-bench-") as tmp:
        for label, w in (("serial", 1), ("parallel", workers)):
            runs = []
            for i in range(repeats):
                path = Path(tmp) / f"{label}{i}.sqlite"
                done = subprocess.run(
                    [sys.executable, "-c", "from agent.bench.replay import bench_child; bench_child()",
                     str(data), str(path), str(w)],
                    capture_output=True, text=True, env=env, check=True)
                run = json.loads(done.stdout.strip().splitlines()[-1])
                runs.append((run["seconds"], run["main_cpu_s"], run["main_cpu_s"] + run["workers_cpu_s"]))
                out["hands"] = run["hands"]
                out["stored"] = run["stored"]
            hands = out["hands"]
            wall = statistics.median(r[0] for r in runs)
            main_cpu = statistics.median(r[1] for r in runs)
            all_cpu = statistics.median(r[2] for r in runs)
            out[f"{label}_hands_per_s"] = round(hands / wall)
            out[f"{label}_runs_hands_per_s"] = [round(hands / r[0]) for r in runs]
            out[f"{label}_main_cpu_s"] = round(main_cpu, 2)
            out[f"{label}_all_cpu_s"] = round(all_cpu, 2)
            out[f"{label}_hands_per_cpu_s"] = round(hands / all_cpu)
            if w > 1:
                out["parallel_idle_estimate_hands_per_s"] = round(hands / max(main_cpu, all_cpu / w))
    # The headline: `poki replay` as it runs by default, with one worker per CPU.
    out["hands_per_s"] = out["parallel_hands_per_s"]
    try:
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    out["target_hands_per_s"] = 5000
    return out


if __name__ == "__main__":
    import json
    import sys

    print(json.dumps(run_replay_bench(quick="--quick" in sys.argv), indent=2))
