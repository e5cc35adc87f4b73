"""A checked hand as the rows the database stores, before the database numbers them.

``prepare_hand`` validates a HandRecord and turns it into plain nested tuples: the hand's
row without its sequence number, and its seats, actions, shown cards, results and model
observations with players referred to by seat index rather than by player id. Only the
writer knows the sequence numbers and player ids, so it fills those in; everything else
(the checking and the row building, most of the work) can happen anywhere, including in
another process: the tuples hold only ints, floats, strings and bools, so ``marshal``
sends them cheaply. ``Database.write_prepared`` stores them.
"""
from __future__ import annotations

from typing import NamedTuple

from agent.records import ACTION_CLASS, BLIND_KINDS, HandRecord
from evaluator_pyx.cards import cards_str

from .validate import validate_record


class PreparedHand(NamedTuple):
    hand_id: str
    network: str
    players: tuple[str, ...]  # seated nicks, in seat order; other rows name a seat index
    # hands row without seq: (hand_id, network, source, started_at, small_blind, big_blind,
    # small_bet, big_bet, max_bets, board, players, pot, actions, shown)
    hand: tuple
    seats: tuple[tuple[int, int, int], ...]  # (seat, position, stack)
    # (ord, seat, round, kind, amount, bets_to_call, raises, position, players_active,
    # all_in, context)
    actions: tuple[tuple, ...]
    shown: tuple[tuple[int, str], ...]  # (seat, cards)
    results: tuple[tuple[int, int, int], ...]  # (seat, put_in, won)
    observations: tuple[tuple[int, int, int], ...]  # decisions: (seat, context, action class)


def prepare_hand(record: HandRecord, network: str) -> PreparedHand:
    """The rows of ``record``; RecordError (naming the hand and the fault) unless it can
    be stored (db.validate)."""
    validate_record(record, network)
    players = tuple([s.player for s in record.seats])
    seat_of = {p: i for i, p in enumerate(players)}
    actions = []
    observations = []
    for i, a in enumerate(record.actions):
        seat = seat_of[a.player]
        kind = a.kind
        context = a.context
        actions.append((i, seat, a.round, kind, a.amount, a.bets_to_call, a.raises, a.position,
                        a.players_active, a.all_in, context))
        if kind not in BLIND_KINDS:
            observations.append((seat, context, ACTION_CLASS[kind]))
    results = tuple([(seat_of[r.player], r.put_in, r.won) for r in record.results])
    pot = sum([r[1] for r in results])
    hand = (record.hand_id, network, record.source, record.started_at, record.small_blind,
            record.big_blind, record.small_bet, record.big_bet, record.max_bets,
            cards_str(record.board), len(players), pot, len(actions), len(record.shown))
    return PreparedHand(
        record.hand_id,
        network,
        players,
        hand,
        tuple([(i, s.position, s.stack) for i, s in enumerate(record.seats)]),
        tuple(actions),
        tuple([(seat_of[s.player], cards_str(s.cards)) for s in record.shown]),
        results,
        tuple(observations),
    )
