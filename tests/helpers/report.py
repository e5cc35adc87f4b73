"""A played database for the report's tests."""
from __future__ import annotations

from agent.game.events import BoardDealt, HandEnded, HandStarted, HoleCards, PlayerActed, PlayerLeft
from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from agent.game.rules import Action
from agent.game.tracker import Tracker
from evaluator_pyx.cards import parse_cards

_ACT = {"f": (Action.FOLD, FOLD), "k": (Action.CHECK_CALL, CHECK), "c": (Action.CHECK_CALL, CALL),
        "b": (Action.BET_RAISE, BET), "r": (Action.BET_RAISE, RAISE)}


BOARD = ("2c7d9h", "Ts", "Jd")


def play(hand_id: str, seats: str, script: str, *, stacks: dict[str, int] | None = None, button: int = -1):
    """One hand through the tracker: ``seats`` is "name:cards ..." in table order (the
    last one is the button unless ``button`` says), ``script`` is "name:act ..." with
    "|" dealing the next street of BOARD; the rules settle the pot from the cards."""
    names, cards = zip(*(s.split(":") for s in seats.split()))
    stacks = stacks or {}
    t = Tracker()
    t.apply(HandStarted(hand_id=hand_id, source=f"test:{hand_id}", players=tuple(names),
                        stacks=tuple(stacks.get(n, 1000) for n in names), button=button % len(names),
                        small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4))
    for name, c in zip(names, cards):
        t.apply(HoleCards(name, tuple(parse_cards(c))))
    streets = iter(BOARD)
    for item in script.split():
        if item == "|":
            t.apply(BoardDealt(tuple(parse_cards(next(streets)))))
            continue
        name, act = item.split(":")
        if act == "Q":  # quits the table: not an action, out of the hand
            t.apply(PlayerLeft(name))
            continue
        action, kind = _ACT[act]
        t.apply(PlayerActed(name, action, kind=kind))
    for rest in streets:  # an all-in run-out
        if t.waiting_for != "the board":
            break
        t.apply(BoardDealt(tuple(parse_cards(rest))))
    record = t.apply(HandEnded())
    record.check()
    return record
