"""The replay runner: hand logs through the tracker into the opponent database
(``poki replay``), with counting, resuming, parallel reading and shadow scoring.

Flow: connectors.logs.sources cuts the logs into chunks; each chunk is read and every hand fed
through a Tracker (agent.game.tracker), which checks it against the rules and the log's own
result and builds its HandRecord; agent.game.prepared.prepare_hand checks the record as the database
would and turns it into rows, which go to db.Database.write_prepared in log order, a
transaction per ``batch_hands`` hands. A hand that cannot be read, or that the tracker or
the database checks refuse, is counted under its reason and never written, in part or
whole. A replay into a database holding fewer hands than the logs writes without the
by-player indexes and builds them at the end (Database.deferred_indexes), unless the file
ends up small enough (LIVE_INDEX_HANDS) for keeping them up to date to cost no more.

Parallel (``workers`` > 1): worker processes read, track and prepare chunks and send back
the rows (plain tuples, marshalled: a HandRecord pickled whole costs more than tracking
it); the main process alone writes, taking the chunks in log order and only numbering
hands and players and updating the models, so the database, its models included, is the
same as after a serial replay.

Running again: hands are keyed by stable ids. Before a hand is parsed and tracked, its id
is looked up in the database (through a read connection of the reading process) and a
hand already stored is only counted, so a second replay of the same logs is quick and
stores nothing; a replay killed at any moment left whole transactions only, and running
it again skips what they hold and goes on where it stopped, ending with the database an
uninterrupted replay makes. With ``predict`` every hand is tracked and its record goes to
the main process (the scorer needs them all, in order), and the database still counts
stored hands as duplicates.

``strict``: the first problem, in log order, stops the replay; every hand before it is
written, nothing after it.
"""
from __future__ import annotations

import gc
import marshal
import multiprocessing
import multiprocessing.pool
import os
import signal
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from agent.config import Config
from agent.game.events import PlayerActed, PlayerAllIn, PlayerLeft
from agent.game.prepared import prepare_hand
from agent.game.records import ActionRecord, HandRecord, PlayerResult, RecordError, SeatRecord, ShownCards
from agent.game.slots import slot_constructor
from agent.game.tracker import Tracker, TrackerError
from agent.models.prediction import DEFAULT_STRENGTHS, Strengths
from agent.models.ranges import DEFAULT_RANGE_SETTINGS, RangeSettings
from agent.native import ROOT as REPOSITORY  # the folder holding agent/
from connectors.logs.sources import (
    OTHER_GAME,
    PARTIAL_HAND,
    AcpcSettings,
    Chunk,
    KnownHand,
    LogHand,
    LogProblem,
    clear_cache,
    plan_logs,
    preload,
    read_chunk,
)

__all__ = [
    "ReplayOptions",
    "ReplaySummary",
    "decode_record",
    "encode_record",
    "replay",
    "replay_chunks",
    "shared_irc_logs",
]

DATASET = "irc-holdem-199504-dev"
# Entry tags of a chunk's results.
_RECORD, _PROBLEM, _KNOWN, _PREPARED = 0, 1, 2, 3
# What a chunk's finished hands become: HandRecords as they are (the scorer needs them),
# HandRecords in compact form (the same, from a worker process), or database rows
# (agent.game.prepared.prepare_hand: checked and built where the hand was tracked).
RECORDS, ENCODED, PREPARED = "records", "encoded", "prepared"
# Problem categories of hands the tracker or the database refused.
ILLEGAL_ACTION = "illegal-action"
RESULT_MISMATCH = "result-mismatch"
INCOMPLETE = "incomplete"
REFUSED = "refused"  # any other event the tracker refused (a bad start, board or show)
REJECTED = "rejected"  # refused by the database
EXAMPLES = 3  # problems quoted per reason in the summary
KEPT_PROBLEMS = 1000  # problems the summary keeps whole; the rest are counted (and streamed to on_problem)
# A replay leaving the file with at most this many hands keeps the by-player indexes up
# to date as it writes instead of building them at the end (Database.deferred_indexes):
# while they fit in the writer's page cache (about 400 bytes a hand against 64 MiB),
# inserting into them as rows come costs about what one sort at the end does (the April
# month: 2.25 against 2.32 CPU s for the whole writer), but it is spread over the run,
# alongside the reading workers, rather than done alone after them.
LIVE_INDEX_HANDS = 50_000


