"""The one reader shape of the rooms whose hand histories are XML hands one after another
(Boss Media, Everest, Merge); pure functions, no I/O.

Such a file is not one XML document: it is hands (``<HISTORY>``, ``<HAND>``, ``<game>``)
written one after another, perhaps after a line that heads all the hands after it (a
session: Everest's ``<SESSION .../>``, Merge's ``<description .../>``), perhaps inside a
root element that is never closed. So a file is cut into hands as the text rooms' files
are (connectors.logs.rooms.hands_at: at a line that starts a hand, streamed, a hand held
up to rooms.MAX_HAND_CHARS), the session line kept and put before each hand after it,
and each hand is parsed alone by iPoker's hardened expat (connectors.logs.ipoker.parse_xml:
no DOCTYPE, no entity, bounded depth and elements). A hand element closed is whole,
whatever follows it before the next hand (a root's closing tag); one the file cut off is
read as far as it goes, and its end is checked like any hand's by the tracker.

The shape of a room::

    ROOM = XmlRoom(network="merge", signature=SIGNATURE, starts=START, session=DESCRIPTION,
                   read=_read)     # (session element or None, hand element, where) -> RoomHand
    NETWORK = ROOM.network
    identify = ROOM.identify
    ...

and an entry in ``connectors.logs.sources.ROOM_READERS``.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from agent.game.records import BET, RAISE
from connectors.logs import rooms
from connectors.logs.ipoker import Element, parse_xml
from connectors.logs.rooms import Move, Post, RoomError, RoomHand

__all__ = ["Element", "XmlRoom", "add_chips", "attr", "number", "post_blind"]

_HEAD = 8192


@dataclass(frozen=True)
class XmlRoom:
    """A room whose files are XML hands one after another (module docstring)."""

    network: str
    signature: re.Pattern[str]  # searched for in a file's first 8 KiB: the room's files
    starts: re.Pattern[str]  # the line a hand begins with
    read: Callable[[Element | None, Element, str], RoomHand]  # (session, hand, where) -> the hand
    session: re.Pattern[str] | None = None  # the line of an element heading the hands after it

    def identify(self, head: str) -> bool:
        """Whether a file's first part is one of this room's hand histories."""
        return self.signature.search(head[:_HEAD]) is not None

    def read_hands(self, blocks: Iterable[bytes]) -> Iterator[rooms.HandText]:
        """Each hand of a file given as blocks of its bytes, streamed, the session line
        before it put before its text."""
        start = self.starts if self.session is None else re.compile(
            f"(?:{self.session.pattern})|(?:{self.starts.pattern})")
        header: str | None = None
        for found in rooms.hands_at(rooms.text_lines(blocks), start):
            text = found.text
            if self.session is not None and text is not None and not self.starts.match(text):
                header = text.split("\n", 1)[0]  # the session: what follows it (blank lines) says nothing
                continue
            if header is None or text is None:
                yield found
            else:
                yield rooms.HandText(found.line, f"{header}\n{text}", found.size + len(header) + 1)

    def split_hands(self, text: str) -> list[tuple[int, str]]:
        """Each hand of a whole file's text (:meth:`read_hands`)."""
        return [(h.line, h.text) for h in self.read_hands((text.encode("utf-8"),)) if h.text is not None]

    def parse_hand(self, text: str, where: str) -> RoomHand:
        """One hand (its session line first, when the room has one); OtherGame for a hand
        of another game, RoomError for one we cannot read."""
        session = None
        body = text
        if self.session is not None and self.session.match(text):
            head, _, body = text.partition("\n")
            roots, problem = parse_xml(head.encode("utf-8"), where)
            if problem is not None or len(roots) != 1:
                raise RoomError(problem or f"{where}: the session line is not one element")
            session = roots[0]
        roots, problem = parse_xml(body.encode("utf-8"), where)
        if not roots:
            raise RoomError(problem or f"{where}: no hand element")
        hand = roots[0]
        if problem is not None and not hand.closed and not hand.children:
            raise RoomError(problem)
        return self.read(session, hand, where)


def attr(element: Element, name: str, where: str) -> str:
    """An attribute the room always writes; RoomError naming it when it is not there."""
    value = element.attrs.get(name)
    if value is None:
        raise RoomError(f"{where}: <{element.tag}> without {name}=")
    return value


def number(text: str, where: str) -> int:
    """A whole number the room writes (a seat, an order, a time, Everest's cents), bounded;
    RoomError for anything else."""
    if not text.isdigit() or len(text) > 15:
        raise RoomError(f"{where}: not a whole number: {text[:20]!r}")
    return int(text)


def add_chips(hand: RoomHand, wagers: rooms.Wagers, street: int, name: str, added: int,
              written: str | None, where: str) -> None:
    """A move written as the chips it adds: a call, bet or raise as the chips make it
    (rooms.Wagers), RoomError when the room's word for it (``written``: CALL, BET or
    RAISE; None for an all-in) says otherwise (a raise the chips make an opening bet is
    the bet)."""
    if added <= 0:
        raise RoomError(f"{where}: {name} puts in {added} chips where the room writes a move that puts some in")
    made, to = wagers.add(name, added)
    if written is not None and made != written and not (written == RAISE and made == BET):
        raise RoomError(f"{where}: a {written} of {name} putting in {added} chips makes a {made}")
    hand.streets[street].append(Move(name, made, to if made in (BET, RAISE) else None))


def post_blind(hand: RoomHand, wagers: rooms.Wagers, who: str, kind: str, live: int, dead: int = 0) -> None:
    """A post before the cards: ``kind`` "sb" or "bb" for the blinds (a second one is a
    player joining: a live post), "post" for any other, ``dead`` chips to the pot alone."""
    if kind in ("sb", "bb") and (dead or any(p.kind == kind for p in hand.posts)):
        kind = "post"
    post = Post(who, kind, live, dead)
    wagers.post(who, post.live, post.dead)
    hand.posts.append(post)
