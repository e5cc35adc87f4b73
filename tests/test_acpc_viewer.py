"""In-process seats that do not follow the events (instant players without hooks or
sink) are asked by our ACPC dealer with its own snapshot for their seat: they must see
exactly the contexts, play exactly the match and count exactly the results they would
with a tracker of their own fed every event."""
from __future__ import annotations

import numpy as np

from agent.game.context import GameContext
from agent.game.rules import Action
from agent.play.acpc.dealer import AcpcDealer
from agent.play.seat import Seat
from agent.players import Player
from connectors.acpc.game import standard_game


class Recorder(Player):
    """An instant player without hooks: a seeded random legal move, every context kept."""

    instant = True

    def __init__(self, name: str, seed: int) -> None:
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.seen: list[GameContext] = []

    def act(self, ctx: GameContext) -> Action:
        self.seen.append(ctx)
        legal = ctx.legal_actions
        return legal[int(self.rng.integers(len(legal)))]


def _play(n: int, hands: int, seed: int, fed: bool):
    game = standard_game(f"holdem.limit.{n}p.game" if n > 2 else "holdem.limit.2p.reverse_blinds.game")
    names = [f"p{i}" for i in range(n)]
    players = [Recorder(name, 100 + i) for i, name in enumerate(names)]
    # A sink makes a seat follow every event (agent.play.seat.Seat.follows_events).
    seats = {i: Seat(p, sink=(lambda record: None) if fed else None) for i, p in enumerate(players)}
    try:
        assert all(s.follows_events is fed for s in seats.values())
        outcome = AcpcDealer(game, names, hands, seed, local=seats).run()
        stats = [(s.stats.hands, s.stats.net_chips, s.stats.decisions) for s in seats.values()]
        followed = [s.tracker.hand is not None for s in seats.values()]
    finally:
        for s in seats.values():
            s.close()
    return outcome, players, stats, followed


def test_seats_asked_with_the_dealers_snapshot_see_what_their_own_tracker_shows():
    for n, seed in ((2, 3), (3, 4), (6, 5)):
        hands = 40
        viewed, players_v, stats_v, followed_v = _play(n, hands, seed, fed=False)
        full, players_f, stats_f, followed_f = _play(n, hands, seed, fed=True)
        assert followed_f == [True] * n and followed_v == [False] * n  # each path was taken
        assert viewed.log_lines == full.log_lines
        assert viewed.totals == full.totals
        assert stats_v == stats_f
        assert all(h == hands for h, _, _ in stats_v)
        assert [s[1] for s in stats_v] == [viewed.totals[f"p{i}"] for i in range(n)]
        for pv, pf in zip(players_v, players_f):
            assert len(pv.seen) == len(pf.seen) > 0
            assert pv.seen == pf.seen
            # Each context shows its viewer's own hole cards only.
            assert all(ctx.viewer == pv.name and ctx.hole_cards is not None for ctx in pv.seen)
