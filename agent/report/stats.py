"""HUD statistics of every player in the opponent database, as FPDB defines them.

Each statistic is written once, here, from the rows the database stores (seats, actions
with their round and all-in flag, results, models). The definitions follow FPDB (the Free
Poker DataBase, github.com/jejellyroll-fr/fpdb-3): its ``DerivedStats.py`` turns one
hand into per-player flags and counts, and its ``Stats.py`` divides their sums.

==================  ============================================  =============================
statistic            done (per hand, summed)                      opportunities (the sample)
==================  ============================================  =============================
VPIP                 called, bet or raised pre-flop                hands dealt, except the big
                     (DerivedStats.vpip: street0VPI)              blind's walks (street0VPIChance)
PFR                  bet or raised pre-flop (street0Aggr)          as VPIP (street0AggrChance)
3-bet pre-flop       raised when facing exactly one raise of the   acted facing exactly one raise
                     big blind (calc34BetStreet0: street0_3BDone)  (street0_3BChance)
aggression factor    post-flop bets + raises (counts: streetNBets  post-flop calls (Stats.agg_fact
                     + streetNRaises, N = flop, turn, river)       divides by call_1..4); the
                                                                   sample is bets+raises+calls
aggression freq.     post-flop streets on which the player bet or  post-flop streets seen
                     raised (streetNAggr)                          (Stats.a_freq_123: saw_1..3)
per-street aggr.     the street's streetNAggr                      the street seen (a_freq_N)
went to showdown     still in when the hand was decided among two  saw the flop (Stats.wtsd:
                     or more players (sawShowdown)                 sd / saw_f)
won at showdown      won chips at a showdown (wonAtSD)             went to showdown (Stats.wmsd)
won when saw flop    won chips in a hand whose flop it saw         saw the flop
                     (wonWhenSeenStreet1)
continuation bet     bet the flop as first action, having made     had the last pre-flop bet and
                     the last pre-flop bet or raise (street1CBDone no one bet before it on the
                     via calcCBets/betStreet)                      flop (street1CBChance)
fold to c-bet        folded to a flop continuation bet             acted facing one, before any
                     (foldToStreet1CBDone)                         raise (foldToStreet1CBChance)
4-bet pre-flop       the opener re-raised a 3-bet                  the opener faced a 3-bet
                     (calc34BetStreet0: street0_4BDone)            (street0_4BChance)
steal                raised first in from the cut-off, button or   first in there, nobody in
                     small blind (calcSteals: stealDone)           (stealChance)
fold to steal        the small or big blind folded to a steal      faced a steal nobody called or
                     (foldedSbToSteal, foldedBbToSteal)            raised (fold..ToStealChance)
check-raise, by      raised at the next action after checking     checked, then faced a bet
street               (calcCheckCallRaise: streetNCheckRaiseDone)   (streetNCheckCallRaiseChance)
c-bet turn, river    bet first, having made the last bet or raise  as for the flop, a street on
                     on the street before (calcCBets: street2/3)   (street2CBChance, street3...)
showdown after a     saw the showdown (sawShowdown)                called a bet on the flop
flop call                                                          (street1Calls)
by position          VPIP, PFR in the blinds, early (5+ seats      hands dealt in the group
                     before the button), middle (2-4), late (the   (setPositions; Database.py
                     cut-off, the button)                          hc_position's groups)
==================  ============================================  =============================

agent.report.situations holds the newer ones; docs/rooms.md compares all of them with
FPDB's own answers on the same hands.

Where we differ from FPDB, and why:

- FPDB's ``agg_fact`` numerator counts streets with any aggression (SQL.py sums the
  streetNAggr flags as aggr_N) over the number of calls (streetNCalls, a count); the aggression factor players know from PokerTracker and
  Hold'em Manager, and the one the report uses, is (bets + raises) / calls with both
  counted, which FPDB's per-street Bets/Raises/Calls counters also hold. We use the counts.
- Post-flop statistics (everything from "aggression factor" down) leave out, per player,
  the hands in which the player could no longer bet after the flop: the player was all-in
  before the flop, or every other player who saw the flop was. An all-in player goes to
  showdown without a choice and can make no continuation bet, which would skew them.
- Quitting or being kicked is not an action in our hand records (the sites FPDB reads
  record leaving as a fold): a player who takes no decision in a round in which others
  did, and wins nothing, has left the hand there, and sees no later street or showdown.

Every figure carries its sample size; :class:`Figure` gives its Wilson score interval
(95%) so the page can show a figure from few opportunities as the interval it is.
Results against us (won from / lost to: the chips that moved between us and the player,
pot by pot, agent.report.flows, in small bets per hand shared and in chips), the
sessions, and the per-context model (Billings et al.'s [poki-2002] 12 contexts, decayed and lifetime, from
the ``models`` table) complete a player's statistics.
"""
from __future__ import annotations

import fnmatch
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict

import numpy as np

from agent.game.context import N_CONTEXTS, context_name
from agent.game.records import BET, BIG_BLIND, CALL, CHECK, FOLD, RAISE, ROUND_NAMES
from agent.models.frequencies import ContextCounts, Decay
from db.reads import ReadError, report_rows

from .flows import hand_flows
from .situations import (
    POSITION_GROUPS,
    check_raises,
    four_bet,
    fpdb_positions,
    later_cbets,
    position_group,
    showdown_after_flop_call,
    steals,
)

ROUNDS = ROUND_NAMES
ACTION_KINDS = (FOLD, CHECK, CALL, BET, RAISE)
Z95 = 1.959963984540054


