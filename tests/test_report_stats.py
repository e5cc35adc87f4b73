"""The report's statistics on hands built by hand, each with its answer worked out from the
rules of FPDB's definitions (and the corner cases: the big blind who checks, a
limp-raise, walks, all-ins before the flop, folds to a continuation bet), and on the real
April 1995 IRC games against a count made straight from the raw pdb letters."""
from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from pathlib import Path

import pytest

from agent.report.stats import (
    Factor,
    Figure,
    ReportDataError,
    StyleThresholds,
    compute,
    is_hero,
    style_label,
    wilson_interval,
)
from db.database import Database
from db.reads import open_readonly

from helpers.report import play
from helpers.tiers import full_tier
from shared_data import DATA


def stats_of(tmp_path: Path, records, **kwargs):
    path = tmp_path / "hands.sqlite"
    with Database(path) as db:
        report = db.write_hands(records, "test")
        assert report.stored == len(records), report
    conn = open_readonly(str(path))
    try:
        data = compute(conn, str(path), hero=kwargs.pop("hero", "nobody"), **kwargs)
    finally:
        conn.close()
    return {p.name: p for p in data.players}, data


def fig(p, key) -> tuple[int, int]:
    f = p.figures[key]
    return (f.done, f.n)


# a: small blind, b: big blind, c: first to act, d: button.
FOUR = "a:AsAd b:KsKd c:QsQd d:3c4d"


def test_the_big_blind_who_checks_is_not_vpip_and_the_small_blind_who_completes_is(tmp_path) -> None:
    h = play("limped", FOUR, "c:c d:f a:c b:k | a:k b:k c:k | a:k b:k c:k | a:k b:k c:k")
    s, _ = stats_of(tmp_path, [h])
    assert {n: fig(s[n], "vpip") for n in "abcd"} == {"a": (1, 1), "b": (0, 1), "c": (1, 1), "d": (0, 1)}
    assert all(fig(s[n], "pfr") == (0, 1) for n in "abcd")
    # Nobody raised: nobody faced exactly one raise.
    assert all(fig(s[n], "three_bet") == (0, 0) for n in "abcd")
    # a, b and c saw the flop and the showdown; a's aces won it.
    for n in "abc":
        assert fig(s[n], "wtsd") == (1, 1) and fig(s[n], "agg_freq") == (0, 3)
    assert fig(s["a"], "wsd") == (1, 1) and fig(s["b"], "wsd") == (0, 1) and fig(s["c"], "wwsf") == (0, 1)
    assert fig(s["d"], "wtsd") == (0, 0)
    # No pre-flop raise: no continuation bet possible.
    assert all(fig(s[n], "cbet") == (0, 0) for n in "abcd")


def test_a_limp_raise_is_a_pfr_and_a_3bet_and_its_flop_bet_a_continuation_bet(tmp_path) -> None:
    h = play("limp-raise", FOUR, "c:c d:r a:f b:f c:r d:c | c:b d:f")
    s, _ = stats_of(tmp_path, [h])
    assert fig(s["c"], "vpip") == (1, 1) and fig(s["c"], "pfr") == (1, 1)
    assert fig(s["d"], "pfr") == (1, 1)
    # d's raise made it two bets: a, b and c acted facing it; only c re-raised.
    assert {n: fig(s[n], "three_bet") for n in "abcd"} == {"a": (0, 1), "b": (0, 1), "c": (1, 1), "d": (0, 0)}
    # c made the last pre-flop raise and bet the flop first; d folded to it.
    assert fig(s["c"], "cbet") == (1, 1) and fig(s["d"], "cbet") == (0, 0)
    assert fig(s["d"], "fold_cbet") == (1, 1) and fig(s["c"], "fold_cbet") == (0, 0)
    assert fig(s["c"], "wtsd") == (0, 1) and fig(s["c"], "wwsf") == (1, 1)
    assert fig(s["d"], "wwsf") == (0, 1)
    assert fig(s["c"], "agg_flop") == (1, 1) and fig(s["d"], "agg_flop") == (0, 1)


def test_a_walk_gives_the_big_blind_no_vpip_opportunity(tmp_path) -> None:
    walk = play("walk", FOUR, "c:f d:f a:f")
    limped = play("limped", FOUR, "c:f d:f a:c b:k | a:k b:b a:f")
    s, _ = stats_of(tmp_path, [walk, limped])
    assert fig(s["b"], "vpip") == (0, 1)  # only the limped hand was a chance
    assert fig(s["b"], "pfr") == (0, 1)
    assert fig(s["a"], "vpip") == (1, 2)  # the small blind who folded had a chance
    assert s["b"].hands == 2
    # b's flop bet with no pre-flop raise is no continuation bet; a folded to a plain bet.
    assert fig(s["b"], "cbet") == (0, 0) and fig(s["a"], "fold_cbet") == (0, 0)


