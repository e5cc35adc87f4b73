"""iPoker network hand histories (XML: ``<session>`` of ``<game gamecode=...>``):
fixed-limit hold'em cash games read into a :class:`~connectors.logs.rooms.RoomHand`;
pure functions, no I/O.

A session names the game, the currency and the hero once; each game lists its players
(seat, name, chips, dealer, win, bet: the chips each put in and took, after the rake,
an uncalled bet counting in both) and its rounds (0 the blinds, 1 the pocket cards and
pre-flop play, 2-4 flop, turn, river), whose actions are numbered but not written in
order::

    <session sessioncode="3077944141">
    <general><gametype>Holdem L $10/$20</gametype><currency>USD</currency>
             <nickname>Hero</nickname>...</general>
    <game gamecode="2686565878"><general><startdate>2011-03-20 20:02:47</startdate>
    <players><player seat="8" name="Hero" chips="$400.00" dealer="1" win="$99.00" bet="$60.00"/>...
    <round no="0"><action no="1" player="Hero" type="1" sum="$10.00"/>...</round>
    <round no="1"><cards type="Pocket" player="Hero">SK HJ</cards><action no="3" ... type="23" .../></round>
    <round no="2"><cards type="Flop">DQ C7 S6</cards>...</round>
    </game></session>

Action types: 0 fold, 1 small blind, 2 big blind (a second one, or one above the big
blind, is a post: the big blind live, the rest dead), 3 call, 4 check, 5 bet, 6 raise
(sum: chips added), 23 raise (sum: the bet afterwards), 7 all-in (chips added; "DP" is
the disconnect protection: all-in for what the player has put in), 8 and 9 sitting out
(such a player has no pocket cards and is not dealt in). Cards are written suit first
("SK", "D10"); "X X" is a hand not shown. The gametype "Holdem L $10/$20" gives the
bets; "LH 20/40 x2 Limit $10.00/$20.00" gives the bets first and the blinds after.
Start dates carry no time zone and are read as UTC. The hands of a file whose end was cut
off are read as far as they go (a game missing only its closing tags is whole).

The XML is read by the standard library's expat with everything that could make it
expand refused: no DOCTYPE (so no entity is ever declared; an undeclared entity is an
error), bounded size, depth and element count.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from xml.parsers import expat

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from connectors.logs import rooms
from connectors.logs.rooms import ALL_IN, Move, OtherGame, Post, RoomError, RoomHand, chips

__all__ = ["NETWORK", "Element", "identify", "parse_hand", "parse_xml", "read_hands", "split_hands"]

NETWORK = "ipoker"

MAX_XML_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 16
MAX_ELEMENTS = 2_000_000

_SESSION = re.compile(r"<session\b")
_GAME_LIMIT = re.compile(r"^(?:Holdem\s+(?:L|Limit)\s+(?P<a>\S+?)/(?P<b>\S+)|LH\s+(?P<c>[\d.,]+)/(?P<d>[\d.,]+)\b.*)$")


class Element:
    """An XML element as read: tag, attributes, text, children, and where it began."""

    __slots__ = ("tag", "attrs", "children", "text", "line", "closed", "start", "end")

    def __init__(self, tag: str, attrs: dict[str, str], line: int, start: int) -> None:
        self.tag = tag
        self.attrs = attrs
        self.children: list[Element] = []
        self.text = ""
        self.line = line
        self.closed = False
        self.start = start  # byte offset of its start tag in the input
        self.end = -1  # byte offset just past its end tag

    def find(self, tag: str) -> Element | None:
        return next((c for c in self.children if c.tag == tag), None)

    def all(self, tag: str) -> list[Element]:
        return [c for c in self.children if c.tag == tag]


def _refuse(what: str):
    def handler(*_: object) -> None:
        raise RoomError(f"iPoker XML with a {what}: refused (no entities or DTDs are read)")
    return handler


def parse_xml(data: bytes, where: str = "") -> tuple[list[Element], str | None]:
    """The top-level elements of ``data`` (several documents may follow one another, each
    with its own XML declaration, as archived sessions are) and, if the input stops
    being well-formed, why (the elements read before that point are kept)."""
    if len(data) > MAX_XML_BYTES:
        raise RoomError(f"{where}: {len(data):,} bytes of XML: more than {MAX_XML_BYTES:,}")
    roots: list[Element] = []
    problem = None
    # One parser per document: a file of several sessions repeats the XML declaration.
    starts = [m.start() for m in re.finditer(rb"<\?xml\b", data)] or [0]
    if starts[0] != 0 and data[:starts[0]].strip():
        starts.insert(0, 0)
    for i, begin in enumerate(starts):
        part = data[begin:starts[i + 1] if i + 1 < len(starts) else len(data)]
        if not part.strip():
            continue
        line_base = data.count(b"\n", 0, begin)
        found, why = _parse_document(part, line_base, begin, where)
        roots.extend(found)
        if why is not None and problem is None:
            problem = why
    return roots, problem


def _hardened() -> expat.XMLParserType:
    """An expat parser that refuses every DOCTYPE and entity declaration or reference."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse("DOCTYPE")
    parser.EntityDeclHandler = _refuse("entity declaration")
    parser.UnparsedEntityDeclHandler = _refuse("entity declaration")
    parser.ExternalEntityRefHandler = _refuse("external entity")
    return parser