# The database cannot be reported on; the message names the file and the reason.
ReportDataError = ReadError


# ------------------------------------------------------------------------------ figures


def wilson_interval(done: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``done``/``n`` (0, 1 for no data)."""
    if n <= 0:
        return (0.0, 1.0)
    p = done / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


class PlayerHand(NamedTuple):
    """One of a player's hands, as his list of hands shows it."""

    seq: int  # the hand (db: hands.seq), the replayer's address
    started_at: float | None
    net_sb: float  # what the player won (+) or lost (-) in it, small bets
    vs_us_sb: float | None  # won from (+) / lost to (-) us in it, small bets; None: we were not in it


# Hands in a player's list of hands (his last ones).
HANDS_LISTED = 50


@dataclass(frozen=True, slots=True)
class Figure:
    """A proportion: how many times a player did it out of how many opportunities."""

    done: int
    n: int

    @property
    def value(self) -> float | None:
        return self.done / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.done, self.n)

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.interval
        v = self.value
        return {"value": None if v is None else round(v, 4), "done": self.done, "n": self.n,
                "low": round(lo, 4), "high": round(hi, 4)}


@dataclass(frozen=True, slots=True)
class Factor:
    """The aggression factor: aggressive actions over calls; its sample is all of them.
    No value when there were no calls (never 'infinite')."""

    aggressive: int
    calls: int

    @property
    def n(self) -> int:
        return self.aggressive + self.calls

    @property
    def value(self) -> float | None:
        return self.aggressive / self.calls if self.calls else None

    @property
    def interval(self) -> tuple[float, float | None]:
        """The factor's 95% interval, from the Wilson interval of the share of
        aggressive actions p (factor = p / (1 - p)); None above for an unbounded one."""
        if self.n == 0:
            return (0.0, None)
        lo, hi = wilson_interval(self.aggressive, self.n)
        return (lo / (1 - lo), None if hi >= 1.0 else hi / (1 - hi))

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.interval
        v = self.value
        return {"value": None if v is None else round(v, 3), "aggressive": self.aggressive,
                "calls": self.calls, "n": self.n, "low": round(lo, 3),
                "high": None if hi is None else round(hi, 3)}


@dataclass(frozen=True, slots=True)
class Mean:
    """A mean per hand (our net small bets per hand against a player) with its sample."""

    total: float
    total_sq: float
    n: int

    @property
    def value(self) -> float | None:
        return self.total / self.n if self.n else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """Normal 95% interval of the mean; None below two hands."""
        if self.n < 2:
            return None
        mean = self.total / self.n
        var = max(0.0, (self.total_sq - self.n * mean * mean) / (self.n - 1))
        half = Z95 * math.sqrt(var / self.n)
        return (mean - half, mean + half)

    def to_json(self) -> dict[str, Any]:
        ci = self.interval
        v = self.value
        return {"value": None if v is None else round(v, 4), "n": self.n,
                "low": None if ci is None else round(ci[0], 4), "high": None if ci is None else round(ci[1], 4)}


# The proportions of a player's statistics, in the order the report shows them:
# key -> (label, short label, what the sample counts).
PROPORTIONS: dict[str, tuple[str, str, str]] = {
    "vpip": ("Voluntarily put in pot", "VPIP", "hands dealt (walks of the big blind left out)"),
    "pfr": ("Pre-flop raise", "PFR", "hands dealt (walks of the big blind left out)"),
    "three_bet": ("3-bet pre-flop", "3Bet", "times facing exactly one pre-flop raise"),
    "agg_freq": ("Post-flop aggression frequency", "AFq", "post-flop streets seen"),
    "agg_flop": ("Aggression on the flop", "Agg F", "flops seen"),
    "agg_turn": ("Aggression on the turn", "Agg T", "turns seen"),
    "agg_river": ("Aggression on the river", "Agg R", "rivers seen"),
    "wtsd": ("Went to showdown", "WTSD", "flops seen"),
    "wsd": ("Won at showdown", "W$SD", "showdowns"),
    "wwsf": ("Won when saw flop", "WWSF", "flops seen"),
    "cbet": ("Continuation bet (flop)", "CBet", "flops with the pre-flop initiative, unopened to them"),
    "fold_cbet": ("Fold to continuation bet (flop)", "F-CBet", "flop continuation bets faced"),
    "four_bet": ("4-bet pre-flop", "4Bet", "times the opener faced a 3-bet"),
    "steal": ("Steal (open raise from the cut-off, button or small blind)", "Steal",
              "times first in from the cut-off, the button or the small blind"),
    "fold_steal": ("Fold to steal (in the blinds)", "FSteal", "steals faced in the small or big blind"),
    "cbet_turn": ("Continuation bet (turn)", "CBet T", "turns after betting the flop last, unopened to them"),
    "cbet_river": ("Continuation bet (river)", "CBet R", "rivers after betting the turn last, unopened to them"),
    "check_raise_flop": ("Check-raise (flop)", "CR F", "flop checks that then faced a bet"),
    "check_raise_turn": ("Check-raise (turn)", "CR T", "turn checks that then faced a bet"),
    "check_raise_river": ("Check-raise (river)", "CR R", "river checks that then faced a bet"),
    "wtsd_flop_call": ("Went to showdown after calling a flop bet", "WTSD/FC", "flop bets called"),
}
# Seconds between two of a player's hands that end one session and begin the next.
SESSION_GAP = 30 * 60.0

