"""`poki replay --follow` on real rooms' hands written as a client writes them: the real
PokerStars hands of ../shared/data/fpdb-lhe appended line by line to a session file in a
followed folder, with pauses inside hands longer than the follower's quiet time, read by
the follower as a real process into a real SQLite file. Every hand is stored once, within
2 s of its last line, nothing of a half-written hand is stored, a follower killed
(SIGKILL) mid-file and started again stores nothing twice, and SIGTERM ends it cleanly
saying what it stored. Then the other kinds of log, in-process: an iPoker session game by
game, ACPC lines cut in the middle, .phhs tables, as the IRC dealer writes them."""
from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from agent.play.offline.follow import Follower

from shared_data import DATA, FPDB_LHE

REPO = Path(__file__).resolve().parent.parent
needs_rooms = pytest.mark.skipif(FPDB_LHE is None, reason="the online rooms' hand histories are not there")

POLL, QUIET = 0.25, 0.75
STORED_WITHIN = 2.0  # the bound: a hand stored within 2 s of its last line
LONG_PAUSE = 3 * QUIET  # a pause inside a hand, much longer than the quiet time
START = re.compile(r"^PokerStars Game #(\d+):")


def stars_hands() -> list[tuple[str, list[str]]]:
    """The real PokerStars hands: (the room's hand number, the hand's lines)."""
    assert FPDB_LHE is not None
    hands = []
    for path in sorted((FPDB_LHE / "Stars").glob("*.txt")):
        text = path.read_bytes().decode("utf-8-sig")
        lines = text.rstrip("\n").split("\n")
        starts = [i for i, line in enumerate(lines) if START.match(line)]
        for a, b in zip(starts, starts[1:] + [len(lines)]):
            hand = lines[a:b]
            while hand and not hand[-1].strip():
                hand.pop()
            number = START.match(hand[0])
            assert number is not None
            hands.append((number.group(1), hand))
    assert len(hands) >= 4, hands
    return hands


def stored(db: Path) -> list[str]:
    """The hand ids the database holds now (none before the follower made it)."""
    if not db.exists():
        return []
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return [r[0] for r in conn.execute("SELECT hand_id FROM hands")]
    except sqlite3.OperationalError as exc:  # the schema not made yet
        if "no such table" in str(exc):
            return []
        raise
    finally:
        conn.close()


def numbers(db: Path) -> list[str]:
    """The room's hand number of every stored hand (stars:<number>:<digest>), one per row."""
    return sorted(h.split(":")[1] for h in stored(db))


def holds(db: Path, number: str) -> bool:
    """Whether the database holds the room's hand ``number``."""
    return number in numbers(db)


def wait_for(check: Callable[[], bool], seconds: float, what: str) -> float:
    """Poll ``check`` every 20 ms for up to ``seconds``; the time it took, or fail naming what."""
    began = time.monotonic()
    while True:
        if check():
            return time.monotonic() - began
        if time.monotonic() - began > seconds:
            pytest.fail(f"not within {seconds} s: {what}")
        time.sleep(0.02)


class Following:
    """`poki replay --follow FOLDER` as a real process; its output in files."""

    def __init__(self, tmp: Path, folder: Path, db: Path, run: int) -> None:
        self.out, self.err = tmp / f"out{run}.txt", tmp / f"err{run}.txt"
        env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
                   PYTHONWARNINGS="ignore")
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "agent.cli", "replay", "--follow", str(folder), "--db", str(db),
                 "--poll", str(POLL), "--quiet", str(QUIET)],
                stdout=out, stderr=err, env=env, cwd=tmp)
        # Started once it says it follows (importing takes a while on a loaded machine).
        wait_for(lambda: "following" in self.err.read_text() or self.proc.poll() is not None, 60,
                 "the follower to start")
        assert self.proc.poll() is None, self.err.read_text()

    def stop(self, sig: int) -> tuple[int, str]:
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            pytest.fail(f"the follower did not stop within 30 s of {signal.Signals(sig).name}")
        return code, self.out.read_text()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class Session:
    """A room's session file, written as the client writes it: a line at a time."""

    def __init__(self, path: Path) -> None:
        self.f = path.open("ab", buffering=0)
        self.f.write("\ufeff".encode())  # PokerStars writes its files with a BOM

    def line(self, text: str) -> None:
        self.f.write(text.encode() + b"\n")

    def close(self) -> None:
        self.f.close()


