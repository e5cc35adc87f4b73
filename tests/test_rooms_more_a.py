"""Six more rooms' fixed-limit hold'em hand histories replayed as a user would: the real
files of ../shared/data/fpdb-lhe-more (FPDB's regression files) of Cake, Bovada (its old
and new formats), Winamax, Pacific Poker/888, Winning Poker and Seals With Clubs (mBTC),
and a hand-written case of each room's hardest hand (tests/room_cases_more_a).

Every hand is stored whole (chips conserved with the rake, again and again as the same
hand); the results are checked against what the rooms printed, and the two Cake files
against FPDB's .hp expectations (every player's profit, and the statistics flags as
tests/test_report_fpdb.py compares them for the six rooms read before).
"""
from __future__ import annotations

import ast
import dataclasses
import sqlite3
from pathlib import Path

import pytest
from room_files import hand_records
from test_report_fpdb import SAME, _ours

from agent.cli import main
from agent.game.tracker import Tracker, TrackerError
from agent.play.offline.replay import ReplayOptions, replay
from agent.report.stats import _C
from connectors.logs import bovada, cake, pacific, rooms, seals, winamax, winning
from connectors.logs.sources import ROOM_READERS, plan

from shared_data import FPDB_LHE

# Beside ../shared/data/fpdb-lhe (a folder that is not there when the shared data is not).
MORE = (FPDB_LHE.parent if FPDB_LHE is not None else Path(__file__).parent / "no-shared-data") / "fpdb-lhe-more"
needs_more = pytest.mark.skipif(not (MORE / "README.md").is_file(), reason="../shared/data/fpdb-lhe-more is not here")
CASES = Path(__file__).resolve().parent / "room_cases_more_a"
# The room folders read here, and the hands each holds that the reader stores.
FOLDERS = {"Cake": ("cake", 3), "Bovada": ("bovada", 362), "Winamax": ("winamax", 1), "PacificPoker": ("888", 1),
           "Winning": ("winning", 1), "SealsWithClubs": ("swc", 1)}
# Bovada's old-format file holds one hand whose summary is another hand's (four-card
# holdings, another board): refused, named, not stored.
BOVADA_BROKEN = "LHE-USD-8-16-201204.old.format.txt:7822"



@pytest.fixture(scope="module")
def more_db(tmp_path_factory) -> Path:
    if not (MORE / "README.md").is_file():
        pytest.skip("../shared/data/fpdb-lhe-more is not here")
    path = tmp_path_factory.mktemp("more") / "more.sqlite"
    summary = replay([MORE / folder for folder in FOLDERS], ReplayOptions(db_path=path, workers=1))
    (problem,) = summary.problems
    assert problem.where.endswith(BOVADA_BROKEN)
    assert "the board written, Ad 3d 7h Qc 4d, is not the board the hand dealt, 3d Qs Qc Kh 7d" in problem.reason
    return path


@needs_more
def test_every_hand_of_the_six_rooms_is_stored_whole_and_once(more_db) -> None:
    with sqlite3.connect(more_db) as conn:
        by_room = dict(conn.execute("SELECT network, count(*) FROM hands GROUP BY network"))
        off = conn.execute("""SELECT h.hand_id FROM hands h JOIN results r ON r.hand = h.seq GROUP BY h.seq
                              HAVING sum(r.put_in) != sum(r.won) + h.rake OR sum(r.put_in) != h.pot""").fetchall()
        heroes = conn.execute("SELECT count(*) FROM hands WHERE hero IS NOT NULL").fetchone()[0]
    assert by_room == dict(FOLDERS.values())
    assert off == []
    # Every hand names its hero but the three of Bovada's where the hero sat out and 888's (no "Dealt to").
    assert heroes == sum(n for _, n in FOLDERS.values()) - 4
    assert main(["db", "check", "--db", str(more_db)]) == 0
    again = replay([MORE / folder for folder in FOLDERS], ReplayOptions(db_path=more_db, workers=1))
    assert (again.stored, again.duplicates) == (0, sum(n for _, n in FOLDERS.values()))


@needs_more
@pytest.mark.parametrize("folder", [f for f in FOLDERS if f != "Bovada"])
def test_a_strict_replay_of_each_room_stores_every_hand(folder, tmp_path) -> None:
    db = tmp_path / "room.sqlite"
    assert main(["replay", str(MORE / folder), "--strict", "--db", str(db), "--no-progress", "--workers", "1"]) == 0
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT network, count(*) FROM hands").fetchone() == FOLDERS[folder]


