"""Opponent histories in one SQLite file: every hand whole or not at all, each hand once,
and the decayed per-context models updated in the same transaction as the hand.

Durability: WAL with synchronous=NORMAL by default. A committed hand survives the
program being killed at any instant (the WAL is written before COMMIT returns); a power
cut or an OS crash may lose the last few commits but never corrupts the file or splits a
hand, and hands come from logs or live tables where losing seconds is acceptable, while
fsync on every commit would cost most of the write speed. `synchronous = "full"` in
[database] makes every commit reach the disk before it returns.

Concurrency: any number of readers alongside one writer at a time (WAL). Write
transactions start with BEGIN IMMEDIATE so two writers queue instead of deadlocking, and
the writer's in-memory copy of the models is dropped whenever PRAGMA data_version shows
another connection has committed, so several writing processes stay correct.
"""
from __future__ import annotations

import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils

from agent.game.context import FINE_PER_COARSE, FINE_SCHEME, N_FINE_CONTEXTS
from agent.game.prepared import PreparedHand, prepare_hand
from agent.game.records import HandRecord, WriteReport
from agent.models.frequencies import DEFAULT_HALF_LIFE, Decay, PlayerModel, PlayerState
from agent.models.prediction import DEFAULT_STRENGTHS, Predictor, Strengths
from agent.models.ranges import RangeCounts
from agent.models.store import OffModelCounts

from . import opening, schema
from .inserts import _Counters, _groups, _insert, _Prepared
from .legacy import LegacyId, recognise
from .models import (
    _compare_states,
    _load_population,
    _load_state,
    read_models,
    recompute_models,
    write_models,
)

SYNCHRONOUS = ("normal", "full")
DEFAULT_BATCH = 500
_FINE_KEY = N_FINE_CONTEXTS  # player * _FINE_KEY + fine context: one int per touched fine count
_IN_CHUNK = 500  # host parameters per IN (...) list, well under SQLite's limit

if TYPE_CHECKING:
    from agent.models.learned import LearnedModel


class DatabaseError(Exception):
    """A database file that cannot be used as it is; the message names the file."""


class DatabaseWriteError(DatabaseError):
    """A write that failed (a full disk, a file or folder made read-only meanwhile): the
    transaction left nothing in the file, and what was committed before it is kept."""


