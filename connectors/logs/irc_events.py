"""A hand read from the IRC Poker Database (connectors.logs.irc_database.IrcHand) as tracker
events; a pure function, no I/O.

The events follow the log's order exactly: the hand starts with the seats in position
order (position 1, the first blind, is seat 0; the button, the highest position, is the
last seat), every player's bankroll as the stack and the 1995 dealer's rules
(agent.game.rules.IRC_1995). The blinds are given as the nominal amounts (5 and 10, or a
single 10); the rules post what a short player can afford. Hole cards are known only
where the log shows them at a showdown; every other seat is dealt face down. Quits and
kicks become ``PlayerLeft`` (in turn or not: leaving is not a betting decision), the
dealer's all-in for a lost connection ``PlayerAllIn``. At a showdown the shown hands are
shown and players still in who showed nothing and won nothing muck. The hand ends with
the chips each player won by the log, which the tracker checks against the rules.
"""
from __future__ import annotations

from agent.game.events import (
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCards,
    PlayerActed,
    PlayerAllIn,
    PlayerLeft,
)
from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from agent.game.rules import IRC_1995, Action
from agent.game.slots import slot_constructor
from connectors.logs import irc_database
from connectors.logs.irc_database import IrcHand

__all__ = ["IRC_NETWORK", "irc_hand_events", "irc_hand_id"]

IRC_NETWORK = "irc1995"  # the network the IRC Poker Database's nicks are stored under
_TWO_BLINDS = (irc_database.SMALL_BLIND, irc_database.BIG_BLIND)
_ONE_BLIND = (irc_database.BIG_BLIND,)
_STREETS = ((0, 0), (0, 3), (3, 4), (4, 5))  # board slice of each round
_DECISIONS = {
    irc_database.FOLD: (Action.FOLD, FOLD),
    irc_database.CHECK: (Action.CHECK_CALL, CHECK),
    irc_database.CALL: (Action.CHECK_CALL, CALL),
    irc_database.BET: (Action.BET_RAISE, BET),
    irc_database.RAISE: (Action.BET_RAISE, RAISE),
}
_LEAVING = (irc_database.QUIT, irc_database.KICKED)
_BLINDS = (irc_database.BLIND_SMALL, irc_database.BLIND_BIG)
_GONE = frozenset((irc_database.FOLD, irc_database.QUIT, irc_database.KICKED))

# Events are built by filling their slots directly: a frozen dataclass's own __init__
# goes through object.__setattr__ per field, which would be most of this module's time.
_started = slot_constructor(HandStarted)
_acted = slot_constructor(PlayerActed)
_board = slot_constructor(BoardDealt)
_holes = slot_constructor(HoleCards)
_shown = slot_constructor(CardsShown)
_ended = slot_constructor(HandEnded)
# A player's decision events are the same value every time (player, action, kind): one
# shared immutable object per combination saves building a quarter million of them a month.
_decision_events: dict[tuple[str, str], PlayerActed] = {}
_DECISION_EVENTS_MAX = 100_000


def irc_hand_id(timestamp: int) -> str:
    """The stable id of an IRC database hand: its timestamp, which the database keeps
    unique per hand."""
    return f"irc:{timestamp}"


def irc_hand_events(hand: IrcHand) -> list[Event]:
    """The tracker events of one logged hand, in the order they happened."""
    players = hand.players
    n = len(players)
    nicks = tuple([p.nick for p in players])
    # HandStarted's fields in order: hand id, source, players, stacks, button, blinds,
    # bets, cap, heads-up reverse blinds, start time, free folds, blinds posted, variant,
    # hero, tournament and level (a cash game: none).
    events: list[Event] = [_started(
        irc_hand_id(hand.hand_id), hand.source, nicks, tuple([p.bankroll for p in players]), n - 1,
        irc_database.SMALL_BLIND, irc_database.BIG_BLIND, irc_database.BET_SIZES[0], irc_database.BET_SIZES[2],
        irc_database.MAX_RAISES + 1, False, float(hand.hand_id), True,
        _TWO_BLINDS if hand.two_blinds else _ONE_BLIND, IRC_1995, None, None, None,
    )]
    append = events.append
    for p in players:
        if p.hole_cards is not None:
            append(_holes(p.nick, p.hole_cards))
    board = hand.board
    street = 0
    live = [True] * n
    decisions = _DECISIONS
    cached = _decision_events
    for a in hand.actions:
        kind = a.kind
        if kind in _BLINDS:
            continue  # posted by the rules when the hand starts
        rnd = a.round
        while street < rnd:
            street += 1
            lo, hi = _STREETS[street]
            append(_board(board[lo:hi]))
        decision = decisions.get(kind)
        if decision is not None:
            key = (a.nick, kind)
            event = cached.get(key)
            if event is None:
                if len(cached) >= _DECISION_EVENTS_MAX:
                    cached.clear()
                event = cached[key] = _acted(a.nick, decision[0], None, decision[1])
            append(event)
        elif kind in _LEAVING:
            append(PlayerLeft(a.nick))
        else:  # irc_database.ALL_IN: declared all-in for what he put in
            append(PlayerAllIn(a.nick))
        if kind in _GONE:
            live[a.position - 1] = False
    # The rest of the board: an all-in run-out, or the streets after the last action.
    while _STREETS[street][1] < len(board):
        street += 1
        lo, hi = _STREETS[street]
        append(_board(board[lo:hi]))
    if live.count(True) > 1:
        # The showdown: shown hands first, then those who showed nothing and won nothing
        # gave up their claim.
        for i, p in enumerate(players):
            if live[i] and p.hole_cards is not None:
                append(_shown(p.nick, p.hole_cards))
        for i, p in enumerate(players):
            if live[i] and p.hole_cards is None and not p.won:
                append(CardsMucked(p.nick))
    append(_ended(tuple([(p.nick, p.won) for p in players]), None, 0))
    return events
