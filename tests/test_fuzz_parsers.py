"""Property-based fuzzing of every parser of outside input, through the code that uses
it: the invariant is a clear error or a correct result, never a traceback or a hang.

Inputs are real samples of each format (our dealer's ACPC states and logs, a PHH hand,
the dealer's IRC lines, lines of the real 1995 IRC month) cut, spliced, repeated and
sprinkled with hostile characters, plus plain random text. Each target is driven the way
the program drives it:

* ACPC MATCHSTATE lines, sequences of them, through our client's session (both its full
  path and its lean one) into the seat and its tracker: every line is answered or not,
  never raises;
* ACPC responses through our dealer's reading of answers; bytes through the line framer;
* IRC dialect lines from the dealer through the player bot's feed into a seat, and
  players' moves and commands as the dealer bot reads them;
* files of the IRC database (hdb, hroster, pdb), ACPC logs and PHH (.phh, .phhs) through
  the replay's planning and reading of chunks into the tracker and the database's checks;
* config files, as bytes and as parsed TOML of any shape.

Runs are deterministic (derandomized, no example database), so CI is reproducible, and
sized to take well under a few minutes together.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent.config import Config, ConfigError, load_config, parse_config
from agent.game.events import Event
from agent.play.seat import Seat
from agent.players import create_player
from connectors.acpc.client import LineFramer
from connectors.acpc.game import standard_game
from connectors.acpc.protocol import ProtocolError, parse_matchstate, parse_response
from connectors.irc import dialect as d

from helpers.tiers import examples

FUZZ = settings(derandomize=True, database=None, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
CHEAP = settings(FUZZ, max_examples=examples(500))  # pure functions
FILES = settings(FUZZ, max_examples=examples(100))  # a file written and replayed per example

HOSTILE = "\x00\r\t :|/[]{}'\"#=,.-\\\u00e9\ufffd\u202e9"


def _apply(sample: str, ops: list[tuple]) -> str:
    text = sample
    for op in ops:
        n = len(text)
        at = op[1] % (n + 1)
        if op[0] == "delete":
            text = text[:at] + text[at + op[2]:]
        elif op[0] == "insert":
            text = text[:at] + op[2] + text[at:]
        elif op[0] == "repeat":  # a piece repeated: long lines, deep nesting, runs of separators
            piece = text[at:at + op[2]] or "["
            text = text[:at] + piece * op[3] + text[at:]
        elif op[0] == "nest":  # brackets opened deeper than any parser's stack
            text = text[:at] + op[2] * op[3] + text[at:]
        elif op[0] == "swap" and n:
            other = op[2] % n
            a, b = sorted((at % n, other))
            text = text[:a] + text[b:] + text[a:b]
    return text


def mutated(samples: list[str], alphabet: str = "") -> st.SearchStrategy[str]:
    """Strings near the ``samples``: each cut, spliced, repeated or given hostile characters."""
    chars = st.text(alphabet + HOSTILE, min_size=1, max_size=8)
    op = st.one_of(
        st.tuples(st.just("delete"), st.integers(0, 400), st.integers(1, 12)),
        st.tuples(st.just("insert"), st.integers(0, 400), chars),
        st.tuples(st.just("repeat"), st.integers(0, 400), st.integers(1, 6), st.integers(2, 3000)),
        st.tuples(st.just("swap"), st.integers(0, 400), st.integers(0, 400)),
        st.tuples(st.just("nest"), st.integers(0, 400), st.sampled_from(["[", "{", "[[", "a = [", "{a = "]),
                  st.integers(100, 5000)),
    )
    near = st.builds(_apply, st.sampled_from(samples), st.lists(op, max_size=4))
    return st.one_of(near, near, near, st.text(alphabet + HOSTILE, max_size=200))


# --- ACPC ----------------------------------------------------------------------------------------

HU = standard_game("holdem.limit.2p.reverse_blinds.game")
THREE = standard_game("holdem.limit.3p.game")
STATES_HU = [
    "MATCHSTATE:0:0::KdKh|", "MATCHSTATE:0:0:r:KdKh|", "MATCHSTATE:0:0:rc/:KdKh|/2c7d9s",
    "MATCHSTATE:0:0:rc/cr:KdKh|/2c7d9s", "MATCHSTATE:0:0:rc/crc/:KdKh|/2c7d9s/8c",
    "MATCHSTATE:0:0:rc/crc/cc/cc:KdKh|AsAd/2c7d9s/8c/9d", "MATCHSTATE:1:1::|9h8h", "MATCHSTATE:1:1:r:|9h8h",
    "MATCHSTATE:1:1:rrrc/:|9h8h/Kc2d3s", "MATCHSTATE:0:2::5h5d|", "MATCHSTATE:0:2:f:5h5d|",
    "MATCHSTATE:1:3:cc/crf:|8h8d/As5sTs", "# a comment", ";GUI",
]
STATES_3 = [
    "MATCHSTATE:0:0::Jd7h||", "MATCHSTATE:0:0:f:Jd7h||", "MATCHSTATE:1:0:frrrc/:|2hTs|/8dKc7s",
    "MATCHSTATE:2:5:rfrrc/rrrrc/rrrrc/crc:4cQd|As3d|8dJs/7h5hJc/5c/2s", "MATCHSTATE:1:4:frf:|7h8s|",
]
STATE_CHARS = "MATCHSTATE0123456789fcrk/|AKQJT98765432shdcx"


def _session(game, spec: str):
    """Our client's session for ``spec`` as play_at_dealer makes it (no socket)."""
    from agent.play.acpc.lean import LeanSession
    from agent.play.acpc.match import AcpcSession, DecisionClock

    seat = Seat(create_player(spec, np.random.default_rng(0), "me"), source="fuzz")
    clock = DecisionClock(5.0, 5.0)
    if seat.follows_events:
        return seat, AcpcSession(game, seat, match="f", source="fuzz", clock=clock)
    return seat, LeanSession(game, seat, match="f", source="fuzz", clock=clock)


