"""The dealer bot's table logic: seats people and bots in IRC channels and deals limit
hold'em to them in the dialect of connectors.irc.dialect (docs/irc-dialect.md).

[poki-2002] names what the 1995 IRC dealers gave their players and what this one keeps:
games "conducted by dedicated software", a bankroll "preserved between sessions" and "a
hierarchy of games" that players qualify for by bankroll (a minimum bankroll per
channel). Every hand is dealt, bet, dealt its board and settled by the one hand driver
(agent.play.hand_driver, in its rules mode over agent.game.rules; one driver a table)
with cards drawn from an injected seeded generator, so the rules here are the rules
everywhere: the table asks the driver whose turn it is and what is legal, refuses a word
that is not (a refused word is no move), and hands it the moves as its players' lines and
time-outs arrive.

* Turn order and a time limit per action: on time-out the player checks if that is free
  and folds otherwise; ``max_timeouts`` time-outs in a row sit the player out. The limit
  starts when the turn line has reached the table (:class:`TurnClock`), and the lines of
  one step (a move, a board, the next turn) go out as one line of several clauses.
* A seat belongs to the connection that took it (nick and user@host): a nick change
  follows the seat; someone else who takes a departed player's nick gets neither the
  seat nor the chips (the bank binds bankrolls to user@host too).
* A player who leaves the channel or quits mid-hand leaves the hand (a fold that needs no
  turn) where the rules allow it, else is checked/folded at once; the seat's chips go
  back to the bankroll when the hand is over.
* Its owners (connectors.irc.orders: known by user@host or account, never by nick) give
  it orders in private, declared on :attr:`DealerBot.ORDERS`: status, pause and resume,
  quit when the hands in progress end, remove a player at the end of its hand.
* If the dealer loses the server mid-hand, the hand is void: nothing of it is stored,
  every stack is as it was before it (stacks change only when a hand is committed), and
  ``Hand <n>: void, chips restored.`` is said when the dealer is back.

Chips and hands are kept by an injected :class:`Bank` (agent.play.irc.dealer makes each
finished hand safe in a journal before it is announced, and stores the hands with the
tables' chip counts in SQLite in groups, all or nothing). Everything runs on the IRC
client's loop thread; no locks.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from agent.config import TableConfig
from agent.game.events import HandStarted
from agent.game.records import HandRecord
from agent.game.rules import Action, BetOrRaised, BlindPosted, CheckedOrCalled, Folded, State
from agent.game.tracker import TrackerError
from agent.play.deals import SeededDeals
from agent.play.hand_driver import ACT, BOARD, HandDriver
from agent.play.irc.deck import DeckSource, HandDeck, SeededDecks, deck_of
from agent.play.irc.seats import Bank, BankError, TableSeat
from connectors.irc import dialect as d
from connectors.irc.client import IrcClient, IrcEvent, Priority, Timer
from connectors.irc.deck_log import DeckWatch
from connectors.irc.orders import Caller, OrderBook, Owners
from evaluator_pyx import evaluate_cards, hand_category

__all__ = ["Bank", "BankError", "DealerBot", "DealerStats", "TableSeat", "hand_id_for"]

log = logging.getLogger("poki.irc.dealer")



hand_id_for = d.hand_id


@dataclass
class DealerStats:
    hands: int = 0
    voided: int = 0
    timeouts: int = 0
    refused: int = 0  # commands refused (with a notice)
    ignored: int = 0  # action words from someone whose turn it was not
    errors: int = 0
    lines: int = 0  # lines said at the tables (hand and table lines; hole cards not counted)
    turns: int = 0  # turns whose clock started
    delivery_max: float = 0.0  # the longest a turn line took to reach the table (s)
    delivery_total: float = 0.0  # summed over the turns
    stranger_lines: int = 0  # dealer-like lines from others (players, strangers, other dealers): none moved the table


class TurnClock:
    """A turn's time limit, started when the turn line has reached the table rather than
    when the dealer queued it (IrcClient.when_delivered: past the dealer's own queue and
    past the server's flood delay), so the seconds the line shows are the seconds the
    player has. The wait for the delivery is itself limited: should the server never
    answer, the clock starts after ``backstop`` seconds anyway, with a warning."""

    def __init__(self, client: IrcClient, seconds: float, expire: Callable[[], object],
                 delivered: Callable[[float], object], backstop: float) -> None:
        self.client = client
        self.seconds = seconds
        self.expire = expire
        self.delivered = delivered
        self.backstop = backstop
        self.queued_at = time.monotonic()
        self.started_at: float | None = None
        self.cancelled = False
        self._timer: Timer | None = None
        self._backstop: Timer | None = None
        # Run when the turn line is confirmed delivered (never by the backstop): what else
        # waited for a confirmation of the lines before it rides on this one's PING.
        self.riders: list[Callable[[], object]] = []

    def arm(self) -> None:
        """The turn line is queued: ask to hear when it has gone out."""
        if self.cancelled or self._backstop is not None:
            return
        self.queued_at = time.monotonic()
        self._backstop = self.client.call_later(self.backstop, self._overdue)
        self.client.when_delivered(self._arrived)

    def _arrived(self) -> None:
        riders, self.riders = self.riders, []
        for rider in riders:
            rider()  # a delivery is a delivery, even of a turn already answered
        self.start()

    def start(self) -> None:
        if self.cancelled or self.started_at is not None:
            return
        self.started_at = time.monotonic()
        if self._backstop is not None:
            self._backstop.cancel()
        self.delivered(self.started_at - self.queued_at)
        self._timer = self.client.call_later(self.seconds, self._expired)

    def _overdue(self) -> None:
        if not self.cancelled and self.started_at is None:
            log.warning("the server did not confirm a turn line within %.0f s: the clock starts now",
                        time.monotonic() - self.queued_at)
            self.start()

    def _expired(self) -> None:
        if not self.cancelled:
            self.expire()

    def cancel(self) -> None:
        self.cancelled = True
        if self._backstop is not None:
            self._backstop.cancel()
        if self._timer is not None:
            self._timer.cancel()


@dataclass
class _Hand:
    number: int
    hand_id: str
    seats: list[TableSeat]
    names: tuple[str, ...]
    stacks: tuple[int, ...]
    waiting: int | None = None  # seat index we wait for
    timer: object | None = None
    deck: HandDeck | None = None  # committed at the start, revealed when the hand is over


_OPERATOR_PREFIXES = "~&@"  # NAMES prefixes of a channel's owners, admins and operators
_MEMBER_PREFIXES = "~&@%+"  # every NAMES prefix (with half-operators and voices)


def identity_of(userhost: str, account: str = "") -> str:
    """Who a connection is, whatever its nick: the account the server vouches for, else
    its user@host (lower case, without the ``~`` servers add when ident does not answer)."""
    if account:
        return f"account:{account.lower()}"
    user, _, host = userhost.rpartition("@")
    return f"{user.lstrip('~')}@{host}".lower()


@dataclass
class _Claimant:
    """Someone else who speaks the dealer's dialect at a table, known by its connection
    (identity_of), its nick followed across nick changes. Its lines move nothing; they
    only tell a dealer that has dealt no hand yet in this session that it may be the
    newcomer at a table already dealt, which it believes once the claimant *is* a dealer by
    more than its word: a channel operator, or a dealer seen ending a hand whose revealed
    deck verifies against its commitment."""

    nick: str
    identity: str
    earlier: bool = False  # it says (or shows) it dealt here before our first hand of the session
    since: float = 0.0  # when it first said so (our first hand waits a bounded time for its proof)
    proof: str = ""  # why it is taken for a dealer; "" while it is not
    lines: int = 0  # its dealer-like lines
    answered: bool = False  # its opening line was answered (once: a stranger cannot make us repeat it)
    ended: set[int] = field(default_factory=set)  # its hands whose end line we heard
    watch: DeckWatch = field(default_factory=DeckWatch)


@dataclass
class _Table:
    channel: str
    seats: list[TableSeat] = field(default_factory=list)
    next_hand: int = 1
    button: str | None = None
    hand: _Hand | None = None
    pause: object | None = None
    void_to_say: int | None = None
    unheard: list[str] = field(default_factory=list)  # a killed session's end lines the channel may never have heard
    reveal_to_say: HandDeck | None = None  # the voided hand's deck, said with its void
    opened: bool = False
    other_dealer: str = ""  # another dealer deals here: we do not (one dealer a channel)
    claimants: dict[str, _Claimant] = field(default_factory=dict)  # by identity_of
    operators: set[str] = field(default_factory=set)  # the channel's operators (lower-case nicks, from NAMES)
    hold: object | None = None  # the first hand waits for a claimant's proof (timer to look again)
    told: tuple = ()  # the last move out of turn answered (one answer a turn)
    turn_notices: set[str] = field(default_factory=set)  # queue keys of out-of-turn notices not yet known sent
    next_hand_first: bool = True  # no hand dealt yet in this session
    end_pending: bool = False  # the last hand's end lines are not written yet: the next hand waits for them
    sit_outs: list[TableSeat] = field(default_factory=list)  # !stand during a hand: said when it takes effect
    outgoing: list = field(default_factory=list)  # lines of this step, said together (_flush)
    driver: HandDriver = field(default_factory=HandDriver)  # runs the table's hands (rules mode)

    def state(self) -> State:
        """The rules state of the hand in play (the driver's; read, never moved here)."""
        st = self.driver.state
        assert st is not None  # a hand in play is started on the driver in its rules mode
        return st


class DealerBot:
    """Deals at ``channels`` over ``client`` (whose handler it becomes); see the module
    docstring. ``hands`` stops dealing after that many hands in all (None: until
    stopped); ``done`` is called once then. ``on_hand(channel, record, holes)`` gets each
    committed hand (logs). ``deals``: each hand's cards from a seed, as every dealer given
    it deals them (agent.play.deals.SeededDeals), instead of ``rng``. ``owners``
    may give it orders in private (the methods declared on ORDERS)."""

    # The owners' orders, declared on the methods below (connectors.irc.orders).
    ORDERS: OrderBook[DealerBot] = OrderBook("dealer")

    def __init__(self, client: IrcClient, channels: Iterable[str], table: TableConfig, bank: Bank, *,
                 rng: np.random.Generator, action_seconds: float = 30.0, max_timeouts: int = 3,
                 hand_pause: float = 3.0, hands: int | None = None, min_players: int = 2,
                 tiers: Callable[[str], int] = lambda channel: 0,
                 on_hand: Callable[[str, HandRecord, dict[str, tuple[int, int]]], object] | None = None,
                 done: Callable[[], object] | None = None, deals: SeededDeals | None = None,
                 decks: DeckSource | None = None, interrupted: dict[str, int] | None = None,
                 joined_clauses: bool = True, fair_clock: bool = True, claim_seconds: float = 120.0,
                 unheard: dict[str, list[str]] | None = None,
                 told: Callable[[str, int, tuple[str, ...] | None], object] | None = None,
                 owners: Owners | None = None) -> None:
        if not isinstance(rng, np.random.Generator):
            raise TypeError("the dealer needs a numpy Generator for its cards")
        self.client = client
        client.handler = self.handle
        self.config = table
        self.bank = bank
        self.rng = rng
        self.action_seconds = action_seconds
        self.max_timeouts = max_timeouts
        self.hand_pause = hand_pause
        self.hands_limit = hands
        self.min_players = max(2, min_players)  # players seated before the first hand of a table
        self.tiers = tiers
        self.on_hand = on_hand
        self.done = done
        self.stats = DealerStats()
        self.deals = deals  # each hand's cards by position, when given (agent.play.offline.dealer)
        # Each hand's deck (agent.play.irc.deck): the OS's entropy in real play; from ``rng``
        # when none is given (tests), and the table then says it is seeded.
        self.decks: DeckSource = decks if decks is not None else SeededDecks(rng)
        self.seeded = self.decks.seeded or deals is not None
        # Both on in play; off, the dealer says one clause a line and starts the clock when
        # it queues the turn line, as it did before: `poki bench` measures the difference.
        self.joined_clauses = joined_clauses
        self.fair_clock = fair_clock
        # The longest our first hand of a session waits for someone who says it deals here
        # to show it is a dealer (_Claimant): a stranger's word holds nothing longer.
        self.claim_seconds = claim_seconds
        # ``told(channel, number, lines)`` when a hand's last lines (its end or void, its
        # deck) are queued, ``told(channel, number, None)`` once the server has them: the
        # host records both, so a dealer killed in between says them again when it is back
        # (``unheard``, by channel in lower case).
        self.told = told
        self._unconfirmed: list[tuple[str, int]] = []  # hands told whose lines await a confirmation
        self._started = 0  # hands started in this session (the deal source's hand index)
        self.owners = owners if owners is not None else Owners(())
        self.paused = False  # an owner's pause: no hand starts until resume
        self.quitting = False  # an owner's quit: the session ends when the hands in progress do
        self.removed: set[str] = set()  # identities (identity_of) an owner removed: no seat this session
        self.tables: dict[str, _Table] = {}
        for channel in channels:
            key = channel.lower()
            self.tables[key] = _Table(channel)
            if interrupted and key in interrupted:
                # A hand a killed session had started: void, announced on arrival.
                self.tables[key].void_to_say = interrupted[key]
            if unheard and key in unheard:
                self.tables[key].unheard = list(unheard[key])
            if channel not in client.channels:
                client.channels.append(channel)
                if client.registered:  # built after the welcome: join now
                    client.send_raw(f"JOIN {channel}")
        self._finished = False

    # --- helpers ---------------------------------------------------------------------------

    def _say(self, table: _Table, msg: d.Line) -> None:
        """Say ``msg`` at the table with the rest of this step: the lines of one step (a
        move, the board it completes, the next turn) leave as one line where they fit
        (dialect.format_lines), after the handler that made them returns."""
        if not table.outgoing:
            self.client.call_soon(lambda: self._flush(table))
        table.outgoing.append(msg)

    def _flush(self, table: _Table) -> None:
        msgs, table.outgoing = table.outgoing, []
        lines = d.format_lines(msgs) if self.joined_clauses else [d.format_line(m) for m in msgs]
        for k, line in enumerate(lines):
            # A hand's end: the pause before the next hand counts from when it is written, so
            # a player who leaves when it sees the end is never dealt in (nor blinded).
            last_of_end = table.end_pending and k == len(lines) - 1
            self.client.say(table.channel, line, Priority.GAME,
                            on_sent=(lambda: self._end_written(table)) if last_of_end else None)
            self.stats.lines += 1
        hand = table.hand
        if hand is not None and isinstance(hand.timer, TurnClock):
            if self.fair_clock:
                if self._unconfirmed:  # earlier hands' last lines, confirmed by this turn's PING
                    told, self._unconfirmed = self._unconfirmed, []
                    hand.timer.riders.append(lambda: self.heard(told))
                hand.timer.arm()  # behind the turn line, never before it
            else:
                hand.timer.start()

    def _tell(self, nick: str, text: str, kind: str = "refusal") -> str:
        """An answer to one person: before strangers' when the person is seated; answers
        of one ``kind`` (help, stats, refusal, turn) to one nick coalesced and spaced
        (connectors.irc.send_queue), so a flood of commands earns a few answers and never
        holds up the game, and an answer is never replaced by one of another kind. The
        answer's queue key (to withdraw it should it no longer hold)."""
        seated = any(s.nick == nick for t in self.tables.values() for s in t.seats)
        key = f"answer:{nick.lower()}:{kind}"
        self.client.notice(nick, text, Priority.SEATED if seated else Priority.OTHER, key=key)
        return key

    def _refuse_move(self, nick: str, text: str) -> None:
        """A refused move goes to the player whose turn it is, at once, never held back."""
        self.stats.refused += 1
        self.client.notice(nick, text, Priority.SEATED)

    def _table(self, channel: str) -> _Table | None:
        return self.tables.get(channel.lower())

    @staticmethod
    def _seat_of(table: _Table, nick: str, userhost: str) -> TableSeat | None:
        for seat in table.seats:
            if seat.nick == nick and seat.userhost == userhost:
                return seat
        return None

    @property
    def hands_left(self) -> int | None:
        """Hands still to start (those in progress at other tables count as dealt)."""
        if self.hands_limit is None:
            return None
        in_progress = sum(1 for t in self.tables.values() if t.hand is not None)
        return self.hands_limit - self.stats.hands - in_progress

    # --- IRC events (loop thread) -------------------------------------------------------------

    def handle(self, ev: IrcEvent) -> None:
        kind = ev.kind
        if kind == "message":
            table = self._table(ev.target)
            if table is not None:
                self._on_line(table, ev)
            elif ev.target == self.client.nick:
                self._on_private(ev)
        elif kind == "join":
            table = self._table(ev.target)
            if table is None:
                return
            if ev.nick == self.client.nick:
                self._on_joined(table)
            else:
                self._present(table, ev.nick, ev.userhost, True)
        elif kind == "who":
            table = self._table(ev.target)
            if table is not None:
                self._present(table, ev.nick, ev.userhost, True)
        elif kind in ("part", "kick"):
            table = self._table(ev.target)
            if table is None:
                return
            nick = ev.other if kind == "kick" else ev.nick
            if nick:
                self._someone_left(nick, table)
            for occupant in list(table.seats):
                if occupant.nick == nick and (kind == "kick" or occupant.userhost == ev.userhost):
                    self._gone(table, occupant)
        elif kind == "quit":
            for table in self.tables.values():
                self._someone_left(ev.nick, table)
                seat = self._seat_of(table, ev.nick, ev.userhost)
                if seat is not None:
                    self._gone(table, seat)
        elif kind == "nick":
            self._claimant_renamed(ev.nick, ev.other)
            for table in self.tables.values():
                seat = self._seat_of(table, ev.nick, ev.userhost)
                if seat is not None:
                    self._renamed(table, seat, ev.other)
        elif kind == "names":
            table = self._table(ev.target)
            if table is not None:
                self._names(table, ev.text)
        elif kind == "disconnected":
            for table in self.tables.values():
                self._lost_server(table)

    def _on_joined(self, table: _Table) -> None:
        if not table.opened:
            freed = self.bank.seated_before(table.channel)
            table.next_hand = self.bank.open_table(table.channel)
            table.opened = True
            self._say(table, d.table_opened(self.config.small_bet, self.config.big_bet, self.seeded))
            if freed:  # people seated when the last session ended are told, not dropped silently
                self._say(table, d.seats_freed(freed))
        unheard, table.unheard = table.unheard, []
        for line in unheard:  # a killed session's last hand end, said again
            try:
                for msg in d.parse_lines(line):
                    self._say(table, msg)
            except d.DialectError as exc:
                log.error("%s: a recorded end line cannot be said again: %s", table.channel, exc)
        if table.void_to_say is not None:
            self._say(table, d.HandVoid(table.void_to_say))
            table.void_to_say = None
            if table.reveal_to_say is not None:
                self._say(table, table.reveal_to_say.reveal())
                table.reveal_to_say = None
        self._schedule(table)

    def _present(self, table: _Table, nick: str, userhost: str, present: bool) -> None:
        seat = self._seat_of(table, nick, userhost)
        if seat is not None:
            seat.present = present
            self._schedule(table)

    def _lost_server(self, table: _Table) -> None:
        hand = table.hand
        if hand is not None:
            if hand.timer is not None:
                hand.timer.cancel()  # type: ignore[attr-defined]  # set with the hand's timer, a scheduled command
            table.driver.abandon()
            table.hand = None
            table.void_to_say = hand.number
            table.reveal_to_say = hand.deck
            table.next_hand = hand.number + 1  # a void keeps its number
            self._void_stored(table, hand)
            self.stats.voided += 1
            log.warning("%s: server lost during hand %d: void, stacks as before it", table.channel, hand.number)
        if table.pause is not None:
            table.pause.cancel()  # type: ignore[attr-defined]  # set with the hand's timer, a scheduled command
            table.pause = None
        table.end_pending = False  # the lines went with the connection
        for seat in table.seats:
            seat.present = False  # until they are seen again (join or WHO)
            seat.leaving = False

    def _gone(self, table: _Table, seat: TableSeat) -> None:
        """The seat's connection left the channel or the server."""
        seat.present = False
        hand = table.hand
        if hand is not None and seat in hand.seats:
            seat.leaving = True
            self._leave_hand(table, hand, hand.seats.index(seat))
        else:
            self._release(table, seat)

    def _renamed(self, table: _Table, seat: TableSeat, new: str) -> None:
        old = seat.nick
        if not d.is_nick(new):
            # The dialect cannot carry the new nick: the seat is given up after the hand.
            seat.present = False
            seat.leaving = True
            if table.hand is None or seat not in table.hand.seats:
                self._release(table, seat)
            return
        try:
            self.bank.rename(table.channel, old, new, seat.userhost)
        except BankError as exc:
            log.error("%s: rename %s -> %s refused: %s", table.channel, old, new, exc)
            return
        seat.nick = new
        if table.button == old:
            table.button = new
        self._say(table, d.seat_renamed(old, new))

    # --- commands -------------------------------------------------------------------------------

    def _on_private(self, ev: IrcEvent) -> None:
        first = ev.text.split(maxsplit=1)[0].lower() if ev.text.strip() else ""
        if first in self.ORDERS.names():
            caller = Caller(ev.nick, ev.userhost, ev.account)
            if self.owners.allows(caller):
                answer = self.ORDERS.answer(self, caller, ev.text)
                log.info("order from %s!%s: %r -> %s", ev.nick, ev.userhost, ev.text[:80], answer)
                self.client.notice(ev.nick, answer, Priority.SEATED, key=f"answer:{ev.nick.lower()}:order")
                return
            if first != "help":  # a player's bare "help" gets the players' help below
                self.stats.refused += 1
                log.warning("order refused from %s!%s: %r", ev.nick, ev.userhost, ev.text[:80])
                self._tell(ev.nick, "I take orders from my owners only.", "order")
                return
            self._tell(ev.nick, d.help_text(self.client.nick), "help")
            return
        move = d.parse_move(ev.text)
        if move is not None:
            # A move said to the dealer alone (docs/irc-dialect.md): as if typed at the table.
            table = self._table(move[1])
            if table is None:
                self.stats.refused += 1
                self._tell(ev.nick, d.refusal("no_table", channel=move[1]))
            else:
                self._action(table, ev, move[0])
            return
        try:
            cmd = d.parse_command(ev.text)
        except d.DialectError as exc:
            self._tell(ev.nick, str(exc))
            return
        if cmd is not None and cmd.name in ("help", "stats"):
            self._table_command(None, ev, cmd)
        elif cmd is not None:
            self._tell(ev.nick, d.refusal("in_channel"))

    # --- the owners' orders (in private; connectors.irc.orders) ----------------------------------

    @ORDERS.order("status", "each table's hand in progress and seats; hands dealt, voids, time-outs; paused or not")
    def _status_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        parts = []
        for table in self.tables.values():
            hand = f"hand {table.hand.number} in progress" if table.hand is not None else "no hand in progress"
            seated = ", ".join(f"{s.nick} {s.chips}" + (" (sitting out)" if s.sitting_out else "")
                               for s in table.seats[:10]) or "nobody"
            more = f" and {len(table.seats) - 10} more" if len(table.seats) > 10 else ""
            parts.append(f"{table.channel}: {hand}; seated: {seated}{more}")
        st = self.stats
        state = ("over" if self._finished else "quitting when the hand in progress ends" if self.quitting
                 else "paused" if self.paused else "running")
        parts.append(f"{state}: {st.hands} hands dealt, {st.voided} void, {st.timeouts} time-outs, "
                     f"{st.stranger_lines} dealer-like lines from others ignored; {self.client.describe_budget()}")
        return "; ".join(parts)

    @ORDERS.order("pause", "start no new hand (the hands in progress are played out) until resume")
    def _pause_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        if self._finished or self.quitting:
            return "the session is ending: nothing to pause"
        if self.paused:
            return "paused already (resume to go on)"
        self.paused = True
        for table in self.tables.values():
            if table.pause is not None:
                table.pause.cancel()  # type: ignore[attr-defined]  # set with call_later, a scheduled command
                table.pause = None
            if table.opened and self.client.registered:
                self._say(table, d.table_paused())
        busy = [f"{t.channel} hand {t.hand.number}" for t in self.tables.values() if t.hand is not None]
        return "paused" + (f"; playing out {', '.join(busy)}" if busy else "") + "; resume to go on"

    @ORDERS.order("resume", "deal again after a pause")
    def _resume_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        if not self.paused:
            return "not paused"
        self.paused = False
        for table in self.tables.values():
            if table.opened and self.client.registered:
                self._say(table, d.table_resumed())
            self._schedule(table)
        return "resumed"

    @ORDERS.order("quit", "end the session when the hands in progress are over (their ends and decks said), then leave")
    def _quit_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        if self._finished:
            return "the session is over already"
        self.quitting = True
        for table in self.tables.values():
            for timer in (table.pause, table.hold):
                if timer is not None:
                    timer.cancel()  # type: ignore[attr-defined]  # set with call_later, a scheduled command
            table.pause = table.hold = None
        busy = [f"{t.channel} hand {t.hand.number}" for t in self.tables.values() if t.hand is not None]
        if not busy:
            self._end_session()
            return "quitting: no hand in progress"
        return f"quitting when {', '.join(busy)} ends"

    @ORDERS.order("remove", "take NICK's seat away when its hand is over (its chips go back); "
                  "it cannot sit again this session", params=("NICK",), example="remove mallory")
    def _remove_order(self, caller: Caller, args: tuple[str, ...]) -> str:
        nick = args[0]
        found = [(t, s) for t in self.tables.values() for s in t.seats if s.nick.lower() == nick.lower()]
        if not found:
            return f"{nick[:30]} is not seated at any table"
        told = []
        for table, seat in found:
            self.removed.add(identity_of(seat.userhost))  # the connection, whatever nick it takes next
            hand = table.hand
            if hand is not None and seat in hand.seats:
                seat.removed = True  # released by _after_hand: no fold forced, the hand is played out
                told.append(f"{table.channel} when hand {hand.number} is over")
            else:
                self._release(table, seat)
                told.append(table.channel)
        log.warning("%s removed %s (%s) by an owner's order", ", ".join(told), nick, found[0][1].userhost)
        return f"removing {nick} from {', '.join(told)}"

    def _on_line(self, table: _Table, ev: IrcEvent) -> None:
        if d.looks_like_dealer(ev.text) and ev.nick != self.client.nick:
            self._other_dealer(table, ev)
            return
        try:
            cmd = d.parse_command(ev.text)
        except d.DialectError as exc:
            self.stats.refused += 1
            self._tell(ev.nick, d.refusal("bad_command", channel=table.channel, reason=exc))
            return
        if cmd is None:
            return  # chatter
        if cmd.name in d.ACTIONS:
            self._action(table, ev, cmd.name, cmd.amount)
        else:
            self._table_command(table, ev, cmd)

    def _other_dealer(self, table: _Table, ev: IrcEvent) -> None:
        """Someone else speaks the dealer's dialect here. Nothing it says voids a hand or
        stops the table (counted, logged): one dealer a channel is kept by the newcomer,
        which defers to a dealer it can tell is one. A dealer answers another's opening
        line, once, by saying it deals here; a dealer that has dealt no hand yet in this
        session and hears someone say that, or start a hand, holds its first hand for at
        most ``claim_seconds`` and refuses the table (until that one leaves) only once the
        claimant is a dealer by identity or by its work (_Claimant)."""
        self.stats.stranger_lines += 1
        try:
            msgs = d.parse_lines(ev.text)
        except d.DialectError:
            return  # chatter that looks like a dealer line
        if any(s.nick == ev.nick and s.userhost == ev.userhost for s in table.seats):
            log.info("%s: a dealer-like line from the seated player %s, ignored", table.channel, ev.nick)
            return
        claimant = self._claimant(table, ev)
        claimant.lines += 1
        for msg in msgs:
            if d.is_dealer_conflict(msg):
                continue
            if isinstance(msg, d.HandEnds):
                claimant.ended.add(msg.hand)
            checked = claimant.watch.read(msg)
            if checked is not None and checked.ok and checked.hand in claimant.ended and not claimant.proof:
                claimant.proof = f"its hand {checked.hand} ended with a deck that verifies"
            if d.is_table_opened(msg) and table.opened and not claimant.answered:
                claimant.answered = True
                log.warning("%s: %s!%s opens a table here too; telling it this table is dealt", table.channel,
                            ev.nick, ev.userhost)
                self._say(table, d.dealer_here(self.client.nick))
            elif (d.is_dealer_here(msg) or isinstance(msg, d.HandStarts)) and not claimant.earlier \
                    and table.next_hand_first and table.hand is None:
                claimant.earlier = True  # it may have been here first: we may be the newcomer
                claimant.since = time.monotonic()
                log.warning("%s: %s!%s says it deals here: our first hand waits up to %.0f s for it to show it "
                            "is a dealer (a channel operator, or a hand ended with a deck that verifies)",
                            table.channel, ev.nick, ev.userhost, self.claim_seconds)
        if not claimant.proof and claimant.nick.lower() in table.operators:
            claimant.proof = "a channel operator"
        if claimant.earlier and claimant.proof and table.next_hand_first and not table.other_dealer:
            self._defer(table, claimant)
        elif claimant.earlier and not claimant.proof and table.next_hand_first:
            self._schedule(table)  # holds the first hand, looking again when the wait is over
        elif claimant.lines == 1 or claimant.lines % 100 == 0:
            log.warning("%s: %d dealer-like line(s) from %s!%s, who is not this table's dealer: ignored",
                        table.channel, claimant.lines, ev.nick, ev.userhost)

    def _claimant(self, table: _Table, ev: IrcEvent) -> _Claimant:
        key = identity_of(ev.userhost, ev.account)
        claimant = table.claimants.get(key)
        if claimant is None:
            if len(table.claimants) >= 64:  # bounded: forget the oldest stranger
                del table.claimants[next(iter(table.claimants))]
            claimant = table.claimants[key] = _Claimant(ev.nick, key)
        claimant.nick = ev.nick
        return claimant

    def _defer(self, table: _Table, claimant: _Claimant) -> None:
        """``claimant`` dealt here before us and is a dealer: we deal no hand here while it
        stays (one dealer a channel: never two interleaving hands)."""
        table.other_dealer = claimant.nick
        log.error("%s: another dealer, %s (%s: %s), deals here: not dealing at this table", table.channel,
                  claimant.nick, claimant.identity, claimant.proof)
        hand = table.hand
        if hand is not None:
            self._void(table, hand)
        for timer in (table.pause, table.hold):
            if timer is not None:
                timer.cancel()  # type: ignore[attr-defined]  # set with call_later, a scheduled command
        table.pause = table.hold = None
        self._say(table, d.dealer_conflict(claimant.nick))

    def _held_for(self, table: _Table) -> float:
        """Seconds our first hand of the session still waits for a claimant's proof."""
        if not table.next_hand_first:
            return 0.0
        now = time.monotonic()
        waits = [c.since + self.claim_seconds - now for c in table.claimants.values() if c.earlier and not c.proof]
        return max(waits, default=0.0)

    def _names(self, table: _Table, names: str) -> None:
        """A NAMES reply: who are the channel's operators."""
        for name in names.split()[:1000]:
            nick = name.lstrip(_MEMBER_PREFIXES)
            if any(p in _OPERATOR_PREFIXES for p in name[:len(name) - len(nick)]):  # "@nick", "+@nick" ...
                table.operators.add(nick.lower())
            else:
                table.operators.discard(nick.lower())
            if len(table.operators) > 1000:
                table.operators.clear()  # bounded: a channel of a thousand operators proves nothing

    def _claimant_renamed(self, old: str, new: str) -> None:
        """A nick change (the server's word: ``old`` is that connection's nick until now):
        a claimant, the other dealer and an operator keep who they are."""
        for table in self.tables.values():
            for claimant in table.claimants.values():
                if claimant.nick == old:
                    claimant.nick = new
            if table.other_dealer and table.other_dealer.lower() == old.lower():
                table.other_dealer = new
            if old.lower() in table.operators:
                table.operators.discard(old.lower())
                table.operators.add(new.lower())

    def _someone_left(self, nick: str, table: _Table) -> None:
        """``nick`` left the table's channel (or the server): its claim and its operator
        status go with it."""
        table.operators.discard(nick.lower())
        gone = [key for key, claimant in table.claimants.items() if claimant.nick.lower() == nick.lower()]
        for key in gone:
            del table.claimants[key]
        if table.other_dealer and table.other_dealer.lower() == nick.lower():
            table.other_dealer = ""
            log.warning("%s: the other dealer %s left: dealing again", table.channel, nick)
            self._schedule(table)
        elif gone:
            self._schedule(table)

    def _table_command(self, table: _Table | None, ev: IrcEvent, cmd: d.Command) -> None:
        nick, userhost = ev.nick, ev.userhost
        if cmd.name == "help":
            self._tell(nick, d.help_text(self.client.nick), "help")
            return
        if cmd.name == "stats":
            chips = self.bank.bankroll(nick, userhost)  # only to the connection that holds it
            seated = [(t.channel, s.chips) for t in self.tables.values() for s in t.seats
                      if s.nick == nick and s.userhost == userhost]
            self._tell(nick, d.stats_answer(nick, chips, seated), "stats")
            return
        assert table is not None
        seat = self._seat_of(table, nick, userhost)
        if cmd.name == "sit":
            self._sit(table, nick, userhost, seat, cmd.amount)
        elif cmd.name == "stand":
            if seat is None:
                self._refuse(nick, d.refusal("not_seated", channel=table.channel))
            elif not seat.sitting_out:
                seat.sitting_out = True  # dealt no more hands; said when it takes effect
                if table.hand is not None and seat in table.hand.seats:
                    table.sit_outs.append(seat)
                else:
                    self._say(table, d.TableSitOut(seat.nick, d.SIT_OUT_ASKED))
        elif cmd.name == "leave":
            if seat is None:
                self._refuse(nick, d.refusal("not_seated", channel=table.channel))
                return
            seat.leaving = True
            hand = table.hand
            if hand is not None and seat in hand.seats:
                self._leave_hand(table, hand, hand.seats.index(seat))
            else:
                self._release(table, seat)

    def _refuse(self, nick: str, text: str) -> None:
        self.stats.refused += 1
        self._tell(nick, text)

    def _sit(self, table: _Table, nick: str, userhost: str, seat: TableSeat | None, amount: int | None) -> None:
        if identity_of(userhost) in self.removed:
            self._refuse(nick, d.refusal("removed", channel=table.channel))
            return
        if seat is not None:
            if seat.sitting_out or seat.leaving:
                seat.sitting_out = False
                seat.leaving = False
                seat.auto = False
                seat.timeouts = 0
                self._say(table, d.player_back(nick))
                self._schedule(table)
            else:
                self._refuse(nick, d.refusal("seated_already", channel=table.channel, chips=seat.chips))
            return
        if not d.is_nick(nick):
            self._refuse(nick, d.refusal("long_nick", channel=table.channel))
            return
        if any(s.nick.lower() == nick.lower() for s in table.seats):
            self._refuse(nick, d.refusal("nick_taken", channel=table.channel))
            return
        if len(table.seats) >= self.config.seats:
            self._refuse(nick, d.refusal("table_full", channel=table.channel, seats=self.config.seats))
            return
        try:
            chips, bankroll = self.bank.sit(table.channel, nick, userhost, amount,
                                            self.config.starting_stack, self.tiers(table.channel))
        except BankError as exc:
            self._refuse(nick, d.refusal("bank", channel=table.channel, reason=exc))
            return
        table.seats.append(TableSeat(nick, userhost, chips))
        self._say(table, d.TableSit(nick, chips, bankroll))
        self._schedule(table)

    def _release(self, table: _Table, seat: TableSeat) -> None:
        if seat not in table.seats:
            return
        table.seats.remove(seat)
        try:
            chips, bankroll = self.bank.leave(table.channel, seat.nick)
        except Exception as exc:  # noqa: BLE001 - the chips stay on record at the table
            self.stats.errors += 1
            log.error("%s: returning %s's chips failed: %s", table.channel, seat.nick, exc)
            return
        if self.client.registered:
            self._say(table, d.TableLeave(seat.nick, chips, bankroll))

    # --- hands ----------------------------------------------------------------------------------

    def _eligible(self, table: _Table) -> list[TableSeat]:
        return [s for s in table.seats
                if s.present and not s.sitting_out and not s.leaving and not s.removed and s.chips > 0]

    def _schedule(self, table: _Table) -> None:
        """Start the next hand after the pause, if one can be dealt."""
        if (table.hand is not None or table.pause is not None or self._finished or table.other_dealer
                or not table.opened or table.channel not in self.client.joined or table.end_pending
                or self.paused or self.quitting):
            return
        held = self._held_for(table)
        if held > 0:  # someone says it deals here: wait for its proof, a bounded time
            if table.hold is None:
                table.hold = self.client.call_later(held, lambda: self._hold_over(table))
            return
        if self.hands_left is not None and self.hands_left <= 0:
            return
        need = self.min_players if table.next_hand_first else 2
        if len(self._eligible(table)) < need:
            return
        table.pause = self.client.call_later(self.hand_pause, lambda: self._start(table))

    def _hold_over(self, table: _Table) -> None:
        table.hold = None
        if self._held_for(table) <= 0 and not table.other_dealer:
            late = [c.nick for c in table.claimants.values() if c.earlier and not c.proof]
            if late:
                log.warning("%s: %s said it deals here and showed nothing in %.0f s: dealing", table.channel,
                            ", ".join(late), self.claim_seconds)
        self._schedule(table)

    def _start(self, table: _Table) -> None:
        table.pause = None
        if (table.hand is not None or table.channel not in self.client.joined or table.other_dealer or self._finished
                or self.paused or self.quitting):
            return
        if self._held_for(table) > 0:
            self._schedule(table)
            return
        if self.hands_left is not None and self.hands_left <= 0:
            return
        seats = self._eligible(table)
        if len(seats) < 2:
            return
        names = [s.nick for s in seats]
        # The button moves to the next seat clockwise (table order) each hand.
        order = [s.nick for s in table.seats]
        button = 0
        if table.button is not None:
            start = order.index(table.button) + 1 if table.button in order else 0
            for k in range(len(order)):
                nick = order[(start + k) % len(order)]
                if nick in names:
                    button = names.index(nick)
                    break
        table.button = names[button]
        for s in seats:
            s.hand_name = s.nick
        number = table.next_hand
        cfg = self.config
        if self.deals is None:
            deck = self.decks.deck(number)
            cards = list(deck.order[: 2 * len(seats) + 5])
            holes = [(cards[2 * k], cards[2 * k + 1]) for k in range(len(seats))]
        else:
            deal = self.deals.deal(self._started, len(seats), button)
            holes = list(deal.holes)
            cards = [c for hole in holes for c in hole] + list(deal.board)
            deck = deck_of(number, holes, deal.board, self.decks.deck(number).salt)
        self._started += 1
        self.bank.hand_started(table.channel, number)  # a kill from here on leaves a void to announce
        started = HandStarted(
            hand_id=hand_id_for(table.channel, number), source=f"irc {table.channel} hand {number}",
            players=tuple(names), stacks=tuple(s.chips for s in seats), button=button,
            small_blind=cfg.small_blind, big_blind=cfg.big_blind, small_bet=cfg.small_bet,
            big_bet=cfg.big_bet, max_bets=cfg.max_bets, started_at=time.time())
        driver = table.driver
        driver.start(started, holes, cards[2 * len(seats):])  # the blinds and every seat's hole cards
        hand = _Hand(number, started.hand_id, seats, started.players, started.stacks, deck=deck)
        table.hand = hand
        table.next_hand_first = False
        self._turn_moved(table)  # "no hand in progress" no longer holds
        self._say(table, d.HandStarts(number, names[button], cfg.small_blind, cfg.big_blind,
                                      cfg.small_bet, cfg.big_bet, cfg.max_bets,
                                      tuple(zip(names, started.stacks))))
        self._say(table, deck.commitment())
        for op in table.state().operations:
            if isinstance(op, BlindPosted):
                self._say(table, d.BlindPosted(number, names[op.seat], op.big, op.amount, op.all_in))
        self._flush(table)  # the start line before the cards it deals
        for k, seat in enumerate(seats):
            self.client.notice(seat.nick, d.format_line(d.HoleCards(number, table.channel, holes[k])), Priority.GAME)
        self._advance(table)

    @staticmethod
    def _options(table: _Table, seat: int) -> tuple[d.Option, ...]:
        st = table.state()
        legal = table.driver.legal
        to_call = min(st.to_call(seat), st.stacks[seat])
        options = []
        if Action.FOLD in legal and st.to_call(seat) > 0:
            options.append(d.Option("fold"))
        if Action.CHECK_CALL in legal:
            options.append(d.Option("call", to_call) if to_call > 0 else d.Option("check"))
        if Action.BET_RAISE in legal:
            top = min(st.raise_to or 0, st.bets[seat] + st.stacks[seat])
            if st.current_bet == 0:
                options.append(d.Option("bet", top))
            else:
                options.append(d.Option("raise", top))
        return tuple(options)

    def _advance(self, table: _Table) -> None:
        hand = table.hand
        if hand is None:
            return
        driver = table.driver
        while True:
            kind = driver.step()
            if kind == ACT:
                actor = driver.actor
                if hand.waiting == actor and hand.timer is not None:
                    return  # still waiting for the same player
                if hand.timer is not None:
                    hand.timer.cancel()  # type: ignore[attr-defined]  # set with the hand's timer, a scheduled command
                    hand.timer = None
                seat = hand.seats[actor]
                if not seat.present or seat.leaving or seat.auto:
                    self._act(table, hand, actor, None)
                    if table.hand is not hand:
                        return  # voided
                    continue
                hand.waiting = actor
                self._say(table, d.ToAct(hand.number, hand.names[actor], self._options(table, actor),
                                         table.state().pot, int(round(self.action_seconds))))
                hand.timer = TurnClock(self.client, self.action_seconds, lambda: self._timed_out(table, hand),
                                       self._delivered, backstop=max(60.0, 2 * self.action_seconds))
                return
            if kind == BOARD:
                ev = driver.deal_board()
                # One line per street, also when an all-in run-out deals several at once.
                board = table.state().board
                size = len(board) - len(ev.cards)
                while size < len(board):
                    step = 3 if size == 0 else 1
                    street_board = tuple(board[: size + step])
                    self._say(table, d.BoardCards(hand.number, d.STREETS[size + step],
                                                  street_board[size:], street_board))
                    size += step
                continue
            self._finish(table, hand)
            return

    def _delivered(self, seconds: float) -> None:
        stats = self.stats
        stats.turns += 1
        stats.delivery_total += seconds
        stats.delivery_max = max(stats.delivery_max, seconds)

    def _timed_out(self, table: _Table, hand: _Hand) -> None:
        if table.hand is not hand or hand.waiting is None:
            return
        hand.timer = None
        seat_index = hand.waiting
        seat = hand.seats[seat_index]
        seat.timeouts += 1
        self.stats.timeouts += 1
        if seat.timeouts >= self.max_timeouts and not seat.sitting_out:
            seat.sitting_out = True
            seat.auto = True  # no more waiting for him in this hand either
            self._say(table, d.TableSitOut(seat.nick, d.timed_out_reason(seat.timeouts)))
        self._act(table, hand, seat_index, None)
        self._advance(table)

    def _action(self, table: _Table, ev: IrcEvent, word: str, amount: int | None = None) -> None:
        hand = table.hand
        if hand is None or hand.waiting is None:
            self.stats.ignored += 1
            if hand is None and self._seat_of(table, ev.nick, ev.userhost) is not None:
                self._out_of_turn(table, ev, None)
            return
        seat = hand.seats[hand.waiting]
        if seat.nick != ev.nick or seat.userhost != ev.userhost:
            self.stats.ignored += 1
            if any(s.nick == ev.nick and s.userhost == ev.userhost for s in hand.seats):
                self._out_of_turn(table, ev, hand)  # a seated player is told; strangers are not answered
            return
        st = table.state()
        actor = hand.waiting
        to_call = st.to_call(actor)
        legal = table.driver.legal
        channel = table.channel
        if word == "check" and to_call > 0:
            self._refuse_move(ev.nick, d.refusal("cannot_check", channel=channel, hand=hand.number,
                                                 to_call=min(to_call, st.stacks[actor])))
            return
        if word == "fold" and Action.FOLD not in legal:
            self._refuse_move(ev.nick, d.refusal("cannot_fold", channel=channel, hand=hand.number))
            return
        if word in ("bet", "raise") and Action.BET_RAISE not in legal:
            self._refuse_move(ev.nick, d.refusal("cannot_raise", channel=channel, hand=hand.number))
            return
        if amount is not None:
            # ``raise to 60`` as the turn line offers it: taken when it is the amount offered.
            options = self._options(table, actor)
            offered = next((o for o in options if o.kind in (("call",) if word == "call" else ("bet", "raise"))), None)
            if offered is None or offered.amount != amount:
                self._refuse_move(ev.nick, d.refusal(
                    "wrong_amount", channel=channel, hand=hand.number, word=word,
                    amount=offered.amount if offered is not None else "not possible",
                    options=d.format_options(options)))
                return
        action = d.action_of(word)
        seat.timeouts = 0
        if hand.timer is not None:
            hand.timer.cancel()  # type: ignore[attr-defined]  # set with the hand's timer, a scheduled command
            hand.timer = None
        self._act(table, hand, actor, action)
        self._advance(table)

    def _out_of_turn(self, table: _Table, ev: IrcEvent, hand: _Hand | None) -> None:
        """A seated player's move out of turn: told once per turn (no flood)."""
        key = (ev.nick, hand.number if hand else 0, hand.waiting if hand else -1,
               len(table.state().operations) if hand else 0)
        if table.told == key:
            return
        table.told = key
        self.stats.refused += 1
        if hand is None:
            text = d.refusal("no_hand", channel=table.channel)
        else:
            text = d.refusal("not_your_turn", channel=table.channel, hand=hand.number,
                             nick=hand.names[hand.waiting] if hand.waiting is not None else "nobody")
        table.turn_notices.add(self._tell(ev.nick, text, "turn"))

    def _turn_moved(self, table: _Table) -> None:
        """The turn moved on (a move, a new hand, a void): out-of-turn notices still queued
        no longer hold and are withdrawn, never sent late."""
        notices, table.turn_notices = table.turn_notices, set()
        for key in notices:
            self.client.withdraw(key)

    def _act(self, table: _Table, hand: _Hand, seat: int, action: Action | None) -> None:
        """``seat``'s move, ``action`` (refused words never come here), or None for a seat
        that timed out, is absent or leaving: check when it is free, else fold."""
        st = table.state()
        driver = table.driver
        timed_out = action is None
        name = hand.names[seat]
        opening = st.current_bet == 0
        hand.waiting = None
        self._turn_moved(table)
        before = len(st.operations)
        try:
            if action is None:
                driver.apply_default(check_or_fold=True)
            else:
                driver.apply(action)
        except TrackerError as exc:  # cannot happen for a legal action; void rather than guess
            self.stats.errors += 1
            log.error("%s: %s", table.channel, exc)
            self._void(table, hand)
            return
        # The move is the first operation it made (a round or the hand may end after it).
        op = st.operations[before]
        if isinstance(op, Folded):
            msg = d.Acted(hand.number, name, "f", timed_out=timed_out)
        elif isinstance(op, CheckedOrCalled):
            if op.amount == 0:
                msg = d.Acted(hand.number, name, "k", None, op.all_in, timed_out)
            else:
                msg = d.Acted(hand.number, name, "c", op.amount, op.all_in)
        elif isinstance(op, BetOrRaised):
            msg = (d.Acted(hand.number, name, "b", op.amount, op.all_in) if opening
                   else d.Acted(hand.number, name, "r", op.to, op.all_in))
        else:
            raise AssertionError(f"unexpected operation {op!r}")
        self._say(table, msg)

    def _leave_hand(self, table: _Table, hand: _Hand, seat: int) -> None:
        was_waiting = hand.waiting == seat
        if not table.driver.leave(seat):
            return  # folded already, or the rules keep him in: he is checked/folded in turn
        if was_waiting:
            self._turn_moved(table)
        self._say(table, d.LeftHand(hand.number, hand.names[seat]))
        if was_waiting:
            hand.waiting = None
            if hand.timer is not None:
                hand.timer.cancel()  # type: ignore[attr-defined]  # set with the hand's timer, a scheduled command
                hand.timer = None
        self._advance(table)

    def _void(self, table: _Table, hand: _Hand) -> None:
        if hand.timer is not None:
            hand.timer.cancel()  # type: ignore[attr-defined]  # set with the hand's timer, a scheduled command
        table.driver.abandon()
        table.hand = None
        self.stats.voided += 1
        table.next_hand = hand.number + 1  # a void keeps its number
        self._turn_moved(table)
        self._void_stored(table, hand)
        last: list[d.Line] = [d.HandVoid(hand.number)]
        if hand.deck is not None:
            last.append(hand.deck.reveal())
        for msg in last:
            self._say(table, msg)
        self._told(table, hand.number, last)
        self._after_hand(table, hand)

    def _told(self, table: _Table, number: int, last: list[d.Line]) -> None:
        """A hand's last lines are queued: recorded by the host until the server has them."""
        told = self.told
        if told is None:
            return
        channel = table.channel
        try:
            told(channel, number, tuple(d.format_lines(last)))
        except Exception as exc:  # noqa: BLE001 - the record is a convenience for the next start
            self.stats.errors += 1
            log.error("%s: recording hand %d's last lines failed: %s", channel, number, exc)
            return
        # Confirmed by the next PING behind them (the next turn's clock, or the stop's
        # drain): no line of the send budget spent on it.
        self._unconfirmed.append((channel, number))

    def heard(self, told: list[tuple[str, int]] | None = None) -> None:
        """The server has the lines of these hands (None: of every hand told so far)."""
        if told is None:
            told, self._unconfirmed = self._unconfirmed, []
        if self.told is None:
            return
        for channel, number in told:
            try:
                self.told(channel, number, None)
            except Exception as exc:  # noqa: BLE001 - the record is a convenience for the next start
                self.stats.errors += 1
                log.error("%s: recording hand %d heard failed: %s", channel, number, exc)

    def _void_stored(self, table: _Table, hand: _Hand) -> None:
        """The bank skips the voided hand's number, so no later hand takes it."""
        try:
            self.bank.hand_void(table.channel, hand.number)
        except Exception as exc:  # noqa: BLE001 - the number is still skipped in this session
            self.stats.errors += 1
            log.error("%s: recording void hand %d failed: %s", table.channel, hand.number, exc)

    def close_tables(self) -> None:
        """The dealer is stopping: no hand starts any more, every hand in progress is void
        (its void line and its deck said before the dealer goes) and each table is told the
        session is over; the caller then lets these lines reach the server before QUIT."""
        already = self._finished
        self._finished = True  # no next hand
        for table in self.tables.values():
            for timer in (table.pause, table.hold):
                if timer is not None:
                    timer.cancel()  # type: ignore[attr-defined]  # set with call_later, a scheduled command
            table.pause = table.hold = None
            hand = table.hand
            if hand is not None and self.client.registered:
                self._void(table, hand)
                log.warning("%s: stopping during hand %d: void, stacks as before it", table.channel, hand.number)
            if not already and table.opened and self.client.registered:
                self._say(table, d.session_over(self.stats.hands))

    def _finish(self, table: _Table, hand: _Hand) -> None:
        driver = table.driver
        settled = driver.settle()
        record = settled.record
        assert record is not None  # the rules mode ends with the hand's record
        after = {name: hand.stacks[q] + settled.nets[q] for q, name in enumerate(hand.names)}
        # The bank knows seats by their nick now (a nick may have changed mid-hand).
        by_seat = {seat.nick: after[name] for seat, name in zip(hand.seats, hand.names)}
        try:
            self.bank.hand_done(table.channel, record, by_seat, hand.number + 1)
        except Exception as exc:  # noqa: BLE001 - a failed commit voids the hand
            self.stats.errors += 1
            log.error("%s: storing hand %d failed, void: %s", table.channel, hand.number, exc)
            self._void(table, hand)
            return
        table.next_hand = hand.number + 1
        table.hand = None
        for seat, name in zip(hand.seats, hand.names):
            seat.chips = after[name]
        board = record.board
        if len(record.shown) > 0:
            for shown in record.shown:
                description = None
                if len(board) == 5:
                    description = hand_category(evaluate_cards([*shown.cards, *board]))
                self._say(table, d.Shows(hand.number, shown.player, shown.cards, description))  # type: ignore[arg-type]  # shown cards are two
        last: list[d.Line] = [*(d.Wins(hand.number, r.player, r.won) for r in record.results if r.won > 0),
                              d.HandEnds(hand.number, tuple((n, after[n]) for n in hand.names))]
        if hand.deck is not None:
            last.append(hand.deck.reveal())
        for msg in last:
            self._say(table, msg)
        self._told(table, hand.number, last)
        self.stats.hands += 1
        if self.on_hand is not None:
            holes = dict(zip(hand.names, driver.holes))
            try:
                self.on_hand(table.channel, record, holes)  # type: ignore[arg-type]  # every seat's hole cards are known to the dealer
            except Exception as exc:  # noqa: BLE001 - logs failing must not stop the table
                self.stats.errors += 1
                log.error("%s: hand %d: logging failed: %s", table.channel, hand.number, exc)
        self._after_hand(table, hand)

    def _after_hand(self, table: _Table, hand: _Hand) -> None:
        sit_outs, table.sit_outs = table.sit_outs, []
        for seat in sit_outs:
            if seat.sitting_out and seat in table.seats:
                self._say(table, d.TableSitOut(seat.nick, d.SIT_OUT_ASKED))
        for seat in hand.seats:
            if seat.leaving or seat.removed or seat.chips <= 0:
                self._release(table, seat)
        if self.quitting or (self.hands_left is not None and self.hands_left <= 0):
            self._end_session()
            return
        assert table.outgoing, "a hand's end or void is said before _after_hand"
        table.end_pending = True  # the next hand once the end is written (_end_written)

    def _end_session(self) -> None:
        """No hand in progress at any table any more: the session is over (said at every
        table); ``done`` is told."""
        if self._finished or any(t.hand is not None for t in self.tables.values()):
            return
        self._finished = True
        for t in self.tables.values():
            self._say(t, d.session_over(self.stats.hands))
        if self.done is not None:
            self.done()

    def _end_written(self, table: _Table) -> None:
        table.end_pending = False
        self._schedule(table)

    # --- state for status and tests --------------------------------------------------------------

    def seats(self, channel: str) -> list[TableSeat]:
        table = self._table(channel)
        return [] if table is None else list(table.seats)

    @property
    def busy(self) -> bool:
        return any(t.hand is not None for t in self.tables.values())
