"""Loki-1's rule-based Bettor ([loki2-1999] §3, [testbed-1998] §4.4), kept as the baseline the
probability-triple strategy is measured against: deterministic thresholds on EHS.

* EHS ≥ raise_threshold: make it two bets (bet or raise while fewer than two are in),
  then call anything;
* EHS ≥ bet_threshold: bet if nobody has, call one bet;
* otherwise check, and call only when Ppot beats the pot odds ([testbed-1998]: "We call when
  Ppot > pot_odds");
* fold the rest.
"""
from __future__ import annotations

from agent.config import EngineConfig
from agent.game.rules import Action


def loki1_action(ehs: float, ppot: float, pot: int, to_call: int, bets_to_call: int,
                 bets_this_round: int, can_raise: bool, cfg: EngineConfig) -> Action:
    """The Bettor's move; never a fold when checking is free, never a raise when capped."""
    if ehs >= cfg.raise_threshold:
        make, call_any = 2, True
    elif ehs >= cfg.bet_threshold:
        make, call_any = 1, False
    else:
        make, call_any = 0, False
    if bets_this_round < make and can_raise:
        return Action.BET_RAISE
    if to_call <= 0:
        return Action.CHECK_CALL
    if call_any or (make >= 1 and bets_to_call <= 1):
        return Action.CHECK_CALL
    pot_odds = to_call / (pot + to_call)
    if ppot > pot_odds:
        return Action.CHECK_CALL
    return Action.FOLD