# Per-(hand, player) columns the hand pass fills (done/opportunity pairs and counts).
_COLUMNS = (
    "vpip_opp", "vpip", "pfr", "tb_opp", "tb",
    "saw1", "saw2", "saw3", "aggr1", "aggr2", "aggr3", "bets_raises", "calls",
    "sd", "wsd", "wwsf", "cb_opp", "cb", "fcb_opp", "fcb",
    # agent.report.situations: 4-bet, steal, fold to a steal, check-raise and later
    # continuation bets by street, showdown after a flop call; the position group + 1.
    "fb_opp", "fb", "st_opp", "st", "fst_opp", "fst",
    "cr1_opp", "cr1", "cr2_opp", "cr2", "cr3_opp", "cr3",
    "cb2_opp", "cb2", "cb3_opp", "cb3", "fcsd_opp", "fcsd", "pos",
)
_C = {name: i for i, name in enumerate(_COLUMNS)}
(_VPIP_OPP, _VPIP, _PFR, _TB_OPP, _TB, _SAW1, _, _, _AGGR1, _, _, _BETS_RAISES, _CALLS,
 _SD, _WSD, _WWSF, _CB_OPP, _CB, _FCB_OPP, _FCB) = range(20)


def hand_flags(seated: Sequence[int], actions: Iterable[tuple[int, int, str, int]],
               won: dict[int, int], positions: Mapping[int, int] | None = None) -> dict[int, list[int]]:
    """The FPDB flags and counts of one hand for each seated player (see the module
    docstring): ``actions`` are (player, round, kind, all_in) in the order taken, blinds
    included; ``won`` the chips each player took from the pot; ``positions`` each
    player's seat position (1 the first after the button), for the statistics by
    position and the steals (none without)."""
    flags = {p: [0] * len(_COLUMNS) for p in seated}
    by_round: list[list[tuple[int, str, int]]] = [[], [], [], []]
    for player, rnd, kind, all_in in actions:
        if player in flags:  # an action by someone not seated says nothing of anyone
            by_round[rnd].append((player, kind, all_in))
    pre = by_round[0]
    _preflop_flags(seated, pre, positions, flags)

    # Who is still in the hand, and who of them can no longer bet ("stuck": all-in, or
    # gone quiet while others acted yet won chips, which only an all-in player can).
    # Quits and kicks are not actions: a player who takes no decision in a round in which
    # others did, and wins nothing, has left the hand (playersAtStreetX counts folds only,
    # because the sites it reads record leaving as folding).
    stuck = {p for p, _, a in pre if a}
    remaining = _still_in(seated, pre, stuck, won)
    last_aggressor_pre = next((p for p, k, _ in reversed(pre) if k in (BET, RAISE)), None)
    postflop: set[int] = set()
    for rnd in (1, 2, 3):
        if len(remaining) < 2:
            break
        acts = by_round[rnd]
        remaining = _still_in(remaining, acts, stuck, won, folds=False)
        if rnd == 1:
            # A hand counts in a player's post-flop figures only if the player and at
            # least one other player could still bet after the flop.
            live = [p for p in remaining if p not in stuck]
            postflop = set(live) if len(live) >= 2 else set()
        for p in remaining:
            if p in postflop:
                flags[p][_SAW1 + rnd - 1] = 1
        _street_flags(rnd, by_round[rnd - 1], acts, postflop, stuck, last_aggressor_pre, flags)
        out = {player for player, kind, _ in acts if kind == FOLD}
        remaining = [p for p in remaining if p not in out]
    # Showdown (sawShowdown): two or more still in at the end.
    if len(remaining) >= 2:
        for p in remaining:
            if p in postflop:
                flags[p][_SD] = 1
                if won.get(p, 0) > 0:
                    flags[p][_WSD] = 1
                if flags[p][_C["fcsd_opp"]]:
                    flags[p][_C["fcsd"]] = 1
    for p in postflop:
        if flags[p][_SAW1] and won.get(p, 0) > 0:
            flags[p][_WWSF] = 1
    return flags


def _preflop_flags(seated: Sequence[int], pre: list[tuple[int, str, int]], positions: Mapping[int, int] | None,
                   flags: dict[int, list[int]]) -> None:
    """Pre-flop: VPIP, PFR, 3-bets and 4-bets; with ``positions``, the position groups
    and the steals."""
    big_blind = next((p for p, k, _ in pre if k == BIG_BLIND), None)
    vpipers = {p for p, k, _ in pre if k in (CALL, BET, RAISE)}
    raisers = {p for p, k, _ in pre if k in (BET, RAISE)}

    # VPIP and PFR (DerivedStats.vpip): every hand dealt is a chance, except the big
    # blind's when nobody put money in voluntarily (a walk).
    walk = not vpipers
    for p in seated:
        if walk and p == big_blind:
            continue
        f = flags[p]
        f[_VPIP_OPP] = 1
        if p in vpipers:
            f[_VPIP] = 1
        if p in raisers:
            f[_PFR] = 1

    # 3-bet (calc34BetStreet0): the big blind is the first bet, an open raise the second;
    # whoever acts while the level is two has a chance, and takes it by raising.
    level = 1
    for player, kind, _ in pre:
        if kind in (BIG_BLIND, "sb"):
            continue
        if level == 2:
            flags[player][_TB_OPP] = 1
            if kind in (BET, RAISE):
                flags[player][_TB] = 1
        if kind in (BET, RAISE):
            level += 1
    opener, four = four_bet(pre)
    if opener is not None:
        flags[opener][_C["fb_opp"]] = 1
        flags[opener][_C["fb"]] = int(four)
    if positions is not None:
        pos = fpdb_positions(seated, positions, pre)
        for p in seated:
            flags[p][_C["pos"]] = position_group(pos[p]) + 1
        stole = steals(pre, pos)
        for key, column in (("steal_opp", "st_opp"), ("steal", "st"), ("fold_opp", "fst_opp"), ("fold", "fst")):
            for p in stole[key]:
                flags[p][_C[column]] = 1


