"""Nothing lost, no silent success: a hand a command was asked to store and did not is
an error with a count and a non-zero exit. `poki acpc play` against our dealer (real
loopback sockets) and `poki replay`, with a reused match name, a dealer repeating hand
numbers, a read-only database and a full disk (a real small tmpfs where the machine
allows, else SQLite's own page limit: the test ids say which)."""
from __future__ import annotations

import socket
import sqlite3

import pytest
from faults import MOUNT, READ_ONLY, fill, page_limit, read_only_copy, small_disk, stored_hands

from agent.cli import main
from db.database import Database

from acpc_helpers import DealerThread as Dealer

# How a full disk is made (the test ids say): a real small tmpfs where this machine lets
# us mount one (root, as on CI), and always SQLite's own error path (a page limit).
FULL_DISK = ["tmpfs", "sqlite-page-limit"] if MOUNT else ["sqlite-page-limit"]


def _play(port: int, db, *extra: str) -> int:
    return main(["acpc", "play", "127.0.0.1", str(port), "--player", "call", "--db", str(db), "--no-progress",
                 *extra])


_hands = stored_hands


def test_finding2_a_second_match_under_the_same_name_stores_its_hands(tmp_path, capsys) -> None:
    db = tmp_path / "p.sqlite"
    for seed, total in ((1, 10), (2, 20)):
        dealer = Dealer(10, seed, house="house=raise")
        assert _play(dealer.port, db, "--match", "same") == 0
        dealer.join()
        assert _hands(db) == total
        assert "10 hands stored" in capsys.readouterr().out
    # The same seed deals the same cards: still a new match, played at another time.
    dealer = Dealer(10, 1, house="house=raise")
    assert _play(dealer.port, db, "--match", "same") == 0
    dealer.join()
    assert _hands(db) == 30


def test_finding2_a_hand_number_the_dealer_repeats_is_stored(tmp_path) -> None:
    from acpc_helpers import ScriptedDealer, states

    hand = [states("MATCHSTATE:0:2::5h5d|", "MATCHSTATE:0:2:f:5h5d|")]
    other = [states("MATCHSTATE:0:3::7h7d|", "MATCHSTATE:0:3:f:7h7d|")]
    again = [states("MATCHSTATE:0:2::9h9d|", "MATCHSTATE:0:2:f:9h9d|")]
    dealer = ScriptedDealer([*hand, *other, *again, ("close",)])
    db = tmp_path / "p.sqlite"
    assert _play(dealer.port, db, "--match", "t") == 0
    dealer.close()
    assert dealer.problems == []
    conn = sqlite3.connect(db)
    ids = [r[0].rsplit(":", 1)[0] for r in conn.execute("SELECT hand_id FROM hands ORDER BY seq")]
    conn.close()
    assert ids == ["t:2", "t:3", "t:2"]


@pytest.mark.skipif(READ_ONLY == "none", reason="no way to make a read-only file on this machine")
def test_finding2_a_read_only_database_is_refused_before_the_match(tmp_path, capsys) -> None:
    made = tmp_path / "p.sqlite"
    Database(made).close()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    try:
        with read_only_copy([made], tmp_path) as ro:
            assert _play(listener.getsockname()[1], ro / "p.sqlite") == 1
        err = capsys.readouterr().err
        assert "p.sqlite" in err and "cannot be written" in err and "Traceback" not in err
        # Refused before the match: the client never connected to the dealer.
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()


@pytest.mark.parametrize("method", FULL_DISK)
def test_finding2_a_full_disk_mid_match_fails_with_a_count(method, tmp_path, capsys, monkeypatch) -> None:
    if method == "tmpfs":
        with small_disk(tmp_path, 2048) as disk:
            db = disk / "p.sqlite"
            Database(db).close()
            fill(disk, 400)
            dealer = Dealer(60, 4, house="house=raise")
            assert _play(dealer.port, db) == 1
            dealer.join()
            stored = _hands(db)
    else:
        db = tmp_path / "p.sqlite"
        Database(db).close()
        with page_limit(monkeypatch, 8):
            dealer = Dealer(60, 4, house="house=raise")
            assert _play(dealer.port, db) == 1
            dealer.join()
        stored = _hands(db)
    out = capsys.readouterr()
    print(f"full disk by {method}: {stored} of 60 hands stored")
    assert f"{stored} hands stored" in out.out and 0 < stored < 60  # the disk filled mid-match
    assert "NOT stored" in out.err and "full" in out.err
    assert "of 60 finished hands" in out.err


