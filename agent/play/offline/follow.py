"""Following hand logs as they are written (``poki replay --follow DIR...``): folders are
looked at every ``poll`` seconds (os.stat: inode, size, modification time; no new
dependency), new files and hands appended to known ones are found, and every hand that is
complete is stored through the replay's one storing path
(agent.play.offline.replay.replay_chunks).

When a hand is complete is the reader's to say (connectors.logs.sources, "Logs being
written"): a room's hand when the next hand's start line is there, or when the file has
been quiet for ``quiet`` seconds, its last line has its line end and the hand parses
whole; an iPoker game at its end tag (only); an ACPC hand at its line end; a .phhs table at the
next table's header or, quiet, when it reads whole; a .phh file and an IRC month whole,
once quiet. A hand not complete yet is waited for (and said at the end), never read in
part: each log keeps how far it was read (hands, or a byte offset for ACPC and .phhs
logs), so a hand is read once.

Nothing about the files is kept in the database: after a restart every log is read from
its top again, and the hands stored already are recognised by their ids (content ids:
a room's hand number and a digest of the hand, an ACPC or PHH hand's digest, an IRC
hand's time), counted and not stored again. A hand complete is stored within
``poll + quiet`` seconds and the time to read and write it (the defaults: 0.25 + 0.75 s).
"""
from __future__ import annotations

import os
import stat
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent.play.offline.replay import EXAMPLES, ReplayOptions, ReplaySummary, replay_chunks
from connectors.logs.sources import (
    IRC,
    Chunk,
    Growing,
    LogProblem,
    grown,
    is_irc_month,
    sniff,
)

__all__ = ["FollowSettings", "FollowTotals", "Follower"]

# A file whose first bytes name no format is looked at again when it grows, until it holds
# this many (what sources.sniff reads).
SNIFF_BYTES = 8192
# Folders under a followed one: at most this deep, and this many files in all (a bound on
# one look's cost; a tree past it is said once).
MAX_DEPTH = 32
# A hand waited for this long with the file unchanged is said as it goes (not only at the end).
SAY_WAITING = 30.0
MAX_FILES = 100_000


@dataclass(frozen=True, slots=True)
class FollowSettings:
    """``poll``: seconds between two looks at the folders; ``quiet``: seconds a file must
    keep its size before the hand it ends in may be taken as complete (it must also
    parse whole)."""

    poll: float = 0.25
    quiet: float = 0.75

    def __post_init__(self) -> None:
        if not (0 < self.poll <= 60 and 0 < self.quiet <= 600):
            raise ValueError(f"poll must be in (0, 60] s and quiet in (0, 600] s, got {self.poll}, {self.quiet}")


@dataclass(frozen=True, slots=True)
class _Stat:
    key: tuple[int, int]  # device, inode
    size: int
    mtime: int  # nanoseconds


def _stat(st: os.stat_result) -> _Stat:
    return _Stat((st.st_dev, st.st_ino), st.st_size, st.st_mtime_ns)


@dataclass(slots=True)
class _Seen:
    """One file (or IRC month) as last looked at."""

    key: tuple[int, int]  # device, inode
    size: int
    mtime: int  # nanoseconds
    changed: float  # the clock when a change was last seen
    log: Growing | None  # None: no log (yet)
    read_at: tuple[int, int] | None = None  # (size, mtime) when last read
    read_quiet: bool = False  # that reading judged the file quiet
    waiting: str | None = None
    sniffed_at: int = -1  # the size at the last sniff