def write_hand(session: Session, lines: list[str], check_half: Iterator[None] | None = None,
               until: int | None = None, begin: int = 0) -> None:
    """Write ``lines[begin:until]`` a line at a time (20 ms apart), pausing LONG_PAUSE
    inside the hand after the hole cards and before the summary, and then calling
    ``check_half``; the separating blank lines after the last."""
    pauses = {i for i, line in enumerate(lines) if line.startswith("*** HOLE CARDS") or line.startswith("*** SUMMARY")}
    stop = len(lines) if until is None else until
    for i in range(begin, stop):
        session.line(lines[i])
        if i + 1 in pauses and i + 1 < stop:
            time.sleep(LONG_PAUSE)
            if check_half is not None:
                next(check_half, None)
        else:
            time.sleep(0.02)
    if until is None:
        session.line("")
        session.line("")


@needs_rooms
def test_follow_stores_each_hand_once_when_complete_and_survives_kill_and_restart(tmp_path: Path) -> None:
    hands = stars_hands()
    folder, db = tmp_path / "HandHistory", tmp_path / "tracker.sqlite"
    folder.mkdir()
    follower = Following(tmp_path, folder, db, 1)
    session = Session(folder / "HH20050826 Teucer II - $1-$2 - USD Limit Hold'em.txt")
    latencies = []
    try:
        # Hand by hand, as played: pauses inside each hand, then the hand stored before the next begins.
        first = hands[:-2]
        for k, (number, lines) in enumerate(first):
            before = [n for n, _ in first[:k]]

            def half_checks() -> Iterator[None]:
                while True:
                    # Paused inside hand k for far longer than the quiet time: only the hands before it.
                    assert numbers(db) == sorted(before), f"a half-written hand {number} was stored"
                    yield None

            write_hand(session, lines, half_checks())
            latencies.append(wait_for(partial(holds, db, number), STORED_WITHIN,
                                      f"hand {number} stored within {STORED_WITHIN} s of its last line"))
        assert numbers(db) == sorted(n for n, _ in first)

        # Killed in the middle of a hand, the hand half written; it never shows.
        number, lines = hands[-2]
        summary = next(i for i, line in enumerate(lines) if line.startswith("*** SUMMARY"))
        write_hand(session, lines, until=summary)
        time.sleep(LONG_PAUSE)
        assert number not in numbers(db)
        follower.stop(signal.SIGKILL)
        follower = Following(tmp_path, folder, db, 2)
        # Started again over the same file: the hands read before are known, none stored again.
        time.sleep(POLL + QUIET + 0.5)
        assert numbers(db) == sorted(n for n, _ in first)
        write_hand(session, lines, begin=summary)
        ended = time.monotonic()
        # The next hand begun straight away and written on, a line every GAP (under the
        # quiet time, so the file is never quiet): the hand before it is complete by the
        # next hand's start line alone, and stored within 2 s all the same.
        last_number, last_lines = hands[-1]
        last_summary = next(i for i, line in enumerate(last_lines) if line.startswith("*** SUMMARY"))
        gap = QUIET * 2 / 3
        assert last_summary * gap > STORED_WITHIN + 1  # written on for longer than the bound
        seen_after = None
        for line in last_lines[:last_summary]:
            session.line(line)
            time.sleep(gap)
            if seen_after is None and holds(db, number):
                seen_after = time.monotonic() - ended
        assert seen_after is not None and seen_after <= STORED_WITHIN + gap, \
            f"hand {number} not stored within {STORED_WITHIN} s of its last line while the next is written"
        latencies.append(seen_after)
        time.sleep(LONG_PAUSE)
        assert last_number not in numbers(db)  # its summary is not written: not read, however quiet

        code, out = follower.stop(signal.SIGTERM)
    finally:
        session.close()
        follower.close()
    assert code == 0, out
    # Every hand once: as many rows as hands written whole, each number once.
    assert numbers(db) == sorted(n for n, _ in hands[:-1])
    # The restarted follower says what it did: one hand stored, the rest known, one waiting.
    assert re.search(r"^stored: 1$", out, re.M), out
    assert re.search(rf"^duplicates: {len(first)} \(already in the database\)$", out, re.M), out
    assert "stopped by: SIGTERM" in out
    assert re.search(r"^waiting, not complete, not stored: 1$", out, re.M), out
    assert all(t <= STORED_WITHIN for t in latencies[:-1]), latencies
    print(f"each hand stored within (s) of its last line: {', '.join(f'{t:.2f}' for t in latencies)}")


