"""`poki acpc deal` and `poki acpc play` as a user runs them: two real processes talking
over loopback, then the nasty command lines."""
from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import main
from connectors.logs import acpc_log

ROOT = str(Path(__file__).resolve().parents[1])


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


@pytest.fixture
def procs():
    started = []

    def start(*args, cwd):
        p = subprocess.Popen([sys.executable, "-m", "agent.cli", *args], cwd=cwd, env=_env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        started.append(p)
        return p

    yield start
    for p in started:
        if p.poll() is None:
            p.kill()
        p.communicate(timeout=30)


def test_deal_and_play_in_two_processes(procs, tmp_path):
    hands = 40
    dealer = procs("acpc", "deal", "--players", "hero", "bot", "--seat", "bot=rr(trials=50)",
                   "--hands", str(hands), "--seed", "9", "--log", "match.log", "--no-progress",
                   cwd=tmp_path)
    first = dealer.stdout.readline()
    port = int(first.split()[0])  # the first line: the port of the remote seat
    client = procs("acpc", "play", "127.0.0.1", str(port), "--player", "call", "--name", "hero",
                   "--opponents", "bot", "--db", "hero.sqlite", "--no-progress", cwd=tmp_path)
    out, err = client.communicate(timeout=120)
    assert client.returncode == 0, err
    d_out, d_err = dealer.communicate(timeout=60)
    assert dealer.returncode == 0, d_err
    assert f"{hands} hands played as hero" in out and "sb/hand ±" in out
    score = [line for line in d_out.splitlines() if line.startswith("SCORE:")][0]
    log = (tmp_path / "match.log").read_text().splitlines()
    assert log[-1] == score
    parsed = acpc_log.parse_score(score)
    totals = dict(zip(parsed.players, parsed.totals))
    # The client's stored hands carry the same result as the dealer's score.
    with sqlite3.connect(tmp_path / "hero.sqlite") as conn:
        rows = dict(conn.execute("SELECT a.nick, SUM(r.won - r.put_in) FROM results r JOIN aliases a "
                                 "ON a.player = r.player GROUP BY a.nick").fetchall())
        stored = conn.execute("SELECT COUNT(*) FROM hands").fetchone()[0]
    assert stored == hands
    assert rows == {"hero": totals["hero"], "bot": totals["bot"]}
    net = totals["hero"]
    assert f"{net / 10 / hands:+.3f} sb/hand" in out


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this system")
def test_both_sides_kept_on_one_cpu(procs, tmp_path):
    cpu = max(os.sched_getaffinity(0))
    dealer = procs("acpc", "deal", "--players", "hero", "bot", "--seat", "bot=call", "--hands", "30",
                   "--seed", "3", "--cpu", str(cpu), "--no-progress", cwd=tmp_path)
    port = int(dealer.stdout.readline().split()[0])
    # Asked of the kernel while the dealer waits for its player, not of our own code.
    assert os.sched_getaffinity(dealer.pid) == {cpu}
    client = procs("acpc", "play", "127.0.0.1", str(port), "--player", "call", "--name", "hero",
                   "--no-db", "--cpu", str(cpu), "--no-progress", cwd=tmp_path)
    out, err = client.communicate(timeout=120)
    assert client.returncode == 0, err
    assert "30 hands played as hero" in out
    assert dealer.wait(timeout=60) == 0


def test_deal_with_every_seat_in_process(tmp_path, capsys):
    log = tmp_path / "m.log"
    assert main(["acpc", "deal", "--players", "poki", "rr", "call", "--seat", "poki",
                 "--seat", "rr(trials=50)", "--seat", "call", "--hands", "12", "--seed", "4",
                 "--log", str(log), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("SCORE:")
    assert len([line for line in log.read_text().splitlines() if line.startswith("STATE:")]) == 12
    assert log.read_text().startswith("# name/game/hands/seed poki holdem.limit.3p.game 12 4")


@pytest.mark.parametrize("argv, message", [
    (["acpc", "deal", "--players", "a", "b", "--seat", "c=call"], "no seat named 'c'"),
    (["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "a=raise"], "given twice"),
    (["acpc", "deal", "--players", "a", "b", "--seat", "a=nobody"], "unknown player"),
    (["acpc", "deal", "--players", "a", "b", "--game", "no/such.game"], "no such game definition"),
    (["acpc", "deal", "--players", "a", "b", "c", "--game", "holdem.limit.2p.reverse_blinds.game",
      "--seat", "a=call", "--seat", "b=call", "--seat", "c=call"], "for 2 players"),
    (["acpc", "play", "127.0.0.1", "1", "--player", "nobody"], "unknown player"),
    (["acpc", "play", "127.0.0.1", "1", "--opponents", "x", "y"], "opponent names"),
    (["acpc", "deal", "--players", "a", "b", "--cpu", "100000"], "--cpu 100000: this process may run on CPUs"),
    (["acpc", "play", "127.0.0.1", "1", "--cpu", "-1"], "--cpu -1: this process may run on CPUs"),
])
def test_bad_command_lines(argv, message, capsys):
    assert main(argv) in (1, 2)
    assert message in capsys.readouterr().err


def test_play_with_no_dealer_listening(tmp_path, capsys):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nobody listens there now
    assert main(["acpc", "play", "127.0.0.1", str(port), "--no-db", "--player", "call"]) == 1
    assert "cannot connect" in capsys.readouterr().err


def test_a_bad_game_file(tmp_path, capsys):
    game = tmp_path / "nl.game"
    game.write_text("GAMEDEF\nnolimit\nnumPlayers = 2\nEND GAMEDEF\n")
    assert main(["acpc", "deal", "--players", "a", "b", "--game", str(game)]) == 2
    assert "only limit games" in capsys.readouterr().err


def test_a_database_that_cannot_be_opened(tmp_path, capsys):
    bad = tmp_path / "not.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    assert main(["acpc", "play", "127.0.0.1", "1", "--player", "call", "--db", str(bad)]) == 1
    assert "not an SQLite database" in capsys.readouterr().err
    assert bad.read_bytes() == b"this is not a database" * 100  # left as it was


def test_the_acpc_settings():
    from agent.config import AcpcConfig, ConfigError, load_config, parse_config

    shipped = load_config(Path(ROOT) / "config.toml")
    assert shipped.acpc == AcpcConfig()  # the file states the built-in defaults
    parsed = parse_config({"acpc": {"decision_deadline": 2, "host": "0.0.0.0", "connect_timeout": 0}})
    assert parsed.acpc.decision_deadline == 2.0 and parsed.acpc.host == "0.0.0.0"
    for bad in ({"decision_deadline": 0}, {"hand_budget": -1}, {"response_timeout": "soon"},
                {"connect_timeout": -5}, {"host": ""}, {"max_line_bytes": 10}, {"port": 1}):
        with pytest.raises(ConfigError, match="acpc"):
            parse_config({"acpc": bad})