@dataclass(slots=True)
class FollowTotals:
    """What a follow stored and met, summed over its batches."""

    db_path: str
    batches: int = 0
    stored: int = 0
    known: int = 0  # already in the database (read again after a restart, or twice in the folders)
    skipped: int = 0
    skipped_by_reason: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0
    stopped_by: str | None = None
    waiting: list[str] = field(default_factory=list)

    def add(self, summary: ReplaySummary) -> None:
        self.batches += 1
        self.stored += summary.stored
        self.known += summary.duplicates
        self.skipped += summary.skipped
        self.skipped_by_reason.update(summary.skipped_by_reason)
        for reason, examples in summary.examples.items():
            kept = self.examples.setdefault(reason, [])
            kept.extend(examples[:EXAMPLES - len(kept)])

    def format(self) -> str:
        lines = [
            f"database: {self.db_path}",
            f"stopped by: {self.stopped_by or 'the end of the run'} after {self.seconds:.1f} s",
            f"batches stored: {self.batches:,}",
            f"stored: {self.stored:,}",
            f"duplicates: {self.known:,} (already in the database)",
            f"skipped: {self.skipped:,}",
        ]
        for reason, n in sorted(self.skipped_by_reason.items()):
            lines.append(f"  {reason}: {n:,}")
            for example in self.examples.get(reason, ()):
                lines.append(f"      e.g. {example}")
        lines.append(f"waiting, not complete, not stored: {len(self.waiting):,}")
        lines += [f"  {w}" for w in self.waiting]
        return "\n".join(lines)

    def to_json(self) -> dict[str, object]:
        return {
            "database": self.db_path,
            "stopped_by": self.stopped_by,
            "seconds": round(self.seconds, 3),
            "batches": self.batches,
            "stored": self.stored,
            "duplicates": self.known,
            "skipped": self.skipped,
            "skipped_by_reason": dict(sorted(self.skipped_by_reason.items())),
            "examples": self.examples,
            "waiting": self.waiting,
        }


