"""The dealer's journal of finished hands its database does not hold yet.

A dealer announces a hand's end only once the hand is safe; committing it to SQLite (the
hand, its players' models and the table's chips, some sixty pages written) takes about a
millisecond, on the path of every hand. The journal makes the hand safe for a fraction of
that: one line appended to a file with one ``write`` system call, which the kernel
completes even if the process is killed the next instant. The database then takes the
journal's hands in groups, one transaction per group, off the hand's path
(agent.play.irc.dealer.SqliteBank), and the journal is emptied after each group.

On start, before the tables open, :func:`replay` hands every entry the database lacks
(its hand number at or past the table's next hand) back to be committed: a dealer killed
outright loses no hand it announced. A power cut may lose the last lines, as it may lose
the last commits of a database on synchronous=NORMAL. A line that cannot be read (cut
short by a full disk, edited by hand) is skipped with a message naming the file and line.

One JSON object a line: the channel, the hand record (agent.game.records, plain data),
the stacks after the hand by the seats' nicks and the table's next hand number.
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.game.records import ActionRecord, HandRecord, PlayerResult, RecordError, SeatRecord, ShownCards

__all__ = ["HandJournal", "JournalEntry", "JournalError", "decode_entry", "encode_entry", "read_journal"]

log = logging.getLogger("poki.irc.dealer")


class JournalError(ValueError):
    """A journal line that is not an entry; the message says why."""


@dataclass(frozen=True)
class JournalEntry:
    channel: str
    record: HandRecord
    stacks: dict[str, int]  # chips after the hand, by the seat's nick at the bank
    next_hand: int

    @property
    def number(self) -> int:
        return int(self.record.hand_id.rsplit(":", 1)[1])


def encode_entry(entry: JournalEntry) -> bytes:
    """One line (with its line feed) holding ``entry``."""
    r = entry.record
    data = {
        "channel": entry.channel, "next": entry.next_hand, "stacks": entry.stacks,
        "hand": [r.hand_id, r.source, r.started_at, r.small_blind, r.big_blind, r.small_bet, r.big_bet,
                 r.max_bets],
        "seats": [[s.player, s.stack, s.position] for s in r.seats],
        "board": list(r.board),
        "actions": [[a.round, a.player, a.kind, a.amount, a.bets_to_call, a.raises, a.position,
                     a.players_active, a.all_in] for a in r.actions],
        "shown": [[s.player, list(s.cards)] for s in r.shown],
        "results": [[x.player, x.put_in, x.won] for x in r.results],
    }
    return (json.dumps(data, separators=(",", ":")) + "\n").encode("utf-8")


def _ints(values: Any, what: str) -> tuple[int, ...]:
    if not isinstance(values, list) or not all(type(v) is int for v in values):
        raise JournalError(f"{what} must be a list of whole numbers")
    return tuple(values)


def decode_entry(line: bytes | str) -> JournalEntry:
    """The entry a line holds; JournalError saying what is wrong otherwise (the record is
    checked as the database would check it)."""
    try:
        data = json.loads(line)
        hand_id, source, started_at, sb, bb, sbet, bbet, cap = data["hand"]
        record = HandRecord(
            hand_id=str(hand_id), source=str(source),
            started_at=None if started_at is None else float(started_at),
            small_blind=int(sb), big_blind=int(bb), small_bet=int(sbet), big_bet=int(bbet), max_bets=int(cap),
            seats=tuple(SeatRecord(str(p), int(stack), int(pos)) for p, stack, pos in data["seats"]),
            board=_ints(data["board"], "board"),
            actions=tuple(ActionRecord(int(rnd), str(p), str(kind), int(amount), int(btc), int(raises), int(pos),
                                       int(active), bool(all_in))
                          for rnd, p, kind, amount, btc, raises, pos, active, all_in in data["actions"]),
            shown=tuple(ShownCards(str(p), _ints(cards, "shown cards")) for p, cards in data["shown"]),
            results=tuple(PlayerResult(str(p), int(put), int(won)) for p, put, won in data["results"]))
        record.check()
        stacks = data["stacks"]
        if not isinstance(stacks, dict) or not all(type(v) is int for v in stacks.values()):
            raise JournalError("stacks must map nicks to whole numbers")
        channel = data["channel"]
        next_hand = data["next"]
        if not isinstance(channel, str) or type(next_hand) is not int:
            raise JournalError("channel or next hand missing")
        entry = JournalEntry(channel, record, dict(stacks), next_hand)
        if entry.next_hand != entry.number + 1:
            raise JournalError(f"hand {entry.number} says the next hand is {entry.next_hand}")
        return entry
    except JournalError:
        raise
    except RecordError as exc:
        raise JournalError(f"the hand is not consistent: {exc}") from None
    except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
        raise JournalError(f"not a journal entry ({type(exc).__name__}: {exc})") from None


def read_journal(path: str | Path) -> tuple[list[JournalEntry], list[str]]:
    """The entries of the journal at ``path`` in order, and a message for each line that
    could not be read (skipped). A missing file is an empty journal."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [], []
    entries, problems = [], []
    for k, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            entries.append(decode_entry(line))
        except JournalError as exc:
            problems.append(f"{path}:{k}: skipped: {exc}")
    return entries, problems


class HandJournal:
    """The journal file, open for appending (one ``write`` per entry)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.appended = 0

    def append(self, entry: JournalEntry) -> None:
        data = encode_entry(entry)
        written = os.write(self.fd, data)
        if written != len(data):  # a full disk: the line is cut short, so the hand is not safe
            raise OSError(f"{self.path}: only {written} of {len(data)} bytes written")
        self.appended += 1

    def clear(self) -> None:
        """Every entry is in the database: start the file again."""
        os.ftruncate(self.fd, 0)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
