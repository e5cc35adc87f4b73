"""The range reader: a static opponent-range bot, the strongest rule-based opponent in our
fields (issue 42; docs/strength.md, "The range reader"). It reads each opponent's range from its actions with fixed tables and
plays effective hand strength against those ranges; it learns nothing across hands.

Reading (one weight table of the 1326 holdings per opponent, rebuilt each hand from the
hand's actions, the machinery of Poki's weight tables, agent.engine.modeler):

* pre-flop a holding's strength is its income-rate percentile for the field size
  (:func:`agent.engine.modeler.preflop_strengths`); a call keeps the top ``call`` share of
  the holdings (:class:`ReadingTables`), a call of a raise the top ``cold_call`` share, a
  raise the top ``raise_`` share, a re-raise the top ``reraise`` share; a check or a blind
  says nothing;
* after the flop a holding's strength is Poki's EHS-like board strength
  (:func:`agent.engine.modeler.board_strengths`); a bet keeps the top ``bet`` share of the
  opponent's current range, a raise the top ``raise_post`` share, a call the top
  ``call_post`` share; a check says nothing.

"Keeps" is a step at the weighted quantile of the current table: the holdings below it
are multiplied by ``FLOOR`` (nothing is ever ruled out, so a bluff is not a contradiction).
Each table's share comes from its loosest and tightest value by ``tables`` (0 the
loosest, 1 the tightest): how narrow it reads the others' actions.

Playing pre-flop: the top ``play`` share of starting hands by the same percentiles,
raising the best of them (:meth:`RangeReader._preflop`).

Playing after the flop: EHS = HS_n + (1 − HS_n) Ppot against those tables
(:func:`agent.engine.modeler.assess_hand`, the assessment Poki makes against its learned
tables; HS_n the product of the hand strengths against each opponent). It bets at EHS ≥
``bet``, raises at EHS ≥ ``raise``, calls when EHS beats the pot odds by ``call``, else
checks or folds. Deterministic: its generator is kept for the interface, never drawn from.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

import evaluator_pyx as ev
from agent.engine.income_rates import field_of_players
from agent.engine.modeler import (
    apply_action,
    assess_hand,
    board_strengths,
    live_holdings,
    loki1_multipliers,
    preflop_strengths,
    weighted_quantile,
)
from agent.game.context import GameContext
from agent.game.rules import Action
from agent.players import BasePlayer, Param, PlayerKind
from agent.players.housebots import nearest_legal

__all__ = ["RANGE_KINDS", "RangeReader", "ReadingTables", "reading_tables"]

FOLD, CALL, RAISE = Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE
# What one action that does not fit the table multiplies a holding's weight by.
FLOOR = 0.02
_BOARD_AT_ROUND = (0, 3, 4, 5)


class ReadingTables(NamedTuple):
    """The share of holdings each action keeps (pre-flop: of all holdings; after the
    flop: of the opponent's current range)."""

    call: float  # pre-flop, calling one bet (a limp, or the big blind's call of a limp)
    cold_call: float  # pre-flop, calling two bets or more
    raise_: float  # pre-flop, making it two bets (the open raise)
    reraise: float  # pre-flop, making it three bets or more
    bet: float  # after the flop, the first bet of a round
    raise_post: float  # after the flop, a raise
    call_post: float  # after the flop, a call


# The loosest and the tightest tables; ``tables`` in [0, 1] goes linearly between them.
# tables=0.5 (the default) reads a limp as the top 68% of hands, an open raise as the top
# 40%, a bet after the flop as the top 75% of the range, a raise as the top 55%; at the
# loosest only raises say much (the reading for calling stations); at the tightest every
# action means a strong hand. The defaults (these tables, play 0.45, bet 0.35, raise 0.55)
# were the best of a few settings tried in the ten-seat field, whose two calling
# stations reward loose value play (docs/lab/strength.md, "The range reader").
LOOSEST = ReadingTables(call=1.0, cold_call=0.70, raise_=0.70, reraise=0.30, bet=1.0, raise_post=0.85,
                        call_post=1.0)
TIGHTEST = ReadingTables(call=0.35, cold_call=0.10, raise_=0.10, reraise=0.04, bet=0.50, raise_post=0.25,
                         call_post=0.75)


def reading_tables(tables: float) -> ReadingTables:
    """The tables at tightness ``tables`` (0 loosest .. 1 tightest)."""
    if not 0.0 <= tables <= 1.0:
        raise ValueError(f"tables must be in [0, 1], got {tables!r}")
    return ReadingTables(*(lo + tables * (hi - lo) for lo, hi in zip(LOOSEST, TIGHTEST)))


def keep_top(weights: np.ndarray, strength: np.ndarray, share: float) -> np.ndarray:
    """The table after an action that keeps the top ``share`` of it by ``strength``: the
    holdings under the weighted (1 − share)-quantile times FLOOR, the rest unchanged."""
    cut = weighted_quantile(strength, weights, 1.0 - share)
    return apply_action(weights, loki1_multipliers(strength, cut, 0.0, FLOOR), FLOOR, "action")


def preflop_share(t: ReadingTables, kind: str, bets_to_call: int, raises: int) -> float | None:
    """The share of all holdings a pre-flop action keeps (None: it says nothing). ``raises``
    is the bets made before it, the big blind the first."""
    if kind == "c":
        return t.call if bets_to_call <= 1 else t.cold_call
    if kind in ("b", "r"):
        return t.raise_ if raises <= 1 else t.reraise
    return None


def postflop_share(t: ReadingTables, kind: str) -> float | None:
    """The share of its current range an action after the flop keeps (None: a check)."""
    if kind == "b":
        return t.bet
    if kind == "r":
        return t.raise_post
    if kind == "c":
        return t.call_post
    return None


class RangeReader(BasePlayer):
    """See the module docstring."""

    def __init__(self, name: str, rng: np.random.Generator, tables: float = 0.5, play: float = 0.45,
                 bet: float = 0.35, raise_: float = 0.55, call: float = 0.0) -> None:
        super().__init__(name, rng)
        if not bet <= raise_:
            raise ValueError(f"{name}: bet ({bet}) must not exceed raise ({raise_})")
        self.tightness = tables
        self.tables = reading_tables(tables)
        self.play = play
        self.bet = bet
        self.raise_ = raise_
        self.call = call
        # This hand's reading: which hand, how many of its actions are read, each
        # opponent's table, and the board the tables have seen.
        self._hand: str | None = None
        self._read = 0
        self._ranges: dict[str, np.ndarray] = {}
        self._field = "5+"
        self._hole = 0
        self._board = 0

    def describe(self) -> str:
        return (f"{self.name}: range reader (tables {self.tightness:g}, play {self.play:g}, bet {self.bet:g}, "
                f"raise {self.raise_:g}, call margin {self.call:g})")

    # --- reading -------------------------------------------------------------------------

    def ranges(self, ctx: GameContext) -> dict[str, np.ndarray]:
        """Each opponent's weight table after every action of the hand so far (read from
        ``ctx.actions``, only the new ones since the last call of the same hand)."""
        hole = ctx.hole_cards
        if hole is None:
            raise ValueError(f"{self.name}: needs its hole cards")
        hole_mask = ev.cards_to_mask(hole)
        # A new hand (or a context that is not a continuation of the one read: fewer
        # actions, other cards) starts from fresh tables: nothing carries over.
        if ctx.hand_id != self._hand or len(ctx.actions) < self._read or hole_mask != self._hole:
            self._hand = ctx.hand_id
            self._read = 0
            self._hole = hole_mask
            self._board = 0
            base = live_holdings(self._hole).astype(np.float64)
            self._ranges = {p: base.copy() for p in ctx.players if p != self.name}
            self._field = field_of_players(len(ctx.players))
        for record in ctx.actions[self._read:]:
            table = self._ranges.get(record.player)
            if table is None:
                continue
            if record.round == 0:
                share = preflop_share(self.tables, record.kind, record.bets_to_call, record.raises)
                if share is not None:
                    table = keep_top(table, preflop_strengths(self._field), share)
            else:
                share = postflop_share(self.tables, record.kind)
                if share is not None:
                    board = self._see_board(ctx, record.round)
                    table = keep_top(table, board_strengths(board), share)
            self._ranges[record.player] = table
        self._read = len(ctx.actions)
        if ctx.round > 0:
            self._see_board(ctx, ctx.round)
        return self._ranges

    def _see_board(self, ctx: GameContext, round_: int) -> int:
        """The board mask of ``round_``; the first time a card is seen, every table drops
        the holdings that hold it."""
        board = ev.cards_to_mask(ctx.board[:_BOARD_AT_ROUND[round_]])
        if board != self._board:
            live = live_holdings(board)
            for table in self._ranges.values():
                table *= live
            self._board = board
        return board

    # --- playing -------------------------------------------------------------------------

    def act(self, ctx: GameContext) -> Action:
        ranges = self.ranges(ctx)
        if ctx.round == 0:
            return self._preflop(ctx)
        opponents = [p for p in ctx.active if p != self.name]
        got = assess_hand(self._hole, self._board, [ranges[p] for p in opponents], len(opponents), True)
        return self.postflop_action(ctx, got.ehs)

    def _preflop(self, ctx: GameContext) -> Action:
        """Plays the top ``play`` share of starting hands (by the same income-rate
        percentiles it reads with): raises the top 40% of them when nobody has raised,
        re-raises the top 15% and calls with the top 60% of them facing a raise."""
        hole = ctx.hole_cards
        assert hole is not None  # ranges() checked
        place = 1.0 - float(preflop_strengths(self._field)[ev.holding_index_of_cards(*hole)])
        play = self.play
        if ctx.bets_this_round <= 1:
            if place <= 0.4 * play:
                return nearest_legal(ctx, RAISE)
            return nearest_legal(ctx, CALL if place <= play else FOLD)
        if place <= 0.15 * play:
            return nearest_legal(ctx, RAISE)
        return nearest_legal(ctx, CALL if place <= 0.6 * play else FOLD)

    def postflop_action(self, ctx: GameContext, ehs: float) -> Action:
        """Thresholds on EHS: raise (or bet) at ``raise``, bet at ``bet`` with nothing to
        call, call when EHS beats the pot odds by ``call``."""
        if ehs >= self.raise_:
            return nearest_legal(ctx, RAISE)
        if ctx.to_call == 0:
            return nearest_legal(ctx, RAISE if ehs >= self.bet else CALL)
        return CALL if ehs >= ctx.pot_odds + self.call else nearest_legal(ctx, FOLD)


def _kind(name: str, tables: float, help_text: str) -> PlayerKind:
    return PlayerKind(name, lambda n, rng, **kw: RangeReader(n, rng, kw["tables"], kw["play"], kw["bet"], kw["raise"], kw["call"]), {
        "tables": Param(float, tables, "how tight it reads actions: 0 loosest, 1 tightest",
                        low=0.0, high=1.0),
        "play": Param(float, 0.45, "share of starting hands it plays pre-flop", low=0.0, high=1.0),
        "bet": Param(float, 0.35, "EHS against the read ranges to bet", low=0.0, high=1.0),
        "raise": Param(float, 0.55, "EHS against the read ranges to raise", low=0.0, high=1.0),
        "call": Param(float, 0.0, "EHS above the pot odds needed to call", low=0.0, high=1.0),
    }, help_text)


# The kinds agent.play.kinds registers: the reader and its two extreme presets.
RANGE_KINDS: list[PlayerKind] = [
    _kind("range-reader", 0.5, "reads each opponent's range from its actions with fixed tables and plays EHS "
          "against them; learns nothing (issue 42)"),
    _kind("range-reader-tightest", 1.0, "the range reader with its tightest tables (tables=1)"),
    _kind("range-reader-loosest", 0.0, "the range reader with its loosest tables (tables=0)"),
]