@needs_more
def test_each_file_is_recognised_as_its_room() -> None:
    chunks, problems = plan([MORE / folder for folder in FOLDERS])
    assert problems == []
    assert {c.name for c in chunks} == {network for network, _ in FOLDERS.values()}


@needs_more
def test_each_rooms_hand_agrees_with_what_the_room_printed(more_db) -> None:
    with sqlite3.connect(more_db) as conn:
        def hand(number: str) -> dict:
            seq, rake, board, hero, sb, bb, small, big = conn.execute(
                "SELECT h.seq, h.rake, h.board, p.name, h.small_blind, h.big_blind, h.small_bet, h.big_bet"
                " FROM hands h LEFT JOIN players p ON p.id = h.hero WHERE h.hand_id LIKE ?",
                (number + ":%",)).fetchone()
            rows = conn.execute("SELECT p.name, r.put_in, r.won FROM results r JOIN players p ON p.id = r.player"
                                " WHERE r.hand = ?", (seq,)).fetchall()
            shown = dict(conn.execute("SELECT p.name, s.cards FROM showdowns s JOIN players p ON p.id = s.player"
                                      " WHERE s.hand = ?", (seq,)).fetchall())
            return {"rake": rake, "board": board, "hero": hero, "stakes": (sb, bb, small, big),
                    "net": {n: w - p for n, p, w in rows}, "won": {n: w for n, _, w in rows}, "shown": shown}

        # Cake: $5/$10, a comma for the cents; Player0 wins $50.50 of a $52.50 pot (and his uncalled $10).
        h = hand("cake:2998011673000397")
        assert h["stakes"] == (250, 500, 500, 1000) and h["rake"] == 200 and h["won"]["Player0"] == 6050
        assert h["net"] == {"Hero": -2500, "Player0": 5050 - 2500, "Player1": 0, "Player2": 0, "Player3": -250}
        # Cake: a split pot after an all-in for $0.07 more ("is all in"), the rake $0.04.
        h = hand("cake:2589013774000163")
        assert h["net"] == {"Vill***1": 0, "Hero": 0, "Play***3": -4} and h["rake"] == 4
        assert h["shown"] == {"Vill***1": "7h 5c", "Hero": "7c 5h"}
        # Bovada, new format: a big blind all-in for the full $8, a side pot of $158.27 and
        # a main pot of $23.73 to the Dealer; the $2 rake is not written.
        h = hand("bovada:2725384529")
        assert h["won"]["Dealer"] == 18200 and h["rake"] == 200 and h["net"]["Big Blind"] == -800
        assert h["hero"] == "Small Blind" and h["shown"]["Dealer"] == "Kh Qc"
        # Bovada heads-up: the big blind all-in for $15 of $30: nobody acts, the Dealer wins $30.
        h = hand("bovada:2667379227")
        assert h["net"] == {"Dealer": 1500, "Big Blind": -1500} and h["stakes"][2:] == (3000, 6000)
        # Bovada: a dead chip of $30 ($20 live), and the flop line missing: the flop's bet and
        # fold are read on the flop, dealt from the summary's board.
        h = hand("bovada:2599656336")
        assert h["board"] == "Kd 9s 5c" and h["rake"] == 300 and h["net"]["UTG+3"] == -5000
        # Bovada, old format: a walk, the big blind's $12 result holds his own blind.
        assert hand("bovada:2596780411")["net"]["Big Blind"] == 400
        # Winamax: what Player0 collected ($0.19) holds the bet nobody called.
        h = hand("winamax:2769259-665-1335035306")
        assert h["net"] == {"Hero": -5, "Player0": 4} and h["rake"] == 1 and h["stakes"] == (2, 5, 5, 10)
        # 888: a big blind all-in with his raise, the main pot to him, the side pot to wanagu22.
        h = hand("888:311162661")
        assert h["won"] == {"Barrydos": 0, "wanagu22": 36, "SkiNNeR14": 16, "pokergallo": 0} and h["rake"] == 2
        assert h["stakes"] == (1, 2, 2, 4)
        # Winning: the hero's cards dealt a line a card; the uncalled $2 given back.
        h = hand("winning:693968595")
        assert h["hero"] == "ChazDazzle" and h["net"] == {"ChazDazzle": -400, "only_luck": 385}
        # Seals With Clubs: mBTC, the rake written after the pot.
        h = hand("swc:6340502-110")
        assert h["net"] == {"Player0": -600, "Hero": 570} and h["rake"] == 30 and h["stakes"] == (100, 200, 200, 400)


