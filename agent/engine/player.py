"""The Poki player ([loki2-1999], [testbed-1998], [poki-2002]): pre-flop by income-rate strategy, after the flop EHS
against each opponent's weight table turned into an action by the probability-triple
strategy and the action selector (or by the Loki-1 Bettor), opponents' tables re-weighted
after each of their actions, their per-context frequencies learned from finished hands.

It implements agent.players' Player protocol and is registered as ``poki`` (by
agent.play.kinds, :func:`poki_kind`), with one setting per enhancement so any of them can
be switched off::

    poki(bettor=loki1, reweight=none, weights=uniform, potential=off, opponent_model=generic)

Defaults come from the [engine] and [model] sections of the settings the program was
given (passed to :func:`poki_kind`). Everything the player knows about a hand comes from the game
context: opponents' actions, each with the context the tracker recorded, are read when it
is our turn, so the player works behind any connector; finished hands (end_hand) feed the opponent models.
"""
from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any

import numpy as np

import evaluator_pyx as ev
from agent.config import ENGINE_CHOICES, Config, EngineConfig, ModelConfig
from agent.engine.bettor_loki1 import loki1_action
from agent.engine.income_rates import field_of_players, load_income_rates
from agent.engine.modeler import FOLD, OpponentModeler, assess_hand, learned_eps, live_holdings, off_model_counts
from agent.engine.preflop import PreflopStrategy, choose_strategy, preflop_action
from agent.engine.selector import select_action
from agent.engine.simulator import SimOutcome, simulate_decision
from agent.engine.triples import Situation, decision_triple
from agent.game.context import ContextWalker, by_position, decision_context, order_key
from agent.game.records import ACTION_CLASS, BLIND_KINDS, RecordError
from agent.game.rules import Action
from agent.models.learned import DecisionFeatures, player_stats
from agent.models.opponent_model import (
    DEFAULT_TRIPLES,
    PREDICTOR_CHOICES,
    learned_of,
    predict_learned,
    predict_model,
)
from agent.models.ranges import densities as range_densities
from agent.models.store import MemoryModelStore, ModelStore, require_store
from agent.players import BasePlayer, Param, PlayerKind, SpecError

if TYPE_CHECKING:
    from agent.game.context import GameContext
    from agent.game.events import HandStarted
    from agent.game.records import HandRecord

__all__ = ["PokiPlayer", "order_key", "poki_kind"]

_BOARD_AT_ROUND = (0, 3, 4, 5)
# Share of a seat's decision deadline the simulator may spend (the rest covers catching
# up, re-weighting and the connector's own latency on a loaded machine).
DEADLINE_SHARE = 0.25
_VOLUNTARY = frozenset({"c", "b", "r"})


@dataclasses.dataclass
class Decision:
    """What the player saw and chose at its last decision (for tests and the bench)."""

    round: int
    ehs: float | None = None
    hs_n: float | None = None
    ppot: float | None = None
    npot: float | None = None
    future_bets: float | None = None
    implied: float | None = None
    triple: tuple[float, float, float] | None = None
    strategy: PreflopStrategy | None = None
    action: Action | None = None
    simulation: SimOutcome | None = None
    situation: Situation | None = None


