"""Merge Gaming network hand histories (XML: ``<description .../>`` then ``<game id=...>``
one after another): fixed-limit hold'em cash games, on connectors.logs.xml_room, read
into a :class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A file::

    <description type="Holdem" stakes="Limit $0.02/$0.04"/>
    <game id="33325037-500" starttime="20110416150310" numholecards="2" gametype="2" realmoney="true" ...>
      <players dealer="1">
        <player seat="0" nickname="stackhouse777" balance="$0.56" dealtin="true" />
        <player seat="8" nickname="DnDGeek" balance="$0.80" dealtin="false" />   (not dealt in)
      </players>
      <round id="BLINDS" sequence="1"><event sequence="1" type="SMALL_BLIND" player="2" amount="0.01"/>...
      <round id="PREFLOP" ...> (POSTFLOP, POSTTURN, POSTRIVER)
        <event type="RAISE" player="4" amount="0.04"/>  FOLD CHECK CALL BET RAISE ALL_IN LEAVE
        <cards type="COMMUNITY" cards="2h,Ah,5d"/>     (the board so far: the street's cards)
        <cards type="HOLE" cards="2d,Td" player="8"/>  (the hero's)
      <round id="SHOWDOWN"> SHOW / MUCK events, <cards type="SHOWN"|"MUCKED" cards=... player=...>
      <round id="END_OF_GAME"><winner amount="0.59" uncalled="false" potnumber="1" player="7"/>
    </game>

Players are named by seat in the events. A call's or bet's amount is the chips it adds,
a raise's the player's bet afterwards. The stakes are the small and big bet. The winners' amounts are after the
rake (an uncalled bet given back is a winner too, ``uncalled="true"``); the rake is the
pot less what they took. Start times carry no zone and are read as UTC. A game the file
stops before its end (the hero left the table: no END_OF_GAME) has no result: it is
skipped and counted as a partial hand (rooms.PartialHand).
"""
from __future__ import annotations

import re
from datetime import datetime

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import Move, OtherGame, PartialHand, RoomError, RoomHand, chips
from connectors.logs.xml_room import Element, XmlRoom, add_chips, attr, number, post_blind

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_DESCRIPTION = re.compile(r'^\ufeff?\s*<description\b')
_START = re.compile(r'^\s*<game id=')
_SIGNATURE = re.compile(r'<description type="[^"]*" stakes="[^"]*"\s*/>\s*<game id="', re.S)
_LIMIT = re.compile(r"^Limit \(?(?P<small>[^/\s]+)/(?P<big>[^)\s]+)\)?$")
_BLINDS = {"SMALL_BLIND": "sb", "BIG_BLIND": "bb"}
_STREETS = {"PREFLOP": 0, "POSTFLOP": 1, "POSTTURN": 2, "POSTRIVER": 3}
_MOVES = {"CALL": CALL, "BET": BET, "RAISE": RAISE, "ALL_IN": None}
# The rounds a showdown's shows and mucks may be written in (a game all folded but one ends
# in END_OF_FOLDED_GAME, where the players may still show or muck).
_ENDS = ("SHOWDOWN", "END_OF_FOLDED_GAME", "END_OF_GAME")
_CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP"}