def shared_irc_logs() -> Path | None:
    """The shared April 1995 IRC logs: $POKI_SHARED_DATA (the data folder, the dataset
    or the folder above ``data``), else ../shared/data beside the repository."""
    candidates = []
    env = os.environ.get("POKI_SHARED_DATA")
    if env:
        candidates += [Path(env), Path(env) / DATASET, Path(env) / "data" / DATASET]
    candidates.append(REPOSITORY.parent / "shared" / "data" / DATASET)
    for c in candidates:
        if (c / "holdem").is_dir() or (c / "hdb").is_file():
            return c
    return None


# --------------------------------------------------------------------------- compact records


# Records are rebuilt by filling their slots directly (the tracker's own way of making
# them): a frozen dataclass's __init__ would be most of the cost of decoding.
_seat = slot_constructor(SeatRecord)
_action = slot_constructor(ActionRecord)
_shown = slot_constructor(ShownCards)
_result = slot_constructor(PlayerResult)
_hand = slot_constructor(HandRecord)


def encode_record(r: HandRecord) -> tuple:
    """A HandRecord as nested tuples of ints, floats, strings and bools (marshal-able);
    players are named once, actions and shown hands refer to their seat."""
    seats = r.seats
    players = tuple([s.player for s in seats])
    seat_of = {p: i for i, p in enumerate(players)}
    results = r.results
    return (
        _RECORD, r.hand_id, r.source, r.started_at, r.small_blind, r.big_blind, r.small_bet, r.big_bet,
        r.max_bets, players, tuple([s.stack for s in seats]), tuple([s.position for s in seats]), r.board,
        tuple([(a.round, seat_of[a.player], a.kind, a.amount, a.bets_to_call, a.raises, a.position,
                a.players_active, a.all_in) for a in r.actions]),
        tuple([(seat_of[s.player], s.cards) for s in r.shown]),
        tuple([seat_of[x.player] for x in results]),
        tuple([x.put_in for x in results]),
        tuple([x.won for x in results]),
        r.rake,
        r.hero,
        r.tournament,
        r.level,
    )


def decode_record(e: tuple) -> HandRecord:
    """The HandRecord of encode_record's tuple (equal to the original)."""
    (_, hand_id, source, started_at, sb, bb, small_bet, big_bet, max_bets, players, stacks, positions,
     board, actions, shown, result_seats, put_in, won, rake, hero, tournament, level) = e
    return _hand(
        hand_id, source, started_at, sb, bb, small_bet, big_bet, max_bets,
        tuple(map(_seat, players, stacks, positions)),
        board,
        tuple([_action(rnd, players[i], kind, amount, btc, raises, pos, active, all_in)
               for rnd, i, kind, amount, btc, raises, pos, active, all_in in actions]),
        tuple([_shown(players[i], cards) for i, cards in shown]),
        tuple(map(_result, [players[i] for i in result_seats], put_in, won)),
        rake,
        hero,
        tournament,
        level,
    )


# --------------------------------------------------------------------------- reading + tracking

_tracker: Tracker | None = None
_known_dbs: dict[str, Any] = {}


def _skipper(db_path: str) -> Callable[[str], bool]:
    """has_hand of a read connection to the database, one per process."""
    db = _known_dbs.get(db_path)
    if db is None:
        from db.database import StoredHands

        db = _known_dbs[db_path] = StoredHands(db_path)
    return db.has_hand