class PokiPlayer(BasePlayer):
    """See the module docstring."""

    def __init__(self, name: str, rng: np.random.Generator, settings: EngineConfig | None = None,
                 *, store: ModelStore | None = None, network: str = "local",
                 model: ModelConfig | None = None) -> None:
        super().__init__(name, rng)
        self.settings = settings or EngineConfig()
        self.model_settings = model or ModelConfig()
        if store is None:
            # Nothing given: the models live in memory and this player learns them itself.
            store = MemoryModelStore(self.model_settings.half_life_hands,
                                     blend=self.model_settings.blend_observations)
        self._walker: ContextWalker | None = None
        self._features: DecisionFeatures | None = None  # this hand's public features (learned)
        self.attach_store(store, network, writes=True)
        self.last: Decision | None = None
        self.illegal_choices = 0  # decisions a strategy got wrong and act() replaced
        self.simulation_failures = 0  # simulations that found no consistent deal
        self.bad_off_model = 0  # opponents whose stored off-model counts were unreadable
        self.npot = 0.0  # Npot of the last assess()
        self._hs_each: dict[str, float] = {}  # our HS against each live opponent's table
        self._deadline_s: float | None = None  # the seat's deadline for the next decision
        # The best answer so far of the decision under way (agent.players.interface).
        self.interim = None
        self._hand: str | None = None
        self._seen = 0
        self._rates: dict[str, np.ndarray] = {}
        cfg = self.settings
        self._modeler = OpponentModeler(
            cfg.reweight, sigma=cfg.reweight_sigma, width=cfg.opponent_width,
            mix=cfg.opponent_mix, floor=cfg.reweight_floor, potential=cfg.potential,
            floor_on=cfg.floor_on)
        self._reweighting = cfg.weights == "modeled" and cfg.reweight != "none"
        self._responder: Any = None  # the heads-up equilibrium and responses (agent.engine.response)
        self.heads_up_decisions = 0
        self.heads_up_other_structure = 0  # heads-up hands of another structure: played by the engine
        self._resolver: Any = None  # the river re-solver (agent.engine.resolve), with heads_up_resolve "river"

    # --- hooks ---------------------------------------------------------------------------

    def new_hand(self, started: HandStarted) -> None:
        self._hand = None  # tables are built at our first decision, when our cards are known
        if len(started.players) == 2 and self.settings.heads_up == "equilibrium":
            # Read the strategy file (about a second) when a heads-up hand starts, not inside
            # our first decision's time limit.
            self.responder()

    def attach_store(self, store: ModelStore, network: str, *, writes: bool = False) -> bool:
        """Read (and write) opponent models through `store` from the next hand on: the
        models, the store's predictor, the off-model counts of the learned floor and the
        learned predictor's weights (agent.models.store). With writes=False the runner
        writes finished hands there itself, once per hand, so this player only reads (and
        adds its off-model counts). StoreError when the store lacks any part of that;
        True (this player models its opponents)."""
        require_store(store, f"player {self.name}")
        self.store = store
        self.network = network
        self._store_writes = writes
        # The store's decay, back-off strengths and blend: the counts it keeps are read its way.
        self._predictor = store.predictor
        self._learned: Any = None  # the store's fitted learned predictor (meta, learned)
        self._learned_note = ""
        self._learned_read = False  # read at the first hand (or by describe())
        return True

    def _read_learned(self) -> None:
        if not self._learned_read:
            self._learned_read = True
            if self.settings.opponent_model == "specific":
                self._learned, self._learned_note = learned_of(self.store, self.model_settings.predictor)

    def describe(self) -> str:
        """What this player runs with: bettor, predictor (with the learned weights found),
        re-weighting floor, what plays heads-up and the store its models come from (a bot
        prints it at start)."""
        cfg = self.settings
        self._read_learned()
        if cfg.opponent_model == "generic":
            predictor = "generic (the default triples)"
        else:
            predictor = self.model_settings.predictor
            if predictor in ("learned", "meta"):
                predictor += f" (learned weights: {self._learned_note})"
        floor = cfg.floor_on
        if floor == "learned":
            floor += ", off-model counts kept in the store"
        if cfg.reweight == "learned":
            floor = "none: ranges learned from showdowns, kept in the store"
        writes = "this player writes its hands" if self._store_writes else "the table writes the hands"
        heads_up = (f"heads-up the equilibrium of {cfg.heads_up_strategy or 'the shipped strategy'} "
                    f"(responses up to p {cfg.heads_up_p:g}; {self.resolve_status()})" if cfg.heads_up == "equilibrium"
                    else "heads-up the engine")
        return (f"{self.name}: bettor {cfg.bettor}, predictor {predictor}, re-weighting {cfg.reweight} "
                f"(floor {floor}), {heads_up}, store {self.store.describe()} (network {self.network}; {writes})")

    def set_deadline(self, seconds: float | None) -> None:
        """The deadline of the next decision, told by a seat runtime (agent.play.seat)
        whose table has one (IRC, ACPC). The simulator then spends at most
        DEADLINE_SHARE of it (or [engine] sim_time_ms when that is set and smaller);
        without a deadline (in-process matches) only the trial count bounds it, so a
        seeded match plays the same whatever the machine's load."""
        self._deadline_s = None if seconds is None or seconds <= 0 else float(seconds)

    def sim_budget_s(self) -> float:
        """The simulator's time budget for the next decision in seconds (0: none)."""
        configured = self.settings.sim_time_ms / 1000.0
        if self._deadline_s is None:
            return configured
        share = DEADLINE_SHARE * self._deadline_s
        return min(configured, share) if configured > 0 else share

    def end_hand(self, record: HandRecord) -> None:
        if self._responder is not None and len(record.seats) == 2:
            # At a live table (a seat told us a deadline) the response is solved aside.
            self._responder.observe(record, self.name, background=self._deadline_s is not None)
        learned_ranges = self.settings.reweight == "learned"
        if self.settings.floor_on == "learned" and not learned_ranges and record.hand_id == self._hand:
            self._count_off_model(record)
        if learned_ranges and self._reweighting and record.hand_id == self._hand:
            self._count_ranges(record)
        if self.settings.opponent_model == "specific" and self._store_writes:
            try:
                self.store.write_hand(record, self.network)
            except RecordError:
                pass  # a hand the store refuses teaches nothing; play goes on

    def _count_off_model(self, record: HandRecord) -> None:
        """floor_on = "learned": for each opponent whose cards were shown, how many of its
        calls and bets/raises this hand (those re-weighted for, i.e. seen by our last
        decision) came from a holding the threshold model gave a low factor; added to the
        store, which keeps them with that opponent's model (once per hand and opponent)."""
        add = self.store.add_off_model
        factors = self._modeler.factors
        for shown in record.shown:
            acts = factors.get(shown.player)
            if shown.player == self.name or not acts or len(shown.cards) != 2:
                continue
            try:
                holding = ev.holding_index_of_cards(*shown.cards)
                add(shown.player, self.network, record.hand_id, off_model_counts(acts, holding))
            except (ValueError, TypeError, IndexError):
                continue  # cards that name no holding teach nothing; play goes on

    def _count_ranges(self, record: HandRecord) -> None:
        """reweight = "learned": for each opponent whose cards were shown, the bins of its
        holding at each of its actions re-weighted for, added to the store's learned ranges
        (agent.models.ranges; once per hand and opponent)."""
        add = self.store.add_range_counts
        for shown in record.shown:
            if shown.player == self.name or shown.player not in self._modeler.range_bins or len(shown.cards) != 2:
                continue
            try:
                holding = ev.holding_index_of_cards(*shown.cards)
                add(shown.player, self.network, record.hand_id,
                    self._modeler.range_observations(shown.player, holding))
            except (ValueError, TypeError, IndexError):
                continue  # cards that name no holding teach nothing; play goes on

    def _range_densities(self, opponents: list[str]) -> dict[str, np.ndarray]:
        """Each opponent's learned ranges from the store; counts a damaged file cannot
        give read as none (flat: actions re-weight nothing), counted in ``bad_off_model``."""
        read = self.store.range_counts
        out: dict[str, np.ndarray] = {}
        for nick in opponents:
            try:
                out[nick] = range_densities(*read(nick, self.network))
            except (ValueError, TypeError):
                self.bad_off_model += 1
        return out

    def _learned_eps(self, opponents: list[str]) -> dict[str, tuple[float, float]]:
        """Each opponent's (call, raise) ε from the off-model counts its model holds;
        counts that are not counts (a damaged file) read as none: the floor, counted in
        ``bad_off_model``."""
        read = self.store.off_model
        floor = self.settings.reweight_floor
        out: dict[str, tuple[float, float]] = {}
        for nick in opponents:
            try:
                n_c, k_c, n_r, k_r = read(nick, self.network)
                out[nick] = (learned_eps(n_c, k_c, floor), learned_eps(n_r, k_r, floor))
            except (ValueError, TypeError):
                self.bad_off_model += 1
                out[nick] = (floor, floor)
        return out

    # --- per hand state --------------------------------------------------------------------

    def _start(self, ctx: GameContext) -> None:
        self._hand = ctx.hand_id
        hole = ctx.hole_cards or ()
        self._hole_mask = ev.cards_to_mask(hole) if hole else 0
        opponents = [p for p in ctx.players if p != self.name]
        cfg = self.settings
        learned_ranges = cfg.reweight == "learned" and self._reweighting
        eps = self._learned_eps(opponents) if cfg.floor_on == "learned" and self._reweighting \
            and not learned_ranges else None
        dens = self._range_densities(opponents) if learned_ranges else None
        self._modeler.new_hand(opponents, self._hole_mask, eps, dens)
        self._models: dict[str, Any] = {}
        self._seen = 0  # actions of this hand already re-weighted for
        # Fine contexts of this hand's actions (agent.game.context), followed as they come.
        self._walker = ContextWalker(dict(zip(ctx.players, ctx.positions)), ctx.board)
        self._features = None
        if self.settings.opponent_model == "specific" and self.model_settings.predictor in ("learned", "meta"):
            self._read_learned()
            if self._learned is not None:
                # The learned predictor's public features, followed action by action.
                self._features = DecisionFeatures(len(ctx.players), ctx.small_bet, ctx.big_bet)
                self._seat_of = {p: i for i, p in enumerate(ctx.players)}
                self._stats: dict[str, tuple[float, float]] = {}
        self._strategy: PreflopStrategy | None = None

    def _freq(self, nick: str, context: int, fine: int = -1, public: Any = None,
              round_: int = 0) -> tuple[float, float, float]:
        """The opponent's (fold, call, raise) shares in a context: by the predictor
        [model] predictor names (the meta-predictor by default: twelve contexts and the
        back-off mixed by how well each has foreseen this opponent, and the learned
        predictor with them when the store holds its weights) from the models read once a
        hand (specific), or the defaults (generic). ``public``: the decision's public
        features (DecisionFeatures.public_split), which the learned predictor reads."""
        if self.settings.opponent_model == "generic":
            return DEFAULT_TRIPLES[context]
        model = self._models.get(nick)
        if model is None:
            model = self._models[nick] = self.store.get(nick, self.network)
        # The simulator's play-outs know only the twelve coarse contexts (fine = -1), so
        # there the twelve-context prediction is read.
        which = self.model_settings.predictor if fine >= 0 else "twelve"
        if public is not None and which != "twelve" and which != "backoff":
            stats = self._stats.get(nick)
            if stats is None and model.state is not None:
                stats = self._stats[nick] = player_stats(model.state, self._predictor.factor)
            return predict_learned(model, context, fine, round_, self._predictor, self._learned, public, which, stats)
        return predict_model(model, context, fine, self._predictor, which)

    def _catch_up(self, ctx: GameContext) -> None:
        """Re-weight live opponents' tables for every action since our last decision, each
        in the opponent-model context the tracker recorded for it (agent.game.context)."""
        actions = ctx.actions
        if self._reweighting:
            active = set(ctx.active)
            masks: dict[int, int] = {}
            walker = self._walker
            if walker is None:
                raise RuntimeError(f"{self.name}: asked to act before new_hand (which starts the context walker)")
            walker.board = ctx.board
            features = self._features
            for a in actions[self._seen:]:
                player = a.player
                fine = walker.context(a.round, player, a.bets_to_call, a.players_active, a.raises)
                walker.record(a.round, player, a.kind)
                public = None
                if features is not None:
                    seat = self._seat_of[player]
                    if player != self.name and player in active and a.kind not in BLIND_KINDS \
                            and ACTION_CLASS[a.kind] != FOLD:
                        public = features.public_split(seat, a.round, a.bets_to_call, a.context, fine, a.position)
                    features.record(seat, a.round, a.kind, a.amount)
                if player == self.name or player not in active or a.kind in BLIND_KINDS:
                    continue
                action = ACTION_CLASS[a.kind]
                if action == FOLD:
                    continue
                rnd = a.round
                mask = masks.get(rnd)
                if mask is None:
                    mask = masks[rnd] = ev.cards_to_mask(ctx.board[:_BOARD_AT_ROUND[rnd]]) if rnd else 0
                self._modeler.observe(player, action, self._freq(player, a.context, fine, public, rnd), mask,
                                      a.players_active, a.context)
        self._seen = len(actions)

    def _to_act_after(self, ctx: GameContext) -> int:
        n = len(ctx.players)
        me = ctx.players.index(self.name)
        mine = order_key(ctx.positions[me], n, ctx.round)
        count = 0
        for seat, player in enumerate(ctx.players):
            if (player != self.name and player in ctx.active and ctx.stacks[seat] > 0
                    and order_key(ctx.positions[seat], n, ctx.round) > mine):
                count += 1
        return count

    # --- decisions -------------------------------------------------------------------------

    def act(self, ctx: GameContext) -> Action:
        self.interim = None  # nothing better than the seat's fallback yet
        self._asked = ctx  # the context the seat asked with (its best-so-far answer names it)
        # The seats numbered from the first after the button whatever the table's own
        # numbering, so a decision is the same at every table (agent.game.context).
        ctx = by_position(ctx)
        if len(ctx.players) == 2 and self.settings.heads_up == "equilibrium":
            action = self._heads_up(ctx)
            if action is not None:
                return action
        if ctx.hand_id != self._hand:
            self._start(ctx)
        self._catch_up(ctx)
        if ctx.round == 0 or not ctx.hole_cards:
            action = self._preflop(ctx)
        else:
            action = self._postflop(ctx)
        if action not in ctx.legal_actions:
            self.illegal_choices += 1  # a bug in a strategy; counted so tests can see it
            action = Action.CHECK_CALL if Action.CHECK_CALL in ctx.legal_actions else ctx.legal_actions[0]
        if self.last is not None:
            self.last.action = action
        return action

    def responder(self) -> Any:
        """The heads-up equilibrium and the restricted responses to each opponent
        (agent.engine.response), built at the first heads-up decision."""
        if self._responder is None:
            from agent.engine.equilibrium import load_strategy
            from agent.engine.response import HeadsUpResponder, ResponseSettings

            self._responder = HeadsUpResponder(load_strategy(self.settings.heads_up_strategy or None),
                                               ResponseSettings(p_max=self.settings.heads_up_p))
        return self._responder

    def resolver(self) -> Any:
        """The river re-solver (agent.engine.resolve), made at its first use."""
        if self._resolver is None:
            from agent.engine.resolve import RiverResolver

            self._resolver = RiverResolver()
        return self._resolver

    def resolve_status(self) -> str:
        """River re-solving: off, or its solves and fallbacks to the blueprint so far."""
        if self.settings.heads_up_resolve == "off":
            return "river re-solving off"
        return str(self.resolver().describe())

    def policy(self, opponent: str) -> Any:
        """The abstract strategy played against ``opponent`` heads-up now (a StrategyView),
        for a local best response that knows its opponent."""
        return self.responder().view(opponent)

    def _heads_up(self, ctx: GameContext) -> Action | None:
        """With one opponent: the equilibrium, or the restricted response to the
        opponent's model (agent.engine.response); None at a table of another structure
        than the abstract game's (the engine plays it; counted)."""
        from agent.engine.heads_up import HeadsUpError, check_structure, spot_of

        try:
            check_structure(ctx, self.name)
        except HeadsUpError:
            self.heads_up_other_structure += 1
            return None
        hole = ctx.hole_cards
        if not hole or len(hole) != 2:
            raise ValueError(f"{self.name}: hand {ctx.hand_id} gave us no hole cards")
        opponent = ctx.players[1 - ctx.players.index(self.name)]
        view = self.responder().view(opponent)
        if self.settings.heads_up_resolve == "river":
            # At a seat with a deadline the solve gets the simulator's share of it.
            budget = None if self._deadline_s is None else DEADLINE_SHARE * self._deadline_s
            view = self.resolver().at(view, ctx, self.name, budget)
        spot = spot_of(view.game, ctx, self.name)
        probs = view.probabilities(spot.node, hole, ctx.board)
        action, legal = view.choose(spot.node, probs, self.rng, ctx.legal_actions)
        if not legal:
            self.illegal_choices += 1
        self.heads_up_decisions += 1
        self.last = Decision(ctx.round, action=action)
        return action

    def _holding_rates(self, players: int) -> np.ndarray:
        field = field_of_players(max(2, players))
        rates = self._rates.get(field)
        if rates is None:
            rates = self._rates[field] = load_income_rates().holding_rates(max(2, players))
        return rates

    def _preflop(self, ctx: GameContext) -> Action:
        if self._strategy is None:
            if ctx.hole_cards:
                ir = float(self._holding_rates(ctx.players_active)[
                    ev.holding_index_of_cards(*ctx.hole_cards)])
            else:
                ir = float("-inf")
            self._strategy = choose_strategy(ir, self._to_act_after(ctx), self.settings.preflop)
        unopened = not any(kind in _VOLUNTARY for _, kind in ctx.history[0]) if ctx.history else True
        self.last = Decision(0, strategy=self._strategy)
        return preflop_action(self._strategy, ctx.bets_this_round, ctx.to_call, ctx.can_raise,
                              unopened, ctx.max_bets)

    def assess(self, ctx: GameContext) -> tuple[float, float, float]:
        """(EHS, HS_n, Ppot) of our hand now ([testbed-1998] §4.2-4.4): HS_n the product of our
        hand strength against each live opponent's weight table (uniform tables with
        weights=uniform), Ppot with one card to come against their pooled tables (0 on the
        river or with potential off). The Npot of the same enumeration is kept in
        ``self.npot`` for the calling rule."""
        cfg = self.settings
        board = ev.cards_to_mask(ctx.board)
        opponents = [p for p in ctx.active if p != self.name]
        tables = None
        if cfg.weights == "modeled":
            self._modeler.see_board(board)
            tables = [self._modeler.tables[p] for p in opponents]
        got = assess_hand(self._hole_mask, board, tables, len(opponents), cfg.potential)
        self._hs_each = dict(zip(opponents, got.each))
        self.npot = got.npot
        return got.ehs, got.hs_n, got.ppot

    def bets_to_come(self, ctx: GameContext) -> tuple[float, float]:
        """(F, I): the first two numbers of :meth:`call_outlook`."""
        out = self.call_outlook(ctx)
        return out["future_bets"], out["implied"]

    def call_outlook(self, ctx: GameContext) -> dict[str, float]:
        """What the calling rule (agent.engine.triples, call_rule "showdown") needs
        besides HS and the potentials, from the opponents' modelled frequencies (the
        twelve contexts) and their weight tables:

        * raise_behind: chips a raise still to come this round costs us, someone of those
          who act after our call raising with 1 − Π(1 − raise share facing a bet);
        * future_bets: that plus a big bet on each later round, when the bettor goes on;
        * implied: a big bet paid on the next round when our draw comes in, someone
          paying with 1 − Π(fold share facing a bet);
        * go_on: the share of the bettor's (the last to bet or raise) weight that bets the
          next round: its bet frequency there read as a percentile of all holdings'
          strength (the modeler's strengths on the present board), applied to its table;
        * hs_on / hs_off: our HS_n with the bettor's table cut to the part that goes on /
          gives up (the others' tables whole). Without modeled tables no split (go_on −1).
        """
        out = {"future_bets": 0.0, "implied": 0.0, "go_on": -1.0, "hs_on": -1.0, "hs_off": -1.0,
               "raise_behind": 0.0}
        if ctx.to_call <= 0:
            return out
        opponents = [p for p in ctx.active if p != self.name]
        if not opponents:
            return out
        # Who still acts this round after our call: whoever has put in less than the bet
        # we would then have matched (and has chips left to act with).
        put: dict[str, int] = {}
        bettor = None
        for a in ctx.actions:
            if a.round == ctx.round:
                put[a.player] = put.get(a.player, 0) + a.amount
                if a.kind in ("b", "r") and a.player in opponents:
                    bettor = a.player
        level = put.get(self.name, 0) + ctx.to_call
        stacks = dict(zip(ctx.players, ctx.stacks))
        behind = [p for p in opponents if stacks.get(p, 0) > 0 and put.get(p, 0) < level]
        now = 0.0
        if behind and ctx.can_raise:
            none = 1.0
            for p in behind:
                none *= 1.0 - self._freq(p, decision_context(ctx.round, 1))[2]
            now = ctx.bet_size * (1.0 - none)
        later = 0.0
        for rnd in range(ctx.round + 1, 4):
            none = 1.0
            for p in opponents:
                none *= 1.0 - self._freq(p, decision_context(rnd, 0))[2]
            later += ctx.big_bet * (1.0 - none)
        out["raise_behind"] = now
        out["future_bets"] = now + later
        if ctx.round < 3:
            all_fold = 1.0
            for p in opponents:
                all_fold *= self._freq(p, decision_context(ctx.round + 1, 1))[0]
            out["implied"] = ctx.big_bet * (1.0 - all_fold)
        table = self._modeler.tables.get(bettor) if bettor is not None else None
        if ctx.round >= 3 or table is None or self.settings.weights != "modeled" \
                or bettor not in self._hs_each:
            return out
        board = ev.cards_to_mask(ctx.board)
        strength = self._modeler.strengths(board, len(ctx.active))
        live = live_holdings(board | self._hole_mask)
        share = self._freq(bettor, decision_context(ctx.round + 1, 0))[2]
        # The bettor bets the next round with the top `share` of all holdings.
        cut = float(np.quantile(strength[live], 1.0 - share)) if 0.0 < share < 1.0 else \
            (-1.0 if share >= 1.0 else 2.0)
        on = np.where(strength >= cut, table, 0.0)
        total = float(table.sum())
        weight_on = float(on.sum())
        if total <= 0.0:
            return out
        q = weight_on / total
        others = 1.0
        for p, h in self._hs_each.items():
            if p != bettor:
                others *= h
        hs_b = self._hs_each[bettor]
        hole = self._hole_mask
        hs_on = ev.hand_strength(hole, board, on) if weight_on > 0.0 else hs_b
        hs_off = ev.hand_strength(hole, board, table - on) if weight_on < total else hs_b
        # With the split, the later bets are the bettor's: it bets each later round.
        out.update(go_on=q, hs_on=hs_on * others, hs_off=hs_off * others,
                   future_bets=now + ctx.big_bet * (3 - ctx.round))
        return out

    def _postflop(self, ctx: GameContext) -> Action:
        cfg = self.settings
        ehs, hs_n, ppot = self.assess(ctx)
        can_raise = ctx.can_raise
        if cfg.bettor == "simulator":
            return self._simulate(ctx, ehs, hs_n, ppot)
        if cfg.bettor == "loki1":
            self.last = Decision(ctx.round, ehs, hs_n, ppot)
            return loki1_action(ehs, ppot, ctx.pot, ctx.to_call, ctx.bets_to_call,
                                ctx.bets_this_round, can_raise, cfg)
        situation = self._situation(ctx, ehs, hs_n, ppot)
        triple = decision_triple(situation, cfg)
        self.last = Decision(ctx.round, ehs, hs_n, ppot, self.npot, situation.future_bets,
                             situation.implied, triple, situation=situation)
        return select_action(triple, self.rng, ctx.to_call, ctx.legal_actions)

    def _situation(self, ctx: GameContext, ehs: float, hs_n: float, ppot: float) -> Situation:
        outlook = self.call_outlook(ctx) if self.settings.call_rule == "showdown" else {}
        return Situation(ehs, ppot, ctx.pot, ctx.to_call, ctx.bet_size, ctx.bets_this_round,
                         ctx.max_bets, ctx.round, self._to_act_after(ctx), ctx.can_raise,
                         hs_n, self.npot, **outlook)

    def _simulate(self, ctx: GameContext, ehs: float, hs_n: float, ppot: float) -> Action:
        """Billings et al.'s [sampling-1999] simulation: the EVs of check/call and bet/raise by playing the hand
        out against opponents dealt from their weight tables (agent.engine.simulator)."""
        opponents = [p for p in ctx.active if p != self.name]
        tables = {p: self._modeler.tables.get(p) for p in opponents} \
            if self.settings.weights == "modeled" else {}
        # The best answer so far, for a seat whose deadline comes before the simulation
        # ends (agent.play.seat reads ``interim``): the Loki-1 Bettor on the EHS just
        # computed, deterministic, so it draws nothing from the generator.
        cfg = self.settings
        self.interim = (self._asked, loki1_action(ehs, ppot, ctx.pot, ctx.to_call, ctx.bets_to_call,
                                                  ctx.bets_this_round, ctx.can_raise, cfg))
        try:
            outcome = simulate_decision(ctx, self.name, ctx.hole_cards or (), tables,
                                        lambda nick, c: self._freq(nick, c), self.settings, self.rng,
                                        budget_s=self.sim_budget_s())
        except ValueError:
            # No consistent deal (weight tables that keep clashing): decide by the triple
            # strategy this once rather than not at all; counted so tests can see it.
            self.simulation_failures += 1
            situation = self._situation(ctx, ehs, hs_n, ppot)
            triple = decision_triple(situation, self.settings)
            self.last = Decision(ctx.round, ehs, hs_n, ppot, self.npot, situation.future_bets,
                                 situation.implied, triple, situation=situation)
            return select_action(triple, self.rng, ctx.to_call, ctx.legal_actions)
        self.last = Decision(ctx.round, ehs, hs_n, ppot, simulation=outcome)
        return outcome.action


