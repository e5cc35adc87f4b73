"""The online rooms' fixed-limit hold'em hand histories replayed as a user would: the real
files of ../shared/data/fpdb-lhe (FPDB's regression files from six rooms, 2005-2012, one
UTF-16, one with a BOM, iPoker's XML) and hand-written cases in each room's exact format
for what those files lack (a split pot, a three-way side pot, a time-out: tests/room_cases).

Every hand must be stored whole (chips conserved with the rake the room states, the
board, the showdown cards, the actions, the hero), again and again as the same hand, and
hands of other games skipped and counted. The results are checked against the rooms' own
figures (what each player collected, the pot and the rake they print) and against
FPDB's per-player profits (.hp files), which the tracker does not read.
"""
from __future__ import annotations

import ast
import os
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from room_files import ipoker_archive, with_junk

from agent.cli import main
from agent.game.tracker import Tracker
from agent.play.offline.replay import ReplayOptions, replay
from connectors.logs import ipoker, rooms
from connectors.logs.sources import ROOM_READERS, plan, read_chunk
from evaluator_pyx.cards import parse_cards

from shared_data import FPDB_LHE as FPDB

CASES = Path(__file__).resolve().parent / "room_cases"
needs_fpdb = pytest.mark.skipif(FPDB is None, reason="../shared/data/fpdb-lhe is not here")


def _room_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix not in (".hp", ".hands", ".gt", ".md"))


def _records(path: Path) -> list:
    """The records of one room file, through the readers, events and the tracker."""
    text = rooms.decode(path.read_bytes())
    reader = next(r for r in ROOM_READERS.values() if r.identify(text))
    out = []
    for line, body in reader.split_hands(text):
        try:
            hand = reader.parse_hand(body, f"{path}:{line}")
        except rooms.OtherGame:
            continue
        tracker = Tracker()
        record = None
        for event in rooms.hand_events(hand):
            record = tracker.apply(event)
        out.append(record)
    return out


@pytest.fixture(scope="module")
def fpdb_db(tmp_path_factory) -> Path:
    if FPDB is None:
        pytest.skip("../shared/data/fpdb-lhe is not here")
    path = tmp_path_factory.mktemp("rooms") / "rooms.sqlite"
    assert main(["replay", str(FPDB), "--db", str(path), "--no-progress", "--workers", "1", "--strict"]) == 0
    return path


# ------------------------------------------------------------------------ the real files


@needs_fpdb
def test_every_hand_of_the_fpdb_files_is_stored_whole(fpdb_db, capsys) -> None:
    with sqlite3.connect(fpdb_db) as conn:
        by_room = dict(conn.execute("SELECT network, count(*) FROM hands GROUP BY network"))
        # Chips conserved in every hand: put in = won + rake = the pot.
        off = conn.execute("""SELECT h.hand_id FROM hands h JOIN results r ON r.hand = h.seq GROUP BY h.seq
                              HAVING sum(r.put_in) != sum(r.won) + h.rake OR sum(r.put_in) != h.pot""").fetchall()
        heroes = conn.execute("SELECT count(*) FROM hands WHERE hero IS NOT NULL").fetchone()[0]
        shown = conn.execute("SELECT count(*) FROM showdowns").fetchone()[0]
    # The files hold 46 hands: PokerStars 4, Full Tilt 1, iPoker 35, OnGame 2, PartyPoker 1, Absolute 3.
    assert by_room == {"stars": 4, "ftp": 1, "ipoker": 35, "ongame": 2, "party": 1, "absolute": 3}
    assert off == []
    # Every hand names its hero but the 5 iPoker games the session's hero sat out.
    assert heroes == 41 and shown > 40
    assert main(["db", "check", "--db", str(fpdb_db)]) == 0


