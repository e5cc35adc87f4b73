"""The database between processes: a writer killed with SIGKILL mid-run leaves whole
hands only and resumes where it stopped; a reader sees consistent states while a writer
writes."""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from db import Database

REPO = Path(__file__).resolve().parents[1]
SEED = 77
HALF_LIFE = 60.0

WRITER = f"""
import sys, time
from pathlib import Path
from db import Database
from agent.bench.synthetic import synthetic_hands

path, count, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
hands = list(synthetic_hands(count, seed={SEED}, min_players=2, max_players=10))
with Database(path, half_life={HALF_LIFE}) as db:
    if len(sys.argv) > 4:  # write up to pause_at, then wait for the gate file
        gate, pause_at = Path(sys.argv[4]), int(sys.argv[5])
        report = db.write_hands(hands[:pause_at], "irc", batch_hands=batch)
        for _ in range(60000):
            if gate.exists():
                break
            time.sleep(0.005)
        else:
            sys.exit("the gate never opened")
        report.add(db.write_hands(hands[pause_at:], "irc", batch_hands=batch))
    else:
        report = db.write_hands(hands, "irc", batch_hands=batch)
print(report.stored, report.duplicates, len(report.rejected))
"""

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")


def _writer(tmp_path: Path, *args: object) -> subprocess.Popen:
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, str(script), *map(str, args)], cwd=REPO, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def _finish(proc: subprocess.Popen) -> list[int]:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    return [int(x) for x in out.split()]


def _hand_count(path: Path) -> int:
    """Hands committed so far, read through a connection of its own (0 before the
    writer has made the schema)."""
    if not path.exists():
        return 0
    conn = sqlite3.connect(path, timeout=30)
    try:
        return conn.execute("SELECT count(*) FROM hands").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def _contents(path: Path) -> dict[str, list]:
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        out = {t: sorted(conn.execute(f"SELECT * FROM [{t}]").fetchall(), key=repr) for t in tables if t != "_sqlite_migrations"}
        out["_sqlite_migrations"] = conn.execute("SELECT migration_set, name FROM _sqlite_migrations ORDER BY id").fetchall()
    conn.close()
    return out


@pytest.mark.slow
def test_a_writer_killed_mid_run_leaves_whole_hands_and_resumes(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite"
    total, batch = 6000, 20
    proc = _writer(tmp_path, path, total, batch)
    for _ in range(40000):  # a bounded wait for the writer to have committed some hands
        if _hand_count(path) >= 400 or proc.poll() is not None:
            break
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL, "the writer finished before it could be killed"

    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        ids = [r[0] for r in conn.execute("SELECT hand_id FROM hands ORDER BY seq")]
    conn.close()
    stored = len(ids)
    assert 0 < stored < total and stored % batch == 0
    assert ids == [f"syn{SEED}-{i}" for i in range(stored)]  # whole groups, in order
    with Database(path, create=False) as database:
        # every hand whole (seats, actions, results, showdowns all there), chips
        # balancing, models equal to a recomputation
        assert database.check() == []

    assert _finish(_writer(tmp_path, path, total, batch)) == [total - stored, stored, 0]
    fresh = tmp_path / "fresh.sqlite"
    assert _finish(_writer(tmp_path, fresh, total, batch)) == [total, 0, 0]
    assert _contents(path) == _contents(fresh)
    with Database(path, create=False) as database:
        assert database.check() == []


@pytest.mark.slow
def test_a_reader_sees_consistent_states_while_a_writer_writes(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    gate = tmp_path / "gate"
    total, batch, pause_at = 2400, 8, 800
    proc = _writer(tmp_path, path, total, batch, gate, pause_at)
    for _ in range(40000):
        if _hand_count(path) > 0 or proc.poll() is not None:
            break
        time.sleep(0.005)
    seen: list[int] = []
    with Database(path, create=False) as reader:
        nick = f"p{SEED}_0"
        for _ in range(100000):
            running = proc.poll() is None
            with reader.snapshot():
                # everything below reads one committed state
                seen.append(reader.hand_count())
                assert reader.check(integrity=False) == [], f"after {seen[-1]} hands"
                pid = reader.player_id(nick, "irc")
                if pid is not None:
                    fresh = reader.recomputed_states()[pid].snapshot(nick, "irc", reader.decay)
                    assert reader.get(nick, "irc") == fresh
            if seen[-1] >= pause_at and not gate.exists():
                gate.touch()  # the writer goes on only after a state mid-run was checked
            if not running:
                break
        assert _finish(proc) == [total, 0, 0]
        assert reader.check() == []
        assert reader.hand_count() == total
    assert seen == sorted(seen)
    assert any(0 < n < total for n in seen)
