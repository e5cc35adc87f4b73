"""The Poki decision engine (seeds 002, 003, 004): pre-flop strategy from income rates,
the formula betting strategy as probability triples, the action selector, the Loki-1
rule-based Bettor kept as the baseline, the opponent modeler with its weight tables (the
predictions it reads come from agent.models), the simulator, and the player that puts
them together (registered as ``poki``).

Every part is a function of numbers in and numbers out, except the player, which reads
the tracker's game context and keeps the per-hand state.
"""
from agent.engine.bettor_loki1 import loki1_action
from agent.engine.preflop import PreflopStrategy, choose_strategy, preflop_action
from agent.engine.selector import legal_triple, select_action
from agent.engine.triples import Situation, decision_triple

__all__ = [
    "PreflopStrategy",
    "Situation",
    "choose_strategy",
    "decision_triple",
    "legal_triple",
    "loki1_action",
    "preflop_action",
    "select_action",
]