@needs_fpdb
def test_a_second_replay_stores_nothing_and_recognises_every_hand_by_its_room_id(fpdb_db) -> None:
    summary = replay([FPDB], ReplayOptions(db_path=fpdb_db, workers=1))
    assert (summary.stored, summary.duplicates, summary.skipped) == (0, 46, 0)
    with sqlite3.connect(fpdb_db) as conn:
        ids = {r[0] for r in conn.execute("SELECT hand_id FROM hands")}
    # <room>:<the room's hand number>:<a digest of the hand's content> (rooms.hand_id)
    numbers = {i.rsplit(":", 1)[0] for i in ids}
    assert {"stars:2467687491", "ftp:26321049583", "ongame:R5-75443872-61", "party:10398176832",
            "absolute:1968055293", "ipoker:2855468557"} <= numbers
    assert all(len(i.rsplit(":", 1)[1]) == 12 for i in ids)


@needs_fpdb
def test_each_room_hand_agrees_with_what_the_room_printed(fpdb_db) -> None:
    with sqlite3.connect(fpdb_db) as conn:
        def hand(hand_id: str) -> dict:
            seq, rake, board, hero = conn.execute(
                "SELECT h.seq, h.rake, h.board, p.name FROM hands h LEFT JOIN players p ON p.id = h.hero"
                " WHERE h.hand_id LIKE ?", (hand_id + ":%",)).fetchone()
            rows = conn.execute("SELECT p.name, r.put_in, r.won FROM results r JOIN players p ON p.id = r.player"
                                " WHERE r.hand = ?", (seq,)).fetchall()
            cards = dict(conn.execute("SELECT p.name, s.cards FROM showdowns s JOIN players p ON p.id = s.player"
                                      " WHERE s.hand = ?", (seq,)).fetchall())
            kinds = [r[0] for r in conn.execute("SELECT kind FROM actions WHERE hand = ? ORDER BY ord", (seq,))]
            return {"rake": rake, "board": board, "hero": hero, "net": {n: w - p for n, p, w in rows},
                    "shown": cards, "kinds": kinds}

        # Absolute: a big blind all-in for $191.27 at $200/$400; Player1 collects $478.54 of
        # the $482.54 pot, rake $4, and Player2 gets his uncalled $208.73 back.
        h = hand("absolute:1968055293")
        assert h["rake"] == 400 and h["net"]["Player1"] == 47854 - 19127 and h["net"]["Player2"] == -19127
        assert h["board"] == "5d 3c 9d 8d 7s" and h["shown"] == {"Player1": "9h 6d", "Player2": "7h Kc"}
        # Absolute: the time-out facing a bet makes HOLDINGQUADS all-in for what he had put in.
        h = hand("absolute:736583015")
        assert h["net"] == {"HOLDINGQUADS": -5000, "CHK_RAZE": 0, "STEVE89": 12200 - 5000, "LIVELETDIE22": -2500,
                            "BLUECUPID": 0}
        # Absolute: a post of $40 of which $15 dead, raised to $50 ($25 more).
        h = hand("absolute:736661180")
        assert h["net"]["P0KEHER"] == 16200 - 6500 and h["kinds"][:3] == ["sb", "bb", "bb"]
        # PartyPoker: a second small blind, live; the room prints no rake: $280 pot, $278 won.
        h = hand("party:10398176832")
        assert h["rake"] == 200 and h["net"] == {"Player0": 0, "Player2": -1000, "Hero": -13500, "Player1": 27800 - 13500}
        assert h["shown"] == {"Player1": "Th 5c"}
        # PokerStars 2005: the walk of the big blind, no uncalled-bet line in the file.
        assert hand("stars:2467687491")["net"]["Hero"] == 50
        # OnGame: the flop dealt twice in the file, once here.
        h = hand("ongame:R5-75443872-61")
        assert h["board"] == "2d Ad Th 8s 7d" and h["rake"] == 15 and h["net"]["Hero"] == 220
        # iPoker's XML: the disconnected player ("DP") all-in for what he had put in.
        h = hand("ipoker:2855472319")
        assert h["net"]["Player7"] == 72 - 20 and h["hero"] is None  # the session's hero sat out


@needs_fpdb
def test_every_players_profit_is_fpdbs(fpdb_db) -> None:
    """FPDB's totalProfit (winnings after the rake less what the player put in and did
    not get back) for every player of every hand it has a .hp file for."""
    checked = 0
    for hp in sorted(FPDB.rglob("*.hp")):
        expected = ast.literal_eval(hp.read_text())
        (record,) = _records(hp.with_suffix(""))
        ours = {r.player: r.won - r.put_in for r in record.results}
        for name, stats in expected.items():
            assert ours.get(name, 0) == stats["totalProfit"], (hp.name, name)
            checked += 1
    assert checked == 14