@pytest.mark.parametrize("game, samples, spec", [(HU, STATES_HU, "rr"), (HU, STATES_HU, "call"),
                                                 (THREE, STATES_3 + STATES_HU[:3], "rr")])
def test_fuzz_acpc_states_through_our_client(game, samples, spec) -> None:
    @CHEAP
    @given(st.lists(mutated(samples, STATE_CHARS), min_size=1, max_size=12))
    def run(lines: list[str]) -> None:
        seat, session = _session(game, spec)
        try:
            for line in lines:
                answer = session.on_line(line)
                assert answer is None or (answer.startswith(line.rstrip("\r\n")) and answer[-2] == ":")
                session.catch_up()
            seat.flush(30)
            assert seat.stats.player_errors == 0
        finally:
            seat.close()

    run()


@CHEAP
@given(mutated(STATES_HU + STATES_3, STATE_CHARS))
def test_fuzz_acpc_matchstate_grammar(line: str) -> None:
    try:
        state = parse_matchstate(line)
    except ProtocolError:
        return
    assert 2 <= state.players <= 10 and 0 <= state.position < state.players
    assert len(state.betting) == len(state.board) and state.holes[state.position] is not None


RESPONSES = [s + a for s in STATES_HU[:6] for a in (":c", ":r", ":f", ":r100", ":k")] + ["VERSION:2.0.0"]


@CHEAP
@given(st.lists(mutated(RESPONSES, STATE_CHARS + ":"), max_size=6), st.sampled_from(STATES_HU[:6]))
def test_fuzz_responses_as_our_dealer_reads_them(lines: list[str], state: str) -> None:
    from agent.game.rules import Action
    from agent.play.acpc.dealer import AcpcDealer
    from agent.play.acpc.dealer_seats import DealerLimits, TableSeat

    dealer = AcpcDealer(HU, ["a", "b"], 1, 0)
    seat = TableSeat(0, "a", None, DealerLimits())
    legal = (Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE)
    pending = list(lines)
    # An action, True for a malformed answer (taken as a call), False for none yet; the
    # hand driver turns an action that is not legal at the state into check/call.
    answer = dealer._answer_in(seat, pending, state)
    assert isinstance(answer, bool) or answer in legal
    from connectors.acpc.protocol import parse_action

    for line in lines:
        try:
            answered, text = parse_response(line)
        except ProtocolError:
            continue
        assert parse_action(text) in (None, *legal)


