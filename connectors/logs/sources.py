"""The replay-log dealer's input side: find hand logs of every format we read, cut them
into chunks, and turn a chunk into tracker events; pure parsing, no tracker, no database.

Formats (one entry point, :func:`plan`, for files and folders of any of them):

* the IRC Poker Database (connectors.logs.irc_database): a month folder ``holdem/YYYYMM`` with
  ``hdb``, ``hroster`` and ``pdb/``, or a folder above such folders; hands become events
  through connectors.logs.irc_events;
* ACPC dealer logs (connectors.logs.acpc_log): files of ``STATE:`` lines. The betting sizes come
  from a game definition (connectors.acpc.game): the one given, else a file beside the
  log named as in the log's ``# name/game/hands/seed`` header or like the log with the
  suffix ``.game``, else the standard ACPC game the header names; single figures can be
  overridden (:class:`AcpcSettings`);
* PHH (connectors.logs.phh): ``.phh`` files of one hand, ``.phhs`` files of ``[key]`` tables;
* the online rooms' hand histories (connectors.logs.rooms and one reader a room:
  :data:`ROOM_READERS`), recognised by their content whatever the file is called, in
  whatever encoding the room wrote; fixed-limit hold'em cash games and tournaments are
  read, hands of other games are skipped and counted (``other-game``, and under their game:
  LogProblem.game), never an error of the file.

Every other file met is named (:class:`UnreadFile`, :func:`plan_logs`), with what it looks
like when connectors.logs.unread can tell.

A chunk (:class:`Chunk`) is a small picklable description of a range of one file's hands,
so chunks can be read in other processes; :func:`read_chunk` yields, in log order, a
:class:`LogHand` (a hand's events) or a :class:`LogProblem` (a hand or line that cannot be
used, with file, line and reason), or a :class:`KnownHand` for a hand the caller's
``skip`` recognised by its id before it was parsed further. Hand ids are stable and
prefixed by the format: ``irc:<timestamp>``; ``acpc:<match>:<hand number>:<digest>`` and
``phh:<hand>:<digest>``, where the digest of the hand's own text keeps apart the hands of
two matches that share a name and numbering, and recognises the same hand in a log read
again; a room's hands are ``<room>:<the room's hand number>:<digest>``
(``stars:2467687491:...``, rooms.hand_id), the digest of the hand's content: the same
hand read twice is one hand, another hand under a reused number another.

Logs still being written (``poki replay --follow``): :func:`grown` gives the chunks of
the hands complete since a :class:`Growing` log was last read, and what the rest waits
for (the section "Logs being written" says when a hand of each format is complete).

The IRC reader indexes a whole month before it can build any hand of it (the pdb files
hold every player's line of every hand); a process that reads chunks of a month keeps
that index (:func:`read_chunk` caches the last few files it opened), so each process
indexes each month once.
"""
from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
import re
import stat
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.config import ConfigError, TableConfig
from agent.game.events import Event, HandStarted
from agent.inputs import open_input
from connectors.acpc.game import AcpcGame, GameError, parse_game, standard_game
from connectors.logs import (
    absolute,
    acpc_log,
    boss,
    bounded,
    bovada,
    cake,
    entraction,
    everest,
    fulltilt,
    ipoker,
    irc_database,
    kingsclub,
    merge,
    ongame,
    pacific,
    partypoker,
    phh,
    pokerstars,
    rooms,
    seals,
    winamax,
    winning,
)
from connectors.logs import unread as unread_files
from connectors.logs.irc_events import IRC_NETWORK, irc_hand_events, irc_hand_id

__all__ = [
    "ACPC_NETWORK",
    "AcpcSettings",
    "Chunk",
    "Growing",
    "Grown",
    "IRC_NETWORK",
    "KnownHand",
    "LogHand",
    "LogProblem",
    "Plan",
    "UnreadFile",
    "PHH_NETWORK",
    "ROOM_READERS",
    "clear_cache",
    "grown",
    "is_irc_month",
    "preload",
    "plan",
    "plan_logs",
    "read_chunk",
    "sniff",
]

ACPC_NETWORK = "acpc"
PHH_NETWORK = "phh"

# Problem categories (the reader's own for IRC hands: connectors.logs.irc_database).
MALFORMED = irc_database.MALFORMED
BAD_CARD = irc_database.BAD_CARD
UNREADABLE = "unreadable"
UNKNOWN_FORMAT = "unknown-format"
NO_GAME = "no-game-definition"
OTHER_GAME = rooms.OTHER_GAME  # a room's hand of another game: skipped, counted, not an error
PARTIAL_HAND = rooms.PARTIAL_HAND  # a hand the room wrote only the start of: skipped, counted, not an error

LINK_LOOP = "link-loop"

IRC, IRC_STRAYS, ACPC, PHHS, PHH_FILES, ROOM = "irc", "irc-strays", "acpc", "phhs", "phh-files", "room"

# The online rooms' readers by the network their players are known on.
ROOM_READERS = {m.NETWORK: m for m in (pokerstars, fulltilt, ipoker, partypoker, ongame, absolute,
                                        boss, entraction, everest, kingsclub, merge,
                                        cake, bovada, winamax, pacific, winning, seals)}
# A room's file is streamed; real ones are a few megabytes at most, and this bounds the time one takes.
MAX_ROOM_FILE = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class LogHand:
    hand_id: str
    where: str  # file:line
    events: list[Event]


@dataclass(frozen=True, slots=True)
class LogProblem:
    """A hand or line that cannot be used, and why; ``where`` is file:line."""

    where: str
    category: str
    reason: str
    hand_id: str | None = None
    game: str | None = None  # a hand of another game (OTHER_GAME): the game, as rooms.OtherGame names it

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass(frozen=True, slots=True)
class KnownHand:
    """A hand the caller's ``skip`` recognised by its id; nothing else of it was read."""

    hand_id: str
    where: str


Item = LogHand | LogProblem | KnownHand


