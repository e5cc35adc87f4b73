"""Pre-flop strategy from the shipped income-rate tables ([testbed-1998] §4.1, [poki-2002]
"pre-flop betting strategy").

Before the flop there is little to go on but the two cards, the number of players and the
position, so the decision is a small expert system on the hand's income rate (IR, in
milli-bets, from agent.engine.income_rates for the field size of the hand). The IR is compared
with one threshold per strategy, each ``base + increment × players still to act`` (Papp's
form: the more players behind, the more can go wrong, the better the hand must be); the
best strategy whose threshold the hand reaches is kept for the rest of the pre-flop.

The strategies, as (make level M, call level C) in bets this round (the big blind is the
first bet): raise while fewer than M bets are in, else check or call while at most C bets
are in, else fold.

* Make0 — check if free, else fold.                       (M 0, C 0)
* Call1 — call one bet (the blind), fold to a raise.       (M 0, C 1)
* Make1 — open the pot: raise if nobody has come in yet,
          else call; call one raise.                       (M 2 if unopened else 0, C 2)
* Call2 — call anything.                                   (M 0, C cap)
* Make2 — raise to two bets, then call anything.           (M 2, C cap)
* Make4 — raise to the cap.                                (M cap, C cap)

The thresholds are this project's choice, set so that at ten seats the moderate setting
plays about a fifth to a quarter of its hands (more on the button than under the gun),
and tight / loose shift every threshold by 100 milli-bets.
"""
from __future__ import annotations

from enum import IntEnum

from agent.game.rules import Action


class PreflopStrategy(IntEnum):
    MAKE0 = 0
    CALL1 = 1
    MAKE1 = 2
    CALL2 = 3
    MAKE2 = 4
    MAKE4 = 5


# (base, increment per player still to act), milli-bets, for the moderate setting.
MODERATE_THRESHOLDS: dict[PreflopStrategy, tuple[float, float]] = {
    PreflopStrategy.CALL1: (0.0, 10.0),
    PreflopStrategy.MAKE1: (60.0, 10.0),
    PreflopStrategy.CALL2: (120.0, 12.0),
    PreflopStrategy.MAKE2: (200.0, 15.0),
    PreflopStrategy.MAKE4: (500.0, 20.0),
}
SETTING_SHIFT = {"tight": 100.0, "moderate": 0.0, "loose": -100.0}


def threshold(strategy: PreflopStrategy, to_act: int, setting: str = "moderate") -> float:
    """The IR a hand needs for `strategy` with `to_act` players still to act after us."""
    if strategy == PreflopStrategy.MAKE0:
        return float("-inf")
    base, inc = MODERATE_THRESHOLDS[strategy]
    return base + SETTING_SHIFT[setting] + inc * max(0, to_act)


def choose_strategy(income_rate: float, to_act: int, setting: str = "moderate") -> PreflopStrategy:
    """The strongest strategy whose threshold the hand's income rate reaches."""
    if setting not in SETTING_SHIFT:
        raise ValueError(f"pre-flop setting must be one of {', '.join(SETTING_SHIFT)}, got {setting!r}")
    for strategy in reversed(PreflopStrategy):
        if income_rate >= threshold(strategy, to_act, setting):
            return strategy
    return PreflopStrategy.MAKE0


def levels(strategy: PreflopStrategy, unopened: bool, max_bets: int) -> tuple[int, int]:
    """(make level, call level) of a strategy, in bets this round."""
    if strategy == PreflopStrategy.MAKE0:
        return 0, 0
    if strategy == PreflopStrategy.CALL1:
        return 0, 1
    if strategy == PreflopStrategy.MAKE1:
        return (2 if unopened else 0), 2
    if strategy == PreflopStrategy.CALL2:
        return 0, max_bets
    if strategy == PreflopStrategy.MAKE2:
        return 2, max_bets
    return max_bets, max_bets


def preflop_action(strategy: PreflopStrategy, bets_this_round: int, to_call: int,
                   can_raise: bool, unopened: bool, max_bets: int) -> Action:
    """The move a strategy makes; never an illegal one (no fold when checking is free,
    no raise when capped)."""
    make, call = levels(strategy, unopened, max_bets)
    if bets_this_round < make and can_raise:
        return Action.BET_RAISE
    if to_call == 0 or bets_this_round <= call:
        return Action.CHECK_CALL
    return Action.FOLD