@needs_fpdb
def test_files_are_recognised_by_content_and_the_utf16_and_bom_files_read(tmp_path) -> None:
    ftp = next((FPDB / "FTP").glob("*.txt"))
    stars_bom = next(p for p in (FPDB / "Stars").glob("*.txt") if p.read_bytes().startswith(b"\xef\xbb\xbf"))
    assert ftp.read_bytes()[:2] == b"\xff\xfe"
    shutil.copy(ftp, tmp_path / "session-one")  # no extension at all
    shutil.copy(stars_bom, tmp_path / "hands.log")
    chunks, problems = plan([tmp_path])
    assert problems == [] and sorted(c.name for c in chunks) == ["ftp", "stars"]
    hands = [item for c in chunks for item in read_chunk(c)]
    assert sorted(h.hand_id.rsplit(":", 1)[0] for h in hands) == ["ftp:26321049583", "stars:2428142447"]


# ------------------------------------------------------------------------ written cases

# Each room's cases: a split pot (two pair, aces and kings, each), a three-way hand whose
# short stack is all-in on the flop (main pot to her aces, side pot to our kings), and a
# time-out (as the room writes one: a notice before the fold, iPoker's disconnect
# protection, Absolute's all-in on time-out).
CASE_FILES = {"stars": "stars.txt", "ftp": "fulltilt.txt", "ongame": "ongame.txt", "party": "partypoker.txt",
              "absolute": "absolute.txt", "ipoker": "ipoker.xml"}


@pytest.mark.parametrize("room", sorted(CASE_FILES))
def test_the_written_cases_of_each_room(room) -> None:
    records = _records(CASES / CASE_FILES[room])
    assert len(records) == 3
    split, side, timeout = records
    bet = split.small_bet
    hero = next(s.player for s in split.seats if s.player.lower() == "hero")
    assert split.hero == side.hero == timeout.hero == hero
    # The split pot: the two pairs share what is left after the rake.
    won = {r.player: r.won for r in split.results}
    put = {r.player: r.put_in for r in split.results}
    assert split.rake > 0 and sum(put.values()) == sum(won.values()) + split.rake
    winners = sorted(p for p, w in won.items() if w)
    assert len(winners) == 2 and won[winners[0]] == won[winners[1]]
    assert {s.player for s in split.shown} == set(winners)
    # The side pot: the all-in player (a stack of three small bets) takes the main pot
    # less the rake, we take the side pot of one small bet from each of us two.
    won = {r.player.lower(): r.won for r in side.results}
    put = {r.player.lower(): r.put_in for r in side.results}
    short = next(p for p in put if p not in ("hero", "bob"))
    assert put == {"hero": 4 * bet, short: 3 * bet, "bob": 4 * bet}
    assert won == {"hero": 2 * bet, short: 9 * bet - side.rake, "bob": 0}
    assert sorted(tuple(sorted(s.cards)) for s in side.shown) == sorted(
        tuple(sorted(parse_cards(c))) for c in ("As Ad", "Ks Kd", "Qs Qd"))
    # The time-out: the player who ran out of time after calling one small bet either
    # folded (a notice, then the fold the room makes) or was made all-in for that bet by
    # the room's protection, and then won the main pot with queens.
    won = {r.player.lower(): r.won for r in timeout.results}
    put = {r.player.lower(): r.put_in for r in timeout.results}
    late = next(p for p in put if p not in ("hero", "bob"))
    folded = any(a.kind == "f" and a.player.lower() == late for a in timeout.actions)
    assert put[late] == bet
    assert (folded and won[late] == 0) or (not folded and won[late] == 3 * bet - timeout.rake)
    assert sum(put.values()) == sum(won.values()) + timeout.rake


def test_hands_of_other_games_are_skipped_and_counted_even_under_strict(tmp_path) -> None:
    db = tmp_path / "cases.sqlite"
    summary = replay([CASES], ReplayOptions(db_path=db, workers=1, strict=True))
    assert summary.stopped is None
    assert summary.stored == 18 and summary.skipped_by_reason == {"other-game": 1}
    (problem,) = summary.problems
    assert problem.where.endswith("stars.txt:107") and "No Limit" in problem.reason


