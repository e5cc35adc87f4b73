"""The translator's fast path (a state that extends the last one) gives the same states
and events as the general path (full parse, then update), on every view a player gets in
seeded 3- and 6-player matches of our dealer.

The views are rebuilt from the match log alone (STATE lines: every player's cards, the
betting, the board), with who folded taken from the rules engine replaying the logged
hand, so the test does not trust the translator or the dealer's own view strings. The
events are then checked against the log too: the tracker accepts them and our result in
the record is the log's value for our seat."""
from __future__ import annotations

import pytest

from agent.config import TableConfig
from agent.game.tracker import Tracker
from connectors.acpc.game import standard_game
from connectors.acpc.protocol import StateTranslator

from helpers.acpc import folded_positions, matchstate_views, random_match_log


@pytest.mark.parametrize("players, seed", [(3, 11), (6, 12)])
def test_fast_path_agrees_with_the_full_parse(players: int, seed: int) -> None:
    hands = random_match_log(players, 120, seed)
    game = standard_game(f"holdem.limit.{players}p.game")
    table = TableConfig(small_blind=game.small_blind, big_blind=game.big_blind,
                        small_bet=game.small_bet, big_bet=game.big_bet, max_bets=game.max_bets)
    folded = [folded_positions(h, table) for h in hands]
    showdowns = sum(len(f) < players - 1 for f in folded)
    assert 10 < showdowns < len(hands)  # both kinds of hand ending are exercised
    for me in range(players):
        fast = StateTranslator(game, "me", match="fp")
        full = StateTranslator(game, "me", match="fp")
        full_parses = 0
        real_parse = fast.parse

        def counting_parse(line: str, where: str | None = None):
            nonlocal full_parses
            full_parses += 1
            return real_parse(line, where)

        fast.parse = counting_parse  # type: ignore[method-assign]  # a test double
        tracker = Tracker("me")
        lines = 0
        for hand, out in zip(hands, folded):
            # Our seat moves one position each hand, as at the dealer.
            position = (me - hand.hand_number) % players
            record = None
            for line in matchstate_views(hand, position, out):
                lines += 1
                state_fast, events_fast = fast.read(line)
                state_full = full.parse(line)
                events_full = full.update(state_full)
                assert state_fast == state_full, line
                assert events_fast == events_full, line
                for event in events_fast:
                    record = tracker.apply(event)
            assert fast.hand_over and full.hand_over
            assert record is not None
            result = next(r for r in record.results if r.player == "me")
            assert result.won - result.put_in == hand.values[position]
        # The full parse runs for a hand's first state and a showdown's last one only.
        assert full_parses <= 2 * len(hands) < lines // 2