@pytest.fixture(scope="module")
def acpc_log(tmp_path_factory):
    folder = tmp_path_factory.mktemp("log")
    log = folder / "match.log"
    assert main(["acpc", "deal", "--players", "a", "b", "--seat", "a=call", "--seat", "b=raise",
                 "--hands", "300", "--seed", "3", "--log", str(log), "--no-progress"]) == 0
    return log


@pytest.mark.skipif(READ_ONLY == "none", reason="no way to make a read-only file on this machine")
def test_finding6_replay_into_a_read_only_database_is_a_clear_error(acpc_log, tmp_path, capsys) -> None:
    made = tmp_path / "r.sqlite"
    Database(made).close()
    with read_only_copy([made], tmp_path) as ro:
        before = (ro / "r.sqlite").read_bytes()
        assert main(["replay", str(acpc_log), "--db", str(ro / "r.sqlite"), "--no-progress"]) == 1
        err = capsys.readouterr().err
        assert "cannot be written" in err and "Traceback" not in err
        assert (ro / "r.sqlite").read_bytes() == before


@pytest.mark.parametrize("method", FULL_DISK)
def test_finding6_replay_onto_a_full_disk_fails_clearly_and_resumes(method, acpc_log, tmp_path, capsys,
                                                                   monkeypatch) -> None:
    def replay_into(db) -> int:
        return main(["--config", str(config), "replay", str(acpc_log), "--db", str(db), "--no-progress",
                     "--workers", "1", "--chunk", "50"])

    config = tmp_path / "small.toml"
    config.write_text("[database]\nbatch_hands = 25\n")
    if method == "tmpfs":
        with small_disk(tmp_path, 2048) as disk:
            db = disk / "r.sqlite"
            Database(db).close()
            filler = fill(disk, 640)
            assert replay_into(db) == 1
            err = capsys.readouterr().err
            part = _hands(db)
            filler.unlink()  # room again: the same command goes on where it stopped
            assert replay_into(db) == 0
            whole = _hands(db)
            resumed = _rows(db)
    else:
        db = tmp_path / "r.sqlite"
        Database(db).close()
        with page_limit(monkeypatch, 40):
            assert replay_into(db) == 1
        err = capsys.readouterr().err
        part = _hands(db)
        assert replay_into(db) == 0
        whole = _hands(db)
        resumed = _rows(db)
    assert "full" in err and "resumes where it stopped" in err and "Traceback" not in err
    assert 0 < part < 300 and whole == 300
    # Resumed, the file is the one an uninterrupted replay makes.
    clean = tmp_path / "clean.sqlite"
    assert replay_into(clean) == 0
    assert resumed == _rows(clean)


def _rows(db) -> dict:
    conn = sqlite3.connect(db)
    try:
        return {t: conn.execute(f"SELECT * FROM [{t}] ORDER BY 1, 2").fetchall()
                for t in ("players", "aliases", "hands", "seats", "actions", "results", "models")}
    finally:
        conn.close()


def test_a_match_under_a_used_name_stores_its_hands_and_says_what_it_held_already(tmp_path, capsys) -> None:
    db = tmp_path / "m.sqlite"

    def match(seed: int) -> int:
        return main(["match", "call", "raise", "--deals", "5", "--seed", str(seed), "--name", "same", "--db", str(db),
                     "--no-progress"])

    assert match(1) == 0 and _hands(db) == 10
    assert match(2) == 0 and _hands(db) == 20  # other cards under the same name: new hands
    capsys.readouterr()
    assert match(1) == 0 and _hands(db) == 20  # the very same deals played the same way
    assert "held already" in capsys.readouterr().out
