"""ACPC dealer logs: the ``STATE:`` lines of the University of Alberta's ACPC dealer
(project_acpc_server, dealer.c / game.c), formatted and parsed; pure functions, no I/O.

A log holds ``#`` comment lines (the dealer starts with
``# name/game/hands/seed NAME GAME HANDS SEED``), one line per finished hand::

    STATE:<hand>:<betting>:<hole cards><board>:<values>:<names>
    STATE:0:r/cr/cc/cc:Ks9h|8d6h/Kc4s2h/Ad/6s:30|-30:Alice|Bob

and a closing ``SCORE:<totals>:<names>`` line. Everything per player is in ACPC player
order, ``|``-separated. ACPC player p sits p+1 seats after the button, the button last
(heads-up with reverse blinds, as in holdem.limit.2p.reverse_blinds.game, player 0 is
the big blind and player 1 the button and small blind; with three or more, player 0 is
the small blind). Betting is ``f``/``c``/``r`` per action (limit games give no sizes),
rounds separated by ``/``, every round reached written even when nobody could bet in it
(an all-in run-out); the board follows the hole cards, ``/`` before each round's cards.
Values are chips won minus chips put in, printed with trailing zeros dropped (split pots
can give fractions).

``hand_events`` turns a parsed hand into tracker events; the line does not name who
acted, so its PlayerActed events leave the player to the tracker (whoever is to act).
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from agent.config import TableConfig
from agent.game.events import BoardDealt, Event, HandEnded, HandStarted, HoleCards, PlayerActed
from agent.game.records import BET, BLIND_KINDS, CALL, CHECK, FOLD, RAISE, HandRecord
from agent.game.rules import Action
from evaluator_pyx.cards import CARD_NAMES, CardError, cards_from_text

__all__ = [
    "AcpcHand",
    "AcpcLogError",
    "AcpcScore",
    "format_header",
    "match_name_problem",
    "format_score",
    "format_state",
    "game_name",
    "hand_events",
    "hand_from_record",
    "parse_log",
    "parse_score",
    "parse_state",
]

_ACTION_CHAR = {FOLD: "f", CHECK: "c", CALL: "c", BET: "r", RAISE: "r"}
_ACTIONS = {"f": Action.FOLD, "c": Action.CHECK_CALL, "r": Action.BET_RAISE}
_BOARD_COUNTS = (0, 3, 1, 1)  # new board cards each round
_CARD = {name: c for c, name in enumerate(CARD_NAMES)}
_CARD.update({name[0].lower() + name[1]: c for name, c in list(_CARD.items())})
_CARD.update({name[0] + name[1].upper(): c for name, c in list(_CARD.items())})
_CARD.update({name.upper(): c for name, c in list(_CARD.items())})
_NAME = re.compile(r"[^:|\s]+")


class AcpcLogError(ValueError):
    """A line that is not a well-formed ACPC log line; says where and what."""


@dataclass(frozen=True, slots=True)
class AcpcHand:
    hand_number: int
    betting: tuple[str, ...]  # one string of f/c/r per round reached
    holes: tuple[tuple[int, ...] | None, ...]  # ACPC player order; None: not shown
    board: tuple[tuple[int, ...], ...]  # new cards of each round reached ((), flop, turn, river)
    values: tuple[float, ...]  # net chips per player, ACPC player order
    players: tuple[str, ...]  # ACPC player order


@dataclass(frozen=True, slots=True)
class AcpcScore:
    totals: tuple[float, ...]
    players: tuple[str, ...]


# --- formatting ------------------------------------------------------------------------------


def _format_value(value: float) -> str:
    """As the ACPC dealer prints values: %.6f with trailing zeros (and point) dropped."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _cards(cards: Iterable[int]) -> str:
    return "".join(CARD_NAMES[c] for c in cards)


def format_state(hand: AcpcHand) -> str:
    """One ``STATE:`` line (no newline)."""
    n = len(hand.players)
    if len(hand.holes) != n or len(hand.values) != n:
        raise ValueError("holes, values and players must have one entry per player")
    if len(hand.board) != len(hand.betting):
        raise ValueError("one board entry per betting round")
    for name in hand.players:
        if not _NAME.fullmatch(name):
            raise ValueError(f"player name {name!r} cannot be written in an ACPC log "
                             "(no ':', '|' or spaces)")
    holes = "|".join("" if h is None else _cards(h) for h in hand.holes)
    board = "".join("/" + _cards(b) for b in hand.board[1:])
    values = "|".join(_format_value(v) for v in hand.values)
    return (f"STATE:{hand.hand_number}:{'/'.join(hand.betting)}:{holes}{board}:{values}:"
            f"{'|'.join(hand.players)}")


