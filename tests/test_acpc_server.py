"""Our ACPC dealer (agent.play.acpc.dealer, run by agent.play.acpc.match.host_match) with
players on real loopback sockets (our client, and raw sockets that misbehave) and
in-process seats. Every log is checked hand by hand against the rules engine, replayed
with `poki replay`, and compared across runs of the same seed."""
from __future__ import annotations

import socket
import sqlite3
import threading
import time

import numpy as np
import pytest

from agent.play.acpc.dealer import AcpcDealer, DealerError, DealerLimits
from agent.play.acpc.match import host_match, play_at_dealer
from agent.players import create_player
from connectors.acpc.client import LineFramer

from helpers.acpc import Match, check_log, game_for


class Client(threading.Thread):
    def __init__(self, port, spec, name, game, names=(), seed=0):
        super().__init__(daemon=True)
        self.args = (port, spec, name, game, names, seed)
        self.result = None

    def run(self):
        port, spec, name, game, names, seed = self.args
        player = create_player(spec, np.random.default_rng(seed), name)
        self.result = play_at_dealer("127.0.0.1", port, player, game, names=names, match="c")


def replay_nets(log_path, db_path):
    from agent.cli import main

    assert main(["replay", str(log_path), "--db", str(db_path), "--no-progress"]) == 0
    with sqlite3.connect(db_path) as conn:
        rows = conn.execute("SELECT a.nick, SUM(r.won - r.put_in) FROM results r JOIN aliases a "
                            "ON a.player = r.player GROUP BY a.nick").fetchall()
    return dict(rows)


@pytest.mark.parametrize("n, hands", [(2, 60), (3, 40), (6, 25), (10, 15)])
def test_clients_and_in_process_seats_play_a_match(n, hands, tmp_path):
    names = [f"p{i}" for i in range(n)]
    kinds = ["call", "raise", "random", "call", "rr", "random", "raise", "call", "random", "raise"]
    remote = [i for i in range(n) if i % 2 == 0]  # half the seats connect over TCP
    seats = {i: f"p{i}={kinds[i]}" for i in range(n) if i not in remote}
    log_path = tmp_path / "match.log"
    with open(log_path, "w") as log_file:
        match = Match(n, names, hands, 11, seats, log_file=log_file)
        clients = []
        for port, i in zip(match.ports, remote):
            others = [names[(i + k) % n] for k in range(1, n)]
            clients.append(Client(port, kinds[i], names[i], match.game, others, seed=i))
        for c in clients:
            c.start()
        outcome, local_stats = match.join()
        for c in clients:
            c.join(60)
            assert not c.is_alive()
    assert outcome.hands == hands
    totals = check_log(open(log_path).read().splitlines(), match.game, n, hands, names)
    assert totals == outcome.totals
    assert sum(totals.values()) == 0
    for c, i in zip(clients, remote):
        # The client's own view of its result is the dealer's.
        assert c.result.hands == hands and not c.result.ended_mid_hand
        assert c.result.protocol_errors == 0 and c.result.stats.hands_abandoned == 0
        assert c.result.stats.net_chips == totals[names[i]]
    for i, stats in local_stats.items():
        assert stats.hands == hands and stats.net_chips == totals[names[i]]
    for report in outcome.seats:
        assert report.errors == 0 and not report.disconnected
    assert replay_nets(log_path, tmp_path / "replay.sqlite") == totals


@pytest.mark.slow
def test_the_same_seed_gives_the_same_log_over_sockets_or_in_process():
    n, names, hands = 3, ["a", "b", "c"], 30
    game, game_name = game_for(n)
    kinds = ["call", "raise", "call"]

    def in_process(seed):
        return host_match(game, names, hands, seed, game_name=game_name, match_name="t",
                          seats={i: f"{names[i]}={k}" for i, k in enumerate(kinds)})[0]

    local = in_process(5)
    again = in_process(5)
    assert local.log_lines == again.log_lines
    match = Match(n, names, hands, 5, {})
    clients = [Client(p, k, nm, game) for p, k, nm in zip(match.ports, kinds, names)]
    for c in clients:
        c.start()
    remote, _ = match.join()
    for c in clients:
        c.join(60)
    assert remote.log_lines == local.log_lines
    assert in_process(6).log_lines[1:] != local.log_lines[1:]


class RawPlayer(threading.Thread):
    """A misbehaving program on a raw socket: ``mode`` garbage, sleeper or quitter."""

    def __init__(self, port, mode):
        super().__init__(daemon=True)
        self.port, self.mode = port, mode
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)

    def run(self):
        sock = self.sock
        framer = LineFramer("raw")
        try:
            sock.sendall(b"VERSION:2.0.0\r\n")
            if self.mode == "garbage":
                sock.sendall(b"hello dealer\r\n" + b"z" * (1 << 20) + b"zz\r\n\xff\xfe\r\n")
            seen = 0
            while True:
                data = sock.recv(65536)
                if not data:
                    return
                for line in framer.feed(data):
                    seen += 1
                    if self.mode == "garbage":
                        # Answers every state, its turn or not, with nonsense actions, and
                        # answers a state that never was.
                        sock.sendall(line.encode() + b":x\r\n" + b"MATCHSTATE:9:9::|:c\r\n")
                    elif self.mode == "quitter" and seen >= 12:
                        return
                    # the sleeper reads and never answers
        except OSError:
            pass
        finally:
            sock.close()


