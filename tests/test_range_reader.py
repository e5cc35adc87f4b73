"""The range reader (agent.engine.range_reader, issue 42): its reading checked against
rankings we did not write (eval7's evaluator, a seeded Monte Carlo of heads-up equity;
Sklansky and Malmuth's published starting-hand groups), that it learns nothing across
hands, its settings, its decision time, and short seeded duplicate matches against a
calling station and the `mc` bot, judged by the paired interval."""
from __future__ import annotations

import time

import numpy as np
import pytest

import evaluator_pyx as ev
from agent.config import TableConfig
from agent.engine.range_reader import FLOOR, RangeReader, reading_tables
from agent.game.context import GameContext
from agent.game.events import BoardDealt, HandStarted, HoleCards, PlayerActed
from agent.game.rules import Action
from agent.game.tracker import Tracker
from agent.play.kinds import ensure_kinds
from agent.play.offline.dealer import play_match
from agent.play.offline.tournament import TournamentSetup, run_tournament
from agent.players import SpecError, create_player, parse_spec
from evaluator_pyx.cards import parse_cards
from tests.helpers.references import reference_package

FOLD, CALL, RAISE = Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE
RANKS = "23456789TJQKA"


def context(hole: str, actions=(), seats: int = 2, viewer: str = "p0", hand: str = "h"):
    """A snapshot after the given actions, as ``viewer`` sees it (heads-up p0 is the big
    blind, p1 the button, who acts first pre-flop and last after the flop)."""
    names = tuple(f"p{k}" for k in range(seats))
    t = Tracker()
    t.apply(HandStarted(hand, "test", names, (1000,) * seats, seats - 1, 5, 10, 10, 20))
    t.apply(HoleCards(viewer, tuple(parse_cards(hole))))
    for a in actions:
        t.apply(BoardDealt(tuple(parse_cards(a))) if isinstance(a, str) else PlayerActed(None, a))
    return t.snapshot(viewer)


def reader(spec: str = "range-reader") -> RangeReader:
    ensure_kinds()
    player = create_player(spec, np.random.default_rng(0), name="p0")
    assert isinstance(player, RangeReader)
    return player


def class_of(holding: int) -> str:
    """'AKs', 'AKo' or 'AA' of a holding index."""
    a, b = ev.HOLDING_CARDS[holding]
    ra, rb = a >> 2, b >> 2
    if ra < rb:
        ra, rb = rb, ra
    if ra == rb:
        return RANKS[ra] * 2
    return RANKS[ra] + RANKS[rb] + ("s" if (a & 3) == (b & 3) else "o")


@pytest.fixture(scope="module")
def eval7_equity() -> dict[str, float]:
    """Heads-up equity against one random hand of each of the 169 starting-hand classes,
    by eval7's evaluator over 1,500 seeded random deals each (ties half)."""
    eval7 = reference_package("eval7")
    cards = [eval7.Card(ev.CARD_NAMES[c]) for c in range(52)]
    rng = np.random.default_rng(4242)
    out: dict[str, float] = {}
    for holding in range(ev.N_HOLDINGS):
        name = class_of(holding)
        if name in out:
            continue
        a, b = ev.HOLDING_CARDS[holding]
        rest = np.array([c for c in range(52) if c not in (a, b)])
        draws = rest[rng.random((1500, 50)).argsort(axis=1)[:, :7]]
        won = 0.0
        for row in draws.tolist():
            board = [cards[c] for c in row[2:]]
            ours = eval7.evaluate([cards[a], cards[b], *board])
            theirs = eval7.evaluate([cards[row[0]], cards[row[1]], *board])
            won += 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0
        out[name] = won / len(draws)
    return out


def kept_classes(table: np.ndarray) -> set[str]:
    """The classes whose live holdings all kept their weight (1: no action went against them)."""
    top = float(table.max())
    live = table > 0
    kept = {class_of(h) for h in range(ev.N_HOLDINGS) if live[h] and table[h] >= top * 0.999}
    dropped = {class_of(h) for h in range(ev.N_HOLDINGS) if live[h] and table[h] < top * 0.999}
    assert not kept & dropped, "a class is split: the ranking must treat a class's holdings alike"
    return kept


def combos(name: str) -> int:
    return 6 if len(name) == 2 else 4 if name.endswith("s") else 12


def top_share(equity: dict[str, float], share: float) -> set[str]:
    """The best classes by equity holding ``share`` of the 1326 holdings."""
    out: set[str] = set()
    total = 0
    for name in sorted(equity, key=equity.__getitem__, reverse=True):
        if total >= share * 1326:
            break
        out.add(name)
        total += combos(name)
    return out


