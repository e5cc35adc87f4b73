"""The model store: everything the engine reads and writes of its opponents, in one
interface (:class:`ModelStore`), and the store that keeps it all in memory.

What the Poki engine reads and writes ([loki2-1999], [poki-2002]; docs/strength.md §8-10):

* ``get(nick, network)``: a player's model (decayed counts in the twelve and the fine
  contexts, with the population's counts of its network for the back-off);
* ``predictor``: the :class:`~agent.models.prediction.Predictor` of those counts (their
  decay, the back-off's strengths, the blend with the default triples);
* ``write_hand(record, network)``: a finished hand learnt (each hand once);
* ``off_model`` / ``add_off_model``: the off-model counts of the learned re-weighting
  floor (``[engine] floor_on = "learned"``), kept per player across sessions;
* ``learned_model()``: the learned predictor's fitted weights, if the store holds some;
* ``range_counts`` / ``add_range_counts``: the learned ranges (agent.models.ranges) of a
  player and of its network's population, learned from shown-down holdings
  (``[engine] reweight = "learned"``).

The SQLite database (db.Database) and :class:`MemoryModelStore` implement all of it; a
live bot reaches its database through :class:`ThreadBoundStore`, which forwards every call
to the one thread that owns the connection. A store that lacks any part is refused where
it is attached (:func:`require_store`), so nothing is skipped quietly at play.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar, runtime_checkable

from agent.game.prepared import prepare_hand
from agent.game.records import HandRecord, RecordError, WriteReport
from agent.models.frequencies import DEFAULT_HALF_LIFE, Decay, PlayerModel, PlayerState
from agent.models.prediction import DEFAULT_BLEND_OBSERVATIONS, DEFAULT_STRENGTHS, Predictor, Strengths
from agent.models.ranges import (
    NO_RANGE_COUNTS,
    PLAYER_HALF_LIFE,
    POPULATION_HALF_LIFE,
    RangeCounts,
    add_observations,
    check_observations,
)

if TYPE_CHECKING:
    from agent.models.learned import LearnedModel

__all__ = ["STORE_PARTS", "MemoryModelStore", "ModelStore", "OffModelCounts", "StoreError", "ThreadBoundStore",
           "check_off_model", "describe_store", "require_store"]

T = TypeVar("T")


class OffModelCounts(NamedTuple):
    """What a player's showdowns told of the threshold model: its calls and how many came
    from holdings the model gave a low factor, the same for its bets and raises."""

    calls: float = 0.0
    calls_off: float = 0.0
    raises: float = 0.0
    raises_off: float = 0.0


NO_OFF_MODEL = OffModelCounts()


def check_off_model(counts: Sequence[float], source: str) -> OffModelCounts:
    """``counts`` as :class:`OffModelCounts`; ValueError naming ``source`` unless they are
    four finite counts ≥ 0, each off-model count at most its total."""
    if len(counts) != 4:
        raise ValueError(f"{source}: off-model counts need 4 numbers, got {len(counts)}")
    out = OffModelCounts(*(float(x) for x in counts))
    for x in out:
        if not math.isfinite(x) or x < 0:
            raise ValueError(f"{source}: off-model count {x!r} is not a finite count")
    if out.calls_off > out.calls or out.raises_off > out.raises:
        raise ValueError(f"{source}: more off-model actions than actions "
                         f"({out.calls_off}/{out.calls}, {out.raises_off}/{out.raises})")
    return out


@runtime_checkable
class ModelStore(Protocol):
    """Everything the engine reads and writes of its opponents (module docstring)."""

    @property
    def predictor(self) -> Predictor: ...  # read-only: a store may fetch it from its owner's thread

    def get(self, nick: str, network: str) -> PlayerModel: ...

    def write_hand(self, record: HandRecord, network: str) -> WriteReport: ...

    def off_model(self, nick: str, network: str) -> OffModelCounts: ...

    def add_off_model(self, nick: str, network: str, hand_id: str, counts: Sequence[float]) -> bool: ...

    def learned_model(self) -> LearnedModel | None: ...

    def range_counts(self, nick: str, network: str) -> tuple[RangeCounts, RangeCounts]: ...

    def add_range_counts(self, nick: str, network: str, hand_id: str,
                         observations: Sequence[tuple[int, int]]) -> bool: ...

    def describe(self) -> str: ...


# The parts a store must have, in the order a refusal lists them.
STORE_PARTS = ("get", "write_hand", "off_model", "add_off_model", "learned_model", "range_counts",
               "add_range_counts", "describe", "predictor")


class StoreError(TypeError):
    """A store that cannot serve the engine (it lacks part of the ModelStore interface)."""


def describe_store(store: object) -> str:
    """What ``store`` is, in a few words (its own ``describe()`` when it has one)."""
    describe = getattr(store, "describe", None)
    return describe() if callable(describe) else type(store).__name__


def require_store(store: object, who: str) -> None:
    """StoreError naming ``who`` and every part ``store`` lacks of the ModelStore
    interface: a player is never left to skip what its store cannot do."""
    missing = [part for part in STORE_PARTS if part != "predictor" and not callable(getattr(store, part, None))]
    if not isinstance(getattr(store, "predictor", None), Predictor):
        missing.append("predictor")
    if missing:
        raise StoreError(f"{who}: the model store {describe_store(store)} lacks {', '.join(missing)} "
                         "(agent.models.store.ModelStore says what a store must serve)")


def _remember(seen: OrderedDict[tuple[str, str, str], None], key: tuple[str, str, str]) -> None:
    """Keep ``key`` (hand, network, nick) among the last 4,096 added."""
    seen[key] = None
    if len(seen) > 4096:
        seen.popitem(last=False)


class MemoryModelStore:
    """The same models without a database, for play with nothing stored: hands are
    checked and counted once each exactly as the database does; learned weights only when
    given (``learned``)."""

    def __init__(self, half_life: float = DEFAULT_HALF_LIFE, strengths: Strengths = DEFAULT_STRENGTHS,
                 blend: float = DEFAULT_BLEND_OBSERVATIONS, *, learned: LearnedModel | None = None) -> None:
        self.decay = Decay(half_life)
        self.predictor = Predictor(self.decay, strengths, blend)
        self.learned = learned
        self._players: dict[tuple[str, str], PlayerState] = {}
        self._populations: dict[str, PlayerState] = {}
        self._hand_ids: set[str] = set()
        self._pop_snaps: dict[str, PlayerState] = {}
        # Off-model counts (floor_on = "learned") and the (hand, network, nick) already added.
        self._off_model: dict[tuple[str, str], OffModelCounts] = {}
        self._off_model_seen: OrderedDict[tuple[str, str, str], None] = OrderedDict()
        # Learned ranges: per (network, nick) and per network; (hand, network, nick) added.
        self._ranges: dict[tuple[str, str], RangeCounts] = {}
        self._range_population: dict[str, RangeCounts] = {}
        self._ranges_seen: OrderedDict[tuple[str, str, str], None] = OrderedDict()

    def describe(self) -> str:
        return "memory (nothing kept after the run)"

    def state(self, nick: str, network: str) -> PlayerState | None:
        """The live state of a player (None if never seen): changed by later hands."""
        return self._players.get((network, nick))

    def population(self, network: str) -> PlayerState:
        """The live state of a network's whole population."""
        pop = self._populations.get(network)
        if pop is None:
            pop = self._populations[network] = PlayerState()
        return pop

    def seed(self, network: str, players: dict[str, PlayerState], population: PlayerState | None) -> None:
        """Start from models learned elsewhere (the database's), as they stand."""
        for nick, state in players.items():
            self._players[(network, nick)] = state
        if population is not None:
            self._populations[network] = population

    @property
    def half_life(self) -> float:
        return self.decay.half_life

    def hand_count(self) -> int:
        return len(self._hand_ids)

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
        self.predictor.advance(states, self.population(network), prepared.observations)
        return WriteReport(stored=1)

    def write_hands(self, records: Iterable[HandRecord], network: str, *,
                    batch_hands: int | None = None) -> WriteReport:
        """Every hand of ``records`` as :meth:`write_hand` does; ``batch_hands`` is the
        database's transaction size, meaningless here and accepted so either store serves."""
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
        return state.snapshot(nick, network, self.decay, self._population_snapshot(network))

    def _population_snapshot(self, network: str) -> PlayerState:
        # One copy per hand learned, shared by every model read until the next hand.
        pop = self.population(network)
        snap = self._pop_snaps.get(network)
        if snap is None or snap.hands != pop.hands:
            snap = self._pop_snaps[network] = pop.copy()
        return snap

    def off_model(self, nick: str, network: str) -> OffModelCounts:
        """The off-model counts seen at ``nick``'s showdowns (zeros for a player never
        counted)."""
        return self._off_model.get((network, nick), NO_OFF_MODEL)

    def add_off_model(self, nick: str, network: str, hand_id: str, counts: Sequence[float]) -> bool:
        """Add one shown-down hand's counts for `nick`, once per (hand, nick) however many
        seats report it (False when already added); ValueError for counts that are not
        counts (k ≤ n, finite, ≥ 0)."""
        key = (hand_id, network, nick)
        if key in self._off_model_seen:
            return False
        add = check_off_model(counts, f"off-model counts of {nick!r} in {hand_id}")
        old = self._off_model.get((network, nick), NO_OFF_MODEL)
        self._off_model[(network, nick)] = OffModelCounts(*(a + b for a, b in zip(old, add)))
        _remember(self._off_model_seen, key)
        return True

    def learned_model(self) -> LearnedModel | None:
        """The learned predictor's weights given at construction (None: none)."""
        return self.learned

    def range_counts(self, nick: str, network: str) -> tuple[RangeCounts, RangeCounts]:
        """(the player's, its network's) learned-range counts (zeros when none)."""
        return (self._ranges.get((network, nick), NO_RANGE_COUNTS),
                self._range_population.get(network, NO_RANGE_COUNTS))

    def seed_ranges(self, nick: str, network: str, player: RangeCounts, population: RangeCounts | None) -> None:
        """Start a player's (and, given, the population's) ranges from counts learned elsewhere."""
        self._ranges[(network, nick)] = player
        if population is not None:
            self._range_population[network] = population

    def add_range_counts(self, nick: str, network: str, hand_id: str,
                         observations: Sequence[tuple[int, int]]) -> bool:
        """Add one shown-down holding's (row, bin) observations for ``nick`` and its
        network, once per (hand, nick) (False when already added); ValueError for
        observations out of range."""
        key = (hand_id, network, nick)
        if key in self._ranges_seen:
            return False
        obs = check_observations(observations, f"range observations of {nick!r} in {hand_id}")
        self._ranges[(network, nick)] = add_observations(self._ranges.get((network, nick), NO_RANGE_COUNTS), obs,
                                                         PLAYER_HALF_LIFE)
        self._range_population[network] = add_observations(
            self._range_population.get(network, NO_RANGE_COUNTS), obs, POPULATION_HALF_LIFE)
        _remember(self._ranges_seen, key)
        return True

    def players(self) -> list[tuple[str, str]]:
        """(network, nick) of every player seen."""
        return sorted(self._players)


