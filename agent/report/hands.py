"""The hand replayer: one stored hand (db.reads.hand_rows) rebuilt street by street for
the report's pages: the seats with their stacks, the blinds, each action with the pot
after it, the board as it was dealt, the cards shown and who won what, with the chips
that moved between each pair of players (agent.report.flows, the same attribution as
the report's won-from/lost-to figures).

The served report (agent.report.serve) shows it at /hand/SEQ; the file report
(agent.report.page) writes hands/SEQ.html for the hands it lists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from agent.game.records import BET, BIG_BLIND, CALL, CHECK, FOLD, RAISE, SMALL_BLIND
from db.reads import HandRows

from .flows import hand_flows

STREET_TITLES = ("Pre-flop", "Flop", "Turn", "River")
# The board cards dealt before each street's betting: none, the flop's three, one, one.
_BOARD_SEEN = (0, 3, 4, 5)
_CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
_SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


@dataclass(frozen=True)
class Card:
    """A card as the page shows it: rank and suit symbol, red or black; a text that is
    not a card is shown as it is (escaped by the template) with no suit."""

    text: str
    red: bool

    @staticmethod
    def of(code: str) -> Card:
        if _CARD.match(code):
            return Card(code[0].replace("T", "10") + _SUITS[code[1]], code[1] in "dh")
        return Card(code, False)


def cards(text: str) -> list[Card]:
    return [Card.of(c) for c in text.split()]


@dataclass(frozen=True)
class Step:
    """One action: who, what (words), the chips it put in, the pot after it."""

    player: str
    pid: int
    kind: str
    words: str
    amount: int
    pot: int
    all_in: bool


@dataclass(frozen=True)
class Street:
    index: int  # 0 pre-flop .. 3 river
    title: str
    board: list[Card]  # the whole board as it stands on this street
    steps: list[Step]
    pot: int  # after the street's betting
    stacks: dict[int, int]  # player -> chips behind after the street's betting


@dataclass(frozen=True)
class SeatView:
    pid: int
    name: str
    position: int
    where: str  # button, small blind, big blind, or "n after the button"
    stack: int
    hero: bool


@dataclass(frozen=True)
class Outcome:
    pid: int
    name: str
    put_in: int
    won: int
    shown: list[Card]
    folded_in: str | None  # the street the player folded on, if he did

    @property
    def net(self) -> int:
        return self.won - self.put_in


@dataclass(frozen=True)
class Flow:
    """Chips one player won from another in this hand."""

    winner: str
    loser: str
    chips: float
    winner_pid: int
    loser_pid: int


@dataclass(frozen=True)
class HandReplay:
    hand: HandRows  # as stored: its id, source, time, blinds and bets, pot and rake
    seats: list[SeatView]
    streets: list[Street]
    board: list[Card]
    outcomes: list[Outcome]
    winners: list[Outcome]
    flows: list[Flow]


def _words(kind: str, amount: int, to: int, all_in: bool) -> str:
    text = {
        SMALL_BLIND: f"posts the small blind {amount}",
        BIG_BLIND: f"posts the big blind {amount}",
        FOLD: "folds",
        CHECK: "checks",
        CALL: f"calls {amount}",
        BET: f"bets {amount}",
        RAISE: f"raises to {to}",
    }.get(kind, f"{kind} {amount}")  # a kind no writer of ours makes: shown as stored
    return text + (" and is all-in" if all_in else "")


def _where(position: int, seated: int, blinds: dict[int, str], pid: int) -> str:
    if pid in blinds:
        return blinds[pid] + (" (button)" if position == seated else "")
    if position == seated:
        return "button"
    return f"{position} after the button"


def replay(hand: HandRows, heroes: set[int] | None = None) -> HandReplay:
    """The hand street by street, from its stored rows. ``heroes``: the players who are
    us (marked on the page); the source's own hero is always one."""
    us = set(heroes or ()) | ({hand.hero} if hand.hero is not None else set())
    names = {s.player: s.name for s in hand.seats}
    blinds = {a.player: ("small blind" if a.kind == SMALL_BLIND else "big blind")
              for a in hand.actions if a.kind in (SMALL_BLIND, BIG_BLIND)}
    seats = [SeatView(s.player, s.name, s.position, _where(s.position, len(hand.seats), blinds, s.player), s.stack,
                      s.player in us) for s in hand.seats]
    board_codes = hand.board.split()
    stacks = {s.player: s.stack for s in hand.seats}
    pot = 0
    streets: list[Street] = []
    folded_in: dict[int, str] = {}
    bad = sorted({a.round for a in hand.actions if not 0 <= a.round <= 3})
    if bad:
        raise ValueError(f"hand {hand.hand_id}: actions in round(s) {bad}, which do not exist "
                         f"(`poki db check` examines the file)")
    last_round = max((a.round for a in hand.actions), default=0)
    # A street is shown if it had betting or its cards were dealt (all-in players see the
    # board run out with no betting).
    dealt = max((r for r in range(4) if _BOARD_SEEN[r] <= len(board_codes)), default=0)
    for rnd in range(max(last_round, dealt) + 1):
        put: dict[int, int] = {}  # chips in this round so far, for "raises to"
        steps = []
        for a in hand.actions:
            if a.round != rnd:
                continue
            put[a.player] = put.get(a.player, 0) + a.amount
            pot += a.amount
            stacks[a.player] = stacks.get(a.player, 0) - a.amount
            if a.kind == FOLD:
                folded_in[a.player] = STREET_TITLES[rnd]
            steps.append(Step(names.get(a.player, f"#{a.player}"), a.player, a.kind,
                              _words(a.kind, a.amount, put[a.player], a.all_in), a.amount, pot, a.all_in))
        streets.append(Street(rnd, STREET_TITLES[rnd], cards(" ".join(board_codes[:_BOARD_SEEN[rnd]])), steps, pot,
                              dict(stacks)))
    results = {r.player: r for r in hand.results}
    outcomes = [Outcome(s.player, s.name, results[s.player].put_in if s.player in results else 0,
                        results[s.player].won if s.player in results else 0,
                        cards(hand.shown.get(s.player, "")), folded_in.get(s.player)) for s in hand.seats]
    order = [s.player for s in hand.seats]  # by position: clockwise from the button's left
    flows, _ = hand_flows(order, {p: r.put_in for p, r in results.items()}, {p: r.won for p, r in results.items()},
                          set(folded_in))
    flow_list = sorted((Flow(names.get(w, f"#{w}"), names.get(l_, f"#{l_}"), chips, w, l_)
                        for (w, l_), chips in flows.items() if chips > 1e-9), key=lambda f: -f.chips)
    return HandReplay(hand=hand, seats=seats, streets=streets, board=cards(hand.board), outcomes=outcomes,
                      winners=[o for o in outcomes if o.won > 0], flows=flow_list)
