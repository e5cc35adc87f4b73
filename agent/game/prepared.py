"""A hand record checked and laid out as plain tuples, in one pass: what every store of
hands needs (the database's rows, the in-memory opponent model's observations).

``prepare_hand`` makes every check a hand must pass before anything of it is stored
(those of HandRecord.check(): chips balance, every actor seated, rounds in order; and
what the database relies on: every actor at the position the action names, cards that
exist and appear once, fields of the right types; and what no real hand can show, such as
acting after folding), and while it reads the record it builds plain nested tuples: the
hand's row without its sequence number, and its seats, actions, shown cards, results and
model observations with players referred to by seat index rather than by player id.
Checking and building in the same pass reads each field of the record once, which is most
of the cost of storing a hand.

Only the writer knows the sequence numbers and player ids, so it fills those in;
everything else can happen anywhere, including in another process: the tuples hold only
ints, floats, strings and bools, so ``marshal`` sends them cheaply.
``Database.write_prepared`` stores them.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

from agent.game.context import ContextWalker, decision_context
from agent.game.records import ACTION_CLASS, BLIND_KINDS, CHECK, DECISION_KINDS, FOLD, HandRecord, RecordError
from evaluator_pyx.cards import CARD_NAMES

MAX_SEATS = 23  # what one deck can deal; logs of real games hold up to 12
_SIZES = ("small_blind", "big_blind", "small_bet", "big_bet", "max_bets")


class PreparedHand(NamedTuple):
    hand_id: str
    network: str
    players: tuple[str, ...]  # seated nicks, in seat order; other rows name a seat index
    # hands row without seq and hero: (hand_id, network, source, started_at, small_blind,
    # big_blind, small_bet, big_bet, max_bets, board, players, pot, actions, shown, rake,
    # tournament, level)
    hand: tuple[Any, ...]
    seats: tuple[tuple[int, int, int], ...]  # (seat, position, stack)
    # (ord, seat, round, kind, amount, bets_to_call, raises, position, players_active,
    # all_in, context, fine context)
    actions: tuple[tuple[Any, ...], ...]
    shown: tuple[tuple[int, str], ...]  # (seat, cards)
    results: tuple[tuple[int, int, int], ...]  # (seat, put_in, won)
    observations: tuple[tuple[int, int, int, int], ...]  # decisions: (seat, context, action class, fine context)
    hero: int = -1  # the seat of the player the source was written for; -1: none said


def validate_record(record: HandRecord, network: str) -> None:
    """Raise RecordError, naming the hand and the fault, unless the record can be stored."""
    prepare_hand(record, network)


def prepare_hand(record: HandRecord, network: str) -> PreparedHand:
    """The rows of ``record``; RecordError, naming the hand and the fault, unless it can
    be stored."""
    if not isinstance(record, HandRecord):
        raise RecordError(f"not a hand record: {type(record).__name__}")
    hid = record.hand_id
    if not isinstance(hid, str) or not hid.strip():
        raise RecordError(f"hand id must be a non-empty string, got {hid!r}")
    if not isinstance(network, str) or not network.strip():
        raise RecordError(f"{hid}: network must be a non-empty string, got {network!r}")
    try:
        return _prepare(record, hid, network)
    except RecordError:
        raise
    except (TypeError, AttributeError, ValueError, KeyError, IndexError) as exc:
        # Fields of the wrong type make the checks themselves fail; a bad record too.
        raise RecordError(f"{hid}: malformed record: {exc}") from None


def _prepare(record: HandRecord, hid: str, network: str) -> PreparedHand:
    _check_header(record, hid)

    # Seats.
    seats = record.seats
    n = len(seats)
    if not 2 <= n <= MAX_SEATS:
        raise RecordError(f"{hid}: {n} players seated")
    seat_of: dict[str, int] = {}
    players: list[str] = []
    positions: list[int] = []
    seat_rows = []
    for i, s in enumerate(seats):
        player, position, stack = s.player, s.position, s.stack
        if not isinstance(player, str) or not player.strip():
            raise RecordError(f"{hid}: seat with empty player name {player!r}")
        if player in seat_of:
            raise RecordError(f"{hid}: a player is seated twice")
        if type(stack) is not int or type(position) is not int:
            raise RecordError(f"{hid}: {player} has stack {stack!r} and position {position!r}")
        seat_of[player] = i
        players.append(player)
        positions.append(position)
        seat_rows.append((i, position, stack))
    if sorted(positions) != list(range(1, n + 1)):
        raise RecordError(f"{hid}: positions {sorted(positions)} are not 1..{n}")

    board = record.board
    if len(board) not in (0, 3, 4, 5):
        raise RecordError(f"{hid}: board of {len(board)} cards")

    put_in = [0] * n
    action_rows: list[tuple[Any, ...]] = []
    observations: list[tuple[int, int, int, int]] = []
    _read_actions(record, hid, seat_of, players, positions, board, put_in, action_rows, observations)
    result_rows = _result_rows(record, hid, seat_of, put_in)
    total_in = sum(put_in)  # what the results say each put in, checked against these
    rake = record.rake
    hero = -1
    if record.hero is not None:
        hero = seat_of.get(record.hero, -1)
        if hero < 0:
            raise RecordError(f"{hid}: the hero {record.hero!r} is not seated")
    shown_rows = _shown_rows(record, hid, seat_of, board)

    # The board's cards are checked (_shown_rows): their text is a lookup.
    names = CARD_NAMES
    hand = (hid, network, record.source, record.started_at, record.small_blind, record.big_blind,
            record.small_bet, record.big_bet, record.max_bets, " ".join([names[c] for c in board]), n, total_in,
            len(action_rows), len(shown_rows), rake, record.tournament, record.level)
    return PreparedHand(hid, network, tuple(players), hand, tuple(seat_rows), tuple(action_rows), shown_rows,
                        result_rows, tuple(observations), hero)


_MAX_LABEL = 64


def _label(value: object) -> bool:
    """Whether ``value`` is a tournament id or level as stored: a short non-empty string."""
    return isinstance(value, str) and 0 < len(value.strip()) and len(value) <= _MAX_LABEL


def _check_header(record: HandRecord, hid: str) -> None:
    """The source, the start time and the table's sizes."""
    if not isinstance(record.source, str):
        raise RecordError(f"{hid}: source must be a string")
    started_at = record.started_at
    if started_at is not None and not (
        isinstance(started_at, (int, float)) and not isinstance(started_at, bool) and math.isfinite(started_at)
    ):
        raise RecordError(f"{hid}: started_at must be a Unix time or None, got {started_at!r}")
    for name in _SIZES:
        value = getattr(record, name)
        if type(value) is not int or value <= 0:
            raise RecordError(f"{hid}: {name} must be a positive integer, got {value!r}")
    # A tournament's hand names its tournament (and may name its level); a cash game's neither.
    tournament, level = record.tournament, record.level
    if tournament is None and level is not None or tournament is not None and not _label(tournament) \
            or level is not None and not _label(level):
        raise RecordError(f"{hid}: tournament {tournament!r} at level {level!r}")


