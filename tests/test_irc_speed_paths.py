"""The short paths that make a loopback table fast, and the client's reading and writing:
what each line a server sends means (the PRIVMSG/NOTICE short path among them, over a
real socket), malformed lines that end nothing, the line reader and writer alone, lines
queued together leaving in one write over a real server (in order, none lost, from any
thread), an unsendable line that no longer ends the loop, and the dialect's turn-line
shortcut against the full parser."""
from __future__ import annotations

import socket
import threading

import numpy as np
import pytest

from connectors.irc import dialect as d
from connectors.irc.client import IrcClient, IrcEvent
from connectors.irc.framing import MAX_READ_LINE, LineError, LineReader, encode_line
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


# What each RAW line means to a bot, written out by hand: CTCP ACTION reads as a message,
# low-level quoting (\x10, obsolete) is left as it is, a server's notice names the server.
ME, AL, TAB = "poki", "al@host.example", "#holdem"
WANT = [
    IrcEvent("message", "dealer", "dealer@127.0.0.1", TAB,
             "Hand 3: poki to act: fold, call 10 or raise to 20; pot 15 (30s)."),
    IrcEvent("notice", "dealer", "dealer@127.0.0.1", ME, "Hand 3: your cards at #holdem: 9s 9c."),
    IrcEvent("message", "alice", AL, ME, "status  now :with: colons "),
    IrcEvent("notice", "alice", AL, TAB, "señor ♠"),
    IrcEvent("message", "alice", AL, TAB, ""),
    IrcEvent("message", "alice", AL, TAB, "dances"),
    IrcEvent("message", "alice", AL, TAB, "odd \x10n quoting"),
    IrcEvent("message", "alice", AL, TAB, "tagged"),
    IrcEvent("notice", "irc.example", "", ME, "*** server notice"),
    IrcEvent("message", "alice", AL, TAB, "single"),
    IrcEvent("join", "bob", "b@h", TAB),
    IrcEvent("part", "bob", "b@h", TAB, "bye now"),
]
# More shapes: the sender's account (IRCv3 account-tag) on every kind of line, and the
# replies to WHO and NAMES.
MORE = [
    ("@account=al\\sx :alice!al@h PRIVMSG #holdem :hi", IrcEvent("message", "alice", "al@h", TAB, "hi", "", "al x")),
    ("@account=al :alice!al@h JOIN #holdem al :Alice", IrcEvent("join", "alice", "al@h", TAB, account="al")),
    ("@account=al :alice!al@h NICK :alicia", IrcEvent("nick", "alice", "al@h", "", "", "alicia", "al")),
    (":alicia!al@h QUIT :Quit: gone", IrcEvent("quit", "alicia", "al@h", "", "Quit: gone")),
    (":op!o@h KICK #holdem bob :rude", IrcEvent("kick", "op", "o@h", TAB, "rude", "bob")),
    (":irc.example 352 poki #holdem ~b h.example irc.example bob H :0 Bob",
     IrcEvent("who", "bob", "~b@h.example", TAB)),
    (":irc.example 353 poki = #holdem :@dealer poki bob", IrcEvent("names", target=TAB, text="@dealer poki bob")),
    (":alice!al@h PRIVMSG poki :\x01VERSION\x01", None),  # CTCP other than ACTION: not passed on
    (":alice!al@h NOTICE poki :\x01ACTION x\x01", None),  # a CTCP reply
    ("NOTICE * :*** Looking up your hostname", None),  # a notice with no source
]
# Lines a broken or hostile server may send: none may end the read (the library once
# used raised on the first three).
MALFORMED = [":a!b@c QUIT", ":a!b@c PRIVMSG #holdem", " PING", ":a!b@c KICK", ":a!b@c KICK #holdem",
             ":a!b@c JOIN", ":a!b@c NICK", ":a!b@c PART", ":x 352 poki #holdem", ":x 353 poki",
             "@", ":", ":onlyprefix", "@a=b", "PRIVMSG", ":a!b@c PRIVMSG #holdem :\x01", "001", "433"]