def test_a_player_all_in_before_the_flop_is_left_out_of_post_flop_figures(tmp_path) -> None:
    # x button, y small blind with 15 chips, z big blind.
    seats = "y:AsAd z:KsKd x:QsQd"
    h = play("all-in", seats, "x:r y:c z:c | z:k x:b z:f", stacks={"y": 15})
    assert any(a.all_in and a.player == "y" and a.round == 0 for a in h.actions)
    s, _ = stats_of(tmp_path, [h])
    assert fig(s["y"], "vpip") == (1, 1)
    # y went to showdown against x without a choice: not counted.
    assert fig(s["y"], "wtsd") == (0, 0) and fig(s["y"], "wsd") == (0, 0) and fig(s["y"], "agg_freq") == (0, 0)
    # x and z could still bet after the flop: their figures count.
    assert fig(s["x"], "cbet") == (1, 1) and fig(s["z"], "fold_cbet") == (1, 1)
    assert fig(s["x"], "wtsd") == (1, 1) and fig(s["z"], "wtsd") == (0, 1)
    assert fig(s["x"], "agg_freq") == (1, 3)  # bet the flop; turn and river with nobody to bet against


def test_when_everyone_else_is_all_in_nobody_has_post_flop_figures(tmp_path) -> None:
    seats = "y:AsAd z:KsKd x:QsQd"
    h = play("all-in-2", seats, "x:r y:c z:f", stacks={"y": 15})
    s, _ = stats_of(tmp_path, [h])
    for n in "xyz":
        assert fig(s[n], "wtsd") == (0, 0) and fig(s[n], "cbet") == (0, 0) and fig(s[n], "agg_freq") == (0, 0)
    assert fig(s["x"], "pfr") == (1, 1) and fig(s["y"], "three_bet") == (0, 1)


def test_a_player_who_quits_sees_no_flop_and_no_showdown(tmp_path) -> None:
    # d quits before acting, c on the turn; quits are no actions in the record.
    h = play("quits", FOUR, "d:Q c:c a:c b:k | a:k b:k c:k | a:k b:k c:Q | a:k b:k")
    assert not any(a.player == "d" for a in h.actions)
    s, _ = stats_of(tmp_path, [h])
    assert fig(s["d"], "vpip") == (0, 1) and fig(s["d"], "agg_freq") == (0, 0) and fig(s["d"], "wtsd") == (0, 0)
    # c saw the flop and the turn, left before acting on the turn: no turn, no showdown.
    assert fig(s["c"], "agg_flop") == (0, 1) and fig(s["c"], "agg_turn") == (0, 0) and fig(s["c"], "wtsd") == (0, 1)
    assert fig(s["a"], "wtsd") == (1, 1) and fig(s["b"], "wtsd") == (1, 1)
    assert fig(s["a"], "agg_freq") == (0, 3)


def test_aggression_factor_counts_bets_and_raises_over_calls_after_the_flop(tmp_path) -> None:
    # Pre-flop calls and raises do not count; post-flop: a bets, b raises, a calls, ...
    h = play("af", "a:AsAd b:KsKd", "a:c b:r a:c | b:b a:r b:r a:c | b:b a:c | b:k a:k", button=0)
    s, _ = stats_of(tmp_path, [h])
    assert (s["a"].af.aggressive, s["a"].af.calls) == (1, 2)
    assert (s["b"].af.aggressive, s["b"].af.calls) == (3, 0)
    assert s["b"].af.value is None  # no calls: no number, never "infinite"
    assert s["a"].af.value == pytest.approx(0.5)
    assert fig(s["b"], "agg_freq") == (2, 3) and fig(s["b"], "agg_river") == (0, 1)
    # Heads-up the button is the small blind and raises first: a limp, b raises, a calls.
    assert fig(s["b"], "pfr") == (1, 1) and fig(s["a"], "three_bet") == (0, 1)
    assert fig(s["b"], "cbet") == (1, 1) and fig(s["a"], "fold_cbet") == (0, 1)