def _forget_files() -> None:
    """Drop the cached log files and the read connections used to recognise stored hands."""
    clear_cache()
    for db in _known_dbs.values():
        db.close()
    _known_dbs.clear()


# For long-lived worker processes of another pool (agent.play.offline.cluster) to call.
forget_files = _forget_files


def _tracker_problem(exc: TrackerError) -> tuple[str, str]:
    """(category, reason) of a hand the tracker refused."""
    reason = str(exc)
    if "disagree with the rules" in reason:
        category = RESULT_MISMATCH
    elif isinstance(exc.event, (PlayerActed, PlayerLeft, PlayerAllIn)):
        category = ILLEGAL_ACTION
    else:
        category = REFUSED
    return category, f"{category}: {reason}"


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic garbage collector paused: a chunk allocates a few hundred thousand
    short-lived objects (events, records, rows) and holds none in cycles, while each
    collection would walk every object alive, the month's index of pdb lines included;
    pausing it saves about a fifth of the time. Whatever it would have found is
    collected once it runs again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _track(chunk: Chunk, known_db: str | None, output: str) -> list[tuple]:
    """Read one chunk and track its hands: its entries in log order: finished hands (as
    ``output`` says), problems (tag, where, category, reason, hand id) and hands already
    in the database (tag, hand id)."""
    with _no_gc():
        return _track_chunk(chunk, known_db, output)


def _track_chunk(chunk: Chunk, known_db: str | None, output: str) -> list[tuple]:
    global _tracker
    skip = _skipper(known_db) if known_db is not None else None
    if _tracker is None:
        _tracker = Tracker()
    apply = _tracker.apply
    network = chunk.network
    entries: list[tuple] = []
    append = entries.append
    for item in read_chunk(chunk, skip):
        # type(x) is C: exact classes, as the readers make them (and mypy narrows on it).
        if type(item) is LogHand:
            record = None
            try:
                for event in item.events:
                    record = apply(event)
            except TrackerError as exc:
                category, reason = _tracker_problem(exc)
                append((_PROBLEM, item.where, category, reason, item.hand_id))
                continue
            if record is None:
                append((_PROBLEM, item.where, INCOMPLETE, f"{INCOMPLETE}: {item.where}: the hand has no end",
                        item.hand_id))
            elif output == PREPARED:
                try:
                    prepared = prepare_hand(record, network)
                except RecordError as exc:
                    append((_PROBLEM, item.where, REJECTED, f"{REJECTED}: {exc}", item.hand_id))
                else:
                    # marshal takes plain tuples only.
                    append((_PREPARED, tuple(prepared)))
            elif output == ENCODED:
                append(encode_record(record))
            else:
                append((_RECORD, record))
        elif type(item) is KnownHand:
            append((_KNOWN, item.hand_id))
        else:
            assert isinstance(item, LogProblem)
            append((_PROBLEM, item.where, item.category, item.reason, item.hand_id, item.game))
    return entries


def track_chunk(task: tuple[Chunk, str | None, str]) -> bytes:
    """_track in a worker process: the entries marshalled. They are marshalled and dropped
    before the collector runs again: let it run with them alive and it would walk every
    one of the chunk's tens of thousands of row tuples (about a tenth of a worker's time)
    to find nothing."""
    chunk, known_db, output = task
    with _no_gc():
        return marshal.dumps(_track_chunk(chunk, known_db, output))


def _chunk_results(chunks: list[Chunk], known_db: str | None, pool: Any, window: int,
                   prepared: bool) -> Iterator[Callable[[], list[tuple]] | bytes]:
    """The entries of every chunk, in order: to be tracked here (a call giving them,
    records as they are, made by the caller with the collector paused), or from the
    pool (marshalled, records compact) with at most ``window`` chunks under way, so a
    slow writer never has the whole input waiting in memory; with ``prepared`` the hands
    come as database rows instead of records. The pool's first ``window`` chunks are
    handed out at once, when this is called: the workers start reading while the caller
    still opens the database."""
    if pool is None:
        return (partial(_track_chunk, chunk, known_db, PREPARED if prepared else RECORDS) for chunk in chunks)
    task = (known_db, PREPARED if prepared else ENCODED)
    pending: deque = deque()
    it = iter(chunks)
    for chunk in it:
        pending.append((chunk, pool.apply_async(track_chunk, ((chunk, *task),))))
        if len(pending) >= window:
            break
    return _pool_results(pool, pending, it, task)