@dataclass(frozen=True, slots=True)
class AcpcSettings:
    """Where ACPC logs get their betting figures: ``game_file`` for every log, else the
    definition beside each log; each figure given here overrides the definition's."""

    game_file: str | None = None
    small_blind: int | None = None
    big_blind: int | None = None
    small_bet: int | None = None
    big_bet: int | None = None
    max_bets: int | None = None

    @property
    def complete(self) -> bool:
        return None not in (self.small_blind, self.big_blind, self.small_bet, self.big_bet, self.max_bets)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Units ``start`` to ``stop`` (0-based, stop excluded) of one log file: hdb lines of an
    IRC month, lines of an ACPC log, tables of a .phhs file, or the files of ``paths``."""

    kind: str
    path: str  # the IRC month folder, or the file
    start: int
    stop: int
    network: str
    units: int  # hands expected, for progress
    game: AcpcGame | str | None = None  # ACPC: the figures, or why there are none
    name: str = ""  # ACPC: the match name in hand ids; ROOM: the room (ROOM_READERS)
    paths: tuple[str, ...] = ()  # PHH_FILES
    offset: int = 0  # ACPC, PHHS: the byte offset of the chunk's first line
    first_line: int = 1  # ACPC, PHHS: that line's number


# --------------------------------------------------------------------------- finding logs


@dataclass(frozen=True, slots=True)
class UnreadFile:
    """A file met that is none of the formats we read, and what it looks like when that can
    be told (connectors.logs.unread)."""

    path: str
    looks_like: str | None

    def __str__(self) -> str:
        if self.looks_like is not None:
            return f"{self.path}: looks like {self.looks_like}: no reader for it"
        return f"{self.path}: not an IRC Poker Database month, an ACPC log, a PHH file or a hand history of a room read"


@dataclass(frozen=True, slots=True)
class Plan:
    """What :func:`plan_logs` found: the chunks to read, the problems met, the files that
    are no format we read (each named), and how many files and IRC months will be read."""

    chunks: list[Chunk]
    problems: list[LogProblem]
    unread: list[UnreadFile]
    inputs: int


_GAME_DEFINITION = "game-definition"


def _sniff(path: Path) -> tuple[str | None, str]:
    """The format of a file by its name or its first lines ('acpc', 'phh', 'room:<room>',
    'game-definition' or None) and the text of its first part (empty when the name said);
    OSError when it cannot be read (a FIFO or device is refused unread)."""
    suffix = path.suffix.lower()
    if suffix in (".phh", ".phhs"):
        return "phh", ""
    if suffix == ".game":
        return _GAME_DEFINITION, ""  # an ACPC game definition: read with the log beside it
    with open_input(path) as f:  # OSError for a file that cannot be read or is no regular file
        raw = f.read(8192)
    text = rooms.decode(raw)
    for network, reader in ROOM_READERS.items():
        if reader.identify(text):
            return f"room:{network}", text
    head = raw[:4096].decode("utf-8", "replace")
    for line in head.splitlines():
        line = line.strip()
        if line.startswith("STATE:") or line.startswith("# name/game/hands/seed"):
            return "acpc", text
    return None, text


def _is_irc_month(folder: Path) -> bool:
    try:
        return (folder / "hdb").is_file()
    except OSError:
        return False


def _walk(root: Path, found: list[tuple[str, Path]], problems: list[LogProblem], seen: set[tuple[int, int]],
          unread: list[UnreadFile]) -> None:
    """Every log at or under the folder ``root``, depth first in name order, without
    recursion (a tree deeper than the interpreter's stack is still walked). A folder or
    file reached a second time (a link to a folder above it, two links to one file) is
    recognised by its device and inode and read once; a path the system cannot use
    (too long, unreadable) is a problem and the walk goes on."""
    stack: list[Path] = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(folder.iterdir())
        except OSError as exc:
            problems.append(LogProblem(str(folder), UNREADABLE, f"{UNREADABLE}: cannot list {folder}: "
                                                                f"{exc.strerror or exc}"))
            continue
        folders = []
        for entry in entries:
            try:
                st = entry.stat()
            except OSError as exc:
                problems.append(LogProblem(str(entry), UNREADABLE,
                                           f"{UNREADABLE}: cannot read {entry}: {exc.strerror or exc}"))
                continue
            key = (st.st_dev, st.st_ino)
            if key in seen:
                if entry.is_symlink() and stat.S_ISDIR(st.st_mode):
                    problems.append(LogProblem(str(entry), LINK_LOOP,
                                               f"{LINK_LOOP}: {entry} leads to a folder already read; not read again"))
                continue
            seen.add(key)
            if stat.S_ISDIR(st.st_mode):
                if _is_irc_month(entry):
                    found.append(("irc", entry))
                else:
                    folders.append(entry)
                continue
            _found_file(entry, found, problems, False, unread)
        stack.extend(reversed(folders))


def _found_file(path: Path, found: list[tuple[str, Path]], problems: list[LogProblem], explicit: bool,
                unread: list[UnreadFile]) -> None:
    """A file met: a log found, or named in ``unread`` (given by name, also a problem)."""
    if path.name == "hdb" and _is_irc_month(path.parent):
        found.append(("irc", path.parent))
        return
    try:
        kind, head = _sniff(path)
    except OSError as exc:
        problems.append(LogProblem(f"{path}:1", UNREADABLE, f"{UNREADABLE}: cannot read {path}: {exc.strerror or exc}"))
        return
    if kind == _GAME_DEFINITION:
        return
    if kind is not None:
        found.append((kind, path))
        return
    file = UnreadFile(str(path), unread_files.looks_like(path, head))
    unread.append(file)
    if explicit:
        problems.append(LogProblem(f"{path}:1", UNKNOWN_FORMAT, f"{UNKNOWN_FORMAT}: {file}"))


def find_logs(paths: Sequence[str | Path], unread: list[UnreadFile] | None = None
              ) -> tuple[list[tuple[str, Path]], list[LogProblem]]:
    """Every log at or under ``paths`` as (format, path), in the order given and sorted
    within folders, each file and folder once however many links lead to it, and every
    other file named in ``unread``; FileNotFoundError for a path that does not exist."""
    unread = [] if unread is None else unread
    found: list[tuple[str, Path]] = []
    problems: list[LogProblem] = []
    seen: set[tuple[int, int]] = set()
    for p in paths:
        path = Path(p)
        try:
            st = path.stat()
        except FileNotFoundError:
            raise FileNotFoundError(f"no such file or folder: {p}") from None
        except OSError as exc:  # a link loop, a name too long
            if exc.errno == errno.ELOOP:
                problems.append(LogProblem(str(p), LINK_LOOP, f"{LINK_LOOP}: {p} is a loop of links; not read"))
            else:
                problems.append(LogProblem(str(p), UNREADABLE,
                                           f"{UNREADABLE}: cannot read {p}: {exc.strerror or exc}"))
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            continue
        seen.add(key)
        path = Path(os.path.abspath(path))
        if stat.S_ISDIR(st.st_mode):
            if _is_irc_month(path):
                found.append(("irc", path))
            else:
                _walk(path, found, problems, seen, unread)
        else:
            _found_file(path, found, problems, True, unread)
    if len({p for _, p in found}) != len(found):  # a month reached as a folder and as its hdb
        unique: dict[Path, str] = {}
        for kind, p in found:
            unique.setdefault(p, kind)
        found = [(kind, p) for p, kind in unique.items()]
    return found, problems


# --------------------------------------------------------------------------- planning


def _read_text(path: str | Path) -> str:
    # Undecodable bytes become U+FFFD, so the line holding them is reported, not the file.
    return bounded.read_small_text(path, "a game definition")


def _acpc_header(path: Path) -> tuple[str | None, str | None]:
    """(match name, game name) from the dealer's first comment line, if there is one."""
    for line in bounded.lines(path, count=20):
        if line.raw is None:
            continue
        words = line.raw.decode("utf-8", "replace").split()
        if len(words) >= 4 and words[0] == "#" and words[1] == "name/game/hands/seed":
            return words[2], words[3]
    return None, None


def _acpc_game(path: Path, game_name: str | None, settings: AcpcSettings) -> AcpcGame | str:
    """The figures of one log's game, or why there are none."""
    game: AcpcGame | None = None
    if settings.game_file is not None:
        game = parse_game(_read_text(settings.game_file), settings.game_file)  # checked by the caller
    else:
        # The dealer names the game file as it was given to it, possibly with a folder.
        game_name = Path(game_name).name if game_name else None
        beside = [path.parent / game_name] if game_name else []
        beside.append(path.with_suffix(".game"))
        for candidate in beside:
            if candidate.is_file():
                try:
                    game = parse_game(_read_text(candidate), str(candidate))
                except (GameError, OSError, ValueError) as exc:
                    return f"{NO_GAME}: {exc}"
                break
        if game is None and game_name:
            game = standard_game(game_name)
    if game is None:
        if not settings.complete:
            named = f"names the game {game_name!r}, which" if game_name else "names no game, and"
            return (f"{NO_GAME}: {path} {named} is neither a standard ACPC limit game nor a file "
                    f"beside the log; give --game FILE or --blinds, --bets and --cap")
        game = AcpcGame(None, 1, 1, 1, 1, 1)
    over = {k: getattr(settings, k) for k in ("small_blind", "big_blind", "small_bet", "big_bet", "max_bets")
            if getattr(settings, k) is not None}
    return dataclasses.replace(game, **over) if over else game


_TABLE_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(?:#.*)?$")
MAX_TABLE_BYTES = bounded.MAX_FILE_TEXT  # one hand's table in a .phhs file


def _phhs_header(raw: bytes | None) -> str | None:
    """The key of a ``[key]`` table header line, else None."""
    if raw is None or b"[" not in raw:
        return None
    m = _TABLE_HEADER.match(raw.decode("utf-8", "replace").rstrip("\r"))
    return None if m is None else m.group(1)


def _plan_by_lines(path: Path, per_chunk: int, is_unit: Callable[[bytes | None], bool]
                   ) -> list[tuple[int, int, int, int, int]]:
    """A file cut every ``per_chunk`` lines, streamed: (offset, first line number, start,
    stop, units) per chunk, lines counted from 0 and ``units`` the lines ``is_unit``
    accepts; one chunk for an empty file."""
    chunks: list[tuple[int, int, int, int, int]] = []
    offset, first, start, units, index = 0, 1, 0, 0, 0
    for line in bounded.lines(path):
        if index - start == per_chunk:
            chunks.append((offset, first, start, index, units))
            offset, first, start, units = line.offset, line.number, index, 0
        index += 1
        if is_unit(line.raw):
            units += 1
    if index > start or not chunks:
        chunks.append((offset, first, start, index, units))
    return chunks


def _plan_phhs(path: Path, per_chunk: int) -> list[tuple[int, int, int, int]]:
    """A .phhs file cut every ``per_chunk`` tables, streamed: (offset, first line number,
    start, stop) per chunk, tables counted from 0; each chunk starts at its first table's
    header, the first at the top of the file (text before any table is its to report).
    A file of no tables is one chunk of one (its text is all stray)."""
    chunks: list[tuple[int, int, int, int]] = []
    offset, first, start, tables = 0, 1, 0, 0
    for line in bounded.lines(path):
        if _phhs_header(line.raw) is not None:
            if tables - start == per_chunk:
                chunks.append((offset, first, start, tables))
                offset, first, start = line.offset, line.number, tables
            tables += 1
    chunks.append((offset, first, start, max(tables, start + 1)))
    return chunks


def _is_state(raw: bytes | None) -> bool:
    return raw is not None and raw.lstrip().startswith(b"STATE:")


def _holds_something(raw: bytes | None) -> bool:
    return raw is None or bool(raw.strip())


def plan(paths: Sequence[str | Path], *, chunk_hands: int = 1000, network: str | None = None,
         acpc: AcpcSettings = AcpcSettings()) -> tuple[list[Chunk], list[LogProblem]]:
    """The chunks and problems of :func:`plan_logs`."""
    found = plan_logs(paths, chunk_hands=chunk_hands, network=network, acpc=acpc)
    return found.chunks, found.problems


def plan_logs(paths: Sequence[str | Path], *, chunk_hands: int = 1000, network: str | None = None,
              acpc: AcpcSettings = AcpcSettings()) -> Plan:
    """The chunks of every log at or under ``paths``, in reading order, the problems
    found on the way (unreadable folders, a file given by name that is no known format)
    and every file met that is no format we read, named with what it looks like
    (connectors.logs.unread). ``network`` names the players' network for every log
    (default: one per format). FileNotFoundError for a path that does not exist;
    GameError for a bad ``acpc.game_file``. Files are read as streams: planning holds a
    few numbers a chunk, not the logs."""
    if chunk_hands < 1:
        raise ValueError(f"chunk_hands must be at least 1, got {chunk_hands}")
    if acpc.game_file is not None:
        try:
            parse_game(_read_text(acpc.game_file), acpc.game_file)
        except ValueError as exc:
            if isinstance(exc, GameError):
                raise
            raise GameError(str(exc)) from None
    unread: list[UnreadFile] = []
    found, problems = find_logs(paths, unread)
    chunks: list[Chunk] = []
    phh_files: list[str] = []

    def flush_phh_files() -> None:
        for i in range(0, len(phh_files), chunk_hands):
            group = tuple(phh_files[i:i + chunk_hands])
            chunks.append(Chunk(PHH_FILES, group[0], 0, len(group), network or PHH_NETWORK, len(group),
                                paths=group))
        phh_files.clear()

    for kind, path in found:
        if kind != "phh" or path.suffix.lower() == ".phhs":
            flush_phh_files()
        spath = str(path)
        try:
            if kind == "irc":
                net = network or IRC_NETWORK
                cut = _plan_by_lines(path / "hdb", chunk_hands, _holds_something)
                chunks.append(Chunk(IRC_STRAYS, spath, 0, 0, net, 0))
                for _, _, start, stop, units in cut:
                    if stop > start:
                        chunks.append(Chunk(IRC, spath, start, stop, net, units))
            elif kind == "acpc":
                name, game_name = _acpc_header(path)
                game = _acpc_game(path, game_name, acpc)
                for offset, first, start, stop, units in _plan_by_lines(path, chunk_hands, _is_state):
                    chunks.append(Chunk(ACPC, spath, start, stop, network or ACPC_NETWORK, units,
                                        game=game, name=name or path.stem, offset=offset, first_line=first))
            elif kind.startswith("room:"):
                room = kind.split(":", 1)[1]
                try:
                    hands = sum(1 for _ in _room_stream(spath, room))  # counted as streamed, not held
                except rooms.RoomError as exc:  # the reader refused the file (hostile XML): its problem only
                    problems.append(_room_refused(spath, exc))
                    continue
                count = max(1, hands)  # a file of no hand is reported once
                for start in range(0, count, chunk_hands):
                    stop = min(count, start + chunk_hands)
                    chunks.append(Chunk(ROOM, spath, start, stop, network or room, stop - start, name=room))
            elif path.suffix.lower() == ".phhs":
                for offset, first, start, stop in _plan_phhs(path, chunk_hands):
                    chunks.append(Chunk(PHHS, spath, start, stop, network or PHH_NETWORK, stop - start,
                                        offset=offset, first_line=first))
            else:
                phh_files.append(spath)
        except OSError as exc:
            problems.append(LogProblem(f"{spath}:1", UNREADABLE, f"{UNREADABLE}: cannot read {spath}: "
                                                                 f"{exc.strerror or exc}"))
    flush_phh_files()
    inputs = len({c.path for c in chunks if c.kind != PHH_FILES} | {p for c in chunks for p in c.paths})
    return Plan(chunks, problems, unread, inputs)


# --------------------------------------------------------------------------- reading

_cache: OrderedDict[tuple[str, str], object] = OrderedDict()
_CACHE_SIZE = 2


def clear_cache() -> None:
    """Forget the files read so far (a caller about to read logs that may have changed)."""
    _cache.clear()


def _cached(kind: str, path: str, build: Callable[[], object]) -> object:
    key = (kind, path)
    value = _cache.get(key)
    if value is None:
        value = build()
        _cache[key] = value
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    else:
        _cache.move_to_end(key)
    return value


def read_chunk(chunk: Chunk, skip: Callable[[str], bool] | None = None) -> Iterator[Item]:
    """The hands and problems of one chunk, in log order. ``skip(hand_id)`` True: the
    hand comes out as a KnownHand without being parsed further."""
    try:
        if chunk.kind == IRC:
            yield from _irc_hands(chunk, skip)
        elif chunk.kind == IRC_STRAYS:
            yield from _irc_strays(chunk)
        elif chunk.kind == ACPC:
            yield from _acpc_hands(chunk, skip)
        elif chunk.kind == PHHS:
            yield from _phhs_hands(chunk, skip)
        elif chunk.kind == PHH_FILES:
            yield from _phh_files(chunk, skip)
        elif chunk.kind == ROOM:
            yield from _room_hands(chunk, skip)
        else:
            raise ValueError(f"unknown chunk kind {chunk.kind!r}")
    except OSError as exc:
        yield LogProblem(f"{chunk.path}:{chunk.start + 1}", UNREADABLE,
                         f"{UNREADABLE}: cannot read {chunk.path}: {exc}")


# IRC ----------------------------------------------------------------------------------------


def preload(chunks: Sequence[Chunk]) -> None:
    """Index now the first IRC months ``chunks`` read (as many as the cache keeps), so
    that worker processes forked afterwards inherit the index instead of each building
    its own. A month that cannot be read is left for read_chunk to report."""
    paths: list[str] = []
    for c in chunks:
        if (c.kind == IRC or c.kind == IRC_STRAYS) and c.path not in paths:
            paths.append(c.path)
    for path in paths[:_CACHE_SIZE]:
        try:
            _month(path)
        except OSError:
            pass


def _month(path: str) -> irc_database.IrcMonth:
    return _cached(IRC, path, lambda: irc_database.IrcMonth(path))  # type: ignore[return-value]  # the cache returns what the loader made


def _irc_problem(s: irc_database.SkippedHand) -> LogProblem:
    return LogProblem(s.source, s.category, s.reason, None if s.hand_id is None else irc_hand_id(s.hand_id))


def _irc_hands(chunk: Chunk, skip: Callable[[str], bool] | None) -> Iterator[Item]:
    month = _month(chunk.path)
    known = None if skip is None else (lambda timestamp: skip(irc_hand_id(timestamp)))
    hand_type, not_read = irc_database.IrcHand, irc_database.NotRead
    for item in month.read(chunk.start, chunk.stop, known):
        # isinstance narrows the union for mypy, and on an exact type it costs no more
        # than a type() comparison (CPython checks the exact type first)
        if isinstance(item, hand_type):
            yield LogHand(irc_hand_id(item.hand_id), item.source, irc_hand_events(item))
        elif isinstance(item, not_read):
            yield KnownHand(irc_hand_id(item.hand_id), item.source)
        else:
            yield _irc_problem(item)


def _irc_strays(chunk: Chunk) -> Iterator[Item]:
    """Lines of the month that belong to no hand: those without a timestamp, and pdb and
    hroster lines of hands hdb does not have."""
    for s in _month(chunk.path).strays():
        yield _irc_problem(s)


# ACPC ---------------------------------------------------------------------------------------


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=6).hexdigest()


def _category(message: str) -> str:
    low = message.lower()
    if "not a card" in low or "cannot read cards" in low or "unknown card" in low:
        return BAD_CARD
    return MALFORMED


def _run_item(run: bounded.Run | None) -> LogProblem | None:
    """A run of unusable lines as one problem."""
    if run is None:
        return None
    return LogProblem(run.where, MALFORMED, f"{MALFORMED}: {run.describe()}")


def _too_long(line: bounded.Line) -> str:
    return f"a line of {line.size:,} bytes, over the {bounded.MAX_LINE_BYTES:,} a line may have"


def _acpc_hands(chunk: Chunk, skip: Callable[[str], bool] | None) -> Iterator[Item]:
    game = chunk.game
    table = None
    if isinstance(game, AcpcGame):
        try:
            table = TableConfig(small_blind=game.small_blind, big_blind=game.big_blind, small_bet=game.small_bet,
                                big_bet=game.big_bet, max_bets=game.max_bets)
        except ConfigError as exc:
            game = f"{NO_GAME}: {exc}"
    runs = bounded.RunCollector()
    path = chunk.path
    for line in bounded.lines(path, start=chunk.offset, first=chunk.first_line, count=chunk.stop - chunk.start):
        lineno = line.number
        if line.raw is None:
            problem = _run_item(runs.add(path, lineno, _too_long(line), ""))
            if problem is not None:
                yield problem
            continue
        text = line.raw.decode("utf-8", "replace").strip()
        if not text or text.startswith("#") or text.startswith("SCORE:"):
            continue
        if not text.startswith("STATE:"):
            problem = _run_item(runs.add(path, lineno, "not a STATE or SCORE line", text))
            if problem is not None:
                yield problem
            continue
        if runs.run is not None:
            yield _run_item(runs.flush())  # type: ignore[misc]  # flush returns the run checked above
        where = f"{path}:{lineno}"
        try:
            hand = acpc_log.parse_state(text, where)
        except acpc_log.AcpcLogError as exc:
            yield LogProblem(where, _category(str(exc)), f"{_category(str(exc))}: {exc}")
            continue
        hand_id = f"acpc:{chunk.name}:{hand.hand_number}:{_digest(text)}"
        if table is None:
            yield LogProblem(where, NO_GAME, str(game), hand_id)
            continue
        assert isinstance(game, AcpcGame)
        if game.players is not None and len(hand.players) != game.players:
            yield LogProblem(where, MALFORMED, f"{MALFORMED}: {where}: {len(hand.players)} players in a game of "
                                               f"{game.players}", hand_id)
            continue
        if skip is not None and skip(hand_id):
            yield KnownHand(hand_id, where)
            continue
        events = acpc_log.hand_events(hand, table, stack=game.stack, source=where, hand_id=hand_id)
        started = events[0]
        assert isinstance(started, HandStarted)
        events[0] = dataclasses.replace(started, source=where)
        yield LogHand(hand_id, where, events)
    problem = _run_item(runs.flush())
    if problem is not None:
        yield problem


# PHH ----------------------------------------------------------------------------------------


def _phh_hand(text: str, where: str, label: str, skip: Callable[[str], bool] | None) -> Item:
    try:
        hand = phh.parse_hand(text, where)
    except phh.PhhError as exc:
        return LogProblem(where, _category(str(exc)), f"{_category(str(exc))}: {exc}")
    hand_id = f"phh:{hand.hand if hand.hand is not None else label}:{_digest(text)}"
    if skip is not None and skip(hand_id):
        return KnownHand(hand_id, where)
    try:
        events = phh.hand_events(hand, source=where, hand_id=hand_id)
    except phh.PhhError as exc:
        return LogProblem(where, _category(str(exc)), f"{_category(str(exc))}: {exc}", hand_id)
    return LogHand(hand_id, where, events)


class _Table:
    """A .phhs table being read: its key, header line and body, bounded in size."""

    __slots__ = ("key", "line", "body", "size")

    def __init__(self, key: str, line: int) -> None:
        self.key, self.line, self.size = key, line, 0
        self.body: list[str] | None = []  # None once the table is too large to parse

    def add(self, text: str, size: int) -> None:
        if self.body is not None:
            self.size += size
            if self.size > MAX_TABLE_BYTES:
                self.body = None  # too large for one hand: reported, never parsed
            else:
                self.body.append(text)


def _phhs_hands(chunk: Chunk, skip: Callable[[str], bool] | None) -> Iterator[Item]:
    """The tables ``start`` to ``stop`` of a .phhs file, streamed from the chunk's first
    line; text outside any table is reported (a run of such lines as one problem)."""
    path = chunk.path
    stem = Path(path).stem
    wanted = chunk.stop - chunk.start
    runs = bounded.RunCollector()
    table: _Table | None = None
    taken = 0
    ended_with_newline = False
    for line in bounded.lines(path, start=chunk.offset, first=chunk.first_line):
        raw = line.raw
        key = _phhs_header(raw)
        if key is not None:
            problem = _run_item(runs.flush())  # stray text ends where a table begins
            if problem is not None:
                yield problem
            if table is not None:
                yield _table_item(path, stem, table, skip)
            if taken == wanted:
                table = None
                break  # the next chunk's first table
            taken += 1
            table = _Table(key, line.number)
            continue
        if raw is None:
            if table is not None:
                table.add("", line.size)
            else:
                problem = _run_item(runs.add(path, line.number, _too_long(line), ""))
                if problem is not None:
                    yield problem
            continue
        text = raw.decode("utf-8", "replace")
        ended_with_newline = line.size > len(raw)
        if table is not None:
            table.add(text, line.size)
            continue
        if text.split("#", 1)[0].strip():
            problem = _run_item(runs.add(path, line.number, "text outside any [hand] table", text.strip()))
            if problem is not None:
                yield problem
    else:
        if table is not None:
            if ended_with_newline and table.body is not None:
                table.body.append("")  # the file's last line end, as a table's text has always had it
            yield _table_item(path, stem, table, skip)
    problem = _run_item(runs.flush())
    if problem is not None:
        yield problem


def _table_item(path: str, stem: str, table: _Table, skip: Callable[[str], bool] | None) -> Item:
    where = f"{path}:{table.line}"
    if table.body is None:
        return LogProblem(where, MALFORMED, f"{MALFORMED}: {where}: the table [{table.key[:40]}] is larger than "
                                            f"{MAX_TABLE_BYTES:,} bytes, too large for one hand")
    return _phh_hand("\n".join(table.body), where, f"{stem}:{table.key}", skip)


def _phh_files(chunk: Chunk, skip: Callable[[str], bool] | None) -> Iterator[Item]:
    for path in chunk.paths:
        try:
            text = bounded.read_small_text(path, "one hand")
        except OSError as exc:
            yield LogProblem(f"{path}:1", UNREADABLE, f"{UNREADABLE}: cannot read {path}: {exc.strerror or exc}")
            continue
        except ValueError as exc:
            yield LogProblem(f"{path}:1", MALFORMED, f"{MALFORMED}: {exc}")
            continue
        yield _phh_hand(text, f"{path}:1", Path(path).stem, skip)


# Online rooms ---------------------------------------------------------------------------------


class _TooLarge(OSError):
    pass


_BLOCK = 1 << 16


def _room_stream(path: str, room: str) -> Iterator[rooms.HandText]:
    """The hands of a room's file, streamed through its reader: the file is read in
    blocks, never whole; _TooLarge past MAX_ROOM_FILE bytes (a bound on the time a file
    may take), RoomError when the reader refuses the file whole."""
    with open_input(path) as f:
        def blocks() -> Iterator[bytes]:
            size = 0
            while block := f.read(_BLOCK):
                size += len(block)
                if size > MAX_ROOM_FILE:
                    raise _TooLarge(f"{path} is larger than {MAX_ROOM_FILE:,} bytes")
                yield block

        yield from ROOM_READERS[room].read_hands(blocks())


def _room_refused(path: str, exc: rooms.RoomError) -> LogProblem:
    return LogProblem(f"{path}:1", MALFORMED, f"{MALFORMED}: {path}: {str(exc).removeprefix(': ')}")


def _room_hands(chunk: Chunk, skip: Callable[[str], bool] | None) -> Iterator[Item]:
    parse = ROOM_READERS[chunk.name].parse_hand
    seen = 0
    try:
        for index, found in enumerate(_room_stream(chunk.path, chunk.name)):
            seen += 1
            if index < chunk.start:
                continue
            if index >= chunk.stop:
                return
            yield _room_hand(chunk, parse, found, skip)
    except rooms.RoomError as exc:  # refused whole (the file changed since it was planned)
        yield _room_refused(chunk.path, exc)
        return
    if not seen and chunk.start == 0:
        yield LogProblem(f"{chunk.path}:1", MALFORMED, f"{MALFORMED}: {chunk.path}:1: no hand found in a file "
                                                        f"that looks like the room's ({chunk.name})")


def _room_hand(chunk: Chunk, parse: Callable[[str, str], rooms.RoomHand], found: rooms.HandText,
               skip: Callable[[str], bool] | None) -> Item:
    where = f"{chunk.path}:{found.line}"
    if found.text is None or found.size > rooms.MAX_HAND_CHARS:
        return LogProblem(where, MALFORMED, f"{MALFORMED}: {where}: a hand of {found.size:,} characters, more "
                                            f"than {rooms.MAX_HAND_CHARS:,}")
    try:
        hand = parse(found.text, where)
    except rooms.OtherGame as exc:
        return LogProblem(where, OTHER_GAME, f"{OTHER_GAME}: {exc}", game=exc.game)
    except rooms.PartialHand as exc:
        return LogProblem(where, PARTIAL_HAND, f"{PARTIAL_HAND}: {exc}")
    except rooms.RoomError as exc:
        return LogProblem(where, _category(str(exc)), f"{_category(str(exc))}: {exc}")
    hand_id = rooms.hand_id(hand)
    if skip is not None and skip(hand_id):
        return KnownHand(hand_id, where)
    try:
        events = rooms.hand_events(hand)
    except rooms.RoomError as exc:
        return LogProblem(where, _category(str(exc)), f"{_category(str(exc))}: {exc}", hand_id)
    return LogHand(hand_id, where, events)


# Logs being written -------------------------------------------------------------------------
#
# What agent.play.offline.follow needs to read a log while a room's client, a dealer or the
# IRC dealer is still writing it: which of its hands are complete, as chunks of the hands
# not read yet, so that read_chunk (the one reader) reads them and nothing else. When a
# hand is complete, by format:
#
# * a room's text file: when the next hand's start line is there; the last hand of the
#   file, when the file has been quiet (``quiet``), its last line has its line end and the
#   hand parses whole (the rake's summary line read: a hand cut before it never parses);
# * an iPoker session: a game at its end tag, only (the reader reads a game cut short as
#   far as it goes, so a cut game may parse: it is waited for however long it is quiet);
# * an ACPC log: a line at its line end (each hand is one line, written whole with its end
#   by the dealers); a last line without one is waited for however long the file is quiet;
# * a .phhs file: a table when the next table's header is there; the last table, when the
#   file is quiet, ends in a line end and the table reads as a whole hand;
# * a .phh file (one hand) and an IRC Poker Database month: read whole once quiet (and
#   again after every change, once quiet again); hands stored already are known by id.


WHOLE_KINDS = ("phh", IRC)  # read whole when quiet, not followed hand by hand


@dataclass(slots=True)
class Growing:
    """How far a log being written has been read: ``done`` units (hands of a room's file,
    lines of an ACPC log, tables of a .phhs file) taken, and for ACPC and .phhs logs the
    byte offset and line number after them. ``kind`` is as :func:`find_logs` names it
    ('room:<room>', 'acpc', 'phh' or 'irc'); ``refused``: the reader refused the file
    whole (it is reported once, and not read again until it is replaced)."""

    kind: str
    path: str
    done: int = 0
    offset: int = 0
    line: int = 1
    refused: bool = False

    def restart(self) -> None:
        """From the top again (the file was replaced or cut short): the hands read before
        are met again and known by their ids."""
        self.done, self.offset, self.line, self.refused = 0, 0, 1, False


@dataclass(frozen=True, slots=True)
class Grown:
    """What a log being written holds beyond what was read: ``chunks`` of complete hands
    to read (in order), ``problems`` met finding them, and ``waiting``: the hand begun and
    not complete yet (where, and what it waits for), or None."""

    chunks: list[Chunk]
    problems: list[LogProblem]
    waiting: str | None


def sniff(path: str | Path) -> str | None:
    """The format of a file by its name or first bytes, as :func:`find_logs` names it
    ('room:<room>', 'acpc', 'phh'), or None; OSError when it cannot be read."""
    return _sniff(Path(path))[0]


def is_irc_month(folder: str | Path) -> bool:
    """Whether ``folder`` is an IRC Poker Database month (it holds ``hdb``)."""
    return _is_irc_month(Path(folder))


def grown(log: Growing, *, quiet_size: int | None, chunk_hands: int = 1000, network: str | None = None,
          acpc: AcpcSettings = AcpcSettings()) -> Grown:
    """The complete hands of ``log`` not read yet (see above), as chunks for
    :func:`read_chunk`; ``log`` is advanced past them. ``quiet_size``: the size the file
    kept for the caller's quiet time (None: it is not quiet); the file is quiet only if
    it still has that size once read (appended to, it would be larger), so a last hand
    is judged on exactly the bytes that were quiet. OSError when the log cannot be read."""
    if log.refused:
        return Grown([], [], None)
    if log.kind.startswith("room:"):
        return _grown_room(log, quiet_size, network)
    if log.kind == "acpc":
        return _grown_acpc(log, chunk_hands, network, acpc)
    if log.kind == "phh" and Path(log.path).suffix.lower() == ".phhs":
        return _grown_phhs(log, quiet_size, chunk_hands, network)
    if log.kind in WHOLE_KINDS:
        return _grown_whole(log, _still(log.path, quiet_size), chunk_hands, network, acpc)
    raise ValueError(f"unknown kind of log {log.kind!r}")


def _still(path: str, quiet_size: int | None) -> bool:
    """Whether a file that kept ``quiet_size`` bytes for the quiet time still has them."""
    if quiet_size is None:
        return False
    if os.path.isdir(path):
        return True  # an IRC month: the caller's sizes are its files' (nothing read yet)
    return os.stat(path).st_size == quiet_size


def _grown_room(log: Growing, quiet_size: int | None, network: str | None) -> Grown:
    room = log.kind.split(":", 1)[1]
    start, complete = log.done, log.done
    last: rooms.HandText | None = None
    try:
        for index, found in enumerate(_room_stream(log.path, room)):
            if index < start:
                continue
            if found.ended:
                complete = index + 1
            else:
                last = found  # the hand the file ends in: only ever the last one
    except (rooms.RoomError, OSError):
        # Refused whole (hostile XML, too large) or unreadable: read_chunk says which.
        log.refused = True
        return Grown([Chunk(ROOM, log.path, start, start + 1, network or room, 1, name=room)], [], None)
    waiting = None
    if last is not None:
        quiet = _still(log.path, quiet_size)
        why = _room_incomplete(room, last, f"{log.path}:{last.line}") if quiet else "the file is being written"
        if why is None:
            complete += 1
        else:
            waiting = f"{log.path}:{last.line}: {why}"
    log.done = complete
    chunks = [] if complete == start else [Chunk(ROOM, log.path, start, complete, network or room, complete - start,
                                                 name=room)]
    return Grown(chunks, [], waiting)


# The rooms whose hands are XML (connectors.logs.ipoker, connectors.logs.xml_room).
_XML_ROOMS = frozenset({ipoker.NETWORK, boss.NETWORK, everest.NETWORK, merge.NETWORK})


def _room_incomplete(room: str, found: rooms.HandText, where: str) -> str | None:
    """Why the hand a quiet file ends in is not complete yet, or None when it is."""
    if found.text is None:
        return None  # too long to be a hand whatever comes: read_chunk reports it
    if room in _XML_ROOMS:
        # An XML room's reader reads a hand cut short as far as it goes: only the next hand's
        # start (or, for iPoker, the game's end tag) ends it.
        return "its end is not written yet (the next hand has not begun)"
    if not found.text.endswith("\n"):
        return "its last line has no line end yet"
    try:
        ROOM_READERS[room].parse_hand(found.text, where)
    except rooms.OtherGame:
        return None  # complete enough to know it is another game's: counted
    except rooms.RoomError as exc:
        # The reader's message names the file and line: the hand's own lines (+N) are enough here.
        return f"it does not read whole yet ({str(exc).removeprefix(where).lstrip(': ')[:120]})"
    return None


def _grown_acpc(log: Growing, chunk_hands: int, network: str | None, acpc: AcpcSettings) -> Grown:
    """The lines of an ACPC log with their line ends, from ``log.offset``, in chunks."""
    cuts: list[tuple[int, int, int, int]] = []  # offset, first line, lines, STATE lines
    offset, first, count, units = log.offset, log.line, 0, 0
    end, end_line = log.offset, log.line  # past the last line counted
    last: bounded.Line | None = None

    def take(line: bounded.Line) -> None:
        nonlocal offset, first, count, units, end, end_line
        count, units = count + 1, units + _is_state(line.raw)
        end, end_line = line.offset + line.size, line.number + 1
        if count == chunk_hands:
            cuts.append((offset, first, count, units))
            offset, first, count, units = end, end_line, 0, 0

    for line in bounded.lines(log.path, start=log.offset, first=log.line):
        if last is not None:
            take(last)  # a line with another after it has its line end
        last = line
    waiting = None
    if last is not None:
        # The last line counts once its line end is written: the byte it ends with, read
        # now, is a line end only if it was one when the line was read.
        with open_input(log.path) as f:
            f.seek(last.offset + last.size - 1)
            ended = f.read(1) == b"\n"
        if ended:
            take(last)
        else:
            waiting = f"{log.path}:{last.number}: a line without its line end yet"
    if count:
        cuts.append((offset, first, count, units))
    if not cuts:
        return Grown([], [], waiting)
    name, game_name = _acpc_header(Path(log.path))
    game = _acpc_game(Path(log.path), game_name, acpc)
    chunks = []
    for offset, first, count, units in cuts:
        chunks.append(Chunk(ACPC, log.path, log.done, log.done + count, network or ACPC_NETWORK, units, game=game,
                            name=name or Path(log.path).stem, offset=offset, first_line=first))
        log.done += count
    log.offset, log.line = end, end_line
    return Grown(chunks, [], waiting)


def _grown_phhs(log: Growing, quiet_size: int | None, chunk_hands: int, network: str | None) -> Grown:
    """The tables of a .phhs file from ``log.offset`` (the header of table ``log.done``,
    or the top), in chunks; the last one once it reads whole in a quiet file."""
    headers: list[tuple[int, int]] = []  # offset, line number of each table's header
    last: bounded.Line | None = None
    for line in bounded.lines(log.path, start=log.offset, first=log.line):
        if _phhs_header(line.raw) is not None:
            headers.append((line.offset, line.number))
        last = line
    if not headers:
        return Grown([], [], None)  # no table begun (text before the first is read with it)
    complete = len(headers) - 1  # each followed by the next one's header
    waiting = None
    tail = Chunk(PHHS, log.path, 0, 1, network or PHH_NETWORK, 1, offset=headers[-1][0], first_line=headers[-1][1])
    where = f"{log.path}:{headers[-1][1]}"
    if not _still(log.path, quiet_size):
        waiting = f"{where}: the file is being written"
    else:
        assert last is not None
        with open_input(log.path) as f:
            f.seek(last.offset + last.size - 1)
            ended = f.read(1) == b"\n"
        item = next(iter(_phhs_hands(tail, None)), None) if ended else None
        if isinstance(item, LogHand):
            complete += 1
        else:
            why = "its last line has no line end yet" if not ended else \
                f"it does not read whole yet ({'' if item is None else str(item)[:120]})"
            waiting = f"{where}: {why}"
    chunks = []
    start, offset, first = log.done, log.offset, log.line
    for i in range(0, complete, chunk_hands):
        stop = min(complete, i + chunk_hands)
        chunks.append(Chunk(PHHS, log.path, start + i, start + stop, network or PHH_NETWORK, stop - i,
                            offset=offset, first_line=first))
        if stop < len(headers):
            offset, first = headers[stop]
    log.done = start + complete
    if complete < len(headers):
        log.offset, log.line = headers[complete]
    else:
        assert last is not None
        log.offset, log.line = last.offset + last.size, last.number + 1
    return Grown(chunks, [], waiting)


def _grown_whole(log: Growing, quiet: bool, chunk_hands: int, network: str | None, acpc: AcpcSettings) -> Grown:
    """A .phh file or an IRC month, read whole once quiet (the caller asks again after
    every change); a .phh file once its hand reads whole."""
    if not quiet:
        return Grown([], [], f"{log.path}: the file is being written")
    chunks, problems = plan([log.path], chunk_hands=chunk_hands, network=network, acpc=acpc)
    if log.kind == "phh":
        item = next(iter(read_chunk(chunks[0])), None) if chunks else None
        if not isinstance(item, LogHand):
            return Grown([], [], f"{log.path}:1: it does not read whole yet ({'' if item is None else str(item)[:120]})")
    log.done = 1
    return Grown(chunks, problems, None)