def test_results_against_us_are_what_moved_between_us_and_them(tmp_path) -> None:
    h1 = play("r1", "a:AsAd b:KsKd poki:QsQd", "poki:c a:c b:k | a:k b:k poki:k | a:k b:k poki:k | a:k b:k poki:k")
    h2 = play("r2", "a:AsAd b:KsKd c:QsQd", "c:f a:c b:k | a:k b:k | a:k b:k | a:k b:k")
    s, data = stats_of(tmp_path, [h1, h2], hero="POKI*")
    assert data.heroes == ["poki"] and "poki" not in s
    # poki put in 10 chips and lost them to a's aces: -1 small bet against a, in the one
    # hand shared with a and b; b lost too, to a, so nothing moved between poki and b.
    assert s["a"].vs_us.n == 1 and s["a"].vs_us.value == pytest.approx(-1.0)
    assert s["b"].vs_us.n == 1 and s["b"].vs_us.value == pytest.approx(0.0)
    assert s["c"].vs_us is None


def test_filters_and_player_limit(tmp_path) -> None:
    hands = [play(f"h{i}", FOUR, "c:c d:f a:c b:k | a:k b:k c:k | a:k b:k c:k | a:k b:k c:k") for i in range(3)]
    s, data = stats_of(tmp_path, hands, players=2)
    assert len(data.players) == 2 and data.opponents_total == 4
    s, data = stats_of(tmp_path / "x" if (tmp_path / "x").mkdir() is None else tmp_path, hands, network="other")
    assert data.hands == 0 and data.players == []


def test_wilson_interval_and_labels() -> None:
    # Known values: 0 of 10 -> [0, 0.2775]; 5 of 10 -> [0.2366, 0.7634].
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert Figure(0, 0).value is None and Figure(0, 0).interval == (0.0, 1.0)
    assert Factor(3, 0).interval[1] is None and Factor(3, 0).value is None
    t = StyleThresholds(loose_vpip=0.3, aggressive_af=1.5, min_hands=50, min_sample=20)
    assert style_label(Figure(40, 100), Factor(40, 20), t) == "loose-aggressive"
    assert style_label(Figure(10, 100), Factor(10, 20), t) == "tight-passive"
    assert style_label(Figure(10, 40), Factor(10, 20), t) == "unknown"
    assert is_hero("Poki-3", "poki*") and is_hero("bob", "alice, bob") and not is_hero("pokey", "poki*")


def test_a_missing_or_foreign_file_is_a_clear_error(tmp_path) -> None:
    with pytest.raises(ReportDataError, match="no database at"):
        open_readonly(str(tmp_path / "missing.sqlite"))
    (tmp_path / "text.sqlite").write_text("not a database at all\n" * 100)
    with pytest.raises(ReportDataError, match="text.sqlite"):
        open_readonly(str(tmp_path / "text.sqlite"))
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE songs (title TEXT)")
    with pytest.raises(ReportDataError, match="not a Poki database"):
        open_readonly(str(other))


# ------------------------------------------------------------------- the real 1995 games


@pytest.fixture(scope="module")
@full_tier
def irc_db(tmp_path_factory) -> Path:
    if DATA is None:
        pytest.skip("the shared IRC logs are not here")
    from agent.cli import main

    path = tmp_path_factory.mktemp("irc") / "irc.sqlite"
    assert main(["replay", str(DATA), "--db", str(path), "--no-progress"]) == 0
    return path


def _raw_pdb_counts(data: Path, hand_ids: set[int]) -> dict[str, list[int]]:
    """VPIP and PFR straight from the pdb files' pre-flop letters (column 5): a player
    put money in voluntarily if the letters hold a call, bet or raise (c, b, r), raised if
    they hold b or r; every hand dealt is a chance except, in a walk (no one at the table
    called, bet or raised), that of the big blind: of the players whose letters start with
    the blind B, the one latest in the dealing order (the only one when one blind was
    posted)."""
    month = next((data / "holdem").iterdir())
    lines_by_hand: dict[int, list[tuple[str, int, str]]] = defaultdict(list)
    for pdb in (month / "pdb").iterdir():
        for line in pdb.read_text(encoding="latin-1").splitlines():
            f = line.split()
            if len(f) < 11:
                continue
            try:
                ts, pos = int(f[1]), int(f[3])
            except ValueError:
                continue
            if ts in hand_ids:
                lines_by_hand[ts].append((f[0], pos, f[4]))
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # vpip, pfr, chances
    for lines in lines_by_hand.values():
        walk = not any(ch in "cbr" for _, _, letters in lines for ch in letters)
        posters = sorted((pos, nick) for nick, pos, letters in lines if letters.startswith("B"))
        big_blind = posters[-1][1] if posters else None
        for nick, _pos, letters in lines:
            if walk and nick == big_blind:
                continue
            c = counts[nick]
            c[2] += 1
            c[0] += any(ch in "cbr" for ch in letters)
            c[1] += any(ch in "br" for ch in letters)
    return counts


