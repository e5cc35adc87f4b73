"""Boss Media hand histories (XML: ``<HISTORY ID=... GAMEKIND=...>`` elements one after
another, in a ``<ROOT>`` the files often leave open): fixed-limit hold'em cash games, on
connectors.logs.xml_room, read into a :class:`~connectors.logs.rooms.RoomHand`; pure
functions, no I/O.

A hand::

    <HISTORY ID="2575876940" SESSION="session551247904.xml" TABLE="Table TH 4999" GAME="GAME_THM"
             GAMETYPE="GAMETYPE_REAL" GAMEKIND="GAMEKIND_CASH" TABLECURRENCY="USD" LIMIT="FL"
             STAKES="10.00/20.00" DATE="1304416467" ... WIN="57.00" LOSS="0.00" ENDTIME="1304416512">
    <PLAYER NAME="Player0" SEAT="2" AMOUNT="199.00"></PLAYER>
    <ACTION TYPE="HAND_BLINDS" PLAYER="Player1" KIND="HAND_SB" VALUE="5.00"></ACTION>
        (HAND_BB the big blind; HAND_AB both blinds: the big one live, the rest dead;
         any other post is refused: not seen in a file yet)
    <ACTION TYPE="HAND_DEAL" PLAYER="Hero"><CARD LINK="37"></CARD><CARD LINK="10"></CARD></ACTION>
        (LINK="b": a card not seen)
    <ACTION TYPE="ACTION_RAISE" PLAYER="Hero" VALUE="20.00"></ACTION>
        (ACTION_FOLD, _CHECK, _CALL, _BET, _RAISE, _ALLIN: VALUE is the player's bet afterwards)
    <ACTION TYPE="HAND_BOARD" VALUE="BOARD_FLOP" POT="70.00"><CARD LINK="22"></CARD>...</ACTION>
        (the board so far)
    <SHOWDOWN NAME="HAND_SHOWDOWN" POT="87.00" RAKE="3.00">
    <RESULT PLAYER="Hero" WIN="87.00" HAND="..."><CARD LINK="37"></CARD>...</RESULT>
    </SHOWDOWN></HISTORY>

A card is a number: 0-12 diamonds, 13-25 clubs, 26-38 hearts, 39-51 spades, each ace
first, then two to king. "STAKES" are the small and big bet. A RESULT's WIN is what the
player took after the rake; when the winners took the pot less the rake but not a bet
nobody called, that bet is given back (rooms.Wagers). The hero is the player whose
cards are dealt face up. DATE is a Unix time. The files FPDB kept stop after the last
RESULT, without the closing tags: a hand is read as far as it goes, and the tracker
checks its end.
"""
from __future__ import annotations

import re
from collections.abc import Callable

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import Move, OtherGame, RoomError, RoomHand, chips
from connectors.logs.xml_room import Element, XmlRoom, add_chips, attr, number, post_blind
from evaluator_pyx.cards import CARD_INDEX

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_START = re.compile(r"^\ufeff?\s*<HISTORY ID=")
_SIGNATURE = re.compile(r'<HISTORY ID="\d+" SESSION="[^"]*" TABLE="')
_CARDS = tuple(CARD_INDEX[rank + suit] for suit in "dchs" for rank in "A23456789TJQK")
_MOVES = {"ACTION_CALL": CALL, "ACTION_BET": BET, "ACTION_RAISE": RAISE, "ACTION_ALLIN": None}
_BLINDS = {"HAND_SB": "sb", "HAND_BB": "bb"}
_STREETS = {"BOARD_FLOP": 1, "BOARD_TURN": 2, "BOARD_RIVER": 3}


def _card(element: Element, where: str) -> int | None:
    link = attr(element, "LINK", where)
    if link == "b":
        return None
    if not link.isdigit() or int(link) >= len(_CARDS):
        raise RoomError(f"{where}: not a card: LINK={link[:10]!r}")
    return _CARDS[int(link)]


def _cards(element: Element, where: str) -> tuple[int | None, ...]:
    return tuple(_card(c, where) for c in element.all("CARD"))


def _known(cards: tuple[int | None, ...]) -> tuple[int, ...] | None:
    """The cards when every one of them was seen, else None."""
    seen = tuple(c for c in cards if c is not None)
    return seen if cards and len(seen) == len(cards) else None