def test_a_preflop_raise_keeps_the_top_share_by_eval7_equity(eval7_equity: dict[str, float]) -> None:
    """Heads-up, the button opens with a raise: the reader (tightest: the top 10%) keeps
    about the top 10% of holdings by eval7's heads-up equity and nothing far below it."""
    bot = reader("range-reader-tightest")
    share = reading_tables(1.0).raise_
    table = bot.ranges(context("7h2s", actions=(RAISE,)))["p1"]
    kept = kept_classes(table)
    kept_combos = sum(combos(c) for c in kept)
    assert abs(kept_combos / 1326 - share) < 0.02
    outside = top_share(eval7_equity, share)
    agree = sum(combos(c) for c in kept & outside)
    assert agree / kept_combos > 0.75, sorted(kept - outside)
    # Nothing kept outside eval7's top 20%, and eval7's top 5% all kept.
    assert kept <= top_share(eval7_equity, 2 * share), sorted(kept - top_share(eval7_equity, 2 * share))
    assert top_share(eval7_equity, share / 2) <= kept
    # The rest are read as what the raise table says they are not: weight × FLOOR.
    below = table[(table > 0) & (table < table.max())]
    assert below.size and np.allclose(below, FLOOR * table.max())


# Sklansky and Malmuth's starting-hand groups 1-2 and hands they leave out of all eight
# groups (Hold'em Poker for Advanced Players): a full-ring ranking, not ours.
SKLANSKY_TOP = ("AA", "KK", "QQ", "JJ", "AKs", "TT", "AQs", "AJs", "KQs", "AKo")
SKLANSKY_UNLISTED = ("72o", "83o", "94o", "T2o", "J3o", "Q4o", "62o", "52o")


def test_ten_seat_raise_and_call_tables_follow_a_published_ranking() -> None:
    """Ten seats: the first player opens with a raise, the next calls two bets; the raise
    table keeps Sklansky's groups 1-2 and none of his unlisted hands; the cold call keeps
    them too, the fold drops out of the reading."""
    bot = reader("range-reader-tightest")
    ctx = context("7h2s", actions=(RAISE, CALL, FOLD), seats=10, viewer="p0")
    ranges = bot.ranges(ctx)
    first, second, third = ctx.actions[2].player, ctx.actions[3].player, ctx.actions[4].player
    for player in (first, second):
        kept = kept_classes(ranges[player])
        assert set(SKLANSKY_TOP) <= kept, (player, set(SKLANSKY_TOP) - kept)
        assert not kept & set(SKLANSKY_UNLISTED), (player, kept & set(SKLANSKY_UNLISTED))
    # A cold call of a raise (the cold-call table) is read narrower than the open raise.
    assert len(kept_classes(ranges[second])) <= len(kept_classes(ranges[first])) + 3
    # A fold says nothing about the reading; a player yet to act keeps every live holding.
    assert len(kept_classes(ranges[third])) == 169
    assert len(kept_classes(ranges["p5"])) == 169


def test_a_bet_after_the_flop_narrows_toward_what_eval7_calls_strong() -> None:
    """Heads-up: the button limps, the big blind checks; on K♥9♣4♦ the big blind checks
    and the button bets. Every holding eval7 rates two pair or better stays at full
    weight, high-card holdings lose most of theirs, and a raise narrows further."""
    eval7 = reference_package("eval7")
    cards = [eval7.Card(ev.CARD_NAMES[c]) for c in range(52)]
    flop = "Kh9c4d"
    board = [cards[c] for c in parse_cards(flop)]
    bot = reader("range-reader-tightest")
    before = bot.ranges(context("2s3s", actions=(CALL, CALL, flop), hand="a"))["p1"].copy()
    after = bot.ranges(context("2s3s", actions=(CALL, CALL, flop, CALL, RAISE), hand="b"))["p1"]
    raised = bot.ranges(context("2s3s", actions=(CALL, CALL, flop, CALL, RAISE, RAISE, RAISE),
                                hand="c"))["p1"]
    kinds = np.array([eval7.handtype(eval7.evaluate([cards[a], cards[b], *board]))
                      for a, b in ev.HOLDING_CARDS])
    strong = np.isin(kinds, ["Two Pair", "Trips", "Straight", "Flush", "Full House", "Quads"]) & (before > 0)
    air = (kinds == "High Card") & (before > 0)
    assert strong.sum() > 20 and air.sum() > 200
    top_before, top_after = before.max(), after.max()
    # The pre-flop limp already lowered some strong holdings (a limp is not a raise);
    # the bet itself takes nothing from any of them.
    assert np.allclose(after[strong] / top_after, before[strong] / top_before)

    def share(table: np.ndarray, where: np.ndarray) -> float:
        return float(table[where].sum() / table.sum())

    assert share(after, air) < 0.5 * share(before, air)
    assert share(raised, air) < share(after, air)
    assert share(raised, strong) > share(after, strong) > share(before, strong)


