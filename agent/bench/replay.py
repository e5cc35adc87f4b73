"""Replay speed: hands per second replaying the shared April 1995 IRC logs into a fresh
database, serially and in parallel, each run in a fresh interpreter."""
from __future__ import annotations

import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from agent.bench import settings_file
from agent.config import Config, load_config
from agent.play.offline.replay import DATASET, ReplayOptions, replay, shared_irc_logs


def _cpu_seconds(who: int) -> float:
    import resource

    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def bench_child() -> None:
    """One measured replay, in a fresh interpreter started by run_replay_bench (arguments:
    logs, database, workers, config file): prints its hands, seconds and CPU seconds as JSON."""
    import json
    import resource
    import sys

    data, path, workers, settings = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    summary = replay([data], ReplayOptions.from_settings(load_config(settings), path, workers=workers))
    print(json.dumps({"hands": summary.hands, "stored": summary.stored, "seconds": summary.seconds,
                      "main_cpu_s": _cpu_seconds(resource.RUSAGE_SELF),
                      "workers_cpu_s": _cpu_seconds(resource.RUSAGE_CHILDREN)}))


def run_replay_bench(config: Config, quick: bool = False, workers: int | None = None) -> dict[str, Any]:
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
    figure: ``poki replay`` as it runs by default, with the settings ``config``."""
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
        settings = settings_file(config, Path(tmp))
        for label, w in (("serial", 1), ("parallel", workers)):
            runs = []
            for i in range(repeats):
                path = Path(tmp) / f"{label}{i}.sqlite"
                done = subprocess.run(
                    [sys.executable, "-c", "from agent.bench.replay import bench_child; bench_child()",
                     str(data), str(path), str(w), str(settings)],
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


def run_writer_bench(repeats: int = 3) -> dict[str, Any]:
    """The parts of a replay that grew with the richer opponent models, each timed alone
    in this process (CPU seconds, medians over ``repeats``) on the shared April 1995 IRC
    logs: working out every action's fine context (agent.game.context.ContextWalker, in
    the reading workers), the writer's learning step (Predictor.advance over every hand)
    and the whole writer (Database.write_prepared into a new file: numbering, learning,
    inserting)."""
    import marshal
    import time

    from agent.game.context import ContextWalker
    from agent.models.frequencies import Decay, PlayerState
    from agent.models.prediction import Predictor
    from agent.play.offline.replay import PREPARED, RECORDS, _track
    from connectors.logs.sources import plan
    from db.database import Database

    data = shared_irc_logs()
    if data is None:
        raise FileNotFoundError(f"the shared IRC logs ({DATASET}) are not there: set POKI_SHARED_DATA")
    chunks, _ = plan([data], chunk_hands=1000)
    records = [e[1] for c in chunks for e in _track(c, None, RECORDS) if e[0] == 0]
    prepared = [(c.network, [e[1] for e in marshal.loads(marshal.dumps(_track(c, None, PREPARED))) if e[0] == 3])
                for c in chunks]

    def walk() -> None:
        for r in records:
            w = ContextWalker({s.player: s.position for s in r.seats}, r.board)
            for a in r.actions:
                w.context(a.round, a.player, a.bets_to_call, a.players_active, a.raises)
                w.record(a.round, a.player, a.kind)

    def learn() -> None:
        predictor = Predictor(Decay(500.0))
        states: dict[tuple[str, str], PlayerState] = {}
        populations: dict[str, PlayerState] = {}
        for network, hands in prepared:
            population = populations.setdefault(network, PlayerState())
            for h in hands:
                predictor.advance([states.setdefault((network, n), PlayerState()) for n in h[2]], population, h[8])

    def write() -> None:
        with tempfile.TemporaryDirectory(prefix="poki-writer-bench-") as tmp:
            with Database(Path(tmp) / "w.sqlite") as database, database.deferred_indexes():
                for network, hands in prepared:
                    database.write_prepared(hands, network)

    def cpu(fn: Any) -> float:
        times = []
        for _ in range(repeats):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
        return round(statistics.median(times), 3)

    out: dict[str, Any] = {"hands": sum(len(h) for _, h in prepared),
                           "decisions": sum(len(h[8]) for _, hs in prepared for h in hs),
                           "fine_contexts_cpu_s": cpu(walk), "learn_cpu_s": cpu(learn), "write_cpu_s": cpu(write)}
    try:
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return out


def run_reading_bench(repeats: int = 3) -> dict[str, Any]:
    """The reading side of a replay alone, in this process: every chunk of the shared
    April 1995 IRC logs read, tracked, prepared and marshalled as a worker does
    (agent.play.offline.replay.track_chunk), the month indexed afresh each time; CPU seconds,
    median over ``repeats``."""
    import time

    from agent.play.offline.replay import PREPARED, track_chunk
    from connectors.logs.sources import clear_cache, plan

    data = shared_irc_logs()
    if data is None:
        raise FileNotFoundError(f"the shared IRC logs ({DATASET}) are not there: set POKI_SHARED_DATA")
    chunks, _ = plan([data], chunk_hands=1000)
    times = []
    for _ in range(repeats):
        clear_cache()
        start = time.process_time()
        for c in chunks:
            track_chunk((c, None, PREPARED))
        times.append(time.process_time() - start)
    clear_cache()
    out: dict[str, Any] = {"chunks": len(chunks), "reading_cpu_s": round(statistics.median(times), 3),
                           "runs_cpu_s": [round(t, 3) for t in times]}
    try:
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return out


def run_parts_bench(repeats: int = 3) -> dict[str, Any]:
    """Where a replay's CPU goes, part by part, in this process on the shared April 1995
    IRC logs (CPU seconds for the whole month, median over ``repeats``). The reading side,
    as a worker does it: reading the logs (``read_chunk``, the month indexed afresh),
    tracking the events into records (Tracker), checking and laying out the rows
    (``prepare_hand``, fine contexts included) and marshalling them. The writing side
    (``Database.write_prepared`` into a new file): numbering the hands and players and
    advancing the models (``Database._prepare``), the SQLite inserts (``db.inserts._insert``, as db.database calls it)
    and building the deferred indexes and closing. The writing side's two parts are timed
    by wrapping those two functions for the run (restored after)."""
    import gc
    import marshal
    import time

    import db.database as database_module
    from agent.game.prepared import prepare_hand
    from agent.game.tracker import Tracker, TrackerError
    from agent.play.offline.replay import LogHand
    from connectors.logs.sources import clear_cache, plan, read_chunk

    data = shared_irc_logs()
    if data is None:
        raise FileNotFoundError(f"the shared IRC logs ({DATASET}) are not there: set POKI_SHARED_DATA")
    chunks, _ = plan([data], chunk_hands=1000)
    runs: dict[str, list[float]] = {}

    def note(part: str, seconds: float) -> None:
        runs.setdefault(part, []).append(seconds)

    prepared: list[tuple[str, list]] = []
    enabled = gc.isenabled()
    gc.disable()  # as in the workers: the collector is paused while rows are alive
    try:
        for _ in range(repeats):
            clear_cache()
            t0 = time.process_time()
            items = [(c.network, list(read_chunk(c, None))) for c in chunks]
            t1 = time.process_time()
            tracker = Tracker()
            records = []
            for network, chunk_items in items:
                for item in chunk_items:
                    if type(item) is not LogHand:
                        continue
                    record = None
                    try:
                        for event in item.events:
                            record = tracker.apply(event)
                    except TrackerError:
                        continue
                    if record is not None:
                        records.append((network, record))
            t2 = time.process_time()
            rows = [(network, tuple(prepare_hand(r, network))) for network, r in records]
            t3 = time.process_time()
            blob = marshal.dumps(rows)
            t4 = time.process_time()
            note("read_cpu_s", t1 - t0)
            note("track_cpu_s", t2 - t1)
            note("prepare_rows_cpu_s", t3 - t2)
            note("marshal_cpu_s", t4 - t3)
            del items, records, rows
        by_network: dict[str, list] = {}
        for network, row in marshal.loads(blob):
            by_network.setdefault(network, []).append(row)
        prepared = list(by_network.items())
    finally:
        clear_cache()
        if enabled:
            gc.enable()

    spent = {"number_and_learn": 0.0, "insert": 0.0}
    original_prepare, original_insert = database_module.Database._prepare, database_module._insert

    def timed(part: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] += time.process_time() - start
        return wrapper

    database_module.Database._prepare = timed("number_and_learn", original_prepare)  # type: ignore[method-assign]  # timed in place for the bench, restored after
    database_module._insert = timed("insert", original_insert)
    try:
        for _ in range(repeats):
            spent["number_and_learn"] = spent["insert"] = 0.0
            with tempfile.TemporaryDirectory(prefix="poki-parts-bench-") as tmp:
                start = time.process_time()
                with database_module.Database(Path(tmp) / "w.sqlite") as database:
                    with database.deferred_indexes():
                        for network, hands in prepared:
                            database.write_prepared(hands, network)
                        written = time.process_time()
                    indexed = time.process_time()
                closed = time.process_time()
            note("write_number_and_learn_cpu_s", spent["number_and_learn"])
            note("write_insert_cpu_s", spent["insert"])
            note("write_other_cpu_s", written - start - spent["number_and_learn"] - spent["insert"])
            note("write_indexes_and_close_cpu_s", closed - written)
            note("write_total_cpu_s", closed - start)
            del indexed
    finally:
        database_module.Database._prepare = original_prepare  # type: ignore[method-assign]  # timed in place for the bench, restored after
        database_module._insert = original_insert
    out: dict[str, Any] = {"hands": sum(len(h) for _, h in prepared)}
    out.update({part: round(statistics.median(times), 3) for part, times in runs.items()})
    out["reading_total_cpu_s"] = round(sum(out[k] for k in ("read_cpu_s", "track_cpu_s", "prepare_rows_cpu_s",
                                                           "marshal_cpu_s")), 3)
    try:
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return out


class _MeasuredPool:
    """A process pool for agent.play.offline.replay.replay that runs each chunk through
    _measured_chunk and keeps what each worker reported (apply_async(...).get() as
    multiprocessing's, returning the chunk's marshalled entries)."""

    reads_database = True  # a pool of this machine (agent.play.offline.replay.ChunkPool)

    def __init__(self, pool: Any) -> None:
        self.pool = pool
        self.reports: list[dict[str, Any]] = []

    def apply_async(self, fn: Any, args: tuple) -> Any:
        pending = self.pool.apply_async(_measured_chunk, args)
        reports = self.reports

        class _Result:
            def get(self, timeout: float | None = None) -> bytes:
                blob, report = pending.get(timeout)
                reports.append(report)
                return blob

        return _Result()


_worker_started: dict[str, float] | None = None


def _measured_chunk(task: tuple) -> tuple[bytes, dict[str, Any]]:
    """agent.play.offline.replay.track_chunk in a worker, with the worker's CPU (user, system),
    page faults and wall time spent on the chunk, and at its first chunk what the worker
    had spent before it (its start after the fork)."""
    import resource

    from agent.play.offline.replay import track_chunk

    global _worker_started
    before = resource.getrusage(resource.RUSAGE_SELF)
    report: dict[str, Any] = {"pid": os.getpid()}
    if _worker_started is None:
        _worker_started = {"cpu_s": before.ru_utime + before.ru_stime, "minflt": before.ru_minflt}
        report["start"] = _worker_started
    blob = track_chunk(task)
    after = resource.getrusage(resource.RUSAGE_SELF)
    report.update(user_s=after.ru_utime - before.ru_utime, sys_s=after.ru_stime - before.ru_stime,
                  minflt=after.ru_minflt - before.ru_minflt, bytes=len(blob))
    return blob, report


def run_workers_bench(workers: int = 2) -> dict[str, Any]:
    """Each reading worker's CPU in a parallel replay of the shared April 1995 IRC logs
    into a new file, against the same reading done serially in this process afterwards.
    Per worker: CPU before its first chunk (its start after the fork: modules, tables and
    the month's index are inherited, not rebuilt), chunks read, user and system CPU
    seconds spent on them, minor page faults (copy-on-write of the pages shared with the parent
    included) and bytes of marshalled rows sent; and all the workers' CPU over their
    lives (``workers_lifetime_cpu_s``: the chunks, and taking tasks, pickling and sending
    the results, exiting). Then the serial reading: every chunk
    read, tracked, prepared and marshalled by agent.play.offline.replay.track_chunk in this
    process, twice (the first pass meets the allocator's fresh memory as the workers do;
    the second reuses it)."""
    import gc
    import multiprocessing
    import resource
    import time

    from agent.play.offline.replay import PREPARED, ReplayOptions, replay, track_chunk
    from connectors.logs.sources import clear_cache, plan, preload

    data = shared_irc_logs()
    if data is None:
        raise FileNotFoundError(f"the shared IRC logs ({DATASET}) are not there: set POKI_SHARED_DATA")
    chunks, _ = plan([data], chunk_hands=1000)
    out: dict[str, Any] = {"workers": workers, "chunks": len(chunks)}
    with tempfile.TemporaryDirectory(prefix="poki-workers-bench-") as tmp:
        clear_cache()
        start = time.process_time()
        enabled = gc.isenabled()
        gc.disable()
        preload(chunks)  # as replay() does before it forks its own pool
        if enabled:
            gc.enable()
        gc.freeze()
        out["index_cpu_s"] = round(time.process_time() - start, 3)
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            with context.Pool(workers) as pool:
                measured = _MeasuredPool(pool)
                main_before = time.process_time()
                summary = replay([data], ReplayOptions(db_path=Path(tmp) / "w.sqlite", workers=workers),
                                 pool=measured)
                out["writer_cpu_s"] = round(time.process_time() - main_before, 3)
        finally:
            gc.unfreeze()
            clear_cache()
        ended = resource.getrusage(resource.RUSAGE_CHILDREN)
        # The workers' whole lives, waiting for and sending chunks included.
        out["workers_lifetime_cpu_s"] = round(ended.ru_utime + ended.ru_stime - children.ru_utime
                                              - children.ru_stime, 3)
        out["hands"] = summary.hands
        out["seconds"] = round(summary.seconds, 3)
        per: dict[int, dict[str, Any]] = {}
        for r in measured.reports:
            w = per.setdefault(r["pid"], {"chunks": 0, "user_s": 0.0, "sys_s": 0.0, "minflt": 0, "bytes": 0})
            if "start" in r:
                w["before_first_chunk_cpu_s"] = round(r["start"]["cpu_s"], 4)
            w["chunks"] += 1
            for k in ("user_s", "sys_s", "minflt", "bytes"):
                w[k] += r[k]
        out["per_worker"] = [{k: round(v, 3) if isinstance(v, float) else v for k, v in w.items()}
                             for w in per.values()]
        out["workers_cpu_s"] = round(sum(w["user_s"] + w["sys_s"] for w in per.values()), 3)
    passes = []
    enabled = gc.isenabled()
    try:
        for _ in range(2):
            clear_cache()
            gc.disable()
            preload(chunks)
            gc.enable()
            before = resource.getrusage(resource.RUSAGE_SELF)
            for c in chunks:
                track_chunk((c, None, PREPARED))
            after = resource.getrusage(resource.RUSAGE_SELF)
            passes.append({"user_s": round(after.ru_utime - before.ru_utime, 3),
                           "sys_s": round(after.ru_stime - before.ru_stime, 3),
                           "minflt": after.ru_minflt - before.ru_minflt})
    finally:
        clear_cache()
        if enabled:
            gc.enable()
        else:
            gc.disable()
    out["serial_reading"] = passes
    try:
        out["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return out


if __name__ == "__main__":
    import json
    import sys

    if "--writer" in sys.argv:
        print(json.dumps(run_writer_bench(), indent=2))
    elif "--parts" in sys.argv:
        print(json.dumps(run_parts_bench(), indent=2))
    elif "--workers" in sys.argv:
        print(json.dumps(run_workers_bench(), indent=2))
    elif "--reading" in sys.argv:
        print(json.dumps(run_reading_bench(), indent=2))
    else:
        print(json.dumps(run_replay_bench(load_config(), quick="--quick" in sys.argv), indent=2))
