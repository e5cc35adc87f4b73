"""The game-context tracker: the only owner of game state (docs/architecture.md, "The data flow").

Connectors feed it events (agent.game.events); it drives the one rules state machine
(agent.game.rules.State), refuses any event the rules or the hand so far make impossible with a
:class:`TrackerError` that says what and where, and offers two views:

* :meth:`Tracker.snapshot` — a read-only :class:`GameContext` of the public game context
  ([poki-2002]): round, pot, bets to call, raises so far, active players, positions, the
  betting history, the viewer's own hole cards and the legal moves. Every decider reads
  only this; it is built at every decision, so it is cheap.
* at :class:`~agent.game.events.HandEnded`, the complete :class:`~agent.game.records.HandRecord`
  the database stores, after checking the source's reported result against the rules.

Hole cards a source never gives are dealt face down once play moves on (or a snapshot is
taken). At the showdown the source may show and muck; players whose cards are known and
who did neither show at HandEnded, in showdown order; if cards are still missing then,
the result the source reports settles the pots. A refused event leaves the tracker as it
was, so the caller may skip it or abandon the hand. A HandStarted while a hand is
unfinished abandons that hand (counted in :attr:`Tracker.hands_abandoned`).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any, cast

from agent.config import TableConfig
from agent.game.context import GameContext
from agent.game.events import (
    BoardDealt,
    CardsMucked,
    CardsShown,
    Event,
    HandEnded,
    HandStarted,
    HoleCards,
    PlayerActed,
    PlayerAllIn,
    PlayerLeft,
    PlayerPosted,
)
from agent.game.records import (
    BET,
    BIG_BLIND,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    SMALL_BLIND,
    ActionRecord,
    HandRecord,
    PlayerResult,
    SeatRecord,
    ShownCards,
)
from agent.game.rules import (
    MAX_PLAYERS,
    Action,
    BetOrRaised,
    BlindPosted,
    CheckedOrCalled,
    Folded,
    IllegalActionError,
    Phase,
    ShowdownBegan,
    Shown,
    State,
)
from agent.game.slots import slot_constructor
from evaluator_pyx.cards import N_CARDS, card_str

__all__ = ["Tracker", "TrackerError"]


class TrackerError(ValueError):
    """An event the tracker refuses; the message names the source, the hand and, for an
    action, its index in the hand."""

    def __init__(self, message: str, *, source: str = "", hand_id: str = "",
                 event: Event | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.source = source
        self.hand_id = hand_id
        self.event = event
        self.reason = reason or message


_PHASE_WAITING = {
    Phase.HOLE_DEALING: "hole cards",
    Phase.BETTING: "an action",
    Phase.BOARD_DEALING: "the board",
    Phase.SHOWDOWN: "the showdown",
    Phase.OVER: "the result",
}
_SEAT_WORD = re.compile(r"\bseat (\d+)")
_FOLD, _CHECK_CALL, _BET_RAISE = Action.FOLD, Action.CHECK_CALL, Action.BET_RAISE
_ACTIONS = frozenset(Action)
_DO = (State.fold, State.check_or_call, State.bet_or_raise)  # indexed by Action
_EXACT: dict[str, Callable[[State, int], Folded | CheckedOrCalled | BetOrRaised]] = {FOLD: State.fold, CHECK: State.check, CALL: State.call, BET: State.bet,
          RAISE: State.raise_}
_ACTION_OF_KIND = {FOLD: _FOLD, CHECK: _CHECK_CALL, CALL: _CHECK_CALL, BET: _BET_RAISE,
                   RAISE: _BET_RAISE}
_HOLE_DEALING, _BETTING, _BOARD_DEALING, _SHOWDOWN, _OVER = (
    Phase.HOLE_DEALING, Phase.BETTING, Phase.BOARD_DEALING, Phase.SHOWDOWN, Phase.OVER)


_make_context = slot_constructor(GameContext)
_make_action_record = slot_constructor(ActionRecord)
_make_seat = slot_constructor(SeatRecord)
_make_result = slot_constructor(PlayerResult)
_make_shown = slot_constructor(ShownCards)
_make_hand_record = slot_constructor(HandRecord)


@lru_cache(maxsize=256)
def _positions(n: int, button: int) -> tuple[int, ...]:
    """Each seat's position: seats after the button, 1 = first after it, n = the button."""
    if type(button) is not int or not 0 <= button < n:
        return ()  # the rules refuse the button with a clear message
    return tuple((s - button - 1) % n + 1 for s in range(n))