class RunsOnOwner(Protocol):
    """``call(fn)``: run ``fn()`` on the thread that owns a store and return its result."""

    def __call__(self, fn: Callable[[], T], /) -> T: ...


class ThreadBoundStore:
    """A ModelStore whose every call runs on the one thread that owns ``store`` (a SQLite
    connection may be used only by the thread that opened it): ``call(fn)`` runs ``fn()``
    there and returns its result (agent.play.stores.DatabaseWriter.call). The store's
    interface is checked here at once (by name: nothing of it runs); its predictor, a plain
    object, and its description are fetched from that thread when first asked for."""

    def __init__(self, store: ModelStore, call: RunsOnOwner, *,
                 owner: str = "its thread") -> None:
        require_store(store, "the store behind a thread-bound proxy")
        self._store = store
        self._call = call
        self._owner = owner
        self._predictor: Predictor | None = None
        self._described: str | None = None

    @property
    def predictor(self) -> Predictor:
        if self._predictor is None:
            self._predictor = self._call(lambda: self._store.predictor)
        return self._predictor

    def describe(self) -> str:
        if self._described is None:
            self._described = self._call(lambda: self._store.describe())
        return f"{self._described}, used from {self._owner}"

    def get(self, nick: str, network: str) -> PlayerModel:
        return self._call(lambda: self._store.get(nick, network))

    def write_hand(self, record: HandRecord, network: str) -> WriteReport:
        return self._call(lambda: self._store.write_hand(record, network))

    def off_model(self, nick: str, network: str) -> OffModelCounts:
        return self._call(lambda: self._store.off_model(nick, network))

    def add_off_model(self, nick: str, network: str, hand_id: str, counts: Sequence[float]) -> bool:
        return self._call(lambda: self._store.add_off_model(nick, network, hand_id, counts))

    def learned_model(self) -> LearnedModel | None:
        return self._call(lambda: self._store.learned_model())

    def range_counts(self, nick: str, network: str) -> tuple[RangeCounts, RangeCounts]:
        return self._call(lambda: self._store.range_counts(nick, network))

    def add_range_counts(self, nick: str, network: str, hand_id: str,
                         observations: Sequence[tuple[int, int]]) -> bool:
        return self._call(lambda: self._store.add_range_counts(nick, network, hand_id, observations))
