"""The opponent model's predictions (seeds 002, 004): what an opponent will do in a context,
from the decayed counts stored for it (agent.game.frequencies), and where the engine gets
those counts from — the :class:`ModelStore` protocol, which the SQLite database
(db.Database) and the in-memory :class:`MemoryModelStore` implement.

Specific model: each context's decayed (fold, call, raise) frequencies blended with that
context's default triple, the data's share growing linearly until the context holds
``blend_observations`` decayed observations (DESIGN.md's defaults: facing no bet
0/.5/.5, one bet .5/.3/.2, two or more .7/.2/.1).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from agent.game.frequencies import DEFAULT_HALF_LIFE, Decay, PlayerModel, PlayerState, advance
from agent.game.prepared import prepare_hand
from agent.game.records import HandRecord, RecordError, WriteReport

__all__ = ["DEFAULT_BLEND_OBSERVATIONS", "DEFAULT_TRIPLES", "MemoryModelStore", "ModelStore", "predict_triple"]

Triple = tuple[float, float, float]

# Triples a context starts from before the player has shown anything (DESIGN.md):
# facing no bet folding is pointless; facing bets a player folds more the more they face.
DEFAULT_TRIPLES: tuple[Triple, ...] = (
    (0.0, 0.5, 0.5),
    (0.5, 0.3, 0.2),
    (0.7, 0.2, 0.1),
) * 4
DEFAULT_BLEND_OBSERVATIONS = 20.0


def predict_triple(model: PlayerModel, context: int,
                   blend_observations: float = DEFAULT_BLEND_OBSERVATIONS) -> Triple:
    """The decayed frequencies of ``model`` in ``context`` blended with the context's
    default triple, the data's share growing linearly until the context holds
    ``blend_observations`` (decayed) observations."""
    default = DEFAULT_TRIPLES[context]
    counts = model.decayed[context]
    total = counts[0] + counts[1] + counts[2]
    if total <= 0:
        return default
    w = min(1.0, total / blend_observations) if blend_observations > 0 else 1.0
    return ((1.0 - w) * default[0] + w * counts[0] / total,
            (1.0 - w) * default[1] + w * counts[1] / total,
            (1.0 - w) * default[2] + w * counts[2] / total)


@runtime_checkable
class ModelStore(Protocol):
    """Where the modeler gets opponent models and where finished hands go. The engine owns
    this protocol; the SQLite ``db.Database`` and :class:`MemoryModelStore` provide it."""

    def get(self, nick: str, network: str) -> PlayerModel: ...

    def write_hand(self, record: HandRecord, network: str) -> WriteReport: ...


class MemoryModelStore:
    """The same models without a database, for play with nothing stored: hands are
    checked and counted once each exactly as the database does."""

    def __init__(self, half_life: float = DEFAULT_HALF_LIFE) -> None:
        self.decay = Decay(half_life)
        self._players: dict[tuple[str, str], PlayerState] = {}
        self._hand_ids: set[str] = set()

    @property
    def half_life(self) -> float:
        return self.decay.half_life

    def write_hand(self, record: HandRecord, network: str) -> WriteReport:
        """Raise RecordError for an inconsistent hand; a hand already seen is a duplicate."""
        prepared = prepare_hand(record, network)
        if record.hand_id in self._hand_ids:
            return WriteReport(duplicates=1)
        self._hand_ids.add(record.hand_id)
        states = []
        for nick in prepared.players:
            key = (network, nick)
            state = self._players.get(key)
            if state is None:
                state = self._players[key] = PlayerState()
            states.append(state)
        advance(states, prepared.observations, self.decay.factor)
        return WriteReport(stored=1)

    def write_hands(self, records: Iterable[HandRecord], network: str) -> WriteReport:
        report = WriteReport()
        for record in records:
            try:
                report.add(self.write_hand(record, network))
            except RecordError as exc:
                report.rejected.append((str(getattr(record, "hand_id", "?")), str(exc)))
        return report

    def get(self, nick: str, network: str) -> PlayerModel:
        state = self._players.get((network, nick))
        if state is None:
            return PlayerModel.empty(nick, network, self.decay.half_life)
        return state.snapshot(nick, network, self.decay)

    def players(self) -> list[tuple[str, str]]:
        """(network, nick) of every player seen."""
        return sorted(self._players)
