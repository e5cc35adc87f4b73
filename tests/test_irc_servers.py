"""The send budget that knows the server (connectors/irc/servers.py, agent/play/irc/network.py
send_budget): the software read from 004 RPL_MYINFO's version as each server writes it,
the budget chosen from the [irc] settings, and a client that takes the budget of the
server answering it over a real socket. The servers' own limits are checked on Debian's
ngircd and InspIRCd in tests/test_irc_networks.py."""
from __future__ import annotations

import dataclasses
import socket
import threading

import numpy as np
import pytest

from agent.config import Config, ConfigError, parse_config
from agent.play.irc.network import BudgetChoice, send_budget
from connectors.irc.client import IrcClient
from connectors.irc.servers import PROFILES, SAFE, SendBudget, profile_for, software

from irc_live import wait_for

# 004's version as each software writes it (its own source or a server running it).
VERSIONS = [
    ("ngircd-26.1", "ngircd"), ("ngircd-27~rc1", "ngircd"), ("InspIRCd-3", "inspircd"), ("InspIRCd-4", "inspircd"),
    ("solanum-1.0-dev", "solanum"), ("charybdis-4.1.2", "solanum"), ("ircd-seven-1.1.9", "solanum"),
    ("UnrealIRCd-6.1.2.3", "unrealircd"), ("ergo-2.11.1", "ergo"), ("oragono-2.4.0", "ergo"),
    ("ircd-hybrid-8.2.43", "hybrid"), ("hybrid-7.2.3", "hybrid"),
    # Not recognised: other software, a name inside another word, nothing, too long.
    ("ircd-ratbox-3.0.10", None), ("u2.10.12.19", None), ("ngircdx-1", None), ("my-ngircd-1", None), ("", None),
    ("ngircd-" + "9" * 200, None),
]


@pytest.mark.parametrize("version, name", VERSIONS)
def test_the_software_is_read_from_the_version(version: str, name: str | None) -> None:
    assert software(version) == name
    assert profile_for(version) == (PROFILES[name] if name is not None else SAFE)


def test_every_profile_keeps_a_burst_and_a_rate_no_faster_than_its_servers_limit() -> None:
    """The documented defaults (connectors/irc/servers.py cites each): the budget never
    passes them, and exempt alone is unlimited."""
    limits = {"ngircd": (3, 3.0), "inspircd": (10, 1.0), "solanum": (5, 2.0), "hybrid": (5, 2.0),
              "ergo": (5, 2.0), "unrealircd": (5, 0.5), "safe": (5, 0.5)}
    for name, budget in PROFILES.items():
        assert budget.name == name
        if name == "exempt":
            assert budget.rate == 0
            continue
        burst, rate = limits[name]
        assert 1 <= budget.burst <= burst and 0 < budget.rate <= rate, name


def irc(**settings: object):  # a test helper
    return parse_config({"irc": settings}).irc


def test_the_budget_from_the_settings() -> None:
    # The default: the server's software decides; until it answers, the safe budget.
    assert send_budget(Config().irc) == BudgetChoice(SAFE, True)
    assert send_budget(irc(flood_profile="auto")) == BudgetChoice(SAFE, True)
    # A profile fixes it.
    assert send_budget(irc(flood_profile="ngircd")) == BudgetChoice(PROFILES["ngircd"], False)
    # Options of one's own make it custom, with "auto" or "custom"; the one not set is safe's.
    assert send_budget(irc(flood_lines_per_second=2)) == BudgetChoice(SendBudget("custom", 5, 2), False)
    assert send_budget(irc(flood_burst=3)) == BudgetChoice(SendBudget("custom", 3, 0.5), False)
    assert send_budget(irc(flood_profile="custom")) == BudgetChoice(SendBudget("custom", 5, 0.5), False)
    # --no-flood-limit wins over everything.
    assert send_budget(irc(flood_profile="inspircd"), 0.0) == BudgetChoice(SendBudget("--no-flood-limit", 5, 0.0),
                                                                         False)
    with pytest.raises(ConfigError, match="auto, custom or one of ngircd"):
        send_budget(irc(flood_profile="ircu"))
    # A profile and options of one's own contradict each other: said, not one silently ignored.
    with pytest.raises(ConfigError, match="cannot go with flood_profile = 'ngircd'"):
        irc(flood_profile="ngircd", flood_burst=5)
    for bad, why in (({"flood_burst": 0}, "whole number"), ({"flood_burst": 2.5}, "whole number"),
                     ({"flood_lines_per_second": -1}, ">= 0"), ({"flood_profile": ""}, "profile name")):
        with pytest.raises(ConfigError, match=why):
            irc(**bad)


