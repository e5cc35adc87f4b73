"""The ``cfr`` player at every kind of seat (the in-process dealer, an ACPC dealer over
TCP, an IRC table on a real IRC server), what it refuses, and that what it plays is the
strategy file's strategy."""
from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.config import TableConfig, load_config
from agent.engine.cfr_player import EquilibriumPlayer
from agent.engine.equilibrium import load_strategy
from agent.engine.heads_up import HeadsUpError, betting_string, spot_of
from agent.game.rules import Action
from agent.play.deals import Deal
from agent.play.offline.dealer import Dealer
from agent.play.offline.tournament import TournamentSetup, run_tournament
from agent.players import Player, create_player, known_kinds

HEADS_UP = TableConfig(seats=2, small_blind=5, big_blind=10, small_bet=10, big_bet=20, max_bets=4,
                       starting_stack=1000)


def test_cfr_and_lbr_are_registered_kinds():
    kinds = known_kinds()
    assert "cfr" in kinds and "lbr" in kinds
    assert set(kinds["lbr"].params["target"].choices) == {"cfr", "poki"}


def test_cfr_plays_a_duplicate_match_with_only_legal_moves(small_strategy):
    setup = TournamentSetup.from_text([f"cfr(strategy='{small_strategy}')", "random"], HEADS_UP, 5, chunk=20)
    result = run_tournament(setup, 40)
    assert result.invalid_actions == {}
    assert result.hand_chips.shape == (40, 2, 2)
    assert result.hand_chips.sum() == 0


class _Recorder(Player):
    """A cfr player that keeps, at each decision, the strategy's probabilities for its
    cards and what it chose."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.seen = []

    def act(self, ctx):
        spot = spot_of(self.inner.view.game, ctx, self.name)
        probs = self.inner.view.probabilities(spot.node, ctx.hole_cards, ctx.board)
        action = self.inner.act(ctx)
        self.seen.append((ctx.round, betting_string(ctx.history), tuple(probs), action))
        return action


@pytest.mark.slow
def test_its_actions_follow_the_strategy_files_probabilities(small_strategy):
    # The button's first action pre-flop, over many hands: the share of raises is the
    # mean of the strategy's raise probability over the cards it was dealt.
    player = _Recorder(EquilibriumPlayer("cfr", np.random.default_rng(1), small_strategy))
    other = create_player("call", np.random.default_rng(2), "call")
    dealer = Dealer(HEADS_UP)
    rng = np.random.default_rng(3)
    for h in range(600):
        dealer.play_hand([other, player], Deal.draw(rng, 2), button=1, hand_id=f"h{h}")
    first = [(p, a) for rnd, betting, p, a in player.seen if rnd == 0 and betting == ""]
    assert len(first) == 600
    expected = np.mean([p[-1] for p, _ in first])
    raised = np.mean([a == Action.BET_RAISE for _, a in first])
    assert abs(raised - expected) < 4 * np.sqrt(expected * (1 - expected) / 600) + 1e-9
    # And the probabilities are the file's for the holding's bucket.
    game = load_strategy(small_strategy).game
    hole = (ev.parse_card("As"), ev.parse_card("Ah"))
    seq = game.abstraction.sequence_of(hole, (), 0)
    assert seq == int(game.abstraction.preflop[ev.holding_index_of_cards(*hole)])


def test_cfr_refuses_tables_it_was_not_solved_for(small_strategy):
    three = dataclasses.replace(HEADS_UP, seats=3)
    players = [EquilibriumPlayer("cfr", np.random.default_rng(1), small_strategy),
               create_player("call", np.random.default_rng(2), "a"), create_player("call", np.random.default_rng(3), "b")]
    with pytest.raises(HeadsUpError, match="heads-up only: hand x has 3 players"):
        Dealer(three).play_hand(players, Deal.draw(np.random.default_rng(4), 3), button=2, hand_id="x")
    odd = dataclasses.replace(HEADS_UP, big_bet=30)
    players = [create_player("call", np.random.default_rng(2), "a"),
               EquilibriumPlayer("cfr", np.random.default_rng(1), small_strategy)]
    with pytest.raises(HeadsUpError, match="big bets of two small bets"):
        Dealer(odd).play_hand(players, Deal.draw(np.random.default_rng(4), 2), button=1, hand_id="y")


def test_cfr_at_an_acpc_dealer(small_strategy, tmp_path):
    # Our ACPC dealer in its own process, the cfr player through the protocol client.
    import os
    import subprocess
    import sys
    from pathlib import Path

    from agent.play.acpc.match import play_at_dealer
    from connectors.acpc.game import standard_game

    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=root)
    dealer = subprocess.Popen([sys.executable, "-m", "agent.cli", "acpc", "deal", "--players", "cfr", "bot",
                               "--seat", "bot=call", "--hands", "30", "--seed", "2", "--no-progress"],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(dealer.stdout.readline().split()[0])
        player = EquilibriumPlayer("cfr", np.random.default_rng(5), small_strategy)
        result = play_at_dealer("127.0.0.1", port, player, standard_game("holdem.limit.2p.reverse_blinds.game"),
                                match="t")
        out, err = dealer.communicate(timeout=60)
    finally:
        if dealer.poll() is None:
            dealer.kill()
            dealer.communicate()
    assert dealer.returncode == 0, err
    assert result.hands == 30
    assert result.stats.player_errors == 0 and result.stats.illegal == 0
    assert any(line.startswith("SCORE:") for line in out.splitlines())


def test_cfr_at_an_irc_table(small_strategy, tmp_path):
    # A real IRC server (miniircd), the dealer bot and two player bots, one of them cfr.
    from agent.play.irc.dealer import DealerHost
    from agent.play.irc.player import PlayerBot
    from connectors.irc.server import LoopbackServer

    config = load_config(None)
    irc = dataclasses.replace(config.irc, flood_lines_per_second=0.0, hand_pause_seconds=0.0,
                              reconnect_min_seconds=0.2, reconnect_max_seconds=2.0, action_seconds=20)
    config = dataclasses.replace(config, irc=irc)
    server = LoopbackServer().start()
    started = []
    try:
        host = DealerHost(server.address, ["#hu"], tmp_path / "dealer.sqlite", config, hands=8, seed=3,
                          log_dir=tmp_path / "logs", min_players=2)
        started.append(host.start())
        assert host.wait_tables(60)
        bots = {}
        for nick, spec in (("eq", f"cfr(strategy='{small_strategy}')"), ("caller", "call")):
            bots[nick] = PlayerBot(config, server=server.address, channels=["#hu"], dealer="dealer", spec=spec,
                                   nick=nick, db_path=None, seed=4)
            started.append(bots[nick].start())
        deadline = time.monotonic() + 180
        while not host.wait(0.25):
            assert time.monotonic() < deadline, "the IRC table did not finish 8 hands in 180 s"
        seat = bots["eq"].seats["#hu"]
        deadline = time.monotonic() + 30
        while seat.stats.hands < 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert seat.stats.hands == 8
        assert seat.stats.decisions > 0
        assert seat.stats.player_errors == 0 and seat.stats.late == 0 and seat.stats.illegal == 0
    finally:
        for thing in reversed(started):
            thing.stop()
        server.stop()
