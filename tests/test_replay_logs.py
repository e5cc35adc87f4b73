"""`poki replay` beyond the real IRC month: ACPC logs and PHH files written by our own
dealer replay to the payoffs the match reported; ACPC game definitions; bad input of
every format skipped with file, line and reason, or stopping the run with --strict; the
command line; the compact records the workers send."""
from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from agent.bench.synthetic import synthetic_hands
from agent.cli import main
from agent.config import TableConfig
from agent.game.events import HandStarted
from agent.game.rules import IRC_1995
from agent.play.offline.replay import ReplayOptions, decode_record, encode_record, replay
from agent.play.offline.tournament import TournamentSetup, run_tournament
from connectors.acpc.game import GameError, parse_game, standard_game
from connectors.logs.irc_database import IrcHand, read_irc_database
from connectors.logs.irc_events import irc_hand_events
from connectors.logs.sources import AcpcSettings, plan

DATASET = "irc-holdem-199504-dev"

ACPC_2P = """\
# the ACPC server's holdem.limit.2p.reverse_blinds.game
GAMEDEF
limit
numPlayers = 2
numRounds = 4
blind = 10 5
raiseSize = 10 10 20 20
firstPlayer = 2 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
END GAMEDEF
"""


from helpers.replay_logs import mini_month
from shared_data import DATA  # the shared 1995 logs (located in one place)

needs_data = pytest.mark.skipif(DATA is None, reason=f"the IRC hand logs ({DATASET}) are not there")


def rows(path: Path, sql: str, *args: object) -> list[tuple]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def payoffs_by_hand(path: Path, network: str) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for hand_id, nick, net in rows(path, "SELECT h.hand_id, p.name, r.won - r.put_in FROM results r "
                                         "JOIN hands h ON h.seq = r.hand JOIN players p ON p.id = r.player "
                                         "WHERE h.network = ?", network):
        out[hand_id][nick] = net
    return out


def play(tmp_path: Path, specs: tuple[str, ...], deals: int, seed: int, table: TableConfig | None = None):
    table = table or TableConfig(seats=len(specs))
    setup = TournamentSetup.from_text(specs, table, seed, chunk=25)
    log = tmp_path / "match.log"
    result = run_tournament(setup, deals, log_acpc=log, log_phh=tmp_path / "phh")
    expected = defaultdict(dict)  # hand number -> player -> chips
    by_deal = defaultdict(dict)  # (deal, rotation) -> player -> chips
    for row in result.hand_rows():
        expected[row["hand"]][row["player"]] = row["chips"]
        by_deal[(row["deal"], row["rotation"])][row["player"]] = row["chips"]
    return log, result, expected, by_deal


# --- our own dealer's logs --------------------------------------------------------------------


@pytest.mark.parametrize("specs", [("rr(trials=50)", "call"), ("random", "raise", "tight-aggressive(trials=50)")])
def test_acpc_and_phh_logs_of_our_dealer_replay_to_the_same_payoffs(tmp_path, specs) -> None:
    deals = 60
    log, result, expected, by_deal = play(tmp_path, specs, deals, seed=5)
    hands = deals * len(specs)
    db = tmp_path / "replay.sqlite"
    summary = replay([tmp_path], ReplayOptions(db_path=db, workers=2, chunk_hands=50))
    assert summary.skipped == 0, summary.examples
    assert summary.stored == 2 * hands and summary.hands == 2 * hands

    acpc = payoffs_by_hand(db, "acpc")
    assert len(acpc) == hands
    for hand_id, payoffs in acpc.items():
        number = int(hand_id.split(":")[2])  # acpc:<match>:<hand number>:<digest>
        assert payoffs == expected[number]
    phh = payoffs_by_hand(db, "phh")
    assert len(phh) == hands
    for hand_id, payoffs in phh.items():
        _, _, deal, rotation, _ = hand_id.split(":")  # phh:<match>:<deal>:<rotation>:<digest>
        assert payoffs == by_deal[(int(deal), int(rotation))]
    totals = dict(zip(result.names, result.deal_chips.sum(axis=0).tolist()))
    for network in ("acpc", "phh"):
        got = Counter()
        for payoffs in payoffs_by_hand(db, network).values():
            got.update(payoffs)
        assert {p: got[p] for p in totals} == totals

    again = replay([tmp_path], ReplayOptions(db_path=db, workers=1))
    assert again.stored == 0 and again.known == 2 * hands


