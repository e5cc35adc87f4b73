"""The bots' IRC connection (connectors/irc/client.py) and the [irc] settings: the token
bucket and back-off alone, flood control and the nick fallback over a real server, and
the config's refusals."""
from __future__ import annotations

import socket
import threading
import time

import numpy as np
import pytest

from agent.config import ConfigError, parse_config
from connectors.irc.client import Backoff, IrcClient, Tls, TokenBucket
from connectors.irc.server import LoopbackServer

from irc_live import Person, wait_for


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_token_bucket_allows_a_burst_then_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(3, 2.0, clock)
    assert [bucket.take() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take() == pytest.approx(0.5)  # one token every half second
    clock.now += 0.5
    assert bucket.take() == 0.0
    assert bucket.take() == pytest.approx(0.5)
    clock.now += 10  # refills, but never beyond the burst
    assert [bucket.take() for _ in range(4)][:3] == [0.0, 0.0, 0.0]
    assert TokenBucket(1, 0.0, clock).take() == 0.0  # rate 0: no limit
    with pytest.raises(ValueError):
        TokenBucket(0, 1.0)


def test_backoff_doubles_with_jitter_up_to_the_cap_and_resets() -> None:
    backoff = Backoff(1.0, 8.0, np.random.default_rng(5))
    delays = [backoff.next() for _ in range(6)]
    for k, delay in enumerate(delays):
        full = min(8.0, 2.0 ** k)
        assert full / 2 <= delay <= full
    backoff.reset()
    assert 0.5 <= backoff.next() <= 1.0
    again = Backoff(1.0, 8.0, np.random.default_rng(5))
    assert [again.next() for _ in range(6)] == delays  # seeded: reproducible


def test_flood_control_over_a_real_server() -> None:
    """25 lines with a burst of 5 and 20 lines a second cannot arrive in less than a
    second (a lower bound: a slow machine only adds to it)."""
    with LoopbackServer() as srv:
        listener = Person(srv.port, "listener")
        client = IrcClient(srv.host, srv.port, "talker", flood_burst=5, flood_rate=20.0,
                           rng=np.random.default_rng(1)).start()
        try:
            wait_for(lambda: client.registered and any(c == "001" for c, *_ in listener.lines), what="both connected")
            t0 = time.monotonic()
            for k in range(25):
                client.say("listener", f"line {k}")
            wait_for(lambda: sum(1 for c, p, _, t in listener.lines if c == "PRIVMSG" and t.startswith("line ")) == 25,
                     what="all lines")
            elapsed = time.monotonic() - t0
            got = [t for c, p, _, t in listener.lines if c == "PRIVMSG" and t.startswith("line ")]
            assert got == [f"line {k}" for k in range(25)]  # in order, none lost
            assert elapsed >= (25 - 5) / 20.0 * 0.95
        finally:
            client.stop()
            listener.close()


def test_a_taken_nick_gets_another_and_long_text_is_split() -> None:
    with LoopbackServer() as srv:
        holder = Person(srv.port, "poki")
        wait_for(lambda: any(c == "001" for c, *_ in holder.lines), what="holder connected")
        client = IrcClient(srv.host, srv.port, "poki", flood_rate=0, rng=np.random.default_rng(1)).start()
        try:
            wait_for(lambda: client.registered, what="registration under another nick")
            assert client.nick == "poki_"
            client.say("poki", "x" * 1000)
            wait_for(lambda: sum(len(t) for c, _, _, t in holder.lines if c == "PRIVMSG") == 1000, what="long text")
            with pytest.raises(ValueError):
                client.send_raw("PRIVMSG poki :a\r\nQUIT")
        finally:
            client.stop()
            holder.close()


def test_irc_settings_are_checked() -> None:
    irc = parse_config({"irc": {"min_bankroll": {"#high": 20000}, "owners": ["me!*@*"],
                                "channels": ["#a", "#b"]}}).irc
    assert irc.tier("#high") == 20000 and irc.tier("#a") == 0
    assert irc.channels == ("#a", "#b") and irc.owners == ("me!*@*",)
    hash(irc)  # frozen settings stay hashable
    for bad, why in (({"server": "nohost"}, "HOST:PORT"), ({"server": "h:99999"}, "HOST:PORT"),
                     ({"channels": "#a"}, "list of channels"), ({"channels": ["a"]}, "channel names"),
                     ({"min_bankroll": {"high": 5}}, "#channel"), ({"action_seconds": 0}, "whole number from 1"),
                     ({"flood_lines_per_second": -1}, ">= 0"), ({"owners": [""]}, "masks"),
                     ({"reconnect_min_seconds": 9, "reconnect_max_seconds": 1}, "must not exceed"),
                     ({"store_batch_seconds": -1}, ">= 0"), ({"store_batch_seconds": "1"}, "expected a number"),
                     ({"nickname": "x"}, "unknown key")):
        with pytest.raises(ConfigError, match=why):
            parse_config({"irc": bad})


def test_tls_to_a_server_that_greets_in_plain_text_stops_with_a_hint() -> None:
    """A TLS client at a port that speaks plain IRC first (as many servers do with NOTICE
    AUTH): the handshake fails on the plain text, and the client gives up at once with a
    hint instead of trying again and again. The server: a real socket on loopback that
    greets and counts connections."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(5)
    connections = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            connections.append(conn)
            conn.sendall(b"NOTICE AUTH :*** Looking up your hostname...\r\n")

    threading.Thread(target=serve, daemon=True).start()
    failures: list[str] = []
    client = IrcClient("127.0.0.1", listener.getsockname()[1], "poki", tls=Tls(verify=False),
                       reconnect_min=0.1, reconnect_max=0.2, on_failure=failures.append).start()
    try:
        wait_for(lambda: failures, what="the client to give up")
        assert "does not speak TLS" in failures[0] and "--no-tls" in failures[0]
        time.sleep(0.5)  # a retry would have come by now
        assert client.attempts == 1 and len(connections) == 1
    finally:
        client.stop()
        listener.close()
        for conn in connections:
            conn.close()
