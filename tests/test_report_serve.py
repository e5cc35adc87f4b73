"""The live report (`poki report --serve`, agent.report.serve) and the hand replayer
(agent.report.hands), on real SQLite files filled by replaying the online rooms' real hand
histories (../shared/data/fpdb-lhe): a real headless Chromium loads the served page, hands
are stored meanwhile, and the page shows them without being reloaded, keeping the
reader's sort, filter and scroll place; a hand steps to the river and shows its winner.
Also the server's bounds over real TCP sockets (GET only, bounded paths, no traversal,
loopback Host only), the refusal of a non-loopback address without --bind-any, a clean
stop on SIGTERM, and the IRC dealer serving its database while it deals."""
from __future__ import annotations

import hashlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from agent.cli import main
from agent.report.page import ReportOptions
from agent.report.serve import ReportServer, ServeError
from db.opening import open_read_only

from shared_data import FPDB_LHE

pytestmark = pytest.mark.skipif(FPDB_LHE is None, reason="../shared/data/fpdb-lhe is not here")

ROOT = Path(__file__).resolve().parent.parent
# The OnGame hand that goes to a showdown on the river (the file's own words: "Hero shows
# [ Kd, Ks ]", "Hero wins $3.75" of a pot of $3.90 less $0.15 rake, board 2d Ad Th 8s 7d).
SHOWDOWN = "ongame:R5-75443872-61"


def _replay(folder: str, db: Path) -> None:
    assert main(["replay", str(FPDB_LHE / folder), "--db", str(db), "--no-progress"]) == 0


def _seq(db: Path, room_hand: str) -> int:
    """The seq of a room's hand, by its room and number (its id ends with its content's digest)."""
    conn = open_read_only(db)
    try:
        rows = conn.execute("SELECT seq FROM hands WHERE hand_id LIKE ? ESCAPE '!'",
                            (room_hand.replace("!", "!!").replace("%", "!%").replace("_", "!_") + ":%",)).fetchall()
        assert len(rows) == 1, (room_hand, rows)
        return int(rows[0][0])
    finally:
        conn.close()


