"""The player bot's IRC side: turns what the configured dealer says into typed events
(agent.game.events) for each table, tells its owner when it is our turn, and types our moves.

Trust (docs/architecture.md, "Trust and input"): only lines from the configured dealer move a game:
its nick, and its identity: the account the server vouches it is logged in to (IRCv3
account-tag) where one is configured, the ``--dealer-host`` mask where one is given
(``*!*dealer@host``, ``dealer@host`` or ``host``; a leading ``~`` on the user, which
servers add when ident does not answer, is ignored on both sides), and otherwise the
user@host the dealer's nick had when first seen, pinned for the session: a different
connection under that nick is an impostor, refused and logged loudly. Dealer-like lines or NOTICEs from anyone else
(fake hole cards, a fake "your turn") are ignored, counted and logged; so are dealer
lines that do not follow the dialect (connectors.irc.dialect). Private orders are taken
only from owners (connectors.irc.orders: by user@host or account, never by nick) and
handed to the owner of the feed; everyone else is refused.

Everything here runs on the IRC client's loop thread; the owner (agent.play.irc.player)
must not block in its callbacks.
"""
from __future__ import annotations

import fnmatch
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from agent.game.events import (
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCards,
    PlayerActed,
    PlayerLeft,
)
from agent.game.rules import Action
from connectors.irc import dialect as d
from connectors.irc.client import IrcClient, IrcEvent
from connectors.irc.deck_log import DeckWatch
from connectors.irc.orders import Caller, Owners, without_tilde

__all__ = ["FeedStats", "PlayerFeed", "TableListener", "events_of"]

log = logging.getLogger("poki.irc.player")

_KIND_ACTION = {"f": Action.FOLD, "k": Action.CHECK_CALL, "c": Action.CHECK_CALL,
                "b": Action.BET_RAISE, "r": Action.BET_RAISE}


def _without_tilde(mask: str) -> str:
    """``nick!~user@host`` -> ``nick!user@host`` (connectors.irc.orders.without_tilde on
    the user@host part)."""
    nick, bang, rest = mask.rpartition("!")
    return f"{nick}{bang}{without_tilde(rest)}" if "@" in rest else mask


def _host_mask(spec: str) -> str | None:
    """A ``--dealer-host`` as a ``nick!user@host`` mask (lower case, ``~`` dropped):
    ``host`` -> ``*!*@host``, ``user@host`` -> ``*!user@host``, a full mask as given;
    ``*``/``?`` wildcards. None when no host is configured."""
    spec = spec.strip().lower()
    if not spec:
        return None
    if "!" not in spec:
        spec = ("*!" + spec) if "@" in spec else f"*!*@{spec}"
    nick, _, rest = spec.partition("!")
    user, _, host = rest.partition("@")
    if user.startswith("*") and len(user) > 1:
        user = "*" + user[1:].lstrip("~")  # *!*dealer@host and *!*~dealer@host: the same user
        return f"{nick}!{user}@{host}"
    return _without_tilde(f"{nick}!{user}@{host}")


def events_of(channel: str, msg: d.Line, wins: list[tuple[str, int]],
              received_at: float | None = None) -> Event | None:
    """The agent event a dealer line carries (None for lines that carry none). ``wins``
    collects the hand's Wins lines until its end line; ``received_at`` (Unix time the line
    arrived) dates a hand's start, since the dialect carries no clock."""
    if isinstance(msg, d.HandStarts):
        names = tuple(n for n, _ in msg.seats)
        wins.clear()
        return HandStarted(
            hand_id=d.hand_id(channel, msg.hand), source=f"irc {channel} hand {msg.hand}",
            players=names, stacks=tuple(c for _, c in msg.seats), button=names.index(msg.button),
            small_blind=msg.small_blind, big_blind=msg.big_blind, small_bet=msg.small_bet,
            big_bet=msg.big_bet, max_bets=msg.cap, started_at=received_at)
    if isinstance(msg, d.Acted):
        to = msg.amount if msg.kind in ("b", "r") else None
        return PlayerActed(msg.nick, _KIND_ACTION[msg.kind], to=to, kind=msg.kind)
    if isinstance(msg, d.LeftHand):
        return PlayerLeft(msg.nick)
    if isinstance(msg, d.BoardCards):
        return BoardDealt(msg.cards)
    if isinstance(msg, d.Shows):
        return CardsShown(msg.nick, msg.cards)
    if isinstance(msg, d.Mucks):
        return CardsMucked(msg.nick)
    if isinstance(msg, d.Wins):
        wins.append((msg.nick, msg.amount))
        return None
    if isinstance(msg, d.HandEnds):
        won = tuple(wins)
        wins.clear()
        return HandEnded(won=won)
    return None


