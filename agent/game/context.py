"""The context of a decision, defined once: the tracker's read-only snapshot of the public
game context ([poki-2002]), and the opponent-model context every part reads — the tracker's
records, the player's re-weighting, the database's counts and the shadow scorer.

An opponent-model context is round × bets to call (0, 1, 2+): twelve contexts, the
"betting frequencies in different contexts" of [poki-2002] §3.

A fine context refines each of the twelve with what [poki-2002] (§3, §4) says they miss: the
number of active players, the relative betting position, and the texture of the board,
plus whether the player was the aggressor of the previous round and whether it has
already acted in this round (``fine_context``, ``ContextWalker``). The twelve contexts
stay the coarser level of the same hierarchy: ``fine // FINE_PER_COARSE`` is the coarse
context of a fine one.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from agent.game.rules import Action
from agent.game.slots import slot_constructor

if TYPE_CHECKING:
    from agent.game.records import ActionRecord

__all__ = [
    "FINE_DIGITS", "FINE_PER_COARSE", "FINE_RADIX", "FINE_SCHEME", "N_CONTEXTS", "N_FINE_CONTEXTS", "ContextTemplate", "ContextWalker", "GameContext",
    "board_texture", "by_position",
    "context_name", "context_template", "decision_context", "fine_context", "fine_context_name", "fine_contexts", "order_key",
]

N_CONTEXTS = 12  # 4 rounds × bets to call 0 / 1 / 2+ ([poki-2002])
_ROUND_NAMES = ("preflop", "flop", "turn", "river")
_BETS_NAMES = ("0 bets", "1 bet", "2+ bets")


def decision_context(round_: int, bets_to_call: int) -> int:
    """Opponent-model context 0..11 of a decision in ``round_`` (0 pre-flop .. 3 river)
    facing ``bets_to_call`` whole bets."""
    return 3 * round_ + (bets_to_call if bets_to_call < 2 else 2)


def context_name(context: int) -> str:
    """'flop, 1 bet' for context 4."""
    return f"{_ROUND_NAMES[context // 3]}, {_BETS_NAMES[context % 3]}"


# Fine contexts: each coarse context × active players (2, 3, 4, 5, 6+) × relative position
# (first / middle / last to act among the players still in) × aggressor (made the last bet
# or raise of the previous round; pre-flop: posted a blind) × the player's last action in
# this hand (none / check-call / bet-raise) × acted already this round × bets made this
# round before the decision (0, 1, 2+; pre-flop the big blind is one) × put chips in
# voluntarily this hand × board texture (pre-flop always 0). Which features earn their
# place was decided on hands before 1995-04-20 only (docs/prediction.md).
_ACTIVE_NAMES = ("2 players", "3 players", "4 players", "5 players", "6+ players")
_RELPOS_NAMES = ("first", "middle", "last")
_LAST_NAMES = ("no action yet", "last checked/called", "last bet/raised")
_TEXTURE_NAMES = ("dry", "paired", "suited/connected")
# The digits of a fine context within its coarse one, most significant first, and the
# values each takes: the one source of the numbering. fine_context writes it (by hand, as
# C integer arithmetic once compiled), fine_context_name reads it, and the learned
# predictor lays its one-hot columns out by it (agent.models.learned); a test ties each.
FINE_DIGITS = ("active", "relpos", "aggressor", "last", "acted", "raises", "voluntary", "texture")
FINE_RADIX = (5, 3, 2, 3, 2, 3, 2, 3)
FINE_PER_COARSE = math.prod(FINE_RADIX)
# Names this numbering of fine contexts: a database built with another one rebuilds them.
FINE_SCHEME = "fine-1:" + "x".join(map(str, FINE_RADIX))
N_FINE_CONTEXTS = N_CONTEXTS * FINE_PER_COARSE
_BOARD_AT_ROUND = (0, 3, 4, 5)


def order_key(position: int, n: int, round_: int) -> int:
    """Place in the betting order (0 acts first): after the flop from the seat after the
    button; pre-flop from the seat after the big blind, heads-up from the button."""
    if round_ > 0:
        return position
    if n == 2:
        return (position - 2) % 2
    return (position - 3) % n


def board_texture(board: Sequence[int]) -> int:
    """Coarse texture of a flop, turn or river board (cards as ints, rank = card >> 2,
    suit = card & 3): 1 paired; else 2 when three cards share a suit or three ranks fall
    within five (a flush or a straight is possible); else 0 (dry)."""
    ranks = [c >> 2 for c in board]
    if len(set(ranks)) < len(ranks):
        return 1
    suits = [0, 0, 0, 0]
    for c in board:
        suits[c & 3] += 1
    if max(suits) >= 3:
        return 2
    # The ace also plays low: A-2-3 is connected.
    distinct = sorted(set(ranks) | ({-1} if 12 in ranks else set()))
    for i in range(len(distinct) - 2):
        if distinct[i + 2] - distinct[i] <= 4:
            return 2
    return 0


def fine_context(round_: int, bets_to_call: int, players_active: int, relative_position: int,
                 aggressor: int, last_action: int, acted: int, raises: int, voluntary: int, texture: int) -> int:
    """Fine opponent-model context 0..N_FINE_CONTEXTS-1 (see the comment above
    FINE_RADIX): ``relative_position`` 0 first, 1 middle, 2 last; ``last_action`` 0 none,
    1 check or call, 2 bet or raise; ``aggressor``, ``acted`` and ``voluntary`` 0 or 1;
    ``raises`` bets made this round before the decision;
    ``texture`` as board_texture (0 pre-flop). The one formula: the walker, the database
    and the shadow scorer all call it (C integers once compiled: context.pxd)."""
    active = 0 if players_active <= 2 else (players_active - 2 if players_active < 6 else 4)
    coarse = 3 * round_ + (bets_to_call if bets_to_call < 2 else 2)
    # The mixed radix of FINE_RADIX, digit by digit: active, relpos, aggressor, last, acted,
    # raises, voluntary, texture.
    index = (((((((active * 3 + relative_position) * 2 + (1 if aggressor else 0)) * 3 + last_action) * 2
                + (1 if acted else 0)) * 3 + (raises if raises < 2 else 2)) * 2
              + (1 if voluntary else 0)) * 3 + texture)
    return coarse * FINE_PER_COARSE + index


def fine_context_name(fine: int) -> str:
    """'flop, 1 bet / 3 players, last, aggressor, last checked/called, acted, 1 bet made,
    voluntary, paired'."""
    coarse, rest = divmod(fine, FINE_PER_COARSE)
    digits = []
    for radix in reversed(FINE_RADIX):
        rest, d = divmod(rest, radix)
        digits.append(d)
    active, relpos, aggressor, last, acted, raises, voluntary, texture = reversed(digits)
    if coarse < 3:
        aggr = "blind" if aggressor else "no blind"
    else:
        aggr = "aggressor" if aggressor else "not aggressor"
    parts = [_ACTIVE_NAMES[active], _RELPOS_NAMES[relpos], aggr, _LAST_NAMES[last],
             "acted this round" if acted else "first action this round",
             ("no bet", "1 bet", "2+ bets")[raises] + " made", "voluntary" if voluntary else "not voluntary"]
    if coarse >= 3:
        parts.append(_TEXTURE_NAMES[texture])
    return f"{context_name(coarse)} / {', '.join(parts)}"


