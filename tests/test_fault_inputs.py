"""Issue 39: one way to open an input (agent.inputs). A FIFO, socket or device is refused
by name and never opened for reading; every read is bounded while it happens; a room
reader's refusal of a file is that file's problem, never the run's.

Each command that could hang runs in a child process with a time limit: on the code
before agent.inputs it blocked forever (a FIFO opened for reading waits for a writer),
so the limit is what fails the test."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from faults import stored_hands as _stored

from agent.cli import main
from agent.inputs import NotAFile, open_input, read_bounded
from agent.play.offline.replay import ReplayOptions, replay

from shared_data import FPDB_LHE

REPO = Path(__file__).resolve().parents[1]
HANDS = 6
LIMIT = 120  # seconds a child may take; a hang on the old code runs into it


def _poki(args: list[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "agent.cli", *args], capture_output=True, cwd=cwd, env=env,
                          timeout=LIMIT, input=stdin)


@pytest.fixture(scope="module")
def acpc_log(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("log")
    log = folder / "match.log"
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=raise",
                 "--hands", str(HANDS), "--seed", "5", "--log", str(log), "--no-progress"]) == 0
    return log


def test_open_input_refuses_each_kind_by_name(tmp_path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    try:
        for path, says in ((fifo, "named pipe"), (tmp_path / "sock", "socket"), (Path("/dev/zero"), "character device"),
                           (tmp_path / "zero.phhs", "character device")):
            if path.name == "zero.phhs":
                os.symlink("/dev/zero", path)  # links are followed: the device behind is refused
            with pytest.raises(NotAFile) as err:
                open_input(path)
            assert says in str(err.value) and str(path) in str(err.value)
    finally:
        sock.close()
    with pytest.raises(IsADirectoryError):
        open_input(tmp_path)
    (tmp_path / "f").write_bytes(b"x" * 11)
    assert open_input(tmp_path / "f").read() == b"x" * 11
    with pytest.raises(ValueError, match="larger than 10 bytes"):
        read_bounded(tmp_path / "f", 10, "a test")


def test_finding2_a_fifo_and_a_device_link_in_a_replayed_folder_are_problems(acpc_log, tmp_path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(acpc_log, logs / "match.log")
    os.mkfifo(logs / "zz-any-name")  # sniffed for its format: it was opened and waited on
    os.symlink("/dev/zero", logs / "endless.phhs")
    proc = _poki(["replay", str(logs), "--db", str(tmp_path / "r.sqlite"), "--no-progress"], tmp_path)
    out = proc.stdout.decode() + proc.stderr.decode()
    assert proc.returncode == 0, out
    assert "Traceback" not in out
    assert "zz-any-name" in out and "named pipe" in out
    assert "endless.phhs" in out and "character device" in out
    assert _stored(tmp_path / "r.sqlite") == HANDS


def test_finding2_a_fifo_named_on_the_command_line_is_refused(acpc_log, tmp_path) -> None:
    fifo = tmp_path / "pipe.log"
    os.mkfifo(fifo)
    proc = _poki(["replay", str(fifo), str(acpc_log), "--db", str(tmp_path / "r.sqlite"), "--no-progress"], tmp_path)
    assert proc.returncode == 0 and b"named pipe" in proc.stdout
    assert _stored(tmp_path / "r.sqlite") == HANDS


@pytest.mark.parametrize("command", [["match", "call", "raise", "--deals", "1", "--no-progress"],
                                     ["db", "stats"]])
def test_finding2_config_fifo_is_exit_2(tmp_path, command) -> None:
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    proc = _poki(["--config", str(fifo), *command], tmp_path)
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert str(fifo) in err and "named pipe" in err and "Traceback" not in err


def test_finding2_password_file_fifo_is_refused_before_connecting(tmp_path) -> None:
    fifo = tmp_path / "secret"
    os.mkfifo(fifo)
    proc = _poki(["irc", "play", "--server", "127.0.0.1:1", "--password-file", str(fifo), "--db", str(tmp_path / "p.sqlite")], tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert str(fifo) in err and "named pipe" in err and "Traceback" not in err


@pytest.mark.parametrize("device", ["fifo", "/dev/zero"])
def test_finding2_irc_verify_refuses_fifos_and_devices(tmp_path, device) -> None:
    path = tmp_path / "channel.log"
    if device == "fifo":
        os.mkfifo(path)
    else:
        path = Path(device)
    proc = _poki(["irc", "verify", str(path)], tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert str(path) in err and "not a regular file" in err and "Traceback" not in err


def test_finding7_irc_verify_caps_a_line_while_reading(tmp_path) -> None:
    """One line of 256 MB without a line end: held whole, it cost its size twice over; read
    in bounded blocks, the peak stays near the interpreter's own."""
    log = tmp_path / "channel.log"
    block = b"x" * (1 << 20)
    with open(log, "wb") as f:
        for _ in range(256):
            f.write(block)
    probe = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True);"
             "print(p.returncode); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "agent.cli", "irc", "verify", str(log)],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=LIMIT)
    code, kib = proc.stdout.split()
    assert int(code) == 1  # no revealed deck in it
    assert int(kib) / 1024 < 150, f"peak {int(kib) / 1024:.0f} MB"


IPOKER_REFUSED = {
    "doctype": b'<?xml version="1.0"?>\n<!DOCTYPE session [<!ENTITY a "aaaa">]>\n'
               b'<session sessioncode="1"><game gamecode="1">&a;</game></session>\n',
    "deep": b'<session sessioncode="1"><game gamecode="1">' + b"<a>" * 40 + b"</a>" * 40 + b"</game></session>\n",
}


@pytest.mark.skipif(FPDB_LHE is None, reason="the online rooms' hand histories are not here")
@pytest.mark.parametrize("hostile", sorted(IPOKER_REFUSED))
def test_finding1_a_refused_ipoker_file_is_its_own_problem(tmp_path, hostile) -> None:
    """The six rooms' real files plus one iPoker XML the reader refuses: every real hand is
    stored as without it, the refused file is one problem, and a resume does the same."""
    rooms = tmp_path / "rooms"
    shutil.copytree(FPDB_LHE, rooms)
    alone = replay([rooms], ReplayOptions(db_path=tmp_path / "alone.sqlite"))
    assert alone.stored > 0
    (rooms / "zz-hostile.xml").write_bytes(IPOKER_REFUSED[hostile])
    db = tmp_path / "r.sqlite"
    for _ in range(2):  # the second run resumes
        proc = _poki(["replay", str(rooms), "--db", str(db), "--no-progress"], tmp_path)
        out = proc.stdout.decode() + proc.stderr.decode()
        assert proc.returncode == 0, out
        assert "Traceback" not in out and "zz-hostile.xml" in out
    assert _stored(db) == alone.stored


def test_lower_a_link_loop_named_on_the_command_line_is_a_link_loop_problem(acpc_log, tmp_path, capsys) -> None:
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    assert main(["replay", str(tmp_path / "loop"), str(acpc_log), "--db", str(tmp_path / "r.sqlite"),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "link-loop" in out
    assert _stored(tmp_path / "r.sqlite") == HANDS


def test_train_cfr_resume_from_a_fifo_is_refused(tmp_path) -> None:
    fifo = tmp_path / "run.ckpt"
    os.mkfifo(fifo)
    proc = _poki(["train-cfr", "--resume", str(fifo), "--out", str(tmp_path / "s.npz"), "--no-progress"], tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "named pipe" in err and "Traceback" not in err