def _street_flags(rnd: int, before: list[tuple[int, str, int]], acts: list[tuple[int, str, int]],
                  postflop: set[int], stuck: set[int], last_aggressor_pre: int | None,
                  flags: dict[int, list[int]]) -> None:
    """One post-flop street (``acts``; ``before``: the street before it): aggression,
    calls, continuation bets and check-raises; a player all-in in it joins ``stuck``."""
    for player, kind, all_in in acts:
        if all_in:
            stuck.add(player)
        if player not in postflop:
            continue
        f = flags[player]
        if kind in (BET, RAISE):
            f[_AGGR1 + rnd - 1] = 1
            f[_BETS_RAISES] += 1
        elif kind == CALL:
            f[_CALLS] += 1
    if rnd == 1:
        _continuation_bet(acts, last_aggressor_pre, postflop, flags)
        flop_callers = showdown_after_flop_call(acts, postflop)
        for p in flop_callers:
            flags[p][_C["fcsd_opp"]] = 1
    else:
        cbettor, cbet = later_cbets(before, acts, postflop)
        if cbettor is not None:
            flags[cbettor][_C[f"cb{rnd}_opp"]] = 1
            flags[cbettor][_C[f"cb{rnd}"]] = int(cbet)
    chances, raised = check_raises(acts, postflop)
    for p in chances:
        flags[p][_C[f"cr{rnd}_opp"]] = 1
    for p in raised:
        flags[p][_C[f"cr{rnd}"]] = 1


def _still_in(players: Sequence[int], acts: list[tuple[int, str, int]], stuck: set[int],
              won: dict[int, int], folds: bool = True) -> list[int]:
    """``players`` less those who left during the round of ``acts`` (and with ``folds``,
    those who folded in it); a silent player who won chips joins ``stuck``."""
    deciders = {p for p, k, _ in acts if k in ACTION_KINDS}
    folded = {p for p, k, _ in acts if k == FOLD} if folds else set()
    out = []
    for p in players:
        if p in folded:
            continue
        if deciders and p not in deciders and p not in stuck:
            if won.get(p, 0) <= 0:
                continue  # left the table
            stuck.add(p)
        out.append(p)
    return out


def _continuation_bet(acts: list[tuple[int, str, int]], aggressor: int | None, postflop: set[int],
                      flags: dict[int, list[int]]) -> None:
    """calcCBets for the flop: the pre-flop aggressor has a chance if nobody bet before
    their first flop action and takes it by betting; the players who then act on that bet,
    up to and including a raise, face it (foldTofirstsBetOrRaiser) and fold to it or not."""
    if aggressor is None or aggressor not in postflop:
        return
    for i, (player, kind, _) in enumerate(acts):
        if player == aggressor:
            flags[player][_C["cb_opp"]] = 1
            if kind in (BET, RAISE):
                flags[player][_C["cb"]] = 1
                for other, okind, _ in acts[i + 1:]:
                    if other == aggressor:
                        break
                    if other in postflop:
                        flags[other][_C["fcb_opp"]] = 1
                        if okind == FOLD:
                            flags[other][_C["fcb"]] = 1
                    if okind == RAISE:  # the raiser faced the bet; those after face a raise
                        break
            return
        if kind in (BET, RAISE):
            return


# ------------------------------------------------------------------------------ players


class PositionFigures(TypedDict):
    """A player's hands, VPIP and PFR in one position group."""

    hands: int
    vpip: Figure
    pfr: Figure


class _OurTotals(TypedDict):
    """Our results summed hand by hand (OurResults once done)."""

    hands: int
    net: float
    net_sb: float
    rake: float
    flows: float


@dataclass
class PlayerStats:
    """Everything the report says about one player."""

    pid: int
    name: str
    networks: list[str]
    hands: int
    figures: dict[str, Figure]
    af: Factor
    actions: dict[str, dict[str, int]]  # round -> kind -> count
    contexts: list[dict[str, Any]]  # 12 contexts: decayed and lifetime (fold, call, raise)
    model_hands: int  # hands the stored model has seen (all networks, all time)
    vs_us: Mean | None  # won from / lost to us, small bets per hand shared; None: no hand shared
    style: str = "unknown"
    timeline: dict[str, list[float]] = field(default_factory=dict)  # filled for charted players
    vs_us_curve: list[float] = field(default_factory=list)  # cumulative, small bets, hand by hand shared
    vs_us_chips: float | None = None  # won from / lost to us in cash games, chips (None: no cash hand shared)
    # Won from / lost to us in tournaments, the tournaments' chips (None: no tournament hand shared).
    vs_us_tournament_chips: float | None = None
    positions: dict[str, PositionFigures] = field(default_factory=dict)  # by position group
    sessions: list[dict[str, Any]] = field(default_factory=list)  # filled for charted players
    # The player's last hands (HANDS_LISTED at most, oldest first): those shared with us
    # when there are any, else all of his; for the replayer's links.
    hand_list: list[PlayerHand] = field(default_factory=list)
    hand_list_with_us: bool = False  # whether hand_list holds the hands shared with us

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.name,
            "id": self.pid,
            "networks": self.networks,
            "hands": self.hands,
            "style": self.style,
            **{key: fig.to_json() for key, fig in self.figures.items()},
            "aggression_factor": self.af.to_json(),
            "results_vs_us_sb_per_hand": None if self.vs_us is None else self.vs_us.to_json(),
            "results_vs_us_chips": None if self.vs_us_chips is None else round(self.vs_us_chips, 2),
            "results_vs_us_tournament_chips": None if self.vs_us_tournament_chips is None
            else round(self.vs_us_tournament_chips, 2),
            "by_position": {g: {"hands": v["hands"], "vpip": v["vpip"].to_json(), "pfr": v["pfr"].to_json()}
                            for g, v in self.positions.items()},
            "sessions": self.sessions,
            "actions_by_round": self.actions,
            "model_hands": self.model_hands,
            "contexts": self.contexts,
        }