def test_it_learns_nothing_across_hands() -> None:
    """After 60 hands against a maniac its reading and its decisions in a new hand are
    those of a reader that never played."""
    ensure_kinds()
    seasoned = reader()
    play_match([seasoned, create_player("raise", np.random.default_rng(1), name="p1")],
               TableConfig(seats=2), 60, 5)
    fresh = reader()
    for actions in ((RAISE,), (CALL, CALL, "Kh9c4d", CALL, RAISE), (CALL, CALL, "Kh9c4d", CALL, RAISE, CALL,
                                                                    "2d", CALL, RAISE)):
        ctx = context("AhTh", actions=actions, hand=f"new{len(actions)}")
        assert seasoned.act(ctx) == fresh.act(ctx)
        assert np.array_equal(seasoned.ranges(ctx)["p1"], fresh.ranges(ctx)["p1"])


def test_settings_presets_and_errors() -> None:
    ensure_kinds()
    assert parse_spec("range-reader").settings == {"tables": 0.5, "play": 0.45, "bet": 0.35, "raise": 0.55,
                                                   "call": 0.0}
    assert parse_spec("range-reader-tightest").settings["tables"] == 1.0
    assert parse_spec("range-reader-loosest").settings["tables"] == 0.0
    loose, tight = reading_tables(0.0), reading_tables(1.0)
    # Every table of the tightest keeps less than the loosest's.
    assert all(t < lo for t, lo in zip(tight, loose))
    assert str(parse_spec("range-reader(tables=0.2, bet=0.5)")) == "range-reader(tables=0.2, bet=0.5)"
    with pytest.raises(SpecError, match="tables"):
        parse_spec("range-reader(tables=1.5)")
    with pytest.raises(ValueError, match="must not exceed"):
        create_player("range-reader(bet=0.8, raise=0.6)", np.random.default_rng(0))
    assert "tables 0.5" in reader().describe()


def test_postflop_thresholds() -> None:
    """The nuts bets and raises; air checks, and folds to a bet whose pot odds it cannot
    beat; EHS between bet and raise calls a bet."""
    bot = reader()
    flop = "AhKhQh"
    assert bot.act(context("JhTh", actions=(CALL, CALL, flop), hand="n1")) == RAISE  # p0 first: bet
    assert bot.act(context("7c2d", actions=(CALL, CALL, flop), hand="n2")) == CALL  # a check
    assert bot.act(context("7c2d", actions=(CALL, CALL, flop, CALL, RAISE), hand="n3")) == FOLD
    assert bot.act(context("JhTh", actions=(CALL, CALL, flop, CALL, RAISE), hand="n4")) == RAISE


def test_decisions_take_a_few_milliseconds() -> None:
    """Ten seats: the median decision under 5 ms of CPU, the slowest (a flop's board
    strengths computed the first time) under 50 ms (CPU time: the machine may be loaded)."""
    ensure_kinds()
    times: list[float] = []

    class Timed(RangeReader):
        def act(self, ctx: GameContext) -> Action:
            start = time.process_time()
            action = super().act(ctx)
            times.append(time.process_time() - start)
            return action

    players = [Timed("r0", np.random.default_rng(0)), Timed("r1", np.random.default_rng(1))]
    players += [create_player(s, np.random.default_rng(k + 2), name=f"o{k}")
                for k, s in enumerate(["mc(trials=100)", "tight-aggressive(trials=100)", "call"] * 2 + ["call", "mc"])]
    play_match(players, TableConfig(seats=10), 30, 8)
    assert len(times) > 100
    assert float(np.median(times)) < 0.005
    assert max(times) < 0.05


def paired(result, a: str, b: str) -> tuple[float, float]:
    """Mean and 95% half-width of (spec a's copies) − (spec b's copies), by deal."""
    per_deal = result.per_deal_sb()
    specs = [s.kind for s in result.setup.specs]
    cols_a = [i for i, k in enumerate(specs) if k == a]
    cols_b = [i for i, k in enumerate(specs) if k == b]
    x = per_deal[:, cols_a].mean(axis=1) - per_deal[:, cols_b].mean(axis=1)
    return float(x.mean()), 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x))


def test_it_beats_a_calling_station_and_mc_in_a_seeded_duplicate_match() -> None:
    """Six seats {range reader, mc, call} ×2, 400 deals, every deal played in all six
    rotations: the reader's edge over each, paired by deal, with the interval's low end
    above zero."""
    setup = TournamentSetup.from_text(["range-reader", "mc(trials=200)", "call"] * 2, TableConfig(seats=6), 4242,
                                      chunk=100)
    result = run_tournament(setup, 400)
    over_call, ci_call = paired(result, "range-reader", "call")
    over_mc, ci_mc = paired(result, "range-reader", "mc")
    assert over_call - ci_call > 0, (over_call, ci_call)
    assert over_mc - ci_mc > 0, (over_mc, ci_mc)