class TableListener(Protocol):
    """What the feed tells its owner (all on the loop thread)."""

    def on_event(self, channel: str, hand: int, event: Event) -> None: ...

    def on_turn(self, channel: str, to_act: d.ToAct) -> None: ...

    def on_void(self, channel: str, hand: int) -> None: ...

    def on_table(self, channel: str, msg: d.Line) -> None: ...

    def on_presence(self, channel: str, nick: str) -> None: ...

    def on_order(self, caller: Caller, text: str) -> str:
        """An owner's order (``text`` as sent, a leading ``!`` dropped): the answer."""

    def on_connection(self, connected: bool) -> None: ...

    def on_dealer_gone(self, channel: str) -> None: ...


@dataclass
class FeedStats:
    dealer_lines: int = 0
    malformed: int = 0  # dealer lines that do not follow the dialect
    impostor: int = 0  # dealer-like lines or notices from someone else
    impostor_private: int = 0  # private messages and notices from someone holding the dealer's nick
    stale: int = 0  # dealer lines of a hand we do not follow (we joined mid-hand, ...)
    refused_orders: int = 0
    orders: int = 0
    decks_verified: int = 0  # hands whose revealed deck matched its commitment and every card seen
    decks_failed: int = 0  # hands whose deck did not (connectors.irc.deck_log)
    last_error: str = ""
    by_channel: dict[str, int] = field(default_factory=dict)


@dataclass
class _TableFeed:
    hand: int | None = None  # the hand we follow
    decks: DeckWatch = field(default_factory=DeckWatch)  # each hand's deck checked as it is revealed
    wins: list[tuple[str, int]] = field(default_factory=list)