def test_misbehaving_players_never_stop_the_match(tmp_path):
    n, hands = 4, 30
    names = ["good", "junk", "sleepy", "quits"]
    limits = DealerLimits(response_timeout=0.2, budget_per_hand=0.02, connect_timeout=30)
    log_path = tmp_path / "bad.log"
    with open(log_path, "w") as log_file:
        match = Match(n, names, hands, 3, {}, limits=limits, log_file=log_file)
        good = Client(match.ports[0], "call", "good", match.game)
        good.start()
        raws = [RawPlayer(port, mode) for port, mode in
                zip(match.ports[1:], ("garbage", "sleeper", "quitter"))]
        for r in raws:
            r.start()
        outcome, _ = match.join()
        good.join(60)
        for r in raws:
            r.join(60)
            assert not r.is_alive()
    assert outcome.hands == hands
    totals = check_log(open(log_path).read().splitlines(), match.game, n, hands, names)
    reports = {r.name: r for r in outcome.seats}
    assert reports["good"].errors == 0
    junk = reports["junk"]
    assert junk.invalid > 0 and junk.ignored > 0 and junk.dropped == 1
    sleepy = reports["sleepy"]
    assert sleepy.timeouts >= 1 and "budget" in sleepy.folded_out
    # Folded out after the budget: it answers no more, so its time-outs stop.
    assert sleepy.timeouts <= 4
    assert reports["quits"].disconnected
    assert good.result.hands == hands and good.result.stats.net_chips == totals["good"]
    assert replay_nets(log_path, tmp_path / "bad.sqlite") == totals


def test_players_that_do_not_greet_or_never_come():
    game, _ = game_for(2)
    dealer = AcpcDealer(game, ["a", "b"], 5, 1, limits=DealerLimits(connect_timeout=1.0))
    ports = dealer.listen()
    bad = good = None
    try:
        bad = socket.create_connection(("127.0.0.1", ports[0]), timeout=30)
        bad.sendall(b"HELLO\r\n")  # not a greeting: hung up, the port waits for another
        time.sleep(0.1)
        with pytest.raises(DealerError, match=r"seat 1 \(a\) \(its port had 1 connection\(s\) that did not "
                                              r"greet.*; seat 2 \(b\) \(nobody connected\)"):
            dealer.wait_for_players()
        assert bad.recv(100) == b""  # the dealer hung up on it
        assert dealer.seats[0].report.ignored == 1
    finally:
        dealer.close()
        for sock in (bad, good):
            if sock is not None:
                sock.close()


def test_bad_setups_are_refused():
    game, _ = game_for(3)
    with pytest.raises(DealerError, match="for 3 players"):
        AcpcDealer(game, ["a", "b"], 1, 1)
    with pytest.raises(DealerError, match="share a name"):
        AcpcDealer(game, ["a", "a", "b"], 1, 1)
    with pytest.raises(DealerError, match="cannot hold"):
        AcpcDealer(game, ["a", "b|c", "d"], 1, 1)


def test_poki_plays_through_the_client_and_learns_from_the_database(tmp_path):
    from db.database import Database

    game, _ = game_for(2)
    db_path = tmp_path / "poki.sqlite"
    match = Match(2, ["poki", "maniac"], 25, 8, {1: "maniac=raise"})
    # The engine heads-up (not the equilibrium): its learned floor keeps off-model counts.
    player = create_player("poki(heads_up=engine)", np.random.default_rng(1), "poki")
    result = play_at_dealer("127.0.0.1", match.ports[0], player, game, db_path=str(db_path),
                            names=["maniac"], match="p")
    outcome, _ = match.join()
    assert result.hands == 25 and result.stats.late == 0
    assert result.stats.net_chips == outcome.totals["poki"]
    # The player read its opponent's model from the database the hands went to, through
    # the writer thread, and kept its off-model counts there (the learned floor, the
    # default): what a match with the same file does.
    assert type(player.store).__name__ == "ThreadBoundStore"
    with Database(db_path) as db:
        assert db.hand_count() == 25
        counts = db.off_model("maniac", "acpc")
        assert counts.raises > 0 and counts.raises_off <= counts.raises
        model = db.get("maniac", "acpc")
        assert model.hands == 25
        folds, calls, raises = (sum(t[i] for t in model.lifetime) for i in range(3))
        assert folds == 0 and raises > calls  # an always-raise player, seen as one