@needs_more
def test_the_rooms_currencies_stakes_and_heroes() -> None:
    def first(reader, path: Path) -> rooms.RoomHand:
        text = rooms.decode(path.read_bytes())
        line, body = reader.split_hands(text)[0]
        return reader.parse_hand(body, f"{path}:{line}")

    assert first(seals, next((MORE / "SealsWithClubs").glob("*.txt"))).currency == "mBTC"
    assert first(winamax, next((MORE / "Winamax").glob("*.txt"))).currency == "EUR"
    assert first(pacific, next((MORE / "PacificPoker").glob("*.txt"))).currency == "USD"
    hand = first(cake, MORE / "Cake" / "LHE-FR-0.02-0.04-201105.All-in.txt")
    # 10:37:17 ET is 14:37:17 UTC (FPDB's .hands says so).
    assert hand.currency == "USD" and hand.started_at == 1304865437.0
    hand = first(bovada, MORE / "Bovada" / "LHE-9max-USD - $20-$40 - 201204.limit.blinds.txt")
    assert hand.hero == "UTG" and (hand.small_bet, hand.big_bet) == (2000, 4000)
    assert first(winning, next((MORE / "Winning").glob("*.txt"))).holes["ChazDazzle"]


# ------------------------------------------------------------------------ FPDB's .hp for Cake

# Differences of definition or reading: (file, player, FPDB flag) -> why (none so far).
DIFFERENT: dict[tuple[str, str, str], str] = {}


@needs_more
def test_cake_flags_and_profits_are_fpdbs() -> None:
    seen = set()
    compared = 0
    for hp in sorted((MORE / "Cake").glob("*.hp")):
        expected = ast.literal_eval(hp.read_text())
        (record,) = hand_records(hp.with_suffix(""))
        ids, flags, pos = _ours(record)
        for player, fp in expected.items():
            result = next(r for r in record.results if r.player == player)
            assert result.won - result.put_in == fp["totalProfit"], (hp.name, player)
            f = flags[ids[player]]
            # Positions (S, B, or seats back from the button) and steals, as for the six rooms.
            assert str(fp["position"]) == str(pos[ids[player]]), (hp.name, player)
            steal_chance = fp["raiseFirstInChance"] and str(fp["position"]) in ("0", "1", "S")
            assert bool(steal_chance) == bool(f[_C["st_opp"]]), (hp.name, player)
            assert bool(steal_chance and fp["raisedFirstIn"]) == bool(f[_C["st"]]), (hp.name, player)
            assert bool(fp["foldBbToStealChance"] or fp["foldSbToStealChance"]) == bool(f[_C["fst_opp"]])
            assert bool(fp["foldedBbToSteal"] or fp["foldedSbToSteal"]) == bool(f[_C["fst"]])
            for flag, column in SAME.items():
                key = (hp.with_suffix("").name, player, flag)
                if bool(fp[flag]) != bool(f[_C[column]]):
                    assert key in DIFFERENT, f"{key}: FPDB {fp[flag]}, ours {column}={f[_C[column]]}"
                    seen.add(key)
                compared += 1
            if f[_C["sd"]]:
                assert bool(f[_C["wsd"]]) == bool(fp["wonAtSD"]), (hp.name, player)
    assert seen == set(DIFFERENT)
    assert compared >= 9 * len(SAME)


# ------------------------------------------------------------------------ written cases


@pytest.mark.parametrize("name", sorted(p.name for p in CASES.iterdir()) if CASES.is_dir() else [])
def test_the_written_case_of_each_room(name) -> None:
    """Each room's hardest hand as the room writes it, its result as the case's last
    comment line says (``# net: player=chips, ...; rake=chips``), worked out by hand from
the chips each put in and what the room says each took."""
    path = CASES / name
    text = path.read_text(encoding="utf-8")
    expected_line = next(line for line in reversed(text.split("\n")) if line.startswith("# net:"))
    nets, rake = expected_line.removeprefix("# net:").split(";")
    expected = {k.strip(): int(v) for k, v in (item.split("=") for item in nets.split(","))}
    body = "\n".join(line for line in text.split("\n") if not line.startswith("# net:"))
    reader = next(r for r in ROOM_READERS.values() if r.identify(body))
    ((line, hand_text),) = reader.split_hands(body)
    tracker = Tracker()
    record = None
    for event in rooms.hand_events(reader.parse_hand(hand_text, f"{path}:{line}")):
        record = tracker.apply(event)
    assert record is not None
    assert {r.player: r.won - r.put_in for r in record.results} == expected
    assert record.rake == int(rake.strip().removeprefix("rake="))