@dataclass
class ReportData:
    """The statistics of a database: the players in the order shown and what was asked."""

    path: str
    hands: int
    first_hand_at: float | None
    last_hand_at: float | None
    networks: dict[str, int]
    players: list[PlayerStats]
    opponents_total: int
    heroes: list[str]  # names of the players we are found in the hands
    hero_pattern: str
    half_life: float | None
    filters: dict[str, Any]
    charted: list[int] = field(default_factory=list)  # players whose charts are drawn, in order
    bad_actions: int = 0  # action rows left out: a round or kind no writer makes
    us: OurResults | None = None  # in cash games: money
    recorded_heroes: list[str] = field(default_factory=list)  # heroes the hands' sources named
    hero_ids: list[int] = field(default_factory=list)  # the players we are, by id
    # Hands of cash games and of tournaments (whose chips are not money), and our results in
    # tournaments, in their chips, apart from ``us``.
    play: dict[str, int] = field(default_factory=lambda: {"cash": 0, "tournament": 0})
    us_tournament: OurResults | None = None


@dataclass(frozen=True)
class OurResults:
    """Our own results over the hands we sat in: the net, the rake we paid, and the sum
    of our results against every opponent (the net before the rake)."""

    hands: int = 0
    net_chips: float = 0.0
    net_sb: float = 0.0
    rake_chips: float = 0.0
    flows_chips: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"hands": self.hands, "net_chips": round(self.net_chips, 2), "net_sb": round(self.net_sb, 4),
                "rake_chips": round(self.rake_chips, 2), "won_from_opponents_chips": round(self.flows_chips, 2)}


@dataclass(frozen=True)
class StyleThresholds:
    """Where tight turns loose and passive aggressive (config [report])."""

    loose_vpip: float = 0.28
    aggressive_af: float = 1.5
    min_hands: int = 50
    min_sample: int = 20


def style_label(vpip: Figure, af: Factor, t: StyleThresholds) -> str:
    """'tight-aggressive', 'loose-passive', ...; 'unknown' on too few hands or actions."""
    if vpip.n < t.min_hands or af.n < t.min_sample:
        return "unknown"
    loose = "loose" if (vpip.value or 0.0) >= t.loose_vpip else "tight"
    aggressive = "aggressive" if af.value is None or af.value >= t.aggressive_af else "passive"
    return f"{loose}-{aggressive}"


def is_hero(name: str, pattern: str) -> bool:
    """Whether a player name is one of ours: a glob (``poki*``), case-insensitive; several
    patterns separated by commas."""
    low = name.lower()
    return any(fnmatch.fnmatchcase(low, p.strip().lower()) for p in pattern.split(",") if p.strip())


