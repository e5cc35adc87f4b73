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
  pokerstars, fulltilt, ipoker, partypoker, ongame, absolute), recognised by their
  content whatever the file is called, in whatever encoding the room wrote; fixed-limit
  hold'em cash games are read, hands of other games are skipped and counted
  (``other-game``), never an error of the file.

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
    bounded,
    fulltilt,
    ipoker,
    irc_database,
    ongame,
    partypoker,
    phh,
    pokerstars,
    rooms,
)
from connectors.logs.irc_events import IRC_NETWORK, irc_hand_events, irc_hand_id

__all__ = [
    "ACPC_NETWORK",
    "AcpcSettings",
    "Chunk",
    "IRC_NETWORK",
    "KnownHand",
    "LogHand",
    "LogProblem",
    "PHH_NETWORK",
    "ROOM_READERS",
    "clear_cache",
    "legacy_hand_id",
    "preload",
    "plan",
    "read_chunk",
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

LINK_LOOP = "link-loop"

IRC, IRC_STRAYS, ACPC, PHHS, PHH_FILES, ROOM = "irc", "irc-strays", "acpc", "phhs", "phh-files", "room"

# The online rooms' readers by the network their players are known on.
ROOM_READERS = {m.NETWORK: m for m in (pokerstars, fulltilt, ipoker, partypoker, ongame, absolute)}
# A room's file is streamed; real ones are a few megabytes at most, and this bounds the time one takes.
MAX_ROOM_FILE = 256 * 1024 * 1024
_ROOM_ID = re.compile(r"(?P<old>(?P<room>[^:]+):.+):[0-9a-f]{12}")


def legacy_hand_id(hand_id: str) -> str | None:
    """The id an older Poki stored a room's hand under: ``<room>:<number>``, without the
    digest of its content (rooms.hand_id); None for an id of another kind. The writer
    compares the hand stored under it with the one it is given (db.legacy)."""
    m = _ROOM_ID.fullmatch(hand_id)
    return m["old"] if m is not None and m["room"] in ROOM_READERS else None


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


def _sniff(path: Path) -> str | None:
    """The format of a file by its name or its first lines: 'acpc', 'phh', 'room:<room>'
    or None; OSError when it cannot be read (a FIFO or device is refused unread)."""
    suffix = path.suffix.lower()
    if suffix in (".phh", ".phhs"):
        return "phh"
    if suffix == ".game":
        return None
    with open_input(path) as f:  # OSError for a file that cannot be read or is no regular file
        raw = f.read(8192)
    text = rooms.decode(raw)
    for network, reader in ROOM_READERS.items():
        if reader.identify(text):
            return f"room:{network}"
    head = raw[:4096].decode("utf-8", "replace")
    for line in head.splitlines():
        line = line.strip()
        if line.startswith("STATE:") or line.startswith("# name/game/hands/seed"):
            return "acpc"
    return None


def _is_irc_month(folder: Path) -> bool:
    try:
        return (folder / "hdb").is_file()
    except OSError:
        return False


def _walk(root: Path, found: list[tuple[str, Path]], problems: list[LogProblem], seen: set[tuple[int, int]]) -> None:
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
            _found_file(entry, found, problems, False)
        stack.extend(reversed(folders))


def _found_file(path: Path, found: list[tuple[str, Path]], problems: list[LogProblem], explicit: bool) -> None:
    if path.name == "hdb" and _is_irc_month(path.parent):
        found.append(("irc", path.parent))
        return
    try:
        kind = _sniff(path)
    except OSError as exc:
        problems.append(LogProblem(f"{path}:1", UNREADABLE, f"{UNREADABLE}: cannot read {path}: {exc.strerror or exc}"))
        return
    if kind is not None:
        found.append((kind, path))
    elif explicit:
        problems.append(LogProblem(f"{path}:1", UNKNOWN_FORMAT,
                                   f"{UNKNOWN_FORMAT}: {path} is not an IRC Poker Database month, an ACPC "
                                   "log, a PHH file or an online room's hand history"))


def find_logs(paths: Sequence[str | Path]) -> tuple[list[tuple[str, Path]], list[LogProblem]]:
    """Every log at or under ``paths`` as (format, path), in the order given and sorted
    within folders, each file and folder once however many links lead to it;
    FileNotFoundError for a path that does not exist."""
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
                _walk(path, found, problems, seen)
        else:
            _found_file(path, found, problems, True)
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
    """The chunks of every log at or under ``paths``, in reading order, and the problems
    found on the way (unreadable folders, files of no known format). ``network`` names
    the players' network for every log (default: one per format). FileNotFoundError for a
    path that does not exist; GameError for a bad ``acpc.game_file``. Files are read as
    streams: planning holds a few numbers a chunk, not the logs."""
    if chunk_hands < 1:
        raise ValueError(f"chunk_hands must be at least 1, got {chunk_hands}")
    if acpc.game_file is not None:
        try:
            parse_game(_read_text(acpc.game_file), acpc.game_file)
        except ValueError as exc:
            if isinstance(exc, GameError):
                raise
            raise GameError(str(exc)) from None
    found, problems = find_logs(paths)
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
    return chunks, problems


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
        return LogProblem(where, OTHER_GAME, f"{OTHER_GAME}: {exc}")
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