# --- registry ------------------------------------------------------------------------------

_WORDS = {key: choices for key, choices in ENGINE_CHOICES.items()}


_HELP = {
    "bet_threshold": "EHS to bet",
    "raise_threshold": "EHS to raise",
    "semi_bluff": "chance to bet a draw that beats the odds of a bet",
    "check_raise": "chance to check a raising hand with players behind",
    "slow_play": "chance to only call with a near-certain winner",
    "call_margin": "call when the calling rule's edge exceeds this",
    "mix_width": "half-width of the threshold ramps",
}


def poki_kind(config: Config) -> PlayerKind:
    """The ``poki`` player kind, its defaults from ``config``'s [engine] and [model]
    (agent.play.kinds registers it with the settings the program was given). Every
    setting the player is built from is a parameter, so a parsed spec carries all of it
    to wherever the player is built (a worker process, another machine)."""
    eng = config.engine
    params = {
        key: Param(str, getattr(eng, key), f"one of {', '.join(choices)}", choices=choices)
        for key, choices in _WORDS.items()
    }
    params["potential"] = Param(bool, eng.potential, "add hand potential to EHS (on/off)")
    params["sim_trials"] = Param(int, eng.sim_trials, "simulator: trials per decision", low=2, high=10**6)
    params["sim_min_trials"] = Param(int, eng.sim_min_trials, "simulator: trials before the obvious-move cut-off",
                                     low=2, high=10**6)
    params["sim_time_ms"] = Param(float, eng.sim_time_ms, "simulator: time budget of a decision (ms, 0 none)",
                                  low=0.0, high=1e6)
    params["sim_close"] = Param(float, eng.sim_close, "simulator: EVs this close (small bets) are chosen at random",
                                low=0.0, high=100.0)
    params["heads_up_strategy"] = Param(str, eng.heads_up_strategy,
                                        "heads-up: the equilibrium's strategy file ('' the shipped one)")
    for f in dataclasses.fields(EngineConfig):
        if f.name not in params:
            params[f.name] = Param(float, getattr(eng, f.name), _HELP.get(f.name, "see config.toml [engine]"),
                                   low=0.0, high=1.0)
    model = config.model
    params["predictor"] = Param(str, model.predictor,
                                "opponent prediction read: twelve, backoff, meta or learned (fitted weights in the "
                                "database; else the back-off)", choices=PREDICTOR_CHOICES)
    params["half_life"] = Param(float, model.half_life_hands,
                                "hands of a player after which an observation weighs half (models kept in memory; "
                                "a database keeps its own)", low=1.0, high=1e9)
    params["blend"] = Param(float, model.blend_observations,
                            "observations before a context's counts outweigh its default triple (in memory)",
                            low=1e-3, high=1e9)

    def factory(name: str, rng: np.random.Generator, *, predictor: str, half_life: float, blend: float,
                **settings: Any) -> PokiPlayer:
        strategy = settings.get("heads_up_strategy", eng.heads_up_strategy)
        if strategy and not os.path.isfile(strategy):
            # Said when the player is made, not at its first heads-up decision.
            raise SpecError(f"poki: heads_up_strategy: no such strategy file: {strategy}")
        return PokiPlayer(name, rng, dataclasses.replace(eng, **settings),
                          model=dataclasses.replace(model, predictor=predictor, half_life_hands=half_life,
                                                    blend_observations=blend))

    return PlayerKind("poki", factory, params,
                      "the Poki engine: income-rate pre-flop, EHS triples, weight tables ([loki2-1999], [testbed-1998], [poki-2002])")
