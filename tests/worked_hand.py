"""A four-player hand worked by hand, shared by the prediction and learned-predictor tests."""
from __future__ import annotations

from agent.game.records import ActionRecord
from evaluator_pyx.cards import parse_cards


def worked_hand() -> tuple[list[ActionRecord], dict[str, int], list[int]]:
    """Four players, a (position 1, small blind), b (2, big blind), c (3), d (4, button),
    bets 10/20: pre-flop c calls, d raises, a folds, b calls, c calls; flop (dry) b checks,
    c bets, d calls, b folds; turn c checks, d bets, c calls. The actions, the positions
    and the board."""
    pos = {"a": 1, "b": 2, "c": 3, "d": 4}
    A = ActionRecord
    actions = [
        A(0, "a", "sb", 5, 0, 0, 1, 4), A(0, "b", "bb", 10, 0, 1, 2, 4),
        A(0, "c", "c", 10, 1, 1, 3, 4), A(0, "d", "r", 20, 1, 1, 4, 4), A(0, "a", "f", 0, 2, 2, 1, 4),
        A(0, "b", "c", 10, 1, 2, 2, 3), A(0, "c", "c", 10, 1, 2, 3, 3),
        A(1, "b", "k", 0, 0, 0, 2, 3), A(1, "c", "b", 10, 0, 0, 3, 3), A(1, "d", "c", 10, 1, 1, 4, 3),
        A(1, "b", "f", 0, 1, 1, 2, 3),
        A(2, "c", "k", 0, 0, 0, 3, 2), A(2, "d", "b", 20, 0, 0, 4, 2), A(2, "c", "c", 20, 1, 1, 3, 2),
    ]
    return actions, pos, parse_cards("Kc 7d 2h 9s")