def match_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a match in a log's header (its words are split on spaces,
    so a name with a space would be read back as another name and game), or None."""
    if re.fullmatch(r"\S+", name) is None:
        return f"match name {name!r} cannot be written in an ACPC log's header (one word, no spaces)"
    return None


def format_header(match_name: str, game: str, hands: int, seed: int) -> str:
    """The dealer's opening comment line; ValueError for a name it cannot hold."""
    problem = match_name_problem(match_name)
    if problem is not None:
        raise ValueError(problem)
    return f"# name/game/hands/seed {match_name} {game} {hands} {seed}"


def format_score(totals: Sequence[float], players: Sequence[str]) -> str:
    return ("SCORE:" + "|".join(_format_value(v) for v in totals) + ":" + "|".join(players))


def game_name(seats: int) -> str:
    """The ACPC game definition file our limit games correspond to."""
    return "holdem.limit.2p.reverse_blinds.game" if seats == 2 else f"holdem.limit.{seats}p.game"


def hand_from_record(record: HandRecord, holes: Mapping[str, Sequence[int] | None],
                     hand_number: int) -> AcpcHand:
    """The ACPC view of a finished hand: ``holes`` maps players to their dealt cards
    (the ACPC dealer logs every hand, folded ones too)."""
    order = sorted(record.seats, key=lambda s: s.position)  # ACPC player order
    board = record.board
    rounds = {0: 1, 3: 2, 4: 3, 5: 4}[len(board)]
    last = max((a.round for a in record.actions), default=0)
    rounds = max(rounds, last + 1)
    betting: list[list[str]] = [[] for _ in range(rounds)]
    for act in record.actions:
        if act.kind in BLIND_KINDS:
            continue
        betting[act.round].append(_ACTION_CHAR[act.kind])
    streets = [(), tuple(board[:3]), tuple(board[3:4]), tuple(board[4:5])][:rounds]
    results = {r.player: r.won - r.put_in for r in record.results}
    return AcpcHand(
        hand_number=hand_number,
        betting=tuple("".join(b) for b in betting),
        holes=tuple(None if (hole := holes.get(s.player)) is None else tuple(hole) for s in order),
        board=tuple(streets),
        values=tuple(results[s.player] for s in order),
        players=tuple(s.player for s in order),
    )


# --- parsing -----------------------------------------------------------------------------------


def _read_cards(text: str, where: str) -> tuple[int, ...]:
    try:
        return cards_from_text(text, _CARD)
    except CardError as exc:
        raise AcpcLogError(f"{where}: {exc}") from None


