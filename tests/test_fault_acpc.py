"""The ACPC tables under hostile peers, on real loopback sockets: connections that never
greet at our dealer (one, and two hundred) do not keep the player from its seat; our
client gives up a dealer that goes silent (before the match, mid-hand, or one that never
accepts) after its limit and says what it waited for; our dealer reads actions as the
ACPC dealer does (project_acpc_server game.c, readAction: the first letter decides, so
``r100`` in a limit game is a raise)."""
from __future__ import annotations

import logging
import socket
import threading

import numpy as np
import pytest

from agent.cli import main
from agent.config import AcpcConfig
from agent.game.rules import Action
from agent.play.acpc.dealer_seats import DealerLimits
from agent.play.acpc.match import play_at_dealer
from agent.players import create_player
from connectors.acpc.client import LineFramer
from connectors.acpc.game import standard_game

from acpc_helpers import DealerThread as Dealer
from acpc_helpers import ScriptedDealer, states

HU = standard_game("holdem.limit.2p.reverse_blinds.game")


def _client(port: int, **config) -> object:
    player = create_player("call", np.random.default_rng(0), "me")
    return play_at_dealer("127.0.0.1", port, player, HU, config=AcpcConfig(**config), match="m")


# --- a squatter at our dealer (finding 4) -----------------------------------------------------------


@pytest.mark.parametrize("squatters", [1, pytest.param(200, marks=pytest.mark.slow)])
def test_finding4_silent_connections_do_not_keep_the_player_from_its_seat(squatters, caplog) -> None:
    caplog.set_level(logging.INFO, logger="poki.acpc.dealer")
    dealer = Dealer(8, 5)
    silent = []
    try:
        for _ in range(squatters):
            silent.append(socket.create_connection(("127.0.0.1", dealer.port), timeout=30))
        result = _client(dealer.port)
        outcome = dealer.join()
    finally:
        for sock in silent:
            sock.close()
    assert result.hands == 8 and result.complete and not result.lost
    assert outcome.hands == 8
    said = "\n".join(r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)
    assert "greeted first and took the seat" in said or "closed to make room" in said
    if squatters > 8:
        assert "closed to make room" in said


def test_a_caller_that_never_greets_is_closed_after_the_greeting_limit(caplog) -> None:
    caplog.set_level(logging.WARNING, logger="poki.acpc.dealer")
    dealer = Dealer(3, 5, limits=DealerLimits(30, 30, 60, greet_timeout=0.3))
    sock = socket.create_connection(("127.0.0.1", dealer.port), timeout=30)
    try:
        sock.settimeout(30)
        assert sock.recv(100) == b""  # hung up on, after its 0.3 s
        result = _client(dealer.port)
        dealer.join()
    finally:
        sock.close()
    assert result.hands == 3 and result.complete
    assert any("no greeting within 0.3 s" in r.getMessage() for r in caplog.records)


# --- a silent dealer at our client (finding 5) ------------------------------------------------------


def test_finding5_a_dealer_that_never_sends_is_given_up(capsys) -> None:
    dealer = ScriptedDealer([("expect", "an answer to a state never sent")], timeout=60)
    try:
        assert main(["acpc", "play", "127.0.0.1", str(dealer.port), "--player", "call", "--no-db",
                     "--dealer-timeout", "0.5", "--no-progress"]) == 1
    finally:
        dealer.close()
    out = capsys.readouterr().out
    assert "sent nothing for 0.5 s while we waited for the first state of the match" in out


def test_finding5_a_dealer_that_stops_mid_hand_is_given_up() -> None:
    script = [states("MATCHSTATE:0:4::KdKh|", "MATCHSTATE:0:4:r:KdKh|"),
              ("expect", "MATCHSTATE:0:4:r:KdKh|:c"),
              ("expect", "a state never sent")]
    dealer = ScriptedDealer(script, timeout=60)
    try:
        result = _client(dealer.port, dealer_timeout=0.5)
    finally:
        dealer.close()
    assert result.lost and not result.complete and result.hands == 0
    assert "while we waited for the next state of hand 4" in result.summary("me")


def test_finding5_a_dealer_that_never_accepts_is_given_up() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)  # the kernel completes the connection; nobody ever accepts it
    try:
        result = _client(listener.getsockname()[1], dealer_timeout=0.5)
    finally:
        listener.close()
    assert result.lost and result.hands == 0
    assert "while we waited for the first state of the match" in result.summary("me")


# --- actions as the reference dealer reads them (finding 8) -----------------------------------------


def test_actions_are_read_by_their_first_letter_as_the_acpc_dealer_reads_them() -> None:
    from connectors.acpc.protocol import parse_action

    # project_acpc_server game.c: charToAction maps f/F fold, c/C and k/K call, r/R and
    # b/B raise; in a limit game readAction reads that one letter and no size.
    for text, action in [("f", Action.FOLD), ("F", Action.FOLD), ("c", Action.CHECK_CALL), ("k", Action.CHECK_CALL),
                         ("K", Action.CHECK_CALL), ("r", Action.BET_RAISE), ("r100", Action.BET_RAISE),
                         ("R", Action.BET_RAISE), ("b", Action.BET_RAISE), ("b20", Action.BET_RAISE),
                         ("c1", Action.CHECK_CALL), ("fold", Action.FOLD)]:
        assert parse_action(text) is action, text
    for text in ("", "x", "1", " r", ":r", "\x00"):
        assert parse_action(text) is None, repr(text)


def _raw_seat(port: int, answer: str) -> threading.Thread:
    """A program that greets and answers every state it is sent with ``answer``."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)

    def run():
        framer = LineFramer("raw")
        try:
            sock.sendall(b"VERSION:2.0.0\r\n")
            while True:
                data = sock.recv(65536)
                if not data:
                    return
                sock.sendall(b"".join(f"{line}:{answer}\r\n".encode() for line in framer.feed(data)))
        except OSError:
            pass
        finally:
            sock.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("answer, raises", [("r100", True), ("b", True), ("R", True), ("k", False),
                                            ("c20", False), ("x", False)])
def test_finding8_our_dealer_reads_a_sized_raise_in_a_limit_game_as_a_raise(answer, raises, tmp_path) -> None:
    log = tmp_path / "m.log"
    with open(log, "w") as log_file:
        dealer = Dealer(6, 9, house="house=call", log_file=log_file)
        seat = _raw_seat(dealer.port, answer)
        outcome = dealer.join()
        seat.join(60)
    bettings = [line.split(":")[2] for line in log.read_text().splitlines() if line.startswith("STATE:")]
    assert len(bettings) == 6
    # The house bot only calls, so every raise in the log is the raw seat's answer.
    assert ("r" in "".join(bettings)) is raises
    remote = outcome.seats[0]
    if answer == "x":
        assert remote.invalid > 0  # not an action at all: taken as a call, and counted
    elif not raises:
        assert remote.invalid == 0