def compute(
    conn: Any,
    path: str = "",
    *,
    network: str | None = None,
    since: float | None = None,
    players: int | None = None,
    hero: str = "poki*",
    recorded_heroes: bool = True,
    thresholds: StyleThresholds = StyleThresholds(),
    timelines_for: int | None = 0,
    session_gap: float = SESSION_GAP,
    progress: Callable[[str], None] | None = None,
) -> ReportData:
    """The statistics of every player in the hands chosen (``network``, hands started
    at or after ``since``), in one read transaction; the ``players`` most-seen opponents
    (all by default), players matching ``hero`` being us, and with ``recorded_heroes``
    also the players the hands' sources were written for (an online room's hero).
    ``timelines_for``: how many players get their stats-over-time, session and results
    curves (``charted``): those who played the most hands with us first, then the
    most-seen; None: every one. ``session_gap``: seconds between two of a player's hands that end a
    session."""
    step = progress or (lambda _: None)
    rows = report_rows(conn, path, network=network, since=since, progress=step)
    hand_rows, names, nets, seats = rows.hands, rows.names, rows.networks, rows.seats
    results, actions, bad_actions = rows.results, rows.actions, rows.bad_actions
    model_rows, half_life = rows.models, rows.half_life
    recorded = rows.heroes if recorded_heroes else set()

    step("statistics")
    heroes = {pid for pid, name in names.items() if is_hero(name, hero)} | recorded
    small_bet = {seq: sb for seq, sb, _, _, _ in hand_rows}
    started_at = {seq: t for seq, _, t, _, _ in hand_rows}
    # Tournament chips are not money: our results in tournaments are summed apart.
    in_tournament = {seq for seq, _, _, _, tournament in hand_rows if tournament is not None}
    # One pass over the hands: per seat row (hand, player) the FPDB flags.
    n_rows = len(seats)
    row_player = np.fromiter((p for _, p, _ in seats), dtype=np.int64, count=n_rows)
    row_hand = np.fromiter((h for h, _, _ in seats), dtype=np.int64, count=n_rows)
    row_time = np.fromiter((started_at.get(h) or np.nan for h, _, _ in seats), dtype=np.float64, count=n_rows)
    table = np.zeros((n_rows, len(_COLUMNS)), dtype=np.int32)
    row_net = np.zeros(n_rows, dtype=np.float64)
    # Chips that moved between us and the row's player in the row's hand (agent.report.flows),
    # in small bets, if we sat in it; NaN if we did not.
    row_vs_us = np.full(n_rows, np.nan)
    row_vs_chips = np.zeros(n_rows, dtype=np.float64)
    our = _OurTotals(hands=0, net=0.0, net_sb=0.0, rake=0.0, flows=0.0)
    our_tournament = _OurTotals(hands=0, net=0.0, net_sb=0.0, rake=0.0, flows=0.0)
    row_tournament = np.zeros(n_rows, dtype=bool)
    ai = ri = 0
    n_actions, n_results = len(actions), len(results)
    i = 0
    while i < n_rows:
        hand = seats[i][0]
        j = i
        while j < n_rows and seats[j][0] == hand:
            j += 1
        seated = [p for _, p, _ in seats[i:j]]
        positions = {p: pos for _, p, pos in seats[i:j]}
        while ri < n_results and results[ri][0] < hand:
            ri += 1
        won: dict[int, int] = {}
        net: dict[int, int] = {}
        put: dict[int, int] = {}
        while ri < n_results and results[ri][0] == hand:
            _, p, put_in, w = results[ri]
            won[p] = w
            put[p] = put_in
            net[p] = w - put_in
            ri += 1
        while ai < n_actions and actions[ai][0] < hand:
            ai += 1
        start = ai
        while ai < n_actions and actions[ai][0] == hand:
            ai += 1
        hand_actions = [a[1:] for a in actions[start:ai]]
        flags = hand_flags(seated, hand_actions, won, positions)
        sb = small_bet.get(hand) or 1
        ours = [p for p in seated if p in heroes]
        flows = None
        totals = our_tournament if hand in in_tournament else our
        if ours:
            order = sorted(seated, key=lambda p: positions[p])
            folded = {p for p, _, kind, _ in hand_actions if kind == FOLD}
            flows, rakes = hand_flows(order, put, won, folded)
            totals["hands"] += 1
            totals["net"] += sum(net.get(p, 0) for p in ours)
            totals["net_sb"] += sum(net.get(p, 0) for p in ours) / sb
            totals["rake"] += sum(rakes.get(p, 0.0) for p in ours)
        for k in range(i, j):
            p = seats[k][1]
            table[k] = flags[p]
            row_net[k] = net.get(p, 0) / sb
            row_tournament[k] = totals is our_tournament
            if flows is not None and p not in heroes:
                chips = sum(flows.get((u, p), 0.0) - flows.get((p, u), 0.0) for u in ours)
                row_vs_chips[k] = chips
                row_vs_us[k] = chips / sb
                totals["flows"] += chips
        i = j

    step("players")
    uniq, inverse = np.unique(row_player, return_inverse=True)
    sums = np.stack([np.bincount(inverse, weights=table[:, c], minlength=len(uniq)).astype(np.int64)
                     for c in range(len(_COLUMNS))], axis=1) if n_rows else np.zeros((0, len(_COLUMNS)), np.int64)
    hands_dealt = np.bincount(inverse, minlength=len(uniq))
    with_us = ~np.isnan(row_vs_us)
    vs_n = np.bincount(inverse[with_us], minlength=len(uniq))
    vs_sum = np.bincount(inverse[with_us], weights=row_vs_us[with_us], minlength=len(uniq))
    vs_sq = np.bincount(inverse[with_us], weights=row_vs_us[with_us] ** 2, minlength=len(uniq))
    # Chips won from or lost to us: money in cash games, tournament chips apart.
    vs_chips = np.bincount(inverse, weights=np.where(row_tournament, 0.0, row_vs_chips), minlength=len(uniq))
    vs_tournament = with_us & row_tournament
    vs_tournament_n = np.bincount(inverse[vs_tournament], minlength=len(uniq))
    vs_tournament_chips = np.bincount(inverse[vs_tournament], weights=row_vs_chips[vs_tournament],
                                      minlength=len(uniq))
    by_position = _by_position(inverse, len(uniq), table)

    contexts: dict[int, list[dict[str, Any]]] = {}
    model_hands: dict[int, int] = {}
    factor = Decay(half_life).factor if half_life else 1.0
    for pid, ctx, fd, cd, rd, ref, fl, cl, rl, now in model_rows:
        decayed = ContextCounts([fd, cd, rd], ref).decayed_at(now, factor)
        model_hands[pid] = now
        contexts.setdefault(pid, [_empty_context(c) for c in range(N_CONTEXTS)])[ctx].update(
            decayed=[round(x, 3) for x in decayed], lifetime=[fl, cl, rl])
    mix: dict[int, dict[str, dict[str, int]]] = {}
    for (pid, rnd, kind), count in Counter(a[1:4] for a in actions).items():
        m = mix.setdefault(pid, {r: dict.fromkeys(ACTION_KINDS, 0) for r in ROUNDS})
        if kind in ACTION_KINDS:
            m[ROUNDS[rnd]][kind] = count

    # Each player's seat rows, in hand order (a stable sort keeps the order of the seats).
    by_player = np.split(np.argsort(inverse, kind="stable"), np.cumsum(hands_dealt)[:-1]) if n_rows else []
    order = sorted(range(len(uniq)), key=lambda x: (-int(hands_dealt[x]), names.get(int(uniq[x]), "")))
    opponents = [x for x in order if int(uniq[x]) not in heroes]
    chosen = opponents if players is None else opponents[:players]
    out = []
    for x in chosen:
        pid = int(uniq[x])
        s = sums[x]
        figs = _figures(s)
        af = Factor(int(s[_C["bets_raises"]]), int(s[_C["calls"]]))
        vs = Mean(float(vs_sum[x]), float(vs_sq[x]), int(vs_n[x])) if vs_n[x] else None
        ps = PlayerStats(
            pid=pid, name=names.get(pid, f"#{pid}"), networks=sorted(nets.get(pid, ())),
            hands=int(hands_dealt[x]), figures=figs, af=af,
            actions=mix.get(pid, {r: dict.fromkeys(ACTION_KINDS, 0) for r in ROUNDS}),
            contexts=contexts.get(pid, [_empty_context(c) for c in range(N_CONTEXTS)]),
            model_hands=model_hands.get(pid, 0), vs_us=vs,
            vs_us_chips=float(vs_chips[x]) if vs_n[x] > vs_tournament_n[x] else None,
            vs_us_tournament_chips=float(vs_tournament_chips[x]) if vs_tournament_n[x] else None,
            positions=by_position[x],
        )
        ps.style = style_label(figs["vpip"], af, thresholds)
        ps.hand_list, ps.hand_list_with_us = _hand_list(by_player[x], row_hand, row_net, row_vs_us, started_at)
        out.append(ps)

    # Charts go first to the opponents who played most with us, then to the most-seen.
    charted = sorted(out, key=lambda ps: -(ps.vs_us.n if ps.vs_us else 0))[:timelines_for]
    if charted:
        step("timelines")
        rows_of = {int(uniq[x]): by_player[x] for x in chosen}
        _timelines(charted, rows_of, table, row_vs_us)
        _sessions(charted, rows_of, row_time, table, row_net, row_vs_us, session_gap)

    started = [t for _, _, t, _, _ in hand_rows if t is not None]
    networks: dict[str, int] = {}
    for _, _, _, hand_network, _ in hand_rows:
        networks[hand_network] = networks.get(hand_network, 0) + 1
    return ReportData(
        path=path, hands=len(hand_rows), first_hand_at=min(started) if started else None,
        last_hand_at=max(started) if started else None, networks=networks, players=out,
        opponents_total=len(opponents), heroes=sorted({names[p] for p in heroes & set(uniq.tolist())}),
        hero_pattern=hero, half_life=half_life,
        filters={"network": network, "since": since, "players": players},
        charted=[ps.pid for ps in charted],
        bad_actions=bad_actions,
        play={"cash": len(hand_rows) - len(in_tournament), "tournament": len(in_tournament)},
        us=_our_results(our),
        us_tournament=_our_results(our_tournament),
        recorded_heroes=sorted({names.get(p, f"#{p}") for p in recorded}),
        hero_ids=sorted(heroes),
    )