def test_a_cp1252_file_keeps_its_names(tmp_path) -> None:
    raw = (CASES / "fulltilt.txt").read_bytes()
    assert "José".encode("cp1252") in raw and b"\xc3" not in raw
    names = {s.player for r in _records(CASES / "fulltilt.txt") for s in r.seats}
    assert "José" in names


# ------------------------------------------------------------------------ bad input


def test_chips_are_exact_cents() -> None:
    assert rooms.chips("$1,234.56") == 123456 and rooms.chips("€2,50") == 250 and rooms.chips("0.05") == 5
    assert rooms.chips("$5,496") == 549600 and rooms.chips("1 000 USD") == 100000
    with pytest.raises(rooms.RoomError, match="finer than a cent"):
        rooms.chips("$0.005")
    with pytest.raises(rooms.RoomError, match="not an amount"):
        rooms.chips("lots")


def test_ipoker_xml_with_entities_or_a_doctype_is_refused() -> None:
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;">]>'
              b'<session><general><gametype>Holdem L $1/$2</gametype></general><game gamecode="1">&lol2;</game></session>')
    with pytest.raises(rooms.RoomError, match="refused"):
        ipoker.parse_xml(laughs)
    external = b'<session><general/><game gamecode="1">&xxe;</game></session>'
    roots, problem = ipoker.parse_xml(external)
    assert problem is not None and "undefined entity" in problem
    deep = b"<a>" * 40 + b"</a>" * 40
    with pytest.raises(rooms.RoomError, match="nested deeper"):
        ipoker.parse_xml(deep)
    with pytest.raises(rooms.RoomError, match="bytes of XML"):
        ipoker.parse_xml(b" " * (ipoker.MAX_XML_BYTES + 1))


def test_a_broken_hand_is_skipped_with_its_file_line_and_reason(tmp_path) -> None:
    text = (CASES / "stars.txt").read_text().replace("Bob: calls $1\n*** FLOP *** [As", "Bob: dances\n*** FLOP *** [As", 1)
    (tmp_path / "broken.txt").write_text(text)
    summary = replay([tmp_path], ReplayOptions(db_path=tmp_path / "b.sqlite", workers=1))
    assert summary.stored == 2 and summary.skipped_by_reason == {"malformed": 1, "other-game": 1}
    bad = next(p for p in summary.problems if p.category == "malformed")
    assert bad.where.endswith("broken.txt:1") and "cannot read 'Bob: dances'" in bad.reason


# ------------------------------------------------------------------------ content ids


@needs_fpdb
def test_a_reused_hand_number_with_other_cards_is_stored_and_the_same_hand_once(tmp_path) -> None:
    """Room hands are keyed by content (docs/reliability.md): the real hand read twice is
    one hand; the same number with other hole cards is another hand, stored beside it
    (main dropped it as "already in the database")."""
    real = FPDB / "Stars" / "LHE-USD-1.00-200508.BB.and.Button.same.player.txt"
    text = real.read_bytes()
    assert b"Dealt to Hero [3s 4s]" in text
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.txt").write_bytes(text)
    (logs / "b.txt").write_bytes(text)  # the very same hand again
    (logs / "c.txt").write_bytes(text.replace(b"Dealt to Hero [3s 4s]", b"Dealt to Hero [Ah Kd]"))
    db = tmp_path / "rooms.sqlite"
    summary = replay([logs], ReplayOptions(db_path=db, workers=1))
    assert (summary.stored, summary.skipped) == (2, 0)
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT hand_id FROM hands WHERE hand_id LIKE 'stars:2344646393:%'").fetchall()
    assert len(rows) == 2
    again = replay([logs], ReplayOptions(db_path=db, workers=1))
    assert again.stored == 0 and again.skipped == 0


# ------------------------------------------------------------------------ memory

