"""Hands an older Poki stored under an id since refined (a room's hand was keyed by its
number, ``stars:2467687491``; it is now keyed by its number and a digest of its content,
``stars:2467687491:<digest>``, connectors.logs.sources.legacy_hand_id): a file made before
holds the old ids, and replaying the same logs into it must store nothing twice, while a
different hand under a reused number is still kept.

The old id alone cannot tell the two apart, so the hand stored under it is compared with
the one being written in everything the file keeps of a hand: the stakes, the board, the
seats (player, position, stack), every action (player, round, kind, amount, all-in), the
shown cards, what each put in and won, the rake and the hero. Left out, as the content
digest leaves them out: the time and where the hand was read; and the network the hand
was filed under (``--network``), which the id never held. Equal: the same hand, counted
as a duplicate, and the stored row re-keyed to the new id (the next replay recognises it
by id, before reading it); otherwise a hand of its own, stored beside it. What the file
never kept cannot be compared: a reused number whose hand differs only in the hero's
unshown hole cards is taken for the stored one.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from agent.game.prepared import PreparedHand

__all__ = ["LegacyId", "recognise"]

# The id an older Poki stored a hand under, for an id of the current kind; None: no older id.
LegacyId = Callable[[str], "str | None"]


def recognise(conn: sqlite3.Connection, hands: Sequence[PreparedHand], legacy: LegacyId) -> set[str]:
    """The ids of ``hands`` (none of them stored under its own id; PreparedHand's fields,
    or the plain tuple marshal brings them as) whose hand is stored under its older id,
    each such stored hand re-keyed to the new id (inside the caller's write transaction,
    so a stored hand is matched by one hand at most: re-keyed, its old id is gone)."""
    matched: set[str] = set()
    for hand in hands:
        hand_id = hand[0]
        old = legacy(hand_id)
        if old is None or hand_id in matched:
            continue
        row = conn.execute("SELECT seq, network FROM hands WHERE hand_id = ?", (old,)).fetchone()
        if row is None:
            continue
        seq, network = row
        if _stored(conn, seq) == _written(conn, hand, network):
            conn.execute("UPDATE hands SET hand_id = ? WHERE seq = ?", (hand_id, seq))
            matched.add(hand_id)
    return matched


# What is compared: (stakes, board, counts, rake, tournament and level, hero), seats, actions, shown, results;
# players by id.
_Content = tuple[tuple[object, ...], frozenset[tuple[object, ...]], tuple[tuple[object, ...], ...],
                 frozenset[tuple[object, ...]], frozenset[tuple[object, ...]]]


def _stored(conn: sqlite3.Connection, seq: int) -> _Content:
    head = conn.execute("SELECT small_blind, big_blind, small_bet, big_bet, max_bets, board, players, pot, actions,"
                        " shown, rake, tournament, level, hero FROM hands WHERE seq = ?", (seq,)).fetchone()
    return (
        tuple(head),
        frozenset(conn.execute("SELECT player, position, stack FROM seats WHERE hand = ?", (seq,))),
        tuple(conn.execute("SELECT ord, player, round, kind, amount, all_in FROM actions WHERE hand = ?"
                           " ORDER BY ord", (seq,))),
        frozenset(conn.execute("SELECT player, cards FROM showdowns WHERE hand = ?", (seq,))),
        frozenset(conn.execute("SELECT player, put_in, won FROM results WHERE hand = ?", (seq,))),
    )


def _written(conn: sqlite3.Connection, hand: PreparedHand, network: str) -> _Content | None:
    """The content of ``hand`` as :func:`_stored` reads it, its players by their ids on
    ``network``; None when one of them has none there (so it is not the stored hand)."""
    _, _, players, header, seats, actions, shown, results, _, hero = hand
    pids: list[int] = []
    for nick in players:
        row = conn.execute("SELECT player FROM aliases WHERE network = ? AND nick = ?", (network, nick)).fetchone()
        if row is None:
            return None
        pids.append(row[0])
    # The hands row without its id, network, source and time (PreparedHand.hand), and the hero.
    head = (*header[4:], pids[hero] if hero >= 0 else None)
    return (
        head,
        frozenset((pids[seat], position, stack) for seat, position, stack in seats),
        tuple((a[0], pids[a[1]], a[2], a[3], a[4], 1 if a[9] else 0) for a in actions),
        frozenset((pids[seat], cards) for seat, cards in shown),
        frozenset((pids[seat], put_in, won) for seat, put_in, won in results),
    )