@CHEAP
@given(st.lists(st.binary(max_size=300), max_size=12), st.integers(16, 64))
def test_fuzz_the_line_framer(chunks: list[bytes], cap: int) -> None:
    framer = LineFramer("fuzz", max_line=cap)
    lines = []
    for chunk in chunks:
        lines += framer.feed(chunk)
        assert framer.pending <= cap + 1
    assert all(isinstance(x, str) and "\n" not in x and len(x) <= cap + 1 for x in lines)


# --- the IRC dialect ----------------------------------------------------------------------------------

DEALER = [
    "Hand 17: starts. Button bob. Blinds 5/10, bets 10/20, cap 4. Seats: alice 1000, bob 990, poki 1010.",
    "Hand 17: alice posts the small blind, 5.", "Hand 17: bob posts the big blind, 10.",
    "Hand 17: poki to act: fold, call 10 or raise to 20; pot 15 (30s).", "Hand 17: poki calls 10.",
    "Hand 17: alice raises to 20.", "Hand 17: bob folds.", "Hand 17: poki calls 10.",
    "Hand 17: flop 7h 8d 2c.", "Hand 17: poki checks.", "Hand 17: alice bets 10.", "Hand 17: poki calls 10.",
    "Hand 17: turn 7h 8d 2c Ks.", "Hand 17: river 7h 8d 2c Ks 3d.", "Hand 17: poki shows Ah Kd (a pair of Kings).",
    "Hand 17: alice mucks.", "Hand 17: poki wins 75.", "Hand 17: ends.", "Hand 17: void.",
    "Table: alice sits with 1000.", "Table: bob leaves.",
]
HOLE = "Hand 17: your cards at #holdem: As Ks."


def test_fuzz_dealer_lines_through_the_player_feed() -> None:
    from connectors.irc.client import IrcEvent
    from connectors.irc.player import PlayerFeed

    class Client:  # the one part of the IRC connection the feed touches
        nick = "poki"

        def __init__(self):
            self.channels: list[str] = []
            self.handler = None

        def notice(self, target: str, text: str) -> None:
            pass

    class Listener:
        def __init__(self, seat: Seat):
            self.seat = seat

        def on_event(self, channel: str, hand: int, event: Event) -> None:
            self.seat.feed(event)

        def on_turn(self, channel, to_act) -> None:
            if self.seat.our_turn:
                self.seat.decide(5.0)

        def on_void(self, channel, hand) -> None:
            self.seat.abandon("void")

        def on_table(self, channel, msg) -> None:
            pass

        def on_presence(self, channel, nick) -> None:
            pass

        def on_order(self, caller, text) -> str:
            return ""

        def on_connection(self, connected) -> None:
            pass

    @CHEAP
    @given(st.lists(st.tuples(st.booleans(), mutated(DEALER + [HOLE], "Hand0123456789:.,;()")),
                    min_size=1, max_size=20))
    def run(lines: list[tuple[bool, str]]) -> None:
        seat = Seat(create_player("rr", np.random.default_rng(0), "poki"), source="fuzz")
        try:
            feed = PlayerFeed(Client(), ["#holdem"], Listener(seat), dealer_nick="dealer")
            for private, text in lines:
                feed.handle(IrcEvent("notice" if private else "message", "dealer", "d@h",
                                     "poki" if private else "#holdem", text))
            seat.flush(30)
            assert seat.stats.player_errors == 0
        finally:
            seat.close()

    run()


@CHEAP
@given(mutated(DEALER + [HOLE], "Hand0123456789:.,;()"))
def test_fuzz_the_dialect_grammar(line: str) -> None:
    try:
        msg = d.parse_line(line)
    except d.DialectError:
        return
    assert d.parse_line(d.format_line(msg)) == msg  # what it read, it can say again


