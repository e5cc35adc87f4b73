"""How long the opponent report takes over the whole April 1995 IRC database (about
20,000 hands, 520 players): the shared logs are replayed into a fresh database once, then
the report is written from it in fresh interpreters pinned to one core, as
`poki report` runs; medians over repeats. docs/architecture.md sets a target of under 10 s."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from agent.bench import settings_file
from agent.config import Config

TARGET_SECONDS = 10.0


def bench_child() -> None:
    """In a fresh interpreter: write the report of argv[1] into argv[2] on one core, with
    the ``[report]`` settings of the config file argv[3], and print its figures as one JSON
    line (imports included, as the command pays them)."""
    t0 = time.perf_counter()
    c0 = time.process_time()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    from agent.config import load_config
    from agent.report.page import options_from_config, write_report

    options = options_from_config(load_config(sys.argv[3]).report)
    result = write_report(sys.argv[1], sys.argv[2], options)
    print(json.dumps({
        "seconds": time.perf_counter() - t0,
        "report_seconds": result.seconds,
        "cpu_seconds": time.process_time() - c0,
        "players": result.players,
        "hands": result.hands,
        "charts": options.charts,
        "page_bytes": (Path(sys.argv[2]) / "index.html").stat().st_size,
    }))


def run_report_bench(config: Config, quick: bool = False) -> dict[str, Any]:
    """The figures (module docstring); the replay and the report read ``config``."""
    from agent.play.offline.replay import DATASET, shared_irc_logs

    data = shared_irc_logs()
    if data is None:
        raise FileNotFoundError(f"the shared IRC logs ({DATASET}) are not there: set POKI_SHARED_DATA")
    repeats = 1 if quick else 3
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    out: dict[str, Any] = {"dataset": str(data), "repeats": repeats, "target_seconds": TARGET_SECONDS}
    with tempfile.TemporaryDirectory(prefix="poki-report-bench-") as tmp:
        db = Path(tmp) / "irc.sqlite"
        settings = settings_file(config, Path(tmp))
        subprocess.run([sys.executable, "-m", "agent.cli", "--config", str(settings), "replay", str(data),
                        "--db", str(db), "--no-progress"], check=True, capture_output=True, env=env)
        runs = []
        for i in range(repeats):
            done = subprocess.run(
                [sys.executable, "-c", "from agent.bench.report import bench_child; bench_child()",
                 str(db), str(Path(tmp) / f"report{i}"), str(settings)],
                check=True, capture_output=True, text=True, env=env)
            runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    out.update(
        hands=runs[0]["hands"], players=runs[0]["players"], charts=runs[0]["charts"],
        page_bytes=runs[0]["page_bytes"],
        seconds=round(statistics.median(r["seconds"] for r in runs), 2),
        report_seconds=round(statistics.median(r["report_seconds"] for r in runs), 2),
        cpu_seconds=round(statistics.median(r["cpu_seconds"] for r in runs), 2),
        seconds_runs=[round(r["seconds"], 2) for r in runs],
    )
    try:
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return out


if __name__ == "__main__":
    from agent.config import load_config

    print(json.dumps(run_report_bench(load_config(), quick="--quick" in sys.argv), indent=2))