class ContextWalker:
    """Follows one hand's actions and gives the fine context of each decision: feed it
    every action in order (``context`` before ``record``). ``positions`` maps each seated
    player to its position (1 = first after the button, n = the button).

    Players are numbered once, here; what the walker remembers of each is kept in lists
    indexed by that number (flags 0/1, the last action 0/1/2), so a decision costs no set
    or dict of names (C integers once compiled: context.pxd)."""

    __slots__ = ("positions", "n", "board", "round", "texture", "last_raiser", "aggressor", "_index", "_pre",
                 "_post", "_folded", "_acted", "_last", "_voluntary", "_blind")

    def __init__(self, positions: dict[str, int], board: Sequence[int]) -> None:
        self.positions = positions
        n = self.n = len(positions)
        self.board = board
        self.round = 0
        self.texture = 0
        self.last_raiser = -1  # of the round being played (a player's number)
        self.aggressor = -1  # last bettor or raiser of the previous round
        self._index = {p: i for i, p in enumerate(positions)}
        # Each player's place in the betting order: pre-flop, and after the flop.
        self._pre = [order_key(pos, n, 0) for pos in positions.values()]
        self._post = [order_key(pos, n, 1) for pos in positions.values()]
        self._folded = [0] * n
        self._acted = [0] * n
        self._last = [0] * n  # each player's last decision: 1 check/call, 2 bet/raise
        self._voluntary = [0] * n
        self._blind = [0] * n

    def _enter(self, round_: int) -> None:
        if round_ != self.round:
            self.aggressor = self.last_raiser
            self.last_raiser = -1
            self._acted = [0] * self.n
            self.round = round_
            self.texture = board_texture(self.board[:_BOARD_AT_ROUND[round_]]) if round_ else 0

    def context(self, round_: int, player: str, bets_to_call: int, players_active: int, raises: int) -> int:
        """The fine context of ``player``'s decision now; ``raises`` as ActionRecord.raises."""
        if round_ != self.round:
            self._enter(round_)
        me = self._index[player]
        keys = self._pre if round_ == 0 else self._post
        folded = self._folded
        mine = keys[me]
        before = after = 0
        for j in range(self.n):
            if j != me and not folded[j]:
                if keys[j] < mine:
                    before += 1
                else:
                    after += 1
        relpos = 0 if not before else (2 if not after else 1)
        aggressor = self._blind[me] if round_ == 0 else (1 if me == self.aggressor else 0)
        return fine_context(round_, bets_to_call, players_active, relpos, aggressor, self._last[me],
                            self._acted[me], raises, self._voluntary[me], self.texture)

    def record(self, round_: int, player: str, kind: str) -> None:
        """One action taken (kinds as agent.game.records: sb bb f k c b r)."""
        if round_ != self.round:
            self._enter(round_)
        me = self._index[player]
        if kind == "sb" or kind == "bb":
            self._blind[me] = 1
            return
        self._acted[me] = 1
        if kind == "f":
            self._folded[me] = 1
        elif kind == "b" or kind == "r":
            self.last_raiser = me
            self._last[me] = 2
            self._voluntary[me] = 1
        else:
            self._last[me] = 1
            if kind == "c":
                self._voluntary[me] = 1


