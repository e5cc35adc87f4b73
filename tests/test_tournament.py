"""Duplicate tournaments: every player holds every deal's cards once, results and logs are
a function of the seed (not of the worker count), the statistics, and the rate-of-return
bot's win over always-call."""
from __future__ import annotations

import json
import math
from collections import defaultdict

import numpy as np
import pytest

from agent.cli import main
from agent.config import TableConfig
from agent.play.offline.tournament import TournamentSetup, deal_cards, run_tournament, seat_names
from agent.players import parse_spec
from connectors.logs.phh import parse_hands


def setup_for(specs, seed=1, **kw) -> TournamentSetup:
    return TournamentSetup.from_text(specs, TableConfig(seats=len(specs)), seed, **kw)


def logs(tmp_path, tag: str, setup: TournamentSetup, deals: int, workers: int = 1):
    acpc = tmp_path / f"{tag}.log"
    phh_dir = tmp_path / f"{tag}-phh"
    result = run_tournament(setup, deals, workers=workers, log_acpc=acpc, log_phh=phh_dir)
    files = {p.name: p.read_text() for p in sorted(phh_dir.iterdir())}
    return result, acpc.read_text(), files


@pytest.mark.parametrize("specs", [("rr(trials=200)", "call", "random"),
                                   ("call", "raise", "random", "call", "random", "raise")])
def test_every_player_holds_every_deal_once(tmp_path, specs) -> None:
    deals = 60
    setup = setup_for(specs, seed=3, chunk=25)
    result, _, files = logs(tmp_path, "dup", setup, deals)
    n = len(specs)
    # From the PHH logs: which cards each player was dealt in each hand of each deal.
    held = defaultdict(lambda: defaultdict(list))  # deal -> player -> holdings
    hands = 0
    for name, text in files.items():
        for hand in parse_hands(text, where=name):
            _, deal, rotation = hand.hand.split(":")
            dealt = [a.split() for a in hand.actions if a.startswith("d dh ")]
            for _, _, label, cards in dealt:
                held[int(deal)][hand.players[int(label[1:]) - 1]].append(cards)
            hands += 1
    assert hands == deals * n
    for deal in range(deals):
        cards = deal_cards(3, deal, n)
        expected = sorted("".join(f"{'23456789TJQKA'[c >> 2]}{'cdhs'[c & 3]}" for c in h)
                          for h in cards.holes)
        assert set(held[deal]) == set(result.names)
        for player, holdings in held[deal].items():
            assert sorted(holdings) == expected, (deal, player)
    # The result arrays say the same: each player sat in every seat of every deal once.
    for d in range(deals):
        for p in range(n):
            assert sorted(result.hand_seats[d, :, p]) == list(range(n))
    # Duplicate play of a zero-sum game: the chips of each deal sum to zero.
    assert not result.deal_chips.sum(axis=1).any()


def test_same_seed_same_logs_and_results_whatever_the_workers(tmp_path) -> None:
    specs = ("rr(trials=100)", "random", "loose-aggressive(trials=100)")
    setup = setup_for(specs, seed=8, chunk=10)
    one, acpc_one, phh_one = logs(tmp_path, "one", setup, 45)
    again, acpc_again, phh_again = logs(tmp_path, "again", setup, 45)
    two, acpc_two, phh_two = logs(tmp_path, "two", setup, 45, workers=2)
    assert acpc_one == acpc_again == acpc_two
    assert phh_one == phh_again == phh_two
    assert np.array_equal(one.hand_chips, two.hand_chips)
    assert np.array_equal(one.hand_seats, again.hand_seats)
    other, acpc_other, _ = logs(tmp_path, "other", setup_for(specs, seed=9, chunk=10), 45)
    assert acpc_other != acpc_one
    # The ACPC log numbers hands in play order.
    numbers = [int(line.split(":")[1]) for line in acpc_one.splitlines()
               if line.startswith("STATE:")]
    assert numbers == list(range(45 * 3))
    assert {row["hand"] for row in one.hand_rows()} == set(range(45 * 3))


