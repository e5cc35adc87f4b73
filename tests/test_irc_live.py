"""The IRC bots over a real IRC server (miniircd on 127.0.0.1), never a mock: the dealer
bot with Poki and house bots as IRC clients, a person typing by docs/irc-dialect.md, and
the faults (impostors, bad and flooded dealer lines, time-outs, quits, nick changes, a
stolen nick, the server killed mid-hand). Checked against what is independent of the
code under test: the dealer's own ACPC logs, both sides' databases, the doc's grammar
and chip arithmetic."""
from __future__ import annotations

import dataclasses
import os
import re
import sqlite3
import subprocess
import time

import numpy as np
import pytest

from agent.config import Config
from agent.play.irc.dealer import DealerHost
from agent.play.irc.player import PlayerBot
from db.database import Database

from irc_live import (  # noqa: F401 - fixtures and helpers used by name
    DOC_LINES,
    HOLE,
    Person,
    acpc_lines,
    check_against_acpc_log,
    classify,
    clauses,
    running,
    stored_hands,
    wait_for,
)

BASE = Config()
CFG = dataclasses.replace(BASE, irc=dataclasses.replace(
    BASE.irc, reconnect_min_seconds=0.2, reconnect_max_seconds=2.0, flood_lines_per_second=0,
    hand_pause_seconds=0, action_seconds=20, decision_margin_seconds=1.0))


def start_dealer(running, srv, tmp_path, *, hands, channels=("#holdem",), config=CFG, **kw) -> DealerHost:
    host = DealerHost(srv.address, list(channels), tmp_path / "dealer.sqlite", config, hands=hands,
                      log_dir=tmp_path / "logs", seed=7, **kw).start()
    running(host)
    assert host.wait_tables(), "the dealer did not join its channels"
    return host


def start_bot(running, srv, nick, spec, *, channels=("#holdem",), db=None, config=CFG, **kw) -> PlayerBot:
    bot = PlayerBot(config, server=srv.address, channels=list(channels), dealer="dealer", spec=spec,
                    nick=nick, db_path=db, seed=sum(map(ord, nick)), **kw).start()
    running(bot)
    return bot


@pytest.mark.smoke  # the fast tier's live IRC table on miniircd
def test_full_game_poki_and_house_bots(server, running, tmp_path) -> None:
    """A dealer with Poki and three house bots as separate IRC clients: every hand the
    dealer committed is in Poki's database exactly as in the dealer's, and both agree with
    the dealer's ACPC log; chips are conserved in every hand and across the session."""
    hands = 40
    host = start_dealer(running, server, tmp_path, hands=hands, min_players=4)
    poki = start_bot(running, server, "poki", "poki", db=tmp_path / "poki.sqlite")
    others = [start_bot(running, server, n, s) for n, s in
              (("rr", "rr"), ("tag", "tight-aggressive"), ("fish", "loose-passive"))]
    assert host.wait(300), "the dealer did not finish its hands"
    wait_for(lambda: poki.writer.stored == hands, what="Poki to store every hand")
    poki.stop()
    dealer_hands = stored_hands(tmp_path / "dealer.sqlite")
    poki_hands = stored_hands(tmp_path / "poki.sqlite")
    assert len(dealer_hands) == hands
    assert poki_hands == dealer_hands
    check_against_acpc_log(dealer_hands, acpc_lines(tmp_path))
    for hand_id, (_, _, _seats, _, results, _) in dealer_hands.items():
        assert sum(w - p for _, p, w in results) == 0, hand_id
    total, granted = host.chips()
    assert total == granted == 4 * CFG.irc.initial_bankroll
    # Poki played every hand it was dealt, on time, and learned the opponents.
    s = poki.seats["#holdem"].stats
    assert s.hands == hands and s.hands_abandoned == 0 and s.late == 0
    assert poki.feed.stats.malformed == 0 and poki.feed.stats.impostor == 0
    with Database(tmp_path / "poki.sqlite", create=False) as db:
        assert db.check() == []
        assert sum(db.get("rr", poki.network).lifetime_totals) > 0  # what rr did, learned
    for bot in others:
        assert bot.seats["#holdem"].stats.hands_abandoned == 0


