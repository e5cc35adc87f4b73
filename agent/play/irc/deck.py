"""Where an IRC table's cards come from, and the commitment that lets anyone check them.

Real play draws each hand's deck from the operating system's entropy (``secrets``, i.e.
``os.urandom``): nothing said at the table, in any earlier session or log, tells the next
deck. A seed (``poki irc deal --seed``) gives the same decks again, for tests and demos,
and the table says it is seeded when it opens.

Each hand's deck is committed before it is dealt: the dealer announces the SHA-256 of the
line that will reveal it (the whole deck in dealing order and a secret 128-bit salt,
connectors.irc.dialect.deck_digest) and says that line once the hand is over, so a
player can check that the cards dealt were the cards committed
(connectors.irc.deck_log, ``poki irc verify``).
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from connectors.irc import dialect as d

__all__ = ["DeckSource", "EntropyDecks", "HandDeck", "SeededDecks", "deck_of"]


@dataclass(frozen=True, slots=True)
class HandDeck:
    """One hand's 52 cards in dealing order (seat k's hole cards are cards 2k and 2k+1 in
    the start line's seat order, then the board), its salt and the commitment to both."""

    hand: int
    order: tuple[int, ...]
    salt: str

    @property
    def digest(self) -> str:
        return d.deck_digest(self.hand, self.order, self.salt)

    def commitment(self) -> d.DeckCommitment:
        return d.DeckCommitment(self.hand, self.digest)

    def reveal(self) -> d.DeckRevealed:
        return d.DeckRevealed(self.hand, self.order, self.salt)


class DeckSource(Protocol):
    seeded: bool

    def deck(self, hand: int) -> HandDeck: ...


class EntropyDecks:
    """Each hand's deck and salt from the OS's entropy (real play)."""

    seeded = False

    def __init__(self) -> None:
        self._random = secrets.SystemRandom()

    def deck(self, hand: int) -> HandDeck:
        order = list(range(52))
        self._random.shuffle(order)
        return HandDeck(hand, tuple(order), secrets.token_hex(d.DECK_SALT_HEX // 2))


class SeededDecks:
    """Each hand's deck and salt from a seeded generator: the same decks for the same seed
    (tests and demos; the table says it is seeded)."""

    seeded = True

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def deck(self, hand: int) -> HandDeck:
        order = tuple(int(c) for c in self.rng.permutation(52))
        salt = self.rng.bytes(d.DECK_SALT_HEX // 2).hex()
        return HandDeck(hand, order, salt)


def deck_of(hand: int, holes: list[tuple[int, int]], board: tuple[int, ...] | list[int], salt: str) -> HandDeck:
    """The deck that deals ``holes`` then ``board``, the unused cards after them in order
    (a deal fixed elsewhere, agent.play.deals.SeededDeals, committed all the same)."""
    used = [c for hole in holes for c in hole] + list(board)
    rest = [c for c in range(52) if c not in set(used)]
    return HandDeck(hand, tuple(used + rest), salt)
