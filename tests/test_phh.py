"""PHH: every hand the dealer writes loads in PokerKit and replays to the same stacks and
payoffs, and reads back through our own reader and the tracker to the same record."""
from __future__ import annotations

import numpy as np
import pytest

from agent.config import TableConfig
from agent.game.tracker import Tracker
from agent.play.offline.dealer import HandLog, play_match
from agent.players import create_player
from connectors.logs.phh import (
    PhhError,
    format_hand,
    format_hands,
    hand_events,
    parse_hand,
    parse_hands,
)

from helpers.references import reference_package

pokerkit = reference_package("pokerkit")
from pokerkit import HandHistory  # after the reference package's skip above

SPECS = ("random", "call", "raise", "random(fold=0.2)", "rr(trials=100)", "tight-aggressive(trials=100)")
# Hands per table size, half with deep stacks, half short (all-ins and side pots).
HANDS = {2: 800, 3: 700, 6: 500, 10: 400}


def played(n: int, hands: int, starting_stack: int, seed: int):
    players = [create_player(SPECS[(k + seed) % len(SPECS)], np.random.default_rng([seed, k]),
                             name=f"player{k}") for k in range(n)]
    log = HandLog(phh=True)
    config = TableConfig(seats=n, starting_stack=starting_stack)
    result = play_match(players, config, hands, seed, log=log, keep_records=True,
                        reset_stacks=starting_stack >= 1000, source=f"phh{n}")
    return result.records, log.phh_hands


@pytest.mark.parametrize("n", sorted(HANDS))
def test_every_dealer_hand_replays_in_pokerkit(n: int) -> None:
    all_ins = side_pots = showdowns = 0
    for stack, seed in ((1000, n), (60, 100 + n)):
        records, hands = played(n, HANDS[n] // 2, stack, seed)
        assert len(hands) == len(records)
        for record, hand in zip(records, hands):
            text = format_hand(hand)
            history = HandHistory.loads(text)
            final = list(history)[-1]
            assert not final.status, (record.hand_id, text)
            assert list(final.stacks) == list(hand.finishing_stacks), (record.hand_id, text)
            payoffs = [f - s for f, s in zip(hand.finishing_stacks, hand.starting_stacks)]
            assert list(final.payoffs) == payoffs, (record.hand_id, text)
            ours = {r.player: r.won - r.put_in for r in record.results}
            assert payoffs == [ours[p] for p in hand.players]
            all_ins += any(a.all_in for a in record.actions)
            side_pots += len({r.put_in for r in record.results if r.won or r.put_in}) > 2
            showdowns += len(record.shown) > 1
        # A whole batch as one .phhs file loads too.
        assert len(list(HandHistory.loads_all(format_hands(hands[:50])))) == min(50, len(hands))
    assert all_ins > 10 and showdowns > 50
    if n > 2:
        assert side_pots > 5


@pytest.mark.parametrize("n", (2, 6))
def test_our_reader_replays_to_the_same_record(n: int) -> None:
    records, hands = played(n, 200, 60 if n == 6 else 1000, seed=5 + n)
    tracker = Tracker()
    for record, hand in zip(records, parse_hands(format_hands(hands), where="t.phhs")):
        replayed = tracker.apply_all(hand_events(hand, source=f"t.phhs {hand.hand}"))[0]
        replayed.check()
        assert replayed.hand_id == record.hand_id
        assert replayed.actions == record.actions
        assert replayed.board == record.board
        assert replayed.shown == record.shown
        # PHH lists players from the button's left; the dealer's record in seat order.
        assert set(replayed.results) == set(record.results)
        assert set(replayed.seats) == set(record.seats)


def test_pokerkit_output_reads_back() -> None:
    records, hands = played(3, 20, 1000, seed=3)
    tracker = Tracker()
    for record, hand in zip(records, hands):
        # PokerKit writes its own rendering of the same hand (quoting, no _max_bets).
        text = HandHistory.loads(format_hand(hand)).dumps()
        replayed = tracker.apply_all(hand_events(parse_hand(text), hand_id=record.hand_id))[0]
        assert set(replayed.results) == set(record.results)
        assert replayed.actions == record.actions


def test_bad_documents_name_the_problem() -> None:
    records, hands = played(2, 1, 1000, seed=1)
    good = format_hand(hands[0])
    cases = [
        (good.replace("variant = 'FT'", "variant = 'NT'"), "not fixed-limit"),
        (good.replace("antes = [0, 0]", "antes = [1, 1]"), "antes"),
        (good.replace("small_bet = 10", "small_bet = 0"), "small_bet"),
        ("variant = 'FT'\n", "missing"),
        ("variant = 'FT\n", "not valid TOML"),
    ]
    for text, words in cases:
        with pytest.raises(PhhError, match=words):
            parse_hand(text, where="bad.phh")
    hand = parse_hand(good)
    bad_action = hand.__class__(**{**{f: getattr(hand, f) for f in hand.__slots__},
                                   "actions": hand.actions + ("p3 cc",)})
    with pytest.raises(PhhError, match=r"action \d+: 'p3' is not a player p1..p2"):
        hand_events(bad_action, source="bad.phh")
    garbled = hand.__class__(**{**{f: getattr(hand, f) for f in hand.__slots__},
                                "actions": hand.actions[:2] + ("p1 xx",)})
    with pytest.raises(PhhError, match="cannot read 'p1 xx'"):
        hand_events(garbled, source="bad.phh")


def test_tournament_phh_files_load_in_pokerkit(tmp_path) -> None:
    from agent.play.offline.tournament import TournamentSetup, run_tournament

    setup = TournamentSetup.from_text(("rr(trials=100)", "random", "raise"), TableConfig(seats=3),
                                      seed=4, chunk=20)
    result = run_tournament(setup, 50, log_phh=tmp_path)
    files = sorted(tmp_path.glob("*.phhs"))
    assert len(files) == 3
    hands = 0
    for path in files:
        with open(path, "rb") as handle:
            for history in HandHistory.load_all(handle):
                final = list(history)[-1]
                assert list(final.stacks) == list(history.finishing_stacks)
                hands += 1
    assert hands == result.hands == 150