def _get(url: str, timeout: float = 30.0) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _raw(port: int, request: bytes, timeout: float = 30.0) -> bytes:
    """What the server answers to bytes sent as they are (no client library to tidy them)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


@pytest.fixture
def rooms_db(tmp_path) -> Path:
    db = tmp_path / "rooms.sqlite"
    _replay("Stars", db)
    return db


def test_a_non_loopback_address_is_refused_without_bind_any(rooms_db, capsys) -> None:
    for host in ("0.0.0.0", "192.0.2.7", "::", "example.com"):
        with pytest.raises(ServeError, match="--bind-any"):
            ReportServer(str(rooms_db), ReportOptions(), host=host, port=0)
    assert main(["report", "--db", str(rooms_db), "--serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    assert "will not listen on 0.0.0.0" in capsys.readouterr().err
    # Loopback, by address or name, needs nothing; any address with the option.
    for host in ("127.0.0.1", "localhost"):
        with ReportServer(str(rooms_db), ReportOptions(), host=host, port=0) as server:
            assert _get(server.url + "version.json")[0] == 200
    with ReportServer(str(rooms_db), ReportOptions(), host="0.0.0.0", port=0, allow_any=True) as server:
        assert _get(f"http://127.0.0.1:{server.port}/version.json")[0] == 200


def test_requests_are_bounded_and_the_file_is_never_written(rooms_db) -> None:
    before = hashlib.sha256(rooms_db.read_bytes()).hexdigest()
    with ReportServer(str(rooms_db), ReportOptions(), port=0) as server:
        port = server.port
        host = f"Host: 127.0.0.1:{port}\r\n".encode()
        status, body = _get(server.url + "version.json")
        assert status == 200 and '"hands": 4' in body
        assert _get(server.url)[0] == 200
        assert _get(server.url + "hand/1")[0] == 200
        assert _get(server.url + "hand/999")[0] == 404
        assert _get(server.url + "player/123456")[0] == 404
        # Nothing is served from disk: a path that climbs is just an unknown address.
        for path in (b"/../../../etc/passwd", b"/hand/../../etc/passwd", b"/%2e%2e/%2e%2e/etc/passwd",
                     b"/hand/1/../../index.html", b"/report.json", b"/templates/report.html.j2"):
            answer = _raw(port, b"GET " + path + b" HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n")
            assert answer.startswith(b"HTTP/1.0 404"), (path, answer[:80])
            assert b"root:" not in answer
        answer = _raw(port, b"GET /" + b"a" * 400 + b" HTTP/1.1\r\n" + host + b"Connection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.0 414")
        for method in (b"POST", b"PUT", b"DELETE", b"HEAD"):
            answer = _raw(port, method + b" / HTTP/1.1\r\n" + host + b"Content-Length: 0\r\nConnection: close\r\n\r\n")
            assert answer.startswith(b"HTTP/1.0 501"), (method, answer[:80])
        # A page of another site reaching the port through a name of its own (DNS rebinding).
        answer = _raw(port, b"GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.0 421")
        answer = _raw(port, b"GET / HTTP/1.1\r\nHost: localhost:1\r\nConnection: close\r\n\r\n")
        assert answer.startswith(b"HTTP/1.0 421")
    assert hashlib.sha256(rooms_db.read_bytes()).hexdigest() == before
    # Stopped: the port no longer answers.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_a_silent_client_is_dropped_and_connections_are_bounded(rooms_db, monkeypatch) -> None:
    from agent.report import serve

    monkeypatch.setattr(serve._Handler, "timeout", 1.0)
    monkeypatch.setattr(serve, "MAX_CLIENTS", 2)
    with ReportServer(str(rooms_db), ReportOptions(), port=0) as server:
        silent = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(2)]
        time.sleep(0.3)  # both taken by the server
        # A third connection while two are held: closed unanswered.
        assert _raw(server.port, b"GET /version.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") == b""
        # The silent ones are dropped after the handler's time-out; then requests are served.
        started = time.monotonic()
        for s in silent:
            assert s.recv(100) == b""
            s.close()
        assert time.monotonic() - started < 10
        assert _get(server.url + "version.json")[0] == 200


def test_a_database_not_there_yet_is_said_and_served_once_it_is(tmp_path) -> None:
    db = tmp_path / "later.sqlite"
    with ReportServer(str(db), ReportOptions(), port=0) as server:
        status, body = _get(server.url + "version.json")
        assert status == 503 and "no database at" in body
        _replay("OnGame", db)
        status, body = _get(server.url + "version.json")
        assert status == 200 and '"hands": 2' in body


def test_the_report_is_computed_again_for_new_hands_but_not_more_often_than_its_rest(tmp_path, monkeypatch) -> None:
    from agent.report import serve

    db = tmp_path / "rooms.sqlite"
    _replay("Stars", db)
    live = serve.LiveReport(str(db), ReportOptions())
    monkeypatch.setattr(serve, "LOAD_FACTOR", 0.0)
    first = live.snapshot()
    assert first.data.hands == 4 and live.snapshot() is first  # nothing stored: the same report
    monkeypatch.setattr(serve, "LOAD_FACTOR", 10_000.0)
    _replay("OnGame", db)
    second = live.snapshot()  # hands stored: computed again
    assert second.data.hands == 6 and second.tag.startswith("6:")
    _replay("Absolute", db)
    assert live.snapshot() is second  # resting after a computation: the report stays as it was
    live._not_before = 0.0  # the rest over
    assert live.snapshot().data.hands > 6


def test_the_file_report_replays_the_hands_it_lists(tmp_path) -> None:
    db = tmp_path / "rooms.sqlite"
    _replay("OnGame", db)
    out = tmp_path / "report"
    assert main(["report", "--db", str(db), "--out", str(out), "--no-progress"]) == 0
    seq = _seq(db, SHOWDOWN)
    index = (out / "index.html").read_text()
    # Linked from the opponent's list of hands and from his won-from/lost-to figure of it.
    assert f'class="hand-link" href="hands/{seq}.html"' in index
    assert re.search(rf'class="vs-link [a-z]*" href="hands/{seq}.html"', index)
    page = (out / "hands" / f"{seq}.html").read_text()
    assert "Hero wins 375" in page and "rake 15" in page
    assert re.search(r"<td>player5</td><td>raises to 105 and is all-in</td><td>330</td>", page)
    assert "Hero won <b>105.00</b> from player5" in page
    assert page.count('class="card') >= 5 + 2 + 2  # the board at the result, Hero's cards twice


def test_serve_stops_cleanly_on_sigterm(rooms_db, tmp_path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "agent.cli", "report", "--db", str(rooms_db), "--serve",
                             "--port", "0"], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()  # the first line names the address
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        assert _get(url.group(0) + "version.json")[0] == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        assert "stopped serving the report" in proc.stdout.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        if proc.stdout is not None:
            proc.stdout.close()


def _wait(browser, expression: str, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = browser.js(expression)
        if value:
            return value
        time.sleep(0.2)
    status = browser.js("document.getElementById('live-status').textContent")
    raise AssertionError(f"no {what} within {seconds} s (the page says: {status}; errors: {browser.errors})")


def test_the_served_report_in_a_real_browser_follows_the_database(tmp_path, browser) -> None:
    db = tmp_path / "rooms.sqlite"
    _replay("Stars", db)
    shots = Path(os.environ.get("POKI_SCREENSHOTS", tmp_path))
    with ReportServer(str(db), ReportOptions(), port=0, poll_seconds=0.5) as server:
        browser.open(server.url)
        assert browser.js("document.getElementById('hand-count').textContent") == "4"
        rows = "Array.from(document.querySelectorAll('#opponents tbody tr'))"
        # The reader's place: sorted by name, filtered, scrolled down a little.
        browser.js("document.querySelectorAll('#opponents th button')[0].click()")
        browser.js("(() => { const f = document.getElementById('find'); f.value = 'player';"
                   " f.dispatchEvent(new Event('input')); })()")
        browser.js("window.scrollTo(0, 120)")
        browser.js("window.notReloaded = true")
        shown_before = browser.js(f"{rows}.filter(r => !r.hidden).length")
        assert 0 < shown_before < browser.js(f"{rows}.length")

        _replay("OnGame", db)  # two more hands stored while the page is open
        _wait(browser, "document.getElementById('hand-count').textContent === '6'", 30,
              "count of 6 hands")
        assert browser.js("window.notReloaded") is True
        assert browser.js("document.getElementById('find').value") == "player"
        names = browser.js(f"{rows}.map(r => r.cells[0].getAttribute('data-v'))")
        assert names == sorted(names) and any(n.startswith("player") for n in names)
        hidden = browser.js(f"{rows}.filter(r => r.hidden).map(r => r.getAttribute('data-name'))")
        assert hidden and not any("player" in n for n in hidden)
        assert all("player" in n for n in browser.js(f"{rows}.filter(r => !r.hidden).map(r => r.getAttribute('data-name'))"))
        assert browser.js(f"{rows}.filter(r => !r.hidden).length") > shown_before  # the new players are there
        assert browser.js("window.scrollY") == 120
        assert "Live: updated" in browser.js("document.getElementById('live-status').textContent")
        browser.js("window.scrollTo(0, 0)")
        browser.screenshot(shots / "report-served.png")

        # From an opponent's page, his list of hands leads to the replayer.
        link = browser.js(f"{rows}.map(r => r.cells[0].querySelector('a')).find(a => a.textContent === 'player5').href")
        browser.open(link)
        seq = _seq(db, SHOWDOWN)
        assert browser.js(f"!!document.querySelector('#hands ~ table a.hand-link[href=\"/hand/{seq}\"]')")
        browser.js(f"document.querySelector('a.vs-link[href=\"/hand/{seq}\"]').click()")
        browser.wait_for("Page.loadEventFired")
        assert browser.js("location.pathname") == f"/hand/{seq}"
        assert browser.js("document.getElementById('at').textContent") == "Pre-flop"
        visible = "Array.from(document.querySelectorAll('section.street')).filter(s => !s.hidden).length"
        assert browser.js(visible) == 1
        for street in ("Flop", "Turn", "River"):
            browser.js("document.getElementById('next').click()")
            assert browser.js("document.getElementById('at').textContent") == street
        cards = browser.js("Array.from(Array.from(document.querySelectorAll('section.street:not([hidden]) h3 .board'))"
                           ".pop().querySelectorAll('.card')).map(c => c.textContent)")
        assert cards == ["2♦", "A♦", "10♥", "8♠", "7♦"]
        assert browser.js("document.getElementById('result').hidden") is True  # the winner not yet told
        browser.js("document.getElementById('next').click()")
        assert browser.js("document.getElementById('at').textContent") == "Result"
        winner = browser.js("document.querySelector('#result .winner').textContent")
        assert winner.startswith("Hero wins 375 with K♦K♠")
        browser.screenshot(shots / "hand-replayer.png", full_page=True)

        # An opponent's page follows the database too, without a reload.
        browser.open(link)
        assert browser.js("document.querySelectorAll('svg.chart').length") == 1
        browser.js("window.notReloaded = true")
        _replay("Absolute", db)
        _wait(browser, "document.getElementById('hand-count').textContent !== '6'", 30, "new count of hands")
        assert browser.js("window.notReloaded") is True
        assert int(browser.js("document.getElementById('hand-count').textContent")) > 6
        assert browser.errors == []


@pytest.mark.timeout(300)
def test_the_dealer_bot_serves_the_live_report_of_its_database(tmp_path, server) -> None:
    """`poki irc deal --serve-report PORT`: the report of the dealer's database follows the
    hands it deals, and stops with the bot."""
    import dataclasses

    from agent.config import Config
    from agent.play.irc.player import PlayerBot

    (tmp_path / "config.toml").write_text("[irc]\nhand_pause_seconds = 0\naction_seconds = 20\n")
    with socket.socket() as s:  # a free port (the OS's), for the option
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "dealer.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent.cli", "--config", str(tmp_path / "config.toml"), "irc", "deal",
         "--server", server.address, "--channel", "#holdem", "--db", str(db), "--logs", str(tmp_path / "logs"),
         "--no-flood-limit", "--no-report", "--no-progress", "--seed", "5", "--serve-report", str(port)],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    bots = []
    try:
        cfg = Config()
        cfg = dataclasses.replace(cfg, irc=dataclasses.replace(cfg.irc, flood_lines_per_second=0))
        for k, spec in enumerate(["rr", "call"]):
            bots.append(PlayerBot(cfg, server=server.address, channels=["#holdem"], dealer="dealer", spec=spec,
                                  nick=f"s{k}{spec}", seed=k).start())
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 180
        hands = 0
        while hands < 3:
            assert time.monotonic() < deadline, "the served report did not show 3 dealt hands within 180 s"
            assert proc.poll() is None, "the dealer stopped"
            try:
                status, body = _get(url + "version.json")
            except urllib.error.URLError:  # the dealer is still starting: not listening yet
                status = 0
            if status == 200:
                hands = int(re.search(r'"hands": (\d+)', body).group(1))
            time.sleep(0.5)
        status, page = _get(url)
        assert status == 200 and "s1call" in page
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) in (0, 1)
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        for bot in bots:
            bot.stop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
        if proc.stdout is not None:
            proc.stdout.close()


def test_a_bot_whose_report_port_is_taken_stops_before_playing(tmp_path, capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["irc", "play", "--server", "127.0.0.1:9", "--db", str(tmp_path / "p.sqlite"), "--no-report",
                     "--serve-report", str(port)]) == 2
    err = capsys.readouterr().err
    assert "--serve-report" in err and f"127.0.0.1:{port}" in err
    assert not (tmp_path / "p.sqlite").exists()
