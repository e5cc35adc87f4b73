"""Issue 39 item 7: `poki irc verify` checks every committed reveal. A reveal that does not
parse as a deck of 52 distinct cards (a card twice) is a FAILED hand, never "not checked"
with "verified, 0 failed"; a good log still verifies. (FIFOs, devices and the line cap
while reading: tests/test_fault_inputs.py.)"""
from __future__ import annotations

import hashlib
import random

from agent.cli import main
from connectors.irc import dialect as d

SALT = "0123456789abcdef" * 2


def _log(deck: list[int], hand: int = 4) -> str:
    start = d.format_line(d.HandStarts(hand, "alice", 5, 10, 10, 20, 4, (("alice", 500), ("bob", 500))))
    reveal = f"Hand {hand}: deck {' '.join(d.CARD_NAMES[c] for c in deck)}, salt {SALT}."
    commit = d.format_line(d.DeckCommitment(hand, hashlib.sha256(reveal.encode("utf-8")).hexdigest()))
    # As an IRC client logs the channel: a time and the speaker before each line.
    return "".join(f"12:00 <dealer> {line}\n" for line in (start, commit, reveal))


def test_a_good_deck_verifies(tmp_path, capsys) -> None:
    deck = list(range(52))
    random.Random(3).shuffle(deck)
    log = tmp_path / "channel.log"
    log.write_text(_log(deck))
    assert main(["irc", "verify", str(log)]) == 0
    assert "1 hand(s) verified, 0 failed" in capsys.readouterr().out


def test_item7_a_committed_deck_holding_a_card_twice_is_a_failed_hand(tmp_path, capsys) -> None:
    deck = list(range(52))
    random.Random(3).shuffle(deck)
    deck[9] = deck[2]  # the dealer committed to a deck with a card twice
    log = tmp_path / "channel.log"
    log.write_text(_log(deck))
    assert main(["irc", "verify", str(log)]) == 1
    out = capsys.readouterr().out
    assert "hand 4: FAILED" in out and "52 distinct cards" in out and "committed to that very line" in out
    assert "0 hand(s) verified, 1 failed" in out