class RawServer:
    """A server of one connection on a real loopback socket: it welcomes the client,
    then sends the bytes a test gives it."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.conn: socket.socket | None = None
        self.got = b""  # what the client sent
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return
        self.conn = conn
        conn.sendall(b":irc.example 001 poki :Welcome\r\n")
        try:
            while data := conn.recv(65536):
                self.got += data
        except OSError:
            return

    def send(self, data: bytes) -> None:
        assert self.conn is not None
        self.conn.sendall(data)

    def close(self) -> None:
        self.listener.close()
        if self.conn is not None:
            self.conn.close()


def events_over_a_socket(data: bytes, chunk: int = 0) -> tuple[list[IrcEvent], IrcClient, RawServer]:
    """The events a client gives for ``data`` sent by a server after its welcome (in
    pieces of ``chunk`` bytes, 0: at once), up to a last line the test adds."""
    server = RawServer()
    seen: list[IrcEvent] = []
    client = IrcClient("127.0.0.1", server.port, "poki", handler=seen.append, rng=np.random.default_rng(0))
    client.start()
    try:
        wait_for(lambda: client.registered, what="the welcome")
        data += b":end!e@h PRIVMSG poki :the end\r\n"
        for i in range(0, len(data), chunk or len(data)):
            server.send(data[i:i + (chunk or len(data))])
        wait_for(lambda: any(e.text == "the end" for e in seen), what="the last line")
    finally:
        client.stop()
        server.close()
    return [e for e in seen if e.kind not in ("connected", "disconnected") and e.text != "the end"], client, server


def test_each_server_line_gives_its_event_over_a_real_socket() -> None:
    lines = RAW + [line for line, _ in MORE]
    want = WANT + [event for _, event in MORE if event is not None]
    data = b"".join(line.encode() + (b"\r\n" if k % 2 else b"\n") for k, line in enumerate(lines))
    for chunk in (0, 1, 7):  # the stream cut anywhere reads as whole lines
        assert events_over_a_socket(data, chunk)[0] == want, chunk


def test_malformed_lines_end_nothing_and_the_next_line_is_read() -> None:
    data = b"".join(line.encode() + b"\r\n" for line in MALFORMED) + RAW[0].encode() + b"\r\n"
    seen, client, server = events_over_a_socket(data)
    assert seen[-1] == WANT[0]
    assert [e.kind for e in seen[:-1]] == ["quit"]  # the only one that means something without parameters
    assert client.connects == 1  # read on the same connection
    assert b"PONG\r\n" in server.got  # " PING": a PING all the same


def test_the_short_path_takes_the_table_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """It is used: a table line is not parsed whole; a CTCP line is."""
    import connectors.irc.client as client_module

    parsed: list[str] = []
    whole = client_module.parse_line

    def counted(line: str) -> tuple[str, str, list[str]]:
        parsed.append(line)
        return whole(line)

    monkeypatch.setattr(client_module, "parse_line", counted)
    seen, _, _ = events_over_a_socket(RAW[0].encode() + b"\r\n" + RAW[5].encode() + b"\r\n")
    assert seen == [WANT[0], WANT[5]]
    assert parsed == [":irc.example 001 poki :Welcome", RAW[5]]


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


# --- reading: the line reader alone -------------------------------------------------------


def test_lines_cut_anywhere_read_as_whole_lines() -> None:
    """The stream of RAW lines (CR LF and bare LF endings), cut at every few bytes."""
    data = b"".join(line.encode() + (b"\r\n" if k % 2 else b"\n") for k, line in enumerate(RAW))
    for step in (1, 7, 64, len(data)):
        reader = LineReader()
        got = [line for i in range(0, len(data), step) for line in reader.feed(data[i:i + step])]
        assert got == RAW, step


def test_a_line_that_is_not_utf8_is_read_and_the_next_ones_too() -> None:
    """The irc library's strict decoding raised out of the read on such a line (the loop
    then ended); here it reads as Latin-1, as IRC clients do."""
    data = b":al!a@h PRIVMSG #holdem :caf\xe9\r\n" + RAW[0].encode() + b"\r\n"
    assert LineReader().feed(data) == [":al!a@h PRIVMSG #holdem :caf\u00e9", RAW[0]]


def test_an_endless_line_is_dropped_and_reading_goes_on() -> None:
    """Dropped once it is over the limit, its tail too when the line feed comes (never read
    as a line of its own); the lines after it are read."""
    reader = LineReader()
    assert reader.feed(b"x" * (MAX_READ_LINE + 10)) == []
    assert reader.feed(b"y" * 100) == []
    assert reader.feed(b"tail\r\n" + RAW[0].encode() + b"\r\n") == [RAW[0]]
    assert reader.overlong == 1
    assert reader.feed(b"z" * (MAX_READ_LINE + 1) + b"\n" + RAW[1].encode() + b"\n") == [RAW[1]]
    assert reader.overlong == 2


def test_a_line_we_write_is_checked() -> None:
    assert encode_line("PRIVMSG #holdem :" + "x" * 493).endswith(b"x\r\n")  # 510 bytes: the most
    for bad in ("PRIVMSG #holdem :" + "x" * 494, "PRIVMSG x :a\rb", "PRIVMSG x :a\nQUIT", "PRIVMSG x :a\0"):
        with pytest.raises(LineError):
            encode_line(bad)


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