def _parse_document(data: bytes, line_base: int, offset: int, where: str) -> tuple[list[Element], str | None]:
    parser = _hardened()
    roots: list[Element] = []
    stack: list[Element] = []
    count = [0]

    def start(tag: str, attrs: dict[str, str]) -> None:
        count[0] += 1
        if count[0] > MAX_ELEMENTS or len(stack) >= MAX_DEPTH:
            raise RoomError(f"{where}: XML nested deeper than {MAX_DEPTH} or with more than {MAX_ELEMENTS:,} elements")
        node = Element(tag, attrs, line_base + parser.CurrentLineNumber, offset + parser.CurrentByteIndex)
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)

    def end(tag: str) -> None:
        node = stack.pop()
        node.closed = True
        node.end = offset + parser.CurrentByteIndex + len(tag) + 3  # past "</tag>"

    def text(data: str) -> None:
        if stack:
            stack[-1].text += data

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        return roots, f"{where}:{line_base + exc.lineno}: XML stops being well-formed: {expat.errors.messages[exc.code]}"
    return roots, None


def identify(head: str) -> bool:
    """An iPoker session: XML with a <session> holding <game gamecode=...> elements."""
    head = head[:8192]
    return "<session" in head and ("<game gamecode" in head or "<gametype>" in head)


def split_hands(text: str) -> list[tuple[int, str]]:
    """Each game of a whole file's text as a document of its own (:func:`read_hands`)."""
    return [(h.line, h.text) for h in read_hands((text.encode("utf-8"),)) if h.text is not None]


_DECLARATION = b"<?xml"


