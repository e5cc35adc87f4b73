"""Reader for the IRC Poker Database hand logs (hdb / hroster / pdb.NICK): the files of a
month indexed and joined on each hand's timestamp, every hand built and checked by
connectors.logs.irc_hand, or skipped with a reason that names the file, the line and what
is wrong. The format and the types are in connectors.logs.irc_format; every public name of
it is also importable from here.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

from connectors.logs import bounded
from connectors.logs.bounded import RunCollector
from connectors.logs.irc_format import *  # noqa: F403  (the format's constants and types)
from connectors.logs.irc_format import PdbLine
from connectors.logs.irc_hand import HandRejected, build_hand

_new_tuple = tuple.__new__  # builds a NamedTuple without its __new__'s argument handling
CHECKPOINT = 1024  # hdb lines between the offsets IrcMonth keeps


# --------------------------------------------------------------------------- files


def find_month_folders(folder: Path | str) -> list[Path]:
    """Month folders (holding hdb, hroster and pdb/) at or under ``folder``.

    ``folder`` may be the month folder itself, a game folder (``holdem``) holding month
    folders, or a folder holding ``holdem/``.
    """
    folder = Path(folder)
    if (folder / "hdb").is_file():
        return [folder]
    for base in (folder, folder / "holdem"):
        if base.is_dir():
            months = sorted(p for p in base.iterdir() if p.is_dir() and (p / "hdb").is_file())
            if months:
                return months
    raise FileNotFoundError(f"no IRC poker month folder (with hdb, hroster, pdb/) in {folder}")


def _too_long(path: str, line: bounded.Line, stray: list[SkippedHand], runs: RunCollector) -> None:
    """A line of the month over the length cap: reported (in a run), never held."""
    _note(stray, runs.add(path, line.number, f"a line of {line.size:,} bytes, over the "
                                             f"{bounded.MAX_LINE_BYTES:,} a line may have", ""))


def _note(stray: list[SkippedHand], run: bounded.Run | None) -> None:
    """Keep a finished run of unusable lines as one stray (one problem, not one a line)."""
    if run is not None:
        stray.append(_run_problem(run))


def _run_problem(run: bounded.Run) -> SkippedHand:
    return SkippedHand(None, run.where, f"{MALFORMED}: {run.describe()}")


def _stray(path: str, lineno: int, why: str, text: str) -> SkippedHand:
    return SkippedHand(None, f"{path}:{lineno}", f"{MALFORMED}: {path} line {lineno}: {why}: {text[:80]!r}")


def _index_pdb(pdb_dir: Path, stray: list[SkippedHand]) -> dict[int, list[PdbLine]]:
    """Every pdb line of a month by hand timestamp; lines without one go to ``stray``
    (consecutive ones as one run)."""
    index: dict[int, list[PdbLine]] = {}
    get = index.get
    try:
        names = sorted(os.listdir(pdb_dir))
    except OSError as e:
        stray.append(SkippedHand(None, str(pdb_dir), f"{INCOMPLETE}: cannot list the pdb folder: {e}"))
        return index
    runs = RunCollector()
    for name in names:
        spath = os.path.join(pdb_dir, name)
        try:
            # Streamed; latin-1 maps every byte to one character, so odd bytes in a nick
            # never stop a read; splitting on '\n' alone keeps line numbers right.
            for line in bounded.lines(spath):
                lineno, _, raw, _ = line
                if raw is None:
                    _too_long(spath, line, stray, runs)
                    continue
                text = raw.decode("latin-1")
                head = text.split(None, 2)
                if not head:
                    continue
                try:
                    t = int(head[1])
                except (IndexError, ValueError):
                    _note(stray, runs.add(spath, lineno, "no hand timestamp in column 2", text))
                    continue
                if runs.run is not None:
                    _note(stray, runs.flush())
                entry = _new_tuple(PdbLine, (text, spath, lineno))
                bucket = get(t)
                if bucket is None:
                    index[t] = [entry]
                else:
                    bucket.append(entry)
        except OSError as e:
            stray.append(SkippedHand(None, spath, f"{INCOMPLETE}: cannot read {spath}: {e}"))
        _note(stray, runs.flush())
    return index


def _index_roster(path: Path, stray: list[SkippedHand]) -> dict[int, tuple[str, int]]:
    index: dict[int, tuple[str, int]] = {}
    spath = str(path)
    runs = RunCollector()
    try:
        for line in bounded.lines(path):
            lineno, _, raw, _ = line
            if raw is None:
                _too_long(spath, line, stray, runs)
                continue
            text = raw.decode("latin-1")
            head = text.split(None, 1)
            if not head:
                continue
            try:
                t = int(head[0])
            except ValueError:
                _note(stray, runs.add(spath, lineno, "no hand timestamp in column 1", text))
                continue
            if runs.run is not None:
                _note(stray, runs.flush())
            if t in index:
                stray.append(_stray(spath, lineno, f"a second hroster line for hand {t}", text))
                continue
            index[t] = (text, lineno)
    except OSError as e:
        stray.append(SkippedHand(None, spath, f"{INCOMPLETE}: cannot read {spath}: {e}"))
    _note(stray, runs.flush())
    return index


class NotRead(NamedTuple):
    """A hand the caller of :meth:`IrcMonth.read` chose to pass over (by its timestamp);
    nothing of it was built."""

    hand_id: int
    source: str  # hdb:line


class IrcMonth:
    """One month folder (hdb, hroster, pdb/) indexed once, so that any range of its hdb
    lines can be read on its own (:meth:`read`) with the same hands and problems, in the
    same order, as :func:`read_irc_month` gives for them; :meth:`strays` gives the rest.
    Building the index reads the whole month (the pdb files hold every player's line of
    every hand), so a reader of many ranges keeps one."""

    def __init__(self, folder: Path | str) -> None:
        folder = Path(folder)
        self.hdb_path = str(folder / "hdb")
        self.roster_path = str(folder / "hroster")
        # Lines no hand can own, found while indexing: hroster's first, then pdb's.
        self.index_problems: list[SkippedHand] = []
        self.roster = _index_roster(folder / "hroster", self.index_problems)
        self.pdb = _index_pdb(folder / "pdb", self.index_problems)
        # The first hdb line of each hand (a later line for the same hand is a problem),
        # and where every CHECKPOINT-th line starts, so a range of lines is read from
        # the file without the month's hdb held in memory.
        first: dict[int, int] = {}
        checkpoints: list[int] = []
        count = 0
        for line in bounded.lines(self.hdb_path):
            if (line.number - 1) % CHECKPOINT == 0:
                checkpoints.append(line.offset)
            count = line.number
            raw = line.raw
            if raw is None:
                continue
            # Split as read() splits (text, not bytes: the same whitespace).
            head = raw.decode("latin-1").split(None, 1)
            if head:
                try:
                    first.setdefault(int(head[0]), line.number)
                except ValueError:
                    pass
        self.first_line = first
        self._checkpoints = checkpoints
        self._count = count

    def __len__(self) -> int:
        """hdb lines (blank ones included)."""
        return self._count

    def _hdb_lines(self, start: int, end: int) -> Iterator[bounded.Line]:
        """hdb lines ``start + 1`` to ``end`` (numbers from 1), read from the nearest
        checkpoint before them."""
        if start >= end:
            return
        k = start // CHECKPOINT
        for line in bounded.lines(self.hdb_path, start=self._checkpoints[k], first=k * CHECKPOINT + 1,
                                  count=end - k * CHECKPOINT):
            if line.number > start:
                yield line

    def read(self, start: int = 0, stop: int | None = None,
             skip: Callable[[int], bool] | None = None) -> Iterator[IrcHand | SkippedHand | NotRead]:
        """The hands of hdb lines ``start + 1`` to ``stop`` (line numbers from 1; all of
        them by default), in order: each an IrcHand or a SkippedHand saying why not; a hand
        whose timestamp ``skip`` accepts comes out as NotRead, unbuilt. Consecutive lines
        without a hand (no timestamp, over-long) come out as one SkippedHand."""
        spath = self.hdb_path
        first = self.first_line
        roster_get = self.roster.get
        pdb_get = self.pdb.get
        end = self._count if stop is None else min(stop, self._count)
        runs = RunCollector()
        for line in self._hdb_lines(start, end):
            lineno = line.number
            raw = line.raw
            if raw is None:
                run = runs.add(spath, lineno, f"a line of {line.size:,} bytes, over the "
                                              f"{bounded.MAX_LINE_BYTES:,} a line may have", "")
                if run is not None:
                    yield _run_problem(run)
                continue
            text = raw.decode("latin-1")
            fields = text.split()
            if not fields:
                continue
            try:
                timestamp = int(fields[0])
            except ValueError:
                run = runs.add(spath, lineno, "no hand timestamp in column 1", text)
                if run is not None:
                    yield _run_problem(run)
                continue
            if runs.run is not None:
                yield _run_problem(runs.flush())  # type: ignore[arg-type]  # flush returns the run checked above
            source = f"{spath}:{lineno}"
            if first[timestamp] != lineno:
                yield SkippedHand(timestamp, source,
                                  f"{MALFORMED}: {spath} line {lineno}: a second hdb line for hand {timestamp}")
                continue
            if skip is not None and skip(timestamp):
                yield NotRead(timestamp, source)
                continue
            try:
                yield build_hand(timestamp, fields, source, spath, lineno, roster_get(timestamp),
                                  pdb_get(timestamp), self.roster_path)
            except HandRejected as e:
                yield SkippedHand(timestamp, source, e.reason)
        run = runs.flush()
        if run is not None:
            yield _run_problem(run)

    def strays(self) -> Iterator[SkippedHand]:
        """Lines of the month that belong to no hand of hdb: those found while indexing,
        then pdb lines and hroster lines of hands hdb does not have (category orphan)."""
        yield from self.index_problems
        hdb = self.first_line
        for t, lines in self.pdb.items():
            if t not in hdb:
                first = lines[0]
                yield SkippedHand(t, f"{first.path}:{first.line}",
                                  f"{ORPHAN}: {len(lines)} pdb line(s) for hand {t}, which hdb does not have")
        for t, (_, rline) in self.roster.items():
            if t not in hdb:
                yield SkippedHand(t, f"{self.roster_path}:{rline}",
                                  f"{ORPHAN}: an hroster line for hand {t}, which hdb does not have")


def read_irc_month(folder: Path | str, strict: bool = False) -> Iterator[IrcHand | SkippedHand]:
    """Read one month folder (hdb, hroster, pdb/): its hands in hdb order, then strays.

    Strays are lines that belong to no hand of hdb (category ``orphan``) or have no
    timestamp (``malformed``); each comes out as a ``SkippedHand``.
    """
    month = IrcMonth(folder)
    if strict and month.index_problems:
        s = month.index_problems[0]
        raise ParseError(s.source, s.reason, s.hand_id)
    for item in month.read():
        if strict and type(item) is SkippedHand:
            raise ParseError(item.source, item.reason, item.hand_id)
        yield item  # type: ignore[misc]  # no skip: never NotRead
    for s in month.strays():
        if strict:
            raise ParseError(s.source, s.reason, s.hand_id)
        yield s


def read_irc_database(folder: Path | str, strict: bool = False) -> Iterator[IrcHand | SkippedHand]:
    """Every hand of every month folder at or under ``folder`` (see ``find_month_folders``).

    Problems come out as ``SkippedHand`` and reading goes on; with ``strict`` the first
    problem raises ``ParseError`` instead. Hands with warnings are read.
    """
    for month in find_month_folders(folder):
        yield from read_irc_month(month, strict=strict)


