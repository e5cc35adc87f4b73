"""Matches and replays on a Dask cluster (agent.play.offline.cluster): a LocalCluster of two worker
processes on loopback gives the results, logs and database of a run in one process, also
when a worker is killed mid-run, and a replay interrupted part-way resumes on the cluster
to the serial database; Dask is imported only with --cluster; bad addresses, a scheduler
that does not answer, a cluster without workers, workers with other settings and a
missing Dask install are clear errors."""
from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from agent.config import TableConfig
from agent.play.offline.replay import ReplayOptions, replay
from agent.play.offline.tournament import TournamentSetup, run_tournament

from helpers.references import reference_package
from helpers.tiers import full_tier
from shared_data import DATA

REPO = Path(__file__).resolve().parents[1]
TABLES = ("meta", "players", "aliases", "hands", "seats", "actions", "showdowns", "results", "models")
SPECS = ("rr(trials=100)", "random", "loose-aggressive(trials=100)", "call")
needs_logs = pytest.mark.skipif(DATA is None, reason="the shared IRC logs are not there")


def contents(path: Path) -> dict[str, list]:
    """Every row of the Poki tables (not the migrations log, which holds timestamps)."""
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM [{t}] ORDER BY 1, 2").fetchall() for t in TABLES}
    finally:
        conn.close()