class ReplayWorkerError(Exception):
    """The replay's workers gave no result for a chunk within the wait."""


# How long a chunk's result is waited for. A chunk is read in well under a minute even on a
# busy machine; a worker killed mid-chunk (the out-of-memory killer) leaves multiprocessing's
# pool waiting forever, so the wait has a limit and says what it waited for.
CHUNK_WAIT_SECONDS = 600.0


def _pool_results(pool: Any, pending: deque, it: Iterator[Chunk], task: tuple,
                  wait: float = CHUNK_WAIT_SECONDS) -> Iterator[bytes]:
    """The pool's results in order, a new chunk handed out as each one comes back;
    ReplayWorkerError when one does not come back within ``wait`` seconds."""
    while pending:
        chunk, handle = pending.popleft()
        try:
            result = handle.get(wait)
        except (multiprocessing.TimeoutError, TimeoutError):
            raise ReplayWorkerError(
                f"no result from the replay's workers in {wait:g} s for {chunk.path} "
                f"(units {chunk.start}-{chunk.stop}): a worker died or hangs; every hand stored before "
                f"this is kept and the same command resumes") from None
        nxt = next(it, None)
        if nxt is not None:
            pending.append((nxt, pool.apply_async(track_chunk, ((nxt, *task),))))
        yield result


# --------------------------------------------------------------------------- the run


@dataclass(frozen=True)
class ReplayOptions:
    db_path: str | Path
    network: str | None = None  # None: one per format (irc1995, acpc, phh) or room (stars, ftp, ...)
    strict: bool = False
    predict: bool = False
    workers: int = 1
    chunk_hands: int = 1000
    acpc: AcpcSettings = AcpcSettings()
    half_life: float = 500.0
    blend_observations: float = 20.0
    synchronous: str = "normal"
    batch_hands: int = 500
    min_hands: int = 500  # predict: players scored as a group of regulars
    epsilon: float = 1e-3  # predict: floor of the triples' entries
    since: float | None = None  # only hands started at or after this Unix time
    until: float | None = None  # only hands started before this Unix time
    strengths: Strengths = DEFAULT_STRENGTHS  # back-off pseudo-counts (agent.models.prediction)
    tune: bool = False  # predict: keep the hands for fitting the strengths; store nothing
    ranges: RangeSettings = DEFAULT_RANGE_SETTINGS  # predict: how the learned ranges are read

    @classmethod
    def from_settings(cls, settings: Config, db_path: str | Path, **options: Any) -> ReplayOptions:
        """The options a replay takes from the config file (the models' decay and blend, the
        database's writes), with ``options`` for the rest: `poki replay` and the benchmark."""
        return cls(db_path=db_path, half_life=settings.model.half_life_hands,
                   blend_observations=settings.model.blend_observations,
                   synchronous=settings.database.synchronous, batch_hands=settings.database.batch_hands, **options)