class PlayerFeed:
    """Reads ``client``'s events for the tables at ``channels``; see the module docstring."""

    def __init__(self, client: IrcClient, channels: Iterable[str], listener: TableListener, *,
                 dealer_nick: str, dealer_host: str = "", dealer_account: str = "",
                 owners: Owners | None = None) -> None:
        self.client = client
        client.handler = self.handle
        self.listener = listener
        self.dealer_nick = dealer_nick
        self.dealer_host = dealer_host
        self.pinned = ""  # the dealer's user@host, pinned when first seen (no --dealer-host)
        self._mask = _host_mask(dealer_host)
        self.dealer_account = dealer_account.lower()
        self.owners = owners if owners is not None else Owners(())
        self.stats = FeedStats()
        self.tables: dict[str, _TableFeed] = {}
        for channel in channels:
            self.tables[channel.lower()] = _TableFeed()
            if channel not in client.channels:
                client.channels.append(channel)
        self.channel_names = {c.lower(): c for c in channels}

    # --- trust ---------------------------------------------------------------------------

    def is_dealer(self, nick: str, userhost: str, account: str | None = None) -> bool:
        """The dealer's nick, from its host and logged in to its account where those are
        configured (``account`` None: not checked, for lines that cannot carry it)."""
        if nick != self.dealer_nick and nick.lower() != self.dealer_nick.lower():
            return False
        if self.dealer_account and account is not None and account.lower() != self.dealer_account:
            return False
        if self._mask is not None:
            return fnmatch.fnmatchcase(_without_tilde(f"{nick}!{userhost}".lower()), self._mask)
        if self.dealer_account:
            return True  # the account is the identity (lines without it: presence only)
        return self._pin(nick, userhost)

    def _pin(self, nick: str, userhost: str) -> bool:
        have = _without_tilde(userhost.lower())
        if not have or "@" not in have:
            return False
        if not self.pinned:
            self.pinned = have
            log.info("the dealer %s is %s: pinned for this session", nick, userhost)
            return True
        if have != self.pinned:
            self.stats.last_error = (f"REFUSED: {nick}!{userhost} holds the dealer's nick but is not the dealer "
                                     f"seen before ({self.pinned}); its lines are ignored")
            log.error("%s", self.stats.last_error)
            return False
        return True

    def _impostor(self, ev: IrcEvent, where: str) -> None:
        self.stats.impostor += 1
        account = f" (account {ev.account or 'none'})" if self.dealer_account else ""
        self.stats.last_error = (f"{where}: ignored a dealer-like line from {ev.nick}!{ev.userhost}{account}: "
                                 f"{ev.text[:80]!r}")
        log.warning("%s", self.stats.last_error)

    # --- events -----------------------------------------------------------------------------

    def handle(self, ev: IrcEvent) -> None:
        kind = ev.kind
        if kind == "message":
            if ev.target.lower() in self.tables:
                self._channel_line(ev)
            elif ev.target == self.client.nick:
                self._private(ev)
        elif kind == "notice":
            self._notice(ev)
        elif kind == "connected":
            self.listener.on_connection(True)
        elif kind == "disconnected":
            for table in self.tables.values():
                table.hand = None
                table.wins.clear()
            self.listener.on_connection(False)
        elif kind in ("quit", "part"):
            # The dealer went away: its tables close (a hand in progress is void) and we
            # sit again when it comes back.
            if ev.nick.lower() == self.dealer_nick.lower() and self.is_dealer(ev.nick, ev.userhost):
                channels = list(self.tables) if kind == "quit" else [ev.target.lower()]
                for channel in channels:
                    if channel in self.tables:
                        self.tables[channel].hand = None
                        self.tables[channel].wins.clear()
                        self.listener.on_dealer_gone(self.channel_names[channel])
        elif kind == "nick":
            dealer = self.dealer_nick.lower()
            if ev.nick.lower() == dealer and self.is_dealer(ev.nick, ev.userhost):
                for channel, table in self.tables.items():  # the dealer's nick is gone: as a quit
                    table.hand = None
                    table.wins.clear()
                    self.listener.on_dealer_gone(self.channel_names[channel])
            elif ev.other.lower() == dealer and self.is_dealer(ev.other, ev.userhost):
                for channel in self.tables:  # the dealer is back under its nick
                    self.listener.on_presence(self.channel_names[channel], ev.other)
        elif kind in ("join", "who"):
            # Only asks for a seat, so the dealer's nick and host suffice (a WHO answer
            # carries no account).
            channel = ev.target.lower()
            if channel in self.tables and self.is_dealer(ev.nick, ev.userhost):
                self.listener.on_presence(self.channel_names[channel], ev.nick)

    def _channel_line(self, ev: IrcEvent) -> None:
        channel = ev.target.lower()
        name = self.channel_names[channel]
        text = ev.text
        looks_dealer = d.looks_like_dealer(text)
        if not self.is_dealer(ev.nick, ev.userhost, ev.account):
            if looks_dealer:
                self._impostor(ev, name)
            return
        self.stats.dealer_lines += 1
        turn = d.turn_of(text)
        if turn is not None and turn != self.client.nick:
            # Someone else's turn alone on its line moves nothing here: not worth parsing.
            return
        try:
            msgs = d.parse_lines(text)
        except d.DialectError as exc:
            self.stats.malformed += 1
            self.stats.last_error = f"{name}: dealer line skipped: {exc}"
            log.warning("%s", self.stats.last_error)
            return
        table = self.tables[channel]
        for msg in msgs:  # a hand line may carry several clauses: a move, the board, the next turn
            self._dealer_message(table, name, msg)

    def _dealer_message(self, table: _TableFeed, name: str, msg: d.Line) -> None:
        if isinstance(msg, (d.TableSit, d.TableLeave, d.TableSitOut, d.TableInfo)):
            self.listener.on_table(name, msg)
            return
        hand = msg.hand
        self._check_deck(table, name, msg)
        if isinstance(msg, (d.DeckCommitment, d.DeckRevealed)):
            return  # checked above; they move no game
        if isinstance(msg, d.HandVoid):
            if table.hand == hand:
                table.hand = None
            self.listener.on_void(name, hand)
            return
        if isinstance(msg, d.HandStarts):
            table.hand = hand
        elif table.hand != hand:
            self.stats.stale += 1
            return
        if isinstance(msg, d.ToAct):
            if msg.nick == self.client.nick:
                self.listener.on_turn(name, msg)
            return
        event = events_of(name, msg, table.wins, time.time())
        if event is not None:
            self.listener.on_event(name, hand, event)
        if isinstance(msg, d.HandEnds):
            table.hand = None

    def _check_deck(self, table: _TableFeed, name: str, msg: d.Line) -> None:
        """Every deck we are dealt from is checked when the dealer reveals it: against its
        commitment, the board, the cards shown down and our own hole cards."""
        check = table.decks.read(msg)
        if check is None:
            return
        if check.ok:
            self.stats.decks_verified += 1
            return
        self.stats.decks_failed += 1
        self.stats.last_error = (f"{name}: hand {check.hand}: the dealer's deck does NOT verify: "
                                 + "; ".join(check.problems))
        log.warning("%s", self.stats.last_error)

    def _notice(self, ev: IrcEvent) -> None:
        if ev.target != self.client.nick:
            if ev.target.lower() in self.tables and d.looks_like_dealer(ev.text) \
                    and not self.is_dealer(ev.nick, ev.userhost, ev.account):
                self._impostor(ev, ev.target)
            return
        if not self.is_dealer(ev.nick, ev.userhost, ev.account):
            if d.is_hand_line(ev.text):
                self._impostor(ev, "private notice")
            return
        if not d.is_hand_line(ev.text):
            return  # the dealer's answers to commands, for people
        try:
            msg = d.parse_line(ev.text)
        except d.DialectError as exc:
            self.stats.malformed += 1
            self.stats.last_error = f"dealer notice skipped: {exc}"
            log.warning("%s", self.stats.last_error)
            return
        if not isinstance(msg, d.HoleCards):
            self.stats.malformed += 1
            return
        table = self.tables.get(msg.channel.lower())
        if table is None or table.hand != msg.hand:
            self.stats.stale += 1
            return
        table.decks.read(msg)  # our cards, checked against the deck when it is revealed
        self.listener.on_event(self.channel_names[msg.channel.lower()], msg.hand,
                               HoleCards(self.client.nick, msg.cards))

    def _private(self, ev: IrcEvent) -> None:
        words = ev.text.split()
        if not words:
            return
        if ev.nick.lower() == self.dealer_nick.lower() and not self.is_dealer(ev.nick, ev.userhost, ev.account):
            self.stats.impostor_private += 1
            self._impostor(ev, "private message")
            return
        caller = Caller(ev.nick, ev.userhost, ev.account)
        if not self.owners.allows(caller):
            self.stats.refused_orders += 1
            log.warning("order refused from %s!%s: %r", ev.nick, ev.userhost, ev.text[:80])
            self.client.notice(ev.nick, "I take orders from my owners only.", key=f"answer:{ev.nick.lower()}")
            return
        self.stats.orders += 1
        answer = self.listener.on_order(caller, ev.text.lstrip().lstrip("!"))
        if answer:
            self.client.notice(ev.nick, answer)
