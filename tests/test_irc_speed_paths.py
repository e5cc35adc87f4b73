"""The short paths that make a loopback table fast, checked against the long ones they
replace: the IRC client's PRIVMSG/NOTICE path against the ``irc`` library's own event
path (line for line, the same events), lines queued together leaving in one write over a
real server (in order, none lost, from any thread), an unsendable line that no longer
ends the loop, and the dialect's turn-line shortcut against the full parser."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from connectors.irc import dialect as d
from connectors.irc.client import IrcClient, IrcEvent
from connectors.irc.server import LoopbackServer

from irc_live import Person, wait_for

# Raw lines as a server sends them: the common shapes and the awkward ones (colons and
# runs of spaces in the text, non-ASCII, empty text, CTCP, low-level quoting, tags, a
# server source, a parameter without its colon).
RAW = [
    ":dealer!dealer@127.0.0.1 PRIVMSG #holdem :Hand 3: poki to act: fold, call 10 or raise to 20; pot 15 (30s).",
    ":dealer!dealer@127.0.0.1 NOTICE poki :Hand 3: your cards at #holdem: 9s 9c.",
    ":alice!al@host.example PRIVMSG poki :status  now :with: colons ",
    ":alice!al@host.example NOTICE #holdem :señor ♠",
    ":alice!al@host.example PRIVMSG #holdem :",
    ":alice!al@host.example PRIVMSG #holdem :\x01ACTION dances\x01",
    ":alice!al@host.example PRIVMSG #holdem :odd \x10n quoting",
    "@time=2026-01-01T00:00:00Z :alice!al@host.example PRIVMSG #holdem :tagged",
    ":irc.example NOTICE poki :*** server notice",
    ":alice!al@host.example PRIVMSG #holdem single",
    ":bob!b@h JOIN #holdem",
    ":bob!b@h PART #holdem :bye now",
]


def reader(client: IrcClient, short: bool):  # a test helper
    """The client's connection, set up as connect() leaves it, to read lines with no
    socket; ``short`` False sends every line the library's way."""
    conn = client.reactor.server()
    conn.owner = client if short else None
    conn.real_nickname = "poki"
    conn.real_server_name = "irc.example"
    conn.handlers = {}
    return conn


def events_for(lines: list[str], short: bool) -> list[IrcEvent]:
    client = IrcClient("127.0.0.1", 1, "poki", rng=np.random.default_rng(0))
    seen: list[IrcEvent] = []
    client.handler = seen.append
    conn = reader(client, short)
    for line in lines:
        conn._process_line(line)
    return seen


@pytest.mark.parametrize("line", RAW)
def test_the_short_path_gives_what_the_library_gives(line: str) -> None:
    assert events_for([line], short=True) == events_for([line], short=False)


def test_the_short_path_takes_the_table_lines() -> None:
    """It is used (not only equal): a table line does not reach the library's handlers."""
    client = IrcClient("127.0.0.1", 1, "poki", rng=np.random.default_rng(0))
    conn = reader(client, short=True)
    through_library: list[str] = []
    client.reactor.add_global_handler("all_raw_messages", lambda c, ev: through_library.append(ev.arguments[0]), -1)
    client.handler = lambda ev: None
    conn._process_line(RAW[0])
    assert through_library == []
    conn._process_line(RAW[5])  # CTCP: the library's way
    assert through_library == [RAW[5]]


def test_lines_queued_together_arrive_in_order_from_any_thread() -> None:
    with LoopbackServer() as srv:
        listener = Person(srv.port, "listener")
        client = IrcClient(srv.host, srv.port, "talker", flood_rate=0.0, rng=np.random.default_rng(1)).start()
        try:
            wait_for(lambda: client.registered and any(c == "001" for c, *_ in listener.lines), what="both connected")
            # 300 lines from three threads at once, and 100 queued in one go on the loop.
            def talk(who: str) -> None:
                for k in range(100):
                    client.say("listener", f"{who} {k}")

            threads = [threading.Thread(target=talk, args=(w,)) for w in "abc"]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            client.call_soon(lambda: [client.say("listener", f"loop {k}") for k in range(100)])
            wait_for(lambda: sum(1 for c, *_ in listener.lines if c == "PRIVMSG") == 400, what="400 lines")
            got = [t for c, _, _, t in listener.lines if c == "PRIVMSG"]
            for who in ("a", "b", "c", "loop"):
                assert [t for t in got if t.split()[0] == who] == [f"{who} {k}" for k in range(100)]
        finally:
            client.stop()
            listener.close()


def test_an_unsendable_line_is_dropped_and_the_loop_goes_on() -> None:
    with LoopbackServer() as srv:
        listener = Person(srv.port, "listener")
        client = IrcClient(srv.host, srv.port, "talker", flood_rate=0.0, rng=np.random.default_rng(1)).start()
        try:
            wait_for(lambda: client.registered and any(c == "001" for c, *_ in listener.lines), what="both connected")
            client.send_raw("PRIVMSG listener :" + "x" * 600)  # over IRC's 512 bytes
            client.say("listener", "still here")
            wait_for(lambda: any(t == "still here" for c, _, _, t in listener.lines if c == "PRIVMSG"), what="next line")
            assert not any(t.startswith("xxx") for c, _, _, t in listener.lines if c == "PRIVMSG")
            assert client._thread is not None and client._thread.is_alive()
        finally:
            client.stop()
            listener.close()