def _read(session: Element | None, history: Element, where: str) -> RoomHand:
    a = history.attrs
    game = (a.get("GAME"), a.get("GAMETYPE"), a.get("GAMEKIND"), a.get("LIMIT"))
    if game != ("GAME_THM", "GAMETYPE_REAL", "GAMEKIND_CASH", "FL"):
        raise OtherGame(f"{where}: {' '.join(g or '?' for g in game)} is not a fixed-limit hold'em cash game",
                        " ".join(g or "?" for g in game))
    stakes = attr(history, "STAKES", where).split("/")
    if len(stakes) != 2:
        raise RoomError(f"{where}: cannot read the stakes")
    small_bet, big_bet = chips(stakes[0], where), chips(stakes[1], where)
    date = number(attr(history, "DATE", where), where)
    hand = RoomHand("boss", attr(history, "ID", where), where, small_blind=max(1, small_bet // 2),
                    big_blind=small_bet, small_bet=small_bet, big_bet=big_bet, seats=[], started_at=float(date),
                    currency=a.get("TABLECURRENCY", ""))
    seats: dict[str, tuple[int, int]] = {}
    dealt: set[str] = set()
    wagers = rooms.Wagers()
    won: dict[str, int] = {}
    rake: int | None = None
    street = 0

    def player(element: Element) -> str:
        name = attr(element, "PLAYER", where)
        if name not in seats:
            raise RoomError(f"{where}: <{element.tag}> of {name[:40]!r}, who has no seat")
        return name

    for e in history.children:
        if e.tag == "PLAYER":
            name = rooms.name_of(attr(e, "NAME", where), where)
            if e.attrs.get("STATE", "STATE_PLAYING") == "STATE_EMPTY":
                continue  # an empty seat ("UNKNOWN")
            seats[name] = (number(attr(e, "SEAT", where), where), chips(attr(e, "AMOUNT", where), where))
            if e.attrs.get("DEALER") == "Y":
                hand.button = seats[name][0]
        elif e.tag == "ACTION":
            street = _action(hand, e, player, dealt, wagers, street, where)
        elif e.tag == "SHOWDOWN":
            rake = chips(e.attrs.get("RAKE", "0"), where)
            for result in e.all("RESULT"):
                who = player(result)
                won[who] = won.get(who, 0) + chips(attr(result, "WIN", where), where)
                shown = _known(_cards(result, where))
                if shown is not None and len(shown) == 2 and who != hand.hero:
                    hand.shown[who] = shown
        else:
            raise RoomError(f"{where}: an element <{e.tag}> Boss Media's hands are not known to have")
    if rake is None:
        raise RoomError(f"{where}: the hand has no SHOWDOWN with its result")
    # The winners' WIN leaves out a bet nobody called when the pot less the rake is all they took.
    back = wagers.returned()
    if back is not None and sum(won.values()) + rake + back[1] == sum(wagers.totals.values()):
        won[back[0]] = won.get(back[0], 0) + back[1]
    return hand.finish(seats, set(seats) - dealt, won, rake)


def _action(hand: RoomHand, e: Element, player: Callable[[Element], str], dealt: set[str], wagers: rooms.Wagers, street: int,
            where: str) -> int:
    """One ACTION element read into ``hand``; the street afterwards."""
    kind = attr(e, "TYPE", where)
    if kind == "HAND_BLINDS":
        _blind(hand, wagers, player(e), attr(e, "KIND", where), chips(attr(e, "VALUE", where), where), where)
        dealt.add(player(e))
    elif kind == "HAND_DEAL":
        who = player(e)
        dealt.add(who)
        cards = _known(_cards(e, where))
        if cards is not None:
            if len(cards) != 2:
                raise RoomError(f"{where}: {who} dealt {len(cards)} cards")
            hand.hero = who
            hand.holes[who] = cards
    elif kind == "HAND_BOARD":
        new_street = _STREETS.get(attr(e, "VALUE", where), 0)
        board = _known(_cards(e, where))
        known = sum(len(c) for c in hand.board)
        if not new_street or new_street != len(hand.board) + 1 or board is None \
                or len(board) != known + (3 if new_street == 1 else 1):
            raise RoomError(f"{where}: a board {attr(e, 'VALUE', where)[:20]!r} that cannot be dealt now")
        hand.board.append(board[known:])
        wagers.next_street(new_street)
        return new_street
    elif kind in ("ACTION_FOLD", "ACTION_CHECK"):
        hand.streets[street].append(Move(player(e), FOLD if kind == "ACTION_FOLD" else CHECK))
    elif kind in _MOVES:
        who = player(e)
        to = chips(attr(e, "VALUE", where), where)
        add_chips(hand, wagers, street, who, to - wagers.bets.get(who, 0), _MOVES[kind], where)
    else:
        raise RoomError(f"{where}: an action {kind[:30]!r}")
    return street


def _blind(hand: RoomHand, wagers: rooms.Wagers, who: str, kind: str, amount: int, where: str) -> None:
    if kind == "HAND_AB":
        live = min(amount, hand.small_bet)
        post_blind(hand, wagers, who, "post", live, amount - live)  # both blinds: the big one live, the small dead
    elif kind in _BLINDS:
        post_blind(hand, wagers, who, _BLINDS[kind], amount)
    else:
        raise RoomError(f"{where}: a blind {kind[:30]!r}")


ROOM = XmlRoom(network="boss", signature=_SIGNATURE, starts=_START, read=_read)
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
