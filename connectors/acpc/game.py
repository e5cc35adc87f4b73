"""ACPC game definitions (the ``GAMEDEF`` files of project_acpc_server, e.g.
``holdem.limit.2p.reverse_blinds.game``), read as far as our limit hold'em rules need
them: blinds, bet sizes, the cap, the number of players; pure functions, no I/O.

A definition looks like::

    GAMEDEF
    limit
    numPlayers = 2
    numRounds = 4
    blind = 10 5
    raiseSize = 10 10 20 20
    firstPlayer = 2 1 1 1
    maxRaises = 3 4 4 4
    numSuits = 4
    numRanks = 13
    numHoleCards = 2
    numBoardCards = 0 3 1 1
    END GAMEDEF

Per-player values are in ACPC player order (player 0 sits left of the button, the
button last). Keys are matched without regard to case, as the ACPC dealer does. Our rules
play one shape of game: limit, four rounds, two hole cards, a 0/3/1/1 board, one bet size
for the pre-flop and flop and one for the turn and river, the same cap in every round
(pre-flop the blind is its first bet, so ``maxRaises`` is one less there), and the usual
blind positions: heads-up the button posts the small blind and acts first pre-flop
("reverse blinds"); with more players the first two seats post and the third acts first.
Anything else is refused with the reason, rather than replayed under the wrong rules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["AcpcGame", "GameError", "parse_game", "standard_game"]

# The games the ACPC server ships (and our dealer names in its log headers): blinds 5/10,
# bets 10/20, a bet and three raises a round.
_STANDARD = re.compile(r"holdem\.limit\.(\d+)p(\.reverse_blinds)?\.game")


class GameError(ValueError):
    """A game definition we cannot read or play; says where and why."""


@dataclass(frozen=True, slots=True)
class AcpcGame:
    """The figures of a limit hold'em game our rules can play."""

    players: int | None  # None: any number (sizes given without a definition file)
    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    max_bets: int  # bets a round, the big blind the first pre-flop
    stack: int | None = None  # every player's stack, when the definition gives one


def standard_game(name: str) -> AcpcGame | None:
    """The figures of an ACPC standard limit hold'em game named like
    ``holdem.limit.3p.game``; None for other names."""
    match = _STANDARD.fullmatch(name)
    if match is None:
        return None
    players = int(match.group(1))
    if (players == 2) != bool(match.group(2)) or not 2 <= players <= 10:
        return None  # heads-up ACPC games use reverse blinds, multi-way ones do not
    return AcpcGame(players, 5, 10, 10, 20, 4)


def _ints(values: list[str], key: str, where: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in values)
    except ValueError:
        raise GameError(f"{where}: {key} must be whole numbers, got {' '.join(values)!r}") from None


def parse_game(text: str, where: str = "game definition") -> AcpcGame:
    """Read a GAMEDEF text; GameError names ``where`` and the problem."""
    fields: dict[str, tuple[int, ...]] = {}
    betting = None
    inside = False
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        low = line.lower()
        if low == "gamedef":
            inside = True
            continue
        if low == "end gamedef":
            inside = False
            continue
        if not inside:
            raise GameError(f"{where}:{lineno}: outside GAMEDEF ... END GAMEDEF: {line[:60]!r}")
        if low in ("limit", "nolimit", "potlimit", "pot-limit", "no-limit"):
            betting = low
            continue
        key, eq, value = line.partition("=")
        if not eq:
            raise GameError(f"{where}:{lineno}: expected 'key = values', got {line[:60]!r}")
        fields[key.strip().lower()] = _ints(value.split(), key.strip(), f"{where}:{lineno}")
    if betting != "limit":
        raise GameError(f"{where}: only limit games can be replayed (this is {betting or 'unspecified'})")

    def need(key: str, count: int | None = None) -> tuple[int, ...]:
        values = fields.get(key.lower())
        if values is None:
            raise GameError(f"{where}: {key} is missing")
        if count is not None and len(values) != count:
            raise GameError(f"{where}: {key} needs {count} values, got {len(values)}")
        return values

    (players,) = need("numPlayers", 1)
    if not 2 <= players <= 10:
        raise GameError(f"{where}: numPlayers = {players}; 2-10 can be replayed")
    if need("numRounds", 1) != (4,):
        raise GameError(f"{where}: hold'em has 4 rounds, numRounds = {fields['numrounds'][0]}")
    for key, want in (("numHoleCards", (2,)), ("numBoardCards", (0, 3, 1, 1)),
                      ("numSuits", (4,)), ("numRanks", (13,))):
        values = fields.get(key.lower())
        if values is not None and values != want:
            raise GameError(f"{where}: {key} = {' '.join(map(str, values))}, hold'em needs "
                            f"{' '.join(map(str, want))}")
    raise_size = need("raiseSize", 4)
    if raise_size[0] != raise_size[1] or raise_size[2] != raise_size[3] or min(raise_size) <= 0:
        raise GameError(f"{where}: raiseSize {' '.join(map(str, raise_size))}: our rules need one "
                        "bet for the pre-flop and flop and one for the turn and river")
    max_raises = need("maxRaises", 4)
    if not (max_raises[0] + 1 == max_raises[1] == max_raises[2] == max_raises[3]) or max_raises[1] < 1:
        raise GameError(f"{where}: maxRaises {' '.join(map(str, max_raises))}: our rules need the same "
                        "cap of bets every round (one raise fewer pre-flop, where the blind is the bet)")
    blind = need("blind", players)
    first = need("firstPlayer", 4)
    if players == 2:
        big, small = blind
        shape_ok = first == (2, 1, 1, 1) and 0 < small <= big
    else:
        small, big = blind[0], blind[1]
        shape_ok = first == (3, 1, 1, 1) and 0 < small <= big and not any(blind[2:])
    if not shape_ok:
        raise GameError(f"{where}: blind {' '.join(map(str, blind))} with firstPlayer "
                        f"{' '.join(map(str, first))} is not the usual order "
                        f"({'reverse blinds heads-up' if players == 2 else 'small, big, 0...'})")
    stack = None
    stacks = fields.get("stack")
    if stacks is not None:
        if len(set(stacks)) != 1 or stacks[0] <= 0:
            raise GameError(f"{where}: stacks {' '.join(map(str, stacks))}: only one equal "
                            "positive stack for everyone can be replayed")
        stack = stacks[0]
    return AcpcGame(players, small, big, raise_size[0], raise_size[2], max_raises[1], stack)