def test_turn_of_names_the_player_exactly_when_the_parser_sees_a_turn() -> None:
    lines = [
        "Hand 17: poki to act: fold, call 10 or raise to 20; pot 45 (30s).",
        "Hand 3: a-b_c to act: check or bet 10; pot 45 (30s).",
        "Hand 3: poki calls 10.",
        "Hand 3: poki raises to 20 (all-in).",
        "Hand 3: flop 7h 8d 2c.",
        "Hand 3: starts. Button alice. Blinds 5/10, bets 10/20, cap 4. Seats: alice 1000, bob 990.",
        "Hand 3: ends. Stacks: alice 1025, bob 985.",
        "Hand 3: your cards at #holdem: 9s 9c.",
        "Table: to act: sits with 5 chips (bankroll 5).",
        "Table: poki sits with 1000 chips (bankroll 9000).",
        "Hand 3: to act: fold.",
    ]
    for line in lines:
        try:
            msg = d.parse_line(line)
        except d.DialectError:
            msg = None
        want = msg.nick if isinstance(msg, d.ToAct) else None
        assert d.turn_of(line) == want, line
    # It only names the player: a reader still parses (and may refuse) its own turn.
    assert d.turn_of("Hand 3: poki to act: fold, call") == "poki"
    with pytest.raises(d.DialectError):
        d.parse_line("Hand 3: poki to act: fold, call")


def test_process_cpu_seconds_agrees_with_the_kernel_clock_of_this_process() -> None:
    """The bench's per-process CPU reader, checked against os.times() for this very
    process (the same kernel counters through another call) and a burst of work."""
    import os
    import sys
    import time

    from agent.bench.irc import process_cpu_seconds

    if not sys.platform.startswith("linux"):
        pytest.skip("/proc is Linux's")
    before = process_cpu_seconds(os.getpid())
    t = os.times()
    assert before is not None and abs(before - (t.user + t.system)) < 0.05
    start = time.process_time()
    while time.process_time() - start < 0.3:
        sum(range(1000))
    after = process_cpu_seconds(os.getpid())
    assert after is not None and after - before >= 0.25
    assert process_cpu_seconds(2**22 + 12345) is None  # no such process: no figure


def test_the_bench_table_shows_cpu_per_hand_by_process() -> None:
    from agent.bench import format_table

    figures = {"irc": {"hands_per_s": 40.0, "load_average": 3.3, "poki_latency_median_ms": None,
                       "cpu_ms_per_hand": {"dealer": 4.0, "server": 3.5, "bots": 20.0, "total": 27.5}}}
    text = format_table(figures)
    assert "40 hands/s" in text and "load 3.3" in text
    assert "CPU/hand 27.5 ms: dealer 4.0, server 3.5, bots 20.0" in text
    figures["irc"]["cpu_ms_per_hand"] = None  # no /proc: the row without the breakdown
    assert "CPU/hand" not in format_table(figures)


# --- reading: the client's own line splitting ----------------------------------------------


def _stream_events(chunks: list[bytes]) -> tuple[list[IrcEvent], object]:
    """Events of raw bytes arriving in ``chunks`` through the client's read path (a
    socket pair standing in for the server's socket)."""
    import socket

    client = IrcClient("127.0.0.1", 1, "poki", rng=np.random.default_rng(0))
    seen: list[IrcEvent] = []
    client.handler = seen.append
    conn = reader(client, short=True)
    a, b = socket.socketpair()
    conn.socket = b
    conn.reset_reader()
    try:
        for chunk in chunks:
            a.sendall(chunk)
            conn.process_data()
    finally:
        a.close()
        b.close()
    return seen, conn


def test_lines_cut_anywhere_read_as_whole_lines() -> None:
    """The stream of RAW lines (CR LF and bare LF endings), cut at every few bytes, gives
    the events each line gives alone."""
    data = b"".join(line.encode() + (b"\r\n" if k % 2 else b"\n") for k, line in enumerate(RAW))
    want = events_for(RAW, short=True)
    for step in (1, 7, 64, len(data)):
        chunks = [data[i:i + step] for i in range(0, len(data), step)]
        assert _stream_events(chunks)[0] == want, step


def test_a_line_that_is_not_utf8_is_read_and_the_next_ones_too() -> None:
    """The irc library's strict decoding raised out of the read on such a line (the loop
    then ended); here it reads as Latin-1, as IRC clients do."""
    data = (b":al!a@h PRIVMSG #holdem :caf\xe9\r\n"
            + RAW[0].encode() + b"\r\n")
    seen, _ = _stream_events([data])
    assert [e.text for e in seen] == ["caf\u00e9", RAW[0].split(" :", 1)[1]]


def test_an_endless_line_is_dropped_and_reading_goes_on() -> None:
    from connectors.irc.client import MAX_READ_LINE

    seen, conn = _stream_events([b"x" * (MAX_READ_LINE + 10), b"\r\n" + RAW[0].encode() + b"\r\n"])
    assert [e.text for e in seen] == [RAW[0].split(" :", 1)[1]]
    assert conn.overlong == 1


# --- moves said to the dealer alone ---------------------------------------------------------


def test_a_private_move_reads_back_and_nothing_else_is_one() -> None:
    for word in d.ACTIONS:
        assert d.parse_move(d.format_move(word, "#holdem")) == (word, "#holdem")
    assert d.parse_move("CALL #holdem") == ("call", "#holdem")
    for text in ["call", "call holdem", "call #holdem now", "!sit #holdem", "raise 20", "hello #holdem", ""]:
        assert d.parse_move(text) is None, text
    with pytest.raises(d.DialectError):
        d.format_move("allin", "#holdem")
    with pytest.raises(d.DialectError):
        d.format_move("call", "holdem")