def run_python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("POKI_CONFIG", None)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def free_port() -> int:
    """A loopback port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------- without a cluster


def test_dask_is_imported_only_with_cluster(tmp_path) -> None:
    code = (
        "import sys\n"
        "from agent.cli import build_parser, main\n"
        "build_parser()\n"
        "rc = main(['match', 'rr', 'call', '--deals', '6', '--chunk', '2', '--workers', '2', '--no-progress'])\n"
        "assert rc == 0, rc\n"
        "rc = main(['replay', sys.argv[1], '--db', sys.argv[2], '--workers', '1', '--no-progress'])\n"
        "assert rc == 0, rc\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'))\n"
        "print('LOADED', loaded)\n"
    )
    log = tmp_path / "hands.phhs"
    setup = TournamentSetup.from_text(("call", "raise"), TableConfig(seats=2), 4, chunk=5)
    phh_dir = tmp_path / "phh"
    run_tournament(setup, 5, log_phh=phh_dir)
    log.write_text("".join(p.read_text() for p in sorted(phh_dir.iterdir())))
    out = run_python(code, str(log), str(tmp_path / "x.sqlite"))
    assert out.returncode == 0, out.stderr
    assert "LOADED []" in out.stdout


def test_missing_dask_names_the_extra() -> None:
    code = (
        "import sys\n"
        "sys.modules['distributed'] = None  # as if Dask were not installed\n"
        "from agent.cli import main\n"
        "sys.exit(main(['match', 'rr', 'call', '--deals', '4', '--cluster', 'local', '--no-progress']))\n"
    )
    out = run_python(code)
    assert out.returncode == 2, out.stderr
    assert "poki[cluster]" in out.stderr and "not installed" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("text, expected", [
    ("local", "local"), (" LOCAL ", "local"),
    ("127.0.0.1:8786", "tcp://127.0.0.1:8786"), ("tcp://sched.example:8786", "tcp://sched.example:8786"),
    ("tls://10.0.0.5:8786", "tls://10.0.0.5:8786"), ("tcp://[::1]:8786", "tcp://[::1]:8786"),
])
def test_good_addresses(text, expected) -> None:
    from agent.play.offline.cluster import parse_address

    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", "localhost", "http://x:80", "tcp://host", "tcp://host:0",
                                  "tcp://host:70000", "tcp://a b:1", "tcp://host:12:34", "inproc://x:1"])
def test_bad_addresses(text) -> None:
    from agent.play.offline.cluster import ClusterError, parse_address

    with pytest.raises(ClusterError, match="not a cluster address"):
        parse_address(text)


def test_cli_errors_are_clear(capsys, tmp_path) -> None:
    reference_package("distributed")
    from agent.cli import main

    assert main(["match", "rr", "call", "--deals", "4", "--cluster", "http://x:1", "--no-progress"]) == 2
    assert "not a cluster address: 'http://x:1'" in capsys.readouterr().err
    port = free_port()
    start = time.monotonic()
    assert main(["replay", str(REPO / "README.md"), "--db", str(tmp_path / "x.sqlite"), "--cluster",
                 f"127.0.0.1:{port}", "--cluster-timeout", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"no Dask scheduler answered at tcp://127.0.0.1:{port}" in err and "dask scheduler" in err
    assert time.monotonic() - start < 60  # a hang guard, not a speed limit
    assert main(["match", "rr", "call", "--cluster", "tcp://127.0.0.1:8786", "--workers", "2",
                 "--no-progress"]) == 2
    assert "--workers sizes a local cluster only" in capsys.readouterr().err
    assert main(["match", "rr", "call", "--cluster", "local", "--db", str(tmp_path / "y.sqlite"),
                 "--no-progress"]) == 2
    assert "--db plays the batches in order" in capsys.readouterr().err


def test_a_scheduler_without_workers_is_an_error() -> None:
    distributed = reference_package("distributed")
    from agent.play.offline import cluster as cl

    empty = distributed.LocalCluster(n_workers=0, processes=True, host="127.0.0.1", dashboard_address=None)
    try:
        with pytest.raises(cl.ClusterError, match="has no workers"):
            cl.Cluster.open(empty.scheduler_address, timeout=10, workers_timeout=1)
    finally:
        empty.close()


def test_workers_with_several_threads_are_refused() -> None:
    distributed = reference_package("distributed")
    from agent.play.offline import cluster as cl

    threaded = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1",
                                        dashboard_address=None)
    try:
        with pytest.raises(cl.ClusterError, match="runs 2 threads: .*--nthreads 1"):
            cl.Cluster.open(threaded.scheduler_address, timeout=10)
    finally:
        threaded.close()


# --------------------------------------------------------------------------- on a local cluster


@pytest.fixture(scope="module")
@full_tier
def cluster():
    """A LocalCluster of two single-threaded worker processes on 127.0.0.1, stopped after."""
    reference_package("distributed")
    from agent.play.offline.cluster import Cluster

    c = Cluster.open("local", workers=2)
    nannies = [w["nanny"] for w in c.workers().values()]
    try:
        assert len(nannies) == 2 and all(a.startswith("tcp://127.0.0.1:") for a in nannies)
        yield c
    finally:
        pids = list(c.worker_pids().values())
        c.close()
        # Every worker process is gone (no stray processes after the tests).
        for _ in range(100):
            if not any(pid_alive(p) for p in pids):
                break
            time.sleep(0.1)
        assert not any(pid_alive(p) for p in pids)


def ready(cluster, count: int = 2) -> dict[str, int]:
    """Wait (bounded) until the cluster has ``count`` workers again; their pids."""
    cluster.client.wait_for_workers(count, timeout=120)
    return cluster.worker_pids()


def kill_a_busy_worker(cluster) -> tuple[str, list]:
    """SIGKILL a worker process that is running a task right now: its address and tasks."""
    for _ in range(2000):  # bounded: a busy worker shows up within a few seconds
        busy = {w: keys for w, keys in cluster.client.processing().items() if keys}
        if busy:
            worker, keys = sorted(busy.items())[0]
            pid = cluster.worker_pids()[worker]
            os.kill(pid, signal.SIGKILL)
            return worker, keys
        time.sleep(0.005)
    raise AssertionError("no worker was ever busy")


def _install_kinds(path: str | None) -> None:
    """On a worker: its player registry with the defaults of ``path`` (None: built in)."""
    from agent.config import Config, load_config
    from agent.play.kinds import install_kinds

    install_kinds(load_config(path) if path else Config())


def test_workers_are_checked_against_this_process(cluster, tmp_path) -> None:
    from agent.play.offline.cluster import worker_fingerprint

    prints = cluster.check_workers()
    assert len(prints) == 2 and all(p == worker_fingerprint() for p in prints.values())
    # Settings travel with the tasks (a parsed spec carries every setting of its player):
    # a worker whose registry has other defaults gives the same match.
    other = tmp_path / "other.toml"
    other.write_text("[engine]\nbet_threshold = 0.61\n[model]\nhalf_life_hands = 50\n")
    setup = TournamentSetup.from_text(("poki(bettor=triples)", "rr", "call"), TableConfig(seats=3), 3, chunk=2)
    local = run_tournament(setup, 4, workers=1)
    cluster.run_everywhere(partial(_install_kinds, str(other)))
    try:
        cluster.check_workers()
        remote = run_tournament(setup, 4, cluster=cluster)
    finally:
        cluster.run_everywhere(partial(_install_kinds, None))
    assert np.array_equal(local.hand_chips, remote.hand_chips)


def match_logs(tmp_path: Path, tag: str, setup: TournamentSetup, deals: int, **kw):
    acpc, phh_dir = tmp_path / f"{tag}.log", tmp_path / f"{tag}-phh"
    result = run_tournament(setup, deals, log_acpc=acpc, log_phh=phh_dir, **kw)
    return result, acpc.read_text(), {p.name: p.read_text() for p in sorted(phh_dir.iterdir())}


def assert_same_match(a, b) -> None:
    (ra, acpc_a, phh_a), (rb, acpc_b, phh_b) = a, b
    assert acpc_a == acpc_b and phh_a == phh_b
    assert np.array_equal(ra.hand_chips, rb.hand_chips) and np.array_equal(ra.hand_seats, rb.hand_seats)
    assert ra.invalid_actions == rb.invalid_actions
    assert [s.sb_per_hand for s in ra.summary()] == [s.sb_per_hand for s in rb.summary()]


def test_a_match_on_the_cluster_is_the_one_process_match(cluster, tmp_path) -> None:
    setup = TournamentSetup.from_text(SPECS, TableConfig(seats=4), 11, chunk=4)
    one = match_logs(tmp_path, "one", setup, 30)
    on_cluster = match_logs(tmp_path, "cluster", setup, 30, cluster=cluster)
    assert_same_match(one, on_cluster)
    # The cards depend on the seed: another seed is another match (the comparison can fail).
    other = match_logs(tmp_path, "other", TournamentSetup.from_text(SPECS, TableConfig(seats=4), 12, chunk=4), 30,
                       cluster=cluster)
    assert other[1] != one[1]
    # Duplicate play of a zero-sum game: every deal's chips sum to zero, every batch ran.
    assert not on_cluster[0].deal_chips.sum(axis=1).any() and on_cluster[0].hands == 30 * 4


def test_a_worker_killed_mid_match_changes_nothing(cluster, tmp_path) -> None:
    before = ready(cluster)
    setup = TournamentSetup.from_text(SPECS, TableConfig(seats=4), 21, chunk=2)
    one = match_logs(tmp_path, "one", setup, 40)
    killed: list = []

    def progress(hands: int) -> None:
        if not killed:
            killed.append(kill_a_busy_worker(cluster))

    on_cluster = match_logs(tmp_path, "killed", setup, 40, cluster=cluster, progress=progress)
    assert killed and killed[0][1], "no task was lost"
    assert_same_match(one, on_cluster)
    after = ready(cluster)
    assert set(after.values()) != set(before.values())  # the killed worker was replaced


def test_a_replay_of_a_match_on_the_cluster_is_the_serial_replay(cluster, tmp_path) -> None:
    from agent.play.offline.cluster import ReplayPool

    setup = TournamentSetup.from_text(SPECS, TableConfig(seats=4), 5, chunk=10)
    run_tournament(setup, 60, log_phh=tmp_path / "phh")
    serial, parallel = tmp_path / "serial.sqlite", tmp_path / "cluster.sqlite"
    a = replay([tmp_path / "phh"], ReplayOptions(db_path=serial, workers=1, chunk_hands=25))
    with ReplayPool(cluster, [tmp_path / "phh"]) as pool:
        b = replay([tmp_path / "phh"], ReplayOptions(db_path=parallel, workers=2, chunk_hands=25), pool=pool)
    assert a.stored == b.stored == 60 * 4 and b.skipped == 0
    assert contents(serial) == contents(parallel)


def test_workers_that_cannot_see_the_logs_are_named(cluster, tmp_path) -> None:
    from agent.play.offline.cluster import ClusterError, ReplayPool

    with pytest.raises(ClusterError, match="cannot see .*nowhere"):
        with ReplayPool(cluster, [tmp_path / "nowhere"]):
            pass


@pytest.fixture(scope="module")
@full_tier
def serial_db(tmp_path_factory):
    if DATA is None:
        pytest.skip("the shared IRC logs are not there")
    path = tmp_path_factory.mktemp("serial") / "irc.sqlite"
    summary = replay([DATA], ReplayOptions(db_path=path, workers=1))
    return path, summary


@needs_logs
def test_a_worker_killed_mid_replay_changes_nothing(cluster, serial_db, tmp_path) -> None:
    from agent.play.offline.cluster import ReplayPool

    path, serial = serial_db
    before = ready(cluster)
    killed: list = []

    def progress(hands: int) -> None:
        if not killed:
            killed.append(kill_a_busy_worker(cluster))

    out = tmp_path / "cluster.sqlite"
    with ReplayPool(cluster, [DATA]) as pool:
        summary = replay([DATA], ReplayOptions(db_path=out, workers=2, chunk_hands=500), progress=progress,
                         pool=pool)
    assert killed and killed[0][1], "no task was lost"
    # Nothing stored twice: every hand once, and the very database of the serial run.
    assert summary.stored == serial.stored and summary.duplicates == 0
    assert summary.skipped_by_reason == serial.skipped_by_reason
    assert contents(out) == contents(path)
    assert set(ready(cluster).values()) != set(before.values())


class Interrupted(Exception):
    pass


@needs_logs
@pytest.mark.parametrize("reads_database", [True, False])
def test_an_interrupted_replay_resumes_on_the_cluster(cluster, serial_db, tmp_path, reads_database) -> None:
    """Stopped after some chunks (as a crash would), then run again on the cluster: the
    stored hands are recognised (by the workers when they can read the file, else by the
    writer) and the database ends as the serial one."""
    from agent.play.offline.cluster import ReplayPool

    path, serial = serial_db
    ready(cluster)
    out = tmp_path / "resumed.sqlite"
    seen = []

    def stop_after_three(hands: int) -> None:
        seen.append(hands)
        if len(seen) == 3:
            raise Interrupted

    options = ReplayOptions(db_path=out, workers=2, chunk_hands=700, batch_hands=100)
    with ReplayPool(cluster, [DATA]) as pool:
        with pytest.raises(Interrupted):
            replay([DATA], options, progress=stop_after_three, pool=pool)
    conn = sqlite3.connect(out)
    done = conn.execute("SELECT count(*) FROM hands").fetchone()[0]
    conn.close()
    assert 0 < done < serial.stored
    with ReplayPool(cluster, [DATA]) as pool:
        pool.reads_database = reads_database
        summary = replay([DATA], options, pool=pool)
    assert summary.stored == serial.stored - done and summary.duplicates == done
    assert summary.known == (done if reads_database else 0)
    assert contents(out) == contents(path)


# --------------------------------------------------------------------------- a scheduler and a worker as on many machines


def wait_for_port(port: int, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the process ended: {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port} after {seconds} s")


@pytest.fixture()
@full_tier
def remote(tmp_path):
    """`dask scheduler` and `dask worker` processes on 127.0.0.1, as docs/scale.md starts
    them on many machines; both process groups are stopped after."""
    reference_package("distributed")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("POKI_CONFIG", None)
    port = free_port()
    procs = []
    try:
        scheduler = subprocess.Popen(
            [sys.executable, "-m", "dask", "scheduler", "--host", "127.0.0.1", "--port", str(port),
             "--no-dashboard"], cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        procs.append(scheduler)
        wait_for_port(port, scheduler)
        worker = subprocess.Popen(
            [sys.executable, "-m", "dask", "worker", f"tcp://127.0.0.1:{port}", "--nthreads", "1", "--nworkers", "1",
             "--host", "127.0.0.1", "--no-dashboard"], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        procs.append(worker)
        yield f"tcp://127.0.0.1:{port}", scheduler
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(procs):
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
            try:  # the worker's own processes, in its group
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_scheduler_and_a_worker_started_by_hand(remote, tmp_path, capsys) -> None:
    import json

    from agent.cli import main
    from agent.play.offline.cluster import Cluster, ClusterError

    address, scheduler = remote
    common = ["match", *SPECS, "--deals", "24", "--chunk", "3", "--seed", "9", "--json", "--no-progress"]
    assert main(common) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*common, "--cluster", address, "--log-phh", str(tmp_path / "phh")]) == 0
    captured = capsys.readouterr()
    there = json.loads(captured.out)
    assert f"cluster at {address}: 1 worker, 1 threads" in captured.err
    for result in (one, there):
        result.pop("seconds")
    assert there == one
    # A replay on a remote cluster: the workers cannot see the writer's file, so a second
    # run reads every hand again and the writer stores none of them twice.
    db = tmp_path / "remote.sqlite"
    replay_args = ["replay", str(tmp_path / "phh"), "--db", str(db), "--cluster", address, "--json", "--no-progress"]
    assert main(replay_args) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["stored"] == 24 * 4 and first["skipped"] == 0
    before = contents(db)
    assert main(replay_args) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["stored"] == 0 and second["duplicates"] == 24 * 4 and second["already_stored_unread"] == 0
    assert contents(db) == before
    # The scheduler going away mid-run is a clear error, not a hang.
    setup = TournamentSetup.from_text(SPECS, TableConfig(seats=4), 3, chunk=1)

    def lose_the_scheduler(hands: int) -> None:
        if scheduler.poll() is None:
            os.killpg(scheduler.pid, signal.SIGKILL)

    with Cluster.open(address, timeout=10) as cluster:
        start = time.monotonic()
        with pytest.raises(ClusterError, match="lost the scheduler"):
            run_tournament(setup, 200, cluster=cluster, progress=lose_the_scheduler)
        assert time.monotonic() - start < 300  # a hang guard