@dataclass
class ReplaySummary:
    hands: int = 0  # every hand of the logs met: read, or skipped for a problem
    read: int = 0  # read whole (tracked), or recognised as stored by their id
    stored: int = 0
    known: int = 0  # already in the database, recognised by their id before reading
    duplicates_written: int = 0  # tracked, then found in the database when written
    skipped: int = 0
    outside: int = 0  # read, but started outside [since, until): left alone
    skipped_by_reason: Counter = field(default_factory=Counter)
    skipped_by_game: Counter = field(default_factory=Counter)  # the other-game hands, by their game
    examples: dict[str, list[str]] = field(default_factory=dict)
    problems: list[LogProblem] = field(default_factory=list)  # the first KEPT_PROBLEMS
    on_problem: Callable[[LogProblem], None] | None = None  # told of every problem as it comes
    players: int = 0  # distinct players in the hands tracked
    actions: int = 0  # actions (blinds included) in the hands tracked
    seconds: float = 0.0
    stopped: LogProblem | None = None  # strict: the problem that stopped the run
    prediction: dict[str, Any] | None = None
    db_path: str = ""
    workers: int = 1
    files_read: int = 0  # files (and IRC months) recognised as a format we read
    files_not_read: int = 0  # files met that are no format we read
    unread_files: list[str] = field(default_factory=list)  # the first KEPT_PROBLEMS of them, each named

    @property
    def duplicates(self) -> int:
        return self.known + self.duplicates_written

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    def add_problem(self, problem: LogProblem) -> None:
        self.hands += 1
        self.skipped += 1
        self.skipped_by_reason[problem.category] += 1
        if problem.game is not None:
            self.skipped_by_game[problem.game] += 1
        # Kept up to a bound: a log of garbage must not fill memory with its problems.
        if len(self.problems) < KEPT_PROBLEMS:
            self.problems.append(problem)
        if self.on_problem is not None:
            self.on_problem(problem)
        examples = self.examples.setdefault(problem.category, [])
        if len(examples) < EXAMPLES:
            examples.append(str(problem.reason) if problem.where in problem.reason
                            else f"{problem.where}: {problem.reason}")

    def to_json(self) -> dict[str, Any]:
        return {
            "database": self.db_path,
            "workers": self.workers,
            "hands": self.hands,
            "read": self.read,
            "stored": self.stored,
            "duplicates": self.duplicates,
            "already_stored_unread": self.known,
            "duplicates_at_write": self.duplicates_written,
            "skipped": self.skipped,
            "outside_time_window": self.outside,
            "skipped_by_reason": dict(sorted(self.skipped_by_reason.items())),
            "skipped_by_game": dict(sorted(self.skipped_by_game.items())),
            "examples": self.examples,
            "players": self.players,
            "actions": self.actions,
            "seconds": round(self.seconds, 3),
            "hands_per_s": round(self.hands_per_s, 1),
            "stopped": None if self.stopped is None else str(self.stopped),
            "files_read": self.files_read,
            "files_not_read": self.files_not_read,
            "unread_files": self.unread_files,
            **({"prediction": self.prediction} if self.prediction is not None else {}),
        }

    def format(self) -> str:
        lines = [
            f"database: {self.db_path}",
            f"hands read: {self.read:,} of {self.hands:,}",
            f"stored: {self.stored:,}",
            f"duplicates: {self.duplicates:,} (already in the database)",
            f"skipped: {self.skipped:,}",
        ]
        if self.outside:
            lines.append(f"outside the time window (--since/--until): {self.outside:,}")
        for reason, n in sorted(self.skipped_by_reason.items()):
            lines.append(f"  {reason}: {n:,}")
            if reason == OTHER_GAME:
                lines += [f"    {game}: {count:,}" for game, count in sorted(self.skipped_by_game.items())]
            for example in self.examples.get(reason, ()):
                lines.append(f"      e.g. {example}")
        lines += [
            f"players: {self.players:,}",
            f"actions: {self.actions:,}",
            f"seconds: {self.seconds:.2f}",
            f"hands/s: {self.hands_per_s:,.0f} ({self.workers} worker{'s' if self.workers != 1 else ''})",
        ]
        if self.files_not_read:
            lines.append(f"files not read: {self.files_not_read:,} (of {self.files_read + self.files_not_read:,})")
            lines += [f"  {name}" for name in self.unread_files]
            if self.files_not_read > len(self.unread_files):
                lines.append(f"  ... and {self.files_not_read - len(self.unread_files):,} more")
        if self.stopped is not None:
            lines.append(f"stopped (--strict) at: {self.stopped}")
        return "\n".join(lines)


