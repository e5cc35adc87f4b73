"""Matches and replays on a Dask distributed cluster (``--cluster ADDRESS|local``).

Dask's distributed scheduler runs the batches the runners already cut their work into:
a duplicate tournament's ranges of deals (agent.play.offline.tournament.play_batch) and a
replay's chunks of log files (agent.play.offline.replay.track_chunk). Nothing here plays or
reads a hand: both are pure functions of their inputs and seed, so a batch gives the same
answer on any worker, and when a worker dies Dask runs its batches again elsewhere with
the same result. What this module adds is the glue:

* connecting: ``tcp://HOST:PORT`` of a running scheduler (``dask scheduler`` and ``dask
  worker`` on the machines), or ``local`` for a ``LocalCluster`` of worker processes on
  this machine, listening on loopback only; clear errors for a bad address, a scheduler
  that does not answer, a cluster without workers and a missing Dask install;
* checking the workers: each must run the same Poki with the same settings (version,
  config, Python, evaluator backend), or the results would not be those of one process;
* submitting with a bounded window (a slow consumer never has the whole input queued)
  and streaming results back, unordered for the tournament (its log writer puts the
  batches in deal order) or through a pool-like ``apply_async(...).get()`` that the
  replay consumes in log order, so its single writer stores hands as a serial run does.

Dask is an optional extra (``pip install 'poki[cluster]'``): it is imported here, inside
functions, and this module only when a command is given ``--cluster``.
"""
from __future__ import annotations

import logging
import os
import platform
import re
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import islice
from typing import Any

__all__ = [
    "Cluster",
    "ClusterError",
    "INSTALL_HINT",
    "LOCAL",
    "ReplayPool",
    "parse_address",
    "worker_fingerprint",
]