def fine_contexts(actions: Sequence[ActionRecord], positions: dict[str, int], board: Sequence[int]) -> list[int]:
    """The fine context of every action of a hand (blinds included, for alignment)."""
    walker = ContextWalker(positions, board)
    out = []
    for a in actions:
        out.append(walker.context(a.round, a.player, a.bets_to_call, a.players_active, a.raises))
        walker.record(a.round, a.player, a.kind)
    return out


@dataclass(frozen=True, slots=True)
class GameContext:
    """The public game context at one moment of a hand, as one viewer sees it.

    Per-seat tuples are indexed by seat (clockwise table order, as ``players``).
    ``history`` holds one tuple per round reached, each a tuple of (player, kind) in the
    order taken, kinds as in agent.game.records (sb bb f k c b r); ``actions`` holds the
    same actions as the tracker recorded them, each with the bets it faced, the players
    active and its opponent-model context, so no decider works them out again.
    """

    hand_id: str
    players: tuple[str, ...]
    button: int
    positions: tuple[int, ...]  # seats after the button: 1 = first after it, n = the button
    stacks: tuple[int, ...]  # chips behind now
    put_in: tuple[int, ...]  # chips put in this hand so far
    active: tuple[str, ...]  # players not folded (all-in ones included), in seat order
    round: int  # 0 pre-flop, 1 flop, 2 turn, 3 river (4 showdown, 5 over)
    board: tuple[int, ...]
    pot: int  # every chip put in so far, this round's bets included
    small_bet: int
    big_bet: int
    bet_size: int  # the fixed bet of this round
    max_bets: int
    bets_this_round: int  # bets made this round; pre-flop the big blind is the first
    raises_this_round: int
    actor: str | None  # who is to act (None while dealing, at showdown, when over)
    actor_seat: int | None
    to_call: int  # chips the actor would put in by calling (0 when checking is free)
    bets_to_call: int  # ceil(to_call / bet_size)
    legal_actions: tuple[Action, ...]
    history: tuple[tuple[tuple[str, str], ...], ...]
    actions: tuple[ActionRecord, ...]  # every action so far, each with its context
    viewer: str | None
    hole_cards: tuple[int, ...] | None  # the viewer's own cards, if known

    @property
    def players_active(self) -> int:
        return len(self.active)

    @property
    def opponents(self) -> int:
        """Live players besides the actor (or the viewer when nobody acts)."""
        return len(self.active) - 1

    @property
    def position(self) -> int | None:
        """The actor's position (1 = first after the button, n = the button)."""
        return None if self.actor_seat is None else self.positions[self.actor_seat]

    @property
    def pot_odds(self) -> float:
        """Chips to call over the pot after calling ([west-2005]); 0 when checking is free."""
        return self.to_call / (self.pot + self.to_call) if self.to_call else 0.0

    @property
    def can_raise(self) -> bool:
        return Action.BET_RAISE in self.legal_actions

    @property
    def can_fold(self) -> bool:
        return Action.FOLD in self.legal_actions