def _read_value(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise AcpcLogError(f"{where}: {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise AcpcLogError(f"{where}: {text!r} is not a finite number")
    return int(value) if value == int(value) else value


def parse_state(line: str, where: str = "STATE line") -> AcpcHand:
    """Parse one ``STATE:`` line; AcpcLogError names ``where`` (e.g. "match.log:12")."""
    line = line.strip()
    parts = line.split(":")
    if len(parts) != 6 or parts[0] != "STATE":
        raise AcpcLogError(f"{where}: expected STATE:hand:betting:cards:values:names, "
                           f"got {line[:80]!r}")
    _, number, betting_text, cards_text, values_text, names_text = parts
    if not number.isdigit():
        raise AcpcLogError(f"{where}: hand number {number!r} is not a whole number")
    players = tuple(names_text.split("|"))
    n = len(players)
    if not 2 <= n <= 10 or not all(_NAME.fullmatch(p) for p in players):
        raise AcpcLogError(f"{where}: bad player names {names_text!r}")
    if len(set(players)) != n:
        raise AcpcLogError(f"{where}: a player is named twice in {names_text!r}")
    betting = tuple(betting_text.split("/"))
    if len(betting) > 4:
        raise AcpcLogError(f"{where}: {len(betting)} betting rounds")
    for letters in betting:
        bad = set(letters) - set(_ACTIONS)
        if bad:
            raise AcpcLogError(f"{where}: unknown action {''.join(sorted(bad))!r} in {betting_text!r}")
    pieces = cards_text.split("/")
    hole_texts = pieces[0].split("|")
    if len(hole_texts) != n:
        raise AcpcLogError(f"{where}: {len(hole_texts)} hole card entries for {n} players")
    holes: list[tuple[int, ...] | None] = []
    for i, text in enumerate(hole_texts):
        if not text:
            holes.append(None)
            continue
        cards = _read_cards(text, where)
        if len(cards) != 2:
            raise AcpcLogError(f"{where}: player {i} has {len(cards)} hole cards")
        holes.append(cards)
    board: list[tuple[int, ...]] = [()]
    for rnd, text in enumerate(pieces[1:], start=1):
        if rnd > 3:
            raise AcpcLogError(f"{where}: more than three board rounds in {cards_text!r}")
        cards = _read_cards(text, where)
        if len(cards) != _BOARD_COUNTS[rnd]:
            raise AcpcLogError(f"{where}: round {rnd} needs {_BOARD_COUNTS[rnd]} board cards, "
                               f"got {len(cards)}")
        board.append(cards)
    if len(board) != len(betting):
        raise AcpcLogError(f"{where}: {len(betting)} betting rounds but board cards for "
                           f"{len(board)}")
    seen = [c for h in holes if h for c in h] + [c for b in board for c in b]
    if len(set(seen)) != len(seen):
        raise AcpcLogError(f"{where}: a card appears twice in {cards_text!r}")
    value_texts = values_text.split("|")
    if len(value_texts) != n:
        raise AcpcLogError(f"{where}: {len(value_texts)} values for {n} players")
    values = tuple(_read_value(v, where) for v in value_texts)
    return AcpcHand(int(number), betting, tuple(holes), tuple(board), values, players)


def parse_score(line: str, where: str = "SCORE line") -> AcpcScore:
    parts = line.strip().split(":")
    if len(parts) != 3 or parts[0] != "SCORE":
        raise AcpcLogError(f"{where}: expected SCORE:totals:names, got {line[:80]!r}")
    players = tuple(parts[2].split("|"))
    totals = tuple(_read_value(v, where) for v in parts[1].split("|"))
    if len(totals) != len(players):
        raise AcpcLogError(f"{where}: {len(totals)} totals for {len(players)} players")
    return AcpcScore(totals, players)


def parse_log(lines: Iterable[str], source: str = "acpc log") -> Iterator[AcpcHand | AcpcScore | AcpcLogError]:
    """Every hand and score of a log, in order; a bad line comes out as an AcpcLogError
    naming ``source`` and the line number (so a reader can count it and go on)."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        where = f"{source}:{number}"
        try:
            if text.startswith("STATE:"):
                yield parse_state(text, where)
            elif text.startswith("SCORE:"):
                yield parse_score(text, where)
            else:
                yield AcpcLogError(f"{where}: not a STATE or SCORE line: {text[:80]!r}")
        except AcpcLogError as exc:
            yield exc


def hand_events(hand: AcpcHand, table: TableConfig, *, stack: int | None = None,
                source: str = "acpc", hand_id: str | None = None,
                started_at: float | None = None) -> list[Event]:
    """Tracker events for one parsed hand. Blinds, bet sizes and cap come from ``table``
    (the game definition); ``stack`` is every player's starting stack (ACPC limit games
    have none: default a stack no limit hand can use up)."""
    n = len(hand.players)
    if stack is None:
        stack = 2**31 - 1
    events: list[Event] = [HandStarted(
        hand_id=hand_id if hand_id is not None else f"{source}:{hand.hand_number}",
        source=f"{source}:{hand.hand_number}",
        players=hand.players,
        stacks=(stack,) * n,
        button=n - 1,
        small_blind=table.small_blind,
        big_blind=table.big_blind,
        small_bet=table.small_bet,
        big_bet=table.big_bet,
        max_bets=table.max_bets,
        heads_up_reverse_blinds=True,
        started_at=started_at,
    )]
    for player, cards in zip(hand.players, hand.holes):
        events.append(HoleCards(player, cards))
    for rnd, text in enumerate(hand.betting):
        if rnd:
            events.append(BoardDealt(hand.board[rnd]))
        for char in text:
            events.append(PlayerActed(None, _ACTIONS[char]))
    events.append(HandEnded(net=tuple(zip(hand.players, hand.values))))
    return events