LOCAL = "local"
INSTALL_HINT = "install the cluster extra: pip install 'poki[cluster]' (in a checkout: pip install -e '.[cluster]')"
CONNECT_TIMEOUT = 20.0  # seconds to reach the scheduler
WORKERS_TIMEOUT = 60.0  # seconds for a remote cluster to show at least one worker
_ADDRESS = re.compile(r"^(?:(?P<scheme>[a-z]+)://)?(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(?P<port>\d{1,5})$")
_SCHEMES = ("tcp", "tls")
# A local cluster's housekeeping, slowed down: Dask's defaults (an event-loop health check
# every 20 ms and a statistical profiler sampling every 10 ms in every process, memory and
# system monitors several times a second) cost an idle two-worker cluster about 0.12 of a
# core on this machine, about 0.02 with these (docs/scale.md); the nannies pass them on
# to the worker processes.
QUIET_LOCAL = {
    "distributed.admin.tick.interval": "500ms",
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


class ClusterError(Exception):
    """The cluster cannot be used (address, connection, workers, install): the message
    says which and what to do."""


def parse_address(text: str) -> str:
    """``local``, or a scheduler address normalised to ``SCHEME://HOST:PORT`` (``tcp``
    when none is given). ClusterError for anything else."""
    text = text.strip()
    if text.lower() == LOCAL:
        return LOCAL
    m = _ADDRESS.match(text)
    expected = "expected 'local' or a scheduler address such as tcp://10.0.0.5:8786"
    if m is None:
        raise ClusterError(f"not a cluster address: {text!r} ({expected})")
    scheme = m.group("scheme") or "tcp"
    if scheme not in _SCHEMES:
        raise ClusterError(f"not a cluster address: {text!r}: scheme {scheme!r} is not one of {_SCHEMES} ({expected})")
    port = int(m.group("port"))
    if not 1 <= port <= 65535:
        raise ClusterError(f"not a cluster address: {text!r}: port {port} is not in 1..65535")
    return f"{scheme}://{m.group('host')}:{port}"


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as exc:
        raise ClusterError(f"--cluster needs Dask's distributed scheduler, which is not installed "
                           f"({exc}): {INSTALL_HINT}") from None
    return distributed


def worker_fingerprint() -> dict[str, str]:
    """What a process's results depend on besides its inputs: the Poki version, the
    evaluator backend and the Python version (the replay's rows come back marshalled, a
    format of the Python version). Settings are inputs: a batch's player specs carry
    every setting of their players, a replay's options theirs. Runs on every worker."""
    import evaluator_pyx

    try:
        from importlib.metadata import version

        poki = version("poki")
    except Exception:  # noqa: BLE001 - a source checkout on PYTHONPATH has no metadata
        poki = "source"
    return {"poki": poki, "evaluator": str(evaluator_pyx.BACKEND),
            "python": ".".join(platform.python_version_tuple()[:2])}


class _Handle:
    """One submitted task, as multiprocessing's AsyncResult: ``get()`` its result."""

    __slots__ = ("_cluster", "_future")

    def __init__(self, cluster: Cluster, future: Any) -> None:
        self._cluster = cluster
        self._future = future

    def get(self, timeout: float | None = None) -> Any:
        try:
            return self._cluster._result(self._future, timeout)
        finally:
            self._future = None  # the cluster may forget the result once it is here


class Cluster:
    """A client of a Dask scheduler, and the LocalCluster it started for ``local``.

    Use as a context manager (``with Cluster.open("local", workers=2) as cluster``): on
    exit the client disconnects and a local cluster's processes are stopped; a remote
    cluster is left running for the next run."""

    def __init__(self, client: Any, address: str, local: Any = None, settings: Any = None) -> None:
        self.client = client
        self._settings = settings  # the dask.config.set of a local cluster, undone on close
        self.address = address  # what was asked for: local or the scheduler's address
        self.local = local
        self.scheduler_address: str = client.scheduler.address
        # Worker processes on this machine see this machine's files (the database the
        # replay recognises stored hands in); a remote cluster's may not.
        self.shares_files = local is not None

    # -- opening -----------------------------------------------------------------------

    @classmethod
    def open(cls, address: str, *, workers: int | None = None, timeout: float = CONNECT_TIMEOUT,
             workers_timeout: float = WORKERS_TIMEOUT, check: bool = True) -> Cluster:
        """Connect to ``address`` (see parse_address) within ``timeout`` seconds, and wait
        up to ``workers_timeout`` for a remote scheduler to have a worker; ``local``
        starts ``workers`` single-threaded worker processes (default: the CPUs) on
        127.0.0.1. ``check``: compare every worker's fingerprint with this process's."""
        address = parse_address(address)
        distributed = _distributed()
        local = settings = None
        if address == LOCAL:
            count = workers or os.cpu_count() or 1
            if count < 1:
                raise ClusterError(f"a local cluster needs at least one worker, got {count}")
            import dask

            settings = dask.config.set(QUIET_LOCAL)
            try:
                # Loopback only, no dashboard: nothing of it is reachable from outside.
                local = distributed.LocalCluster(
                    n_workers=count, threads_per_worker=1, processes=True, host="127.0.0.1",
                    scheduler_port=0, dashboard_address=None, silence_logs=logging.ERROR)
                client = distributed.Client(local, timeout=timeout, set_as_default=False)
            except Exception:
                if local is not None:
                    local.close()
                settings.__exit__(None, None, None)
                raise
        else:
            if workers is not None:
                raise ClusterError("--workers sizes a local cluster only: the workers of "
                                   f"{address} are the `dask worker` processes started on its machines")
            try:
                client = distributed.Client(address, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise ClusterError(f"no Dask scheduler answered at {address} within {timeout:g} s ({exc}); "
                                   f"start one with `dask scheduler` and workers with `dask worker {address}`"
                                   ) from None
            except ValueError as exc:
                raise ClusterError(f"not a cluster address: {address} ({exc})") from None
        cluster = cls(client, address, local, settings)
        try:
            if local is None:
                cluster._wait_for_workers(workers_timeout)
            if check:
                cluster.check_workers()
        except BaseException:
            cluster.close()
            raise
        return cluster

    def _wait_for_workers(self, timeout: float) -> None:
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, OSError):
            raise ClusterError(f"the scheduler at {self.scheduler_address} has no workers after {timeout:g} s: "
                               f"start some with `dask worker {self.scheduler_address}`") from None

    def check_workers(self) -> dict[str, dict[str, str]]:
        """Every worker's fingerprint; ClusterError naming the first worker that cannot
        run Poki or differs from this process (so would not give its results)."""
        here = worker_fingerprint()
        try:
            prints = self.client.run(worker_fingerprint)
        except Exception as exc:  # noqa: BLE001 - the workers' own error, reported with the fix
            raise ClusterError(f"the workers of {self.scheduler_address} cannot run Poki ({type(exc).__name__}: "
                               f"{exc}): install the same poki on every worker machine") from None
        threads = {w: int(info.get("nthreads", 1)) for w, info in self.workers().items()}
        for worker, count in sorted(threads.items()):
            if count != 1:
                # One task at a time per process: the replay's reader and tracker are kept
                # per process, and Python threads would not run Poki faster anyway.
                raise ClusterError(f"worker {worker} runs {count} threads: start workers with `dask worker "
                                   f"{self.scheduler_address} --nthreads 1 --nworkers N` (N processes a machine)")
        for worker, theirs in sorted(prints.items()):
            differ = {k: (here[k], theirs.get(k)) for k in here if theirs.get(k) != here[k]}
            if differ:
                what = ", ".join(f"{k}: here {a}, there {b}" for k, (a, b) in differ.items())
                raise ClusterError(f"worker {worker} would not give this machine's results ({what}): run the same "
                                   "poki and Python on every worker")
        return prints

    # -- facts -------------------------------------------------------------------------

    def workers(self) -> dict[str, dict[str, Any]]:
        """Address -> the scheduler's facts about that worker (nthreads, ...)."""
        return dict(self.client.scheduler_info(n_workers=-1)["workers"])

    @property
    def threads(self) -> int:
        """Tasks the cluster runs at once (its workers' threads)."""
        return max(1, sum(int(w.get("nthreads", 1)) for w in self.workers().values()))

    def worker_pids(self) -> dict[str, int]:
        """Address -> process id of each worker (on its own machine)."""
        return self.client.run(os.getpid)

    def describe(self) -> str:
        workers = self.workers()
        kind = "local cluster" if self.local is not None else "cluster"
        return (f"{kind} at {self.scheduler_address}: {len(workers)} worker{'s' if len(workers) != 1 else ''}, "
                f"{sum(int(w.get('nthreads', 1)) for w in workers.values())} threads")

    # -- running -----------------------------------------------------------------------

    def _result(self, future: Any, timeout: float | None = None) -> Any:
        """A task's result, with the cluster's own failures turned into ClusterError;
        an exception the task itself raised is raised as it is; TimeoutError after
        ``timeout`` seconds (None: no limit)."""
        distributed = _distributed()
        try:
            return future.result(timeout=timeout)
        except distributed.KilledWorker as exc:
            raise ClusterError(f"a task's workers kept dying ({exc}); Dask gave up on it. Is a worker short of "
                               "memory? (`dask worker --memory-limit`)") from None
        except (distributed.client.FutureCancelledError, distributed.comm.CommClosedError) as exc:
            raise ClusterError(f"lost the scheduler at {self.scheduler_address} ({type(exc).__name__}: {exc})") from None

    def apply_async(self, fn: Callable[..., Any], args: tuple = ()) -> _Handle:
        """Submit ``fn(*args)`` (as multiprocessing.Pool.apply_async): the replay's pool."""
        return _Handle(self, self.client.submit(fn, *args, pure=False))

    def as_completed(self, fn: Callable[..., Any], jobs: Iterable[Any], window: int | None = None) -> Iterator[Any]:
        """``fn(job)`` for every job, yielded as they finish (in any order), with at most
        ``window`` (default: twice the threads, plus two) submitted and not yet taken."""
        distributed = _distributed()
        window = window or 2 * self.threads + 2
        it = iter(jobs)
        running = distributed.as_completed(loop=self.client.loop)
        waiting: set[Any] = set()  # submitted and not yet taken: cancelled if we stop early
        in_flight = 0

        def refill() -> None:
            # Submitted in groups (one message to the scheduler for many tasks): a task
            # submitted alone costs the client and the scheduler several times more.
            nonlocal in_flight
            batch = list(islice(it, window - in_flight))
            if batch:
                for future in self.client.map(fn, batch, pure=False):
                    running.add(future)
                    waiting.add(future)
                in_flight += len(batch)

        refill()
        try:
            for future in running:
                waiting.discard(future)
                result = self._result(future)
                future.release()
                in_flight -= 1
                if in_flight <= window // 2:
                    refill()
                yield result
        finally:
            # Stopped early (an error, or the caller gave up): cancel what is left.
            if waiting:
                self.client.cancel(list(waiting))

    def run_everywhere(self, fn: Callable[[], Any]) -> dict[str, Any]:
        """``fn()`` once in every worker process, on its event loop (quick checks)."""
        return self.client.run(fn)

    def run_in_task_threads(self, fn: Callable[[], Any], timeout: float = 60.0) -> dict[str, Any]:
        """``fn()`` once on every worker as a task, in the thread that runs its tasks (so
        it may close what tasks opened: an SQLite connection belongs to its thread). A
        worker that left meanwhile is passed over (a new one starts with nothing)."""
        futures = {w: self.client.submit(fn, workers=[w], allow_other_workers=False, pure=False)
                   for w in self.workers()}
        deadline = time.monotonic() + timeout
        done: dict[str, Any] = {}
        for worker, future in futures.items():
            try:
                done[worker] = future.result(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                future.cancel()
        return done

    # -- closing -----------------------------------------------------------------------

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.local is not None:
                self.local.close()
                self.local = None
            if self._settings is not None:
                self._settings.__exit__(None, None, None)
                self._settings = None

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ReplayPool:
    """The cluster as the replay's pool: tasks through ``apply_async``, and the workers'
    caches of log files and read connections dropped before and after the run (they
    outlive it, unlike a pool's processes). ``reads_database`` says whether the workers
    may recognise stored hands in the database file (same machine only). ``paths``: the
    logs, which every worker must see at the same path (checked on entering)."""

    def __init__(self, cluster: Cluster, paths: Iterable[str | os.PathLike] = ()) -> None:
        self.cluster = cluster
        self.reads_database = cluster.shares_files
        self.paths = [os.path.realpath(p) for p in paths]

    def __enter__(self) -> ReplayPool:
        from agent.play.offline.replay import forget_files

        if self.paths:
            seen = self.cluster.run_everywhere(partial(_missing, self.paths))
            for worker, missing in sorted(seen.items()):
                if missing:
                    raise ClusterError(f"worker {worker} cannot see {missing[0]}: the logs must be at the same "
                                       "path on every worker (a shared or copied folder)")
        # Workers outlive a run: log files read before may have changed since, and a
        # database file at the same path may be another file now.
        self.cluster.run_in_task_threads(forget_files)
        return self

    def __exit__(self, *exc: object) -> None:
        from agent.play.offline.replay import forget_files

        try:
            self.cluster.run_in_task_threads(forget_files)
        except Exception:  # noqa: BLE001 - a cluster gone by now has nothing to forget
            pass

    def apply_async(self, fn: Callable[..., Any], args: tuple = ()) -> _Handle:
        return self.cluster.apply_async(fn, args)


def _missing(paths: list[str]) -> list[str]:
    """Those of ``paths`` this process cannot see (run on the workers)."""
    return [p for p in paths if not os.path.exists(p)]

