"""The action selector ([loki2-1999] §4): draws fold, call or raise from a probability triple
with the injected generator, so identical situations need not get identical play."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.game.rules import Action

Triple = tuple[float, float, float]


def legal_triple(triple: Sequence[float], to_call: int, can_raise: bool) -> Triple:
    """The triple with illegal or pointless entries moved to call: folding when checking
    is free becomes a check, raising when capped becomes a call. Negative entries are
    clipped and the result renormalised, so it always sums to 1."""
    f, c, r = (max(0.0, float(x)) for x in triple)
    if to_call <= 0:
        c += f
        f = 0.0
    if not can_raise:
        c += r
        r = 0.0
    total = f + c + r
    if total <= 0.0:
        return (0.0, 1.0, 0.0)
    return (f / total, c / total, r / total)


def select_action(triple: Sequence[float], rng: np.random.Generator, to_call: int,
                  legal: Sequence[Action]) -> Action:
    """Sample an action from `triple`; the result is always in `legal`."""
    f, c, r = legal_triple(triple, to_call, Action.BET_RAISE in legal)
    u = rng.random()
    if u < f:
        action = Action.FOLD
    elif u < f + c:
        action = Action.CHECK_CALL
    else:
        action = Action.BET_RAISE
    if action not in legal:
        action = Action.CHECK_CALL if Action.CHECK_CALL in legal else legal[0]
    return action
