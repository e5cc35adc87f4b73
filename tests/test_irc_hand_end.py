"""The hand end off the table's path, and still whole: the dealer's journal of announced
hands (agent/play/irc/journal.py) and the groups it commits, the player bot's grouped
writes (agent.play.stores.DatabaseWriter), and a dealer process killed outright
(SIGKILL) in the middle of a session on a real server: after a restart its database
holds every hand it announced as ended, exactly as announced, and only whole hands."""
from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from agent.config import Config, TableConfig
from agent.game.records import RecordError
from agent.play.deals import Deal
from agent.play.irc.dealer import DealerHost, journal_path
from agent.play.irc.journal import HandJournal, JournalEntry, JournalError, decode_entry, encode_entry, read_journal
from agent.play.offline.dealer import Dealer
from agent.play.stores import DatabaseWriter
from agent.players import create_player, parse_spec
from connectors.irc.server import LoopbackServer
from db.database import Database
from db.opening import open_read_only

from irc_live import DOC_LINES, Person, stored_hands, wait_for

ROOT = Path(__file__).resolve().parent.parent


def played_records(n: int, seed: int = 3) -> list:
    """Hands played by the rules engine (agent.play.offline.dealer) between house bots."""
    rng = np.random.default_rng(seed)
    table = TableConfig()
    dealer = Dealer(table, source="test")
    players = [create_player(parse_spec(s), np.random.default_rng(seed + k), name=f"p{k}")
               for k, s in enumerate(["random", "raise", "call", "random"])]
    records = []
    for k in range(n):
        records.append(dealer.play_hand(players, Deal.draw(rng, len(players)), button=k % len(players),
                                        hand_id=f"irc:#t:{k + 1}", started_at=1000.0 + k))
    return records


def stored_ids(path: Path) -> set[str]:
    """The hand ids a database holds, read without creating or changing it."""
    conn = open_read_only(path)
    try:
        return {hand_id for (hand_id,) in conn.execute("SELECT hand_id FROM hands")}
    finally:
        conn.close()


def test_an_entry_reads_back_as_written() -> None:
    for record in played_records(40):
        stacks = {s.player: s.stack + 7 for s in record.seats}
        number = int(record.hand_id.rsplit(":", 1)[1])
        entry = JournalEntry("#t", record, stacks, number + 1)
        line = encode_entry(entry)
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert decode_entry(line) == entry


