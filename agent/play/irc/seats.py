"""What a dealer's seat is, and the bank that holds the chips behind it.

A seat belongs to the connection that took it (nick and user@host). Its chips come from
and go back to a bankroll kept by a :class:`Bank` (agent.play.irc.dealer implements one
over SQLite); the dealer bot (agent.play.irc.table) only moves chips through it, so a
bankroll is "preserved between sessions" as [poki-2002] says of the 1995 IRC dealers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from agent.game.records import HandRecord

__all__ = ["Bank", "BankError", "TableSeat"]


class BankError(Exception):
    """The bank refuses (bankroll too small, bound to another connection); the message is
    said to the player."""


class Bank(Protocol):
    """What the dealer bot (agent.play.irc.table) calls on the bank, every call on the
    dealer's loop thread."""

    def seated_before(self, channel: str) -> list[str]:
        """The nicks that had chips on ``channel`` when the last session ended (read
        before open_table gives the chips back)."""

    def open_table(self, channel: str) -> int:
        """Start of a session at ``channel``: chips left on it by an earlier session go
        back to their bankrolls; returns the next hand number."""

    def sit(self, channel: str, nick: str, userhost: str, chips: int | None, buy_in: int,
            minimum: int) -> tuple[int, int]:
        """Move a buy-in from the bankroll to the table: (chips at the table, bankroll
        left). Raises BankError with the reason."""

    def leave(self, channel: str, nick: str) -> tuple[int, int]:
        """Move the seat's chips back: (chips returned, bankroll now)."""

    def rename(self, channel: str, old: str, new: str, userhost: str) -> None:
        """The seat's connection changed nick."""

    def bankroll(self, nick: str, userhost: str) -> int | None:
        """``nick``'s bankroll when the connection ``userhost`` holds it (None otherwise:
        nobody learns another's bankroll by taking its nick)."""

    def hand_started(self, channel: str, number: int) -> None:
        """Hand ``number`` is being dealt at ``channel`` (said before its first line: a
        dealer killed from here on announces it void when it comes back)."""

    def hand_void(self, channel: str, number: int) -> None:
        """Hand ``number`` at ``channel`` is void: its number is never dealt again (raises
        on failure; the number is still skipped in this session)."""

    def hand_done(self, channel: str, record: HandRecord, stacks: dict[str, int], next_hand: int) -> None:
        """Store the hand, the table's new chip counts and the next hand number, all or
        nothing (raises on failure: the hand is then void)."""


@dataclass
class TableSeat:
    nick: str
    userhost: str
    chips: int
    present: bool = True
    sitting_out: bool = False
    timeouts: int = 0
    leaving: bool = False  # release the seat when the hand ends
    removed: bool = False  # an owner removed it: released when its hand ends, played out until then
    auto: bool = False  # sat out for time-outs: acted for at once until the player is back
    hand_name: str = ""  # the nick the current hand knows the seat by
