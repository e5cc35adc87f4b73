"""Pre-flop income rates: the shipped tables ([testbed-1998] §4.1's ends of the ranking, the
iterated tables loaded by default, what the file records), lookups, and the build:
seeded, independent of the number of workers, and the iteration's stopping rule."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import evaluator_pyx as ev
from agent.cli import main as poki
from agent.engine import income_rates as ir


@pytest.fixture(scope="module")
def shipped() -> dict:
    return json.loads(ir.DATA_PATH.read_text())


# --- the shipped tables -------------------------------------------------------------


def test_shipped_file_records_how_it_was_made(shipped):
    assert shipped["format"] == ir.FORMAT
    assert shipped["command"].startswith("poki tables build ")
    assert f"--seed={shipped['seed']}" in shipped["command"]
    assert f"--trials={shipped['trials_per_type']}" in shipped["command"]
    assert shipped["trials_per_type"] >= 1_000_000
    assert shipped["hand_types"] == list(ev.HAND_TYPE_NAMES)
    assert set(shipped["fields"]) == {"2", "3-4", "5+"}
    for label, opponents in ir.FIELDS.items():
        for kind in ir.KINDS:
            t = shipped["tables"][kind][label]
            assert t["players"] == opponents + 1
            assert len(t["ir"]) == len(t["stderr"]) == 169
            assert max(t["stderr"]) < 10.0     # milli-bets
        it = shipped["tables"]["iterated"][label]
        assert it["stopped"] in ("exact", "within noise")
        assert it["iterations"] == len(it["playing_per_iteration"])
        assert 0 < it["playing"] < 169


def test_aces_first_and_seven_deuce_last_in_the_big_field():
    # [testbed-1998] §4.1: "A pair of aces had the highest income rate; a 2 and 7 (of different
    # suits) had the lowest".
    rollout = ir.load_income_rates("roll-out")
    ranking = rollout.ranking(7)
    assert ranking[0] == "AA" and ranking[-1] == "72o"
    assert ir.load_income_rates("iterated").ranking(7)[0] == "AA"
    # Big pairs at the top of every table.
    for kind in ir.KINDS:
        for players in (2, 4, 7):
            assert ir.load_income_rates(kind).ranking(players)[:3] == ["AA", "KK", "QQ"]


def test_rollout_rates_match_the_definition():
    # Roll-out IR = 1000 * (players * share - 1): check a few against win_probability.
    rates = ir.load_income_rates("roll-out")
    for hand, players in (("AA", 7), ("72o", 7), ("AKs", 4), ("T9s", 2)):
        share = ev.win_probability(ir.representative_holding(ir.type_index(hand)), 0, players - 1, 300_000, 5)
        se = rates.stderr[ir.field_of_players(players)][ir.type_index(hand)]
        assert rates.rate(hand, players) == pytest.approx(1000 * (players * share - 1), abs=5 * se + 8)


def test_iterated_tables_are_the_default_and_differ_from_rollouts(shipped):
    default = ir.load_income_rates()
    assert default.kind == "iterated"
    assert default is ir.load_income_rates("iterated")           # cached
    for label in ir.FIELDS:
        assert default.rates[label].tolist() == shipped["tables"]["iterated"][label]["ir"]
    rollout = ir.load_income_rates("roll-out")
    # [poki-2002]: iterating removes the roll-out's bias toward multi-way hands and shows
    # domination: "increased value of large pairs and AK unsuited, diminished value of
    # KQ". In the big field AK offsuit climbs, KQ suited and the suited connectors fall.
    before, after = rollout.ranking(7), default.ranking(7)
    assert after.index("AKo") < before.index("AKo")
    for hand in ("KQs", "JTs", "T9s"):
        assert after.index(hand) > before.index(hand) + 3
    assert after[-1] == "72o"


def test_playing_set_is_where_the_iterated_rate_is_positive(shipped):
    for label in ir.FIELDS:
        t = shipped["tables"]["iterated"][label]
        assert t["playing"] == sum(x > 0 for x in t["ir"])
    # Fewer hands are worth playing in a bigger field.
    it = shipped["tables"]["iterated"]
    assert it["2"]["playing"] > it["3-4"]["playing"] > it["5+"]["playing"]


# --- lookups ------------------------------------------------------------------------


def test_field_of_players():
    assert [ir.field_of_players(n) for n in (2, 3, 4, 5, 10, 23)] == ["2", "3-4", "3-4", "5+", "5+", "5+"]
    assert ir.field_of_players("3-4") == "3-4"
    for bad in (1, "4"):
        with pytest.raises(ValueError):
            ir.field_of_players(bad)


def test_lookup_by_name_mask_cards_and_holding():
    rates = ir.load_income_rates()
    ak = rates.rate("AKs", 3)
    assert rates.rate("KAs", 3) == ak
    assert rates.rate("As Ks", 3) == ak
    assert rates.rate(ev.cards_to_mask("Kd Ad"), 4) == ak
    assert rates.rate((51, 47), 4) == ak                     # As Ks as card ints
    assert rates.rate("AKo", 3) == rates.rate("Ah Kc", 3) != ak
    assert rates.rate("TT", 9) == rates.table(9)[ev.HAND_TYPE_NAMES.index("TT")] == rates.rate("TT", "5+")
    by_holding = rates.holding_rates(6)
    assert by_holding.shape == (1326,)
    i = ev.holding_index(ev.cards_to_mask("7c 2d"))
    assert by_holding[i] == rates.rate("72o", 6)
    by_holding[i] = 0                                        # a copy: the table is untouched
    assert rates.rate("72o", 6) != 0
    for bad in ("AKx", "AAs", "XX", "A"):
        with pytest.raises(ValueError):
            rates.rate(bad, 2)


def test_load_errors(tmp_path):
    with pytest.raises(ir.IncomeRateError, match="poki tables build"):
        ir.load_income_rates(path=tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ir.IncomeRateError):
        ir.load_income_rates(path=bad)
    bad.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ir.IncomeRateError):
        ir.load_income_rates(path=bad)
    with pytest.raises(ValueError):
        ir.load_income_rates("sklansky")


# --- the build ----------------------------------------------------------------------

SMALL = dict(trials=3000, iteration_trials=1000, seed=7, max_iterations=6, noise=100.0, cooling=0.5,
             min_noise=20.0, fields={"2": 1, "5+": 6}, show_progress=False)


def test_build_is_seeded_and_independent_of_workers():
    a = ir.build_tables(workers=1, **SMALL)
    b = ir.build_tables(workers=2, **SMALL)
    for kind in ir.KINDS:
        assert a["tables"][kind] == b["tables"][kind]
    c = ir.build_tables(workers=2, **{**SMALL, "seed": 8})
    assert c["tables"]["roll-out"]["2"]["ir"] != a["tables"]["roll-out"]["2"]["ir"]


def test_iteration_stops_at_a_fixed_point_or_the_limit():
    start, _ = ir.rollout_table(6, 2000, 1)
    res = ir.iterated_table(6, start, 2000, 2000, 1, noise=50.0, cooling=0.5, min_noise=10.0, max_iterations=40)
    assert res.stopped in ("exact", "within noise")
    assert len(res.playing_history) == res.iterations
    # The noise cools as stated: 50, 25, 12.5, then off.
    assert res.noise_history[:4] == [50.0, 25.0, 12.5, 0.0]
    capped = ir.iterated_table(6, start, 2000, 2000, 1, noise=50.0, cooling=0.5, min_noise=10.0, max_iterations=2)
    assert capped.stopped == "max iterations" and capped.iterations == 2


def test_cli_build_and_show(tmp_path, capsys):
    out = tmp_path / "rates.json"
    code = poki(["tables", "build", "--trials", "2000", "--iteration-trials", "500", "--seed", "3",
                 "--max-iterations", "3", "--workers", "2", "--quiet", "--out", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["command"].startswith("poki tables build --trials=2000 --iteration-trials=500 --seed=3")
    assert data["seed"] == 3 and data["trials_per_type"] == 2000
    capsys.readouterr()
    assert poki(["tables", "show", "--file", str(out), "--field", "5+", "--kind", "roll-out", "--top", "2"]) == 0
    text = capsys.readouterr().out
    assert "roll-out, field 5+" in text and "AA" in text
    assert poki(["tables", "show", "--file", str(tmp_path / "none.json")]) == 1
    assert poki(["tables", "build", "--trials", "0", "--out", str(out)]) == 2


def test_shipped_show_lists_every_hand(capsys):
    assert poki(["tables", "show", "--kind", "iterated", "--field", "2"]) == 0
    lines = [l for l in capsys.readouterr().out.splitlines() if l.strip()[:3].strip().isdigit()]
    assert len(lines) == 169


def test_help_does_not_import_the_simulation():
    code = "import sys, agent.cli as c; c.build_parser(); print('agent.engine.income_rates' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False", result.stderr