def test_statistics_use_per_deal_results() -> None:
    setup = setup_for(("random", "call", "raise"), seed=2)
    result = run_tournament(setup, 80)
    rows = list(result.hand_rows())
    assert len(rows) == 80 * 3 * 3
    per_deal = defaultdict(float)
    for row in rows:
        if row["player"] == "random":
            per_deal[row["deal"]] += row["sb"] / 3
    values = np.array([per_deal[d] for d in range(80)])
    summary = {s.name: s for s in result.summary()}
    assert math.isclose(summary["random"].sb_per_hand, values.mean())
    assert math.isclose(summary["random"].ci95, 1.959963984540054 * values.std(ddof=1) / math.sqrt(80))
    assert summary["random"].hands == 240
    assert math.isclose(sum(s.sb_per_hand for s in summary.values()), 0, abs_tol=1e-9)
    data = result.to_json(hands=True)
    assert data["deals"] == 80 and len(data["hand_results"]) == len(rows)
    json.dumps(data)


def test_copies_of_a_spec_are_averaged_and_named_apart() -> None:
    specs = [parse_spec(s) for s in ("call", "call", "raise", "hero=rr(trials=100)")]
    assert seat_names(specs) == ("call-1", "call-2", "raise", "hero")
    result = run_tournament(TournamentSetup(tuple(specs), TableConfig(seats=4), 4), 30)
    groups = {s.name: s for s in result.by_spec()}
    assert set(groups) == {"call", "raise", "rr(trials=100)"}
    assert groups["call"].copies == 2 and groups["call"].hands == 2 * result.hands
    per_deal = result.per_deal_sb()
    assert math.isclose(groups["call"].sb_per_hand, per_deal[:, :2].mean())
    assert "by spec" in result.format_table()


def test_plain_play_moves_the_button_and_plays_each_deal_once(tmp_path) -> None:
    path = tmp_path / "plain.log"
    result = run_tournament(setup_for(("call", "random"), seed=5, duplicate=False), 40,
                            log_acpc=path)
    assert result.rotations == 1 and result.hands == 40
    assert result.hand_seats[:, 0, 0].tolist() == [0] * 40
    # ACPC lists the button last: it alternates between the two players.
    buttons = [line.rsplit("|", 1)[1] for line in path.read_text().splitlines()
               if line.startswith("STATE:")]
    assert buttons == ["call" if d % 2 == 0 else "random" for d in range(40)]


def test_rate_of_return_beats_always_call() -> None:
    """West's [west-2005] RR bot against a calling station, heads-up duplicate: the README's
    command is `poki match rr call --deals 1000 --seed 2001`."""
    result = run_tournament(setup_for(("rr", "call"), seed=2001), 1000)
    rr = {s.name: s for s in result.summary()}["rr"]
    print(f"\nrr vs call: {rr.sb_per_hand:+.3f} ± {rr.ci95:.3f} sb/hand over "
          f"{result.deals} deals ({result.hands} hands)")
    assert rr.low > 0


def test_match_command(tmp_path, capsys) -> None:
    csv_path = tmp_path / "hands.csv"
    code = main(["match", "rr(trials=100)", "call", "--deals", "20", "--seed", "3",
                 "--json", "--no-progress", "--csv", str(csv_path),
                 "--log-acpc", str(tmp_path / "m.log")])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["deals"] == 20 and data["seed"] == 3 and len(data["players"]) == 2
    assert csv_path.read_text().splitlines()[0] == "deal,rotation,hand,player,seat,chips,sb"
    assert main(["match", "call", "--no-progress"]) == 2
    assert main(["match", "call", "nosuchbot", "--no-progress"]) == 2
    assert "unknown player 'nosuchbot'" in capsys.readouterr().err
    assert main(["match", "--list"]) == 0
    assert "rr:" in capsys.readouterr().out