def test_acpc_game_figures_from_a_file_beside_the_log_or_the_command_line(tmp_path) -> None:
    # A table with blinds 1/2 and bets 2/4: the dealer's log header still names the
    # standard game, so the figures must come from elsewhere.
    table = TableConfig(seats=2, small_blind=1, big_blind=2, small_bet=2, big_bet=4)
    log, _, expected, _ = play(tmp_path, ("rr(trials=50)", "raise"), 40, seed=8, table=table)
    header_game = log.read_text().split("\n", 1)[0].split()[3]
    assert header_game == "holdem.limit.2p.reverse_blinds.game"

    wrong = replay([log], ReplayOptions(db_path=tmp_path / "wrong.sqlite", workers=1))
    assert wrong.skipped > 0 and set(wrong.skipped_by_reason) <= {"result-mismatch", "illegal-action"}

    by_flags = replay([log], ReplayOptions(db_path=tmp_path / "flags.sqlite", workers=1, acpc=AcpcSettings(
        small_blind=1, big_blind=2, small_bet=2, big_bet=4, max_bets=4)))
    assert by_flags.skipped == 0 and by_flags.stored == 80

    (tmp_path / header_game).write_text(ACPC_2P.replace("blind = 10 5", "blind = 2 1")
                                        .replace("raiseSize = 10 10 20 20", "raiseSize = 2 2 4 4"))
    beside = replay([log], ReplayOptions(db_path=tmp_path / "beside.sqlite", workers=1))
    assert beside.skipped == 0 and beside.stored == 80
    for hand_id, payoffs in payoffs_by_hand(tmp_path / "beside.sqlite", "acpc").items():
        assert payoffs == expected[int(hand_id.split(":")[2])]


def test_acpc_game_definitions() -> None:
    assert parse_game(ACPC_2P, "2p.game") == standard_game("holdem.limit.2p.reverse_blinds.game")
    three = ACPC_2P.replace("numPlayers = 2", "numPlayers = 3").replace("blind = 10 5", "blind = 5 10 0") \
        .replace("firstPlayer = 2 1 1 1", "firstPlayer = 3 1 1 1")
    game = parse_game(three)
    assert (game.players, game.small_blind, game.big_blind, game.small_bet, game.big_bet, game.max_bets) == \
        (3, 5, 10, 10, 20, 4)
    assert standard_game("holdem.limit.3p.game") == game
    assert standard_game("holdem.nolimit.2p.reverse_blinds.game") is None
    for bad, why in ((ACPC_2P.replace("limit\n", "nolimit\n", 1), "only limit"),
                     (ACPC_2P.replace("raiseSize = 10 10 20 20", "raiseSize = 10 20 20 20"), "raiseSize"),
                     (ACPC_2P.replace("maxRaises = 3 4 4 4", "maxRaises = 3 3 4 4"), "maxRaises"),
                     (ACPC_2P.replace("numRounds = 4", "numRounds = 3"), "numRounds"),
                     (ACPC_2P.replace("blind = 10 5", "blind = 10"), "blind needs 2"),
                     (ACPC_2P.replace("firstPlayer = 2 1 1 1", "firstPlayer = 1 1 1 1"), "usual order"),
                     (ACPC_2P.replace("numBoardCards = 0 3 1 1", "numBoardCards = 0 3 1"), "numBoardCards"),
                     (ACPC_2P.replace("blind = 10 5", "blind = ten 5"), "whole numbers"),
                     ("limit\n", "outside GAMEDEF")):
        with pytest.raises(GameError, match=why):
            parse_game(bad, "g.game")


def test_an_acpc_log_with_no_game_to_be_found(tmp_path) -> None:
    log = tmp_path / "x.log"
    log.write_text("# name/game/hands/seed m mystery.game 1 1\n"
                   "STATE:0:cc/cc/cc/cc:AsKs|QsJs/2c3c4c/5c/6c:-20|20:a|b\n")
    summary = replay([log], ReplayOptions(db_path=tmp_path / "db.sqlite", workers=1))
    assert dict(summary.skipped_by_reason) == {"no-game-definition": 1}
    assert "mystery.game" in summary.problems[0].reason and summary.problems[0].where == f"{log}:2"


# --- bad input --------------------------------------------------------------------------------


def edit_line(path: Path, lineno: int, change) -> None:
    lines = path.read_text(encoding="latin-1").split("\n")
    lines[lineno - 1] = change(lines[lineno - 1])
    path.write_text("\n".join(lines), encoding="latin-1")


@pytest.fixture(scope="module")
def first_hands() -> list[IrcHand]:
    assert DATA is not None
    out = []
    for item in read_irc_database(DATA):
        if isinstance(item, IrcHand) and item.n_players >= 3 and any(p.hole_cards for p in item.players):
            out.append(item)
            if len(out) == 8:
                break
    return out