# ----------------------------------------------------------------------------- in-process


def follower(tmp_path: Path, folder: Path, **settings: float) -> Follower:
    from agent.config import Config
    from agent.play.offline.follow import FollowSettings
    from agent.play.offline.replay import ReplayOptions

    options = ReplayOptions.from_settings(Config(), tmp_path / "db.sqlite")
    return Follower([folder], options, FollowSettings(**{"poll": POLL, "quiet": QUIET, **settings}))


def settle(f: Follower, seconds: float = QUIET + 2 * POLL) -> None:
    """Step the follower for ``seconds`` (past its quiet time): what is complete gets stored."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        f.step()
        time.sleep(POLL / 2)


@needs_rooms
def test_follow_ipoker_session_game_by_game(tmp_path: Path) -> None:
    """An iPoker session written a piece at a time: a game is read at its end tag, never
    before, and every game of the real session is stored once."""
    assert FPDB_LHE is not None
    data = (FPDB_LHE / "iPoker" / "LHE-10max-USD-0.10-0.20-201107.player.sitting.out.xml").read_bytes()
    ends = [m.end() for m in re.finditer(rb"</game>", data)]
    assert len(ends) >= 5
    folder = tmp_path / "in"
    folder.mkdir()
    f = follower(tmp_path, folder)
    db = tmp_path / "db.sqlite"
    path = folder / "session.xml"
    written = 0
    with path.open("ab", buffering=0) as out:
        for k, end in enumerate(ends[:6]):  # the rest written at once, below
            cut = written + (end - written) // 2  # half of game k
            out.write(data[written:cut])
            settle(f)
            assert len(stored(db)) == k, f"game {k} stored half-written"
            out.write(data[cut:end])
            written = end
            settle(f)
            assert len(stored(db)) == k + 1
        out.write(data[written:])
    settle(f)
    ids = stored(db)
    assert len(ids) == len(ends) == len(set(ids))
    assert f.totals.stored == len(ends) and f.totals.skipped == 0


def dealer_logs(tmp_path: Path, deals: int) -> tuple[Path, Path]:
    """An ACPC log and a .phhs file of a seeded match, as our dealers write them (the IRC
    dealer writes the same two formats, a whole line or table at a time)."""
    from agent.config import TableConfig
    from agent.play.offline.tournament import TournamentSetup, run_tournament

    made = tmp_path / "made"
    made.mkdir()
    setup = TournamentSetup.from_text(("raise", "call"), TableConfig(seats=2), 5, chunk=25)
    run_tournament(setup, deals, log_acpc=made / "match.log", log_phh=made / "phh")
    (phhs,) = (made / "phh").glob("*.phhs")
    return made / "match.log", phhs


def test_follow_acpc_lines_and_phhs_tables_cut_in_the_middle(tmp_path: Path) -> None:
    """Each ACPC line and .phhs table written in two parts, the first cut in the middle:
    nothing is read of a part, however long the file stays quiet; each hand is stored
    once its line end (ACPC) or the next table's header (or, quiet, its whole table) is
    there, and all of them once."""
    acpc, phhs = dealer_logs(tmp_path, 6)
    header, *lines = acpc.read_text().splitlines(keepends=True)
    lines = [line for line in lines if line.startswith("STATE:")]  # not the SCORE line at the end
    tables = [t for t in re.split(r"(?m)^(?=\[[^\]]+\]\s*$)", phhs.read_text()) if t.strip()]
    assert len(lines) == len(tables) == 12
    folder = tmp_path / "in"
    folder.mkdir()
    f = follower(tmp_path, folder)
    db = tmp_path / "db.sqlite"
    with (folder / "table.acpc.log").open("a") as a, (folder / "table.phhs").open("a") as p:
        a.write(header)
        a.flush()
        for k, (line, table) in enumerate(zip(lines, tables)):
            for out, text in ((a, line), (p, table)):
                out.write(text[:len(text) // 2])
                out.flush()
            settle(f)
            assert len(stored(db)) == 2 * k, f"hand {k} stored from half its line or table"
            assert len(f.waiting()) == 2, f.waiting()
            for out, text in ((a, line), (p, table)):
                out.write(text[len(text) // 2:])
                out.flush()
            settle(f)
            assert len(stored(db)) == 2 * (k + 1)
    ids = stored(db)
    assert len(ids) == len(set(ids)) == 24
    assert sum(h.startswith("acpc:") for h in ids) == sum(h.startswith("phh:") for h in ids) == 12
    assert f.totals.skipped == 0, f.totals.examples


@pytest.mark.skipif(DATA is None, reason="the IRC hand logs are not there")
def test_follow_an_irc_month_as_it_grows(tmp_path: Path) -> None:
    """A month of the real 1995 IRC logs (its first hands, every line of them) written in
    two halves into a followed folder: each half stored once quiet, as `poki replay`
    stores the same files; a second follower over the same month stores nothing."""
    from agent.play.offline.replay import ReplayOptions, replay

    assert DATA is not None
    src = DATA / "holdem" / "199504"
    with (src / "hdb").open(encoding="latin-1") as lines:
        hdb = [next(lines) for _ in range(40)]
    ids = [line.split()[0] for line in hdb]
    roster: dict[str, str] = {}
    with (src / "hroster").open(encoding="latin-1") as lines:
        for line in lines:
            if line.split()[:1] and line.split()[0] in ids:
                roster[line.split()[0]] = line
    nicks = sorted({nick for line in roster.values() for nick in line.split()[2:]})
    pdb = {nick: [line for line in (src / "pdb" / f"pdb.{nick}").open(encoding="latin-1")
                  if line.split()[1:2] and line.split()[1] in ids] for nick in nicks}

    def write_month(month: Path, hands: list[str]) -> None:
        (month / "pdb").mkdir(parents=True, exist_ok=True)
        wanted = set(hands)
        for name, lines in (("hroster", [roster[h] for h in hands if h in roster]),
                            ("hdb", [line for line in hdb if line.split()[0] in wanted])):
            with (month / name).open("a", encoding="latin-1") as out:
                out.writelines(lines)
        for nick, lines in pdb.items():
            mine = [line for line in lines if line.split()[1] in wanted]
            if mine:
                with (month / "pdb" / f"pdb.{nick}").open("a", encoding="latin-1") as out:
                    out.writelines(mine)

    folder = tmp_path / "in"
    f = follower(tmp_path, folder)  # not there yet: said once, looked at again
    db = tmp_path / "db.sqlite"
    expected: list[int] = []
    for half in (ids[:20], ids[20:]):
        write_month(folder / "holdem" / "199504", half)
        # What `poki replay` makes of the same files, in a database of its own.
        written = ids[:ids.index(half[-1]) + 1]  # the month so far
        write_month(tmp_path / f"copy{len(expected)}" / "holdem" / "199504", written)
        plain = replay([tmp_path / f"copy{len(expected)}"],
                       ReplayOptions(db_path=tmp_path / f"plain{len(expected)}.sqlite"))
        expected.append(plain.stored)
        settle(f, QUIET + 6 * POLL)
        assert len(stored(db)) == plain.stored > 0
    ids_stored = stored(db)
    assert len(ids_stored) == len(set(ids_stored)) == expected[-1] > expected[0]
    again = follower(tmp_path, folder)
    settle(again, QUIET + 6 * POLL)
    assert again.totals.stored == 0 and again.totals.known == expected[-1]
    assert len(stored(db)) == expected[-1]