MOVES = ["fold", "check", "call", "bet", "raise", "!sit", "!sit 500", "!stand", "!leave", "!stats", "!help",
         "raise 20", "  CALL  "]


@CHEAP
@given(mutated(MOVES, "!abcdefghijklmnopqrstuvwxyz0123456789 "))
def test_fuzz_players_moves_and_commands_as_the_dealer_reads_them(text: str) -> None:
    for parse, kind in ((d.parse_move, tuple), (d.parse_command, d.Command)):
        try:
            result = parse(text)
        except d.DialectError:
            continue  # a clear error the dealer says back to the player
        assert result is None or isinstance(result, kind)


# --- log files through the replay -------------------------------------------------------------------

def _replay_items(paths: list[Path]) -> list[tuple]:
    """What the replay makes of ``paths``: every chunk planned, read and tracked into
    database rows, in one process (agent.play.offline.replay), with the file caches cleared."""
    from agent.play.offline.replay import PREPARED, _track_chunk
    from connectors.logs.sources import clear_cache, plan

    clear_cache()
    try:
        chunks, problems = plan(paths, chunk_hands=7)
        entries = []
        for chunk in chunks:
            entries += _track_chunk(chunk, None, PREPARED)
        return entries
    finally:
        clear_cache()


ACPC_LOG = """\
# name/game/hands/seed poki holdem.limit.3p.game 6 3
STATE:0:frrrc/rrrrc/crc/rrc:Jd7h|2hTs|9hQs/8dKc7s/Jh/Qd:140|-140|0:a|b|c
STATE:1:frf:4cKs|7h2d|Th7s:10|-10|0:b|c|a
STATE:2:rfc/rrrrc/rrc/rrc:Ts7s|2hAd|5h8c/Jh2c8h/9d/6h:-5|-140|145:c|a|b
STATE:3:frrc/rrrrc/crrrrc/rrrrc:Jd6s|Qh7h|Kh8s/3h7cKc/7d/3s:-230|230|0:a|b|c
STATE:5:rfrrc/rrrrc/rrrrc/crc:4cQd|As3d|8dJs/7h5hJc/5c/2s:-5|-180|185:c|a|b
SCORE:-410|440|-30:a|b|c
"""