@needs_data
def test_bad_irc_logs_are_skipped_with_file_line_and_reason(tmp_path, first_hands) -> None:
    month = mini_month(tmp_path, first_hands)
    hdb = month / "hdb"
    # hand 2: a truncated hdb line; hand 3: an unknown board card; hand 4: a roster one
    # short (a wrong count); hand 5: a player's pdb line gone; hand 6: a bad action letter.
    edit_line(hdb, 2, lambda s: " ".join(s.split()[:5]))
    edit_line(hdb, 3, lambda s: " ".join(s.split()[:-1] + ["Xx"]))
    edit_line(month / "hroster", 4, lambda s: " ".join(s.split()[:-1]))
    gone = first_hands[4].players[0]
    (month / "pdb" / f"pdb.{gone.nick}").write_text("\n".join(
        line for line in (month / "pdb" / f"pdb.{gone.nick}").read_text(encoding="latin-1").split("\n")
        if str(first_hands[4].hand_id) not in line), encoding="latin-1")
    bad = first_hands[5].players[1]
    pdb = month / "pdb" / f"pdb.{bad.nick}"
    at = next(i for i, line in enumerate(pdb.read_text(encoding="latin-1").split("\n"), 1)
              if str(first_hands[5].hand_id) in line)
    edit_line(pdb, at, lambda s: s.replace(f" {s.split()[4]} ", " Z ", 1))

    db = tmp_path / "db.sqlite"
    summary = replay([tmp_path], ReplayOptions(db_path=db, workers=1))
    assert summary.hands == 8 and summary.stored == 3
    assert dict(summary.skipped_by_reason) == {"malformed": 2, "bad-card": 1, "incomplete": 1, "bad-letter": 1}
    where = {p.where: p.reason for p in summary.problems}
    assert "5 columns" in where[f"{hdb}:2"]
    assert "unknown card 'Xx'" in where[f"{hdb}:3"]
    assert "hroster line 4" in where[f"{hdb}:4"] and "a roster of" in where[f"{hdb}:4"]
    assert f"missing pdb for {gone.nick}" in where[f"{hdb}:5"]
    assert f"pdb.{bad.nick} line {at}" in where[f"{hdb}:6"] and "unknown action letter 'Z'" in where[f"{hdb}:6"]
    assert [r[0] for r in rows(db, "SELECT hand_id FROM hands ORDER BY seq")] == [
        f"irc:{h.hand_id}" for h in (first_hands[0], first_hands[6], first_hands[7])]

    # --strict: the first problem stops the run; the hand before it is stored.
    strict_db = tmp_path / "strict.sqlite"
    summary = replay([tmp_path], ReplayOptions(db_path=strict_db, workers=1, strict=True))
    assert summary.stopped is not None and summary.stopped.where == f"{hdb}:2"
    assert summary.stored == 1 and summary.skipped == 1
    assert rows(strict_db, "SELECT hand_id FROM hands") == [(f"irc:{first_hands[0].hand_id}",)]


@needs_data
def test_irc_events_start_with_the_nominal_blinds_and_the_1995_rules(first_hands) -> None:
    hand = first_hands[0]
    events = irc_hand_events(hand)
    assert events[0] == HandStarted(
        hand_id=f"irc:{hand.hand_id}", source=hand.source, players=tuple(p.nick for p in hand.players),
        stacks=tuple(p.bankroll for p in hand.players), button=hand.n_players - 1, small_blind=5, big_blind=10,
        small_bet=10, big_bet=20, max_bets=4, heads_up_reverse_blinds=False, started_at=float(hand.hand_id),
        free_folds=True, blinds=(5, 10) if hand.two_blinds else (10,), variant=IRC_1995)


