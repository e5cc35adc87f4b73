"""Reader for the IRC Poker Database hand logs (hdb / hroster / pdb.NICK), limit hold'em.

A pure parser: it reads the three files of a month, joins them on the hand's timestamp,
rebuilds the order in which every action was taken and checks each hand for consistency.
Nothing here touches the rules engine or the database. A hand that fails a check comes
out as a ``SkippedHand`` whose reason names the file, the line and what is wrong.

What the #holdem logs of April 1995 show about that dealer, as this reader applies it
(every rule below is checked against the pdb chip totals and the hdb pots):

- Blinds: position 1 always posts. When position 2's first letter is also ``B`` the
  blinds are 5 (position 1) and 10 (position 2); otherwise position 1 alone posts 10 and
  position 2 acts first. A blind is never more than the player's bankroll (``BA``); the
  pre-flop bet stays 10 when the big blind is short.
- Order: pre-flop the first to act is the player after the last blind (position 3 with
  two blinds, wrapping to position 1 heads-up); on later rounds position 1 acts first.
  Heads-up this makes the small blind act first on every round and the button (the big
  blind) last, unlike the usual heads-up rule.
- ``A`` is not an action by itself: it follows the letter of an action and marks the
  player all-in. Mostly that action used up his bankroll (``cA`` called with all he had,
  ``rA`` raised with all he had, possibly short of a full raise). A few times he still had
  chips and took no further part, playing for what he had put in (presumably the dealer's
  all-in for a player who lost his connection); this reader records that as an
  ``all_in`` action at his next turn, or at the end of the round if none came.
- A short all-in bet or raise lifts the bet to what the player put in; it does not count
  towards the cap, and a later raise goes one full bet above it.
- Cap: a bet and three raises a round (pre-flop the blind is the bet) while three or
  more players can still bet; no cap once only two can.
- Folding with nothing to call was allowed (kept, with a warning on the hand).
- ``Q`` / ``K`` (quit / kicked) take a player out of the hand like a fold, and need not
  happen in turn: a quit can end a hand before others act. A player who won chips left
  only after the pot was settled, and after a fold a ``Q``/``K`` is just a note; both go
  to ``IrcPlayer.left_after_out`` instead of the action sequence.
- ``hdb`` figures ``players/pot`` count every player still in the hand, all-in players
  included, and every chip put in so far, an uncalled bet included. The flop and turn
  figures are ``0/0`` when nobody could bet in that round (fewer than two players not
  all-in); the river figure is always written. At the showdown a winner who left once the
  pot was settled is no longer counted.

Hands these rules cannot explain are skipped, never bent to fit: in April 1995 a fourth
raise among three or more players (10 hands) and a "call" of one chip by a player with
hundreds behind (4 hands).
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from evaluator_pyx.cards import CARD_INDEX, CardError, parse_card

ROUND_NAMES = ("preflop", "flop", "turn", "river")
SMALL_BLIND = 5
BIG_BLIND = 10
BET_SIZES = (10, 10, 20, 20)
MAX_RAISES = 3  # after the bet; pre-flop the blind is the bet

# Action kinds (IrcAction.kind).
BLIND_SMALL = "blind_small"
BLIND_BIG = "blind_big"  # also the single blind of 10 when position 1 alone posts
FOLD = "fold"
CHECK = "check"
CALL = "call"
BET = "bet"
RAISE = "raise"
QUIT = "quit"  # out of the hand, like a fold
KICKED = "kicked"  # out of the hand, like a fold
ALL_IN = "all_in"  # declared all-in for what he had put in, without putting in more
ACTION_KINDS = (BLIND_SMALL, BLIND_BIG, FOLD, CHECK, CALL, BET, RAISE, QUIT, KICKED, ALL_IN)

# Reason categories of skipped hands: the text before the first colon of a reason.
INCOMPLETE = "incomplete"
MALFORMED = "malformed"
BAD_CARD = "bad-card"
BAD_LETTER = "bad-letter"
ILLEGAL_ACTION = "illegal-action"
MISSING_ACTION = "missing-action"
LEFTOVER = "leftover-letters"
PUT_IN_MISMATCH = "put-in-mismatch"
UNBALANCED = "chips-unbalanced"
CHIPS_TO_LOSER = "chips-to-folded-player"
POT_MISMATCH = "pot-mismatch"
BOARD_MISMATCH = "board-mismatch"
ORPHAN = "orphan"
# Warning categories: the hand is still read.
PLAYERS_MISMATCH = "hdb-players-count"
FREE_FOLD = "fold-with-nothing-to-call"


class ParseError(ValueError):
    """A problem in the logs and where it was found (raised only in strict mode)."""

    def __init__(self, source: str, reason: str, hand_id: int | None = None) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason
        self.hand_id = hand_id

    @property
    def category(self) -> str:
        return reason_category(self.reason)


def reason_category(reason: str) -> str:
    """'incomplete: missing pdb for X' -> 'incomplete'."""
    return reason.split(":", 1)[0]


class IrcAction(NamedTuple):
    """One action, in the order it was taken.

    ``position`` is 1-based (``hand.players[position - 1]``). ``to_call`` is the chips the
    player needed to call at that moment and ``bets_to_call`` the same in bets of the
    round rounded up (the small blind facing the big blind faces 1). ``amount`` is the
    chips this action put in; ``raises`` the full raises made in the round before it (the
    bet, and pre-flop the blind, are not raises). ``all_in`` marks the action that put in
    the player's last chip. Quit and kicked count as folds; ``all_in`` as a kind puts in
    nothing (see the module notes).
    """

    round: int
    position: int
    nick: str
    kind: str
    to_call: int
    bets_to_call: int
    amount: int
    raises: int
    all_in: bool


class IrcPlayer(NamedTuple):
    """One player's pdb line, in position order (1 small blind ... n the button).

    ``letters`` are pdb columns 5-8 as written ('-' for no action). ``pdb_line`` is the
    line number in ``pdb/pdb.<nick>`` of the hand's month folder. ``left_after_out``
    lists ``(round, 'quit' | 'kicked')`` of a player who left after folding or after the
    pot was settled.
    """

    position: int
    nick: str
    bankroll: int
    put_in: int
    won: int
    hole_cards: tuple[int, int] | None
    letters: tuple[str, str, str, str]
    pdb_line: int
    left_after_out: tuple[tuple[int, str], ...]

    @property
    def net(self) -> int:
        return self.won - self.put_in


Figure = tuple[int, int]


@dataclass(frozen=True, slots=True)
class IrcHand:
    """A hand that passed every check.

    ``source`` is ``path/to/hdb:LINE``. ``players`` are in position order, ``players[i]``
    at position ``i + 1``. ``hdb_figures`` are hdb's ``(players, pot)`` at the start of the
    flop, turn and river and at the showdown, ``(0, 0)`` where hdb wrote ``0/0``. ``pots``
    are the same figures rebuilt from the actions: players still in (all-in included) and
    chips in the pot, ``(0, 0)`` only for rounds the hand never reached. ``warnings`` are
    defects that did not stop the hand from being read, each starting with its category.
    """

    hand_id: int
    source: str
    game_set: int
    game_number: int
    players: tuple[IrcPlayer, ...]
    board: tuple[int, ...]
    hdb_figures: tuple[Figure, Figure, Figure, Figure]
    pots: tuple[Figure, Figure, Figure, Figure]
    actions: tuple[IrcAction, ...]
    warnings: tuple[str, ...] = ()

    @property
    def n_players(self) -> int:
        return len(self.players)

    @property
    def button(self) -> int:
        """Position of the button (the highest position)."""
        return len(self.players)

    @property
    def two_blinds(self) -> bool:
        return len(self.actions) > 1 and self.actions[1].kind == BLIND_BIG

    @property
    def last_round(self) -> int:
        """The last round the hand reached (0 pre-flop ... 3 river); with players all-in
        the later rounds may have no action."""
        r = 3
        while r and not self.pots[r - 1][1]:
            r -= 1
        return r

    def player(self, nick: str) -> IrcPlayer:
        for p in self.players:
            if p.nick == nick:
                return p
        raise KeyError(nick)

    def actions_in_round(self, rnd: int) -> tuple[IrcAction, ...]:
        return tuple(a for a in self.actions if a.round == rnd)


@dataclass(frozen=True, slots=True)
class SkippedHand:
    """A hand, or a stray line, that could not be made consistent, and why.

    ``source`` is ``path:line`` (the hdb line for a hand); ``reason`` starts with its
    category, e.g. ``incomplete: missing pdb for |maniac|``.
    """

    hand_id: int | None
    source: str
    reason: str

    @property
    def category(self) -> str:
        return reason_category(self.reason)


@dataclass(slots=True)
class IrcReadSummary:
    """Counts of what a read produced; give it every item with ``add``."""

    read: int = 0
    skipped: int = 0
    skipped_by_reason: Counter = field(default_factory=Counter)
    warnings_by_reason: Counter = field(default_factory=Counter)
    hands_with_warnings: int = 0

    def add(self, item: IrcHand | SkippedHand) -> None:
        if type(item) is SkippedHand:
            self.skipped += 1
            self.skipped_by_reason[item.category] += 1
        else:
            self.read += 1
            if item.warnings:
                self.hands_with_warnings += 1
                for w in item.warnings:
                    self.warnings_by_reason[reason_category(w)] += 1

    def __str__(self) -> str:
        lines = [f"hands read: {self.read}", f"skipped: {self.skipped}"]
        lines += [f"  {k}: {v}" for k, v in sorted(self.skipped_by_reason.items())]
        lines.append(f"read with warnings: {self.hands_with_warnings}")
        lines += [f"  {k}: {v}" for k, v in sorted(self.warnings_by_reason.items())]
        return "\n".join(lines)


def summarize(items: Iterable[IrcHand | SkippedHand]) -> IrcReadSummary:
    summary = IrcReadSummary()
    for item in items:
        summary.add(item)
    return summary


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


def _read_lines(path: Path | str) -> list[str]:
    # latin-1 maps every byte to one character, so odd bytes in a nick never stop a read;
    # splitting on '\n' alone keeps line numbers right whatever other bytes a line holds.
    with open(path, "rb") as f:
        return f.read().decode("latin-1").split("\n")


class _PdbLine(NamedTuple):
    # The raw text, split only when its hand is built: strings cost the garbage
    # collector nothing, lists of fields for 100k lines would.
    text: str
    path: str
    line: int


def _stray(path: str, lineno: int, why: str, text: str) -> SkippedHand:
    return SkippedHand(None, f"{path}:{lineno}", f"{MALFORMED}: {path} line {lineno}: {why}: {text[:80]!r}")


def _index_pdb(pdb_dir: Path, stray: list[SkippedHand]) -> dict[int, list[_PdbLine]]:
    """Every pdb line of a month by hand timestamp; lines without one go to ``stray``."""
    index: dict[int, list[_PdbLine]] = {}
    get = index.get
    try:
        names = sorted(os.listdir(pdb_dir))
    except OSError as e:
        stray.append(SkippedHand(None, str(pdb_dir), f"{INCOMPLETE}: cannot list the pdb folder: {e}"))
        return index
    for name in names:
        spath = os.path.join(pdb_dir, name)
        try:
            lines = _read_lines(spath)
        except OSError as e:
            stray.append(SkippedHand(None, spath, f"{INCOMPLETE}: cannot read {spath}: {e}"))
            continue
        lineno = 0
        for text in lines:
            lineno += 1
            head = text.split(None, 2)
            if not head:
                continue
            try:
                t = int(head[1])
            except (IndexError, ValueError):
                stray.append(_stray(spath, lineno, "no hand timestamp in column 2", text))
                continue
            entry = _new_tuple(_PdbLine, (text, spath, lineno))
            bucket = get(t)
            if bucket is None:
                index[t] = [entry]
            else:
                bucket.append(entry)
    return index


def _index_roster(path: Path, stray: list[SkippedHand]) -> dict[int, tuple[str, int]]:
    index: dict[int, tuple[str, int]] = {}
    spath = str(path)
    try:
        lines = _read_lines(path)
    except OSError as e:
        stray.append(SkippedHand(None, spath, f"{INCOMPLETE}: cannot read {spath}: {e}"))
        return index
    lineno = 0
    for text in lines:
        lineno += 1
        head = text.split(None, 1)
        if not head:
            continue
        try:
            t = int(head[0])
        except ValueError:
            stray.append(_stray(spath, lineno, "no hand timestamp in column 1", text))
            continue
        if t in index:
            stray.append(_stray(spath, lineno, f"a second hroster line for hand {t}", text))
            continue
        index[t] = (text, lineno)
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
        self.hdb_lines = _read_lines(folder / "hdb")
        self.roster = _index_roster(folder / "hroster", self.index_problems)
        self.pdb = _index_pdb(folder / "pdb", self.index_problems)
        # The first hdb line of each hand: a later line for the same hand is a problem.
        first: dict[int, int] = {}
        for lineno, text in enumerate(self.hdb_lines, start=1):
            head = text.split(None, 1)
            if head:
                try:
                    first.setdefault(int(head[0]), lineno)
                except ValueError:
                    pass
        self.first_line = first

    def __len__(self) -> int:
        """hdb lines (blank ones included)."""
        return len(self.hdb_lines)

    def read(self, start: int = 0, stop: int | None = None,
             skip: Callable[[int], bool] | None = None) -> Iterator[IrcHand | SkippedHand | NotRead]:
        """The hands of hdb lines ``start + 1`` to ``stop`` (line numbers from 1; all of
        them by default), in order: each an IrcHand or a SkippedHand saying why not; a hand
        whose timestamp ``skip`` accepts comes out as NotRead, unbuilt."""
        spath = self.hdb_path
        lines = self.hdb_lines
        first = self.first_line
        roster_get = self.roster.get
        pdb_get = self.pdb.get
        end = len(lines) if stop is None else min(stop, len(lines))
        for lineno in range(start + 1, end + 1):
            text = lines[lineno - 1]
            fields = text.split()
            if not fields:
                continue
            try:
                timestamp = int(fields[0])
            except ValueError:
                yield _stray(spath, lineno, "no hand timestamp in column 1", text)
                continue
            source = f"{spath}:{lineno}"
            if first[timestamp] != lineno:
                yield SkippedHand(timestamp, source,
                                  f"{MALFORMED}: {spath} line {lineno}: a second hdb line for hand {timestamp}")
                continue
            if skip is not None and skip(timestamp):
                yield NotRead(timestamp, source)
                continue
            try:
                yield _build_hand(timestamp, fields, source, spath, lineno, roster_get(timestamp),
                                  pdb_get(timestamp), self.roster_path)
            except _Reject as e:
                yield SkippedHand(timestamp, source, e.reason)

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
        yield item  # type: ignore[misc]  (no skip: never NotRead)
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


# --------------------------------------------------------------------------- one hand


class _Reject(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


_ACTIVE, _ALL_IN, _OUT = 0, 1, 2
_LETTER_KIND = {"f": FOLD, "k": CHECK, "c": CALL, "b": BET, "r": RAISE, "Q": QUIT, "K": KICKED, "B": "B"}
_LEAVING = (QUIT, KICKED)
_Tokens = tuple[tuple[str, bool], ...]
# A player's four columns of letters -> their tokens and token counts, round by round.
_token_cache: dict[tuple[str, str, str, str], tuple[tuple[_Tokens, ...], tuple[int, ...]]] = {}
_new_tuple = tuple.__new__


def _parse_letters(letters: tuple[str, str, str, str]) -> tuple[tuple[_Tokens, ...], tuple[int, ...]] | str:
    toks = []
    for text in letters:
        t = _tokens(text)
        if type(t) is str:
            return t
        toks.append(t)
    result = (tuple(toks), tuple([len(t) for t in toks]))
    if len(_token_cache) < 200_000:
        _token_cache[letters] = result
    return result


def _tokens(text: str) -> _Tokens | str:
    """'brA' -> (('bet', False), ('raise', True)); '-' -> (); a string says what is wrong."""
    if text == "-":
        return ()
    out: list[tuple[str, bool]] = []
    for ch in text:
        if ch == "A":
            if not out or out[-1][1]:
                return f"'A' with no action before it in {text!r}"
            out[-1] = (out[-1][0], True)
            continue
        kind = _LETTER_KIND.get(ch)
        if kind is None:
            return f"unknown action letter {ch!r} in {text!r}"
        out.append((kind, False))
    return tuple(out)


def _card(text: str, where: str) -> int:
    try:
        return parse_card(text)
    except CardError:
        raise _Reject(f"{BAD_CARD}: {where}: unknown card {text!r}") from None


def _bad_int(fields: list[str], names: tuple[tuple[int, str], ...], where: str) -> _Reject:
    """The reason for the first of ``fields`` that is not an integer (the slow path)."""
    for i, what in names:
        try:
            int(fields[i])
        except ValueError:
            return _Reject(f"{MALFORMED}: {where}: {what} is not an integer: {fields[i]!r}")
    return _Reject(f"{MALFORMED}: {where}: a players/pot figure is not 'players/pot'")


_HDB_INTS = ((1, "game set"), (2, "game number"), (3, "players dealt in"))
_PDB_INTS = ((2, "players dealt in"), (3, "position"), (8, "bankroll"), (9, "chips put in"), (10, "chips won"))


def _build_hand(hand_id: int, hf: list[str], source: str, hdb_path: str, hdb_line: int,
                roster_entry: tuple[str, int] | None, pdb_lines: list[_PdbLine] | None,
                roster_path: str) -> IrcHand:
    nf = len(hf)
    if nf != 8 and nf != 11 and nf != 12 and nf != 13:
        raise _Reject(f"{MALFORMED}: {hdb_path} line {hdb_line}: {nf} columns, expected 8 and then 0, 3, 4 "
                      f"or 5 board cards")
    try:
        game_set = int(hf[1])
        game_number = int(hf[2])
        n = int(hf[3])
        figures = []
        for x in hf[4:8]:
            a, _, b = x.partition("/")
            figures.append((int(a), int(b)))
    except ValueError:
        raise _bad_int(hf, _HDB_INTS, f"{hdb_path} line {hdb_line}") from None
    board = ()
    if nf > 8:
        try:
            board = tuple([CARD_INDEX[x] for x in hf[8:]])
        except KeyError:
            for x in hf[8:]:
                _card(x, f"{hdb_path} line {hdb_line}")
        if len(set(board)) != len(board):
            raise _Reject(f"{BAD_CARD}: {hdb_path} line {hdb_line}: a card twice on the board {' '.join(hf[8:])}")

    if roster_entry is None:
        raise _Reject(f"{INCOMPLETE}: no hroster line for hand {hand_id}")
    rtext, rline = roster_entry
    rf = rtext.split()
    nicks = rf[2:]
    if len(rf) < 2 or len(nicks) != n or rf[1] != hf[3]:
        said = rf[1] if len(rf) > 1 else "nothing"
        raise _Reject(f"{MALFORMED}: {roster_path} line {rline}: a roster of {len(nicks)} (it says {said}) "
                      f"for a hand of {n} players")
    if n < 2:
        raise _Reject(f"{MALFORMED}: {hdb_path} line {hdb_line}: a hand of {n} player(s)")
    lines = pdb_lines or ()
    split = [pl.text.split() for pl in lines]
    if len(lines) != n or {f[0] for f in split} != set(nicks):
        have = {f[0] for f in split}
        for nick in nicks:
            if nick not in have:
                raise _Reject(f"{INCOMPLETE}: missing pdb for {nick}")
        extra = sorted(have - set(nicks))
        detail = f"players not in the roster: {' '.join(extra)}" if extra else "a player has two pdb lines"
        raise _Reject(f"{MALFORMED}: {len(lines)} pdb lines for a hand of {n} players ({detail})")

    # Per position: (nick, letters, pdb line, hole cards), and the figures the replay uses.
    seats: list = [None] * n
    nicks_at: list = [None] * n
    bank_at = [0] * n
    put_at = [0] * n
    won_at = [0] * n
    toks_at: list = [None] * n
    cache = _token_cache
    t0 = t1 = t2 = t3 = 0  # letters per round, all players
    for pl, f0 in zip(lines, split):
        npf = len(f0)
        if npf != 11 and npf != 13:
            raise _Reject(f"{MALFORMED}: {pl.path} line {pl.line}: {npf} columns, expected 11 or 13")
        try:
            dealt = int(f0[2])
            pos = int(f0[3])
            bankroll = int(f0[8])
            put_in = int(f0[9])
            won = int(f0[10])
        except ValueError:
            raise _bad_int(f0, _PDB_INTS, f"{pl.path} line {pl.line}") from None
        if dealt != n:
            raise _Reject(f"{MALFORMED}: {pl.path} line {pl.line}: says {dealt} players dealt in, hdb says {n}")
        if not 0 < pos <= n or seats[pos - 1] is not None:
            raise _Reject(f"{MALFORMED}: {pl.path} line {pl.line}: position {pos} is out of range or taken twice")
        if bankroll < 0 or put_in < 0 or won < 0:
            raise _Reject(f"{MALFORMED}: {pl.path} line {pl.line}: a negative chip count")
        if npf == 13:
            try:
                hole = (CARD_INDEX[f0[11]], CARD_INDEX[f0[12]])
            except KeyError:
                hole = (_card(f0[11], f"{pl.path} line {pl.line}"), _card(f0[12], f"{pl.path} line {pl.line}"))
        else:
            hole = None
        letters = (f0[4], f0[5], f0[6], f0[7])
        parsed = cache.get(letters)
        if parsed is None:
            parsed = _parse_letters(letters)
            if type(parsed) is str:
                raise _Reject(f"{BAD_LETTER}: {pl.path} line {pl.line}: {f0[0]}: {parsed}")
        toks, (n0, n1, n2, n3) = parsed
        t0 += n0
        t1 += n1
        t2 += n2
        t3 += n3
        i = pos - 1
        seats[i] = (f0[0], letters, pl, hole)
        nicks_at[i] = f0[0]
        bank_at[i] = bankroll
        put_at[i] = put_in
        won_at[i] = won
        toks_at[i] = toks

    shown = [c for s in seats if s[3] is not None for c in s[3]]
    if shown and len(set(shown).union(board)) != len(shown) + len(board):
        raise _Reject(f"{BAD_CARD}: a card shown twice (board {' '.join(hf[8:])} and the players' cards)")

    actions, pots, left, warnings = _replay(seats, n, nicks_at, bank_at, put_at, won_at, toks_at, figures,
                                            len(board), (t0, t1, t2, t3))

    players = tuple([
        _new_tuple(IrcPlayer, (i + 1, s[0], bank_at[i], put_at[i], won_at[i], s[3], s[1], s[2].line, left[i]))
        for i, s in enumerate(seats)
    ])
    return IrcHand(hand_id, source, game_set, game_number, players, board, tuple(figures), pots, actions,
                   warnings)


def _where(seat: tuple) -> str:
    pl = seat[2]
    return f"{pl.path} line {pl.line}: {seat[0]}"


def _replay(seats: list, n: int, nick: list[str], bankroll: list[int], put_in: list[int], won: list[int],
            toks: list, figures: list, board_len: int, totals: tuple[int, int, int, int]):
    """Rebuild the action order from the players' letters; check chips, pots and board."""
    remaining = bankroll[:]
    put = [0] * n
    rc = [0] * n  # chips put in this round
    status = [_ACTIVE] * n
    allin_due = [False] * n  # declared all-in, to be recorded at his next turn
    left: list = [()] * n
    actions: list[IrcAction] = []
    append = actions.append
    warnings: list[str] = []
    pot = 0

    # Blinds: position 1 always; position 2 too when its first letter is B.
    ptr = [0] * n
    if not toks[0][0] or toks[0][0][0][0] != "B":
        raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[0])} at position 1 did not post a blind "
                      f"({seats[0][1][0]!r})")
    if toks[1][0] and toks[1][0][0][0] == "B":
        posts = ((0, SMALL_BLIND, BLIND_SMALL), (1, BIG_BLIND, BLIND_BIG))
    else:
        posts = ((0, BIG_BLIND, BLIND_BIG),)
    n_active = n
    n_due = 0
    for p, size, kind in posts:
        amt = size if remaining[p] > size else remaining[p]
        short = amt == remaining[p]
        flag = toks[p][0][0][1]
        if short and not flag:
            raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])} posts a blind of {amt}, all he has, "
                          f"without an all-in mark")
        remaining[p] -= amt
        rc[p] = amt
        put[p] = amt
        pot += amt
        ptr[p] = 1
        if short:
            status[p] = _ALL_IN
            n_active -= 1
        elif flag:
            allin_due[p] = True
            n_due += 1
        append(_new_tuple(IrcAction, (0, p + 1, nick[p], kind, 0, 0, amt, 0, short)))
    n_live = n

    pots = [(0, 0)] * 4
    could_bet = [True] * 4
    gone_after = 0  # live players who left once the pot was settled
    rnd = 0
    start = len(posts) % n
    level = BIG_BLIND
    used = len(posts)  # letters taken this round
    while True:
        bet = BET_SIZES[rnd]
        raises = 0
        if rnd:
            pots[rnd - 1] = (n_live, pot)
            could_bet[rnd - 1] = n_active > 1
            ptr = [0] * n
            rc = [0] * n
            level = 0
            start = 0
            used = 0
        acted = [False] * n
        pending = n_active  # players able to bet who still owe an action this round
        if n_active == 1:
            pending = _lone_player_owes(status, rc, level)
        i = start
        idle = 0
        while pending > 0 and n_live > 1:
            p = i
            i = i + 1 if i + 1 < n else 0
            if status[p] or (acted[p] and rc[p] == level):
                idle += 1
                if idle > n:  # nobody left to act: cannot happen if the counts are right
                    raise _Reject(f"{MISSING_ACTION}: the {ROUND_NAMES[rnd]} cannot close")
                continue
            idle = 0
            tp = toks[p][rnd]
            if n_due and allin_due[p]:
                kind = ALL_IN
                flag = False
                n_due -= 1
            else:
                k = ptr[p]
                if k >= len(tp) or (won[p] and tp[k][0] in _LEAVING):
                    # Someone else quit or went all-in out of turn: with no letter left this
                    # player had nothing to do, and one who won chips did not quit first.
                    if not _out_of_turn(rnd, toks, ptr, status, allin_due, nick, append, rc, level, bet,
                                        raises, p):
                        if k >= len(tp):
                            raise _Reject(f"{MISSING_ACTION}: {_where(seats[p])} has no letter left for "
                                          f"the {ROUND_NAMES[rnd]} but is to act")
                        raise _Reject(f"{CHIPS_TO_LOSER}: {_where(seats[p])} quits in the "
                                      f"{ROUND_NAMES[rnd]} but won {won[p]}")
                    n_live = n - status.count(_OUT)
                    n_active = status.count(_ACTIVE)
                    n_due = allin_due.count(True)
                    used = sum(ptr)
                    pending = sum(1 for q in range(n) if not status[q] and not (acted[q] and rc[q] == level))
                    if n_active == 1 and pending:
                        pending = _lone_player_owes(status, rc, level)
                    i = p
                    continue
                kind, flag = tp[k]
                ptr[p] = k + 1
                used += 1
            to_call = level - rc[p]
            btc = -(-to_call // bet)
            acted[p] = True
            if kind is CALL:
                if to_call <= 0:
                    raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])} calls in the {ROUND_NAMES[rnd]} "
                                  f"with nothing to call")
                amt = to_call
            elif kind is CHECK:
                if to_call:
                    raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])} checks in the {ROUND_NAMES[rnd]} "
                                  f"facing {to_call}")
                amt = 0
            elif kind is BET:
                if level:
                    raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])} bets in the {ROUND_NAMES[rnd]} "
                                  f"facing a bet")
                amt = bet
            elif kind is RAISE:
                if not level:
                    raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])} raises in the {ROUND_NAMES[rnd]} "
                                  f"with no bet to raise")
                if raises >= MAX_RAISES and n_active > 2:
                    raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])} raises in the {ROUND_NAMES[rnd]} "
                                  f"after the cap ({raises} raises, {n_active} players able to bet)")
                amt = level + bet - rc[p]
            else:
                amt = -1  # leaves the betting: fold, quit, kicked, declared all-in
            if amt >= 0:
                short = amt >= remaining[p]
                if short:
                    amt = remaining[p]
                    if not flag:
                        raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])}: a {kind} of {amt} in the "
                                      f"{ROUND_NAMES[rnd]} uses up his bankroll without an all-in mark")
                    status[p] = _ALL_IN
                    n_active -= 1
                elif flag:
                    allin_due[p] = True
                    n_due += 1
                remaining[p] -= amt
                put[p] += amt
                pot += amt
                new = rc[p] + amt
                rc[p] = new
                append(_new_tuple(IrcAction, (rnd, p + 1, nick[p], kind, to_call, btc, amt, raises, short)))
                if new > level:
                    if kind is RAISE and new - level >= bet:
                        raises += 1
                    level = new
                    pending = n_active - (status[p] == _ACTIVE)
                else:
                    pending -= 1
            else:
                if kind is FOLD or kind is QUIT or kind is KICKED:
                    status[p] = _OUT
                    n_live -= 1
                    if kind is FOLD and not to_call:
                        warnings.append(f"{FREE_FOLD}: {nick[p]} folds in the {ROUND_NAMES[rnd]} "
                                        f"with nothing to call")
                elif kind is ALL_IN:
                    status[p] = _ALL_IN
                    allin_due[p] = False
                else:
                    raise _Reject(f"{ILLEGAL_ACTION}: {_where(seats[p])} posts a blind in the "
                                  f"{ROUND_NAMES[rnd]} out of turn")
                if flag:
                    raise _Reject(f"{BAD_LETTER}: {_where(seats[p])}: an all-in mark after a {kind}")
                n_active -= 1
                pending -= 1
                append(_new_tuple(IrcAction, (rnd, p + 1, nick[p], kind, to_call, btc, 0, raises, False)))
            if n_active == 1 and pending:
                pending = _lone_player_owes(status, rc, level)

        # Letters left in this round: quits, kicks and all-ins after the round closed.
        # Players who won chips left last (leaving earlier would have given up the pot).
        for p in (_leftover_order(toks, ptr, allin_due, won, rnd, n) if used != totals[rnd] or n_due else ()):
            tp = toks[p][rnd]
            while ptr[p] < len(tp) or allin_due[p]:
                if allin_due[p]:
                    kind = ALL_IN
                    allin_due[p] = False
                    n_due -= 1
                else:
                    kind = tp[ptr[p]][0]
                    ptr[p] += 1
                # An all-in player owes nothing, whatever the bet.
                to_call = level - rc[p] if status[p] == _ACTIVE and level > rc[p] else 0
                if kind is QUIT or kind is KICKED:
                    if status[p] == _OUT or n_live == 1 or (won[p] and rnd == 3):
                        # Left after folding, or once the pot was settled (hdb then no longer
                        # counts him at the showdown).
                        left[p] += ((rnd, kind),)
                        if status[p] != _OUT:
                            gone_after += 1
                        continue
                    status[p] = _OUT
                    n_live -= 1
                elif kind is ALL_IN and status[p] == _ACTIVE:
                    status[p] = _ALL_IN
                else:
                    raise _Reject(f"{LEFTOVER}: {_where(seats[p])}: {seats[p][1][rnd]!r} in the "
                                  f"{ROUND_NAMES[rnd]} has letters that fit nowhere")
                append(_new_tuple(IrcAction, (rnd, p + 1, nick[p], kind, to_call, -(-to_call // bet), 0,
                                              raises, False)))
        n_active = status.count(_ACTIVE)
        if n_live <= 1 or rnd == 3:
            break
        rnd += 1

    pots[3] = (n_live - gone_after, pot)
    # Rounds the hand never reached hold only notes of players leaving.
    for p in range(n):
        for r in range(rnd + 1, 4):
            for kind, flag in toks[p][r]:
                if kind is not QUIT and kind is not KICKED:
                    raise _Reject(f"{LEFTOVER}: {_where(seats[p])}: {seats[p][1][r]!r} in the "
                                  f"{ROUND_NAMES[r]}, which the hand never reached")
                left[p] += ((r, kind),)

    if put != put_in:
        for p in range(n):
            if put[p] != put_in[p]:
                raise _Reject(f"{PUT_IN_MISMATCH}: {_where(seats[p])} put in {put[p]} by the letters, "
                              f"{put_in[p]} by the pdb line")
    total_won = sum(won)
    if total_won != pot:
        raise _Reject(f"{UNBALANCED}: {pot} chips put in, {total_won} won")
    for p in range(n):
        if won[p] and status[p] == _OUT:
            raise _Reject(f"{CHIPS_TO_LOSER}: {_where(seats[p])} left the hand but won {won[p]}")
    for r in range(4):
        hp, hpot = figures[r]
        mp, mpot = pots[r]
        if not could_bet[r] and r < 2:
            mp = mpot = 0  # hdb writes no flop or turn figure when nobody could bet
        if hpot != mpot:
            label = ROUND_NAMES[r + 1] if r < 3 else "showdown"
            raise _Reject(f"{POT_MISMATCH}: the pot at the {label} is {mpot} by the letters, {hpot} in hdb")
        if hp != mp:
            label = ROUND_NAMES[r + 1] if r < 3 else "showdown"
            warnings.append(f"{PLAYERS_MISMATCH}: {mp} players at the {label} by the letters, {hp} in hdb")
    # The board goes as far as the hand did; with two or more players left it is complete.
    if n_live > 1:
        if board_len != 5:
            raise _Reject(f"{BOARD_MISMATCH}: a showdown with {board_len} board cards")
    elif board_len != (0, 3, 4, 5)[rnd]:
        raise _Reject(f"{BOARD_MISMATCH}: the hand ended in the {ROUND_NAMES[rnd]} but the board has "
                      f"{board_len} cards")
    return tuple(actions), tuple(pots), left, tuple(warnings)


def _leftover_order(toks: list, ptr: list[int], allin_due: list[bool], won: list[int], rnd: int,
                    n: int) -> Iterable[int]:
    """Players with letters left this round, those who won chips last."""
    todo = [q for q in range(n) if ptr[q] < len(toks[q][rnd]) or allin_due[q]]
    if len(todo) > 1:
        todo.sort(key=lambda q: won[q] > 0)
    return todo


def _lone_player_owes(status: list[int], rc: list[int], level: int) -> int:
    """1 if the only player able to bet has yet to match the bet, else 0."""
    for q, s in enumerate(status):
        if s == _ACTIVE:
            return 1 if rc[q] < level else 0
    return 0


def _out_of_turn(rnd: int, toks: list, ptr: list[int], status: list[int], allin_due: list[bool],
                 nick: list[str], append, rc: list[int], level: int, bet: int, raises: int, skip: int) -> bool:
    """Apply every other player's next letter this round that is a quit, kick or all-in."""
    found = False
    for q in range(len(toks)):
        if q == skip or status[q] == _OUT:
            continue
        tq = toks[q][rnd]
        if allin_due[q] and status[q] == _ACTIVE:
            kind = ALL_IN
            allin_due[q] = False
        elif ptr[q] < len(tq) and tq[ptr[q]][0] in _LEAVING:
            kind = tq[ptr[q]][0]
            ptr[q] += 1
        else:
            continue
        to_call = level - rc[q] if status[q] == _ACTIVE and level > rc[q] else 0
        status[q] = _ALL_IN if kind is ALL_IN else _OUT
        append(_new_tuple(IrcAction, (rnd, q + 1, nick[q], kind, to_call, -(-to_call // bet), 0, raises, False)))
        found = True
    return found