def test_person_plays_by_the_doc_alone(server, running, tmp_path) -> None:
    """Someone at a plain IRC client, who knows only docs/irc-dialect.md: every line the
    dealer says matches one of the doc's forms, the person can sit, play by typing the
    words the turn line offers, and the chips the dealer reports at each hand's end are
    what the person's own arithmetic from the doc's lines gives. She types her moves in
    the channel in odd hands and says them to the dealer alone in even ones."""
    hands = 12
    host = start_dealer(running, server, tmp_path, hands=hands)
    start_bot(running, server, "rr", "rr")
    rng = np.random.default_rng(3)
    chips: dict[int, int] = {}  # by hand: alice's chips by her own arithmetic
    bet: dict[int, int] = {}  # by hand: what she has bet in the current round
    ends: dict[int, tuple[int, int]] = {}  # by hand: (the dealer's figure, hers)
    mismatches: list[str] = []

    def on_line(p: Person, command: str, prefix: str, target: str, text: str) -> None:
        if prefix.split("!")[0] != "dealer":
            return
        if command == "NOTICE" and text.startswith("Hand ") and HOLE.fullmatch(text) is None:
            mismatches.append(text)
        if command != "PRIVMSG" or target != "#holdem":
            return
        for clause in clauses(text):  # a line may carry several clauses (docs/irc-dialect.md)
            on_clause(p, clause)

    def on_clause(p: Person, text: str) -> None:
        kind = classify(text)
        if kind is None:
            mismatches.append(text)
            return
        name, m = kind
        if name in ("sit", "leave", "sitout", "info"):
            return
        n = int(m.group(1))
        mine = name in ("blind", "act", "wins", "turn") and m.group(2) == p.nick
        if name == "start":
            seats = dict(s.rsplit(" ", 1) for s in m.group(8).split(", "))
            if p.nick in seats:
                chips[n] = int(seats[p.nick])
                bet[n] = 0
        elif name == "blind" and mine:
            chips[n] -= int(m.group(4))
            bet[n] = int(m.group(4))
        elif name == "act" and mine:
            words = m.group(3).split()
            if words[0] in ("calls", "bets"):
                chips[n] -= int(words[1])
                bet[n] += int(words[1])
            elif words[0] == "raises":  # "raises to N": her total bet this round
                chips[n] -= int(words[2]) - bet[n]
                bet[n] = int(words[2])
        elif name == "board" and n in bet:
            bet[n] = 0
        elif name == "wins" and mine:
            chips[n] += int(m.group(3))
        elif name == "ends":
            stacks = dict(s.rsplit(" ", 1) for s in m.group(2).split(", "))
            if p.nick in stacks:
                ends[n] = (int(stacks[p.nick]), chips[n])
        elif name == "turn" and mine:
            words = [o.split()[0] for o in re.split(r", | or ", m.group(3))]
            if n % 2:
                p.say("#holdem", str(rng.choice(words)))
            else:  # the doc's other way: the move said to the dealer alone
                p.say("dealer", f"{rng.choice(words)} #holdem")

    alice = Person(server.port, "alice", on_line=on_line)
    running(alice)
    alice.send("JOIN #holdem")
    wait_for(lambda: any(c == "JOIN" and p.startswith("alice") for c, p, _, _ in alice.lines), what="alice joins")
    alice.say("#holdem", "!sit")
    assert host.wait(300)
    assert host.call(lambda: host.bot.stats.timeouts) == 0  # every move of hers was taken, both ways
    wait_for(lambda: len(ends) == hands, what="every hand's end seen by alice")
    assert mismatches == [], mismatches[:5]
    assert ends and all(dealer == mine for dealer, mine in ends.values()), ends
    holes = [t for t in alice.from_dealer(command="NOTICE") if t.startswith("Hand ")]
    assert len(holes) == hands  # her cards, every hand, privately
    assert any(DOC_LINES["sit"].fullmatch(t) for t in alice.from_dealer())
    # !help and !stats answer by NOTICE.
    alice.say("#holdem", "!stats")
    wait_for(lambda: any("bankroll" in t for t in alice.from_dealer(command="NOTICE")), what="!stats")
    total, granted = host.chips()
    assert total == granted


