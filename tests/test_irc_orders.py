"""Owners' orders (connectors.irc.orders): who may give them (user@host or account, never a
nick), the orders each bot declares (help and usage come from the declarations), and the
dealer's orders over a real IRC server (miniircd on loopback): status, pause, resume,
remove NICK and quit at the hand's end, each refused to a stranger who holds the owner's
nick."""
from __future__ import annotations

import re
import time

import pytest
from test_irc_live import CFG, start_bot, start_dealer

from agent.play.irc.player import PlayerBot
from agent.play.irc.table import DealerBot
from connectors.irc.orders import Caller, OrderBook, OwnerError, Owners

from irc_live import DOC_LINES, HANG, Person, running, stored_hands, wait_for  # noqa: F401 - fixtures and helpers used by name

BOOKS: list[OrderBook] = [PlayerBot.ORDERS, DealerBot.ORDERS]


def test_owners_are_known_by_user_at_host_or_account_never_by_nick() -> None:
    owners = Owners(["boss@home.example", "*!ops@*.example.org", "account:Chief"])
    assert owners.allows(Caller("anyone", "boss@home.example"))
    assert owners.allows(Caller("boss_", "~boss@home.example"))  # ident's ~ says nothing
    assert owners.allows(Caller("x", "ops@irc.example.org"))
    assert owners.allows(Caller("x", "who@elsewhere", account="chief"))
    assert not owners.allows(Caller("boss", "mallory@home.example"))  # the nick is nobody's proof
    assert not owners.allows(Caller("boss", "boss@elsewhere"))
    assert not owners.allows(Caller("chief", "who@elsewhere"))  # no account tag: not the account
    assert owners.wants_accounts and not Owners(["a@b"]).wants_accounts
    for spec, why in (("boss!*@*", "names a nick"), ("me!*@my.host", "names a nick"), ("*@*", "matches anyone"),
                      ("*!*@*", "matches anyone"), ("boss", "not a user@host"), ("account:", "one account"),
                      ("account:a*", "no wildcard")):
        with pytest.raises(OwnerError, match=why):
            Owners([spec])


@pytest.mark.parametrize("book", BOOKS, ids=lambda b: b.bot)
def test_help_and_usage_come_from_each_declared_order(book: OrderBook) -> None:
    """Every declared order is in ``help`` with its parameters, ``help ORDER`` gives its
    line, a wrong number of words is answered with its usage (the order does not run: the
    bot here is None), and an unknown word with the list."""
    owner = Caller("boss", "boss@host")
    listing = book.answer(None, owner, "help")
    assert book.orders
    for order in book.orders.values():
        assert order.usage in listing, (order.name, listing)
        assert book.answer(None, owner, f"help {order.name}") == f"{order.usage}: {order.summary}"
        assert order.example.split()[0] == order.name and len(order.example.split()) == 1 + len(order.params)
        wrong = " ".join([order.name, *(["x"] * (len(order.params) + 1))])
        assert book.answer(None, owner, wrong).startswith(f"usage: {order.usage}")
    assert book.answer(None, owner, "dance").startswith("no order 'dance'; ")


