"""The triple generator: the formula-based betting strategy of Loki-2 / Poki (seed 002 §4,
seed 004 "basic betting strategy"), turning effective hand strength and the game
situation into a probability triple (fold, call, raise) that sums to 1.

EHS = HS_n + (1 − HS_n) × Ppot (seed 003 §4.4), HS_n the product of our hand strength
against each live opponent's weight table, so the number of opponents enters there.
Rules, each a ramp of half-width ``mix_width`` rather than a step, so that hands near a
threshold get a mixed strategy (seed 002: "analogous to a mixed strategy"):

* aggression: bet at EHS ≥ bet_threshold when no bet is in (lowered by
  late_position_bonus when nobody acts after us), raise at EHS ≥ raise_threshold facing one
  bet, and each further bet already in adds reraise_step;
* calling: a bet is worth calling when EHS beats the pot odds (to call / (pot + to call),
  seed 003 §4.4) by call_margin;
* semi-bluffing: before the river, with nothing to call, a hand whose Ppot beats the pot
  odds a bet would lay (bet / (pot + bet)) bets with probability semi_bluff;
* check-raising: with nothing to call and a raising hand, check with probability
  check_raise when someone still acts after us (a bet from them is then raised);
* slow-playing: before the river, facing a bet with EHS ≥ slow_play_threshold, only call
  with probability slow_play.

Illegal entries are folded into the legal ones last (agent.engine.selector.legal_triple):
no fold when checking is free, no raise when the round is capped.
"""
from __future__ import annotations

from dataclasses import dataclass

from agent.config import EngineConfig
from agent.engine.selector import legal_triple

Triple = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class Situation:
    """What the triple generator looks at, all numbers."""

    ehs: float
    ppot: float  # 0 when potential is off or on the river
    pot: int  # chips in the pot, this round's bets included
    to_call: int  # chips to call (0: checking is free)
    bet_size: int  # the round's bet
    bets_this_round: int  # bets made this round (pre-flop the big blind is the first)
    max_bets: int
    round: int  # 1 flop, 2 turn, 3 river
    to_act_after: int  # live players still to act after us this round
    can_raise: bool = True

    @property
    def pot_odds(self) -> float:
        return self.to_call / (self.pot + self.to_call) if self.to_call > 0 else 0.0


def ramp(x: float, lo: float, hi: float) -> float:
    """0 below lo, 1 above hi, linear between (a step when lo == hi)."""
    if x <= lo:
        return 0.0 if x < hi else 1.0
    if x >= hi:
        return 1.0
    return (x - lo) / (hi - lo)


def aggression_threshold(s: Situation, cfg: EngineConfig) -> float:
    """EHS at which the next bet is made, by the bets already in this round."""
    level = s.bets_this_round
    if level <= 0:
        t = cfg.bet_threshold
        if s.to_act_after == 0:
            t -= cfg.late_position_bonus
        return t
    return min(cfg.raise_threshold + cfg.reraise_step * (level - 1), 0.99)


def decision_triple(s: Situation, cfg: EngineConfig) -> Triple:
    """(fold, call, raise) for our hand in situation `s`; sums to 1, legal entries only."""
    w = cfg.mix_width
    t = aggression_threshold(s, cfg)
    r = ramp(s.ehs, t - w, t + w)
    if s.to_call > 0:
        need = s.pot_odds + cfg.call_margin
        call_ok = ramp(s.ehs, need - w, need + w)
    else:
        call_ok = 1.0
        # Semi-bluff: a draw that is paid for by the pot a bet wins (seed 003 §4.4, seed 004).
        if s.round < 3 and s.ppot > 0.0 and r < 1.0:
            bet_odds = s.bet_size / (s.pot + s.bet_size) if s.pot + s.bet_size > 0 else 1.0
            if s.ppot > bet_odds:
                r += (1.0 - r) * cfg.semi_bluff
        # Check-raise: let a player behind bet into a strong hand.
        if s.ehs >= cfg.raise_threshold and s.to_act_after > 0:
            r *= 1.0 - cfg.check_raise
    if s.to_call > 0 and s.round < 3 and s.ehs >= cfg.slow_play_threshold:
        r *= 1.0 - cfg.slow_play
    f = (1.0 - r) * (1.0 - call_ok)
    c = 1.0 - r - f
    return legal_triple((f, c, r), s.to_call, s.can_raise and s.bets_this_round < s.max_bets)