@pytest.mark.parametrize("mangle, why", [
    (lambda b: b[: len(b) // 2], "not a journal entry"),  # cut short by a full disk or a crash
    (lambda b: b"{}", "not a journal entry"),
    (lambda b: b"\xff\xfe", "not a journal entry"),
    (lambda b: b.replace(b'"next":', b'"next":-5,"x":'), "next hand"),
    (lambda b: b.replace(b'"results":[["', b'"results":[["zz'), "not consistent"),
])
def test_a_bad_line_is_refused_with_the_reason(mangle, why) -> None:
    record = played_records(1)[0]
    line = encode_entry(JournalEntry("#t", record, {"p0": 1}, 2))
    with pytest.raises(JournalError, match=why):
        decode_entry(mangle(line))


def test_the_journal_keeps_its_lines_and_skips_the_unreadable(tmp_path) -> None:
    path = tmp_path / "j"
    records = played_records(5)
    journal = HandJournal(path)
    for k, record in enumerate(records):
        journal.append(JournalEntry("#t", record, {}, k + 2))
    journal.close()
    with open(path, "ab") as f:
        f.write(b'{"channel": "#t", "hand": [')  # the last line cut short
    entries, problems = read_journal(path)
    assert [e.record for e in entries] == records
    assert len(problems) == 1 and f"{path}:6" in problems[0]
    journal = HandJournal(path)
    journal.clear()
    journal.close()
    assert read_journal(path) == ([], [])
    assert read_journal(tmp_path / "none") == ([], [])


def test_grouped_writes_without_a_database_keep_every_hand(tmp_path) -> None:
    """A bot with no database keeps its models in memory: a group of hands reaches them
    whole, and they count as the database counts the same hands."""
    records = played_records(25, seed=11)
    writer = DatabaseWriter(None, half_life=1000.0, batch_seconds=30.0)
    try:
        for record in records:
            writer.write(record, "irc:test")
        writer.write(records[4], "irc:test")  # the same hand again: a duplicate
    finally:
        writer.close()
    assert writer.errors == 0, writer.last_error
    assert writer.transactions == 1 and writer.stored == 25 and writer.duplicates == 1
    with Database(tmp_path / "ref.sqlite", half_life=1000.0) as db:
        db.write_hands(records, "irc:test")
        for nick in ("p0", "p1", "p2", "p3"):
            memory, stored = writer.store.get(nick, "irc:test"), db.get(nick, "irc:test")
            assert memory.hands == stored.hands == 25
            assert memory.lifetime == stored.lifetime and sum(map(sum, stored.lifetime)) > 0
            assert [c for t in memory.decayed for c in t] == pytest.approx([c for t in stored.decayed for c in t])


def test_grouped_writes_store_every_hand_and_reads_see_them(tmp_path) -> None:
    records = played_records(30)
    writer = DatabaseWriter(tmp_path / "bot.sqlite", half_life=1000.0, batch_seconds=30.0)
    try:
        for record in records[:20]:
            writer.write(record, "irc:test")
        # A read first stores what waits: every hand handed over before it.
        assert writer.hand_count() == 20 and writer.transactions == 1
        # Once the database is read, hands no longer wait for their group's clock (30 s).
        writer.write(records[20], "irc:test")
        wait_for(lambda: writer.stored == 21, timeout=15, what="a hand stored at once after a read")
        for record in records[21:]:
            writer.write(record, "irc:test")
        writer.write(records[3], "irc:test")  # the same hand again: a duplicate
    finally:
        writer.close()
    assert writer.stored == 30 and writer.duplicates == 1
    with Database(tmp_path / "bot.sqlite", create=False) as db:
        assert db.check() == []
        assert db.hand_count() == 30
    # The same hands one transaction each hold the same.
    single = DatabaseWriter(tmp_path / "one.sqlite", half_life=1000.0, batch_seconds=0.0)
    for record in records:
        single.write(record, "irc:test")
    single.close()
    assert single.transactions == 30
    assert stored_hands(tmp_path / "one.sqlite") == stored_hands(tmp_path / "bot.sqlite")


def test_a_group_is_written_when_its_time_is_up(tmp_path) -> None:
    writer = DatabaseWriter(tmp_path / "bot.sqlite", half_life=1000.0, batch_seconds=0.2)
    try:
        for record in played_records(3):
            writer.write(record, "irc:test")
        wait_for(lambda: writer.stored == 3, timeout=30, what="the group written by its clock")
        assert writer.transactions == 1
    finally:
        writer.close()


def test_a_refused_hand_does_not_take_its_group_down(tmp_path) -> None:
    records = played_records(4)
    bad = dataclasses.replace(records[1], results=records[1].results[:-1])
    with pytest.raises(RecordError):
        bad.check()
    writer = DatabaseWriter(tmp_path / "bot.sqlite", half_life=1000.0, batch_seconds=30.0)
    for record in (records[0], bad, records[2], records[3]):
        writer.write(record, "irc:test")
    writer.close()
    assert writer.stored == 3 and writer.rejected == 1


# --- a dealer killed outright ---------------------------------------------------------------


def _after_stacks(hands: dict[str, tuple]) -> dict[str, dict[str, int]]:
    """hand id -> each seat's chips after the hand, by the stored seats and results."""
    out = {}
    for hand_id, (_, _, seats, _, results, _) in hands.items():
        start = {nick: stack for nick, _, stack in seats}
        out[hand_id] = {nick: start[nick] - put + won for nick, put, won in results}
    return out


def test_a_dealer_killed_outright_loses_no_hand_it_announced(tmp_path) -> None:
    """``poki irc deal`` with a long group time (hands wait in the journal), killed with
    SIGKILL while it deals; started again, it stores the journal's hands before any table
    opens. Checked against what a person in the channel saw the dealer announce."""
    (tmp_path / "config.toml").write_text(
        "[irc]\nhand_pause_seconds = 0\nstore_batch_seconds = 60\naction_seconds = 20\n"
        "decision_margin_seconds = 1\nreconnect_min_seconds = 0.2\nreconnect_max_seconds = 2\n")
    db = tmp_path / "dealer.sqlite"
    server = LoopbackServer().start()
    proc = None
    bots = []
    watcher = None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent.cli", "--config", str(tmp_path / "config.toml"), "irc", "deal",
             "--server", server.address, "--channel", "#holdem", "--db", str(db), "--logs", str(tmp_path / "logs"),
             "--no-flood-limit", "--no-report", "--no-progress", "--seed", "11"],
            cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        watcher = Person(server.port, "watcher")
        wait_for(lambda: any(c == "001" for c, *_ in watcher.lines), what="the watcher connected")
        watcher.send("JOIN #holdem")
        from agent.play.irc.player import PlayerBot

        cfg = Config()
        cfg = dataclasses.replace(cfg, irc=dataclasses.replace(
            cfg.irc, flood_lines_per_second=0, reconnect_min_seconds=0.2, reconnect_max_seconds=2.0,
            decision_margin_seconds=1.0))
        for k, spec in enumerate(["rr", "call", "raise"]):
            bots.append(PlayerBot(cfg, server=server.address, channels=["#holdem"], dealer="dealer", spec=spec,
                                  nick=f"b{k}{spec}", seed=k).start())

        def ended() -> dict[str, dict[str, int]]:
            out = {}
            for text in watcher.from_dealer():
                m = DOC_LINES["ends"].fullmatch(text)
                if m:
                    stacks = dict((n, int(c)) for n, c in (p.rsplit(" ", 1) for p in m.group(2).split(", ")))
                    out[f"irc:#holdem:{m.group(1)}"] = stacks
            return out

        # Killed once twelve hands are announced and some of them are held by the journal
        # alone (a seat taken again, say after a time-out on a loaded machine, stores the
        # waiting hands first: then the next hands are awaited).
        wait_for(lambda: len(ended()) >= 12 and bool(set(ended()) - stored_ids(db)),
                 timeout=120, what="twelve hands announced, some not stored yet")
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        time.sleep(0.3)  # the last lines it sent reach the watcher
        announced = ended()
        # The kill caught hands that only the journal held.
        lacking = set(announced) - set(stored_hands(db))
        assert lacking, "every announced hand was stored already: the test did not test the journal"
        assert read_journal(journal_path(db))[1] == []
        for bot in bots:
            bot.stop()
        bots = []
        host = DealerHost(server.address, ["#holdem"], db, Config(), hands=None, seed=12)
        host.start()
        try:
            assert host.replayed >= len(lacking)
            total, granted = host.chips()
        finally:
            host.stop()
    finally:
        for bot in bots:
            bot.stop()
        if watcher is not None:
            watcher.close()
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait(30)
        if proc is not None and proc.stderr is not None:
            proc.stderr.close()
        server.stop()
    stored = stored_hands(db)
    assert set(announced) <= set(stored)
    after = _after_stacks(stored)
    for hand_id, stacks in announced.items():
        assert after[hand_id] == stacks, hand_id
    numbers = sorted(int(h.rsplit(":", 1)[1]) for h in stored)
    assert numbers == list(range(1, len(numbers) + 1))
    # A hand in progress at the kill was never announced as ended and is not stored.
    assert len(stored) - len(announced) <= 1
    assert total == granted == 3 * Config().irc.initial_bankroll
    with Database(db, create=False) as check:
        assert check.check() == []
    assert read_journal(journal_path(db)) == ([], [])  # stored, then emptied


def test_a_bankroll_is_told_only_to_the_connection_that_holds_it(tmp_path) -> None:
    """!stats: the bank tells a nick's bankroll to the user@host that holds it, and to
    nobody else under that nick (a real SQLite file)."""
    from connectors.irc.address import network_of
    from db.bankroll import Bankrolls

    with Database(tmp_path / "bank.sqlite") as db:
        bank = Bankrolls(db, network_of("127.0.0.1"), initial=1000)
        bank.open_table("#t")
        bank.sit("#t", "alice", "alice@192.0.2.1", 200, 200, 0)
        assert bank.bankroll_for("alice", "alice@192.0.2.1") == 800
        assert bank.bankroll_for("alice", "mallory@192.0.2.9") is None
        # Her connection under another nick: her own bankroll (it follows her, not the nick).
        assert bank.bankroll_for("nobody", "alice@192.0.2.1") == 800
        assert bank.bankroll_for("nobody", "eve@192.0.2.5") is None


def test_a_bankroll_follows_its_connection_across_nick_changes(tmp_path) -> None:
    """A seated player who changes nick takes bankroll and table chips along; one who sits
    under a new nick later finds the bankroll she left; nobody gets a second grant by a
    new nick, and another connection under her old nick gets a bankroll of its own (a
    real SQLite file)."""
    from connectors.irc.address import network_of
    from db.bankroll import Bankrolls

    with Database(tmp_path / "bank.sqlite") as db:
        bank = Bankrolls(db, network_of("127.0.0.1"), initial=1000)
        bank.open_table("#t")
        bank.open_table("#u")
        assert bank.sit("#t", "alice", "alice@192.0.2.1", 200, 200, 0) == (200, 800)
        assert bank.sit("#u", "alice", "alice@192.0.2.1", 100, 100, 0) == (100, 700)
        for channel in ("#t", "#u"):  # the dealer renames her seat at each table
            bank.rename(channel, "alice", "alice2", "alice@192.0.2.1")
        assert bank.bankroll_for("alice2", "alice@192.0.2.1") == 700
        assert bank.bankroll("alice") is None
        assert bank.at_table("#t") == {"alice2": 200} and bank.at_table("#u") == {"alice2": 100}
        assert bank.leave("#t", "alice2") == (200, 900)
        assert bank.leave("#u", "alice2") == (100, 1000)
        # Off the tables she changes nick again and sits: the same bankroll, no new grant.
        assert bank.sit("#t", "alice3", "~alice@192.0.2.1".lstrip("~"), 300, 300, 0) == (300, 700)
        assert bank.bankroll("alice2") is None
        # Someone else under her old nicks: a bankroll of its own.
        assert bank.sit("#u", "alice", "eve@192.0.2.5", None, 100, 0) == (100, 900)
        assert bank.total() == bank.granted() == 2000
        # Back under a nick she held before: the bankroll moves along again, nothing lost.
        bank.rename("#t", "alice3", "alice2", "alice@192.0.2.1")
        assert bank.leave("#t", "alice2") == (300, 1000)
        assert bank.total() == bank.granted() == 2000
