"""The in-process dealer: seats any mix of players and plays hands on the hand driver
(agent.play.hand_driver, its rules mode: the rules and the tracker), with no network in
between.

Each hand is a :class:`~agent.play.deals.Deal` (every seat's hole cards and the five board cards) drawn from
a seeded generator, so a seed reproduces a match and a duplicate tournament can replay the
same deal with the seats rotated (agent.play.offline.tournament). The dealer sends the tracker the
same events a connector would (HandStarted, HoleCards, PlayerActed, BoardDealt,
HandEnded); at each decision the player to act gets the tracker's snapshot as it sees
the table, its own hole cards and nobody else's. Players that override the hand hooks
(agent.players.interface) are told of the new hand, of every public event and of their
own cards, and get the finished hand's record.

A move that is not legal is replaced by check-or-call and counted (by the driver, as for
the ACPC dealer). Chips: by default every hand starts from the configured stack (limit cash-game
measurement in small bets per hand); with ``reset_stacks=False`` stacks carry over and a
player who goes broke buys in again.

Hand logs (:class:`HandLog`) are kept as ACPC ``STATE:`` lines (connectors.logs.acpc_log) and
PHH hands (connectors.logs.phh).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agent.config import TableConfig
from agent.game.events import Event, HandStarted, HoleCards
from agent.game.records import HandRecord
from agent.models.store import ModelStore
from agent.play.deals import Deal, SeededDeals
from agent.play.hand_driver import ENDED as _ENDED
from agent.play.hand_driver import HandDriver
from agent.players import Player
from agent.players.interface import HandHooks
from connectors.logs import acpc_log, phh
from connectors.logs.phh import PhhHand

__all__ = ["Dealer", "HandLog", "MatchResult", "play_match"]


class HandLog:
    """Logs of played hands kept in memory, in play order: ACPC ``STATE:`` lines and/or
    PHH hands (written out by the caller)."""

    def __init__(self, acpc: bool = False, phh: bool = False) -> None:
        self.acpc = acpc
        self.phh = phh
        self.acpc_lines: list[str] = []
        self.phh_hands: list[PhhHand] = []

    def add(self, record: HandRecord, holes: dict[str, tuple[int, int]], hand_number: int) -> None:
        if self.acpc:
            self.acpc_lines.append(acpc_log.format_state(
                acpc_log.hand_from_record(record, holes, hand_number)))
        if self.phh:
            self.phh_hands.append(phh.hand_from_record(record, holes))


class Dealer:
    """Plays hands among players on a hand driver (agent.play.hand_driver, its rules mode);
    see the module docstring.

    ``source`` prefixes hand ids and error messages.
    """

    def __init__(self, config: TableConfig, *, source: str = "dealer",
                 log: HandLog | None = None) -> None:
        self.config = config
        self.source = source
        self.log = log
        self.driver = HandDriver()
        self.tracker = self.driver.tracker
        self.hands_played = 0
        self._hooks: dict[int, tuple[HandHooks, Player]] = {}

    @property
    def invalid_actions(self) -> dict[str, int]:
        """Moves that were not legal, taken as check/call, by player (over every hand)."""
        return self.driver.defaults

    def _hooks_of(self, player: Player) -> HandHooks:
        kept = self._hooks.get(id(player))
        if kept is None:
            # Only the hooks the player overrides; the player kept alive by the tuple.
            kept = self._hooks[id(player)] = (player.hand_hooks(), player)
        return kept[0]

    def play_hand(self, players: Sequence[Player], deal: Deal, *, button: int,
                  hand_id: str, stacks: Sequence[int] | None = None,
                  hand_number: int | None = None, started_at: float | None = None) -> HandRecord:
        """Play one hand: ``players`` in seat order, ``deal`` their cards by seat."""
        n = len(players)
        if len(deal.holes) != n:
            raise ValueError(f"{hand_id}: a deal for {len(deal.holes)} seats at a table of {n}")
        names = tuple(p.name for p in players)
        if len(set(names)) != n:
            raise ValueError(f"{hand_id}: two players share a name: {names}")
        config = self.config
        if stacks is None:
            stacks = (config.starting_stack,) * n
        started = HandStarted(
            hand_id=hand_id, source=self.source, players=names, stacks=tuple(stacks),
            button=button, small_blind=config.small_blind, big_blind=config.big_blind,
            small_bet=config.small_bet, big_bet=config.big_bet, max_bets=config.max_bets,
            heads_up_reverse_blinds=True, started_at=started_at)
        driver = self.driver
        hole_events: list[HoleCards] = []
        driver.start(started, deal.holes, deal.board, hole_events=hole_events)
        hooks = [self._hooks_of(p) for p in players]
        observers = [h.observe for h in hooks if h.observe is not None]
        for h in hooks:
            if h.new_hand is not None:
                h.new_hand(started)
        for h, event in zip(hooks, hole_events):
            if h.observe is not None:
                h.observe(event)
        tell: Callable[[Event], None] | None = None
        if observers:
            def tell(event: Event) -> None:
                for each in observers:
                    each(event)

        record = driver.play([p.act for p in players], tell)
        for observe_end in observers:
            observe_end(_ENDED)
        for h in hooks:
            if h.end_hand is not None:
                h.end_hand(record)
        if self.log is not None:
            holes = dict(zip(names, deal.holes))
            self.log.add(record, holes, self.hands_played if hand_number is None else hand_number)
        self.hands_played += 1
        return record


@dataclass
class MatchResult:
    names: tuple[str, ...]
    hands: int
    chips: dict[str, int]  # net chips won over the match
    small_bet: int
    records: list[HandRecord]

    def sb_per_hand(self, name: str) -> float:
        return self.chips[name] / (self.hands * self.small_bet) if self.hands else 0.0


def play_match(players: Sequence[Player], config: TableConfig, hands: int, seed: int, *,
               reset_stacks: bool = True, log: HandLog | None = None, source: str = "match",
               keep_records: bool = False, progress: Callable[[int], None] | None = None,
               deals: SeededDeals | None = None, store: ModelStore | None = None,
               network: str = "local") -> MatchResult:
    """Plain (not duplicate) play: seats fixed, the button moving one seat each hand, the
    cards from ``numpy.random.default_rng(seed)`` (or ``deals``: the k-th hand's cards by
    position, as every dealer deals them). With ``store`` the players that model their
    opponents read and write their models there (attached as every runner attaches them)
    and each finished hand is stored there once, as ``poki match --db`` does."""
    n = len(players)
    rng = np.random.default_rng(seed)
    dealer = Dealer(config, source=source, log=log)
    names = tuple(p.name for p in players)
    stacks = {name: config.starting_stack for name in names}
    chips = dict.fromkeys(names, 0)
    records = []
    if store is not None:
        for player in players:
            player.attach_store(store, network)
    for hand in range(hands):
        deal = Deal.draw(rng, n) if deals is None else deals.deal(hand, n, hand % n)
        start = None if reset_stacks else tuple(stacks[name] or config.starting_stack for name in names)
        record = dealer.play_hand(players, deal, button=hand % n, hand_id=f"{source}:{hand}",
                                  stacks=start, hand_number=hand)
        if store is not None:
            store.write_hand(record, network)
        for result in record.results:
            net = result.won - result.put_in
            chips[result.player] += net
            if not reset_stacks:
                stacks[result.player] = (stacks[result.player] or config.starting_stack) + net
        if keep_records:
            records.append(record)
        if progress is not None:
            progress(1)
    return MatchResult(names, hands, chips, config.small_bet, records)
