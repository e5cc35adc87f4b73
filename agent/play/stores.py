"""The opponent models of a live table, wired one way for every runner.

* :class:`DatabaseWriter`: the one thread that owns a live bot's database (IRC and ACPC
  alike). Finished hands of every table are queued to it (a seat's sink), stored in
  groups; everything else runs on it too.
* :meth:`DatabaseWriter.models`: the model store a player at a live table reads and
  writes through (agent.models.store.ThreadBoundStore: every call forwarded to the writer
  thread), so the engine gets there exactly what it gets from the database in a match.
* A runner (a match, the ACPC client, the IRC bot) gives a player its models through
  the player's ``attach_store`` (agent.players.interface), which refuses a store that
  lacks any part of the interface; players that model no one (house bots) ignore it.
"""
from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.game.records import HandRecord, RecordError, WriteReport
from agent.models.store import MemoryModelStore, ThreadBoundStore

if TYPE_CHECKING:
    from db.database import Database

__all__ = ["DatabaseWriter"]

log = logging.getLogger("poki.store")


_STOP = object()
_WRITE = object()  # write the waiting hands now
_ARMED = object()  # hands wait: write them batch_seconds from now


class _Hand:
    """A finished hand waiting for the writer."""

    __slots__ = ("record", "network")

    def __init__(self, record: HandRecord, network: str) -> None:
        self.record, self.network = record, network