def test_impostors_are_ignored_and_counted(server, running, tmp_path) -> None:
    """Another client says dealer-like lines in the channel, sends Poki fake hole cards
    and a fake "your turn" by NOTICE and PRIVMSG, and gives it orders: all ignored and
    counted; the game and the stored hands are untouched."""
    hands = 15
    host = start_dealer(running, server, tmp_path, hands=hands)
    poki = start_bot(running, server, "poki", "poki", db=tmp_path / "poki.sqlite",
                     owners=["boss@127.0.0.1"])
    start_bot(running, server, "rr", "rr")
    mallory = Person(server.port, "mallory")
    running(mallory)
    mallory.send("JOIN #holdem")
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= 2, what="two hands")
    sent = 0
    for _k in range(5):
        number = host.call(lambda: host.bot.stats.hands) + 1
        mallory.say("#holdem", f"Hand {number}: poki to act: fold or call 10; pot 15 (30s).")
        mallory.send(f"NOTICE poki :Hand {number}: your cards at #holdem: As Ah.")
        mallory.send(f"NOTICE #holdem :Hand {number}: poki folds.")
        mallory.say("#holdem", "Table: poki leaves with 0 chips (bankroll 0).")
        sent += 4
        mallory.say("poki", "quit")
        mallory.say("dealer", "fold #holdem")  # a move for a seat that is not hers
        time.sleep(0.05)
    mallory.say("dealer", "call #nowhere")
    wait_for(lambda: any("no table at #nowhere" in t for t in mallory.from_dealer(command="NOTICE")),
             what="the dealer to refuse a move for no table")
    assert host.wait(300)
    assert host.call(lambda: host.bot.stats.ignored) >= 5
    wait_for(lambda: poki.writer.stored == hands, what="Poki to store every hand")
    assert poki.feed.stats.impostor >= sent
    assert poki.feed.stats.refused_orders == 5
    assert not poki.quit.is_set()
    assert poki.seats["#holdem"].stats.hands_abandoned == 0
    assert stored_hands(tmp_path / "poki.sqlite") == stored_hands(tmp_path / "dealer.sqlite")
    # An owner's orders are obeyed.
    boss = Person(server.port, "boss")
    running(boss)
    boss.say("poki", "status")
    wait_for(lambda: any("hands" in t for c, p, _, t in boss.lines if c == "NOTICE" and p.startswith("poki")),
             what="status answer")
    boss.say("poki", "leave #holdem")
    wait_for(lambda: any(re.fullmatch(r"Table: poki leaves with \d+ chips \(bankroll \d+\)\.", t)
                         for t in mallory.from_dealer()), what="Poki to leave the table")
    wait_for(lambda: "#holdem" not in poki.client.joined, what="Poki to part the channel")
    boss.say("poki", "quit")
    assert poki.wait(60)
    total, granted = host.chips()
    assert total == granted


def test_malformed_truncated_and_flooded_dealer_lines(server, running, tmp_path) -> None:
    """The configured dealer itself says malformed and truncated lines, and floods the
    channel with hundreds: the bot counts and skips them, answers PINGs, and plays every
    real hand to the end."""
    hands = 12
    host = start_dealer(running, server, tmp_path, hands=hands)
    poki = start_bot(running, server, "poki", "rr", db=tmp_path / "poki.sqlite")
    start_bot(running, server, "tag", "tight-aggressive")
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= 1, what="a hand")
    bad = ["Hand 3: poki to act: fold, call", "Hand 99999999999999999999: x folds.", "Hand 2: flop Ah Ah Ah.",
           "Hand 5: ends. Stacks: poki", "Hand", "Hand 4: poki raises to 20 (time-out).",
           "Hand 1: your cards at #holdem: Zz Ah."]
    flood = [bad[k % len(bad)] for k in range(300)] + ["\x01ACTION dances\x01", "x" * 300]
    for line in flood:
        host.client.say("#holdem", line)
    assert host.wait(300)
    wait_for(lambda: poki.writer.stored == hands, what="every real hand stored")
    assert poki.feed.stats.malformed >= 290
    assert poki.seats["#holdem"].stats.hands_abandoned == 0
    assert stored_hands(tmp_path / "poki.sqlite") == stored_hands(tmp_path / "dealer.sqlite")


