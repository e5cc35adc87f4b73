"""`poki replay` over hostile folders and files: link loops, links to the same file,
paths past the system's limit, nesting that would exhaust the parser's stack, garbage
in every format; each a clear problem or a correct result, never a hang, a traceback
or memory that grows with the garbage (connectors.logs.bounded, connectors.logs.sources).
A killed replay resuming to the same database is tests/test_replay.py's."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from faults import stored_hands as _stored

from agent.cli import main
from agent.play.offline.replay import ReplayOptions, replay

REPO = Path(__file__).resolve().parents[1]
HANDS = 12


@pytest.fixture(scope="module")
def acpc_log(tmp_path_factory) -> Path:
    """A real ACPC log of HANDS hands from our dealer (two in-process house bots)."""
    folder = tmp_path_factory.mktemp("log")
    log = folder / "match.log"
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=raise",
                 "--hands", str(HANDS), "--seed", "3", "--log", str(log), "--no-progress"]) == 0
    return log




def test_finding3_a_folder_linking_to_itself_twice_is_read_once(acpc_log, tmp_path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "match.log").write_bytes(acpc_log.read_bytes())
    os.symlink(".", logs / "again")
    os.symlink("..", logs / "up")  # the folder above, which holds this one
    os.symlink(logs, logs / "absolute")
    summary = replay([tmp_path], ReplayOptions(db_path=tmp_path / "r.sqlite"))
    assert summary.stored == HANDS and summary.hands == HANDS + summary.skipped
    loops = [p for p in summary.problems if p.category == "link-loop"]
    assert len(loops) == 3 and all("already read" in p.reason for p in loops)
    assert summary.skipped == 3


def test_finding3_links_to_one_file_read_it_once(acpc_log, tmp_path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.log").write_bytes(acpc_log.read_bytes())
    for k in range(40):
        os.symlink(logs / "a.log", logs / f"link{k:02d}.log")
    summary = replay([logs, logs / "a.log"], ReplayOptions(db_path=tmp_path / "r.sqlite"))
    assert summary.stored == HANDS and summary.hands == HANDS and summary.duplicates == 0


def test_a_path_that_is_a_link_loop_is_a_problem_not_a_crash(acpc_log, tmp_path, capsys) -> None:
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    shutil_copy = tmp_path / "match.log"
    shutil_copy.write_bytes(acpc_log.read_bytes())
    assert main(["replay", str(tmp_path), "--db", str(tmp_path / "r.sqlite"), "--no-progress"]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "unreadable" in out.out
    assert _stored(tmp_path / "r.sqlite") == HANDS


def _deep_folder(top: Path, depth_chars: int) -> Path:
    """A chain of folders under ``top`` whose full path is longer than ``depth_chars``,
    made through directory descriptors (the path itself is too long to use); returns the
    relative path of the chain."""
    name = "d" * 200
    fd = os.open(top, os.O_RDONLY)
    parts = []
    try:
        while len(str(top)) + sum(len(p) + 1 for p in parts) <= depth_chars:
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
            parts.append(name)
        # A log at the bottom, where no path can reach it.
        out = os.open("deep.log", os.O_WRONLY | os.O_CREAT, dir_fd=fd)
        os.write(out, b"STATE:0:f:AsKs|QsJs:-5|5:a|b\n")
        os.close(out)
    finally:
        os.close(fd)
    return Path(*parts)


def test_finding3_a_path_past_the_system_limit_is_reported(acpc_log, tmp_path, capsys) -> None:
    (tmp_path / "match.log").write_bytes(acpc_log.read_bytes())
    _deep_folder(tmp_path, os.pathconf("/", "PC_PATH_MAX") + 100)
    assert main(["replay", str(tmp_path), "--db", str(tmp_path / "r.sqlite"), "--no-progress"]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    assert "unreadable" in out.out and "too long" in out.out
    assert _stored(tmp_path / "r.sqlite") == HANDS


def _phhs_hand(key: str) -> str:
    return textwrap.dedent(f"""\
        [{key}]
        variant = 'FT'
        antes = [0, 0]
        blinds_or_straddles = [5, 10]
        small_bet = 10
        big_bet = 20
        starting_stacks = [1000, 1000]
        actions = ['d dh p1 AsKs', 'd dh p2 QsJs', 'p2 f']
        players = ['a', 'b']
        """)


def test_finding3_nested_arrays_in_a_phhs_are_a_problem_and_resume_works(tmp_path, capsys) -> None:
    phhs = tmp_path / "nested.phhs"
    bomb = "[bomb]\nvariant = 'FT'\nactions = " + "[" * 400_000 + "\n"
    phhs.write_text(_phhs_hand("h1") + bomb + _phhs_hand("h2"))
    db = tmp_path / "r.sqlite"
    for _ in range(2):  # and a second run (a resume) over the same file
        assert main(["replay", str(phhs), "--db", str(db), "--no-progress"]) == 0
        out = capsys.readouterr()
        assert "Traceback" not in out.err and "nested more than" in out.out
    assert _stored(db) == 2


def _peak_rss_mb(args: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    """Peak resident memory of ``poki ARGS`` in MB: the command runs as the only child of
    a small Python process that reads its children's peak from the kernel."""
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True, text=True);"
             "print(p.returncode); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);"
             "sys.stderr.write(p.stdout + p.stderr)")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "agent.cli", *args],
                          capture_output=True, text=True, cwd=cwd, env=env)
    code, kib = proc.stdout.split()
    return int(kib) / 1024, subprocess.CompletedProcess(args, int(code), "", proc.stderr)