class DatabaseWriter:
    """The one thread that owns the database: hands are queued to it from any table;
    model reads run on it too (``call``, or the proxy :meth:`models` gives the players).
    ``db_path`` None keeps models in memory.

    With ``batch_seconds`` > 0 the hands are stored in groups, one transaction per group:
    a hand waits at most that long (or until ``batch_hands`` wait) before its group is
    written. On a fast table that saves most of the cost of storing (SQLite writes a page
    that many hands touch once per transaction, not once per hand). Every group is whole
    hands, written all or nothing, and a read (``call``) first writes the hands handed
    over before it, so the models read include every finished hand; once reads come (a
    player that learns from the database, once a hand) each hand is stored as it comes,
    so no read waits for a group. Closing writes the rest. A bot killed outright
    (SIGKILL) loses at most the last ``batch_seconds`` of hands from its database, each
    one whole or not at all: what a power cut could take from a database on
    synchronous=NORMAL too."""

    # Set on the writer thread before the constructor returns: either store serves a group
    # of hands (write_hands) and counts its hands.
    store: MemoryModelStore | Database

    def __init__(self, db_path: str | Path | None, *, half_life: float | None = None, synchronous: str = "normal",
                 batch_seconds: float = 0.0, batch_hands: int = 200) -> None:
        if batch_seconds < 0 or batch_hands < 1:
            raise ValueError(f"batch_seconds must be >= 0 and batch_hands >= 1, got {batch_seconds}, {batch_hands}")
        self.db_path = db_path
        self.half_life = half_life
        self.synchronous = synchronous
        self.batch_seconds = batch_seconds
        self.batch_hands = batch_hands
        self.stored = 0
        self.duplicates = 0
        self.rejected = 0
        self.errors = 0
        self.not_stored = 0  # hands given to the writer and not stored (failed or refused)
        self.transactions = 0  # groups written
        self.last_error = ""
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._hands: collections.deque[_Hand] = collections.deque()  # finished hands not written yet
        self._armed = False  # the writer knows hands are waiting (their group's clock runs)
        self._read = False  # a read has come: hands are no longer grouped
        self._opened = threading.Event()
        self._open_error: BaseException | None = None
        self._database: Database | None = None  # the store when it is a database file (closed at the end)
        self._thread = threading.Thread(target=self._run, name="db-writer", daemon=True)
        self._thread.start()
        self._opened.wait(60)
        if self._open_error is not None:
            raise self._open_error

    def _run(self) -> None:
        try:
            if self.db_path is None:
                self.store = (MemoryModelStore() if self.half_life is None
                              else MemoryModelStore(self.half_life))
            else:
                from db.database import Database

                self._database = Database(self.db_path, half_life=self.half_life, synchronous=self.synchronous)
                self.store = self._database
        except BaseException as exc:  # noqa: BLE001 - reported to the opener
            self._open_error = exc
            self._opened.set()
            return
        self._opened.set()
        jobs = self._jobs
        hands = self._hands
        due: float | None = None  # when the oldest waiting hand must be written
        try:
            while True:
                if due is None:
                    job = jobs.get()
                else:
                    wait = due - time.monotonic()
                    try:
                        job = jobs.get(timeout=wait) if wait > 0 and len(hands) < self.batch_hands else _WRITE
                    except queue.Empty:
                        job = _WRITE
                if job is _ARMED:
                    if due is None:
                        due = time.monotonic() + self.batch_seconds
                    continue
                # A group is due, a read (it sees every hand handed over before it) or the end.
                due = None
                self._armed = False  # before taking the hands: a hand after this arms again
                group = []
                while hands:
                    group.append(hands.popleft())
                if self.batch_seconds > 0:
                    if group:
                        self._store(group)
                else:
                    for hand in group:  # no groups: each hand in its own transaction
                        self._store([hand])
                if job is _WRITE:
                    continue
                if job is _STOP:
                    return
                fn, future = job
                # Someone reads the database (the Poki engine, once a hand): from now on
                # each hand is stored as it comes, so a read never waits for a group.
                self._read = True
                try:
                    result = fn()
                except BaseException as exc:  # noqa: BLE001 - handed to the caller waiting on it
                    future.set_exception(exc)
                else:
                    future.set_result(result)
        finally:
            if self._database is not None:
                self._database.close()

    def _store(self, hands: list[_Hand]) -> None:
        """Write ``hands`` (in order) in one transaction per network; a hand the store
        refuses is counted and logged, the others are stored."""
        store = self.store
        by_network: dict[str, list[HandRecord]] = {}
        for hand in hands:
            by_network.setdefault(hand.network, []).append(hand.record)
        for network, records in by_network.items():
            try:
                if len(records) > 1:
                    report: WriteReport = store.write_hands(records, network, batch_hands=len(records))
                else:
                    report = WriteReport()
                    for record in records:
                        try:
                            report.add(store.write_hand(record, network))
                        except RecordError as exc:
                            report.rejected.append((record.hand_id, str(exc)))
            except Exception as exc:  # noqa: BLE001 - the database failed: counted, play goes on
                self.errors += 1
                self.not_stored += len(records)
                self.last_error = f"{len(records)} hand(s) not stored: {exc}"
                log.error("database writer: %s", self.last_error)
                continue
            self.transactions += 1
            self.stored += report.stored
            self.duplicates += report.duplicates
            self.not_stored += len(report.rejected)
            for hand_id, reason in report.rejected:
                self.rejected += 1
                self.last_error = f"hand {hand_id} not stored: {reason}"
                log.error("%s", self.last_error)

    def call(self, fn: Callable[[], Any], timeout: float | None = 60.0) -> Any:
        future: Future = Future()
        self._jobs.put((fn, future))
        return future.result(timeout)

    def write(self, record: HandRecord, network: str) -> None:
        """Queue a finished hand (returns at once). Only the first hand of a group wakes
        the writer (to start the group's clock); the others just wait in line."""
        hands = self._hands
        hands.append(_Hand(record, network))
        if self.batch_seconds <= 0 or self._read or len(hands) == self.batch_hands:
            self._jobs.put(_WRITE)
        elif not self._armed:
            self._armed = True
            self._jobs.put(_ARMED)

    def hand_count(self) -> int:
        return self.call(lambda: self.store.hand_count())

    def models(self) -> ThreadBoundStore:
        """The store as a player reads it: every call forwarded to the writer thread, after
        the hands handed over before it are written."""
        return ThreadBoundStore(self.store, self.call, owner="the database writer thread")

    def close(self, timeout: float = 60.0) -> None:
        if self._thread.is_alive():
            self._jobs.put(_STOP)
            self._thread.join(timeout)
