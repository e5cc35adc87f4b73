"""The triple generator: the formula-based betting strategy of Loki-2 / Poki ([loki2-1999] §4,
[poki-2002] "basic betting strategy"), turning effective hand strength and the game
situation into a probability triple (fold, call, raise) that sums to 1.

EHS = HS_n + (1 − HS_n) × Ppot ([testbed-1998] §4.4), HS_n the product of our hand strength
against each live opponent's weight table, so the number of opponents enters there.
Rules, each a ramp of half-width ``mix_width`` rather than a step, so that hands near a
threshold get a mixed strategy ([loki2-1999]: "analogous to a mixed strategy"):

* aggression: bet at EHS ≥ bet_threshold when no bet is in (lowered by
  late_position_bonus when nobody acts after us), raise at EHS ≥ raise_threshold facing one
  bet, and each further bet already in adds reraise_step;
* calling (``call_rule``): with "pot_odds" (the published rule) a bet is worth calling
  when EHS beats the immediate pot odds (to call / (pot + to call), [testbed-1998] §4.4) by
  call_margin. With "showdown" (the default) the call is priced as the commitment it is:
  the better of two plans must beat its own odds by call_margin:
  - *call down*: the EV of calling now and every bet to come, with the chance of
    winning at the showdown HS·(1 − Npot) + (1 − HS)·Ppot ([testbed-1998] §4.2's potentials;
    EHS leaves out Npot and so is optimistic, [testbed-1998] §4.4): W·(pot + F) − (1 − W)·(to
    call + F), F the bets still to come (a raise behind us this round, a bet on each
    later round) matched by the bettor. The bettor's range is split by its modelled
    betting: the part that bets the next round (the stronger part, against which W is
    lower: reverse implied odds) costs us F, the part that gives up costs nothing more
    ([loki2-1999] §5 and [poki-2002] name implied odds as what the plain rule misses);
  - *draw*: before the river, Ppot against to call / (pot + to call + I), I the bet the
    opponents are expected to pay on the next round when the draw comes in (implied
    odds); a missed draw is given up, so it pays only this call ([testbed-1998]: "We call when
    Ppot > pot_odds").
  On the river both reduce to HS against the immediate pot odds;
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
    hs: float = -1.0  # HS_n; below 0: unknown, EHS stands in (call_rule "showdown")
    npot: float = 0.0  # one-card Npot (0 when potential is off or on the river)
    future_bets: float = 0.0  # chips we expect to call later if we call down (all of them)
    implied: float = 0.0  # chips the opponents are expected to pay on the next round
    # The bettor's range split by whether it goes on betting (call_rule "showdown"):
    # go_on the share of its weight that bets the next round (below 0: no split, the
    # bets to come are paid whatever it holds), hs_on / hs_off our HS_n with its table
    # cut to each part, and raise_behind the part of future_bets that a raise still to
    # come this round costs (paid in both branches).
    go_on: float = -1.0
    hs_on: float = -1.0
    hs_off: float = -1.0
    raise_behind: float = 0.0

    @property
    def pot_odds(self) -> float:
        return self.to_call / (self.pot + self.to_call) if self.to_call > 0 else 0.0

    def _win(self, hs: float) -> float:
        if self.round >= 3:
            return hs  # no card to come
        return hs * (1.0 - self.npot) + (1.0 - hs) * self.ppot

    @property
    def win_chance(self) -> float:
        """The chance of winning at the showdown if we see it: ahead now and not
        overtaken, or behind now and pulling ahead (one card of look-ahead)."""
        return self._win(self.hs if self.hs >= 0.0 else self.ehs)

    def call_down_ev(self) -> float:
        """Chips a call wins on average if we then call down: W·(pot + F) − (1 − W)·(to
        call + F) per branch, F the bets to come there; with the split, the bettor gives
        up (share 1 − go_on: only a raise behind is to come) or goes on (all of them)."""
        c, pot = self.to_call, self.pot
        future = max(0.0, self.future_bets)
        if self.go_on < 0.0 or self.hs_on < 0.0 or self.hs_off < 0.0:
            w = self.win_chance
            return w * (pot + c + 2.0 * future) - (c + future)
        now = min(max(0.0, self.raise_behind), future)
        q = min(1.0, self.go_on)
        w_on, w_off = self._win(self.hs_on), self._win(self.hs_off)
        off = w_off * (pot + c + 2.0 * now) - (c + now)
        on = w_on * (pot + c + 2.0 * future) - (c + future)
        return (1.0 - q) * off + q * on

    @property
    def call_edge(self) -> float:
        """How far the better of the two calling plans beats its odds (call_rule
        "showdown"), as a share of the pot: the call-down EV over the pot it is played
        for (with nothing to come: win chance − to call / (pot + to call)), or Ppot against
        the draw's odds."""
        if self.to_call <= 0:
            return 1.0
        future = max(0.0, self.future_bets)
        q = min(1.0, self.go_on) if self.go_on >= 0.0 else 1.0
        now = min(max(0.0, self.raise_behind), future) if self.go_on >= 0.0 else future
        scale = self.pot + self.to_call + 2.0 * ((1.0 - q) * now + q * future)
        down = self.call_down_ev() / scale
        if self.round < 3 and self.ppot > 0.0:
            draw = self.ppot - self.to_call / (self.pot + self.to_call + max(0.0, self.implied))
            return max(down, draw)
        return down


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
        if cfg.call_rule == "showdown":
            call_ok = ramp(s.call_edge, cfg.call_margin - w, cfg.call_margin + w)
        else:
            need = s.pot_odds + cfg.call_margin
            call_ok = ramp(s.ehs, need - w, need + w)
    else:
        call_ok = 1.0
        # Semi-bluff: a draw that is paid for by the pot a bet wins ([testbed-1998] §4.4, [poki-2002]).
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