def test_time_outs_sit_a_player_out(server, running, tmp_path) -> None:
    config = dataclasses.replace(CFG, irc=dataclasses.replace(CFG.irc, action_seconds=1, max_timeouts=2))
    host = start_dealer(running, server, tmp_path, hands=6, config=config)
    sleepy = Person(server.port, "sleepy")
    running(sleepy)
    sleepy.send("JOIN #holdem")
    wait_for(lambda: any(c == "JOIN" for c, *_ in sleepy.lines), what="join")
    sleepy.say("#holdem", "!sit")
    wait_for(lambda: any(t.startswith("Table: sleepy sits with") for t in sleepy.from_dealer()), what="sleepy seated")
    start_bot(running, server, "rr", "rr", config=config)
    start_bot(running, server, "tag", "tight-aggressive", config=config)
    assert host.wait(300)
    said = sleepy.from_dealer()
    out_at = next(i for i, t in enumerate(said) if t.startswith("Table: sleepy sits out"))
    assert said[out_at] == "Table: sleepy sits out (2 time-outs in a row; !sit to come back)."
    # Exactly two waited-for time-outs before he is sat out (what follows in that hand is
    # played for him at once, also marked as a time-out).
    timeouts = [t for t in said[:out_at + 2] if re.fullmatch(r"Hand \d+: sleepy (checks|folds) \(time-out\)\.", t)]
    assert len(timeouts) == 2, said[:out_at + 2]
    # Once sat out, no more hands for sleepy.
    starts = [t for t in said if DOC_LINES["start"].fullmatch(t)]
    assert all("sleepy" not in t for t in said[out_at:] if DOC_LINES["start"].fullmatch(t))
    assert len(starts) == 6
    total, granted = host.chips()
    assert total == granted


def test_quit_mid_hand_nick_change_and_a_stolen_nick(server, running, tmp_path) -> None:
    """A player who quits mid-hand leaves the hand and his chips go back to his bankroll;
    someone else who then takes his nick gets neither seat nor chips; a player who
    changes nick keeps seat and chips and plays on under the new nick."""
    config = dataclasses.replace(CFG, irc=dataclasses.replace(CFG.irc, action_seconds=10))
    host = start_dealer(running, server, tmp_path, hands=None, config=config, min_players=3)
    start_bot(running, server, "rr", "rr", config=config)
    state = {"quit": False}

    def quitter_lines(p, command, prefix, target, text):
        if command == "PRIVMSG" and prefix.startswith("dealer!") and text.startswith("Hand ") \
                and f" {p.nick} to act:" in text and not state["quit"]:
            state["quit"] = True
            threading_quit(p)

    def threading_quit(p):
        import threading
        threading.Thread(target=p.close, args=("gone",), daemon=True).start()

    def caller(p, command, prefix, target, text):
        # The doc: a hand in progress goes on under the nick it started with.
        if command == "PRIVMSG" and prefix.startswith("dealer!") and any(
                f" {n} to act:" in text for n in (p.nick, *p.former)):
            p.say("#holdem", "call" if "call" in text.split(": ", 2)[2] else "check")

    quitter = Person(server.port, "quitter", user="qu", on_line=quitter_lines)
    running(quitter)
    renamer = Person(server.port, "renamer", user="re", on_line=caller)
    running(renamer)
    for p in (quitter, renamer):
        p.send("JOIN #holdem")
        p.say("#holdem", "!sit")
    wait_for(lambda: state["quit"], what="quitter's turn")
    wait_for(lambda: any(re.fullmatch(r"Table: quitter leaves with \d+ chips \(bankroll \d+\)\.", t)
                         for t in renamer.from_dealer()), what="quitter's chips returned")
    said = renamer.from_dealer()
    assert any(re.fullmatch(r"Hand \d+: quitter (leaves the hand|folds \(time-out\)|checks \(time-out\))\.", t)
               for t in said), said[-10:]
    # A thief takes the nick: no seat, no chips.
    thief = Person(server.port, "quitter", user="thief")
    running(thief)
    thief.send("JOIN #holdem")
    thief.say("#holdem", "!sit")
    wait_for(lambda: any("belongs to another connection" in t for t in thief.from_dealer(command="NOTICE")),
             what="the thief refused")
    assert not any(t.startswith("Table: quitter sits") for t in renamer.from_dealer()[len(said):])
    # A nick change keeps seat and chips.
    hands_before = host.call(lambda: host.bot.stats.hands)
    renamer.send("NICK renamed")
    wait_for(lambda: any(t == "Table: renamer is now renamed; the seat and chips follow." for t in renamer.from_dealer()),
             what="rename announced")
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= hands_before + 3, what="three more hands")
    later = renamer.from_dealer()
    assert any(DOC_LINES["start"].fullmatch(t) and "renamed " in t for t in later)
    assert any(re.fullmatch(r"Hand \d+: renamed (calls \d+|checks)\.", t) for t in later)
    # Tables deal without pause, so the nick changed in the middle of a hand: that hand was
    # still committed (under the new nick's seat), not voided.
    assert host.call(lambda: host.bot.stats.voided) == 0
    total, granted = host.chips()
    assert total == granted == 3 * CFG.irc.initial_bankroll  # rr, quitter, renamer; not the thief


