"""Cards as text, integers and 64-bit masks: the encoding every part of Poki shares.

A card is an integer 0..51: ``card = 4 * rank + suit`` with ranks 2..A as 0..12 and suits
c, d, h, s as 0..3. A set of cards is a 64-bit mask laid out suit-major, 16 bits a suit:
card (rank r, suit s) is bit ``16 * s + r``, so each suit's ranks form one 13-bit word
(the layout of [west-2005], Mick West, which makes flush and straight tests word operations).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

RANKS = "23456789TJQKA"
SUITS = "cdhs"
N_CARDS = 52
N_HOLDINGS = 1326

CARD_NAMES: tuple[str, ...] = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in range(N_CARDS))
_CARD_BY_NAME = {name: c for c, name in enumerate(CARD_NAMES)}
# Accept the common spellings people and logs use: lower-case ranks, '10' for ten.
_CARD_BY_NAME.update({name[0].lower() + name[1]: c for name, c in list(_CARD_BY_NAME.items())})
_CARD_BY_NAME.update({"10" + SUITS[s]: 4 * 8 + s for s in range(4)})
# Every card text parse_card accepts -> its card, for readers that parse cards by the
# hundred thousand and give their own message for a miss.
CARD_INDEX: Mapping[str, int] = MappingProxyType(_CARD_BY_NAME)


class CardError(ValueError):
    """A card string or value that is not a card."""


def card_rank(card: int) -> int:
    return card >> 2


def card_suit(card: int) -> int:
    return card & 3


def card_bit(card: int) -> int:
    """Bit position of a card in a hand mask."""
    return 16 * (card & 3) + (card >> 2)


def parse_card(text: str) -> int:
    """'As' -> 51. Raises CardError naming the bad text."""
    try:
        return _CARD_BY_NAME[text]
    except (KeyError, TypeError):
        raise CardError(f"not a card: {text!r} (expected rank 2-9TJQKA and suit cdhs, e.g. 'As')") from None


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """'As Kd Qh', 'AsKdQh' or ['As', 'Kd'] -> [51, 45, 42]; duplicates are an error."""
    if isinstance(text, str):
        compact = "".join(text.split())
        tokens = []
        i = 0
        while i < len(compact):
            step = 3 if compact.startswith("10", i) else 2
            tokens.append(compact[i : i + step])
            i += step
    else:
        tokens = list(text)
    cards = [parse_card(t) for t in tokens]
    if len(set(cards)) != len(cards):
        raise CardError(f"duplicate card in {text!r}")
    return cards


def cards_from_text(text: str, names: Mapping[str, int] = CARD_INDEX) -> tuple[int, ...]:
    """'AsKd' -> (51, 45): two characters a card, nothing between them (the form of ACPC
    states and logs and of PHH), each looked up in ``names`` (a reader that tolerates other
    spellings passes its own table). CardError, naming the bad part, for anything else."""
    if len(text) % 2:
        raise CardError(f"cannot read cards {text[:40]!r}")
    get = names.get
    out = []
    for i in range(0, len(text), 2):
        card = get(text[i:i + 2])
        if card is None:
            raise CardError(f"{text[i:i + 2]!r} is not a card")
        out.append(card)
    return tuple(out)


def card_str(card: int) -> str:
    if not (isinstance(card, int) and 0 <= card < N_CARDS):
        raise CardError(f"not a card index: {card!r}")
    return CARD_NAMES[card]


def cards_str(cards: Iterable[int]) -> str:
    return " ".join(card_str(c) for c in cards)


def cards_to_mask(cards: str | Iterable[int] | Iterable[str]) -> int:
    """'As Kd Qh' (or card ints, or card strings) -> 64-bit mask."""
    if isinstance(cards, str):
        cards = parse_cards(cards)
    mask = 0
    for c in cards:
        if isinstance(c, str):
            c = parse_card(c)
        if not (isinstance(c, int) and 0 <= c < N_CARDS):
            raise CardError(f"not a card index: {c!r}")
        bit = 1 << card_bit(c)
        if mask & bit:
            raise CardError(f"duplicate card {CARD_NAMES[c]}")
        mask |= bit
    return mask


VALID_MASK_BITS = sum(1 << card_bit(c) for c in range(N_CARDS))


def mask_to_card_list(mask: int) -> list[int]:
    """Card ints in a mask, ascending."""
    if mask & ~VALID_MASK_BITS:
        raise CardError(f"mask {mask:#x} has bits that are not cards")
    return sorted(c for c in range(N_CARDS) if mask >> card_bit(c) & 1)


def mask_to_cards(mask: int) -> list[str]:
    """64-bit mask -> card strings, ascending by card index."""
    return [CARD_NAMES[c] for c in mask_to_card_list(mask)]


# The 1326 two-card holdings in one fixed order: (a, b) with a < b, by a then b. Every
# 1326-entry weight table in the project is indexed this way.
HOLDING_CARDS: tuple[tuple[int, int], ...] = tuple(
    (a, b) for a in range(N_CARDS) for b in range(a + 1, N_CARDS)
)
HOLDINGS: tuple[int, ...] = tuple((1 << card_bit(a)) | (1 << card_bit(b)) for a, b in HOLDING_CARDS)
_HOLDING_INDEX = {m: i for i, m in enumerate(HOLDINGS)}


def holding_index(mask: int) -> int:
    """Index 0..1325 of a two-card mask in HOLDINGS."""
    try:
        return _HOLDING_INDEX[mask]
    except KeyError:
        raise CardError(f"mask {mask:#x} is not a two-card holding") from None


def holding_index_of_cards(a: int, b: int) -> int:
    """Index of the holding {a, b} (card ints, any order) without building a mask."""
    if a == b:
        raise CardError("a holding needs two different cards")
    if a > b:
        a, b = b, a
    # Rows before a hold (51 + 50 + ... ) entries: a*(103 - a)/2; then offset b - a - 1.
    return a * (2 * N_CARDS - a - 1) // 2 + (b - a - 1)