def _hand_list(rows: np.ndarray, row_hand: np.ndarray, row_net: np.ndarray, row_vs_us: np.ndarray,
               started_at: Mapping[int, float | None]) -> tuple[list[PlayerHand], bool]:
    """A player's last HANDS_LISTED hands (his seat ``rows``, in hand order): those shared
    with us when there are any, else all of his; and whether they are the shared ones."""
    shared = rows[~np.isnan(row_vs_us[rows])]
    with_us = len(shared) > 0
    last = (shared if with_us else rows)[-HANDS_LISTED:]
    return [PlayerHand(int(row_hand[k]), started_at.get(int(row_hand[k])), round(float(row_net[k]), 3),
                       None if np.isnan(row_vs_us[k]) else round(float(row_vs_us[k]), 3)) for k in last], with_us


def _our_results(totals: _OurTotals) -> OurResults:
    return OurResults(hands=totals["hands"], net_chips=totals["net"], net_sb=totals["net_sb"],
                      rake_chips=totals["rake"], flows_chips=totals["flows"])


def _figures(s: np.ndarray) -> dict[str, Figure]:
    """A player's proportions (PROPORTIONS) from his summed columns."""
    def fig(done: str, opp: str) -> Figure:
        return Figure(int(s[_C[done]]), int(s[_C[opp]]))

    return {
        "vpip": fig("vpip", "vpip_opp"),
        "pfr": fig("pfr", "vpip_opp"),
        "three_bet": fig("tb", "tb_opp"),
        "four_bet": fig("fb", "fb_opp"),
        "steal": fig("st", "st_opp"),
        "fold_steal": fig("fst", "fst_opp"),
        "agg_freq": Figure(int(s[_C["aggr1"]] + s[_C["aggr2"]] + s[_C["aggr3"]]),
                           int(s[_C["saw1"]] + s[_C["saw2"]] + s[_C["saw3"]])),
        "agg_flop": fig("aggr1", "saw1"),
        "agg_turn": fig("aggr2", "saw2"),
        "agg_river": fig("aggr3", "saw3"),
        "wtsd": fig("sd", "saw1"),
        "wsd": fig("wsd", "sd"),
        "wwsf": fig("wwsf", "saw1"),
        "cbet": fig("cb", "cb_opp"),
        "fold_cbet": fig("fcb", "fcb_opp"),
        "cbet_turn": fig("cb2", "cb2_opp"),
        "cbet_river": fig("cb3", "cb3_opp"),
        "check_raise_flop": fig("cr1", "cr1_opp"),
        "check_raise_turn": fig("cr2", "cr2_opp"),
        "check_raise_river": fig("cr3", "cr3_opp"),
        "wtsd_flop_call": fig("fcsd", "fcsd_opp"),
    }


