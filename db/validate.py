"""Checks a hand must pass before anything of it is stored, beyond HandRecord.check():
what the database relies on (every actor seated at the position the action names, cards
that exist, contexts in range) and what no real hand can show (acting after folding)."""
from __future__ import annotations

import math

from agent.records import BLIND_KINDS, CHECK, FOLD, HandRecord, RecordError


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_record(record: HandRecord, network: str) -> None:
    """Raise RecordError, naming the hand and the fault, unless the record can be stored."""
    if not isinstance(record, HandRecord):
        raise RecordError(f"not a hand record: {type(record).__name__}")
    hid = record.hand_id
    if not isinstance(hid, str) or not hid.strip():
        raise RecordError(f"hand id must be a non-empty string, got {hid!r}")
    if not isinstance(network, str) or not network.strip():
        raise RecordError(f"{hid}: network must be a non-empty string, got {network!r}")
    try:
        record.check()
    except RecordError:
        raise
    except (TypeError, AttributeError, ValueError, KeyError, IndexError) as exc:
        # Fields of the wrong type make check() itself fail; that is a bad record too.
        raise RecordError(f"{hid}: malformed record: {exc}") from None
    if not isinstance(record.source, str):
        raise RecordError(f"{hid}: source must be a string")
    if record.started_at is not None and not (
        isinstance(record.started_at, (int, float)) and math.isfinite(record.started_at)
    ):
        raise RecordError(f"{hid}: started_at must be a Unix time or None, got {record.started_at!r}")
    for name in ("small_blind", "big_blind", "small_bet", "big_bet", "max_bets"):
        value = getattr(record, name)
        if not _is_int(value) or value <= 0:
            raise RecordError(f"{hid}: {name} must be a positive integer, got {value!r}")

    n = len(record.seats)
    position_of = {}
    for seat in record.seats:
        if not isinstance(seat.player, str) or not seat.player.strip():
            raise RecordError(f"{hid}: seat with empty player name {seat.player!r}")
        if type(seat.stack) is not int or type(seat.position) is not int:
            raise RecordError(f"{hid}: {seat.player} has stack {seat.stack!r} and position {seat.position!r}")
        position_of[seat.player] = seat.position
    if sorted(position_of.values()) != list(range(1, n + 1)):
        raise RecordError(f"{hid}: positions {sorted(position_of.values())} are not 1..{n}")

    folded: set[str] = set()
    decided = False
    for i, act in enumerate(record.actions):
        # type() is int, not isinstance: rejects bools (and, strictly, int subclasses).
        if not (
            type(act.round) is int
            and type(act.amount) is int
            and type(act.bets_to_call) is int
            and type(act.raises) is int
            and type(act.position) is int
            and type(act.players_active) is int
            and type(act.all_in) is bool
        ):
            raise RecordError(f"{hid}: action {i} ({act.player} {act.kind}) has a field of the wrong type: {act}")
        if act.position != position_of[act.player] or act.player in folded or act.bets_to_call < 0 \
                or act.raises < 0 or not 1 <= act.players_active <= n:
            where = f"{hid}: action {i} ({act.player} {act.kind})"
            if act.position != position_of[act.player]:
                raise RecordError(f"{where}: position {act.position} but seated at {position_of[act.player]}")
            if act.player in folded:
                raise RecordError(f"{where}: acts after folding")
            if act.bets_to_call < 0 or act.raises < 0:
                raise RecordError(f"{where}: negative bets to call or raises")
            raise RecordError(f"{where}: {act.players_active} players active of {n}")
        kind = act.kind
        if kind in BLIND_KINDS:
            if act.round != 0 or decided:
                raise RecordError(f"{hid}: action {i} ({act.player} {kind}): blind posted after the betting started")
        else:
            decided = True
            if kind == FOLD:
                folded.add(act.player)
                if act.amount:
                    raise RecordError(f"{hid}: action {i} ({act.player} {kind}): puts in {act.amount} chips")
            elif kind == CHECK and act.amount:
                raise RecordError(f"{hid}: action {i} ({act.player} {kind}): puts in {act.amount} chips")

    for r in record.results:
        if type(r.put_in) is not int or type(r.won) is not int:
            raise RecordError(f"{hid}: {r.player} put in {r.put_in!r} and won {r.won!r}: not integers")

    cards = list(record.board)
    shown_players = set()
    for s in record.shown:
        if s.player in shown_players:
            raise RecordError(f"{hid}: {s.player} shows cards twice")
        shown_players.add(s.player)
        cards.extend(s.cards)
    for c in cards:
        if not _is_int(c) or not 0 <= c < 52:
            raise RecordError(f"{hid}: {c!r} is not a card")
    if len(set(cards)) != len(cards):
        raise RecordError(f"{hid}: a card appears twice among the board and shown hands")