@lru_cache(maxsize=64)
def _table_config(small_blind: int, big_blind: int, small_bet: int, big_bet: int,
                  max_bets: int) -> TableConfig:
    return TableConfig(small_blind=small_blind, big_blind=big_blind, small_bet=small_bet,
                       big_bet=big_bet, max_bets=max_bets)


def _unraked(won: list[int], rake: int) -> list[int]:
    """What each player took from the pot before the rake, for settling it from a raked
    report: the rake goes back to the players who won chips, in proportion to them, the
    odd chips to the first of them."""
    total = sum(won)
    if total <= 0:
        return won
    back = [rake * w // total for w in won]
    left = rake - sum(back)
    for s, w in enumerate(won):
        if w > 0:
            back[s] += left
            break
    return [w + b for w, b in zip(won, back)]


def _cards_text(cards: Any) -> str:
    """Cards as text for a message; ``cards`` is whatever the source sent."""
    try:
        return " ".join(card_str(c) for c in cards)
    except Exception:  # noqa: BLE001 - whatever the source sent, the message shows it
        return repr(cards)


class Tracker:
    """Applies events to the one rules state of the current hand; see the module docstring.

    ``me`` names our own seat: :meth:`snapshot` shows its hole cards by default.
    """

    __slots__ = (
        "me", "hands_abandoned", "_state", "_started", "_players", "_seat_of", "_positions",
        "_where", "_actions", "_history", "_history_upto", "_live", "_active", "_board", "_round",
        "_bet_sizes",
        "_decisions", "_late_shown", "_ended", "_holes_pending",
        "_record", "_handlers",
    )

    def __init__(self, me: str | None = None) -> None:
        self.me = me
        self.hands_abandoned = 0
        self._state: State | None = None
        self._started: HandStarted | None = None
        self._players: tuple[str, ...] = ()
        self._seat_of: dict[str, int] = {}
        self._positions: tuple[int, ...] = ()
        self._where = "tracker"
        self._actions: list[ActionRecord] = []
        # The betting history is built from the action records when a snapshot asks for
        # it, so a replay that takes no snapshots never pays for it.
        self._history: tuple[tuple[tuple[str, str], ...], ...] = ()
        self._history_upto = 0  # action records the history reflects
        self._live = 0
        self._active: tuple[str, ...] | None = ()  # None: changed, rebuilt on demand
        self._board: tuple[int, ...] = ()
        self._round = 0
        self._bet_sizes: tuple[int, ...] = ()
        self._decisions = 0
        self._late_shown: list[ShownCards] = []
        self._ended = False
        self._holes_pending = False
        self._record: HandRecord | None = None
        self._handlers: dict[type, Callable[[Any], HandRecord | None]] = {
            HandStarted: self._hand_started,
            HoleCards: self._hole_cards,
            BoardDealt: self._board_dealt,
            PlayerActed: self._player_acted,
            PlayerLeft: self._player_left,
            PlayerPosted: self._player_posted,
            PlayerAllIn: self._player_all_in,
            CardsShown: self._cards_shown,
            CardsMucked: self._cards_mucked,
            HandEnded: self._hand_ended,
        }

    # --- views -----------------------------------------------------------------------------

    @property
    def state(self) -> State | None:
        """The rules state of the current hand (read it, never move it from outside)."""
        return self._state

    @property
    def hand(self) -> HandStarted | None:
        """The HandStarted event of the current (or last) hand."""
        return self._started

    @property
    def in_hand(self) -> bool:
        """A hand has started and its HandEnded has not been applied."""
        return self._state is not None and not self._ended

    @property
    def record(self) -> HandRecord | None:
        """The last finished hand's record (set by HandEnded)."""
        return self._record

    @property
    def waiting_for(self) -> str:
        """What the hand needs next: 'hole cards', 'an action', 'the board', 'the showdown',
        'the result' (HandEnded), or 'a new hand'."""
        if self._state is None or self._ended:
            return "a new hand"
        return _PHASE_WAITING[self._state.phase]

    def seat_of(self, player: str) -> int:
        seat = self._seat_of.get(player)
        if seat is None:
            raise TrackerError(f"{self._where}: {player!r} is not seated in this hand")
        return seat

    def snapshot(self, viewer: str | None = None) -> GameContext:
        """The public game context now, with ``viewer``'s hole cards (default: ``me``).
        Hole cards the source has not given by now are taken as dealt face down."""
        st = self._state
        if st is None:
            raise TrackerError("tracker: no hand has started")
        if self._holes_pending and not self._ended:
            self._fill_holes()
        if viewer is None:
            viewer = self.me
        players = self._players
        started = cast(HandStarted, self._started)
        actor = st.actor
        bet_size = st.bet_size
        if actor is None:
            to_call = 0
            actor_name = None
        else:
            to_call = st.to_call(actor)
            actor_name = players[actor]
        history = self._history
        if self._history_upto != len(self._actions) or len(history) <= self._round:
            history = self._history_now()
        holes = None
        if viewer is not None:
            seat = self._seat_of.get(viewer)
            if seat is not None:
                holes = st.hole_cards(seat)
        # GameContext's fields in order (positional: a keyword call costs twice the
        # snapshot; tests/test_tracker.py checks every field against its name).
        return _make_context(
            started.hand_id,  # hand_id
            players,  # players
            started.button,  # button
            self._positions,  # positions
            st.stacks,  # stacks
            st.put_in,  # put_in
            self._active if self._active is not None else self._active_now(),  # active
            int(st.street),  # round
            self._board,  # board
            st.pot,  # pot
            started.small_bet,  # small_bet
            started.big_bet,  # big_bet
            bet_size,  # bet_size
            started.max_bets,  # max_bets
            st.bets_this_round,  # bets_this_round
            st.raises_this_round,  # raises_this_round
            actor_name,  # actor
            actor,  # actor_seat
            to_call,  # to_call
            -(-to_call // bet_size),  # bets_to_call
            st.legal_actions(),  # legal_actions
            history,  # history
            tuple(self._actions),  # actions
            viewer,  # viewer
            holes,  # hole_cards
        )

    def _active_now(self) -> tuple[str, ...]:
        folded = cast(State, self._state).folded
        self._active = tuple(p for s, p in enumerate(self._players) if s not in folded)
        return self._active

    def _history_now(self) -> tuple[tuple[tuple[str, str], ...], ...]:
        """Per round reached, the (player, kind) of every action so far, blinds included."""
        actions = self._actions
        history = self._history
        if self._history_upto != len(actions):
            for record in actions[self._history_upto:]:
                rnd = record.round
                entry = (record.player, record.kind)
                if len(history) == rnd + 1:
                    history = history[:-1] + (history[-1] + (entry,),)
                else:
                    history = history + ((),) * (rnd - len(history)) + ((entry,),)
            self._history_upto = len(actions)
        reached = self._round + 1
        if len(history) < reached:
            history = history + ((),) * (reached - len(history))
        self._history = history
        return history

    # --- applying events -----------------------------------------------------------------------

    def apply(self, event: Event) -> HandRecord | None:
        """Apply one event; returns the finished hand's record at HandEnded, else None.
        Raises TrackerError for an event that cannot happen now."""
        try:
            handler = self._handlers[type(event)]
        except KeyError:
            raise TrackerError(f"{self._where}: not an event: {event!r}", event=event) from None
        return handler(event)

    def apply_all(self, events: Iterable[Event]) -> list[HandRecord]:
        """Apply events in order; the records of the hands they finished."""
        records = []
        for event in events:
            record = self.apply(event)
            if record is not None:
                records.append(record)
        return records

    def _fail(self, event: Event | None, reason: str, *, action: bool = False) -> TrackerError:
        where = self._where
        if action:
            where = f"{where} action {self._decisions + 1}"
        started = self._started
        return TrackerError(
            f"{where}: {reason}",
            source=started.source if started else "",
            hand_id=started.hand_id if started else "",
            event=event,
            reason=reason,
        )

    def _rules_reason(self, exc: IllegalActionError) -> str:
        """The rules' message with seat numbers replaced by the players' names."""
        players = self._players

        def name(match: re.Match[str]) -> str:
            seat = int(match.group(1))
            return players[seat] if 0 <= seat < len(players) else match.group(0)

        return _SEAT_WORD.sub(name, str(exc))

    def _current(self, event: Event) -> State:
        st = self._state
        if st is None or self._ended:
            raise self._not_in_hand(event)
        return st

    def _not_in_hand(self, event: Event) -> TrackerError:
        if self._state is None:
            return self._fail(event, f"{type(event).__name__} before any HandStarted")
        return self._fail(
            event, f"{type(event).__name__} after the hand ended (HandStarted must come first)")

    def _seat(self, event: Event, player: object) -> int:
        # Any object may come from a source; one that is not a seated name finds no seat.
        seat: int | None = self._seat_of.get(player)  # type: ignore[call-overload]  # any key finds a seat or None
        if seat is None:
            raise self._unknown(event, player)
        return seat

    def _unknown(self, event: Event, player: object) -> TrackerError:
        return self._fail(event, f"unknown player {player!r} (seated: {', '.join(self._players)})",
                          action=isinstance(event, PlayerActed))

    # HandStarted

    def _hand_started(self, ev: HandStarted) -> None:
        source, hand_id = ev.source, ev.hand_id
        where = source if type(source) is str and source else "tracker"
        if type(hand_id) is str and hand_id and hand_id not in where:
            where = f"{where} hand {hand_id}"
        players, stacks = ev.players, ev.stacks
        sizes = (ev.small_blind, ev.big_blind, ev.small_bet, ev.big_bet, ev.max_bets)
        n = len(players) if type(players) is tuple else 0
        # One quick test for the usual case; the slow one names what is wrong.
        if not (type(hand_id) is str and hand_id and 2 <= n <= MAX_PLAYERS
                and type(stacks) is tuple and len(stacks) == n
                and len(set(players)) == n and all(type(p) is str and p for p in players)
                and all(type(v) is int and v > 0 for v in sizes)
                and sizes[0] <= sizes[1]
                and (ev.hero is None or ev.hero in players)):
            raise self._bad_start(ev, where)
        try:
            config = _table_config(*sizes)
            extra: dict[str, Any] = {}
            if ev.blinds is not None:
                extra["blinds"] = ev.blinds
            if ev.variant is not None:
                state = State(config, stacks, ev.button, auto_show=False, variant=ev.variant,
                              **extra)
            else:
                state = State(config, stacks, ev.button, auto_show=False,
                              free_folds=bool(ev.free_folds),
                              heads_up_reverse_blinds=bool(ev.heads_up_reverse_blinds), **extra)
        except ValueError as exc:  # IllegalActionError, ConfigError
            raise TrackerError(f"{where}: {exc}", source=str(source), hand_id=str(hand_id),
                               event=ev, reason=str(exc)) from None
        if self._state is not None and not self._ended:
            self.hands_abandoned += 1
        self._state = state
        self._started = ev
        self._players = players
        self._seat_of = dict(zip(players, range(n)))
        positions = self._positions = _positions(n, ev.button)
        self._where = where
        self._live = n
        self._active = players
        self._board = ()
        self._round = 0
        self._bet_sizes = (sizes[2], sizes[2], sizes[3], sizes[3])
        self._decisions = 0
        self._late_shown = []
        self._ended = False
        self._holes_pending = True
        actions = []
        for op in cast("list[BlindPosted]", state.operations):  # the blinds, posted on creation
            name = players[op.seat]
            kind = BIG_BLIND if op.big else SMALL_BLIND
            actions.append(_make_action_record(0, name, kind, op.amount, 0, 0,
                                               positions[op.seat], n, op.all_in))
        self._actions = actions
        self._history = ()
        self._history_upto = 0
        return None

    def _bad_start(self, ev: HandStarted, where: str) -> TrackerError:
        """The error for a HandStarted that fails the quick test."""
        players, stacks, hand_id = ev.players, ev.stacks, ev.hand_id
        if type(hand_id) is not str or not hand_id:
            reason = f"hand id must be a non-empty string, got {hand_id!r}"
        elif type(players) is not tuple or not all(type(p) is str and p for p in players):
            reason = f"players must be a tuple of names, got {players!r}"
        elif not 2 <= len(players) <= MAX_PLAYERS:
            reason = f"a hand needs 2-{MAX_PLAYERS} players, got {len(players)}"
        elif len(set(players)) != len(players):
            twice = sorted({p for p in players if players.count(p) > 1})
            reason = f"player seated twice: {', '.join(twice)}"
        elif type(stacks) is not tuple or len(stacks) != len(players):
            reason = f"{len(players)} players need {len(players)} stacks, got {stacks!r}"
        elif ev.hero is not None and ev.hero not in players:
            reason = f"the hero {ev.hero!r} is not seated"
        else:
            reason = f"small blind {ev.small_blind} exceeds big blind {ev.big_blind}"
            for name in ("small_blind", "big_blind", "small_bet", "big_bet", "max_bets"):
                value = getattr(ev, name)
                if type(value) is not int or value <= 0:
                    reason = f"{name} must be a positive whole number, got {value!r}"
                    break
        return TrackerError(f"{where}: {reason}", source=str(ev.source), hand_id=str(hand_id),
                            event=ev, reason=reason)

    # HoleCards

    def _hole_cards(self, ev: HoleCards) -> None:
        st = self._state
        if st is None or self._ended:
            raise self._not_in_hand(ev)
        seat = self._seat_of.get(ev.player)
        if seat is None:
            raise self._unknown(ev, ev.player)
        cards: Any = ev.cards  # as the source sent them: a list is taken as a tuple
        if type(cards) is list:
            cards = tuple(cards)
        try:
            st.deal_hole(seat, cards)
        except IllegalActionError as exc:
            raise self._fail(ev, self._rules_reason(exc)) from None
        return None

    def _fill_holes(self) -> None:
        """Deal face down whatever hole cards the source never gave, once play moves on."""
        st = cast(State, self._state)
        for seat in st.pending_hole_seats:
            st.deal_hole(seat, None)
        self._holes_pending = False

    # BoardDealt

    def _board_dealt(self, ev: BoardDealt) -> None:
        st = self._current(ev)
        if st.phase == _HOLE_DEALING:
            self._fill_holes()
        cards = ev.cards
        if isinstance(cards, list):
            cards = tuple(cards)
        try:
            st.deal_board(cards)
        except IllegalActionError as exc:
            raise self._fail(ev, self._rules_reason(exc)) from None
        self._board = st.board
        self._round = min(int(st.street), 3)
        return None

    # PlayerActed

    def _player_acted(self, ev: PlayerActed) -> None:
        st = self._state
        if st is None or self._ended:
            raise self._not_in_hand(ev)
        if self._holes_pending:
            self._fill_holes()
        action = ev.action
        if action not in _ACTIONS:
            raise self._fail(ev, f"not an action: {action!r}", action=True)
        actor = st.actor
        player = ev.player
        if player is None:
            if actor is None:
                raise self._fail(ev, f"nobody can act now: the hand is waiting for "
                                     f"{_PHASE_WAITING[st.phase]}", action=True)
            seat = actor
        else:
            found = self._seat_of.get(player)
            if found is None:
                raise self._unknown(ev, player)
            seat = found
        if seat == actor:
            to_call = st.to_call(actor)
            bets = st.bets_this_round
            if ev.to is not None and action == _BET_RAISE:
                expected = st.raise_to
                if expected is not None and ev.to != expected:
                    raise self._fail(ev, f"{self._players[seat]} bets to {ev.to} but the "
                                         f"rules make it {expected}", action=True)
        else:
            to_call = bets = 0
        exact = ev.kind
        try:
            if exact is None:
                op = _DO[action](st, seat)
            else:
                # The move the source named (check / call / bet / raise / fold), so that a
                # check facing a bet or a raise of nothing is refused by the rules.
                if _ACTION_OF_KIND.get(exact) != action:
                    raise self._fail(ev, self._kind_problem(exact, action), action=True)
                op = _EXACT[exact](st, seat)
        except IllegalActionError as exc:
            raise self._fail(ev, self._rules_reason(exc), action=True) from None
        name = self._players[seat]
        street = self._round
        if action == _FOLD:
            kind = FOLD
            amount = 0
            all_in = False
        else:
            kind = (CALL if to_call else CHECK) if action == _CHECK_CALL else (RAISE if bets else BET)
            moved = cast("CheckedOrCalled | BetOrRaised", op)
            amount = moved.amount
            all_in = moved.all_in
        self._actions.append(_make_action_record(
            street, name, kind, amount, -(-to_call // self._bet_sizes[street]), bets,
            self._positions[seat], self._live, all_in))
        if kind is FOLD:
            self._live -= 1
            self._active = None
        self._decisions += 1
        return None

    def _player_posted(self, ev: PlayerPosted) -> None:
        """A post beyond the blinds, before the deal: recorded as a big blind when its live
        part is a whole big blind, else as a small blind, for all the chips it put in."""
        st = self._current(ev)
        seat = self._seat(ev, ev.player)
        try:
            op = st.post(seat, ev.live, ev.dead)
        except IllegalActionError as exc:
            raise self._fail(ev, self._rules_reason(exc)) from None
        started = cast(HandStarted, self._started)
        kind = BIG_BLIND if op.live >= started.big_blind else SMALL_BLIND
        self._actions.append(_make_action_record(0, self._players[seat], kind, op.live + op.dead, 0, 0,
                                                 self._positions[seat], len(self._players), op.all_in))
        return None

    def _player_left(self, ev: PlayerLeft) -> None:
        """A quit or kick: out of the hand at once, whoever's turn it is. Not a decision,
        so it is not in the record's actions or the history."""
        st = self._current(ev)
        seat = self._seat(ev, ev.player)
        if st.phase == _HOLE_DEALING:
            self._fill_holes()
        try:
            st.leave(seat)
        except IllegalActionError as exc:
            raise self._fail(ev, self._rules_reason(exc)) from None
        self._live -= 1
        self._active = None
        return None

    def _player_all_in(self, ev: PlayerAllIn) -> None:
        st = self._current(ev)
        seat = self._seat(ev, ev.player)
        if st.phase == _HOLE_DEALING:
            self._fill_holes()
        try:
            st.declare_all_in(seat)
        except IllegalActionError as exc:
            raise self._fail(ev, self._rules_reason(exc)) from None
        return None

    @staticmethod
    def _kind_problem(kind: object, action: Action) -> str:
        if kind not in _EXACT:
            return f"unknown action kind {kind!r} (one of f k c b r)"
        return f"action {Action(action).name} does not match its kind {kind!r}"

    # showdown

    def _cards_shown(self, ev: CardsShown) -> None:
        st = self._current(ev)
        seat = self._seat(ev, ev.player)
        cards = tuple(ev.cards) if isinstance(ev.cards, (tuple, list)) else ev.cards
        phase = st.phase
        if (phase == _SHOWDOWN or phase == _OVER) and st.hand_value(seat) is not None:
            # Already shown: the same cards again are a repeat, not news.
            for op in st.operations:
                if type(op) is Shown and op.seat == seat:
                    if isinstance(cards, tuple) and sorted(cards) == sorted(op.cards):
                        return None
                    raise self._fail(ev, f"{ev.player} shows {_cards_text(cards)} but already "
                                         f"showed {_cards_text(op.cards)}")
        if phase == _SHOWDOWN:
            try:
                st.show(seat, cards)
            except IllegalActionError as exc:
                raise self._fail(ev, self._rules_reason(exc)) from None
            return None
        if phase == _OVER:
            self._late_show(ev, seat, cards)
            return None
        raise self._fail(ev, f"{ev.player} cannot show cards now: the hand is waiting for "
                             f"{_PHASE_WAITING[phase]}")

    def _late_show(self, ev: CardsShown, seat: int, cards: object) -> None:
        """A player shows after the pot was settled without a showdown (a winner showing a
        bluff): recorded, after checking the cards fit what is known."""
        st = self._state
        if not isinstance(cards, tuple) or len(cards) != 2 or len(set(cards)) != 2 or not all(
                type(c) is int and 0 <= c < N_CARDS for c in cards):
            raise self._fail(ev, f"{ev.player} shows {cards!r}: two different cards needed")
        for shown in self._late_shown:
            if shown.player == ev.player:
                if sorted(shown.cards) == sorted(cards):
                    return  # a repeat, not news
                raise self._fail(ev, f"{ev.player} shows {_cards_text(cards)} but already "
                                     f"showed {_cards_text(shown.cards)}")
        assert st is not None  # called by _cards_shown, with a hand in play
        known = st.hole_cards(seat)
        if known is not None:
            if sorted(known) != sorted(cards):
                raise self._fail(ev, f"{ev.player} shows {_cards_text(cards)} but was dealt "
                                     f"{_cards_text(known)}")
        else:
            in_play = set(st.board)
            for s in range(len(self._players)):
                h = st.hole_cards(s)
                if h is not None:
                    in_play.update(h)
            for shown in self._late_shown:
                in_play.update(shown.cards)
            clash = [c for c in cards if c in in_play]
            if clash:
                raise self._fail(ev, f"{ev.player} shows {_cards_text(cards)}: "
                                     f"{_cards_text(clash)} is already in play")
        self._late_shown.append(ShownCards(ev.player, cards))

    def _cards_mucked(self, ev: CardsMucked) -> None:
        st = self._current(ev)
        seat = self._seat(ev, ev.player)
        phase = st.phase
        if phase == _OVER:
            if st.hand_value(seat) is not None:
                raise self._fail(ev, f"{ev.player} cannot muck: already showed")
            return None  # nothing left to claim: mucking changes nothing
        if phase != _SHOWDOWN:
            raise self._fail(ev, f"{ev.player} cannot muck now: the hand is waiting for "
                                 f"{_PHASE_WAITING[phase]}")
        try:
            st.muck(seat)
        except IllegalActionError as exc:
            if st.hand_value(seat) is not None:
                raise self._fail(ev, f"{ev.player} cannot muck: already showed") from None
            raise self._fail(ev, self._rules_reason(exc)) from None
        return None

    # HandEnded

    def _reported(self, ev: HandEnded, pairs: Any, what: str) -> list[Any]:
        # Chips as the source reported them: ints, or floats the checks after refuse.
        values: list[Any] = [0] * len(self._players)
        seen = set()
        try:
            items = list(pairs.items()) if isinstance(pairs, dict) else list(pairs)
        except TypeError:
            raise self._fail(ev, f"{what}: expected (player, chips) pairs, got {pairs!r}") from None
        for item in items:
            if not isinstance(item, tuple) or len(item) != 2:
                raise self._fail(ev, f"{what}: expected (player, chips) pairs, got {item!r}")
            player, amount = item
            seat = self._seat(ev, player)
            if seat in seen:
                raise self._fail(ev, f"{what}: {player} is listed twice")
            if isinstance(amount, bool) or not isinstance(amount, (int, float)):
                raise self._fail(ev, f"{what}: {player} gets {amount!r}")
            seen.add(seat)
            values[seat] = amount
        return values

    def _hand_ended(self, ev: HandEnded) -> HandRecord:
        st = self._current(ev)
        players = self._players
        won_given = None if ev.won is None else self._reported(ev, ev.won, "chips won")
        net_given = None if ev.net is None else self._reported(ev, ev.net, "net result")
        rake = ev.rake
        if rake:
            if type(rake) is not int or rake < 0:
                raise self._fail(ev, f"rake must be a whole number of chips, got {rake!r}")
            if won_given is None:
                if net_given is None:
                    raise self._fail(ev, "a raked hand needs the chips each player won or his net")
                # Every chip is in by now: what each took is his net plus what he put in.
                won_given = [v + p for v, p in zip(net_given, st.put_in)]
                if any(float(w) != int(w) for w in won_given):
                    raise self._fail(ev, f"chips won must be whole: {won_given}")
                won_given = [int(w) for w in won_given]
        phase = st.phase
        if phase == _SHOWDOWN:
            # Players whose cards are known and who neither showed nor mucked show now,
            # in showdown order (a dealer that knows every hand sends no shows at all).
            for seat in st.pending_showdown:
                if st.hole_cards(seat) is not None:
                    st.show(seat)
            phase = st.phase
        if phase == _SHOWDOWN:
            # Cards of some players are unknown: the source's result settles the pots.
            if won_given is not None:
                amounts = _unraked(won_given, rake) if rake else won_given
            elif net_given is not None:
                amounts = [v + p for v, p in zip(net_given, st.put_in)]
                if any(float(a) != int(a) for a in amounts):
                    raise self._fail(ev, "cannot settle a showdown with unknown cards from "
                                         "fractional results")
                amounts = [int(a) for a in amounts]
            else:
                waiting = ", ".join(players[s] for s in st.pending_showdown)
                raise self._fail(ev, f"the hand ended without a result while {waiting} "
                                     "had neither shown nor mucked")
            if any(isinstance(a, float) and a != int(a) for a in amounts):
                raise self._fail(ev, f"chips won must be whole: {amounts}")
            try:
                st.award([int(a) for a in amounts])
            except IllegalActionError as exc:
                raise self._fail(ev, self._rules_reason(exc)) from None
        elif phase != _OVER:
            raise self._fail(ev, f"the hand ended early: the rules are waiting for "
                                 f"{_PHASE_WAITING[phase]}")
        won = st.won
        if won_given is not None and list(won) != won_given:
            # With a rake every player gets what the rules give less some of the rake.
            if not rake or sum(won) - sum(won_given) != rake or any(
                    w < 0 or w > r for w, r in zip(won_given, won)):
                diff = ", ".join(f"{players[s]} {won_given[s]} (rules: {won[s]})"
                                 for s in range(len(players)) if won_given[s] != won[s])
                raked = f" with {rake} raked" if rake else ""
                raise self._fail(ev, f"reported chips won disagree with the rules{raked}: {diff}")
            won = tuple(won_given)
        elif rake:
            raise self._fail(ev, f"reported chips won disagree with the rules: {rake} raked "
                                 "but the players won the whole pot")
        if net_given is not None:
            payoffs = [w - p for w, p in zip(won, st.put_in)]
            # ACPC reports split pots as fractions where the rules give odd chips to one
            # winner: a whole report must match exactly, a fractional one within a chip.
            off = [s for s in range(len(players))
                   if (abs(net_given[s] - payoffs[s]) >= 1 if isinstance(net_given[s], float)
                       and net_given[s] != int(net_given[s]) else net_given[s] != payoffs[s])]
            if off:
                diff = ", ".join(f"{players[s]} {net_given[s]:g} (rules: {payoffs[s]})" for s in off)
                raise self._fail(ev, f"reported results disagree with the rules: {diff}")
        record = self._build_record(won, rake)
        self._record = record
        self._ended = True
        return record

    def _build_record(self, won: tuple[int, ...], rake: int) -> HandRecord:
        st = cast(State, self._state)
        started = cast(HandStarted, self._started)
        players = self._players
        positions = self._positions
        stacks = started.stacks
        shown = []
        if self._live > 1:
            # A showdown: the shown hands are at the end of the rules' log, after the
            # operation that began the showdown.
            for op in reversed(st.operations):
                if type(op) is Shown:
                    shown.append(_make_shown(players[op.seat], op.cards))
                elif type(op) is ShowdownBegan:
                    break
            shown.reverse()
        if self._late_shown:
            shown.extend(self._late_shown)
        put = st.put_in
        return _make_hand_record(
            started.hand_id,
            started.source,
            started.started_at,
            started.small_blind,
            started.big_blind,
            started.small_bet,
            started.big_bet,
            started.max_bets,
            tuple(map(_make_seat, players, stacks, positions)),
            st.board,
            tuple(self._actions),
            tuple(shown),
            tuple(map(_make_result, players, put, won)),
            rake,
            started.hero,
            started.tournament,
            started.level,
        )