@FILES
@given(st.lists(mutated(ACPC_LOG.splitlines(), "STATE:0123456789fcr/|AKQJT98765432shdc-"), max_size=10))
def test_fuzz_acpc_logs_through_the_replay(lines: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "m.log"
        log.write_text(ACPC_LOG.splitlines()[0] + "\n" + "\n".join(lines) + "\n", encoding="utf-8",
                       errors="surrogatepass")
        entries = _replay_items([log])
    assert all(e[0] in (1, 3) for e in entries)  # problems and prepared hands only


PHH_HAND = """\
[1]
variant = 'FT'
antes = [0, 0]
blinds_or_straddles = [5, 10]
small_bet = 10
big_bet = 20
starting_stacks = [1000, 1000]
actions = ["d dh p1 KdKc", "d dh p2 Th4h", "p2 cc", "p1 cbr 20", "p2 cc", "d db Kh8cKs", "p1 cc", "p2 cc",
  "d db Qd", "p1 cc", "p2 cc", "d db 5c", "p1 cbr 20", "p2 cc", "p1 sm KdKc", "p2 sm Th4h"]
hand = "match:0:0"
players = ["rr", "call"]
finishing_stacks = [1040, 960]
_max_bets = 4
"""


PHH_CHARS = "[]{}'\"=,dhpcbrsmf0123456789"


@FILES
@given(st.one_of(mutated([PHH_HAND, PHH_HAND + "\n" + PHH_HAND.replace("[1]", "[2]")], PHH_CHARS),
                 st.lists(mutated(PHH_HAND.splitlines(), PHH_CHARS), max_size=30).map("\n".join)), st.booleans())
def test_fuzz_phh_files_through_the_replay(text: str, one_hand: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ("h.phh" if one_hand else "h.phhs")
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        entries = _replay_items([path])
    assert all(e[0] in (1, 3) for e in entries)


def _month_samples() -> tuple[list[str], list[str], list[str]]:
    from shared_data import DATA

    if DATA is None:
        return [], [], []
    month = next(p for p in sorted((DATA / "holdem").iterdir()) if (p / "hdb").is_file())
    hdb = (month / "hdb").read_text(encoding="latin-1").splitlines()[:40]
    stamps = {line.split()[0] for line in hdb}
    roster = [x for x in (month / "hroster").read_text(encoding="latin-1").splitlines() if x.split()[:1]
              and x.split()[0] in stamps]
    pdb = []
    for f in sorted((month / "pdb").iterdir()):
        pdb += [x for x in f.read_text(encoding="latin-1").splitlines() if len(x.split()) > 1 and x.split()[1] in stamps]
    return hdb, roster, pdb


HDB, HROSTER, PDB = _month_samples()


@pytest.mark.skipif(not HDB, reason="the shared IRC logs are not there")
@FILES
@given(st.lists(mutated(HDB or ["x"], "0123456789/ "), min_size=1, max_size=12),
       st.lists(mutated(HROSTER or ["x"], "0123456789 "), max_size=12),
       st.lists(mutated(PDB or ["x"], "0123456789 -BbcrkfAQ"), max_size=30))
def test_fuzz_irc_database_months_through_the_replay(hdb: list[str], roster: list[str], pdb: list[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        month = Path(tmp) / "holdem" / "199504"
        (month / "pdb").mkdir(parents=True)
        (month / "hdb").write_bytes("\n".join(hdb).encode("latin-1", "replace"))
        (month / "hroster").write_bytes("\n".join(roster).encode("latin-1", "replace"))
        by_nick: dict[str, list[str]] = {}
        for line in pdb:
            nick = "".join(c for c in (line.split() or ["x"])[0][:20] if c.isascii() and c.isalnum()) or "x"
            by_nick.setdefault(nick, []).append(line)
        for nick, lines in by_nick.items():
            (month / "pdb" / f"pdb.{nick}").write_bytes("\n".join(lines).encode("latin-1", "replace"))
        entries = _replay_items([Path(tmp)])
    assert all(e[0] in (1, 3) for e in entries)


# --- the config ---------------------------------------------------------------------------------------

SECTIONS = {name: [f.name for f in __import__("dataclasses").fields(getattr(Config(), name))]
            for name in ("table", "random", "model", "database", "engine", "report", "irc", "acpc")}
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-10, 100), st.floats(allow_nan=True),
              st.text(max_size=20), st.sampled_from(["#holdem", "127.0.0.1:6667", "normal", "meta", "UTC",
                                                      "30 4 * * *", "poki*", "simulator"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6)


@st.composite
def config_docs(draw) -> dict:
    doc: dict = {}
    for _ in range(draw(st.integers(1, 3))):
        section = draw(st.sampled_from([*SECTIONS, "bogus"]))
        keys = SECTIONS.get(section, ["x"])
        values = draw(st.dictionaries(st.sampled_from([*keys, "unknown"]), VALUES, max_size=3))
        doc[section] = values if draw(st.integers(0, 9)) else draw(VALUES)
    return doc


@CHEAP
@given(config_docs())
def test_fuzz_config_documents(doc: dict) -> None:
    try:
        config = parse_config(doc, "fuzz.toml")
    except ConfigError as exc:
        assert "fuzz.toml" in str(exc)
        return
    assert 2 <= config.table.seats <= 10 and 0 <= config.random.seed < 2**63


CONFIG_TEXT = (Path(__file__).resolve().parents[1] / "config.toml").read_text(encoding="utf-8").splitlines()


@FILES
@given(st.lists(mutated(CONFIG_TEXT, "[]{}=\"'.0123456789-+e#\n"), max_size=15), st.booleans())
def test_fuzz_config_files(lines: list[str], latin1: bool) -> None:
    text = "\n".join(lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.toml"
        path.write_bytes(text.encode("latin-1", "replace") if latin1 else text.encode("utf-8", "surrogatepass"))
        try:
            load_config(path)
        except ConfigError as exc:
            assert str(path) in str(exc)