def by_position(ctx: GameContext) -> GameContext:
    """The same moment with the seats numbered from the first after the button (the
    button last), as the ACPC protocol numbers them: what a decider computes from a
    context then depends on the table, not on how a dealer or connector numbered its
    seats (the IRC dealer and the in-process dealer keep seats fixed and move the button;
    the ACPC dealer moves the seats). ``ctx`` itself when it is numbered so already."""
    n = len(ctx.players)
    if ctx.button == n - 1:
        return ctx
    seats = sorted(range(n), key=ctx.positions.__getitem__)
    players = tuple(ctx.players[s] for s in seats)
    live = set(ctx.active)
    return dataclasses.replace(
        ctx, players=players, button=n - 1, positions=tuple(ctx.positions[s] for s in seats),
        stacks=tuple(ctx.stacks[s] for s in seats), put_in=tuple(ctx.put_in[s] for s in seats),
        active=tuple(p for p in players if p in live),
        actor_seat=None if ctx.actor_seat is None else seats.index(ctx.actor_seat))


_FIELDS = tuple(GameContext.__dataclass_fields__)
_BOARD_AT = _FIELDS.index("board")
_make_context = slot_constructor(GameContext)


class ContextTemplate(NamedTuple):
    """What every hand that reaches the same point of the same betting shares of a
    snapshot: all of GameContext's fields but the hand id, the board and the hole cards
    (the first field, ``board`` and the last), in GameContext's own field order."""

    head: tuple[Any, ...]  # the fields after hand_id, up to the board
    tail: tuple[Any, ...]  # the fields after the board, up to hole_cards

    def build(self, hand_id: str, board: tuple[int, ...], hole: tuple[int, ...] | None) -> GameContext:
        """This hand's snapshot: the template with its id, board and hole cards."""
        return _make_context(hand_id, *self.head, board, *self.tail, hole)


def context_template(ctx: GameContext) -> ContextTemplate:
    """``ctx`` without its hand id, board and hole cards (:class:`ContextTemplate`)."""
    fields = [getattr(ctx, name) for name in _FIELDS]
    return ContextTemplate(tuple(fields[1:_BOARD_AT]), tuple(fields[_BOARD_AT + 1:-1]))