class StoredHands:
    """Which hands a database holds, through a read-only connection of its own (a reading
    process beside the writer: it never writes, nor waits for the write lock)."""

    def __init__(self, path: str | Path) -> None:
        try:
            self.conn = opening.open_read_only(path)
        except sqlite3.Error as exc:
            raise DatabaseError(f"{path}: cannot open read-only: {exc}") from None

    def has_hand(self, hand_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM hands WHERE hand_id = ?", (hand_id,)).fetchone() is not None

    def close(self) -> None:
        self.conn.close()


class Database:
    """The Poki database. Implements the model store the engine reads and writes
    (agent.models.store.ModelStore: models, predictor, off-model counts, learned weights)."""

    def __init__(
        self,
        path: str | Path,
        *,
        half_life: float | None = None,
        create: bool = True,
        synchronous: str = "normal",
        batch_hands: int = DEFAULT_BATCH,
        model_cache: int = 1024,
        timeout: float = 30.0,
        strengths: Strengths = DEFAULT_STRENGTHS,
        verify: bool = True,
    ) -> None:
        """Open (and with `create`, make) the file and bring its schema up to date.
        `half_life` None means the one the file was built with; a different number for a
        file holding hands is an error until `recompute(half_life)` rebuilds the models.

        The file is looked at read-only first (db.opening): a folder, a file that is not
        SQLite, another application's SQLite file, one of a newer Poki, an empty file
        when not creating and (with `verify`) a damaged one are refused untouched with
        a DatabaseError. Then, opened for writing, it must take a write (the application
        id in its header), so a file that cannot be written is refused before any work,
        not after it."""
        self.path = Path(path)
        if synchronous not in SYNCHRONOUS:
            raise ValueError(f"synchronous must be one of {SYNCHRONOUS}, got {synchronous!r}")
        if batch_hands < 1:
            raise ValueError(f"batch_hands must be at least 1, got {batch_hands}")
        if not create and not self.path.is_file():
            raise DatabaseError(f"no database at {self.path}")
        self.batch_hands = batch_hands
        self.model_cache = model_cache
        self._pid: dict[str, dict[str, int]] = {}  # network -> nick -> player id
        self._states: dict[int, PlayerState] = {}
        self._lru: OrderedDict[tuple[str, str], PlayerModel] = OrderedDict()
        self._populations: dict[str, PlayerState] = {}
        self._pop_snaps: dict[str, PlayerState] = {}
        self._off_model_seen: OrderedDict[tuple[str, str, str], None] = OrderedDict()  # (hand, network, nick)
        self._ranges_seen: OrderedDict[tuple[str, str, str], None] = OrderedDict()  # (hand, network, nick)
        self.strengths = strengths
        self._data_version: int | None = None
        opening.inspect(self.path, schema.known(), schema.MIGRATION_SET, create=create, verify=verify,
                        error=DatabaseError)
        try:
            conn = sqlite3.connect(str(self.path), timeout=timeout)
        except sqlite3.Error as exc:
            raise DatabaseError(f"{self.path}: cannot open: {exc}") from None
        try:
            self.db = sqlite_utils.Database(conn, execute_plugins=False)
            self._configure(synchronous)
            self._migrate(create)
            with self._write():
                # Marks the file ours, and proves it can be written (a read-only file or
                # folder, a full disk) before a match is played or a log is read.
                conn.execute(f"PRAGMA application_id = {opening.APPLICATION_ID}")
            self.decay = self._settle_half_life(half_life)
            self.predictor = Predictor(self.decay, strengths)
            if self._meta("fine_models_built") != FINE_SCHEME:
                # Files from before the fine contexts, or numbered another way: work the
                # fine contexts out again and rebuild the richer models, once.
                self.recompute(refine=True)
        except sqlite3.OperationalError as exc:
            conn.close()
            raise DatabaseError(f"{self.path}: cannot be written: {exc}") from None
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise DatabaseError(f"{self.path}: not a usable SQLite database: {exc}") from None
        except BaseException:
            conn.close()
            raise

    # -- opening -------------------------------------------------------------------------

    def _configure(self, synchronous: str) -> None:
        self.db.enable_wal()
        conn = self.db.conn
        conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
        conn.execute("PRAGMA cache_size=-65536")  # 64 MiB: the by-player indexes stay hot
        conn.execute("PRAGMA temp_store=MEMORY")
        # Checkpoint every ~32 MiB of WAL rather than every 4 MiB: fewer fsyncs on long
        # runs; the WAL file is cut back to 64 MiB after a checkpoint.
        conn.execute("PRAGMA wal_autocheckpoint=8000")
        conn.execute("PRAGMA journal_size_limit=67108864")

    def _migrate(self, create: bool) -> None:
        tables = set(self.db.table_names())
        ours = "_sqlite_migrations" in tables and bool(schema.applied(self.db))
        if not ours and tables - {"_sqlite_migrations"}:
            raise DatabaseError(f"{self.path}: an SQLite file that is not a Poki database (tables: {sorted(tables)})")
        if not ours and not create:
            raise DatabaseError(f"{self.path}: an empty file, not a Poki database")
        if schema.pending(self.db):
            with self._write():  # under the write lock, so two openers cannot race
                schema.migrations.apply(self.db)
        if create and schema.missing_indexes(self.db):
            self.restore_indexes()

    def _settle_half_life(self, half_life: float | None) -> Decay:
        stored = self._meta("half_life_hands")
        if stored is not None and (half_life is None or float(stored) == float(half_life)):
            return Decay(float(stored))
        decay = Decay(DEFAULT_HALF_LIFE if half_life is None else half_life)
        if stored is not None and self.hand_count() > 0:
            raise DatabaseError(
                f"{self.path} holds models decayed with a half-life of {float(stored):g} hands, "
                f"not {decay.half_life:g}: run `poki db recompute` to rebuild them, or set "
                f"[model] half_life_hands = {float(stored):g}"
            )
        with self._write():
            self._set_meta("half_life_hands", repr(decay.half_life))
        return decay

    def _meta(self, key: str) -> str | None:
        row = self.db.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def _set_meta(self, key: str, value: str) -> None:
        self.db.conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    @property
    def half_life(self) -> float:
        return self.decay.half_life

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions and caches --------------------------------------------------------

    def _sync_caches(self) -> None:
        """Drop what this connection remembers if another connection has committed."""
        version = self.db.conn.execute("PRAGMA data_version").fetchone()[0]
        if version != self._data_version:
            self._drop_caches()
            self._data_version = version

    def _drop_caches(self) -> None:
        self._pid.clear()
        self._states.clear()
        self._lru.clear()
        self._populations.clear()
        self._pop_snaps.clear()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: all of it is committed or none of it."""
        conn = self.db.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._sync_caches()
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                # The in-memory models may hold changes that were just rolled back.
                self._drop_caches()
                raise
        except sqlite3.OperationalError as exc:
            # A full disk, a file or folder that became read-only, a lock held too long:
            # nothing of the transaction is in the file.
            raise DatabaseWriteError(f"{self.path}: cannot write: {exc} (nothing of this write was kept)") from None

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A read transaction: every query inside sees the same committed state."""
        conn = self.db.conn
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")

    # -- bulk loading -------------------------------------------------------------------

    @contextmanager
    def deferred_indexes(self) -> Iterator[None]:
        """Write many hands without the by-player indexes (schema.DEFERRABLE_INDEXES) and
        build them once at the end, also when the writing fails. Worth it when the hands
        written are about as many as those stored already or more. Readers meanwhile get
        the same answers, more slowly; if the process is killed first, the next writer to
        open the file (create=True) builds them, and `check` reports them missing."""
        with self._write():
            schema.drop_deferrable_indexes(self.db)
        try:
            yield
        finally:
            self.restore_indexes()

    def release_cache(self) -> None:
        """Give back the pages this connection caches (up to 64 MiB; PRAGMA shrink_memory).
        A long writer calls it between groups of hands so that its memory does not grow
        with the file: the pages stay in the OS's cache, and the next group reads back the
        few it touches (a replay of the April month writes no slower for it)."""
        self.db.conn.execute("PRAGMA shrink_memory")

    def restore_indexes(self) -> None:
        """Build whichever deferrable indexes the file lacks."""
        with self._write():
            schema.create_deferrable_indexes(self.db)

    # -- writing ------------------------------------------------------------------------

    def write_hand(self, record: HandRecord, network: str, *,
                   also: Callable[[sqlite3.Connection], None] | None = None) -> WriteReport:
        """Store one hand and update its players' models in one transaction. A hand
        already stored is counted as a duplicate; an inconsistent one raises RecordError
        and nothing of it is written. ``also(conn)`` runs inside the same transaction
        (a dealer's chip counts), so the hand and it are committed together or not at all."""
        return self._write_group([prepare_hand(record, network)], network, also)

    def write_hands(
        self,
        records: Iterable[HandRecord],
        network: str,
        *,
        batch_hands: int | None = None,
        progress: Callable[[int], None] | None = None,
        also: Callable[[sqlite3.Connection], None] | None = None,
        legacy: LegacyId | None = None,
    ) -> WriteReport:
        """Store many hands, committing `batch_hands` whole hands per transaction.
        Inconsistent records are skipped and listed in the report with the reason;
        `progress` is called with the number of records handled after each commit.
        The file holds whole groups only, in order: an error stops the run after the
        last group that committed. ``also(conn)`` runs inside every group's transaction
        (as in :meth:`write_hand`). ``legacy``: the id an older Poki stored a hand under,
        if it had another (db.legacy): the same hand stored under it is a duplicate."""
        size = self._batch_size(batch_hands)
        report = WriteReport()
        for group, handled in _groups(records, network, size, report):
            report.add(self._write_group(group, network, also, legacy))
            if progress is not None:
                progress(handled)
        return report

    def write_prepared(
        self, hands: Iterable[PreparedHand], network: str, *, batch_hands: int | None = None,
        legacy: LegacyId | None = None,
    ) -> WriteReport:
        """Store hands already checked and turned into rows by agent.game.prepared.prepare_hand (in
        this process or another), committing `batch_hands` per transaction, as
        write_hands does (``legacy`` too). Every hand must be of `network`."""
        size = self._batch_size(batch_hands)
        report = WriteReport()
        group: list[PreparedHand] = []
        for hand in hands:
            if hand[1] != network:
                raise ValueError(f"hand {hand[0]} was prepared for network {hand[1]!r}, not {network!r}")
            group.append(hand)
            if len(group) >= size:
                report.add(self._write_group(group, network, legacy=legacy))
                group = []
        if group:
            report.add(self._write_group(group, network, legacy=legacy))
        return report

    def _batch_size(self, batch_hands: int | None) -> int:
        size = batch_hands or self.batch_hands
        if size < 1:
            raise ValueError(f"batch_hands must be at least 1, got {size}")
        return size

    def _write_group(self, hands: list[PreparedHand], network: str,
                     also: Callable[[sqlite3.Connection], None] | None = None,
                     legacy: LegacyId | None = None) -> WriteReport:
        """Write prepared hands in one transaction, or nothing of them."""
        if not hands:
            return WriteReport()
        with self._write() as conn:
            prepared = self._prepare(hands, network, conn, _Counters(conn), legacy)
            _insert(conn, prepared)
            if also is not None:
                also(conn)
        return prepared.report

    def _existing_hand_ids(self, conn: sqlite3.Connection, hand_ids: list[str]) -> set[str]:
        found: set[str] = set()
        for i in range(0, len(hand_ids), _IN_CHUNK):
            chunk = hand_ids[i : i + _IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in conn.execute(f"SELECT hand_id FROM hands WHERE hand_id IN ({marks})", chunk))
        return found

    def _state(self, conn: sqlite3.Connection, pid: int) -> PlayerState:
        state = self._states.get(pid)
        if state is None:
            state = self._states[pid] = _load_state(conn, pid)
        return state

    def _prepare(
        self, hands: list[PreparedHand], network: str, conn: sqlite3.Connection, counters: _Counters,
        legacy: LegacyId | None = None,
    ) -> _Prepared:
        """Number the prepared hands and their players and advance the models in memory
        (inside the write transaction: a rollback drops the in-memory models with it)."""
        out = _Prepared()
        predictor = self.predictor
        populations = self._populations
        # Touched counts, keyed by one int each (no tuple per decision): player * 16 +
        # coarse context, player * _FINE_KEY + fine context.
        touched_fine: set[int] = set()
        touched_pop: set[int] = set()
        touched_pop_fine: set[int] = set()
        existing = self._existing_hand_ids(conn, [h[0] for h in hands])
        if legacy is not None:
            existing |= recognise(conn, [h for h in hands if h[0] not in existing], legacy)
        touched_models: set[int] = set()
        touched_players: set[int] = set()
        # nick -> player id of this network: a str-keyed lookup, no (network, nick) tuple
        # made and hashed per seat.
        pid_cache = self._pid.get(network)
        if pid_cache is None:
            pid_cache = self._pid[network] = {}
        lru = self._lru
        lru_pop = lru.pop
        loaded = self._states
        seq = counters.seq
        hand_rows, seat_rows, action_rows = out.hands, out.seats, out.actions
        for hand_id, _, players, hand, seats, actions, shown, results, observations, hero in hands:
            if hand_id in existing:
                out.report.duplicates += 1
                continue
            existing.add(hand_id)
            seq += 1
            pids = []
            hand_states = []
            for nick in players:
                pid = pid_cache.get(nick)
                if pid is None:
                    pid = self._player_id(conn, network, nick, counters, out)
                pids.append(pid)
                state = loaded.get(pid)
                hand_states.append(state if state is not None else self._state(conn, pid))
                if lru:  # a replay reads no models: the cache is empty
                    lru_pop((network, nick), None)
            population = populations.get(network)
            if population is None:
                population = populations[network] = self._population(conn, network)
            predictor.advance(hand_states, population, observations)
            for seat, context, _, fine in observations:
                pid = pids[seat]
                touched_models.add(pid * 16 + context)
                touched_fine.add(pid * _FINE_KEY + fine)
                touched_pop.add(context)
                touched_pop_fine.add(fine)
            touched_players.update(pids)
            # Rows go end to end into one list per table (_insert_many).
            hand_rows.append(seq)
            hand_rows += hand
            hand_rows.append(pids[hero] if hero >= 0 else None)
            for seat, position, stack in seats:
                seat_rows += (seq, pids[seat], position, stack)
            for a in actions:
                # all_in as 0 or 1, the int SQLite stores for a bool anyway: the sqlite3
                # module binds an exact int directly but sends a bool through its adapter
                # lookup first (about a seventh of the actions' insert time).
                action_rows += (seq, a[0], pids[a[1]], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                                1 if a[9] else 0, a[10], a[11])
            for seat, cards in shown:
                out.shown += (seq, pids[seat], cards)
            for seat, put_in, won in results:
                out.results += (seq, pids[seat], put_in, won)
            out.report.stored += 1
        counters.seq = seq
        states_by_pid = self._states
        models, fine_rows, score_rows = out.models, out.fine, out.scores
        for key in touched_models:
            pid, ctx = divmod(key, 16)
            models += (pid, ctx)
            models += states_by_pid[pid].contexts[ctx].row()  # type: ignore[union-attr]  # a stored context has its counts
        out.hand_counts = [(states_by_pid[pid].hands, pid) for pid in touched_players]
        for key in touched_fine:
            pid, fine = divmod(key, _FINE_KEY)
            fine_rows += (pid, fine)
            fine_rows += states_by_pid[pid].fine[fine].row()
        for pid in touched_players:
            st = states_by_pid[pid]
            score_rows += (pid, st.score_twelve, st.score_backoff, st.scores_ref)
        population = self._populations.get(network)
        if population is not None and touched_players:
            out.populations.append((network, population.hands))
            pop_rows = out.population_models
            for ctx in touched_pop:
                pop_rows += (network, 0, ctx)
                pop_rows += population.contexts[ctx].row()  # type: ignore[union-attr]  # a stored context has its counts
            for fine in touched_pop_fine:
                pop_rows += (network, 1, fine)
                pop_rows += population.fine[fine].row()
        self._pop_snaps.pop(network, None)
        return out

    def _population(self, conn: sqlite3.Connection, network: str) -> PlayerState:
        pop = self._populations.get(network)
        if pop is None:
            pop = self._populations[network] = _load_population(conn, network)
        return pop

    def _player_id(
        self, conn: sqlite3.Connection, network: str, nick: str, counters: _Counters, out: _Prepared
    ) -> int:
        row = conn.execute("SELECT player FROM aliases WHERE network = ? AND nick = ?", (network, nick)).fetchone()
        if row is None:
            counters.pid += 1
            pid = counters.pid
            out.players.append((pid, nick))
            out.aliases.append((network, nick, pid))
            self._states[pid] = PlayerState(0)
        else:
            pid = row[0]
        self._pid.setdefault(network, {})[nick] = pid
        return pid

    # -- reading models -----------------------------------------------------------------

    def get(self, nick: str, network: str) -> PlayerModel:
        """The model of one player, in one indexed query (or from the cache); a player
        never seen gets an empty model."""
        self._sync_caches()
        key = (network, nick)
        model = None if self.db.conn.in_transaction else self._lru.get(key)
        if model is not None:
            self._lru.move_to_end(key)
            return model
        conn = self.db.conn
        row = conn.execute("SELECT p.id FROM aliases a JOIN players p ON p.id = a.player"
                           " WHERE a.network = ? AND a.nick = ?", key).fetchone()
        if row is None:
            return PlayerModel.empty(nick, network, self.decay.half_life)
        population = self._pop_snaps.get(network)
        if population is None or conn.in_transaction:
            population = _load_population(conn, network)
            if not conn.in_transaction:
                self._pop_snaps[network] = population
        model = _load_state(conn, row[0]).snapshot(nick, network, self.decay, population, own=True)
        # Inside an open read transaction the rows may be older than the data_version
        # just seen, so only a model read on its own is cached.
        if not self.db.conn.in_transaction:
            self._lru[key] = model
            if len(self._lru) > self.model_cache:
                self._lru.popitem(last=False)
        return model

    def learned_model(self, name: str = "default") -> LearnedModel | None:
        """The learned predictor's fitted weights stored under ``name`` (``poki db
        fit-predictor``), None if there are none; ValueError for a row this build cannot
        read. What the engine reads for ``[model] predictor = "learned"``."""
        from db.learned import load_learned

        return load_learned(self.db.conn, name)

    def describe(self) -> str:
        """What the engine reads its models from (the banner of a bot that starts)."""
        return f"SQLite {self.path}"

    def off_model(self, nick: str, network: str) -> OffModelCounts:
        """The off-model counts seen at `nick`'s showdowns (db.off_model; the engine's
        floor_on = "learned")."""
        from db.off_model import read_off_model

        return read_off_model(self.db.conn, network, nick)

    def add_off_model(self, nick: str, network: str, hand_id: str, counts: Sequence[float]) -> bool:
        """Add one shown-down hand's off-model counts for `nick`; a (hand, nick) already
        added through this connection (another seat saw the same showdown) is skipped:
        False. ValueError for counts that are not counts."""
        from db.off_model import add_off_model

        return self._add_once(self._off_model_seen, (hand_id, network, nick),
                              lambda conn: add_off_model(conn, network, nick, counts))

    def _add_once(self, seen: OrderedDict[tuple[str, str, str], None], key: tuple[str, str, str],
                  add: Callable[[sqlite3.Connection], None]) -> bool:
        """Run ``add`` in one write transaction unless ``key`` (hand, network, nick) was
        added through this connection already (False then); the last 4,096 keys are kept."""
        if key in seen:
            return False
        with self._write() as conn:
            add(conn)
        seen[key] = None
        if len(seen) > 4096:
            seen.popitem(last=False)
        return True

    def range_counts(self, nick: str, network: str) -> tuple[RangeCounts, RangeCounts]:
        """(the player's, its network's) learned-range counts (db.ranges; the engine's
        reweight = "learned"); ValueError for a damaged row."""
        from db.ranges import read_ranges

        return read_ranges(self.db.conn, network, nick)

    def add_range_counts(self, nick: str, network: str, hand_id: str,
                         observations: Sequence[tuple[int, int]]) -> bool:
        """Add one shown-down holding's range observations for `nick` (and its network's
        population); a (hand, nick) already added through this connection is skipped:
        False. ValueError for observations out of range."""
        from db.ranges import add_ranges

        return self._add_once(self._ranges_seen, (hand_id, network, nick),
                              lambda conn: add_ranges(conn, network, nick, observations))

    def player_id(self, nick: str, network: str) -> int | None:
        row = self.db.conn.execute(
            "SELECT player FROM aliases WHERE network = ? AND nick = ?", (network, nick)
        ).fetchone()
        return None if row is None else row[0]

    def most_seen_players(self, per_network: int) -> list[tuple[str, str]]:
        """(network, nick) of the players with the most hands, ``per_network`` of each
        network, networks in name order."""
        rows = self.db.conn.execute(
            """SELECT network, nick FROM (
                   SELECT a.network, a.nick, row_number() OVER (
                       PARTITION BY a.network ORDER BY p.hands DESC, a.nick) AS rank
                   FROM aliases a JOIN players p ON p.id = a.player)
               WHERE rank <= ? ORDER BY network, rank""",
            (per_network,),
        )
        return [(network, nick) for network, nick in rows]

    def networks_of(self, nick: str) -> list[str]:
        """The networks a nick has been seen on."""
        return [r[0] for r in self.db.conn.execute("SELECT network FROM aliases WHERE nick = ? ORDER BY network", (nick,))]

    # -- recomputation ------------------------------------------------------------------

    def recomputed_states(self, decay: Decay | None = None) -> dict[int, PlayerState]:
        """Every player's model rebuilt from the stored seats and actions alone, replaying
        the hands in the order they were stored (with this file's decay unless given)."""
        return self.recomputed(decay)[0]

    def recomputed(self, decay: Decay | None = None) -> tuple[dict[int, PlayerState], dict[str, PlayerState]]:
        """Every player's model and every network's population rebuilt from the stored
        seats and actions alone, replaying the hands in the order they were stored through
        the same Predictor.advance the writer uses (with this file's decay unless given)."""
        predictor = Predictor(decay or self.decay, self.strengths)
        with self.snapshot() as conn:
            return recompute_models(conn, predictor)

    def stored_states(self) -> dict[int, PlayerState]:
        return self.stored()[0]

    def stored(self) -> tuple[dict[int, PlayerState], dict[str, PlayerState]]:
        """Every player's model and every network's population as the file holds them."""
        with self.snapshot() as conn:
            return read_models(conn)

    def network_states(self, network: str) -> tuple[dict[str, PlayerState], PlayerState]:
        """The stored models of every nick of ``network`` and its population (what the
        shadow scorer starts from)."""
        states, populations = self.stored()
        with self.snapshot() as conn:
            nicks = conn.execute("SELECT nick, player FROM aliases WHERE network = ?", (network,)).fetchall()
        return ({nick: states[pid] for nick, pid in nicks if pid in states},
                populations.get(network) or PlayerState(0))

    def compare_models(self, tolerance: float = 1e-9) -> list[str]:
        """Differences between the stored models and a recomputation (empty if none),
        decayed counts compared as seen from each player's latest hand."""
        with self.snapshot():
            stored, stored_pops = self.stored()
            fresh, fresh_pops = self.recomputed()
        problems = _compare_states(stored, fresh, self.decay, tolerance)
        pop_decay = self.predictor.pop_decay
        for network in sorted(set(stored_pops) | set(fresh_pops)):
            a = {f"population {network}": stored_pops.get(network, PlayerState(0))}
            b = {f"population {network}": fresh_pops.get(network, PlayerState(0))}
            problems += _compare_states(a, b, pop_decay, tolerance, scores=False)  # type: ignore[arg-type]  # population states compare the same way
        return problems

    def recompute(self, half_life: float | None = None, refine: bool = False) -> int:
        """Rebuild the models tables (and the players' hand counters) from the stored
        actions, with a new half-life if given. Returns the number of model rows."""
        decay = self.decay if half_life is None else Decay(half_life)
        with self._write() as conn:
            if refine:
                conn.execute("UPDATE actions SET fine_context = -1")
            schema.backfill_fine_contexts(self.db)
            states, populations = self.recomputed(decay)
            rows = write_models(conn, states, populations)
            self._set_meta("half_life_hands", repr(decay.half_life))
            self._set_meta("fine_models_built", FINE_SCHEME)
        self.decay = decay
        self.predictor = Predictor(decay, self.strengths)
        self._drop_caches()
        return rows

    # -- inspection ---------------------------------------------------------------------

    def hand_count(self) -> int:
        return self.db.conn.execute("SELECT count(*) FROM hands").fetchone()[0]

    def has_hand(self, hand_id: str) -> bool:
        return self.db.conn.execute("SELECT 1 FROM hands WHERE hand_id = ?", (hand_id,)).fetchone() is not None

    def migrations_applied(self) -> list[str]:
        return schema.applied(self.db)

    def stats(self) -> dict[str, Any]:
        """Sizes and settings, as printed by `poki db stats`."""
        with self.snapshot() as conn:
            counts = {
                t: conn.execute(f"SELECT count(*) FROM [{t}]").fetchone()[0]
                for t in ("players", "aliases", "hands", "seats", "actions", "showdowns", "results", "models")
            }
            networks = dict(conn.execute("SELECT network, count(*) FROM hands GROUP BY network ORDER BY network"))
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
        return {
            "path": str(self.path),
            "file_bytes": size,
            "counts": counts,
            "hands_by_network": networks,
            "half_life_hands": self.decay.half_life,
            "journal_mode": self.db.journal_mode,
            "migrations_applied": self.migrations_applied(),
            "migrations_pending": schema.pending(self.db),
        }

    def check(self, *, integrity: bool = True, models: bool = True, limit: int = 20) -> list[str]:
        """Every invariant of a Poki database, in one read transaction; returns the
        problems found (at most `limit` examples of each), empty when all is well."""
        problems: list[str] = []

        def report(what: str, rows: list) -> None:
            for row in rows[:limit]:
                problems.append(f"{what}: {row if len(row) > 1 else row[0]}")
            if len(rows) > limit:
                problems.append(f"{what}: ... {len(rows) - limit} more")

        with self.snapshot() as conn:
            if integrity:
                try:
                    result = [r[0] for r in conn.execute("PRAGMA integrity_check")]
                except sqlite3.DatabaseError as exc:
                    result = [str(exc)]
                if result != ["ok"]:
                    # Nothing else can be trusted, or even read, in a damaged file.
                    return [f"integrity_check: {r}" for r in result[:limit]]
            report("foreign key", conn.execute("PRAGMA foreign_key_check").fetchall())
            report("index missing (open the file for writing to rebuild it)",
                   [(name,) for name in schema.missing_indexes(self.db)])
            report(
                "hand incomplete (hand_id, seats, results, actions, shown)",
                conn.execute(
                    """SELECT h.hand_id, coalesce(s.n, 0), coalesce(r.n, 0), coalesce(a.n, 0), coalesce(w.n, 0)
                    FROM hands h
                    LEFT JOIN (SELECT hand, count(*) n FROM seats GROUP BY hand) s ON s.hand = h.seq
                    LEFT JOIN (SELECT hand, count(*) n FROM results GROUP BY hand) r ON r.hand = h.seq
                    LEFT JOIN (SELECT hand, count(*) n FROM actions GROUP BY hand) a ON a.hand = h.seq
                    LEFT JOIN (SELECT hand, count(*) n FROM showdowns GROUP BY hand) w ON w.hand = h.seq
                    WHERE coalesce(s.n, 0) != h.players OR coalesce(r.n, 0) != h.players
                       OR coalesce(a.n, 0) != h.actions OR coalesce(w.n, 0) != h.shown"""
                ).fetchall(),
            )
            report(
                "chips do not balance (hand_id, put in, won, rake, pot)",
                conn.execute(
                    """SELECT h.hand_id, sum(r.put_in), sum(r.won), h.rake, h.pot FROM results r
                    JOIN hands h ON h.seq = r.hand GROUP BY r.hand
                    HAVING sum(r.put_in) != sum(r.won) + h.rake OR sum(r.put_in) != h.pot"""
                ).fetchall(),
            )
            report(
                "actions do not add up to put_in (hand, player, actions, put_in)",
                conn.execute(
                    """SELECT r.hand, r.player, coalesce(a.total, 0), r.put_in FROM results r
                    LEFT JOIN (SELECT hand, player, sum(amount) total FROM actions GROUP BY hand, player) a
                      ON a.hand = r.hand AND a.player = r.player
                    WHERE coalesce(a.total, 0) != r.put_in"""
                ).fetchall(),
            )
            for table in ("actions", "showdowns", "results"):
                report(
                    f"{table} row of a player not seated (hand, player)",
                    conn.execute(
                        f"""SELECT t.hand, t.player FROM {table} t
                        LEFT JOIN seats s ON s.hand = t.hand AND s.player = t.player
                        WHERE s.player IS NULL"""
                    ).fetchall(),
                )
            report(
                "action context is not 3 * round + min(bets_to_call, 2) (hand, ord)",
                conn.execute(
                    "SELECT hand, ord FROM actions WHERE context != 3 * round + min(bets_to_call, 2)"
                ).fetchall(),
            )
            report(
                "action fine context is not within its coarse context (hand, ord, context, fine_context)",
                conn.execute(
                    "SELECT hand, ord, context, fine_context FROM actions"
                    " WHERE fine_context < 0 OR fine_context / ? != context", (FINE_PER_COARSE,)
                ).fetchall(),
            )
            report(
                "player's hand counter differs from seats (player, counter, seats)",
                conn.execute(
                    """SELECT p.id, p.hands, coalesce(s.n, 0) FROM players p
                    LEFT JOIN (SELECT player, count(*) n FROM seats GROUP BY player) s ON s.player = p.id
                    WHERE p.hands != coalesce(s.n, 0)"""
                ).fetchall(),
            )
            if models:
                problems.extend(self.compare_models()[:limit])
        return problems


__all__ = ["Database", "DatabaseError", "SYNCHRONOUS", "DEFAULT_BATCH"]