class Follower:
    """Follows ``roots`` (folders, or files) into the database of ``options``; :meth:`run`
    until told to stop, or :meth:`step` one look and store at a time."""

    def __init__(self, roots: Sequence[str | Path], options: ReplayOptions,
                 settings: FollowSettings = FollowSettings(),
                 clock: Callable[[], float] = time.monotonic,
                 on_problem: Callable[[LogProblem], None] | None = None) -> None:
        # Read and written in this one process: a batch is a few hands.
        self.options = replace(options, workers=1, predict=False, tune=False)
        self.roots = [os.path.abspath(r) for r in roots]
        self.settings = settings
        self.clock = clock
        self.on_problem = on_problem
        self.files: dict[str, _Seen] = {}
        self.totals = FollowTotals(db_path=str(options.db_path))
        self.notes: list[str] = []  # what a look met that is no hand (a folder it cannot list)
        self._said: set[str] = set()

    # ------------------------------------------------------------------ looking

    def _note(self, text: str) -> None:
        if text not in self._said:  # said once, not at every look
            self._said.add(text)
            self.notes.append(text)

    def _entries(self) -> dict[str, _Stat]:
        """Every file (and IRC month) under the roots now: path -> its stat (for a month,
        its files' sizes summed and latest time)."""
        found: dict[str, _Stat] = {}
        seen: set[tuple[int, int]] = set()
        for root in self.roots:
            stack: list[tuple[str, int]] = [(root, 0)]
            while stack:
                path, depth = stack.pop()
                try:
                    st = os.stat(path)
                except OSError as exc:
                    if path == root:
                        self._note(f"{root}: {exc.strerror or exc}; looked at again")
                    continue  # gone between listing and looking: the next look says
                key = (st.st_dev, st.st_ino)
                if key in seen:
                    continue
                seen.add(key)
                if stat.S_ISREG(st.st_mode):
                    if len(found) >= MAX_FILES:
                        self._note(f"more than {MAX_FILES:,} files under {', '.join(self.roots)}: the rest not followed")
                        continue
                    found[path] = _stat(st)
                elif stat.S_ISDIR(st.st_mode):
                    if is_irc_month(path):
                        found[path] = _month_stat(path, st)
                    elif depth >= MAX_DEPTH:
                        self._note(f"{path}: deeper than {MAX_DEPTH} folders: not followed")
                    else:
                        try:
                            names = sorted(os.listdir(path), reverse=True)
                        except OSError as exc:
                            self._note(f"{path}: cannot list: {exc.strerror or exc}")
                            continue
                        stack.extend((os.path.join(path, n), depth + 1) for n in names)
        return found

    def look(self) -> tuple[list[Chunk], list[LogProblem]]:
        """One look at the folders: the chunks of the hands complete since the last look
        (each log advanced past them) and the problems met on the way."""
        now = self.clock()
        entries = self._entries()
        for path in [p for p in self.files if p not in entries]:
            del self.files[path]  # gone (or renamed: met again under its new name, from its top)
        chunks: list[Chunk] = []
        problems: list[LogProblem] = []
        for path in sorted(entries):
            st = entries[path]
            key, size, mtime = st.key, st.size, st.mtime
            seen = self.files.get(path)
            if seen is None or seen.key != key:
                # A file unchanged for the quiet time already (by the system's clock) is quiet now.
                old = time.time() - mtime / 1e9 >= self.settings.quiet
                seen = self.files[path] = _Seen(key, size, mtime, now - self.settings.quiet if old else now, None)
            elif (size, mtime) != (seen.size, seen.mtime):
                if size < seen.size and seen.log is not None:
                    seen.log.restart()  # cut short or rewritten: read again, known hands counted
                seen.size, seen.mtime, seen.changed = size, mtime, now
            if seen.log is None and not self._identify(path, seen):
                continue
            assert seen.log is not None
            quiet = now - seen.changed >= self.settings.quiet
            if seen.waiting is not None and now - seen.changed >= SAY_WAITING:
                # A hand begun and left unfinished for long: said once (and again at the end).
                self._note(f"waiting for {seen.waiting} (the file unchanged for {SAY_WAITING:g} s)")
            if seen.read_at == (size, mtime) and (seen.read_quiet or not quiet or seen.waiting is None):
                continue  # nothing new since it was read
            try:
                got = grown(seen.log, quiet_size=size if quiet else None, chunk_hands=self.options.chunk_hands,
                            network=self.options.network, acpc=self.options.acpc)
            except OSError as exc:
                self._note(f"{path}: cannot read: {exc.strerror or exc}; read again when it changes")
                seen.read_at = (size, mtime)
                continue
            seen.read_at, seen.read_quiet, seen.waiting = (size, mtime), quiet, got.waiting
            chunks += got.chunks
            problems += got.problems
        return chunks, problems

    def _identify(self, path: str, seen: _Seen) -> bool:
        """Whether the file is a log (sniffed once it has bytes, again as it grows while
        its first bytes name no format)."""
        if os.path.isdir(path):
            seen.log = Growing(IRC, path)
            return True
        if seen.size == 0 or seen.sniffed_at == seen.size or seen.sniffed_at >= SNIFF_BYTES:
            return False
        seen.sniffed_at = seen.size
        try:
            kind = sniff(path)
        except OSError as exc:
            self._note(f"{path}: cannot read: {exc.strerror or exc}")
            return False
        if kind is None:
            return False
        seen.log = Growing(kind, path)
        return True

    def waiting(self) -> list[str]:
        """The hands begun and not complete: where, and what each waits for."""
        return [s.waiting for _, s in sorted(self.files.items()) if s.waiting is not None]

    # ------------------------------------------------------------------ storing

    def step(self) -> ReplaySummary | None:
        """Look once and store what is complete; the batch's summary, or None when there
        was nothing to read."""
        chunks, problems = self.look()
        if not chunks and not problems:
            return None
        summary = replay_chunks(chunks, problems, self.options, on_problem=self.on_problem)
        self.totals.add(summary)
        return summary

    def run(self, stop: threading.Event, on_batch: Callable[[ReplaySummary], None] | None = None,
            on_note: Callable[[str], None] | None = None) -> FollowTotals:
        """Look and store every ``poll`` seconds until ``stop`` is set (a batch being
        stored is finished first); the totals, with the hands still waiting."""
        start = self.clock()
        while not stop.is_set():
            began = self.clock()
            summary = self.step()
            for note in self.notes:
                if on_note is not None:
                    on_note(note)
            self.notes.clear()
            if summary is not None and on_batch is not None:
                on_batch(summary)
            stop.wait(max(0.0, self.settings.poll - (self.clock() - began)))
        self.totals.seconds = self.clock() - start
        self.totals.waiting = self.waiting()
        return self.totals


def _month_stat(path: str, st: os.stat_result) -> _Stat:
    """An IRC month as one file: the folder's device and inode, its files' sizes summed and
    their latest modification time (hdb, hroster and pdb/*)."""
    size, mtime = 0, st.st_mtime_ns
    files = [os.path.join(path, "hdb"), os.path.join(path, "hroster")]
    pdb = os.path.join(path, "pdb")
    try:
        files += [os.path.join(pdb, n) for n in os.listdir(pdb)]
    except OSError:
        pass  # no pdb folder yet: the month's reader says what is missing
    for f in files:
        try:
            s = os.stat(f)
        except OSError:
            continue
        size += s.st_size
        mtime = max(mtime, s.st_mtime_ns)
    return _Stat((st.st_dev, st.st_ino), size, mtime)
