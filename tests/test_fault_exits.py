"""Issue 39, honest exits: `poki acpc play` exits non-zero, saying what happened, when it
played no hand (a listener that accepts and closes, an HTTP or SSH server on the port) or
when the dealer's stream broke off in the middle of a line; on real loopback sockets."""
from __future__ import annotations

import pytest

from agent.cli import main

from acpc_helpers import ScriptedDealer, states


@pytest.mark.parametrize("banner, says", [
    (b"", "having dealt no hand"),
    (b"SSH-2.0-OpenSSH_9.6\r\n", "is it an ACPC dealer"),
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", "is it an ACPC dealer"),
])
def test_finding4_a_match_of_no_hand_is_exit_1(banner, says, capsys) -> None:
    # It reads our greeting, answers with its own banner (if any) and hangs up.
    server = ScriptedDealer([("send", banner), ("close",)] if banner else [("close",)], timeout=30)
    try:
        code = main(["acpc", "play", "127.0.0.1", str(server.port), "--player", "call", "--no-db",
                     "--dealer-timeout", "20", "--no-progress"])
    finally:
        server.close()
    err = capsys.readouterr().err
    assert code == 1, err
    assert says in err and "Traceback" not in err


def test_finding4_a_dealer_cut_mid_line_is_exit_1(capsys) -> None:
    """One whole hand (the dealer's seat folds), then half of the next state and the end of
    the stream: the hand is played, and the exit says the stream broke off."""
    script = [states("MATCHSTATE:0:4::KdKh|", "MATCHSTATE:0:4:f:KdKh|"), ("send", b"MATCHSTATE:0:5::A"),
              ("close",)]
    dealer = ScriptedDealer(script, timeout=30)
    try:
        code = main(["acpc", "play", "127.0.0.1", str(dealer.port), "--player", "call", "--no-db",
                     "--dealer-timeout", "20", "--no-progress"])
    finally:
        dealer.close()
    captured = capsys.readouterr()
    assert "1 hands played" in captured.out
    assert code == 1 and "in the middle of a line" in captured.err