class _Games:
    """The games of an XML stream, fed block by block (:func:`read_hands`): expat, one
    parser a document, hardened as :func:`parse_xml` is; only the session's start tag and
    <general> and the game being read are held, never the file."""

    def __init__(self) -> None:
        self.buf = bytearray()
        self.base = 0  # the file's offset of buf[0]
        self.lines_before = 0  # line ends before buf[0]
        self.fed = 0
        self.found: list[rooms.HandText] = []
        self.parser: expat.XMLParserType | None = None  # None: looking for the next document
        self.started = False
        self.doc = 0  # the file's offset of the document's first byte
        self.doc_lines = 0  # line ends before it
        self.tags: list[str] = []
        self.count = 0
        self.head = b""  # the session's start tag
        self.general = b""  # the session's <general>
        self.part: int | None = None  # offset of the open session <general> or <game>
        self.part_line = 0
        self.big = False  # the open game is longer than a hand may be: not held

    def feed(self, block: bytes) -> None:
        self.fed += len(block)
        if self.fed > MAX_XML_BYTES:
            raise RoomError(f": more than {MAX_XML_BYTES:,} bytes of XML")
        self.buf += block
        self._parse(len(self.buf) - len(block))
        # Kept: the last block (an error is found in it), and a tag not yet complete (it
        # starts at the last "<": none may stand inside an attribute), up to a hand's length.
        last = len(self.buf) - len(block)
        tag = self.buf.rfind(b"<")
        keep = max(last if tag < 0 else min(last, tag), last - rooms.MAX_HAND_CHARS)
        self._trim(self.base + max(0, keep))

    def close(self) -> None:
        if self.parser is not None:
            try:
                self.parser.Parse(b"", True)
            except expat.ExpatError:
                pass
        if self.part is not None and self.tags[1:2] == ["game"]:
            self._game(len(self.buf) + self.base, ended=False)  # cut off in this game: it runs to the end

    def _parse(self, at: int) -> None:
        """Parse buf from index ``at``: the first document from the file's start (it may
        have no declaration), each later one from its declaration, one after an error."""
        while at < len(self.buf):
            if self.parser is None:
                if not self.started:
                    found = 0
                else:
                    found = self.buf.find(_DECLARATION, max(0, at - len(_DECLARATION) + 1))
                    if found < 0:
                        return
                self.started = True
                self._start_document(found)
                at = found
            assert self.parser is not None
            try:
                self.parser.Parse(bytes(self.buf[at:]), False)
                return
            except expat.ExpatError:
                error = max(0, self.doc + self.parser.ErrorByteIndex - self.base)
                if self.part is not None and self.tags[1:2] == ["game"]:
                    self._game(error + self.base)  # stops being well-formed in this game: as far as it goes
                restart = self.buf.startswith(_DECLARATION, error) and error + self.base != self.doc
                self.parser, self.part = None, None
                at = error if restart else max(error + 1, at)

    def _start_document(self, index: int) -> None:
        parser = _hardened()
        parser.StartElementHandler = self._open
        parser.EndElementHandler = self._close
        self.parser = parser
        self.doc = self.base + index
        self.doc_lines = self.lines_before + self.buf.count(b"\n", 0, index)
        self.tags, self.count, self.part = [], 0, None

    def _open(self, tag: str, attrs: dict[str, str]) -> None:
        assert self.parser is not None
        self.count += 1
        if self.count > MAX_ELEMENTS or len(self.tags) >= MAX_DEPTH:
            raise RoomError(f": XML nested deeper than {MAX_DEPTH} or with more than {MAX_ELEMENTS:,} elements")
        self.tags.append(tag)
        at = self.doc + self.parser.CurrentByteIndex
        if at < self.base and len(self.tags) <= 2:
            raise RoomError(f": a start tag longer than {rooms.MAX_HAND_CHARS:,} bytes")
        if self.tags == ["session"]:
            i = at - self.base
            self.head, self.general = bytes(self.buf[i:self.buf.index(b">", i) + 1]), b""
        elif len(self.tags) == 2 and self.tags[0] == "session" and tag in ("general", "game"):
            self.part, self.part_line, self.big = at, self.doc_lines + self.parser.CurrentLineNumber, False

    def _close(self, tag: str) -> None:
        assert self.parser is not None
        if len(self.tags) == 2 and self.part is not None:
            end = self.doc + self.parser.CurrentByteIndex + len(tag) + 3  # past "</tag>"
            if tag == "general":
                self.general = bytes(self.buf[self.part - self.base:end - self.base])
                self.part = None
            elif tag == "game":
                self._game(end, b"</session>")
        self.tags.pop()

    def _game(self, end: int, tail: bytes = b"", ended: bool = True) -> None:
        assert self.part is not None
        size = end - self.part
        if self.big:
            self.found.append(rooms.HandText(self.part_line, None, size, ended))
        else:
            body = bytes(self.buf[self.part - self.base:end - self.base])
            text = (self.head + self.general + body + tail).decode("utf-8", "replace")
            self.found.append(rooms.HandText(self.part_line, text, len(text), ended))
        self.part = None

    def _trim(self, keep: int) -> None:
        """Forget the bytes before ``keep`` (the last block's start) unless a part is open."""
        if self.part is not None:
            if keep - self.part > 4 * rooms.MAX_HAND_CHARS and self.tags[1:2] == ["game"]:
                self.big = True  # too long to be a hand: counted, not held
            else:
                keep = self.part
        cut = keep - self.base
        if cut > 0:
            self.lines_before += self.buf.count(b"\n", 0, cut)
            del self.buf[:cut]
            self.base = keep


def read_hands(blocks: Iterable[bytes]) -> Iterator[rooms.HandText]:
    """Each game of a file given as blocks of its bytes, as a document of its own (the
    session's start tag and <general> around the game, so that :func:`parse_hand` reads
    it alone), streamed. Several documents may follow one another, each with its own XML
    declaration, as archived sessions do; where the input stops being well-formed, the
    game being read ends there and the next document is looked for. RoomError (the file
    refused whole) for a DOCTYPE or entity, nesting deeper than MAX_DEPTH, more than
    MAX_ELEMENTS elements in a document or MAX_XML_BYTES in the file."""
    games = _Games()
    for block in blocks:
        games.feed(block)
        yield from games.found
        games.found.clear()
    games.close()
    yield from games.found


