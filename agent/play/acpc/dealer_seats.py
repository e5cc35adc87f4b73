"""The ACPC dealer's match types (agent.play.acpc.dealer): its limits, what it reports
per seat and per match, and a seat as the dealer holds it (a remote connection or an
in-process seat)."""
from __future__ import annotations

import socket
from dataclasses import dataclass, field
from typing import Protocol

from agent.game.context import GameContext
from agent.game.events import Event, PlayerActed
from agent.game.records import HandRecord
from agent.game.rules import Action
from connectors.acpc.client import LineFramer
from connectors.acpc.protocol import MAX_LINE_BYTES

__all__ = ["MAX_CALLERS", "Caller", "DealerError", "DealerLimits", "LocalSeat", "MatchOutcome", "SeatReport",
           "TableSeat"]

# Connections a port keeps waiting for their greeting; one more closes the oldest, so a
# crowd that never greets cannot keep the seat's player out.
MAX_CALLERS = 8


class LocalSeat(Protocol):
    """An in-process seat (see agent.play.acpc.dealer's module docstring); the seat
    runtime's agent.play.seat.Seat is one. Every member is called on the dealer's thread."""

    @property
    def follows_events(self) -> bool:
        """True: fed every event (``feed``) and asked with ``decide``; False: asked with
        the dealer's snapshot (``decide_on``) and told each hand's end (``hand_done``)."""
        ...

    def feed(self, event: Event) -> object: ...

    def decide(self, deadline_s: float | None = None) -> Action: ...

    def decide_on(self, ctx: GameContext) -> Action: ...

    def hand_done(self, record: HandRecord) -> None: ...


class DealerError(RuntimeError):
    """The match cannot be held (bad setup, players that never came)."""


@dataclass(frozen=True)
class DealerLimits:
    response_timeout: float = 60.0  # seconds for one answer; then it is taken as a call
    budget_per_hand: float = 7.0  # seconds per hand of the match a seat's answers may use
    connect_timeout: float | None = 600.0  # seconds to wait for every player (None: forever)
    max_line: int = MAX_LINE_BYTES
    greet_timeout: float = 10.0  # seconds a new connection has to send its greeting


@dataclass
class SeatReport:
    """What happened to one seat over the match."""

    name: str
    total: int = 0  # chips won minus put in
    actions: int = 0
    invalid: int = 0  # malformed or illegal actions, taken as calls
    timeouts: int = 0  # no answer in time, taken as calls
    ignored: int = 0  # lines that answered nothing (un-requested, garbage)
    dropped: int = 0  # over-long lines
    seconds: float = 0.0  # time its answers took
    disconnected: bool = False
    folded_out: str = ""  # why the seat folds for the rest of the match

    @property
    def errors(self) -> int:
        return self.invalid + self.timeouts + self.ignored + self.dropped


@dataclass
class MatchOutcome:
    hands: int
    seats: list[SeatReport]
    log_lines: list[str] = field(default_factory=list)

    @property
    def totals(self) -> dict[str, int]:
        return {s.name: s.total for s in self.seats}


@dataclass(eq=False)
class Caller:
    """A connection at a seat's port that has not greeted yet."""

    sock: socket.socket
    where: str  # address:port
    deadline: float  # on the dealer's clock: greet by then or be closed
    framer: LineFramer


class TableSeat:
    """A seat's connection (remote) or in-process seat (local)."""

    def __init__(self, index: int, name: str, local: LocalSeat | None, limits: DealerLimits) -> None:
        self.index = index
        self.name = name
        self.local = local
        self.report = SeatReport(name)
        self.listener: socket.socket | None = None
        self.sock: socket.socket | None = None
        self.framer = LineFramer(f"seat {index + 1} ({name})", limits.max_line)
        self.lines: list[str] = []
        self.greeted = local is not None
        self.callers: list[Caller] = []  # connections at its port waiting to greet
        self.refused = 0  # connections closed without taking the seat
        self.out: list[bytes] = []  # lines not yet sent (written when we next wait)
        self.out_bytes = 0
        self.acted = {a: PlayerActed(name, a) for a in Action}  # its moves, built once
        self.viewer = False  # in-process and asked with the dealer's snapshot (this hand)

    @property
    def where(self) -> str:
        return f"seat {self.index + 1} ({self.name})"

    @property
    def live(self) -> bool:
        return not self.report.disconnected and not self.report.folded_out
