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
from agent.game.records import FOLD
from agent.game.tracker import Tracker
from agent.play.acpc_match import host_match
from connectors.acpc.game import standard_game
from connectors.acpc.protocol import StateTranslator, format_matchstate
from connectors.logs import acpc_log


def _match_log(n: int, hands: int, seed: int) -> list[acpc_log.AcpcHand]:
    game = standard_game(f"holdem.limit.{n}p.game")
    names = [f"p{i}" for i in range(n)]
    # Random players with folds and raises make every kind of hand: folded out early,
    # capped rounds, showdowns of several players.
    kinds = ["random(fold=2, call=1, raise=1)", "random(fold=1, call=1, raise=2)",
             "random(fold=1, call=2, raise=1)", "raise", "random", "random(fold=3, call=1, raise=1)"]
    seats = {i: kinds[i % len(kinds)] for i in range(n)}
    outcome, _ = host_match(game, names, hands, seed, seats=seats,
                            game_name=f"holdem.limit.{n}p.game", match_name="fp")
    parsed = [h for h in acpc_log.parse_log(outcome.log_lines) if isinstance(h, acpc_log.AcpcHand)]
    assert len(parsed) == hands
    return parsed


def _folded_positions(hand: acpc_log.AcpcHand, table: TableConfig) -> set[int]:
    tracker = Tracker()
    record = None
    for event in acpc_log.hand_events(hand, table):
        record = tracker.apply(event)
    assert record is not None
    position = {p: q for q, p in enumerate(hand.players)}
    return {position[a.player] for a in record.actions if a.kind == FOLD}


def _views(hand: acpc_log.AcpcHand, position: int, folded: set[int]) -> list[str]:
    """Every MATCHSTATE the ACPC dealer sends ``position`` in this hand, in order: after
    the deal and after each action (a round's closing '/' and its board come with the
    action that closed it); at a showdown the last one shows every hand not folded."""
    text = "/".join(hand.betting)
    cuts = [0]
    for i, char in enumerate(text):
        if char != "/":
            cuts.append(i + 2 if text[i + 1:i + 2] == "/" else i + 1)
    n = len(hand.players)
    own = [h if q == position else None for q, h in enumerate(hand.holes)]
    showdown = len(folded) < n - 1
    views = []
    for k, cut in enumerate(cuts):
        betting = text[:cut]
        rounds = betting.count("/") + 1
        holes = own
        if showdown and k == len(cuts) - 1:
            holes = [h if q == position or q not in folded else None
                     for q, h in enumerate(hand.holes)]
        views.append(format_matchstate(position, hand.hand_number, betting, holes,
                                       hand.board[:rounds]))
    return views


@pytest.mark.parametrize("players, seed", [(3, 11), (6, 12)])
def test_fast_path_agrees_with_the_full_parse(players: int, seed: int) -> None:
    hands = _match_log(players, 120, seed)
    game = standard_game(f"holdem.limit.{players}p.game")
    table = TableConfig(small_blind=game.small_blind, big_blind=game.big_blind,
                        small_bet=game.small_bet, big_bet=game.big_bet, max_bets=game.max_bets)
    folded = [_folded_positions(h, table) for h in hands]
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

        fast.parse = counting_parse  # type: ignore[method-assign]
        tracker = Tracker("me")
        lines = 0
        for hand, out in zip(hands, folded):
            # Our seat moves one position each hand, as at the dealer.
            position = (me - hand.hand_number) % players
            record = None
            for line in _views(hand, position, out):
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