class WelcomingServer:
    """One connection on a real loopback socket: the registration replies with 004 naming
    ``version``, then whatever the test sends."""

    def __init__(self, version: str) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.version = version
        self.conns: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.conns.append(conn)
            conn.sendall(b":irc.example 001 poki :Welcome\r\n:irc.example 002 poki :Your host\r\n"
                         + f":irc.example 004 poki irc.example {self.version} iow blnt\r\n".encode())

    def close(self) -> None:
        self.listener.close()
        for conn in self.conns:
            conn.close()


@pytest.mark.parametrize("version, name", [("ngircd-26.1", "ngircd"), ("InspIRCd-3", "inspircd"),
                                           ("SecretServer-0.1", "safe")])
def test_a_client_takes_the_budget_of_the_server_that_answers(version: str, name: str) -> None:
    server = WelcomingServer(version)
    start = SendBudget("custom", 2, 7.0)
    client = IrcClient("127.0.0.1", server.port, "poki", budget=start, by_server=True,
                       reconnect_min=0.1, reconnect_max=0.2, rng=np.random.default_rng(0))
    assert client.describe_budget() == "send budget by the server's software (until it answers, custom: 2 lines " \
                                       "at once, then 7 a second)"
    client.start()
    try:
        wait_for(lambda: client.server_version == version, what="the server's 004")
        wait_for(lambda: client.budget == PROFILES[name], what="the server's budget")
        assert client.describe_budget() == f"send budget {PROFILES[name].describe()}"
        # A new connection starts again from the first budget (another server may answer).
        server.version = "ergo-2.11.1"
        server.conns[0].close()  # the server drops the connection; the client comes back
        wait_for(lambda: client.connects == 2 and client.budget == PROFILES["ergo"], what="the next server's budget")
    finally:
        client.stop()
        server.close()


def test_a_fixed_budget_stays_whatever_the_server() -> None:
    server = WelcomingServer("ngircd-26.1")
    fixed = dataclasses.replace(SAFE, name="custom")
    client = IrcClient("127.0.0.1", server.port, "poki", budget=fixed, rng=np.random.default_rng(0)).start()
    try:
        wait_for(lambda: client.server_version == "ngircd-26.1", what="the server's 004")
        assert client.budget == fixed and client.describe_budget() == f"send budget {fixed.describe()}"
    finally:
        client.stop()
        server.close()


def read_until(conn: socket.socket, marker: bytes, seconds: float = 10.0) -> bytes:
    """What the client wrote to ``conn`` until ``marker`` appears (AssertionError past
    ``seconds``)."""
    conn.settimeout(seconds)
    got = b""
    while marker not in got:
        data = conn.recv(65536)
        assert data, f"closed before {marker!r}: {got!r}"
        got += data
    return got


@pytest.mark.parametrize("version, marked", [("InspIRCd-3", True), ("ngircd-26.1", True), ("SecretServer-0.1", False)])
def test_delivery_is_confirmed_without_a_ping_under_the_budget_of_the_servers_software(version: str,
                                                                                        marked: bool) -> None:
    """Under the budget of a recognised server's software (inside its limits, so the server
    holds no line) a delivery is confirmed once the lines before it are written, whether or
    not a line waits (InspIRCd charges a PING as much of its limit as a line); under any
    other budget a PING goes behind the lines and only its PONG confirms them."""
    server = WelcomingServer(version)
    client = IrcClient("127.0.0.1", server.port, "poki", budget=SAFE, by_server=True,
                       reconnect_min=0.1, reconnect_max=0.2, rng=np.random.default_rng(0)).start()
    try:
        wait_for(lambda: client.server_version == version and client.registered, what="the server's 004")
        assert client.budget_of_the_server is marked
        confirmed: list[str] = []
        client.call_soon(lambda: client.when_delivered(lambda: confirmed.append("empty queue")))
        client.call_soon(lambda: (client.say("#t", "a line"), client.when_delivered(lambda: confirmed.append("line"))))
        got = read_until(server.conns[0], b"a line")
        if marked:
            wait_for(lambda: confirmed == ["empty queue", "line"], what="both confirmations")
            client.call_soon(lambda: client.say("#t", "after"))
            assert b"PING" not in got + read_until(server.conns[0], b"after")
        else:
            assert got.index(b"PING :") < got.index(b"a line")  # the first confirmation's PING, queued first
            got += read_until(server.conns[0], b"PING :", seconds=10) if got.count(b"PING :") < 2 else b""
            assert got.count(b"PING :") == 2 and confirmed == []  # this server never answers a PING
    finally:
        client.stop()
        server.close()