def test_bad_acpc_and_phh_input_is_skipped_with_file_line_and_reason(tmp_path) -> None:
    log, _, _, _ = play(tmp_path, ("call", "raise", "random"), 10, seed=3)
    lines = log.read_text().split("\n")
    # line 2 truncated, line 3 an unknown card, line 4 a value missing (a wrong count),
    # line 5 a result the rules do not give, line 6 not a log line at all
    lines[1] = lines[1][: len(lines[1]) // 2]
    parts = lines[2].split(":")
    parts[3] = "Zz" + parts[3][2:]
    lines[2] = ":".join(parts)
    parts = lines[3].split(":")
    parts[4] = "|".join(parts[4].split("|")[:2])
    lines[3] = ":".join(parts)
    parts = lines[4].split(":")
    values = [int(v) for v in parts[4].split("|")]
    parts[4] = "|".join(str(v) for v in [values[0] + 10, values[1] - 10, values[2]])
    lines[4] = ":".join(parts)
    lines[5] = "HELLO WORLD"
    log.write_text("\n".join(lines))
    phhs = sorted((tmp_path / "phh").iterdir())[0]
    text = phhs.read_text()
    first_card = text.split("d dh p1 ", 1)[1][:2]
    text = text.replace(f"d dh p1 {first_card}", "d dh p1 Qx", 1)  # hand [1]: unknown card
    second = text.index("\n[2]\n")
    text = text[:second] + text[second:].replace("variant = 'FT'", "variant = 'NT'", 1)  # hand [2]: no-limit
    phhs.write_text(text)
    phh_line = {key: n for n, key in enumerate(text.split("\n"), 1) if key in ("[1]", "[2]")}

    summary = replay([tmp_path], ReplayOptions(db_path=tmp_path / "db.sqlite", workers=2, chunk_hands=7))
    assert summary.hands == 2 * 30  # the line replaced by garbage counts as a hand skipped
    where = {p.where: p for p in summary.problems}
    assert where[f"{log}:2"].category == "malformed"
    assert where[f"{log}:3"].category == "bad-card" and "'Zz' is not a card" in where[f"{log}:3"].reason
    assert where[f"{log}:4"].category == "malformed" and "2 values for 3 players" in where[f"{log}:4"].reason
    assert where[f"{log}:5"].category == "result-mismatch"
    assert where[f"{log}:6"].category == "malformed" and "not a STATE or SCORE line" in where[f"{log}:6"].reason
    assert where[f"{phhs}:{phh_line['[1]']}"].category == "bad-card"
    assert "not fixed-limit" in where[f"{phhs}:{phh_line['[2]']}"].reason
    assert summary.skipped == 7 and summary.stored == summary.hands - 7


# --- the command --------------------------------------------------------------------------------


def test_the_command(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    play(tmp_path, ("call", "raise"), 20, seed=4)
    (tmp_path / "config.toml").write_text('[database]\npath = "default.sqlite"\n')
    assert main(["replay", str(tmp_path), "--no-progress", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "stored: 80" in out and "hands/s:" in out and "skipped: 0" in out
    assert (tmp_path / "default.sqlite").is_file()  # [database] path
    assert main(["replay", str(tmp_path), "--no-progress", "--json", "--db", "default.sqlite"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stored"] == 0 and report["duplicates"] == 80 and report["hands"] == 80

    assert main(["replay", str(tmp_path / "nowhere"), "--no-progress"]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    notes = tmp_path / "notes.txt"
    notes.write_text("nothing to see\n")
    assert main(["replay", str(notes), "--no-progress", "--strict", "--db", "x.sqlite"]) == 1
    err = capsys.readouterr().err
    assert "stopped at the first problem" in err and f"{notes}:1" in err

    assert main(["replay", str(tmp_path), "--no-progress", "--predict", "--db", "p.sqlite",
                 "--min-hands", "10", "--skipped", "skipped.tsv"]) == 0
    out = capsys.readouterr().out
    assert "shadow scoring:" in out and "players with 10+ hands (4)"  # two players on two networks in out
    assert (tmp_path / "skipped.tsv").read_text() == ""


def test_plan_refuses_a_missing_path_and_reports_unknown_files(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="nowhere"):
        plan([tmp_path / "nowhere"])
    (tmp_path / "README.md").write_text("# notes\n")
    chunks, problems = plan([tmp_path])
    assert chunks == [] and problems == []  # files of no known format inside a folder are passed over
    chunks, problems = plan([tmp_path / "README.md"])
    assert chunks == [] and [p.category for p in problems] == ["unknown-format"]


def test_compact_records_decode_to_equal_records() -> None:
    for record in synthetic_hands(300, seed=4, min_players=2, max_players=10):
        assert decode_record(encode_record(record)) == record


def test_a_hand_the_database_refuses_is_counted_and_stops_a_strict_run(tmp_path) -> None:
    log, _, _, _ = play(tmp_path, ("call", "raise"), 5, seed=6)
    log.unlink()
    phhs = sorted((tmp_path / "phh").iterdir())[0]
    text = phhs.read_text()
    third = text.index("\n[3]\n")
    # A name the tracker takes but the database does not (blank): hand [3] only.
    text = text[:third] + text[third:].replace('players = ["call", "raise"]', 'players = [" ", "raise"]', 1)
    phhs.write_text(text)
    summary = replay([tmp_path], ReplayOptions(db_path=tmp_path / "db.sqlite", workers=1))
    assert summary.hands == 10 and summary.stored == 9 and dict(summary.skipped_by_reason) == {"rejected": 1}
    assert "empty player name" in summary.problems[0].reason
    strict = replay([tmp_path], ReplayOptions(db_path=tmp_path / "strict.sqlite", workers=1, strict=True))
    assert strict.stored == 2 and strict.stopped is not None and strict.stopped.category == "rejected"