def test_the_dealer_takes_its_owners_orders_and_no_one_elses(server, running, tmp_path) -> None:
    """A stranger holding the owner's nick sends every order the dealer declares (its
    examples): each refused, the table deals on. The owner, under another nick, is known by
    user@host: status, pause (the hand in progress is played out, no hand starts),
    resume, remove NICK (its seat freed at its hand's end, no fold forced, no seat again)
    and quit (the session ends when the hand in progress does: no void, and every player
    stores every hand the dealer stored, the last included)."""
    host = start_dealer(running, server, tmp_path, hands=None, min_players=3, owners=["boss@127.0.0.1"])
    rr = start_bot(running, server, "rr", "rr", db=tmp_path / "rr.sqlite")
    start_bot(running, server, "tag", "tight-aggressive")
    start_bot(running, server, "fish", "loose-passive")
    watcher = Person(server.port, "watcher")
    running(watcher)
    watcher.send("JOIN #holdem")
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= 2, what="two hands")

    def notices(person: Person, since: int = 0) -> list[str]:
        return [t for c, p, _, t in list(person.lines)[since:] if c == "NOTICE" and p.startswith("dealer!")]

    # A stranger under the owner's nick: every declared order refused.
    fake = Person(server.port, "boss", user="mallory")
    running(fake)
    examples = [order.example for order in DealerBot.ORDERS.orders.values()]
    assert {e.split()[0] for e in examples} == {"status", "pause", "resume", "quit", "remove"}
    refused = host.call(lambda: host.bot.stats.refused)
    for example in examples:
        fake.say("dealer", example.replace("mallory", "fish"))
    wait_for(lambda: any("owners only" in t for t in notices(fake)), what="the stranger refused")
    wait_for(lambda: host.call(lambda: host.bot.stats.refused) >= refused + len(examples), what="every order refused")
    hands = host.call(lambda: host.bot.stats.hands)
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= hands + 2, what="the table to deal on")
    assert not host.call(lambda: host.bot.paused or host.bot.quitting)
    assert "fish" in [s.nick for s in host.call(lambda: host.bot.seats("#holdem"))]
    fake.close()

    owner = Person(server.port, "carol", user="boss")
    running(owner)

    def order(text: str, expect: str) -> str:
        seen = len(owner.lines)
        owner.say("dealer", text)
        wait_for(lambda: any(expect in t for t in notices(owner, seen)), what=f"the answer to {text!r}")
        return next(t for t in notices(owner, seen) if expect in t)

    listing = order("help", "dealer orders:")
    assert all(o.usage in listing for o in DealerBot.ORDERS.orders.values())
    status = order("status", "hands dealt")
    assert "#holdem: " in status and "fish" in status and "running:" in status
    # Pause: the hand in progress (if any) ends, and no hand starts until resume.
    order("pause", "paused")
    wait_for(lambda: "Table: paused by the dealer's owner: no new hand until it resumes." in watcher.from_dealer(),
             what="the pause said at the table")
    wait_for(lambda: not host.call(lambda: host.bot.busy), what="the hand in progress to end")
    paused_at = len(watcher.from_dealer())
    time.sleep(3.0)  # the table deals without a pause between hands: a hand would have started
    assert not [t for t in watcher.from_dealer()[paused_at:] if DOC_LINES["start"].fullmatch(t)]
    assert "paused" in order("status", "hands dealt")
    order("resume", "resumed")
    wait_for(lambda: any(DOC_LINES["start"].fullmatch(t) for t in watcher.from_dealer()[paused_at:]),
             what="a hand after resume")
    # Remove fish: its seat goes at its hand's end, it is not made to fold, it cannot sit again.
    order("remove fish", "removing fish")
    wait_for(lambda: any(re.fullmatch(r"Table: fish leaves with \d+ chips \(bankroll \d+\)\.", t)
                         for t in watcher.from_dealer()), what="fish's seat freed")
    assert not any(t.endswith(": fish leaves the hand.") for t in watcher.from_dealer())
    hands = host.call(lambda: host.bot.stats.hands)
    wait_for(lambda: host.call(lambda: host.bot.stats.hands) >= hands + 2, what="two hands without fish")
    assert "fish" not in [s.nick for s in host.call(lambda: host.bot.seats("#holdem"))]
    # Quit: at the hand's end, nothing voided, every player stores every hand.
    order("quit", "quitting")
    assert host.wait(HANG), "the session did not end after quit"
    lines = watcher.from_dealer()
    wait_for(lambda: any(t.startswith("Table: the session is over after") for t in watcher.from_dealer()),
             what="the session's end said")
    assert not [t for t in lines if DOC_LINES["void"].fullmatch(t)]
    host.stop()
    dealer_hands = stored_hands(tmp_path / "dealer.sqlite")
    wait_for(lambda: rr.writer.stored >= len(dealer_hands), what="rr to store every hand")
    rr.stop()
    assert stored_hands(tmp_path / "rr.sqlite") == dealer_hands


def test_an_owner_that_names_a_nick_stops_the_bot_at_start(server, tmp_path) -> None:
    with pytest.raises(OwnerError, match="never by a nick"):
        start_dealer(lambda thing: None, server, tmp_path, hands=1, owners=["boss!*@*"])
    with pytest.raises(OwnerError, match="never by a nick"):
        PlayerBot(CFG, server=server.address, channels=["#holdem"], dealer="dealer", spec="rr", nick="rr",
                  owners=["boss!*@*"])