def test_a_nick_change_keeps_the_bankroll_of_the_same_connection(server, running, tmp_path) -> None:
    """A person who changes nick while seated, and again off the table, keeps one bankroll
    (!stats says it under each nick, her sit under the last nick takes from it, no second
    grant); another connection under her first nick is a new player."""
    host = start_dealer(running, server, tmp_path, hands=None, min_players=3)
    alice = Person(server.port, "alice", user="al")
    running(alice)
    alice.send("JOIN #holdem")
    wait_for(lambda: any(c == "JOIN" for c, *_ in alice.lines), what="alice in the channel")

    def said(text: str, command: str = "PRIVMSG") -> None:
        wait_for(lambda: text in alice.from_dealer(command=command), what=repr(text))

    alice.say("#holdem", "!sit 500")
    said("Table: alice sits with 500 chips (bankroll 9500).")
    alice.send("NICK alice2")
    said("Table: alice is now alice2; the seat and chips follow.")
    alice.say("#holdem", "!stats")
    said("alice2: bankroll 9500; at the tables: #holdem 500", "NOTICE")
    alice.say("#holdem", "!leave")
    said("Table: alice2 leaves with 500 chips (bankroll 10000).")
    alice.send("NICK alice3")
    wait_for(lambda: alice.nick == "alice3", what="the nick change")
    alice.say("#holdem", "!sit 300")
    said("Table: alice3 sits with 300 chips (bankroll 9700).")
    eve = Person(server.port, "alice", user="eve")
    running(eve)
    eve.send("JOIN #holdem")
    wait_for(lambda: any(c == "JOIN" for c, *_ in eve.lines), what="eve in the channel")
    eve.say("#holdem", "!sit 100")
    said("Table: alice sits with 100 chips (bankroll 9900).")
    total, granted = host.chips()
    assert total == granted == 2 * CFG.irc.initial_bankroll


def test_server_killed_mid_hand_and_restarted(server, running, tmp_path) -> None:
    """The IRC server dies in the middle of a hand and comes back on the same port: the
    bots reconnect and rejoin, the interrupted hand is void for everyone with the chips as
    they were, nothing of it is stored anywhere, and play resumes."""
    host = start_dealer(running, server, tmp_path, hands=None, min_players=3)
    poki = start_bot(running, server, "poki", "poki", db=tmp_path / "poki.sqlite")
    start_bot(running, server, "rr", "rr")
    start_bot(running, server, "tag", "tight-aggressive")
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= 3, what="three hands")
    wait_for(lambda: host.call(lambda: host.bot.busy), what="a hand in progress")
    server.kill()
    killed_at = host.call(lambda: host.bot.stats.hands)
    time.sleep(0.5)
    server.start()
    wait_for(lambda: host.call(lambda: host.bot.stats.voided) >= 1, what="the hand voided")
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= killed_at + 5, what="play to resume")
    wait_for(lambda: host.client.connects >= 2 and poki.client.connects >= 2, what="the bots to reconnect")
    wait_for(lambda: poki.status["#holdem"].voids >= 1, what="Poki hears of the void")
    # Poki is back at the table once it stores hands again.
    stored = poki.writer.stored
    wait_for(lambda: poki.writer.stored >= stored + 2, what="Poki to play again")
    # Stop the dealer between hands: the last hand must finish before comparing.
    host.call(lambda: setattr(host.bot, "hands_limit", host.bot.stats.hands + 1))
    assert host.wait(300)
    total, granted = host.chips()
    assert total == granted == 3 * CFG.irc.initial_bankroll
    dealer_hands = stored_hands(tmp_path / "dealer.sqlite")
    last = max(dealer_hands, key=lambda h: int(h.rsplit(":", 1)[1]))
    wait_for(lambda: last in stored_hands(tmp_path / "poki.sqlite"), what="Poki to store the last hand")
    poki.stop()
    poki_hands = stored_hands(tmp_path / "poki.sqlite")
    # Poki stored only hands the dealer committed, each exactly as the dealer did.
    assert poki_hands and set(poki_hands) <= set(dealer_hands)
    assert all(poki_hands[h] == dealer_hands[h] for h in poki_hands)
    numbers = sorted(int(h.rsplit(":", 1)[1]) for h in dealer_hands)
    # A void keeps its number: the stored hands skip exactly the voided ones.
    skipped = set(range(1, numbers[-1] + 1)) - set(numbers)
    assert len(skipped) == host.call(lambda: host.bot.stats.voided) >= 1
    with Database(tmp_path / "dealer.sqlite", create=False) as db:
        assert db.check() == []
    check_against_acpc_log(dealer_hands, acpc_lines(tmp_path))


