"""Everest Poker hand histories (XML: a ``<SESSION .../>`` line, then ``<HAND>`` elements one
after another): fixed-limit hold'em cash games, on connectors.logs.xml_room, read into a
:class:`~connectors.logs.rooms.RoomHand`; pure functions, no I/O.

A file::

    <SESSION time="1335014137" tableName="Kitwe-5" id="1548.205.168" type="ring" money="$"
             screenName="Hero" game="hold-em" gametype="fixed-limit"/>
    <HAND time="1335014414" id="7526266449" index="7" blinds="$0.01/$0.02" stakes="$0.02/$0.04">
      <SEAT position="0" name="Player0" balance="197"/>
      <DEALER position="0"/>
      <BLIND position="2" amount="2" penalty="0"/>
      <HOLE position="2">Jh</HOLE>  <HOLE position="3">--</HOLE> ...   (a card a line, twice round)
      <FOLD position="3"/>  <CHECK position="2"/>  <BET position="0" amount="2"/>
      <SWEEP rake="0" tax="0">8</SWEEP>                    (a street's bets into the pot)
      <COMMUNITY>10d, 10s, Kd</COMMUNITY>
      <PUSH position="2" amount="2"/>                      (the bet nobody called, given back)
      <SHOW position="2">Jh, Jd</SHOW>
      <WIN position="2" amount="8" pot="0" potAmount="8"/>
    </HAND>

Players are named by seat (``position``). Balances and amounts are whole cents; the
stakes are the small and big bet, the blinds the blinds. Every ``BET`` is the chips the
move adds (a call, bet or raise as the chips make it; none, a check). The rake is the
sweeps' rake and tax. The screen name is the hero. Times are Unix times.
"""
from __future__ import annotations

import re

from agent.game.records import CHECK, FOLD
from connectors.logs import rooms
from connectors.logs.rooms import Move, OtherGame, RoomError, RoomHand, chips
from connectors.logs.xml_room import Element, XmlRoom, add_chips, attr, number, post_blind

__all__ = ["NETWORK", "ROOM", "identify", "parse_hand", "read_hands", "split_hands"]

_SESSION = re.compile(r"^\ufeff?\s*<SESSION\b")
_START = re.compile(r"^\s*<HAND\b")
_SIGNATURE = re.compile(r'<SESSION time="\d+" tableName="[^"]*" id="[^"]*" type="')
_CURRENCIES = {"$": "USD", "€": "EUR", "£": "GBP"}
_STREETS = {3: 1, 4: 2, 5: 3}  # board cards -> the street they open


def _read(session: Element | None, hand_element: Element, where: str) -> RoomHand:
    if session is None:
        raise RoomError(f"{where}: a hand without the <SESSION> of its table")
    game = (session.attrs.get("type"), session.attrs.get("game"), session.attrs.get("gametype"))
    if game != ("ring", "hold-em", "fixed-limit"):
        raise OtherGame(f"{where}: {' '.join(g or '?' for g in game)} is not a fixed-limit hold'em cash game",
                        " ".join(g or "?" for g in game))
    blinds = attr(hand_element, "blinds", where).split("/")
    stakes = attr(hand_element, "stakes", where).split("/")
    if len(blinds) != 2 or len(stakes) != 2:
        raise RoomError(f"{where}: cannot read the blinds and stakes")
    small_blind, big_blind = chips(blinds[0], where), chips(blinds[1], where)
    small_bet, big_bet = chips(stakes[0], where), chips(stakes[1], where)
    time = attr(hand_element, "time", where)
    hand = RoomHand("everest", attr(hand_element, "id", where), where, small_blind=small_blind,
                    big_blind=big_blind, small_bet=small_bet, big_bet=big_bet, seats=[],
                    started_at=float(number(time, where)),
                    currency=_CURRENCIES.get(session.attrs.get("money", ""), ""))
    hero = session.attrs.get("screenName")
    seats: dict[str, tuple[int, int]] = {}
    by_seat: dict[str, str] = {}
    holes: dict[str, list[str]] = {}
    wagers = rooms.Wagers()
    won: dict[str, int] = {}
    rake = 0
    street = 0

    def player(element: Element) -> str:
        seat = attr(element, "position", where)
        if seat not in by_seat:
            raise RoomError(f"{where}: <{element.tag}> of position {seat[:10]!r}, where nobody sits")
        return by_seat[seat]

    for e in hand_element.children:
        tag = e.tag
        if tag == "SEAT":
            name = rooms.name_of(attr(e, "name", where), where)
            seat = attr(e, "position", where)
            seats[name] = (number(seat, where), number(attr(e, "balance", where), where))
            by_seat[seat] = name
        elif tag == "DEALER":
            hand.button = number(attr(e, "position", where), where)
        elif tag == "BLIND":
            _blind(hand, wagers, player(e), number(attr(e, "amount", where), where),
                   number(attr(e, "penalty", where), where), where)
        elif tag == "HOLE":
            holes.setdefault(player(e), []).append(e.text.strip())
        elif tag in ("FOLD", "CHECK"):
            hand.streets[street].append(Move(player(e), FOLD if tag == "FOLD" else CHECK))
        elif tag == "BET":
            who, added = player(e), number(attr(e, "amount", where), where)
            if added:
                add_chips(hand, wagers, street, who, added, None, where)
            else:
                hand.streets[street].append(Move(who, CHECK))
        elif tag == "SWEEP":
            rake += number(e.attrs.get("rake", "0"), where) + number(e.attrs.get("tax", "0"), where)
        elif tag == "COMMUNITY":
            board = rooms.cards(e.text, where)
            known = sum(len(c) for c in hand.board)
            new = board[known:] if board[:known] == tuple(c for s in hand.board for c in s) else board
            street = _STREETS.get(known + len(new), 0)
            if not street or street != len(hand.board) + 1 or len(new) != (3 if street == 1 else 1):
                raise RoomError(f"{where}: cannot deal {e.text.strip()[:40]!r} after {known} cards")
            hand.board.append(new)
            wagers.next_street(street)
        elif tag in ("PUSH", "WIN"):
            who = player(e)
            won[who] = won.get(who, 0) + number(attr(e, "amount", where), where)
        elif tag == "SHOW":
            hand.shown[player(e)] = rooms.cards(e.text, where, 2)
        elif tag == "MUCK":
            hand.mucked.add(player(e))
        else:
            raise RoomError(f"{where}: an element <{tag}> Everest's hands are not known to have")
    if hero in holes and all(c != "--" for c in holes[hero]):
        hand.dealt_to(hero, " ".join(holes[hero]), where)
    out = set(seats) - set(holes)  # not dealt in: no hole cards
    return hand.finish(seats, out, won, rake)


def _blind(hand: RoomHand, wagers: rooms.Wagers, who: str, amount: int, penalty: int, where: str) -> None:
    """A blind, told by its amount: the small blind before any big one, the big blind, or
    any other amount a live post (a player joining or coming back)."""
    if penalty:
        raise RoomError(f"{where}: a blind of {who} with a penalty of {penalty}: not known how Everest counts it")
    if amount == hand.small_blind and not any(p.kind == "bb" for p in hand.posts):
        kind = "sb"
    else:
        kind = "bb" if amount == hand.big_blind else "post"
    post_blind(hand, wagers, who, kind, amount)


ROOM = XmlRoom(network="everest", signature=_SIGNATURE, starts=_START, session=_SESSION, read=_read)
NETWORK = ROOM.network
identify = ROOM.identify
split_hands = ROOM.split_hands
read_hands = ROOM.read_hands
parse_hand = ROOM.parse_hand
