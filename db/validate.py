"""Whether a hand can be stored: the checks of db.rows.prepare_hand, which makes them in
the same pass that turns the hand into rows, for callers that need only the answer."""
from __future__ import annotations

from agent.game.records import HandRecord

from .rows import prepare_hand


def validate_record(record: HandRecord, network: str) -> None:
    """Raise RecordError, naming the hand and the fault, unless the record can be stored."""
    prepare_hand(record, network)
