"""Bankrolls of IRC dealer tables ([poki-2002]: "bankroll preserved between sessions"; "a
hierarchy of games: players must win a specified amount in the introductory games to
qualify for the higher tiers").

Tables of migration m002: ``bankrolls`` (chips a player holds off the tables, bound to
the user@host that holds them), ``table_chips`` (chips on each table) and ``irc_tables``
(each table's next hand number). Chips only move between a bankroll and a table, or
between players in a stored hand, so bankrolls plus table chips change only by the
grants new players receive (:meth:`Bankrolls.total` and :meth:`Bankrolls.granted`).

A bankroll belongs to its connection's user@host, not to a nick: a player who changes
nick keeps it (a seated one's follows the seat, :meth:`Bankrolls.rename`; one who sits or
asks under a new nick finds the bankroll it left under the old one), and nobody gets a
second grant by changing nick.
"""
from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping, Sequence

from agent.game.records import HandRecord

from .database import Database

__all__ = ["BankrollError", "Bankrolls"]


class BankrollError(Exception):
    """A move of chips the bank refuses; the message is meant for the player."""


class Bankrolls:
    """Bankrolls and table chips of one ``network`` in ``database`` (its connection, its
    thread). ``initial`` chips are granted to a nick the first time it sits."""

    def __init__(self, database: Database, network: str, *, initial: int = 10000) -> None:
        self.database = database
        self.conn: sqlite3.Connection = database.db.conn
        self.network = network
        self.initial = initial

    def _tx(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def _run(self, fn):  # one transaction: all of fn's statements or none
        conn = self._tx()
        try:
            result = fn(conn)
            conn.execute("COMMIT")
            return result
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    # --- reads -----------------------------------------------------------------------------

    def bankroll(self, nick: str) -> int | None:
        row = self.conn.execute("SELECT chips FROM bankrolls WHERE network = ? AND nick = ?",
                                (self.network, nick)).fetchone()
        return None if row is None else row[0]

    def bankroll_for(self, nick: str, userhost: str) -> int | None:
        """``nick``'s bankroll when the connection ``userhost`` holds it; for a nick with no
        bankroll, the bankroll that connection holds under another nick; else None."""
        user, _, host = userhost.partition("@")
        row = self.conn.execute("SELECT chips, user, host FROM bankrolls WHERE network = ? AND nick = ?",
                                (self.network, nick)).fetchone()
        if row is None:
            earlier = self._earlier_nick(self.conn, user, host)
            return None if earlier is None else self.bankroll(earlier)
        return None if (row[1], row[2]) != (user, host) else row[0]

    def _earlier_nick(self, conn: sqlite3.Connection, user: str, host: str) -> str | None:
        """The nick under which the connection ``user@host`` last held a bankroll (the
        latest updated, when it held several before bankrolls followed nick changes)."""
        row = conn.execute("SELECT nick FROM bankrolls WHERE network = ? AND user = ? AND host = ? "
                           "ORDER BY updated DESC LIMIT 1", (self.network, user, host)).fetchone()
        return None if row is None else row[0]

    def _take_over(self, conn: sqlite3.Connection, old: str, new: str, user: str, host: str) -> None:
        """The bankroll of ``old`` (the connection ``user@host``'s) goes to ``new`` (the
        same connection's new nick), merged into ``new``'s if it holds one already; its
        chips on any table follow."""
        row = conn.execute("SELECT chips, granted FROM bankrolls WHERE network = ? AND nick = ? AND user = ? "
                           "AND host = ?", (self.network, old, user, host)).fetchone()
        if row is None or old == new:
            return
        if conn.execute("SELECT 1 FROM bankrolls WHERE network = ? AND nick = ?", (self.network, new)).fetchone():
            conn.execute("UPDATE bankrolls SET chips = chips + ?, granted = granted + ?, updated = ? "
                         "WHERE network = ? AND nick = ?", (row[0], row[1], time.time(), self.network, new))
            conn.execute("DELETE FROM bankrolls WHERE network = ? AND nick = ?", (self.network, old))
        else:
            conn.execute("UPDATE bankrolls SET nick = ?, updated = ? WHERE network = ? AND nick = ?",
                         (new, time.time(), self.network, old))
        conn.execute("UPDATE table_chips SET nick = ? WHERE network = ? AND nick = ?", (new, self.network, old))

    def at_table(self, channel: str) -> dict[str, int]:
        rows = self.conn.execute("SELECT nick, chips FROM table_chips WHERE network = ? AND channel = ?",
                                 (self.network, channel))
        return dict(rows.fetchall())

    def total(self) -> int:
        """Chips in bankrolls and on tables of this network."""
        a = self.conn.execute("SELECT COALESCE(SUM(chips), 0) FROM bankrolls WHERE network = ?",
                              (self.network,)).fetchone()[0]
        b = self.conn.execute("SELECT COALESCE(SUM(chips), 0) FROM table_chips WHERE network = ?",
                              (self.network,)).fetchone()[0]
        return a + b

    def granted(self) -> int:
        """Chips ever granted to new players."""
        return self.conn.execute("SELECT COALESCE(SUM(granted), 0) FROM bankrolls WHERE network = ?",
                                 (self.network,)).fetchone()[0]

    # --- moves --------------------------------------------------------------------------------

    def open_table(self, channel: str) -> int:
        """Chips left on ``channel`` by an earlier session go back to their bankrolls;
        the next hand number (1 for a new table)."""

        def move(conn: sqlite3.Connection) -> int:
            for nick, chips in conn.execute(
                    "SELECT nick, chips FROM table_chips WHERE network = ? AND channel = ?",
                    (self.network, channel)).fetchall():
                conn.execute("UPDATE bankrolls SET chips = chips + ?, updated = ? WHERE network = ? AND nick = ?",
                             (chips, time.time(), self.network, nick))
            conn.execute("DELETE FROM table_chips WHERE network = ? AND channel = ?", (self.network, channel))
            row = conn.execute("SELECT next_hand FROM irc_tables WHERE network = ? AND channel = ?",
                               (self.network, channel)).fetchone()
            if row is None:
                conn.execute("INSERT INTO irc_tables (network, channel, next_hand) VALUES (?, ?, 1)",
                             (self.network, channel))
                return 1
            return row[0]

        return self._run(move)

    def sit(self, channel: str, nick: str, userhost: str, chips: int | None, buy_in: int,
            minimum: int) -> tuple[int, int]:
        """Buy in at ``channel``: ``chips`` (default ``buy_in``, at most the bankroll) move
        from the bankroll to the table; (chips on the table, bankroll left)."""
        user, _, host = userhost.partition("@")

        def move(conn: sqlite3.Connection) -> tuple[int, int]:
            row = conn.execute("SELECT chips, user, host FROM bankrolls WHERE network = ? AND nick = ?",
                               (self.network, nick)).fetchone()
            earlier = self._earlier_nick(conn, user, host) if row is None else None
            if earlier is not None and not conn.execute(
                    "SELECT 1 FROM table_chips WHERE network = ? AND nick = ?", (self.network, earlier)).fetchone():
                # The connection's bankroll under the nick it had (no chips of it at a table).
                self._take_over(conn, earlier, nick, user, host)
                row = conn.execute("SELECT chips, user, host FROM bankrolls WHERE network = ? AND nick = ?",
                                   (self.network, nick)).fetchone()
            if row is None:
                bankroll = self.initial
                conn.execute("INSERT INTO bankrolls (network, nick, chips, granted, user, host, updated) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (self.network, nick, bankroll, bankroll, user, host, time.time()))
            else:
                bankroll, owner_user, owner_host = row
                if (owner_user, owner_host) != (user, host):
                    raise BankrollError(f"the bankroll of {nick} belongs to another connection "
                                        f"({owner_user}@{owner_host})")
            if conn.execute("SELECT 1 FROM table_chips WHERE network = ? AND channel = ? AND nick = ?",
                            (self.network, channel, nick)).fetchone():
                raise BankrollError(f"{nick} has chips on {channel} already")
            if bankroll < minimum:
                raise BankrollError(f"{channel} needs a bankroll of {minimum}; {nick} has {bankroll}")
            want = buy_in if chips is None else chips
            take = min(want, bankroll)
            if take <= 0:
                raise BankrollError(f"{nick} has no chips left (bankroll {bankroll})")
            conn.execute("UPDATE bankrolls SET chips = chips - ?, updated = ? WHERE network = ? AND nick = ?",
                         (take, time.time(), self.network, nick))
            conn.execute("INSERT INTO table_chips (network, channel, nick, chips) VALUES (?, ?, ?, ?)",
                         (self.network, channel, nick, take))
            return take, bankroll - take

        return self._run(move)

    def leave(self, channel: str, nick: str) -> tuple[int, int]:
        """The seat's chips back to the bankroll: (chips returned, bankroll now)."""

        def move(conn: sqlite3.Connection) -> tuple[int, int]:
            row = conn.execute("SELECT chips FROM table_chips WHERE network = ? AND channel = ? AND nick = ?",
                               (self.network, channel, nick)).fetchone()
            chips = 0 if row is None else row[0]
            conn.execute("DELETE FROM table_chips WHERE network = ? AND channel = ? AND nick = ?",
                         (self.network, channel, nick))
            conn.execute("UPDATE bankrolls SET chips = chips + ?, updated = ? WHERE network = ? AND nick = ?",
                         (chips, time.time(), self.network, nick))
            bankroll = conn.execute("SELECT chips FROM bankrolls WHERE network = ? AND nick = ?",
                                    (self.network, nick)).fetchone()
            return chips, 0 if bankroll is None else bankroll[0]

        return self._run(move)

    def rename(self, channel: str, old: str, new: str, userhost: str) -> None:
        """A seated connection changed nick: its bankroll and its chips at every table follow
        it (merged into the new nick's bankroll when the same connection held that nick
        before)."""
        user, _, host = userhost.partition("@")

        def move(conn: sqlite3.Connection) -> None:
            row = conn.execute("SELECT user, host FROM bankrolls WHERE network = ? AND nick = ?",
                               (self.network, new)).fetchone()
            if row is not None and tuple(row) != (user, host):
                raise BankrollError(f"the bankroll of {new} belongs to another connection")
            self._take_over(conn, old, new, user, host)
            if not conn.execute("SELECT 1 FROM bankrolls WHERE network = ? AND nick = ?",
                                (self.network, new)).fetchone():
                conn.execute("INSERT INTO bankrolls (network, nick, chips, granted, user, host, updated) "
                             "VALUES (?, ?, 0, 0, ?, ?, ?)", (self.network, new, user, host, time.time()))
            conn.execute("UPDATE table_chips SET nick = ? WHERE network = ? AND channel = ? AND nick = ?",
                         (new, self.network, channel, old))

        self._run(move)

    def hand_done(self, channel: str, record: HandRecord, stacks: Mapping[str, int], next_hand: int) -> None:
        """Store the hand (opponent database) with the table's new chips and next hand
        number in one transaction."""

        def also(conn: sqlite3.Connection) -> None:
            for nick, chips in stacks.items():
                cur = conn.execute("UPDATE table_chips SET chips = ? WHERE network = ? AND channel = ? AND nick = ?",
                                   (chips, self.network, channel, nick))
                if cur.rowcount != 1:
                    raise BankrollError(f"{nick} has no chips on {channel} to update")
            conn.execute("INSERT OR REPLACE INTO irc_tables (network, channel, next_hand) VALUES (?, ?, ?)",
                         (self.network, channel, next_hand))

        self.database.write_hand(record, self.network, also=also)

    def hands_done(self, hands: Sequence[tuple[str, HandRecord, Mapping[str, int], int]]) -> None:
        """Store several finished hands, ``(channel, record, stacks, next_hand)`` in the
        order they were played, with the tables' chips and next hand numbers after them,
        in one transaction: all of them or none (RecordError if one is inconsistent)."""
        if not hands:
            return
        for _, record, _, _ in hands:
            record.check()  # one bad hand must not be left out while its chips are kept

        def also(conn: sqlite3.Connection) -> None:
            for channel, _, stacks, next_hand in hands:
                for nick, chips in stacks.items():
                    cur = conn.execute("UPDATE table_chips SET chips = ? WHERE network = ? AND channel = ? "
                                       "AND nick = ?", (chips, self.network, channel, nick))
                    if cur.rowcount != 1:
                        raise BankrollError(f"{nick} has no chips on {channel} to update")
                conn.execute("INSERT OR REPLACE INTO irc_tables (network, channel, next_hand) VALUES (?, ?, ?)",
                             (self.network, channel, next_hand))

        self.database.write_hands([h[1] for h in hands], self.network, batch_hands=len(hands), also=also)

    def skip_hand(self, channel: str, number: int) -> None:
        """Hand ``number`` at ``channel`` was void: the table's next hand comes after it
        (a void keeps its number, so a hand id names one hand only)."""

        def move(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO irc_tables (network, channel, next_hand) VALUES (?, ?, ?) "
                         "ON CONFLICT (network, channel) DO UPDATE SET next_hand = MAX(next_hand, excluded.next_hand)",
                         (self.network, channel, number + 1))

        self._run(move)

    def next_hand(self, channel: str) -> int | None:
        """The hand number the table at ``channel`` deals next (None: never opened)."""
        row = self.conn.execute("SELECT next_hand FROM irc_tables WHERE network = ? AND channel = ?",
                                (self.network, channel)).fetchone()
        return None if row is None else row[0]