# The peak is the process's own high-water mark (VmHWM): ru_maxrss would keep the test
# process's across the exec.
_PEAK = """
import re, sys
from pathlib import Path
from connectors.logs.sources import plan, read_chunk
chunks, problems = plan([sys.argv[1]], chunk_hands=1_000_000)
items = [type(item).__name__ for c in chunks for item in read_chunk(c)]
peak = int(re.search(r"VmHWM:\\s*(\\d+)", Path("/proc/self/status").read_text()).group(1))
print(peak // 1024, items.count("LogHand"), len(items), len(problems))
"""


def _peak_mb(path: Path) -> tuple[int, int, int, int]:
    """(peak resident MB, hands, items, planning problems) of planning and reading ``path``
    in a process of its own."""
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONWARNINGS": "ignore"}
    out = subprocess.run([sys.executable, "-c", _PEAK, str(path)], env=env, capture_output=True, text=True,
                         timeout=120, check=True).stdout.split()
    return int(out[0]), int(out[1]), int(out[2]), int(out[3])


@needs_fpdb
def test_a_room_file_of_junk_is_streamed_not_held(tmp_path) -> None:
    """A real PokerStars hand followed by 40 MB of random bytes: main held the file, its
    text and its lines (200 MB of junk peaked at 1.3 GB); streamed, the peak is the
    interpreter's and one block's, the junk one problem."""
    path = tmp_path / "hands.txt"
    with_junk(FPDB / "Stars" / "LHE-USD-1.00-200508.BB.and.Button.same.player.txt", path, 40 << 20,
              random.Random(8))
    peak, hands, items, problems = _peak_mb(path)
    assert (hands, items, problems) == (0, 1, 0)  # the hand run into the junk: one problem, too long to hold
    assert peak < 100, f"{peak} MB resident reading a 40 MB file"


@needs_fpdb
def test_an_ipoker_archive_is_streamed_not_held(tmp_path) -> None:
    """An 8 MB archive of real iPoker sessions (each its own document, every game its own
    gamecode): main parsed it whole into elements (47 MB peaked at 1.2 GB); streamed,
    every game is read and the peak stays the interpreter's."""
    path = tmp_path / "archive.xml"
    games = ipoker_archive(FPDB / "iPoker" / "LHE-10max-USD-0.10-0.20-201107.player.sitting.out.xml", path, 8 << 20)
    peak, hands, items, problems = _peak_mb(path)
    assert (hands, items, problems) == (games, games, 0)
    assert peak < 100, f"{peak} MB resident reading an 8 MB archive"


@needs_fpdb
@pytest.mark.parametrize("size", [3, 7, 4096])
def test_room_files_streamed_in_any_blocks_read_as_whole(size) -> None:
    """Every real file (and the written cases) cut into blocks of any size, a block
    boundary inside a character, a tag or an XML declaration, reads the same hands as
    the file given whole."""
    for path in [*_room_files(FPDB), *sorted(CASES.iterdir())]:
        data = path.read_bytes()
        reader = next(r for r in ROOM_READERS.values() if r.identify(rooms.decode(data)))
        whole = list(reader.read_hands([data]))
        blocks = list(reader.read_hands(data[i:i + size] for i in range(0, len(data), size)))
        assert blocks == whole and whole, path


def test_ipoker_streamed_keeps_the_refusals() -> None:
    game = b'<game gamecode="1"><general/></game>'
    doctype = b'<?xml version="1.0"?><!DOCTYPE s [<!ENTITY a "b">]><session>' + game + b"</session>"
    deep = b"<session>" + b"<a>" * 40 + b"</a>" * 40 + b"</session>"
    for data in (doctype, deep):
        with pytest.raises(rooms.RoomError):
            list(ipoker.read_hands(data[i:i + 5] for i in range(0, len(data), 5)))
    with pytest.raises(rooms.RoomError, match="bytes of XML"):
        list(ipoker.read_hands(b" " * (1 << 20) for _ in range(ipoker.MAX_XML_BYTES // (1 << 20) + 1)))
    # Two documents, junk before the first and a game cut off at the end: both games.
    two = b"junk\n<?xml version='1.0'?><session>" + game + b"</session>\n<?xml version='1.0'?><session><game gamecode='2'>"
    found = list(ipoker.read_hands([two]))
    assert [h.line for h in found] == [2, 3] and all(h.text for h in found)