GARBAGE_MB = 32


def _garbage(path: Path, size_mb: int, head: bytes = b"") -> None:
    """Random bytes in short lines (a line end every 32 bytes on average: the most lines,
    and so the most problems, a size can hold in practice)."""
    import numpy as np

    rng = np.random.default_rng(26)
    with open(path, "wb") as f:
        f.write(head)
        for _ in range(size_mb):
            block = np.frombuffer(rng.bytes(1 << 20), dtype=np.uint8).copy()
            block[block < 8] = 10  # '\n'
            f.write(block.tobytes())


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["acpc", "phhs", "irc"])
def test_finding3_garbage_in_every_format_costs_bounded_memory(fmt, tmp_path) -> None:
    """32 MB of random bytes in a log of each format: the replay reports them (a run of
    unusable lines as one problem) and exits 0, with a peak memory that does not grow
    with the garbage (it grew with it: 400-800 MB for these files before)."""
    if fmt == "acpc":
        target = tmp_path / "g.log"
        _garbage(target, GARBAGE_MB, b"# name/game/hands/seed g holdem.limit.2p.reverse_blinds.game 1 0\n")
    elif fmt == "phhs":
        target = tmp_path / "g.phhs"
        _garbage(target, GARBAGE_MB)
    else:
        target = tmp_path / "holdem" / "199901"
        (target / "pdb").mkdir(parents=True)
        _garbage(target / "hdb", GARBAGE_MB // 2)
        _garbage(target / "hroster", GARBAGE_MB // 4)
        _garbage(target / "pdb" / "pdb.junk", GARBAGE_MB // 4)
    peak, proc = _peak_rss_mb(["replay", str(target), "--db", str(tmp_path / "g.sqlite"), "--workers", "1",
                               "--no-progress"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr and "malformed" in proc.stderr
    assert peak < 300, f"peak {peak:.0f} MB"


def test_a_worker_that_dies_mid_chunk_is_an_error_naming_the_chunk_not_a_hang(acpc_log) -> None:
    """multiprocessing's pool never answers for a task whose worker died (the out-of-memory
    killer): the replay's wait for each chunk has a limit, and the error names the chunk."""
    from collections import deque

    from agent.play.offline.replay import ReplayWorkerError, _pool_context, _pool_results
    from connectors.logs.sources import Chunk

    chunk = Chunk(kind="acpc", path=str(acpc_log), start=0, stop=10, network="acpc", units=10)
    with _pool_context().Pool(1) as pool:
        dying = pool.apply_async(os._exit, (9,))  # the worker ends without a result
        with pytest.raises(ReplayWorkerError) as caught:
            list(_pool_results(pool, deque([(chunk, dying)]), iter(()), (None, 0), wait=3))
    said = str(caught.value)
    assert "3 s" in said and str(acpc_log) in said and "units 0-10" in said and "resumes" in said


def test_a_poki_irc_command_puts_the_sigterm_handler_back(tmp_path) -> None:
    """`poki irc` makes SIGTERM stop it as Ctrl-C does; run inside a longer-lived process
    (a test worker) the handler must not outlive the command: processes forked later would
    inherit it (a replay's pool worker that kept it hung Pool.terminate in CI)."""
    import signal

    from agent.cli import main

    log = tmp_path / "channel.log"
    log.write_text("nothing dealt here\n")
    before = signal.getsignal(signal.SIGTERM)
    main(["irc", "verify", str(log)])
    assert signal.getsignal(signal.SIGTERM) is before