def _read(session: Element | None, game: Element, where: str) -> RoomHand:
    if session is None:
        raise RoomError(f"{where}: a game without the <description> of its table")
    kind, stakes = session.attrs.get("type", ""), session.attrs.get("stakes", "")
    limit = _LIMIT.match(stakes)
    if kind != "Holdem" or limit is None:
        raise OtherGame(f"{where}: {kind} {stakes} is not a fixed-limit hold'em cash game", f"{kind} {stakes}")
    if game.attrs.get("realmoney") != "true":
        raise OtherGame(f"{where}: a play-money game", "play money")
    small_bet, big_bet = chips(limit.group("small"), where), chips(limit.group("big"), where)
    started = attr(game, "starttime", where)
    try:
        when = rooms.room_time(datetime.strptime(started, "%Y%m%d%H%M%S"), None, where)
    except ValueError:
        raise RoomError(f"{where}: cannot read the start time {started[:20]!r}") from None
    players = game.find("players")
    if players is None:
        raise RoomError(f"{where}: a game without its players")
    dealer = players.attrs.get("dealer", "")
    hand = RoomHand("merge", attr(game, "id", where), where, small_blind=max(1, small_bet // 2),
                    big_blind=small_bet, small_bet=small_bet, big_bet=big_bet, seats=[],
                    button=number(dealer, where) if dealer else None, started_at=when,
                    currency=_CURRENCIES.get(limit.group("small")[:1], ""))
    seats: dict[str, tuple[int, int]] = {}
    by_seat: dict[str, str] = {}
    out: set[str] = set()
    for p in players.all("player"):
        name = rooms.name_of(attr(p, "nickname", where), where)
        seat = attr(p, "seat", where)
        seats[name] = (number(seat, where), chips(attr(p, "balance", where), where))
        by_seat[seat] = name
        if p.attrs.get("dealtin") != "true":
            out.add(name)
    wagers = rooms.Wagers()
    won: dict[str, int] = {}
    rounds = sorted(game.all("round"), key=lambda r: number(attr(r, "sequence", where), where))
    for rnd in rounds:
        _round(hand, rnd, by_seat, wagers, won, where)
    if not any(r.attrs.get("id") == "END_OF_GAME" for r in rounds):
        raise PartialHand(f"{where}: the file stops before the game's end (the room writes no more of a game "
                          "once the hero has left the table)")
    if not won:
        raise RoomError(f"{where}: the game has no winner")
    rake = sum(wagers.totals.values()) - sum(won.values())
    if rake < 0:
        raise RoomError(f"{where}: the winners took {-rake} more chips than the pot held")
    return hand.finish(seats, out, won, rake)


def _round(hand: RoomHand, rnd: Element, by_seat: dict[str, str], wagers: rooms.Wagers, won: dict[str, int],
           where: str) -> None:
    name = rnd.attrs.get("id", "")

    def player(element: Element) -> str:
        seat = attr(element, "player", where)
        if seat not in by_seat:
            raise RoomError(f"{where}: <{element.tag}> of seat {seat[:10]!r}, where nobody sits")
        return by_seat[seat]

    street = _STREETS.get(name)
    if street is not None:
        wagers.next_street(street)
        for cards in rnd.all("cards"):
            kind = cards.attrs.get("type")
            if kind == "COMMUNITY":
                board = rooms.cards(attr(cards, "cards", where), where)
                known = sum(len(c) for c in hand.board)
                if len(board) != known + (3 if street == 1 else 1) or street != len(hand.board) + 1:
                    raise RoomError(f"{where}: the board {board} in round {name}")
                hand.board.append(board[known:])
            elif kind == "HOLE":
                hand.dealt_to(player(cards), attr(cards, "cards", where), where)
            else:
                raise RoomError(f"{where}: cards of type {kind!r} in round {name}")
    for event in sorted(rnd.all("event"), key=lambda e: number(attr(e, "sequence", where), where)):
        kind = attr(event, "type", where)
        if kind == "LEAVE":
            continue  # the player leaves after his last move: it says nothing about the play
        who = player(event)
        if name == "BLINDS":
            _blind(hand, wagers, who, kind, chips(attr(event, "amount", where), where), where)
        elif street is not None and kind in ("FOLD", "CHECK"):
            hand.streets[street].append(Move(who, FOLD if kind == "FOLD" else CHECK))
        elif street is not None and kind in _MOVES:
            amount = chips(attr(event, "amount", where), where)
            added = amount - wagers.bets.get(who, 0) if kind == "RAISE" else amount
            add_chips(hand, wagers, street, who, added, _MOVES[kind], where)
        elif name in _ENDS and kind in ("SHOW", "MUCK"):
            if kind == "MUCK":
                hand.mucked.add(who)
        else:
            raise RoomError(f"{where}: an event {kind!r} in round {name!r}")
    if name in _ENDS:
        for cards in rnd.all("cards"):
            if cards.attrs.get("type") not in ("SHOWN", "MUCKED"):
                raise RoomError(f"{where}: cards of type {cards.attrs.get('type')!r} at the showdown")
            hand.shown[player(cards)] = rooms.cards(attr(cards, "cards", where), where, 2)
    for winner in rnd.all("winner"):
        who = player(winner)
        won[who] = won.get(who, 0) + chips(attr(winner, "amount", where), where)


def _blind(hand: RoomHand, wagers: rooms.Wagers, who: str, kind: str, amount: int, where: str) -> None:
    if kind not in _BLINDS:
        raise RoomError(f"{where}: a post {kind!r}")
    post_blind(hand, wagers, who, _BLINDS[kind], amount)


ROOM = XmlRoom(network="merge", signature=_SIGNATURE, starts=_START, session=_DESCRIPTION, read=_read)
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