def _case(name: str) -> list[str]:
    text = (CASES / name).read_text(encoding="utf-8")
    return [line for line in text.split("\n") if not line.startswith("# net:")]


def _case_record(reader, lines: list[str]):
    tracker = Tracker()
    record = None
    for event in rooms.hand_events(reader.parse_hand("\n".join(lines), "case")):
        record = tracker.apply(event)
    return record


def test_a_flop_the_room_did_not_write_is_dealt_from_the_summarys_board_or_refused() -> None:
    """Bovada's case has no flop line: the opening bet into the standing pre-flop bet opens
    the flop, whose cards the summary's board gives; without that board the hand is refused."""
    lines = _case("bovada.txt")
    assert not any("FLOP ***" in line or "Card dealt to table" in line for line in lines)
    record = _case_record(bovada, lines)
    assert [a.round for a in record.actions if a.player == "Small Blind"][-1] == 1
    without = [line for line in lines if not line.startswith("Board [")]
    with pytest.raises(rooms.RoomError, match="no board dealt"):
        _case_record(bovada, without)


def test_the_hero_dealt_a_line_a_card_needs_both() -> None:
    lines = _case("winning.txt")
    dealt = [i for i, line in enumerate(lines) if "received card: [" in line]
    assert len(dealt) == 2
    assert _case_record(winning, lines).hero == "Hero"
    with pytest.raises(rooms.RoomError, match="one hole card"):
        _case_record(winning, lines[:dealt[1]] + lines[dealt[1] + 1:])


def test_a_room_that_writes_every_return_gets_none_added() -> None:
    """Winamax's collected amount holds the bet nobody called; read as a room whose
    uncalled bets go unwritten, the same hand would pay that bet twice."""
    lines = _case("winamax.txt")
    assert _case_record(winamax, lines).rake == 1
    unwritten = dataclasses.replace(winamax.ROOM, returns_written=False)
    with pytest.raises(TrackerError):
        _case_record(unwritten, lines)


# The rules every text room shares, on each new room's case (as tests/test_text_room.py
# checks them for the five rooms before).
READERS = {"cake.txt": cake, "bovada.txt": bovada, "winamax.txt": winamax, "pacific.txt": pacific,
           "winning.txt": winning, "seals.txt": seals}


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_move_of_a_player_without_a_seat_is_not_read(name) -> None:
    reader = READERS[name]
    lines = _case(name)
    moves = [i for i, text in enumerate(lines) for rule in reader.ROOM.rules
             if rule.line.value == "move" and rule.pattern.search(text.strip())]
    seated = {seat_name for _, seat_name, _ in reader.parse_hand("\n".join(lines), name).seats}
    move = moves[0]
    mover = next(n for n in sorted(seated, key=len, reverse=True) if n in lines[move])
    stranger = lines[move].replace(mover, "Nobody Seated", 1)
    with pytest.raises(rooms.RoomError, match="cannot read"):
        _case_record(reader, lines[:move + 1] + [stranger] + lines[move + 1:])


@pytest.mark.parametrize("name", sorted(set(READERS) - {"bovada.txt"}))  # Bovada's case has no street line
def test_a_street_written_twice_is_read_once(name) -> None:
    reader = READERS[name]
    lines = _case(name)
    flop = next(i for i, text in enumerate(lines) for rule in reader.ROOM.rules
                if rule.line.value == "street" and rule.pattern.search(text.strip()))
    assert _case_record(reader, lines[:flop + 1] + lines[flop:]) == _case_record(reader, lines)


def test_each_case_is_its_rooms_and_no_other() -> None:
    for name, reader in READERS.items():
        text = "\n".join(_case(name))
        assert [r.NETWORK for r in ROOM_READERS.values() if r.identify(text)] == [reader.NETWORK], name
