"""The IRC dealer dialect alone (connectors/irc/dialect.py): every grammar rule, format ->
parse round trips, garbage refused with a clear error, and the worked example of
docs/irc-dialect.md replayed through the tracker (an independent check of its numbers)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agent.game.records import BET, CALL, CHECK, FOLD, RAISE
from agent.game.rules import Action
from agent.game.tracker import Tracker
from connectors.irc import dialect as d
from connectors.irc.player import events_of
from evaluator_pyx.cards import parse_cards

DOC = Path(__file__).resolve().parents[1] / "docs" / "irc-dialect.md"


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


EXAMPLES: list[tuple[d.Line, str]] = [
    (d.HandStarts(17, "bob", 5, 10, 10, 20, 4, (("alice", 1000), ("bob", 990), ("poki", 1010))),
     "Hand 17: starts. Button bob. Blinds 5/10, bets 10/20, cap 4. Seats: alice 1000, bob 990, poki 1010."),
    (d.BlindPosted(17, "alice", False, 5), "Hand 17: alice posts the small blind, 5."),
    (d.BlindPosted(17, "bob", True, 7, True), "Hand 17: bob posts the big blind, 7 (all-in)."),
    (d.ToAct(17, "poki", (d.Option("fold"), d.Option("call", 10), d.Option("raise", 20)), 45, 30),
     "Hand 17: poki to act: fold, call 10 or raise to 20; pot 45 (30s)."),
    (d.ToAct(2, "poki", (d.Option("check"), d.Option("bet", 20)), 40, 5),
     "Hand 2: poki to act: check or bet 20; pot 40 (5s)."),
    (d.ToAct(2, "poki", (d.Option("fold"), d.Option("call", 3)), 40, 0),
     "Hand 2: poki to act: fold or call 3; pot 40 (0s)."),
    (d.ToAct(2, "poki", (d.Option("check"),), 40, 9), "Hand 2: poki to act: check; pot 40 (9s)."),
    (d.Acted(5, "a", "f"), "Hand 5: a folds."),
    (d.Acted(5, "a", "f", timed_out=True), "Hand 5: a folds (time-out)."),
    (d.Acted(5, "a", "k", timed_out=True), "Hand 5: a checks (time-out)."),
    (d.Acted(5, "a", "c", 10), "Hand 5: a calls 10."),
    (d.Acted(5, "a", "c", 3, all_in=True), "Hand 5: a calls 3 (all-in)."),
    (d.Acted(5, "a", "b", 20), "Hand 5: a bets 20."),
    (d.Acted(5, "[x]`_^{|}-9", "r", 40, all_in=True), "Hand 5: [x]`_^{|}-9 raises to 40 (all-in)."),
    (d.LeftHand(5, "a"), "Hand 5: a leaves the hand."),
    (d.BoardCards(5, "flop", cards("7h 8d 2c"), cards("7h 8d 2c")), "Hand 5: flop 7h 8d 2c."),
    (d.BoardCards(5, "turn", cards("Js"), cards("7h 8d 2c Js")), "Hand 5: turn Js (board 7h 8d 2c Js)."),
    (d.BoardCards(5, "river", cards("3d"), cards("7h 8d 2c Js 3d")),
     "Hand 5: river 3d (board 7h 8d 2c Js 3d)."),
    (d.Shows(5, "a", cards("Ah Kd"), "two pair"), "Hand 5: a shows Ah Kd (two pair)."),
    (d.Shows(5, "a", cards("Ah Kd")), "Hand 5: a shows Ah Kd."),
    (d.Mucks(5, "a"), "Hand 5: a mucks."),
    (d.Wins(5, "a", 120), "Hand 5: a wins 120."),
    (d.HandEnds(5, (("a", 0), ("b", 2000))), "Hand 5: ends. Stacks: a 0, b 2000."),
    (d.HandVoid(5), "Hand 5: void, chips restored."),
    (d.HoleCards(5, "#holdem", cards("9s 9c")), "Hand 5: your cards at #holdem: 9s 9c."),
    (d.TableSit("a", 1000, 9000), "Table: a sits with 1000 chips (bankroll 9000)."),
    (d.TableLeave("a", 1040, 10040), "Table: a leaves with 1040 chips (bankroll 10040)."),
    (d.TableSitOut("a", "3 time-outs in a row; !sit to come back"),
     "Table: a sits out (3 time-outs in a row; !sit to come back)."),
    (d.TableInfo("dealing limit hold'em 10/20."), "Table: dealing limit hold'em 10/20."),
]


@pytest.mark.parametrize("msg, line", EXAMPLES, ids=[type(m).__name__ + str(i) for i, (m, _) in enumerate(EXAMPLES)])
def test_every_line_formats_and_parses_back(msg: d.Line, line: str) -> None:
    assert d.format_line(msg) == line
    assert d.parse_line(line) == msg
    assert d.parse_line(line + "\r\n") == msg  # as it comes off the wire


def test_random_round_trips() -> None:
    rng = np.random.default_rng(13)
    kinds = ["f", "k", "c", "b", "r"]
    for _ in range(500):
        nick = "p" + "".join(rng.choice(list("abcxyz09_-[]"), size=int(rng.integers(0, 14))))
        hand = int(rng.integers(1, 10**9))
        kind = kinds[int(rng.integers(5))]
        amount = None if kind in "fk" else int(rng.integers(0, 10**6))
        msg = d.Acted(hand, nick, kind, amount, bool(rng.integers(2)) and kind not in "fk",
                      bool(rng.integers(2)) and kind in "fk")
        assert d.parse_line(d.format_line(msg)) == msg
        deck = rng.permutation(52)
        seats = tuple((f"s{k}", int(rng.integers(0, 10**5))) for k in range(int(rng.integers(2, 11))))
        start = d.HandStarts(hand, seats[int(rng.integers(len(seats)))][0], 5, 10, 10, 20, 4, seats)
        assert d.parse_line(d.format_line(start)) == start
        board = tuple(int(c) for c in deck[:5])
        river = d.BoardCards(hand, "river", board[4:], board)
        assert d.parse_line(d.format_line(river)) == river
        hole = d.HoleCards(hand, "#t" + nick[:5], (int(deck[5]), int(deck[6])))
        assert d.parse_line(d.format_line(hole)) == hole


GARBAGE = [
    ("Hand 0: a folds.", "Hand <number>"),
    ("Hand 01: a folds.", "Hand <number>"),
    ("Hand x: a folds.", "Hand <number>"),
    ("Hand 5 a folds.", "Hand <number>"),
    ("Hand 5: a folds", "unknown hand line"),  # no full stop: truncated
    ("Hand 5: a fold.", "unknown hand line"),
    ("Hand 5: a calls.", "unknown hand line"),
    ("Hand 5: a calls -5.", "unknown hand line"),
    ("Hand 5: a calls 05.", "unknown hand line"),
    ("Hand 5: a bets 10 (time-out).", "time-out"),
    ("Hand 5: a raises to 20 (time-out) (all-in).", "unknown hand line"),
    ("Hand 5:  a folds.", "unknown hand line"),
    ("Hand 5: averyveryverylongnick folds.", "longer than 16"),
    ("Hand 5: starts. Button x. Blinds 5/10, bets 10/20, cap 4. Seats: a 1, b 2.", "not seated"),
    ("Hand 5: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 1, a 2.", "seated twice"),
    ("Hand 5: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 1.", "out of range"),
    ("Hand 5: starts. Button a. Blinds 10/5, bets 10/20, cap 4. Seats: a 1, b 2.", "out of range"),
    ("Hand 5: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 1, b", "malformed hand start"),
    ("Hand 5: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 1,b 2.", "not a seat"),
    ("Hand 5: flop 7h 8d.", "malformed flop"),
    ("Hand 5: flop 7h 7h 2c.", "twice"),
    ("Hand 5: flop 7x 8d 2c.", "malformed flop"),
    ("Hand 5: turn Js (board 7h 8d 2c Qs).", "does not end the board"),
    ("Hand 5: turn Js (board 7h 8d 2c 3c Js).", "has 5 cards"),
    ("Hand 5: river 3d (board 7h 8d 2c Js).", "has 4 cards"),
    ("Hand 5: a shows Ah.", "malformed show"),
    ("Hand 5: a shows Ah Ah.", "twice"),
    ("Hand 5: a shows Ah Kd (Two Pair).", "malformed show"),
    ("Hand 5: a to act: fold, call 10 or raise to 20; pot 45.", "malformed turn"),
    ("Hand 5: a to act: fold, dance or raise to 20; pot 45 (3s).", "unknown option"),
    ("Hand 5: a to act: check or call 10; pot 45 (3s).", "cannot both"),
    ("Hand 5: a to act: fold, fold; pot 45 (3s).", "unknown option"),
    ("Hand 5: a to act: fold or fold; pot 45 (3s).", "twice"),
    ("Hand 5: your cards at holdem: As Ks.", "malformed hole cards"),
    ("Hand 5: your cards at #holdem: As.", "malformed hole cards"),
    ("Hand 5: ends. Stacks: a, b 2.", "not a seat"),
    ("Hand 5: void.", "malformed void"),
    ("Hand 5: ", "unknown hand line"),
    ("Hand 5: !!!", "unknown hand line"),
    ("hello there", "not a dealer line"),
    ("", "not a dealer line"),
    ("Hand 5: a wins 10 chips.", "unknown hand line"),
    ("Table: \ralice sits with 1000.", "free text must be one line"),  # found by test_fuzz_parsers
    ("Table: bob sits out (away\0).", "free text must be one line"),
]


@pytest.mark.parametrize("line, why", GARBAGE)
def test_garbage_is_refused_with_a_clear_error(line: str, why: str) -> None:
    with pytest.raises(d.DialectError) as err:
        d.parse_line(line)
    assert why in str(err.value)
    if line:
        assert repr(line[:40])[1:-1][:20] in str(err.value)  # the error quotes the line


def test_every_truncation_of_a_hand_line_is_refused_or_shorter_meaning() -> None:
    # A line cut anywhere (a lost TCP tail) never parses as the same message and never
    # raises anything but DialectError.
    for _msg, line in EXAMPLES:
        for cut in range(len(line)):
            try:
                parsed = d.parse_line(line[:cut])
            except d.DialectError:
                continue
            assert isinstance(parsed, d.TableInfo) and line.startswith("Table: "), (line, cut)


def test_format_refuses_what_the_grammar_cannot_carry() -> None:
    bad = [
        d.Acted(0, "a", "f"),
        d.Acted(1, "a b", "f"),
        d.Acted(1, "a" * 17, "f"),
        d.Acted(1, "a", "c", -1),
        d.Acted(1, "a", "c", None),
        d.Acted(1, "a", "f", 10),
        d.Acted(1, "a", "x"),
        d.HandStarts(1, "z", 5, 10, 10, 20, 4, (("a", 1), ("b", 2))),
        d.BoardCards(1, "flop", (1, 2), (1, 2)),
        d.BoardCards(1, "turn", (5,), (1, 2, 3, 4)),
        d.BoardCards(1, "fifth", (5,), (1, 2, 3, 4, 5)),
        d.HoleCards(1, "holdem", (1, 2)),
        d.HoleCards(1, "#holdem", (1, 99)),
        d.Shows(1, "a", (1, 2), "Pair (of aces)"),
        d.ToAct(1, "a", (), 10, 3),
        d.ToAct(1, "a", (d.Option("call"),), 10, 3),
        d.TableInfo("two\nlines"),
    ]
    for msg in bad:
        with pytest.raises(d.DialectError):
            d.format_line(msg)


def test_commands_players_type() -> None:
    for word in d.ACTIONS:
        assert d.parse_command(word) == d.Command(word)
        assert d.parse_command(f"  {word.upper()} ") == d.Command(word)
        assert d.parse_command(d.format_command(d.Command(word))) == d.Command(word)
    for word in d.TABLE_COMMANDS:
        assert d.parse_command("!" + word) == d.Command(word)
    assert d.parse_command("!sit 500") == d.Command("sit", 500)
    assert d.format_command(d.Command("sit", 500)) == "!sit 500"
    for chatter in ("hello", "I call you a liar", "call me", "raise the roof", "", "folded", "ok!"):
        assert d.parse_command(chatter) is None
    for wrong, why in (("!dance", "unknown command"), ("!leave 5", "takes no amount"),
                       ("fold 40", "takes no amount"), ("!sit -5", "not a command"),
                       ("!sit to 5", "takes no 'to'"),
                       ("!", "not a command")):
        with pytest.raises(d.DialectError, match=why):
            d.parse_command(wrong)
    # The amount the turn line shows may be typed with the move (the dealer checks it).
    assert d.parse_command("raise to 60") == d.parse_command("Raise 60") == d.Command("raise", 60)
    assert d.parse_command("call 10") == d.Command("call", 10)
    assert d.parse_command("check to 5") is None and d.parse_command("bet to 10") is None
    with pytest.raises(d.DialectError):
        d.format_command(d.Command("call", 10))
    with pytest.raises(d.DialectError):
        d.format_command(d.Command("dance"))


def test_nicks() -> None:
    assert d.is_nick("poki") and d.is_nick("[poki]_2") and d.is_nick("a" * 16)
    assert not d.is_nick("a" * 17) and not d.is_nick("2poki") and not d.is_nick("po ki")
    assert not d.is_nick("-x") and not d.is_nick("")


def test_the_worked_example_in_the_doc_adds_up_under_the_rules() -> None:
    """docs/irc-dialect.md's hand, parsed line by line and played through the tracker: the
    rules engine must agree with every amount the doc shows, and the stacks at the end."""
    text = DOC.read_text()
    block = text.split("## A hand, as it reads", 1)[1].split("```")[1]
    lines = [ln for ln in block.strip().splitlines() if ln.strip()]
    tracker = Tracker()
    wins: list[tuple[str, int]] = []
    msgs = [m for ln in lines for m in d.parse_lines(ln)]
    assert len(lines) < len(msgs)  # the doc's hand joins clauses
    # The dealer would say it so (the first turn comes on its own line, after the hole cards).
    first_turn = next(k for k, m in enumerate(msgs) if isinstance(m, d.ToAct))
    assert d.format_lines(msgs[:first_turn]) + d.format_lines(msgs[first_turn:]) == lines
    kinds_seen = []
    record = None
    for msg in msgs:
        event = events_of("#holdem", msg, wins)
        if isinstance(msg, d.ToAct):
            tracker.snapshot()  # hole cards nobody saw are dealt face down
            st = tracker.state
            seat = tracker.seat_of(msg.nick)
            assert st.actor == seat
            assert st.pot == msg.pot
            call = msg.option("call")
            if call is not None:
                assert call.amount == st.to_call(seat)
            raise_ = msg.option("raise") or msg.option("bet")
            if raise_ is not None:
                assert raise_.amount == st.raise_to
        if isinstance(msg, d.Acted) and msg.kind == "c":
            assert msg.amount == tracker.state.to_call(tracker.seat_of(msg.nick))
        if event is not None:
            record = tracker.apply(event) or record
        if isinstance(msg, d.Acted):
            kinds_seen.append(msg.kind)
    assert record is not None
    start = dict(msgs[0].seats)
    end = dict(next(m for m in msgs if isinstance(m, d.HandEnds)).stacks)
    # The hand's deck was committed before its cards and deals what the doc shows.
    from connectors.irc.deck_log import verify_lines

    assert verify_lines(lines).verified == 1
    for r in record.results:
        assert start[r.player] - r.put_in + r.won == end[r.player]
    assert set(kinds_seen) == {RAISE, FOLD, CALL, CHECK, BET}
    # The doc's tables list every line kind the module knows.
    for word in ("posts the small blind", "to act:", "folds.", "checks.", "calls <n>.", "bets <n>.",
                 "raises to <n>.", "(all-in)", "(time-out)", "leaves the hand.", "flop <card>",
                 "turn <card> (board", "river <card> (board", "shows <card> <card>", "mucks.",
                 "wins <n>.", "ends. Stacks:", "void, chips restored.", "your cards at <channel>:",
                 "sits with <n> chips (bankroll <n>).", "leaves with <n> chips", "sits out (<reason>).",
                 "`!sit`", "`!stand`", "`!leave`", "`!stats`", "`!help`", "deck commitment <h>.",
                 "deck <card> <card> ... <card>, salt <s>."):
        assert word in text, word
    assert re.search(r"at most 16 characters", text) and d.MAX_NICK == 16


def test_every_dialect_string_lives_in_the_dialect_module() -> None:
    """The bots choose what to say; the words are the dialect module's: no command, hand
    or table line, and no notice to people is typed in the bots' own modules."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    patterns = ("!sit", "!leave", "!stand", "!stats", "!help", "Hand ", "Table: ", "dealing", "you are",
                "you cannot", "nothing to call", "bankroll", "is back", "time-outs in a row")
    for name in ("agent/play/irc/table.py", "agent/play/irc/player.py", "connectors/irc/player.py"):
        tree = ast.parse((root / name).read_text())
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                      and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        logged = {id(arg) for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and isinstance(node.func, ast.Attribute) and node.func.attr in ("error", "warning", "info")
                  for arg in ast.walk(node)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                    and id(node) not in logged:
                assert not any(p in node.value for p in patterns), f"{name}:{node.lineno}: {node.value!r}"


def test_the_words_the_bots_say_read_back() -> None:
    assert d.parse_command(d.sit_command()) == d.Command("sit")
    assert d.parse_command(d.leave_command()) == d.Command("leave")
    opened = d.table_opened(10, 20)
    assert d.is_table_opened(d.parse_line(d.format_line(opened)))
    assert not d.is_table_opened(d.parse_line(d.format_line(d.player_back("bob"))))
    for word in d.ACTIONS:
        assert d.action_of(word) in tuple(Action)
    to_act = d.parse_line("Hand 3: bob to act: fold, call 10 or raise to 20; pot 15 (30s).")
    for word in ("fold", "call", "raise"):
        assert d.action_word(d.action_of(word), to_act) == word
    assert d.timeout_word(to_act) == "fold"
    assert d.looks_like_dealer("Table: x") and d.looks_like_dealer("Hand 1: x") and not d.looks_like_dealer("hi")
    assert d.refusal("table_full", channel="#t", seats=9) == "#t: the table is full (9 seats)"
    assert str(d.MAX_NICK) in d.refusal("long_nick", channel="#t")


def test_deck_commitment_and_reveal_lines() -> None:
    """The commitment is the SHA-256 (hashlib here) of the reveal line's exact text; both
    lines round-trip and malformed ones are refused."""
    import hashlib

    deck = tuple(np.random.default_rng(4).permutation(52).tolist())
    salt = "0123456789abcdef" * 2
    reveal = d.DeckRevealed(7, deck, salt)
    line = d.format_line(reveal)
    assert line.startswith("Hand 7: deck ") and line.endswith(f", salt {salt}.")
    assert d.parse_line(line) == reveal
    digest = d.deck_digest(7, deck, salt)
    assert digest == hashlib.sha256(line.encode()).hexdigest()
    commit = d.DeckCommitment(7, digest)
    assert d.format_line(commit) == f"Hand 7: deck commitment {digest}."
    assert d.parse_line(d.format_line(commit)) == commit
    assert d.deck_digest(8, deck, salt) != digest  # tied to its hand
    for bad in (line.replace(f"salt {salt}", "salt 12"), line.replace("Hand 7: deck ", "Hand 7: deck As "),
                f"Hand 7: deck commitment {digest[:-1]}.", f"Hand 7: deck commitment {digest.upper()}."):
        with pytest.raises(d.DialectError):
            d.parse_line(bad)
    with pytest.raises(d.DialectError):
        d.format_line(d.DeckRevealed(7, deck[:51] + (deck[0],), salt))  # a card twice
    assert d.is_seeded_table(d.table_opened(10, 20, seeded=True))
    assert d.is_table_opened(d.table_opened(10, 20, seeded=True)) and not d.is_seeded_table(d.table_opened(10, 20))


def test_refusals_never_start_like_a_hand_line() -> None:
    facts = dict(channel="#t", hand=3, to_call=10, chips=5, seats=9, reason="x", nick="bob", word="raise",
                 amount=20, options="fold or call 10")
    for kind in d.REFUSALS:
        text = d.refusal(kind, **facts)
        assert not d.is_hand_line(text) and not d.looks_like_dealer(text), kind


def test_verify_lines_finds_a_deck_that_is_not_the_one_dealt() -> None:
    """connectors.irc.deck_log on made-up logs: a good hand verifies; a board not dealt
    from the revealed deck, a commitment after the cards, a missing commitment and a hand
    without its reveal are each reported."""
    from connectors.irc.deck_log import verify_lines

    rng = np.random.default_rng(1)
    deck = tuple(rng.permutation(52).tolist())
    salt = "ab" * 16
    names = [d.CARD_NAMES[c] for c in deck]
    start = "Hand 4: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 100, b 100."
    commit = d.format_line(d.DeckCommitment(4, d.deck_digest(4, deck, salt)))
    flop = f"Hand 4: flop {names[4]} {names[5]} {names[6]}."
    reveal = d.format_line(d.DeckRevealed(4, deck, salt))
    good = [f"[12:00] <dealer> {x}" for x in (start, commit, flop, "Hand 4: ends. Stacks: a 90, b 110.", reveal)]
    check = verify_lines(good)
    assert check.verified == 1 and not check.failed
    # The same hand as the dealer says it, a step's clauses joined on one line.
    joined = d.format_lines([d.parse_line(x) for x in (start, commit, flop, "Hand 4: ends. Stacks: a 90, b 110.", reveal)])
    assert len(joined) < 5 and verify_lines(joined).verified == 1
    wrong_flop = f"Hand 4: flop {names[7]} {names[5]} {names[6]}."
    assert verify_lines([start, commit, wrong_flop, reveal]).failed
    late = verify_lines([start, flop, commit, reveal])
    assert late.failed and "after cards" in late.failed[0].problems[0]
    assert "no commitment" in verify_lines([start, flop, reveal]).failed[0].problems[0]
    assert verify_lines([start, commit, flop]).unverifiable == [4]
    other_salt = d.format_line(d.DeckRevealed(4, deck, "cd" * 16))
    assert "does not match" in verify_lines([start, commit, other_salt]).failed[0].problems[0]


def test_verify_reads_only_the_dealers_lines() -> None:
    """connectors.irc.deck_log in the logs of three clients (irssi ``<nick>`` with a mode
    prefix, weechat's tabs, bare lines): a stranger's fake commitment or forged reveal
    does not fail the dealer's honest hand, named or found as the speaker of the most
    hand lines; the stranger's lines are counted as ignored."""
    from connectors.irc.deck_log import speaker_of, verify_lines

    rng = np.random.default_rng(2)
    deck = tuple(rng.permutation(52).tolist())
    salt = "ef" * 16
    names = [d.CARD_NAMES[c] for c in deck]
    hand = ["Hand 5: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 100, b 100.",
            d.format_line(d.DeckCommitment(5, d.deck_digest(5, deck, salt))),
            f"Hand 5: flop {names[4]} {names[5]} {names[6]}.", "Hand 5: ends. Stacks: a 90, b 110.",
            d.format_line(d.DeckRevealed(5, deck, salt))]
    fake_commit = f"Hand 5: deck commitment {'1' * 64}."
    forged = d.format_line(d.DeckRevealed(5, tuple(reversed(deck)), salt))
    assert speaker_of("[12:00] <@dealer> ") == "dealer" and speaker_of("2026-01-01 12:00\t+mallory\t") == "mallory"
    assert speaker_of("") is None
    irssi = [f"[12:00] <@dealer> {x}" for x in hand[:2]] + [f"[12:00] < mallory> {fake_commit}"] + \
        [f"[12:00] <@dealer> {x}" for x in hand[2:]] + [f"[12:01] < mallory> {forged}"]
    weechat = [line.replace("[12:00] <@dealer> ", "2026-01-01 12:00\t@dealer\t")
               .replace("[12:00] < mallory> ", "2026-01-01 12:00\tmallory\t")
               .replace("[12:01] < mallory> ", "2026-01-01 12:01\tmallory\t") for line in irssi]
    for log in (irssi, weechat):
        for dealer in (None, "dealer", "DEALER"):
            check = verify_lines(log, dealer)
            assert check.verified == 1 and not check.failed, (log, dealer, check.failed)
            assert str(check.dealer).lower() == "dealer" and check.ignored == {"mallory": 2}
        assert verify_lines(log, "mallory").verified == 0  # the stranger's lines alone prove nothing
    # Without the filter (bare lines, no speakers) the fake commitment fails the hand: what the filter prevents.
    assert verify_lines([*hand[:2], fake_commit, *hand[2:]]).failed


def test_clauses_of_one_hand_share_a_line_and_read_back_in_order() -> None:
    turn = d.ToAct(17, "poki", (d.Option("check"), d.Option("bet", 10)), 45, 30)
    msgs = [d.Acted(17, "bob", "c", 10), d.BoardCards(17, "flop", cards("7h 8d 2c"), cards("7h 8d 2c")), turn,
            d.Acted(17, "poki", "b", 10, timed_out=False), d.Acted(17, "alice", "f"),
            d.Wins(17, "poki", 55), d.HandEnds(17, (("alice", 990), ("bob", 985), ("poki", 1025)))]
    lines = d.format_lines(msgs)
    assert lines == [
        "Hand 17: bob calls 10. | flop 7h 8d 2c. | poki to act: check or bet 10; pot 45 (30s).",
        "Hand 17: poki bets 10. | alice folds. | poki wins 55. | ends. Stacks: alice 990, bob 985, poki 1025.",
    ]
    assert [m for ln in lines for m in d.parse_lines(ln)] == msgs
    for ln in lines:
        assert len(ln.encode()) <= d.MAX_LINE_TEXT and ln.startswith("Hand 17: ")
    # The one-clause form is still a line: a reader takes both.
    for msg in msgs:
        assert d.parse_lines(d.format_line(msg)) == (msg,)


def test_clauses_never_join_across_hands_table_lines_or_hole_cards() -> None:
    a, b = d.Acted(3, "bob", "f"), d.Acted(4, "bob", "f")
    sit = d.TableSit("amy", 100, 900)
    hole = d.HoleCards(4, "#t", cards("As Kd"))
    assert d.format_lines([a, b]) == [d.format_line(a), d.format_line(b)]
    assert d.format_lines([a, sit, a]) == [d.format_line(a), d.format_line(sit), d.format_line(a)]
    assert d.format_lines([b, hole, b]) == [d.format_line(b), d.format_line(hole), d.format_line(b)]
    with pytest.raises(d.DialectError, match="hole cards"):
        d.parse_lines("Hand 4: bob folds. | your cards at #t: As Kd.")


def test_a_long_hand_end_is_split_to_fit_a_line() -> None:
    seats = tuple((f"player{k:02d}abcdefg", 123456789 + k) for k in range(10))
    msgs = [d.Acted(9, seats[0][0], "f"), *[d.Wins(9, n, 5000) for n, _ in seats[:3]], d.HandEnds(9, seats)]
    lines = d.format_lines(msgs)
    assert len(lines) == 2 and all(len(ln.encode()) <= d.MAX_LINE_TEXT for ln in lines)
    assert [m for ln in lines for m in d.parse_lines(ln)] == msgs


def test_a_broken_clause_breaks_the_line() -> None:
    with pytest.raises(d.DialectError):
        d.parse_lines("Hand 3: bob folds. | alice dances.")
    with pytest.raises(d.DialectError):
        d.parse_lines("Hand 3: bob folds. | ")


def test_the_player_bots_deck_watch_checks_each_hand_as_its_deck_is_revealed() -> None:
    """connectors.irc.deck_log.DeckWatch (the player bot's live check) on made-up hands:
    a good hand with our hole cards verifies; hole cards no seat was dealt, a board not
    the deck's and a reveal that does not hash to the commitment are each caught."""
    from connectors.irc.deck_log import DeckWatch

    deck = tuple(np.random.default_rng(2).permutation(52).tolist())
    salt = "cd" * 16
    names = [d.CARD_NAMES[c] for c in deck]

    def hand(number, hole, flop, reveal_deck=deck):
        return [d.parse_line(f"Hand {number}: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 100, b 100."),
                d.DeckCommitment(number, d.deck_digest(number, deck, salt)),
                d.HoleCards(number, "#t", hole),
                d.parse_line(f"Hand {number}: flop {' '.join(names[k] for k in flop)}."),
                d.DeckRevealed(number, reveal_deck, salt)]

    watch = DeckWatch()
    checks = [watch.read(m) for m in hand(1, deck[2:4], (4, 5, 6))]
    assert checks[:-1] == [None] * 4 and checks[-1].ok
    bad_hole = [watch.read(m) for m in hand(2, (deck[4], deck[5]), (4, 5, 6))][-1]
    assert not bad_hole.ok and "hole cards" in bad_hole.problems[0]
    bad_board = [watch.read(m) for m in hand(3, deck[0:2], (5, 4, 6))][-1]
    assert not bad_board.ok and "board" in bad_board.problems[0]
    swapped = (deck[1], deck[0]) + deck[2:]
    bad_reveal = [watch.read(m) for m in hand(4, deck[0:2], (4, 5, 6), swapped)][-1]
    assert not bad_reveal.ok and "does not match" in bad_reveal.problems[0]
    for number in range(5, 30):  # hands never revealed are forgotten
        watch.read(d.parse_line(f"Hand {number}: starts. Button a. Blinds 5/10, bets 10/20, cap 4. Seats: a 100, b 100."))
    assert len(watch.hands) == watch.keep


def test_help_is_self_contained_and_fits_one_notice() -> None:
    """!help says everything a person needs at the table (the commands, the moves with
    ``raise to N``, the private form with the dealer's nick, where cards and refusals
    come) in one line the dealer can send whole, for the longest nick, pointing to no file."""
    text = d.help_text("d" * d.MAX_NICK)
    assert len(text.encode()) <= d.MAX_LINE_TEXT and "\n" not in text
    for needed in ("!sit", "!stand", "!leave", "!stats", "fold", "check", "call", "bet", "raise to",
                   f"/msg {'d' * d.MAX_NICK} call", "notice"):
        assert needed in text, needed
    assert "docs/" not in text and ".md" not in text