def _by_position(inverse: np.ndarray, players: int, table: np.ndarray) -> list[dict[str, PositionFigures]]:
    """Per player, per position group: VPIP and PFR over the hands dealt there."""
    group = table[:, _C["pos"]] - 1
    known = group >= 0
    key = inverse[known] * len(POSITION_GROUPS) + group[known]
    size = players * len(POSITION_GROUPS)

    def count(column: str) -> np.ndarray:
        return np.bincount(key, weights=table[known, _C[column]], minlength=size).astype(np.int64)

    dealt = np.bincount(key, minlength=size)
    opp, vpip, pfr = count("vpip_opp"), count("vpip"), count("pfr")
    out = []
    for x in range(players):
        row: dict[str, PositionFigures] = {}
        for g, name in enumerate(POSITION_GROUPS):
            k = x * len(POSITION_GROUPS) + g
            row[name] = {"hands": int(dealt[k]), "vpip": Figure(int(vpip[k]), int(opp[k])),
                         "pfr": Figure(int(pfr[k]), int(opp[k]))}
        out.append(row)
    return out


def _empty_context(c: int) -> dict[str, Any]:
    return {"context": c, "name": context_name(c), "decayed": [0.0, 0.0, 0.0], "lifetime": [0, 0, 0]}


_TIMELINE_POINTS = 200


def _timelines(players: list[PlayerStats], rows_of: Mapping[int, np.ndarray], table: np.ndarray,
               row_vs_us: np.ndarray) -> None:
    """Running VPIP, PFR and post-flop aggression frequency after each of the player's
    hands (at most _TIMELINE_POINTS points), and our cumulative net against them."""
    for ps in players:
        rows = rows_of[ps.pid]  # seat rows are in hand order
        t = table[rows]
        hands = np.arange(1, len(rows) + 1)

        def running(done: np.ndarray, opp: np.ndarray) -> np.ndarray:
            d, o = np.cumsum(done), np.cumsum(opp)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(o > 0, d / np.maximum(o, 1), np.nan)

        vpip = running(t[:, _C["vpip"]], t[:, _C["vpip_opp"]])
        pfr = running(t[:, _C["pfr"]], t[:, _C["vpip_opp"]])
        afq = running(t[:, _C["aggr1"]] + t[:, _C["aggr2"]] + t[:, _C["aggr3"]],
                      t[:, _C["saw1"]] + t[:, _C["saw2"]] + t[:, _C["saw3"]])
        pick = np.unique(np.linspace(0, len(rows) - 1, min(len(rows), _TIMELINE_POINTS)).astype(int))
        ps.timeline = {
            "hands": hands[pick].tolist(),
            "vpip": vpip[pick].tolist(), "pfr": pfr[pick].tolist(), "agg_freq": afq[pick].tolist(),
        }
        us = row_vs_us[rows]
        us = us[~np.isnan(us)]
        ps.vs_us_curve = np.cumsum(us).tolist() if len(us) else []


def _sessions(players: list[PlayerStats], rows_of: Mapping[int, np.ndarray], row_time: np.ndarray, table: np.ndarray,
              row_net: np.ndarray, row_vs_us: np.ndarray, gap: float) -> None:
    """Each charted player's sessions: runs of his hands with no gap longer than ``gap``
    seconds between one and the next (hands of unknown time join the session they are
    in), with the session's VPIP, PFR, post-flop aggression frequency, net and result
    against us."""
    for ps in players:
        rows = rows_of[ps.pid]
        if not len(rows):
            continue
        times = row_time[rows]
        known = np.where(np.isnan(times), -np.inf, times)
        # A new session where the time since the last known hand exceeds the gap.
        last = np.maximum.accumulate(known)
        previous = np.concatenate(([-np.inf], last[:-1]))
        both = np.isfinite(known) & np.isfinite(previous)
        starts = np.flatnonzero(both & (np.where(both, known - np.where(both, previous, 0.0), 0.0) > gap))
        bounds = [0, *starts.tolist(), len(rows)]
        out = []
        for a, b in zip(bounds, bounds[1:]):
            r = rows[a:b]
            t = table[r]

            def share(done: np.ndarray, opp: np.ndarray) -> float | None:
                n = int(opp.sum())
                return None if n == 0 else round(float(done.sum()) / n, 4)

            vs = row_vs_us[r]
            vs = vs[~np.isnan(vs)]
            when = times[a:b]
            when = when[~np.isnan(when)]
            out.append({
                "start": None if not len(when) else float(when.min()),
                "end": None if not len(when) else float(when.max()),
                "hands": int(b - a),
                "vpip": share(t[:, _C["vpip"]], t[:, _C["vpip_opp"]]),
                "pfr": share(t[:, _C["pfr"]], t[:, _C["vpip_opp"]]),
                "agg_freq": share(t[:, _C["aggr1"]] + t[:, _C["aggr2"]] + t[:, _C["aggr3"]],
                                  t[:, _C["saw1"]] + t[:, _C["saw2"]] + t[:, _C["saw3"]]),
                "net_sb": round(float(row_net[r].sum()), 3),
                "vs_us_sb": None if not len(vs) else round(float(vs.sum()), 3),
            })
        ps.sessions = out