def parse_hand(text: str, where: str) -> RoomHand:
    """One game (a document :func:`split_hands` made); OtherGame for another game,
    RoomError for one we cannot read."""
    roots, problem = parse_xml(text.encode("utf-8"), where)
    session = next((r for r in roots if r.tag == "session"), None)
    game = None if session is None else session.find("game")
    if session is None or game is None:
        raise RoomError(problem or f"{where}: no <session> holding a <game>")
    general = session.find("general")
    info = {c.tag: c.text.strip() for c in general.children} if general is not None else {}
    small_bet, big_bet = _stakes(info, where)
    number = game.attrs.get("gamecode", "")
    if not number.isdigit():
        raise RoomError(f"{where}: game without a gamecode")
    ggeneral = game.find("general")
    started_at = None
    if ggeneral is not None and ggeneral.find("startdate") is not None:
        started_at = _start(ggeneral.find("startdate").text.strip(), where)  # type: ignore[union-attr]  # a missing element raises, reported as a bad hand
    hand = RoomHand(NETWORK, number, where, small_blind=max(1, small_bet // 2), big_blind=small_bet,
                    small_bet=small_bet, big_bet=big_bet, seats=[], started_at=started_at,
                    currency=info.get("currency", ""))
    hero = info.get("nickname") or None
    players = _seated(hand, ggeneral, where)
    rounds = sorted(game.all("round"), key=lambda r: int(r.attrs.get("no", "99")) if r.attrs.get("no", "").isdigit() else 99)
    dealt: set[str] = set()
    wagers = rooms.Wagers()
    for rnd in rounds:
        no = int(rnd.attrs.get("no", "-1")) if rnd.attrs.get("no", "").lstrip("-").isdigit() else -1
        if not 0 <= no <= 4:
            raise RoomError(f"{where}: round {rnd.attrs.get('no')!r}")
        street = max(0, no - 1)
        wagers.next_street(street)
        _round_cards(hand, rnd, no, players, dealt, hero, where)
        actions = []
        for a in rnd.all("action"):
            order = a.attrs.get("no", "")
            if not order.isdigit():
                raise RoomError(f"{where}: an action without its number")
            actions.append((int(order), a))
        for _, a in sorted(actions, key=lambda x: x[0]):
            _action(hand, a, no, street, players, dealt, wagers, where)
    hand.hero = hero if hero in dealt else None
    outside = [name for name, (_, _, win, bet) in players.items() if name not in dealt and (win or bet)]
    if outside:
        raise RoomError(f"{where}: {', '.join(outside)} put in or took chips without being dealt in")
    in_hand = {name: v for name, v in players.items() if name in dealt}
    hand.net = {name: win - bet for name, (_, _, win, bet) in in_hand.items()}
    rake = sum(bet for _, _, _, bet in in_hand.values()) - sum(win for _, _, win, _ in in_hand.values())
    if rake < 0:
        raise RoomError(f"{where}: the players took {-rake} more chips than they put in")
    hand.finish({name: (seat, stack) for name, (seat, stack, _, _) in in_hand.items()},
                won={name: win for name, (_, _, win, _) in in_hand.items()}, rake=rake)
    if problem is not None and game.closed:
        raise RoomError(problem)
    return hand


def _stakes(info: dict[str, str], where: str) -> tuple[int, int]:
    """The small and big bet of a cash fixed-limit hold'em game, from its session's
    <general>; OtherGame for a tournament, another game or play money."""
    if "tournamentcode" in info or "tourcode" in info:
        raise OtherGame(f"{where}: a tournament hand", "tournament")
    gametype = info.get("gametype", "")
    m = _GAME_LIMIT.match(gametype)
    if m is None:
        raise OtherGame(f"{where}: {gametype!r} is not fixed-limit hold'em", gametype)
    if m.group("a"):
        small_bet, big_bet = chips(m.group("a"), where), chips(m.group("b"), where)
    else:
        small_bet, big_bet = chips(m.group("c"), where), chips(m.group("d"), where)
    if info.get("mode", "real") not in ("real", ""):
        raise OtherGame(f"{where}: a play-money hand", "play money")
    return small_bet, big_bet


def _seated(hand: RoomHand, ggeneral: Element | None, where: str) -> dict[str, tuple[int, int, int, int]]:
    """The game's players, name -> (seat, chips, win, bet); the button's seat set on ``hand``."""
    players: dict[str, tuple[int, int, int, int]] = {}
    plist = None if ggeneral is None else ggeneral.find("players")
    for p in [] if plist is None else plist.all("player"):
        name = p.attrs.get("name", "").strip()
        if not name:
            continue  # an empty seat
        seat = p.attrs.get("seat", "")
        if not seat.isdigit():
            raise RoomError(f"{where}: player {name!r} without a seat number")
        players[name] = (int(seat), chips(p.attrs.get("chips", "0"), where), chips(p.attrs.get("win", "0"), where),
                         chips(p.attrs.get("bet", "0"), where))
        if p.attrs.get("dealer") == "1":
            hand.button = int(seat)
    if not players:
        raise RoomError(f"{where}: a game without players")
    return players


def _round_cards(hand: RoomHand, rnd: Element, no: int, players: dict[str, tuple[int, int, int, int]],
                 dealt: set[str], hero: str | None, where: str) -> None:
    """The <cards> of round ``no``: who was dealt in (added to ``dealt``), the pocket cards
    known, the board."""
    for c in rnd.all("cards"):
        kind, who = c.attrs.get("type", ""), c.attrs.get("player", "")
        if kind == "Pocket":
            if who not in players:
                raise RoomError(f"{where}: pocket cards of {who!r}, who has no seat")
            dealt.add(who)
            if c.text.strip().upper() not in ("X X", ""):
                known = rooms.cards(c.text, where, 2)
                if who == hero:
                    hand.holes[who] = known
                else:
                    hand.shown[who] = known
        elif kind in ("Flop", "Turn", "River"):
            new = rooms.cards(c.text, where, 3 if kind == "Flop" else 1)
            if no != {"Flop": 2, "Turn": 3, "River": 4}[kind]:
                raise RoomError(f"{where}: the {kind.lower()} in round {no}")
            hand.board.append(new)


def _action(hand: RoomHand, a: Element, no: int, street: int, players: dict, dealt: set[str],
            wagers: rooms.Wagers, where: str) -> None:
    name = a.attrs.get("player", "")
    kind = a.attrs.get("type", "")
    if name not in players:
        raise RoomError(f"{where}: an action of {name!r}, who has no seat")
    if kind in ("8", "9"):
        return  # sitting out: not dealt in (a player with pocket cards is, and acts)
    sum_text = a.attrs.get("sum", "0")
    if kind == "7" and sum_text.strip().upper() == "DP":
        hand.streets[street].append(Move(name, ALL_IN))
        return
    amount = chips(sum_text, where)
    if no == 0:
        if kind == "1":
            post = Post(name, "sb", amount)
        elif kind == "2":
            bb = next((p for p in hand.posts if p.kind == "bb"), None)
            if bb is None:
                post = Post(name, "bb", amount)
            else:  # a post: the big blind live, anything above it dead
                live = min(amount, bb.live)
                post = Post(name, "post", live, amount - live)
        elif kind == "15":
            raise OtherGame(f"{where}: antes posted: not a game played here", "hold'em with antes")
        else:
            raise RoomError(f"{where}: action type {kind} among the blinds")
        hand.posts.append(post)
        wagers.post(name, post.live, post.dead)
        dealt.add(name)
        return
    if kind == "0":
        hand.streets[street].append(Move(name, FOLD))
    elif kind == "4":
        hand.streets[street].append(Move(name, CHECK))
    elif kind in ("3", "5", "6", "7"):
        move, to = wagers.add(name, amount)
        expected = {"3": (CALL,), "5": (BET,), "6": (RAISE, BET)}.get(kind)
        if expected is not None and move not in expected:
            raise RoomError(f"{where}: action {a.attrs.get('no')} of type {kind} puts in {amount} chips: a {move}")
        hand.streets[street].append(Move(name, move, to if move in (BET, RAISE) and kind != "7" else None))
    elif kind == "23":
        move = RAISE if street == 0 or wagers.level() else BET
        wagers.raise_to(name, amount)
        hand.streets[street].append(Move(name, move, amount))
    else:
        raise RoomError(f"{where}: unknown action type {kind!r}")
    dealt.add(name)


def _start(text: str, where: str) -> float:
    for fmt in ("%Y-%m-%d %H:%M:%S", "%d-%b-%Y %H:%M:%S", "%d/%m/%Y %H:%M:%S", "%d.%m.%Y %H:%M:%S",
                "%Y/%m/%d %H:%M:%S", "%d/%m/%Y %H:%M", "%Y-%m-%d %H:%M"):
        try:
            return rooms.room_time(datetime.strptime(text, fmt), None, where)
        except ValueError:
            continue
    raise RoomError(f"{where}: cannot read the start date {text[:40]!r}")
