"""The cards of a hand, shared by every dealer: a :class:`Deal` (every seat's hole cards
and the board) drawn from a seeded generator, and :class:`SeededDeals`, the k-th hand's
cards from a seed alone, so the in-process dealer (agent.play.offline.dealer), the ACPC
dealer (agent.play.acpc.dealer) and the IRC dealer table (agent.play.irc.table) deal the
same cards to the same positions."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Deal", "SeededDeals"]


@dataclass(frozen=True, slots=True)
class Deal:
    """All the cards of one hand: two hole cards per seat (seat order) and the board."""

    holes: tuple[tuple[int, int], ...]
    board: tuple[int, ...]  # five cards: flop, turn, river

    @classmethod
    def draw(cls, rng: np.random.Generator, seats: int) -> Deal:
        cards = rng.permutation(52)[: 2 * seats + 5].tolist()
        holes = tuple((cards[2 * s], cards[2 * s + 1]) for s in range(seats))
        return cls(holes, tuple(cards[2 * seats:]))

    def rotated(self, by: int) -> Deal:
        """Seat s gets the cards of seat s + by (mod seats)."""
        n = len(self.holes)
        return Deal(tuple(self.holes[(s + by) % n] for s in range(n)), self.board)


@dataclass(frozen=True)
class SeededDeals:
    """The cards of the k-th hand a table deals, from a seed and k alone, whatever the
    dealer: each position's two hole cards (position 0 the first after the button, the
    button last), then the board. Given the same seed, the in-process dealer, our ACPC
    dealer and the IRC dealer bot deal the same cards to the same positions hand by hand
    (the equivalence test, the strength rows that compare tables). Seeds are for tests
    and experiments; a dealer given none draws its cards as before."""

    seed: int

    def cards(self, hand: int, seats: int) -> list[int]:
        return np.random.default_rng([self.seed, hand]).permutation(52)[: 2 * seats + 5].tolist()

    def deal(self, hand: int, seats: int, button: int) -> Deal:
        """The hand's cards by seat for a table whose button is at seat ``button``."""
        cards = self.cards(hand, seats)
        holes = []
        for seat in range(seats):
            position = (seat - button - 1) % seats
            holes.append((cards[2 * position], cards[2 * position + 1]))
        return Deal(tuple(holes), tuple(cards[2 * seats:]))