def test_vpip_and_pfr_of_the_most_seen_players_agree_with_the_raw_pdb_letters(irc_db) -> None:
    conn = open_readonly(str(irc_db))
    try:
        data = compute(conn, str(irc_db), players=10)
        stored = {int(h.split(":")[1]) for (h,) in conn.execute("SELECT hand_id FROM hands")}
    finally:
        conn.close()
    raw = _raw_pdb_counts(DATA, stored)
    assert len(data.players) == 10
    for p in data.players:
        vpip, pfr, chances = raw[p.name]
        assert (p.figures["vpip"].done, p.figures["vpip"].n) == (vpip, chances), p.name
        assert (p.figures["pfr"].done, p.figures["pfr"].n) == (pfr, chances), p.name
        assert p.hands >= chances and p.figures["vpip"].n > 500
        assert 0.05 < p.figures["vpip"].value < 0.8 and not math.isnan(p.figures["pfr"].value)


def test_since_keeps_the_hands_started_from_then_on(tmp_path) -> None:
    from agent.bench.synthetic import synthetic_hands

    hands = list(synthetic_hands(400, seed=9, pool=12))
    times = sorted(h.started_at for h in hands)
    since = times[len(times) // 2]
    later = [h for h in hands if h.started_at >= since]
    s, data = stats_of(tmp_path, hands, since=since)
    assert data.hands == len(later) < len(hands)
    dealt: dict[str, int] = defaultdict(int)
    for h in later:
        for seat in h.seats:
            dealt[seat.player] += 1
    assert {n: p.hands for n, p in s.items()} == dict(dealt)


def test_the_page_of_the_whole_1995_database_in_a_real_browser(irc_db, tmp_path, browser) -> None:
    import json

    from agent.cli import main

    out = tmp_path / "report"
    assert main(["report", "--db", str(irc_db), "--out", str(out), "--no-progress"]) == 0
    data = json.loads((out / "report.json").read_text())
    assert data["heroes_found"] == [] and len(data["players"]) == data["opponents_total"] > 500
    browser.open(out / "index.html")
    assert browser.js("document.querySelectorAll('#opponents tbody tr').length") == len(data["players"])
    assert browser.js("document.getElementById('no-hero') !== null")
    assert browser.js("document.querySelectorAll('svg.chart').length") == 15
    col = browser.js("Array.from(document.querySelectorAll('#opponents th')).map(t => t.textContent.trim())").index("WTSD")
    browser.js(f"document.querySelectorAll('#opponents th button')[{col}].click()")
    got = browser.js(f"Array.from(document.querySelectorAll('#opponents tbody tr')).map(r => r.cells[{col}].getAttribute('data-v'))")
    values = [float(v) for v in got if v]
    assert values == sorted(values, reverse=True) and len(values) == sum(
        p["wtsd"]["value"] is not None for p in data["players"])
    assert browser.errors == []


def test_style_labels_recognise_the_house_bots_built_to_each_style(tmp_path) -> None:
    import json

    from agent.cli import main

    styles = ["tight-aggressive", "tight-passive", "loose-aggressive", "loose-passive"]
    assert main(["match", *styles, "--deals", "60", "--seed", "3", "--log-phh", str(tmp_path / "phh"),
                 "--no-progress"]) == 0
    assert main(["replay", str(tmp_path / "phh"), "--db", str(tmp_path / "db.sqlite"), "--no-progress"]) == 0
    assert main(["report", "--db", str(tmp_path / "db.sqlite"), "--out", str(tmp_path / "r"), "--charts", "0",
                 "--no-progress"]) == 0
    data = json.loads((tmp_path / "r" / "report.json").read_text())
    assert {p["player"]: p["style"] for p in data["players"]} == {s: s for s in styles}


def test_the_report_reads_through_the_databases_read_api() -> None:
    """No SQL in the report: what it reads comes from db.reads, beside the schema."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "agent" / "report"
    for path in root.glob("*.py"):
        text = path.read_text()
        for word in ("SELECT ", "execute(", "import sqlite3"):
            assert word not in text, f"{path.name} holds {word!r}"
