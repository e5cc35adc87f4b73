"""The complete record of one finished hand: what the tracker produces at the end of a
hand and what the database, the logs and the reports consume.

Everything here is plain data (ints, strings, tuples) so a record can cross a process
boundary or be written as JSON unchanged.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from agent.game.context import decision_context

ROUND_NAMES = ("preflop", "flop", "turn", "river")

# Action kinds. Blinds are forced, not decisions; every other kind is one of the three
# choices a limit player has (fold / check-or-call / bet-or-raise).
SMALL_BLIND = "sb"
BIG_BLIND = "bb"
FOLD = "f"
CHECK = "k"
CALL = "c"
BET = "b"
RAISE = "r"
BLIND_KINDS = frozenset({SMALL_BLIND, BIG_BLIND})
DECISION_KINDS = frozenset({FOLD, CHECK, CALL, BET, RAISE})
# The fold / call / raise class of each decision: the three entries of a probability triple.
ACTION_CLASS = {FOLD: 0, CHECK: 1, CALL: 1, BET: 2, RAISE: 2}


class RecordError(ValueError):
    """A hand record that is not internally consistent; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    player: str
    stack: int  # chips at the start of the hand
    position: int  # seats after the button, clockwise: 1 = first after the button, n = button


@dataclass(frozen=True, slots=True)
class ActionRecord:
    round: int  # 0 pre-flop, 1 flop, 2 turn, 3 river
    player: str
    kind: str  # one of sb bb f k c b r
    amount: int  # chips this action put in
    bets_to_call: int  # whole bets faced: ceil(chips to call / bet size of the round)
    raises: int  # bets made this round before this action (pre-flop the big blind is one)
    position: int  # the actor's SeatRecord.position
    players_active: int  # players not folded when this action was taken (the actor included)
    all_in: bool = False  # this action put the player's last chip in

    @property
    def context(self) -> int:
        """Opponent-model context 0..11: round × bets to call (0, 1, 2+) ([poki-2002])."""
        return decision_context(self.round, self.bets_to_call)


@dataclass(frozen=True, slots=True)
class ShownCards:
    player: str
    cards: tuple[int, ...]  # card ints (evaluator_pyx.cards)


@dataclass(frozen=True, slots=True)
class PlayerResult:
    player: str
    put_in: int  # chips put into the pot in this hand
    won: int  # chips taken from the pot


@dataclass(frozen=True, slots=True)
class HandRecord:
    hand_id: str  # stable id from the source, so the same hand is never stored twice
    source: str  # where it came from, for people: "hdb:1234", "irc #holdem game 17", ...
    started_at: float | None  # Unix time when known
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    max_bets: int
    seats: tuple[SeatRecord, ...]  # in clockwise table order
    board: tuple[int, ...]
    actions: tuple[ActionRecord, ...]  # in the order they were taken
    shown: tuple[ShownCards, ...]
    results: tuple[PlayerResult, ...]  # one per seat
    # Chips the house took from the pot (online rooms' rake): what the players took from
    # it (``won``) is the chips put in less this.
    rake: int = 0
    hero: str | None = None  # the player the source was written for, when it says
    # A tournament's hand (HandStarted): its id and blind level; None for a cash game.
    tournament: str | None = None
    level: str | None = None

    def check(self) -> None:
        """Raise RecordError unless the record is self-consistent (chips balance, every
        actor is seated, amounts add up, rounds only move forward)."""
        names = [s.player for s in self.seats]
        if len(set(names)) != len(names):
            raise RecordError(f"{self.hand_id}: a player is seated twice")
        # Logs of real games hold up to 12 players; 23 is what one deck can deal.
        if not 2 <= len(names) <= 23:
            raise RecordError(f"{self.hand_id}: {len(names)} players seated")
        seated = set(names)
        if len(self.board) not in (0, 3, 4, 5) or len(set(self.board)) != len(self.board):
            raise RecordError(f"{self.hand_id}: board of {len(self.board)} cards")
        put_in = dict.fromkeys(names, 0)
        last_round = 0
        for i, act in enumerate(self.actions):
            if act.player not in seated:
                raise RecordError(f"{self.hand_id}: action {i} by unseated player {act.player!r}")
            if act.kind not in BLIND_KINDS and act.kind not in DECISION_KINDS:
                raise RecordError(f"{self.hand_id}: action {i} has unknown kind {act.kind!r}")
            if act.round < last_round or not 0 <= act.round <= 3:
                raise RecordError(f"{self.hand_id}: action {i} in round {act.round} out of order")
            if act.amount < 0:
                raise RecordError(f"{self.hand_id}: action {i} puts in {act.amount} chips")
            last_round = act.round
            put_in[act.player] += act.amount
        if sorted(r.player for r in self.results) != sorted(names):
            raise RecordError(f"{self.hand_id}: results do not list every seated player once")
        for r in self.results:
            if r.put_in != put_in[r.player]:
                raise RecordError(
                    f"{self.hand_id}: {r.player} put in {r.put_in} by the results "
                    f"but {put_in[r.player]} by the actions"
                )
            if r.won < 0:
                raise RecordError(f"{self.hand_id}: {r.player} won {r.won}")
        total_in = sum(r.put_in for r in self.results)
        total_won = sum(r.won for r in self.results)
        if type(self.rake) is not int or self.rake < 0:
            raise RecordError(f"{self.hand_id}: rake of {self.rake!r}")
        if total_in != total_won + self.rake:
            raked = f" and {self.rake} raked" if self.rake else ""
            raise RecordError(f"{self.hand_id}: {total_in} chips put in but {total_won} won{raked}")
        if self.hero is not None and self.hero not in seated:
            raise RecordError(f"{self.hand_id}: the hero {self.hero!r} is not seated")
        for s in self.shown:
            if s.player not in seated or len(s.cards) != 2:
                raise RecordError(f"{self.hand_id}: bad shown cards for {s.player!r}")


@dataclass
class WriteReport:
    """What became of the hands given to a store (the database or an in-memory one)."""

    stored: int = 0
    duplicates: int = 0
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (hand id, reason)

    def add(self, other: WriteReport) -> None:
        self.stored += other.stored
        self.duplicates += other.duplicates
        self.rejected.extend(other.rejected)

    def __str__(self) -> str:
        return f"{self.stored} stored, {self.duplicates} duplicates, {len(self.rejected)} rejected"


def content_digest(record: HandRecord, dealt: tuple[int, ...] = ()) -> str:
    """A short digest of what happened in a hand: when it started, who sat where with
    what, the board, every action, the cards shown and the results, and ``dealt`` (every
    card dealt, where the table knows them); the same for the same hand however it was
    named or numbered."""
    text = repr((record.started_at, record.small_blind, record.big_blind, record.small_bet, record.big_bet,
                 record.max_bets, record.seats, record.board, record.actions, record.shown, record.results,
                 tuple(int(c) for c in dealt)))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=6).hexdigest()


def with_content_id(record: HandRecord, dealt: tuple[int, ...] = ()) -> HandRecord:
    """``record`` under an id that names its content too (``<id>:<digest>``), so hands are
    told apart by what happened in them, not only by a match name and a hand number (a
    reused name, a repeated number), and the same hand is still recognised as stored."""
    return replace(record, hand_id=f"{record.hand_id}:{content_digest(record, dealt)}")