def _read_actions(record: HandRecord, hid: str, seat_of: dict[str, int], players: list[str], positions: list[int],
                  board: tuple[int, ...], put_in: list[int], action_rows: list[tuple[Any, ...]],
                  observations: list[tuple[int, int, int, int]]) -> None:
    """The actions checked, in order: their rows and the decisions' observations
    appended, each seat's chips added to ``put_in``."""
    n = len(players)
    folded = [False] * n
    decided = False
    last_round = 0
    walker = ContextWalker(dict(zip(players, positions)), board)
    for i, a in enumerate(record.actions):
        player = a.player
        seat = seat_of.get(player)
        if seat is None:
            raise RecordError(f"{hid}: action {i} by unseated player {player!r}")
        kind, rnd, amount, btc, raises = a.kind, a.round, a.amount, a.bets_to_call, a.raises
        position, active, all_in = a.position, a.players_active, a.all_in
        # type() is int, not isinstance: rejects bools (and, strictly, int subclasses).
        if not (type(rnd) is int and type(amount) is int and type(btc) is int and type(raises) is int
                and type(position) is int and type(active) is int and type(all_in) is bool):
            raise RecordError(f"{hid}: action {i} ({player} {kind}) has a field of the wrong type: {a}")
        blind = kind in BLIND_KINDS
        if not blind and kind not in DECISION_KINDS:
            raise RecordError(f"{hid}: action {i} has unknown kind {kind!r}")
        if rnd < last_round or not 0 <= rnd <= 3:
            raise RecordError(f"{hid}: action {i} in round {rnd} out of order")
        if amount < 0:
            raise RecordError(f"{hid}: action {i} puts in {amount} chips")
        if position != positions[seat] or folded[seat] or btc < 0 or raises < 0 or not 1 <= active <= n:
            where = f"{hid}: action {i} ({player} {kind})"
            if position != positions[seat]:
                raise RecordError(f"{where}: position {position} but seated at {positions[seat]}")
            if folded[seat]:
                raise RecordError(f"{where}: acts after folding")
            if btc < 0 or raises < 0:
                raise RecordError(f"{where}: negative bets to call or raises")
            raise RecordError(f"{where}: {active} players active of {n}")
        if blind:
            if rnd != 0 or decided:
                raise RecordError(f"{hid}: action {i} ({player} {kind}): blind posted after the betting started")
        else:
            decided = True
            if kind == FOLD:
                folded[seat] = True
            if amount and (kind == FOLD or kind == CHECK):
                raise RecordError(f"{hid}: action {i} ({player} {kind}): puts in {amount} chips")
        last_round = rnd
        put_in[seat] += amount
        context = decision_context(rnd, btc)
        fine = walker.context(rnd, player, btc, active, raises)
        walker.record(rnd, player, kind)
        action_rows.append((i, seat, rnd, kind, amount, btc, raises, position, active, all_in, context, fine))
        if not blind:
            observations.append((seat, context, ACTION_CLASS[kind], fine))


