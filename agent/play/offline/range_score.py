"""The range score of ``poki replay --predict``: how much probability each weight table
gave the holding a real player turned over (Billings et al.'s [poki-2002] weight tables, [loki2-1999] §4's
re-weighting, measured where the cards were shown).

For every player who showed two cards, the hand is replayed through the engine's own
re-weighting (agent.engine.modeler.OpponentModeler, as a player without cards of its own
would see it: only the board is known dead) and, at the end of each street the hand
reached, the log-probability of the shown holding is taken under each model's table:

* **uniform**: every holding still possible (not touching the board) alike;
* **loki1**: Loki-1's μ/σ band (Papp), with the learned mixing weight ε of the engine
  (``floor_on = "learned"``);
* **triples**: Billings et al.'s [loki2-1999] re-weighting by the opponent's predicted triples, the engine's
  default (``reweight = "triples"``, ``floor_on = "learned"``);
* **learned**: the learned ranges of agent.models.ranges (``reweight = "learned"``).

Both threshold rules read the opponent's (fold, call, raise) frequencies from the
meta-predictor as it stood before the hand, as the engine does. After the hand, each
model learns from the showdown exactly as the engine does: the off-model counts that set
each rule's ε, and the learned ranges' bins (into the scorer's store, and into the
database the replay writes, through the model-store interface).

Scores are reported per street (the table after the street's actions) and overall (every
street of every shown holding), each with its count: mean natural log-likelihood per
shown holding and street. ``final`` is the table after the last action (one per holding).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import evaluator_pyx as ev
from agent.config import EngineConfig
from agent.engine.modeler import FOLD, OpponentModeler, learned_eps, live_holdings, off_model_counts
from agent.game.prepared import PreparedHand
from agent.game.records import ACTION_CLASS, BLIND_KINDS, ROUND_NAMES, HandRecord
from agent.models.ranges import DEFAULT_RANGE_SETTINGS, RangeSettings, densities
from agent.models.store import NO_OFF_MODEL, MemoryModelStore, ModelStore, OffModelCounts

__all__ = ["RANGE_MODELS", "RangeScorer", "format_ranges"]

RANGE_MODELS = ("uniform", "loki1", "triples", "learned")
_STREETS = {0: 1, 3: 2, 4: 3, 5: 4}  # board cards -> streets the hand reached
_BOARD_AT = (0, 3, 4, 5)
_THRESHOLD_RULES = ("loki1", "triples")
Triple = tuple[float, float, float]


class _Sum:
    __slots__ = ("total", "count")

    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def add(self, x: float) -> None:
        self.total += x
        self.count += 1

    def to_json(self) -> dict[str, Any]:
        return {"log_likelihood": self.total / self.count if self.count else None, "count": self.count}


class RangeScorer:
    """Scores and then learns the range models on each shown-down hand, in order."""

    def __init__(self, store: MemoryModelStore, *, settings: RangeSettings = DEFAULT_RANGE_SETTINGS,
                 engine: EngineConfig | None = None) -> None:
        self.store = store
        self.settings = settings
        cfg = engine or EngineConfig()
        self._modelers = {
            rule: OpponentModeler(rule, sigma=cfg.reweight_sigma, width=cfg.opponent_width, mix=cfg.opponent_mix,
                                  floor=cfg.reweight_floor, potential=cfg.potential,
                                  floor_on="learned" if rule != "learned" else "action")
            for rule in ("loki1", "triples", "learned")
        }
        self.floor = cfg.reweight_floor
        # Off-model counts of Loki-1 (the store keeps the engine's default rule's, triples').
        self._loki1_off: dict[tuple[str, str], OffModelCounts] = {}
        # A database to start players from and to write what is learned to (the replay's).
        self.source: ModelStore | None = None
        self._seen_players: set[tuple[str, str]] = set()
        self._seen_networks: set[str] = set()
        self.by_street = {m: [_Sum() for _ in range(4)] for m in RANGE_MODELS}
        self.overall = {m: _Sum() for m in RANGE_MODELS}
        self.final = {m: _Sum() for m in RANGE_MODELS}
        self.holdings = 0
        self.skipped = 0  # shown cards that name no holding the board leaves possible

    def _meet(self, nick: str, network: str) -> None:
        """First sight of a player: its counts as the database holds them, if there is one."""
        key = (network, nick)
        if key in self._seen_players:
            return
        self._seen_players.add(key)
        source = self.source
        if source is None:
            return
        player, population = source.range_counts(nick, network)
        self.store.seed_ranges(nick, network, player, None if network in self._seen_networks else population)
        self._seen_networks.add(network)
        off = source.off_model(nick, network)
        if any(off):
            self.store.add_off_model(nick, network, "(stored)", off)

    def _eps(self, counts: Sequence[float]) -> tuple[float, float]:
        n_c, k_c, n_r, k_r = counts
        return learned_eps(n_c, k_c, self.floor), learned_eps(n_r, k_r, self.floor)

    def observe(self, record: HandRecord, prepared: PreparedHand, network: str, triples: Sequence[Triple],
                scored: bool = True) -> None:
        """Score (when ``scored``) and learn one hand; ``triples``: the meta-predictor's
        triple of each decision of ``prepared.observations``, from the models before the hand."""
        streets = _STREETS.get(len(record.board))
        if streets is None:  # a board no street ends with: no shown holding can be scored
            self.skipped += len(record.shown)
            return
        seat_of = {p: i for i, p in enumerate(prepared.players)}
        shown: list[tuple[str, int, int]] = []  # (nick, seat, holding)
        board_mask = ev.cards_to_mask(record.board) if record.board else 0
        for s in record.shown:
            seat = seat_of.get(s.player)
            if seat is None or len(s.cards) != 2 or s.cards[0] == s.cards[1]:
                self.skipped += 1
                continue
            mask = ev.cards_to_mask(s.cards)
            if mask & board_mask:
                self.skipped += 1
                continue
            shown.append((s.player, seat, ev.holding_index_of_cards(*s.cards)))
        if not shown:
            return
        store = self.store
        nicks = [nick for nick, _, _ in shown]
        for nick in nicks:
            self._meet(nick, network)
        mods = self._modelers
        mods["triples"].new_hand(nicks, 0, {n: self._eps(store.off_model(n, network)) for n in nicks})
        mods["loki1"].new_hand(nicks, 0, {n: self._eps(self._loki1_off.get((network, n), NO_OFF_MODEL))
                                          for n in nicks})
        mods["learned"].new_hand(nicks, 0, densities={n: densities(*store.range_counts(n, network), self.settings)
                                                      for n in nicks})
        masks = [ev.cards_to_mask(record.board[:_BOARD_AT[r]]) if r else 0 for r in range(streets)]
        shown_seats = {seat: nick for nick, seat, _ in shown}
        scores: dict[str, list[list[float]]] = {nick: [] for nick in nicks}  # per street, per model

        def score(street: int) -> None:
            n_live = int(live_holdings(masks[street]).sum())
            for mod in mods.values():
                mod.see_board(masks[street])
            for nick, _, h in shown:
                row = [-math.log(n_live)]
                for rule in ("loki1", "triples", "learned"):
                    t = mods[rule].tables[nick]
                    total = float(t.sum())
                    row.append(math.log(max(float(t[h]) / total, 1e-300)) if total > 0 else -math.log(n_live))
                scores[nick].append(row)

        street = 0
        i = 0
        for a in prepared.actions:
            kind = a[3]
            if kind in BLIND_KINDS:
                continue
            rnd = a[2]
            if rnd >= streets:
                break
            while street < rnd:
                score(street)
                street += 1
            actor = shown_seats.get(a[1])
            action = ACTION_CLASS[kind]
            if actor is not None and action != FOLD:
                for mod in mods.values():
                    mod.observe(actor, action, triples[i], masks[rnd], a[8], a[10])
            i += 1
        while street < streets:
            score(street)
            street += 1
        source = self.source
        for nick, _, h in shown:
            if scored:
                self.holdings += 1
                rows = scores[nick]
                for st, row in enumerate(rows):
                    for m, x in zip(RANGE_MODELS, row):
                        self.by_street[m][st].add(x)
                        self.overall[m].add(x)
                for m, x in zip(RANGE_MODELS, rows[-1]):
                    self.final[m].add(x)
            # Learn as the engine does at a showdown.
            tri = off_model_counts(mods["triples"].factors.get(nick, ()), h)
            store.add_off_model(nick, network, record.hand_id, tri)
            old = self._loki1_off.get((network, nick), NO_OFF_MODEL)
            lk = off_model_counts(mods["loki1"].factors.get(nick, ()), h)
            self._loki1_off[(network, nick)] = OffModelCounts(*(x + y for x, y in zip(old, lk)))
            obs = mods["learned"].range_observations(nick, h)
            store.add_range_counts(nick, network, record.hand_id, obs)
            if source is not None:
                source.add_off_model(nick, network, record.hand_id, tri)
                source.add_range_counts(nick, network, record.hand_id, obs)

    def report(self) -> dict[str, Any]:
        """The JSON of ``ranges``: each model's overall mean log-likelihood and count, per
        street, and for the final table."""
        out: dict[str, Any] = {
            "shown_holdings": self.holdings,
            "skipped_shown": self.skipped,
            "models": list(RANGE_MODELS),
            "settings": {"player_strength": self.settings.player_strength,
                         "population_strength": self.settings.population_strength},
        }
        for m in RANGE_MODELS:
            out[m] = {**self.overall[m].to_json(),
                      "by_street": {ROUND_NAMES[s]: self.by_street[m][s].to_json() for s in range(4)},
                      "final": self.final[m].to_json()}
        return out


def format_ranges(ranges: dict[str, Any]) -> str:
    """The range score as a table (mean log-likelihood per shown holding and street)."""
    models = ranges["models"]
    lines = [f"range score: {ranges['shown_holdings']:,} shown holdings; mean natural log-likelihood of the "
             "shown holding under each weight table (higher is better)",
             f"{'':<10} {'count':>8}  " + "  ".join(f"{m:>9}" for m in models)]

    def row(label: str, cells: list[dict[str, Any]]) -> str:
        n = cells[0]["count"]
        vals = "  ".join(f"{c['log_likelihood']:>9.3f}" if c["log_likelihood"] is not None else f"{'-':>9}"
                         for c in cells)
        return f"{label:<10} {n:>8,}  {vals}"

    lines.append(row("all", [ranges[m] for m in models]))
    for street in ROUND_NAMES:
        lines.append(row(f"  {street}", [ranges[m]["by_street"][street] for m in models]))
    lines.append(row("final", [ranges[m]["final"] for m in models]))
    return "\n".join(lines)