def test_bankrolls_carry_over_sessions_and_tiers(server, running, tmp_path) -> None:
    """Bankrolls persist from one dealer session to the next (the chips left on the table
    by a stopped session go back to them), and a channel may require a minimum bankroll."""
    config = dataclasses.replace(CFG, irc=dataclasses.replace(CFG.irc, min_bankroll={"#high": 10**6}))
    host = start_dealer(running, server, tmp_path, hands=5, channels=("#holdem", "#high"), config=config)
    bot = start_bot(running, server, "rr", "rr", channels=("#holdem", "#high"), config=config)
    tag = start_bot(running, server, "tag", "tight-aggressive", config=config)
    assert host.wait(300)
    host.stop()
    bot.stop()
    tag.stop()  # (a bot still running sits again as soon as the next session opens)
    with sqlite3.connect(tmp_path / "dealer.sqlite") as conn:
        bankroll = dict(conn.execute("SELECT nick, chips FROM bankrolls").fetchall())
        on_table = dict(conn.execute("SELECT nick, chips FROM table_chips").fetchall())
    assert set(on_table) == {"rr", "tag"} and sum(bankroll.values()) + sum(on_table.values()) == 2 * 10**4
    host2 = start_dealer(running, server, tmp_path, hands=1, config=config)
    assert host2.call(lambda: host2.bankrolls.at_table("#holdem")) == {}
    assert host2.call(lambda: host2.bankrolls.bankroll("rr")) == bankroll["rr"] + on_table["rr"]
    # rr could not sit at #high: its bankroll is below the tier.
    with sqlite3.connect(tmp_path / "dealer.sqlite") as conn:
        assert conn.execute("SELECT COUNT(*) FROM table_chips WHERE channel = '#high'").fetchone()[0] == 0
    assert bot.status["#high"].seated is False and bot.seats["#holdem"].stats.hands >= 1


def test_two_tables_in_one_process_one_database(server, running, tmp_path) -> None:
    """One dealer at two channels, two player bots each at both (several --channel): each
    bot plays both tables in one process and one database holds both tables' hands, as
    the dealer committed them."""
    hands = 20
    host = start_dealer(running, server, tmp_path, hands=hands, channels=("#one", "#two"), min_players=2)
    poki = start_bot(running, server, "poki", "poki", channels=("#one", "#two"), db=tmp_path / "poki.sqlite")
    start_bot(running, server, "rr", "rr", channels=("#one", "#two"))
    assert host.wait(300)
    dealer_hands = stored_hands(tmp_path / "dealer.sqlite")
    assert len(dealer_hands) == hands
    tables = {h.split(":")[1] for h in dealer_hands}
    assert tables == {"#one", "#two"}
    wait_for(lambda: set(stored_hands(tmp_path / "poki.sqlite")) == set(dealer_hands), what="both tables stored")
    assert stored_hands(tmp_path / "poki.sqlite") == dealer_hands
    assert set(poki.seats) == {"#one", "#two"}
    total, granted = host.chips()
    assert total == granted == 2 * CFG.irc.initial_bankroll


def test_no_process_left_behind() -> None:
    out = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    mine = [ln for ln in out.splitlines() if "miniircd" in ln and f" {os.getpid()} " in ln]
    assert mine == []