def _result_rows(record: HandRecord, hid: str, seat_of: dict[str, int],
                 put_in: list[int]) -> tuple[tuple[int, int, int], ...]:
    """The results checked: every seated player once, chips in as the actions say, all
    of them won but the rake."""
    results = record.results
    n = len(put_in)
    if len(results) != n:
        raise RecordError(f"{hid}: results do not list every seated player once")
    listed = [False] * n
    result_rows = []
    total_in = total_won = 0
    for r in results:
        seat = seat_of.get(r.player)
        if seat is None or listed[seat]:
            raise RecordError(f"{hid}: results do not list every seated player once")
        listed[seat] = True
        chips_in, won = r.put_in, r.won
        if type(chips_in) is not int or type(won) is not int:
            raise RecordError(f"{hid}: {r.player} put in {chips_in!r} and won {won!r}: not integers")
        if chips_in != put_in[seat]:
            raise RecordError(f"{hid}: {r.player} put in {chips_in} by the results but {put_in[seat]} by the actions")
        if won < 0:
            raise RecordError(f"{hid}: {r.player} won {won}")
        total_in += chips_in
        total_won += won
        result_rows.append((seat, chips_in, won))
    rake = record.rake
    if type(rake) is not int or rake < 0:
        raise RecordError(f"{hid}: rake of {rake!r}")
    if total_in != total_won + rake:
        raked = f" and {rake} raked" if rake else ""
        raise RecordError(f"{hid}: {total_in} chips put in but {total_won} won{raked}")
    return tuple(result_rows)


def _shown_rows(record: HandRecord, hid: str, seat_of: dict[str, int],
                board: tuple[int, ...]) -> tuple[tuple[int, str], ...]:
    """The shown hands' rows; the board and the shown cards checked: each a real card,
    none twice."""
    cards = list(board)
    shown_seats: list[int] = []
    for show in record.shown:
        seat = seat_of.get(show.player)
        if seat is None or len(show.cards) != 2:
            raise RecordError(f"{hid}: bad shown cards for {show.player!r}")
        if seat in shown_seats:
            raise RecordError(f"{hid}: {show.player} shows cards twice")
        shown_seats.append(seat)
        cards.extend(show.cards)
    for c in cards:
        if type(c) is not int or not 0 <= c < 52:
            raise RecordError(f"{hid}: {c!r} is not a card")
    if len(set(cards)) != len(cards):
        raise RecordError(f"{hid}: a card appears twice among the board and shown hands")

    names = CARD_NAMES  # the cards are checked: their text is a lookup (as evaluator_pyx.cards.cards_str)
    return tuple([(seat, " ".join([names[c] for c in s.cards])) for seat, s in zip(shown_seats, record.shown)])
