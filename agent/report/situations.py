"""The HUD statistics of particular situations, as FPDB defines them (its
``DerivedStats.py``, github.com/jejellyroll-fr/fpdb-3): positions and their groups,
steals and folds to a steal, the pre-flop 4-bet, check-raises and continuation bets on
the later streets, and going to showdown after calling a flop bet. Each function reads
one hand's actions as agent.report.stats.hand_flags hands them over, (player, kind,
all-in) per round in the order taken, and sets done / opportunity flags.

Positions (``DerivedStats.setPositions``): the small blind is "S", the big blind "B"
(the first player to post each, as FPDB takes the first of several), and every other
player is counted back from the button: 0 the button, 1 the cut-off, 2 ... Our seats
number positions forward from the button's left (1 the first after it, n the button), so
a player who is no blind is at FPDB position n - position. The groups are those of
FPDB's hand cache (``Database.py``, ``hc_position``): blinds (S, B), late (0, 1: the
button and the cut-off), middle (2-4), early (5 and beyond).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from agent.game.records import BET, BIG_BLIND, CALL, CHECK, FOLD, RAISE, SMALL_BLIND

__all__ = ["BLINDS", "EARLY", "LATE", "MIDDLE", "POSITION_GROUPS", "check_raises", "four_bet",
           "fpdb_positions", "later_cbets", "position_group", "showdown_after_flop_call", "steals"]

POSITION_GROUPS = ("blinds", "early", "middle", "late")
BLINDS, EARLY, MIDDLE, LATE = range(4)
# calcSteals: an open raise from the cut-off, the button or the small blind is a steal.
STEAL_POSITIONS = (1, 0, "S")
_AGGRESSIVE = (BET, RAISE)

Action = tuple[int, str, int]  # (player, kind, all-in)


def fpdb_positions(seated: Sequence[int], positions: Mapping[int, int], pre: Sequence[Action]) -> dict[int, object]:
    """Each seated player's FPDB position: "S", "B" or 0, 1, 2 ... counted back from the
    button (see the module docstring)."""
    n = len(seated)
    out: dict[int, object] = {}
    small = next((p for p, k, _ in pre if k == SMALL_BLIND), None)
    big = next((p for p, k, _ in pre if k == BIG_BLIND), None)
    # Only the first blind posted is the small blind (a post out of turn comes later).
    first = next(((p, k) for p, k, _ in pre if k in (SMALL_BLIND, BIG_BLIND)), None)
    if first is not None and first[1] != SMALL_BLIND:
        small = None
    for p in seated:
        if p == small:
            out[p] = "S"
        elif p == big:
            out[p] = "B"
        else:
            out[p] = n - positions.get(p, n)
    return out


def position_group(pos: object) -> int:
    """BLINDS, EARLY, MIDDLE or LATE of an FPDB position (hc_position's grouping)."""
    if pos in ("S", "B"):
        return BLINDS
    assert isinstance(pos, int)
    if pos <= 1:
        return LATE
    return MIDDLE if pos <= 4 else EARLY


def steals(pre: Sequence[Action], pos: Mapping[int, object]) -> dict[str, set[int]]:
    """calcSteals: who had a chance to steal (first in, from the cut-off, the button or the
    small blind, nobody having raised or called) and took it by raising, and which blind
    then had a chance to fold to the steal (nobody calling or raising in between) and
    folded. The loop stops where FPDB's does: at the big blind, at a call, at any
    action but a fold from outside the stealing positions, or at the first non-fold after
    a steal."""
    out: dict[str, set[int]] = {k: set() for k in ("steal_opp", "steal", "fold_opp", "fold")}
    attempt = raised = False
    for player, kind, _ in pre:
        if kind in (SMALL_BLIND, BIG_BLIND):
            continue
        p = pos.get(player)
        if p == "B":
            if attempt:
                out["fold_opp"].add(player)
                if kind == FOLD:
                    out["fold"].add(player)
            break
        if p == "S" and attempt:
            out["fold_opp"].add(player)
            if kind == FOLD:
                out["fold"].add(player)
        if attempt and kind != FOLD:
            break
        if not attempt and not raised:
            if p in STEAL_POSITIONS:
                out["steal_opp"].add(player)
            if kind in _AGGRESSIVE:
                raised = True
                if p in STEAL_POSITIONS:
                    out["steal"].add(player)
                    attempt = True
            if kind == CALL:
                break
        if p not in STEAL_POSITIONS and kind != FOLD:
            break
    return out


def four_bet(pre: Sequence[Action]) -> tuple[int | None, bool]:
    """calc34BetStreet0's 4-bet: the first raiser (the open raise is the second bet, the
    big blind the first) has a chance when he acts facing a re-raise (the third bet),
    and takes it by raising again. (the opener, whether he did)."""
    level = 1
    opener = None
    for player, kind, _ in pre:
        if kind in (SMALL_BLIND, BIG_BLIND):
            continue
        if level == 3 and player == opener:
            return opener, kind in _AGGRESSIVE
        if kind in _AGGRESSIVE:
            if level == 1:
                opener = player
            level += 1
    return None, False


def check_raises(acts: Sequence[Action], postflop: set[int]) -> tuple[set[int], set[int]]:
    """calcCheckCallRaise for one street: who checked before any bet and then faced a bet
    or raise (the chance), and who answered it, at his next action, by raising
    (FPDB's streetNCheckRaiseDone)."""
    checkers: set[int] = set()
    answered: set[int] = set()
    chances: set[int] = set()
    done: set[int] = set()
    bet = False
    for player, kind, _ in acts:
        if not bet and kind in _AGGRESSIVE:
            bet = True
        elif not bet and kind == CHECK:
            checkers.add(player)
        elif bet and player in checkers and player not in answered:
            answered.add(player)
            if player in postflop:
                chances.add(player)
                if kind == RAISE:
                    done.add(player)
    return chances, done


def later_cbets(previous: Sequence[Action], acts: Sequence[Action], postflop: set[int]) -> tuple[int | None, bool]:
    """calcCBets for the turn or the river: the last to bet or raise on the street before
    has a chance if nobody bets before his first action on this one, and takes it by
    betting (or raising) as that action. (the player with the chance, whether he did)."""
    aggressor = next((p for p, k, _ in reversed(previous) if k in _AGGRESSIVE), None)
    if aggressor is None or aggressor not in postflop:
        return None, False
    for player, kind, _ in acts:
        if player == aggressor:
            return aggressor, kind in _AGGRESSIVE
        if kind in _AGGRESSIVE:
            return None, False
    return None, False


def showdown_after_flop_call(flop: Sequence[Action], postflop: set[int]) -> set[int]:
    """Who called a bet on the flop: the opportunities of "went to showdown after calling
    a flop bet", done by those of them who then saw the showdown (sawShowdown)."""
    return {player for player, kind, _ in flop if kind == CALL and player in postflop}