class ChunkPool(Protocol):
    """Where :func:`replay` may read, track and prepare its chunks instead of a process
    pool of its own (agent.play.offline.cluster.ReplayPool; the bench's measured pool)."""

    # Whether the workers can open the database file (the same machine): when they can,
    # hands stored already are recognised before they are read.
    reads_database: bool

    def apply_async(self, fn: Callable[..., Any], args: tuple) -> Any:
        """Run ``fn(*args)`` on a worker; the handle's ``get(timeout)`` is its result
        (multiprocessing's AsyncResult)."""
        ...


def _pool_context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    # fork: the workers start at once with the modules already imported.
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _default_signals() -> None:
    """A pool worker's first step: SIGTERM ends it, whatever handler the process it was
    forked from had installed (a Python handler inherited by fork would leave the worker
    alive, and Pool.terminate waiting on it for ever)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def worker_pool(workers: int) -> multiprocessing.pool.Pool:
    """The process pool a replay reads its chunks on."""
    return _pool_context().Pool(workers, initializer=_default_signals)


def replay(paths: Sequence[str | Path], options: ReplayOptions,
           progress: Callable[[int], None] | None = None,
           on_total: Callable[[int], None] | None = None,
           pool: ChunkPool | None = None,
           on_problem: Callable[[LogProblem], None] | None = None) -> ReplaySummary:
    """Replay the logs at ``paths`` into the database of ``options``; see the module
    docstring. ``on_total(hands)`` is told how many hands the logs hold (roughly, for a
    progress bar) and ``progress(hands)`` how many more are done. FileNotFoundError for
    a missing path; connectors.acpc.game.GameError for a bad game file;
    db.DatabaseError for a database that cannot be used.

    ``pool``: where chunks are read, tracked and prepared instead of a process pool of
    ``options.workers`` (a :class:`ChunkPool`: multiprocessing's ``apply_async(fn,
    args).get(timeout)`` and ``reads_database``, e.g. agent.play.offline.cluster.ReplayPool;
    ``options.workers`` then sizes the window of chunks under way). A pool whose
    ``reads_database`` is false cannot see the database file: stored hands are then
    dropped by the writer rather than before reading.
    ``on_problem`` hears of every problem as it is counted (the summary keeps the first
    KEPT_PROBLEMS)."""
    start = time.perf_counter()
    found = plan_logs(paths, chunk_hands=options.chunk_hands, network=options.network, acpc=options.acpc)
    summary = replay_chunks(found.chunks, found.problems, options, progress=progress, on_total=on_total,
                            pool=pool, on_problem=on_problem, started=start)
    summary.files_read = found.inputs
    summary.unread_files = [str(f) for f in found.unread[:KEPT_PROBLEMS]]
    summary.files_not_read = len(found.unread)
    return summary


def replay_chunks(chunks: list[Chunk], problems: list[LogProblem], options: ReplayOptions,
                  progress: Callable[[int], None] | None = None,
                  on_total: Callable[[int], None] | None = None,
                  pool: ChunkPool | None = None,
                  on_problem: Callable[[LogProblem], None] | None = None,
                  started: float | None = None) -> ReplaySummary:
    """:func:`replay` of chunks planned already (connectors.logs.sources.plan, or the
    complete hands of logs being written: agent.play.offline.follow) and the problems met
    planning them: the one way hands are read, tracked and stored."""
    from db.database import Database

    start = time.perf_counter() if started is None else started
    summary = ReplaySummary(db_path=str(options.db_path), workers=max(1, options.workers), on_problem=on_problem)
    if on_total is not None:
        on_total(sum(c.units for c in chunks) + len(problems))
    for problem in problems:
        summary.add_problem(problem)
        if options.strict:
            summary.stopped = problem
            summary.seconds = time.perf_counter() - start
            return summary
    scorer = None
    if options.predict:
        from agent.play.offline.shadow import ShadowScorer

        scorer = ShadowScorer(half_life=options.half_life, blend=options.blend_observations,
                              epsilon=options.epsilon, min_hands=options.min_hands, strengths=options.strengths,
                              ranges=options.ranges)
    # Hands already stored are recognised by id only when there can be some (and when
    # the scorer does not need every hand).
    known_db = str(options.db_path) if Path(options.db_path).is_file() and scorer is None else None
    if pool is not None and not pool.reads_database:
        known_db = None
    workers = summary.workers if len(chunks) > 1 else 1
    players: set[tuple[str, str]] = set()
    with ExitStack() as stack:
        # Logs read by an earlier replay in this process may have changed since; forked
        # workers inherit this process's caches.
        _forget_files()
        stack.callback(_forget_files)
        # The pool is made before the database is opened: forked workers then hold no
        # copy of the writer's connection.
        chunk_pool: Any = pool  # the caller's pool, or a process pool made here
        if pool is None and workers > 1:
            # The logs' index built once here, before the fork, rather than in every worker;
            # frozen, the collectors of this process and of the workers never walk it (nor
            # touch, and so copy, the pages it shares with them). The collector is paused
            # while it is built: the index is some hundred thousand small tuples and lists
            # in no cycle, and collections walking them as they grow took about half of
            # this step, which nothing else overlaps.
            with _no_gc():
                preload(chunks)
            gc.freeze()
            stack.callback(gc.unfreeze)
            chunk_pool = stack.enter_context(worker_pool(workers))
        results = None
        if known_db is None:
            # Nothing to recognise: the workers get their first chunks now, and read them
            # while this process opens the database (migrations, dropping the indexes).
            results = _chunk_results(chunks, None, chunk_pool, window=2 * workers + 2, prepared=scorer is None)
        database = stack.enter_context(Database(options.db_path, half_life=options.half_life,
                                                synchronous=options.synchronous,
                                                batch_hands=options.batch_hands, strengths=options.strengths))
        if scorer is not None:
            # Predictions start from the models the file holds; its hands are not rescored.
            scorer.seeder = database.network_states
            scorer.known = database.has_hand
            if not options.tune:
                _load_learned(database, scorer)
                # The range score starts players from the ranges stored and stores what it learns.
                scorer.ranges.source = database
        stored = database.hand_count()
        if known_db is not None and stored == 0:
            known_db = None
        units = sum(c.units for c in chunks)
        if units >= stored and units + stored > LIVE_INDEX_HANDS:
            stack.enter_context(database.deferred_indexes())
        if results is None:
            results = _chunk_results(chunks, known_db, chunk_pool, window=2 * workers + 2, prepared=scorer is None)
        for chunk, result in zip(chunks, results):
            with _no_gc():
                entries = marshal.loads(result) if isinstance(result, bytes) else result()
                stop = _take_chunk(chunk, entries, database, scorer, options, summary, players)
                # The chunk's rows dropped before the collector runs again: alive, they
                # would all be walked by it (tens of thousands of tuples) to find nothing.
                entries = None
            if progress is not None:
                progress(chunk.units)
            if stop is not None:
                summary.stopped = stop
                break
        summary.read += summary.known
        summary.hands += summary.known
        if scorer is not None and options.tune:
            from agent.play.offline.shadow import tune_strengths

            # Inside: every candidate starts from the models stored in the open file.
            summary.prediction = tune_strengths(scorer.kept, options, scorer.seeder)
    summary.players = len(players)
    if scorer is not None and not options.tune:
        summary.prediction = scorer.report()
    summary.seconds = time.perf_counter() - start
    return summary


def _take_chunk(chunk: Chunk, entries: list[tuple], database: Any, scorer: Any, options: ReplayOptions,
                summary: ReplaySummary, players: set[tuple[str, str]]) -> LogProblem | None:
    """Count one chunk's entries, score and write its hands; returns the problem that
    stops a strict run, if there is one."""
    network = chunk.network
    records: list[HandRecord] = []
    prepared: list[tuple] = []
    stop: LogProblem | None = None
    since, until = options.since, options.until
    window = since is not None or until is not None
    for e in entries:
        tag = e[0]
        if tag == _PREPARED:
            if window and not _inside(e[1][3][3], since, until):
                summary.outside += 1
                summary.read += 1
                summary.hands += 1
                continue
            prepared.append(e[1])
            continue
        if tag == _RECORD:
            record = e[1] if len(e) == 2 else decode_record(e)
            if window and not _inside(record.started_at, since, until):
                summary.outside += 1
                summary.read += 1
                summary.hands += 1
                continue
            # --strict: a record the database would refuse stops the run before anything
            # after it is written.
            problem = _invalid(record, network) if options.strict else None
            if problem is None:
                records.append(record)
                continue
        elif tag == _KNOWN:
            summary.known += 1
            continue
        else:
            problem = LogProblem(e[1], e[2], e[3], e[4], e[5] if len(e) > 5 else None)
        summary.add_problem(problem)
        # A hand of another game (a room's no-limit hand, say) is skipped, not a fault.
        if options.strict and problem.category not in (OTHER_GAME, PARTIAL_HAND):
            stop = problem
            break
    if prepared:
        for hand in prepared:
            summary.actions += len(hand[5])
            for nick in hand[2]:
                players.add((network, nick))
        _count_written(summary, database.write_prepared(prepared, network, batch_hands=options.batch_hands),
                       len(prepared), {})
    if records:
        for r in records:
            summary.actions += len(r.actions)
            for seat in r.seats:
                players.add((network, seat.player))
        if scorer is not None and options.tune:
            # Fitting the strengths: the hands are kept to be scored again and again
            # from the stored models, and nothing is written.
            known = scorer.known
            for r in records:
                if known is None or not known(r.hand_id):
                    scorer.kept.append((r, network))
            summary.read += len(records)
            summary.hands += len(records)
            return stop
        if scorer is not None:
            for r in records:
                scorer.observe(r, network)
        _count_written(summary, database.write_hands(records, network, batch_hands=options.batch_hands),
                       len(records), {r.hand_id: r.source for r in records})
    return stop


def _load_learned(database: Any, scorer: Any) -> None:
    """Give the scorer the learned predictor the file holds (``poki db fit-predictor``),
    read through the model store's interface as the engine reads it."""
    from db.database import DatabaseError

    try:
        model = database.learned_model()
    except ValueError as exc:
        raise DatabaseError(f"{database.path}: {exc}") from None
    if model is not None:
        scorer.set_learned(model)


def _inside(started_at: float | None, since: float | None, until: float | None) -> bool:
    """Whether a hand started at ``started_at`` is in [since, until); a hand of unknown
    time is in only when no window is set."""
    if started_at is None:
        return False
    return (since is None or started_at >= since) and (until is None or started_at < until)


def _count_written(summary: ReplaySummary, report: Any, given: int, where: dict[str, str]) -> None:
    """Count what the database made of ``given`` hands: stored, duplicates, rejected."""
    summary.stored += report.stored
    summary.duplicates_written += report.duplicates
    for hand_id, reason in report.rejected:
        summary.add_problem(LogProblem(where.get(hand_id, hand_id), REJECTED, f"{REJECTED}: {reason}", hand_id))
    accepted = given - len(report.rejected)
    summary.read += accepted
    summary.hands += accepted


def _invalid(record: HandRecord, network: str) -> LogProblem | None:
    """Strict mode: the problem the database would find in ``record``, checked before any
    hand after it is written."""
    from agent.game.prepared import validate_record

    try:
        validate_record(record, network)
    except RecordError as exc:
        return LogProblem(record.source, REJECTED, f"{REJECTED}: {exc}", record.hand_id)
    return None
