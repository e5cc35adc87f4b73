"""PHH, the Poker Hand History format of PokerKit (TOML), for fixed-limit Texas hold'em
(variant ``FT``): write and read; pure functions, no I/O.

A hand is a TOML document::

    variant = 'FT'
    antes = [0, 0, 0]
    blinds_or_straddles = [5, 10, 0]
    small_bet = 10
    big_bet = 20
    starting_stacks = [1000, 1000, 1000]
    actions = ['d dh p1 Ks9h', 'd dh p2 8d6h', 'd dh p3 ????', 'p3 cbr 20', 'p1 f', ...]
    hand = 'match:17:0'
    players = ['alice', 'bob', 'carol']
    finishing_stacks = [995, 1030, 975]
    _max_bets = 4

Players are p1..pn clockwise from the button's left, the button last; heads-up PokerKit
reverses the blinds itself (``blinds_or_straddles = [small, big]`` still), which is the
ACPC order our rules use. Actions: ``d dh pK CARDS`` deals hole cards (``????`` unknown),
``d db CARDS`` the board, ``pK f`` / ``pK cc`` / ``pK cbr TO`` fold, check-or-call and
complete-bet-or-raise to TO (the player's bet this street afterwards), ``pK sm CARDS``
shows and ``pK sm`` mucks at the showdown; ``#`` starts a comment. Several hands form a
``.phhs`` file, each under its own ``[key]`` table. PokerKit's fixed-limit game caps a
street at four bets and raises besides the blinds; our cap (``_max_bets``, a user field
PokerKit ignores) is at most that, so every hand we write replays in PokerKit.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent import toml_input
from agent.game.events import (
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCards,
    PlayerActed,
)
from agent.game.records import BET, BLIND_KINDS, CALL, CHECK, FOLD, RAISE, HandRecord
from agent.game.rules import Action
from evaluator_pyx.cards import CARD_NAMES, CardError, cards_from_text

__all__ = [
    "PhhError",
    "PhhHand",
    "format_hand",
    "format_hands",
    "hand_events",
    "hand_from_record",
    "parse_hand",
    "parse_hands",
]

_CARD = {name: c for c, name in enumerate(CARD_NAMES)}
_CARD.update({name[0].lower() + name[1]: c for name, c in list(_CARD.items())})
_ACTIONS = {"f": Action.FOLD, "cc": Action.CHECK_CALL, "cbr": Action.BET_RAISE}
MAX_HAND_TEXT = 1 << 20  # one hand's document
MAX_HANDS_TEXT = 1 << 26  # a .phhs document parsed whole
_REQUIRED = ("variant", "antes", "blinds_or_straddles", "small_bet", "big_bet",
             "starting_stacks", "actions")


class PhhError(ValueError):
    """A PHH document we cannot use; says where and what."""


@dataclass(frozen=True, slots=True)
class PhhHand:
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    starting_stacks: tuple[int, ...]  # p1..pn
    actions: tuple[str, ...]
    players: tuple[str, ...]  # p1..pn (the PHH "players", else "p1".."pn")
    hand: str | None = None
    finishing_stacks: tuple[int, ...] | None = None
    max_bets: int = 4


# --- writing --------------------------------------------------------------------------------


def _cards(cards: Sequence[int] | None) -> str:
    return "????" if cards is None else "".join(CARD_NAMES[c] for c in cards)


def hand_from_record(record: HandRecord, holes: Mapping[str, Sequence[int] | None],
                     hand: str | None = None) -> PhhHand:
    """The PHH of a finished hand; ``holes`` maps players to their dealt cards (missing
    or None: unknown)."""
    order = sorted(record.seats, key=lambda s: s.position)
    label = {s.player: f"p{k + 1}" for k, s in enumerate(order)}
    actions = [f"d dh {label[s.player]} {_cards(holes.get(s.player))}" for s in order]
    board = record.board
    streets = (None, board[:3], board[3:4], board[4:5])
    dealt = 0  # rounds whose board has been written
    bets: dict[str, int] = {}
    for act in record.actions:
        if act.kind in BLIND_KINDS:
            bets[act.player] = bets.get(act.player, 0) + act.amount
            continue
        while dealt < act.round:
            dealt += 1
            actions.append(f"d db {_cards(streets[dealt])}")
            bets = {}
        who = label[act.player]
        if act.kind == FOLD:
            actions.append(f"{who} f")
        elif act.kind in (CHECK, CALL):
            bets[act.player] = bets.get(act.player, 0) + act.amount
            actions.append(f"{who} cc")
        elif act.kind in (BET, RAISE):
            bets[act.player] = bets.get(act.player, 0) + act.amount
            actions.append(f"{who} cbr {bets[act.player]}")
        else:
            raise ValueError(f"{record.hand_id}: unknown action kind {act.kind!r}")
    # The rest of the board: an all-in run-out or the streets after the last action.
    rounds = {0: 0, 3: 1, 4: 2, 5: 3}[len(board)]
    while dealt < rounds:
        dealt += 1
        actions.append(f"d db {_cards(streets[dealt])}")
    for shown in record.shown:
        actions.append(f"{label[shown.player]} sm {_cards(shown.cards)}")
    results = {r.player: r.won - r.put_in for r in record.results}
    return PhhHand(
        small_blind=record.small_blind,
        big_blind=record.big_blind,
        small_bet=record.small_bet,
        big_bet=record.big_bet,
        starting_stacks=tuple(s.stack for s in order),
        actions=tuple(actions),
        players=tuple(s.player for s in order),
        hand=record.hand_id if hand is None else hand,
        finishing_stacks=tuple(s.stack + results[s.player] for s in order),
        max_bets=record.max_bets,
    )


def _toml_str(text: str) -> str:
    # A JSON string (without ASCII escaping) is a valid TOML basic string.
    return json.dumps(text, ensure_ascii=False)


def _toml_list(values: Sequence) -> str:
    return "[" + ", ".join(_toml_str(v) if isinstance(v, str) else str(v) for v in values) + "]"


def format_hand(hand: PhhHand) -> str:
    """One PHH document (TOML text, ending in a newline)."""
    n = len(hand.players)
    blinds = [hand.small_blind, hand.big_blind] + [0] * (n - 2)
    lines = [
        "variant = 'FT'",
        f"antes = {_toml_list([0] * n)}",
        f"blinds_or_straddles = {_toml_list(blinds)}",
        f"small_bet = {hand.small_bet}",
        f"big_bet = {hand.big_bet}",
        f"starting_stacks = {_toml_list(hand.starting_stacks)}",
        "actions = [\n" + "".join(f"  {_toml_str(a)},\n" for a in hand.actions) + "]",
    ]
    if hand.hand is not None:
        lines.append(f"hand = {_toml_str(hand.hand)}")
    lines.append(f"players = {_toml_list(hand.players)}")
    if hand.finishing_stacks is not None:
        lines.append(f"finishing_stacks = {_toml_list(hand.finishing_stacks)}")
    lines.append(f"_max_bets = {hand.max_bets}")
    return "\n".join(lines) + "\n"


def format_hands(hands: Sequence[PhhHand], first: int = 1) -> str:
    """A ``.phhs`` text: each hand under a table ``[k]``, numbered from ``first``."""
    return "\n".join(f"[{first + k}]\n{format_hand(h)}" for k, h in enumerate(hands))


# --- reading ------------------------------------------------------------------------------


def _int_list(doc: Mapping, key: str, where: str) -> tuple[int, ...]:
    value = doc.get(key)
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise PhhError(f"{where}: {key} must be a list of whole numbers, got {value!r}")
    return tuple(value)


def _positive(doc: Mapping, key: str, where: str) -> int:
    value = doc.get(key)
    if type(value) is not int or value <= 0:
        raise PhhError(f"{where}: {key} must be a positive whole number, got {value!r}")
    return value


def _hand_from_doc(doc: Mapping, where: str) -> PhhHand:
    if not isinstance(doc, Mapping):
        raise PhhError(f"{where}: a hand must be a TOML table")
    missing = [k for k in _REQUIRED if k not in doc]
    if missing:
        raise PhhError(f"{where}: missing {', '.join(missing)}")
    if doc["variant"] != "FT":
        raise PhhError(f"{where}: variant {doc['variant']!r} is not fixed-limit hold'em ('FT')")
    stacks = _int_list(doc, "starting_stacks", where)
    n = len(stacks)
    if not 2 <= n <= 23:
        raise PhhError(f"{where}: {n} players")
    antes = _int_list(doc, "antes", where)
    if any(antes):
        raise PhhError(f"{where}: antes are not part of limit hold'em here")
    blinds = _int_list(doc, "blinds_or_straddles", where)
    if len(blinds) < 2 or any(blinds[2:]) or blinds[0] <= 0 or blinds[1] <= 0:
        raise PhhError(f"{where}: blinds_or_straddles must be [small, big, 0, ...], got {list(blinds)}")
    actions = doc["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PhhError(f"{where}: actions must be a list of strings")
    players = doc.get("players")
    if players is None:
        players = [f"p{k + 1}" for k in range(n)]
    if (not isinstance(players, list) or len(players) != n
            or not all(isinstance(p, str) and p for p in players)):
        raise PhhError(f"{where}: players must be {n} names")
    finishing = doc.get("finishing_stacks")
    if finishing is not None:
        finishing = _int_list(doc, "finishing_stacks", where)
        if len(finishing) != n:
            raise PhhError(f"{where}: {len(finishing)} finishing stacks for {n} players")
    hand = doc.get("hand")
    max_bets = doc.get("_max_bets", 4)
    if type(max_bets) is not int or max_bets < 1:
        raise PhhError(f"{where}: _max_bets must be a positive whole number")
    return PhhHand(
        small_blind=blinds[0],
        big_blind=blinds[1],
        small_bet=_positive(doc, "small_bet", where),
        big_bet=_positive(doc, "big_bet", where),
        starting_stacks=stacks,
        actions=tuple(actions),
        players=tuple(players),
        hand=None if hand is None else str(hand),
        finishing_stacks=finishing,
        max_bets=max_bets,
    )


def _toml(text: str, where: str, max_bytes: int) -> dict:
    """The TOML document, bounded in size and nesting (agent.toml_input): a hand needs
    arrays one deep, and a file of nested brackets must be a clear error, not a
    RecursionError that stops a whole replay."""
    try:
        return toml_input.loads(text, where, max_bytes=max_bytes)
    except toml_input.TomlInputError as exc:
        raise PhhError(str(exc)) from None


def parse_hand(text: str, where: str = "phh") -> PhhHand:
    return _hand_from_doc(_toml(text, where, MAX_HAND_TEXT), where)


def parse_hands(text: str, where: str = "phhs") -> list[PhhHand]:
    """Every hand of a ``.phhs`` text (one TOML table per hand), in file order."""
    doc = _toml(text, where, MAX_HANDS_TEXT)
    return [_hand_from_doc(value, f"{where} [{key}]") for key, value in doc.items()]


def _read_cards(text: str, where: str) -> tuple[int, ...] | None:
    if set(text) == {"?"}:
        return None
    try:
        return cards_from_text(text, _CARD)
    except CardError as exc:
        raise PhhError(f"{where}: {exc}") from None


def hand_events(hand: PhhHand, *, source: str = "phh", hand_id: str | None = None,
                started_at: float | None = None) -> list[Event]:
    """Tracker events for one hand; PhhError for an action it cannot read."""
    n = len(hand.players)
    ident = hand_id if hand_id is not None else hand.hand if hand.hand is not None else source
    where = source if ident in source else f"{source} hand {ident}"
    events: list[Event] = [HandStarted(
        hand_id=ident,
        source=source,
        players=hand.players,
        stacks=hand.starting_stacks,
        button=n - 1,
        small_blind=hand.small_blind,
        big_blind=hand.big_blind,
        small_bet=hand.small_bet,
        big_bet=hand.big_bet,
        max_bets=hand.max_bets,
        heads_up_reverse_blinds=True,
        started_at=started_at,
    )]

    def player(label: str, at: str) -> str:
        if label[:1] != "p" or not label[1:].isdigit() or not 1 <= int(label[1:]) <= n:
            raise PhhError(f"{at}: {label!r} is not a player p1..p{n}")
        return hand.players[int(label[1:]) - 1]

    for index, raw in enumerate(hand.actions, start=1):
        at = f"{where} action {index}"
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "d":
            if len(words) == 4 and words[1] == "dh":
                events.append(HoleCards(player(words[2], at), _read_cards(words[3], at)))
            elif len(words) == 3 and words[1] == "db":
                cards = _read_cards(words[2], at)
                if cards is None:
                    raise PhhError(f"{at}: unknown board cards")
                events.append(BoardDealt(cards))
            else:
                raise PhhError(f"{at}: cannot read {raw!r}")
            continue
        name = player(words[0], at)
        verb = words[1] if len(words) > 1 else ""
        if verb in ("f", "cc") and len(words) == 2:
            events.append(PlayerActed(name, _ACTIONS[verb]))
        elif verb == "cbr" and len(words) == 3 and words[2].isdigit():
            events.append(PlayerActed(name, Action.BET_RAISE, int(words[2])))
        elif verb == "sm" and len(words) == 2:
            events.append(CardsMucked(name))
        elif verb == "sm" and len(words) == 3 and words[2] != "-":
            cards = _read_cards(words[2], at)
            if cards is None:
                continue  # shown face down: no information
            events.append(CardsShown(name, cards))
        elif verb == "sm" and len(words) == 3:
            continue
        else:
            raise PhhError(f"{at}: cannot read {raw!r}")
    if hand.finishing_stacks is not None:
        net = tuple((p, f - s) for p, s, f in zip(hand.players, hand.starting_stacks,
                                                   hand.finishing_stacks))
        events.append(HandEnded(net=net))
    else:
        events.append(HandEnded())
    return events
